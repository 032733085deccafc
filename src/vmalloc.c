/* SPDX-License-Identifier: MIT */
/*
 * The vmalloc area: per machine, a reservation of host address space made on
 * first use, where vmalloc() maps pages of the page allocator and vmap() a
 * caller's pages, each page a host alias of its frame (the CPU view for
 * cached protections, RAM itself for the others, as dm_host_map() makes
 * them: the consistent region's technique).
 *
 * Areas are kept in a list sorted by address, each followed by an unmapped
 * guard page, and placed next-fit from where the last one ended: a freed
 * area's addresses stay inaccessible (a use after vfree() faults) until the
 * search wraps around the window. The last freed areas are remembered, so
 * that a second vfree() of one names the first while its addresses are not
 * reused. vmalloc() takes its pages one at a time and maps them in
 * descending frame order: no page of an area follows its predecessor in
 * physical memory.
 *
 * Locking: one mutex per machine guards the list, the records and the
 * counters. Pages are taken and mapped with it released, in a range
 * reserved first; nothing is reported while it is held.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "internal.h"

/* Freed areas remembered for the reports of a second free. */
#define FREED_RECORDS 64

struct vm_area {
	uintptr_t start;
	size_t size;                 /* bytes mapped: nr_pages pages (a guard page follows) */
	size_t asked;                /* bytes asked for (vmalloc) */
	unsigned long nr_pages;
	struct page **pages;
	unsigned char prot;          /* the ptes' protection byte */
	bool vmap;                   /* the pages are the caller's (vmap) */
	bool mapped;                 /* its pages are mapped (after the reservation is filled) */
	bool freeing;                /* a free is checking it: not to be taken twice */
	const char *file;
	int line;
	struct vm_area *next, *prev;
};

struct vm_freed {
	uintptr_t start, end;        /* end: with the guard page */
	size_t asked;
	bool vmap;
	const char *file, *free_file;
	int line, free_line;
};

struct dmamap_vmalloc {
	pthread_mutex_t lock;
	u8 *base;
	size_t size;
	uintptr_t cursor;            /* where the next-fit search starts */
	struct vm_area *areas;       /* sorted by address */
	struct vm_freed freed[FREED_RECORDS];
	unsigned freed_next, freed_nr;
	struct dmamap_vmalloc_stats st;
};

/* ------------------------------------------------------------ state */

static struct dmamap_vmalloc *state_of(const struct dmamap_machine *m)
{
	return atomic_load_explicit(&((struct dmamap_machine *)m)->vmalloc, memory_order_acquire);
}

/* The window: room for every page of RAM with a guard page each, twice over, so that reuse comes late. */
static size_t window_bytes(const struct dmamap_machine *m)
{
	return (size_t)m->cfg.ram_size * 4 + 4 * PAGE_SIZE;
}

static struct dmamap_vmalloc *state_get(struct dmamap_machine *m)
{
	struct dmamap_vmalloc *v = state_of(m);

	if (v)
		return v;
	pthread_mutex_lock(&m->obj_lock);
	v = atomic_load_explicit(&m->vmalloc, memory_order_relaxed);
	if (!v) {
		v = dmamap_zalloc(m, sizeof(*v));
		if (v) {
			v->size = window_bytes(m);
			v->base = dm_host_reserve(v->size, PAGE_SIZE);
			if (!v->base) {
				dmamap_free(v);
				v = NULL;
			}
		}
		if (v) {
			pthread_mutex_init(&v->lock, NULL);
			v->cursor = (uintptr_t)v->base;
			v->st.area_size = v->size;
			atomic_store_explicit(&m->vmalloc, v, memory_order_release);
		}
	}
	pthread_mutex_unlock(&m->obj_lock);
	return v;
}

static bool window_holds(struct dmamap_machine *m, const void *p)
{
	struct dmamap_vmalloc *v = state_of(m);
	uintptr_t a = (uintptr_t)p;

	return v && a >= (uintptr_t)v->base && a - (uintptr_t)v->base < v->size;
}

struct dmamap_machine *dm_vmalloc_machine(const void *p)
{
	return p ? dmamap_registry_find(window_holds, p) : NULL;
}

