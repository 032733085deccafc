/* SPDX-License-Identifier: MIT */
/*
 * dma_pool: small fixed-size blocks carved from coherent allocations.
 *
 * What the pool promises
 *
 *   A pool hands out blocks of one size (the requested size rounded up to the
 *   alignment) from "pages": coherent allocations of
 *   max(PAGE_SIZE, round_up(size, PAGE_SIZE)) bytes taken with
 *   dma_alloc_coherent() on the pool's device. Every block is aligned to the
 *   pool's alignment both as a CPU address and as a bus address, and no block
 *   crosses a multiple of the boundary *in bus-address terms* (what the
 *   hardware constraint is about). Pages are kept until dma_pool_destroy(),
 *   as the kernel does, so a pool only grows. (A page is twice that size in
 *   the rare case where the coherent memory is misaligned on the bus so that
 *   no block fits: see page_new().)
 *
 *   The alignment is the one asked for (0 means 1) raised to at least
 *   sizeof(void *) -- 8 bytes on the hosts we build on -- and the block size
 *   is rounded up to it; a boundary must be a power of two no smaller than
 *   that rounded block size. Boundary 0 means no boundary beyond the page.
 *
 * Layout of a page
 *
 *   Blocks are packed from the first aligned offset, S bytes apart, until the
 *   next boundary (bus address multiple of B) would be crossed; packing
 *   resumes at that boundary. Boundary windows are B-aligned in bus space
 *   and B is a multiple of S's alignment, so whatever the page's own bus
 *   alignment, the layout is: a first (possibly partial) window of
 *   `first_count` blocks from offset `first`, then full windows of
 *   `per_window` = B / S blocks starting at `next_window` + k * B, the last
 *   one possibly cut short by the end of the page. Index <-> offset is plain
 *   arithmetic, so a page's bookkeeping is one bitmap of blocks in use: no
 *   per-block array, and nothing stored inside the blocks (which the device
 *   may overwrite at any time).
 *
 * Checks
 *
 *   dma_pool_free() finds the page by CPU address, then requires the bus
 *   address to correspond (dma - page_dma == vaddr - page_vaddr), the offset
 *   to be a block start, and the block to be in use: double frees, pointers
 *   inside a block, foreign pointers and mismatched handles are reported
 *   (DMAMAP_REPORT_API_MISUSE) and refused with nothing changed. Before
 *   anything else, every call taking a pool looks its pointer up in the
 *   process-wide table of owned objects (comparing pointers only): a pool
 *   destroyed already is reported (DMAMAP_REPORT_BAD_INPUT) and the call does
 *   nothing, its machine destroyed in between or not.
 *
 * Memory tracking
 *
 *   Free blocks (and the padding skipped at boundaries) are marked
 *   inaccessible for memcheck; a block handed out is marked defined (its
 *   bytes are real memory: zeroes from dma_alloc_coherent(), or what was there
 *   before). "Undefined" would be wrong: the device writes RAM through another
 *   host mapping, which memcheck cannot connect to this one.
 *
 * Locking
 *
 *   One mutex per pool guards its page list, bitmaps and counters. It is not
 *   held across dma_alloc_coherent()/dma_free_coherent(): a pool that must
 *   grow allocates the new page unlocked, then inserts it under the lock and
 *   takes a block from it (two threads may both grow the pool at once; both
 *   pages are kept). Zeroing a block happens after the lock is dropped, since
 *   the block is the caller's by then. dma_pool_destroy() must not race with
 *   other uses of the pool, as in the kernel.
 */
#include <limits.h>
#include <stdio.h>

#include "internal.h"

#define DM_POOL_NAME_MAX 48
#define BITS_PER_LONG_ (sizeof(unsigned long) * CHAR_BIT)

struct dma_pool_page {
	struct dma_pool_page *next;
	u8 *vaddr;                 /* CPU address of the coherent allocation */
	dma_addr_t dma;            /* its bus address */
	size_t bytes;              /* its size: the pool's allocation, or twice it (see page_new) */
	size_t first;              /* offset of block 0 */
	size_t first_count;        /* blocks in the first boundary window */
	size_t next_window;        /* offset of the second window (>= allocation: none) */
	size_t per_window;         /* blocks in a full window after the first */
	unsigned long nblocks;
	unsigned long in_use;
	unsigned long used[];      /* bitmap: block i in use */
};

