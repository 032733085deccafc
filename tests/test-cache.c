/* SPDX-License-Identifier: MIT */
/*
 * The cache model, driven directly through the maintenance hooks and the
 * device side: DESIGN.md section 3, rules 1-7.
 */
#include "common.h"
#include "internal.h"

#define LINE 32

struct fixture {
	struct dmamap_machine *m;
	struct device dev;
	struct page *page;
	u8 *va;
	phys_addr_t pa;
	struct capture cap;
};

static void (*fixture_tweak)(struct dmamap_machine_config *cfg);

/* This file's machines start simple (no outer cache, no prefetch): each test adds what it studies. */
static void simple_then_tweak(struct dmamap_machine_config *cfg)
{
	simple_machine(cfg);
	if (fixture_tweak)
		fixture_tweak(cfg);
}

static struct fixture *fixture_new(void (*tweak)(struct dmamap_machine_config *cfg))
{
	struct fixture *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	fixture_tweak = tweak;
	f->m = test_machine(16, simple_then_tweak);
	/* the device reads and writes RAM at physical addresses, nothing mapped: no checker */
	assert_int_equal(dmamap_checker_enable(f->m, false), 0);
	capture_start(&f->cap, f->m);
	assert_int_equal(dmamap_device_init(&f->dev, f->m, "cachedev"), 0);
	f->page = dmamap_alloc_pages(f->m, GFP_KERNEL | __GFP_ZERO, 1);
	assert_non_null(f->page);
	f->va = page_address(f->page);
	f->pa = page_to_phys(f->page);
	dmamap_machine_set_current(f->m);
	/*
	 * Make the zeroes reach RAM so every test starts from cpu == RAM == 0,
	 * with the lines held clean in the inner cache and absent from the outer.
	 */
	dmamap_cache_clean(f->m, DMAMAP_CACHE_INNER, f->pa, 2 * PAGE_SIZE);
	outer_flush_range(f->pa, f->pa + 2 * PAGE_SIZE);
	dmamap_cache_reset_stats(f->m);
	return f;
}

static void fixture_free(struct fixture *f)
{
	dmamap_free_pages(f->page, 1);
	dmamap_device_release(&f->dev);
	capture_stop(f->m);
	test_machine_destroy(f->m);
	free(f);
}

static void dev_read_ok(struct fixture *f, size_t off, void *dst, size_t len)
{
	assert_int_equal(dmamap_dev_read(&f->dev, f->pa + off, dst, len), 0);
}

static void dev_write_ok(struct fixture *f, size_t off, const void *src, size_t len)
{
	assert_int_equal(dmamap_dev_write(&f->dev, f->pa + off, src, len), 0);
}

static void with_outer(struct dmamap_machine_config *cfg)
{
	cfg->outer_cache = true;
}

static void with_spec(struct dmamap_machine_config *cfg)
{
	cfg->speculative_prefetch = true;
}

static void with_outer_spec(struct dmamap_machine_config *cfg)
{
	cfg->outer_cache = true;
	cfg->speculative_prefetch = true;
}

static void coherent_machine(struct dmamap_machine_config *cfg)
{
	cfg->coherent = true;
}

/* The kernel's cpu->dev sequence for a linear-map buffer: inner first, then outer. */
static void cpu_to_dev(struct fixture *f, size_t off, size_t len, int dir)
{
	dmac_map_area(f->va + off, len, dir);
	if (dir == DMA_FROM_DEVICE)
		outer_inv_range(f->pa + off, f->pa + off + len);
	else
		outer_clean_range(f->pa + off, f->pa + off + len);
}

/* The kernel's dev->cpu sequence: outer first, then inner. */
static void dev_to_cpu(struct fixture *f, size_t off, size_t len, int dir)
{
	if (dir != DMA_TO_DEVICE)
		outer_inv_range(f->pa + off, f->pa + off + len);
	dmac_unmap_area(f->va + off, len, dir);
}

/* Rule 1: CPU fills a buffer; the device reads the new data only after cpu->dev maintenance. */
static void run_rule1(void (*tweak)(struct dmamap_machine_config *))
{
	struct fixture *f = fixture_new(tweak);
	u8 got[1024];

	dmamap_machine_set_current(f->m);
	fill_pattern(f->va, sizeof(got), 1);
	dev_read_ok(f, 0, got, sizeof(got));
	for (size_t i = 0; i < sizeof(got); i++)
		assert_int_equal(got[i], 0); /* still in the cache: the device sees old RAM */

	cpu_to_dev(f, 0, sizeof(got), DMA_TO_DEVICE);
	dev_read_ok(f, 0, got, sizeof(got));
	assert_int_equal(check_pattern(got, sizeof(got), 1), 0);
	assert_int_equal(f->cap.reports, 0);
	fixture_free(f);
}

static void test_rule1_cpu_fill_needs_clean(void **state)
{
	(void)state;
	run_rule1(NULL);
}

static void test_rule1_with_outer_cache(void **state)
{
	(void)state;
	run_rule1(with_outer);
}

/* Rule 2: the device writes; the CPU sees it only after dev->cpu maintenance. */
static void run_rule2(void (*tweak)(struct dmamap_machine_config *))
{
	struct fixture *f = fixture_new(tweak);
	u8 data[1024];

	dmamap_machine_set_current(f->m);
	fill_pattern(data, sizeof(data), 2);
	dev_write_ok(f, 0, data, sizeof(data));
	for (size_t i = 0; i < sizeof(data); i++)
		assert_int_equal(f->va[i], 0); /* the cache still holds the old lines */

	dev_to_cpu(f, 0, sizeof(data), DMA_FROM_DEVICE);
	assert_int_equal(check_pattern(f->va, sizeof(data), 2), 0);
	fixture_free(f);
}

static void test_rule2_device_write_needs_invalidate(void **state)
{
	(void)state;
	run_rule2(NULL);
}

static void test_rule2_with_outer_cache(void **state)
{
	(void)state;
	run_rule2(with_outer);
}

/*
 * Without speculation an invalidate at map time is enough: nothing pulls the
 * lines back in, so a CPU read after the device write misses and fetches from
 * RAM, as on a non-prefetching core.
 */
static void test_rule2_map_invalidate_suffices_without_prefetch(void **state)
{
	struct fixture *f = fixture_new(NULL);
	u8 data[256];

	(void)state;
	dmamap_machine_set_current(f->m);
	cpu_to_dev(f, 0, sizeof(data), DMA_FROM_DEVICE);
	fill_pattern(data, sizeof(data), 3);
	dev_write_ok(f, 0, data, sizeof(data));
	assert_int_equal(check_pattern(f->va, sizeof(data), 3), 0);
	fixture_free(f);
}

/* Rule 3: with speculative prefetch only the dev->cpu invalidate keeps the CPU correct. */
static void test_rule3_speculation_needs_unmap(void **state)
{
	struct fixture *f = fixture_new(with_spec);
	struct dmamap_cache_stats st;
	u8 data[512];

	(void)state;
	dmamap_machine_set_current(f->m);
	cpu_to_dev(f, 0, sizeof(data), DMA_FROM_DEVICE);
	fill_pattern(data, sizeof(data), 4);
	dev_write_ok(f, 0, data, sizeof(data)); /* the CPU prefetched the lines first */
	for (size_t i = 0; i < sizeof(data); i++)
		assert_int_equal(f->va[i], 0);
	dmamap_cache_get_stats(f->m, &st);
	assert_true(st.lines_prefetched >= sizeof(data) / LINE);

	dev_to_cpu(f, 0, sizeof(data), DMA_FROM_DEVICE);
	assert_int_equal(check_pattern(f->va, sizeof(data), 4), 0);
	fixture_free(f);
}

