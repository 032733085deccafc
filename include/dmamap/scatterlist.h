/* SPDX-License-Identifier: MIT */
/*
 * Scatterlists, as the kernel has them: arrays of entries, each a piece of a
 * page (page, offset, length), that may be chained together. After
 * dma_map_sg() the first n entries (n returned) carry the bus address and
 * length of each DMA segment: sg_dma_address(), sg_dma_len(); dma_length is
 * kept apart from length because an IOMMU may merge several entries into one
 * segment.
 */
#ifndef DMAMAP_SCATTERLIST_H
#define DMAMAP_SCATTERLIST_H

#include <sys/types.h> /* off_t */

#include <dmamap/types.h>

DMAMAP_BEGIN_DECLS

struct scatterlist {
	unsigned long page_link;  /* struct page *, low bits: 0x1 chain link, 0x2 last entry */
	unsigned int offset;      /* offset of the data in the page */
	unsigned int length;      /* bytes */
	dma_addr_t dma_address;   /* set by dma_map_sg() */
	unsigned int dma_length;  /* set by dma_map_sg() */
};

struct sg_table {
	struct scatterlist *sgl;  /* the list */
	unsigned int nents;       /* entries mapped: orig_nents after sg_alloc_table; store dma_map_sg()'s result here */
	unsigned int orig_nents;  /* entries in the list */
};

#define SG_CHAIN_BIT 0x01UL
#define SG_END_BIT 0x02UL
#define SG_PAGE_MASK (~(SG_CHAIN_BIT | SG_END_BIT))

#define sg_is_chain(sg) (((sg)->page_link & SG_CHAIN_BIT) != 0)
#define sg_is_last(sg) (((sg)->page_link & SG_END_BIT) != 0)
#define sg_chain_ptr(sg) ((struct scatterlist *)((sg)->page_link & SG_PAGE_MASK))
#define sg_dma_address(sg) ((sg)->dma_address)
#define sg_dma_len(sg) ((sg)->dma_length)

/** sg_page() - the page of entry @sg (must not be a chain link). */
static inline struct page *sg_page(const struct scatterlist *sg)
{
	return (struct page *)(sg->page_link & SG_PAGE_MASK);
}

/** sg_assign_page() - set the page of @sg, keeping its chain/end marks. */
static inline void sg_assign_page(struct scatterlist *sg, struct page *page)
{
	sg->page_link = (sg->page_link & (SG_CHAIN_BIT | SG_END_BIT)) | (unsigned long)page;
}

/** sg_set_page() - point entry @sg at @len bytes at @offset in @page. */
static inline void sg_set_page(struct scatterlist *sg, struct page *page, unsigned int len, unsigned int offset)
{
	sg_assign_page(sg, page);
	sg->offset = offset;
	sg->length = len;
}

/** sg_mark_end() - make @sg the last entry of its list. */
static inline void sg_mark_end(struct scatterlist *sg)
{
	sg->page_link |= SG_END_BIT;
	sg->page_link &= ~SG_CHAIN_BIT;
}

/** sg_unmark_end() - clear the last-entry mark of @sg. */
static inline void sg_unmark_end(struct scatterlist *sg)
{
	sg->page_link &= ~SG_END_BIT;
}

/**
 * sg_next() - the entry after @sg, following chain links
 * Return: the next entry, or NULL after the last one.
 */
static inline struct scatterlist *sg_next(struct scatterlist *sg)
{
	if (sg_is_last(sg))
		return NULL;
	sg++;
	if (sg_is_chain(sg))
		sg = sg_chain_ptr(sg);
	return sg;
}

/* The count is compared in the counter's type: an int counter over sgt->nents draws no sign warning. */
#define for_each_sg(sglist, sg, nr, __i) \
	for (__i = 0, sg = (sglist); __i < (__typeof__(__i))(nr); __i++, sg = sg_next(sg))
