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
 * unknown gfp bits. The Linux 6.x calls too: dma_alloc_pages() and
 * dma_free_pages() (freed with the allocation's direction or another, by
 * dma_free_noncoherent(), with another size, handle or pages never
 * allocated), dma_free_attrs() and dma_free_noncoherent() of a coherent
 * buffer with other attrs than the allocation's, dma_mmap_attrs() with the
 * other protection than the buffer's, lists of fresh pages from
 * sgl_alloc_order()/sgl_alloc() mapped and freed by sgl_free*(), append
 * tables grown a batch at a time by sg_alloc_append_table_from_pages() from
 * a harness buffer's pages, mapped and freed by sg_free_append_table(), and
 * the refusals of each; IOMMU mappings, domains, pools and vmas freed twice.
 * At the end one machine may be destroyed before the pool and mapping
 * handles held on it are released, which must be harmless.
 *
 * The checks, after each call: every live mapping and buffer still carries
 * the data last put in it (the device reads what the CPU wrote to a
 * TO_DEVICE or coherent buffer; what the device writes into a FROM_DEVICE
 * or BIDIRECTIONAL mapping is what the CPU reads after the sync or unmap);
 * the calls meant to succeed succeed; and dmamap_machine_check() finds
 * nothing on either machine. The Linux 6.x calls above are held to their
 * reports as well: a valid use raises none, a misuse exactly the report
 * (kind) it earns, and at teardown nothing is reported leaked (but on a
 * machine destroyed with handles held). Device writes go only where nothing the harness
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

enum kind { K_SINGLE, K_PAGE, K_SG, K_COHERENT, K_POOL, K_PAGES };

/* Whose list a K_SG mapping is: the harness's three entries, sgl_alloc_order()'s, an append table's. */
enum list { L_HARNESS, L_SGL, L_APPEND };

struct live {
	enum kind kind;
	int dev;
	enum dma_data_direction dir;
	u8 *cpu;
	dma_addr_t h;
	size_t size;
	int buf;                 /* streaming: the harness buffer, busy while mapped (-1: none) */
	struct scatterlist *sg;  /* the list stays where it was mapped: w->sgl of the buffer, or its own */
	int nents, mapped;
	enum list list;          /* K_SG: whose list */
	unsigned order;          /* L_SGL: the order it was allocated with */
	struct sg_append_table app; /* L_APPEND: the table */
	struct page *page;       /* K_PAGES: what dma_alloc_pages() returned */
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

/* The reports the library raised during the input, every machine's and the process-wide ones. */
struct heard {
	unsigned long total, by_kind[DMAMAP_REPORT_KIND_NR];
	unsigned long leaks;     /* DMAMAP_REPORT_LEAK but on the machine destroyed with handles held */
	char last[200];          /* the last report's kind and message */
	char last_leak[200];     /* the last leak's counted */
};

static struct heard heard;
static struct dmamap_machine *orphan_machine;

static void count_report(const struct dmamap_log_record *rec, void *ctx)
{
	(void)ctx;
	if (rec->kind == DMAMAP_REPORT_NONE)
		return;
	heard.total++;
	if ((unsigned)rec->kind < DMAMAP_REPORT_KIND_NR)
		heard.by_kind[rec->kind]++;
	snprintf(heard.last, sizeof(heard.last), "%s: %s", dmamap_report_kind_name(rec->kind), rec->message);
	if (rec->kind == DMAMAP_REPORT_LEAK && (!orphan_machine || rec->machine != orphan_machine)) {
		heard.leaks++;
		memcpy(heard.last_leak, heard.last, sizeof(heard.last));
	}
	if (getenv("DMAMAP_FUZZ_VERBOSE"))
		fprintf(stderr, "[report] %s\n", heard.last);
}

/* A valid call: nothing reported since @was. */
static void expect_quiet(const struct heard *was, const char *what)
{
	FUZZ_CHECK(heard.total == was->total, "%s raised %lu report(s), the last %s", what, heard.total - was->total,
		   heard.last);
}

/* A misuse: exactly one report since @was, of @kind. */
static void expect_one(const struct heard *was, enum dmamap_report_kind kind, const char *what)
{
	FUZZ_CHECK(heard.total == was->total + 1 && heard.by_kind[kind] == was->by_kind[kind] + 1,
		   "%s raised %lu report(s), not one %s; the last %s", what, heard.total - was->total,
		   dmamap_report_kind_name(kind), heard.last);
}

/* A misuse some layer refuses (the checker, or the ops' own records with it off): reported. */
static void expect_refused(const struct heard *was, const char *what)
{
	FUZZ_CHECK(heard.total > was->total, "%s was not reported", what);
}

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
		dmamap_set_log_handler(w->m[i], count_report, NULL);
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
	if (l->kind <= K_SG && l->buf >= 0)
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
	struct scatterlist *s;
	size_t done = 0;
	int i;

