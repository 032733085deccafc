/* SPDX-License-Identifier: MIT */
/*
 * dma_pool: small fixed-size DMA buffers carved from coherent allocations.
 */
#ifndef DMAMAP_DMAPOOL_H
#define DMAMAP_DMAPOOL_H

#include <dmamap/types.h>

DMAMAP_BEGIN_DECLS

struct dma_pool;

/**
 * dma_pool_create() - a pool of @size-byte blocks for @dev
 * @name: for messages (copied)
 * @dev: the device the blocks are for
 * @size: block size, non-zero, at most INT_MAX (as in Linux); rounded up to
 *        @align and then to pages, at most the machine's RAM
 * @align: block alignment, a power of two; 0 means 1; raised to at least
 *         sizeof(void *). The block size is rounded up to it.
 * @boundary: no block crosses a multiple of it in bus addresses; a power of
 *            two >= the rounded block size, or 0 for no boundary
 *
 * Blocks come from dma_alloc_coherent() allocations of the device, so they are
 * uncached and both sides see each other's stores at once. A pool page is
 * max(PAGE_SIZE, size rounded to pages); when the memory is misaligned on the
 * bus so that no block would fit between boundaries, it is twice that. A
 * page larger than what the device's coherent sources can serve at the time
 * (the page allocator's largest block, the contiguous area, declared memory)
 * makes dma_pool_alloc() fail, not dma_pool_create(): those may change.
 * The caller owns the pool (dma_pool_destroy()).
 * Return: the pool, or NULL for bad arguments (reported,
 * DMAMAP_REPORT_BAD_INPUT; nothing allocated) or no memory.
 */
DMAMAP_API struct dma_pool *dma_pool_create(const char *name, struct device *dev, size_t size, size_t align,
					    size_t boundary);

/**
 * dma_pool_destroy() - free the pool and its memory; NULL is ignored
 *
 * Blocks still allocated are reported (DMAMAP_REPORT_LEAK; with the DMA-API
 * checker on, one report per block naming the file:line that took it) and
 * freed anyway.
 * A pool still alive when its device is released gives its memory back then
 * (reported); one alive when its machine is destroyed is dead from then on:
 * every call on it is refused with a report, and this one only frees it.
 * A pool from dmam_pool_create() is refused (DMAMAP_REPORT_API_MISUSE,
 * nothing changed): it goes with its device, or with dmam_pool_destroy().
 * A pointer that is no live pool (destroyed already, before or after its
 * machine was destroyed) is reported process-wide (DMAMAP_REPORT_BAD_INPUT)
 * and nothing is done: the pointer is compared, never read through.
 */
DMAMAP_API void dma_pool_destroy(struct dma_pool *pool);

/**
 * dma_pool_alloc() - take a block
 * @pool: the pool
 * @mem_flags: GFP_KERNEL or GFP_ATOMIC (used when the pool must grow), with
 *             __GFP_ZERO to zero the block
 * @handle: receives the block's bus address
 *
 * The block is the caller's until dma_pool_free() (or the pool's destroy,
 * which reports it). A pointer that is no live pool -- one destroyed
 * already with dma_pool_destroy() or dmam_pool_destroy(), or with its
 * device's release, before or after its machine was destroyed -- is
 * reported process-wide (DMAMAP_REPORT_BAD_INPUT, "dma_pool_alloc(...): no
 * live dma_pool", at the caller's file:line through the macro) and nothing
 * changes: the pointer is compared, never read through.
 * Return: the block's CPU address, or NULL (and *handle = DMA_MAPPING_ERROR)
 * for no memory, a pool destroyed already, or a pool whose device was
 * released or whose machine was destroyed (all three reported).
 */
DMAMAP_API void *dma_pool_alloc(struct dma_pool *pool, gfp_t mem_flags, dma_addr_t *handle);