/* Every entry of a table (its orig_nents), and every DMA segment of a mapped one (its nents). */
#define for_each_sgtable_sg(sgt, sg, i) for_each_sg((sgt)->sgl, sg, (sgt)->orig_nents, i)
#define for_each_sgtable_dma_sg(sgt, sg, i) for_each_sg((sgt)->sgl, sg, (sgt)->nents, i)

/**
 * sg_init_table() - zero @nents entries and mark the last one as the end
 * @sgl: the array
 * @nents: entries in it, at least 1
 */
DMAMAP_API void sg_init_table(struct scatterlist *sgl, unsigned int nents);

/** sg_init_one() - a one-entry list for @buflen bytes at linear-map address @buf. */
DMAMAP_API void sg_init_one(struct scatterlist *sg, const void *buf, unsigned int buflen);

/**
 * sg_set_buf() - point entry @sg at @buflen bytes at linear-map address @buf
 *
 * @buf must be a linear-map address (page_address()); any other pointer is
 * reported and leaves the entry pointing at no page.
 */
DMAMAP_API void sg_set_buf(struct scatterlist *sg, const void *buf, unsigned int buflen);

/*
 * The forms that carry the caller's file:line, behind the macros below (as
 * the DMA API wrappers do): a pointer of no machine is reported at the
 * caller's line. `(sg_set_buf)(...)` reaches the plain function. @file may
 * be NULL.
 */
/** dmamap_sg_set_buf() - sg_set_buf() called at @file:@line. */
DMAMAP_API void dmamap_sg_set_buf(struct scatterlist *sg, const void *buf, unsigned int buflen, const char *file,
				  int line);
/** dmamap_sg_init_one() - sg_init_one() called at @file:@line. */
DMAMAP_API void dmamap_sg_init_one(struct scatterlist *sg, const void *buf, unsigned int buflen, const char *file,
				   int line);

#define sg_set_buf(sg, b, l) dmamap_sg_set_buf((sg), (b), (l), __FILE__, __LINE__)
#define sg_init_one(sg, b, l) dmamap_sg_init_one((sg), (b), (l), __FILE__, __LINE__)

/**
 * sg_chain() - link array @prv (of @prv_nents entries) to array @sgl
 *
 * The last entry of @prv becomes the chain link: it holds no data.
 */
DMAMAP_API void sg_chain(struct scatterlist *prv, unsigned int prv_nents, struct scatterlist *sgl);

/** sg_nents() - entries in the list (chain links excluded). */
DMAMAP_API int sg_nents(struct scatterlist *sg);

/**
 * sg_nents_for_len() - how many entries, from @sg on, hold @len bytes
 * @sg: the first entry
 * @len: bytes
 *
 * Return: the number of entries (0 for @len 0), or -EINVAL when the whole
 * list holds fewer than @len bytes.
 */
DMAMAP_API int sg_nents_for_len(struct scatterlist *sg, u64 len);

/** sg_last() - the last of the first @nents entries of @sgl. */
DMAMAP_API struct scatterlist *sg_last(struct scatterlist *sgl, unsigned int nents);

/** sg_virt() - linear-map address of the data of entry @sg. */
DMAMAP_API void *sg_virt(struct scatterlist *sg);

/** sg_phys() - physical address of the data of entry @sg. */
DMAMAP_API phys_addr_t sg_phys(struct scatterlist *sg);

/* Entries per chunk of an sg_alloc_table() list. */
#define SG_MAX_SINGLE_ALLOC 128

/**
 * sg_alloc_table() - allocate a table of @nents entries, chained in chunks
 * @table: the caller's table, filled in
 * @nents: entries wanted, at least 1
 * @gfp: allocation flags (host memory; fails under DMAMAP_FAULT_HOST_ALLOC of the current machine)
 *
 * Chunks hold at most SG_MAX_SINGLE_ALLOC entries (the last of each but the
 * final one is a chain link). Free with sg_free_table().
 * Return: 0, -EINVAL for 0 entries, -ENOMEM (the table is left empty).
 */
DMAMAP_API DMAMAP_MUST_CHECK int sg_alloc_table(struct sg_table *table, unsigned int nents, gfp_t gfp);

