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

/*
 * The IOTLB: each domain has a translation cache in front of its tables,
 * modelled exactly, never evicting, so that a missing invalidate is always
 * seen (the strict, deterministic choice: real caches may hide one by
 * evicting). iommu_map() and iommu_unmap() keep it in step at once, as the
 * kernel's do. iommu_unmap_fast() leaves the translations it removes in the
 * IOTLB until iommu_iotlb_sync() of its gather or iommu_flush_iotlb_all():
 * meanwhile a device access there still reaches the old physical pages, as
 * on hardware, and is reported (DMAMAP_REPORT_DEV_UNMAPPED, naming the
 * unmap's file:line): on a real system that is a device writing memory the
 * driver may have freed. iommu_map() over such an IOVA does not invalidate it
 * either (the old translation stays in the IOTLB). Translations a domain
 * still holds stale when it is freed, or its machine destroyed, are reported
 * (DMAMAP_REPORT_LEAK, once per unmap line).
 */

/*
 * struct iommu_iotlb_gather - the IOVA range an unmap left to invalidate
 * @start: first IOVA gathered (ULONG_MAX when none)
 * @end: last IOVA gathered, inclusive (0 when none)
 * @pgsize: the granule unmapped (PAGE_SIZE here)
 * @queued: the kernel's flush-queue flag; never set here
 *
 * The caller's, on its stack as in the kernel: iommu_iotlb_gather_init() it,
 * pass it to iommu_unmap_fast() calls, then to iommu_iotlb_sync(). The
 * kernel's freelist of page-table pages (an IOMMU driver's) is not here.
 */
struct iommu_iotlb_gather {
	unsigned long start;
	unsigned long end;
	size_t pgsize;
	bool queued;
};

/**
 * iommu_iotlb_gather_init() - empty @gather before its first iommu_unmap_fast()
 * @gather: the caller's
 */
static inline void iommu_iotlb_gather_init(struct iommu_iotlb_gather *gather)
{
	gather->start = ~0UL;
	gather->end = 0;
	gather->pgsize = 0;
	gather->queued = false;
}

/**
 * iommu_unmap_fast() - unmap as iommu_unmap(), leaving the IOTLB to @gather
 * @domain: the domain
 * @iova: page aligned
 * @size: a page multiple
 * @gather: an iommu_iotlb_gather_init()ed gather; the range unmapped is added
 *          to it (its start lowered, its end raised)
 *
 * The tables change as iommu_unmap() changes them, but the translations
 * removed stay in the domain's IOTLB until iommu_iotlb_sync(@domain, @gather)
 * (or iommu_flush_iotlb_all()): a device access there meanwhile reaches the
 * old pages and is reported, naming this call's file:line (the macro below
 * passes it; `(iommu_unmap_fast)(...)` names none). A NULL @gather is
 * reported (DMAMAP_REPORT_BAD_INPUT) and nothing is unmapped; a pointer that
 * is no live domain is reported process-wide as for iommu_unmap().
 * Return: bytes unmapped, as iommu_unmap().
 */
DMAMAP_API size_t iommu_unmap_fast(struct iommu_domain *domain, unsigned long iova, size_t size,
				   struct iommu_iotlb_gather *gather);

/** dmamap_iommu_unmap_fast_loc() - iommu_unmap_fast() made at @file:@line (@file may be NULL). */
DMAMAP_API size_t dmamap_iommu_unmap_fast_loc(struct iommu_domain *domain, unsigned long iova, size_t size,
					      struct iommu_iotlb_gather *gather, const char *file, int line);

#define iommu_unmap_fast(d, i, s, g) dmamap_iommu_unmap_fast_loc((d), (i), (s), (g), __FILE__, __LINE__)

/**
 * iommu_iotlb_sync() - invalidate what @gather gathered in @domain's IOTLB
 * @domain: the domain the unmaps were made in
 * @gather: the gather given to them; emptied (iommu_iotlb_gather_init())
 *
 * Every translation the IOTLB holds for [@gather->start, @gather->end] goes,
 * the stale ones iommu_unmap_fast() left and any not yet synced after a
 * dma_iova_link(): a device access there then walks the tables. An empty
 * gather invalidates nothing. A NULL @domain or @gather is reported
 * (DMAMAP_REPORT_BAD_INPUT) and nothing changes; a pointer that is no live
 * domain is reported process-wide, and a domain whose machine was destroyed
 * is refused with a report, as for iommu_unmap().
 */
DMAMAP_API void iommu_iotlb_sync(struct iommu_domain *domain, struct iommu_iotlb_gather *gather);

/**
 * iommu_flush_iotlb_all() - invalidate every translation @domain's IOTLB holds
 * @domain: the domain
 *
 * As iommu_iotlb_sync() over the whole IOVA space; no gather is changed. A
 * NULL domain is reported (DMAMAP_REPORT_BAD_INPUT); a pointer that is no
 * live domain is reported process-wide, and a domain whose machine was
 * destroyed is refused with a report, as for iommu_unmap().
 */
DMAMAP_API void iommu_flush_iotlb_all(struct iommu_domain *domain);

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
