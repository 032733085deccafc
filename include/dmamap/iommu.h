/* SPDX-License-Identifier: MIT */
/*
 * A simulated IOMMU: translation domains with a multi-level page table
 * (4 KiB granule, 2 MiB and 1 GiB blocks where a mapping is aligned and large
 * enough), the kernel's iommu_* calls, and faults. A device attached to a
 * domain reaches memory only through it: dmamap_dev_read/write translate
 * every access, and a missing entry, or a write through a read-only one,
 * faults: the domain's handler is called, the fault recorded and reported,
 * and the access fails with -EFAULT.
 */
#ifndef DMAMAP_IOMMU_H
#define DMAMAP_IOMMU_H

#include <dmamap/types.h>

DMAMAP_BEGIN_DECLS

#define IOMMU_READ (1 << 0)
#define IOMMU_WRITE (1 << 1)

#define IOMMU_FAULT_READ 0x0
#define IOMMU_FAULT_WRITE 0x1

/* IOVAs a domain can translate: [0, 2^48). */
#define DMAMAP_IOMMU_IOVA_BITS 48

struct iommu_domain;

typedef int (*iommu_fault_handler_t)(struct iommu_domain *domain, struct device *dev, unsigned long iova, int flags,
				     void *token);

/**
 * iommu_domain_alloc() - a new, empty translation domain on machine @m
 * Return: the domain (free with iommu_domain_free()), or NULL when host memory
 * or an injected DMAMAP_FAULT_IOMMU_PGTABLE / DMAMAP_FAULT_HOST_ALLOC fails it.
 */
DMAMAP_API struct iommu_domain *iommu_domain_alloc(struct dmamap_machine *m);

/**
 * iommu_domain_free() - free a domain and its page tables; NULL is ignored
 *
 * Devices still attached are reported (DMAMAP_REPORT_API_MISUSE) and detached.
 * A domain alive when its machine is destroyed is reported then and its
 * tables freed; from then on every call on it is refused with a report
 * (iommu_map() -ENODEV, iommu_unmap() 0...), and this one only frees it.
 * A pointer that is no live domain (freed already, before or after its
 * machine was destroyed) is reported process-wide (DMAMAP_REPORT_BAD_INPUT)
 * and nothing is done: the pointer is compared, never read through. The
 * domain of an arm_iommu mapping (iommu_get_domain_for_dev() of a device
 * behind one) is the mapping's, freed with its last reference: freeing it
 * here is refused (DMAMAP_REPORT_API_MISUSE) and changes nothing. Only the
 * caller of iommu_domain_alloc() owns a domain.
 */
DMAMAP_API void iommu_domain_free(struct iommu_domain *domain);

/**
 * iommu_attach_device() - route @dev's bus accesses through @domain
 *
 * The device stays the caller's; the domain records it until
 * iommu_detach_device(), the domain's free or the device's release. A pointer
 * that is no live domain -- one freed already, before or after its machine was
 * destroyed (the domain of an arm_iommu mapping goes with the mapping's last
 * reference) -- is reported process-wide (DMAMAP_REPORT_BAD_INPUT,
 * "iommu_attach_device(...): no live IOMMU domain") and nothing is done: the
 * pointer is compared, never read through.
 * Return: 0; -EINVAL (NULL or uninitialised device, a device of another
 * machine, a domain freed already), -ENODEV (the domain's machine was
 * destroyed), -EBUSY (already attached to a domain).
 */
DMAMAP_API DMAMAP_MUST_CHECK int iommu_attach_device(struct iommu_domain *domain, struct device *dev);

/**
 * iommu_detach_device() - undo iommu_attach_device()
 *
 * The device reaches memory directly again. A device not attached to @domain
 * is reported (DMAMAP_REPORT_API_MISUSE) and nothing changes; so is one
 * attached through an arm_iommu mapping (arm_iommu_attach_device()), whose
 * DMA ops would go on handing out addresses the device no longer translates:
 * arm_iommu_detach_device() detaches it. A pointer that
 * is no live domain -- one freed already, before or after its machine was
 * destroyed (the domain of an arm_iommu mapping goes with the mapping's last
 * reference) -- is reported process-wide (DMAMAP_REPORT_BAD_INPUT,
 * "iommu_detach_device(...): no live IOMMU domain") and nothing is done: the
 * pointer is compared, never read through.
 */
DMAMAP_API void iommu_detach_device(struct iommu_domain *domain, struct device *dev);

/**
 * iommu_map() - map [@iova, @iova + @size) to [@paddr, @paddr + @size)
 * @domain: the domain
 * @iova: page aligned, below 2^DMAMAP_IOMMU_IOVA_BITS
 * @paddr: page aligned; the range must be RAM of the domain's machine
 * @size: a non-zero page multiple
 * @prot: IOMMU_READ and/or IOMMU_WRITE (at least one)
 *
 * Blocks are used where iova and paddr are aligned to them and the range
 * covers them (a block takes the place of an empty table there). The table
 * pages the map needs are all allocated before anything changes; they are the
 * domain's, freed with it. A pointer that is no live domain -- one freed
 * already, before or after its machine was destroyed (the domain of an
 * arm_iommu mapping goes with the mapping's last reference) -- is reported
 * process-wide (DMAMAP_REPORT_BAD_INPUT, "iommu_map(...): no live IOMMU
 * domain") and nothing is done: the pointer is compared, never read through.
 * Return: 0; -EINVAL (bad alignment, range or prot, or a domain freed
 * already), -EEXIST (some page of the range is already mapped), -ENOMEM (a
 * table page could not be allocated), -ENODEV (the domain's machine was
 * destroyed). On error nothing is mapped and the tables are as they were.
 */
