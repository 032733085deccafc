/* SPDX-License-Identifier: MIT */
/*
 * API-sequence fuzzer: the input decodes into DMA API calls across every ops
 * set of two machines, valid and not, and after every call the harness checks
 * what a driver would rely on.
 *
 * The world. Machine 0 (RAM at 0 with an 8 MiB DMA zone) has a device on the
 * ARM direct ops, one behind dmabounce (23-bit mask: buffers above the zone
 * bounce) and two sharing one IOMMU mapping; machine 1 (the default demanding
 * machine, smaller) has a direct device and one behind its own mapping. The
 * first byte picks whether the DMA-API checker is on for the run: off, the
 * ops' own records must refuse the misuse on their own.
 *
 * The calls: map/unmap/sync single, page and sg (three entries, a page
 * boundary apart), in every direction; alloc/free/mmap of coherent buffers
 * with attrs (write-combine, non-consistent, no kernel mapping) and GFP_ATOMIC;
 * dma_pool create/alloc/free/destroy; declared memory; IOMMU attach, detach,
 * mapping release (also once too often); dmabounce register/unregister; mask
 * changes; device reads at any bus address; device writes the hardware would
 * fault (beyond RAM or the IOMMU window); misuse: unmaps and frees twice,
 * with the wrong size, handle, direction or device, sizes near SIZE_MAX,
 * unknown gfp bits. At the end one machine may be destroyed before the pool
 * and mapping handles held on it are released, which must be harmless.
 *
 * The checks, after each call: every live mapping and buffer still carries
 * the data last put in it (the device reads what the CPU wrote to a
 * TO_DEVICE or coherent buffer; what the device writes into a FROM_DEVICE
 * or BIDIRECTIONAL mapping is what the CPU reads after the sync or unmap);
 * the calls meant to succeed succeed; and dmamap_machine_check() finds
 * nothing on either machine. Device writes go only where nothing the harness
 * holds could be hit: real hardware writing into live memory it was not
 * given is the driver's bug, which the checker reports but cannot undo.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "internal.h"

#define NMACH 2
#define NDEV 6
#define NBUF 8              /* harness pages (order 2) per machine for streaming mappings */
#define BUF_BYTES (4 * PAGE_SIZE)
#define MAXLIVE 24
#define WIN_BASE 0x80000000ULL
#define WIN_SIZE (16u << 20)

enum kind { K_SINGLE, K_PAGE, K_SG, K_COHERENT, K_POOL };

struct live {
	enum kind kind;
	int dev;
	enum dma_data_direction dir;
	u8 *cpu;
	dma_addr_t h;
	size_t size;
	int buf;                 /* streaming: the harness buffer, busy while mapped */
	struct scatterlist *sg;  /* the list stays where it was mapped: w->sgl of the buffer */
	int nents, mapped;
	unsigned attr;           /* coherent: 0 plain, 1 WC, 2 non-consistent, 3 no kernel mapping */
	struct dma_pool *pool;
	unsigned seed;
	bool defined;            /* seed says what the buffer holds (not so in a FROM_DEVICE mapping the device never wrote) */
};

struct world {
	struct dmamap_machine *m[NMACH];
	struct device dev[NDEV];
	int mach[NDEV];
	struct dma_iommu_mapping *map[NMACH]; /* the harness's own reference, or NULL */
	bool attached[NDEV], bounce, checker;
	struct dma_pool *pool[NDEV];
	struct page *declared[NDEV];
	u8 *buf[NMACH][NBUF];
	bool busy[NMACH][NBUF];
	struct scatterlist sgl[NMACH][NBUF][3];
	struct live live[MAXLIVE];
	unsigned nlive;
	u8 scratch[4 * BUF_BYTES], want[4 * BUF_BYTES];
};

static bool tracing;
#define TRACE(...) do { if (tracing) fprintf(stderr, "[fuzz] " __VA_ARGS__); } while (0)

static const int dev_mach[NDEV] = { 0, 0, 0, 0, 1, 1 };
enum { D_DIRECT = 0, D_BOUNCE = 1, D_IOMMU_A = 2, D_IOMMU_B = 3, D_DIRECT1 = 4, D_IOMMU1 = 5 };

static void pattern(u8 *p, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (u8)((seed * 2654435761u + i * 40503u) >> 13);
}

static bool matches(const u8 *p, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != (u8)((seed * 2654435761u + i * 40503u) >> 13))
			return false;
	return true;
}

