/* SPDX-License-Identifier: MIT */
/*
 * dmamap-map-bench: the DMA API's map path, in the manner of Linux's
 * dma_map_benchmark (threads -t, seconds -s, granule -g, direction -d, mask
 * bits -b, simulated transfer delay -x), with percentiles (BENCH.md).
 *
 * Every case runs on two machines side by side: the simple one (no outer
 * cache, no speculative prefetch) and the demanding one (outer cache and
 * speculative prefetch). Cases:
 *   memcpy of the same bytes: the reference of every ratio
 *   arm_dma_ops, non-coherent device: TO_DEVICE on a clean buffer and on one
 *     the CPU just wrote, FROM_DEVICE untouched and with the device writing
 *     the buffer between map and unmap (not timed); a coherent device
 *   dmabounce: a device that reaches only the DMA zone, buffers above it
 *   IOMMU mapper; dma_map_sg of 16-entry lists; dma_alloc_attrs + free
 *   the checker off, for the checker's overhead
 *   what the map path is made of: cache maintenance primitives by range,
 *     the IOVA allocator's pair, an IOMMU domain's map + unmap
 *   machine create + device init + release + destroy at several RAM sizes
 *
 * All cases are interleaved: the run is made of rounds, each giving every
 * case a slice of a couple of milliseconds, until each has had its seconds,
 * so that the machine's noise falls on all alike. Every map and every unmap
 * is sampled with the TSC; figures are per map+unmap pair (bench.h).
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dmamap/dmamap.h>

#include "bench.h"

#define MAX_SIZES 8
#define MAX_THREADS 16
#define SG_ENTS 16
#define SLICE_NS 2000000ULL
#define BUF_ORDER 5                        /* per-thread buffer: 128 KiB */
#define BOUNCE_ZONE (64ULL << 20)          /* the dmabounce machine's DMA zone */
#define IOVA_BASE 0x80000000ULL
#define IOVA_SPACE (256ULL << 20)
#define WALK_OFF (8UL << 20)                /* in a thread's 16 MiB of the bare domain */

/* ------------------------------------------------------------ options */

static struct {
	unsigned threads;
	double seconds;                    /* measuring time per case */
	size_t sizes[MAX_SIZES];
	unsigned nsizes;
	int dir;                           /* -1: each case's own */
	unsigned mask_bits;
	unsigned long delay_ns;
	bool quick, lifecycle;
	const char *json, *plot, *only;
} opt = { .threads = 1, .dir = -1, .mask_bits = 32, .lifecycle = true };

static void usage(FILE *f)
{
	fprintf(f,
		"usage: dmamap-map-bench [options]\n"
		"  -t N          threads mapping at once, each with its own buffers (default 1)\n"
		"  -s SECONDS    measuring time per case (default 0.1; --quick 0.008)\n"
		"  -g PAGES      granule: map PAGES pages (default: 64 B, 1500 B, 4 KiB, 64 KiB)\n"
		"  --sizes LIST  map sizes in bytes, comma-separated\n"
		"  -d DIR        direction: 0 BIDIRECTIONAL, 1 TO_DEVICE, 2 FROM_DEVICE (default: each case's)\n"
		"  -b BITS       DMA mask of the devices (default 32)\n"
		"  -x NS         simulated transfer time between map and unmap, not timed (default 0)\n"
		"  --no-lifecycle  skip the machine lifecycle cases\n"
		"  --only TEXT   run only the cases whose name holds TEXT (and the memcpy references)\n"
		"  --quick       CI form: short slices, three sizes (under 20 s)\n"
		"  --json FILE   write every result as JSON\n"
		"  --plot DIR    write PNG charts with gnuplot into DIR\n");
}

static int parse_sizes(const char *s)
{
	char *end;

	opt.nsizes = 0;
	while (*s && opt.nsizes < MAX_SIZES) {
		unsigned long v = strtoul(s, &end, 10);

		if (end == s || !v || v > (1UL << 20))
			return -1;
		opt.sizes[opt.nsizes++] = v;
		s = *end == ',' ? end + 1 : end;
	}
	return *s ? -1 : 0;
}

static int parse_options(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "quick", no_argument, NULL, 'q' },
		{ "json", required_argument, NULL, 'j' },
		{ "plot", required_argument, NULL, 'p' },
		{ "sizes", required_argument, NULL, 'S' },
		{ "no-lifecycle", no_argument, NULL, 'L' },
		{ "only", required_argument, NULL, 'O' },
		{ "help", no_argument, NULL, 'h' },
		{ 0, 0, 0, 0 },
	};
	bool seconds_set = false, sizes_set = false;
	int c;

	while ((c = getopt_long(argc, argv, "t:s:g:d:b:x:h", lo, NULL)) != -1) {
		switch (c) {
		case 't':
			opt.threads = (unsigned)strtoul(optarg, NULL, 10);
			break;
		case 's':
			opt.seconds = strtod(optarg, NULL);
			seconds_set = true;
			break;
		case 'g':
			opt.sizes[0] = strtoul(optarg, NULL, 10) * PAGE_SIZE;
			opt.nsizes = 1;
			sizes_set = opt.sizes[0] && opt.sizes[0] <= (1UL << 20);
			if (!sizes_set)
				return -1;
			break;
		case 'S':
			if (parse_sizes(optarg))
				return -1;
			sizes_set = true;
			break;
		case 'd':
			opt.dir = (int)strtol(optarg, NULL, 10);
			break;
		case 'b':
			opt.mask_bits = (unsigned)strtoul(optarg, NULL, 10);
			break;
		case 'x':
			opt.delay_ns = strtoul(optarg, NULL, 10);
			break;
		case 'q':
			opt.quick = true;
			break;
		case 'j':
			opt.json = optarg;
			break;
		case 'p':
			opt.plot = optarg;
			break;
		case 'L':
			opt.lifecycle = false;
			break;
		case 'O':
			opt.only = optarg;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			return -1;
		}
	}
	if (optind != argc || opt.threads < 1 || opt.threads > MAX_THREADS || opt.dir < -1 || opt.dir > 2 ||
	    opt.mask_bits < 24 || opt.mask_bits > 64)
		return -1;
	if (!seconds_set)
		opt.seconds = opt.quick ? 0.008 : 0.1;
	if (!(opt.seconds > 0) || opt.seconds > 60)
		return -1;
	if (!sizes_set) {
		static const size_t def[] = { 64, 1500, 4096, 65536 }, quick[] = { 64, 4096, 65536 };

		opt.nsizes = opt.quick ? 3 : 4;
		memcpy(opt.sizes, opt.quick ? quick : def, opt.nsizes * sizeof(size_t));
	}
	return 0;
}