static void test_rule3_prefetch_rate(void **state)
{
	struct fixture *f = fixture_new(with_spec);
	struct dmamap_cache_stats st;

	(void)state;
	assert_int_equal(dmamap_cache_set_prefetch_rate(f->m, 1001), -EINVAL);
	assert_int_equal(dmamap_cache_set_prefetch_rate(f->m, 0), 0);
	dmamap_cache_inv(f->m, DMAMAP_CACHE_INNER, f->pa, PAGE_SIZE);
	dmamap_cache_speculate(f->m);
	dmamap_cache_get_stats(f->m, &st);
	assert_int_equal(st.lines_prefetched, 0);
	assert_int_equal(dmamap_cache_line_state(f->m, DMAMAP_CACHE_INNER, f->pa), DMAMAP_LINE_INVALID);

	assert_int_equal(dmamap_cache_set_prefetch_rate(f->m, 500), 0);
	for (int i = 0; i < 64; i++)
		dmamap_cache_speculate(f->m);
	dmamap_cache_get_stats(f->m, &st);
	assert_int_equal(st.lines_prefetched, PAGE_SIZE / LINE); /* all of them, eventually, once each */
	assert_int_equal(dmamap_cache_line_state(f->m, DMAMAP_CACHE_INNER, f->pa), DMAMAP_LINE_CLEAN);
	fixture_free(f);
}

static void test_no_speculation_without_prefetch(void **state)
{
	struct fixture *f = fixture_new(NULL);
	struct dmamap_cache_stats st;

	(void)state;
	dmamap_cache_inv(f->m, DMAMAP_CACHE_INNER, f->pa, PAGE_SIZE);
	dmamap_cache_speculate(f->m);
	dmamap_cache_get_stats(f->m, &st);
	assert_int_equal(st.speculation_points, 0);
	assert_int_equal(st.lines_prefetched, 0);
	fixture_free(f);
}

/*
 * Every speculation point of a speculating machine counts, whether lines
 * wait to be pulled in or none do (that one is taken without the lock), and
 * one with nothing waiting changes nothing; a reset starts the count again.
 */
static void test_speculation_points_counted(void **state)
{
	struct fixture *f = fixture_new(with_spec);
	struct dmamap_cache_stats st;

	(void)state;
	dmamap_cache_speculate(f->m);
	dmamap_cache_speculate(f->m);
	dmamap_cache_get_stats(f->m, &st);
	assert_int_equal(st.speculation_points, 2);
	assert_int_equal(st.lines_prefetched, 0);
	assert_int_equal(dmamap_cache_line_state(f->m, DMAMAP_CACHE_INNER, f->pa), DMAMAP_LINE_CLEAN);

	dmamap_cache_inv(f->m, DMAMAP_CACHE_INNER, f->pa, PAGE_SIZE);
	assert_int_equal(dmamap_cache_line_state(f->m, DMAMAP_CACHE_INNER, f->pa), DMAMAP_LINE_INVALID);
	dmamap_cache_speculate(f->m); /* pulls the page in */
	dmamap_cache_speculate(f->m); /* nothing left waiting */
	dmamap_cache_get_stats(f->m, &st);
	assert_int_equal(st.speculation_points, 4);
	assert_int_equal(st.lines_prefetched, PAGE_SIZE / LINE);
	assert_int_equal(dmamap_cache_line_state(f->m, DMAMAP_CACHE_INNER, f->pa), DMAMAP_LINE_CLEAN);

	dmamap_cache_reset_stats(f->m);
	dmamap_cache_get_stats(f->m, &st);
	assert_int_equal(st.speculation_points, 0);
	dmamap_cache_speculate(f->m);
	dmamap_cache_get_stats(f->m, &st);
	assert_int_equal(st.speculation_points, 1);
	fixture_free(f);
}

/*
 * Rule 4: a FROM_DEVICE buffer sharing its first and last lines with data the
 * CPU writes while the device owns the buffer loses the bytes at its edges:
 * the dev->cpu invalidate cleans the partial lines over what the device wrote.
 */
static void test_rule4_shared_line_loses_edges(void **state)
{
	struct fixture *f = fixture_new(NULL);
	const size_t off = 16, len = 4 * LINE; /* [16, 144): partial first and last lines */
	u8 data[4 * LINE];

	(void)state;
	dmamap_machine_set_current(f->m);
	f->va[0] = 0xaa; /* CPU data before the buffer, same line */
	cpu_to_dev(f, off, len, DMA_FROM_DEVICE);
	/* the edge lines were cleaned, so the CPU's byte reached RAM */
	{
		u8 b;

		dev_read_ok(f, 0, &b, 1);
		assert_int_equal(b, 0xaa);
	}
	f->va[1] = 0xbb;                /* CPU writes its neighbour while the device owns the buffer */
	f->va[off + len + 1] = 0xcc;    /* and the neighbour after it */
	memset(data, 0x5a, sizeof(data));
	dev_write_ok(f, off, data, len);
	dev_to_cpu(f, off, len, DMA_FROM_DEVICE);

	/* Bytes of the buffer in the first and last lines came back from the CPU's stale copy. */
	for (size_t i = off; i < LINE; i++)
		assert_int_equal(f->va[i], 0);
	for (size_t i = LINE; i < 4 * LINE; i++)
		assert_int_equal(f->va[i], 0x5a);
	for (size_t i = 4 * LINE; i < off + len; i++)
		assert_int_equal(f->va[i], 0);
	/* and RAM agrees: the edge bytes are lost for good */
	{
		u8 ram[4 * LINE];

		dev_read_ok(f, off, ram, len);
		assert_int_equal(ram[0], 0);
		assert_int_equal(ram[LINE], 0x5a);
		assert_int_equal(ram[len - 1], 0);
	}
	assert_int_equal(f->va[1], 0xbb);
	assert_int_equal(f->va[off + len + 1], 0xcc);
	fixture_free(f);
}

/* The same buffer, line aligned, loses nothing. */
static void test_rule4_aligned_buffer_intact(void **state)
{
	struct fixture *f = fixture_new(NULL);
	u8 data[4 * LINE];

	(void)state;
	dmamap_machine_set_current(f->m);
	cpu_to_dev(f, LINE, sizeof(data), DMA_FROM_DEVICE);
	f->va[1] = 0xbb;
	f->va[5 * LINE + 1] = 0xcc;
	fill_pattern(data, sizeof(data), 5);
	dev_write_ok(f, LINE, data, sizeof(data));
	dev_to_cpu(f, LINE, sizeof(data), DMA_FROM_DEVICE);
	assert_int_equal(check_pattern(f->va + LINE, sizeof(data), 5), 0);
	assert_int_equal(f->va[1], 0xbb);
	assert_int_equal(f->va[5 * LINE + 1], 0xcc);
	fixture_free(f);
}

/* Rule 5: an uncached alias of RAM and the device see each other's stores at once. */
static void test_rule5_uncached_alias_both_ways(void **state)
{
	struct fixture *f = fixture_new(NULL);
	struct dmamap_vmregion *r;
	u8 *alias, got[64], data[64];

	(void)state;
	r = dmamap_vmregion_alloc(f->m, 2 * PAGE_SIZE, NULL);
	assert_non_null(r);
	assert_int_equal(dmamap_vmregion_map(f->m, r, 0, NULL, page_to_pfn(f->page), 2,
					     pgprot_dmacoherent(PAGE_KERNEL)), 0);
	alias = (u8 *)r->start;
	fill_pattern(alias, sizeof(got), 6);
	dev_read_ok(f, 0, got, sizeof(got));
	assert_int_equal(check_pattern(got, sizeof(got), 6), 0);
	fill_pattern(data, sizeof(data), 7);
	dev_write_ok(f, PAGE_SIZE, data, sizeof(data));
	assert_int_equal(check_pattern(alias + PAGE_SIZE, sizeof(data), 7), 0);
	dmamap_vmregion_free(f->m, r);
	fixture_free(f);
}

