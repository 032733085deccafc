/* SPDX-License-Identifier: MIT */
/*
 * DMA attributes: a small bitmap of properties a mapping or allocation asks
 * for. A NULL struct dma_attrs pointer means "none": plain coherent memory,
 * an ordinary streaming mapping.
 */
#ifndef DMAMAP_DMA_ATTRS_H
#define DMAMAP_DMA_ATTRS_H

#include <dmamap/types.h>

#ifdef DMAMAP_LINUX_API
#error "libdmamap: <dmamap/dmamap.h> is the 2012 ARM DMA API (attrs are a struct dma_attrs *), but this file already includes the Linux 6.x headers (<linux/dma-mapping.h>..., attrs are an unsigned long): the calls of the same names take different arguments. Use one API per file; the simulator headers (<dmamap/testing.h>, <dmamap/machine.h>, <dmamap/device.h>...) go with either."
#endif
/* This translation unit uses the 2012 ARM API. */
#define DMAMAP_SEED_API 1

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

/*
 * DMAMAP_SEED_ATTRS() - the attrs argument of a 2012-API call, checked at
 * compile time: a struct dma_attrs pointer or NULL. An integer (a Linux 6.x
 * DMA_ATTR_* bit mask, or 0) would otherwise become a pointer with only a
 * warning and crash the call; here it stops the build and says why. C++
 * refuses the conversion by itself.
 */
#ifdef __cplusplus
#define DMAMAP_SEED_ATTRS(a) (a)
#else
#define DMAMAP_SEED_ATTRS(a)                                                                                        \
	((void)sizeof(struct {                                                                                      \
		 _Static_assert(_Generic((a), struct dma_attrs *: 1, void *: 1, default: 0),                        \
				"attrs must be a struct dma_attrs pointer (or NULL) in the 2012 ARM API of "        \
				"<dmamap/dmamap.h>; an unsigned long DMA_ATTR_* mask is the Linux 6.x API: include " \
				"<linux/dma-mapping.h> (pkg-config dmamap-linux) instead");                         \
		 int dmamap_attrs_check;                                                                            \
	 }),                                                                                                        \
	 (a))
#endif

DMAMAP_END_DECLS

#endif /* DMAMAP_DMA_ATTRS_H */