DMAMAP_API bool is_vmalloc_addr(const void *x)
{
	return dm_vmalloc_machine(x) != NULL;
}

/* The area whose pages or guard page hold @a, or NULL. Lock held. */
static struct vm_area *area_at(struct dmamap_vmalloc *v, uintptr_t a)
{
	for (struct vm_area *r = v->areas; r && r->start <= a; r = r->next)
		if (a - r->start < r->size + PAGE_SIZE)
			return r;
	return NULL;
}

/* The freed record whose range holds @a, newest first, or NULL. Lock held. */
static const struct vm_freed *freed_at(const struct dmamap_vmalloc *v, uintptr_t a)
{
	for (unsigned i = 0; i < v->freed_nr; i++) {
		const struct vm_freed *f = &v->freed[(v->freed_next + FREED_RECORDS - 1 - i) % FREED_RECORDS];

		if (a >= f->start && a < f->end)
			return f;
	}
	return NULL;
}

static void freed_add(struct dmamap_vmalloc *v, const struct vm_area *r, const char *file, int line)
{
	v->freed[v->freed_next] = (struct vm_freed){
		.start = r->start, .end = r->start + r->size + PAGE_SIZE, .asked = r->asked, .vmap = r->vmap,
		.file = r->file, .line = r->line, .free_file = file, .free_line = line,
	};
	v->freed_next = (v->freed_next + 1) % FREED_RECORDS;
	if (v->freed_nr < FREED_RECORDS)
		v->freed_nr++;
}

/* Forget the freed records overlapping [start, end): their addresses are reused. Lock held. */
static void freed_forget(struct dmamap_vmalloc *v, uintptr_t start, uintptr_t end)
{
	for (unsigned i = 0; i < v->freed_nr; i++) {
		struct vm_freed *f = &v->freed[(v->freed_next + FREED_RECORDS - 1 - i) % FREED_RECORDS];

		if (f->start < end && start < f->end)
			f->start = f->end = 0;
	}
}

/* The first gap of @need bytes at or after @from, below the window's end; 0 when none. Lock held. */
static uintptr_t gap_from(const struct dmamap_vmalloc *v, uintptr_t from, size_t need)
{
	uintptr_t end = (uintptr_t)v->base + v->size, at = from;

	for (const struct vm_area *r = v->areas; r; r = r->next) {
		uintptr_t r_end = r->start + r->size + PAGE_SIZE;

		if (r_end <= at)
			continue;
		if (at + need <= r->start)
			break;
		at = r_end;
	}
	return at <= end && need <= end - at ? at : 0;
}

/*
 * Reserve room for @r (r->size bytes and the guard page) and enter it in
 * the list, next-fit; false when the window has no room. Lock held.
 */
static bool area_place(struct dmamap_vmalloc *v, struct vm_area *r)
{
	size_t need = r->size + PAGE_SIZE;
	uintptr_t at = gap_from(v, v->cursor, need);
	struct vm_area **pp, *prev = NULL;

	if (!at && v->cursor != (uintptr_t)v->base)
		at = gap_from(v, (uintptr_t)v->base, need);
	if (!at)
		return false;
	r->start = at;
	v->cursor = at + need;
	for (pp = &v->areas; *pp && (*pp)->start < at; pp = &(*pp)->next)
		prev = *pp;
	r->next = *pp;
	r->prev = prev;
	if (*pp)
		(*pp)->prev = r;
	*pp = r;
	freed_forget(v, at, at + need);
	return true;
}

static void area_unlink(struct dmamap_vmalloc *v, struct vm_area *r)
{
	if (r->prev)
		r->prev->next = r->next;
	else
		v->areas = r->next;
	if (r->next)
		r->next->prev = r->prev;
	r->next = r->prev = NULL;
}

/* Take @r's pages out of the host mapping (back to an inaccessible reservation unless @closing). */
static void area_unmap(struct dmamap_machine *m, struct vm_area *r, bool closing)
{
	if (!r->mapped)
		return;
	for (unsigned long i = 0; i < r->nr_pages; i++)
		dm_host_unalias(m, page_to_pfn(r->pages[i]), r->prot);
	if (!closing)
		dm_host_unmap((void *)r->start, r->size);
	r->mapped = false;
}

