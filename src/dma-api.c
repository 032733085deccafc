/* SPDX-License-Identifier: MIT */
/*
 * The Linux 6.x entry points (<dmamap/dma-linux.h>) and the later kernels'
 * helpers that take no attributes (<dmamap/dma-common.h>).
 *
 * Nothing here maps anything itself: each 6.x call checks its unsigned long
 * attrs, turns them into the core's struct dma_attrs and calls the core's
 * location-carrying function, so the checker, the reports and every ops set
 * behave exactly as under the 2012 API. The 6.x DMA_ATTR_* bits sit where the
 * core's enum dma_attr puts them (the kernel kept the positions when it made
 * attrs an unsigned long), so the translation keeps the shared bits.
 */
#include <stdint.h>

#include "internal.h"

#define LX_CORE                                                                                          \
	(DMAMAP_LX_ATTR_WEAK_ORDERING | DMAMAP_LX_ATTR_WRITE_COMBINE | DMAMAP_LX_ATTR_NO_KERNEL_MAPPING | \
	 DMAMAP_LX_ATTR_SKIP_CPU_SYNC | DMAMAP_LX_ATTR_FORCE_CONTIGUOUS)
#define LX_KNOWN \
	(LX_CORE | DMAMAP_LX_ATTR_ALLOC_SINGLE_PAGES | DMAMAP_LX_ATTR_NO_WARN | DMAMAP_LX_ATTR_PRIVILEGED)

_Static_assert(DMAMAP_LX_ATTR_WEAK_ORDERING == 1UL << DMA_ATTR_WEAK_ORDERING, "attr bit");
_Static_assert(DMAMAP_LX_ATTR_WRITE_COMBINE == 1UL << DMA_ATTR_WRITE_COMBINE, "attr bit");
_Static_assert(DMAMAP_LX_ATTR_NO_KERNEL_MAPPING == 1UL << DMA_ATTR_NO_KERNEL_MAPPING, "attr bit");
_Static_assert(DMAMAP_LX_ATTR_SKIP_CPU_SYNC == 1UL << DMA_ATTR_SKIP_CPU_SYNC, "attr bit");
_Static_assert(DMAMAP_LX_ATTR_FORCE_CONTIGUOUS == 1UL << DMA_ATTR_FORCE_CONTIGUOUS, "attr bit");

bool dmamap_lx_attrs(struct device *dev, unsigned long attrs, struct dma_attrs *a, struct dma_attrs **out,
		     const char *what, const char *file, int line)
{
	if (attrs & ~LX_KNOWN) {
		dmamap_dev_report(dev, DMAMAP_REPORT_BAD_INPUT, file, line,
			  "%s: attrs %#lx has bits Linux 6.x does not define (%#lx); refused", what, attrs,
			  attrs & ~LX_KNOWN);
		return false;
	}
	a->flags = attrs & LX_CORE;
	*out = a->flags ? a : NULL;
	return true;
}

#define ATTRS(what, fail)                                                \
	struct dma_attrs a_, *ap_;                                       \
	if (!dmamap_lx_attrs(dev, attrs, &a_, &ap_, (what), file, line))        \
		fail

static bool noncontig_holds(struct device *dev, phys_addr_t phys, const char *what, const char *file, int line);

/* noncontig_holds() of the block at linear-map address @vaddr (anything else is no such block). */
static bool noncontig_holds_va(struct device *dev, const void *vaddr, const char *what, const char *file, int line)
{
	struct dmamap_machine *m;

	if (!dm_dev_live(dev))
		return false;
	m = dm_dev_machine(dev);
	return dm_virt_in_linear(m, vaddr) && noncontig_holds(dev, dm_virt_to_phys(m, vaddr), what, file, line);
}

/* --------------------------------------------------------- streaming */

DMAMAP_API dma_addr_t dmamap_linux_map_page(struct device *dev, struct page *page, unsigned long offset, size_t size,
					    enum dma_data_direction dir, unsigned long attrs, const char *file, int line)
{
	ATTRS("dma_map_page_attrs", return DMA_MAPPING_ERROR);
	return dmamap_map_page_attrs(dev, page, offset, size, dir, ap_, file, line);
}

DMAMAP_API int dmamap_linux_mapping_error(struct device *dev, dma_addr_t dma_addr, const char *file, int line)
{
	/* the core's answer is the 2012 kernel's (1 for an error); Linux 6.x says -ENOMEM */
	return dmamap_mapping_error(dev, dma_addr, file, line) ? -ENOMEM : 0;
}

DMAMAP_API void dmamap_linux_unmap_page(struct device *dev, dma_addr_t addr, size_t size, enum dma_data_direction dir,
					unsigned long attrs, const char *file, int line)
{
	ATTRS("dma_unmap_page_attrs", return);
	dmamap_unmap_page_attrs(dev, addr, size, dir, ap_, file, line);
}

DMAMAP_API dma_addr_t dmamap_linux_map_single(struct device *dev, void *ptr, size_t size, enum dma_data_direction dir,
					      unsigned long attrs, const char *file, int line)
{
	ATTRS("dma_map_single_attrs", return DMA_MAPPING_ERROR);
	return dmamap_map_single_attrs(dev, ptr, size, dir, ap_, file, line);
}

