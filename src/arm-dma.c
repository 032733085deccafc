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
#include <limits.h>

#include "internal.h"

static const struct dmamap_cache_ops *hooks(struct dmamap_machine *m)
{
	return dm_cache_ops(m);
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
	page = dm_alloc_pages(m, gfp & ~__GFP_ZERO, order);
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

/* Give back a buffer of pages whose record is gone: its kernel mapping (if remapped), then its pages. */
static void release_buffer(struct device *dev, struct page *page, unsigned long count, void *cpu_addr)
{
	struct dmamap_machine *m = dm_dev_machine(dev);
	struct dmamap_vmregion *r = dmamap_vmregion_find(m, cpu_addr);

	if (r)
		dmamap_vmregion_free(m, r);
	free_buffer_pages(m, page, count << PAGE_SHIFT);
}

void dmamap_arm_release_buffers(struct device *dev)
{
	dmamap_coherent_buf_release(dev, release_buffer);
}

/* @size rounded up to pages, refused (reported) when it cannot be: 0 then. */
static size_t coherent_size(struct device *dev, size_t size, const char *what)
{
	size_t aligned = dm_page_align_size(size);

	if (!aligned)
		dmamap_report(dm_dev_machine(dev), DMAMAP_REPORT_BAD_INPUT, dev->dmamap.name, NULL, 0,
			      "%s: size %#zx cannot be rounded up to pages", what, size);
	return aligned;
}

static void *arm_dma_alloc(struct device *dev, size_t size, dma_addr_t *handle, gfp_t gfp, struct dma_attrs *attrs)
{
	struct dmamap_machine *m = dm_dev_machine(dev);
	u64 mask = dev->coherent_dma_mask;
	bool coherent = dm_dev_coherent(dev), cached = coherent || dma_get_attr(DMA_ATTR_NON_CONSISTENT, attrs);
	enum dmamap_coherent_source src = DM_SRC_PAGES;
	struct dmamap_vmregion *r = NULL;
	struct page *page;
	void *ret;

	size = coherent_size(dev, size, "dma_alloc");
	if (!size)
		return NULL;
	if (gfp & ~DM_GFP_KNOWN) {
		dmamap_report(m, DMAMAP_REPORT_BAD_INPUT, dev->dmamap.name, NULL, 0, "dma_alloc: unknown gfp bits %#x",
			      gfp & ~DM_GFP_KNOWN);
		return NULL;
	}
	if (size > m->cfg.ram_size)
		goto fail; /* no source can serve it */
	if (!dm_attr_no_declared(attrs) && dmamap_declared_alloc(dev, size, handle, &ret)) {
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
		ret = dmamap_atomic_pool_alloc(dev, size, &page);
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
		dmamap_clear_buffer(m, page_to_phys(page), size);

	if (cached) {
		ret = page_address(page);
	} else if (dma_get_attr(DMA_ATTR_NO_KERNEL_MAPPING, attrs)) {
		ret = page; /* a cookie for free/mmap: there is no CPU mapping */
	} else {
		r = dmamap_vmregion_alloc(m, size, __builtin_return_address(0));
		if (!r)
			goto fail_pages;
		if (dmamap_vmregion_map(m, r, 0, NULL, page_to_pfn(page), size >> PAGE_SHIFT, kernel_prot(attrs)))
			goto fail_region;
		r->priv = page;
		ret = (void *)r->start;
	}
	if (dmamap_coherent_buf_add(dev, page, size >> PAGE_SHIFT, ret))
		goto fail_region;
	*handle = dm_phys_to_dma(dev, page_to_phys(page));
	dmamap_coherent_count(m, src);
	return ret;

fail_region:
	if (r)
		dmamap_vmregion_free(m, r);
fail_pages:
	free_buffer_pages(m, page, size);
fail:
	dmamap_coherent_count(m, DM_SRC_FAILED);
	return NULL;
}

/* The pages behind a coherent handle of @size bytes, or NULL (reported). */
static struct page *handle_pages(struct device *dev, dma_addr_t handle, size_t size, const char *what)
{
	struct dmamap_machine *m = dm_dev_machine(dev);
	phys_addr_t phys = dm_dma_to_phys(dev, handle);

	if (phys < handle || (phys & ~PAGE_MASK) || !dm_phys_in_ram(m, phys, size)) {
		dmamap_report(m, DMAMAP_REPORT_BAD_ADDRESS, dev->dmamap.name, NULL, 0,
			      "%s: handle %#llx+%#zx is not a buffer of this machine", what, (unsigned long long)handle,
			      size);
		return NULL;
	}
	return dmamap_phys_to_page(m, phys);
}

/*
 * Whether [cpu_addr, handle) names a live coherent buffer of @dev of at
 * least @size bytes (exactly, when @remove, which then takes it out of the
 * records): an atomic-pool allocation or a buffer of pages. Reported if not.
 */
static bool buffer_ok(struct device *dev, void *cpu_addr, dma_addr_t handle, size_t size, bool remove,
		      const char *what)
{
	struct dmamap_machine *m = dm_dev_machine(dev);
	const char *why;

	if (dmamap_atomic_pool_contains(m, cpu_addr)) {
		why = dmamap_atomic_pool_take(dev, cpu_addr, size, handle, remove);
	} else {
		if (!handle_pages(dev, handle, size, what))
			return false;
		why = dmamap_coherent_buf_take(dev, dm_dma_to_phys(dev, handle), size >> PAGE_SHIFT, cpu_addr, remove);
	}
	if (why)
		dmamap_report(m, DMAMAP_REPORT_API_MISUSE, dev->dmamap.name, NULL, 0,
			      "%s of %p (handle %#llx, %#zx bytes) refused: %s", what, cpu_addr,
			      (unsigned long long)handle, size, why);
	return !why;
}

static void arm_dma_free(struct device *dev, size_t size, void *cpu_addr, dma_addr_t handle, struct dma_attrs *attrs)
{
	const char *what = dm_free_call("dma_free");

	(void)attrs;
	size = coherent_size(dev, size, what);
	if (!size || dmamap_declared_release(dev, cpu_addr, size, handle))
		return;
	if (!buffer_ok(dev, cpu_addr, handle, size, true, what))
		return;
	if (!dmamap_atomic_pool_contains(dm_dev_machine(dev), cpu_addr))
		release_buffer(dev, handle_pages(dev, handle, size, what), size >> PAGE_SHIFT, cpu_addr);
}

static int arm_dma_mmap(struct device *dev, struct vm_area_struct *vma, void *cpu_addr, dma_addr_t dma_addr,
			size_t size, struct dma_attrs *attrs)
{
	unsigned long nr_vma = (vma->vm_end - vma->vm_start) >> PAGE_SHIFT;
	unsigned long nr_pages;
	unsigned long off = vma->vm_pgoff;
	phys_addr_t phys;
	pgprot_t prot;
	int ret;

	size = coherent_size(dev, size, "dma_mmap");
	if (!size)
		return -EINVAL;
	/*
	 * The type the attrs ask for, whatever memory the buffer came from: the
	 * kernel's arm_dma_mmap() sets it before dma_mmap_from_coherent() maps
	 * declared memory with it. Only a non-consistent buffer of pages is
	 * cached: declared memory is mapped uncached in the kernel whatever the
	 * attrs, and a cached user mapping of it would alias it with another type.
	 */
	prot = dma_get_attr(DMA_ATTR_WRITE_COMBINE, attrs) ? pgprot_writecombine(vma->vm_page_prot)
							    : pgprot_dmacoherent(vma->vm_page_prot);
	if (dm_dev_coherent(dev))
		prot = vma->vm_page_prot;
	if (dmamap_declared_mmap(dev, vma, cpu_addr, size, prot, &ret))
		return ret;
	if (dma_get_attr(DMA_ATTR_NON_CONSISTENT, attrs))
		prot = vma->vm_page_prot;
	if (!buffer_ok(dev, cpu_addr, dma_addr, size, false, "dma_mmap"))
		return -ENXIO;
	nr_pages = size >> PAGE_SHIFT;
	phys = dm_dma_to_phys(dev, dma_addr);
	if (off >= nr_pages || nr_vma > nr_pages - off)
		return -ENXIO;
	vma->vm_page_prot = prot;
	return remap_pfn_range(vma, vma->vm_start, PFN_DOWN(phys) + off, nr_vma << PAGE_SHIFT, prot);
}

static int arm_dma_get_sgtable(struct device *dev, struct sg_table *sgt, void *cpu_addr, dma_addr_t handle,
			       size_t size, struct dma_attrs *attrs)
{
	struct page *page;
	int ret;

	(void)attrs;
	size = coherent_size(dev, size, "dma_get_sgtable");
	if (!size || size > UINT_MAX)
		return -EINVAL;
	if (dmamap_declared_get_sgtable(dev, sgt, cpu_addr, handle, size, &ret))
		return ret;
	if (!buffer_ok(dev, cpu_addr, handle, size, false, "dma_get_sgtable"))
		return -ENXIO;
	page = handle_pages(dev, handle, size, "dma_get_sgtable");
	ret = sg_alloc_table(sgt, 1, GFP_KERNEL);
	if (ret)
		return ret;
	sg_set_page(sgt->sgl, page, (unsigned int)size, 0);
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
