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

/**
 * sg_copy_from_buffer() - copy @buflen bytes from @buf into the data of the list
 * Return: bytes copied (stops at the end of the list). The CPU stores go
 * through the cache, as the kernel's.
 */
DMAMAP_API size_t sg_copy_from_buffer(struct scatterlist *sgl, unsigned int nents, const void *buf, size_t buflen);

/** sg_copy_to_buffer() - copy up to @buflen bytes of the list's data into @buf; return bytes copied. */
DMAMAP_API size_t sg_copy_to_buffer(struct scatterlist *sgl, unsigned int nents, void *buf, size_t buflen);

DMAMAP_END_DECLS

#endif /* DMAMAP_SCATTERLIST_H */
