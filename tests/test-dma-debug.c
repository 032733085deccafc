/* SPDX-License-Identifier: MIT */
/*
 * The DMA-API checker (src/dma-debug.c): what it tracks, its switch, and
 * what happens when it cannot track.
 */
#include "common.h"

struct fixture {
	struct dmamap_machine *m;
	struct device dev;
	struct page *pg;            /* an order-2 block */
	u8 *buf;
	struct capture cap;
};

static struct fixture F;

static int setup_with(void (*tweak)(struct dmamap_machine_config *cfg))
{
	memset(&F, 0, sizeof(F));
	F.m = test_machine(16, tweak);
	capture_start(&F.cap, F.m);
	assert_int_equal(dmamap_device_init(&F.dev, F.m, "dbgdev"), 0);
	F.pg = dmamap_alloc_pages(F.m, GFP_KERNEL | __GFP_ZERO, 2);
	assert_non_null(F.pg);
	F.buf = page_address(F.pg);
	dmamap_machine_set_current(F.m);
	return 0;
}

static int setup(void **state)
{
	(void)state;
	return setup_with(NULL);
}

/* kmalloc packs small objects 8-byte aligned, as on a kernel without a DMA alignment */
static void packed(struct dmamap_machine_config *cfg)
{
	cfg->kmalloc_packed = true;
}

static int setup_packed(void **state)
{
	(void)state;
	return setup_with(packed);
}

static int teardown(void **state)
{
	(void)state;
	dmamap_free_pages(F.pg, 2);
	dmamap_device_release(&F.dev);
	/* still captured: what a test leaked on purpose is reported at destroy, quietly */
	dmamap_machine_destroy(F.m);
	return 0;
}

static struct dmamap_checker_stats stats(void)
{
	struct dmamap_checker_stats st;

	dmamap_checker_stats(F.m, &st);
	return st;
}

static unsigned long stats_of_pool_in_use(struct dma_pool *pool)
{
	struct dmamap_dma_pool_stats st;

	dmamap_dma_pool_stats(pool, &st);
	return st.blocks_in_use;
}

static unsigned long dmamap_checker_stats_pool(struct dmamap_machine *m)
{
	struct dmamap_checker_stats st;

	dmamap_checker_stats(m, &st);
	return st.live_pool;
}

static void test_on_by_default(void **state)
{
	struct dmamap_checker_stats st;

	(void)state;
	assert_true(dmamap_checker_enabled(F.m));
	assert_false(dmamap_checker_enabled(NULL));
	assert_int_equal(dmamap_checker_enable(NULL, true), -EINVAL);
	assert_int_equal(dmamap_checker_enable(F.m, true), 0); /* already on */
	assert_true(dmamap_checker_enabled(F.m));
	memset(&st, 0xff, sizeof(st));
	dmamap_checker_stats(NULL, &st);
	assert_int_equal(st.live_single + st.live_page + st.live_sg + st.tracked + st.untracked_live, 0);
	dmamap_checker_stats(F.m, NULL); /* ignored */
	st = stats();
	assert_int_equal(st.live_single + st.live_page + st.live_sg + st.tracked + st.untracked_live, 0);
}

static void test_tracks_each_kind(void **state)
{
	struct scatterlist sgl[3];
	dma_addr_t a, b;
	int n;

	(void)state;
	a = dma_map_single(&F.dev, F.buf + 64, 100, DMA_TO_DEVICE);
	assert_false(dma_mapping_error(&F.dev, a));
	b = dma_map_page(&F.dev, F.pg, PAGE_SIZE + 128, 256, DMA_FROM_DEVICE);
	assert_false(dma_mapping_error(&F.dev, b));
	sg_init_table(sgl, 3);
	for (int i = 0; i < 3; i++)
		sg_set_buf(&sgl[i], F.buf + 2 * PAGE_SIZE + i * 512, 256);
	n = dma_map_sg(&F.dev, sgl, 3, DMA_BIDIRECTIONAL);
	assert_int_equal(n, 3);
	assert_int_equal(stats().live_single, 1);
	assert_int_equal(stats().live_page, 1);
	assert_int_equal(stats().live_sg, 1);
	assert_int_equal(stats().tracked, 3);

	dma_unmap_single(&F.dev, a, 100, DMA_TO_DEVICE);
	assert_int_equal(stats().live_single, 0);
	dma_unmap_page(&F.dev, b, 256, DMA_FROM_DEVICE);
	assert_int_equal(stats().live_page, 0);
	dma_unmap_sg(&F.dev, sgl, 3, DMA_BIDIRECTIONAL);
	assert_int_equal(stats().live_sg, 0);
	assert_int_equal(stats().tracked, 3);
	assert_int_equal(F.cap.reports, 0);
}

/* A mapping the ops refuse is not tracked. */
static void test_failed_map_not_tracked(void **state)
{
	dma_addr_t a;

	(void)state;
	*F.dev.dma_mask = DMA_BIT_MASK(24); /* below this machine's RAM: arm_dma_ops refuse */
	a = dma_map_single(&F.dev, F.buf, 64, DMA_TO_DEVICE);
	assert_true(a == DMA_MAPPING_ERROR);
	*F.dev.dma_mask = DMA_BIT_MASK(32);
	assert_int_equal(stats().live_single, 0);
	assert_int_equal(stats().tracked, 0);
}

/* Thousands of live mappings at once: all found again at unmap. */
static void test_thousands_live(void **state)
{
	enum { N = 4096 };
	struct page *big = dmamap_alloc_pages(F.m, GFP_KERNEL, 8); /* 1 MiB */
	dma_addr_t *h = calloc(N, sizeof(*h));
	u8 *va;

	(void)state;
	assert_non_null(big);
	assert_non_null(h);
	va = page_address(big);
	for (int i = 0; i < N; i++) {
		h[i] = dma_map_single(&F.dev, va + (size_t)i * 256, 200, DMA_FROM_DEVICE);
		assert_false(dma_mapping_error(&F.dev, h[i]));
	}
	assert_int_equal(stats().live_single, N);
	for (int i = N - 1; i >= 0; i--)
		dma_unmap_single(&F.dev, h[i], 200, DMA_FROM_DEVICE);
	assert_int_equal(stats().live_single, 0);
	assert_int_equal(F.cap.reports, 0);
	free(h);
	dmamap_free_pages(big, 8);
}

/* Off: nothing tracked, but the calls made meanwhile are counted, and guard switching back on. */
static void test_off_counts_and_guards(void **state)
{
	struct scatterlist sg;
	dma_addr_t a;

	(void)state;
	assert_int_equal(dmamap_checker_enable(F.m, false), 0);
	assert_false(dmamap_checker_enabled(F.m));
	assert_int_equal(dmamap_checker_enable(F.m, false), 0);
	a = dma_map_single(&F.dev, F.buf, 64, DMA_TO_DEVICE);
	sg_init_one(&sg, F.buf + PAGE_SIZE, 64);
	assert_int_equal(dma_map_sg(&F.dev, &sg, 1, DMA_TO_DEVICE), 1);
	assert_int_equal(stats().live_single, 0);
	assert_int_equal(stats().live_sg, 0);
	assert_int_equal(stats().tracked, 0);
	assert_int_equal(stats().untracked_live, 2);

	assert_int_equal(dmamap_checker_enable(F.m, true), -EBUSY);
	assert_false(dmamap_checker_enabled(F.m));
	dma_unmap_single(&F.dev, a, 64, DMA_TO_DEVICE);
	assert_int_equal(dmamap_checker_enable(F.m, true), -EBUSY);
	dma_unmap_sg(&F.dev, &sg, 1, DMA_TO_DEVICE);
	assert_int_equal(stats().untracked_live, 0);
	assert_int_equal(dmamap_checker_enable(F.m, true), 0);
	assert_true(dmamap_checker_enabled(F.m));

	a = dma_map_single(&F.dev, F.buf, 64, DMA_TO_DEVICE);
	assert_false(dma_mapping_error(&F.dev, a));
	assert_int_equal(stats().live_single, 1);
	dma_unmap_single(&F.dev, a, 64, DMA_TO_DEVICE);
	assert_int_equal(stats().live_single, 0);

	/* coherent buffers and pool blocks made while off guard the switch too */
	{
		struct dma_pool *pool = dma_pool_create("off", &F.dev, 64, 0, 0);
		dma_addr_t hc, hp;
		void *c, *p;

		assert_non_null(pool);
		assert_int_equal(dmamap_checker_enable(F.m, false), 0);
		c = dma_alloc_coherent(&F.dev, 100, &hc, GFP_KERNEL);
		p = dma_pool_alloc(pool, GFP_KERNEL, &hp);
		assert_non_null(c);
		assert_non_null(p);
		assert_int_equal(dmamap_checker_enable(F.m, true), -EBUSY);
		dma_free_coherent(&F.dev, 100, c, hc);
		assert_int_equal(dmamap_checker_enable(F.m, true), -EBUSY);
		dma_pool_free(pool, p, hp);
		dma_pool_destroy(pool); /* its page, made while off, goes too */
		assert_int_equal(stats().untracked_live, 0);
		assert_int_equal(dmamap_checker_enable(F.m, true), 0);
		assert_int_equal(F.cap.reports, 0);
	}
}

/*
 * Off, a release the ops refuse (reported, nothing changed) leaves its
 * object live: it still counts as untracked and still guards the switch, and
 * the right release, still made while off, works and counts it down.
 */
static void test_off_refused_release_stays_counted(void **state)
{
	struct dma_pool *pool = dma_pool_create("refused", &F.dev, 64, 0, 0);
	const dma_addr_t outside = 0xf0000000; /* no RAM of this machine answers there */
	struct scatterlist sg;
	dma_addr_t hc, ha, hb, hs, saved;
	void *c, *a, *b;
	unsigned long misuse, bad;

	(void)state;
	assert_non_null(pool);
	assert_int_equal(dmamap_checker_enable(F.m, false), 0);

	/* dma_free_coherent() with another size: the ops refuse it */
	c = dma_alloc_coherent(&F.dev, PAGE_SIZE, &hc, GFP_KERNEL);
	assert_non_null(c);
	assert_int_equal(stats().untracked_live, 1);
	misuse = F.cap.by_kind[DMAMAP_REPORT_API_MISUSE];
	dma_free_coherent(&F.dev, 2 * PAGE_SIZE, c, hc);
	assert_int_equal(F.cap.by_kind[DMAMAP_REPORT_API_MISUSE], misuse + 1);
	assert_int_equal(stats().untracked_live, 1);
	assert_int_equal(dmamap_checker_enable(F.m, true), -EBUSY);
	assert_false(dmamap_checker_enabled(F.m));

	/* a double dma_pool_free(): the pool refuses it, the block it names is gone already */
	a = dma_pool_alloc(pool, GFP_KERNEL, &ha);
	assert_non_null(a);
	assert_int_equal(stats().untracked_live, 3); /* the buffer, the pool's page, the block */
	dma_pool_free(pool, a, ha);
	assert_int_equal(stats().untracked_live, 2);
	misuse = F.cap.by_kind[DMAMAP_REPORT_API_MISUSE];
	dma_pool_free(pool, a, ha);
	dma_pool_free(pool, a, ha);
	assert_int_equal(F.cap.by_kind[DMAMAP_REPORT_API_MISUSE], misuse + 2);
	assert_int_equal(stats().untracked_live, 2);
	b = dma_pool_alloc(pool, GFP_KERNEL, &hb);
	assert_non_null(b);
	assert_int_equal(stats().untracked_live, 3);

	/* unmaps of a bus address no RAM is at: arm_dma_ops refuse them */
	hs = dma_map_single(&F.dev, F.buf, 64, DMA_TO_DEVICE);
	assert_false(dma_mapping_error(&F.dev, hs));
	sg_init_one(&sg, F.buf + PAGE_SIZE, 64);
	assert_int_equal(dma_map_sg(&F.dev, &sg, 1, DMA_TO_DEVICE), 1);
	assert_int_equal(stats().untracked_live, 5);
	bad = F.cap.by_kind[DMAMAP_REPORT_BAD_ADDRESS];
	dma_unmap_single(&F.dev, outside, 64, DMA_TO_DEVICE);
	dma_unmap_page(&F.dev, outside, 64, DMA_TO_DEVICE);
	saved = sg_dma_address(&sg);
	sg_dma_address(&sg) = outside;
	dma_unmap_sg(&F.dev, &sg, 1, DMA_TO_DEVICE);
	sg_dma_address(&sg) = saved;
	assert_int_equal(F.cap.by_kind[DMAMAP_REPORT_BAD_ADDRESS], bad + 3);
	assert_int_equal(stats().untracked_live, 5);
	assert_int_equal(dmamap_checker_enable(F.m, true), -EBUSY);

	/* the right releases, each counted down once */
	misuse = F.cap.reports;
	dma_unmap_sg(&F.dev, &sg, 1, DMA_TO_DEVICE);
	dma_unmap_single(&F.dev, hs, 64, DMA_TO_DEVICE);
	assert_int_equal(stats().untracked_live, 3);
	dma_pool_free(pool, b, hb);
	assert_int_equal(stats_of_pool_in_use(pool), 0);
	assert_int_equal(stats().untracked_live, 2);
	dma_free_coherent(&F.dev, PAGE_SIZE, c, hc);
	assert_int_equal(stats().untracked_live, 1); /* the pool's page */
	assert_int_equal(dmamap_checker_enable(F.m, true), -EBUSY);
	dma_pool_destroy(pool);
	assert_int_equal(F.cap.reports, misuse);
	assert_int_equal(stats().untracked_live, 0);
	assert_int_equal(dmamap_checker_enable(F.m, true), 0);
	assert_int_equal(stats().live_coherent + stats().live_pool + stats().live_single + stats().live_sg, 0);
}

/*
 * A direct mapping keeps no record, so arm_dma_ops cannot refuse its double
 * unmap: with the checker off, that miscounts, and the switch back on can
 * succeed while a buffer made meanwhile is live. At release, that buffer is
 * one the checker never knew: it is still reported as leaked, and freed.
 */
static void test_release_reports_buffers_made_while_off(void **state)
{
	struct device other = { 0 };
	const struct captured *r;
	dma_addr_t hc, hk, hs;
	void *c, *k;
	unsigned long leaks;

	(void)state;
	assert_int_equal(dmamap_device_init(&other, F.m, "other"), 0);
	k = dma_alloc_coherent(&other, PAGE_SIZE, &hk, GFP_KERNEL); /* known to the checker */
	assert_non_null(k);
	assert_int_equal(dmamap_checker_enable(F.m, false), 0);
	dma_free_coherent(&other, PAGE_SIZE, k, hk); /* live when the checker went off */
	k = dma_alloc_coherent(&other, PAGE_SIZE, &hk, GFP_KERNEL);
	c = dma_alloc_coherent(&other, 2 * PAGE_SIZE, &hc, GFP_KERNEL);
	assert_non_null(k);
	assert_non_null(c);
	dma_free_coherent(&other, PAGE_SIZE, k, hk);
	hs = dma_map_single(&other, F.buf, 64, DMA_TO_DEVICE);
	dma_unmap_single(&other, hs, 64, DMA_TO_DEVICE);
	dma_unmap_single(&other, hs, 64, DMA_TO_DEVICE);
	assert_int_equal(stats().untracked_live, 0);
	assert_int_equal(dmamap_checker_enable(F.m, true), 0);
	assert_int_equal(F.cap.reports, 0);

	leaks = F.cap.by_kind[DMAMAP_REPORT_LEAK];
	dmamap_device_release(&other);
	assert_int_equal(F.cap.by_kind[DMAMAP_REPORT_LEAK], leaks + 1);
	r = &F.cap.rec_last;
	assert_int_equal(r->kind, DMAMAP_REPORT_LEAK);
	assert_string_equal(r->device, "other");
	assert_non_null(strstr(r->message, "1 coherent buffer (2 pages)"));
	assert_int_equal(stats().untracked_live, 0);
	assert_int_equal(stats().live_coherent, 0);
}

/* Off, buffers of declared memory left at release are reported, freed, and no longer counted. */
static void test_release_counts_declared_buffers_down(void **state)
{
	struct device other = { 0 };
	dma_addr_t h1, h2;
	unsigned long leaks;

	(void)state;
	assert_int_equal(dmamap_device_init(&other, F.m, "other"), 0);
	assert_int_equal(dma_declare_coherent_memory(&other, page_to_phys(F.pg), 0x10000000, 4 * PAGE_SIZE), 0);
	assert_int_equal(dmamap_checker_enable(F.m, false), 0);
	assert_non_null(dma_alloc_coherent(&other, PAGE_SIZE, &h1, GFP_KERNEL));
	assert_non_null(dma_alloc_coherent(&other, 2 * PAGE_SIZE, &h2, GFP_KERNEL));
	assert_int_equal(h1 >> 28, 1);
	assert_int_equal(h2 >> 28, 1);
	assert_int_equal(stats().untracked_live, 2);
	assert_int_equal(dmamap_checker_enable(F.m, true), -EBUSY);

	leaks = F.cap.by_kind[DMAMAP_REPORT_LEAK];
	dmamap_device_release(&other);
	assert_int_equal(F.cap.by_kind[DMAMAP_REPORT_LEAK], leaks + 1);
	assert_non_null(strstr(F.cap.rec_last.message, "3 pages of declared coherent memory"));
	assert_int_equal(stats().untracked_live, 0);
	assert_int_equal(dmamap_checker_enable(F.m, true), 0);
}

