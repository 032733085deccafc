/* SPDX-License-Identifier: MIT */
/*
 * arm_dma_ops: the ARM direct-mapping ops set.
 *
 * Streaming mappings are the buffer's physical address seen through the
 * device's dma_pfn_offset, with cache maintenance for a non-coherent device:
 * cpu->dev (map, sync_for_device) cleans, or invalidates for FROM_DEVICE,
 * inner then outer; dev->cpu (unmap, sync_for_cpu) invalidates outer then
 * inner unless TO_DEVICE. Coherent allocations are zeroed pages remapped
 * uncached (or write-combining) in the consistent region.
 */
#include "internal.h"

static const struct dmamap_cache_ops *hooks(struct dmamap_machine *m)
{
	return dmamap_cache_get_ops(m);
}

void dmamap_arm_cpu_to_dev(struct dmamap_machine *m, phys_addr_t phys, size_t size, int dir)
{
	const struct dmamap_cache_ops *ops = hooks(m);

	ops->dmac_map_area(m, dm_phys_to_virt(m, phys), size, dir);
	if (dir == DMA_FROM_DEVICE)
		ops->outer_inv_range(m, phys, phys + size);
	else
		ops->outer_clean_range(m, phys, phys + size);
}

void dmamap_arm_dev_to_cpu(struct dmamap_machine *m, phys_addr_t phys, size_t size, int dir)
{
	const struct dmamap_cache_ops *ops = hooks(m);

	if (dir != DMA_TO_DEVICE)
		ops->outer_inv_range(m, phys, phys + size);
	ops->dmac_unmap_area(m, dm_phys_to_virt(m, phys), size, dir);
}

void dmamap_arm_clear_buffer(struct dmamap_machine *m, phys_addr_t phys, size_t size)
{
	const struct dmamap_cache_ops *ops = hooks(m);
	u8 *va = dm_phys_to_virt(m, phys);

	if (dmamap_cache_clear_flush(m, phys, size))
		return;
	dm_cpu_store(m, va, NULL, 0, size);
	ops->dmac_flush_range(m, va, va + size);
	ops->outer_flush_range(m, phys, phys + size);
}

static bool maintain(struct device *dev, struct dma_attrs *attrs)
{
	return !dm_dev_coherent(dev) && !dma_get_attr(DMA_ATTR_SKIP_CPU_SYNC, attrs);
}

static dma_addr_t arm_dma_map_page(struct device *dev, struct page *page, unsigned long offset, size_t size,
				   enum dma_data_direction dir, struct dma_attrs *attrs)
{
	struct dmamap_machine *m = dm_dev_machine(dev);
	phys_addr_t phys = page_to_phys(page) + offset;
	dma_addr_t addr = dm_phys_to_dma(dev, phys);

	if (phys < ((phys_addr_t)dev->dma_pfn_offset << PAGE_SHIFT) || addr + size - 1 < addr ||
	    addr + size - 1 > dma_get_mask(dev)) {
		dmamap_report(m, DMAMAP_REPORT_API_MISUSE, dev->dmamap.name, NULL, 0,
			      "dma_map: buffer at phys %#llx+%#zx is beyond the device's DMA mask %#llx (it needs dmabounce)",
			      (unsigned long long)phys, size, (unsigned long long)dma_get_mask(dev));
		return DMA_MAPPING_ERROR;
	}
	if (maintain(dev, attrs))
		dmamap_arm_cpu_to_dev(m, phys, size, (int)dir);
	return addr;
}

/* The physical range behind a streaming handle, or false after a report. */
static bool handle_phys(struct device *dev, dma_addr_t handle, size_t size, phys_addr_t *phys, const char *what)
{
	struct dmamap_machine *m = dm_dev_machine(dev);

	*phys = dm_dma_to_phys(dev, handle);
	if (*phys < handle || !dm_phys_in_ram(m, *phys, size)) {
		dmamap_report(m, DMAMAP_REPORT_BAD_ADDRESS, dev->dmamap.name, NULL, 0,
			      "%s: bus address %#llx+%#zx is not RAM of this machine", what,
			      (unsigned long long)handle, size);
		return false;
	}
	return true;
}