static int mapping_of(int d)
{
	return d == D_IOMMU1 ? 1 : d == D_IOMMU_A || d == D_IOMMU_B ? 0 : -1;
}

static void check_machines(struct world *w, const char *after)
{
	for (int i = 0; i < NMACH; i++) {
		struct dmamap_check_result r;

		if (!w->m[i])
			continue;
		if (dmamap_machine_check(w->m[i], &r) != 0)
			FUZZ_CHECK(0, "machine %d inconsistent after %s: %s: %s", i, after,
				   dmamap_check_area_name(r.findings[0].area), r.findings[0].what);
	}
}

/* ------------------------------------------------------------ set up */

static void world_init(struct world *w, bool checker)
{
	struct dmamap_machine_config cfg;
	static const char *const names[NDEV] = { "direct", "bounce", "iommu-a", "iommu-b", "direct1", "iommu1" };

	memset(w, 0, sizeof(*w));
	dmamap_machine_config_init(&cfg);
	cfg.ram_base = 0;
	cfg.ram_size = 32u << 20;
	cfg.dma_zone_limit = 8u << 20;
	cfg.consistent_size = 4u << 20;
	w->m[0] = dmamap_machine_create(&cfg);
	dmamap_machine_config_init(&cfg);
	cfg.ram_size = 16u << 20;
	cfg.consistent_size = 2u << 20;
	w->m[1] = dmamap_machine_create(&cfg);
	FUZZ_CHECK(w->m[0] && w->m[1], "machines");
	w->checker = checker;
	for (int i = 0; i < NMACH; i++) {
		dmamap_set_log_handler(w->m[i], getenv("DMAMAP_FUZZ_VERBOSE") ? NULL : fuzz_drop_report, NULL);
		FUZZ_CHECK(dmamap_checker_enable(w->m[i], checker) == 0, "checker");
		for (int b = 0; b < NBUF; b++) {
			struct page *p = dmamap_alloc_pages(w->m[i], GFP_KERNEL, 2);

			FUZZ_CHECK(p, "harness pages");
			w->buf[i][b] = page_address(p);
		}
	}
	for (int d = 0; d < NDEV; d++) {
		w->mach[d] = dev_mach[d];
		FUZZ_CHECK(dmamap_device_init(&w->dev[d], w->m[dev_mach[d]], names[d]) == 0, "device");
	}
	FUZZ_CHECK(dma_set_mask_and_coherent(&w->dev[D_BOUNCE], DMA_BIT_MASK(23)) == 0, "mask");
	FUZZ_CHECK(dmabounce_register_dev(&w->dev[D_BOUNCE], 512, 4096, NULL) == 0, "dmabounce");
	w->bounce = true;
	for (int i = 0; i < NMACH; i++) {
		w->map[i] = arm_iommu_create_mapping(w->m[i], WIN_BASE, WIN_SIZE, 0);
		FUZZ_CHECK(!IS_ERR_OR_NULL(w->map[i]), "mapping");
	}
}

/* ------------------------------------------------------ live objects */

static struct live *add_live(struct world *w)
{
	return w->nlive < MAXLIVE ? memset(&w->live[w->nlive++], 0, sizeof(struct live)) : NULL;
}

static void drop_live(struct world *w, struct live *l)
{
	if (l->kind <= K_SG)
		w->busy[w->mach[l->dev]][l->buf] = false;
	*l = w->live[--w->nlive];
}

static bool can_map(struct world *w, int d)
{
	if (d == D_BOUNCE)
		return w->bounce; /* unregistered, its buffers above the mask cannot be mapped */
	return mapping_of(d) < 0 || w->attached[d];
}

/* The bytes of a buffer the harness checks: a coherent one may be large. */
static size_t checked(const struct live *l)
{
	return l->size < 4 * BUF_BYTES ? l->size : 4 * BUF_BYTES;
}

