/* SPDX-License-Identifier: MIT */
/*
 * Scatterlists (src/scatterlist.c): entries, chains, tables, copies, and the
 * generic sg operations of patch 3, checked through a recording ops table
 * plugged into a device, then through the real API (dma_map_sg on arm_dma_ops).
 */
#include <limits.h>

#include "common.h"
#include "internal.h"

#define PG ((size_t)PAGE_SIZE)

struct fixture {
	struct dmamap_machine *m;
	struct device dev;
	struct capture cap;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	f->m = test_machine(16, simple_machine); /* the copies are checked against RAM through inner cleans */
	/* ... by a device reading physical addresses, mapped or not: no checker */
	assert_int_equal(dmamap_checker_enable(f->m, false), 0);
	dmamap_machine_set_current(f->m);
	capture_start(&f->cap, f->m);
	assert_int_equal(dmamap_device_init(&f->dev, f->m, "sgdev"), 0);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	dmamap_device_release(&f->dev);
	capture_stop(f->m);
	test_machine_destroy(f->m);
	free(f);
	return 0;
}

static struct page *pages_of(struct fixture *f, gfp_t gfp, unsigned order)
{
	struct page *p = dmamap_alloc_pages(f->m, gfp, order);

	assert_non_null(p);
	return p;
}

/* The @i-th page after @p, by frame number. */
static struct page *nth_page(struct fixture *f, struct page *p, unsigned long i)
{
	struct page *q = dmamap_pfn_to_page(f->m, page_to_pfn(p) + i);

	assert_non_null(q);
	return q;
}

/*
 * A chained list of three arrays, 4 + 3 + 5 slots: the last slot of the first
 * two is a chain link, so it holds 3 + 2 + 5 = 10 data entries.
 */
#define CHAIN_DATA 10
struct chain3 {
	struct scatterlist a[4], b[3], c[5];
	struct scatterlist *data[CHAIN_DATA];
};

static void chain3_init(struct chain3 *ch)
{
	unsigned n = 0;

	memset(ch, 0xa5, sizeof(*ch));
	sg_init_table(ch->a, 4);
	sg_init_table(ch->b, 3);
	sg_init_table(ch->c, 5);
	sg_chain(ch->a, 4, ch->b);
	sg_chain(ch->b, 3, ch->c);
	for (unsigned i = 0; i < 3; i++)
		ch->data[n++] = &ch->a[i];
	for (unsigned i = 0; i < 2; i++)
		ch->data[n++] = &ch->b[i];
	for (unsigned i = 0; i < 5; i++)
		ch->data[n++] = &ch->c[i];
	assert_int_equal(n, CHAIN_DATA);
}

/* ------------------------------------------------------------- entries */

static void test_init_table_marks_only_last(void **state)
{
	struct scatterlist sgl[6];   /* one spare slot: init must not touch it */

	(void)state;
	memset(sgl, 0xff, sizeof(sgl));
	sg_init_table(sgl, 5);
	assert_int_equal(sgl[5].page_link, ~0UL);
	assert_int_equal(sgl[5].length, ~0U);
	for (unsigned i = 0; i < 5; i++) {
		assert_int_equal(sgl[i].page_link, i == 4 ? SG_END_BIT : 0);
		assert_int_equal(sgl[i].offset, 0);
		assert_int_equal(sgl[i].length, 0);
		assert_int_equal(sgl[i].dma_address, 0);
		assert_int_equal(sgl[i].dma_length, 0);
		assert_int_equal(sg_is_last(&sgl[i]), i == 4);
		assert_false(sg_is_chain(&sgl[i]));
	}
	assert_ptr_equal(sg_next(&sgl[3]), &sgl[4]);
	assert_null(sg_next(&sgl[4]));
	assert_int_equal(sg_nents(sgl), 5);

	/* one entry: it is the last */
	sg_init_table(sgl, 1);
	assert_true(sg_is_last(&sgl[0]));
	assert_int_equal(sg_nents(sgl), 1);
}

static void test_set_page_round_trip(void **state)
{
	struct fixture *f = *state;
	struct page *p = pages_of(f, GFP_KERNEL, 1);
	struct page *p1 = nth_page(f, p, 1);
	u8 *va = page_address(p);
	struct scatterlist sg[2];

	sg_init_table(sg, 2);
	sg_set_page(&sg[1], p, 100, 200);
	assert_ptr_equal(sg_page(&sg[1]), p);
	assert_int_equal(sg[1].offset, 200);
	assert_int_equal(sg[1].length, 100);
	assert_true(sg_is_last(&sg[1]));          /* the end mark survives */
	assert_ptr_equal(sg_virt(&sg[1]), va + 200);
	assert_int_equal(sg_phys(&sg[1]), page_to_phys(p) + 200);

	/* sg_set_buf: the page holding the address, the offset within it */
	sg_set_buf(&sg[0], va + PG + 17, 33);
	assert_ptr_equal(sg_page(&sg[0]), p1);
	assert_ptr_equal(sg_page(&sg[0]), virt_to_page(va + PG));
	assert_int_equal(sg[0].offset, 17);
	assert_int_equal(sg[0].length, 33);
	assert_false(sg_is_last(&sg[0]));
	assert_ptr_equal(sg_virt(&sg[0]), va + PG + 17);
	assert_int_equal(sg_phys(&sg[0]), page_to_phys(p) + PG + 17);
	assert_int_equal(sg_phys(&sg[0]), virt_to_phys(va + PG + 17));

	/* sg_init_one: a one-entry list */
	memset(sg, 0x5a, sizeof(sg));
	sg_init_one(&sg[0], va + 4095, 1);
	assert_true(sg_is_last(&sg[0]));
	assert_ptr_equal(sg_page(&sg[0]), p);
	assert_int_equal(sg[0].offset, 4095);
	assert_int_equal(sg[0].length, 1);
	assert_int_equal(sg[0].dma_address, 0);
	assert_int_equal(sg_nents(&sg[0]), 1);
	assert_ptr_equal(sg_virt(&sg[0]), va + 4095);

	assert_int_equal(f->cap.reports, 0);
	dmamap_free_pages(p, 1);
}

static void test_set_buf_bad_address(void **state)
{
	struct capture pc;
	char host[64];
	struct scatterlist sg;
	unsigned long before = dmamap_report_count(NULL);

	(void)state;
	capture_start(&pc, NULL);
	sg_init_one(&sg, host + 3, 10);
	capture_stop(NULL);
	/* reported, the entry has no page but keeps offset and length */
	assert_int_equal(pc.by_kind[DMAMAP_REPORT_BAD_ADDRESS], 1);
	assert_int_equal(dmamap_report_count(NULL), before + 1);
	assert_null(sg_page(&sg));
	assert_true(sg_is_last(&sg));
	assert_int_equal(sg.offset, ((uintptr_t)(host + 3)) & ~PAGE_MASK);
	assert_int_equal(sg.length, 10);
	assert_null(sg_virt(&sg));
	assert_int_equal(sg_phys(&sg), ~(phys_addr_t)0);
}

static void test_chain_three_tables(void **state)
{
	struct chain3 ch;
	struct scatterlist *s;
	int i;

	(void)state;
	chain3_init(&ch);
	for (i = 0; i < CHAIN_DATA; i++)
		ch.data[i]->length = 1000 + (unsigned)i;

	assert_true(sg_is_chain(&ch.a[3]));
	assert_true(sg_is_chain(&ch.b[2]));
	assert_ptr_equal(sg_chain_ptr(&ch.a[3]), ch.b);
	assert_ptr_equal(sg_chain_ptr(&ch.b[2]), ch.c);
	assert_false(sg_is_last(&ch.a[3]));
	assert_false(sg_is_last(&ch.b[2]));   /* sg_init_table marked it: sg_chain cleared it */
	assert_true(sg_is_last(&ch.c[4]));

	/* for_each_sg visits exactly the data entries, in order */
	for_each_sg(ch.a, s, CHAIN_DATA, i) {
		assert_ptr_equal(s, ch.data[i]);
		assert_int_equal(s->length, 1000 + (unsigned)i);
	}
	assert_int_equal(i, CHAIN_DATA);

	/* sg_next by hand, to the end */
	s = ch.a;
	for (i = 0; s; i++, s = sg_next(s))
		assert_ptr_equal(s, ch.data[i]);
	assert_int_equal(i, CHAIN_DATA);

	assert_int_equal(sg_nents(ch.a), CHAIN_DATA);
	assert_int_equal(sg_nents(ch.b), 7);
	assert_int_equal(sg_nents(ch.c), 5);
	assert_int_equal(sg_nents(NULL), 0);
	assert_ptr_equal(sg_last(ch.a, CHAIN_DATA), &ch.c[4]);
	assert_ptr_equal(sg_last(ch.a, 1), &ch.a[0]);
	assert_ptr_equal(sg_last(ch.a, 3), &ch.a[2]);
	assert_ptr_equal(sg_last(ch.a, 4), &ch.b[0]);   /* the link is skipped */
	assert_ptr_equal(sg_last(ch.a, 6), &ch.c[0]);
	assert_ptr_equal(sg_last(ch.a, 1000), &ch.c[4]); /* a list shorter than asked stops at its end */
	assert_null(sg_last(ch.a, 0));

	/* mark_end shortens the list; unmark restores it */
	sg_mark_end(&ch.b[0]);
	assert_int_equal(sg_nents(ch.a), 4);
	sg_unmark_end(&ch.b[0]);
	assert_int_equal(sg_nents(ch.a), CHAIN_DATA);
}

static void test_entry_bad_input_reported(void **state)
{
	struct capture pc;
	struct scatterlist sg[2];

	(void)state;
	memset(sg, 0x77, sizeof(sg));
	capture_start(&pc, NULL);
	sg_init_table(NULL, 3);
	sg_init_table(sg, 0);
	sg_chain(sg, 0, sg);
	sg_chain(NULL, 2, sg);
	sg_chain(sg, 2, NULL);
	sg_set_buf(NULL, NULL, 0);
	sg_init_one(NULL, NULL, 0);
	capture_stop(NULL);
	assert_int_equal(pc.by_kind[DMAMAP_REPORT_BAD_INPUT], 7);
	/* nothing written */
	for (size_t i = 0; i < sizeof(sg); i++)
		assert_int_equal(((u8 *)sg)[i], 0x77);
	assert_null(sg_virt(NULL));
	assert_int_equal(sg_phys(NULL), ~(phys_addr_t)0);
	assert_null(sg_last(NULL, 3));
}

/* -------------------------------------------------------------- tables */

static unsigned chunks_for(unsigned n)
{
	unsigned c = 0;

	while (n) {
		c++;
		n -= n > SG_MAX_SINGLE_ALLOC ? SG_MAX_SINGLE_ALLOC - 1 : n;
	}
	return c;
}

static void check_table(struct sg_table *t, unsigned n)
{
	struct scatterlist *s, *last = NULL;
	unsigned arrays = 1;
	int i;

	assert_non_null(t->sgl);
	assert_int_equal(t->orig_nents, n);
	assert_int_equal(t->nents, n);
	for_each_sg(t->sgl, s, (int)n, i) {
		assert_non_null(s);
		assert_false(sg_is_chain(s));
		assert_null(sg_page(s));
		assert_int_equal(s->length, 0);
		assert_int_equal(s->offset, 0);
		assert_int_equal(sg_is_last(s), (unsigned)i == n - 1);
		if (last && s != last + 1) {
			/* a new array: the slot after the previous entry was its chain link */
			assert_true(sg_is_chain(last + 1));
			assert_ptr_equal(sg_chain_ptr(last + 1), s);
			assert_int_equal((unsigned)i % (SG_MAX_SINGLE_ALLOC - 1), 0);
			arrays++;
		}
		last = s;
	}
	assert_int_equal((unsigned)i, n);
	assert_int_equal(arrays, chunks_for(n));
	assert_int_equal(sg_nents(t->sgl), (int)n);
	assert_ptr_equal(sg_last(t->sgl, n), last);
}

