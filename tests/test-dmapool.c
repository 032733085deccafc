/* SPDX-License-Identifier: MIT */
/* dma_pool: small coherent blocks (dma_pool_create/alloc/free/destroy). */
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>

#include "common.h"

#define RAM_MIB 16
#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif

struct fx {
	struct dmamap_machine *m;
	struct device dev;
	unsigned long base_free; /* free pages right after the device was set up */
};

static unsigned long nfree_pages(struct dmamap_machine *m)
{
	struct dmamap_page_stats st;
	unsigned long n = 0;

	dmamap_page_stats(m, &st);
	for (unsigned z = 0; z < DMAMAP_ZONE_NR; z++)
		n += st.free_pages[z];
	return n;
}

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));

	if (!f)
		return -1;
	f->m = test_machine(RAM_MIB, NULL);
	if (dmamap_device_init(&f->dev, f->m, "pooldev")) {
		test_machine_destroy(f->m);
		free(f);
		return -1;
	}
	f->base_free = nfree_pages(f->m);
	*state = f;
	return 0;
}

/* Release the device and the machine: neither may find anything left behind. */
static int teardown(void **state)
{
	struct fx *f = *state;
	struct capture c;
	int ret = 0;

	if (nfree_pages(f->m) != f->base_free) {
		fprintf(stderr, "teardown: %lu free pages, %lu at setup\n", nfree_pages(f->m), f->base_free);
		ret = -1;
	}
	capture_start(&c, f->m);
	dmamap_device_release(&f->dev);
	test_machine_destroy(f->m);
	if (c.reports) {
		fprintf(stderr, "teardown: %lu reports (last: %s)\n", c.reports, c.last);
		ret = -1;
	}
	free(f);
	return ret;
}

static struct dma_pool *mkpool(struct fx *f, size_t size, size_t align, size_t boundary)
{
	struct dma_pool *pool = dma_pool_create("testpool", &f->dev, size, align, boundary);

	assert_non_null(pool);
	return pool;
}

static struct dmamap_dma_pool_stats stats_of(struct dma_pool *pool)
{
	struct dmamap_dma_pool_stats st;

	memset(&st, 0xff, sizeof(st));
	dmamap_dma_pool_stats(pool, &st);
	return st;
}

static void assert_stats_equal(const struct dmamap_dma_pool_stats *a, const struct dmamap_dma_pool_stats *b)
{
	assert_int_equal(a->block_size, b->block_size);
	assert_int_equal(a->blocks_in_use, b->blocks_in_use);
	assert_int_equal(a->blocks_total, b->blocks_total);
	assert_int_equal(a->pages, b->pages);
	assert_int_equal(a->high_water, b->high_water);
}

static void *xalloc(struct dma_pool *pool, gfp_t gfp, dma_addr_t *h)
{
	void *p;

	*h = 0;
	p = dma_pool_alloc(pool, gfp, h);
	assert_non_null(p);
	assert_int_not_equal(*h, DMA_MAPPING_ERROR);
	return p;
}

/* The device reads @len bytes at @h and finds the pattern @seed. */
static void assert_device_sees(struct fx *f, dma_addr_t h, size_t len, unsigned seed)
{
	unsigned char *buf = malloc(len);

	assert_non_null(buf);
	assert_int_equal(dmamap_dev_read(&f->dev, h, buf, len), 0);
	assert_int_equal(check_pattern(buf, len, seed), 0);
	free(buf);
}

static bool all_zero(const void *p, size_t len)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < len; i++)
		if (b[i])
			return false;
	return true;
}

/* ------------------------------------------------------------- create */

static void test_create_rejects_bad_arguments(void **state)
{
	struct fx *f = *state;
	struct device raw;
	const struct {
		struct device *dev;
		size_t size, align, boundary;
	} bad[] = {
		{ NULL, 64, 8, 0 },            /* no device */
		{ &raw, 64, 8, 0 },            /* device never initialised */
		{ &f->dev, 0, 8, 0 },          /* zero size */
		{ &f->dev, 64, 3, 0 },         /* align not a power of two */
		{ &f->dev, 64, 24, 0 },
		{ &f->dev, 64, 8, 100 },       /* boundary not a power of two */
		{ &f->dev, 48, 8, 96 },
		{ &f->dev, 48, 8, 32 },        /* boundary < size */
		{ &f->dev, 100, 64, 64 },      /* boundary < size rounded to the alignment (128) */
		{ &f->dev, 3, 0, 4 },          /* boundary < size rounded to 8 bytes */
		{ &f->dev, SIZE_MAX, 8, 0 },   /* size cannot be rounded */
		{ &f->dev, SIZE_MAX - 4000, 8, 0 },
		{ &f->dev, SIZE_MAX - 4096, 0, 0 }, /* rounds to pages, but above INT_MAX */
		{ &f->dev, (size_t)INT_MAX + 1, 8, 0 },
		{ &f->dev, ((size_t)RAM_MIB << 20) + 1, 0, 0 }, /* a block larger than RAM */
		{ &f->dev, 1, (size_t)RAM_MIB << 21, 0 },        /* rounded to its alignment: twice RAM */
	};
	struct dmamap_page_stats before, after;

	memset(&raw, 0, sizeof(raw));
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		struct capture cm, cg;
		unsigned long reports = dmamap_report_count(f->m) + dmamap_report_count(NULL);

		dmamap_page_stats(f->m, &before);
		capture_start(&cm, f->m);
		capture_start(&cg, NULL);
		assert_null(dma_pool_create("bad", bad[i].dev, bad[i].size, bad[i].align, bad[i].boundary));
		capture_stop(NULL);
		capture_stop(f->m);
		dmamap_page_stats(f->m, &after);
		/* exactly one bad-input report, on the device's machine when there is one */
		assert_int_equal(cm.reports + cg.reports, 1);
		assert_int_equal(cm.by_kind[DMAMAP_REPORT_BAD_INPUT] + cg.by_kind[DMAMAP_REPORT_BAD_INPUT], 1);
		if (bad[i].dev == &f->dev)
			assert_int_equal(cm.reports, 1);
		assert_int_equal(dmamap_report_count(f->m) + dmamap_report_count(NULL), reports + 1);
		/* and nothing allocated */
		assert_memory_equal(&before, &after, sizeof(before));
	}
}

/* One bad-input report for @size, nothing allocated, NULL. */
static void expect_create_refused(struct dmamap_machine *m, struct device *dev, size_t size)
{
	struct dmamap_page_stats before, after;
	struct dmamap_checker_stats cs;
	struct capture c;
	int line;

	dmamap_page_stats(m, &before);
	capture_start(&c, m);
	assert_null(dma_pool_create("big", dev, size, 0, 0)); line = __LINE__;
	capture_stop(m);
	dmamap_page_stats(m, &after);
	assert_int_equal(c.reports, 1);
	assert_int_equal(c.by_kind[DMAMAP_REPORT_BAD_INPUT], 1);
	assert_non_null(strstr(c.rec[0].message, "dma_pool_create(big)"));
	/* named at the caller's line, as every wrapper's report */
	assert_non_null(strstr(c.rec[0].file, "test-dmapool.c"));
	assert_int_equal(c.rec[0].line, line);
	assert_memory_equal(&before, &after, sizeof(before));
	dmamap_checker_stats(m, &cs);
	assert_int_equal(cs.live_coherent + cs.live_pool + cs.untracked_live, 0);
}

/* @size is accepted; the pool's block is @block bytes. */
static struct dma_pool *expect_create_accepted(struct device *dev, size_t size, size_t block)
{
	struct dma_pool *pool = dma_pool_create("big", dev, size, 0, 0);

	assert_non_null(pool);
	assert_int_equal(stats_of(pool).block_size, block);
	assert_int_equal(stats_of(pool).pages, 0);
	return pool;
}

/*
 * The largest block: no more than RAM once rounded to pages (no coherent
 * allocation could ever serve more), and no more than INT_MAX as asked, as
 * in Linux. One byte more is refused at create. A block within RAM but
 * beyond what the device's sources serve makes dma_pool_alloc() fail
 * cleanly instead.
 */
