/* SPDX-License-Identifier: MIT */
/*
 * The DMA API core: validation, then dispatch through get_dma_ops(dev).
 *
 * Every wrapper checks its arguments before anything happens, so a refused
 * call changes nothing; it is also a speculation point of the cache model.
 * The core never names an ops set: a device's default ops are given to it by
 * the platform.
 */
#include "internal.h"

#define WHERE file, line

#define refuse dmamap_dev_report

void dmamap_dev_report(struct device *dev, enum dmamap_report_kind kind, const char *file, int line, const char *fmt,
		       ...)
{
	va_list ap;
	bool live = dm_dev_live(dev);

	va_start(ap, fmt);
	dmamap_logv(live ? dm_dev_machine(dev) : NULL, DMAMAP_LOG_ERR, kind,
		    live ? dev->dmamap.name : (dev ? "(uninitialised device)" : NULL), file, line, fmt, ap);
	va_end(ap);
}

/* The device's ops, or NULL after a report. */
static const struct dma_map_ops *ops_for(struct device *dev, const char *what, const char *file, int line)
{
	const struct dma_map_ops *ops;

	if (!dev) {
		refuse(NULL, DMAMAP_REPORT_BAD_INPUT, WHERE, "%s: NULL device", what);
		return NULL;
	}
	if (!dm_dev_live(dev)) {
		refuse(dev, DMAMAP_REPORT_BAD_INPUT, WHERE, "%s: device not initialised (dmamap_device_init)", what);
		return NULL;
	}
	ops = dev->archdata.dma_ops ? dev->archdata.dma_ops : dev->dmamap.default_ops;
	if (!ops) {
		refuse(dev, DMAMAP_REPORT_API_MISUSE, WHERE, "%s: device has no dma_map_ops", what);
		return NULL;
	}
	return ops;
}

/* A validated call is about to reach the ops: a point where the CPU may prefetch. */
static inline void enter(struct device *dev)
{
	dmamap_cache_speculate(dm_dev_machine(dev));
}

static void missing_op(struct device *dev, const char *what, const char *file, int line)
{
	refuse(dev, DMAMAP_REPORT_API_MISUSE, WHERE, "%s: the device's dma_map_ops lack this operation", what);
}

/* ops_for() that also requires ops->member. */
#define OPS(dev, what, member)                                            \
	({                                                                \
		const struct dma_map_ops *o_ = ops_for((dev), (what), file, line); \
		if (o_ && !o_->member) {                                  \
			missing_op((dev), (what), file, line);            \
			o_ = NULL;                                        \
		}                                                         \
		o_;                                                       \
	})

static bool dir_ok(struct device *dev, int dir, const char *what, const char *file, int line)
{
	if (valid_dma_direction(dir))
		return true;
	refuse(dev, DMAMAP_REPORT_BAD_INPUT, WHERE, "%s: %s (%d) is not a mapping direction", what, dmamap_dir_name(dir),
	       dir);
	return false;
}

static bool size_ok(struct device *dev, size_t size, const char *what, const char *file, int line)
{
	if (size)
		return true;
	refuse(dev, DMAMAP_REPORT_BAD_INPUT, WHERE, "%s: zero size", what);
	return false;
}

/* The page range [page + offset, +size) is RAM of the device's machine. */
static bool page_range_ok(struct device *dev, struct page *page, unsigned long offset, size_t size, phys_addr_t *phys,
			  const char *what, const char *file, int line)
{
	struct dmamap_machine *m = dm_dev_machine(dev);
	phys_addr_t base, p;

	if (!page || dm_page_machine(page) != m) {
		refuse(dev, DMAMAP_REPORT_BAD_ADDRESS, WHERE, "%s: page %p is not a page of the device's machine",
		       what, (void *)page);
		return false;
	}
	base = page_to_phys(page);
	p = base + offset;
	if (p < base || !dm_phys_in_ram(m, p, size)) {
		refuse(dev, DMAMAP_REPORT_BAD_ADDRESS, WHERE, "%s: %#zx bytes at offset %#lx run outside RAM", what,
		       size, offset);
		return false;
	}
	*phys = p;
	return true;
}

DMAMAP_API const struct dma_map_ops *get_dma_ops(struct device *dev)
{
	if (!dm_dev_live(dev))
		return NULL;
	return dev->archdata.dma_ops ? dev->archdata.dma_ops : dev->dmamap.default_ops;
}

