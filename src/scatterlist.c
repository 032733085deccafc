/* SPDX-License-Identifier: MIT */
/*
 * Scatterlists (the kernel's lib/scatterlist.c subset the DMA API needs) and
 * the generic sg operations of patch 3: map_sg/unmap_sg/sync_sg_* built only
 * on an ops set's map_page/unmap_page/sync_single_*, so any ops set without
 * sg code of its own can plug them in.
 *
 * Tables from sg_alloc_table() are host memory (bookkeeping, like the
 * kernel's kmalloc'd chunks), allocated from the current machine so that its
 * DMAMAP_FAULT_HOST_ALLOC injection can fail them. The data an entry points
 * at is simulated RAM: sg_copy_from_buffer(), sg_pcopy_from_buffer() and
 * sg_zero_buffer() store through the CPU's cached view, as a kernel memcpy
 * would; sg_copy_to_buffer() reads it. The mapping iterator (sg_miter_*())
 * hands the caller linear-map addresses, a page at a time: what it stores
 * there is a CPU store like a kmap_local_page() one.
 *
 * Everything here is stateless: thread safety is the caller's, per list.
 */
#include <limits.h>
#include <stdlib.h>

#include "internal.h"

/* ------------------------------------------------------------ entries */

DMAMAP_API void sg_init_table(struct scatterlist *sgl, unsigned int nents)
{
	if (!sgl || !nents) {
		dmamap_report(NULL, DMAMAP_REPORT_BAD_INPUT, NULL, NULL, 0, "sg_init_table: %s",
			      !sgl ? "NULL list" : "zero entries");
		return;
	}
	memset(sgl, 0, (size_t)nents * sizeof(*sgl));
	sg_mark_end(&sgl[nents - 1]);
}

/*
 * A vmalloc address is refused, reported at the caller's line, the entry
 * left as it was (CONFIG_DEBUG_SG BUG()s there: no one page is behind it).
 */
static bool vmalloc_refused(const void *buf, unsigned int buflen, const char *what, const char *file, int line)
{
	char desc[256];
	struct dmamap_machine *m;

	/* linear-map memory, the common case, without a look at the vmalloc areas */
	if (virt_addr_valid(buf) || !(m = dm_vmalloc_describe(buf, desc, sizeof(desc))))
		return false;
	dmamap_report(m, DMAMAP_REPORT_BAD_ADDRESS, NULL, file, line,
		      "%s(%p, %u): a vmalloc address (%s) has no linear map nor one page behind it: set each page "
		      "with sg_set_page(vmalloc_to_page()); entry left as it was",
		      what, buf, buflen, desc);
	return true;
}

/*
 * A pointer that is no linear-map address is reported by virt_to_page()
 * (DMAMAP_REPORT_BAD_ADDRESS, process-wide); the entry then has no page, but
 * keeps the offset (the pointer's offset in its page) and the length, as the
 * kernel would: sg_page() and sg_virt() return NULL, and mapping it fails.
 */
DMAMAP_API void dmamap_sg_set_buf(struct scatterlist *sg, const void *buf, unsigned int buflen, const char *file,
				  int line)
{
	DM_CALL();

	if (!sg) {
		dmamap_report(NULL, DMAMAP_REPORT_BAD_INPUT, NULL, NULL, 0, "sg_set_buf: NULL entry");
		return;
	}
	if (vmalloc_refused(buf, buflen, "sg_set_buf", file, line))
		return;
	sg_set_page(sg, virt_to_page(buf), buflen, (unsigned int)((uintptr_t)buf & ~PAGE_MASK));
}

DMAMAP_API void (sg_set_buf)(struct scatterlist *sg, const void *buf, unsigned int buflen)
{
	dmamap_sg_set_buf(sg, buf, buflen, NULL, 0);
}

DMAMAP_API void dmamap_sg_init_one(struct scatterlist *sg, const void *buf, unsigned int buflen, const char *file,
				   int line)
{
	DM_CALL();

	if (!sg) {
		dmamap_report(NULL, DMAMAP_REPORT_BAD_INPUT, NULL, NULL, 0, "sg_init_one: NULL entry");
		return;
	}
	if (vmalloc_refused(buf, buflen, "sg_init_one", file, line))
		return;
	sg_init_table(sg, 1);
	dmamap_sg_set_buf(sg, buf, buflen, file, line);
}

DMAMAP_API void (sg_init_one)(struct scatterlist *sg, const void *buf, unsigned int buflen)
{
	dmamap_sg_init_one(sg, buf, buflen, NULL, 0);
}