DMAMAP_API void dmamap_linux_unmap_single(struct device *dev, dma_addr_t addr, size_t size,
					  enum dma_data_direction dir, unsigned long attrs, const char *file, int line)
{
	ATTRS("dma_unmap_single_attrs", return);
	dmamap_unmap_single_attrs(dev, addr, size, dir, ap_, file, line);
}

DMAMAP_API unsigned int dmamap_linux_map_sg(struct device *dev, struct scatterlist *sg, int nents,
					    enum dma_data_direction dir, unsigned long attrs, const char *file, int line)
{
	int n;

	ATTRS("dma_map_sg_attrs", return 0);
	n = dmamap_map_sg_attrs(dev, sg, nents, dir, ap_, file, line);
	return n > 0 ? (unsigned int)n : 0;
}

DMAMAP_API void dmamap_linux_unmap_sg(struct device *dev, struct scatterlist *sg, int nents,
				      enum dma_data_direction dir, unsigned long attrs, const char *file, int line)
{
	ATTRS("dma_unmap_sg_attrs", return);
	dmamap_unmap_sg_attrs(dev, sg, nents, dir, ap_, file, line);
}

/* A table the sgtable calls can take: non-NULL, entries, a count an int holds. */
static bool sgt_ok(struct device *dev, const struct sg_table *sgt, const char *what, const char *file, int line)
{
	if (sgt && sgt->sgl && sgt->orig_nents && sgt->orig_nents <= INT32_MAX)
		return true;
	dmamap_dev_report(dev, DMAMAP_REPORT_BAD_INPUT, file, line, "%s: %s", what,
		  !sgt ? "NULL table" : !sgt->sgl || !sgt->orig_nents ? "empty table" : "too many entries");
	return false;
}

DMAMAP_API int dmamap_linux_map_sgtable(struct device *dev, struct sg_table *sgt, enum dma_data_direction dir,
					unsigned long attrs, const char *file, int line)
{
	unsigned long reports = dm_reports_now();
	int n;

	ATTRS("dma_map_sgtable", return -EINVAL);
	if (!sgt_ok(dev, sgt, "dma_map_sgtable", file, line))
		return -EINVAL;
	n = dmamap_map_sg_attrs(dev, sgt->sgl, (int)sgt->orig_nents, dir, ap_, file, line);
	if (n > 0) {
		sgt->nents = (unsigned int)n;
		return 0;
	}
	if (!dm_dev_live(dev) || !valid_dma_direction((int)dir))
		return -EINVAL;
	/*
	 * No ops set refuses without a report but for want of resources (IOVA
	 * space, page-table pages, safe buffers, the checker's records): Linux
	 * says -ENOMEM ("should succeed if retried later"). What was reported
	 * (a buffer the device cannot reach) stays -EIO, as dma-direct says.
	 */
	if (dm_reports_now() == reports)
		return -ENOMEM;
	return -EIO;
}

DMAMAP_API void dmamap_linux_unmap_sgtable(struct device *dev, struct sg_table *sgt, enum dma_data_direction dir,
					   unsigned long attrs, const char *file, int line)
{
	ATTRS("dma_unmap_sgtable", return);
	if (sgt_ok(dev, sgt, "dma_unmap_sgtable", file, line))
		dmamap_unmap_sg_attrs(dev, sgt->sgl, (int)sgt->orig_nents, dir, ap_, file, line);
}

static bool noncontig_sync(struct device *dev, struct sg_table *sgt, int dir, bool for_cpu, const char *file,
			   int line);

DMAMAP_API void dmamap_linux_sync_sgtable(struct device *dev, struct sg_table *sgt, enum dma_data_direction dir,
					  bool for_cpu, const char *file, int line)
{
	if (noncontig_sync(dev, sgt, (int)dir, for_cpu, file, line))
		return;
	if (!sgt_ok(dev, sgt, for_cpu ? "dma_sync_sgtable_for_cpu" : "dma_sync_sgtable_for_device", file, line))
		return;
	if (for_cpu)
		dmamap_sync_sg_for_cpu(dev, sgt->sgl, (int)sgt->orig_nents, dir, file, line);
	else
		dmamap_sync_sg_for_device(dev, sgt->sgl, (int)sgt->orig_nents, dir, file, line);
}

/* ---------------------------------------------------------- allocations */

DMAMAP_API void *dmamap_linux_alloc(struct device *dev, size_t size, dma_addr_t *dma_handle, gfp_t gfp,
				    unsigned long attrs, const char *file, int line)
{
	if (dma_handle)
		*dma_handle = DMA_MAPPING_ERROR;
	ATTRS("dma_alloc_attrs", return NULL);
	return dmamap_alloc_attrs(dev, size, dma_handle, gfp, ap_, file, line);
}

DMAMAP_API void dmamap_linux_free(struct device *dev, size_t size, void *cpu_addr, dma_addr_t dma_handle,
				  unsigned long attrs, const char *file, int line)
{
	/* Linux 6.x's dma_free_attrs(): "if (!cpu_addr) return;" (teardown paths free rings never allocated) */
	if (!cpu_addr)
		return;
	ATTRS("dma_free_attrs", return);
	if (noncontig_holds_va(dev, cpu_addr, "dma_free_attrs", file, line))
		return;
	dmamap_free_attrs(dev, size, cpu_addr, dma_handle, ap_, file, line);
}