	if (l->kind != K_SG)
		return l->cpu;
	for_each_sg(l->sg, s, l->nents, i) {
		memcpy(w->scratch + done, sg_virt(s), s->length);
		done += s->length;
	}
	FUZZ_CHECK(done == l->size, "the list holds %zu bytes, not %zu", done, l->size);
	return w->scratch;
}

/* Whether what the device reads of @l is known: the CPU's bytes, handed over. */
static bool device_view_known(const struct live *l)
{
	if (l->kind == K_COHERENT)
		return l->attr == 0;
	if (l->kind == K_POOL)
		return true;
	return l->dir != DMA_FROM_DEVICE && l->defined;
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

static void set_buffer_attr(struct dma_attrs *attrs, unsigned attr)
{
	if (attr == 1)
		dma_set_attr(DMA_ATTR_WRITE_COMBINE, attrs);
	else if (attr == 2)
		dma_set_attr(DMA_ATTR_NON_CONSISTENT, attrs);
	else if (attr == 3)
		dma_set_attr(DMA_ATTR_NO_KERNEL_MAPPING, attrs);
}

/* Give back the pages and arrays of a list of its own, after its unmap. */
static void free_own_list(struct fuzz_input *in, struct live *l)
{
	struct scatterlist *s;
	int i, keep;

	if (l->list == L_APPEND) {
		sg_free_append_table(&l->app);
		FUZZ_CHECK(!l->app.sgt.sgl && !l->app.prv && !l->app.total_nents, "sg_free_append_table left the table set");
		return;
	}
	switch (fuzz_u8(in) % 3) {
	case 0:
		if (l->order == 0)
			sgl_free(l->sg);
		else
			sgl_free_order(l->sg, (int)l->order);
		return;
	case 1: /* the last entries' pages given back by hand, the first ones by sgl_free_n_order() */
		keep = fuzz_u8(in) % (l->nents + 1);
		for_each_sg(l->sg, s, l->nents, i)
			if (i >= keep)
				dmamap_free_pages(sg_page(s), l->order);
		sgl_free_n_order(l->sg, keep, (int)l->order);
		return;
	default:
		sgl_free_n_order(l->sg, l->nents + fuzz_u8(in) % 4, (int)l->order); /* the walk stops at the end */
		return;
	}
}

/*
 * Release @l as its driver would; the first time (@again false) with
 * variants a driver may get wrong but the library copes with, each held to
 * its reports. @again: the release once more, refused.
 */
static void release_live(struct world *w, struct fuzz_input *in, struct live *l, bool again)
{
	struct device *dev = &w->dev[l->dev];
	struct heard was = heard;
	unsigned how = again ? 0 : fuzz_u8(in) % 8;

	TRACE("release%s kind %d on %s: %#llx+%#zx (%u)\n", again ? " again" : "", l->kind, dev_name(dev),
	      (unsigned long long)l->h, l->size, how);
	switch (l->kind) {
	case K_SINGLE:
		dma_unmap_single(dev, l->h, l->size, l->dir);
		break;
	case K_PAGE:
		dma_unmap_page(dev, l->h, l->size, l->dir);
		break;
	case K_SG:
		if (again && l->list != L_HARNESS)
			return; /* its list is gone */
		dma_unmap_sg(dev, l->sg, l->nents, l->dir);
		break;
	case K_COHERENT: {
		DEFINE_DMA_ATTRS(attrs);
		unsigned other = (l->attr + 1 + fuzz_u8(in) % 3) % 4;

		if (how == 1 && w->checker) { /* attrs that are not the allocation's: reported, freed as allocated */
			set_buffer_attr(&attrs, other);
			dma_free_attrs(dev, l->size, l->cpu, l->h, &attrs);
			expect_one(&was, DMAMAP_REPORT_ATTR_MISMATCH, "dma_free_attrs with other attrs");
		} else if (how == 2 && l->attr == 2) { /* a non-consistent buffer is what dma_free_noncoherent() frees */
			dmamap_linux_free_noncoherent(dev, l->size, l->cpu, l->h, (enum dma_data_direction)(fuzz_u8(in) % 3),
						      __FILE__, __LINE__);
			expect_quiet(&was, "dma_free_noncoherent of a non-consistent buffer");
		} else if (how == 2 && w->checker) {
			dmamap_linux_free_noncoherent(dev, l->size, l->cpu, l->h, DMA_BIDIRECTIONAL, __FILE__, __LINE__);
			expect_one(&was, DMAMAP_REPORT_ATTR_MISMATCH, "dma_free_noncoherent of a coherent buffer");
		} else {
			set_buffer_attr(&attrs, l->attr);
			dma_free_attrs(dev, l->size, l->cpu, l->h, &attrs);
			if (again)
				expect_refused(&was, "dma_free_attrs of a freed buffer");
			else
				expect_quiet(&was, "dma_free_attrs");
		}
		break;
	}
	case K_POOL:
		dma_pool_free(l->pool, l->cpu, l->h);
		break;
	case K_PAGES:
		if (!again) {
			dma_sync_single_for_cpu(dev, l->h, l->size, l->dir);
			if (l->defined)
				FUZZ_CHECK(matches(l->cpu, l->size, l->seed),
					   "after sync_for_cpu the CPU reads other bytes than were in the dma_alloc_pages() block (%s, dir %d)",
					   dev_name(dev), l->dir);
		}
		if (how == 1) { /* another direction: said, freed all the same */
			dmamap_linux_free_pages(dev, l->size, l->page, l->h, (enum dma_data_direction)((l->dir + 1) % 3),
						__FILE__, __LINE__);
			if (w->checker)
				expect_one(&was, DMAMAP_REPORT_DIR_MISMATCH, "dma_free_pages with another direction");
			else
				expect_quiet(&was, "dma_free_pages with another direction, the checker off");
		} else if (how == 2 && w->checker) { /* not the allocation's attrs: said, freed as allocated */
			dmamap_linux_free_noncoherent(dev, l->size, l->cpu, l->h, l->dir, __FILE__, __LINE__);
			expect_one(&was, DMAMAP_REPORT_ATTR_MISMATCH, "dma_free_noncoherent of a dma_alloc_pages() block");
		} else {
			dmamap_linux_free_pages(dev, l->size, l->page, l->h, l->dir, __FILE__, __LINE__);
			if (again)
				expect_refused(&was, "dma_free_pages of a freed block");
			else
				expect_quiet(&was, "dma_free_pages");
		}
		break;
	}
	if (l->kind <= K_SG && l->dir != DMA_TO_DEVICE && l->defined)
		FUZZ_CHECK(matches(cpu_side(w, l), l->size, l->seed), "after unmap the CPU reads other bytes than were in the mapping (%s, kind %d, dir %d)",
			   dev_name(dev), l->kind, l->dir);
	if (l->kind == K_SG && l->list != L_HARNESS) {
		free_own_list(in, l);
		expect_quiet(&was, "the unmap and free of a list of its own");
	}
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

/* A refused dma_free_pages() of a live dma_alloc_pages() block: reported, the block stays the driver's. */
static void misuse_pages(struct world *w, struct fuzz_input *in, struct live *l, unsigned how)
{
	struct device *dev = &w->dev[l->dev];
	struct heard was = heard;
	int mi = w->mach[l->dev];

	switch (how % 4) {
	case 0: /* another size, in pages */
		dmamap_linux_free_pages(dev, l->size + PAGE_SIZE * (1 + fuzz_u8(in) % 4), l->page, l->h, l->dir, __FILE__,
					__LINE__);
		if (w->checker)
			expect_one(&was, DMAMAP_REPORT_SIZE_MISMATCH, "dma_free_pages with another size");
		else
			expect_refused(&was, "dma_free_pages with another size");
		break;
	case 1: /* a handle where the block does not start */
		dmamap_linux_free_pages(dev, l->size, l->page, l->h + PAGE_SIZE * (1 + fuzz_u8(in) % 4), l->dir, __FILE__,
					__LINE__);
		expect_refused(&was, "dma_free_pages of another handle");
		break;
	case 2: /* pages that are not the block at that handle: a harness buffer's */
		dmamap_linux_free_pages(dev, l->size, virt_to_page(w->buf[mi][fuzz_u8(in) % NBUF]), l->h, l->dir, __FILE__,
					__LINE__);
		if (w->checker)
			expect_one(&was, DMAMAP_REPORT_ADDR_MISMATCH, "dma_free_pages of other pages");
		else
			expect_refused(&was, "dma_free_pages of other pages");
		break;
	default: /* what the call refuses before anything: no page, no direction */
		if (fuzz_bool(in))
			dmamap_linux_free_pages(dev, l->size, NULL, l->h, l->dir, __FILE__, __LINE__);
		else
			dmamap_linux_free_pages(dev, l->size, l->page, l->h, (enum dma_data_direction)(3 + fuzz_u8(in) % 4),
						__FILE__, __LINE__);
		expect_one(&was, DMAMAP_REPORT_BAD_INPUT, "dma_free_pages of no page or in no direction");
		break;
	}
}

/* A misuse of a live object: refused, it stays live and intact. */
static void misuse(struct world *w, struct fuzz_input *in, struct live *l)
{
	struct device *dev = &w->dev[l->dev];
	unsigned how = fuzz_u8(in) % 5;
	u64 odd;

	TRACE("misuse %u of kind %d on %s: %#llx+%#zx\n", how, l->kind, dev_name(dev), (unsigned long long)l->h, l->size);
	if (l->kind == K_PAGES) {
		misuse_pages(w, in, l, how);
		return;
	}
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

/* The order of the block of pages @bytes take. */
static unsigned order_of(size_t bytes)
{
	unsigned order = 0;

	while (((size_t)PAGE_SIZE << order) < bytes)
		order++;
	return order;
}

/* Whether the page allocator of @m has a free block of @order pages (in the DMA zone with @zone): a probe. */
static bool pages_room(struct dmamap_machine *m, unsigned order, bool zone)
{
	struct page *p = order < MAX_ORDER ? dmamap_alloc_pages(m, zone ? GFP_DMA : GFP_KERNEL, order) : NULL;

	if (!p)
		return false;
	dmamap_free_pages(p, order);
	return true;
}

/* Whether the bounce device could take a buffer of @bytes (its safe buffers come from its coherent allocations). */
static bool bounce_room(struct device *dev, size_t bytes)
{
	dma_addr_t h;
	void *p = dma_alloc_coherent(dev, bytes, &h, GFP_KERNEL);

	if (!p)
		return false;
	dma_free_coherent(dev, bytes, p, h);
	return true;
}

/* Why @bytes for @d may lack room: false when a failure to allocate or map them is a defect. */
static bool short_of_room(struct world *w, int d, size_t bytes)
{
	struct device *dev = &w->dev[d];

	if (mapping_of(d) >= 0 && !window_has_room(dev, bytes))
		return true;
	if (d == D_BOUNCE && !bounce_room(dev, 2 * bytes))
		return true;
	return !pages_room(w->m[w->mach[d]], order_of(bytes), d == D_BOUNCE);
}

/* dma_alloc_pages(): a block the CPU fills and hands to the device; or a call refused. */
static void do_pages(struct world *w, struct fuzz_input *in, int d)
{
	struct device *dev = &w->dev[d];
	unsigned how = fuzz_u8(in) % 8;
	enum dma_data_direction dir = (enum dma_data_direction)(fuzz_u8(in) % 3);
	size_t size = 1 + fuzz_u16(in) % (6 * PAGE_SIZE);
	gfp_t gfp = fuzz_bool(in) ? GFP_ATOMIC : GFP_KERNEL;
	struct heard was = heard;
	struct page *page;
	struct live *l;
	dma_addr_t h = 0;

	if (!can_map(w, d) || w->nlive >= MAXLIVE)
		return;
	if (how == 0) { /* a zone in gfp, or no direction: refused, nothing allocated */
		if (fuzz_bool(in))
			page = dmamap_linux_alloc_pages(dev, size, &h, dir, gfp | (fuzz_bool(in) ? __GFP_DMA : __GFP_HIGHMEM),
							__FILE__, __LINE__);
		else
			page = dmamap_linux_alloc_pages(dev, size, &h, (enum dma_data_direction)(3 + fuzz_u8(in) % 4), gfp,
							__FILE__, __LINE__);
		FUZZ_CHECK(!page && h == DMA_MAPPING_ERROR, "a refused dma_alloc_pages gave a block");
		expect_one(&was, DMAMAP_REPORT_BAD_INPUT, "a refused dma_alloc_pages");
		return;
	}
	page = dmamap_linux_alloc_pages(dev, size, &h, dir, gfp, __FILE__, __LINE__);
	if (!page) {
		FUZZ_CHECK(h == DMA_MAPPING_ERROR, "a failed dma_alloc_pages left the handle %#llx", (unsigned long long)h);
		expect_quiet(&was, "a failed dma_alloc_pages");
		FUZZ_CHECK(short_of_room(w, d, size), "dma_alloc_pages of %#zx bytes on %s failed", size, dev_name(dev));
		return;
	}
	l = add_live(w);
	l->kind = K_PAGES;
	l->dev = d;
	l->dir = dir;
	l->page = page;
	l->cpu = page_address(page);
	l->h = h;
	l->size = size;
	l->buf = -1;
	l->seed = fuzz_u16(in);
	TRACE("dma_alloc_pages dir %d on %s: %#zx bytes -> %p %#llx\n", dir, dev_name(dev), size, (void *)l->cpu,
	      (unsigned long long)h);
	FUZZ_CHECK(h != DMA_MAPPING_ERROR, "dma_alloc_pages gave a block without a handle");
	memset(w->want, 0, size);
	FUZZ_CHECK(!memcmp(l->cpu, w->want, size), "a dma_alloc_pages block is not zeroed");
	l->defined = dir != DMA_FROM_DEVICE;
	if (l->defined)
		pattern(l->cpu, size, l->seed);
	dma_sync_single_for_device(dev, h, size, dir);
	if (l->defined)
		device_sees(w, l);
	expect_quiet(&was, "dma_alloc_pages and its hand-over");
}

/* A list of fresh pages from sgl_alloc_order(), mapped; or the allocation refused. */
static void do_sgl(struct world *w, struct fuzz_input *in, int d)
{
	struct device *dev = &w->dev[d];
	int mi = w->mach[d];
	unsigned how = fuzz_u8(in) % 8, order = fuzz_u8(in) % 3, nent = 12345, n;
	bool chainable = fuzz_bool(in);
	unsigned long long length = 1 + fuzz_u16(in) % sizeof(w->want), block;
	enum dma_data_direction dir = (enum dma_data_direction)(fuzz_u8(in) % 3);
	struct heard was = heard;
	struct scatterlist *sgl, *s;
	struct dmamap_machine_config cfg;
	struct live *l;
	int i;

	if (!can_map(w, d) || w->nlive >= MAXLIVE)
		return;
	dmamap_machine_set_current(w->m[mi]);
	if (how == 0) { /* no length, no such order, more than RAM: refused, nothing allocated */
		dmamap_machine_get_config(w->m[mi], &cfg);
		switch (fuzz_u8(in) % 3) {
		case 0: sgl = sgl_alloc_order(0, order, chainable, GFP_KERNEL, &nent); break;
		case 1: sgl = sgl_alloc_order(length, MAX_ORDER + fuzz_u8(in) % 8, chainable, GFP_KERNEL, &nent); break;
		default: sgl = sgl_alloc_order(cfg.ram_size + 1 + fuzz_u16(in), order, chainable, GFP_KERNEL, &nent); break;
		}
		FUZZ_CHECK(!sgl && nent == 12345, "a refused sgl_alloc_order gave a list or a count");
		expect_one(&was, DMAMAP_REPORT_BAD_INPUT, "a refused sgl_alloc_order");
		return;
	}
	if (how == 1) {
		order = 0;
		chainable = false;
		sgl = sgl_alloc(length, GFP_KERNEL, &nent);
	} else {
		sgl = sgl_alloc_order(length, order, chainable, fuzz_bool(in) ? GFP_KERNEL | __GFP_ZERO : GFP_KERNEL, &nent);
	}
	block = (unsigned long long)PAGE_SIZE << order;
	n = (unsigned)((length + block - 1) / block);
	if (!sgl) {
		FUZZ_CHECK(nent == 12345, "a failed sgl_alloc_order gave a count");
		FUZZ_CHECK(!pages_room(w->m[mi], order, false), "sgl_alloc_order of %#llx bytes failed", length);
		expect_quiet(&was, "a failed sgl_alloc_order");
		return;
	}
	FUZZ_CHECK(nent == n, "sgl_alloc_order of %#llx bytes in blocks of %#llx: %u entries", length, block, nent);
	for (i = 0, s = sgl; i < (int)n; i++, s = sg_next(s)) {
		FUZZ_CHECK(s && sg_page(s) && s->offset == 0 &&
			   s->length == (i + 1 < (int)n ? block : length - (unsigned long long)i * block),
			   "sgl_alloc_order entry %d of %u", i, n);
		FUZZ_CHECK(sg_is_last(s) == (i + 1 == (int)n && !chainable), "sgl_alloc_order: the end mark of entry %d", i);
	}
	FUZZ_CHECK(!chainable || (sg_is_last(s) && !sg_page(s)), "sgl_alloc_order: the spare entry of a chainable list");
	l = add_live(w);
	l->kind = K_SG;
	l->list = L_SGL;
	l->order = order;
	l->dev = d;
	l->dir = dir;
	l->buf = -1;
	l->sg = sgl;
	l->nents = (int)n;
	l->size = (size_t)length;
	l->seed = fuzz_u16(in);
	l->defined = dir != DMA_FROM_DEVICE;
	if (l->defined) {
		pattern(w->want, l->size, l->seed);
		FUZZ_CHECK(sg_copy_from_buffer(sgl, n, w->want, l->size) == l->size, "sg_copy_from_buffer into the list");
	}
	l->mapped = dma_map_sg(dev, sgl, (int)n, dir);
	TRACE("sgl order %u of %#llx bytes on %s: %u entries, %d mapped\n", order, length, dev_name(dev), n, l->mapped);
	if (l->mapped <= 0) {
		FUZZ_CHECK(short_of_room(w, d, l->size), "dma_map_sg of an sgl_alloc_order list on %s failed", dev_name(dev));
		sgl_free_order(sgl, (int)order);
		drop_live(w, l);
		expect_quiet(&was, "a failed map of an sgl_alloc_order list");
		return;
	}
	if (l->defined)
		device_sees(w, l);
	expect_quiet(&was, "sgl_alloc_order and dma_map_sg");
}

/* The current page of an append table's pages, in one of four orders of a harness buffer's. */
static struct page *append_page(struct world *w, int mi, int b, unsigned perm, unsigned i)
{
	static const unsigned char orders[4][4] = { { 0, 1, 2, 3 }, { 2, 3, 0, 1 }, { 3, 2, 1, 0 }, { 0, 2, 1, 3 } };

	return virt_to_page(w->buf[mi][b] + orders[perm][i] * PAGE_SIZE);
}

/*
 * An append table of a harness buffer's pages, grown in one to three calls,
 * mapped; along the way perhaps a call the table refuses, which changes
 * nothing.
 */
static void do_append(struct world *w, struct fuzz_input *in, int d)
{
	struct device *dev = &w->dev[d];
	int mi = w->mach[d], b = fuzz_u8(in) % NBUF;
	unsigned perm = fuzz_u8(in) % 4, npages = 1 + fuzz_u8(in) % 4, calls, bad = fuzz_u8(in) % 12, done = 0;
	unsigned max_segment = fuzz_bool(in) ? (unsigned)PAGE_SIZE << (fuzz_u8(in) % 3) : 65536u + fuzz_u16(in);
	enum dma_data_direction dir = (enum dma_data_direction)(fuzz_u8(in) % 3);
	struct heard was = heard;
	struct sg_append_table app, before;
	struct page *pages[4];
	struct scatterlist *s;
	size_t total = 0, sum = 0;
	struct live *l;
	int i;

	if (w->busy[mi][b] || !can_map(w, d) || w->nlive >= MAXLIVE)
		return;
	for (unsigned p = 0; p < 4; p++)
		pages[p] = append_page(w, mi, b, perm, p);
	memset(&app, 0, sizeof(app));
	calls = 1 + fuzz_u8(in) % (npages < 3 ? npages : 3);
	for (unsigned c = 0; c < calls; c++) {
		unsigned n = c + 1 == calls ? npages - done : 1 + fuzz_u8(in) % (npages - done - (calls - c - 1));
		unsigned offset = c == 0 ? fuzz_u16(in) % PAGE_SIZE : 0, left = npages - done - n;
		unsigned long room = n * PAGE_SIZE - offset;
		unsigned long size = fuzz_bool(in) ? room : room - fuzz_u16(in) % (room < PAGE_SIZE ? room : PAGE_SIZE);
		int r;

		if (left && fuzz_bool(in))
			left = 1 + left / 2; /* underestimated: more arrays are chained later */
		if (bad == c + 1) { /* a call the table refuses: nothing changes */
			unsigned how = fuzz_u8(in) % 4;

			before = app;
			if (how == 0 && c > 0)
				r = sg_alloc_append_table_from_pages(&app, pages + done, n, 1 + fuzz_u16(in) % (PAGE_SIZE - 1), size,
								     max_segment, left, GFP_KERNEL);
			else if (how == 1)
				r = sg_alloc_append_table_from_pages(&app, pages + done, n, offset, size,
								     PAGE_SIZE - 1 - fuzz_u16(in) % (PAGE_SIZE - 1), left, GFP_KERNEL);
			else if (how == 2)
				r = sg_alloc_append_table_from_pages(&app, pages + done, n, offset, room + 1 + fuzz_u16(in) % PAGE_SIZE,
								     max_segment, left, GFP_KERNEL);
			else
				r = sg_alloc_append_table_from_pages(&app, pages + done, n, offset, 0, max_segment, left, GFP_KERNEL);
			FUZZ_CHECK(r == -EINVAL, "a refused sg_alloc_append_table_from_pages returned %d", r);
			FUZZ_CHECK(!memcmp(&before, &app, sizeof(app)), "a refused sg_alloc_append_table_from_pages changed the table");
			expect_one(&was, DMAMAP_REPORT_BAD_INPUT, "a refused sg_alloc_append_table_from_pages");
			was = heard;
		}
		r = sg_alloc_append_table_from_pages(&app, pages + done, n, offset, size, max_segment, left, GFP_KERNEL);
		FUZZ_CHECK(r == 0, "sg_alloc_append_table_from_pages of %u pages, offset %u, %#lx bytes: %d", n, offset, size, r);
		done += n;
		total += size;
	}
	if (bad == calls + 1) { /* the table's end is marked: it grows no more */
		before = app;
		FUZZ_CHECK(sg_alloc_append_table_from_pages(&app, pages, 1, 0, PAGE_SIZE, max_segment, 0, GFP_KERNEL) == -EINVAL,
			   "an ended append table grew");
		FUZZ_CHECK(!memcmp(&before, &app, sizeof(app)), "a refused sg_alloc_append_table_from_pages changed the table");
		expect_one(&was, DMAMAP_REPORT_BAD_INPUT, "growing an ended append table");
		was = heard;
	}
	FUZZ_CHECK(app.sgt.nents && app.sgt.nents == app.sgt.orig_nents && app.sgt.orig_nents <= app.total_nents,
		   "append table: %u entries, %u slots", app.sgt.orig_nents, app.total_nents);
	for_each_sg(app.sgt.sgl, s, (int)app.sgt.orig_nents, i) {
		FUZZ_CHECK(s->length && s->length <= (max_segment & PAGE_MASK), "append table entry %d of %u bytes (max %u)", i,
			   s->length, max_segment);
		sum += s->length;
	}
	FUZZ_CHECK(sum == total && sg_is_last(app.prv), "append table: %zu bytes of %zu", sum, total);
	l = add_live(w);
	l->kind = K_SG;
	l->list = L_APPEND;
	l->app = app;
	l->sg = app.sgt.sgl;
	l->nents = (int)app.sgt.orig_nents;
	l->dev = d;
	l->dir = dir;
	l->buf = b;
	l->size = total;
	l->seed = fuzz_u16(in);
	l->defined = dir != DMA_FROM_DEVICE;
	if (l->defined) {
		pattern(w->want, total, l->seed);
		FUZZ_CHECK(sg_copy_from_buffer(l->sg, (unsigned)l->nents, w->want, total) == total, "sg_copy_from_buffer into the table");
	}
	l->mapped = dma_map_sg(dev, l->sg, l->nents, dir);
	TRACE("append table of %u pages (%u) in %u calls on %s: %d entries, %d mapped\n", npages, perm, calls, dev_name(dev),
	      l->nents, l->mapped);
	if (l->mapped <= 0) {
		FUZZ_CHECK(short_of_room(w, d, 4 * PAGE_SIZE), "dma_map_sg of an append table on %s failed", dev_name(dev));
		sg_free_append_table(&l->app);
		drop_live(w, l);
		expect_quiet(&was, "a failed map of an append table");
		return;
	}
	w->busy[mi][b] = true;
	if (l->defined)
		device_sees(w, l);
	expect_quiet(&was, "sg_alloc_append_table_from_pages and dma_map_sg");
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

	switch (fuzz_u8(in) % 7) {
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
			struct dma_iommu_mapping *gone = w->map[mp];
			bool held = mp == 0 ? w->attached[D_IOMMU_A] || w->attached[D_IOMMU_B] : w->attached[D_IOMMU1];

			arm_iommu_release_mapping(gone);
			w->map[mp] = NULL;
			if (!held && fuzz_u8(in) % 2) { /* freed: once more is refused, nothing read */
				struct heard was = heard;

				arm_iommu_release_mapping(gone);
				expect_one(&was, DMAMAP_REPORT_BAD_INPUT, "arm_iommu_release_mapping of a freed mapping");
			}
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
		if (fuzz_u8(in) % 2) { /* once more: refused */
			struct heard was = heard;

			dma_pool_destroy(w->pool[d]);
			expect_one(&was, DMAMAP_REPORT_BAD_INPUT, "dma_pool_destroy of a destroyed pool");
		}
		w->pool[d] = NULL;
		return;
	case 6: { /* a domain of its own: a few pages mapped, looked up, freed with them (and once more) */
		struct iommu_domain *dom = iommu_domain_alloc(w->m[mi]);
		unsigned long iova = 0x10000000ul + (fuzz_u16(in) << PAGE_SHIFT);
		unsigned n = 1 + fuzz_u8(in) % 4;
		phys_addr_t pa = virt_to_phys(w->buf[mi][fuzz_u8(in) % NBUF]);
		struct heard was = heard;

		FUZZ_CHECK(dom, "iommu_domain_alloc");
		FUZZ_CHECK(iommu_map(dom, iova, pa, n * PAGE_SIZE, IOMMU_READ | IOMMU_WRITE) == 0, "iommu_map");
		for (unsigned i = 0; i < n; i++)
			FUZZ_CHECK(iommu_iova_to_phys(dom, iova + i * PAGE_SIZE + 8) == pa + i * PAGE_SIZE + 8, "iommu_iova_to_phys");
		if (fuzz_bool(in))
			FUZZ_CHECK(iommu_unmap(dom, iova, PAGE_SIZE) == PAGE_SIZE, "iommu_unmap");
		iommu_domain_free(dom);
		expect_quiet(&was, "a domain's life");
		if (fuzz_bool(in)) {
			iommu_domain_free(dom);
			expect_one(&was, DMAMAP_REPORT_BAD_INPUT, "iommu_domain_free of a freed domain");
		}
		return;
	}
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
	bool other = w->checker && fuzz_u8(in) % 4 == 0;
	DEFINE_DMA_ATTRS(attrs);
	struct heard was;
	int r;

	if (l->kind != K_COHERENT || l->attr >= 2)
		return;
	vma = dmamap_vma_create(w->m[w->mach[l->dev]], size);
	if (!vma)
		return;
	/* the buffer's own protection; or the other one, reported, and mapped with its own all the same */
	set_buffer_attr(&attrs, other ? !l->attr : l->attr);
	was = heard;
	r = dma_mmap_attrs(&w->dev[l->dev], vma, l->cpu, l->h, l->size, &attrs);
	FUZZ_CHECK(r == 0 || size > DM_ALIGN_UP(l->size, PAGE_SIZE), "mmap of %zu bytes of a %zu-byte buffer: %d",
		   size, l->size, r);
	if (other)
		expect_one(&was, DMAMAP_REPORT_ATTR_MISMATCH, "dma_mmap_attrs with the other protection");
	else
		expect_quiet(&was, "dma_mmap_attrs");
	if (!r) {
		pgprot_t prot;

		struct page *decl = w->declared[l->dev];
		bool declared = decl && l->h - page_to_phys(decl) < 16 * PAGE_SIZE; /* always mapped coherent */

		FUZZ_CHECK(!dmamap_vma_pte(vma, vma->vm_start, NULL, &prot) &&
			   pgprot_memtype(prot) == (l->attr && !declared ? DMAMAP_MT_WRITECOMBINE : DMAMAP_MT_DMACOHERENT),
			   "the user mapping of a buffer of attr %u has another memory type", l->attr);
	}
	dmamap_vma_destroy(vma);
	if (fuzz_u8(in) % 4 == 0) { /* once more: refused */
		was = heard;
		dmamap_vma_destroy(vma);
		expect_one(&was, DMAMAP_REPORT_BAD_INPUT, "dmamap_vma_destroy of a destroyed vma");
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct fuzz_input in = { data, len };
	static struct world world;
	struct world *w = &world;
	bool orphan;

	fuzz_quiet();
	dmamap_set_log_handler(NULL, count_report, NULL);
	memset(&heard, 0, sizeof(heard));
	orphan_machine = NULL;
	tracing = getenv("DMAMAP_FUZZ_TRACE") != NULL;
	world_init(w, !(fuzz_u8(&in) & 1));
	orphan = fuzz_u8(&in) % 4 == 0;
	if (orphan)
		orphan_machine = w->m[1];
	w->attached[D_IOMMU_A] = arm_iommu_attach_device(&w->dev[D_IOMMU_A], w->map[0]) == 0;
	w->attached[D_IOMMU1] = arm_iommu_attach_device(&w->dev[D_IOMMU1], w->map[1]) == 0;
	check_machines(w, "setup");

	for (unsigned step = 0; step < 200 && in.len; step++) {
		unsigned byte = fuzz_u8(&in), op = byte < 208 ? byte % 16 : 16 + (byte - 208) % 4;
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
				release_live(w, &in, l, false);
				if (fuzz_u8(&in) % 4 == 0) /* and again: refused */
					release_live(w, &in, l, true);
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
		case 16: case 17:
			do_pages(w, &in, d);
			break;
		case 18:
			do_sgl(w, &in, d);
			break;
		case 19:
			do_append(w, &in, d);
			break;
		default: /* a live object is still what it was */
			if (l && device_view_known(l))
				device_sees(w, l);
			break;
		}
		check_machines(w, "a call");
	}

	while (w->nlive)
		release_live(w, &in, &w->live[0], false), drop_live(w, &w->live[0]);
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
	FUZZ_CHECK(!heard.leaks, "%lu leak(s) reported at teardown, the last %s", heard.leaks, heard.last_leak);
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
