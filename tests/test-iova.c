/* SPDX-License-Identifier: MIT */
/* The bitmap IOVA allocator (dmamap_iova_*). */
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>

#include "common.h"
#include "internal.h"

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#define HOST_ALLOC_ABORTS 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#undef HOST_ALLOC_ABORTS
#define HOST_ALLOC_ABORTS 1
#endif
#ifndef HOST_ALLOC_ABORTS
#define HOST_ALLOC_ABORTS 0 /* sanitizers abort on huge allocations instead of returning NULL */
#endif

/* Built with ThreadSanitizer, which makes each atomic operation cost some hundred times more. */
static bool under_tsan(void)
{
#if defined(__SANITIZE_THREAD__)
	return true;
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
	return true;
#endif
#endif
	return false;
}

/*
 * Whether the long single-threaded runs (the model comparisons, the large
 * spaces) are cut down: under valgrind, and under ThreadSanitizer, which
 * slows them as much and has nothing to find in them.
 */
static bool short_runs(void)
{
	return under_valgrind() || under_tsan();
}

#define PG ((size_t)PAGE_SIZE)
#define BASE ((dma_addr_t)0x80000000ULL)

/* ------------------------------------------------------------- helpers */

static uint64_t rng_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static struct dmamap_iova *mk(dma_addr_t base, size_t size, unsigned order)
{
	struct dmamap_iova *a = dmamap_iova_create(base, size, order);

	assert_non_null(a);
	return a;
}

static struct dmamap_iova_stats stats_of(struct dmamap_iova *a)
{
	struct dmamap_iova_stats st;

	dmamap_iova_stats(a, &st);
	return st;
}

static void assert_stats_equal(const struct dmamap_iova_stats *x, const struct dmamap_iova_stats *y)
{
	assert_int_equal(x->base, y->base);
	assert_int_equal(x->size, y->size);
	assert_int_equal(x->order, y->order);
	assert_int_equal(x->granules, y->granules);
	assert_int_equal(x->used_granules, y->used_granules);
	assert_int_equal(x->allocations, y->allocations);
	assert_int_equal(x->failures, y->failures);
	assert_int_equal(x->refused_frees, y->refused_frees);
	assert_int_equal(x->metadata_bytes, y->metadata_bytes);
}

/* @a's live allocations and granules, and the ranges and granules in its caches, are these. */
static void assert_counts(struct dmamap_iova *a, unsigned long allocations, unsigned long used, unsigned long cached,
			  unsigned long cached_granules)
{
	struct dmamap_iova_stats st = stats_of(a);

	assert_int_equal(st.allocations, allocations);
	assert_int_equal(st.used_granules, used);
	assert_int_equal(st.cached, cached);
	assert_int_equal(st.cached_granules, cached_granules);
}

/* A free of [addr, addr + size) is refused: one report, one refusal counted, nothing else changed. */
static void assert_free_refused(struct dmamap_iova *a, dma_addr_t addr, size_t size)
{
	struct dmamap_iova_stats before = stats_of(a), st;
	struct capture c;

	capture_start(&c, NULL);
	dmamap_iova_free(a, addr, size);
	capture_stop(NULL);
	assert_int_equal(c.by_kind[DMAMAP_REPORT_IOVA_MISUSE], 1);
	st = stats_of(a);
	assert_int_equal(st.refused_frees, before.refused_frees + 1);
	assert_int_equal(st.cached, before.cached);
	assert_int_equal(st.cached_granules, before.cached_granules);
	st.refused_frees = before.refused_frees;
	assert_stats_equal(&st, &before);
}

/* Destroy @a, which still holds allocations: exactly one leak report. */
static void destroy_leaky(struct dmamap_iova *a)
{
	struct capture c;

	capture_start(&c, NULL);
	dmamap_iova_destroy(a);
	capture_stop(NULL);
	assert_int_equal(c.reports, 1);
	assert_int_equal(c.by_kind[DMAMAP_REPORT_LEAK], 1);
}

static void destroy_clean(struct dmamap_iova *a)
{
	struct capture c;

	capture_start(&c, NULL);
	dmamap_iova_destroy(a);
	capture_stop(NULL);
	assert_int_equal(c.reports, 0);
}

/* ------------------------------------------------------------- creation */

static void test_create_rejects_bad_arguments(void **state)
{
	(void)state;

	errno = 0;
	assert_null(dmamap_iova_create(BASE, 16 * PG, 21));
	assert_int_equal(errno, EINVAL);
	errno = 0;
	assert_null(dmamap_iova_create(BASE, 0, 0));
	assert_int_equal(errno, EINVAL);
	errno = 0;
	assert_null(dmamap_iova_create(BASE + 512, 16 * PG, 0)); /* base not page aligned */
	assert_int_equal(errno, EINVAL);
	errno = 0;
	assert_null(dmamap_iova_create(BASE + PG, 16 * PG, 2)); /* base not granule aligned */
	assert_int_equal(errno, EINVAL);
	errno = 0;
	assert_null(dmamap_iova_create(BASE, 16 * PG + 100, 0)); /* size not a page multiple */
	assert_int_equal(errno, EINVAL);
	errno = 0;
	assert_null(dmamap_iova_create(BASE, 5 * PG, 2)); /* size not a granule multiple */
	assert_int_equal(errno, EINVAL);
	errno = 0;
	assert_null(dmamap_iova_create(~(dma_addr_t)0 - PG + 1, 2 * PG, 0)); /* wraps past 2^64 */
	assert_int_equal(errno, EINVAL);
	errno = 0;
	assert_null(dmamap_iova_create((dma_addr_t)1 << 63, (size_t)1 << 63 | PG, 0));
	assert_int_equal(errno, EINVAL);

	/* Ending exactly at 2^64 is fine; so is the largest order. */
	struct dmamap_iova *a = mk(~(dma_addr_t)0 - PG + 1, PG, 0);
	destroy_clean(a);
	a = mk(0, (size_t)PAGE_SIZE << 20, 20);
	struct dmamap_iova_stats st = stats_of(a);
	assert_int_equal(st.granules, 1);
	assert_int_equal(st.order, 20);
	destroy_clean(a);

	/* 2^52 granules: the bitmaps start small and grow on demand, so the space can be made. */
	a = mk(0, SIZE_MAX - PG + 1, 0);
	st = stats_of(a);
	assert_int_equal(st.granules, (1UL << 52) - 1);
	assert_true(st.tracked_granules < 1UL << 20);
	assert_true(st.metadata_bytes < 1UL << 20);
	assert_int_equal(dmamap_iova_alloc(a, PG), 0);
	assert_int_equal(dmamap_iova_alloc(a, 4 * PG), 4 * PG);
	dmamap_iova_free(a, 0, PG);
	dmamap_iova_free(a, 4 * PG, 4 * PG);
	destroy_clean(a);
}

static void test_null_and_zero_arguments(void **state)
{
	struct dmamap_iova_stats st;
	struct capture c;
	(void)state;

	assert_int_equal(dmamap_iova_alloc(NULL, PG), DMA_MAPPING_ERROR);
	assert_false(dmamap_iova_is_allocated(NULL, 0));
	assert_int_equal(dmamap_iova_set_max_align(NULL, 4), -EINVAL);
	memset(&st, 0xff, sizeof(st));
	dmamap_iova_stats(NULL, &st);
	assert_int_equal(st.granules, 0);
	assert_int_equal(st.allocations, 0);
	dmamap_iova_destroy(NULL);

	capture_start(&c, NULL);
	dmamap_iova_free(NULL, 0, PG);
	capture_stop(NULL);
	assert_int_equal(c.by_kind[DMAMAP_REPORT_IOVA_MISUSE], 1);

	struct dmamap_iova *a = mk(BASE, 16 * PG, 0);
	assert_int_equal(dmamap_iova_alloc(a, 0), DMA_MAPPING_ERROR);
	st = stats_of(a);
	assert_int_equal(st.allocations, 0);
	assert_int_equal(st.failures, 0); /* a zero size is not a want of space */
	assert_int_equal(dmamap_iova_set_max_align(a, 31), -EINVAL);
	assert_int_equal(dmamap_iova_set_max_align(a, 30), 0);
	assert_int_equal(dmamap_iova_set_max_align(a, 0), 0);
	dmamap_iova_stats(a, NULL);
	destroy_clean(a);
}

static void test_stats_fields(void **state)
{
	(void)state;
	struct dmamap_iova *a = mk(BASE, 1000 * 4 * PG, 2);
	struct dmamap_iova_stats st = stats_of(a);

	assert_int_equal(st.base, BASE);
	assert_int_equal(st.size, 1000 * 4 * PG);
	assert_int_equal(st.order, 2);
	assert_int_equal(st.granules, 1000);
	assert_int_equal(st.used_granules, 0);
	assert_int_equal(st.allocations, 0);
	assert_int_equal(st.failures, 0);
	assert_int_equal(st.refused_frees, 0);
	/* two bitmaps of 16 words, and the struct */
	assert_true(st.metadata_bytes >= 2 * 16 * 8 + 32);
	assert_true(st.metadata_bytes <= 2 * 16 * 8 + 1024);

	assert_int_not_equal(dmamap_iova_alloc(a, 3 * 4 * PG), DMA_MAPPING_ERROR);
	st = stats_of(a);
	assert_int_equal(st.used_granules, 3);
	assert_int_equal(st.allocations, 1);
	assert_int_equal(st.failures, 0);
	assert_int_equal(dmamap_iova_alloc(a, 1001 * 4 * PG), DMA_MAPPING_ERROR);
	assert_int_equal(stats_of(a).failures, 1);
	dmamap_iova_free(a, BASE, 3 * 4 * PG);
	st = stats_of(a);
	assert_int_equal(st.used_granules, 0);
	assert_int_equal(st.allocations, 0);
	destroy_clean(a);
}

/* ------------------------------------------------------------- placement */

static void test_exactly_full_space(void **state)
{
	(void)state;
	/* 1M granules: 4 GiB of order-0 space */
	size_t size = (size_t)1 << 32;
	struct dmamap_iova *a = mk(BASE, size, 0);
	struct dmamap_iova_stats st;

	assert_int_equal(dmamap_iova_alloc(a, size), BASE);
	st = stats_of(a);
	assert_int_equal(st.granules, 1UL << 20);
	assert_int_equal(st.used_granules, 1UL << 20);
	assert_int_equal(st.allocations, 1);
	assert_true(dmamap_iova_is_allocated(a, BASE));
	assert_true(dmamap_iova_is_allocated(a, BASE + size - 1));
	assert_false(dmamap_iova_is_allocated(a, BASE + size));
	assert_false(dmamap_iova_is_allocated(a, BASE - 1));

	assert_int_equal(dmamap_iova_alloc(a, 1), DMA_MAPPING_ERROR);
	assert_int_equal(dmamap_iova_alloc(a, size + 1), DMA_MAPPING_ERROR);
	st = stats_of(a);
	assert_int_equal(st.failures, 2);
	dmamap_iova_free(a, BASE, size);
	st = stats_of(a);
	assert_int_equal(st.used_granules, 0);
	assert_int_equal(st.allocations, 0);
	/* One byte more than the space never fits. */
	assert_int_equal(dmamap_iova_alloc(a, size + 1), DMA_MAPPING_ERROR);
	assert_int_equal(dmamap_iova_alloc(a, SIZE_MAX), DMA_MAPPING_ERROR);
	destroy_clean(a);

	/* A space that is not a power of two, filled by one allocation. */
	a = mk(BASE, 100 * PG, 0);
	assert_int_equal(dmamap_iova_alloc(a, 100 * PG), BASE);
	assert_int_equal(dmamap_iova_alloc(a, PG), DMA_MAPPING_ERROR);
	dmamap_iova_free(a, BASE, 100 * PG);
	destroy_clean(a);
}

static void test_one_granule_left(void **state)
{
	(void)state;
	struct dmamap_iova *a = mk(BASE, 64 * PG, 0);

	assert_int_equal(dmamap_iova_alloc(a, 32 * PG), BASE);
	assert_int_equal(dmamap_iova_alloc(a, 16 * PG), BASE + 32 * PG);
	assert_int_equal(dmamap_iova_alloc(a, 8 * PG), BASE + 48 * PG);
	assert_int_equal(dmamap_iova_alloc(a, 4 * PG), BASE + 56 * PG);
	assert_int_equal(dmamap_iova_alloc(a, 2 * PG), BASE + 60 * PG);
	assert_int_equal(dmamap_iova_alloc(a, PG), BASE + 62 * PG);
	/* one granule left: two pages do not fit, one does */
	assert_int_equal(dmamap_iova_alloc(a, PG + 1), DMA_MAPPING_ERROR);
	assert_int_equal(stats_of(a).failures, 1);
	assert_false(dmamap_iova_is_allocated(a, BASE + 63 * PG));
	assert_int_equal(dmamap_iova_alloc(a, 1), BASE + 63 * PG);
	assert_true(dmamap_iova_is_allocated(a, BASE + 63 * PG));
	assert_int_equal(stats_of(a).used_granules, 64);
	assert_int_equal(dmamap_iova_alloc(a, 1), DMA_MAPPING_ERROR);
	assert_int_equal(stats_of(a).failures, 2);

	dmamap_iova_free(a, BASE, 32 * PG);
	dmamap_iova_free(a, BASE + 32 * PG, 16 * PG);
	dmamap_iova_free(a, BASE + 48 * PG, 8 * PG);
	dmamap_iova_free(a, BASE + 56 * PG, 4 * PG);
	dmamap_iova_free(a, BASE + 60 * PG, 2 * PG);
	dmamap_iova_free(a, BASE + 62 * PG, PG);
	dmamap_iova_free(a, BASE + 63 * PG, 1);
	assert_int_equal(stats_of(a).used_granules, 0);
	assert_int_equal(stats_of(a).refused_frees, 0);
	destroy_clean(a);
}