/* ------------------------------------------------------------ machines */

enum mkind { M_SIMPLE, M_DEMANDING, M_NR };
static const char *const mname[M_NR] = { "simple", "demanding" };

/* What one thread maps on one machine. */
struct tbuf {
	u8 *buf;                          /* BUF_ORDER block, linear map */
	struct page *page;
	u8 *bbuf;                         /* the dmabounce machine's buffer, above its DMA zone */
	struct page *bpage;
	struct page *sg_pages[SG_ENTS];
	struct scatterlist sgl[SG_ENTS];
	u8 *host_src, *host_dst;          /* memcpy reference: host memory */
	unsigned long iova_off;           /* this thread's place in the bare domain */
};

struct env {
	struct dmamap_machine *m, *bm;    /* bm: the dmabounce machine */
	struct device arm, coh, iommu, bounce;
	struct dma_iommu_mapping *mapping;
	struct iommu_domain *domain;      /* a bare domain: page-table work alone */
	struct dmamap_iova *iova;         /* a bare allocator, the mapping's shape */
	struct tbuf t[MAX_THREADS];
};

static struct env envs[M_NR];

static void die(const char *what)
{
	fprintf(stderr, "dmamap-map-bench: %s\n", what);
	exit(2);
}

static void machine_config(struct dmamap_machine_config *cfg, enum mkind k, uint64_t ram)
{
	dmamap_machine_config_init(cfg);
	cfg->ram_size = ram;
	cfg->outer_cache = k == M_DEMANDING;
	cfg->speculative_prefetch = k == M_DEMANDING;
}

static void device_up(struct device *dev, struct dmamap_machine *m, const char *name)
{
	if (dmamap_device_init(dev, m, name))
		die("device init failed");
	if (dma_set_mask(dev, DMA_BIT_MASK(opt.mask_bits)) || dma_set_coherent_mask(dev, DMA_BIT_MASK(32)))
		die("the devices refuse that DMA mask (-b)");
}

static void env_up(struct env *e, enum mkind k)
{
	struct dmamap_machine_config cfg;

	machine_config(&cfg, k, 256ULL << 20);
	e->m = dmamap_machine_create(&cfg);
	cfg.dma_zone_limit = cfg.ram_base + BOUNCE_ZONE;
	e->bm = dmamap_machine_create(&cfg);
	if (!e->m || !e->bm)
		die("cannot create the machines");
	device_up(&e->arm, e->m, "arm");
	device_up(&e->coh, e->m, "coherent");
	e->coh.dma_coherent = true;
	device_up(&e->iommu, e->m, "iommu");
	e->mapping = arm_iommu_create_mapping(e->m, IOVA_BASE, IOVA_SPACE, 0);
	if (IS_ERR_OR_NULL(e->mapping) || arm_iommu_attach_device(&e->iommu, e->mapping))
		die("cannot set up the IOMMU mapping");
	e->domain = iommu_domain_alloc(e->m);
	e->iova = dmamap_iova_create(IOVA_BASE, IOVA_SPACE, 0);
	if (!e->domain || !e->iova)
		die("cannot set up the bare domain and allocator");
	/* a device that reaches the DMA zone only, as the dmabounce users of the seed */
	if (dmamap_device_init(&e->bounce, e->bm, "bounce"))
		die("device init failed");
	if (dma_set_mask(&e->bounce, cfg.dma_zone_limit - 1) || dma_set_coherent_mask(&e->bounce, cfg.dma_zone_limit - 1))
		die("the dmabounce device refuses its mask");
	if (dmabounce_register_dev(&e->bounce, 512, 4096, NULL))
		die("dmabounce_register_dev failed");

	for (unsigned i = 0; i < opt.threads; i++) {
		struct tbuf *t = &e->t[i];

		t->page = dmamap_alloc_pages(e->m, GFP_KERNEL | __GFP_ZERO, BUF_ORDER);
		t->bpage = dmamap_alloc_pages(e->bm, GFP_KERNEL | __GFP_ZERO, BUF_ORDER);
		if (!t->page || !t->bpage)
			die("cannot allocate the buffers");
		t->buf = page_address(t->page);
		t->bbuf = page_address(t->bpage);
		if (page_to_phys(t->bpage) < cfg.dma_zone_limit)
			die("the dmabounce buffer is not above the DMA zone");
		sg_init_table(t->sgl, SG_ENTS);
		for (unsigned s = 0; s < SG_ENTS; s++) {
			/* every other page: a scattered list */
			struct page *p = dmamap_alloc_pages(e->m, GFP_KERNEL | __GFP_ZERO, 1);

			if (!p)
				die("cannot allocate the sg pages");
			t->sg_pages[s] = p;
			sg_set_page(&t->sgl[s], p, PAGE_SIZE, 0);
		}
		t->host_src = aligned_alloc(64, PAGE_SIZE << BUF_ORDER);
		t->host_dst = aligned_alloc(64, PAGE_SIZE << BUF_ORDER);
		if (!t->host_src || !t->host_dst)
			die("out of memory");
		memset(t->host_src, 0x5a, PAGE_SIZE << BUF_ORDER);
		memset(t->host_dst, 0xa5, PAGE_SIZE << BUF_ORDER);
		t->iova_off = (unsigned long)i << 24;
		/* what the walk case translates, well above where K_DOMAIN maps */
		if (iommu_map(e->domain, (unsigned long)IOVA_BASE + t->iova_off + WALK_OFF, page_to_phys(t->page),
			      PAGE_SIZE, IOMMU_READ))
			die("cannot map the walk page");
	}
}