DMAMAP_API void sg_chain(struct scatterlist *prv, unsigned int prv_nents, struct scatterlist *sgl)
{
	struct scatterlist *link;

	if (!prv || !prv_nents || !sgl) {
		dmamap_report(NULL, DMAMAP_REPORT_BAD_INPUT, NULL, NULL, 0, "sg_chain: %s",
			      !prv ? "NULL array" : !prv_nents ? "zero entries" : "NULL next array");
		return;
	}
	link = &prv[prv_nents - 1];
	link->offset = 0;
	link->length = 0;
	link->dma_address = 0;
	link->dma_length = 0;
	/* the chain bit set, the end bit cleared: the link is no data entry */
	link->page_link = ((unsigned long)sgl & SG_PAGE_MASK) | SG_CHAIN_BIT;
}

DMAMAP_API int sg_nents(struct scatterlist *sg)
{
	int n = 0;

	for (; sg; sg = sg_next(sg))
		n++;
	return n;
}

DMAMAP_API int sg_nents_for_len(struct scatterlist *sg, u64 len)
{
	u64 total = 0;
	int n = 0;

	if (!len)
		return 0;
	for (; sg; sg = sg_next(sg)) {
		n++;
		total += sg->length;
		if (total >= len)
			return n;
	}
	return -EINVAL;
}

/* Unlike for_each_sg(), stops (instead of crashing) when the list is shorter than @nents. */
DMAMAP_API struct scatterlist *sg_last(struct scatterlist *sgl, unsigned int nents)
{
	struct scatterlist *s = sgl, *last = NULL;

	for (unsigned int i = 0; i < nents && s; i++) {
		last = s;
		s = sg_next(s);
	}
	return last;
}

DMAMAP_API void *sg_virt(struct scatterlist *sg)
{
	struct page *page = sg ? sg_page(sg) : NULL;
	u8 *va = page ? page_address(page) : NULL;

	return va ? va + sg->offset : NULL;
}

/* ~0 for an entry with no page (as virt_to_phys() fails). */
DMAMAP_API phys_addr_t sg_phys(struct scatterlist *sg)
{
	struct page *page = sg ? sg_page(sg) : NULL;

	if (!page || !dm_page_machine(page))
		return ~(phys_addr_t)0;
	return page_to_phys(page) + sg->offset;
}

/* ------------------------------------------------------------- tables */

/*
 * Chunk layout (the kernel's): a list of n entries is cut into arrays of at
 * most SG_MAX_SINGLE_ALLOC; while more than SG_MAX_SINGLE_ALLOC entries are
 * left, an array holds SG_MAX_SINGLE_ALLOC - 1 data entries and a chain link
 * in its last slot; the final array holds exactly what is left.
 */
static unsigned int chunk_entries(unsigned int left)
{
	return left > SG_MAX_SINGLE_ALLOC ? SG_MAX_SINGLE_ALLOC : left;
}

static unsigned int chunk_data(unsigned int left)
{
	return left > SG_MAX_SINGLE_ALLOC ? SG_MAX_SINGLE_ALLOC - 1 : left;
}

/* Free the first @nchunks arrays of the chain starting at @sgl. */
static void free_chunks(struct scatterlist *sgl, unsigned long nchunks)
{
	while (sgl && nchunks--) {
		struct scatterlist *next = NULL;

		if (nchunks)
			next = sg_chain_ptr(&sgl[SG_MAX_SINGLE_ALLOC - 1]);
		dmamap_free(sgl);
		sgl = next;
	}
}

/*
 * table->nents is set to the number of entries too (the kernel does the
 * same); dma_map_sg()'s result is the caller's to store there. A rejected
 * call (-EINVAL) leaves @table as it was.
 */
DMAMAP_API int sg_alloc_table(struct sg_table *table, unsigned int nents, gfp_t gfp)
{
	struct dmamap_machine *m;
	struct scatterlist *prev = NULL;
	unsigned long nchunks = 0;
	unsigned int left = nents;

	/* host memory, no zone: the gfp says only whether the kernel's kmalloc of the table could sleep */
	dm_might_alloc(NULL, gfp, "sg_alloc_table", NULL, 0);
	if (!table) {
		dmamap_report(NULL, DMAMAP_REPORT_BAD_INPUT, NULL, NULL, 0, "sg_alloc_table: NULL table");
		return -EINVAL;
	}
	if (!nents)
		return -EINVAL;

	m = dmamap_machine_current();
	memset(table, 0, sizeof(*table));
	while (left) {
		unsigned int n = chunk_entries(left);
		struct scatterlist *chunk = dmamap_allocarray(m, n, sizeof(*chunk));

		if (!chunk) {
			free_chunks(table->sgl, nchunks);
			memset(table, 0, sizeof(*table));
			return -ENOMEM;
		}
		sg_init_table(chunk, n);
		if (prev)
			sg_chain(prev, SG_MAX_SINGLE_ALLOC, chunk);
		else
			table->sgl = chunk;
		nchunks++;
		prev = chunk;
		left -= chunk_data(left);
	}
	table->nents = table->orig_nents = nents;
	return 0;
}

