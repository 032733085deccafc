/* SPDX-License-Identifier: MIT */
/*
 * The simulated IOMMU: translation domains, their page tables, and faults.
 *
 * A domain translates the 48-bit IOVA space through a 4-level table, 512
 * 64-bit entries (9 bits of IOVA) per level over 4 KiB pages: a level-0 entry
 * spans 512 GiB, level 1 1 GiB, level 2 2 MiB, level 3 4 KiB. Each table is a
 * page-aligned host allocation ("table page"). An entry is
 *   bits 63..12  physical address (leaf) or host address (table)
 *   bit   5      the mapper's tag (DM_IOMMU_TAG: a coherent buffer's page)
 *   bits  4..3   IOMMU_READ / IOMMU_WRITE (leaves)
 *   bits  2..1   type: table, block (a level-1 or level-2 leaf), page (level 3)
 *   bit   0      valid
 * A mapping uses, at each step, the largest leaf whose span the range covers
 * and to which both the IOVA and the physical address are aligned.
 *
 * Tables stay when their mappings go, as the kernel's io-pgtable keeps them:
 * mapping and unmapping a page where tables already are costs a walk and an
 * entry, not a table allocation and free. A table is freed with the domain,
 * when an unmap covers its whole span (all it held was unmapped at once),
 * when a block mapping takes the place of an (empty) table, or when the
 * domain is asked to give back its idle memory (the fault sweep's shrink).
 *
 * Invariant (whenever the lock is free): the stats count exactly what the
 * tree holds. iommu_map(), having checked that nothing in its range is
 * mapped (-EEXIST), counts the tables it will need and gets them all before
 * touching the tree, so a map that cannot have them (-ENOMEM) changes
 * nothing. iommu_unmap() gets every table a block split needs before
 * touching the block, so a split that cannot be had changes nothing; it
 * stops at the first hole. Misaligned unmap arguments unmap nothing,
 * silently, as a hole would; bad map arguments are reported (BAD_INPUT), as
 * the kernel logs them.
 *
 * Which devices are attached is recorded in the devices themselves
 * (dev->dmamap.iommu_domain), changed under the machine's obj_lock, which also
 * guards the machine's device list that iommu_domain_free() walks to detach
 * them. One mutex per domain guards its tables and stats; translations take
 * it too. Lock order: obj_lock, then the domain lock. Fault handlers and
 * reports run with no lock held.
 *
 * The IOTLB is two sorted lists of disjoint IOVA ranges per domain, under
 * its lock: the stale translations an iommu_unmap_fast() left (with the old
 * physical address, permissions and the unmap's line), and the pages a
 * dma_iova_link() mapped that no dma_iova_sync() has made usable yet (with
 * the link's line). A translation looks at them first, and only when either
 * is non-empty: a stale range is used as the hardware would use its cached
 * entry, an unsynced one faults. Nothing else is cached, and nothing is ever
 * evicted. The lists change only through the calls that invalidate
 * (iommu_unmap(), the mapper's unmaps, iommu_iotlb_sync(),
 * iommu_flush_iotlb_all(), dma_iova_sync()) and the two that fill them, so
 * the mapper's own map and unmap pay one branch each. When the host has no
 * memory to record a range, the IOTLB errs towards invalidating: an entry
 * not recorded faults (stale) or is usable (a split of a range that must
 * be cut drops its tail); a link whose range cannot be recorded fails with
 * -ENOMEM before anything changes.
 *
 * Every public call taking a domain first looks its pointer up in the
 * process-wide table of owned objects (comparing pointers, never reading
 * through them): a domain freed already -- its machine destroyed in between
 * or not -- is reported (DMAMAP_REPORT_BAD_INPUT) and the call does nothing.
 * The mapper, which holds its own domain for as long as it uses it, maps and
 * unmaps through the *_held() forms, which skip the lookup.
 */
#include <stdio.h>
#include <stdlib.h>

#include "internal.h"

#define LEVELS 4
#define ENTRIES 512u
#define IOVA_LIMIT ((u64)1 << DMAMAP_IOMMU_IOVA_BITS)

#define PTE_VALID ((u64)1 << 0)
#define PTE_TYPE_SHIFT 1
#define PTE_TYPE_MASK ((u64)3 << PTE_TYPE_SHIFT)
#define PTE_TABLE ((u64)1 << PTE_TYPE_SHIFT)
#define PTE_BLOCK ((u64)2 << PTE_TYPE_SHIFT)
#define PTE_PAGE ((u64)3 << PTE_TYPE_SHIFT)
#define PTE_PROT_SHIFT 3
#define PTE_PROT_MASK ((u64)(IOMMU_READ | IOMMU_WRITE | DM_IOMMU_TAG) << PTE_PROT_SHIFT)
#define PTE_ADDR_MASK (~(u64)(PAGE_SIZE - 1))

/* One IOTLB range [start, end) and what made it. */
struct tlb_ent {
	u64 start, end;
	phys_addr_t pa;                 /* stale: what start translated to */
	int prot;                       /* stale: the old permissions */
	const char *file;               /* the iommu_unmap_fast() or dma_iova_link() */
	int line;
};

/* Disjoint ranges, sorted by start. */
struct tlb_list {
	struct tlb_ent *v;
	size_t n, cap;
};

struct iommu_domain {
	struct dmamap_obj obj;          /* obj.machine: NULL once the machine is destroyed */
	bool registered;                /* made by iommu_domain_alloc(); a mapper's own is not */
	pthread_mutex_t lock;           /* the tables, stats, handler */
	u64 *root;                      /* level-0 table */
	iommu_fault_handler_t handler;
	void *token;
	struct dmamap_iommu_stats st;   /* attached_devices changes under obj_lock too */
	struct tlb_list stale;          /* translations unmapped but still in the IOTLB */
	struct tlb_list unsynced;       /* pages mapped but not yet synced into the IOTLB */
};

/* ------------------------------------------------------------- entries */

static inline unsigned level_shift(int lvl)
{
	return PAGE_SHIFT + 9u * (unsigned)(LEVELS - 1 - lvl);
}

static inline u64 level_size(int lvl)
{
	return (u64)1 << level_shift(lvl);
}

static inline unsigned level_index(u64 iova, int lvl)
{
	return (unsigned)(iova >> level_shift(lvl)) & (ENTRIES - 1);
}

static inline bool pte_valid(u64 e)
{
	return e & PTE_VALID;
}

static inline bool pte_is_table(u64 e)
{
	return (e & (PTE_VALID | PTE_TYPE_MASK)) == (PTE_VALID | PTE_TABLE);
}

static inline u64 *pte_table(u64 e)
{
	return (u64 *)(uintptr_t)(e & PTE_ADDR_MASK);
}

static inline phys_addr_t pte_phys(u64 e)
{
	return e & PTE_ADDR_MASK;
}

