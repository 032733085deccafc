/* SPDX-License-Identifier: MIT */
/*
 * The DMA mapping API: struct dma_map_ops, the dispatch through
 * get_dma_ops(dev), and every common wrapper, with the kernel's names and
 * semantics (the ARM DMA-mapping redesign's final state).
 *
 * Each wrapper exists as a function with the kernel's exact signature and as
 * a macro of the same name that also passes the caller's file and line to the
 * library (dmamap_*() forms), so that every report names the driver line that
 * caused it. `(dma_map_single)(...)` or `&dma_map_single` reach the plain
 * function.
 *
 * Stricter than the kernel: a NULL or uninitialised device, a zero size, an
 * invalid direction, a buffer outside the device's machine's RAM, or an ops
 * set lacking the operation is reported and refused (DMA_MAPPING_ERROR,
 * NULL, -EINVAL, or no effect), with nothing changed; never an abort unless
 * strict mode is on (dmamap_set_strict()).
 */
#ifndef DMAMAP_DMA_MAPPING_H
#define DMAMAP_DMA_MAPPING_H

#include <dmamap/types.h>
#include <dmamap/dma-attrs.h>
#include <dmamap/scatterlist.h>
#include <dmamap/mm.h>
#include <dmamap/device.h>
#include <dmamap/dma-common.h>

DMAMAP_BEGIN_DECLS

/* ARM's name for the failed-mapping value. */
#define DMA_ERROR_CODE DMA_MAPPING_ERROR

/**
 * dma_mapping_error() - whether @dma_addr is a failed mapping, as the 2012 ARM kernel answers
 * @dev: the device that made the mapping
 * @dma_addr: what the mapping call returned
 *
 * The 2012 ARM kernel's dma_mapping_error() is `dma_addr == DMA_ERROR_CODE`;
 * this one is the same, and asks the ops set's mapping_error() when it has
 * one. The checker records that the handle was checked.
 * Return: 1 for a failed mapping, 0 otherwise; 1 for a NULL or uninitialised
 * device (reported).
 */
static inline int dma_mapping_error(struct device *dev, dma_addr_t dma_addr)
{
	return dmamap_mapping_error(dev, dma_addr, NULL, 0);
}
#define dma_mapping_error(d, h) dmamap_mapping_error((d), (h), __FILE__, __LINE__)

struct dma_map_ops {
	void *(*alloc)(struct device *dev, size_t size, dma_addr_t *dma_handle, gfp_t gfp, struct dma_attrs *attrs);
	void (*free)(struct device *dev, size_t size, void *vaddr, dma_addr_t dma_handle, struct dma_attrs *attrs);
	int (*mmap)(struct device *dev, struct vm_area_struct *vma, void *cpu_addr, dma_addr_t dma_addr, size_t size,
		    struct dma_attrs *attrs);
	int (*get_sgtable)(struct device *dev, struct sg_table *sgt, void *cpu_addr, dma_addr_t dma_addr, size_t size,
			   struct dma_attrs *attrs);
	dma_addr_t (*map_page)(struct device *dev, struct page *page, unsigned long offset, size_t size,
			       enum dma_data_direction dir, struct dma_attrs *attrs);
	void (*unmap_page)(struct device *dev, dma_addr_t dma_handle, size_t size, enum dma_data_direction dir,
			   struct dma_attrs *attrs);
	int (*map_sg)(struct device *dev, struct scatterlist *sg, int nents, enum dma_data_direction dir,
		      struct dma_attrs *attrs);
	void (*unmap_sg)(struct device *dev, struct scatterlist *sg, int nents, enum dma_data_direction dir,
			 struct dma_attrs *attrs);
	void (*sync_single_for_cpu)(struct device *dev, dma_addr_t dma_handle, size_t size, enum dma_data_direction dir);
	void (*sync_single_for_device)(struct device *dev, dma_addr_t dma_handle, size_t size,
				       enum dma_data_direction dir);
	void (*sync_sg_for_cpu)(struct device *dev, struct scatterlist *sg, int nents, enum dma_data_direction dir);
	void (*sync_sg_for_device)(struct device *dev, struct scatterlist *sg, int nents, enum dma_data_direction dir);
	int (*mapping_error)(struct device *dev, dma_addr_t dma_addr);
	int (*dma_supported)(struct device *dev, u64 mask);
	int (*set_dma_mask)(struct device *dev, u64 mask);
};