static void test_create_size_limits(void **state)
{
	struct fx *f = *state;
	const size_t ram = (size_t)RAM_MIB << 20;
	struct dmamap_machine *big;
	struct device bdev = { 0 };
	struct dma_pool *pool;
	unsigned long reports;
	dma_addr_t h = 0;

	pool = expect_create_accepted(&f->dev, ram, ram);
	reports = dmamap_report_count(f->m);
	assert_null(dma_pool_alloc(pool, GFP_KERNEL | __GFP_NOWARN, &h));
	assert_int_equal(h, DMA_MAPPING_ERROR);
	assert_int_equal(dmamap_report_count(f->m), reports);
	assert_int_equal(stats_of(pool).pages, 0);
	assert_int_equal(stats_of(pool).blocks_in_use, 0);
	assert_int_equal(nfree_pages(f->m), f->base_free);
	dma_pool_destroy(pool);
	dma_pool_destroy(expect_create_accepted(&f->dev, ram - PAGE_SIZE + 1, ram - PAGE_SIZE + 8)); /* a RAM-sized page */
	expect_create_refused(f->m, &f->dev, ram + 1);
	expect_create_refused(f->m, &f->dev, ram + PAGE_SIZE);

	/* a machine with more RAM than INT_MAX: there, INT_MAX is the bound */
	big = test_machine(3072, NULL);
	assert_int_equal(dmamap_device_init(&bdev, big, "bigdev"), 0);
	dma_pool_destroy(expect_create_accepted(&bdev, (size_t)INT_MAX, (size_t)INT_MAX + 1));
	expect_create_refused(big, &bdev, (size_t)INT_MAX + 1);
	expect_create_refused(big, &bdev, SIZE_MAX - 4096);
	dmamap_device_release(&bdev);
	test_machine_destroy(big);
}

static void test_create_host_alloc_failure(void **state)
{
	struct fx *f = *state;
	unsigned long reports = dmamap_report_count(f->m);
	struct dma_pool *pool;
	struct capture c;

	capture_start(&c, f->m);
	assert_int_equal(dmamap_fault_inject(f->m, DMAMAP_FAULT_HOST_ALLOC, 1, 0), 0);
	assert_null(dma_pool_create("nomem", &f->dev, 64, 8, 0));
	capture_stop(f->m);
	assert_int_equal(c.reports, 0);
	assert_int_equal(dmamap_fault_injected(f->m, DMAMAP_FAULT_HOST_ALLOC), 1);
	assert_int_equal(dmamap_report_count(f->m), reports); /* out of memory is not misuse */
	assert_int_equal(nfree_pages(f->m), f->base_free);

	pool = mkpool(f, 64, 8, 0);
	dma_pool_destroy(pool);
}

static void test_create_rounds_block_size(void **state)
{
	struct fx *f = *state;
	const struct {
		size_t size, align, boundary, block;
	} cases[] = {
		{ 1, 0, 0, 8 },      { 3, 1, 0, 8 },         { 8, 0, 0, 8 },      { 9, 0, 0, 16 },
		{ 48, 32, 0, 64 },   { 100, 128, 0, 128 },   { 3000, 0, 4096, 3000 },
		{ 64, 64, 64, 64 },  { 3, 0, 8, 8 },         { 4096, 4096, 4096, 4096 },
		{ 5000, 0, 0, 5000 }, { 1, 8192, 0, 8192 },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		unsigned long reports = dmamap_report_count(f->m);
		struct dma_pool *pool = mkpool(f, cases[i].size, cases[i].align, cases[i].boundary);
		struct dmamap_dma_pool_stats st = stats_of(pool);

		assert_int_equal(st.block_size, cases[i].block);
		assert_int_equal(st.blocks_in_use, 0);
		assert_int_equal(st.blocks_total, 0);
		assert_int_equal(st.pages, 0);
		assert_int_equal(st.high_water, 0);
		/* a pool takes no memory until its first block */
		assert_int_equal(nfree_pages(f->m), f->base_free);
		dma_pool_destroy(pool);
		assert_int_equal(dmamap_report_count(f->m), reports);
	}
}

/* ---------------------------------------------------------- placement */

static void test_blocks_are_aligned_on_both_sides(void **state)
{
	struct fx *f = *state;
	const size_t aligns[] = { 0, 1, 8, 16, 32, 64, 128, 512, 4096, 8192 };
	const size_t sizes[] = { 1, 24, 100, 700 };
	enum { N = 10 };

	for (size_t a = 0; a < ARRAY_SIZE(aligns); a++) {
		for (size_t s = 0; s < ARRAY_SIZE(sizes); s++) {
			size_t want = aligns[a] < 8 ? 8 : aligns[a];
			struct dma_pool *pool = mkpool(f, sizes[s], aligns[a], 0);
			void *va[N];
			dma_addr_t h[N];

			for (int i = 0; i < N; i++) {
				va[i] = xalloc(pool, GFP_KERNEL, &h[i]);
				assert_int_equal((uintptr_t)va[i] % want, 0);
				assert_int_equal(h[i] % want, 0);
				fill_pattern(va[i], sizes[s], (unsigned)i);
			}
			for (int i = 0; i < N; i++) {
				assert_int_equal(check_pattern(va[i], sizes[s], (unsigned)i), 0);
				dma_pool_free(pool, va[i], h[i]);
			}
			assert_int_equal(stats_of(pool).blocks_in_use, 0);
			dma_pool_destroy(pool);
		}
	}
	assert_int_equal(nfree_pages(f->m), f->base_free);
}

static bool crosses(dma_addr_t start, size_t len, size_t boundary)
{
	return start / boundary != (start + len - 1) / boundary;
}

/*
 * Three pages' worth of blocks: none crosses the boundary (bus or CPU side),
 * and a page holds exactly as many as the boundary allows.
 */
static void test_blocks_never_cross_the_boundary(void **state)
{
	struct fx *f = *state;
	const struct {
		size_t size, align, boundary;
		unsigned long per_page;
	} cases[] = {
		{ 48, 0, 64, 64 },      /* one per 64-byte window */
		{ 48, 0, 128, 64 },     /* two per window: 0, 48; 96 would cross */
		{ 48, 0, 4096, 85 },
		{ 3000, 0, 4096, 1 },
		{ 100, 0, 256, 32 },
		{ 1000, 8, 2048, 4 },
		{ 24, 8, 32, 128 },
		{ 5000, 0, 8192, 1 },   /* 8 KiB allocations */
		{ 48, 16, 0, 85 },      /* no boundary: packed */
	};

	for (size_t c = 0; c < ARRAY_SIZE(cases); c++) {
		struct dma_pool *pool = mkpool(f, cases[c].size, cases[c].align, cases[c].boundary);
		unsigned long n = 3 * cases[c].per_page;
		void **va = calloc(n, sizeof(*va));
		dma_addr_t *h = calloc(n, sizeof(*h));
		struct dmamap_dma_pool_stats st;

		assert_non_null(va);
		assert_non_null(h);
		for (unsigned long i = 0; i < n; i++) {
			va[i] = xalloc(pool, GFP_KERNEL, &h[i]);
			if (cases[c].boundary) {
				assert_false(crosses(h[i], stats_of(pool).block_size, cases[c].boundary));
				assert_false(crosses((uintptr_t)va[i], stats_of(pool).block_size, cases[c].boundary));
			}
			fill_pattern(va[i], cases[c].size, (unsigned)(i + 7 * c));
		}
		st = stats_of(pool);
		assert_int_equal(st.pages, 3);
		assert_int_equal(st.blocks_total, n);
		assert_int_equal(st.blocks_in_use, n);
		for (unsigned long i = 0; i < n; i++) {
			assert_int_equal(check_pattern(va[i], cases[c].size, (unsigned)(i + 7 * c)), 0);
			dma_pool_free(pool, va[i], h[i]);
		}
		dma_pool_destroy(pool);
		free(va);
		free(h);
	}
	assert_int_equal(nfree_pages(f->m), f->base_free);
}

/*
 * The boundary is a bus-address rule. With an odd dma_pfn_offset, an 8 KiB
 * coherent allocation is 8 KiB aligned physically but only 4 KiB aligned on
 * the bus: a 5000-byte block at its start would cross a bus multiple of
 * 8 KiB. Blocks must still not cross, and the device must find the CPU's data
 * at the handle.
 */
