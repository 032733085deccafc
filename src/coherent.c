/* SPDX-License-Identifier: MIT */
/*
 * Sources of coherent memory other than the plain page allocator: a device's
 * declared memory, the machine's contiguous (CMA-like) area, and the atomic
 * pool that serves non-blocking requests without remapping.
 */
#include <stdio.h>
#include <stdlib.h>

#include "internal.h"

#define ATOMIC_POOL_ORDER 6 /* 256 KiB, as ARM's default atomic pool */
#define CMA_MIN_PAGES 16
#define CMA_MAX_ALIGN_ORDER 8

struct dm_bitmap {
	unsigned long *map;
	unsigned long bits;
	unsigned long free;
};

static bool bm_test(const struct dm_bitmap *b, unsigned long i)
{
	return (b->map[i / BITS_PER_LONG] >> (i % BITS_PER_LONG)) & 1UL;
}

static void bm_assign(struct dm_bitmap *b, unsigned long start, unsigned long n, bool set)
{
	for (unsigned long i = start; i < start + n; i++) {
		if (set)
			b->map[i / BITS_PER_LONG] |= 1UL << (i % BITS_PER_LONG);
		else
			b->map[i / BITS_PER_LONG] &= ~(1UL << (i % BITS_PER_LONG));
	}
	if (set)
		b->free -= n;
	else
		b->free += n;
}

/* First free run of @n bits starting at a multiple of @align; -1 if none. */
static long bm_find(const struct dm_bitmap *b, unsigned long n, unsigned long align)
{
	unsigned long start = 0;

	while (start + n <= b->bits) {
		unsigned long i;

		for (i = 0; i < n && !bm_test(b, start + i); i++)
			;
		if (i == n)
			return (long)start;
		start = DM_ALIGN_UP(start + i + 1, align);
	}
	return -1;
}

static bool bm_all(const struct dm_bitmap *b, unsigned long start, unsigned long n, bool set)
{
	if (start > b->bits || n > b->bits - start)
		return false;
	for (unsigned long i = start; i < start + n; i++)
		if (bm_test(b, i) != set)
			return false;
	return true;
}

static int bm_init(struct dm_bitmap *b, unsigned long bits)
{
	b->map = calloc(bits / BITS_PER_LONG + 1, sizeof(long));
	b->bits = bits;
	b->free = bits;
	return b->map ? 0 : -ENOMEM;
}

/* ------------------------------------------------------- machine-wide state */

/*
 * A coherent buffer made of pages from the page allocator or the contiguous
 * area: the record its free must match (first page, length, device, the
 * address the driver was given). Kept in a hash by first page frame.
 */
struct dm_cbuf {
	struct dm_cbuf *next;
	unsigned long pfn;
	unsigned long count;       /* pages */
	const struct device *dev;  /* compared, never dereferenced */
	const void *cpu_addr;
	bool unchecked;            /* made while the DMA-API checker was off: it never knew it */
};

#define CBUF_BUCKETS 256

struct dm_coherent {
	pthread_mutex_t lock;
	struct dm_cbuf *bufs[CBUF_BUCKETS];
	unsigned long nr_bufs;
	/* contiguous area: pages [cma_first, cma_first + cma.bits) */
	unsigned long cma_first;
	struct dm_bitmap cma;
	unsigned long *cma_len; /* per area page: pages of the allocation starting there */
	/* atomic pool */
	struct page *pool_page;
	struct dmamap_vmregion *pool_region;
	struct dm_bitmap pool;
	unsigned long *pool_len; /* per pool page: pages of the allocation starting there */
	const struct device **pool_owner; /* per pool page: the device the allocation starting there is for */
	bool *pool_unchecked;    /* per pool page: that allocation was made while the checker was off */
	unsigned long counts[DM_SRC_FAILED + 1];
};

static struct dm_coherent *coh(struct dmamap_machine *m)
{
	return m->layer[DMAMAP_LAYER_COHERENT];
}

