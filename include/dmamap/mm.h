/* SPDX-License-Identifier: MIT */
/*
 * Page protections, the consistent (coherent-remap) region and simulated user
 * mappings.
 *
 * A machine has a consistent region of consistent_size bytes of host address
 * space where coherent DMA buffers get their uncached kernel mapping, as on
 * ARM before ARMv7's atomic pools. Each page of it has a pte (a pfn and a
 * memory type) that tests can read; a mapped page is a real host alias of its
 * RAM: uncached and write-combining aliases see RAM itself, cached ones the
 * CPU's cached view.
 *
 * A vm_area_struct made by dmamap_vma_create() stands for a user mapping: its
 * vm_start is a real host address, populated with remap_pfn_range() or
 * vm_insert_page() as a driver's mmap handler does.
 */
#ifndef DMAMAP_MM_H
#define DMAMAP_MM_H

#include <dmamap/types.h>

DMAMAP_BEGIN_DECLS

/* Memory types a pte can carry. */
enum dmamap_memtype {
	DMAMAP_MT_NONE = 0,       /* no mapping */
	DMAMAP_MT_CACHED,         /* normal cached memory: the CPU's cached view */
	DMAMAP_MT_UNCACHED,       /* strongly ordered / device: RAM itself */
	DMAMAP_MT_DMACOHERENT,    /* normal non-cacheable (pgprot_dmacoherent): RAM itself */
	DMAMAP_MT_WRITECOMBINE,   /* bufferable, write-combining: RAM itself */
	DMAMAP_MT_NR
};

typedef struct {
	unsigned long pgprot;
} pgprot_t;

#define __pgprot(x) ((pgprot_t){ (x) })
#define pgprot_val(p) ((p).pgprot)
#define DMAMAP_PROT_MT_MASK 0x0fUL
#define DMAMAP_PROT_RDONLY 0x10UL
#define pgprot_memtype(p) ((enum dmamap_memtype)(pgprot_val(p) & DMAMAP_PROT_MT_MASK))
#define DMAMAP_PROT_WITH_MT(p, mt) __pgprot((pgprot_val(p) & ~DMAMAP_PROT_MT_MASK) | (unsigned long)(mt))

#define PAGE_NONE __pgprot(DMAMAP_MT_NONE)
#define PAGE_KERNEL __pgprot(DMAMAP_MT_CACHED)
#define PAGE_SHARED __pgprot(DMAMAP_MT_CACHED)
#define PAGE_READONLY __pgprot(DMAMAP_MT_CACHED | DMAMAP_PROT_RDONLY)
#define pgprot_kernel PAGE_KERNEL
#define pgprot_noncached(p) DMAMAP_PROT_WITH_MT(p, DMAMAP_MT_UNCACHED)
#define pgprot_writecombine(p) DMAMAP_PROT_WITH_MT(p, DMAMAP_MT_WRITECOMBINE)
#define pgprot_dmacoherent(p) DMAMAP_PROT_WITH_MT(p, DMAMAP_MT_DMACOHERENT)

/* vm_flags bits used here. */
#define VM_READ 0x1UL
#define VM_WRITE 0x2UL
#define VM_SHARED 0x8UL
#define VM_IO 0x4000UL
#define VM_PFNMAP 0x400UL
#define VM_MIXEDMAP 0x10000000UL

struct dmamap_vma_private;

struct vm_area_struct {
	unsigned long vm_start;       /* first host address of the mapping */
	unsigned long vm_end;         /* one past the last */
	unsigned long vm_pgoff;       /* offset into the object, in pages */
	pgprot_t vm_page_prot;        /* protection for new ptes; PAGE_SHARED at creation */
	unsigned long vm_flags;
	void *vm_private_data;        /* the driver's */
	/* library-private */
	struct dmamap_vma_private *dmamap;
};

/**
 * dmamap_vma_create() - a simulated user mapping of @size bytes
 * @m: the machine whose memory it will map
 * @size: bytes, a non-zero page multiple
 *
 * Reserves @size bytes of host address space, inaccessible until populated.
 * vm_pgoff is 0, vm_page_prot PAGE_SHARED, vm_flags VM_READ | VM_WRITE |
 * VM_SHARED. The caller owns it and releases it with dmamap_vma_destroy().
 * Return: the vma, or NULL with errno: EINVAL (bad size, NULL machine),
 * ENOMEM (host or injected DMAMAP_FAULT_HOST_ALLOC failure).
 */