static void test_boundary_is_in_bus_terms(void **state)
{
	struct fx *f = *state;
	enum { N = 4 };
	struct dma_pool *pool;
	void *va[N];
	dma_addr_t h[N];

	f->dev.dma_pfn_offset = 1;
	pool = mkpool(f, 5000, 0, 8192);
	for (int i = 0; i < N; i++) {
		va[i] = xalloc(pool, GFP_KERNEL, &h[i]);
		assert_false(crosses(h[i], 5000, 8192));
		assert_int_equal(h[i] % 8, 0);
		assert_int_equal((uintptr_t)va[i] % 8, 0);
		fill_pattern(va[i], 5000, (unsigned)i + 40);
	}
	/* no 8 KiB allocation can hold such a block: each pool page is a 16 KiB one */
	assert_int_equal(stats_of(pool).pages, N);
	assert_int_equal(f->base_free - nfree_pages(f->m), 4 * N);
	for (int i = 0; i < N; i++) {
		assert_device_sees(f, h[i], 5000, (unsigned)i + 40);
		assert_int_equal(dmamap_dev_fill(&f->dev, h[i], 0x3c, 5000), 0);
		assert_int_equal(((unsigned char *)va[i])[0], 0x3c);
		assert_int_equal(((unsigned char *)va[i])[4999], 0x3c);
		dma_pool_free(pool, va[i], h[i]);
	}
	assert_int_equal(stats_of(pool).blocks_total, stats_of(pool).pages);
	dma_pool_destroy(pool);

	/* small blocks with a sub-page boundary: pages are bus-aligned to it anyway */
	pool = mkpool(f, 48, 0, 64);
	for (int i = 0; i < N; i++) {
		va[i] = xalloc(pool, GFP_KERNEL, &h[i]);
		assert_false(crosses(h[i], 48, 64));
	}
	for (int i = 0; i < N; i++)
		dma_pool_free(pool, va[i], h[i]);
	dma_pool_destroy(pool);
	f->dev.dma_pfn_offset = 0;
	assert_int_equal(nfree_pages(f->m), f->base_free);
}

/*
 * An alignment above a page that the bus address cannot share with the CPU
 * address (an 8 KiB-aligned CPU mapping of memory whose bus address is 4 KiB
 * off): no block can honour it on both sides, so the allocation fails
 * cleanly instead of handing out a block misaligned for the device.
 */
static void test_unsatisfiable_bus_alignment_fails_cleanly(void **state)
{
	struct fx *f = *state;
	struct dma_pool *pool;
	struct capture c;
	dma_addr_t h = 0;
	void *p;

	f->dev.dma_pfn_offset = 1;
	pool = mkpool(f, 64, 8192, 0);
	capture_start(&c, f->m);
	p = dma_pool_alloc(pool, GFP_KERNEL, &h);
	capture_stop(f->m);
	if (p) {
		/* only acceptable if both sides are aligned after all */
		assert_int_equal(h % 8192, 0);
		assert_int_equal((uintptr_t)p % 8192, 0);
		dma_pool_free(pool, p, h);
	} else {
		assert_int_equal(h, DMA_MAPPING_ERROR);
		assert_int_equal(c.reports, 0);
		assert_true(c.messages >= 1); /* but it says why */
		assert_int_equal(stats_of(pool).pages, 0);
	}
	dma_pool_destroy(pool);
	f->dev.dma_pfn_offset = 0;
	assert_int_equal(nfree_pages(f->m), f->base_free);
}

static int cmp_addr(const void *a, const void *b)
{
	uintptr_t x = *(const uintptr_t *)a, y = *(const uintptr_t *)b;

	return x < y ? -1 : x > y;
}

static void test_blocks_are_distinct_and_disjoint(void **state)
{
	struct fx *f = *state;
	enum { N = 150, SIZE = 100 }; /* 104-byte blocks, 39 a page: 4 pages */
	struct dma_pool *pool = mkpool(f, SIZE, 4, 0);
	void *va[N];
	dma_addr_t h[N];
	uintptr_t sv[N], sh[N];
	size_t bs;

	for (int i = 0; i < N; i++) {
		va[i] = xalloc(pool, GFP_KERNEL, &h[i]);
		fill_pattern(va[i], SIZE, (unsigned)i);
		sv[i] = (uintptr_t)va[i];
		sh[i] = (uintptr_t)h[i];
	}
	bs = stats_of(pool).block_size;
	assert_int_equal(bs, 104);
	assert_int_equal(stats_of(pool).pages, 4);
	for (int i = 0; i < N; i++) {
		assert_int_equal(check_pattern(va[i], SIZE, (unsigned)i), 0);
		assert_device_sees(f, h[i], SIZE, (unsigned)i);
	}
	qsort(sv, N, sizeof(sv[0]), cmp_addr);
	qsort(sh, N, sizeof(sh[0]), cmp_addr);
	for (int i = 1; i < N; i++) {
		assert_true(sv[i - 1] + bs <= sv[i]);
		assert_true(sh[i - 1] + bs <= sh[i]);
	}
	/* free in a scrambled order */
	for (int i = 0; i < N; i++) {
		int j = (i * 61) % N;

		dma_pool_free(pool, va[j], h[j]);
	}
	assert_int_equal(stats_of(pool).blocks_in_use, 0);
	assert_int_equal(stats_of(pool).pages, 4); /* pages are kept until destroy */
	dma_pool_destroy(pool);
	assert_int_equal(nfree_pages(f->m), f->base_free);
}

/* ----------------------------------------------------------- coherence */

static void test_cpu_and_device_see_each_other_at_once(void **state)
{
	struct fx *f = *state;
	struct dma_pool *pool = mkpool(f, 256, 0, 0);
	void *a, *b, *c;
	dma_addr_t ha, hb, hc;
	unsigned char buf[256];

	a = xalloc(pool, GFP_KERNEL, &ha);
	b = xalloc(pool, GFP_KERNEL, &hb);
	c = xalloc(pool, GFP_KERNEL, &hc);
	fill_pattern(a, 256, 1);
	fill_pattern(c, 256, 3);
	/* CPU store -> device read, no sync */
	assert_device_sees(f, ha, 256, 1);
	/* device write -> CPU read, no sync */
	fill_pattern(buf, sizeof(buf), 2);
	assert_int_equal(dmamap_dev_write(&f->dev, hb, buf, sizeof(buf)), 0);
	assert_int_equal(check_pattern(b, 256, 2), 0);
	/* the neighbours are untouched */
	assert_int_equal(check_pattern(a, 256, 1), 0);
	assert_int_equal(check_pattern(c, 256, 3), 0);
	/* and once more in the other direction on the same block */
	fill_pattern(b, 256, 4);
	assert_device_sees(f, hb, 256, 4);

	dma_pool_free(pool, a, ha);
	dma_pool_free(pool, b, hb);
	dma_pool_free(pool, c, hc);
	dma_pool_destroy(pool);
}

/* A snooping device: the pool's memory is cached, and still both sides agree. */
static void test_coherent_device(void **state)
{
	struct fx *f = *state;
	struct dma_pool *pool;
	unsigned char buf[128];
	void *a;
	dma_addr_t ha;

	f->dev.dma_coherent = true;
	pool = mkpool(f, 128, 0, 0);
	a = xalloc(pool, GFP_KERNEL, &ha);
	fill_pattern(a, 128, 9);
	assert_device_sees(f, ha, 128, 9);
	fill_pattern(buf, sizeof(buf), 10);
	assert_int_equal(dmamap_dev_write(&f->dev, ha, buf, sizeof(buf)), 0);
	assert_int_equal(check_pattern(a, 128, 10), 0);
	dma_pool_free(pool, a, ha);

	assert_ptr_equal(dma_pool_zalloc(pool, GFP_KERNEL, &ha), a);
	assert_true(all_zero(a, 128));
	memset(buf, 0xee, sizeof(buf));
	assert_int_equal(dmamap_dev_read(&f->dev, ha, buf, sizeof(buf)), 0);
	assert_true(all_zero(buf, sizeof(buf)));
	dma_pool_free(pool, a, ha);
	dma_pool_destroy(pool);
	f->dev.dma_coherent = false;
}

/* ------------------------------------------------------- reuse, growth */

static void test_freed_blocks_are_reused(void **state)
{
	struct fx *f = *state;
	enum { PER_PAGE = 8 };
	struct dma_pool *pool = mkpool(f, 512, 0, 0);
	void *va[PER_PAGE], *p;
	dma_addr_t h[PER_PAGE], hp;

	va[0] = xalloc(pool, GFP_KERNEL, &h[0]);
	dma_pool_free(pool, va[0], h[0]);
	p = xalloc(pool, GFP_KERNEL, &hp);
	assert_ptr_equal(p, va[0]);
	assert_int_equal(hp, h[0]);
	va[0] = p;
	for (int i = 1; i < PER_PAGE; i++)
		va[i] = xalloc(pool, GFP_KERNEL, &h[i]);
	assert_int_equal(stats_of(pool).pages, 1);
	assert_int_equal(stats_of(pool).blocks_total, PER_PAGE);

	/* a hole in a full page is filled before the pool grows */
	dma_pool_free(pool, va[5], h[5]);
	p = xalloc(pool, GFP_KERNEL, &hp);
	assert_ptr_equal(p, va[5]);
	assert_int_equal(hp, h[5]);
	assert_int_equal(stats_of(pool).pages, 1);

	for (int i = 0; i < PER_PAGE; i++)
		dma_pool_free(pool, va[i], h[i]);
	for (int i = 0; i < PER_PAGE; i++)
		va[i] = xalloc(pool, GFP_KERNEL, &h[i]);
	assert_int_equal(stats_of(pool).pages, 1);
	for (int i = 0; i < PER_PAGE; i++)
		dma_pool_free(pool, va[i], h[i]);
	dma_pool_destroy(pool);
}