/*
 * The ARM ops set: direct mapping (bus address = physical address minus the
 * device's dma_pfn_offset) with cache maintenance for non-coherent devices,
 * and coherent/write-combining allocations remapped uncached.
 */
DMAMAP_API extern const struct dma_map_ops arm_dma_ops;

/**
 * get_dma_ops() - the ops set the DMA API uses for @dev
 * Return: dev->archdata.dma_ops if set, else the device's default (arm_dma_ops
 * on every simulated platform); NULL for a NULL or uninitialised device.
 */
DMAMAP_API const struct dma_map_ops *get_dma_ops(struct device *dev);

/**
 * set_dma_ops() - make @ops the ops set of @dev
 * @dev: an initialised device
 * @ops: the ops set (the caller keeps it alive while installed), or NULL to
 *       restore the device's default
 */
DMAMAP_API void set_dma_ops(struct device *dev, const struct dma_map_ops *ops);

/* The location-carrying forms behind the macros below. file may be NULL. */
/** dmamap_map_single_attrs() - dma_map_single_attrs() with the caller's @file and @line for reports. */
DMAMAP_API DMAMAP_MUST_CHECK dma_addr_t dmamap_map_single_attrs(struct device *dev, void *ptr, size_t size,
								 enum dma_data_direction dir, struct dma_attrs *attrs,
								 const char *file, int line);
/** dmamap_unmap_single_attrs() - dma_unmap_single_attrs() with the caller's location. */
DMAMAP_API void dmamap_unmap_single_attrs(struct device *dev, dma_addr_t addr, size_t size,
					  enum dma_data_direction dir, struct dma_attrs *attrs, const char *file,
					  int line);
/** dmamap_map_page_attrs() - dma_map_page_attrs() with the caller's location. */
DMAMAP_API DMAMAP_MUST_CHECK dma_addr_t dmamap_map_page_attrs(struct device *dev, struct page *page,
							       unsigned long offset, size_t size,
							       enum dma_data_direction dir, struct dma_attrs *attrs,
							       const char *file, int line);
/** dmamap_unmap_page_attrs() - dma_unmap_page_attrs() with the caller's location. */
DMAMAP_API void dmamap_unmap_page_attrs(struct device *dev, dma_addr_t addr, size_t size, enum dma_data_direction dir,
					struct dma_attrs *attrs, const char *file, int line);
/** dmamap_map_sg_attrs() - dma_map_sg_attrs() with the caller's location. */
DMAMAP_API DMAMAP_MUST_CHECK int dmamap_map_sg_attrs(struct device *dev, struct scatterlist *sg, int nents,
						      enum dma_data_direction dir, struct dma_attrs *attrs,
						      const char *file, int line);
/** dmamap_unmap_sg_attrs() - dma_unmap_sg_attrs() with the caller's location. */
DMAMAP_API void dmamap_unmap_sg_attrs(struct device *dev, struct scatterlist *sg, int nents,
				      enum dma_data_direction dir, struct dma_attrs *attrs, const char *file, int line);
/** dmamap_alloc_attrs() - dma_alloc_attrs() with the caller's location. */
DMAMAP_API void *dmamap_alloc_attrs(struct device *dev, size_t size, dma_addr_t *dma_handle, gfp_t gfp,
				    struct dma_attrs *attrs, const char *file, int line);
/** dmamap_free_attrs() - dma_free_attrs() with the caller's location. */
DMAMAP_API void dmamap_free_attrs(struct device *dev, size_t size, void *cpu_addr, dma_addr_t dma_handle,
				  struct dma_attrs *attrs, const char *file, int line);
/** dmamap_mmap_attrs() - dma_mmap_attrs() with the caller's location. */
DMAMAP_API DMAMAP_MUST_CHECK int dmamap_mmap_attrs(struct device *dev, struct vm_area_struct *vma, void *cpu_addr,
						    dma_addr_t dma_addr, size_t size, struct dma_attrs *attrs,
						    const char *file, int line);