/** sg_free_table() - free what sg_alloc_table() allocated; the table is left empty. */
DMAMAP_API void sg_free_table(struct sg_table *table);

/**
 * sg_alloc_table_from_pages() - a table describing @n_pages pages
 * @sgt: the caller's table, filled in
 * @pages: the pages
 * @n_pages: count, at least 1
 * @offset: offset of the data in the first page
 * @size: bytes of data
 * @gfp: allocation flags
 *
 * Runs of physically consecutive pages become one entry.
 * Return: 0, -EINVAL, -ENOMEM.
 */
DMAMAP_API DMAMAP_MUST_CHECK int sg_alloc_table_from_pages(struct sg_table *sgt, struct page **pages,
							   unsigned int n_pages, unsigned int offset,
							   unsigned long size, gfp_t gfp);

/*
 * A table built by appending pages to it a batch at a time (pinned user
 * pages, say): sg_alloc_append_table_from_pages() grows it, merging pages
 * that continue the last entry into it; sg_free_append_table() frees it.
 * Start from a zeroed struct; map and walk @sgt as any table.
 */
struct sg_append_table {
	struct sg_table sgt;      /* the table: its entries so far */
	struct scatterlist *prv;  /* the last entry filled, NULL before the first call */
	unsigned int total_nents; /* slots allocated, chain links not counted */
};

/**
 * sg_alloc_append_table_from_pages() - add @n_pages pages to an append table
 * @sgt_append: the table; zeroed before the first call
 * @pages: the pages, each of a machine
 * @n_pages: count, at least 1
 * @offset: offset of the data in the first page; must be 0 once the table has entries
 * @size: bytes of data from @offset on: they end in the last page
 * @max_segment: the most bytes an entry may hold, rounded down to whole pages (at least one)
 * @left_pages: pages the caller will still append (0: this is the last call; the table's end is marked)
 * @gfp: allocation flags (host memory, as sg_alloc_table()'s)
 *
 * As the kernel's: when the last entry's data ends where the first page
 * begins (physically consecutive), the pages that continue it are merged
 * into it while it stays within @max_segment; then each run of consecutive
 * pages, cut at @max_segment bytes, becomes one entry. Arrays of at most
 * SG_MAX_SINGLE_ALLOC entries are allocated as needed, sized for the
 * entries still to come (this call's and @left_pages), and chained. On
 * success sgt.nents and sgt.orig_nents count the entries, and @prv is the
 * last one. The caller owns the table and frees it with
 * sg_free_append_table(), also after a failed call.
 * Return: 0; -ENOMEM when an array cannot be allocated (the table is left
 * exactly as it was before the call); -EINVAL, reported as
 * DMAMAP_REPORT_BAD_INPUT with nothing changed, for a NULL table or
 * pages, no pages or no bytes, a page of no machine, data that does not end
 * in the last page, a non-zero @offset after the first call, a
 * @max_segment under a page, or a table whose end a call with @left_pages
 * 0 has marked (the kernel cannot grow one either).
 */
DMAMAP_API DMAMAP_MUST_CHECK int sg_alloc_append_table_from_pages(struct sg_append_table *sgt_append,
								  struct page **pages, unsigned int n_pages,
								  unsigned int offset, unsigned long size,
								  unsigned int max_segment, unsigned int left_pages,
								  gfp_t gfp);

/** sg_free_append_table() - free the arrays of an append table (not its pages); the table is left zeroed. */
DMAMAP_API void sg_free_append_table(struct sg_append_table *table);

