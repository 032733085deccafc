/* SPDX-License-Identifier: MIT */
/*
 * The kernel's vmalloc area over simulated RAM.
 *
 * Each machine has a vmalloc area: a range of host address space of its own,
 * apart from the linear map, reserved on the first vmalloc() or vmap() and
 * released with the machine. vmalloc() takes the pages it needs one at a
 * time from the page allocator and maps them at consecutive addresses of
 * the area, each a host alias of its page's CPU view: a store through the
 * vmalloc address lands in exactly the bytes page_address() of the page
 * shows and the cache model tracks, as a cached kernel mapping would. The
 * pages are deliberately not physically contiguous: they are mapped in
 * descending frame order, so that no page follows its predecessor in
 * physical memory, as vmalloc memory on a kernel that ran for a while is
 * scattered. An unmapped guard page follows every area.
 *
 * So the classic mistakes with such memory show here as they would on a
 * kernel with CONFIG_DMA_API_DEBUG and CONFIG_DEBUG_SG: dma_map_single() of
 * a vmalloc address is refused (DMAMAP_REPORT_BAD_ADDRESS, DMA_MAPPING_ERROR,
 * nothing mapped), as are sg_set_buf() and sg_init_one() of one (the entry is
 * left as it was), and virt_to_page() and virt_to_phys() of one are
 * reported, naming vmalloc_to_page(). The right way is vmalloc_to_page()
 * per page, then dma_map_page() or an sg table of those pages.
 *
 * vfree() of anything else than the start of a live vmalloc() area --
 * kmalloc memory, an address inside an area, a vmap() area, an area freed
 * already (its freeing line named while the address is not reused) -- is
 * reported as DMAMAP_REPORT_PAGE_MISUSE and frees nothing; kfree() of
 * vmalloc memory is refused likewise. A freed area's addresses go back to
 * inaccessible host memory, so a use after vfree() faults; they are reused
 * only once the area's later addresses have all been handed out. Areas
 * still live when their machine is destroyed are reported one by one
 * (DMAMAP_REPORT_LEAK) with the line that made them.
 *
 * Memcheck cannot follow one byte through two host addresses: a vmalloc
 * area's pages are defined through both, and vmalloc() memory is not
 * tracked as uninitialised.
 *
 * Each kernel call is a macro passing the caller's file and line; the
 * calls act on the current machine (dmamap_machine_current()), but for
 * vfree(), vunmap() and vmalloc_to_page(), which find the machine from
 * the address, and vmap(), which takes the pages' machine. Thread-safe:
 * one lock per machine guards its area.
 */
#ifndef DMAMAP_VMALLOC_H
#define DMAMAP_VMALLOC_H

#include <dmamap/types.h>
#include <dmamap/page.h>
#include <dmamap/mm.h>

DMAMAP_BEGIN_DECLS

/* vm_struct flags (vmap()'s @flags). */
#define VM_IOREMAP 0x00000001UL
#define VM_ALLOC 0x00000002UL
#define VM_MAP 0x00000004UL
#define VM_USERMAP 0x00000008UL

/**
 * dmamap_vmalloc_at() - __vmalloc(): @size bytes of the current machine's vmalloc area
 * @size: bytes, rounded up to whole pages
 * @gfp: GFP_KERNEL, with __GFP_ZERO (zeroed through the CPU cache, as
 *       memset would), __GFP_DMA (pages of the DMA zone) and __GFP_NOWARN as
 *       wanted; it may sleep, so a call holding a spinlock or with
 *       interrupts off is reported (DMAMAP_REPORT_SLEEP_IN_ATOMIC) as a
 *       GFP_KERNEL kmalloc() is
 * @file: the caller's source file for reports, or NULL
 * @line: the caller's source line
 *
 * The caller owns the area and frees it with vfree() (or kvfree()).
 * Return: the area's first byte, page aligned; NULL for a size of 0 or one
 * larger than the machine's RAM (both reported as DMAMAP_REPORT_BAD_INPUT,
 * where the kernel warns; the second not under __GFP_NOWARN), for unknown
 * gfp bits (reported), when the pages cannot all be had
 * (DMAMAP_FAULT_PAGE_ALLOC injects it; those taken go back), when the area
 * has no room left or a mapping fails (DMAMAP_FAULT_REMAP), or when host
 * memory for the record fails (DMAMAP_FAULT_HOST_ALLOC).
 */
DMAMAP_API void *dmamap_vmalloc_at(size_t size, gfp_t gfp, const char *file, int line);

/**
 * dmamap_vmalloc_array_at() - vmalloc_array(): dmamap_vmalloc_at() of @n objects of @size bytes
 * @n: number of objects
 * @size: bytes each
 * @gfp: as dmamap_vmalloc_at()
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 *
 * Return: as dmamap_vmalloc_at(); NULL (not reported, as the kernel's) when
 * @n * @size overflows.
 */
