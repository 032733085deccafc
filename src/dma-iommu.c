/* SPDX-License-Identifier: MIT */
/*
 * The ARM IOMMU mapper (arm_iommu_*): a dma_map_ops set that gives a device
 * bus addresses from its mapping's IOVA space and maps pages there through
 * the mapping's IOMMU domain.
 *
 * Every operation validates and allocates everything before it changes
 * anything visible, and unwinds what it did on failure: IOVA, page-table
 * entries, pages, kernel and user mappings. The IOVA of a streaming mapping
 * of n bytes at page offset o covers PAGE_ALIGN(o + n) bytes; the handle is
 * that IOVA + o, so an unmap (which passes the same size) finds exactly the
 * range allocated. Device permissions follow the direction: a TO_DEVICE
 * mapping is read-only to the device, FROM_DEVICE write-only.
 */
#include <stdio.h>
#include <string.h>

#include "internal.h"

static const struct dma_map_ops iommu_ops;

/* A coherent allocation made by the mapper, found again by its IOVA. */
struct iommu_buffer {
	const struct device *dev;    /* what it was allocated for: compared, never dereferenced */
	dma_addr_t iova;
	size_t size;                 /* page aligned */
	void *cpu_addr;              /* kernel mapping, or the pages array as cookie */
	struct page **pages;
	struct dmamap_vmregion *region;
	struct iommu_buffer *next;
};

/* A live range of dma_iova_try_alloc(), found again by its device and the state's addr and size. */
struct iova_range {
	const struct device *dev;    /* compared, never dereferenced */
	dma_addr_t iova;             /* page aligned */
	size_t len;                  /* page aligned */
	dma_addr_t addr;             /* the state's addr and __size */
	u64 size;
	u8 *linked;                  /* per page: 0, or the link's direction + 1 */
	size_t nr_linked;
	const char *file;            /* the allocation's caller */
	int line;
	struct iova_range *next;
};

/* The mapping's private part, behind the public struct. */
struct mapping_priv {
	struct dma_iommu_mapping pub;
	struct dmamap_obj obj;       /* on the machine's object list */
	pthread_mutex_t lock;        /* the buffer and range lists, attached, and kref changes */
	struct iommu_buffer *buffers;
	struct iova_range *ranges;
	unsigned long attached;      /* devices attached: references only their detach may drop */
};

static struct mapping_priv *priv_of(struct dma_iommu_mapping *mapping)
{
	return container_of(mapping, struct mapping_priv, pub);
}

static struct dma_iommu_mapping *dev_mapping(struct device *dev)
{
	return dev->archdata.mapping;
}

static int dir_prot(int dir)
{
	switch (dir) {
	case DMA_TO_DEVICE:
		return IOMMU_READ;
	case DMA_FROM_DEVICE:
		return IOMMU_WRITE;
	default:
		return IOMMU_READ | IOMMU_WRITE;
	}
}

static dma_addr_t alloc_iova(struct dma_iommu_mapping *mapping, size_t size)
{
	if (dmamap_should_fail(mapping->machine, DMAMAP_FAULT_IOVA))
		return DMA_MAPPING_ERROR;
	return dmamap_iova_alloc(mapping->iova, size);
}

/* Cache maintenance over [iova, iova + size) of a live mapping, page by page through the domain. */
static void maintain_iova(struct device *dev, dma_addr_t iova, size_t size, int dir, bool to_device)
{
	struct dmamap_machine *m = dm_dev_machine(dev);
	struct iommu_domain *domain = dev_mapping(dev)->domain;

	while (size) {
		size_t chunk = DM_MIN(size, PAGE_SIZE - (size_t)(iova & ~PAGE_MASK));
		phys_addr_t phys;

		if (!dmamap_iommu_lookup(domain, iova & PAGE_MASK, &phys, NULL)) {
			phys += iova & ~PAGE_MASK;
			if (to_device)
				dmamap_arm_cpu_to_dev(m, phys, chunk, dir);
			else
				dmamap_arm_dev_to_cpu(m, phys, chunk, dir);
		}
		iova += chunk;
		size -= chunk;
	}
}

static bool maintain(struct device *dev, struct dma_attrs *attrs)
{
	return !dm_dev_coherent(dev) && !dma_get_attr(DMA_ATTR_SKIP_CPU_SYNC, attrs);
}

/* A report of @kind against @dev, at @file:@line (NULL, 0: no caller's line). */
DMAMAP_PRINTF(5, 6)
static void refuse(struct device *dev, enum dmamap_report_kind kind, const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	dmamap_logv(dm_dev_machine(dev), DMAMAP_LOG_ERR, kind, dev->dmamap.name, file, line, fmt, ap);
	va_end(ap);
}

#define misuse(dev, ...) refuse((dev), DMAMAP_REPORT_API_MISUSE, NULL, 0, __VA_ARGS__)

/* ------------------------------------------------------------ streaming */

static dma_addr_t iommu_map_page(struct device *dev, struct page *page, unsigned long offset, size_t size,
				 enum dma_data_direction dir, struct dma_attrs *attrs)
{
	struct dma_iommu_mapping *mapping = dev_mapping(dev);
	size_t len;
	dma_addr_t iova;

	page += offset >> PAGE_SHIFT;
	offset &= ~PAGE_MASK;
	len = PAGE_ALIGN(offset + size);
	iova = alloc_iova(mapping, len);
	if (iova == DMA_MAPPING_ERROR) {
		dmamap_log(mapping->machine, DMAMAP_LOG_WARN, dev->dmamap.name, "IOVA space exhausted (%#zx bytes)", len);
		return DMA_MAPPING_ERROR;
	}
	if (dmamap_iommu_map_held(mapping->domain, (unsigned long)iova, page_to_phys(page), len, dir_prot((int)dir))) {
		dmamap_iova_free(mapping->iova, iova, len);
		return DMA_MAPPING_ERROR;
	}
	if (maintain(dev, attrs))
		dmamap_arm_cpu_to_dev(mapping->machine, page_to_phys(page) + offset, size, (int)dir);
	return iova + offset;
}

/* Tear down the IOVA range of a streaming mapping or segment: page tables, then the IOVA. */
static void remove_mapping(struct dma_iommu_mapping *mapping, dma_addr_t iova, size_t len)
{
	dmamap_iommu_unmap_held(mapping->domain, (unsigned long)iova, len);
	dmamap_iova_free(mapping->iova, iova, len);
}

/*
 * Why [handle, handle + size) is not a live streaming mapping made for @dir
 * (every page mapped, not one of a coherent buffer, with the permissions
 * @dir gives), or NULL. @whole: it must also be exactly one mapping's range,
 * as an unmap names it; else any part of one will do, as for a sync, and a
 * sync may also name a bidirectional mapping in either direction (as the
 * kernel allows) and a coherent buffer in any: a non-consistent one is
 * cached memory the driver syncs, and the direct ops accept the syncs of a
 * consistent one too. All in integers: the range must lie in the mapping's
 * window.
 */
static const char *streaming_refusal(struct dma_iommu_mapping *mapping, dma_addr_t handle, size_t size, int dir,
				     bool whole)
{
	dma_addr_t end;

	if (!size || handle < mapping->base || size > mapping->size || handle - mapping->base > mapping->size - size)
		return "is not inside the mapping's IOVA window";
	end = handle + size; /* <= base + size: no overflow (the window does not wrap) */
	for (dma_addr_t a = handle & PAGE_MASK; a < end; a += PAGE_SIZE) {
		phys_addr_t pa;
		int prot;

		if (dmamap_iommu_lookup(mapping->domain, a, &pa, &prot))
			return "is not a live mapping of this device";
		if (prot & DM_IOMMU_TAG) {
			if (whole)
				return "is a coherent buffer's (free it with dma_free_coherent)";
		} else if (prot != dir_prot(dir) && (whole || prot != dir_prot(DMA_BIDIRECTIONAL))) {
			return "has a direction other than the mapping's";
		}
	}
	if (whole && !dmamap_iova_owns(mapping->iova, handle & PAGE_MASK, PAGE_ALIGN((handle & ~PAGE_MASK) + size)))
		return "is not exactly one mapping (another size?)";
	return NULL;
}

