/* SPDX-License-Identifier: MIT */
/*
 * <linux/dma-mapping.h> of Linux 6.x over libdmamap: the kernel's calls with
 * the kernel's signatures (unsigned long attrs of DMA_ATTR_* bits), so DMA
 * code taken from a current driver compiles and runs unchanged against the
 * simulated machine.
 *
 * Every call reaches the same DMA core as the 2012 API of <dmamap/dmamap.h>
 * (same checks, checker, reports and ops sets). As there, each call is a
 * function with the kernel's signature and a macro of the same name that
 * passes the caller's file:line to the library, so reports name the driver's
 * line; `(dma_map_single_attrs)(...)` reaches the plain function. An attrs
 * argument that is not an integer fails to compile (DMAMAP_LINUX_ATTRS()).
 *
 * What the simulator adds (machines, devices, the bus side, reports) comes
 * from the <dmamap/...> headers that do not carry the 2012 API, such as
 * <dmamap/testing.h>.
 */
#ifndef _LINUX_DMA_MAPPING_H
#define _LINUX_DMA_MAPPING_H

#include <dmamap/linux-api.h>
#include <linux/device.h>
#include <linux/dma-direction.h>
#include <linux/err.h>
#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <dmamap/dma-common.h>
#include <dmamap/dma-linux.h>

DMAMAP_BEGIN_DECLS

#define DMA_ATTR_WEAK_ORDERING DMAMAP_LX_ATTR_WEAK_ORDERING
#define DMA_ATTR_WRITE_COMBINE DMAMAP_LX_ATTR_WRITE_COMBINE
#define DMA_ATTR_NO_KERNEL_MAPPING DMAMAP_LX_ATTR_NO_KERNEL_MAPPING
#define DMA_ATTR_SKIP_CPU_SYNC DMAMAP_LX_ATTR_SKIP_CPU_SYNC
#define DMA_ATTR_FORCE_CONTIGUOUS DMAMAP_LX_ATTR_FORCE_CONTIGUOUS
#define DMA_ATTR_ALLOC_SINGLE_PAGES DMAMAP_LX_ATTR_ALLOC_SINGLE_PAGES
#define DMA_ATTR_NO_WARN DMAMAP_LX_ATTR_NO_WARN
#define DMA_ATTR_PRIVILEGED DMAMAP_LX_ATTR_PRIVILEGED

/**
 * dma_map_page_attrs() - map @size bytes at @offset in @page for streaming DMA
 * @dev: the device
 * @page: the first page
 * @offset: of the data in @page
 * @size: bytes, non-zero
 * @dir: the direction
 * @attrs: DMA_ATTR_* bits (DMA_ATTR_SKIP_CPU_SYNC...)
 *
 * Return: the bus address, or DMA_MAPPING_ERROR (test with dma_mapping_error()).
 */
static inline dma_addr_t dma_map_page_attrs(struct device *dev, struct page *page, size_t offset, size_t size,
					    enum dma_data_direction dir, unsigned long attrs)
{
	return dmamap_linux_map_page(dev, page, (unsigned long)offset, size, dir, attrs, NULL, 0);
}

/**
 * dma_mapping_error() - whether @dma_addr is a failed mapping
 * @dev: the device that made the mapping
 * @dma_addr: what dma_map_single(), dma_map_page() or dma_map_resource() returned
 *
 * The checker records that the handle was checked (a handle used unchecked
 * is reported).
 * Return: -ENOMEM for DMA_MAPPING_ERROR, 0 otherwise, as Linux 6.x; -ENOMEM
 * for a NULL or uninitialised device too (reported).
 */
static inline int dma_mapping_error(struct device *dev, dma_addr_t dma_addr)
{
	return dmamap_linux_mapping_error(dev, dma_addr, NULL, 0);
}

/** dma_unmap_page_attrs() - end a dma_map_page_attrs() mapping: same size and direction. */
static inline void dma_unmap_page_attrs(struct device *dev, dma_addr_t addr, size_t size, enum dma_data_direction dir,
					unsigned long attrs)
{
	dmamap_linux_unmap_page(dev, addr, size, dir, attrs, NULL, 0);
}

