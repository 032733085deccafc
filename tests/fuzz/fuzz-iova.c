/* SPDX-License-Identifier: MIT */
/*
 * Differential fuzzer of the IOVA allocator against a byte-per-granule model.
 *
 * The input picks a space (base, possibly at the very top of the 64-bit bus
 * space; granule order; size, often beyond the bitmaps' first extent so that
 * they grow) and a sequence of calls: allocations of any size (SIZE_MAX
 * included), exact frees with any size that rounds to the allocation's
 * granules, frees with the wrong size, inside an allocation, unaligned, out of
 * the space, twice; alignment caps, legal and not; lookups; failed growths.
 * The model holds one byte per granule (free, first of an allocation, inside
 * one) and places by the header's rule: first fit from the lowest granule,
 * aligned relative to base to the allocation's own order, capped. After every
 * call both sides must agree: the same address or the same failure, the same
 * refusal, the same counts, the same answer to every lookup.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "internal.h"

#define MAX_GRANULES (1UL << 17)
#define MAX_LIVE 512

enum { FREE = 0, HEAD = 1, BODY = 2 };

struct model {
	dma_addr_t base;
	unsigned order, gshift, max_align;
	unsigned long bits, ext; /* ext: granules the allocator's bitmaps cover */
	u8 *g;
	unsigned long used, allocations, failures, refused;
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

/* First granule of the fit, or bits when there is none. */
static unsigned long model_fit(const struct model *m, size_t size, unsigned long count)
{
	unsigned o = (unsigned)get_order(size), lg, al;

	if (o > m->max_align)
		o = m->max_align;
	lg = o > m->order ? o - m->order : 0;
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

static void compare_stats(struct dmamap_iova *a, struct model *m)
{
	struct dmamap_iova_stats st;

	dmamap_iova_stats(a, &st);
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
	unsigned long count = size ? count_for(m, size) : 0, fit = size ? model_fit(m, size, count) : m->bits;
	struct dmamap_iova_stats before;
	dma_addr_t got;

	dmamap_iova_stats(a, &before);
	got = dmamap_iova_alloc(a, size);
	if (got == DMA_MAPPING_ERROR) {
		struct dmamap_iova_stats after;

		dmamap_iova_stats(a, &after);
		if (size)
			m->failures++;
		if (fit < m->bits) {
			/* only a growth that host memory refused may hide a fit, and only one past the extent */
			FUZZ_CHECK(after.grow_failures > before.grow_failures,
				   "alloc %#zx failed; the model fits it at granule %lu", size, fit);
			FUZZ_CHECK(fit + count > before.tracked_granules, "alloc %#zx failed inside the extent (fit %lu)",
				   size, fit);
		}
		return;
	}
	FUZZ_CHECK(size != 0, "zero-size allocation succeeded");
	FUZZ_CHECK(fit < m->bits, "alloc %#zx gave %#llx; the model has no fit", size, (unsigned long long)got);
	FUZZ_CHECK(got == m->base + ((dma_addr_t)fit << m->gshift), "alloc %#zx gave %#llx; model %#llx", size,
		   (unsigned long long)got, (unsigned long long)(m->base + ((dma_addr_t)fit << m->gshift)));
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
	unsigned long first;
	bool ok = model_exact(m, addr, size, &first);

	dmamap_iova_free(a, addr, size);
	if (!ok) {
		m->refused++;
		return;
	}
	first = (unsigned long)((addr - m->base) >> m->gshift);
	memset(m->g + first, FREE, count_for(m, size));
	m->used -= count_for(m, size);
	m->allocations--;
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
		unsigned op = fuzz_u8(&in) % 12;

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
			break;
		}
		case 10: {
			dma_addr_t addr = pick_addr(&in, &m, lv, nlive);
			u64 off = addr - m.base;
			bool want = addr >= m.base && off >> m.gshift < m.bits && m.g[off >> m.gshift] != FREE;

			FUZZ_CHECK(dmamap_iova_is_allocated(a, addr) == want, "is_allocated(%#llx) != %d",
				   (unsigned long long)addr, want);
			break;
		}
		default:
			dmamap_iova_fail_next_grows(a, fuzz_u8(&in) % 3);
			break;
		}
		compare_stats(a, &m);
	}

	/* every granule agrees; then the model frees what is left, and the space is empty */
	for (unsigned long i = 0; i < m.bits; i += 1 + i / 64)
		FUZZ_CHECK(dmamap_iova_is_allocated(a, m.base + ((dma_addr_t)i << m.gshift)) == (m.g[i] != FREE),
			   "granule %lu: allocator and model disagree", i);
	dmamap_iova_fail_next_grows(a, 0);
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
	dmamap_iova_destroy(a);
	free(m.g);
	free(lv);
	return 0;
}