/* Check a streaming range before anything is done to it; report and return false when it is refused. */
static bool streaming_ok(struct device *dev, dma_addr_t handle, size_t size, int dir, bool whole, const char *what)
{
	const char *why = streaming_refusal(dev_mapping(dev), handle, size, dir, whole);

	if (why)
		misuse(dev, "%s of %#llx+%#zx (%s) refused: it %s", what, (unsigned long long)handle, size,
		       dmamap_dir_name(dir), why);
	return !why;
}

static void iommu_unmap_page(struct device *dev, dma_addr_t handle, size_t size, enum dma_data_direction dir,
			     struct dma_attrs *attrs)
{
	if (!streaming_ok(dev, handle, size, (int)dir, true, "dma_unmap"))
		return;
	if (maintain(dev, attrs))
		maintain_iova(dev, handle, size, (int)dir, false);
	remove_mapping(dev_mapping(dev), handle & PAGE_MASK, PAGE_ALIGN((handle & ~PAGE_MASK) + size));
}

static void iommu_sync_single_for_cpu(struct device *dev, dma_addr_t handle, size_t size,
				      enum dma_data_direction dir)
{
	if (streaming_ok(dev, handle, size, (int)dir, false, "dma_sync_single_for_cpu") && maintain(dev, NULL))
		maintain_iova(dev, handle, size, (int)dir, false);
}

static void iommu_sync_single_for_device(struct device *dev, dma_addr_t handle, size_t size,
					 enum dma_data_direction dir)
{
	if (streaming_ok(dev, handle, size, (int)dir, false, "dma_sync_single_for_device") && maintain(dev, NULL))
		maintain_iova(dev, handle, size, (int)dir, true);
}

/* --------------------------------------------------------- scatterlists */

/* An entry's first page and in-page offset, normalised so offset < PAGE_SIZE. */
static struct page *sg_first_page(struct scatterlist *s, unsigned long *offset)
{
	*offset = s->offset & ~PAGE_MASK;
	return sg_page(s) + (s->offset >> PAGE_SHIFT);
}

/*
 * Map @n entries from @start as one IOVA range of @size bytes (counted from
 * the first entry's page start). Entries after the first start on a page
 * boundary and each but the last ends on one, so they lie back to back.
 */
static int map_chunk(struct device *dev, struct scatterlist *start, int n, size_t size, int dir,
		     dma_addr_t *iova_out)
{
	struct dma_iommu_mapping *mapping = dev_mapping(dev);
	size_t len = PAGE_ALIGN(size), mapped = 0;
	struct scatterlist *s = start;
	dma_addr_t iova;

	iova = alloc_iova(mapping, len);
	if (iova == DMA_MAPPING_ERROR)
		return -ENOMEM;
	for (int i = 0; i < n; i++, s = sg_next(s)) {
		unsigned long off;
		struct page *page = sg_first_page(s, &off);
		size_t plen = PAGE_ALIGN(off + s->length);
		int err = dmamap_iommu_map_held(mapping->domain, (unsigned long)(iova + mapped), page_to_phys(page),
						plen, dir_prot(dir));

		if (err) {
			if (mapped)
				dmamap_iommu_unmap_held(mapping->domain, (unsigned long)iova, mapped);
			dmamap_iova_free(mapping->iova, iova, len);
			return err;
		}
		mapped += plen;
	}
	*iova_out = iova;
	return 0;
}

/*
 * Map @n entries from @start, the first at @seg_off in its page, @seg_size
 * bytes from that page's start: as one DMA segment written to **@dma, or,
 * when that segment would cross the device's segment boundary, as one
 * segment per entry. *@dma and *@count move past what was written.
 */
static int map_segments(struct device *dev, struct scatterlist *start, int n, size_t seg_size, unsigned long seg_off,
			int dir, struct scatterlist **dma, int *count)
{
	dma_addr_t boundary = ~(dma_addr_t)dma_get_seg_boundary(dev), iova;
	struct scatterlist *s = start;

	if (map_chunk(dev, start, n, seg_size, dir, &iova))
		return -ENOMEM;
	if (n > 1 && ((iova + seg_off) & boundary) != ((iova + seg_size - 1) & boundary)) {
		remove_mapping(dev_mapping(dev), iova, PAGE_ALIGN(seg_size));
		for (int i = 0; i < n; i++, s = sg_next(s)) {
			unsigned long off;

			sg_first_page(s, &off);
			if (map_segments(dev, s, 1, off + s->length, off, dir, dma, count))
				return -ENOMEM;
		}
		return 0;
	}
	(*dma)->dma_address = iova + seg_off;
	(*dma)->dma_length = (unsigned int)(seg_size - seg_off);
	*dma = sg_next(*dma);
	(*count)++;
	return 0;
}

/* Undo segments [0, count) written to the first entries of @sg. */
static void unmap_segments(struct device *dev, struct scatterlist *sg, int count)
{
	struct scatterlist *s;
	int i;

	for_each_sg(sg, s, count, i) {
		dma_addr_t iova = sg_dma_address(s) & PAGE_MASK;

		remove_mapping(dev_mapping(dev), iova, PAGE_ALIGN((sg_dma_address(s) & ~PAGE_MASK) + sg_dma_len(s)));
	}
}

static int iommu_map_sg(struct device *dev, struct scatterlist *sg, int nents, enum dma_data_direction dir,
			struct dma_attrs *attrs)
{
	unsigned int max = dma_get_max_seg_size(dev);
	struct scatterlist *s, *start = sg, *dma = sg;
	unsigned long seg_off;
	size_t seg_size;
	int i, n = 0, count = 0;

	for_each_sg(sg, s, nents, i) {
		s->dma_address = DMA_MAPPING_ERROR;
		s->dma_length = 0;
	}
	sg_first_page(sg, &seg_off);
	seg_size = 0;
	for_each_sg(sg, s, nents, i) {
		unsigned long off;

		sg_first_page(s, &off);
		/* s continues the segment only if both meet on a page boundary and it stays under max */
		if (n && (off || (seg_size & ~PAGE_MASK) || seg_size - seg_off + s->length > max)) {
			if (map_segments(dev, start, n, seg_size, seg_off, (int)dir, &dma, &count))
				goto bad;
			start = s;
			n = 0;
			seg_off = off;
			seg_size = 0;
		}
		if (!n)
			seg_size = off;
		seg_size += s->length;
		n++;
	}
	if (map_segments(dev, start, n, seg_size, seg_off, (int)dir, &dma, &count))
		goto bad;
	if (maintain(dev, attrs)) {
		for_each_sg(sg, s, nents, i) {
			unsigned long off;
			struct page *page = sg_first_page(s, &off);

			dmamap_arm_cpu_to_dev(dm_dev_machine(dev), page_to_phys(page) + off, s->length, (int)dir);
		}
	}
	return count;

bad:
	unmap_segments(dev, sg, count);
	for_each_sg(sg, s, nents, i) {
		s->dma_address = DMA_MAPPING_ERROR;
		s->dma_length = 0;
	}
	return 0;
}

/* Each DMA segment of @sg (those with a length: map_sg wrote them first) is live, made for @dir. Reported if not. */
static bool segments_ok(struct device *dev, struct scatterlist *sg, int nents, int dir, bool whole, const char *what)
{
	struct scatterlist *s;
	int i;

	for_each_sg(sg, s, nents, i) {
		const char *why;

		if (!sg_dma_len(s))
			continue;
		why = streaming_refusal(dev_mapping(dev), sg_dma_address(s), sg_dma_len(s), dir, whole);
		if (why) {
			misuse(dev, "%s refused: segment %d (%#llx+%#x, %s) %s; nothing done", what, i,
			       (unsigned long long)sg_dma_address(s), sg_dma_len(s), dmamap_dir_name(dir), why);
			return false;
		}
	}
	return true;
}

