/* SPDX-License-Identifier: MIT */
/*
 * Page tables (<dmamap/mm.h> and the internal vmregion API): the consistent
 * region's allocator and ptes, real host aliases of simulated RAM, and user
 * vmas populated by remap_pfn_range() and vm_insert_page().
 */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"
#include "internal.h"

#define MiB ((size_t)1 << 20)
#define PG ((size_t)PAGE_SIZE)
#define BASE 0x40000000ULL

struct fx {
	struct dmamap_machine *m;
	struct device dev;
	bool dev_live;
	uintptr_t cbase; /* the consistent region's first address */
};

static void consistent_8m(struct dmamap_machine_config *cfg)
{
	simple_machine(cfg); /* mappings are checked against RAM through inner cleans */
	cfg->consistent_size = 8 * MiB;
}

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	f->m = test_machine(16, consistent_8m);
	f->cbase = (uintptr_t)f->m->cons.base;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;
	struct capture c;

	dmamap_set_log_handler(NULL, NULL, NULL);
	if (f->dev_live)
		dmamap_device_release(&f->dev);
	/* every test releases what it made */
	capture_start(&c, f->m);
	test_machine_destroy(f->m);
	free(f);
	assert_int_equal(c.by_kind[DMAMAP_REPORT_LEAK], 0);
	return 0;
}

/*
 * The device that reads and writes RAM. Made on first use: device init may
 * set up machine-wide state of the layers above (which can take consistent
 * space), and the allocator tests want an empty region.
 */
static struct device *dev_of(struct fx *f)
{
	if (!f->dev_live) {
		assert_int_equal(dmamap_device_init(&f->dev, f->m, "pgdev"), 0);
		f->dev_live = true;
	}
	return &f->dev;
}

static struct dmamap_consistent_stats cstats(struct dmamap_machine *m)
{
	struct dmamap_consistent_stats st;

	memset(&st, 0x5a, sizeof(st));
	dmamap_consistent_stats(m, &st);
	return st;
}

static void assert_cstats_equal(const struct dmamap_consistent_stats *a, const struct dmamap_consistent_stats *b)
{
	assert_int_equal(a->size, b->size);
	assert_int_equal(a->used, b->used);
	assert_int_equal(a->regions, b->regions);
	assert_int_equal(a->failures, b->failures);
}

static struct dmamap_vmregion *ralloc(struct dmamap_machine *m, size_t size)
{
	struct dmamap_vmregion *r = dmamap_vmregion_alloc(m, size, __builtin_return_address(0));

	assert_non_null(r);
	assert_int_equal(r->end - r->start, size);
	return r;
}

static size_t expected_align(size_t size)
{
	size_t a = PG;

	while (a < size && a < MiB)
		a <<= 1;
	return a;
}

static int cpte(struct dmamap_machine *m, uintptr_t addr, unsigned long *pfn, enum dmamap_memtype *mt)
{
	pgprot_t prot = __pgprot(0xff);
	int ret = dmamap_consistent_pte(m, (const void *)addr, pfn, &prot);

	if (mt)
		*mt = pgprot_memtype(prot);
	return ret;
}

static int vpte(const struct vm_area_struct *vma, unsigned long addr, unsigned long *pfn, enum dmamap_memtype *mt)
{
	pgprot_t prot = __pgprot(0xff);
	int ret = dmamap_vma_pte(vma, addr, pfn, &prot);

	if (mt)
		*mt = pgprot_memtype(prot);
	return ret;
}

/* CPU-view bytes of @p made known (0x77) and written back, so that RAM == CPU view with the lines held clean. */
static void settle(struct dmamap_machine *m, struct page *p, size_t len, int c)
{
	memset(page_address(p), c, len);
	dmamap_cache_clean(m, DMAMAP_CACHE_INNER, page_to_phys(p), len);
}

/* ------------------------------------------------------------- the region allocator */

static void test_region_alignment(void **state)
{
	struct fx *f = *state;
	static const size_t sizes[] = { PG, 3 * PG, 3 * MiB, 5 * PG, MiB + PG, 2 * PG, 16 * PG };
	struct dmamap_vmregion *r[ARRAY_SIZE(sizes)];
	struct dmamap_consistent_stats st;
	size_t used = 0;

	assert_int_equal(f->cbase % MiB, 0);
	assert_true(dmamap_consistent_contains(f->m, (void *)f->cbase));
	assert_true(dmamap_consistent_contains(f->m, (void *)(f->cbase + 8 * MiB - 1)));
	assert_false(dmamap_consistent_contains(f->m, (void *)(f->cbase + 8 * MiB)));
	assert_false(dmamap_consistent_contains(f->m, (void *)(f->cbase - 1)));
	assert_false(dmamap_consistent_contains(NULL, (void *)f->cbase));
	st = cstats(f->m);
	assert_int_equal(st.size, 8 * MiB);
	assert_int_equal(st.used, 0);
	assert_int_equal(st.regions, 0);
	assert_int_equal(st.failures, 0);

	for (size_t i = 0; i < ARRAY_SIZE(sizes); i++) {
		r[i] = ralloc(f->m, sizes[i]);
		assert_int_equal((r[i]->start - f->cbase) % expected_align(sizes[i]), 0);
		assert_true(r[i]->start >= f->cbase && r[i]->end <= f->cbase + 8 * MiB);
		used += sizes[i];
	}
	/* first fit, exactly */
	assert_int_equal(r[0]->start - f->cbase, 0);
	assert_int_equal(r[1]->start - f->cbase, 4 * PG);  /* 3 pages align to 4 */
	assert_int_equal(r[2]->start - f->cbase, MiB);     /* 3 MiB aligns to 1 MiB */
	assert_int_equal(r[3]->start - f->cbase, 8 * PG);  /* after [16K, 28K), aligned to 32K */
	assert_int_equal(r[4]->start - f->cbase, 4 * MiB); /* after the 3 MiB one */
	assert_int_equal(r[5]->start - f->cbase, 2 * PG);  /* the gap [4K, 16K), aligned to 8K */
	assert_int_equal(r[6]->start - f->cbase, 16 * PG);
	/* no two overlap */
	for (size_t i = 0; i < ARRAY_SIZE(sizes); i++)
		for (size_t j = i + 1; j < ARRAY_SIZE(sizes); j++)
			assert_true(r[i]->end <= r[j]->start || r[j]->end <= r[i]->start);
	st = cstats(f->m);
	assert_int_equal(st.used, used);
	assert_int_equal(st.regions, ARRAY_SIZE(sizes));
	for (size_t i = 0; i < ARRAY_SIZE(sizes); i++)
		dmamap_vmregion_free(f->m, r[i]);
	st = cstats(f->m);
	assert_int_equal(st.used, 0);
	assert_int_equal(st.regions, 0);
}