/* The pool is made once, in blocking context (device init): uncached, in the DMA zone. */
static void atomic_pool_create(struct dmamap_machine *m, struct dm_coherent *c)
{
	unsigned long pages = 1UL << ATOMIC_POOL_ORDER;
	struct page *page;
	struct dmamap_vmregion *r;

	if (m->cfg.coherent)
		return;
	page = dm_alloc_pages(m, GFP_KERNEL | __GFP_DMA | __GFP_NOWARN, ATOMIC_POOL_ORDER);
	if (!page)
		goto fail;
	dmamap_clear_buffer(m, page_to_phys(page), pages << PAGE_SHIFT);
	r = dmamap_vmregion_alloc(m, pages << PAGE_SHIFT, (const void *)atomic_pool_create);
	if (!r)
		goto fail_pages;
	if (dmamap_vmregion_map(m, r, 0, NULL, page_to_pfn(page), pages, pgprot_dmacoherent(PAGE_KERNEL)))
		goto fail_region;
	c->pool_len = calloc(pages, sizeof(*c->pool_len));
	c->pool_owner = calloc(pages, sizeof(*c->pool_owner));
	c->pool_unchecked = calloc(pages, sizeof(*c->pool_unchecked));
	if (!c->pool_len || !c->pool_owner || !c->pool_unchecked || bm_init(&c->pool, pages))
		goto fail_map;
	c->pool_page = page;
	c->pool_region = r;
	return;

fail_map:
	free(c->pool_len);
	free(c->pool_owner);
	free(c->pool_unchecked);
	c->pool_len = NULL;
	c->pool_owner = NULL;
	c->pool_unchecked = NULL;
fail_region:
	dmamap_vmregion_free(m, r);
fail_pages:
	dmamap_free_pages(page, ATOMIC_POOL_ORDER);
fail:
	dmamap_log(m, DMAMAP_LOG_WARN, NULL, "no atomic DMA pool: GFP_ATOMIC coherent allocations will fail");
}

int dmamap_coherent_machine_init(struct dmamap_machine *m)
{
	struct dm_coherent *c;

	pthread_mutex_lock(&m->obj_lock);
	c = coh(m);
	if (c) {
		pthread_mutex_unlock(&m->obj_lock);
		return 0;
	}
	c = calloc(1, sizeof(*c));
	if (!c) {
		pthread_mutex_unlock(&m->obj_lock);
		return -ENOMEM;
	}
	pthread_mutex_init(&c->lock, NULL);
	atomic_pool_create(m, c);
	m->layer[DMAMAP_LAYER_COHERENT] = c;
	pthread_mutex_unlock(&m->obj_lock);
	return 0;
}

void dmamap_coherent_machine_fini(struct dmamap_machine *m)
{
	struct dm_coherent *c = coh(m);

	if (!c)
		return;
	if (c->pool_page) {
		if (c->pool.free != c->pool.bits)
			dmamap_report(m, DMAMAP_REPORT_LEAK, NULL, NULL, 0,
				      "%lu atomic-pool pages still allocated at machine destroy", c->pool.bits - c->pool.free);
		dmamap_vmregion_free(m, c->pool_region);
		dmamap_free_pages(c->pool_page, ATOMIC_POOL_ORDER);
		free(c->pool.map);
		free(c->pool_len);
		free(c->pool_owner);
		free(c->pool_unchecked);
	}
	if (c->cma.map) {
		if (c->cma.free != c->cma.bits)
			dmamap_report(m, DMAMAP_REPORT_LEAK, NULL, NULL, 0,
				      "%lu contiguous-area pages still allocated at machine destroy", c->cma.bits - c->cma.free);
		for (unsigned long i = 0; i < c->cma.bits; i++)
			dmamap_free_pages(&m->pa.pages[c->cma_first + i], 0);
		free(c->cma.map);
		free(c->cma_len);
	}
	for (unsigned i = 0; i < CBUF_BUCKETS; i++) {
		while (c->bufs[i]) {
			struct dm_cbuf *b = c->bufs[i];

			c->bufs[i] = b->next;
			free(b); /* devices are released first: these were reported then */
		}
	}
	pthread_mutex_destroy(&c->lock);
	free(c);
	m->layer[DMAMAP_LAYER_COHERENT] = NULL;
}

/* ---------------------------------------------------- coherent buffers */

static struct dm_cbuf **cbuf_bucket(struct dm_coherent *c, unsigned long pfn)
{
	return &c->bufs[(pfn ^ (pfn >> 8)) % CBUF_BUCKETS];
}

int dmamap_coherent_buf_add(struct device *dev, struct page *page, unsigned long count, const void *cpu_addr)
{
	struct dmamap_machine *m = dm_dev_machine(dev);
	struct dm_coherent *c = coh(m);
	struct dm_cbuf *b, **head;

	b = dmamap_zalloc(m, sizeof(*b));
	if (!b)
		return -ENOMEM;
	b->pfn = page_to_pfn(page);
	b->count = count;
	b->dev = dev;
	b->cpu_addr = cpu_addr;
	b->unchecked = !dmamap_debug_on(m);
	pthread_mutex_lock(&c->lock);
	head = cbuf_bucket(c, b->pfn);
	b->next = *head;
	*head = b;
	c->nr_bufs++;
	pthread_mutex_unlock(&c->lock);
	return 0;
}

