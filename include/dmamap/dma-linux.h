/* SPDX-License-Identifier: MIT */
/*
 * The library functions behind the Linux 6.x DMA API of <linux/dma-mapping.h>.
 *
 * Each takes the kernel's `unsigned long attrs` (DMA_ATTR_* bit masks) and the
 * caller's file and line, checks the attributes, and hands the call to the same
 * DMA core as the 2012 API: the same validation, checker, reports and ops sets
 * (direct, dmabounce, IOMMU mapper). Driver code does not call these: it calls
 * the kernel's names, which <linux/dma-mapping.h> defines over them.
 *
 * Attributes: DMA_ATTR_WEAK_ORDERING, DMA_ATTR_WRITE_COMBINE,
 * DMA_ATTR_NO_KERNEL_MAPPING, DMA_ATTR_SKIP_CPU_SYNC and
 * DMA_ATTR_FORCE_CONTIGUOUS act as in the 2012 API;
 * DMA_ATTR_ALLOC_SINGLE_PAGES, DMA_ATTR_NO_WARN and DMA_ATTR_PRIVILEGED are
 * accepted and change nothing here (no simulated ops set distinguishes
 * them). Any other bit (including the old DMA_ATTR_WRITE_BARRIER and
 * DMA_ATTR_NON_CONSISTENT positions, gone from Linux 6.x) is reported as
 * DMAMAP_REPORT_BAD_INPUT and the call is refused, with nothing changed.
 */
#ifndef DMAMAP_DMA_LINUX_H
#define DMAMAP_DMA_LINUX_H

#include <dmamap/types.h>
#include <dmamap/scatterlist.h>
#include <dmamap/mm.h>
#include <dmamap/device.h>

DMAMAP_BEGIN_DECLS

/* The Linux 6.x DMA_ATTR_* bits, for the library and <linux/dma-mapping.h>. */
#define DMAMAP_LX_ATTR_WEAK_ORDERING (1UL << 1)
#define DMAMAP_LX_ATTR_WRITE_COMBINE (1UL << 2)
#define DMAMAP_LX_ATTR_NO_KERNEL_MAPPING (1UL << 4)
#define DMAMAP_LX_ATTR_SKIP_CPU_SYNC (1UL << 5)
#define DMAMAP_LX_ATTR_FORCE_CONTIGUOUS (1UL << 6)
#define DMAMAP_LX_ATTR_ALLOC_SINGLE_PAGES (1UL << 7)
#define DMAMAP_LX_ATTR_NO_WARN (1UL << 8)
#define DMAMAP_LX_ATTR_PRIVILEGED (1UL << 9)

/**
 * dmamap_linux_map_page() - dma_map_page_attrs() of Linux 6.x
 * @dev: the device
 * @page: the first page of the buffer
 * @offset: of the buffer in @page
 * @size: bytes, non-zero
 * @dir: DMA_TO_DEVICE, DMA_FROM_DEVICE or DMA_BIDIRECTIONAL
 * @attrs: DMA_ATTR_* bits (see the header comment)
 * @file: the caller's source file for reports, or NULL
 * @line: the caller's source line
 *
 * Return: the bus address, or DMA_MAPPING_ERROR (bad attrs, or whatever the
 * 2012 API's dma_map_page_attrs() refuses).
 */
DMAMAP_API DMAMAP_MUST_CHECK dma_addr_t dmamap_linux_map_page(struct device *dev, struct page *page,
							       unsigned long offset, size_t size,
							       enum dma_data_direction dir, unsigned long attrs,
							       const char *file, int line);

/**
 * dmamap_linux_mapping_error() - dma_mapping_error() of Linux 6.x
 * @dev: the device that made the mapping
 * @dma_addr: what the mapping call returned
 * @file: the caller's source file for reports, or NULL
 * @line: the caller's source line
 *
 * As in include/linux/dma-mapping.h, a driver may return the result as its
 * own error (`ret = dma_mapping_error(dev, addr); if (ret) return ret;`).
 * The checker records that the handle was checked, as the 2012 call does.
 * Return: -ENOMEM for a failed mapping (DMA_MAPPING_ERROR, or what the ops
 * set calls an error), 0 otherwise; -ENOMEM for a NULL or uninitialised
 * device too (reported, DMAMAP_REPORT_BAD_INPUT).
 */
DMAMAP_API DMAMAP_MUST_CHECK int dmamap_linux_mapping_error(struct device *dev, dma_addr_t dma_addr, const char *file,
							     int line);

