/* SPDX-License-Identifier: MIT */
/*
 * kmalloc over simulated RAM.
 *
 * Model. A machine's kmalloc state is made on first use. Objects of up to
 * KMALLOC_MAX_CACHE_SIZE bytes live in slabs: one page of the page allocator
 * cut into equal slots of one size class, per zone (Normal, and DMA for
 * __GFP_DMA). Larger objects take a block of whole pages, described by a slab
 * of one slot. Every page a slab holds is marked PG_slab, so free_pages()
 * refuses it, and points back at its slab through slab_of[], which is how
 * kfree() finds the object from a pointer in O(1).
 *
 * Each slot remembers its state (free, live, quarantined), the size asked for
 * and where it was allocated and freed. A freed object goes to a FIFO
 * quarantine first and becomes reusable only when it leaves it: until then a
 * second kfree() is a double free that names the first one, and memcheck
 * sees the object as inaccessible. A slab whose every slot is free again is
 * given back to the page allocator.
 *
 * Invariants: slab->inuse counts live and quarantined slots; a slab is on its
 * cache's partial list iff it has a free slot; slab_of[i] is the slab of page
 * i or NULL; st.live_* match the live slots.
 *
 * Locking: one mutex per machine guards all of it. Pages are taken from the
 * page allocator with the mutex released, and nothing is reported while it is
 * held. Lock order: kmalloc, then the page allocator's spinlock.
 */
#include <stdlib.h>

#include "internal.h"

#define NR_CLASSES 11
#define QUARANTINE_LEN 64

static const unsigned class_size[NR_CLASSES] = { 8, 16, 32, 64, 96, 128, 192, 256, 512, 1024, 2048 };

enum obj_state { OBJ_FREE, OBJ_LIVE, OBJ_QUARANTINED };

struct kobj {
	const char *file, *free_file;
	int line, free_line;
	size_t size;                 /* bytes asked for (live or quarantined) */
	unsigned next_free;          /* free-list link: slot index, or NO_SLOT */
	enum obj_state state;
	bool managed;                /* a device's devres holds it (devm_kmalloc()) */
};

#define NO_SLOT (~0u)

struct kcache;

struct slab {
	struct kcache *cache;        /* NULL for a large object */
	struct page *page;
	u8 *base;                    /* linear-map address of slot 0 */
	unsigned order;              /* page block order */
	size_t slot;                 /* slot size */
	unsigned nr, inuse, free_head;
	struct slab *next, *prev;    /* the cache's partial list */
	struct slab *all_next, *all_prev;
	struct kobj obj[];
};

struct kcache {
	unsigned size;               /* 0: class disabled on this machine */
	bool dma;
	struct slab *partial;
};

struct qentry {
	struct slab *slab;
	unsigned idx;
};

struct dmamap_kmalloc {
	pthread_mutex_t lock;
	unsigned minalign;
	struct kcache cache[2][NR_CLASSES];  /* [dma][class] */
	struct slab **slab_of;               /* per page index */
	struct slab *all;
	struct qentry quarantine[QUARANTINE_LEN];
	unsigned q_head, q_len;
	size_t q_bytes, q_max_bytes;
	struct dmamap_kmalloc_stats st;
};

/* ------------------------------------------------------------ state */

static struct dmamap_kmalloc *state_of(struct dmamap_machine *m)
{
	return atomic_load_explicit(&m->kmalloc, memory_order_acquire);
}

/* Whether size class @c exists under kmalloc alignment @minalign. */
static bool class_exists(unsigned c, unsigned minalign)
{
	return class_size[c] >= minalign && class_size[c] % minalign == 0;
}

static unsigned machine_minalign(const struct dmamap_machine *m)
{
	return m->cfg.kmalloc_packed ? DMAMAP_ARCH_KMALLOC_MINALIGN : m->cfg.cache_line_size;
}

static struct dmamap_kmalloc *state_get(struct dmamap_machine *m)
{
	struct dmamap_kmalloc *k = state_of(m);

