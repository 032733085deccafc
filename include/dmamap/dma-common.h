/* SPDX-License-Identifier: MIT */
/*
 * The part of the DMA mapping API that is the same in both kernel APIs the
 * library offers: syncs, masks and segment limits,
 * declared coherent memory, and the helpers later kernels added that take no
 * attributes (dma_coerce_mask_and_coherent(), dma_need_sync()...).
 * dma_mapping_error() is not here: the two APIs return different values for
 * a failed mapping (1 in 2012, -ENOMEM in Linux 6.x), and each API's header
 * defines its own over the library call its kernel's behaviour needs.
 *
 * <dmamap/dma-mapping.h> (the 2012 ARM API, struct dma_attrs) and
 * <linux/dma-mapping.h> (Linux 6.x, unsigned long attrs) both include it;
 * include one of those, not this header alone. As there, each wrapper is a
 * function with the kernel's signature and a macro of the same name that
 * passes the caller's file and line to the library.
 */
#ifndef DMAMAP_DMA_COMMON_H
#define DMAMAP_DMA_COMMON_H

#include <dmamap/types.h>
#include <dmamap/scatterlist.h>
#include <dmamap/mm.h>
#include <dmamap/device.h>

DMAMAP_BEGIN_DECLS

/** dmamap_sync_single_for_cpu() - dma_sync_single_for_cpu() with the caller's location. */
DMAMAP_API void dmamap_sync_single_for_cpu(struct device *dev, dma_addr_t addr, size_t size,
					   enum dma_data_direction dir, const char *file, int line);
/** dmamap_sync_single_for_device() - dma_sync_single_for_device() with the caller's location. */
DMAMAP_API void dmamap_sync_single_for_device(struct device *dev, dma_addr_t addr, size_t size,
					      enum dma_data_direction dir, const char *file, int line);
/** dmamap_sync_sg_for_cpu() - dma_sync_sg_for_cpu() with the caller's location. */
DMAMAP_API void dmamap_sync_sg_for_cpu(struct device *dev, struct scatterlist *sg, int nents,
				       enum dma_data_direction dir, const char *file, int line);
/** dmamap_sync_sg_for_device() - dma_sync_sg_for_device() with the caller's location. */
DMAMAP_API void dmamap_sync_sg_for_device(struct device *dev, struct scatterlist *sg, int nents,
					  enum dma_data_direction dir, const char *file, int line);
/**
 * dmamap_mapping_error() - dma_mapping_error() of the 2012 API with the caller's location
 * @dev: the device that made the mapping
 * @dma_addr: what the mapping call returned
 * @file: the caller's source file for reports, or NULL
 * @line: the caller's source line
 *
 * Tells the checker that the handle was checked.
 * Return: 1 for DMA_MAPPING_ERROR (or what the ops set calls an error), 0
 * otherwise; 1 too for a NULL or uninitialised device (reported). The Linux
 * 6.x API's dma_mapping_error() returns -ENOMEM instead (see
 * dmamap_linux_mapping_error()).
 */
DMAMAP_API int dmamap_mapping_error(struct device *dev, dma_addr_t dma_addr, const char *file, int line);

/**
 * dma_sync_single_for_cpu() - give a streaming mapping back to the CPU
 * @addr: the bus address of the mapping, or any address inside it
 * @size: bytes from @addr
 * @dir: the mapping's direction
 */
static inline void dma_sync_single_for_cpu(struct device *dev, dma_addr_t addr, size_t size,
					   enum dma_data_direction dir)
{
	dmamap_sync_single_for_cpu(dev, addr, size, dir, NULL, 0);
}

/** dma_sync_single_for_device() - give a streaming mapping back to the device. */
static inline void dma_sync_single_for_device(struct device *dev, dma_addr_t addr, size_t size,
					      enum dma_data_direction dir)
{
	dmamap_sync_single_for_device(dev, addr, size, dir, NULL, 0);
}

/** dma_sync_single_range_for_cpu() - sync @size bytes at @offset into the mapping at @addr. */
static inline void dma_sync_single_range_for_cpu(struct device *dev, dma_addr_t addr, unsigned long offset,
						 size_t size, enum dma_data_direction dir)
{
	dmamap_sync_single_for_cpu(dev, addr + offset, size, dir, NULL, 0);
}

/** dma_sync_single_range_for_device() - sync @size bytes at @offset into the mapping at @addr. */
static inline void dma_sync_single_range_for_device(struct device *dev, dma_addr_t addr, unsigned long offset,
						    size_t size, enum dma_data_direction dir)
{
	dmamap_sync_single_for_device(dev, addr + offset, size, dir, NULL, 0);
}

