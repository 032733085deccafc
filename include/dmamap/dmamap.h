/* SPDX-License-Identifier: MIT */
/*
 * libdmamap: the ARM Linux DMA-mapping layer over a simulated SoC.
 *
 * Include this one header: it brings in every topic header, with the 2012
 * ARM DMA API (struct dma_attrs). For the Linux 6.x API include the kernel's
 * own headers instead (<linux/dma-mapping.h>..., pkg-config dmamap-linux);
 * one translation unit uses one or the other.
 */
#ifndef DMAMAP_DMAMAP_H
#define DMAMAP_DMAMAP_H

#include <dmamap/types.h>
#include <dmamap/log.h>
#include <dmamap/machine.h>
#include <dmamap/locking.h>
#include <dmamap/clock.h>
#include <dmamap/page.h>
#include <dmamap/cache.h>
#include <dmamap/slab.h>
#include <dmamap/mm.h>
#include <dmamap/vmalloc.h>
#include <dmamap/device.h>
#include <dmamap/platform.h>
#include <dmamap/pm.h>
#include <dmamap/of.h>
#include <dmamap/clk.h>
#include <dmamap/firmware.h>
#include <dmamap/reset.h>
#include <dmamap/iomem.h>
#include <dmamap/irq.h>
#include <dmamap/tasklet.h>
#include <dmamap/iova.h>
#include <dmamap/dma-attrs.h>
#include <dmamap/scatterlist.h>
#include <dmamap/dma-common.h>
#include <dmamap/dma-mapping.h>
#include <dmamap/dma-linux.h>
#include <dmamap/dmapool.h>
#include <dmamap/devres.h>
#include <dmamap/workqueue.h>
#include <dmamap/dmabounce.h>
#include <dmamap/iommu.h>
#include <dmamap/dma-iommu.h>
#include <dmamap/debug.h>
#include <dmamap/check.h>
#include <dmamap/testing.h>

#endif /* DMAMAP_DMAMAP_H */