	if (k)
		return k;
	pthread_mutex_lock(&m->obj_lock);
	k = atomic_load_explicit(&m->kmalloc, memory_order_relaxed);
	if (!k) {
		k = dmamap_zalloc(m, sizeof(*k));
		if (k)
			k->slab_of = dmamap_allocarray(m, m->nr_pages, sizeof(*k->slab_of));
		if (k && !k->slab_of) {
			dmamap_free(k);
			k = NULL;
		}
		if (k) {
			pthread_mutex_init(&k->lock, NULL);
			k->minalign = machine_minalign(m);
			k->st.minalign = k->minalign;
			k->q_max_bytes = (size_t)(m->cfg.ram_size / 32);
			for (unsigned z = 0; z < 2; z++) {
				for (unsigned c = 0; c < NR_CLASSES; c++) {
					k->cache[z][c].dma = z;
					if (class_exists(c, k->minalign))
						k->cache[z][c].size = class_size[c];
				}
			}
			atomic_store_explicit(&m->kmalloc, k, memory_order_release);
		}
	}
	pthread_mutex_unlock(&m->obj_lock);
	return k;
}

/* The smallest class that holds @size, or -1 for a large object. */
static int class_for(const struct dmamap_kmalloc *k, size_t size)
{
	for (int c = 0; c < NR_CLASSES; c++)
		if (k->cache[0][c].size && size <= k->cache[0][c].size)
			return c;
	return -1;
}

/* ------------------------------------------------------------ slabs */

static void partial_add(struct kcache *c, struct slab *s)
{
	s->prev = NULL;
	s->next = c->partial;
	if (c->partial)
		c->partial->prev = s;
	c->partial = s;
}

static void partial_del(struct kcache *c, struct slab *s)
{
	if (s->prev)
		s->prev->next = s->next;
	else
		c->partial = s->next;
	if (s->next)
		s->next->prev = s->prev;
	s->next = s->prev = NULL;
}

static unsigned long page_idx_of(struct dmamap_machine *m, const void *p)
{
	return (unsigned long)(((const u8 *)p - m->lin) >> PAGE_SHIFT);
}

/*
 * A new slab of @slot-byte slots (a page block of @order), unlocked. NULL when
 * the page allocator or host memory fails.
 */
static struct slab *slab_new(struct dmamap_machine *m, struct kcache *c, size_t slot, unsigned order, gfp_t gfp)
{
	unsigned nr = c ? (unsigned)(PAGE_SIZE / slot) : 1;
	struct slab *s = dmamap_zalloc(m, sizeof(*s) + nr * sizeof(struct kobj));
	struct page *page;

	if (!s)
		return NULL;
	page = dm_alloc_pages(m, (gfp & (__GFP_DMA | __GFP_WAIT | __GFP_HIGH | __GFP_IO | __GFP_FS | __GFP_NOWARN)),
				  order);
	if (!page) {
		dmamap_free(s);
		return NULL;
	}
	dmamap_page_set_slab(page, order, true);
	s->cache = c;
	s->page = page;
	s->base = page_address(page);
	s->order = order;
	s->slot = slot;
	s->nr = nr;
	for (unsigned i = 0; i < nr; i++)
		s->obj[i].next_free = i + 1 < nr ? i + 1 : NO_SLOT;
	s->free_head = 0;
	dmamap_track_noaccess(s->base, PAGE_SIZE << order);
	return s;
}

/* Make @s known (slab_of, lists). Lock held. */
static void slab_insert(struct dmamap_machine *m, struct dmamap_kmalloc *k, struct slab *s)
{
	unsigned long idx = page_idx_of(m, s->base);

	for (unsigned long i = 0; i < (1UL << s->order); i++)
		k->slab_of[idx + i] = s;
	s->all_prev = NULL;
	s->all_next = k->all;
	if (k->all)
		k->all->all_prev = s;
	k->all = s;
	k->st.slab_pages += 1UL << s->order;
	if (s->cache)
		partial_add(s->cache, s);
}

/* Forget @s and give its pages back. Lock held; the page allocator's spinlock nests inside. */
static void slab_destroy(struct dmamap_machine *m, struct dmamap_kmalloc *k, struct slab *s)
{
	unsigned long idx = page_idx_of(m, s->base);

	if (s->cache && (s->prev || s->cache->partial == s))
		partial_del(s->cache, s);
	for (unsigned long i = 0; i < (1UL << s->order); i++)
		k->slab_of[idx + i] = NULL;
	if (s->all_prev)
		s->all_prev->all_next = s->all_next;
	else
		k->all = s->all_next;
	if (s->all_next)
		s->all_next->all_prev = s->all_prev;
	k->st.slab_pages -= 1UL << s->order;
	dmamap_page_set_slab(s->page, s->order, false);
	dmamap_free_pages(s->page, s->order);
	dmamap_free(s);
}

