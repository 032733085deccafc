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
 *   forgets every record and counts what they were as untracked; switching
 *   on requires that nothing the checker does not know is still live
 *   (m->checker_untracked, counted up and down by the core while off).
 *
 * Locking
 *
 *   One spinlock per machine (dbg->lock) guards the index, the free records,
 *   the device lists and the counters: every critical section is a few
 *   bucket walks, the rare table growth aside. It is never held across a
 *   DMA operation, nor while a report is delivered, nor while calling any
 *   other module but the host allocator and fault injection.
 */
#include <stdio.h>
#include <stdlib.h>

#include "internal.h"

#define DBG_BUCKETS_MIN 512
#define DBG_RECORDS_PER_CHUNK 32

enum dm_kind {
	DK_SINGLE,
	DK_PAGE,
	DK_SG,
	DK_COHERENT,
	DK_POOL,
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

/* A part of a streaming record's bus range (and, of the CPU's parts, the sync that gave it). */
struct dm_span {
	u64 lo, hi;
	const char *file;
	int line;
};

#define DBG_INLINE_SPANS 2
#define DBG_SNAP_MAX (1UL << 20)       /* the largest dirty buffer whose CPU view is copied at a hand-over */
#define DBG_MAX_SPANS 1024             /* more parts than this, and a record's ownership is no longer judged */

/* Parts of a record, in address order, none touching the next: the record's inline room, or an array. */
struct dm_spans {
	unsigned n, cap;               /* cap: the array's room (0: none, the inline room is used) */
	struct dm_span *more;          /* the array, once the inline room was too small */
};

struct dm_map {
	struct dm_map *next, *prev;    /* the device's live records; next links free records */
	struct device *dev;
	enum dm_kind kind;
	int dir;
	unsigned refs;                 /* calls holding it across their DMA operation */
	bool live;                     /* in the index (else taken out, freed at the last put) */
	bool checked;                  /* dma_mapping_error() was asked about its handle */
	bool unchecked_told;           /* ... and its absence was reported */
	bool internal;                 /* made by the library within another call (a pool's page...) */
	bool cpu_all;                  /* the CPU owns all of it (synced for the CPU) */
	bool dev_wrote;                /* the device wrote it since the CPU last took some of it */
	bool lost;                     /* no memory to follow who owns which part: ownership is not judged */
	bool watch;                    /* a store to its device-owned bytes since the hand-over would show */
	bool direct;                   /* the device reaches the buffer itself (not a bounce copy) */
	bool edge_warned;              /* its shared edge line was reported at map time */
	bool poisoned;                 /* the CPU view of its device-owned part is off limits (memcheck) */
	u8 *snap;                      /* the CPU's view at the hand-over, where the buffer was dirty already */
	struct dm_spans own;           /* else the parts of it the CPU owns (partial syncs), in own_inl */
	struct dm_spans wrote;         /* the parts the device wrote since they were last handed to it, in wrote_inl */
	const char *own_file;          /* the sync that gave all of it to the CPU */
	int own_line;
	unsigned long attrs;
	bool noncoherent;              /* a dma_alloc_noncoherent() buffer, allocated for nc_dir */
	int nc_dir;
	const char *alloc_call;        /* the call that made it and the one that releases it, when not its kind's */
	const char *free_call;
	dma_addr_t bus;                /* the handle (a list: its first segment's) */
	size_t size;                   /* bytes mapped (a list: the sum of its entries) */
	phys_addr_t phys;              /* the buffer (a list: its first entry) */
	const void *cpu;               /* a coherent buffer or pool block: what the driver was given */
	struct dma_pool *pool;         /* a pool block: its pool */
	struct scatterlist *sgl;       /* a list: the list, nents given, segments mapped */
	int nents, mapped;
	const char *file;              /* where it was mapped */
	int line;
	unsigned nlinks, used;         /* links available, links entered */
	struct dm_link *links;         /* inl, or an array of its own */
	struct dm_link inl[DBG_INLINE_LINKS];
	/* past what a new record clears: meaningful only up to own.n and wrote.n */
	struct dm_span own_inl[DBG_INLINE_SPANS], wrote_inl[DBG_INLINE_SPANS];
};

struct dm_chunk {
	struct dm_chunk *next;
	struct dm_map maps[DBG_RECORDS_PER_CHUNK];
};

/* What an unmap or free leaves behind, so that a second one is told apart from a stray one. */
struct dm_tomb {
	const struct device *dev;
	dma_addr_t bus;
	size_t size;
	int dir;
	enum dm_kind kind;
	int nents, mapped;             /* a list's */
	const char *alloc_call;        /* the call that made it, when not its kind's */
	const char *file, *gone_file;  /* where it was made, and released */
	int line, gone_line;
};

#define DBG_TOMBS 512

struct dmamap_debug {
	pthread_spinlock_t lock;
	struct dmamap_machine *m;
	struct dm_tomb tombs[DBG_TOMBS]; /* the last release at each hash slot */
	struct dm_link **buckets;
	unsigned long nbuckets;        /* a power of two */
	unsigned long nlinks;
	struct dm_map *free;
	struct dm_chunk *chunks;
	unsigned long live[DK_NR];
	unsigned long internal_live[DK_NR]; /* of which the library's own */
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
	u64 h = ((u64)(uintptr_t)space ^ page) * 0x9e3779b97f4a7c15ULL;

	return (unsigned long)(h >> 32) & (dbg->nbuckets - 1);
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

static void poison_owned(struct dmamap_machine *m, struct dm_map *map, bool gone);

/* Take every link of @map out of the index (the CPU may touch all of it again). Lock held. */
static void unindex(struct dmamap_debug *dbg, struct dm_map *map)
{
	poison_owned(dbg->m, map, true);
	for (unsigned i = 0; i < map->used; i++) {
		struct dm_link *l = &map->links[i], **pp = &dbg->buckets[bucket_of(dbg, l->space, l->page)];

		while (*pp != l)
			pp = &(*pp)->next;
		*pp = l->next;
		dbg->nlinks--;
	}
	map->used = 0;
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
	static const struct dm_map blank;
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
	/* a copy of a constant size, not memset(): compilers make that a slow rep stos here */
	memcpy(map, &blank, offsetof(struct dm_map, inl)); /* the links are written as they are entered */
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
	free(map->own.more);
	free(map->wrote.more);
	free(map->snap);
	map->own.more = map->wrote.more = NULL;
	map->snap = NULL;
	map->next = dbg->free;
	dbg->free = map;
}

/* Take a live record out of the index, its device's list and the counts. Lock held. */
static void take_out(struct dmamap_debug *dbg, struct dm_map *map)
{
	unindex(dbg, map);
	dev_list_del(map);
	dbg->live[map->kind]--;
	dbg->internal_live[map->kind] -= map->internal;
	map->live = false;
}

/* A record no longer live: freed now, or by the last call holding it. Lock held. */
static void drop(struct dmamap_debug *dbg, struct dm_map *map)
{
	map->live = false;
	if (!map->refs)
		map_free(dbg, map);
}

static bool memory_busy(struct dmamap_machine *m, phys_addr_t phys, size_t len, const char *what);

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
	dbg->m = m;
	pthread_spin_init(&dbg->lock, PTHREAD_PROCESS_PRIVATE);
	m->dma_busy = memory_busy;
	atomic_store_explicit(&m->debug, dbg, memory_order_release);
	pthread_mutex_unlock(&m->obj_lock);
	return 0;
}

/* Records live now, the library's own included. Lock held. */
static unsigned long live_records(const struct dmamap_debug *dbg)
{
	unsigned long n = 0;

	for (int k = 0; k < DK_NR; k++)
		n += dbg->live[k];
	return n;
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
			map->next = map->prev = NULL;
			drop(dbg, map);
		}
	}
	memset(dbg->live, 0, sizeof(dbg->live));
	memset(dbg->internal_live, 0, sizeof(dbg->internal_live));
}

void dmamap_debug_machine_fini(struct dmamap_machine *m)
{
	struct dmamap_debug *dbg = dbg_of(m);

	if (!dbg)
		return;
	pthread_spin_lock(&dbg->lock);
	forget_all(dbg);
	pthread_spin_unlock(&dbg->lock);
	while (dbg->chunks) {
		struct dm_chunk *c = dbg->chunks;

		dbg->chunks = c->next;
		free(c);
	}
	free(dbg->buckets);
	pthread_spin_destroy(&dbg->lock);
	m->dma_busy = NULL;
	atomic_store(&m->debug, NULL);
	free(dbg);
}

void dmamap_debug_device_release(struct device *dev)
{
	struct dmamap_debug *dbg = dbg_of(dm_dev_machine(dev));

	if (!dbg)
		return;
	pthread_spin_lock(&dbg->lock);
	while (dev->dmamap.debug) {
		struct dm_map *map = dev->dmamap.debug;

		take_out(dbg, map);
		drop(dbg, map);
	}
	for (unsigned i = 0; i < DBG_TOMBS; i++)
		if (dbg->tombs[i].dev == dev)
			dbg->tombs[i].dev = NULL;
	pthread_spin_unlock(&dbg->lock);
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
	if (!dbg) {
		atomic_store(&m->checker_off, true);
		return 0;
	}
	/*
	 * What is live now becomes unknown to the checker, as what is made
	 * while off will be: its release, counted down by the core like
	 * theirs, must happen before the checker may come back on.
	 */
	pthread_spin_lock(&dbg->lock);
	atomic_store(&m->checker_off, true);
	atomic_store(&m->checker_untracked, (long)live_records(dbg));
	forget_all(dbg);
	pthread_spin_unlock(&dbg->lock);
	return 0;
}

DMAMAP_API int dmamap_checker_poison(struct dmamap_machine *m, bool on)
{
	struct dmamap_debug *dbg;

	if (!m)
		return -EINVAL;
	pthread_mutex_lock(&m->obj_lock); /* one switch at a time */
	dbg = dbg_of(m);
	if (dbg)
		pthread_spin_lock(&dbg->lock);
	if (on != !atomic_load(&m->poison_off)) {
		atomic_store(&m->poison_off, !on);
		for (unsigned long b = 0; dbg && b < dbg->nbuckets; b++) {
			for (struct dm_link *l = dbg->buckets[b]; l; l = l->next) {
				if (l != &l->map->links[0])
					continue;
				if (on) {
					poison_owned(m, l->map, false);
				} else if (l->map->poisoned) {
					poison_owned(m, l->map, true);
					l->map->poisoned = false;
				}
			}
		}
	}
	if (dbg)
		pthread_spin_unlock(&dbg->lock);
	pthread_mutex_unlock(&m->obj_lock);
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
	pthread_spin_lock(&dbg->lock);
	st->live_single = dbg->live[DK_SINGLE];
	st->live_page = dbg->live[DK_PAGE];
	st->live_sg = dbg->live[DK_SG];
	st->live_coherent = dbg->live[DK_COHERENT] - dbg->internal_live[DK_COHERENT];
	st->live_pool = dbg->live[DK_POOL] - dbg->internal_live[DK_POOL];
	st->tracked = dbg->tracked;
	pthread_spin_unlock(&dbg->lock);
}

