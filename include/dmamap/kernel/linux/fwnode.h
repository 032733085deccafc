/* SPDX-License-Identifier: MIT */
/*
 * <linux/fwnode.h> of Linux 6.x over libdmamap: struct fwnode_handle, the
 * handle of a device's firmware node (<dmamap/of.h>; every one here is a
 * device-tree node's).
 */
#ifndef _LINUX_FWNODE_H
#define _LINUX_FWNODE_H

#include <dmamap/linux-api.h>
#include <linux/types.h>
#include <dmamap/of.h>

#endif /* _LINUX_FWNODE_H */