static void iommu_unmap_sg(struct device *dev, struct scatterlist *sg, int nents, enum dma_data_direction dir,
			   struct dma_attrs *attrs)
{
	struct dma_iommu_mapping *mapping = dev_mapping(dev);
	struct scatterlist *s;
	int i;

	/* every segment must be live before anything is undone */
	if (!segments_ok(dev, sg, nents, (int)dir, true, "dma_unmap_sg"))
		return;
	if (maintain(dev, attrs)) {
		for_each_sg(sg, s, nents, i) {
			unsigned long off;
			struct page *page = sg_first_page(s, &off);

			dmamap_arm_dev_to_cpu(dm_dev_machine(dev), page_to_phys(page) + off, s->length, (int)dir);
		}
	}
	for_each_sg(sg, s, nents, i) {
		if (sg_dma_len(s))
			remove_mapping(mapping, sg_dma_address(s) & PAGE_MASK,
				       PAGE_ALIGN((sg_dma_address(s) & ~PAGE_MASK) + sg_dma_len(s)));
	}
}

static void iommu_sync_sg(struct device *dev, struct scatterlist *sg, int nents, int dir, bool to_device)
{
	struct scatterlist *s;
	int i;

	if (!segments_ok(dev, sg, nents, dir, false, to_device ? "dma_sync_sg_for_device" : "dma_sync_sg_for_cpu") ||
	    !maintain(dev, NULL))
		return;
	for_each_sg(sg, s, nents, i) {
		unsigned long off;
		struct page *page = sg_first_page(s, &off);

		if (to_device)
			dmamap_arm_cpu_to_dev(dm_dev_machine(dev), page_to_phys(page) + off, s->length, dir);
		else
			dmamap_arm_dev_to_cpu(dm_dev_machine(dev), page_to_phys(page) + off, s->length, dir);
	}
}

static void iommu_sync_sg_for_cpu(struct device *dev, struct scatterlist *sg, int nents, enum dma_data_direction dir)
{
	iommu_sync_sg(dev, sg, nents, (int)dir, false);
}

static void iommu_sync_sg_for_device(struct device *dev, struct scatterlist *sg, int nents,
				     enum dma_data_direction dir)
{
	iommu_sync_sg(dev, sg, nents, (int)dir, true);
}

/* ----------------------------------------------------------- allocations */

static void free_pages_array(struct page **pages, size_t count)
{
	for (size_t i = 0; i < count; i++)
		if (pages[i])
			dmamap_free_pages(pages[i], 0);
}

/* Zeroed pages: one contiguous block with FORCE_CONTIGUOUS, else order-0 pages. */
static struct page **alloc_buffer(struct device *dev, size_t size, gfp_t gfp, struct dma_attrs *attrs)
{
	struct dmamap_machine *m = dm_dev_machine(dev);
	size_t count = size >> PAGE_SHIFT;
	struct page **pages = dmamap_allocarray(m, count, sizeof(*pages));

	if (!pages)
		return NULL;
	gfp &= ~(__GFP_ZERO | __GFP_DMA | __GFP_HIGHMEM); /* behind an IOMMU any page will do */
	if (dma_get_attr(DMA_ATTR_FORCE_CONTIGUOUS, attrs)) {
		unsigned order = (unsigned)get_order(size);
		struct page *page = order < MAX_ORDER ? dm_alloc_pages(m, gfp, order) : NULL;

		if (!page)
			goto fail;
		split_page(page, order);
		for (size_t i = count; i < (1UL << order); i++)
			dmamap_free_pages(page + i, 0);
		for (size_t i = 0; i < count; i++)
			pages[i] = page + i;
	} else {
		for (size_t i = 0; i < count; i++) {
			pages[i] = dm_alloc_pages(m, gfp, 0);
			if (!pages[i])
				goto fail;
		}
	}
	for (size_t i = 0; i < count; i++) {
		if (dm_dev_coherent(dev))
			dm_cpu_store(m, page_address(pages[i]), NULL, 0, PAGE_SIZE);
		else
			dmamap_clear_buffer(m, page_to_phys(pages[i]), PAGE_SIZE);
	}
	return pages;

fail:
	free_pages_array(pages, count);
	dmamap_free(pages);
	return NULL;
}

/* Map @count pages at consecutive IOVAs from @iova; on failure nothing stays mapped. */
static int map_pages(struct dma_iommu_mapping *mapping, dma_addr_t iova, struct page **pages, size_t count)
{
	size_t done = 0;

	while (done < count) {
		size_t run = 1;
		int err;

		while (done + run < count && page_to_pfn(pages[done + run]) == page_to_pfn(pages[done]) + run)
			run++;
		err = dmamap_iommu_map_tagged(mapping->domain, (unsigned long)(iova + (done << PAGE_SHIFT)),
					      page_to_phys(pages[done]), run << PAGE_SHIFT,
					      IOMMU_READ | IOMMU_WRITE | DM_IOMMU_TAG);
		if (err) {
			if (done)
				dmamap_iommu_unmap_held(mapping->domain, (unsigned long)iova, done << PAGE_SHIFT);
			return err;
		}
		done += run;
	}
	return 0;
}

/* Cached for a coherent device and for DMA_ATTR_NON_CONSISTENT (the driver syncs), as on the direct ops. */
static bool cached(struct device *dev, struct dma_attrs *attrs)
{
	return dm_dev_coherent(dev) || dma_get_attr(DMA_ATTR_NON_CONSISTENT, attrs);
}

static pgprot_t kernel_prot(struct device *dev, struct dma_attrs *attrs)
{
	if (cached(dev, attrs))
		return PAGE_KERNEL;
	return dma_get_attr(DMA_ATTR_WRITE_COMBINE, attrs) ? pgprot_writecombine(PAGE_KERNEL)
							    : pgprot_dmacoherent(PAGE_KERNEL);
}

static void *iommu_alloc(struct device *dev, size_t size, dma_addr_t *handle, gfp_t gfp, struct dma_attrs *attrs)
{
	struct dma_iommu_mapping *mapping = dev_mapping(dev);
	struct mapping_priv *mp = priv_of(mapping);
	struct dmamap_machine *m = mapping->machine;
	size_t count;
	struct iommu_buffer *buf;
	dma_addr_t iova;

	count = size;
	size = dm_page_align_size(size);
	if (!size || (gfp & ~DM_GFP_KNOWN)) {
		dmamap_report(m, DMAMAP_REPORT_BAD_INPUT, dev->dmamap.name, NULL, 0, "dma_alloc: %s (size %#zx, gfp %#x)",
			      size ? "unknown gfp bits" : "the size cannot be rounded up to pages", count, gfp);
		return NULL;
	}
	/* up front: neither the IOVA window nor RAM could hold it */
	if (size > mapping->size || size > m->cfg.ram_size) {
		dmamap_log(m, DMAMAP_LOG_WARN, dev->dmamap.name, "dma_alloc: %#zx bytes exceed the IOVA window or RAM", size);
		return NULL;
	}
	count = size >> PAGE_SHIFT;
	buf = dmamap_zalloc(m, sizeof(*buf));
	if (!buf)
		return NULL;
	buf->pages = alloc_buffer(dev, size, gfp, attrs);
	if (!buf->pages)
		goto fail_buf;
	iova = alloc_iova(mapping, size);
	if (iova == DMA_MAPPING_ERROR)
		goto fail_pages;
	if (map_pages(mapping, iova, buf->pages, count))
		goto fail_iova;
	if (dma_get_attr(DMA_ATTR_NO_KERNEL_MAPPING, attrs)) {
		buf->cpu_addr = buf->pages; /* a cookie, as the kernel's: never to be dereferenced by the driver */
	} else if (cached(dev, attrs) && dma_get_attr(DMA_ATTR_FORCE_CONTIGUOUS, attrs)) {
		/* one cached block: its linear map, as iommu-dma's page_address() (dma_alloc_pages() needs it) */
		buf->cpu_addr = page_address(buf->pages[0]);
	} else {
		buf->region = dmamap_vmregion_alloc(m, size, __builtin_return_address(0));
		if (!buf->region)
			goto fail_map;
		if (dmamap_vmregion_map(m, buf->region, 0, buf->pages, 0, count, kernel_prot(dev, attrs))) {
			dmamap_vmregion_free(m, buf->region);
			goto fail_map;
		}
		buf->region->priv = buf->pages;
		buf->cpu_addr = (void *)buf->region->start;
	}
	buf->dev = dev;
	buf->iova = iova;
	buf->size = size;
	pthread_mutex_lock(&mp->lock);
	buf->next = mp->buffers;
	mp->buffers = buf;
	pthread_mutex_unlock(&mp->lock);
	*handle = iova;
	return buf->cpu_addr;

fail_map:
	dmamap_iommu_unmap_held(mapping->domain, (unsigned long)iova, size);
fail_iova:
	dmamap_iova_free(mapping->iova, iova, size);
fail_pages:
	free_pages_array(buf->pages, count);
	dmamap_free(buf->pages);
fail_buf:
	dmamap_free(buf);
	return NULL;
}