static void test_alloc_table_sizes(void **state)
{
	struct fixture *f = *state;
	static const unsigned sizes[] = {1, 2, SG_MAX_SINGLE_ALLOC - 1, SG_MAX_SINGLE_ALLOC, SG_MAX_SINGLE_ALLOC + 1,
					 2 * SG_MAX_SINGLE_ALLOC, 1000};

	for (unsigned k = 0; k < ARRAY_SIZE(sizes); k++) {
		struct sg_table t;
		unsigned long before = dmamap_fault_attempts(f->m, DMAMAP_FAULT_HOST_ALLOC);

		memset(&t, 0xcc, sizeof(t));
		assert_int_equal(sg_alloc_table(&t, sizes[k], GFP_KERNEL), 0);
		/* one host allocation per array, on the current machine */
		assert_int_equal(dmamap_fault_attempts(f->m, DMAMAP_FAULT_HOST_ALLOC) - before, chunks_for(sizes[k]));
		check_table(&t, sizes[k]);
		sg_free_table(&t);
		assert_null(t.sgl);
		assert_int_equal(t.nents, 0);
		assert_int_equal(t.orig_nents, 0);
	}
	assert_int_equal(chunks_for(1000), 8);
	assert_int_equal(chunks_for(SG_MAX_SINGLE_ALLOC), 1);
	assert_int_equal(chunks_for(SG_MAX_SINGLE_ALLOC + 1), 2);
	assert_int_equal(f->cap.reports, 0);
}

static void test_alloc_table_bad_input(void **state)
{
	struct fixture *f = *state;
	struct capture pc;
	struct sg_table t, saved;

	memset(&t, 0x3c, sizeof(t));
	saved = t;
	assert_int_equal(sg_alloc_table(&t, 0, GFP_KERNEL), -EINVAL);
	assert_memory_equal(&t, &saved, sizeof(t));   /* refused: unchanged */

	capture_start(&pc, NULL);
	assert_int_equal(sg_alloc_table(NULL, 4, GFP_KERNEL), -EINVAL);
	capture_stop(NULL);
	assert_int_equal(pc.by_kind[DMAMAP_REPORT_BAD_INPUT], 1);

	/* freeing an empty or NULL table is harmless */
	memset(&t, 0, sizeof(t));
	sg_free_table(&t);
	sg_free_table(NULL);
	assert_int_equal(f->cap.reports, 0);
}

static void test_alloc_table_fault_each_chunk(void **state)
{
	struct fixture *f = *state;
	static const unsigned sizes[] = {SG_MAX_SINGLE_ALLOC + 1, 1000};

	for (unsigned z = 0; z < ARRAY_SIZE(sizes); z++) {
		unsigned n = sizes[z], chunks = chunks_for(n);

		for (unsigned k = 1; k <= chunks; k++) {
			struct sg_table t;
			unsigned long inj = dmamap_fault_injected(f->m, DMAMAP_FAULT_HOST_ALLOC);

			memset(&t, 0xcc, sizeof(t));
			assert_int_equal(dmamap_fault_inject(f->m, DMAMAP_FAULT_HOST_ALLOC, k, 0), 0);
			assert_int_equal(sg_alloc_table(&t, n, GFP_KERNEL), -ENOMEM);
			assert_int_equal(dmamap_fault_injected(f->m, DMAMAP_FAULT_HOST_ALLOC), inj + 1);
			/* left empty (valgrind / ASan check that the k-1 arrays were freed) */
			assert_null(t.sgl);
			assert_int_equal(t.nents, 0);
			assert_int_equal(t.orig_nents, 0);
			sg_free_table(&t);
		}
		/* a failure beyond the last array does not hit */
		{
			struct sg_table t;

			assert_int_equal(dmamap_fault_inject(f->m, DMAMAP_FAULT_HOST_ALLOC, chunks + 1, 0), 0);
			assert_int_equal(sg_alloc_table(&t, n, GFP_KERNEL), 0);
			check_table(&t, n);
			sg_free_table(&t);
			assert_int_equal(dmamap_fault_inject(f->m, DMAMAP_FAULT_HOST_ALLOC, 0, 0), 0);
		}
	}
}

static void test_alloc_table_from_pages(void **state)
{
	struct fixture *f = *state;
	struct page *blk = pages_of(f, GFP_KERNEL, 2);   /* 4 consecutive frames */
	struct page *q = pages_of(f, GFP_KERNEL, 0);
	struct page *big = pages_of(f, GFP_KERNEL, 3);
	struct page *pages[8];
	struct sg_table t;
	struct scatterlist *s;
	int i;

	/* p0 p1 p2 | q | p3: three runs */
	pages[0] = blk;
	pages[1] = nth_page(f, blk, 1);
	pages[2] = nth_page(f, blk, 2);
	pages[3] = q;
	pages[4] = nth_page(f, blk, 3);
	assert_true(page_to_pfn(q) + 1 != page_to_pfn(pages[4]) && page_to_pfn(pages[2]) + 1 != page_to_pfn(q));
	assert_int_equal(sg_alloc_table_from_pages(&t, pages, 5, 100, 4 * PG, GFP_KERNEL), 0);
	assert_int_equal(t.orig_nents, 3);
	assert_int_equal(sg_nents(t.sgl), 3);
	{
		static const unsigned offs[] = {100, 0, 0};
		const unsigned lens[] = {3 * PG - 100, PG, 100};
		struct page *const heads[] = {pages[0], q, pages[4]};

		for_each_sg(t.sgl, s, 3, i) {
			assert_ptr_equal(sg_page(s), heads[i]);
			assert_int_equal(s->offset, offs[i]);
			assert_int_equal(s->length, lens[i]);
		}
	}
	sg_free_table(&t);

	/* all consecutive: one entry; the data may end before the last page does */
	for (i = 0; i < 8; i++)
		pages[i] = nth_page(f, big, (unsigned long)i);
	assert_int_equal(sg_alloc_table_from_pages(&t, pages, 8, 10, 7 * PG + 1, GFP_KERNEL), 0);
	assert_int_equal(t.orig_nents, 1);
	assert_ptr_equal(sg_page(t.sgl), big);
	assert_int_equal(t.sgl->offset, 10);
	assert_int_equal(t.sgl->length, 7 * PG + 1);
	assert_true(sg_is_last(t.sgl));
	sg_free_table(&t);

	/* reversed order: nothing consecutive */
	for (i = 0; i < 8; i++)
		pages[i] = nth_page(f, big, 7 - (unsigned long)i);
	assert_int_equal(sg_alloc_table_from_pages(&t, pages, 8, 0, 8 * PG, GFP_KERNEL), 0);
	assert_int_equal(t.orig_nents, 8);
	for_each_sg(t.sgl, s, 8, i) {
		assert_ptr_equal(sg_page(s), pages[i]);
		assert_int_equal(s->length, PG);
		assert_int_equal(s->offset, 0);
	}
	sg_free_table(&t);

	/* two runs of 4 (0-3, then 4-7 after a break) */
	for (i = 0; i < 8; i++)
		pages[i] = nth_page(f, big, (unsigned long)(i < 4 ? i + 4 : i - 4));
	assert_int_equal(sg_alloc_table_from_pages(&t, pages, 8, 0, 8 * PG, GFP_KERNEL), 0);
	assert_int_equal(t.orig_nents, 2);
	assert_ptr_equal(sg_page(t.sgl), nth_page(f, big, 4));
	assert_int_equal(t.sgl->length, 4 * PG);
	assert_ptr_equal(sg_page(sg_next(t.sgl)), big);
	assert_int_equal(sg_next(t.sgl)->length, 4 * PG);
	sg_free_table(&t);

	/* host allocation failure: -ENOMEM, table empty */
	assert_int_equal(dmamap_fault_inject(f->m, DMAMAP_FAULT_HOST_ALLOC, 1, 0), 0);
	memset(&t, 0xcc, sizeof(t));
	assert_int_equal(sg_alloc_table_from_pages(&t, pages, 8, 0, 8 * PG, GFP_KERNEL), -ENOMEM);
	assert_null(t.sgl);
	assert_int_equal(t.orig_nents, 0);

	assert_int_equal(f->cap.reports, 0);
	dmamap_free_pages(blk, 2);
	dmamap_free_pages(q, 0);
	dmamap_free_pages(big, 3);
}

static void test_alloc_table_from_pages_bad_input(void **state)
{
	struct fixture *f = *state;
	struct page *big = pages_of(f, GFP_KERNEL, 1);
	struct page *pages[2] = {big, nth_page(f, big, 1)};
	struct page *holed[2] = {big, NULL};
	struct capture pc;
	struct sg_table t;
	unsigned long attempts = dmamap_fault_attempts(f->m, DMAMAP_FAULT_HOST_ALLOC);

	capture_start(&pc, NULL);
	assert_int_equal(sg_alloc_table_from_pages(NULL, pages, 2, 0, PG, GFP_KERNEL), -EINVAL);
	assert_int_equal(sg_alloc_table_from_pages(&t, NULL, 2, 0, PG, GFP_KERNEL), -EINVAL);
	assert_int_equal(sg_alloc_table_from_pages(&t, pages, 0, 0, PG, GFP_KERNEL), -EINVAL);
	assert_int_equal(sg_alloc_table_from_pages(&t, pages, 2, 0, 0, GFP_KERNEL), -EINVAL);
	assert_int_equal(sg_alloc_table_from_pages(&t, pages, 2, PG, PG, GFP_KERNEL), -EINVAL);
	assert_int_equal(sg_alloc_table_from_pages(&t, pages, 2, 1, 2 * PG, GFP_KERNEL), -EINVAL); /* beyond */
	assert_int_equal(sg_alloc_table_from_pages(&t, pages, 2, 0, PG, GFP_KERNEL), -EINVAL);     /* page 2 empty */
	assert_int_equal(sg_alloc_table_from_pages(&t, holed, 2, 0, 2 * PG, GFP_KERNEL), -EINVAL);
	capture_stop(NULL);
	assert_int_equal(pc.by_kind[DMAMAP_REPORT_BAD_INPUT], 8);
	/* refused before allocating anything */
	assert_int_equal(dmamap_fault_attempts(f->m, DMAMAP_FAULT_HOST_ALLOC), attempts);
	dmamap_free_pages(big, 1);
}

/* ------------------------------------------------------- sgl_alloc() */

static void test_sgl_alloc_entries(void **state)
{
	struct fixture *f = *state;
	unsigned long free0 = test_free_pages(f->m);
	unsigned long attempts = dmamap_fault_attempts(f->m, DMAMAP_FAULT_PAGE_ALLOC);
	u8 in[3 * 4096 + 100], out[sizeof(in)];
	struct scatterlist *sgl, *s;
	unsigned int nent = 0;
	int i;

	/* single pages: three whole ones and 100 bytes of a fourth */
	sgl = sgl_alloc(3 * PG + 100, GFP_KERNEL, &nent);
	assert_non_null(sgl);
	assert_int_equal(nent, 4);
	assert_int_equal(sg_nents(sgl), 4);
	assert_int_equal(dmamap_fault_attempts(f->m, DMAMAP_FAULT_PAGE_ALLOC) - attempts, 4);
	assert_int_equal(test_free_pages(f->m), free0 - 4);
	for_each_sg(sgl, s, 4, i) {
		assert_non_null(sg_page(s));
		assert_ptr_equal(dm_page_machine(sg_page(s)), f->m);
		assert_int_equal(s->offset, 0);
		assert_int_equal(s->length, i < 3 ? PG : 100);
		assert_int_equal(sg_is_last(s), i == 3);
	}
	/* the entries hold the bytes, in order */
	fill_pattern(in, sizeof(in), 41);
	assert_int_equal(sg_copy_from_buffer(sgl, nent, in, sizeof(in)), sizeof(in));
	assert_int_equal(sg_copy_to_buffer(sgl, nent, out, sizeof(out)), sizeof(out));
	assert_memory_equal(in, out, sizeof(in));
	sgl_free(sgl);
	assert_int_equal(test_free_pages(f->m), free0);

	/* blocks of two pages, with a spare entry for chaining; zeroed on request */
	nent = 0;
	sgl = sgl_alloc_order(5 * PG, 1, true, GFP_KERNEL | __GFP_ZERO, &nent);
	assert_non_null(sgl);
	assert_int_equal(nent, 3);
	assert_int_equal(sg_nents(sgl), 4);
	assert_int_equal(test_free_pages(f->m), free0 - 6);
	for_each_sg(sgl, s, 4, i) {
		if (i == 3) {
			assert_null(sg_page(s)); /* the spare entry */
			assert_int_equal(s->length, 0);
			assert_true(sg_is_last(s));
			break;
		}
		assert_int_equal(page_to_pfn(sg_page(s)) % 2, 0);
		assert_int_equal(s->offset, 0);
		assert_int_equal(s->length, i < 2 ? 2 * PG : PG);
	}
	memset(out, 0xee, sizeof(out));
	assert_int_equal(sg_pcopy_to_buffer(sgl, nent, out, PG, 4 * PG), PG);
	for (size_t k = 0; k < PG; k++)
		assert_int_equal(out[k], 0);
	sgl_free_order(sgl, 1);
	assert_int_equal(test_free_pages(f->m), free0);

	/* no count wanted */
	sgl = sgl_alloc(1, GFP_KERNEL, NULL);
	assert_non_null(sgl);
	assert_int_equal(sgl->length, 1);
	sgl_free(sgl);
	assert_int_equal(test_free_pages(f->m), free0);
	assert_int_equal(f->cap.reports, 0);
}