DMAMAP_API void sg_free_table(struct sg_table *table)
{
	unsigned long nchunks = 0;

	if (!table)
		return;
	if (table->sgl) {
		for (unsigned int left = table->orig_nents; left; left -= chunk_data(left))
			nchunks++;
		free_chunks(table->sgl, nchunks);
	}
	memset(table, 0, sizeof(*table));
}

/* Largest run of pages one entry describes: its length must fit an unsigned int. */
#define MAX_RUN_PAGES (UINT_MAX >> PAGE_SHIFT)

static bool pages_contiguous(const struct page *a, const struct page *b)
{
	return dm_page_machine(a) == dm_page_machine(b) && page_to_pfn(b) == page_to_pfn(a) + 1;
}

/*
 * The arguments of a table made from @pages: stricter than the kernel, every
 * page must be non-NULL and of a machine, @offset must lie in the first page,
 * and the data (@offset, @size) must end in the last page (no page without
 * data, none short of it). Reported as @what's; false when refused.
 */
static bool pages_args_ok(const char *what, const void *table, struct page **pages, unsigned int n_pages,
			  unsigned int offset, unsigned long size)
{
	unsigned long span, end;

	if (!table || !pages || !n_pages || offset >= PAGE_SIZE || !size) {
		dmamap_report(NULL, DMAMAP_REPORT_BAD_INPUT, NULL, NULL, 0, "%s: %s", what,
			      !table ? "NULL table" : !pages ? "NULL pages" : !n_pages ? "zero pages"
			      : !size ? "zero size" : "offset beyond the first page");
		return false;
	}
	span = (unsigned long)n_pages << PAGE_SHIFT;
	end = offset + size;
	if (end < size || end > span || end <= span - PAGE_SIZE) {
		dmamap_report(NULL, DMAMAP_REPORT_BAD_INPUT, NULL, NULL, 0,
			      "%s: %lu bytes at offset %u do not end in the last of %u pages", what, size, offset,
			      n_pages);
		return false;
	}
	for (unsigned int i = 0; i < n_pages; i++) {
		if (!pages[i] || !dm_page_machine(pages[i])) {
			dmamap_report(NULL, DMAMAP_REPORT_BAD_INPUT, NULL, NULL, 0, "%s: page %u is not a page of any machine",
				      what, i);
			return false;
		}
	}
	return true;
}

/* Stricter than the kernel: see pages_args_ok(); anything else is -EINVAL. */
DMAMAP_API int sg_alloc_table_from_pages(struct sg_table *sgt, struct page **pages, unsigned int n_pages,
					 unsigned int offset, unsigned long size, gfp_t gfp)
{
	unsigned int chunks, i, run, cur;
	struct scatterlist *s;
	int err;

	if (!pages_args_ok("sg_alloc_table_from_pages", sgt, pages, n_pages, offset, size))
		return -EINVAL;

	/* one entry per run of physically consecutive pages */
	chunks = 1;
	for (i = 1, run = 1; i < n_pages; i++) {
		if (run < MAX_RUN_PAGES && pages_contiguous(pages[i - 1], pages[i])) {
			run++;
		} else {
			chunks++;
			run = 1;
		}
	}

	err = sg_alloc_table(sgt, chunks, gfp);
	if (err)
		return err;

	s = sgt->sgl;
	for (cur = 0; cur < n_pages; cur = i) {
		unsigned long bytes;

		for (i = cur + 1, run = 1; i < n_pages && run < MAX_RUN_PAGES && pages_contiguous(pages[i - 1], pages[i]);
		     i++)
			run++;
		bytes = ((unsigned long)run << PAGE_SHIFT) - offset;
		if (bytes > size)
			bytes = size;
		sg_set_page(s, pages[cur], (unsigned int)bytes, offset);
		size -= bytes;
		offset = 0;
		s = sg_next(s);
	}
	return 0;
}

/* ------------------------------------------------------- append tables */

/*
 * The arrays of an append table, from @arr on: each ends at its chain link
 * (the next array follows) or at its first entry marked as the end (the
 * table's last entry, or the array's own last slot while the table grows).
 * Walked rather than counted, so arrays of any size free right.
 */
static void free_linked_arrays(struct scatterlist *arr)
{
	while (arr) {
		struct scatterlist *s = arr, *next = NULL;

		for (;; s++) {
			if (sg_is_chain(s)) {
				next = sg_chain_ptr(s);
				break;
			}
			if (sg_is_last(s))
				break;
		}
		dmamap_free(arr);
		arr = next;
	}
}

