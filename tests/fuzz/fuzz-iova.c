/* SPDX-License-Identifier: MIT */
/*
 * Differential fuzzer of the IOVA allocator against a byte-per-granule model.
 *
 * The input picks a space (base, possibly at the very top of the 64-bit bus
 * space; granule order; size, often beyond the bitmaps' first extent so that
 * they grow) and a sequence of calls: allocations of any size (SIZE_MAX
 * included), exact frees with any size that rounds to the allocation's
 * granules, frees with the wrong size, inside an allocation, unaligned, out of
 * the space, twice; alignment caps, legal and not; lookups; failed growths;
 * per-thread caches turned on and off (dmamap_iova_set_cache(), refused when
 * the bitmaps cannot grow to the whole space).
 * The model holds one byte per granule (free, first of an allocation, inside
 * one, and the same two for a range held in the cache) and places by the
 * header's rule: first fit from the lowest granule, aligned relative to base
 * to the allocation's own order, capped. With caches on it follows the
 * header's cache rules: a free of up to 32 granules, aligned under today's
 * cap, goes into the cache (16 ranges per size, the older half back to the
 * bitmaps when full) and stays occupied; an allocation of a cached size takes
 * the newest such range; otherwise first fit modulo cached ranges, and before
 * failing the cache is emptied and the search runs again; a cap change and
 * turning caches off empty it. After every call both sides must agree: the
 * same address or the same failure, the same refusal, the same counts (cached
 * ranges included), the same answer to every lookup; every address given is
 * inside the space, aligned, on granules nobody else holds.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "internal.h"

#define MAX_GRANULES (1UL << 17)
#define MAX_LIVE 512
#define CACHE_SIZES 32 /* sizes cached, in granules: 1 .. 32 */
#define CACHE_SLOTS 16 /* ranges per size */

/* CHEAD, CBODY: a range freed into the cache, still occupied */
enum { FREE = 0, HEAD = 1, BODY = 2, CHEAD = 3, CBODY = 4 };

struct model {
	dma_addr_t base;
	unsigned order, gshift, max_align;
	unsigned long bits, ext; /* ext: granules the allocator's bitmaps cover */
	u8 *g;
	unsigned long used, allocations, failures, refused;
	unsigned long fail_pending;  /* growths dmamap_iova_fail_next_grows() still fails */
	unsigned long grow_failures; /* as the stats said last */
	bool caching;
	unsigned long cached, cached_granules;
	unsigned ncached[CACHE_SIZES];                /* [count - 1]: ranges cached */
	unsigned long bin[CACHE_SIZES][CACHE_SLOTS]; /* [count - 1]: their first granules, oldest first */
};

struct live {
	dma_addr_t addr;
	unsigned long count;
	size_t size;
};

static unsigned ceil_log2_ul(unsigned long x)
{
	return x <= 1 ? 0 : (unsigned)(64 - __builtin_clzl(x - 1));
}

static unsigned long count_for(const struct model *m, size_t size)
{
	return (unsigned long)(((u64)size >> m->gshift) + (((u64)size & (((u64)1 << m->gshift) - 1)) != 0));
}

/* log2 of the alignment, in granules, of an allocation of @size bytes (non-zero) under today's cap. */
static unsigned align_of(const struct model *m, size_t size)
{
	unsigned o = (unsigned)get_order(size);

	if (o > m->max_align)
		o = m->max_align;
	return o > m->order ? o - m->order : 0;
}

/* First granule of the fit (cached ranges occupied), or bits when there is none. */
static unsigned long model_fit(const struct model *m, size_t size, unsigned long count)
{
	unsigned lg = align_of(m, size), al;

	al = ceil_log2_ul(count);
	if (lg < al)
		al = lg;
	if (count > m->bits)
		return m->bits;
	for (unsigned long i = 0; i + count <= m->bits;) {
		unsigned long j = count;

		while (j > 0 && m->g[i + j - 1] == FREE) /* from the end: a busy granule moves past itself */
			j--;
		if (j == 0)
			return i;
		i = (i + j + (1UL << al) - 1) & ~((1UL << al) - 1);
	}
	return m->bits;
}