/* Give back what @r holds: its pages unless vmap's (the caller's), its record. */
static void area_release(struct vm_area *r)
{
	if (!r->vmap)
		for (unsigned long i = 0; i < r->nr_pages; i++)
			dmamap_free_pages(r->pages[i], 0);
	dmamap_free(r->pages);
	dmamap_free(r);
}

/*
 * A record for an area of @n pages made at @file:@line, its page array
 * allocated and empty (nr_pages 0), or NULL when host memory fails.
 */
static struct vm_area *area_new(struct dmamap_machine *m, unsigned long n, pgprot_t prot, bool vmap, const char *file,
				int line)
{
	struct vm_area *r = dmamap_zalloc(m, sizeof(*r));

	if (r)
		r->pages = dmamap_allocarray(m, n, sizeof(*r->pages));
	if (r && !r->pages) {
		dmamap_free(r);
		return NULL;
	}
	if (r) {
		r->size = (size_t)n << PAGE_SHIFT;
		r->prot = (unsigned char)pgprot_val(prot);
		r->vmap = vmap;
		r->file = file;
		r->line = line;
	}
	return r;
}

/* Map @r's pages at its place, one host alias per page; 0 or -ENOMEM (nothing left mapped). */
static int area_map(struct dmamap_machine *m, struct vm_area *r)
{
	pgprot_t prot = __pgprot(r->prot);

	if (dmamap_should_fail(m, DMAMAP_FAULT_REMAP))
		return -ENOMEM;
	for (unsigned long i = 0; i < r->nr_pages; i++) {
		int err = dm_host_map(m, (void *)(r->start + (i << PAGE_SHIFT)), page_to_pfn(r->pages[i]), 1, prot);

		if (err) {
			for (unsigned long j = 0; j < i; j++)
				dm_host_unalias(m, page_to_pfn(r->pages[j]), r->prot);
			dm_host_unmap((void *)r->start, r->size);
			return err;
		}
	}
	/* memcheck cannot follow a byte through two addresses: each page is defined through both */
	for (unsigned long i = 0; i < r->nr_pages; i++)
		dmamap_track_defined(page_address(r->pages[i]), PAGE_SIZE);
	r->mapped = true;
	return 0;
}

/* Place @r, map it, count it; false (nothing held of the window) on failure. */
static bool area_enter(struct dmamap_machine *m, struct dmamap_vmalloc *v, struct vm_area *r)
{
	bool placed;

	pthread_mutex_lock(&v->lock);
	placed = area_place(v, r);
	if (placed)
		r->freeing = true; /* not yet anyone's to free */
	pthread_mutex_unlock(&v->lock);
	if (!placed)
		return false;
	if (area_map(m, r)) {
		pthread_mutex_lock(&v->lock);
		area_unlink(v, r);
		pthread_mutex_unlock(&v->lock);
		return false;
	}
	pthread_mutex_lock(&v->lock);
	r->freeing = false;
	if (r->vmap) {
		v->st.live_vmaps++;
	} else {
		v->st.live_areas++;
		v->st.live_pages += r->nr_pages;
		v->st.allocations++;
	}
	pthread_mutex_unlock(&v->lock);
	return true;
}

/*
 * The end of a vmalloc() or vmap(): @r (NULL when its record could not be
 * had), ready when @ready, entered; or, failing that, counted as a failure
 * and given back. Return: the area's first byte, or NULL.
 */
static void *area_finish(struct dmamap_machine *m, struct dmamap_vmalloc *v, struct vm_area *r, bool ready)
{
	if (ready && area_enter(m, v, r))
		return (void *)r->start;
	pthread_mutex_lock(&v->lock);
	v->st.failures++;
	pthread_mutex_unlock(&v->lock);
	if (r)
		area_release(r);
	return NULL;
}

/* ------------------------------------------------------------ vmalloc */

/* Descending frames: no page of an area follows its predecessor in physical memory. */
static int page_desc(const void *a, const void *b)
{
	const struct page *pa = *(struct page *const *)a, *pb = *(struct page *const *)b;

	return pa < pb ? 1 : pa > pb ? -1 : 0;
}