struct dma_pool {
	struct dmamap_obj obj;     /* obj.machine: NULL once the machine is destroyed */
	pthread_mutex_t lock;
	struct device *dev;        /* NULL once the device is released (the pool's memory went with it) */
	size_t size;               /* block size, rounded up to align */
	size_t align;              /* a power of two >= sizeof(void *) */
	size_t boundary;           /* a power of two >= size, or 0 for none */
	size_t allocation;         /* bytes per coherent allocation */
	struct dma_pool_page *pages; /* newest first */
	unsigned long nr_pages;
	unsigned long blocks_total;
	unsigned long in_use;
	unsigned long high_water;
	char name[DM_POOL_NAME_MAX];
	char devname[DMAMAP_DEV_NAME_MAX];
};

static bool is_pow2(size_t x)
{
	return x && !(x & (x - 1));
}

/* ---------------------------------------------------------------- layout */

/*
 * Work out the block layout of a fresh page from its bus address (and check
 * that the CPU address shares its alignment). Return the number of blocks,
 * 0 if the page can hold none.
 */
static unsigned long page_layout(const struct dma_pool *pool, const u8 *vaddr, dma_addr_t dma, size_t A,
				 struct dma_pool_page *pg)
{
	size_t S = pool->size, a = pool->align, B = pool->boundary;
	size_t first = (size_t)((a - (dma & (a - 1))) & (a - 1));
	unsigned long n;

	if (first >= A || (((uintptr_t)vaddr + first) & (a - 1)))
		return 0;
	pg->first = first;
	if (!B || B - (size_t)((dma + first) & (B - 1)) >= A - first) {
		/* the whole page is one window */
		pg->first_count = (A - first) / S;
		pg->next_window = A;
		pg->per_window = 0;
		return (unsigned long)pg->first_count;
	}
	pg->next_window = first + (B - (size_t)((dma + first) & (B - 1)));
	pg->first_count = (pg->next_window - first) / S;
	pg->per_window = B / S;
	n = (unsigned long)pg->first_count;
	/* B < A here (the window ended inside the page), so w + B cannot overflow */
	for (size_t w = pg->next_window; w < A; w += B)
		n += (unsigned long)(DM_MIN(B, A - w) / S);
	return n;
}

static size_t block_offset(const struct dma_pool *pool, const struct dma_pool_page *pg, unsigned long i)
{
	if (i < pg->first_count)
		return pg->first + i * pool->size;
	i -= (unsigned long)pg->first_count;
	return pg->next_window + (i / pg->per_window) * pool->boundary + (i % pg->per_window) * pool->size;
}

/* The index of the block starting at page offset @off (< pg->bytes), or -1. */
static long block_index(const struct dma_pool *pool, const struct dma_pool_page *pg, size_t off)
{
	size_t r, k, j;
	unsigned long idx;

	if (off < pg->first)
		return -1;
	if (off < pg->next_window) {
		r = off - pg->first;
		if (r % pool->size || r / pool->size >= pg->first_count)
			return -1;
		return (long)(r / pool->size);
	}
	r = off - pg->next_window;
	k = r / pool->boundary;
	r %= pool->boundary;
	if (r % pool->size)
		return -1;
	j = r / pool->size;
	if (j >= pg->per_window)
		return -1;
	idx = (unsigned long)(pg->first_count + k * pg->per_window + j);
	return idx < pg->nblocks ? (long)idx : -1; /* the last window may be short */
}

static bool test_used(const struct dma_pool_page *pg, unsigned long i)
{
	return (pg->used[i / BITS_PER_LONG_] >> (i % BITS_PER_LONG_)) & 1UL;
}