/* Whether [addr, addr + size) is exactly one live allocation of the model. */
static bool model_exact(const struct model *m, dma_addr_t addr, size_t size, unsigned long *first)
{
	u64 off = addr - m->base;
	unsigned long count = count_for(m, size), i;

	if (addr < m->base || off >> m->gshift >= m->bits || (off & (((u64)1 << m->gshift) - 1)) || !count)
		return false;
	i = (unsigned long)(off >> m->gshift);
	if (m->g[i] != HEAD || count > m->bits - i)
		return false;
	for (unsigned long j = 1; j < count; j++)
		if (m->g[i + j] != BODY)
			return false;
	if (i + count < m->bits && m->g[i + count] == BODY)
		return false;
	*first = i;
	return true;
}

/* A cached range goes back to the bitmaps: free. */
static void cache_drop(struct model *m, unsigned long first, unsigned long count)
{
	FUZZ_CHECK(m->g[first] == CHEAD, "model: granule %lu is not a cached range", first);
	memset(m->g + first, FREE, count);
	m->cached--;
	m->cached_granules -= count;
}

/* The allocator empties the cache. */
static void cache_flush(struct model *m)
{
	for (unsigned k = 0; k < CACHE_SIZES; k++) {
		for (unsigned i = 0; i < m->ncached[k]; i++)
			cache_drop(m, m->bin[k][i], k + 1);
		m->ncached[k] = 0;
	}
	FUZZ_CHECK(m->cached == 0 && m->cached_granules == 0, "model: %lu ranges left after a flush", m->cached);
}

/* A freed live range goes into the cache; the older half of a full bin goes back to the bitmaps. */
static void cache_put(struct model *m, unsigned long first, unsigned long count)
{
	unsigned long *bin = m->bin[count - 1];
	unsigned *n = &m->ncached[count - 1];

	if (*n == CACHE_SLOTS) {
		for (unsigned i = 0; i < CACHE_SLOTS / 2; i++)
			cache_drop(m, bin[i], count);
		memmove(bin, bin + CACHE_SLOTS / 2, (CACHE_SLOTS - CACHE_SLOTS / 2) * sizeof(*bin));
		*n = CACHE_SLOTS - CACHE_SLOTS / 2;
	}
	bin[(*n)++] = first;
	m->g[first] = CHEAD;
	memset(m->g + first + 1, CBODY, count - 1);
	m->cached++;
	m->cached_granules += count;
}

static void compare_stats(struct dmamap_iova *a, struct model *m)
{
	struct dmamap_iova_stats st;

	dmamap_iova_stats(a, &st);
	FUZZ_CHECK(st.cached == m->cached, "cached ranges %lu, model %lu", st.cached, m->cached);
	FUZZ_CHECK(st.cached_granules == m->cached_granules, "cached granules %lu, model %lu", st.cached_granules,
		   m->cached_granules);
	FUZZ_CHECK(!m->caching || st.tracked_granules == m->bits, "caches on with %lu of %lu granules tracked",
		   st.tracked_granules, m->bits);
	/* growths fail only when told to (the harness's host memory does not run out) */
	FUZZ_CHECK(st.grow_failures >= m->grow_failures && st.grow_failures - m->grow_failures <= m->fail_pending,
		   "grow failures %lu, were %lu with %lu to fail", st.grow_failures, m->grow_failures, m->fail_pending);
	m->fail_pending -= st.grow_failures - m->grow_failures;
	m->grow_failures = st.grow_failures;
	FUZZ_CHECK(st.used_granules == m->used, "used granules %lu, model %lu", st.used_granules, m->used);
	FUZZ_CHECK(st.allocations == m->allocations, "allocations %lu, model %lu", st.allocations, m->allocations);
	FUZZ_CHECK(st.failures == m->failures, "failures %lu, model %lu", st.failures, m->failures);
	FUZZ_CHECK(st.refused_frees == m->refused, "refused frees %lu, model %lu", st.refused_frees, m->refused);
	FUZZ_CHECK(st.granules == m->bits, "granules %lu, model %lu", st.granules, m->bits);
	FUZZ_CHECK(st.tracked_granules >= m->ext && st.tracked_granules <= m->bits, "tracked %lu", st.tracked_granules);
	m->ext = st.tracked_granules;
}