/* Slot @i of @s becomes free again; an empty slab is destroyed. Lock held. */
static void slot_release(struct dmamap_machine *m, struct dmamap_kmalloc *k, struct slab *s, unsigned i)
{
	s->obj[i].state = OBJ_FREE;
	s->obj[i].next_free = s->free_head;
	s->free_head = i;
	if (--s->inuse == 0) {
		slab_destroy(m, k, s);
		return;
	}
	if (s->cache && s->free_head == i && s->obj[i].next_free == NO_SLOT)
		partial_add(s->cache, s); /* it was full */
}

static void quarantine_pop(struct dmamap_machine *m, struct dmamap_kmalloc *k)
{
	struct qentry *q = &k->quarantine[k->q_head];

	k->q_bytes -= q->slab->slot;
	k->q_head = (k->q_head + 1) % QUARANTINE_LEN;
	k->q_len--;
	k->st.quarantined--;
	slot_release(m, k, q->slab, q->idx);
}

static void quarantine_push(struct dmamap_machine *m, struct dmamap_kmalloc *k, struct slab *s, unsigned i)
{
	if (k->q_len == QUARANTINE_LEN)
		quarantine_pop(m, k);
	k->quarantine[(k->q_head + k->q_len) % QUARANTINE_LEN] = (struct qentry){ s, i };
	k->q_len++;
	k->q_bytes += s->slot;
	k->st.quarantined++;
	while (k->q_len > 1 && k->q_bytes > k->q_max_bytes)
		quarantine_pop(m, k);
}

/* Empty the quarantine: what a real allocator under memory pressure would reclaim. Lock held. */
static bool quarantine_flush(struct dmamap_machine *m, struct dmamap_kmalloc *k)
{
	bool any = k->q_len != 0;

	while (k->q_len)
		quarantine_pop(m, k);
	return any;
}

/* ------------------------------------------------------------ lookup */

struct found {
	struct dmamap_machine *m;
	struct dmamap_kmalloc *k;
	struct slab *s;
	unsigned idx;
};

/*
 * Find the live object starting at @p, with the kmalloc lock held on
 * success (true). On failure the lock is not held and the reason has been
 * reported against @what.
 */
static bool lookup_live(const void *p, struct found *f, const char *what, const char *file, int line)
{
	struct dmamap_machine *m = dmamap_registry_lookup(p);
	struct dmamap_kmalloc *k = m ? state_of(m) : NULL;
	struct slab *s;
	struct kobj o;
	size_t off;
	unsigned i;

	if (!m) {
		char desc[256];
		struct dmamap_machine *vm = dm_vmalloc_describe(p, desc, sizeof(desc));

		if (vm)
			dmamap_report(vm, DMAMAP_REPORT_PAGE_MISUSE, NULL, file, line,
				      "%s(%p): vmalloc memory (%s), not kmalloc's: vfree() or kvfree() frees it", what, p,
				      desc);
		else
			dmamap_report(NULL, DMAMAP_REPORT_BAD_ADDRESS, NULL, file, line,
				      "%s(%p): not an address in any machine's RAM (host memory is freed with free())",
				      what, p);
		return false;
	}
	s = NULL;
	if (k) {
		pthread_mutex_lock(&k->lock);
		s = k->slab_of[page_idx_of(m, p)];
	}
	if (!s) {
		if (k) {
			k->st.refused_frees++;
			pthread_mutex_unlock(&k->lock);
		}
		dmamap_report(m, DMAMAP_REPORT_PAGE_MISUSE, NULL, file, line,
			      "%s(%p): not kmalloc memory (phys %#llx; pages from alloc_pages/__get_free_pages go back "
			      "with free_pages, coherent buffers with dma_free_coherent)",
			      what, p, (unsigned long long)dm_virt_to_phys(m, p));
		return false;
	}
	off = (size_t)((const u8 *)p - s->base);
	i = (unsigned)(off / s->slot);
	if (off % s->slot == 0 && s->obj[i].state == OBJ_LIVE) {
		f->m = m;
		f->k = k;
		f->s = s;
		f->idx = i;
		return true;
	}
	o = s->obj[i];
	k->st.refused_frees++;
	pthread_mutex_unlock(&k->lock);
	if (o.state == OBJ_QUARANTINED && off % s->slot == 0)
		dmamap_report(m, DMAMAP_REPORT_PAGE_MISUSE, NULL, file, line,
			      "%s(%p): double free of a %zu-byte object allocated at %s:%d, already freed at %s:%d", what,
			      p, o.size, o.file ? o.file : "?", o.line, o.free_file ? o.free_file : "?", o.free_line);
	else if (o.state == OBJ_LIVE)
		dmamap_report(m, DMAMAP_REPORT_PAGE_MISUSE, NULL, file, line,
			      "%s(%p): %zu bytes into the %zu-byte object at %p allocated at %s:%d, not its start", what,
			      p, off % s->slot, o.size, (void *)(s->base + (size_t)i * s->slot), o.file ? o.file : "?",
			      o.line);
	else
		dmamap_report(m, DMAMAP_REPORT_PAGE_MISUSE, NULL, file, line,
			      "%s(%p): no kmalloc object is allocated there (a double free long ago, or a stray pointer)",
			      what, p);
	return false;
}

