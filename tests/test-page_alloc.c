/* SPDX-License-Identifier: MIT */
/*
 * The buddy page allocator (<dmamap/page.h>): orders, natural alignment,
 * address conversions, statistics, exhaustion, the DMA zone, __GFP_ZERO,
 * refused frees, reference counts, bad arguments, fault injection, the
 * kernel-style forms on the current machine, and two threads at once.
 */
#include <pthread.h>
#include <stdatomic.h>

#include "common.h"
#include "internal.h"

#define MiB (1ULL << 20)
#define BASE 0x40000000ULL
#define NPAGES (16 * MiB / PAGE_SIZE)

/* ------------------------------------------------------------- helpers */

static struct dmamap_page_stats stats_of(struct dmamap_machine *m)
{
	struct dmamap_page_stats st;

	memset(&st, 0x5a, sizeof(st));
	dmamap_page_stats(m, &st);
	return st;
}

static void assert_free_equal(const struct dmamap_page_stats *a, const struct dmamap_page_stats *b)
{
	for (unsigned z = 0; z < DMAMAP_ZONE_NR; z++) {
		assert_int_equal(a->total_pages[z], b->total_pages[z]);
		assert_int_equal(a->free_pages[z], b->free_pages[z]);
	}
	for (unsigned o = 0; o < MAX_ORDER; o++)
		assert_int_equal(a->free_blocks[o], b->free_blocks[o]);
}

static void assert_stats_equal(const struct dmamap_page_stats *a, const struct dmamap_page_stats *b)
{
	assert_free_equal(a, b);
	assert_int_equal(a->allocations, b->allocations);
	assert_int_equal(a->frees, b->frees);
	assert_int_equal(a->failures, b->failures);
	assert_int_equal(a->injected_failures, b->injected_failures);
	assert_int_equal(a->refused_frees, b->refused_frees);
}

static unsigned long free_total(const struct dmamap_page_stats *st)
{
	return st->free_pages[DMAMAP_ZONE_DMA] + st->free_pages[DMAMAP_ZONE_NORMAL];
}

static void zone_4m(struct dmamap_machine_config *cfg)
{
	cfg->dma_zone_limit = cfg->ram_base + 4 * MiB;
}

static int setup16(void **state)
{
	*state = test_machine(16, simple_machine); /* __GFP_ZERO is checked against RAM through inner flushes */
	return 0;
}

static int teardown_m(void **state)
{
	struct dmamap_machine *m = *state;

	dmamap_machine_set_current(NULL);
	dmamap_set_log_handler(NULL, NULL, NULL);
	if (m) {
		struct capture c;

		/* every test frees what it allocated */
		capture_start(&c, m);
		test_machine_destroy(m);
		assert_int_equal(c.by_kind[DMAMAP_REPORT_LEAK], 0);
	}
	return 0;
}

/* ------------------------------------------------------------- orders */

static void test_initial_stats(void **state)
{
	struct dmamap_machine *m = *state;
	struct dmamap_page_stats st = stats_of(m);

	assert_int_equal(st.total_pages[DMAMAP_ZONE_DMA], NPAGES); /* no limit: the zone is all of RAM */
	assert_int_equal(st.total_pages[DMAMAP_ZONE_NORMAL], 0);
	assert_int_equal(st.free_pages[DMAMAP_ZONE_DMA], NPAGES);
	assert_int_equal(st.free_pages[DMAMAP_ZONE_NORMAL], 0);
	for (unsigned o = 0; o < MAX_ORDER - 1; o++)
		assert_int_equal(st.free_blocks[o], 0);
	assert_int_equal(st.free_blocks[MAX_ORDER - 1], 4); /* four 4 MiB blocks */
	assert_int_equal(st.allocations, 0);
	assert_int_equal(st.frees, 0);
	assert_int_equal(st.failures, 0);
	assert_int_equal(st.injected_failures, 0);
	assert_int_equal(st.refused_frees, 0);
}

/*
 * The order in which blocks come out is that of an allocator whose free
 * lists were filled at creation with each zone's maximal aligned blocks in
 * address order (the last one added at the head), though nothing per page
 * is set up before it is needed. The reference below is that allocator,
 * for allocations only: LIFO lists per order, halves pushed on a split.
 */
struct ref_zone {
	unsigned long start, end;                    /* pfns */
	unsigned long stack[MAX_ORDER][4200];
	unsigned n[MAX_ORDER];
};

static void ref_seed(struct ref_zone *z)
{
	for (unsigned long pfn = z->start; pfn < z->end;) {
		unsigned o = MAX_ORDER - 1;

		while (o && ((pfn & ((1UL << o) - 1)) || pfn + (1UL << o) > z->end))
			o--;
		z->stack[o][z->n[o]++] = pfn;
		pfn += 1UL << o;
	}
}

static long ref_take(struct ref_zone *z, unsigned order)
{
	unsigned o = order;
	unsigned long pfn;

	while (o < MAX_ORDER && !z->n[o])
		o++;
	if (o == MAX_ORDER)
		return -1;
	pfn = z->stack[o][--z->n[o]];
	while (o > order) {
		o--;
		z->stack[o][z->n[o]++] = pfn + (1UL << o);
	}
	return (long)pfn;
}

static void odd_layout(struct dmamap_machine_config *cfg)
{
	cfg->ram_base = BASE + 5 * PAGE_SIZE;
	cfg->ram_size = 16 * MiB + 7 * PAGE_SIZE;
	cfg->dma_zone_limit = cfg->ram_base + MiB + 3 * PAGE_SIZE;
}

static void test_allocation_order_as_if_seeded_whole(void **state)
{
	struct dmamap_machine *m = test_machine(16, odd_layout);
	struct dmamap_machine_config cfg;
	struct ref_zone *zones = calloc(2, sizeof(*zones));
	struct dmamap_page_stats st0 = stats_of(m), st;
	struct page **held = calloc(NPAGES + 8, sizeof(*held));
	unsigned *orders = calloc(NPAGES + 8, sizeof(*orders));
	unsigned long n = 0, rng = 12345;
	(void)state;

	assert_non_null(zones);
	assert_non_null(held);
	assert_non_null(orders);
	dmamap_machine_get_config(m, &cfg);
	zones[0].start = cfg.ram_base / PAGE_SIZE;
	zones[0].end = zones[1].start = cfg.dma_zone_limit / PAGE_SIZE;
	zones[1].end = (cfg.ram_base + cfg.ram_size) / PAGE_SIZE;
	ref_seed(&zones[0]);
	ref_seed(&zones[1]);

	capture_start(&(struct capture){ 0 }, m);
	for (;;) {
		unsigned order = (rng = rng * 6364136223846793005UL + 1442695040888963407UL) >> 61 ? 0 : (unsigned)(rng >> 40) % 4;
		bool dma = ((rng >> 20) & 7) == 0;
		long want = dma ? -1 : ref_take(&zones[1], order);
		struct page *p;

		if (want < 0)
			want = ref_take(&zones[0], order);
		p = dmamap_alloc_pages(m, (dma ? GFP_DMA : GFP_KERNEL) | __GFP_NOWARN, order);
		if (want < 0) {
			assert_null(p);
			if (order == 0 && !dma)
				break;
			continue;
		}
		assert_non_null(p);
		assert_int_equal(page_to_pfn(p), want);
		held[n] = p;
		orders[n++] = order;
	}
	st = stats_of(m);
	assert_int_equal(free_total(&st), 0);
	while (n--)
		dmamap_free_pages(held[n], orders[n]);
	st = stats_of(m);
	assert_free_equal(&st, &st0);
	capture_stop(m);
	free(orders);
	free(held);
	free(zones);
	dmamap_machine_destroy(m);
}