/* Switching off forgets what was tracked; the mapping itself is untouched and unmaps as usual. */
static void test_switch_off_forgets(void **state)
{
	static const char msg[] = "arrived";
	dma_addr_t a;

	(void)state;
	a = dma_map_single(&F.dev, F.buf, 64, DMA_FROM_DEVICE);
	assert_int_equal(stats().live_single, 1);
	assert_int_equal(dmamap_checker_enable(F.m, false), 0);
	assert_int_equal(stats().live_single, 0);
	assert_int_equal(stats().untracked_live, 1);
	assert_int_equal(dmamap_checker_enable(F.m, true), -EBUSY);
	assert_int_equal(dmamap_dev_write(&F.dev, a, msg, sizeof(msg)), 0);
	dma_unmap_single(&F.dev, a, 64, DMA_FROM_DEVICE);
	assert_memory_equal(F.buf, msg, sizeof(msg));
	assert_int_equal(stats().untracked_live, 0);
	assert_int_equal(F.cap.reports, 0);
}

/*
 * What was live when the checker went off is as unknown to it as what is
 * made while off: a mapping released while off must not let one made
 * meanwhile slip past the guard, and a pool made while on is destroyed
 * whole after the checker comes back on.
 */
static void test_live_at_switch_off_guards(void **state)
{
	struct dma_pool *pool;
	dma_addr_t a, b, hp;
	void *p;

	(void)state;
	pool = dma_pool_create("before", &F.dev, 64, 0, 0);
	assert_non_null(pool);
	p = dma_pool_alloc(pool, GFP_KERNEL, &hp);
	assert_non_null(p);
	a = dma_map_single(&F.dev, F.buf, 64, DMA_TO_DEVICE);
	assert_false(dma_mapping_error(&F.dev, a));

	assert_int_equal(dmamap_checker_enable(F.m, false), 0);
	dma_unmap_single(&F.dev, a, 64, DMA_TO_DEVICE);
	b = dma_map_single(&F.dev, F.buf + PAGE_SIZE, 64, DMA_TO_DEVICE);
	assert_int_equal(dmamap_checker_enable(F.m, true), -EBUSY); /* b is live */
	assert_false(dmamap_checker_enabled(F.m));
	dma_unmap_single(&F.dev, b, 64, DMA_TO_DEVICE);
	assert_int_equal(dmamap_checker_enable(F.m, true), -EBUSY); /* the pool's block and page */
	dma_pool_free(pool, p, hp);
	dma_pool_destroy(pool);
	assert_int_equal(stats().untracked_live, 0);
	assert_int_equal(dmamap_checker_enable(F.m, true), 0);
	assert_int_equal(F.cap.reports, 0);
	assert_int_equal(stats().live_coherent + stats().live_pool + stats().live_single, 0);
}

/* Device release forgets the device's records, and only its own. */
static void test_release_forgets_device(void **state)
{
	struct device other = { 0 };
	dma_addr_t a, b;

	(void)state;
	assert_int_equal(dmamap_device_init(&other, F.m, "other"), 0);
	a = dma_map_single(&other, F.buf, 64, DMA_TO_DEVICE);
	b = dma_map_single(&F.dev, F.buf + 128, 64, DMA_TO_DEVICE);
	assert_false(dma_mapping_error(&other, a));
	assert_int_equal(stats().live_single, 2);
	dmamap_device_release(&other);
	assert_int_equal(stats().live_single, 1);
	dma_unmap_single(&F.dev, b, 64, DMA_TO_DEVICE);
	assert_int_equal(stats().live_single, 0);
}

/*
 * The checker's own memory can fail (DMAMAP_FAULT_CHECKER): the map then
 * fails before reaching the ops -- no cache maintenance, nothing tracked --
 * and succeeds once memory is back. A 3-page buffer needs more index links
 * than a record holds inline, so its map always allocates.
 */
static void test_no_memory_fails_the_map(void **state)
{
	struct dmamap_cache_stats c0, c1;
	struct scatterlist sg[2];
	dma_addr_t a;

	(void)state;
	dmamap_cache_get_stats(F.m, &c0);
	assert_int_equal(dmamap_fault_inject(F.m, DMAMAP_FAULT_CHECKER, 1, 0), 0);
	a = dma_map_single(&F.dev, F.buf + 16, 3 * PAGE_SIZE, DMA_TO_DEVICE);
	assert_true(a == DMA_MAPPING_ERROR);
	assert_int_equal(dmamap_fault_injected(F.m, DMAMAP_FAULT_CHECKER), 1);
	dmamap_cache_get_stats(F.m, &c1);
	assert_memory_equal(&c0.level, &c1.level, sizeof(c0.level));
	assert_int_equal(stats().live_single, 0);

	sg_init_table(sg, 2);
	sg_set_buf(&sg[0], F.buf, 2 * PAGE_SIZE);
	sg_set_buf(&sg[1], F.buf + 2 * PAGE_SIZE + 8, 2 * PAGE_SIZE - 8);
	sg[0].dma_address = sg[1].dma_address = 0x1234;
	assert_int_equal(dmamap_fault_inject(F.m, DMAMAP_FAULT_CHECKER, 1, 0), 0);
	assert_int_equal(dma_map_sg(&F.dev, sg, 2, DMA_TO_DEVICE), 0);
	assert_true(sg[0].dma_address == 0x1234 && sg[1].dma_address == 0x1234); /* the ops never ran */
	dmamap_cache_get_stats(F.m, &c1);
	assert_memory_equal(&c0.level, &c1.level, sizeof(c0.level));
	assert_int_equal(stats().live_sg, 0);

	a = dma_map_single(&F.dev, F.buf + 16, 3 * PAGE_SIZE, DMA_TO_DEVICE);
	assert_false(dma_mapping_error(&F.dev, a));
	assert_int_equal(stats().live_single, 1);
	dma_unmap_single(&F.dev, a, 3 * PAGE_SIZE, DMA_TO_DEVICE);
	assert_int_equal(stats().live_single, 0);
}

/* ------------------------------------------------------------ the checks */

/*
 * Exactly one report since @before, of @kind, raised at this file's @line,
 * naming the mapping made at @map_line (0: none); returned for more checks.
 */
static const struct captured *expect_report_(unsigned long before, enum dmamap_report_kind kind, int line,
					     int map_line, int at)
{
	const struct captured *r = &F.cap.rec_last;

	if (F.cap.reports != before + 1)
		fail_msg("line %d: expected one report, got %lu (last: %s)", at, F.cap.reports - before, r->message);
	if (r->kind != kind)
		fail_msg("line %d: expected a %s report, got %s: %s", at, dmamap_report_kind_name(kind),
			 dmamap_report_kind_name(r->kind), r->message);
	assert_int_equal(r->category, dmamap_report_kind_category(kind));
	assert_non_null(strstr(r->file, "test-dma-debug.c"));
	assert_int_equal(r->line, line);
	assert_string_equal(r->device, "dbgdev");
	if (map_line) {
		assert_non_null(strstr(r->map_file, "test-dma-debug.c"));
		assert_int_equal(r->map_line, map_line);
	} else {
		assert_string_equal(r->map_file, "");
		assert_int_equal(r->map_size, 0);
	}
	return r;
}

#define expect_report(before, kind, line, map_line) expect_report_((before), (kind), (line), (map_line), __LINE__)

/* What a refused call must leave as it was. */
struct snapshot {
	struct dmamap_checker_stats st;
	struct dmamap_cache_stats cache;
	struct dmamap_page_stats pages;
};

static struct snapshot snap(void)
{
	struct snapshot s;

	memset(&s, 0, sizeof(s));
	s.st = stats();
	dmamap_cache_get_stats(F.m, &s.cache);
	dmamap_page_stats(F.m, &s.pages);
	return s;
}

static void expect_unchanged_(const struct snapshot *a, int at)
{
	struct snapshot b = snap();

	if (memcmp(&a->st, &b.st, sizeof(a->st)) || memcmp(a->cache.level, b.cache.level, sizeof(a->cache.level)) ||
	    memcmp(a->pages.free_pages, b.pages.free_pages, sizeof(a->pages.free_pages)))
		fail_msg("line %d: a refused call changed the machine", at);
}

#define expect_unchanged(a) expect_unchanged_((a), __LINE__)

/* A FROM_DEVICE mapping with device data written, checked as a driver must. */
static dma_addr_t rx_mapping(size_t off, size_t size, unsigned seed, int *map_line)
{
	u8 data[PAGE_SIZE];
	dma_addr_t h;

	assert_true(size <= sizeof(data));
	h = dma_map_single(&F.dev, F.buf + off, size, DMA_FROM_DEVICE); *map_line = __LINE__;
	assert_false(dma_mapping_error(&F.dev, h));
	fill_pattern(data, size, seed);
	assert_int_equal(dmamap_dev_write(&F.dev, h, data, size), 0);
	return h;
}

/* An unmap naming nothing the device has mapped: refused, nothing changes. */
static void test_unmap_not_mapped(void **state)
{
	unsigned long n = F.cap.reports;
	struct snapshot s0 = snap();
	const struct captured *r;
	int l;

	(void)state;
	dma_unmap_single(&F.dev, virt_to_phys(F.buf), 64, DMA_TO_DEVICE); l = __LINE__;
	r = expect_report(n, DMAMAP_REPORT_NOT_MAPPED, l, 0);
	assert_int_equal(r->bus_addr, virt_to_phys(F.buf));
	assert_int_equal(r->size, 64);
	assert_int_equal(r->direction, DMA_TO_DEVICE);
	expect_unchanged(&s0);
}

/* The same mapping unmapped twice: the second is a double unmap, naming both earlier lines. */
static void test_double_unmap(void **state)
{
	char unmap_at[64];
	unsigned long n;
	int lm, lu, l;
	dma_addr_t h;
	struct snapshot s0;
	const struct captured *r;

	(void)state;
	h = rx_mapping(0, 256, 1, &lm);
	dma_unmap_single(&F.dev, h, 256, DMA_FROM_DEVICE); lu = __LINE__;
	n = F.cap.reports;
	s0 = snap();
	dma_unmap_single(&F.dev, h, 256, DMA_FROM_DEVICE); l = __LINE__;
	r = expect_report(n, DMAMAP_REPORT_DOUBLE_UNMAP, l, lm);
	snprintf(unmap_at, sizeof(unmap_at), "test-dma-debug.c:%d", lu);
	assert_non_null(strstr(r->message, unmap_at));
	assert_int_equal(r->map_size, 256);
	assert_int_equal(r->map_direction, DMA_FROM_DEVICE);
	expect_unchanged(&s0);
	assert_int_equal(check_pattern(F.buf, 256, 1), 0); /* what the first unmap delivered is intact */
}

/* A handle inside a mapping is not a mapping. */
static void test_unmap_inside_a_mapping(void **state)
{
	unsigned long n;
	int lm, l;
	dma_addr_t h;

	(void)state;
	h = rx_mapping(0, 256, 2, &lm);
	n = F.cap.reports;
	dma_unmap_single(&F.dev, h + 32, 224, DMA_FROM_DEVICE); l = __LINE__;
	expect_report(n, DMAMAP_REPORT_NOT_MAPPED, l, lm);
	assert_int_equal(stats().live_single, 1);
	dma_unmap_single(&F.dev, h, 256, DMA_FROM_DEVICE);
	assert_int_equal(check_pattern(F.buf, 256, 2), 0);
}

/*
 * Size and direction must be the mapping's: the unmap is refused and the
 * mapping stays live, so nothing the device wrote is lost; the right unmap
 * then delivers it.
 */
static void test_unmap_size_and_direction_mismatch(void **state)
{
	unsigned long n;
	struct snapshot s0;
	const struct captured *r;
	int lm, l;
	dma_addr_t h;

	(void)state;
	h = rx_mapping(0, 1024, 3, &lm);
	s0 = snap();
	n = F.cap.reports;
	dma_unmap_single(&F.dev, h, 1000, DMA_FROM_DEVICE); l = __LINE__;
	r = expect_report(n, DMAMAP_REPORT_SIZE_MISMATCH, l, lm);
	assert_int_equal(r->size, 1000);
	assert_int_equal(r->map_size, 1024);
	assert_int_equal(r->map_bus_addr, h);
	expect_unchanged(&s0);

	n = F.cap.reports;
	dma_unmap_single(&F.dev, h, 1024, DMA_TO_DEVICE); l = __LINE__;
	r = expect_report(n, DMAMAP_REPORT_DIR_MISMATCH, l, lm);
	assert_int_equal(r->direction, DMA_TO_DEVICE);
	assert_int_equal(r->map_direction, DMA_FROM_DEVICE);
	expect_unchanged(&s0);

	n = F.cap.reports;
	dma_unmap_single(&F.dev, h, 1024, DMA_FROM_DEVICE);
	assert_int_equal(F.cap.reports, n);
	assert_int_equal(check_pattern(F.buf, 1024, 3), 0);
	assert_int_equal(stats().live_single, 0);
}

/* dma_unmap_page of a dma_map_single mapping: the same operation, so reported and done. */
static void test_unmap_kind_mismatch_performed(void **state)
{
	unsigned long n;
	int lm, l;
	dma_addr_t h;

	(void)state;
	h = rx_mapping(0, 128, 4, &lm);
	n = F.cap.reports;
	dma_unmap_page(&F.dev, h, 128, DMA_FROM_DEVICE); l = __LINE__;
	expect_report(n, DMAMAP_REPORT_KIND_MISMATCH, l, lm);
	assert_int_equal(stats().live_single, 0);
	assert_int_equal(check_pattern(F.buf, 128, 4), 0);
}

static int map_list(struct scatterlist *sg, int nents, size_t len, enum dma_data_direction dir, int *line)
{
	int n;

	sg_init_table(sg, (unsigned)nents);
	for (int i = 0; i < nents; i++)
		sg_set_buf(&sg[i], F.buf + (size_t)i * PAGE_SIZE, (unsigned)len);
	n = dma_map_sg(&F.dev, sg, nents, dir); *line = __LINE__;
	assert_int_equal(n, nents);
	return n;
}

/* A list is released as a list, with the nents it was mapped with; anything else is refused. */
static void test_sg_mismatches(void **state)
{
	struct scatterlist sg[3], other[3];
	struct snapshot s0;
	unsigned long n;
	int lm, l;

	(void)state;
	map_list(sg, 3, 512, DMA_FROM_DEVICE, &lm);
	s0 = snap();

	n = F.cap.reports;
	dma_unmap_sg(&F.dev, sg, 2, DMA_FROM_DEVICE); l = __LINE__;
	expect_report(n, DMAMAP_REPORT_SG_MISMATCH, l, lm);
	expect_unchanged(&s0);

	n = F.cap.reports;
	dma_sync_sg_for_cpu(&F.dev, sg, 2, DMA_FROM_DEVICE); l = __LINE__;
	expect_report(n, DMAMAP_REPORT_SG_MISMATCH, l, lm);
	expect_unchanged(&s0);

	memcpy(other, sg, sizeof(sg)); /* another list with the same addresses */
	n = F.cap.reports;
	dma_unmap_sg(&F.dev, other, 3, DMA_FROM_DEVICE); l = __LINE__;
	expect_report(n, DMAMAP_REPORT_SG_MISMATCH, l, lm);
	expect_unchanged(&s0);

	n = F.cap.reports;
	dma_unmap_sg(&F.dev, sg, 3, DMA_TO_DEVICE); l = __LINE__;
	expect_report(n, DMAMAP_REPORT_DIR_MISMATCH, l, lm);
	expect_unchanged(&s0);

	n = F.cap.reports;
	dma_unmap_single(&F.dev, sg_dma_address(&sg[1]), 512, DMA_FROM_DEVICE); l = __LINE__;
	expect_report(n, DMAMAP_REPORT_KIND_MISMATCH, l, lm);
	expect_unchanged(&s0);

	n = F.cap.reports;
	dma_sync_sg_for_cpu(&F.dev, sg, 3, DMA_FROM_DEVICE);
	dma_sync_sg_for_device(&F.dev, sg, 3, DMA_FROM_DEVICE);
	dma_unmap_sg(&F.dev, sg, 3, DMA_FROM_DEVICE);
	assert_int_equal(F.cap.reports, n);
	assert_int_equal(stats().live_sg, 0);

	n = F.cap.reports;
	dma_unmap_sg(&F.dev, sg, 3, DMA_FROM_DEVICE); l = __LINE__;
	expect_report(n, DMAMAP_REPORT_DOUBLE_UNMAP, l, lm);
}

