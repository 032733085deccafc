/* SPDX-License-Identifier: MIT */
/*
 * The bitmap IOVA allocator: the address-space allocator of an IOMMU mapping
 * (what arm_iommu_create_mapping(), __alloc_iova() and __free_iova() meant to
 * be), usable on its own.
 *
 * The space [base, base + size) is cut into granules of PAGE_SIZE << order
 * bytes, one bit per granule in two bitmaps:
 *   used   the granule belongs to a live allocation
 *   head   the granule is the first of a live allocation
 * An allocation is a run of used granules starting at a head bit and ending
 * before the next head bit or the next free granule, so the two bitmaps alone
 * tell every allocation's exact boundaries: a free is accepted only when it
 * names one of them exactly.
 *
 * Placement is first fit from the lowest granule, the start aligned (relative
 * to base) to the allocation's own order in granules, capped at
 * max_align_order pages. Scans go a 64-bit word at a time.
 *
 * One mutex per allocator guards everything; reports and log messages are
 * emitted after it is released.
 */
#include <limits.h>
#include <stdlib.h>

#include "internal.h"

#define BITS_PER_WORD 64u
#define NOT_FOUND ULONG_MAX

struct dmamap_iova {
	pthread_mutex_t lock;
	dma_addr_t base;
	size_t size;
	unsigned order;                /* granule order (pages) */
	unsigned gshift;               /* PAGE_SHIFT + order: log2 of the granule in bytes */
	unsigned max_align_order;      /* alignment cap, in pages (log2) */
	unsigned long bits;            /* granules in the space */
	unsigned long nwords;          /* 64-bit words per bitmap */
	u64 *used;                     /* 1: granule allocated */
	u64 *head;                     /* 1: first granule of an allocation */
	unsigned long used_granules;
	unsigned long allocations;
	unsigned long failures;
	unsigned long refused_frees;
};

/* ------------------------------------------------------------ bitmaps */

static inline bool bit_test(const u64 *map, unsigned long i)
{
	return (map[i / BITS_PER_WORD] >> (i % BITS_PER_WORD)) & 1u;
}

/*
 * The first index in [from, end) whose bit, xor-ed with @flip (0: look for a
 * set bit, ~0: look for a clear bit), is 1; @end if none. Bits beyond the
 * space in the last word are always clear, so a search for a clear bit must
 * not pass the space's end: callers give end <= bits.
 */
static unsigned long find_next(const u64 *map, unsigned long from, unsigned long end, u64 flip)
{
	unsigned long w, last;
	u64 word;

	if (from >= end)
		return end;
	w = from / BITS_PER_WORD;
	last = (end - 1) / BITS_PER_WORD;
	word = (map[w] ^ flip) & (~0ULL << (from % BITS_PER_WORD));
	for (;;) {
		if (word) {
			unsigned long i = w * BITS_PER_WORD + (unsigned long)__builtin_ctzll(word);
			return i < end ? i : end;
		}
		if (++w > last)
			return end;
		word = map[w] ^ flip;
	}
}

static inline unsigned long find_next_set(const u64 *map, unsigned long from, unsigned long end)
{
	return find_next(map, from, end, 0);
}

static inline unsigned long find_next_clear(const u64 *map, unsigned long from, unsigned long end)
{
	return find_next(map, from, end, ~0ULL);
}

/* Set (@set) or clear bits [start, start + count), count > 0. */
static void bits_assign(u64 *map, unsigned long start, unsigned long count, bool set)
{
	unsigned long end = start + count;
	unsigned long w = start / BITS_PER_WORD, last = (end - 1) / BITS_PER_WORD;
	u64 first_mask = ~0ULL << (start % BITS_PER_WORD);
	u64 last_mask = ~0ULL >> (BITS_PER_WORD - 1 - (end - 1) % BITS_PER_WORD);

	if (w == last) {
		u64 m = first_mask & last_mask;
		map[w] = set ? map[w] | m : map[w] & ~m;
		return;
	}
	map[w] = set ? map[w] | first_mask : map[w] & ~first_mask;
	for (w++; w < last; w++)
		map[w] = set ? ~0ULL : 0;
	map[last] = set ? map[last] | last_mask : map[last] & ~last_mask;
}

/*
 * The lowest index i, a multiple of @align (a power of two), such that bits
 * [i, i + count) of @map are all clear and i + count <= @nbits; NOT_FOUND if
 * none. count > 0.
 */
