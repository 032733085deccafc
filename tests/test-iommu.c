/* SPDX-License-Identifier: MIT */
/*
 * The simulated IOMMU (<dmamap/iommu.h>): domains, the page table with its
 * blocks, splits and table pages, every error path (nothing changes), fault
 * injection with full unwinding, and the device side: a device attached to a
 * domain reads and writes memory only through it, and faults.
 */
#include <pthread.h>

#include "common.h"
#include "internal.h"

#define KiB ((u64)1 << 10)
#define MiB ((u64)1 << 20)
#define GiB ((u64)1 << 30)
#define PG ((u64)PAGE_SIZE)
#define RAM 0x40000000ULL /* default ram_base */
#define IOVA_END ((u64)1 << DMAMAP_IOMMU_IOVA_BITS)

struct fx {
	struct dmamap_machine *m;
	struct iommu_domain *d;
	struct capture cap;
};

static void fx_init(struct fx *f)
{
	f->m = test_machine(16, simple_machine); /* what the device reads is prepared with inner cleans */
	capture_start(&f->cap, f->m);
	f->d = iommu_domain_alloc(f->m);
	assert_non_null(f->d);
}

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	fx_init(f);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;
	struct capture c;

	iommu_domain_free(f->d);
	capture_stop(f->m);
	capture_start(&c, f->m);
	test_machine_destroy(f->m);
	assert_int_equal(c.by_kind[DMAMAP_REPORT_LEAK], 0);
	free(f);
	return 0;
}

static struct dmamap_iommu_stats stats(struct iommu_domain *d)
{
	struct dmamap_iommu_stats st;

	memset(&st, 0x5a, sizeof(st));
	dmamap_iommu_stats(d, &st);
	return st;
}

static void assert_stats_equal(const struct dmamap_iommu_stats *a, const struct dmamap_iommu_stats *b)
{
	assert_int_equal(a->table_pages, b->table_pages);
	assert_int_equal(a->mapped_bytes, b->mapped_bytes);
	assert_int_equal(a->block_entries, b->block_entries);
	assert_int_equal(a->faults, b->faults);
	assert_int_equal(a->last_fault_iova, b->last_fault_iova);
	assert_int_equal(a->last_fault_flags, b->last_fault_flags);
	assert_int_equal(a->attached_devices, b->attached_devices);
}

/*
 * Nothing mapped, and @tables table pages left: tables stay after their
 * mappings are unmapped, as the kernel's io-pgtable keeps them. A shrink (what
 * the fault sweep does before counting) gives back all but the root.
 */
static void assert_empty(struct iommu_domain *d)
{
	struct dmamap_iommu_stats st = stats(d);

	assert_int_equal(st.mapped_bytes, 0);
	assert_int_equal(st.block_entries, 0);
	dmamap_iommu_domain_shrink(d);
	assert_int_equal(stats(d).table_pages, 1);
}

static void assert_empty_keeping(struct iommu_domain *d, unsigned long tables)
{
	assert_int_equal(stats(d).table_pages, tables);
	assert_empty(d);
}

/* Every page of [iova, iova + len) translates to pa + offset (pa 0: is unmapped), also mid-page. */
static void assert_maps(struct iommu_domain *d, u64 iova, u64 len, u64 pa)
{
	for (u64 off = 0; off < len; off += PG) {
		assert_int_equal(iommu_iova_to_phys(d, iova + off), pa ? pa + off : 0);
		assert_int_equal(iommu_iova_to_phys(d, iova + off + 0x7ff), pa ? pa + off + 0x7ff : 0);
	}
}

static void assert_unmapped(struct iommu_domain *d, u64 iova, u64 len)
{
	assert_maps(d, iova, len, 0);
}

/* Translate for a read through the internal bus entry point; returns the length of the run. */
static size_t xlate_len(struct iommu_domain *d, u64 iova, phys_addr_t expect)
{
	phys_addr_t pa = 0;
	size_t len = 0;

	assert_int_equal(dmamap_iommu_translate(d, NULL, iova, false, false, &pa, &len), 0);
	assert_int_equal(pa, expect);
	return len;
}

/* ------------------------------------------------------------ domains */

static void test_domain_alloc_empty(void **state)
{
	struct fx *f = *state;
	struct dmamap_iommu_stats st = stats(f->d);
	struct capture pw;

	assert_int_equal(st.table_pages, 1);
	assert_int_equal(st.mapped_bytes, 0);
	assert_int_equal(st.block_entries, 0);
	assert_int_equal(st.faults, 0);
	assert_int_equal(st.attached_devices, 0);
	assert_ptr_equal(dmamap_iommu_machine(f->d), f->m);
	assert_int_equal(iommu_iova_to_phys(f->d, 0), 0);
	assert_int_equal(iommu_iova_to_phys(f->d, 0x12345000), 0);

	/* NULL: ignored, refused; reported process-wide */
	capture_start(&pw, NULL);
	iommu_domain_free(NULL);
	assert_int_equal(pw.reports, 0);
	assert_null(iommu_domain_alloc(NULL));
	assert_int_equal(pw.by_kind[DMAMAP_REPORT_BAD_INPUT], 1);
	dmamap_iommu_stats(NULL, &st);
	assert_int_equal(st.table_pages, 0);
	assert_int_equal(iommu_iova_to_phys(NULL, 0x1000), 0);
	iommu_set_fault_handler(NULL, NULL, NULL);
	assert_int_equal(iommu_map(NULL, 0x1000, RAM, PG, IOMMU_READ), -EINVAL);
	assert_int_equal(iommu_unmap(NULL, 0x1000, PG), 0);
	assert_int_equal(pw.by_kind[DMAMAP_REPORT_BAD_INPUT], 5);
	capture_stop(NULL);
	assert_int_equal(f->cap.reports, 0);
}

static void test_domain_alloc_fails_under_injection(void **state)
{
	struct fx *f = *state;
	struct iommu_domain *d;

	assert_int_equal(dmamap_fault_inject(f->m, DMAMAP_FAULT_HOST_ALLOC, 1, 0), 0);
	assert_null(iommu_domain_alloc(f->m));
	assert_int_equal(dmamap_fault_injected(f->m, DMAMAP_FAULT_HOST_ALLOC), 1);

	assert_int_equal(dmamap_fault_inject(f->m, DMAMAP_FAULT_IOMMU_PGTABLE, 1, 0), 0);
	assert_null(iommu_domain_alloc(f->m));
	assert_int_equal(dmamap_fault_injected(f->m, DMAMAP_FAULT_IOMMU_PGTABLE), 1);

	/* disarmed: it works again (and valgrind sees no leak of the failed ones) */
	d = iommu_domain_alloc(f->m);
	assert_non_null(d);
	assert_int_equal(iommu_map(d, 0x1000, RAM, PG, IOMMU_READ), 0);
	assert_int_equal(iommu_iova_to_phys(d, 0x1000), RAM);
	iommu_domain_free(d);
}

/* ---------------------------------------------------------- map/unmap */

static void test_map_single_pages(void **state)
{
	struct fx *f = *state;
	struct dmamap_iommu_stats st;

	assert_int_equal(iommu_map(f->d, 0x10000000, RAM + 0x5000, PG, IOMMU_READ | IOMMU_WRITE), 0);
	assert_int_equal(iommu_map(f->d, 0x10001000, RAM + 0x3000, PG, IOMMU_READ), 0);
	assert_int_equal(iommu_map(f->d, 0x10003000, RAM + 0x9000, PG, IOMMU_WRITE), 0);
	assert_maps(f->d, 0x10000000, PG, RAM + 0x5000);
	assert_maps(f->d, 0x10001000, PG, RAM + 0x3000);
	assert_unmapped(f->d, 0x10002000, PG);
	assert_maps(f->d, 0x10003000, PG, RAM + 0x9000);
	assert_unmapped(f->d, 0x0fff0000, 16 * PG);
	assert_int_equal(iommu_iova_to_phys(f->d, 0x10000fff), RAM + 0x5fff);
	/* a page run: translation length ends at the page */
	assert_int_equal(xlate_len(f->d, 0x10000100, RAM + 0x5100), PG - 0x100);

	st = stats(f->d);
	assert_int_equal(st.table_pages, 4); /* root, level 1, 2, 3 */
	assert_int_equal(st.mapped_bytes, 3 * PG);
	assert_int_equal(st.block_entries, 0);

	assert_int_equal(iommu_unmap(f->d, 0x10001000, PG), PG);
	assert_unmapped(f->d, 0x10001000, PG);
	assert_maps(f->d, 0x10000000, PG, RAM + 0x5000);
	assert_int_equal(stats(f->d).mapped_bytes, 2 * PG);
	assert_int_equal(iommu_unmap(f->d, 0x10000000, PG), PG);
	assert_int_equal(iommu_unmap(f->d, 0x10003000, PG), PG);
	assert_unmapped(f->d, 0x10000000, 4 * PG);
	st = stats(f->d);
	assert_int_equal(st.table_pages, 4); /* the tables stay */
	assert_int_equal(st.mapped_bytes, 0);

	/* the same page can be mapped again */
	assert_int_equal(iommu_map(f->d, 0x10001000, RAM + 0x7000, PG, IOMMU_READ), 0);
	assert_maps(f->d, 0x10001000, PG, RAM + 0x7000);
	assert_int_equal(iommu_unmap(f->d, 0x10001000, PG), PG);
	assert_empty_keeping(f->d, 4);
	assert_int_equal(f->cap.reports, 0);
}

static void test_block_mapping_uses_2mib_blocks(void **state)
{
	struct fx *f = *state;
	struct iommu_domain *pages = iommu_domain_alloc(f->m);
	struct dmamap_iommu_stats sb, sp;
	const u64 iova = 0x10200000;

	assert_non_null(pages);
	/* both 2 MiB aligned: two blocks */
	assert_int_equal(iommu_map(f->d, iova, RAM + 2 * MiB, 4 * MiB, IOMMU_READ | IOMMU_WRITE), 0);
	/* the physical side only page aligned: 1024 pages */
	assert_int_equal(iommu_map(pages, iova, RAM + PG, 4 * MiB, IOMMU_READ | IOMMU_WRITE), 0);
	sb = stats(f->d);
	sp = stats(pages);
	assert_int_equal(sb.block_entries, 2);
	assert_int_equal(sb.table_pages, 3); /* root, level 1, level 2 */
	assert_int_equal(sb.mapped_bytes, 4 * MiB);
	assert_int_equal(sp.block_entries, 0);
	assert_int_equal(sp.table_pages, 5); /* and two level-3 tables */
	assert_int_equal(sp.mapped_bytes, 4 * MiB);
	assert_true(sb.table_pages < sp.table_pages);

	assert_maps(f->d, iova, 4 * MiB, RAM + 2 * MiB);
	assert_maps(pages, iova, 4 * MiB, RAM + PG);
	assert_unmapped(f->d, iova - PG, PG);
	assert_unmapped(f->d, iova + 4 * MiB, PG);
	/* a block run reaches the end of the block */
	assert_int_equal(xlate_len(f->d, iova + 0x1234, RAM + 2 * MiB + 0x1234), 2 * MiB - 0x1234);
	assert_int_equal(xlate_len(f->d, iova + 2 * MiB, RAM + 4 * MiB), 2 * MiB);
	assert_int_equal(xlate_len(pages, iova + 0x1234, RAM + PG + 0x1234), PG - 0x234);

	/* iova aligned but not paddr, partly: a block only where both are */
	assert_int_equal(iommu_unmap(pages, iova, 4 * MiB), 4 * MiB);
	assert_int_equal(iommu_map(pages, iova - PG, RAM + 2 * MiB - PG, 2 * MiB + 2 * PG, IOMMU_READ), 0);
	sp = stats(pages);
	assert_int_equal(sp.block_entries, 1);
	assert_int_equal(sp.mapped_bytes, 2 * MiB + 2 * PG);
	assert_maps(pages, iova - PG, 2 * MiB + 2 * PG, RAM + 2 * MiB - PG);
	assert_int_equal(iommu_unmap(pages, iova - PG, 2 * MiB + 2 * PG), 2 * MiB + 2 * PG);
	/* the level-3 tables of the page-mapped ends stay; the whole-span ones went with the 4 MiB unmap */
	assert_empty_keeping(pages, 5);
	iommu_domain_free(pages);

	assert_int_equal(iommu_unmap(f->d, iova, 4 * MiB), 4 * MiB);
	assert_empty_keeping(f->d, 3);
}