static void test_alignment_forces_gap_then_fills_it(void **state)
{
	(void)state;
	struct dmamap_iova *a = mk(BASE, 64 * PG, 0);

	assert_int_equal(dmamap_iova_alloc(a, PG), BASE);
	/* 4 pages align to 4 pages: pages 1..3 stay free */
	assert_int_equal(dmamap_iova_alloc(a, 4 * PG), BASE + 4 * PG);
	assert_int_equal(dmamap_iova_alloc(a, PG), BASE + PG);
	/* 3 pages are order 2: aligned to 4 pages too */
	assert_int_equal(dmamap_iova_alloc(a, 3 * PG), BASE + 8 * PG);
	assert_int_equal(dmamap_iova_alloc(a, 2 * PG), BASE + 2 * PG);
	/* the gap at 11 is used by a 1-page request, the 2-page one goes to 12 */
	assert_int_equal(dmamap_iova_alloc(a, 2 * PG), BASE + 12 * PG);
	assert_int_equal(dmamap_iova_alloc(a, 100), BASE + 11 * PG);
	/* 9 pages are order 4: aligned to 16 pages */
	assert_int_equal(dmamap_iova_alloc(a, 9 * PG), BASE + 16 * PG);
	assert_int_equal(stats_of(a).used_granules, 1 + 4 + 1 + 3 + 2 + 2 + 1 + 9);
	destroy_leaky(a);
}

static void test_alignment_is_relative_to_base(void **state)
{
	(void)state;
	/* A base that is only page aligned: alignment counts from the base. */
	dma_addr_t base = BASE + 3 * PG;
	struct dmamap_iova *a = mk(base, 32 * PG, 0);

	assert_int_equal(dmamap_iova_alloc(a, PG), base);
	assert_int_equal(dmamap_iova_alloc(a, 8 * PG), base + 8 * PG);
	dmamap_iova_free(a, base, PG);
	dmamap_iova_free(a, base + 8 * PG, 8 * PG);
	destroy_clean(a);
}

static void test_base_zero_is_a_valid_address(void **state)
{
	(void)state;
	struct dmamap_iova *a = mk(0, 16 * PG, 0);

	assert_int_equal(dmamap_iova_alloc(a, PG), 0);
	assert_true(dmamap_iova_is_allocated(a, 0));
	assert_int_equal(stats_of(a).allocations, 1);
	assert_int_equal(stats_of(a).failures, 0);
	dmamap_iova_free(a, 0, PG);
	assert_false(dmamap_iova_is_allocated(a, 0));
	assert_int_equal(stats_of(a).refused_frees, 0);
	assert_int_equal(dmamap_iova_alloc(a, 16 * PG), 0);
	dmamap_iova_free(a, 0, 16 * PG);
	destroy_clean(a);
}

static void test_last_granule_of_space(void **state)
{
	(void)state;
	/* The space ends exactly at 2^64: its last granule starts at 2^64 - PAGE_SIZE. */
	dma_addr_t base = ~(dma_addr_t)0 - 16 * PG + 1;
	dma_addr_t last = ~(dma_addr_t)0 - PG + 1;
	struct dmamap_iova *a = mk(base, 16 * PG, 0);

	assert_int_equal(dmamap_iova_alloc(a, 8 * PG), base);
	assert_int_equal(dmamap_iova_alloc(a, 4 * PG), base + 8 * PG);
	assert_int_equal(dmamap_iova_alloc(a, 2 * PG), base + 12 * PG);
	assert_int_equal(dmamap_iova_alloc(a, PG), base + 14 * PG);
	assert_int_equal(dmamap_iova_alloc(a, PG), last);
	assert_true(dmamap_iova_is_allocated(a, last));
	assert_true(dmamap_iova_is_allocated(a, ~(dma_addr_t)0));
	assert_int_equal(dmamap_iova_alloc(a, PG), DMA_MAPPING_ERROR);
	dmamap_iova_free(a, last, PG);
	assert_false(dmamap_iova_is_allocated(a, ~(dma_addr_t)0));
	assert_int_equal(dmamap_iova_alloc(a, PG), last);
	dmamap_iova_free(a, last, PG);
	dmamap_iova_free(a, base + 14 * PG, PG);
	dmamap_iova_free(a, base + 12 * PG, 2 * PG);
	dmamap_iova_free(a, base + 8 * PG, 4 * PG);
	dmamap_iova_free(a, base, 8 * PG);
	assert_int_equal(stats_of(a).refused_frees, 0);
	destroy_clean(a);

	/* Same in an ordinary space whose last granule is not word aligned in the bitmap. */
	a = mk(BASE, 67 * PG, 0);
	assert_int_equal(dmamap_iova_alloc(a, 64 * PG), BASE);
	assert_int_equal(dmamap_iova_alloc(a, 2 * PG), BASE + 64 * PG);
	assert_int_equal(dmamap_iova_alloc(a, 2 * PG), DMA_MAPPING_ERROR);
	assert_int_equal(dmamap_iova_alloc(a, PG), BASE + 66 * PG);
	assert_int_equal(dmamap_iova_alloc(a, PG), DMA_MAPPING_ERROR);
	dmamap_iova_free(a, BASE + 66 * PG, PG);
	dmamap_iova_free(a, BASE + 64 * PG, 2 * PG);
	dmamap_iova_free(a, BASE, 64 * PG);
	destroy_clean(a);
}

static void test_free_then_reuse_lowest_first(void **state)
{
	(void)state;
	struct dmamap_iova *a = mk(BASE, 32 * PG, 0);
	dma_addr_t p[8];

	for (unsigned i = 0; i < 8; i++) {
		p[i] = dmamap_iova_alloc(a, PG);
		assert_int_equal(p[i], BASE + i * PG);
	}
	dmamap_iova_free(a, p[5], PG);
	dmamap_iova_free(a, p[2], PG);
	dmamap_iova_free(a, p[6], PG);
	/* first fit: the lowest hole first, whatever the order of the frees */
	assert_int_equal(dmamap_iova_alloc(a, PG), p[2]);
	assert_int_equal(dmamap_iova_alloc(a, PG), p[5]);
	/* [5,6] is not a 2-page aligned run, [6,7]... 7 is used: 8 is the first */
	assert_int_equal(dmamap_iova_alloc(a, 2 * PG), BASE + 8 * PG);
	assert_int_equal(dmamap_iova_alloc(a, PG), p[6]);
	for (unsigned i = 0; i < 8; i++)
		dmamap_iova_free(a, p[i], PG);
	dmamap_iova_free(a, BASE + 8 * PG, 2 * PG);
	assert_int_equal(stats_of(a).used_granules, 0);
	assert_int_equal(stats_of(a).refused_frees, 0);
	destroy_clean(a);
}

static void test_order2_granules(void **state)
{
	(void)state;
	const size_t G = 4 * PG;
	struct dmamap_iova *a = mk(BASE, 64 * G, 2);

	/* 1 byte takes one granule of 4 pages */
	assert_int_equal(dmamap_iova_alloc(a, 1), BASE);
	assert_int_equal(stats_of(a).used_granules, 1);
	/* 5 pages take 2 granules, aligned to 2 granules (order 3 pages - order 2) */
	assert_int_equal(dmamap_iova_alloc(a, 5 * PG), BASE + 2 * G);
	assert_int_equal(stats_of(a).used_granules, 3);
	/* 4 pages fit one granule: the gap */
	assert_int_equal(dmamap_iova_alloc(a, 4 * PG), BASE + G);
	assert_int_equal(stats_of(a).used_granules, 4);
	assert_true(dmamap_iova_is_allocated(a, BASE + G + 3 * PG + 17));
	/* 9 pages: 3 granules, order 4 pages -> aligned to 4 granules */
	assert_int_equal(dmamap_iova_alloc(a, 9 * PG), BASE + 4 * G);
	assert_int_equal(stats_of(a).used_granules, 7);

	/* Any size rounding to the same granule count frees. */
	dmamap_iova_free(a, BASE, G);
	dmamap_iova_free(a, BASE + 2 * G, 8 * PG);
	dmamap_iova_free(a, BASE + G, 1);
	dmamap_iova_free(a, BASE + 4 * G, 2 * G + 1);
	assert_int_equal(stats_of(a).used_granules, 0);
	assert_int_equal(stats_of(a).refused_frees, 0);

	/* Page-aligned but not granule-aligned addresses are refused. */
	struct capture c;
	assert_int_equal(dmamap_iova_alloc(a, PG), BASE);
	capture_start(&c, NULL);
	dmamap_iova_free(a, BASE + PG, PG);
	capture_stop(NULL);
	assert_int_equal(c.by_kind[DMAMAP_REPORT_IOVA_MISUSE], 1);
	assert_int_equal(stats_of(a).refused_frees, 1);
	dmamap_iova_free(a, BASE, PG);
	destroy_clean(a);
}

static void test_alignment_cap(void **state)
{
	(void)state;
	struct dmamap_iova *a = mk(BASE, 2048 * PG, 0);

	/* default: 2^8 pages at most */
	assert_int_equal(dmamap_iova_alloc(a, PG), BASE);
	assert_int_equal(dmamap_iova_alloc(a, 512 * PG), BASE + 256 * PG);
	assert_int_equal(dmamap_iova_alloc(a, 1024 * PG), BASE + 768 * PG);
	/* capped at 2^2 pages: 64 pages align only to 4 */
	assert_int_equal(dmamap_iova_set_max_align(a, 2), 0);
	assert_int_equal(dmamap_iova_alloc(a, 64 * PG), BASE + 4 * PG);
	assert_int_equal(dmamap_iova_alloc(a, 2 * PG), BASE + 2 * PG);
	/* cap 0: no alignment at all */
	assert_int_equal(dmamap_iova_set_max_align(a, 0), 0);
	assert_int_equal(dmamap_iova_alloc(a, 3 * PG), BASE + 68 * PG);
	assert_int_equal(dmamap_iova_alloc(a, PG), BASE + PG);
	/* raised to 30: 64 pages align to 64 again */
	assert_int_equal(dmamap_iova_set_max_align(a, 30), 0);
	assert_int_equal(dmamap_iova_alloc(a, 64 * PG), BASE + 128 * PG);
	destroy_leaky(a);

	/* A cap below the granule order: granules need no extra alignment. */
	a = mk(BASE, 64 * 4 * PG, 2);
	assert_int_equal(dmamap_iova_set_max_align(a, 1), 0);
	assert_int_equal(dmamap_iova_alloc(a, 1), BASE);
	assert_int_equal(dmamap_iova_alloc(a, 3 * 4 * PG), BASE + 4 * PG);
	assert_int_equal(dmamap_iova_alloc(a, 8 * PG), BASE + 16 * PG);
	destroy_leaky(a);

	/* Cap between the granule order and the request's order. */
	a = mk(BASE, 256 * 2 * PG, 1);
	assert_int_equal(dmamap_iova_set_max_align(a, 3), 0);
	assert_int_equal(dmamap_iova_alloc(a, 2 * PG), BASE);
	/* 64 pages: order 6, capped at 3 pages-order -> 8 pages = 4 granules */
	assert_int_equal(dmamap_iova_alloc(a, 64 * PG), BASE + 8 * PG);
	destroy_leaky(a);
}

static void test_fails_only_when_no_aligned_run(void **state)
{
	(void)state;
	struct dmamap_iova *a = mk(BASE, 16 * PG, 0);

	for (unsigned i = 0; i < 16; i++)
		assert_int_equal(dmamap_iova_alloc(a, PG), BASE + i * PG);
	/* free pairs 1-2, 5-6, 9-10, 13-14: 8 pages free, no 2-aligned pair */
	for (unsigned i = 1; i < 16; i += 4) {
		dmamap_iova_free(a, BASE + i * PG, PG);
		dmamap_iova_free(a, BASE + (i + 1) * PG, PG);
	}
	assert_int_equal(stats_of(a).used_granules, 8);
	assert_int_equal(dmamap_iova_alloc(a, 2 * PG), DMA_MAPPING_ERROR);
	assert_int_equal(dmamap_iova_alloc(a, PG + 1), DMA_MAPPING_ERROR);
	assert_int_equal(dmamap_iova_alloc(a, 4 * PG), DMA_MAPPING_ERROR);
	assert_int_equal(stats_of(a).failures, 3);
	assert_int_equal(stats_of(a).used_granules, 8);
	/* free page 3: run 2-3 is aligned */
	dmamap_iova_free(a, BASE + 3 * PG, PG);
	assert_int_equal(dmamap_iova_alloc(a, 2 * PG), BASE + 2 * PG);
	assert_int_equal(dmamap_iova_alloc(a, 2 * PG), DMA_MAPPING_ERROR);
	/* free pages 4 and 7: 4..7 is a free aligned run of 4 */
	dmamap_iova_free(a, BASE + 4 * PG, PG);
	dmamap_iova_free(a, BASE + 7 * PG, PG);
	assert_int_equal(dmamap_iova_alloc(a, 4 * PG), BASE + 4 * PG);
	assert_int_equal(dmamap_iova_alloc(a, PG), BASE + PG);
	assert_int_equal(stats_of(a).failures, 4);
	assert_int_equal(stats_of(a).refused_frees, 0);
	destroy_leaky(a);
}