/*
 * Stores through an uncached alias change RAM under a line the CPU holds
 * clean: they are not the CPU's stores. The line stays clean, a clean writes
 * nothing back over them, and an invalidate brings them into the CPU's
 * view; so too after the alias is gone, and while a second alias remains.
 */
static void run_alias_store_not_cpu_store(void (*tweak)(struct dmamap_machine_config *))
{
	struct fixture *f = fixture_new(tweak);
	struct dmamap_cache_stats st;
	struct dmamap_vmregion *r;
	struct vm_area_struct *vma;
	u8 *alias, got[LINE];

	/* the line holds 0x44, clean, RAM too */
	memset(f->va, 0x44, LINE);
	cpu_to_dev(f, 0, LINE, DMA_TO_DEVICE);
	dmamap_cache_reset_stats(f->m);
	r = dmamap_vmregion_alloc(f->m, PAGE_SIZE, NULL);
	assert_non_null(r);
	assert_int_equal(dmamap_vmregion_map(f->m, r, 0, NULL, page_to_pfn(f->page), 1, pgprot_noncached(PAGE_KERNEL)),
			 0);
	vma = dmamap_vma_create(f->m, PAGE_SIZE);
	assert_non_null(vma);
	assert_int_equal(remap_pfn_range(vma, vma->vm_start, page_to_pfn(f->page), PAGE_SIZE,
					 pgprot_writecombine(PAGE_KERNEL)),
			 0);
	alias = (u8 *)r->start;
	fill_pattern(alias, LINE, 12);
	assert_int_equal(f->va[0], 0x44); /* the CPU's copy, stale */
	assert_int_equal(dmamap_cache_line_state(f->m, DMAMAP_CACHE_INNER, f->pa), DMAMAP_LINE_CLEAN);

	/* one alias gone, the other stays; a store through it is not the CPU's either */
	dmamap_vmregion_free(f->m, r);
	fill_pattern((u8 *)vma->vm_start, LINE, 13);
	assert_int_equal(dmamap_cache_line_state(f->m, DMAMAP_CACHE_INNER, f->pa), DMAMAP_LINE_CLEAN);
	cpu_to_dev(f, 0, LINE, DMA_TO_DEVICE);
	dev_read_ok(f, 0, got, sizeof(got));
	assert_int_equal(check_pattern(got, sizeof(got), 13), 0);

	/* no alias left: the line keeps what it held until refilled */
	dmamap_vma_destroy(vma);
	cpu_to_dev(f, 0, LINE, DMA_TO_DEVICE);
	dev_read_ok(f, 0, got, sizeof(got));
	assert_int_equal(check_pattern(got, sizeof(got), 13), 0);
	dmamap_cache_get_stats(f->m, &st);
	assert_int_equal(st.level[DMAMAP_CACHE_INNER].lines_written_back, 0);
	assert_int_equal(f->va[0], 0x44);
	dev_to_cpu(f, 0, LINE, DMA_FROM_DEVICE);
	assert_int_equal(check_pattern(f->va, LINE, 13), 0);
	/* refilled with no alias left, the line's image is below again: range operations take it the fast way */
	assert_false(f->m->cache.img[(f->pa - f->m->cfg.ram_base) / LINE / BITS_PER_LONG] & 1UL);
	assert_int_equal(f->cap.reports, 0);
	fixture_free(f);
}

static void test_rule5_alias_store_not_cpu_store(void **state)
{
	(void)state;
	run_alias_store_not_cpu_store(NULL);
	run_alias_store_not_cpu_store(with_outer);
	run_alias_store_not_cpu_store(with_outer_spec);
}

/*
 * A library store of the bytes a line already holds still dirties it, on a
 * machine with an outer cache too: the clean gives the outer cache the line
 * (not whatever its copy held before), and RAM gets it from there.
 */
static void test_library_store_equal_bytes_through_outer(void **state)
{
	struct fixture *f = fixture_new(with_outer);
	u8 data[LINE], got[LINE];

	(void)state;
	/* the outer cache's copy of the line: 0x22, then dropped; RAM 0x33, the CPU's view too */
	memset(f->va, 0x22, LINE);
	cpu_to_dev(f, 0, LINE, DMA_TO_DEVICE);
	outer_flush_range(f->pa, f->pa + LINE);
	memset(data, 0x33, sizeof(data));
	dev_write_ok(f, 0, data, sizeof(data));
	dev_to_cpu(f, 0, LINE, DMA_FROM_DEVICE);
	assert_int_equal(f->va[0], 0x33);

	dm_cpu_store(f->m, f->va, data, 0, sizeof(data));
	dmac_map_area(f->va, LINE, DMA_TO_DEVICE);
	assert_int_equal(dmamap_cache_line_state(f->m, DMAMAP_CACHE_OUTER, f->pa), DMAMAP_LINE_DIRTY);
	outer_flush_range(f->pa, f->pa + LINE);
	dev_read_ok(f, 0, got, sizeof(got));
	assert_int_equal(memcmp(got, data, sizeof(got)), 0);
	fixture_free(f);
}

/* Rule 5 on a coherent machine, and for a dma_coherent device: no maintenance needed. */
static void test_rule5_coherent_machine_and_device(void **state)
{
	struct fixture *f = fixture_new(coherent_machine);
	u8 got[128], data[128];

	(void)state;
	fill_pattern(f->va, sizeof(got), 8);
	dev_read_ok(f, 0, got, sizeof(got));
	assert_int_equal(check_pattern(got, sizeof(got), 8), 0);
	fill_pattern(data, sizeof(data), 9);
	dev_write_ok(f, 0, data, sizeof(data));
	assert_int_equal(check_pattern(f->va, sizeof(data), 9), 0);
	fixture_free(f);

	f = fixture_new(with_outer);
	f->dev.dma_coherent = true;
	fill_pattern(f->va, sizeof(got), 10);
	dev_read_ok(f, 0, got, sizeof(got));
	assert_int_equal(check_pattern(got, sizeof(got), 10), 0);
	fill_pattern(data, sizeof(data), 11);
	dev_write_ok(f, 64, data, sizeof(data));
	assert_int_equal(check_pattern(f->va + 64, sizeof(data), 11), 0);
	fixture_free(f);
}

/* Rule 6, cpu->dev: cleaning the outer level before the inner one leaves the data in L2. */
static void test_rule6_cpu_to_dev_order(void **state)
{
	struct fixture *f = fixture_new(with_outer);
	u8 got[256];

	(void)state;
	dmamap_machine_set_current(f->m);
	fill_pattern(f->va, sizeof(got), 12);
	outer_clean_range(f->pa, f->pa + sizeof(got)); /* wrong order */
	dmac_map_area(f->va, sizeof(got), DMA_TO_DEVICE);
	dev_read_ok(f, 0, got, sizeof(got));
	for (size_t i = 0; i < sizeof(got); i++)
		assert_int_equal(got[i], 0);
	assert_int_equal(dmamap_cache_line_state(f->m, DMAMAP_CACHE_OUTER, f->pa), DMAMAP_LINE_DIRTY);

	outer_clean_range(f->pa, f->pa + sizeof(got)); /* completing the right order */
	dev_read_ok(f, 0, got, sizeof(got));
	assert_int_equal(check_pattern(got, sizeof(got), 12), 0);
	assert_int_equal(dmamap_cache_line_state(f->m, DMAMAP_CACHE_OUTER, f->pa), DMAMAP_LINE_CLEAN);
	fixture_free(f);
}