DMAMAP_API void set_dma_ops(struct device *dev, const struct dma_map_ops *ops)
{
	if (!dm_dev_live(dev)) {
		refuse(dev, DMAMAP_REPORT_BAD_INPUT, NULL, 0, "set_dma_ops: %s",
		       dev ? "device not initialised" : "NULL device");
		return;
	}
	dev->archdata.dma_ops = ops;
}

static bool is_error(const struct dma_map_ops *ops, struct device *dev, dma_addr_t addr)
{
	return ops->mapping_error ? ops->mapping_error(dev, addr) != 0 : addr == DMA_MAPPING_ERROR;
}

/*
 * With the checker off, a release (unmap, free) the ops just ran: one
 * untracked object fewer, unless they refused it. An ops set refuses by
 * reporting and changing nothing, so a report raised since @reports (the
 * count before the op) means the object is still live, and still guards
 * dmamap_checker_enable().
 */
static void untracked_released(struct dmamap_machine *m, unsigned long reports)
{
	if (dm_reports_now() == reports)
		dmamap_debug_untracked(m, -1);
}

/* ----------------------------------------------------------- streaming */

static dma_addr_t map_page(struct device *dev, struct page *page, unsigned long offset, size_t size, int dir,
			   struct dma_attrs *attrs, bool page_call, const char *what, const char *file, int line)
{
	const struct dma_map_ops *ops = OPS(dev, what, map_page);
	struct dm_map *map = NULL;
	struct dmamap_machine *m;
	phys_addr_t phys;
	dma_addr_t addr;
	bool failed;

	if (!ops || !dir_ok(dev, dir, what, WHERE) || !size_ok(dev, size, what, WHERE) ||
	    !page_range_ok(dev, page, offset, size, &phys, what, WHERE))
		return DMA_MAPPING_ERROR;
	m = dm_dev_machine(dev);
	if (dmamap_debug_on(m)) {
		map = dmamap_debug_map_prepare(dev, offset, size);
		if (!map)
			return DMA_MAPPING_ERROR;
	}
	enter(dev);
	addr = ops->map_page(dev, page, offset, size, (enum dma_data_direction)dir, attrs);
	if (map) {
		failed = is_error(ops, dev, addr);
		dmamap_debug_map_done(map, dev, page_call, phys, size, dir, attrs, addr, failed, WHERE);
	} else if (addr != DMA_MAPPING_ERROR) {
		dmamap_debug_untracked(m, 1); /* not asking ops->mapping_error: the count is a guard, not a check */
	}
	return addr;
}

DMAMAP_API dma_addr_t dmamap_map_single_attrs(struct device *dev, void *ptr, size_t size, enum dma_data_direction dir,
					      struct dma_attrs *attrs, const char *file, int line)
{
	DM_CALL();
	struct dmamap_machine *m = dm_dev_live(dev) ? dm_dev_machine(dev) : NULL;
	char what[256];

	if (m && (!dm_virt_in_linear(m, ptr) || size > m->cfg.ram_size - ((uintptr_t)ptr - (uintptr_t)m->lin))) {
		if (dm_vmalloc_describe(ptr, what, sizeof(what)))
			/* CONFIG_DMA_API_DEBUG's words: nothing behind the address is one contiguous buffer */
			refuse(dev, DMAMAP_REPORT_BAD_ADDRESS, WHERE,
			       "dma_map_single: device driver maps memory from vmalloc area [addr=%p] [len=%zu] (%s): it "
			       "is physically scattered; map each page of it (vmalloc_to_page()) with dma_map_page() or "
			       "an sg table",
			       ptr, size, what);
		else
			refuse(dev, DMAMAP_REPORT_BAD_ADDRESS, WHERE,
			       "dma_map_single: %p+%#zx is not in the device's machine's linear map (RAM)", ptr, size);
		return DMA_MAPPING_ERROR;
	}
	return map_page(dev, m ? dm_page(m, ((uintptr_t)ptr - (uintptr_t)m->lin) >> PAGE_SHIFT) : NULL,
			(unsigned long)((uintptr_t)ptr & ~PAGE_MASK), size, (int)dir, attrs, false, "dma_map_single", WHERE);
}

