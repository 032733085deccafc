/* SPDX-License-Identifier: MIT */
/*
 * libdmamap: the ARM Linux DMA-mapping layer over a simulated SoC.
 *
 * Include this one header: it brings in every topic header.
 */
#ifndef DMAMAP_DMAMAP_H
#define DMAMAP_DMAMAP_H

#include <dmamap/types.h>
#include <dmamap/log.h>
#include <dmamap/machine.h>
#include <dmamap/page.h>
#include <dmamap/cache.h>
#include <dmamap/slab.h>
#include <dmamap/mm.h>
#include <dmamap/device.h>
#include <dmamap/iova.h>
#include <dmamap/dma-attrs.h>
#include <dmamap/scatterlist.h>
#include <dmamap/dma-mapping.h>
#include <dmamap/dmapool.h>
#include <dmamap/dmabounce.h>
#include <dmamap/iommu.h>
#include <dmamap/dma-iommu.h>
#include <dmamap/debug.h>
#include <dmamap/check.h>

#endif /* DMAMAP_DMAMAP_H */
