/* SPDX-License-Identifier: MIT */
/*
 * The DMA-API checker: a tracker of every live DMA mapping of a machine.
 *
 * Model
 *
 *   Each live mapping is one record (struct dm_map): a dma_map_single() or
 *   dma_map_page() mapping, or a whole list mapped by dma_map_sg(). A record
 *   holds the device, the direction, the attributes, the file:line of the
 *   call that made it, and its ranges: the bus ranges the device uses (the
 *   handle and size; each mapped segment of a list) and the CPU ranges of
 *   the memory behind them, as physical addresses (the buffer; each entry of
 *   a list). A bounced or IOMMU mapping's bus range says nothing about its
 *   CPU range, so both are kept.
 *
 * Index
 *
 *   One hash table per machine finds records by address in O(1) expected
 *   time. Its keys are (space, page): space is the device for a bus range
 *   (bus addresses are per device) and NULL for a CPU range (physical
 *   addresses are machine-wide). A range is entered once for every page it
 *   touches, through a link (struct dm_link) that knows the whole range, so
 *   "which record holds this address" is one bucket walk whatever the size
 *   of the mapping. A record carries links for small mappings inline; a
 *   larger one gets an array, allocated before the DMA operation runs, so
 *   that nothing can fail once the operation has changed anything.
 *
 * Life of a record
 *
 *   The core calls the tracker around each operation: before a map it
 *   prepares a record (the only step that may fail: the map then fails
 *   without reaching the ops); after the map, the record is filled and
 *   entered, or dropped if the map failed. Before an unmap the record is
 *   taken out of the index, and it is freed once the operation is done.
 *   Records of a device are also on a list hanging from the device, for
 *   what it leaves behind at release.
 *
 * Switching
 *
 *   m->checker_off is read without a lock at each call. Switching off
 *   forgets every record; switching on requires that nothing mapped while
 *   off is still live (m->checker_untracked, kept by the core).
 *
 * Locking
 *
 *   One mutex per machine (dbg->lock) guards the index, the free records,
 *   the device lists and the counters. It is never held across a DMA
 *   operation, nor while a report is delivered.
 */
#include <stdlib.h>

#include "internal.h"

#define DBG_BUCKETS_MIN 512
#define DBG_RECORDS_PER_CHUNK 32

enum dm_kind {
	DK_SINGLE,
	DK_PAGE,
	DK_SG,
	DK_NR
};

struct dm_link {
	struct dm_link *next;          /* in its bucket */
	struct dm_map *map;
	const void *space;             /* the device (bus range), or NULL (CPU range) */
	u64 start, len;                /* the whole range; the link indexes one page of it */
	u64 page;                      /* the page it indexes: the key, with space */
};

#define DBG_INLINE_LINKS 4

struct dm_map {
	struct dm_map *next, *prev;    /* the device's live records; next links free records */
	struct device *dev;
	enum dm_kind kind;
	int dir;
	unsigned long attrs;
	dma_addr_t bus;                /* the handle (a list: its first segment's) */
	size_t size;                   /* bytes mapped (a list: the sum of its entries) */
	phys_addr_t phys;              /* the buffer (a list: its first entry) */
	struct scatterlist *sgl;       /* a list: the list, nents given, segments mapped */
	int nents, mapped;
	const char *file;              /* where it was mapped */
	int line;
	unsigned nlinks, used;         /* links available, links entered */
	struct dm_link *links;         /* inl, or an array of its own */
	struct dm_link inl[DBG_INLINE_LINKS];
};

struct dm_chunk {
	struct dm_chunk *next;
	struct dm_map maps[DBG_RECORDS_PER_CHUNK];
};

struct dmamap_debug {
	pthread_mutex_t lock;
	struct dm_link **buckets;
	unsigned long nbuckets;        /* a power of two */
	unsigned long nlinks;
	struct dm_map *free;
	struct dm_chunk *chunks;
	unsigned long live[DK_NR];
	unsigned long tracked;
};

/* ---------------------------------------------------------------- helpers */

static struct dmamap_debug *dbg_of(struct dmamap_machine *m)
{
	return atomic_load_explicit(&m->debug, memory_order_acquire);
}

