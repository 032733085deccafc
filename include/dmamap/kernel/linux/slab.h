/* SPDX-License-Identifier: MIT */
/*
 * <linux/slab.h> of Linux 6.x over libdmamap: kmalloc(), kzalloc(), kcalloc(),
 * kmalloc_array(), krealloc(), kfree()... over the RAM of the current machine
 * (see <dmamap/slab.h> for the model, the alignment and the reports), and the
 * alignment constants drivers use for DMA buffers.
 */
#ifndef _LINUX_SLAB_H
#define _LINUX_SLAB_H

#include <dmamap/linux-api.h>
#include <linux/gfp.h>
#include <dmamap/slab.h>

/* A DMA buffer aligned and sized to this shares no cache line (see DMAMAP_ARCH_DMA_MINALIGN). */
#define ARCH_DMA_MINALIGN DMAMAP_ARCH_DMA_MINALIGN
/* What kmalloc guarantees at least; the machine's cache line unless it packs (kmalloc_packed). */
#define ARCH_KMALLOC_MINALIGN DMAMAP_ARCH_KMALLOC_MINALIGN
#ifndef ____cacheline_aligned
#define ____cacheline_aligned __aligned(ARCH_DMA_MINALIGN)
#endif

#endif /* _LINUX_SLAB_H */