static void env_down(struct env *e)
{
	for (unsigned i = 0; i < opt.threads; i++) {
		struct tbuf *t = &e->t[i];

		iommu_unmap(e->domain, (unsigned long)IOVA_BASE + t->iova_off + WALK_OFF, PAGE_SIZE);
		for (unsigned s = 0; s < SG_ENTS; s++)
			dmamap_free_pages(t->sg_pages[s], 1);
		dmamap_free_pages(t->page, BUF_ORDER);
		dmamap_free_pages(t->bpage, BUF_ORDER);
		free(t->host_src);
		free(t->host_dst);
	}
	arm_iommu_detach_device(&e->iommu);
	arm_iommu_release_mapping(e->mapping);
	iommu_domain_free(e->domain);
	dmamap_iova_destroy(e->iova);
	if (dmabounce_unregister_dev(&e->bounce))
		die("dmabounce_unregister_dev failed");
	dmamap_device_release(&e->bounce);
	dmamap_device_release(&e->iommu);
	dmamap_device_release(&e->coh);
	dmamap_device_release(&e->arm);
	dmamap_machine_destroy(e->bm);
	dmamap_machine_destroy(e->m);
}

/* ------------------------------------------------------------ cases */

enum kind {
	K_MEMCPY,          /* memcpy of size bytes, host memory */
	K_MAP,             /* dma_map_single + dma_unmap_single */
	K_SG,              /* dma_map_sg + dma_unmap_sg of SG_ENTS pages */
	K_ALLOC,           /* dma_alloc_attrs + dma_free_attrs */
	K_CLEAN,           /* dmamap_cache_clean, inner level */
	K_INV,             /* dmamap_cache_inv, inner level */
	K_IOVA,            /* dmamap_iova_alloc + dmamap_iova_free */
	K_DOMAIN,          /* iommu_map + iommu_unmap on a bare domain */
	K_WALK,            /* iommu_iova_to_phys: one table walk */
	K_LIFECYCLE,       /* machine create + device init + release + destroy */
};

enum target { T_ARM, T_COHERENT, T_BOUNCE, T_IOMMU };
static const char *const tname[] = { "arm", "arm-coherent", "dmabounce", "iommu" };

enum prep { P_NONE, P_DIRTY, P_DEVWRITE };

struct bcase {
	char name[64];
	const char *ops;                   /* JSON "allocator": the ops set or the part measured */
	enum kind kind;
	enum mkind mk;                     /* M_NR: host-only (memcpy) */
	enum target target;
	enum prep prep;
	size_t size;                       /* bytes; RAM bytes for a lifecycle */
	int dir;
	bool checker_off;
	unsigned section;                  /* which table it is printed in */
	/* results */
	struct bench_samples pair[MAX_THREADS], first[MAX_THREADS], second[MAX_THREADS];
	uint64_t spent_ns, iters, failures;
	struct bench_summary s, s1, s2;
	bool done;
};

enum { SEC_SIZE, SEC_SG, SEC_ALLOC, SEC_LIFE };

static struct bcase *cases;
static size_t ncases, capcases;

static struct bcase *add_case(const char *name, const char *ops, enum kind kind, enum mkind mk, size_t size)
{
	struct bcase *c;

	if (ncases == capcases) {
		capcases = capcases ? 2 * capcases : 64;
		cases = realloc(cases, capcases * sizeof(*cases));
		if (!cases)
			die("out of memory");
	}
	c = &cases[ncases++];
	memset(c, 0, sizeof(*c));
	snprintf(c->name, sizeof(c->name), "%s", name);
	c->ops = ops;
	c->kind = kind;
	c->mk = mk;
	c->size = size;
	c->dir = DMA_TO_DEVICE;
	c->section = SEC_SIZE;
	return c;
}

static const char *dir_short(int dir)
{
	return dir == DMA_TO_DEVICE ? "TO_DEVICE" : dir == DMA_FROM_DEVICE ? "FROM_DEVICE" : "BIDIRECTIONAL";
}

static void add_map_cases(enum mkind mk, size_t size, enum target tg, bool variants)
{
	static const int dirs[] = { DMA_TO_DEVICE, DMA_FROM_DEVICE };
	unsigned nd = opt.dir >= 0 ? 1 : 2;

	for (unsigned d = 0; d < nd; d++) {
		int dir = opt.dir >= 0 ? opt.dir : dirs[d];

		for (enum prep p = P_NONE; p <= (variants ? P_DEVWRITE : P_NONE); p++) {
			char name[64];
			struct bcase *c;

			/* CPU-written buffers make sense to the device, device-written ones to the CPU */
			if ((p == P_DIRTY && dir == DMA_FROM_DEVICE) || (p == P_DEVWRITE && dir == DMA_TO_DEVICE))
				continue;
			snprintf(name, sizeof(name), "%s %s%s", tname[tg], dir_short(dir),
				 p == P_DIRTY ? ", CPU wrote it" : p == P_DEVWRITE ? ", device wrote it" : "");
			c = add_case(name, tname[tg], K_MAP, mk, size);
			c->target = tg;
			c->dir = dir;
			c->prep = p;
		}
	}
}

/* Drop the cases --only does not name. */
static void filter_cases(void)
{
	size_t n = 0;

	if (!opt.only)
		return;
	for (size_t i = 0; i < ncases; i++)
		if (cases[i].kind == K_MEMCPY || strstr(cases[i].name, opt.only))
			cases[n++] = cases[i];
	ncases = n;
}

