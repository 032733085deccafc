/* SPDX-License-Identifier: MIT */
/*
 * The ARM IOMMU mapper: a device behind its own IOMMU gets an ops set that
 * allocates bus addresses (IOVAs) from a mapping's address space and maps
 * scattered pages there, so they look contiguous to the device, without the
 * driver knowing.
 */
#ifndef DMAMAP_DMA_IOMMU_H
#define DMAMAP_DMA_IOMMU_H

#include <dmamap/types.h>

DMAMAP_BEGIN_DECLS

struct iommu_domain;
struct dmamap_iova;

struct dma_iommu_mapping {
	struct iommu_domain *domain;   /* the translation domain */
	struct dmamap_iova *iova;      /* the bus-address allocator (<dmamap/iova.h>) */
	dma_addr_t base;               /* first bus address */
	size_t size;                   /* bytes of bus address space */
	unsigned int order;            /* allocation granule: PAGE_SIZE << order */
	/* library-private */
	struct dmamap_machine *machine;
	int kref;                      /* references (use create/attach/detach/release) */
};

/**
 * arm_iommu_create_mapping() - a bus address space with its own IOMMU domain
 * @m: the machine
 * @base: first bus address, granule aligned (0 is valid)
 * @size: bytes, a non-zero multiple of the granule; base + size must not overflow
 * @order: granule order (0..20): IOVAs are allocated in units of PAGE_SIZE << order
 *
 * The caller holds one reference; arm_iommu_release_mapping() drops it.
 * Return: the mapping, or ERR_PTR(-EINVAL) for bad arguments, ERR_PTR(-ENOMEM).
 */
DMAMAP_API struct dma_iommu_mapping *arm_iommu_create_mapping(struct dmamap_machine *m, dma_addr_t base, size_t size,
							       int order);

/**
 * arm_iommu_release_mapping() - drop a reference; the last one frees the
 * mapping, its domain and its allocator. NULL and ERR_PTR values are ignored.
 *
 * Each attached device holds a reference of its own, dropped only by its
 * detach (kref semantics): a release that would leave fewer references than
 * attached devices -- the mapping released once too often while still in
 * use -- is refused and reported (DMAMAP_REPORT_API_MISUSE), nothing changed.
 * A mapping still referenced when its machine is destroyed is reported then
 * and its memory given back; the struct stays until its last reference is
 * released (each such call reported: the machine is gone). A pointer that
 * is no live mapping -- one whose last reference was released already,
 * before or after its machine was destroyed, unless a new mapping took its
 * place -- is reported process-wide (DMAMAP_REPORT_BAD_INPUT) and nothing is
 * done: the pointer is compared, never read through.
 */
DMAMAP_API void arm_iommu_release_mapping(struct dma_iommu_mapping *mapping);

/**
 * arm_iommu_attach_device() - put @dev behind @mapping
 *
 * Attaches the device to the mapping's domain, takes a reference on the
 * mapping and installs the IOMMU ops set.
 * Return: 0; -EINVAL (bad device or mapping, a mapping of another machine,
 * or a pointer that is no live mapping: reported process-wide, nothing
 * read through it), -ENODEV (the mapping's machine was destroyed), -EBUSY (already attached, or registered with dmabounce), or the
 * domain's error.
 */
DMAMAP_API DMAMAP_MUST_CHECK int arm_iommu_attach_device(struct device *dev, struct dma_iommu_mapping *mapping);

/**
 * arm_iommu_detach_device() - take @dev from behind its mapping
 *
 * Restores the default ops, detaches from the domain and drops the reference.
 * A device that is not attached is reported. With the checker on, each
 * mapping, list, coherent buffer and pool block the driver still has live
 * through the IOMMU is reported as a leak (DMAMAP_REPORT_LEAK, naming where it
 * was made) and forgotten, as at device release: the default ops cannot undo
 * it, so a later unmap or free of it is refused (not mapped), and its IOVA
 * space and page tables stay taken until the mapping is released.
 */
DMAMAP_API void arm_iommu_detach_device(struct device *dev);

DMAMAP_END_DECLS

#endif /* DMAMAP_DMA_IOMMU_H */