/* Stale copies in both levels, then a device write. */
static void stale_in_both_levels(struct fixture *f, size_t len, unsigned seed)
{
	u8 data[512];

	fill_pattern(f->va, len, seed);
	cpu_to_dev(f, 0, len, DMA_TO_DEVICE); /* inner and outer now hold clean copies */
	assert_int_equal(dmamap_cache_line_state(f->m, DMAMAP_CACHE_OUTER, f->pa), DMAMAP_LINE_CLEAN);
	fill_pattern(data, len, seed + 1);
	dev_write_ok(f, 0, data, len);
}

/* Rule 6, dev->cpu: invalidating inner before outer lets a prefetch refill from stale L2. */
static void test_rule6_dev_to_cpu_order(void **state)
{
	struct fixture *f = fixture_new(with_outer_spec);

	(void)state;
	dmamap_machine_set_current(f->m);
	stale_in_both_levels(f, 256, 20);
	dmac_unmap_area(f->va, 256, DMA_FROM_DEVICE); /* wrong order */
	outer_inv_range(f->pa, f->pa + 256);
	assert_int_equal(check_pattern(f->va, 256, 20), 0); /* stale */
	fixture_free(f);

	f = fixture_new(with_outer_spec);
	dmamap_machine_set_current(f->m);
	stale_in_both_levels(f, 256, 20);
	dev_to_cpu(f, 0, 256, DMA_FROM_DEVICE); /* the kernel's order */
	assert_int_equal(check_pattern(f->va, 256, 21), 0);
	fixture_free(f);
}

/* Rule 7: the hook table is replaceable, per machine, and every operation is counted. */
static unsigned hook_calls[6];
static const struct dmamap_cache_ops *hook_next;

static void rec_map(struct dmamap_machine *m, const void *k, size_t s, int d)
{
	hook_calls[0]++;
	hook_next->dmac_map_area(m, k, s, d);
}

static void rec_unmap(struct dmamap_machine *m, const void *k, size_t s, int d)
{
	hook_calls[1]++;
	hook_next->dmac_unmap_area(m, k, s, d);
}

static void rec_flush(struct dmamap_machine *m, const void *a, const void *b)
{
	hook_calls[2]++;
	hook_next->dmac_flush_range(m, a, b);
}

static void rec_oclean(struct dmamap_machine *m, phys_addr_t a, phys_addr_t b)
{
	hook_calls[3]++;
	hook_next->outer_clean_range(m, a, b);
}

static void rec_oinv(struct dmamap_machine *m, phys_addr_t a, phys_addr_t b)
{
	hook_calls[4]++;
	hook_next->outer_inv_range(m, a, b);
}

static void rec_oflush(struct dmamap_machine *m, phys_addr_t a, phys_addr_t b)
{
	hook_calls[5]++;
	hook_next->outer_flush_range(m, a, b);
}

static const struct dmamap_cache_ops recording_ops = {
	rec_map, rec_unmap, rec_flush, rec_oclean, rec_oinv, rec_oflush,
};

/* A broken table: maintenance that does nothing. */
static void nop_k(struct dmamap_machine *m, const void *k, size_t s, int d)
{
	(void)m, (void)k, (void)s, (void)d;
}

static void nop_f(struct dmamap_machine *m, const void *a, const void *b)
{
	(void)m, (void)a, (void)b;
}

static void nop_p(struct dmamap_machine *m, phys_addr_t a, phys_addr_t b)
{
	(void)m, (void)a, (void)b;
}

static const struct dmamap_cache_ops nop_ops = { nop_k, nop_k, nop_f, nop_p, nop_p, nop_p };

static void test_rule7_hooks_replaceable_and_counted(void **state)
{
	struct fixture *f = fixture_new(with_outer);
	struct fixture *g = fixture_new(NULL);
	struct dmamap_cache_ops broken = recording_ops;
	struct dmamap_cache_stats st;
	u8 got[256];

	(void)state;
	dmamap_machine_set_current(f->m);
	hook_next = dmamap_cache_get_ops(f->m);
	assert_ptr_equal(hook_next, &dmamap_default_cache_ops);
	broken.outer_inv_range = NULL;
	assert_int_equal(dmamap_cache_set_ops(f->m, &broken), -EINVAL);
	assert_ptr_equal(dmamap_cache_get_ops(f->m), &dmamap_default_cache_ops);
	assert_int_equal(dmamap_cache_set_ops(f->m, &recording_ops), 0);
	memset(hook_calls, 0, sizeof(hook_calls));

	fill_pattern(f->va, sizeof(got), 30);
	cpu_to_dev(f, 0, sizeof(got), DMA_TO_DEVICE);
	dev_to_cpu(f, 0, sizeof(got), DMA_BIDIRECTIONAL);
	dmac_flush_range(f->va, f->va + 64);
	outer_flush_range(f->pa, f->pa + 64);
	assert_int_equal(hook_calls[0], 1);
	assert_int_equal(hook_calls[1], 1);
	assert_int_equal(hook_calls[2], 1);
	assert_int_equal(hook_calls[3], 1);
	assert_int_equal(hook_calls[4], 1);
	assert_int_equal(hook_calls[5], 1);

	dmamap_cache_get_stats(f->m, &st);
	/* clean 8 lines, invalidate 8, flush 2, at each level */
	assert_int_equal(st.level[DMAMAP_CACHE_INNER].lines_cleaned, 8 + 2);
	assert_int_equal(st.level[DMAMAP_CACHE_INNER].lines_invalidated, 8 + 2);
	assert_int_equal(st.level[DMAMAP_CACHE_INNER].lines_written_back, 8);
	assert_int_equal(st.level[DMAMAP_CACHE_OUTER].lines_cleaned, 8 + 2);
	assert_int_equal(st.level[DMAMAP_CACHE_OUTER].lines_invalidated, 8 + 2);
	assert_int_equal(st.level[DMAMAP_CACHE_OUTER].lines_written_back, 8);
	assert_int_equal(st.level[DMAMAP_CACHE_INNER].clean_ops, 1);
	assert_int_equal(st.level[DMAMAP_CACHE_INNER].inv_ops, 1);
	assert_int_equal(st.level[DMAMAP_CACHE_INNER].flush_ops, 1);

	/* the other machine still has the default table */
	assert_ptr_equal(dmamap_cache_get_ops(g->m), &dmamap_default_cache_ops);

	/* a table that does nothing: the device never sees the data */
	assert_int_equal(dmamap_cache_set_ops(g->m, &nop_ops), 0);
	dmamap_machine_set_current(g->m);
	fill_pattern(g->va, sizeof(got), 31);
	cpu_to_dev(g, 0, sizeof(got), DMA_TO_DEVICE);
	assert_int_equal(dmamap_dev_read(&g->dev, g->pa, got, sizeof(got)), 0);
	assert_int_equal(got[0], 0);
	assert_int_equal(dmamap_cache_set_ops(g->m, NULL), 0);
	assert_ptr_equal(dmamap_cache_get_ops(g->m), &dmamap_default_cache_ops);
	fixture_free(g);
	fixture_free(f);
}

/* Maintenance cost follows the bytes covered, not the size of RAM. */
static void test_cost_scales_with_range(void **state)
{
	struct fixture *f = fixture_new(NULL);
	struct dmamap_cache_stats st;

	(void)state;
	dmamap_cache_clean(f->m, DMAMAP_CACHE_INNER, f->pa + 5, 100); /* lines 0..3 */
	dmamap_cache_get_stats(f->m, &st);
	assert_int_equal(st.level[DMAMAP_CACHE_INNER].lines_cleaned, 4);
	dmamap_cache_inv(f->m, DMAMAP_CACHE_INNER, f->pa, 2 * PAGE_SIZE);
	dmamap_cache_get_stats(f->m, &st);
	assert_int_equal(st.level[DMAMAP_CACHE_INNER].lines_invalidated, 2 * PAGE_SIZE / LINE);
	fixture_free(f);
}