/* vmalloc() on @m; the might-sleep check is the caller's. */
static void *vmalloc_on(struct dmamap_machine *m, size_t size, gfp_t gfp, const char *what, const char *file,
			int line)
{
	DM_CALL();
	size_t bytes = dm_page_align_size(size);
	unsigned long n = (unsigned long)(bytes >> PAGE_SHIFT);
	struct dmamap_vmalloc *v;
	struct vm_area *r;

	if (!size || (gfp & ~DM_GFP_KNOWN)) {
		dmamap_report(m, DMAMAP_REPORT_BAD_INPUT, NULL, file, line, "%s(%zu, %#x): %s", what, size, gfp,
			      size ? "unknown gfp bits" : "zero size");
		return NULL;
	}
	if (!bytes || n > m->nr_pages) {
		if (!(gfp & __GFP_NOWARN))
			dmamap_report(m, DMAMAP_REPORT_BAD_INPUT, NULL, file, line,
				      "%s(%zu): vmalloc error: size exceeds total pages (%lu)", what, size, m->nr_pages);
		return NULL;
	}
	v = state_get(m);
	if (!v)
		return NULL;
	r = area_new(m, n, PAGE_KERNEL, false, file, line);
	if (r)
		r->asked = size;
	for (; r && r->nr_pages < n; r->nr_pages++) {
		r->pages[r->nr_pages] = dm_alloc_pages(m, gfp & (__GFP_DMA | __GFP_HIGH | __GFP_WAIT | __GFP_IO |
								   __GFP_FS | __GFP_NOWARN | __GFP_ZERO), 0);
		if (!r->pages[r->nr_pages])
			break;
	}
	if (r && r->nr_pages == n)
		qsort(r->pages, n, sizeof(*r->pages), page_desc);
	return area_finish(m, v, r, r && r->nr_pages == n);
}

DMAMAP_API void *dmamap_vmalloc_at(size_t size, gfp_t gfp, const char *file, int line)
{
	struct dmamap_machine *m = dmamap_machine_current();

	if (!m)
		return NULL;
	dm_might_sleep(m, "vmalloc", file, line);
	return vmalloc_on(m, size, gfp, "vmalloc", file, line);
}

/* @n * @size bytes of kvmalloc() (@kv) or vmalloc(); NULL, quietly, when the product overflows, as the kernel's. */
static void *array_alloc(bool kv, size_t n, size_t size, gfp_t gfp, const char *file, int line)
{
	size_t bytes;

	if (__builtin_mul_overflow(n, size, &bytes))
		return NULL;
	return kv ? dmamap_kvmalloc_at(bytes, gfp, file, line) : dmamap_vmalloc_at(bytes, gfp, file, line);
}

DMAMAP_API void *dmamap_vmalloc_array_at(size_t n, size_t size, gfp_t gfp, const char *file, int line)
{
	return array_alloc(false, n, size, gfp, file, line);
}

/* ------------------------------------------------------------ vmap */

/* vmap() of @count (non-zero) pages the first of which is @m's; the might-sleep check is the caller's. */
static void *vmap_on(struct dmamap_machine *m, struct page **pages, unsigned int count, pgprot_t prot,
		     const char *file, int line)
{
	struct dmamap_vmalloc *v;
	struct vm_area *r;
	DM_CALL();

	if (count > m->nr_pages)
		return NULL;
	for (unsigned int i = 0; i < count; i++) {
		if (!pages[i] || dm_page_machine(pages[i]) != m) {
			dmamap_report(m, DMAMAP_REPORT_BAD_INPUT, NULL, file, line,
				      "vmap(%p, %u): page %u is %s; nothing mapped", (void *)pages, count, i,
				      pages[i] ? "a page of another machine" : "NULL");
			return NULL;
		}
	}
	if (pgprot_memtype(prot) == DMAMAP_MT_NONE || pgprot_memtype(prot) >= DMAMAP_MT_NR) {
		dmamap_report(m, DMAMAP_REPORT_BAD_INPUT, NULL, file, line,
			      "vmap(%p, %u): protection %#lx has no memory type (PAGE_KERNEL?)", (void *)pages, count,
			      pgprot_val(prot));
		return NULL;
	}
	v = state_get(m);
	if (!v)
		return NULL;
	r = area_new(m, count, prot, true, file, line);
	if (r) {
		memcpy(r->pages, pages, count * sizeof(*pages));
		r->nr_pages = count;
	}
	return area_finish(m, v, r, r != NULL);
}