static void expect_refused(struct dmamap_machine *m, struct page *page, unsigned order);

/* A struct page reached by pointer arithmetic, far from anything handed out, is a valid page of its machine. */
static void test_page_reached_by_arithmetic(void **state)
{
	struct dmamap_machine *m = *state;
	struct page *p = dmamap_alloc_pages(m, GFP_KERNEL, 0), *q;
	long delta;

	assert_non_null(p);
	delta = page_to_pfn(p) - BASE / PAGE_SIZE >= NPAGES / 2 ? -(long)(NPAGES / 2) + 3 : (long)(NPAGES / 2) - 3;
	q = p + delta;
	assert_int_equal(page_to_pfn(q), page_to_pfn(p) + delta);
	assert_ptr_equal(page_address(q), (u8 *)page_address(p) + delta * (long)PAGE_SIZE);
	assert_ptr_equal(virt_to_page(page_address(q)), q);
	assert_true(PageFlag(q, PG_dma_zone));
	assert_false(PageFlag(q, PG_head) || PageFlag(q, PG_tail));
	expect_refused(m, q, 0); /* never allocated */
	dmamap_free_pages(p, 0);
}

static void test_alloc_free_each_order(void **state)
{
	struct dmamap_machine *m = *state;
	struct dmamap_page_stats st0 = stats_of(m), st;

	for (unsigned order = 0; order < MAX_ORDER; order++) {
		size_t len = PAGE_SIZE << order;
		struct page *p = dmamap_alloc_pages(m, GFP_KERNEL, order);

		assert_non_null(p);
		assert_int_equal(page_to_phys(p) % len, 0);
		assert_true(page_to_phys(p) >= BASE && page_to_phys(p) + len <= BASE + 16 * MiB);
		assert_true(PageFlag(p, PG_head));
		assert_false(PageFlag(p, PG_buddy));
		assert_int_equal(page_count(p), 1);
		for (unsigned long i = 1; i < (1UL << order); i++) {
			assert_true(PageFlag(&p[i], PG_tail));
			assert_false(PageFlag(&p[i], PG_head));
		}
		st = stats_of(m);
		assert_int_equal(free_total(&st), NPAGES - (1UL << order));
		assert_int_equal(st.allocations, st0.allocations + 1);

		/* the whole block is usable memory */
		fill_pattern(page_address(p), len, order);
		assert_int_equal(check_pattern(page_address(p), len, order), 0);

		dmamap_free_pages(p, order);
		st = stats_of(m);
		assert_free_equal(&st, &st0); /* buddies merged back */
		assert_int_equal(st.frees, st0.frees + 1);
		st0 = st;
	}
	assert_int_equal(dmamap_report_count(m), 0);
}

static void test_all_orders_at_once_disjoint(void **state)
{
	struct dmamap_machine *m = *state;
	struct dmamap_page_stats st0 = stats_of(m), st;
	struct page *p[MAX_ORDER];
	unsigned long used = 0;
	static const unsigned free_order[MAX_ORDER] = { 3, 9, 0, 7, 10, 1, 5, 2, 8, 4, 6 };

	for (unsigned o = 0; o < MAX_ORDER; o++) {
		p[o] = dmamap_alloc_pages(m, GFP_KERNEL, o);
		assert_non_null(p[o]);
		assert_int_equal(page_to_phys(p[o]) % (PAGE_SIZE << o), 0);
		used += 1UL << o;
		fill_pattern(page_address(p[o]), PAGE_SIZE << o, 100 + o);
	}
	/* disjoint physical ranges */
	for (unsigned a = 0; a < MAX_ORDER; a++)
		for (unsigned b = a + 1; b < MAX_ORDER; b++) {
			phys_addr_t sa = page_to_phys(p[a]), ea = sa + (PAGE_SIZE << a);
			phys_addr_t sb = page_to_phys(p[b]), eb = sb + (PAGE_SIZE << b);

			assert_true(ea <= sb || eb <= sa);
		}
	st = stats_of(m);
	assert_int_equal(free_total(&st), NPAGES - used);
	for (unsigned o = 0; o < MAX_ORDER; o++)
		assert_int_equal(check_pattern(page_address(p[o]), PAGE_SIZE << o, 100 + o), 0);
	for (unsigned i = 0; i < MAX_ORDER; i++)
		dmamap_free_pages(p[free_order[i]], free_order[i]);
	st = stats_of(m);
	assert_free_equal(&st, &st0);
	assert_int_equal(st.allocations, MAX_ORDER);
	assert_int_equal(st.frees, MAX_ORDER);
}

static void unaligned_base(struct dmamap_machine_config *cfg)
{
	cfg->ram_base = BASE + PAGE_SIZE; /* pfn 0x40001: odd */
	cfg->ram_size = 1 * MiB;
}

/* RAM that does not start on a large boundary: blocks stay naturally aligned in physical address. */
static void test_natural_alignment_unaligned_base(void **state)
{
	struct dmamap_machine *m = test_machine(1, unaligned_base);
	struct dmamap_page_stats st0 = stats_of(m), st;
	struct page *p;
	unsigned long sum = 0;
	(void)state;

	for (unsigned o = 0; o < MAX_ORDER; o++)
		sum += st0.free_blocks[o] << o;
	assert_int_equal(sum, 256);
	assert_int_equal(free_total(&st0), 256);

	/* No 1 MiB-aligned MiB lies inside [base, base + 1 MiB). */
	capture_start(&(struct capture){ 0 }, m);
	assert_null(dmamap_alloc_pages(m, GFP_KERNEL | __GFP_NOWARN, 8));
	st = stats_of(m);
	assert_int_equal(st.failures, 1);
	assert_free_equal(&st, &st0);

	for (unsigned o = 0; o < 8; o++) {
		p = dmamap_alloc_pages(m, GFP_KERNEL, o);
		assert_non_null(p);
		assert_int_equal(page_to_phys(p) % (PAGE_SIZE << o), 0);
		assert_true(page_to_phys(p) >= BASE + PAGE_SIZE);
		assert_true(page_to_phys(p) + (PAGE_SIZE << o) <= BASE + PAGE_SIZE + MiB);
		dmamap_free_pages(p, o);
	}
	st = stats_of(m);
	assert_free_equal(&st, &st0);
	capture_stop(m);
	test_machine_destroy(m);
}

/* ------------------------------------------------------------- conversions */

