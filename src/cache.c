/* SPDX-License-Identifier: MIT */
/*
 * The CPU cache model.
 *
 * What it promises: the bytes a CPU load would return are always those of
 * the cpu plane (the linear map); the bytes a non-snooping device sees are
 * always those of the ram plane. Everything in between is the state of each
 * cache line at each level, kept so that a store reaches RAM only through
 * maintenance, exactly when the hardware would let it.
 *
 * Per line (machine line size), at the inner level:
 *   resident   the line is in the inner cache; the cpu plane holds the
 *              cached bytes, which may be stale with respect to RAM;
 *   nonres     (bit in inner_nonres) the line is not cached: the cpu plane
 *              mirrors the level below (the outer copy when the outer cache
 *              holds the line, else RAM), and device writes are mirrored in.
 *   image      the line's bytes as last filled or written back. The level
 *              below holds them (it is what a fill read and a write-back
 *              wrote), unless it changed under the line since: then they
 *              were set aside in the shadow plane first, and the line's bit
 *              in img says so.
 *   dirty      cpu != image on the line, or its bit in cpu_stored is set: the
 *              CPU stored to it since it was filled or written back. A store
 *              to a nonres line is thus a fill plus a store: the line is
 *              treated as resident from the moment we see it dirty.
 * At the outer level: outer_res (the outer plane holds the line) and
 * outer_dirty (the outer copy is newer than RAM) and outer_stale (RAM may
 * be newer: a device wrote it under the line, or an uncached alias of its
 * page has gone, which may have; neither bit, the two agree).
 *
 * The level below changes under a line in three ways, and each sets the
 * image aside first where the line will not mirror the new bytes: a
 * non-snooping device's write of RAM under a line the outer cache does not
 * hold (dev_store()), an outer invalidate of a line the outer cache held
 * (outer_inv_*()), and a store through an uncached alias of RAM, which the
 * model cannot see: so the lines of a page with such an alias keep their
 * images in the shadow for as long as it has one (bit in alias; the aliases
 * are counted per page, dmamap_cache_alias()). A write-back or a refill
 * makes the cpu bytes the image again, below, and clears img but for an
 * aliased line, whose shadow takes the bytes instead. A snooping write
 * updates every copy, the images set aside too. So a clean of dirty lines
 * writes one plane (below) and an invalidate refills one (cpu).
 *
 * Invariants, under cache.lock: for a nonres, clean line, cpu == image ==
 * (outer_res ? outer : ram) on that line. alias implies img. (RAM written
 * through an uncached alias, unseen, is the one exception to the first:
 * the next invalidate of the line brings the cpu plane back in step, as a
 * refill would.)
 *
 * Representation. Line state is bitmaps, one bit per line, and every
 * operation works a word of 64 lines at a time: the lines a range operation
 * must act on (dirty, resident, outer-held, outer-dirty, imaged) are found
 * with a few logical operations on words, clean lines cost their bits and
 * nothing else. Only the dirty test needs the bytes: a run of lines whose
 * cpu bytes and images compare equal in one pass is clean as a whole; a
 * run that does not is compared line by line. An inner operation first
 * asks whether its range is plain -- every line's image below, and below
 * the same level for every line -- and, if so and no line has a cpu_stored
 * bit, whether the cpu bytes are those below, in one pass over the range's
 * bytes (a range left as it was since its last maintenance, the common
 * case): then only the bits an invalidate sets change. Lines that need
 * their bytes moved are moved as contiguous runs, one memcpy per run and
 * plane, and a copy that would not change the destination is skipped, so
 * that invalidating clean lines writes nothing. An invalidate of lines
 * whose image is set aside first sets aside the runs whose cpu, shadow and
 * below bytes are all equal, reading the three planes once: clean lines it
 * leaves as they are. (The passes that compare are AVX-512 code where the
 * host has it, memcmp() elsewhere.) With AVX-512 or AVX2 and lines of at
 * most 64 bytes, a plain range that could not skip is done in one pass,
 * each plane read once: the compare finds the host lines holding dirty
 * lines, a clean stores those whole into the level below (their clean
 * lines hold the image there already), a refill stores the qwords that
 * differ into the cpu plane. AVX-512 works a host cache line at a time, in
 * one call for up to 64 words, and its compares' masks give the line bits
 * 8 host lines at a time; AVX2 works 128 bytes at a time (a clean stores
 * all 128 when a line of them is dirty), a call a word. The result is byte for byte and counter for counter that of doing
 * every line in turn, which the model still does, as a reference, when
 * by_line is set (dmamap_cache_set_line_by_line()).
 *
 * A clear (__dma_clear_buffer: zero through the CPU, flush both levels)
 * zeroes whole pages of every plane at once (the shadow's too), a large
 * one by giving their host pages back (with speculation, those of the CPU
 * view and the shadow only: the next speculation point reads RAM and the
 * outer copy again), and then runs the ordinary flushes over lines it knows
 * are zero on every plane (zero_first..zero_end): they update bits and
 * counters and move no bytes, as copying zeroes onto zeroes would change
 * nothing. It leaves the lines' images in the shadow (zeroes too), so that
 * the uncached alias of a coherent buffer, which comes next, finds nothing
 * to set aside.
 *
 * Speculation: a line leaves a cache level only by an invalidate, and every
 * invalidate hands its lines to spec_track(), which marks the ones not yet
 * pending (spec_pending) and queues them as runs (spec_runs, a list that
 * grows: nothing is ever dropped). At each speculation point every pending
 * line may become resident again with the prefetch rate (and, with an outer
 * cache, be allocated there too from RAM, so the outer level is refilled
 * during a DMA as well), freezing the bytes it mirrors; a line pulled in, or
 * found held at both levels, stops being pending. So *every* nonres line -- in
 * particular every line of every live FROM_DEVICE or BIDIRECTIONAL buffer,
 * however many -- can be prefetched at every point until it is, whether or
 * not the DMA-API checker tracks the mapping: the model needs no help from
 * above to be the hardware. Lines invalidated at unmap are pulled back in
 * too, harmlessly (they mirror what the device wrote). Each line is in at
 * most one queued run, so the queue never holds more runs than lines.
 *
 * Locking: one mutex per machine for all line state and for the ram, shadow
 * and outer planes (stores through an uncached alias excepted); the
 * library's accesses to the cpu plane made on the hardware's behalf are
 * done under it too. Driver stores to the cpu plane need no lock: they are
 * observed by comparison.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "internal.h"

#define ALL_LINES (~0UL)
/* Clears of at least this many bytes give their host pages back instead of storing zeroes. */
#define CLEAR_BY_RELEASE (64u << 10)

static inline bool tbit(const unsigned long *map, unsigned long i)
{
	return (map[i / BITS_PER_LONG] >> (i % BITS_PER_LONG)) & 1UL;
}

static inline void sbit(unsigned long *map, unsigned long i)
{
	map[i / BITS_PER_LONG] |= 1UL << (i % BITS_PER_LONG);
}

static inline void cbit(unsigned long *map, unsigned long i)
{
	map[i / BITS_PER_LONG] &= ~(1UL << (i % BITS_PER_LONG));
}

static inline bool stored_test_clear(struct dmamap_machine *m, unsigned long l)
{
	unsigned long bit = 1UL << (l % BITS_PER_LONG);
	unsigned long *w = &m->cpu_stored[l / BITS_PER_LONG];

	if (!(__atomic_load_n(w, __ATOMIC_RELAXED) & bit))
		return false;
	return (__atomic_fetch_and(w, ~bit, __ATOMIC_RELAXED) & bit) != 0;
}

static inline bool stored_test(struct dmamap_machine *m, unsigned long l)
{
	return (__atomic_load_n(&m->cpu_stored[l / BITS_PER_LONG], __ATOMIC_RELAXED) >> (l % BITS_PER_LONG)) & 1UL;
}

static inline size_t line_size(const struct dmamap_machine *m)
{
	return (size_t)1 << m->line_shift;
}

static inline size_t line_off(const struct dmamap_machine *m, unsigned long l)
{
	return (size_t)l << m->line_shift;
}

static inline bool outer_holds(const struct dmamap_machine *m, unsigned long l)
{
	return m->outer && tbit(m->cache.outer_res, l);
}

/* The level below the inner cache, for line @l. */
static inline u8 *below(struct dmamap_machine *m, unsigned long l)
{
	return (outer_holds(m, l) ? m->outer : m->ram) + line_off(m, l);
}

/* Line @l's image: its bytes as last filled or written back (the level below, unless set aside in the shadow). */
static inline const u8 *image(struct dmamap_machine *m, unsigned long l)
{
	return tbit(m->cache.img, l) ? m->shadow + line_off(m, l) : below(m, l);
}

static inline bool line_dirty(struct dmamap_machine *m, unsigned long l)
{
	return stored_test(m, l) || memcmp(m->cpu + line_off(m, l), image(m, l), line_size(m)) != 0;
}

/* Line @l's cpu bytes are its image again, the level below holding them too (written back or refilled). */
static void image_is_cpu(struct dmamap_machine *m, unsigned long l)
{
	if (tbit(m->cache.alias, l))
		memcpy(m->shadow + line_off(m, l), m->cpu + line_off(m, l), line_size(m));
	else
		cbit(m->cache.img, l);
}

/* The level below is about to change under line @l: set its image aside in the shadow, unless it is there. */
static void image_save(struct dmamap_machine *m, unsigned long l)
{
	if (!tbit(m->cache.img, l)) {
		memcpy(m->shadow + line_off(m, l), below(m, l), line_size(m));
		sbit(m->cache.img, l);
	}
}

/* Give back the line state, whatever of it was made. */
static void free_state(struct dmamap_machine *m)
{
	struct dmamap_cache *c = &m->cache;
	size_t bytes = (c->nr_lines / BITS_PER_LONG + 1) * sizeof(long);
	unsigned long **maps[] = { &c->inner_nonres, &c->outer_res, &c->outer_dirty, &c->outer_stale,
				   &c->img,          &c->alias,     &c->spec_pending };

	for (size_t i = 0; i < ARRAY_SIZE(maps); i++) {
		dmamap_lazy_free(m, *maps[i], bytes);
		*maps[i] = NULL;
	}
	dmamap_lazy_free(m, c->alias_pages, m->nr_pages * sizeof(u32));
	c->alias_pages = NULL;
	free(c->spec_runs);
	c->spec_runs = NULL;
	c->spec_nr = c->spec_cap = 0;
}

int dmamap_cache_init(struct dmamap_machine *m)
{
	struct dmamap_cache *c = &m->cache;
	unsigned long **maps[] = { &c->inner_nonres, &c->outer_res, &c->outer_dirty, &c->outer_stale, &c->img, &c->alias };
	bool ok;

	c->nr_lines = (unsigned long)(m->cfg.ram_size >> m->line_shift);
	c->alias_pages = dmamap_lazy_zalloc(m, m->nr_pages * sizeof(u32));
	ok = c->alias_pages != NULL;
	for (size_t i = 0; i < ARRAY_SIZE(maps); i++) {
		*maps[i] = dmamap_lazy_zalloc(m, (c->nr_lines / BITS_PER_LONG + 1) * sizeof(long));
		ok &= *maps[i] != NULL;
	}
	if (!ok) {
		free_state(m);
		return -ENOMEM;
	}
	pthread_mutex_init(&c->lock, NULL);
	atomic_store(&c->ops, &dmamap_default_cache_ops);
	c->rng.state = m->cfg.seed ^ 0x7370656361ULL;
	c->prefetch_permille = 1000;
	c->memcheck = dmamap_running_on_valgrind();
#if defined(__x86_64__) && defined(__GNUC__)
	if (!c->memcheck && m->line_shift <= 6) {
		if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("bmi2") &&
		    __builtin_cpu_supports("popcnt"))
			c->vec = DMAMAP_VEC_AVX512;
		else if (__builtin_cpu_supports("avx2"))
			c->vec = DMAMAP_VEC_AVX2;
	}
#endif
	return 0;
}

/* Zero @len bytes at @p unless they are zero: a page read and never written stays the host's zero page. */
static void zero_written(void *p, size_t len)
{
	const unsigned long *w = p;

	for (size_t i = 0; i < len / sizeof(long); i++) {
		if (w[i]) {
			memset(p, 0, len);
			return;
		}
	}
}

static bool release_plane(u8 *plane, int fd, off_t foff, size_t off, size_t len);

/*
 * Zero what the machine wrote of its line state, shadow and outer copy: the
 * units in units_written. The state's host pages stay (the next machine
 * will want them); the planes' go back.
 */
static void scrub_arena(struct dmamap_machine *m)
{
	struct dmamap_cache *c = &m->cache;
	unsigned long *maps[] = { c->inner_nonres, c->outer_res, c->outer_dirty, c->outer_stale,
				  c->img,          c->alias,     c->spec_pending, m->cpu_stored };
	unsigned long nr_units = (c->nr_lines + DM_UNIT_LINES - 1) >> DM_UNIT_SHIFT, per_page = PAGE_SIZE >> m->line_shift;

	for (unsigned long u = 0; u < nr_units;) {
		unsigned long u1, l0, l1, w0, w1, bits = m->units_written[u / BITS_PER_LONG] >> (u % BITS_PER_LONG);
		size_t off0, off1;

		if (!bits) {
			u = (u / BITS_PER_LONG + 1) * BITS_PER_LONG;
			continue;
		}
		u += (unsigned long)__builtin_ctzl(bits);
		for (u1 = u + 1; u1 < nr_units && tbit(m->units_written, u1); u1++)
			;
		l0 = u << DM_UNIT_SHIFT;
		l1 = DM_MIN(u1 << DM_UNIT_SHIFT, c->nr_lines);
		w0 = l0 / BITS_PER_LONG;
		w1 = (l1 + BITS_PER_LONG - 1) / BITS_PER_LONG;
		for (size_t i = 0; i < ARRAY_SIZE(maps); i++)
			if (maps[i])
				zero_written(maps[i] + w0, (w1 - w0) * sizeof(long));
		zero_written(c->alias_pages + l0 / per_page, (l1 - l0) / per_page * sizeof(u32));
		off0 = line_off(m, l0);
		off1 = line_off(m, l1);
		if (!release_plane(m->shadow, -1, 0, off0, off1 - off0))
			memset(m->shadow + off0, 0, off1 - off0);
		if (m->outer && !release_plane(m->outer, -1, 0, off0, off1 - off0))
			memset(m->outer + off0, 0, off1 - off0);
		u = u1;
	}
}