DMAMAP_API void *dmamap_vmap_at(struct page **pages, unsigned int count, unsigned long flags, pgprot_t prot,
				const char *file, int line)
{
	struct dmamap_machine *m = pages && count && pages[0] ? dm_page_machine(pages[0]) : NULL;

	(void)flags;
	if (!count)
		return NULL;
	if (!m) {
		dmamap_report(NULL, DMAMAP_REPORT_BAD_INPUT, NULL, file, line, "vmap(%p, %u): %s", (void *)pages, count,
			      pages ? "the first page is no page of any machine" : "NULL page array");
		return NULL;
	}
	dm_might_sleep(m, "vmap", file, line);
	return vmap_on(m, pages, count, prot, file, line);
}

/* ------------------------------------------------------------ free */

/*
 * Why @a cannot be freed by @what (@vmap: vunmap, else a vfree), written
 * into @why; "" when @r is the area it frees. Lock held.
 */
static void refusal(const struct dmamap_vmalloc *v, const struct vm_area *r, uintptr_t a, bool vmap, char *why,
		    size_t n)
{
	const struct vm_freed *f;

	*why = 0;
	if (r && r->start == a && r->vmap == vmap && !r->freeing)
		return;
	if (r && r->start == a && r->freeing) {
		snprintf(why, n, "the area made at %s:%d is being freed by another call", r->file ? r->file : "?",
			 r->line);
	} else if (r && r->start == a && r->vmap) {
		snprintf(why, n, "a vmap() of %lu pages made at %s:%d (vunmap() undoes it; the pages stay the caller's)",
			 r->nr_pages, r->file ? r->file : "?", r->line);
	} else if (r && r->start == a) {
		snprintf(why, n, "the %zu-byte area vmalloc'd at %s:%d (vfree() frees it, with its pages)", r->asked,
			 r->file ? r->file : "?", r->line);
	} else if (r) {
		snprintf(why, n, "%s of the %zu-byte %s at %#lx made at %s:%d, not its start",
			 a - r->start < r->size ? "inside" : "in the guard page", r->vmap ? r->size : r->asked,
			 r->vmap ? "vmap() mapping" : "area", (unsigned long)r->start, r->file ? r->file : "?", r->line);
	} else if ((f = freed_at(v, a)) && f->start == a) {
		snprintf(why, n, "double %s: the %s made at %s:%d was %s at %s:%d", vmap ? "vunmap" : "vfree",
			 f->vmap ? "vmap() mapping" : "vmalloc area", f->file ? f->file : "?", f->line,
			 f->vmap ? "unmapped" : "freed", f->free_file ? f->free_file : "?", f->free_line);
	} else {
		snprintf(why, n, "no live %s there (freed long ago, or a stray pointer)",
			 vmap ? "vmap() mapping" : "vmalloc area");
	}
}

/*
 * Free (or unmap, @vmap) the area starting at @addr, or report why not.
 * @zero: bytes to zero through the CPU first (kvfree_sensitive), at most the area.
 */