static void test_conversions_round_trip(void **state)
{
	struct dmamap_machine *m = *state;
	struct page *p = dmamap_alloc_pages(m, GFP_KERNEL, 2);
	u8 *va;
	phys_addr_t pa;
	unsigned long pfn;

	assert_non_null(p);
	va = page_address(p);
	pa = page_to_phys(p);
	pfn = page_to_pfn(p);
	assert_int_equal(pa, (phys_addr_t)pfn << PAGE_SHIFT);
	assert_ptr_equal(dmamap_machine_of(va), m);

	for (unsigned i = 0; i < 4; i++) {
		struct page *pi = p + i;
		size_t off = i * PAGE_SIZE;

		assert_ptr_equal(page_address(pi), va + off);
		assert_int_equal(page_to_pfn(pi), pfn + i);
		assert_int_equal(page_to_phys(pi), pa + off);
		assert_ptr_equal(dmamap_pfn_to_page(m, pfn + i), pi);
		assert_ptr_equal(dmamap_phys_to_page(m, pa + off), pi);
		assert_ptr_equal(dmamap_phys_to_page(m, pa + off + PAGE_SIZE - 1), pi);
		assert_ptr_equal(virt_to_page(va + off), pi);
		assert_ptr_equal(virt_to_page(va + off + 123), pi);
		assert_int_equal(virt_to_phys(va + off + 77), pa + off + 77);
		assert_ptr_equal(dmamap_phys_to_virt(m, pa + off + 77), va + off + 77);
		assert_true(dmamap_pfn_valid(m, pfn + i));
		assert_true(virt_addr_valid(va + off));
	}

	/* The kernel's forms, on the current machine. */
	dmamap_machine_set_current(m);
	assert_ptr_equal(pfn_to_page(pfn + 1), p + 1);
	assert_ptr_equal(phys_to_page(pa + PAGE_SIZE + 5), p + 1);
	assert_ptr_equal(phys_to_virt(pa + 9), va + 9);
	assert_true(pfn_valid(pfn));
	assert_false(pfn_valid(BASE / PAGE_SIZE - 1));
	dmamap_free_pages(p, 2);
}

static void test_conversion_edges(void **state)
{
	struct dmamap_machine *m = *state;
	unsigned long first = BASE / PAGE_SIZE, last = first + NPAGES - 1;
	u8 *lin = dmamap_phys_to_virt(m, BASE);
	struct capture cm, cg;
	int local;
	unsigned long g0 = dmamap_report_count(NULL);

	capture_start(&cm, m);
	capture_start(&cg, NULL);

	/* First and last frame of RAM; one past either end is not RAM (no report). */
	assert_non_null(dmamap_pfn_to_page(m, first));
	assert_non_null(dmamap_pfn_to_page(m, last));
	assert_null(dmamap_pfn_to_page(m, first - 1));
	assert_null(dmamap_pfn_to_page(m, last + 1));
	assert_null(dmamap_pfn_to_page(m, ~0UL));
	assert_null(dmamap_pfn_to_page(NULL, first));
	assert_false(dmamap_pfn_valid(m, last + 1));
	assert_false(dmamap_pfn_valid(NULL, first));
	assert_null(dmamap_phys_to_page(m, BASE - 1));
	assert_null(dmamap_phys_to_page(m, BASE + 16 * MiB));
	assert_non_null(lin);
	assert_ptr_equal(dmamap_phys_to_virt(m, BASE + 16 * MiB - 1), lin + 16 * MiB - 1);
	assert_null(dmamap_phys_to_virt(m, BASE + 16 * MiB));
	assert_null(dmamap_phys_to_virt(m, BASE - 1));
	assert_null(dmamap_phys_to_virt(NULL, BASE));
	assert_int_equal(cm.messages + cg.messages, 0);

	/* The linear map is exactly [lin, lin + size). */
	assert_ptr_equal(dmamap_machine_of(lin + 16 * MiB - 1), m);
	assert_null(dmamap_machine_of(lin + 16 * MiB));
	assert_null(dmamap_machine_of(lin - 1));
	assert_ptr_equal(virt_to_page(lin + 16 * MiB - 1), dmamap_pfn_to_page(m, last));

	/* Pointers that are no linear-map address: reported process-wide. */
	assert_false(virt_addr_valid(&local));
	assert_int_equal(virt_to_phys(&local), ~(phys_addr_t)0);
	assert_null(virt_to_page(&local));
	assert_int_equal(virt_to_phys(lin + 16 * MiB), ~(phys_addr_t)0);
	assert_int_equal(cg.by_kind[DMAMAP_REPORT_BAD_ADDRESS], 3);
	assert_int_equal(dmamap_report_count(NULL), g0 + 3);
	assert_int_equal(cm.reports, 0);

	/* NULL pages */
	assert_null(page_address(NULL));
	assert_int_equal(page_to_pfn(NULL), 0);
	assert_int_equal(page_count(NULL), 0);
	capture_stop(m);
	capture_stop(NULL);
}

/* ------------------------------------------------------------- exhaustion */

static void test_exhaustion(void **state)
{
	struct dmamap_machine *m = *state;
	struct dmamap_page_stats st0 = stats_of(m), st;
	struct page **held = calloc(NPAGES + 1, sizeof(*held));
	unsigned char *seen = calloc(NPAGES, 1);
	struct capture c;
	unsigned long n = 0;

	assert_non_null(held);
	assert_non_null(seen);
	capture_start(&c, m);
	for (;;) {
		struct page *p = dmamap_alloc_pages(m, GFP_KERNEL | __GFP_NOWARN, 0);

		if (!p)
			break;
		assert_true(n < NPAGES);
		assert_false(seen[page_to_pfn(p) - BASE / PAGE_SIZE]);
		seen[page_to_pfn(p) - BASE / PAGE_SIZE] = 1;
		held[n++] = p;
	}
	assert_int_equal(n, NPAGES);
	st = stats_of(m);
	assert_int_equal(free_total(&st), 0);
	for (unsigned o = 0; o < MAX_ORDER; o++)
		assert_int_equal(st.free_blocks[o], 0);
	assert_int_equal(st.failures, 1);
	assert_int_equal(c.messages, 0); /* __GFP_NOWARN: silent */

	/* Without __GFP_NOWARN the failure is logged, but it is no report. */
	assert_null(dmamap_alloc_pages(m, GFP_ATOMIC, 0));
	assert_null(dmamap_alloc_pages(m, GFP_KERNEL | __GFP_DMA, 3));
	st = stats_of(m);
	assert_int_equal(st.failures, 3);
	assert_int_equal(c.messages, 2);
	assert_int_equal(c.reports, 0);
	assert_int_equal(c.last_level, DMAMAP_LOG_WARN);

	/* Fragmented: every other page free, yet no order-1 block exists. */
	for (unsigned long i = 0; i < n; i++)
		if ((page_to_pfn(held[i]) & 1) == 0) {
			dmamap_free_pages(held[i], 0);
			held[i] = NULL;
		}
	st = stats_of(m);
	assert_int_equal(free_total(&st), NPAGES / 2);
	assert_int_equal(st.free_blocks[0], NPAGES / 2);
	assert_null(dmamap_alloc_pages(m, GFP_KERNEL | __GFP_NOWARN, 1));

	for (unsigned long i = 0; i < n; i++)
		if (held[i])
			dmamap_free_pages(held[i], 0);
	st = stats_of(m);
	assert_free_equal(&st, &st0);
	assert_int_equal(st.frees, NPAGES);
	assert_int_equal(st.refused_frees, 0);

	/* Largest blocks: exactly four. */
	for (unsigned i = 0; i < 4; i++) {
		held[i] = dmamap_alloc_pages(m, GFP_KERNEL, MAX_ORDER - 1);
		assert_non_null(held[i]);
	}
	assert_null(dmamap_alloc_pages(m, GFP_KERNEL | __GFP_NOWARN, 0));
	for (unsigned i = 0; i < 4; i++)
		dmamap_free_pages(held[i], MAX_ORDER - 1);
	st = stats_of(m);
	assert_free_equal(&st, &st0);
	capture_stop(m);
	free(held);
	free(seen);
}

/* ------------------------------------------------------------- zones */