/**
 * dmamap_linux_unmap_page() - dma_unmap_page_attrs() of Linux 6.x
 * @dev: the device
 * @addr: the bus address dma_map_page() returned
 * @size: the size mapped
 * @dir: the direction mapped
 * @attrs: DMA_ATTR_* bits
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 */
DMAMAP_API void dmamap_linux_unmap_page(struct device *dev, dma_addr_t addr, size_t size, enum dma_data_direction dir,
					unsigned long attrs, const char *file, int line);

/**
 * dmamap_linux_map_single() - dma_map_single_attrs() of Linux 6.x
 * @dev: the device
 * @ptr: a linear-map address (kmalloc(), page_address())
 * @size: bytes, non-zero
 * @dir: the direction
 * @attrs: DMA_ATTR_* bits
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 *
 * Return: the bus address, or DMA_MAPPING_ERROR.
 */
DMAMAP_API DMAMAP_MUST_CHECK dma_addr_t dmamap_linux_map_single(struct device *dev, void *ptr, size_t size,
								 enum dma_data_direction dir, unsigned long attrs,
								 const char *file, int line);

/**
 * dmamap_linux_unmap_single() - dma_unmap_single_attrs() of Linux 6.x
 * @dev: the device
 * @addr: the bus address dma_map_single() returned
 * @size: the size mapped
 * @dir: the direction mapped
 * @attrs: DMA_ATTR_* bits
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 */
DMAMAP_API void dmamap_linux_unmap_single(struct device *dev, dma_addr_t addr, size_t size,
					  enum dma_data_direction dir, unsigned long attrs, const char *file, int line);

/**
 * dmamap_linux_map_sg() - dma_map_sg_attrs() of Linux 6.x
 * @dev: the device
 * @sg: the list
 * @nents: entries to map
 * @dir: the direction
 * @attrs: DMA_ATTR_* bits
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 *
 * Return: the number of DMA segments (sg_dma_address()/sg_dma_len() of the
 * first that many entries), or 0 on any failure.
 */
DMAMAP_API DMAMAP_MUST_CHECK unsigned int dmamap_linux_map_sg(struct device *dev, struct scatterlist *sg, int nents,
							      enum dma_data_direction dir, unsigned long attrs,
							      const char *file, int line);

/**
 * dmamap_linux_unmap_sg() - dma_unmap_sg_attrs() of Linux 6.x: pass the @nents given to the map
 * @dev: the device
 * @sg: the list
 * @nents: the entries given to dma_map_sg() (not its result)
 * @dir: the direction mapped
 * @attrs: DMA_ATTR_* bits
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 */
DMAMAP_API void dmamap_linux_unmap_sg(struct device *dev, struct scatterlist *sg, int nents,
				      enum dma_data_direction dir, unsigned long attrs, const char *file, int line);

/**
 * dmamap_linux_map_sgtable() - dma_map_sgtable(): map every entry of @sgt
 * @dev: the device
 * @sgt: the table; its orig_nents entries are mapped
 * @dir: the direction
 * @attrs: DMA_ATTR_* bits
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 *
 * On success sgt->nents holds the number of DMA segments.
 * Return: 0; -EINVAL for a NULL or empty table, bad attrs or an invalid
 * direction or device; -ENOMEM when the IOMMU mapper ran out of resources
 * (IOVA space above all: a failure behind it that raised no report), as
 * Linux's iommu-dma says, and a retry after unmapping may succeed; -EIO when
 * the mapping failed otherwise (the report raised says why; dmabounce's
 * failures too, as dma-direct says). On error sgt->nents is unchanged and
 * nothing is mapped.
 */
DMAMAP_API DMAMAP_MUST_CHECK int dmamap_linux_map_sgtable(struct device *dev, struct sg_table *sgt,
							   enum dma_data_direction dir, unsigned long attrs,
							   const char *file, int line);

/**
 * dmamap_linux_unmap_sgtable() - dma_unmap_sgtable(): unmap what dma_map_sgtable() mapped
 * @dev: the device
 * @sgt: the table (its orig_nents entries)
 * @dir: the direction mapped
 * @attrs: DMA_ATTR_* bits
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 */
DMAMAP_API void dmamap_linux_unmap_sgtable(struct device *dev, struct sg_table *sgt, enum dma_data_direction dir,
					   unsigned long attrs, const char *file, int line);

/**
 * dmamap_linux_sync_sgtable() - dma_sync_sgtable_for_cpu() / _for_device()
 * @dev: the device
 * @sgt: the mapped table (its orig_nents entries are synced)
 * @dir: the direction mapped
 * @for_cpu: true to give the buffers to the CPU, false to the device
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 *
 * A NULL table is reported (DMAMAP_REPORT_BAD_INPUT) and ignored.
 */
DMAMAP_API void dmamap_linux_sync_sgtable(struct device *dev, struct sg_table *sgt, enum dma_data_direction dir,
					  bool for_cpu, const char *file, int line);