/** dma_map_single_attrs() - map a kmalloc() or page_address() buffer; see dma_map_page_attrs(). */
static inline dma_addr_t dma_map_single_attrs(struct device *dev, void *ptr, size_t size, enum dma_data_direction dir,
					      unsigned long attrs)
{
	return dmamap_linux_map_single(dev, ptr, size, dir, attrs, NULL, 0);
}

/** dma_unmap_single_attrs() - end a dma_map_single_attrs() mapping: same size and direction. */
static inline void dma_unmap_single_attrs(struct device *dev, dma_addr_t addr, size_t size,
					  enum dma_data_direction dir, unsigned long attrs)
{
	dmamap_linux_unmap_single(dev, addr, size, dir, attrs, NULL, 0);
}

/** dma_map_sg_attrs() - map a list; the number of DMA segments, 0 on failure. */
static inline unsigned int dma_map_sg_attrs(struct device *dev, struct scatterlist *sg, int nents,
					    enum dma_data_direction dir, unsigned long attrs)
{
	return dmamap_linux_map_sg(dev, sg, nents, dir, attrs, NULL, 0);
}

/** dma_unmap_sg_attrs() - unmap a list: pass the @nents given to dma_map_sg(), not its result. */
static inline void dma_unmap_sg_attrs(struct device *dev, struct scatterlist *sg, int nents,
				      enum dma_data_direction dir, unsigned long attrs)
{
	dmamap_linux_unmap_sg(dev, sg, nents, dir, attrs, NULL, 0);
}

/**
 * dma_map_sgtable() - map every entry of @sgt; sgt->nents gets the segment count
 * @dev: the device
 * @sgt: the table
 * @dir: the direction
 * @attrs: DMA_ATTR_* bits
 *
 * Return: 0; -EINVAL (bad arguments), -ENOMEM (resources ran out, with no
 * report: the IOMMU mapper's IOVA space or page tables, dmabounce's safe
 * buffers, the checker's records; retry later), -EIO (the mapping was refused:
 * the report says why).
 */
static inline int dma_map_sgtable(struct device *dev, struct sg_table *sgt, enum dma_data_direction dir,
				  unsigned long attrs)
{
	return dmamap_linux_map_sgtable(dev, sgt, dir, attrs, NULL, 0);
}

/** dma_unmap_sgtable() - unmap what dma_map_sgtable() mapped. */
static inline void dma_unmap_sgtable(struct device *dev, struct sg_table *sgt, enum dma_data_direction dir,
				     unsigned long attrs)
{
	dmamap_linux_unmap_sgtable(dev, sgt, dir, attrs, NULL, 0);
}

/** dma_sync_sgtable_for_cpu() - give a mapped table's buffers to the CPU. */
static inline void dma_sync_sgtable_for_cpu(struct device *dev, struct sg_table *sgt, enum dma_data_direction dir)
{
	dmamap_linux_sync_sgtable(dev, sgt, dir, true, NULL, 0);
}

/** dma_sync_sgtable_for_device() - give a mapped table's buffers back to the device. */
static inline void dma_sync_sgtable_for_device(struct device *dev, struct sg_table *sgt, enum dma_data_direction dir)
{
	dmamap_linux_sync_sgtable(dev, sgt, dir, false, NULL, 0);
}

/** dma_map_resource() - a bus address for an MMIO range (see dmamap_linux_map_resource()). */
static inline dma_addr_t dma_map_resource(struct device *dev, phys_addr_t phys_addr, size_t size,
					  enum dma_data_direction dir, unsigned long attrs)
{
	return dmamap_linux_map_resource(dev, phys_addr, size, dir, attrs, NULL, 0);
}

/** dma_unmap_resource() - end a dma_map_resource() mapping. */
static inline void dma_unmap_resource(struct device *dev, dma_addr_t addr, size_t size, enum dma_data_direction dir,
				      unsigned long attrs)
{
	dmamap_linux_unmap_resource(dev, addr, size, dir, attrs, NULL, 0);
}