DMAMAP_API int dmamap_linux_mmap(struct device *dev, struct vm_area_struct *vma, void *cpu_addr, dma_addr_t dma_addr,
				 size_t size, unsigned long attrs, const char *file, int line)
{
	ATTRS("dma_mmap_attrs", return -EINVAL);
	return dmamap_mmap_attrs(dev, vma, cpu_addr, dma_addr, size, ap_, file, line);
}

DMAMAP_API int dmamap_linux_get_sgtable(struct device *dev, struct sg_table *sgt, void *cpu_addr, dma_addr_t dma_addr,
					size_t size, unsigned long attrs, const char *file, int line)
{
	ATTRS("dma_get_sgtable_attrs", return -EINVAL);
	return dmamap_get_sgtable_attrs(dev, sgt, cpu_addr, dma_addr, size, ap_, file, line);
}

DMAMAP_API void *dmamap_linux_dmam_alloc(struct device *dev, size_t size, dma_addr_t *dma_handle, gfp_t gfp,
					 unsigned long attrs, const char *file, int line)
{
	if (dma_handle)
		*dma_handle = DMA_MAPPING_ERROR;
	ATTRS("dmam_alloc_attrs", return NULL);
	return dmamap_dmam_alloc_attrs(dev, size, dma_handle, gfp, ap_, file, line);
}

static bool noncoherent_dir_ok(struct device *dev, int dir, const char *what, const char *file, int line)
{
	if (valid_dma_direction(dir))
		return true;
	dmamap_dev_report(dev, DMAMAP_REPORT_BAD_INPUT, file, line, "%s: %s (%d) is not a mapping direction", what,
		  dmamap_dir_name(dir), dir);
	return false;
}

/* never from declared memory: the kernel's dma_alloc_noncoherent() is dma_alloc_pages()'s, which never takes it */
static const struct dma_attrs noncoherent = { (1UL << DMA_ATTR_NON_CONSISTENT) | (1UL << DM_ATTR_NO_DECLARED) };

DMAMAP_API void *dmamap_linux_alloc_noncoherent(struct device *dev, size_t size, dma_addr_t *dma_handle,
						enum dma_data_direction dir, gfp_t gfp, const char *file, int line)
{
	struct dma_attrs a = noncoherent;
	void *cpu;

	if (dma_handle)
		*dma_handle = DMA_MAPPING_ERROR;
	if (!noncoherent_dir_ok(dev, (int)dir, "dma_alloc_noncoherent", file, line))
		return NULL;
	cpu = dmamap_alloc_attrs(dev, size, dma_handle, gfp, &a, file, line);
	if (cpu && dma_handle && dmamap_debug_on(dm_dev_machine(dev)))
		dmamap_debug_noncoherent(dev, cpu, *dma_handle, (int)dir, false, "dma_alloc_noncoherent",
					 "dma_free_noncoherent");
	return cpu;
}

DMAMAP_API void dmamap_linux_free_noncoherent(struct device *dev, size_t size, void *vaddr, dma_addr_t dma_handle,
					      enum dma_data_direction dir, const char *file, int line)
{
	struct dma_attrs a = noncoherent;

	if (!noncoherent_dir_ok(dev, (int)dir, "dma_free_noncoherent", file, line) ||
	    noncontig_holds_va(dev, vaddr, "dma_free_noncoherent", file, line))
		return;
	/* as the kernel's dma-debug: said, then freed (the direction changes nothing the free does) */
	if (dm_dev_live(dev) && dmamap_debug_on(dm_dev_machine(dev))) {
		DM_CALL();

		dmamap_debug_noncoherent(dev, vaddr, dma_handle, (int)dir, true, "dma_free_noncoherent", NULL);
	}
	dm_free_attrs_as(dev, size, vaddr, dma_handle, &a, "dma_free_noncoherent", file, line);
}

/*
 * dma_alloc_pages(): the dma_alloc_noncoherent() machinery (the same
 * checker record, direction and reports), asked for one physically
 * contiguous block so that its first struct page describes it all, and
 * never from the device's declared memory (the kernel's dma_alloc_pages()
 * never takes it). On every ops set such a cached block's CPU address is
 * its linear map, as the kernel's page_address(); should an ops set give
 * another, the buffer is given back and the call fails.
 */
static const struct dma_attrs alloc_pages_attrs = { (1UL << DMA_ATTR_NON_CONSISTENT) |
						    (1UL << DMA_ATTR_FORCE_CONTIGUOUS) |
						    (1UL << DM_ATTR_NO_DECLARED) };