/* A clean line never overwrites newer data below it. */
static void test_clean_line_keeps_newer_ram(void **state)
{
	struct fixture *f = fixture_new(NULL);
	u8 data[64], got[64];

	(void)state;
	fill_pattern(data, sizeof(data), 40);
	dev_write_ok(f, 0, data, sizeof(data)); /* the CPU's copy (zeroes) is clean and stale */
	dmamap_cache_clean(f->m, DMAMAP_CACHE_INNER, f->pa, sizeof(data));
	dev_read_ok(f, 0, got, sizeof(got));
	assert_int_equal(check_pattern(got, sizeof(got), 40), 0);
	fixture_free(f);
}

/* Line states through a clean/dirty/invalid cycle, and dirty data discarded by an invalidate. */
static void test_line_states(void **state)
{
	struct fixture *f = fixture_new(with_outer);
	struct dmamap_cache_stats st;
	u8 b;

	(void)state;
	assert_int_equal(dmamap_cache_line_state(f->m, DMAMAP_CACHE_INNER, f->pa), DMAMAP_LINE_CLEAN);
	assert_int_equal(dmamap_cache_line_state(f->m, DMAMAP_CACHE_OUTER, f->pa), DMAMAP_LINE_INVALID);
	f->va[3] = 7;
	assert_int_equal(dmamap_cache_line_state(f->m, DMAMAP_CACHE_INNER, f->pa), DMAMAP_LINE_DIRTY);
	dmamap_cache_clean(f->m, DMAMAP_CACHE_INNER, f->pa, 1);
	assert_int_equal(dmamap_cache_line_state(f->m, DMAMAP_CACHE_INNER, f->pa), DMAMAP_LINE_CLEAN);
	assert_int_equal(dmamap_cache_line_state(f->m, DMAMAP_CACHE_OUTER, f->pa), DMAMAP_LINE_DIRTY);
	f->va[3] = 8;
	dmamap_cache_inv(f->m, DMAMAP_CACHE_INNER, f->pa, 1);
	assert_int_equal(dmamap_cache_line_state(f->m, DMAMAP_CACHE_INNER, f->pa), DMAMAP_LINE_INVALID);
	assert_int_equal(f->va[3], 7); /* the store of 8 was discarded; the refetch comes from L2 */
	dmamap_cache_get_stats(f->m, &st);
	assert_int_equal(st.level[DMAMAP_CACHE_INNER].dirty_lines_discarded, 1);
	dmamap_cache_flush(f->m, DMAMAP_CACHE_OUTER, f->pa, 1);
	assert_int_equal(dmamap_cache_line_state(f->m, DMAMAP_CACHE_OUTER, f->pa), DMAMAP_LINE_INVALID);
	dev_read_ok(f, 3, &b, 1);
	assert_int_equal(b, 7);
	/* a machine without an outer cache has no outer lines */
	fixture_free(f);
	f = fixture_new(NULL);
	assert_int_equal(dmamap_cache_line_state(f->m, DMAMAP_CACHE_OUTER, f->pa), DMAMAP_LINE_INVALID);
	fixture_free(f);
}

/* A library store of the same bytes still dirties the line, as a CPU store does. */
static void test_library_store_dirties_equal_bytes(void **state)
{
	struct fixture *f = fixture_new(NULL);
	u8 data[32], got[32];

	(void)state;
	memset(data, 0x11, sizeof(data));
	dev_write_ok(f, 0, data, sizeof(data)); /* RAM: 0x11, CPU copy: 0 (clean) */
	dm_cpu_store(f->m, f->va, NULL, 0, sizeof(data)); /* the CPU stores zeroes over zeroes */
	assert_int_equal(dmamap_cache_line_state(f->m, DMAMAP_CACHE_INNER, f->pa), DMAMAP_LINE_DIRTY);
	dmamap_cache_clean(f->m, DMAMAP_CACHE_INNER, f->pa, sizeof(data));
	dev_read_ok(f, 0, got, sizeof(got));
	assert_int_equal(got[0], 0);
	assert_int_equal(got[31], 0);
	fixture_free(f);
}

/* Bad ranges are reported and ignored, with nothing changed. */
static void test_bad_ranges_reported(void **state)
{
	struct fixture *f = fixture_new(NULL);
	struct dmamap_cache_stats before, after;
	static u8 not_ram[64];
	unsigned long reports;

	(void)state;
	dmamap_machine_set_current(f->m);
	f->va[0] = 1; /* a dirty line that a wrongly applied op would write back */
	dmamap_cache_get_stats(f->m, &before);
	reports = dmamap_report_count(f->m);

	dmamap_cache_clean(f->m, DMAMAP_CACHE_INNER, f->m->cfg.ram_base - 64, 128); /* straddles RAM start */
	dmamap_cache_inv(f->m, DMAMAP_CACHE_INNER, f->pa, 0);                          /* empty */
	dmamap_cache_flush(f->m, DMAMAP_CACHE_INNER, f->m->cfg.ram_base + f->m->cfg.ram_size - 16, 32);
	assert_int_equal(dmamap_report_count(f->m), reports + 3);
	assert_int_equal(f->cap.by_kind[DMAMAP_REPORT_BAD_ADDRESS], 3);

	{
		struct capture pc;

		capture_start(&pc, NULL);
		dmac_map_area(not_ram, sizeof(not_ram), DMA_TO_DEVICE);
		dmac_unmap_area(not_ram, sizeof(not_ram), DMA_FROM_DEVICE);
		dmac_flush_range(not_ram, not_ram + 1);
		assert_int_equal(pc.by_kind[DMAMAP_REPORT_BAD_ADDRESS], 3);
		capture_stop(NULL);
	}
	/* a range running off the end of the linear map */
	f->m->cache.ops->dmac_map_area(f->m, f->m->lin + f->m->cfg.ram_size - 16, 64, DMA_TO_DEVICE);
	assert_int_equal(f->cap.by_kind[DMAMAP_REPORT_BAD_ADDRESS], 4);
	/* sizes whose end wraps the address space: refused, no pointer formed past it */
	dmac_map_area(f->va, SIZE_MAX, DMA_TO_DEVICE);
	dmac_unmap_area(f->va + 1, SIZE_MAX - 1, DMA_FROM_DEVICE);
	dmac_flush_range(f->va + 64, f->va); /* end before start */
	assert_int_equal(f->cap.by_kind[DMAMAP_REPORT_BAD_ADDRESS], 6);

	dmamap_cache_get_stats(f->m, &after);
	assert_memory_equal(&before, &after, sizeof(before));
	assert_int_equal(dmamap_cache_line_state(f->m, DMAMAP_CACHE_INNER, f->pa), DMAMAP_LINE_DIRTY);
	assert_int_equal(dmamap_cache_line_state(f->m, 7, f->pa), DMAMAP_LINE_INVALID);
	fixture_free(f);
}

/* Device bytes counted; a read is not a write. */
static void test_device_byte_counters(void **state)
{
	struct fixture *f = fixture_new(NULL);
	struct dmamap_cache_stats st;
	u8 buf[100];

	(void)state;
	dev_read_ok(f, 0, buf, sizeof(buf));
	dev_write_ok(f, 0, buf, 40);
	assert_int_equal(dmamap_dev_fill(&f->dev, f->pa, 0x33, 10), 0);
	dmamap_cache_get_stats(f->m, &st);
	assert_int_equal(st.device_bytes_read, 100);
	assert_int_equal(st.device_bytes_written, 50);
	fixture_free(f);
}