/* --------------------------------------------------------- misuse */

struct bad_free {
	const char *what;
	dma_addr_t addr;
	size_t size;
};

static void test_bad_frees_refused_nothing_changed(void **state)
{
	(void)state;
	struct dmamap_iova *a = mk(BASE, 32 * PG, 0);
	const dma_addr_t A = BASE, B = BASE + 4 * PG, C = BASE + 8 * PG, D = BASE + 31 * PG;
	const struct bad_free bad[] = {
		{ "not allocated", BASE + 2 * PG, PG },
		{ "not allocated, far", BASE + 20 * PG, 2 * PG },
		{ "larger than the allocation", A, 2 * PG },
		{ "partial: smaller than the allocation", B, 2 * PG },
		{ "partial: three of four granules", B, 3 * PG },
		{ "inside an allocation", B + PG, PG },
		{ "inside an allocation, to its end", B + PG, 3 * PG },
		{ "overlapping two allocations", B, 8 * PG },
		{ "overlapping an allocation and free space", C, 8 * PG },
		{ "misaligned in an allocation", A + 100, PG },
		{ "misaligned by a byte", B + 1, 4 * PG },
		{ "below the space", BASE - PG, PG },
		{ "far below the space", 0, PG },
		{ "at the space's end", BASE + 32 * PG, PG },
		{ "past the space's end", BASE + 32 * PG + 123 * PG, PG },
		{ "top of the address space", ~(dma_addr_t)0 - PG + 1, PG },
		{ "the error value", DMA_MAPPING_ERROR, PG },
		{ "extending past the space's end", D, 2 * PG },
		{ "zero size", A, 0 },
		{ "huge size", C, SIZE_MAX },
	};
	struct dmamap_iova_stats before, after;
	struct capture c;

	assert_int_equal(dmamap_iova_alloc(a, PG), A);
	assert_int_equal(dmamap_iova_alloc(a, 4 * PG), B);
	assert_int_equal(dmamap_iova_alloc(a, 4 * PG), C);
	assert_int_equal(dmamap_iova_alloc(a, PG), BASE + PG);
	assert_int_equal(dmamap_iova_alloc(a, PG), BASE + 2 * PG);
	assert_int_equal(dmamap_iova_alloc(a, PG), BASE + 3 * PG);
	/* D, the last page: fill 12..30 unaligned, take 31, give 12..30 back */
	assert_int_equal(dmamap_iova_set_max_align(a, 0), 0);
	assert_int_equal(dmamap_iova_alloc(a, 19 * PG), BASE + 12 * PG);
	assert_int_equal(dmamap_iova_alloc(a, PG), D);
	dmamap_iova_free(a, BASE + 12 * PG, 19 * PG);
	dmamap_iova_free(a, BASE + 2 * PG, PG);
	assert_int_equal(dmamap_iova_set_max_align(a, DMAMAP_IOVA_DEFAULT_MAX_ALIGN_ORDER), 0);
	assert_int_equal(stats_of(a).refused_frees, 0);
	/* now: A=0 (1), 1 (1), 2 free, 3 (1), B=4..7, C=8..11, 12..30 free, D=31 */

	for (unsigned i = 0; i < (sizeof(bad) / sizeof(bad[0])); i++) {
		before = stats_of(a);
		capture_start(&c, NULL);
		dmamap_iova_free(a, bad[i].addr, bad[i].size);
		capture_stop(NULL);
		after = stats_of(a);
		if (c.by_kind[DMAMAP_REPORT_IOVA_MISUSE] != 1 || c.reports != 1)
			fail_msg("bad free '%s' not reported once (%lu)", bad[i].what, c.reports);
		before.refused_frees++;
		assert_stats_equal(&before, &after);
		for (unsigned g = 0; g < 32; g++) {
			bool want = g != 2 && (g < 12 || g == 31);
			if (dmamap_iova_is_allocated(a, BASE + g * PG) != want)
				fail_msg("bad free '%s' changed granule %u", bad[i].what, g);
		}
	}
	assert_int_equal(stats_of(a).refused_frees, (sizeof(bad) / sizeof(bad[0])));

	/* The allocator behaves as if nothing happened. */
	assert_int_equal(dmamap_iova_alloc(a, PG), BASE + 2 * PG);
	assert_int_equal(dmamap_iova_alloc(a, 2 * PG), BASE + 12 * PG);
	assert_int_equal(dmamap_iova_alloc(a, 16 * PG), DMA_MAPPING_ERROR);
	assert_int_equal(dmamap_iova_alloc(a, 8 * PG), BASE + 16 * PG);

	/* The real allocations still free exactly. */
	capture_start(&c, NULL);
	dmamap_iova_free(a, A, PG);
	dmamap_iova_free(a, BASE + PG, 1);
	dmamap_iova_free(a, BASE + 2 * PG, PG);
	dmamap_iova_free(a, BASE + 3 * PG, PG);
	dmamap_iova_free(a, B, 4 * PG);
	dmamap_iova_free(a, C, 3 * PG + 1);
	dmamap_iova_free(a, D, PG);
	dmamap_iova_free(a, BASE + 12 * PG, 2 * PG);
	dmamap_iova_free(a, BASE + 16 * PG, 8 * PG);
	capture_stop(NULL);
	assert_int_equal(c.reports, 0);
	assert_int_equal(stats_of(a).used_granules, 0);
	assert_int_equal(stats_of(a).allocations, 0);
	destroy_clean(a);
}

static void test_adjacent_allocations_keep_their_boundaries(void **state)
{
	(void)state;
	struct dmamap_iova *a = mk(BASE, 8 * PG, 0);
	struct capture c;

	/* two touching 2-page allocations look like one used run of 4 */
	assert_int_equal(dmamap_iova_alloc(a, 2 * PG), BASE);
	assert_int_equal(dmamap_iova_alloc(a, 2 * PG), BASE + 2 * PG);
	capture_start(&c, NULL);
	dmamap_iova_free(a, BASE, 4 * PG);
	dmamap_iova_free(a, BASE, 3 * PG);
	dmamap_iova_free(a, BASE + PG, 2 * PG);
	capture_stop(NULL);
	assert_int_equal(c.by_kind[DMAMAP_REPORT_IOVA_MISUSE], 3);
	assert_int_equal(stats_of(a).used_granules, 4);
	assert_int_equal(stats_of(a).allocations, 2);
	dmamap_iova_free(a, BASE + 2 * PG, 2 * PG);
	dmamap_iova_free(a, BASE, 2 * PG);
	assert_int_equal(stats_of(a).allocations, 0);
	destroy_clean(a);
}

static void test_double_free_refused(void **state)
{
	(void)state;
	struct dmamap_iova *a = mk(BASE, 8 * PG, 0);
	struct capture c;

	assert_int_equal(dmamap_iova_alloc(a, 2 * PG), BASE);
	dmamap_iova_free(a, BASE, 2 * PG);
	capture_start(&c, NULL);
	dmamap_iova_free(a, BASE, 2 * PG);
	capture_stop(NULL);
	assert_int_equal(c.by_kind[DMAMAP_REPORT_IOVA_MISUSE], 1);
	assert_int_equal(stats_of(a).refused_frees, 1);
	assert_int_equal(stats_of(a).allocations, 0);
	assert_int_equal(stats_of(a).used_granules, 0);
	/* freed, then reallocated by someone else: the stale free hits the new owner's range */
	assert_int_equal(dmamap_iova_alloc(a, PG), BASE);
	capture_start(&c, NULL);
	dmamap_iova_free(a, BASE, 2 * PG);
	capture_stop(NULL);
	assert_int_equal(c.by_kind[DMAMAP_REPORT_IOVA_MISUSE], 1);
	assert_true(dmamap_iova_is_allocated(a, BASE));
	dmamap_iova_free(a, BASE, PG);
	destroy_clean(a);
}

/* Destroyed twice: the second call is reported and does nothing (it neither reads nor frees the allocator again). */
static void test_destroyed_twice_refused(void **state)
{
	(void)state;
	struct dmamap_iova *a = mk(BASE, 64 * PG, 0), *b;
	struct capture c;

	assert_int_not_equal(dmamap_iova_alloc(a, PG), DMA_MAPPING_ERROR);
	capture_start(&c, NULL);
	dmamap_iova_destroy(a);
	assert_int_equal(c.by_kind[DMAMAP_REPORT_LEAK], 1);
	dmamap_iova_destroy(a);
	capture_stop(NULL);
	assert_int_equal(c.reports, 2);
	assert_int_equal(c.by_kind[DMAMAP_REPORT_BAD_INPUT], 1);
	assert_non_null(strstr(c.last, "dmamap_iova_destroy"));
	assert_non_null(strstr(c.last, "no live IOVA allocator"));
	/* another allocator lives on, unaffected, and is destroyed once */
	b = mk(BASE, 16 * PG, 0);
	assert_int_equal(dmamap_iova_alloc(b, PG), BASE);
	dmamap_iova_free(b, BASE, PG);
	capture_start(&c, NULL);
	dmamap_iova_destroy(b);
	capture_stop(NULL);
	assert_int_equal(c.reports, 0);
}

/* Every call made through a destroyed allocator's pointer is reported, answers as for NULL, and changes nothing. */
static void test_calls_after_destroy_refused(void **state)
{
	(void)state;
	struct dmamap_iova *a = mk(BASE, 64 * PG, 0), *b = mk(BASE, 64 * PG, 0);
	struct dmamap_iova_stats st, before;
	struct capture c;
	dma_addr_t x = dmamap_iova_alloc(a, 4 * PG);

	assert_int_equal(x, BASE);
	assert_int_equal(dmamap_iova_alloc(b, 2 * PG), BASE);
	before = stats_of(b);
	destroy_leaky(a);

	capture_start(&c, NULL);
	assert_int_equal(dmamap_iova_alloc(a, PG), DMA_MAPPING_ERROR);
	assert_int_equal(c.by_kind[DMAMAP_REPORT_BAD_INPUT], 1);
	assert_non_null(strstr(c.last, "dmamap_iova_alloc("));
	assert_non_null(strstr(c.last, "was destroyed: nothing done"));
	dmamap_iova_free(a, x, 4 * PG);
	assert_non_null(strstr(c.last, "dmamap_iova_free("));
	assert_int_equal(dmamap_iova_set_max_align(a, 4), -EINVAL);
	assert_non_null(strstr(c.last, "dmamap_iova_set_max_align("));
	assert_int_equal(dmamap_iova_set_cache(a, true), -EINVAL);
	assert_non_null(strstr(c.last, "dmamap_iova_set_cache("));
	memset(&st, 0xa5, sizeof(st));
	dmamap_iova_stats(a, &st);
	assert_non_null(strstr(c.last, "dmamap_iova_stats("));
	assert_int_equal(st.allocations, 0);
	assert_int_equal(st.granules, 0);
	assert_int_equal(st.metadata_bytes, 0);
	assert_false(dmamap_iova_is_allocated(a, x));
	assert_non_null(strstr(c.last, "dmamap_iova_is_allocated("));
	capture_stop(NULL);
	assert_int_equal(c.reports, 6);
	assert_int_equal(c.by_kind[DMAMAP_REPORT_BAD_INPUT], 6);

	/* the live allocator at the same base saw none of it */
	st = stats_of(b);
	assert_stats_equal(&st, &before);
	assert_true(dmamap_iova_is_allocated(b, BASE));
	dmamap_iova_free(b, BASE, 2 * PG);
	destroy_clean(b);
}

/*
 * A destroyed allocator's record is not reused before 256 later destroys:
 * until then a stale pointer is refused; past that it is reused, so that a
 * program making one allocator after another keeps bounded memory.
 */
static void test_destroyed_kept_for_256_destroys(void **state)
{
	(void)state;
	struct dmamap_iova *a = mk(BASE, 64 * PG, 0), *n;
	unsigned long cycle;
	struct capture c;

	dmamap_iova_destroy(a);
	for (cycle = 1; cycle <= 100000; cycle++) {
		n = mk(BASE, 16 * PG, 0);
		if (n == a)
			break;
		dmamap_iova_destroy(n);
		if (cycle % 64 == 0 || cycle == 255) {
			capture_start(&c, NULL);
			assert_int_equal(dmamap_iova_alloc(a, PG), DMA_MAPPING_ERROR);
			capture_stop(NULL);
			assert_int_equal(c.by_kind[DMAMAP_REPORT_BAD_INPUT], 1);
		}
	}
	assert_true(cycle > 256);
	assert_true(cycle <= 100000);
	/* reused: a new, empty allocator that works */
	assert_int_equal(dmamap_iova_alloc(n, PG), BASE);
	dmamap_iova_free(n, BASE, PG);
	destroy_clean(n);
}