/* ------------------------------------------------------------ allocation */

static void *take_slot(struct dmamap_kmalloc *k, struct slab *s, size_t size, const char *file, int line)
{
	unsigned i = s->free_head;
	struct kobj *o = &s->obj[i];

	s->free_head = o->next_free;
	if (s->cache && s->free_head == NO_SLOT)
		partial_del(s->cache, s);
	s->inuse++;
	o->state = OBJ_LIVE;
	o->managed = false;
	o->size = size;
	o->file = file;
	o->line = line;
	o->free_file = NULL;
	o->free_line = 0;
	k->st.live_objects++;
	k->st.live_bytes += size;
	k->st.allocations++;
	return s->base + (size_t)i * s->slot;
}

/* Make the new object's bytes what the caller may touch: [0, size) undefined (or zeroed), the rest of the slot not. */
static void *object_ready(struct dmamap_machine *m, void *p, size_t size, size_t slot, gfp_t gfp)
{
	dmamap_track_undefined(p, size);
	if (gfp & __GFP_ZERO)
		dm_cpu_store(m, p, NULL, 0, size);
	if (slot > size)
		dmamap_track_noaccess((u8 *)p + size, slot - size);
	return p;
}

static void *alloc_fail(struct dmamap_kmalloc *k)
{
	pthread_mutex_lock(&k->lock);
	k->st.failures++;
	pthread_mutex_unlock(&k->lock);
	return NULL;
}