/* Pages of @pages (count @n) from @i on that one entry takes: a run of consecutive pages within @seg_max bytes. */
static unsigned int run_end(struct page **pages, unsigned int n, unsigned int i, unsigned long seg_max)
{
	unsigned long seg = 0;

	for (i++; i < n; i++) {
		seg += PAGE_SIZE;
		if (seg >= seg_max || !pages_contiguous(pages[i - 1], pages[i]))
			break;
	}
	return i;
}

/* What one call changed so far, to put back when an array cannot be had. */
struct append_undo {
	struct sg_append_table saved; /* the table's header before the call */
	struct scatterlist *first_new; /* the first array this call allocated */
	struct scatterlist *link;      /* the old slot that became a chain link to it */
	struct scatterlist link_was;
	struct scatterlist *old_first; /* entries this call filled in an old array: from here... */
	unsigned int old_filled;       /* ...this many */
};

/*
 * The slot for the next entry after @cur, @needed entries being still to come
 * (the kernel's get_next_sg()): the slot after @cur, unless that is its
 * array's last one and more than one entry is needed, which becomes a chain
 * link to a new array of min(@needed, SG_MAX_SINGLE_ALLOC) slots.
 */
static struct scatterlist *next_slot(struct dmamap_machine *m, struct sg_append_table *t, struct scatterlist *cur,
				     unsigned long needed, struct append_undo *u)
{
	struct scatterlist *next = NULL, *arr;
	unsigned int n;

	if (cur) {
		next = sg_next(cur);
		if (!sg_is_last(next) || needed == 1) {
			if (!u->first_new) {
				if (!u->old_filled)
					u->old_first = next;
				u->old_filled++;
			}
			return next;
		}
	}
	n = needed < SG_MAX_SINGLE_ALLOC ? (unsigned int)needed : SG_MAX_SINGLE_ALLOC;
	arr = dmamap_allocarray(m, n, sizeof(*arr));
	if (!arr)
		return NULL;
	sg_init_table(arr, n);
	if (cur) {
		if (!u->first_new) {
			u->link = next;
			u->link_was = *next;
		}
		t->total_nents += n - 1;
		sg_chain(next, 1, arr);
	} else {
		t->sgt.sgl = arr;
		t->total_nents = n;
	}
	if (!u->first_new)
		u->first_new = arr;
	return arr;
}

static void append_unwind(struct sg_append_table *t, struct append_undo *u)
{
	free_linked_arrays(u->first_new);
	if (u->link)
		*u->link = u->link_was;
	if (u->old_filled)
		memset(u->old_first, 0, (size_t)u->old_filled * sizeof(*u->old_first));
	*t = u->saved;
}

/*
 * The kernel's merge into the last entry adds a whole page per page merged,
 * whatever @size says, and merges a page into an entry that ends inside the
 * page before it; here an entry merges only the pages that begin where its
 * data ends, each with the bytes of @size it holds. Everything that can fail
 * (the arrays) comes before the merge is applied, and a failure puts back
 * what the call changed.
 */
DMAMAP_API int sg_alloc_append_table_from_pages(struct sg_append_table *sgt_append, struct page **pages,
						unsigned int n_pages, unsigned int offset, unsigned long size,
						unsigned int max_segment, unsigned int left_pages, gfp_t gfp)
{
	const char *what = "sg_alloc_append_table_from_pages";
	unsigned long seg_max = max_segment & PAGE_MASK, merged_bytes = 0;
	struct append_undo u = { 0 };
	struct scatterlist *prv, *s;
	struct dmamap_machine *m;
	unsigned int merged = 0, chunks, cur, added = 0;

	(void)gfp; /* host memory: never sleeps, no zone */
	if (!pages_args_ok(what, sgt_append, pages, n_pages, offset, size))
		return -EINVAL;
	prv = sgt_append->prv;
	if (seg_max < PAGE_SIZE || (prv && (offset || sg_is_last(prv)))) {
		dmamap_report(NULL, DMAMAP_REPORT_BAD_INPUT, NULL, NULL, 0, "%s: %s", what,
			      seg_max < PAGE_SIZE ? "max_segment under a page"
			      : offset ? "offset in the first page, but the table has entries already"
				       : "the table was ended by a call with left_pages 0: it cannot grow");
		return -EINVAL;
	}

	/* the pages that continue the last entry's data join it, within max_segment */
	if (prv) {
		unsigned long end = (unsigned long)prv->offset + prv->length;
		struct page *last = sg_page(prv);

		if (!(end & ~PAGE_MASK) && last && dm_page_machine(last) == dm_page_machine(pages[0]) &&
		    page_to_pfn(pages[0]) == page_to_pfn(last) + (end >> PAGE_SHIFT)) {
			while (merged < n_pages && (!merged || pages_contiguous(pages[merged - 1], pages[merged]))) {
				unsigned long bytes = DM_MIN(size - merged_bytes, (unsigned long)PAGE_SIZE);

				if (prv->length + merged_bytes + bytes > seg_max)
					break;
				merged_bytes += bytes;
				merged++;
			}
		}
	}

	chunks = 0;
	for (cur = merged; cur < n_pages; cur = run_end(pages, n_pages, cur, seg_max))
		chunks++;

	m = dmamap_machine_current();
	u.saved = *sgt_append;
	s = prv;
	cur = merged;
	size -= merged_bytes;
	for (unsigned int k = 0; k < chunks; k++) {
		unsigned int j = run_end(pages, n_pages, cur, seg_max);
		unsigned long bytes = ((unsigned long)(j - cur) << PAGE_SHIFT) - offset;

		s = next_slot(m, sgt_append, s, (unsigned long)(chunks - k) + left_pages, &u);
		if (!s) {
			append_unwind(sgt_append, &u);
			return -ENOMEM;
		}
		if (bytes > size)
			bytes = size;
		sg_set_page(s, pages[cur], (unsigned int)bytes, offset);
		added++;
		size -= bytes;
		offset = 0;
		cur = j;
	}
	if (prv)
		prv->length += (unsigned int)merged_bytes;
	sgt_append->sgt.nents += added;
	sgt_append->sgt.orig_nents = sgt_append->sgt.nents;
	sgt_append->prv = s;
	if (!left_pages)
		sg_mark_end(s);
	return 0;
}