static void test_growth_and_high_water(void **state)
{
	struct fx *f = *state;
	enum { N = 13 };
	struct dma_pool *pool = mkpool(f, 1024, 0, 0); /* 4 blocks a page */
	struct dmamap_dma_pool_stats st;
	void *va[N];
	dma_addr_t h[N];
	unsigned long pages_now;

	for (int i = 0; i < 10; i++)
		va[i] = xalloc(pool, GFP_KERNEL, &h[i]);
	st = stats_of(pool);
	assert_int_equal(st.block_size, 1024);
	assert_int_equal(st.pages, 3);
	assert_int_equal(st.blocks_total, 12);
	assert_int_equal(st.blocks_in_use, 10);
	assert_int_equal(st.high_water, 10);
	pages_now = nfree_pages(f->m);
	assert_int_equal(f->base_free - pages_now, 3); /* one machine page per 4 KiB allocation */

	for (int i = 0; i < 6; i++)
		dma_pool_free(pool, va[i], h[i]);
	st = stats_of(pool);
	assert_int_equal(st.blocks_in_use, 4);
	assert_int_equal(st.high_water, 10);
	assert_int_equal(st.pages, 3);
	assert_int_equal(nfree_pages(f->m), pages_now); /* freeing blocks frees no page */

	for (int i = 0; i < 2; i++)
		va[i] = xalloc(pool, GFP_KERNEL, &h[i]);
	st = stats_of(pool);
	assert_int_equal(st.blocks_in_use, 6);
	assert_int_equal(st.high_water, 10);
	assert_int_equal(st.pages, 3);

	for (int i = 2; i < 6; i++)
		va[i] = xalloc(pool, GFP_KERNEL, &h[i]);
	for (int i = 10; i < N; i++)
		va[i] = xalloc(pool, GFP_KERNEL, &h[i]);
	st = stats_of(pool);
	assert_int_equal(st.blocks_in_use, 13);
	assert_int_equal(st.high_water, 13);
	assert_int_equal(st.pages, 4);
	assert_int_equal(st.blocks_total, 16);

	for (int i = 0; i < N; i++)
		dma_pool_free(pool, va[i], h[i]);
	st = stats_of(pool);
	assert_int_equal(st.blocks_in_use, 0);
	assert_int_equal(st.high_water, 13);
	dma_pool_destroy(pool);
	assert_int_equal(nfree_pages(f->m), f->base_free);
}

static void test_big_blocks(void **state)
{
	struct fx *f = *state;
	const struct {
		size_t size, align;
		unsigned long pages_each; /* machine pages per pool page */
	} cases[] = {
		{ 2049, 0, 1 }, { 4096, 4096, 1 }, { 5000, 0, 2 }, { 12000, 0, 3 },
	};
	enum { N = 3 };

	for (size_t c = 0; c < ARRAY_SIZE(cases); c++) {
		struct dma_pool *pool = mkpool(f, cases[c].size, cases[c].align, 0);
		void *va[N];
		dma_addr_t h[N];

		for (int i = 0; i < N; i++) {
			va[i] = xalloc(pool, GFP_KERNEL, &h[i]);
			fill_pattern(va[i], cases[c].size, (unsigned)(i + 100));
		}
		assert_int_equal(stats_of(pool).pages, N);
		assert_int_equal(stats_of(pool).blocks_total, N);
		assert_int_equal(f->base_free - nfree_pages(f->m), N * cases[c].pages_each);
		for (int i = 0; i < N; i++) {
			assert_device_sees(f, h[i], cases[c].size, (unsigned)(i + 100));
			dma_pool_free(pool, va[i], h[i]);
		}
		dma_pool_destroy(pool);
		assert_int_equal(nfree_pages(f->m), f->base_free);
	}
}

/* GFP_ATOMIC growth comes from the machine's atomic pool and goes back to it. */
static void test_atomic_growth(void **state)
{
	struct fx *f = *state;
	struct dmamap_coherent_stats before, during, after;
	struct dma_pool *pool = mkpool(f, 64, 0, 0);
	void *a;
	dma_addr_t ha;

	dmamap_coherent_stats(f->m, &before);
	a = xalloc(pool, GFP_ATOMIC | __GFP_ZERO, &ha);
	dmamap_coherent_stats(f->m, &during);
	assert_int_equal(during.from_atomic_pool, before.from_atomic_pool + 1);
	assert_int_equal(during.atomic_pool_free, before.atomic_pool_free - PAGE_SIZE);
	assert_true(all_zero(a, 64));
	fill_pattern(a, 64, 77);
	assert_device_sees(f, ha, 64, 77);
	dma_pool_free(pool, a, ha);
	dma_pool_destroy(pool);
	dmamap_coherent_stats(f->m, &after);
	assert_int_equal(after.atomic_pool_free, before.atomic_pool_free);
}

/* ------------------------------------------------------------- zeroing */

static void test_zeroed_blocks_after_dirty_free(void **state)
{
	struct fx *f = *state;
	struct dma_pool *pool = mkpool(f, 200, 0, 0);
	unsigned char buf[200];
	void *a, *p;
	dma_addr_t ha, hp;

	a = xalloc(pool, GFP_KERNEL, &ha);
	memset(a, 0xa5, 200);                                           /* the CPU dirties it */
	assert_int_equal(dmamap_dev_fill(&f->dev, ha + 100, 0x5a, 100), 0); /* and the device */
	dma_pool_free(pool, a, ha);

	p = xalloc(pool, GFP_KERNEL | __GFP_ZERO, &hp);
	assert_ptr_equal(p, a); /* the very block that was dirtied */
	assert_int_equal(hp, ha);
	assert_true(all_zero(p, 200));
	memset(buf, 0xee, sizeof(buf));
	assert_int_equal(dmamap_dev_read(&f->dev, hp, buf, sizeof(buf)), 0);
	assert_true(all_zero(buf, sizeof(buf)));

	memset(p, 0xc3, 200);
	dma_pool_free(pool, p, hp);
	p = dma_pool_zalloc(pool, GFP_KERNEL, &hp);
	assert_ptr_equal(p, a);
	assert_true(all_zero(p, 200));
	assert_int_equal(dmamap_dev_read(&f->dev, hp, buf, sizeof(buf)), 0);
	assert_true(all_zero(buf, sizeof(buf)));
	dma_pool_free(pool, p, hp);
	dma_pool_destroy(pool);
}

/* ------------------------------------------------------------ bad frees */

static void expect_refused_free(struct fx *f, struct dma_pool *pool, void *va, dma_addr_t h)
{
	struct dmamap_dma_pool_stats before = stats_of(pool), after;
	struct capture c;

	capture_start(&c, f->m);
	dma_pool_free(pool, va, h);
	capture_stop(f->m);
	assert_int_equal(c.reports, 1);
	assert_int_equal(c.by_kind[DMAMAP_REPORT_API_MISUSE], 1);
	assert_string_equal(c.last_device, "pooldev");
	after = stats_of(pool);
	assert_stats_equal(&before, &after);
}