static void test_unmap_page_inside_block_splits(void **state)
{
	struct fx *f = *state;
	struct dmamap_iommu_stats st;
	const u64 iova = 0x10200000, hole = iova + 2 * MiB + 5 * PG;

	assert_int_equal(iommu_map(f->d, iova, RAM + 2 * MiB, 4 * MiB, IOMMU_READ), 0);
	assert_int_equal(iommu_unmap(f->d, hole, PG), PG);
	st = stats(f->d);
	assert_int_equal(st.block_entries, 1);
	assert_int_equal(st.table_pages, 4); /* the split block's level-3 table */
	assert_int_equal(st.mapped_bytes, 4 * MiB - PG);
	assert_maps(f->d, iova, 2 * MiB + 5 * PG, RAM + 2 * MiB);
	assert_unmapped(f->d, hole, PG);
	assert_maps(f->d, hole + PG, 2 * MiB - 6 * PG, RAM + 4 * MiB + 6 * PG);
	/* the rest of the split block is pages now, the other block still a block */
	assert_int_equal(xlate_len(f->d, hole + PG, RAM + 4 * MiB + 6 * PG), PG);
	assert_int_equal(xlate_len(f->d, iova, RAM + 2 * MiB), 2 * MiB);

	/* a whole-range unmap stops at the hole; the hole unmaps nothing */
	assert_int_equal(iommu_unmap(f->d, iova, 4 * MiB), 2 * MiB + 5 * PG);
	assert_int_equal(iommu_unmap(f->d, hole, 4 * MiB), 0);
	assert_int_equal(iommu_unmap(f->d, hole + PG, 2 * MiB - 6 * PG), 2 * MiB - 6 * PG);
	assert_empty_keeping(f->d, 4);
}

static void test_unmap_range_splitting_both_ends(void **state)
{
	struct fx *f = *state;
	struct dmamap_iommu_stats st;
	const u64 iova = 0x10200000;

	assert_int_equal(iommu_map(f->d, iova, RAM + 2 * MiB, 4 * MiB, IOMMU_READ | IOMMU_WRITE), 0);
	/* from the second page of block 0 to the second page of block 1 */
	assert_int_equal(iommu_unmap(f->d, iova + PG, 2 * MiB), 2 * MiB);
	st = stats(f->d);
	assert_int_equal(st.block_entries, 0);
	assert_int_equal(st.table_pages, 5);
	assert_int_equal(st.mapped_bytes, 2 * MiB);
	assert_maps(f->d, iova, PG, RAM + 2 * MiB);
	assert_unmapped(f->d, iova + PG, 2 * MiB);
	assert_maps(f->d, iova + 2 * MiB + PG, 2 * MiB - PG, RAM + 4 * MiB + PG);

	assert_int_equal(iommu_unmap(f->d, iova, PG), PG);
	assert_int_equal(stats(f->d).table_pages, 5); /* block 0's table emptied, and kept */
	assert_int_equal(iommu_unmap(f->d, iova + 2 * MiB + PG, 2 * MiB - PG), 2 * MiB - PG);
	assert_empty_keeping(f->d, 5);
}

static void one_gib_ram(struct dmamap_machine_config *cfg)
{
	cfg->ram_size = GiB;
}

static void test_1gib_block_split_twice(void **state)
{
	struct dmamap_machine *m = test_machine(0, one_gib_ram);
	struct iommu_domain *d = iommu_domain_alloc(m);
	struct dmamap_iommu_stats st, before;
	const u64 iova = 3 * GiB, page = iova + 700 * MiB + 3 * PG;

	(void)state;
	assert_non_null(d);
	assert_int_equal(iommu_map(d, iova, RAM, GiB, IOMMU_READ), 0);
	st = stats(d);
	assert_int_equal(st.table_pages, 2); /* root and level 1 */
	assert_int_equal(st.block_entries, 1);
	assert_int_equal(st.mapped_bytes, GiB);
	assert_int_equal(iommu_iova_to_phys(d, iova + GiB - 1), RAM + GiB - 1);
	assert_int_equal(xlate_len(d, iova + 5 * MiB, RAM + 5 * MiB), GiB - 5 * MiB);

	/* splitting needs two tables: without either, nothing changes */
	for (unsigned nth = 1; nth <= 2; nth++) {
		before = stats(d);
		assert_int_equal(dmamap_fault_inject(m, DMAMAP_FAULT_IOMMU_PGTABLE, nth, 0), 0);
		assert_int_equal(iommu_unmap(d, page, PG), 0);
		assert_int_equal(dmamap_fault_inject(m, DMAMAP_FAULT_IOMMU_PGTABLE, 0, 0), 0);
		st = stats(d);
		assert_stats_equal(&st, &before);
		assert_int_equal(iommu_iova_to_phys(d, page), RAM + 700 * MiB + 3 * PG);
		assert_int_equal(xlate_len(d, page, RAM + 700 * MiB + 3 * PG), GiB - 700 * MiB - 3 * PG);
	}

	assert_int_equal(iommu_unmap(d, page, PG), PG);
	st = stats(d);
	assert_int_equal(st.table_pages, 4);
	assert_int_equal(st.block_entries, 511);
	assert_int_equal(st.mapped_bytes, GiB - PG);
	assert_int_equal(iommu_iova_to_phys(d, page), 0);
	assert_int_equal(iommu_iova_to_phys(d, page - 1), RAM + 700 * MiB + 3 * PG - 1);
	assert_int_equal(iommu_iova_to_phys(d, page + PG), RAM + 700 * MiB + 4 * PG);
	assert_int_equal(iommu_iova_to_phys(d, iova), RAM);
	assert_int_equal(iommu_iova_to_phys(d, iova + GiB - PG), RAM + GiB - PG);
	assert_int_equal(xlate_len(d, iova + 2 * MiB, RAM + 2 * MiB), 2 * MiB);
	assert_int_equal(xlate_len(d, page + PG, RAM + 700 * MiB + 4 * PG), PG);

	/* overlap with a block or a split block is refused */
	assert_int_equal(iommu_map(d, iova + 10 * MiB, RAM, PG, IOMMU_READ), -EEXIST);
	assert_int_equal(iommu_map(d, page - PG, RAM, 2 * PG, IOMMU_READ), -EEXIST);
	assert_int_equal(iommu_map(d, page, RAM + 8 * PG, PG, IOMMU_WRITE), 0);
	assert_int_equal(iommu_iova_to_phys(d, page), RAM + 8 * PG);

	/* the unmap covers the split level-1 entry whole: its tables go with it */
	assert_int_equal(iommu_unmap(d, iova, GiB), GiB);
	assert_empty_keeping(d, 2);
	iommu_domain_free(d);
	test_machine_destroy(m);
}

static void test_map_overlap_eexist_changes_nothing(void **state)
{
	struct fx *f = *state;
	struct dmamap_iommu_stats before, st;
	const u64 a = 0x20000000, blk = 0x30200000;

	assert_int_equal(iommu_map(f->d, a, RAM + 0x10000, 4 * PG, IOMMU_READ), 0);
	assert_int_equal(iommu_map(f->d, blk, RAM + 2 * MiB, 2 * MiB, IOMMU_READ), 0);
	before = stats(f->d);

	/* tail overlap, head overlap, containing, contained, within a block, spanning into a block */
	assert_int_equal(iommu_map(f->d, a + 3 * PG, RAM, 3 * PG, IOMMU_READ), -EEXIST);
	assert_int_equal(iommu_map(f->d, a - 2 * PG, RAM, 3 * PG, IOMMU_READ), -EEXIST);
	assert_int_equal(iommu_map(f->d, a - PG, RAM, 8 * PG, IOMMU_READ), -EEXIST);
	assert_int_equal(iommu_map(f->d, a + PG, RAM, PG, IOMMU_WRITE), -EEXIST);
	assert_int_equal(iommu_map(f->d, blk + 77 * PG, RAM, PG, IOMMU_READ), -EEXIST);
	assert_int_equal(iommu_map(f->d, blk - 2 * MiB, RAM, 2 * MiB + PG, IOMMU_READ), -EEXIST);
	assert_int_equal(iommu_map(f->d, blk, RAM + 2 * MiB, 2 * MiB, IOMMU_READ), -EEXIST);

	st = stats(f->d);
	assert_stats_equal(&st, &before);
	assert_unmapped(f->d, a - 2 * PG, 2 * PG);
	assert_maps(f->d, a, 4 * PG, RAM + 0x10000);
	assert_unmapped(f->d, a + 4 * PG, 4 * PG);
	assert_unmapped(f->d, blk - 2 * MiB, 2 * MiB);
	assert_maps(f->d, blk, 2 * MiB, RAM + 2 * MiB);
	assert_int_equal(f->cap.reports, 0);

	/* adjacent on both sides is fine */
	assert_int_equal(iommu_map(f->d, a - PG, RAM, PG, IOMMU_READ), 0);
	assert_int_equal(iommu_map(f->d, a + 4 * PG, RAM + PG, PG, IOMMU_READ), 0);
	assert_int_equal(iommu_unmap(f->d, a - PG, 6 * PG), 6 * PG);
	assert_int_equal(iommu_unmap(f->d, blk, 2 * MiB), 2 * MiB);
	assert_empty_keeping(f->d, 5);
}

static void test_map_einval_changes_nothing(void **state)
{
	struct fx *f = *state;
	struct dmamap_iommu_stats before, st;
	const u64 ram_end = RAM + 16 * MiB, a = 0x20000000;
	const struct {
		unsigned long iova;
		phys_addr_t pa;
		size_t size;
		int prot;
	} bad[] = {
		{ a + 0x800, RAM, PG, IOMMU_READ },             /* iova misaligned */
		{ a + 1, RAM, PG, IOMMU_READ },
		{ a, RAM + 0x10, PG, IOMMU_READ },              /* paddr misaligned */
		{ a, RAM, PG + 1, IOMMU_READ },                 /* size misaligned */
		{ a, RAM, 0x800, IOMMU_READ },
		{ a, RAM, 0, IOMMU_READ },                      /* zero size */
		{ IOVA_END - PG, RAM, 2 * PG, IOMMU_READ },     /* beyond 2^48 */
		{ IOVA_END, RAM, PG, IOMMU_READ },
		{ ~0UL & PAGE_MASK, RAM, 2 * PG, IOMMU_READ },  /* iova + size overflows */
		{ PG, RAM, (size_t)0 - PG, IOMMU_READ },
		{ a, RAM - PG, PG, IOMMU_READ },                /* below RAM */
		{ a, RAM - PG, 2 * PG, IOMMU_READ },            /* straddles RAM's start */
		{ a, ram_end - PG, 2 * PG, IOMMU_READ },        /* straddles RAM's end */
		{ a, ram_end, PG, IOMMU_READ },                 /* beyond RAM */
		{ a, 0, PG, IOMMU_READ },
		{ a, RAM, PG, 0 },                              /* no permission */
		{ a, RAM, PG, 4 },                              /* unknown bit */
		{ a, RAM, PG, IOMMU_READ | 0x100 },
	};
	unsigned long reports;

	assert_int_equal(iommu_map(f->d, a + 2 * PG, RAM + PG, PG, IOMMU_READ), 0);
	before = stats(f->d);
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		reports = f->cap.by_kind[DMAMAP_REPORT_BAD_INPUT];
		assert_int_equal(iommu_map(f->d, bad[i].iova, bad[i].pa, bad[i].size, bad[i].prot), -EINVAL);
		assert_int_equal(f->cap.by_kind[DMAMAP_REPORT_BAD_INPUT], reports + 1);
		st = stats(f->d);
		assert_stats_equal(&st, &before);
		assert_int_equal(iommu_iova_to_phys(f->d, bad[i].iova & PAGE_MASK), 0);
		assert_maps(f->d, a + 2 * PG, PG, RAM + PG);
	}
	/* the edges that are valid */
	assert_int_equal(iommu_map(f->d, IOVA_END - PG, ram_end - PG, PG, IOMMU_WRITE), 0);
	assert_int_equal(iommu_iova_to_phys(f->d, IOVA_END - 1), ram_end - 1);
	assert_int_equal(iommu_iova_to_phys(f->d, IOVA_END), 0);
	assert_int_equal(iommu_map(f->d, 0, RAM, PG, IOMMU_READ), 0);
	assert_int_equal(iommu_iova_to_phys(f->d, 0x10), RAM + 0x10);
	assert_int_equal(iommu_unmap(f->d, IOVA_END - PG, PG), PG);
	assert_int_equal(iommu_unmap(f->d, 0, PG), PG);
	assert_int_equal(iommu_unmap(f->d, a + 2 * PG, PG), PG);
	assert_empty_keeping(f->d, 8);
}