/**
 * sgl_alloc_order() - a list of freshly allocated blocks of pages holding @length bytes
 * @length: bytes, non-zero, at most the RAM of the current machine
 * @order: each entry's block is 2^@order pages (0 to MAX_ORDER - 1)
 * @chainable: add one entry with no page after the data entries, free for sg_chain()
 * @gfp: for the pages (host memory holds the list itself, as sg_alloc_table()'s)
 * @nent_p: receives the number of data entries, when not NULL
 *
 * As the kernel's: each entry points at a block of 2^@order pages from the
 * current machine, at offset 0, holding PAGE_SIZE << @order bytes but the
 * last, which holds what is left; the list is one array, its last entry
 * marked as the end. The pages are not zeroed unless @gfp says __GFP_ZERO.
 * The caller owns the list and its pages and frees both with
 * sgl_free_order() (sgl_free() for order 0) with the same @order.
 * Return: the list; NULL when an allocation fails (whatever was allocated is
 * freed again; DMAMAP_FAULT_HOST_ALLOC and DMAMAP_FAULT_PAGE_ALLOC inject
 * it) and for a zero @length, a bad @order or a @length beyond RAM
 * (reported as DMAMAP_REPORT_BAD_INPUT); *@nent_p is then left as it was.
 */
DMAMAP_API struct scatterlist *sgl_alloc_order(unsigned long long length, unsigned int order, bool chainable, gfp_t gfp,
					       unsigned int *nent_p);

/** sgl_alloc() - sgl_alloc_order() of single pages, not chainable; free with sgl_free(). */
DMAMAP_API struct scatterlist *sgl_alloc(unsigned long long length, gfp_t gfp, unsigned int *nent_p);

/**
 * sgl_free_n_order() - free the pages of the first @nents entries of @sgl, then the list
 * @sgl: a list from sgl_alloc_order(); NULL does nothing
 * @nents: entries whose pages to free (the walk stops at the list's end too)
 * @order: the order the list was allocated with
 *
 * Entries with no page (a chainable list's spare entry) are passed over.
 */
DMAMAP_API void sgl_free_n_order(struct scatterlist *sgl, int nents, int order);

/** sgl_free_order() - free every page of a sgl_alloc_order() list, then the list. */
DMAMAP_API void sgl_free_order(struct scatterlist *sgl, int order);

/** sgl_free() - free a sgl_alloc() list and its pages: sgl_free_order() of order 0. */
DMAMAP_API void sgl_free(struct scatterlist *sgl);

/**
 * sg_copy_from_buffer() - copy @buflen bytes from @buf into the data of the list
 * Return: bytes copied (stops at the end of the list). The CPU stores go
 * through the cache, as the kernel's.
 */
DMAMAP_API size_t sg_copy_from_buffer(struct scatterlist *sgl, unsigned int nents, const void *buf, size_t buflen);

/** sg_copy_to_buffer() - copy up to @buflen bytes of the list's data into @buf; return bytes copied. */
DMAMAP_API size_t sg_copy_to_buffer(struct scatterlist *sgl, unsigned int nents, void *buf, size_t buflen);

/**
 * sg_copy_buffer() - copy between @buf and the list's data from byte @skip on
 * @sgl: the list
 * @nents: entries of it to use
 * @buf: the buffer
 * @buflen: bytes to copy at most
 * @skip: bytes of the list's data to pass over first (a negative @skip is reported: 0 copied)
 * @to_buffer: true copies from the list into @buf, false from @buf into the list
 *
 * Copies into the list are CPU stores through the cache, as
 * sg_copy_from_buffer()'s. An entry with no page, or one that runs outside
 * RAM, is reported and ends the copy.
 * Return: bytes copied: fewer than @buflen when the first @nents entries hold
 * fewer than @skip + @buflen bytes, 0 when they hold no more than @skip.
 */
DMAMAP_API size_t sg_copy_buffer(struct scatterlist *sgl, unsigned int nents, void *buf, size_t buflen, off_t skip,
				 bool to_buffer);

/** sg_pcopy_from_buffer() - sg_copy_buffer() from @buf into the list's data, starting @skip bytes in. */
DMAMAP_API size_t sg_pcopy_from_buffer(struct scatterlist *sgl, unsigned int nents, const void *buf, size_t buflen,
				       off_t skip);

/** sg_pcopy_to_buffer() - sg_copy_buffer() from the list's data, starting @skip bytes in, into @buf. */
DMAMAP_API size_t sg_pcopy_to_buffer(struct scatterlist *sgl, unsigned int nents, void *buf, size_t buflen,
				     off_t skip);