static void build_cases(void)
{
	static const uint64_t rams[] = { 16ULL << 20, 256ULL << 20, 1ULL << 30, 4ULL << 30 };

	for (unsigned si = 0; si < opt.nsizes; si++) {
		size_t size = opt.sizes[si];
		struct bcase *c;

		add_case("memcpy (reference)", "memcpy", K_MEMCPY, M_NR, size);
		for (enum mkind mk = 0; mk < M_NR; mk++) {
			add_map_cases(mk, size, T_ARM, true);
			c = add_case("arm TO_DEVICE, checker off", "arm", K_MAP, mk, size);
			c->checker_off = true;
			add_map_cases(mk, size, T_COHERENT, false);
			add_map_cases(mk, size, T_BOUNCE, false);
			add_map_cases(mk, size, T_IOMMU, false);
			c = add_case("iommu TO_DEVICE, checker off", "iommu", K_MAP, mk, size);
			c->target = T_IOMMU;
			c->checker_off = true;
			c = add_case("cache clean, every line dirty", "cache", K_CLEAN, mk, size);
			c->prep = P_DIRTY;
			add_case("cache clean, range untouched", "cache", K_CLEAN, mk, size);
			c = add_case("cache invalidate, every line dirty", "cache", K_INV, mk, size);
			c->prep = P_DIRTY;
			add_case("cache invalidate, range clean", "cache", K_INV, mk, size);
			add_case("IOVA allocator pair", "iova", K_IOVA, mk, size);
			add_case("IOMMU domain map + unmap", "iommu-domain", K_DOMAIN, mk, size);
		}
	}
	for (enum mkind mk = 0; mk < M_NR; mk++) {
		struct bcase *c;

		c = add_case("iommu_iova_to_phys (one walk)", "iommu-domain", K_WALK, mk, PAGE_SIZE);
		c->section = SEC_SG;
		for (enum target tg = T_ARM; tg <= T_IOMMU; tg += 3) {
			char name[64];

			snprintf(name, sizeof(name), "%s dma_map_sg, %u x 4 KiB", tname[tg], SG_ENTS);
			c = add_case(name, tname[tg], K_SG, mk, SG_ENTS * PAGE_SIZE);
			c->target = tg;
			c->section = SEC_SG;
		}
		for (unsigned si = 0; si < opt.nsizes; si++) {
			size_t size = PAGE_ALIGN(opt.sizes[si]);
			bool seen = false;

			for (unsigned sj = 0; sj < si; sj++)
				seen |= PAGE_ALIGN(opt.sizes[sj]) == size;
			if (seen)
				continue;
			for (enum target tg = T_ARM; tg <= T_IOMMU; tg += 3) {
				char name[64];

				snprintf(name, sizeof(name), "%s dma_alloc_attrs + free", tname[tg]);
				c = add_case(name, tname[tg], K_ALLOC, mk, size);
				c->target = tg;
				c->section = SEC_ALLOC;
			}
		}
		if (opt.lifecycle) {
			for (unsigned r = 0; r < sizeof(rams) / sizeof(rams[0]); r++) {
				c = add_case("machine lifecycle", "machine", K_LIFECYCLE, mk, rams[r]);
				c->section = SEC_LIFE;
			}
		}
	}
}

/* ------------------------------------------------------------ running */

static void spin_ns(unsigned long ns)
{
	uint64_t end = bench_now_ns() + ns;

	while (bench_now_ns() < end)
		;
}

static struct device *target_dev(struct env *e, enum target tg)
{
	switch (tg) {
	case T_COHERENT:
		return &e->coh;
	case T_BOUNCE:
		return &e->bounce;
	case T_IOMMU:
		return &e->iommu;
	default:
		return &e->arm;
	}
}

static void note(struct bcase *c, unsigned th, uint64_t a, uint64_t b, uint64_t x, uint64_t y)
{
	bench_sample(&c->first[th], b - a);
	bench_sample(&c->second[th], y - x);
	bench_sample(&c->pair[th], (b - a) + (y - x));
}