/*
 * The buffer of @dev allocated at @iova whose CPU address is @cpu_addr and
 * size at least @size (exactly, when @unlink, which takes it out: of two
 * racing frees only one gets it), or NULL and the reason in *why.
 */
static struct iommu_buffer *find_buffer(struct device *dev, dma_addr_t iova, const void *cpu_addr, size_t size,
					bool unlink, const char **why)
{
	struct mapping_priv *mp = priv_of(dev_mapping(dev));
	struct iommu_buffer **pp, *buf = NULL;

	*why = NULL;
	size = dm_page_align_size(size);
	pthread_mutex_lock(&mp->lock);
	for (pp = &mp->buffers; *pp; pp = &(*pp)->next)
		if ((*pp)->iova == iova)
			break;
	buf = *pp;
	if (!buf)
		*why = "not a coherent buffer of this mapping (freed already?)";
	else if (buf->cpu_addr != cpu_addr)
		*why = "the CPU address and the handle are not one buffer";
	else if (buf->dev != dev)
		*why = "the buffer belongs to another device";
	else if (!size || (unlink ? size != buf->size : size > buf->size))
		*why = unlink ? "the size differs from the buffer's" : "the size exceeds the buffer's";
	if (*why)
		buf = NULL;
	else if (unlink)
		*pp = buf->next;
	pthread_mutex_unlock(&mp->lock);
	return buf;
}

static struct iommu_buffer *buffer_of(struct device *dev, dma_addr_t iova, const void *cpu_addr, size_t size,
				      bool unlink, const char *what)
{
	const char *why;
	struct iommu_buffer *buf = find_buffer(dev, iova, cpu_addr, size, unlink, &why);

	if (!buf)
		misuse(dev, "%s of %p (handle %#llx, %#zx bytes) refused: %s", what, cpu_addr, (unsigned long long)iova,
		       size, why);
	return buf;
}

static void iommu_free(struct device *dev, size_t size, void *cpu_addr, dma_addr_t handle, struct dma_attrs *attrs)
{
	struct dma_iommu_mapping *mapping = dev_mapping(dev);
	struct iommu_buffer *buf = buffer_of(dev, handle, cpu_addr, size, true, dm_free_call("dma_free"));

	(void)attrs;
	if (!buf)
		return;
	if (buf->region)
		dmamap_vmregion_free(mapping->machine, buf->region);
	remove_mapping(mapping, buf->iova, buf->size);
	free_pages_array(buf->pages, buf->size >> PAGE_SHIFT);
	dmamap_free(buf->pages);
	dmamap_free(buf);
}

static int iommu_mmap(struct device *dev, struct vm_area_struct *vma, void *cpu_addr, dma_addr_t dma_addr,
		      size_t size, struct dma_attrs *attrs)
{
	struct iommu_buffer *buf = buffer_of(dev, dma_addr, cpu_addr, size, false, "dma_mmap");
	unsigned long nr_vma = (vma->vm_end - vma->vm_start) >> PAGE_SHIFT;
	unsigned long nr_pages = dm_page_align_size(size) >> PAGE_SHIFT;
	unsigned long off = vma->vm_pgoff;
	pgprot_t saved = vma->vm_page_prot;

	if (!buf)
		return -ENXIO;
	if (off >= nr_pages || nr_vma > nr_pages - off)
		return -ENXIO;
	if (!cached(dev, attrs))
		vma->vm_page_prot = dma_get_attr(DMA_ATTR_WRITE_COMBINE, attrs) ? pgprot_writecombine(vma->vm_page_prot)
									     : pgprot_dmacoherent(vma->vm_page_prot);
	for (unsigned long i = 0; i < nr_vma; i++) {
		int err = vm_insert_page(vma, vma->vm_start + (i << PAGE_SHIFT), buf->pages[off + i]);

		if (err) {
			dmamap_vma_zap(vma, vma->vm_start, i << PAGE_SHIFT);
			vma->vm_page_prot = saved;
			return err;
		}
	}
	return 0;
}

static int iommu_get_sgtable(struct device *dev, struct sg_table *sgt, void *cpu_addr, dma_addr_t dma_addr,
			     size_t size, struct dma_attrs *attrs)
{
	struct iommu_buffer *buf = buffer_of(dev, dma_addr, cpu_addr, size, false, "dma_get_sgtable");

	(void)attrs;
	if (!buf)
		return -ENXIO;
	return sg_alloc_table_from_pages(sgt, buf->pages, (unsigned int)(PAGE_ALIGN(size) >> PAGE_SHIFT), 0,
					 PAGE_ALIGN(size), GFP_KERNEL);
}

/* A device behind the mapping can address the whole IOVA window, whatever RAM is. */
static int iommu_dma_supported(struct device *dev, u64 mask)
{
	struct dma_iommu_mapping *mapping = dev_mapping(dev);

	return mask >= mapping->base + mapping->size - 1;
}

static int iommu_set_dma_mask(struct device *dev, u64 mask)
{
	if (!dev->dma_mask || !iommu_dma_supported(dev, mask))
		return -EIO;
	*dev->dma_mask = mask;
	return 0;
}

static const struct dma_map_ops iommu_ops = {
	.alloc = iommu_alloc,
	.free = iommu_free,
	.mmap = iommu_mmap,
	.get_sgtable = iommu_get_sgtable,
	.map_page = iommu_map_page,
	.unmap_page = iommu_unmap_page,
	.map_sg = iommu_map_sg,
	.unmap_sg = iommu_unmap_sg,
	.sync_single_for_cpu = iommu_sync_single_for_cpu,
	.sync_single_for_device = iommu_sync_single_for_device,
	.sync_sg_for_cpu = iommu_sync_sg_for_cpu,
	.sync_sg_for_device = iommu_sync_sg_for_device,
	.dma_supported = iommu_dma_supported,
	.set_dma_mask = iommu_set_dma_mask,
};

/* ------------------------------------------------ the IOVA-based DMA API */

/*
 * dma_iova_try_alloc() and its calls (Linux 6.17): a range of the mapping's
 * IOVA space a driver links pages into itself. Each live range has a
 * record on the mapping's list, with a byte per page saying whether it is
 * linked and in which direction, so a link, unlink or free can be checked
 * against what the range holds before anything changes.
 *
 * As in the kernel, a link does not sync the IOTLB (the IOMMU's
 * iotlb_sync_map): the pages it maps stay out of the domain's IOTLB, and a
 * device access there faults (reported, naming the link's line), until a
 * dma_iova_sync() over them. An unlink, a destroy and a free of linked pages
 * invalidate the IOTLB themselves, as the kernel's do.
 */

/*
 * The live range of @dev that @state names, with its mapping's lock held;
 * or NULL, with nothing held, after a report of @what at @file:@line.
 */