static void test_gfp_dma_zone(void **state)
{
	struct dmamap_machine *m = test_machine(16, zone_4m);
	const phys_addr_t limit = BASE + 4 * MiB;
	struct dmamap_page_stats st0 = stats_of(m), st;
	struct page **held = calloc(1024, sizeof(*held));
	struct page *p, *big[5];
	unsigned long n = 0;
	(void)state;

	assert_non_null(held);
	capture_start(&(struct capture){ 0 }, m);
	assert_int_equal(st0.total_pages[DMAMAP_ZONE_DMA], 1024);
	assert_int_equal(st0.total_pages[DMAMAP_ZONE_NORMAL], 3072);
	assert_int_equal(st0.free_blocks[MAX_ORDER - 1], 4);

	/* Normal allocations prefer the Normal zone. */
	p = dmamap_alloc_pages(m, GFP_KERNEL, 0);
	assert_non_null(p);
	assert_true(page_to_phys(p) >= limit);
	assert_false(PageFlag(p, PG_dma_zone));
	st = stats_of(m);
	assert_int_equal(st.free_pages[DMAMAP_ZONE_NORMAL], 3071);
	assert_int_equal(st.free_pages[DMAMAP_ZONE_DMA], 1024);
	dmamap_free_pages(p, 0);

	/* GFP_DMA comes from below the limit, until the zone is exhausted. */
	for (;;) {
		p = dmamap_alloc_pages(m, GFP_DMA | __GFP_NOWARN, 0);
		if (!p)
			break;
		assert_true(n < 1024);
		assert_true(page_to_phys(p) + PAGE_SIZE <= limit);
		assert_true(PageFlag(p, PG_dma_zone));
		held[n++] = p;
	}
	assert_int_equal(n, 1024);
	st = stats_of(m);
	assert_int_equal(st.free_pages[DMAMAP_ZONE_DMA], 0);
	assert_int_equal(st.free_pages[DMAMAP_ZONE_NORMAL], 3072);
	assert_int_equal(st.failures, 1);
	assert_null(dmamap_alloc_pages(m, GFP_KERNEL | GFP_DMA | __GFP_NOWARN, 0));
	/* ... while a normal allocation still succeeds */
	p = dmamap_alloc_pages(m, GFP_KERNEL, 4);
	assert_non_null(p);
	assert_true(page_to_phys(p) >= limit);
	dmamap_free_pages(p, 4);
	for (unsigned long i = 0; i < n; i++)
		dmamap_free_pages(held[i], 0);
	st = stats_of(m);
	assert_free_equal(&st, &st0);

	/* Normal exhausted: normal allocations fall back to the DMA zone. */
	for (unsigned i = 0; i < 3; i++) {
		big[i] = dmamap_alloc_pages(m, GFP_KERNEL, MAX_ORDER - 1);
		assert_non_null(big[i]);
		assert_true(page_to_phys(big[i]) >= limit);
	}
	big[3] = dmamap_alloc_pages(m, GFP_KERNEL, MAX_ORDER - 1);
	assert_non_null(big[3]);
	assert_int_equal(page_to_phys(big[3]), BASE);
	assert_true(PageFlag(big[3], PG_dma_zone));
	big[4] = dmamap_alloc_pages(m, GFP_KERNEL | __GFP_NOWARN, 0);
	assert_null(big[4]);
	for (unsigned i = 0; i < 4; i++)
		dmamap_free_pages(big[i], MAX_ORDER - 1);
	st = stats_of(m);
	assert_free_equal(&st, &st0);
	assert_int_equal(dmamap_report_count(m), 0);
	capture_stop(m);
	test_machine_destroy(m);
	free(held);
}

static void zone_odd(struct dmamap_machine_config *cfg)
{
	/* 259 pages: the boundary is on no block boundary above order 0 */
	cfg->dma_zone_limit = cfg->ram_base + MiB + 3 * PAGE_SIZE;
}

/* A zone boundary at an odd place: GFP_DMA pages lie wholly below it and buddies never merge across it. */
static void test_gfp_dma_odd_boundary(void **state)
{
	struct dmamap_machine *m = test_machine(16, zone_odd);
	const phys_addr_t limit = BASE + MiB + 3 * PAGE_SIZE;
	static const unsigned long expect_blocks[MAX_ORDER] = { 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 3 };
	struct dmamap_page_stats st0 = stats_of(m), st;
	struct page *held[300];
	unsigned long n = 0;
	(void)state;

	assert_int_equal(st0.total_pages[DMAMAP_ZONE_DMA], 259);
	assert_int_equal(st0.total_pages[DMAMAP_ZONE_NORMAL], NPAGES - 259);
	for (unsigned o = 0; o < MAX_ORDER; o++)
		assert_int_equal(st0.free_blocks[o], expect_blocks[o]);

	capture_start(&(struct capture){ 0 }, m);
	for (;;) {
		struct page *p = dmamap_alloc_pages(m, GFP_DMA | __GFP_NOWARN, 0);

		if (!p)
			break;
		assert_true(n < 300);
		assert_true(page_to_phys(p) + PAGE_SIZE <= limit);
		held[n++] = p;
	}
	assert_int_equal(n, 259);
	/* an order-2 GFP_DMA block cannot come from above the boundary either */
	assert_null(dmamap_alloc_pages(m, GFP_DMA | __GFP_NOWARN, 2));
	for (unsigned long i = 0; i < n; i++)
		dmamap_free_pages(held[i], 0);
	/* the first Normal pages sit just above the boundary */
	for (unsigned i = 0; i < 8; i++) {
		held[i] = dmamap_alloc_pages(m, GFP_KERNEL, 0);
		assert_non_null(held[i]);
		assert_true(page_to_phys(held[i]) >= BASE + 259 * PAGE_SIZE);
	}
	for (unsigned i = 0; i < 8; i++)
		dmamap_free_pages(held[i], 0);
	st = stats_of(m);
	assert_free_equal(&st, &st0);
	capture_stop(m);
	test_machine_destroy(m);
}

/* ------------------------------------------------------------- __GFP_ZERO */