static void test_sgl_free_n_order_frees_the_first_n(void **state)
{
	struct fixture *f = *state;
	unsigned long free0 = test_free_pages(f->m);
	struct scatterlist *sgl = sgl_alloc(4 * PG, GFP_KERNEL, NULL);
	struct page *third, *fourth;

	assert_non_null(sgl);
	third = sg_page(&sgl[2]);
	fourth = sg_page(&sgl[3]);
	sgl_free_n_order(sgl, 2, 0);
	/* the pages of entries 2 and 3 are still the caller's */
	assert_int_equal(test_free_pages(f->m), free0 - 2);
	dmamap_free_pages(third, 0);
	dmamap_free_pages(fourth, 0);
	assert_int_equal(test_free_pages(f->m), free0);

	/* NULL is harmless */
	sgl_free(NULL);
	sgl_free_n_order(NULL, 3, 0);
	assert_int_equal(f->cap.reports, 0);
}

static void test_sgl_alloc_bad_input(void **state)
{
	struct fixture *f = *state;
	unsigned long free0 = test_free_pages(f->m);
	unsigned long host = dmamap_fault_attempts(f->m, DMAMAP_FAULT_HOST_ALLOC);
	unsigned int nent = 77;

	assert_null(sgl_alloc(0, GFP_KERNEL, &nent));
	assert_null(sgl_alloc_order(PG, MAX_ORDER, false, GFP_KERNEL, &nent));
	assert_null(sgl_alloc(17ULL << 20, GFP_KERNEL, &nent)); /* more than the machine's 16 MiB */
	assert_int_equal(f->cap.by_kind[DMAMAP_REPORT_BAD_INPUT], 3);
	/* refused before anything was allocated */
	assert_int_equal(nent, 77);
	assert_int_equal(dmamap_fault_attempts(f->m, DMAMAP_FAULT_HOST_ALLOC), host);
	assert_int_equal(test_free_pages(f->m), free0);
}

static void test_sgl_alloc_fault_unwinds(void **state)
{
	struct fixture *f = *state;
	unsigned long free0 = test_free_pages(f->m);
	unsigned int nent = 77;

	/* each page allocation in turn fails: the pages before it go back */
	for (unsigned long k = 1; k <= 4; k++) {
		unsigned long inj = dmamap_fault_injected(f->m, DMAMAP_FAULT_PAGE_ALLOC);

		assert_int_equal(dmamap_fault_inject(f->m, DMAMAP_FAULT_PAGE_ALLOC, k, 0), 0);
		assert_null(sgl_alloc_order(7 * PG, 1, k % 2, GFP_KERNEL, &nent));
		assert_int_equal(dmamap_fault_injected(f->m, DMAMAP_FAULT_PAGE_ALLOC), inj + 1);
		assert_int_equal(nent, 77);
		assert_int_equal(test_free_pages(f->m), free0);
	}
	/* the list itself */
	assert_int_equal(dmamap_fault_inject(f->m, DMAMAP_FAULT_HOST_ALLOC, 1, 0), 0);
	assert_null(sgl_alloc(3 * PG, GFP_KERNEL, &nent));
	assert_int_equal(nent, 77);
	assert_int_equal(test_free_pages(f->m), free0);
	assert_int_equal(dmamap_fault_inject(f->m, DMAMAP_FAULT_PAGE_ALLOC, 0, 0), 0);
	assert_int_equal(dmamap_fault_inject(f->m, DMAMAP_FAULT_HOST_ALLOC, 0, 0), 0);
	assert_int_equal(f->cap.reports, 0);
}

/* ------------------------------------------------------- append tables */

/* Entry @i of @t has @page, @offset and @len. */
static void assert_entry(struct sg_table *t, int i, struct page *page, unsigned offset, unsigned len)
{
	struct scatterlist *s = t->sgl;

	while (i--)
		s = sg_next(s);
	assert_ptr_equal(sg_page(s), page);
	assert_int_equal(s->offset, offset);
	assert_int_equal(s->length, len);
}

static void test_append_merges_across_calls(void **state)
{
	struct fixture *f = *state;
	struct page *blk = pages_of(f, GFP_KERNEL, 3);
	struct page *q = pages_of(f, GFP_KERNEL, 0);
	struct sg_append_table a;
	struct page *pg[8];

	for (int i = 0; i < 8; i++)
		pg[i] = nth_page(f, blk, (unsigned long)i);
	assert_true(page_to_pfn(q) != page_to_pfn(pg[4]) + 1 && page_to_pfn(pg[5]) != page_to_pfn(q) + 1);
	memset(&a, 0, sizeof(a));

	/* p0 p1: one entry */
	assert_int_equal(sg_alloc_append_table_from_pages(&a, &pg[0], 2, 0, 2 * PG, UINT_MAX, 6, GFP_KERNEL), 0);
	assert_int_equal(a.sgt.nents, 1);
	assert_int_equal(a.sgt.orig_nents, 1);
	assert_ptr_equal(a.prv, a.sgt.sgl);
	assert_false(sg_is_last(a.prv)); /* more to come */
	assert_entry(&a.sgt, 0, pg[0], 0, 2 * PG);

	/* p2 p3 continue it: merged, no entry added */
	assert_int_equal(sg_alloc_append_table_from_pages(&a, &pg[2], 2, 0, 2 * PG, UINT_MAX, 3, GFP_KERNEL), 0);
	assert_int_equal(a.sgt.nents, 1);
	assert_entry(&a.sgt, 0, pg[0], 0, 4 * PG);

	/* p4 merges, q and p5 (50 bytes short) each take an entry; the end is marked */
	{
		struct page *batch[3] = {pg[4], q, pg[5]};

		assert_int_equal(sg_alloc_append_table_from_pages(&a, batch, 3, 0, 3 * PG - 50, UINT_MAX, 0, GFP_KERNEL),
				 0);
	}
	assert_int_equal(a.sgt.nents, 3);
	assert_int_equal(a.sgt.orig_nents, 3);
	assert_int_equal(sg_nents(a.sgt.sgl), 3);
	assert_entry(&a.sgt, 0, pg[0], 0, 5 * PG);
	assert_entry(&a.sgt, 1, q, 0, PG);
	assert_entry(&a.sgt, 2, pg[5], 0, PG - 50);
	assert_ptr_equal(a.prv, sg_last(a.sgt.sgl, 3));
	assert_true(sg_is_last(a.prv));
	sg_free_append_table(&a);
	assert_null(a.sgt.sgl);
	assert_null(a.prv);
	assert_int_equal(a.total_nents, 0);

	/*
	 * An entry whose data ends inside a page takes nothing more: not the
	 * next page, nor that page again (the kernel would add a page to it).
	 * One that ends where its page does takes the next.
	 */
	memset(&a, 0, sizeof(a));
	assert_int_equal(sg_alloc_append_table_from_pages(&a, &pg[0], 1, 10, 100, UINT_MAX, 3, GFP_KERNEL), 0);
	assert_int_equal(sg_alloc_append_table_from_pages(&a, &pg[0], 1, 0, 200, UINT_MAX, 2, GFP_KERNEL), 0);
	assert_int_equal(sg_alloc_append_table_from_pages(&a, &pg[1], 1, 0, PG, UINT_MAX, 0, GFP_KERNEL), 0);
	assert_int_equal(a.sgt.nents, 3);
	assert_entry(&a.sgt, 0, pg[0], 10, 100);
	assert_entry(&a.sgt, 1, pg[0], 0, 200);
	assert_entry(&a.sgt, 2, pg[1], 0, PG);
	sg_free_append_table(&a);
	memset(&a, 0, sizeof(a));
	assert_int_equal(sg_alloc_append_table_from_pages(&a, &pg[0], 1, 10, PG - 10, UINT_MAX, 1, GFP_KERNEL), 0);
	assert_int_equal(sg_alloc_append_table_from_pages(&a, &pg[1], 1, 0, 300, UINT_MAX, 0, GFP_KERNEL), 0);
	assert_int_equal(a.sgt.nents, 1);
	assert_entry(&a.sgt, 0, pg[0], 10, PG - 10 + 300);
	sg_free_append_table(&a);

	assert_int_equal(f->cap.reports, 0);
	dmamap_free_pages(blk, 3);
	dmamap_free_pages(q, 0);
}

static void test_append_keeps_to_max_segment(void **state)
{
	struct fixture *f = *state;
	struct page *blk = pages_of(f, GFP_KERNEL, 3);
	struct sg_append_table a;
	struct page *pg[8];

	for (int i = 0; i < 8; i++)
		pg[i] = nth_page(f, blk, (unsigned long)i);
	/* 2 pages and 100 bytes: entries of two pages */
	memset(&a, 0, sizeof(a));
	assert_int_equal(sg_alloc_append_table_from_pages(&a, pg, 5, 0, 5 * PG, 2 * PG + 100, 3, GFP_KERNEL), 0);
	assert_int_equal(a.sgt.nents, 3);
	assert_entry(&a.sgt, 0, pg[0], 0, 2 * PG);
	assert_entry(&a.sgt, 1, pg[2], 0, 2 * PG);
	assert_entry(&a.sgt, 2, pg[4], 0, PG);
	/* p5 fills the last entry up to the limit; p6 p7 start a new one */
	assert_int_equal(sg_alloc_append_table_from_pages(&a, &pg[5], 3, 0, 3 * PG, 2 * PG + 100, 0, GFP_KERNEL), 0);
	assert_int_equal(a.sgt.nents, 4);
	assert_entry(&a.sgt, 2, pg[4], 0, 2 * PG);
	assert_entry(&a.sgt, 3, pg[6], 0, 2 * PG);
	assert_int_equal(sg_nents(a.sgt.sgl), 4);
	sg_free_append_table(&a);
	assert_int_equal(f->cap.reports, 0);
	dmamap_free_pages(blk, 3);
}

/*
 * Append @n pages of @pg in batches of @batch, telling as left_pages the
 * count still to come or, with @lie, 1 while any is.
 */
static void append_in_batches(struct fixture *f, struct sg_append_table *a, struct page **pg, unsigned n,
			      unsigned batch, bool lie)
{
	(void)f;
	memset(a, 0, sizeof(*a));
	for (unsigned done = 0; done < n; done += batch) {
		unsigned k = DM_MIN(batch, n - done), left = n - done - k;

		assert_int_equal(sg_alloc_append_table_from_pages(a, &pg[done], k, 0, (unsigned long)k * PG, UINT_MAX,
								  lie && left ? 1 : left, GFP_KERNEL),
				 0);
		assert_int_equal(a->sgt.nents, done + k);
	}
}