/**
 * dma_alloc_attrs() - a buffer both the CPU and the device can use
 * @dev: the device
 * @size: bytes, non-zero
 * @dma_handle: receives the bus address
 * @flag: GFP_KERNEL or GFP_ATOMIC
 * @attrs: DMA_ATTR_* bits (DMA_ATTR_WRITE_COMBINE, DMA_ATTR_NO_KERNEL_MAPPING...)
 *
 * Return: the CPU address, or NULL.
 */
static inline void *dma_alloc_attrs(struct device *dev, size_t size, dma_addr_t *dma_handle, gfp_t flag,
				    unsigned long attrs)
{
	return dmamap_linux_alloc(dev, size, dma_handle, flag, attrs, NULL, 0);
}

/** dma_free_attrs() - free a dma_alloc_attrs() buffer: same size, handle and attrs; a NULL @cpu_addr does nothing. */
static inline void dma_free_attrs(struct device *dev, size_t size, void *cpu_addr, dma_addr_t dma_handle,
				  unsigned long attrs)
{
	dmamap_linux_free(dev, size, cpu_addr, dma_handle, attrs, NULL, 0);
}

/** dma_mmap_attrs() - map a dma_alloc_attrs() buffer into a user vma; 0 or -errno. */
static inline int dma_mmap_attrs(struct device *dev, struct vm_area_struct *vma, void *cpu_addr, dma_addr_t dma_addr,
				 size_t size, unsigned long attrs)
{
	return dmamap_linux_mmap(dev, vma, cpu_addr, dma_addr, size, attrs, NULL, 0);
}

/** dma_get_sgtable_attrs() - describe a dma_alloc_attrs() buffer as an sg_table; 0 or -errno. */
static inline int dma_get_sgtable_attrs(struct device *dev, struct sg_table *sgt, void *cpu_addr, dma_addr_t dma_addr,
					size_t size, unsigned long attrs)
{
	return dmamap_linux_get_sgtable(dev, sgt, cpu_addr, dma_addr, size, attrs, NULL, 0);
}

/** dma_alloc_coherent() - dma_alloc_attrs() with no attributes: uncached memory both sides see at once. */
static inline void *dma_alloc_coherent(struct device *dev, size_t size, dma_addr_t *dma_handle, gfp_t gfp)
{
	return dmamap_linux_alloc(dev, size, dma_handle, gfp, 0, NULL, 0);
}

/** dma_free_coherent() - free a dma_alloc_coherent() buffer; a NULL @cpu_addr does nothing. */
static inline void dma_free_coherent(struct device *dev, size_t size, void *cpu_addr, dma_addr_t dma_handle)
{
	dmamap_linux_free(dev, size, cpu_addr, dma_handle, 0, NULL, 0);
}

/** dma_alloc_wc() - dma_alloc_attrs() with DMA_ATTR_WRITE_COMBINE. */
static inline void *dma_alloc_wc(struct device *dev, size_t size, dma_addr_t *dma_addr, gfp_t gfp)
{
	return dmamap_linux_alloc(dev, size, dma_addr, gfp, DMA_ATTR_WRITE_COMBINE, NULL, 0);
}

/** dma_free_wc() - free a dma_alloc_wc() buffer; a NULL @cpu_addr does nothing. */
static inline void dma_free_wc(struct device *dev, size_t size, void *cpu_addr, dma_addr_t dma_addr)
{
	dmamap_linux_free(dev, size, cpu_addr, dma_addr, DMA_ATTR_WRITE_COMBINE, NULL, 0);
}

/** dma_mmap_wc() - map a dma_alloc_wc() buffer into a user vma, write-combining. */
static inline int dma_mmap_wc(struct device *dev, struct vm_area_struct *vma, void *cpu_addr, dma_addr_t dma_addr,
			      size_t size)
{
	return dmamap_linux_mmap(dev, vma, cpu_addr, dma_addr, size, DMA_ATTR_WRITE_COMBINE, NULL, 0);
}