static void test_bad_frees_are_reported_and_refused(void **state)
{
	struct fx *f = *state;
	struct dma_pool *pa = mkpool(f, 64, 0, 0), *pb = mkpool(f, 64, 0, 0);
	void *a1, *a2, *b1, *x, *y;
	dma_addr_t h1, h2, hb1, hx, hy;
	unsigned long pages_now;
	int local;
	struct capture cg;

	a1 = xalloc(pa, GFP_KERNEL, &h1);
	a2 = xalloc(pa, GFP_KERNEL, &h2);
	b1 = xalloc(pb, GFP_KERNEL, &hb1);
	fill_pattern(a1, 64, 1);
	fill_pattern(a2, 64, 2);
	fill_pattern(b1, 64, 3);
	pages_now = nfree_pages(f->m);

	expect_refused_free(f, pa, a1, h2);                        /* the other block's handle */
	expect_refused_free(f, pa, a1, h1 + 8);                    /* a handle inside the block */
	expect_refused_free(f, pa, a1, h1 + PAGE_SIZE);
	expect_refused_free(f, pa, (char *)a1 + 8, h1 + 8);        /* a pointer inside a block */
	expect_refused_free(f, pa, (char *)a1 + 63, h1 + 63);
	expect_refused_free(f, pa, b1, hb1);                       /* a block of another pool */
	expect_refused_free(f, pa, NULL, 0);
	expect_refused_free(f, pa, &local, h1);                    /* not pool memory at all */

	/* double free */
	dma_pool_free(pa, a2, h2);
	expect_refused_free(f, pa, a2, h2);
	/* a block that was never handed out */
	expect_refused_free(f, pa, (char *)a1 + 128, h1 + 128);

	/* nothing moved: the live blocks kept their data and are still usable */
	assert_int_equal(nfree_pages(f->m), pages_now);
	assert_int_equal(check_pattern(a1, 64, 1), 0);
	assert_device_sees(f, h1, 64, 1);
	assert_int_equal(check_pattern(b1, 64, 3), 0);
	assert_device_sees(f, hb1, 64, 3);
	fill_pattern(a1, 64, 11);
	assert_device_sees(f, h1, 64, 11);
	assert_int_equal(stats_of(pa).blocks_in_use, 1);

	/* the double-freed block comes back once, not twice */
	x = xalloc(pa, GFP_KERNEL, &hx);
	y = xalloc(pa, GFP_KERNEL, &hy);
	assert_ptr_not_equal(x, y);
	assert_ptr_not_equal(x, a1);
	assert_ptr_not_equal(y, a1);
	assert_true(x == a2 || y == a2);

	/* a NULL pool is reported too (no machine to charge it to) */
	capture_start(&cg, NULL);
	dma_pool_free(NULL, a1, h1);
	capture_stop(NULL);
	assert_int_equal(cg.by_kind[DMAMAP_REPORT_BAD_INPUT], 1);
	assert_int_equal(check_pattern(a1, 64, 11), 0);

	dma_pool_free(pa, a1, h1);
	dma_pool_free(pa, x, hx);
	dma_pool_free(pa, y, hy);
	dma_pool_free(pb, b1, hb1);
	assert_int_equal(stats_of(pa).blocks_in_use, 0);
	assert_int_equal(stats_of(pb).blocks_in_use, 0);
	dma_pool_destroy(pa);
	dma_pool_destroy(pb);
}

static void test_null_arguments(void **state)
{
	struct fx *f = *state;
	struct dma_pool *pool = mkpool(f, 64, 0, 0);
	struct dmamap_dma_pool_stats st;
	struct capture cm, cg;
	dma_addr_t h = 0;

	capture_start(&cm, f->m);
	capture_start(&cg, NULL);
	dma_pool_destroy(NULL); /* ignored, like free(NULL) */
	assert_int_equal(cm.reports + cg.reports, 0);

	assert_null(dma_pool_alloc(NULL, GFP_KERNEL, &h));
	assert_int_equal(h, DMA_MAPPING_ERROR);
	assert_int_equal(cg.by_kind[DMAMAP_REPORT_BAD_INPUT], 1);

	assert_null(dma_pool_alloc(pool, GFP_KERNEL, NULL));
	assert_int_equal(cm.by_kind[DMAMAP_REPORT_BAD_INPUT], 1);
	assert_null(dma_pool_zalloc(pool, GFP_KERNEL, NULL));
	assert_int_equal(cm.by_kind[DMAMAP_REPORT_BAD_INPUT], 2);

	memset(&st, 0xff, sizeof(st));
	dmamap_dma_pool_stats(NULL, &st);
	assert_int_equal(cg.by_kind[DMAMAP_REPORT_BAD_INPUT], 2);
	assert_int_equal(st.block_size, 0);
	assert_int_equal(st.pages, 0);
	dmamap_dma_pool_stats(pool, NULL);
	assert_int_equal(cm.by_kind[DMAMAP_REPORT_BAD_INPUT], 3);
	capture_stop(NULL);
	capture_stop(f->m);

	assert_int_equal(stats_of(pool).pages, 0);
	assert_int_equal(nfree_pages(f->m), f->base_free);
	dma_pool_destroy(pool);
}

/* ------------------------------------------------------------- destroy */

static void test_destroy_with_blocks_in_use_reports_leak(void **state)
{
	struct fx *f = *state;
	struct dma_pool *pool = mkpool(f, 1024, 0, 0);
	struct capture c;
	void *va[6];
	dma_addr_t h[6];

	for (int i = 0; i < 6; i++)
		va[i] = xalloc(pool, GFP_KERNEL, &h[i]);
	dma_pool_free(pool, va[2], h[2]);
	assert_int_equal(f->base_free - nfree_pages(f->m), 2);

	/* the DMA-API checker lists each block with the line that took it */
	capture_start(&c, f->m);
	dma_pool_destroy(pool);
	capture_stop(f->m);
	assert_int_equal(c.reports, 5);
	assert_int_equal(c.by_kind[DMAMAP_REPORT_LEAK], 5);
	for (int i = 0; i < 5; i++) {
		assert_int_equal(c.rec[i].kind, DMAMAP_REPORT_LEAK);
		assert_string_equal(c.rec[i].map_file, c.rec[0].map_file);
		assert_non_null(strstr(c.rec[i].map_file, "test-dmapool.c"));
		assert_non_null(strstr(c.rec[i].message, "dma_pool_destroy"));
	}
	/* every page went back anyway */
	assert_int_equal(nfree_pages(f->m), f->base_free);

	/* without the checker, one summary */
	pool = mkpool(f, 1024, 0, 0);
	va[0] = xalloc(pool, GFP_KERNEL, &h[0]);
	va[1] = xalloc(pool, GFP_KERNEL, &h[1]);
	assert_int_equal(dmamap_checker_enable(f->m, false), 0);
	capture_start(&c, f->m);
	dma_pool_destroy(pool);
	capture_stop(f->m);
	assert_int_equal(dmamap_checker_enable(f->m, true), 0);
	assert_int_equal(c.reports, 1);
	assert_int_equal(c.by_kind[DMAMAP_REPORT_LEAK], 1);
	assert_non_null(strstr(c.last, "2 blocks"));
	assert_non_null(strstr(c.last, "testpool"));
	assert_int_equal(nfree_pages(f->m), f->base_free);
}

static void test_destroy_clean_pool_is_silent(void **state)
{
	struct fx *f = *state;
	struct dma_pool *pool = mkpool(f, 32, 0, 0);
	struct capture c;
	void *a;
	dma_addr_t ha;

	a = xalloc(pool, GFP_KERNEL, &ha);
	dma_pool_free(pool, a, ha);
	capture_start(&c, f->m);
	dma_pool_destroy(pool);
	capture_stop(f->m);
	assert_int_equal(c.reports, 0);
	assert_int_equal(nfree_pages(f->m), f->base_free);
}

/* ------------------------------------------------------ fault injection */

static void test_pool_fault_fails_next_alloc_cleanly(void **state)
{
	struct fx *f = *state;
	struct dma_pool *pool = mkpool(f, 64, 0, 0);
	struct dmamap_dma_pool_stats before, after;
	unsigned long reports, pages_now;
	void *a, *b;
	dma_addr_t ha, hb;

	/* on an empty pool: no page is taken */
	assert_int_equal(dmamap_fault_inject(f->m, DMAMAP_FAULT_POOL, 1, 0), 0);
	hb = 0;
	assert_null(dma_pool_alloc(pool, GFP_KERNEL, &hb));
	assert_int_equal(hb, DMA_MAPPING_ERROR);
	assert_int_equal(stats_of(pool).pages, 0);
	assert_int_equal(nfree_pages(f->m), f->base_free);

	/* on a pool with free blocks */
	a = xalloc(pool, GFP_KERNEL, &ha);
	fill_pattern(a, 64, 5);
	before = stats_of(pool);
	pages_now = nfree_pages(f->m);
	reports = dmamap_report_count(f->m);
	assert_int_equal(dmamap_fault_inject(f->m, DMAMAP_FAULT_POOL, 1, 0), 0);
	hb = 0;
	assert_null(dma_pool_alloc(pool, GFP_KERNEL | __GFP_ZERO, &hb));
	assert_int_equal(hb, DMA_MAPPING_ERROR);
	after = stats_of(pool);
	assert_stats_equal(&before, &after);
	assert_int_equal(nfree_pages(f->m), pages_now);
	assert_int_equal(dmamap_report_count(f->m), reports);
	assert_int_equal(dmamap_fault_injected(f->m, DMAMAP_FAULT_POOL), 2);
	assert_int_equal(check_pattern(a, 64, 5), 0);

	/* only once */
	b = xalloc(pool, GFP_KERNEL, &hb);
	assert_ptr_not_equal(a, b);
	dma_pool_free(pool, a, ha);
	dma_pool_free(pool, b, hb);
	dma_pool_destroy(pool);
}