/** dma_sync_sg_for_cpu() - sync a mapped list for the CPU: pass the @nents given to dma_map_sg(). */
static inline void dma_sync_sg_for_cpu(struct device *dev, struct scatterlist *sg, int nents,
				       enum dma_data_direction dir)
{
	dmamap_sync_sg_for_cpu(dev, sg, nents, dir, NULL, 0);
}

/** dma_sync_sg_for_device() - sync a mapped list for the device. */
static inline void dma_sync_sg_for_device(struct device *dev, struct scatterlist *sg, int nents,
					  enum dma_data_direction dir)
{
	dmamap_sync_sg_for_device(dev, sg, nents, dir, NULL, 0);
}

/**
 * dma_supported() - whether the device can do DMA with bus mask @mask
 *
 * On the ARM ops: true iff the mask covers the whole DMA zone (every byte
 * below dma_zone_limit, or all of RAM without a limit), as seen on the
 * device's bus. A device whose mask is refused needs dmabounce.
 * Return: 1 or 0 (0 for a NULL device).
 */
DMAMAP_API int dma_supported(struct device *dev, u64 mask);

/**
 * dma_set_mask() - set the streaming DMA mask of @dev
 * Return: 0, or -EIO when dma_supported() refuses @mask (nothing changed).
 */
DMAMAP_API DMAMAP_MUST_CHECK int dma_set_mask(struct device *dev, u64 mask);

/**
 * dma_set_coherent_mask() - set the mask coherent allocations must satisfy
 * Return: 0, or -EIO when dma_supported() refuses @mask (nothing changed).
 */
DMAMAP_API DMAMAP_MUST_CHECK int dma_set_coherent_mask(struct device *dev, u64 mask);

/** dma_set_mask_and_coherent() - both of the above; -EIO leaves both unchanged. */
DMAMAP_API DMAMAP_MUST_CHECK int dma_set_mask_and_coherent(struct device *dev, u64 mask);

/*
 * The device helpers below refuse a NULL or uninitialised device (reported,
 * DMAMAP_REPORT_BAD_INPUT): the getters then return their default, the
 * setters -EIO, and nothing of the device is read or written.
 */

/** dma_get_mask() - the streaming mask of @dev (32-bit when it has none). */
DMAMAP_API u64 dma_get_mask(struct device *dev);

/** dma_get_max_seg_size() - largest DMA segment @dev takes (64 KiB without dma_parms). */
DMAMAP_API unsigned int dma_get_max_seg_size(struct device *dev);

/**
 * dma_set_max_seg_size() - set the largest DMA segment @dev takes
 * Return: 0, -EIO for a device without dma_parms (or not initialised), -EINVAL
 * for 0.
 */
DMAMAP_API int dma_set_max_seg_size(struct device *dev, unsigned int size);

/** dma_get_seg_boundary() - the boundary mask no segment may cross (4 GiB without dma_parms). */
DMAMAP_API unsigned long dma_get_seg_boundary(struct device *dev);

/** dma_set_seg_boundary() - set it; 0, or -EIO without dma_parms (or not initialised). */
DMAMAP_API int dma_set_seg_boundary(struct device *dev, unsigned long mask);

/**
 * dma_get_seg_boundary_nr_pages() - the segment boundary in pages of 1 << @page_shift bytes
 * @dev: the device; NULL stands for the 4 GiB boundary of a device without dma_parms
 * @page_shift: log2 of the page size the caller counts in
 *
 * Return: (dma_get_seg_boundary(@dev) >> @page_shift) + 1, as the kernel's.
 */
static inline unsigned long dma_get_seg_boundary_nr_pages(struct device *dev, unsigned int page_shift)
{
	return ((dev ? dma_get_seg_boundary(dev) : 0xffffffffUL) >> page_shift) + 1;
}

/**
 * dma_set_min_align_mask() - the low address bits a bounce buffer must keep
 * @dev: the device
 * @min_align_mask: the mask (NVMe, for one, sets its page size - 1)
 *
 * Stored for dma_get_min_align_mask(), as the kernel stores it for swiotlb.
 * ARM's dmabounce, the library's bouncing ops set, predates it and does not
 * honour it (nor does the kernel's).
 * Return: 0, or -EIO without dma_parms (or not initialised).
 */
DMAMAP_API int dma_set_min_align_mask(struct device *dev, unsigned int min_align_mask);

/** dma_get_min_align_mask() - what dma_set_min_align_mask() stored; 0 without dma_parms. */
DMAMAP_API unsigned int dma_get_min_align_mask(struct device *dev);

/**
 * dma_get_merge_boundary() - the boundary up to which the device's ops merge segments
 * @dev: the device
 *
 * Return: 0: no ops set here merges DMA segments by a boundary (ARM's IOMMU
 * mapper has no get_merge_boundary, so the kernel says 0 there too).
 */
static inline unsigned long dma_get_merge_boundary(struct device *dev)
{
	(void)dev;
	return 0;
}