const char *dmamap_coherent_buf_take(struct device *dev, phys_addr_t phys, unsigned long count, const void *cpu_addr,
				     bool remove)
{
	struct dm_coherent *c = coh(dm_dev_machine(dev));
	unsigned long pfn = PFN_DOWN(phys);
	const char *why = NULL;
	struct dm_cbuf **pp, *b = NULL;

	if (!c)
		return "it is not a coherent buffer";
	pthread_mutex_lock(&c->lock);
	for (pp = cbuf_bucket(c, pfn); *pp; pp = &(*pp)->next)
		if ((*pp)->pfn == pfn)
			break;
	b = *pp;
	if (!b || (phys & ~PAGE_MASK))
		why = "it is not a coherent buffer (freed already?)";
	else if (b->cpu_addr != cpu_addr)
		why = "the CPU address and the handle are not one buffer";
	else if (b->dev != dev)
		why = "the buffer belongs to another device";
	else if (remove ? b->count != count : count > b->count)
		why = remove ? "the size differs from the buffer's" : "the size exceeds the buffer's";
	if (!why && remove) {
		*pp = b->next;
		c->nr_bufs--;
	}
	pthread_mutex_unlock(&c->lock);
	if (!why && remove)
		dmamap_free(b);
	return why;
}

/*
 * The device's buffers still allocated at its release: reported, then
 * handed to @free_fn one by one. The DMA-API checker, when on, has named
 * each buffer it knows already, with the line that made it; the others
 * (all of them while it is off, and those made while it was off if it is on
 * again) are reported here. Off, each was counted as untracked: no longer.
 */
void dmamap_coherent_buf_release(struct device *dev,
				 void (*free_fn)(struct device *dev, struct page *page, unsigned long count, void *cpu_addr))
{
	struct dmamap_machine *m = dm_dev_machine(dev);
	struct dm_coherent *c = coh(m);
	bool on = dmamap_debug_on(m);
	unsigned long n = 0, pages = 0;

	if (!c)
		return;
	for (;;) {
		struct dm_cbuf *b = NULL;

		pthread_mutex_lock(&c->lock);
		for (unsigned i = 0; i < CBUF_BUCKETS && !b; i++) {
			for (struct dm_cbuf **pp = &c->bufs[i]; *pp; pp = &(*pp)->next) {
				if ((*pp)->dev == dev) {
					b = *pp;
					*pp = b->next;
					c->nr_bufs--;
					break;
				}
			}
		}
		pthread_mutex_unlock(&c->lock);
		if (!b)
			break;
		if (!on || b->unchecked) {
			n++;
			pages += b->count;
		}
		free_fn(dev, dmamap_pfn_to_page(m, b->pfn), b->count, (void *)(uintptr_t)b->cpu_addr);
		dmamap_free(b);
	}
	pthread_mutex_lock(&c->lock);
	for (unsigned long i = 0; c->pool_owner && i < c->pool.bits; i++) {
		if (c->pool_owner[i] == dev && c->pool_len[i]) {
			if (!on || c->pool_unchecked[i]) {
				n++;
				pages += c->pool_len[i];
			}
			bm_assign(&c->pool, i, c->pool_len[i], false);
			c->pool_len[i] = 0;
			c->pool_owner[i] = NULL;
			c->pool_unchecked[i] = false;
		}
	}
	pthread_mutex_unlock(&c->lock);
	if (!n)
		return;
	dmamap_report(m, DMAMAP_REPORT_LEAK, dev->dmamap.name, NULL, 0,
		      "%lu coherent buffer%s (%lu pages)%s still allocated at device release; freed", n,
		      n == 1 ? "" : "s", pages, on ? " made while the DMA-API checker was off" : "");
	if (!on)
		dmamap_debug_untracked(m, -(long)n);
}

void dmamap_coherent_count(struct dmamap_machine *m, enum dmamap_coherent_source src)
{
	struct dm_coherent *c = coh(m);

	if (!c)
		return;
	pthread_mutex_lock(&c->lock);
	c->counts[src]++;
	pthread_mutex_unlock(&c->lock);
}