/* --------------------------------------------------------------- reports */

static const char *const kind_map_call[DK_NR] = { "dma_map_single", "dma_map_page", "dma_map_sg", "dma_alloc_attrs",
						  "dma_pool_alloc" };
static const char *const kind_unmap_call[DK_NR] = { "dma_unmap_single", "dma_unmap_page", "dma_unmap_sg",
						    "dma_free_attrs", "dma_pool_free" };

/* The call that made @map, and the one that releases it: its kind's, or the 6.x call's that made a buffer. */
static const char *map_call(const struct dm_map *map)
{
	return map->alloc_call ? map->alloc_call : kind_map_call[map->kind];
}

static const char *unmap_call(const struct dm_map *map)
{
	return map->free_call ? map->free_call : kind_unmap_call[map->kind];
}

#define DBG_MAX_REPORTS 4

/* Reports found under the lock, delivered after it is dropped. */
struct dm_reports {
	int n;
	const struct dm_map *lost;     /* a record that ran out of memory to follow its ownership */
	struct {
		enum dmamap_report_kind kind;
		struct dm_detail d;
		char msg[480];
	} r[DBG_MAX_REPORTS];
};

/* "dma_map_single(DMA_FROM_DEVICE) of 0x800 bytes at bus 0x40010000" */
static int describe(const struct dm_map *map, char *buf, size_t n)
{
	if (map->kind == DK_SG)
		return snprintf(buf, n, "dma_map_sg(%s) of %d entries (%d segments) at bus %#llx",
				dmamap_dir_name(map->dir), map->nents, map->mapped, (unsigned long long)map->bus);
	if ((map->kind == DK_COHERENT || map->kind == DK_POOL) && map->cpu)
		return snprintf(buf, n, "%s of %#zx bytes at bus %#llx (cpu %p)", map_call(map), map->size,
				(unsigned long long)map->bus, map->cpu);
	if (map->kind == DK_COHERENT || map->kind == DK_POOL)
		return snprintf(buf, n, "%s of %#zx bytes at bus %#llx", map_call(map), map->size,
				(unsigned long long)map->bus);
	return snprintf(buf, n, "%s(%s) of %#zx bytes at bus %#llx", kind_map_call[map->kind],
			dmamap_dir_name(map->dir), map->size, (unsigned long long)map->bus);
}

/* Queue a report about @map (may be NULL) for the call naming [bus, bus + size) with @dir. */
DMAMAP_PRINTF(7, 8)
static void rep_add(struct dm_reports *rs, enum dmamap_report_kind kind, const struct dm_map *map, dma_addr_t bus,
		    size_t size, int dir, const char *fmt, ...)
{
	va_list ap;
	size_t used;

	if (rs->n == DBG_MAX_REPORTS)
		return;
	memset(&rs->r[rs->n], 0, sizeof(rs->r[rs->n]));
	rs->r[rs->n].kind = kind;
	rs->r[rs->n].d.bus = bus;
	rs->r[rs->n].d.size = size;
	rs->r[rs->n].d.dir = dir;
	if (map) {
		rs->r[rs->n].d.map_file = map->file;
		rs->r[rs->n].d.map_line = map->line;
		rs->r[rs->n].d.map_bus = map->bus;
		rs->r[rs->n].d.map_size = map->size;
		rs->r[rs->n].d.map_dir = map->dir;
	}
	va_start(ap, fmt);
	vsnprintf(rs->r[rs->n].msg, sizeof(rs->r[rs->n].msg), fmt, ap);
	va_end(ap);
	used = strlen(rs->r[rs->n].msg);
	if (map && used < sizeof(rs->r[rs->n].msg) - 8) {
		memcpy(rs->r[rs->n].msg + used, " [", 3);
		used += 2;
		used += (size_t)DM_MAX(0, describe(map, rs->r[rs->n].msg + used, sizeof(rs->r[rs->n].msg) - used - 1));
		if (used < sizeof(rs->r[rs->n].msg) - 1)
			memcpy(rs->r[rs->n].msg + used, "]", 2);
	}
	rs->n++;
}

static void rep_flush(struct device *dev, const struct dm_reports *rs)
{
	if (rs->lost)
		dmamap_log(dm_dev_machine(dev), DMAMAP_LOG_WARN, dev->dmamap.name,
			   "the DMA-API checker has no memory to follow which parts of the mapping made at %s:%d the CPU "
			   "owns; it stops judging that mapping's ownership",
			   rs->lost->file ? rs->lost->file : "?", rs->lost->line);
	for (int i = 0; i < rs->n; i++)
		dmamap_report_detail(dm_dev_machine(dev), rs->r[i].kind, dev->dmamap.name, &rs->r[i].d, "%s",
				     rs->r[i].msg);
}

/* ----------------------------------------------------------------- lookups */

/* What a release names, to pick the best of several records at one address (as dma-debug does). */
struct dm_want {
	enum dm_kind kind;
	size_t size;
	int dir;
	const struct scatterlist *sgl;
};

/* Whether the call now running was made by the library itself (its records are not the driver's). */
static bool library_call(void)
{
	return dm_call_nested();
}

/* The record of @dev whose bus range starts at @addr, the one agreeing best with @w. Lock held. */
static struct dm_map *find_bus_start(struct dmamap_debug *dbg, struct device *dev, dma_addr_t addr,
				     const struct dm_want *w)
{
	struct dm_map *best = NULL;
	int best_score = -1;

	for (struct dm_link *l = dbg->buckets[bucket_of(dbg, dev, addr >> PAGE_SHIFT)]; l; l = l->next) {
		int score;

		if (l->space != dev || l->page != addr >> PAGE_SHIFT || l->start != addr)
			continue;
		if (!w)
			return l->map;
		score = 16 * (l->map->internal == library_call()) + 8 * (l->map->kind == w->kind) +
			4 * (l->map->sgl == w->sgl) + 2 * (l->map->size == w->size) + (l->map->dir == w->dir);
		if (score > best_score) {
			best = l->map;
			best_score = score;
		}
	}
	return best;
}

/*
 * The link of @dev's bus range holding @addr, or NULL. Where two records hold
 * it (dmabounce's safe buffer lies in a pool the library mapped itself), the
 * one made at the caller's level wins: the driver's own mapping for a driver's
 * call, the library's for its nested calls. A driver's call never finds the
 * library's own records: it holds nothing there. Lock held.
 */
static struct dm_link *find_bus_containing(struct dmamap_debug *dbg, struct device *dev, dma_addr_t addr)
{
	struct dm_link *other = NULL;
	bool internal = library_call();

	for (struct dm_link *l = dbg->buckets[bucket_of(dbg, dev, addr >> PAGE_SHIFT)]; l; l = l->next) {
		if (l->space != dev || l->page != addr >> PAGE_SHIFT || addr - l->start >= l->len)
			continue;
		if (l->map->internal == internal)
			return l;
		if (!other && internal)
			other = l;
	}
	return other;
}

/* Whether @map's bus range holds @addr of @dev. Lock held. */
static bool bus_in_map(struct dmamap_debug *dbg, struct device *dev, dma_addr_t addr, const struct dm_map *map)
{
	for (struct dm_link *l = dbg->buckets[bucket_of(dbg, dev, addr >> PAGE_SHIFT)]; l; l = l->next)
		if (l->map == map && l->space == dev && l->page == addr >> PAGE_SHIFT && addr - l->start < l->len)
			return true;
	return false;
}

static struct dm_tomb *tomb_slot(struct dmamap_debug *dbg, const struct device *dev, dma_addr_t bus)
{
	u64 h = ((u64)(uintptr_t)dev * 0x9e3779b97f4a7c15ULL) ^ (bus * 0xff51afd7ed558ccdULL);

	return &dbg->tombs[(h ^ (h >> 32)) % DBG_TOMBS];
}

/* Whether a record of @kind at @addr of @dev was released lately. Lock held. */
static bool buried(struct dmamap_debug *dbg, const struct device *dev, dma_addr_t addr, enum dm_kind kind)
{
	const struct dm_tomb *t = tomb_slot(dbg, dev, addr);

	return t->dev == dev && t->bus == addr && t->kind == kind;
}

/* What a report needs of a released record. */
static struct dm_map tomb_ghost(const struct dm_tomb *t)
{
	struct dm_map ghost = { .kind = t->kind, .dir = t->dir, .bus = t->bus, .size = t->size, .file = t->file,
				.line = t->line, .nents = t->nents, .mapped = t->mapped, .alloc_call = t->alloc_call };

	return ghost;
}

/* Remember that @map was released at @file:@line. Lock held. */
static void bury(struct dmamap_debug *dbg, const struct dm_map *map, const char *file, int line)
{
	struct dm_tomb *t;

	/* the library's own records are released within a driver's call, at the same bus: not over its tomb */
	if (map->internal)
		return;
	t = tomb_slot(dbg, map->dev, map->bus);
	t->dev = map->dev;
	t->bus = map->bus;
	t->size = map->size;
	t->dir = map->dir;
	t->kind = map->kind;
	t->nents = map->nents;
	t->mapped = map->mapped;
	t->alloc_call = map->alloc_call;
	t->file = map->file;
	t->line = map->line;
	t->gone_file = file;
	t->gone_line = line;
}

/*
 * @what names @addr of @dev, which has no record starting there: say why
 * (already released, inside another mapping, or nothing at all). Lock held.
 */
static void missing(struct dmamap_debug *dbg, struct dm_reports *rs, struct device *dev, const char *what,
		    dma_addr_t addr, size_t size, int dir, bool release)
{
	struct dm_tomb *t = tomb_slot(dbg, dev, addr);
	struct dm_link *l;

	if (t->dev == dev && t->bus == addr) {
		struct dm_map ghost = tomb_ghost(t);

		rep_add(rs, release ? DMAMAP_REPORT_DOUBLE_UNMAP : DMAMAP_REPORT_NOT_MAPPED, &ghost, addr, size, dir,
			"%s of bus %#llx+%#zx: that mapping was already released at %s:%d; refused", what,
			(unsigned long long)addr, size, t->gone_file ? t->gone_file : "?", t->gone_line);
		return;
	}
	l = find_bus_containing(dbg, dev, addr);
	if (l) {
		rep_add(rs, DMAMAP_REPORT_NOT_MAPPED, l->map, addr, size, dir,
			"%s of bus %#llx+%#zx: the address lies %#llx bytes into a mapping, not at its start; refused",
			what, (unsigned long long)addr, size, (unsigned long long)(addr - l->start));
		return;
	}
	rep_add(rs, DMAMAP_REPORT_NOT_MAPPED, NULL, addr, size, dir,
		"%s of bus %#llx+%#zx: the device has no live mapping there; refused (nothing changed)", what,
		(unsigned long long)addr, size);
}