/*
 * A driver may map the same bytes twice (here one segment of a list, then a
 * single mapping over it: bus addresses equal physical ones on this machine).
 * The list's calls are judged by the list's own record, whatever else holds
 * the same bus range: no report, and each release frees its own mapping.
 */
static void test_sg_sharing_its_bus_range(void **state)
{
	struct scatterlist sg[3];
	u8 got[512];
	dma_addr_t h;
	unsigned long n;
	int lm;

	(void)state;
	fill_pattern(F.buf, 3 * PAGE_SIZE, 12);
	map_list(sg, 3, 512, DMA_TO_DEVICE, &lm);
	n = F.cap.reports;
	h = dma_map_single(&F.dev, F.buf + PAGE_SIZE, 512, DMA_TO_DEVICE);
	assert_false(dma_mapping_error(&F.dev, h));
	assert_int_equal(h, sg_dma_address(&sg[1]));

	dma_sync_sg_for_cpu(&F.dev, sg, 3, DMA_TO_DEVICE);
	dma_sync_sg_for_device(&F.dev, sg, 3, DMA_TO_DEVICE);
	assert_int_equal(dmamap_dev_read(&F.dev, sg_dma_address(&sg[1]), got, sizeof(got)), 0);
	assert_memory_equal(got, F.buf + PAGE_SIZE, sizeof(got));
	dma_unmap_sg(&F.dev, sg, 3, DMA_TO_DEVICE);
	assert_int_equal(F.cap.reports, n);
	assert_int_equal(stats().live_sg, 0);
	assert_int_equal(stats().live_single, 1);
	dma_unmap_single(&F.dev, h, 512, DMA_TO_DEVICE);
	assert_int_equal(F.cap.reports, n);
	assert_int_equal(stats().live_single, 0);
}

/* A sync stays inside the mapping and names its direction (any, for a bidirectional one). */
static void test_sync_range_and_direction(void **state)
{
	struct snapshot s0;
	const struct captured *r;
	unsigned long n;
	int lm, lb, l;
	dma_addr_t h, hb;

	(void)state;
	h = rx_mapping(0, 100, 5, &lm);
	s0 = snap();
	n = F.cap.reports;
	dma_sync_single_for_cpu(&F.dev, h, 1600, DMA_FROM_DEVICE); l = __LINE__;
	r = expect_report(n, DMAMAP_REPORT_SYNC_RANGE, l, lm);
	assert_int_equal(r->size, 1600);
	assert_int_equal(r->map_size, 100);
	expect_unchanged(&s0);

	n = F.cap.reports;
	dma_sync_single_range_for_cpu(&F.dev, h, 96, 8, DMA_FROM_DEVICE); l = __LINE__;
	r = expect_report(n, DMAMAP_REPORT_SYNC_RANGE, l, lm);
	assert_int_equal(r->bus_addr, h + 96);
	expect_unchanged(&s0);

	n = F.cap.reports;
	dma_sync_single_for_cpu(&F.dev, h, 100, DMA_BIDIRECTIONAL); l = __LINE__;
	expect_report(n, DMAMAP_REPORT_SYNC_DIRECTION, l, lm);
	expect_unchanged(&s0);
	dma_sync_single_for_device(&F.dev, h, 100, DMA_TO_DEVICE); l = __LINE__;
	expect_report(n + 1, DMAMAP_REPORT_SYNC_DIRECTION, l, lm);
	expect_unchanged(&s0);

	/* the last byte of the mapping is inside it */
	n = F.cap.reports;
	dma_sync_single_range_for_cpu(&F.dev, h, 99, 1, DMA_FROM_DEVICE);
	dma_sync_single_range_for_device(&F.dev, h, 0, 100, DMA_FROM_DEVICE);
	assert_int_equal(F.cap.reports, n);
	dma_unmap_single(&F.dev, h, 100, DMA_FROM_DEVICE);

	hb = dma_map_single(&F.dev, F.buf + PAGE_SIZE, 64, DMA_BIDIRECTIONAL); lb = __LINE__;
	assert_false(dma_mapping_error(&F.dev, hb));
	dma_sync_single_for_cpu(&F.dev, hb, 64, DMA_FROM_DEVICE);
	dma_sync_single_for_device(&F.dev, hb, 64, DMA_TO_DEVICE);
	dma_unmap_single(&F.dev, hb, 64, DMA_BIDIRECTIONAL);
	assert_int_equal(F.cap.reports, n);

	dma_sync_single_for_cpu(&F.dev, hb, 64, DMA_BIDIRECTIONAL); l = __LINE__;
	expect_report(n, DMAMAP_REPORT_NOT_MAPPED, l, lb); /* names the mapping that was there */
	assert_non_null(strstr(F.cap.rec_last.message, "already released"));
}

/* dma_mapping_error() never asked: reported once, at the first use; the calls still work. */
static void test_unchecked_mapping_error(void **state)
{
	u8 data[64];
	unsigned long n = F.cap.reports;
	int lm, l;
	dma_addr_t h;

	(void)state;
	h = dma_map_single(&F.dev, F.buf, 64, DMA_FROM_DEVICE); lm = __LINE__;
	fill_pattern(data, sizeof(data), 6);
	assert_int_equal(dmamap_dev_write(&F.dev, h, data, sizeof(data)), 0);
	dma_sync_single_for_cpu(&F.dev, h, 64, DMA_FROM_DEVICE); l = __LINE__;
	expect_report(n, DMAMAP_REPORT_UNCHECKED_ERROR, l, lm);
	assert_int_equal(check_pattern(F.buf, 64, 6), 0); /* the sync was done */
	dma_unmap_single(&F.dev, h, 64, DMA_FROM_DEVICE);
	assert_int_equal(F.cap.reports, n + 1); /* once per mapping */
	assert_int_equal(stats().live_single, 0);

	/* asked through the plain function too */
	h = (dma_map_single)(&F.dev, F.buf, 64, DMA_TO_DEVICE);
	assert_false((dma_mapping_error)(&F.dev, h));
	dma_unmap_single(&F.dev, h, 64, DMA_TO_DEVICE);
	assert_int_equal(F.cap.reports, n + 1);
}

/* Coherent buffers: freed with the handle, CPU address and size they were given. */
static void test_coherent_free_mismatches(void **state)
{
	struct snapshot s0;
	const struct captured *r;
	unsigned long n;
	dma_addr_t h, hs;
	int lm, ls, l;
	void *p;

	(void)state;
	p = dma_alloc_coherent(&F.dev, 3000, &h, GFP_KERNEL); lm = __LINE__;
	assert_non_null(p);
	s0 = snap();

	n = F.cap.reports;
	dma_free_coherent(&F.dev, 3000, (u8 *)p + 64, h); l = __LINE__;
	r = expect_report(n, DMAMAP_REPORT_ADDR_MISMATCH, l, lm);
	assert_int_equal(r->map_size, 3000);
	assert_int_equal(r->map_direction, DMA_NONE);
	expect_unchanged(&s0);

	n = F.cap.reports;
	dma_free_coherent(&F.dev, PAGE_SIZE, p, h); l = __LINE__;
	expect_report(n, DMAMAP_REPORT_SIZE_MISMATCH, l, lm);
	expect_unchanged(&s0);

	n = F.cap.reports;
	dma_unmap_single(&F.dev, h, 3000, DMA_TO_DEVICE); l = __LINE__;
	expect_report(n, DMAMAP_REPORT_KIND_MISMATCH, l, lm);
	expect_unchanged(&s0);

	hs = dma_map_single(&F.dev, F.buf, 64, DMA_TO_DEVICE); ls = __LINE__;
	assert_false(dma_mapping_error(&F.dev, hs));
	n = F.cap.reports;
	dma_free_coherent(&F.dev, 64, F.buf, hs); l = __LINE__;
	expect_report(n, DMAMAP_REPORT_KIND_MISMATCH, l, ls);
	dma_unmap_single(&F.dev, hs, 64, DMA_TO_DEVICE);

	n = F.cap.reports;
	dma_free_coherent(&F.dev, 3000, p, h);
	assert_int_equal(F.cap.reports, n);
	dma_free_coherent(&F.dev, 3000, p, h); l = __LINE__;
	expect_report(n, DMAMAP_REPORT_DOUBLE_UNMAP, l, lm);
}

/*
 * A coherent free naming other attrs than the ones that made the buffer what
 * it is: reported at the free's line, naming the allocation's line and attrs,
 * and the buffer freed as it was allocated -- pages and kernel mapping back,
 * the checker's record gone (a second free is a double free). Attrs that only
 * steer streaming mappings may differ.
 */
static void test_coherent_free_attrs_mismatch(void **state)
{
	DEFINE_DMA_ATTRS(nokmap);
	DEFINE_DMA_ATTRS(hints);
	struct dmamap_consistent_stats c0, c1;
	struct dmamap_page_stats p0, p1;
	const struct captured *r;
	unsigned long n;
	dma_addr_t h;
	int lm, l;
	void *p;

	(void)state;
	dmamap_page_stats(F.m, &p0);
	dmamap_consistent_stats(F.m, &c0);
	p = dma_alloc_writecombine(&F.dev, 3000, &h, GFP_KERNEL); lm = __LINE__;
	assert_non_null(p);
	n = F.cap.reports;
	dma_free_coherent(&F.dev, 3000, p, h); l = __LINE__;
	r = expect_report(n, DMAMAP_REPORT_ATTR_MISMATCH, l, lm);
	assert_non_null(strstr(r->message, "dma_free_attrs of bus"));
	assert_non_null(strstr(r->message, "with attrs none: the buffer was allocated with DMA_ATTR_WRITE_COMBINE; "
					   "freed as it was allocated"));
	assert_true(r->bus_addr == h);
	assert_int_equal(r->map_size, 3000);
	assert_int_equal(stats().live_coherent, 0);
	dmamap_page_stats(F.m, &p1);
	dmamap_consistent_stats(F.m, &c1);
	assert_memory_equal(p1.free_pages, p0.free_pages, sizeof(p0.free_pages));
	assert_int_equal(c1.regions, c0.regions);
	assert_int_equal(c1.used, c0.used);
	n = F.cap.reports;
	dma_free_writecombine(&F.dev, 3000, p, h); l = __LINE__;
	expect_report(n, DMAMAP_REPORT_DOUBLE_UNMAP, l, lm);

	/* no kernel mapping: the cookie freed as if it were one */
	dma_set_attr(DMA_ATTR_NO_KERNEL_MAPPING, &nokmap);
	p = dma_alloc_attrs(&F.dev, 2 * PAGE_SIZE, &h, GFP_KERNEL, &nokmap); lm = __LINE__;
	assert_non_null(p);
	n = F.cap.reports;
	dma_free_attrs(&F.dev, 2 * PAGE_SIZE, p, h, NULL); l = __LINE__;
	r = expect_report(n, DMAMAP_REPORT_ATTR_MISMATCH, l, lm);
	assert_non_null(strstr(r->message, "with attrs none: the buffer was allocated with DMA_ATTR_NO_KERNEL_MAPPING"));

	/* cached memory freed as write-combining */
	p = dma_alloc_noncoherent(&F.dev, PAGE_SIZE, &h, GFP_KERNEL); lm = __LINE__;
	assert_non_null(p);
	n = F.cap.reports;
	dma_free_writecombine(&F.dev, PAGE_SIZE, p, h); l = __LINE__;
	r = expect_report(n, DMAMAP_REPORT_ATTR_MISMATCH, l, lm);
	assert_non_null(strstr(r->message, "with attrs DMA_ATTR_WRITE_COMBINE: the buffer was allocated with "
					   "DMA_ATTR_NON_CONSISTENT;"));
	assert_int_equal(stats().live_coherent, 0);
	dmamap_page_stats(F.m, &p1);
	dmamap_consistent_stats(F.m, &c1);
	assert_memory_equal(p1.free_pages, p0.free_pages, sizeof(p0.free_pages));
	assert_int_equal(c1.regions, c0.regions);

	/* hints for streaming mappings are no part of the buffer: they may differ */
	n = F.cap.reports;
	dma_set_attr(DMA_ATTR_WRITE_COMBINE, &hints);
	dma_set_attr(DMA_ATTR_SKIP_CPU_SYNC, &hints);
	dma_set_attr(DMA_ATTR_WEAK_ORDERING, &hints);
	dma_set_attr(DMA_ATTR_WRITE_BARRIER, &hints);
	p = dma_alloc_attrs(&F.dev, PAGE_SIZE, &h, GFP_KERNEL, &hints);
	assert_non_null(p);
	dma_free_writecombine(&F.dev, PAGE_SIZE, p, h);
	p = dma_alloc_coherent(&F.dev, PAGE_SIZE, &h, GFP_KERNEL);
	assert_non_null(p);
	dma_free_attrs(&F.dev, PAGE_SIZE, p, h, DMAMAP_ATTR_ONE(DMA_ATTR_SKIP_CPU_SYNC));
	assert_int_equal(F.cap.reports, n);
	dmamap_page_stats(F.m, &p1);
	assert_memory_equal(p1.free_pages, p0.free_pages, sizeof(p0.free_pages));
	assert_int_equal(stats().live_coherent, 0);
}

/* Behind an IOMMU: a contiguous buffer freed without DMA_ATTR_FORCE_CONTIGUOUS, reported, freed as allocated. */
static void test_coherent_free_attrs_mismatch_behind_iommu(void **state)
{
	struct dma_iommu_mapping *map = arm_iommu_create_mapping(F.m, 0x80000000ULL, 16u << 20, 0);
	DEFINE_DMA_ATTRS(contig);
	struct dmamap_iommu_stats is;
	struct dmamap_iova_stats vs;
	struct dmamap_page_stats p0, p1;
	const struct captured *r;
	unsigned long n;
	dma_addr_t h;
	int lm, l;
	void *p;

	(void)state;
	assert_false(IS_ERR(map));
	assert_int_equal(arm_iommu_attach_device(&F.dev, map), 0);
	dma_set_attr(DMA_ATTR_FORCE_CONTIGUOUS, &contig);
	/* once freed as allocated, so that the page-table pages it needs exist (they are kept) */
	p = dma_alloc_attrs(&F.dev, 4 * PAGE_SIZE, &h, GFP_KERNEL, &contig);
	assert_non_null(p);
	dma_free_attrs(&F.dev, 4 * PAGE_SIZE, p, h, &contig);
	dmamap_page_stats(F.m, &p0);
	p = dma_alloc_attrs(&F.dev, 4 * PAGE_SIZE, &h, GFP_KERNEL, &contig); lm = __LINE__;
	assert_non_null(p);
	n = F.cap.reports;
	dma_free_coherent(&F.dev, 4 * PAGE_SIZE, p, h); l = __LINE__;
	r = expect_report(n, DMAMAP_REPORT_ATTR_MISMATCH, l, lm);
	assert_non_null(strstr(r->message, "with attrs none: the buffer was allocated with DMA_ATTR_FORCE_CONTIGUOUS"));
	dmamap_iommu_stats(map->domain, &is);
	assert_int_equal(is.mapped_bytes, 0);
	dmamap_iova_stats(map->iova, &vs);
	assert_int_equal(vs.used_granules, 0);
	dmamap_page_stats(F.m, &p1);
	assert_memory_equal(p1.free_pages, p0.free_pages, sizeof(p0.free_pages));
	assert_int_equal(stats().live_coherent, 0);
	arm_iommu_detach_device(&F.dev);
	arm_iommu_release_mapping(map);
	assert_int_equal(F.cap.reports, n + 1);
}

/* Pool blocks: freed to their pool, with their own address; a double free is told as such. */
static void test_pool_free_mismatches(void **state)
{
	struct dma_pool *pa = dma_pool_create("a", &F.dev, 64, 0, 0), *pb = dma_pool_create("b", &F.dev, 64, 0, 0);
	unsigned long n;
	dma_addr_t h1, h2;
	int l1, l2, l;
	void *a1, *b1;

	(void)state;
	assert_non_null(pa);
	assert_non_null(pb);
	a1 = dma_pool_alloc(pa, GFP_KERNEL, &h1); l1 = __LINE__;
	b1 = dma_pool_alloc(pb, GFP_KERNEL, &h2); l2 = __LINE__;
	assert_non_null(a1);
	assert_non_null(b1);

	n = F.cap.reports;
	dma_pool_free(pa, b1, h2); l = __LINE__;
	expect_report(n, DMAMAP_REPORT_ADDR_MISMATCH, l, l2);
	dma_pool_free(pa, (u8 *)a1 + 8, h1); l = __LINE__;
	expect_report(n + 1, DMAMAP_REPORT_ADDR_MISMATCH, l, l1);
	dma_free_coherent(&F.dev, 64, a1, h1); l = __LINE__;
	expect_report(n + 2, DMAMAP_REPORT_KIND_MISMATCH, l, l1);
	assert_int_equal(dmamap_checker_stats_pool(F.m), 2);

	dma_pool_free(pa, a1, h1);
	dma_pool_free(pb, b1, h2);
	assert_int_equal(F.cap.reports, n + 3);
	dma_pool_free(pb, b1, h2); l = __LINE__;
	expect_report(n + 3, DMAMAP_REPORT_DOUBLE_UNMAP, l, l2);
	dma_pool_destroy(pa);
	dma_pool_destroy(pb);
	assert_int_equal(F.cap.reports, n + 4);
}