static void arm_dma_unmap_page(struct device *dev, dma_addr_t handle, size_t size, enum dma_data_direction dir,
			       struct dma_attrs *attrs)
{
	phys_addr_t phys;

	if (handle_phys(dev, handle, size, &phys, "dma_unmap") && maintain(dev, attrs))
		dmamap_arm_dev_to_cpu(dm_dev_machine(dev), phys, size, (int)dir);
}

static void arm_dma_sync_single_for_cpu(struct device *dev, dma_addr_t handle, size_t size,
					enum dma_data_direction dir)
{
	phys_addr_t phys;

	if (handle_phys(dev, handle, size, &phys, "dma_sync_single_for_cpu") && maintain(dev, NULL))
		dmamap_arm_dev_to_cpu(dm_dev_machine(dev), phys, size, (int)dir);
}

static void arm_dma_sync_single_for_device(struct device *dev, dma_addr_t handle, size_t size,
					   enum dma_data_direction dir)
{
	phys_addr_t phys;

	if (handle_phys(dev, handle, size, &phys, "dma_sync_single_for_device") && maintain(dev, NULL))
		dmamap_arm_cpu_to_dev(dm_dev_machine(dev), phys, size, (int)dir);
}

bool dmamap_mask_covers_ram(struct device *dev, u64 mask)
{
	return mask >= dm_phys_to_dma(dev, dm_ram_end(dm_dev_machine(dev)) - 1);
}

static int arm_dma_supported(struct device *dev, u64 mask)
{
	return dmamap_mask_covers_zone(dev, mask);
}

static int arm_dma_set_mask(struct device *dev, u64 mask)
{
	if (!dev->dma_mask || !arm_dma_supported(dev, mask))
		return -EIO;
	*dev->dma_mask = mask;
	return 0;
}

/* ---------------------------------------------------------- allocations */

static pgprot_t kernel_prot(struct dma_attrs *attrs)
{
	return dma_get_attr(DMA_ATTR_WRITE_COMBINE, attrs) ? pgprot_writecombine(PAGE_KERNEL)
							    : pgprot_dmacoherent(PAGE_KERNEL);
}

/* Pages for a buffer: the contiguous area for large blocking requests, else the page allocator. */
static struct page *alloc_buffer_pages(struct dmamap_machine *m, size_t size, gfp_t gfp, enum dmamap_coherent_source *src)
{
	unsigned long count = size >> PAGE_SHIFT;
	unsigned order = (unsigned)get_order(size);
	struct page *page = NULL;

	if (gfpflags_allow_blocking(gfp))
		page = dmamap_cma_alloc(m, count, order);
	if (page) {
		*src = DM_SRC_CONTIGUOUS;
		return page;
	}
	if (order >= MAX_ORDER)
		return NULL;
	page = dmamap_alloc_pages(m, gfp & ~__GFP_ZERO, order);
	if (!page)
		return NULL;
	/* Keep what is needed, page by page, and give back the rest at once. */
	split_page(page, order);
	for (unsigned long i = count; i < (1UL << order); i++)
		dmamap_free_pages(page + i, 0);
	*src = DM_SRC_PAGES;
	return page;
}

static void free_buffer_pages(struct dmamap_machine *m, struct page *page, size_t size)
{
	unsigned long count = size >> PAGE_SHIFT;

	if (dmamap_cma_release(m, page, count))
		return;
	for (unsigned long i = 0; i < count; i++)
		dmamap_free_pages(page + i, 0);
}