DMAMAP_API int dmamap_contiguous_reserve(struct dmamap_machine *m, size_t size)
{
	struct dm_coherent *c;
	unsigned long count, end, first;
	int err;

	if (!m || !size || size % (4u << 20))
		return -EINVAL;
	err = dmamap_coherent_machine_init(m);
	if (err)
		return err;
	c = coh(m);
	count = size >> PAGE_SHIFT;
	end = m->pa.zones[DMAMAP_ZONE_DMA].end;
	if (count > end)
		return -EINVAL;
	pthread_mutex_lock(&c->lock);
	if (c->cma.map) {
		pthread_mutex_unlock(&c->lock);
		return -EEXIST;
	}
	c->cma_len = calloc(count, sizeof(*c->cma_len));
	if (!c->cma_len || bm_init(&c->cma, count)) {
		free(c->cma_len);
		c->cma_len = NULL;
		pthread_mutex_unlock(&c->lock);
		return -ENOMEM;
	}
	/* the highest free 4 MiB-aligned range of the DMA zone */
	err = -EBUSY;
	first = 0;
	for (long f = (long)DM_ALIGN_DOWN(end - count, 1024UL); f >= 0 && err == -EBUSY; f -= 1024) {
		err = dmamap_alloc_contig(m, (unsigned long)f, count);
		first = (unsigned long)f;
	}
	if (err) {
		free(c->cma.map);
		free(c->cma_len);
		c->cma_len = NULL;
		memset(&c->cma, 0, sizeof(c->cma));
		pthread_mutex_unlock(&c->lock);
		return err;
	}
	c->cma_first = first;
	pthread_mutex_unlock(&c->lock);
	return 0;
}

struct page *dmamap_cma_alloc(struct dmamap_machine *m, unsigned long count, unsigned align_order)
{
	struct dm_coherent *c = coh(m);
	struct page *page = NULL;
	long start;

	if (!c || count < CMA_MIN_PAGES)
		return NULL;
	pthread_mutex_lock(&c->lock);
	if (c->cma.map) {
		start = bm_find(&c->cma, count, 1UL << DM_MIN(align_order, (unsigned)CMA_MAX_ALIGN_ORDER));
		if (start >= 0) {
			bm_assign(&c->cma, (unsigned long)start, count, true);
			c->cma_len[start] = count;
			page = &m->pa.pages[c->cma_first + (unsigned long)start];
		}
	}
	pthread_mutex_unlock(&c->lock);
	return page;
}

bool dmamap_cma_release(struct dmamap_machine *m, struct page *page, unsigned long count)
{
	struct dm_coherent *c = coh(m);
	unsigned long idx = dm_page_index(page);
	bool ours = false, ok = false;

	if (!c)
		return false;
	pthread_mutex_lock(&c->lock);
	if (c->cma.map && idx >= c->cma_first && idx < c->cma_first + c->cma.bits) {
		unsigned long start = idx - c->cma_first;

		ours = true;
		ok = c->cma_len[start] == count && bm_all(&c->cma, start, count, true);
		if (ok) {
			bm_assign(&c->cma, start, count, false);
			c->cma_len[start] = 0;
		}
	}
	pthread_mutex_unlock(&c->lock);
	if (ours && !ok)
		dmamap_report(m, DMAMAP_REPORT_API_MISUSE, NULL, NULL, 0,
			      "contiguous area: %lu pages at pfn %#lx are not an allocation; not freed", count,
			      page_to_pfn(page));
	return ours;
}

bool dmamap_atomic_pool_contains(struct dmamap_machine *m, const void *va)
{
	struct dm_coherent *c = coh(m);
	uintptr_t a = (uintptr_t)va;

	return c && c->pool_region && a >= c->pool_region->start && a < c->pool_region->end;
}

void *dmamap_atomic_pool_alloc(struct device *dev, size_t size, struct page **page)
{
	struct dm_coherent *c = coh(dm_dev_machine(dev));
	unsigned long count = PAGE_ALIGN(size) >> PAGE_SHIFT;
	void *va = NULL;
	long start;

	if (!c || !c->pool_region || !count || count > c->pool.bits)
		return NULL;
	pthread_mutex_lock(&c->lock);
	start = bm_find(&c->pool, count, 1UL << get_order(count << PAGE_SHIFT));
	if (start >= 0) {
		bm_assign(&c->pool, (unsigned long)start, count, true);
		c->pool_len[start] = count;
		c->pool_owner[start] = dev;
		c->pool_unchecked[start] = !dmamap_debug_on(dm_dev_machine(dev));
		va = (u8 *)c->pool_region->start + ((size_t)start << PAGE_SHIFT);
		*page = c->pool_page + start;
	}
	pthread_mutex_unlock(&c->lock);
	if (va)
		memset(va, 0, count << PAGE_SHIFT); /* uncached: straight to RAM */
	return va;
}