/* The memory type of @vma's first page. */
static int vma_memtype(struct vm_area_struct *vma)
{
	pgprot_t prot;

	assert_int_equal(dmamap_vma_pte(vma, vma->vm_start, NULL, &prot), 0);
	return pgprot_memtype(prot);
}

/*
 * dma_mmap_attrs() naming other attrs than the buffer's in one that decides
 * the user mapping's protection (write-combining, cached): reported at the
 * mmap's line, naming the allocation's line and attrs, and mapped as the
 * buffer was allocated. The other attrs may differ.
 */
static void test_mmap_attrs_mismatch(void **state)
{
	struct vm_area_struct *vma = dmamap_vma_create(F.m, PAGE_SIZE);
	DEFINE_DMA_ATTRS(nokmap);
	const struct captured *r;
	unsigned long n;
	dma_addr_t h;
	int lm, l;
	u8 *p;

	(void)state;
	assert_non_null(vma);
	/* a write-combining buffer mapped as coherent: write-combining all the same */
	p = dma_alloc_writecombine(&F.dev, 3000, &h, GFP_KERNEL); lm = __LINE__;
	assert_non_null(p);
	p[7] = 0x5a;
	n = F.cap.reports;
	assert_int_equal(dma_mmap_coherent(&F.dev, vma, p, h, 3000), 0); l = __LINE__;
	r = expect_report(n, DMAMAP_REPORT_ATTR_MISMATCH, l, lm);
	assert_non_null(strstr(r->message, "dma_mmap_attrs of bus"));
	assert_non_null(strstr(r->message, "with attrs none: the buffer was allocated with DMA_ATTR_WRITE_COMBINE; "
					   "mapped as it was allocated"));
	assert_true(r->bus_addr == h);
	assert_int_equal(vma_memtype(vma), DMAMAP_MT_WRITECOMBINE);
	assert_int_equal(((u8 *)vma->vm_start)[7], 0x5a);
	dmamap_vma_destroy(vma);
	vma = dmamap_vma_create(F.m, PAGE_SIZE);
	assert_non_null(vma);
	assert_int_equal(dma_mmap_writecombine(&F.dev, vma, p, h, 3000), 0); /* its own: nothing to say */
	assert_int_equal(F.cap.reports, n + 1);
	assert_int_equal(vma_memtype(vma), DMAMAP_MT_WRITECOMBINE);
	dmamap_vma_destroy(vma);
	dma_free_writecombine(&F.dev, 3000, p, h);

	/* a coherent buffer mapped as write-combining: the coherent protection */
	p = dma_alloc_coherent(&F.dev, PAGE_SIZE, &h, GFP_KERNEL); lm = __LINE__;
	assert_non_null(p);
	vma = dmamap_vma_create(F.m, PAGE_SIZE);
	assert_non_null(vma);
	n = F.cap.reports;
	assert_int_equal(dma_mmap_writecombine(&F.dev, vma, p, h, PAGE_SIZE), 0); l = __LINE__;
	r = expect_report(n, DMAMAP_REPORT_ATTR_MISMATCH, l, lm);
	assert_non_null(strstr(r->message, "with attrs DMA_ATTR_WRITE_COMBINE: the buffer was allocated with none;"));
	assert_int_equal(vma_memtype(vma), DMAMAP_MT_DMACOHERENT);
	dmamap_vma_destroy(vma);
	dma_free_coherent(&F.dev, PAGE_SIZE, p, h);

	/* cached memory mapped as coherent: cached, as allocated */
	p = dma_alloc_noncoherent(&F.dev, PAGE_SIZE, &h, GFP_KERNEL); lm = __LINE__;
	assert_non_null(p);
	vma = dmamap_vma_create(F.m, PAGE_SIZE);
	assert_non_null(vma);
	n = F.cap.reports;
	assert_int_equal(dma_mmap_coherent(&F.dev, vma, p, h, PAGE_SIZE), 0); l = __LINE__;
	r = expect_report(n, DMAMAP_REPORT_ATTR_MISMATCH, l, lm);
	assert_non_null(strstr(r->message, "with attrs none: the buffer was allocated with DMA_ATTR_NON_CONSISTENT;"));
	assert_int_equal(vma_memtype(vma), DMAMAP_MT_CACHED);
	dmamap_vma_destroy(vma);
	dma_free_noncoherent(&F.dev, PAGE_SIZE, p, h);

	/* attrs that decide no protection may differ: no kernel mapping, hints */
	dma_set_attr(DMA_ATTR_NO_KERNEL_MAPPING, &nokmap);
	p = dma_alloc_attrs(&F.dev, PAGE_SIZE, &h, GFP_KERNEL, &nokmap);
	assert_non_null(p);
	vma = dmamap_vma_create(F.m, PAGE_SIZE);
	assert_non_null(vma);
	n = F.cap.reports;
	assert_int_equal(dma_mmap_coherent(&F.dev, vma, p, h, PAGE_SIZE), 0);
	assert_int_equal(vma_memtype(vma), DMAMAP_MT_DMACOHERENT);
	dmamap_vma_destroy(vma);
	dma_free_attrs(&F.dev, PAGE_SIZE, p, h, &nokmap);
	p = dma_alloc_coherent(&F.dev, PAGE_SIZE, &h, GFP_KERNEL);
	assert_non_null(p);
	vma = dmamap_vma_create(F.m, PAGE_SIZE);
	assert_non_null(vma);
	assert_int_equal(dma_mmap_attrs(&F.dev, vma, p, h, PAGE_SIZE, DMAMAP_ATTR_ONE(DMA_ATTR_SKIP_CPU_SYNC)), 0);
	assert_int_equal(vma_memtype(vma), DMAMAP_MT_DMACOHERENT);
	dmamap_vma_destroy(vma);
	dma_free_coherent(&F.dev, PAGE_SIZE, p, h);
	assert_int_equal(F.cap.reports, n);
	assert_int_equal(stats().live_coherent, 0);
}

/* Behind an IOMMU: a write-combining buffer mapped as coherent, reported, write-combining. */
static void test_mmap_attrs_mismatch_behind_iommu(void **state)
{
	struct dma_iommu_mapping *map = arm_iommu_create_mapping(F.m, 0x80000000ULL, 16u << 20, 0);
	struct vm_area_struct *vma = dmamap_vma_create(F.m, 2 * PAGE_SIZE);
	const struct captured *r;
	unsigned long n;
	dma_addr_t h;
	int lm, l;
	u8 *p;

	(void)state;
	assert_false(IS_ERR(map));
	assert_non_null(vma);
	assert_int_equal(arm_iommu_attach_device(&F.dev, map), 0);
	p = dma_alloc_writecombine(&F.dev, 2 * PAGE_SIZE, &h, GFP_KERNEL); lm = __LINE__;
	assert_non_null(p);
	p[PAGE_SIZE + 3] = 0xa7;
	n = F.cap.reports;
	assert_int_equal(dma_mmap_coherent(&F.dev, vma, p, h, 2 * PAGE_SIZE), 0); l = __LINE__;
	r = expect_report(n, DMAMAP_REPORT_ATTR_MISMATCH, l, lm);
	assert_non_null(strstr(r->message, "with attrs none: the buffer was allocated with DMA_ATTR_WRITE_COMBINE;"));
	assert_int_equal(vma_memtype(vma), DMAMAP_MT_WRITECOMBINE);
	assert_int_equal(((u8 *)vma->vm_start)[PAGE_SIZE + 3], 0xa7);
	dmamap_vma_destroy(vma);
	dma_free_writecombine(&F.dev, 2 * PAGE_SIZE, p, h);
	assert_int_equal(F.cap.reports, n + 1);
	arm_iommu_detach_device(&F.dev);
	arm_iommu_release_mapping(map);
}

/* dma_mmap_attrs()/dma_get_sgtable() of something that is not a live buffer: refused. */
static void test_mmap_of_no_buffer(void **state)
{
	struct vm_area_struct *vma = dmamap_vma_create(F.m, PAGE_SIZE);
	struct sg_table sgt;
	unsigned long n;
	dma_addr_t h;
	int lm, l;
	void *p;

	(void)state;
	assert_non_null(vma);
	p = dma_alloc_coherent(&F.dev, PAGE_SIZE, &h, GFP_KERNEL); lm = __LINE__;
	assert_non_null(p);
	n = F.cap.reports;
	assert_int_equal(dma_mmap_coherent(&F.dev, vma, p, h + PAGE_SIZE, PAGE_SIZE), -ENXIO); l = __LINE__;
	expect_report(n, DMAMAP_REPORT_NOT_MAPPED, l, 0);
	assert_int_equal(dma_get_sgtable(&F.dev, &sgt, (u8 *)p + 8, h, PAGE_SIZE), -ENXIO); l = __LINE__;
	expect_report(n + 1, DMAMAP_REPORT_ADDR_MISMATCH, l, lm);
	assert_int_equal(dma_mmap_coherent(&F.dev, vma, p, h, PAGE_SIZE), 0);
	assert_int_equal(dma_get_sgtable(&F.dev, &sgt, p, h, PAGE_SIZE), 0);
	sg_free_table(&sgt);
	assert_int_equal(F.cap.reports, n + 2);
	dmamap_vma_destroy(vma);
	dma_free_coherent(&F.dev, PAGE_SIZE, p, h);
}

/*
 * What a driver leaves at device release is listed, one report each, with
 * the line that made it: streaming mappings, lists, coherent buffers, pool
 * blocks. The library's own (the pool's pages) are not the driver's leaks.
 */
static void test_leaks_at_device_release(void **state)
{
	struct device d2 = { 0 };
	struct scatterlist sg[2];
	struct dma_pool *pool;
	struct capture c;
	dma_addr_t h, hc, hp;
	int ls, lg, lc, lp;
	int seen[4] = { 0 };

	(void)state;
	assert_int_equal(dmamap_device_init(&d2, F.m, "leaky"), 0);
	pool = dma_pool_create("leaky-pool", &d2, 128, 0, 0);
	assert_non_null(pool);
	h = dma_map_single(&d2, F.buf, 64, DMA_TO_DEVICE); ls = __LINE__;
	assert_false(dma_mapping_error(&d2, h));
	sg_init_table(sg, 2);
	sg_set_buf(&sg[0], F.buf + PAGE_SIZE, 100);
	sg_set_buf(&sg[1], F.buf + 2 * PAGE_SIZE, 100);
	assert_int_equal(dma_map_sg(&d2, sg, 2, DMA_FROM_DEVICE), 2); lg = __LINE__;
	assert_non_null(dma_alloc_coherent(&d2, 500, &hc, GFP_KERNEL)); lc = __LINE__;
	assert_non_null(dma_pool_alloc(pool, GFP_KERNEL, &hp)); lp = __LINE__;

	capture_start(&c, F.m);
	dmamap_device_release(&d2);
	capture_stop(F.m);
	capture_start(&F.cap, F.m);
	/* the four, and the pool itself, which the device's release empties */
	assert_int_equal(c.by_kind[DMAMAP_REPORT_LEAK], 5);
	for (unsigned long i = 0; i < c.reports && i < CAPTURE_KEEP; i++) {
		if (c.rec[i].kind != DMAMAP_REPORT_LEAK || !c.rec[i].map_size)
			continue;
		assert_string_equal(c.rec[i].device, "leaky");
		assert_non_null(strstr(c.rec[i].map_file, "test-dma-debug.c"));
		seen[0] += c.rec[i].map_line == ls && c.rec[i].map_bus_addr == h && c.rec[i].map_size == 64;
		seen[1] += c.rec[i].map_line == lg && c.rec[i].map_size == 200;
		seen[2] += c.rec[i].map_line == lc && c.rec[i].map_bus_addr == hc && c.rec[i].map_size == 500;
		seen[3] += c.rec[i].map_line == lp && c.rec[i].map_bus_addr == hp && c.rec[i].map_size == 128;
	}
	assert_int_equal(seen[0] + seen[1] + seen[2] + seen[3], 4);
	for (int k = 0; k < 4; k++)
		assert_int_equal(seen[k], 1);
	assert_int_equal(stats().live_single + stats().live_sg + dmamap_checker_stats_pool(F.m), 0);
	dma_pool_destroy(pool); /* its device went first: the pool was emptied then */
	assert_int_equal(F.cap.reports, 0);
}

/* A correct driver's whole life raises nothing. */
static void test_correct_use_is_silent(void **state)
{
	struct dma_pool *pool = dma_pool_create("ok", &F.dev, 32, 32, 0);
	struct scatterlist sg[2];
	dma_addr_t h, hc, hp;
	void *c, *p;
	u8 data[256];

	(void)state;
	assert_non_null(pool);
	h = dma_map_single(&F.dev, F.buf, 256, DMA_FROM_DEVICE);
	assert_false(dma_mapping_error(&F.dev, h));
	fill_pattern(data, sizeof(data), 9);
	assert_int_equal(dmamap_dev_write(&F.dev, h, data, sizeof(data)), 0);
	dma_sync_single_for_cpu(&F.dev, h, 256, DMA_FROM_DEVICE);
	assert_int_equal(check_pattern(F.buf, 256, 9), 0);
	dma_sync_single_for_device(&F.dev, h, 256, DMA_FROM_DEVICE);
	dma_unmap_single(&F.dev, h, 256, DMA_FROM_DEVICE);

	sg_init_table(sg, 2);
	sg_set_buf(&sg[0], F.buf + PAGE_SIZE, 300);
	sg_set_buf(&sg[1], F.buf + 2 * PAGE_SIZE, 300);
	assert_int_equal(dma_map_sg(&F.dev, sg, 2, DMA_TO_DEVICE), 2);
	dma_sync_sg_for_cpu(&F.dev, sg, 2, DMA_TO_DEVICE);
	dma_sync_sg_for_device(&F.dev, sg, 2, DMA_TO_DEVICE);
	dma_unmap_sg(&F.dev, sg, 2, DMA_TO_DEVICE);

	c = dma_alloc_coherent(&F.dev, 100, &hc, GFP_KERNEL);
	p = dma_pool_zalloc(pool, GFP_KERNEL, &hp);
	assert_non_null(c);
	assert_non_null(p);
	dma_pool_free(pool, p, hp);
	dma_free_coherent(&F.dev, 100, c, hc);
	dma_pool_destroy(pool);
	assert_int_equal(F.cap.reports, 0);
	assert_int_equal(stats().live_single + stats().live_page + stats().live_sg, 0);
}

/* ------------------------------------------------------------ any ops set */

static unsigned fake_calls;

static dma_addr_t fake_map_page(struct device *dev, struct page *page, unsigned long offset, size_t size,
				enum dma_data_direction dir, struct dma_attrs *attrs)
{
	(void)dev, (void)size, (void)dir, (void)attrs;
	fake_calls++;
	return 0xd0000000ULL + (page_to_phys(page) & 0xfffff000ULL) + offset;
}

static void fake_unmap_page(struct device *dev, dma_addr_t handle, size_t size, enum dma_data_direction dir,
			    struct dma_attrs *attrs)
{
	(void)dev, (void)handle, (void)size, (void)dir, (void)attrs;
	fake_calls++;
}

static void fake_sync(struct device *dev, dma_addr_t handle, size_t size, enum dma_data_direction dir)
{
	(void)dev, (void)handle, (void)size, (void)dir;
	fake_calls++;
}

static const struct dma_map_ops fake_ops = {
	.map_page = fake_map_page,
	.unmap_page = fake_unmap_page,
	.sync_single_for_cpu = fake_sync,
	.sync_single_for_device = fake_sync,
};

/* An ops set a user installs is checked the same way: a refused call never reaches it. */
static void test_user_ops_are_covered(void **state)
{
	unsigned long n;
	dma_addr_t h;
	int lm, l;

	(void)state;
	set_dma_ops(&F.dev, &fake_ops);
	fake_calls = 0;
	h = dma_map_single(&F.dev, F.buf, 64, DMA_TO_DEVICE); lm = __LINE__;
	assert_false(dma_mapping_error(&F.dev, h));
	assert_int_equal(fake_calls, 1);
	assert_int_equal(stats().live_single, 1);
	n = F.cap.reports;
	dma_unmap_single(&F.dev, h, 32, DMA_TO_DEVICE); l = __LINE__;
	expect_report(n, DMAMAP_REPORT_SIZE_MISMATCH, l, lm);
	dma_sync_single_for_cpu(&F.dev, h + 64, 1, DMA_TO_DEVICE); l = __LINE__;
	expect_report(n + 1, DMAMAP_REPORT_NOT_MAPPED, l, 0);
	assert_int_equal(fake_calls, 1);
	dma_unmap_single(&F.dev, h, 64, DMA_TO_DEVICE);
	assert_int_equal(fake_calls, 2);
	set_dma_ops(&F.dev, NULL);
}