static void test_region_first_fit_and_reuse(void **state)
{
	struct fx *f = *state;
	struct dmamap_vmregion *a, *b, *c, *d, *e, *g, *h;
	int local;

	a = ralloc(f->m, PG);
	b = ralloc(f->m, PG);
	c = ralloc(f->m, PG);
	assert_int_equal(a->start, f->cbase);
	assert_int_equal(b->start, f->cbase + PG);
	assert_int_equal(c->start, f->cbase + 2 * PG);

	dmamap_vmregion_free(f->m, b);
	assert_int_equal(cstats(f->m).regions, 2);
	assert_int_equal(cstats(f->m).used, 2 * PG);
	d = ralloc(f->m, PG); /* reuses b's place */
	assert_int_equal(d->start, f->cbase + PG);
	e = ralloc(f->m, 2 * PG); /* 8K aligned, after c */
	assert_int_equal(e->start, f->cbase + 4 * PG);

	dmamap_vmregion_free(f->m, a);
	g = ralloc(f->m, 2 * PG); /* a's hole is too small */
	assert_int_equal(g->start, f->cbase + 6 * PG);
	h = ralloc(f->m, PG); /* fits a's hole */
	assert_int_equal(h->start, f->cbase);

	/* find */
	assert_ptr_equal(dmamap_vmregion_find(f->m, (void *)(f->cbase + 100)), h);
	assert_ptr_equal(dmamap_vmregion_find(f->m, (void *)(e->start + 2 * PG - 1)), e);
	assert_ptr_equal(dmamap_vmregion_find(f->m, (void *)e->end), g);
	assert_ptr_equal(dmamap_vmregion_find(f->m, (void *)(f->cbase + 3 * PG)), NULL); /* the gap */
	assert_ptr_equal(dmamap_vmregion_find(f->m, (void *)g->end), NULL);
	assert_ptr_equal(dmamap_vmregion_find(f->m, &local), NULL);

	dmamap_vmregion_free(f->m, c);
	dmamap_vmregion_free(f->m, d);
	dmamap_vmregion_free(f->m, e);
	dmamap_vmregion_free(f->m, g);
	dmamap_vmregion_free(f->m, h);
	dmamap_vmregion_free(f->m, NULL);
	assert_int_equal(cstats(f->m).regions, 0);
	assert_int_equal(cstats(f->m).failures, 0);
}

static void test_region_full(void **state)
{
	struct dmamap_machine *m = test_machine(16, NULL); /* 2 MiB region */
	struct dmamap_consistent_stats st0, st;
	struct dmamap_vmregion *r1, *r2, *r;
	struct dmamap_vmregion **small;
	size_t n = 2 * MiB / PG;
	(void)state;

	r1 = ralloc(m, MiB);
	r2 = ralloc(m, MiB);
	st0 = cstats(m);
	assert_int_equal(st0.used, 2 * MiB);
	assert_null(dmamap_vmregion_alloc(m, PG, NULL));
	st = cstats(m);
	assert_int_equal(st.failures, st0.failures + 1);
	st0.failures++;
	assert_cstats_equal(&st, &st0);

	/* bad sizes: refused, nothing changed */
	assert_null(dmamap_vmregion_alloc(m, 0, NULL));
	assert_null(dmamap_vmregion_alloc(m, PG + 1, NULL));
	assert_null(dmamap_vmregion_alloc(m, 100, NULL));
	st = cstats(m);
	assert_cstats_equal(&st, &st0);

	/* room again after a free */
	dmamap_vmregion_free(m, r2);
	r = ralloc(m, PG);
	assert_int_equal(r->start, r1->end);
	dmamap_vmregion_free(m, r);
	dmamap_vmregion_free(m, r1);

	/* larger than the region: refused, nothing else changes */
	st0 = cstats(m);
	assert_null(dmamap_vmregion_alloc(m, 4 * MiB, NULL));
	st = cstats(m);
	assert_int_equal(st.used, 0);
	assert_int_equal(st.regions, 0);

	/* fragmented: half free, no two adjacent free pages */
	small = calloc(n, sizeof(*small));
	assert_non_null(small);
	for (size_t i = 0; i < n; i++)
		small[i] = ralloc(m, PG);
	assert_null(dmamap_vmregion_alloc(m, PG, NULL));
	for (size_t i = 0; i < n; i += 2) {
		dmamap_vmregion_free(m, small[i]);
		small[i] = NULL;
	}
	st0 = cstats(m);
	assert_int_equal(st0.used, MiB);
	assert_null(dmamap_vmregion_alloc(m, 2 * PG, NULL));
	st = cstats(m);
	assert_int_equal(st.failures, st0.failures + 1);
	assert_int_equal(st.used, MiB);
	r = ralloc(m, PG);
	dmamap_vmregion_free(m, r);
	for (size_t i = 0; i < n; i++)
		dmamap_vmregion_free(m, small[i]);
	free(small);
	assert_int_equal(cstats(m).regions, 0);
	test_machine_destroy(m);
}

/* ------------------------------------------------------------- ptes and aliases */

static void test_consistent_ptes(void **state)
{
	struct fx *f = *state;
	struct page *p = dmamap_alloc_pages(f->m, GFP_KERNEL, 1);
	struct page *q = dmamap_alloc_pages(f->m, GFP_KERNEL, 0);
	struct dmamap_vmregion *r = ralloc(f->m, 4 * PG);
	struct page *pages[2];
	unsigned long pfn;
	enum dmamap_memtype mt;
	uintptr_t where;
	int local;

	assert_non_null(p);
	assert_non_null(q);

	/* unmapped: -ENOENT; outside the region: -EINVAL */
	for (size_t i = 0; i < 4; i++)
		assert_int_equal(cpte(f->m, r->start + i * PG, NULL, NULL), -ENOENT);
	assert_int_equal(cpte(f->m, (uintptr_t)&local, NULL, NULL), -EINVAL);
	assert_int_equal(cpte(f->m, f->cbase + 8 * MiB, NULL, NULL), -EINVAL);
	assert_int_equal(cpte(f->m, f->cbase - 1, NULL, NULL), -EINVAL);
	assert_int_equal(cpte(NULL, r->start, NULL, NULL), -EINVAL);
	assert_int_equal(cpte(f->m, (uintptr_t)page_address(p), NULL, NULL), -EINVAL);

	/* pages 1 and 2 from a page array, in reverse order (two separate runs) */
	pages[0] = p + 1;
	pages[1] = p;
	assert_int_equal(dmamap_vmregion_map(f->m, r, 1, pages, 0, 2, pgprot_noncached(PAGE_KERNEL)), 0);
	/* page 3 by frame number */
	assert_int_equal(dmamap_vmregion_map(f->m, r, 3, NULL, page_to_pfn(q), 1, pgprot_writecombine(PAGE_KERNEL)),
			 0);

	assert_int_equal(cpte(f->m, r->start, NULL, NULL), -ENOENT);
	assert_int_equal(cpte(f->m, r->start + PG + 5, &pfn, &mt), 0);
	assert_int_equal(pfn, page_to_pfn(p + 1));
	assert_int_equal(mt, DMAMAP_MT_UNCACHED);
	assert_int_equal(cpte(f->m, r->start + 3 * PG - 1, &pfn, &mt), 0);
	assert_int_equal(pfn, page_to_pfn(p));
	assert_int_equal(mt, DMAMAP_MT_UNCACHED);
	assert_int_equal(cpte(f->m, r->start + 3 * PG, &pfn, &mt), 0);
	assert_int_equal(pfn, page_to_pfn(q));
	assert_int_equal(mt, DMAMAP_MT_WRITECOMBINE);
	/* NULL out-parameters are allowed */
	assert_int_equal(dmamap_consistent_pte(f->m, (void *)(r->start + PG), NULL, NULL), 0);

	/* the aliases really are those frames: RAM, in that order */
	settle(f->m, p, 2 * PG, 0x11);
	settle(f->m, q, PG, 0x22);
	((u8 *)page_address(p))[0] = 0xa0;
	((u8 *)page_address(p + 1))[0] = 0xa1;
	dmamap_cache_clean(f->m, DMAMAP_CACHE_INNER, page_to_phys(p), 2 * PG);
	assert_int_equal(((u8 *)r->start)[PG], 0xa1);
	assert_int_equal(((u8 *)r->start)[2 * PG], 0xa0);
	assert_int_equal(((u8 *)r->start)[3 * PG + 7], 0x22);

	where = r->start;
	dmamap_vmregion_free(f->m, r);
	/* the region is gone; the addresses are back to unmapped */
	for (size_t i = 0; i < 4; i++)
		assert_int_equal(cpte(f->m, where + i * PG, NULL, NULL), -ENOENT);
	assert_int_equal(cstats(f->m).regions, 0);
	dmamap_free_pages(p, 1);
	dmamap_free_pages(q, 0);
}