/**
 * sg_zero_buffer() - zero @buflen bytes of the list's data from byte @skip on
 *
 * CPU stores through the cache, as sg_copy_from_buffer()'s.
 * Return: bytes zeroed (fewer when the first @nents entries end sooner).
 */
DMAMAP_API size_t sg_zero_buffer(struct scatterlist *sgl, unsigned int nents, size_t buflen, off_t skip);

/**
 * sg_init_marker() - mark entry @nents - 1 of @sgl as the list's end (an array set up by hand)
 * @sgl: the array
 * @nents: entries in it, at least 1
 */
static inline void sg_init_marker(struct scatterlist *sgl, unsigned int nents)
{
	sg_mark_end(&sgl[nents - 1]);
}

/*
 * Page iterators: each page an entry's data touches (for_each_sg_page(),
 * for_each_sgtable_page()), or each page-sized step of each DMA segment of a
 * mapped list (for_each_sg_dma_page(), for_each_sgtable_dma_page()), as
 * drivers fill page tables of their own. As the kernel counts them, an
 * entry's pages run from its page (sg_page()) to the page holding its last
 * byte, offset + length - 1; a DMA segment's likewise from the entry's offset
 * over sg_dma_len() bytes, at sg_dma_address() + n * PAGE_SIZE. The walk
 * starts @pgoffset pages into the first entry.
 */
struct sg_page_iter {
	struct scatterlist *sg;   /* the entry being walked */
	unsigned int sg_pgoffset; /* the page of it: sg_page_iter_page() */
	/* the iterator's own */
	unsigned int __nents;     /* entries left, sg included */
	int __pg_advance;         /* pages to step before the next page is reported */
};

struct sg_dma_page_iter {
	struct sg_page_iter base;
};

/** __sg_page_iter_start() - set @piter before page @pgoffset of the first of @nents entries of @sglist. */
DMAMAP_API void __sg_page_iter_start(struct sg_page_iter *piter, struct scatterlist *sglist, unsigned int nents,
				     unsigned long pgoffset);

/** __sg_page_iter_next() - step @piter to the next page of the entries' data; false past the last. */
DMAMAP_API bool __sg_page_iter_next(struct sg_page_iter *piter);

/** __sg_page_iter_dma_next() - step @dma_iter to the next page of the DMA segments; false past the last. */
DMAMAP_API bool __sg_page_iter_dma_next(struct sg_dma_page_iter *dma_iter);

/**
 * sg_page_iter_page() - the page @piter is at
 * Return: the page sg_page_iter_page(@piter)->sg_pgoffset pages after the
 * entry's first; NULL (reported) when the entry has no page or the page is
 * not RAM of the entry's machine.
 */
DMAMAP_API struct page *sg_page_iter_page(struct sg_page_iter *piter);

/** sg_page_iter_dma_address() - the bus address of the DMA page @dma_iter is at: the segment's + its page offset. */
static inline dma_addr_t sg_page_iter_dma_address(struct sg_dma_page_iter *dma_iter)
{
	return sg_dma_address(dma_iter->base.sg) + ((dma_addr_t)dma_iter->base.sg_pgoffset << PAGE_SHIFT);
}

#define for_each_sg_page(sglist, piter, nents, pgoffset) \
	for (__sg_page_iter_start((piter), (sglist), (nents), (pgoffset)); __sg_page_iter_next(piter);)
#define for_each_sg_dma_page(sglist, dma_iter, dma_nents, pgoffset)                        \
	for (__sg_page_iter_start(&(dma_iter)->base, (sglist), (dma_nents), (pgoffset));   \
	     __sg_page_iter_dma_next(dma_iter);)
/* Every page of a table's entries (its orig_nents), every DMA page of a mapped table (its nents). */
#define for_each_sgtable_page(sgt, piter, pgoffset) for_each_sg_page((sgt)->sgl, piter, (sgt)->orig_nents, pgoffset)
#define for_each_sgtable_dma_page(sgt, dma_iter, pgoffset) \
	for_each_sg_dma_page((sgt)->sgl, dma_iter, (sgt)->nents, pgoffset)