static void test_append_chains_arrays(void **state)
{
	struct fixture *f = *state;
	enum { N = 300 };
	struct page *big = pages_of(f, GFP_KERNEL, 9); /* 512 frames */
	struct page *pg[N];
	struct sg_append_table a;
	struct scatterlist *s;
	unsigned long host = dmamap_fault_attempts(f->m, DMAMAP_FAULT_HOST_ALLOC);
	int i;

	/* every other frame: nothing merges */
	for (i = 0; i < N; i++)
		pg[i] = nth_page(f, big, 2 * (unsigned long)(N - 1 - i) % 512);
	for (int lie = 0; lie < 2; lie++) {
		for (unsigned batch = 1; batch <= N; batch = batch * 7 + 3) {
			append_in_batches(f, &a, pg, N, batch, lie != 0);
			assert_int_equal(a.sgt.orig_nents, N);
			assert_int_equal(sg_nents(a.sgt.sgl), N);
			for_each_sg(a.sgt.sgl, s, N, i) {
				assert_ptr_equal(sg_page(s), pg[i]);
				assert_int_equal(s->length, PG);
			}
			assert_true(sg_is_last(a.prv));
			if (!lie) {
				/* told the truth: arrays of 128, 128 and 46 slots, two of them links */
				assert_int_equal(a.total_nents, N);
			}
			sg_free_append_table(&a);
		}
	}
	assert_true(dmamap_fault_attempts(f->m, DMAMAP_FAULT_HOST_ALLOC) > host);
	assert_int_equal(f->cap.reports, 0);
	dmamap_free_pages(big, 9);
}

static void test_append_bad_input(void **state)
{
	struct fixture *f = *state;
	struct page *blk = pages_of(f, GFP_KERNEL, 2);
	struct page *pg[4], *holed[2];
	struct sg_append_table a, saved;
	struct scatterlist first;
	struct capture pc;
	unsigned long host;

	for (int i = 0; i < 4; i++)
		pg[i] = nth_page(f, blk, (unsigned long)i);
	holed[0] = pg[0];
	holed[1] = NULL;
	memset(&a, 0, sizeof(a));
	assert_int_equal(sg_alloc_append_table_from_pages(&a, pg, 1, 0, PG, UINT_MAX, 2, GFP_KERNEL), 0);
	saved = a;
	first = *a.sgt.sgl;
	host = dmamap_fault_attempts(f->m, DMAMAP_FAULT_HOST_ALLOC);

	capture_start(&pc, NULL); /* reported as sg_alloc_table_from_pages() reports: process-wide */
	assert_int_equal(sg_alloc_append_table_from_pages(NULL, pg, 1, 0, PG, UINT_MAX, 0, GFP_KERNEL), -EINVAL);
	assert_int_equal(sg_alloc_append_table_from_pages(&a, NULL, 1, 0, PG, UINT_MAX, 0, GFP_KERNEL), -EINVAL);
	assert_int_equal(sg_alloc_append_table_from_pages(&a, &pg[1], 0, 0, PG, UINT_MAX, 0, GFP_KERNEL), -EINVAL);
	assert_int_equal(sg_alloc_append_table_from_pages(&a, &pg[1], 1, 0, 0, UINT_MAX, 0, GFP_KERNEL), -EINVAL);
	assert_int_equal(sg_alloc_append_table_from_pages(&a, &pg[1], 2, 0, PG, UINT_MAX, 0, GFP_KERNEL), -EINVAL);
	assert_int_equal(sg_alloc_append_table_from_pages(&a, holed, 2, 0, 2 * PG, UINT_MAX, 0, GFP_KERNEL), -EINVAL);
	/* an offset once the table has entries, a segment under a page */
	assert_int_equal(sg_alloc_append_table_from_pages(&a, &pg[1], 1, 8, 8, UINT_MAX, 0, GFP_KERNEL), -EINVAL);
	assert_int_equal(sg_alloc_append_table_from_pages(&a, &pg[1], 1, 0, PG, PG - 1, 0, GFP_KERNEL), -EINVAL);
	assert_int_equal(pc.by_kind[DMAMAP_REPORT_BAD_INPUT], 8);
	/* nothing changed, nothing allocated, not even the page that would have merged */
	assert_memory_equal(&a, &saved, sizeof(a));
	assert_memory_equal(a.sgt.sgl, &first, sizeof(first));
	assert_int_equal(dmamap_fault_attempts(f->m, DMAMAP_FAULT_HOST_ALLOC), host);

	/* a table ended by a call with left_pages 0 cannot grow */
	assert_int_equal(sg_alloc_append_table_from_pages(&a, &pg[1], 1, 0, PG, UINT_MAX, 0, GFP_KERNEL), 0);
	assert_entry(&a.sgt, 0, pg[0], 0, 2 * PG);
	saved = a;
	first = *a.sgt.sgl;
	assert_int_equal(sg_alloc_append_table_from_pages(&a, &pg[2], 1, 0, PG, UINT_MAX, 0, GFP_KERNEL), -EINVAL);
	capture_stop(NULL);
	assert_int_equal(pc.by_kind[DMAMAP_REPORT_BAD_INPUT], 9);
	assert_memory_equal(&a, &saved, sizeof(a));
	assert_memory_equal(a.sgt.sgl, &first, sizeof(first));
	sg_free_append_table(&a);
	sg_free_append_table(NULL);
	dmamap_free_pages(blk, 2);
}

static void test_append_fault_leaves_table(void **state)
{
	struct fixture *f = *state;
	struct page *blk = pages_of(f, GFP_KERNEL, 3);
	struct page *pg[8], *batch[3];
	struct scatterlist arr0[3];
	struct sg_append_table a, saved;

	for (int i = 0; i < 8; i++)
		pg[i] = nth_page(f, blk, (unsigned long)i);

	/* the first array */
	memset(&a, 0, sizeof(a));
	assert_int_equal(dmamap_fault_inject(f->m, DMAMAP_FAULT_HOST_ALLOC, 1, 0), 0);
	assert_int_equal(sg_alloc_append_table_from_pages(&a, &pg[0], 1, 0, PG, UINT_MAX, 3, GFP_KERNEL), -ENOMEM);
	assert_null(a.sgt.sgl);
	assert_null(a.prv);
	assert_int_equal(a.sgt.nents, 0);
	assert_int_equal(a.total_nents, 0);

	/* p0 and p2: two entries in an array of three (one still to come) */
	batch[0] = pg[0];
	batch[1] = pg[2];
	assert_int_equal(sg_alloc_append_table_from_pages(&a, batch, 2, 0, 2 * PG, UINT_MAX, 1, GFP_KERNEL), 0);
	assert_int_equal(a.total_nents, 3);
	saved = a;
	memcpy(arr0, a.sgt.sgl, sizeof(arr0));

	/* p3 would merge, p5 and p7 need a second array: it cannot be had */
	batch[0] = pg[3];
	batch[1] = pg[5];
	batch[2] = pg[7];
	assert_int_equal(dmamap_fault_inject(f->m, DMAMAP_FAULT_HOST_ALLOC, 1, 0), 0);
	assert_int_equal(sg_alloc_append_table_from_pages(&a, batch, 3, 0, 3 * PG, UINT_MAX, 0, GFP_KERNEL), -ENOMEM);
	assert_memory_equal(&a, &saved, sizeof(a));
	assert_memory_equal(a.sgt.sgl, arr0, sizeof(arr0)); /* no merge, the last slot no link */
	assert_int_equal(sg_nents(a.sgt.sgl), 3);           /* two entries and the free last slot, as before */

	/* once memory is there again the same call works */
	assert_int_equal(sg_alloc_append_table_from_pages(&a, batch, 3, 0, 3 * PG, UINT_MAX, 0, GFP_KERNEL), 0);
	assert_int_equal(a.sgt.nents, 4);
	assert_int_equal(sg_nents(a.sgt.sgl), 4);
	assert_entry(&a.sgt, 0, pg[0], 0, PG);
	assert_entry(&a.sgt, 1, pg[2], 0, 2 * PG);
	assert_entry(&a.sgt, 2, pg[5], 0, PG);
	assert_entry(&a.sgt, 3, pg[7], 0, PG);
	sg_free_append_table(&a);
	assert_int_equal(dmamap_fault_inject(f->m, DMAMAP_FAULT_HOST_ALLOC, 0, 0), 0);
	assert_int_equal(f->cap.reports, 0);
	dmamap_free_pages(blk, 3);
}

/*
 * A call that fills the free slots of the last array, then needs two new
 * arrays and gets only one: the slots, the old array's last slot (made a
 * chain link) and the header are as before, the new array freed.
 */
static void test_append_fault_second_array(void **state)
{
	struct fixture *f = *state;
	enum { N = 200 };
	struct page *big = pages_of(f, GFP_KERNEL, 9);
	struct page *pg[N + 1];
	struct scatterlist arr0[4];
	struct sg_append_table a, saved;
	unsigned long inj;

	for (int i = 0; i <= N; i++)
		pg[i] = nth_page(f, big, 2 * (unsigned long)i); /* none consecutive */
	memset(&a, 0, sizeof(a));
	assert_int_equal(sg_alloc_append_table_from_pages(&a, pg, 1, 0, PG, UINT_MAX, 3, GFP_KERNEL), 0);
	assert_int_equal(a.total_nents, 4); /* one entry, two free slots, the last one */
	saved = a;
	memcpy(arr0, a.sgt.sgl, sizeof(arr0));

	inj = dmamap_fault_injected(f->m, DMAMAP_FAULT_HOST_ALLOC);
	assert_int_equal(dmamap_fault_inject(f->m, DMAMAP_FAULT_HOST_ALLOC, 2, 0), 0);
	assert_int_equal(sg_alloc_append_table_from_pages(&a, &pg[1], N, 0, (unsigned long)N * PG, UINT_MAX, 0, GFP_KERNEL),
			 -ENOMEM);
	assert_int_equal(dmamap_fault_injected(f->m, DMAMAP_FAULT_HOST_ALLOC), inj + 1);
	assert_memory_equal(&a, &saved, sizeof(a));
	assert_memory_equal(a.sgt.sgl, arr0, sizeof(arr0));

	assert_int_equal(sg_alloc_append_table_from_pages(&a, &pg[1], N, 0, (unsigned long)N * PG, UINT_MAX, 0, GFP_KERNEL),
			 0);
	assert_int_equal(sg_nents(a.sgt.sgl), N + 1);
	for (int i = 0; i <= N; i++)
		assert_entry(&a.sgt, i, pg[i], 0, PG);
	sg_free_append_table(&a);
	assert_int_equal(f->cap.reports, 0);
	dmamap_free_pages(big, 9);
}

/* --------------------------------------------------------------- copies */