/* dma_alloc_pages() made by the driver's call @what, whose buffer @pair frees: the reports name them. */
static struct page *alloc_pages_as(struct device *dev, size_t size, dma_addr_t *dma_handle, int dir, gfp_t gfp,
				   const char *what, const char *pair, const char *file, int line)
{
	struct dma_attrs a = alloc_pages_attrs;
	struct dmamap_machine *m;
	dma_addr_t h;
	void *cpu;

	if (dma_handle)
		*dma_handle = DMA_MAPPING_ERROR;
	if (!noncoherent_dir_ok(dev, dir, what, file, line))
		return NULL;
	if (gfp & (__GFP_DMA | __GFP_HIGHMEM)) {
		dmamap_dev_report(dev, DMAMAP_REPORT_BAD_INPUT, file, line,
			  "%s: gfp %#x asks for a zone: the device's mask chooses it", what, gfp);
		return NULL;
	}
	cpu = dmamap_alloc_attrs(dev, size, dma_handle, gfp, &a, file, line);
	if (!cpu)
		return NULL;
	m = dm_dev_machine(dev);
	h = *dma_handle;
	if (!dm_linear_range(m, cpu, size)) {
		dmamap_log(m, DMAMAP_LOG_WARN, dev->dmamap.name,
			   "%s: the ops set gave no linear-map buffer: no struct page describes it", what);
		dmamap_free_attrs(dev, size, cpu, h, &a, file, line);
		*dma_handle = DMA_MAPPING_ERROR;
		return NULL;
	}
	if (dmamap_debug_on(m))
		dmamap_debug_noncoherent(dev, cpu, h, dir, false, what, pair);
	return dmamap_phys_to_page(m, dm_virt_to_phys(m, cpu));
}

/* Whether @dev and @page are what a free of pages can take; reported as @what's if not. */
static bool pages_free_ok(struct device *dev, struct page *page, int dir, const char *what, const char *file,
			  int line)
{
	if (!noncoherent_dir_ok(dev, dir, what, file, line))
		return false;
	if (!dm_dev_live(dev)) {
		dmamap_dev_report(dev, DMAMAP_REPORT_BAD_INPUT, file, line, "%s: %s", what,
			  dev ? "device not initialised" : "NULL device");
		return false;
	}
	if (!page || dm_page_machine(page) != dm_dev_machine(dev)) {
		dmamap_dev_report(dev, DMAMAP_REPORT_BAD_INPUT, file, line, "%s: %s", what,
			  !page ? "NULL page" : "not a page of the device's machine");
		return false;
	}
	return true;
}

/* dma_free_pages() made by the driver's call @what; the arguments checked by pages_free_ok(). */
static void free_pages_as(struct device *dev, size_t size, struct page *page, dma_addr_t dma_handle, int dir,
			  const char *what, const char *file, int line)
{
	struct dma_attrs a = alloc_pages_attrs;
	void *cpu = page_address(page);

	if (dmamap_debug_on(dm_dev_machine(dev))) {
		DM_CALL();

		dmamap_debug_noncoherent(dev, cpu, dma_handle, dir, true, what, NULL);
	}
	dm_free_attrs_as(dev, size, cpu, dma_handle, &a, what, file, line);
}

DMAMAP_API struct page *dmamap_linux_alloc_pages(struct device *dev, size_t size, dma_addr_t *dma_handle,
						 enum dma_data_direction dir, gfp_t gfp, const char *file, int line)
{
	return alloc_pages_as(dev, size, dma_handle, (int)dir, gfp, "dma_alloc_pages", "dma_free_pages", file, line);
}

DMAMAP_API void dmamap_linux_free_pages(struct device *dev, size_t size, struct page *page, dma_addr_t dma_handle,
					enum dma_data_direction dir, const char *file, int line)
{
	if (!pages_free_ok(dev, page, (int)dir, "dma_free_pages", file, line) ||
	    noncontig_holds(dev, page_to_phys(page), "dma_free_pages", file, line))
		return;
	free_pages_as(dev, size, page, dma_handle, (int)dir, "dma_free_pages", file, line);
}

/* ------------------------------------------------------ non-contiguous */

/*
 * A dma_alloc_noncontiguous() allocation: the table the driver holds (its
 * one entry here, describing one dma_alloc_pages() block) and what the
 * frees, syncs and kernel mappings of it check against. Host memory, on
 * the machine's list (under obj_lock) from the allocation to its free, or
 * to the device's release, which reports the block as a leak and frees it.
 */
struct dm_noncontig {
	struct sg_table sgt;          /* what the driver holds */
	struct scatterlist sg;        /* its entry */
	struct dm_noncontig *next;
	struct device *dev;
	struct page *page;
	dma_addr_t handle;
	size_t size;
	int dir;
	unsigned long vmaps;          /* dma_vmap_noncontiguous() not yet undone */
	const char *file;
	int line;
};

/* The live table @sgt of @m (whichever its device), or NULL: compares pointers, never reads through @sgt. */
static struct dm_noncontig *nc_find(struct dmamap_machine *m, const struct sg_table *sgt)
{
	for (struct dm_noncontig *r = m->noncontig; r; r = r->next)
		if (&r->sgt == sgt)
			return r;
	return NULL;
}

static void nc_unlink(struct dmamap_machine *m, struct dm_noncontig *r)
{
	struct dm_noncontig **pp = &m->noncontig;

	while (*pp != r)
		pp = &(*pp)->next;
	*pp = r->next;
}