static void test_gfp_zero(void **state)
{
	struct dmamap_machine *m = *state;
	struct page *blk[4], *p, *p1;
	u8 *va;
	size_t off;

	/* A fresh machine: zeroed memory still counts as stored by the CPU (dirty). */
	p = dmamap_alloc_pages(m, GFP_KERNEL | __GFP_ZERO, 0);
	assert_non_null(p);
	assert_int_equal(dmamap_cache_line_state(m, DMAMAP_CACHE_INNER, page_to_phys(p)), DMAMAP_LINE_DIRTY);
	dmamap_free_pages(p, 0);

	/* Make all of RAM (and the CPU view) 0xaa. */
	for (unsigned i = 0; i < 4; i++) {
		blk[i] = dmamap_alloc_pages(m, GFP_KERNEL, MAX_ORDER - 1);
		assert_non_null(blk[i]);
		va = page_address(blk[i]);
		memset(va, 0xaa, PAGE_SIZE << (MAX_ORDER - 1));
		dmac_flush_range(va, va + (PAGE_SIZE << (MAX_ORDER - 1)));
	}
	for (unsigned i = 0; i < 4; i++)
		dmamap_free_pages(blk[i], MAX_ORDER - 1);
	for (size_t i = 0; i < 16 * MiB; i += 4096 + 64)
		assert_int_equal(m->ram[i], 0xaa);

	/* Zeroes in the CPU view, sitting dirty in the cache: RAM still has the old bytes. */
	p = dmamap_alloc_pages(m, GFP_KERNEL | __GFP_ZERO, 1);
	assert_non_null(p);
	va = page_address(p);
	off = (size_t)(page_to_phys(p) - BASE);
	for (size_t i = 0; i < 2 * PAGE_SIZE; i++)
		assert_int_equal(va[i], 0);
	assert_int_equal(m->ram[off], 0xaa);
	assert_int_equal(m->ram[off + 2 * PAGE_SIZE - 1], 0xaa);
	assert_int_equal(dmamap_cache_line_state(m, DMAMAP_CACHE_INNER, page_to_phys(p) + PAGE_SIZE),
			 DMAMAP_LINE_DIRTY);

	/* After a flush, RAM holds the zeroes. */
	dmac_flush_range(va, va + 2 * PAGE_SIZE);
	for (size_t i = 0; i < 2 * PAGE_SIZE; i++)
		assert_int_equal(m->ram[off + i], 0);
	for (size_t i = 0; i < 2 * PAGE_SIZE; i++)
		assert_int_equal(va[i], 0);
	p1 = p; /* held, so that the next page is another one */

	/* The same with a clean primitive on an order-0 page. */
	p = dmamap_alloc_pages(m, GFP_ATOMIC | __GFP_ZERO, 0);
	assert_non_null(p);
	va = page_address(p);
	off = (size_t)(page_to_phys(p) - BASE);
	assert_int_equal(m->ram[off + 100], 0xaa);
	dmamap_cache_clean(m, DMAMAP_CACHE_INNER, page_to_phys(p), PAGE_SIZE);
	for (size_t i = 0; i < PAGE_SIZE; i++)
		assert_int_equal(m->ram[off + i], 0);
	assert_int_equal(dmamap_cache_line_state(m, DMAMAP_CACHE_INNER, page_to_phys(p)), DMAMAP_LINE_CLEAN);
	dmamap_free_pages(p, 0);
	dmamap_free_pages(p1, 1);

	/* get_zeroed_page, on the current machine */
	dmamap_machine_set_current(m);
	{
		unsigned long a = get_zeroed_page(GFP_KERNEL);
		const u8 *z = (const u8 *)a;

		assert_true(a != 0);
		assert_ptr_equal(dmamap_machine_of(z), m);
		for (size_t i = 0; i < PAGE_SIZE; i++)
			assert_int_equal(z[i], 0);
		free_page(a);
	}
	assert_int_equal(dmamap_report_count(m), 0);
}

/* ------------------------------------------------------------- refused frees */

/* A refused free: reported once as page misuse, every counter but refused_frees unchanged. */
static void expect_refused(struct dmamap_machine *m, struct page *page, unsigned order)
{
	struct dmamap_page_stats before = stats_of(m), after;
	struct capture c;

	capture_start(&c, m);
	dmamap_free_pages(page, order);
	capture_stop(m);
	assert_int_equal(c.reports, 1);
	assert_int_equal(c.by_kind[DMAMAP_REPORT_PAGE_MISUSE], 1);
	after = stats_of(m);
	before.refused_frees++;
	assert_stats_equal(&after, &before);
}

static void test_bad_frees_refused(void **state)
{
	struct dmamap_machine *m = *state;
	struct dmamap_page_stats st0 = stats_of(m), st;
	struct page *p, *q, *free_head = NULL;

	p = dmamap_alloc_pages(m, GFP_KERNEL, 2);
	assert_non_null(p);
	fill_pattern(page_address(p), 4 * PAGE_SIZE, 5);
	/* the head of a large free block, and a page inside it: neither was ever allocated */
	for (unsigned long pfn = BASE / PAGE_SIZE; pfn < BASE / PAGE_SIZE + NPAGES; pfn++) {
		struct page *f = dmamap_pfn_to_page(m, pfn);

		if (PageFlag(f, PG_buddy) && f->dmamap_order >= 4) {
			free_head = f;
			break;
		}
	}
	assert_non_null(free_head);
	assert_false(PageFlag(free_head, PG_head));
	assert_false(PageFlag(free_head + 5, PG_head) || PageFlag(free_head + 5, PG_tail));

	expect_refused(m, p, 1);         /* wrong order */
	expect_refused(m, p, 3);         /* wrong order */
	expect_refused(m, p + 1, 0);     /* a tail page */
	expect_refused(m, p + 3, 2);     /* a tail page with the block's order */
	expect_refused(m, free_head + 5, 0); /* never allocated */
	expect_refused(m, free_head, free_head->dmamap_order); /* never allocated, head of a free block */
	assert_int_equal(dmamap_report_count_kind(m, DMAMAP_REPORT_PAGE_MISUSE), 6);

	/* The block is intact and still usable. */
	assert_int_equal(page_count(p), 1);
	assert_true(PageFlag(p, PG_head));
	assert_int_equal(check_pattern(page_address(p), 4 * PAGE_SIZE, 5), 0);
	fill_pattern(page_address(p), 4 * PAGE_SIZE, 6);
	assert_int_equal(check_pattern(page_address(p), 4 * PAGE_SIZE, 6), 0);
	dmamap_free_pages(p, 2);
	st = stats_of(m);
	assert_free_equal(&st, &st0);
	assert_int_equal(st.frees, 1);
	assert_int_equal(st.refused_frees, 6);

	/* Double free: refused, and the next allocation is what it would have been. */
	q = dmamap_alloc_pages(m, GFP_KERNEL, 0);
	assert_non_null(q);
	dmamap_free_pages(q, 0);
	expect_refused(m, q, 0);
	expect_refused(m, p, 2);
	assert_ptr_equal(dmamap_alloc_pages(m, GFP_KERNEL, 0), q);
	dmamap_free_pages(q, 0);
	st = stats_of(m);
	assert_free_equal(&st, &st0);

	/* NULL is ignored silently. */
	{
		struct dmamap_page_stats b = stats_of(m), a;
		unsigned long r = dmamap_report_count(m), g = dmamap_report_count(NULL);

		dmamap_free_pages(NULL, 0);
		__free_pages(NULL, 3);
		a = stats_of(m);
		assert_stats_equal(&a, &b);
		assert_int_equal(dmamap_report_count(m), r);
		assert_int_equal(dmamap_report_count(NULL), g);
	}

	/* A struct page of no machine: reported (process-wide), nothing changed. */
	{
		struct page fake;
		struct dmamap_page_stats b = stats_of(m), a;
		struct capture cg;

		memset(&fake, 0, sizeof(fake));
		capture_start(&cg, NULL);
		dmamap_free_pages(&fake, 0);
		capture_stop(NULL);
		assert_int_equal(cg.reports, 1);
		assert_int_equal(cg.by_kind[DMAMAP_REPORT_BAD_ADDRESS], 1);
		a = stats_of(m);
		assert_stats_equal(&a, &b);
	}
}

/* ------------------------------------------------------------- references */