static void test_copy_across_entries(void **state)
{
	struct fixture *f = *state;
	struct page *a = pages_of(f, GFP_KERNEL | __GFP_ZERO, 0);
	struct page *b = pages_of(f, GFP_KERNEL | __GFP_ZERO, 1);
	struct page *c = pages_of(f, GFP_KERNEL | __GFP_ZERO, 0);
	const size_t total = 96 + 5000 + 300;
	u8 *buf = malloc(6000), *out = malloc(6000), *dev = malloc(6000);
	struct scatterlist sg[3], *s;
	size_t done;
	int i;

	assert_non_null(buf);
	assert_non_null(out);
	assert_non_null(dev);
	/* start with the zeroes in RAM too, the lines clean */
	dmamap_cache_clean(f->m, DMAMAP_CACHE_INNER, page_to_phys(a), PG);
	dmamap_cache_clean(f->m, DMAMAP_CACHE_INNER, page_to_phys(b), 2 * PG);
	dmamap_cache_clean(f->m, DMAMAP_CACHE_INNER, page_to_phys(c), PG);

	sg_init_table(sg, 3);
	sg_set_page(&sg[0], a, 96, 4000);
	sg_set_page(&sg[1], b, 5000, 10);      /* runs into b's second page */
	sg_set_page(&sg[2], c, 300, 0);
	fill_pattern(buf, 6000, 7);

	done = sg_copy_from_buffer(sg, 3, buf, 6000);  /* more than the list holds: stops at its end */
	assert_int_equal(done, total);
	done = 0;
	for_each_sg(sg, s, 3, i) {
		assert_memory_equal(sg_virt(s), buf + done, s->length);
		/* a CPU store: the lines are dirty, the device still reads the old zeroes */
		assert_int_equal(dmamap_cache_line_state(f->m, DMAMAP_CACHE_INNER, sg_phys(s)), DMAMAP_LINE_DIRTY);
		assert_int_equal(dmamap_dev_read(&f->dev, sg_phys(s), dev, s->length), 0);
		for (unsigned j = 0; j < s->length; j++)
			assert_int_equal(dev[j], 0);
		done += s->length;
	}
	/* bytes around the entries untouched */
	assert_int_equal(((u8 *)page_address(a))[3999], 0);
	assert_int_equal(((u8 *)page_address(b))[9], 0);
	assert_int_equal(((u8 *)page_address(b))[5010], 0);
	assert_int_equal(((u8 *)page_address(c))[300], 0);

	/* cleaned to RAM, the device reads the CPU's bytes */
	for_each_sg(sg, s, 3, i)
		dmamap_cache_clean(f->m, DMAMAP_CACHE_INNER, sg_phys(s), s->length);
	done = 0;
	for_each_sg(sg, s, 3, i) {
		assert_int_equal(dmamap_dev_read(&f->dev, sg_phys(s), dev, s->length), 0);
		assert_memory_equal(dev, buf + done, s->length);
		done += s->length;
	}

	/* storing the same bytes again still dirties the lines, as a CPU store does */
	assert_int_equal(dmamap_cache_line_state(f->m, DMAMAP_CACHE_INNER, sg_phys(&sg[2])), DMAMAP_LINE_CLEAN);
	assert_int_equal(sg_copy_from_buffer(sg, 3, buf, total), total);
	for_each_sg(sg, s, 3, i)
		assert_int_equal(dmamap_cache_line_state(f->m, DMAMAP_CACHE_INNER, sg_phys(s)), DMAMAP_LINE_DIRTY);

	/* back out: all of it, a prefix, the first two entries only */
	memset(out, 0, 6000);
	assert_int_equal(sg_copy_to_buffer(sg, 3, out, 6000), total);
	assert_memory_equal(out, buf, total);
	assert_int_equal(out[total], 0);
	memset(out, 0, 6000);
	assert_int_equal(sg_copy_to_buffer(sg, 3, out, 1000), 1000);
	assert_memory_equal(out, buf, 1000);
	assert_int_equal(out[1000], 0);
	assert_int_equal(sg_copy_to_buffer(sg, 2, out, 6000), 96 + 5000);
	assert_int_equal(sg_copy_to_buffer(sg, 3, out, 0), 0);

	/* a shorter copy in writes only a prefix */
	fill_pattern(buf, 6000, 8);
	assert_int_equal(sg_copy_from_buffer(sg, 3, buf, 100), 100);
	assert_memory_equal(sg_virt(&sg[0]), buf, 96);
	assert_memory_equal(sg_virt(&sg[1]), buf + 96, 4);
	fill_pattern(out, 6000, 7);   /* entry 1 beyond its first 4 bytes keeps the old data */
	assert_memory_equal((u8 *)sg_virt(&sg[1]) + 4, out + 100, 4996);

	assert_int_equal(f->cap.reports, 0);
	free(buf);
	free(out);
	free(dev);
	dmamap_free_pages(a, 0);
	dmamap_free_pages(b, 1);
	dmamap_free_pages(c, 0);
}

/*
 * The positional copies: from byte @skip of the list on, across an entry
 * boundary and into an entry's second page; stores through the CPU's cache.
 */
static void test_pcopy_and_zero_with_skip(void **state)
{
	struct fixture *f = *state;
	struct page *a = pages_of(f, GFP_KERNEL | __GFP_ZERO, 0);
	struct page *b = pages_of(f, GFP_KERNEL | __GFP_ZERO, 1);
	struct page *c = pages_of(f, GFP_KERNEL | __GFP_ZERO, 0);
	const size_t total = 96 + 5000 + 300;
	u8 buf[512], out[512], dev[256];
	u8 *pa = page_address(a), *pb = page_address(b);
	struct scatterlist sg[3];

	dmamap_cache_clean(f->m, DMAMAP_CACHE_INNER, page_to_phys(a), PG);
	dmamap_cache_clean(f->m, DMAMAP_CACHE_INNER, page_to_phys(b), 2 * PG);
	sg_init_table(sg, 3);
	sg_set_page(&sg[0], a, 96, 4000);
	sg_set_page(&sg[1], b, 5000, 10); /* runs into b's second page */
	sg_set_page(&sg[2], c, 300, 0);
	fill_pattern(buf, sizeof(buf), 3);

	/* 200 bytes from byte 50: entry 0's last 46, entry 1's first 154 */
	assert_int_equal(sg_pcopy_from_buffer(sg, 3, buf, 200, 50), 200);
	assert_int_equal(pa[4049], 0);
	assert_memory_equal(pa + 4050, buf, 46);
	assert_memory_equal(pb + 10, buf + 46, 154);
	assert_int_equal(pb[164], 0);
	/* a CPU store: dirty, the device still reads the zeroes */
	assert_int_equal(dmamap_cache_line_state(f->m, DMAMAP_CACHE_INNER, page_to_phys(b) + 10), DMAMAP_LINE_DIRTY);
	assert_int_equal(dmamap_dev_read(&f->dev, page_to_phys(b) + 10, dev, 154), 0);
	for (unsigned j = 0; j < 154; j++)
		assert_int_equal(dev[j], 0);

	/* out again from an entry boundary, past a page boundary, and the list's end */
	memset(out, 0, sizeof(out));
	assert_int_equal(sg_pcopy_to_buffer(sg, 3, out, 10, 96), 10);
	assert_memory_equal(out, buf + 46, 10);
	memcpy(pb + PG - 3, "\x11\x22\x33\x44\x55\x66", 6);
	assert_int_equal(sg_pcopy_to_buffer(sg, 3, out, 6, 96 + PG - 13), 6);
	assert_memory_equal(out, "\x11\x22\x33\x44\x55\x66", 6);
	assert_int_equal(sg_copy_buffer(sg, 3, out, 4, 50, true), 4);
	assert_memory_equal(out, buf, 4);
	assert_int_equal(sg_pcopy_from_buffer(sg, 3, buf, 10, (off_t)total), 0);
	assert_int_equal(sg_pcopy_from_buffer(sg, 3, buf, 10, (off_t)total - 5), 5);
	assert_int_equal(sg_pcopy_to_buffer(sg, 1, out, 10, 90), 6); /* the first entry only */
	assert_int_equal(sg_pcopy_to_buffer(sg, 3, out, 10, (off_t)total + 1), 0);

	/* zeroing: entry 0's last 6 bytes, entry 1's first 14 */
	assert_int_equal(sg_zero_buffer(sg, 3, 20, 90), 20);
	assert_int_equal(pa[4089], buf[39]);
	for (unsigned j = 4090; j < 4096; j++)
		assert_int_equal(pa[j], 0);
	for (unsigned j = 10; j < 24; j++)
		assert_int_equal(pb[j], 0);
	assert_int_equal(pb[24], buf[60]);
	assert_int_equal(sg_zero_buffer(sg, 3, 1000, (off_t)total - 1), 1);
	assert_int_equal(f->cap.reports, 0);

	/* a negative skip is refused */
	assert_int_equal(sg_pcopy_to_buffer(sg, 3, out, 10, -1), 0);
	assert_int_equal(f->cap.by_kind[DMAMAP_REPORT_BAD_INPUT], 1);
	f->cap.by_kind[DMAMAP_REPORT_BAD_INPUT] = 0;
	f->cap.reports = 0;
	dmamap_free_pages(a, 0);
	dmamap_free_pages(b, 1);
	dmamap_free_pages(c, 0);
}

/* Expect the next mapping of @mi at @addr, @len bytes, in @page. */
static void expect_piece(struct sg_mapping_iter *mi, struct page *page, const void *addr, size_t len)
{
	assert_true(sg_miter_next(mi));
	assert_ptr_equal(mi->page, page);
	assert_ptr_equal(mi->addr, addr);
	assert_int_equal(mi->length, len);
	assert_int_equal(mi->consumed, len);
}

/* The mapping iterator: a piece per page of each entry, consumed, skip, stop and resume, chains. */
static void test_miter_walks_pages(void **state)
{
	struct fixture *f = *state;
	struct page *b = pages_of(f, GFP_KERNEL | __GFP_ZERO, 1);
	struct page *c = pages_of(f, GFP_KERNEL | __GFP_ZERO, 0);
	struct page *b1 = nth_page(f, b, 1);
	u8 *pb = page_address(b), *pc = page_address(c);
	struct scatterlist sg[4], one, ca[2], cb[2];
	struct sg_mapping_iter mi;
	struct capture gc;
	u8 pattern[130], out[130];
	size_t done;

	sg_init_table(sg, 4);
	sg_set_page(&sg[0], b, 100, PG - 40); /* 40 bytes in b, 60 in the page after */
	sg_set_page(&sg[1], c, 0, 0);         /* no bytes: passed over */
	sg_set_page(&sg[2], c, 30, 8);
	sg_set_page(&sg[3], c, 16, 100);      /* beyond the 3 entries walked */

	sg_miter_start(&mi, sg, 3, SG_MITER_FROM_SG);
	assert_null(mi.addr);
	expect_piece(&mi, b, pb + PG - 40, 40);
	expect_piece(&mi, b1, pb + PG, 60);
	expect_piece(&mi, c, pc + 8, 30);
	assert_false(sg_miter_next(&mi));
	assert_null(mi.addr);
	assert_int_equal(mi.length, 0);
	assert_false(sg_miter_next(&mi));
	sg_miter_stop(&mi);

	/* fewer bytes consumed: the next piece starts after them, in the same page */
	sg_miter_start(&mi, sg, 3, SG_MITER_FROM_SG | SG_MITER_ATOMIC);
	expect_piece(&mi, b, pb + PG - 40, 40);
	mi.consumed = 10;
	expect_piece(&mi, b, pb + PG - 30, 30);
	expect_piece(&mi, b1, pb + PG, 60);
	/* stopped, it resumes where it was */
	sg_miter_stop(&mi);
	assert_null(mi.addr);
	assert_null(mi.page);
	assert_int_equal(mi.length + mi.consumed, 0);
	expect_piece(&mi, c, pc + 8, 30);
	sg_miter_stop(&mi);

	/* skip: across the page boundary, to the end, past it */
	sg_miter_start(&mi, sg, 3, SG_MITER_FROM_SG);
	assert_true(sg_miter_skip(&mi, 45));
	expect_piece(&mi, b1, pb + PG + 5, 55);
	assert_true(sg_miter_skip(&mi, 20)); /* the mapping's 55 bytes consumed first */
	expect_piece(&mi, c, pc + 28, 10);
	sg_miter_stop(&mi);
	sg_miter_start(&mi, sg, 3, SG_MITER_FROM_SG);
	assert_true(sg_miter_skip(&mi, 130));
	assert_false(sg_miter_next(&mi));
	sg_miter_start(&mi, sg, 3, SG_MITER_FROM_SG);
	assert_false(sg_miter_skip(&mi, 131));
	sg_miter_stop(&mi);

	/* an entry whose offset is past its first page */
	sg_init_table(&one, 1);
	sg_set_page(&one, b, 50, PG + 10);
	sg_miter_start(&mi, &one, 1, SG_MITER_FROM_SG);
	expect_piece(&mi, b1, pb + PG + 10, 50);
	assert_false(sg_miter_next(&mi));
	sg_miter_stop(&mi);

	/* writing through it: the bytes land in the list's data, in order */
	fill_pattern(pattern, sizeof(pattern), 11);
	sg_miter_start(&mi, sg, 3, SG_MITER_TO_SG | SG_MITER_LOCAL);
	done = 0;
	while (sg_miter_next(&mi)) {
		memcpy(mi.addr, pattern + done, mi.length);
		done += mi.length;
	}
	sg_miter_stop(&mi);
	assert_int_equal(done, 130);
	assert_int_equal(sg_copy_to_buffer(sg, 3, out, sizeof(out)), 130);
	assert_memory_equal(out, pattern, 130);
	assert_int_equal(pc[100], 0); /* the fourth entry untouched */

	/* a chained list: the link is no entry */
	sg_init_table(ca, 2);
	sg_init_table(cb, 2);
	sg_set_page(&ca[0], c, 4, 0);
	sg_chain(ca, 2, cb);
	sg_set_page(&cb[0], c, 4, 200);
	sg_set_page(&cb[1], b, 4, 0);
	sg_miter_start(&mi, ca, 3, SG_MITER_FROM_SG);
	expect_piece(&mi, c, pc, 4);
	expect_piece(&mi, c, pc + 200, 4);
	expect_piece(&mi, b, pb, 4);
	assert_false(sg_miter_next(&mi));
	sg_miter_stop(&mi);
	assert_int_equal(f->cap.reports, 0);

	/* more consumed than mapped is reported and taken as the mapping's length */
	sg_miter_start(&mi, sg, 3, SG_MITER_FROM_SG);
	expect_piece(&mi, b, pb + PG - 40, 40);
	mi.consumed = 41;
	expect_piece(&mi, b1, pb + PG, 60);
	assert_int_equal(f->cap.by_kind[DMAMAP_REPORT_BAD_INPUT], 1);
	sg_miter_stop(&mi);
	f->cap.by_kind[DMAMAP_REPORT_BAD_INPUT] = 0;
	f->cap.reports = 0;
	/* an entry with no page (no machine either: the process-wide handler) ends the walk, reported */
	sg_init_table(&one, 1);
	one.length = 8;
	capture_start(&gc, NULL);
	sg_miter_start(&mi, &one, 1, SG_MITER_FROM_SG);
	assert_false(sg_miter_next(&mi));
	assert_int_equal(gc.by_kind[DMAMAP_REPORT_BAD_ADDRESS], 1);
	assert_false(sg_miter_next(&mi)); /* and stays ended */
	assert_int_equal(gc.reports, 1);
	sg_miter_stop(&mi);
	capture_stop(NULL);
	dmamap_free_pages(b, 1);
	dmamap_free_pages(c, 0);
}