/*
 * The pool must grow and each step of growing fails in turn (the page
 * allocator, the uncached remap, host bookkeeping): every failure returns
 * NULL with the pool and the machine as they were, and the next try works.
 */
static void test_growth_failures_unwind(void **state)
{
	struct fx *f = *state;
	const enum dmamap_fault_site sites[] = { DMAMAP_FAULT_PAGE_ALLOC, DMAMAP_FAULT_REMAP,
						 DMAMAP_FAULT_HOST_ALLOC };

	for (size_t s = 0; s < ARRAY_SIZE(sites); s++) {
		struct dma_pool *pool = mkpool(f, 2048, 0, 0); /* two blocks a page */
		void *va[3];
		dma_addr_t h[3];
		unsigned long nth, failures = 0;
		struct capture c;

		va[0] = xalloc(pool, GFP_KERNEL, &h[0]);
		va[1] = xalloc(pool, GFP_KERNEL, &h[1]);
		fill_pattern(va[0], 2048, 1);
		for (nth = 1; nth < 64; nth++) {
			struct dmamap_dma_pool_stats before = stats_of(pool), after;
			unsigned long pages_now = nfree_pages(f->m), reports = dmamap_report_count(f->m);

			capture_start(&c, f->m);
			assert_int_equal(dmamap_fault_inject(f->m, sites[s], nth, 0), 0);
			h[2] = 0;
			va[2] = dma_pool_alloc(pool, GFP_KERNEL, &h[2]);
			assert_int_equal(dmamap_fault_inject(f->m, sites[s], 0, 0), 0);
			capture_stop(f->m);
			assert_int_equal(c.reports, 0);
			if (va[2])
				break;
			failures++;
			assert_int_equal(h[2], DMA_MAPPING_ERROR);
			after = stats_of(pool);
			assert_stats_equal(&before, &after);
			assert_int_equal(nfree_pages(f->m), pages_now);
			assert_int_equal(dmamap_report_count(f->m), reports);
		}
		assert_non_null(va[2]);
		assert_true(failures >= 1); /* the site is on the growth path */
		assert_int_equal(stats_of(pool).pages, 2);
		assert_int_equal(check_pattern(va[0], 2048, 1), 0);
		for (int i = 0; i < 3; i++)
			dma_pool_free(pool, va[i], h[i]);
		dma_pool_destroy(pool);
		assert_int_equal(nfree_pages(f->m), f->base_free);
	}
}

/* ------------------------------------------------------------- threads */

enum { THREAD_BATCH = 8, THREAD_LIVE_MAX = 2 * THREAD_BATCH, BLOCK = 64 };

struct shared {
	struct fx *f;
	struct dma_pool *pool;
	unsigned iterations;
	pthread_mutex_t lock;
	void *live[THREAD_LIVE_MAX];  /* blocks handed out now, by either thread */
	atomic_uint errors;
	atomic_uint alloc_failures;
};

struct worker {
	struct shared *sh;
	unsigned id;
};

/* Record @p as handed out; false if it already was (handed out twice). */
static bool claim(struct shared *sh, void *p)
{
	bool ok = true;
	int slot = -1;

	pthread_mutex_lock(&sh->lock);
	for (int i = 0; i < THREAD_LIVE_MAX; i++) {
		if (sh->live[i] == p)
			ok = false;
		if (!sh->live[i] && slot < 0)
			slot = i;
	}
	if (ok && slot >= 0)
		sh->live[slot] = p;
	else
		ok = false;
	pthread_mutex_unlock(&sh->lock);
	return ok;
}

static void unclaim(struct shared *sh, void *p)
{
	pthread_mutex_lock(&sh->lock);
	for (int i = 0; i < THREAD_LIVE_MAX; i++)
		if (sh->live[i] == p)
			sh->live[i] = NULL;
	pthread_mutex_unlock(&sh->lock);
}

static void *worker_fn(void *arg)
{
	struct worker *w = arg;
	struct shared *sh = w->sh;
	void *va[THREAD_BATCH];
	dma_addr_t h[THREAD_BATCH];

	for (unsigned it = 0; it < sh->iterations; it++) {
		unsigned n = 1 + (it * 7 + w->id) % THREAD_BATCH;

		for (unsigned k = 0; k < n; k++) {
			va[k] = dma_pool_alloc(sh->pool, GFP_KERNEL, &h[k]);
			if (!va[k]) {
				atomic_fetch_add(&sh->alloc_failures, 1);
				n = k;
				break;
			}
			if (!claim(sh, va[k]))
				atomic_fetch_add(&sh->errors, 1);
			/* the thread's id and the block's number, all over the block */
			memset(va[k], (int)w->id, BLOCK);
			((unsigned char *)va[k])[1] = (unsigned char)k;
			((unsigned char *)va[k])[2] = (unsigned char)it;
		}
		for (unsigned k = 0; k < n; k++) {
			unsigned char *b = va[k], dev[BLOCK];

			if (b[0] != w->id || b[1] != (unsigned char)k || b[2] != (unsigned char)it ||
			    b[BLOCK - 1] != w->id)
				atomic_fetch_add(&sh->errors, 1);
			if (k == 0 && (dmamap_dev_read(&sh->f->dev, h[k], dev, BLOCK) || memcmp(dev, b, BLOCK)))
				atomic_fetch_add(&sh->errors, 1);
		}
		for (unsigned k = 0; k < n; k++) {
			unclaim(sh, va[k]);
			dma_pool_free(sh->pool, va[k], h[k]);
		}
	}
	return NULL;
}

static void test_two_threads_share_a_pool(void **state)
{
	struct fx *f = *state;
	struct shared sh;
	struct worker w[2];
	pthread_t t[2];
	struct dmamap_dma_pool_stats st;
	unsigned long reports = dmamap_report_count(f->m);

	memset(&sh, 0, sizeof(sh));
	sh.f = f;
	sh.pool = mkpool(f, BLOCK, 0, 0);
	sh.iterations = under_valgrind() ? 300 : 20000;
	pthread_mutex_init(&sh.lock, NULL);
	atomic_init(&sh.errors, 0);
	atomic_init(&sh.alloc_failures, 0);
	for (unsigned i = 0; i < 2; i++) {
		w[i].sh = &sh;
		w[i].id = i + 1;
		assert_int_equal(pthread_create(&t[i], NULL, worker_fn, &w[i]), 0);
	}
	for (unsigned i = 0; i < 2; i++)
		assert_int_equal(pthread_join(t[i], NULL), 0);

	assert_int_equal(atomic_load(&sh.errors), 0);
	assert_int_equal(atomic_load(&sh.alloc_failures), 0);
	st = stats_of(sh.pool);
	assert_int_equal(st.blocks_in_use, 0);
	assert_true(st.high_water >= THREAD_BATCH && st.high_water <= THREAD_LIVE_MAX);
	assert_true(st.pages >= 1 && st.pages <= 2);
	assert_int_equal(dmamap_report_count(f->m), reports);
	dma_pool_destroy(sh.pool);
	pthread_mutex_destroy(&sh.lock);
}

/*
 * A pool still alive when its device is released: its memory goes back then
 * (one leak report), later allocations are refused, frees of its old blocks
 * too, and dma_pool_destroy() only frees it.
 */
static void test_pool_outlives_its_device(void **state)
{
	struct dmamap_machine *m = test_machine(RAM_MIB, NULL);
	struct device dev = { 0 };
	struct dma_pool *pool;
	unsigned long free0;
	struct capture c;
	dma_addr_t h;
	void *blk;

	(void)state;
	assert_int_equal(dmamap_device_init(&dev, m, "gone"), 0);
	free0 = nfree_pages(m);
	pool = dma_pool_create("orphan", &dev, 200, 32, 0);
	assert_non_null(pool);
	blk = dma_pool_alloc(pool, GFP_KERNEL, &h);
	assert_non_null(blk);
	capture_start(&c, m);
	dmamap_device_release(&dev);
	/* the pool, and (by the DMA-API checker) the block the driver left in it */
	assert_int_equal(c.by_kind[DMAMAP_REPORT_LEAK], dmamap_checker_enabled(m) ? 2 : 1);
	assert_non_null(strstr(c.last, "orphan"));
	assert_int_equal(nfree_pages(m), free0); /* the pool's page came back with the device */
	assert_machine_consistent(m);
	assert_null(dma_pool_alloc(pool, GFP_KERNEL, &h));
	assert_int_equal(h, DMA_MAPPING_ERROR);
	dma_pool_free(pool, blk, h);
	assert_int_equal(c.by_kind[DMAMAP_REPORT_API_MISUSE], 2);
	dma_pool_destroy(pool);
	assert_int_equal(c.reports, c.by_kind[DMAMAP_REPORT_LEAK] + 2);
	assert_int_equal(nfree_pages(m), free0);
	capture_stop(m);
	test_machine_destroy(m);
}