static struct iova_range *range_of(struct device *dev, const struct dma_iova_state *state, const char *what,
				   const char *file, int line)
{
	struct mapping_priv *mp;
	struct iova_range *r;
	const char *why = NULL;

	if (!dm_dev_live(dev) || !state) {
		dmamap_dev_report(dev, DMAMAP_REPORT_BAD_INPUT, file, line, "%s: %s", what,
				  state ? "NULL or uninitialised device" : "NULL state");
		return NULL;
	}
	if (!dev_mapping(dev)) {
		refuse(dev, DMAMAP_REPORT_API_MISUSE, file, line, "%s of IOVA %#llx+%#llx refused: the device is "
		       "not behind an IOMMU mapping (dma_iova_try_alloc() gives it no range)", what,
		       (unsigned long long)state->addr, (unsigned long long)state->__size);
		return NULL;
	}
	mp = priv_of(dev_mapping(dev));
	pthread_mutex_lock(&mp->lock);
	for (r = mp->ranges; r; r = r->next)
		if (r->addr == state->addr && r->size == state->__size)
			break;
	if (!r)
		why = "names no live dma_iova_try_alloc() range of the device (freed already, or never allocated)";
	else if (r->dev != dev)
		why = "is another device's range";
	if (!why)
		return r;
	pthread_mutex_unlock(&mp->lock);
	refuse(dev, DMAMAP_REPORT_API_MISUSE, file, line, "%s of IOVA %#llx+%#llx refused: the state %s", what,
	       (unsigned long long)state->addr, (unsigned long long)state->__size, why);
	return NULL;
}

static void range_unlock(struct device *dev)
{
	pthread_mutex_unlock(&priv_of(dev_mapping(dev))->lock);
}

/* Bytes from @offset after the state's addr, counted from the range's IOVA (past the end when they cannot be in it). */
static u64 range_rel(const struct iova_range *r, size_t offset)
{
	return offset > r->len ? (u64)r->len + 1 : (r->addr - r->iova) + offset;
}

/* Whether @size bytes at @rel (from the range's IOVA) lie in @r: then their pages' first index and count. */
static bool range_pages(const struct iova_range *r, u64 rel, size_t size, size_t *first, size_t *n)
{
	if (!size || rel > r->len || size > r->len - rel)
		return false;
	*first = (size_t)(rel >> PAGE_SHIFT);
	*n = (size_t)(PAGE_ALIGN(rel + size) >> PAGE_SHIFT) - *first;
	return true;
}

/* Unmap the linked pages of a range taken off its list, give its IOVA back and free the record. */
static void range_release(struct dma_iommu_mapping *mapping, struct iova_range *r)
{
	size_t pages = r->len >> PAGE_SHIFT;

	for (size_t i = 0; i < pages;) {
		size_t run = 0;

		while (i + run < pages && r->linked[i + run])
			run++;
		if (run)
			dmamap_iommu_unmap_held(mapping->domain, (unsigned long)(r->iova + (i << PAGE_SHIFT)),
						run << PAGE_SHIFT);
		i += run ? run : 1;
	}
	dmamap_iova_free(mapping->iova, r->iova, r->len);
	dmamap_free(r->linked);
	dmamap_free(r);
}

/* Take the range @state names off the mapping's list; NULL after a report. */
static struct iova_range *range_take(struct device *dev, const struct dma_iova_state *state, const char *what,
				     const char *file, int line)
{
	struct iova_range *r = range_of(dev, state, what, file, line), **pp;

	if (!r)
		return NULL;
	for (pp = &priv_of(dev_mapping(dev))->ranges; *pp != r; pp = &(*pp)->next)
		;
	*pp = r->next;
	range_unlock(dev);
	return r;
}

DMAMAP_API bool dmamap_linux_iova_try_alloc(struct device *dev, struct dma_iova_state *state, phys_addr_t phys,
					    size_t size, const char *file, int line)
{
	size_t pad = (size_t)(phys & ~PAGE_MASK), len;
	struct dma_iommu_mapping *mapping;
	struct mapping_priv *mp;
	struct iova_range *r;
	dma_addr_t iova;
	u8 *linked;
	DM_CALL();

	if (state)
		memset(state, 0, sizeof(*state));
	if (!dm_dev_live(dev) || !state) {
		dmamap_dev_report(dev, DMAMAP_REPORT_BAD_INPUT, file, line, "dma_iova_try_alloc: %s",
				  state ? "NULL or uninitialised device" : "NULL state");
		return false;
	}
	mapping = dev_mapping(dev);
	if (!mapping)
		return false; /* no IOMMU DMA domain: the driver maps with dma_map_page() */
	if (!size) {
		refuse(dev, DMAMAP_REPORT_API_MISUSE, file, line, "dma_iova_try_alloc of phys %#llx: size 0 (the "
		       "kernel WARNs); no range", (unsigned long long)phys);
		return false;
	}
	if (size > mapping->size)
		return false; /* no window holds it: exhausted */
	len = PAGE_ALIGN(size + pad);
	r = dmamap_zalloc(mapping->machine, sizeof(*r));
	linked = r ? dmamap_zalloc(mapping->machine, len >> PAGE_SHIFT) : NULL;
	iova = linked ? alloc_iova(mapping, len) : DMA_MAPPING_ERROR;
	if (iova == DMA_MAPPING_ERROR) {
		dmamap_free(linked);
		dmamap_free(r);
		return false;
	}
	*r = (struct iova_range){ .dev = dev, .iova = iova, .len = len, .addr = iova + pad, .size = size,
				  .linked = linked, .file = file, .line = line };
	mp = priv_of(mapping);
	pthread_mutex_lock(&mp->lock);
	r->next = mp->ranges;
	mp->ranges = r;
	pthread_mutex_unlock(&mp->lock);
	state->addr = r->addr;
	state->__size = size;
	return true;
}

DMAMAP_API int dmamap_linux_iova_link(struct device *dev, struct dma_iova_state *state, phys_addr_t phys,
				      size_t offset, size_t size, enum dma_data_direction dir, unsigned long attrs,
				      const char *file, int line)
{
	size_t pad = (size_t)(phys & ~PAGE_MASK), len, first = 0, n = 0;
	enum dmamap_report_kind kind = DMAMAP_REPORT_API_MISUSE;
	struct dma_attrs a, *ap;
	const char *why = NULL;
	struct iova_range *r;
	u64 rel;
	int err = -EINVAL;
	DM_CALL();

	if (!dmamap_lx_attrs(dev, attrs, &a, &ap, "dma_iova_link", file, line))
		return -EINVAL;
	if (dm_dev_live(dev) && (!valid_dma_direction((int)dir) || !size)) {
		refuse(dev, DMAMAP_REPORT_BAD_INPUT, file, line, "dma_iova_link of phys %#llx+%#zx: %s; refused",
		       (unsigned long long)phys, size, size ? "invalid direction" : "size 0");
		return -EINVAL;
	}
	if (dm_dev_live(dev) && pad && offset) {
		refuse(dev, DMAMAP_REPORT_API_MISUSE, file, line, "dma_iova_link of phys %#llx at offset %#zx "
		       "refused: a physical address not page aligned is linked at offset 0 only (the kernel's "
		       "WARN_ON_ONCE)", (unsigned long long)phys, offset);
		return -EIO;
	}
	r = range_of(dev, state, "dma_iova_link", file, line);
	if (!r)
		return -EINVAL;
	rel = range_rel(r, offset);
	if (size > r->len || rel < pad) {
		why = "they are outside the range allocated";
	} else {
		len = PAGE_ALIGN(size + pad);
		rel -= pad;
		if (rel & ~PAGE_MASK)
			why = "the IOVA they would start at is not page aligned (the physical address and the range "
			      "start at other page offsets)";
		else if (!range_pages(r, rel, len, &first, &n))
			why = "they are outside the range allocated";
		else if (!dm_phys_in_ram(dm_dev_machine(dev), phys - pad, len))
			why = "the physical pages are not RAM", kind = DMAMAP_REPORT_BAD_INPUT;
	}
	for (size_t i = first; !why && i < first + n; i++) {
		if (r->linked[i]) {
			why = "a page there is linked already";
			err = -EEXIST;
		}
	}
	if (!why) {
		err = dmamap_iommu_map_unsynced(dev_mapping(dev)->domain, (unsigned long)(r->iova + rel), phys - pad,
						n << PAGE_SHIFT, dir_prot((int)dir), file, line);
		if (!err) {
			memset(r->linked + first, (int)dir + 1, n);
			r->nr_linked += n;
			if (maintain(dev, ap))
				dmamap_arm_cpu_to_dev(dm_dev_machine(dev), phys - pad, n << PAGE_SHIFT, (int)dir);
		}
	}
	range_unlock(dev);
	if (why)
		refuse(dev, kind, file, line, "dma_iova_link of phys %#llx+%#zx at offset %#zx of IOVA %#llx+%#llx "
		       "refused: %s", (unsigned long long)phys, size, offset, (unsigned long long)state->addr,
		       (unsigned long long)state->__size, why);
	return err;
}