/* The device sees what the CPU left in @l (TO_DEVICE, BIDIRECTIONAL, coherent, pool). */
static void device_sees(struct world *w, struct live *l)
{
	struct device *dev = &w->dev[l->dev];

	if (l->kind == K_SG) {
		size_t done = 0;
		struct scatterlist *s;
		int i;

		for_each_sg(l->sg, s, l->mapped, i) {
			FUZZ_CHECK(done + sg_dma_len(s) <= l->size, "sg segments longer than the list");
			FUZZ_CHECK(!dmamap_dev_read(dev, sg_dma_address(s), w->scratch + done, sg_dma_len(s)),
				   "device read of an sg segment");
			done += sg_dma_len(s);
		}
		FUZZ_CHECK(done == l->size, "sg segments cover %zu of %zu bytes", done, l->size);
		FUZZ_CHECK(matches(w->scratch, l->size, l->seed), "the device reads other bytes than the CPU wrote (%s, sg)",
			   dev_name(dev));
	} else {
		FUZZ_CHECK(!dmamap_dev_read(dev, l->h, w->scratch, checked(l)), "device read of a live buffer");
		FUZZ_CHECK(matches(w->scratch, checked(l), l->seed),
			   "the device reads other bytes than the CPU wrote (%s, kind %d)", dev_name(dev), l->kind);
	}
}

/* The bytes of @l's CPU side, gathered. */
static const u8 *cpu_side(struct world *w, struct live *l)
{
	if (l->kind != K_SG)
		return l->cpu;
	for (size_t i = 0, done = 0; i < 3; done += l->sg[i].length, i++)
		memcpy(w->scratch + done, sg_virt(&l->sg[i]), l->sg[i].length);
	return w->scratch;
}

/* ---------------------------------------------------------- the calls */

static size_t odd_size(struct fuzz_input *in)
{
	switch (fuzz_u8(in) % 4) {
	case 0: return SIZE_MAX - fuzz_u16(in);
	case 1: return (size_t)1 << (30 + fuzz_u8(in) % 20);
	case 2: return 0;
	default: return 1 + fuzz_u32(in) % (64u << 20);
	}
}

/*
 * Whether @d's IOMMU window has an aligned free run for @bytes: a probe of its
 * IOVA allocator, given back at once (the allocator is exact: nothing moves).
 */
static bool window_has_room(struct device *d, size_t bytes)
{
	struct dmamap_iova *iova = d->archdata.mapping->iova;
	size_t need = DM_ALIGN_UP(bytes, PAGE_SIZE);
	dma_addr_t p = dmamap_iova_alloc(iova, need);

	if (p == DMA_MAPPING_ERROR)
		return false;
	dmamap_iova_free(iova, p, need);
	return true;
}

static void do_map(struct world *w, struct fuzz_input *in, int d)
{
	int mi = w->mach[d], b = fuzz_u8(in) % NBUF;
	struct device *dev = &w->dev[d];
	struct live *l;
	size_t off;

	if (w->busy[mi][b] || !can_map(w, d) || !(l = add_live(w)))
		return;
	l->kind = (enum kind)(fuzz_u8(in) % 3);
	l->dev = d;
	l->dir = (enum dma_data_direction)(fuzz_u8(in) % 3); /* BIDIRECTIONAL, TO_DEVICE, FROM_DEVICE */
	l->buf = b;
	l->seed = fuzz_u16(in);
	off = fuzz_u16(in) % PAGE_SIZE;
	l->size = 1 + fuzz_u16(in) % (BUF_BYTES - PAGE_SIZE);
	l->cpu = w->buf[mi][b] + off;
	pattern(l->cpu, l->size, l->seed);
	if (l->kind == K_SINGLE) {
		l->h = dma_map_single(dev, l->cpu, l->size, l->dir);
	} else if (l->kind == K_PAGE) {
		l->h = dma_map_page(dev, virt_to_page(w->buf[mi][b]), off, l->size, l->dir);
	} else {
		size_t a = PAGE_SIZE - off, c = 1 + fuzz_u16(in) % PAGE_SIZE;

		l->sg = w->sgl[mi][b];
		sg_init_table(l->sg, 3);
		sg_set_buf(&l->sg[0], l->cpu, (unsigned)a);
		sg_set_buf(&l->sg[1], w->buf[mi][b] + PAGE_SIZE, PAGE_SIZE);
		sg_set_buf(&l->sg[2], w->buf[mi][b] + 2 * PAGE_SIZE, (unsigned)c);
		l->size = a + PAGE_SIZE + c;
		pattern(w->want, l->size, l->seed);
		sg_copy_from_buffer(l->sg, 3, w->want, l->size);
		l->nents = 3;
		l->mapped = dma_map_sg(dev, l->sg, 3, l->dir);
	}
	/* a large coherent buffer may leave the IOMMU window too little room: then a map must fail */
	if ((l->kind == K_SG ? l->mapped <= 0 : dma_mapping_error(dev, l->h)) && mapping_of(d) >= 0 &&
	    !window_has_room(dev, off + l->size)) {
		TRACE("map of %#zx bytes on %s refused: the window is full\n", l->size, dev_name(dev));
		drop_live(w, l);
		return;
	}
	if (l->kind == K_SG)
		FUZZ_CHECK(l->mapped > 0, "dma_map_sg on %s failed", dev_name(dev));
	else
		FUZZ_CHECK(!dma_mapping_error(dev, l->h), "map of %zu bytes on %s failed", l->size, dev_name(dev));
	TRACE("map kind %d dir %d on %s: cpu %p+%#zx -> %#llx\n", l->kind, l->dir, dev_name(dev), (void *)l->cpu, l->size,
	      (unsigned long long)l->h);
	w->busy[mi][b] = true;
	l->defined = l->dir != DMA_FROM_DEVICE;
	if (l->defined)
		device_sees(w, l);
}