DMAMAP_API void sg_free_append_table(struct sg_append_table *table)
{
	if (!table)
		return;
	free_linked_arrays(table->sgt.sgl);
	memset(table, 0, sizeof(*table));
}

/* --------------------------------------------------- lists of new pages */

/*
 * The kernel's sgl_alloc_order(): one array (as its kmalloc_array()), a block
 * of pages per entry. The kernel computes the entry count in 32 bits and
 * takes a zero length; here the count is checked in 64 bits and a length of
 * 0, or more than the machine's RAM, is refused before anything is allocated.
 */
DMAMAP_API struct scatterlist *sgl_alloc_order(unsigned long long length, unsigned int order, bool chainable, gfp_t gfp,
					       unsigned int *nent_p)
{
	struct dmamap_machine *m = dmamap_machine_current();
	unsigned long long block, nent;
	struct scatterlist *sgl, *s;
	unsigned int nalloc;

	if (!m)
		return NULL;
	if (!length || order >= MAX_ORDER || length > m->cfg.ram_size) {
		dmamap_report(m, DMAMAP_REPORT_BAD_INPUT, NULL, NULL, 0, "sgl_alloc_order: %s (length %#llx, order %u)",
			      !length ? "zero length" : order >= MAX_ORDER ? "order beyond the largest block"
			      : "more than the machine's RAM", length, order);
		return NULL;
	}
	dm_might_alloc(m, gfp, "sgl_alloc", NULL, 0);
	block = (unsigned long long)PAGE_SIZE << order;
	nent = (length + block - 1) / block;
	if (nent + chainable > UINT_MAX)
		return NULL;
	nalloc = (unsigned int)nent + (chainable ? 1u : 0u);
	sgl = dmamap_allocarray(m, nalloc, sizeof(*sgl));
	if (!sgl)
		return NULL;
	sg_init_table(sgl, nalloc);
	for (s = sgl; length; s = sg_next(s)) {
		unsigned int len = (unsigned int)(length < block ? length : block);
		struct page *page = dm_alloc_pages(m, gfp, order);

		if (!page) {
			/* the entries after this one have no page yet: the walk passes them over */
			sgl_free_order(sgl, (int)order);
			return NULL;
		}
		sg_set_page(s, page, len, 0);
		length -= len;
	}
	if (nent_p)
		*nent_p = (unsigned int)nent;
	return sgl;
}

DMAMAP_API struct scatterlist *sgl_alloc(unsigned long long length, gfp_t gfp, unsigned int *nent_p)
{
	return sgl_alloc_order(length, 0, false, gfp, nent_p);
}

DMAMAP_API void sgl_free_n_order(struct scatterlist *sgl, int nents, int order)
{
	struct scatterlist *s = sgl;

	for (int i = 0; s && i < nents; i++, s = sg_next(s)) {
		struct page *page = sg_page(s);

		if (page)
			dmamap_free_pages(page, (unsigned int)order);
	}
	dmamap_free(sgl);
}

DMAMAP_API void sgl_free_order(struct scatterlist *sgl, int order)
{
	sgl_free_n_order(sgl, INT_MAX, order);
}

DMAMAP_API void sgl_free(struct scatterlist *sgl)
{
	sgl_free_order(sgl, 0);
}

/*
 * The linear-map range of the data of entry @s, at most @want bytes; NULL
 * (reported) when the entry has no page or its data runs outside the RAM
 * of the page's machine.
 */