/* --------------------------------------------- speculation, through the DMA API */

/* The default machine (outer cache, speculative prefetch): a receive buffer read before sync_for_cpu is stale. */
static void test_default_machine_shows_missing_sync(void **state)
{
	struct dmamap_machine *m = test_machine(16, NULL);
	struct device dev = { 0 };
	struct page *pg = dmamap_alloc_pages(m, GFP_KERNEL | __GFP_ZERO, 0);
	u8 *buf = page_address(pg), data[512];
	size_t stale = 0;
	dma_addr_t h;

	(void)state;
	assert_int_equal(dmamap_device_init(&dev, m, "rx"), 0);
	h = dma_map_single(&dev, buf, sizeof(data), DMA_FROM_DEVICE);
	assert_false(dma_mapping_error(&dev, h));
	fill_pattern(data, sizeof(data), 50);
	assert_int_equal(dmamap_dev_write(&dev, h, data, sizeof(data)), 0);
	misuse_begin(m); /* a read before the sync: the misuse this machine shows */
	for (size_t i = 0; i < sizeof(data); i++)
		stale += buf[i] == 0;
	misuse_end(m);
	assert_int_equal(stale, sizeof(data)); /* every line was pulled back in before the device wrote */
	dma_sync_single_for_cpu(&dev, h, sizeof(data), DMA_FROM_DEVICE);
	assert_int_equal(check_pattern(buf, sizeof(data), 50), 0);
	dma_unmap_single(&dev, h, sizeof(data), DMA_FROM_DEVICE);
	dmamap_free_pages(pg, 0);
	dmamap_device_release(&dev);
	assert_int_equal(dmamap_report_count(m), 0);
	test_machine_destroy(m);
}

/*
 * A clear large enough to give host pages back, on the default machine,
 * over a region where every other page holds data on every plane (stored,
 * written back to RAM, kept in the outer cache, a device write on top) and
 * the others were never touched: every byte reads zero afterwards, through
 * the CPU and by the device, and stays zero once the CPU has prefetched the
 * lines again and both levels are flushed.
 */
static void test_large_clear_over_held_and_untouched_pages(void **state)
{
	enum { ORDER = 6, PAGES = 1 << ORDER, SIZE = PAGES * PAGE_SIZE };
	struct dmamap_machine *m = test_machine(16, NULL);
	struct page *pg = dmamap_alloc_pages(m, GFP_KERNEL, ORDER);
	struct device dev = { 0 };
	u8 *va, *got = malloc(SIZE);
	phys_addr_t pa;

	(void)state;
	assert_non_null(pg);
	assert_non_null(got);
	assert_int_equal(dmamap_checker_enable(m, false), 0); /* the model driven directly, as by hardware */
	assert_int_equal(dmamap_device_init(&dev, m, "dev"), 0);
	va = page_address(pg);
	pa = page_to_phys(pg);
	for (size_t i = 0; i < PAGES; i += 2) {
		memset(va + i * PAGE_SIZE, 0x5a, PAGE_SIZE);
		dmamap_cache_clean(m, DMAMAP_CACHE_INNER, pa + i * PAGE_SIZE, PAGE_SIZE);
		if (i % 4 == 0)
			dmamap_cache_clean(m, DMAMAP_CACHE_OUTER, pa + i * PAGE_SIZE, PAGE_SIZE / 2);
		fill_pattern(got, 300, (unsigned)i);
		assert_int_equal(dmamap_dev_write(&dev, pa + i * PAGE_SIZE + 100, got, 300), 0);
	}
	dmamap_cache_speculate(m);
	dmamap_clear_buffer(m, pa, SIZE);
	for (int round = 0; round < 2; round++) {
		for (size_t i = 0; i < SIZE; i++) {
			if (va[i])
				fail_msg("round %d: the CPU reads %#x at byte %zu", round, va[i], i);
		}
		memset(got, 0xff, SIZE);
		assert_int_equal(dmamap_dev_read(&dev, pa, got, SIZE), 0);
		for (size_t i = 0; i < SIZE; i++) {
			if (got[i])
				fail_msg("round %d: the device reads %#x at byte %zu", round, got[i], i);
		}
		dmamap_cache_speculate(m);
		dmamap_cache_flush(m, DMAMAP_CACHE_INNER, pa, SIZE);
		dmamap_cache_flush(m, DMAMAP_CACHE_OUTER, pa, SIZE);
	}
	dmamap_free_pages(pg, ORDER);
	dmamap_device_release(&dev);
	assert_int_equal(dmamap_report_count(m), 0);
	free(got);
	test_machine_destroy(m);
}

/*
 * A clear of two units of line state (4096 lines each) of which the machine
 * wrote one, either one: the shadow and the outer copy it skips are those
 * of the unit never written, which are zero already. Every plane reads zero
 * over the whole range afterwards, and so do the CPU and the device.
 */
static void test_clear_over_a_written_and_an_unwritten_unit(void **state)
{
	enum { ORDER = 6, PAGES = 1 << ORDER, SIZE = PAGES * PAGE_SIZE, HALF = SIZE / 2 };
	(void)state;

	for (int written = 0; written < 2; written++) {
		struct dmamap_machine *m = test_machine(16, NULL);
		struct page *pg = dmamap_alloc_pages(m, GFP_KERNEL, ORDER);
		struct device dev = { 0 };
		u8 *va, *got = malloc(SIZE);
		phys_addr_t pa;
		size_t off, unit = DM_UNIT_LINES * m->cfg.cache_line_size;

		assert_non_null(pg);
		assert_non_null(got);
		assert_int_equal(unit, HALF);
		assert_int_equal(dmamap_checker_enable(m, false), 0);
		assert_int_equal(dmamap_device_init(&dev, m, "dev"), 0);
		va = page_address(pg);
		pa = page_to_phys(pg);
		off = (size_t)(pa - m->cfg.ram_base);
		assert_int_equal(off % unit, 0);
		for (size_t i = 0; i < HALF; i += PAGE_SIZE) {
			phys_addr_t at = pa + written * HALF + i;

			memset(va + written * HALF + i, 0x5a, PAGE_SIZE);
			dmamap_cache_clean(m, DMAMAP_CACHE_INNER, at, PAGE_SIZE);
			dmamap_cache_clean(m, DMAMAP_CACHE_OUTER, at, PAGE_SIZE / 2);
			fill_pattern(got, 300, (unsigned)i);
			assert_int_equal(dmamap_dev_write(&dev, at + 100, got, 300), 0);
		}
		dmamap_cache_speculate(m);
		dmamap_clear_buffer(m, pa, SIZE);
		dmamap_track_quiet_begin();
		for (size_t i = 0; i < SIZE; i++) {
			if (m->shadow[off + i] || m->outer[off + i] || m->ram[off + i] || m->cpu[off + i])
				fail_msg("unit %d written: byte %zu of the range is %#x %#x %#x %#x (shadow, outer, RAM, CPU)",
					 written, i, m->shadow[off + i], m->outer[off + i], m->ram[off + i], m->cpu[off + i]);
		}
		dmamap_track_quiet_end();
		memset(got, 0xff, SIZE);
		assert_int_equal(dmamap_dev_read(&dev, pa, got, SIZE), 0);
		for (size_t i = 0; i < SIZE; i++) {
			if (got[i] || va[i])
				fail_msg("unit %d written: byte %zu reads %#x by the device, %#x by the CPU", written, i, got[i],
					 va[i]);
		}
		dmamap_free_pages(pg, ORDER);
		dmamap_device_release(&dev);
		assert_int_equal(dmamap_report_count(m), 0);
		free(got);
		test_machine_destroy(m);
	}
}