/* The page iterators: each page an entry touches, pgoffset, nents, and each page of the DMA segments. */
static void test_page_iterators(void **state)
{
	struct fixture *f = *state;
	struct page *b = pages_of(f, GFP_KERNEL | __GFP_ZERO, 2);
	struct page *c = pages_of(f, GFP_KERNEL | __GFP_ZERO, 0);
	struct page *want[5] = { b, nth_page(f, b, 1), nth_page(f, b, 2), nth_page(f, b, 3), c };
	struct scatterlist sg[3], d[3];
	struct sg_table sgt = { .sgl = d, .nents = 2, .orig_nents = 3 };
	struct sg_page_iter piter;
	struct sg_dma_page_iter diter;
	const dma_addr_t want_dma[5] = { 0x10000000, 0x10000000 + PG, 0x10000000 + 2 * PG, 0x20000000,
					 0x20000000 + PG };
	struct capture gc;
	unsigned n;

	memset(sg, 0, sizeof(sg));
	sg_init_marker(sg, 3);
	assert_true(sg_is_last(&sg[2]));
	assert_false(sg_is_last(&sg[1]) || sg_is_last(&sg[0]));
	sg_set_page(&sg[0], b, 2 * PG + 20, PG - 10); /* bytes in all four pages of b */
	sg_set_page(&sg[1], c, 100, 0);
	sg_set_page(&sg[2], c, 0, 0);                 /* no bytes, no page */

	n = 0;
	for_each_sg_page(sg, &piter, 3, 0) {
		assert_true(n < 5);
		assert_ptr_equal(sg_page_iter_page(&piter), want[n]);
		assert_ptr_equal(piter.sg, n < 4 ? &sg[0] : &sg[1]);
		n++;
	}
	assert_int_equal(n, 5);
	n = 2;
	for_each_sg_page(sg, &piter, 3, 2) /* from the first entry's third page */
		assert_ptr_equal(sg_page_iter_page(&piter), want[n++]);
	assert_int_equal(n, 5);
	n = 0;
	for_each_sg_page(sg, &piter, 3, 4) { /* past the first entry: into the second */
		assert_ptr_equal(sg_page_iter_page(&piter), c);
		n++;
	}
	assert_int_equal(n, 1);
	n = 0;
	for_each_sg_page(sg, &piter, 1, 0) /* the first entry only */
		n++;
	assert_int_equal(n, 4);
	n = 0;
	for_each_sg_page(sg, &piter, 3, 5)
		n++;
	assert_int_equal(n, 0);

	/* DMA pages: each segment's, by sg_dma_len(), at its bus address */
	sg_init_table(d, 3);
	sg_set_page(&d[0], b, 3 * PG, 0);
	sg_set_page(&d[1], c, 64, 0);
	sg_set_page(&d[2], c, 64, 64);
	d[0].dma_address = 0x10000000;
	d[0].dma_length = 3 * PG;
	d[1].dma_address = 0x20000000;
	d[1].dma_length = PG + 1; /* a merged segment: two pages */
	n = 0;
	for_each_sgtable_dma_page(&sgt, &diter, 0) {
		assert_true(n < 5);
		assert_int_equal(sg_page_iter_dma_address(&diter), want_dma[n]);
		n++;
	}
	assert_int_equal(n, 5); /* nents segments, not orig_nents entries */
	n = 0;
	for_each_sgtable_page(&sgt, &piter, 0)
		n++;
	assert_int_equal(n, 3 + 1 + 1);
	assert_int_equal(f->cap.reports, 0);

	/* an entry with no page has no page to give */
	sg_init_table(&sg[0], 1);
	sg[0].length = 8;
	capture_start(&gc, NULL);
	__sg_page_iter_start(&piter, &sg[0], 1, 0);
	assert_true(__sg_page_iter_next(&piter));
	assert_null(sg_page_iter_page(&piter));
	assert_int_equal(gc.by_kind[DMAMAP_REPORT_BAD_ADDRESS], 1);
	capture_stop(NULL);
	dmamap_free_pages(b, 2);
	dmamap_free_pages(c, 0);
}

static void test_copy_chained_table(void **state)
{
	struct fixture *f = *state;
	const unsigned n = 300, each = 40;   /* 12000 bytes over three pages, three arrays */
	struct page *p = pages_of(f, GFP_KERNEL | __GFP_ZERO, 2);
	u8 *va = page_address(p), *buf = malloc(n * each), *out = malloc(n * each);
	struct sg_table t;
	struct scatterlist *s;
	int i;

	assert_non_null(buf);
	assert_non_null(out);
	assert_int_equal(sg_alloc_table(&t, n, GFP_KERNEL), 0);
	for_each_sg(t.sgl, s, (int)n, i) {
		unsigned off = (unsigned)i * each;

		sg_set_page(s, nth_page(f, p, off >> PAGE_SHIFT), each, off & ~PAGE_MASK);
	}
	fill_pattern(buf, n * each, 11);
	assert_int_equal(sg_copy_from_buffer(t.sgl, n, buf, n * each), n * each);
	assert_memory_equal(va, buf, n * each);
	assert_int_equal(va[n * each], 0);
	assert_int_equal(sg_copy_to_buffer(t.sgl, n, out, n * each), n * each);
	assert_memory_equal(out, buf, n * each);

	sg_free_table(&t);
	free(buf);
	free(out);
	dmamap_free_pages(p, 2);
	assert_int_equal(f->cap.reports, 0);
}

static void test_copy_entry_without_page(void **state)
{
	struct fixture *f = *state;
	struct page *p = pages_of(f, GFP_KERNEL | __GFP_ZERO, 0);
	struct scatterlist sg[3];
	struct capture pc;
	u8 buf[64];

	memset(buf, 0xee, sizeof(buf));
	sg_init_table(sg, 3);
	sg_set_page(&sg[0], p, 16, 0);
	sg[1].length = 16;                    /* no page */
	sg_set_page(&sg[2], p, 16, 32);
	capture_start(&pc, NULL);
	/* stops at the entry without a page, reported */
	assert_int_equal(sg_copy_from_buffer(sg, 3, buf, sizeof(buf)), 16);
	assert_int_equal(sg_copy_to_buffer(sg, 3, buf, sizeof(buf)), 16);
	capture_stop(NULL);
	assert_int_equal(pc.by_kind[DMAMAP_REPORT_BAD_ADDRESS], 2);
	assert_int_equal(((u8 *)page_address(p))[32], 0);
	/* NULL buffer with a length: nothing */
	assert_int_equal(sg_copy_from_buffer(sg, 3, NULL, 10), 0);
	assert_int_equal(sg_copy_to_buffer(sg, 3, NULL, 10), 0);
	assert_int_equal(sg_copy_to_buffer(NULL, 3, buf, 10), 0);
	dmamap_free_pages(p, 0);
}

/* An entry whose offset and length run past the end of RAM (or of the address space): refused, nothing copied. */
static void test_copy_entry_beyond_ram(void **state)
{
	struct fixture *f = *state;
	struct page *last = dmamap_pfn_to_page(f->m, f->m->base_pfn + f->m->nr_pages - 1);
	struct page *p = pages_of(f, GFP_KERNEL | __GFP_ZERO, 0);
	struct scatterlist sg;
	u8 buf[64];

	memset(buf, 0xee, sizeof(buf));
	sg_init_table(&sg, 1);
	sg_set_page(&sg, last, 64, PAGE_SIZE - 32); /* 32 bytes past the last byte of RAM */
	assert_int_equal(sg_copy_to_buffer(&sg, 1, buf, sizeof(buf)), 0);
	sg_set_page(&sg, p, UINT_MAX, UINT_MAX); /* offset and length at their largest */
	assert_int_equal(sg_copy_from_buffer(&sg, 1, buf, sizeof(buf)), 0);
	assert_int_equal(f->cap.by_kind[DMAMAP_REPORT_BAD_ADDRESS], 2);
	assert_int_equal(buf[0], 0xee);
	assert_int_equal(((u8 *)page_address(p))[0], 0);
	dmamap_free_pages(p, 0);
}

/* -------------------------------------- generic sg ops over a recording table */

enum rec_op { REC_MAP, REC_UNMAP, REC_SYNC_CPU, REC_SYNC_DEV };

struct rec_call {
	enum rec_op op;
	struct device *dev;
	struct page *page;
	unsigned long offset;
	dma_addr_t addr;      /* returned (map) or given (others) */
	size_t size;
	int dir;
	struct dma_attrs *attrs;
};

#define REC_MAX 64
#define FAKE_BASE 0xf0000000ULL
#define FAKE_ERR 0xdead0000ULL

static struct {
	struct rec_call calls[REC_MAX];
	unsigned n, maps;
	unsigned fail_at;        /* map call number (1-based) that fails; 0 none */
	dma_addr_t fail_value;   /* what a failing map_page returns */
} rec;

static void rec_reset(unsigned fail_at, dma_addr_t fail_value)
{
	memset(&rec, 0, sizeof(rec));
	rec.fail_at = fail_at;
	rec.fail_value = fail_value;
}

static struct rec_call *rec_add(enum rec_op op, struct device *dev)
{
	struct rec_call *c;

	assert_true(rec.n < REC_MAX);
	c = &rec.calls[rec.n++];
	c->op = op;
	c->dev = dev;
	return c;
}

/* A recognisable bus address per call: FAKE_BASE + call * 64 KiB + offset. */
static dma_addr_t fake_map_page(struct device *dev, struct page *page, unsigned long offset, size_t size,
				enum dma_data_direction dir, struct dma_attrs *attrs)
{
	struct rec_call *c = rec_add(REC_MAP, dev);