/* The device writes a fresh pattern into a mapping it may write, the CPU takes it back. */
static void device_writes(struct world *w, struct fuzz_input *in, struct live *l)
{
	struct device *dev = &w->dev[l->dev];
	unsigned seed = fuzz_u16(in);

	if (l->kind == K_POOL || l->kind == K_COHERENT) {
		if (l->kind == K_COHERENT && l->attr >= 2)
			return; /* non-consistent: the driver's syncs; no kernel mapping: nothing to read */
		pattern(w->want, checked(l), seed);
		FUZZ_CHECK(!dmamap_dev_write(dev, l->h, w->want, checked(l)), "device write to a buffer");
		FUZZ_CHECK(matches(l->cpu, checked(l), seed), "the CPU reads other bytes than the device wrote (coherent)");
		l->seed = seed;
		return;
	}
	if (l->dir == DMA_TO_DEVICE)
		return;
	pattern(w->want, l->size, seed);
	if (l->kind == K_SG) {
		size_t done = 0;
		struct scatterlist *s;
		int i;

		for_each_sg(l->sg, s, l->mapped, i) {
			FUZZ_CHECK(!dmamap_dev_write(dev, sg_dma_address(s), w->want + done, sg_dma_len(s)), "sg write");
			done += sg_dma_len(s);
		}
		dma_sync_sg_for_cpu(dev, l->sg, l->nents, l->dir);
	} else {
		FUZZ_CHECK(!dmamap_dev_write(dev, l->h, w->want, l->size), "device write to a mapping");
		dma_sync_single_for_cpu(dev, l->h, l->size, l->dir);
	}
	FUZZ_CHECK(matches(cpu_side(w, l), l->size, seed), "after sync_for_cpu the CPU reads other bytes than the device wrote (%s, kind %d, dir %d)",
		   dev_name(dev), l->kind, l->dir);
	l->seed = seed;
	l->defined = true;
	if (l->kind == K_SG)
		dma_sync_sg_for_device(dev, l->sg, l->nents, l->dir);
	else
		dma_sync_single_for_device(dev, l->h, l->size, l->dir);
	if (l->dir == DMA_BIDIRECTIONAL)
		device_sees(w, l);
}

static void release_live(struct world *w, struct live *l)
{
	struct device *dev = &w->dev[l->dev];

	TRACE("release kind %d on %s: %#llx+%#zx\n", l->kind, dev_name(dev), (unsigned long long)l->h, l->size);
	switch (l->kind) {
	case K_SINGLE:
		dma_unmap_single(dev, l->h, l->size, l->dir);
		break;
	case K_PAGE:
		dma_unmap_page(dev, l->h, l->size, l->dir);
		break;
	case K_SG:
		dma_unmap_sg(dev, l->sg, l->nents, l->dir);
		break;
	case K_COHERENT: {
		DEFINE_DMA_ATTRS(attrs);

		if (l->attr == 1)
			dma_set_attr(DMA_ATTR_WRITE_COMBINE, &attrs);
		else if (l->attr == 2)
			dma_set_attr(DMA_ATTR_NON_CONSISTENT, &attrs);
		else if (l->attr == 3)
			dma_set_attr(DMA_ATTR_NO_KERNEL_MAPPING, &attrs);
		dma_free_attrs(dev, l->size, l->cpu, l->h, &attrs);
		break;
	}
	case K_POOL:
		dma_pool_free(l->pool, l->cpu, l->h);
		break;
	}
	if (l->kind <= K_SG && l->dir != DMA_TO_DEVICE && l->defined)
		FUZZ_CHECK(matches(cpu_side(w, l), l->size, l->seed), "after unmap the CPU reads other bytes than were in the mapping (%s, kind %d, dir %d)",
			   dev_name(dev), l->kind, l->dir);
}