/** dmamap_get_sgtable_attrs() - dma_get_sgtable_attrs() with the caller's location. */
DMAMAP_API DMAMAP_MUST_CHECK int dmamap_get_sgtable_attrs(struct device *dev, struct sg_table *sgt, void *cpu_addr,
							   dma_addr_t dma_addr, size_t size,
							   struct dma_attrs *attrs, const char *file, int line);

/**
 * dma_map_single_attrs() - map a linear-map buffer for streaming DMA
 * @dev: the device
 * @ptr: linear-map address (page_address(), __get_free_pages()) of the buffer
 * @size: bytes, non-zero
 * @dir: DMA_TO_DEVICE, DMA_FROM_DEVICE or DMA_BIDIRECTIONAL
 * @attrs: NULL, or DMA_ATTR_SKIP_CPU_SYNC to skip the cache maintenance
 *
 * The device owns the buffer from now until dma_unmap_single() or
 * dma_sync_single_for_cpu().
 * Return: the bus address, or DMA_MAPPING_ERROR (check with
 * dma_mapping_error()).
 */
static inline dma_addr_t dma_map_single_attrs(struct device *dev, void *ptr, size_t size,
					      enum dma_data_direction dir, struct dma_attrs *attrs)
{
	return dmamap_map_single_attrs(dev, ptr, size, dir, attrs, NULL, 0);
}

/** dma_unmap_single_attrs() - end a dma_map_single_attrs() mapping: same size and direction. */
static inline void dma_unmap_single_attrs(struct device *dev, dma_addr_t addr, size_t size,
					  enum dma_data_direction dir, struct dma_attrs *attrs)
{
	dmamap_unmap_single_attrs(dev, addr, size, dir, attrs, NULL, 0);
}

/** dma_map_single() - dma_map_single_attrs() with no attributes. */
static inline dma_addr_t dma_map_single(struct device *dev, void *ptr, size_t size, enum dma_data_direction dir)
{
	return dmamap_map_single_attrs(dev, ptr, size, dir, NULL, NULL, 0);
}

/** dma_unmap_single() - dma_unmap_single_attrs() with no attributes. */
static inline void dma_unmap_single(struct device *dev, dma_addr_t addr, size_t size, enum dma_data_direction dir)
{
	dmamap_unmap_single_attrs(dev, addr, size, dir, NULL, NULL, 0);
}

/**
 * dma_map_page_attrs() - map @size bytes at @offset in @page for streaming DMA
 *
 * As dma_map_single_attrs(); the range may run past @page into the following
 * pages of the same machine.
 */
static inline dma_addr_t dma_map_page_attrs(struct device *dev, struct page *page, unsigned long offset, size_t size,
					    enum dma_data_direction dir, struct dma_attrs *attrs)
{
	return dmamap_map_page_attrs(dev, page, offset, size, dir, attrs, NULL, 0);
}

/** dma_unmap_page_attrs() - end a dma_map_page_attrs() mapping. */
static inline void dma_unmap_page_attrs(struct device *dev, dma_addr_t addr, size_t size, enum dma_data_direction dir,
					struct dma_attrs *attrs)
{
	dmamap_unmap_page_attrs(dev, addr, size, dir, attrs, NULL, 0);
}

/** dma_map_page() - dma_map_page_attrs() with no attributes. */
static inline dma_addr_t dma_map_page(struct device *dev, struct page *page, unsigned long offset, size_t size,
				      enum dma_data_direction dir)
{
	return dmamap_map_page_attrs(dev, page, offset, size, dir, NULL, NULL, 0);
}

/** dma_unmap_page() - dma_unmap_page_attrs() with no attributes. */
static inline void dma_unmap_page(struct device *dev, dma_addr_t addr, size_t size, enum dma_data_direction dir)
{
	dmamap_unmap_page_attrs(dev, addr, size, dir, NULL, NULL, 0);
}

/**
 * dma_map_sg_attrs() - map the first @nents entries of @sg
 *
 * Return: the number of DMA segments (at most @nents; fewer when an IOMMU
 * merges entries), written to the first entries' dma_address/dma_length; 0
 * on failure, with nothing left mapped.
 */