void dmamap_cache_fini(struct dmamap_machine *m)
{
	if (!m->cache.inner_nonres)
		return;
	pthread_mutex_destroy(&m->cache.lock);
	if (m->recycle)
		scrub_arena(m);
	free_state(m);
}

/* ------------------------------------------- one line at a time (reference) */

static void inner_clean_line(struct dmamap_machine *m, unsigned long l)
{
	struct dmamap_cache *c = &m->cache;
	size_t off = line_off(m, l), ls = line_size(m);

	if (!line_dirty(m, l))
		return;
	stored_test_clear(m, l);
	cbit(c->inner_nonres, l); /* a dirty line is resident, whatever we thought */
	if (m->outer) {
		memcpy(m->outer + off, m->cpu + off, ls);
		sbit(c->outer_res, l);
		sbit(c->outer_dirty, l);
	} else {
		memcpy(m->ram + off, m->cpu + off, ls);
	}
	image_is_cpu(m, l);
	c->stats.level[DMAMAP_CACHE_INNER].lines_written_back++;
}

static void inner_inv_line(struct dmamap_machine *m, unsigned long l)
{
	struct dmamap_cache *c = &m->cache;
	size_t off = line_off(m, l), ls = line_size(m);

	if (line_dirty(m, l))
		c->stats.level[DMAMAP_CACHE_INNER].dirty_lines_discarded++;
	stored_test_clear(m, l);
	memcpy(m->cpu + off, below(m, l), ls);
	image_is_cpu(m, l);
	sbit(c->inner_nonres, l);
}

static void outer_clean_line(struct dmamap_machine *m, unsigned long l)
{
	struct dmamap_cache *c = &m->cache;
	size_t off = line_off(m, l);

	if (!tbit(c->outer_res, l) || !tbit(c->outer_dirty, l))
		return;
	memcpy(m->ram + off, m->outer + off, line_size(m));
	cbit(c->outer_dirty, l);
	c->stats.level[DMAMAP_CACHE_OUTER].lines_written_back++;
}

static void outer_inv_line(struct dmamap_machine *m, unsigned long l)
{
	struct dmamap_cache *c = &m->cache;
	size_t off = line_off(m, l), ls = line_size(m);
	bool nonres = tbit(c->inner_nonres, l), dirty = line_dirty(m, l);

	if (tbit(c->outer_res, l)) {
		/* an inner line that stays keeps its image, the outer copy about to go */
		if (!nonres || dirty)
			image_save(m, l);
		if (tbit(c->outer_dirty, l))
			c->stats.level[DMAMAP_CACHE_OUTER].dirty_lines_discarded++;
		cbit(c->outer_res, l);
		cbit(c->outer_dirty, l);
		cbit(c->outer_stale, l);
	}
	/* A non-resident inner line now mirrors RAM. */
	if (nonres) {
		if (dirty) {
			cbit(c->inner_nonres, l);
		} else {
			memcpy(m->cpu + off, m->ram + off, ls);
			if (tbit(c->img, l))
				memcpy(m->shadow + off, m->ram + off, ls);
		}
	}
}

/*
 * A prefetch of line @l: the inner cache pulls it in (from the outer copy
 * when there is one, else RAM: the bytes it mirrors), and the outer cache
 * allocates it from RAM if it does not hold it -- on its own too, as an L2
 * that prefetches does, so the outer level can be refilled while a device
 * owns the line. (The outer copy then holds what RAM does: a line whose
 * image was RAM finds it there.)
 */
static void prefetch_line(struct dmamap_machine *m, unsigned long l)
{
	struct dmamap_cache *c = &m->cache;

	if (tbit(c->inner_nonres, l)) {
		cbit(c->inner_nonres, l);
		c->stats.lines_prefetched++;
	}
	if (m->outer && !tbit(c->outer_res, l)) {
		size_t off = line_off(m, l);

		memcpy(m->outer + off, m->ram + off, line_size(m));
		sbit(c->outer_res, l);
	}
}

/*
 * Before a non-snooping device writes RAM under line @l: a line whose level
 * below is RAM and that will not mirror the new bytes -- resident, or
 * stored to while we thought it was not (pulled in before the device
 * wrote) -- sets its image aside.
 */
static void dev_write_before_line(struct dmamap_machine *m, unsigned long l)
{
	if (outer_holds(m, l)) {
		sbit(m->cache.outer_stale, l);
		return;
	}
	if (tbit(m->cache.inner_nonres, l)) {
		if (!line_dirty(m, l))
			return;
		cbit(m->cache.inner_nonres, l);
	}
	image_save(m, l);
}

/*
 * After a non-snooping device wrote RAM bytes [off, off + len) (within line
 * @l): a line neither cache level holds mirrors them.
 */
static void dev_write_after_line(struct dmamap_machine *m, unsigned long l, size_t off, size_t len)
{
	size_t lo, hi;

	if (!tbit(m->cache.inner_nonres, l) || outer_holds(m, l))
		return;
	lo = DM_MAX(off, line_off(m, l));
	hi = DM_MIN(off + len, line_off(m, l) + line_size(m));
	memcpy(m->cpu + lo, m->ram + lo, hi - lo);
	if (tbit(m->cache.img, l))
		memcpy(m->shadow + lo, m->ram + lo, hi - lo);
}

/* ---------------------------------------------------- a word of lines at a time */

/*
 * Range operations take the lines of a range a word of bits at a time: @w
 * is the word's index, @mask the bits of the word that the range covers
 * (bit i stands for line w * BITS_PER_LONG + i).
 */
static inline unsigned long span_mask(unsigned long w, unsigned long first, unsigned long last)
{
	unsigned long lo = w * BITS_PER_LONG, hi = lo + BITS_PER_LONG - 1, mask = ALL_LINES;

	if (first > lo)
		mask &= ALL_LINES << (first - lo);
	if (last < hi)
		mask &= ALL_LINES >> (hi - last);
	return mask;
}