/*
 * Whether a live mapping of a device sharing @d's bus addresses (the same
 * IOMMU mapping, or the same machine's direct bus) has its first page (for
 * an sg list, one of its segments') at @addr's page: an unmap naming it
 * could legitimately release it.
 */
static bool bus_taken(struct world *w, int d, dma_addr_t addr)
{
	for (unsigned i = 0; i < w->nlive; i++) {
		const struct live *o = &w->live[i];
		struct scatterlist *s;
		int j;

		if (w->mach[o->dev] != w->mach[d] || (mapping_of(o->dev) >= 0) != (mapping_of(d) >= 0))
			continue;
		if (o->kind != K_SG) {
			if (o->h >> PAGE_SHIFT == addr >> PAGE_SHIFT)
				return true;
			continue;
		}
		for_each_sg(o->sg, s, o->mapped, j)
			if (sg_dma_address(s) >> PAGE_SHIFT == addr >> PAGE_SHIFT)
				return true;
	}
	return false;
}

/* Whether [h, h + a) and [h, h + b) span the same pages: ops that keep page-granular records cannot tell them apart. */
static bool same_pages(dma_addr_t h, size_t a, size_t b)
{
	u64 off = h & (PAGE_SIZE - 1);

	return a && b && a <= SIZE_MAX - off && b <= SIZE_MAX - off &&
	       (off + a + PAGE_SIZE - 1) >> PAGE_SHIFT == (off + b + PAGE_SIZE - 1) >> PAGE_SHIFT;
}

/* A misuse of a live object: refused, it stays live and intact. */
static void misuse(struct world *w, struct fuzz_input *in, struct live *l)
{
	struct device *dev = &w->dev[l->dev];
	unsigned how = fuzz_u8(in) % 5;
	u64 odd;

	TRACE("misuse %u of kind %d on %s: %#llx+%#zx\n", how, l->kind, dev_name(dev), (unsigned long long)l->h, l->size);
	if (l->kind <= K_SG && !w->checker && mapping_of(l->dev) < 0 && l->dev != D_BOUNCE)
		return; /* the direct ops keep no records: only the checker can refuse these */
	if (l->kind == K_POOL) {
		dma_pool_free(l->pool, l->cpu, l->h + PAGE_SIZE);
		return;
	}
	if (l->kind == K_COHERENT) {
		int other = (l->dev + 1 + fuzz_u8(in) % (NDEV - 1)) % NDEV;

		if (how == 0)
			dma_free_coherent(dev, l->size + PAGE_SIZE, l->cpu, l->h);
		else if (how == 1)
			dma_free_coherent(dev, l->size, l->cpu, l->h + PAGE_SIZE);
		else if (how == 2 && w->mach[other] == w->mach[l->dev])
			dma_free_coherent(&w->dev[other], l->size, l->cpu, l->h);
		else if (how == 3)
			dma_unmap_single(dev, l->h, l->size, DMA_BIDIRECTIONAL);
		else if (!same_pages(l->h, (size_t)(odd = odd_size(in)), l->size)) /* as many pages would free it */
			dma_free_coherent(dev, (size_t)odd, l->cpu, l->h);
		return;
	}
	if (l->kind == K_SG)
		return; /* an sg list has no single handle to misname */
	if (how == 0)
		dma_unmap_single(dev, l->h, l->size + PAGE_SIZE * (1 + fuzz_u8(in) % 4), l->dir);
	else if (how == 1)
		dma_unmap_single(dev, l->h, l->size, (enum dma_data_direction)((l->dir + 1) % 3));
	else if (how == 2)
		dma_sync_single_for_cpu(dev, l->h, (size_t)(0 - l->h) + fuzz_u8(in), l->dir); /* the sum wraps */
	else if (how == 3 && !bus_taken(w, l->dev, odd = l->h + PAGE_SIZE * (1 + fuzz_u8(in) % 4)))
		dma_unmap_single(dev, odd, l->size, l->dir);
	else if (how == 4 && !same_pages(l->h, (size_t)(odd = odd_size(in)), l->size))
		dma_unmap_single(dev, l->h, (size_t)odd, l->dir);
}