static inline int dma_map_sg_attrs(struct device *dev, struct scatterlist *sg, int nents, enum dma_data_direction dir,
				   struct dma_attrs *attrs)
{
	return dmamap_map_sg_attrs(dev, sg, nents, dir, attrs, NULL, 0);
}

/** dma_unmap_sg_attrs() - unmap a list: pass the @nents given to dma_map_sg(), not its result. */
static inline void dma_unmap_sg_attrs(struct device *dev, struct scatterlist *sg, int nents,
				      enum dma_data_direction dir, struct dma_attrs *attrs)
{
	dmamap_unmap_sg_attrs(dev, sg, nents, dir, attrs, NULL, 0);
}

/** dma_map_sg() - dma_map_sg_attrs() with no attributes. */
static inline int dma_map_sg(struct device *dev, struct scatterlist *sg, int nents, enum dma_data_direction dir)
{
	return dmamap_map_sg_attrs(dev, sg, nents, dir, NULL, NULL, 0);
}

/** dma_unmap_sg() - dma_unmap_sg_attrs() with no attributes. */
static inline void dma_unmap_sg(struct device *dev, struct scatterlist *sg, int nents, enum dma_data_direction dir)
{
	dmamap_unmap_sg_attrs(dev, sg, nents, dir, NULL, NULL, 0);
}

/**
 * dma_alloc_attrs() - allocate a buffer both the CPU and the device can use
 * @dev: the device
 * @size: bytes, non-zero (rounded up to pages)
 * @dma_handle: receives the bus address (DMA_MAPPING_ERROR on failure)
 * @gfp: GFP_KERNEL, or GFP_ATOMIC (served from the machine's atomic pool on a
 *       non-coherent machine: no remapping)
 * @attrs: NULL (uncached, "coherent"), DMA_ATTR_WRITE_COMBINE,
 *         DMA_ATTR_NON_CONSISTENT (cached: the driver syncs; from declared
 *         memory, which the kernel maps uncached whatever the attrs, it is
 *         uncached),
 *         DMA_ATTR_NO_KERNEL_MAPPING (the return value is a cookie for
 *         dma_free_attrs()/dma_mmap_attrs(), not an address to touch),
 *         DMA_ATTR_FORCE_CONTIGUOUS
 *
 * The memory comes, in order, from the device's declared coherent memory,
 * the machine's contiguous area for large blocking requests, or the page
 * allocator (the DMA zone when the coherent mask needs it), and is zeroed.
 * The buffer belongs to @dev: only a free through @dev with the same size
 * and handle gives it back; what is left at dmamap_device_release() is
 * reported (DMAMAP_REPORT_LEAK) and freed.
 * Return: the CPU address (or cookie), or NULL: no memory, a size that
 * cannot be rounded up to pages or unknown gfp bits (both reported,
 * DMAMAP_REPORT_BAD_INPUT), a coherent mask below the DMA zone (reported).
 */
static inline void *dma_alloc_attrs(struct device *dev, size_t size, dma_addr_t *dma_handle, gfp_t gfp,
				    struct dma_attrs *attrs)
{
	return dmamap_alloc_attrs(dev, size, dma_handle, gfp, attrs, NULL, 0);
}

/**
 * dma_free_attrs() - free a dma_alloc_attrs() buffer: same device, size, handle and attrs
 *
 * A free that does not name one live buffer of @dev exactly (another size,
 * another allocation's handle, another device, a buffer freed already) is
 * reported (DMAMAP_REPORT_API_MISUSE) and frees nothing; so is a free of a
 * dmam_alloc_coherent() buffer, which goes with the device or with
 * dmam_free_coherent(). With the checker on, @attrs must set the same
 * DMA_ATTR_WRITE_COMBINE, DMA_ATTR_NON_CONSISTENT, DMA_ATTR_NO_KERNEL_MAPPING
 * and DMA_ATTR_FORCE_CONTIGUOUS as the allocation did (so dma_free_coherent()
 * does not free a dma_alloc_writecombine() buffer): others are reported
 * (DMAMAP_REPORT_ATTR_MISMATCH) and the buffer is freed as it was allocated,
 * the ops given the allocation's attrs (see <dmamap/debug.h>). The reports
 * name dma_free_attrs (also those of dma_free_coherent() and
 * dma_free_writecombine(), which it is), the checker's and, with the checker
 * off, the ops' own refusals alike. The buffer is the caller's until this
 * call frees it.
 */