/* Take a free block of @pg (which has one); pool lock held. Return its offset. */
static size_t page_take(struct dma_pool *pool, struct dma_pool_page *pg)
{
	size_t words = (pg->nblocks + BITS_PER_LONG_ - 1) / BITS_PER_LONG_;

	for (size_t w = 0; w < words; w++) {
		unsigned long i;

		if (pg->used[w] == ~0UL)
			continue;
		i = w * BITS_PER_LONG_ + (unsigned long)__builtin_ctzl(~pg->used[w]);
		if (i >= pg->nblocks)
			break;
		pg->used[w] |= 1UL << (i % BITS_PER_LONG_);
		pg->in_use++;
		pool->in_use++;
		if (pool->in_use > pool->high_water)
			pool->high_water = pool->in_use;
		return block_offset(pool, pg, i);
	}
	/* unreachable while in_use < nblocks holds */
	return (size_t)-1;
}

static const struct dmamap_obj_ops pool_obj_ops;

/* ---------------------------------------------------------------- create */

DMAMAP_API struct dma_pool *dmamap_dma_pool_create(const char *name, struct device *dev, size_t size, size_t align,
						   size_t boundary, const char *file, int line)
{
	DM_CALL();
	struct dmamap_machine *m;
	struct dma_pool *pool;
	const char *why = NULL;
	size_t allocation = 0;

	if (!dev || !dm_dev_live(dev)) {
		dmamap_report(NULL, DMAMAP_REPORT_BAD_INPUT, dev ? "(uninitialised device)" : NULL, NULL, 0,
			      "dma_pool_create(%s): %s", name ? name : "?",
			      dev ? "device not initialised (dmamap_device_init)" : "NULL device");
		return NULL;
	}
	m = dm_dev_machine(dev);
	if (!align)
		align = 1;
	if (!size)
		why = "zero block size";
	else if (size > INT_MAX)
		why = "block size above INT_MAX";
	else if (!is_pow2(align))
		why = "alignment is not a power of two";
	if (!why) {
		if (align < sizeof(void *))
			align = sizeof(void *);
		if (size > SIZE_MAX - (align - 1) || DM_ALIGN_UP(size, align) > SIZE_MAX - (PAGE_SIZE - 1))
			why = "block size too large";
	}
	if (!why) {
		size = DM_ALIGN_UP(size, align);
		allocation = DM_MAX((size_t)PAGE_SIZE, DM_ALIGN_UP(size, (size_t)PAGE_SIZE));
		/* no source can serve a coherent allocation larger than RAM: no block could ever be taken */
		if (allocation > m->cfg.ram_size)
			why = "block larger than the machine's RAM";
		else if (boundary && (!is_pow2(boundary) || boundary < size))
			why = "boundary is not a power of two at least the (rounded) block size";
	}
	if (why) {
		dmamap_report(m, DMAMAP_REPORT_BAD_INPUT, dev->dmamap.name, NULL, 0,
			      "dma_pool_create(%s): %s (size %zu, align %zu, boundary %zu)", name ? name : "?", why,
			      size, align, boundary);
		return NULL;
	}

	pool = dmamap_zalloc(m, sizeof(*pool));
	if (!pool) {
		dmamap_log(m, DMAMAP_LOG_WARN, dev->dmamap.name, "dma_pool_create(%s): out of host memory",
			   name ? name : "?");
		return NULL;
	}
	if (pthread_mutex_init(&pool->lock, NULL)) {
		dmamap_free(pool);
		return NULL;
	}
	pool->dev = dev;
	pool->size = size;
	pool->align = align;
	pool->boundary = boundary;
	pool->allocation = allocation;
	snprintf(pool->name, sizeof(pool->name), "%s", name ? name : "dma_pool");
	snprintf(pool->devname, sizeof(pool->devname), "%s", dev->dmamap.name);
	dmamap_obj_add(m, &pool->obj, &pool_obj_ops);
	dmamap_obj_own(&pool->obj, pool, DM_OBJ_POOL);
	return pool;
}

DMAMAP_API struct dma_pool *(dma_pool_create)(const char *name, struct device *dev, size_t size, size_t align,
					      size_t boundary)
{
	return dmamap_dma_pool_create(name, dev, size, align, boundary, NULL, 0);
}

/* --------------------------------------------------------------- destroy */

/* Take every page out of @pool (lock held); the caller frees them. */
static struct dma_pool_page *pool_take_pages(struct dma_pool *pool)
{
	struct dma_pool_page *pg = pool->pages;

	pool->pages = NULL;
	pool->nr_pages = 0;
	pool->blocks_total = 0;
	pool->in_use = 0;
	return pg;
}