static void do_coherent(struct world *w, struct fuzz_input *in, int d)
{
	struct device *dev = &w->dev[d];
	DEFINE_DMA_ATTRS(attrs);
	unsigned attr = fuzz_u8(in) % 6, g = fuzz_u8(in) % 8;
	gfp_t gfp = g == 0 ? GFP_ATOMIC : g == 1 ? (GFP_KERNEL | (1u << (20 + fuzz_u8(in) % 8))) : GFP_KERNEL;
	size_t size = fuzz_u8(in) % 16 == 0 ? odd_size(in) : 1 + fuzz_u16(in) % (6 * PAGE_SIZE);
	struct live *l;
	dma_addr_t h = 0;
	void *cpu;

	if (!can_map(w, d) || w->nlive >= MAXLIVE)
		return;
	if (attr > 3)
		attr = 0;
	if (attr == 1)
		dma_set_attr(DMA_ATTR_WRITE_COMBINE, &attrs);
	else if (attr == 2)
		dma_set_attr(DMA_ATTR_NON_CONSISTENT, &attrs);
	else if (attr == 3)
		dma_set_attr(DMA_ATTR_NO_KERNEL_MAPPING, &attrs);
	cpu = dma_alloc_attrs(dev, size, &h, gfp, &attrs);
	if (g == 1 || size > (64u << 20))
		FUZZ_CHECK(!cpu, "dma_alloc_attrs of %#zx bytes, gfp %#x accepted", size, gfp);
	if (!cpu)
		return;
	TRACE("coherent attr %u on %s: %#zx bytes -> %p %#llx\n", attr, dev_name(dev), size, cpu, (unsigned long long)h);
	l = add_live(w);
	l->kind = K_COHERENT;
	l->dev = d;
	l->cpu = cpu;
	l->h = h;
	l->size = size;
	l->attr = attr;
	l->seed = fuzz_u16(in);
	if (attr == 0) {
		pattern(l->cpu, checked(l), l->seed);
		device_sees(w, l);
	} else if (attr == 1) {
		device_writes(w, in, l);
	}
}

static void do_pool(struct world *w, struct fuzz_input *in, int d)
{
	struct live *l;
	dma_addr_t h;
	void *blk;

	if (!can_map(w, d))
		return;
	if (!w->pool[d]) {
		w->pool[d] = dma_pool_create("fuzz", &w->dev[d], 8 + fuzz_u8(in) % 200, 8u << (fuzz_u8(in) % 4), 0);
		return;
	}
	if (w->nlive >= MAXLIVE || !(blk = dma_pool_alloc(w->pool[d], GFP_KERNEL, &h)))
		return;
	l = add_live(w);
	l->kind = K_POOL;
	l->dev = d;
	l->pool = w->pool[d];
	l->cpu = blk;
	l->h = h;
	l->size = 8;
	l->seed = fuzz_u16(in);
	pattern(blk, l->size, l->seed);
	device_sees(w, l);
}

static bool dev_busy(struct world *w, int d)
{
	for (unsigned i = 0; i < w->nlive; i++)
		if (w->live[i].dev == d)
			return true;
	return w->pool[d] != NULL;
}