/** dma_alloc_noncoherent() - cached memory the driver syncs (see dmamap_linux_alloc_noncoherent()). */
static inline void *dma_alloc_noncoherent(struct device *dev, size_t size, dma_addr_t *dma_handle,
					  enum dma_data_direction dir, gfp_t gfp)
{
	return dmamap_linux_alloc_noncoherent(dev, size, dma_handle, dir, gfp, NULL, 0);
}

/** dma_free_noncoherent() - free a dma_alloc_noncoherent() buffer. */
static inline void dma_free_noncoherent(struct device *dev, size_t size, void *vaddr, dma_addr_t dma_handle,
					enum dma_data_direction dir)
{
	dmamap_linux_free_noncoherent(dev, size, vaddr, dma_handle, dir, NULL, 0);
}

/** dma_alloc_pages() - contiguous cached pages the CPU owns, with a bus address (see dmamap_linux_alloc_pages()). */
static inline struct page *dma_alloc_pages(struct device *dev, size_t size, dma_addr_t *dma_handle,
					   enum dma_data_direction dir, gfp_t gfp)
{
	return dmamap_linux_alloc_pages(dev, size, dma_handle, dir, gfp, NULL, 0);
}

/** dma_free_pages() - free a dma_alloc_pages() buffer: same size, handle and direction. */
static inline void dma_free_pages(struct device *dev, size_t size, struct page *page, dma_addr_t dma_handle,
				  enum dma_data_direction dir)
{
	dmamap_linux_free_pages(dev, size, page, dma_handle, dir, NULL, 0);
}

/**
 * dma_alloc_noncontiguous() - pages the CPU owns, as an sg_table of one DMA segment
 * @dev: the device
 * @size: bytes
 * @dir: the direction the pages will be used in
 * @gfp: GFP_KERNEL or GFP_ATOMIC
 * @attrs: 0 or DMA_ATTR_ALLOC_SINGLE_PAGES
 *
 * See dmamap_linux_alloc_noncontiguous(): one contiguous block here, on
 * every ops set; sync it with dma_sync_sgtable_for_device()/_for_cpu().
 * Return: the table, or NULL.
 */
static inline struct sg_table *dma_alloc_noncontiguous(struct device *dev, size_t size, enum dma_data_direction dir,
						       gfp_t gfp, unsigned long attrs)
{
	return dmamap_linux_alloc_noncontiguous(dev, size, dir, gfp, attrs, NULL, 0);
}

/** dma_free_noncontiguous() - free a dma_alloc_noncontiguous() table and its pages: same device, size, direction. */
static inline void dma_free_noncontiguous(struct device *dev, size_t size, struct sg_table *sgt,
					  enum dma_data_direction dir)
{
	dmamap_linux_free_noncontiguous(dev, size, sgt, dir, NULL, 0);
}

/** dma_vmap_noncontiguous() - the kernel address of a dma_alloc_noncontiguous() table's pages, or NULL. */
static inline void *dma_vmap_noncontiguous(struct device *dev, size_t size, struct sg_table *sgt)
{
	return dmamap_linux_vmap_noncontiguous(dev, size, sgt, NULL, 0);
}

/** dma_vunmap_noncontiguous() - undo a dma_vmap_noncontiguous() (nothing to unmap here). */
static inline void dma_vunmap_noncontiguous(struct device *dev, void *vaddr)
{
	dmamap_linux_vunmap_noncontiguous(dev, vaddr, NULL, 0);
}

/** dma_mmap_pages() - map a dma_alloc_pages() block into a user vma from vm_pgoff on (see dmamap_linux_mmap_pages()). */
static inline int dma_mmap_pages(struct device *dev, struct vm_area_struct *vma, size_t size, struct page *page)
{
	return dmamap_linux_mmap_pages(dev, vma, size, page, NULL, 0);
}

/** dma_mmap_noncontiguous() - map a dma_alloc_noncontiguous() table's pages into a user vma. */
static inline int dma_mmap_noncontiguous(struct device *dev, struct vm_area_struct *vma, size_t size,
					 struct sg_table *sgt)
{
	return dmamap_linux_mmap_noncontiguous(dev, vma, size, sgt, NULL, 0);
}