DMAMAP_API void *dmamap_kmalloc(struct dmamap_machine *m, size_t size, gfp_t gfp, const char *file, int line)
{
	struct dmamap_kmalloc *k;
	struct kcache *c = NULL;
	struct slab *s;
	size_t slot;
	unsigned order = 0;
	unsigned long injected;
	int cls;
	void *p;

	if (!m)
		m = dmamap_machine_current();
	if (!m)
		return NULL;
	dm_might_alloc(m, gfp, "kmalloc", file, line);
	if (!size)
		return ZERO_SIZE_PTR;
	if ((gfp & ~DM_GFP_KNOWN) || size > KMALLOC_MAX_SIZE) {
		if (!(gfp & __GFP_NOWARN) || (gfp & ~DM_GFP_KNOWN))
			dmamap_report(m, DMAMAP_REPORT_BAD_INPUT, NULL, file, line, "kmalloc(%zu, %#x): %s", size, gfp,
				      (gfp & ~DM_GFP_KNOWN) ? "unknown gfp bits" : "larger than KMALLOC_MAX_SIZE");
		return NULL;
	}
	k = state_get(m);
	if (!k)
		return NULL;
	if (dmamap_should_fail(m, DMAMAP_FAULT_KMALLOC))
		return alloc_fail(k);
	cls = class_for(k, size);
	if (cls >= 0) {
		c = &k->cache[(gfp & __GFP_DMA) ? 1 : 0][cls];
		slot = c->size;
	} else {
		order = (unsigned)get_order(size);
		slot = PAGE_SIZE << order;
	}

	pthread_mutex_lock(&k->lock);
	if (c && c->partial) {
		p = take_slot(k, c->partial, size, file, line);
		pthread_mutex_unlock(&k->lock);
		return object_ready(m, p, size, slot, gfp);
	}
	pthread_mutex_unlock(&k->lock);

	injected = dmamap_fault_injected(m, DMAMAP_FAULT_PAGE_ALLOC);
	s = slab_new(m, c, slot, order, gfp | __GFP_NOWARN);
	if (!s && dmamap_fault_injected(m, DMAMAP_FAULT_PAGE_ALLOC) == injected) {
		/* short of pages, not failed on purpose: reclaim the quarantine and try once more */
		bool flushed;

		pthread_mutex_lock(&k->lock);
		flushed = quarantine_flush(m, k);
		pthread_mutex_unlock(&k->lock);
		if (flushed)
			s = slab_new(m, c, slot, order, gfp);
	}
	if (!s)
		return alloc_fail(k);
	pthread_mutex_lock(&k->lock);
	slab_insert(m, k, s);
	p = take_slot(k, s, size, file, line);
	pthread_mutex_unlock(&k->lock);
	return object_ready(m, p, size, slot, gfp);
}

DMAMAP_API void *dmamap_kmalloc_array(struct dmamap_machine *m, size_t n, size_t size, gfp_t gfp, const char *file,
				      int line)
{
	size_t bytes;

	if (__builtin_mul_overflow(n, size, &bytes))
		return NULL;
	return dmamap_kmalloc(m, bytes, gfp, file, line);
}

/* ------------------------------------------------------------ free */

/* Free the object @f found (lock held); the lock is released. */
static void free_found(struct found *f, const char *file, int line)
{
	struct kobj *o = &f->s->obj[f->idx];

	o->state = OBJ_QUARANTINED;
	o->free_file = file;
	o->free_line = line;
	f->k->st.live_objects--;
	f->k->st.live_bytes -= o->size;
	f->k->st.frees++;
	dmamap_track_noaccess(f->s->base + (size_t)f->idx * f->s->slot, f->s->slot);
	quarantine_push(f->m, f->k, f->s, f->idx);
	pthread_mutex_unlock(&f->k->lock);
}

/*
 * Find the live object at @p for a free, as lookup_live(), and refuse it
 * (false, reported by the checker) while any of its slot is still mapped for
 * DMA: the device's late writes would land in the next owner's object. The
 * check runs without the kmalloc lock (the checker reports through the log
 * handler, which may allocate), so the object is looked up again after it.
 */
/* Whether the object found is a device's managed memory: then reported, refused, the lock dropped. */
static bool refuse_managed(struct found *f, const void *p, const char *what, const char *file, int line)
{
	const struct kobj *o = &f->s->obj[f->idx];
	const char *mfile = o->file;
	int mline = o->line;

	if (!o->managed)
		return false;
	f->k->st.refused_frees++;
	pthread_mutex_unlock(&f->k->lock);
	dmamap_report(f->m, DMAMAP_REPORT_API_MISUSE, NULL, file, line,
		      "%s(%p): memory from devm_kmalloc() at %s:%d is its device's until the device goes (devm_kfree() "
		      "gives it back now); refused",
		      what, p, mfile ? mfile : "?", mline);
	return true;
}

void dmamap_kmalloc_set_managed(const void *p, bool managed)
{
	struct found f;

	if (!lookup_live(p, &f, "devres", NULL, 0))
		return;
	f.s->obj[f.idx].managed = managed;
	pthread_mutex_unlock(&f.k->lock);
}

/*
 * As lookup_freeable() below; @managed: the caller is the device's devres,
 * which holds the object, so its managed mark is no reason to refuse it.
 */