DMAMAP_API int dmamap_linux_iova_sync(struct device *dev, struct dma_iova_state *state, size_t offset, size_t size,
				      const char *file, int line)
{
	struct iova_range *r = range_of(dev, state, "dma_iova_sync", file, line);
	size_t first, n;
	bool in;
	DM_CALL();

	if (!r)
		return -EINVAL;
	in = range_pages(r, range_rel(r, offset), size, &first, &n);
	if (in)
		dmamap_iommu_sync_map(dev_mapping(dev)->domain, (unsigned long)(r->iova + (first << PAGE_SHIFT)),
				      n << PAGE_SHIFT);
	range_unlock(dev);
	if (in)
		return 0;
	refuse(dev, DMAMAP_REPORT_API_MISUSE, file, line, "dma_iova_sync of %#zx bytes at offset %#zx of IOVA "
	       "%#llx+%#llx refused: they are outside the range allocated", size, offset,
	       (unsigned long long)state->addr, (unsigned long long)state->__size);
	return -EINVAL;
}

/* dma_iova_unlink() as @what: whether the bytes were unlinked (else reported, nothing changed). */
static bool iova_unlink(struct device *dev, struct dma_iova_state *state, size_t offset, size_t size,
			enum dma_data_direction dir, unsigned long attrs, const char *what, const char *file, int line)
{
	enum dmamap_report_kind kind = DMAMAP_REPORT_API_MISUSE;
	struct dma_attrs a, *ap;
	const char *why = NULL;
	struct iova_range *r;
	size_t first = 0, n = 0;
	int linked_dir = DMA_NONE;

	if (!dmamap_lx_attrs(dev, attrs, &a, &ap, what, file, line))
		return false;
	if (dm_dev_live(dev) && !valid_dma_direction((int)dir)) {
		refuse(dev, DMAMAP_REPORT_BAD_INPUT, file, line, "%s of %#zx bytes at offset %#zx: invalid direction; "
		       "refused", what, size, offset);
		return false;
	}
	r = range_of(dev, state, what, file, line);
	if (!r)
		return false;
	if (!range_pages(r, range_rel(r, offset), size, &first, &n))
		why = "they are outside the range allocated";
	for (size_t i = first; !why && i < first + n; i++) {
		if (!r->linked[i]) {
			why = "a page there is not linked (the kernel WARNs)";
			kind = DMAMAP_REPORT_NOT_MAPPED;
		} else if (r->linked[i] != (int)dir + 1) {
			why = "a page there was linked with another direction";
			kind = DMAMAP_REPORT_DIR_MISMATCH;
			linked_dir = r->linked[i] - 1;
		}
	}
	if (!why) {
		if (maintain(dev, ap))
			maintain_iova(dev, r->addr + offset, size, (int)dir, false);
		dmamap_iommu_unmap_held(dev_mapping(dev)->domain, (unsigned long)(r->iova + (first << PAGE_SHIFT)),
					n << PAGE_SHIFT);
		memset(r->linked + first, 0, n);
		r->nr_linked -= n;
	}
	range_unlock(dev);
	if (why)
		refuse(dev, kind, file, line, "%s of %#zx bytes at offset %#zx of IOVA %#llx+%#llx (%s) refused: %s%s%s",
		       what, size, offset, (unsigned long long)state->addr, (unsigned long long)state->__size,
		       dmamap_dir_name((int)dir), why, linked_dir != DMA_NONE ? ", " : "",
		       linked_dir != DMA_NONE ? dmamap_dir_name(linked_dir) : "");
	return !why;
}

DMAMAP_API void dmamap_linux_iova_unlink(struct device *dev, struct dma_iova_state *state, size_t offset,
					 size_t size, enum dma_data_direction dir, unsigned long attrs,
					 const char *file, int line)
{
	DM_CALL();

	(void)iova_unlink(dev, state, offset, size, dir, attrs, "dma_iova_unlink", file, line);
}

static void iova_free(struct device *dev, struct dma_iova_state *state, const char *what, const char *file, int line)
{
	struct iova_range *r = range_take(dev, state, what, file, line);

	if (!r)
		return;
	if (r->nr_linked)
		refuse(dev, DMAMAP_REPORT_API_MISUSE, file, line, "%s of IOVA %#llx+%#llx: %zu page%s still linked: "
		       "all regions must have been unmapped with dma_iova_unlink() before dma_iova_free(); "
		       "unmapping them", what, (unsigned long long)r->addr, (unsigned long long)r->size,
		       r->nr_linked, r->nr_linked == 1 ? "" : "s");
	range_release(dev_mapping(dev), r);
}

DMAMAP_API void dmamap_linux_iova_free(struct device *dev, struct dma_iova_state *state, const char *file, int line)
{
	DM_CALL();

	iova_free(dev, state, "dma_iova_free", file, line);
}

DMAMAP_API void dmamap_linux_iova_destroy(struct device *dev, struct dma_iova_state *state, size_t mapped_len,
					  enum dma_data_direction dir, unsigned long attrs, const char *file, int line)
{
	DM_CALL();

	if (mapped_len && !iova_unlink(dev, state, 0, mapped_len, dir, attrs, "dma_iova_destroy", file, line))
		return;
	iova_free(dev, state, "dma_iova_destroy", file, line);
}

/* The ranges @dev left at its detach: each a leak at its dma_iova_try_alloc() line, unmapped and freed. */
static void free_leftover_ranges(struct device *dev, struct dma_iommu_mapping *mapping)
{
	struct mapping_priv *mp = priv_of(mapping);

	for (;;) {
		struct iova_range **pp, *r;

		pthread_mutex_lock(&mp->lock);
		for (pp = &mp->ranges; *pp && (*pp)->dev != dev; pp = &(*pp)->next)
			;
		r = *pp;
		if (r)
			*pp = r->next;
		pthread_mutex_unlock(&mp->lock);
		if (!r)
			break;
		dmamap_dev_report(dev, DMAMAP_REPORT_LEAK, r->file, r->line, "dma_iova_try_alloc of IOVA %#llx+%#llx "
				  "(%zu page%s linked) never given back (dma_iova_destroy() or dma_iova_free()) before "
				  "arm_iommu_detach_device; freeing it", (unsigned long long)r->addr,
				  (unsigned long long)r->size, r->nr_linked, r->nr_linked == 1 ? "" : "s");
		range_release(mapping, r);
	}
}

/*
 * Each live range is one IOVA allocation whose pages are mapped exactly
 * where it says they are linked. Return the granules of the ranges with
 * nothing linked: allocated, and mapped by no page-table entry.
 */