/* Give the pages back as dma_alloc_coherent() handed them out, through @dev (live), or only forget them. */
static void free_pages_list(struct device *dev, struct dma_pool_page *pg)
{
	struct dma_pool_page *next;

	for (; pg; pg = next) {
		next = pg->next;
		if (dev) {
			dmamap_track_defined(pg->vaddr, pg->bytes);
			dmamap_free_attrs(dev, pg->bytes, pg->vaddr, pg->dma, NULL, NULL, 0);
		}
		dmamap_free(pg);
	}
}

/* Free everything; @summary: report the blocks still in use here (the checker has not listed them). */
/* Blocks the driver never freed, dropped with the pool: with the checker off, they were counted as untracked. */
static void untracked_gone(struct dmamap_machine *m, unsigned long blocks)
{
	if (blocks && !dmamap_debug_on(m))
		dmamap_debug_untracked(m, -(long)blocks);
}

static void pool_destroy(struct dma_pool *pool, bool summary)
{
	struct dma_pool_page *pg;
	unsigned long in_use;
	struct device *dev;

	if (dmamap_obj_dead(&pool->obj)) {
		/* its memory went with the machine (reported then): only the struct is left */
		dmamap_obj_dead_report(&pool->obj, "dma_pool_destroy");
		pthread_mutex_destroy(&pool->lock);
		dmamap_obj_disown(&pool->obj);
		dmamap_free(pool);
		return;
	}
	dmamap_obj_del(&pool->obj);
	pthread_mutex_lock(&pool->lock);
	in_use = pool->in_use;
	dev = pool->dev;
	pg = pool_take_pages(pool);
	pthread_mutex_unlock(&pool->lock);
	if (in_use && summary)
		dmamap_report(pool->obj.machine, DMAMAP_REPORT_LEAK, pool->devname, NULL, 0,
			      "dma_pool_destroy(%s): %lu block%s of %zu bytes still in use", pool->name, in_use,
			      in_use == 1 ? "" : "s", pool->size);
	untracked_gone(pool->obj.machine, in_use);
	free_pages_list(dev, pg);
	pthread_mutex_destroy(&pool->lock);
	dmamap_obj_disown(&pool->obj);
	dmamap_free(pool);
}

/*
 * The pool's device is being released (it is still live): the pool is a
 * leak. Its memory is given back now, while the device can still free it;
 * the pool is left empty and without a device, for dma_pool_destroy().
 */
static void pool_device_gone(struct dmamap_obj *o, struct device *dev)
{
	struct dma_pool *pool = container_of(o, struct dma_pool, obj);
	unsigned long in_use, pages;
	struct dma_pool_page *pg;

	pthread_mutex_lock(&pool->lock);
	if (pool->dev != dev) {
		pthread_mutex_unlock(&pool->lock);
		return;
	}
	in_use = pool->in_use;
	pages = pool->nr_pages;
	pg = pool_take_pages(pool);
	pool->dev = NULL;
	pthread_mutex_unlock(&pool->lock);
	dmamap_report(o->machine, DMAMAP_REPORT_LEAK, pool->devname, NULL, 0,
		      "dma_pool %s still exists at device release (%lu block%s in use); its memory (%lu page%s) "
		      "is freed with the device", pool->name, in_use, in_use == 1 ? "" : "s", pages,
		      pages == 1 ? "" : "s");
	untracked_gone(o->machine, in_use);
	free_pages_list(dev, pg);
}

static void pool_machine_gone(struct dmamap_obj *o)
{
	struct dma_pool *pool = container_of(o, struct dma_pool, obj);

	/* devices are released first: the pool has been reported and emptied then */
	if (pool->dev)
		dmamap_report(o->machine, DMAMAP_REPORT_LEAK, pool->devname, NULL, 0,
			      "dma_pool %s still exists at machine destroy", pool->name);
}