static void test_destroy_reports_leaks(void **state)
{
	(void)state;
	struct dmamap_iova *a = mk(BASE, 64 * PG, 0);
	struct capture c;

	assert_int_not_equal(dmamap_iova_alloc(a, PG), DMA_MAPPING_ERROR);
	assert_int_not_equal(dmamap_iova_alloc(a, 4 * PG), DMA_MAPPING_ERROR);
	assert_int_not_equal(dmamap_iova_alloc(a, 9 * PG), DMA_MAPPING_ERROR);
	capture_start(&c, NULL);
	dmamap_iova_destroy(a);
	capture_stop(NULL);
	assert_int_equal(c.reports, 1);
	assert_int_equal(c.by_kind[DMAMAP_REPORT_LEAK], 1);
	assert_non_null(strstr(c.last, "3 allocations"));

	/* empty: no report */
	a = mk(BASE, 64 * PG, 0);
	assert_int_equal(dmamap_iova_alloc(a, PG), BASE);
	dmamap_iova_free(a, BASE, PG);
	destroy_clean(a);
}

/* --------------------------------------------------------- large space */

static void test_large_space_word_scans(void **state)
{
	(void)state;
	/* 1M granules (64K under valgrind), filled by 256-page blocks then holes reused */
	unsigned long granules = short_runs() ? 1UL << 16 : 1UL << 20;
	unsigned long blocks = granules / 256;
	struct dmamap_iova *a = mk(0, granules * PG, 0);

	for (unsigned long i = 0; i < blocks; i++)
		assert_int_equal(dmamap_iova_alloc(a, 256 * PG), i * 256 * PG);
	assert_int_equal(dmamap_iova_alloc(a, PG), DMA_MAPPING_ERROR);
	for (unsigned long i = 1; i < blocks; i += 2)
		dmamap_iova_free(a, i * 256 * PG, 256 * PG);
	assert_int_equal(stats_of(a).used_granules, granules / 2);
	/* 512 pages never fit; single pages fill the first hole */
	assert_int_equal(dmamap_iova_alloc(a, 512 * PG), DMA_MAPPING_ERROR);
	for (unsigned long i = 0; i < 256; i++)
		assert_int_equal(dmamap_iova_alloc(a, PG), (256 + i) * PG);
	for (unsigned long i = 3; i < blocks; i += 2)
		assert_int_equal(dmamap_iova_alloc(a, 200 * PG), i * 256 * PG);
	assert_int_equal(dmamap_iova_alloc(a, 56 * PG), DMA_MAPPING_ERROR);
	assert_int_equal(dmamap_iova_alloc(a, 32 * PG), 3 * 256 * PG + 224 * PG);
	/* at 2^20 granules, fully grown: within 2.1 bits of metadata per page */
	if (granules == 1UL << 20) {
		struct dmamap_iova_stats st = stats_of(a);

		assert_int_equal(st.tracked_granules, granules);
		assert_true(st.metadata_bits_per_page > 2.0 && st.metadata_bits_per_page <= 2.1);
	}

	destroy_leaky(a);
}

/*
 * A space of @granules single-page allocations, then [from, to) freed page
 * by page for each pair of @ranges.
 */
static struct dmamap_iova *full_then_free(unsigned long granules, const unsigned long (*ranges)[2], unsigned n)
{
	struct dmamap_iova *a = mk(BASE, granules * PG, 0);

	assert_int_equal(dmamap_iova_grow_all(a), 0);
	for (unsigned long g = 0; g < granules; g++)
		assert_int_equal(dmamap_iova_alloc(a, PG), BASE + g * PG);
	for (unsigned r = 0; r < n; r++)
		for (unsigned long g = ranges[r][0]; g < ranges[r][1]; g++)
			dmamap_iova_free(a, BASE + g * PG, PG);
	return a;
}

static void release_all_pages(struct dmamap_iova *a, unsigned long granules)
{
	for (unsigned long g = 0; g < granules; g++)
		if (dmamap_iova_is_allocated(a, BASE + g * PG))
			dmamap_iova_free(a, BASE + g * PG, PG);
	assert_int_equal(stats_of(a).allocations, 0);
	destroy_clean(a);
}

static void test_fit_spanning_words_needs_the_whole_remainder(void **state)
{
	/* 100 pages align to 128: at 0 only 64 + 35 are free, at 128 64 + 36 */
	static const unsigned long ranges[][2] = { { 0, 99 }, { 128, 228 } };
	struct dmamap_iova *a = full_then_free(4096, ranges, 2);
	(void)state;

	assert_int_equal(dmamap_iova_alloc(a, 100 * PG), BASE + 128 * PG);
	assert_int_equal(dmamap_iova_alloc(a, 101 * PG), DMA_MAPPING_ERROR);
	/* 99 pages fit at 0 exactly; then nothing of 65 or more is left */
	assert_int_equal(dmamap_iova_alloc(a, 99 * PG), BASE);
	assert_int_equal(dmamap_iova_alloc(a, 65 * PG), DMA_MAPPING_ERROR);
	dmamap_iova_free(a, BASE, 99 * PG);
	dmamap_iova_free(a, BASE + 128 * PG, 100 * PG);
	release_all_pages(a, 4096);
}

static void test_fit_spanning_nodes_needs_the_whole_remainder(void **state)
{
	/* 5000 pages align to 8192 (no cap): at 0 only 4096 + 903 are free, at 8192 4096 + 904 */
	static const unsigned long ranges[][2] = { { 0, 4999 }, { 8192, 13192 } };
	struct dmamap_iova *a = full_then_free(1UL << 14, ranges, 2);
	(void)state;

	assert_int_equal(dmamap_iova_set_max_align(a, 30), 0);
	assert_int_equal(dmamap_iova_alloc(a, 5000 * PG), BASE + 8192 * PG);
	assert_int_equal(dmamap_iova_alloc(a, 4999 * PG), BASE);
	assert_int_equal(dmamap_iova_alloc(a, 4097 * PG), DMA_MAPPING_ERROR);
	dmamap_iova_free(a, BASE, 4999 * PG);
	dmamap_iova_free(a, BASE + 8192 * PG, 5000 * PG);
	release_all_pages(a, 1UL << 14);
}

/* Frees after a wholly free word lengthen a spanning fit even in a node whose first word is busy. */
static void test_fit_grows_with_the_word_after_a_free_one(void **state)
{
	static const unsigned long ranges[][2] = { { 128, 192 + 16 } };
	struct dmamap_iova *a = full_then_free(4096, ranges, 1);
	(void)state;

	assert_int_equal(dmamap_iova_alloc(a, 81 * PG), DMA_MAPPING_ERROR);
	assert_int_equal(dmamap_iova_alloc(a, 80 * PG), BASE + 128 * PG);
	dmamap_iova_free(a, BASE + 128 * PG, 80 * PG);
	release_all_pages(a, 4096);
}

/*
 * Word codes above 8 name a range of fits (12-15 share one): a free that
 * lengthens a word's fit within its code's range still reaches the node,
 * whose exact fit a search for a size between powers of two reads.
 */
static void test_fit_moving_within_its_code_reaches_the_node(void **state)
{
	static const unsigned long ranges[][2] = { { 16, 28 } };
	struct dmamap_iova *a = full_then_free(4096, ranges, 1);
	(void)state;

	assert_int_equal(dmamap_iova_check_summaries(a), 0);
	assert_int_equal(dmamap_iova_alloc(a, 13 * PG), DMA_MAPPING_ERROR);
	dmamap_iova_free(a, BASE + 28 * PG, PG);
	assert_int_equal(dmamap_iova_check_summaries(a), 0);
	assert_int_equal(dmamap_iova_alloc(a, 14 * PG), DMA_MAPPING_ERROR);
	assert_int_equal(dmamap_iova_alloc(a, 13 * PG), BASE + 16 * PG);
	assert_int_equal(dmamap_iova_check_summaries(a), 0);
	dmamap_iova_free(a, BASE + 16 * PG, 13 * PG);
	release_all_pages(a, 4096);
}

/*
 * The free prefix of a node follows its first word, even while a larger free
 * block elsewhere in the node sets its class: a fit spanning nodes sees it.
 */
static void test_node_prefix_follows_its_first_word(void **state)
{
	static const unsigned long ranges[][2] = { { 4096 + 32 * 64, 4096 + 33 * 64 }, { 0, 4096 + 10 } };
	struct dmamap_iova *a = full_then_free(1UL << 14, ranges, 2);
	(void)state;

	assert_int_equal(dmamap_iova_set_max_align(a, 30), 0);
	assert_int_equal(dmamap_iova_alloc(a, (4096 + 11) * PG), DMA_MAPPING_ERROR);
	assert_int_equal(dmamap_iova_alloc(a, (4096 + 10) * PG), BASE);
	dmamap_iova_free(a, BASE, (4096 + 10) * PG);
	release_all_pages(a, 1UL << 14);
}

/*
 * One granule goes to the lowest free one wherever it is: in the word of the
 * search start, in a later word of its group of 16, in a later group of its
 * node, in another node, at the last granule of the space; then none is left.
 * The summaries (the search start among them) stay exact at every step.
 */
static void test_single_granules_past_occupied_words(void **state)
{
	static const unsigned long holes[] = { 20 * 64 + 7, 20 * 64 + 9, 35 * 64 + 63, 47 * 64,
					       60 * 64 + 5, 4096 + 2 * 64 + 2, 3 * 4096 - 1 };
	unsigned long ranges[ARRAY_SIZE(holes)][2];
	struct dmamap_iova *a;
	(void)state;

	/* freed highest first: each free lowers the search start */
	for (unsigned i = 0; i < ARRAY_SIZE(holes); i++) {
		ranges[i][0] = holes[ARRAY_SIZE(holes) - 1 - i];
		ranges[i][1] = ranges[i][0] + 1;
	}
	a = full_then_free(3 * 4096, (const unsigned long (*)[2])ranges, ARRAY_SIZE(holes));
	assert_int_equal(dmamap_iova_check_summaries(a), 0);
	for (unsigned i = 0; i < ARRAY_SIZE(holes); i++) {
		assert_int_equal(dmamap_iova_alloc(a, PG), BASE + holes[i] * PG);
		assert_int_equal(dmamap_iova_check_summaries(a), 0);
	}
	assert_int_equal(dmamap_iova_alloc(a, PG), DMA_MAPPING_ERROR);
	assert_int_equal(stats_of(a).used_granules, 3 * 4096);
	/* a free at the very bottom brings the search back there */
	dmamap_iova_free(a, BASE, PG);
	assert_int_equal(dmamap_iova_alloc(a, PG), BASE);
	assert_int_equal(dmamap_iova_check_summaries(a), 0);
	release_all_pages(a, 3 * 4096);
}

/*
 * Past its node, a single granule goes to the next node with any free
 * granule (a lone one, class 1), not to a later node with more free, nor to
 * a wholly free one after that; the last word of a space that ends inside a
 * node counts.
 */
static void test_single_granule_takes_the_next_node_with_any(void **state)
{
	static const unsigned long ranges[][2] = {
		{ 4 * 4096 + 64, 4 * 4096 + 128 }, { 3 * 4096 + 64, 3 * 4096 + 72 }, { 2 * 4096 + 4095, 2 * 4096 + 4096 },
		{ 4095, 4096 },
	};
	const unsigned long granules = 4 * 4096 + 128;
	struct dmamap_iova *a = full_then_free(granules, ranges, ARRAY_SIZE(ranges));
	(void)state;

	assert_int_equal(dmamap_iova_alloc(a, PG), BASE + 4095 * PG);
	assert_int_equal(dmamap_iova_alloc(a, PG), BASE + (2 * 4096 + 4095) * PG);
	for (unsigned long g = 3 * 4096 + 64; g < 3 * 4096 + 72; g++)
		assert_int_equal(dmamap_iova_alloc(a, PG), BASE + g * PG);
	/* the space's last word, in a node of two words */
	for (unsigned long g = 4 * 4096 + 64; g < 4 * 4096 + 128; g++)
		assert_int_equal(dmamap_iova_alloc(a, PG), BASE + g * PG);
	assert_int_equal(dmamap_iova_alloc(a, PG), DMA_MAPPING_ERROR);
	assert_int_equal(dmamap_iova_check_summaries(a), 0);
	release_all_pages(a, granules);
}

/*
 * A node learns of a word's change late (an allocation that gives it back
 * costs nothing), but before anything reads it: a single granule freed in the
 * next node, after the search start's node filled up, is found before a
 * later node's; a growth of the bitmaps after a free still sees the class
 * that free raised.
 */