static void do_config(struct world *w, struct fuzz_input *in)
{
	int d = fuzz_u8(in) % NDEV, mi = w->mach[d], mp = mapping_of(d);

	switch (fuzz_u8(in) % 6) {
	case 0: /* attach or detach */
		if (mp < 0 || dev_busy(w, d))
			return;
		if (w->attached[d]) {
			arm_iommu_detach_device(&w->dev[d]);
			w->attached[d] = false;
		} else if (w->map[mp]) {
			FUZZ_CHECK(arm_iommu_attach_device(&w->dev[d], w->map[mp]) == 0, "attach");
			w->attached[d] = true;
		}
		return;
	case 1: /* release the harness's reference, or one too many */
		if (mp < 0)
			return;
		if (w->map[mp]) {
			arm_iommu_release_mapping(w->map[mp]);
			w->map[mp] = NULL;
		} else if (w->attached[d]) {
			arm_iommu_release_mapping(w->dev[d].archdata.mapping); /* refused: attached */
		} else if (!w->attached[D_IOMMU_A] && !w->attached[D_IOMMU_B] && !w->attached[D_IOMMU1]) {
			w->map[mp] = arm_iommu_create_mapping(w->m[mi], WIN_BASE, WIN_SIZE, fuzz_u8(in) % 2);
			FUZZ_CHECK(!IS_ERR_OR_NULL(w->map[mp]), "mapping");
		}
		return;
	case 2: /* dmabounce */
		if (d != D_BOUNCE || dev_busy(w, d))
			return;
		if (w->bounce)
			FUZZ_CHECK(dmabounce_unregister_dev(&w->dev[d]) == 0, "dmabounce unregister");
		else
			FUZZ_CHECK(dmabounce_register_dev(&w->dev[d], 512, 4096, NULL) == 0, "dmabounce register");
		w->bounce = !w->bounce;
		return;
	case 3: /* masks: anything, put back */
		if (dev_busy(w, d))
			return;
		{
			u64 mask = fuzz_u64(in), old = dma_get_mask(&w->dev[d]);

			int r = dma_set_mask(&w->dev[d], mask);

			FUZZ_CHECK(r == 0 || r == -EIO, "dma_set_mask(%#llx) = %d", (unsigned long long)mask, r);
			unsigned seg = fuzz_u32(in), old_seg = dma_get_max_seg_size(&w->dev[d]);

			r = dma_set_max_seg_size(&w->dev[d], seg);
			FUZZ_CHECK(r == (seg ? 0 : -EINVAL), "dma_set_max_seg_size(%u) = %d", seg, r);
			FUZZ_CHECK(dma_set_max_seg_size(&w->dev[d], old_seg) == 0, "max_seg_size back");
			FUZZ_CHECK(dma_set_mask_and_coherent(&w->dev[d], old) == 0, "mask back");
		}
		return;
	case 4: /* declared memory on a direct device */
		if ((d != D_DIRECT && d != D_DIRECT1) || dev_busy(w, d))
			return;
		if (w->declared[d]) {
			dma_release_declared_memory(&w->dev[d]);
			dmamap_free_pages(w->declared[d], 4);
			w->declared[d] = NULL;
		} else if ((w->declared[d] = dmamap_alloc_pages(w->m[mi], GFP_KERNEL, 4))) {
			phys_addr_t p = page_to_phys(w->declared[d]);

			FUZZ_CHECK(dma_declare_coherent_memory(&w->dev[d], p, p, 16 * PAGE_SIZE) == 0, "declare");
		}
		return;
	case 5: /* destroy a pool with nothing live in it */
		if (!w->pool[d])
			return;
		for (unsigned i = 0; i < w->nlive; i++)
			if (w->live[i].kind == K_POOL && w->live[i].pool == w->pool[d])
				return;
		dma_pool_destroy(w->pool[d]);
		w->pool[d] = NULL;
		return;
	default:
		return;
	}
}

/* The device reads anywhere; it writes only where the hardware faults. */
static void do_stray(struct world *w, struct fuzz_input *in)
{
	int d = fuzz_u8(in) % NDEV;
	struct device *dev = &w->dev[d];
	size_t len = 1 + fuzz_u16(in) % (2 * PAGE_SIZE);
	dma_addr_t a = (dma_addr_t)fuzz_u64(in);
	struct dmamap_machine_config cfg;

	if (dmamap_dev_read(dev, a, w->scratch, len) == -EINVAL)
		FUZZ_CHECK(0, "a device read refused as invalid");
	dmamap_machine_get_config(w->m[w->mach[d]], &cfg);
	if (mapping_of(d) >= 0 && w->attached[d]) {
		a = WIN_BASE + WIN_SIZE + fuzz_u32(in); /* past the window */
	} else {
		if (a >= cfg.ram_base && a - cfg.ram_base < cfg.ram_size + len)
			a = cfg.ram_base + cfg.ram_size + (fuzz_u32(in) & ~(u64)0xff); /* past RAM */
		if (a + len < a)
			return;
	}
	FUZZ_CHECK(dmamap_dev_write(dev, a, w->want, len) == -EFAULT, "a device write to %#llx went through",
		   (unsigned long long)a);
}