static void pool_check(struct dmamap_obj *o, struct dm_check *c)
{
	struct dma_pool *pool = container_of(o, struct dma_pool, obj);
	unsigned long pages = 0, blocks = 0, in_use = 0;

	pthread_mutex_lock(&pool->lock);
	for (struct dma_pool_page *pg = pool->pages; pg; pg = pg->next) {
		unsigned long used = 0;

		for (unsigned long i = 0; i < pg->nblocks; i++)
			used += test_used(pg, i);
		if (used != pg->in_use)
			dm_check_fail(c, DMAMAP_CHECK_POOL, "dma_pool %s: page %p has %lu blocks in use, %lu counted",
				      pool->name, (void *)pg->vaddr, used, pg->in_use);
		pages++;
		blocks += pg->nblocks;
		in_use += used;
	}
	if (pages != pool->nr_pages || blocks != pool->blocks_total || in_use != pool->in_use)
		dm_check_fail(c, DMAMAP_CHECK_POOL,
			      "dma_pool %s: %lu pages, %lu blocks, %lu in use found; %lu, %lu, %lu counted", pool->name,
			      pages, blocks, in_use, pool->nr_pages, pool->blocks_total, pool->in_use);
	pthread_mutex_unlock(&pool->lock);
}

static void pool_census(struct dmamap_obj *o, struct dm_census *cs)
{
	struct dma_pool *pool = container_of(o, struct dma_pool, obj);

	pthread_mutex_lock(&pool->lock);
	cs->v[DM_CENSUS_POOL_BLOCKS] += pool->in_use;
	cs->v[DM_CENSUS_POOL_PAGES] += pool->nr_pages;
	pthread_mutex_unlock(&pool->lock);
}

/* Free the pages with no block in use (the pool grows again on demand). */
static void pool_shrink(struct dmamap_obj *o)
{
	struct dma_pool *pool = container_of(o, struct dma_pool, obj);
	struct dma_pool_page **pp, *idle = NULL;
	DM_CALL_AT(NULL, 0); /* the library's own pages, freed by the library */

	pthread_mutex_lock(&pool->lock);
	for (pp = &pool->pages; *pp;) {
		struct dma_pool_page *pg = *pp;

		if (pg->in_use) {
			pp = &pg->next;
			continue;
		}
		*pp = pg->next;
		pg->next = idle;
		idle = pg;
		pool->nr_pages--;
		pool->blocks_total -= pg->nblocks;
	}
	pthread_mutex_unlock(&pool->lock);
	free_pages_list(pool->dev, idle);
}

static const struct dmamap_obj_ops pool_obj_ops = {
	.name = "dma_pool",
	.device_gone = pool_device_gone,
	.machine_gone = pool_machine_gone,
	.check = pool_check,
	.census = pool_census,
	.shrink = pool_shrink,
};

/* ----------------------------------------------------------------- alloc */

/*
 * A new page for @pool: the coherent allocation and its bookkeeping, every
 * block free. NULL (nothing left allocated) on failure.
 *
 * A coherent allocation is normally aligned in bus space to its own size
 * (buddy pages), so every page holds blocks. One that is only page aligned
 * in bus space (an atomic pool, a device with an odd dma_pfn_offset) may hold
 * none when the boundary exceeds a page: e.g. 5000-byte blocks, boundary
 * 8192, an 8 KiB allocation at bus 0x1000 -- any block there would cross
 * 0x2000. Twice the allocation always holds one (a window of 2 * A >= 2 * S
 * holds a block on one side of any boundary inside it), so such a page is
 * given back and a double-sized one taken instead. A CPU address that cannot
 * share the bus address's alignment (align > PAGE_SIZE with misaligned
 * memory) has no remedy: the allocation fails.
 */
static struct dma_pool_page *page_new(struct dma_pool *pool, gfp_t gfp)
{
	struct dma_pool_page probe, *pg;
	dma_addr_t dma = DMA_MAPPING_ERROR;
	size_t bytes = pool->allocation;
	unsigned long n = 0;
	size_t words;
	void *vaddr;