DMAMAP_API DMAMAP_MUST_CHECK int iommu_map(struct iommu_domain *domain, unsigned long iova, phys_addr_t paddr,
					    size_t size, int prot);

/**
 * iommu_unmap() - unmap [@iova, @iova + @size)
 *
 * Unmapping stops at the first page that is not mapped (a hole unmaps
 * nothing). A block only partly covered is split, so the rest stays mapped.
 * Page-table pages stay when the mappings under them go, as the kernel's
 * io-pgtable keeps them, so that mapping there again costs no allocation; a
 * table whose whole span the unmap covers is freed with it. A pointer that is
 * no live domain -- one freed already, before or after its machine was
 * destroyed (the domain of an arm_iommu mapping goes with the mapping's last
 * reference) -- is reported process-wide (DMAMAP_REPORT_BAD_INPUT,
 * "iommu_unmap(...): no live IOMMU domain") and nothing is done: the pointer
 * is compared, never read through.
 * Return: bytes unmapped (0 for a hole at @iova, misaligned arguments, when
 * splitting a block needs a table page that cannot be had, or for a domain
 * freed already or whose machine was destroyed).
 */
DMAMAP_API size_t iommu_unmap(struct iommu_domain *domain, unsigned long iova, size_t size);

/**
 * iommu_iova_to_phys() - the physical address @iova translates to in @domain
 *
 * Reads the domain's tables and changes nothing. A pointer that is no live
 * domain -- one freed already, before or after its machine was destroyed (the
 * domain of an arm_iommu mapping goes with the mapping's last reference) -- is
 * reported process-wide (DMAMAP_REPORT_BAD_INPUT, "iommu_iova_to_phys(...): no
 * live IOMMU domain") and nothing is done: the pointer is compared, never read
 * through.
 * Return: the physical address, or 0 when @iova is unmapped, or for a NULL
 * domain, a domain freed already or one whose machine was destroyed (the
 * last three reported).
 */
DMAMAP_API phys_addr_t iommu_iova_to_phys(struct iommu_domain *domain, unsigned long iova);

/**
 * iommu_set_fault_handler() - call @handler on each fault in @domain
 * @handler: called with the faulting device, iova and IOMMU_FAULT_READ/WRITE;
 *           NULL removes it. Its return value is ignored: the access fails.
 * @token: passed to @handler (the caller's; never dereferenced)
 *
 * A NULL domain, or one whose machine was destroyed, is reported and nothing
 * changes. A pointer that is no live domain -- one freed already, before or
 * after its machine was destroyed (the domain of an arm_iommu mapping goes
 * with the mapping's last reference) -- is reported process-wide
 * (DMAMAP_REPORT_BAD_INPUT, "iommu_set_fault_handler(...): no live IOMMU
 * domain") and nothing is done: the pointer is compared, never read through.
 */
DMAMAP_API void iommu_set_fault_handler(struct iommu_domain *domain, iommu_fault_handler_t handler, void *token);

/**
 * iommu_get_domain_for_dev() - the domain @dev's bus accesses go through
 * @dev: the device
 *
 * Return: the domain the device is attached to (directly or through an
 * arm_iommu mapping), or NULL when it reaches memory directly or is NULL or
 * not initialised.
 */
DMAMAP_API struct iommu_domain *iommu_get_domain_for_dev(struct device *dev);

struct dmamap_iommu_stats {
	unsigned long table_pages;      /* page-table pages in the tables (the root included), empty ones kept after unmap too */
	unsigned long mapped_bytes;     /* bytes currently mapped */
	unsigned long block_entries;    /* 2 MiB / 1 GiB block entries in use */
	unsigned long faults;           /* faults so far */
	unsigned long last_fault_iova;
	int last_fault_flags;           /* IOMMU_FAULT_READ/WRITE of the last fault */
	unsigned long attached_devices;
};

/**
 * dmamap_iommu_stats() - read @domain's counters into @st (the caller's)
 *
 * A NULL @st is ignored and a NULL @domain zeroes @st; a domain whose machine
 * was destroyed still has its last counts. A pointer that is no live domain --
 * one freed already, before or after its machine was destroyed (the domain of
 * an arm_iommu mapping goes with the mapping's last reference) -- is reported
 * process-wide (DMAMAP_REPORT_BAD_INPUT, "dmamap_iommu_stats(...): no live
 * IOMMU domain") and nothing is done: the pointer is compared, never read
 * through. @st is zeroed then.
 */
DMAMAP_API void dmamap_iommu_stats(struct iommu_domain *domain, struct dmamap_iommu_stats *st);

DMAMAP_END_DECLS

#endif /* DMAMAP_IOMMU_H */