/* The checker's own host memory: it can be failed on its own (DMAMAP_FAULT_CHECKER). */
static void *dbg_calloc(struct dmamap_machine *m, size_t n, size_t size)
{
	if (dmamap_should_fail(m, DMAMAP_FAULT_CHECKER))
		return NULL;
	return calloc(n ? n : 1, size ? size : 1);
}

/* Pages [start, start + len) touches (len > 0). */
static unsigned long pages_spanned(u64 start, u64 len)
{
	return (unsigned long)(((start + len - 1) >> PAGE_SHIFT) - (start >> PAGE_SHIFT) + 1);
}

/* The most pages a range of @len bytes can touch, wherever it starts. */
static unsigned long pages_at_most(u64 len)
{
	return (unsigned long)((len + PAGE_SIZE - 1) >> PAGE_SHIFT) + 1;
}

static unsigned long bucket_of(const struct dmamap_debug *dbg, const void *space, u64 page)
{
	u64 h = ((u64)(uintptr_t)space * 0x9e3779b97f4a7c15ULL) ^ (page * 0xc2b2ae3d27d4eb4fULL);

	h ^= h >> 29;
	return (unsigned long)(h & (dbg->nbuckets - 1));
}

/* Double the table when it is crowded; on no memory, keep the longer chains. Lock held. */
static void maybe_grow(struct dmamap_machine *m, struct dmamap_debug *dbg)
{
	struct dm_link **old = dbg->buckets, **nb;
	unsigned long oldn = dbg->nbuckets;

	if (dbg->nlinks <= 2 * oldn)
		return;
	nb = dbg_calloc(m, 2 * oldn, sizeof(*nb));
	if (!nb)
		return;
	dbg->buckets = nb;
	dbg->nbuckets = 2 * oldn;
	for (unsigned long b = 0; b < oldn; b++) {
		for (struct dm_link *l = old[b], *next; l; l = next) {
			unsigned long nbk = bucket_of(dbg, l->space, l->page);

			next = l->next;
			l->next = nb[nbk];
			nb[nbk] = l;
		}
	}
	free(old);
}

/* Enter range [start, start + len) of @space for @map, one link per page. Lock held; links reserved. */
static void index_range(struct dmamap_debug *dbg, struct dm_map *map, const void *space, u64 start, u64 len)
{
	u64 first = start >> PAGE_SHIFT, last = (start + len - 1) >> PAGE_SHIFT;

	for (u64 p = first; p <= last; p++) {
		struct dm_link *l = &map->links[map->used++];
		unsigned long b = bucket_of(dbg, space, p);

		l->map = map;
		l->space = space;
		l->start = start;
		l->len = len;
		l->page = p;
		l->next = dbg->buckets[b];
		dbg->buckets[b] = l;
		dbg->nlinks++;
	}
}

/* Take every link of @map out of the index. Lock held. */
static void unindex(struct dmamap_debug *dbg, struct dm_map *map)
{
	for (unsigned i = 0; i < map->used; i++) {
		struct dm_link *l = &map->links[i], **pp = &dbg->buckets[bucket_of(dbg, l->space, l->page)];

		while (*pp != l)
			pp = &(*pp)->next;
		*pp = l->next;
		dbg->nlinks--;
	}
	map->used = 0;
}

/* The record of @dev whose bus range starts exactly at @addr (of kind @kind, or any when DK_NR). Lock held. */
static struct dm_map *find_bus_start(struct dmamap_debug *dbg, struct device *dev, dma_addr_t addr)
{
	for (struct dm_link *l = dbg->buckets[bucket_of(dbg, dev, addr >> PAGE_SHIFT)]; l; l = l->next)
		if (l->space == dev && l->page == addr >> PAGE_SHIFT && l->start == addr)
			return l->map;
	return NULL;
}

static void dev_list_add(struct dm_map *map)
{
	struct device *dev = map->dev;

	map->prev = NULL;
	map->next = dev->dmamap.debug;
	if (map->next)
		map->next->prev = map;
	dev->dmamap.debug = map;
}