static void test_word_changes_reach_their_node_before_a_search(void **state)
{
	static const unsigned long ranges[][2] = { { 2 * 4096 + 5, 2 * 4096 + 6 }, { 4000, 4001 } };
	struct dmamap_iova *a = full_then_free(3 * 4096, ranges, ARRAY_SIZE(ranges));
	const unsigned long n2 = 1UL << 16;
	dma_addr_t x;
	(void)state;

	assert_int_equal(dmamap_iova_alloc(a, PG), BASE + 4000 * PG);
	dmamap_iova_free(a, BASE + (4096 + 7) * PG, PG);
	assert_int_equal(dmamap_iova_alloc(a, PG), BASE + (4096 + 7) * PG);
	assert_int_equal(dmamap_iova_alloc(a, PG), BASE + (2 * 4096 + 5) * PG);
	assert_int_equal(dmamap_iova_check_summaries(a), 0);
	release_all_pages(a, 3 * 4096);

	/*
	 * A space of 2^18 granules whose bitmaps cover 2^16 at first, all of it
	 * single granules: a 2-granule search from a node without such a fit
	 * reads the class hints, finds none, and the bitmaps grow once. Then a
	 * pair freed in node 3 raises that node's class, and a second growth
	 * must see it.
	 */
	a = mk(BASE, 4 * n2 * PG, 0);
	for (unsigned long g = 0; g < n2; g++)
		assert_int_equal(dmamap_iova_alloc(a, PG), BASE + g * PG);
	dmamap_iova_free(a, BASE, PG);
	assert_int_equal(dmamap_iova_alloc(a, 2 * PG), BASE + n2 * PG);
	x = BASE + (3 * 4096 + 10) * PG;
	dmamap_iova_free(a, x, PG);
	dmamap_iova_free(a, x + PG, PG);
	assert_int_equal(dmamap_iova_grow_all(a), 0);
	assert_int_equal(dmamap_iova_check_summaries(a), 0);
	assert_int_equal(dmamap_iova_alloc(a, 2 * PG), x);
	dmamap_iova_free(a, x, 2 * PG);
	dmamap_iova_free(a, BASE + n2 * PG, 2 * PG);
	release_all_pages(a, n2);
}

/* ------------------------------------------------------------ growth */

/*
 * Before the space has grown, a free naming an allocation that fills the
 * tracked part, with a size running past it (but not past the space), is
 * refused: the granules past the extent are free, and their bits are not
 * read (there are none yet). Then the right free succeeds.
 */
static void test_free_past_the_extent_refused(void **state)
{
	(void)state;
	const unsigned long half = 1UL << 16;
	struct dmamap_iova *a = mk(BASE, 2 * half * PG, 0);

	assert_int_equal(stats_of(a).tracked_granules, half);
	assert_int_equal(dmamap_iova_alloc(a, half * PG), BASE);
	assert_free_refused(a, BASE, (half + 1) * PG);
	assert_free_refused(a, BASE, 2 * half * PG);
	assert_int_equal(stats_of(a).tracked_granules, half);
	assert_true(dmamap_iova_is_allocated(a, BASE + (half - 1) * PG));
	dmamap_iova_free(a, BASE, half * PG);
	assert_counts(a, 0, 0, 0, 0);
	destroy_clean(a);
}

static void test_growth_on_demand_and_its_failure(void **state)
{
	(void)state;
	/* 2^17 granules: the bitmaps start with the first 2^16 */
	const unsigned long half = 1UL << 16;
	struct dmamap_iova *a = mk(BASE, 2 * half * PG, 0);
	struct dmamap_iova_stats st = stats_of(a), before;
	size_t meta0 = st.metadata_bytes;
	struct capture c;

	assert_int_equal(st.tracked_granules, half);
	assert_int_equal(st.grows, 0);
	/* the tracked part, exactly full */
	assert_int_equal(dmamap_iova_alloc(a, half * PG), BASE);
	assert_int_equal(stats_of(a).tracked_granules, half);

	/* growing fails: the allocation fails, nothing else changes */
	dmamap_iova_fail_next_grows(a, 1);
	before = stats_of(a);
	assert_int_equal(dmamap_iova_alloc(a, PG), DMA_MAPPING_ERROR);
	st = stats_of(a);
	assert_int_equal(st.grow_failures, 1);
	assert_int_equal(st.failures, before.failures + 1);
	assert_int_equal(st.tracked_granules, half);
	assert_int_equal(st.used_granules, half);
	assert_int_equal(st.allocations, 1);
	assert_int_equal(st.metadata_bytes, before.metadata_bytes);
	assert_false(dmamap_iova_is_allocated(a, BASE + half * PG));

	/* then it grows: the first granule past the old extent, as if tracked from the start */
	assert_int_equal(dmamap_iova_alloc(a, PG), BASE + half * PG);
	st = stats_of(a);
	assert_int_equal(st.tracked_granules, 2 * half);
	assert_int_equal(st.grows, 1);
	assert_true(st.metadata_bytes > meta0);
	/*
	 * two bitmaps, 4-bit word classes, the tree and the struct (with its
	 * ownership record, 0.003 bits a page here), and up to 128 bytes that
	 * align the bitmaps to the host's line pairs (0.008 bits a page here)
	 */
	assert_true(st.metadata_bits_per_page > 2.0 && st.metadata_bits_per_page <= 2.135);
	/* a run across the old boundary, and the space's last granule */
	dmamap_iova_free(a, BASE, half * PG);
	assert_int_equal(dmamap_iova_alloc(a, (half + 1) * PG), DMA_MAPPING_ERROR); /* 2^17-aligned: only at 0, busy */
	assert_int_equal(dmamap_iova_set_max_align(a, 0), 0);
	assert_int_equal(dmamap_iova_alloc(a, (half - 1) * PG), BASE);
	assert_int_equal(dmamap_iova_alloc(a, 3 * PG), BASE + (half + 1) * PG);
	capture_start(&c, NULL);
	dmamap_iova_free(a, BASE + half * PG, PG);
	dmamap_iova_free(a, BASE + (half + 1) * PG, 3 * PG);
	dmamap_iova_free(a, BASE, (half - 1) * PG);
	capture_stop(NULL);
	assert_int_equal(c.reports, 0);
	assert_int_equal(dmamap_iova_alloc(a, 2 * half * PG), BASE);
	assert_int_equal(stats_of(a).used_granules, 2 * half);
	dmamap_iova_free(a, BASE, 2 * half * PG);
	destroy_clean(a);
}

/* ------------------------------------------------- reference model */

struct model {
	unsigned long bits;
	unsigned order, cap;
	bool *used;
	unsigned long *first, *count; /* live allocations */
	size_t *size;
	unsigned long live;
};

static unsigned long model_count(const struct model *m, size_t size)
{
	size_t g = PG << m->order;

	return (unsigned long)(size / g + (size % g != 0));
}

/* The alignment, in granules, of an allocation of @size bytes. */
static unsigned long model_align(const struct model *m, size_t size)
{
	int o = get_order(size);

	if ((unsigned)o > m->cap)
		o = (int)m->cap;
	return (unsigned)o > m->order ? 1UL << ((unsigned)o - m->order) : 1;
}

/* Record the allocation of @size bytes at granule @i. */
static void model_take(struct model *m, unsigned long i, size_t size)
{
	unsigned long count = model_count(m, size);

	for (unsigned long j = 0; j < count; j++)
		m->used[i + j] = true;
	m->first[m->live] = i;
	m->count[m->live] = count;
	m->size[m->live] = size;
	m->live++;
}

/* First fit of @size bytes (ULONG_MAX if none), taken when @take. */
static unsigned long model_alloc_if(struct model *m, size_t size, bool take)
{
	unsigned long count = model_count(m, size), align = model_align(m, size);

	for (unsigned long i = 0; i + count <= m->bits;) {
		unsigned long j = 0;

		while (j < count && !m->used[i + j])
			j++;
		if (j < count) {
			/* the next aligned start past the used granule */
			i = (i + j + 1 + align - 1) / align * align;
			continue;
		}
		if (take)
			model_take(m, i, size);
		return i;
	}
	return ULONG_MAX;
}


/* Index of the live allocation that (first, size) names exactly, or -1. */
static long model_match(const struct model *m, dma_addr_t off, size_t size)
{
	size_t g = PG << m->order;

	if (off % g)
		return -1;
	for (unsigned long k = 0; k < m->live; k++)
		if (m->first[k] == off / g && m->count[k] == model_count(m, size) && size)
			return (long)k;
	return -1;
}

static void model_free(struct model *m, unsigned long k)
{
	for (unsigned long j = 0; j < m->count[k]; j++)
		m->used[m->first[k] + j] = false;
	m->live--;
	m->first[k] = m->first[m->live];
	m->count[k] = m->count[m->live];
	m->size[k] = m->size[m->live];
}

/*
 * A request size in bytes: often small (up to 8 pages), often the benchmark's
 * mix (pages 1..256 with P(n) ~ n^-1.5, which spans words and nodes), and
 * sometimes large (up to a quarter of the space).
 */
static size_t random_size(uint64_t *s, size_t space)
{
	unsigned r = (unsigned)(rng_next(s) % 16);

	if (r < 7)
		return (size_t)(rng_next(s) % (8 * PG)) + 1;
	if (r < 14) {
		/* inverse of the power law's tail: n = 1 / u^2, clipped to 256 */
		double u = ((double)(rng_next(s) >> 11) + 1) * 0x1p-53;
		size_t n = (size_t)(1.0 / (u * u));

		n = n < 1 ? 1 : n > 256 ? 256 : n;
		return (n - 1) * PG + (size_t)(rng_next(s) % PG) + 1;
	}
	return (size_t)(rng_next(s) % (space / 4)) + 1;
}

/*
 * A long seeded random sequence (mixed sizes, frees of any live allocation in
 * any order, with sizes that round to the same granules, and refused frees)
 * against the trivial model: same addresses, same failures, same refusals,
 * same stats after every call, same granule states at the end. @grow: the
 * bitmaps grow on demand (as created), else they cover the space from the start.
 * @cached: per-thread caches on, where placement is first fit only modulo
 * cached ranges: each allocation must be aligned and on granules the model
 * has free, and fail only when the model has no fit; the live set, refusals
 * (a range freed into a cache is refused when freed again), stats and granule
 * states must still agree.
 */
static void run_model_mode(unsigned order, unsigned long bits, int cap, unsigned ops, uint64_t seed, bool grow,
			   bool cached)
{
	const size_t g = PG << order;
	struct model m = { .bits = bits, .order = order };
	struct dmamap_iova *a = mk(BASE, bits * g, order);
	unsigned long used = 0, refused = 0, failures = 0, slots = bits < ops + 1UL ? bits : ops + 1UL;
	struct capture c;
	uint64_t s = seed;
	dma_addr_t last_addr = BASE;
	size_t last_size = g;
	unsigned long cached_hits = 0;

	if (cached)
		assert_int_equal(dmamap_iova_set_cache(a, true), 0);
	if (!grow && !cached) {
		assert_int_equal(dmamap_iova_grow_all(a), 0);
		assert_int_equal(stats_of(a).tracked_granules, bits);
	}

	m.cap = cap < 0 ? DMAMAP_IOVA_DEFAULT_MAX_ALIGN_ORDER : (unsigned)cap;
	if (cap >= 0)
		assert_int_equal(dmamap_iova_set_max_align(a, (unsigned)cap), 0);
	m.used = calloc(bits, sizeof(bool));
	m.first = calloc(slots, sizeof(unsigned long));
	m.count = calloc(slots, sizeof(unsigned long));
	m.size = calloc(slots, sizeof(size_t));
	assert_non_null(m.used);
	assert_non_null(m.first);
	assert_non_null(m.count);
	assert_non_null(m.size);

	capture_start(&c, NULL);
	for (unsigned op = 0; op < ops; op++) {
		unsigned r = (unsigned)(rng_next(&s) % 100);

		if (r < 55 || m.live == 0) {
			/* now and then more than is free: a failure whatever the sequence */
			size_t size = op % 64 == 63 ? (bits - used + 1) * g - g / 2 : random_size(&s, bits * g);
			unsigned long want = model_alloc_if(&m, size, !cached);
			dma_addr_t got = dmamap_iova_alloc(a, size);

			if (cached && got != DMA_MAPPING_ERROR) {
				unsigned long at = (unsigned long)((got - BASE) / g), n = model_count(&m, size);

				if (got < BASE || (got - BASE) % g || at % model_align(&m, size) || at + n > bits)
					fail_msg("op %u: alloc %#zx gave %#llx: misplaced", op, size,
						 (unsigned long long)got);
				for (unsigned long j = 0; j < n; j++)
					if (m.used[at + j])
						fail_msg("op %u: alloc %#zx gave %#llx over a live granule", op, size,
							 (unsigned long long)got);
				cached_hits += at != want;
				model_take(&m, at, size);
				used += n;
			} else if (want == ULONG_MAX) {
				failures++;
				if (got != DMA_MAPPING_ERROR)
					fail_msg("op %u: alloc %#zx gave %#llx, model says full", op, size,
						 (unsigned long long)got);
			} else {
				used += model_count(&m, size);
				if (got != BASE + want * g)
					fail_msg("op %u: alloc %#zx gave %#llx, model %#llx", op, size,
						 (unsigned long long)got, (unsigned long long)(BASE + want * g));
			}
		} else if (r < 93) {
			/* a good free, with a size that rounds to the same granule count */
			unsigned long k = (unsigned long)(rng_next(&s) % m.live);
			size_t size;

			switch (rng_next(&s) % 3) {
			case 0:
				size = m.size[k];
				break;
			case 1:
				size = m.count[k] * g;
				break;
			default:
				size = (m.count[k] - 1) * g + 1;
				break;
			}
			dmamap_iova_free(a, BASE + m.first[k] * g, size);
			last_addr = BASE + m.first[k] * g;
			last_size = size;
			used -= m.count[k];
			model_free(&m, k);
		} else {
			/* a probably bad free: the model decides */
			unsigned long k = (unsigned long)(rng_next(&s) % m.live);
			dma_addr_t addr;
			size_t size;
			long match;

			switch (rng_next(&s) % 5) {
			case 4:
				/* the range freed last, again (in a cache, when cached) */
				addr = last_addr;
				size = last_size;
				break;
			case 0:
				addr = BASE + m.first[k] * g;
				size = m.size[k] + g;
				break;
			case 1:
				addr = BASE + m.first[k] * g;
				size = m.count[k] > 1 ? (m.count[k] - 1) * g : 0;
				break;
			case 2:
				addr = BASE + (rng_next(&s) % bits) * g;
				size = (size_t)(rng_next(&s) % (4 * g)) + 1;
				break;
			default:
				addr = BASE + m.first[k] * g + (rng_next(&s) % g);
				size = m.size[k];
				break;
			}
			match = model_match(&m, addr - BASE, size);
			dmamap_iova_free(a, addr, size);
			if (match >= 0) {
				used -= m.count[match];
				model_free(&m, (unsigned long)match);
			} else {
				refused++;
			}
		}
		/* the summaries the searches trust match the bitmaps (a whole recount: sparse in large spaces) */
		if ((bits <= (1UL << 16) || op % 256 == 0) && dmamap_iova_check_summaries(a))
			fail_msg("op %u: %lu stale summaries", op, dmamap_iova_check_summaries(a));
		struct dmamap_iova_stats st = stats_of(a);
		if (st.used_granules != used || st.allocations != m.live || st.refused_frees != refused ||
		    st.failures != failures)
			fail_msg("op %u: stats used %lu/%lu live %lu/%lu refused %lu/%lu failures %lu/%lu", op,
				 st.used_granules, used, st.allocations, m.live, st.refused_frees, refused,
				 st.failures, failures);
	}
	capture_stop(NULL);
	assert_int_equal(c.by_kind[DMAMAP_REPORT_IOVA_MISUSE], refused);
	assert_int_equal(c.reports, refused);
	/* refusals and failures really happened */
	assert_true(refused > 0);
	assert_true(failures > 0);

	for (unsigned long i = 0; i < bits; i++)
		if (dmamap_iova_is_allocated(a, BASE + i * g) != m.used[i])
			fail_msg("granule %lu: allocator and model disagree", i);
	while (m.live) {
		dmamap_iova_free(a, BASE + m.first[0] * g, m.size[0]);
		model_free(&m, 0);
	}
	assert_int_equal(stats_of(a).used_granules, 0);
	assert_int_equal(stats_of(a).allocations, 0);
	assert_int_equal(dmamap_iova_check_summaries(a), 0);
	if (cached) {
		/* caches were hit (placement off the plain first fit), and turning them off empties them */
		assert_true(cached_hits > 0);
		assert_int_equal(dmamap_iova_set_cache(a, false), 0);
		assert_int_equal(stats_of(a).cached, 0);
		assert_int_equal(stats_of(a).cached_granules, 0);
		for (unsigned long i = 0; i < bits; i++)
			if (dmamap_iova_is_allocated(a, BASE + i * g))
				fail_msg("granule %lu still allocated after the caches were emptied", i);
		assert_int_equal(dmamap_iova_check_summaries(a), 0);
	}
	destroy_clean(a);
	free(m.used);
	free(m.first);
	free(m.count);
	free(m.size);
}

