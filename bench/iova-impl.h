/* SPDX-License-Identifier: MIT */
/*
 * One adapter for every IOVA allocator the benchmark compares. Addresses are
 * page indexes in a space of @pages pages starting at 0; every allocator
 * aligns an allocation of n pages to the smallest power of two >= n pages,
 * at most 2^IOVA_BENCH_MAX_ALIGN_ORDER pages (the library's default cap).
 * The reference allocators (seed, rbtree, rbtree+mag) live only here.
 */
#ifndef DMAMAP_BENCH_IOVA_IMPL_H
#define DMAMAP_BENCH_IOVA_IMPL_H

#include <stddef.h>
#include <stdint.h>

#define IOVA_BENCH_FAIL UINT64_MAX
#define IOVA_BENCH_MAX_ALIGN_ORDER 8

struct iova_impl {
	const char *name;
	const char *what;                                /* one line for the table's legend */
	void *(*create)(uint64_t pages);                 /* NULL on failure */
	void (*destroy)(void *a);
	uint64_t (*alloc)(void *a, uint64_t npages);     /* first page, or IOVA_BENCH_FAIL */
	void (*free)(void *a, uint64_t first, uint64_t npages);
	size_t (*metadata_bytes)(void *a);               /* host memory of the allocator's state now */
	/*
	 * Take [first, first + n) as if allocated (to start from a given aged
	 * state): 0, or -1 when the allocator cannot hold it there. NULL for an
	 * allocator that is only ever aged by its own allocations.
	 */
	int (*place)(void *a, uint64_t first, uint64_t n);
};

extern const struct iova_impl iova_impl_seed;
extern const struct iova_impl iova_impl_rbtree;
extern const struct iova_impl iova_impl_rbtree_mag;
extern const struct iova_impl iova_impl_dmamap;
extern const struct iova_impl iova_impl_dmamap_mag;

/* log2 of the alignment, in pages, of an n-page allocation (the shared rule). */
static inline unsigned iova_bench_align_order(uint64_t n)
{
	unsigned o = 0;

	while (((uint64_t)1 << o) < n)
		o++;
	return o < IOVA_BENCH_MAX_ALIGN_ORDER ? o : IOVA_BENCH_MAX_ALIGN_ORDER;
}

#endif
