/* SPDX-License-Identifier: MIT */
/*
 * The simulated SoC (<dmamap/machine.h>): configuration, creation and its
 * refusals, the current machine, several machines side by side, fault
 * injection and the leak reports of test_machine_destroy().
 */
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"
#include "internal.h"

#define MiB (1ULL << 20)
#define BASE 0x40000000ULL

/* ------------------------------------------------------------- helpers */

static void assert_config_equal(const struct dmamap_machine_config *a, const struct dmamap_machine_config *b)
{
	assert_int_equal(a->ram_base, b->ram_base);
	assert_int_equal(a->ram_size, b->ram_size);
	assert_int_equal(a->dma_zone_limit, b->dma_zone_limit);
	assert_int_equal(a->cache_line_size, b->cache_line_size);
	assert_int_equal(a->coherent, b->coherent);
	assert_int_equal(a->outer_cache, b->outer_cache);
	assert_int_equal(a->speculative_prefetch, b->speculative_prefetch);
	assert_int_equal(a->consistent_size, b->consistent_size);
	assert_int_equal(a->seed, b->seed);
	assert_int_equal(a->kmalloc_packed, b->kmalloc_packed);
}

static void small_config(struct dmamap_machine_config *cfg)
{
	dmamap_machine_config_init(cfg);
	cfg->ram_size = 16 * MiB;
	cfg->consistent_size = 2 * MiB;
}

/* Every test leaves no current machine behind. */
static int no_current(void **state)
{
	(void)state;
	dmamap_machine_set_current(NULL);
	dmamap_set_log_handler(NULL, NULL, NULL);
	return 0;
}

/* ------------------------------------------------------------- config */

static void test_config_init_defaults(void **state)
{
	struct dmamap_machine_config cfg;
	(void)state;

	memset(&cfg, 0xa5, sizeof(cfg));
	dmamap_machine_config_init(&cfg);
	assert_int_equal(cfg.ram_base, 0x40000000ULL);
	assert_int_equal(cfg.ram_size, 256 * MiB);
	assert_int_equal(cfg.dma_zone_limit, 0);
	assert_int_equal(cfg.cache_line_size, 32);
	assert_false(cfg.coherent);
	/* the demanding ARMv7 machine: an outer cache and a CPU that prefetches */
	assert_true(cfg.outer_cache);
	assert_true(cfg.speculative_prefetch);
	assert_int_equal(cfg.consistent_size, 16 * MiB);
	assert_int_equal(cfg.seed, 1);

	/* NULL is ignored */
	dmamap_machine_config_init(NULL);
}

static void test_create_with_null_config_uses_defaults(void **state)
{
	struct dmamap_machine_config def, got;
	struct dmamap_machine *m;
	struct dmamap_page_stats st;
	struct dmamap_consistent_stats cs;
	(void)state;

	dmamap_machine_config_init(&def);
	m = dmamap_machine_create(NULL);
	assert_non_null(m);
	memset(&got, 0x5a, sizeof(got));
	dmamap_machine_get_config(m, &got);
	assert_config_equal(&got, &def);

	/* What the config says is what the machine has. */
	dmamap_page_stats(m, &st);
	assert_int_equal(st.total_pages[DMAMAP_ZONE_DMA] + st.total_pages[DMAMAP_ZONE_NORMAL],
			 def.ram_size / PAGE_SIZE);
	assert_int_equal(st.free_pages[DMAMAP_ZONE_DMA] + st.free_pages[DMAMAP_ZONE_NORMAL], def.ram_size / PAGE_SIZE);
	dmamap_consistent_stats(m, &cs);
	assert_int_equal(cs.size, def.consistent_size);
	assert_int_equal(cs.used, 0);
	assert_true(dmamap_pfn_valid(m, BASE >> PAGE_SHIFT));
	assert_true(dmamap_pfn_valid(m, (BASE + def.ram_size) / PAGE_SIZE - 1));
	assert_false(dmamap_pfn_valid(m, (BASE + def.ram_size) / PAGE_SIZE));
	assert_false(dmamap_pfn_valid(m, BASE / PAGE_SIZE - 1));
	assert_int_equal(dmamap_report_count(m), 0);
	test_machine_destroy(m);

	/* NULL is ignored */
	test_machine_destroy(NULL);
}

static void test_create_with_config_copies_it(void **state)
{
	struct dmamap_machine_config cfg, got;
	struct dmamap_machine *m;
	(void)state;

	small_config(&cfg);
	cfg.ram_base = 0x80000000ULL;
	cfg.ram_size = 1 * MiB; /* the minimum */
	cfg.cache_line_size = 256;
	cfg.dma_zone_limit = cfg.ram_base + PAGE_SIZE; /* the smallest zone */
	cfg.consistent_size = PAGE_SIZE;
	cfg.outer_cache = true;
	cfg.speculative_prefetch = true;
	cfg.coherent = true;
	cfg.seed = 99;
	cfg.kmalloc_packed = true;
	m = dmamap_machine_create(&cfg);
	assert_non_null(m);
	/* the caller's struct may change afterwards */
	cfg.ram_size = 64 * MiB;
	dmamap_machine_get_config(m, &got);
	cfg.ram_size = 1 * MiB;
	assert_config_equal(&got, &cfg);
	test_machine_destroy(m);

	small_config(&cfg);
	cfg.cache_line_size = 16;
	m = dmamap_machine_create(&cfg);
	assert_non_null(m);
	test_machine_destroy(m);
}

struct bad_config {
	const char *what;
	void (*tweak)(struct dmamap_machine_config *cfg);
};

static void bad_base(struct dmamap_machine_config *c) { c->ram_base = BASE + 0x800; }
static void bad_size(struct dmamap_machine_config *c) { c->ram_size = 16 * MiB + 100; }
static void small_size(struct dmamap_machine_config *c) { c->ram_size = 1 * MiB - PAGE_SIZE; }
static void zero_size(struct dmamap_machine_config *c) { c->ram_size = 0; }
static void line_24(struct dmamap_machine_config *c) { c->cache_line_size = 24; }
static void line_8(struct dmamap_machine_config *c) { c->cache_line_size = 8; }
static void line_512(struct dmamap_machine_config *c) { c->cache_line_size = 512; }
static void line_0(struct dmamap_machine_config *c) { c->cache_line_size = 0; }
static void zone_at_base(struct dmamap_machine_config *c) { c->dma_zone_limit = c->ram_base; }
static void zone_in_first_page(struct dmamap_machine_config *c) { c->dma_zone_limit = c->ram_base + PAGE_SIZE - 1; }
static void zone_below_ram(struct dmamap_machine_config *c) { c->dma_zone_limit = 0x1000; }
static void zone_unaligned(struct dmamap_machine_config *c) { c->dma_zone_limit = c->ram_base + 4 * MiB + 100; }
static void zone_beyond_ram(struct dmamap_machine_config *c) { c->dma_zone_limit = c->ram_base + c->ram_size + PAGE_SIZE; }
static void consistent_0(struct dmamap_machine_config *c) { c->consistent_size = 0; }
static void consistent_unaligned(struct dmamap_machine_config *c) { c->consistent_size = 2 * MiB + 512; }
static void overflow(struct dmamap_machine_config *c) { c->ram_base = 0xfffffffffff00000ULL; c->ram_size = 2 * MiB; }