/* A handle used before dma_mapping_error() was asked about it: say so once. Lock held. */
static void check_checked(struct dm_reports *rs, struct dm_map *map, const char *what, dma_addr_t addr, size_t size,
			  int dir)
{
	if (map->checked || map->unchecked_told || map->kind == DK_SG)
		return;
	map->unchecked_told = true;
	rep_add(rs, DMAMAP_REPORT_UNCHECKED_ERROR, map, addr, size, dir,
		"%s of bus %#llx: dma_mapping_error() was never called on the handle %s returned", what,
		(unsigned long long)addr, kind_map_call[map->kind]);
}

/* ------------------------------------------------------------- ownership */

static struct dm_span *sp_at(struct dm_spans *sp, struct dm_span *inl)
{
	return sp->more ? sp->more : inl;
}

/*
 * Room in @sp for @need parts; false (nothing changed) past DBG_MAX_SPANS or
 * on no memory. Not a fault site: the calls that split a record's ownership
 * (syncs, device accesses) cannot fail, so this cannot make them.
 */
static bool sp_room(struct dm_spans *sp, struct dm_span *inl, unsigned need)
{
	unsigned cap = sp->more ? sp->cap : DBG_INLINE_SPANS;
	struct dm_span *a;

	if (need <= cap)
		return true;
	if (need > DBG_MAX_SPANS)
		return false;
	while (cap < need)
		cap *= 2;
	a = calloc(cap, sizeof(*a));
	if (!a)
		return false;
	memcpy(a, sp_at(sp, inl), sp->n * sizeof(*a));
	free(sp->more);
	sp->more = a;
	sp->cap = cap;
	return true;
}

/* Index of the first part of @sp ending after @lo (@touch: at or after it). */
static unsigned sp_from(const struct dm_span *a, unsigned n, u64 lo, bool touch)
{
	unsigned i = 0;

	while (i < n && (touch ? a[i].hi < lo : a[i].hi <= lo))
		i++;
	return i;
}

/* Add [lo, hi) to @sp (given by @file:@line), merged with the parts it meets; false on no memory. */
static bool sp_add(struct dm_spans *sp, struct dm_span *inl, u64 lo, u64 hi,
		   const char *file, int line)
{
	struct dm_span *a = sp_at(sp, inl);
	unsigned i = sp_from(a, sp->n, lo, true), j = i;

	while (j < sp->n && a[j].lo <= hi)
		j++;
	if (i == j) {
		if (!sp_room(sp, inl, sp->n + 1))
			return false;
		a = sp_at(sp, inl);
		memmove(a + i + 1, a + i, (sp->n - i) * sizeof(*a));
		sp->n++;
	} else {
		lo = DM_MIN(lo, a[i].lo);
		hi = DM_MAX(hi, a[j - 1].hi);
		memmove(a + i + 1, a + j, (sp->n - j) * sizeof(*a));
		sp->n -= j - i - 1;
	}
	a[i] = (struct dm_span){ lo, hi, file, line };
	return true;
}

/* Take [lo, hi) out of @sp; false (nothing changed) on no memory to split a part. */
static bool sp_sub(struct dm_spans *sp, struct dm_span *inl, u64 lo, u64 hi)
{
	struct dm_span *a = sp_at(sp, inl), keep[2];
	unsigned i = sp_from(a, sp->n, lo, false), j = i, k = 0;

	while (j < sp->n && a[j].lo < hi)
		j++;
	if (i == j)
		return true;
	if (a[i].lo < lo) {
		keep[k] = a[i];
		keep[k++].hi = lo;
	}
	if (a[j - 1].hi > hi) {
		keep[k] = a[j - 1];
		keep[k++].lo = hi;
	}
	if (k > j - i) {
		if (!sp_room(sp, inl, sp->n + 1))
			return false;
		a = sp_at(sp, inl);
	}
	memmove(a + i + k, a + j, (sp->n - j) * sizeof(*a));
	memcpy(a + i, keep, k * sizeof(*a));
	sp->n = sp->n - (j - i) + k;
	return true;
}

/* The first part of @sp meeting [lo, hi), or NULL. */
static const struct dm_span *sp_meet(struct dm_spans *sp, struct dm_span *inl, u64 lo, u64 hi)
{
	struct dm_span *a = sp_at(sp, inl);
	unsigned i = sp_from(a, sp->n, lo, false);

	return i < sp->n && a[i].lo < hi ? &a[i] : NULL;
}

/* No memory to follow @map's ownership: stop judging it (told once, after the lock). Lock held. */
static void lose_owners(struct dm_reports *rs, struct dm_map *map)
{
	map->lost = true;
	map->cpu_all = false;
	map->own.n = map->wrote.n = 0;
	rs->lost = map;
}

/*
 * The first byte of bus [lo, hi) of streaming record @map that the CPU owns
 * (in *@at, with the sync that gave it in *@file, *@line), or false.
 */
static bool cpu_owns(struct dm_map *map, u64 lo, u64 hi, u64 *at, const char **file, int *line)
{
	const struct dm_span *s;

	if (map->cpu_all) {
		*at = lo;
		*file = map->own_file;
		*line = map->own_line;
		return true;
	}
	s = sp_meet(&map->own, map->own_inl, lo, hi);
	if (!s)
		return false;
	*at = DM_MAX(lo, s->lo);
	*file = s->file;
	*line = s->line;
	return true;
}

/* Bus [lo, hi) of @map goes to the CPU (a sync for the CPU at @file:@line). Lock held. */
static void own_cpu(struct dm_reports *rs, struct dm_map *map, u64 lo, u64 hi, bool whole,
		    const char *file, int line)
{
	map->dev_wrote = false;
	if (map->lost)
		return;
	if (whole) {
		map->cpu_all = true;
		map->own.n = map->wrote.n = 0;
		map->own_file = file;
		map->own_line = line;
		return;
	}
	if (!map->cpu_all && !sp_add(&map->own, map->own_inl, lo, hi, file, line))
		lose_owners(rs, map);
}

/* Bus [lo, hi) of @map goes back to the device. Lock held. */
static void own_device(struct dm_reports *rs, struct dm_map *map, u64 lo, u64 hi,
		       bool whole)
{
	if (map->lost)
		return;
	if (whole) {
		map->cpu_all = false;
		map->own.n = map->wrote.n = 0;
		return;
	}
	if (map->cpu_all) {
		map->cpu_all = false;
		map->own.n = 1;
		sp_at(&map->own, map->own_inl)[0] =
			(struct dm_span){ map->bus, map->bus + map->size, map->own_file, map->own_line };
	}
	if (!sp_sub(&map->own, map->own_inl, lo, hi) || !sp_sub(&map->wrote, map->wrote_inl, lo, hi))
		lose_owners(rs, map);
}

/* ------------------------------------------------- ownership poisoning */

/*
 * While the device owns a buffer it may write (FROM_DEVICE, BIDIRECTIONAL),
 * the driver may not touch it: under memcheck or AddressSanitizer the
 * driver's view of the device-owned bytes is made inaccessible from map or
 * sync_for_device (after the ops ran: a bounce copy reads the buffer) until
 * unmap or sync_for_cpu (before the ops run: a bounce copy writes it), so
 * that a driver's read or write there is reported by the tool at its line,
 * with a stack. The library's own accesses on the hardware's behalf run with
 * memcheck's reports off (track.h), and under ASan go through a host mapping
 * of their own (struct dmamap_machine: cpu, not lin). Given back, the bytes
 * are defined: they hold what the device wrote. Not for a coherent device
 * (both sides see each other's stores at once), a bounced mapping (the
 * device never sees the buffer; dmabounce copies in and out of it within its
 * calls) nor the library's own mappings. ASan poisons whole 8-byte granules:
 * a buffer's first and last few bytes may stay accessible to it.
 */
static void poison_range(struct dmamap_machine *m, phys_addr_t phys, u64 len, bool off_limits)
{
	u8 *p = m->lin + (size_t)(phys - m->cfg.ram_base);

	if (dmamap_asan_active()) {
		if (off_limits)
			__asan_poison_memory_region(p, (size_t)len);
		else
			__asan_unpoison_memory_region(p, (size_t)len);
	}
	if (off_limits)
		dmamap_track_noaccess(p, (size_t)len);
	else
		dmamap_track_defined(p, (size_t)len);
}

/* Whether link @l is the first of a CPU range (each range is listed once so). */
static bool cpu_range_head(const struct dm_link *l)
{
	return !l->space && l->page == l->start >> PAGE_SHIFT;
}

/* Make the CPU view of @map say who owns it (@gone: no one, it is released). Lock held. */
static void poison_owned(struct dmamap_machine *m, struct dm_map *map, bool gone)
{
	bool dev_owns = !gone && !map->cpu_all;

	if (!dmamap_running_on_valgrind() && !dmamap_asan_active())
		return;
	if (!map->poisoned) {
		if (gone || atomic_load_explicit(&m->poison_off, memory_order_relaxed) || map->internal || !map->direct ||
		    (map->dir != DMA_FROM_DEVICE && map->dir != DMA_BIDIRECTIONAL) || dm_dev_coherent(map->dev))
			return;
		map->poisoned = true;
	}
	for (unsigned i = 0; i < map->used; i++)
		if (cpu_range_head(&map->links[i]))
			poison_range(m, map->links[i].start, map->links[i].len, dev_owns);
	if (dev_owns && map->kind != DK_SG) {
		const struct dm_span *a = sp_at(&map->own, map->own_inl);

		for (unsigned i = 0; i < map->own.n; i++)
			poison_range(m, map->phys + (a[i].lo - map->bus), a[i].hi - a[i].lo, false);
	}
}

/* ---------------------------------------------------------- the CPU side */

/* The buffer byte behind bus address @bus of a single or page record. */
static phys_addr_t buf_phys(const struct dm_map *map, u64 bus)
{
	return map->phys + (bus - map->bus);
}

/*
 * How many bytes the CPU stored to in the device-owned part of bus
 * [lo, hi) of streaming record @map (a list: all of it), the offset of the
 * first in the buffer in *@first. Lock held (the cache's is taken inside).
 */