/*
 * An inner invalidate refills from the outer copy where the outer cache
 * holds the line, even when RAM happens to hold the CPU's bytes: the outer
 * copy, filled by a prefetch, went stale when the device wrote RAM behind
 * it, and RAM was then written back to the CPU's bytes.
 */
static void test_inner_inv_refills_from_outer_when_ram_matches(void **state)
{
	struct dmamap_machine *m = test_machine(16, NULL);
	struct page *pg = dmamap_alloc_pages(m, GFP_KERNEL | __GFP_ZERO, 0);
	struct device dev = { 0 };
	u8 *va = page_address(pg), b[PAGE_SIZE], zero[PAGE_SIZE] = { 0 };
	phys_addr_t pa = page_to_phys(pg);

	(void)state;
	assert_int_equal(dmamap_checker_enable(m, false), 0); /* the model driven directly, as by hardware */
	assert_int_equal(dmamap_device_init(&dev, m, "dev"), 0);
	dmamap_cache_flush(m, DMAMAP_CACHE_INNER, pa, PAGE_SIZE);
	dmamap_cache_flush(m, DMAMAP_CACHE_OUTER, pa, PAGE_SIZE);
	dmamap_cache_speculate(m); /* every line held at both levels, all zero */
	fill_pattern(b, sizeof(b), 7);
	assert_int_equal(dmamap_dev_write(&dev, pa, b, sizeof(b)), 0);
	dmamap_cache_inv(m, DMAMAP_CACHE_OUTER, pa, PAGE_SIZE);
	dmamap_cache_speculate(m); /* the outer cache allocates the device's bytes again */
	assert_int_equal(dmamap_dev_write(&dev, pa, zero, sizeof(zero)), 0);
	assert_int_equal(dmamap_cache_line_state(m, DMAMAP_CACHE_OUTER, pa), DMAMAP_LINE_CLEAN);
	assert_memory_equal(va, zero, sizeof(zero)); /* the CPU still reads its own (zero) lines */
	dmamap_cache_inv(m, DMAMAP_CACHE_INNER, pa, PAGE_SIZE);
	assert_int_equal(check_pattern(va, PAGE_SIZE, 7), 0); /* refilled from the stale outer copy */
	dmamap_free_pages(pg, 0);
	dmamap_device_release(&dev);
	test_machine_destroy(m);
}

/*
 * An invalidate refills each line from its own level below, also when one
 * range holds both kinds: line @l held by the outer cache (refilled from
 * the outer copy) and line @l + 1 not (refilled from RAM, which a device
 * wrote under the resident line), the outer plane still holding a stale
 * copy of line @l + 1 that equals the CPU's bytes.
 */
static void run_inv_mixed_levels(unsigned long l)
{
	struct fixture *f = fixture_new(with_outer);
	u8 a[2 * LINE], b[LINE], got[2 * LINE];
	size_t off = l * LINE;

	memset(a, 0xa5, sizeof(a));
	memset(b, 0x5a, sizeof(b));
	memcpy(f->va + off, a, sizeof(a));
	dmamap_cache_clean(f->m, DMAMAP_CACHE_INNER, f->pa + off, 2 * LINE); /* both lines now in the outer cache */
	outer_flush_range(f->pa + off + LINE, f->pa + off + 2 * LINE);   /* line l + 1 leaves it, its copy stays */
	dev_write_ok(f, off + LINE, b, sizeof(b));
	assert_int_equal(dmamap_cache_line_state(f->m, DMAMAP_CACHE_OUTER, f->pa + off), DMAMAP_LINE_DIRTY);
	assert_int_equal(dmamap_cache_line_state(f->m, DMAMAP_CACHE_OUTER, f->pa + off + LINE), DMAMAP_LINE_INVALID);
	assert_memory_equal(f->va + off, a, sizeof(a)); /* the CPU still reads its cached lines */

	dmamap_cache_inv(f->m, DMAMAP_CACHE_INNER, f->pa + off, 2 * LINE);
	memcpy(got, f->va + off, sizeof(got));
	assert_memory_equal(got, a, LINE);            /* from the outer copy */
	assert_memory_equal(got + LINE, b, LINE);     /* from RAM: what the device wrote */
	assert_int_equal(dmamap_cache_line_state(f->m, DMAMAP_CACHE_INNER, f->pa + off), DMAMAP_LINE_INVALID);
	assert_int_equal(dmamap_cache_line_state(f->m, DMAMAP_CACHE_INNER, f->pa + off + LINE), DMAMAP_LINE_INVALID);
	assert_int_equal(f->cap.reports, 0);
	fixture_free(f);
}

static void test_inv_mixed_levels_in_one_word(void **state)
{
	(void)state;
	run_inv_mixed_levels(4);
}

static void test_inv_mixed_levels_across_words(void **state)
{
	(void)state;
	run_inv_mixed_levels(8 * sizeof(long) - 1); /* the last line of a word of line bits, then the first of the next */
}

/*
 * Lines the invalidate of a page leaves for a speculation point to pull in,
 * counted: the page's lines are not held at either level, and when @store,
 * the library stored to the first one the bytes it already held.
 */
static unsigned long prefetched_after_outer_inv(bool store)
{
	struct dmamap_machine *m = test_machine(16, NULL);
	struct page *pg = dmamap_alloc_pages(m, GFP_KERNEL | __GFP_ZERO, 0);
	struct dmamap_cache_stats before, after;
	phys_addr_t pa = page_to_phys(pg);

	dmamap_cache_flush(m, DMAMAP_CACHE_INNER, pa, PAGE_SIZE);
	dmamap_cache_flush(m, DMAMAP_CACHE_OUTER, pa, PAGE_SIZE);
	if (store)
		dm_cpu_store(m, page_address(pg), NULL, 0, 16); /* zeroes over zeroes */
	dmamap_cache_inv(m, DMAMAP_CACHE_OUTER, pa, PAGE_SIZE);
	dmamap_cache_get_stats(m, &before);
	dmamap_cache_speculate(m);
	dmamap_cache_get_stats(m, &after);
	dmamap_free_pages(pg, 0);
	test_machine_destroy(m);
	return after.lines_prefetched - before.lines_prefetched;
}

/*
 * A line the CPU stored to is resident, even when its bytes equal those of
 * RAM: an outer invalidate that finds nothing to refill still takes it as
 * pulled in, so a speculation point has one line fewer to pull.
 */
static void test_outer_inv_takes_stored_equal_line_as_resident(void **state)
{
	unsigned long untouched = prefetched_after_outer_inv(false);

	(void)state;
	assert_true(untouched > 1);
	assert_int_equal(prefetched_after_outer_inv(true), untouched - 1);
}

/*
 * Thousands of receive buffers live at once, the CPU prefetching each
 * line with a small chance (0.2%) per speculation point, so that thousands
 * of invalidated ranges wait at once (a ring of 256 dropped a fifth of the
 * lines here): every line of every one is eventually pulled in while the
 * device owns it, so a read without
 * sync_for_cpu is stale everywhere -- none escapes because too many were
 * invalidated at once. The same with the checker off: speculation is the
 * cache model's own.
 */
