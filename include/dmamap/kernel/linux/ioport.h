/* SPDX-License-Identifier: MIT */
/*
 * <linux/ioport.h> of Linux 6.x over libdmamap (<dmamap/platform.h>): struct
 * resource, resource_size_t, the IORESOURCE_* types, resource_size() and
 * resource_type(), and the DEFINE_RES_*() initialisers a board file or a
 * test gives a platform device its memory windows and interrupt lines with.
 *
 * Where it differs from the kernel: struct resource has no tree (no parent,
 * sibling or child; request_mem_region() and the resource tree are not
 * provided), and DEFINE_RES_*() are brace initialisers, for an array or a
 * declaration, not the kernel's compound literals: they cannot be assigned
 * (write struct resource r = DEFINE_RES_MEM(...) rather than r = ...). So
 * they also compile in C++.
 */
#ifndef _LINUX_IOPORT_H
#define _LINUX_IOPORT_H

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

#endif /* _LINUX_IOPORT_H */