static void check_refused(const struct bad_config *b)
{
	struct dmamap_machine_config cfg;
	struct dmamap_machine *cur = test_machine(16, NULL), *m;
	struct capture c;
	bool same_current;
	int err;

	/* @cur is the reference: a refused creation leaves it current. */
	dmamap_machine_set_current(cur);
	small_config(&cfg);
	b->tweak(&cfg);
	capture_start(&c, NULL);
	errno = 0;
	m = dmamap_machine_create(&cfg);
	err = errno;
	capture_stop(NULL);
	same_current = dmamap_machine_current() == cur;
	dmamap_machine_set_current(NULL);
	test_machine_destroy(m);
	test_machine_destroy(cur);
	if (m)
		fail_msg("config \"%s\" was accepted", b->what);
	assert_int_equal(err, EINVAL);
	assert_int_equal(c.reports, 1);
	assert_int_equal(c.by_kind[DMAMAP_REPORT_BAD_INPUT], 1);
	assert_true(same_current);
}

static void test_invalid_configs_refused(void **state)
{
	static const struct bad_config bad[] = {
		{ "unaligned base", bad_base },
		{ "unaligned size", bad_size },
		{ "size below 1 MiB", small_size },
		{ "size 0", zero_size },
		{ "line 24", line_24 },
		{ "line 8", line_8 },
		{ "line 512", line_512 },
		{ "line 0", line_0 },
		{ "zone limit at base", zone_at_base },
		{ "zone limit inside the first page", zone_in_first_page },
		{ "zone limit below RAM", zone_below_ram },
		{ "zone limit unaligned", zone_unaligned },
		{ "consistent size 0", consistent_0 },
		{ "consistent size unaligned", consistent_unaligned },
		{ "address range overflows", overflow },
	};
	(void)state;

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		check_refused(&bad[i]);
}

/*
 * machine.h: "EINVAL for a configuration out of range (... a DMA zone limit
 * outside RAM ...)". A limit beyond the end of RAM is outside RAM.
 */
static void test_zone_limit_beyond_ram_refused(void **state)
{
	static const struct bad_config b = { "zone limit beyond the end of RAM", zone_beyond_ram };
	(void)state;

	check_refused(&b);
}

/* The limit at the very end of RAM is inside (exclusive end): the zone is all of RAM. */
static void test_zone_limit_at_ram_end_accepted(void **state)
{
	struct dmamap_machine_config cfg, got;
	struct dmamap_machine *m;
	struct dmamap_page_stats st;
	(void)state;

	small_config(&cfg);
	cfg.dma_zone_limit = cfg.ram_base + cfg.ram_size;
	m = dmamap_machine_create(&cfg);
	assert_non_null(m);
	dmamap_machine_get_config(m, &got);
	dmamap_page_stats(m, &st);
	assert_int_equal(st.total_pages[DMAMAP_ZONE_DMA], cfg.ram_size / PAGE_SIZE);
	assert_int_equal(st.total_pages[DMAMAP_ZONE_NORMAL], 0);
	test_machine_destroy(m);
}

/* ------------------------------------------------------------- current machine */

static void test_first_created_becomes_current(void **state)
{
	struct dmamap_machine_config cfg;
	struct dmamap_machine *a, *b;
	(void)state;

	small_config(&cfg);
	dmamap_machine_set_current(NULL);
	a = dmamap_machine_create(&cfg);
	assert_non_null(a);
	assert_ptr_equal(dmamap_machine_current(), a);
	/* a second one does not take over */
	b = dmamap_machine_create(&cfg);
	assert_non_null(b);
	assert_ptr_equal(dmamap_machine_current(), a);

	dmamap_machine_set_current(b);
	assert_ptr_equal(dmamap_machine_current(), b);
	/* kernel-style calls act on the current machine */
	{
		struct page *p = alloc_page(GFP_KERNEL);

		assert_non_null(p);
		assert_ptr_equal(dmamap_machine_of(page_address(p)), b);
		__free_page(p);
	}
	dmamap_machine_set_current(a);
	assert_ptr_equal(dmamap_machine_current(), a);

	/* destroying a machine that is not current leaves the current one */
	test_machine_destroy(b);
	assert_ptr_equal(dmamap_machine_current(), a);
	test_machine_destroy(a);
}

static void test_destroying_current_leaves_none(void **state)
{
	struct dmamap_machine_config cfg, def, got;
	struct dmamap_machine *a, *keep, *d;
	(void)state;

	small_config(&cfg);
	keep = dmamap_machine_create(&cfg); /* becomes current: none was */
	assert_non_null(keep);
	a = dmamap_machine_create(&cfg);
	assert_non_null(a);
	dmamap_machine_set_current(a);
	test_machine_destroy(a);

	/* No current machine now: @keep is not promoted; a default one is created. */
	d = dmamap_machine_current();
	assert_non_null(d);
	assert_ptr_not_equal(d, keep);
	dmamap_machine_config_init(&def);
	dmamap_machine_get_config(d, &got);
	assert_config_equal(&got, &def);
	assert_ptr_equal(dmamap_machine_current(), d);
	assert_ptr_equal(dmamap_machine_current(), d);

	/* It is an ordinary machine, destroyed by its owner. */
	test_machine_destroy(d);
	d = dmamap_machine_current();
	assert_non_null(d);
	assert_ptr_not_equal(d, keep);
	test_machine_destroy(d);

	/* set_current(NULL) leaves none as well */
	dmamap_machine_set_current(keep);
	dmamap_machine_set_current(NULL);
	d = dmamap_machine_current();
	assert_ptr_not_equal(d, keep);
	test_machine_destroy(d);
	test_machine_destroy(keep);
}

/* ------------------------------------------------------------- two machines */