	rec.maps++;
	c->page = page;
	c->offset = offset;
	c->size = size;
	c->dir = (int)dir;
	c->attrs = attrs;
	c->addr = rec.maps == rec.fail_at ? rec.fail_value : FAKE_BASE + ((dma_addr_t)rec.maps << 16) + offset;
	return c->addr;
}

static void fake_unmap_page(struct device *dev, dma_addr_t addr, size_t size, enum dma_data_direction dir,
			    struct dma_attrs *attrs)
{
	struct rec_call *c = rec_add(REC_UNMAP, dev);

	c->addr = addr;
	c->size = size;
	c->dir = (int)dir;
	c->attrs = attrs;
}

static void fake_sync_cpu(struct device *dev, dma_addr_t addr, size_t size, enum dma_data_direction dir)
{
	struct rec_call *c = rec_add(REC_SYNC_CPU, dev);

	c->addr = addr;
	c->size = size;
	c->dir = (int)dir;
}

static void fake_sync_dev(struct device *dev, dma_addr_t addr, size_t size, enum dma_data_direction dir)
{
	struct rec_call *c = rec_add(REC_SYNC_DEV, dev);

	c->addr = addr;
	c->size = size;
	c->dir = (int)dir;
}

static int fake_mapping_error(struct device *dev, dma_addr_t addr)
{
	(void)dev;
	return addr == FAKE_ERR;
}

static const struct dma_map_ops fake_ops = {
	.map_page = fake_map_page,
	.unmap_page = fake_unmap_page,
	.map_sg = dmamap_generic_map_sg,
	.unmap_sg = dmamap_generic_unmap_sg,
	.sync_single_for_cpu = fake_sync_cpu,
	.sync_single_for_device = fake_sync_dev,
	.sync_sg_for_cpu = dmamap_generic_sync_sg_for_cpu,
	.sync_sg_for_device = dmamap_generic_sync_sg_for_device,
};

/* The same, but failures are what mapping_error() says (FAKE_ERR), not DMA_MAPPING_ERROR. */
static const struct dma_map_ops fake_ops_err = {
	.map_page = fake_map_page,
	.unmap_page = fake_unmap_page,
	.sync_single_for_cpu = fake_sync_cpu,
	.sync_single_for_device = fake_sync_dev,
	.mapping_error = fake_mapping_error,
};

/* No sync ops at all (as a coherent ops set may have), and no map_page. */
static const struct dma_map_ops fake_ops_bare = {
	.unmap_page = fake_unmap_page,
};

#define SENTINEL_ADDR 0x5a5a5a5aULL
#define SENTINEL_LEN 0x5a5au

/* The chained list, entry i at offset 32*i of page (i % 4) of @blk, length 100 + i. */
static void chain3_fill(struct fixture *f, struct chain3 *ch, struct page *blk)
{
	chain3_init(ch);
	for (unsigned i = 0; i < CHAIN_DATA; i++) {
		sg_set_page(ch->data[i], nth_page(f, blk, i % 4), 100 + i, 32 * i);
		ch->data[i]->dma_address = SENTINEL_ADDR;
		ch->data[i]->dma_length = SENTINEL_LEN;
	}
}

static void test_generic_map_sg_records(void **state)
{
	struct fixture *f = *state;
	struct page *blk = pages_of(f, GFP_KERNEL, 2);
	struct chain3 ch;
	DEFINE_DMA_ATTRS(attrs);

	set_dma_ops(&f->dev, &fake_ops);
	assert_ptr_equal(get_dma_ops(&f->dev), &fake_ops);
	dma_set_attr(DMA_ATTR_WEAK_ORDERING, &attrs);
	chain3_fill(f, &ch, blk);
	rec_reset(0, 0);

	assert_int_equal(dmamap_generic_map_sg(&f->dev, ch.a, CHAIN_DATA, DMA_TO_DEVICE, &attrs), CHAIN_DATA);
	assert_int_equal(rec.n, CHAIN_DATA);
	for (unsigned i = 0; i < CHAIN_DATA; i++) {
		struct rec_call *c = &rec.calls[i];
		struct scatterlist *s = ch.data[i];

		assert_int_equal(c->op, REC_MAP);
		assert_ptr_equal(c->dev, &f->dev);
		assert_ptr_equal(c->page, nth_page(f, blk, i % 4));
		assert_int_equal(c->offset, 32 * i);
		assert_int_equal(c->size, 100 + i);
		assert_int_equal(c->dir, DMA_TO_DEVICE);
		assert_ptr_equal(c->attrs, &attrs);
		assert_int_equal(sg_dma_address(s), FAKE_BASE + ((dma_addr_t)(i + 1) << 16) + 32 * i);
		assert_int_equal(sg_dma_len(s), 100 + i);
		assert_int_equal(s->length, 100 + i);
	}
	/* the chain links were not touched */
	assert_true(sg_is_chain(&ch.a[3]));
	assert_int_equal(ch.a[3].dma_address, 0);

	/* the first 4 only: entries past them untouched */
	chain3_fill(f, &ch, blk);
	rec_reset(0, 0);
	assert_int_equal(dmamap_generic_map_sg(&f->dev, ch.a, 4, DMA_FROM_DEVICE, NULL), 4);
	assert_int_equal(rec.n, 4);
	assert_null(rec.calls[3].attrs);
	assert_int_equal(rec.calls[3].dir, DMA_FROM_DEVICE);
	assert_ptr_equal(rec.calls[3].page, sg_page(&ch.b[0]));
	for (unsigned i = 4; i < CHAIN_DATA; i++) {
		assert_int_equal(ch.data[i]->dma_address, SENTINEL_ADDR);
		assert_int_equal(ch.data[i]->dma_length, SENTINEL_LEN);
	}
	assert_int_equal(f->cap.reports, 0);
	set_dma_ops(&f->dev, NULL);
	dmamap_free_pages(blk, 2);
}

static void check_failed_map(struct fixture *f, struct chain3 *ch, unsigned k, dma_addr_t fail_value,
			     struct dma_attrs *attrs)
{
	(void)f;
	/* k maps (the k-th failed), then unmaps of exactly the k-1 mapped, each as mapped */
	assert_int_equal(rec.n, k + (k - 1));
	for (unsigned i = 0; i < k; i++) {
		assert_int_equal(rec.calls[i].op, REC_MAP);
		assert_int_equal(rec.calls[i].size, 100 + i);
	}
	assert_int_equal(rec.calls[k - 1].addr, fail_value);
	for (unsigned j = 0; j + 1 < k; j++) {
		struct rec_call *u = &rec.calls[k + j];

		assert_int_equal(u->op, REC_UNMAP);
		assert_ptr_equal(u->dev, &f->dev);
		assert_int_equal(u->addr, rec.calls[j].addr);   /* what map_page returned for entry j */
		assert_int_equal(u->size, 100 + j);             /* entry j's own length */
		assert_int_equal(u->dir, DMA_BIDIRECTIONAL);
		assert_ptr_equal(u->attrs, attrs);
	}
	/* every touched entry reset; the others untouched */
	for (unsigned i = 0; i < CHAIN_DATA; i++) {
		if (i < k) {
			assert_int_equal(ch->data[i]->dma_address, DMA_MAPPING_ERROR);
			assert_int_equal(ch->data[i]->dma_length, 0);
		} else {
			assert_int_equal(ch->data[i]->dma_address, SENTINEL_ADDR);
			assert_int_equal(ch->data[i]->dma_length, SENTINEL_LEN);
		}
		assert_int_equal(ch->data[i]->length, 100 + i);
	}
}

static void test_generic_map_sg_failure_unwinds(void **state)
{
	struct fixture *f = *state;
	struct page *blk = pages_of(f, GFP_KERNEL, 2);
	struct chain3 ch;
	DEFINE_DMA_ATTRS(attrs);

	dma_set_attr(DMA_ATTR_SKIP_CPU_SYNC, &attrs);
	set_dma_ops(&f->dev, &fake_ops);
	for (unsigned k = 1; k <= CHAIN_DATA; k++) {
		chain3_fill(f, &ch, blk);
		rec_reset(k, DMA_MAPPING_ERROR);
		assert_int_equal(dmamap_generic_map_sg(&f->dev, ch.a, CHAIN_DATA, DMA_BIDIRECTIONAL, &attrs), 0);
		check_failed_map(f, &ch, k, DMA_MAPPING_ERROR, &attrs);
	}

	/* with a mapping_error op, its verdict counts, not DMA_MAPPING_ERROR */
	set_dma_ops(&f->dev, &fake_ops_err);
	for (unsigned k = 1; k <= CHAIN_DATA; k += 3) {
		chain3_fill(f, &ch, blk);
		rec_reset(k, FAKE_ERR);
		assert_int_equal(dmamap_generic_map_sg(&f->dev, ch.a, CHAIN_DATA, DMA_BIDIRECTIONAL, NULL), 0);
		check_failed_map(f, &ch, k, FAKE_ERR, NULL);
	}
	/* ...and DMA_MAPPING_ERROR is then an ordinary address */
	chain3_fill(f, &ch, blk);
	rec_reset(2, DMA_MAPPING_ERROR);
	assert_int_equal(dmamap_generic_map_sg(&f->dev, ch.a, CHAIN_DATA, DMA_BIDIRECTIONAL, NULL), CHAIN_DATA);
	assert_int_equal(sg_dma_address(ch.data[1]), DMA_MAPPING_ERROR);
	assert_int_equal(rec.n, CHAIN_DATA);

	assert_int_equal(f->cap.reports, 0);
	set_dma_ops(&f->dev, NULL);
	dmamap_free_pages(blk, 2);
}

static void test_generic_unmap_and_sync(void **state)
{
	struct fixture *f = *state;
	struct page *blk = pages_of(f, GFP_KERNEL, 2);
	struct chain3 ch;
	dma_addr_t addrs[CHAIN_DATA];
	DEFINE_DMA_ATTRS(attrs);

	set_dma_ops(&f->dev, &fake_ops);
	chain3_fill(f, &ch, blk);
	rec_reset(0, 0);
	assert_int_equal(dmamap_generic_map_sg(&f->dev, ch.a, CHAIN_DATA, DMA_FROM_DEVICE, NULL), CHAIN_DATA);
	for (unsigned i = 0; i < CHAIN_DATA; i++)
		addrs[i] = sg_dma_address(ch.data[i]);

	/*
	 * The syncs and the unmap name each mapping by sg_dma_address/sg_dma_len:
	 * give dma_length values that differ from length to tell them apart.
	 */
	for (unsigned i = 0; i < CHAIN_DATA; i++)
		ch.data[i]->dma_length = 4000 + i;

	rec_reset(0, 0);
	dmamap_generic_sync_sg_for_cpu(&f->dev, ch.a, CHAIN_DATA, DMA_FROM_DEVICE);
	assert_int_equal(rec.n, CHAIN_DATA);
	for (unsigned i = 0; i < CHAIN_DATA; i++) {
		assert_int_equal(rec.calls[i].op, REC_SYNC_CPU);
		assert_ptr_equal(rec.calls[i].dev, &f->dev);
		assert_int_equal(rec.calls[i].addr, addrs[i]);
		assert_int_equal(rec.calls[i].size, 4000 + i);
		assert_int_equal(rec.calls[i].dir, DMA_FROM_DEVICE);
	}

	rec_reset(0, 0);
	dmamap_generic_sync_sg_for_device(&f->dev, ch.a, CHAIN_DATA, DMA_FROM_DEVICE);
	assert_int_equal(rec.n, CHAIN_DATA);
	for (unsigned i = 0; i < CHAIN_DATA; i++) {
		assert_int_equal(rec.calls[i].op, REC_SYNC_DEV);
		assert_int_equal(rec.calls[i].addr, addrs[i]);
		assert_int_equal(rec.calls[i].size, 4000 + i);
		assert_int_equal(rec.calls[i].dir, DMA_FROM_DEVICE);
	}

	/* a prefix only */
	rec_reset(0, 0);
	dmamap_generic_sync_sg_for_cpu(&f->dev, ch.a, 5, DMA_FROM_DEVICE);
	assert_int_equal(rec.n, 5);
	assert_int_equal(rec.calls[4].addr, addrs[4]);

	dma_set_attr(DMA_ATTR_SKIP_CPU_SYNC, &attrs);
	rec_reset(0, 0);
	dmamap_generic_unmap_sg(&f->dev, ch.a, CHAIN_DATA, DMA_FROM_DEVICE, &attrs);
	assert_int_equal(rec.n, CHAIN_DATA);
	for (unsigned i = 0; i < CHAIN_DATA; i++) {
		assert_int_equal(rec.calls[i].op, REC_UNMAP);
		assert_ptr_equal(rec.calls[i].dev, &f->dev);
		assert_int_equal(rec.calls[i].addr, addrs[i]);
		assert_int_equal(rec.calls[i].size, 4000 + i);
		assert_int_equal(rec.calls[i].dir, DMA_FROM_DEVICE);
		assert_ptr_equal(rec.calls[i].attrs, &attrs);
	}

	assert_int_equal(f->cap.reports, 0);
	set_dma_ops(&f->dev, NULL);
	dmamap_free_pages(blk, 2);
}