static inline void dma_free_attrs(struct device *dev, size_t size, void *cpu_addr, dma_addr_t dma_handle,
				  struct dma_attrs *attrs)
{
	dmamap_free_attrs(dev, size, cpu_addr, dma_handle, attrs, NULL, 0);
}

/**
 * dma_mmap_attrs() - map a dma_alloc_attrs() buffer into a user vma
 *
 * vma->vm_pgoff pages into the buffer are mapped at vm_start, with the
 * protection the attrs imply: cached for DMA_ATTR_NON_CONSISTENT (or a
 * coherent device), write-combining for DMA_ATTR_WRITE_COMBINE, else the
 * coherent (non-cacheable) type. So @attrs must set the same
 * DMA_ATTR_WRITE_COMBINE and DMA_ATTR_NON_CONSISTENT as the allocation
 * (dma_mmap_coherent() of a dma_alloc_writecombine() buffer is a misuse);
 * the others may differ. With the checker on, other ones are reported
 * (DMAMAP_REPORT_ATTR_MISMATCH, at the call's line, naming the
 * allocation's) and the buffer is mapped as it was allocated, the ops given
 * the allocation's attrs. A buffer from the device's declared memory is
 * mapped by the same rule, as the kernel's arm_dma_mmap() sets the vma's
 * protection before dma_mmap_from_coherent() maps declared memory with it,
 * except that DMA_ATTR_NON_CONSISTENT does not make it cached: that memory
 * is uncached in the kernel's own mapping.
 * The vma stays the caller's (dmamap_vma_destroy() unmaps it).
 * Return: 0; -ENXIO when the vma (from vm_pgoff) is larger than the buffer,
 * or when @cpu_addr and @dma_addr are not a live buffer of @dev at least
 * @size long (reported); another -errno from the mapping.
 */
static inline int dma_mmap_attrs(struct device *dev, struct vm_area_struct *vma, void *cpu_addr, dma_addr_t dma_addr,
				 size_t size, struct dma_attrs *attrs)
{
	return dmamap_mmap_attrs(dev, vma, cpu_addr, dma_addr, size, attrs, NULL, 0);
}

/**
 * dma_get_sgtable_attrs() - describe a dma_alloc_attrs() buffer as an sg_table
 *
 * Any buffer dma_alloc_attrs() made, one served from declared coherent
 * memory included: the table covers its first @size bytes, rounded up to
 * pages.
 * Return: 0 with @sgt allocated (the caller frees it with sg_free_table());
 * -ENXIO when @cpu_addr and @dma_addr are not a live buffer of @dev at least
 * @size long (reported, @sgt untouched); another -errno.
 */
static inline int dma_get_sgtable_attrs(struct device *dev, struct sg_table *sgt, void *cpu_addr, dma_addr_t dma_addr,
					size_t size, struct dma_attrs *attrs)
{
	return dmamap_get_sgtable_attrs(dev, sgt, cpu_addr, dma_addr, size, attrs, NULL, 0);
}

/** dma_get_sgtable() - dma_get_sgtable_attrs() with no attributes. */
static inline int dma_get_sgtable(struct device *dev, struct sg_table *sgt, void *cpu_addr, dma_addr_t dma_addr,
				  size_t size)
{
	return dmamap_get_sgtable_attrs(dev, sgt, cpu_addr, dma_addr, size, NULL, NULL, 0);
}

/** dma_alloc_coherent() - dma_alloc_attrs() with no attributes: uncached memory both sides see at once. */
static inline void *dma_alloc_coherent(struct device *dev, size_t size, dma_addr_t *dma_handle, gfp_t gfp)
{
	return dmamap_alloc_attrs(dev, size, dma_handle, gfp, NULL, NULL, 0);
}

/** dma_free_coherent() - free a dma_alloc_coherent() buffer. */
static inline void dma_free_coherent(struct device *dev, size_t size, void *cpu_addr, dma_addr_t dma_handle)
{
	dmamap_free_attrs(dev, size, cpu_addr, dma_handle, NULL, NULL, 0);
}