static void test_two_machines_side_by_side(void **state)
{
	struct dmamap_machine *a = test_machine(16, NULL), *b = test_machine(16, NULL);
	struct page *pa, *pb;
	struct device da = { 0 }, db = { 0 };
	u8 buf[64];
	int local;
	(void)state;

	pa = dmamap_alloc_pages(a, GFP_KERNEL, 0);
	pb = dmamap_alloc_pages(b, GFP_KERNEL, 0);
	assert_non_null(pa);
	assert_non_null(pb);

	assert_ptr_equal(dmamap_machine_of(page_address(pa)), a);
	assert_ptr_equal(dmamap_machine_of(page_address(pb)), b);
	assert_ptr_equal(dmamap_machine_of((u8 *)page_address(pa) + PAGE_SIZE - 1), a);
	assert_ptr_equal(virt_to_page(page_address(pa)), pa);
	assert_ptr_equal(virt_to_page(page_address(pb)), pb);
	assert_int_equal(virt_to_phys(page_address(pa)), page_to_phys(pa));
	assert_int_equal(virt_to_phys((u8 *)page_address(pb) + 100), page_to_phys(pb) + 100);
	assert_true(virt_addr_valid(page_address(pa)));
	assert_true(virt_addr_valid(page_address(pb)));
	assert_null(dmamap_machine_of(&local));
	assert_null(dmamap_machine_of(NULL));
	assert_false(virt_addr_valid(&local));

	/* Same configuration: the same physical address on both, two host pointers. */
	assert_int_equal(page_to_phys(pa), page_to_phys(pb));
	assert_ptr_not_equal(page_address(pa), page_address(pb));
	assert_ptr_not_equal(dmamap_phys_to_virt(a, BASE), dmamap_phys_to_virt(b, BASE));
	assert_ptr_equal(dmamap_machine_of(dmamap_phys_to_virt(a, BASE)), a);
	assert_ptr_equal(dmamap_machine_of(dmamap_phys_to_virt(b, BASE)), b);
	assert_ptr_not_equal(dmamap_phys_to_page(a, BASE), dmamap_phys_to_page(b, BASE));

	/* Data of one is not seen in the other: CPU view ... */
	memset(page_address(pa), 0xaa, PAGE_SIZE);
	memset(page_address(pb), 0x55, PAGE_SIZE);
	assert_int_equal(((u8 *)page_address(pa))[17], 0xaa);
	/* ... and RAM, as the devices see it (at physical addresses, unmapped: no checker). */
	assert_int_equal(dmamap_checker_enable(a, false), 0);
	assert_int_equal(dmamap_checker_enable(b, false), 0);
	assert_int_equal(dmamap_device_init(&da, a, "da"), 0);
	assert_int_equal(dmamap_device_init(&db, b, "db"), 0);
	fill_pattern(buf, sizeof(buf), 1);
	assert_int_equal(dmamap_dev_write(&da, page_to_phys(pa), buf, sizeof(buf)), 0);
	memset(buf, 0, sizeof(buf));
	assert_int_equal(dmamap_dev_read(&db, page_to_phys(pb), buf, sizeof(buf)), 0);
	assert_true(check_pattern(buf, sizeof(buf), 1) != 0);
	assert_int_equal(dmamap_dev_read(&da, page_to_phys(pa), buf, sizeof(buf)), 0);
	assert_int_equal(check_pattern(buf, sizeof(buf), 1), 0);
	/* reports stay on their own machine */
	{
		struct capture ca;

		capture_start(&ca, a);
		assert_null(dmamap_alloc_pages(a, GFP_KERNEL, MAX_ORDER));
		capture_stop(a);
		assert_int_equal(ca.reports, 1);
	}
	assert_int_equal(dmamap_report_count(a), 1);
	assert_int_equal(dmamap_report_count(b), 0);
	{
		struct capture ca;

		capture_start(&ca, a);
		dmamap_device_release(&da);
		dmamap_device_release(&db);
		dmamap_free_pages(pa, 0);
		dmamap_free_pages(pb, 0);
		capture_stop(a);
		assert_int_equal(ca.reports, 0);
	}
	test_machine_destroy(a);
	/* b still works after a is gone */
	pb = dmamap_alloc_pages(b, GFP_KERNEL, 0);
	assert_non_null(pb);
	assert_ptr_equal(dmamap_machine_of(page_address(pb)), b);
	dmamap_free_pages(pb, 0);
	assert_int_equal(dmamap_report_count(b), 0);
	test_machine_destroy(b);
}

static void other_base(struct dmamap_machine_config *cfg)
{
	cfg->ram_base = 0x80000000ULL;
}

static void test_machines_at_different_bases(void **state)
{
	struct dmamap_machine *a = test_machine(16, NULL), *b = test_machine(16, other_base);
	struct page *pb;
	(void)state;

	pb = dmamap_alloc_pages(b, GFP_KERNEL, 2);
	assert_non_null(pb);
	assert_true(page_to_phys(pb) >= 0x80000000ULL);
	assert_true(page_to_phys(pb) < 0x80000000ULL + 16 * MiB);
	assert_int_equal(virt_to_phys(page_address(pb)), page_to_phys(pb));
	/* b's physical addresses are not a's RAM */
	assert_null(dmamap_phys_to_page(a, page_to_phys(pb)));
	assert_null(dmamap_phys_to_virt(a, page_to_phys(pb)));
	assert_false(dmamap_pfn_valid(a, page_to_pfn(pb)));
	assert_ptr_equal(dmamap_pfn_to_page(b, page_to_pfn(pb)), pb);
	assert_ptr_equal(dmamap_phys_to_virt(b, page_to_phys(pb) + 5), (u8 *)page_address(pb) + 5);
	dmamap_free_pages(pb, 2);
	test_machine_destroy(b);
	test_machine_destroy(a);
}

/* ------------------------------------------------------------- fault injection */