/*
 * The mapping iterator: a list's data a page at a time, as CPU addresses, for
 * drivers that copy or checksum a request with the CPU (PIO, a crypto
 * fallback, an unaligned head). The flags say what the caller does with the
 * bytes: SG_MITER_FROM_SG reads them, SG_MITER_TO_SG writes them;
 * SG_MITER_ATOMIC and SG_MITER_LOCAL choose the kernel's kind of kmap, the
 * same here (every simulated page is in the linear map). What the caller
 * stores through @addr is a CPU store like any other: cached, seen by the
 * device only after the DMA API's maintenance.
 */
#define SG_MITER_ATOMIC (1u << 0)  /* the kernel maps with kmap_atomic() */
#define SG_MITER_TO_SG (1u << 1)   /* the caller writes the list's data */
#define SG_MITER_FROM_SG (1u << 2) /* the caller reads the list's data */
#define SG_MITER_LOCAL (1u << 3)   /* the kernel maps with kmap_local_page() */

struct sg_mapping_iter {
	struct page *page;  /* the page of the current mapping */
	void *addr;         /* the CPU address of its first byte */
	size_t length;      /* bytes at @addr, never past the end of the page or of the entry */
	size_t consumed;    /* bytes used: @length after sg_miter_next(); lower it to take fewer */
	/* the iterator's own */
	struct scatterlist *dmamap_sg;  /* the entry being walked */
	unsigned int dmamap_left;       /* entries left, dmamap_sg included */
	unsigned int dmamap_pos;        /* bytes of dmamap_sg's data passed */
	unsigned int dmamap_flags;      /* SG_MITER_* */
};

/**
 * sg_miter_start() - set @miter to walk the data of the first @nents entries of @sgl
 * @miter: the caller's iterator
 * @sgl: the list
 * @nents: entries to walk (chain links not counted)
 * @flags: SG_MITER_FROM_SG or SG_MITER_TO_SG, with SG_MITER_ATOMIC or SG_MITER_LOCAL if wanted
 *
 * Nothing is mapped until sg_miter_next().
 */
DMAMAP_API void sg_miter_start(struct sg_mapping_iter *miter, struct scatterlist *sgl, unsigned int nents,
			       unsigned int flags);

/**
 * sg_miter_next() - map the next piece of the list's data
 * @miter: an iterator sg_miter_start() set up
 *
 * Ends the current mapping as sg_miter_stop() does, so the walk goes on
 * @miter->consumed bytes after its start; then sets @miter->page, ->addr and
 * ->length to the next bytes: those of one entry within one page (an entry
 * that crosses a page boundary comes in two pieces; entries with no bytes
 * are passed over). @miter->consumed is set to @miter->length.
 * Return: true with a mapping; false at the end of the @nents entries, or
 * when an entry has no page or runs outside RAM (reported).
 */
DMAMAP_API bool sg_miter_next(struct sg_mapping_iter *miter);

/**
 * sg_miter_skip() - move the walk @offset bytes on
 * @miter: an iterator sg_miter_start() set up
 * @offset: bytes to pass over
 *
 * Ends the current mapping first, as sg_miter_stop() does; the next
 * sg_miter_next() maps from the new place.
 * Return: true; false when the entries end before @offset bytes were passed.
 */
DMAMAP_API bool sg_miter_skip(struct sg_mapping_iter *miter, size_t offset);

/**
 * sg_miter_stop() - end the current mapping of @miter
 * @miter: an iterator sg_miter_start() set up
 *
 * The walk moves @miter->consumed bytes on from the mapping's start, and
 * @miter->page, ->addr, ->length and ->consumed are cleared; sg_miter_next()
 * goes on from there. A @miter->consumed above @miter->length is reported
 * and taken as @miter->length.
 */
DMAMAP_API void sg_miter_stop(struct sg_mapping_iter *miter);

DMAMAP_END_DECLS

#endif /* DMAMAP_SCATTERLIST_H */
