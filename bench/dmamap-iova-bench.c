/* SPDX-License-Identifier: MIT */
/*
 * dmamap-iova-bench: IOVA allocators side by side (BENCH.md).
 *
 * Four allocators behind one adapter (iova-impl.h): seed, rbtree,
 * rbtree+mag and dmamap. Each figure runs them interleaved, in rounds of a
 * few hundred operations, so that the machine's noise falls on all alike.
 *
 * Workloads (pages are IOVA pages; sizes in pages):
 *   W1  fixed sizes 1, 16, 256: a FIFO of 64 or 1024 live, or 1024 freed in
 *       random order, in a space aged to 90 %
 *   W2  mixed sizes 1..256, P(n) ~ n^-1.5, random frees, fresh space
 *   W3  W2 in a space aged to 90 % (W2 run for 10x its capacity)
 *   W4  95 % and 99 % full: mixed pairs, and a failing allocation
 *   W5  1 and 2 threads on one allocator, and producer/consumer, beside
 *       two references: threads of arithmetic, and the ring alone
 *   W6  space sizes 2^12 .. 2^24 (W3 and 1-page pairs at each)
 *   W7  a full 32-bit space of 1-page allocations: free one, allocate one
 *
 * Aging: the space is brought to its occupancy by W2 churn on the dmamap
 * allocator; the same live set is then placed into every other allocator,
 * so that all start from one fragmentation; each runs its own policy from
 * there (a warm-up round precedes every figure).
 *
 * Single operations are sampled with the TSC (bench.h); W5 times batches
 * with clock_gettime.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "iova-impl.h"

#define NIMPL 5
#define MAX_SIZES 8

static const struct iova_impl *impls[NIMPL] = {
	&iova_impl_seed,
	&iova_impl_rbtree,
	&iova_impl_rbtree_mag,
	&iova_impl_dmamap,
	&iova_impl_dmamap_mag,
};
enum { I_SEED, I_RBTREE, I_RBMAG, I_DMAMAP, I_DMAG };

/* ------------------------------------------------------------ options */

static struct {
	bool quick;
	const char *json, *plot;
	unsigned base_log2;           /* space of W1-W5, W7 */
	unsigned sizes[MAX_SIZES];    /* W6 space sizes, log2 */
	unsigned nsizes;
	unsigned threads;             /* W5 */
	size_t samples;               /* per allocator and figure */
	double cap_s;                 /* time cap per allocator and figure */
	uint64_t seed;
	unsigned age_factor;          /* aging: W2 churn for this many times the capacity */
	unsigned age_large;           /* the same, for W6 spaces larger than the base space */
	bool enabled[NIMPL];
	bool workload[8];             /* W1..W7 */
} opt;

static void usage(FILE *f)
{
	fprintf(f,
		"usage: dmamap-iova-bench [options]\n"
		"  --quick            CI form: smaller spaces and fewer samples (under 20 s)\n"
		"  --json FILE        write every result as JSON\n"
		"  --plot DIR         write PNG charts with gnuplot into DIR\n"
		"  -s, --space LOG2   space of W1-W5 and W7, in pages (default 20)\n"
		"  --sizes L1,L2,..   W6 space sizes, log2 pages (default 12,16,20,24)\n"
		"  -t, --threads N    W5 threads (default 2)\n"
		"  -n, --samples N    samples per allocator and figure (default 200000)\n"
		"  --cap SECONDS      time cap per allocator and figure (default 0.4)\n"
		"  --age N            aging churn, in times the capacity (default 10)\n"
		"  --age-large N      aging churn of W6 spaces above the base space (default 1)\n"
		"  --only W1,W3,...   run these workloads only\n"
		"  --allocators LIST  compare these only (seed,rbtree,rbtree+mag,dmamap,dmamap+mag)\n"
		"  --seed N           random seed (default 1)\n");
}

static int parse_list_u(const char *s, unsigned *out, unsigned max)
{
	unsigned n = 0;
	char *end;

	while (*s && n < max) {
		unsigned long v = strtoul(s, &end, 10);

		if (end == s)
			return -1;
		out[n++] = (unsigned)v;
		s = *end == ',' ? end + 1 : end;
	}
	return (int)n;
}

static int parse_options(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "quick", no_argument, NULL, 'q' },
		{ "json", required_argument, NULL, 'j' },
		{ "plot", required_argument, NULL, 'p' },
		{ "space", required_argument, NULL, 's' },
		{ "sizes", required_argument, NULL, 'S' },
		{ "threads", required_argument, NULL, 't' },
		{ "samples", required_argument, NULL, 'n' },
		{ "cap", required_argument, NULL, 'c' },
		{ "age", required_argument, NULL, 'a' },
		{ "age-large", required_argument, NULL, 'L' },
		{ "only", required_argument, NULL, 'o' },
		{ "allocators", required_argument, NULL, 'A' },
		{ "seed", required_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ 0, 0, 0, 0 },
	};
	bool sizes_set = false, samples_set = false, cap_set = false, age_set = false, age_large_set = false;
	int c;

	opt.base_log2 = 20;
	opt.threads = 2;
	opt.seed = 1;
	for (unsigned i = 0; i < NIMPL; i++)
		opt.enabled[i] = true;
	for (unsigned i = 1; i <= 7; i++)
		opt.workload[i] = true;

	while ((c = getopt_long(argc, argv, "s:t:n:h", lo, NULL)) != -1) {
		switch (c) {
		case 'q':
			opt.quick = true;
			break;
		case 'j':
			opt.json = optarg;
			break;
		case 'p':
			opt.plot = optarg;
			break;
		case 's':
			opt.base_log2 = (unsigned)strtoul(optarg, NULL, 10);
			break;
		case 'S': {
			int n = parse_list_u(optarg, opt.sizes, MAX_SIZES);

			if (n <= 0)
				return -1;
			opt.nsizes = (unsigned)n;
			sizes_set = true;
			break;
		}
		case 't':
			opt.threads = (unsigned)strtoul(optarg, NULL, 10);
			break;
		case 'n':
			opt.samples = strtoul(optarg, NULL, 10);
			samples_set = true;
			break;
		case 'c':
			opt.cap_s = strtod(optarg, NULL);
			cap_set = true;
			break;
		case 'a':
			opt.age_factor = (unsigned)strtoul(optarg, NULL, 10);
			age_set = true;
			break;
		case 'L':
			opt.age_large = (unsigned)strtoul(optarg, NULL, 10);
			age_large_set = true;
			break;
		case 'o': {
			unsigned w[8];
			int n;

			for (unsigned i = 1; i <= 7; i++)
				opt.workload[i] = false;
			{
				char buf[64], *q = buf;

				for (const char *p = optarg; *p && q < buf + sizeof(buf) - 1; p++)
					if (*p != 'W' && *p != 'w')
						*q++ = *p;
				*q = 0;
				n = parse_list_u(buf, w, 8);
			}
			if (n <= 0)
				return -1;
			for (int i = 0; i < n; i++)
				if (w[i] >= 1 && w[i] <= 7)
					opt.workload[w[i]] = true;
			break;
		}
		case 'A':
			for (unsigned i = 0; i < NIMPL; i++) {
				const char *p = optarg;
				size_t len = strlen(impls[i]->name);

				opt.enabled[i] = false;
				while ((p = strstr(p, impls[i]->name))) {
					if ((p == optarg || p[-1] == ',') && (p[len] == 0 || p[len] == ',')) {
						opt.enabled[i] = true;
						break;
					}
					p += len;
				}
			}
			break;
		case 'r':
			opt.seed = strtoull(optarg, NULL, 10);
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			return -1;
		}
	}
	if (optind != argc || opt.base_log2 < 10 || opt.base_log2 > 30 || opt.threads < 1 || opt.threads > 64)
		return -1;
	if (!age_set)
		opt.age_factor = opt.quick ? 1 : 10;
	/* 10x the capacity of 2^24 pages takes minutes on its own */
	if (!age_large_set)
		opt.age_large = opt.age_factor < 1 ? opt.age_factor : 1;
	if (!sizes_set) {
		static const unsigned def[] = { 12, 16, 20, 24 }, quick[] = { 12, 16, 20 };

		opt.nsizes = opt.quick ? 3 : 4;
		memcpy(opt.sizes, opt.quick ? quick : def, opt.nsizes * sizeof(unsigned));
	}
	for (unsigned i = 0; i < opt.nsizes; i++)
		if (opt.sizes[i] < 10 || opt.sizes[i] > 30)
			return -1;
	if (!samples_set)
		opt.samples = opt.quick ? 20000 : 50000;
	if (!cap_set)
		opt.cap_s = opt.quick ? 0.06 : 0.1;
	return 0;
}

/* ------------------------------------------------------------ sizes P(n) ~ n^-1.5 */

#define MIXED_MAX 256
static double mixed_cdf[MIXED_MAX + 1];

static void mixed_init(void)
{
	double sum = 0;

	for (unsigned n = 1; n <= MIXED_MAX; n++)
		sum += pow(n, -1.5);
	mixed_cdf[0] = 0;
	for (unsigned n = 1; n <= MIXED_MAX; n++)
		mixed_cdf[n] = mixed_cdf[n - 1] + pow(n, -1.5) / sum;
}