static void test_fault_nth(void **state)
{
	struct dmamap_machine *m = test_machine(16, NULL);
	struct page *p[6];
	unsigned long att0 = dmamap_fault_attempts(m, DMAMAP_FAULT_PAGE_ALLOC);
	(void)state;

	assert_int_equal(dmamap_fault_injected(m, DMAMAP_FAULT_PAGE_ALLOC), 0);
	assert_int_equal(dmamap_fault_inject(m, DMAMAP_FAULT_PAGE_ALLOC, 3, 0), 0);
	for (int i = 0; i < 6; i++) {
		p[i] = dmamap_alloc_pages(m, GFP_KERNEL, 0);
		if (i == 2)
			assert_null(p[i]);
		else
			assert_non_null(p[i]);
	}
	assert_int_equal(dmamap_fault_attempts(m, DMAMAP_FAULT_PAGE_ALLOC), att0 + 6);
	assert_int_equal(dmamap_fault_injected(m, DMAMAP_FAULT_PAGE_ALLOC), 1);
	/* other sites untouched */
	for (unsigned s = 0; s < DMAMAP_FAULT_SITE_NR; s++)
		if (s != DMAMAP_FAULT_PAGE_ALLOC)
			assert_int_equal(dmamap_fault_injected(m, (enum dmamap_fault_site)s), 0);
	/* once only: the next dozen succeed */
	for (int i = 0; i < 12; i++) {
		struct page *q = dmamap_alloc_pages(m, GFP_KERNEL, 0);

		assert_non_null(q);
		dmamap_free_pages(q, 0);
	}
	assert_int_equal(dmamap_fault_injected(m, DMAMAP_FAULT_PAGE_ALLOC), 1);

	/* nth counts from when it is armed; 1 = the very next attempt */
	assert_int_equal(dmamap_fault_inject(m, DMAMAP_FAULT_PAGE_ALLOC, 1, 0), 0);
	assert_null(dmamap_alloc_pages(m, GFP_KERNEL, 0));
	assert_int_equal(dmamap_fault_injected(m, DMAMAP_FAULT_PAGE_ALLOC), 2);

	/* re-arming replaces: nth 5 then nth 2 fails only the 2nd */
	assert_int_equal(dmamap_fault_inject(m, DMAMAP_FAULT_PAGE_ALLOC, 5, 0), 0);
	assert_int_equal(dmamap_fault_inject(m, DMAMAP_FAULT_PAGE_ALLOC, 2, 0), 0);
	for (int i = 0; i < 6; i++) {
		struct page *q = dmamap_alloc_pages(m, GFP_KERNEL, 0);

		if (i == 1) {
			assert_null(q);
		} else {
			assert_non_null(q);
			dmamap_free_pages(q, 0);
		}
	}
	assert_int_equal(dmamap_fault_injected(m, DMAMAP_FAULT_PAGE_ALLOC), 3);

	/* disarmed by 0, 0 */
	assert_int_equal(dmamap_fault_inject(m, DMAMAP_FAULT_PAGE_ALLOC, 2, 0), 0);
	assert_int_equal(dmamap_fault_inject(m, DMAMAP_FAULT_PAGE_ALLOC, 0, 0), 0);
	for (int i = 0; i < 4; i++) {
		struct page *q = dmamap_alloc_pages(m, GFP_KERNEL, 0);

		assert_non_null(q);
		dmamap_free_pages(q, 0);
	}
	assert_int_equal(dmamap_fault_injected(m, DMAMAP_FAULT_PAGE_ALLOC), 3);

	for (int i = 0; i < 6; i++)
		if (p[i])
			dmamap_free_pages(p[i], 0);
	assert_int_equal(dmamap_report_count(m), 0);
	test_machine_destroy(m);
}

static void test_fault_ppm(void **state)
{
	struct dmamap_machine *m = test_machine(16, NULL);
	unsigned long inj0;
	unsigned fails = 0;
	(void)state;

	/* 1,000,000 ppm fails every attempt */
	assert_int_equal(dmamap_fault_inject(m, DMAMAP_FAULT_PAGE_ALLOC, 0, 1000000), 0);
	for (int i = 0; i < 50; i++)
		assert_null(dmamap_alloc_pages(m, GFP_KERNEL, 0));
	assert_int_equal(dmamap_fault_injected(m, DMAMAP_FAULT_PAGE_ALLOC), 50);

	/* 0 disarms */
	assert_int_equal(dmamap_fault_inject(m, DMAMAP_FAULT_PAGE_ALLOC, 0, 0), 0);
	for (int i = 0; i < 50; i++) {
		struct page *p = dmamap_alloc_pages(m, GFP_KERNEL, 0);

		assert_non_null(p);
		dmamap_free_pages(p, 0);
	}
	assert_int_equal(dmamap_fault_injected(m, DMAMAP_FAULT_PAGE_ALLOC), 50);

	/* 50% fails about half */
	inj0 = dmamap_fault_injected(m, DMAMAP_FAULT_PAGE_ALLOC);
	assert_int_equal(dmamap_fault_inject(m, DMAMAP_FAULT_PAGE_ALLOC, 0, 500000), 0);
	for (int i = 0; i < 1000; i++) {
		struct page *p = dmamap_alloc_pages(m, GFP_KERNEL, 0);

		if (p)
			dmamap_free_pages(p, 0);
		else
			fails++;
	}
	assert_int_equal(dmamap_fault_injected(m, DMAMAP_FAULT_PAGE_ALLOC) - inj0, fails);
	assert_in_range(fails, 350, 650);

	/* nth and ppm together: nth fails even when the draw would not */
	assert_int_equal(dmamap_fault_inject(m, DMAMAP_FAULT_PAGE_ALLOC, 1, 1), 0);
	assert_null(dmamap_alloc_pages(m, GFP_KERNEL, 0));
	assert_int_equal(dmamap_fault_inject(m, DMAMAP_FAULT_PAGE_ALLOC, 0, 0), 0);
	test_machine_destroy(m);
}

/* The same seed gives the same failures; another seed gives others. */
static unsigned long fail_mask(uint64_t seed)
{
	struct dmamap_machine_config cfg;
	struct dmamap_machine *m;
	unsigned long mask = 0;

	small_config(&cfg);
	cfg.seed = seed;
	m = dmamap_machine_create(&cfg);
	assert_non_null(m);
	assert_int_equal(dmamap_fault_inject(m, DMAMAP_FAULT_PAGE_ALLOC, 0, 500000), 0);
	for (unsigned i = 0; i < 64; i++) {
		struct page *p = dmamap_alloc_pages(m, GFP_KERNEL, 0);

		if (p)
			dmamap_free_pages(p, 0);
		else
			mask |= 1UL << i;
	}
	test_machine_destroy(m);
	return mask;
}

static void test_fault_ppm_deterministic(void **state)
{
	(void)state;
	assert_int_equal(fail_mask(7), fail_mask(7));
	assert_int_equal(fail_mask(1), fail_mask(1));
	assert_int_not_equal(fail_mask(7), fail_mask(8));
}