/* A pool alive when its machine is destroyed: calls on it are refused (reported process-wide), destroy frees it. */
static void test_pool_outlives_its_machine(void **state)
{
	struct dmamap_machine *m = test_machine(RAM_MIB, NULL);
	struct device dev = { 0 };
	struct dmamap_dma_pool_stats st;
	struct dma_pool *pool;
	struct capture c, cg;
	dma_addr_t h;
	void *blk;

	(void)state;
	assert_int_equal(dmamap_device_init(&dev, m, "dev"), 0);
	pool = dma_pool_create("stays", &dev, 64, 8, 0);
	assert_non_null(pool);
	blk = dma_pool_alloc(pool, GFP_KERNEL, &h);
	assert_non_null(blk);
	capture_start(&c, m);
	test_machine_destroy(m); /* the device, then the pool's memory, reported */
	assert_true(c.by_kind[DMAMAP_REPORT_LEAK] >= 2);
	capture_start(&cg, NULL);
	assert_null(dma_pool_alloc(pool, GFP_KERNEL, &h));
	dma_pool_free(pool, blk, h);
	assert_int_equal(cg.by_kind[DMAMAP_REPORT_API_MISUSE], 2);
	assert_non_null(strstr(cg.last, "machine has been destroyed"));
	dmamap_dma_pool_stats(pool, &st);
	assert_int_equal(st.blocks_in_use, 0);
	assert_int_equal(st.pages, 0);
	dma_pool_destroy(pool);
	assert_int_equal(cg.by_kind[DMAMAP_REPORT_API_MISUSE], 3);
	capture_stop(NULL);
}

/*
 * A pool destroyed twice -- with dma_pool_destroy() or dmam_pool_destroy(),
 * its machine destroyed in between or not -- is reported at the second call's
 * line, and nothing of it is read.
 */
static void test_pool_destroyed_twice_refused(void **state)
{
	struct dmamap_machine *m = test_machine(RAM_MIB, NULL);
	struct device dev = { 0 };
	struct dma_pool *pool;
	unsigned long before;
	struct capture c, cg;
	int l;

	(void)state;
	assert_int_equal(dmamap_device_init(&dev, m, "dev"), 0);
	capture_start(&c, m);
	pool = dma_pool_create("twice", &dev, 64, 8, 0);
	assert_non_null(pool);
	dma_pool_destroy(pool);
	capture_start(&cg, NULL);
	before = dmamap_report_count(NULL);
	dma_pool_destroy(pool); l = __LINE__;
	assert_int_equal(cg.reports, 1);
	assert_int_equal(cg.last_kind, DMAMAP_REPORT_BAD_INPUT);
	assert_non_null(strstr(cg.last, "dma_pool_destroy("));
	assert_non_null(strstr(cg.last, "): no live dma_pool (freed already?): nothing done"));
	assert_non_null(strstr(cg.last_file, "test-dmapool.c"));
	assert_int_equal(cg.last_line, l);
	assert_int_equal(dmamap_report_count(NULL), before + 1);

	pool = dmam_pool_create("managed", &dev, 64, 8, 0);
	assert_non_null(pool);
	dmam_pool_destroy(pool);
	dmam_pool_destroy(pool); l = __LINE__;
	assert_int_equal(cg.reports, 2);
	assert_int_equal(cg.last_kind, DMAMAP_REPORT_BAD_INPUT);
	assert_non_null(strstr(cg.last, "dmam_pool_destroy("));
	assert_int_equal(cg.last_line, l);
	assert_int_equal(c.reports, 0);

	pool = dma_pool_create("stays", &dev, 64, 8, 0);
	assert_non_null(pool);
	test_machine_destroy(m);
	assert_true(c.by_kind[DMAMAP_REPORT_LEAK] >= 1);
	capture_start(&cg, NULL);
	dma_pool_destroy(pool);
	assert_int_equal(cg.reports, 1);
	assert_int_equal(cg.last_kind, DMAMAP_REPORT_API_MISUSE);
	dma_pool_destroy(pool);
	assert_int_equal(cg.reports, 2);
	assert_int_equal(cg.last_kind, DMAMAP_REPORT_BAD_INPUT);
	assert_non_null(strstr(cg.last, "no live dma_pool (freed already?)"));
	capture_stop(NULL);
}

/* One call of each kind on @pool, which is no live pool: each is one process-wide report, and does nothing. */
static void assert_calls_refused(struct capture *cg, struct dma_pool *pool, void *blk, dma_addr_t hblk)
{
	struct dmamap_dma_pool_stats st;
	unsigned long before = cg->reports;
	dma_addr_t h;
	int l;

	h = 0;
	assert_null(dma_pool_alloc(pool, GFP_KERNEL, &h)); l = __LINE__;
	assert_int_equal(h, DMA_MAPPING_ERROR);
	assert_int_equal(cg->reports, before + 1);
	assert_int_equal(cg->last_kind, DMAMAP_REPORT_BAD_INPUT);
	assert_non_null(strstr(cg->last, "dma_pool_alloc("));
	assert_non_null(strstr(cg->last, "): no live dma_pool (freed already?): nothing done"));
	assert_non_null(strstr(cg->last_file, "test-dmapool.c"));
	assert_int_equal(cg->last_line, l);

	h = 0;
	assert_null(dma_pool_zalloc(pool, GFP_KERNEL, &h)); l = __LINE__;
	assert_int_equal(h, DMA_MAPPING_ERROR);
	assert_int_equal(cg->reports, before + 2);
	assert_int_equal(cg->last_kind, DMAMAP_REPORT_BAD_INPUT);
	assert_non_null(strstr(cg->last, "dma_pool_alloc("));
	assert_int_equal(cg->last_line, l);

	/* the plain functions, as a caller that does not see the macros reaches them */
	h = 0;
	assert_null((dma_pool_alloc)(pool, GFP_ATOMIC, &h));
	assert_int_equal(h, DMA_MAPPING_ERROR);
	assert_null((dma_pool_zalloc)(pool, GFP_ATOMIC, NULL));
	(dma_pool_free)(pool, blk, hblk);
	assert_int_equal(cg->reports, before + 5);
	assert_int_equal(cg->last_kind, DMAMAP_REPORT_BAD_INPUT);

	dma_pool_free(pool, blk, hblk); l = __LINE__;
	assert_int_equal(cg->reports, before + 6);
	assert_int_equal(cg->last_kind, DMAMAP_REPORT_BAD_INPUT);
	assert_non_null(strstr(cg->last, "dma_pool_free("));
	assert_non_null(strstr(cg->last, "): no live dma_pool (freed already?): nothing done"));
	assert_int_equal(cg->last_line, l);

	memset(&st, 0xff, sizeof(st));
	dmamap_dma_pool_stats(pool, &st);
	assert_int_equal(cg->reports, before + 7);
	assert_int_equal(cg->last_kind, DMAMAP_REPORT_BAD_INPUT);
	assert_non_null(strstr(cg->last, "dmamap_dma_pool_stats("));
	assert_int_equal(st.block_size, 0);
	assert_int_equal(st.blocks_in_use, 0);
	assert_int_equal(st.blocks_total, 0);
	assert_int_equal(st.pages, 0);
	assert_int_equal(st.high_water, 0);
	assert_int_equal(cg->by_kind[DMAMAP_REPORT_BAD_INPUT], cg->reports); /* nothing else said */
}

/*
 * A live object of another kind is no pool, whichever was looked up last:
 * an IOMMU domain given as a pool is refused as one freed already, and the
 * domain and the pool stay as they were.
 */