static void check_ram_alias(struct fx *f, pgprot_t prot)
{
	struct page *p = dmamap_alloc_pages(f->m, GFP_KERNEL, 1);
	struct dmamap_vmregion *r = ralloc(f->m, 2 * PG);
	u8 *alias = (u8 *)r->start, buf[2 * PAGE_SIZE];
	enum dmamap_memtype mt;
	unsigned long pfn;

	assert_non_null(p);
	settle(f->m, p, 2 * PG, 0x77);
	assert_int_equal(dmamap_vmregion_map(f->m, r, 0, &p, 0, 1, prot), 0);
	assert_int_equal(dmamap_vmregion_map(f->m, r, 1, NULL, page_to_pfn(p) + 1, 1, prot), 0);
	assert_int_equal(cpte(f->m, r->start + PG, &pfn, &mt), 0);
	assert_int_equal(pfn, page_to_pfn(p) + 1);
	assert_int_equal(mt, pgprot_memtype(prot));
	assert_int_equal(alias[0], 0x77);

	/* CPU stores through the alias are what the device reads, at once */
	fill_pattern(alias, 2 * PG, 31);
	assert_int_equal(dmamap_dev_read(dev_of(f), page_to_phys(p), buf, sizeof(buf)), 0);
	assert_int_equal(check_pattern(buf, sizeof(buf), 31), 0);
	/* the CPU's cached view still holds its lines, stale */
	assert_int_equal(((u8 *)page_address(p))[5], 0x77);

	/* what the device writes is seen through the alias at once */
	fill_pattern(buf, sizeof(buf), 32);
	assert_int_equal(dmamap_dev_write(dev_of(f), page_to_phys(p), buf, sizeof(buf)), 0);
	assert_int_equal(check_pattern(alias, 2 * PG, 32), 0);
	assert_int_equal(dmamap_dev_fill(dev_of(f), page_to_phys(p) + 100, 0xe5, 50), 0);
	assert_int_equal(alias[99], buf[99]);
	assert_int_equal(alias[100], 0xe5);
	assert_int_equal(alias[149], 0xe5);
	assert_int_equal(alias[150], buf[150]);
	/* after invalidating, the cached view agrees */
	dmamap_cache_inv(f->m, DMAMAP_CACHE_INNER, page_to_phys(p), 2 * PG);
	assert_int_equal(memcmp(page_address(p), alias, 2 * PG), 0);

	dmamap_vmregion_free(f->m, r);
	dmamap_free_pages(p, 1);
}

static void test_alias_uncached(void **state)
{
	check_ram_alias(*state, pgprot_noncached(PAGE_KERNEL));
}

static void test_alias_dmacoherent(void **state)
{
	check_ram_alias(*state, pgprot_dmacoherent(PAGE_KERNEL));
}

static void test_alias_writecombine(void **state)
{
	check_ram_alias(*state, pgprot_writecombine(PAGE_KERNEL));
}

static void test_alias_cached_shows_cpu_view(void **state)
{
	struct fx *f = *state;
	struct page *p = dmamap_alloc_pages(f->m, GFP_KERNEL, 0);
	struct dmamap_vmregion *r = ralloc(f->m, PG);
	u8 *alias = (u8 *)r->start, *va, buf[PAGE_SIZE];
	enum dmamap_memtype mt;

	assert_non_null(p);
	va = page_address(p);
	settle(f->m, p, PG, 0x77);
	assert_int_equal(dmamap_vmregion_map(f->m, r, 0, &p, 0, 1, PAGE_KERNEL), 0);
	assert_int_equal(cpte(f->m, r->start, NULL, &mt), 0);
	assert_int_equal(mt, DMAMAP_MT_CACHED);

	/* the alias is the CPU's view, both ways */
	fill_pattern(va, PG, 41);
	assert_int_equal(check_pattern(alias, PG, 41), 0);
	alias[10] = 0x5e;
	assert_int_equal(va[10], 0x5e);
	fill_pattern(alias, PG, 42);
	assert_int_equal(check_pattern(va, PG, 42), 0);

	/* the device does not see it until the lines are cleaned */
	assert_int_equal(dmamap_dev_read(dev_of(f), page_to_phys(p), buf, PG), 0);
	assert_int_equal(buf[0], 0x77);
	assert_int_equal(buf[PG - 1], 0x77);
	dmamap_cache_clean(f->m, DMAMAP_CACHE_INNER, page_to_phys(p), PG);
	assert_int_equal(dmamap_dev_read(dev_of(f), page_to_phys(p), buf, PG), 0);
	assert_int_equal(check_pattern(buf, PG, 42), 0);

	dmamap_vmregion_free(f->m, r);
	dmamap_free_pages(p, 0);
}