static void dev_list_del(struct dm_map *map)
{
	if (map->prev)
		map->prev->next = map->next;
	else
		map->dev->dmamap.debug = map->next;
	if (map->next)
		map->next->prev = map->prev;
	map->next = map->prev = NULL;
}

/* A record with room for @nlinks links, or NULL on no memory. Lock held. */
static struct dm_map *map_alloc(struct dmamap_machine *m, struct dmamap_debug *dbg, unsigned long nlinks)
{
	struct dm_link *links = NULL;
	struct dm_map *map;

	if (nlinks > DBG_INLINE_LINKS) {
		links = dbg_calloc(m, nlinks, sizeof(*links));
		if (!links)
			return NULL;
	}
	if (!dbg->free) {
		struct dm_chunk *c = dbg_calloc(m, 1, sizeof(*c));

		if (!c) {
			free(links);
			return NULL;
		}
		c->next = dbg->chunks;
		dbg->chunks = c;
		for (unsigned i = 0; i < DBG_RECORDS_PER_CHUNK; i++) {
			c->maps[i].next = dbg->free;
			dbg->free = &c->maps[i];
		}
	}
	map = dbg->free;
	dbg->free = map->next;
	memset(map, 0, sizeof(*map));
	map->links = links ? links : map->inl;
	map->nlinks = links ? (unsigned)nlinks : DBG_INLINE_LINKS;
	return map;
}

/* Give a record back (out of the index and off its device's list). Lock held. */
static void map_free(struct dmamap_debug *dbg, struct dm_map *map)
{
	if (map->links != map->inl)
		free(map->links);
	map->links = NULL;
	map->next = dbg->free;
	dbg->free = map;
}

/* Take a live record out of the index, its device's list and the counts. Lock held. */
static void take_out(struct dmamap_debug *dbg, struct dm_map *map)
{
	unindex(dbg, map);
	dev_list_del(map);
	dbg->live[map->kind]--;
}

/* ---------------------------------------------------------------- machine */

int dmamap_debug_machine_init(struct dmamap_machine *m)
{
	struct dmamap_debug *dbg;

	if (dbg_of(m))
		return 0;
	pthread_mutex_lock(&m->obj_lock);
	if (dbg_of(m)) {
		pthread_mutex_unlock(&m->obj_lock);
		return 0;
	}
	dbg = calloc(1, sizeof(*dbg));
	if (dbg)
		dbg->buckets = calloc(DBG_BUCKETS_MIN, sizeof(*dbg->buckets));
	if (!dbg || !dbg->buckets) {
		free(dbg);
		pthread_mutex_unlock(&m->obj_lock);
		return -ENOMEM;
	}
	dbg->nbuckets = DBG_BUCKETS_MIN;
	pthread_mutex_init(&dbg->lock, NULL);
	atomic_store_explicit(&m->debug, dbg, memory_order_release);
	pthread_mutex_unlock(&m->obj_lock);
	return 0;
}

/* Drop every record (their devices' lists too). Lock held. */
static void forget_all(struct dmamap_debug *dbg)
{
	for (unsigned long b = 0; b < dbg->nbuckets; b++)
		for (struct dm_link *l = dbg->buckets[b]; l; l = l->next)
			l->map->dev->dmamap.debug = NULL;
	for (unsigned long b = 0; b < dbg->nbuckets; b++) {
		while (dbg->buckets[b]) {
			struct dm_map *map = dbg->buckets[b]->map;

			unindex(dbg, map);
			map_free(dbg, map);
		}
	}
	memset(dbg->live, 0, sizeof(dbg->live));
}

void dmamap_debug_machine_fini(struct dmamap_machine *m)
{
	struct dmamap_debug *dbg = dbg_of(m);

	if (!dbg)
		return;
	pthread_mutex_lock(&dbg->lock);
	forget_all(dbg);
	pthread_mutex_unlock(&dbg->lock);
	while (dbg->chunks) {
		struct dm_chunk *c = dbg->chunks;

		dbg->chunks = c->next;
		free(c);
	}
	free(dbg->buckets);
	pthread_mutex_destroy(&dbg->lock);
	atomic_store(&m->debug, NULL);
	free(dbg);
}

