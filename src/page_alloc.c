/* SPDX-License-Identifier: MIT */
/*
 * The buddy page allocator.
 *
 * Each zone (DMA below dma_zone_limit, Normal above) keeps one free list per
 * order, doubly linked through page indexes. A free block is marked on its
 * first page (PG_buddy, dmamap_order); an allocated block on its first page
 * (PG_head, dmamap_order, the reference count) and PG_tail on the others.
 * Buddies are found by frame number (pfn ^ (1 << order)), so blocks are
 * naturally aligned in physical address, and never merge across a zone
 * boundary. One spinlock per machine guards everything: no path sleeps.
 *
 * Nothing is set up per page when a machine is made, so that making one
 * costs the same at any RAM size:
 *   - struct pages are set up a chunk (DM_PAGE_CHUNK pages) at a time, the
 *     first time one of them is handed out or touched (dm_page());
 *   - a zone starts as its canonical decomposition into maximal aligned
 *     power-of-two blocks, which the free lists would hold in address order
 *     (the highest at the head). Those blocks are put on the lists only when
 *     needed, highest first, appended at the tails (seed_end, seed_nr): the
 *     lists read exactly as if the zone had been seeded whole at creation.
 *     A chunk set up below seed_end marks the seed blocks heading in it as
 *     free (PG_buddy, order), as seeding would have.
 */
#include <stdlib.h>

#include "internal.h"

#define PF(bit) (1UL << (bit))

static inline struct dmamap_page_alloc *pa_of(struct dmamap_machine *m)
{
	return &m->pa;
}

/* Link free block @idx into its list, at the head or at the tail; not counted. */
static void list_link(struct dmamap_page_alloc *pa, struct dmamap_zone_state *z, unsigned long idx, unsigned order,
		      bool tail)
{
	struct page *p = &pa->pages[idx];
	unsigned *end = tail ? &z->free_tail[order] : &z->free_head[order];
	unsigned *other = tail ? &z->free_head[order] : &z->free_tail[order];
	unsigned next = *end;

	p->dmamap_prev = tail ? next : DM_NO_PAGE;
	p->dmamap_next = tail ? DM_NO_PAGE : next;
	if (next == DM_NO_PAGE)
		*other = (unsigned)idx;
	else if (tail)
		pa->pages[next].dmamap_next = (unsigned)idx;
	else
		pa->pages[next].dmamap_prev = (unsigned)idx;
	*end = (unsigned)idx;
	p->flags |= PF(PG_buddy);
	p->dmamap_order = order;
}

static void list_add(struct dmamap_page_alloc *pa, struct dmamap_zone_state *z, unsigned long idx, unsigned order)
{
	list_link(pa, z, idx, order, false);
	z->nr_free[order]++;
	z->free_pages += 1UL << order;
}

static void list_del(struct dmamap_page_alloc *pa, struct dmamap_zone_state *z, unsigned long idx, unsigned order)
{
	struct page *p = &pa->pages[idx];

	if (p->dmamap_prev != DM_NO_PAGE)
		pa->pages[p->dmamap_prev].dmamap_next = p->dmamap_next;
	else
		z->free_head[order] = p->dmamap_next;
	if (p->dmamap_next != DM_NO_PAGE)
		pa->pages[p->dmamap_next].dmamap_prev = p->dmamap_prev;
	else
		z->free_tail[order] = p->dmamap_prev;
	p->dmamap_next = p->dmamap_prev = DM_NO_PAGE;
	p->flags &= ~PF(PG_buddy);
	z->nr_free[order]--;
	z->free_pages -= 1UL << order;
}

/* ------------------------------------------------------------ lazy set-up */

static inline unsigned floor_log2(unsigned long x)
{
	return (unsigned)(BITS_PER_LONG - 1 - (unsigned)__builtin_clzl(x));
}

/* Order of the canonical block of zone @z that starts at @idx (a block start). */
static unsigned seed_order_at(struct dmamap_machine *m, const struct dmamap_zone_state *z, unsigned long idx)
{
	unsigned long pfn = m->base_pfn + idx;
	unsigned order = MAX_ORDER - 1;

	if (pfn)
		order = DM_MIN(order, (unsigned)__builtin_ctzl(pfn));
	return DM_MIN(order, floor_log2(z->end - idx));
}

/* Order of the canonical block of zone @z that ends at @end (a block end above z->start). */
static unsigned seed_order_below(struct dmamap_machine *m, const struct dmamap_zone_state *z, unsigned long end)
{
	unsigned order = DM_MIN((unsigned)(MAX_ORDER - 1), (unsigned)__builtin_ctzl(m->base_pfn + end));

	return DM_MIN(order, floor_log2(end - z->start));
}

/*
 * Walk the canonical blocks of @z in address order, from its start: count
 * them all in seed_nr (@mark false), or mark those starting in [from, to)
 * free (@mark true). A run of maximal blocks is crossed in one step.
 */
