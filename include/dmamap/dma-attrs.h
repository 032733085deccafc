/* SPDX-License-Identifier: MIT */
/*
 * DMA attributes: a small bitmap of properties a mapping or allocation asks
 * for. A NULL struct dma_attrs pointer means "none": plain coherent memory,
 * an ordinary streaming mapping.
 */
#ifndef DMAMAP_DMA_ATTRS_H
#define DMAMAP_DMA_ATTRS_H

#include <dmamap/types.h>

DMAMAP_BEGIN_DECLS

enum dma_attr {
	DMA_ATTR_WRITE_BARRIER,     /* DMA writes to it are ordered with earlier ones */
	DMA_ATTR_WEAK_ORDERING,     /* the device may reorder its accesses */
	DMA_ATTR_WRITE_COMBINE,     /* the CPU mapping is write-combining */
	DMA_ATTR_NON_CONSISTENT,    /* cached memory: the driver does the syncs */
	DMA_ATTR_NO_KERNEL_MAPPING, /* no CPU mapping at all: only the bus address is used */
	DMA_ATTR_SKIP_CPU_SYNC,     /* map/unmap without cache maintenance */
	DMA_ATTR_FORCE_CONTIGUOUS,  /* physically contiguous even behind an IOMMU */
	DMA_ATTR_MAX,
};

struct dma_attrs {
	unsigned long flags;
};

#define __DMA_ATTRS_INIT { 0 }
#define DEFINE_DMA_ATTRS(x) struct dma_attrs x = __DMA_ATTRS_INIT

/** init_dma_attrs() - clear every attribute of @attrs. */
static inline void init_dma_attrs(struct dma_attrs *attrs)
{
	attrs->flags = 0;
}

/**
 * dma_set_attr() - set attribute @attr in @attrs
 * @attr: an enum dma_attr; values out of range are ignored
 * @attrs: the set; NULL is ignored
 */
static inline void dma_set_attr(enum dma_attr attr, struct dma_attrs *attrs)
{
	if (attrs && (unsigned)attr < DMA_ATTR_MAX)
		attrs->flags |= 1UL << attr;
}

/**
 * dma_get_attr() - whether @attr is set in @attrs
 * @attr: an enum dma_attr
 * @attrs: the set, or NULL (no attribute set)
 *
 * Return: 1 if set, 0 if not (or @attr out of range).
 */
static inline int dma_get_attr(enum dma_attr attr, const struct dma_attrs *attrs)
{
	if (!attrs || (unsigned)attr >= DMA_ATTR_MAX)
		return 0;
	return (int)((attrs->flags >> attr) & 1UL);
}

DMAMAP_END_DECLS

#endif /* DMAMAP_DMA_ATTRS_H */