static inline int pte_prot(u64 e)
{
	return (int)((e & PTE_PROT_MASK) >> PTE_PROT_SHIFT);
}

static inline u64 mk_leaf(phys_addr_t pa, int prot, int lvl)
{
	return pa | ((u64)prot << PTE_PROT_SHIFT) | (lvl == LEVELS - 1 ? PTE_PAGE : PTE_BLOCK) | PTE_VALID;
}

static inline u64 mk_table(u64 *t)
{
	return (u64)(uintptr_t)t | PTE_TABLE | PTE_VALID;
}

/* ---------------------------------------------------------- table pages */

/* A zeroed table page; NULL on injected or host failure. Not counted. */
static u64 *table_alloc(struct dmamap_machine *m)
{
	u64 *t;

	if (dmamap_should_fail(m, DMAMAP_FAULT_IOMMU_PGTABLE))
		return NULL;
	t = aligned_alloc(PAGE_SIZE, ENTRIES * sizeof(u64));
	if (t)
		memset(t, 0, ENTRIES * sizeof(u64));
	return t;
}

/* Free table @t (at @lvl) and every table below it; return how many were freed. */
static unsigned long table_free_tree(u64 *t, int lvl)
{
	unsigned long n = 1;

	if (lvl < LEVELS - 1)
		for (unsigned i = 0; i < ENTRIES; i++)
			if (pte_is_table(t[i]))
				n += table_free_tree(pte_table(t[i]), lvl + 1);
	free(t);
	return n;
}

/*
 * The tables a map will take, got before it touches the tree: a stack
 * threaded through each table's first entry (zeroed when taken).
 */
struct table_stock {
	u64 *head;
	unsigned long n;
};

static void stock_put(struct table_stock *s, u64 *t)
{
	t[0] = (u64)(uintptr_t)s->head;
	s->head = t;
	s->n++;
}

static u64 *stock_take(struct table_stock *s)
{
	u64 *t = s->head;

	s->head = (u64 *)(uintptr_t)t[0];
	t[0] = 0;
	s->n--;
	return t;
}

static void stock_free(struct table_stock *s)
{
	while (s->head)
		free(stock_take(s));
}

/* Entries of a table at @lvl (based at @tbase) that [start, end) touches. */
static inline void index_range(u64 tbase, int lvl, u64 start, u64 end, unsigned *first, unsigned *last)
{
	*first = (unsigned)((start - tbase) >> level_shift(lvl));
	*last = (unsigned)((end - 1 - tbase) >> level_shift(lvl));
}

/* ----------------------------------------------------------------- IOTLB */