static void test_refcounts(void **state)
{
	struct dmamap_machine *m = *state;
	struct dmamap_page_stats st0 = stats_of(m), st;
	struct page *p, *big;
	struct capture c;

	p = dmamap_alloc_pages(m, GFP_KERNEL, 0);
	assert_non_null(p);
	assert_int_equal(page_count(p), 1);
	get_page(p);
	assert_int_equal(page_count(p), 2);

	/* One free drops one reference: the page survives. */
	dmamap_free_pages(p, 0);
	assert_int_equal(page_count(p), 1);
	assert_true(PageFlag(p, PG_head));
	st = stats_of(m);
	assert_int_equal(free_total(&st), NPAGES - 1);
	assert_int_equal(st.frees, 0);
	memset(page_address(p), 0x3c, PAGE_SIZE);
	assert_int_equal(((u8 *)page_address(p))[PAGE_SIZE - 1], 0x3c);

	/* put_page drops the last one. */
	put_page(p);
	assert_int_equal(page_count(p), 0);
	st = stats_of(m);
	assert_free_equal(&st, &st0);
	assert_int_equal(st.frees, 1);

	/* get_page / put_page on a free page: reported, nothing changes. */
	capture_start(&c, m);
	get_page(p);
	assert_int_equal(c.by_kind[DMAMAP_REPORT_PAGE_MISUSE], 1);
	assert_int_equal(page_count(p), 0);
	put_page(p);
	assert_int_equal(c.by_kind[DMAMAP_REPORT_PAGE_MISUSE], 2);
	st = stats_of(m);
	assert_free_equal(&st, &st0);
	assert_int_equal(st.frees, 1);

	/* A block of order 3 with two references needs two frees. */
	big = dmamap_alloc_pages(m, GFP_KERNEL, 3);
	assert_non_null(big);
	get_page(big);
	assert_int_equal(page_count(big), 2);
	/* get_page on a tail page is refused */
	get_page(big + 1);
	assert_int_equal(c.by_kind[DMAMAP_REPORT_PAGE_MISUSE], 3);
	assert_int_equal(page_count(big), 2);
	/* a wrong order is refused whatever the count */
	dmamap_free_pages(big, 2);
	assert_int_equal(c.by_kind[DMAMAP_REPORT_PAGE_MISUSE], 4);
	assert_int_equal(page_count(big), 2);
	__free_pages(big, 3);
	assert_int_equal(page_count(big), 1);
	st = stats_of(m);
	assert_int_equal(free_total(&st), NPAGES - 8);
	dmamap_free_pages(big, 3);
	assert_int_equal(page_count(big), 0);
	st = stats_of(m);
	assert_free_equal(&st, &st0);
	assert_int_equal(c.reports, 4);
	capture_stop(m);
}

/* ------------------------------------------------------------- split_page */

static void test_split_page(void **state)
{
	struct dmamap_machine *m = *state;
	struct dmamap_page_stats st0 = stats_of(m), st;
	static const unsigned free_order[8] = { 5, 0, 7, 2, 3, 6, 1, 4 };
	struct page *p, *q;
	struct capture c;

	p = dmamap_alloc_pages(m, GFP_KERNEL, 3);
	assert_non_null(p);
	fill_pattern(page_address(p), 8 * PAGE_SIZE, 77);
	split_page(p, 3);
	for (unsigned i = 0; i < 8; i++) {
		assert_true(PageFlag(p + i, PG_head));
		assert_false(PageFlag(p + i, PG_tail));
		assert_int_equal(page_count(p + i), 1);
	}
	/* the data stays where it was */
	assert_int_equal(check_pattern(page_address(p), 8 * PAGE_SIZE, 77), 0);
	st = stats_of(m);
	assert_int_equal(st.allocations, st0.allocations + 8);
	assert_int_equal(free_total(&st), NPAGES - 8);

	capture_start(&c, m);
	/* the block's order is gone: each page is order 0 now */
	dmamap_free_pages(p, 3);
	assert_int_equal(c.by_kind[DMAMAP_REPORT_PAGE_MISUSE], 1);
	/* each page is freed on its own, in any order; the buddies merge back */
	for (unsigned i = 0; i < 8; i++) {
		__free_page(p + free_order[i]);
		assert_int_equal(page_count(p + free_order[i]), 0);
		/* the others are untouched */
		if (i < 7)
			assert_int_equal(page_count(p + free_order[i + 1]), 1);
	}
	st = stats_of(m);
	assert_free_equal(&st, &st0);
	assert_int_equal(st.frees, st0.frees + 8);
	assert_int_equal(st.allocations, st.frees);

	/* refusals: nothing changes */
	q = dmamap_alloc_pages(m, GFP_KERNEL, 2);
	assert_non_null(q);
	st = stats_of(m);
	split_page(q + 1, 0);       /* a tail page */
	split_page(q, 1);           /* the wrong order */
	get_page(q);
	split_page(q, 2);           /* two references */
	assert_int_equal(c.by_kind[DMAMAP_REPORT_PAGE_MISUSE], 4);
	{
		struct dmamap_page_stats a = stats_of(m);

		assert_stats_equal(&a, &st);
	}
	assert_int_equal(page_count(q), 2);
	assert_true(PageFlag(q + 1, PG_tail));
	assert_int_equal(q->dmamap_order, 2);
	put_page(q);
	dmamap_free_pages(q, 2);
	split_page(q, 2);           /* a free block */
	assert_int_equal(c.by_kind[DMAMAP_REPORT_PAGE_MISUSE], 5);
	assert_int_equal(c.reports, 5);
	capture_stop(m);
	st = stats_of(m);
	assert_free_equal(&st, &st0);
}

/* ------------------------------------------------------------- alloc_contig (internal, for CMA) */

static void test_alloc_contig(void **state)
{
	struct dmamap_machine *m = *state;
	struct dmamap_page_stats st0 = stats_of(m), st;
	struct page *base = dmamap_pfn_to_page(m, BASE / PAGE_SIZE), *p;

	/* an odd range that cuts through several free blocks */
	assert_int_equal(dmamap_alloc_contig(m, 3, 1030), 0);
	st = stats_of(m);
	assert_int_equal(free_total(&st), NPAGES - 1030);
	assert_int_equal(st.allocations, st0.allocations + 1030);
	for (unsigned long i = 3; i < 3 + 1030; i++) {
		assert_true(PageFlag(base + i, PG_head));
		assert_false(PageFlag(base + i, PG_buddy));
		assert_int_equal(page_count(base + i), 1);
	}
	memset(page_address(base + 3), 0x6b, 1030 * PAGE_SIZE);

	/* what lies around it stayed free, and never overlaps it */
	for (;;) {
		p = dmamap_alloc_pages(m, GFP_KERNEL | __GFP_NOWARN, 0);
		if (!p)
			break;
		assert_true(page_to_pfn(p) < BASE / PAGE_SIZE + 3 || page_to_pfn(p) >= BASE / PAGE_SIZE + 1033);
	}
	st = stats_of(m);
	assert_int_equal(free_total(&st), 0);
	for (unsigned long i = 0; i < NPAGES; i++)
		if (i < 3 || i >= 1033)
			dmamap_free_pages(base + i, 0);
	assert_int_equal(((u8 *)page_address(base + 3))[0], 0x6b);

	/* a range with an allocated page: -EBUSY, nothing taken */
	st = stats_of(m);
	assert_int_equal(dmamap_alloc_contig(m, 1030, 10), -EBUSY);
	assert_int_equal(dmamap_alloc_contig(m, 0, 4), -EBUSY);
	/* out of range: -EINVAL */
	assert_int_equal(dmamap_alloc_contig(m, 0, 0), -EINVAL);
	assert_int_equal(dmamap_alloc_contig(m, NPAGES, 1), -EINVAL);
	assert_int_equal(dmamap_alloc_contig(m, NPAGES - 1, 2), -EINVAL);
	{
		struct dmamap_page_stats a = stats_of(m);

		assert_stats_equal(&a, &st);
	}

	/* each page is freed on its own; all merge back */
	for (unsigned long i = 3; i < 1033; i++)
		__free_page(base + i);
	st = stats_of(m);
	assert_free_equal(&st, &st0);
	assert_int_equal(st.allocations, st.frees);
	assert_int_equal(dmamap_report_count(m), 0);
}