/* One iteration of @c by thread @th; false on a failure (counted). */
static bool iterate(struct bcase *c, unsigned th)
{
	struct env *e = c->mk < M_NR ? &envs[c->mk] : &envs[0];
	struct tbuf *t = &e->t[th];
	uint64_t a, b, x, y;

	switch (c->kind) {
	case K_MEMCPY: {
		/*
		 * Copies of less than a page are timed in a batch of a page's
		 * worth: one alone is below the tick's resolution. A sample is
		 * one copy's share, the cost of the reads counted once.
		 */
		uint64_t reps = c->size < PAGE_SIZE ? PAGE_SIZE / c->size : 1, ov = bench_tick_overhead();

		bench_settle();
		a = bench_ticks();
		for (uint64_t r = 0; r < reps; r++) {
			memcpy(t->host_dst, t->host_src, c->size);
			__asm__ volatile("" : : "r"(t->host_dst) : "memory");
		}
		b = bench_ticks();
		c->pair[th].batch = (unsigned)reps;
		bench_sample(&c->pair[th], b - a > ov ? (b - a - ov) / reps + ov : b - a);
		return true;
	}
	case K_MAP: {
		struct device *dev = target_dev(e, c->target);
		u8 *buf = c->target == T_BOUNCE ? t->bbuf : t->buf;
		dma_addr_t h;

		if (c->prep == P_DIRTY)
			memset(buf, (int)c->iters, c->size);
		bench_settle();
		a = bench_ticks();
		h = dma_map_single(dev, buf, c->size, c->dir);
		b = bench_ticks();
		if (dma_mapping_error(dev, h))
			return false;
		if (c->prep == P_DEVWRITE && dmamap_dev_write(dev, h, t->host_src, c->size))
			return false;
		if (opt.delay_ns)
			spin_ns(opt.delay_ns);
		bench_settle();
		x = bench_ticks();
		dma_unmap_single(dev, h, c->size, c->dir);
		y = bench_ticks();
		note(c, th, a, b, x, y);
		return true;
	}
	case K_SG: {
		struct device *dev = target_dev(e, c->target);
		int n;

		a = bench_ticks();
		n = dma_map_sg(dev, t->sgl, SG_ENTS, DMA_TO_DEVICE);
		b = bench_ticks();
		if (!n)
			return false;
		if (opt.delay_ns)
			spin_ns(opt.delay_ns);
		x = bench_ticks();
		dma_unmap_sg(dev, t->sgl, SG_ENTS, DMA_TO_DEVICE);
		y = bench_ticks();
		note(c, th, a, b, x, y);
		return true;
	}
	case K_ALLOC: {
		struct device *dev = target_dev(e, c->target);
		dma_addr_t h;
		void *p;

		a = bench_ticks();
		p = dma_alloc_attrs(dev, c->size, &h, GFP_KERNEL, NULL);
		b = bench_ticks();
		if (!p)
			return false;
		x = bench_ticks();
		dma_free_attrs(dev, c->size, p, h, NULL);
		y = bench_ticks();
		note(c, th, a, b, x, y);
		return true;
	}
	case K_CLEAN:
	case K_INV: {
		phys_addr_t pa = page_to_phys(t->page);

		if (c->prep == P_DIRTY)
			memset(t->buf, (int)c->iters, c->size);
		bench_settle();
		a = bench_ticks();
		if (c->kind == K_CLEAN)
			dmamap_cache_clean(e->m, DMAMAP_CACHE_INNER, pa, c->size);
		else
			dmamap_cache_inv(e->m, DMAMAP_CACHE_INNER, pa, c->size);
		b = bench_ticks();
		bench_sample(&c->pair[th], b - a);
		return true;
	}
	case K_IOVA: {
		dma_addr_t i;

		a = bench_ticks();
		i = dmamap_iova_alloc(e->iova, PAGE_ALIGN(c->size));
		b = bench_ticks();
		if (i == DMA_MAPPING_ERROR)
			return false;
		x = bench_ticks();
		dmamap_iova_free(e->iova, i, PAGE_ALIGN(c->size));
		y = bench_ticks();
		note(c, th, a, b, x, y);
		return true;
	}
	case K_DOMAIN: {
		unsigned long iova = (unsigned long)IOVA_BASE + t->iova_off;
		int err;

		a = bench_ticks();
		err = iommu_map(e->domain, iova, page_to_phys(t->page), PAGE_ALIGN(c->size), IOMMU_READ);
		b = bench_ticks();
		if (err)
			return false;
		x = bench_ticks();
		iommu_unmap(e->domain, iova, PAGE_ALIGN(c->size));
		y = bench_ticks();
		note(c, th, a, b, x, y);
		return true;
	}
	case K_WALK: {
		unsigned long iova = (unsigned long)IOVA_BASE + t->iova_off;
		phys_addr_t pa;

		a = bench_ticks();
		pa = iommu_iova_to_phys(e->domain, iova + WALK_OFF);
		b = bench_ticks();
		bench_sample(&c->pair[th], b - a);
		return pa == page_to_phys(t->page);
	}
	case K_LIFECYCLE: {
		struct dmamap_machine_config cfg;
		struct dmamap_machine *m;
		struct device dev;

		machine_config(&cfg, c->mk, c->size);
		memset(&dev, 0, sizeof(dev));
		a = bench_ticks();
		m = dmamap_machine_create(&cfg);
		if (!m)
			return false;
		if (dmamap_device_init(&dev, m, "lifecycle")) {
			dmamap_machine_destroy(m);
			return false;
		}
		dmamap_device_release(&dev);
		dmamap_machine_destroy(m);
		b = bench_ticks();
		bench_sample(&c->pair[th], b - a);
		return true;
	}
	}
	return false;
}

/* Run @c on thread @th for one slice. */
static void run_slice(struct bcase *c, unsigned th)
{
	uint64_t end = bench_now_ns() + SLICE_NS;
	unsigned n = 0;

	do {
		if (!iterate(c, th))
			__atomic_fetch_add(&c->failures, 1, __ATOMIC_RELAXED);
		if (th == 0)
			c->iters++;
	} while ((++n & 15) || (bench_now_ns() < end && c->pair[th].n < c->pair[th].cap));
}

static struct {
	pthread_barrier_t start, end;
	struct bcase *c;
	bool quit;
} pool;

static void *worker(void *arg)
{
	unsigned th = (unsigned)(uintptr_t)arg;

	for (;;) {
		pthread_barrier_wait(&pool.start);
		if (pool.quit)
			return NULL;
		run_slice(pool.c, th);
		pthread_barrier_wait(&pool.end);
	}
}

static void set_checker(struct bcase *c, bool on)
{
	if (c->mk < M_NR && (c->kind == K_MAP || c->kind == K_SG) && c->checker_off) {
		struct dmamap_machine *m = c->target == T_BOUNCE ? envs[c->mk].bm : envs[c->mk].m;

		if (dmamap_checker_enable(m, on))
			die("cannot switch the checker");
	}
}

static void run_all(void)
{
	uint64_t budget = (uint64_t)(opt.seconds * 1e9);
	size_t cap = (size_t)(opt.seconds * 4e6) + 1024; /* up to one sample per 250 ns */
	pthread_t tid[MAX_THREADS];
	size_t left = ncases, round = 0;

	for (size_t i = 0; i < ncases; i++) {
		for (unsigned th = 0; th < opt.threads; th++) {
			/* thread 0's sets receive every thread's samples at the end */
			size_t n = th ? cap : cap * opt.threads;

			if (bench_samples_init(&cases[i].pair[th], n) || bench_samples_init(&cases[i].first[th], n) ||
			    bench_samples_init(&cases[i].second[th], n))
				die("out of memory for the samples");
			cases[i].pair[th].cap = cap;
		}
	}
	pthread_barrier_init(&pool.start, NULL, opt.threads);
	pthread_barrier_init(&pool.end, NULL, opt.threads);
	for (unsigned th = 1; th < opt.threads; th++)
		if (pthread_create(&tid[th], NULL, worker, (void *)(uintptr_t)th))
			die("cannot start the threads");

	/* a warm-up slice of every case, not kept */
	for (int pass = 0; left; pass++) {
		for (size_t i = 0; i < ncases; i++) {
			struct bcase *c = &cases[i];
			uint64_t t0;

			if (c->done)
				continue;
			bench_progress("round %zu: %s (%s, %zu B) — %zu cases left", round, c->name,
				       c->mk < M_NR ? mname[c->mk] : "host", c->size, left);
			set_checker(c, false);
			pool.c = c;
			t0 = bench_now_ns();
			if (opt.threads > 1)
				pthread_barrier_wait(&pool.start);
			run_slice(c, 0);
			if (opt.threads > 1)
				pthread_barrier_wait(&pool.end);
			set_checker(c, true);
			if (pass == 0) {
				for (unsigned th = 0; th < opt.threads; th++)
					c->pair[th].n = c->first[th].n = c->second[th].n = 0;
				c->iters = c->failures = 0;
				continue;
			}
			c->spent_ns += bench_now_ns() - t0;
			if (c->spent_ns >= budget || c->pair[0].n >= c->pair[0].cap) {
				c->done = true;
				left--;
			}
		}
		round++;
	}
	pool.quit = true;
	if (opt.threads > 1)
		pthread_barrier_wait(&pool.start);
	for (unsigned th = 1; th < opt.threads; th++)
		pthread_join(tid[th], NULL);
	bench_progress_done();

	for (size_t i = 0; i < ncases; i++) {
		struct bcase *c = &cases[i];

		/* all threads' samples as one set */
		for (unsigned th = 1; th < opt.threads; th++) {
			for (size_t k = 0; k < c->pair[th].n; k++)
				bench_sample(&c->pair[0], c->pair[th].v[k]);
			for (size_t k = 0; k < c->first[th].n; k++)
				bench_sample(&c->first[0], c->first[th].v[k]);
			for (size_t k = 0; k < c->second[th].n; k++)
				bench_sample(&c->second[0], c->second[th].v[k]);
		}
		bench_summarise(&c->pair[0], &c->s);
		bench_summarise(&c->first[0], &c->s1);
		bench_summarise(&c->second[0], &c->s2);
		for (unsigned th = 0; th < opt.threads; th++) {
			bench_samples_free(&c->pair[th]);
			bench_samples_free(&c->first[th]);
			bench_samples_free(&c->second[th]);
		}
	}
}