DMAMAP_API dma_addr_t dmamap_map_page_attrs(struct device *dev, struct page *page, unsigned long offset, size_t size,
					    enum dma_data_direction dir, struct dma_attrs *attrs, const char *file,
					    int line)
{
	DM_CALL();
	return map_page(dev, page, offset, size, (int)dir, attrs, true, "dma_map_page", WHERE);
}

static void unmap(struct device *dev, dma_addr_t addr, size_t size, int dir, struct dma_attrs *attrs,
		  bool page_call, const char *what, const char *file, int line)
{
	const struct dma_map_ops *ops = OPS(dev, what, unmap_page);
	struct dm_map *map = NULL;
	struct dmamap_machine *m;
	unsigned long reports;
	bool checked;

	if (!ops || !dir_ok(dev, dir, what, WHERE) || !size_ok(dev, size, what, WHERE))
		return;
	if (is_error(ops, dev, addr)) {
		refuse(dev, DMAMAP_REPORT_API_MISUSE, WHERE, "%s of a failed mapping (%#llx)", what,
		       (unsigned long long)addr);
		return;
	}
	m = dm_dev_machine(dev);
	checked = dmamap_debug_on(m);
	if (checked && !dmamap_debug_unmap(dev, page_call, addr, size, dir, WHERE, &map))
		return;
	enter(dev);
	reports = dm_reports_now();
	ops->unmap_page(dev, addr, size, (enum dma_data_direction)dir, attrs);
	if (!checked)
		untracked_released(m, reports);
	dmamap_debug_put(map, dev);
}

DMAMAP_API void dmamap_unmap_single_attrs(struct device *dev, dma_addr_t addr, size_t size,
					  enum dma_data_direction dir, struct dma_attrs *attrs, const char *file,
					  int line)
{
	DM_CALL();
	unmap(dev, addr, size, (int)dir, attrs, false, "dma_unmap_single", WHERE);
}

DMAMAP_API void dmamap_unmap_page_attrs(struct device *dev, dma_addr_t addr, size_t size, enum dma_data_direction dir,
					struct dma_attrs *attrs, const char *file, int line)
{
	DM_CALL();
	unmap(dev, addr, size, (int)dir, attrs, true, "dma_unmap_page", WHERE);
}

void dm_sync_single_as(struct device *dev, dma_addr_t addr, size_t size, int dir, bool for_cpu, const char *what,
		       const char *file, int line)
{
	DM_CALL();
	const struct dma_map_ops *ops = for_cpu ? OPS(dev, what, sync_single_for_cpu)
						: OPS(dev, what, sync_single_for_device);
	struct dm_map *map = NULL;

	if (!ops || !dir_ok(dev, dir, what, WHERE) || !size_ok(dev, size, what, WHERE))
		return;
	if (dmamap_debug_on(dm_dev_machine(dev)) &&
	    !dmamap_debug_sync(dev, addr, size, dir, for_cpu, what, WHERE, &map))
		return;
	enter(dev);
	if (for_cpu)
		ops->sync_single_for_cpu(dev, addr, size, (enum dma_data_direction)dir);
	else
		ops->sync_single_for_device(dev, addr, size, (enum dma_data_direction)dir);
	dmamap_debug_sync_done(map, dev, for_cpu);
}

DMAMAP_API void dmamap_sync_single_for_cpu(struct device *dev, dma_addr_t addr, size_t size,
					   enum dma_data_direction dir, const char *file, int line)
{
	dm_sync_single_as(dev, addr, size, (int)dir, true, "dma_sync_single_for_cpu", WHERE);
}

DMAMAP_API void dmamap_sync_single_for_device(struct device *dev, dma_addr_t addr, size_t size,
					      enum dma_data_direction dir, const char *file, int line)
{
	dm_sync_single_as(dev, addr, size, (int)dir, false, "dma_sync_single_for_device", WHERE);
}

/* ---------------------------------------------------------- scatterlists */

