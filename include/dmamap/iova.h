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
 * By default every call gives exactly the answer of a plain first-fit bitmap
 * (the tests compare it with one), at the price of one lock and a tree walk
 * per call. dmamap_iova_set_cache() puts per-thread caches (magazines) in
 * front, as Linux's alloc_iova_fast() does: a hit takes no lock, and first
 * fit then holds modulo cached ranges (see there).
 *
 * A destroyed allocator's pointer stays safe to pass for a while: every call
 * below made through it is reported (DMAMAP_REPORT_BAD_INPUT, "... was
 * destroyed: nothing done") and does nothing, returning what it returns for
 * a NULL allocator. The library keeps the last 256 destroyed allocators'
 * records (a few hundred bytes each, their bitmaps freed) before it reuses
 * the oldest for a new allocator: past that, a stale pointer may name a
 * live allocator again, as a sanitizer's quarantine only delays reuse.
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
 * and forgotten; the bitmaps are freed. A pointer that names no live
 * allocator (destroyed already) is reported process-wide
 * (DMAMAP_REPORT_BAD_INPUT) and nothing is done: the pointer is compared,
 * never read through. Other calls through a destroyed allocator are refused
 * as the opening comment says.
 */
DMAMAP_API void dmamap_iova_destroy(struct dmamap_iova *a);

/**
 * dmamap_iova_alloc() - allocate an IOVA range of @size bytes
 * @a: the allocator
 * @size: bytes, non-zero
 *
 * Return: the range's first address, aligned as described above, or
 * DMA_MAPPING_ERROR when no aligned free run is large enough, or for a zero
 * size, a NULL or destroyed allocator, or (counted in grow_failures) when the bitmaps had
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
 * (DMAMAP_REPORT_IOVA_MISUSE) and refused: nothing changes. So is a free on
 * a NULL allocator; one on a destroyed allocator is reported as
 * DMAMAP_REPORT_BAD_INPUT.
 */
DMAMAP_API void dmamap_iova_free(struct dmamap_iova *a, dma_addr_t addr, size_t size);

/**
 * dmamap_iova_set_max_align() - cap the alignment of allocations
 * @a: the allocator
 * @order: allocations align to at most 2^@order pages (0..30)
 *
 * Return: 0, or -EINVAL (NULL or destroyed @a, or @order too large;
 * nothing changed).
 */
DMAMAP_API DMAMAP_MUST_CHECK int dmamap_iova_set_max_align(struct dmamap_iova *a, unsigned order);

/**
 * dmamap_iova_set_cache() - put per-thread caches in front of the bitmaps, or take them away
 * @a: the allocator
 * @on: true to cache, false (the default) for the exact allocator
 *
 * With caches on, a free of up to 32 granules goes into the calling thread's
 * cache (16 ranges per size; when full, the older half goes back to the
 * bitmaps) and an allocation of that size takes the most recently cached one
 * first: neither takes the allocator's lock. A hit costs one atomic
 * instruction (the flip of one bitmap bit, which keeps double frees of cached
 * ranges refused) where the kernel offers membarrier(), two elsewhere; what
 * reads or empties another thread's cache (an allocation about to fail, the
 * stats, turning caches off) costs a membarrier() call. Semantics then:
 *  - placement is first fit modulo cached ranges: a cached range is not free
 *    to other sizes or threads until it goes back to the bitmaps;
 *  - a thread's miss of a cached size passes over the bitmap lines (512
 *    granules each) where other threads' misses last placed a range, and
 *    takes the first fit after them; only when nothing fits elsewhere does it
 *    go there. A thread's hits and frees write the bitmap words of its own
 *    ranges: this keeps two threads from writing one host cache line. With
 *    one thread, first fit holds as above;
 *  - DMA_MAPPING_ERROR still means no aligned free run exists: before an
 *    allocation fails, every thread's cache is emptied and the search runs
 *    again;
 *  - a cached range is freed as far as the caller can see: freeing it again
 *    is refused as a double free (DMAMAP_REPORT_IOVA_MISUSE),
 *    dmamap_iova_is_allocated() says false for its granules, and the stats
 *    count it in cached/cached_granules, not in allocations/used_granules;
 *  - the bitmaps cover the whole space from then on (no growth on demand);
 *  - a thread's cache goes back to the bitmaps when the thread exits, and is
 *    released at dmamap_iova_destroy() (its ranges are not leaks); threads
 *    may start before or outlive the allocator.
 * Turning caches off empties them all. The IOMMU mapper uses the exact
 * allocator. Call this while no other thread uses @a.
 *
 * Return: 0, -EINVAL (NULL or destroyed @a, or caches asked for a space of more than 2^32
 * granules) or -ENOMEM (the bitmaps could not grow to the whole space,
 * counted in grow_failures; nothing else changed).
 */
DMAMAP_API DMAMAP_MUST_CHECK int dmamap_iova_set_cache(struct dmamap_iova *a, bool on);

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
	unsigned long cached;          /* freed ranges held in per-thread caches (not in allocations) */
	unsigned long cached_granules; /* their granules (not in used_granules) */
};

/**
 * dmamap_iova_stats() - read @a's counters into @st
 * @a: the allocator; NULL or a destroyed one gives all zeroes
 * @st: filled in; NULL is ignored
 */
DMAMAP_API void dmamap_iova_stats(struct dmamap_iova *a, struct dmamap_iova_stats *st);

/**
 * dmamap_iova_is_allocated() - whether the granule holding @addr is in use
 * Return: true if allocated; false if free, outside the space, or @a is
 * NULL or destroyed.
 */
DMAMAP_API bool dmamap_iova_is_allocated(struct dmamap_iova *a, dma_addr_t addr);

DMAMAP_END_DECLS

#endif /* DMAMAP_IOVA_H */