static void test_unmap_stops_at_hole(void **state)
{
	struct fx *f = *state;
	const u64 a = 0x20000000;

	assert_int_equal(iommu_map(f->d, a, RAM, 4 * PG, IOMMU_READ), 0);
	assert_int_equal(iommu_map(f->d, a + 5 * PG, RAM + 5 * PG, 3 * PG, IOMMU_READ), 0);
	assert_int_equal(iommu_unmap(f->d, a, 8 * PG), 4 * PG);
	assert_unmapped(f->d, a, 5 * PG);
	assert_maps(f->d, a + 5 * PG, 3 * PG, RAM + 5 * PG);
	assert_int_equal(stats(f->d).mapped_bytes, 3 * PG);

	/* a hole at iova unmaps nothing */
	assert_int_equal(iommu_unmap(f->d, a + 4 * PG, 4 * PG), 0);
	assert_int_equal(iommu_unmap(f->d, 0x7000000000ULL, PG), 0);
	assert_int_equal(iommu_unmap(f->d, IOVA_END, PG), 0);
	assert_maps(f->d, a + 5 * PG, 3 * PG, RAM + 5 * PG);
	/* a range past the mapping's end stops at its end */
	assert_int_equal(iommu_unmap(f->d, a + 6 * PG, 100 * PG), 2 * PG);
	assert_maps(f->d, a + 5 * PG, PG, RAM + 5 * PG);
	assert_int_equal(iommu_unmap(f->d, a + 5 * PG, PG), PG);
	assert_empty_keeping(f->d, 4);
}

static void test_unmap_bad_arguments_unmap_nothing(void **state)
{
	struct fx *f = *state;
	struct dmamap_iommu_stats before, st;
	const u64 a = 0x20000000;

	assert_int_equal(iommu_map(f->d, a, RAM, 4 * PG, IOMMU_READ), 0);
	before = stats(f->d);
	assert_int_equal(iommu_unmap(f->d, a + 0x10, PG), 0);
	assert_int_equal(iommu_unmap(f->d, a, PG - 1), 0);
	assert_int_equal(iommu_unmap(f->d, a, PG + 0x200), 0);
	assert_int_equal(iommu_unmap(f->d, a, 0), 0);
	assert_int_equal(iommu_unmap(f->d, IOVA_END, PG), 0);
	assert_int_equal(f->cap.reports, 0);
	st = stats(f->d);
	assert_stats_equal(&st, &before);
	assert_maps(f->d, a, 4 * PG, RAM);
	assert_int_equal(iommu_unmap(f->d, a, 4 * PG), 4 * PG);
}

/*
 * Tables stay when the mappings under them go, so that mapping there again
 * takes no table page; they go with an unmap that covers a table's whole
 * span, when a block mapping takes an empty table's place, or on a shrink.
 */
static void test_tables_kept_after_unmap(void **state)
{
	struct fx *f = *state;
	/* 5 GiB lies under the same level-0 entry as 0: its level-1 table is shared */
	const u64 where[] = { 0, (u64)1 << 39, IOVA_END - PG, 5 * GiB + 7 * PG };
	const unsigned long tables[] = { 4, 7, 10, 12 };
	unsigned long attempts;

	for (size_t i = 0; i < ARRAY_SIZE(where); i++) {
		assert_int_equal(iommu_map(f->d, where[i], RAM + i * PG, PG, IOMMU_READ), 0);
		assert_int_equal(stats(f->d).table_pages, tables[i]);
	}
	/* a neighbour in the same level-3 table costs nothing */
	assert_int_equal(iommu_map(f->d, PG, RAM + 9 * PG, PG, IOMMU_READ), 0);
	assert_int_equal(stats(f->d).table_pages, 12);
	assert_int_equal(iommu_unmap(f->d, PG, PG), PG);
	for (size_t i = 0; i < ARRAY_SIZE(where); i++) {
		assert_int_equal(iommu_unmap(f->d, where[i], PG), PG);
		assert_int_equal(stats(f->d).table_pages, 12);
	}
	assert_int_equal(stats(f->d).mapped_bytes, 0);

	/* mapping the same places again allocates no table */
	attempts = dmamap_fault_attempts(f->m, DMAMAP_FAULT_IOMMU_PGTABLE);
	for (size_t i = 0; i < ARRAY_SIZE(where); i++)
		assert_int_equal(iommu_map(f->d, where[i], RAM + i * PG, PG, IOMMU_READ), 0);
	assert_int_equal(dmamap_fault_attempts(f->m, DMAMAP_FAULT_IOMMU_PGTABLE), attempts);
	assert_int_equal(stats(f->d).table_pages, 12);
	for (size_t i = 0; i < ARRAY_SIZE(where); i++) {
		assert_maps(f->d, where[i], PG, RAM + i * PG);
		assert_int_equal(iommu_unmap(f->d, where[i], PG), PG);
	}

	/* an unmap covering a table's whole span takes the table with it */
	assert_int_equal(iommu_map(f->d, GiB, RAM + PG, 2 * MiB, IOMMU_READ), 0);
	assert_int_equal(stats(f->d).table_pages, 14); /* a level-2 and a level-3 table */
	assert_int_equal(iommu_unmap(f->d, GiB, 2 * MiB), 2 * MiB);
	assert_int_equal(stats(f->d).table_pages, 13);
	assert_unmapped(f->d, GiB, 2 * MiB);

	/* a block takes the place of the empty level-3 table under iova 0 */
	assert_int_equal(iommu_map(f->d, 0, RAM + 2 * MiB, 2 * MiB, IOMMU_READ), 0);
	assert_int_equal(stats(f->d).table_pages, 12);
	assert_int_equal(stats(f->d).block_entries, 1);
	assert_maps(f->d, 0, 2 * MiB, RAM + 2 * MiB);
	assert_int_equal(xlate_len(f->d, PG, RAM + 2 * MiB + PG), 2 * MiB - PG);
	assert_int_equal(iommu_unmap(f->d, 0, 2 * MiB), 2 * MiB);
	assert_empty_keeping(f->d, 12);
	assert_int_equal(f->cap.reports, 0);
}

/*
 * A map that needs several new table pages, failing at each allocation in
 * turn, with and without a mapping already sharing its tables: -ENOMEM and the
 * domain exactly as before.
 */
static void test_map_enomem_unwinds_at_each_table(void **state)
{
	struct fx *f = *state;
	/* [2^39 - 4K, 2^39 + 2M + 8K): one page left of a level-0 boundary, a block and two pages right of it */
	const u64 lo = ((u64)1 << 39) - PG, len = PG + 2 * MiB + 2 * PG, pa = RAM + 2 * MiB - PG;
	const u64 neighbour = lo - PG;

	for (int shared = 0; shared < 2; shared++) {
		struct dmamap_iommu_stats before, st;
		unsigned long attempts, needed;
		struct iommu_domain *probe = iommu_domain_alloc(f->m);

		assert_non_null(probe);
		if (shared) {
			assert_int_equal(iommu_map(f->d, neighbour, RAM + 8 * MiB, PG, IOMMU_READ), 0);
			assert_int_equal(iommu_map(probe, neighbour, RAM + 8 * MiB, PG, IOMMU_READ), 0);
		}
		/* how many table pages the map takes */
		attempts = dmamap_fault_attempts(f->m, DMAMAP_FAULT_IOMMU_PGTABLE);
		assert_int_equal(iommu_map(probe, lo, pa, len, IOMMU_READ | IOMMU_WRITE), 0);
		needed = dmamap_fault_attempts(f->m, DMAMAP_FAULT_IOMMU_PGTABLE) - attempts;
		assert_int_equal(needed, shared ? 3 : 6);
		st = stats(probe);
		assert_int_equal(st.block_entries, 1);
		assert_int_equal(st.table_pages, 7);
		assert_maps(probe, lo, len, pa);
		iommu_domain_free(probe);

		before = stats(f->d);
		for (unsigned long nth = 1; nth <= needed; nth++) {
			assert_int_equal(dmamap_fault_inject(f->m, DMAMAP_FAULT_IOMMU_PGTABLE, nth, 0), 0);
			assert_int_equal(iommu_map(f->d, lo, pa, len, IOMMU_READ | IOMMU_WRITE), -ENOMEM);
			assert_int_equal(dmamap_fault_inject(f->m, DMAMAP_FAULT_IOMMU_PGTABLE, 0, 0), 0);
			st = stats(f->d);
			assert_stats_equal(&st, &before);
			assert_unmapped(f->d, lo, len);
			if (shared)
				assert_maps(f->d, neighbour, PG, RAM + 8 * MiB);
		}
		assert_int_equal(iommu_map(f->d, lo, pa, len, IOMMU_READ | IOMMU_WRITE), 0);
		assert_maps(f->d, lo, len, pa);
		assert_int_equal(iommu_unmap(f->d, lo, len), len);
		if (shared)
			assert_int_equal(iommu_unmap(f->d, neighbour, PG), PG);
		/* the tables stay; given back, the next round starts from the root alone */
		assert_empty_keeping(f->d, 7);
	}
	assert_int_equal(f->cap.reports, 0);
}

static void test_split_enomem_changes_nothing(void **state)
{
	struct fx *f = *state;
	struct dmamap_iommu_stats before, st;
	const u64 iova = 0x10200000;

	assert_int_equal(iommu_map(f->d, iova, RAM + 2 * MiB, 4 * MiB, IOMMU_READ), 0);
	before = stats(f->d);
	assert_int_equal(dmamap_fault_inject(f->m, DMAMAP_FAULT_IOMMU_PGTABLE, 1, 0), 0);
	assert_int_equal(iommu_unmap(f->d, iova + 3 * MiB, PG), 0);
	st = stats(f->d);
	assert_stats_equal(&st, &before);
	assert_maps(f->d, iova, 4 * MiB, RAM + 2 * MiB);

	/* a split failing after whole blocks were unmapped returns what was */
	assert_int_equal(dmamap_fault_inject(f->m, DMAMAP_FAULT_IOMMU_PGTABLE, 1, 0), 0);
	assert_int_equal(iommu_unmap(f->d, iova, 3 * MiB), 2 * MiB);
	assert_int_equal(dmamap_fault_inject(f->m, DMAMAP_FAULT_IOMMU_PGTABLE, 0, 0), 0);
	st = stats(f->d);
	assert_int_equal(st.mapped_bytes, 2 * MiB);
	assert_int_equal(st.block_entries, 1);
	assert_int_equal(st.table_pages, 3);
	assert_unmapped(f->d, iova, 2 * MiB);
	assert_maps(f->d, iova + 2 * MiB, 2 * MiB, RAM + 4 * MiB);
	assert_int_equal(iommu_unmap(f->d, iova + 2 * MiB, 2 * MiB), 2 * MiB);
	assert_empty_keeping(f->d, 3);
}

static void test_translate_permissions(void **state)
{
	struct fx *f = *state;
	struct dmamap_iommu_stats st;
	phys_addr_t pa = 0x1234;
	size_t len = 77;

	assert_int_equal(iommu_map(f->d, 0x1000, RAM, PG, IOMMU_READ), 0);
	assert_int_equal(iommu_map(f->d, 0x2000, RAM + PG, PG, IOMMU_WRITE), 0);
	assert_int_equal(dmamap_iommu_translate(f->d, NULL, 0x1010, false, false, &pa, &len), 0);
	assert_int_equal(pa, RAM + 0x10);
	assert_int_equal(len, PG - 0x10);
	assert_int_equal(dmamap_iommu_translate(f->d, NULL, 0x2fff, true, false, &pa, &len), 0);
	assert_int_equal(pa, RAM + PG + 0xfff);
	assert_int_equal(len, 1);

	pa = 0x1234;
	len = 77;
	assert_int_equal(dmamap_iommu_translate(f->d, NULL, 0x1010, true, false, &pa, &len), -EFAULT);
	assert_int_equal(dmamap_iommu_translate(f->d, NULL, 0x2010, false, false, &pa, &len), -EFAULT);
	assert_int_equal(dmamap_iommu_translate(f->d, NULL, 0x3000, false, false, &pa, &len), -EFAULT);
	assert_int_equal(dmamap_iommu_translate(f->d, NULL, IOVA_END, true, false, &pa, &len), -EFAULT);
	assert_int_equal(pa, 0x1234);
	assert_int_equal(len, 77);
	st = stats(f->d);
	assert_int_equal(st.faults, 4);
	assert_int_equal(st.last_fault_iova, IOVA_END);
	assert_int_equal(st.last_fault_flags, IOMMU_FAULT_WRITE);
	assert_int_equal(f->cap.by_kind[DMAMAP_REPORT_IOMMU_FAULT], 4);
	assert_non_null(strstr(f->cap.last, "write"));
	assert_int_equal(iommu_unmap(f->d, 0x1000, 2 * PG), 2 * PG);
}

