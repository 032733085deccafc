/* SPDX-License-Identifier: MIT */
/*
 * The bitmap IOVA allocator: the address-space allocator of an IOMMU mapping,
 * usable on its own.
 *
 * A space of @size bytes starting at @base is cut into granules of
 * 2^order pages. An allocation of n bytes takes ceil(n / granule) granules,
 * aligned to its own order (the smallest power of two of granules that holds
 * it), the alignment capped at a configurable maximum; it is placed first-fit
 * from the lowest address. An allocation fails (DMA_MAPPING_ERROR) only when
 * no suitably aligned free run exists. Base 0 is a valid address. All calls
 * are thread-safe.
 *
 * Cost: allocation and free take O(log64 granules) word operations, plus
 * O(n/64) for an allocation of n granules; no call scans the space. The
 * state is two bits per granule (allocated, first of an allocation: what
 * makes exact-free checking possible) plus summaries of about 0.07 bits per
 * granule. The bitmaps cover the first 65536 granules at first and double
 * when a search fails inside them, up to the whole space (growth on demand,
 * as ARM's mapping "extensions"): the addresses handed out are the same as
 * with the whole space tracked from the start.
 *
 * No per-thread caches (magazines) sit in front of the bitmaps, by choice: a
 * range held in a cache would be neither free nor a live allocation, so
 * placement would be first fit only modulo cached ranges, a free would have to
 * search every thread's cache to refuse a double free of a cached range, and
 * dmamap_iova_is_allocated() and the stats would have to say which of the two
 * a cached granule is. Every call here gives exactly the answer of a plain
 * first-fit bitmap (the tests compare it with one), at the price of one lock
 * and a tree walk per call where a cache hit would cost a few loads.
 */
#ifndef DMAMAP_IOVA_H
#define DMAMAP_IOVA_H

#include <dmamap/types.h>

DMAMAP_BEGIN_DECLS

struct dmamap_iova;

/* Default alignment cap: allocations align to at most 2^8 pages. */
#define DMAMAP_IOVA_DEFAULT_MAX_ALIGN_ORDER 8

/**
 * dmamap_iova_create() - a new, empty IOVA space
 * @base: first address; a multiple of the granule (PAGE_SIZE << @order)
 * @size: bytes; a non-zero multiple of the granule; base + size must not
 *        overflow 64 bits
 * @order: granule order in pages (granule = PAGE_SIZE << order), at most 20
 *
 * Return: the allocator, owned by the caller (dmamap_iova_destroy()), or NULL
 * with errno EINVAL (bad argument) or ENOMEM.
 */
DMAMAP_API struct dmamap_iova *dmamap_iova_create(dma_addr_t base, size_t size, unsigned order);

/**
 * dmamap_iova_destroy() - free the allocator; NULL is ignored
 *
 * Ranges still allocated are reported (DMAMAP_REPORT_LEAK, process-wide log)
 * and forgotten.
 */
DMAMAP_API void dmamap_iova_destroy(struct dmamap_iova *a);

/**
 * dmamap_iova_alloc() - allocate an IOVA range of @size bytes
 * @a: the allocator
 * @size: bytes, non-zero
 *
 * Return: the range's first address, aligned as described above, or
 * DMA_MAPPING_ERROR when no aligned free run is large enough, or for a zero
 * size or NULL allocator, or (counted in grow_failures) when the bitmaps had
 * to grow to reach a free run and host memory ran out.
 */
DMAMAP_API DMAMAP_MUST_CHECK dma_addr_t dmamap_iova_alloc(struct dmamap_iova *a, size_t size);

/**
 * dmamap_iova_free() - free a range returned by dmamap_iova_alloc()
 * @a: the allocator
 * @addr: the address returned
 * @size: the size passed to dmamap_iova_alloc() (any size that rounds up to the
 *        same number of granules)
 *
 * A range that is not exactly an allocated one (not allocated, partly
 * allocated, outside the space, not granule aligned) is reported
 * (DMAMAP_REPORT_IOVA_MISUSE) and refused: nothing changes.
 */
DMAMAP_API void dmamap_iova_free(struct dmamap_iova *a, dma_addr_t addr, size_t size);

/**
 * dmamap_iova_set_max_align() - cap the alignment of allocations
 * @a: the allocator
 * @order: allocations align to at most 2^@order pages (0..30)
 *
 * Return: 0, or -EINVAL (nothing changed).
 */
DMAMAP_API DMAMAP_MUST_CHECK int dmamap_iova_set_max_align(struct dmamap_iova *a, unsigned order);

struct dmamap_iova_stats {
	dma_addr_t base;
	size_t size;                   /* bytes in the space */
	unsigned order;                /* granule order */
	unsigned long granules;        /* granules in the space */
	unsigned long used_granules;   /* granules allocated now */
	unsigned long allocations;     /* live allocations */
	unsigned long failures;        /* allocations refused for want of space */
	unsigned long refused_frees;   /* frees refused as misuse */
	size_t metadata_bytes;         /* host memory used by the allocator's state */
	double metadata_bits_per_page; /* metadata_bytes * 8 per IOVA page of the space */
	unsigned long tracked_granules;/* granules the bitmaps cover now (they grow on demand) */
	unsigned long grows;           /* times the bitmaps grew */
	unsigned long grow_failures;   /* growths refused for want of host memory */
};

/**
 * dmamap_iova_stats() - read @a's counters into @st
 * @a: the allocator; NULL gives all zeroes
 * @st: filled in; NULL is ignored
 */
DMAMAP_API void dmamap_iova_stats(struct dmamap_iova *a, struct dmamap_iova_stats *st);

/**
 * dmamap_iova_is_allocated() - whether the granule holding @addr is in use
 * Return: true if allocated; false if free or outside the space.
 */
DMAMAP_API bool dmamap_iova_is_allocated(struct dmamap_iova *a, dma_addr_t addr);

DMAMAP_END_DECLS

#endif /* DMAMAP_IOVA_H */