/**
 * dma_declare_coherent_memory() - give @dev a private pool of coherent memory
 * @dev: the device
 * @phys_addr: start of the memory, page aligned, RAM of the device's machine
 *             that the caller owns (e.g. pages it allocated) while declared
 * @device_addr: the bus address at which the device sees @phys_addr, page
 *               aligned; the bus range [@device_addr, +@size) may end at the
 *               last bus address but not wrap past it
 * @size: bytes, a non-zero page multiple
 *
 * The memory gets an uncached mapping in the consistent region, and
 * dma_alloc_attrs() serves the device from it first, falling through to the
 * other sources when it is full; dma_mmap_attrs() maps its buffers into user
 * space with the type the attrs ask for, as any other buffer. The caller
 * keeps ownership of the memory.
 * Return: 0; -EINVAL (a bad range, reported: nothing changed), -EBUSY
 * (already declared), -ENOMEM.
 */
DMAMAP_API DMAMAP_MUST_CHECK int dma_declare_coherent_memory(struct device *dev, phys_addr_t phys_addr,
							      dma_addr_t device_addr, size_t size);

/**
 * dma_release_declared_memory() - undo dma_declare_coherent_memory()
 *
 * Buffers still allocated from it are reported (DMAMAP_REPORT_LEAK) and the
 * memory is released anyway.
 */
DMAMAP_API void dma_release_declared_memory(struct device *dev);

/**
 * dmamap_contiguous_reserve() - reserve a contiguous (CMA-like) area on @m
 * @m: the machine
 * @size: bytes, a non-zero multiple of 4 MiB
 *
 * The area is taken from the top of the DMA zone (so any device whose mask is
 * supported can use it) and serves blocking coherent allocations of
 * at least 16 pages. Call once, early, while its pages are still free.
 * Return: 0; -EINVAL (bad size), -EEXIST (already reserved), -EBUSY (pages in use), -ENOMEM.
 */
DMAMAP_API DMAMAP_MUST_CHECK int dmamap_contiguous_reserve(struct dmamap_machine *m, size_t size);

/* Where coherent allocations of a machine came from, and what is left. */
struct dmamap_coherent_stats {
	unsigned long from_declared;      /* served by a device's declared memory */
	unsigned long from_contiguous;    /* served by the contiguous area */
	unsigned long from_atomic_pool;   /* served by the atomic pool */
	unsigned long from_pages;         /* served by the page allocator (remapped or not) */
	unsigned long failures;           /* allocations that failed */
	size_t contiguous_size, contiguous_free;
	size_t atomic_pool_size, atomic_pool_free;
};

/** dmamap_coherent_stats() - read @m's coherent-allocation counters into @st. */
DMAMAP_API void dmamap_coherent_stats(struct dmamap_machine *m, struct dmamap_coherent_stats *st);

/**
 * dma_coerce_mask_and_coherent() - give @dev a streaming mask, then set both masks
 * @dev: an initialised device
 * @mask: the mask
 *
 * Points dev->dma_mask at dev->coherent_dma_mask, as platform drivers whose
 * bus code left no mask do, then acts as dma_set_mask_and_coherent().
 * Return: 0; -EIO when dma_supported() refuses @mask or @dev is NULL or not
 * initialised (reported); on -EIO nothing changed.
 */
DMAMAP_API DMAMAP_MUST_CHECK int dma_coerce_mask_and_coherent(struct device *dev, u64 mask);

/**
 * dma_max_mapping_size() - the largest single mapping @dev's ops set can make
 * @dev: the device
 *
 * Return: SIZE_MAX for every simulated ops set (dmabounce bounces a buffer
 * larger than its pools through an allocation of its own; the IOMMU mapper is
 * limited only by its address space), as the kernel says for the direct and
 * IOMMU paths; 0 for a NULL or uninitialised device (reported).
 */
DMAMAP_API size_t dma_max_mapping_size(struct device *dev);

/**
 * dma_opt_mapping_size() - the mapping size above which mapping gets slow
 * @dev: the device
 *
 * Return: as dma_max_mapping_size(): no simulated ops set has a slower path
 * for large mappings.
 */
DMAMAP_API size_t dma_opt_mapping_size(struct device *dev);

/**
 * dma_addressing_limited() - whether @dev cannot reach all of its machine's RAM directly
 * @dev: the device
 *
 * A driver asks this to decide whether large buffers are worth allocating
 * anywhere, or should come from memory the device reaches (else every mapping
 * bounces).
 * Return: false behind an IOMMU (it maps any page); otherwise true iff the
 * streaming mask (dma_get_mask()) ends below the bus address of the last byte
 * of RAM. A NULL or uninitialised device is reported and true is returned
 * (the cautious answer).
 */