static void seed_walk(struct dmamap_machine *m, struct dmamap_zone_state *z, unsigned long from, unsigned long to,
		      bool mark)
{
	const unsigned top = MAX_ORDER - 1;
	unsigned long idx = z->start;

	while (idx < to) {
		unsigned order = seed_order_at(m, z, idx);
		unsigned long n = 1;

		if (order == top) {
			/* maximal blocks follow each other up to the last that fits */
			n = (z->end - idx) >> top;
			if (mark)
				n = idx + (1UL << top) <= from ? (from - idx) >> top : 1;
		}
		if (!mark) {
			z->seed_nr[order] += n;
		} else if (idx >= from) {
			m->pa.pages[idx].flags |= PF(PG_buddy);
			m->pa.pages[idx].dmamap_order = order;
		}
		idx += n << order;
	}
}

static struct dmamap_zone_state *zone_of(struct dmamap_page_alloc *pa, unsigned long idx)
{
	return idx < pa->zones[DMAMAP_ZONE_DMA].end ? &pa->zones[DMAMAP_ZONE_DMA] : &pa->zones[DMAMAP_ZONE_NORMAL];
}

static void chunk_setup(struct dmamap_machine *m, unsigned long c)
{
	struct dmamap_page_alloc *pa = pa_of(m);
	unsigned long first = c << DM_PAGE_CHUNK_SHIFT, end = DM_MIN(first + DM_PAGE_CHUNK, pa->nr_pages);
	unsigned long dma_end = pa->zones[DMAMAP_ZONE_DMA].end;

	for (unsigned long i = first; i < end; i++) {
		struct page *p = &pa->pages[i];

		p->dmamap_machine = m;
		p->dmamap_next = p->dmamap_prev = DM_NO_PAGE;
		if (i < dma_end)
			p->flags = PF(PG_dma_zone);
	}
	for (unsigned zi = 0; zi < DMAMAP_ZONE_NR; zi++) {
		struct dmamap_zone_state *z = &pa->zones[zi];

		if (first < z->seed_end && end > z->start)
			seed_walk(m, z, first, DM_MIN(end, z->seed_end), true);
	}
	pa->nr_ready++;
	__atomic_fetch_or(&pa->ready[c / BITS_PER_LONG], 1UL << (c % BITS_PER_LONG), __ATOMIC_RELEASE);
}

void dmamap_page_chunk_init(struct dmamap_machine *m, unsigned long idx, bool locked)
{
	struct dmamap_page_alloc *pa = pa_of(m);

	if (!locked)
		pthread_spin_lock(&pa->lock);
	if (!dm_page_chunk_ready(m, idx))
		chunk_setup(m, idx >> DM_PAGE_CHUNK_SHIFT);
	if (!locked)
		pthread_spin_unlock(&pa->lock);
}

/* The struct page of @idx, set up; pa.lock held. */
static inline struct page *page_locked(struct dmamap_machine *m, unsigned long idx)
{
	if (unlikely(!dm_page_chunk_ready(m, idx)))
		dmamap_page_chunk_init(m, idx, true);
	return &m->pa.pages[idx];
}

static bool holds_page(struct dmamap_machine *m, const void *page)
{
	const struct page *p = page;

	return m->pa.pages && p >= m->pa.pages && p < m->pa.pages + m->pa.nr_pages;
}

struct dmamap_machine *dmamap_page_machine_slow(const struct page *page)
{
	struct dmamap_machine *m = dmamap_registry_find(holds_page, page);

	if (m)
		dm_page(m, (unsigned long)(page - m->pa.pages));
	return m;
}

/* Set up the struct pages of [idx, idx + count); lock held. */
static void pages_locked(struct dmamap_machine *m, unsigned long idx, unsigned long count)
{
	for (unsigned long c = idx >> DM_PAGE_CHUNK_SHIFT; c <= (idx + count - 1) >> DM_PAGE_CHUNK_SHIFT; c++)
		page_locked(m, c << DM_PAGE_CHUNK_SHIFT);
}

/* Put the highest canonical block still unseeded on its free list's tail. Lock held. */
static void seed_one(struct dmamap_machine *m, struct dmamap_zone_state *z)
{
	unsigned order = seed_order_below(m, z, z->seed_end);
	unsigned long idx = z->seed_end - (1UL << order);

	page_locked(m, idx);
	list_link(&m->pa, z, idx, order, true);
	z->seed_end = idx;
	z->seed_nr[order]--;
}

/* Seed zone @z down to @idx: afterwards every block at or above it is on the lists. Lock held. */
static void seed_down_to(struct dmamap_machine *m, struct dmamap_zone_state *z, unsigned long idx)
{
	while (z->seed_end > DM_MAX(idx, z->start))
		seed_one(m, z);
}