/* Check the first @nents entries: each a non-empty piece of RAM of the device's machine. */
static bool sg_ok(struct device *dev, struct scatterlist *sg, int nents, const char *what, const char *file,
		  int line)
{
	struct scatterlist *s;
	phys_addr_t phys;
	int i;

	if (!sg || nents <= 0) {
		refuse(dev, DMAMAP_REPORT_BAD_INPUT, WHERE, "%s: %s", what, !sg ? "NULL list" : "no entries");
		return false;
	}
	for_each_sg(sg, s, nents, i) {
		if (!s) {
			refuse(dev, DMAMAP_REPORT_BAD_INPUT, WHERE, "%s: the list ends after %d of %d entries", what, i,
			       nents);
			return false;
		}
		if (!size_ok(dev, s->length, what, WHERE) ||
		    !page_range_ok(dev, sg_page(s), s->offset, s->length, &phys, what, WHERE))
			return false;
	}
	return true;
}

DMAMAP_API int dmamap_map_sg_attrs(struct device *dev, struct scatterlist *sg, int nents,
				   enum dma_data_direction dir, struct dma_attrs *attrs, const char *file, int line)
{
	DM_CALL();
	const struct dma_map_ops *ops = OPS(dev, "dma_map_sg", map_sg);
	struct dm_map *map = NULL;
	struct dmamap_machine *m;
	int mapped;

	if (!ops || !dir_ok(dev, (int)dir, "dma_map_sg", WHERE) || !sg_ok(dev, sg, nents, "dma_map_sg", WHERE))
		return 0;
	m = dm_dev_machine(dev);
	if (dmamap_debug_on(m)) {
		map = dmamap_debug_map_sg_prepare(dev, sg, nents);
		if (!map)
			return 0;
	}
	enter(dev);
	mapped = ops->map_sg(dev, sg, nents, dir, attrs);
	if (map)
		dmamap_debug_map_sg_done(map, dev, sg, nents, mapped, (int)dir, attrs, WHERE);
	else if (mapped > 0)
		dmamap_debug_untracked(m, 1);
	return mapped;
}

DMAMAP_API void dmamap_unmap_sg_attrs(struct device *dev, struct scatterlist *sg, int nents,
				      enum dma_data_direction dir, struct dma_attrs *attrs, const char *file, int line)
{
	DM_CALL();
	const struct dma_map_ops *ops = OPS(dev, "dma_unmap_sg", unmap_sg);
	struct dm_map *map = NULL;
	struct dmamap_machine *m;
	unsigned long reports;
	bool checked;

	if (!ops || !dir_ok(dev, (int)dir, "dma_unmap_sg", WHERE) || !sg_ok(dev, sg, nents, "dma_unmap_sg", WHERE))
		return;
	m = dm_dev_machine(dev);
	checked = dmamap_debug_on(m);
	if (checked && !dmamap_debug_unmap_sg(dev, sg, nents, (int)dir, WHERE, &map))
		return;
	enter(dev);
	reports = dm_reports_now();
	ops->unmap_sg(dev, sg, nents, dir, attrs);
	if (!checked)
		untracked_released(m, reports); /* a list with any entry refused still counts as live */
	dmamap_debug_put(map, dev);
}

static void sync_sg(struct device *dev, struct scatterlist *sg, int nents, int dir, bool for_cpu, const char *file,
		    int line)
{
	const char *what = for_cpu ? "dma_sync_sg_for_cpu" : "dma_sync_sg_for_device";
	const struct dma_map_ops *ops = for_cpu ? OPS(dev, what, sync_sg_for_cpu) : OPS(dev, what, sync_sg_for_device);
	struct dm_map *map = NULL;

	if (!ops || !dir_ok(dev, dir, what, WHERE) || !sg_ok(dev, sg, nents, what, WHERE))
		return;
	if (dmamap_debug_on(dm_dev_machine(dev)) && !dmamap_debug_sync_sg(dev, sg, nents, dir, for_cpu, WHERE, &map))
		return;
	enter(dev);
	if (for_cpu)
		ops->sync_sg_for_cpu(dev, sg, nents, (enum dma_data_direction)dir);
	else
		ops->sync_sg_for_device(dev, sg, nents, (enum dma_data_direction)dir);
	dmamap_debug_sync_done(map, dev, for_cpu);
}

DMAMAP_API void dmamap_sync_sg_for_cpu(struct device *dev, struct scatterlist *sg, int nents,
				       enum dma_data_direction dir, const char *file, int line)
{
	DM_CALL();
	sync_sg(dev, sg, nents, (int)dir, true, WHERE);
}

