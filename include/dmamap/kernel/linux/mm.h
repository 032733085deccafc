/* SPDX-License-Identifier: MIT */
/*
 * <linux/mm.h> of Linux 6.x over libdmamap, as far as DMA code needs it:
 * struct page and its conversions (page_address(), virt_to_page(),
 * page_to_phys(), page_to_virt()...), page geometry, vm_area_struct and the
 * mmap helpers (remap_pfn_range(), vm_insert_page(), vma_pages()), offset_in_page(),
 * PAGE_ALIGNED(), PHYS_PFN(), is_vmalloc_addr() (true in a machine's vmalloc
 * area, <linux/vmalloc.h>).
 */
#ifndef _LINUX_MM_H
#define _LINUX_MM_H

#include <dmamap/linux-api.h>
#include <linux/gfp.h>
#include <dmamap/page.h>
#include <dmamap/mm.h>
/* is_vmalloc_addr(): true in a machine's vmalloc area (<dmamap/vmalloc.h>) */
#include <dmamap/vmalloc.h>

DMAMAP_BEGIN_DECLS

#define offset_in_page(p) ((unsigned long)(p) & ~PAGE_MASK)
/* PAGE_ALIGNED() - whether the address or size @addr is a multiple of PAGE_SIZE. */
#define PAGE_ALIGNED(addr) IS_ALIGNED((unsigned long)(addr), PAGE_SIZE)
/* PHYS_PFN() - the frame number of the physical address @x. */
#define PHYS_PFN(x) ((unsigned long)((x) >> PAGE_SHIFT))

/** page_to_virt() - page_address(): every simulated page is in the linear map. */
static inline void *page_to_virt(const struct page *page)
{
	return page_address(page);
}

/** lowmem_page_address() - page_address(): every simulated page is in the linear map. */
static inline void *lowmem_page_address(const struct page *page)
{
	return page_address(page);
}

/** vma_pages() - the number of pages @vma spans. */
static inline unsigned long vma_pages(const struct vm_area_struct *vma)
{
	return (vma->vm_end - vma->vm_start) >> PAGE_SHIFT;
}

DMAMAP_END_DECLS

#endif /* _LINUX_MM_H */