static void test_region_map_refusals(void **state)
{
	struct fx *f = *state;
	struct dmamap_machine *other = test_machine(16, NULL);
	struct page *p = dmamap_alloc_pages(f->m, GFP_KERNEL, 1);
	struct page *q = dmamap_alloc_pages(f->m, GFP_KERNEL, 0);
	struct page *op = dmamap_alloc_pages(other, GFP_KERNEL, 0);
	struct dmamap_vmregion *r = ralloc(f->m, 4 * PG);
	unsigned long base_pfn = BASE >> PAGE_SHIFT, end_pfn = base_pfn + 16 * MiB / PG;
	struct page *bad_pages[2];
	unsigned long pfn;
	enum dmamap_memtype mt;
	u8 *alias = (u8 *)r->start;

	assert_non_null(p);
	assert_non_null(q);
	assert_non_null(op);
	settle(f->m, p, 2 * PG, 0x61);
	settle(f->m, q, PG, 0x62);
	assert_int_equal(dmamap_vmregion_map(f->m, r, 1, &q, 0, 1, pgprot_noncached(PAGE_KERNEL)), 0);

	/* mapping over a mapped pte: -EBUSY, nothing changed (page 0 stays unmapped) */
	assert_int_equal(dmamap_vmregion_map(f->m, r, 0, NULL, page_to_pfn(p), 2, pgprot_noncached(PAGE_KERNEL)),
			 -EBUSY);
	assert_int_equal(dmamap_vmregion_map(f->m, r, 1, &p, 0, 1, PAGE_KERNEL), -EBUSY);

	/* bad arguments: -EINVAL */
	assert_int_equal(dmamap_vmregion_map(f->m, r, 0, &p, 0, 0, PAGE_KERNEL), -EINVAL);
	assert_int_equal(dmamap_vmregion_map(f->m, r, 4, &p, 0, 1, PAGE_KERNEL), -EINVAL);
	assert_int_equal(dmamap_vmregion_map(f->m, r, 3, NULL, page_to_pfn(p), 2, PAGE_KERNEL), -EINVAL);
	assert_int_equal(dmamap_vmregion_map(f->m, r, 5, &p, 0, 1, PAGE_KERNEL), -EINVAL);
	assert_int_equal(dmamap_vmregion_map(f->m, r, 0, &p, 0, 1, PAGE_NONE), -EINVAL);
	assert_int_equal(dmamap_vmregion_map(f->m, r, 0, &p, 0, 1, __pgprot(DMAMAP_MT_NR)), -EINVAL);
	bad_pages[0] = p;
	bad_pages[1] = NULL;
	assert_int_equal(dmamap_vmregion_map(f->m, r, 2, bad_pages, 0, 2, PAGE_KERNEL), -EINVAL);
	bad_pages[1] = op; /* a page of another machine */
	assert_int_equal(dmamap_vmregion_map(f->m, r, 2, bad_pages, 0, 2, PAGE_KERNEL), -EINVAL);
	assert_int_equal(dmamap_vmregion_map(f->m, r, 0, NULL, base_pfn - 1, 1, PAGE_KERNEL), -EINVAL);
	assert_int_equal(dmamap_vmregion_map(f->m, r, 2, NULL, end_pfn - 1, 2, PAGE_KERNEL), -EINVAL);
	assert_int_equal(dmamap_vmregion_map(f->m, r, 0, NULL, end_pfn, 1, PAGE_KERNEL), -EINVAL);

	/* ptes unchanged */
	assert_int_equal(cpte(f->m, r->start, NULL, NULL), -ENOENT);
	assert_int_equal(cpte(f->m, r->start + PG, &pfn, &mt), 0);
	assert_int_equal(pfn, page_to_pfn(q));
	assert_int_equal(mt, DMAMAP_MT_UNCACHED);
	assert_int_equal(cpte(f->m, r->start + 2 * PG, NULL, NULL), -ENOENT);
	assert_int_equal(cpte(f->m, r->start + 3 * PG, NULL, NULL), -ENOENT);
	assert_int_equal(alias[PG], 0x62);

	/* the free pages around the mapped one can still be mapped */
	assert_int_equal(dmamap_vmregion_map(f->m, r, 2, NULL, page_to_pfn(p), 2, pgprot_noncached(PAGE_KERNEL)), 0);
	assert_int_equal(alias[2 * PG], 0x61);
	assert_int_equal(alias[4 * PG - 1], 0x61);

	dmamap_vmregion_free(f->m, r);
	dmamap_free_pages(p, 1);
	dmamap_free_pages(q, 0);
	dmamap_free_pages(op, 0);
	test_machine_destroy(other);
}

static void test_region_remap_fault_injection(void **state)
{
	struct fx *f = *state;
	struct dmamap_consistent_stats st0 = cstats(f->m), st;
	struct page *p = dmamap_alloc_pages(f->m, GFP_KERNEL, 1);
	unsigned long att0 = dmamap_fault_attempts(f->m, DMAMAP_FAULT_REMAP);
	struct dmamap_vmregion *r, *r2;

	assert_non_null(p);
	settle(f->m, p, 2 * PG, 0x44);

	/* the reservation fails cleanly */
	assert_int_equal(dmamap_fault_inject(f->m, DMAMAP_FAULT_REMAP, 1, 0), 0);
	assert_null(dmamap_vmregion_alloc(f->m, 2 * PG, NULL));
	st = cstats(f->m);
	assert_int_equal(st.failures, st0.failures + 1);
	assert_int_equal(st.used, st0.used);
	assert_int_equal(st.regions, st0.regions);
	assert_int_equal(dmamap_fault_injected(f->m, DMAMAP_FAULT_REMAP), 1);
	assert_int_equal(dmamap_fault_attempts(f->m, DMAMAP_FAULT_REMAP), att0 + 1);
	/* and the next one gets the place the failed one would have had */
	r = ralloc(f->m, 2 * PG);
	assert_int_equal(r->start, f->cbase);

	/* the mapping fails cleanly: nothing is mapped */
	assert_int_equal(dmamap_fault_inject(f->m, DMAMAP_FAULT_REMAP, 1, 0), 0);
	assert_int_equal(dmamap_vmregion_map(f->m, r, 0, NULL, page_to_pfn(p), 2, pgprot_noncached(PAGE_KERNEL)),
			 -ENOMEM);
	assert_int_equal(cpte(f->m, r->start, NULL, NULL), -ENOENT);
	assert_int_equal(cpte(f->m, r->start + PG, NULL, NULL), -ENOENT);
	assert_int_equal(dmamap_fault_injected(f->m, DMAMAP_FAULT_REMAP), 2);
	/* disarmed after one: it works now */
	assert_int_equal(dmamap_vmregion_map(f->m, r, 0, NULL, page_to_pfn(p), 2, pgprot_noncached(PAGE_KERNEL)), 0);
	assert_int_equal(((u8 *)r->start)[PG + 3], 0x44);

	/* ppm: every attempt fails */
	assert_int_equal(dmamap_fault_inject(f->m, DMAMAP_FAULT_REMAP, 0, 1000000), 0);
	assert_null(dmamap_vmregion_alloc(f->m, PG, NULL));
	assert_int_equal(dmamap_fault_inject(f->m, DMAMAP_FAULT_REMAP, 0, 0), 0);
	r2 = ralloc(f->m, PG);
	dmamap_vmregion_free(f->m, r2);
	dmamap_vmregion_free(f->m, r);
	st = cstats(f->m);
	assert_int_equal(st.used, 0);
	assert_int_equal(st.regions, 0);
	dmamap_free_pages(p, 1);
}

static void test_region_free_unmaps_and_reuse(void **state)
{
	struct fx *f = *state;
	struct page *p = dmamap_alloc_pages(f->m, GFP_KERNEL, 0), *q = dmamap_alloc_pages(f->m, GFP_KERNEL, 0);
	struct dmamap_vmregion *r;
	unsigned long pfn;
	uintptr_t where;

	assert_non_null(p);
	assert_non_null(q);
	settle(f->m, p, PG, 0xaa);
	settle(f->m, q, PG, 0xbb);
	r = ralloc(f->m, PG);
	where = r->start;
	assert_int_equal(dmamap_vmregion_map(f->m, r, 0, &p, 0, 1, pgprot_noncached(PAGE_KERNEL)), 0);
	assert_int_equal(((u8 *)where)[0], 0xaa);
	dmamap_vmregion_free(f->m, r);
	assert_int_equal(cpte(f->m, where, NULL, NULL), -ENOENT);
	assert_null(dmamap_vmregion_find(f->m, (void *)where));

	/* the same place, another frame */
	r = ralloc(f->m, PG);
	assert_int_equal(r->start, where);
	assert_int_equal(cpte(f->m, where, NULL, NULL), -ENOENT);
	assert_int_equal(dmamap_vmregion_map(f->m, r, 0, &q, 0, 1, pgprot_noncached(PAGE_KERNEL)), 0);
	assert_int_equal(cpte(f->m, where, &pfn, NULL), 0);
	assert_int_equal(pfn, page_to_pfn(q));
	assert_int_equal(((u8 *)where)[0], 0xbb);
	dmamap_vmregion_free(f->m, r);
	dmamap_free_pages(p, 0);
	dmamap_free_pages(q, 0);
}