static void test_pool_call_on_another_kind_refused(void **state)
{
	struct dmamap_machine *m = test_machine(RAM_MIB, NULL);
	struct device dev = { 0 };
	struct iommu_domain *d = iommu_domain_alloc(m);
	struct page *pg = dmamap_alloc_pages(m, GFP_KERNEL, 0);
	struct dma_pool *pool;
	struct capture cg;
	dma_addr_t h, hb;
	void *blk;

	(void)state;
	assert_non_null(d);
	assert_non_null(pg);
	assert_int_equal(dmamap_device_init(&dev, m, "dev"), 0);
	pool = dma_pool_create("real", &dev, 64, 8, 0);
	assert_non_null(pool);
	blk = dma_pool_alloc(pool, GFP_KERNEL, &hb);
	assert_non_null(blk);
	/* the domain was just looked up as a domain, the pool as a pool */
	assert_int_equal(iommu_map(d, 0x10000, page_to_phys(pg), PAGE_SIZE, IOMMU_READ), 0);
	capture_start(&cg, NULL);
	h = 0;
	assert_null(dma_pool_alloc((struct dma_pool *)d, GFP_KERNEL, &h));
	assert_int_equal(h, DMA_MAPPING_ERROR);
	assert_int_equal(cg.reports, 1);
	assert_int_equal(cg.last_kind, DMAMAP_REPORT_BAD_INPUT);
	assert_non_null(strstr(cg.last, "): no live dma_pool (freed already?): nothing done"));
	/* and the other way round, right after the pool's own lookup */
	assert_int_equal(stats_of(pool).blocks_in_use, 1);
	assert_int_equal(iommu_map((struct iommu_domain *)pool, 0x20000, page_to_phys(pg), PAGE_SIZE,
				   IOMMU_READ), -EINVAL);
	assert_int_equal(cg.reports, 2);
	assert_non_null(strstr(cg.last, "no live IOMMU domain"));
	capture_stop(NULL);
	/* both intact */
	assert_int_equal(iommu_iova_to_phys(d, 0x10000), page_to_phys(pg));
	assert_int_equal(iommu_iova_to_phys(d, 0x20000), 0);
	assert_int_equal(stats_of(pool).blocks_in_use, 1);
	dma_pool_free(pool, blk, hb);
	dma_pool_destroy(pool);
	assert_int_equal(iommu_unmap(d, 0x10000, PAGE_SIZE), PAGE_SIZE);
	iommu_domain_free(d);
	dmamap_free_pages(pg, 0);
	dmamap_device_release(&dev);
	test_machine_destroy(m);
}

/*
 * dma_pool_alloc(), dma_pool_zalloc(), dma_pool_free() and the stats of a
 * pool destroyed already -- by dma_pool_destroy(), dmam_pool_destroy() or
 * its device's release, on a live machine or with the machine destroyed
 * in between -- are each one process-wide report naming the call and its
 * line; nothing of the pool is read, and nothing else changes: another pool
 * and its block, the free pages, the machine's reports.
 */
static void test_pool_used_after_destroy_refused(void **state)
{
	struct dmamap_machine *m = test_machine(RAM_MIB, NULL);
	struct dmamap_dma_pool_stats kst0, kst1;
	struct device dev = { 0 }, mdev = { 0 };
	struct dma_pool *keep, *gone, *managed, *held;
	dma_addr_t hk, hg, hm, hh;
	unsigned long free0;
	struct capture c, cg;
	void *kblk, *gblk, *mblk, *hblk;

	(void)state;
	assert_int_equal(dmamap_device_init(&dev, m, "dev"), 0);
	assert_int_equal(dmamap_device_init(&mdev, m, "mdev"), 0);
	capture_start(&c, m);
	keep = dma_pool_create("keep", &dev, 64, 8, 0);
	gone = dma_pool_create("gone", &dev, 64, 8, 0);
	managed = dmam_pool_create("managed", &dev, 128, 8, 0);
	held = dmam_pool_create("held", &mdev, 32, 8, 0);
	assert_non_null(keep);
	assert_non_null(gone);
	assert_non_null(managed);
	assert_non_null(held);
	kblk = xalloc(keep, GFP_KERNEL, &hk);
	fill_pattern(kblk, 64, 31);
	gblk = xalloc(gone, GFP_KERNEL, &hg);
	dma_pool_free(gone, gblk, hg);
	mblk = xalloc(managed, GFP_KERNEL, &hm);
	dma_pool_free(managed, mblk, hm);
	hblk = xalloc(held, GFP_KERNEL, &hh);
	dma_pool_free(held, hblk, hh);
	dma_pool_destroy(gone);
	dmam_pool_destroy(managed);
	dmamap_device_release(&mdev); /* its managed pool goes with it */
	assert_int_equal(c.reports, 0);
	free0 = nfree_pages(m);
	kst0 = stats_of(keep);

	/* a live machine */
	capture_start(&cg, NULL);
	assert_calls_refused(&cg, gone, gblk, hg);
	assert_calls_refused(&cg, managed, mblk, hm);
	assert_calls_refused(&cg, held, hblk, hh);
	capture_stop(NULL);
	assert_int_equal(c.reports, 0);
	assert_int_equal(nfree_pages(m), free0);
	kst1 = stats_of(keep);
	assert_stats_equal(&kst0, &kst1);
	assert_int_equal(check_pattern(kblk, 64, 31), 0);
	{
		unsigned char buf[64];

		assert_int_equal(dmamap_dev_read(&dev, hk, buf, sizeof(buf)), 0);
		assert_int_equal(check_pattern(buf, sizeof(buf), 31), 0);
	}
	assert_machine_consistent(m);

	/* the same pools once their machine is gone, and a pool destroyed after its machine */
	dma_pool_free(keep, kblk, hk);
	dma_pool_destroy(keep);
	keep = dma_pool_create("dies", &dev, 64, 8, 0);
	assert_non_null(keep);
	test_machine_destroy(m);
	assert_true(c.by_kind[DMAMAP_REPORT_LEAK] >= 1); /* the pool left alive */
	capture_start(&cg, NULL);
	dma_pool_destroy(keep);
	assert_int_equal(cg.reports, 1);
	assert_int_equal(cg.last_kind, DMAMAP_REPORT_API_MISUSE);
	capture_start(&cg, NULL);
	assert_calls_refused(&cg, gone, gblk, hg);
	assert_calls_refused(&cg, managed, mblk, hm);
	assert_calls_refused(&cg, held, hblk, hh);
	assert_calls_refused(&cg, keep, kblk, hk);
	assert_int_equal(cg.reports, 28);
	capture_stop(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_create_rejects_bad_arguments, setup, teardown),
		cmocka_unit_test_setup_teardown(test_create_size_limits, setup, teardown),
		cmocka_unit_test_setup_teardown(test_create_host_alloc_failure, setup, teardown),
		cmocka_unit_test_setup_teardown(test_create_rounds_block_size, setup, teardown),
		cmocka_unit_test_setup_teardown(test_blocks_are_aligned_on_both_sides, setup, teardown),
		cmocka_unit_test_setup_teardown(test_blocks_never_cross_the_boundary, setup, teardown),
		cmocka_unit_test_setup_teardown(test_boundary_is_in_bus_terms, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unsatisfiable_bus_alignment_fails_cleanly, setup, teardown),
		cmocka_unit_test_setup_teardown(test_blocks_are_distinct_and_disjoint, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cpu_and_device_see_each_other_at_once, setup, teardown),
		cmocka_unit_test_setup_teardown(test_coherent_device, setup, teardown),
		cmocka_unit_test_setup_teardown(test_freed_blocks_are_reused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_growth_and_high_water, setup, teardown),
		cmocka_unit_test_setup_teardown(test_big_blocks, setup, teardown),
		cmocka_unit_test_setup_teardown(test_atomic_growth, setup, teardown),
		cmocka_unit_test_setup_teardown(test_zeroed_blocks_after_dirty_free, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_frees_are_reported_and_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_null_arguments, setup, teardown),
		cmocka_unit_test_setup_teardown(test_destroy_with_blocks_in_use_reports_leak, setup, teardown),
		cmocka_unit_test_setup_teardown(test_destroy_clean_pool_is_silent, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pool_fault_fails_next_alloc_cleanly, setup, teardown),
		cmocka_unit_test_setup_teardown(test_growth_failures_unwind, setup, teardown),
		cmocka_unit_test_setup_teardown(test_two_threads_share_a_pool, setup, teardown),
		cmocka_unit_test(test_pool_outlives_its_device),
		cmocka_unit_test(test_pool_outlives_its_machine),
		cmocka_unit_test(test_pool_destroyed_twice_refused),
		cmocka_unit_test(test_pool_call_on_another_kind_refused),
		cmocka_unit_test(test_pool_used_after_destroy_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