static void test_fault_inject_bad_arguments(void **state)
{
	struct dmamap_machine *m = test_machine(16, NULL);
	unsigned long att;
	(void)state;

	/* armed: the 2nd attempt fails */
	assert_int_equal(dmamap_fault_inject(m, DMAMAP_FAULT_PAGE_ALLOC, 2, 0), 0);
	att = dmamap_fault_attempts(m, DMAMAP_FAULT_PAGE_ALLOC);

	assert_int_equal(dmamap_fault_inject(m, DMAMAP_FAULT_SITE_NR, 1, 0), -EINVAL);
	assert_int_equal(dmamap_fault_inject(m, (enum dmamap_fault_site)-1, 1, 0), -EINVAL);
	assert_int_equal(dmamap_fault_inject(m, DMAMAP_FAULT_PAGE_ALLOC, 1, 1000001), -EINVAL);
	assert_int_equal(dmamap_fault_inject(m, DMAMAP_FAULT_PAGE_ALLOC, 0, (unsigned long)-1), -EINVAL);
	assert_int_equal(dmamap_fault_inject(NULL, DMAMAP_FAULT_PAGE_ALLOC, 1, 0), -EINVAL);
	assert_int_equal(dmamap_fault_attempts(m, DMAMAP_FAULT_SITE_NR), 0);
	assert_int_equal(dmamap_fault_injected(m, DMAMAP_FAULT_SITE_NR), 0);
	assert_int_equal(dmamap_fault_attempts(NULL, DMAMAP_FAULT_PAGE_ALLOC), 0);
	assert_int_equal(dmamap_fault_injected(NULL, DMAMAP_FAULT_PAGE_ALLOC), 0);

	/* nothing changed: still the 2nd attempt, not the 1st, fails */
	assert_int_equal(dmamap_fault_attempts(m, DMAMAP_FAULT_PAGE_ALLOC), att);
	{
		struct page *p = dmamap_alloc_pages(m, GFP_KERNEL, 0);

		assert_non_null(p);
		assert_null(dmamap_alloc_pages(m, GFP_KERNEL, 0));
		dmamap_free_pages(p, 0);
	}
	assert_int_equal(dmamap_fault_injected(m, DMAMAP_FAULT_PAGE_ALLOC), 1);
	test_machine_destroy(m);
}

/* ------------------------------------------------------------- destroy */

static void test_destroy_reports_leaks(void **state)
{
	struct dmamap_machine *m = test_machine(16, NULL);
	struct dmamap_vmregion *r;
	struct vm_area_struct *vma;
	struct device d1 = { 0 }, d2 = { 0 };
	struct page *p1, *p2;
	struct capture c;
	(void)state;

	assert_int_equal(dmamap_device_init(&d1, m, "leaky1"), 0);
	assert_int_equal(dmamap_device_init(&d2, m, "leaky2"), 0);
	p1 = dmamap_alloc_pages(m, GFP_KERNEL, 0);
	p2 = dmamap_alloc_pages(m, GFP_KERNEL, 3);
	assert_non_null(p1);
	assert_non_null(p2);
	vma = dmamap_vma_create(m, 2 * PAGE_SIZE);
	assert_non_null(vma);
	assert_int_equal(remap_pfn_range(vma, vma->vm_start, page_to_pfn(p2), 2 * PAGE_SIZE,
					 pgprot_noncached(vma->vm_page_prot)),
			 0);
	r = dmamap_vmregion_alloc(m, 2 * PAGE_SIZE, NULL);
	assert_non_null(r);
	assert_int_equal(dmamap_vmregion_map(m, r, 0, NULL, page_to_pfn(p2), 2, pgprot_noncached(PAGE_KERNEL)), 0);

	capture_start(&c, m);
	test_machine_destroy(m);
	/* two devices, the pages, the vma, the consistent mapping */
	assert_int_equal(c.by_kind[DMAMAP_REPORT_LEAK], 5);
	assert_int_equal(c.reports, 5);
	/* the devices were released: they are uninitialised again */
	assert_string_equal(dev_name(&d1), "(uninitialised device)");
	assert_null(dmamap_dev_machine(&d2));
	/* the vma is still the caller's: unmapped, refused, and freed (reported) by its destroy */
	capture_start(&c, NULL);
	assert_int_equal(dmamap_vma_pte(vma, vma->vm_start, NULL, NULL), -ENOENT);
	assert_int_equal(remap_pfn_range(vma, vma->vm_start, 0x40000, PAGE_SIZE, vma->vm_page_prot), -ENXIO);
	assert_int_equal(c.by_kind[DMAMAP_REPORT_API_MISUSE], 1);
	dmamap_vma_destroy(vma);
	assert_int_equal(c.by_kind[DMAMAP_REPORT_API_MISUSE], 2);
	assert_non_null(strstr(c.last, "machine has been destroyed"));
	capture_stop(NULL);
	m = test_machine(16, NULL);
	assert_int_equal(dmamap_device_init(&d1, m, "again"), 0);
	assert_ptr_equal(dmamap_dev_machine(&d1), m);
	dmamap_device_release(&d1);
	assert_int_equal(dmamap_report_count(m), 0);
	test_machine_destroy(m);
}

/* Whether the host maps @p readable (from /proc/self/maps: no access is tried). */
static bool host_readable(const void *p)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512], perms[8];
	unsigned long lo, hi, a = (unsigned long)(uintptr_t)p;
	bool r = false;

	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx %7s", &lo, &hi, perms) == 3 && a >= lo && a < hi) {
			r = perms[0] == 'r';
			break;
		}
	}
	fclose(f);
	return r;
}

/*
 * The consistent region's window: a section boundary, clear of the CPU
 * view by a page or more on either side, inaccessible where nothing is
 * mapped; a mapping left at destroy goes with the machine (one report).
 */
static void test_consistent_window_is_guarded(void **state)
{
	struct dmamap_machine *m = test_machine(16, NULL);
	struct dmamap_vmregion *r;
	struct page *p;
	struct capture c;
	u8 *base = m->cons.base;
	(void)state;

	assert_non_null(base);
	assert_int_equal((uintptr_t)base % DM_SECTION_SIZE, 0);
	assert_true(base >= m->cpu + m->cfg.ram_size + PAGE_SIZE || base + m->cons.size + PAGE_SIZE <= m->cpu);
	assert_true(host_readable(m->cpu + m->cfg.ram_size - 1));
	assert_false(host_readable(base - 1));
	assert_false(host_readable(base));
	assert_false(host_readable(base + m->cons.size - 1));
	assert_false(host_readable(base + m->cons.size));

	p = dmamap_alloc_pages(m, GFP_KERNEL, 1);
	assert_non_null(p);
	r = dmamap_vmregion_alloc(m, 2 * PAGE_SIZE, NULL);
	assert_non_null(r);
	assert_ptr_equal((u8 *)r->start, base);
	assert_int_equal(dmamap_vmregion_map(m, r, 0, NULL, page_to_pfn(p), 2, pgprot_noncached(PAGE_KERNEL)), 0);
	assert_true(host_readable(base));
	assert_true(host_readable(base + 2 * PAGE_SIZE - 1));
	assert_false(host_readable(base - 1));
	assert_false(host_readable(base + 2 * PAGE_SIZE));
	dmamap_vmregion_free(m, r);
	assert_false(host_readable(base));

	r = dmamap_vmregion_alloc(m, PAGE_SIZE, NULL);
	assert_non_null(r);
	assert_int_equal(dmamap_vmregion_map(m, r, 0, NULL, page_to_pfn(p), 1, pgprot_noncached(PAGE_KERNEL)), 0);
	dmamap_free_pages(p, 1);
	capture_start(&c, m);
	test_machine_destroy(m);
	assert_int_equal(c.by_kind[DMAMAP_REPORT_LEAK], 1);
	assert_int_equal(c.reports, 1);
	capture_stop(NULL);
}