static size_t stores_in(struct dmamap_machine *m, struct dm_map *map, u64 lo, u64 hi, size_t *first)
{
	size_t n = 0, k, f = 0, off = 0;
	const struct dm_span *a = sp_at(&map->own, map->own_inl);
	u64 cur = lo;

	if (map->cpu_all || map->lost)
		return 0;
	if (map->kind == DK_SG) {
		for (unsigned i = 0; i < map->used; i++) {
			const struct dm_link *l = &map->links[i];

			if (!cpu_range_head(l))
				continue;
			k = dmamap_cache_cpu_stores(m, l->start, (size_t)l->len, &f);
			if (k && !n)
				*first = off + f;
			n += k;
			off += (size_t)l->len;
		}
		return n;
	}
	/* the CPU's own parts are no business of this check: the pieces between them */
	for (unsigned i = 0; i <= map->own.n && cur < hi; i++) {
		u64 end = i < map->own.n ? DM_MIN(a[i].lo, hi) : hi;

		if (cur < end) {
			k = map->snap ? dmamap_cache_cpu_changed(m, buf_phys(map, cur), (size_t)(end - cur),
								  map->snap + (cur - map->bus), &f)
				      : dmamap_cache_cpu_stores(m, buf_phys(map, cur), (size_t)(end - cur), &f);
			if (k && !n)
				*first = (size_t)(cur - map->bus) + f;
			n += k;
		}
		if (i < map->own.n)
			cur = DM_MAX(cur, a[i].hi);
	}
	return n;
}

/*
 * The device takes @map: make a later CPU store to what it owns show. A
 * clean buffer shows one as a dirty byte; one dirty already (filled by the
 * CPU behind a bounce copy or on a coherent device, where nothing cleans it)
 * is compared with a copy of what the CPU saw at the hand-over instead (up
 * to DBG_SNAP_MAX bytes, a single or page mapping; else not watched). Lock
 * held.
 */
static void watch_stores(struct dmamap_machine *m, struct dm_map *map)
{
	size_t first;

	free(map->snap);
	map->snap = NULL;
	/*
	 * The ARMv7 hooks clean or invalidate every line of a buffer the device
	 * reaches itself: it is clean, no need to look. Anything else (a
	 * coherent device, a bounce copy, DMA_ATTR_SKIP_CPU_SYNC, hooks of the
	 * user's) is looked at.
	 */
	if (map->direct && map->dir != DMA_NONE && !dm_dev_coherent(map->dev) &&
	    !(map->attrs & (1UL << DMA_ATTR_SKIP_CPU_SYNC)) && dmamap_cache_get_ops(m) == &dmamap_default_cache_ops) {
		map->watch = true;
		return;
	}
	map->watch = false;
	if (map->dir == DMA_NONE)
		return;
	if (!stores_in(m, map, map->bus, map->bus + map->size, &first)) {
		map->watch = true;
		return;
	}
	if (map->kind == DK_SG || map->size > DBG_SNAP_MAX || !(map->snap = malloc(map->size)))
		return;
	dmamap_cache_cpu_view(m, map->phys, map->size, map->snap);
	map->watch = true;
}

/* The CPU takes bus [lo, hi) of @map back (@what at its line): did it store there meanwhile? Lock held. */
static void check_stores(struct dmamap_machine *m, struct dm_reports *rs, struct dm_map *map, u64 lo, u64 hi,
			 const char *what, dma_addr_t addr, size_t size, int dir)
{
	size_t first = 0, n;

	if (!map->watch || map->dir == DMA_NONE || map->internal)
		return;
	n = stores_in(m, map, lo, hi, &first);
	if (!n)
		return;
	map->watch = false;
	rep_add(rs, DMAMAP_REPORT_CPU_STORE, map, addr, size, dir,
		"%s: the CPU stored to %zu byte%s of the buffer (the first at offset %#zx) while the device owned "
		"it; %s",
		what, n, n == 1 ? "" : "s", first,
		map->dir == DMA_TO_DEVICE ? "the device may have read what was there before"
		: dm_dev_coherent(map->dev)
			? "on a coherent device nothing discards them: they stay, in a race with what the device writes"
		: !map->direct ? "the copy back from the bounce buffer overwrites them with the device's bytes"
			       : "this call's invalidate discards them: the CPU sees the device's bytes instead");
}

/* Whether @dev reaches bus @bus at the buffer byte @phys itself (not a bounce copy of it). */
static bool sees_buffer(struct device *dev, dma_addr_t bus, phys_addr_t phys)
{
	phys_addr_t pa;

	if (dev->dmamap.iommu_domain)
		return !dmamap_iommu_lookup(dev->dmamap.iommu_domain, bus, &pa, NULL) && pa == phys;
	return dm_dma_to_phys(dev, bus) == phys;
}

/*
 * Bytes around @map's buffer that share its first or last cache line, and
 * that the CPU stored to while the device owned the buffer (which it wrote):
 * the maintenance this call does writes those lines back whole, over what
 * the device wrote there. The memory's use is unknown at map time (whole
 * pages: check_edges_at_map() knows only kmalloc's objects), so this is
 * where it shows, unless the map already said. One report per call. Lock
 * held.
 */
static void check_edges(struct dmamap_machine *m, struct dm_reports *rs, const struct dm_map *map, const char *what)
{
	size_t ls = m->cfg.cache_line_size, off = 0, first;

	if (!map->direct || !map->dev_wrote || map->edge_warned || map->dir == DMA_TO_DEVICE || map->dir == DMA_NONE ||
	    map->internal || dm_dev_coherent(map->dev) || (map->attrs & (1UL << DMA_ATTR_SKIP_CPU_SYNC)))
		return;
	for (unsigned i = 0; i < map->used; i++) {
		const struct dm_link *l = &map->links[i];
		phys_addr_t phys = l->start, end = l->start + l->len;
		size_t head = (size_t)(phys & (ls - 1)), tail = (size_t)(end & (ls - 1));

		if (!cpu_range_head(l))
			continue;
		size_t nh = head ? dmamap_cache_cpu_stores(m, phys - head, head, &first) : 0;
		/* the last line, unless it is the first one, already told */
		size_t nt = tail && (!nh || (end - 1) / ls != phys / ls) ? dmamap_cache_cpu_stores(m, end, ls - tail, &first)
									  : 0;
		size_t h_last = off + DM_MIN((size_t)l->len, ls - head) - 1;
		size_t t_first = off + (size_t)l->len - DM_MIN((size_t)l->len, tail), t_last = off + (size_t)l->len - 1;

		if (nh && nt) {
			rep_add(rs, DMAMAP_REPORT_SHARED_CACHELINE, map, map->bus, map->size, map->dir,
				"%s: the buffer shares its first cache line with the %zu bytes before it and its last "
				"with the %zu bytes after it, which the CPU wrote (%zu and %zu of them) while the device "
				"owned the buffer; both lines go back to RAM whole, over bytes %#zx-%#zx and %#zx-%#zx of "
				"what the device wrote: align DMA buffers to %zu bytes",
				what, head, ls - tail, nh, nt, off, h_last, t_first, t_last, ls);
			return;
		}
		if (nh) {
			rep_add(rs, DMAMAP_REPORT_SHARED_CACHELINE, map, map->bus, map->size, map->dir,
				"%s: the buffer shares its first cache line with the %zu bytes before it, which the CPU "
				"wrote (%zu of them) while the device owned the buffer; the line goes back to RAM whole, "
				"over bytes %#zx-%#zx of what the device wrote: align DMA buffers to %zu bytes",
				what, head, nh, off, h_last, ls);
			return;
		}
		if (nt) {
			rep_add(rs, DMAMAP_REPORT_SHARED_CACHELINE, map, map->bus, map->size, map->dir,
				"%s: the buffer shares its last cache line with the %zu bytes after it, which the CPU "
				"wrote (%zu of them) while the device owned the buffer; the line goes back to RAM whole, "
				"over bytes %#zx-%#zx of what the device wrote: align DMA buffers to %zu bytes",
				what, ls - tail, nt, t_first, t_last, ls);
			return;
		}
		off += (size_t)l->len;
	}
}

/*
 * Whether the buffer [phys, phys + len) of @map (at @off in it) shares its
 * first or last cache line with data of the driver's kept apart from it:
 * bytes another live kmalloc object was asked for (the slack after an
 * object is no one's; the rest of the buffer's own object is the unmap's
 * business, check_edges(), from what the CPU stored there). The ARMv7
 * hooks clean and invalidate such a partial line whole, so a CPU store to
 * that data while the device owns the buffer goes back to RAM at unmap or
 * sync_for_cpu over what the device wrote. Reported (true) naming the
 * buffer's bytes at risk.
 */
static bool edge_shared(struct dmamap_machine *m, struct dm_reports *rs, const struct dm_map *map, phys_addr_t phys,
			size_t len, size_t off)
{
	size_t ls = m->cfg.cache_line_size, head = (size_t)(phys & (ls - 1)), tail = (size_t)((phys + len) & (ls - 1));
	size_t lo, hi;
	const char *edge, *file = NULL;
	phys_addr_t at;
	int line = 0;

	if (head && dmamap_kmalloc_data_at(m, phys - head, head, phys, &at, &file, &line)) {
		edge = "first";
		lo = off;
		hi = off + DM_MIN(len, ls - head) - 1;
	} else if (tail && dmamap_kmalloc_data_at(m, phys + len, ls - tail, phys + len - 1, &at, &file, &line)) {
		edge = "last";
		lo = off + len - DM_MIN(len, tail);
		hi = off + len - 1;
	} else {
		return false;
	}
	rep_add(rs, DMAMAP_REPORT_SHARED_CACHELINE, map, map->bus, map->size, map->dir,
		"%s(%s) of %#zx bytes: its %s cache line also holds phys %#llx, data of the kmalloc object allocated "
		"at %s:%d; a CPU store there while the device owns the buffer goes back to RAM whole at unmap or "
		"sync_for_cpu, over bytes %#zx-%#zx of what the device wrote: align DMA buffers to %zu bytes",
		kind_map_call[map->kind], dmamap_dir_name(map->dir), map->size, edge, (unsigned long long)at,
		file ? file : "?", line, lo, hi, ls);
	return true;
}

/*
 * A new mapping the device may write, whose edge cache lines hold the
 * driver's data: said at map time (the first such edge; one report per
 * mapping), so that the unmap does not say it again. Not for a bounced
 * mapping (the copy back is byte-exact), a coherent device, or a mapping the
 * library makes within another call. Before the record is entered: no lock.
 */
static void check_edges_at_map(struct dmamap_machine *m, struct dm_reports *rs, struct dm_map *map,
			       struct scatterlist *sg, int nents)
{
	struct scatterlist *s;
	size_t off = 0;
	int i;

	if (!map->direct || map->dir == DMA_TO_DEVICE || map->dir == DMA_NONE || (dm_in_call() && dm_call_nested()) ||
	    dm_dev_coherent(map->dev))
		return;
	if (!sg) {
		map->edge_warned = edge_shared(m, rs, map, map->phys, map->size, 0);
		return;
	}
	for_each_sg(sg, s, nents, i) {
		if (edge_shared(m, rs, map, sg_phys(s), s->length, off)) {
			map->edge_warned = true;
			return;
		}
		off += s->length;
	}
}