int dmamap_page_alloc_init(struct dmamap_machine *m)
{
	struct dmamap_page_alloc *pa = pa_of(m);
	unsigned long dma_end = m->nr_pages, chunks = (m->nr_pages + DM_PAGE_CHUNK - 1) >> DM_PAGE_CHUNK_SHIFT;

	pa->nr_pages = m->nr_pages;
	/* both zero-filled and left untouched: pages are set up on first use */
	pa->pages = dmamap_lazy_zalloc(m, m->nr_pages * sizeof(struct page));
	pa->ready = calloc(chunks / BITS_PER_LONG + 1, sizeof(long));
	if (!pa->pages || !pa->ready) {
		dmamap_lazy_free(m, pa->pages, m->nr_pages * sizeof(struct page));
		free(pa->ready);
		pa->pages = NULL;
		pa->ready = NULL;
		return -ENOMEM;
	}
	pthread_spin_init(&pa->lock, PTHREAD_PROCESS_PRIVATE);

	if (m->cfg.dma_zone_limit)
		dma_end = (unsigned long)((m->cfg.dma_zone_limit - m->cfg.ram_base) >> PAGE_SHIFT);
	pa->zones[DMAMAP_ZONE_DMA].start = 0;
	pa->zones[DMAMAP_ZONE_DMA].end = dma_end;
	pa->zones[DMAMAP_ZONE_NORMAL].start = dma_end;
	pa->zones[DMAMAP_ZONE_NORMAL].end = m->nr_pages;

	for (unsigned zi = 0; zi < DMAMAP_ZONE_NR; zi++) {
		struct dmamap_zone_state *z = &pa->zones[zi];

		for (unsigned o = 0; o < MAX_ORDER; o++)
			z->free_head[o] = z->free_tail[o] = DM_NO_PAGE;
		z->seed_end = z->end;
		seed_walk(m, z, 0, z->end, false);
		for (unsigned o = 0; o < MAX_ORDER; o++) {
			z->nr_free[o] = z->seed_nr[o];
			z->free_pages += z->seed_nr[o] << o;
		}
	}
	/* Nothing is allocated: memcheck may treat the whole CPU view as dead. */
	dmamap_track_noaccess(m->lin, m->cfg.ram_size);
	return 0;
}

void dmamap_page_alloc_fini(struct dmamap_machine *m)
{
	struct dmamap_page_alloc *pa = pa_of(m);
	unsigned long blocks = 0, pages = 0, first = ~0UL;
	unsigned long chunks = (pa->nr_pages + DM_PAGE_CHUNK - 1) >> DM_PAGE_CHUNK_SHIFT;

	if (!pa->pages)
		return;
	/* only chunks that were set up can hold an allocated block; the others are zero still */
	for (unsigned long w = 0; w <= chunks / BITS_PER_LONG; w++) {
		for (unsigned long bits = pa->ready[w]; bits; bits &= bits - 1) {
			unsigned long c = w * BITS_PER_LONG + (unsigned long)__builtin_ctzl(bits);
			unsigned long i0 = c << DM_PAGE_CHUNK_SHIFT, i1 = DM_MIN(i0 + DM_PAGE_CHUNK, pa->nr_pages);

			for (unsigned long i = i0; i < i1; i++) {
				if (pa->pages[i].flags & PF(PG_head)) {
					blocks++;
					pages += 1UL << pa->pages[i].dmamap_order;
					if (first == ~0UL)
						first = i;
				}
			}
			if (m->recycle)
				memset(&pa->pages[i0], 0, (i1 - i0) * sizeof(struct page));
		}
	}
	if (blocks)
		dmamap_report(m, DMAMAP_REPORT_LEAK, NULL, NULL, 0,
			      "%lu page blocks (%lu pages) still allocated at machine destroy, first at phys %#llx",
			      blocks, pages, (unsigned long long)(m->cfg.ram_base + ((u64)first << PAGE_SHIFT)));
	dmamap_track_defined(m->lin, m->cfg.ram_size);
	pthread_spin_destroy(&pa->lock);
	dmamap_lazy_free(m, pa->pages, pa->nr_pages * sizeof(struct page));
	free(pa->ready);
	pa->pages = NULL;
	pa->ready = NULL;
}

/* Take a block of @order from zone @z, splitting a larger one. Lock held. */
static long zone_take(struct dmamap_machine *m, struct dmamap_zone_state *z, unsigned order)
{
	struct dmamap_page_alloc *pa = pa_of(m);
	unsigned o = order;
	unsigned long idx;

	while (o < MAX_ORDER && z->free_head[o] == DM_NO_PAGE && !z->seed_nr[o])
		o++;
	if (o == MAX_ORDER)
		return -1;
	/* the list's unseeded tail is its head when the list is empty */
	while (z->free_head[o] == DM_NO_PAGE)
		seed_one(m, z);
	idx = z->free_head[o];
	list_del(pa, z, idx, o);
	while (o > order) {
		o--;
		page_locked(m, idx + (1UL << o));
		list_add(pa, z, idx + (1UL << o), o);
	}
	pages_locked(m, idx, 1UL << order);
	return (long)idx;
}


DMAMAP_API struct page *dmamap_alloc_pages(struct dmamap_machine *m, gfp_t gfp, unsigned order)
{
	dm_might_alloc(m, gfp, "alloc_pages", NULL, 0);
	return dm_alloc_pages(m, gfp, order);
}

struct page *dm_alloc_pages(struct dmamap_machine *m, gfp_t gfp, unsigned order)
{
	struct dmamap_page_alloc *pa;
	long idx = -1;