void dmamap_debug_device_release(struct device *dev)
{
	struct dmamap_debug *dbg = dbg_of(dm_dev_machine(dev));

	if (!dbg)
		return;
	pthread_mutex_lock(&dbg->lock);
	while (dev->dmamap.debug) {
		struct dm_map *map = dev->dmamap.debug;

		take_out(dbg, map);
		map_free(dbg, map);
	}
	pthread_mutex_unlock(&dbg->lock);
}

DMAMAP_API int dmamap_checker_enable(struct dmamap_machine *m, bool on)
{
	struct dmamap_debug *dbg;

	if (!m)
		return -EINVAL;
	if (on == dmamap_debug_on(m))
		return 0;
	if (on) {
		if (atomic_load(&m->checker_untracked) > 0)
			return -EBUSY;
		atomic_store(&m->checker_off, false);
		return 0;
	}
	dbg = dbg_of(m);
	if (dbg)
		pthread_mutex_lock(&dbg->lock);
	atomic_store(&m->checker_off, true);
	atomic_store(&m->checker_untracked, 0);
	if (dbg) {
		forget_all(dbg);
		pthread_mutex_unlock(&dbg->lock);
	}
	return 0;
}

DMAMAP_API bool dmamap_checker_enabled(struct dmamap_machine *m)
{
	return m && dmamap_debug_on(m);
}

DMAMAP_API void dmamap_checker_stats(struct dmamap_machine *m, struct dmamap_checker_stats *st)
{
	struct dmamap_debug *dbg;

	if (!st)
		return;
	memset(st, 0, sizeof(*st));
	if (!m)
		return;
	st->untracked_live = (unsigned long)DM_MAX(0L, atomic_load(&m->checker_untracked));
	dbg = dbg_of(m);
	if (!dbg)
		return;
	pthread_mutex_lock(&dbg->lock);
	st->live_single = dbg->live[DK_SINGLE];
	st->live_page = dbg->live[DK_PAGE];
	st->live_sg = dbg->live[DK_SG];
	st->tracked = dbg->tracked;
	pthread_mutex_unlock(&dbg->lock);
}

/* ------------------------------------------------------------- streaming */

void dmamap_debug_untracked(struct dmamap_machine *m, long delta)
{
	atomic_fetch_add_explicit(&m->checker_untracked, delta, memory_order_relaxed);
}

/* Reserve a record for a mapping needing at most @nlinks links. NULL: no memory (logged). */
static struct dm_map *prepare(struct device *dev, unsigned long nlinks, const char *what)
{
	struct dmamap_machine *m = dm_dev_machine(dev);
	struct dmamap_debug *dbg = dbg_of(m);
	struct dm_map *map;

	if (!dbg)
		return NULL;
	pthread_mutex_lock(&dbg->lock);
	map = map_alloc(m, dbg, nlinks);
	pthread_mutex_unlock(&dbg->lock);
	if (!map)
		dmamap_log(m, DMAMAP_LOG_WARN, dev->dmamap.name, "%s: the DMA-API checker has no memory to track it", what);
	return map;
}

struct dm_map *dmamap_debug_map_prepare(struct device *dev, unsigned long offset, size_t size)
{
	return prepare(dev, pages_spanned(offset, size) + pages_at_most(size), "dma_map");
}

/* Give back a prepared record that was never entered. */
static void unprepare(struct dm_map *map, struct device *dev)
{
	struct dmamap_debug *dbg = dbg_of(dm_dev_machine(dev));

	pthread_mutex_lock(&dbg->lock);
	map_free(dbg, map);
	pthread_mutex_unlock(&dbg->lock);
}

/* Enter a filled record. Lock held. */
static void enter_map(struct dmamap_debug *dbg, struct dm_map *map)
{
	dev_list_add(map);
	dbg->live[map->kind]++;
	dbg->tracked++;
}