/* A report raised deep in an ops set names the driver's line. */
static void test_reports_below_name_the_line(void **state)
{
	unsigned long n = F.cap.reports;
	dma_addr_t h;
	int l;

	(void)state;
	*F.dev.dma_mask = DMA_BIT_MASK(24);
	h = dma_map_single(&F.dev, F.buf, 64, DMA_TO_DEVICE); l = __LINE__;
	*F.dev.dma_mask = DMA_BIT_MASK(32);
	assert_true(h == DMA_MAPPING_ERROR);
	assert_int_equal(F.cap.reports, n + 1);
	assert_int_equal(F.cap.rec_last.category, DMAMAP_REPORT_API_MISUSE); /* raised by arm_dma_ops */
	assert_non_null(strstr(F.cap.rec_last.file, "test-dma-debug.c"));
	assert_int_equal(F.cap.rec_last.line, l);
}

/* A machine destroyed with a device still holding a mapping lists the mapping. */
static void test_leak_at_machine_destroy(void **state)
{
	struct dmamap_machine *m = test_machine(16, NULL);
	struct device d = { 0 };
	struct page *pg;
	struct capture c;
	dma_addr_t h;
	int lm;

	(void)state;
	capture_start(&c, m);
	assert_int_equal(dmamap_device_init(&d, m, "left"), 0);
	pg = dmamap_alloc_pages(m, GFP_KERNEL, 0);
	assert_non_null(pg);
	h = dma_map_page(&d, pg, 0, 128, DMA_BIDIRECTIONAL); lm = __LINE__;
	assert_false(dma_mapping_error(&d, h));
	dmamap_machine_destroy(m);
	assert_non_null(capture_find(&c, DMAMAP_REPORT_LEAK));
	{
		int found = 0;

		for (unsigned long i = 0; i < c.reports && i < CAPTURE_KEEP; i++)
			found += c.rec[i].map_line == lm && c.rec[i].map_bus_addr == h && strcmp(c.rec[i].device, "left") == 0;
		assert_int_equal(found, 1);
	}
	capture_stop(NULL);
}

/* ------------------------------------------------------------ the bus side */

/* A device access reported: the access's own line, and the mapping's (0: none). */
static void expect_dev_report_(unsigned long before, enum dmamap_report_kind kind, int line, int map_line, int at)
{
	const struct captured *r = expect_report_(before, kind, line, map_line, at);

	assert_int_equal(r->category, DMAMAP_REPORT_DEVICE_FAULT);
}

#define expect_dev_report(before, kind, line, map_line) \
	expect_dev_report_((before), (kind), (line), (map_line), __LINE__)

/* Touching what is not mapped: reported at the access's line, and done as the hardware would. */
static void test_device_touches_unmapped(void **state)
{
	u8 data[64], got[64];
	unsigned long n;
	dma_addr_t h;
	int lm, lu, l;
	char at[64];

	(void)state;
	fill_pattern(data, sizeof(data), 7);
	n = F.cap.reports;
	assert_int_equal(dmamap_dev_write(&F.dev, virt_to_phys(F.buf), data, sizeof(data)), 0); l = __LINE__;
	expect_dev_report(n, DMAMAP_REPORT_DEV_UNMAPPED, l, 0);
	assert_int_equal(F.cap.rec_last.bus_addr, virt_to_phys(F.buf));
	assert_int_equal(F.cap.rec_last.size, sizeof(data));
	assert_int_equal((dmamap_dev_read)(&F.dev, virt_to_phys(F.buf), got, sizeof(got)), 0);
	assert_memory_equal(got, data, sizeof(data)); /* the write happened */
	assert_int_equal(F.cap.reports, n + 2);
	assert_string_equal(F.cap.rec_last.file, ""); /* the plain function knows no line */

	/* after an unmap, the handle is dead: the report says where it died */
	h = dma_map_single(&F.dev, F.buf + 1024, 128, DMA_FROM_DEVICE); lm = __LINE__;
	assert_false(dma_mapping_error(&F.dev, h));
	assert_int_equal(dmamap_dev_write(&F.dev, h, data, sizeof(data)), 0);
	dma_unmap_single(&F.dev, h, 128, DMA_FROM_DEVICE); lu = __LINE__;
	n = F.cap.reports;
	assert_int_equal(dmamap_dev_write(&F.dev, h, data, sizeof(data)), 0); l = __LINE__;
	expect_dev_report(n, DMAMAP_REPORT_DEV_UNMAPPED, l, lm);
	snprintf(at, sizeof(at), "test-dma-debug.c:%d", lu);
	assert_non_null(strstr(F.cap.rec_last.message, at));

	/* a freed coherent buffer, a freed pool block */
	{
		struct dma_pool *pool = dma_pool_create("p", &F.dev, 64, 0, 0);
		dma_addr_t hc, hp, hq;
		void *c, *p, *q;

		assert_non_null(pool);
		c = dma_alloc_coherent(&F.dev, PAGE_SIZE, &hc, GFP_KERNEL); lm = __LINE__;
		assert_non_null(c);
		dma_free_coherent(&F.dev, PAGE_SIZE, c, hc);
		n = F.cap.reports;
		assert_int_equal(dmamap_dev_read(&F.dev, hc + 8, got, 8), 0); l = __LINE__;
		expect_dev_report(n, DMAMAP_REPORT_DEV_UNMAPPED, l, 0);

		p = dma_pool_alloc(pool, GFP_KERNEL, &hp); lm = __LINE__;
		q = dma_pool_alloc(pool, GFP_KERNEL, &hq); /* keeps the pool's page */
		assert_non_null(p);
		assert_non_null(q);
		assert_int_equal(dmamap_dev_write(&F.dev, hp, data, 64), 0);
		assert_int_equal(F.cap.reports, n + 1);
		dma_pool_free(pool, p, hp);
		assert_int_equal(dmamap_dev_write(&F.dev, hp, data, 64), 0); l = __LINE__;
		expect_dev_report(n + 1, DMAMAP_REPORT_DEV_UNMAPPED, l, lm);
		dma_pool_free(pool, q, hq);
		dma_pool_destroy(pool);
	}
}

/* The CPU's part: synced for the CPU, the buffer is not the device's until synced back. */
static void test_device_touches_cpu_owned(void **state)
{
	u8 data[256];
	unsigned long n;
	int lm, ls, l;
	char at[64];
	dma_addr_t h;

	(void)state;
	h = rx_mapping(0, sizeof(data), 8, &lm);
	dma_sync_single_for_cpu(&F.dev, h, sizeof(data), DMA_FROM_DEVICE); ls = __LINE__;
	n = F.cap.reports;
	assert_int_equal(dmamap_dev_write(&F.dev, h + 16, data, 16), 0); l = __LINE__;
	expect_dev_report(n, DMAMAP_REPORT_DEV_CPU_OWNED, l, lm);
	snprintf(at, sizeof(at), "test-dma-debug.c:%d", ls);
	assert_non_null(strstr(F.cap.rec_last.message, at));
	dma_sync_single_for_device(&F.dev, h, sizeof(data), DMA_FROM_DEVICE);
	assert_int_equal(dmamap_dev_write(&F.dev, h, data, sizeof(data)), 0);
	assert_int_equal(F.cap.reports, n + 1);

	/* a partial sync: only that part is the CPU's */
	dma_sync_single_range_for_cpu(&F.dev, h, 0, 64, DMA_FROM_DEVICE);
	assert_int_equal(dmamap_dev_write(&F.dev, h + 64, data, 64), 0);
	assert_int_equal(F.cap.reports, n + 1);
	assert_int_equal(dmamap_dev_write(&F.dev, h + 63, data, 2), 0); l = __LINE__;
	expect_dev_report(n + 1, DMAMAP_REPORT_DEV_CPU_OWNED, l, lm);
	dma_sync_single_range_for_device(&F.dev, h, 0, 64, DMA_FROM_DEVICE);
	assert_int_equal(dmamap_dev_write(&F.dev, h, data, sizeof(data)), 0);
	assert_int_equal(F.cap.reports, n + 2);

	/* all of it to the CPU, then its first part back: the rest stays the CPU's */
	dma_sync_single_for_cpu(&F.dev, h, sizeof(data), DMA_FROM_DEVICE);
	dma_sync_single_range_for_device(&F.dev, h, 0, 128, DMA_FROM_DEVICE);
	assert_int_equal(dmamap_dev_write(&F.dev, h, data, 128), 0);
	assert_int_equal(F.cap.reports, n + 2);
	assert_int_equal(dmamap_dev_write(&F.dev, h + 128, data, 1), 0); l = __LINE__;
	expect_dev_report(n + 2, DMAMAP_REPORT_DEV_CPU_OWNED, l, lm);
	/* and its last part: only the middle stays the CPU's */
	dma_sync_single_range_for_device(&F.dev, h, 192, sizeof(data) - 192, DMA_FROM_DEVICE);
	assert_int_equal(dmamap_dev_write(&F.dev, h + 192, data, sizeof(data) - 192), 0);
	assert_int_equal(F.cap.reports, n + 3);
	dma_sync_single_range_for_device(&F.dev, h, 128, 64, DMA_FROM_DEVICE);
	assert_int_equal(dmamap_dev_write(&F.dev, h, data, sizeof(data)), 0);
	assert_int_equal(F.cap.reports, n + 3);
	dma_sync_single_for_cpu(&F.dev, h, sizeof(data), DMA_FROM_DEVICE);
	dma_unmap_single(&F.dev, h, sizeof(data), DMA_FROM_DEVICE);
	assert_int_equal(F.cap.reports, n + 3);
}

/* A report's message names bus @bus and the sync made at this file's @line. */
static void expect_owner(unsigned long long bus, int line)
{
	char want[96];
	const char *at;

	snprintf(want, sizeof(want), "the CPU owns bus %#llx (given to it by the sync at ", bus);
	at = strstr(F.cap.rec_last.message, want);
	if (!at)
		fail_msg("expected \"%s\" in: %s", want, F.cap.rec_last.message);
	snprintf(want, sizeof(want), "test-dma-debug.c:%d, not handed back", line);
	if (!strstr(at, want))
		fail_msg("expected \"%s\" in: %s", want, F.cap.rec_last.message);
}

/*
 * The CPU's parts of one mapping are followed one by one: two slots taken
 * apart leave the slot between them the device's, and a slot handed back
 * from the middle of what the CPU took is the device's again while the rest
 * stays the CPU's; each part names the sync that gave it, and the CPU's
 * stores are judged in the device's parts only.
 */
static void test_partial_syncs_own_their_parts(void **state)
{
	const struct captured *r;
	u8 data[2 * 512];
	unsigned long n;
	int lm, l0, l2, lall, l;
	dma_addr_t h;

	(void)state;
	memset(data, 0x77, sizeof(data));
	h = rx_mapping(0, 3 * 512, 15, &lm);
	dma_sync_single_range_for_cpu(&F.dev, h, 0, 512, DMA_FROM_DEVICE); l0 = __LINE__;
	dma_sync_single_range_for_cpu(&F.dev, h, 1024, 512, DMA_FROM_DEVICE); l2 = __LINE__;
	n = F.cap.reports;
	/* the slot between stays the device's, from its first byte to its last */
	assert_int_equal(dmamap_dev_write(&F.dev, h + 512, data, 512), 0);
	assert_int_equal(F.cap.reports, n);
	/* one byte either side is the CPU's */
	assert_int_equal(dmamap_dev_write(&F.dev, h + 512, data, 513), 0); l = __LINE__;
	expect_dev_report(n, DMAMAP_REPORT_DEV_CPU_OWNED, l, lm);
	expect_owner(h + 1024, l2);
	assert_int_equal(dmamap_dev_write(&F.dev, h + 511, data, 2), 0); l = __LINE__;
	expect_dev_report(n + 1, DMAMAP_REPORT_DEV_CPU_OWNED, l, lm);
	expect_owner(h + 511, l0);

	/* all of it to the CPU, the middle slot back: that slot alone is the device's */
	dma_sync_single_for_cpu(&F.dev, h, 3 * 512, DMA_FROM_DEVICE); lall = __LINE__;
	dma_sync_single_range_for_device(&F.dev, h, 512, 512, DMA_FROM_DEVICE);
	assert_int_equal(dmamap_dev_write(&F.dev, h + 512, data, 512), 0);
	assert_int_equal(F.cap.reports, n + 2);
	assert_int_equal(dmamap_dev_write(&F.dev, h + 1023, data, 2), 0); l = __LINE__;
	expect_dev_report(n + 2, DMAMAP_REPORT_DEV_CPU_OWNED, l, lm);
	expect_owner(h + 1024, lall);
	assert_int_equal(dmamap_dev_write(&F.dev, h + 511, data, 1), 0); l = __LINE__;
	expect_dev_report(n + 3, DMAMAP_REPORT_DEV_CPU_OWNED, l, lm);
	expect_owner(h + 511, lall);

	/* stores to the CPU's two slots are its business; one to the device's slot is not */
	F.buf[10] = 0x5a;
	F.buf[1100] = 0x5b;
	misuse_begin(F.m);
	F.buf[600] = 0x5c;
	misuse_end(F.m);
	dma_sync_single_range_for_cpu(&F.dev, h, 512, 512, DMA_FROM_DEVICE); l = __LINE__;
	r = expect_report(n + 4, DMAMAP_REPORT_CPU_STORE, l, lm);
	assert_non_null(strstr(r->message, "1 byte of the buffer (the first at offset 0x258)"));
	assert_int_equal(F.buf[10], 0x5a);
	assert_int_equal(F.buf[1100], 0x5b);
	assert_int_equal(F.buf[600], 0x77); /* the device's byte: the store was invalidated */
	dma_unmap_single(&F.dev, h, 3 * 512, DMA_FROM_DEVICE);
	assert_int_equal(F.cap.reports, n + 5);
}

/*
 * A part handed back that the device wrote and the CPU took none of is a
 * missing sync_for_cpu, even when the CPU took another part; a part the CPU
 * took a byte of (a status byte read) or the device never wrote goes back
 * quietly.
 */
static void test_missing_sync_for_cpu_of_a_part(void **state)
{
	u8 data[512];
	unsigned long n;
	int lm, l;
	dma_addr_t h;

	(void)state;
	memset(data, 0x33, sizeof(data));
	h = rx_mapping(0, 1024, 16, &lm);
	dma_sync_single_range_for_cpu(&F.dev, h, 0, 512, DMA_FROM_DEVICE);
	n = F.cap.reports;
	dma_sync_single_range_for_device(&F.dev, h, 512, 512, DMA_FROM_DEVICE); l = __LINE__;
	expect_report(n, DMAMAP_REPORT_MISSING_SYNC, l, lm);
	assert_int_equal(F.cap.rec_last.bus_addr, h + 512);
	dma_sync_single_range_for_device(&F.dev, h, 0, 512, DMA_FROM_DEVICE);
	assert_int_equal(F.cap.reports, n + 1);

	/* the last byte taken, all of it handed back */
	assert_int_equal(dmamap_dev_fill(&F.dev, h, 0x42, 1024), 0);
	dma_sync_single_range_for_cpu(&F.dev, h, 1023, 1, DMA_FROM_DEVICE);
	dma_sync_single_for_device(&F.dev, h, 1024, DMA_FROM_DEVICE);
	assert_int_equal(F.cap.reports, n + 1);

	/* the device writes the first half: the second goes back quietly, the first does not */
	assert_int_equal(dmamap_dev_write(&F.dev, h, data, 512), 0);
	dma_sync_single_range_for_device(&F.dev, h, 512, 512, DMA_FROM_DEVICE);
	assert_int_equal(F.cap.reports, n + 1);
	dma_sync_single_range_for_device(&F.dev, h, 511, 1, DMA_FROM_DEVICE); l = __LINE__;
	expect_report(n + 1, DMAMAP_REPORT_MISSING_SYNC, l, lm);
	dma_sync_single_for_cpu(&F.dev, h, 1024, DMA_FROM_DEVICE);
	assert_int_equal(F.buf[0], 0x33);
	assert_int_equal(F.buf[512], 0x42);
	assert_int_equal(F.buf[1023], 0x42);
	dma_unmap_single(&F.dev, h, 1024, DMA_FROM_DEVICE);
	assert_int_equal(F.cap.reports, n + 2);
}

/*
 * More separate parts than the checker follows (1024): it says so once,
 * and judges that mapping's ownership no more; its other checks go on.
 */
