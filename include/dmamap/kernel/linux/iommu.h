/* SPDX-License-Identifier: MIT */
/*
 * <linux/iommu.h> of Linux 6.x over libdmamap: IOMMU domains, iommu_map()
 * (with or without the gfp argument Linux 6.3 added: both compile, the gfp is
 * not needed here), iommu_unmap(), iommu_iova_to_phys(), attach/detach,
 * fault handlers and iommu_get_domain_for_dev().
 *
 * Making a domain is the simulator's business: iommu_domain_alloc() takes
 * the machine (see <dmamap/iommu.h>), as a test's setup code calls it.
 */
#ifndef _LINUX_IOMMU_H
#define _LINUX_IOMMU_H

#include <dmamap/linux-api.h>
#include <linux/device.h>
#include <linux/gfp.h>
#include <dmamap/iommu.h>

#define IOMMU_CACHE 0
#define IOMMU_NOEXEC 0
#define IOMMU_MMIO 0
#define IOMMU_PRIV 0

#define DMAMAP_IOMMU_MAP(d, i, p, s, prot, ...) (iommu_map)((d), (i), (p), (s), (prot))
#define iommu_map(...) DMAMAP_IOMMU_MAP(__VA_ARGS__, 0)

#endif /* _LINUX_IOMMU_H */