/*
 * Random maps and unmaps over a window crossing a 1 GiB boundary, with 10% of
 * the table-page allocations failing, checked page by page against a model.
 */
#define WIN_PAGES 4096u
#define WIN_BASE (GiB - 6 * MiB)

static uint64_t rnd(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static void test_random_against_model_with_injection(void **state)
{
	struct fx *f = *state;
	u64 *model = calloc(WIN_PAGES, sizeof(*model));
	uint64_t seed = 12345;
	unsigned ops = under_valgrind() ? 300 : 3000;
	unsigned long enomem = 0, ok_maps = 0;

	assert_non_null(model);
	assert_int_equal(dmamap_fault_inject(f->m, DMAMAP_FAULT_IOMMU_PGTABLE, 0, 100000), 0);
	for (unsigned op = 0; op < ops; op++) {
		unsigned first = (unsigned)(rnd(&seed) % WIN_PAGES), n;
		bool do_map = rnd(&seed) % 2;
		u64 iova, pa, mapped = 0;

		if (rnd(&seed) % 4 == 0) {
			/* 2 MiB aligned on both sides: blocks */
			first &= ~511u;
			n = 512u * (1 + (unsigned)(rnd(&seed) % 3));
			pa = RAM + 2 * MiB * (rnd(&seed) % 2);
		} else {
			n = 1 + (unsigned)(rnd(&seed) % 700);
			pa = RAM + PG * (rnd(&seed) % 2048);
		}
		/* mostly where it can succeed: maps in a free run, unmaps from a mapped page */
		if (rnd(&seed) % 8) {
			unsigned step = n >= 512 ? 512 : 1;

			while (first < WIN_PAGES && (model[first] != 0) == do_map)
				first += step;
			if (first >= WIN_PAGES)
				continue;
			if (do_map && step == 1)
				for (unsigned i = 1; i < n && first + i < WIN_PAGES; i++)
					if (model[first + i]) {
						n = i;
						break;
					}
		}
		n = DM_MIN(n, WIN_PAGES - first);
		iova = WIN_BASE + first * PG;
		if (do_map) {
			bool busy = false;
			unsigned long before = dmamap_fault_injected(f->m, DMAMAP_FAULT_IOMMU_PGTABLE);
			struct dmamap_iommu_stats sb = stats(f->d), sa;
			int err = iommu_map(f->d, iova, pa, n * PG, IOMMU_READ);

			for (unsigned i = 0; i < n; i++)
				busy |= model[first + i] != 0;
			if (err) {
				assert_int_equal(err, busy ? -EEXIST : -ENOMEM);
				if (!busy) {
					assert_true(dmamap_fault_injected(f->m, DMAMAP_FAULT_IOMMU_PGTABLE) > before);
					enomem++;
				}
				sa = stats(f->d);
				assert_stats_equal(&sa, &sb);
			} else {
				assert_false(busy);
				for (unsigned i = 0; i < n; i++)
					model[first + i] = pa + i * PG;
				ok_maps++;
			}
		} else {
			unsigned long before = dmamap_fault_injected(f->m, DMAMAP_FAULT_IOMMU_PGTABLE);
			size_t expect = 0, got = iommu_unmap(f->d, iova, n * PG);

			while (expect < n * PG && model[first + expect / PG])
				expect += PG;
			assert_int_equal(got % PG, 0);
			assert_true(got <= expect);
			if (got < expect) /* only when a split could not get its tables */
				assert_true(dmamap_fault_injected(f->m, DMAMAP_FAULT_IOMMU_PGTABLE) > before);
			for (size_t i = 0; i < got / PG; i++)
				model[first + i] = 0;
		}
		for (unsigned i = 0; i < WIN_PAGES; i++) {
			assert_int_equal(iommu_iova_to_phys(f->d, WIN_BASE + i * PG), model[i]);
			mapped += model[i] ? PG : 0;
		}
		assert_int_equal(stats(f->d).mapped_bytes, mapped);
	}
	assert_int_equal(dmamap_fault_inject(f->m, DMAMAP_FAULT_IOMMU_PGTABLE, 0, 0), 0);
	assert_true(dmamap_fault_injected(f->m, DMAMAP_FAULT_IOMMU_PGTABLE) > 0);
	assert_true(enomem > 0);
	assert_true(ok_maps > 0);
	for (unsigned i = 0; i < WIN_PAGES; i++)
		if (model[i])
			assert_int_equal(iommu_unmap(f->d, WIN_BASE + i * PG, PG), PG);
	assert_empty(f->d);
	assert_int_equal(f->cap.reports, 0);
	free(model);
}

/* ------------------------------------------------------- the device side */

struct fault_rec {
	unsigned long calls;
	struct iommu_domain *domain;
	struct device *dev;
	unsigned long iova;
	int flags;
	void *token;
};

static int record_fault(struct iommu_domain *domain, struct device *dev, unsigned long iova, int flags, void *token)
{
	struct fault_rec *r = token;

	r->calls++;
	r->domain = domain;
	r->dev = dev;
	r->iova = iova;
	r->flags = flags;
	r->token = token;
	return 0;
}

struct devfx {
	struct fx f;
	struct device dev;     /* attached */
	struct device raw;     /* not attached: reads RAM by physical address */
};

static int dev_setup(void **state)
{
	struct devfx *x = calloc(1, sizeof(*x));

	assert_non_null(x);
	fx_init(&x->f);
	assert_int_equal(dmamap_device_init(&x->dev, x->f.m, "iommu-dev"), 0);
	assert_int_equal(dmamap_device_init(&x->raw, x->f.m, "raw-dev"), 0);
	assert_int_equal(iommu_attach_device(x->f.d, &x->dev), 0);
	assert_ptr_equal(x->dev.dmamap.iommu_domain, x->f.d);
	*state = x;
	return 0;
}

static int dev_teardown(void **state)
{
	struct devfx *x = *state;
	struct capture c;

	if (x->dev.dmamap.iommu_domain)
		iommu_detach_device(x->f.d, &x->dev);
	dmamap_device_release(&x->dev);
	dmamap_device_release(&x->raw);
	iommu_domain_free(x->f.d);
	capture_stop(x->f.m);
	capture_start(&c, x->f.m);
	test_machine_destroy(x->f.m);
	assert_int_equal(c.by_kind[DMAMAP_REPORT_LEAK], 0);
	assert_int_equal(c.reports, 0);
	free(x);
	return 0;
}

#define NPAGES 64
#define DEV_IOVA 0x10000000UL

/* 64 separately allocated pages mapped at consecutive IOVAs in a scrambled order */
struct scattered {
	struct page *pg[NPAGES];
	unsigned at[NPAGES]; /* IOVA page i is pg[at[i]] */
};

static void scatter_map(struct devfx *x, struct scattered *s, int prot)
{
	for (unsigned i = 0; i < NPAGES; i++) {
		s->pg[i] = dmamap_alloc_pages(x->f.m, GFP_KERNEL, 0);
		assert_non_null(s->pg[i]);
		s->at[i] = (i * 37u) % NPAGES;
	}
	for (unsigned i = 0; i < NPAGES; i++)
		assert_int_equal(iommu_map(x->f.d, DEV_IOVA + i * PG, page_to_phys(s->pg[s->at[i]]), PG, prot), 0);
}

static void scatter_unmap(struct devfx *x, struct scattered *s)
{
	assert_int_equal(iommu_unmap(x->f.d, DEV_IOVA, NPAGES * PG), NPAGES * PG);
	for (unsigned i = 0; i < NPAGES; i++)
		dmamap_free_pages(s->pg[i], 0);
	assert_empty(x->f.d);
}

static void test_device_reads_scattered_pages_as_one_range(void **state)
{
	struct devfx *x = *state;
	struct scattered s;
	u8 *ref = malloc(NPAGES * PG), *got = malloc(NPAGES * PG);

	assert_non_null(ref);
	assert_non_null(got);
	scatter_map(x, &s, IOMMU_READ);
	/* not physically contiguous in IOVA order */
	assert_int_not_equal(page_to_phys(s.pg[s.at[1]]), page_to_phys(s.pg[s.at[0]]) + PG);
	fill_pattern(ref, NPAGES * PG, 17);
	for (unsigned i = 0; i < NPAGES; i++) {
		struct page *p = s.pg[s.at[i]];

		memcpy(page_address(p), ref + i * PG, PG);
		dmamap_cache_clean(x->f.m, DMAMAP_CACHE_INNER, page_to_phys(p), PAGE_SIZE);
	}
	memset(got, 0, NPAGES * PG);
	assert_int_equal(dmamap_dev_read(&x->dev, DEV_IOVA, got, NPAGES * PG), 0);
	assert_memory_equal(got, ref, NPAGES * PG);
	/* an unaligned read across page boundaries */
	memset(got, 0, NPAGES * PG);
	assert_int_equal(dmamap_dev_read(&x->dev, DEV_IOVA + 5 * PG - 100, got, 3 * PG + 200), 0);
	assert_memory_equal(got, ref + 5 * PG - 100, 3 * PG + 200);
	assert_int_equal(stats(x->f.d).faults, 0);
	scatter_unmap(x, &s);
	free(ref);
	free(got);
}

static void test_device_writes_land_in_the_mapped_pages(void **state)
{
	struct devfx *x = *state;
	struct scattered s;
	u8 *src = malloc(NPAGES * PG), *got = malloc(PG);

	assert_non_null(src);
	assert_non_null(got);
	scatter_map(x, &s, IOMMU_READ | IOMMU_WRITE);
	fill_pattern(src, NPAGES * PG, 99);
	assert_int_equal(dmamap_dev_write(&x->dev, DEV_IOVA, src, NPAGES * PG), 0);
	for (unsigned i = 0; i < NPAGES; i++) {
		assert_int_equal(dmamap_dev_read(&x->raw, page_to_phys(s.pg[s.at[i]]), got, PG), 0);
		assert_memory_equal(got, src + i * PG, PG);
	}
	scatter_unmap(x, &s);
	free(src);
	free(got);
}

static void test_device_read_of_unmapped_iova_faults(void **state)
{
	struct devfx *x = *state;
	struct fault_rec rec = { 0 };
	struct dmamap_iommu_stats st;
	struct scattered s;
	u8 buf[3 * PAGE_SIZE], untouched[3 * PAGE_SIZE];

	scatter_map(x, &s, IOMMU_READ);
	iommu_set_fault_handler(x->f.d, record_fault, &rec);
	memset(buf, 0xa5, sizeof(buf));
	memcpy(untouched, buf, sizeof(buf));

	/* wholly unmapped */
	assert_int_equal(dmamap_dev_read(&x->dev, 0x20000000, buf, 64), -EFAULT);
	assert_int_equal(rec.calls, 1);
	assert_ptr_equal(rec.domain, x->f.d);
	assert_ptr_equal(rec.dev, &x->dev);
	assert_int_equal(rec.iova, 0x20000000);
	assert_int_equal(rec.flags, IOMMU_FAULT_READ);
	assert_ptr_equal(rec.token, &rec);
	st = stats(x->f.d);
	assert_int_equal(st.faults, 1);
	assert_int_equal(st.last_fault_iova, 0x20000000);
	assert_int_equal(st.last_fault_flags, IOMMU_FAULT_READ);
	assert_int_equal(x->f.cap.by_kind[DMAMAP_REPORT_IOMMU_FAULT], 1);
	assert_int_equal(x->f.cap.last_kind, DMAMAP_REPORT_IOMMU_FAULT);
	assert_string_equal(x->f.cap.last_device, "iommu-dev");
	assert_non_null(strstr(x->f.cap.last, "0x20000000"));
	assert_memory_equal(buf, untouched, sizeof(buf));

	/* running off the end of the mapping: the first unmapped page faults, nothing copied */
	assert_int_equal(dmamap_dev_read(&x->dev, DEV_IOVA + (NPAGES - 2) * PG, buf, sizeof(buf)), -EFAULT);
	assert_int_equal(rec.calls, 2);
	assert_int_equal(rec.iova, DEV_IOVA + NPAGES * PG);
	assert_int_equal(stats(x->f.d).faults, 2);
	assert_int_equal(x->f.cap.by_kind[DMAMAP_REPORT_IOMMU_FAULT], 2);
	assert_memory_equal(buf, untouched, sizeof(buf));

	/* no handler: still recorded and reported */
	iommu_set_fault_handler(x->f.d, NULL, NULL);
	assert_int_equal(dmamap_dev_read(&x->dev, 0x30000000, buf, 1), -EFAULT);
	assert_int_equal(rec.calls, 2);
	assert_int_equal(stats(x->f.d).faults, 3);
	assert_int_equal(stats(x->f.d).last_fault_iova, 0x30000000);
	assert_int_equal(x->f.cap.by_kind[DMAMAP_REPORT_IOMMU_FAULT], 3);
	assert_memory_equal(buf, untouched, sizeof(buf));

	scatter_unmap(x, &s);
}

static void test_device_write_through_read_only_mapping_faults(void **state)
{
	struct devfx *x = *state;
	struct fault_rec rec = { 0 };
	struct page *p = dmamap_alloc_pages(x->f.m, GFP_KERNEL, 0);
	u8 before[PAGE_SIZE], after[PAGE_SIZE], src[PAGE_SIZE], back[PAGE_SIZE];

	assert_non_null(p);
	assert_int_equal(iommu_map(x->f.d, DEV_IOVA, page_to_phys(p), PG, IOMMU_READ), 0);
	iommu_set_fault_handler(x->f.d, record_fault, &rec);
	assert_int_equal(dmamap_dev_read(&x->raw, page_to_phys(p), before, PG), 0);
	memset(src, 0x3c, sizeof(src));

	assert_int_equal(dmamap_dev_write(&x->dev, DEV_IOVA + 16, src, 32), -EFAULT);
	assert_int_equal(rec.calls, 1);
	assert_int_equal(rec.iova, DEV_IOVA + 16);
	assert_int_equal(rec.flags, IOMMU_FAULT_WRITE);
	assert_ptr_equal(rec.dev, &x->dev);
	assert_int_equal(stats(x->f.d).last_fault_flags, IOMMU_FAULT_WRITE);
	assert_int_equal(x->f.cap.by_kind[DMAMAP_REPORT_IOMMU_FAULT], 1);
	assert_non_null(strstr(x->f.cap.last, "write"));
	assert_int_equal(dmamap_dev_read(&x->raw, page_to_phys(p), after, PG), 0);
	assert_memory_equal(before, after, PG);

	/* reading through it works */
	assert_int_equal(dmamap_dev_read(&x->dev, DEV_IOVA, back, PG), 0);
	assert_memory_equal(back, before, PG);
	assert_int_equal(rec.calls, 1);

	/* a write-only mapping refuses reads, takes writes */
	assert_int_equal(iommu_unmap(x->f.d, DEV_IOVA, PG), PG);
	assert_int_equal(iommu_map(x->f.d, DEV_IOVA, page_to_phys(p), PG, IOMMU_WRITE), 0);
	assert_int_equal(dmamap_dev_read(&x->dev, DEV_IOVA, back, 8), -EFAULT);
	assert_int_equal(rec.flags, IOMMU_FAULT_READ);
	assert_int_equal(dmamap_dev_write(&x->dev, DEV_IOVA, src, PG), 0);
	assert_int_equal(dmamap_dev_read(&x->raw, page_to_phys(p), after, PG), 0);
	assert_memory_equal(after, src, PG);

	assert_int_equal(iommu_unmap(x->f.d, DEV_IOVA, PG), PG);
	dmamap_free_pages(p, 0);
}

/* ------------------------------------------------------------- the IOTLB */

/* @n pages of fresh memory holding pattern @seed, as the device reads it. */
static struct page *iotlb_pages(struct devfx *x, unsigned order, unsigned seed)
{
	struct page *p = dmamap_alloc_pages(x->f.m, GFP_KERNEL, order);

	assert_non_null(p);
	fill_pattern(page_address(p), PG << order, seed);
	dmamap_cache_clean(x->f.m, DMAMAP_CACHE_INNER, page_to_phys(p), PAGE_SIZE << order);
	return p;
}

/* The last report was a use of a stale IOTLB entry left by the unmap at @unmap_line. */
static void assert_stale_use(struct devfx *x, int unmap_line, unsigned long iova)
{
	const struct captured *r = &x->f.cap.rec_last;
	char at[32];

	assert_int_equal(r->kind, DMAMAP_REPORT_DEV_UNMAPPED);
	assert_int_equal(r->category, DMAMAP_REPORT_DEVICE_FAULT);
	assert_string_equal(r->device, "iommu-dev");
	assert_int_equal(r->map_line, unmap_line);
	assert_non_null(strstr(r->map_file, "test-iommu.c"));
	assert_int_equal(r->bus_addr, iova);
	snprintf(at, sizeof(at), "test-iommu.c:%d", unmap_line);
	assert_non_null(strstr(r->message, "stale IOTLB entry"));
	assert_non_null(strstr(r->message, at));
	assert_non_null(strstr(r->message, "iommu_iotlb_sync()"));
}

/*
 * After iommu_unmap_fast() the tables no longer map the pages, but the
 * device still reaches them through the IOTLB until iommu_iotlb_sync() of
 * the gather: reads see the old pages, writes land in them, each reported
 * as a stale entry's use naming the unmap's line; no fault. After the sync
 * it faults as at any unmapped IOVA, and nothing moves.
 */
static void test_unmap_fast_leaves_stale_iotlb_until_sync(void **state)
{
	struct devfx *x = *state;
	struct page *p = iotlb_pages(x, 1, 41);
	struct iommu_iotlb_gather g;
	struct fault_rec rec = { 0 };
	u8 got[64], src[16], before[2 * PAGE_SIZE], after[2 * PAGE_SIZE];
	int line;

	iommu_set_fault_handler(x->f.d, record_fault, &rec);
	assert_int_equal(iommu_map(x->f.d, DEV_IOVA, page_to_phys(p), 2 * PG, IOMMU_READ | IOMMU_WRITE), 0);
	iommu_iotlb_gather_init(&g);
	assert_int_equal(g.start, ~0UL);
	assert_int_equal(g.end, 0);
	assert_int_equal(iommu_unmap_fast(x->f.d, DEV_IOVA, 2 * PG, &g), 2 * PG); line = __LINE__;
	assert_int_equal(g.start, DEV_IOVA);
	assert_int_equal(g.end, DEV_IOVA + 2 * PG - 1);
	assert_unmapped(x->f.d, DEV_IOVA, 2 * PG);
	assert_int_equal(x->f.cap.reports, 0);
	assert_machine_consistent(x->f.m);

	/* the old pages, through the stale entries */
	assert_int_equal(dmamap_dev_read(&x->dev, DEV_IOVA + 0x100, got, sizeof(got)), 0);
	assert_memory_equal(got, (u8 *)page_address(p) + 0x100, sizeof(got));
	assert_int_equal(x->f.cap.reports, 1);
	assert_stale_use(x, line, DEV_IOVA + 0x100);
	memset(src, 0xc3, sizeof(src));
	assert_int_equal(dmamap_dev_write(&x->dev, DEV_IOVA + PG + 8, src, sizeof(src)), 0);
	assert_int_equal(x->f.cap.reports, 2);
	assert_int_equal(x->f.cap.by_kind[DMAMAP_REPORT_DEV_UNMAPPED], 2);
	assert_stale_use(x, line, DEV_IOVA + PG + 8);
	assert_int_equal(stats(x->f.d).faults, 0);
	assert_int_equal(rec.calls, 0);
	/* the write is in the old page (the CPU's own view is behind its cache: ask RAM) */
	assert_int_equal(dmamap_dev_read(&x->raw, page_to_phys(p) + PG + 8, got, sizeof(src)), 0);
	assert_memory_equal(got, src, sizeof(src));
	assert_int_equal(dmamap_dev_read(&x->raw, page_to_phys(p), before, sizeof(before)), 0);
	x->f.cap.reports = 0; /* the raw reads: the checker's (no mapping of that device there) */
	memset(x->f.cap.by_kind, 0, sizeof(x->f.cap.by_kind));

	/* the sync invalidates what the gather holds, and empties it */
	iommu_iotlb_sync(x->f.d, &g);
	assert_int_equal(g.start, ~0UL);
	assert_int_equal(g.end, 0);
	memset(got, 0x5a, sizeof(got));
	assert_int_equal(dmamap_dev_read(&x->dev, DEV_IOVA + 0x100, got, sizeof(got)), -EFAULT);
	for (size_t i = 0; i < sizeof(got); i++)
		assert_int_equal(got[i], 0x5a);
	assert_int_equal(dmamap_dev_write(&x->dev, DEV_IOVA + PG, src, sizeof(src)), -EFAULT);
	assert_int_equal(rec.calls, 2);
	assert_int_equal(rec.iova, DEV_IOVA + PG);
	assert_int_equal(rec.flags, IOMMU_FAULT_WRITE);
	assert_int_equal(stats(x->f.d).faults, 2);
	assert_int_equal(x->f.cap.by_kind[DMAMAP_REPORT_IOMMU_FAULT], 2);
	assert_int_equal(x->f.cap.reports, 2);
	assert_int_equal(dmamap_dev_read(&x->raw, page_to_phys(p), after, sizeof(after)), 0);
	assert_memory_equal(before, after, sizeof(before));
	/* a second sync of the emptied gather changes nothing */
	iommu_iotlb_sync(x->f.d, &g);
	x->f.cap.reports = 0;
	dmamap_free_pages(p, 1);
}

/*
 * One gather over two unmaps with a mapped hole between: each stale page
 * names its own unmap, the hole is translated by the tables without a
 * report, and the one sync invalidates both ends.
 */
static void test_gather_spans_two_unmaps(void **state)
{
	struct devfx *x = *state;
	struct page *p = iotlb_pages(x, 2, 42);
	struct iommu_iotlb_gather g;
	u8 got[4 * PAGE_SIZE];
	int first, last;

	assert_int_equal(iommu_map(x->f.d, DEV_IOVA, page_to_phys(p), 4 * PG, IOMMU_READ), 0);
	iommu_iotlb_gather_init(&g);
	assert_int_equal(iommu_unmap_fast(x->f.d, DEV_IOVA + 3 * PG, PG, &g), PG); last = __LINE__;
	assert_int_equal(iommu_unmap_fast(x->f.d, DEV_IOVA, PG, &g), PG); first = __LINE__;
	assert_int_equal(g.start, DEV_IOVA);
	assert_int_equal(g.end, DEV_IOVA + 4 * PG - 1);

	assert_int_equal(dmamap_dev_read(&x->dev, DEV_IOVA + PG, got, 2 * PG), 0);
	assert_memory_equal(got, (u8 *)page_address(p) + PG, 2 * PG);
	assert_int_equal(x->f.cap.reports, 0);
	assert_int_equal(dmamap_dev_read(&x->dev, DEV_IOVA + 3 * PG, got, PG), 0);
	assert_memory_equal(got, (u8 *)page_address(p) + 3 * PG, PG);
	assert_int_equal(x->f.cap.reports, 1);
	assert_stale_use(x, last, DEV_IOVA + 3 * PG);
	assert_int_equal(dmamap_dev_read(&x->dev, DEV_IOVA, got, 16), 0);
	assert_int_equal(x->f.cap.reports, 2);
	assert_stale_use(x, first, DEV_IOVA);

	iommu_iotlb_sync(x->f.d, &g);
	assert_int_equal(dmamap_dev_read(&x->dev, DEV_IOVA, got, 16), -EFAULT);
	assert_int_equal(dmamap_dev_read(&x->dev, DEV_IOVA + 3 * PG, got, 16), -EFAULT);
	assert_int_equal(dmamap_dev_read(&x->dev, DEV_IOVA + PG, got, 2 * PG), 0);
	assert_memory_equal(got, (u8 *)page_address(p) + PG, 2 * PG);
	assert_int_equal(x->f.cap.by_kind[DMAMAP_REPORT_IOMMU_FAULT], 2);
	assert_int_equal(x->f.cap.reports, 4);
	assert_int_equal(iommu_unmap(x->f.d, DEV_IOVA + PG, 2 * PG), 2 * PG);
	x->f.cap.reports = 0;
	dmamap_free_pages(p, 2);
}

/*
 * iommu_flush_iotlb_all() invalidates every stale entry, wherever its unmap
 * was and whatever gather it went to; the gathers are not touched. One page
 * unmapped out of a 2 MiB block leaves the rest of the block as it was.
 */
static void test_flush_iotlb_all_invalidates_every_gather(void **state)
{
	struct devfx *x = *state;
	struct page *p = iotlb_pages(x, 9, 43);
	struct iommu_iotlb_gather g1, g2;
	u8 got[64];
	int line;

	assert_int_equal(iommu_map(x->f.d, 0x40000000, page_to_phys(p), 2 * MiB, IOMMU_READ), 0);
	assert_int_equal(stats(x->f.d).block_entries, 1);
	iommu_iotlb_gather_init(&g1);
	iommu_iotlb_gather_init(&g2);
	assert_int_equal(iommu_unmap_fast(x->f.d, 0x40000000 + 5 * PG, PG, &g1), PG); line = __LINE__;
	assert_int_equal(iommu_unmap_fast(x->f.d, 0x40000000 + MiB, PG, &g2), PG);
	/* the neighbours through the split tables, no report; across into the stale page, one */
	assert_int_equal(dmamap_dev_read(&x->dev, 0x40000000 + 4 * PG, got, sizeof(got)), 0);
	assert_int_equal(x->f.cap.reports, 0);
	assert_int_equal(dmamap_dev_read(&x->dev, 0x40000000 + 5 * PG - 32, got, sizeof(got)), 0);
	assert_memory_equal(got, (u8 *)page_address(p) + 5 * PG - 32, sizeof(got));
	assert_int_equal(x->f.cap.reports, 1);
	assert_stale_use(x, line, 0x40000000 + 5 * PG);

	iommu_flush_iotlb_all(x->f.d);
	assert_int_equal(g1.start, 0x40000000 + 5 * PG);
	assert_int_equal(g2.end, 0x40000000 + MiB + PG - 1);
	assert_int_equal(dmamap_dev_read(&x->dev, 0x40000000 + 5 * PG, got, 1), -EFAULT);
	assert_int_equal(dmamap_dev_read(&x->dev, 0x40000000 + MiB, got, 1), -EFAULT);
	assert_int_equal(dmamap_dev_read(&x->dev, 0x40000000 + 6 * PG, got, sizeof(got)), 0);
	assert_memory_equal(got, (u8 *)page_address(p) + 6 * PG, sizeof(got));
	assert_int_equal(x->f.cap.by_kind[DMAMAP_REPORT_IOMMU_FAULT], 2);
	assert_int_equal(x->f.cap.reports, 3);
	/* syncing the gathers now finds nothing left */
	iommu_iotlb_sync(x->f.d, &g1);
	iommu_iotlb_sync(x->f.d, &g2);
	assert_int_equal(x->f.cap.reports, 3);
	assert_int_equal(iommu_unmap(x->f.d, 0x40000000, 5 * PG), 5 * PG);
	assert_int_equal(iommu_unmap(x->f.d, 0x40000000 + 6 * PG, MiB - 6 * PG), MiB - 6 * PG);
	assert_int_equal(iommu_unmap(x->f.d, 0x40000000 + MiB + PG, MiB - PG), MiB - PG);
	assert_empty(x->f.d);
	x->f.cap.reports = 0;
	dmamap_free_pages(p, 9);
}

/*
 * A new iommu_map() over a stale IOVA does not invalidate it: the device
 * still reaches the old page. iommu_unmap() invalidates what it unmaps at
 * once, the stale entry with it.
 */
static void test_map_over_stale_iova_keeps_old_page_until_unmap(void **state)
{
	struct devfx *x = *state;
	struct page *old = iotlb_pages(x, 0, 44), *new = iotlb_pages(x, 0, 45);
	struct iommu_iotlb_gather g;
	u8 got[32];
	int line;

	assert_int_equal(iommu_map(x->f.d, DEV_IOVA, page_to_phys(old), PG, IOMMU_READ), 0);
	iommu_iotlb_gather_init(&g);
	assert_int_equal(iommu_unmap_fast(x->f.d, DEV_IOVA, PG, &g), PG); line = __LINE__;
	assert_int_equal(iommu_map(x->f.d, DEV_IOVA, page_to_phys(new), PG, IOMMU_READ), 0);
	assert_int_equal(iommu_iova_to_phys(x->f.d, DEV_IOVA), page_to_phys(new));
	assert_int_equal(dmamap_dev_read(&x->dev, DEV_IOVA, got, sizeof(got)), 0);
	assert_memory_equal(got, page_address(old), sizeof(got));
	assert_int_equal(x->f.cap.reports, 1);
	assert_stale_use(x, line, DEV_IOVA);

	assert_int_equal(iommu_unmap(x->f.d, DEV_IOVA, PG), PG);
	assert_int_equal(dmamap_dev_read(&x->dev, DEV_IOVA, got, sizeof(got)), -EFAULT);
	assert_int_equal(x->f.cap.by_kind[DMAMAP_REPORT_IOMMU_FAULT], 1);
	/* mapped again: the new page, nothing stale left */
	assert_int_equal(iommu_map(x->f.d, DEV_IOVA, page_to_phys(new), PG, IOMMU_READ), 0);
	assert_int_equal(dmamap_dev_read(&x->dev, DEV_IOVA, got, sizeof(got)), 0);
	assert_memory_equal(got, page_address(new), sizeof(got));
	assert_int_equal(x->f.cap.reports, 2);
	assert_int_equal(iommu_unmap(x->f.d, DEV_IOVA, PG), PG);
	x->f.cap.reports = 0;
	dmamap_free_pages(old, 0);
	dmamap_free_pages(new, 0);
}

/*
 * A stale page inside a block mapped over it later: an access running
 * from the block's pages into the stale one takes each part from where the
 * IOTLB says, the new pages and then the old one, with one report.
 */
static void test_stale_page_inside_a_new_block(void **state)
{
	struct devfx *x = *state;
	struct page *p = iotlb_pages(x, 9, 47), *q = iotlb_pages(x, 9, 48);
	struct iommu_iotlb_gather g;
	u8 got[64];
	int line;

	assert_int_equal(iommu_map(x->f.d, 0x40000000, page_to_phys(p), 2 * MiB, IOMMU_READ), 0);
	iommu_iotlb_gather_init(&g);
	assert_int_equal(iommu_unmap_fast(x->f.d, 0x40000000 + 5 * PG, PG, &g), PG); line = __LINE__;
	assert_int_equal(iommu_unmap(x->f.d, 0x40000000, 5 * PG), 5 * PG);
	assert_int_equal(iommu_unmap(x->f.d, 0x40000000 + 6 * PG, 2 * MiB - 6 * PG), 2 * MiB - 6 * PG);
	assert_int_equal(iommu_map(x->f.d, 0x40000000, page_to_phys(q), 2 * MiB, IOMMU_READ), 0);
	assert_int_equal(stats(x->f.d).block_entries, 1);
	assert_int_equal(dmamap_dev_read(&x->dev, 0x40000000 + 5 * PG - 32, got, sizeof(got)), 0);
	assert_memory_equal(got, (u8 *)page_address(q) + 5 * PG - 32, 32);
	assert_memory_equal(got + 32, (u8 *)page_address(p) + 5 * PG, 32);
	assert_int_equal(x->f.cap.reports, 1);
	assert_stale_use(x, line, 0x40000000 + 5 * PG);
	iommu_iotlb_sync(x->f.d, &g);
	assert_int_equal(dmamap_dev_read(&x->dev, 0x40000000 + 5 * PG - 32, got, sizeof(got)), 0);
	assert_memory_equal(got, (u8 *)page_address(q) + 5 * PG - 32, sizeof(got));
	assert_int_equal(x->f.cap.reports, 1);
	assert_int_equal(iommu_unmap(x->f.d, 0x40000000, 2 * MiB), 2 * MiB);
	x->f.cap.reports = 0;
	dmamap_free_pages(p, 9);
	dmamap_free_pages(q, 9);
}

/*
 * Pages mapped for dma_iova_link() stay out of the IOTLB until synced: the
 * device faults there (the handler called, nothing moved) with a report
 * naming the link's line and the missing dma_iova_sync(), even inside one
 * 2 MiB block of which only the first page was synced. An IOTLB invalidate
 * (a gather's sync, a flush of all) makes them usable too.
 */
static void test_unsynced_pages_fault_until_synced(void **state)
{
	struct devfx *x = *state;
	struct page *p = iotlb_pages(x, 9, 46);
	struct iommu_iotlb_gather g = { .start = 0x40000000 + PG, .end = 0x40000000 + 2 * PG - 1 };
	struct fault_rec rec = { 0 };
	const struct captured *r = &x->f.cap.rec_last;
	u8 got[64], untouched[64];

	iommu_set_fault_handler(x->f.d, record_fault, &rec);
	assert_int_equal(dmamap_iommu_map_unsynced(x->f.d, 0x40000000, page_to_phys(p), 2 * MiB, IOMMU_READ,
						   "drv.c", 7), 0);
	assert_int_equal(stats(x->f.d).block_entries, 1);
	assert_int_equal(iommu_iova_to_phys(x->f.d, 0x40000000), page_to_phys(p));
	memset(got, 0x77, sizeof(got));
	memcpy(untouched, got, sizeof(got));
	assert_int_equal(dmamap_dev_read(&x->dev, 0x40000000, got, sizeof(got)), -EFAULT);
	assert_memory_equal(got, untouched, sizeof(got));
	assert_int_equal(rec.calls, 1);
	assert_int_equal(rec.iova, 0x40000000);
	assert_int_equal(stats(x->f.d).faults, 1);
	assert_int_equal(x->f.cap.reports, 1);
	assert_int_equal(r->kind, DMAMAP_REPORT_IOMMU_FAULT);
	assert_int_equal(r->map_line, 7);
	assert_string_equal(r->map_file, "drv.c");
	assert_non_null(strstr(r->message, "dma_iova_link at drv.c:7"));
	assert_non_null(strstr(r->message, "dma_iova_sync() missing"));

	/* the first page synced: it is read; a read running on into the second faults, whole */
	dmamap_iommu_sync_map(x->f.d, 0x40000000, PG);
	assert_int_equal(dmamap_dev_read(&x->dev, 0x40000000 + PG - sizeof(got), got, sizeof(got)), 0);
	assert_memory_equal(got, (u8 *)page_address(p) + PG - sizeof(got), sizeof(got));
	memcpy(untouched, got, sizeof(got));
	assert_int_equal(dmamap_dev_read(&x->dev, 0x40000000 + PG - 16, got, sizeof(got)), -EFAULT);
	assert_memory_equal(got, untouched, sizeof(got));
	assert_int_equal(rec.calls, 2);
	assert_int_equal(rec.iova, 0x40000000 + PG);
	assert_int_equal(x->f.cap.reports, 2);

	/* an invalidate of the second page by a gather's sync, then of all */
	iommu_iotlb_sync(x->f.d, &g);
	assert_int_equal(dmamap_dev_read(&x->dev, 0x40000000 + PG - 16, got, sizeof(got)), 0);
	assert_memory_equal(got, (u8 *)page_address(p) + PG - 16, sizeof(got));
	assert_int_equal(dmamap_dev_read(&x->dev, 0x40000000 + 2 * PG, got, 1), -EFAULT);
	assert_int_equal(x->f.cap.reports, 3);
	iommu_flush_iotlb_all(x->f.d);
	assert_int_equal(dmamap_dev_read(&x->dev, 0x40000000 + 2 * MiB - sizeof(got), got, sizeof(got)), 0);
	assert_memory_equal(got, (u8 *)page_address(p) + 2 * MiB - sizeof(got), sizeof(got));
	assert_int_equal(x->f.cap.reports, 3);
	assert_int_equal(rec.calls, 3);

	/* mapped unsynced again, then unmapped: nothing of it is left to sync (an access faults as unmapped) */
	assert_int_equal(iommu_unmap(x->f.d, 0x40000000, 2 * MiB), 2 * MiB);
	assert_int_equal(dmamap_iommu_map_unsynced(x->f.d, 0x40000000, page_to_phys(p), 2 * MiB, IOMMU_READ,
						   "drv.c", 8), 0);
	dmamap_iommu_sync_map(x->f.d, 0x40000000 + PG, PG);
	assert_machine_consistent(x->f.m);
	assert_int_equal(iommu_unmap(x->f.d, 0x40000000, 2 * MiB), 2 * MiB);
	assert_machine_consistent(x->f.m);
	assert_int_equal(dmamap_dev_read(&x->dev, 0x40000000, got, 1), -EFAULT);
	assert_null(strstr(r->message, "drv.c"));
	assert_non_null(strstr(r->message, "unmapped"));
	assert_int_equal(iommu_map(x->f.d, 0x40000000, page_to_phys(p), 2 * MiB, IOMMU_READ), 0);
	assert_int_equal(dmamap_dev_read(&x->dev, 0x40000000, got, sizeof(got)), 0);
	assert_int_equal(x->f.cap.reports, 4);
	assert_int_equal(iommu_unmap(x->f.d, 0x40000000, 2 * MiB), 2 * MiB);
	x->f.cap.reports = 0;
	dmamap_free_pages(p, 9);
}

/*
 * Refused with a report, nothing changed: a NULL gather or domain. A stale
 * entry left at the domain's free, or at its machine's destroy, is a leak
 * at the unmap's line.
 */
static void test_unmap_fast_refusals_and_leaks(void **state)
{
	struct dmamap_machine *m = test_machine(16, simple_machine);
	struct iommu_domain *d = iommu_domain_alloc(m), *kept = iommu_domain_alloc(m);
	struct iommu_iotlb_gather g;
	const struct captured *r;
	struct capture c;
	char at[32];
	int line, kept_line;

	(void)state;
	assert_non_null(d);
	assert_non_null(kept);
	capture_start(&c, m);
	assert_int_equal(iommu_map(d, 0x100000, RAM, 2 * PG, IOMMU_READ), 0);
	assert_int_equal(iommu_unmap_fast(d, 0x100000, PG, NULL), 0); line = __LINE__;
	assert_int_equal(c.last_kind, DMAMAP_REPORT_BAD_INPUT);
	assert_int_equal(c.last_line, line);
	assert_non_null(strstr(c.last, "NULL gather"));
	assert_int_equal(iommu_iova_to_phys(d, 0x100000), RAM);
	iommu_iotlb_sync(d, NULL);
	assert_int_equal(c.reports, 2);
	assert_non_null(strstr(c.last, "NULL gather"));
	iommu_iotlb_gather_init(&g);
	capture_start(&c, NULL);
	iommu_iotlb_sync(NULL, &g);
	iommu_flush_iotlb_all(NULL);
	assert_int_equal(iommu_unmap_fast(NULL, 0x100000, PG, &g), 0);
	assert_int_equal(c.by_kind[DMAMAP_REPORT_BAD_INPUT], 3);
	assert_int_equal(g.start, ~0UL);
	capture_start(&c, m);

	/* left stale at the free: one leak at the unmap's line */
	assert_int_equal(iommu_unmap_fast(d, 0x100000, 2 * PG, &g), 2 * PG); line = __LINE__;
	iommu_domain_free(d);
	assert_int_equal(c.reports, 1);
	r = capture_find(&c, DMAMAP_REPORT_LEAK);
	assert_non_null(r);
	assert_int_equal(r->line, line);
	snprintf(at, sizeof(at), "test-iommu.c:%d", line);
	assert_non_null(strstr(r->message, at));
	assert_non_null(strstr(r->message, "stale IOTLB"));
	assert_non_null(strstr(r->message, "8192 bytes"));

	/* and at the machine's destroy, after the domain's own leak */
	assert_int_equal(iommu_map(kept, 0x200000, RAM, PG, IOMMU_READ), 0);
	iommu_iotlb_gather_init(&g);
	assert_int_equal(iommu_unmap_fast(kept, 0x200000, PG, &g), PG); kept_line = __LINE__;
	test_machine_destroy(m);
	assert_int_equal(c.by_kind[DMAMAP_REPORT_LEAK], 3);
	assert_int_equal(c.rec[2].line, kept_line);
	assert_non_null(strstr(c.rec[2].message, "machine destroy"));
	assert_non_null(strstr(c.rec[2].message, "iommu_unmap_fast"));
	capture_start(&c, NULL);
	iommu_domain_free(kept);
	capture_stop(NULL);
}

static void test_attach_errors(void **state)
{
	struct devfx *x = *state;
	struct iommu_domain *other = iommu_domain_alloc(x->f.m);
	struct dmamap_machine *m2 = test_machine(16, NULL);
	struct device uninit, foreign;
	struct capture c2;

	assert_non_null(other);
	/* already attached: to this domain or another */
	assert_int_equal(iommu_attach_device(x->f.d, &x->dev), -EBUSY);
	assert_int_equal(iommu_attach_device(other, &x->dev), -EBUSY);
	assert_ptr_equal(x->dev.dmamap.iommu_domain, x->f.d);
	assert_int_equal(stats(x->f.d).attached_devices, 1);
	assert_int_equal(stats(other).attached_devices, 0);

	memset(&uninit, 0, sizeof(uninit));
	assert_int_equal(iommu_attach_device(x->f.d, &uninit), -EINVAL);
	assert_null(uninit.dmamap.iommu_domain);
	assert_int_equal(iommu_attach_device(x->f.d, NULL), -EINVAL);
	assert_int_equal(iommu_attach_device(NULL, &x->raw), -EINVAL);
	assert_null(x->raw.dmamap.iommu_domain);
	assert_int_equal(x->f.cap.by_kind[DMAMAP_REPORT_BAD_INPUT], 3);

	capture_start(&c2, m2);
	memset(&foreign, 0, sizeof(foreign));
	assert_int_equal(dmamap_device_init(&foreign, m2, "foreign"), 0);
	assert_int_equal(iommu_attach_device(x->f.d, &foreign), -EINVAL);
	assert_null(foreign.dmamap.iommu_domain);
	assert_int_equal(stats(x->f.d).attached_devices, 1);
	assert_int_equal(x->f.cap.by_kind[DMAMAP_REPORT_BAD_INPUT], 4);
	assert_int_equal(c2.reports, 0);

	/* two devices in one domain */
	assert_int_equal(iommu_attach_device(x->f.d, &x->raw), 0);
	assert_int_equal(stats(x->f.d).attached_devices, 2);
	iommu_detach_device(x->f.d, &x->raw);
	assert_null(x->raw.dmamap.iommu_domain);
	assert_int_equal(stats(x->f.d).attached_devices, 1);

	dmamap_device_release(&foreign);
	capture_stop(m2);
	test_machine_destroy(m2);
	iommu_domain_free(other);
}

static void test_detach_of_device_not_attached_is_reported(void **state)
{
	struct devfx *x = *state;
	struct iommu_domain *other = iommu_domain_alloc(x->f.m);

	assert_non_null(other);
	iommu_detach_device(x->f.d, &x->raw);
	assert_int_equal(x->f.cap.by_kind[DMAMAP_REPORT_API_MISUSE], 1);
	assert_string_equal(x->f.cap.last_device, "raw-dev");
	/* attached elsewhere: reported, left attached */
	iommu_detach_device(other, &x->dev);
	assert_int_equal(x->f.cap.by_kind[DMAMAP_REPORT_API_MISUSE], 2);
	assert_ptr_equal(x->dev.dmamap.iommu_domain, x->f.d);
	assert_int_equal(stats(x->f.d).attached_devices, 1);
	assert_int_equal(stats(other).attached_devices, 0);

	/* detach, then detach again */
	iommu_detach_device(x->f.d, &x->dev);
	assert_null(x->dev.dmamap.iommu_domain);
	assert_int_equal(stats(x->f.d).attached_devices, 0);
	assert_int_equal(x->f.cap.by_kind[DMAMAP_REPORT_API_MISUSE], 2);
	iommu_detach_device(x->f.d, &x->dev);
	assert_int_equal(x->f.cap.by_kind[DMAMAP_REPORT_API_MISUSE], 3);
	iommu_detach_device(NULL, &x->dev);
	assert_int_equal(x->f.cap.reports, 4);
	iommu_domain_free(other);
}

static void test_domain_free_detaches_attached_devices(void **state)
{
	struct devfx *x = *state;
	struct page *p = dmamap_alloc_pages(x->f.m, GFP_KERNEL, 0);
	u8 buf[64];

	assert_non_null(p);
	memset(page_address(p), 0x77, PG);
	dmamap_cache_clean(x->f.m, DMAMAP_CACHE_INNER, page_to_phys(p), PAGE_SIZE);
	/* attached: the physical address is not mapped in the domain */
	assert_int_equal(dmamap_dev_read(&x->dev, page_to_phys(p), buf, sizeof(buf)), -EFAULT);
	assert_int_equal(x->f.cap.by_kind[DMAMAP_REPORT_IOMMU_FAULT], 1);

	assert_int_equal(iommu_attach_device(x->f.d, &x->raw), 0);
	assert_int_equal(iommu_map(x->f.d, DEV_IOVA, page_to_phys(p), PG, IOMMU_READ), 0);
	iommu_domain_free(x->f.d);
	x->f.d = NULL;
	assert_int_equal(x->f.cap.by_kind[DMAMAP_REPORT_API_MISUSE], 2);
	assert_null(x->dev.dmamap.iommu_domain);
	assert_null(x->raw.dmamap.iommu_domain);

	/* the device reads RAM by physical address again */
	memset(buf, 0, sizeof(buf));
	assert_int_equal(dmamap_dev_read(&x->dev, page_to_phys(p), buf, sizeof(buf)), 0);
	for (size_t i = 0; i < sizeof(buf); i++)
		assert_int_equal(buf[i], 0x77);
	/* and may be attached to a new domain */
	x->f.d = iommu_domain_alloc(x->f.m);
	assert_non_null(x->f.d);
	assert_int_equal(iommu_attach_device(x->f.d, &x->dev), 0);
	dmamap_free_pages(p, 0);
}

/* -------------------------------------------------------------- threads */

struct worker {
	struct iommu_domain *d;
	unsigned id;
	unsigned iterations;
	unsigned long bad;
};

static void *worker_fn(void *arg)
{
	struct worker *w = arg;
	/* pages interleaved with the other thread's in shared level-3 tables, and a block each in a shared level-2 table */
	const u64 pbase = 0x01000000, bbase = 0x40000000;

	for (unsigned it = 0; it < w->iterations; it++) {
		unsigned k = it % 32;
		u64 iova = pbase + (2 * k + w->id) * PG, pa = RAM + (2 * k + w->id) * PG;
		u64 biova = bbase + (u64)w->id * 2 * MiB, bpa = RAM + (4 + 2 * (u64)w->id) * MiB;

		if (iommu_map(w->d, iova, pa, PG, IOMMU_READ) != 0)
			w->bad++;
		if (iommu_map(w->d, biova, bpa, 2 * MiB, IOMMU_WRITE) != 0)
			w->bad++;
		if (iommu_iova_to_phys(w->d, iova + 5) != pa + 5)
			w->bad++;
		if (iommu_iova_to_phys(w->d, biova + (it % 512) * PG) != bpa + (it % 512) * PG)
			w->bad++;
		if (iommu_map(w->d, iova, pa, PG, IOMMU_READ) != -EEXIST)
			w->bad++;
		if (iommu_unmap(w->d, biova + 3 * PG, PG) != PG) /* split */
			w->bad++;
		if (iommu_unmap(w->d, iova, PG) != PG)
			w->bad++;
		if (iommu_iova_to_phys(w->d, iova) != 0)
			w->bad++;
		if (iommu_unmap(w->d, biova, 3 * PG) != 3 * PG || iommu_unmap(w->d, biova + 4 * PG, 2 * MiB - 4 * PG) !=
									   2 * MiB - 4 * PG)
			w->bad++;
		if (iommu_iova_to_phys(w->d, biova + 4 * PG) != 0)
			w->bad++;
	}
	return NULL;
}

static void test_two_threads_map_unmap_disjoint_ranges(void **state)
{
	struct fx *f = *state;
	struct worker w[2];
	pthread_t t[2];

	for (unsigned i = 0; i < 2; i++) {
		w[i] = (struct worker){ .d = f->d, .id = i, .iterations = under_valgrind() ? 300 : 3000 };
		assert_int_equal(pthread_create(&t[i], NULL, worker_fn, &w[i]), 0);
	}
	for (unsigned i = 0; i < 2; i++) {
		assert_int_equal(pthread_join(t[i], NULL), 0);
		assert_int_equal(w[i].bad, 0);
	}
	assert_empty(f->d);
	assert_int_equal(f->cap.reports, 0);
}

/* A domain alive when its machine is destroyed: reported then, refused after, freed by its free. */
static void test_domain_outlives_its_machine(void **state)
{
	struct dmamap_machine *m = test_machine(16, NULL);
	struct iommu_domain *d = iommu_domain_alloc(m);
	struct dmamap_iommu_stats st;
	struct device dev = { 0 };
	struct capture c, cg;

	(void)state;
	assert_non_null(d);
	assert_int_equal(iommu_map(d, 0x100000, RAM, 2 * PG, IOMMU_READ), 0);
	capture_start(&c, m);
	test_machine_destroy(m);
	assert_int_equal(c.by_kind[DMAMAP_REPORT_LEAK], 1);
	capture_start(&cg, NULL);
	assert_int_equal(iommu_map(d, 0x200000, RAM, PG, IOMMU_READ), -ENODEV);
	assert_int_equal(iommu_unmap(d, 0x100000, PG), 0);
	assert_int_equal(iommu_iova_to_phys(d, 0x100000), 0);
	assert_int_equal(iommu_attach_device(d, &dev), -ENODEV);
	iommu_detach_device(d, &dev);
	iommu_set_fault_handler(d, NULL, NULL);
	assert_int_equal(cg.by_kind[DMAMAP_REPORT_API_MISUSE], 6);
	dmamap_iommu_stats(d, &st); /* the last counts, still readable */
	assert_int_equal(st.mapped_bytes, 2 * PG);
	iommu_domain_free(d);
	assert_int_equal(cg.by_kind[DMAMAP_REPORT_API_MISUSE], 7);
	assert_int_equal(cg.reports, 7);
	capture_stop(NULL);
}

/* A domain freed twice -- its machine destroyed in between or not -- is reported, and nothing of it is read. */
static void test_domain_freed_twice_refused(void **state)
{
	struct dmamap_machine *m = test_machine(16, NULL);
	struct iommu_domain *d = iommu_domain_alloc(m);
	unsigned long before;
	struct capture c, cg;

	(void)state;
	assert_non_null(d);
	capture_start(&c, m);
	iommu_domain_free(d);
	capture_start(&cg, NULL);
	before = dmamap_report_count(NULL);
	iommu_domain_free(d);
	assert_int_equal(cg.reports, 1);
	assert_int_equal(cg.last_kind, DMAMAP_REPORT_BAD_INPUT);
	assert_non_null(strstr(cg.last, "iommu_domain_free("));
	assert_non_null(strstr(cg.last, "): no live IOMMU domain (freed already?): nothing done"));
	assert_int_equal(dmamap_report_count(NULL), before + 1);
	assert_int_equal(c.reports, 0);

	d = iommu_domain_alloc(m);
	assert_non_null(d);
	assert_int_equal(iommu_map(d, 0x100000, RAM, PG, IOMMU_READ), 0);
	test_machine_destroy(m);
	assert_int_equal(c.by_kind[DMAMAP_REPORT_LEAK], 1);
	capture_start(&cg, NULL);
	iommu_domain_free(d);
	assert_int_equal(cg.reports, 1);
	assert_int_equal(cg.last_kind, DMAMAP_REPORT_API_MISUSE);
	iommu_domain_free(d);
	assert_int_equal(cg.reports, 2);
	assert_int_equal(cg.last_kind, DMAMAP_REPORT_BAD_INPUT);
	assert_non_null(strstr(cg.last, "no live IOMMU domain (freed already?)"));
	capture_stop(NULL);
}

/* The last report, one more than @n before, is the refusal of @call on a pointer that names no live domain. */
static void assert_refused_freed(const struct capture *cg, unsigned long n, const char *call)
{
	char want[64];

	snprintf(want, sizeof(want), "%s(", call);
	assert_int_equal(cg->reports, n + 1);
	assert_int_equal(cg->last_kind, DMAMAP_REPORT_BAD_INPUT);
	assert_non_null(strstr(cg->last, want));
	assert_non_null(strstr(cg->last, "): no live IOMMU domain (freed already?): nothing done"));
}

/*
 * Every call taking a domain, given @d that is no live domain: one
 * process-wide report each, naming the call, and the kernel's failure
 * value; @dev (not attached) stays unattached, @attached stays attached to
 * its domain.
 */
static void assert_domain_calls_refused(struct capture *cg, struct iommu_domain *d, struct device *dev,
					struct device *attached, struct iommu_domain *attached_to)
{
	struct fault_rec rec = { 0 };
	struct iommu_iotlb_gather g;
	struct dmamap_iommu_stats st;
	unsigned long n = cg->reports;

	assert_int_equal(iommu_map(d, 0x300000, RAM, PG, IOMMU_READ), -EINVAL);
	assert_refused_freed(cg, n++, "iommu_map");
	assert_int_equal(iommu_unmap(d, 0x100000, PG), 0);
	assert_refused_freed(cg, n++, "iommu_unmap");
	iommu_iotlb_gather_init(&g);
	assert_int_equal(iommu_unmap_fast(d, 0x100000, PG, &g), 0);
	assert_refused_freed(cg, n++, "iommu_unmap_fast");
	assert_int_equal(g.start, ~0UL);
	g.start = 0x100000;
	g.end = 0x100000 + PG - 1;
	iommu_iotlb_sync(d, &g);
	assert_refused_freed(cg, n++, "iommu_iotlb_sync");
	assert_int_equal(g.start, 0x100000); /* the gather as it was */
	iommu_flush_iotlb_all(d);
	assert_refused_freed(cg, n++, "iommu_flush_iotlb_all");
	assert_int_equal(iommu_iova_to_phys(d, 0x100000), 0);
	assert_refused_freed(cg, n++, "iommu_iova_to_phys");
	assert_int_equal(iommu_attach_device(d, dev), -EINVAL);
	assert_refused_freed(cg, n++, "iommu_attach_device");
	iommu_detach_device(d, attached);
	assert_refused_freed(cg, n++, "iommu_detach_device");
	iommu_set_fault_handler(d, record_fault, &rec);
	assert_refused_freed(cg, n++, "iommu_set_fault_handler");
	memset(&st, 0x5a, sizeof(st));
	dmamap_iommu_stats(d, &st);
	assert_refused_freed(cg, n++, "dmamap_iommu_stats");
	assert_int_equal(st.table_pages, 0);
	assert_int_equal(st.mapped_bytes, 0);
	assert_int_equal(st.attached_devices, 0);
	iommu_domain_free(d);
	assert_refused_freed(cg, n++, "iommu_domain_free");
	assert_int_equal(rec.calls, 0);
	assert_int_equal(cg->by_kind[DMAMAP_REPORT_BAD_INPUT], cg->reports); /* nothing else said */
	if (attached_to) {
		assert_ptr_equal(dev->dmamap.iommu_domain, NULL);
		assert_ptr_equal(iommu_get_domain_for_dev(attached), attached_to);
	}
}

/*
 * Each call on a domain freed already -- its machine destroyed in between,
 * before the free or after it, or not -- is refused with one process-wide
 * report naming it, returns what the kernel's callers expect of a failure,
 * and reads nothing of the domain: another domain, its mappings, the device
 * attached to it and the machine's reports stay as they were.
 */
static void test_domain_used_after_free_refused(void **state)
{
	struct dmamap_machine *m = test_machine(16, simple_machine);
	struct iommu_domain *other = iommu_domain_alloc(m), *d = iommu_domain_alloc(m), *d2, *d3;
	struct dmamap_iommu_stats before, after;
	struct device a = { 0 }, b = { 0 };
	struct page *p = dmamap_alloc_pages(m, GFP_KERNEL, 0);
	struct capture c, cg;
	u8 buf[64];

	(void)state;
	assert_non_null(other);
	assert_non_null(d);
	assert_non_null(p);
	assert_int_equal(dmamap_device_init(&a, m, "a"), 0);
	assert_int_equal(dmamap_device_init(&b, m, "b"), 0);
	memset(page_address(p), 0x6b, PG);
	dmamap_cache_clean(m, DMAMAP_CACHE_INNER, page_to_phys(p), PAGE_SIZE);
	assert_int_equal(iommu_map(other, 0x100000, page_to_phys(p), PG, IOMMU_READ), 0);
	assert_int_equal(iommu_attach_device(other, &a), 0);
	assert_int_equal(iommu_map(d, 0x100000, RAM, 2 * PG, IOMMU_READ | IOMMU_WRITE), 0);
	assert_int_equal(iommu_attach_device(d, &b), 0);
	capture_start(&c, m);
	iommu_domain_free(d); /* b still attached: said, and detached */
	assert_int_equal(c.reports, 1);
	assert_null(b.dmamap.iommu_domain);
	before = stats(other);

	capture_start(&cg, NULL);
	assert_domain_calls_refused(&cg, d, &b, &a, other);
	capture_stop(NULL);
	assert_int_equal(c.reports, 1);
	after = stats(other);
	assert_stats_equal(&before, &after);
	assert_int_equal(iommu_iova_to_phys(other, 0x100000 + 5), page_to_phys(p) + 5);
	memset(buf, 0, sizeof(buf));
	assert_int_equal(dmamap_dev_read(&a, 0x100000, buf, sizeof(buf)), 0);
	for (size_t i = 0; i < sizeof(buf); i++)
		assert_int_equal(buf[i], 0x6b);
	assert_int_equal(c.reports, 1);
	assert_machine_consistent(m);

	/* freed before its machine is destroyed, and after (the free only said the machine is gone) */
	iommu_detach_device(other, &a);
	assert_int_equal(iommu_unmap(other, 0x100000, PG), PG);
	iommu_domain_free(other);
	dmamap_device_release(&a);
	dmamap_device_release(&b);
	dmamap_free_pages(p, 0);
	d2 = iommu_domain_alloc(m);
	d3 = iommu_domain_alloc(m);
	assert_non_null(d2);
	assert_non_null(d3);
	assert_int_equal(iommu_map(d3, 0x100000, RAM, PG, IOMMU_READ), 0);
	iommu_domain_free(d2);
	assert_int_equal(c.reports, 1);
	test_machine_destroy(m);
	assert_int_equal(c.by_kind[DMAMAP_REPORT_LEAK], 1); /* d3 */
	capture_start(&cg, NULL);
	iommu_domain_free(d3);
	assert_int_equal(cg.reports, 1);
	assert_int_equal(cg.last_kind, DMAMAP_REPORT_API_MISUSE);
	capture_start(&cg, NULL);
	assert_domain_calls_refused(&cg, d2, &a, &b, NULL);
	assert_domain_calls_refused(&cg, d3, &a, &b, NULL);
	assert_int_equal(cg.reports, 22);
	capture_stop(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_domain_alloc_empty, setup, teardown),
		cmocka_unit_test_setup_teardown(test_domain_alloc_fails_under_injection, setup, teardown),
		cmocka_unit_test_setup_teardown(test_map_single_pages, setup, teardown),
		cmocka_unit_test_setup_teardown(test_block_mapping_uses_2mib_blocks, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unmap_page_inside_block_splits, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unmap_range_splitting_both_ends, setup, teardown),
		cmocka_unit_test(test_1gib_block_split_twice),
		cmocka_unit_test_setup_teardown(test_map_overlap_eexist_changes_nothing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_map_einval_changes_nothing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unmap_stops_at_hole, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unmap_bad_arguments_unmap_nothing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_tables_kept_after_unmap, setup, teardown),
		cmocka_unit_test_setup_teardown(test_map_enomem_unwinds_at_each_table, setup, teardown),
		cmocka_unit_test_setup_teardown(test_split_enomem_changes_nothing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_translate_permissions, setup, teardown),
		cmocka_unit_test_setup_teardown(test_random_against_model_with_injection, setup, teardown),
		cmocka_unit_test_setup_teardown(test_device_reads_scattered_pages_as_one_range, dev_setup, dev_teardown),
		cmocka_unit_test_setup_teardown(test_device_writes_land_in_the_mapped_pages, dev_setup, dev_teardown),
		cmocka_unit_test_setup_teardown(test_device_read_of_unmapped_iova_faults, dev_setup, dev_teardown),
		cmocka_unit_test_setup_teardown(test_device_write_through_read_only_mapping_faults, dev_setup,
						dev_teardown),
		cmocka_unit_test_setup_teardown(test_unmap_fast_leaves_stale_iotlb_until_sync, dev_setup, dev_teardown),
		cmocka_unit_test_setup_teardown(test_gather_spans_two_unmaps, dev_setup, dev_teardown),
		cmocka_unit_test_setup_teardown(test_flush_iotlb_all_invalidates_every_gather, dev_setup, dev_teardown),
		cmocka_unit_test_setup_teardown(test_map_over_stale_iova_keeps_old_page_until_unmap, dev_setup,
						dev_teardown),
		cmocka_unit_test_setup_teardown(test_stale_page_inside_a_new_block, dev_setup, dev_teardown),
		cmocka_unit_test_setup_teardown(test_unsynced_pages_fault_until_synced, dev_setup, dev_teardown),
		cmocka_unit_test(test_unmap_fast_refusals_and_leaks),
		cmocka_unit_test_setup_teardown(test_attach_errors, dev_setup, dev_teardown),
		cmocka_unit_test_setup_teardown(test_detach_of_device_not_attached_is_reported, dev_setup, dev_teardown),
		cmocka_unit_test_setup_teardown(test_domain_free_detaches_attached_devices, dev_setup, dev_teardown),
		cmocka_unit_test_setup_teardown(test_two_threads_map_unmap_disjoint_ranges, setup, teardown),
		cmocka_unit_test(test_domain_outlives_its_machine),
		cmocka_unit_test(test_domain_freed_twice_refused),
		cmocka_unit_test(test_domain_used_after_free_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