DMAMAP_API void dmamap_sync_sg_for_device(struct device *dev, struct scatterlist *sg, int nents,
					  enum dma_data_direction dir, const char *file, int line)
{
	DM_CALL();
	sync_sg(dev, sg, nents, (int)dir, false, WHERE);
}

/* ------------------------------------------------------------- coherent */

DMAMAP_API void *dmamap_alloc_attrs(struct device *dev, size_t size, dma_addr_t *dma_handle, gfp_t gfp,
				    struct dma_attrs *attrs, const char *file, int line)
{
	/* said before the call context opens: the outermost call says it, not a pool growing through this one */
	dm_might_alloc(dm_dev_live(dev) ? dm_dev_machine(dev) : NULL, gfp, "dma_alloc_attrs", file, line);
	DM_CALL();
	const struct dma_map_ops *ops;
	struct dm_map *map = NULL;
	void *cpu;

	if (dma_handle)
		*dma_handle = DMA_MAPPING_ERROR;
	ops = OPS(dev, "dma_alloc_attrs", alloc);
	if (!ops || !size_ok(dev, size, "dma_alloc_attrs", WHERE))
		return NULL;
	if (!dma_handle) {
		refuse(dev, DMAMAP_REPORT_BAD_INPUT, WHERE, "dma_alloc_attrs: NULL dma_handle");
		return NULL;
	}
	/* before anything is prepared for it: a size no page count expresses, or more than all of RAM */
	if (!dm_page_align_size(size)) {
		refuse(dev, DMAMAP_REPORT_BAD_INPUT, WHERE, "dma_alloc_attrs: size %#zx cannot be rounded up to pages", size);
		return NULL;
	}
	if (size > dm_dev_machine(dev)->cfg.ram_size) {
		dmamap_log(dm_dev_machine(dev), DMAMAP_LOG_WARN, dev->dmamap.name,
			   "dma_alloc_attrs: %#zx bytes: more than the machine's RAM", size);
		return NULL;
	}
	if (dmamap_debug_on(dm_dev_machine(dev))) {
		map = dmamap_debug_alloc_prepare(dev, size);
		if (!map)
			return NULL;
	}
	enter(dev);
	cpu = ops->alloc(dev, size, dma_handle, gfp, attrs);
	if (!cpu)
		*dma_handle = DMA_MAPPING_ERROR;
	if (map)
		dmamap_debug_alloc_done(map, dev, size, cpu, *dma_handle, attrs, WHERE);
	else if (cpu)
		dmamap_debug_untracked(dm_dev_machine(dev), 1);
	return cpu;
}

void dm_free_attrs_as(struct device *dev, size_t size, void *cpu_addr, dma_addr_t dma_handle, struct dma_attrs *attrs,
		      const char *what, const char *file, int line)
{
	DM_CALL();
	const struct dma_map_ops *ops = OPS(dev, what, free);
	struct dma_attrs made;
	struct dm_map *map = NULL;
	unsigned long reports;
	const char *outer;
	bool checked;

	if (!ops || !size_ok(dev, size, what, WHERE))
		return;
	if (!cpu_addr) {
		refuse(dev, DMAMAP_REPORT_BAD_INPUT, WHERE, "%s: NULL cpu_addr", what);
		return;
	}
	if (dmamap_devres_holds_coherent(dev, cpu_addr)) {
		refuse(dev, DMAMAP_REPORT_API_MISUSE, WHERE,
		       "%s(%p): a buffer from dmam_alloc_coherent goes with its device, or with "
		       "dmam_free_coherent; refused",
		       what, cpu_addr);
		return;
	}
	checked = dmamap_debug_on(dm_dev_machine(dev));
	/* attrs that are not the buffer's are reported, and the ops free it with the buffer's own */
	if (checked && !dmamap_debug_free(dev, size, cpu_addr, dma_handle, &attrs, &made, what, WHERE, &map))
		return;
	enter(dev);
	reports = dm_reports_now();
	/* the ops' own refusals name the driver's call, not theirs */
	outer = dmamap_call_now.free_call;
	dmamap_call_now.free_call = what;
	ops->free(dev, size, cpu_addr, dma_handle, attrs);
	dmamap_call_now.free_call = outer;
	if (!checked)
		untracked_released(dm_dev_machine(dev), reports);
	dmamap_debug_put(map, dev);
}