static void test_ownership_beyond_what_is_followed(void **state)
{
	unsigned long n, msgs;
	int lm, l;
	dma_addr_t h;

	(void)state;
	h = rx_mapping(0, PAGE_SIZE, 17, &lm);
	n = F.cap.reports;
	msgs = F.cap.messages;
	for (size_t i = 0; i < 1024; i++)
		dma_sync_single_range_for_cpu(&F.dev, h, 2 * i, 1, DMA_FROM_DEVICE);
	assert_int_equal(F.cap.messages, msgs);
	assert_int_equal(dmamap_dev_fill(&F.dev, h + 2047, 0x42, 1), 0);
	assert_int_equal(F.cap.reports, n);
	assert_int_equal(dmamap_dev_fill(&F.dev, h + 2046, 0x42, 1), 0); l = __LINE__;
	expect_dev_report(n, DMAMAP_REPORT_DEV_CPU_OWNED, l, lm);

	dma_sync_single_range_for_cpu(&F.dev, h, 2048, 1, DMA_FROM_DEVICE);
	assert_int_equal(F.cap.messages, msgs + 2);
	assert_int_equal(F.cap.reports, n + 1);
	assert_int_equal(F.cap.last_level, DMAMAP_LOG_WARN);
	assert_non_null(strstr(F.cap.last, "stops judging that mapping's ownership"));
	assert_int_equal(dmamap_dev_fill(&F.dev, h + 2046, 0x42, 1), 0);
	dma_sync_single_for_device(&F.dev, h, PAGE_SIZE, DMA_FROM_DEVICE);
	dma_sync_single_range_for_cpu(&F.dev, h, 4000, 1, DMA_FROM_DEVICE);
	assert_int_equal(F.cap.messages, msgs + 2);
	assert_int_equal(F.cap.reports, n + 1);
	/* its direction is still judged */
	assert_int_equal(dmamap_dev_read(&F.dev, h, F.buf + PAGE_SIZE, 16), 0); l = __LINE__;
	expect_dev_report(n + 1, DMAMAP_REPORT_DEV_READ_FROM_DEVICE, l, lm);
	dma_unmap_single(&F.dev, h, PAGE_SIZE, DMA_FROM_DEVICE);
	assert_int_equal(F.cap.reports, n + 2);
}

/* A list released, its memory mapped again by another call: a second release of the list is a double unmap. */
static void test_sg_double_unmap_after_reuse(void **state)
{
	const struct captured *r;
	struct scatterlist sgl[2];
	unsigned long n;
	int lm, lu, l;
	char at[64];
	dma_addr_t h;

	(void)state;
	sg_init_table(sgl, 2);
	sg_set_buf(&sgl[0], F.buf, 512);
	sg_set_buf(&sgl[1], F.buf + PAGE_SIZE, 512);
	assert_int_equal(dma_map_sg(&F.dev, sgl, 2, DMA_TO_DEVICE), 2); lm = __LINE__;
	dma_unmap_sg(&F.dev, sgl, 2, DMA_TO_DEVICE); lu = __LINE__;
	h = dma_map_single(&F.dev, F.buf, 512, DMA_TO_DEVICE);
	assert_false(dma_mapping_error(&F.dev, h));
	assert_true(h == sg_dma_address(&sgl[0]));
	n = F.cap.reports;
	dma_unmap_sg(&F.dev, sgl, 2, DMA_TO_DEVICE); l = __LINE__;
	r = expect_report(n, DMAMAP_REPORT_DOUBLE_UNMAP, l, lm);
	snprintf(at, sizeof(at), "test-dma-debug.c:%d;", lu);
	if (!strstr(r->message, "already released at") || !strstr(r->message, at) ||
	    !strstr(r->message, "of 2 entries (2 segments)"))
		fail_msg("%s", r->message);
	assert_int_equal(stats().live_single, 1);
	dma_unmap_single(&F.dev, h, 512, DMA_TO_DEVICE);
	assert_int_equal(F.cap.reports, n + 1);
	assert_int_equal(stats().live_single, 0);
}

/* A sync where the driver holds nothing, in memory the library holds (a pool's page): not mapped, refused. */
static void test_sync_in_library_memory_refused(void **state)
{
	struct snapshot s0;
	const struct captured *r;
	struct dma_pool *pool;
	unsigned long n;
	dma_addr_t ha, hb;
	int lb, lf, l;
	char at[64];
	void *a, *b;

	(void)state;
	pool = dma_pool_create("dbgpool", &F.dev, 64, 64, 0);
	assert_non_null(pool);
	a = dma_pool_alloc(pool, GFP_KERNEL, &ha);
	b = dma_pool_alloc(pool, GFP_KERNEL, &hb); lb = __LINE__;
	assert_non_null(a);
	assert_non_null(b);
	dma_pool_free(pool, b, hb); lf = __LINE__;
	s0 = snap();
	n = F.cap.reports;
	dma_sync_single_for_cpu(&F.dev, hb, 64, DMA_FROM_DEVICE); l = __LINE__;
	r = expect_report(n, DMAMAP_REPORT_NOT_MAPPED, l, lb);
	snprintf(at, sizeof(at), "test-dma-debug.c:%d;", lf);
	if (!strstr(r->message, "already released at") || !strstr(r->message, at))
		fail_msg("%s", r->message);
	expect_unchanged(&s0);
	dma_sync_single_for_device(&F.dev, ha + 1024, 64, DMA_TO_DEVICE); l = __LINE__;
	r = expect_report(n + 1, DMAMAP_REPORT_NOT_MAPPED, l, 0);
	assert_non_null(strstr(r->message, "the device has no live mapping there"));
	expect_unchanged(&s0);
	/* the block still allocated is synced as before */
	dma_sync_single_for_device(&F.dev, ha, 64, DMA_TO_DEVICE);
	dma_pool_free(pool, a, ha);
	dma_pool_destroy(pool);
	assert_int_equal(F.cap.reports, n + 2);
}

/* The report @t kept last is one of @kind at @line, naming the mapping made at @map_line and saying @text. */
static void expect_kept(const struct dmamap_test *t, unsigned long before, enum dmamap_report_kind kind, int line,
			int map_line, const char *text)
{
	const struct dmamap_test_report *r = &t->kept[t->nr_kept - 1];

	assert_int_equal(t->reports, before + 1);
	if (r->kind != kind || r->line != line || r->map_line != map_line || !strstr(r->message, text))
		fail_msg("expected %s at :%d (map :%d) saying \"%s\", got %s at :%d (map :%d): %s",
			 dmamap_report_kind_name(kind), line, map_line, text, dmamap_report_kind_name(r->kind), r->line,
			 r->map_line, r->message);
}

/*
 * Behind dmabounce the safe buffer goes back to its pool within the driver's
 * unmap, at the same bus address: a second unmap, a sync or a device access
 * afterwards names the driver's own unmap, not the library's release.
 */
static void test_bounce_use_after_unmap_names_the_unmap(void **state)
{
	struct dmamap_test_traits tr = { .bounce = true, .quiet = true };
	struct dmamap_test t;
	int lm, lu, l;
	char at[64];
	dma_addr_t d;
	u8 *buf;

	(void)state;
	assert_int_equal(dmamap_test_init(&t, &tr), 0);
	buf = kmalloc(256, GFP_KERNEL);
	assert_non_null(buf);
	d = dma_map_single(&t.dev, buf, 256, DMA_FROM_DEVICE); lm = __LINE__;
	assert_false(dma_mapping_error(&t.dev, d));
	dma_unmap_single(&t.dev, d, 256, DMA_FROM_DEVICE); lu = __LINE__;
	snprintf(at, sizeof(at), "released at %s:%d", __FILE__, lu);
	dma_sync_single_for_cpu(&t.dev, d, 256, DMA_FROM_DEVICE); l = __LINE__;
	expect_kept(&t, 0, DMAMAP_REPORT_NOT_MAPPED, l, lm, at);
	dma_sync_single_for_device(&t.dev, d + 0x300, 16, DMA_TO_DEVICE); l = __LINE__;
	expect_kept(&t, 1, DMAMAP_REPORT_NOT_MAPPED, l, 0, "no live mapping there");
	dma_unmap_single(&t.dev, d, 256, DMA_FROM_DEVICE); l = __LINE__;
	expect_kept(&t, 2, DMAMAP_REPORT_DOUBLE_UNMAP, l, lm, at);
	assert_int_equal(dmamap_dev_write(&t.dev, d, "abcd", 4), 0); l = __LINE__;
	expect_kept(&t, 3, DMAMAP_REPORT_DEV_UNMAPPED, l, lm, at);
	kfree(buf);
	dmamap_test_fini(&t);
	dmamap_machine_set_current(F.m);
}

/*
 * Behind dmabounce nothing cleans the driver's buffer, so it is dirty when
 * the device takes it (a frame just filled, a copy back just made): a store
 * after the hand-over is still found, from what the CPU saw at it, and
 * said with what it meets (the device read the copy without it; the copy
 * back overwrites it).
 */
static void test_bounce_store_after_hand_over(void **state)
{
	struct dmamap_test_traits tr = { .bounce = true, .quiet = true };
	struct dmamap_test t;
	u8 *tx, *rx, got[64];
	int lm, l;
	dma_addr_t d;

	(void)state;
	assert_int_equal(dmamap_test_init(&t, &tr), 0);
	tx = kmalloc(64, GFP_KERNEL);
	rx = kmalloc(256, GFP_KERNEL);
	assert_non_null(tx);
	assert_non_null(rx);

	/* a frame filled and mapped, left alone: nothing to say */
	memset(tx, 0x11, 64);
	d = dma_map_single(&t.dev, tx, 64, DMA_TO_DEVICE);
	assert_false(dma_mapping_error(&t.dev, d));
	dma_unmap_single(&t.dev, d, 64, DMA_TO_DEVICE);
	assert_int_equal(t.reports, 0);
	/* patched after the map: the device read the copy made at the map */
	d = dma_map_single(&t.dev, tx, 64, DMA_TO_DEVICE); lm = __LINE__;
	assert_false(dma_mapping_error(&t.dev, d));
	tx[3] = 0x99;
	tx[4] = 0x98;
	assert_int_equal(dmamap_dev_read(&t.dev, d, got, 64), 0);
	assert_int_equal(got[3], 0x11);
	dma_unmap_single(&t.dev, d, 64, DMA_TO_DEVICE); l = __LINE__;
	expect_kept(&t, 0, DMAMAP_REPORT_CPU_STORE, l, lm, "stored to 2 bytes of the buffer (the first at offset 0x3)");
	expect_kept(&t, 0, DMAMAP_REPORT_CPU_STORE, l, lm, "the device may have read what was there before");

	/* a receive buffer after a sync round (the copy back left it dirty), then stored to */
	memset(rx, 0, 256);
	d = dma_map_single(&t.dev, rx, 256, DMA_FROM_DEVICE); lm = __LINE__;
	assert_false(dma_mapping_error(&t.dev, d));
	dma_sync_single_for_cpu(&t.dev, d, 256, DMA_FROM_DEVICE);
	dma_sync_single_for_device(&t.dev, d, 256, DMA_FROM_DEVICE);
	assert_int_equal(t.reports, 1);
	rx[20] = 7;
	assert_int_equal(dmamap_dev_write(&t.dev, d + 100, "abcd", 4), 0);
	dma_unmap_single(&t.dev, d, 256, DMA_FROM_DEVICE); l = __LINE__;
	expect_kept(&t, 1, DMAMAP_REPORT_CPU_STORE, l, lm, "1 byte of the buffer (the first at offset 0x14)");
	expect_kept(&t, 1, DMAMAP_REPORT_CPU_STORE, l, lm, "the copy back from the bounce buffer overwrites them");
	assert_int_equal(rx[20], 0);
	assert_memory_equal(rx + 100, "abcd", 4);
	kfree(tx);
	kfree(rx);
	dmamap_test_fini(&t);
	dmamap_machine_set_current(F.m);
}

/* The direction is the device's too. */
static void test_device_direction(void **state)
{
	u8 data[64];
	unsigned long n = F.cap.reports;
	dma_addr_t tx, rx;
	int lt, lr, l;

	(void)state;
	tx = dma_map_single(&F.dev, F.buf, 64, DMA_TO_DEVICE); lt = __LINE__;
	rx = dma_map_single(&F.dev, F.buf + PAGE_SIZE, 64, DMA_FROM_DEVICE); lr = __LINE__;
	assert_false(dma_mapping_error(&F.dev, tx) || dma_mapping_error(&F.dev, rx));
	assert_int_equal(dmamap_dev_read(&F.dev, tx, data, 64), 0);
	assert_int_equal(dmamap_dev_write(&F.dev, rx, data, 64), 0);
	assert_int_equal(F.cap.reports, n);
	assert_int_equal(dmamap_dev_write(&F.dev, tx, data, 64), 0); l = __LINE__;
	expect_dev_report(n, DMAMAP_REPORT_DEV_WRITE_TO_DEVICE, l, lt);
	assert_int_equal(F.cap.rec_last.map_direction, DMA_TO_DEVICE);
	assert_int_equal(dmamap_dev_read(&F.dev, rx, data, 64), 0); l = __LINE__;
	expect_dev_report(n + 1, DMAMAP_REPORT_DEV_READ_FROM_DEVICE, l, lr);
	dma_unmap_single(&F.dev, tx, 64, DMA_TO_DEVICE);
	dma_unmap_single(&F.dev, rx, 64, DMA_FROM_DEVICE);
	assert_int_equal(F.cap.reports, n + 2);
}

/* A buffer the device wrote handed back to it with no sync for the CPU: the read between was stale. */
static void test_missing_sync_for_cpu(void **state)
{
	unsigned long n;
	int lm, l;
	dma_addr_t h;

	(void)state;
	h = rx_mapping(0, 256, 9, &lm);
	n = F.cap.reports;
	dma_sync_single_for_device(&F.dev, h, 256, DMA_FROM_DEVICE); l = __LINE__;
	expect_report(n, DMAMAP_REPORT_MISSING_SYNC, l, lm);
	/* nothing written since: no report; written, then taken and given back: none either */
	dma_sync_single_for_device(&F.dev, h, 256, DMA_FROM_DEVICE);
	assert_int_equal(dmamap_dev_fill(&F.dev, h, 0x42, 256), 0);
	dma_sync_single_for_cpu(&F.dev, h, 256, DMA_FROM_DEVICE);
	dma_sync_single_for_device(&F.dev, h, 256, DMA_FROM_DEVICE);
	dma_unmap_single(&F.dev, h, 256, DMA_FROM_DEVICE);
	assert_int_equal(F.cap.reports, n + 1);
}

/*
 * Behind an IOMMU the IOMMU judges what is mapped (one fault, no second report, which names what the checker
 * knows of the address); ownership is still checked.
 */
static void test_device_behind_iommu(void **state)
{
	struct dma_iommu_mapping *map = arm_iommu_create_mapping(F.m, 0x80000000ULL, 16u << 20, 0);
	u8 data[64];
	unsigned long n;
	dma_addr_t h;
	int lm, lu, l;
	char at[96];

	(void)state;
	assert_false(IS_ERR(map));
	assert_int_equal(arm_iommu_attach_device(&F.dev, map), 0);
	n = F.cap.reports;
	assert_int_equal(dmamap_dev_read(&F.dev, 0x80400000ULL, data, 8), -EFAULT); l = __LINE__;
	assert_int_equal(F.cap.reports, n + 1);
	assert_int_equal(F.cap.rec_last.kind, DMAMAP_REPORT_IOMMU_FAULT);
	assert_int_equal(F.cap.rec_last.line, l); /* the fault names the access's line too */

	h = dma_map_single(&F.dev, F.buf, 64, DMA_BIDIRECTIONAL); lm = __LINE__;
	assert_false(dma_mapping_error(&F.dev, h));
	dma_sync_single_for_cpu(&F.dev, h, 64, DMA_BIDIRECTIONAL);
	n = F.cap.reports;
	assert_int_equal(dmamap_dev_read(&F.dev, h, data, 64), 0); l = __LINE__;
	expect_dev_report(n, DMAMAP_REPORT_DEV_CPU_OWNED, l, lm);
	dma_unmap_single(&F.dev, h, 64, DMA_BIDIRECTIONAL);

	/* the fault names the mapping the IOMMU protected, and the release of the one it no longer maps */
	h = dma_map_single(&F.dev, F.buf, 64, DMA_TO_DEVICE); lm = __LINE__;
	assert_false(dma_mapping_error(&F.dev, h));
	n = F.cap.reports;
	assert_int_equal(dmamap_dev_write(&F.dev, h + 8, data, 8), -EFAULT);
	assert_int_equal(F.cap.reports, n + 1);
	assert_int_equal(F.cap.rec_last.kind, DMAMAP_REPORT_IOMMU_FAULT);
	assert_non_null(strstr(F.cap.rec_last.message, "mapped read-only; it lies in the dma_map_single(DMA_TO_DEVICE)"));
	snprintf(at, sizeof(at), "test-dma-debug.c:%d", lm);
	assert_non_null(strstr(F.cap.rec_last.message, at));
	dma_unmap_single(&F.dev, h, 64, DMA_TO_DEVICE); lu = __LINE__;
	assert_int_equal(dmamap_dev_read(&F.dev, h, data, 8), -EFAULT);
	assert_int_equal(F.cap.reports, n + 2);
	assert_non_null(strstr(F.cap.rec_last.message, "unmapped; the dma_map_single(DMA_TO_DEVICE)"));
	snprintf(at, sizeof(at), "test-dma-debug.c:%d was released at ", lm);
	assert_non_null(strstr(F.cap.rec_last.message, at));
	snprintf(at, sizeof(at), "test-dma-debug.c:%d", lu);
	assert_non_null(strstr(F.cap.rec_last.message, at));
	/* an address nothing was mapped at: the IOMMU's word alone */
	assert_int_equal(dmamap_dev_read(&F.dev, h + (1u << 20), data, 8), -EFAULT);
	assert_true(strstr(F.cap.rec_last.message, ": unmapped") && !strstr(F.cap.rec_last.message, "; "));
	arm_iommu_detach_device(&F.dev);
	arm_iommu_release_mapping(map);
}