/**
 * dmamap_linux_alloc() - dma_alloc_attrs() of Linux 6.x
 * @dev: the device
 * @size: bytes, non-zero
 * @dma_handle: receives the bus address
 * @gfp: GFP_KERNEL or GFP_ATOMIC
 * @attrs: DMA_ATTR_* bits (DMA_ATTR_WRITE_COMBINE, DMA_ATTR_NO_KERNEL_MAPPING,
 *         DMA_ATTR_FORCE_CONTIGUOUS...)
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 *
 * Return: the CPU address (a cookie with DMA_ATTR_NO_KERNEL_MAPPING), or NULL.
 */
DMAMAP_API void *dmamap_linux_alloc(struct device *dev, size_t size, dma_addr_t *dma_handle, gfp_t gfp,
				    unsigned long attrs, const char *file, int line);

/**
 * dmamap_linux_free() - dma_free_attrs() of Linux 6.x: same size, handle and attrs as the allocation
 * @dev: the device
 * @size: the size allocated
 * @cpu_addr: what the allocation returned, or NULL
 * @dma_handle: its bus address
 * @attrs: DMA_ATTR_* bits
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 *
 * A NULL @cpu_addr frees nothing and is not reported, whatever the other
 * arguments, as Linux 6.x's dma_free_attrs() returns at once (a teardown
 * path may free a buffer it never allocated). Anything else goes to the
 * 2012 API's dma_free_attrs(), with its checks and reports.
 */
DMAMAP_API void dmamap_linux_free(struct device *dev, size_t size, void *cpu_addr, dma_addr_t dma_handle,
				  unsigned long attrs, const char *file, int line);

/**
 * dmamap_linux_mmap() - dma_mmap_attrs() of Linux 6.x
 * @dev: the device
 * @vma: a vma from dmamap_vma_create()
 * @cpu_addr: what the allocation returned
 * @dma_addr: its bus address
 * @size: the size allocated
 * @attrs: DMA_ATTR_* bits of the allocation
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 *
 * The 2012 API's dma_mmap_attrs(), with its checks: DMA_ATTR_WRITE_COMBINE
 * must be the allocation's (dma_mmap_coherent() of a dma_alloc_wc() buffer,
 * dma_mmap_wc() of a coherent one, either of a dma_alloc_noncoherent() one
 * is reported as DMAMAP_REPORT_ATTR_MISMATCH and mapped as allocated).
 * Return: 0, -EINVAL (bad arguments or attrs), -ENXIO (the vma is larger than
 * the buffer), or another -errno from the mapping.
 */
DMAMAP_API DMAMAP_MUST_CHECK int dmamap_linux_mmap(struct device *dev, struct vm_area_struct *vma, void *cpu_addr,
						    dma_addr_t dma_addr, size_t size, unsigned long attrs,
						    const char *file, int line);

/**
 * dmamap_linux_get_sgtable() - dma_get_sgtable_attrs() of Linux 6.x
 * @dev: the device
 * @sgt: the caller's table, filled in (free with sg_free_table())
 * @cpu_addr: what the allocation returned
 * @dma_addr: its bus address
 * @size: the size allocated
 * @attrs: DMA_ATTR_* bits of the allocation
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 *
 * Return: 0 or -errno (-EINVAL for bad attrs).
 */
DMAMAP_API DMAMAP_MUST_CHECK int dmamap_linux_get_sgtable(struct device *dev, struct sg_table *sgt, void *cpu_addr,
							   dma_addr_t dma_addr, size_t size, unsigned long attrs,
							   const char *file, int line);

/**
 * dmamap_linux_alloc_noncoherent() - dma_alloc_noncoherent(): cached memory the driver syncs
 * @dev: the device
 * @size: bytes, non-zero
 * @dma_handle: receives the bus address
 * @dir: the direction the buffer will be used in (a valid mapping direction)
 * @gfp: GFP_KERNEL or GFP_ATOMIC
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 *
 * The buffer is cached memory (the linear map; behind an IOMMU mapping, a
 * cached kernel mapping of the pages the IOMMU maps), never the device's
 * declared memory (as the kernel's, which is dma_alloc_pages()'s, it does not
 * take it; dma_alloc_attrs() with DMA_ATTR_NON_CONSISTENT does): the driver gives it to
 * the device with dma_sync_single_for_device() and back with
 * dma_sync_single_for_cpu(), as for a streaming mapping.
 * Return: the CPU address, or NULL (an invalid @dir is reported).
 */