/** dmam_alloc_attrs() - dma_alloc_attrs() released with @dev (<dmamap/devres.h>). */
static inline void *dmam_alloc_attrs(struct device *dev, size_t size, dma_addr_t *dma_handle, gfp_t gfp,
				     unsigned long attrs)
{
	return dmamap_linux_dmam_alloc(dev, size, dma_handle, gfp, attrs, NULL, 0);
}

/*
 * The IOVA-based DMA API (Linux 6.17): a range of IOVA a driver links pages
 * into itself, behind the IOMMU mapper only (see dmamap_linux_iova_try_alloc()).
 * struct dma_iova_state comes from <dmamap/dma-linux.h>.
 */

/* The kernel's flag in __size for a range bounced through swiotlb; never set here. */
#define DMA_IOVA_USE_SWIOTLB (1ULL << 63)

/** dma_use_iova() - whether @state holds an IOVA range (else map with dma_map_page()). */
static inline bool dma_use_iova(struct dma_iova_state *state)
{
	return state->__size != 0;
}

/** dma_iova_size() - the size given to dma_iova_try_alloc() for @state. */
static inline size_t dma_iova_size(struct dma_iova_state *state)
{
	return (size_t)(state->__size & ~DMA_IOVA_USE_SWIOTLB);
}

/**
 * dma_iova_try_alloc() - an IOVA range for @size bytes from @phys on, or false
 * @dev: the device
 * @state: zeroed, then filled in when a range is allocated
 * @phys: the address whose page offset the range keeps (0 for whole pages)
 * @size: bytes
 *
 * False on a device not behind the IOMMU mapper: map with dma_map_page().
 * Return: whether @state holds a range (see dmamap_linux_iova_try_alloc()).
 */
static inline bool dma_iova_try_alloc(struct device *dev, struct dma_iova_state *state, phys_addr_t phys,
				      size_t size)
{
	return dmamap_linux_iova_try_alloc(dev, state, phys, size, NULL, 0);
}

/** dma_iova_free() - give back a range whose links are all undone. */
static inline void dma_iova_free(struct device *dev, struct dma_iova_state *state)
{
	dmamap_linux_iova_free(dev, state, NULL, 0);
}

/** dma_iova_destroy() - unlink the first @mapped_len bytes of a range (if any), then free it. */
static inline void dma_iova_destroy(struct device *dev, struct dma_iova_state *state, size_t mapped_len,
				    enum dma_data_direction dir, unsigned long attrs)
{
	dmamap_linux_iova_destroy(dev, state, mapped_len, dir, attrs, NULL, 0);
}

/** dma_iova_sync() - the IOTLB sync after links of @size bytes at @offset; 0 or -EINVAL. */
static inline int dma_iova_sync(struct device *dev, struct dma_iova_state *state, size_t offset, size_t size)
{
	return dmamap_linux_iova_sync(dev, state, offset, size, NULL, 0);
}

/**
 * dma_iova_link() - map @size bytes at @phys at @offset of a range, for @dir
 * @dev: the device
 * @state: the range
 * @phys: the bytes
 * @offset: from state->addr (0 when @phys is not page aligned)
 * @size: bytes
 * @dir: the direction
 * @attrs: DMA_ATTR_* bits (DMA_ATTR_SKIP_CPU_SYNC)
 *
 * Return: 0 or -errno (see dmamap_linux_iova_link()).
 */
static inline int dma_iova_link(struct device *dev, struct dma_iova_state *state, phys_addr_t phys, size_t offset,
				size_t size, enum dma_data_direction dir, unsigned long attrs)
{
	return dmamap_linux_iova_link(dev, state, phys, offset, size, dir, attrs, NULL, 0);
}

/** dma_iova_unlink() - undo the link of @size bytes at @offset: same direction. */
static inline void dma_iova_unlink(struct device *dev, struct dma_iova_state *state, size_t offset, size_t size,
				   enum dma_data_direction dir, unsigned long attrs)
{
	dmamap_linux_iova_unlink(dev, state, offset, size, dir, attrs, NULL, 0);
}