/* ------------------------------------------------------------ results */

static const struct bcase *find(const char *name, enum mkind mk, size_t size)
{
	for (size_t i = 0; i < ncases; i++)
		if (cases[i].mk == mk && cases[i].size == size && !strcmp(cases[i].name, name))
			return &cases[i];
	return NULL;
}

static double median_of(const char *name, enum mkind mk, size_t size)
{
	const struct bcase *c = find(name, mk, size);

	return c && c->s.n ? c->s.median : NAN;
}

static double memcpy_of(size_t size)
{
	return median_of("memcpy (reference)", M_NR, size);
}

static const char *fmt_size(char *buf, size_t len, size_t size)
{
	if (size >= (1ULL << 30) && !(size % (1ULL << 30)))
		snprintf(buf, len, "%zu GiB", size >> 30);
	else if (size >= (1ULL << 20) && !(size % (1ULL << 20)))
		snprintf(buf, len, "%zu MiB", size >> 20);
	else if (size >= 1024 && !(size % 1024))
		snprintf(buf, len, "%zu KiB", size >> 10);
	else
		snprintf(buf, len, "%zu B", size);
	return buf;
}

static void print_cell(const struct bcase *c, bool ratio)
{
	char b[5][32];
	double ref = ratio && c ? memcpy_of(c->size) : NAN;

	if (!c || !c->s.n) {
		printf(" | %8s %8s %8s %8s %7s", "-", "-", "-", "-", "-");
		return;
	}
	printf(" | %8s %8s %8s %8s %7s", bench_fmt_ns(b[0], 32, c->s.median), bench_fmt_ns(b[1], 32, c->s.p99),
	       bench_fmt_ns(b[2], 32, c->s.p999), bench_fmt_ns(b[3], 32, c->s.max),
	       bench_fmt_ratio(b[4], 32, c->s.median / ref));
}

static void print_header(const char *title, const char *first)
{
	printf("\n%s\n", title);
	printf("%-42s | %-51s | %-51s\n", "", "simple machine", "demanding machine (outer cache + prefetch)");
	printf("%-42s", first);
	for (int k = 0; k < M_NR; k++)
		printf(" | %8s %8s %8s %8s %7s", "median", "p99", "p99.9", "max", "xmemcpy");
	printf("\n");
}

/* Rows of @section (and @size unless 0): one per case name, both machines side by side. */
static void print_rows(unsigned section, size_t size, bool by_size_label)
{
	for (size_t i = 0; i < ncases; i++) {
		const struct bcase *c = &cases[i], *cell[M_NR];
		bool seen = false;
		char label[96], sz[32];

		if (c->section != section || (size && c->size != size))
			continue;
		for (size_t j = 0; j < i; j++)
			seen |= cases[j].section == section && (!size || cases[j].size == size) &&
				!strcmp(cases[j].name, c->name) && (!by_size_label || cases[j].size == c->size);
		if (seen)
			continue;
		for (int k = 0; k < M_NR; k++)
			cell[k] = c->mk == M_NR ? c : find(c->name, (enum mkind)k, c->size);
		if (by_size_label)
			snprintf(label, sizeof(label), "%s, %s", c->name, fmt_size(sz, sizeof(sz), c->size));
		else
			snprintf(label, sizeof(label), "%s", c->name);
		printf("%-42.42s", label);
		for (int k = 0; k < M_NR; k++)
			print_cell(cell[k], section != SEC_LIFE);
		if (c->failures)
			printf("  (%lu failures)", (unsigned long)c->failures);
		printf("\n");
	}
}

static void print_tables(void)
{
	char sz[32], title[160];

	printf("dmamap-map-bench: %u thread%s, %.3g s per case, all cases interleaved; -b %u, -x %lu ns\n",
	       opt.threads, opt.threads == 1 ? "" : "s", opt.seconds, opt.mask_bits, opt.delay_ns);
	printf("Figures: ns per map+unmap pair (alloc+free, alloc+free of an IOVA, map+unmap of a domain; one call\n"
	       "for cache primitives and walks); xmemcpy = median over the median of a memcpy of as many bytes in this run.\n");
	bench_describe_clock_step(stdout);
	for (unsigned si = 0; si < opt.nsizes; si++) {
		snprintf(title, sizeof(title), "== %s mapped (dma_map_single / dma_unmap_single)",
			 fmt_size(sz, sizeof(sz), opt.sizes[si]));
		print_header(title, "case");
		print_rows(SEC_SIZE, opt.sizes[si], false);
	}
	print_header("== scatterlists and table walks", "case");
	print_rows(SEC_SG, 0, false);
	print_header("== coherent allocations", "case");
	print_rows(SEC_ALLOC, 0, true);
	if (opt.lifecycle) {
		print_header("== machine lifecycle: dmamap_machine_create + dmamap_device_init + release + destroy",
			     "RAM");
		print_rows(SEC_LIFE, 0, true);
	}
}