/* Another live streaming mapping of the memory @map covers, where one of the two lets the device write. Lock held. */
static void check_overlap(struct dmamap_debug *dbg, struct dm_reports *rs, struct dm_map *map)
{
	bool writes = map->dir != DMA_TO_DEVICE;

	for (unsigned i = 0; i < map->used && !rs->n; i++) {
		const struct dm_link *mine = &map->links[i];

		if (mine->space)
			continue;
		for (struct dm_link *l = dbg->buckets[bucket_of(dbg, NULL, mine->page)]; l; l = l->next) {
			const struct dm_map *o = l->map;

			if (l->space || l->page != mine->page || o == map || o->dir == DMA_NONE || o->internal ||
			    l->start >= mine->start + mine->len || mine->start >= l->start + l->len ||
			    (!writes && o->dir == DMA_TO_DEVICE))
				continue;
			rep_add(rs, DMAMAP_REPORT_OVERLAP, o, map->bus, map->size, map->dir,
				"%s(%s) of phys %#llx+%#llx overlaps phys %#llx+%#llx, still mapped for the device "
				"(which may write one of them): the cache maintenance of one undoes the other's",
				kind_map_call[map->kind], dmamap_dir_name(map->dir), (unsigned long long)mine->start,
				(unsigned long long)mine->len, (unsigned long long)l->start, (unsigned long long)l->len);
			return;
		}
	}
}

/* What a new streaming record says about its memory, once entered. Lock held. */
static void check_new_map(struct dmamap_debug *dbg, struct dm_reports *rs, struct dm_map *map)
{
	if (!map->internal)
		check_overlap(dbg, rs, map);
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
	pthread_spin_lock(&dbg->lock);
	map = map_alloc(m, dbg, nlinks);
	pthread_spin_unlock(&dbg->lock);
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

	pthread_spin_lock(&dbg->lock);
	map_free(dbg, map);
	pthread_spin_unlock(&dbg->lock);
}

/* The fields every record has. */
static void fill(struct dm_map *map, struct device *dev, enum dm_kind kind, int dir, struct dma_attrs *attrs,
		 dma_addr_t bus, size_t size, const char *file, int line)
{
	map->dev = dev;
	map->kind = kind;
	map->dir = dir;
	map->attrs = attrs ? attrs->flags : 0;
	map->bus = bus;
	map->size = size;
	map->file = file;
	map->line = line;
}

/* Enter a filled record. Lock held. */
static void enter_map(struct dmamap_debug *dbg, struct dm_map *map)
{
	/* made below another call: it is that call's doing, and the library's to release */
	if (dm_in_call()) {
		map->internal = dm_call_nested();
		map->file = dmamap_call_now.file;
		map->line = dmamap_call_now.line;
	}
	map->live = true;
	dev_list_add(map);
	dbg->live[map->kind]++;
	dbg->internal_live[map->kind] += map->internal;
	dbg->tracked++;
}

void dmamap_debug_map_done(struct dm_map *map, struct device *dev, bool page_call, phys_addr_t phys, size_t size,
			   int dir, struct dma_attrs *attrs, dma_addr_t addr, bool failed, const char *file, int line)
{
	struct dmamap_debug *dbg = dbg_of(dm_dev_machine(dev));
	struct dm_reports rs;
	bool direct;

	if (failed) {
		unprepare(map, dev);
		return;
	}
	direct = sees_buffer(dev, addr, phys);
	fill(map, dev, page_call ? DK_PAGE : DK_SINGLE, dir, attrs, addr, size, file, line);
	map->phys = phys;
	map->direct = direct;
	rs.n = 0;
	rs.lost = NULL;
	check_edges_at_map(dm_dev_machine(dev), &rs, map, NULL, 0);
	pthread_spin_lock(&dbg->lock);
	index_range(dbg, map, dev, addr, size);
	index_range(dbg, map, NULL, map->phys, size);
	enter_map(dbg, map);
	watch_stores(dm_dev_machine(dev), map);
	poison_owned(dm_dev_machine(dev), map, false);
	check_new_map(dbg, &rs, map);
	maybe_grow(dm_dev_machine(dev), dbg);
	pthread_spin_unlock(&dbg->lock);
	rep_flush(dev, &rs);
}

void dmamap_debug_mapping_error(struct device *dev, dma_addr_t addr)
{
	struct dmamap_debug *dbg = dbg_of(dm_dev_machine(dev));

	if (!dbg)
		return;
	pthread_spin_lock(&dbg->lock);
	for (struct dm_link *l = dbg->buckets[bucket_of(dbg, dev, addr >> PAGE_SHIFT)]; l; l = l->next)
		if (l->space == dev && l->page == addr >> PAGE_SHIFT && l->start == addr)
			l->map->checked = true;
	pthread_spin_unlock(&dbg->lock);
}

/* Take @map out for a release made at @file:@line (its last holder frees it). Lock held. */
static void release_map(struct dmamap_debug *dbg, struct dm_map *map, struct dm_map **hold, const char *file,
			int line)
{
	take_out(dbg, map);
	bury(dbg, map, file, line);
	drop(dbg, map);
	*hold = NULL;
}

bool dmamap_debug_unmap(struct device *dev, bool page_call, dma_addr_t addr, size_t size, int dir, const char *file,
			int line, struct dm_map **hold)
{
	struct dmamap_debug *dbg = dbg_of(dm_dev_machine(dev));
	enum dm_kind kind = page_call ? DK_PAGE : DK_SINGLE;
	const char *what = kind_unmap_call[kind];
	struct dm_want w = { kind, size, dir, NULL };
	struct dm_reports rs;
	struct dm_map *map;
	bool ok = false;

	*hold = NULL;
	rs.n = 0;
	rs.lost = NULL;
	if (!dbg)
		return true;
	pthread_spin_lock(&dbg->lock);
	map = find_bus_start(dbg, dev, addr, &w);
	if (!map || (map->kind != DK_SINGLE && map->kind != DK_PAGE && buried(dbg, dev, addr, kind))) {
		missing(dbg, &rs, dev, what, addr, size, dir, true);
	} else if (map->kind == DK_SG) {
		rep_add(&rs, DMAMAP_REPORT_KIND_MISMATCH, map, addr, size, dir,
			"%s of bus %#llx: it is a segment of a list mapped by dma_map_sg; unmap the list with "
			"dma_unmap_sg; refused",
			what, (unsigned long long)addr);
	} else if (map->kind != DK_SINGLE && map->kind != DK_PAGE) {
		rep_add(&rs, DMAMAP_REPORT_KIND_MISMATCH, map, addr, size, dir,
			"%s of bus %#llx: it is a buffer from %s, released by %s; refused", what,
			(unsigned long long)addr, map_call(map), unmap_call(map));
	} else {
		ok = true;
		if (size != map->size) {
			rep_add(&rs, DMAMAP_REPORT_SIZE_MISMATCH, map, addr, size, dir,
				"%s of bus %#llx with size %#zx: the mapping is %#zx bytes; refused, the mapping stays "
				"live",
				what, (unsigned long long)addr, size, map->size);
			ok = false;
		}
		if (dir != map->dir) {
			rep_add(&rs, DMAMAP_REPORT_DIR_MISMATCH, map, addr, size, dir,
				"%s of bus %#llx with %s: the mapping is %s; refused, the mapping stays live", what,
				(unsigned long long)addr, dmamap_dir_name(dir), dmamap_dir_name(map->dir));
			ok = false;
		}
		check_checked(&rs, map, what, addr, size, dir);
		if (ok && map->kind != kind)
			rep_add(&rs, DMAMAP_REPORT_KIND_MISMATCH, map, addr, size, dir,
				"%s of bus %#llx: it was mapped by %s, whose pair is %s; unmapped all the same", what,
				(unsigned long long)addr, kind_map_call[map->kind], kind_unmap_call[map->kind]);
		if (ok) {
			check_stores(dm_dev_machine(dev), &rs, map, map->bus, map->bus + map->size, what, addr, size, dir);
			check_edges(dm_dev_machine(dev), &rs, map, what);
			release_map(dbg, map, hold, file, line);
		}
	}
	pthread_spin_unlock(&dbg->lock);
	rep_flush(dev, &rs);
	return ok;
}

/*
 * A sync of bus [addr, addr + size) of @map (@whole: all of it) passes
 * ownership; handing back to the device what the device wrote and the CPU
 * never took is a missing sync_for_cpu. Lock held.
 */
static void hand_over(struct dmamap_machine *m, struct dm_reports *rs, struct dm_map *map, dma_addr_t addr,
		      size_t size, bool for_cpu, bool whole, const char *what, const char *file, int line)
{
	const char *ofile;
	int oline;
	u64 at;

	if (map->dir == DMA_NONE)
		return; /* coherent memory: shared all along */
	whole = whole || (addr == map->bus && size == map->size);
	if (for_cpu) {
		check_stores(m, rs, map, whole ? map->bus : addr, whole ? map->bus + map->size : addr + size, what, addr,
			     size, map->dir);
		check_edges(m, rs, map, what);
		own_cpu(rs, map, addr, addr + size, whole, file, line);
		return;
	}
	/* the device wrote some of what goes back, and the CPU took none of it */
	if (map->dir != DMA_TO_DEVICE && !map->lost &&
	    (whole ? map->wrote.n != 0 : sp_meet(&map->wrote, map->wrote_inl, addr, addr + size) != NULL) &&
	    !cpu_owns(map, whole ? map->bus : addr, whole ? map->bus + map->size : addr + size, &at, &ofile, &oline))
		rep_add(rs, DMAMAP_REPORT_MISSING_SYNC, map, addr, size, map->dir,
			"%s of bus %#llx+%#zx: the device wrote the buffer and the CPU never took it back "
			"(no dma_sync_*_for_cpu since): whatever the CPU read there was stale", what,
			(unsigned long long)addr, size);
	map->dev_wrote = false;
	own_device(rs, map, addr, addr + size, whole);
}