#define dma_mapping_error(d, h) dmamap_linux_mapping_error((d), (h), __FILE__, __LINE__)
#define dma_map_page_attrs(d, p, o, s, r, a) \
	dmamap_linux_map_page((d), (p), (unsigned long)(o), (s), (r), DMAMAP_LINUX_ATTRS(a), __FILE__, __LINE__)
#define dma_unmap_page_attrs(d, h, s, r, a) \
	dmamap_linux_unmap_page((d), (h), (s), (r), DMAMAP_LINUX_ATTRS(a), __FILE__, __LINE__)
#define dma_map_single_attrs(d, p, s, r, a) \
	dmamap_linux_map_single((d), (p), (s), (r), DMAMAP_LINUX_ATTRS(a), __FILE__, __LINE__)
#define dma_unmap_single_attrs(d, h, s, r, a) \
	dmamap_linux_unmap_single((d), (h), (s), (r), DMAMAP_LINUX_ATTRS(a), __FILE__, __LINE__)
#define dma_map_sg_attrs(d, sg, n, r, a) \
	dmamap_linux_map_sg((d), (sg), (n), (r), DMAMAP_LINUX_ATTRS(a), __FILE__, __LINE__)
#define dma_unmap_sg_attrs(d, sg, n, r, a) \
	dmamap_linux_unmap_sg((d), (sg), (n), (r), DMAMAP_LINUX_ATTRS(a), __FILE__, __LINE__)
#define dma_map_sgtable(d, t, r, a) dmamap_linux_map_sgtable((d), (t), (r), DMAMAP_LINUX_ATTRS(a), __FILE__, __LINE__)
#define dma_unmap_sgtable(d, t, r, a) \
	dmamap_linux_unmap_sgtable((d), (t), (r), DMAMAP_LINUX_ATTRS(a), __FILE__, __LINE__)
#define dma_sync_sgtable_for_cpu(d, t, r) dmamap_linux_sync_sgtable((d), (t), (r), true, __FILE__, __LINE__)
#define dma_sync_sgtable_for_device(d, t, r) dmamap_linux_sync_sgtable((d), (t), (r), false, __FILE__, __LINE__)
#define dma_map_resource(d, p, s, r, a) \
	dmamap_linux_map_resource((d), (p), (s), (r), DMAMAP_LINUX_ATTRS(a), __FILE__, __LINE__)
#define dma_unmap_resource(d, h, s, r, a) \
	dmamap_linux_unmap_resource((d), (h), (s), (r), DMAMAP_LINUX_ATTRS(a), __FILE__, __LINE__)
#define dma_alloc_attrs(d, s, h, g, a) dmamap_linux_alloc((d), (s), (h), (g), DMAMAP_LINUX_ATTRS(a), __FILE__, __LINE__)
#define dma_free_attrs(d, s, c, h, a) dmamap_linux_free((d), (s), (c), (h), DMAMAP_LINUX_ATTRS(a), __FILE__, __LINE__)
#define dma_mmap_attrs(d, v, c, h, s, a) \
	dmamap_linux_mmap((d), (v), (c), (h), (s), DMAMAP_LINUX_ATTRS(a), __FILE__, __LINE__)
#define dma_get_sgtable_attrs(d, t, c, h, s, a) \
	dmamap_linux_get_sgtable((d), (t), (c), (h), (s), DMAMAP_LINUX_ATTRS(a), __FILE__, __LINE__)
#define dmam_alloc_attrs(d, s, h, g, a) \
	dmamap_linux_dmam_alloc((d), (s), (h), (g), DMAMAP_LINUX_ATTRS(a), __FILE__, __LINE__)

