/* SPDX-License-Identifier: MIT */
/*
 * Boundary behaviours that single-line changes of the code went past
 * unnoticed: each case here names one, and fails when the comparison, the
 * call or the direction it depends on is changed (checked by hand on each).
 * The machine is the default demanding one: outer cache and speculative
 * prefetch.
 */
#include "common.h"

struct edge {
	struct dmamap_machine *m;
	struct device dev;
	struct page *page;
	u8 *va;
	phys_addr_t pa;
	struct capture c;
};

static void ram_at_zero(struct dmamap_machine_config *cfg)
{
	cfg->ram_base = 0;
	cfg->ram_size = 32u << 20;
	cfg->dma_zone_limit = 16u << 20;
}

static void edge_new(struct edge *e, bool checker)
{
	memset(e, 0, sizeof(*e));
	e->m = test_machine(32, ram_at_zero);
	assert_int_equal(dmamap_checker_enable(e->m, checker), 0);
	assert_int_equal(dmamap_device_init(&e->dev, e->m, "edge"), 0);
	e->page = dmamap_alloc_pages(e->m, GFP_KERNEL, 2);
	assert_non_null(e->page);
	e->va = page_address(e->page);
	e->pa = page_to_phys(e->page);
	capture_start(&e->c, e->m);
}

static void edge_free(struct edge *e)
{
	capture_stop(e->m);
	dmamap_free_pages(e->page, 2);
	dmamap_device_release(&e->dev);
	test_machine_destroy(e->m);
}

/*
 * A FROM_DEVICE buffer whose end falls mid-line, that line the last one of the
 * range: the CPU's byte after the end survives (the partial line is cleaned,
 * not just dropped) and the device's bytes before it arrive (it is dropped
 * from both cache levels, not skipped).
 */
static void test_invalidate_ending_mid_line(void **state)
{
	struct edge e;
	size_t line = 32, len = 3 * line + 5;
	u8 dev_data[3 * 32 + 5];
	dma_addr_t h;

	(void)state;
	edge_new(&e, true);
	memset(e.va, 0x11, 4 * line);
	e.va[len] = 0xc3;     /* the CPU's, in the buffer's last line, dirty in the cache */
	h = dma_map_single(&e.dev, e.va, len, DMA_FROM_DEVICE);
	assert_false(dma_mapping_error(&e.dev, h));
	fill_pattern(dev_data, len, 7);
	assert_int_equal(dmamap_dev_write(&e.dev, h, dev_data, len), 0);
	dma_unmap_single(&e.dev, h, len, DMA_FROM_DEVICE);
	assert_int_equal(check_pattern(e.va, len, 7), 0);
	assert_int_equal(e.va[len], 0xc3);
	/* at most a note that the buffer shares its last line */
	assert_int_equal(e.c.reports, e.c.by_kind[DMAMAP_REPORT_SHARED_CACHELINE]);
	edge_free(&e);
}

/*
 * The outer cache holds a line the inner cache dropped; the device writes
 * RAM under both. A FROM_DEVICE unmap must drop it from the outer cache too,
 * or the CPU reads the stale outer copy.
 */
static void test_outer_copy_of_a_dropped_line(void **state)
{
	struct edge e;
	u8 dev_data[256];
	dma_addr_t h;

	(void)state;
	edge_new(&e, true);
	memset(e.va, 0x22, sizeof(dev_data));
	/* to the device and back: the lines are written back through L1 into L2 and RAM */
	h = dma_map_single(&e.dev, e.va, sizeof(dev_data), DMA_TO_DEVICE);
	assert_false(dma_mapping_error(&e.dev, h));
	dma_unmap_single(&e.dev, h, sizeof(dev_data), DMA_TO_DEVICE);
	assert_int_equal(e.va[0], 0x22); /* read: L1 refilled (from L2 where it still is) */
	h = dma_map_single(&e.dev, e.va, sizeof(dev_data), DMA_FROM_DEVICE);
	assert_false(dma_mapping_error(&e.dev, h));
	fill_pattern(dev_data, sizeof(dev_data), 9);
	assert_int_equal(dmamap_dev_write(&e.dev, h, dev_data, sizeof(dev_data)), 0);
	dma_unmap_single(&e.dev, h, sizeof(dev_data), DMA_FROM_DEVICE);
	assert_int_equal(check_pattern(e.va, sizeof(dev_data), 9), 0);
	assert_int_equal(e.c.reports, 0);
	edge_free(&e);
}