static u8 *entry_data(struct scatterlist *s, size_t want, struct dmamap_machine **mp, const char *what)
{
	struct page *page = sg_page(s);
	struct dmamap_machine *m = page ? dm_page_machine(page) : NULL;
	u8 *va;

	if (!m) {
		dmamap_report(NULL, DMAMAP_REPORT_BAD_ADDRESS, NULL, NULL, 0, "%s: entry %p has no page", what,
			      (void *)s);
		return NULL;
	}
	va = page_address(page);
	if (!dm_linear_range(m, va, (size_t)s->offset + want)) {
		dmamap_report(m, DMAMAP_REPORT_BAD_ADDRESS, NULL, NULL, 0,
			      "%s: entry %p (pfn %#lx, offset %u, length %u) runs outside RAM", what, (void *)s,
			      page_to_pfn(page), s->offset, s->length);
		return NULL;
	}
	*mp = m;
	return va + s->offset;
}

/*
 * Copy between the list's data, from byte @skip on, and @buf: into the list
 * through the CPU's stores (@buf NULL: zeroes), or out of it.
 */
static size_t sg_copy(struct scatterlist *sgl, unsigned int nents, u8 *buf, size_t buflen, off_t skip, bool to_list,
		      const char *what)
{
	struct scatterlist *s = sgl;
	size_t done = 0, pass;

	if (skip < 0) {
		/* the machine of the list's first page sees it, when there is one */
		struct page *first = sgl ? sg_page(sgl) : NULL;

		dmamap_report(first ? dm_page_machine(first) : NULL, DMAMAP_REPORT_BAD_INPUT, NULL, NULL, 0,
			      "%s: negative skip %lld", what, (long long)skip);
		return 0;
	}
	if (!buf && buflen && !to_list)
		return 0;
	pass = (size_t)skip;
	for (unsigned int i = 0; i < nents && s && done < buflen; i++) {
		size_t from = DM_MIN((size_t)s->length, pass);
		size_t len = DM_MIN((size_t)s->length - from, buflen - done);
		struct dmamap_machine *m;
		u8 *data;

		pass -= from;
		if (len) {
			data = entry_data(s, from + len, &m, what);
			if (!data)
				break;
			if (to_list)
				dm_cpu_store(m, data + from, buf ? buf + done : NULL, 0, len);
			else
				memcpy(buf + done, data + from, len);
			done += len;
		}
		s = sg_next(s);
	}
	return done;
}

DMAMAP_API size_t sg_copy_from_buffer(struct scatterlist *sgl, unsigned int nents, const void *buf, size_t buflen)
{
	if (!buf)
		return 0;
	return sg_copy(sgl, nents, (u8 *)buf, buflen, 0, true, "sg_copy_from_buffer");
}

DMAMAP_API size_t sg_copy_to_buffer(struct scatterlist *sgl, unsigned int nents, void *buf, size_t buflen)
{
	return sg_copy(sgl, nents, buf, buflen, 0, false, "sg_copy_to_buffer");
}

DMAMAP_API size_t sg_copy_buffer(struct scatterlist *sgl, unsigned int nents, void *buf, size_t buflen, off_t skip,
				 bool to_buffer)
{
	if (!buf)
		return 0;
	return sg_copy(sgl, nents, buf, buflen, skip, !to_buffer, "sg_copy_buffer");
}

DMAMAP_API size_t sg_pcopy_from_buffer(struct scatterlist *sgl, unsigned int nents, const void *buf, size_t buflen,
				       off_t skip)
{
	if (!buf)
		return 0;
	return sg_copy(sgl, nents, (u8 *)buf, buflen, skip, true, "sg_pcopy_from_buffer");
}

DMAMAP_API size_t sg_pcopy_to_buffer(struct scatterlist *sgl, unsigned int nents, void *buf, size_t buflen,
				     off_t skip)
{
	return sg_copy(sgl, nents, buf, buflen, skip, false, "sg_pcopy_to_buffer");
}

DMAMAP_API size_t sg_zero_buffer(struct scatterlist *sgl, unsigned int nents, size_t buflen, off_t skip)
{
	return sg_copy(sgl, nents, NULL, buflen, skip, true, "sg_zero_buffer");
}

/* ------------------------------------------------------ mapping iterator */

DMAMAP_API void sg_miter_start(struct sg_mapping_iter *miter, struct scatterlist *sgl, unsigned int nents,
			       unsigned int flags)
{
	memset(miter, 0, sizeof(*miter));
	miter->dmamap_sg = sgl;
	miter->dmamap_left = sgl ? nents : 0;
	miter->dmamap_flags = flags;
}