/* Report @what of @sgt, which names no live table of @dev (@other: the device whose it is, or NULL). */
static void nc_unknown(struct device *dev, const struct sg_table *sgt, const char *other, const char *what,
		       const char *file, int line)
{
	if (!sgt)
		dmamap_dev_report(dev, DMAMAP_REPORT_BAD_INPUT, file, line, "%s: NULL table", what);
	else if (other)
		dmamap_dev_report(dev, DMAMAP_REPORT_NOT_MAPPED, file, line,
			  "%s(%p): the table dma_alloc_noncontiguous() gave device %s, not this one; refused, "
			  "nothing changed", what, (const void *)sgt, other);
	else
		dmamap_dev_report(dev, DMAMAP_REPORT_NOT_MAPPED, file, line,
			  "%s(%p): not a table dma_alloc_noncontiguous() gave this device (freed already?); refused, "
			  "nothing changed", what, (const void *)sgt);
}

/*
 * Whether the block at @phys is a live dma_alloc_noncontiguous() table's of
 * @dev: then freeing it by @what is reported and refused, as its table
 * would be left describing freed pages.
 */
static bool noncontig_holds(struct device *dev, phys_addr_t phys, const char *what, const char *file, int line)
{
	struct dmamap_machine *m = dm_dev_machine(dev);
	const char *afile = NULL;
	dma_addr_t h = 0;
	size_t size = 0;
	int aline = 0;
	bool held = false;

	pthread_mutex_lock(&m->obj_lock);
	for (struct dm_noncontig *r = m->noncontig; r && !held; r = r->next) {
		if (r->dev == dev && page_to_phys(r->page) == phys) {
			held = true;
			h = r->handle;
			size = r->size;
			afile = r->file;
			aline = r->line;
		}
	}
	pthread_mutex_unlock(&m->obj_lock);
	if (held)
		dmamap_dev_report(dev, DMAMAP_REPORT_KIND_MISMATCH, file, line,
			  "%s of bus %#llx: the %#zx bytes dma_alloc_noncontiguous() allocated at %s:%d, released by "
			  "dma_free_noncontiguous with their table; refused", what, (unsigned long long)h, size,
			  afile ? afile : "?", aline);
	return held;
}

DMAMAP_API struct sg_table *dmamap_linux_alloc_noncontiguous(struct device *dev, size_t size,
							     enum dma_data_direction dir, gfp_t gfp,
							     unsigned long attrs, const char *file, int line)
{
	struct dmamap_machine *m;
	struct dm_noncontig *r;
	struct page *page;
	dma_addr_t h;

	if (!dm_dev_ok(dev, "dma_alloc_noncontiguous", file, line))
		return NULL;
	if (attrs & ~DMAMAP_LX_ATTR_ALLOC_SINGLE_PAGES) {
		dmamap_dev_report(dev, DMAMAP_REPORT_BAD_INPUT, file, line,
			  "dma_alloc_noncontiguous: attrs %#lx: only DMA_ATTR_ALLOC_SINGLE_PAGES is taken; refused",
			  attrs);
		return NULL;
	}
	if (size > UINT32_MAX - (PAGE_SIZE - 1)) {
		dmamap_dev_report(dev, DMAMAP_REPORT_BAD_INPUT, file, line,
			  "dma_alloc_noncontiguous: %#zx bytes: more than a scatterlist entry holds", size);
		return NULL;
	}
	m = dm_dev_machine(dev);
	r = dmamap_zalloc(m, sizeof(*r));
	if (!r)
		return NULL;
	page = alloc_pages_as(dev, size, &h, (int)dir, gfp, "dma_alloc_noncontiguous", "dma_free_noncontiguous", file,
			      line);
	if (!page) {
		dmamap_free(r);
		return NULL;
	}
	sg_init_table(&r->sg, 1);
	sg_set_page(&r->sg, page, (unsigned int)size, 0);
	sg_dma_address(&r->sg) = h;
	sg_dma_len(&r->sg) = (unsigned int)size;
	r->sgt.sgl = &r->sg;
	r->sgt.orig_nents = 1;
	r->sgt.nents = 1;
	r->dev = dev;
	r->page = page;
	r->handle = h;
	r->size = size;
	r->dir = (int)dir;
	r->file = file;
	r->line = line;
	pthread_mutex_lock(&m->obj_lock);
	r->next = m->noncontig;
	m->noncontig = r;
	pthread_mutex_unlock(&m->obj_lock);
	return &r->sgt;
}

DMAMAP_API void dmamap_linux_free_noncontiguous(struct device *dev, size_t size, struct sg_table *sgt,
						enum dma_data_direction dir, const char *file, int line)
{
	const char *what = "dma_free_noncontiguous";
	struct dmamap_machine *m;
	struct dm_noncontig *r;
	const char *other = NULL;
	unsigned long reports;

