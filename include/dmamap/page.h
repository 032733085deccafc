/* SPDX-License-Identifier: MIT */
/*
 * Page frames and the buddy page allocator of a simulated machine.
 *
 * Every page frame of RAM has a struct page. Pages come from a buddy
 * allocator (orders 0 to MAX_ORDER - 1) with two zones: DMA (below the
 * machine's dma_zone_limit) and Normal (the rest). GFP_DMA allocations come
 * only from the DMA zone; others prefer Normal and fall back to DMA, as the
 * kernel does. No allocation ever sleeps: the allocator holds a spinlock for a
 * few hundred instructions at most, so GFP_ATOMIC is always honoured.
 *
 * page_address() is the page's address in the machine's *linear map*: the
 * CPU's cached view of RAM. Stores there reach RAM only through cache
 * maintenance (see <dmamap/cache.h>).
 */
#ifndef DMAMAP_PAGE_H
#define DMAMAP_PAGE_H

#include <dmamap/types.h>

DMAMAP_BEGIN_DECLS

/* Page flag bits (struct page.flags). */
enum pageflags {
	PG_reserved = 0, /* not managed by the allocator */
	PG_buddy,        /* free, in the buddy allocator */
	PG_head,         /* first page of an allocated block */
	PG_tail,         /* a later page of an allocated block */
	PG_dma_zone,     /* lies in the DMA zone */
	PG_dcache_clean, /* the kernel's hint: no dirty lines in the inner cache */
	PG_private,      /* page->private is in use by its owner */
	PG_slab,         /* held by kmalloc: freed only through kfree() */
	__NR_PAGEFLAGS
};

struct page {
	unsigned long flags;            /* enum pageflags bits */
	int _refcount;                  /* references; 0 when free (use get_page/put_page) */
#ifdef __cplusplus
	unsigned long private_;         /* owner's data ("private" is a C++ keyword) */
#else
	unsigned long private;          /* owner's data */
#endif
	/* library-private below: do not touch */
	struct dmamap_machine *dmamap_machine;
	unsigned int dmamap_order;      /* order of the block this page heads (free or allocated) */
	unsigned int dmamap_next;       /* free-list links (page indexes) */
	unsigned int dmamap_prev;
};

/** PageFlag() - whether flag @bit is set on @page (a racy read, as the kernel's). */
static inline bool PageFlag(const struct page *page, enum pageflags bit)
{
	return (page->flags >> bit) & 1UL;
}

/**
 * dmamap_alloc_pages() - allocate 2^@order physically contiguous pages
 * @m: the machine
 * @gfp: GFP_KERNEL, GFP_ATOMIC, with __GFP_DMA (DMA zone only) and __GFP_ZERO
 *       (the CPU view of the pages is zeroed: the zeroes sit in the cache,
 *       dirty, as after the kernel's clear_page) as wanted
 * @order: 0 to MAX_ORDER - 1
 *
 * The block is naturally aligned. The caller owns it and frees it with
 * dmamap_free_pages() with the same order.
 * Return: the head page, or NULL when no block is free, when fault injection
 * (DMAMAP_FAULT_PAGE_ALLOC) fails the attempt, or for a bad order or unknown
 * gfp bits (reported, nothing changed).
 */
DMAMAP_API struct page *dmamap_alloc_pages(struct dmamap_machine *m, gfp_t gfp, unsigned order);

/**
 * dmamap_free_pages() - return a block to its machine's allocator
 * @page: the head page returned by dmamap_alloc_pages(); NULL is ignored
 * @order: the order it was allocated with
 *
 * Drops the caller's reference; the block is freed when no reference remains
 * (see get_page()). Freeing a page that is free (double free), that is not the
 * head of an allocated block, or with a different order is reported
 * (DMAMAP_REPORT_PAGE_MISUSE) and refused: nothing changes.
 */
DMAMAP_API void dmamap_free_pages(struct page *page, unsigned order);