static void run_model_grow(unsigned order, unsigned long bits, int cap, unsigned ops, uint64_t seed, bool grow)
{
	run_model_mode(order, bits, cap, ops, seed, grow, false);
}

static void run_model(unsigned order, unsigned long bits, int cap, unsigned ops, uint64_t seed)
{
	run_model_grow(order, bits, cap, ops, seed, true);
}

static void test_random_against_model_order0(void **state)
{
	(void)state;
	run_model(0, 512, -1, short_runs() ? 1000 : 5000, 1);
}

static void test_random_against_model_order1_cap4_odd_size(void **state)
{
	(void)state;
	run_model(1, 300, 4, short_runs() ? 1000 : 5000, 2);
}

static void test_random_against_model_order2_cap_below_granule(void **state)
{
	(void)state;
	run_model(2, 130, 1, short_runs() ? 1000 : 5000, 3);
}

static void test_random_against_model_large_space(void **state)
{
	(void)state;
	run_model(0, 4096 + 7, 10, short_runs() ? 300 : 2000, 4);
}

/* Every space size of the benchmark's W6, growing and not. */
static void test_differential_every_space_size(void **state)
{
	static const unsigned sizes[] = { 12, 16, 20, 24 };
	(void)state;

	for (unsigned i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		/* under valgrind the largest space would take minutes: it runs in the plain and sanitizer builds */
		if (short_runs() && sizes[i] > 20)
			continue;
		for (int grow = 0; grow < 2; grow++)
			run_model_grow(0, 1UL << sizes[i], -1, short_runs() ? 400 : 4000, 100 + i, grow);
	}
	/* with granules of 4 pages, the alignment capped at 32 pages */
	run_model_grow(2, (1UL << 16) + 3, 5, short_runs() ? 400 : 3000, 200, true);
	/* no alignment cap: large requests align to their size, fits span nodes of 4096 */
	run_model_grow(0, 1UL << 20, 30, short_runs() ? 400 : 4000, 300, true);
	run_model_grow(0, 1UL << 18, 30, short_runs() ? 400 : 4000, 301, false);
}

/* The same with per-thread caches on, at every space size of W6 and with capped and uncapped alignment. */
static void test_differential_cached(void **state)
{
	static const unsigned sizes[] = { 12, 16, 20, 24 };
	(void)state;

	run_model_mode(0, 512, -1, short_runs() ? 1000 : 5000, 11, true, true);
	run_model_mode(1, 300, 4, short_runs() ? 1000 : 5000, 12, true, true);
	run_model_mode(2, 130, 1, short_runs() ? 1000 : 5000, 13, true, true);
	for (unsigned i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		if (short_runs() && sizes[i] > 20)
			continue;
		run_model_mode(0, 1UL << sizes[i], -1, short_runs() ? 400 : 4000, 400 + i, true, true);
	}
	run_model_mode(0, 1UL << 18, 30, short_runs() ? 400 : 4000, 401, true, true);
}

/* ------------------------------------------------------------ threads */

#define MT_GRANULES 64u
#define MT_LIVE 8u

struct mt_shared {
	struct dmamap_iova *a;
	atomic_uchar owner[MT_GRANULES];
	atomic_ulong errors;
	atomic_ulong allocs;
	unsigned iterations;
};

struct mt_arg {
	struct mt_shared *sh;
	unsigned char id;
};

static void mt_release(struct mt_shared *sh, unsigned char id, dma_addr_t addr, size_t size)
{
	unsigned long first = (unsigned long)((addr - BASE) / PG), count = (size + PG - 1) / PG;

	/* Clear ownership before the range can be handed out again. */
	for (unsigned long g = first; g < first + count; g++)
		if (atomic_exchange(&sh->owner[g], 0) != id)
			atomic_fetch_add(&sh->errors, 1);
	dmamap_iova_free(sh->a, addr, size);
}

static void *mt_worker(void *p)
{
	struct mt_arg *arg = p;
	struct mt_shared *sh = arg->sh;
	dma_addr_t addr[MT_LIVE];
	size_t size[MT_LIVE];
	unsigned live = 0;
	uint64_t s = arg->id * 7919u;

	for (unsigned it = 0; it < sh->iterations; it++) {
		if (live < MT_LIVE && (live == 0 || rng_next(&s) % 2)) {
			size_t sz = (size_t)(rng_next(&s) % (16 * PG)) + 1;
			dma_addr_t d = dmamap_iova_alloc(sh->a, sz);
			unsigned long first, count;

			if (d == DMA_MAPPING_ERROR)
				continue;
			first = (unsigned long)((d - BASE) / PG);
			count = (sz + PG - 1) / PG;
			if ((d - BASE) % PG || first + count > MT_GRANULES ||
			    first % (1UL << get_order(sz)) != 0) {
				atomic_fetch_add(&sh->errors, 1);
				continue;
			}
			for (unsigned long g = first; g < first + count; g++)
				if (atomic_exchange(&sh->owner[g], arg->id) != 0)
					atomic_fetch_add(&sh->errors, 1);
			atomic_fetch_add(&sh->allocs, 1);
			addr[live] = d;
			size[live] = sz;
			live++;
		} else {
			unsigned k = (unsigned)(rng_next(&s) % live);

			mt_release(sh, arg->id, addr[k], size[k]);
			live--;
			addr[k] = addr[live];
			size[k] = size[live];
		}
	}
	while (live) {
		live--;
		mt_release(sh, arg->id, addr[live], size[live]);
	}
	return NULL;
}

static void two_threads(bool cached)
{
	struct mt_shared *sh = calloc(1, sizeof(*sh));
	struct mt_arg args[2];
	pthread_t t[2];
	unsigned long reports;

	assert_non_null(sh);
	/* small enough that the two threads compete for space */
	sh->a = mk(BASE, MT_GRANULES * PG, 0);
	if (cached)
		assert_int_equal(dmamap_iova_set_cache(sh->a, true), 0);
	sh->iterations = under_valgrind() ? 5000 : 100000;
	for (unsigned i = 0; i < MT_GRANULES; i++)
		atomic_init(&sh->owner[i], 0);
	atomic_init(&sh->errors, 0);
	atomic_init(&sh->allocs, 0);

	/* counted atomically by the library (the capture handler is single-threaded) */
	reports = dmamap_report_count(NULL);
	for (unsigned i = 0; i < 2; i++) {
		args[i].sh = sh;
		args[i].id = (unsigned char)(i + 1);
		assert_int_equal(pthread_create(&t[i], NULL, mt_worker, &args[i]), 0);
	}
	for (unsigned i = 0; i < 2; i++)
		assert_int_equal(pthread_join(t[i], NULL), 0);

	assert_int_equal(atomic_load(&sh->errors), 0);
	assert_true(atomic_load(&sh->allocs) > sh->iterations / 4);
	assert_int_equal(dmamap_report_count(NULL), reports);
	struct dmamap_iova_stats st = stats_of(sh->a);
	assert_true(st.failures > 0); /* 2 x 8 live x up to 16 pages: space runs out */
	assert_int_equal(st.used_granules, 0);
	assert_int_equal(st.allocations, 0);
	assert_int_equal(st.refused_frees, 0);
	/* the threads' caches went back to the bitmaps when they exited */
	assert_int_equal(st.cached, 0);
	assert_int_equal(dmamap_iova_check_summaries(sh->a), 0);
	destroy_clean(sh->a);
	free(sh);
}

static void test_two_threads_never_share_a_granule(void **state)
{
	(void)state;
	two_threads(false);
}

/* The same with per-thread caches: hits without the lock, flushes of the other's cache when space runs out. */
static void test_two_threads_cached(void **state)
{
	(void)state;
	two_threads(true);
}

struct race_shared {
	struct dmamap_iova *a;
	atomic_bool done;
	atomic_uint errors;
};

/* Hits, one granule at a time, over a live set of 8: every address returned must be one no other live range holds. */
static void *race_hitter(void *p)
{
	struct race_shared *sh = p;
	dma_addr_t live[8];
	unsigned iterations = under_valgrind() || under_tsan() ? 20000 : 400000;

	for (unsigned i = 0; i < 8; i++)
		live[i] = dmamap_iova_alloc(sh->a, PG);
	for (unsigned it = 0; it < iterations; it++) {
		unsigned k = it % 8;

		dmamap_iova_free(sh->a, live[k], PG);
		live[k] = dmamap_iova_alloc(sh->a, PG);
		for (unsigned j = 0; j < 8; j++)
			if (live[k] == DMA_MAPPING_ERROR || (j != k && live[j] == live[k]))
				atomic_fetch_add(&sh->errors, 1);
	}
	for (unsigned i = 0; i < 8; i++)
		dmamap_iova_free(sh->a, live[i], PG);
	atomic_store(&sh->done, true);
	return NULL;
}

/* Claims of the hitter's cache, as fast as they come: counted, emptied, counted. */
static void *race_claimer(void *p)
{
	struct race_shared *sh = p;

	while (!atomic_load(&sh->done)) {
		struct dmamap_iova_stats st;

		dmamap_iova_stats(sh->a, &st);
		if (st.allocations > 8 || st.used_granules > 8)
			atomic_fetch_add(&sh->errors, 1);
		if (dmamap_iova_set_cache(sh->a, false) || dmamap_iova_set_cache(sh->a, true))
			atomic_fetch_add(&sh->errors, 1);
	}
	return NULL;
}

/*
 * A thread hits its cache while another claims it again and again (stats,
 * emptying it): no range is handed out twice or lost, and the allocator
 * ends empty and consistent.
 */
static void cache_hits_race_claims(void)
{
	struct race_shared sh = { .a = mk(BASE, 64 * PG, 0) };
	struct dmamap_iova_stats st;
	pthread_t t[2];

	atomic_init(&sh.done, false);
	atomic_init(&sh.errors, 0);
	assert_int_equal(dmamap_iova_set_cache(sh.a, true), 0);
	assert_int_equal(pthread_create(&t[0], NULL, race_hitter, &sh), 0);
	assert_int_equal(pthread_create(&t[1], NULL, race_claimer, &sh), 0);
	for (unsigned i = 0; i < 2; i++)
		assert_int_equal(pthread_join(t[i], NULL), 0);
	assert_int_equal(atomic_load(&sh.errors), 0);
	assert_int_equal(dmamap_iova_set_cache(sh.a, false), 0);
	st = stats_of(sh.a);
	assert_int_equal(st.allocations, 0);
	assert_int_equal(st.used_granules, 0);
	assert_int_equal(st.refused_frees, 0);
	assert_int_equal(dmamap_iova_check_summaries(sh.a), 0);
	destroy_clean(sh.a);
}

