/* SPDX-License-Identifier: MIT */
/*
 * The consistent region: a window of host address space where coherent DMA
 * buffers get their kernel mapping, with its own region allocator (the
 * kernel's arm_vmregion) and a pte per page.
 *
 * Regions are kept in a list sorted by address and placed first-fit, each
 * aligned to its size rounded up to a power of two, at most a section (1 MiB),
 * at least a page: small regions then never cross a section boundary. A pte
 * holds the frame and the protection; a present pte is a real host mapping of
 * that frame: RAM itself for uncached, dma-coherent and write-combining
 * types, the CPU's cached view for cached ones. One mutex guards the lot.
 */
#include <stdlib.h>
#include <sys/mman.h>

#include "internal.h"

void *dm_host_reserve(size_t len, size_t align)
{
	size_t total = len + align;
	u8 *p = mmap(NULL, total, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	u8 *aligned;

	if (p == MAP_FAILED)
		return NULL;
	aligned = (u8 *)DM_ALIGN_UP((uintptr_t)p, align);
	if (aligned > p)
		munmap(p, (size_t)(aligned - p));
	if (aligned + len < p + total)
		munmap(aligned + len, (size_t)(p + total - (aligned + len)));
	return aligned;
}

void dm_host_release(void *p, size_t len)
{
	if (p)
		munmap(p, len);
}

int dm_host_map(struct dmamap_machine *m, void *addr, unsigned long pfn, size_t count, pgprot_t prot)
{
	enum dmamap_memtype mt = pgprot_memtype(prot);
	int access = PROT_READ | ((pgprot_val(prot) & DMAMAP_PROT_RDONLY) ? 0 : PROT_WRITE);
	/* a cached mapping aliases the CPU's view; every other type RAM itself */
	off_t off = dm_plane_foff(m, mt == DMAMAP_MT_CACHED, (size_t)(pfn - m->base_pfn) << PAGE_SHIFT);
	void *p;

	if (mt == DMAMAP_MT_NONE || mt >= DMAMAP_MT_NR)
		return -EINVAL;
	p = mmap(addr, count << PAGE_SHIFT, access, MAP_SHARED | MAP_FIXED, m->mem_fd, off);
	if (p == MAP_FAILED)
		return -ENOMEM;
	if (mt != DMAMAP_MT_CACHED)
		dmamap_cache_alias(m, pfn, count, true);
	return 0;
}

void dm_host_unalias(struct dmamap_machine *m, unsigned long pfn, unsigned char prot)
{
	if (pgprot_memtype(__pgprot(prot)) != DMAMAP_MT_CACHED)
		dmamap_cache_alias(m, pfn, 1, false);
}

void dm_host_unmap(void *addr, size_t len)
{
	/*
	 * Back to an inaccessible reservation, so nothing else lands there; if
	 * the kernel cannot make that mapping (no memory for it), the range stays
	 * mapped but inaccessible all the same.
	 */
	if (mmap(addr, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1, 0) == MAP_FAILED)
		mprotect(addr, len, PROT_NONE);
}

int dmamap_consistent_init(struct dmamap_machine *m)
{
	struct dmamap_consistent *c = &m->cons;
	size_t pages = m->cfg.consistent_size >> PAGE_SHIFT;

	c->size = m->cfg.consistent_size;
	c->base = m->cons_window;
	c->pte_pfn = calloc(pages, sizeof(*c->pte_pfn));
	c->pte_prot = calloc(pages, sizeof(*c->pte_prot));
	if (!c->base || !c->pte_pfn || !c->pte_prot) {
		free(c->pte_pfn);
		free(c->pte_prot);
		memset(c, 0, sizeof(*c));
		return -ENOMEM;
	}
	pthread_mutex_init(&c->lock, NULL);
	return 0;
}

/* Clear the ptes [first, first + n) of the region, giving each run of present ones back in one host call. */
static void ptes_clear(struct dmamap_machine *m, size_t first, size_t n)
{
	struct dmamap_consistent *c = &m->cons;

	for (size_t i = first, run = 0; i <= first + n; i++) {
		if (i < first + n && c->pte_prot[i]) {
			dm_host_unalias(m, c->pte_pfn[i], c->pte_prot[i]);
			c->pte_prot[i] = 0;
			c->pte_pfn[i] = 0;
			run++;
		} else if (run) {
			if (!c->closing)
				dm_host_unmap(c->base + ((i - run) << PAGE_SHIFT), run << PAGE_SHIFT);
			run = 0;
		}
	}
}

static void region_unmap_all(struct dmamap_machine *m, struct dmamap_vmregion *r)
{
	struct dmamap_consistent *c = &m->cons;

	ptes_clear(m, (r->start - (uintptr_t)c->base) >> PAGE_SHIFT, (r->end - r->start) >> PAGE_SHIFT);
}

void dmamap_consistent_fini(struct dmamap_machine *m)
{
	struct dmamap_consistent *c = &m->cons;
	struct dmamap_vmregion *r;

	if (!c->base)
		return;
	if (c->nr_regions)
		dmamap_report(m, DMAMAP_REPORT_LEAK, NULL, NULL, 0,
			      "%lu consistent-region mappings (%zu bytes) still live at machine destroy", c->nr_regions,
			      c->used);
	while ((r = c->regions)) {
		c->regions = r->next;
		region_unmap_all(m, r);
		dmamap_free(r);
	}
	free(c->pte_pfn);
	free(c->pte_prot);
	pthread_mutex_destroy(&c->lock);
	memset(c, 0, sizeof(*c));
}

struct dmamap_vmregion *dmamap_vmregion_alloc(struct dmamap_machine *m, size_t size, const void *caller)
{
	struct dmamap_consistent *c = &m->cons;
	struct dmamap_vmregion *r, **pp;
	uintptr_t base = (uintptr_t)c->base, end = base + c->size, addr;
	unsigned bit;
	size_t align;

	if (!size || size & ~PAGE_MASK)
		return NULL;
	if (size > c->size) {
		pthread_mutex_lock(&c->lock);
		c->failures++;
		pthread_mutex_unlock(&c->lock);
		return NULL;
	}
	if (dmamap_should_fail(m, DMAMAP_FAULT_REMAP)) {
		pthread_mutex_lock(&c->lock);
		c->failures++;
		pthread_mutex_unlock(&c->lock);
		return NULL;
	}
	bit = size > 1 ? (unsigned)(sizeof(long) * 8 - (unsigned)__builtin_clzl(size - 1)) : 0;
	bit = DM_MIN(bit, (unsigned)DM_SECTION_SHIFT);
	bit = DM_MAX(bit, (unsigned)PAGE_SHIFT);
	align = (size_t)1 << bit;

	r = dmamap_zalloc(m, sizeof(*r));
	if (!r)
		return NULL;
	pthread_mutex_lock(&c->lock);
	addr = base;
	for (pp = &c->regions; *pp; pp = &(*pp)->next) {
		if (addr + size <= (*pp)->start)
			break;
		addr = DM_ALIGN_UP((*pp)->end, align);
	}
	if (addr + size > end || addr < base) {
		c->failures++;
		pthread_mutex_unlock(&c->lock);
		dmamap_free(r);
		return NULL;
	}
	r->start = addr;
	r->end = addr + size;
	r->caller = caller;
	r->next = *pp;
	*pp = r;
	c->used += size;
	c->nr_regions++;
	pthread_mutex_unlock(&c->lock);
	return r;
}

struct dmamap_vmregion *dmamap_vmregion_find(struct dmamap_machine *m, const void *addr)
{
	struct dmamap_consistent *c = &m->cons;
	struct dmamap_vmregion *r;
	uintptr_t a = (uintptr_t)addr;

	pthread_mutex_lock(&c->lock);
	for (r = c->regions; r; r = r->next)
		if (a >= r->start && a < r->end)
			break;
	pthread_mutex_unlock(&c->lock);
	return r;
}

int dmamap_vmregion_map(struct dmamap_machine *m, struct dmamap_vmregion *r, size_t first, struct page *const *pages,
			unsigned long pfn, size_t count, pgprot_t prot)
{
	struct dmamap_consistent *c = &m->cons;
	size_t base_idx = (r->start - (uintptr_t)c->base) >> PAGE_SHIFT;
	size_t n = (r->end - r->start) >> PAGE_SHIFT;
	size_t done = 0;
	int err = 0;

	if (!count || first > n || count > n - first || pgprot_memtype(prot) == DMAMAP_MT_NONE ||
	    pgprot_memtype(prot) >= DMAMAP_MT_NR)
		return -EINVAL;
	for (size_t i = 0; i < count; i++) {
		unsigned long f = pages ? page_to_pfn(pages[i]) : pfn + i;

		if ((pages && (!pages[i] || dm_page_machine(pages[i]) != m)) || !dmamap_pfn_valid(m, f))
			return -EINVAL;
	}
	if (dmamap_should_fail(m, DMAMAP_FAULT_REMAP))
		return -ENOMEM;

	pthread_mutex_lock(&c->lock);
	for (size_t i = 0; i < count; i++) {
		if (c->pte_prot[base_idx + first + i]) {
			err = -EBUSY;
			goto unwind;
		}
	}
	while (done < count) {
		unsigned long f = pages ? page_to_pfn(pages[done]) : pfn + done;
		size_t run = 1;

		/* map runs of consecutive frames with one host call */
		while (done + run < count && (pages ? page_to_pfn(pages[done + run]) : pfn + done + run) == f + run)
			run++;
		err = dm_host_map(m, c->base + ((base_idx + first + done) << PAGE_SHIFT), f, run, prot);
		if (err)
			goto unwind;
		for (size_t i = 0; i < run; i++) {
			c->pte_pfn[base_idx + first + done + i] = f + i;
			c->pte_prot[base_idx + first + done + i] = (unsigned char)pgprot_val(prot);
		}
		done += run;
	}
	pthread_mutex_unlock(&c->lock);
	return 0;

unwind:
	ptes_clear(m, base_idx + first, done);
	pthread_mutex_unlock(&c->lock);
	return err;
}

void dmamap_vmregion_free(struct dmamap_machine *m, struct dmamap_vmregion *r)
{
	struct dmamap_consistent *c = &m->cons;
	struct dmamap_vmregion **pp;

	if (!r)
		return;
	pthread_mutex_lock(&c->lock);
	for (pp = &c->regions; *pp; pp = &(*pp)->next) {
		if (*pp == r) {
			*pp = r->next;
			region_unmap_all(m, r);
			c->used -= r->end - r->start;
			c->nr_regions--;
			pthread_mutex_unlock(&c->lock);
			dmamap_free(r);
			return;
		}
	}
	pthread_mutex_unlock(&c->lock);
	dmamap_report(m, DMAMAP_REPORT_API_MISUSE, NULL, NULL, 0, "consistent region %p is not live (freed twice?)",
		      (void *)r);
}

DMAMAP_API bool dmamap_consistent_contains(struct dmamap_machine *m, const void *addr)
{
	uintptr_t a = (uintptr_t)addr, b;

	if (!m || !m->cons.base)
		return false;
	b = (uintptr_t)m->cons.base;
	return a >= b && a - b < m->cons.size;
}

DMAMAP_API int dmamap_consistent_pte(struct dmamap_machine *m, const void *addr, unsigned long *pfn, pgprot_t *prot)
{
	size_t idx;
	int ret = 0;

	if (!dmamap_consistent_contains(m, addr))
		return -EINVAL;
	idx = ((uintptr_t)addr - (uintptr_t)m->cons.base) >> PAGE_SHIFT;
	pthread_mutex_lock(&m->cons.lock);
	if (!m->cons.pte_prot[idx]) {
		ret = -ENOENT;
	} else {
		if (pfn)
			*pfn = m->cons.pte_pfn[idx];
		if (prot)
			*prot = __pgprot(m->cons.pte_prot[idx]);
	}
	pthread_mutex_unlock(&m->cons.lock);
	return ret;
}

DMAMAP_API void dmamap_consistent_stats(struct dmamap_machine *m, struct dmamap_consistent_stats *st)
{
	if (!m || !st)
		return;
	pthread_mutex_lock(&m->cons.lock);
	st->size = m->cons.size;
	st->used = m->cons.used;
	st->regions = m->cons.nr_regions;
	st->failures = m->cons.failures;
	pthread_mutex_unlock(&m->cons.lock);
}

/* ------------------------------------------------------------- invariants */

void dmamap_consistent_check(struct dmamap_machine *m, struct dm_check *c)
{
	struct dmamap_consistent *cs = &m->cons;
	uintptr_t base = (uintptr_t)cs->base, prev_end = base;
	unsigned long n = 0;
	size_t used = 0, pages = cs->size >> PAGE_SHIFT, covered_to = 0;
	struct dmamap_vmregion *r;

	if (!cs->base)
		return;
	pthread_mutex_lock(&cs->lock);
	for (r = cs->regions; r; r = r->next) {
		if (r->start < prev_end || r->end <= r->start || r->end - base > cs->size || (r->start | r->end) & ~PAGE_MASK) {
			dm_check_fail(c, DMAMAP_CHECK_CONSISTENT, "region %#lx-%#lx is unsorted, overlapping or outside "
				      "the consistent region", r->start, r->end);
			break;
		}
		/* ptes between regions must be empty */
		for (size_t i = covered_to; i < (r->start - base) >> PAGE_SHIFT; i++)
			if (cs->pte_prot[i])
				dm_check_fail(c, DMAMAP_CHECK_CONSISTENT, "pte of %#lx is present outside every region",
					      base + (i << PAGE_SHIFT));
		covered_to = (r->end - base) >> PAGE_SHIFT;
		for (size_t i = (r->start - base) >> PAGE_SHIFT; i < covered_to; i++)
			if (cs->pte_prot[i] && !dmamap_pfn_valid(m, cs->pte_pfn[i]))
				dm_check_fail(c, DMAMAP_CHECK_CONSISTENT, "pte of %#lx maps pfn %#lx, not RAM",
					      base + (i << PAGE_SHIFT), cs->pte_pfn[i]);
		used += r->end - r->start;
		prev_end = r->end;
		if (++n > pages)
			break;
	}
	for (size_t i = covered_to; i < pages; i++)
		if (cs->pte_prot[i])
			dm_check_fail(c, DMAMAP_CHECK_CONSISTENT, "pte of %#lx is present outside every region",
				      base + (i << PAGE_SHIFT));
	if (n != cs->nr_regions || used != cs->used)
		dm_check_fail(c, DMAMAP_CHECK_CONSISTENT, "%lu regions of %zu bytes listed, %lu of %zu counted", n, used,
			      cs->nr_regions, cs->used);
	pthread_mutex_unlock(&cs->lock);
}