/* ------------------------------------------------------------- bad arguments */

static void test_bad_order_and_gfp_refused(void **state)
{
	struct dmamap_machine *m = *state;
	static const struct {
		gfp_t gfp;
		unsigned order;
	} bad[] = {
		{ GFP_KERNEL, MAX_ORDER },
		{ GFP_KERNEL, 100 },
		{ GFP_KERNEL, ~0u },
		{ 0x4u, 0 },
		{ 0x8u, 0 },
		{ GFP_KERNEL | 0x1000u, 0 },
		{ GFP_KERNEL | 0x80000000u, 0 },
		{ ~0u, 0 },
	};
	struct dmamap_page_stats st0, st;
	unsigned long att0;
	struct page *expect;
	struct capture c;

	/* the allocation that would come next */
	expect = dmamap_alloc_pages(m, GFP_KERNEL, 0);
	assert_non_null(expect);
	dmamap_free_pages(expect, 0);
	st0 = stats_of(m);
	att0 = dmamap_fault_attempts(m, DMAMAP_FAULT_PAGE_ALLOC);

	capture_start(&c, m);
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		assert_null(dmamap_alloc_pages(m, bad[i].gfp, bad[i].order));
		assert_int_equal(c.reports, i + 1);
		assert_int_equal(c.last_kind, DMAMAP_REPORT_BAD_INPUT);
	}
	capture_stop(m);
	st = stats_of(m);
	assert_stats_equal(&st, &st0);
	assert_int_equal(dmamap_fault_attempts(m, DMAMAP_FAULT_PAGE_ALLOC), att0);
	assert_ptr_equal(dmamap_alloc_pages(m, GFP_KERNEL, 0), expect);
	dmamap_free_pages(expect, 0);

	/* NULL machine: reported process-wide. */
	{
		struct capture cg;

		capture_start(&cg, NULL);
		assert_null(dmamap_alloc_pages(NULL, GFP_KERNEL, 0));
		capture_stop(NULL);
		assert_int_equal(cg.by_kind[DMAMAP_REPORT_BAD_INPUT], 1);
	}

	/* Every known flag is accepted. */
	{
		static const gfp_t ok[] = { GFP_KERNEL, GFP_ATOMIC, GFP_NOWAIT, GFP_NOIO, __GFP_HIGHMEM,
					    __GFP_COLD, __GFP_NOWARN, __GFP_ZERO, GFP_DMA, __GFP_IO | __GFP_FS };

		for (size_t i = 0; i < ARRAY_SIZE(ok); i++) {
			struct page *p = dmamap_alloc_pages(m, ok[i], 1);

			assert_non_null(p);
			dmamap_free_pages(p, 1);
		}
		assert_int_equal(dmamap_report_count(m), ARRAY_SIZE(bad));
	}
}

/* ------------------------------------------------------------- fault injection */

static void test_fault_injection(void **state)
{
	struct dmamap_machine *m = *state;
	struct dmamap_page_stats st0 = stats_of(m), st;
	struct page *p[6];
	static const unsigned order[6] = { 0, 3, 1, 5, 2, 0 };
	struct capture c;

	capture_start(&c, m);
	assert_int_equal(dmamap_fault_inject(m, DMAMAP_FAULT_PAGE_ALLOC, 3, 0), 0);
	for (int i = 0; i < 6; i++) {
		p[i] = dmamap_alloc_pages(m, GFP_KERNEL | __GFP_ZERO, order[i]);
		if (i == 2)
			assert_null(p[i]);
		else
			assert_non_null(p[i]);
	}
	st = stats_of(m);
	assert_int_equal(st.injected_failures, 1);
	assert_int_equal(st.failures, 0);
	assert_int_equal(st.allocations, 5);
	assert_int_equal(dmamap_fault_injected(m, DMAMAP_FAULT_PAGE_ALLOC), 1);
	assert_int_equal(c.reports, 0);
	for (int i = 0; i < 6; i++)
		if (p[i])
			dmamap_free_pages(p[i], order[i]);
	st = stats_of(m);
	assert_free_equal(&st, &st0); /* nothing leaked */

	/* every attempt failed: nothing is taken */
	assert_int_equal(dmamap_fault_inject(m, DMAMAP_FAULT_PAGE_ALLOC, 0, 1000000), 0);
	for (unsigned o = 0; o < MAX_ORDER; o++)
		assert_null(dmamap_alloc_pages(m, GFP_KERNEL, o));
	st = stats_of(m);
	assert_free_equal(&st, &st0);
	assert_int_equal(st.injected_failures, 1 + MAX_ORDER);
	assert_int_equal(st.allocations, 5);
	assert_int_equal(dmamap_fault_inject(m, DMAMAP_FAULT_PAGE_ALLOC, 0, 0), 0);
	p[0] = dmamap_alloc_pages(m, GFP_KERNEL, 0);
	assert_non_null(p[0]);
	dmamap_free_pages(p[0], 0);
	assert_int_equal(c.reports, 0);
	capture_stop(m);
}

/* ------------------------------------------------------------- current machine */

static void test_kernel_forms_on_current(void **state)
{
	struct dmamap_machine *m = *state;
	struct dmamap_machine *m2 = test_machine(16, NULL);
	struct dmamap_page_stats st0 = stats_of(m), st;
	struct page *p;
	unsigned long a;

	dmamap_machine_set_current(m);
	p = alloc_pages(GFP_KERNEL, 2);
	assert_non_null(p);
	assert_ptr_equal(dmamap_machine_of(page_address(p)), m);
	assert_int_equal(page_to_phys(p) % (4 * PAGE_SIZE), 0);
	__free_pages(p, 2);

	p = alloc_page(GFP_KERNEL);
	assert_non_null(p);
	assert_ptr_equal(dmamap_machine_of(page_address(p)), m);
	__free_page(p);

	a = __get_free_pages(GFP_KERNEL, 1);
	assert_true(a != 0);
	assert_int_equal(a % PAGE_SIZE, 0);
	assert_ptr_equal(dmamap_machine_of((void *)a), m);
	p = virt_to_page((void *)a);
	assert_true(PageFlag(p, PG_head));
	assert_int_equal(p->dmamap_order, 1);
	assert_int_equal(virt_to_phys((void *)a) % (2 * PAGE_SIZE), 0);
	memset((void *)a, 0x11, 2 * PAGE_SIZE);
	free_pages(a, 1);

	a = get_zeroed_page(GFP_KERNEL);
	assert_true(a != 0);
	for (size_t i = 0; i < PAGE_SIZE; i++)
		assert_int_equal(((u8 *)a)[i], 0);
	free_page(a);

	/* 0 is ignored; a pointer that is no linear-map address is reported and ignored */
	{
		struct capture cg, cm;
		int local;

		capture_start(&cg, NULL);
		capture_start(&cm, m);
		free_pages(0, 0);
		free_page(0);
		assert_int_equal(cg.reports + cm.reports, 0);
		free_pages((unsigned long)&local, 0);
		assert_int_equal(cg.by_kind[DMAMAP_REPORT_BAD_ADDRESS], 1);
		capture_stop(NULL);
		capture_stop(m);
	}
	st = stats_of(m);
	assert_free_equal(&st, &st0);
	assert_int_equal(st.allocations, 4);
	assert_int_equal(st.frees, 4);

	/* switching the current machine switches where they allocate */
	dmamap_machine_set_current(m2);
	a = __get_free_pages(GFP_KERNEL, 0);
	assert_ptr_equal(dmamap_machine_of((void *)a), m2);
	/* the free finds its machine from the address, whatever is current */
	dmamap_machine_set_current(m);
	free_pages(a, 0);
	st = stats_of(m2);
	assert_int_equal(st.frees, 1);
	assert_int_equal(free_total(&st), NPAGES);
	dmamap_machine_set_current(NULL);
	test_machine_destroy(m2);
}