/** dma_mmap_coherent() - map a dma_alloc_coherent() buffer into a user vma (see dma_mmap_attrs()). */
static inline int dma_mmap_coherent(struct device *dev, struct vm_area_struct *vma, void *cpu_addr,
				    dma_addr_t dma_addr, size_t size)
{
	return dmamap_mmap_attrs(dev, vma, cpu_addr, dma_addr, size, NULL, NULL, 0);
}

/** dma_alloc_writecombine() - dma_alloc_attrs() with DMA_ATTR_WRITE_COMBINE. */
static inline void *dma_alloc_writecombine(struct device *dev, size_t size, dma_addr_t *dma_handle, gfp_t gfp)
{
	DEFINE_DMA_ATTRS(attrs);

	dma_set_attr(DMA_ATTR_WRITE_COMBINE, &attrs);
	return dmamap_alloc_attrs(dev, size, dma_handle, gfp, &attrs, NULL, 0);
}

/** dma_free_writecombine() - free a dma_alloc_writecombine() buffer. */
static inline void dma_free_writecombine(struct device *dev, size_t size, void *cpu_addr, dma_addr_t dma_handle)
{
	DEFINE_DMA_ATTRS(attrs);

	dma_set_attr(DMA_ATTR_WRITE_COMBINE, &attrs);
	dmamap_free_attrs(dev, size, cpu_addr, dma_handle, &attrs, NULL, 0);
}

/** dma_mmap_writecombine() - map a write-combining buffer into a user vma, write-combining. */
static inline int dma_mmap_writecombine(struct device *dev, struct vm_area_struct *vma, void *cpu_addr,
					dma_addr_t dma_addr, size_t size)
{
	DEFINE_DMA_ATTRS(attrs);

	dma_set_attr(DMA_ATTR_WRITE_COMBINE, &attrs);
	return dmamap_mmap_attrs(dev, vma, cpu_addr, dma_addr, size, &attrs, NULL, 0);
}

/** dma_alloc_noncoherent() - dma_alloc_attrs() with DMA_ATTR_NON_CONSISTENT: cached memory the driver syncs. */
static inline void *dma_alloc_noncoherent(struct device *dev, size_t size, dma_addr_t *dma_handle, gfp_t gfp)
{
	DEFINE_DMA_ATTRS(attrs);

	dma_set_attr(DMA_ATTR_NON_CONSISTENT, &attrs);
	return dmamap_alloc_attrs(dev, size, dma_handle, gfp, &attrs, NULL, 0);
}

/** dma_free_noncoherent() - free a dma_alloc_noncoherent() buffer. */
static inline void dma_free_noncoherent(struct device *dev, size_t size, void *cpu_addr, dma_addr_t dma_handle)
{
	DEFINE_DMA_ATTRS(attrs);

	dma_set_attr(DMA_ATTR_NON_CONSISTENT, &attrs);
	dmamap_free_attrs(dev, size, cpu_addr, dma_handle, &attrs, NULL, 0);
}

/* The file:line-carrying macros: what driver code actually calls. Attrs are checked by DMAMAP_SEED_ATTRS(). */
#define dma_map_single_attrs(d, p, s, r, a) \
	dmamap_map_single_attrs((d), (p), (s), (r), DMAMAP_SEED_ATTRS(a), __FILE__, __LINE__)
#define dma_unmap_single_attrs(d, h, s, r, a) \
	dmamap_unmap_single_attrs((d), (h), (s), (r), DMAMAP_SEED_ATTRS(a), __FILE__, __LINE__)
#define dma_map_single(d, p, s, r) dmamap_map_single_attrs((d), (p), (s), (r), NULL, __FILE__, __LINE__)
#define dma_unmap_single(d, h, s, r) dmamap_unmap_single_attrs((d), (h), (s), (r), NULL, __FILE__, __LINE__)
#define dma_map_page_attrs(d, pg, o, s, r, a) \
	dmamap_map_page_attrs((d), (pg), (o), (s), (r), DMAMAP_SEED_ATTRS(a), __FILE__, __LINE__)