DMAMAP_API void *dmamap_vmalloc_array_at(size_t n, size_t size, gfp_t gfp, const char *file, int line);

/**
 * dmamap_vfree_at() - vfree(): unmap a vmalloc() area and free its pages
 * @addr: what a vmalloc-family call returned; NULL is ignored
 * @file: the caller's source file for reports, or NULL
 * @line: the caller's source line
 *
 * Anything but the start of a live vmalloc() area is reported and nothing
 * is freed: DMAMAP_REPORT_PAGE_MISUSE for an address inside an area, a
 * vmap() area (vunmap() undoes it), a freed area (naming where it was
 * freed) or linear-map memory (kmalloc's: kfree() frees it),
 * DMAMAP_REPORT_BAD_ADDRESS for host memory. With the checker on, an area
 * one of whose pages is still mapped for DMA is not freed either
 * (DMAMAP_REPORT_FREE_MAPPED). It may sleep: outside an interrupt handler,
 * a call holding a spinlock or with interrupts off is reported
 * (DMAMAP_REPORT_SLEEP_IN_ATOMIC), and the area freed all the same. A work
 * item still pending or a tasklet still scheduled in the area is reported
 * (DMAMAP_REPORT_API_MISUSE) and cancelled, and a lock in it that the
 * calling thread holds reported (DMAMAP_REPORT_LOCK_MISUSE), as by
 * dmamap_kfree().
 */
DMAMAP_API void dmamap_vfree_at(const void *addr, const char *file, int line);

/**
 * dmamap_vfree_atomic_at() - vfree_atomic(): dmamap_vfree_at() from any context
 * @addr: as dmamap_vfree_at()
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 *
 * Refused as dmamap_vfree_at() refuses; never a sleep in atomic context.
 */
DMAMAP_API void dmamap_vfree_atomic_at(const void *addr, const char *file, int line);

/**
 * dmamap_vmap_at() - vmap(): map @count pages at consecutive addresses of their machine's vmalloc area
 * @pages: the pages, each a page of one machine, in any order and from
 *         anywhere (the same page twice too)
 * @count: how many
 * @flags: VM_MAP (other vm_struct flags are accepted and ignored)
 * @prot: PAGE_KERNEL (cached: the alias sees the CPU view, as the linear
 *        map does) or an uncached, write-combining or dma-coherent form of
 *        it (pgprot_noncached(PAGE_KERNEL)...: the alias sees RAM itself)
 * @file: the caller's source file for reports, or NULL
 * @line: the caller's source line
 *
 * The pages stay the caller's: vunmap() takes the mapping away and leaves
 * them allocated. It may sleep, as dmamap_vmalloc_at().
 * Return: the first byte of the mapping; NULL (not reported, as the
 * kernel's) for a @count of 0 or more pages than the machine has, NULL
 * reported as DMAMAP_REPORT_BAD_INPUT for NULL @pages, a NULL page, pages
 * of two machines or no memory type in @prot, NULL when the area has no
 * room left, a mapping fails (DMAMAP_FAULT_REMAP) or host memory for the
 * record fails (DMAMAP_FAULT_HOST_ALLOC).
 */
DMAMAP_API void *dmamap_vmap_at(struct page **pages, unsigned int count, unsigned long flags, pgprot_t prot,
				const char *file, int line);

/**
 * dmamap_vunmap_at() - vunmap(): take a vmap() mapping away, leaving its pages allocated
 * @addr: what vmap() returned; NULL is ignored
 * @file: the caller's source file for reports, or NULL
 * @line: the caller's source line
 *
 * Anything but the start of a live vmap() mapping -- a vmalloc() area
 * (vfree() frees it), an address inside a mapping, a mapping undone
 * already -- is reported (DMAMAP_REPORT_PAGE_MISUSE) and nothing changes.
 */
DMAMAP_API void dmamap_vunmap_at(const void *addr, const char *file, int line);

/**
 * dmamap_vmalloc_to_page_at() - vmalloc_to_page(): the page mapped at a vmalloc address
 * @addr: an address in a vmalloc() area or vmap() mapping (any byte of it)
 * @file: the caller's source file for reports, or NULL
 * @line: the caller's source line
 *
 * Return: the struct page of the page @addr lies in, which stays the
 * area's; NULL (not reported) for an address of a vmalloc area that is not
 * mapped (a guard page, a freed area), and NULL reported as
 * DMAMAP_REPORT_BAD_ADDRESS for an address outside every vmalloc area
 * (the kernel's CONFIG_DEBUG_VIRTUAL check): a linear-map address has
 * virt_to_page().
 */