/* The first word's mask is set up front, the last word's trimmed when the walk reaches it. */
#define for_each_word(w, mask, first, last)                                                                        \
	for (unsigned long w = (first) / BITS_PER_LONG, w##_end = (last) / BITS_PER_LONG,                            \
			   mask = ALL_LINES << ((first) % BITS_PER_LONG);                                                \
	     w <= w##_end &&                                                                                         \
	     (w < w##_end || ((mask &= ALL_LINES >> (BITS_PER_LONG - 1 - (last) % BITS_PER_LONG)), true));          \
	     w++, mask = ALL_LINES)

/* Take (clear) the cpu_stored bits of @mask in word @w; return those that were set. */
static inline unsigned long stored_take(struct dmamap_machine *m, unsigned long w, unsigned long mask)
{
	unsigned long *p = &m->cpu_stored[w];

	if (!(__atomic_load_n(p, __ATOMIC_RELAXED) & mask))
		return 0;
	return __atomic_fetch_and(p, ~mask, __ATOMIC_RELAXED) & mask;
}

static inline unsigned long stored_peek(struct dmamap_machine *m, unsigned long w, unsigned long mask)
{
	return __atomic_load_n(&m->cpu_stored[w], __ATOMIC_RELAXED) & mask;
}

/* Take the lowest run of set bits out of *@mask: its first bit and its length. False when none is left. */
static inline bool next_run(unsigned long *mask, unsigned *start, unsigned *len)
{
	unsigned long x = *mask, rest;

	if (!x)
		return false;
	*start = (unsigned)__builtin_ctzl(x);
	rest = ~(x >> *start);
	*len = rest ? (unsigned)__builtin_ctzl(rest) : (unsigned)(BITS_PER_LONG - *start);
	*mask = *start + *len >= BITS_PER_LONG ? 0 : x & ~(((1UL << *len) - 1) << *start);
	return true;
}

/* Each run of set bits of @mask (consumed) in word @w: its first line @l and its length @n. */
#define for_each_run(mask, w, l, n)                                                                                \
	for (unsigned _s, n; next_run(&(mask), &_s, &n);)                                                           \
		for (unsigned long l = (w) * BITS_PER_LONG + _s, _once = 1; _once; _once = 0)

/* Whether lines [l, l + n) are known to be zero on every plane (a clear in progress). */
static inline bool zeroed(const struct dmamap_machine *m, unsigned long l, unsigned long n)
{
	return l >= m->cache.zero_first && l + n <= m->cache.zero_end;
}

static inline u64 load64(const u8 *p)
{
	u64 v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline bool words_differ(const u8 *a, const u8 *b, size_t words)
{
	u64 acc = 0;

	for (size_t i = 0; i < words; i++)
		acc |= load64(a + 8 * i) ^ load64(b + 8 * i);
	return acc != 0;
}

/*
 * Whether a line of @ls bytes differs between @a and @b (the common sizes
 * inlined). A store usually changes a line's first word too: that word
 * alone settles most dirty lines.
 */
static inline bool line_differs(const u8 *a, const u8 *b, size_t ls)
{
	if (load64(a) != load64(b))
		return true;
	if (ls == 32)
		return words_differ(a + 8, b + 8, 3);
	if (ls == 64)
		return words_differ(a + 8, b + 8, 7);
	return words_differ(a + 8, b + 8, ls / 8 - 1);
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

typedef u64 vec512 __attribute__((vector_size(64)));

/*
 * Whether @a and @b (and @c, when not NULL) hold the same @len bytes, each
 * read once, a host cache line at a time and two at once: fewer
 * instructions than memcmp(), and for three planes a third fewer bytes
 * read than two memcmp() calls, which only code of this width turns into
 * time saved.
 */
__attribute__((target("avx512f"))) static bool same_avx512(const u8 *a, const u8 *b, const u8 *c, size_t len)
{
	size_t i = 0;

	/* the first 64 bytes on their own: a run that differs usually does there */
	for (size_t block = sizeof(vec512); i + sizeof(vec512) <= len; block = 1024) {
		vec512 acc = { 0 }, acc2 = { 0 }, x, y, z;
		size_t end = DM_MIN(len, i + block);

		for (; i + 2 * sizeof(vec512) <= end; i += 2 * sizeof(vec512)) {
			vec512 x2, y2, z2;

			memcpy(&x, a + i, sizeof(x));
			memcpy(&y, b + i, sizeof(y));
			memcpy(&x2, a + i + sizeof(x), sizeof(x2));
			memcpy(&y2, b + i + sizeof(y), sizeof(y2));
			acc |= x ^ y;
			acc2 |= x2 ^ y2;
			if (c) {
				memcpy(&z, c + i, sizeof(z));
				memcpy(&z2, c + i + sizeof(z), sizeof(z2));
				acc |= x ^ z;
				acc2 |= x2 ^ z2;
			}
		}
		if (i + sizeof(vec512) <= end) {
			memcpy(&x, a + i, sizeof(x));
			memcpy(&y, b + i, sizeof(y));
			acc |= x ^ y;
			if (c) {
				memcpy(&z, c + i, sizeof(z));
				acc |= x ^ z;
			}
			i += sizeof(vec512);
		}
		acc |= acc2;
		if (_mm512_test_epi64_mask((__m512i)acc, (__m512i)acc))
			return false;
	}
	return i == len || (memcmp(a + i, b + i, len - i) == 0 && (!c || memcmp(a + i, c + i, len - i) == 0));
}
#endif

/* Whether @a and @b (and @c, when not NULL) hold the same @len bytes (at least 8). */
static inline bool same_bytes(const u8 *a, const u8 *b, const u8 *c, size_t len)
{
	/* a dirty run usually differs from its shadow in its first word */
	if (load64(a) != load64(b))
		return false;
#if defined(__x86_64__) && defined(__GNUC__)
	if (__builtin_cpu_supports("avx512f"))
		return same_avx512(a, b, c, len);
#endif
	return memcmp(a, b, len) == 0 && (!c || memcmp(a, c, len) == 0);
}

#if defined(__x86_64__) && defined(__GNUC__)
/* copy2() a host cache line at a time: each byte read once for both stores. */
__attribute__((target("avx512f"))) static void copy2_avx512(u8 *d1, u8 *d2, const u8 *src, size_t len)
{
	size_t i = 0;

	for (; i + sizeof(vec512) <= len; i += sizeof(vec512)) {
		vec512 v;

		memcpy(&v, src + i, sizeof(v));
		memcpy(d1 + i, &v, sizeof(v));
		memcpy(d2 + i, &v, sizeof(v));
	}
	memcpy(d1 + i, src + i, len - i);
	memcpy(d2 + i, src + i, len - i);
}
#endif

/* Copy @len bytes from @src to both @d1 and @d2 (two planes at one offset). */
static inline void copy2(u8 *d1, u8 *d2, const u8 *src, size_t len)
{
#if defined(__x86_64__) && defined(__GNUC__)
	if (__builtin_cpu_supports("avx512f")) {
		copy2_avx512(d1, d2, src, len);
		return;
	}
#endif
	memcpy(d1, src, len);
	memcpy(d2, src, len);
}

/* The bits of a run of @n lines, from bit 0. */
static inline unsigned long run_bits(unsigned n)
{
	return n >= BITS_PER_LONG ? ALL_LINES : (1UL << n) - 1;
}

enum op { OP_CLEAN, OP_INV, OP_FLUSH };

/* The lines the outer cache holds in word @w (none without one). */
static inline unsigned long held_word(const struct dmamap_machine *m, unsigned long w)
{
	return m->outer ? m->cache.outer_res[w] : 0;
}

/*
 * Whether the inner lines of @mask (word @w) are plain for a range pass of
 * @op: no image set aside, and one level below them all (the outer cache
 * or RAM). Then *@ref is that level's plane, and *@dst the plane a clean
 * writes back to.
 */
static inline bool word_plain(const struct dmamap_machine *m, enum op op, unsigned long w, unsigned long mask, u8 **ref,
			      u8 **dst)
{
	unsigned long held = held_word(m, w) & mask;

	if ((m->cache.img[w] & mask) || (held && held != mask))
		return false;
	*ref = held ? m->outer : m->ram;
	*dst = op == OP_INV ? *ref : m->outer ? m->outer : m->ram;
	return true;
}

/*
 * After a range pass of @op over the lines of @mask (word @w) found lines
 * @dirty dirty: their state. A flush is a clean, then an invalidate that
 * finds every line holding what is below. Returns how many were dirty.
 */
static inline unsigned long word_done(struct dmamap_machine *m, enum op op, unsigned long w, unsigned long mask,
				      unsigned long dirty)
{
	struct dmamap_cache *c = &m->cache;

	if (op != OP_INV && dirty) {
		c->inner_nonres[w] &= ~dirty;
		if (m->outer) {
			c->outer_res[w] |= dirty;
			c->outer_dirty[w] |= dirty;
		}
	}
	if (op != OP_CLEAN)
		c->inner_nonres[w] |= mask;
	return (unsigned long)__builtin_popcountl(dirty);
}

#if defined(__x86_64__) && defined(__GNUC__)
/*
 * For 8 host cache lines whose differing qwords are the bytes of @k (byte
 * i for host line i), each holding lines of @q qwords (2, 4 or 8): the
 * lines with a differing qword, one bit each, host line 0's first.
 */
__attribute__((target("bmi2"), always_inline)) static inline unsigned long lines_of_qwords(u64 k, unsigned q)
{
	if (q == 2)
		return (unsigned long)_pext_u64(k | k >> 1, 0x5555555555555555ULL);
	k |= k >> 1;
	k |= k >> 2;
	if (q == 4)
		return (unsigned long)_pext_u64(k, 0x1111111111111111ULL);
	return (unsigned long)_pext_u64(k | k >> 4, 0x0101010101010101ULL);
}

/*
 * One host cache line of pass_lines() at @cpu (@ref, @dst the same offset
 * in the image's plane and the destination): its differing qwords. @st:
 * some line of it has a cpu_stored bit. @valid: the qwords of the run.
 */
__attribute__((target("avx512f,bmi2"), always_inline)) static inline __mmask8
pass_host_line(u8 *cpu, const u8 *ref, u8 *dst, bool refill, bool st, __mmask8 valid)
{
	__m512i c, r;
	__mmask8 k;

	if (valid == 0xff) {
		c = _mm512_loadu_si512(cpu);
		r = _mm512_loadu_si512(ref);
	} else {
		c = _mm512_maskz_loadu_epi64(valid, cpu);
		r = _mm512_maskz_loadu_epi64(valid, ref);
	}
	k = _mm512_cmpneq_epi64_mask(c, r);
	if (refill) {
		if (k == 0xff)
			_mm512_storeu_si512(cpu, r);
		else if (k)
			_mm512_mask_storeu_epi64(cpu, k, r);
	} else if (k || st) {
		if (valid == 0xff)
			_mm512_storeu_si512(dst, c);
		else
			_mm512_mask_storeu_epi64(dst, valid, c);
	}
	return k;
}

/*
 * One pass over lines [l, l + n) of a word, of @q qwords each (2, 4 or 8),
 * whose image is in plane @ref (the level below), a host cache line at a
 * time: each byte of each plane is read once. Returns the dirty lines (bit
 * 0 for line l): those whose cpu bytes differ from the image or that have
 * a bit in @stored (bit 0 for line l). A clean (!@refill) copies the host
 * lines holding dirty lines from the cpu plane to @dst, whole: the clean
 * lines among them hold the image already, and where @dst is not @ref it
 * holds no line of the range yet. A refill copies the qwords that differ
 * from @ref to the cpu plane. Per host line the loop does little more
 * than the compare and the stores: the line bits are made from the
 * compares' masks 8 host lines at a time. (Made once for each @q and use.)
 */
__attribute__((target("avx512f,bmi2"), always_inline)) static inline unsigned long
pass_lines_st(struct dmamap_machine *m, unsigned long l, unsigned n, unsigned long stored, u8 *ref, u8 *dst,
	      bool refill, bool with_st, const unsigned q)
{
	const unsigned per = 8 / q;
	const unsigned long all = (1UL << per) - 1;
	size_t off = line_off(m, l), len = (size_t)n << m->line_shift, nb = len / 64, b = 0;
	u8 *cpu = m->cpu + off;
	unsigned long dirty = stored;

	ref += off;
	dst += off;
	for (; b + 8 <= nb; b += 8) {
		__mmask16 k2[4];
		u64 k = 0;

		/* two host lines' masks joined in a mask register: fewer moves than a shift and an or each */
#pragma GCC unroll 4
		for (unsigned j = 0; j < 8; j += 2) {
			size_t i = 64 * (b + j);
			bool st0 = with_st && ((stored >> ((b + j) * per)) & all);
			bool st1 = with_st && ((stored >> ((b + j + 1) * per)) & all);
			__mmask16 k0 = pass_host_line(cpu + i, ref + i, dst + i, refill, st0, 0xff);
			__mmask16 k1 = pass_host_line(cpu + i + 64, ref + i + 64, dst + i + 64, refill, st1, 0xff);

			k2[j / 2] = _mm512_kunpackb(k1, k0);
		}
		k = (u64)_cvtmask16_u32(k2[0]) | (u64)_cvtmask16_u32(k2[1]) << 16 | (u64)_cvtmask16_u32(k2[2]) << 32 |
		    (u64)_cvtmask16_u32(k2[3]) << 48;
		dirty |= lines_of_qwords(k, q) << (b * per);
	}
	if (b * 64 < len) {
		/* the last host lines, the last perhaps partly (lines under 64 bytes) */
		u64 k = 0;

		for (unsigned j = 0; b * 64 + 64 * j < len; j++) {
			size_t i = 64 * (b + j), rest = len - i;
			bool st = with_st && ((stored >> ((b + j) * per)) & all);
			__mmask8 valid = rest >= 64 ? 0xff : (__mmask8)((1u << (rest / 8)) - 1);

			k |= (u64)pass_host_line(cpu + i, ref + i, dst + i, refill, st, valid) << (8 * j);
		}
		dirty |= lines_of_qwords(k, q) << (b * per);
	}
	return dirty;
}

/* pass_lines_st(), its loop made apart for the common case of no line stored to (or a refill, which ignores them). */
__attribute__((target("avx512f,bmi2"), always_inline)) static inline unsigned long
pass_lines(struct dmamap_machine *m, unsigned long l, unsigned n, unsigned long stored, u8 *ref, u8 *dst, bool refill,
	   const unsigned q)
{
	if (refill || !stored)
		return pass_lines_st(m, l, n, stored, ref, dst, refill, false, q);
	return pass_lines_st(m, l, n, stored, ref, dst, refill, true, q);
}

__attribute__((target("avx512f,bmi2"))) static unsigned long pass_avx512(struct dmamap_machine *m, unsigned long l,
								  unsigned n, unsigned long st, u8 *ref, u8 *dst,
								  bool refill)
{
	/* @st: the run's cpu_stored bits, as pass_lines() takes them */
	switch (m->line_shift) {
	case 4:
		return refill ? pass_lines(m, l, n, st, ref, dst, true, 2) : pass_lines(m, l, n, st, ref, dst, false, 2);
	case 5:
		return refill ? pass_lines(m, l, n, st, ref, dst, true, 4) : pass_lines(m, l, n, st, ref, dst, false, 4);
	default:
		return refill ? pass_lines(m, l, n, st, ref, dst, true, 8) : pass_lines(m, l, n, st, ref, dst, false, 8);
	}
}

/*
 * inner_range_vec() for AVX-512, @q qwords a line: pass_lines() on each word,
 * inlined (a call per word would cost more than its pass at these sizes).
 */
__attribute__((target("avx512f,popcnt,bmi2"), always_inline)) static inline unsigned long
range_words(struct dmamap_machine *m, enum op op, unsigned long first, unsigned long last, unsigned long *count,
	    const unsigned q)
{
	for_each_word(w, mask, first, last) {
		unsigned s = (unsigned)__builtin_ctzl(mask), n = (unsigned)__builtin_popcountl(mask);
		unsigned long st, d;
		u8 *ref, *dst;

		if (!word_plain(m, op, w, mask, &ref, &dst))
			return DM_MAX(first, w * BITS_PER_LONG);
		st = stored_take(m, w, mask) >> s;
		if (op == OP_INV)
			d = pass_lines(m, w * BITS_PER_LONG + s, n, st, ref, dst, true, q);
		else
			d = pass_lines(m, w * BITS_PER_LONG + s, n, st, ref, dst, false, q);
		*count += word_done(m, op, w, mask, d << s);
	}
	return last + 1;
}

__attribute__((target("avx512f,popcnt,bmi2"))) static unsigned long
range_avx512(struct dmamap_machine *m, enum op op, unsigned long first, unsigned long last, unsigned long *count)
{
	switch (m->line_shift) {
	case 4:
		return range_words(m, op, first, last, count, 2);
	case 5:
		return range_words(m, op, first, last, count, 4);
	default:
		return range_words(m, op, first, last, count, 8);
	}
}

/*
 * pass_host_line() and the line bits for hosts with AVX2 but not AVX-512:
 * one 64-byte host line at @cpu, its first @qw qwords (8, or fewer for
 * the last of a run of lines under 64 bytes), as two 32-byte halves.
 * Returns its dirty lines (@q qwords a line, bit 0 the first), but for
 * those of @st, which the caller adds: the same stores and the same result
 * as pass_host_line(), with the qwords' masks turned into line bits here,
 * as AVX2 has no mask registers to gather them in.
 */
__attribute__((target("avx2"), always_inline)) static inline unsigned
pass_host_line_avx2(u8 *cpu, const u8 *ref, u8 *dst, bool refill, bool st, unsigned qw, const unsigned q)
{
	const __m256i lane = _mm256_setr_epi64x(0, 1, 2, 3), ones = _mm256_set1_epi64x(-1);
	__m256i c0, c1, r0, r1, e0, e1, v0 = ones, v1 = ones;
	unsigned k0, k1;

	if (qw == 8) {
		c0 = _mm256_loadu_si256((const __m256i *)cpu);
		c1 = _mm256_loadu_si256((const __m256i *)(cpu + 32));
		r0 = _mm256_loadu_si256((const __m256i *)ref);
		r1 = _mm256_loadu_si256((const __m256i *)(ref + 32));
	} else {
		/* the lanes past the run load as zero in both planes: they compare equal */
		v0 = _mm256_cmpgt_epi64(_mm256_set1_epi64x((long long)qw), lane);
		v1 = _mm256_cmpgt_epi64(_mm256_set1_epi64x((long long)qw - 4), lane);
		c0 = _mm256_maskload_epi64((const long long *)cpu, v0);
		c1 = _mm256_maskload_epi64((const long long *)(cpu + 32), v1);
		r0 = _mm256_maskload_epi64((const long long *)ref, v0);
		r1 = _mm256_maskload_epi64((const long long *)(ref + 32), v1);
	}
	e0 = _mm256_cmpeq_epi64(c0, r0);
	e1 = _mm256_cmpeq_epi64(c1, r1);
	k0 = (unsigned)_mm256_movemask_pd(_mm256_castsi256_pd(e0)) ^ 0xfu;
	k1 = (unsigned)_mm256_movemask_pd(_mm256_castsi256_pd(e1)) ^ 0xfu;
	if (refill) {
		if (k0 == 0xf)
			_mm256_storeu_si256((__m256i *)cpu, r0);
		else if (k0)
			_mm256_maskstore_epi64((long long *)cpu, _mm256_xor_si256(e0, ones), r0);
		if (k1 == 0xf)
			_mm256_storeu_si256((__m256i *)(cpu + 32), r1);
		else if (k1)
			_mm256_maskstore_epi64((long long *)(cpu + 32), _mm256_xor_si256(e1, ones), r1);
	} else if (k0 | k1 || st) {
		if (qw == 8) {
			_mm256_storeu_si256((__m256i *)dst, c0);
			_mm256_storeu_si256((__m256i *)(dst + 32), c1);
		} else {
			_mm256_maskstore_epi64((long long *)dst, v0, c0);
			_mm256_maskstore_epi64((long long *)(dst + 32), v1, c1);
		}
	}
	if (q == 2)
		return (k0 & 3 ? 1u : 0) | (k0 & 0xc ? 2u : 0) | (k1 & 3 ? 4u : 0) | (k1 & 0xc ? 8u : 0);
	if (q == 4)
		return (k0 ? 1u : 0) | (k1 ? 2u : 0);
	return (k0 | k1) ? 1u : 0;
}

/* Bits 0, 4, 8 and 12 of @x (the rest clear) to bits 0, 2, 4 and 6. */
static inline unsigned spread_nibble_flags(unsigned x)
{
	x = (x | x >> 2) & 0x0505;
	return (x | x >> 4) & 0x55;
}

/*
 * The dirty lines of 128 bytes, @q qwords a line (2, 4 or 8), from @ne:
 * the bits of the qwords that differ as pass_lines_avx2() packs them, two
 * bits a qword, the low 128-bit halves of the four 32-byte chunks in bits
 * 0-15 and the high halves in bits 16-31, chunk h in nibble h of each.
 */
static inline unsigned lines_of_packed(unsigned ne, const unsigned q)
{
	unsigned f = (ne | ne >> 16) & 0xffff, t;

	if (q == 2) {
		/* a line is a half: the low halves are the even lines */
		unsigned lo = ne & 0xffff, hi = ne >> 16;

		lo = (lo | lo >> 2) & 0x3333;
		hi = (hi | hi >> 2) & 0x3333;
		lo = (lo | lo >> 1) & 0x1111;
		hi = (hi | hi >> 1) & 0x1111;
		return spread_nibble_flags(lo) | spread_nibble_flags(hi) << 1;
	}
	if (q == 4) {
		/* bits 0, 4, 8 and 12 to 12..15: the product's other bits are apart from those, no carry */
		t = f | f >> 1;
		t = (t | t >> 2) & 0x1111;
		return (t * 0x1248) >> 12 & 0xf;
	}
	return ((f & 0xff) ? 1u : 0) | ((f >> 8) ? 2u : 0);
}

/*
 * pass_lines_st() for AVX2: the same result, 128 bytes a step (a run's last
 * bytes, under 128, a host line at a time). A step that finds its bytes
 * equal and no line stored to costs its loads, its compares and one test;
 * a clean stores a step's 128 bytes whole when a line of them is dirty.
 */
__attribute__((target("avx2"), always_inline)) static inline unsigned long
pass_lines_avx2(struct dmamap_machine *m, unsigned long l, unsigned n, unsigned long stored, u8 *ref, u8 *dst,
		bool refill, bool with_st, const unsigned q)
{
	const unsigned per = 8 / q;
	const unsigned long all = (1UL << per) - 1;
	size_t off = line_off(m, l), len = (size_t)n << m->line_shift, i = 0;
	u8 *cpu = m->cpu + off;
	unsigned long dirty = stored;

	ref += off;
	dst += off;
	for (; i + 128 <= len; i += 128) {
		unsigned shift = (unsigned)(i / 64) * per, st = with_st ? (unsigned)(stored >> shift) & (unsigned)(all << per | all) : 0;
		__m256i c[4], r[4], e[4];
		unsigned ne;

#pragma GCC unroll 4
		for (unsigned h = 0; h < 4; h++) {
			c[h] = _mm256_loadu_si256((const __m256i *)(cpu + i + 32 * h));
			r[h] = _mm256_loadu_si256((const __m256i *)(ref + i + 32 * h));
			e[h] = _mm256_cmpeq_epi64(c[h], r[h]);
		}
		/* one mask for the four compares: a qword's all-ones or zero packs to two bits */
		ne = ~(unsigned)_mm256_movemask_epi8(
			_mm256_packs_epi16(_mm256_packs_epi32(e[0], e[1]), _mm256_packs_epi32(e[2], e[3])));
		if (!(ne | st))
			continue;
		if (refill && ne == ~0u) {
#pragma GCC unroll 4
			for (unsigned h = 0; h < 4; h++)
				_mm256_storeu_si256((__m256i *)(cpu + i + 32 * h), r[h]);
		} else if (refill) {
#pragma GCC unroll 4
			for (unsigned h = 0; h < 4; h++) {
				if ((ne | ne >> 16) >> (4 * h) & 0xf)
					_mm256_maskstore_epi64((long long *)(cpu + i + 32 * h),
							       _mm256_xor_si256(e[h], _mm256_set1_epi64x(-1)), r[h]);
			}
		} else {
			/* the clean lines among them hold the image in @dst already (or none of the range is there) */
#pragma GCC unroll 4
			for (unsigned h = 0; h < 4; h++)
				_mm256_storeu_si256((__m256i *)(dst + i + 32 * h), c[h]);
		}
		dirty |= (unsigned long)(ne == ~0u ? (1u << 2 * per) - 1 : lines_of_packed(ne, q)) << shift;
	}
	for (; i < len; i += 64) {
		unsigned shift = (unsigned)(i / 64) * per;
		bool st = with_st && ((stored >> shift) & all);
		unsigned qw = len - i >= 64 ? 8 : (unsigned)((len - i) / 8);

		dirty |= (unsigned long)pass_host_line_avx2(cpu + i, ref + i, dst + i, refill, st, qw, q) << shift;
	}
	return dirty;
}

/* pass_avx512() for AVX2. */
__attribute__((target("avx2"))) static unsigned long pass_avx2(struct dmamap_machine *m, unsigned long l, unsigned n,
							     unsigned long st, u8 *ref, u8 *dst, bool refill)
{
	bool with_st = !refill && st;

	switch (m->line_shift) {
	case 4:
		return refill	 ? pass_lines_avx2(m, l, n, st, ref, dst, true, false, 2)
		       : with_st ? pass_lines_avx2(m, l, n, st, ref, dst, false, true, 2)
				 : pass_lines_avx2(m, l, n, st, ref, dst, false, false, 2);
	case 5:
		return refill	 ? pass_lines_avx2(m, l, n, st, ref, dst, true, false, 4)
		       : with_st ? pass_lines_avx2(m, l, n, st, ref, dst, false, true, 4)
				 : pass_lines_avx2(m, l, n, st, ref, dst, false, false, 4);
	default:
		return refill	 ? pass_lines_avx2(m, l, n, st, ref, dst, true, false, 8)
		       : with_st ? pass_lines_avx2(m, l, n, st, ref, dst, false, true, 8)
				 : pass_lines_avx2(m, l, n, st, ref, dst, false, false, 8);
	}
}

/* range_words() for AVX2. */
__attribute__((target("avx2,popcnt"), always_inline)) static inline unsigned long
range_words_avx2(struct dmamap_machine *m, enum op op, unsigned long first, unsigned long last, unsigned long *count,
		 const unsigned q)
{
	for_each_word(w, mask, first, last) {
		unsigned s = (unsigned)__builtin_ctzl(mask), n = (unsigned)__builtin_popcountl(mask);
		unsigned long l = w * BITS_PER_LONG + s, st, d;
		u8 *ref, *dst;

		if (!word_plain(m, op, w, mask, &ref, &dst))
			return DM_MAX(first, w * BITS_PER_LONG);
		st = stored_take(m, w, mask) >> s;
		if (op == OP_INV)
			d = pass_lines_avx2(m, l, n, st, ref, dst, true, false, q);
		else if (st)
			d = pass_lines_avx2(m, l, n, st, ref, dst, false, true, q);
		else
			d = pass_lines_avx2(m, l, n, 0, ref, dst, false, false, q);
		*count += word_done(m, op, w, mask, d << s);
	}
	return last + 1;
}

__attribute__((target("avx2,popcnt"))) static unsigned long range_avx2(struct dmamap_machine *m, enum op op,
								      unsigned long first, unsigned long last,
								      unsigned long *count)
{
	switch (m->line_shift) {
	case 4:
		return range_words_avx2(m, op, first, last, count, 2);
	case 5:
		return range_words_avx2(m, op, first, last, count, 4);
	default:
		return range_words_avx2(m, op, first, last, count, 8);
	}
}
#endif

/* The range pass of the host's vector code over lines [l, l + n), as pass_lines() describes it. */
static unsigned long pass_run(struct dmamap_machine *m, unsigned long l, unsigned n, unsigned long st, u8 *ref,
			      u8 *dst, bool refill)
{
#if defined(__x86_64__) && defined(__GNUC__)
	if (m->cache.vec == DMAMAP_VEC_AVX512)
		return pass_avx512(m, l, n, st, ref, dst, refill);
	return pass_avx2(m, l, n, st, ref, dst, refill);
#else
	(void)m, (void)l, (void)n, (void)st, (void)ref, (void)dst, (void)refill;
	return 0;
#endif
}

/*
 * Whether range operations may use pass_avx512(): the host has it, lines
 * are at most a host cache line, and no byte needs the slow paths (under
 * memcheck every refill copies; a clear's zero lines move nothing).
 */
static inline bool vec_pass(const struct dmamap_machine *m)
{
	return m->cache.vec != DMAMAP_VEC_NONE && !m->cache.zero_end;
}

/*
 * pass_avx512() over the runs of @mask in word @w (lines whose image is in
 * @ref), @stored the word's cpu_stored bits taken: the dirty lines of
 * @mask, as bits of the word.
 */
static unsigned long pass_word(struct dmamap_machine *m, unsigned long w, unsigned long mask, unsigned long stored,
			       u8 *ref, u8 *dst, bool refill)
{
	unsigned long dirty = 0;

	for_each_run(mask, w, l, n) {
		unsigned s = (unsigned)(l - w * BITS_PER_LONG);

		dirty |= pass_run(m, l, n, (stored >> s) & run_bits(n), ref, dst, refill) << s;
	}
	return dirty;
}

/* The lines of @mask (word @w) whose bytes differ between planes @pa and @pb, as bits of the word. */
static unsigned long planes_differ(struct dmamap_machine *m, const u8 *pa, const u8 *pb, unsigned long w,
				   unsigned long mask)
{
	size_t ls = line_size(m);
	unsigned long diff = 0;

	for_each_run(mask, w, l, n) {
		size_t off = line_off(m, l);
		const u8 *a = pa + off, *b = pb + off;

		if (zeroed(m, l, n) || same_bytes(a, b, NULL, (size_t)n << m->line_shift))
			continue;
		for (unsigned i = 0; i < n; i++, a += ls, b += ls)
			diff |= (unsigned long)line_differs(a, b, ls) << (l - w * BITS_PER_LONG + i);
	}
	return diff;
}

/* The lines of @mask (word @w) whose cpu bytes differ from plane @ref's, as bits of the word. */
static inline unsigned long differ_from(struct dmamap_machine *m, const u8 *ref, unsigned long w, unsigned long mask)
{
	return planes_differ(m, m->cpu, ref, w, mask);
}

/* The lines of @mask (word @w) whose cpu bytes differ from their image, as bits of the word. */
static unsigned long lines_differ(struct dmamap_machine *m, unsigned long w, unsigned long mask)
{
	unsigned long im = m->cache.img[w] & mask, held = held_word(m, w);

	return differ_from(m, m->shadow, w, im) | differ_from(m, m->outer, w, mask & ~im & held) |
	       differ_from(m, m->ram, w, mask & ~im & ~held);
}

/* Copy the lines of @mask (word @w) from plane @src to planes @d1 and @d2, a run at a time. */
static void copy_lines2(struct dmamap_machine *m, u8 *d1, u8 *d2, const u8 *src, unsigned long w, unsigned long mask)
{
	for_each_run(mask, w, l, n) {
		size_t off = line_off(m, l);

		if (!zeroed(m, l, n))
			copy2(d1 + off, d2 + off, src + off, (size_t)n << m->line_shift);
	}
}

/* Copy the lines of @mask (word @w) from plane @src to plane @dst, a run at a time. */
static void copy_lines(struct dmamap_machine *m, u8 *dst, const u8 *src, unsigned long w, unsigned long mask)
{
	for_each_run(mask, w, l, n) {
		if (!zeroed(m, l, n))
			memcpy(dst + line_off(m, l), src + line_off(m, l), (size_t)n << m->line_shift);
	}
}

/*
 * Make plane @dst equal @src on the lines of @mask (word @w), writing only
 * runs that differ. (Under memcheck every run is copied: a copy carries the
 * definedness of the bytes, which skipping it would not.)
 */
static void sync_lines(struct dmamap_machine *m, u8 *dst, const u8 *src, unsigned long w, unsigned long mask)
{
	for_each_run(mask, w, l, n) {
		size_t off = line_off(m, l), len = (size_t)n << m->line_shift;

		if (!zeroed(m, l, n) && (m->cache.memcheck || memcmp(dst + off, src + off, len) != 0))
			memcpy(dst + off, src + off, len);
	}
}

/*
 * Refill the cpu plane from @src on the lines of @mask (word @w), lines
 * whose image is in the shadow, @dirty those of them the CPU stored to; an
 * aliased line's shadow too (it keeps its image there), the others' images
 * being below from now on (the caller clears their img bits). On a clean
 * line cpu == shadow, so one comparison tells whether both already hold
 * @src's bytes; dirty lines are copied. (Under memcheck every run is
 * copied, as in sync_lines().)
 */
static void refill_lines(struct dmamap_machine *m, const u8 *src, unsigned long w, unsigned long mask,
			 unsigned long dirty)
{
	unsigned long alias = m->cache.alias[w];

	for (int a = 0; a < 2; a++) {
		unsigned long part = mask & (a ? alias : ~alias), clean = part & ~dirty;

		if (a)
			copy_lines2(m, m->cpu, m->shadow, src, w, part & dirty);
		else
			copy_lines(m, m->cpu, src, w, part & dirty);
		for_each_run(clean, w, l, n) {
			size_t off = line_off(m, l), len = (size_t)n << m->line_shift;

			if (zeroed(m, l, n) || (!m->cache.memcheck && memcmp(m->cpu + off, src + off, len) == 0))
				continue;
			if (a)
				copy2(m->cpu + off, m->shadow + off, src + off, len);
			else
				memcpy(m->cpu + off, src + off, len);
		}
	}
}

/* The dirty lines of @mask (word @w), leaving their cpu_stored bits as they are. */
static unsigned long dirty_lines(struct dmamap_machine *m, unsigned long w, unsigned long mask)
{
	unsigned long stored = stored_peek(m, w, mask);

	return stored | lines_differ(m, w, mask & ~stored);
}

static unsigned long count_lines(unsigned long mask)
{
	return (unsigned long)__builtin_popcountl(mask);
}

/* image_save() of the lines of @mask (word @w). */
static void save_images(struct dmamap_machine *m, unsigned long w, unsigned long mask)
{
	unsigned long held = held_word(m, w);

	mask &= ~m->cache.img[w];
	if (!mask)
		return;
	copy_lines(m, m->shadow, m->outer, w, mask & held);
	copy_lines(m, m->shadow, m->ram, w, mask & ~held);
	m->cache.img[w] |= mask;
}

/*
 * The lines of @mask (word @w) hold their image in the cpu plane and the
 * level below alike: only an aliased line keeps it in the shadow too, @moved
 * those of them whose cpu bytes the shadow may not hold yet.
 */
static void images_are_cpu(struct dmamap_machine *m, unsigned long w, unsigned long mask, unsigned long moved)
{
	unsigned long alias = m->cache.alias[w];

	m->cache.img[w] &= ~(mask & ~alias);
	copy_lines(m, m->shadow, m->cpu, w, moved & mask & alias);
}

static void inner_clean_word(struct dmamap_machine *m, unsigned long w, unsigned long mask)
{
	struct dmamap_cache *c = &m->cache;
	unsigned long stored = stored_take(m, w, mask), im = c->img[w] & mask, held = held_word(m, w), dirty;
	u8 *dst = m->outer ? m->outer : m->ram;

	if (vec_pass(m)) {
		/* found and written back in one pass, lines whose image is below */
		dirty = pass_word(m, w, mask & ~im & held, stored, m->outer, dst, false) |
			pass_word(m, w, mask & ~im & ~held, stored, m->ram, dst, false);
		if (im) {
			unsigned long d = (stored & im) | differ_from(m, m->shadow, w, im & ~stored);

			copy_lines(m, dst, m->cpu, w, d);
			dirty |= d;
		}
	} else {
		dirty = stored | lines_differ(m, w, mask & ~stored);
		copy_lines(m, dst, m->cpu, w, dirty);
	}
	if (!dirty)
		return;
	images_are_cpu(m, w, dirty, dirty);
	c->inner_nonres[w] &= ~dirty; /* a dirty line is resident, whatever we thought */
	if (m->outer) {
		c->outer_res[w] |= dirty;
		c->outer_dirty[w] |= dirty;
	}
	c->stats.level[DMAMAP_CACHE_INNER].lines_written_back += count_lines(dirty);
}

/*
 * The lines of @mask (word @w) whose cpu, shadow and @src bytes are the
 * same: clean lines (the caller leaves out those with a cpu_stored bit)
 * that a refill from @src leaves as they are. A run at a time. (None under
 * memcheck: there every refill copies, to carry definedness.)
 */
static inline unsigned long lines_settled(struct dmamap_machine *m, const u8 *src, unsigned long w, unsigned long mask)
{
	unsigned long settled = 0;

	if (m->cache.memcheck)
		return 0;
	for_each_run(mask, w, l, n) {
		size_t off = line_off(m, l);

		if (zeroed(m, l, n) || same_bytes(m->cpu + off, m->shadow + off, src + off, (size_t)n << m->line_shift))
			settled |= run_bits(n) << (l - w * BITS_PER_LONG);
	}
	return settled;
}

/*
 * Refill from below the lines of @mask (word @w) whose image is in the
 * shadow, @stored their cpu_stored bits taken: their dirty lines. Clean
 * lines that already hold what a refill would bring move no byte, found in
 * one pass.
 */
static unsigned long refill_imaged(struct dmamap_machine *m, unsigned long w, unsigned long mask, unsigned long stored)
{
	unsigned long held = held_word(m, w) & mask, rest, dirty;

	rest = mask & ~(lines_settled(m, m->outer, w, held & ~stored) | lines_settled(m, m->ram, w, mask & ~held & ~stored));
	dirty = (stored & mask) | differ_from(m, m->shadow, w, rest & ~stored);
	if (held & rest)
		refill_lines(m, m->outer, w, held & rest, dirty);
	if (rest & ~held)
		refill_lines(m, m->ram, w, rest & ~held, dirty);
	return dirty;
}

/*
 * Refill from below the lines of @mask (word @w) whose image is below, @stored
 * their cpu_stored bits taken: their dirty lines. The image being the bytes
 * to refill from, one comparison finds both the dirty lines and those to
 * copy. (Under memcheck every line is copied, as in sync_lines().)
 */
static unsigned long refill_plain(struct dmamap_machine *m, unsigned long w, unsigned long mask, unsigned long stored)
{
	unsigned long held = held_word(m, w) & mask, diff;

	if (vec_pass(m))
		return (held ? pass_word(m, w, held, stored, m->outer, m->outer, true) : 0) |
		       pass_word(m, w, mask & ~held, stored, m->ram, m->ram, true);
	diff = differ_from(m, m->outer, w, held) | differ_from(m, m->ram, w, mask & ~held);
	copy_lines(m, m->cpu, m->outer, w, m->cache.memcheck ? held : diff & held);
	copy_lines(m, m->cpu, m->ram, w, m->cache.memcheck ? mask & ~held : diff & ~held);
	return (stored & mask) | diff;
}

static void inner_inv_word(struct dmamap_machine *m, unsigned long w, unsigned long mask)
{
	struct dmamap_cache *c = &m->cache;
	unsigned long stored = stored_take(m, w, mask), im = c->img[w] & mask, dirty;

	/* refill from below: the outer copy where the outer cache holds the line, else RAM */
	dirty = refill_plain(m, w, mask & ~im, stored);
	if (im)
		dirty |= refill_imaged(m, w, im, stored);
	images_are_cpu(m, w, mask, 0); /* refill_imaged() kept the shadow with the cpu plane */
	c->stats.level[DMAMAP_CACHE_INNER].dirty_lines_discarded += count_lines(dirty);
	c->inner_nonres[w] |= mask;
}

static void outer_clean_word(struct dmamap_machine *m, unsigned long w, unsigned long mask)
{
	struct dmamap_cache *c = &m->cache;
	unsigned long dirty = c->outer_res[w] & c->outer_dirty[w] & mask;

	if (!dirty)
		return;
	copy_lines(m, m->ram, m->outer, w, dirty);
	c->outer_dirty[w] &= ~dirty;
	c->stats.level[DMAMAP_CACHE_OUTER].lines_written_back += count_lines(dirty);
}

static void outer_inv_word(struct dmamap_machine *m, unsigned long w, unsigned long mask)
{
	struct dmamap_cache *c = &m->cache;
	unsigned long nonres = c->inner_nonres[w] & mask, held = c->outer_res[w] & mask, dirty = 0, mirror;

	/* with the outer copy still there: which nonres lines the CPU stored to, and the images to keep */
	if (nonres)
		dirty = dirty_lines(m, w, nonres);
	mirror = nonres & ~dirty;
	/* where the outer copy holds what RAM does (neither dirty nor stale), RAM is the same image */
	save_images(m, w, held & ~mirror & (c->outer_dirty[w] | c->outer_stale[w]));
	c->stats.level[DMAMAP_CACHE_OUTER].dirty_lines_discarded += count_lines(held & c->outer_dirty[w]);
	c->outer_res[w] &= ~mask;
	c->outer_dirty[w] &= ~mask;
	c->outer_stale[w] &= ~mask;
	if (!nonres)
		return;
	/* A non-resident inner line now mirrors RAM; one the CPU stored to is resident. */
	c->inner_nonres[w] &= ~dirty;
	refill_lines(m, m->ram, w, mirror & c->img[w], 0);
	sync_lines(m, m->cpu, m->ram, w, mirror & ~c->img[w]);
	c->img[w] &= ~(mirror & ~c->alias[w]); /* they mirror RAM: their image */
}

/* prefetch_line() of the lines of @mask in word @w. */
static void prefetch_word(struct dmamap_machine *m, unsigned long w, unsigned long mask)
{
	struct dmamap_cache *c = &m->cache;
	unsigned long pull = c->inner_nonres[w] & mask;

	if (pull) {
		c->inner_nonres[w] &= ~pull;
		c->stats.lines_prefetched += count_lines(pull);
	}
	if (m->outer) {
		unsigned long fill = mask & ~c->outer_res[w];

		/* a nonres inner line mirrors RAM, which the outer copy now holds too */
		sync_lines(m, m->outer, m->ram, w, fill);
		c->outer_res[w] |= fill;
	}
}

/* ------------------------------------------------------------ range walks */

static __attribute__((noinline, cold)) void range_not_ram(struct dmamap_machine *m, phys_addr_t start, size_t size,
							  const char *what)
{
	dmamap_report(m, DMAMAP_REPORT_BAD_ADDRESS, NULL, NULL, 0, "%s: range %#llx+%#zx is not wholly in RAM; ignored",
		      what, (unsigned long long)start, size);
}

/* The line of RAM address @phys. */
static inline unsigned long line_of(const struct dmamap_machine *m, phys_addr_t phys)
{
	return (unsigned long)((size_t)(phys - m->cfg.ram_base) >> m->line_shift);
}

/* Queue lines [first, last] (none pending) for speculation; false when the queue cannot grow. Lock held. */
static bool spec_queue(struct dmamap_cache *c, unsigned long first, unsigned long last)
{
	if (c->spec_nr && c->spec_runs[c->spec_nr - 1].last + 1 == first) {
		c->spec_runs[c->spec_nr - 1].last = last;
		return true;
	}
	if (c->spec_nr == c->spec_cap) {
		size_t cap = c->spec_cap ? 2 * c->spec_cap : 64;
		struct dmamap_spec_range *r = realloc(c->spec_runs, cap * sizeof(*r));

		if (!r)
			return false;
		c->spec_runs = r;
		c->spec_cap = cap;
	}
	c->spec_runs[c->spec_nr].first = first;
	c->spec_runs[c->spec_nr].last = last;
	__atomic_store_n(&c->spec_nr, c->spec_nr + 1, __ATOMIC_RELEASE);
	return true;
}

static bool prefetch_range(struct dmamap_machine *m, unsigned long first, unsigned long last);

/*
 * Lines [first, last] were just invalidated (at either level): queue the
 * ones not already waiting. Should the host refuse the memory, the CPU is
 * taken to have pulled them in at once, a prefetch it may always make.
 * Lock held.
 */
static void spec_track(struct dmamap_machine *m, unsigned long first, unsigned long last)
{
	struct dmamap_cache *c = &m->cache;

	if (!m->cfg.speculative_prefetch)
		return;
	if (!c->spec_pending) {
		c->spec_pending = dmamap_lazy_zalloc(m, (c->nr_lines / BITS_PER_LONG + 1) * sizeof(long));
		if (!c->spec_pending) {
			prefetch_range(m, first, last);
			return;
		}
	}
	for_each_word(w, mask, first, last) {
		unsigned long fresh = mask & ~c->spec_pending[w];

		while (fresh) {
			unsigned b = (unsigned)__builtin_ctzl(fresh);
			unsigned long from = fresh >> b;
			unsigned len = ~from ? (unsigned)__builtin_ctzl(~from) : (unsigned)(BITS_PER_LONG - b);
			unsigned long bits = (len == BITS_PER_LONG ? ALL_LINES : (1UL << len) - 1) << b;
			unsigned long l = w * BITS_PER_LONG + b;

			if (spec_queue(c, l, l + len - 1))
				c->spec_pending[w] |= bits;
			else
				prefetch_range(m, l, l + len - 1);
			fresh &= ~bits;
		}
	}
}

/* Lines [first, last] of level @lvl, one at a time: the reference the word walks must match. */
static void level_op_by_line(struct dmamap_machine *m, enum dmamap_cache_level lvl, enum op op, unsigned long first,
			     unsigned long last)
{
	for (unsigned long l = first; l <= last; l++) {
		if (lvl == DMAMAP_CACHE_INNER) {
			if (op != OP_INV)
				inner_clean_line(m, l);
			if (op != OP_CLEAN)
				inner_inv_line(m, l);
		} else {
			if (op != OP_INV)
				outer_clean_line(m, l);
			if (op != OP_CLEAN)
				outer_inv_line(m, l);
		}
	}
}

/*
 * Whether inner lines [first, last] are plain: every line has its image
 * below (none set aside in the shadow), below is the same level for every
 * line (*@outer: the outer cache holds them all), and no clear is in
 * progress. *@stored: some line has a cpu_stored bit. Lock held.
 */
static bool inner_range_plain(struct dmamap_machine *m, unsigned long first, unsigned long last, bool *outer,
			      bool *stored)
{
	struct dmamap_cache *c = &m->cache;
	unsigned long held = 0, some = 0, st = 0; /* lines the outer cache holds, lines it does not */

	if (c->zero_end)
		return false;
	for_each_word(w, mask, first, last) {
		if (c->img[w] & mask)
			return false;
		st |= stored_peek(m, w, mask);
		held |= held_word(m, w) & mask;
		some |= mask & ~held_word(m, w);
	}
	*outer = held != 0;
	*stored = st != 0;
	return !(held && some);
}

/*
 * Whether @op on plain inner lines [first, last] (@outer: their level
 * below) without cpu_stored bits moves no byte and changes no counter but
 * the operation's own: the common case of a range the CPU has not stored
 * to since it was cleaned or refilled, found in one pass over the whole
 * range. It is so when the cpu bytes are those below: every line is clean
 * (a clean writes nothing back) and an invalidate's refill would change
 * nothing. Lock held.
 */
static bool inner_range_settled(struct dmamap_machine *m, enum op op, unsigned long first, unsigned long last,
				bool outer)
{
	size_t off = line_off(m, first), len = line_off(m, last + 1) - off;

	if ((op != OP_CLEAN && m->cache.memcheck) || len < 8)
		return false;
	return same_bytes(m->cpu + off, (outer ? m->outer : m->ram) + off, NULL, len);
}

/*
 * inner_range_settled() on a vector host (vec_pass()) for inner lines
 * [first, last], tried only when the range's first bytes are those of the
 * level below its first line: a range the CPU dirtied usually differs
 * there, and then costs that one compare before its pass (the check of the
 * whole range is out of line, so that it costs the pass nothing more).
 * Lock held.
 */
static __attribute__((noinline)) bool inner_range_vec_settled_slow(struct dmamap_machine *m, enum op op,
								   unsigned long first, unsigned long last)
{
	bool outer, stored;

	return inner_range_plain(m, first, last, &outer, &stored) && !stored &&
	       inner_range_settled(m, op, first, last, outer);
}

static inline bool inner_range_vec_settled(struct dmamap_machine *m, enum op op, unsigned long first,
					   unsigned long last)
{
	size_t off = line_off(m, first);
	u8 *ref = m->outer && tbit(m->cache.outer_res, first) ? m->outer : m->ram;

	return load64(m->cpu + off) == load64(ref + off) && inner_range_vec_settled_slow(m, op, first, last);
}

/*
 * @op on inner lines [first, last] by the host's vector pass (vec_pass()),
 * a word of lines at a time, as far as the words are plain (word_plain()):
 * returns the first line left for the general path, last + 1 when none.
 * Lock held.
 */
static unsigned long inner_range_vec(struct dmamap_machine *m, enum op op, unsigned long first, unsigned long last)
{
	struct dmamap_cache_level_stats *st = &m->cache.stats.level[DMAMAP_CACHE_INNER];
	unsigned long count = 0, next = first;

#if defined(__x86_64__) && defined(__GNUC__)
	if (m->cache.vec == DMAMAP_VEC_AVX512)
		next = range_avx512(m, op, first, last, &count);
	else
		next = range_avx2(m, op, first, last, &count);
#else
	(void)last;
#endif
	if (op == OP_INV)
		st->dirty_lines_discarded += count;
	else
		st->lines_written_back += count;
	return next;
}

/* @op on the lines of @mask (word @w) of level @lvl, as their states say. Lock held. */
static void level_op_word(struct dmamap_machine *m, enum dmamap_cache_level lvl, enum op op, unsigned long w,
			  unsigned long mask)
{
	/* a flush is a clean then an invalidate of each line: per word, the same */
	if (lvl == DMAMAP_CACHE_INNER) {
		if (op != OP_INV)
			inner_clean_word(m, w, mask);
		if (op != OP_CLEAN)
			inner_inv_word(m, w, mask);
	} else {
		if (op != OP_INV)
			outer_clean_word(m, w, mask);
		if (op != OP_CLEAN)
			outer_inv_word(m, w, mask);
	}
}

/* The line bits of word @w that level_op_word() reads or writes, cpu_stored's among them. */
struct word_bits {
	unsigned long nonres, img, alias, ores, odirty, ostale, stored;
};

static void word_bits_get(const struct dmamap_machine *m, unsigned long w, struct word_bits *b)
{
	const struct dmamap_cache *c = &m->cache;

	b->nonres = c->inner_nonres[w];
	b->img = c->img[w];
	b->alias = c->alias[w];
	b->ores = m->outer ? c->outer_res[w] : 0;
	b->odirty = m->outer ? c->outer_dirty[w] : 0;
	b->ostale = m->outer ? c->outer_stale[w] : 0;
	b->stored = __atomic_load_n(&m->cpu_stored[w], __ATOMIC_RELAXED);
}

/* Give word @w the bits @to that a word with bits @from was left with (stored bits: only those cleared). */
static void word_bits_put(struct dmamap_machine *m, unsigned long w, const struct word_bits *from,
			  const struct word_bits *to)
{
	struct dmamap_cache *c = &m->cache;

	c->inner_nonres[w] = to->nonres;
	c->img[w] = to->img;
	c->alias[w] = to->alias;
	if (m->outer) {
		c->outer_res[w] = to->ores;
		c->outer_dirty[w] = to->odirty;
		c->outer_stale[w] = to->ostale;
	}
	if (from->stored & ~to->stored)
		__atomic_fetch_and(&m->cpu_stored[w], ~(from->stored & ~to->stored), __ATOMIC_RELAXED);
}

/*
 * level_op_word() over lines [first, last], known zero on every plane (a
 * clear in progress): no byte moves, so what a whole word ends with
 * follows from its line bits alone, and a word whose bits are those of the
 * whole word before it ends as that one did, its counters counted again.
 * Pages the machine never touched (or touched alike) are worked out once.
 */
static void level_op_zeroed(struct dmamap_machine *m, enum dmamap_cache_level lvl, enum op op, unsigned long first,
			    unsigned long last)
{
	struct dmamap_cache_level_stats *st = &m->cache.stats.level[lvl];
	struct word_bits pre, prev_pre, prev_post;
	unsigned long wb = 0, dis = 0;
	bool memo = false;

	for_each_word(w, mask, first, last) {
		struct dmamap_cache_level_stats before;

		if (mask != ALL_LINES) {
			level_op_word(m, lvl, op, w, mask);
			memo = false;
			continue;
		}
		word_bits_get(m, w, &pre);
		if (memo && !memcmp(&pre, &prev_pre, sizeof(pre))) {
			word_bits_put(m, w, &pre, &prev_post);
			st->lines_written_back += wb;
			st->dirty_lines_discarded += dis;
			continue;
		}
		before = *st;
		level_op_word(m, lvl, op, w, mask);
		prev_pre = pre;
		word_bits_get(m, w, &prev_post);
		wb = st->lines_written_back - before.lines_written_back;
		dis = st->dirty_lines_discarded - before.dirty_lines_discarded;
		memo = true;
	}
}

/* Run @op on lines [first, last] of level @lvl. Lock held. */
static void level_op(struct dmamap_machine *m, enum dmamap_cache_level lvl, enum op op, unsigned long first,
		     unsigned long last)
{
	struct dmamap_cache_level_stats *st = &m->cache.stats.level[lvl];
	unsigned long n = last - first + 1;
	bool outer = false, stored = false, vec;

	dm_lines_written(m, first, last);
	if (op == OP_CLEAN)
		st->clean_ops++;
	else if (op == OP_INV)
		st->inv_ops++;
	else
		st->flush_ops++;
	if (op != OP_INV)
		st->lines_cleaned += n;
	if (op != OP_CLEAN)
		st->lines_invalidated += n;

	vec = !m->cache.by_line && lvl == DMAMAP_CACHE_INNER && vec_pass(m);
	if (m->cache.by_line) {
		level_op_by_line(m, lvl, op, first, last);
	} else if (lvl == DMAMAP_CACHE_INNER &&
		   (vec ? inner_range_vec_settled(m, op, first, last)
			: inner_range_plain(m, first, last, &outer, &stored) && !stored &&
				  inner_range_settled(m, op, first, last, outer))) {
		/* nothing to write back, nothing to refill: only the lines an invalidate leaves change state */
		if (op != OP_CLEAN) {
			for_each_word(w, mask, first, last)
				m->cache.inner_nonres[w] |= mask;
		}
	} else if (vec) {
		/* plain words by the vector pass, the others as their lines' states say */
		for (unsigned long l = first; (l = inner_range_vec(m, op, l, last)) <= last;) {
			unsigned long w = l / BITS_PER_LONG;

			level_op_word(m, lvl, op, w, span_mask(w, l, last));
			l = (w + 1) * BITS_PER_LONG;
		}
	} else if (zeroed(m, first, n)) {
		level_op_zeroed(m, lvl, op, first, last);
	} else {
		for_each_word(w, mask, first, last)
			level_op_word(m, lvl, op, w, mask);
	}
	if (op != OP_CLEAN)
		spec_track(m, first, last);
}

static bool level_exists(struct dmamap_machine *m, enum dmamap_cache_level lvl)
{
	return lvl == DMAMAP_CACHE_INNER || (lvl == DMAMAP_CACHE_OUTER && m->outer);
}

/* @op on [start, start + size) of level @lvl, a range wholly in RAM (size > 0). */
static void range_op_ram(struct dmamap_machine *m, enum dmamap_cache_level lvl, enum op op, phys_addr_t start,
			 size_t size)
{
	unsigned long first = line_of(m, start), last = line_of(m, start + size - 1);

	pthread_mutex_lock(&m->cache.lock);
	dmamap_track_quiet_begin();
	level_op(m, lvl, op, first, last);
	dmamap_track_quiet_end();
	pthread_mutex_unlock(&m->cache.lock);
}

static void range_op(struct dmamap_machine *m, enum dmamap_cache_level lvl, enum op op, phys_addr_t start,
		     size_t size, const char *what)
{
	if (!m || (unsigned)lvl >= DMAMAP_CACHE_LEVELS || !level_exists(m, lvl))
		return;
	if (!dm_phys_in_ram(m, start, size)) {
		range_not_ram(m, start, size, what);
		return;
	}
	range_op_ram(m, lvl, op, start, size);
}

/*
 * Invalidate a range the way ARMv7 (and L2x0) do for DMA: a line only partly
 * covered at either end is cleaned and invalidated, so that the data sharing
 * it outside the range survives; whole lines are invalidated.
 */
static void range_inv_edges_ram(struct dmamap_machine *m, enum dmamap_cache_level lvl, phys_addr_t start,
				size_t size)
{
	unsigned long first = line_of(m, start), last = line_of(m, start + size - 1);
	size_t ls = line_size(m);

	pthread_mutex_lock(&m->cache.lock);
	dmamap_track_quiet_begin();
	if ((start & (ls - 1)) != 0) {
		level_op(m, lvl, OP_FLUSH, first, first);
		first++;
	}
	if (first <= last && ((start + size) & (ls - 1)) != 0) {
		level_op(m, lvl, OP_FLUSH, last, last);
		if (last == 0)
			goto out;
		last--;
	}
	if (first <= last)
		level_op(m, lvl, OP_INV, first, last);
out:
	dmamap_track_quiet_end();
	pthread_mutex_unlock(&m->cache.lock);
}

/* range_inv_edges_ram() after the checks, for a range that may not be RAM. */
static void range_inv_edges(struct dmamap_machine *m, enum dmamap_cache_level lvl, phys_addr_t start, size_t size,
			    const char *what)
{
	if (!level_exists(m, lvl))
		return;
	if (!dm_phys_in_ram(m, start, size)) {
		range_not_ram(m, start, size, what);
		return;
	}
	range_inv_edges_ram(m, lvl, start, size);
}

DMAMAP_API void dmamap_cache_clean(struct dmamap_machine *m, enum dmamap_cache_level lvl, phys_addr_t start,
				   size_t size)
{
	range_op(m, lvl, OP_CLEAN, start, size, "cache clean");
}

DMAMAP_API void dmamap_cache_inv(struct dmamap_machine *m, enum dmamap_cache_level lvl, phys_addr_t start, size_t size)
{
	range_op(m, lvl, OP_INV, start, size, "cache invalidate");
}

DMAMAP_API void dmamap_cache_flush(struct dmamap_machine *m, enum dmamap_cache_level lvl, phys_addr_t start,
				   size_t size)
{
	range_op(m, lvl, OP_FLUSH, start, size, "cache flush");
}

DMAMAP_API enum dmamap_line_state dmamap_cache_line_state(struct dmamap_machine *m, enum dmamap_cache_level lvl,
							  phys_addr_t phys)
{
	enum dmamap_line_state st = DMAMAP_LINE_INVALID;
	unsigned long l;

	if (!m || (unsigned)lvl >= DMAMAP_CACHE_LEVELS || !level_exists(m, lvl) || !dm_phys_in_ram(m, phys, 1))
		return DMAMAP_LINE_INVALID;
	l = (unsigned long)((phys - m->cfg.ram_base) >> m->line_shift);
	pthread_mutex_lock(&m->cache.lock);
	dmamap_track_quiet_begin();
	if (lvl == DMAMAP_CACHE_INNER) {
		if (line_dirty(m, l))
			st = DMAMAP_LINE_DIRTY;
		else if (!tbit(m->cache.inner_nonres, l))
			st = DMAMAP_LINE_CLEAN;
	} else if (tbit(m->cache.outer_res, l)) {
		st = tbit(m->cache.outer_dirty, l) ? DMAMAP_LINE_DIRTY : DMAMAP_LINE_CLEAN;
	}
	dmamap_track_quiet_end();
	pthread_mutex_unlock(&m->cache.lock);
	return st;
}

DMAMAP_API int dmamap_cache_set_line_by_line(struct dmamap_machine *m, bool on)
{
	if (!m)
		return -EINVAL;
	pthread_mutex_lock(&m->cache.lock);
	m->cache.by_line = on;
	pthread_mutex_unlock(&m->cache.lock);
	return 0;
}

/* ------------------------------------------------------------ speculation */

/*
 * Pull the nonres lines of [first, last] in, each with the prefetch rate;
 * return whether some nonres line was left out. Lock held.
 */
/* The lines of @mask in word @w that a cache level does not hold. */
static unsigned long unheld_word(struct dmamap_machine *m, unsigned long w, unsigned long mask)
{
	struct dmamap_cache *c = &m->cache;

	return mask & (c->inner_nonres[w] | (m->outer ? ~c->outer_res[w] : 0));
}

/*
 * Prefetch the lines of [first, last] some level does not hold, each with
 * the prefetch rate; return whether some were left out. Lock held.
 */
static bool prefetch_range(struct dmamap_machine *m, unsigned long first, unsigned long last)
{
	struct dmamap_cache *c = &m->cache;
	bool left = false;

	for_each_word(w, mask, first, last) {
		unsigned long want = unheld_word(m, w, mask);

		if (!want)
			continue;
		if (c->prefetch_permille >= 1000 && !c->by_line) {
			prefetch_word(m, w, want);
			continue;
		}
		for (; want; want &= want - 1) {
			unsigned long l = w * BITS_PER_LONG + (unsigned long)__builtin_ctzl(want);

			if (c->prefetch_permille >= 1000 || dmamap_rng_next(&c->rng) % 1000 < c->prefetch_permille)
				prefetch_line(m, l);
			else
				left = true;
		}
	}
	return left;
}

/*
 * Count a speculation point. Not a locked add, which would cost a point
 * without queued runs as much as the lock it avoids: points in several
 * threads at the same instant may count once.
 */
static inline void count_spec_point(struct dmamap_cache *c)
{
	__atomic_store_n(&c->spec_points, __atomic_load_n(&c->spec_points, __ATOMIC_RELAXED) + 1, __ATOMIC_RELAXED);
}

/* A speculation point: every pending line may be pulled in; the runs still waiting stay queued. Lock held. */
static void speculate_locked(struct dmamap_machine *m)
{
	struct dmamap_cache *c = &m->cache;
	size_t kept = 0;

	count_spec_point(c);
	if (!c->prefetch_permille)
		return;
	for (size_t i = 0; i < c->spec_nr; i++) {
		struct dmamap_spec_range r = c->spec_runs[i];
		bool left = prefetch_range(m, r.first, r.last);

		/* a line stops waiting once held at both levels; a run waits while one of its lines does */
		for_each_word(w, mask, r.first, r.last)
			c->spec_pending[w] &= ~(left ? mask & ~unheld_word(m, w, mask) : mask);
		if (left)
			c->spec_runs[kept++] = r;
	}
	__atomic_store_n(&c->spec_nr, kept, __ATOMIC_RELEASE);
}

/* dmamap_cache_speculate() on a machine: the hooks' points, a direct call. */
static inline void cache_speculate(struct dmamap_machine *m)
{
	if (!m->cfg.speculative_prefetch)
		return;
	/* nothing queued: a point that finds nothing to pull in, without the lock (most of them) */
	if (!__atomic_load_n(&m->cache.spec_nr, __ATOMIC_ACQUIRE)) {
		count_spec_point(&m->cache);
		return;
	}
	pthread_mutex_lock(&m->cache.lock);
	dmamap_track_quiet_begin();
	speculate_locked(m);
	dmamap_track_quiet_end();
	pthread_mutex_unlock(&m->cache.lock);
}

DMAMAP_API void dmamap_cache_speculate(struct dmamap_machine *m)
{
	if (m)
		cache_speculate(m);
}

/* Count the bytes of [a, b) that differ between the cpu plane and plane @ref; lower *@first to the first, less @lo. */
static size_t count_diff(struct dmamap_machine *m, const u8 *ref, size_t a, size_t b, size_t lo, size_t *first)
{
	size_t n = 0;

	if (b - a >= 8 ? same_bytes(m->cpu + a, ref + a, NULL, b - a) : memcmp(m->cpu + a, ref + a, b - a) == 0)
		return 0;
	for (size_t i = a; i < b; i++) {
		if (m->cpu[i] == ref[i])
			continue;
		if (i - lo < *first)
			*first = i - lo;
		n++;
	}
	return n;
}

/* count_diff() over the lines of @mask (word @w), clipped to [lo, hi). */
static size_t count_stores(struct dmamap_machine *m, const u8 *ref, unsigned long w, unsigned long mask, size_t lo,
			   size_t hi, size_t *first)
{
	size_t n = 0;

	for_each_run(mask, w, l, k)
		n += count_diff(m, ref, DM_MAX(lo, line_off(m, l)), DM_MIN(hi, line_off(m, l + k)), lo, first);
	return n;
}

size_t dmamap_cache_cpu_stores(struct dmamap_machine *m, phys_addr_t phys, size_t len, size_t *first)
{
	size_t off = (size_t)(phys - m->cfg.ram_base), n = 0, at = SIZE_MAX;
	unsigned long fl = off >> m->line_shift, ll = (off + len - 1) >> m->line_shift;

	bool outer, stored;

	if (!len)
		return 0;
	pthread_mutex_lock(&m->cache.lock);
	dmamap_track_quiet_begin();
	if (inner_range_plain(m, fl, ll, &outer, &stored)) {
		/* every image below, one level: one comparison (the common case) */
		n = count_diff(m, outer ? m->outer : m->ram, off, off + len, off, &at);
	} else {
		for_each_word(w, mask, fl, ll) {
			unsigned long im = m->cache.img[w] & mask, held = held_word(m, w);

			n += count_stores(m, m->shadow, w, im, off, off + len, &at);
			n += count_stores(m, m->outer, w, mask & ~im & held, off, off + len, &at);
			n += count_stores(m, m->ram, w, mask & ~im & ~held, off, off + len, &at);
		}
	}
	dmamap_track_quiet_end();
	pthread_mutex_unlock(&m->cache.lock);
	if (n)
		*first = at;
	return n;
}

void dmamap_cache_cpu_view(struct dmamap_machine *m, phys_addr_t phys, size_t len, u8 *dst)
{
	pthread_mutex_lock(&m->cache.lock);
	dmamap_track_quiet_begin();
	memcpy(dst, m->cpu + (size_t)(phys - m->cfg.ram_base), len);
	dmamap_track_quiet_end();
	pthread_mutex_unlock(&m->cache.lock);
}

size_t dmamap_cache_cpu_changed(struct dmamap_machine *m, phys_addr_t phys, size_t len, const u8 *ref, size_t *first)
{
	size_t off = (size_t)(phys - m->cfg.ram_base), n, at = SIZE_MAX;

	if (!len)
		return 0;
	pthread_mutex_lock(&m->cache.lock);
	dmamap_track_quiet_begin();
	n = 0;
	if (len >= 8 ? !same_bytes(m->cpu + off, ref, NULL, len) : memcmp(m->cpu + off, ref, len) != 0) {
		for (size_t i = 0; i < len; i++) {
			if (m->cpu[off + i] == ref[i])
				continue;
			if (i < at)
				at = i;
			n++;
		}
	}
	dmamap_track_quiet_end();
	pthread_mutex_unlock(&m->cache.lock);
	if (n)
		*first = at;
	return n;
}

/*
 * Frames gained or lost an uncached alias: see internal.h. A page's lines
 * set their images aside as the first alias comes; they keep them until
 * written back or refilled after the last goes.
 */
void dmamap_cache_alias(struct dmamap_machine *m, unsigned long pfn, size_t count, bool on)
{
	struct dmamap_cache *c = &m->cache;
	unsigned long per = PAGE_SIZE >> m->line_shift;

	if (!c->alias_pages || pfn < m->base_pfn || pfn - m->base_pfn > m->nr_pages ||
	    count > m->nr_pages - (pfn - m->base_pfn))
		return;
	pthread_mutex_lock(&c->lock);
	dmamap_track_quiet_begin();
	for (size_t i = 0; i < count; i++) {
		size_t p = pfn - m->base_pfn + i;
		unsigned long first = p * per, last = first + per - 1;

		dm_lines_written(m, first, last);
		if (on ? c->alias_pages[p]++ != 0 : (!c->alias_pages[p] || --c->alias_pages[p] != 0))
			continue;
		for_each_word(w, mask, first, last) {
			if (on) {
				save_images(m, w, mask);
				c->alias[w] |= mask;
			} else {
				c->alias[w] &= ~mask;
				/* stores through the alias may have left RAM newer than the outer copy */
				if (m->outer)
					c->outer_stale[w] |= mask & c->outer_res[w];
			}
		}
	}
	dmamap_track_quiet_end();
	pthread_mutex_unlock(&c->lock);
}

DMAMAP_API int dmamap_cache_set_prefetch_rate(struct dmamap_machine *m, unsigned permille)
{
	if (!m || permille > 1000)
		return -EINVAL;
	pthread_mutex_lock(&m->cache.lock);
	m->cache.prefetch_permille = permille;
	pthread_mutex_unlock(&m->cache.lock);
	return 0;
}

/* ----------------------------------------------------------- device side */

void dmamap_mem_dev_read(struct dmamap_machine *m, phys_addr_t phys, void *dst, size_t len, bool snoop)
{
	size_t off = (size_t)(phys - m->cfg.ram_base);

	pthread_mutex_lock(&m->cache.lock);
	dmamap_track_quiet_begin();
	memcpy(dst, (snoop ? m->cpu : m->ram) + off, len);
	dmamap_track_quiet_end();
	m->cache.stats.device_bytes_read += len;
	pthread_mutex_unlock(&m->cache.lock);
	/* What the device read is defined as far as the driver is concerned. */
	dmamap_track_defined(dst, len);
}

/* Copy bytes [lo, hi) of lines @mask (word @w), clipped to [lo, hi), from plane @src to planes @dst and @dst2. */
static void copy_clipped(struct dmamap_machine *m, u8 *dst, u8 *dst2, const u8 *src, unsigned long w,
			 unsigned long mask, size_t lo, size_t hi)
{
	for_each_run(mask, w, l, n) {
		size_t a = DM_MAX(lo, line_off(m, l)), b = DM_MIN(hi, line_off(m, l + n));

		memcpy(dst + a, src + a, b - a);
		if (dst2)
			memcpy(dst2 + a, src + a, b - a);
	}
}

/*
 * Around a non-snooping device's write of RAM bytes [off, off + len):
 * before it (@after false), the lines whose level below is RAM and that will
 * not mirror the new bytes set their images aside (dev_write_before_line());
 * after it, the lines neither cache level holds mirror the bytes.
 */
static void dev_write_lines(struct dmamap_machine *m, size_t off, size_t len, bool after)
{
	struct dmamap_cache *c = &m->cache;
	unsigned long first = off >> m->line_shift, last = (off + len - 1) >> m->line_shift;

	if (c->by_line) {
		for (unsigned long l = first; l <= last; l++) {
			if (after)
				dev_write_after_line(m, l, off, len);
			else
				dev_write_before_line(m, l);
		}
		return;
	}
	for_each_word(w, mask, first, last) {
		unsigned long mine = mask & ~held_word(m, w), nonres = c->inner_nonres[w] & mine, dirty;

		if (!after && m->outer)
			c->outer_stale[w] |= mask & c->outer_res[w];
		if (after) {
			/*
			 * They mirror the bytes written, the images set aside too. (Not
			 * RAM as a whole: a line of a page that had an uncached alias
			 * may mirror stale bytes elsewhere, the model's one exception.)
			 */
			copy_clipped(m, m->cpu, NULL, m->ram, w, nonres, off, off + len);
			copy_clipped(m, m->shadow, NULL, m->ram, w, nonres & c->img[w], off, off + len);
			continue;
		}
		if (!mine)
			continue;
		/* a nonres line the CPU stored to was pulled in before the device wrote */
		dirty = nonres ? dirty_lines(m, w, nonres) : 0;
		c->inner_nonres[w] &= ~dirty;
		save_images(m, w, (mine & ~nonres) | dirty);
	}
}

static void dev_store(struct dmamap_machine *m, size_t off, const void *src, int ch, size_t len, bool snoop)
{
	struct dmamap_cache *c = &m->cache;

	pthread_mutex_lock(&c->lock);
	dmamap_track_quiet_begin();
	if (len)
		dm_lines_written(m, off >> m->line_shift, (off + len - 1) >> m->line_shift);
	if (!snoop)
		dev_write_lines(m, off, len, false);
	if (src)
		memcpy(m->ram + off, src, len);
	else
		memset(m->ram + off, ch, len);
	if (!snoop) {
		dev_write_lines(m, off, len, true);
	} else {
		unsigned long first = off >> m->line_shift, last = (off + len - 1) >> m->line_shift;

		/* A snooping write updates every copy: outer, inner, and the images set aside. */
		if (m->outer) {
			for_each_word(w, mask, first, last)
				copy_clipped(m, m->outer, NULL, m->ram, w, c->outer_res[w] & mask, off, off + len);
		}
		memcpy(m->cpu + off, m->ram + off, len);
		memcpy(m->shadow + off, m->ram + off, len);
	}
	c->stats.device_bytes_written += len;
	dmamap_track_quiet_end();
	pthread_mutex_unlock(&c->lock);
}

void dmamap_mem_dev_write(struct dmamap_machine *m, phys_addr_t phys, const void *src, size_t len, bool snoop)
{
	dev_store(m, (size_t)(phys - m->cfg.ram_base), src, 0, len, snoop);
}

void dmamap_mem_dev_fill(struct dmamap_machine *m, phys_addr_t phys, int ch, size_t len, bool snoop)
{
	dev_store(m, (size_t)(phys - m->cfg.ram_base), NULL, ch, len, snoop);
}

/* --------------------------------------------------------------- clearing */

enum zero_how { ZERO_STORE, ZERO_RELEASE, ZERO_RESIDENT };

/* Give back the host pages of [off, off + len) of a plane (of the memfd at file offset @foff, or anonymous when @fd < 0). */
static bool release_plane(u8 *plane, int fd, off_t foff, size_t off, size_t len)
{
	if (fd >= 0)
		return !fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, foff + (off_t)off, (off_t)len);
	return !madvise(plane + off, len, MADV_DONTNEED);
}

/* Whether the machine may have written the shadow or outer bytes of lines [first, last] (dm_lines_written()). */
static bool arena_written(const struct dmamap_machine *m, unsigned long first, unsigned long last)
{
	for (unsigned long u = first >> DM_UNIT_SHIFT; u <= last >> DM_UNIT_SHIFT; u++)
		if (tbit(m->units_written, u))
			return true;
	return false;
}

/*
 * Zero [off, off + len) of a plane: ZERO_STORE stores zeroes, ZERO_RELEASE
 * gives its host pages back, ZERO_RESIDENT stores into the pages the host
 * holds (they are about to be read again: a page given back would cost a
 * fault) and gives the others back (a hole is zero already; a page out on
 * swap must not be read back in to be zeroed).
 */
static void zero_plane(u8 *plane, int fd, off_t foff, size_t off, size_t len, enum zero_how how)
{
	unsigned char held[256];

	if (how == ZERO_RELEASE && release_plane(plane, fd, foff, off, len))
		return;
	if (how != ZERO_RESIDENT || sysconf(_SC_PAGESIZE) != PAGE_SIZE) {
		memset(plane + off, 0, len);
		return;
	}
	for (size_t end = off + len, chunk; off < end; off += chunk) {
		chunk = DM_MIN(end - off, sizeof(held) * PAGE_SIZE);
		if (mincore(plane + off, chunk, held)) {
			memset(plane + off, 0, end - off);
			return;
		}
		for (size_t i = 0, j, n = chunk / PAGE_SIZE; i < n; i = j) {
			size_t a = off + i * PAGE_SIZE;

			for (j = i + 1; j < n && (held[j] & 1) == (held[i] & 1); j++)
				;
			if ((held[i] & 1) || !release_plane(plane, fd, foff, a, (j - i) * PAGE_SIZE))
				memset(plane + a, 0, (j - i) * PAGE_SIZE);
		}
	}
}

bool dmamap_cache_clear_flush(struct dmamap_machine *m, phys_addr_t phys, size_t size)
{
	struct dmamap_cache *c = &m->cache;
	unsigned long first, last;
	size_t off;
	enum zero_how view = size < CLEAR_BY_RELEASE ? ZERO_STORE : ZERO_RELEASE, below = view;

	if (atomic_load(&c->ops) != &dmamap_default_cache_ops || ((phys | size) & ~PAGE_MASK) ||
	    !dm_phys_in_ram(m, phys, size))
		return false;
	off = (size_t)(phys - m->cfg.ram_base);
	first = off >> m->line_shift;
	last = (off + size - 1) >> m->line_shift;

	pthread_mutex_lock(&c->lock);
	if (c->by_line) {
		pthread_mutex_unlock(&c->lock);
		return false;
	}
	dmamap_track_quiet_begin();
	/* dmac_flush_range speculates first, before the stores are seen */
	if (m->cfg.speculative_prefetch)
		speculate_locked(m);
	/*
	 * With speculation the next speculation point reads RAM and the outer
	 * copy of every line just flushed (the outer cache allocates them
	 * again): the pages of those two planes the host holds are zeroed in
	 * place. The CPU view and the shadow are not read until the buffer is.
	 */
	if (view == ZERO_RELEASE && m->cfg.speculative_prefetch)
		below = ZERO_RESIDENT;
	zero_plane(m->ram, m->mem_fd, dm_plane_foff(m, false, 0), off, size, below);
	zero_plane(m->cpu, m->mem_fd, dm_plane_foff(m, true, 0), off, size, view);
	/* the arena's planes are zero where the machine never wrote them (units_written) */
	if (arena_written(m, first, last)) {
		zero_plane(m->shadow, -1, 0, off, size, view);
		if (m->outer)
			zero_plane(m->outer, -1, 0, off, size, below);
	}
	/* the CPU stored the zeroes: every line dirty, as dm_cpu_store() would leave it */
	for_each_word(w, mask, first, last)
		__atomic_fetch_or(&m->cpu_stored[w], mask, __ATOMIC_RELAXED);
	c->zero_first = first;
	c->zero_end = last + 1;
	level_op(m, DMAMAP_CACHE_INNER, OP_FLUSH, first, last);
	/* outer_flush_range speculates too, then flushes the outer level */
	if (m->cfg.speculative_prefetch)
		speculate_locked(m);
	if (m->outer)
		level_op(m, DMAMAP_CACHE_OUTER, OP_FLUSH, first, last);
	/*
	 * The shadow holds the lines' image too (zeroes): say so, and an
	 * uncached alias of the buffer, which comes next, has nothing to set aside.
	 */
	for_each_word(w, mask, first, last) {
		c->img[w] |= mask;
		if (m->outer)
			c->outer_stale[w] &= ~mask; /* RAM and the outer copy: zeroes both */
	}
	c->zero_first = c->zero_end = 0;
	dmamap_track_quiet_end();
	/* the stores and the write-backs would have left defined zeroes on every plane */
	dmamap_track_defined(m->ram + off, size);
	dmamap_track_defined(m->shadow + off, size);
	if (m->outer)
		dmamap_track_defined(m->outer + off, size);
	pthread_mutex_unlock(&c->lock);
	dmamap_track_defined(m->cpu + off, size);
	return true;
}

void dmamap_clear_buffer(struct dmamap_machine *m, phys_addr_t phys, size_t size)
{
	const struct dmamap_cache_ops *ops = dm_cache_ops(m);
	u8 *va = dm_phys_to_virt(m, phys);

	if (dmamap_cache_clear_flush(m, phys, size))
		return;
	dm_cpu_store(m, va, NULL, 0, size);
	ops->dmac_flush_range(m, va, va + size);
	ops->outer_flush_range(m, phys, phys + size);
}

/* ------------------------------------------------------------ the hooks */

/* Whether [kaddr, kaddr + size) lies in @m's linear map (so in its RAM, at *@phys), else false after a report. */
static bool kaddr_range(struct dmamap_machine *m, const void *kaddr, size_t size, phys_addr_t *phys,
			const char *what)
{
	if (!dm_linear_range(m, kaddr, size)) {
		dmamap_report(m, DMAMAP_REPORT_BAD_ADDRESS, NULL, NULL, 0,
			      "%s(%p, %#zx): not a linear-map range of this machine; ignored", what, kaddr, size);
		return false;
	}
	*phys = dm_virt_to_phys(m, kaddr);
	return true;
}

static void v7_dma_map_area(struct dmamap_machine *m, const void *kaddr, size_t size, int dir)
{
	phys_addr_t p;

	cache_speculate(m);
	if (!kaddr_range(m, kaddr, size, &p, "dmac_map_area"))
		return;
	if (dir == DMA_FROM_DEVICE)
		range_inv_edges_ram(m, DMAMAP_CACHE_INNER, p, size);
	else
		range_op_ram(m, DMAMAP_CACHE_INNER, OP_CLEAN, p, size);
}

static void v7_dma_unmap_area(struct dmamap_machine *m, const void *kaddr, size_t size, int dir)
{
	phys_addr_t p;

	cache_speculate(m);
	if (!kaddr_range(m, kaddr, size, &p, "dmac_unmap_area"))
		return;
	if (dir != DMA_TO_DEVICE)
		range_inv_edges_ram(m, DMAMAP_CACHE_INNER, p, size);
}

static void v7_dma_flush_range(struct dmamap_machine *m, const void *start, const void *end)
{
	size_t len = (uintptr_t)end > (uintptr_t)start ? (size_t)((uintptr_t)end - (uintptr_t)start) : 0;
	phys_addr_t p;

	cache_speculate(m);
	if (!len || !kaddr_range(m, start, len, &p, "dmac_flush_range"))
		return;
	range_op_ram(m, DMAMAP_CACHE_INNER, OP_FLUSH, p, len);
}

static bool outer_args(struct dmamap_machine *m, phys_addr_t start, phys_addr_t end)
{
	cache_speculate(m);
	return m->outer && end > start;
}

static void l2_clean_range(struct dmamap_machine *m, phys_addr_t start, phys_addr_t end)
{
	if (outer_args(m, start, end))
		range_op(m, DMAMAP_CACHE_OUTER, OP_CLEAN, start, (size_t)(end - start), "outer_clean_range");
}

static void l2_inv_range(struct dmamap_machine *m, phys_addr_t start, phys_addr_t end)
{
	if (outer_args(m, start, end))
		range_inv_edges(m, DMAMAP_CACHE_OUTER, start, (size_t)(end - start), "outer_inv_range");
}

static void l2_flush_range(struct dmamap_machine *m, phys_addr_t start, phys_addr_t end)
{
	if (outer_args(m, start, end))
		range_op(m, DMAMAP_CACHE_OUTER, OP_FLUSH, start, (size_t)(end - start), "outer_flush_range");
}

DMAMAP_API const struct dmamap_cache_ops dmamap_default_cache_ops = {
	.dmac_map_area = v7_dma_map_area,
	.dmac_unmap_area = v7_dma_unmap_area,
	.dmac_flush_range = v7_dma_flush_range,
	.outer_clean_range = l2_clean_range,
	.outer_inv_range = l2_inv_range,
	.outer_flush_range = l2_flush_range,
};

DMAMAP_API int dmamap_cache_set_ops(struct dmamap_machine *m, const struct dmamap_cache_ops *ops)
{
	if (!m)
		return -EINVAL;
	if (!ops)
		ops = &dmamap_default_cache_ops;
	if (!ops->dmac_map_area || !ops->dmac_unmap_area || !ops->dmac_flush_range || !ops->outer_clean_range ||
	    !ops->outer_inv_range || !ops->outer_flush_range)
		return -EINVAL;
	atomic_store(&m->cache.ops, ops);
	return 0;
}

DMAMAP_API const struct dmamap_cache_ops *dmamap_cache_get_ops(struct dmamap_machine *m)
{
	return m ? atomic_load(&m->cache.ops) : NULL;
}

static struct dmamap_machine *kaddr_machine(const void *kaddr, const char *what)
{
	struct dmamap_machine *m = dmamap_registry_lookup(kaddr);

	if (!m)
		dmamap_report(NULL, DMAMAP_REPORT_BAD_ADDRESS, NULL, NULL, 0,
			      "%s(%p): not a linear-map address of any machine; ignored", what, kaddr);
	return m;
}

DMAMAP_API void dmac_map_area(const void *kaddr, size_t size, int dir)
{
	struct dmamap_machine *m = kaddr_machine(kaddr, "dmac_map_area");

	if (m)
		atomic_load(&m->cache.ops)->dmac_map_area(m, kaddr, size, dir);
}

DMAMAP_API void dmac_unmap_area(const void *kaddr, size_t size, int dir)
{
	struct dmamap_machine *m = kaddr_machine(kaddr, "dmac_unmap_area");

	if (m)
		atomic_load(&m->cache.ops)->dmac_unmap_area(m, kaddr, size, dir);
}

DMAMAP_API void dmac_flush_range(const void *start, const void *end)
{
	struct dmamap_machine *m = kaddr_machine(start, "dmac_flush_range");

	if (m)
		atomic_load(&m->cache.ops)->dmac_flush_range(m, start, end);
}

DMAMAP_API void outer_clean_range(phys_addr_t start, phys_addr_t end)
{
	struct dmamap_machine *m = dmamap_machine_current();

	if (m)
		atomic_load(&m->cache.ops)->outer_clean_range(m, start, end);
}

DMAMAP_API void outer_inv_range(phys_addr_t start, phys_addr_t end)
{
	struct dmamap_machine *m = dmamap_machine_current();

	if (m)
		atomic_load(&m->cache.ops)->outer_inv_range(m, start, end);
}

DMAMAP_API void outer_flush_range(phys_addr_t start, phys_addr_t end)
{
	struct dmamap_machine *m = dmamap_machine_current();

	if (m)
		atomic_load(&m->cache.ops)->outer_flush_range(m, start, end);
}

DMAMAP_API void dmamap_cache_get_stats(struct dmamap_machine *m, struct dmamap_cache_stats *st)
{
	if (!m || !st)
		return;
	pthread_mutex_lock(&m->cache.lock);
	*st = m->cache.stats;
	st->speculation_points = __atomic_load_n(&m->cache.spec_points, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&m->cache.lock);
}

DMAMAP_API void dmamap_cache_reset_stats(struct dmamap_machine *m)
{
	if (!m)
		return;
	pthread_mutex_lock(&m->cache.lock);
	memset(&m->cache.stats, 0, sizeof(m->cache.stats));
	__atomic_store_n(&m->cache.spec_points, 0, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&m->cache.lock);
}