DMAMAP_API void dmamap_free_attrs(struct device *dev, size_t size, void *cpu_addr, dma_addr_t dma_handle,
				  struct dma_attrs *attrs, const char *file, int line)
{
	dm_free_attrs_as(dev, size, cpu_addr, dma_handle, attrs, "dma_free_attrs", WHERE);
}

DMAMAP_API int dmamap_mmap_attrs(struct device *dev, struct vm_area_struct *vma, void *cpu_addr, dma_addr_t dma_addr,
				 size_t size, struct dma_attrs *attrs, const char *file, int line)
{
	DM_CALL();
	const struct dma_map_ops *ops = OPS(dev, "dma_mmap_attrs", mmap);
	struct dma_attrs made;

	if (!ops || !size_ok(dev, size, "dma_mmap_attrs", WHERE))
		return -EINVAL;
	if (!vma || !vma->dmamap || !cpu_addr) {
		refuse(dev, DMAMAP_REPORT_BAD_INPUT, WHERE, "dma_mmap_attrs: %s",
		       !cpu_addr ? "NULL cpu_addr" : "not a vma from dmamap_vma_create");
		return -EINVAL;
	}
	if (dmamap_debug_on(dm_dev_machine(dev)) &&
	    !dmamap_debug_buffer_use(dev, cpu_addr, dma_addr, size, &attrs, &made, "dma_mmap_attrs"))
		return -ENXIO;
	enter(dev);
	return ops->mmap(dev, vma, cpu_addr, dma_addr, size, attrs);
}

DMAMAP_API int dmamap_get_sgtable_attrs(struct device *dev, struct sg_table *sgt, void *cpu_addr, dma_addr_t dma_addr,
					size_t size, struct dma_attrs *attrs, const char *file, int line)
{
	DM_CALL();
	const struct dma_map_ops *ops = OPS(dev, "dma_get_sgtable", get_sgtable);

	if (!ops || !size_ok(dev, size, "dma_get_sgtable", WHERE))
		return -EINVAL;
	if (!sgt || !cpu_addr) {
		refuse(dev, DMAMAP_REPORT_BAD_INPUT, WHERE, "dma_get_sgtable: NULL %s", !sgt ? "table" : "cpu_addr");
		return -EINVAL;
	}
	if (dmamap_debug_on(dm_dev_machine(dev)) &&
	    !dmamap_debug_buffer_use(dev, cpu_addr, dma_addr, size, NULL, NULL, "dma_get_sgtable"))
		return -ENXIO;
	enter(dev);
	return ops->get_sgtable(dev, sgt, cpu_addr, dma_addr, size, attrs);
}

DMAMAP_API int dmamap_mapping_error(struct device *dev, dma_addr_t dma_addr, const char *file, int line)
{
	DM_CALL();
	const struct dma_map_ops *ops;

	if (!dm_dev_live(dev)) {
		refuse(dev, DMAMAP_REPORT_BAD_INPUT, WHERE, "dma_mapping_error: %s",
		       dev ? "device not initialised" : "NULL device");
		return 1;
	}
	ops = get_dma_ops(dev);
	if (dmamap_debug_on(dm_dev_machine(dev)))
		dmamap_debug_mapping_error(dev, dma_addr);
	return ops ? is_error(ops, dev, dma_addr) : dma_addr == DMA_MAPPING_ERROR;
}

/* ------------------------------------------------------------------ masks */

bool dmamap_mask_covers_zone(struct device *dev, u64 mask)
{
	struct dmamap_machine *m = dm_dev_machine(dev);
	phys_addr_t end = m->cfg.dma_zone_limit ? m->cfg.dma_zone_limit : dm_ram_end(m);

	return mask >= dm_phys_to_dma(dev, end - 1);
}

DMAMAP_API int dma_supported(struct device *dev, u64 mask)
{
	const struct dma_map_ops *ops;

	if (!dm_dev_live(dev)) {
		refuse(dev, DMAMAP_REPORT_BAD_INPUT, NULL, 0, "dma_supported: %s",
		       dev ? "device not initialised" : "NULL device");
		return 0;
	}
	ops = get_dma_ops(dev);
	if (ops && ops->dma_supported)
		return ops->dma_supported(dev, mask);
	return dmamap_mask_covers_zone(dev, mask);
}