/* Detached from its IOMMU with mappings live: each is reported where it was made, then refused as unknown. */
static void test_detach_with_live_mappings(void **state)
{
	struct dma_iommu_mapping *map = arm_iommu_create_mapping(F.m, 0x80000000ULL, 16u << 20, 0);
	const struct captured *r;
	unsigned long n;
	dma_addr_t h, hc;
	void *cpu;
	int lm, la, ld;

	(void)state;
	assert_false(IS_ERR(map));
	assert_int_equal(arm_iommu_attach_device(&F.dev, map), 0);
	h = dma_map_single(&F.dev, F.buf, 64, DMA_TO_DEVICE); lm = __LINE__;
	assert_false(dma_mapping_error(&F.dev, h));
	cpu = dma_alloc_coherent(&F.dev, PAGE_SIZE, &hc, GFP_KERNEL); la = __LINE__;
	assert_non_null(cpu);
	n = F.cap.reports;
	arm_iommu_detach_device(&F.dev); ld = __LINE__;
	assert_int_equal(F.cap.reports, n + 2);
	assert_int_equal(F.cap.by_kind[DMAMAP_REPORT_LEAK], 2);
	r = capture_find(&F.cap, DMAMAP_REPORT_LEAK);
	assert_non_null(r);
	assert_int_equal(r->map_line, lm); /* in the order they were made, as at device release */
	assert_non_null(strstr(r->message, "arm_iommu_detach_device: dma_map_single(DMA_TO_DEVICE)"));
	assert_int_equal(F.cap.rec_last.map_line, la);
	assert_non_null(strstr(F.cap.rec_last.message, "arm_iommu_detach_device: dma_alloc_attrs of 0x1000 bytes"));
	(void)ld;

	/* the default ops cannot undo them: refused, nothing else said at release */
	dma_unmap_single(&F.dev, h, 64, DMA_TO_DEVICE);
	assert_int_equal(F.cap.reports, n + 3);
	assert_int_equal(F.cap.rec_last.kind, DMAMAP_REPORT_NOT_MAPPED);

	/* attached again, the device maps and unmaps as before */
	assert_int_equal(arm_iommu_attach_device(&F.dev, map), 0);
	h = dma_map_single(&F.dev, F.buf, 64, DMA_TO_DEVICE);
	assert_false(dma_mapping_error(&F.dev, h));
	dma_unmap_single(&F.dev, h, 64, DMA_TO_DEVICE);
	arm_iommu_detach_device(&F.dev);
	assert_int_equal(F.cap.reports, n + 3);
	arm_iommu_release_mapping(map);
	F.cap.by_kind[DMAMAP_REPORT_LEAK] = 0;
}

/* ------------------------------------------------------------ the CPU side */

/*
 * A record is reused once its mapping is gone: the mapping it holds next
 * inherits nothing of the last, neither its dma_mapping_error() nor the sync
 * that gave it all to the CPU.
 */
static void test_reused_record_starts_afresh(void **state)
{
	unsigned long n, unchecked, stores;
	int lm, l;
	dma_addr_t h;

	(void)state;
	h = dma_map_single(&F.dev, F.buf, 256, DMA_BIDIRECTIONAL);
	assert_false(dma_mapping_error(&F.dev, h));
	dma_sync_single_for_cpu(&F.dev, h, 256, DMA_BIDIRECTIONAL);
	dma_unmap_single(&F.dev, h, 256, DMA_BIDIRECTIONAL);
	assert_int_equal(stats().live_single, 0);

	/* the record freed last is the next one used: never checked, stored to while the device owns it */
	fill_pattern(F.buf, 256, 14);
	n = F.cap.reports;
	unchecked = F.cap.by_kind[DMAMAP_REPORT_UNCHECKED_ERROR];
	stores = F.cap.by_kind[DMAMAP_REPORT_CPU_STORE];
	h = dma_map_single(&F.dev, F.buf, 256, DMA_TO_DEVICE); lm = __LINE__;
	F.buf[10] ^= 0xff;
	assert_int_equal(F.cap.reports, n);
	dma_unmap_single(&F.dev, h, 256, DMA_TO_DEVICE); l = __LINE__;
	assert_int_equal(F.cap.reports, n + 2);
	assert_int_equal(F.cap.by_kind[DMAMAP_REPORT_UNCHECKED_ERROR], unchecked + 1);
	assert_int_equal(F.cap.by_kind[DMAMAP_REPORT_CPU_STORE], stores + 1);
	assert_int_equal(F.cap.rec_last.line, l);
	assert_int_equal(F.cap.rec_last.map_line, lm);
	assert_int_equal(stats().live_single, 0);
}

/* A store into a buffer the device owns: found at the hand-back, from the cache's dirty bytes. */
static void test_cpu_store_while_device_owns(void **state)
{
	const struct captured *r;
	unsigned long n;
	int lm, l;
	dma_addr_t h;

	(void)state;
	/* FROM_DEVICE: the unmap's invalidate discards the store, and the CPU sees the device's bytes */
	h = rx_mapping(0, 256, 11, &lm);
	misuse_begin(F.m);
	F.buf[100] = 0x5a;
	F.buf[101] = 0x5b;
	misuse_end(F.m);
	n = F.cap.reports;
	dma_unmap_single(&F.dev, h, 256, DMA_FROM_DEVICE); l = __LINE__;
	r = expect_report(n, DMAMAP_REPORT_CPU_STORE, l, lm);
	assert_non_null(strstr(r->message, "2 bytes"));
	assert_non_null(strstr(r->message, "offset 0x64"));
	assert_int_equal(check_pattern(F.buf, 256, 11), 0); /* performed: the device's data */

	/* TO_DEVICE: the device may have read the old bytes */
	fill_pattern(F.buf, 256, 12);
	h = dma_map_single(&F.dev, F.buf, 256, DMA_TO_DEVICE); lm = __LINE__;
	assert_false(dma_mapping_error(&F.dev, h));
	F.buf[0] ^= 0xff;
	n = F.cap.reports;
	dma_unmap_single(&F.dev, h, 256, DMA_TO_DEVICE); l = __LINE__;
	r = expect_report(n, DMAMAP_REPORT_CPU_STORE, l, lm);
	assert_non_null(strstr(r->message, "may have read"));

	/* the CPU's own part may be written: synced for the CPU first, or mapped dirty with SKIP_CPU_SYNC */
	h = rx_mapping(0, 256, 13, &lm);
	dma_sync_single_range_for_cpu(&F.dev, h, 0, 64, DMA_FROM_DEVICE);
	memset(F.buf, 0x11, 64);
	dma_sync_single_range_for_device(&F.dev, h, 0, 64, DMA_FROM_DEVICE);
	n = F.cap.reports;
	dma_unmap_single(&F.dev, h, 256, DMA_FROM_DEVICE);
	assert_int_equal(F.cap.reports, n);
	h = rx_mapping(0, 256, 13, &lm);
	dma_sync_single_range_for_cpu(&F.dev, h, 64, 64, DMA_FROM_DEVICE);
	memset(F.buf + 64, 0x11, 64); /* still the CPU's at the unmap */
	dma_unmap_single(&F.dev, h, 256, DMA_FROM_DEVICE);
	assert_int_equal(F.cap.reports, n);
	{
		DEFINE_DMA_ATTRS(attrs);

		dma_set_attr(DMA_ATTR_SKIP_CPU_SYNC, &attrs);
		memset(F.buf, 0x22, 256); /* dirty in the cache: the map does not clean it */
		h = dma_map_single_attrs(&F.dev, F.buf, 256, DMA_TO_DEVICE, &attrs);
		assert_false(dma_mapping_error(&F.dev, h));
		dma_unmap_single_attrs(&F.dev, h, 256, DMA_TO_DEVICE, &attrs);
		assert_int_equal(F.cap.reports, n);
	}
}

/* The classic: a receive buffer sharing a cache line with a field the driver writes during the DMA. */
static void test_shared_cache_line_bytes_lost(void **state)
{
	struct rx_with_field {
		u8 status[4];   /* the driver's */
		u8 rx[60];      /* the device's */
	} *p = (struct rx_with_field *)F.buf;
	const struct captured *r;
	u8 data[60];
	unsigned long n;
	dma_addr_t h;
	int lm, l;

	(void)state;
	h = dma_map_single(&F.dev, p->rx, sizeof(p->rx), DMA_FROM_DEVICE); lm = __LINE__;
	assert_false(dma_mapping_error(&F.dev, h));
	fill_pattern(data, sizeof(data), 14);
	assert_int_equal(dmamap_dev_write(&F.dev, h, data, sizeof(data)), 0);
	p->status[0] = 1; /* while the device owns rx */
	n = F.cap.reports;
	dma_unmap_single(&F.dev, h, sizeof(p->rx), DMA_FROM_DEVICE); l = __LINE__;
	r = expect_report(n, DMAMAP_REPORT_SHARED_CACHELINE, l, lm);
	assert_non_null(strstr(r->message, "first cache line with the 4 bytes before it"));
	assert_non_null(strstr(r->message, "bytes 0-0x1b"));
	assert_int_not_equal(check_pattern(p->rx, 28, 14), 0); /* lost, as the report says */
	assert_int_equal(check_pattern(p->rx + 28, 32, 0) != 0, 1);
	assert_memory_equal(p->rx + 28, data + 28, 32); /* the rest arrived */

	/* the same buffer, the field left alone: nothing lost, nothing said */
	h = dma_map_single(&F.dev, p->rx, sizeof(p->rx), DMA_FROM_DEVICE);
	assert_false(dma_mapping_error(&F.dev, h));
	assert_int_equal(dmamap_dev_write(&F.dev, h, data, sizeof(data)), 0);
	dma_unmap_single(&F.dev, h, sizeof(p->rx), DMA_FROM_DEVICE);
	assert_memory_equal(p->rx, data, sizeof(data));
	assert_int_equal(F.cap.reports, n + 1);
}

/* A buffer sharing both edge lines with fields written during the DMA: one report names both losses. */
static void test_shared_cache_lines_both_edges(void **state)
{
	struct rx_between {
		u8 status[4];   /* the driver's */
		u8 rx[40];      /* the device's: from the first line into the second */
		u8 count[20];   /* the driver's */
	} *p = (struct rx_between *)F.buf;
	const struct captured *r;
	u8 data[40];
	unsigned long n;
	dma_addr_t h;
	int lm, l;

	(void)state;
	h = dma_map_single(&F.dev, p->rx, sizeof(p->rx), DMA_FROM_DEVICE); lm = __LINE__;
	assert_false(dma_mapping_error(&F.dev, h));
	fill_pattern(data, sizeof(data), 19);
	assert_int_equal(dmamap_dev_write(&F.dev, h, data, sizeof(data)), 0);
	p->status[0] = 1;
	p->count[0] = 2;
	n = F.cap.reports;
	dma_unmap_single(&F.dev, h, sizeof(p->rx), DMA_FROM_DEVICE); l = __LINE__;
	r = expect_report(n, DMAMAP_REPORT_SHARED_CACHELINE, l, lm);
	assert_non_null(strstr(r->message, "first cache line with the 4 bytes before it and its last with the 20 bytes "
					   "after it, which the CPU wrote (1 and 1 of them)"));
	assert_non_null(strstr(r->message, "over bytes 0-0x1b and 0x1c-0x27"));
	/* all 40 lost, as it says: both lines went back whole */
	for (size_t i = 0; i < sizeof(data); i++)
		if (p->rx[i] == data[i])
			fail_msg("byte %zu arrived", i);
	assert_int_equal(p->status[0], 1);
	assert_int_equal(p->count[0], 2);

	/* only the last line's neighbour written: that line alone is named */
	h = dma_map_single(&F.dev, p->rx, sizeof(p->rx), DMA_FROM_DEVICE); lm = __LINE__;
	assert_false(dma_mapping_error(&F.dev, h));
	assert_int_equal(dmamap_dev_write(&F.dev, h, data, sizeof(data)), 0);
	p->count[1] = 3;
	dma_unmap_single(&F.dev, h, sizeof(p->rx), DMA_FROM_DEVICE); l = __LINE__;
	r = expect_report(n + 1, DMAMAP_REPORT_SHARED_CACHELINE, l, lm);
	assert_non_null(strstr(r->message, "shares its last cache line with the 20 bytes after it, which the CPU wrote "
					   "(1 of them)"));
	assert_non_null(strstr(r->message, "over bytes 0x1c-0x27"));
	assert_memory_equal(p->rx, data, 28);
}

/* On a coherent device a store while the device owns the buffer is not discarded: the report says so. */
static void test_cpu_store_on_coherent_device(void **state)
{
	const struct captured *r;
	unsigned long n;
	int lm, l;
	dma_addr_t h;

	(void)state;
	F.dev.dma_coherent = true;
	h = rx_mapping(0, 256, 18, &lm);
	F.buf[10] = 5;
	n = F.cap.reports;
	dma_unmap_single(&F.dev, h, 256, DMA_FROM_DEVICE); l = __LINE__;
	r = expect_report(n, DMAMAP_REPORT_CPU_STORE, l, lm);
	assert_non_null(strstr(r->message, "on a coherent device nothing discards them"));
	assert_int_equal(F.buf[10], 5);
	F.dev.dma_coherent = false;
}

/*
 * On a coherent device the CPU fills its part of a buffer, hands it back,
 * and the device then writes there and elsewhere: the device's bytes are no
 * CPU store. A store of the CPU's own after that still is.
 */
static void test_coherent_device_writes_after_cpu_fill(void **state)
{
	u8 rx[256], data[256];
	const struct captured *r;
	unsigned long n;
	int lm, l;
	dma_addr_t h;

	(void)state;
	F.dev.dma_coherent = true;
	h = dma_map_single(&F.dev, F.buf, 256, DMA_BIDIRECTIONAL); lm = __LINE__;
	assert_false(dma_mapping_error(&F.dev, h));
	dma_sync_single_range_for_cpu(&F.dev, h, 64, 64, DMA_BIDIRECTIONAL);
	memset(F.buf + 64, 0x22, 64);
	dma_sync_single_range_for_device(&F.dev, h, 64, 64, DMA_BIDIRECTIONAL);
	fill_pattern(data, sizeof(data), 21);
	assert_int_equal(dmamap_dev_write(&F.dev, h + 100, data, 8), 0);   /* where the CPU filled */
	assert_int_equal(dmamap_dev_write(&F.dev, h + 200, data + 8, 8), 0); /* and where it did not */
	dma_sync_single_for_cpu(&F.dev, h, 256, DMA_BIDIRECTIONAL);
	assert_int_equal(F.cap.reports, 0);
	memcpy(rx, F.buf, sizeof(rx));
	assert_memory_equal(rx + 100, data, 8);
	assert_memory_equal(rx + 200, data + 8, 8);
	assert_int_equal(rx[64], 0x22);

	/* handed back dirty again: the device writes, then the CPU stores where the device owns */
	dma_sync_single_for_device(&F.dev, h, 256, DMA_BIDIRECTIONAL);
	assert_int_equal(dmamap_dev_write(&F.dev, h + 8, data + 16, 8), 0);
	F.buf[30] = 5;
	n = F.cap.reports;
	dma_unmap_single(&F.dev, h, 256, DMA_BIDIRECTIONAL); l = __LINE__;
	r = expect_report(n, DMAMAP_REPORT_CPU_STORE, l, lm);
	assert_non_null(strstr(r->message, "stored to 1 byte of the buffer (the first at offset 0x1e)"));
	assert_memory_equal(F.buf + 8, data + 16, 8);
	F.dev.dma_coherent = false;
}

/*
 * Two small kmalloc objects packed into one cache line: a receive buffer and
 * the driver's statistics. The map says so, naming the allocation that
 * shares the line and the buffer's bytes at risk; the unmap, when the
 * statistics update does cost them, does not say it twice.
 */