static void run_many_receive_buffers(bool checker)
{
	enum { N = 3000, LEN = 1024 };
	struct dmamap_machine *m = test_machine(16, NULL);
	struct page *big = dmamap_alloc_pages(m, GFP_KERNEL | __GFP_ZERO, 10); /* 4 MiB */
	struct device dev = { 0 };
	dma_addr_t *h = calloc(N, sizeof(*h));
	u8 data[LEN], *va;
	unsigned n = under_valgrind() ? 300 : N;
	size_t fresh = 0;

	assert_non_null(big);
	assert_non_null(h);
	va = page_address(big);
	assert_int_equal(dmamap_checker_enable(m, checker), 0);
	assert_int_equal(dmamap_device_init(&dev, m, "rx"), 0);
	assert_int_equal(dmamap_cache_set_prefetch_rate(m, 2), 0);
	for (unsigned i = 0; i < n; i++) {
		h[i] = dma_map_single(&dev, va + (size_t)i * LEN, LEN, DMA_FROM_DEVICE);
		assert_false(dma_mapping_error(&dev, h[i]));
	}
	for (int k = 0; k < 12000; k++)
		dmamap_cache_speculate(m); /* the CPU runs on: 0.998^12000 (4e-11) leaves no line out */
	for (unsigned i = 0; i < n; i++) {
		fill_pattern(data, LEN, i);
		assert_int_equal(dmamap_dev_write(&dev, h[i], data, LEN), 0);
	}
	misuse_begin(m); /* a read before the unmap: the misuse this machine shows */
	for (size_t i = 0; i < (size_t)n * LEN && !fresh; i++)
		fresh = va[i] ? i + 1 : 0;
	misuse_end(m);
	if (fresh)
		fail_msg("byte %zu of the receive buffers is fresh without a sync", fresh - 1);
	for (unsigned i = 0; i < n; i++) {
		dma_unmap_single(&dev, h[i], LEN, DMA_FROM_DEVICE);
		assert_int_equal(check_pattern(va + (size_t)i * LEN, LEN, i), 0);
	}
	dmamap_free_pages(big, 10);
	dmamap_device_release(&dev);
	assert_int_equal(dmamap_report_count(m), 0);
	free(h);
	test_machine_destroy(m);
}

static void test_many_receive_buffers_all_stale(void **state)
{
	(void)state;
	run_many_receive_buffers(true);
}

static void test_many_receive_buffers_checker_off(void **state)
{
	(void)state;
	run_many_receive_buffers(false);
}

/* dev->cpu in the wrong order: outer_inv_range does nothing, dmac_unmap_area invalidates inner, then outer. */
static void wrong_unmap_area(struct dmamap_machine *m, const void *k, size_t size, int dir)
{
	dmamap_default_cache_ops.dmac_unmap_area(m, k, size, dir);
	if (dir != DMA_TO_DEVICE)
		dmamap_default_cache_ops.outer_inv_range(m, virt_to_phys(k), virt_to_phys(k) + size);
}

static void map_area_with_outer(struct dmamap_machine *m, const void *k, size_t size, int dir)
{
	dmamap_default_cache_ops.dmac_map_area(m, k, size, dir);
	if (dir == DMA_FROM_DEVICE)
		dmamap_default_cache_ops.outer_inv_range(m, virt_to_phys(k), virt_to_phys(k) + size);
}

static void no_outer_inv(struct dmamap_machine *m, phys_addr_t start, phys_addr_t end)
{
	(void)m, (void)start, (void)end;
}

static const struct dmamap_cache_ops wrong_order_ops = {
	.dmac_map_area = map_area_with_outer,
	.dmac_unmap_area = wrong_unmap_area,
	.dmac_flush_range = NULL, /* filled in below */
};

/*
 * Rule 6 for a FROM_DEVICE mapping: the outer cache is refilled from RAM
 * during the DMA (the prefetch goes through it), so invalidating inner
 * before outer lets the CPU refill the inner line from the stale outer one.
 */
static void run_from_device_order(bool wrong)
{
	struct dmamap_machine *m = test_machine(16, NULL);
	struct dmamap_cache_ops ops = dmamap_default_cache_ops;
	struct page *pg = dmamap_alloc_pages(m, GFP_KERNEL | __GFP_ZERO, 0);
	struct device dev = { 0 };
	u8 *buf = page_address(pg), data[256];
	dma_addr_t h;

	if (wrong) {
		ops.dmac_map_area = wrong_order_ops.dmac_map_area;
		ops.dmac_unmap_area = wrong_order_ops.dmac_unmap_area;
		ops.outer_inv_range = no_outer_inv;
		assert_int_equal(dmamap_cache_set_ops(m, &ops), 0);
	}
	assert_int_equal(dmamap_device_init(&dev, m, "rx"), 0);
	h = dma_map_single(&dev, buf, sizeof(data), DMA_FROM_DEVICE);
	assert_false(dma_mapping_error(&dev, h));
	fill_pattern(data, sizeof(data), 60);
	assert_int_equal(dmamap_dev_write(&dev, h, data, sizeof(data)), 0);
	assert_int_equal(dmamap_cache_line_state(m, DMAMAP_CACHE_OUTER, page_to_phys(pg)), DMAMAP_LINE_CLEAN);
	dma_unmap_single(&dev, h, sizeof(data), DMA_FROM_DEVICE);
	if (wrong)
		for (size_t i = 0; i < sizeof(data); i++)
			assert_int_equal(buf[i], 0);
	else
		assert_int_equal(check_pattern(buf, sizeof(data), 60), 0);
	dmamap_free_pages(pg, 0);
	dmamap_device_release(&dev);
	assert_int_equal(dmamap_cache_set_ops(m, NULL), 0);
	test_machine_destroy(m);
}

static void test_rule6_from_device_mapping_order(void **state)
{
	(void)state;
	run_from_device_order(false);
	run_from_device_order(true);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rule1_cpu_fill_needs_clean),
		cmocka_unit_test(test_rule1_with_outer_cache),
		cmocka_unit_test(test_rule2_device_write_needs_invalidate),
		cmocka_unit_test(test_rule2_with_outer_cache),
		cmocka_unit_test(test_rule2_map_invalidate_suffices_without_prefetch),
		cmocka_unit_test(test_rule3_speculation_needs_unmap),
		cmocka_unit_test(test_rule3_prefetch_rate),
		cmocka_unit_test(test_no_speculation_without_prefetch),
		cmocka_unit_test(test_speculation_points_counted),
		cmocka_unit_test(test_rule4_shared_line_loses_edges),
		cmocka_unit_test(test_rule4_aligned_buffer_intact),
		cmocka_unit_test(test_rule5_uncached_alias_both_ways),
		cmocka_unit_test(test_rule5_alias_store_not_cpu_store),
		cmocka_unit_test(test_library_store_equal_bytes_through_outer),
		cmocka_unit_test(test_rule5_coherent_machine_and_device),
		cmocka_unit_test(test_rule6_cpu_to_dev_order),
		cmocka_unit_test(test_rule6_dev_to_cpu_order),
		cmocka_unit_test(test_rule7_hooks_replaceable_and_counted),
		cmocka_unit_test(test_cost_scales_with_range),
		cmocka_unit_test(test_clean_line_keeps_newer_ram),
		cmocka_unit_test(test_line_states),
		cmocka_unit_test(test_library_store_dirties_equal_bytes),
		cmocka_unit_test(test_bad_ranges_reported),
		cmocka_unit_test(test_device_byte_counters),
		cmocka_unit_test(test_default_machine_shows_missing_sync),
		cmocka_unit_test(test_large_clear_over_held_and_untouched_pages),
		cmocka_unit_test(test_inner_inv_refills_from_outer_when_ram_matches),
		cmocka_unit_test(test_outer_inv_takes_stored_equal_line_as_resident),
		cmocka_unit_test(test_inv_mixed_levels_in_one_word),
		cmocka_unit_test(test_inv_mixed_levels_across_words),
		cmocka_unit_test(test_clear_over_a_written_and_an_unwritten_unit),
		cmocka_unit_test(test_many_receive_buffers_all_stale),
		cmocka_unit_test(test_many_receive_buffers_checker_off),
		cmocka_unit_test(test_rule6_from_device_mapping_order),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