#define dma_unmap_page_attrs(d, h, s, r, a) \
	dmamap_unmap_page_attrs((d), (h), (s), (r), DMAMAP_SEED_ATTRS(a), __FILE__, __LINE__)
#define dma_map_page(d, pg, o, s, r) dmamap_map_page_attrs((d), (pg), (o), (s), (r), NULL, __FILE__, __LINE__)
#define dma_unmap_page(d, h, s, r) dmamap_unmap_page_attrs((d), (h), (s), (r), NULL, __FILE__, __LINE__)
#define dma_map_sg_attrs(d, sg, n, r, a) \
	dmamap_map_sg_attrs((d), (sg), (n), (r), DMAMAP_SEED_ATTRS(a), __FILE__, __LINE__)
#define dma_unmap_sg_attrs(d, sg, n, r, a) \
	dmamap_unmap_sg_attrs((d), (sg), (n), (r), DMAMAP_SEED_ATTRS(a), __FILE__, __LINE__)
#define dma_map_sg(d, sg, n, r) dmamap_map_sg_attrs((d), (sg), (n), (r), NULL, __FILE__, __LINE__)
#define dma_unmap_sg(d, sg, n, r) dmamap_unmap_sg_attrs((d), (sg), (n), (r), NULL, __FILE__, __LINE__)
#define dma_alloc_attrs(d, s, h, g, a) dmamap_alloc_attrs((d), (s), (h), (g), DMAMAP_SEED_ATTRS(a), __FILE__, __LINE__)
#define dma_free_attrs(d, s, c, h, a) dmamap_free_attrs((d), (s), (c), (h), DMAMAP_SEED_ATTRS(a), __FILE__, __LINE__)
#define dma_mmap_attrs(d, v, c, h, s, a) \
	dmamap_mmap_attrs((d), (v), (c), (h), (s), DMAMAP_SEED_ATTRS(a), __FILE__, __LINE__)
#define dma_get_sgtable_attrs(d, t, c, h, s, a) \
	dmamap_get_sgtable_attrs((d), (t), (c), (h), (s), DMAMAP_SEED_ATTRS(a), __FILE__, __LINE__)
#define dma_get_sgtable(d, t, c, h, s) dmamap_get_sgtable_attrs((d), (t), (c), (h), (s), NULL, __FILE__, __LINE__)
#define dma_alloc_coherent(d, s, h, g) dmamap_alloc_attrs((d), (s), (h), (g), NULL, __FILE__, __LINE__)
#define dma_free_coherent(d, s, c, h) dmamap_free_attrs((d), (s), (c), (h), NULL, __FILE__, __LINE__)
#define dma_mmap_coherent(d, v, c, h, s) dmamap_mmap_attrs((d), (v), (c), (h), (s), NULL, __FILE__, __LINE__)
#ifndef __cplusplus
#define DMAMAP_ATTR_ONE(x) (&(struct dma_attrs){ 1UL << (x) })
#define dma_alloc_writecombine(d, s, h, g) \
	dmamap_alloc_attrs((d), (s), (h), (g), DMAMAP_ATTR_ONE(DMA_ATTR_WRITE_COMBINE), __FILE__, __LINE__)
#define dma_free_writecombine(d, s, c, h) \
	dmamap_free_attrs((d), (s), (c), (h), DMAMAP_ATTR_ONE(DMA_ATTR_WRITE_COMBINE), __FILE__, __LINE__)
#define dma_mmap_writecombine(d, v, c, h, s) \
	dmamap_mmap_attrs((d), (v), (c), (h), (s), DMAMAP_ATTR_ONE(DMA_ATTR_WRITE_COMBINE), __FILE__, __LINE__)
#define dma_alloc_noncoherent(d, s, h, g) \
	dmamap_alloc_attrs((d), (s), (h), (g), DMAMAP_ATTR_ONE(DMA_ATTR_NON_CONSISTENT), __FILE__, __LINE__)
#define dma_free_noncoherent(d, s, c, h) \
	dmamap_free_attrs((d), (s), (c), (h), DMAMAP_ATTR_ONE(DMA_ATTR_NON_CONSISTENT), __FILE__, __LINE__)
#endif

DMAMAP_END_DECLS

#endif /* DMAMAP_DMA_MAPPING_H */
