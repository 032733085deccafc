/* SPDX-License-Identifier: MIT */
/*
 * <linux/dmapool.h> of Linux 6.x over libdmamap: dma_pool_create(),
 * dma_pool_alloc(), dma_pool_zalloc(), dma_pool_free(), dma_pool_destroy(),
 * and the managed dmam_pool_create() / dmam_pool_destroy().
 */
#ifndef _LINUX_DMAPOOL_H
#define _LINUX_DMAPOOL_H

#include <dmamap/linux-api.h>
#include <linux/device.h>
#include <linux/scatterlist.h>
#include <dmamap/dmapool.h>
#include <dmamap/devres.h>

#endif /* _LINUX_DMAPOOL_H */