DMAMAP_API void *dmamap_linux_alloc_noncoherent(struct device *dev, size_t size, dma_addr_t *dma_handle,
						enum dma_data_direction dir, gfp_t gfp, const char *file, int line);

/**
 * dmamap_linux_free_noncoherent() - dma_free_noncoherent()
 * @dev: the device
 * @size: the size allocated
 * @vaddr: what dma_alloc_noncoherent() returned
 * @dma_handle: its bus address
 * @dir: the direction given at allocation
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 *
 * Refused as dma_free_attrs() refuses (a buffer never allocated, another
 * size or handle, freed already; reported, nothing freed); a direction
 * other than the allocation's is reported and the buffer freed all the
 * same. The reports are at @file:@line and name dma_free_noncoherent,
 * the checker's and, with the checker off, the ops' own refusals alike.
 */
DMAMAP_API void dmamap_linux_free_noncoherent(struct device *dev, size_t size, void *vaddr, dma_addr_t dma_handle,
					      enum dma_data_direction dir, const char *file, int line);

/**
 * dmamap_linux_alloc_pages() - dma_alloc_pages(): pages the CPU owns, with a bus address for @dir
 * @dev: the device
 * @size: bytes, non-zero (whole pages are allocated)
 * @dma_handle: receives the bus address (DMA_MAPPING_ERROR on failure)
 * @dir: the direction the pages will be used in (a valid mapping direction)
 * @gfp: GFP_KERNEL or GFP_ATOMIC; the device's masks choose the zone, as in
 *       the kernel, so __GFP_DMA and __GFP_HIGHMEM are refused
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 *
 * One physically contiguous, zeroed, cached block, as dma_alloc_noncoherent()
 * gives (the same checker record: a leak, a free with another direction or
 * of something never allocated is reported as for it); the caller owns it
 * and reaches it at page_address() of the returned page. The CPU owns the
 * pages after the call: give them to the device with
 * dma_sync_single_for_device(@dma_handle...) and back with
 * dma_sync_single_for_cpu(). Behind the IOMMU mapper @dma_handle is an IOVA
 * and the pages still one block. Free with dmamap_linux_free_pages().
 * Memory declared for the device (dma_declare_coherent_memory()) is not
 * used, as in the kernel.
 * Return: the first page; NULL for an invalid @dir or zone bits in @gfp
 * (reported as DMAMAP_REPORT_BAD_INPUT), or when the allocation fails (as
 * dma_alloc_attrs()).
 */
DMAMAP_API struct page *dmamap_linux_alloc_pages(struct device *dev, size_t size, dma_addr_t *dma_handle,
						 enum dma_data_direction dir, gfp_t gfp, const char *file, int line);

/**
 * dmamap_linux_free_pages() - dma_free_pages()
 * @dev: the device
 * @size: the size allocated
 * @page: what dma_alloc_pages() returned
 * @dma_handle: its bus address
 * @dir: the direction given at allocation
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 *
 * A direction other than the allocation's is reported
 * (DMAMAP_REPORT_DIR_MISMATCH) and the pages freed all the same, as the
 * kernel's dma-debug does; pages that are no dma_alloc_pages() buffer of
 * @dev at @dma_handle, or a size that differs, are reported and not freed,
 * as dma_free_attrs() refuses them. A NULL @page, a page of another machine
 * or an invalid @dir is refused (DMAMAP_REPORT_BAD_INPUT). The reports are
 * at @file:@line and name dma_free_pages (the checker's and, with the
 * checker off, the ops' own refusals alike), and the checker's name the
 * buffer as dma_alloc_pages'.
 */
DMAMAP_API void dmamap_linux_free_pages(struct device *dev, size_t size, struct page *page, dma_addr_t dma_handle,
					enum dma_data_direction dir, const char *file, int line);