/*
 * The region's bookkeeping is host memory like any other: DMAMAP_FAULT_HOST_ALLOC
 * ("the library's own bookkeeping (host malloc)") must be able to fail it, and
 * the reservation then fails cleanly.
 */
static void test_region_host_alloc_failure(void **state)
{
	struct fx *f = *state;
	struct dmamap_consistent_stats st0 = cstats(f->m), st;
	unsigned long inj0 = dmamap_fault_injected(f->m, DMAMAP_FAULT_HOST_ALLOC);
	struct dmamap_vmregion *r;

	assert_int_equal(dmamap_fault_inject(f->m, DMAMAP_FAULT_HOST_ALLOC, 0, 1000000), 0);
	r = dmamap_vmregion_alloc(f->m, 2 * PG, NULL);
	assert_int_equal(dmamap_fault_inject(f->m, DMAMAP_FAULT_HOST_ALLOC, 0, 0), 0);
	st = cstats(f->m);
	if (r) {
		dmamap_vmregion_free(f->m, r);
		fail_msg("dmamap_vmregion_alloc() allocated its bookkeeping with a host allocation that "
			 "DMAMAP_FAULT_HOST_ALLOC cannot fail");
	}
	assert_int_equal(dmamap_fault_injected(f->m, DMAMAP_FAULT_HOST_ALLOC), inj0 + 1);
	assert_int_equal(st.used, st0.used);
	assert_int_equal(st.regions, st0.regions);
	/* and then it works */
	r = ralloc(f->m, 2 * PG);
	assert_int_equal(r->start, f->cbase);
	dmamap_vmregion_free(f->m, r);
}

/* Run @fn(@arg) in a child; its wait status. */
static int in_child(void (*fn)(void *), void *arg)
{
	pid_t pid;
	int status = 0;

	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct rlimit rl = { 0, 0 };

		setrlimit(RLIMIT_CORE, &rl);
		/* cmocka catches faults to report them: the child must die of them instead */
		signal(SIGSEGV, SIG_DFL);
		signal(SIGBUS, SIG_DFL);
		fn(arg);
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	return status;
}

static void touch(void *p)
{
	(void)*(volatile u8 *)p;
}

/* Unpopulated vma pages and unmapped region pages are no memory at all: touching them faults. */
static void test_unmapped_addresses_fault(void **state)
{
	struct fx *f = *state;
	struct vm_area_struct *vma = dmamap_vma_create(f->m, 2 * PG);
	struct page *p = dmamap_alloc_pages(f->m, GFP_KERNEL, 0);
	struct dmamap_vmregion *r = ralloc(f->m, 2 * PG);
	int st;

	assert_non_null(vma);
	assert_non_null(p);
	settle(f->m, p, PG, 0x2f);
	assert_int_equal(remap_pfn_range(vma, vma->vm_start, page_to_pfn(p), PG, pgprot_noncached(PAGE_SHARED)), 0);
	assert_int_equal(dmamap_vmregion_map(f->m, r, 0, &p, 0, 1, pgprot_noncached(PAGE_KERNEL)), 0);
	/* the mapped pages are fine */
	st = in_child(touch, (void *)vma->vm_start);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	st = in_child(touch, (void *)r->start);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	/* the pages next to them are not */
	st = in_child(touch, (void *)(vma->vm_start + PG));
	assert_true(WIFSIGNALED(st));
	assert_int_equal(WTERMSIG(st), SIGSEGV);
	st = in_child(touch, (void *)(r->start + PG));
	assert_true(WIFSIGNALED(st));
	assert_int_equal(WTERMSIG(st), SIGSEGV);
	/* nor is a region page once the region is freed */
	{
		uintptr_t where = r->start;

		dmamap_vmregion_free(f->m, r);
		st = in_child(touch, (void *)where);
		assert_true(WIFSIGNALED(st));
		assert_int_equal(WTERMSIG(st), SIGSEGV);
	}
	/* consistent-region and vma addresses are no linear-map addresses */
	assert_null(dmamap_machine_of((void *)vma->vm_start));
	assert_null(dmamap_machine_of((void *)f->cbase));
	dmamap_vma_destroy(vma);
	dmamap_free_pages(p, 0);
}

/* ------------------------------------------------------------- user vmas */

static void test_vma_create(void **state)
{
	struct fx *f = *state;
	struct vm_area_struct *vma;
	struct capture cg;

	vma = dmamap_vma_create(f->m, 3 * PG);
	assert_non_null(vma);
	assert_true(vma->vm_start != 0);
	assert_int_equal(vma->vm_start % PG, 0);
	assert_int_equal(vma->vm_end - vma->vm_start, 3 * PG);
	assert_int_equal(vma->vm_pgoff, 0);
	assert_int_equal(pgprot_val(vma->vm_page_prot), pgprot_val(PAGE_SHARED));
	assert_int_equal(vma->vm_flags, VM_READ | VM_WRITE | VM_SHARED);
	assert_null(vma->vm_private_data);
	/* it is no linear-map or consistent address */
	assert_null(dmamap_machine_of((void *)vma->vm_start));
	assert_false(dmamap_consistent_contains(f->m, (void *)vma->vm_start));
	for (unsigned i = 0; i < 3; i++)
		assert_int_equal(vpte(vma, vma->vm_start + i * PG, NULL, NULL), -ENOENT);
	assert_int_equal(vpte(vma, vma->vm_end, NULL, NULL), -EINVAL);
	assert_int_equal(vpte(vma, vma->vm_start - 1, NULL, NULL), -EINVAL);
	assert_int_equal(vpte(NULL, vma->vm_start, NULL, NULL), -EINVAL);
	dmamap_vma_destroy(vma);

	/* bad sizes, NULL machine */
	errno = 0;
	assert_null(dmamap_vma_create(f->m, 0));
	assert_int_equal(errno, EINVAL);
	errno = 0;
	assert_null(dmamap_vma_create(f->m, 100));
	assert_int_equal(errno, EINVAL);
	errno = 0;
	assert_null(dmamap_vma_create(f->m, PG + 1));
	assert_int_equal(errno, EINVAL);
	errno = 0;
	assert_null(dmamap_vma_create(NULL, PG));
	assert_int_equal(errno, EINVAL);

	/* NULL is ignored; a vma that is not ours is reported */
	dmamap_vma_destroy(NULL);
	{
		struct vm_area_struct fake;

		memset(&fake, 0, sizeof(fake));
		capture_start(&cg, NULL);
		dmamap_vma_destroy(&fake);
		capture_stop(NULL);
		assert_int_equal(cg.by_kind[DMAMAP_REPORT_BAD_INPUT], 1);
	}
}