	for (;;) {
		vaddr = dmamap_alloc_attrs(pool->dev, bytes, &dma, gfp & ~__GFP_ZERO, NULL, NULL, 0);
		if (!vaddr) {
			if (!(gfp & __GFP_NOWARN))
				dmamap_log(pool->obj.machine, DMAMAP_LOG_WARN, pool->devname,
					   "dma_pool_alloc(%s): no coherent memory for a new %zu-byte page",
					   pool->name, bytes);
			return NULL;
		}
		memset(&probe, 0, sizeof(probe));
		n = page_layout(pool, vaddr, dma, bytes, &probe);
		if (n)
			break;
		dmamap_free_attrs(pool->dev, bytes, vaddr, dma, NULL, NULL, 0);
		if (bytes != pool->allocation || !pool->boundary || bytes > SIZE_MAX / 2 ||
		    (((uintptr_t)vaddr ^ (uintptr_t)dma) & (pool->align - 1))) {
			dmamap_log(pool->obj.machine, DMAMAP_LOG_ERR, pool->devname,
				   "dma_pool_alloc(%s): coherent memory at %p (bus %#llx) cannot hold an aligned "
				   "%zu-byte block",
				   pool->name, vaddr, (unsigned long long)dma, pool->size);
			return NULL;
		}
		bytes *= 2;
	}
	words = (n + BITS_PER_LONG_ - 1) / BITS_PER_LONG_;
	pg = dmamap_zalloc(pool->obj.machine, sizeof(*pg) + words * sizeof(unsigned long));
	if (!pg) {
		dmamap_log(pool->obj.machine, DMAMAP_LOG_WARN, pool->devname, "dma_pool_alloc(%s): out of host memory",
			   pool->name);
		dmamap_free_attrs(pool->dev, bytes, vaddr, dma, NULL, NULL, 0);
		return NULL;
	}
	*pg = probe;
	pg->next = NULL;
	pg->vaddr = vaddr;
	pg->dma = dma;
	pg->bytes = bytes;
	pg->nblocks = n;
	pg->in_use = 0;
	/* every block is free: dead to memcheck until handed out */
	dmamap_track_noaccess(vaddr, bytes);
	return pg;
}

static void *pool_alloc(struct dma_pool *pool, gfp_t mem_flags, dma_addr_t *handle)
{
	struct dma_pool_page *pg;
	size_t off = 0;
	u8 *va;

	if (handle)
		*handle = DMA_MAPPING_ERROR;
	if (!pool || !handle) {
		dmamap_report(pool ? pool->obj.machine : NULL, DMAMAP_REPORT_BAD_INPUT, pool ? pool->devname : NULL, NULL, 0,
			      "dma_pool_alloc: NULL %s", !pool ? "pool" : "handle");
		return NULL;
	}
	if (dmamap_obj_dead(&pool->obj)) {
		dmamap_obj_dead_report(&pool->obj, "dma_pool_alloc");
		return NULL;
	}
	if (!pool->dev) {
		dmamap_report(pool->obj.machine, DMAMAP_REPORT_API_MISUSE, pool->devname, NULL, 0,
			      "dma_pool_alloc(%s): the pool's device has been released", pool->name);
		return NULL;
	}
	if (dmamap_should_fail(pool->obj.machine, DMAMAP_FAULT_POOL))
		return NULL;

	pthread_mutex_lock(&pool->lock);
	for (pg = pool->pages; pg; pg = pg->next)
		if (pg->in_use < pg->nblocks)
			break;
	if (pg) {
		off = page_take(pool, pg);
	} else {
		/* grow: the coherent allocation is made without the pool lock */
		pthread_mutex_unlock(&pool->lock);
		pg = page_new(pool, mem_flags);
		if (!pg)
			return NULL;
		pthread_mutex_lock(&pool->lock);
		pg->next = pool->pages;
		pool->pages = pg;
		pool->nr_pages++;
		pool->blocks_total += pg->nblocks;
		off = page_take(pool, pg);
	}
	va = pg->vaddr + off;
	*handle = pg->dma + off;
	dmamap_track_defined(va, pool->size);
	pthread_mutex_unlock(&pool->lock);

	if (mem_flags & __GFP_ZERO) {
		if (dm_virt_in_linear(pool->obj.machine, va))
			dm_cpu_store(pool->obj.machine, va, NULL, 0, pool->size); /* cached (coherent machine): mark lines */
		else
			memset(va, 0, pool->size); /* uncached: straight to RAM */
	}
	return va;
}


/* ------------------------------------------------------------------ free */