static size_t pick_size(struct fuzz_input *in, const struct model *m)
{
	u64 granule = (u64)1 << m->gshift;

	switch (fuzz_u8(in) % 8) {
	case 0:
		return SIZE_MAX - fuzz_u16(in);
	case 1: /* more than the space */
		return (size_t)(m->bits * granule + fuzz_u8(in));
	case 2: /* anything up to a few granules */
		return 1 + fuzz_u16(in) % (4 * granule);
	case 3:
		return 0;
	default: { /* a number of granules, biased small, give or take a few bytes */
		unsigned long n = 1 + (fuzz_u8(in) % 4 == 0 ? fuzz_u32(in) % (m->bits + 1) : fuzz_u8(in) % 40);
		size_t sz = (size_t)(n * granule);

		return fuzz_bool(in) ? sz - fuzz_u8(in) % granule : sz;
	}
	}
}

static void do_alloc(struct dmamap_iova *a, struct model *m, struct live *lv, unsigned *nlive, size_t size)
{
	unsigned long count = size ? count_for(m, size) : 0, fit = m->bits, first;
	struct dmamap_iova_stats before;
	bool hit = false;
	dma_addr_t got;

	if (size && m->caching && count <= CACHE_SIZES && m->ncached[count - 1]) {
		/* the newest cached range of that size */
		fit = m->bin[count - 1][m->ncached[count - 1] - 1];
		hit = true;
	} else if (size) {
		fit = model_fit(m, size, count);
		if (fit == m->bits && m->caching) {
			/* before failing, the allocator empties the caches and searches again */
			cache_flush(m);
			fit = model_fit(m, size, count);
		}
	}
	dmamap_iova_stats(a, &before);
	got = dmamap_iova_alloc(a, size);
	if (got == DMA_MAPPING_ERROR) {
		struct dmamap_iova_stats after;

		dmamap_iova_stats(a, &after);
		if (size)
			m->failures++;
		if (fit < m->bits) {
			FUZZ_CHECK(!m->caching, "alloc %#zx failed with caches on; the model (cache empty) fits it at %lu",
				   size, fit);
			/* only a growth that host memory refused may hide a fit, and only one past the extent */
			FUZZ_CHECK(after.grow_failures > before.grow_failures,
				   "alloc %#zx failed; the model fits it at granule %lu", size, fit);
			FUZZ_CHECK(fit + count > before.tracked_granules, "alloc %#zx failed inside the extent (fit %lu)",
				   size, fit);
		}
		return;
	}
	FUZZ_CHECK(size != 0, "zero-size allocation succeeded");
	/* inside the space, aligned, on granules that are free or a cached range of this size coming back */
	FUZZ_CHECK(got >= m->base && (got - m->base) >> m->gshift < m->bits &&
			   !((got - m->base) & (((u64)1 << m->gshift) - 1)),
		   "alloc %#zx gave %#llx, not a granule of the space", size, (unsigned long long)got);
	first = (unsigned long)((got - m->base) >> m->gshift);
	FUZZ_CHECK(count <= m->bits - first, "alloc %#zx gave %#llx, running past the space", size,
		   (unsigned long long)got);
	FUZZ_CHECK(!(first & ((1UL << align_of(m, size)) - 1)), "alloc %#zx gave %#llx, not aligned to 2^%u granules",
		   size, (unsigned long long)got, align_of(m, size));
	for (unsigned long j = 0; j < count; j++) {
		u8 want = m->caching && m->g[first] == CHEAD ? (j ? CBODY : CHEAD) : FREE;

		FUZZ_CHECK(m->g[first + j] == want, "alloc %#zx gave %#llx; granule %lu is held (%u)", size,
			   (unsigned long long)got, first + j, m->g[first + j]);
	}
	FUZZ_CHECK(first + count == m->bits || m->g[first + count] != CBODY,
		   "alloc %#zx gave %#llx, part of a larger cached range", size, (unsigned long long)got);
	FUZZ_CHECK(fit < m->bits, "alloc %#zx gave %#llx; the model has no fit", size, (unsigned long long)got);
	FUZZ_CHECK(got == m->base + ((dma_addr_t)fit << m->gshift), "alloc %#zx gave %#llx; model %#llx%s", size,
		   (unsigned long long)got, (unsigned long long)(m->base + ((dma_addr_t)fit << m->gshift)),
		   hit ? " (a cache hit)" : "");
	if (hit) {
		m->ncached[count - 1]--;
		m->cached--;
		m->cached_granules -= count;
	}
	m->g[fit] = HEAD;
	memset(m->g + fit + 1, BODY, count - 1);
	m->used += count;
	m->allocations++;
	if (*nlive < MAX_LIVE)
		lv[(*nlive)++] = (struct live){ got, count, size };
	else
		lv[fit % MAX_LIVE] = (struct live){ got, count, size }; /* forgotten: freed at the end by the model */
}