/* ------------------------------------------------------------- threads */

struct stress {
	struct dmamap_machine *m;
	atomic_int *owner; /* per page index: 0 free, else thread id */
	unsigned iters;
	int tid;
	atomic_int errors;
};

static uint64_t rng(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

#define HELD 24

/* A thread's mark on a block: a pattern at the start of each page and at the block's end. */
static void stamp(struct page *p, unsigned order, unsigned seed)
{
	u8 *va = page_address(p);

	for (unsigned long i = 0; i < (1UL << order); i++)
		fill_pattern(va + i * PAGE_SIZE, 64, seed + (unsigned)i);
	fill_pattern(va + (PAGE_SIZE << order) - 64, 64, seed ^ 0x5555u);
}

static int stamp_ok(struct page *p, unsigned order, unsigned seed)
{
	const u8 *va = page_address(p);

	for (unsigned long i = 0; i < (1UL << order); i++)
		if (check_pattern(va + i * PAGE_SIZE, 64, seed + (unsigned)i))
			return 0;
	return check_pattern(va + (PAGE_SIZE << order) - 64, 64, seed ^ 0x5555u) == 0;
}

static void *stress_thread(void *arg)
{
	struct stress *s = arg;
	struct {
		struct page *p;
		unsigned order, seed;
	} held[HELD] = { { 0 } };
	uint64_t r = (uint64_t)s->tid * 7919;
	int err = 0;

	for (unsigned it = 0; it < s->iters; it++) {
		unsigned slot = (unsigned)(rng(&r) % HELD);

		if (held[slot].p) {
			struct page *p = held[slot].p;
			unsigned long idx = page_to_pfn(p) - BASE / PAGE_SIZE;

			if (!stamp_ok(p, held[slot].order, held[slot].seed))
				err++;
			for (unsigned long i = 0; i < (1UL << held[slot].order); i++) {
				int me = s->tid;

				if (!atomic_compare_exchange_strong(&s->owner[idx + i], &me, 0))
					err++;
			}
			dmamap_free_pages(p, held[slot].order);
			held[slot].p = NULL;
		} else {
			unsigned order = (unsigned)(rng(&r) % 5);
			struct page *p = dmamap_alloc_pages(s->m, GFP_KERNEL | __GFP_NOWARN, order);
			unsigned long idx;

			if (!p)
				continue;
			idx = page_to_pfn(p) - BASE / PAGE_SIZE;
			for (unsigned long i = 0; i < (1UL << order); i++) {
				int none = 0;

				if (!atomic_compare_exchange_strong(&s->owner[idx + i], &none, s->tid))
					err++;
			}
			held[slot].p = p;
			held[slot].order = order;
			held[slot].seed = (unsigned)s->tid * 100003u + it;
			stamp(p, order, held[slot].seed);
		}
	}
	for (unsigned i = 0; i < HELD; i++) {
		if (!held[i].p)
			continue;
		if (!stamp_ok(held[i].p, held[i].order, held[i].seed))
			err++;
		for (unsigned long k = 0; k < (1UL << held[i].order); k++)
			atomic_store(&s->owner[page_to_pfn(held[i].p) - BASE / PAGE_SIZE + k], 0);
		dmamap_free_pages(held[i].p, held[i].order);
	}
	atomic_fetch_add(&s->errors, err);
	return NULL;
}

static void test_two_thread_stress(void **state)
{
	struct dmamap_machine *m = test_machine(1, NULL); /* small: the threads compete for blocks */
	struct dmamap_page_stats st0 = stats_of(m), st;
	atomic_int *owner = calloc(256, sizeof(*owner));
	struct stress s[2];
	pthread_t t[2];
	(void)state;

	assert_non_null(owner);
	for (int i = 0; i < 2; i++) {
		s[i].m = m;
		s[i].owner = owner;
		s[i].iters = under_valgrind() ? 5000 : 200000;
		s[i].tid = i + 1;
		atomic_init(&s[i].errors, 0);
	}
	for (int i = 0; i < 2; i++)
		assert_int_equal(pthread_create(&t[i], NULL, stress_thread, &s[i]), 0);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	assert_int_equal(atomic_load(&s[0].errors), 0);
	assert_int_equal(atomic_load(&s[1].errors), 0);
	st = stats_of(m);
	assert_free_equal(&st, &st0);
	assert_int_equal(st.allocations, st.frees);
	print_message("stress: %lu allocations, %lu failures\n", st.allocations, st.failures);
	assert_true(st.allocations > s[0].iters / 2); /* the threads did work */
	/* and competed: memcheck runs one thread at a time, in slices that may not overlap their peaks */
	if (!under_valgrind())
		assert_true(st.failures > 0);
	assert_int_equal(st.refused_frees, 0);
	assert_int_equal(dmamap_report_count(m), 0);
	free(owner);
	test_machine_destroy(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_initial_stats, setup16, teardown_m),
		cmocka_unit_test_setup_teardown(test_alloc_free_each_order, setup16, teardown_m),
		cmocka_unit_test(test_allocation_order_as_if_seeded_whole),
		cmocka_unit_test_setup_teardown(test_page_reached_by_arithmetic, setup16, teardown_m),
		cmocka_unit_test_setup_teardown(test_all_orders_at_once_disjoint, setup16, teardown_m),
		cmocka_unit_test(test_natural_alignment_unaligned_base),
		cmocka_unit_test_setup_teardown(test_conversions_round_trip, setup16, teardown_m),
		cmocka_unit_test_setup_teardown(test_conversion_edges, setup16, teardown_m),
		cmocka_unit_test_setup_teardown(test_exhaustion, setup16, teardown_m),
		cmocka_unit_test(test_gfp_dma_zone),
		cmocka_unit_test(test_gfp_dma_odd_boundary),
		cmocka_unit_test_setup_teardown(test_gfp_zero, setup16, teardown_m),
		cmocka_unit_test_setup_teardown(test_bad_frees_refused, setup16, teardown_m),
		cmocka_unit_test_setup_teardown(test_refcounts, setup16, teardown_m),
		cmocka_unit_test_setup_teardown(test_split_page, setup16, teardown_m),
		cmocka_unit_test_setup_teardown(test_alloc_contig, setup16, teardown_m),
		cmocka_unit_test_setup_teardown(test_bad_order_and_gfp_refused, setup16, teardown_m),
		cmocka_unit_test_setup_teardown(test_fault_injection, setup16, teardown_m),
		cmocka_unit_test_setup_teardown(test_kernel_forms_on_current, setup16, teardown_m),
		cmocka_unit_test(test_two_thread_stress),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
