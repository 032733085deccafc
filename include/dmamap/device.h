/* SPDX-License-Identifier: MIT */
/*
 * struct device, its life cycle on a simulated machine, and the hardware side:
 * what the device does on the bus.
 *
 * The struct is the caller's (embed it in a driver structure as the kernel
 * does); dmamap_device_init() attaches it to a machine and
 * dmamap_device_release() detaches it and reports what the driver left behind.
 */
#ifndef DMAMAP_DEVICE_H
#define DMAMAP_DEVICE_H

#include <dmamap/types.h>

DMAMAP_BEGIN_DECLS

struct dma_map_ops;
struct dmabounce_device_info;
struct dma_iommu_mapping;
struct iommu_domain;
struct dma_coherent_mem;
struct device_driver;
struct device_node;
struct fwnode_handle;

#define DMAMAP_DEV_NAME_MAX 48

struct device_dma_parameters {
	unsigned int max_segment_size;        /* default 64 KiB */
	unsigned long segment_boundary_mask;  /* default 0xffffffff */
	unsigned int min_align_mask;          /* default 0 (dma_set_min_align_mask()) */
};

struct dev_archdata {
	const struct dma_map_ops *dma_ops;    /* NULL: the device's default ops */
	struct dmabounce_device_info *dmabounce;
	void *iommu_priv;
	struct dma_iommu_mapping *mapping;
};

struct device {
	u64 *dma_mask;                        /* points at dmamap.dma_mask after init */
	u64 coherent_dma_mask;
	struct device_dma_parameters *dma_parms; /* points at dmamap.dma_parms after init */
	unsigned long dma_pfn_offset;         /* bus pfn = cpu pfn - dma_pfn_offset */
	bool dma_coherent;                    /* snoops the CPU caches: no maintenance */
	struct dev_archdata archdata;
	struct dma_coherent_mem *dma_mem;     /* declared coherent memory */
	void *driver_data;
	void *platform_data;                  /* the board's description of the device (dev_get_platdata()) */
	struct device_driver *driver;         /* the bound driver's, set by dmamap_platform_bind() */
	struct device_node *of_node;          /* its device-tree node (dmamap_device_set_of_node(), <dmamap/of.h>) */
	struct fwnode_handle *fwnode;         /* its firmware node: the of_node's handle */
	/* library-private: set by dmamap_device_init() */
	struct {
		struct dmamap_machine *machine;
		const struct dma_map_ops *default_ops;
		struct iommu_domain *iommu_domain; /* the domain the device is attached to */
		u64 dma_mask;
		struct device_dma_parameters dma_parms;
		char name[DMAMAP_DEV_NAME_MAX];
		unsigned long magic;
		void *debug;                     /* reserved for the misuse checker's per-device state */
		void *devres;                    /* managed resources, newest first (<dmamap/devres.h>) */
		struct device_node *of_node;     /* the node dmamap_device_set_of_node() made, freed at release */
		void *clocks;                    /* the clocks the board wired to it (<dmamap/clk.h>) */
		void *resets;                    /* the reset lines the board wired to it (<dmamap/reset.h>) */
		struct device *next, *prev;      /* the machine's device list */
		void *pm;                        /* its runtime PM state (<dmamap/pm.h>), made at its first call */
	} dmamap;
};

/**
 * dmamap_device_init() - attach a caller-owned device to machine @m
 * @dev: the device, zeroed (or released) beforehand, as a kernel driver's
 *       kzalloc'ed device is: a device that is already initialised is refused;
 *       every field is then overwritten
 * @m: the machine, or NULL for the current machine
 * @name: the device's name for messages (copied, truncated to 47 bytes); NULL
 *        gives "dmamap-dev"
 *
 * After init: dma_mask points at a 32-bit mask, coherent_dma_mask is 32-bit,
 * dma_parms has a 64 KiB max segment and a 4 GiB boundary, dma_pfn_offset is 0
 * (bus address = physical address), not coherent, default DMA ops set by the
 * platform (arm_dma_ops once the DMA layer is linked in).
 * Return: 0; -EINVAL for a NULL device, -EBUSY for a device already initialised
 * (nothing changed), -ENOMEM when no machine can be had.
 */
DMAMAP_API DMAMAP_MUST_CHECK int dmamap_device_init(struct device *dev, struct dmamap_machine *m, const char *name);

/**
 * dmamap_device_release() - detach a device from its machine
 * @dev: an initialised device; NULL or an uninitialised device is reported
 *
 * First releases the managed resources the driver took (<dmamap/devres.h>:
 * devm_kzalloc(), dmam_alloc_coherent(), dmam_pool_create(), actions),
 * newest first, as the kernel does when a driver unbinds. Then takes the
 * device from behind its IOMMU mapping or domain (the mapping keeps
 * its own IOVAs and buffers, reported when it is released), unregisters it
 * from dmabounce (safe buffers still mapped are reported as
 * DMAMAP_REPORT_LEAK and freed), frees the dma_pools and the coherent
 * buffers the driver left (reported as DMAMAP_REPORT_LEAK), releases its
 * declared coherent memory (allocations still out are reported), and leaves
 * @dev uninitialised: it may be initialised again. The driver's own pages and
 * streaming mappings on the direct ops are the driver's to release; a pool
 * left is emptied but stays the driver's to dma_pool_destroy().
 */
DMAMAP_API void dmamap_device_release(struct device *dev);

/** dev_name() - the device's name ("(null device)" for NULL). */
DMAMAP_API const char *dev_name(const struct device *dev);