bool dmamap_debug_sync(struct device *dev, dma_addr_t addr, size_t size, int dir, bool for_cpu, const char *what,
		       const char *file, int line, struct dm_map **hold)
{
	struct dmamap_debug *dbg = dbg_of(dm_dev_machine(dev));
	struct dm_reports rs;
	struct dm_link *l;
	struct dm_map *map;
	bool ok = false;

	*hold = NULL;
	rs.n = 0;
	rs.lost = NULL;
	if (!dbg)
		return true;
	pthread_spin_lock(&dbg->lock);
	l = find_bus_containing(dbg, dev, addr);
	if (!l) {
		missing(dbg, &rs, dev, what, addr, size, dir, false);
	} else {
		map = l->map;
		ok = true;
		if (size > l->start + l->len - addr) {
			rep_add(&rs, DMAMAP_REPORT_SYNC_RANGE, map, addr, size, dir,
				"%s of bus %#llx+%#zx runs %#llx bytes past the end of the mapping; refused", what,
				(unsigned long long)addr, size, (unsigned long long)(addr + size - (l->start + l->len)));
			ok = false;
		}
		/* coherent memory has no direction: a non-consistent buffer is synced either way */
		if (map->dir != DMA_BIDIRECTIONAL && map->dir != DMA_NONE && dir != map->dir) {
			rep_add(&rs, DMAMAP_REPORT_SYNC_DIRECTION, map, addr, size, dir,
				"%s with %s of a %s mapping: a sync names the mapping's direction; refused", what,
				dmamap_dir_name(dir), dmamap_dir_name(map->dir));
			ok = false;
		}
		check_checked(&rs, map, what, addr, size, dir);
		if (ok) {
			hand_over(dm_dev_machine(dev), &rs, map, addr, size, for_cpu, map->kind == DK_SG, what, file, line);
			if (for_cpu)
				poison_owned(dm_dev_machine(dev), map, false);
			map->refs++;
			*hold = map;
		}
	}
	pthread_spin_unlock(&dbg->lock);
	rep_flush(dev, &rs);
	return ok;
}

void dmamap_debug_sync_done(struct dm_map *map, struct device *dev, bool for_cpu)
{
	struct dmamap_debug *dbg;

	if (!map)
		return;
	dbg = dbg_of(dm_dev_machine(dev));
	pthread_spin_lock(&dbg->lock);
	if (!for_cpu && map->live) {
		watch_stores(dm_dev_machine(dev), map);
		poison_owned(dm_dev_machine(dev), map, false);
	}
	if (!--map->refs && !map->live)
		map_free(dbg, map);
	pthread_spin_unlock(&dbg->lock);
}

void dmamap_debug_put(struct dm_map *map, struct device *dev)
{
	struct dmamap_debug *dbg;

	if (!map)
		return;
	dbg = dbg_of(dm_dev_machine(dev));
	pthread_spin_lock(&dbg->lock);
	if (!--map->refs && !map->live)
		map_free(dbg, map);
	pthread_spin_unlock(&dbg->lock);
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
	struct dm_reports rs;
	struct scatterlist *s;
	bool direct;
	int i;

	if (mapped <= 0) {
		unprepare(map, dev);
		return;
	}
	/* as the ops set treats the list: directly when its first entry is reached directly */
	direct = sees_buffer(dev, sg_dma_address(sg), sg_phys(sg));
	rs.n = 0;
	rs.lost = NULL;
	fill(map, dev, DK_SG, dir, attrs, sg_dma_address(sg), 0, file, line);
	map->sgl = sg;
	map->nents = nents;
	map->mapped = mapped;
	map->phys = sg_phys(sg);
	map->direct = direct;
	for_each_sg(sg, s, nents, i)
		map->size += s->length;
	check_edges_at_map(dm_dev_machine(dev), &rs, map, sg, nents);
	pthread_spin_lock(&dbg->lock);
	for_each_sg(sg, s, mapped, i)
		if (sg_dma_len(s))
			index_range(dbg, map, dev, sg_dma_address(s), sg_dma_len(s));
	for_each_sg(sg, s, nents, i)
		index_range(dbg, map, NULL, sg_phys(s), s->length);
	enter_map(dbg, map);
	watch_stores(dm_dev_machine(dev), map);
	poison_owned(dm_dev_machine(dev), map, false);
	check_new_map(dbg, &rs, map);
	maybe_grow(dm_dev_machine(dev), dbg);
	pthread_spin_unlock(&dbg->lock);
	rep_flush(dev, &rs);
}

/*
 * The record of the list @sg for an sg release or sync with @nents and
 * @dir: NULL after queueing why not. Lock held.
 */
static struct dm_map *sg_lookup(struct dmamap_debug *dbg, struct dm_reports *rs, struct device *dev,
				struct scatterlist *sg, int nents, int dir, const char *what, bool release)
{
	dma_addr_t addr = sg_dma_address(sg);
	struct dm_want w = { DK_SG, 0, dir, sg };
	struct dm_map *map = find_bus_start(dbg, dev, addr, &w);
	bool ok;

	/* a list released here, its memory mapped again since by another call: the list's release is what repeats */
	if (!map || (map->kind != DK_SG && buried(dbg, dev, addr, DK_SG))) {
		missing(dbg, rs, dev, what, addr, sg_dma_len(sg), dir, release);
		return NULL;
	}
	if (map->kind != DK_SG) {
		rep_add(rs, DMAMAP_REPORT_KIND_MISMATCH, map, addr, map->size, dir,
			"%s of a list whose first segment (bus %#llx) is a mapping made by %s, not by dma_map_sg; refused",
			what, (unsigned long long)addr, kind_map_call[map->kind]);
		return NULL;
	}
	ok = true;
	if (map->sgl != sg) {
		rep_add(rs, DMAMAP_REPORT_SG_MISMATCH, map, addr, map->size, dir,
			"%s of the list at %p: bus %#llx was mapped through another list (%p); refused", what, (void *)sg,
			(unsigned long long)addr, (void *)map->sgl);
		ok = false;
	} else if (nents != map->nents) {
		rep_add(rs, DMAMAP_REPORT_SG_MISMATCH, map, addr, map->size, dir,
			"%s with %d entries: the list was mapped with %d (pass dma_map_sg()'s nents, not what it "
			"returned); refused",
			what, nents, map->nents);
		ok = false;
	} else {
		struct scatterlist *s;
		int i;

		/* each segment must still name the bus range this list mapped: the ops trust them */
		for_each_sg(sg, s, map->mapped, i) {
			if (sg_dma_len(s) && !bus_in_map(dbg, dev, sg_dma_address(s), map)) {
				rep_add(rs, DMAMAP_REPORT_SG_MISMATCH, map, sg_dma_address(s), sg_dma_len(s), dir,
					"%s of the list at %p: its segment %d (bus %#llx+%#x) is not one the list was "
					"mapped to; refused",
					what, (void *)sg, i, (unsigned long long)sg_dma_address(s), sg_dma_len(s));
				ok = false;
				break;
			}
		}
	}
	return ok ? map : NULL;
}

bool dmamap_debug_unmap_sg(struct device *dev, struct scatterlist *sg, int nents, int dir, const char *file, int line,
			   struct dm_map **hold)
{
	struct dmamap_debug *dbg = dbg_of(dm_dev_machine(dev));
	struct dm_reports rs;
	struct dm_map *map;
	bool ok = false;

	*hold = NULL;
	rs.n = 0;
	rs.lost = NULL;
	if (!dbg)
		return true;
	pthread_spin_lock(&dbg->lock);
	map = sg_lookup(dbg, &rs, dev, sg, nents, dir, "dma_unmap_sg", true);
	if (map && dir != map->dir) {
		rep_add(&rs, DMAMAP_REPORT_DIR_MISMATCH, map, map->bus, map->size, dir,
			"dma_unmap_sg with %s: the list was mapped %s; refused, the mapping stays live",
			dmamap_dir_name(dir), dmamap_dir_name(map->dir));
		map = NULL;
	}
	if (map) {
		check_stores(dm_dev_machine(dev), &rs, map, map->bus, map->bus + map->size, "dma_unmap_sg", map->bus,
			     map->size, dir);
		check_edges(dm_dev_machine(dev), &rs, map, "dma_unmap_sg");
		release_map(dbg, map, hold, file, line);
		ok = true;
	}
	pthread_spin_unlock(&dbg->lock);
	rep_flush(dev, &rs);
	return ok;
}

bool dmamap_debug_sync_sg(struct device *dev, struct scatterlist *sg, int nents, int dir, bool for_cpu,
			  const char *file, int line, struct dm_map **hold)
{
	struct dmamap_debug *dbg = dbg_of(dm_dev_machine(dev));
	const char *what = for_cpu ? "dma_sync_sg_for_cpu" : "dma_sync_sg_for_device";
	struct dm_reports rs;
	struct dm_map *map;

	*hold = NULL;
	rs.n = 0;
	rs.lost = NULL;
	if (!dbg)
		return true;
	pthread_spin_lock(&dbg->lock);
	map = sg_lookup(dbg, &rs, dev, sg, nents, dir, what, false);
	if (map && map->dir != DMA_BIDIRECTIONAL && dir != map->dir) {
		rep_add(&rs, DMAMAP_REPORT_SYNC_DIRECTION, map, map->bus, map->size, dir,
			"%s with %s of a %s list: a sync names the mapping's direction; refused", what,
			dmamap_dir_name(dir), dmamap_dir_name(map->dir));
		map = NULL;
	}
	if (map) {
		hand_over(dm_dev_machine(dev), &rs, map, map->bus, map->size, for_cpu, true, what, file, line);
		if (for_cpu)
			poison_owned(dm_dev_machine(dev), map, false);
		map->refs++;
		*hold = map;
	}
	pthread_spin_unlock(&dbg->lock);
	rep_flush(dev, &rs);
	return map != NULL;
}

/* ------------------------------------------------- coherent and pool */

struct dm_map *dmamap_debug_alloc_prepare(struct device *dev, size_t size)
{
	return prepare(dev, pages_at_most(size), "dma_alloc_attrs");
}

/* Fill and enter a coherent or pool record for [handle, handle + size) given to the driver as @cpu. */
static void alloc_done(struct dm_map *map, struct device *dev, enum dm_kind kind, struct dma_pool *pool, size_t size,
		       const void *cpu, dma_addr_t handle, struct dma_attrs *attrs, const char *file, int line)
{
	struct dmamap_debug *dbg = dbg_of(dm_dev_machine(dev));

	if (!cpu) {
		unprepare(map, dev);
		return;
	}
	fill(map, dev, kind, DMA_NONE, attrs, handle, size, file, line);
	map->cpu = cpu;
	map->pool = pool;
	map->checked = true;
	pthread_spin_lock(&dbg->lock);
	index_range(dbg, map, dev, handle, size);
	enter_map(dbg, map);
	maybe_grow(dm_dev_machine(dev), dbg);
	pthread_spin_unlock(&dbg->lock);
}

void dmamap_debug_alloc_done(struct dm_map *map, struct device *dev, size_t size, const void *cpu, dma_addr_t handle,
			     struct dma_attrs *attrs, const char *file, int line)
{
	alloc_done(map, dev, DK_COHERENT, NULL, size, cpu, handle, attrs, file, line);
}

/*
 * A coherent or pool release naming (@cpu, @handle, @size) of @kind: the
 * record, or NULL after queueing why not. Lock held.
 */