#define dma_map_page(d, p, o, s, r) dma_map_page_attrs(d, p, o, s, r, 0)
#define dma_unmap_page(d, h, s, r) dma_unmap_page_attrs(d, h, s, r, 0)
#define dma_map_single(d, a, s, r) dma_map_single_attrs(d, a, s, r, 0)
#define dma_unmap_single(d, a, s, r) dma_unmap_single_attrs(d, a, s, r, 0)
#define dma_map_sg(d, s, n, r) dma_map_sg_attrs(d, s, n, r, 0)
#define dma_unmap_sg(d, s, n, r) dma_unmap_sg_attrs(d, s, n, r, 0)
#define dma_get_sgtable(d, t, v, h, s) dma_get_sgtable_attrs(d, t, v, h, s, 0)
#define dma_mmap_coherent(d, v, c, h, s) dma_mmap_attrs(d, v, c, h, s, 0)
#define dma_alloc_coherent(d, s, h, g) dma_alloc_attrs(d, s, h, g, 0)
#define dma_free_coherent(d, s, c, h) dma_free_attrs(d, s, c, h, 0)
#define dma_alloc_wc(d, s, h, g) dma_alloc_attrs(d, s, h, g, DMA_ATTR_WRITE_COMBINE)
#define dma_free_wc(d, s, c, h) dma_free_attrs(d, s, c, h, DMA_ATTR_WRITE_COMBINE)
#define dma_mmap_wc(d, v, c, h, s) dma_mmap_attrs(d, v, c, h, s, DMA_ATTR_WRITE_COMBINE)
#define dma_alloc_noncoherent(d, s, h, r, g) dmamap_linux_alloc_noncoherent((d), (s), (h), (r), (g), __FILE__, __LINE__)
#define dma_free_noncoherent(d, s, v, h, r) dmamap_linux_free_noncoherent((d), (s), (v), (h), (r), __FILE__, __LINE__)
#define dma_alloc_pages(d, s, h, r, g) dmamap_linux_alloc_pages((d), (s), (h), (r), (g), __FILE__, __LINE__)
#define dma_free_pages(d, s, p, h, r) dmamap_linux_free_pages((d), (s), (p), (h), (r), __FILE__, __LINE__)
#define dma_alloc_noncontiguous(d, s, r, g, a) \
	dmamap_linux_alloc_noncontiguous((d), (s), (r), (g), DMAMAP_LINUX_ATTRS(a), __FILE__, __LINE__)
#define dma_free_noncontiguous(d, s, t, r) dmamap_linux_free_noncontiguous((d), (s), (t), (r), __FILE__, __LINE__)
#define dma_vmap_noncontiguous(d, s, t) dmamap_linux_vmap_noncontiguous((d), (s), (t), __FILE__, __LINE__)
#define dma_vunmap_noncontiguous(d, v) dmamap_linux_vunmap_noncontiguous((d), (v), __FILE__, __LINE__)
#define dma_mmap_pages(d, v, s, p) dmamap_linux_mmap_pages((d), (v), (s), (p), __FILE__, __LINE__)
#define dma_mmap_noncontiguous(d, v, s, t) dmamap_linux_mmap_noncontiguous((d), (v), (s), (t), __FILE__, __LINE__)

#define dma_iova_try_alloc(d, st, p, s) dmamap_linux_iova_try_alloc((d), (st), (p), (s), __FILE__, __LINE__)
#define dma_iova_free(d, st) dmamap_linux_iova_free((d), (st), __FILE__, __LINE__)
#define dma_iova_destroy(d, st, l, r, a) \
	dmamap_linux_iova_destroy((d), (st), (l), (r), DMAMAP_LINUX_ATTRS(a), __FILE__, __LINE__)
#define dma_iova_sync(d, st, o, s) dmamap_linux_iova_sync((d), (st), (o), (s), __FILE__, __LINE__)
#define dma_iova_link(d, st, p, o, s, r, a) \
	dmamap_linux_iova_link((d), (st), (p), (o), (s), (r), DMAMAP_LINUX_ATTRS(a), __FILE__, __LINE__)
#define dma_iova_unlink(d, st, o, s, r, a) \
	dmamap_linux_iova_unlink((d), (st), (o), (s), (r), DMAMAP_LINUX_ATTRS(a), __FILE__, __LINE__)

DMAMAP_END_DECLS

#endif /* _LINUX_DMA_MAPPING_H */