static void test_destroy_clean_machine_reports_nothing(void **state)
{
	struct dmamap_machine *m = test_machine(16, NULL);
	struct vm_area_struct *vma;
	struct dmamap_vmregion *r;
	struct device d = { 0 };
	struct page *p;
	struct capture c;
	(void)state;

	capture_start(&c, m);
	assert_int_equal(dmamap_device_init(&d, m, "clean"), 0);
	p = dmamap_alloc_pages(m, GFP_KERNEL, 1);
	assert_non_null(p);
	vma = dmamap_vma_create(m, PAGE_SIZE);
	assert_non_null(vma);
	r = dmamap_vmregion_alloc(m, PAGE_SIZE, NULL);
	assert_non_null(r);
	dmamap_vmregion_free(m, r);
	dmamap_vma_destroy(vma);
	dmamap_free_pages(p, 1);
	dmamap_device_release(&d);
	test_machine_destroy(m);
	assert_int_equal(c.reports, 0);
}

/* A machine destroyed twice: the second is reported and does nothing (ASan and valgrind see no access). */
static void test_destroy_twice_refused(void **state)
{
	struct dmamap_machine *m = test_machine(16, NULL);
	unsigned long before;
	struct capture c;
	(void)state;

	test_machine_destroy(m);
	capture_start(&c, NULL);
	before = dmamap_report_count(NULL);
	dmamap_machine_destroy(m);
	capture_stop(NULL);
	assert_int_equal(c.reports, 1);
	assert_int_equal(c.last_kind, DMAMAP_REPORT_BAD_INPUT);
	assert_non_null(strstr(c.last, "is no live machine"));
	assert_int_equal(dmamap_report_count(NULL), before + 1);
}

/* Many machines created and destroyed: nothing accumulates (valgrind checks host memory). */
static void test_create_destroy_repeatedly(void **state)
{
	unsigned n = under_valgrind() ? 3 : 20;
	(void)state;

	for (unsigned i = 0; i < n; i++) {
		struct dmamap_machine *m = test_machine(i % 2 ? 1 : 16, NULL);
		struct page *p = dmamap_alloc_pages(m, GFP_KERNEL, 0);

		assert_non_null(p);
		assert_ptr_equal(dmamap_machine_of(page_address(p)), m);
		dmamap_free_pages(p, 0);
		test_machine_destroy(m);
	}
}

#if defined(__SANITIZE_ADDRESS__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SANITIZED 1
#endif
#endif

static long host_page_faults(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_minflt + ru.ru_majflt;
}

/*
 * Making a machine sets nothing up per page of RAM: a 4 GiB machine, made,
 * given a device and used a little, touches a handful of host pages, not
 * the ~12,000 its struct pages alone would fill; and the machines made after
 * it, of the same size, touch none it did not. (Skipped where the host allocator itself
 * touches what it hands out: memcheck and ASan.)
 */
static void test_creation_touches_no_per_page_state(void **state)
{
	struct dmamap_machine_config cfg;
	long before, after, first = 0;
	(void)state;

#ifdef SANITIZED
	skip();
#endif
	if (under_valgrind())
		skip();
	dmamap_machine_config_init(&cfg);
	cfg.ram_size = 4096 * MiB;
	before = host_page_faults();
	for (int i = 0; i < 4; i++) {
		struct dmamap_machine *m;

		if (i == 1)
			first = host_page_faults() - before;
		m = dmamap_machine_create(&cfg);
		struct device dev = { 0 };
		struct page *p, *q;

		assert_non_null(m);
		/* the first device makes the atomic pool: 256 KiB cleared and remapped */
		assert_int_equal(dmamap_device_init(&dev, m, "dev"), 0);
		p = dmamap_alloc_pages(m, GFP_KERNEL, 0);
		q = dmamap_alloc_pages(m, GFP_KERNEL, MAX_ORDER - 1);
		assert_non_null(p);
		assert_non_null(q);
		assert_ptr_equal(virt_to_page(page_address(q)), q);
		dmamap_free_pages(q, MAX_ORDER - 1);
		dmamap_free_pages(p, 0);
		dmamap_device_release(&dev);
		dmamap_machine_destroy(m);
	}
	after = host_page_faults();
	assert_in_range(first, 0, 64);
	/* the next ones find the pages the first faulted in */
	assert_in_range(after - before - first, 0, 3 * 2);
}

/*
 * Blocks of 32 pages (4096 lines of 32 bytes, one unit of what a machine
 * records it wrote), each written by one path only: the library's zeroing
 * stores through the CPU view, a snooping device's write, an uncached alias
 * coming and going.
 */
static void single_path_units(struct dmamap_machine *m, struct page *blocks[3])
{
	struct device dev = { 0 };
	struct page *zeroed, *snooped, *aliased;
	struct vm_area_struct *vma;
	dma_addr_t h;

	zeroed = dmamap_alloc_pages(m, GFP_KERNEL | __GFP_ZERO, 5);
	assert_non_null(zeroed);

	assert_int_equal(dmamap_device_init(&dev, m, "snooping"), 0);
	dev.dma_coherent = true;
	snooped = dmamap_alloc_pages(m, GFP_KERNEL, 5);
	assert_non_null(snooped);
	h = dma_map_single(&dev, page_address(snooped), PAGE_SIZE, DMA_FROM_DEVICE);
	assert_false(dma_mapping_error(&dev, h));
	assert_int_equal(dmamap_dev_fill(&dev, h, 0x77, PAGE_SIZE), 0);
	dma_unmap_single(&dev, h, PAGE_SIZE, DMA_FROM_DEVICE);
	dmamap_device_release(&dev);

	aliased = dmamap_alloc_pages(m, GFP_KERNEL, 5);
	assert_non_null(aliased);
	vma = dmamap_vma_create(m, PAGE_SIZE);
	assert_non_null(vma);
	assert_int_equal(remap_pfn_range(vma, vma->vm_start, page_to_pfn(aliased) + 3, PAGE_SIZE,
					 pgprot_noncached(PAGE_KERNEL)),
			 0);
	dmamap_vma_destroy(vma);

	/* freed last, so that no other path writes their lines */
	blocks[0] = zeroed;
	blocks[1] = snooped;
	blocks[2] = aliased;
}