/* Give a block back; false when refused (reported, nothing changed). */
static bool pool_free(struct dma_pool *pool, void *vaddr, dma_addr_t dma)
{
	struct dma_pool_page *pg;
	const char *why = NULL;
	size_t off = 0;
	long i = -1;

	if (!pool) {
		dmamap_report(NULL, DMAMAP_REPORT_BAD_INPUT, NULL, NULL, 0, "dma_pool_free: NULL pool");
		return false;
	}
	if (dmamap_obj_dead(&pool->obj)) {
		dmamap_obj_dead_report(&pool->obj, "dma_pool_free");
		return false;
	}
	pthread_mutex_lock(&pool->lock);
	for (pg = pool->pages; pg; pg = pg->next)
		if ((uintptr_t)vaddr >= (uintptr_t)pg->vaddr &&
		    (uintptr_t)vaddr - (uintptr_t)pg->vaddr < pg->bytes)
			break;
	if (!pg) {
		why = "is not a block of this pool";
	} else {
		off = (size_t)((uintptr_t)vaddr - (uintptr_t)pg->vaddr);
		if (dma - pg->dma != (dma_addr_t)off)
			why = "does not go with the bus address given";
		else if ((i = block_index(pool, pg, off)) < 0)
			why = "is not the start of a block";
		else if (!test_used(pg, (unsigned long)i))
			why = "is already free (double free)";
	}
	if (why) {
		pthread_mutex_unlock(&pool->lock);
		dmamap_report(pool->obj.machine, DMAMAP_REPORT_API_MISUSE, pool->devname, NULL, 0,
			      "dma_pool_free(%s): block %p (bus %#llx) %s", pool->name, vaddr,
			      (unsigned long long)dma, why);
		return false;
	}
	pg->used[(unsigned long)i / BITS_PER_LONG_] &= ~(1UL << ((unsigned long)i % BITS_PER_LONG_));
	pg->in_use--;
	pool->in_use--;
	dmamap_track_noaccess(vaddr, pool->size);
	pthread_mutex_unlock(&pool->lock);
	return true;
}

/* ------------------------------------------------------------ the API */

/* Whether the checker looks at calls on @pool: its machine and device live, the checker on. */
static bool checked(struct dma_pool *pool)
{
	return pool && !dmamap_obj_dead(&pool->obj) && pool->dev && dm_dev_live(pool->dev) &&
	       dmamap_debug_on(pool->obj.machine);
}

/* Whether calls on @pool are counted as untracked: its machine live, the checker off. */
static bool unchecked(struct dma_pool *pool)
{
	return pool && !dmamap_obj_dead(&pool->obj) && !dmamap_debug_on(pool->obj.machine);
}

DMAMAP_API void *dmamap_dma_pool_alloc(struct dma_pool *pool, gfp_t mem_flags, dma_addr_t *handle, const char *file,
				       int line)
{
	dm_might_alloc(NULL, mem_flags, "dma_pool_alloc", file, line);
	DM_CALL();
	struct dm_map *map = NULL;
	void *va;

	/* a destroyed pool is compared, never read through */
	if (pool && !dmamap_obj_owned(pool, "dma_pool_alloc", DM_OBJ_POOL, file, line)) {
		if (handle)
			*handle = DMA_MAPPING_ERROR;
		return NULL;
	}
	if (handle && checked(pool)) {
		map = dmamap_debug_pool_prepare(pool->dev, pool->size);
		if (!map) {
			*handle = DMA_MAPPING_ERROR;
			return NULL;
		}
	}
	va = pool_alloc(pool, mem_flags, handle);
	if (map)
		dmamap_debug_pool_alloc_done(map, pool->dev, pool, pool->size, va, *handle, file, line);
	else if (va && unchecked(pool))
		dmamap_debug_untracked(pool->obj.machine, 1);
	return va;
}

DMAMAP_API void *(dma_pool_alloc)(struct dma_pool *pool, gfp_t mem_flags, dma_addr_t *handle)
{
	return dmamap_dma_pool_alloc(pool, mem_flags, handle, NULL, 0);
}

DMAMAP_API void *(dma_pool_zalloc)(struct dma_pool *pool, gfp_t mem_flags, dma_addr_t *handle)
{
	return dmamap_dma_pool_alloc(pool, mem_flags | __GFP_ZERO, handle, NULL, 0);
}