static void do_free(struct dmamap_iova *a, struct model *m, dma_addr_t addr, size_t size)
{
	unsigned long first, count;
	bool ok = model_exact(m, addr, size, &first);

	dmamap_iova_free(a, addr, size);
	if (!ok) {
		m->refused++;
		return;
	}
	first = (unsigned long)((addr - m->base) >> m->gshift);
	count = count_for(m, size);
	m->used -= count;
	m->allocations--;
	/* into the cache when small enough and placed as today's cap would place it */
	if (m->caching && count <= CACHE_SIZES && !(first & ((1UL << align_of(m, size)) - 1)))
		cache_put(m, first, count);
	else
		memset(m->g + first, FREE, count);
}

/* Caches on or off; on is refused, nothing else changing, when the bitmaps must grow and growth fails. */
static void set_cache(struct dmamap_iova *a, struct model *m, bool on)
{
	struct dmamap_iova_stats before, after;
	int want = on && m->ext < m->bits && m->fail_pending ? -ENOMEM : 0, r;

	dmamap_iova_stats(a, &before);
	r = dmamap_iova_set_cache(a, on);
	FUZZ_CHECK(r == want, "set_cache(%d) = %d, model %d (%lu of %lu granules tracked, %lu growths to fail)", on, r,
		   want, m->ext, m->bits, m->fail_pending);
	dmamap_iova_stats(a, &after);
	if (r) {
		FUZZ_CHECK(after.grow_failures == before.grow_failures + 1, "refused set_cache: grow failures %lu, were %lu",
			   after.grow_failures, before.grow_failures);
		FUZZ_CHECK(after.tracked_granules == before.tracked_granules &&
				   after.metadata_bytes == before.metadata_bytes && after.grows == before.grows,
			   "refused set_cache changed the bitmaps");
	} else {
		if (!on)
			cache_flush(m);
		m->caching = on;
	}
	compare_stats(a, m);
	FUZZ_CHECK(dmamap_iova_check_summaries(a) == 0, "summaries differ from the bitmaps after set_cache(%d)", on);
}