DMAMAP_API void sg_miter_stop(struct sg_mapping_iter *miter)
{
	if (miter->addr) {
		size_t used = miter->consumed;

		if (used > miter->length) {
			dmamap_report(dm_page_machine(miter->page), DMAMAP_REPORT_BAD_INPUT, NULL, NULL, 0,
				      "sg_miter_stop: consumed %zu bytes of a %zu-byte mapping", used, miter->length);
			used = miter->length;
		}
		miter->dmamap_pos += (unsigned int)used;
	}
	miter->page = NULL;
	miter->addr = NULL;
	miter->length = 0;
	miter->consumed = 0;
}

/* Move the walk past the entries it has used up; false when none is left. */
static bool miter_settle(struct sg_mapping_iter *miter)
{
	while (miter->dmamap_left && miter->dmamap_pos >= miter->dmamap_sg->length) {
		if (--miter->dmamap_left == 0)
			break;
		miter->dmamap_sg = sg_next(miter->dmamap_sg);
		miter->dmamap_pos = 0;
		if (!miter->dmamap_sg)
			miter->dmamap_left = 0;
	}
	return miter->dmamap_left != 0;
}

DMAMAP_API bool sg_miter_next(struct sg_mapping_iter *miter)
{
	struct scatterlist *s;
	struct dmamap_machine *m;
	u8 *data, *va;
	size_t in_page;

	sg_miter_stop(miter);
	if (!miter_settle(miter))
		return false;
	s = miter->dmamap_sg;
	data = entry_data(s, s->length, &m, "sg_miter_next");
	if (!data) {
		miter->dmamap_left = 0;
		return false;
	}
	va = data + miter->dmamap_pos;
	in_page = PAGE_SIZE - ((uintptr_t)va & (PAGE_SIZE - 1));
	miter->page = dmamap_phys_to_page(m, dm_virt_to_phys(m, va));
	miter->addr = va;
	miter->length = DM_MIN((size_t)(s->length - miter->dmamap_pos), in_page);
	miter->consumed = miter->length;
	return true;
}

DMAMAP_API bool sg_miter_skip(struct sg_mapping_iter *miter, size_t offset)
{
	sg_miter_stop(miter);
	while (offset) {
		size_t step;

		if (!miter_settle(miter))
			return false;
		step = DM_MIN(offset, (size_t)(miter->dmamap_sg->length - miter->dmamap_pos));
		miter->dmamap_pos += (unsigned int)step;
		offset -= step;
	}
	return true;
}

/* --------------------------------------------------------- page iterators */

/*
 * The pages of an entry of @len bytes at @offset, counted from its page: up to
 * the one holding its last byte, as the kernel counts them (an entry of no
 * bytes at a non-zero offset still counts the page of that offset).
 */
static unsigned int pages_spanned(unsigned int offset, unsigned int len)
{
	return (unsigned int)(((unsigned long)offset + len + PAGE_SIZE - 1) >> PAGE_SHIFT);
}

DMAMAP_API void __sg_page_iter_start(struct sg_page_iter *piter, struct scatterlist *sglist, unsigned int nents,
				     unsigned long pgoffset)
{
	piter->sg = sglist;
	piter->sg_pgoffset = (unsigned int)pgoffset;
	piter->__nents = nents;
	piter->__pg_advance = 0;
}

/* Step to the next page; @dma counts each entry's pages by its DMA length. */
static bool page_iter_next(struct sg_page_iter *piter, bool dma)
{
	if (!piter->__nents || !piter->sg)
		return false;
	piter->sg_pgoffset += (unsigned int)piter->__pg_advance;
	piter->__pg_advance = 1;
	for (;;) {
		struct scatterlist *s = piter->sg;
		unsigned int pages = pages_spanned(s->offset, dma ? sg_dma_len(s) : s->length);

		if (piter->sg_pgoffset < pages)
			return true;
		piter->sg_pgoffset -= pages;
		if (--piter->__nents == 0)
			return false;
		piter->sg = sg_next(s);
		if (!piter->sg)
			return false;
	}
}

DMAMAP_API bool __sg_page_iter_next(struct sg_page_iter *piter)
{
	return page_iter_next(piter, false);
}

DMAMAP_API bool __sg_page_iter_dma_next(struct sg_dma_page_iter *dma_iter)
{
	return page_iter_next(&dma_iter->base, true);
}

DMAMAP_API struct page *sg_page_iter_page(struct sg_page_iter *piter)
{
	struct page *first = piter->sg ? sg_page(piter->sg) : NULL;
	struct dmamap_machine *m = first ? dm_page_machine(first) : NULL;
	struct page *page = m ? dmamap_pfn_to_page(m, page_to_pfn(first) + piter->sg_pgoffset) : NULL;

	if (!page)
		dmamap_report(m, DMAMAP_REPORT_BAD_ADDRESS, NULL, NULL, 0,
			      "sg_page_iter_page: page %u of entry %p is not RAM", piter->sg_pgoffset, (void *)piter->sg);
	return page;
}

/* ------------------------------------------------- generic sg operations */