const char *dmamap_atomic_pool_take(struct device *dev, const void *va, size_t size, dma_addr_t handle, bool remove)
{
	struct dm_coherent *c = coh(dm_dev_machine(dev));
	unsigned long count = size >> PAGE_SHIFT;
	uintptr_t off = (uintptr_t)va - c->pool_region->start;
	unsigned long start = off >> PAGE_SHIFT;
	const char *why = NULL;

	pthread_mutex_lock(&c->lock);
	if (off & ~PAGE_MASK)
		why = "it is not the start of an atomic-pool allocation";
	else if (!c->pool_len[start] || !bm_test(&c->pool, start))
		why = "it is not an atomic-pool allocation (freed already?)";
	else if (c->pool_owner[start] != dev)
		why = "the allocation belongs to another device";
	else if (remove ? c->pool_len[start] != count : count > c->pool_len[start])
		why = remove ? "the size differs from the allocation's" : "the size exceeds the allocation's";
	else if (handle != dm_phys_to_dma(dev, page_to_phys(c->pool_page + start)))
		why = "the CPU address and the handle are not one allocation";
	if (!why && remove) {
		bm_assign(&c->pool, start, count, false);
		c->pool_len[start] = 0;
		c->pool_owner[start] = NULL;
		c->pool_unchecked[start] = false;
	}
	pthread_mutex_unlock(&c->lock);
	return why;
}

DMAMAP_API void dmamap_coherent_stats(struct dmamap_machine *m, struct dmamap_coherent_stats *st)
{
	struct dm_coherent *c;

	if (!m || !st)
		return;
	memset(st, 0, sizeof(*st));
	c = coh(m);
	if (!c)
		return;
	pthread_mutex_lock(&c->lock);
	st->from_declared = c->counts[DM_SRC_DECLARED];
	st->from_contiguous = c->counts[DM_SRC_CONTIGUOUS];
	st->from_atomic_pool = c->counts[DM_SRC_ATOMIC_POOL];
	st->from_pages = c->counts[DM_SRC_PAGES];
	st->failures = c->counts[DM_SRC_FAILED];
	st->contiguous_size = c->cma.bits << PAGE_SHIFT;
	st->contiguous_free = c->cma.free << PAGE_SHIFT;
	st->atomic_pool_size = c->pool.bits << PAGE_SHIFT;
	st->atomic_pool_free = c->pool.free << PAGE_SHIFT;
	pthread_mutex_unlock(&c->lock);
}

/* ------------------------------------------------------- declared memory */

struct dma_coherent_mem {
	pthread_mutex_t lock;
	phys_addr_t phys;
	dma_addr_t device_base;
	size_t size;
	struct dmamap_vmregion *region;
	struct dm_bitmap bm;
	unsigned long *len; /* per page: pages of the allocation starting there */
};

DMAMAP_API int dma_declare_coherent_memory(struct device *dev, phys_addr_t phys_addr, dma_addr_t device_addr,
					   size_t size)
{
	struct dmamap_machine *m;
	struct dma_coherent_mem *mem;
	unsigned long pages;

	if (!dm_dev_live(dev)) {
		dmamap_report(NULL, DMAMAP_REPORT_BAD_INPUT, dev ? "(uninitialised device)" : NULL, NULL, 0,
			      "dma_declare_coherent_memory: %s", dev ? "device not initialised" : "NULL device");
		return -EINVAL;
	}
	m = dm_dev_machine(dev);
	if (!size || size & ~PAGE_MASK || phys_addr & ~PAGE_MASK || device_addr & ~PAGE_MASK ||
	    !dm_phys_in_ram(m, phys_addr, size)) {
		dmamap_report(m, DMAMAP_REPORT_BAD_INPUT, dev->dmamap.name, NULL, 0,
			      "dma_declare_coherent_memory: %#llx+%#zx is not a page-aligned range of RAM",
			      (unsigned long long)phys_addr, size);
		return -EINVAL;
	}
	if (device_addr > (dma_addr_t)-1 - (size - 1)) {
		dmamap_report(m, DMAMAP_REPORT_BAD_INPUT, dev->dmamap.name, NULL, 0,
			      "dma_declare_coherent_memory: bus range %#llx+%#zx runs past the end of the bus",
			      (unsigned long long)device_addr, size);
		return -EINVAL;
	}
	if (dev->dma_mem)
		return -EBUSY;
	pages = size >> PAGE_SHIFT;
	mem = dmamap_zalloc(m, sizeof(*mem));
	if (!mem)
		return -ENOMEM;
	mem->len = dmamap_allocarray(m, pages, sizeof(*mem->len));
	if (!mem->len || bm_init(&mem->bm, pages))
		goto nomem;
	mem->region = dmamap_vmregion_alloc(m, size, (const void *)dma_declare_coherent_memory);
	if (!mem->region)
		goto nomem;
	if (dmamap_vmregion_map(m, mem->region, 0, NULL, PFN_DOWN(phys_addr), pages, pgprot_dmacoherent(PAGE_KERNEL))) {
		dmamap_vmregion_free(m, mem->region);
		goto nomem;
	}
	pthread_mutex_init(&mem->lock, NULL);
	mem->phys = phys_addr;
	mem->device_base = device_addr;
	mem->size = size;
	dev->dma_mem = mem;
	return 0;

nomem:
	free(mem->bm.map);
	dmamap_free(mem->len);
	dmamap_free(mem);
	return -ENOMEM;
}