DMAMAP_API int dma_set_mask(struct device *dev, u64 mask)
{
	const struct dma_map_ops *ops;

	if (!dm_dev_live(dev) || !dev->dma_mask) {
		refuse(dev, DMAMAP_REPORT_BAD_INPUT, NULL, 0, "dma_set_mask: %s",
		       !dev ? "NULL device" : !dm_dev_live(dev) ? "device not initialised" : "device has no dma_mask");
		return -EIO;
	}
	ops = get_dma_ops(dev);
	if (ops && ops->set_dma_mask)
		return ops->set_dma_mask(dev, mask);
	if (!dma_supported(dev, mask))
		return -EIO;
	*dev->dma_mask = mask;
	return 0;
}

DMAMAP_API int dma_set_coherent_mask(struct device *dev, u64 mask)
{
	if (!dm_dev_live(dev)) {
		refuse(dev, DMAMAP_REPORT_BAD_INPUT, NULL, 0, "dma_set_coherent_mask: %s",
		       dev ? "device not initialised" : "NULL device");
		return -EIO;
	}
	if (!dma_supported(dev, mask))
		return -EIO;
	dev->coherent_dma_mask = mask;
	return 0;
}

DMAMAP_API int dma_set_mask_and_coherent(struct device *dev, u64 mask)
{
	int err;

	if (!dm_dev_live(dev)) {
		refuse(dev, DMAMAP_REPORT_BAD_INPUT, NULL, 0, "dma_set_mask_and_coherent: %s",
		       dev ? "device not initialised" : "NULL device");
		return -EIO;
	}
	if (!dma_supported(dev, mask))
		return -EIO;
	err = dma_set_mask(dev, mask);
	if (err)
		return err;
	return dma_set_coherent_mask(dev, mask);
}

/*
 * The device helpers read and write the device itself: one that was never
 * initialised (dmamap_device_init()) may hold anything, so it is refused
 * (reported) before anything is read through it.
 */
static bool helper_dev_ok(struct device *dev, const char *what)
{
	if (dm_dev_live(dev))
		return true;
	refuse(dev, DMAMAP_REPORT_BAD_INPUT, NULL, 0, "%s: %s", what, dev ? "device not initialised" : "NULL device");
	return false;
}

DMAMAP_API u64 dma_get_mask(struct device *dev)
{
	if (helper_dev_ok(dev, "dma_get_mask") && dev->dma_mask && *dev->dma_mask)
		return *dev->dma_mask;
	return DMA_BIT_MASK(32);
}

DMAMAP_API unsigned int dma_get_max_seg_size(struct device *dev)
{
	return helper_dev_ok(dev, "dma_get_max_seg_size") && dev->dma_parms ? dev->dma_parms->max_segment_size : 65536u;
}

DMAMAP_API int dma_set_max_seg_size(struct device *dev, unsigned int size)
{
	if (!helper_dev_ok(dev, "dma_set_max_seg_size") || !dev->dma_parms)
		return -EIO;
	if (!size)
		return -EINVAL;
	dev->dma_parms->max_segment_size = size;
	return 0;
}

DMAMAP_API unsigned long dma_get_seg_boundary(struct device *dev)
{
	return helper_dev_ok(dev, "dma_get_seg_boundary") && dev->dma_parms ? dev->dma_parms->segment_boundary_mask
									     : 0xffffffffUL;
}

DMAMAP_API int dma_set_seg_boundary(struct device *dev, unsigned long mask)
{
	if (!helper_dev_ok(dev, "dma_set_seg_boundary") || !dev->dma_parms)
		return -EIO;
	dev->dma_parms->segment_boundary_mask = mask;
	return 0;
}

DMAMAP_API int dma_set_min_align_mask(struct device *dev, unsigned int min_align_mask)
{
	if (!helper_dev_ok(dev, "dma_set_min_align_mask") || !dev->dma_parms)
		return -EIO;
	dev->dma_parms->min_align_mask = min_align_mask;
	return 0;
}

DMAMAP_API unsigned int dma_get_min_align_mask(struct device *dev)
{
	return helper_dev_ok(dev, "dma_get_min_align_mask") && dev->dma_parms ? dev->dma_parms->min_align_mask : 0;
}