static bool lookup_freeable_as(const void *p, struct found *f, bool managed, const char *what, const char *file,
			       int line)
{
	struct dmamap_machine *m;
	const u8 *base;
	bool busy_check;
	size_t slot;

	if (!lookup_live(p, f, what, file, line) || (!managed && refuse_managed(f, p, what, file, line)))
		return false;
	m = f->m;
	busy_check = m->dma_busy && dmamap_debug_on(m);
	if (!busy_check && !dm_free_watched())
		return true;
	base = f->s->base + (size_t)f->idx * f->s->slot;
	slot = f->s->slot;
	pthread_mutex_unlock(&f->k->lock);
	if (busy_check && m->dma_busy(m, dm_virt_to_phys(m, base), slot, what)) {
		pthread_mutex_lock(&f->k->lock);
		f->k->st.refused_frees++;
		pthread_mutex_unlock(&f->k->lock);
		return false;
	}
	dm_memory_freed(m, base, slot, what, file, line);
	return lookup_live(p, f, what, file, line) && (managed || !refuse_managed(f, p, what, file, line));
}

static bool lookup_freeable(const void *p, struct found *f, const char *what, const char *file, int line)
{
	return lookup_freeable_as(p, f, false, what, file, line);
}

bool dmamap_kfree_managed(const void *p, const char *what, const char *file, int line)
{
	struct found f;
	DM_CALL();

	if (!lookup_freeable_as(p, &f, true, what, file, line))
		return false;
	f.s->obj[f.idx].managed = false;
	free_found(&f, file, line);
	return true;
}

DMAMAP_API void dmamap_kfree(const void *p, const char *file, int line)
{
	struct found f;
	DM_CALL();

	if (ZERO_OR_NULL_PTR(p))
		return;
	if (lookup_freeable(p, &f, "kfree", file, line))
		free_found(&f, file, line);
}

DMAMAP_API void dmamap_kfree_sensitive(const void *p, const char *file, int line)
{
	struct found f;
	DM_CALL();

	if (ZERO_OR_NULL_PTR(p))
		return;
	if (!lookup_freeable(p, &f, "kfree_sensitive", file, line))
		return;
	dmamap_track_undefined((void *)p, f.s->slot);
	dm_cpu_store(f.m, (void *)p, NULL, 0, f.s->slot);
	free_found(&f, file, line);
}

DMAMAP_API size_t ksize(const void *p)
{
	struct found f;
	size_t n;

	if (ZERO_OR_NULL_PTR(p))
		return 0;
	if (!lookup_live(p, &f, "ksize", NULL, 0))
		return 0;
	n = f.s->slot;
	pthread_mutex_unlock(&f.k->lock);
	return n;
}

DMAMAP_API size_t kmalloc_size_roundup(size_t size)
{
	struct dmamap_machine *m = dmamap_machine_current();

	if (!size || !m || size > KMALLOC_MAX_SIZE)
		return size;
	for (unsigned c = 0; c < NR_CLASSES; c++)
		if (class_exists(c, machine_minalign(m)) && size <= class_size[c])
			return class_size[c];
	return PAGE_SIZE << get_order(size);
}

/*
 * The object @f found (lock held; released here) at @p now holds @size
 * bytes, which its slot has room for: the bytes past the old size are
 * undefined (zeroed through the CPU on __GFP_ZERO), those past the new one
 * out of bounds; the object is @file:@line's now, as a new one would be.
 */
static void *resize_in_slot(struct found *f, const void *p, size_t size, gfp_t gfp, const char *file, int line)
{
	struct kobj *o = &f->s->obj[f->idx];
	size_t old = o->size;

	o->size = size;
	o->file = file;
	o->line = line;
	f->k->st.live_bytes = f->k->st.live_bytes - old + size;
	pthread_mutex_unlock(&f->k->lock);
	if (size > old) {
		dmamap_track_undefined((u8 *)p + old, size - old);
		if (gfp & __GFP_ZERO)
			dm_cpu_store(f->m, (u8 *)p + old, NULL, 0, size - old);
	} else if (size < old) {
		dmamap_track_noaccess((u8 *)p + size, old - size);
	}
	return (void *)p;
}