	if (!m) {
		dmamap_report(NULL, DMAMAP_REPORT_BAD_INPUT, NULL, NULL, 0, "alloc_pages: NULL machine");
		return NULL;
	}
	if (order >= MAX_ORDER || (gfp & ~DM_GFP_KNOWN)) {
		dmamap_report(m, DMAMAP_REPORT_BAD_INPUT, NULL, NULL, 0, "alloc_pages: bad order %u or gfp %#x", order,
			      gfp);
		return NULL;
	}
	pa = pa_of(m);
	if (dmamap_should_fail(m, DMAMAP_FAULT_PAGE_ALLOC)) {
		pthread_spin_lock(&pa->lock);
		pa->injected_failures++;
		pthread_spin_unlock(&pa->lock);
		return NULL;
	}

	pthread_spin_lock(&pa->lock);
	if (!(gfp & __GFP_DMA))
		idx = zone_take(m, &pa->zones[DMAMAP_ZONE_NORMAL], order);
	if (idx < 0)
		idx = zone_take(m, &pa->zones[DMAMAP_ZONE_DMA], order);
	if (idx < 0) {
		pa->failures++;
		pthread_spin_unlock(&pa->lock);
		if (!(gfp & __GFP_NOWARN))
			dmamap_log(m, DMAMAP_LOG_WARN, NULL, "page allocation failure: order %u, gfp %#x", order, gfp);
		return NULL;
	}
	for (unsigned long i = 1; i < (1UL << order); i++)
		pa->pages[idx + (long)i].flags |= PF(PG_tail);
	pa->pages[idx].flags |= PF(PG_head);
	pa->pages[idx].dmamap_order = order;
	pa->pages[idx]._refcount = 1;
	pa->pages[idx].private = 0;
	pa->allocations++;
	pa->allocated_pages += 1UL << order;
	pthread_spin_unlock(&pa->lock);

	{
		void *va = m->lin + ((size_t)idx << PAGE_SHIFT);
		size_t len = PAGE_SIZE << order;

		dmamap_track_undefined(va, len);
		if (gfp & __GFP_ZERO)
			dm_cpu_store(m, va, NULL, 0, len);
	}
	return &pa->pages[idx];
}

/* Put a free block into its zone, merging it with its free buddies. Lock held. */
static void buddy_insert(struct dmamap_machine *m, unsigned long idx, unsigned order)
{
	struct dmamap_page_alloc *pa = pa_of(m);
	struct dmamap_zone_state *z = zone_of(pa, idx);

	while (order < MAX_ORDER - 1) {
		unsigned long pfn = m->base_pfn + idx;
		unsigned long bpfn = pfn ^ (1UL << order);
		unsigned long bidx;
		struct page *b;

		if (bpfn < m->base_pfn)
			break;
		bidx = bpfn - m->base_pfn;
		/* never an unseeded block: those are maximal, no buddy of theirs is free */
		if (bidx < z->seed_end || bidx + (1UL << order) > z->end)
			break;
		b = page_locked(m, bidx);
		if (!(b->flags & PF(PG_buddy)) || b->dmamap_order != order)
			break;
		list_del(pa, z, bidx, order);
		idx = DM_MIN(idx, bidx);
		order++;
	}
	list_add(pa, z, idx, order);
}

/* Return an allocated block to its zone. Lock held. */
static void free_block(struct dmamap_machine *m, unsigned long idx, unsigned order)
{
	struct dmamap_page_alloc *pa = pa_of(m);

	pa->pages[idx].flags &= ~PF(PG_head);
	pa->pages[idx]._refcount = 0;
	for (unsigned long i = 1; i < (1UL << order); i++)
		pa->pages[idx + i].flags &= ~PF(PG_tail);
	pa->frees++;
	pa->allocated_pages -= 1UL << order;
	buddy_insert(m, idx, order);
}

/* Validate a free of @page at @order; returns a reason string, or NULL when valid. Lock held. */
static const char *free_refusal(const struct page *page, unsigned order)
{
	if (page->flags & PF(PG_buddy) || (!(page->flags & (PF(PG_head) | PF(PG_tail)))))
		return "page is not allocated (double free?)";
	if (page->flags & PF(PG_tail))
		return "page is not the first page of its block";
	if (page->flags & PF(PG_slab))
		return "the block belongs to kmalloc (free it with kfree)";
	if (page->dmamap_order != order)
		return "order differs from the allocation's";
	if (page->_refcount <= 0)
		return "page has no reference left";
	return NULL;
}

static struct dmamap_machine *page_machine(const struct page *page, const char *what)
{
	struct dmamap_machine *m;

	if (!page)
		return NULL;
	m = dm_page_machine(page);
	if (!m)
		dmamap_report(NULL, DMAMAP_REPORT_BAD_ADDRESS, NULL, NULL, 0, "%s: %p is not a page of any machine", what,
			      (const void *)page);
	return m;
}

/*
 * Drop a reference to the block at @page (of @order when @check_order, else
 * its own), freeing it with the last, as @what at @file:@line. The last
 * reference's free first checks the bytes it frees (dm_memory_freed()).
 */