DMAMAP_API struct vm_area_struct *dmamap_vma_create(struct dmamap_machine *m, size_t size);

/**
 * dmamap_vma_destroy() - unmap and free a vma; NULL is ignored
 *
 * A vma still live when its machine is destroyed is reported then
 * (DMAMAP_REPORT_LEAK) and unmapped; it stays the caller's to destroy, which
 * then only frees it (reported: the machine is gone). A pointer that is no
 * vma of dmamap_vma_create() still live (one destroyed already, before or
 * after its machine was, or one the library never made) is reported
 * process-wide (DMAMAP_REPORT_BAD_INPUT) and nothing is done: the pointer is
 * compared, never read through.
 */
DMAMAP_API void dmamap_vma_destroy(struct vm_area_struct *vma);

/**
 * remap_pfn_range() - map frames [@pfn, @pfn + size/PAGE_SIZE) at @addr
 * @vma: the vma
 * @addr: page-aligned host address inside the vma
 * @pfn: first frame; every frame must be RAM of the vma's machine
 * @size: bytes, a page multiple; the range must lie inside the vma
 * @prot: the memory type (pgprot_noncached(), pgprot_writecombine()...)
 *
 * Each page becomes a host alias of its RAM (cached view for
 * DMAMAP_MT_CACHED). Pages already mapped are an error.
 * Return: 0; -EINVAL for an unaligned or out-of-vma range or frames that are
 * not RAM; -EBUSY when a page of the range is already mapped; -ENOMEM
 * (DMAMAP_FAULT_REMAP injected or host mmap failure). On error nothing is mapped.
 */
DMAMAP_API DMAMAP_MUST_CHECK int remap_pfn_range(struct vm_area_struct *vma, unsigned long addr, unsigned long pfn,
						  unsigned long size, pgprot_t prot);

/**
 * vm_insert_page() - map one allocated page at @addr with vma->vm_page_prot
 * @vma: the vma
 * @addr: page-aligned host address inside the vma
 * @page: an allocated page of the vma's machine
 *
 * Return: 0; -EINVAL (bad address, page not allocated or of another machine),
 * -EBUSY (already mapped), -ENOMEM (injected or host failure).
 */
DMAMAP_API DMAMAP_MUST_CHECK int vm_insert_page(struct vm_area_struct *vma, unsigned long addr, struct page *page);

/**
 * dmamap_vma_pte() - read the pte of the page of @vma holding @addr
 * @vma: the vma
 * @addr: any address inside the vma
 * @pfn: receives the frame (may be NULL)
 * @prot: receives the protection (may be NULL)
 *
 * Return: 0, -ENOENT when the page is not mapped, -EINVAL outside the vma.
 */
DMAMAP_API int dmamap_vma_pte(const struct vm_area_struct *vma, unsigned long addr, unsigned long *pfn, pgprot_t *prot);

/**
 * dmamap_consistent_pte() - read the pte of the consistent-region page holding @addr
 * @m: the machine
 * @addr: any host address
 * @pfn: receives the frame (may be NULL)
 * @prot: receives the protection (may be NULL)
 *
 * Return: 0, -ENOENT when that page of the region is not mapped, -EINVAL when
 * @addr is not in @m's consistent region.
 */
DMAMAP_API int dmamap_consistent_pte(struct dmamap_machine *m, const void *addr, unsigned long *pfn, pgprot_t *prot);

/** dmamap_consistent_contains() - whether @addr lies in @m's consistent region. */
DMAMAP_API bool dmamap_consistent_contains(struct dmamap_machine *m, const void *addr);

/* Consistent region usage. */
struct dmamap_consistent_stats {
	size_t size;          /* bytes in the region */
	size_t used;          /* bytes reserved by live regions */
	unsigned long regions; /* live regions */
	unsigned long failures; /* reservations refused (full, fragmented, injected) */
};

/** dmamap_consistent_stats() - read @m's consistent-region usage into @st. */
DMAMAP_API void dmamap_consistent_stats(struct dmamap_machine *m, struct dmamap_consistent_stats *st);

DMAMAP_END_DECLS

#endif /* DMAMAP_MM_H */