/* arm map_page: a buffer whose last byte is the mask's last is mapped; one byte more is refused. */
static void test_map_page_ending_at_the_mask(void **state)
{
	struct edge e;
	size_t off = 100, len = 300;
	u8 got[301];
	dma_addr_t h;

	(void)state;
	edge_new(&e, true);
	fill_pattern(e.va + off, len + 1, 4);
	*e.dev.dma_mask = e.pa + off + len - 1;
	h = dma_map_page(&e.dev, e.page, off, len, DMA_TO_DEVICE);
	assert_false(dma_mapping_error(&e.dev, h));
	assert_int_equal(h, e.pa + off);
	assert_int_equal(dmamap_dev_read(&e.dev, h, got, len), 0);
	assert_int_equal(check_pattern(got, len, 4), 0);
	dma_unmap_page(&e.dev, h, len, DMA_TO_DEVICE);
	assert_int_equal(e.c.reports, 0);

	h = dma_map_page(&e.dev, e.page, off, len + 1, DMA_TO_DEVICE);
	assert_true(dma_mapping_error(&e.dev, h));
	assert_int_equal(e.c.reports, 1);
	{
		struct dmamap_checker_stats st;

		dmamap_checker_stats(e.m, &st);
		assert_int_equal(st.live_page, 0);
	}
	*e.dev.dma_mask = DMA_BIT_MASK(32);
	edge_free(&e);
}

/* dmabounce: ending at the mask goes direct; one byte across it bounces, and the bytes still arrive. */
static void test_dmabounce_ending_at_and_straddling_the_mask(void **state)
{
	struct edge e;
	size_t off = 64, len = 512;
	struct dmabounce_stats st;
	u8 got[513];
	dma_addr_t h;

	(void)state;
	edge_new(&e, true);
	/* the safe buffers come from the DMA zone, below the buffer */
	e.dev.coherent_dma_mask = DMA_BIT_MASK(24);
	assert_int_equal(dmabounce_register_dev(&e.dev, 1024, 4096, NULL), 0);
	fill_pattern(e.va + off, len + 1, 5);
	*e.dev.dma_mask = e.pa + off + len - 1;

	h = dma_map_single(&e.dev, e.va + off, len, DMA_TO_DEVICE);
	assert_false(dma_mapping_error(&e.dev, h));
	assert_int_equal(h, e.pa + off);
	assert_int_equal(dmabounce_get_stats(&e.dev, &st), 0);
	assert_int_equal(st.direct_maps, 1);
	assert_int_equal(st.bounces_small + st.bounces_large + st.bounces_alloc, 0);
	dma_unmap_single(&e.dev, h, len, DMA_TO_DEVICE);

	h = dma_map_single(&e.dev, e.va + off, len + 1, DMA_TO_DEVICE);
	assert_false(dma_mapping_error(&e.dev, h));
	assert_int_not_equal(h, e.pa + off);
	assert_true(h + len <= *e.dev.dma_mask);
	assert_int_equal(dmabounce_get_stats(&e.dev, &st), 0);
	assert_int_equal(st.direct_maps, 1);
	assert_int_equal(st.bounces_small + st.bounces_large + st.bounces_alloc, 1);
	assert_int_equal(dmamap_dev_read(&e.dev, h, got, len + 1), 0);
	assert_int_equal(check_pattern(got, len + 1, 5), 0);
	dma_unmap_single(&e.dev, h, len + 1, DMA_TO_DEVICE);
	assert_int_equal(e.c.reports, 0);
	*e.dev.dma_mask = DMA_BIT_MASK(32);
	assert_int_equal(dmabounce_unregister_dev(&e.dev), 0);
	edge_free(&e);
}

/* IOMMU: sync_single_for_cpu with BIDIRECTIONAL makes the device's bytes the CPU's. */
static void test_iommu_sync_for_cpu_bidirectional(void **state)
{
	struct edge e;
	struct dma_iommu_mapping *map;
	u8 dev_data[700];
	dma_addr_t h;

	(void)state;
	edge_new(&e, true);
	map = arm_iommu_create_mapping(e.m, 0x80000000ULL, 1u << 20, 0);
	assert_false(IS_ERR_OR_NULL(map));
	assert_int_equal(arm_iommu_attach_device(&e.dev, map), 0);
	memset(e.va, 0x33, sizeof(dev_data));
	h = dma_map_single(&e.dev, e.va, sizeof(dev_data), DMA_BIDIRECTIONAL);
	assert_false(dma_mapping_error(&e.dev, h));
	fill_pattern(dev_data, sizeof(dev_data), 6);
	assert_int_equal(dmamap_dev_write(&e.dev, h, dev_data, sizeof(dev_data)), 0);
	dma_sync_single_for_cpu(&e.dev, h, sizeof(dev_data), DMA_BIDIRECTIONAL);
	assert_int_equal(check_pattern(e.va, sizeof(dev_data), 6), 0);
	dma_sync_single_for_device(&e.dev, h, sizeof(dev_data), DMA_BIDIRECTIONAL);
	dma_unmap_single(&e.dev, h, sizeof(dev_data), DMA_BIDIRECTIONAL);
	assert_int_equal(e.c.reports, 0);
	arm_iommu_detach_device(&e.dev);
	arm_iommu_release_mapping(map);
	edge_free(&e);
}

/*
 * IOMMU unmap_sg naming one segment wrongly, checker off: the op's own
 * records refuse the call, reported, and nothing is undone (the device still
 * reads every segment).
 */