DMAMAP_API void dma_release_declared_memory(struct device *dev)
{
	struct dma_coherent_mem *mem;
	struct dmamap_machine *m;

	if (!dm_dev_live(dev)) {
		dmamap_report(NULL, DMAMAP_REPORT_BAD_INPUT, dev ? "(uninitialised device)" : NULL, NULL, 0,
			      "dma_release_declared_memory: %s", dev ? "device not initialised" : "NULL device");
		return;
	}
	if (!dev->dma_mem)
		return;
	mem = dev->dma_mem;
	m = dm_dev_machine(dev);
	if (mem->bm.free != mem->bm.bits) {
		unsigned long n = 0;

		for (unsigned long i = 0; i < mem->bm.bits; i++)
			n += mem->len[i] != 0;
		dmamap_report(m, DMAMAP_REPORT_LEAK, dev->dmamap.name, NULL, 0,
			      "%lu pages of declared coherent memory still allocated at release",
			      mem->bm.bits - mem->bm.free);
		/* with the checker off, each of those buffers was counted as untracked */
		if (!dmamap_debug_on(m))
			dmamap_debug_untracked(m, -(long)n);
	}
	dev->dma_mem = NULL;
	dmamap_vmregion_free(m, mem->region);
	pthread_mutex_destroy(&mem->lock);
	free(mem->bm.map);
	dmamap_free(mem->len);
	dmamap_free(mem);
}

bool dmamap_declared_alloc(struct device *dev, size_t size, dma_addr_t *handle, void **ret)
{
	struct dma_coherent_mem *mem = dev->dma_mem;
	unsigned long count = PAGE_ALIGN(size) >> PAGE_SHIFT;
	long start;

	if (!mem || !count || count > mem->bm.bits)
		return false;
	pthread_mutex_lock(&mem->lock);
	start = bm_find(&mem->bm, count, 1UL << get_order(count << PAGE_SHIFT));
	if (start >= 0) {
		bm_assign(&mem->bm, (unsigned long)start, count, true);
		mem->len[start] = count;
	}
	pthread_mutex_unlock(&mem->lock);
	if (start < 0)
		return false; /* full: the next source serves it */
	*ret = (u8 *)mem->region->start + ((size_t)start << PAGE_SHIFT);
	*handle = mem->device_base + ((dma_addr_t)start << PAGE_SHIFT);
	memset(*ret, 0, count << PAGE_SHIFT); /* uncached mapping: straight to RAM */
	return true;
}

bool dmamap_declared_bus_to_phys(struct device *dev, dma_addr_t addr, size_t len, phys_addr_t *phys)
{
	const struct dma_coherent_mem *mem = dev->dma_mem;

	if (!mem || addr < mem->device_base || addr - mem->device_base >= mem->size ||
	    len > mem->size - (addr - mem->device_base))
		return false;
	*phys = mem->phys + (addr - mem->device_base);
	return true;
}

static bool declared_owns(const struct dma_coherent_mem *mem, const void *vaddr)
{
	uintptr_t a = (uintptr_t)vaddr;

	return mem && a >= mem->region->start && a < mem->region->end;
}

/*
 * Why @count pages at @off in @mem, with bus address @handle, are not a live
 * allocation (exactly its size when @exact, else at most it), or NULL. Lock held.
 */
static const char *declared_refusal(const struct dma_coherent_mem *mem, uintptr_t off, unsigned long count,
				    dma_addr_t handle, bool exact)
{
	unsigned long start = off >> PAGE_SHIFT;

	if (off & ~PAGE_MASK)
		return "is not the start of an allocation";
	if (!mem->len[start] || !bm_test(&mem->bm, start))
		return "is not an allocation (freed already?)";
	if (exact ? mem->len[start] != count : count > mem->len[start])
		return exact ? "has a size other than the allocation's" : "is larger than the allocation";
	if (handle != mem->device_base + off)
		return "does not go with the handle given";
	return NULL;
}