static void test_cache_hits_race_claims(void **state)
{
	(void)state;
	cache_hits_race_claims();
}

/* The same where membarrier() is missing: each hit claims its thread's cache. */
static void test_two_threads_cached_claiming_hits(void **state)
{
	(void)state;
	dmamap_iova_claiming_hits(true);
	two_threads(true);
	cache_hits_race_claims();
	dmamap_iova_claiming_hits(false);
}

/* Producer/consumer: every range allocated by one thread is freed by the other. */
#define PC_GRANULES 1024u
#define PC_RING 64u

struct pc_shared {
	struct dmamap_iova *a;
	atomic_uchar owned[PC_GRANULES];
	_Atomic uint64_t ring[PC_RING];
	atomic_ulong head, tail, errors, frees;
	atomic_bool done;
	unsigned iterations;
};

static void *pc_producer(void *p)
{
	struct pc_shared *sh = p;
	uint64_t s = 99;

	for (unsigned it = 0; it < sh->iterations; it++) {
		size_t size = (size_t)(rng_next(&s) % (8 * PG)) + 1;
		dma_addr_t d = dmamap_iova_alloc(sh->a, size);
		unsigned long h, first, count;

		if (d == DMA_MAPPING_ERROR)
			continue;
		first = (unsigned long)((d - BASE) / PG);
		count = (size + PG - 1) / PG;
		for (unsigned long g = first; g < first + count; g++)
			if (atomic_exchange(&sh->owned[g], 1))
				atomic_fetch_add(&sh->errors, 1);
		h = atomic_load(&sh->head);
		while (h - atomic_load(&sh->tail) >= PC_RING)
			sched_yield();
		atomic_store(&sh->ring[h % PC_RING], (uint64_t)d << 16 | count);
		atomic_store(&sh->head, h + 1);
	}
	atomic_store(&sh->done, true);
	return NULL;
}

static void *pc_consumer(void *p)
{
	struct pc_shared *sh = p;

	for (;;) {
		unsigned long t = atomic_load(&sh->tail);
		uint64_t e;
		dma_addr_t d;
		unsigned long count, first;

		if (t == atomic_load(&sh->head)) {
			if (atomic_load(&sh->done) && t == atomic_load(&sh->head))
				return NULL;
			sched_yield();
			continue;
		}
		e = atomic_load(&sh->ring[t % PC_RING]);
		atomic_store(&sh->tail, t + 1);
		d = (dma_addr_t)(e >> 16);
		count = (unsigned long)(e & 0xffff);
		first = (unsigned long)((d - BASE) / PG);
		/* ownership cleared before the range can be handed out again */
		for (unsigned long g = first; g < first + count; g++)
			if (!atomic_exchange(&sh->owned[g], 0))
				atomic_fetch_add(&sh->errors, 1);
		dmamap_iova_free(sh->a, d, count * PG);
		atomic_fetch_add(&sh->frees, 1);
	}
}

static void frees_cross_threads(bool cached)
{
	struct pc_shared *sh = calloc(1, sizeof(*sh));
	pthread_t prod, cons;
	unsigned long reports = dmamap_report_count(NULL);
	struct dmamap_iova_stats st;

	assert_non_null(sh);
	sh->a = mk(BASE, PC_GRANULES * PG, 0);
	if (cached)
		assert_int_equal(dmamap_iova_set_cache(sh->a, true), 0);
	sh->iterations = under_valgrind() ? 3000 : 60000;
	assert_int_equal(pthread_create(&prod, NULL, pc_producer, sh), 0);
	assert_int_equal(pthread_create(&cons, NULL, pc_consumer, sh), 0);
	assert_int_equal(pthread_join(prod, NULL), 0);
	assert_int_equal(pthread_join(cons, NULL), 0);

	assert_int_equal(atomic_load(&sh->errors), 0);
	assert_true(atomic_load(&sh->frees) > sh->iterations / 2);
	assert_int_equal(dmamap_report_count(NULL), reports);
	st = stats_of(sh->a);
	assert_int_equal(st.used_granules, 0);
	assert_int_equal(st.allocations, 0);
	assert_int_equal(st.refused_frees, 0);
	for (unsigned g = 0; g < PC_GRANULES; g++)
		assert_false(dmamap_iova_is_allocated(sh->a, BASE + g * PG));
	destroy_clean(sh->a);
	free(sh);
}

static void test_frees_cross_threads(void **state)
{
	(void)state;
	frees_cross_threads(false);
}

/* The consumer's cache fills with the producer's ranges: it spills, and the producer's failures flush it. */
static void test_frees_cross_threads_cached(void **state)
{
	(void)state;
	frees_cross_threads(true);
}

/* ------------------------------------------------------------ caches */

/* What a caller sees of a cached range: freed, refused when freed again, reused by its size first, flushed before a failure. */
static void test_cache_semantics(void **state)
{
	struct dmamap_iova *a = mk(BASE, 64 * PG, 0);
	struct dmamap_iova_stats before, st;
	dma_addr_t x, y, d;
	struct capture c;
	(void)state;

	assert_int_equal(dmamap_iova_set_cache(NULL, true), -EINVAL);
	{
		/* more than 2^32 granules: refused, nothing changed (the bitmaps did not grow) */
		struct dmamap_iova *big = mk(0, (size_t)PG << 33, 0);

		before = stats_of(big);
		assert_int_equal(dmamap_iova_set_cache(big, true), -EINVAL);
		st = stats_of(big);
		assert_stats_equal(&st, &before);
		assert_int_equal(st.tracked_granules, before.tracked_granules);
		assert_int_equal(dmamap_iova_alloc(big, PG), 0);
		dmamap_iova_free(big, 0, PG);
		assert_int_equal(stats_of(big).cached, 0);
		destroy_clean(big);
	}
	assert_int_equal(dmamap_iova_set_cache(a, true), 0);
	x = dmamap_iova_alloc(a, 2 * PG);
	y = dmamap_iova_alloc(a, PG);
	assert_int_equal(x, BASE);
	assert_int_equal(y, BASE + 2 * PG);
	dmamap_iova_free(a, x, 2 * PG);
	assert_counts(a, 1, 1, 1, 2);
	assert_false(dmamap_iova_is_allocated(a, x));
	assert_false(dmamap_iova_is_allocated(a, x + PG));
	assert_true(dmamap_iova_is_allocated(a, y));

	/* a double free of a cached range: refused, reported, nothing changed */
	assert_free_refused(a, x, 2 * PG);
	assert_int_equal(stats_of(a).cached, 1);

	/* first fit modulo cached ranges: one page does not go into the cached pair */
	assert_int_equal(dmamap_iova_alloc(a, PG), BASE + 3 * PG);
	/* the same size takes the cached range back */
	assert_int_equal(dmamap_iova_alloc(a, 2 * PG), x);
	assert_int_equal(stats_of(a).cached, 0);
	assert_true(dmamap_iova_is_allocated(a, x + PG));
	dmamap_iova_free(a, x, 2 * PG);

	/* fill the rest: the last pages come out of the cache, flushed before a failure is declared */
	for (unsigned long g = 4; g < 64; g++)
		assert_int_equal(dmamap_iova_alloc(a, PG), BASE + g * PG);
	assert_int_equal(stats_of(a).failures, 0);
	assert_int_equal(dmamap_iova_alloc(a, PG), BASE);
	st = stats_of(a);
	assert_int_equal(st.cached, 0);
	assert_int_equal(st.failures, 0);
	assert_int_equal(dmamap_iova_alloc(a, PG), BASE + PG);
	assert_int_equal(dmamap_iova_alloc(a, PG), DMA_MAPPING_ERROR);
	assert_int_equal(stats_of(a).failures, 1);
	for (unsigned long g = 0; g < 64; g++)
		if (g != 2)
			dmamap_iova_free(a, BASE + g * PG, PG);
	dmamap_iova_free(a, y, PG);
	st = stats_of(a);
	assert_int_equal(st.allocations, 0);
	assert_true(st.cached > 0);
	/* a free that is not exactly an allocation stays refused with caches on */
	d = dmamap_iova_alloc(a, 4 * PG);
	assert_true(d != DMA_MAPPING_ERROR);
	before = stats_of(a);
	capture_start(&c, NULL);
	dmamap_iova_free(a, d, 2 * PG);
	dmamap_iova_free(a, d + PG, PG);
	capture_stop(NULL);
	assert_int_equal(c.by_kind[DMAMAP_REPORT_IOVA_MISUSE], 2);
	assert_int_equal(stats_of(a).allocations, before.allocations);
	dmamap_iova_free(a, d, 4 * PG);
	/* cached ranges are not leaks */
	destroy_clean(a);
}

/*
 * A range placed under a lower alignment cap than today's is not cached when
 * freed: a cache hit would hand it out misaligned. Two and three granules
 * (alignment 2 and 4), and one granule, which any cap aligns, for contrast.
 */
static void test_cache_skips_ranges_placed_under_a_lower_cap(void **state)
{
	struct dmamap_iova *a = mk(BASE, 64 * PG, 0);
	dma_addr_t one, two, three;
	(void)state;

	assert_int_equal(dmamap_iova_set_cache(a, true), 0);
	assert_int_equal(dmamap_iova_set_max_align(a, 0), 0);
	one = dmamap_iova_alloc(a, PG);
	two = dmamap_iova_alloc(a, 2 * PG);
	three = dmamap_iova_alloc(a, 3 * PG);
	assert_int_equal(one, BASE);
	assert_int_equal(two, BASE + PG);
	assert_int_equal(three, BASE + 3 * PG);
	assert_int_equal(dmamap_iova_set_max_align(a, DMAMAP_IOVA_DEFAULT_MAX_ALIGN_ORDER), 0);

	dmamap_iova_free(a, two, 2 * PG);
	dmamap_iova_free(a, three, 3 * PG);
	assert_counts(a, 1, 1, 0, 0);
	dmamap_iova_free(a, one, PG);
	assert_counts(a, 0, 0, 1, 1);
	/* the sizes come back aligned, from the bitmaps; the page from the cache */
	assert_int_equal(dmamap_iova_alloc(a, 3 * PG), BASE + 4 * PG);
	assert_int_equal(dmamap_iova_alloc(a, 2 * PG), BASE + 2 * PG);
	assert_int_equal(dmamap_iova_alloc(a, PG), BASE);
	assert_counts(a, 3, 6, 0, 0);
	dmamap_iova_free(a, BASE, PG);
	dmamap_iova_free(a, BASE + 2 * PG, 2 * PG);
	dmamap_iova_free(a, BASE + 4 * PG, 3 * PG);
	destroy_clean(a);
}