/*
 * A machine's life that writes line state of every kind, its shadow and its
 * outer copy: CPU stores, maps and unmaps in every direction with device
 * reads and writes in between, coherent buffers (uncached aliases) zeroed
 * and freed, maintenance by range, speculation. Some lines are left dirty,
 * some outer lines dirty, some images set aside, some invalidated lines not
 * yet prefetched back.
 */
static void busy_life(struct dmamap_machine *m)
{
	struct device dev = { 0 };
	struct page *pages[6], *blocks[3];
	void *coh[3];
	dma_addr_t coh_handle[3];
	struct dmamap_rng rng = { 99 };

	single_path_units(m, blocks);
	assert_int_equal(dmamap_device_init(&dev, m, "busy"), 0);
	for (int i = 0; i < 3; i++) {
		coh[i] = dma_alloc_coherent(&dev, PAGE_SIZE << i, &coh_handle[i], GFP_KERNEL);
		assert_non_null(coh[i]);
		memset(coh[i], 0x5a, PAGE_SIZE << i);
	}
	for (int i = 0; i < 6; i++) {
		pages[i] = dmamap_alloc_pages(m, GFP_KERNEL | (i & 1 ? __GFP_ZERO : 0), (unsigned)i % 4);
		assert_non_null(pages[i]);
	}
	for (int round = 0; round < 200; round++) {
		int i = (int)(dmamap_rng_next(&rng) % 6);
		size_t span = PAGE_SIZE << (i % 4), off = dmamap_rng_next(&rng) % span;
		size_t len = 1 + dmamap_rng_next(&rng) % (span - off);
		u8 *va = (u8 *)page_address(pages[i]) + off, data[64] = { (u8)round };
		enum dma_data_direction dir = (enum dma_data_direction)(dmamap_rng_next(&rng) % 3);
		dma_addr_t h;

		memset(va, round, len);
		h = dma_map_single(&dev, va, len, dir);
		assert_false(dma_mapping_error(&dev, h));
		if (dir != DMA_TO_DEVICE)
			assert_int_equal(dmamap_dev_write(&dev, h, data, DM_MIN(len, sizeof(data))), 0);
		else
			assert_int_equal(dmamap_dev_read(&dev, h, data, DM_MIN(len, sizeof(data))), 0);
		dma_unmap_single(&dev, h, len, dir);
		if (round % 7 == 0)
			dmamap_cache_clean(m, DMAMAP_CACHE_OUTER, page_to_phys(pages[i]), span);
		if (round % 11 == 0)
			dmamap_cache_speculate(m);
		va[len - 1] ^= 0xff; /* left dirty */
	}
	/* the device writes RAM under lines the CPU holds, images set aside */
	assert_int_equal(dmamap_dev_fill(&dev, coh_handle[2], 0x33, PAGE_SIZE), 0);
	for (int i = 0; i < 3; i++)
		dma_free_coherent(&dev, PAGE_SIZE << i, coh[i], coh_handle[i]);
	/* written back to the outer cache only: outer dirty */
	memset(page_address(pages[2]), 0x21, PAGE_SIZE);
	dmamap_cache_clean(m, DMAMAP_CACHE_INNER, page_to_phys(pages[2]), PAGE_SIZE);
	/* invalidated, waiting to be prefetched: nonres and pending */
	assert_int_equal(dmamap_cache_set_prefetch_rate(m, 0), 0);
	dmamap_cache_inv(m, DMAMAP_CACHE_INNER, page_to_phys(pages[3]), PAGE_SIZE << 3);
	for (int i = 0; i < 6; i++)
		dmamap_free_pages(pages[i], (unsigned)i % 4);
	for (int i = 0; i < 3; i++)
		dmamap_free_pages(blocks[i], 5);
	dmamap_device_release(&dev);
	assert_int_equal(dmamap_cache_set_prefetch_rate(m, 1000), 0);
}

/* Every byte of an arena is zero. */
static void assert_arena_zero(const u8 *arena, size_t size)
{
	const unsigned long *w = (const unsigned long *)arena;

	for (size_t i = 0; i < size / sizeof(long); i++)
		if (w[i])
			fail_msg("arena byte %#zx of %#zx is not zero", i * sizeof(long), size);
}

/*
 * The host memory of a destroyed machine's state serves the next machine of
 * the same size, as zero as fresh memory: whatever the first wrote (line
 * state of every kind, struct pages, alias counts, shadow and outer bytes)
 * reads as never written. Under memcheck nothing is kept.
 */
static void test_destroyed_machine_memory_serves_the_next_zeroed(void **state)
{
	struct dmamap_machine_config cfg;
	struct dmamap_machine *a, *b;
	size_t size;
	u8 *arena;
	(void)state;

	dmamap_machine_config_init(&cfg);
	cfg.ram_size = 6 * MiB; /* a size no other test here makes */
	cfg.consistent_size = 2 * MiB;
	cfg.outer_cache = true;
	cfg.speculative_prefetch = true;
	a = dmamap_machine_create(&cfg);
	assert_non_null(a);
	busy_life(a);
	arena = a->arena;
	size = a->arena_size;
	test_machine_destroy(a);
	if (under_valgrind()) {
		/* given back: memcheck finds stale pointers into it */
		assert_null(dmamap_arena_take(size));
		return;
	}

	b = dmamap_machine_create(&cfg);
	assert_non_null(b);
	assert_ptr_equal(b->arena, arena);
	assert_arena_zero(b->arena, b->arena_size);
	/* and it is a machine like any other */
	busy_life(b);
	test_machine_destroy(b);
}

/* Whether @len bytes at @p are all zero (a plane's, free pages' included: memcheck is told to keep quiet). */
static bool all_zero(const u8 *p, size_t len)
{
	bool zero = true;

	dmamap_track_quiet_begin();
	for (size_t i = 0; i < len && zero; i++)
		zero = !p[i];
	dmamap_track_quiet_end();
	return zero;
}