/* The index of the first range of @l ending after @iova (l->n if none). */
static size_t tlb_find(const struct tlb_list *l, u64 iova)
{
	size_t lo = 0, hi = l->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (l->v[mid].end <= iova)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The range of @l holding @iova, or NULL. */
static const struct tlb_ent *tlb_lookup(const struct tlb_list *l, u64 iova)
{
	size_t i = tlb_find(l, iova);

	return i < l->n && l->v[i].start <= iova ? &l->v[i] : NULL;
}

/* Where the first range of @l after @iova starts (at most @limit). */
static u64 tlb_next(const struct tlb_list *l, u64 iova, u64 limit)
{
	size_t i = tlb_find(l, iova);

	return i < l->n && l->v[i].start > iova ? DM_MIN(l->v[i].start, limit) : limit;
}

/* Room for one more range; -ENOMEM when the host has none. */
static int tlb_reserve(struct tlb_list *l)
{
	size_t cap = l->cap ? 2 * l->cap : 8;
	struct tlb_ent *v;

	if (l->n < l->cap)
		return 0;
	v = realloc(l->v, cap * sizeof(*v));
	if (!v)
		return -ENOMEM;
	l->v = v;
	l->cap = cap;
	return 0;
}

static int tlb_insert(struct tlb_list *l, size_t at, const struct tlb_ent *e)
{
	if (tlb_reserve(l))
		return -ENOMEM;
	memmove(&l->v[at + 1], &l->v[at], (l->n - at) * sizeof(*e));
	l->v[at] = *e;
	l->n++;
	return 0;
}

/* Record [s, e) (translating to @pa on) where @l holds nothing yet: an older entry stays. */
static void tlb_add(struct tlb_list *l, u64 s, u64 e, phys_addr_t pa, int prot, const char *file, int line)
{
	size_t i = tlb_find(l, s);
	u64 cur = s;

	while (cur < e) {
		struct tlb_ent ent;

		if (i < l->n && l->v[i].start <= cur) {
			cur = l->v[i++].end;
			continue;
		}
		ent = (struct tlb_ent){ .start = cur, .end = i < l->n ? DM_MIN(l->v[i].start, e) : e,
					.pa = pa + (cur - s), .prot = prot, .file = file, .line = line };
		if (tlb_insert(l, i, &ent))
			return; /* not recorded: the access faults as unmapped */
		cur = ent.end;
		i++;
	}
}

/* Forget what @l holds in [s, e). */
static void tlb_cut(struct tlb_list *l, u64 s, u64 e)
{
	size_t i = tlb_find(l, s), j;
	struct tlb_ent *x;

	if (i == l->n || l->v[i].start >= e)
		return;
	x = &l->v[i];
	if (x->start < s && x->end > e) {
		struct tlb_ent tail = *x;

		tail.pa += e - x->start;
		tail.start = e;
		x->end = s;
		(void)tlb_insert(l, i + 1, &tail); /* no room: the tail goes too */
		return;
	}
	if (x->start < s) {
		x->end = s;
		i++;
	}
	for (j = i; j < l->n && l->v[j].end <= e; j++)
		;
	if (j < l->n && l->v[j].start < e) {
		l->v[j].pa += e - l->v[j].start;
		l->v[j].start = e;
	}
	memmove(&l->v[i], &l->v[j], (l->n - j) * sizeof(*x));
	l->n -= j - i;
}

/* Whether @d's IOTLB holds anything of its own (else it follows the tables). Lock held. */
static inline bool iotlb_busy(const struct iommu_domain *d)
{
	return (d->stale.n | d->unsynced.n) != 0;
}

/* Invalidate [s, e) in @d's IOTLB: stale and unsynced translations go. Lock held. */
static void iotlb_invalidate(struct iommu_domain *d, u64 s, u64 e)
{
	tlb_cut(&d->stale, s, e);
	tlb_cut(&d->unsynced, s, e);
}

static void tlb_free(struct tlb_list *l)
{
	free(l->v);
	*l = (struct tlb_list){ 0 };
}

/* ----------------------------------------------------------------- walks */

/*
 * The leaf entry translating @iova, or 0; *slot and *lvl locate it. Caller
 * holds the lock.
 */
static u64 walk(struct iommu_domain *d, u64 iova, u64 **slot, int *lvl)
{
	u64 *t = d->root;

	if (iova >= IOVA_LIMIT)
		return 0;
	for (int l = 0; l < LEVELS; l++) {
		u64 *p = &t[level_index(iova, l)];

		if (!pte_valid(*p))
			return 0;
		if (!pte_is_table(*p)) {
			if (slot)
				*slot = p;
			if (lvl)
				*lvl = l;
			return *p;
		}
		t = pte_table(*p);
	}
	return 0; /* not reached: level-3 entries are leaves */
}

/* Whether any page of [start, end) is mapped under table @t. */
static bool range_mapped(const u64 *t, int lvl, u64 tbase, u64 start, u64 end)
{
	unsigned first, last;

	index_range(tbase, lvl, start, end, &first, &last);
	for (unsigned i = first; i <= last; i++) {
		u64 e = t[i], eb = tbase + (u64)i * level_size(lvl);

		if (!pte_valid(e))
			continue;
		if (!pte_is_table(e))
			return true;
		if (range_mapped(pte_table(e), lvl + 1, eb, DM_MAX(start, eb), DM_MIN(end, eb + level_size(lvl))))
			return true;
	}
	return false;
}

/*
 * Whether the level-@lvl entry at @eb takes a leaf in a map of [s, e) (its
 * part of the range) with physical = iova + @delta: the range covers the
 * whole entry and the physical address is aligned to its span.
 */
static inline bool leaf_fits(int lvl, u64 eb, u64 s, u64 e, u64 delta)
{
	return lvl > 0 && s == eb && e == eb + level_size(lvl) && !((eb + delta) & (level_size(lvl) - 1));
}

/*
 * How many tables a map of [start, end) (holding no mapping) needs under
 * table @t, NULL for one yet to be made.
 */
static unsigned long tables_needed(const u64 *t, int lvl, u64 tbase, u64 start, u64 end, u64 delta)
{
	u64 size = level_size(lvl);
	unsigned long n = 0;
	unsigned first, last;

	index_range(tbase, lvl, start, end, &first, &last);
	for (unsigned i = first; i <= last; i++) {
		u64 eb = tbase + (u64)i * size, s = DM_MAX(start, eb), e = DM_MIN(end, eb + size);
		u64 ent = t ? t[i] : 0;

		if (leaf_fits(lvl, eb, s, e, delta))
			continue;
		if (pte_valid(ent))
			n += tables_needed(pte_table(ent), lvl + 1, eb, s, e, delta);
		else
			n += 1 + tables_needed(NULL, lvl + 1, eb, s, e, delta);
	}
	return n;
}

/*
 * Map [start, end) under table @t, physical = iova + @delta, taking tables
 * from @stock (which holds all it needs). The range holds no mapping, so a
 * valid entry in it is a table holding nothing there: where a block fits,
 * the block takes that table's place and the table goes.
 */
static void map_range(struct iommu_domain *d, u64 *t, int lvl, u64 tbase, u64 start, u64 end, u64 delta, int prot,
		      struct table_stock *stock)
{
	u64 size = level_size(lvl);
	unsigned first, last;

	index_range(tbase, lvl, start, end, &first, &last);
	for (unsigned i = first; i <= last; i++) {
		u64 eb = tbase + (u64)i * size;
		u64 s = DM_MAX(start, eb), e = DM_MIN(end, eb + size);

		if (leaf_fits(lvl, eb, s, e, delta)) {
			if (pte_valid(t[i]))
				d->st.table_pages -= table_free_tree(pte_table(t[i]), lvl + 1);
			t[i] = mk_leaf(eb + delta, prot, lvl);
			d->st.mapped_bytes += size;
			if (lvl < LEVELS - 1)
				d->st.block_entries++;
			continue;
		}
		if (!pte_valid(t[i])) {
			t[i] = mk_table(stock_take(stock));
			d->st.table_pages++;
		}
		map_range(d, pte_table(t[i]), lvl + 1, eb, s, e, delta, prot, stock);
	}
}

/* Free the tables under @t whose whole span lies in [start, end) (an unmap emptied them). */
static void prune_covered(struct iommu_domain *d, u64 *t, int lvl, u64 tbase, u64 start, u64 end)
{
	u64 size = level_size(lvl);
	unsigned first, last;

	index_range(tbase, lvl, start, end, &first, &last);
	for (unsigned i = first; i <= last; i++) {
		u64 eb = tbase + (u64)i * size;

		if (!pte_is_table(t[i]))
			continue;
		if (eb >= start && eb + size <= end) {
			d->st.table_pages -= table_free_tree(pte_table(t[i]), lvl + 1);
			t[i] = 0;
		} else {
			prune_covered(d, pte_table(t[i]), lvl + 1, eb, DM_MAX(start, eb), DM_MIN(end, eb + size));
		}
	}
}

/* Free every empty table under @t; return whether @t is empty then. */
static bool prune_empty(struct iommu_domain *d, u64 *t, int lvl)
{
	bool empty = true;

	for (unsigned i = 0; i < ENTRIES; i++) {
		if (lvl < LEVELS - 1 && pte_is_table(t[i]) && prune_empty(d, pte_table(t[i]), lvl + 1)) {
			free(pte_table(t[i]));
			t[i] = 0;
			d->st.table_pages--;
		}
		empty &= !t[i];
	}
	return empty;
}

void dmamap_iommu_domain_shrink(struct iommu_domain *d)
{
	pthread_mutex_lock(&d->lock);
	if (d->root)
		prune_empty(d, d->root, 0);
	pthread_mutex_unlock(&d->lock);
}

/* Whether [cur, end) wholly covers the level-@lvl entry holding @cur (cur < end, both page aligned). */
static inline bool covers(u64 cur, u64 end, int lvl)
{
	return !(cur & (level_size(lvl) - 1)) && end - cur >= level_size(lvl);
}

/* Replace the leaf *@slot at @lvl by table @sub holding the same mapping in 512 next-level leaves. */
static void split_leaf(struct iommu_domain *d, u64 *slot, int lvl, u64 *sub)
{
	u64 e = *slot, child = level_size(lvl + 1);
	phys_addr_t pa = pte_phys(e);
	int prot = pte_prot(e);

	for (unsigned i = 0; i < ENTRIES; i++)
		sub[i] = mk_leaf(pa + (u64)i * child, prot, lvl + 1);
	*slot = mk_table(sub);
	d->st.table_pages++;
	d->st.block_entries--;
	if (lvl + 1 < LEVELS - 1)
		d->st.block_entries += ENTRIES;
}

/* ------------------------------------------------------------ domains */

/* Whether @d may be used; a dead domain (its machine destroyed) is reported and refused. */
static bool domain_usable(const struct iommu_domain *d, const char *what)
{
	if (!dmamap_obj_dead(&d->obj))
		return true;
	dmamap_obj_dead_report(&d->obj, what);
	return false;
}

/*
 * Whether @d, given to the public call @what, names a domain not freed yet;
 * if not, that is reported process-wide and the call must do nothing.
 */
static bool domain_owned(const struct iommu_domain *d, const char *what)
{
	return dmamap_obj_owned(d, what, DM_OBJ_DOMAIN, NULL, 0);
}

/* Read @d's counters (a live domain's, or one whose machine is gone). */
static void stats_read(struct iommu_domain *d, struct dmamap_iommu_stats *st)
{
	pthread_mutex_lock(&d->lock);
	*st = d->st;
	pthread_mutex_unlock(&d->lock);
}

/* Where a bad attach/detach is reported: the domain's machine, else the device's. */
static struct dmamap_machine *report_machine(const struct iommu_domain *d, const struct device *dev)
{
	return d ? d->obj.machine : dm_dev_live(dev) ? dev->dmamap.machine : NULL;
}

/* Detach @dev from @d; caller holds m->obj_lock. */
static void detach_locked(struct iommu_domain *d, struct device *dev)
{
	pthread_mutex_lock(&d->lock);
	dev->dmamap.iommu_domain = NULL;
	d->st.attached_devices--;
	pthread_mutex_unlock(&d->lock);
}

/* The stale translations @d still held at @what: one leak per iommu_unmap_fast() line (adjacent ranges). */
static void report_stale(struct iommu_domain *d, const struct tlb_list *stale, const char *what)
{
	for (size_t i = 0; i < stale->n;) {
		const struct tlb_ent *e = &stale->v[i];
		u64 bytes = 0;
		size_t j;

		for (j = i; j < stale->n && stale->v[j].file == e->file && stale->v[j].line == e->line; j++)
			bytes += stale->v[j].end - stale->v[j].start;
		dmamap_report(d->obj.machine, DMAMAP_REPORT_LEAK, NULL, e->file, e->line,
			      "%s: IOMMU domain %p still holds %llu bytes of stale IOTLB entries from iova %#llx on, "
			      "unmapped by iommu_unmap_fast at %s:%d and never invalidated (iommu_iotlb_sync() of its "
			      "gather, or iommu_flush_iotlb_all(), missing)",
			      what, (void *)d, (unsigned long long)bytes, (unsigned long long)e->start,
			      e->file ? e->file : "?", e->line);
		i = j;
	}
}

/* Detach the devices left attached, one at a time, reporting each with no lock held; free the tables. */
static void domain_teardown(struct iommu_domain *d, const char *what)
{
	struct dmamap_machine *m = d->obj.machine;
	struct tlb_list stale;

	for (;;) {
		char name[DMAMAP_DEV_NAME_MAX];
		struct device *dev;

		pthread_mutex_lock(&m->obj_lock);
		for (dev = m->devices; dev; dev = dev->dmamap.next)
			if (dev->dmamap.iommu_domain == d)
				break;
		if (dev) {
			detach_locked(d, dev);
			memcpy(name, dev->dmamap.name, sizeof(name));
		}
		pthread_mutex_unlock(&m->obj_lock);
		if (!dev)
			break;
		dmamap_report(m, DMAMAP_REPORT_API_MISUSE, name, NULL, 0,
			      "%s: device still attached to the domain; detached", what);
	}
	pthread_mutex_lock(&d->lock);
	table_free_tree(d->root, 0);
	d->root = NULL;
	stale = d->stale;
	d->stale = (struct tlb_list){ 0 };
	tlb_free(&d->unsynced);
	pthread_mutex_unlock(&d->lock);
	report_stale(d, &stale, what);
	tlb_free(&stale);
}

static void domain_machine_gone(struct dmamap_obj *o)
{
	struct iommu_domain *d = container_of(o, struct iommu_domain, obj);
	struct dmamap_iommu_stats st;

	stats_read(d, &st);
	dmamap_report(o->machine, DMAMAP_REPORT_LEAK, NULL, NULL, 0,
		      "IOMMU domain (%lu bytes mapped) still allocated at machine destroy; its tables are freed "
		      "(iommu_domain_free() it to free it)", st.mapped_bytes);
	domain_teardown(d, "machine destroy");
}

static void domain_check(struct dmamap_obj *o, struct dm_check *c)
{
	dmamap_iommu_domain_check(container_of(o, struct iommu_domain, obj), c);
}

static void domain_census(struct dmamap_obj *o, struct dm_census *cs)
{
	dmamap_iommu_domain_census(container_of(o, struct iommu_domain, obj), cs);
}

static void domain_shrink(struct dmamap_obj *o)
{
	dmamap_iommu_domain_shrink(container_of(o, struct iommu_domain, obj));
}

static const struct dmamap_obj_ops domain_obj_ops = {
	.name = "IOMMU domain",
	.machine_gone = domain_machine_gone,
	.check = domain_check,
	.census = domain_census,
	.shrink = domain_shrink,
};

static struct iommu_domain *domain_create(struct dmamap_machine *m, bool registered)
{
	struct iommu_domain *d;

	if (!m) {
		dmamap_report(NULL, DMAMAP_REPORT_BAD_INPUT, NULL, NULL, 0, "iommu_domain_alloc: NULL machine");
		return NULL;
	}
	d = dmamap_zalloc(m, sizeof(*d));
	if (!d)
		return NULL;
	d->root = table_alloc(m);
	if (!d->root) {
		dmamap_free(d);
		return NULL;
	}
	if (pthread_mutex_init(&d->lock, NULL)) {
		free(d->root);
		dmamap_free(d);
		return NULL;
	}
	d->st.table_pages = 1;
	d->registered = registered;
	if (registered)
		dmamap_obj_add(m, &d->obj, &domain_obj_ops);
	else
		d->obj.machine = m;
	dmamap_obj_own(&d->obj, d, DM_OBJ_DOMAIN);
	return d;
}

DMAMAP_API struct iommu_domain *iommu_domain_alloc(struct dmamap_machine *m)
{
	return domain_create(m, true);
}

struct iommu_domain *dmamap_iommu_domain_create(struct dmamap_machine *m)
{
	return domain_create(m, false);
}

void dmamap_iommu_domain_kill(struct iommu_domain *d)
{
	domain_teardown(d, "machine destroy");
	__atomic_store_n(&d->obj.machine, NULL, __ATOMIC_RELEASE);
}

/* Free @d, for @what: detach the devices left attached (reported), free its tables and the struct. */
static void domain_free(struct iommu_domain *d, const char *what)
{
	if (dmamap_obj_dead(&d->obj)) {
		/* torn down with its machine: only the struct is left */
		if (d->registered)
			dmamap_obj_dead_report(&d->obj, what);
	} else {
		if (d->registered)
			dmamap_obj_del(&d->obj);
		domain_teardown(d, what);
	}
	pthread_mutex_destroy(&d->lock);
	dmamap_obj_disown(&d->obj);
	dmamap_free(d);
}

void dmamap_iommu_domain_destroy(struct iommu_domain *d)
{
	domain_free(d, "arm_iommu_release_mapping");
}

DMAMAP_API void iommu_domain_free(struct iommu_domain *d)
{
	if (!d || !domain_owned(d, "iommu_domain_free"))
		return;
	if (!d->registered) {
		/* the mapper would go on using it */
		dmamap_report(d->obj.machine, DMAMAP_REPORT_API_MISUSE, NULL, NULL, 0,
			      "iommu_domain_free(%p): the domain of an arm_iommu mapping goes with the mapping's last "
			      "reference (arm_iommu_release_mapping); refused",
			      (void *)d);
		return;
	}
	domain_free(d, "iommu_domain_free");
}

DMAMAP_API int iommu_attach_device(struct iommu_domain *d, struct device *dev)
{
	struct dmamap_machine *m;
	int err = 0;

	if (d && !domain_owned(d, "iommu_attach_device"))
		return -EINVAL;
	if (d && !domain_usable(d, "iommu_attach_device"))
		return -ENODEV;
	if (!d || !dm_dev_live(dev) || dev->dmamap.machine != d->obj.machine) {
		dmamap_report(report_machine(d, dev), DMAMAP_REPORT_BAD_INPUT, dm_dev_live(dev) ? dev->dmamap.name : NULL,
			      NULL, 0, "iommu_attach_device: %s",
			      !d ? "NULL domain"
			      : !dev ? "NULL device"
			      : !dm_dev_live(dev) ? "device not initialised"
						 : "device of another machine");
		return -EINVAL;
	}
	m = d->obj.machine;
	pthread_mutex_lock(&m->obj_lock);
	if (dev->dmamap.iommu_domain) {
		err = -EBUSY;
	} else {
		pthread_mutex_lock(&d->lock);
		dev->dmamap.iommu_domain = d;
		d->st.attached_devices++;
		pthread_mutex_unlock(&d->lock);
	}
	pthread_mutex_unlock(&m->obj_lock);
	return err;
}

DMAMAP_API void iommu_detach_device(struct iommu_domain *d, struct device *dev)
{
	struct dmamap_machine *m;
	bool attached = false;

	if (d && !domain_owned(d, "iommu_detach_device"))
		return;
	if (d && !domain_usable(d, "iommu_detach_device"))
		return;
	if (!d || !dm_dev_live(dev)) {
		dmamap_report(report_machine(d, dev), DMAMAP_REPORT_BAD_INPUT, dm_dev_live(dev) ? dev->dmamap.name : NULL,
			      NULL, 0, "iommu_detach_device: %s",
			      !d ? "NULL domain" : !dev ? "NULL device" : "device not initialised");
		return;
	}
	m = d->obj.machine;
	if (!d->registered && dev->archdata.mapping && dev->dmamap.iommu_domain == d) {
		/* the mapper's ops would go on giving IOVAs the device no longer translates */
		dmamap_report(m, DMAMAP_REPORT_API_MISUSE, dev->dmamap.name, NULL, 0,
			      "iommu_detach_device: the device is attached through an arm_iommu mapping "
			      "(arm_iommu_detach_device() detaches it); refused");
		return;
	}
	pthread_mutex_lock(&m->obj_lock);
	if (dev->dmamap.iommu_domain == d) {
		detach_locked(d, dev);
		attached = true;
	}
	pthread_mutex_unlock(&m->obj_lock);
	if (!attached)
		dmamap_report(m, DMAMAP_REPORT_API_MISUSE, dev->dmamap.name, NULL, 0,
			      "iommu_detach_device: device is not attached to this domain");
}

/* -------------------------------------------------------- map / unmap */

/*
 * Map as iommu_map(). @link_file non-NULL: the pages stay out of the IOTLB
 * (unsynced, made by the dma_iova_link() at @link_file:@link_line) until
 * dmamap_iommu_sync_map(); their record is made room for first, so a map
 * that cannot have it fails with -ENOMEM and changes nothing.
 */
static int domain_map(struct iommu_domain *d, unsigned long iova, phys_addr_t paddr, size_t size, int prot,
		      int allowed, const char *link_file, int link_line)
{
	const char *why = NULL;
	u64 start = iova, end;
	int err;

	if (d && !domain_usable(d, "iommu_map"))
		return -ENODEV;
	if (!d)
		why = "NULL domain";
	else if ((start | paddr | size) & (PAGE_SIZE - 1))
		why = "iova, paddr and size must be page aligned";
	else if (!size)
		why = "zero size";
	else if (start >= IOVA_LIMIT || size > IOVA_LIMIT - start)
		why = "range beyond the IOVA space";
	else if (!dm_phys_in_ram(d->obj.machine, paddr, size))
		why = "physical range is not RAM";
	else if (!(prot & (IOMMU_READ | IOMMU_WRITE)) || (prot & ~allowed))
		why = "bad prot";
	if (why) {
		dmamap_report(d ? d->obj.machine : NULL, DMAMAP_REPORT_BAD_INPUT, NULL, NULL, 0,
			      "iommu_map: iova %#lx pa %#llx size %#zx prot %#x: %s", iova, (unsigned long long)paddr,
			      size, (unsigned)prot, why);
		return -EINVAL;
	}
	end = start + size;

	pthread_mutex_lock(&d->lock);
	if (range_mapped(d->root, 0, 0, start, end)) {
		err = -EEXIST;
	} else if (link_file && tlb_reserve(&d->unsynced)) {
		err = -ENOMEM;
	} else {
		struct table_stock stock = { 0 };
		unsigned long need = tables_needed(d->root, 0, 0, start, end, paddr - start);

		err = 0;
		while (stock.n < need && !err) {
			u64 *t = table_alloc(d->obj.machine);

			if (t)
				stock_put(&stock, t);
			else
				err = -ENOMEM;
		}
		if (!err)
			map_range(d, d->root, 0, 0, start, end, paddr - start, prot, &stock);
		if (!err && link_file) /* nothing mapped there before: no unsynced range either, room made */
			tlb_add(&d->unsynced, start, end, 0, prot, link_file, link_line);
		stock_free(&stock);
	}
	pthread_mutex_unlock(&d->lock);
	return err;
}

DMAMAP_API int iommu_map(struct iommu_domain *d, unsigned long iova, phys_addr_t paddr, size_t size, int prot)
{
	if (d && !domain_owned(d, "iommu_map"))
		return -EINVAL;
	return domain_map(d, iova, paddr, size, prot, IOMMU_READ | IOMMU_WRITE, NULL, 0);
}

int dmamap_iommu_map_held(struct iommu_domain *d, unsigned long iova, phys_addr_t paddr, size_t size, int prot)
{
	return domain_map(d, iova, paddr, size, prot, IOMMU_READ | IOMMU_WRITE, NULL, 0);
}

int dmamap_iommu_map_tagged(struct iommu_domain *d, unsigned long iova, phys_addr_t paddr, size_t size, int prot)
{
	return domain_map(d, iova, paddr, size, prot, IOMMU_READ | IOMMU_WRITE | DM_IOMMU_TAG, NULL, 0);
}

int dmamap_iommu_map_unsynced(struct iommu_domain *d, unsigned long iova, phys_addr_t paddr, size_t size, int prot,
			      const char *file, int line)
{
	return domain_map(d, iova, paddr, size, prot, IOMMU_READ | IOMMU_WRITE, file ? file : "?", line);
}

void dmamap_iommu_sync_map(struct iommu_domain *d, unsigned long iova, size_t size)
{
	pthread_mutex_lock(&d->lock);
	if (d->unsynced.n)
		tlb_cut(&d->unsynced, iova, (u64)iova + size);
	pthread_mutex_unlock(&d->lock);
}

/*
 * Unmap as iommu_unmap() (@what). @gather NULL: the IOTLB is invalidated over
 * what was unmapped, at once. Else the translations removed stay there,
 * stale, recorded with @file:@line, and the range goes into @gather.
 */
static size_t domain_unmap(struct iommu_domain *d, unsigned long iova, size_t size,
			   struct iommu_iotlb_gather *gather, const char *what, const char *file, int line)
{
	u64 start = iova, cur = iova, end;

	if (!d) {
		dmamap_report(NULL, DMAMAP_REPORT_BAD_INPUT, NULL, NULL, 0, "%s: NULL domain", what);
		return 0;
	}
	if (!domain_usable(d, what))
		return 0;
	if (!size || ((start | size) & (PAGE_SIZE - 1)) || start >= IOVA_LIMIT)
		return 0;
	end = size > IOVA_LIMIT - start ? IOVA_LIMIT : start + size;

	pthread_mutex_lock(&d->lock);
	while (cur < end) {
		u64 *slot, *sub[LEVELS - 1];
		int lvl, l, n = 0;
		u64 sz;

		if (!walk(d, cur, &slot, &lvl))
			break;
		sz = level_size(lvl);
		if (covers(cur, end, lvl)) {
			if (gather) {
				if (d->unsynced.n)
					tlb_cut(&d->unsynced, cur, cur + sz);
				tlb_add(&d->stale, cur, cur + sz, pte_phys(*slot), pte_prot(*slot), file, line);
			}
			*slot = 0;
			d->st.mapped_bytes -= sz;
			if (lvl < LEVELS - 1)
				d->st.block_entries--;
			cur += sz;
			continue;
		}
		/*
		 * Partly covered: split down to the level whose entry holding cur
		 * the range covers (a page at worst), getting every table first.
		 */
		for (l = lvl + 1; !covers(cur, end, l); l++)
			;
		for (n = 0; n < l - lvl; n++)
			if (!(sub[n] = table_alloc(d->obj.machine)))
				break;
		if (n < l - lvl) {
			while (n)
				free(sub[--n]);
			break;
		}
		for (int i = 0; i < n; i++) {
			split_leaf(d, slot, lvl + i, sub[i]);
			slot = &sub[i][level_index(cur, lvl + i + 1)];
		}
	}
	if (cur > start) {
		prune_covered(d, d->root, 0, 0, start, cur);
		if (!gather) {
			if (iotlb_busy(d))
				iotlb_invalidate(d, start, cur);
		} else {
			gather->start = DM_MIN(gather->start, (unsigned long)start);
			gather->end = DM_MAX(gather->end, (unsigned long)(cur - 1));
			gather->pgsize = PAGE_SIZE;
		}
	}
	pthread_mutex_unlock(&d->lock);
	return (size_t)(cur - start);
}

DMAMAP_API size_t iommu_unmap(struct iommu_domain *d, unsigned long iova, size_t size)
{
	if (d && !domain_owned(d, "iommu_unmap"))
		return 0;
	return domain_unmap(d, iova, size, NULL, "iommu_unmap", NULL, 0);
}

size_t dmamap_iommu_unmap_held(struct iommu_domain *d, unsigned long iova, size_t size)
{
	return domain_unmap(d, iova, size, NULL, "iommu_unmap", NULL, 0);
}

DMAMAP_API size_t dmamap_iommu_unmap_fast_loc(struct iommu_domain *d, unsigned long iova, size_t size,
					      struct iommu_iotlb_gather *gather, const char *file, int line)
{
	if (d && !domain_owned(d, "iommu_unmap_fast"))
		return 0;
	if (d && !gather) {
		dmamap_report(d->obj.machine, DMAMAP_REPORT_BAD_INPUT, NULL, file, line,
			      "iommu_unmap_fast of iova %#lx size %#zx: NULL gather; nothing unmapped", iova, size);
		return 0;
	}
	return domain_unmap(d, iova, size, gather, "iommu_unmap_fast", file ? file : "?", line);
}

DMAMAP_API size_t (iommu_unmap_fast)(struct iommu_domain *d, unsigned long iova, size_t size,
				     struct iommu_iotlb_gather *gather)
{
	return dmamap_iommu_unmap_fast_loc(d, iova, size, gather, NULL, 0);
}

/* Whether @d may have its IOTLB invalidated by @what (NULL, freed or dead: reported). */
static bool iotlb_call_ok(struct iommu_domain *d, const char *what)
{
	if (!d) {
		dmamap_report(NULL, DMAMAP_REPORT_BAD_INPUT, NULL, NULL, 0, "%s: NULL domain", what);
		return false;
	}
	return domain_owned(d, what) && domain_usable(d, what);
}

DMAMAP_API void iommu_iotlb_sync(struct iommu_domain *d, struct iommu_iotlb_gather *gather)
{
	if (!iotlb_call_ok(d, "iommu_iotlb_sync"))
		return;
	if (!gather) {
		dmamap_report(d->obj.machine, DMAMAP_REPORT_BAD_INPUT, NULL, NULL, 0, "iommu_iotlb_sync: NULL gather");
		return;
	}
	if (gather->start <= gather->end) {
		pthread_mutex_lock(&d->lock);
		iotlb_invalidate(d, gather->start, (u64)gather->end + 1);
		pthread_mutex_unlock(&d->lock);
	}
	iommu_iotlb_gather_init(gather);
}

DMAMAP_API void iommu_flush_iotlb_all(struct iommu_domain *d)
{
	if (!iotlb_call_ok(d, "iommu_flush_iotlb_all"))
		return;
	pthread_mutex_lock(&d->lock);
	d->stale.n = 0;
	d->unsynced.n = 0;
	pthread_mutex_unlock(&d->lock);
}

DMAMAP_API phys_addr_t iommu_iova_to_phys(struct iommu_domain *d, unsigned long iova)
{
	phys_addr_t pa = 0;
	int lvl;
	u64 e;

	if (!d) {
		dmamap_report(NULL, DMAMAP_REPORT_BAD_INPUT, NULL, NULL, 0, "iommu_iova_to_phys: NULL domain");
		return 0;
	}
	if (!domain_owned(d, "iommu_iova_to_phys") || !domain_usable(d, "iommu_iova_to_phys"))
		return 0;
	pthread_mutex_lock(&d->lock);
	e = walk(d, iova, NULL, &lvl);
	if (e)
		pa = pte_phys(e) + (iova & (level_size(lvl) - 1));
	pthread_mutex_unlock(&d->lock);
	return pa;
}

/* ------------------------------------------------- faults, the bus side */

DMAMAP_API void iommu_set_fault_handler(struct iommu_domain *d, iommu_fault_handler_t handler, void *token)
{
	if (!d) {
		dmamap_report(NULL, DMAMAP_REPORT_BAD_INPUT, NULL, NULL, 0, "iommu_set_fault_handler: NULL domain");
		return;
	}
	if (!domain_owned(d, "iommu_set_fault_handler") || !domain_usable(d, "iommu_set_fault_handler"))
		return;
	pthread_mutex_lock(&d->lock);
	d->handler = handler;
	d->token = handler ? token : NULL;
	pthread_mutex_unlock(&d->lock);
}

DMAMAP_API void dmamap_iommu_stats(struct iommu_domain *d, struct dmamap_iommu_stats *st)
{
	if (!st)
		return;
	if (!d || !domain_owned(d, "dmamap_iommu_stats")) {
		memset(st, 0, sizeof(*st));
		return;
	}
	stats_read(d, st);
}

struct dmamap_machine *dmamap_iommu_machine(const struct iommu_domain *d)
{
	return d ? d->obj.machine : NULL;
}

int dmamap_iommu_translate(struct iommu_domain *d, struct device *dev, unsigned long iova, bool write, bool quiet,
			   phys_addr_t *phys, size_t *len)
{
	int need = write ? IOMMU_WRITE : IOMMU_READ, flags = write ? IOMMU_FAULT_WRITE : IOMMU_FAULT_READ;
	const char *what = write ? "write" : "read";
	struct tlb_ent tlb = { 0 };
	iommu_fault_handler_t handler;
	bool stale = false, unsynced = false;
	char cause[400];
	const char *why;
	void *token;
	int lvl;
	u64 e;

	if (!d || !phys || !len || dmamap_obj_dead(&d->obj))
		return -EINVAL;
	pthread_mutex_lock(&d->lock);
	if (iotlb_busy(d)) {
		/* the IOTLB first: a stale entry is used as cached, an unsynced page faults */
		const struct tlb_ent *t = tlb_lookup(&d->stale, iova);

		if (t) {
			stale = true;
		} else if ((t = tlb_lookup(&d->unsynced, iova))) {
			unsynced = true;
		}
		if (t)
			tlb = *t;
	}
	if (stale && (tlb.prot & need)) {
		*phys = tlb.pa + (iova - tlb.start);
		*len = (size_t)(tlb.end - iova);
		pthread_mutex_unlock(&d->lock);
		if (!quiet) {
			struct dm_detail det = { .bus = iova, .size = *len, .dir = DMA_NONE, .map_file = tlb.file,
						 .map_line = tlb.line, .map_bus = tlb.start,
						 .map_size = (size_t)(tlb.end - tlb.start), .map_dir = DMA_NONE };

			dmamap_report_detail(d->obj.machine, DMAMAP_REPORT_DEV_UNMAPPED,
					     dm_dev_live(dev) ? dev->dmamap.name : NULL, &det,
					     "device %s at iova %#lx through a stale IOTLB entry: unmapped by "
					     "iommu_unmap_fast at %s:%d and not invalidated since (iommu_iotlb_sync() or "
					     "iommu_flush_iotlb_all() missing); it reached phys %#llx, which the driver may "
					     "have freed", what, iova, tlb.file, tlb.line, (unsigned long long)*phys);
		}
		return 0;
	}
	e = stale || unsynced ? 0 : walk(d, iova, NULL, &lvl);
	if (e && (pte_prot(e) & need)) {
		u64 sz = level_size(lvl), off = iova & (sz - 1), lim = (u64)iova + (sz - off);

		/* stop where the IOTLB holds something of its own */
		if (iotlb_busy(d))
			lim = tlb_next(&d->unsynced, iova, tlb_next(&d->stale, iova, lim));
		*phys = pte_phys(e) + off;
		*len = (size_t)(lim - iova);
		pthread_mutex_unlock(&d->lock);
		return 0;
	}
	d->st.faults++;
	d->st.last_fault_iova = iova;
	d->st.last_fault_flags = flags;
	handler = d->handler;
	token = d->token;
	pthread_mutex_unlock(&d->lock);

	why = stale ? (write ? "stale IOTLB entry read-only" : "stale IOTLB entry write-only")
	    : unsynced ? "not in the IOTLB"
	    : !e ? (iova >= IOVA_LIMIT ? "beyond the IOVA space" : "unmapped")
	    : write ? "mapped read-only" : "mapped write-only";
	if (handler)
		handler(d, dev, iova, flags, token);
	cause[0] = '\0';
	if (unsynced)
		snprintf(cause, sizeof(cause), ": linked by dma_iova_link at %s:%d but not synced since "
			 "(dma_iova_sync() missing)", tlb.file, tlb.line);
	else if (stale)
		snprintf(cause, sizeof(cause), " (unmapped by iommu_unmap_fast at %s:%d and not invalidated since)",
			 tlb.file, tlb.line);
	else if (dm_dev_live(dev) && dmamap_debug_on(d->obj.machine))
		dmamap_debug_fault_cause(dev, iova, cause, sizeof(cause));
	if (stale || unsynced) {
		struct dm_detail det = { .bus = iova, .dir = DMA_NONE, .map_file = tlb.file, .map_line = tlb.line,
					 .map_bus = tlb.start, .map_size = (size_t)(tlb.end - tlb.start),
					 .map_dir = DMA_NONE };

		dmamap_report_detail(d->obj.machine, DMAMAP_REPORT_IOMMU_FAULT, dm_dev_live(dev) ? dev->dmamap.name : NULL,
				     &det, "iommu fault: device %s at iova %#lx: %s%s", what, iova, why, cause);
		return -EFAULT;
	}
	dmamap_report(d->obj.machine, DMAMAP_REPORT_IOMMU_FAULT, dm_dev_live(dev) ? dev->dmamap.name : NULL, NULL, 0,
		      "iommu fault: device %s at iova %#lx: %s%s", what, iova, why, cause);
	return -EFAULT;
}

/* ------------------------------------------------------------- invariants */

struct tree_count {
	unsigned long tables, blocks, bad;
	u64 bytes;
};

/* Count what the tree under @t (at @lvl, based at @tbase) holds; say what is malformed. Lock held. */
static void count_tree(struct iommu_domain *d, const u64 *t, int lvl, u64 tbase, struct tree_count *tc,
		       struct dm_check *c)
{
	u64 size = level_size(lvl);

	tc->tables++;
	for (unsigned i = 0; i < ENTRIES; i++) {
		u64 e = t[i], eb = tbase + (u64)i * size;

		if (!pte_valid(e))
			continue;
		if (pte_is_table(e)) {
			if (lvl == LEVELS - 1) {
				dm_check_fail(c, DMAMAP_CHECK_IOMMU, "IOMMU domain %p: table entry at the last level, iova %#llx",
					      (void *)d, (unsigned long long)eb);
				tc->bad++;
				continue;
			}
			count_tree(d, pte_table(e), lvl + 1, eb, tc, c);
			continue;
		}
		if (lvl == 0 || !(pte_prot(e) & (IOMMU_READ | IOMMU_WRITE)) || (pte_phys(e) & (size - 1)) ||
		    !dm_phys_in_ram(d->obj.machine, pte_phys(e), size)) {
			dm_check_fail(c, DMAMAP_CHECK_IOMMU, "IOMMU domain %p: bad leaf %#llx at level %d, iova %#llx",
				      (void *)d, (unsigned long long)e, lvl, (unsigned long long)eb);
			tc->bad++;
		}
		tc->bytes += size;
		if (lvl < LEVELS - 1)
			tc->blocks++;
	}
}

/* @l's ranges are page aligned, non-empty, sorted and disjoint; @mapped: each lies on mapped pages. Lock held. */
static void check_tlb(struct iommu_domain *d, const struct tlb_list *l, const char *name, bool mapped,
		      struct dm_check *c)
{
	for (size_t i = 0; i < l->n; i++) {
		const struct tlb_ent *e = &l->v[i];
		const char *why = NULL;

		if (((e->start | e->end) & (PAGE_SIZE - 1)) || e->start >= e->end || e->end > IOVA_LIMIT)
			why = "is not a range of whole pages";
		else if (i && l->v[i - 1].end > e->start)
			why = "overlaps the one before or is out of order";
		else if (mapped && (!walk(d, e->start, NULL, NULL) || !walk(d, e->end - PAGE_SIZE, NULL, NULL)))
			why = "is not mapped";
		if (why) {
			dm_check_fail(c, DMAMAP_CHECK_IOMMU, "IOMMU domain %p: %s IOTLB range %#llx-%#llx %s", (void *)d,
				      name, (unsigned long long)e->start, (unsigned long long)e->end, why);
			return;
		}
	}
}

void dmamap_iommu_domain_check(struct iommu_domain *d, struct dm_check *c)
{
	struct dmamap_machine *m = d->obj.machine;
	struct tree_count tc = { 0 };
	unsigned long attached = 0;

	if (!m)
		return;
	pthread_mutex_lock(&m->obj_lock);
	for (struct device *dev = m->devices; dev; dev = dev->dmamap.next)
		attached += dev->dmamap.iommu_domain == d;
	pthread_mutex_lock(&d->lock);
	count_tree(d, d->root, 0, 0, &tc, c);
	if (tc.tables != d->st.table_pages || tc.bytes != d->st.mapped_bytes || tc.blocks != d->st.block_entries)
		dm_check_fail(c, DMAMAP_CHECK_IOMMU,
			      "IOMMU domain %p: the tables hold %lu table pages, %llu bytes, %lu blocks; counted %lu, %lu, %lu",
			      (void *)d, tc.tables, (unsigned long long)tc.bytes, tc.blocks, d->st.table_pages,
			      d->st.mapped_bytes, d->st.block_entries);
	if (attached != d->st.attached_devices)
		dm_check_fail(c, DMAMAP_CHECK_IOMMU, "IOMMU domain %p: %lu devices attached, %lu counted", (void *)d,
			      attached, d->st.attached_devices);
	check_tlb(d, &d->stale, "stale", false, c);
	check_tlb(d, &d->unsynced, "unsynced", true, c);
	pthread_mutex_unlock(&d->lock);
	pthread_mutex_unlock(&m->obj_lock);
}

void dmamap_iommu_domain_census(struct iommu_domain *d, struct dm_census *cs)
{
	pthread_mutex_lock(&d->lock);
	cs->v[DM_CENSUS_IOMMU_BYTES] += d->st.mapped_bytes;
	cs->v[DM_CENSUS_IOMMU_TABLES] += d->st.table_pages;
	cs->v[DM_CENSUS_IOMMU_ATTACHED] += d->st.attached_devices;
	pthread_mutex_unlock(&d->lock);
}

static void leaves(const u64 *t, int lvl, u64 tbase, void (*fn)(void *arg, u64 iova, u64 size, phys_addr_t pa),
		   void *arg)
{
	u64 size = level_size(lvl);

	for (unsigned i = 0; i < ENTRIES; i++) {
		u64 e = t[i], eb = tbase + (u64)i * size;

		if (!pte_valid(e))
			continue;
		if (pte_is_table(e) && lvl < LEVELS - 1)
			leaves(pte_table(e), lvl + 1, eb, fn, arg);
		else if (!pte_is_table(e))
			fn(arg, eb, size, pte_phys(e));
	}
}

void dmamap_iommu_for_each_leaf(struct iommu_domain *d, void (*fn)(void *arg, u64 iova, u64 size, phys_addr_t pa),
				void *arg)
{
	pthread_mutex_lock(&d->lock);
	if (d->root)
		leaves(d->root, 0, 0, fn, arg);
	pthread_mutex_unlock(&d->lock);
}

int dmamap_iommu_lookup(struct iommu_domain *d, u64 iova, phys_addr_t *pa, int *prot)
{
	int lvl, ret = -ENOENT;
	u64 e;

	pthread_mutex_lock(&d->lock);
	e = d->root ? walk(d, iova, NULL, &lvl) : 0;
	if (e) {
		*pa = pte_phys(e) + (iova & (level_size(lvl) - 1));
		if (prot)
			*prot = pte_prot(e);
		ret = 0;
	}
	pthread_mutex_unlock(&d->lock);
	return ret;
}

DMAMAP_API struct iommu_domain *iommu_get_domain_for_dev(struct device *dev)
{
	return dm_dev_live(dev) ? dev->dmamap.iommu_domain : NULL;
}