static unsigned long find_free_run(const u64 *map, unsigned long nbits, unsigned long count, unsigned long align)
{
	unsigned long start = 0, busy;

	if (count > nbits)
		return NOT_FOUND;
	for (;;) {
		start = find_next_clear(map, start, nbits);
		/* start < nbits <= 2^52 and align <= 2^30: no overflow */
		start = DM_ALIGN_UP(start, align);
		if (start >= nbits || count > nbits - start)
			return NOT_FOUND;
		busy = find_next_set(map, start, start + count);
		if (busy == start + count)
			return start;
		start = busy + 1;
	}
}

/* ------------------------------------------------------------ helpers */

/* Granules needed for @size bytes: ceil(size / granule), without overflow. */
static inline unsigned long granules_for(const struct dmamap_iova *a, size_t size)
{
	u64 gmask = ((u64)1 << a->gshift) - 1;

	return (unsigned long)(((u64)size >> a->gshift) + (((u64)size & gmask) != 0));
}

/* log2 of the alignment, in granules, of an allocation of @size bytes (non-zero). */
static unsigned align_order_for(const struct dmamap_iova *a, size_t size)
{
	unsigned o = (unsigned)get_order(size);

	if (o > a->max_align_order)
		o = a->max_align_order;
	return o > a->order ? o - a->order : 0;
}

/*
 * Length in granules of the allocation whose head is granule @first: up to
 * the next free granule or the next head, whichever comes first.
 */
static unsigned long allocation_length(const struct dmamap_iova *a, unsigned long first)
{
	unsigned long end = find_next_clear(a->used, first + 1, a->bits);

	end = find_next_set(a->head, first + 1, end);
	return end - first;
}

/* ------------------------------------------------------------ public API */

DMAMAP_API struct dmamap_iova *dmamap_iova_create(dma_addr_t base, size_t size, unsigned order)
{
	struct dmamap_iova *a;
	unsigned long bits, nwords;
	u64 granule, gmask;
	u64 *maps;

	if (order > 20 || size == 0) {
		errno = EINVAL;
		return NULL;
	}
	granule = (u64)PAGE_SIZE << order;
	gmask = granule - 1;
	if ((base & gmask) || ((u64)size & gmask) || (u64)size - 1 > UINT64_MAX - base) {
		errno = EINVAL;
		return NULL;
	}
#if SIZE_MAX > ULONG_MAX
	if ((u64)size / granule > ULONG_MAX) {
		errno = EINVAL;
		return NULL;
	}
#endif
	bits = (unsigned long)((u64)size / granule);
	nwords = bits / BITS_PER_WORD + (bits % BITS_PER_WORD != 0);

	a = calloc(1, sizeof(*a));
	if (!a) {
		errno = ENOMEM;
		return NULL;
	}
	/* Both bitmaps in one block: used words then head words. */
	maps = nwords <= SIZE_MAX / 2 / sizeof(u64) ? calloc(2 * (size_t)nwords, sizeof(u64)) : NULL;
	if (!maps) {
		free(a);
		errno = ENOMEM;
		return NULL;
	}
	if (pthread_mutex_init(&a->lock, NULL)) {
		free(maps);
		free(a);
		errno = ENOMEM;
		return NULL;
	}
	a->base = base;
	a->size = size;
	a->order = order;
	a->gshift = PAGE_SHIFT + order;
	a->max_align_order = DMAMAP_IOVA_DEFAULT_MAX_ALIGN_ORDER;
	a->bits = bits;
	a->nwords = nwords;
	a->used = maps;
	a->head = maps + nwords;
	return a;
}

DMAMAP_API void dmamap_iova_destroy(struct dmamap_iova *a)
{
	if (!a)
		return;
	/* The caller owns @a: nobody else may be using it now. */
	if (a->allocations)
		dmamap_report(NULL, DMAMAP_REPORT_LEAK, NULL, NULL, 0,
			      "iova space %#llx+%#zx destroyed with %lu allocation%s (%lu granule%s) outstanding",
			      (unsigned long long)a->base, a->size, a->allocations, a->allocations == 1 ? "" : "s",
			      a->used_granules, a->used_granules == 1 ? "" : "s");
	pthread_mutex_destroy(&a->lock);
	free(a->used);
	free(a);
}

DMAMAP_API dma_addr_t dmamap_iova_alloc(struct dmamap_iova *a, size_t size)
{
	unsigned long count, first;

	if (!a || size == 0)
		return DMA_MAPPING_ERROR;
	count = granules_for(a, size);

	pthread_mutex_lock(&a->lock);
	first = find_free_run(a->used, a->bits, count, 1UL << align_order_for(a, size));
	if (first == NOT_FOUND) {
		/* Not a misuse: the caller sees the error and the stats count it. */
		a->failures++;
		pthread_mutex_unlock(&a->lock);
		return DMA_MAPPING_ERROR;
	}
	bits_assign(a->used, first, count, true);
	bits_assign(a->head, first, 1, true);
	a->used_granules += count;
	a->allocations++;
	pthread_mutex_unlock(&a->lock);

	return a->base + ((dma_addr_t)first << a->gshift);
}