static void release_on(struct dmamap_machine *m, const void *addr, bool vmap, size_t zero, const char *what,
		       const char *file, int line)
{
	struct dmamap_vmalloc *v = state_of(m);
	struct vm_area *r;
	char why[320];
	DM_CALL();

	pthread_mutex_lock(&v->lock);
	r = area_at(v, (uintptr_t)addr);
	refusal(v, r, (uintptr_t)addr, vmap, why, sizeof(why));
	if (*why) {
		v->st.refused_frees++;
		pthread_mutex_unlock(&v->lock);
		dmamap_report(m, DMAMAP_REPORT_PAGE_MISUSE, NULL, file, line, "%s(%p): %s; nothing %s", what, addr, why,
			      vmap ? "unmapped" : "freed");
		return;
	}
	r->freeing = true;
	pthread_mutex_unlock(&v->lock);

	/* pages the device may still use stay (the checker says why) */
	if (!vmap && m->dma_busy && dmamap_debug_on(m)) {
		for (unsigned long i = 0; i < r->nr_pages; i++) {
			if (m->dma_busy(m, page_to_phys(r->pages[i]), PAGE_SIZE, what)) {
				pthread_mutex_lock(&v->lock);
				r->freeing = false;
				v->st.refused_frees++;
				pthread_mutex_unlock(&v->lock);
				return;
			}
		}
	}
	dm_memory_freed(m, (const void *)r->start, r->size, what, file, line);
	if (zero)
		memset((void *)r->start, 0, DM_MIN(zero, r->size));

	pthread_mutex_lock(&v->lock);
	area_unlink(v, r);
	freed_add(v, r, file, line);
	if (vmap) {
		v->st.live_vmaps--;
	} else {
		v->st.live_areas--;
		v->st.live_pages -= r->nr_pages;
		v->st.frees++;
	}
	pthread_mutex_unlock(&v->lock);
	area_unmap(m, r, false);
	area_release(r);
}

/* release_on() of @addr, once its machine is found and whether it may sleep asked; @may_sleep: not vfree_atomic. */
static void release_area(const void *addr, bool vmap, bool may_sleep, size_t zero, const char *what,
			 const char *file, int line)
{
	struct dmamap_machine *m = dm_vmalloc_machine(addr), *lm;

	if (!m) {
		lm = dmamap_registry_lookup(addr);
		if (lm)
			dmamap_report(lm, DMAMAP_REPORT_PAGE_MISUSE, NULL, file, line,
				      "%s(%p): linear-map memory (phys %#llx), not a vmalloc area: kmalloc memory goes back "
				      "with kfree(), pages with free_pages(); nothing freed",
				      what, addr, (unsigned long long)dm_virt_to_phys(lm, addr));
		else
			dmamap_report(NULL, DMAMAP_REPORT_BAD_ADDRESS, NULL, file, line,
				      "%s(%p): not an address of any machine's vmalloc area; nothing freed", what, addr);
		return;
	}
	if (may_sleep && !dmamap_in_hardirq())
		dm_might_sleep(m, what, file, line);
	release_on(m, addr, vmap, zero, what, file, line);
}


DMAMAP_API void dmamap_vfree_at(const void *addr, const char *file, int line)
{
	if (addr)
		release_area(addr, false, true, 0, "vfree", file, line);
}

DMAMAP_API void dmamap_vfree_atomic_at(const void *addr, const char *file, int line)
{
	if (addr)
		release_area(addr, false, false, 0, "vfree_atomic", file, line);
}

DMAMAP_API void dmamap_vunmap_at(const void *addr, const char *file, int line)
{
	if (addr)
		release_area(addr, true, true, 0, "vunmap", file, line);
}

/* ------------------------------------------------------------ lookups */

DMAMAP_API struct page *dmamap_vmalloc_to_page_at(const void *addr, const char *file, int line)
{
	struct dmamap_machine *m = dm_vmalloc_machine(addr);
	struct dmamap_vmalloc *v;
	struct vm_area *r;
	struct page *page = NULL;
	uintptr_t a = (uintptr_t)addr;

	if (!m) {
		dmamap_report(dmamap_registry_lookup(addr), DMAMAP_REPORT_BAD_ADDRESS, NULL, file, line,
			      "vmalloc_to_page(%p): not a vmalloc address%s", addr,
			      dmamap_registry_lookup(addr) ? " (a linear-map one: virt_to_page() gives its page)" : "");
		return NULL;
	}
	v = state_of(m);
	pthread_mutex_lock(&v->lock);
	r = area_at(v, a);
	if (r && r->mapped && a - r->start < r->size)
		page = r->pages[(a - r->start) >> PAGE_SHIFT];
	pthread_mutex_unlock(&v->lock);
	return page;
}

struct dmamap_machine *dm_vmalloc_describe(const void *p, char *buf, size_t n)
{
	struct dmamap_machine *m = dm_vmalloc_machine(p);
	struct dmamap_vmalloc *v;
	struct vm_area *r;
	uintptr_t a = (uintptr_t)p;