static struct dm_map *buffer_lookup(struct dmamap_debug *dbg, struct dm_reports *rs, struct device *dev,
				    enum dm_kind kind, struct dma_pool *pool, const void *cpu, dma_addr_t handle,
				    size_t size, const char *what)
{
	struct dm_want w = { kind, size, DMA_NONE, NULL };
	struct dm_map *map = find_bus_start(dbg, dev, handle, &w);
	bool ok = true;

	if (!map) {
		missing(dbg, rs, dev, what, handle, size, DMA_NONE, true);
		return NULL;
	}
	if ((map->kind != kind || map->internal != library_call()) && buried(dbg, dev, handle, kind)) {
		missing(dbg, rs, dev, what, handle, size, DMA_NONE, true);
		return NULL;
	}
	if (map->kind != kind || map->internal != library_call()) {
		rep_add(rs, DMAMAP_REPORT_KIND_MISMATCH, map, handle, size, DMA_NONE,
			"%s of bus %#llx: %s %s, whose pair is %s; refused", what, (unsigned long long)handle,
			map->internal ? "the library holds it, through" : "it was made by", map_call(map), unmap_call(map));
		return NULL;
	}
	if (map->cpu != cpu) {
		rep_add(rs, DMAMAP_REPORT_ADDR_MISMATCH, map, handle, size, DMA_NONE,
			"%s of bus %#llx with cpu address %p: the buffer at that bus address is at %p; refused", what,
			(unsigned long long)handle, cpu, map->cpu);
		ok = false;
	} else if (kind == DK_POOL && map->pool != pool) {
		rep_add(rs, DMAMAP_REPORT_ADDR_MISMATCH, map, handle, size, DMA_NONE,
			"%s of bus %#llx to pool %p: the block belongs to pool %p; refused", what,
			(unsigned long long)handle, (void *)pool, (void *)map->pool);
		ok = false;
	}
	if (kind == DK_COHERENT && size != map->size) {
		rep_add(rs, DMAMAP_REPORT_SIZE_MISMATCH, map, handle, size, DMA_NONE,
			"%s of bus %#llx with size %#zx: the buffer is %#zx bytes; refused, it stays allocated", what,
			(unsigned long long)handle, size, map->size);
		ok = false;
	}
	return ok ? map : NULL;
}

/*
 * The attributes that decide what a coherent buffer is, so that its free
 * must name them as its allocation did: the memory type of its kernel
 * mapping (DMA_ATTR_WRITE_COMBINE), cached memory or not
 * (DMA_ATTR_NON_CONSISTENT), whether it has a kernel mapping at all
 * (DMA_ATTR_NO_KERNEL_MAPPING), where its pages come from behind an IOMMU
 * (DMA_ATTR_FORCE_CONTIGUOUS). The others only steer streaming mappings.
 */
#define DBG_BUFFER_ATTRS                                                                    \
	(1UL << DMA_ATTR_WRITE_COMBINE | 1UL << DMA_ATTR_NON_CONSISTENT | 1UL << DMA_ATTR_NO_KERNEL_MAPPING | \
	 1UL << DMA_ATTR_FORCE_CONTIGUOUS)

/* "DMA_ATTR_WRITE_COMBINE|DMA_ATTR_NO_KERNEL_MAPPING", or "none", of the buffer attributes in @flags. */
static const char *buffer_attrs_name(unsigned long flags, char *buf, size_t n)
{
	static const char *const names[DMA_ATTR_MAX] = {
		[DMA_ATTR_WRITE_COMBINE] = "DMA_ATTR_WRITE_COMBINE",
		[DMA_ATTR_NON_CONSISTENT] = "DMA_ATTR_NON_CONSISTENT",
		[DMA_ATTR_NO_KERNEL_MAPPING] = "DMA_ATTR_NO_KERNEL_MAPPING",
		[DMA_ATTR_FORCE_CONTIGUOUS] = "DMA_ATTR_FORCE_CONTIGUOUS",
	};
	size_t used = 0;

	buf[0] = '\0';
	for (unsigned a = 0; a < DMA_ATTR_MAX; a++) {
		if (!(flags & DBG_BUFFER_ATTRS & (1UL << a)) || used >= n)
			continue;
		used += (size_t)DM_MAX(0, snprintf(buf + used, n - used, "%s%s", used ? "|" : "", names[a]));
	}
	return used ? buf : "none";
}

/* A coherent or pool release by @what: checked, and on success taken out for the caller to hold. */
static bool buffer_release(struct device *dev, enum dm_kind kind, struct dma_pool *pool, size_t size, const void *cpu,
			   dma_addr_t handle, struct dma_attrs **attrs, struct dma_attrs *made, const char *what,
			   const char *file, int line, struct dm_map **hold)
{
	struct dmamap_debug *dbg = dbg_of(dm_dev_machine(dev));
	struct dm_reports rs;
	struct dm_map *map;

	*hold = NULL;
	rs.n = 0;
	rs.lost = NULL;
	if (!dbg)
		return true;
	pthread_spin_lock(&dbg->lock);
	map = buffer_lookup(dbg, &rs, dev, kind, pool, cpu, handle, size, what);
	if (map && attrs && ((*attrs ? (*attrs)->flags : 0) ^ map->attrs) & DBG_BUFFER_ATTRS) {
		char given[128], was[128];

		rep_add(&rs, DMAMAP_REPORT_ATTR_MISMATCH, map, handle, size, DMA_NONE,
			"%s of bus %#llx with attrs %s: the buffer was allocated with %s; freed as it was allocated",
			what, (unsigned long long)handle,
			buffer_attrs_name(*attrs ? (*attrs)->flags : 0, given, sizeof(given)),
			buffer_attrs_name(map->attrs, was, sizeof(was)));
		made->flags = map->attrs;
		*attrs = made;
	}
	if (map)
		release_map(dbg, map, hold, file, line);
	pthread_spin_unlock(&dbg->lock);
	rep_flush(dev, &rs);
	return map != NULL;
}

bool dmamap_debug_free(struct device *dev, size_t size, const void *cpu, dma_addr_t handle, struct dma_attrs **attrs,
		       struct dma_attrs *made, const char *what, const char *file, int line, struct dm_map **hold)
{
	return buffer_release(dev, DK_COHERENT, NULL, size, cpu, handle, attrs, made, what, file, line, hold);
}

/*
 * The attributes that decide the page protection a buffer's user mapping
 * gets (cached for a non-consistent buffer, write-combining, or the
 * coherent one): dma_mmap_attrs() must name them as the allocation did.
 */
#define DBG_MMAP_ATTRS (1UL << DMA_ATTR_WRITE_COMBINE | 1UL << DMA_ATTR_NON_CONSISTENT)

bool dmamap_debug_buffer_use(struct device *dev, const void *cpu, dma_addr_t handle, size_t size,
			     struct dma_attrs **attrs, struct dma_attrs *made, const char *what)
{
	struct dmamap_debug *dbg = dbg_of(dm_dev_machine(dev));
	struct dm_want w = { DK_COHERENT, size, DMA_NONE, NULL };
	struct dm_reports rs;
	struct dm_map *map;
	bool ok = false;

	if (!dbg)
		return true;
	rs.n = 0;
	rs.lost = NULL;
	pthread_spin_lock(&dbg->lock);
	map = find_bus_start(dbg, dev, handle, &w);
	if (!map)
		missing(dbg, &rs, dev, what, handle, size, DMA_NONE, false);
	else if (map->kind != DK_COHERENT || map->cpu != cpu)
		rep_add(&rs, map->kind != DK_COHERENT ? DMAMAP_REPORT_KIND_MISMATCH : DMAMAP_REPORT_ADDR_MISMATCH, map,
			handle, size, DMA_NONE, "%s of bus %#llx, cpu %p: not a buffer from dma_alloc_attrs; refused",
			what, (unsigned long long)handle, cpu);
	else if (size > PAGE_ALIGN(map->size))
		rep_add(&rs, DMAMAP_REPORT_SIZE_MISMATCH, map, handle, size, DMA_NONE,
			"%s of %#zx bytes: the buffer is %#zx bytes; refused", what, size, map->size);
	else
		ok = true;
	if (ok && attrs && ((*attrs ? (*attrs)->flags : 0) ^ map->attrs) & DBG_MMAP_ATTRS) {
		char given[128], was[128];

		rep_add(&rs, DMAMAP_REPORT_ATTR_MISMATCH, map, handle, size, DMA_NONE,
			"%s of bus %#llx with attrs %s: the buffer was allocated with %s; mapped as it was allocated",
			what, (unsigned long long)handle, buffer_attrs_name(*attrs ? (*attrs)->flags : 0, given, sizeof(given)),
			buffer_attrs_name(map->attrs, was, sizeof(was)));
		made->flags = map->attrs;
		*attrs = made;
	}
	pthread_spin_unlock(&dbg->lock);
	rep_flush(dev, &rs);
	return ok;
}

struct dm_map *dmamap_debug_pool_prepare(struct device *dev, size_t size)
{
	return prepare(dev, pages_at_most(size), "dma_pool_alloc");
}

void dmamap_debug_pool_alloc_done(struct dm_map *map, struct device *dev, struct dma_pool *pool, size_t size,
				  const void *cpu, dma_addr_t handle, const char *file, int line)
{
	alloc_done(map, dev, DK_POOL, pool, size, cpu, handle, NULL, file, line);
}

bool dmamap_debug_pool_free(struct device *dev, struct dma_pool *pool, size_t size, const void *cpu,
			    dma_addr_t handle, const char *file, int line, struct dm_map **hold)
{
	return buffer_release(dev, DK_POOL, pool, size, cpu, handle, NULL, NULL, kind_unmap_call[DK_POOL], file, line,
			      hold);
}

/* ------------------------------------------------------------ the bus side */

/* The link of @dev holding bus @a that speaks for the driver: a streaming mapping first, then a buffer. Lock held. */
static struct dm_link *bus_owner(struct dmamap_debug *dbg, struct device *dev, dma_addr_t a)
{
	struct dm_link *best = NULL;
	int best_rank = 0;

	for (struct dm_link *l = dbg->buckets[bucket_of(dbg, dev, a >> PAGE_SHIFT)]; l; l = l->next) {
		int rank;

		if (l->space != dev || l->page != a >> PAGE_SHIFT || a - l->start >= l->len)
			continue;
		/* the library's own buffers (a pool's page, a freed safe buffer) are no licence */
		rank = l->map->internal ? 1 : l->map->dir != DMA_NONE ? 3 : 2;
		if (rank > best_rank) {
			best = l;
			best_rank = rank;
		}
	}
	return best;
}