/* Each host allocation of dmamap_vma_create() failing in turn: NULL, ENOMEM, nothing leaked. */
static void test_vma_create_host_alloc_failures(void **state)
{
	struct fx *f = *state;
	unsigned long k;

	for (k = 1; k < 20; k++) {
		struct vm_area_struct *vma;
		unsigned long inj = dmamap_fault_injected(f->m, DMAMAP_FAULT_HOST_ALLOC);

		assert_int_equal(dmamap_fault_inject(f->m, DMAMAP_FAULT_HOST_ALLOC, k, 0), 0);
		errno = 0;
		vma = dmamap_vma_create(f->m, 2 * PG);
		if (vma) {
			/* past the last allocation: the fault was not reached */
			assert_int_equal(dmamap_fault_injected(f->m, DMAMAP_FAULT_HOST_ALLOC), inj);
			assert_int_equal(dmamap_fault_inject(f->m, DMAMAP_FAULT_HOST_ALLOC, 0, 0), 0);
			dmamap_vma_destroy(vma);
			break;
		}
		assert_int_equal(errno, ENOMEM);
		assert_int_equal(dmamap_fault_injected(f->m, DMAMAP_FAULT_HOST_ALLOC), inj + 1);
	}
	assert_true(k > 1);
	assert_true(k < 20);
}

static void test_remap_pfn_range_noncached(void **state)
{
	struct fx *f = *state;
	struct vm_area_struct *vma = dmamap_vma_create(f->m, 3 * PG);
	struct page *p = dmamap_alloc_pages(f->m, GFP_KERNEL, 1);
	u8 *user, buf[2 * PAGE_SIZE];
	size_t off;
	unsigned long pfn;
	enum dmamap_memtype mt;

	assert_non_null(vma);
	assert_non_null(p);
	user = (u8 *)vma->vm_start;
	off = (size_t)(page_to_phys(p) - BASE);
	settle(f->m, p, 2 * PG, 0x33);

	/* the device puts data in RAM */
	fill_pattern(buf, sizeof(buf), 51);
	assert_int_equal(dmamap_dev_write(dev_of(f), page_to_phys(p), buf, sizeof(buf)), 0);

	assert_int_equal(remap_pfn_range(vma, vma->vm_start + PG, page_to_pfn(p), 2 * PG,
					 pgprot_noncached(vma->vm_page_prot)),
			 0);
	assert_int_equal(vpte(vma, vma->vm_start, NULL, NULL), -ENOENT);
	assert_int_equal(vpte(vma, vma->vm_start + PG, &pfn, &mt), 0);
	assert_int_equal(pfn, page_to_pfn(p));
	assert_int_equal(mt, DMAMAP_MT_UNCACHED);
	assert_int_equal(vpte(vma, vma->vm_end - 1, &pfn, &mt), 0);
	assert_int_equal(pfn, page_to_pfn(p) + 1);
	assert_int_equal(mt, DMAMAP_MT_UNCACHED);
	assert_int_equal(dmamap_vma_pte(vma, vma->vm_start + PG, NULL, NULL), 0);

	/* the user sees RAM */
	assert_int_equal(memcmp(user + PG, f->m->ram + off, 2 * PG), 0);
	assert_int_equal(check_pattern(user + PG, 2 * PG, 51), 0);
	/* and the device sees what the user stores */
	fill_pattern(user + PG, 2 * PG, 52);
	assert_int_equal(dmamap_dev_read(dev_of(f), page_to_phys(p), buf, sizeof(buf)), 0);
	assert_int_equal(check_pattern(buf, sizeof(buf), 52), 0);
	/* the CPU's cached lines are untouched (stale) */
	assert_int_equal(((u8 *)page_address(p))[0], 0x33);

	dmamap_vma_destroy(vma);
	dmamap_free_pages(p, 1);
}

static void test_vm_insert_page_uses_vm_page_prot(void **state)
{
	struct fx *f = *state;
	struct vm_area_struct *vma = dmamap_vma_create(f->m, 3 * PG);
	struct page *p = dmamap_alloc_pages(f->m, GFP_KERNEL, 0), *q = dmamap_alloc_pages(f->m, GFP_KERNEL, 1);
	u8 *user, buf[PAGE_SIZE];
	unsigned long pfn;
	enum dmamap_memtype mt;

	assert_non_null(vma);
	assert_non_null(p);
	assert_non_null(q);
	user = (u8 *)vma->vm_start;
	settle(f->m, p, PG, 0x10);
	settle(f->m, q, 2 * PG, 0x20);

	/* PAGE_SHARED: cached, the user sees the CPU's view */
	assert_int_equal(vm_insert_page(vma, vma->vm_start, p), 0);
	assert_int_equal(vpte(vma, vma->vm_start, &pfn, &mt), 0);
	assert_int_equal(pfn, page_to_pfn(p));
	assert_int_equal(mt, DMAMAP_MT_CACHED);
	fill_pattern(page_address(p), PG, 61);
	assert_int_equal(check_pattern(user, PG, 61), 0);
	user[7] = 0x99;
	assert_int_equal(((u8 *)page_address(p))[7], 0x99);

	/* write-combining: the user sees RAM; a tail page of a block may be inserted */
	vma->vm_page_prot = pgprot_writecombine(vma->vm_page_prot);
	assert_int_equal(vm_insert_page(vma, vma->vm_start + 2 * PG, q + 1), 0);
	assert_int_equal(vpte(vma, vma->vm_start + 2 * PG, &pfn, &mt), 0);
	assert_int_equal(pfn, page_to_pfn(q) + 1);
	assert_int_equal(mt, DMAMAP_MT_WRITECOMBINE);
	/* the first pte kept its own type */
	assert_int_equal(vpte(vma, vma->vm_start, NULL, &mt), 0);
	assert_int_equal(mt, DMAMAP_MT_CACHED);
	fill_pattern(buf, sizeof(buf), 62);
	assert_int_equal(dmamap_dev_write(dev_of(f), page_to_phys(q + 1), buf, sizeof(buf)), 0);
	assert_int_equal(check_pattern(user + 2 * PG, PG, 62), 0);
	assert_int_equal(vpte(vma, vma->vm_start + PG, NULL, NULL), -ENOENT);

	dmamap_vma_destroy(vma);
	dmamap_free_pages(p, 0);
	dmamap_free_pages(q, 1);
}

static void assert_vma_ptes(struct vm_area_struct *vma, const unsigned long *expect, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		unsigned long pfn = 0;
		int ret = vpte(vma, vma->vm_start + i * PG, &pfn, NULL);

		if (expect[i]) {
			assert_int_equal(ret, 0);
			assert_int_equal(pfn, expect[i]);
		} else {
			assert_int_equal(ret, -ENOENT);
		}
	}
}