/**
 * dmamap_linux_alloc_noncontiguous() - dma_alloc_noncontiguous(): pages the CPU owns, as a table of one DMA segment
 * @dev: the device
 * @size: bytes, non-zero
 * @dir: the direction the pages will be used in (a valid mapping direction)
 * @gfp: GFP_KERNEL or GFP_ATOMIC; zone bits are refused, as dma_alloc_pages()
 *       refuses them
 * @attrs: 0 or DMA_ATTR_ALLOC_SINGLE_PAGES (which changes nothing here);
 *         any other bit is reported (DMAMAP_REPORT_BAD_INPUT) and refused
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 *
 * The kernel's fallback for ops sets that build no non-contiguous buffer,
 * on every ops set here (the direct ops and the IOMMU mapper alike): one
 * dma_alloc_pages() block, described by a table of one entry (orig_nents
 * and nents 1) whose page is the block's first, whose length and
 * sg_dma_len() are @size, and whose sg_dma_address() is the block's bus
 * address (an IOVA behind the IOMMU mapper). The pages are zeroed, cached
 * and the CPU's: give them to the device with dma_sync_sgtable_for_device()
 * and back with dma_sync_sgtable_for_cpu(), in @dir (another direction is
 * reported as DMAMAP_REPORT_SYNC_DIRECTION and the sync refused); the
 * checker follows the block as a dma_alloc_pages() buffer named after this
 * call. The table and the block are the caller's until
 * dmamap_linux_free_noncontiguous(); a table the driver leaves goes at the
 * device's release and its block is reported and freed as a
 * dma_alloc_pages() buffer left is (the checker names this call and its
 * line; behind the IOMMU mapper the block goes with the mapping). Do not
 * free the block by another call (dma_free_pages() of the table's page,
 * dma_free_noncoherent() or dma_free_attrs() of its address are reported as
 * DMAMAP_REPORT_KIND_MISMATCH and refused), nor the table with
 * sg_free_table().
 * Return: the table; NULL when the allocation fails (no memory, injected
 * DMAMAP_FAULT_PAGE_ALLOC or DMAMAP_FAULT_HOST_ALLOC for the table; nothing
 * is kept), or for a NULL or uninitialised device, bad attrs, an invalid
 * @dir, zone bits in @gfp or a size no scatterlist entry holds (reported).
 */
DMAMAP_API struct sg_table *dmamap_linux_alloc_noncontiguous(struct device *dev, size_t size,
							     enum dma_data_direction dir, gfp_t gfp,
							     unsigned long attrs, const char *file, int line);

/**
 * dmamap_linux_free_noncontiguous() - dma_free_noncontiguous(): free the table and its block
 * @dev: the device given to the allocation
 * @size: the size allocated
 * @sgt: what dma_alloc_noncontiguous() returned
 * @dir: the direction given at allocation
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 *
 * Gives back everything: the block (its pages, and its IOVA behind the IOMMU
 * mapper) and the table. A table that is no live dma_alloc_noncontiguous()
 * allocation of @dev (another device's, freed already, anything else) is
 * reported as DMAMAP_REPORT_NOT_MAPPED, a NULL one as
 * DMAMAP_REPORT_BAD_INPUT, and nothing is freed. The block is freed as
 * dmamap_linux_free_pages() frees it, with its reports (named
 * dma_free_noncontiguous): a @size that differs from the allocation's is
 * reported and refused (DMAMAP_REPORT_SIZE_MISMATCH with the checker on,
 * the ops' DMAMAP_REPORT_API_MISUSE with it off), and so are pages still
 * mapped for DMA; the table then stays allocated, to be freed again. A
 * direction other than the allocation's is reported
 * (DMAMAP_REPORT_DIR_MISMATCH) and everything freed all the same, as is a
 * table still mapped by dma_vmap_noncontiguous() (DMAMAP_REPORT_LEAK: behind
 * an IOMMU the kernel's mapping would be left behind). An invalid @dir or a
 * NULL or uninitialised device is refused (DMAMAP_REPORT_BAD_INPUT).
 */
DMAMAP_API void dmamap_linux_free_noncontiguous(struct device *dev, size_t size, struct sg_table *sgt,
						enum dma_data_direction dir, const char *file, int line);

/**
 * dmamap_linux_vmap_noncontiguous() - dma_vmap_noncontiguous(): a kernel address for the whole allocation
 * @dev: the device given to the allocation
 * @size: the size allocated
 * @sgt: what dma_alloc_noncontiguous() returned
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 *
 * The block is contiguous, so its kernel mapping is its linear map:
 * page_address() of the table's page, cached, the same address for every
 * call. Each mapping is to be undone with dmamap_linux_vunmap_noncontiguous()
 * before the free. Nothing is allocated.
 * Return: the address; NULL for a table that is no live allocation of @dev
 * (DMAMAP_REPORT_NOT_MAPPED), another @size (DMAMAP_REPORT_SIZE_MISMATCH),
 * or a NULL or uninitialised device (reported).
 */
DMAMAP_API void *dmamap_linux_vmap_noncontiguous(struct device *dev, size_t size, struct sg_table *sgt,
						 const char *file, int line);

/**
 * dmamap_linux_vunmap_noncontiguous() - dma_vunmap_noncontiguous(): undo a dma_vmap_noncontiguous()
 * @dev: the device given to the allocation
 * @vaddr: what dma_vmap_noncontiguous() returned
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 *
 * Nothing to unmap (the linear map stays); the mapping is counted off. An
 * address that is no mapping dma_vmap_noncontiguous() gave @dev (or one
 * undone as often as it was made) is reported as DMAMAP_REPORT_NOT_MAPPED.
 */