static uint64_t mixed_size(uint64_t *rng)
{
	double u = (double)(bench_rng(rng) >> 11) * 0x1p-53;
	unsigned lo = 1, hi = MIXED_MAX;

	while (lo < hi) {
		unsigned mid = (lo + hi) / 2;

		if (mixed_cdf[mid] >= u)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/* ------------------------------------------------------------ live sets */

struct range {
	uint64_t first, n;
};

struct live {
	struct range *r;
	size_t n, cap, head;      /* head: FIFO start (ring use) */
	uint64_t pages;
};

static void live_init(struct live *l, size_t cap)
{
	memset(l, 0, sizeof(*l));
	l->cap = cap ? cap : 16;
	l->r = malloc(l->cap * sizeof(*l->r));
	if (!l->r) {
		perror("malloc");
		exit(2);
	}
}

static void live_free(struct live *l)
{
	free(l->r);
	memset(l, 0, sizeof(*l));
}

static void live_push(struct live *l, uint64_t first, uint64_t n)
{
	if (l->n == l->cap) {
		/* linearise the ring while growing */
		struct range *r = malloc(2 * l->cap * sizeof(*r));

		if (!r) {
			perror("malloc");
			exit(2);
		}
		for (size_t i = 0; i < l->n; i++)
			r[i] = l->r[(l->head + i) % l->cap];
		free(l->r);
		l->r = r;
		l->head = 0;
		l->cap *= 2;
	}
	l->r[(l->head + l->n) % l->cap] = (struct range){ first, n };
	l->n++;
	l->pages += n;
}

static struct range live_take(struct live *l, size_t i)
{
	size_t at = (l->head + i) % l->cap, last = (l->head + l->n - 1) % l->cap;
	struct range out = l->r[at];

	l->r[at] = l->r[last];
	l->n--;
	l->pages -= out.n;
	return out;
}

static struct range live_take_oldest(struct live *l)
{
	struct range out = l->r[l->head];

	l->head = (l->head + 1) % l->cap;
	l->n--;
	l->pages -= out.n;
	return out;
}

/* ------------------------------------------------------------ shadow map: the truth */

/*
 * One bit per page (1: live), plus, per 64-page word and per c = 0..6, one
 * bit telling whether the word holds a free block of 2^c pages aligned to
 * 2^c. A first fit of n <= 64 pages lies inside one word that has a block of
 * 2^floor(log2 n): it visits only such words; a larger one starts at a word
 * boundary and spans wholly free words: it walks the runs of those. Setting a
 * figure up asks for many first fits at 90 % full and more: a linear scan of
 * the pages took most of a default run.
 */
#define SHADOW_CLASSES 7

struct shadow {
	uint64_t *w;
	uint64_t pages, nwords;
	uint64_t *has[SHADOW_CLASSES];   /* [c]: bit per word, a free aligned 2^c block */
};

static const uint64_t shadow_lane[SHADOW_CLASSES] = {
	~0ULL, 0x5555555555555555ULL, 0x1111111111111111ULL, 0x0101010101010101ULL,
	0x0001000100010001ULL, 0x0000000100000001ULL, 0x1ULL,
};

static void shadow_classify(struct shadow *s, uint64_t x)
{
	uint64_t blocks = ~s->w[x], bit = 1ULL << (x % 64);

	for (unsigned c = 0; c < SHADOW_CLASSES; c++) {
		if (c)
			blocks &= (blocks >> (1u << (c - 1))) & shadow_lane[c];
		s->has[c][x / 64] = blocks ? s->has[c][x / 64] | bit : s->has[c][x / 64] & ~bit;
	}
}

static void shadow_init(struct shadow *s, uint64_t pages)
{
	uint64_t sum;

	s->pages = pages;
	s->nwords = (pages + 63) / 64;
	sum = (s->nwords + 63) / 64;
	s->w = calloc(s->nwords, 8);
	for (unsigned c = 0; c < SHADOW_CLASSES; c++)
		s->has[c] = calloc(sum, 8);
	for (unsigned c = 0; c < SHADOW_CLASSES; c++)
		if (!s->w || !s->has[c]) {
			perror("calloc");
			exit(2);
		}
	/* the pages past the end of the last word: live for ever */
	if (pages % 64)
		s->w[s->nwords - 1] = ~0ULL << (pages % 64);
	for (uint64_t x = 0; x < s->nwords; x++)
		shadow_classify(s, x);
}

static void shadow_fini(struct shadow *s)
{
	free(s->w);
	s->w = NULL;
	for (unsigned c = 0; c < SHADOW_CLASSES; c++) {
		free(s->has[c]);
		s->has[c] = NULL;
	}
}

/* Set (@set) or clear [first, first + n); false if some page was not in the opposite state. */
static bool shadow_assign(struct shadow *s, uint64_t first, uint64_t n, bool set)
{
	bool ok = first + n <= s->pages && first + n > first;

	for (uint64_t i = first; ok && i < first + n;) {
		uint64_t b = i % 64, take = 64 - b < first + n - i ? 64 - b : first + n - i;
		uint64_t m = (take == 64 ? ~0ULL : (1ULL << take) - 1) << b;
		uint64_t *w = &s->w[i / 64];

		if (set ? (*w & m) : ((*w & m) != m))
			ok = false;
		*w = set ? *w | m : *w & ~m;
		shadow_classify(s, i / 64);
		i += take;
	}
	return ok;
}

/* The first bit >= @from of bitmap @m (@nbits bits) that is @set, or nbits. */
static uint64_t bitmap_next(const uint64_t *m, uint64_t nbits, uint64_t from, bool set)
{
	while (from < nbits) {
		uint64_t v = (set ? m[from / 64] : ~m[from / 64]) & (~0ULL << (from % 64));

		if (v) {
			from = from / 64 * 64 + (uint64_t)__builtin_ctzll(v);
			break;
		}
		from = (from / 64 + 1) * 64;
	}
	return from < nbits ? from : nbits;
}

/* Bit i set when bits i .. i + n - 1 of @x are all set (1 <= n <= 64). */
static uint64_t shadow_runs(uint64_t x, uint64_t n)
{
	uint64_t res = x;

	for (uint64_t len = 1; len < n;) {
		uint64_t step = len < n - len ? len : n - len;

		res &= res >> step;
		len += step;
	}
	return res;
}

/* The first run of @n free pages at or above @start aligned to the shared rule, or IOVA_BENCH_FAIL. */
static uint64_t shadow_first_fit(const struct shadow *s, uint64_t n, uint64_t start)
{
	unsigned lg = iova_bench_align_order(n);
	uint64_t x;

	if (!n || start >= s->pages || n > s->pages)
		return IOVA_BENCH_FAIL;
	if (n <= 64) {
		unsigned f = 63 - (unsigned)__builtin_clzll(n);

		for (x = bitmap_next(s->has[f], s->nwords, start / 64, true); x < s->nwords;
		     x = bitmap_next(s->has[f], s->nwords, x + 1, true)) {
			uint64_t fits = shadow_runs(~s->w[x], n) & shadow_lane[lg];

			if (x == start / 64)
				fits &= ~0ULL << (start % 64);
			if (fits)
				return x * 64 + (uint64_t)__builtin_ctzll(fits);
		}
		return IOVA_BENCH_FAIL;
	}
	/* a start on a boundary of 2^lg >= 128 pages: whole free words, then a free prefix */
	{
		uint64_t aw = (1ULL << lg) / 64, nfull = n / 64, rem = n % 64;

		x = (start + (1ULL << lg) - 1) / 64 / aw * aw;
		for (;;) {
			uint64_t z;

			x = bitmap_next(s->has[6], s->nwords, x, true);
			x = (x + aw - 1) / aw * aw;
			if (x >= s->nwords || nfull > s->nwords - x)
				return IOVA_BENCH_FAIL;
			z = bitmap_next(s->has[6], s->nwords, x, false);
			if (z < x + nfull) {
				x = z + 1;
				continue;
			}
			if (!rem || (x + nfull < s->nwords &&
				     (s->w[x + nfull] & ((1ULL << rem) - 1)) == 0))
				return x * 64;
			x += aw;
		}
	}
}

static bool shadow_has_run(const struct shadow *s, uint64_t n)
{
	return shadow_first_fit(s, n, 0) != IOVA_BENCH_FAIL;
}

/* ------------------------------------------------------------ runners */

struct runner {
	unsigned idx;
	const struct iova_impl *impl;
	void *a;
	uint64_t pages;
	struct live bg;               /* the aged background */
	struct live own;              /* the figure's own churn set */
	struct shadow sh;
	uint64_t rng, rng0;
	/* per figure */
	struct bench_samples pair, alloc, free;
	unsigned long failures, failures_with_space, ops;
	double spent_ns;
	bool done;
	bool measuring;               /* failures are checked against the shadow */
	uint64_t setup_hint;          /* where the next untimed setup allocation looks first */
};

static void fatal_overlap(struct runner *r, uint64_t first, uint64_t n, const char *what)
{
	fprintf(stderr, "\n%s: %s [%llu, +%llu): the allocator is wrong\n", r->impl->name, what,
		(unsigned long long)first, (unsigned long long)n);
	exit(3);
}

/* Allocate @n pages into @l; ticks in *t; false on failure (counted). */
static bool r_alloc(struct runner *r, struct live *l, uint64_t n, uint64_t *t)
{
	uint64_t t0 = bench_ticks();
	uint64_t first = r->impl->alloc(r->a, n);
	uint64_t t1 = bench_ticks();

	if (t)
		*t = t1 - t0;
	r->ops++;
	if (first == IOVA_BENCH_FAIL) {
		r->failures++;
		/* the truth is costly to ask: only while a figure is measured */
		if (r->measuring && shadow_has_run(&r->sh, n))
			r->failures_with_space++;
		return false;
	}
	if (first & ((1ULL << iova_bench_align_order(n)) - 1))
		fatal_overlap(r, first, n, "misaligned allocation");
	if (!shadow_assign(&r->sh, first, n, true))
		fatal_overlap(r, first, n, "allocation overlaps a live range");
	live_push(l, first, n);
	return true;
}

static void r_free_range(struct runner *r, struct range g, uint64_t *t)
{
	uint64_t t0, t1;

	if (!shadow_assign(&r->sh, g.first, g.n, false))
		fatal_overlap(r, g.first, g.n, "freeing a range not live");
	t0 = bench_ticks();
	r->impl->free(r->a, g.first, g.n);
	t1 = bench_ticks();
	if (t)
		*t = t1 - t0;
	r->ops++;
}

/*
 * An untimed allocation that sets a figure up. Allocators that can take a
 * given range get the first fit of the shadow map placed (the rbtree's own
 * search can take milliseconds at 90 %: setting up must not); the others
 * allocate.
 */
static bool r_setup_alloc(struct runner *r, struct live *l, uint64_t n)
{
	uint64_t first;

	if (!r->impl->place)
		return r_alloc(r, l, n, NULL);
	/*
	 * Next fit from the last one set up, then from the start; past a place
	 * the allocator refuses (rbtree+mag holds small ranges rounded up to a
	 * power of two, which the shadow of what was asked does not show).
	 */
	first = shadow_first_fit(&r->sh, n, r->setup_hint);
	for (unsigned tries = 0;; tries++) {
		if (first == IOVA_BENCH_FAIL && r->setup_hint) {
			r->setup_hint = 0;
			first = shadow_first_fit(&r->sh, n, 0);
		}
		if (first == IOVA_BENCH_FAIL || tries == 256)
			return false;
		if (!r->impl->place(r->a, first, n))
			break;
		first = shadow_first_fit(&r->sh, n, first + 1);
	}
	r->setup_hint = first + n;
	shadow_assign(&r->sh, first, n, true);
	live_push(l, first, n);
	return true;
}

static double occupancy(const struct runner *r)
{
	return (double)(r->bg.pages + r->own.pages) / (double)r->pages;
}

static void r_reset_figure(struct runner *r, size_t samples)
{
	bench_samples_free(&r->pair);
	bench_samples_free(&r->alloc);
	bench_samples_free(&r->free);
	if (bench_samples_init(&r->pair, samples) || bench_samples_init(&r->alloc, samples) ||
	    bench_samples_init(&r->free, samples)) {
		perror("malloc");
		exit(2);
	}
	/* touch the buffers now, not while sampling */
	memset(r->pair.v, 0, samples * sizeof(*r->pair.v));
	memset(r->alloc.v, 0, samples * sizeof(*r->alloc.v));
	memset(r->free.v, 0, samples * sizeof(*r->free.v));
	r->failures = r->failures_with_space = r->ops = 0;
	r->spent_ns = 0;
	r->done = false;
	r->measuring = true;
}

static void r_destroy(struct runner *r)
{
	/* everything back first: an allocator destroyed with ranges live would report them */
	while (r->own.n)
		r_free_range(r, live_take_oldest(&r->own), NULL);
	while (r->bg.n)
		r_free_range(r, live_take_oldest(&r->bg), NULL);
	if (r->a)
		r->impl->destroy(r->a);
	r->a = NULL;
	live_free(&r->bg);
	live_free(&r->own);
	shadow_fini(&r->sh);
	bench_samples_free(&r->pair);
	bench_samples_free(&r->alloc);
	bench_samples_free(&r->free);
}

static void place_live(struct runner *r, const struct live *src);

/* ------------------------------------------------------------ the set of runners */

static struct runner run[NIMPL];
static unsigned nrun;

static void runners_destroy(void)
{
	for (unsigned i = 0; i < nrun; i++)
		r_destroy(&run[i]);
	nrun = 0;
}

static struct runner *runner_of(unsigned impl)
{
	for (unsigned i = 0; i < nrun; i++)
		if (run[i].idx == impl)
			return &run[i];
	return NULL;
}

static void runner_create(struct runner *r, unsigned impl, uint64_t pages)
{
	memset(r, 0, sizeof(*r));
	r->idx = impl;
	r->impl = impls[impl];
	r->pages = pages;
	r->a = r->impl->create(pages);
	if (!r->a) {
		fprintf(stderr, "%s: cannot create a space of %llu pages\n", r->impl->name, (unsigned long long)pages);
		exit(2);
	}
	live_init(&r->bg, 1024);
	live_init(&r->own, 1024);
	shadow_init(&r->sh, pages);
	r->rng = opt.seed * 1000003u + impl;
	r->rng0 = r->rng;
}

/* W2 churn on @src until @churn_pages have been allocated and occupancy is near @target. */
static void age_one(struct runner *src, double target, uint64_t churn_pages, const char *label)
{
	uint64_t done = 0;
	unsigned long iter = 0;

	while (done < churn_pages || occupancy(src) < target - 0.002) {
		if (occupancy(src) < target) {
			uint64_t n = mixed_size(&src->rng);

			if (r_alloc(src, &src->bg, n, NULL))
				done += n;
			else if (src->bg.n)
				r_free_range(src, live_take(&src->bg, bench_rng(&src->rng) % src->bg.n), NULL);
		} else {
			r_free_range(src, live_take(&src->bg, bench_rng(&src->rng) % src->bg.n), NULL);
		}
		if (!(++iter & 0xffff))
			bench_progress("%s: aging %.0f%% (%.1f%% full)", label,
				       100.0 * (double)done / (double)(churn_pages ? churn_pages : 1),
				       100 * occupancy(src));
	}
}

/*
 * Age: W2 churn on the dmamap allocator (or dmamap+mag, or the first enabled
 * one: a tree ages slowly, a node per range at 90 % full); then every other
 * runner receives the same live set, or, when it cannot take a given state
 * (dmamap+mag), goes through the same churn with the same seed.
 */
static void age_all(double target, uint64_t churn_pages, const char *label)
{
	struct runner *src = runner_of(I_DMAMAP);

	if (!src)
		src = runner_of(I_DMAG);
	if (!src)
		src = &run[0];
	age_one(src, target, churn_pages, label);
	for (unsigned i = 0; i < nrun; i++) {
		if (&run[i] == src)
			continue;
		if (run[i].impl->place) {
			place_live(&run[i], &src->bg);
		} else {
			run[i].rng = src->rng0;
			age_one(&run[i], target, churn_pages, label);
		}
	}
}

/* ------------------------------------------------------------ placing a live set */

/*
 * Give @r the ranges of @src through its place hook. A range the allocator
 * cannot hold where it is (rbtree+mag rounds small sizes up to a power of two,
 * so a neighbour may be in the way) is left out of its live set.
 */
static void place_live(struct runner *r, const struct live *src)
{
	if (!r->impl->place) {
		/* allocated in the same order instead (W7's full space comes out the same) */
		for (size_t k = 0; k < src->n; k++)
			if (!r_alloc(r, &r->bg, src->r[(src->head + k) % src->cap].n, NULL))
				break;
		return;
	}
	for (size_t k = 0; k < src->n; k++) {
		struct range g = src->r[(src->head + k) % src->cap];

		if (r->impl->place(r->a, g.first, g.n))
			continue;
		if (!shadow_assign(&r->sh, g.first, g.n, true))
			fatal_overlap(r, g.first, g.n, "placing over a live range");
		live_push(&r->bg, g.first, g.n);
		if (!(k & 0xffff))
			bench_progress("%s: placing the aged live set (%.0f%%)", r->impl->name,
				       100.0 * (double)k / (double)src->n);
	}
}

/* ------------------------------------------------------------ figures */

enum fig_kind { FIG_PAIR, FIG_FAIL, FIG_OPS };

struct result {
	unsigned impl;
	char workload[4];
	char label[64];
	uint64_t space_pages;
	double occupancy;
	unsigned size_pages;          /* 0: mixed */
	unsigned threads;
	struct bench_summary pair, alloc, free;
	double ops_per_s;
	long failures_with_space;     /* -1: not measured */
	double bits_per_page;
	enum fig_kind kind;
	double *cdf;                  /* CDF points (ns) for plots, W3 at the base size */
	size_t ncdf;
};

static struct result *results;
static size_t nresults, capresults;

static struct result *new_result(unsigned impl, const char *w, const char *label, uint64_t space, unsigned size,
				 unsigned threads)
{
	struct result *res;

	if (nresults == capresults) {
		capresults = capresults ? 2 * capresults : 64;
		results = realloc(results, capresults * sizeof(*results));
		if (!results) {
			perror("realloc");
			exit(2);
		}
	}
	res = &results[nresults++];
	memset(res, 0, sizeof(*res));
	res->impl = impl;
	snprintf(res->workload, sizeof(res->workload), "%s", w);
	snprintf(res->label, sizeof(res->label), "%s", label);
	res->space_pages = space;
	res->size_pages = size;
	res->threads = threads;
	res->ops_per_s = NAN;
	res->bits_per_page = NAN;
	res->failures_with_space = -1;
	return res;
}

/* One timed step of a figure on @r; returns false when it cannot continue. */
typedef bool (*step_fn)(struct runner *r, void *ctx);

/* Samples a figure has before its time cap ends it (a slow allocator's tail needs them), up to 8 times the cap. */
#define FIGURE_MIN_SAMPLES 1000

static bool figure_capped(const struct runner *r, double spent_ns)
{
	return spent_ns > opt.cap_s * 8e9 || (spent_ns > opt.cap_s * 1e9 && r->pair.n >= FIGURE_MIN_SAMPLES);
}

/*
 * Run @step on every runner, interleaved in rounds, until each has its
 * samples or its time cap; a warm-up round first.
 */
static void run_figure(const char *label, step_fn step, void *ctx, size_t samples, size_t warmup)
{
	const size_t round = 256;
	bool all_done;

	for (unsigned i = 0; i < nrun; i++) {
		uint64_t t0 = bench_now_ns();

		r_reset_figure(&run[i], samples);
		/* warm-up: the count, or a quarter of the time cap */
		for (size_t k = 0; k < warmup; k++)
			if (!step(&run[i], ctx) || (double)(bench_now_ns() - t0) > opt.cap_s * 0.25e9)
				break;
		run[i].pair.n = run[i].alloc.n = run[i].free.n = 0;
		run[i].failures = run[i].failures_with_space = run[i].ops = 0;
	}
	do {
		all_done = true;
		for (unsigned i = 0; i < nrun; i++) {
			struct runner *r = &run[i];
			uint64_t t0;

			if (r->done)
				continue;
			t0 = bench_now_ns();
			for (size_t k = 0; k < round; k++) {
				if (r->pair.n >= samples || !step(r, ctx)) {
					r->done = true;
					break;
				}
				/* a slow allocator's round must not overrun its cap */
				if (figure_capped(r, r->spent_ns + (double)(bench_now_ns() - t0)))
					break;
			}
			r->spent_ns += (double)(bench_now_ns() - t0);
			if (figure_capped(r, r->spent_ns))
				r->done = true;
			all_done = all_done && r->done;
		}
		for (unsigned i = 0; i < nrun; i++)
			if (run[i].done)
				run[i].measuring = false;
		bench_progress("%s: %zu/%zu samples", label, run[nrun - 1].pair.n, samples);
	} while (!all_done);
}

static void record(const char *w, const char *label, unsigned size, bool keep_cdf)
{
	for (unsigned i = 0; i < nrun; i++) {
		struct runner *r = &run[i];
		struct result *res = new_result(r->idx, w, label, r->pages, size, 1);

		res->occupancy = occupancy(r);
		bench_summarise(&r->pair, &res->pair);
		bench_summarise(&r->alloc, &res->alloc);
		bench_summarise(&r->free, &res->free);
		res->failures_with_space = (long)r->failures_with_space;
		res->bits_per_page = (double)r->impl->metadata_bytes(r->a) * 8 / (double)r->pages;
		if (keep_cdf && r->pair.n) {
			res->ncdf = 200;
			res->cdf = malloc(res->ncdf * sizeof(double));
			for (size_t k = 0; res->cdf && k < res->ncdf; k++)
				res->cdf[k] = bench_quantile_ns(&r->pair, (double)k / (double)(res->ncdf - 1));
		}
	}
}

/* ---- W1: fixed size churn */

struct churn_ctx {
	uint64_t size;                /* 0: mixed */
	bool fifo;                    /* free the oldest, else one at random */
	bool background;              /* churn the aged background, else the figure's own set */
};

static bool step_churn(struct runner *r, void *p)
{
	struct churn_ctx *c = p;
	struct live *l = c->background ? &r->bg : &r->own;
	uint64_t n = c->size ? c->size : mixed_size(&r->rng), tf, ta;
	struct range g;

	if (!l->n)
		return false;
	g = c->fifo ? live_take_oldest(l) : live_take(l, bench_rng(&r->rng) % l->n);
	{
		uint64_t t0 = bench_ticks();
		uint64_t t1, t2, first;

		(void)t0;
		if (!shadow_assign(&r->sh, g.first, g.n, false))
			fatal_overlap(r, g.first, g.n, "freeing a range not live");
		t0 = bench_ticks();
		r->impl->free(r->a, g.first, g.n);
		t1 = bench_ticks();
		first = r->impl->alloc(r->a, n);
		t2 = bench_ticks();
		tf = t1 - t0;
		ta = t2 - t1;
		r->ops += 2;
		if (first == IOVA_BENCH_FAIL) {
			r->failures++;
			if (shadow_has_run(&r->sh, n))
				r->failures_with_space++;
			/* keep the set's size: take the freed range back */
			if (!r_alloc(r, l, g.n, NULL))
				return l->n > 0;
			return true;
		}
		if (first & ((1ULL << iova_bench_align_order(n)) - 1))
			fatal_overlap(r, first, n, "misaligned allocation");
		if (!shadow_assign(&r->sh, first, n, true))
			fatal_overlap(r, first, n, "allocation overlaps a live range");
		live_push(l, first, n);
		/* the middle read sits inside the pair: take its cost off once more */
		bench_sample(&r->pair, t2 - t0 > bench_tick_overhead() ? t2 - t0 - bench_tick_overhead() : 0);
		bench_sample(&r->free, tf);
		bench_sample(&r->alloc, ta);
	}
	return true;
}

static int cmp_first_desc(const void *x, const void *y)
{
	const struct range *a = x, *b = y;

	return a->first > b->first ? -1 : a->first < b->first;
}

/*
 * Make room for @pages more while staying at 90 %: free the background's
 * highest ranges, so that the room is one free stretch at the top where the
 * figure's own set can be set up at once.
 */
static void make_room(struct runner *r, uint64_t pages)
{
	if ((double)(r->bg.pages + r->own.pages + pages) <= 0.9 * (double)r->pages || !r->bg.n)
		return;
	/* linearise and sort the background, highest first */
	{
		struct live sorted;

		live_init(&sorted, r->bg.n);
		while (r->bg.n) {
			struct range g = live_take_oldest(&r->bg);

			live_push(&sorted, g.first, g.n);
		}
		qsort(sorted.r, sorted.n, sizeof(*sorted.r), cmp_first_desc);
		live_free(&r->bg);
		r->bg = sorted;
	}
	while (r->bg.n && (double)(r->bg.pages + r->own.pages + pages) > 0.9 * (double)r->pages)
		r_free_range(r, live_take_oldest(&r->bg), NULL);
}

/* Fill the own set with @count ranges of @size (mixed when 0). */
static void fill_own(struct runner *r, size_t count, uint64_t size)
{
	for (size_t k = 0; k < count; k++) {
		uint64_t n = size ? size : mixed_size(&r->rng);

		while (!r_setup_alloc(r, &r->own, n)) {
			if (!r->bg.n)
				return;
			r_free_range(r, live_take(&r->bg, bench_rng(&r->rng) % r->bg.n), NULL);
		}
	}
}

static void drain_own(struct runner *r)
{
	while (r->own.n)
		r_free_range(r, live_take_oldest(&r->own), NULL);
}

/* Bring the background back to @target occupancy with W2 allocations (each allocator its own policy). */
static void top_up(struct runner *r, double target)
{
	unsigned misses = 0;

	while (occupancy(r) < target && misses < 64) {
		if (!r_setup_alloc(r, &r->bg, mixed_size(&r->rng)))
			misses++;
	}
}

static void w1(void)
{
	static const uint64_t sizes[] = { 1, 16, 256 };
	static const struct {
		size_t live;
		bool fifo;
		const char *name;
	} sets[] = { { 64, true, "FIFO 64" }, { 1024, true, "FIFO 1024" }, { 1024, false, "random 1024" } };
	char label[64];

	for (unsigned s = 0; s < 3; s++) {
		for (unsigned k = 0; k < 3; k++) {
			struct churn_ctx c = { .size = sizes[s], .fifo = sets[k].fifo };

			snprintf(label, sizeof(label), "%llu page%s, %s", (unsigned long long)sizes[s], sizes[s] > 1 ? "s" : "",
				 sets[k].name);
			for (unsigned i = 0; i < nrun; i++) {
				make_room(&run[i], sets[k].live * sizes[s]);
				fill_own(&run[i], sets[k].live, sizes[s]);
			}
			run_figure(label, step_churn, &c, opt.samples, 1000);
			record("W1", label, (unsigned)sizes[s], false);
			for (unsigned i = 0; i < nrun; i++) {
				drain_own(&run[i]);
				top_up(&run[i], 0.9);
			}
		}
	}
}

/* ---- W2 / W3 / W4: mixed pairs over the whole live set */

static struct churn_ctx mixed_bg = { .size = 0, .fifo = false, .background = true };

static void w_mixed(const char *w, const char *label, bool cdf)
{
	run_figure(label, step_churn, &mixed_bg, opt.samples, 2000);
	record(w, label, 0, cdf);
}

/* ---- W4: a failing allocation */

struct fail_ctx {
	uint64_t size;
};

static bool step_fail(struct runner *r, void *p)
{
	struct fail_ctx *c = p;
	uint64_t t0, t1, first;
	struct range g;

	if (!r->bg.n)
		return false;
	/* a free and the same allocation back first, as a busy system would (resets the tree's failure memo) */
	g = live_take(&r->bg, bench_rng(&r->rng) % r->bg.n);
	r_free_range(r, g, NULL);
	if (!r_alloc(r, &r->bg, g.n, NULL))
		return true;
	t0 = bench_ticks();
	first = r->impl->alloc(r->a, c->size);
	t1 = bench_ticks();
	r->ops++;
	if (first != IOVA_BENCH_FAIL) {
		/* a run opened up: give it back, no sample */
		if (!shadow_assign(&r->sh, first, c->size, true))
			fatal_overlap(r, first, c->size, "allocation overlaps a live range");
		shadow_assign(&r->sh, first, c->size, false);
		r->impl->free(r->a, first, c->size);
		return true;
	}
	r->failures++;
	bench_sample(&r->pair, t1 - t0);
	bench_sample(&r->alloc, t1 - t0);
	return true;
}

/* The smallest power-of-two size (<= 256) with no aligned free run in @r. */
static uint64_t failing_size(struct runner *r)
{
	for (uint64_t n = 1; n <= 256; n *= 2)
		if (!shadow_has_run(&r->sh, n))
			return n;
	return 0;
}

static void w_fail(const char *w, const char *label, uint64_t size)
{
	struct fail_ctx c = { .size = size };

	run_figure(label, step_fail, &c, opt.samples / 10 ? opt.samples / 10 : 1, 10);
	record(w, label, (unsigned)size, false);
	for (size_t k = nresults - nrun; k < nresults; k++) {
		results[k].kind = FIG_FAIL;
		results[k].failures_with_space = -1;
	}
}

static void occupy_to(double target, const char *label)
{
	for (unsigned i = 0; i < nrun; i++) {
		struct runner *r = &run[i];
		unsigned misses = 0;

		bench_progress("%s: %s to %.0f%%", label, r->impl->name, target * 100);
		while (occupancy(r) < target && misses < 200) {
			uint64_t n = mixed_size(&r->rng);

			/* smaller sizes as the space fills, as a busy system's would */
			if (occupancy(r) > 0.97)
				n = n > 2 ? 2 : n;
			else if (occupancy(r) > 0.93)
				n = n > 8 ? 8 : n;
			if (!r_setup_alloc(r, &r->bg, n))
				misses++;
		}
	}
}

/* ---- W5: threads */

struct thr_arg {
	struct runner *r;
	unsigned id;
	uint64_t pairs;
	atomic_int *go, *ready;
	uint64_t end;                 /* when the thread's last operation returned */
	/* producer/consumer */
	_Atomic uint64_t *ring;
	size_t ring_mask;
	_Atomic size_t *head, *tail;
	bool producer, consumer;
	unsigned long failures;
};

#define RING_EMPTY UINT64_MAX

/* Without a runner: @t->pairs rounds of arithmetic that touch no shared memory (the machine's own scaling). */
static void *thr_work(struct thr_arg *t)
{
	uint64_t x = t->id + 1;

	atomic_fetch_add(t->ready, 1);
	while (!atomic_load(t->go))
		;
	for (uint64_t i = 0; i < t->pairs; i++) {
		for (unsigned k = 0; k < 16; k++)
			x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		__asm__ volatile("" : "+r"(x));
	}
	t->end = bench_now_ns();
	t->failures = x & 1; /* keeps x live; run_threads() does not read it */
	return NULL;
}

static void *thr_churn(void *p)
{
	struct thr_arg *t = p;
	const struct iova_impl *im;
	uint64_t fifo[64];
	unsigned head = 0;

	if (!t->r)
		return thr_work(t);
	im = t->r->impl;
	for (unsigned k = 0; k < 64; k++) {
		fifo[k] = im->alloc(t->r->a, 1);
		if (fifo[k] == IOVA_BENCH_FAIL)
			t->failures++;
	}
	atomic_fetch_add(t->ready, 1);
	while (!atomic_load(t->go))
		;
	for (uint64_t i = 0; i < t->pairs; i++) {
		if (fifo[head] != IOVA_BENCH_FAIL)
			im->free(t->r->a, fifo[head], 1);
		fifo[head] = im->alloc(t->r->a, 1);
		if (fifo[head] == IOVA_BENCH_FAIL)
			t->failures++;
		head = (head + 1) % 64;
	}
	t->end = bench_now_ns();
	for (unsigned k = 0; k < 64; k++)
		if (fifo[k] != IOVA_BENCH_FAIL)
			im->free(t->r->a, fifo[k], 1);
	return NULL;
}

/* One side of producer/consumer; without a runner (t->r NULL) the ring alone: indices handed over, nothing freed. */
static void *thr_pc(void *p)
{
	struct thr_arg *t = p;
	const struct iova_impl *im = t->r ? t->r->impl : NULL;

	atomic_fetch_add(t->ready, 1);
	while (!atomic_load(t->go))
		;
	for (uint64_t i = 0; i < t->pairs; i++) {
		if (t->producer) {
			size_t h = atomic_load_explicit(t->head, memory_order_relaxed);
			uint64_t first = im ? im->alloc(t->r->a, 1) : i;

			if (first == IOVA_BENCH_FAIL) {
				t->failures++;
				continue;
			}
			/* full: let the consumer run (the machine may have fewer free cores than threads) */
			while (h - atomic_load_explicit(t->tail, memory_order_acquire) > t->ring_mask)
				sched_yield();
			atomic_store_explicit(&t->ring[h & t->ring_mask], first, memory_order_relaxed);
			atomic_store_explicit(t->head, h + 1, memory_order_release);
		} else {
			size_t tl = atomic_load_explicit(t->tail, memory_order_relaxed);
			uint64_t first;

			while (atomic_load_explicit(t->head, memory_order_acquire) == tl) {
				if (atomic_load_explicit(t->go, memory_order_relaxed) == 2)
					goto out;
				sched_yield();
			}
			first = atomic_load_explicit(&t->ring[tl & t->ring_mask], memory_order_relaxed);
			atomic_store_explicit(t->tail, tl + 1, memory_order_release);
			if (im)
				im->free(t->r->a, first, 1);
		}
	}
out:
	t->end = bench_now_ns();
	return NULL;
}

static double run_threads(struct runner *r, unsigned nthreads, bool pc, uint64_t pairs)
{
	struct thr_arg arg[64];
	pthread_t th[64];
	atomic_int go = 0, ready = 0;
	_Atomic uint64_t ring[1024];
	_Atomic size_t head = 0, tail = 0;
	uint64_t start, maxns = 0, total = 0;

	for (unsigned i = 0; i < nthreads; i++) {
		arg[i] = (struct thr_arg){ .r = r, .id = i, .pairs = pairs, .go = &go, .ready = &ready,
					   .ring = ring, .ring_mask = 1023,
					   .head = &head, .tail = &tail, .producer = pc && i == 0, .consumer = pc && i == 1 };
		if (pthread_create(&th[i], NULL, pc ? thr_pc : thr_churn, &arg[i])) {
			perror("pthread_create");
			exit(2);
		}
	}
	/* one start for all: a thread that gets its CPU late has its wait counted */
	while (atomic_load(&ready) != (int)nthreads)
		;
	start = bench_now_ns();
	atomic_store(&go, 1);
	for (unsigned i = 0; i < nthreads; i++) {
		if (pc && i == 1) {
			/* the producer is done first; let the consumer drain and stop */
		}
		if (pc && i == 0) {
			pthread_join(th[0], NULL);
			while (atomic_load(&head) != atomic_load(&tail))
				;
			atomic_store(&go, 2);
			continue;
		}
		pthread_join(th[i], NULL);
	}
	for (unsigned i = 0; i < nthreads; i++) {
		if (arg[i].end - start > maxns)
			maxns = arg[i].end - start;
		total += pc ? (i == 0 ? pairs : 0) : pairs;
	}
	return maxns ? (double)total * 1e9 / (double)maxns : NAN;
}

/*
 * What W5's ratios are read against, measured in the same run: how much
 * more work opt.threads threads do than one when they share nothing
 * (arithmetic), and how fast the producer/consumer ring passes values with
 * no allocator behind it. A virtual machine's cores may be hyperthreads or
 * shared with other guests; the first says what "2 threads vs 1" can reach
 * here, the second what the hand-off itself costs.
 */
static struct {
	double scaling;    /* opt.threads threads' arithmetic rate / one thread's */
	double ring_ops;   /* ring alone, counted as a pair's two operations per value */
} w5_ref = { NAN, NAN };

static void w5_references(uint64_t pairs)
{
	uint64_t rounds = 1 << 20, t0 = bench_now_ns();
	double one = 0, many = 0;

	if (opt.threads < 2)
		return;
	run_threads(NULL, 1, false, rounds);
	rounds = (uint64_t)((double)rounds * opt.cap_s * 0.5e9 / (double)(bench_now_ns() - t0 + 1)) + 1;
	/* the best of three each, alternated: what the machine can give */
	for (unsigned k = 0; k < 3; k++) {
		double r1 = run_threads(NULL, 1, false, rounds), rn = run_threads(NULL, opt.threads, false, rounds);

		one = fmax(one, r1);
		many = fmax(many, rn);
	}
	w5_ref.scaling = many / one;
	w5_ref.ring_ops = 2 * run_threads(NULL, 2, true, pairs);
}

static void w5(void)
{
	uint64_t pairs = opt.quick ? 50000 : 400000;
	char label[64];

	bench_progress("W5: references (arithmetic threads, ring alone)");
	w5_references(pairs);
	for (unsigned i = 0; i < nrun; i++) {
		struct runner *r = &run[i];
		double base = NAN, ops;
		uint64_t p = pairs;

		/* slow allocators get fewer pairs: aim at about the time cap */
		{
			uint64_t t0 = bench_now_ns();

			run_threads(r, 1, false, 200);
			double per = (double)(bench_now_ns() - t0) / 200.0;
			if (per * (double)p > opt.cap_s * 1e9)
				p = (uint64_t)(opt.cap_s * 1e9 / per) + 100;
		}
		for (unsigned nt = 1; nt <= opt.threads; nt++) {
			if (nt != 1 && nt != opt.threads)
				continue;
			bench_progress("W5: %s, %u thread%s", r->impl->name, nt, nt > 1 ? "s" : "");
			ops = 2 * run_threads(r, nt, false, p);
			if (nt == 1)
				base = ops;
			snprintf(label, sizeof(label), "%u thread%s, 1-page FIFO 64 each", nt, nt > 1 ? "s" : "");
			struct result *res = new_result(r->idx, "W5", label, r->pages, 1, nt);
			res->occupancy = occupancy(r);
			res->ops_per_s = ops;
			res->kind = FIG_OPS;
			(void)base;
		}
		if (opt.threads >= 2) {
			bench_progress("W5: %s, producer/consumer", r->impl->name);
			ops = 2 * run_threads(r, 2, true, p);
			struct result *res = new_result(r->idx, "W5", "producer/consumer (frees cross threads)",
							r->pages, 1, 2);
			res->occupancy = occupancy(r);
			res->ops_per_s = ops;
			res->kind = FIG_OPS;
		}
	}
}

/* ---- W7: adversarial */

static struct churn_ctx w7_pair = { .size = 1, .fifo = false, .background = true };

/* ------------------------------------------------------------ output */

static const struct result *find_result(unsigned impl, const char *w, const char *label, uint64_t space)
{
	for (size_t i = 0; i < nresults; i++)
		if (results[i].impl == impl && !strcmp(results[i].workload, w) && !strcmp(results[i].label, label) &&
		    (!space || results[i].space_pages == space))
			return &results[i];
	return NULL;
}

static void print_section(const char *w, const char *title)
{
	char b[8][24];
	const char *last = "";
	uint64_t last_space = 0;
	bool any = false;

	for (size_t i = 0; i < nresults; i++) {
		const struct result *res = &results[i];

		if (strcmp(res->workload, w))
			continue;
		if (!any) {
			printf("\n%s %s\n", w, title);
			if (res->kind == FIG_OPS)
				printf("  %-44s %-11s %14s %10s\n", "", "allocator", "ops/s", "vs 1 thr");
			else
				printf("  %-44s %-11s %9s %9s %9s %9s %9s %9s %6s %7s\n", "", "allocator", "pair med",
				       "p99", "p99.9", "max", "alloc", "free", "fails*", "bits/pg");
			any = true;
		}
		if (strcmp(last, res->label) || last_space != res->space_pages) {
			char lab[80];

			if (res->space_pages != ((uint64_t)1 << opt.base_log2) || !strcmp(w, "W6"))
				snprintf(lab, sizeof(lab), "%s, 2^%d pages", res->label, __builtin_ctzll(res->space_pages));
			else
				snprintf(lab, sizeof(lab), "%s", res->label);
			printf("  %-44s", lab);
			last = res->label;
			last_space = res->space_pages;
		} else {
			printf("  %-44s", "");
		}
		if (res->kind == FIG_OPS) {
			const struct result *one = find_result(res->impl, "W5", "1 thread, 1-page FIFO 64 each", 0);

			printf(" %-11s %14.0f %10s\n", impls[res->impl]->name, res->ops_per_s,
			       one && res != one ? bench_fmt_ratio(b[0], 24, res->ops_per_s / one->ops_per_s) : "");
		} else {
			char fails[24];

			if (res->failures_with_space < 0)
				snprintf(fails, sizeof(fails), "-");
			else
				snprintf(fails, sizeof(fails), "%ld", res->failures_with_space);
			printf(" %-11s %9s %9s %9s %9s %9s %9s %6s %7.3g\n", impls[res->impl]->name,
			       bench_fmt_ns(b[0], 24, res->pair.median), bench_fmt_ns(b[1], 24, res->pair.p99),
			       bench_fmt_ns(b[2], 24, res->pair.p999), bench_fmt_ns(b[3], 24, res->pair.max),
			       bench_fmt_ns(b[4], 24, res->alloc.median), bench_fmt_ns(b[5], 24, res->free.median), fails,
			       res->bits_per_page);
		}
	}
}

static void print_w5_references(void)
{
	char b[24];

	if (isfinite(w5_ref.scaling))
		printf("  reference: %u threads of arithmetic sharing nothing do %s the work of 1 on this machine\n",
		       opt.threads, bench_fmt_ratio(b, sizeof(b), w5_ref.scaling));
	if (isfinite(w5_ref.ring_ops))
		printf("  reference: the producer/consumer ring alone, no allocator: %.0f ops/s (two per value passed)\n",
		       w5_ref.ring_ops);
}

struct target_row {
	const char *figure, *target;
	double value;
	bool met;
	bool known;
};

static void print_targets(void)
{
	uint64_t base = (uint64_t)1 << opt.base_log2;
	const struct result *d1 = find_result(I_DMAMAP, "W1", "1 page, FIFO 64", base);
	const struct result *d3 = find_result(I_DMAMAP, "W3", "mixed 1..256, aged 90%", base);
	const struct result *s1 = find_result(I_SEED, "W1", "1 page, FIFO 64", base);
	const struct result *s3 = find_result(I_SEED, "W3", "mixed 1..256, aged 90%", base);
	const struct result *r3 = find_result(I_RBTREE, "W3", "mixed 1..256, aged 90%", base);
	const struct result *m1 = find_result(I_RBMAG, "W1", "1 page, FIFO 64", base);
	const struct result *m3 = find_result(I_RBMAG, "W3", "mixed 1..256, aged 90%", base);
	const struct result *d256 = find_result(I_DMAMAP, "W1", "256 pages, FIFO 64", base);
	const struct result *m256 = find_result(I_RBMAG, "W1", "256 pages, FIFO 64", base);
	const struct result *dfail = find_result(I_DMAMAP, "W4", "failing allocation, 99% full", base);
	const struct result *dt1 = find_result(I_DMAMAP, "W5", "1 thread, 1-page FIFO 64 each", 0);
	const struct result *dpc = find_result(I_DMAMAP, "W5", "producer/consumer (frees cross threads)", 0);
	const struct result *dtn = NULL, *g_lo = NULL, *g_hi = NULL, *s_hi = NULL, *d_hi = NULL;
	/* the same figures of dmamap+mag */
	const struct result *c1 = find_result(I_DMAG, "W1", "1 page, FIFO 64", base);
	const struct result *c3 = find_result(I_DMAG, "W3", "mixed 1..256, aged 90%", base);
	const struct result *c256 = find_result(I_DMAG, "W1", "256 pages, FIFO 64", base);
	const struct result *ct1 = find_result(I_DMAG, "W5", "1 thread, 1-page FIFO 64 each", 0);
	const struct result *cpc = find_result(I_DMAG, "W5", "producer/consumer (frees cross threads)", 0);
	const struct result *ctn;
	char lab[64], b[4][24];

	snprintf(lab, sizeof(lab), "%u threads, 1-page FIFO 64 each", opt.threads);
	dtn = find_result(I_DMAMAP, "W5", lab, 0);
	ctn = find_result(I_DMAG, "W5", lab, 0);
	for (size_t i = 0; i < nresults; i++) {
		const struct result *res = &results[i];

		if (res->impl != I_DMAMAP || strcmp(res->workload, "W6") || strcmp(res->label, "mixed 1..256, aged 90%"))
			continue;
		if (!g_lo || res->space_pages < g_lo->space_pages)
			g_lo = res;
		if (!g_hi || res->space_pages > g_hi->space_pages)
			g_hi = res;
	}
	if (g_hi) {
		d_hi = g_hi;
		s_hi = find_result(I_SEED, "W6", "mixed 1..256, aged 90%", g_hi->space_pages);
	}

	printf("\nTargets (BENCH.md), dmamap at 2^%u pages unless said:\n", opt.base_log2);
	printf("  %-50s %-26s %-26s %s\n", "figure", "target", "measured", "");
#define ROW(fig, tgt, ok, ...)                                                                                         \
	do {                                                                                                           \
		char m[64];                                                                                            \
		int ok_ = (int)(ok);                                                                                   \
		snprintf(m, sizeof(m), __VA_ARGS__);                                                                   \
		printf("  %-50s %-26s %-26s %s\n", fig, tgt, m, ok_ < 0 ? "n/a" : ok_ ? "met" : "NOT MET");            \
	} while (0)
#define HAVE(x) ((x) && isfinite((x)->pair.median))
	if (HAVE(d1))
		ROW("W1 1-page pair median / p99", "<= 25 ns / <= 60 ns", d1->pair.median <= 25 && d1->pair.p99 <= 60,
		    "%s / %s", bench_fmt_ns(b[0], 24, d1->pair.median), bench_fmt_ns(b[1], 24, d1->pair.p99));
	if (HAVE(d3))
		ROW("W3 mixed pair median / p99 / max", "<= 40 ns / 150 ns / 2 µs",
		    d3->pair.median <= 40 && d3->pair.p99 <= 150 && d3->pair.max <= 2000, "%s / %s / %s",
		    bench_fmt_ns(b[0], 24, d3->pair.median), bench_fmt_ns(b[1], 24, d3->pair.p99),
		    bench_fmt_ns(b[2], 24, d3->pair.max));
	if (HAVE(g_lo) && HAVE(g_hi) && g_hi != g_lo) {
		char f[64];

		snprintf(f, sizeof(f), "growth W3 median 2^%d / 2^%d", __builtin_ctzll(g_hi->space_pages),
			 __builtin_ctzll(g_lo->space_pages));
		ROW(f, "<= 3.5", g_hi->pair.median / g_lo->pair.median <= 3.5, "%.2f",
		    g_hi->pair.median / g_lo->pair.median);
	}
	if (HAVE(s3) && HAVE(d3))
		ROW("vs seed, W3 mixed pair median", ">= 100x", s3->pair.median / d3->pair.median >= 100, "%s",
		    bench_fmt_ratio(b[0], 24, s3->pair.median / d3->pair.median));
	if (HAVE(s1) && HAVE(d1))
		ROW("vs seed, W1 1-page pair median", "(>= 100x)", s1->pair.median / d1->pair.median >= 100, "%s",
		    bench_fmt_ratio(b[0], 24, s1->pair.median / d1->pair.median));
	if (HAVE(s_hi) && HAVE(d_hi)) {
		char f[64];

		snprintf(f, sizeof(f), "vs seed at 2^%d, W3 mixed pair median", __builtin_ctzll(d_hi->space_pages));
		ROW(f, ">= 1000x at 2^24", d_hi->space_pages < (1u << 24) ? -1 : (int)(s_hi->pair.median / d_hi->pair.median >= 1000),
		    "%s", bench_fmt_ratio(b[0], 24, s_hi->pair.median / d_hi->pair.median));
	}
	if (HAVE(r3) && HAVE(d3))
		ROW("vs rbtree, W3 mixed pair median", ">= 10x", r3->pair.median / d3->pair.median >= 10, "%s",
		    bench_fmt_ratio(b[0], 24, r3->pair.median / d3->pair.median));
	if (HAVE(m1) && HAVE(d1))
		ROW("vs rbtree+mag, 1-page hits (W1 FIFO 64 median)", "no slower (>= 1x)",
		    m1->pair.median / d1->pair.median >= 1, "%s", bench_fmt_ratio(b[0], 24, m1->pair.median / d1->pair.median));
	if (HAVE(m3) && HAVE(d3))
		ROW("vs rbtree+mag, W3 p99.9", ">= 10x", m3->pair.p999 / d3->pair.p999 >= 10, "%s",
		    bench_fmt_ratio(b[0], 24, m3->pair.p999 / d3->pair.p999));
	if (HAVE(m256) && HAVE(d256))
		ROW("vs rbtree+mag, 256 pages (W1 FIFO 64 median)", ">= 10x", m256->pair.median / d256->pair.median >= 10,
		    "%s", bench_fmt_ratio(b[0], 24, m256->pair.median / d256->pair.median));
	if (HAVE(dfail))
		ROW("failing allocation, 99% full", "<= 50 ns", dfail->pair.median <= 50, "%s median (%s)",
		    bench_fmt_ns(b[0], 24, dfail->pair.median), bench_fmt_ns(b[1], 24, dfail->pair.p99));
	if (dt1 && dtn && isfinite(dt1->ops_per_s))
		ROW("W5 threads vs 1, ops/s", ">= 1.8x", dtn->ops_per_s / dt1->ops_per_s >= 1.8, "%s (machine %s)",
		    bench_fmt_ratio(b[0], 24, dtn->ops_per_s / dt1->ops_per_s), bench_fmt_ratio(b[1], 24, w5_ref.scaling));
	if (dt1 && dpc && isfinite(dt1->ops_per_s))
		ROW("W5 producer/consumer vs 1 thread", ">= 1.5x", dpc->ops_per_s / dt1->ops_per_s >= 1.5,
		    "%s (ring alone %s)", bench_fmt_ratio(b[0], 24, dpc->ops_per_s / dt1->ops_per_s),
		    bench_fmt_ratio(b[1], 24, w5_ref.ring_ops / dt1->ops_per_s));
	if (d3)
		ROW("metadata, bits per IOVA page", "<= 2.1", d3->bits_per_page <= 2.1, "%.3f", d3->bits_per_page);
	if (HAVE(c1))
		ROW("dmamap+mag: W1 1-page pair median / p99", "<= 25 ns / <= 60 ns",
		    c1->pair.median <= 25 && c1->pair.p99 <= 60, "%s / %s", bench_fmt_ns(b[0], 24, c1->pair.median),
		    bench_fmt_ns(b[1], 24, c1->pair.p99));
	if (HAVE(c3))
		ROW("dmamap+mag: W3 mixed pair median / p99 / max", "<= 40 ns / 150 ns / 2 µs",
		    c3->pair.median <= 40 && c3->pair.p99 <= 150 && c3->pair.max <= 2000, "%s / %s / %s",
		    bench_fmt_ns(b[0], 24, c3->pair.median), bench_fmt_ns(b[1], 24, c3->pair.p99),
		    bench_fmt_ns(b[2], 24, c3->pair.max));
	if (HAVE(m1) && HAVE(c1))
		ROW("dmamap+mag vs rbtree+mag, 1-page hits", "no slower (>= 1x)", m1->pair.median / c1->pair.median >= 1,
		    "%s", bench_fmt_ratio(b[0], 24, m1->pair.median / c1->pair.median));
	if (HAVE(m3) && HAVE(c3))
		ROW("dmamap+mag vs rbtree+mag, W3 p99.9", ">= 10x", m3->pair.p999 / c3->pair.p999 >= 10, "%s",
		    bench_fmt_ratio(b[0], 24, m3->pair.p999 / c3->pair.p999));
	if (HAVE(m256) && HAVE(c256))
		ROW("dmamap+mag vs rbtree+mag, 256 pages", ">= 10x", m256->pair.median / c256->pair.median >= 10, "%s",
		    bench_fmt_ratio(b[0], 24, m256->pair.median / c256->pair.median));
	if (ct1 && ctn && isfinite(ct1->ops_per_s))
		ROW("dmamap+mag: W5 threads vs 1, ops/s", ">= 1.8x", ctn->ops_per_s / ct1->ops_per_s >= 1.8,
		    "%s (machine %s)", bench_fmt_ratio(b[0], 24, ctn->ops_per_s / ct1->ops_per_s),
		    bench_fmt_ratio(b[1], 24, w5_ref.scaling));
	if (ct1 && cpc && isfinite(ct1->ops_per_s))
		ROW("dmamap+mag: W5 producer/consumer vs 1 thread", ">= 1.5x", cpc->ops_per_s / ct1->ops_per_s >= 1.5,
		    "%s (ring alone %s)", bench_fmt_ratio(b[0], 24, cpc->ops_per_s / ct1->ops_per_s),
		    bench_fmt_ratio(b[1], 24, w5_ref.ring_ops / ct1->ops_per_s));
	if (c3)
		ROW("dmamap+mag: metadata, bits per IOVA page", "<= 2.1", c3->bits_per_page <= 2.1, "%.3f",
		    c3->bits_per_page);
	printf("  (fails* = failures while an aligned free run existed; must be 0 for first fit)\n");
#undef ROW
#undef HAVE
}

static void write_json(void)
{
	struct bench_json j;

	if (bench_json_open(&j, opt.json)) {
		fprintf(stderr, "cannot write %s: %s\n", opt.json, strerror(errno));
		exit(2);
	}
	bench_json_begin_object(&j, NULL);
	bench_json_machine(&j, "dmamap-iova-bench");
	bench_json_begin_object(&j, "options");
	bench_json_bool(&j, "quick", opt.quick);
	bench_json_int(&j, "base_space_pages", 1LL << opt.base_log2);
	bench_json_int(&j, "samples", (long long)opt.samples);
	bench_json_num(&j, "cap_s", opt.cap_s);
	bench_json_int(&j, "age_factor", opt.age_factor);
	bench_json_int(&j, "age_factor_large", opt.age_large);
	bench_json_int(&j, "seed", (long long)opt.seed);
	bench_json_end_object(&j);
	if (isfinite(w5_ref.scaling) || isfinite(w5_ref.ring_ops)) {
		bench_json_begin_object(&j, "w5_references");
		if (isfinite(w5_ref.scaling)) {
			bench_json_int(&j, "threads", opt.threads);
			bench_json_num(&j, "arithmetic_scaling", w5_ref.scaling);
		}
		if (isfinite(w5_ref.ring_ops))
			bench_json_num(&j, "ring_alone_ops_per_s", w5_ref.ring_ops);
		bench_json_end_object(&j);
	}
	bench_json_begin_array(&j, "results");
	for (size_t i = 0; i < nresults; i++) {
		const struct result *res = &results[i];

		bench_json_begin_object(&j, NULL);
		bench_json_str(&j, "allocator", impls[res->impl]->name);
		bench_json_str(&j, "workload", res->workload);
		bench_json_str(&j, "config", res->label);
		bench_json_int(&j, "space_pages", (long long)res->space_pages);
		bench_json_num(&j, "occupancy", round(res->occupancy * 10000) / 10000);
		bench_json_int(&j, "size_pages", res->size_pages);
		bench_json_int(&j, "threads", res->threads);
		if (res->kind == FIG_FAIL) {
			bench_json_num(&j, "alloc_ns_median", res->alloc.median);
			bench_json_num(&j, "alloc_ns_p99", res->alloc.p99);
			bench_json_num(&j, "alloc_ns_max", res->alloc.max);
			bench_json_str(&j, "measures", "a failing allocation");
		} else if (res->kind == FIG_PAIR) {
			bench_json_num(&j, "pair_ns_median", res->pair.median);
			bench_json_num(&j, "pair_ns_p99", res->pair.p99);
			bench_json_num(&j, "pair_ns_p999", res->pair.p999);
			bench_json_num(&j, "pair_ns_max", res->pair.max);
			bench_json_num(&j, "alloc_ns_median", res->alloc.median);
			bench_json_num(&j, "free_ns_median", res->free.median);
			bench_json_int(&j, "samples", (long long)res->pair.n);
			if (isfinite(res->pair.mean))
				bench_json_num(&j, "ops_per_s", 2e9 / res->pair.mean);
		}
		if (res->kind == FIG_OPS)
			bench_json_num(&j, "ops_per_s", res->ops_per_s);
		if (res->failures_with_space >= 0)
			bench_json_int(&j, "failures_with_space", res->failures_with_space);
		bench_json_num(&j, "metadata_bits_per_page", res->bits_per_page);
		bench_json_end_object(&j);
	}
	bench_json_end_array(&j);
	bench_json_end_object(&j);
	if (bench_json_close(&j)) {
		fprintf(stderr, "writing %s failed\n", opt.json);
		exit(2);
	}
}

static void write_plots(void)
{
	char path[4096], script[8192];
	FILE *f;
	size_t n = 0;

	if (!bench_have_gnuplot()) {
		fprintf(stderr, "--plot: gnuplot is not installed (apt-get install gnuplot-nox); no charts written\n");
		return;
	}
	if (bench_mkdir(opt.plot)) {
		fprintf(stderr, "--plot: cannot create %s: %s\n", opt.plot, strerror(errno));
		return;
	}
	/* data: one file per allocator and chart */
	for (unsigned i = 0; i < NIMPL; i++) {
		if (!opt.enabled[i])
			continue;
		snprintf(path, sizeof(path), "%s/space-%s.dat", opt.plot, impls[i]->name);
		if ((f = fopen(path, "w"))) {
			for (size_t k = 0; k < nresults; k++)
				if (results[k].impl == i && !strcmp(results[k].workload, "W6") &&
				    !strcmp(results[k].label, "mixed 1..256, aged 90%") && isfinite(results[k].pair.median))
					fprintf(f, "%llu %g %g\n", (unsigned long long)results[k].space_pages,
						results[k].pair.median, results[k].pair.p99);
			fclose(f);
		}
		snprintf(path, sizeof(path), "%s/occupancy-%s.dat", opt.plot, impls[i]->name);
		if ((f = fopen(path, "w"))) {
			for (size_t k = 0; k < nresults; k++)
				if (results[k].impl == i && results[k].kind == FIG_PAIR && results[k].size_pages == 0 &&
				    strcmp(results[k].workload, "W6") && isfinite(results[k].pair.median))
					fprintf(f, "%g %g %g\n", results[k].occupancy * 100, results[k].pair.median,
						results[k].pair.p99);
			fclose(f);
		}
		snprintf(path, sizeof(path), "%s/cdf-%s.dat", opt.plot, impls[i]->name);
		if ((f = fopen(path, "w"))) {
			for (size_t k = 0; k < nresults; k++)
				if (results[k].impl == i && results[k].cdf)
					for (size_t c = 0; c < results[k].ncdf; c++)
						fprintf(f, "%g %g\n", results[k].cdf[c] > 0.5 ? results[k].cdf[c] : 0.5,
							(double)c / (double)(results[k].ncdf - 1));
			fclose(f);
		}
	}
#define PLOT_SERIES(file, using)                                                                                         \
	do {                                                                                                           \
		bool first = true;                                                                                     \
		for (unsigned i = 0; i < NIMPL; i++) {                                                                 \
			if (!opt.enabled[i])                                                                           \
				continue;                                                                              \
			n += (size_t)snprintf(script + n, sizeof(script) - n, "%s'%s-%s.dat' using %s with linespoints title '%s'", \
					      first ? "plot " : ", ", file, impls[i]->name, using, impls[i]->name);       \
			first = false;                                                                                 \
		}                                                                                                      \
		n += (size_t)snprintf(script + n, sizeof(script) - n, "\n");                                          \
	} while (0)

	n = (size_t)snprintf(script, sizeof(script),
			     "set terminal pngcairo size 900,600 noenhanced\nset output 'space.png'\n"
			     "set title 'W6: mixed free+alloc pair, median, aged to 90%%, against space size'\n"
			     "set logscale xy\nset xlabel 'space (pages)'\nset ylabel 'ns per pair'\nset key top left\nset grid\n");
	PLOT_SERIES("space", "1:2");
	if (bench_gnuplot(opt.plot, "space", script))
		fprintf(stderr, "--plot: gnuplot failed on space.gp\n");
	n = (size_t)snprintf(script, sizeof(script),
			     "set terminal pngcairo size 900,600 noenhanced\nset output 'occupancy.png'\n"
			     "set title 'mixed free+alloc pair, median, against occupancy (2^%u pages)'\n"
			     "set logscale y\nset xlabel 'occupancy (%%)'\nset ylabel 'ns per pair'\nset key top left\nset grid\n",
			     opt.base_log2);
	PLOT_SERIES("occupancy", "1:2");
	if (bench_gnuplot(opt.plot, "occupancy", script))
		fprintf(stderr, "--plot: gnuplot failed on occupancy.gp\n");
	n = (size_t)snprintf(script, sizeof(script),
			     "set terminal pngcairo size 900,600 noenhanced\nset output 'cdf.png'\n"
			     "set title 'W3: latency CDF of a mixed free+alloc pair (2^%u pages, 90%% full)'\n"
			     "set logscale x\nset xlabel 'ns per pair'\nset ylabel 'fraction of pairs'\nset key bottom right\nset grid\n",
			     opt.base_log2);
	{
		bool first = true;

		for (unsigned i = 0; i < NIMPL; i++) {
			if (!opt.enabled[i])
				continue;
			n += (size_t)snprintf(script + n, sizeof(script) - n, "%s'cdf-%s.dat' using 1:2 with lines lw 2 title '%s'",
					      first ? "plot " : ", ", impls[i]->name, impls[i]->name);
			first = false;
		}
		n += (size_t)snprintf(script + n, sizeof(script) - n, "\n");
	}
	if (bench_gnuplot(opt.plot, "cdf", script))
		fprintf(stderr, "--plot: gnuplot failed on cdf.gp\n");
	else
		printf("\nCharts: %s/space.png, %s/occupancy.png, %s/cdf.png\n", opt.plot, opt.plot, opt.plot);
#undef PLOT_SERIES
}

/* ------------------------------------------------------------ main */

static void make_runners(uint64_t pages, bool with_seed)
{
	nrun = 0;
	/* dmamap first: it ages the space the others receive */
	if (opt.enabled[I_DMAMAP])
		runner_create(&run[nrun++], I_DMAMAP, pages);
	for (unsigned i = 0; i < NIMPL; i++)
		if (i != I_DMAMAP && opt.enabled[i] && (i != I_SEED || with_seed))
			runner_create(&run[nrun++], i, pages);
}

int main(int argc, char **argv)
{
	uint64_t base;
	uint64_t t_start = bench_now_ns();

	if (parse_options(argc, argv)) {
		usage(stderr);
		return 2;
	}
	bench_clock_calibrate(opt.quick ? 20 : 100);
	mixed_init();
	base = (uint64_t)1 << opt.base_log2;

	printf("dmamap-iova-bench: %s run, space 2^%u pages, TSC %.3f ns/tick (read costs %llu ticks)\n",
	       opt.quick ? "quick" : "full", opt.base_log2, bench_ns_per_tick(),
	       (unsigned long long)bench_tick_overhead());
	bench_describe_clock_step(stdout);
	printf("allocators:\n");
	for (unsigned i = 0; i < NIMPL; i++)
		if (opt.enabled[i])
			printf("  %-11s %s\n", impls[i]->name, impls[i]->what);

	/* W2: fresh space, 1024 live mixed */
	if (opt.workload[2]) {
		make_runners(base, true);
		for (unsigned i = 0; i < nrun; i++)
			fill_own(&run[i], 1024, 0);
		{
			struct churn_ctx c = { .size = 0, .fifo = false };

			run_figure("W2", step_churn, &c, opt.samples, 2000);
		}
		record("W2", "mixed 1..256, 1024 live, fresh", 0, false);
		runners_destroy();
	}

	/* W1, W3, W4, W5 at the base size, aged */
	if (opt.workload[1] || opt.workload[3] || opt.workload[4] || opt.workload[5]) {
		make_runners(base, true);
		age_all(0.9, (uint64_t)opt.age_factor * base, "aging to 90%");
		if (opt.workload[3])
			w_mixed("W3", "mixed 1..256, aged 90%", true);
		if (opt.workload[1])
			w1();
		if (opt.workload[5])
			w5();
		if (opt.workload[4]) {
			occupy_to(0.95, "W4");
			w_mixed("W4", "mixed 1..256, 95% full", false);
			occupy_to(0.99, "W4");
			w_mixed("W4", "mixed 1..256, 99% full", false);
			{
				struct runner *r = runner_of(I_DMAMAP) ? runner_of(I_DMAMAP) : &run[0];
				uint64_t fs = failing_size(r);

				if (fs)
					w_fail("W4", "failing allocation, 99% full", fs);
				else
					printf("W4: every size up to 256 pages still fits at 99%%: no failing figure\n");
			}
		}
		runners_destroy();
	}

	/* W6: space sizes */
	if (opt.workload[6]) {
		for (unsigned s = 0; s < opt.nsizes; s++) {
			uint64_t pages = (uint64_t)1 << opt.sizes[s];
			char label[64];

			/* seed is placed by a quadratic route: keep it to the sizes it can take in time */
			make_runners(pages, true);
			snprintf(label, sizeof(label), "W6 2^%u: aging", opt.sizes[s]);
			age_all(0.9, (uint64_t)(opt.sizes[s] > opt.base_log2 ? opt.age_large : opt.age_factor) * pages,
				label);
			run_figure("W6", step_churn, &mixed_bg, opt.samples, 2000);
			record("W6", "mixed 1..256, aged 90%", 0, false);
			{
				struct churn_ctx c = { .size = 1, .fifo = true };

				for (unsigned i = 0; i < nrun; i++) {
					make_room(&run[i], 64);
					fill_own(&run[i], 64, 1);
				}
				run_figure("W6", step_churn, &c, opt.samples, 1000);
				record("W6", "1 page, FIFO 64, aged 90%", 1, false);
			}
			runners_destroy();
		}
	}

	/* W7: a full 32-bit space of single pages */
	if (opt.workload[7]) {
		uint64_t pages = opt.quick ? (uint64_t)1 << 16 : (uint64_t)1 << 20;

		make_runners(pages, true);
		{
			struct runner *src = &run[0];

			for (uint64_t p = 0; p < pages; p++)
				if (!r_alloc(src, &src->bg, 1, NULL))
					break;
			for (unsigned i = 1; i < nrun; i++)
				place_live(&run[i], &src->bg);
		}
		run_figure("W7", step_churn, &w7_pair, opt.samples, 100);
		record("W7", "full space: free one, allocate one", 1, false);
		w_fail("W7", "failing 1-page allocation, full space", 1);
		runners_destroy();
	}
	bench_progress_done();

	print_section("W1", "fixed-size churn, aged to 90% (pair = free + alloc)");
	print_section("W2", "mixed sizes, fresh space");
	print_section("W3", "mixed sizes, aged to 90%");
	print_section("W4", "near full");
	print_section("W5", "threads (ops/s: allocations + frees per second, all threads)");
	print_w5_references();
	{
		char w6[96];

		snprintf(w6, sizeof(w6), "space size (aged by %ux the capacity; %ux above 2^%u)", opt.age_factor,
			 opt.age_large, opt.base_log2);
		print_section("W6", w6);
	}
	print_section("W7", "adversarial: full space of 1-page allocations");
	print_targets();
	if (opt.json)
		write_json();
	if (opt.plot)
		write_plots();
	printf("\n(%.1f s)\n", (double)(bench_now_ns() - t_start) / 1e9);
	for (size_t i = 0; i < nresults; i++)
		free(results[i].cdf);
	free(results);
	return 0;
}