static void *arm_dma_alloc(struct device *dev, size_t size, dma_addr_t *handle, gfp_t gfp, struct dma_attrs *attrs)
{
	struct dmamap_machine *m = dm_dev_machine(dev);
	u64 mask = dev->coherent_dma_mask;
	bool coherent = dm_dev_coherent(dev), cached = coherent || dma_get_attr(DMA_ATTR_NON_CONSISTENT, attrs);
	enum dmamap_coherent_source src = DM_SRC_PAGES;
	struct dmamap_vmregion *r;
	struct page *page;
	void *ret;

	size = PAGE_ALIGN(size);
	if (dmamap_declared_alloc(dev, size, handle, &ret)) {
		dmamap_coherent_count(m, DM_SRC_DECLARED);
		return ret;
	}
	if (!dmamap_mask_covers_ram(dev, mask)) {
		if (!dmamap_mask_covers_zone(dev, mask)) {
			dmamap_report(m, DMAMAP_REPORT_API_MISUSE, dev->dmamap.name, NULL, 0,
				      "dma_alloc: coherent DMA mask %#llx does not cover the DMA zone",
				      (unsigned long long)mask);
			goto fail;
		}
		gfp |= __GFP_DMA;
	}

	if (!cached && !gfpflags_allow_blocking(gfp)) {
		/* atomic context: no remapping, the pool is already mapped uncached */
		ret = dmamap_atomic_pool_alloc(m, size, &page);
		if (!ret)
			goto fail;
		*handle = dm_phys_to_dma(dev, page_to_phys(page));
		dmamap_coherent_count(m, DM_SRC_ATOMIC_POOL);
		return ret;
	}

	page = alloc_buffer_pages(m, size, gfp, &src);
	if (!page)
		goto fail;
	if (coherent)
		dm_cpu_store(m, page_address(page), NULL, 0, size);
	else
		dmamap_arm_clear_buffer(m, page_to_phys(page), size);

	if (cached) {
		ret = page_address(page);
	} else if (dma_get_attr(DMA_ATTR_NO_KERNEL_MAPPING, attrs)) {
		ret = page; /* a cookie for free/mmap: there is no CPU mapping */
	} else {
		r = dmamap_vmregion_alloc(m, size, __builtin_return_address(0));
		if (!r)
			goto fail_pages;
		if (dmamap_vmregion_map(m, r, 0, NULL, page_to_pfn(page), size >> PAGE_SHIFT, kernel_prot(attrs))) {
			dmamap_vmregion_free(m, r);
			goto fail_pages;
		}
		r->priv = page;
		ret = (void *)r->start;
	}
	*handle = dm_phys_to_dma(dev, page_to_phys(page));
	dmamap_coherent_count(m, src);
	return ret;

fail_pages:
	free_buffer_pages(m, page, size);
fail:
	dmamap_coherent_count(m, DM_SRC_FAILED);
	return NULL;
}

static void arm_dma_free(struct device *dev, size_t size, void *cpu_addr, dma_addr_t handle, struct dma_attrs *attrs)
{
	struct dmamap_machine *m = dm_dev_machine(dev);
	bool cached = dm_dev_coherent(dev) || dma_get_attr(DMA_ATTR_NON_CONSISTENT, attrs);
	struct dmamap_vmregion *r = NULL;
	struct page *page;
	phys_addr_t phys;

	size = PAGE_ALIGN(size);
	if (dmamap_declared_release(dev, cpu_addr, size))
		return;
	phys = dm_dma_to_phys(dev, handle);
	page = dmamap_phys_to_page(m, phys);
	if (!page || (phys & ~PAGE_MASK) || !dm_phys_in_ram(m, phys, size)) {
		dmamap_report(m, DMAMAP_REPORT_BAD_ADDRESS, dev->dmamap.name, NULL, 0,
			      "dma_free: handle %#llx+%#zx is not a buffer of this machine", (unsigned long long)handle,
			      size);
		return;
	}
	if (dmamap_atomic_pool_contains(m, cpu_addr)) {
		if (!dmamap_atomic_pool_free(m, cpu_addr, size))
			dmamap_report(m, DMAMAP_REPORT_API_MISUSE, dev->dmamap.name, NULL, 0,
				      "dma_free: %p+%#zx is not an atomic-pool allocation", cpu_addr, size);
		return;
	}
	if (cached) {
		if (cpu_addr != page_address(page))
			goto mismatch;
	} else if (dma_get_attr(DMA_ATTR_NO_KERNEL_MAPPING, attrs)) {
		if (cpu_addr != (void *)page)
			goto mismatch;
	} else {
		r = dmamap_vmregion_find(m, cpu_addr);
		if (!r || (void *)r->start != cpu_addr || r->priv != page)
			goto mismatch;
		if (r->end - r->start != size) {
			dmamap_report(m, DMAMAP_REPORT_API_MISUSE, dev->dmamap.name, NULL, 0,
				      "dma_free: size %#zx differs from the allocation's %#lx", size,
				      (unsigned long)(r->end - r->start));
			return;
		}
		dmamap_vmregion_free(m, r);
	}
	free_buffer_pages(m, page, size);
	return;

mismatch:
	dmamap_report(m, DMAMAP_REPORT_API_MISUSE, dev->dmamap.name, NULL, 0,
		      "dma_free: cpu_addr %p and handle %#llx are not one allocation (or the attrs differ)", cpu_addr,
		      (unsigned long long)handle);
}