void dmamap_debug_fault_cause(struct device *dev, dma_addr_t iova, char *buf, size_t n)
{
	struct dmamap_debug *dbg = dbg_of(dm_dev_machine(dev));
	struct dm_link *l;
	int used;

	buf[0] = '\0';
	if (!dbg)
		return;
	pthread_spin_lock(&dbg->lock);
	l = bus_owner(dbg, dev, iova);
	if (l && !l->map->internal) {
		used = snprintf(buf, n, "; it lies in the ");
		if (used > 0 && (size_t)used < n)
			used += describe(l->map, buf + used, n - (size_t)used);
		if (used > 0 && (size_t)used < n)
			snprintf(buf + used, n - (size_t)used, " made at %s:%d", l->map->file ? l->map->file : "?",
				 l->map->line);
	} else {
		const struct dm_tomb *t = tomb_slot(dbg, dev, iova);

		if (t->dev == dev && t->bus == iova) {
			struct dm_map ghost = tomb_ghost(t);

			used = snprintf(buf, n, "; the ");
			if (used > 0 && (size_t)used < n)
				used += describe(&ghost, buf + used, n - (size_t)used);
			if (used > 0 && (size_t)used < n)
				snprintf(buf + used, n - (size_t)used, " made at %s:%d was released at %s:%d",
					 t->file ? t->file : "?", t->line, t->gone_file ? t->gone_file : "?", t->gone_line);
		}
	}
	pthread_spin_unlock(&dbg->lock);
}

void dmamap_debug_dev_access(struct device *dev, dma_addr_t addr, size_t len, bool write)
{
	struct dmamap_debug *dbg = dbg_of(dm_dev_machine(dev));
	const char *what = write ? "device write" : "device read";
	bool iommu = dev->dmamap.iommu_domain != NULL;
	struct dm_reports rs;
	u64 pos = addr, left = len;

	if (!dbg)
		return;
	rs.n = 0;
	rs.lost = NULL;
	pthread_spin_lock(&dbg->lock);
	/* in lengths, not ends: a buffer may end at the last bus address */
	while (left && !rs.n) {
		struct dm_link *l = bus_owner(dbg, dev, pos);
		struct dm_map *map = l ? l->map : NULL;
		u64 step;

		if (!map || map->internal) {
			struct dm_tomb *t = tomb_slot(dbg, dev, pos);

			if (iommu)
				break; /* the IOMMU has let it through: whatever is mapped there, the driver mapped */
			if (t->dev == dev && t->bus == pos) {
				struct dm_map ghost = tomb_ghost(t);

				rep_add(&rs, DMAMAP_REPORT_DEV_UNMAPPED, &ghost, addr, len, DMA_NONE,
					"%s of %#zx bytes at bus %#llx: that mapping was released at %s:%d; the device "
					"must not use it any more",
					what, len, (unsigned long long)addr, t->gone_file ? t->gone_file : "?",
					t->gone_line);
			} else {
				rep_add(&rs, DMAMAP_REPORT_DEV_UNMAPPED, NULL, addr, len, DMA_NONE,
					"%s of %#zx bytes at bus %#llx: no live mapping, coherent buffer or pool block of "
					"the device covers bus %#llx",
					what, len, (unsigned long long)addr, (unsigned long long)pos);
			}
			break;
		}
		step = DM_MIN(l->start + l->len - pos, left);
		if (map->dir != DMA_NONE) {
			u64 piece_end = pos + step, at;
			const char *ofile;
			int oline;

			if (cpu_owns(map, pos, piece_end, &at, &ofile, &oline))
				rep_add(&rs, DMAMAP_REPORT_DEV_CPU_OWNED, map, addr, len, map->dir,
					"%s of %#zx bytes at bus %#llx: the CPU owns bus %#llx (given to it by the sync at "
					"%s:%d, not handed back by a dma_sync_*_for_device)",
					what, len, (unsigned long long)addr, (unsigned long long)at, ofile ? ofile : "?",
					oline);
			else if (write && map->dir == DMA_TO_DEVICE)
				rep_add(&rs, DMAMAP_REPORT_DEV_WRITE_TO_DEVICE, map, addr, len, map->dir,
					"%s of %#zx bytes at bus %#llx into a DMA_TO_DEVICE mapping: the device may only "
					"read it, and the CPU is never made to see what it writes",
					what, len, (unsigned long long)addr);
			else if (!write && map->dir == DMA_FROM_DEVICE)
				rep_add(&rs, DMAMAP_REPORT_DEV_READ_FROM_DEVICE, map, addr, len, map->dir,
					"%s of %#zx bytes at bus %#llx from a DMA_FROM_DEVICE mapping: nothing was cleaned "
					"for the device, it reads whatever RAM holds",
					what, len, (unsigned long long)addr);
			else if (write) {
				map->dev_wrote = true;
				if (!map->lost && !sp_add(&map->wrote, map->wrote_inl, pos, piece_end,
							  NULL, 0))
					lose_owners(&rs, map);
			}
		}
		pos += step;
		left -= step;
	}
	pthread_spin_unlock(&dbg->lock);
	rep_flush(dev, &rs);
}

/*
 * The device wrote bus [addr, addr + len) (@src, or @c repeated when @src is
 * NULL). Where a mapping watched against a copy of the CPU's view now shows
 * the CPU the device's bytes (a coherent device's write), the copy takes
 * them: they are not the CPU's stores.
 */
void dmamap_debug_dev_wrote(struct device *dev, dma_addr_t addr, const void *src, int c, size_t len)
{
	struct dmamap_machine *m = dm_dev_machine(dev);
	struct dmamap_debug *dbg = dbg_of(m);
	u64 pos = addr, left = len;

	if (!dbg)
		return;
	pthread_spin_lock(&dbg->lock);
	while (left) {
		struct dm_link *l = bus_owner(dbg, dev, pos);
		struct dm_map *map = l ? l->map : NULL;
		u64 step;

		if (!map)
			break;
		step = DM_MIN(l->start + l->len - pos, left);
		for (u64 done = 0; map->snap && done < step;) {
			u8 view[256];
			size_t n = (size_t)DM_MIN(step - done, sizeof(view));

			dmamap_cache_cpu_view(m, buf_phys(map, pos + done), n, view);
			for (size_t i = 0; i < n; i++) {
				u8 b = src ? ((const u8 *)src)[pos + done - addr + i] : (u8)c;

				if (view[i] == b)
					map->snap[pos + done - map->bus + i] = b;
			}
			done += n;
		}
		pos += step;
		left -= step;
	}
	pthread_spin_unlock(&dbg->lock);
}

/* ------------------------------------------------------ freeing the memory */

/* m->dma_busy: physical [phys, phys + len) is going back to an allocator. */
static bool memory_busy(struct dmamap_machine *m, phys_addr_t phys, size_t len, const char *what)
{
	struct dmamap_debug *dbg = dbg_of(m);
	struct dm_reports rs;
	struct device *dev = NULL;

	if (!dbg || !len)
		return false;
	rs.n = 0;
	rs.lost = NULL;
	pthread_spin_lock(&dbg->lock);
	for (u64 p = phys >> PAGE_SHIFT; p <= (phys + len - 1) >> PAGE_SHIFT && !rs.n; p++) {
		for (struct dm_link *l = dbg->buckets[bucket_of(dbg, NULL, p)]; l; l = l->next) {
			if (l->space || l->page != p || l->start >= phys + len || phys >= l->start + l->len ||
			    l->map->dir == DMA_NONE)
				continue;
			dev = l->map->dev;
			rep_add(&rs, DMAMAP_REPORT_FREE_MAPPED, l->map, l->map->bus, l->map->size, l->map->dir,
				"%s of %#zx bytes at phys %#llx: phys %#llx-%#llx is still mapped for DMA; refused, the "
				"memory stays allocated (unmap first, then free)",
				what, len, (unsigned long long)phys, (unsigned long long)DM_MAX(phys, l->start),
				(unsigned long long)(DM_MIN(phys + len, l->start + l->len) - 1));
			break;
		}
	}
	pthread_spin_unlock(&dbg->lock);
	if (dev)
		rep_flush(dev, &rs);
	return rs.n != 0;
}

/* -------------------------------------------------------------- releases */

/*
 * Take out the live records of @dev that the driver made (of @pool only,
 * when given), report each as a leak of @when, and forget them.
 */
static void report_leaks(struct device *dev, struct dma_pool *pool, const char *when)
{
	struct dmamap_debug *dbg = dbg_of(dm_dev_machine(dev));
	struct dm_map *gone = NULL, *map, *next;

	if (!dbg)
		return;
	pthread_spin_lock(&dbg->lock);
	for (map = dev->dmamap.debug; map; map = next) {
		next = map->next;
		if (map->internal || (pool && map->pool != pool))
			continue;
		take_out(dbg, map);
		map->next = gone;
		gone = map;
	}
	pthread_spin_unlock(&dbg->lock);

	for (map = gone; map; map = map->next) {
		struct dm_detail d = { .map_file = map->file, .map_line = map->line, .map_bus = map->bus,
				       .map_size = map->size, .map_dir = map->dir };
		char what[200];

		describe(map, what, sizeof(what));
		dmamap_report_detail(dm_dev_machine(dev), DMAMAP_REPORT_LEAK, dev->dmamap.name, &d, "%s: %s still %s",
				     when, what, map->kind == DK_COHERENT || map->kind == DK_POOL ? "allocated" : "mapped");
	}

	pthread_spin_lock(&dbg->lock);
	for (map = gone; map; map = next) {
		next = map->next;
		drop(dbg, map);
	}
	pthread_spin_unlock(&dbg->lock);
}

void dmamap_debug_device_leaks(struct device *dev)
{
	report_leaks(dev, NULL, "device release");
}

void dmamap_debug_noncoherent(struct device *dev, const void *cpu, dma_addr_t handle, int dir, bool freeing,
			      const char *what, const char *pair)
{
	struct dmamap_debug *dbg = dbg_of(dm_dev_machine(dev));
	struct dm_want w = { DK_COHERENT, 0, DMA_NONE, NULL };
	struct dm_reports rs;
	struct dm_map *map;

	if (!dbg)
		return;
	rs.n = 0;
	rs.lost = NULL;
	pthread_spin_lock(&dbg->lock);
	map = find_bus_start(dbg, dev, handle, &w);
	if (map && map->kind == DK_COHERENT && map->cpu == cpu) {
		if (!freeing) {
			map->noncoherent = true;
			map->nc_dir = dir;
			map->alloc_call = what;
			map->free_call = pair;
		} else if (map->noncoherent && map->nc_dir != dir) {
			rep_add(&rs, DMAMAP_REPORT_DIR_MISMATCH, map, handle, map->size, dir,
				"%s of bus %#llx with %s: the buffer was allocated for %s", what,
				(unsigned long long)handle, dmamap_dir_name(dir), dmamap_dir_name(map->nc_dir));
		}
	}
	pthread_spin_unlock(&dbg->lock);
	rep_flush(dev, &rs);
}

void dmamap_debug_detach_leaks(struct device *dev)
{
	report_leaks(dev, NULL, "arm_iommu_detach_device");
}

void dmamap_debug_pool_destroy(struct device *dev, struct dma_pool *pool)
{
	report_leaks(dev, pool, "dma_pool_destroy");
}
