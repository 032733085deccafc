/* SPDX-License-Identifier: MIT */
/*
 * <linux/ioport.h> of Linux 6.x over libdmamap (<dmamap/platform.h>): struct
 * resource, resource_size_t, the IORESOURCE_* types, resource_size() and
 * resource_type(), and the DEFINE_RES_*() initialisers a board file or a
 * test gives a platform device its memory windows and interrupt lines with.
 *
 * Regions of physical addresses: request_mem_region(), release_mem_region(),
 * devm_request_mem_region() and devm_release_mem_region() (see
 * <dmamap/iomem.h>): a request fails, NULL, while a requested region or RAM
 * overlaps it; each region is released with the bounds it was requested
 * with.
 *
 * Where it differs from the kernel: struct resource has no tree (no parent,
 * sibling or child: the regions are a flat list per machine, and
 * request_mem_region() works on the current machine), and DEFINE_RES_*()
 * are brace initialisers, for an array or a declaration, not the kernel's
 * compound literals: they cannot be assigned (write struct resource r =
 * DEFINE_RES_MEM(...) rather than r = ...). So they also compile in C++.
 */
#ifndef _LINUX_IOPORT_H
#define _LINUX_IOPORT_H

#include <dmamap/iomem.h>
#include <dmamap/linux-api.h>
#include <dmamap/platform.h>

#define IORES_DESC_NONE 0

/* DEFINE_RES_NAMED() - a resource of @_size bytes (lines...) from @_start, of type @_flags, named @_name. */
#define DEFINE_RES_NAMED(_start, _size, _name, _flags) \
	{ (_start), (_start) + (_size) - 1, (_name), (_flags), IORES_DESC_NONE }
#define DEFINE_RES_IO_NAMED(_start, _size, _name) DEFINE_RES_NAMED((_start), (_size), (_name), IORESOURCE_IO)
#define DEFINE_RES_IO(_start, _size) DEFINE_RES_IO_NAMED((_start), (_size), NULL)
#define DEFINE_RES_MEM_NAMED(_start, _size, _name) DEFINE_RES_NAMED((_start), (_size), (_name), IORESOURCE_MEM)
#define DEFINE_RES_MEM(_start, _size) DEFINE_RES_MEM_NAMED((_start), (_size), NULL)
#define DEFINE_RES_IRQ_NAMED(_irq, _name) DEFINE_RES_NAMED((_irq), 1, (_name), IORESOURCE_IRQ)
#define DEFINE_RES_IRQ(_irq) DEFINE_RES_IRQ_NAMED((_irq), NULL)
#define DEFINE_RES_DMA_NAMED(_dma, _name) DEFINE_RES_NAMED((_dma), 1, (_name), IORESOURCE_DMA)
#define DEFINE_RES_DMA(_dma) DEFINE_RES_DMA_NAMED((_dma), NULL)

/** resource_size() - how many bytes (or lines) @res spans: end - start + 1. */
static inline resource_size_t resource_size(const struct resource *res)
{
	return res->end - res->start + 1;
}

/** resource_type() - the type bits of @res's flags: IORESOURCE_MEM, IORESOURCE_IRQ... */
static inline unsigned long resource_type(const struct resource *res)
{
	return res->flags & IORESOURCE_TYPE_BITS;
}

DMAMAP_BEGIN_DECLS

/**
 * request_mem_region() - request the physical range [@start, @start + @n) on the current machine
 * @start: the first physical address
 * @n: bytes
 * @name: the requester's name
 *
 * See dmamap_request_mem_region_at(): the region's resource, or NULL when
 * the range is empty, a requested region or RAM overlaps it, or no memory.
 */
static inline struct resource *request_mem_region(resource_size_t start, resource_size_t n, const char *name)
{
	return dmamap_request_mem_region_at(NULL, start, n, name, NULL, 0);
}

/** release_mem_region() - give back a region request_mem_region() requested, by its bounds (see dmamap_release_mem_region_at()). */
static inline void release_mem_region(resource_size_t start, resource_size_t n)
{
	dmamap_release_mem_region_at(NULL, start, n, NULL, 0);
}

/**
 * devm_request_mem_region() - request a physical range for @dev, released when the driver unbinds
 * @dev: the device
 * @start: the first physical address
 * @n: bytes
 * @name: the requester's name
 *
 * See dmamap_devm_request_mem_region_at(): the region's resource, or NULL.
 */
static inline struct resource *devm_request_mem_region(struct device *dev, resource_size_t start, resource_size_t n,
							const char *name)
{
	return dmamap_devm_request_mem_region_at(dev, start, n, name, NULL, 0);
}

/** devm_release_mem_region() - give back now a region @dev requested, by its bounds (see dmamap_devm_release_mem_region_at()). */
static inline void devm_release_mem_region(struct device *dev, resource_size_t start, resource_size_t n)
{
	dmamap_devm_release_mem_region_at(dev, start, n, NULL, 0);
}

#define request_mem_region(start, n, name) dmamap_request_mem_region_at(NULL, (start), (n), (name), __FILE__, __LINE__)
#define release_mem_region(start, n) dmamap_release_mem_region_at(NULL, (start), (n), __FILE__, __LINE__)
#define devm_request_mem_region(dev, start, n, name) \
	dmamap_devm_request_mem_region_at((dev), (start), (n), (name), __FILE__, __LINE__)
#define devm_release_mem_region(dev, start, n) dmamap_devm_release_mem_region_at((dev), (start), (n), __FILE__, __LINE__)

DMAMAP_END_DECLS

#endif /* _LINUX_IOPORT_H */