static void test_vma_bad_arguments(void **state)
{
	struct fx *f = *state;
	struct dmamap_machine *other = test_machine(16, NULL);
	struct vm_area_struct *vma = dmamap_vma_create(f->m, 4 * PG);
	struct page *p = dmamap_alloc_pages(f->m, GFP_KERNEL, 1), *op = dmamap_alloc_pages(other, GFP_KERNEL, 0);
	unsigned long base_pfn = BASE >> PAGE_SHIFT, end_pfn = base_pfn + 16 * MiB / PG;
	unsigned long s, expect[4] = { 0 };
	pgprot_t nc = pgprot_noncached(PAGE_SHARED);
	struct page *freepg;

	assert_non_null(vma);
	assert_non_null(p);
	assert_non_null(op);
	s = vma->vm_start;
	settle(f->m, p, 2 * PG, 0x5c);
	freepg = dmamap_alloc_pages(f->m, GFP_KERNEL, 0);
	assert_non_null(freepg);
	dmamap_free_pages(freepg, 0);

	assert_int_equal(remap_pfn_range(vma, s + PG, page_to_pfn(p), PG, nc), 0);
	expect[1] = page_to_pfn(p);
	assert_vma_ptes(vma, expect, 4);

	/* remap_pfn_range */
	assert_int_equal(remap_pfn_range(vma, s + 1, page_to_pfn(p), PG, nc), -EINVAL);      /* unaligned */
	assert_int_equal(remap_pfn_range(vma, s + 3 * PG + 8, page_to_pfn(p), PG, nc), -EINVAL);
	assert_int_equal(remap_pfn_range(vma, vma->vm_end, page_to_pfn(p), PG, nc), -EINVAL); /* outside */
	assert_int_equal(remap_pfn_range(vma, s - PG, page_to_pfn(p), PG, nc), -EINVAL);
	assert_int_equal(remap_pfn_range(vma, s + 3 * PG, page_to_pfn(p), 2 * PG, nc), -EINVAL); /* runs past the end */
	assert_int_equal(remap_pfn_range(vma, s, page_to_pfn(p), 5 * PG, nc), -EINVAL);
	assert_int_equal(remap_pfn_range(vma, s, page_to_pfn(p), 0, nc), -EINVAL);          /* size 0 */
	assert_int_equal(remap_pfn_range(vma, s, page_to_pfn(p), 100, nc), -EINVAL);        /* size unaligned */
	assert_int_equal(remap_pfn_range(vma, s, base_pfn - 1, PG, nc), -EINVAL);           /* not RAM */
	assert_int_equal(remap_pfn_range(vma, s + 2 * PG, end_pfn - 1, 2 * PG, nc), -EINVAL); /* runs off RAM */
	assert_int_equal(remap_pfn_range(vma, s, end_pfn, PG, nc), -EINVAL);
	assert_int_equal(remap_pfn_range(vma, s, 0, PG, nc), -EINVAL);
	assert_int_equal(remap_pfn_range(vma, s, page_to_pfn(p), PG, PAGE_NONE), -EINVAL);  /* no memory type */
	assert_int_equal(remap_pfn_range(NULL, s, page_to_pfn(p), PG, nc), -EINVAL);
	assert_int_equal(remap_pfn_range(vma, s, page_to_pfn(p), 2 * PG, nc), -EBUSY);     /* overlaps page 1 */
	assert_int_equal(remap_pfn_range(vma, s + PG, page_to_pfn(p), PG, nc), -EBUSY);
	assert_vma_ptes(vma, expect, 4);

	/* vm_insert_page */
	assert_int_equal(vm_insert_page(vma, s + 1, p), -EINVAL);
	assert_int_equal(vm_insert_page(vma, vma->vm_end, p), -EINVAL);
	assert_int_equal(vm_insert_page(vma, s, freepg), -EINVAL); /* not allocated */
	assert_int_equal(vm_insert_page(vma, s, op), -EINVAL);     /* another machine's */
	assert_int_equal(vm_insert_page(vma, s, NULL), -EINVAL);
	assert_int_equal(vm_insert_page(NULL, s, p), -EINVAL);
	assert_int_equal(vm_insert_page(vma, s + PG, p), -EBUSY);
	assert_vma_ptes(vma, expect, 4);
	/* the mapped page still shows its frame */
	assert_int_equal(((u8 *)s)[PG], 0x5c);

	/* injected remap failure: -ENOMEM, nothing mapped */
	assert_int_equal(dmamap_fault_inject(f->m, DMAMAP_FAULT_REMAP, 1, 0), 0);
	assert_int_equal(remap_pfn_range(vma, s + 2 * PG, page_to_pfn(p), 2 * PG, nc), -ENOMEM);
	assert_vma_ptes(vma, expect, 4);
	assert_int_equal(dmamap_fault_inject(f->m, DMAMAP_FAULT_REMAP, 1, 0), 0);
	assert_int_equal(vm_insert_page(vma, s, p), -ENOMEM);
	assert_vma_ptes(vma, expect, 4);

	/* and then it works */
	assert_int_equal(remap_pfn_range(vma, s + 2 * PG, page_to_pfn(p), 2 * PG, nc), 0);
	assert_int_equal(vm_insert_page(vma, s, p + 1), 0);
	expect[0] = page_to_pfn(p) + 1;
	expect[2] = page_to_pfn(p);
	expect[3] = page_to_pfn(p) + 1;
	assert_vma_ptes(vma, expect, 4);

	dmamap_vma_destroy(vma);
	dmamap_free_pages(p, 1);
	dmamap_free_pages(op, 0);
	test_machine_destroy(other);
}

static void poke(void *p)
{
	*(volatile u8 *)p = 1;
}

/* A read-only protection makes a read-only mapping: reads see the frame, writes fault. */
static void test_readonly_mapping(void **state)
{
	struct fx *f = *state;
	struct vm_area_struct *vma = dmamap_vma_create(f->m, 2 * PG);
	struct page *p = dmamap_alloc_pages(f->m, GFP_KERNEL, 0);
	pgprot_t prot;
	int st;

	assert_non_null(vma);
	assert_non_null(p);
	settle(f->m, p, PG, 0x3a);
	assert_int_equal(remap_pfn_range(vma, vma->vm_start, page_to_pfn(p), PG, PAGE_READONLY), 0);
	vma->vm_page_prot = pgprot_noncached(PAGE_READONLY);
	assert_int_equal(vm_insert_page(vma, vma->vm_start + PG, p), 0);
	assert_int_equal(dmamap_vma_pte(vma, vma->vm_start, NULL, &prot), 0);
	assert_int_equal(pgprot_memtype(prot), DMAMAP_MT_CACHED);
	assert_true(pgprot_val(prot) & DMAMAP_PROT_RDONLY);
	assert_int_equal(dmamap_vma_pte(vma, vma->vm_start + PG, NULL, &prot), 0);
	assert_int_equal(pgprot_memtype(prot), DMAMAP_MT_UNCACHED);
	assert_true(pgprot_val(prot) & DMAMAP_PROT_RDONLY);

	assert_int_equal(((u8 *)vma->vm_start)[5], 0x3a);
	assert_int_equal(((u8 *)vma->vm_start)[PG + 5], 0x3a);
	st = in_child(poke, (void *)vma->vm_start);
	assert_true(WIFSIGNALED(st));
	assert_int_equal(WTERMSIG(st), SIGSEGV);
	st = in_child(poke, (void *)(vma->vm_start + PG));
	assert_true(WIFSIGNALED(st));
	assert_int_equal(WTERMSIG(st), SIGSEGV);
	/* a writable mapping of the same frame is writable */
	{
		struct vm_area_struct *w = dmamap_vma_create(f->m, PG);

		assert_non_null(w);
		assert_int_equal(remap_pfn_range(w, w->vm_start, page_to_pfn(p), PG, PAGE_SHARED), 0);
		st = in_child(poke, (void *)w->vm_start);
		assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
		dmamap_vma_destroy(w);
	}
	dmamap_vma_destroy(vma);
	dmamap_free_pages(p, 0);
}

/* Two threads reserving and releasing regions: no page of the region is ever handed to both. */
struct region_stress {
	struct fx *f;
	atomic_int *owner; /* per page of the consistent region */
	int tid;
	unsigned iters;
	atomic_int errors;
};