DMAMAP_API void *dmamap_krealloc(const void *p, size_t size, gfp_t gfp, const char *file, int line)
{
	struct found f;
	size_t old;
	void *n;

	if (ZERO_OR_NULL_PTR(p))
		return dmamap_kmalloc(NULL, size, gfp, file, line);
	if (!size) {
		dmamap_kfree(p, file, line);
		return ZERO_SIZE_PTR;
	}
	if (gfp & ~DM_GFP_KNOWN) {
		dmamap_report(dmamap_registry_lookup(p), DMAMAP_REPORT_BAD_INPUT, NULL, file, line,
			      "krealloc(%p, %zu, %#x): unknown gfp bits", p, size, gfp);
		return NULL;
	}
	if (!lookup_live(p, &f, "krealloc", file, line) || refuse_managed(&f, p, "krealloc", file, line))
		return NULL;
	if (size <= f.s->slot)
		return resize_in_slot(&f, p, size, gfp, file, line);
	old = f.s->obj[f.idx].size;
	pthread_mutex_unlock(&f.k->lock);
	n = dmamap_kmalloc(f.m, size, gfp, file, line);
	if (!n)
		return NULL;
	dm_cpu_store(f.m, n, p, 0, old);
	dmamap_kfree(p, file, line);
	return n;
}

void *dmamap_krealloc_managed(const void *p, size_t size, gfp_t gfp, const char *file, int line)
{
	struct dmamap_machine *m;
	struct found f;
	size_t old;
	void *n;

	if (gfp & ~DM_GFP_KNOWN) {
		dmamap_report(dmamap_registry_lookup(p), DMAMAP_REPORT_BAD_INPUT, NULL, file, line,
			      "devm_krealloc(%p, %zu, %#x): unknown gfp bits", p, size, gfp);
		return NULL;
	}
	if (!lookup_live(p, &f, "devm_krealloc", file, line))
		return NULL;
	if (size <= f.s->slot)
		return resize_in_slot(&f, p, size, gfp, file, line);
	m = f.m;
	old = f.s->obj[f.idx].size;
	pthread_mutex_unlock(&f.k->lock);
	/* the old object must be free to go before a new one is taken: not while its slot is mapped for DMA */
	if (!lookup_freeable_as(p, &f, true, "devm_krealloc", file, line))
		return NULL;
	pthread_mutex_unlock(&f.k->lock);
	n = dmamap_kmalloc(m, size, gfp, file, line);
	if (!n)
		return NULL;
	dm_cpu_store(m, n, p, 0, old);
	dmamap_kmalloc_set_managed(n, true);
	if (lookup_live(p, &f, "devm_krealloc", file, line))
		free_found(&f, file, line);
	return n;
}

DMAMAP_API void *dmamap_kmemdup(const void *src, size_t len, gfp_t gfp, const char *file, int line)
{
	struct dmamap_machine *m = dmamap_machine_current();
	void *p;

	if (!src && len) {
		dmamap_report(m, DMAMAP_REPORT_BAD_INPUT, NULL, file, line, "kmemdup: NULL source");
		return NULL;
	}
	p = dmamap_kmalloc(m, len, gfp & ~__GFP_ZERO, file, line);
	if (!ZERO_OR_NULL_PTR(p))
		dm_cpu_store(m, p, src, 0, len);
	return p;
}

/* The kernel's: NULL for a NULL @s, with no report; a @len of SIZE_MAX cannot take its NUL. */
DMAMAP_API char *dmamap_kmemdup_nul(const char *s, size_t len, gfp_t gfp, const char *file, int line)
{
	struct dmamap_machine *m = dmamap_machine_current();
	char *p;

	if (!s || len == SIZE_MAX)
		return NULL;
	p = dmamap_kmalloc(m, len + 1, gfp & ~__GFP_ZERO, file, line);
	if (p) {
		dm_cpu_store(m, p, s, 0, len);
		dm_cpu_store(m, p + len, NULL, 0, 1);
	}
	return p;
}

DMAMAP_API char *dmamap_kvasprintf(gfp_t gfp, const char *file, int line, const char *fmt, va_list ap)
{
	char *tmp, *p;
	size_t len;

	if (!fmt) {
		dmamap_report(dmamap_machine_current(), DMAMAP_REPORT_BAD_INPUT, NULL, file, line,
			      "kasprintf: NULL format");
		return NULL;
	}
	/* formatted in host memory first, then copied in as the CPU's stores */
	tmp = dmamap_kernel_vasprintf_host(&len, fmt, ap);
	if (!tmp)
		return NULL;
	p = dmamap_kmemdup(tmp, len, gfp, file, line);
	free(tmp);
	return p;
}