bool dmamap_declared_release(struct device *dev, void *vaddr, size_t size, dma_addr_t handle)
{
	struct dma_coherent_mem *mem = dev->dma_mem;
	unsigned long count = size >> PAGE_SHIFT, start;
	const char *why;
	uintptr_t off;

	if (!declared_owns(mem, vaddr))
		return false;
	off = (uintptr_t)vaddr - mem->region->start;
	start = off >> PAGE_SHIFT;
	pthread_mutex_lock(&mem->lock);
	why = declared_refusal(mem, off, count, handle, true);
	if (!why) {
		bm_assign(&mem->bm, start, count, false);
		mem->len[start] = 0;
	}
	pthread_mutex_unlock(&mem->lock);
	if (why)
		dmamap_report(dm_dev_machine(dev), DMAMAP_REPORT_API_MISUSE, dev->dmamap.name, NULL, 0,
			      "%s: %p+%#zx (handle %#llx) of the device's declared memory %s; not freed",
			      dm_free_call("dma_free"), vaddr, size, (unsigned long long)handle, why);
	return true;
}

bool dmamap_declared_mmap(struct device *dev, struct vm_area_struct *vma, void *vaddr, size_t size, pgprot_t prot,
			  int *ret)
{
	struct dma_coherent_mem *mem = dev->dma_mem;
	unsigned long off, nr_vma, nr_pages, pfn;
	bool live;

	if (!declared_owns(mem, vaddr))
		return false;
	off = ((uintptr_t)vaddr - mem->region->start) >> PAGE_SHIFT;
	nr_vma = (vma->vm_end - vma->vm_start) >> PAGE_SHIFT;
	nr_pages = PAGE_ALIGN(size) >> PAGE_SHIFT;
	pfn = PFN_DOWN(mem->phys) + off;
	pthread_mutex_lock(&mem->lock);
	live = !(((uintptr_t)vaddr - mem->region->start) & ~PAGE_MASK) && mem->len[off] >= nr_pages;
	pthread_mutex_unlock(&mem->lock);
	if (!live || vma->vm_pgoff >= nr_pages || nr_vma > nr_pages - vma->vm_pgoff) {
		*ret = -ENXIO;
		return true;
	}
	vma->vm_page_prot = prot;
	*ret = remap_pfn_range(vma, vma->vm_start, pfn + vma->vm_pgoff, nr_vma << PAGE_SHIFT, prot);
	return true;
}

/*
 * dma_get_sgtable() of @vaddr (@size page aligned), when it lies in @dev's
 * declared memory: true with *ret 0 and a one-entry @sgt of the
 * allocation's first @size bytes, or *ret -ENXIO (reported) when it names
 * no live allocation of at least @size bytes with @handle; false when it is
 * not declared memory of @dev.
 */
bool dmamap_declared_get_sgtable(struct device *dev, struct sg_table *sgt, void *vaddr, dma_addr_t handle,
				 size_t size, int *ret)
{
	struct dma_coherent_mem *mem = dev->dma_mem;
	const char *why;
	uintptr_t off;

	if (!declared_owns(mem, vaddr))
		return false;
	off = (uintptr_t)vaddr - mem->region->start;
	pthread_mutex_lock(&mem->lock);
	why = declared_refusal(mem, off, size >> PAGE_SHIFT, handle, false);
	pthread_mutex_unlock(&mem->lock);
	if (why) {
		dmamap_report(dm_dev_machine(dev), DMAMAP_REPORT_API_MISUSE, dev->dmamap.name, NULL, 0,
			      "dma_get_sgtable: %p+%#zx (handle %#llx) of the device's declared memory %s; refused",
			      vaddr, size, (unsigned long long)handle, why);
		*ret = -ENXIO;
		return true;
	}
	*ret = sg_alloc_table(sgt, 1, GFP_KERNEL);
	if (!*ret)
		sg_set_page(sgt->sgl, dmamap_phys_to_page(dm_dev_machine(dev), mem->phys + off), (unsigned int)size, 0);
	return true;
}

/* ------------------------------------------------------------- invariants */