/* The kernel's forms, acting on the current machine. */
/** alloc_pages() - dmamap_alloc_pages() on the current machine. */
DMAMAP_API struct page *alloc_pages(gfp_t gfp, unsigned order);
/** alloc_page() - one page from the current machine: alloc_pages(gfp, 0). */
DMAMAP_API struct page *alloc_page(gfp_t gfp);
/** __free_pages() - dmamap_free_pages(). */
DMAMAP_API void __free_pages(struct page *page, unsigned order);
/** __free_page() - dmamap_free_pages(page, 0). */
DMAMAP_API void __free_page(struct page *page);
/**
 * __get_free_pages() - allocate pages on the current machine, return their linear address
 * @gfp: as dmamap_alloc_pages()
 * @order: as dmamap_alloc_pages()
 *
 * Return: the address (as an unsigned long), or 0 on failure. Free with free_pages().
 */
DMAMAP_API unsigned long __get_free_pages(gfp_t gfp, unsigned order);
/* __get_free_page() - __get_free_pages(gfp, 0), the kernel's macro. */
#define __get_free_page(gfp) __get_free_pages((gfp), 0)
/** get_zeroed_page() - __get_free_pages(gfp | __GFP_ZERO, 0). */
DMAMAP_API unsigned long get_zeroed_page(gfp_t gfp);
/** free_pages() - free by linear address what __get_free_pages() returned; 0 is ignored. */
DMAMAP_API void free_pages(unsigned long addr, unsigned order);
/** free_page() - free_pages(addr, 0). */
DMAMAP_API void free_page(unsigned long addr);

/*
 * The forms that carry the caller's file:line, behind the macros below (as
 * the DMA API wrappers do; `(free_pages)(...)` reaches the plain function):
 * freeing pages still mapped for DMA is reported
 * (DMAMAP_REPORT_FREE_MAPPED, naming both lines) and refused while the
 * DMA-API checker is on -- the pages stay allocated, so that what the device
 * still writes lands nowhere new. A work item still pending or a tasklet
 * still scheduled in the block is reported and cancelled, and a lock in it
 * that the calling thread holds reported, as by dmamap_kfree(). @file may
 * be NULL.
 */
/** dmamap_free_pages_at() - dmamap_free_pages() called at @file:@line. */
DMAMAP_API void dmamap_free_pages_at(struct page *page, unsigned order, const char *file, int line);
/** dmamap_free_pages_addr_at() - free_pages() called at @file:@line. */
DMAMAP_API void dmamap_free_pages_addr_at(unsigned long addr, unsigned order, const char *file, int line);

#define __free_pages(p, o) dmamap_free_pages_at((p), (o), __FILE__, __LINE__)
#define __free_page(p) dmamap_free_pages_at((p), 0, __FILE__, __LINE__)
#define free_pages(a, o) dmamap_free_pages_addr_at((a), (o), __FILE__, __LINE__)
#define free_page(a) dmamap_free_pages_addr_at((a), 0, __FILE__, __LINE__)

/**
 * split_page() - make an allocated block of 2^@order pages into 2^@order
 * independently allocated order-0 pages, each with one reference
 * @page: the head page, with a single reference
 * @order: the order it was allocated with
 *
 * Each page is then freed on its own (__free_page()). A page that is not the
 * head of such a block, or a wrong order, is reported and nothing changes.
 */
DMAMAP_API void split_page(struct page *page, unsigned order);

/**
 * get_page() - take a reference on an allocated page
 * @page: the head page of an allocated block
 *
 * Taking a reference on a free page is reported and ignored.
 */
DMAMAP_API void get_page(struct page *page);
/**
 * put_page() - drop a reference on an order-0 page; frees it at zero
 * @page: the page
 */
DMAMAP_API void put_page(struct page *page);
/** page_count() - the page's reference count. */
DMAMAP_API int page_count(const struct page *page);

/*
 * Address conversions. The linear map is the CPU's cached view of RAM; a
 * pointer is a linear-map address when dmamap_machine_of() finds its machine.
 */