static void put_block(struct page *page, unsigned order, bool check_order, const char *what, const char *file,
		      int line)
{
	struct dmamap_machine *m = page_machine(page, what);
	struct dmamap_page_alloc *pa;
	const char *why;
	unsigned long idx;

	if (!m)
		return;
	pa = pa_of(m);
	idx = dm_page_index(page);
	/* the last reference going while the device may still use the pages: refused (the checker said why) */
	if (page->_refcount == 1 && m->dma_busy && dmamap_debug_on(m) &&
	    m->dma_busy(m, page_to_phys(page), PAGE_SIZE << (check_order ? order : page->dmamap_order), what)) {
		pthread_spin_lock(&pa->lock);
		pa->refused_frees++;
		pthread_spin_unlock(&pa->lock);
		return;
	}
	pthread_spin_lock(&pa->lock);
	why = free_refusal(page, check_order ? order : page->dmamap_order);
	if (!why && page->_refcount == 1 && dm_free_watched()) {
		size_t bytes = PAGE_SIZE << page->dmamap_order;

		pthread_spin_unlock(&pa->lock);
		dm_memory_freed(m, m->lin + (idx << PAGE_SHIFT), bytes, what, file, line);
		pthread_spin_lock(&pa->lock);
		why = free_refusal(page, check_order ? order : page->dmamap_order);
	}
	if (why) {
		pa->refused_frees++;
		pthread_spin_unlock(&pa->lock);
		dmamap_report(m, DMAMAP_REPORT_PAGE_MISUSE, NULL, file, line, "%s(pfn %#lx, order %u) refused: %s", what,
			      m->base_pfn + idx, order, why);
		return;
	}
	order = page->dmamap_order;
	if (--page->_refcount == 0) {
		free_block(m, idx, order);
		/* before the lock goes: once it has, another thread may allocate the block and mark it its own */
		dmamap_track_noaccess(m->lin + (idx << PAGE_SHIFT), PAGE_SIZE << order);
	}
	pthread_spin_unlock(&pa->lock);
}

DMAMAP_API void dmamap_free_pages(struct page *page, unsigned order)
{
	put_block(page, order, true, "free_pages", NULL, 0);
}

DMAMAP_API void put_page(struct page *page)
{
	put_block(page, 0, false, "put_page", NULL, 0);
}

DMAMAP_API void split_page(struct page *page, unsigned order)
{
	struct dmamap_machine *m = page_machine(page, "split_page");
	struct dmamap_page_alloc *pa;
	const char *why;

	if (!m)
		return;
	pa = pa_of(m);
	pthread_spin_lock(&pa->lock);
	why = free_refusal(page, order);
	if (!why && page->_refcount != 1)
		why = "block has more than one reference";
	if (why) {
		pthread_spin_unlock(&pa->lock);
		dmamap_report(m, DMAMAP_REPORT_PAGE_MISUSE, NULL, NULL, 0, "split_page(pfn %#lx, order %u) refused: %s",
			      page_to_pfn(page), order, why);
		return;
	}
	for (unsigned long i = 0; i < (1UL << order); i++) {
		page[i].flags &= ~PF(PG_tail);
		page[i].flags |= PF(PG_head);
		page[i].dmamap_order = 0;
		page[i]._refcount = 1;
	}
	pa->allocations += (1UL << order) - 1;
	pthread_spin_unlock(&pa->lock);
}

void dmamap_page_set_slab(struct page *page, unsigned order, bool on)
{
	struct dmamap_page_alloc *pa = pa_of(page->dmamap_machine);

	pthread_spin_lock(&pa->lock);
	for (unsigned long i = 0; i < (1UL << order); i++) {
		if (on)
			page[i].flags |= PF(PG_slab);
		else
			page[i].flags &= ~PF(PG_slab);
	}
	pthread_spin_unlock(&pa->lock);
}

/* The free block holding page @idx: its head index and order, or false. Lock held. */
static bool free_block_of(struct dmamap_machine *m, unsigned long idx, unsigned long *head, unsigned *order)
{
	unsigned long pfn = m->base_pfn + idx;

	for (unsigned o = 0; o < MAX_ORDER; o++) {
		unsigned long hpfn = pfn & ~((1UL << o) - 1);

		if (hpfn < m->base_pfn)
			break;
		const struct page *h = page_locked(m, hpfn - m->base_pfn);

		if ((h->flags & PF(PG_buddy)) && h->dmamap_order == o) {
			*head = hpfn - m->base_pfn;
			*order = o;
			return true;
		}
	}
	return false;
}