DMAMAP_API char *dmamap_kasprintf(gfp_t gfp, const char *file, int line, const char *fmt, ...)
{
	va_list ap;
	char *p;

	va_start(ap, fmt);
	p = dmamap_kvasprintf(gfp, file, line, fmt, ap);
	va_end(ap);
	return p;
}

/* ------------------------------------------------------------ stats, teardown */

DMAMAP_API void dmamap_kmalloc_stats(struct dmamap_machine *m, struct dmamap_kmalloc_stats *st)
{
	struct dmamap_kmalloc *k;

	if (!st)
		return;
	memset(st, 0, sizeof(*st));
	if (!m)
		return;
	k = state_of(m);
	if (!k) {
		st->minalign = m->cfg.kmalloc_packed ? DMAMAP_ARCH_KMALLOC_MINALIGN : m->cfg.cache_line_size;
		return;
	}
	pthread_mutex_lock(&k->lock);
	*st = k->st;
	pthread_mutex_unlock(&k->lock);
}

bool dmamap_kmalloc_data_at(struct dmamap_machine *m, phys_addr_t phys, size_t len, phys_addr_t not_of,
			    phys_addr_t *at, const char **file, int *line)
{
	struct dmamap_kmalloc *k = state_of(m);
	bool found = false;
	struct slab *s;

	if (!k || !len)
		return false;
	pthread_mutex_lock(&k->lock);
	s = k->slab_of[(phys - m->cfg.ram_base) >> PAGE_SHIFT];
	if (s) {
		phys_addr_t base = dm_virt_to_phys(m, s->base);
		size_t lo = (size_t)(phys - base), hi = lo + len;

		for (unsigned i = (unsigned)(lo / s->slot); i < s->nr && (size_t)i * s->slot < hi && !found; i++) {
			size_t o = (size_t)i * s->slot, end = o + s->obj[i].size;

			if (s->obj[i].state != OBJ_LIVE || end <= lo ||
			    (not_of >= base + o && not_of < base + o + s->slot))
				continue;
			found = true;
			*at = base + DM_MAX(o, lo);
			*file = s->obj[i].file;
			*line = s->obj[i].line;
		}
	}
	pthread_mutex_unlock(&k->lock);
	return found;
}

void dmamap_kmalloc_census(struct dmamap_machine *m, struct dm_census *cs)
{
	struct dmamap_kmalloc *k = state_of(m);

	if (!k)
		return;
	pthread_mutex_lock(&k->lock);
	cs->v[DM_CENSUS_PAGES] -= k->st.slab_pages;
	cs->v[DM_CENSUS_KMALLOC] = k->st.live_objects;
	pthread_mutex_unlock(&k->lock);
}

void dmamap_kmalloc_fini(struct dmamap_machine *m)
{
	struct dmamap_kmalloc *k = state_of(m);

	if (!k)
		return;
	pthread_mutex_lock(&k->lock);
	quarantine_flush(m, k);
	pthread_mutex_unlock(&k->lock);
	/* What is left is live: report each object, then give the pages back. */
	while (k->all) {
		struct slab *s = k->all;

		for (unsigned i = 0; i < s->nr; i++) {
			const struct kobj *o = &s->obj[i];
			u8 *va = s->base + (size_t)i * s->slot;

			if (o->state != OBJ_LIVE)
				continue;
			dmamap_report(m, DMAMAP_REPORT_LEAK, NULL, o->file, o->line,
				      "kmalloc'd %zu bytes at %p (phys %#llx) never freed, allocated at %s:%d", o->size,
				      (void *)va, (unsigned long long)dm_virt_to_phys(m, va), o->file ? o->file : "?",
				      o->line);
		}
		slab_destroy(m, k, s);
	}
	pthread_mutex_destroy(&k->lock);
	dmamap_free(k->slab_of);
	dmamap_free(k);
	atomic_store_explicit(&m->kmalloc, NULL, memory_order_relaxed);
}