	if (!m)
		return NULL;
	v = state_of(m);
	pthread_mutex_lock(&v->lock);
	r = area_at(v, a);
	if (r && a - r->start < r->size)
		snprintf(buf, n, "%#lx bytes into the %zu-byte %s at %#lx made at %s:%d", (unsigned long)(a - r->start),
			 r->vmap ? r->size : r->asked, r->vmap ? "vmap() mapping" : "vmalloc area",
			 (unsigned long)r->start, r->file ? r->file : "?", r->line);
	else
		snprintf(buf, n, "in no live vmalloc area");
	pthread_mutex_unlock(&v->lock);
	return m;
}

DMAMAP_API void dmamap_vmalloc_stats(struct dmamap_machine *m, struct dmamap_vmalloc_stats *st)
{
	struct dmamap_vmalloc *v;

	if (!st)
		return;
	memset(st, 0, sizeof(*st));
	if (!m || !(v = state_of(m)))
		return;
	pthread_mutex_lock(&v->lock);
	*st = v->st;
	pthread_mutex_unlock(&v->lock);
}

/* ------------------------------------------------------------ kv* */

DMAMAP_API void *dmamap_kvmalloc_at(size_t size, gfp_t gfp, const char *file, int line)
{
	struct dmamap_machine *m = dmamap_machine_current();
	void *p;

	if (!m)
		return NULL;
	/* the kernel's: a large kmalloc may fail quietly, vmalloc() is the fallback */
	p = dmamap_kmalloc(m, size, size > PAGE_SIZE ? gfp | __GFP_NOWARN : gfp, file, line);
	if (p || size <= PAGE_SIZE || (gfp & ~DM_GFP_KNOWN) || !gfpflags_allow_blocking(gfp))
		return p;
	if (size > INT_MAX) {
		if (!(gfp & __GFP_NOWARN))
			dmamap_report(m, DMAMAP_REPORT_BAD_INPUT, NULL, file, line, "kvmalloc(%zu): larger than INT_MAX",
				      size);
		return NULL;
	}
	/* kmalloc() said whether it may sleep */
	return vmalloc_on(m, size, gfp, "kvmalloc", file, line);
}

DMAMAP_API void *dmamap_kvmalloc_array_at(size_t n, size_t size, gfp_t gfp, const char *file, int line)
{
	return array_alloc(true, n, size, gfp, file, line);
}

DMAMAP_API void dmamap_kvfree_at(const void *p, const char *file, int line)
{
	if (is_vmalloc_addr(p))
		release_area(p, false, true, 0, "kvfree", file, line);
	else
		dmamap_kfree(p, file, line);
}

DMAMAP_API void dmamap_kvfree_sensitive_at(const void *p, size_t len, const char *file, int line)
{
	if (is_vmalloc_addr(p))
		release_area(p, false, true, len, "kvfree_sensitive", file, line);
	else
		dmamap_kfree_sensitive(p, file, line);
}

/* ------------------------------------------------------------ teardown */

void dmamap_vmalloc_fini(struct dmamap_machine *m)
{
	struct dmamap_vmalloc *v = state_of(m);

	if (!v)
		return;
	while (v->areas) {
		struct vm_area *r = v->areas;

		area_unlink(v, r);
		if (r->vmap)
			dmamap_report(m, DMAMAP_REPORT_LEAK, NULL, r->file, r->line,
				      "vmap() of %lu pages at %p never undone (vunmap), made at %s:%d", r->nr_pages,
				      (void *)r->start, r->file ? r->file : "?", r->line);
		else
			dmamap_report(m, DMAMAP_REPORT_LEAK, NULL, r->file, r->line,
				      "vmalloc'd %zu bytes at %p (%lu pages) never freed, allocated at %s:%d", r->asked,
				      (void *)r->start, r->nr_pages, r->file ? r->file : "?", r->line);
		/* the reservation goes whole below */
		area_unmap(m, r, true);
		area_release(r);
	}
	dm_host_release(v->base, v->size);
	pthread_mutex_destroy(&v->lock);
	dmamap_free(v);
	atomic_store_explicit(&m->vmalloc, NULL, memory_order_relaxed);
}