static void test_shared_cache_line_at_map(void **state)
{
	struct dmamap_machine_config cfg;
	u8 *rx = kmalloc(12, GFP_KERNEL), data[12];
	u8 *stat = kmalloc(12, GFP_KERNEL); int ls_alloc = __LINE__;
	struct scatterlist sg;
	const struct captured *r;
	char want[160];
	unsigned long n;
	dma_addr_t h;
	int lm;

	(void)state;
	/* the first two slots of a fresh 16-byte slab: one line, the buffer first */
	dmamap_machine_get_config(F.m, &cfg);
	assert_ptr_equal(stat, rx + 16);
	assert_int_equal(virt_to_phys(rx) % cfg.cache_line_size, 0);
	n = F.cap.reports;
	h = dma_map_single(&F.dev, rx, 12, DMA_FROM_DEVICE); lm = __LINE__;
	r = expect_report(n, DMAMAP_REPORT_SHARED_CACHELINE, lm, lm);
	assert_int_equal(r->bus_addr, h);
	assert_int_equal(r->size, 12);
	assert_int_equal(r->direction, DMA_FROM_DEVICE);
	assert_non_null(strstr(r->message, "last cache line"));
	assert_non_null(strstr(r->message, "bytes 0-0xb"));
	snprintf(want, sizeof(want), "test-dma-debug.c:%d", ls_alloc);
	assert_non_null(strstr(r->message, want));
	assert_false(dma_mapping_error(&F.dev, h));
	fill_pattern(data, sizeof(data), 15);
	assert_int_equal(dmamap_dev_write(&F.dev, h, data, sizeof(data)), 0);
	stat[0]++; /* the driver counts, while the device owns rx */
	dma_unmap_single(&F.dev, h, 12, DMA_FROM_DEVICE);
	assert_int_equal(F.cap.reports, n + 1); /* said once, at the map */
	assert_memory_not_equal(rx, data, sizeof(data)); /* and lost, as it said */
	assert_int_equal(stat[0], 1);

	/* a list entry alike, named by its list's call */
	sg_init_one(&sg, rx, 12);
	assert_int_equal(dma_map_sg(&F.dev, &sg, 1, DMA_BIDIRECTIONAL), 1); lm = __LINE__;
	r = expect_report(n + 1, DMAMAP_REPORT_SHARED_CACHELINE, lm, lm);
	assert_non_null(strstr(r->message, "dma_map_sg(DMA_BIDIRECTIONAL)"));
	dma_unmap_sg(&F.dev, &sg, 1, DMA_BIDIRECTIONAL);

	/* the device only reads a TO_DEVICE buffer: nothing to lose, nothing said */
	h = dma_map_single(&F.dev, rx, 12, DMA_TO_DEVICE);
	assert_false(dma_mapping_error(&F.dev, h));
	dma_unmap_single(&F.dev, h, 12, DMA_TO_DEVICE);
	assert_int_equal(F.cap.reports, n + 2);
	kfree(stat);
	kfree(rx);
}

/* kmalloc aligned to the cache line (the default): the same objects, and a buffer with slack after it, are safe. */
static void test_aligned_kmalloc_shares_no_line(void **state)
{
	u8 *rx = kmalloc(12, GFP_KERNEL), *stat = kmalloc(12, GFP_KERNEL), *frame = kmalloc(1500, GFP_KERNEL);
	unsigned long n = F.cap.reports;
	dma_addr_t h;

	(void)state;
	assert_non_null(rx);
	assert_non_null(stat);
	assert_non_null(frame);
	h = dma_map_single(&F.dev, rx, 12, DMA_FROM_DEVICE);
	assert_false(dma_mapping_error(&F.dev, h));
	stat[0]++;
	dma_unmap_single(&F.dev, h, 12, DMA_FROM_DEVICE);
	h = dma_map_single(&F.dev, frame, 1500, DMA_FROM_DEVICE); /* the line after byte 1500 is the object's slack */
	assert_false(dma_mapping_error(&F.dev, h));
	dma_unmap_single(&F.dev, h, 1500, DMA_FROM_DEVICE);
	h = dma_map_single(&F.dev, frame + 100, 64, DMA_FROM_DEVICE); /* inside one object: the unmap's business */
	assert_false(dma_mapping_error(&F.dev, h));
	dma_unmap_single(&F.dev, h, 64, DMA_FROM_DEVICE);
	assert_int_equal(F.cap.reports, n);
	kfree(frame);
	kfree(stat);
	kfree(rx);
}

/* Two live mappings of the same bytes, one of which the device may write. */
static void test_overlapping_mappings(void **state)
{
	dma_addr_t a, b, c;
	unsigned long n = F.cap.reports;
	const struct captured *r;
	int la, l;

	(void)state;
	a = dma_map_single(&F.dev, F.buf, 512, DMA_TO_DEVICE); la = __LINE__;
	b = dma_map_single(&F.dev, F.buf + 256, 200, DMA_TO_DEVICE); /* both read-only: fine */
	assert_false(dma_mapping_error(&F.dev, a) || dma_mapping_error(&F.dev, b));
	assert_int_equal(F.cap.reports, n);
	c = dma_map_single(&F.dev, F.buf + 500, 100, DMA_FROM_DEVICE); l = __LINE__;
	assert_false(dma_mapping_error(&F.dev, c));
	r = expect_report(n, DMAMAP_REPORT_OVERLAP, l, la);
	assert_int_equal(r->bus_addr, c);
	dma_unmap_single(&F.dev, c, 100, DMA_FROM_DEVICE);
	dma_unmap_single(&F.dev, b, 200, DMA_TO_DEVICE);
	dma_unmap_single(&F.dev, a, 512, DMA_TO_DEVICE);
	assert_int_equal(F.cap.reports, n + 1);
}

/* Pages freed while mapped: refused, so the device's late writes cannot land in someone else's memory. */
static void test_free_pages_still_mapped(void **state)
{
	struct dmamap_page_stats p0, p1;
	unsigned long n, addr;
	dma_addr_t h;
	int lm, l;

	(void)state;
	addr = __get_free_pages(GFP_KERNEL, 1);
	assert_true(addr != 0);
	h = dma_map_single(&F.dev, (u8 *)addr + PAGE_SIZE + 64, 128, DMA_FROM_DEVICE); lm = __LINE__;
	assert_false(dma_mapping_error(&F.dev, h));
	dmamap_page_stats(F.m, &p0);
	n = F.cap.reports;
	free_pages(addr, 1); l = __LINE__;
	expect_report(n, DMAMAP_REPORT_FREE_MAPPED, l, lm);
	assert_int_equal(F.cap.rec_last.category, DMAMAP_REPORT_PAGE_MISUSE);
	dmamap_page_stats(F.m, &p1);
	assert_memory_equal(p0.free_pages, p1.free_pages, sizeof(p0.free_pages)); /* refused */
	assert_int_equal(p1.refused_frees, p0.refused_frees + 1);
	dma_unmap_single(&F.dev, h, 128, DMA_FROM_DEVICE);
	free_pages(addr, 1);
	dmamap_page_stats(F.m, &p1);
	assert_int_equal(p1.free_pages[0] + p1.free_pages[1], p0.free_pages[0] + p0.free_pages[1] + 2);
	assert_int_equal(F.cap.reports, n + 1);
}

/*
 * kfree() of an object still mapped for DMA: refused like free_pages(), so the
 * device's late writes cannot land in the object's next owner. The check is
 * per byte: a neighbour in the same page that is not mapped frees normally.
 */
static void test_kfree_still_mapped(void **state)
{
	struct dmamap_kmalloc_stats k0, k1;
	u8 *obj = kmalloc(200, GFP_KERNEL), *next = kmalloc(200, GFP_KERNEL);
	unsigned long n;
	dma_addr_t h;
	int lm, l;

	(void)state;
	assert_non_null(obj);
	assert_non_null(next);
	memset(obj, 0x5a, 200);
	h = dma_map_single(&F.dev, obj + 64, 100, DMA_FROM_DEVICE); lm = __LINE__;
	assert_false(dma_mapping_error(&F.dev, h));
	dmamap_kmalloc_stats(F.m, &k0);
	n = F.cap.reports;

	kfree(obj); l = __LINE__;
	expect_report(n, DMAMAP_REPORT_FREE_MAPPED, l, lm);
	assert_int_equal(F.cap.rec_last.bus_addr, h);
	kfree_sensitive(obj); l = __LINE__;
	expect_report(n + 1, DMAMAP_REPORT_FREE_MAPPED, l, lm);
	dmamap_kmalloc_stats(F.m, &k1);
	assert_int_equal(k1.live_objects, k0.live_objects); /* both refused */
	assert_int_equal(k1.refused_frees, k0.refused_frees + 2);
	assert_int_equal(ksize(obj), 256);

	kfree(next); /* not mapped, though its page is */
	dmamap_kmalloc_stats(F.m, &k1);
	assert_int_equal(k1.live_objects, k0.live_objects - 1);
	assert_int_equal(F.cap.reports, n + 2);

	dma_unmap_single(&F.dev, h, 100, DMA_FROM_DEVICE);
	assert_int_equal(obj[0], 0x5a); /* kfree_sensitive zeroed nothing */
	assert_int_equal(obj[199], 0x5a);
	kfree(obj);
	dmamap_kmalloc_stats(F.m, &k1);
	assert_int_equal(k1.live_objects, k0.live_objects - 2);
	assert_int_equal(k1.refused_frees, k0.refused_frees + 2);
	assert_int_equal(F.cap.reports, n + 2);
}

/* With the checker off nothing is tracked, so nothing is refused: kfree() frees. */
static void test_kfree_mapped_checker_off(void **state)
{
	struct dmamap_kmalloc_stats k0, k1;
	u8 *obj = kmalloc(100, GFP_KERNEL);
	unsigned long n = F.cap.reports;
	dma_addr_t h;

	(void)state;
	assert_int_equal(dmamap_checker_enable(F.m, false), 0);
	h = dma_map_single(&F.dev, obj, 100, DMA_TO_DEVICE);
	assert_false(dma_mapping_error(&F.dev, h));
	dmamap_kmalloc_stats(F.m, &k0);
	kfree(obj);
	dmamap_kmalloc_stats(F.m, &k1);
	assert_int_equal(k1.live_objects, k0.live_objects - 1);
	assert_int_equal(k1.refused_frees, k0.refused_frees);
	assert_int_equal(F.cap.reports, n);
	dma_unmap_single(&F.dev, h, 100, DMA_TO_DEVICE);
}

/* AddressSanitizer's runtime, when the tests are built with it (weak: NULL otherwise). */
int __asan_address_is_poisoned(void const volatile *addr) __attribute__((weak));

static bool off_limits(const u8 *p)
{
	return __asan_address_is_poisoned(p) != 0;
}

/*
 * Under ASan the driver's view of a receive buffer is off limits exactly
 * while the device owns it, and exactly its bytes; switching poisoning off
 * opens every such byte at once, and switching it on closes those the device
 * owns then. (Under memcheck the child-process test covers it; elsewhere
 * only the argument check runs.)
 */
static void test_poisoning_follows_ownership(void **state)
{
	dma_addr_t rx, rx2, tx;

	(void)state;
	assert_int_equal(dmamap_checker_poison(NULL, false), -EINVAL);
	if (!__asan_address_is_poisoned)
		skip();
	rx = dma_map_single(&F.dev, F.buf + 64, 256, DMA_FROM_DEVICE);
	tx = dma_map_single(&F.dev, F.buf + 1024, 256, DMA_TO_DEVICE);
	assert_false(dma_mapping_error(&F.dev, rx) || dma_mapping_error(&F.dev, tx));
	assert_false(off_limits(F.buf + 63));
	assert_true(off_limits(F.buf + 64) && off_limits(F.buf + 64 + 255));
	assert_false(off_limits(F.buf + 64 + 256));
	assert_false(off_limits(F.buf + 1024)); /* the device only reads it */

	dma_sync_single_for_cpu(&F.dev, rx, 256, DMA_FROM_DEVICE);
	assert_false(off_limits(F.buf + 64) || off_limits(F.buf + 64 + 255));
	dma_sync_single_for_device(&F.dev, rx, 256, DMA_FROM_DEVICE);
	assert_true(off_limits(F.buf + 64) && off_limits(F.buf + 64 + 255));

	assert_int_equal(dmamap_checker_poison(F.m, false), 0);
	assert_false(off_limits(F.buf + 64) || off_limits(F.buf + 64 + 255));
	assert_int_equal(dmamap_checker_poison(F.m, false), 0); /* already off */
	rx2 = dma_map_single(&F.dev, F.buf + 2048, 128, DMA_BIDIRECTIONAL);
	assert_false(dma_mapping_error(&F.dev, rx2));
	assert_false(off_limits(F.buf + 2048));
	assert_int_equal(dmamap_checker_poison(F.m, true), 0);
	assert_true(off_limits(F.buf + 64) && off_limits(F.buf + 2048) && off_limits(F.buf + 2048 + 127));
	assert_false(off_limits(F.buf + 1024));

	dma_unmap_single(&F.dev, rx2, 128, DMA_BIDIRECTIONAL);
	dma_unmap_single(&F.dev, tx, 256, DMA_TO_DEVICE);
	dma_unmap_single(&F.dev, rx, 256, DMA_FROM_DEVICE);
	assert_false(off_limits(F.buf + 64) || off_limits(F.buf + 64 + 255) || off_limits(F.buf + 2048));
	assert_int_equal(F.cap.reports, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_on_by_default, setup, teardown),
		cmocka_unit_test_setup_teardown(test_tracks_each_kind, setup, teardown),
		cmocka_unit_test_setup_teardown(test_failed_map_not_tracked, setup, teardown),
		cmocka_unit_test_setup_teardown(test_thousands_live, setup, teardown),
		cmocka_unit_test_setup_teardown(test_off_counts_and_guards, setup, teardown),
		cmocka_unit_test_setup_teardown(test_live_at_switch_off_guards, setup, teardown),
		cmocka_unit_test_setup_teardown(test_off_refused_release_stays_counted, setup, teardown),
		cmocka_unit_test_setup_teardown(test_release_reports_buffers_made_while_off, setup, teardown),
		cmocka_unit_test_setup_teardown(test_release_counts_declared_buffers_down, setup, teardown),
		cmocka_unit_test_setup_teardown(test_switch_off_forgets, setup, teardown),
		cmocka_unit_test_setup_teardown(test_release_forgets_device, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_memory_fails_the_map, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unmap_not_mapped, setup, teardown),
		cmocka_unit_test_setup_teardown(test_double_unmap, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unmap_inside_a_mapping, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unmap_size_and_direction_mismatch, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unmap_kind_mismatch_performed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sg_mismatches, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sg_sharing_its_bus_range, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sync_range_and_direction, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unchecked_mapping_error, setup, teardown),
		cmocka_unit_test_setup_teardown(test_coherent_free_mismatches, setup, teardown),
		cmocka_unit_test_setup_teardown(test_coherent_free_attrs_mismatch, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mmap_attrs_mismatch, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mmap_attrs_mismatch_behind_iommu, setup, teardown),
		cmocka_unit_test_setup_teardown(test_coherent_free_attrs_mismatch_behind_iommu, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pool_free_mismatches, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mmap_of_no_buffer, setup, teardown),
		cmocka_unit_test_setup_teardown(test_leaks_at_device_release, setup, teardown),
		cmocka_unit_test_setup_teardown(test_correct_use_is_silent, setup, teardown),
		cmocka_unit_test_setup_teardown(test_user_ops_are_covered, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reports_below_name_the_line, setup, teardown),
		cmocka_unit_test_setup_teardown(test_leak_at_machine_destroy, setup, teardown),
		cmocka_unit_test_setup_teardown(test_device_touches_unmapped, setup, teardown),
		cmocka_unit_test_setup_teardown(test_device_touches_cpu_owned, setup, teardown),
		cmocka_unit_test_setup_teardown(test_partial_syncs_own_their_parts, setup, teardown),
		cmocka_unit_test_setup_teardown(test_missing_sync_for_cpu_of_a_part, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ownership_beyond_what_is_followed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sg_double_unmap_after_reuse, setup, teardown),
		cmocka_unit_test_setup_teardown(test_shared_cache_lines_both_edges, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cpu_store_on_coherent_device, setup, teardown),
		cmocka_unit_test_setup_teardown(test_coherent_device_writes_after_cpu_fill, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sync_in_library_memory_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bounce_use_after_unmap_names_the_unmap, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bounce_store_after_hand_over, setup, teardown),
		cmocka_unit_test_setup_teardown(test_device_direction, setup, teardown),
		cmocka_unit_test_setup_teardown(test_missing_sync_for_cpu, setup, teardown),
		cmocka_unit_test_setup_teardown(test_detach_with_live_mappings, setup, teardown),
		cmocka_unit_test_setup_teardown(test_device_behind_iommu, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reused_record_starts_afresh, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cpu_store_while_device_owns, setup, teardown),
		cmocka_unit_test_setup_teardown(test_shared_cache_line_bytes_lost, setup, teardown),
		cmocka_unit_test_setup_teardown(test_shared_cache_line_at_map, setup_packed, teardown),
		cmocka_unit_test_setup_teardown(test_aligned_kmalloc_shares_no_line, setup, teardown),
		cmocka_unit_test_setup_teardown(test_overlapping_mappings, setup, teardown),
		cmocka_unit_test_setup_teardown(test_free_pages_still_mapped, setup, teardown),
		cmocka_unit_test_setup_teardown(test_kfree_still_mapped, setup, teardown),
		cmocka_unit_test_setup_teardown(test_poisoning_follows_ownership, setup, teardown),
		cmocka_unit_test_setup_teardown(test_kfree_mapped_checker_off, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