int dmamap_alloc_contig(struct dmamap_machine *m, unsigned long first, unsigned long count)
{
	struct dmamap_page_alloc *pa = pa_of(m);
	unsigned long idx, head;
	unsigned order;

	if (!count || first >= pa->nr_pages || count > pa->nr_pages - first)
		return -EINVAL;
	pthread_spin_lock(&pa->lock);
	/* the blocks of the range, and those above them, onto the lists */
	for (unsigned zi = 0; zi < DMAMAP_ZONE_NR; zi++)
		if (pa->zones[zi].end > first)
			seed_down_to(m, &pa->zones[zi], first);
	for (idx = first; idx < first + count; idx = head + (1UL << order)) {
		if (!free_block_of(m, idx, &head, &order)) {
			pthread_spin_unlock(&pa->lock);
			return -EBUSY;
		}
	}
	/* Every page is free: break each overlapping block, give back what lies outside. */
	for (idx = first; idx < first + count;) {
		struct dmamap_zone_state *z = zone_of(pa, idx);
		unsigned long end;

		free_block_of(m, idx, &head, &order);
		list_del(pa, z, head, order);
		end = head + (1UL << order);
		pages_locked(m, head, end - head);
		for (unsigned long i = head; i < end; i++) {
			if (i >= first && i < first + count) {
				pa->pages[i].flags |= PF(PG_head);
				pa->pages[i].dmamap_order = 0;
				pa->pages[i]._refcount = 1;
				pa->allocations++;
				pa->allocated_pages++;
			} else {
				buddy_insert(m, i, 0);
			}
		}
		idx = end;
	}
	pthread_spin_unlock(&pa->lock);
	for (idx = first; idx < first + count; idx++)
		dmamap_track_undefined(m->lin + (idx << PAGE_SHIFT), PAGE_SIZE);
	return 0;
}

DMAMAP_API void get_page(struct page *page)
{
	struct dmamap_machine *m = page_machine(page, "get_page");
	struct dmamap_page_alloc *pa;

	if (!m)
		return;
	pa = pa_of(m);
	pthread_spin_lock(&pa->lock);
	if (!(page->flags & PF(PG_head)) || page->_refcount <= 0) {
		pthread_spin_unlock(&pa->lock);
		dmamap_report(m, DMAMAP_REPORT_PAGE_MISUSE, NULL, NULL, 0,
			      "get_page(pfn %#lx) refused: not the head of an allocated block", page_to_pfn(page));
		return;
	}
	page->_refcount++;
	pthread_spin_unlock(&pa->lock);
}

DMAMAP_API int page_count(const struct page *page)
{
	struct dmamap_machine *m = page ? dm_page_machine(page) : NULL;
	int n;

	if (!m)
		return 0;
	pthread_spin_lock(&m->pa.lock);
	n = page->_refcount;
	pthread_spin_unlock(&m->pa.lock);
	return n;
}

DMAMAP_API struct page *alloc_pages(gfp_t gfp, unsigned order)
{
	struct dmamap_machine *m = dmamap_machine_current();

	return m ? dmamap_alloc_pages(m, gfp, order) : NULL;
}

DMAMAP_API struct page *alloc_page(gfp_t gfp)
{
	return alloc_pages(gfp, 0);
}

DMAMAP_API void dmamap_free_pages_at(struct page *page, unsigned order, const char *file, int line)
{
	DM_CALL();

	put_block(page, order, true, "free_pages", file, line);
}

DMAMAP_API void (__free_pages)(struct page *page, unsigned order)
{
	dmamap_free_pages(page, order);
}

DMAMAP_API void (__free_page)(struct page *page)
{
	dmamap_free_pages(page, 0);
}

DMAMAP_API unsigned long __get_free_pages(gfp_t gfp, unsigned order)
{
	struct page *p = alloc_pages(gfp, order);

	return p ? (unsigned long)page_address(p) : 0;
}

DMAMAP_API unsigned long get_zeroed_page(gfp_t gfp)
{
	return __get_free_pages(gfp | __GFP_ZERO, 0);
}

DMAMAP_API void dmamap_free_pages_addr_at(unsigned long addr, unsigned order, const char *file, int line)
{
	DM_CALL();
	struct page *p;

	if (!addr)
		return;
	p = virt_to_page((const void *)addr);
	if (p)
		put_block(p, order, true, "free_pages", file, line);
}

DMAMAP_API void (free_pages)(unsigned long addr, unsigned order)
{
	dmamap_free_pages_addr_at(addr, order, NULL, 0);
}

DMAMAP_API void (free_page)(unsigned long addr)
{
	dmamap_free_pages_addr_at(addr, 0, NULL, 0);
}

/* ------------------------------------------------------------ conversions */

DMAMAP_API void *page_address(const struct page *page)
{
	struct dmamap_machine *m = page ? dm_page_machine(page) : NULL;

	if (!m)
		return NULL;
	return m->lin + ((size_t)dm_page_index(page) << PAGE_SHIFT);
}

DMAMAP_API unsigned long page_to_pfn(const struct page *page)
{
	struct dmamap_machine *m = page ? dm_page_machine(page) : NULL;

	if (!m)
		return 0;
	return m->base_pfn + dm_page_index(page);
}

DMAMAP_API phys_addr_t page_to_phys(const struct page *page)
{
	return (phys_addr_t)page_to_pfn(page) << PAGE_SHIFT;
}

DMAMAP_API bool virt_addr_valid(const volatile void *addr)
{
	return dmamap_registry_lookup(addr) != NULL;
}