	if (!noncoherent_dir_ok(dev, (int)dir, what, file, line) || !dm_dev_ok(dev, what, file, line))
		return;
	m = dm_dev_machine(dev);
	pthread_mutex_lock(&m->obj_lock);
	r = sgt ? nc_find(m, sgt) : NULL;
	if (r && r->dev != dev) {
		other = r->dev->dmamap.name;
		r = NULL;
	}
	if (r)
		nc_unlink(m, r); /* this call's now: another free of it finds nothing */
	pthread_mutex_unlock(&m->obj_lock);
	if (!r) {
		nc_unknown(dev, sgt, other, what, file, line);
		return;
	}
	/* as the kernel's dma-debug: said, then freed (the direction changes nothing the free does) */
	if ((int)dir != r->dir)
		dmamap_dev_report(dev, DMAMAP_REPORT_DIR_MISMATCH, file, line,
			  "%s of bus %#llx with %s: the table was allocated for %s at %s:%d", what,
			  (unsigned long long)r->handle, dmamap_dir_name((int)dir), dmamap_dir_name(r->dir),
			  r->file ? r->file : "?", r->line);
	/*
	 * The block goes as dma_free_pages() would take it, the size the
	 * caller's: its refusal (another size, the pages still mapped for DMA)
	 * is reported there, and leaves the table allocated.
	 */
	reports = dm_reports_now();
	free_pages_as(dev, size, r->page, r->handle, r->dir, what, file, line);
	if (dm_reports_now() != reports) {
		pthread_mutex_lock(&m->obj_lock);
		r->next = m->noncontig;
		m->noncontig = r;
		pthread_mutex_unlock(&m->obj_lock);
		return;
	}
	if (r->vmaps)
		dmamap_dev_report(dev, DMAMAP_REPORT_LEAK, file, line,
			  "%s of bus %#llx: its kernel mapping from dma_vmap_noncontiguous() was never undone "
			  "(dma_vunmap_noncontiguous() first: behind an IOMMU it is a vmap of its own, left behind)",
			  what, (unsigned long long)r->handle);
	dmamap_free(r);
}

/*
 * The block of @dev's live dma_alloc_noncontiguous() table @sgt of @size
 * bytes, for @what (@vmap: counted as a kernel mapping); NULL, reported, for
 * any other table or size.
 */
static struct page *nc_block(struct device *dev, size_t size, struct sg_table *sgt, bool vmap, const char *what,
			     const char *file, int line)
{
	struct dmamap_machine *m;
	struct dm_noncontig *r;
	const char *other = NULL;
	struct page *page = NULL;
	size_t was = 0;

	if (!dm_dev_ok(dev, what, file, line))
		return NULL;
	m = dm_dev_machine(dev);
	pthread_mutex_lock(&m->obj_lock);
	r = sgt ? nc_find(m, sgt) : NULL;
	if (r && r->dev != dev) {
		other = r->dev->dmamap.name;
		r = NULL;
	}
	if (r && r->size == size) {
		r->vmaps += vmap;
		page = r->page;
	} else if (r) {
		was = r->size;
	}
	pthread_mutex_unlock(&m->obj_lock);
	if (!r)
		nc_unknown(dev, sgt, other, what, file, line);
	else if (!page)
		dmamap_dev_report(dev, DMAMAP_REPORT_SIZE_MISMATCH, file, line,
			  "%s(%p) with size %#zx: the table was allocated with %#zx bytes; refused", what,
			  (const void *)sgt, size, was);
	return page;
}

DMAMAP_API void *dmamap_linux_vmap_noncontiguous(struct device *dev, size_t size, struct sg_table *sgt,
						 const char *file, int line)
{
	struct page *page = nc_block(dev, size, sgt, true, "dma_vmap_noncontiguous", file, line);

	return page ? page_address(page) : NULL;
}

/* dma_mmap_pages() made by the driver's call @what: the kernel's checks of the offset and length, then a remap. */
static int mmap_pages_as(struct device *dev, struct vm_area_struct *vma, size_t size, struct page *page,
			 const char *what, const char *file, int line)
{
	unsigned long count = (unsigned long)(PAGE_ALIGN(size) >> PAGE_SHIFT), pages;

	if (!dm_dev_ok(dev, what, file, line))
		return -EINVAL;
	if (!vma || !vma->dmamap || !page || dm_page_machine(page) != dm_dev_machine(dev)) {
		dmamap_dev_report(dev, DMAMAP_REPORT_BAD_INPUT, file, line, "%s: %s; nothing mapped", what,
			  !vma || !vma->dmamap ? "not a vma from dmamap_vma_create"
			  : !page	       ? "NULL page"
					       : "not a page of the device's machine");
		return -EINVAL;
	}
	pages = (vma->vm_end - vma->vm_start) >> PAGE_SHIFT;
	/* an offset or length past the buffer is the user's mmap() asking too much: an error, not a misuse */
	if (vma->vm_pgoff >= count || pages > count - vma->vm_pgoff)
		return -ENXIO;
	return remap_pfn_range(vma, vma->vm_start, page_to_pfn(page) + vma->vm_pgoff, pages << PAGE_SHIFT,
			       vma->vm_page_prot);
}

DMAMAP_API int dmamap_linux_mmap_pages(struct device *dev, struct vm_area_struct *vma, size_t size, struct page *page,
				       const char *file, int line)
{
	return mmap_pages_as(dev, vma, size, page, "dma_mmap_pages", file, line);
}