/* ------------------------------------------------------------ targets */

static void target_row(const char *what, const char *goal, double value, double limit, const char *unit)
{
	char b[32];

	if (!isfinite(value))
		return;
	if (!strcmp(unit, "x"))
		bench_fmt_ratio(b, sizeof(b), value);
	else
		bench_fmt_ns(b, sizeof(b), value);
	printf("  %-74s %-12s %10s  %s\n", what, goal, b, value <= limit ? "met" : "NOT MET");
}

static void print_targets(void)
{
	char line[160];

	printf("\n== targets (issue and BENCH.md), medians of this run\n");
	for (int k = 0; k < M_NR; k++) {
		for (size_t size = PAGE_SIZE; size <= 16 * PAGE_SIZE; size *= 16) {
			static const char *const prim[] = { "cache clean, every line dirty", "cache invalidate, every line dirty",
							    "cache invalidate, range clean" };
			char sz[32];

			fmt_size(sz, sizeof(sz), size);
			for (unsigned p = 0; p < 3; p++) {
				snprintf(line, sizeof(line), "%s: %s, %s / memcpy", mname[k], prim[p], sz);
				target_row(line, "<= 1.5x", median_of(prim[p], (enum mkind)k, size) / memcpy_of(size), 1.5, "x");
			}
			snprintf(line, sizeof(line), "%s: cache clean, range untouched, %s / memcpy", mname[k], sz);
			target_row(line, "<= 0.5x", median_of("cache clean, range untouched", (enum mkind)k, size) / memcpy_of(size),
				   0.5, "x");
		}
		snprintf(line, sizeof(line), "%s: iommu TO_DEVICE 4 KiB / (IOVA pair + domain map+unmap)", mname[k]);
		target_row(line, "<= 4x",
			   median_of("iommu TO_DEVICE", (enum mkind)k, PAGE_SIZE) /
				   (median_of("IOVA allocator pair", (enum mkind)k, PAGE_SIZE) +
				    median_of("IOMMU domain map + unmap", (enum mkind)k, PAGE_SIZE)),
			   4, "x");
		snprintf(line, sizeof(line), "%s: dmabounce TO_DEVICE 64 KiB / (memcpy + arm TO_DEVICE)", mname[k]);
		target_row(line, "<= 3x",
			   median_of("dmabounce TO_DEVICE", (enum mkind)k, 65536) /
				   (memcpy_of(65536) + median_of("arm TO_DEVICE", (enum mkind)k, 65536)),
			   3, "x");
		/* the checker's target is set on a 1500-byte pair (a frame) */
		for (unsigned z = 0; z < 2; z++) {
			size_t size = z ? PAGE_SIZE : 1500;
			char sz[16];

			fmt_size(sz, sizeof(sz), size);
			snprintf(line, sizeof(line), "%s: arm TO_DEVICE %s, checker on / off", mname[k], sz);
			target_row(line, "<= 2x",
				   median_of("arm TO_DEVICE", (enum mkind)k, size) /
					   median_of("arm TO_DEVICE, checker off", (enum mkind)k, size),
				   2, "x");
		}
		snprintf(line, sizeof(line), "%s: iommu TO_DEVICE 4 KiB, checker on / off", mname[k]);
		target_row(line, "<= 2x",
			   median_of("iommu TO_DEVICE", (enum mkind)k, PAGE_SIZE) /
				   median_of("iommu TO_DEVICE, checker off", (enum mkind)k, PAGE_SIZE),
			   2, "x");
		for (unsigned r = 0; r < 2; r++) {
			uint64_t ram = r ? 4ULL << 30 : 256ULL << 20;

			snprintf(line, sizeof(line), "%s: machine lifecycle at %s", mname[k], r ? "4 GiB" : "256 MiB");
			target_row(line, "<= 100 µs",
				   median_of("machine lifecycle", (enum mkind)k, ram), 100e3, "ns");
		}
	}
}

/* ------------------------------------------------------------ JSON */

static void write_json(void)
{
	struct bench_json j;

	bench_json_start(&j, opt.json, "dmamap-map-bench");
	bench_json_begin_object(&j, "options");
	bench_json_bool(&j, "quick", opt.quick);
	bench_json_int(&j, "threads", opt.threads);
	bench_json_num(&j, "seconds_per_case", opt.seconds);
	bench_json_int(&j, "mask_bits", opt.mask_bits);
	bench_json_int(&j, "delay_ns", (long long)opt.delay_ns);
	if (opt.dir >= 0)
		bench_json_int(&j, "direction", opt.dir);
	bench_json_end_object(&j);
	bench_json_begin_array(&j, "results");
	for (size_t i = 0; i < ncases; i++) {
		const struct bcase *c = &cases[i];
		double ref = memcpy_of(c->size);

		if (!c->s.n)
			continue;
		bench_json_begin_object(&j, NULL);
		bench_json_str(&j, "allocator", c->ops);
		bench_json_str(&j, "workload", c->name);
		if (c->mk < M_NR)
			bench_json_str(&j, "machine", mname[c->mk]);
		if (c->kind == K_LIFECYCLE) {
			bench_json_int(&j, "ram_bytes", (long long)c->size);
		} else {
			bench_json_int(&j, "size_bytes", (long long)c->size);
			if (!(c->size % PAGE_SIZE))
				bench_json_int(&j, "size_pages", (long long)(c->size / PAGE_SIZE));
		}
		if (c->kind == K_MAP)
			bench_json_str(&j, "direction", dir_short(c->dir));
		if (c->kind == K_MAP || c->kind == K_SG)
			bench_json_bool(&j, "checker", !c->checker_off);
		bench_json_int(&j, "threads", opt.threads);
		bench_json_num(&j, "pair_ns_median", c->s.median);
		bench_json_num(&j, "pair_ns_p99", c->s.p99);
		bench_json_num(&j, "pair_ns_p999", c->s.p999);
		bench_json_num(&j, "pair_ns_max", c->s.max);
		if (c->s1.n) {
			bench_json_num(&j, "alloc_ns_median", c->s1.median);
			bench_json_num(&j, "free_ns_median", c->s2.median);
		}
		if (c->kind != K_LIFECYCLE && c->kind != K_MEMCPY && isfinite(ref)) {
			bench_json_num(&j, "memcpy_ns_median", ref);
			bench_json_num(&j, "ratio_to_memcpy", c->s.median / ref);
		}
		bench_json_int(&j, "samples", (long long)c->s.n);
		bench_json_int(&j, "failures", (long long)c->failures);
		if (c->spent_ns)
			bench_json_num(&j, "ops_per_s", (double)c->s.n / ((double)c->spent_ns / 1e9));
		bench_json_end_object(&j);
	}
	bench_json_end_array(&j);
	bench_json_finish(&j, opt.json);
}