DMAMAP_API struct page *dmamap_vmalloc_to_page_at(const void *addr, const char *file, int line);

/**
 * is_vmalloc_addr() - whether @x lies in the vmalloc area of a live machine
 * @x: any address
 *
 * Return: true for every byte of a vmalloc area, mapped or not (guard
 * pages, freed areas); false for linear-map and host memory.
 */
DMAMAP_API bool is_vmalloc_addr(const void *x);

/* The vmalloc counters of one machine. */
struct dmamap_vmalloc_stats {
	unsigned long live_areas;     /* vmalloc() areas not yet freed */
	unsigned long live_pages;     /* pages those areas hold */
	unsigned long live_vmaps;     /* vmap() mappings not yet undone */
	unsigned long allocations;    /* successful vmalloc() calls */
	unsigned long frees;          /* successful vfree() calls */
	unsigned long failures;       /* vmalloc() and vmap() calls that returned NULL */
	unsigned long refused_frees;  /* vfree() and vunmap() calls refused */
	size_t area_size;             /* bytes of host address space the area spans (0 before first use) */
};

/**
 * dmamap_vmalloc_stats() - read machine @m's vmalloc counters
 * @m: the machine
 * @st: caller-owned, overwritten (zeroed for a NULL machine)
 */
DMAMAP_API void dmamap_vmalloc_stats(struct dmamap_machine *m, struct dmamap_vmalloc_stats *st);

/** vmalloc() - @size bytes of the current machine's vmalloc area (see dmamap_vmalloc_at()). */
static inline void *vmalloc(unsigned long size)
{
	return dmamap_vmalloc_at(size, GFP_KERNEL, NULL, 0);
}

/** vzalloc() - vmalloc() of zeroed memory. */
static inline void *vzalloc(unsigned long size)
{
	return dmamap_vmalloc_at(size, GFP_KERNEL | __GFP_ZERO, NULL, 0);
}

/** vfree() - free a vmalloc() area (see dmamap_vfree_at()). */
static inline void vfree(const void *addr)
{
	dmamap_vfree_at(addr, NULL, 0);
}

/** vmalloc_to_page() - the page mapped at a vmalloc address (see dmamap_vmalloc_to_page_at()). */
static inline struct page *vmalloc_to_page(const void *addr)
{
	return dmamap_vmalloc_to_page_at(addr, NULL, 0);
}

/** dmamap_vmalloc_to_pfn_at() - vmalloc_to_pfn(): the frame of dmamap_vmalloc_to_page_at(), 0 when it has none. */
static inline unsigned long dmamap_vmalloc_to_pfn_at(const void *addr, const char *file, int line)
{
	struct page *page = dmamap_vmalloc_to_page_at(addr, file, line);

	return page ? page_to_pfn(page) : 0;
}

#define __vmalloc(size, gfp) dmamap_vmalloc_at((size), (gfp), __FILE__, __LINE__)
#define vmalloc(size) dmamap_vmalloc_at((size), GFP_KERNEL, __FILE__, __LINE__)
#define vzalloc(size) dmamap_vmalloc_at((size), GFP_KERNEL | __GFP_ZERO, __FILE__, __LINE__)
/* vmalloc_user() - zeroed, as the kernel's, for a driver to map to user space. */
#define vmalloc_user(size) dmamap_vmalloc_at((size), GFP_KERNEL | __GFP_ZERO, __FILE__, __LINE__)
#define vmalloc_array(n, size) dmamap_vmalloc_array_at((n), (size), GFP_KERNEL, __FILE__, __LINE__)
#define vcalloc(n, size) dmamap_vmalloc_array_at((n), (size), GFP_KERNEL | __GFP_ZERO, __FILE__, __LINE__)
/* The simulated machine has one NUMA node: the node is ignored. */
#define vmalloc_node(size, node) ((void)(node), vmalloc(size))
#define vzalloc_node(size, node) ((void)(node), vzalloc(size))
#define vfree(addr) dmamap_vfree_at((addr), __FILE__, __LINE__)
#define vfree_atomic(addr) dmamap_vfree_atomic_at((addr), __FILE__, __LINE__)
#define vmap(pages, count, flags, prot) dmamap_vmap_at((pages), (count), (flags), (prot), __FILE__, __LINE__)
#define vunmap(addr) dmamap_vunmap_at((addr), __FILE__, __LINE__)
#define vmalloc_to_page(addr) dmamap_vmalloc_to_page_at((addr), __FILE__, __LINE__)
#define vmalloc_to_pfn(addr) dmamap_vmalloc_to_pfn_at((addr), __FILE__, __LINE__)

DMAMAP_END_DECLS

#endif /* DMAMAP_VMALLOC_H */
