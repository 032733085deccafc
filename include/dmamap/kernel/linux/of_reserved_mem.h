/* SPDX-License-Identifier: MIT */
/*
 * <linux/of_reserved_mem.h> of Linux 6.x over libdmamap (<dmamap/of.h>):
 * of_reserved_mem_device_init(), of_reserved_mem_device_init_by_idx() and
 * of_reserved_mem_device_release(), for a device whose node's
 * "memory-region" refers to a "shared-dma-pool" region (with "no-map")
 * that a test described with dmamap_of_node_create(): the region becomes
 * the device's declared coherent memory. Not provided: CMA ("reusable")
 * regions, of_reserved_mem_lookup() and the region setup hooks.
 */
#ifndef _LINUX_OF_RESERVED_MEM_H
#define _LINUX_OF_RESERVED_MEM_H

#include <dmamap/linux-api.h>
#include <linux/device.h>
#include <linux/of.h>

#define of_reserved_mem_device_init_by_idx(dev, np, idx) \
	dmamap_of_reserved_mem_device_init_by_idx_at((dev), (np), (idx), __FILE__, __LINE__)
#define of_reserved_mem_device_init(dev) \
	dmamap_of_reserved_mem_device_init_by_idx_at((dev), (dev)->of_node, 0, __FILE__, __LINE__)

#endif /* _LINUX_OF_RESERVED_MEM_H */
