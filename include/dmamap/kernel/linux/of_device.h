/* SPDX-License-Identifier: MIT */
/*
 * <linux/of_device.h> of Linux 6.x over libdmamap: of_match_device() and
 * of_device_get_match_data() (<dmamap/of.h>), which read the bound
 * driver's of_match_table against the node a test gave the device.
 */
#ifndef _LINUX_OF_DEVICE_H
#define _LINUX_OF_DEVICE_H

#include <dmamap/linux-api.h>
#include <linux/device.h>
#include <linux/of.h>

#endif /* _LINUX_OF_DEVICE_H */