DMAMAP_API void dmamap_linux_vunmap_noncontiguous(struct device *dev, void *vaddr, const char *file, int line);

/**
 * dmamap_linux_mmap_pages() - dma_mmap_pages(): map a dma_alloc_pages() block into a user vma
 * @dev: the device given to the allocation
 * @vma: a vma from dmamap_vma_create(); vm_pgoff (in pages) chooses where in
 *       the block it starts
 * @size: the block's size, as given to dma_alloc_pages()
 * @page: the block's first page, as dma_alloc_pages() returned it
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 *
 * As the kernel's: the vma's pages from vm_pgoff on become host aliases of
 * the block's pages, with vm_page_prot (PAGE_SHARED unless the driver
 * changed it: cached, so user stores are CPU stores, handed to the device
 * only by a sync for the device). Nothing is checked of the block beyond
 * its machine, as the kernel checks nothing.
 * Return: 0; -ENXIO (not reported: the user's mmap() asked too much) when
 * vm_pgoff is not inside the block or the vma runs past its end; -EINVAL
 * for a NULL or uninitialised device, a vma not from dmamap_vma_create(), a
 * NULL page or one of another machine (reported as
 * DMAMAP_REPORT_BAD_INPUT); remap_pfn_range()'s errors (-EBUSY: a page of
 * the vma is mapped already). On error nothing is mapped.
 */
DMAMAP_API DMAMAP_MUST_CHECK int dmamap_linux_mmap_pages(struct device *dev, struct vm_area_struct *vma, size_t size,
							 struct page *page, const char *file, int line);

/**
 * dmamap_linux_mmap_noncontiguous() - dma_mmap_noncontiguous(): map a dma_alloc_noncontiguous() table's pages into a user vma
 * @dev: the device given to the allocation
 * @vma: a vma from dmamap_vma_create(), as for dmamap_linux_mmap_pages()
 * @size: the size given to the allocation
 * @sgt: the table dma_alloc_noncontiguous() returned
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 *
 * dmamap_linux_mmap_pages() of the table's block, which is what the kernel
 * does on an ops set without its own non-contiguous allocator (the block is
 * one here on every ops set). Cached, as the kernel's: user stores reach
 * the device through dma_sync_sgtable_for_device().
 * Return: as dmamap_linux_mmap_pages(); -EINVAL also for a table that is no
 * live allocation of @dev (DMAMAP_REPORT_NOT_MAPPED) or another @size
 * (DMAMAP_REPORT_SIZE_MISMATCH), nothing mapped.
 */
DMAMAP_API DMAMAP_MUST_CHECK int dmamap_linux_mmap_noncontiguous(struct device *dev, struct vm_area_struct *vma,
								 size_t size, struct sg_table *sgt, const char *file,
								 int line);

/**
 * dmamap_linux_map_resource() - dma_map_resource(): a bus address for a device's MMIO range
 * @dev: the device that will access it (a DMA engine, say)
 * @phys_addr: physical address of the MMIO range (a FIFO register...)
 * @size: bytes, non-zero
 * @dir: the direction
 * @attrs: DMA_ATTR_* bits
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 *
 * On the direct ops the bus address is @phys_addr itself, as in the kernel,
 * and no cache maintenance happens (MMIO is not cached). The simulated bus
 * has no MMIO targets: a dmamap_dev_read/write there faults. RAM is not a
 * resource (map it with dma_map_page()): reported as DMAMAP_REPORT_API_MISUSE.
 * A range beyond the device's DMA mask is reported too; behind dmabounce or
 * the IOMMU mapper, which have no resource mappings here, the call is
 * refused (DMAMAP_REPORT_API_MISUSE).
 * Return: the bus address, or DMA_MAPPING_ERROR.
 */
DMAMAP_API DMAMAP_MUST_CHECK dma_addr_t dmamap_linux_map_resource(struct device *dev, phys_addr_t phys_addr,
								   size_t size, enum dma_data_direction dir,
								   unsigned long attrs, const char *file, int line);

/**
 * dmamap_linux_unmap_resource() - dma_unmap_resource()
 * @dev: the device
 * @addr: what dma_map_resource() returned
 * @size: the size mapped
 * @dir: the direction mapped
 * @attrs: DMA_ATTR_* bits
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 *
 * Bad arguments (a failed mapping, an invalid direction, a zero size) are
 * reported; otherwise nothing is left to undo on the direct ops.
 */
DMAMAP_API void dmamap_linux_unmap_resource(struct device *dev, dma_addr_t addr, size_t size,
					    enum dma_data_direction dir, unsigned long attrs, const char *file, int line);