/*
 * The core wrappers have validated dev, dir and nents > 0; these still stop
 * (and report) when the list ends before @nents entries, rather than walk off
 * it, and do nothing for nents <= 0 or a NULL list.
 */
static void short_list(struct device *dev, const char *what, int i, int nents)
{
	dmamap_report(dmamap_dev_machine(dev), DMAMAP_REPORT_API_MISUSE, dev_name(dev), NULL, 0,
		      "%s: the list ends after %d of %d entries", what, i, nents);
}

/* The entry after @s within the first @nents, or NULL after the last one. */
static struct scatterlist *next_of(struct scatterlist *s, int i, int nents)
{
	return i + 1 < nents ? sg_next(s) : NULL;
}

static bool op_failed(const struct dma_map_ops *ops, struct device *dev, dma_addr_t addr)
{
	return ops->mapping_error ? ops->mapping_error(dev, addr) != 0 : addr == DMA_MAPPING_ERROR;
}

int dmamap_generic_map_sg(struct device *dev, struct scatterlist *sg, int nents, enum dma_data_direction dir,
			  struct dma_attrs *attrs)
{
	const struct dma_map_ops *ops = get_dma_ops(dev);
	struct scatterlist *s = sg;
	int i, mapped = 0, touched;

	if (!sg || nents <= 0)
		return 0;
	if (!ops || !ops->map_page) {
		dmamap_report(dmamap_dev_machine(dev), DMAMAP_REPORT_API_MISUSE, dev_name(dev), NULL, 0,
			      "map_sg: the device's ops set has no map_page");
		return 0;
	}

	for (i = 0; i < nents; i++) {
		if (!s) {
			short_list(dev, "map_sg", i, nents);
			break;
		}
		s->dma_length = s->length;
		s->dma_address = ops->map_page(dev, sg_page(s), s->offset, s->length, dir, attrs);
		if (op_failed(ops, dev, s->dma_address))
			break;
		mapped++;
		s = next_of(s, i, nents);
	}
	if (mapped == nents)
		return nents;

	/*
	 * Unwind: entries 0..mapped-1 are mapped, each with its own address and
	 * length; the entry after them was touched too when its map_page failed.
	 * Unmap exactly the mapped ones and reset every touched one.
	 */
	touched = s ? mapped + 1 : mapped;
	s = sg;
	for (i = 0; i < touched; i++) {
		if (i < mapped && ops->unmap_page)
			ops->unmap_page(dev, sg_dma_address(s), sg_dma_len(s), dir, attrs);
		s->dma_address = DMA_MAPPING_ERROR;
		s->dma_length = 0;
		s = next_of(s, i, touched);
	}
	return 0;
}

void dmamap_generic_unmap_sg(struct device *dev, struct scatterlist *sg, int nents, enum dma_data_direction dir,
			     struct dma_attrs *attrs)
{
	const struct dma_map_ops *ops = get_dma_ops(dev);
	struct scatterlist *s = sg;

	if (!sg || nents <= 0 || !ops || !ops->unmap_page)
		return;
	for (int i = 0; i < nents; i++, s = next_of(s, i - 1, nents)) {
		if (!s) {
			short_list(dev, "unmap_sg", i, nents);
			return;
		}
		ops->unmap_page(dev, sg_dma_address(s), sg_dma_len(s), dir, attrs);
	}
}

/*
 * The syncs use dma_length, not length (the seed used s->length): a sync
 * must name the mapping map_sg made, and the driver may have changed
 * length since; bounce-buffer ops look mappings up by address and size.
 */
static void sync_sg(struct device *dev, struct scatterlist *sg, int nents, enum dma_data_direction dir, bool for_cpu)
{
	const struct dma_map_ops *ops = get_dma_ops(dev);
	void (*sync)(struct device *, dma_addr_t, size_t, enum dma_data_direction);
	struct scatterlist *s = sg;

	if (!ops)
		return;
	sync = for_cpu ? ops->sync_single_for_cpu : ops->sync_single_for_device;
	if (!sg || nents <= 0 || !sync)
		return;
	for (int i = 0; i < nents; i++, s = next_of(s, i - 1, nents)) {
		if (!s) {
			short_list(dev, for_cpu ? "sync_sg_for_cpu" : "sync_sg_for_device", i, nents);
			return;
		}
		sync(dev, sg_dma_address(s), sg_dma_len(s), dir);
	}
}

void dmamap_generic_sync_sg_for_cpu(struct device *dev, struct scatterlist *sg, int nents,
				    enum dma_data_direction dir)
{
	sync_sg(dev, sg, nents, dir, true);
}

void dmamap_generic_sync_sg_for_device(struct device *dev, struct scatterlist *sg, int nents,
				       enum dma_data_direction dir)
{
	sync_sg(dev, sg, nents, dir, false);
}
