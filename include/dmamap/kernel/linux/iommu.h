/* SPDX-License-Identifier: MIT */
/*
 * <linux/iommu.h> of Linux 6.x over libdmamap: IOMMU domains, iommu_map()
 * and iommu_map_sg() (with or without the gfp argument Linux 6.3 added: both
 * compile, the gfp is not needed here), iommu_unmap(), iommu_iova_to_phys(),
 * attach/detach, fault handlers and iommu_get_domain_for_dev(); and the
 * IOTLB's calls: struct iommu_iotlb_gather, iommu_iotlb_gather_init(),
 * iommu_unmap_fast(), iommu_iotlb_sync() and iommu_flush_iotlb_all() (see
 * <dmamap/iommu.h> for what the simulated IOTLB keeps and reports).
 *
 * Making a domain is the simulator's business: iommu_domain_alloc() takes
 * the machine (see <dmamap/iommu.h>), as a test's setup code calls it.
 */
#ifndef _LINUX_IOMMU_H
#define _LINUX_IOMMU_H

#include <sys/types.h>

#include <dmamap/linux-api.h>
#include <linux/device.h>
#include <linux/gfp.h>
#include <linux/scatterlist.h>
#include <dmamap/iommu.h>

#define IOMMU_CACHE 0
#define IOMMU_NOEXEC 0
#define IOMMU_MMIO 0
#define IOMMU_PRIV 0

#define DMAMAP_IOMMU_MAP(d, i, p, s, prot, ...) (iommu_map)((d), (i), (p), (s), (prot))
#define iommu_map(...) DMAMAP_IOMMU_MAP(__VA_ARGS__, 0)

/**
 * iommu_map_sg() - map the @nents entries of @sg back to back from @iova
 * @domain: the domain
 * @iova: page aligned
 * @sg: the list; entries whose physical bytes follow each other are mapped
 *      as one run, as the kernel merges them, and each run's physical
 *      address and length must be page aligned, as iommu_map() requires
 * @nents: entries to map
 * @prot: IOMMU_READ and/or IOMMU_WRITE
 *
 * Each run is mapped with iommu_map(), so synced as it is: the device reaches
 * the pages at once. On the first that fails, what the call mapped is
 * unmapped again and that error returned.
 * Return: the bytes mapped, or the negative error of the iommu_map() that
 * failed (nothing mapped then).
 */
static inline ssize_t iommu_map_sg(struct iommu_domain *domain, unsigned long iova, struct scatterlist *sg,
				   unsigned int nents, int prot)
{
	struct scatterlist *s;
	phys_addr_t start = 0;
	size_t len = 0, mapped = 0;
	unsigned int i;
	int ret;

	for_each_sg(sg, s, nents, i) {
		phys_addr_t p = sg_phys(s);

		if (len && p == start + len) {
			len += s->length;
			continue;
		}
		if (len) {
			ret = (iommu_map)(domain, iova + mapped, start, len, prot);
			if (ret)
				goto undo;
			mapped += len;
		}
		start = p;
		len = s->length;
	}
	if (len) {
		ret = (iommu_map)(domain, iova + mapped, start, len, prot);
		if (ret)
			goto undo;
		mapped += len;
	}
	return (ssize_t)mapped;

undo:
	if (mapped)
		iommu_unmap(domain, iova, mapped);
	return ret;
}

#define DMAMAP_IOMMU_MAP_SG(d, i, sg, n, prot, ...) (iommu_map_sg)((d), (i), (sg), (n), (prot))
#define iommu_map_sg(...) DMAMAP_IOMMU_MAP_SG(__VA_ARGS__, 0)

#endif /* _LINUX_IOMMU_H */