static unsigned long check_ranges(struct mapping_priv *mp, struct dm_check *c, unsigned gshift)
{
	struct dma_iommu_mapping *mapping = &mp->pub;
	unsigned long unlinked = 0;

	pthread_mutex_lock(&mp->lock);
	for (struct iova_range *r = mp->ranges; r; r = r->next) {
		size_t pages = r->len >> PAGE_SHIFT, per = (size_t)1 << (gshift - PAGE_SHIFT), linked = 0;

		if (!dmamap_iova_owns(mapping->iova, r->iova, r->len))
			dm_check_fail(c, DMAMAP_CHECK_IOVA, "IOMMU mapping %#llx+%#zx: IOVA range %#llx+%#zx of "
				      "dma_iova_try_alloc is not one IOVA allocation", (unsigned long long)mapping->base,
				      mapping->size, (unsigned long long)r->iova, r->len);
		for (size_t i = 0; i < pages; i++) {
			phys_addr_t pa;
			bool mapped = !dmamap_iommu_lookup(mapping->domain, r->iova + ((u64)i << PAGE_SHIFT), &pa, NULL);

			if (mapped != !!r->linked[i]) {
				dm_check_fail(c, DMAMAP_CHECK_IOVA, "IOMMU mapping %#llx+%#zx: page %zu of IOVA range %#llx "
					      "is %s", (unsigned long long)mapping->base, mapping->size, i,
					      (unsigned long long)r->iova,
					      mapped ? "mapped but not linked" : "linked but not mapped");
				break;
			}
			linked += mapped;
		}
		if (linked != r->nr_linked)
			dm_check_fail(c, DMAMAP_CHECK_IOVA, "IOMMU mapping %#llx+%#zx: IOVA range %#llx counts %zu pages "
				      "linked, %zu are", (unsigned long long)mapping->base, mapping->size,
				      (unsigned long long)r->iova, r->nr_linked, linked);
		for (size_t g = 0; g < pages; g += per) {
			size_t i = g;

			while (i < pages && i < g + per && !r->linked[i])
				i++;
			if (i == pages || i == g + per)
				unlinked++;
		}
	}
	pthread_mutex_unlock(&mp->lock);
	return unlinked;
}

/* ------------------------------------------------------------ mappings */

static void free_buffer(struct dma_iommu_mapping *mapping, struct iommu_buffer *b)
{
	if (b->region)
		dmamap_vmregion_free(mapping->machine, b->region);
	free_pages_array(b->pages, b->size >> PAGE_SHIFT);
	dmamap_free(b->pages);
	dmamap_free(b);
}

/* Free the coherent buffers still allocated (reported as a leak by @why); their IOVAs stay allocated. */
static void free_leftover_buffers(struct mapping_priv *mp, const char *why)
{
	unsigned long n = 0;

	pthread_mutex_lock(&mp->lock);
	for (struct iommu_buffer *b = mp->buffers; b; b = b->next)
		n++;
	pthread_mutex_unlock(&mp->lock);
	if (!n)
		return;
	dmamap_report(mp->pub.machine, DMAMAP_REPORT_LEAK, NULL, NULL, 0,
		      "IOMMU mapping %#llx+%#zx %s with %lu coherent buffer%s still allocated; freeing them",
		      (unsigned long long)mp->pub.base, mp->pub.size, why, n, n == 1 ? "" : "s");
	for (;;) {
		struct iommu_buffer *b;

		pthread_mutex_lock(&mp->lock);
		b = mp->buffers;
		if (b)
			mp->buffers = b->next;
		pthread_mutex_unlock(&mp->lock);
		if (!b)
			break;
		free_buffer(&mp->pub, b);
	}
}

/* The machine is going (its devices already released): give back its memory; the struct stays the owner's. */
static void mapping_machine_gone(struct dmamap_obj *o)
{
	struct mapping_priv *mp = container_of(o, struct mapping_priv, obj);

	dmamap_report(mp->pub.machine, DMAMAP_REPORT_LEAK, NULL, NULL, 0,
		      "IOMMU mapping %#llx+%#zx still referenced (%d) at machine destroy (arm_iommu_release_mapping() "
		      "it to free it)", (unsigned long long)mp->pub.base, mp->pub.size, mp->pub.kref);
	free_leftover_buffers(mp, "destroyed with its machine");
	dmamap_iommu_domain_kill(mp->pub.domain);
	__atomic_store_n(&mp->pub.machine, NULL, __ATOMIC_RELEASE);
}

struct leaf_walk {
	struct dma_iommu_mapping *mapping;
	struct dm_check *c;
	unsigned gshift;
	u64 last_granule;
	unsigned long granules;
	bool any, bad;
};

/* Each mapped page of the window lies in an allocated granule; count the granules touched. */
static void check_leaf(void *arg, u64 iova, u64 size, phys_addr_t pa)
{
	struct leaf_walk *w = arg;
	struct dma_iommu_mapping *mapping = w->mapping;
	u64 g;

	(void)pa;
	if (iova < mapping->base || iova - mapping->base >= mapping->size || size > mapping->size - (iova - mapping->base)) {
		if (!w->bad)
			dm_check_fail(w->c, DMAMAP_CHECK_IOVA, "IOMMU mapping %#llx+%#zx: iova %#llx+%#llx is mapped outside "
				      "the window", (unsigned long long)mapping->base, mapping->size,
				      (unsigned long long)iova, (unsigned long long)size);
		w->bad = true;
		return;
	}
	for (g = (iova - mapping->base) >> w->gshift; g <= (iova + size - 1 - mapping->base) >> w->gshift; g++) {
		if (w->any && g == w->last_granule)
			continue;
		if (!dmamap_iova_is_allocated(mapping->iova, mapping->base + (g << w->gshift)) && !w->bad) {
			dm_check_fail(w->c, DMAMAP_CHECK_IOVA, "IOMMU mapping %#llx+%#zx: iova %#llx is mapped but not "
				      "allocated", (unsigned long long)mapping->base, mapping->size,
				      (unsigned long long)(mapping->base + (g << w->gshift)));
			w->bad = true;
		}
		w->any = true;
		w->last_granule = g;
		w->granules++;
	}
}

static void mapping_check(struct dmamap_obj *o, struct dm_check *c)
{
	struct mapping_priv *mp = container_of(o, struct mapping_priv, obj);
	struct dma_iommu_mapping *mapping = &mp->pub;
	struct leaf_walk w = { .mapping = mapping, .c = c, .gshift = PAGE_SHIFT + mapping->order };
	struct dmamap_iova_stats st;
	unsigned long unlinked;

	dmamap_iommu_domain_check(mapping->domain, c);
	dmamap_iommu_for_each_leaf(mapping->domain, check_leaf, &w);
	unlinked = check_ranges(mp, c, w.gshift);
	dmamap_iova_stats(mapping->iova, &st);
	if (!w.bad && w.granules + unlinked != st.used_granules)
		dm_check_fail(c, DMAMAP_CHECK_IOVA, "IOMMU mapping %#llx+%#zx: %lu IOVA granules allocated, %lu mapped "
			      "(a leaked IOVA, or a mapping torn down without its IOVA)", (unsigned long long)mapping->base,
			      mapping->size, st.used_granules, w.granules);

	pthread_mutex_lock(&mp->lock);
	for (struct iommu_buffer *b = mp->buffers; b; b = b->next) {
		if (!dmamap_iova_owns(mapping->iova, b->iova, b->size))
			dm_check_fail(c, DMAMAP_CHECK_IOVA, "IOMMU mapping %#llx+%#zx: coherent buffer %#llx+%#zx is not "
				      "one IOVA allocation", (unsigned long long)mapping->base, mapping->size,
				      (unsigned long long)b->iova, b->size);
		for (size_t i = 0; i < b->size >> PAGE_SHIFT; i++) {
			phys_addr_t pa;
			int prot;

			if (dmamap_iommu_lookup(mapping->domain, b->iova + (i << PAGE_SHIFT), &pa, &prot) ||
			    pa != page_to_phys(b->pages[i]) || !(prot & DM_IOMMU_TAG) || !PageFlag(b->pages[i], PG_head)) {
				dm_check_fail(c, DMAMAP_CHECK_IOVA, "IOMMU mapping %#llx+%#zx: page %zu of coherent buffer "
					      "%#llx is not mapped to its allocated page", (unsigned long long)mapping->base,
					      mapping->size, i, (unsigned long long)b->iova);
				break;
			}
		}
		if (b->region && (dmamap_vmregion_find(mapping->machine, b->cpu_addr) != b->region ||
				  b->region->priv != b->pages))
			dm_check_fail(c, DMAMAP_CHECK_IOVA, "IOMMU mapping %#llx+%#zx: coherent buffer %#llx lost its "
				      "kernel mapping", (unsigned long long)mapping->base, mapping->size,
				      (unsigned long long)b->iova);
	}
	pthread_mutex_unlock(&mp->lock);
}