/* Report @addr, which no machine's linear map holds, for @what: a vmalloc address says which call serves it. */
static void not_linear(const char *what, const volatile void *addr)
{
	char desc[256];
	struct dmamap_machine *m = dm_vmalloc_describe((const void *)addr, desc, sizeof(desc));

	if (m)
		dmamap_report(m, DMAMAP_REPORT_BAD_ADDRESS, NULL, NULL, 0,
			      "%s(%p): a vmalloc address (%s), not a linear-map one: vmalloc_to_page() gives its page",
			      what, (const void *)addr, desc);
	else
		dmamap_report(NULL, DMAMAP_REPORT_BAD_ADDRESS, NULL, NULL, 0,
			      "%s(%p): not a linear-map address of any machine", what, (const void *)addr);
}

DMAMAP_API phys_addr_t virt_to_phys(const volatile void *addr)
{
	struct dmamap_machine *m = dmamap_registry_lookup(addr);

	if (!m) {
		not_linear("virt_to_phys", addr);
		return ~(phys_addr_t)0;
	}
	return dm_virt_to_phys(m, addr);
}

DMAMAP_API struct page *virt_to_page(const volatile void *addr)
{
	struct dmamap_machine *m = dmamap_registry_lookup(addr);

	if (!m) {
		not_linear("virt_to_page", addr);
		return NULL;
	}
	return dm_page(m, ((uintptr_t)addr - (uintptr_t)m->lin) >> PAGE_SHIFT);
}

DMAMAP_API bool dmamap_pfn_valid(struct dmamap_machine *m, unsigned long pfn)
{
	return m && pfn >= m->base_pfn && pfn - m->base_pfn < m->nr_pages;
}

DMAMAP_API struct page *dmamap_pfn_to_page(struct dmamap_machine *m, unsigned long pfn)
{
	return dmamap_pfn_valid(m, pfn) ? dm_page(m, pfn - m->base_pfn) : NULL;
}

DMAMAP_API struct page *dmamap_phys_to_page(struct dmamap_machine *m, phys_addr_t phys)
{
	return dmamap_pfn_to_page(m, (unsigned long)(phys >> PAGE_SHIFT));
}

DMAMAP_API void *dmamap_phys_to_virt(struct dmamap_machine *m, phys_addr_t phys)
{
	if (!m || !dm_phys_in_ram(m, phys, 1))
		return NULL;
	return dm_phys_to_virt(m, phys);
}

DMAMAP_API struct page *pfn_to_page(unsigned long pfn)
{
	return dmamap_pfn_to_page(dmamap_machine_current(), pfn);
}

DMAMAP_API struct page *phys_to_page(phys_addr_t phys)
{
	return dmamap_phys_to_page(dmamap_machine_current(), phys);
}

DMAMAP_API void *phys_to_virt(phys_addr_t phys)
{
	return dmamap_phys_to_virt(dmamap_machine_current(), phys);
}

DMAMAP_API bool pfn_valid(unsigned long pfn)
{
	return dmamap_pfn_valid(dmamap_machine_current(), pfn);
}

DMAMAP_API void dmamap_page_stats(struct dmamap_machine *m, struct dmamap_page_stats *st)
{
	struct dmamap_page_alloc *pa;

	if (!m || !st)
		return;
	pa = pa_of(m);
	memset(st, 0, sizeof(*st));
	pthread_spin_lock(&pa->lock);
	for (unsigned z = 0; z < DMAMAP_ZONE_NR; z++) {
		st->total_pages[z] = pa->zones[z].end - pa->zones[z].start;
		st->free_pages[z] = pa->zones[z].free_pages;
		for (unsigned o = 0; o < MAX_ORDER; o++)
			st->free_blocks[o] += pa->zones[z].nr_free[o];
	}
	st->allocations = pa->allocations;
	st->frees = pa->frees;
	st->failures = pa->failures;
	st->injected_failures = pa->injected_failures;
	st->refused_frees = pa->refused_frees;
	pthread_spin_unlock(&pa->lock);
}

/* ------------------------------------------------------------- invariants */

/*
 * Free lists of zone @z: linked both ways, each block where its order says,
 * counted right (the blocks not yet seeded are counted, not listed).
 */
