/* SPDX-License-Identifier: MIT */
/*
 * <linux/highmem.h> of Linux 6.x over libdmamap, as far as DMA drivers need
 * it: the temporary mappings a driver takes to touch a scatterlist page with
 * the CPU (an SD host copying the unaligned head of a segment, a crypto driver
 * walking a request's pages).
 *
 * The simulated kernel has no highmem: every page is in the linear map, so a
 * mapping is page_address() and unmapping does nothing. What the CPU writes
 * through it is cached like any linear-map store, and reaches the device only
 * through the DMA API's maintenance, as on the real machine.
 */
#ifndef _LINUX_HIGHMEM_H
#define _LINUX_HIGHMEM_H

#include <dmamap/linux-api.h>
#include <linux/mm.h>

DMAMAP_BEGIN_DECLS

/** kmap_local_page() - the CPU address of @page until kunmap_local(): page_address(@page). */
static inline void *kmap_local_page(struct page *page)
{
	return page_address(page);
}

/** kunmap_local() - end a kmap_local_page() mapping (any address inside the page): nothing to undo. */
static inline void kunmap_local(const void *addr)
{
	(void)addr;
}

/** kmap_atomic() - kmap_local_page() of older drivers. */
static inline void *kmap_atomic(struct page *page)
{
	return page_address(page);
}

/** kunmap_atomic() - end a kmap_atomic() mapping: nothing to undo. */
static inline void kunmap_atomic(const void *addr)
{
	(void)addr;
}

/** kmap() - the CPU address of @page until kunmap(): page_address(@page). */
static inline void *kmap(struct page *page)
{
	return page_address(page);
}

/** kunmap() - end a kmap() mapping of @page: nothing to undo. */
static inline void kunmap(struct page *page)
{
	(void)page;
}

/** memcpy_from_page() - copy @len bytes at @offset in @page to @to, as the CPU sees them. */
static inline void memcpy_from_page(char *to, struct page *page, size_t offset, size_t len)
{
	memcpy(to, (const char *)page_address(page) + offset, len);
}

/** memcpy_to_page() - copy @len bytes from @from to @offset in @page, through the CPU's cache. */
static inline void memcpy_to_page(struct page *page, size_t offset, const char *from, size_t len)
{
	memcpy((char *)page_address(page) + offset, from, len);
}

/** memzero_page() - zero @len bytes at @offset in @page, through the CPU's cache. */
static inline void memzero_page(struct page *page, size_t offset, size_t len)
{
	memset((char *)page_address(page) + offset, 0, len);
}

DMAMAP_END_DECLS

#endif /* _LINUX_HIGHMEM_H */