static int arm_dma_mmap(struct device *dev, struct vm_area_struct *vma, void *cpu_addr, dma_addr_t dma_addr,
			size_t size, struct dma_attrs *attrs)
{
	struct dmamap_machine *m = dm_dev_machine(dev);
	unsigned long nr_vma = (vma->vm_end - vma->vm_start) >> PAGE_SHIFT;
	unsigned long nr_pages = PAGE_ALIGN(size) >> PAGE_SHIFT;
	unsigned long off = vma->vm_pgoff;
	phys_addr_t phys;
	pgprot_t prot;
	int ret;

	if (dmamap_declared_mmap(dev, vma, cpu_addr, size, &ret))
		return ret;
	phys = dm_dma_to_phys(dev, dma_addr);
	if ((phys & ~PAGE_MASK) || !dm_phys_in_ram(m, phys, nr_pages << PAGE_SHIFT))
		return -ENXIO;
	if (off >= nr_pages || nr_vma > nr_pages - off)
		return -ENXIO;
	if (dm_dev_coherent(dev) || dma_get_attr(DMA_ATTR_NON_CONSISTENT, attrs))
		prot = vma->vm_page_prot;
	else
		prot = dma_get_attr(DMA_ATTR_WRITE_COMBINE, attrs) ? pgprot_writecombine(vma->vm_page_prot)
								    : pgprot_dmacoherent(vma->vm_page_prot);
	vma->vm_page_prot = prot;
	return remap_pfn_range(vma, vma->vm_start, PFN_DOWN(phys) + off, nr_vma << PAGE_SHIFT, prot);
}

static int arm_dma_get_sgtable(struct device *dev, struct sg_table *sgt, void *cpu_addr, dma_addr_t handle,
			       size_t size, struct dma_attrs *attrs)
{
	struct dmamap_machine *m = dm_dev_machine(dev);
	phys_addr_t phys = dm_dma_to_phys(dev, handle);
	struct page *page = dmamap_phys_to_page(m, phys);
	int ret;

	(void)cpu_addr;
	(void)attrs;
	if (!page || !dm_phys_in_ram(m, phys, PAGE_ALIGN(size)))
		return -ENXIO;
	ret = sg_alloc_table(sgt, 1, GFP_KERNEL);
	if (ret)
		return ret;
	sg_set_page(sgt->sgl, page, (unsigned int)PAGE_ALIGN(size), 0);
	return 0;
}

DMAMAP_API const struct dma_map_ops arm_dma_ops = {
	.alloc = arm_dma_alloc,
	.free = arm_dma_free,
	.mmap = arm_dma_mmap,
	.get_sgtable = arm_dma_get_sgtable,
	.map_page = arm_dma_map_page,
	.unmap_page = arm_dma_unmap_page,
	.map_sg = dmamap_generic_map_sg,
	.unmap_sg = dmamap_generic_unmap_sg,
	.sync_single_for_cpu = arm_dma_sync_single_for_cpu,
	.sync_single_for_device = arm_dma_sync_single_for_device,
	.sync_sg_for_cpu = dmamap_generic_sync_sg_for_cpu,
	.sync_sg_for_device = dmamap_generic_sync_sg_for_device,
	.dma_supported = arm_dma_supported,
	.set_dma_mask = arm_dma_set_mask,
};