/** page_address() - the page's linear-map address (CPU, cached). */
DMAMAP_API void *page_address(const struct page *page);
/** page_to_pfn() - the page's frame number (physical address >> PAGE_SHIFT). */
DMAMAP_API unsigned long page_to_pfn(const struct page *page);
/** page_to_phys() - the page's physical address. */
DMAMAP_API phys_addr_t page_to_phys(const struct page *page);

/**
 * virt_addr_valid() - whether @addr is a linear-map address of some machine
 * @addr: any host pointer
 */
DMAMAP_API bool virt_addr_valid(const volatile void *addr);
/**
 * virt_to_phys() - physical address of a linear-map address
 * @addr: a linear-map address of any machine
 *
 * Return: the physical address; for any other pointer, the failure is
 * reported (DMAMAP_REPORT_BAD_ADDRESS, process-wide) and ~0 is returned.
 */
DMAMAP_API phys_addr_t virt_to_phys(const volatile void *addr);
/**
 * virt_to_page() - the struct page of a linear-map address
 * @addr: a linear-map address of any machine
 *
 * Return: the page, or NULL (reported) for any other pointer.
 */
DMAMAP_API struct page *virt_to_page(const volatile void *addr);

/**
 * dmamap_pfn_to_page() - the struct page of frame @pfn of machine @m
 * Return: the page, or NULL when @pfn is not RAM of @m (not reported).
 */
DMAMAP_API struct page *dmamap_pfn_to_page(struct dmamap_machine *m, unsigned long pfn);
/** dmamap_phys_to_page() - the struct page holding @phys on @m, or NULL when not RAM. */
DMAMAP_API struct page *dmamap_phys_to_page(struct dmamap_machine *m, phys_addr_t phys);
/** dmamap_phys_to_virt() - the linear-map address of @phys on @m, or NULL when not RAM. */
DMAMAP_API void *dmamap_phys_to_virt(struct dmamap_machine *m, phys_addr_t phys);
/** dmamap_pfn_valid() - whether @pfn is a RAM frame of @m. */
DMAMAP_API bool dmamap_pfn_valid(struct dmamap_machine *m, unsigned long pfn);

/* The kernel's forms of the above, on the current machine. */
/** pfn_to_page() - dmamap_pfn_to_page() on the current machine. */
DMAMAP_API struct page *pfn_to_page(unsigned long pfn);
/** phys_to_page() - dmamap_phys_to_page() on the current machine. */
DMAMAP_API struct page *phys_to_page(phys_addr_t phys);
/** phys_to_virt() - dmamap_phys_to_virt() on the current machine. */
DMAMAP_API void *phys_to_virt(phys_addr_t phys);
/** pfn_valid() - dmamap_pfn_valid() on the current machine. */
DMAMAP_API bool pfn_valid(unsigned long pfn);

enum dmamap_zone {
	DMAMAP_ZONE_DMA,
	DMAMAP_ZONE_NORMAL,
	DMAMAP_ZONE_NR
};

/* Page allocator counters of one machine. */
struct dmamap_page_stats {
	unsigned long total_pages[DMAMAP_ZONE_NR]; /* pages managed per zone */
	unsigned long free_pages[DMAMAP_ZONE_NR];  /* free now, per zone */
	unsigned long free_blocks[MAX_ORDER];      /* free blocks per order, both zones */
	unsigned long allocations;                 /* successful allocations */
	unsigned long frees;                       /* blocks freed */
	unsigned long failures;                    /* allocations that found no block */
	unsigned long injected_failures;           /* allocations failed by fault injection */
	unsigned long refused_frees;               /* frees refused (double free, bad order...) */
};

/**
 * dmamap_page_stats() - read the page allocator counters of @m
 * @m: the machine
 * @st: caller-owned, overwritten
 */
DMAMAP_API void dmamap_page_stats(struct dmamap_machine *m, struct dmamap_page_stats *st);

DMAMAP_END_DECLS

#endif /* DMAMAP_PAGE_H */