/* Caches refused (no memory for the whole bitmaps, or bad arguments): nothing changed, the exact allocator goes on. */
static void test_cache_refused_nothing_changed(void **state)
{
	/* 2^17 granules: the bitmaps start with the first 2^16 */
	const unsigned long half = 1UL << 16;
	struct dmamap_iova *a = mk(BASE, 2 * half * PG, 0);
	struct dmamap_iova_stats before, st;
	dma_addr_t x, y, z;
	struct capture c;
	(void)state;

	assert_int_equal(dmamap_iova_set_cache(NULL, true), -EINVAL);
	assert_int_equal(dmamap_iova_set_cache(NULL, false), -EINVAL);
	x = dmamap_iova_alloc(a, PG);
	y = dmamap_iova_alloc(a, 3 * PG);
	z = dmamap_iova_alloc(a, 2 * PG);
	assert_int_equal(x, BASE);
	assert_int_equal(y, BASE + 4 * PG);
	assert_int_equal(z, BASE + 2 * PG);

	/* the bitmaps cannot grow to the whole space: -ENOMEM, counted, nothing else changed */
	before = stats_of(a);
	assert_int_equal(before.tracked_granules, half);
	dmamap_iova_fail_next_grows(a, 1);
	capture_start(&c, NULL);
	assert_int_equal(dmamap_iova_set_cache(a, true), -ENOMEM);
	capture_stop(NULL);
	assert_int_equal(c.reports, 0);
	st = stats_of(a);
	assert_stats_equal(&st, &before);
	assert_int_equal(st.tracked_granules, half);
	assert_int_equal(st.grows, before.grows);
	assert_int_equal(st.grow_failures, before.grow_failures + 1);
	assert_int_equal(st.cached, 0);
	assert_int_equal(st.cached_granules, 0);
	assert_int_equal(dmamap_iova_check_summaries(a), 0);
	assert_true(dmamap_iova_is_allocated(a, x));
	assert_false(dmamap_iova_is_allocated(a, x + PG));
	assert_true(dmamap_iova_is_allocated(a, y + 2 * PG));
	assert_true(dmamap_iova_is_allocated(a, z + PG));

	/* caching is still off: a free goes to the bitmaps, and the freed pair is first fit again */
	dmamap_iova_free(a, z, 2 * PG);
	assert_counts(a, 2, 4, 0, 0);
	assert_false(dmamap_iova_is_allocated(a, z));
	assert_int_equal(dmamap_iova_alloc(a, PG), BASE + PG);
	assert_int_equal(dmamap_iova_alloc(a, PG), BASE + 2 * PG);
	assert_int_equal(dmamap_iova_alloc(a, PG), BASE + 3 * PG);
	/* a free of the wrong size is refused as before */
	assert_free_refused(a, x + PG, 2 * PG);
	assert_int_equal(dmamap_iova_check_summaries(a), 0);

	/* the hook spent: caches come on, over the whole space */
	before = stats_of(a);
	assert_int_equal(dmamap_iova_set_cache(a, true), 0);
	st = stats_of(a);
	assert_int_equal(st.tracked_granules, 2 * half);
	assert_int_equal(st.grow_failures, before.grow_failures);
	assert_int_equal(st.allocations, before.allocations);
	assert_int_equal(st.used_granules, before.used_granules);
	assert_int_equal(dmamap_iova_check_summaries(a), 0);
	/* and a free now goes into the cache: its granule stays out of first fit */
	dmamap_iova_free(a, BASE + PG, PG);
	st = stats_of(a);
	assert_int_equal(st.cached, 1);
	assert_int_equal(st.cached_granules, 1);
	assert_int_equal(st.allocations, before.allocations - 1);
	assert_int_equal(dmamap_iova_alloc(a, 2 * PG), BASE + 8 * PG);
	assert_int_equal(dmamap_iova_alloc(a, PG), BASE + PG);
	assert_int_equal(dmamap_iova_set_cache(a, false), 0);
	assert_int_equal(dmamap_iova_check_summaries(a), 0);
	dmamap_iova_free(a, BASE + 8 * PG, 2 * PG);
	for (unsigned long g = 0; g < 4; g++)
		dmamap_iova_free(a, BASE + g * PG, PG);
	dmamap_iova_free(a, y, 3 * PG);
	st = stats_of(a);
	assert_int_equal(st.allocations, 0);
	assert_int_equal(st.used_granules, 0);
	assert_int_equal(st.cached, 0);
	destroy_clean(a);

	{
		/* one granule more than 2^32: refused before the bitmaps grow; a pending failed growth is not spent */
		struct dmamap_iova *big = mk(0, (size_t)PG * ((1ULL << 32) + 1), 0);
		dma_addr_t b = dmamap_iova_alloc(big, 2 * PG);

		assert_int_equal(b, 0);
		dmamap_iova_fail_next_grows(big, 1);
		before = stats_of(big);
		assert_int_equal(dmamap_iova_set_cache(big, true), -EINVAL);
		st = stats_of(big);
		assert_stats_equal(&st, &before);
		assert_int_equal(st.tracked_granules, before.tracked_granules);
		assert_int_equal(st.grow_failures, before.grow_failures);
		assert_int_equal(dmamap_iova_check_summaries(big), 0);
		assert_true(dmamap_iova_is_allocated(big, b + PG));
		/* still exact: the free goes to the bitmaps */
		dmamap_iova_free(big, b, 2 * PG);
		st = stats_of(big);
		assert_int_equal(st.cached, 0);
		assert_int_equal(st.allocations, 0);
		assert_int_equal(dmamap_iova_alloc(big, PG), 0);
		/* the pending failure is still there for the next growth: a search past the extent fails */
		assert_int_equal(dmamap_iova_alloc(big, (size_t)PG << 17), DMA_MAPPING_ERROR);
		assert_int_equal(stats_of(big).grow_failures, before.grow_failures + 1);
		dmamap_iova_free(big, 0, PG);
		destroy_clean(big);
	}
}

/*
 * Caches on and two threads: a miss takes the first fit outside the bitmap
 * line (512 granules) where the other thread's last miss landed, so that the
 * two threads' hits and frees never write one line; only when nothing else
 * fits does it go there.
 */
struct other {
	struct dmamap_iova *a;
	atomic_int req;               /* 1: allocate size; 2: free addr; 3: exit; 0: done */
	size_t size;
	dma_addr_t addr;
};

static void *other_thread(void *p)
{
	struct other *o = p;

	for (;;) {
		int r;

		while (!(r = atomic_load(&o->req)))
			sched_yield();
		if (r == 3)
			return NULL;
		if (r == 1)
			o->addr = dmamap_iova_alloc(o->a, o->size);
		else
			dmamap_iova_free(o->a, o->addr, o->size);
		atomic_store(&o->req, 0);
	}
}

static dma_addr_t other_do(struct other *o, int req, dma_addr_t addr, size_t size)
{
	o->addr = addr;
	o->size = size;
	atomic_store(&o->req, req);
	while (atomic_load(&o->req))
		sched_yield();
	return o->addr;
}

static void test_cache_misses_keep_threads_a_line_apart(void **state)
{
	/* three lines of 512 granules, the last half: its end is the space's */
	struct other o = { .a = mk(BASE, 1280 * PG, 0) };
	struct dmamap_iova_stats st;
	pthread_t t;
	(void)state;

	atomic_init(&o.req, 0);
	assert_int_equal(dmamap_iova_set_cache(o.a, true), 0);
	assert_int_equal(pthread_create(&t, NULL, other_thread, &o), 0);

	/* one thread: first fit; the other thread's misses pass this one's line (granule 1 is free) */
	assert_int_equal(dmamap_iova_alloc(o.a, PG), BASE);
	assert_int_equal(other_do(&o, 1, 0, PG), BASE + 512 * PG);
	assert_int_equal(other_do(&o, 1, 0, 4 * PG), BASE + 516 * PG);
	/* this thread's own line: first fit within it */
	assert_int_equal(dmamap_iova_alloc(o.a, 2 * PG), BASE + 2 * PG);
	for (unsigned g = 4; g < 512; g += 4)
		assert_int_equal(dmamap_iova_alloc(o.a, 4 * PG), BASE + (dma_addr_t)g * PG);
	assert_int_equal(dmamap_iova_alloc(o.a, PG), BASE + PG);
	/* its line is full: the next miss passes the other's line, where granule 513 is free */
	assert_int_equal(dmamap_iova_alloc(o.a, PG), BASE + 1024 * PG);
	/* and the other thread's next miss keeps to its own line */
	assert_int_equal(other_do(&o, 1, 0, PG), BASE + 513 * PG);
	for (unsigned g = 1025; g < 1280; g++)
		assert_int_equal(dmamap_iova_alloc(o.a, PG), BASE + (dma_addr_t)g * PG);

	/* only the other thread's line holds a fit: taken rather than failing, by either thread */
	assert_int_equal(dmamap_iova_alloc(o.a, PG), BASE + 514 * PG);
	assert_int_equal(other_do(&o, 1, 0, 8 * PG), BASE + 520 * PG);
	assert_int_equal(stats_of(o.a).failures, 0);

	/* nothing lost or doubly owned: every granule counted once, frees still exact */
	st = stats_of(o.a);
	assert_int_equal(st.used_granules, (1 + 2 + 127 * 4 + 1 + 1 + 255 + 1) + (1 + 4 + 1 + 8));
	assert_int_equal(st.allocations, (1 + 1 + 127 + 1 + 1 + 255 + 1) + 4);
	assert_int_equal(dmamap_iova_check_summaries(o.a), 0);
	assert_free_refused(o.a, BASE + 512 * PG, 2 * PG);
	other_do(&o, 2, BASE + 512 * PG, PG);
	assert_free_refused(o.a, BASE + 512 * PG, PG); /* in the other thread's cache now */

	atomic_store(&o.req, 3);
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_int_equal(stats_of(o.a).cached, 0);
	destroy_leaky(o.a);
}

/* A thread that starts before the allocator and outlives it: its cache is released, nothing leaks. */
struct outlive {
	struct dmamap_iova *a;
	atomic_int stage;
	dma_addr_t addr[4];
};

static void wait_stage(struct outlive *o, int stage)
{
	while (atomic_load(&o->stage) != stage)
		sched_yield();
}

static void *outlive_thread(void *p)
{
	struct outlive *o = p;

	for (int round = 0; round < 2; round++) {
		wait_stage(o, 1 + 2 * round);
		for (unsigned i = 0; i < 4; i++)
			o->addr[i] = dmamap_iova_alloc(o->a, (i + 1) * PG);
		for (unsigned i = 0; i < 4; i++)
			dmamap_iova_free(o->a, o->addr[i], (i + 1) * PG);
		atomic_store(&o->stage, 2 + 2 * round);
	}
	/* exit only once the cache has been looked at */
	wait_stage(o, 5);
	return NULL;
}

static void test_cache_thread_outlives_allocator(void **state)
{
	struct outlive o = { 0 };
	struct dmamap_iova_stats st;
	struct capture c;
	pthread_t t;
	(void)state;

	atomic_init(&o.stage, 0);
	assert_int_equal(pthread_create(&t, NULL, outlive_thread, &o), 0);
	o.a = mk(BASE, 1024 * PG, 0);
	assert_int_equal(dmamap_iova_set_cache(o.a, true), 0);
	atomic_store(&o.stage, 1);
	wait_stage(&o, 2);
	/* the thread's four ranges sit in its cache: freed for everyone, double frees refused here too */
	st = stats_of(o.a);
	assert_int_equal(st.allocations, 0);
	assert_int_equal(st.cached, 4);
	assert_int_equal(st.cached_granules, 10);
	for (unsigned i = 0; i < 4; i++)
		assert_false(dmamap_iova_is_allocated(o.a, o.addr[i]));
	capture_start(&c, NULL);
	dmamap_iova_free(o.a, o.addr[3], 4 * PG);
	capture_stop(NULL);
	assert_int_equal(c.by_kind[DMAMAP_REPORT_IOVA_MISUSE], 1);
	/* destroyed while the thread lives: no leak reported; the thread drops its cache later */
	destroy_clean(o.a);

	o.a = mk(BASE, 1024 * PG, 0);
	assert_int_equal(dmamap_iova_set_cache(o.a, true), 0);
	atomic_store(&o.stage, 3);
	wait_stage(&o, 4);
	assert_int_equal(stats_of(o.a).cached, 4);
	atomic_store(&o.stage, 5);
	assert_int_equal(pthread_join(t, NULL), 0);
	/* the thread exited: its cache went back to the bitmaps */
	st = stats_of(o.a);
	assert_int_equal(st.cached, 0);
	assert_int_equal(st.used_granules, 0);
	assert_int_equal(dmamap_iova_check_summaries(o.a), 0);
	destroy_clean(o.a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_create_rejects_bad_arguments),
		cmocka_unit_test(test_null_and_zero_arguments),
		cmocka_unit_test(test_stats_fields),
		cmocka_unit_test(test_exactly_full_space),
		cmocka_unit_test(test_one_granule_left),
		cmocka_unit_test(test_alignment_forces_gap_then_fills_it),
		cmocka_unit_test(test_alignment_is_relative_to_base),
		cmocka_unit_test(test_base_zero_is_a_valid_address),
		cmocka_unit_test(test_last_granule_of_space),
		cmocka_unit_test(test_free_then_reuse_lowest_first),
		cmocka_unit_test(test_order2_granules),
		cmocka_unit_test(test_alignment_cap),
		cmocka_unit_test(test_fails_only_when_no_aligned_run),
		cmocka_unit_test(test_bad_frees_refused_nothing_changed),
		cmocka_unit_test(test_adjacent_allocations_keep_their_boundaries),
		cmocka_unit_test(test_double_free_refused),
		cmocka_unit_test(test_destroy_reports_leaks),
		cmocka_unit_test(test_destroyed_twice_refused),
		cmocka_unit_test(test_calls_after_destroy_refused),
		cmocka_unit_test(test_destroyed_kept_for_256_destroys),
		cmocka_unit_test(test_large_space_word_scans),
		cmocka_unit_test(test_growth_on_demand_and_its_failure),
		cmocka_unit_test(test_free_past_the_extent_refused),
		cmocka_unit_test(test_fit_spanning_words_needs_the_whole_remainder),
		cmocka_unit_test(test_fit_spanning_nodes_needs_the_whole_remainder),
		cmocka_unit_test(test_fit_grows_with_the_word_after_a_free_one),
		cmocka_unit_test(test_fit_moving_within_its_code_reaches_the_node),
		cmocka_unit_test(test_node_prefix_follows_its_first_word),
		cmocka_unit_test(test_single_granules_past_occupied_words),
		cmocka_unit_test(test_single_granule_takes_the_next_node_with_any),
		cmocka_unit_test(test_word_changes_reach_their_node_before_a_search),
		cmocka_unit_test(test_random_against_model_order0),
		cmocka_unit_test(test_random_against_model_order1_cap4_odd_size),
		cmocka_unit_test(test_random_against_model_order2_cap_below_granule),
		cmocka_unit_test(test_random_against_model_large_space),
		cmocka_unit_test(test_differential_every_space_size),
		cmocka_unit_test(test_differential_cached),
		cmocka_unit_test(test_two_threads_never_share_a_granule),
		cmocka_unit_test(test_frees_cross_threads),
		cmocka_unit_test(test_two_threads_cached),
		cmocka_unit_test(test_cache_hits_race_claims),
		cmocka_unit_test(test_two_threads_cached_claiming_hits),
		cmocka_unit_test(test_frees_cross_threads_cached),
		cmocka_unit_test(test_cache_semantics),
		cmocka_unit_test(test_cache_skips_ranges_placed_under_a_lower_cap),
		cmocka_unit_test(test_cache_refused_nothing_changed),
		cmocka_unit_test(test_cache_thread_outlives_allocator),
		cmocka_unit_test(test_cache_misses_keep_threads_a_line_apart),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