/**
 * dma_pool_zalloc() - dma_pool_alloc() of a zeroed block: as dma_pool_alloc()
 * with __GFP_ZERO (which the kernel's is), the same errors and the same
 * reports (naming dma_pool_alloc, a pool destroyed already included); the
 * block is the caller's until dma_pool_free().
 */
DMAMAP_API void *dma_pool_zalloc(struct dma_pool *pool, gfp_t mem_flags, dma_addr_t *handle);

/**
 * dma_pool_free() - give a block back
 * @vaddr: what dma_pool_alloc() returned
 * @dma: its bus address
 *
 * The block goes back to the pool, which keeps its memory. A block not from
 * this pool, already free, or whose @dma does not match is reported
 * (category DMAMAP_REPORT_API_MISUSE; with the checker on, as
 * DMAMAP_REPORT_DOUBLE_UNMAP, DMAMAP_REPORT_NOT_MAPPED or
 * DMAMAP_REPORT_ADDR_MISMATCH) and refused: nothing changes. A pointer that
 * is no live pool (destroyed already, before or after its machine was
 * destroyed) is reported process-wide (DMAMAP_REPORT_BAD_INPUT) and nothing
 * is done: the pointer is compared, never read through.
 */
DMAMAP_API void dma_pool_free(struct dma_pool *pool, void *vaddr, dma_addr_t dma);

/*
 * The forms that carry the caller's file:line, behind the macros below (as
 * the DMA API wrappers do): `(dma_pool_alloc)(...)` reaches the plain
 * function. @file may be NULL.
 */
/** dmamap_dma_pool_create() - dma_pool_create() called at @file:@line (its reports name them). */
DMAMAP_API struct dma_pool *dmamap_dma_pool_create(const char *name, struct device *dev, size_t size, size_t align,
						   size_t boundary, const char *file, int line);
/** dmamap_dma_pool_alloc() - dma_pool_alloc() called at @file:@line. */
DMAMAP_API void *dmamap_dma_pool_alloc(struct dma_pool *pool, gfp_t mem_flags, dma_addr_t *handle, const char *file,
				       int line);
/** dmamap_dma_pool_free() - dma_pool_free() called at @file:@line. */
DMAMAP_API void dmamap_dma_pool_free(struct dma_pool *pool, void *vaddr, dma_addr_t dma, const char *file, int line);
/** dmamap_dma_pool_destroy() - dma_pool_destroy() called at @file:@line. */
DMAMAP_API void dmamap_dma_pool_destroy(struct dma_pool *pool, const char *file, int line);

#define dma_pool_create(n, d, s, a, b) dmamap_dma_pool_create((n), (d), (s), (a), (b), __FILE__, __LINE__)
#define dma_pool_alloc(p, f, h) dmamap_dma_pool_alloc((p), (f), (h), __FILE__, __LINE__)
#define dma_pool_zalloc(p, f, h) dmamap_dma_pool_alloc((p), (f) | __GFP_ZERO, (h), __FILE__, __LINE__)
#define dma_pool_free(p, v, d) dmamap_dma_pool_free((p), (v), (d), __FILE__, __LINE__)
#define dma_pool_destroy(p) dmamap_dma_pool_destroy((p), __FILE__, __LINE__)

struct dmamap_dma_pool_stats {
	size_t block_size;            /* after rounding */
	unsigned long blocks_in_use;
	unsigned long blocks_total;   /* in all the pool's pages */
	unsigned long pages;          /* coherent allocations backing the pool */
	unsigned long high_water;     /* most blocks in use at once */
};

/**
 * dmamap_dma_pool_stats() - read @pool's counters into @st (the caller's)
 *
 * A NULL pool is reported and @st zeroed; so is a pointer that is no live
 * pool (destroyed already: reported process-wide, DMAMAP_REPORT_BAD_INPUT,
 * the pointer never read through).
 */
DMAMAP_API void dmamap_dma_pool_stats(struct dma_pool *pool, struct dmamap_dma_pool_stats *st);

DMAMAP_END_DECLS

#endif /* DMAMAP_DMAPOOL_H */