/*
 * Why [addr, addr + size) is not exactly one live allocation, or NULL when it
 * is. first and count receive its granules, len the length of the allocation
 * found at addr (0 if none). Lock held.
 */
static const char *free_refusal(const struct dmamap_iova *a, dma_addr_t addr, size_t size, unsigned long *first,
				unsigned long *count, unsigned long *len)
{
	u64 off = addr - a->base;

	*count = granules_for(a, size);
	*first = (unsigned long)(off >> a->gshift);
	*len = 0;
	if (addr < a->base || off >= (u64)a->size)
		return "outside the space";
	if (off & (((u64)1 << a->gshift) - 1))
		return "not granule aligned";
	if (*count == 0)
		return "zero size";
	if (!bit_test(a->head, *first))
		return bit_test(a->used, *first) ? "inside an allocation, not at its start" : "not allocated";
	if ((*len = allocation_length(a, *first)) != *count)
		return "size does not match the allocation";
	return NULL;
}

bool dmamap_iova_owns(struct dmamap_iova *a, dma_addr_t addr, size_t size)
{
	unsigned long first, count, len;
	const char *why;

	pthread_mutex_lock(&a->lock);
	why = free_refusal(a, addr, size, &first, &count, &len);
	pthread_mutex_unlock(&a->lock);
	return why == NULL;
}

DMAMAP_API void dmamap_iova_free(struct dmamap_iova *a, dma_addr_t addr, size_t size)
{
	unsigned long first, count, len = 0;
	const char *why = NULL;

	if (!a) {
		dmamap_report(NULL, DMAMAP_REPORT_IOVA_MISUSE, NULL, NULL, 0,
			      "iova free of %#llx+%#zx on a NULL allocator", (unsigned long long)addr, size);
		return;
	}

	pthread_mutex_lock(&a->lock);
	why = free_refusal(a, addr, size, &first, &count, &len);
	if (why) {
		a->refused_frees++;
		pthread_mutex_unlock(&a->lock);
		if (len)
			dmamap_report(NULL, DMAMAP_REPORT_IOVA_MISUSE, NULL, NULL, 0,
				      "iova free of %#llx+%#zx refused: %s (it has %lu granule%s, the free names %lu)",
				      (unsigned long long)addr, size, why, len, len == 1 ? "" : "s", count);
		else
			dmamap_report(NULL, DMAMAP_REPORT_IOVA_MISUSE, NULL, NULL, 0,
				      "iova free of %#llx+%#zx refused: %s (space %#llx+%#zx)",
				      (unsigned long long)addr, size, why, (unsigned long long)a->base, a->size);
		return;
	}

	bits_assign(a->used, first, count, false);
	bits_assign(a->head, first, 1, false);
	a->used_granules -= count;
	a->allocations--;
	pthread_mutex_unlock(&a->lock);
}

DMAMAP_API int dmamap_iova_set_max_align(struct dmamap_iova *a, unsigned order)
{
	if (!a || order > 30)
		return -EINVAL;
	pthread_mutex_lock(&a->lock);
	a->max_align_order = order;
	pthread_mutex_unlock(&a->lock);
	return 0;
}

DMAMAP_API void dmamap_iova_stats(struct dmamap_iova *a, struct dmamap_iova_stats *st)
{
	if (!st)
		return;
	memset(st, 0, sizeof(*st));
	if (!a)
		return;
	pthread_mutex_lock(&a->lock);
	st->base = a->base;
	st->size = a->size;
	st->order = a->order;
	st->granules = a->bits;
	st->used_granules = a->used_granules;
	st->allocations = a->allocations;
	st->failures = a->failures;
	st->refused_frees = a->refused_frees;
	st->metadata_bytes = sizeof(*a) + 2 * a->nwords * sizeof(u64);
	pthread_mutex_unlock(&a->lock);
}

DMAMAP_API bool dmamap_iova_is_allocated(struct dmamap_iova *a, dma_addr_t addr)
{
	bool ret;

	if (!a || addr < a->base || addr - a->base >= (u64)a->size)
		return false;
	pthread_mutex_lock(&a->lock);
	ret = bit_test(a->used, (unsigned long)((addr - a->base) >> a->gshift));
	pthread_mutex_unlock(&a->lock);
	return ret;
}