/**
 * dmamap_linux_dmam_alloc() - dmam_alloc_attrs(): dma_alloc_attrs() released with the device
 * @dev: the device
 * @size: bytes, non-zero
 * @dma_handle: receives the bus address
 * @gfp: GFP_KERNEL or GFP_ATOMIC
 * @attrs: DMA_ATTR_* bits
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 *
 * See dmamap_dmam_alloc_attrs() in <dmamap/devres.h>.
 * Return: the CPU address, or NULL.
 */
DMAMAP_API void *dmamap_linux_dmam_alloc(struct device *dev, size_t size, dma_addr_t *dma_handle, gfp_t gfp,
					 unsigned long attrs, const char *file, int line);

/**
 * struct dma_iova_state - an IOVA range of the IOVA-based DMA API (Linux 6.17)
 * @addr: the bus address of the range's first byte: the IOVA allocated plus
 *        the page offset of the physical address given to the allocation
 * @__size: the size asked for; 0 when the state holds no IOVA (the driver
 *          then falls back to dma_map_page())
 *
 * The driver's, usually on its stack or in its request; zeroed by
 * dmamap_linux_iova_try_alloc(). The library keeps its own record of each
 * live range and finds it again by @addr and @__size, so a state the driver
 * copies names the same range.
 */
struct dma_iova_state {
	dma_addr_t addr;
	u64 __size;
};

/**
 * dmamap_linux_iova_try_alloc() - dma_iova_try_alloc(): an IOVA range for @size bytes from @phys on
 * @dev: the device
 * @state: the driver's state, zeroed first whatever the outcome
 * @phys: the physical address whose page offset the range keeps (0 when the
 *        ranges linked later are whole pages)
 * @size: bytes, non-zero
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 *
 * Only behind the IOMMU mapper (arm_iommu_attach_device()): on the direct
 * ops and dmabounce the answer is false and nothing is reported, as the
 * kernel's without an IOMMU DMA domain, and the driver maps with
 * dma_map_page() instead. Behind it, PAGE_ALIGN(@size + offset_in_page(@phys))
 * bytes are allocated from the mapping's IOVA space as the mapper's own
 * mappings are (DMAMAP_FAULT_IOVA fails them alike); nothing is mapped until
 * dmamap_linux_iova_link(). state->addr is the range's IOVA plus
 * offset_in_page(@phys), state->__size is @size. The range is the driver's
 * until dmamap_linux_iova_free() or dmamap_linux_iova_destroy(); one left at
 * arm_iommu_detach_device() or the device's release is reported as
 * DMAMAP_REPORT_LEAK at @file:@line and freed.
 * Return: true when @state holds a range; false without one: not behind the
 * IOMMU mapper, the IOVA space exhausted, host memory for the record ran
 * out, or a zero @size (the kernel's WARN: reported as
 * DMAMAP_REPORT_API_MISUSE), a NULL @state or a NULL or uninitialised
 * device (DMAMAP_REPORT_BAD_INPUT).
 */
DMAMAP_API DMAMAP_MUST_CHECK bool dmamap_linux_iova_try_alloc(struct device *dev, struct dma_iova_state *state,
							       phys_addr_t phys, size_t size, const char *file,
							       int line);

/**
 * dmamap_linux_iova_link() - dma_iova_link(): map @size bytes at @phys at @offset in the range
 * @dev: the device that allocated @state
 * @state: a live range of dmamap_linux_iova_try_alloc()
 * @phys: the physical address of the bytes
 * @offset: where in the range, from state->addr; 0 when @phys is not page aligned
 * @size: bytes, non-zero
 * @dir: the direction: the device's permission (DMA_TO_DEVICE read-only,
 *       DMA_FROM_DEVICE write-only) and the cache maintenance
 * @attrs: DMA_ATTR_* bits; DMA_ATTR_SKIP_CPU_SYNC skips the maintenance
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 *
 * As the kernel's: IOVA state->addr + @offset - offset_in_page(@phys) on,
 * PAGE_ALIGN(@size + offset_in_page(@phys)) bytes are mapped to the pages
 * from @phys's, after the cache maintenance for the device over all of them
 * (none for a coherent device). As the kernel's, the link does not sync the
 * IOTLB: the device reaches the pages through the IOMMU
 * (dmamap_dev_read()/dmamap_dev_write()) once dmamap_linux_iova_sync() has
 * covered them, until dmamap_linux_iova_unlink(). An access before that
 * sync faults as at an unmapped IOVA (the domain's fault handler is called,
 * nothing moves), reported as DMAMAP_REPORT_IOMMU_FAULT naming this link's
 * @file:@line and the missing dma_iova_sync(): an IOMMU that caches what it
 * does not map (or needs a TLB invalidate on map) faults there. Where the
 * kernel would map outside the range or over pages it maps already, this
 * link is refused.
 * Return: 0; -EIO when @phys is not page aligned and @offset is not 0 (the
 * kernel's WARN_ON_ONCE: reported as DMAMAP_REPORT_API_MISUSE); -EINVAL,
 * reported, for a state that is no live range of @dev, an IOVA not page
 * aligned, pages outside the range, physical pages that are not RAM
 * (DMAMAP_REPORT_BAD_INPUT), a zero @size, an invalid @dir or bad
 * @attrs; -EEXIST, reported, when a page is linked already; -ENOMEM when
 * the page tables, or the IOTLB's record of the pages, could not grow. On
 * error nothing changed.
 */