static dma_addr_t pick_addr(struct fuzz_input *in, const struct model *m, const struct live *lv, unsigned nlive)
{
	u64 granule = (u64)1 << m->gshift;

	switch (fuzz_u8(in) % 6) {
	case 0:
		return m->base + (dma_addr_t)(fuzz_u32(in) % (m->bits + 2)) * granule; /* the end and past it */
	case 1:
		return m->base - granule * (1 + fuzz_u8(in) % 2);
	case 2:
		return nlive ? lv[fuzz_u16(in) % nlive].addr + fuzz_u16(in) % (2 * granule) : m->base;
	case 3:
		return m->base + (dma_addr_t)m->bits * granule - granule; /* the last granule */
	case 4:
		return (dma_addr_t)fuzz_u64(in);
	default:
		return nlive ? lv[fuzz_u16(in) % nlive].addr + granule : m->base + granule;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct fuzz_input in = { data, len };
	struct model m = { 0 };
	struct live *lv;
	unsigned nlive = 0;
	struct dmamap_iova *a;
	u64 granule, span;

	fuzz_quiet();
	m.order = fuzz_u8(&in) % 4;
	m.gshift = PAGE_SHIFT + m.order;
	granule = (u64)1 << m.gshift;
	switch (fuzz_u8(&in) % 4) {
	case 0:
		m.bits = 1 + fuzz_u8(&in);
		break;
	case 1:
		m.bits = 65536 + 1 + fuzz_u16(&in) % 65536; /* past the first extent: the bitmaps grow */
		break;
	default:
		m.bits = 1 + fuzz_u16(&in) % 8192;
	}
	span = m.bits * granule;
	m.base = fuzz_bool(&in) ? (dma_addr_t)(0 - span) : (dma_addr_t)fuzz_u16(&in) * granule; /* top of the space */
	m.max_align = DMAMAP_IOVA_DEFAULT_MAX_ALIGN_ORDER;
	a = dmamap_iova_create(m.base, (size_t)span, m.order);
	if (!a)
		return 0;
	m.g = calloc(m.bits, 1);
	lv = calloc(MAX_LIVE, sizeof(*lv));
	if (!m.g || !lv)
		abort();
	compare_stats(a, &m);

	for (unsigned step = 0; step < 400 && in.len; step++) {
		unsigned b = fuzz_u8(&in), op = b >= 248 ? 12 : b % 12;

		switch (op) {
		case 0: case 1: case 2: case 3:
			do_alloc(a, &m, lv, &nlive, pick_size(&in, &m));
			break;
		case 4: case 5: { /* an exact free, with any size of the same granules */
			unsigned i;
			struct live l;
			size_t sz;

			if (!nlive)
				break;
			i = fuzz_u16(&in) % nlive;
			l = lv[i];
			sz = (size_t)(l.count * granule) - fuzz_u16(&in) % granule;
			if (fuzz_bool(&in))
				lv[i] = lv[--nlive]; /* else: freed again later, a double free */
			do_free(a, &m, l.addr, sz);
			break;
		}
		case 6: { /* the wrong size */
			struct live l;

			if (!nlive)
				break;
			l = lv[fuzz_u16(&in) % nlive];
			do_free(a, &m, l.addr, fuzz_bool(&in) ? (size_t)((l.count + 1) * granule) : (size_t)((l.count - 1) * granule));
			break;
		}
		case 7: case 8:
			do_free(a, &m, pick_addr(&in, &m, lv, nlive), pick_size(&in, &m));
			break;
		case 9: {
			unsigned o = fuzz_u8(&in) % 34;
			int r = dmamap_iova_set_max_align(a, o);

			FUZZ_CHECK(r == (o > 30 ? -EINVAL : 0), "set_max_align(%u) = %d", o, r);
			if (!r)
				m.max_align = o;
			/* cached ranges were placed under the old cap */
			if (!r && m.caching)
				cache_flush(&m);
			break;
		}
		case 10: {
			dma_addr_t addr = pick_addr(&in, &m, lv, nlive);
			u64 off = addr - m.base;
			bool want = addr >= m.base && off >> m.gshift < m.bits &&
				    (m.g[off >> m.gshift] == HEAD || m.g[off >> m.gshift] == BODY);

			FUZZ_CHECK(dmamap_iova_is_allocated(a, addr) == want, "is_allocated(%#llx) != %d",
				   (unsigned long long)addr, want);
			break;
		}
		case 11:
			m.fail_pending = fuzz_u8(&in) % 3;
			dmamap_iova_fail_next_grows(a, m.fail_pending);
			break;
		default:
			set_cache(a, &m, b & 1);
			break;
		}
		compare_stats(a, &m);
	}

	/* every granule agrees; then the model frees what is left, and the space is empty */
	for (unsigned long i = 0; i < m.bits; i += 1 + i / 64)
		FUZZ_CHECK(dmamap_iova_is_allocated(a, m.base + ((dma_addr_t)i << m.gshift)) ==
				   (m.g[i] == HEAD || m.g[i] == BODY),
			   "granule %lu: allocator and model disagree", i);
	dmamap_iova_fail_next_grows(a, 0);
	m.fail_pending = 0;
	for (unsigned long i = 0; i < m.bits; i++) {
		unsigned long n = 1;

		if (m.g[i] != HEAD)
			continue;
		while (i + n < m.bits && m.g[i + n] == BODY)
			n++;
		do_free(a, &m, m.base + ((dma_addr_t)i << m.gshift), (size_t)(n * granule));
	}
	compare_stats(a, &m);
	FUZZ_CHECK(m.used == 0 && m.allocations == 0, "the model still holds %lu granules", m.used);
	FUZZ_CHECK(dmamap_iova_check_summaries(a) == 0, "summaries differ from the bitmaps");
	/* the cache goes back to the bitmaps: nothing occupied any more */
	set_cache(a, &m, false);
	for (unsigned long i = 0; i < m.bits; i++)
		FUZZ_CHECK(m.g[i] == FREE, "model: granule %lu still held", i);
	for (unsigned long i = 0; i < m.bits; i += 1 + i / 64)
		FUZZ_CHECK(!dmamap_iova_is_allocated(a, m.base + ((dma_addr_t)i << m.gshift)), "granule %lu allocated", i);
	dmamap_iova_destroy(a);
	free(m.g);
	free(lv);
	return 0;
}