void dmamap_debug_map_done(struct dm_map *map, struct device *dev, bool page_call, struct page *page,
			   unsigned long offset, size_t size, int dir, struct dma_attrs *attrs, dma_addr_t addr,
			   bool failed, const char *file, int line)
{
	struct dmamap_debug *dbg = dbg_of(dm_dev_machine(dev));

	if (failed) {
		unprepare(map, dev);
		return;
	}
	map->dev = dev;
	map->kind = page_call ? DK_PAGE : DK_SINGLE;
	map->dir = dir;
	map->attrs = attrs ? attrs->flags : 0;
	map->bus = addr;
	map->size = size;
	map->phys = page_to_phys(page) + offset;
	map->file = file;
	map->line = line;
	pthread_mutex_lock(&dbg->lock);
	index_range(dbg, map, dev, addr, size);
	index_range(dbg, map, NULL, map->phys, size);
	enter_map(dbg, map);
	maybe_grow(dm_dev_machine(dev), dbg);
	pthread_mutex_unlock(&dbg->lock);
}

/* Take the record of @dev mapped at @addr out of the index; NULL when none. */
struct dm_map *dmamap_debug_unmap(struct device *dev, dma_addr_t addr)
{
	struct dmamap_debug *dbg = dbg_of(dm_dev_machine(dev));
	struct dm_map *map;

	if (!dbg)
		return NULL;
	pthread_mutex_lock(&dbg->lock);
	map = find_bus_start(dbg, dev, addr);
	if (map && map->kind != DK_SG)
		take_out(dbg, map);
	else
		map = NULL;
	pthread_mutex_unlock(&dbg->lock);
	return map;
}

void dmamap_debug_put(struct dm_map *map, struct device *dev)
{
	if (map)
		unprepare(map, dev);
}

/* ------------------------------------------------------------------ lists */

struct dm_map *dmamap_debug_map_sg_prepare(struct device *dev, struct scatterlist *sg, int nents)
{
	unsigned long nlinks = 0;
	struct scatterlist *s;
	int i;

	for_each_sg(sg, s, nents, i)
		nlinks += pages_spanned(s->offset, s->length) + pages_at_most(s->length);
	return prepare(dev, nlinks, "dma_map_sg");
}

void dmamap_debug_map_sg_done(struct dm_map *map, struct device *dev, struct scatterlist *sg, int nents, int mapped,
			      int dir, struct dma_attrs *attrs, const char *file, int line)
{
	struct dmamap_debug *dbg = dbg_of(dm_dev_machine(dev));
	struct scatterlist *s;
	int i;

	if (mapped <= 0) {
		unprepare(map, dev);
		return;
	}
	map->dev = dev;
	map->kind = DK_SG;
	map->dir = dir;
	map->attrs = attrs ? attrs->flags : 0;
	map->sgl = sg;
	map->nents = nents;
	map->mapped = mapped;
	map->bus = sg_dma_address(sg);
	map->phys = sg_phys(sg);
	map->file = file;
	map->line = line;
	pthread_mutex_lock(&dbg->lock);
	for_each_sg(sg, s, mapped, i)
		if (sg_dma_len(s))
			index_range(dbg, map, dev, sg_dma_address(s), sg_dma_len(s));
	for_each_sg(sg, s, nents, i) {
		index_range(dbg, map, NULL, sg_phys(s), s->length);
		map->size += s->length;
	}
	enter_map(dbg, map);
	maybe_grow(dm_dev_machine(dev), dbg);
	pthread_mutex_unlock(&dbg->lock);
}

/* Take the record of the list @sg of @dev out of the index; NULL when none. */
struct dm_map *dmamap_debug_unmap_sg(struct device *dev, struct scatterlist *sg)
{
	struct dmamap_debug *dbg = dbg_of(dm_dev_machine(dev));
	struct dm_map *map;

	if (!dbg)
		return NULL;
	pthread_mutex_lock(&dbg->lock);
	map = find_bus_start(dbg, dev, sg_dma_address(sg));
	if (map && map->kind == DK_SG && map->sgl == sg)
		take_out(dbg, map);
	else
		map = NULL;
	pthread_mutex_unlock(&dbg->lock);
	return map;
}