DMAMAP_API DMAMAP_MUST_CHECK int dmamap_linux_iova_link(struct device *dev, struct dma_iova_state *state,
							phys_addr_t phys, size_t offset, size_t size,
							enum dma_data_direction dir, unsigned long attrs,
							const char *file, int line);

/**
 * dmamap_linux_iova_sync() - dma_iova_sync(): make the links of @size bytes at @offset visible to the device
 * @dev: the device that allocated @state
 * @state: a live range
 * @offset: from state->addr
 * @size: bytes
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 *
 * The kernel's IOTLB sync (the IOMMU's iotlb_sync_map): every page linked
 * in the pages the bytes touch becomes usable by the device; pages linked
 * later need a sync of their own. Nothing else syncs them (an unlink or an
 * IOTLB invalidate of <dmamap/iommu.h> over them aside).
 * Return: 0; -EINVAL for a state that is no live range of @dev or bytes
 * outside it (reported as DMAMAP_REPORT_API_MISUSE).
 */
DMAMAP_API int dmamap_linux_iova_sync(struct device *dev, struct dma_iova_state *state, size_t offset, size_t size,
				      const char *file, int line);

/**
 * dmamap_linux_iova_unlink() - dma_iova_unlink(): unmap @size bytes at @offset of the range
 * @dev: the device that allocated @state
 * @state: a live range
 * @offset: from state->addr, as given to the link
 * @size: bytes, as linked
 * @dir: the direction of the link
 * @attrs: DMA_ATTR_* bits; DMA_ATTR_SKIP_CPU_SYNC skips the maintenance
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 *
 * The cache maintenance for the CPU, page by page through the IOMMU (none
 * for a coherent device), then the pages are unmapped: the device faults
 * there as at any unmapped IOVA. The IOVA stays the range's. Refused,
 * reported and nothing changed: a state that is no live range of @dev or
 * bytes outside it (DMAMAP_REPORT_API_MISUSE), a page not linked (the
 * kernel's WARN: DMAMAP_REPORT_NOT_MAPPED), a page linked with another
 * direction (DMAMAP_REPORT_DIR_MISMATCH), an invalid @dir or bad @attrs.
 */
DMAMAP_API void dmamap_linux_iova_unlink(struct device *dev, struct dma_iova_state *state, size_t offset,
					 size_t size, enum dma_data_direction dir, unsigned long attrs,
					 const char *file, int line);

/**
 * dmamap_linux_iova_destroy() - dma_iova_destroy(): unlink the first @mapped_len bytes, then free the range
 * @dev: the device that allocated @state
 * @state: a live range
 * @mapped_len: bytes linked from offset 0, or 0 for none
 * @dir: the direction of the links
 * @attrs: DMA_ATTR_* bits
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 *
 * dmamap_linux_iova_unlink(@state, 0, @mapped_len) when @mapped_len is not 0,
 * then dmamap_linux_iova_free(). When the unlink is refused (reported as
 * there) nothing is freed either.
 */
DMAMAP_API void dmamap_linux_iova_destroy(struct device *dev, struct dma_iova_state *state, size_t mapped_len,
					  enum dma_data_direction dir, unsigned long attrs, const char *file, int line);

/**
 * dmamap_linux_iova_free() - dma_iova_free(): give the whole range back
 * @dev: the device that allocated @state
 * @state: a live range; left as it is (its range no longer live)
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 *
 * The IOVA goes back to the mapping's space (the next allocation may get
 * it). Pages still linked are reported (DMAMAP_REPORT_API_MISUSE: every
 * region must be unlinked first) and unmapped without cache maintenance
 * before. A state that is no live range of @dev (freed already, never
 * allocated, another device's) is reported and nothing is done.
 */
DMAMAP_API void dmamap_linux_iova_free(struct device *dev, struct dma_iova_state *state, const char *file, int line);

DMAMAP_END_DECLS

#endif /* DMAMAP_DMA_LINUX_H */
