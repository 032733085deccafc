/* SPDX-License-Identifier: MIT */
/*
 * <linux/mod_devicetable.h> of Linux 6.x over libdmamap, for platform
 * drivers: kernel_ulong_t, struct platform_device_id (an id_table entry:
 * a device name and the driver's data for it) and struct of_device_id (an
 * of_match_table entry), with the kernel's fields (<dmamap/platform.h>).
 * Only id_table entries are matched (by the device's name, when a driver
 * is bound); no device tree describes the simulated devices, so an
 * of_match_table is kept but never matched.
 */
#ifndef _LINUX_MOD_DEVICETABLE_H
#define _LINUX_MOD_DEVICETABLE_H

#include <dmamap/linux-api.h>
#include <linux/types.h>
#include <dmamap/platform.h>

#endif /* _LINUX_MOD_DEVICETABLE_H */