static void *region_thread(void *arg)
{
	struct region_stress *s = arg;
	struct dmamap_vmregion *held[8] = { 0 };
	uint64_t r = (uint64_t)s->tid * 0x9e3779b97f4a7c15ULL;
	int err = 0;

	for (unsigned it = 0; it < s->iters; it++) {
		unsigned slot;

		r = r * 6364136223846793005ULL + 1442695040888963407ULL;
		slot = (unsigned)(r >> 33) % 8;
		if (held[slot]) {
			size_t first = (held[slot]->start - s->f->cbase) / PG, n = (held[slot]->end - held[slot]->start) / PG;

			for (size_t i = first; i < first + n; i++) {
				int me = s->tid;

				if (!atomic_compare_exchange_strong(&s->owner[i], &me, 0))
					err++;
			}
			dmamap_vmregion_free(s->f->m, held[slot]);
			held[slot] = NULL;
		} else {
			size_t n = 1 + (size_t)(r >> 40) % 64;
			struct dmamap_vmregion *reg = dmamap_vmregion_alloc(s->f->m, n * PG, NULL);
			size_t first;

			if (!reg)
				continue;
			first = (reg->start - s->f->cbase) / PG;
			if ((reg->start - s->f->cbase) % expected_align(n * PG))
				err++;
			for (size_t i = first; i < first + n; i++) {
				int none = 0;

				if (!atomic_compare_exchange_strong(&s->owner[i], &none, s->tid))
					err++;
			}
			held[slot] = reg;
		}
	}
	for (unsigned i = 0; i < 8; i++) {
		if (!held[i])
			continue;
		for (size_t k = (held[i]->start - s->f->cbase) / PG; k < (held[i]->end - s->f->cbase) / PG; k++)
			atomic_store(&s->owner[k], 0);
		dmamap_vmregion_free(s->f->m, held[i]);
	}
	atomic_fetch_add(&s->errors, err);
	return NULL;
}

static void test_region_two_threads(void **state)
{
	struct fx *f = *state;
	atomic_int *owner = calloc(8 * MiB / PG, sizeof(*owner));
	struct region_stress s[2];
	pthread_t t[2];

	assert_non_null(owner);
	for (int i = 0; i < 2; i++) {
		s[i].f = f;
		s[i].owner = owner;
		s[i].tid = i + 1;
		s[i].iters = under_valgrind() ? 2000 : 50000;
		atomic_init(&s[i].errors, 0);
	}
	for (int i = 0; i < 2; i++)
		assert_int_equal(pthread_create(&t[i], NULL, region_thread, &s[i]), 0);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	assert_int_equal(atomic_load(&s[0].errors), 0);
	assert_int_equal(atomic_load(&s[1].errors), 0);
	assert_int_equal(cstats(f->m).regions, 0);
	assert_int_equal(cstats(f->m).used, 0);
	free(owner);
}

/* Several vmas: destroying one leaves the others working (the machine's list). */
static void test_several_vmas(void **state)
{
	struct fx *f = *state;
	struct vm_area_struct *v[3];
	struct page *p = dmamap_alloc_pages(f->m, GFP_KERNEL, 0);

	assert_non_null(p);
	settle(f->m, p, PG, 0x4d);
	for (int i = 0; i < 3; i++) {
		v[i] = dmamap_vma_create(f->m, PG);
		assert_non_null(v[i]);
		assert_int_equal(remap_pfn_range(v[i], v[i]->vm_start, page_to_pfn(p), PG, pgprot_noncached(PAGE_SHARED)),
				 0);
	}
	dmamap_vma_destroy(v[1]);
	assert_int_equal(((u8 *)v[0]->vm_start)[1], 0x4d);
	assert_int_equal(((u8 *)v[2]->vm_start)[2], 0x4d);
	dmamap_vma_destroy(v[2]);
	assert_int_equal(((u8 *)v[0]->vm_start)[3], 0x4d);
	dmamap_vma_destroy(v[0]);
	dmamap_free_pages(p, 0);
}

/* A vma destroyed twice -- its machine destroyed in between or not -- is reported, and nothing of it is read. */
static void test_vma_destroyed_twice_refused(void **state)
{
	struct dmamap_machine *m = test_machine(16, NULL);
	struct vm_area_struct *vma = dmamap_vma_create(m, 2 * PG);
	unsigned long before;
	struct capture c, cg;

	(void)state;
	assert_non_null(vma);
	capture_start(&c, m);
	dmamap_vma_destroy(vma);
	capture_start(&cg, NULL);
	before = dmamap_report_count(NULL);
	dmamap_vma_destroy(vma);
	assert_int_equal(cg.reports, 1);
	assert_int_equal(cg.last_kind, DMAMAP_REPORT_BAD_INPUT);
	assert_non_null(strstr(cg.last, "dmamap_vma_destroy("));
	assert_non_null(strstr(cg.last, "): no live vma from dmamap_vma_create (freed already?): nothing done"));
	assert_int_equal(dmamap_report_count(NULL), before + 1);
	assert_int_equal(c.reports, 0);

	vma = dmamap_vma_create(m, PG);
	assert_non_null(vma);
	test_machine_destroy(m);
	assert_int_equal(c.by_kind[DMAMAP_REPORT_LEAK], 1);
	capture_start(&cg, NULL);
	dmamap_vma_destroy(vma);
	assert_int_equal(cg.reports, 1);
	assert_int_equal(cg.last_kind, DMAMAP_REPORT_API_MISUSE);
	dmamap_vma_destroy(vma);
	assert_int_equal(cg.reports, 2);
	assert_int_equal(cg.last_kind, DMAMAP_REPORT_BAD_INPUT);
	capture_stop(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_region_alignment, setup, teardown),
		cmocka_unit_test_setup_teardown(test_region_first_fit_and_reuse, setup, teardown),
		cmocka_unit_test(test_region_full),
		cmocka_unit_test_setup_teardown(test_consistent_ptes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_alias_uncached, setup, teardown),
		cmocka_unit_test_setup_teardown(test_alias_dmacoherent, setup, teardown),
		cmocka_unit_test_setup_teardown(test_alias_writecombine, setup, teardown),
		cmocka_unit_test_setup_teardown(test_alias_cached_shows_cpu_view, setup, teardown),
		cmocka_unit_test_setup_teardown(test_region_map_refusals, setup, teardown),
		cmocka_unit_test_setup_teardown(test_region_two_threads, setup, teardown),
		cmocka_unit_test_setup_teardown(test_region_remap_fault_injection, setup, teardown),
		cmocka_unit_test_setup_teardown(test_region_free_unmaps_and_reuse, setup, teardown),
		cmocka_unit_test_setup_teardown(test_region_host_alloc_failure, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unmapped_addresses_fault, setup, teardown),
		cmocka_unit_test_setup_teardown(test_vma_create, setup, teardown),
		cmocka_unit_test_setup_teardown(test_vma_create_host_alloc_failures, setup, teardown),
		cmocka_unit_test_setup_teardown(test_remap_pfn_range_noncached, setup, teardown),
		cmocka_unit_test_setup_teardown(test_vm_insert_page_uses_vm_page_prot, setup, teardown),
		cmocka_unit_test_setup_teardown(test_vma_bad_arguments, setup, teardown),
		cmocka_unit_test_setup_teardown(test_readonly_mapping, setup, teardown),
		cmocka_unit_test_setup_teardown(test_several_vmas, setup, teardown),
		cmocka_unit_test(test_vma_destroyed_twice_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