/* Fill a plane of @m with @c, free pages too. */
static void plane_fill(struct dmamap_machine *m, u8 *plane, int c)
{
	dmamap_track_quiet_begin();
	memset(plane, c, m->cfg.ram_size);
	dmamap_track_quiet_end();
}

/* Make a machine of @cfg, its RAM file that of the last destroyed machine of its size (@fd) or not. */
static struct dmamap_machine *machine_with_file(const struct dmamap_machine_config *cfg, int fd, bool same)
{
	struct dmamap_machine *m = dmamap_machine_create(cfg);

	assert_non_null(m);
	if (same)
		assert_int_equal(m->mem_fd, fd);
	else
		assert_int_not_equal(m->mem_fd, fd);
	assert_true(all_zero(m->ram, m->cfg.ram_size));
	assert_true(all_zero(m->cpu, m->cfg.ram_size));
	return m;
}

/*
 * A destroyed machine's RAM file serves the next machine of its size,
 * emptied: RAM and the CPU view read zero. Not in a forked child, which
 * shares the file with its parent: a child's machine has a file of its
 * own, and the parent's next machine still finds its file empty.
 */
static void test_destroyed_machine_ram_serves_the_next_zeroed(void **state)
{
	struct dmamap_machine_config cfg;
	struct dmamap_machine *m;
	int fd, status;
	pid_t pid;
	(void)state;

	dmamap_machine_config_init(&cfg);
	cfg.ram_size = 10 * MiB; /* a size no other test here makes */
	cfg.consistent_size = 2 * MiB;
	m = dmamap_machine_create(&cfg);
	assert_non_null(m);
	busy_life(m);
	plane_fill(m, m->ram, 0xa5);
	plane_fill(m, m->cpu, 0x5a);
	fd = m->mem_fd;
	test_machine_destroy(m);

	m = machine_with_file(&cfg, fd, true);
	busy_life(m);
	test_machine_destroy(m);

	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		m = dmamap_machine_create(&cfg);
		if (!m || m->mem_fd == fd)
			_exit(1);
		plane_fill(m, m->ram, 0x77);
		plane_fill(m, m->cpu, 0x77);
		_exit(0); /* the machine left as it is, its file open */
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	m = machine_with_file(&cfg, fd, true);
	test_machine_destroy(m);
}

/*
 * A machine that wrote much of its state gives its memory back rather than
 * zero it (over 128 units of line state, or over 256 chunks of struct pages);
 * up to there it is kept, zeroed.
 */
static void test_much_written_machine_memory_goes_back(void **state)
{
	static const struct {
		unsigned ram_mib;
		size_t flush;              /* bytes flushed at the end of RAM */
		unsigned blocks;           /* of MAX_ORDER - 1 pages allocated, then freed */
		bool kept;
	} cases[] = {
		{ 24, 16 * MiB, 0, true },        /* 128 units of 4096 lines of 32 bytes, above 64 untouched */
		{ 18, 16 * MiB + 32, 0, false },  /* 129 */
		{ 70, 0, 15, true },              /* 241 chunks of struct pages (one more seeds the next block) */
		{ 71, 0, 17, false },             /* 273 */
	};
	(void)state;

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct dmamap_machine_config cfg;
		struct dmamap_machine *m;
		struct page *pages[17];
		size_t size;
		u8 *arena, *spare;

		dmamap_machine_config_init(&cfg);
		cfg.ram_size = cases[i].ram_mib * MiB;
		cfg.consistent_size = 2 * MiB;
		cfg.dma_zone_limit = 0;
		cfg.outer_cache = false;
		cfg.speculative_prefetch = false;
		m = dmamap_machine_create(&cfg);
		assert_non_null(m);
		if (cases[i].flush)
			dmamap_cache_flush(m, DMAMAP_CACHE_INNER, cfg.ram_base + cfg.ram_size - cases[i].flush,
					   cases[i].flush);
		for (unsigned k = 0; k < cases[i].blocks; k++)
			assert_non_null(pages[k] = dmamap_alloc_pages(m, GFP_KERNEL, MAX_ORDER - 1));
		for (unsigned k = 0; k < cases[i].blocks; k++)
			dmamap_free_pages(pages[k], MAX_ORDER - 1);
		arena = m->arena;
		size = m->arena_size;
		test_machine_destroy(m);
		spare = dmamap_arena_take(size);
		if (cases[i].kept && !under_valgrind()) {
			assert_ptr_equal(spare, arena);
			assert_arena_zero(spare, size);
			dmamap_arena_give(spare, size);
		} else {
			assert_null(spare);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_config_init_defaults, no_current),
		cmocka_unit_test_teardown(test_create_with_null_config_uses_defaults, no_current),
		cmocka_unit_test_teardown(test_create_with_config_copies_it, no_current),
		cmocka_unit_test_teardown(test_invalid_configs_refused, no_current),
		cmocka_unit_test_teardown(test_zone_limit_beyond_ram_refused, no_current),
		cmocka_unit_test_teardown(test_zone_limit_at_ram_end_accepted, no_current),
		cmocka_unit_test_setup_teardown(test_first_created_becomes_current, no_current, no_current),
		cmocka_unit_test_setup_teardown(test_destroying_current_leaves_none, no_current, no_current),
		cmocka_unit_test_teardown(test_two_machines_side_by_side, no_current),
		cmocka_unit_test_teardown(test_machines_at_different_bases, no_current),
		cmocka_unit_test_teardown(test_fault_nth, no_current),
		cmocka_unit_test_teardown(test_fault_ppm, no_current),
		cmocka_unit_test_teardown(test_fault_ppm_deterministic, no_current),
		cmocka_unit_test_teardown(test_fault_inject_bad_arguments, no_current),
		cmocka_unit_test_setup_teardown(test_destroy_reports_leaks, no_current, no_current),
		cmocka_unit_test_teardown(test_destroy_clean_machine_reports_nothing, no_current),
		cmocka_unit_test_teardown(test_consistent_window_is_guarded, no_current),
		cmocka_unit_test_teardown(test_create_destroy_repeatedly, no_current),
		cmocka_unit_test_teardown(test_destroy_twice_refused, no_current),
		cmocka_unit_test_teardown(test_creation_touches_no_per_page_state, no_current),
		cmocka_unit_test_teardown(test_destroyed_machine_memory_serves_the_next_zeroed, no_current),
		cmocka_unit_test_teardown(test_destroyed_machine_ram_serves_the_next_zeroed, no_current),
		cmocka_unit_test_teardown(test_much_written_machine_memory_goes_back, no_current),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