DMAMAP_API int dmamap_linux_mmap_noncontiguous(struct device *dev, struct vm_area_struct *vma, size_t size,
					       struct sg_table *sgt, const char *file, int line)
{
	const char *what = "dma_mmap_noncontiguous";
	struct page *page = nc_block(dev, size, sgt, false, what, file, line);

	return page ? mmap_pages_as(dev, vma, size, page, what, file, line) : -EINVAL;
}

DMAMAP_API void dmamap_linux_vunmap_noncontiguous(struct device *dev, void *vaddr, const char *file, int line)
{
	struct dmamap_machine *m;
	bool found = false;

	if (!dm_dev_ok(dev, "dma_vunmap_noncontiguous", file, line))
		return;
	m = dm_dev_machine(dev);
	pthread_mutex_lock(&m->obj_lock);
	for (struct dm_noncontig *r = m->noncontig; r && !found; r = r->next) {
		if (r->dev == dev && r->vmaps && page_address(r->page) == vaddr) {
			r->vmaps--; /* the linear map itself: nothing to undo */
			found = true;
		}
	}
	pthread_mutex_unlock(&m->obj_lock);
	if (!found)
		dmamap_dev_report(dev, DMAMAP_REPORT_NOT_MAPPED, file, line,
			  "dma_vunmap_noncontiguous(%p): no kernel mapping dma_vmap_noncontiguous() gave this device is "
			  "there; ignored", vaddr);
}

/*
 * dma_sync_sgtable_for_cpu()/_for_device() of a live dma_alloc_noncontiguous()
 * table of @dev: its block is synced as the dma_alloc_pages() buffer it is,
 * in the direction it was allocated for. false: @sgt is no such table.
 */
static bool noncontig_sync(struct device *dev, struct sg_table *sgt, int dir, bool for_cpu, const char *file,
			   int line)
{
	const char *what = for_cpu ? "dma_sync_sgtable_for_cpu" : "dma_sync_sgtable_for_device";
	struct dmamap_machine *m;
	struct dm_noncontig *r;
	dma_addr_t h = 0;
	size_t size = 0;
	int was = DMA_NONE;

	if (!sgt || !dm_dev_live(dev))
		return false;
	m = dm_dev_machine(dev);
	pthread_mutex_lock(&m->obj_lock);
	r = nc_find(m, sgt);
	if (r && r->dev == dev) {
		h = r->handle;
		size = r->size;
		was = r->dir;
	}
	pthread_mutex_unlock(&m->obj_lock);
	if (!r || !size)
		return false;
	if (valid_dma_direction(dir) && was != DMA_BIDIRECTIONAL && dir != was)
		dmamap_dev_report(dev, DMAMAP_REPORT_SYNC_DIRECTION, file, line,
			  "%s with %s of a %s table from dma_alloc_noncontiguous: a sync names the allocation's "
			  "direction; refused", what, dmamap_dir_name(dir), dmamap_dir_name(was));
	else
		dm_sync_single_as(dev, h, size, dir, for_cpu, what, file, line);
	return true;
}

void dmamap_noncontig_device_gone(struct device *dev)
{
	struct dmamap_machine *m = dm_dev_machine(dev);
	struct dm_noncontig *gone = NULL, **pp;

	pthread_mutex_lock(&m->obj_lock);
	for (pp = &m->noncontig; *pp;) {
		struct dm_noncontig *r = *pp;

		if (r->dev != dev) {
			pp = &r->next;
			continue;
		}
		*pp = r->next;
		r->next = gone;
		gone = r;
	}
	pthread_mutex_unlock(&m->obj_lock);
	while (gone) {
		struct dm_noncontig *next = gone->next;

		dmamap_free(gone);
		gone = next;
	}
}

/* ------------------------------------------------------------- resources */

/* A device, direction and size a resource call can take, on the direct ops. */
static bool resource_ok(struct device *dev, int dir, size_t size, const char *what, const char *file, int line)
{
	if (!dm_dev_live(dev)) {
		dmamap_dev_report(dev, DMAMAP_REPORT_BAD_INPUT, file, line, "%s: %s", what,
			  dev ? "device not initialised" : "NULL device");
		return false;
	}
	if (!valid_dma_direction(dir) || !size) {
		dmamap_dev_report(dev, DMAMAP_REPORT_BAD_INPUT, file, line, "%s: %s", what,
			  !size ? "zero size" : "not a mapping direction");
		return false;
	}
	if (get_dma_ops(dev) != dev->dmamap.default_ops) {
		dmamap_dev_report(dev, DMAMAP_REPORT_API_MISUSE, file, line,
			  "%s: the device's ops set (dmabounce or the IOMMU mapper) maps no resources here", what);
		return false;
	}
	return true;
}