static void mapping_census(struct dmamap_obj *o, struct dm_census *cs)
{
	struct mapping_priv *mp = container_of(o, struct mapping_priv, obj);
	struct dmamap_iova_stats st;

	dmamap_iommu_domain_census(mp->pub.domain, cs);
	dmamap_iova_stats(mp->pub.iova, &st);
	cs->v[DM_CENSUS_IOVA] += st.used_granules;
	pthread_mutex_lock(&mp->lock);
	for (struct iommu_buffer *b = mp->buffers; b; b = b->next)
		cs->v[DM_CENSUS_IOMMU_BUFFERS]++;
	pthread_mutex_unlock(&mp->lock);
}

static void mapping_shrink(struct dmamap_obj *o)
{
	dmamap_iommu_domain_shrink(container_of(o, struct mapping_priv, obj)->pub.domain);
}

static const struct dmamap_obj_ops mapping_obj_ops = {
	.name = "IOMMU mapping",
	.machine_gone = mapping_machine_gone,
	.check = mapping_check,
	.census = mapping_census,
	.shrink = mapping_shrink,
};

DMAMAP_API struct dma_iommu_mapping *arm_iommu_create_mapping(struct dmamap_machine *m, dma_addr_t base, size_t size,
							       int order)
{
	struct mapping_priv *mp;
	u64 granule;

	if (!m || order < 0 || order > 20 || !size) {
		dmamap_report(m, DMAMAP_REPORT_BAD_INPUT, NULL, NULL, 0,
			      "arm_iommu_create_mapping(base %#llx, size %#zx, order %d): bad arguments",
			      (unsigned long long)base, size, order);
		return ERR_PTR(-EINVAL);
	}
	granule = (u64)PAGE_SIZE << order;
	if (size % granule || base % granule || base + size - 1 < base ||
	    base + size - 1 >= (1ULL << DMAMAP_IOMMU_IOVA_BITS)) {
		dmamap_report(m, DMAMAP_REPORT_BAD_INPUT, NULL, NULL, 0,
			      "arm_iommu_create_mapping(base %#llx, size %#zx, order %d): not granule multiples, or "
			      "beyond the IOMMU's %d-bit space",
			      (unsigned long long)base, size, order, DMAMAP_IOMMU_IOVA_BITS);
		return ERR_PTR(-EINVAL);
	}
	mp = dmamap_zalloc(m, sizeof(*mp));
	if (!mp)
		return ERR_PTR(-ENOMEM);
	mp->pub.iova = dmamap_iova_create(base, size, (unsigned)order);
	if (!mp->pub.iova)
		goto nomem;
	mp->pub.domain = dmamap_iommu_domain_create(m);
	if (!mp->pub.domain)
		goto nomem;
	pthread_mutex_init(&mp->lock, NULL);
	mp->pub.base = base;
	mp->pub.size = size;
	mp->pub.order = (unsigned)order;
	mp->pub.machine = m;
	mp->pub.kref = 1;
	dmamap_obj_add(m, &mp->obj, &mapping_obj_ops);
	dmamap_obj_own(&mp->obj, &mp->pub, DM_OBJ_MAPPING);
	return &mp->pub;

nomem:
	dmamap_iova_destroy(mp->pub.iova);
	dmamap_free(mp);
	return ERR_PTR(-ENOMEM);
}

/* Drop a reference; free the mapping with the last one. @detach: the reference of a device being detached. */
static void put_mapping(struct dma_iommu_mapping *mapping, bool detach)
{
	struct mapping_priv *mp = priv_of(mapping);
	unsigned long attached;
	int left = -1;

	pthread_mutex_lock(&mp->lock);
	attached = mp->attached - (detach ? 1 : 0);
	if (mapping->kref > (int)attached) {
		mp->attached = attached;
		left = --mapping->kref;
	}
	pthread_mutex_unlock(&mp->lock);
	if (left < 0) {
		/* only attached devices hold references: this release is one too many */
		dmamap_report(mapping->machine, DMAMAP_REPORT_API_MISUSE, NULL, NULL, 0,
			      "arm_iommu_release_mapping: mapping %#llx+%#zx released once too often: %lu device%s "
			      "still attached; refused", (unsigned long long)mapping->base, mapping->size, attached,
			      attached == 1 ? "" : "s");
		return;
	}
	if (dmamap_obj_dead(&mp->obj))
		dmamap_obj_dead_report(&mp->obj, "arm_iommu_release_mapping");
	if (left)
		return;
	if (!dmamap_obj_dead(&mp->obj)) {
		dmamap_obj_del(&mp->obj);
		free_leftover_buffers(mp, "released");
	}
	dmamap_iommu_domain_destroy(mapping->domain);
	/* a mapping that outlived its machine reports to the process-wide log */
	dmamap_iova_destroy_in(mapping->iova, dmamap_obj_dead(&mp->obj) ? NULL : mapping->machine);
	pthread_mutex_destroy(&mp->lock);
	dmamap_obj_disown(&mp->obj);
	dmamap_free(mp);
}

DMAMAP_API void arm_iommu_release_mapping(struct dma_iommu_mapping *mapping)
{
	if (IS_ERR_OR_NULL(mapping) ||
	    !dmamap_obj_owned(mapping, "arm_iommu_release_mapping", DM_OBJ_MAPPING, NULL, 0))
		return;
	put_mapping(mapping, false);
}

DMAMAP_API int arm_iommu_attach_device(struct device *dev, struct dma_iommu_mapping *mapping)
{
	struct mapping_priv *mp;
	int err;

	if (!IS_ERR_OR_NULL(mapping) && !dmamap_obj_owned(mapping, "arm_iommu_attach_device", DM_OBJ_MAPPING, NULL, 0))
		return -EINVAL;
	if (!IS_ERR_OR_NULL(mapping) && dmamap_obj_dead(&priv_of(mapping)->obj)) {
		dmamap_obj_dead_report(&priv_of(mapping)->obj, "arm_iommu_attach_device");
		return -ENODEV;
	}
	if (!dm_dev_live(dev) || IS_ERR_OR_NULL(mapping) || mapping->machine != dm_dev_machine(dev)) {
		dmamap_report(dm_dev_live(dev) ? dm_dev_machine(dev) : NULL, DMAMAP_REPORT_BAD_INPUT,
			      dm_dev_live(dev) ? dev->dmamap.name : NULL, NULL, 0,
			      "arm_iommu_attach_device: bad device or mapping");
		return -EINVAL;
	}
	if (dev->archdata.mapping || dev->archdata.dmabounce)
		return -EBUSY;
	err = iommu_attach_device(mapping->domain, dev);
	if (err)
		return err;
	mp = priv_of(mapping);
	pthread_mutex_lock(&mp->lock);
	mapping->kref++;
	mp->attached++;
	pthread_mutex_unlock(&mp->lock);
	dev->archdata.mapping = mapping;
	set_dma_ops(dev, &iommu_ops);
	dmamap_log(mapping->machine, DMAMAP_LOG_INFO, dev->dmamap.name, "attached to IOMMU mapping %#llx+%#zx",
		   (unsigned long long)mapping->base, mapping->size);
	return 0;
}

DMAMAP_API void arm_iommu_detach_device(struct device *dev)
{
	struct dma_iommu_mapping *mapping;

	if (!dm_dev_live(dev) || !dev->archdata.mapping) {
		dmamap_report(dm_dev_live(dev) ? dm_dev_machine(dev) : NULL, DMAMAP_REPORT_API_MISUSE,
			      dm_dev_live(dev) ? dev->dmamap.name : NULL, NULL, 0,
			      "arm_iommu_detach_device: device not attached to an IOMMU mapping");
		return;
	}
	mapping = dev->archdata.mapping;
	if (dmamap_debug_on(dm_dev_machine(dev)))
		dmamap_debug_detach_leaks(dev);
	free_leftover_ranges(dev, mapping);
	set_dma_ops(dev, NULL);
	dev->archdata.mapping = NULL;
	iommu_detach_device(mapping->domain, dev);
	put_mapping(mapping, true);
}