static void run_unmap_sg_one_bad_segment(bool checker)
{
	struct edge e;
	struct dma_iommu_mapping *map;
	struct scatterlist sg[3], *s;
	dma_addr_t saved;
	u8 got[PAGE_SIZE];
	int n, i;

	edge_new(&e, checker);
	map = arm_iommu_create_mapping(e.m, 0x80000000ULL, 1u << 20, 0);
	assert_false(IS_ERR_OR_NULL(map));
	assert_int_equal(arm_iommu_attach_device(&e.dev, map), 0);
	dma_set_max_seg_size(&e.dev, PAGE_SIZE); /* one segment per entry */
	sg_init_table(sg, 3);
	for (i = 0; i < 3; i++) {
		fill_pattern(e.va + i * PAGE_SIZE, PAGE_SIZE, 20 + i);
		sg_set_buf(&sg[i], e.va + i * PAGE_SIZE, PAGE_SIZE);
	}
	n = dma_map_sg(&e.dev, sg, 3, DMA_TO_DEVICE);
	assert_int_equal(n, 3);
	saved = sg_dma_address(&sg[1]);
	sg_dma_address(&sg[1]) = saved + 0x10000;
	dma_unmap_sg(&e.dev, sg, 3, DMA_TO_DEVICE);
	assert_int_equal(e.c.reports, 1);
	assert_int_equal(e.c.rec[0].category, DMAMAP_REPORT_API_MISUSE);
	if (checker)
		assert_int_equal(e.c.rec[0].kind, DMAMAP_REPORT_SG_MISMATCH); /* refused before the ops */
	sg_dma_address(&sg[1]) = saved;
	for_each_sg(sg, s, n, i) {
		assert_int_equal(dmamap_dev_read(&e.dev, sg_dma_address(s), got, PAGE_SIZE), 0);
		assert_int_equal(check_pattern(got, PAGE_SIZE, 20 + i), 0);
	}
	assert_machine_consistent(e.m);
	dma_unmap_sg(&e.dev, sg, 3, DMA_TO_DEVICE);
	assert_int_equal(e.c.reports, 1);
	arm_iommu_detach_device(&e.dev);
	arm_iommu_release_mapping(map);
	edge_free(&e);
}

static void test_unmap_sg_one_bad_segment(void **state)
{
	(void)state;
	run_unmap_sg_one_bad_segment(true);
}

static void test_unmap_sg_one_bad_segment_checker_off(void **state)
{
	(void)state;
	run_unmap_sg_one_bad_segment(false);
}

/* A free of an atomic-pool buffer at a misaligned address: refused, reported, the buffer intact and freeable. */
static void run_misaligned_atomic_free(bool checker)
{
	struct edge e;
	struct dmamap_coherent_stats before, after;
	u8 got[600];
	dma_addr_t h;
	u8 *cpu;

	edge_new(&e, checker);
	dmamap_coherent_stats(e.m, &before);
	cpu = dma_alloc_coherent(&e.dev, 600, &h, GFP_ATOMIC);
	assert_non_null(cpu);
	dmamap_coherent_stats(e.m, &after);
	assert_int_equal(after.from_atomic_pool, before.from_atomic_pool + 1);
	fill_pattern(cpu, 600, 8);
	dma_free_coherent(&e.dev, 600, cpu + 32, h + 32);
	dma_free_coherent(&e.dev, 600, cpu + 32, h); /* the handle right, the address inside */
	assert_int_equal(e.c.reports, 2);
	assert_int_equal(e.c.rec[0].category, DMAMAP_REPORT_API_MISUSE);
	assert_int_equal(e.c.rec[1].category, DMAMAP_REPORT_API_MISUSE);
	dmamap_coherent_stats(e.m, &after);
	assert_int_equal(after.atomic_pool_free, before.atomic_pool_free - PAGE_SIZE);
	assert_int_equal(dmamap_dev_read(&e.dev, h, got, 600), 0);
	assert_int_equal(check_pattern(got, 600, 8), 0);
	dma_free_coherent(&e.dev, 600, cpu, h);
	dmamap_coherent_stats(e.m, &after);
	assert_int_equal(after.atomic_pool_free, before.atomic_pool_free);
	assert_int_equal(e.c.reports, 2);
	edge_free(&e);
}

static void test_misaligned_atomic_free(void **state)
{
	(void)state;
	run_misaligned_atomic_free(true);
}

static void test_misaligned_atomic_free_checker_off(void **state)
{
	(void)state;
	run_misaligned_atomic_free(false);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_invalidate_ending_mid_line),
		cmocka_unit_test(test_outer_copy_of_a_dropped_line),
		cmocka_unit_test(test_map_page_ending_at_the_mask),
		cmocka_unit_test(test_dmabounce_ending_at_and_straddling_the_mask),
		cmocka_unit_test(test_iommu_sync_for_cpu_bidirectional),
		cmocka_unit_test(test_unmap_sg_one_bad_segment),
		cmocka_unit_test(test_unmap_sg_one_bad_segment_checker_off),
		cmocka_unit_test(test_misaligned_atomic_free),
		cmocka_unit_test(test_misaligned_atomic_free_checker_off),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