DMAMAP_API void dmamap_dma_pool_free(struct dma_pool *pool, void *vaddr, dma_addr_t dma, const char *file, int line)
{
	DM_CALL();
	struct dm_map *map = NULL;
	bool counted;

	if (pool && !dmamap_obj_owned(pool, "dma_pool_free", DM_OBJ_POOL, file, line))
		return;
	counted = unchecked(pool);
	if (!counted && checked(pool) &&
	    !dmamap_debug_pool_free(pool->dev, pool, pool->size, vaddr, dma, file, line, &map))
		return;
	/* with the checker off, only a block the pool took back is one untracked object fewer */
	if (pool_free(pool, vaddr, dma) && counted)
		dmamap_debug_untracked(pool->obj.machine, -1);
	if (map)
		dmamap_debug_put(map, pool->dev);
}

DMAMAP_API void (dma_pool_free)(struct dma_pool *pool, void *vaddr, dma_addr_t dma)
{
	dmamap_dma_pool_free(pool, vaddr, dma, NULL, 0);
}

DMAMAP_API void dmamap_dma_pool_destroy(struct dma_pool *pool, const char *file, int line)
{
	DM_CALL();
	bool listed;

	if (!pool || !dmamap_obj_owned(pool, "dma_pool_destroy", DM_OBJ_POOL, file, line))
		return;
	listed = checked(pool);
	if (!dmamap_obj_dead(&pool->obj) && pool->dev && dm_dev_live(pool->dev) &&
	    dmamap_devres_holds_pool(pool->dev, pool)) {
		dmamap_report(pool->obj.machine, DMAMAP_REPORT_API_MISUSE, pool->devname, file, line,
			      "dma_pool_destroy(%s): a pool from dmam_pool_create goes with its device, or with "
			      "dmam_pool_destroy; refused",
			      pool->name);
		return;
	}
	if (listed)
		dmamap_debug_pool_destroy(pool->dev, pool);
	pool_destroy(pool, !listed);
}

DMAMAP_API void (dma_pool_destroy)(struct dma_pool *pool)
{
	dmamap_dma_pool_destroy(pool, NULL, 0);
}

/* ----------------------------------------------------------------- stats */

DMAMAP_API void dmamap_dma_pool_stats(struct dma_pool *pool, struct dmamap_dma_pool_stats *st)
{
	if (pool && !dmamap_obj_owned(pool, "dmamap_dma_pool_stats", DM_OBJ_POOL, NULL, 0)) {
		if (st)
			memset(st, 0, sizeof(*st));
		return;
	}
	if (!pool || !st) {
		if (st)
			memset(st, 0, sizeof(*st));
		dmamap_report(pool ? pool->obj.machine : NULL, DMAMAP_REPORT_BAD_INPUT, pool ? pool->devname : NULL, NULL, 0,
			      "dmamap_dma_pool_stats: NULL %s", !pool ? "pool" : "stats");
		return;
	}
	pthread_mutex_lock(&pool->lock);
	st->block_size = pool->size;
	st->blocks_in_use = pool->in_use;
	st->blocks_total = pool->blocks_total;
	st->pages = pool->nr_pages;
	st->high_water = pool->high_water;
	pthread_mutex_unlock(&pool->lock);
}

bool dmamap_dma_pool_block_live(struct dma_pool *pool, const void *vaddr, dma_addr_t dma)
{
	struct dma_pool_page *pg;
	bool live = false;

	pthread_mutex_lock(&pool->lock);
	for (pg = pool->pages; pg; pg = pg->next) {
		size_t off = (size_t)((uintptr_t)vaddr - (uintptr_t)pg->vaddr);
		long i;

		if ((uintptr_t)vaddr < (uintptr_t)pg->vaddr || off >= pg->bytes)
			continue;
		i = block_index(pool, pg, off);
		live = dma - pg->dma == (dma_addr_t)off && i >= 0 && test_used(pg, (unsigned long)i);
		break;
	}
	pthread_mutex_unlock(&pool->lock);
	return live;
}

struct device *dmamap_dma_pool_device(const struct dma_pool *pool)
{
	return pool->dev;
}