static void test_generic_empty_and_short(void **state)
{
	struct fixture *f = *state;
	struct page *p = pages_of(f, GFP_KERNEL, 0);
	struct scatterlist sg[3];

	set_dma_ops(&f->dev, &fake_ops);
	rec_reset(0, 0);
	/* NULL list, nothing to do: no call, no crash */
	assert_int_equal(dmamap_generic_map_sg(&f->dev, NULL, 0, DMA_TO_DEVICE, NULL), 0);
	dmamap_generic_unmap_sg(&f->dev, NULL, 0, DMA_TO_DEVICE, NULL);
	dmamap_generic_sync_sg_for_cpu(&f->dev, NULL, 0, DMA_TO_DEVICE);
	dmamap_generic_sync_sg_for_device(&f->dev, NULL, 0, DMA_TO_DEVICE);
	assert_int_equal(rec.n, 0);
	assert_int_equal(f->cap.reports, 0);

	/* a list of 3 asked for 5: refused, unwound, reported */
	sg_init_table(sg, 3);
	for (unsigned i = 0; i < 3; i++)
		sg_set_page(&sg[i], p, 64, 64 * i);
	assert_int_equal(dmamap_generic_map_sg(&f->dev, sg, 5, DMA_TO_DEVICE, NULL), 0);
	assert_int_equal(f->cap.by_kind[DMAMAP_REPORT_API_MISUSE], 1);
	assert_int_equal(rec.n, 6);
	for (unsigned i = 0; i < 3; i++) {
		assert_int_equal(rec.calls[i].op, REC_MAP);
		assert_int_equal(rec.calls[3 + i].op, REC_UNMAP);
		assert_int_equal(rec.calls[3 + i].addr, rec.calls[i].addr);
		assert_int_equal(sg[i].dma_address, DMA_MAPPING_ERROR);
		assert_int_equal(sg[i].dma_length, 0);
	}
	rec_reset(0, 0);
	dmamap_generic_sync_sg_for_cpu(&f->dev, sg, 5, DMA_TO_DEVICE);
	assert_int_equal(rec.n, 3);
	assert_int_equal(f->cap.by_kind[DMAMAP_REPORT_API_MISUSE], 2);

	/* an ops set with no sync ops: syncs do nothing; no map_page: map_sg fails, reported */
	set_dma_ops(&f->dev, &fake_ops_bare);
	rec_reset(0, 0);
	dmamap_generic_sync_sg_for_cpu(&f->dev, sg, 3, DMA_TO_DEVICE);
	dmamap_generic_sync_sg_for_device(&f->dev, sg, 3, DMA_TO_DEVICE);
	assert_int_equal(rec.n, 0);
	assert_int_equal(dmamap_generic_map_sg(&f->dev, sg, 3, DMA_TO_DEVICE, NULL), 0);
	assert_int_equal(rec.n, 0);
	assert_int_equal(f->cap.by_kind[DMAMAP_REPORT_API_MISUSE], 3);

	set_dma_ops(&f->dev, NULL);
	dmamap_free_pages(p, 0);
}

/* The core wrappers dispatch sg calls to the installed ops set's sg methods. */
static void test_wrappers_dispatch_to_generic(void **state)
{
	struct fixture *f = *state;
	struct page *blk = pages_of(f, GFP_KERNEL, 2);
	struct chain3 ch;

	set_dma_ops(&f->dev, &fake_ops);
	chain3_fill(f, &ch, blk);
	rec_reset(0, 0);
	assert_int_equal(dma_map_sg(&f->dev, ch.a, CHAIN_DATA, DMA_TO_DEVICE), CHAIN_DATA);
	assert_int_equal(rec.n, CHAIN_DATA);
	dma_sync_sg_for_cpu(&f->dev, ch.a, CHAIN_DATA, DMA_TO_DEVICE);
	dma_sync_sg_for_device(&f->dev, ch.a, CHAIN_DATA, DMA_TO_DEVICE);
	dma_unmap_sg(&f->dev, ch.a, CHAIN_DATA, DMA_TO_DEVICE);
	assert_int_equal(rec.n, 4 * CHAIN_DATA);
	for (unsigned i = 0; i < CHAIN_DATA; i++) {
		assert_int_equal(rec.calls[CHAIN_DATA + i].op, REC_SYNC_CPU);
		assert_int_equal(rec.calls[2 * CHAIN_DATA + i].op, REC_SYNC_DEV);
		assert_int_equal(rec.calls[3 * CHAIN_DATA + i].op, REC_UNMAP);
		assert_int_equal(rec.calls[3 * CHAIN_DATA + i].addr, rec.calls[i].addr);
	}
	assert_int_equal(f->cap.reports, 0);
	set_dma_ops(&f->dev, NULL);
	dmamap_free_pages(blk, 2);
}

/* ------------------------------------------------------- the real API */

/* The chained list over ten separate pages, entry i at offset 256*(i%4), 2048 + 32*i bytes. */
static void chain3_pages(struct fixture *f, struct chain3 *ch, struct page **pg, gfp_t gfp)
{
	chain3_init(ch);
	for (unsigned i = 0; i < CHAIN_DATA; i++) {
		pg[i] = pages_of(f, gfp, 0);
		sg_set_page(ch->data[i], pg[i], 2048 + 32 * i, 256 * (i % 4));
	}
}

static void test_real_map_sg_to_device(void **state)
{
	struct fixture *f = *state;
	struct page *pg[CHAIN_DATA];
	struct chain3 ch;
	struct scatterlist *s;
	u8 buf[4096];
	int i;

	chain3_pages(f, &ch, pg, GFP_KERNEL | __GFP_ZERO);
	/* zeroes in RAM, then the CPU fills each entry (in its cache) */
	for (i = 0; i < CHAIN_DATA; i++)
		dmamap_cache_clean(f->m, DMAMAP_CACHE_INNER, page_to_phys(pg[i]), PG);
	for_each_sg(ch.a, s, CHAIN_DATA, i)
		fill_pattern(sg_virt(s), s->length, 100 + (unsigned)i);
	/* not mapped yet: the device reads the old bytes */
	assert_int_equal(dmamap_dev_read(&f->dev, sg_phys(ch.a), buf, ch.a->length), 0);
	assert_int_not_equal(check_pattern(buf, ch.a->length, 100), 0);

	assert_int_equal(dma_map_sg(&f->dev, ch.a, CHAIN_DATA, DMA_TO_DEVICE), CHAIN_DATA);
	for_each_sg(ch.a, s, CHAIN_DATA, i) {
		assert_int_equal(sg_dma_len(s), s->length);
		assert_int_equal(sg_dma_address(s), sg_phys(s));   /* no dma_pfn_offset: bus == phys */
		memset(buf, 0, sizeof(buf));
		assert_int_equal(dmamap_dev_read(&f->dev, sg_dma_address(s), buf, sg_dma_len(s)), 0);
		assert_int_equal(check_pattern(buf, sg_dma_len(s), 100 + (unsigned)i), 0);
	}
	dma_unmap_sg(&f->dev, ch.a, CHAIN_DATA, DMA_TO_DEVICE);
	assert_int_equal(f->cap.reports, 0);
	for (i = 0; i < CHAIN_DATA; i++)
		dmamap_free_pages(pg[i], 0);
}

static void test_real_map_sg_from_device(void **state)
{
	struct fixture *f = *state;
	struct page *pg[CHAIN_DATA];
	struct chain3 ch;
	struct scatterlist *s;
	u8 buf[4096];
	int i;

	chain3_pages(f, &ch, pg, GFP_KERNEL | __GFP_ZERO);   /* dirty zeroes in the cache */
	assert_int_equal(dma_map_sg(&f->dev, ch.a, CHAIN_DATA, DMA_FROM_DEVICE), CHAIN_DATA);
	for_each_sg(ch.a, s, CHAIN_DATA, i) {
		fill_pattern(buf, sg_dma_len(s), 200 + (unsigned)i);
		assert_int_equal(dmamap_dev_write(&f->dev, sg_dma_address(s), buf, sg_dma_len(s)), 0);
	}
	dma_sync_sg_for_cpu(&f->dev, ch.a, CHAIN_DATA, DMA_FROM_DEVICE);
	for_each_sg(ch.a, s, CHAIN_DATA, i)
		assert_int_equal(check_pattern(sg_virt(s), s->length, 200 + (unsigned)i), 0);
	dma_sync_sg_for_device(&f->dev, ch.a, CHAIN_DATA, DMA_FROM_DEVICE);
	/* the device writes again; after the unmap the CPU sees the new bytes */
	for_each_sg(ch.a, s, CHAIN_DATA, i) {
		fill_pattern(buf, sg_dma_len(s), 300 + (unsigned)i);
		assert_int_equal(dmamap_dev_write(&f->dev, sg_dma_address(s), buf, sg_dma_len(s)), 0);
	}
	dma_unmap_sg(&f->dev, ch.a, CHAIN_DATA, DMA_FROM_DEVICE);
	for_each_sg(ch.a, s, CHAIN_DATA, i) {
		assert_int_equal(check_pattern(sg_virt(s), s->length, 300 + (unsigned)i), 0);
		assert_int_equal(sg_copy_to_buffer(s, 1, buf, sizeof(buf)), s->length);
		assert_int_equal(check_pattern(buf, s->length, 300 + (unsigned)i), 0);
	}
	assert_int_equal(f->cap.reports, 0);
	for (i = 0; i < CHAIN_DATA; i++)
		dmamap_free_pages(pg[i], 0);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_init_table_marks_only_last),
		T(test_set_page_round_trip),
		T(test_set_buf_bad_address),
		T(test_chain_three_tables),
		T(test_entry_bad_input_reported),
		T(test_alloc_table_sizes),
		T(test_alloc_table_bad_input),
		T(test_alloc_table_fault_each_chunk),
		T(test_alloc_table_from_pages),
		T(test_alloc_table_from_pages_bad_input),
		T(test_sgl_alloc_entries),
		T(test_sgl_free_n_order_frees_the_first_n),
		T(test_sgl_alloc_bad_input),
		T(test_sgl_alloc_fault_unwinds),
		T(test_append_merges_across_calls),
		T(test_append_keeps_to_max_segment),
		T(test_append_chains_arrays),
		T(test_append_bad_input),
		T(test_append_fault_leaves_table),
		T(test_append_fault_second_array),
		T(test_copy_across_entries),
		T(test_copy_chained_table),
		T(test_pcopy_and_zero_with_skip),
		T(test_miter_walks_pages),
		T(test_page_iterators),
		T(test_copy_entry_without_page),
		T(test_copy_entry_beyond_ram),
		T(test_generic_map_sg_records),
		T(test_generic_map_sg_failure_unwinds),
		T(test_generic_unmap_and_sync),
		T(test_generic_empty_and_short),
		T(test_wrappers_dispatch_to_generic),
		T(test_real_map_sg_to_device),
		T(test_real_map_sg_from_device),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