DMAMAP_API bool dma_addressing_limited(struct device *dev);

/**
 * dma_get_required_mask() - the smallest mask that reaches all of the machine's RAM from @dev
 * @dev: the device
 *
 * What a driver asks before it settles for a 32-bit mask (smaller
 * descriptors) or asks for more. As Linux 6.x's dma-direct computes it: every
 * bit up to the highest one of the bus address, as @dev sees it, of the last
 * byte of RAM (DMA_BIT_MASK(32) for a RAM that ends at 4 GiB).
 * Return: that mask; DMA_BIT_MASK(32) behind the IOMMU mapper, as Linux
 * answers for an IOMMU (the device sees IOVAs, not RAM), and for a NULL or
 * uninitialised device (reported).
 */
DMAMAP_API u64 dma_get_required_mask(struct device *dev);

/**
 * dma_get_cache_alignment() - the alignment that keeps a DMA buffer on cache lines of its own
 *
 * Return: ARCH_DMA_MINALIGN (DMAMAP_ARCH_DMA_MINALIGN, 128), or the current
 * machine's cache line when that is larger.
 */
DMAMAP_API int dma_get_cache_alignment(void);

/**
 * dma_need_sync() - whether syncing the mapping at @dma_addr does anything
 * @dev: the device
 * @dma_addr: a bus address of one of its streaming mappings
 *
 * Return: on the device's default (direct) ops, true iff the device does not
 * snoop the CPU caches; on another ops set (dmabounce, the IOMMU mapper), true
 * when it has sync operations, as the kernel answers. A NULL or uninitialised
 * device is reported and true is returned (syncing is the safe answer).
 */
DMAMAP_API bool dma_need_sync(struct device *dev, dma_addr_t dma_addr);

/**
 * dma_need_unmap() - whether the device's streaming mappings must be unmapped
 * @dev: the device
 *
 * As the kernel answers: true on an ops set other than the direct one
 * (dmabounce, the IOMMU mapper: an unmap gives back a safe buffer or an
 * IOVA), true on the direct ops when the device does not snoop the CPU
 * caches (the unmap syncs) or the DMA-API checker is on (the kernel's
 * CONFIG_DMA_API_DEBUG: the checker must see the unmap); false only for a
 * coherent device on the direct ops with the checker off. A NULL or
 * uninitialised device is reported and true is returned.
 */
DMAMAP_API bool dma_need_unmap(struct device *dev);

/**
 * dma_can_mmap() - whether dma_mmap_attrs() can map the device's coherent buffers to user space
 * @dev: the device
 *
 * Return: true when the device's ops set has an mmap operation (every ops
 * set of the library does; a test's own ops set may not). A NULL or
 * uninitialised device is reported and false is returned.
 */
DMAMAP_API bool dma_can_mmap(struct device *dev);

/*
 * Where a driver keeps what it needs for an unmap (CONFIG_NEED_DMA_MAP_STATE
 * is set: the fields exist and hold what was stored).
 */
#define DEFINE_DMA_UNMAP_ADDR(ADDR_NAME) dma_addr_t ADDR_NAME
#define DEFINE_DMA_UNMAP_LEN(LEN_NAME) u32 LEN_NAME
#define dma_unmap_addr(PTR, ADDR_NAME) ((PTR)->ADDR_NAME)
#define dma_unmap_addr_set(PTR, ADDR_NAME, VAL) (((PTR)->ADDR_NAME) = (VAL))
#define dma_unmap_len(PTR, LEN_NAME) ((PTR)->LEN_NAME)
#define dma_unmap_len_set(PTR, LEN_NAME, VAL) (((PTR)->LEN_NAME) = (VAL))

/* The file:line-carrying macros of the calls above. */
#define dma_sync_single_for_cpu(d, h, s, r) dmamap_sync_single_for_cpu((d), (h), (s), (r), __FILE__, __LINE__)
#define dma_sync_single_for_device(d, h, s, r) dmamap_sync_single_for_device((d), (h), (s), (r), __FILE__, __LINE__)
#define dma_sync_single_range_for_cpu(d, h, o, s, r) \
	dmamap_sync_single_for_cpu((d), (h) + (o), (s), (r), __FILE__, __LINE__)
#define dma_sync_single_range_for_device(d, h, o, s, r) \
	dmamap_sync_single_for_device((d), (h) + (o), (s), (r), __FILE__, __LINE__)
#define dma_sync_sg_for_cpu(d, sg, n, r) dmamap_sync_sg_for_cpu((d), (sg), (n), (r), __FILE__, __LINE__)
#define dma_sync_sg_for_device(d, sg, n, r) dmamap_sync_sg_for_device((d), (sg), (n), (r), __FILE__, __LINE__)

DMAMAP_END_DECLS

#endif /* DMAMAP_DMA_COMMON_H */