/** dmamap_dev_machine() - the machine @dev is attached to, or NULL. */
DMAMAP_API struct dmamap_machine *dmamap_dev_machine(const struct device *dev);

/** dev_set_drvdata() - attach the driver's private pointer to @dev (not owned by the library). */
static inline void dev_set_drvdata(struct device *dev, void *data)
{
	dev->driver_data = data;
}

/** dev_get_drvdata() - the pointer given to dev_set_drvdata(), or NULL. */
static inline void *dev_get_drvdata(const struct device *dev)
{
	return dev->driver_data;
}

/**
 * dev_get_platdata() - the platform data of @dev: what the board gave the driver, or NULL
 * @dev: the device
 *
 * For a platform device, the copy platform_device_add_data() made (the
 * library's, freed with the device), or what the test pointed
 * dev->platform_data at itself (its own: never copied or freed).
 */
static inline void *dev_get_platdata(const struct device *dev)
{
	return dev->platform_data;
}

/**
 * dmamap_dev_read() - the device reads @len bytes at bus address @addr
 * @dev: the device
 * @addr: bus address (an IOVA when the device is behind an IOMMU)
 * @dst: caller's buffer receiving the bytes
 * @len: bytes, non-zero
 *
 * The address is translated as the hardware would: through the IOMMU domain
 * the device is attached to, else by dma_pfn_offset. A non-coherent device
 * reads RAM; a coherent one (or any device on a coherent machine) sees what
 * the CPU sees.
 * Return: 0; -EFAULT when any byte lies beyond the device's DMA mask, outside
 * RAM, or faults in the IOMMU (reported as DMAMAP_REPORT_DEVICE_FAULT or
 * DMAMAP_REPORT_IOMMU_FAULT; @dst unchanged); -EINVAL for a NULL or
 * uninitialised device, NULL @dst or zero @len.
 */
DMAMAP_API DMAMAP_MUST_CHECK int dmamap_dev_read(struct device *dev, dma_addr_t addr, void *dst, size_t len);

/**
 * dmamap_dev_write() - the device writes @len bytes at bus address @addr
 * @dev: the device
 * @addr: bus address
 * @src: the bytes
 * @len: bytes, non-zero
 *
 * As dmamap_dev_read(); a non-coherent device writes RAM, leaving any copy in
 * the CPU caches stale; a coherent one updates the caches too. On any error
 * nothing is written.
 */
DMAMAP_API DMAMAP_MUST_CHECK int dmamap_dev_write(struct device *dev, dma_addr_t addr, const void *src, size_t len);

/**
 * dmamap_dev_fill() - the device writes @len copies of byte @c at @addr
 *
 * As dmamap_dev_write() with a buffer of @c.
 */
DMAMAP_API DMAMAP_MUST_CHECK int dmamap_dev_fill(struct device *dev, dma_addr_t addr, int c, size_t len);

/*
 * With the DMA-API checker on (<dmamap/debug.h>), every access is also held
 * against what the driver mapped for @dev, and done all the same, as the
 * hardware would -- unless an IOMMU faults it first. Each access raises at
 * most one report, naming the access's file:line and the mapping's:
 *   DMAMAP_REPORT_DEV_UNMAPPED          a byte no live mapping, coherent
 *                                       buffer or pool block of @dev covers
 *                                       (unmapped, freed, never mapped); not
 *                                       checked behind an IOMMU, which faults
 *                                       (but for a translation still in its
 *                                       IOTLB after iommu_unmap_fast(): the
 *                                       access reaches the old page and is
 *                                       reported so, checker on or off)
 *   DMAMAP_REPORT_DEV_CPU_OWNED         a byte of a streaming mapping the CPU
 *                                       owns (synced for the CPU, not yet
 *                                       synced back for the device)
 *   DMAMAP_REPORT_DEV_WRITE_TO_DEVICE   a write into a DMA_TO_DEVICE mapping
 *   DMAMAP_REPORT_DEV_READ_FROM_DEVICE  a read of a DMA_FROM_DEVICE mapping
 * The return value is the hardware's: such an access still returns 0.
 */

/*
 * The forms that carry the caller's file:line, behind the macros below (as
 * the DMA API wrappers do): `(dmamap_dev_read)(...)` reaches the plain
 * function. @file may be NULL.
 */
/** dmamap_dev_read_loc() - dmamap_dev_read() made at @file:@line. */
DMAMAP_API DMAMAP_MUST_CHECK int dmamap_dev_read_loc(struct device *dev, dma_addr_t addr, void *dst, size_t len,
						     const char *file, int line);
/** dmamap_dev_write_loc() - dmamap_dev_write() made at @file:@line. */
DMAMAP_API DMAMAP_MUST_CHECK int dmamap_dev_write_loc(struct device *dev, dma_addr_t addr, const void *src, size_t len,
						      const char *file, int line);
/** dmamap_dev_fill_loc() - dmamap_dev_fill() made at @file:@line. */
DMAMAP_API DMAMAP_MUST_CHECK int dmamap_dev_fill_loc(struct device *dev, dma_addr_t addr, int c, size_t len,
						     const char *file, int line);

#define dmamap_dev_read(d, a, p, l) dmamap_dev_read_loc((d), (a), (p), (l), __FILE__, __LINE__)
#define dmamap_dev_write(d, a, p, l) dmamap_dev_write_loc((d), (a), (p), (l), __FILE__, __LINE__)
#define dmamap_dev_fill(d, a, c, l) dmamap_dev_fill_loc((d), (a), (c), (l), __FILE__, __LINE__)

DMAMAP_END_DECLS

#endif /* DMAMAP_DEVICE_H */
