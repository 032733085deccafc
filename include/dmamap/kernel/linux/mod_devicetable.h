/* SPDX-License-Identifier: MIT */
/*
 * <linux/mod_devicetable.h> of Linux 6.x over libdmamap, for platform
 * drivers: kernel_ulong_t, struct platform_device_id (an id_table entry:
 * a device name and the driver's data for it) and struct of_device_id (an
 * of_match_table entry), with the kernel's fields (<dmamap/platform.h>).
 * When a driver is bound, its id_table is matched by the device's name
 * (platform_get_device_id()) and its of_match_table against the
 * device-tree node a test gave the device (dmamap_device_set_of_node(),
 * of_device_get_match_data(), <dmamap/of.h>).
 */
#ifndef _LINUX_MOD_DEVICETABLE_H
#define _LINUX_MOD_DEVICETABLE_H

#include <dmamap/linux-api.h>
#include <linux/types.h>
#include <dmamap/platform.h>

#endif /* _LINUX_MOD_DEVICETABLE_H */