DMAMAP_API dma_addr_t dmamap_linux_map_resource(struct device *dev, phys_addr_t phys_addr, size_t size,
						enum dma_data_direction dir, unsigned long attrs, const char *file,
						int line)
{
	struct dmamap_machine *m;
	phys_addr_t last = phys_addr + size - 1;

	ATTRS("dma_map_resource", return DMA_MAPPING_ERROR);
	(void)ap_;
	if (!resource_ok(dev, (int)dir, size, "dma_map_resource", file, line))
		return DMA_MAPPING_ERROR;
	m = dm_dev_machine(dev);
	if (last < phys_addr) {
		dmamap_dev_report(dev, DMAMAP_REPORT_BAD_INPUT, file, line, "dma_map_resource: %#llx+%#zx wraps around",
			  (unsigned long long)phys_addr, size);
		return DMA_MAPPING_ERROR;
	}
	if (phys_addr < dm_ram_end(m) && last >= m->cfg.ram_base) {
		dmamap_dev_report(dev, DMAMAP_REPORT_API_MISUSE, file, line,
			  "dma_map_resource(%#llx+%#zx): that is RAM, not MMIO: map RAM with dma_map_page/dma_map_single "
			  "(a resource mapping does no cache maintenance)",
			  (unsigned long long)phys_addr, size);
		return DMA_MAPPING_ERROR;
	}
	if (!dev->dma_mask || last > *dev->dma_mask) {
		dmamap_dev_report(dev, DMAMAP_REPORT_API_MISUSE, file, line,
			  "dma_map_resource(%#llx+%#zx): beyond the device's DMA mask %#llx", (unsigned long long)phys_addr,
			  size, (unsigned long long)(dev->dma_mask ? *dev->dma_mask : 0));
		return DMA_MAPPING_ERROR;
	}
	return phys_addr;
}

DMAMAP_API void dmamap_linux_unmap_resource(struct device *dev, dma_addr_t addr, size_t size,
					    enum dma_data_direction dir, unsigned long attrs, const char *file, int line)
{
	ATTRS("dma_unmap_resource", return);
	(void)ap_;
	if (!resource_ok(dev, (int)dir, size, "dma_unmap_resource", file, line))
		return;
	if (addr == DMA_MAPPING_ERROR)
		dmamap_dev_report(dev, DMAMAP_REPORT_API_MISUSE, file, line, "dma_unmap_resource of a failed mapping");
}

/* ------------------------------------------------- helpers of later kernels */

static bool live_or_report(struct device *dev, const char *what)
{
	if (dm_dev_live(dev))
		return true;
	dmamap_dev_report(dev, DMAMAP_REPORT_BAD_INPUT, NULL, 0, "%s: %s", what, dev ? "device not initialised" : "NULL device");
	return false;
}

DMAMAP_API int dma_coerce_mask_and_coherent(struct device *dev, u64 mask)
{
	u64 *was;
	int err;

	if (!live_or_report(dev, "dma_coerce_mask_and_coherent"))
		return -EIO;
	was = dev->dma_mask;
	dev->dma_mask = &dev->coherent_dma_mask;
	err = dma_set_mask_and_coherent(dev, mask);
	if (err)
		dev->dma_mask = was;
	return err;
}

DMAMAP_API size_t dma_max_mapping_size(struct device *dev)
{
	return live_or_report(dev, "dma_max_mapping_size") ? SIZE_MAX : 0;
}

DMAMAP_API size_t dma_opt_mapping_size(struct device *dev)
{
	return live_or_report(dev, "dma_opt_mapping_size") ? SIZE_MAX : 0;
}

DMAMAP_API bool dma_addressing_limited(struct device *dev)
{
	if (!live_or_report(dev, "dma_addressing_limited"))
		return true;
	if (dev->archdata.mapping || dev->dmamap.iommu_domain)
		return false;
	return !dmamap_mask_covers_ram(dev, dma_get_mask(dev));
}

DMAMAP_API u64 dma_get_required_mask(struct device *dev)
{
	dma_addr_t last;

	if (!live_or_report(dev, "dma_get_required_mask") || dev->archdata.mapping)
		return DMA_BIT_MASK(32);
	/* dma_direct_get_required_mask(): all ones up to the top bit of RAM's last bus address */
	last = dm_phys_to_dma(dev, dm_ram_end(dm_dev_machine(dev)) - 1);
	return ~0ULL >> __builtin_clzll((unsigned long long)last | 1);
}

DMAMAP_API int dma_get_cache_alignment(void)
{
	struct dmamap_machine *m = dmamap_machine_current();
	unsigned line = m ? m->cfg.cache_line_size : 0;

	return (int)DM_MAX(line, (unsigned)DMAMAP_ARCH_DMA_MINALIGN);
}

DMAMAP_API bool dma_need_sync(struct device *dev, dma_addr_t dma_addr)
{
	const struct dma_map_ops *ops;

	(void)dma_addr;
	if (!live_or_report(dev, "dma_need_sync"))
		return true;
	ops = get_dma_ops(dev);
	if (ops == dev->dmamap.default_ops)
		return !dm_dev_coherent(dev);
	return ops->sync_single_for_cpu || ops->sync_single_for_device;
}

DMAMAP_API bool dma_need_unmap(struct device *dev)
{
	if (!live_or_report(dev, "dma_need_unmap"))
		return true;
	if (get_dma_ops(dev) != dev->dmamap.default_ops || !dm_dev_coherent(dev))
		return true;
	return dmamap_debug_on(dm_dev_machine(dev));
}

DMAMAP_API bool dma_can_mmap(struct device *dev)
{
	return live_or_report(dev, "dma_can_mmap") && get_dma_ops(dev)->mmap;
}
