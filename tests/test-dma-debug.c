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

static int setup(void **state)
{
	(void)state;
	memset(&F, 0, sizeof(F));
	F.m = test_machine(16, NULL);
	capture_start(&F.cap, F.m);
	assert_int_equal(dmamap_device_init(&F.dev, F.m, "dbgdev"), 0);
	F.pg = dmamap_alloc_pages(F.m, GFP_KERNEL | __GFP_ZERO, 2);
	assert_non_null(F.pg);
	F.buf = page_address(F.pg);
	dmamap_machine_set_current(F.m);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	dmamap_free_pages(F.pg, 2);
	dmamap_device_release(&F.dev);
	capture_stop(F.m);
	dmamap_machine_destroy(F.m);
	return 0;
}

static struct dmamap_checker_stats stats(void)
{
	struct dmamap_checker_stats st;

	dmamap_checker_stats(F.m, &st);
	return st;
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
	assert_int_equal(stats().live_single, 1);
	dma_unmap_single(&F.dev, a, 64, DMA_TO_DEVICE);
	assert_int_equal(stats().live_single, 0);
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
	assert_int_equal(stats().untracked_live, 0);
	assert_int_equal(dmamap_dev_write(&F.dev, a, msg, sizeof(msg)), 0);
	dma_unmap_single(&F.dev, a, 64, DMA_FROM_DEVICE);
	assert_memory_equal(F.buf, msg, sizeof(msg));
	assert_int_equal(F.cap.reports, 0);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_on_by_default, setup, teardown),
		cmocka_unit_test_setup_teardown(test_tracks_each_kind, setup, teardown),
		cmocka_unit_test_setup_teardown(test_failed_map_not_tracked, setup, teardown),
		cmocka_unit_test_setup_teardown(test_thousands_live, setup, teardown),
		cmocka_unit_test_setup_teardown(test_off_counts_and_guards, setup, teardown),
		cmocka_unit_test_setup_teardown(test_switch_off_forgets, setup, teardown),
		cmocka_unit_test_setup_teardown(test_release_forgets_device, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_memory_fails_the_map, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