static void check_free_lists(struct dmamap_machine *m, struct dm_check *c, unsigned zi)
{
	struct dmamap_page_alloc *pa = pa_of(m);
	struct dmamap_zone_state *z = &pa->zones[zi];
	unsigned long pages = 0;

	for (unsigned o = 0; o < MAX_ORDER; o++) {
		unsigned long n = 0, prev = DM_NO_PAGE;

		for (unsigned long idx = z->free_head[o]; idx != DM_NO_PAGE; idx = pa->pages[idx].dmamap_next) {
			const struct page *p;

			if (idx < z->seed_end || idx >= z->end || n > z->end - z->start) {
				dm_check_fail(c, DMAMAP_CHECK_PAGES, "zone %u order %u free list: %s at page %lu", zi, o,
					      n > z->end - z->start ? "a cycle" : "a page outside the seeded zone", idx);
				break;
			}
			p = &pa->pages[idx];
			if (p->dmamap_prev != prev)
				dm_check_fail(c, DMAMAP_CHECK_PAGES,
					      "zone %u order %u free list: pfn %#lx links back to %#x, not %#lx", zi, o,
					      m->base_pfn + idx, p->dmamap_prev, prev);
			if (!(p->flags & PF(PG_buddy)) || p->dmamap_order != o || (p->flags & (PF(PG_head) | PF(PG_tail))))
				dm_check_fail(c, DMAMAP_CHECK_PAGES,
					      "zone %u order %u free list: pfn %#lx has flags %#lx, order %u", zi, o,
					      m->base_pfn + idx, p->flags, p->dmamap_order);
			if (((m->base_pfn + idx) & ((1UL << o) - 1)) || idx + (1UL << o) > z->end)
				dm_check_fail(c, DMAMAP_CHECK_PAGES,
					      "zone %u order %u free list: block at pfn %#lx is misaligned or runs out of the zone",
					      zi, o, m->base_pfn + idx);
			prev = idx;
			n++;
		}
		if (prev != z->free_tail[o] && !(prev == DM_NO_PAGE && z->free_tail[o] == DM_NO_PAGE))
			dm_check_fail(c, DMAMAP_CHECK_PAGES, "zone %u order %u free list ends at %#lx, its tail says %#x", zi,
				      o, prev, z->free_tail[o]);
		if (n + z->seed_nr[o] != z->nr_free[o])
			dm_check_fail(c, DMAMAP_CHECK_PAGES,
				      "zone %u order %u: %lu free blocks listed and %lu unseeded, %lu counted", zi, o, n,
				      z->seed_nr[o], z->nr_free[o]);
		pages += (n + z->seed_nr[o]) << o;
	}
	if (pages != z->free_pages)
		dm_check_fail(c, DMAMAP_CHECK_PAGES, "zone %u: %lu free pages listed, %lu counted", zi, pages,
			      z->free_pages);
}

void dmamap_page_alloc_check(struct dmamap_machine *m, struct dm_check *c)
{
	struct dmamap_page_alloc *pa = pa_of(m);
	unsigned long allocated = 0, idx = 0;

	pthread_spin_lock(&pa->lock);
	for (unsigned z = 0; z < DMAMAP_ZONE_NR; z++)
		check_free_lists(m, c, z);
	/*
	 * Every page of the seeded part of each zone in exactly one block: free
	 * (buddy) or allocated (head + tails). Struct pages of chunks not yet
	 * set up read as zero: only a block's interior may lie there.
	 */
	while (idx < pa->nr_pages) {
		const struct dmamap_zone_state *z = zone_of(pa, idx);
		const struct page *p;
		unsigned long n;

		if (idx < z->seed_end) {
			idx = z->seed_end; /* the unseeded canonical blocks */
			continue;
		}
		p = &pa->pages[idx];
		if (!(p->flags & (PF(PG_buddy) | PF(PG_head)))) {
			dm_check_fail(c, DMAMAP_CHECK_PAGES, "pfn %#lx is in no block (flags %#lx): lost", m->base_pfn + idx,
				      p->flags);
			idx++;
			continue;
		}
		n = p->dmamap_order < MAX_ORDER ? 1UL << p->dmamap_order : 1;
		if (n > z->end - idx) {
			dm_check_fail(c, DMAMAP_CHECK_PAGES, "block at pfn %#lx (order %u) runs out of its zone",
				      m->base_pfn + idx, p->dmamap_order);
			n = 1;
		}
		if ((p->flags & PF(PG_buddy)) && (p->flags & PF(PG_head)))
			dm_check_fail(c, DMAMAP_CHECK_PAGES, "pfn %#lx is both free and allocated", m->base_pfn + idx);
		if ((p->flags & PF(PG_head)) && p->_refcount <= 0)
			dm_check_fail(c, DMAMAP_CHECK_PAGES, "allocated block at pfn %#lx has no reference",
				      m->base_pfn + idx);
		if (p->flags & PF(PG_head))
			allocated += n;
		for (unsigned long i = 1; i < n; i++) {
			unsigned long want = (p->flags & PF(PG_head)) ? PF(PG_tail) : 0;
			unsigned long got = pa->pages[idx + i].flags & (PF(PG_buddy) | PF(PG_head) | PF(PG_tail));

			if (got != want) {
				dm_check_fail(c, DMAMAP_CHECK_PAGES, "pfn %#lx inside the %s block at pfn %#lx has flags %#lx",
					      m->base_pfn + idx + i, want ? "allocated" : "free", m->base_pfn + idx,
					      pa->pages[idx + i].flags);
				break;
			}
		}
		idx += n;
	}
	if (allocated != pa->allocated_pages)
		dm_check_fail(c, DMAMAP_CHECK_PAGES, "%lu pages in allocated blocks, %lu counted", allocated,
			      pa->allocated_pages);
	if (allocated + pa->zones[0].free_pages + pa->zones[1].free_pages != pa->nr_pages)
		dm_check_fail(c, DMAMAP_CHECK_PAGES, "%lu allocated + %lu free pages of %lu", allocated,
			      pa->zones[0].free_pages + pa->zones[1].free_pages, pa->nr_pages);
	pthread_spin_unlock(&pa->lock);
}

unsigned long dmamap_page_alloc_allocated(struct dmamap_machine *m)
{
	unsigned long n;

	pthread_spin_lock(&m->pa.lock);
	n = m->pa.allocated_pages;
	pthread_spin_unlock(&m->pa.lock);
	return n;
}