static void do_mmap(struct world *w, struct fuzz_input *in, struct live *l)
{
	struct vm_area_struct *vma;
	size_t size = (1 + fuzz_u8(in) % 4) * PAGE_SIZE;
	int r;

	if (l->kind != K_COHERENT || l->attr >= 2)
		return;
	vma = dmamap_vma_create(w->m[w->mach[l->dev]], size);
	if (!vma)
		return;
	r = dma_mmap_coherent(&w->dev[l->dev], vma, l->cpu, l->h, l->size);
	FUZZ_CHECK(r == 0 || size > DM_ALIGN_UP(l->size, PAGE_SIZE), "mmap of %zu bytes of a %zu-byte buffer: %d",
		   size, l->size, r);
	dmamap_vma_destroy(vma);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct fuzz_input in = { data, len };
	static struct world world;
	struct world *w = &world;
	bool orphan;

	fuzz_quiet();
	tracing = getenv("DMAMAP_FUZZ_TRACE") != NULL;
	world_init(w, !(fuzz_u8(&in) & 1));
	orphan = fuzz_u8(&in) % 4 == 0;
	w->attached[D_IOMMU_A] = arm_iommu_attach_device(&w->dev[D_IOMMU_A], w->map[0]) == 0;
	w->attached[D_IOMMU1] = arm_iommu_attach_device(&w->dev[D_IOMMU1], w->map[1]) == 0;
	check_machines(w, "setup");

	for (unsigned step = 0; step < 200 && in.len; step++) {
		unsigned op = fuzz_u8(&in) % 16;
		int d = fuzz_u8(&in) % NDEV;
		struct live *l = w->nlive ? &w->live[fuzz_u8(&in) % w->nlive] : NULL;

		TRACE("step %u: op %u dev %d\n", step, op, d);
		switch (op) {
		case 0: case 1: case 2:
			do_map(w, &in, d);
			break;
		case 3: case 4:
			do_coherent(w, &in, d);
			break;
		case 5: case 6:
			do_pool(w, &in, d);
			break;
		case 7: case 8:
			if (l) {
				release_live(w, l);
				if (fuzz_u8(&in) % 4 == 0) /* and again: refused */
					release_live(w, l);
				drop_live(w, l);
			}
			break;
		case 9:
			if (l)
				device_writes(w, &in, l);
			break;
		case 10:
			if (l)
				misuse(w, &in, l);
			break;
		case 11:
			do_config(w, &in);
			break;
		case 12:
			do_stray(w, &in);
			break;
		case 13:
			if (l)
				do_mmap(w, &in, l);
			break;
		default: /* a live object is still what it was */
			if (l && (l->kind >= K_COHERENT ? l->attr == 0 || l->kind == K_POOL : l->dir != DMA_FROM_DEVICE))
				device_sees(w, l);
			break;
		}
		check_machines(w, "a call");
	}

	while (w->nlive)
		release_live(w, &w->live[0]), drop_live(w, &w->live[0]);
	check_machines(w, "releasing everything");
	if (w->bounce)
		FUZZ_CHECK(dmabounce_unregister_dev(&w->dev[D_BOUNCE]) == 0, "dmabounce unregister");
	for (int d = 0; d < NDEV; d++) {
		if (w->pool[d] && !(orphan && w->mach[d] == 1)) {
			dma_pool_destroy(w->pool[d]);
			w->pool[d] = NULL;
		}
		if (w->declared[d]) {
			dma_release_declared_memory(&w->dev[d]);
			dmamap_free_pages(w->declared[d], 4);
		}
		if (w->attached[d])
			arm_iommu_detach_device(&w->dev[d]);
		if (!(orphan && w->mach[d] == 1))
			dmamap_device_release(&w->dev[d]);
	}
	for (int i = 0; i < NMACH; i++) {
		for (int b = 0; b < NBUF; b++)
			dmamap_free_pages(virt_to_page(w->buf[i][b]), 2);
		if (w->map[i] && !(orphan && i == 1))
			arm_iommu_release_mapping(w->map[i]);
	}
	check_machines(w, "teardown");
	dmamap_machine_destroy(w->m[0]);
	dmamap_machine_destroy(w->m[1]);
	if (orphan) { /* handles that outlived machine 1: refused, harmless */
		for (int d = 0; d < NDEV; d++)
			if (w->pool[d])
				dma_pool_destroy(w->pool[d]);
		if (w->map[1])
			arm_iommu_release_mapping(w->map[1]);
		for (int d = 0; d < NDEV; d++)
			if (w->mach[d] == 1)
				dmamap_device_release(&w->dev[d]);
	}
	return 0;
}
