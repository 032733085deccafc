/* SPDX-License-Identifier: MIT */
/*
 * <linux/of_platform.h> of Linux 6.x over libdmamap: what platform drivers
 * of device-tree devices include it for, <linux/of_device.h>,
 * <linux/platform_device.h> and <linux/mod_devicetable.h>. The device
 * population calls (of_platform_populate()...) are not provided: a test
 * creates each device itself.
 */
#ifndef _LINUX_OF_PLATFORM_H
#define _LINUX_OF_PLATFORM_H

#include <dmamap/linux-api.h>
#include <linux/mod_devicetable.h>
#include <linux/of_device.h>
#include <linux/platform_device.h>

#endif /* _LINUX_OF_PLATFORM_H */