/* Each set bit of @b in exactly one recorded allocation (@len at its start), the free count right. Lock held. */
static void bm_check(struct dm_check *c, const struct dm_bitmap *b, const unsigned long *len, const char *what)
{
	unsigned long i = 0, used = 0;

	while (i < b->bits) {
		unsigned long n = len[i];

		if (!n) {
			if (bm_test(b, i)) {
				dm_check_fail(c, DMAMAP_CHECK_COHERENT, "%s: page %lu is in use but in no allocation", what, i);
				used++;
			}
			i++;
			continue;
		}
		if (n > b->bits - i || !bm_all(b, i, n, true)) {
			dm_check_fail(c, DMAMAP_CHECK_COHERENT, "%s: allocation of %lu pages at page %lu is not all in use",
				      what, n, i);
			i++;
			continue;
		}
		for (unsigned long j = i + 1; j < i + n; j++)
			if (len[j])
				dm_check_fail(c, DMAMAP_CHECK_COHERENT, "%s: an allocation starts at page %lu, inside the one at %lu",
					      what, j, i);
		used += n;
		i += n;
	}
	if (b->bits - used != b->free)
		dm_check_fail(c, DMAMAP_CHECK_COHERENT, "%s: %lu pages free, %lu counted", what, b->bits - used, b->free);
}

/* Every recorded buffer: its pages allocated, one page each (split or from the contiguous area). Lock held. */
static void cbuf_check(struct dmamap_machine *m, struct dm_coherent *co, struct dm_check *c)
{
	unsigned long n = 0;

	for (unsigned i = 0; i < CBUF_BUCKETS; i++) {
		for (const struct dm_cbuf *b = co->bufs[i]; b; b = b->next) {
			n++;
			for (unsigned long j = 0; j < b->count; j++) {
				const struct page *p = dmamap_pfn_to_page(m, b->pfn + j);

				if (!p || !PageFlag(p, PG_head) || p->dmamap_order) {
					dm_check_fail(c, DMAMAP_CHECK_COHERENT,
						      "coherent buffer at pfn %#lx: page %lu of %lu is not allocated", b->pfn,
						      j, b->count);
					break;
				}
			}
		}
	}
	if (n != co->nr_bufs)
		dm_check_fail(c, DMAMAP_CHECK_COHERENT, "%lu coherent buffers recorded, %lu counted", n, co->nr_bufs);
}

void dmamap_coherent_check(struct dmamap_machine *m, struct dm_check *c)
{
	struct dm_coherent *co = coh(m);

	if (!co)
		return;
	pthread_mutex_lock(&co->lock);
	cbuf_check(m, co, c);
	if (co->pool_page)
		bm_check(c, &co->pool, co->pool_len, "atomic pool");
	if (co->cma.map) {
		bm_check(c, &co->cma, co->cma_len, "contiguous area");
		for (unsigned long i = 0; i < co->cma.bits; i++) {
			const struct page *p = &m->pa.pages[co->cma_first + i];

			if (!PageFlag(p, PG_head) || p->dmamap_order) {
				dm_check_fail(c, DMAMAP_CHECK_COHERENT, "contiguous area: pfn %#lx is not held by the area",
					      page_to_pfn(p));
				break;
			}
		}
	}
	pthread_mutex_unlock(&co->lock);
}

void dmamap_declared_check(struct device *dev, struct dm_check *c)
{
	struct dma_coherent_mem *mem = dev->dma_mem;
	char what[DMAMAP_DEV_NAME_MAX + 32];

	if (!mem)
		return;
	snprintf(what, sizeof(what), "%s: declared memory", dev->dmamap.name);
	pthread_mutex_lock(&mem->lock);
	bm_check(c, &mem->bm, mem->len, what);
	pthread_mutex_unlock(&mem->lock);
}

void dmamap_coherent_census(struct dmamap_machine *m, struct dm_census *cs)
{
	struct dm_coherent *co = coh(m);

	if (!co)
		return;
	pthread_mutex_lock(&co->lock);
	cs->v[DM_CENSUS_ATOMIC_POOL] += co->pool.bits - co->pool.free;
	cs->v[DM_CENSUS_CMA] += co->cma.bits - co->cma.free;
	cs->v[DM_CENSUS_COHERENT_BUFS] += co->nr_bufs;
	pthread_mutex_unlock(&co->lock);
}

void dmamap_declared_census(struct device *dev, struct dm_census *cs)
{
	struct dma_coherent_mem *mem = dev->dma_mem;

	if (!mem)
		return;
	pthread_mutex_lock(&mem->lock);
	cs->v[DM_CENSUS_DECLARED] += mem->bm.bits - mem->bm.free;
	pthread_mutex_unlock(&mem->lock);
}