/* ------------------------------------------------------------ plots */

static const char *const plotted[] = {
	"memcpy (reference)", "arm TO_DEVICE", "arm TO_DEVICE, CPU wrote it", "arm FROM_DEVICE",
	"arm FROM_DEVICE, device wrote it", "dmabounce TO_DEVICE", "iommu TO_DEVICE",
};

static void write_plots(void)
{
	char path[4096], script[8192];
	size_t n;
	FILE *f;

	if (!bench_have_gnuplot()) {
		fprintf(stderr, "--plot: gnuplot is not installed (apt-get install gnuplot-nox); no charts written\n");
		return;
	}
	if (bench_mkdir(opt.plot)) {
		fprintf(stderr, "--plot: cannot create %s: %s\n", opt.plot, strerror(errno));
		return;
	}
	for (int k = 0; k < M_NR; k++) {
		snprintf(path, sizeof(path), "%s/map-%s.dat", opt.plot, mname[k]);
		if (!(f = fopen(path, "w")))
			return;
		for (unsigned si = 0; si < opt.nsizes; si++) {
			fprintf(f, "%zu", opt.sizes[si]);
			for (unsigned p = 0; p < sizeof(plotted) / sizeof(plotted[0]); p++) {
				double v = median_of(plotted[p], p ? (enum mkind)k : M_NR, opt.sizes[si]);

				fprintf(f, " %g", isfinite(v) ? v : NAN);
			}
			fprintf(f, "\n");
		}
		fclose(f);
		n = (size_t)snprintf(script, sizeof(script),
				     "set terminal pngcairo size 1000,650 noenhanced\nset output 'map-%s.png'\n"
				     "set title 'map+unmap pair, median, %s machine'\nset logscale xy\nset grid\n"
				     "set xlabel 'bytes mapped'\nset ylabel 'ns per pair'\nset key top left\nplot ",
				     mname[k], mname[k]);
		for (unsigned p = 0; p < sizeof(plotted) / sizeof(plotted[0]); p++)
			n += (size_t)snprintf(script + n, sizeof(script) - n,
					      "%s'map-%s.dat' using 1:%u with linespoints lw 2 title '%s'", p ? ", " : "",
					      mname[k], p + 2, plotted[p]);
		snprintf(script + n, sizeof(script) - n, "\n");
		if (bench_gnuplot(opt.plot, mname[k][0] == 's' ? "map-simple" : "map-demanding", script))
			fprintf(stderr, "--plot: gnuplot failed\n");
	}
	if (opt.lifecycle) {
		snprintf(path, sizeof(path), "%s/lifecycle.dat", opt.plot);
		if (!(f = fopen(path, "w")))
			return;
		for (size_t i = 0; i < ncases; i++)
			if (cases[i].kind == K_LIFECYCLE && cases[i].mk == M_SIMPLE)
				fprintf(f, "%g %g %g\n", (double)cases[i].size / (1 << 20), cases[i].s.median,
					median_of(cases[i].name, M_DEMANDING, cases[i].size));
		fclose(f);
		snprintf(script, sizeof(script),
			 "set terminal pngcairo size 900,600 noenhanced\nset output 'lifecycle.png'\n"
			 "set title 'machine create + device init + release + destroy, median'\nset logscale x 2\n"
			 "set grid\nset xlabel 'RAM (MiB)'\nset ylabel 'microseconds'\nset yrange [0:*]\n"
			 "plot 'lifecycle.dat' using 1:($2/1000) with linespoints lw 2 title 'simple', "
			 "'lifecycle.dat' using 1:($3/1000) with linespoints lw 2 title 'demanding', "
			 "100 with lines dt 2 title 'target'\n");
		if (bench_gnuplot(opt.plot, "lifecycle", script))
			fprintf(stderr, "--plot: gnuplot failed\n");
	}
	printf("\nCharts: %s/map-simple.png, %s/map-demanding.png%s\n", opt.plot, opt.plot,
	       opt.lifecycle ? ", lifecycle.png" : "");
}

/* ------------------------------------------------------------ main */

int main(int argc, char **argv)
{
	if (parse_options(argc, argv)) {
		usage(stderr);
		return 2;
	}
	bench_clock_calibrate(opt.quick ? 20 : 100);
	/* reports go to the log only; a bench run must raise none */
	for (enum mkind k = 0; k < M_NR; k++)
		env_up(&envs[k], k);
	build_cases();
	filter_cases();
	run_all();
	print_tables();
	print_targets();
	if (opt.json)
		write_json();
	if (opt.plot)
		write_plots();
	for (enum mkind k = 0; k < M_NR; k++) {
		if (dmamap_report_count(envs[k].m) || dmamap_report_count(envs[k].bm))
			fprintf(stderr, "dmamap-map-bench: the %s machines raised %lu reports\n", mname[k],
				dmamap_report_count(envs[k].m) + dmamap_report_count(envs[k].bm));
		env_down(&envs[k]);
	}
	free(cases);
	return 0;
}
