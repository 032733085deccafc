/* SPDX-License-Identifier: MIT */
/*
 * The DMA API dispatch layer (src/dma-mapping.c): every wrapper validates its
 * arguments, then calls exactly one operation of get_dma_ops(dev) with the
 * arguments it was given.
 *
 * The wrappers are tested by plugging a recording ops table into a device
 * (STYLE.md item 8), not by mocking internals: every member of
 * struct dma_map_ops counts its calls and keeps its last arguments. Refused
 * calls must raise exactly one report of the expected kind, reach no
 * operation and change nothing (page allocator and cache counters of both
 * machines). The masks are tested on the real arm_dma_ops.
 *
 * The DMA-API checker is switched off on the device's machine: these tests
 * drive made-up handles through the wrappers to see exactly what reaches the
 * ops, which the checker would refuse as never mapped. What the checker
 * does in front of any ops set (this recording one included) is tested in
 * test-dma-debug.c.
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include "common.h"

/* ------------------------------------------------------ the recording ops */

#define FAKE_MAP_BASE 0xd0000000ULL      /* map_page returns FAKE_MAP_BASE + offset */
#define FAKE_ALLOC_HANDLE 0xc0001000ULL  /* alloc writes it to *dma_handle */
#define FAKE_ERROR_HANDLE 0xdeadULL      /* what rec_mapping_error calls an error */

enum rec_op {
	REC_ALLOC,
	REC_FREE,
	REC_MMAP,
	REC_GET_SGTABLE,
	REC_MAP_PAGE,
	REC_UNMAP_PAGE,
	REC_MAP_SG,
	REC_UNMAP_SG,
	REC_SYNC_SINGLE_FOR_CPU,
	REC_SYNC_SINGLE_FOR_DEVICE,
	REC_SYNC_SG_FOR_CPU,
	REC_SYNC_SG_FOR_DEVICE,
	REC_MAPPING_ERROR,
	REC_DMA_SUPPORTED,
	REC_SET_DMA_MASK,
	REC_NR
};

static const char *const rec_op_name[REC_NR] = {
	"alloc", "free", "mmap", "get_sgtable", "map_page", "unmap_page", "map_sg", "unmap_sg",
	"sync_single_for_cpu", "sync_single_for_device", "sync_sg_for_cpu", "sync_sg_for_device",
	"mapping_error", "dma_supported", "set_dma_mask",
};

/* The arguments of one call; members an operation lacks stay zero. */
struct rec_args {
	struct device *dev;
	struct page *page;
	unsigned long offset;
	size_t size;
	int dir;
	struct dma_attrs *attrs;
	unsigned long attr_flags; /* *attrs at call time (the wrapper's attrs may be gone after) */
	dma_addr_t handle;
	dma_addr_t *handle_ptr;
	gfp_t gfp;
	void *cpu_addr;
	struct vm_area_struct *vma;
	struct sg_table *sgt;
	struct scatterlist *sg;
	int nents;
	u64 mask;
};

static struct {
	unsigned calls[REC_NR];
	unsigned total;
	enum rec_op last_op;
	struct rec_args last;
	/* what the operations return */
	void *ret_alloc;
	int ret_mmap;
	int ret_get_sgtable;
	int ret_map_sg; /* < 0: nents */
	int ret_supported;
	int ret_set_mask;
} rec;

static char fake_cpu[256]; /* what rec_alloc returns */

static void rec_reset_calls(void)
{
	memset(rec.calls, 0, sizeof(rec.calls));
	rec.total = 0;
	rec.last_op = REC_NR;
	memset(&rec.last, 0, sizeof(rec.last));
}

static void rec_reset(void)
{
	rec_reset_calls();
	rec.ret_alloc = fake_cpu;
	rec.ret_mmap = 0;
	rec.ret_get_sgtable = 0;
	rec.ret_map_sg = -1;
	rec.ret_supported = 1;
	rec.ret_set_mask = 0;
}

static unsigned long flags_of(const struct dma_attrs *attrs)
{
	return attrs ? attrs->flags : 0;
}

static void record(enum rec_op op, const struct rec_args *a)
{
	rec.calls[op]++;
	rec.total++;
	rec.last_op = op;
	rec.last = *a;
}

#define RECORD(op, ...) record((op), &(struct rec_args){ __VA_ARGS__ })

static void *rec_alloc(struct device *dev, size_t size, dma_addr_t *dma_handle, gfp_t gfp, struct dma_attrs *attrs)
{
	RECORD(REC_ALLOC, .dev = dev, .size = size, .handle_ptr = dma_handle, .gfp = gfp, .attrs = attrs,
	       .attr_flags = flags_of(attrs));
	*dma_handle = FAKE_ALLOC_HANDLE;
	return rec.ret_alloc;
}

static void rec_free(struct device *dev, size_t size, void *vaddr, dma_addr_t dma_handle, struct dma_attrs *attrs)
{
	RECORD(REC_FREE, .dev = dev, .size = size, .cpu_addr = vaddr, .handle = dma_handle, .attrs = attrs,
	       .attr_flags = flags_of(attrs));
}

static int rec_mmap(struct device *dev, struct vm_area_struct *vma, void *cpu_addr, dma_addr_t dma_addr, size_t size,
		    struct dma_attrs *attrs)
{
	RECORD(REC_MMAP, .dev = dev, .vma = vma, .cpu_addr = cpu_addr, .handle = dma_addr, .size = size, .attrs = attrs,
	       .attr_flags = flags_of(attrs));
	return rec.ret_mmap;
}

static int rec_get_sgtable(struct device *dev, struct sg_table *sgt, void *cpu_addr, dma_addr_t dma_addr, size_t size,
			   struct dma_attrs *attrs)
{
	RECORD(REC_GET_SGTABLE, .dev = dev, .sgt = sgt, .cpu_addr = cpu_addr, .handle = dma_addr, .size = size,
	       .attrs = attrs, .attr_flags = flags_of(attrs));
	return rec.ret_get_sgtable;
}

static dma_addr_t rec_map_page(struct device *dev, struct page *page, unsigned long offset, size_t size,
			       enum dma_data_direction dir, struct dma_attrs *attrs)
{
	RECORD(REC_MAP_PAGE, .dev = dev, .page = page, .offset = offset, .size = size, .dir = (int)dir, .attrs = attrs,
	       .attr_flags = flags_of(attrs));
	return FAKE_MAP_BASE + offset;
}

static void rec_unmap_page(struct device *dev, dma_addr_t dma_handle, size_t size, enum dma_data_direction dir,
			   struct dma_attrs *attrs)
{
	RECORD(REC_UNMAP_PAGE, .dev = dev, .handle = dma_handle, .size = size, .dir = (int)dir, .attrs = attrs,
	       .attr_flags = flags_of(attrs));
}

static int rec_map_sg(struct device *dev, struct scatterlist *sg, int nents, enum dma_data_direction dir,
		      struct dma_attrs *attrs)
{
	RECORD(REC_MAP_SG, .dev = dev, .sg = sg, .nents = nents, .dir = (int)dir, .attrs = attrs,
	       .attr_flags = flags_of(attrs));
	return rec.ret_map_sg < 0 ? nents : rec.ret_map_sg;
}

static void rec_unmap_sg(struct device *dev, struct scatterlist *sg, int nents, enum dma_data_direction dir,
			 struct dma_attrs *attrs)
{
	RECORD(REC_UNMAP_SG, .dev = dev, .sg = sg, .nents = nents, .dir = (int)dir, .attrs = attrs,
	       .attr_flags = flags_of(attrs));
}

static void rec_sync_single_for_cpu(struct device *dev, dma_addr_t dma_handle, size_t size,
				    enum dma_data_direction dir)
{
	RECORD(REC_SYNC_SINGLE_FOR_CPU, .dev = dev, .handle = dma_handle, .size = size, .dir = (int)dir);
}

static void rec_sync_single_for_device(struct device *dev, dma_addr_t dma_handle, size_t size,
				       enum dma_data_direction dir)
{
	RECORD(REC_SYNC_SINGLE_FOR_DEVICE, .dev = dev, .handle = dma_handle, .size = size, .dir = (int)dir);
}

static void rec_sync_sg_for_cpu(struct device *dev, struct scatterlist *sg, int nents, enum dma_data_direction dir)
{
	RECORD(REC_SYNC_SG_FOR_CPU, .dev = dev, .sg = sg, .nents = nents, .dir = (int)dir);
}

static void rec_sync_sg_for_device(struct device *dev, struct scatterlist *sg, int nents, enum dma_data_direction dir)
{
	RECORD(REC_SYNC_SG_FOR_DEVICE, .dev = dev, .sg = sg, .nents = nents, .dir = (int)dir);
}

static int rec_mapping_error(struct device *dev, dma_addr_t dma_addr)
{
	RECORD(REC_MAPPING_ERROR, .dev = dev, .handle = dma_addr);
	return dma_addr == FAKE_ERROR_HANDLE;
}

static int rec_dma_supported(struct device *dev, u64 mask)
{
	RECORD(REC_DMA_SUPPORTED, .dev = dev, .mask = mask);
	return rec.ret_supported;
}

static int rec_set_dma_mask(struct device *dev, u64 mask)
{
	RECORD(REC_SET_DMA_MASK, .dev = dev, .mask = mask);
	return rec.ret_set_mask;
}

/* Every member implemented. Tests install a copy (E.ops) they may edit. */
static const struct dma_map_ops rec_ops = {
	.alloc = rec_alloc,
	.free = rec_free,
	.mmap = rec_mmap,
	.get_sgtable = rec_get_sgtable,
	.map_page = rec_map_page,
	.unmap_page = rec_unmap_page,
	.map_sg = rec_map_sg,
	.unmap_sg = rec_unmap_sg,
	.sync_single_for_cpu = rec_sync_single_for_cpu,
	.sync_single_for_device = rec_sync_single_for_device,
	.sync_sg_for_cpu = rec_sync_sg_for_cpu,
	.sync_sg_for_device = rec_sync_sg_for_device,
	.mapping_error = rec_mapping_error,
	.dma_supported = rec_dma_supported,
	.set_dma_mask = rec_set_dma_mask,
};

/* Exactly one call, of @op, with exactly the arguments @w; then forget it. */
static void expect_call_(enum rec_op op, const struct rec_args *w, int line, bool checked)
{
	const struct rec_args *g = &rec.last;

	/* checked: the wrapper asked ops->mapping_error about the handle first */
	if (checked) {
		if (rec.calls[REC_MAPPING_ERROR] != 1)
			fail_msg("line %d: expected one mapping_error call before %s, got %u", line, rec_op_name[op],
				 rec.calls[REC_MAPPING_ERROR]);
		rec.calls[REC_MAPPING_ERROR]--;
		rec.total--;
	}
	if (rec.total != 1 || rec.calls[op] != 1 || rec.last_op != op)
		fail_msg("line %d: expected exactly one call, of %s; got %u calls in all, %u of %s (last: %s)", line,
			 rec_op_name[op], rec.total, rec.calls[op], rec_op_name[op],
			 rec.last_op < REC_NR ? rec_op_name[rec.last_op] : "none");
#define FIELD(f, fmt, cast)                                                                              \
	do {                                                                                             \
		if (g->f != w->f)                                                                        \
			fail_msg("line %d: %s got " #f " = " fmt ", expected " fmt, line, rec_op_name[op], \
				 (cast)g->f, (cast)w->f);                                                  \
	} while (0)
	FIELD(dev, "%p", void *);
	FIELD(page, "%p", void *);
	FIELD(offset, "%#lx", unsigned long);
	FIELD(size, "%#zx", size_t);
	FIELD(dir, "%d", int);
	FIELD(attrs, "%p", void *);
	FIELD(attr_flags, "%#lx", unsigned long);
	FIELD(handle, "%#llx", unsigned long long);
	FIELD(handle_ptr, "%p", void *);
	FIELD(gfp, "%#x", unsigned);
	FIELD(cpu_addr, "%p", void *);
	FIELD(vma, "%p", void *);
	FIELD(sgt, "%p", void *);
	FIELD(sg, "%p", void *);
	FIELD(nents, "%d", int);
	FIELD(mask, "%#llx", unsigned long long);
#undef FIELD
	rec_reset_calls();
}

#define EXPECT_CALL(op, ...) expect_call_((op), &(struct rec_args){ __VA_ARGS__ }, __LINE__, false)
/* An unmap with ops->mapping_error set: one mapping_error call, then exactly @op. */
#define EXPECT_CHECKED_CALL(op, ...) expect_call_((op), &(struct rec_args){ __VA_ARGS__ }, __LINE__, true)

static void expect_no_call_(int line)
{
	if (rec.total)
		fail_msg("line %d: expected no operation called, got %u (last: %s)", line, rec.total,
			 rec.last_op < REC_NR ? rec_op_name[rec.last_op] : "none");
}

#define EXPECT_NO_CALL() expect_no_call_(__LINE__)

/* ------------------------------------------------------------ the fixture */

#define NSG 3

static struct env {
	struct dmamap_machine *m;   /* 16 MiB, the device's machine */
	struct dmamap_machine *m2;  /* another machine */
	struct device dev;          /* "coredev" on m, E.ops installed */
	struct dma_map_ops ops;     /* a copy of rec_ops */
	struct page *pg;            /* an order-2 block of m */
	u8 *buf;                    /* its linear-map address */
	struct page *pg2;           /* a page of m2 */
	u8 *buf2;
	struct page *last;          /* the last page of m's RAM */
	struct scatterlist sgl[NSG]; /* one entry per page of the block, 100 bytes at 16 */
	struct vm_area_struct *vma; /* one page, from dmamap_vma_create(m) */
	struct capture cap;         /* m's reports */
	struct capture gcap;        /* process-wide reports (NULL and uninitialised devices) */
	unsigned long accounted;    /* reports expected so far (by REFUSED) */
} E;

static struct page *page_n(struct dmamap_machine *m, phys_addr_t phys)
{
	struct page *p = dmamap_pfn_to_page(m, (unsigned long)(phys >> PAGE_SHIFT));

	assert_non_null(p);
	return p;
}

static int setup(void **state)
{
	struct dmamap_machine_config cfg;

	(void)state;
	memset(&E, 0, sizeof(E));
	rec_reset();
	E.m = test_machine(16, NULL);
	E.m2 = test_machine(16, NULL);
	assert_int_equal(dmamap_checker_enable(E.m, false), 0);
	capture_start(&E.cap, E.m);
	capture_start(&E.gcap, NULL);
	assert_int_equal(dmamap_device_init(&E.dev, E.m, "coredev"), 0);
	E.ops = rec_ops;
	set_dma_ops(&E.dev, &E.ops);

	E.pg = dmamap_alloc_pages(E.m, GFP_KERNEL, 2);
	assert_non_null(E.pg);
	E.buf = page_address(E.pg);
	assert_non_null(E.buf);
	E.pg2 = dmamap_alloc_pages(E.m2, GFP_KERNEL, 0);
	assert_non_null(E.pg2);
	E.buf2 = page_address(E.pg2);
	assert_non_null(E.buf2);
	dmamap_machine_get_config(E.m, &cfg);
	E.last = page_n(E.m, cfg.ram_base + cfg.ram_size - PAGE_SIZE);

	sg_init_table(E.sgl, NSG);
	for (int i = 0; i < NSG; i++)
		sg_set_page(&E.sgl[i], page_n(E.m, page_to_phys(E.pg) + (phys_addr_t)i * PAGE_SIZE), 100, 16);

	E.vma = dmamap_vma_create(E.m, PAGE_SIZE);
	assert_non_null(E.vma);

	assert_int_equal(E.cap.reports, 0);
	assert_int_equal(E.gcap.reports, 0);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	set_dma_ops(&E.dev, NULL);
	dmamap_vma_destroy(E.vma);
	dmamap_free_pages(E.pg2, 0);
	dmamap_free_pages(E.pg, 2);
	dmamap_device_release(&E.dev);
	capture_stop(NULL);
	capture_stop(E.m);
	test_machine_destroy(E.m2);
	test_machine_destroy(E.m);
	return 0;
}

/* ------------------------------------------------- refused calls, checked */

/* What must not change across a refused call. */
struct snap {
	unsigned calls[REC_NR];
	unsigned total;
	struct dmamap_page_stats pages, pages2;
	struct dmamap_cache_stats cache, cache2;
	unsigned long reports;
	unsigned long by_kind[DMAMAP_REPORT_KIND_NR];
	unsigned long count_m, count_null;
};

static void snap_take(struct snap *s)
{
	memset(s, 0, sizeof(*s));
	memcpy(s->calls, rec.calls, sizeof(s->calls));
	s->total = rec.total;
	dmamap_page_stats(E.m, &s->pages);
	dmamap_page_stats(E.m2, &s->pages2);
	dmamap_cache_get_stats(E.m, &s->cache);
	dmamap_cache_get_stats(E.m2, &s->cache2);
	s->reports = E.cap.reports + E.gcap.reports;
	for (int k = 0; k < DMAMAP_REPORT_KIND_NR; k++)
		s->by_kind[k] = E.cap.by_kind[k] + E.gcap.by_kind[k];
	s->count_m = dmamap_report_count(E.m);
	s->count_null = dmamap_report_count(NULL);
}

static void snap_check(const struct snap *s, enum dmamap_report_kind kind, int line)
{
	struct snap now;

	snap_take(&now);
	if (now.total != s->total)
		fail_msg("line %d: a refused call reached the ops (%s)", line,
			 rec.last_op < REC_NR ? rec_op_name[rec.last_op] : "?");
	if (memcmp(&now.pages, &s->pages, sizeof(now.pages)) || memcmp(&now.pages2, &s->pages2, sizeof(now.pages2)))
		fail_msg("line %d: a refused call changed the page allocator counters", line);
	if (memcmp(&now.cache, &s->cache, sizeof(now.cache)) || memcmp(&now.cache2, &s->cache2, sizeof(now.cache2)))
		fail_msg("line %d: a refused call changed the cache counters", line);
	if (now.reports - s->reports != 1)
		fail_msg("line %d: expected exactly one report (%s), got %lu (last: \"%s\" / \"%s\")", line,
			 dmamap_report_kind_name(kind), now.reports - s->reports, E.cap.last, E.gcap.last);
	if (now.by_kind[kind] - s->by_kind[kind] != 1)
		fail_msg("line %d: expected a %s report; last messages: \"%s\" / \"%s\"", line,
			 dmamap_report_kind_name(kind), E.cap.last, E.gcap.last);
	if ((now.count_m - s->count_m) + (now.count_null - s->count_null) != 1)
		fail_msg("line %d: the report was not counted once (machine %lu, process %lu)", line,
			 now.count_m - s->count_m, now.count_null - s->count_null);
	E.accounted = now.reports;
}

/* Run the statement(s): one report of @kind, no operation called, nothing changed. */
#define REFUSED(kind, ...)                                  \
	do {                                                \
		struct snap s_;                             \
		snap_take(&s_);                             \
		__VA_ARGS__;                                \
		snap_check(&s_, (kind), __LINE__);          \
	} while (0)

/* No report since the captures started but those REFUSED() expected. */
static void expect_no_reports_(int line)
{
	if (E.cap.reports + E.gcap.reports != E.accounted)
		fail_msg("line %d: unexpected report: \"%s\" / \"%s\"", line, E.cap.last, E.gcap.last);
}

#define EXPECT_NO_REPORTS() expect_no_reports_(__LINE__)

/*
 * Every wrapper that dispatches to operation @op, called on @d with otherwise
 * valid arguments: each must be refused with one report of @kind.
 */
static void every_wrapper_refused(enum rec_op op, struct device *d, enum dmamap_report_kind kind)
{
	DEFINE_DMA_ATTRS(attrs);
	dma_addr_t h = FAKE_MAP_BASE;
	struct sg_table sgt = { 0 };
	void *cpu = fake_cpu;

	dma_set_attr(DMA_ATTR_SKIP_CPU_SYNC, &attrs);
	switch (op) {
	case REC_ALLOC:
		REFUSED(kind, assert_null(dma_alloc_attrs(d, PAGE_SIZE, &h, GFP_KERNEL, &attrs)));
		assert_true(h == DMA_MAPPING_ERROR);
		h = 0;
		REFUSED(kind, assert_null(dma_alloc_coherent(d, PAGE_SIZE, &h, GFP_KERNEL)));
		assert_true(h == DMA_MAPPING_ERROR);
		h = 0;
		REFUSED(kind, assert_null(dma_alloc_writecombine(d, PAGE_SIZE, &h, GFP_KERNEL)));
		assert_true(h == DMA_MAPPING_ERROR);
		h = 0;
		REFUSED(kind, assert_null(dma_alloc_noncoherent(d, PAGE_SIZE, &h, GFP_KERNEL)));
		assert_true(h == DMA_MAPPING_ERROR);
		break;
	case REC_FREE:
		REFUSED(kind, dma_free_attrs(d, PAGE_SIZE, cpu, FAKE_ALLOC_HANDLE, &attrs));
		REFUSED(kind, dma_free_coherent(d, PAGE_SIZE, cpu, FAKE_ALLOC_HANDLE));
		REFUSED(kind, dma_free_writecombine(d, PAGE_SIZE, cpu, FAKE_ALLOC_HANDLE));
		REFUSED(kind, dma_free_noncoherent(d, PAGE_SIZE, cpu, FAKE_ALLOC_HANDLE));
		break;
	case REC_MMAP:
		REFUSED(kind, assert_int_not_equal(dma_mmap_attrs(d, E.vma, cpu, FAKE_ALLOC_HANDLE, PAGE_SIZE, &attrs), 0));
		REFUSED(kind, assert_int_not_equal(dma_mmap_coherent(d, E.vma, cpu, FAKE_ALLOC_HANDLE, PAGE_SIZE), 0));
		REFUSED(kind, assert_int_not_equal(dma_mmap_writecombine(d, E.vma, cpu, FAKE_ALLOC_HANDLE, PAGE_SIZE), 0));
		break;
	case REC_GET_SGTABLE:
		REFUSED(kind, assert_int_not_equal(dma_get_sgtable_attrs(d, &sgt, cpu, FAKE_ALLOC_HANDLE, PAGE_SIZE, &attrs),
						   0));
		REFUSED(kind, assert_int_not_equal(dma_get_sgtable(d, &sgt, cpu, FAKE_ALLOC_HANDLE, PAGE_SIZE), 0));
		break;
	case REC_MAP_PAGE:
		REFUSED(kind, assert_true(dma_map_single(d, E.buf, 64, DMA_TO_DEVICE) == DMA_MAPPING_ERROR));
		REFUSED(kind, assert_true(dma_map_single_attrs(d, E.buf, 64, DMA_TO_DEVICE, &attrs) == DMA_MAPPING_ERROR));
		REFUSED(kind, assert_true(dma_map_page(d, E.pg, 0, 64, DMA_FROM_DEVICE) == DMA_MAPPING_ERROR));
		REFUSED(kind,
			assert_true(dma_map_page_attrs(d, E.pg, 0, 64, DMA_FROM_DEVICE, &attrs) == DMA_MAPPING_ERROR));
		break;
	case REC_UNMAP_PAGE:
		REFUSED(kind, dma_unmap_single(d, h, 64, DMA_TO_DEVICE));
		REFUSED(kind, dma_unmap_single_attrs(d, h, 64, DMA_TO_DEVICE, &attrs));
		REFUSED(kind, dma_unmap_page(d, h, 64, DMA_FROM_DEVICE));
		REFUSED(kind, dma_unmap_page_attrs(d, h, 64, DMA_FROM_DEVICE, &attrs));
		break;
	case REC_MAP_SG:
		REFUSED(kind, assert_int_equal(dma_map_sg(d, E.sgl, NSG, DMA_TO_DEVICE), 0));
		REFUSED(kind, assert_int_equal(dma_map_sg_attrs(d, E.sgl, NSG, DMA_TO_DEVICE, &attrs), 0));
		break;
	case REC_UNMAP_SG:
		REFUSED(kind, dma_unmap_sg(d, E.sgl, NSG, DMA_TO_DEVICE));
		REFUSED(kind, dma_unmap_sg_attrs(d, E.sgl, NSG, DMA_TO_DEVICE, &attrs));
		break;
	case REC_SYNC_SINGLE_FOR_CPU:
		REFUSED(kind, dma_sync_single_for_cpu(d, h, 64, DMA_FROM_DEVICE));
		REFUSED(kind, dma_sync_single_range_for_cpu(d, h, 32, 16, DMA_FROM_DEVICE));
		break;
	case REC_SYNC_SINGLE_FOR_DEVICE:
		REFUSED(kind, dma_sync_single_for_device(d, h, 64, DMA_TO_DEVICE));
		REFUSED(kind, dma_sync_single_range_for_device(d, h, 32, 16, DMA_TO_DEVICE));
		break;
	case REC_SYNC_SG_FOR_CPU:
		REFUSED(kind, dma_sync_sg_for_cpu(d, E.sgl, NSG, DMA_FROM_DEVICE));
		break;
	case REC_SYNC_SG_FOR_DEVICE:
		REFUSED(kind, dma_sync_sg_for_device(d, E.sgl, NSG, DMA_TO_DEVICE));
		break;
	case REC_MAPPING_ERROR:
		REFUSED(kind, assert_int_not_equal(dma_mapping_error(d, h), 0));
		REFUSED(kind, assert_int_not_equal(dma_mapping_error(d, DMA_MAPPING_ERROR), 0));
		break;
	case REC_DMA_SUPPORTED:
		REFUSED(kind, assert_int_equal(dma_supported(d, DMA_BIT_MASK(32)), 0));
		REFUSED(kind, assert_int_equal(dma_supported(d, DMA_BIT_MASK(64)), 0));
		break;
	case REC_SET_DMA_MASK:
		REFUSED(kind, assert_int_equal(dma_set_mask(d, DMA_BIT_MASK(32)), -EIO));
		REFUSED(kind, assert_int_equal(dma_set_coherent_mask(d, DMA_BIT_MASK(32)), -EIO));
		REFUSED(kind, assert_int_equal(dma_set_mask_and_coherent(d, DMA_BIT_MASK(32)), -EIO));
		break;
	default:
		fail();
	}
}

/* ================================================================ tests */

static void test_get_set_dma_ops(void **state)
{
	struct device z;
	const struct dma_map_ops *other = &rec_ops;

	(void)state;
	memset(&z, 0, sizeof(z));
	assert_ptr_equal(get_dma_ops(&E.dev), &E.ops);
	assert_ptr_equal(E.dev.archdata.dma_ops, &E.ops);

	set_dma_ops(&E.dev, other);
	assert_ptr_equal(get_dma_ops(&E.dev), other);

	set_dma_ops(&E.dev, NULL);
	assert_ptr_equal(get_dma_ops(&E.dev), &arm_dma_ops);
	assert_null(E.dev.archdata.dma_ops);

	assert_null(get_dma_ops(NULL));
	assert_null(get_dma_ops(&z));
	EXPECT_NO_REPORTS();

	/* set_dma_ops on NULL or a zeroed device: reported, nothing installed */
	REFUSED(DMAMAP_REPORT_BAD_INPUT, set_dma_ops(NULL, &E.ops));
	REFUSED(DMAMAP_REPORT_BAD_INPUT, set_dma_ops(&z, &E.ops));
	assert_null(z.archdata.dma_ops);
	assert_null(get_dma_ops(&z));

	/* a released device has no ops any more */
	set_dma_ops(&E.dev, &E.ops);
	dmamap_device_release(&E.dev);
	assert_null(get_dma_ops(&E.dev));
	assert_int_equal(dmamap_device_init(&E.dev, E.m, "coredev"), 0);
	assert_ptr_equal(get_dma_ops(&E.dev), &arm_dma_ops);
	set_dma_ops(&E.dev, &E.ops);
	assert_ptr_equal(get_dma_ops(&E.dev), &E.ops);
	EXPECT_NO_REPORTS();
}

static void test_map_single(void **state)
{
	DEFINE_DMA_ATTRS(attrs);
	struct page *pg1 = page_n(E.m, page_to_phys(E.pg) + PAGE_SIZE);
	dma_addr_t h;

	(void)state;
	h = dma_map_single(&E.dev, E.buf + 100, 200, DMA_TO_DEVICE);
	assert_true(h == FAKE_MAP_BASE + 100);
	EXPECT_CALL(REC_MAP_PAGE, .dev = &E.dev, .page = E.pg, .offset = 100, .size = 200, .dir = DMA_TO_DEVICE);

	/* the page and offset come from the pointer: second page of the block */
	h = dma_map_single(&E.dev, E.buf + PAGE_SIZE + 5, 3, DMA_FROM_DEVICE);
	assert_true(h == FAKE_MAP_BASE + 5);
	EXPECT_CALL(REC_MAP_PAGE, .dev = &E.dev, .page = pg1, .offset = 5, .size = 3, .dir = DMA_FROM_DEVICE);

	/* a buffer spanning pages: the first page, the whole size */
	h = dma_map_single(&E.dev, E.buf + PAGE_SIZE - 8, 2 * PAGE_SIZE, DMA_BIDIRECTIONAL);
	assert_true(h == FAKE_MAP_BASE + PAGE_SIZE - 8);
	EXPECT_CALL(REC_MAP_PAGE, .dev = &E.dev, .page = E.pg, .offset = PAGE_SIZE - 8, .size = 2 * PAGE_SIZE,
		    .dir = DMA_BIDIRECTIONAL);

	/* the last byte of RAM */
	h = dma_map_single(&E.dev, (u8 *)page_address(E.last) + PAGE_SIZE - 1, 1, DMA_TO_DEVICE);
	assert_true(h == FAKE_MAP_BASE + PAGE_SIZE - 1);
	EXPECT_CALL(REC_MAP_PAGE, .dev = &E.dev, .page = E.last, .offset = PAGE_SIZE - 1, .size = 1,
		    .dir = DMA_TO_DEVICE);

	/* the attrs pointer reaches the op as given */
	dma_set_attr(DMA_ATTR_SKIP_CPU_SYNC, &attrs);
	h = dma_map_single_attrs(&E.dev, E.buf, PAGE_SIZE, DMA_FROM_DEVICE, &attrs);
	assert_true(h == FAKE_MAP_BASE);
	EXPECT_CALL(REC_MAP_PAGE, .dev = &E.dev, .page = E.pg, .offset = 0, .size = PAGE_SIZE, .dir = DMA_FROM_DEVICE,
		    .attrs = &attrs, .attr_flags = attrs.flags);
	h = dma_map_single_attrs(&E.dev, E.buf + 1, 1, DMA_TO_DEVICE, NULL);
	assert_true(h == FAKE_MAP_BASE + 1);
	EXPECT_CALL(REC_MAP_PAGE, .dev = &E.dev, .page = E.pg, .offset = 1, .size = 1, .dir = DMA_TO_DEVICE);
	EXPECT_NO_REPORTS();
}

static void test_map_page(void **state)
{
	DEFINE_DMA_ATTRS(attrs);
	dma_addr_t h;

	(void)state;
	h = dma_map_page(&E.dev, E.pg, 0x123, 0x456, DMA_BIDIRECTIONAL);
	assert_true(h == FAKE_MAP_BASE + 0x123);
	EXPECT_CALL(REC_MAP_PAGE, .dev = &E.dev, .page = E.pg, .offset = 0x123, .size = 0x456,
		    .dir = DMA_BIDIRECTIONAL);

	/* the offset may lie beyond the page: passed through unchanged */
	h = dma_map_page(&E.dev, E.pg, 2 * PAGE_SIZE + 7, 9, DMA_TO_DEVICE);
	assert_true(h == FAKE_MAP_BASE + 2 * PAGE_SIZE + 7);
	EXPECT_CALL(REC_MAP_PAGE, .dev = &E.dev, .page = E.pg, .offset = 2 * PAGE_SIZE + 7, .size = 9,
		    .dir = DMA_TO_DEVICE);

	/* exactly up to the end of RAM */
	h = dma_map_page(&E.dev, E.last, 0, PAGE_SIZE, DMA_FROM_DEVICE);
	assert_true(h == FAKE_MAP_BASE);
	EXPECT_CALL(REC_MAP_PAGE, .dev = &E.dev, .page = E.last, .offset = 0, .size = PAGE_SIZE,
		    .dir = DMA_FROM_DEVICE);

	dma_set_attr(DMA_ATTR_WEAK_ORDERING, &attrs);
	dma_set_attr(DMA_ATTR_SKIP_CPU_SYNC, &attrs);
	h = dma_map_page_attrs(&E.dev, E.pg, 64, 128, DMA_FROM_DEVICE, &attrs);
	assert_true(h == FAKE_MAP_BASE + 64);
	EXPECT_CALL(REC_MAP_PAGE, .dev = &E.dev, .page = E.pg, .offset = 64, .size = 128, .dir = DMA_FROM_DEVICE,
		    .attrs = &attrs, .attr_flags = attrs.flags);
	EXPECT_NO_REPORTS();
}

static void test_unmap(void **state)
{
	DEFINE_DMA_ATTRS(attrs);

	(void)state;
	dma_set_attr(DMA_ATTR_SKIP_CPU_SYNC, &attrs);

	dma_unmap_single(&E.dev, FAKE_MAP_BASE + 100, 200, DMA_TO_DEVICE);
	EXPECT_CHECKED_CALL(REC_UNMAP_PAGE, .dev = &E.dev, .handle = FAKE_MAP_BASE + 100, .size = 200, .dir = DMA_TO_DEVICE);
	dma_unmap_single_attrs(&E.dev, FAKE_MAP_BASE, 1, DMA_FROM_DEVICE, &attrs);
	EXPECT_CHECKED_CALL(REC_UNMAP_PAGE, .dev = &E.dev, .handle = FAKE_MAP_BASE, .size = 1, .dir = DMA_FROM_DEVICE,
		    .attrs = &attrs, .attr_flags = attrs.flags);
	dma_unmap_page(&E.dev, FAKE_MAP_BASE + 0x123, 0x456, DMA_BIDIRECTIONAL);
	EXPECT_CHECKED_CALL(REC_UNMAP_PAGE, .dev = &E.dev, .handle = FAKE_MAP_BASE + 0x123, .size = 0x456,
		    .dir = DMA_BIDIRECTIONAL);
	dma_unmap_page_attrs(&E.dev, FAKE_MAP_BASE + 64, 128, DMA_FROM_DEVICE, &attrs);
	EXPECT_CHECKED_CALL(REC_UNMAP_PAGE, .dev = &E.dev, .handle = FAKE_MAP_BASE + 64, .size = 128, .dir = DMA_FROM_DEVICE,
		    .attrs = &attrs, .attr_flags = attrs.flags);

	/*
	 * The op's mapping_error decides what a failed handle is: with it,
	 * DMA_MAPPING_ERROR is an ordinary handle (it reaches the op after the
	 * check) and FAKE_ERROR_HANDLE is refused.
	 */
	dma_unmap_single(&E.dev, DMA_MAPPING_ERROR, 16, DMA_TO_DEVICE);
	assert_int_equal(rec.calls[REC_MAPPING_ERROR], 1);
	assert_int_equal(rec.calls[REC_UNMAP_PAGE], 1);
	assert_true(rec.last.handle == DMA_MAPPING_ERROR);
	rec_reset_calls();
	REFUSED(DMAMAP_REPORT_API_MISUSE, dma_unmap_single(&E.dev, FAKE_ERROR_HANDLE, 16, DMA_TO_DEVICE);
		assert_int_equal(rec.calls[REC_MAPPING_ERROR], 1); assert_int_equal(rec.total, 1); rec_reset_calls());
	REFUSED(DMAMAP_REPORT_API_MISUSE, dma_unmap_page(&E.dev, FAKE_ERROR_HANDLE, 16, DMA_TO_DEVICE);
		rec_reset_calls());

	/* without mapping_error, DMA_MAPPING_ERROR is the failed handle */
	E.ops.mapping_error = NULL;
	dma_unmap_single(&E.dev, FAKE_ERROR_HANDLE, 16, DMA_TO_DEVICE);
	EXPECT_CALL(REC_UNMAP_PAGE, .dev = &E.dev, .handle = FAKE_ERROR_HANDLE, .size = 16, .dir = DMA_TO_DEVICE);
	EXPECT_NO_REPORTS();
	REFUSED(DMAMAP_REPORT_API_MISUSE, dma_unmap_single(&E.dev, DMA_MAPPING_ERROR, 16, DMA_TO_DEVICE));
	REFUSED(DMAMAP_REPORT_API_MISUSE, dma_unmap_page(&E.dev, DMA_MAPPING_ERROR, 16, DMA_TO_DEVICE));
	REFUSED(DMAMAP_REPORT_API_MISUSE, dma_unmap_page_attrs(&E.dev, DMA_MAPPING_ERROR, 16, DMA_FROM_DEVICE, &attrs));
}

static void test_sync_single(void **state)
{
	(void)state;
	dma_sync_single_for_cpu(&E.dev, FAKE_MAP_BASE + 8, 24, DMA_FROM_DEVICE);
	EXPECT_CALL(REC_SYNC_SINGLE_FOR_CPU, .dev = &E.dev, .handle = FAKE_MAP_BASE + 8, .size = 24,
		    .dir = DMA_FROM_DEVICE);
	dma_sync_single_for_device(&E.dev, FAKE_MAP_BASE + 8, 24, DMA_TO_DEVICE);
	EXPECT_CALL(REC_SYNC_SINGLE_FOR_DEVICE, .dev = &E.dev, .handle = FAKE_MAP_BASE + 8, .size = 24,
		    .dir = DMA_TO_DEVICE);
	dma_sync_single_for_cpu(&E.dev, FAKE_MAP_BASE, PAGE_SIZE, DMA_BIDIRECTIONAL);
	EXPECT_CALL(REC_SYNC_SINGLE_FOR_CPU, .dev = &E.dev, .handle = FAKE_MAP_BASE, .size = PAGE_SIZE,
		    .dir = DMA_BIDIRECTIONAL);

	/* the range forms: handle + offset reaches the op, with the size given */
	dma_sync_single_range_for_cpu(&E.dev, FAKE_MAP_BASE + 0x100, 0x40, 0x20, DMA_FROM_DEVICE);
	EXPECT_CALL(REC_SYNC_SINGLE_FOR_CPU, .dev = &E.dev, .handle = FAKE_MAP_BASE + 0x140, .size = 0x20,
		    .dir = DMA_FROM_DEVICE);
	dma_sync_single_range_for_device(&E.dev, FAKE_MAP_BASE + 0x100, 0x40, 0x20, DMA_BIDIRECTIONAL);
	EXPECT_CALL(REC_SYNC_SINGLE_FOR_DEVICE, .dev = &E.dev, .handle = FAKE_MAP_BASE + 0x140, .size = 0x20,
		    .dir = DMA_BIDIRECTIONAL);
	dma_sync_single_range_for_cpu(&E.dev, FAKE_MAP_BASE, 0, 1, DMA_TO_DEVICE);
	EXPECT_CALL(REC_SYNC_SINGLE_FOR_CPU, .dev = &E.dev, .handle = FAKE_MAP_BASE, .size = 1, .dir = DMA_TO_DEVICE);
	EXPECT_NO_REPORTS();
}

static void test_sg(void **state)
{
	DEFINE_DMA_ATTRS(attrs);

	(void)state;
	dma_set_attr(DMA_ATTR_WRITE_BARRIER, &attrs);

	assert_int_equal(dma_map_sg(&E.dev, E.sgl, NSG, DMA_TO_DEVICE), NSG);
	EXPECT_CALL(REC_MAP_SG, .dev = &E.dev, .sg = E.sgl, .nents = NSG, .dir = DMA_TO_DEVICE);
	/* fewer entries than the list holds; the op's result is returned as is */
	rec.ret_map_sg = 1;
	assert_int_equal(dma_map_sg_attrs(&E.dev, E.sgl, 2, DMA_FROM_DEVICE, &attrs), 1);
	EXPECT_CALL(REC_MAP_SG, .dev = &E.dev, .sg = E.sgl, .nents = 2, .dir = DMA_FROM_DEVICE, .attrs = &attrs,
		    .attr_flags = attrs.flags);
	rec.ret_map_sg = 0;
	assert_int_equal(dma_map_sg(&E.dev, E.sgl, 1, DMA_BIDIRECTIONAL), 0);
	EXPECT_CALL(REC_MAP_SG, .dev = &E.dev, .sg = E.sgl, .nents = 1, .dir = DMA_BIDIRECTIONAL);

	dma_unmap_sg(&E.dev, E.sgl, NSG, DMA_TO_DEVICE);
	EXPECT_CALL(REC_UNMAP_SG, .dev = &E.dev, .sg = E.sgl, .nents = NSG, .dir = DMA_TO_DEVICE);
	dma_unmap_sg_attrs(&E.dev, E.sgl, 2, DMA_FROM_DEVICE, &attrs);
	EXPECT_CALL(REC_UNMAP_SG, .dev = &E.dev, .sg = E.sgl, .nents = 2, .dir = DMA_FROM_DEVICE, .attrs = &attrs,
		    .attr_flags = attrs.flags);

	dma_sync_sg_for_cpu(&E.dev, E.sgl, NSG, DMA_FROM_DEVICE);
	EXPECT_CALL(REC_SYNC_SG_FOR_CPU, .dev = &E.dev, .sg = E.sgl, .nents = NSG, .dir = DMA_FROM_DEVICE);
	dma_sync_sg_for_device(&E.dev, E.sgl, NSG, DMA_BIDIRECTIONAL);
	EXPECT_CALL(REC_SYNC_SG_FOR_DEVICE, .dev = &E.dev, .sg = E.sgl, .nents = NSG, .dir = DMA_BIDIRECTIONAL);

	/* the sub-list starting at the second entry */
	dma_sync_sg_for_device(&E.dev, &E.sgl[1], NSG - 1, DMA_TO_DEVICE);
	EXPECT_CALL(REC_SYNC_SG_FOR_DEVICE, .dev = &E.dev, .sg = &E.sgl[1], .nents = NSG - 1, .dir = DMA_TO_DEVICE);
	EXPECT_NO_REPORTS();
}

static void test_alloc_free_mmap(void **state)
{
	DEFINE_DMA_ATTRS(attrs);
	DEFINE_DMA_ATTRS(wc);
	DEFINE_DMA_ATTRS(nc);
	dma_addr_t h = 0;
	void *cpu;

	(void)state;
	dma_set_attr(DMA_ATTR_WRITE_COMBINE, &wc);
	dma_set_attr(DMA_ATTR_NON_CONSISTENT, &nc);
	dma_set_attr(DMA_ATTR_NO_KERNEL_MAPPING, &attrs);
	dma_set_attr(DMA_ATTR_FORCE_CONTIGUOUS, &attrs);

	/* dma_alloc_attrs: everything reaches the op */
	cpu = dma_alloc_attrs(&E.dev, 3 * PAGE_SIZE, &h, GFP_KERNEL | __GFP_ZERO, &attrs);
	assert_ptr_equal(cpu, fake_cpu);
	assert_true(h == FAKE_ALLOC_HANDLE);
	EXPECT_CALL(REC_ALLOC, .dev = &E.dev, .size = 3 * PAGE_SIZE, .handle_ptr = &h, .gfp = GFP_KERNEL | __GFP_ZERO,
		    .attrs = &attrs, .attr_flags = attrs.flags);
	dma_free_attrs(&E.dev, 3 * PAGE_SIZE, cpu, h, &attrs);
	EXPECT_CALL(REC_FREE, .dev = &E.dev, .size = 3 * PAGE_SIZE, .cpu_addr = fake_cpu, .handle = FAKE_ALLOC_HANDLE,
		    .attrs = &attrs, .attr_flags = attrs.flags);
	assert_int_equal(dma_mmap_attrs(&E.dev, E.vma, cpu, h, PAGE_SIZE, &attrs), 0);
	EXPECT_CALL(REC_MMAP, .dev = &E.dev, .vma = E.vma, .cpu_addr = fake_cpu, .handle = FAKE_ALLOC_HANDLE,
		    .size = PAGE_SIZE, .attrs = &attrs, .attr_flags = attrs.flags);
	/* the op's error is returned as is */
	rec.ret_mmap = -ENXIO;
	assert_int_equal(dma_mmap_attrs(&E.dev, E.vma, cpu, h, PAGE_SIZE, NULL), -ENXIO);
	EXPECT_CALL(REC_MMAP, .dev = &E.dev, .vma = E.vma, .cpu_addr = fake_cpu, .handle = FAKE_ALLOC_HANDLE,
		    .size = PAGE_SIZE);
	rec.ret_mmap = 0;

	/* an op that fails: NULL, and the handle says so whatever the op wrote */
	rec.ret_alloc = NULL;
	h = 0;
	assert_null(dma_alloc_attrs(&E.dev, PAGE_SIZE, &h, GFP_ATOMIC, NULL));
	assert_true(h == DMA_MAPPING_ERROR);
	EXPECT_CALL(REC_ALLOC, .dev = &E.dev, .size = PAGE_SIZE, .handle_ptr = &h, .gfp = GFP_ATOMIC);
	rec.ret_alloc = fake_cpu;

	/* coherent: NULL attrs */
	h = 0;
	cpu = dma_alloc_coherent(&E.dev, 100, &h, GFP_KERNEL);
	assert_ptr_equal(cpu, fake_cpu);
	assert_true(h == FAKE_ALLOC_HANDLE);
	EXPECT_CALL(REC_ALLOC, .dev = &E.dev, .size = 100, .handle_ptr = &h, .gfp = GFP_KERNEL);
	assert_int_equal(dma_mmap_coherent(&E.dev, E.vma, cpu, h, 100), 0);
	EXPECT_CALL(REC_MMAP, .dev = &E.dev, .vma = E.vma, .cpu_addr = fake_cpu, .handle = FAKE_ALLOC_HANDLE,
		    .size = 100);
	dma_free_coherent(&E.dev, 100, cpu, h);
	EXPECT_CALL(REC_FREE, .dev = &E.dev, .size = 100, .cpu_addr = fake_cpu, .handle = FAKE_ALLOC_HANDLE);

	/* writecombine: non-NULL attrs with exactly DMA_ATTR_WRITE_COMBINE */
	h = 0;
	cpu = dma_alloc_writecombine(&E.dev, PAGE_SIZE, &h, GFP_KERNEL);
	assert_ptr_equal(cpu, fake_cpu);
	assert_true(h == FAKE_ALLOC_HANDLE);
	assert_non_null(rec.last.attrs);
	assert_true(rec.last.attr_flags == wc.flags);
	EXPECT_CALL(REC_ALLOC, .dev = &E.dev, .size = PAGE_SIZE, .handle_ptr = &h, .gfp = GFP_KERNEL,
		    .attrs = rec.last.attrs, .attr_flags = wc.flags);
	assert_int_equal(dma_mmap_writecombine(&E.dev, E.vma, cpu, h, PAGE_SIZE), 0);
	assert_non_null(rec.last.attrs);
	EXPECT_CALL(REC_MMAP, .dev = &E.dev, .vma = E.vma, .cpu_addr = fake_cpu, .handle = FAKE_ALLOC_HANDLE,
		    .size = PAGE_SIZE, .attrs = rec.last.attrs, .attr_flags = wc.flags);
	dma_free_writecombine(&E.dev, PAGE_SIZE, cpu, h);
	assert_non_null(rec.last.attrs);
	EXPECT_CALL(REC_FREE, .dev = &E.dev, .size = PAGE_SIZE, .cpu_addr = fake_cpu, .handle = FAKE_ALLOC_HANDLE,
		    .attrs = rec.last.attrs, .attr_flags = wc.flags);

	/* noncoherent: DMA_ATTR_NON_CONSISTENT */
	h = 0;
	cpu = dma_alloc_noncoherent(&E.dev, 2 * PAGE_SIZE, &h, GFP_KERNEL);
	assert_ptr_equal(cpu, fake_cpu);
	assert_non_null(rec.last.attrs);
	EXPECT_CALL(REC_ALLOC, .dev = &E.dev, .size = 2 * PAGE_SIZE, .handle_ptr = &h, .gfp = GFP_KERNEL,
		    .attrs = rec.last.attrs, .attr_flags = nc.flags);
	dma_free_noncoherent(&E.dev, 2 * PAGE_SIZE, cpu, h);
	assert_non_null(rec.last.attrs);
	EXPECT_CALL(REC_FREE, .dev = &E.dev, .size = 2 * PAGE_SIZE, .cpu_addr = fake_cpu, .handle = FAKE_ALLOC_HANDLE,
		    .attrs = rec.last.attrs, .attr_flags = nc.flags);
	EXPECT_NO_REPORTS();
}

/*
 * A free naming other buffer attrs than the allocation's: reported, and the
 * op frees the buffer with the allocation's attrs; hints that only steer
 * streaming mappings may differ, and the caller's attrs then reach the op.
 */
static void test_free_with_other_attrs(void **state)
{
	DEFINE_DMA_ATTRS(wc);
	DEFINE_DMA_ATTRS(hints);
	dma_addr_t h = 0;
	void *cpu;

	(void)state;
	assert_int_equal(dmamap_checker_enable(E.m, true), 0); /* it is what compares the attrs */
	dma_set_attr(DMA_ATTR_WRITE_COMBINE, &wc);
	cpu = dma_alloc_attrs(&E.dev, PAGE_SIZE, &h, GFP_KERNEL, &wc);
	assert_ptr_equal(cpu, fake_cpu);
	rec_reset_calls();
	dma_free_coherent(&E.dev, PAGE_SIZE, cpu, h);
	assert_int_equal(E.cap.by_kind[DMAMAP_REPORT_ATTR_MISMATCH], 1);
	assert_int_equal(E.cap.reports, E.accounted + 1);
	E.accounted = E.cap.reports;
	assert_non_null(rec.last.attrs);
	EXPECT_CALL(REC_FREE, .dev = &E.dev, .size = PAGE_SIZE, .cpu_addr = fake_cpu, .handle = FAKE_ALLOC_HANDLE,
		    .attrs = rec.last.attrs, .attr_flags = wc.flags);

	dma_set_attr(DMA_ATTR_WRITE_COMBINE, &hints);
	dma_set_attr(DMA_ATTR_SKIP_CPU_SYNC, &hints);
	dma_set_attr(DMA_ATTR_WEAK_ORDERING, &hints);
	cpu = dma_alloc_attrs(&E.dev, PAGE_SIZE, &h, GFP_KERNEL, &hints);
	assert_ptr_equal(cpu, fake_cpu);
	rec_reset_calls();
	dma_free_attrs(&E.dev, PAGE_SIZE, cpu, h, &wc);
	EXPECT_CALL(REC_FREE, .dev = &E.dev, .size = PAGE_SIZE, .cpu_addr = fake_cpu, .handle = FAKE_ALLOC_HANDLE,
		    .attrs = &wc, .attr_flags = wc.flags);
	EXPECT_NO_REPORTS();
	assert_int_equal(dmamap_checker_enable(E.m, false), 0);
}

static void test_get_sgtable(void **state)
{
	DEFINE_DMA_ATTRS(attrs);
	struct sg_table sgt = { 0 };

	(void)state;
	dma_set_attr(DMA_ATTR_WRITE_COMBINE, &attrs);
	assert_int_equal(dma_get_sgtable(&E.dev, &sgt, fake_cpu, FAKE_ALLOC_HANDLE, 2 * PAGE_SIZE), 0);
	EXPECT_CALL(REC_GET_SGTABLE, .dev = &E.dev, .sgt = &sgt, .cpu_addr = fake_cpu, .handle = FAKE_ALLOC_HANDLE,
		    .size = 2 * PAGE_SIZE);
	rec.ret_get_sgtable = -ENOMEM;
	assert_int_equal(dma_get_sgtable_attrs(&E.dev, &sgt, fake_cpu, FAKE_ALLOC_HANDLE, 5, &attrs), -ENOMEM);
	EXPECT_CALL(REC_GET_SGTABLE, .dev = &E.dev, .sgt = &sgt, .cpu_addr = fake_cpu, .handle = FAKE_ALLOC_HANDLE,
		    .size = 5, .attrs = &attrs, .attr_flags = attrs.flags);
	assert_null(sgt.sgl);
	EXPECT_NO_REPORTS();
}

static void test_mapping_error(void **state)
{
	(void)state;
	/* with ops->mapping_error: its answer, whatever the value; 1 as the 2012 ARM kernel's, not an errno */
	assert_int_equal(dma_mapping_error(&E.dev, FAKE_ERROR_HANDLE), 1);
	EXPECT_CALL(REC_MAPPING_ERROR, .dev = &E.dev, .handle = FAKE_ERROR_HANDLE);
	assert_int_equal(dma_mapping_error(&E.dev, DMA_MAPPING_ERROR), 0);
	EXPECT_CALL(REC_MAPPING_ERROR, .dev = &E.dev, .handle = DMA_MAPPING_ERROR);
	assert_int_equal(dma_mapping_error(&E.dev, FAKE_MAP_BASE), 0);
	EXPECT_CALL(REC_MAPPING_ERROR, .dev = &E.dev, .handle = FAKE_MAP_BASE);

	/* without: == DMA_MAPPING_ERROR, and no op is called */
	E.ops.mapping_error = NULL;
	assert_int_equal(dma_mapping_error(&E.dev, DMA_MAPPING_ERROR), 1);
	assert_int_equal(dma_mapping_error(&E.dev, FAKE_ERROR_HANDLE), 0);
	assert_int_equal(dma_mapping_error(&E.dev, 0), 0);
	EXPECT_NO_CALL();

	/* a failed map is an error by either rule */
	E.ops.map_page = NULL;
	{
		dma_addr_t h;

		REFUSED(DMAMAP_REPORT_API_MISUSE, h = dma_map_single(&E.dev, E.buf, 8, DMA_TO_DEVICE));
		assert_int_not_equal(dma_mapping_error(&E.dev, h), 0);
	}
	EXPECT_NO_CALL();
}

static void test_supported_and_set_mask_dispatch(void **state)
{
	u64 before = *E.dev.dma_mask, coh = E.dev.coherent_dma_mask;

	(void)state;
	rec.ret_supported = 1;
	assert_int_equal(dma_supported(&E.dev, DMA_BIT_MASK(24)), 1);
	EXPECT_CALL(REC_DMA_SUPPORTED, .dev = &E.dev, .mask = DMA_BIT_MASK(24));
	rec.ret_supported = 0;
	assert_int_equal(dma_supported(&E.dev, DMA_BIT_MASK(64)), 0);
	EXPECT_CALL(REC_DMA_SUPPORTED, .dev = &E.dev, .mask = DMA_BIT_MASK(64));

	/* ops->set_dma_mask does the whole job: the core leaves the mask alone */
	rec.ret_set_mask = 0;
	assert_int_equal(dma_set_mask(&E.dev, DMA_BIT_MASK(28)), 0);
	EXPECT_CALL(REC_SET_DMA_MASK, .dev = &E.dev, .mask = DMA_BIT_MASK(28));
	assert_true(*E.dev.dma_mask == before);
	rec.ret_set_mask = -EIO;
	assert_int_equal(dma_set_mask(&E.dev, DMA_BIT_MASK(20)), -EIO);
	EXPECT_CALL(REC_SET_DMA_MASK, .dev = &E.dev, .mask = DMA_BIT_MASK(20));
	assert_true(*E.dev.dma_mask == before);

	/* without set_dma_mask: dma_supported decides, the core sets the mask */
	E.ops.set_dma_mask = NULL;
	rec.ret_supported = 0;
	assert_int_equal(dma_set_mask(&E.dev, DMA_BIT_MASK(20)), -EIO);
	EXPECT_CALL(REC_DMA_SUPPORTED, .dev = &E.dev, .mask = DMA_BIT_MASK(20));
	assert_true(*E.dev.dma_mask == before);
	rec.ret_supported = 1;
	assert_int_equal(dma_set_mask(&E.dev, DMA_BIT_MASK(20)), 0);
	EXPECT_CALL(REC_DMA_SUPPORTED, .dev = &E.dev, .mask = DMA_BIT_MASK(20));
	assert_true(*E.dev.dma_mask == DMA_BIT_MASK(20));
	assert_true(dma_get_mask(&E.dev) == DMA_BIT_MASK(20));

	/* dma_set_coherent_mask asks dma_supported too */
	rec.ret_supported = 0;
	assert_int_equal(dma_set_coherent_mask(&E.dev, DMA_BIT_MASK(16)), -EIO);
	EXPECT_CALL(REC_DMA_SUPPORTED, .dev = &E.dev, .mask = DMA_BIT_MASK(16));
	assert_true(E.dev.coherent_dma_mask == coh);
	rec.ret_supported = 1;
	assert_int_equal(dma_set_coherent_mask(&E.dev, DMA_BIT_MASK(16)), 0);
	EXPECT_CALL(REC_DMA_SUPPORTED, .dev = &E.dev, .mask = DMA_BIT_MASK(16));
	assert_true(E.dev.coherent_dma_mask == DMA_BIT_MASK(16));

	/* both or neither */
	rec.ret_supported = 0;
	assert_int_equal(dma_set_mask_and_coherent(&E.dev, DMA_BIT_MASK(40)), -EIO);
	assert_int_equal(rec.calls[REC_SET_DMA_MASK], 0);
	assert_true(*E.dev.dma_mask == DMA_BIT_MASK(20));
	assert_true(E.dev.coherent_dma_mask == DMA_BIT_MASK(16));
	rec_reset_calls();
	rec.ret_supported = 1;
	assert_int_equal(dma_set_mask_and_coherent(&E.dev, DMA_BIT_MASK(40)), 0);
	assert_true(*E.dev.dma_mask == DMA_BIT_MASK(40));
	assert_true(E.dev.coherent_dma_mask == DMA_BIT_MASK(40));
	assert_int_equal(rec.calls[REC_SET_DMA_MASK], 0);
	assert_true(rec.calls[REC_DMA_SUPPORTED] >= 1);
	rec_reset_calls();

	/* neither op: the zone rule (all of RAM here, at 0x40000000 + 16 MiB) */
	E.ops.dma_supported = NULL;
	assert_int_equal(dma_supported(&E.dev, DMA_BIT_MASK(32)), 1);
	assert_int_equal(dma_supported(&E.dev, DMA_BIT_MASK(30)), 0);
	assert_int_equal(dma_set_mask(&E.dev, DMA_BIT_MASK(30)), -EIO);
	assert_true(*E.dev.dma_mask == DMA_BIT_MASK(40));
	assert_int_equal(dma_set_mask(&E.dev, DMA_BIT_MASK(31)), 0);
	assert_true(*E.dev.dma_mask == DMA_BIT_MASK(31));
	EXPECT_NO_CALL();
	EXPECT_NO_REPORTS();
}

/* Every inline function, by its parenthesised name: same dispatch, same arguments. */
static void test_plain_functions(void **state)
{
	DEFINE_DMA_ATTRS(attrs);
	struct sg_table sgt = { 0 };
	dma_addr_t h = 0;
	void *cpu;

	(void)state;
	dma_set_attr(DMA_ATTR_SKIP_CPU_SYNC, &attrs);

	h = (dma_map_single)(&E.dev, E.buf + 100, 200, DMA_TO_DEVICE);
	assert_true(h == FAKE_MAP_BASE + 100);
	EXPECT_CALL(REC_MAP_PAGE, .dev = &E.dev, .page = E.pg, .offset = 100, .size = 200, .dir = DMA_TO_DEVICE);
	h = (dma_map_single_attrs)(&E.dev, E.buf + PAGE_SIZE + 1, 2, DMA_FROM_DEVICE, &attrs);
	assert_true(h == FAKE_MAP_BASE + 1);
	EXPECT_CALL(REC_MAP_PAGE, .dev = &E.dev, .page = page_n(E.m, page_to_phys(E.pg) + PAGE_SIZE), .offset = 1,
		    .size = 2, .dir = DMA_FROM_DEVICE, .attrs = &attrs, .attr_flags = attrs.flags);
	h = (dma_map_page)(&E.dev, E.pg, 7, 8, DMA_BIDIRECTIONAL);
	assert_true(h == FAKE_MAP_BASE + 7);
	EXPECT_CALL(REC_MAP_PAGE, .dev = &E.dev, .page = E.pg, .offset = 7, .size = 8, .dir = DMA_BIDIRECTIONAL);
	h = (dma_map_page_attrs)(&E.dev, E.pg, 9, 10, DMA_TO_DEVICE, &attrs);
	assert_true(h == FAKE_MAP_BASE + 9);
	EXPECT_CALL(REC_MAP_PAGE, .dev = &E.dev, .page = E.pg, .offset = 9, .size = 10, .dir = DMA_TO_DEVICE,
		    .attrs = &attrs, .attr_flags = attrs.flags);

	(dma_unmap_single)(&E.dev, FAKE_MAP_BASE + 1, 2, DMA_TO_DEVICE);
	EXPECT_CHECKED_CALL(REC_UNMAP_PAGE, .dev = &E.dev, .handle = FAKE_MAP_BASE + 1, .size = 2, .dir = DMA_TO_DEVICE);
	(dma_unmap_single_attrs)(&E.dev, FAKE_MAP_BASE + 3, 4, DMA_FROM_DEVICE, &attrs);
	EXPECT_CHECKED_CALL(REC_UNMAP_PAGE, .dev = &E.dev, .handle = FAKE_MAP_BASE + 3, .size = 4, .dir = DMA_FROM_DEVICE,
		    .attrs = &attrs, .attr_flags = attrs.flags);
	(dma_unmap_page)(&E.dev, FAKE_MAP_BASE + 5, 6, DMA_BIDIRECTIONAL);
	EXPECT_CHECKED_CALL(REC_UNMAP_PAGE, .dev = &E.dev, .handle = FAKE_MAP_BASE + 5, .size = 6, .dir = DMA_BIDIRECTIONAL);
	(dma_unmap_page_attrs)(&E.dev, FAKE_MAP_BASE + 7, 8, DMA_TO_DEVICE, &attrs);
	EXPECT_CHECKED_CALL(REC_UNMAP_PAGE, .dev = &E.dev, .handle = FAKE_MAP_BASE + 7, .size = 8, .dir = DMA_TO_DEVICE,
		    .attrs = &attrs, .attr_flags = attrs.flags);

	assert_int_equal((dma_map_sg)(&E.dev, E.sgl, NSG, DMA_TO_DEVICE), NSG);
	EXPECT_CALL(REC_MAP_SG, .dev = &E.dev, .sg = E.sgl, .nents = NSG, .dir = DMA_TO_DEVICE);
	assert_int_equal((dma_map_sg_attrs)(&E.dev, E.sgl, 2, DMA_FROM_DEVICE, &attrs), 2);
	EXPECT_CALL(REC_MAP_SG, .dev = &E.dev, .sg = E.sgl, .nents = 2, .dir = DMA_FROM_DEVICE, .attrs = &attrs,
		    .attr_flags = attrs.flags);
	(dma_unmap_sg)(&E.dev, E.sgl, NSG, DMA_TO_DEVICE);
	EXPECT_CALL(REC_UNMAP_SG, .dev = &E.dev, .sg = E.sgl, .nents = NSG, .dir = DMA_TO_DEVICE);
	(dma_unmap_sg_attrs)(&E.dev, E.sgl, 2, DMA_FROM_DEVICE, &attrs);
	EXPECT_CALL(REC_UNMAP_SG, .dev = &E.dev, .sg = E.sgl, .nents = 2, .dir = DMA_FROM_DEVICE, .attrs = &attrs,
		    .attr_flags = attrs.flags);
	(dma_sync_sg_for_cpu)(&E.dev, E.sgl, NSG, DMA_FROM_DEVICE);
	EXPECT_CALL(REC_SYNC_SG_FOR_CPU, .dev = &E.dev, .sg = E.sgl, .nents = NSG, .dir = DMA_FROM_DEVICE);
	(dma_sync_sg_for_device)(&E.dev, E.sgl, NSG, DMA_TO_DEVICE);
	EXPECT_CALL(REC_SYNC_SG_FOR_DEVICE, .dev = &E.dev, .sg = E.sgl, .nents = NSG, .dir = DMA_TO_DEVICE);

	(dma_sync_single_for_cpu)(&E.dev, FAKE_MAP_BASE + 8, 24, DMA_FROM_DEVICE);
	EXPECT_CALL(REC_SYNC_SINGLE_FOR_CPU, .dev = &E.dev, .handle = FAKE_MAP_BASE + 8, .size = 24,
		    .dir = DMA_FROM_DEVICE);
	(dma_sync_single_for_device)(&E.dev, FAKE_MAP_BASE + 8, 24, DMA_TO_DEVICE);
	EXPECT_CALL(REC_SYNC_SINGLE_FOR_DEVICE, .dev = &E.dev, .handle = FAKE_MAP_BASE + 8, .size = 24,
		    .dir = DMA_TO_DEVICE);
	(dma_sync_single_range_for_cpu)(&E.dev, FAKE_MAP_BASE + 0x100, 0x40, 0x20, DMA_FROM_DEVICE);
	EXPECT_CALL(REC_SYNC_SINGLE_FOR_CPU, .dev = &E.dev, .handle = FAKE_MAP_BASE + 0x140, .size = 0x20,
		    .dir = DMA_FROM_DEVICE);
	(dma_sync_single_range_for_device)(&E.dev, FAKE_MAP_BASE + 0x100, 0x40, 0x20, DMA_BIDIRECTIONAL);
	EXPECT_CALL(REC_SYNC_SINGLE_FOR_DEVICE, .dev = &E.dev, .handle = FAKE_MAP_BASE + 0x140, .size = 0x20,
		    .dir = DMA_BIDIRECTIONAL);

	cpu = (dma_alloc_attrs)(&E.dev, 10, &h, GFP_KERNEL, &attrs);
	assert_ptr_equal(cpu, fake_cpu);
	assert_true(h == FAKE_ALLOC_HANDLE);
	EXPECT_CALL(REC_ALLOC, .dev = &E.dev, .size = 10, .handle_ptr = &h, .gfp = GFP_KERNEL, .attrs = &attrs,
		    .attr_flags = attrs.flags);
	(dma_free_attrs)(&E.dev, 10, cpu, h, &attrs);
	EXPECT_CALL(REC_FREE, .dev = &E.dev, .size = 10, .cpu_addr = fake_cpu, .handle = FAKE_ALLOC_HANDLE,
		    .attrs = &attrs, .attr_flags = attrs.flags);
	assert_int_equal((dma_mmap_attrs)(&E.dev, E.vma, cpu, h, 10, &attrs), 0);
	EXPECT_CALL(REC_MMAP, .dev = &E.dev, .vma = E.vma, .cpu_addr = fake_cpu, .handle = FAKE_ALLOC_HANDLE,
		    .size = 10, .attrs = &attrs, .attr_flags = attrs.flags);
	cpu = (dma_alloc_coherent)(&E.dev, 11, &h, GFP_ATOMIC);
	assert_ptr_equal(cpu, fake_cpu);
	EXPECT_CALL(REC_ALLOC, .dev = &E.dev, .size = 11, .handle_ptr = &h, .gfp = GFP_ATOMIC);
	assert_int_equal((dma_mmap_coherent)(&E.dev, E.vma, cpu, h, 11), 0);
	EXPECT_CALL(REC_MMAP, .dev = &E.dev, .vma = E.vma, .cpu_addr = fake_cpu, .handle = FAKE_ALLOC_HANDLE,
		    .size = 11);
	(dma_free_coherent)(&E.dev, 11, cpu, h);
	EXPECT_CALL(REC_FREE, .dev = &E.dev, .size = 11, .cpu_addr = fake_cpu, .handle = FAKE_ALLOC_HANDLE);
	assert_int_equal((dma_get_sgtable)(&E.dev, &sgt, cpu, h, 12), 0);
	EXPECT_CALL(REC_GET_SGTABLE, .dev = &E.dev, .sgt = &sgt, .cpu_addr = fake_cpu, .handle = FAKE_ALLOC_HANDLE,
		    .size = 12);
	assert_int_equal((dma_get_sgtable_attrs)(&E.dev, &sgt, cpu, h, 13, &attrs), 0);
	EXPECT_CALL(REC_GET_SGTABLE, .dev = &E.dev, .sgt = &sgt, .cpu_addr = fake_cpu, .handle = FAKE_ALLOC_HANDLE,
		    .size = 13, .attrs = &attrs, .attr_flags = attrs.flags);
	assert_int_not_equal((dma_mapping_error)(&E.dev, FAKE_ERROR_HANDLE), 0);
	EXPECT_CALL(REC_MAPPING_ERROR, .dev = &E.dev, .handle = FAKE_ERROR_HANDLE);

	/* pointers to the functions work too */
	{
		dma_addr_t (*map)(struct device *, void *, size_t, enum dma_data_direction) = &dma_map_single;

		assert_true(map(&E.dev, E.buf + 3, 4, DMA_TO_DEVICE) == FAKE_MAP_BASE + 3);
		EXPECT_CALL(REC_MAP_PAGE, .dev = &E.dev, .page = E.pg, .offset = 3, .size = 4, .dir = DMA_TO_DEVICE);
	}
	EXPECT_NO_REPORTS();

	/* a refused plain call is reported without a location */
	REFUSED(DMAMAP_REPORT_BAD_INPUT, h = (dma_map_single)(&E.dev, E.buf, 0, DMA_TO_DEVICE));
	assert_true(h == DMA_MAPPING_ERROR);
	assert_string_equal(E.cap.last_file, "");
	assert_int_equal(E.cap.last_line, 0);
	REFUSED(DMAMAP_REPORT_BAD_INPUT, (dma_sync_single_range_for_cpu)(&E.dev, FAKE_MAP_BASE, 4, 0, DMA_TO_DEVICE));
	assert_string_equal(E.cap.last_file, "");
	assert_int_equal(E.cap.last_line, 0);
}

static int ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);

	return a >= b && strcmp(s + a - b, suffix) == 0;
}

#define EXPECT_LOCATION(c, l)                                                                               \
	do {                                                                                                \
		if (!ends_with((c)->last_file, "test-dma-mapping.c") || (c)->last_line != (l))              \
			fail_msg("report at \"%s\":%d, expected test-dma-mapping.c:%d (\"%s\")", (c)->last_file, \
				 (c)->last_line, (l), (c)->last);                                           \
	} while (0)

/* Reports name the caller's file:line (each call on the same line as its __LINE__). */
static void test_report_location(void **state)
{
	struct sg_table sgt = { 0 };
	dma_addr_t h = 0;
	int line;

	(void)state;
	line = __LINE__; h = dma_map_single(&E.dev, E.buf, 0, DMA_TO_DEVICE);
	assert_true(h == DMA_MAPPING_ERROR);
	assert_int_equal(E.cap.last_kind, DMAMAP_REPORT_BAD_INPUT);
	assert_string_equal(E.cap.last_device, "coredev");
	EXPECT_LOCATION(&E.cap, line);

	line = __LINE__; h = dma_map_single(&E.dev, &line, 4, DMA_TO_DEVICE);
	assert_int_equal(E.cap.last_kind, DMAMAP_REPORT_BAD_ADDRESS);
	EXPECT_LOCATION(&E.cap, line);
	line = __LINE__; h = dma_map_page(&E.dev, E.pg2, 0, 4, DMA_TO_DEVICE);
	assert_int_equal(E.cap.last_kind, DMAMAP_REPORT_BAD_ADDRESS);
	EXPECT_LOCATION(&E.cap, line);
	line = __LINE__; dma_unmap_single(&E.dev, FAKE_MAP_BASE, 4, DMA_NONE);
	EXPECT_LOCATION(&E.cap, line);
	line = __LINE__; dma_unmap_page(&E.dev, FAKE_ERROR_HANDLE, 4, DMA_TO_DEVICE);
	assert_int_equal(E.cap.last_kind, DMAMAP_REPORT_API_MISUSE);
	EXPECT_LOCATION(&E.cap, line);
	assert_int_equal(rec.total, 1); /* only mapping_error was asked */
	assert_int_equal(rec.calls[REC_MAPPING_ERROR], 1);
	rec_reset_calls();
	line = __LINE__; dma_sync_single_for_cpu(&E.dev, FAKE_MAP_BASE, 0, DMA_TO_DEVICE);
	EXPECT_LOCATION(&E.cap, line);
	line = __LINE__; dma_sync_single_range_for_device(&E.dev, FAKE_MAP_BASE, 4, 4, 7);
	EXPECT_LOCATION(&E.cap, line);
	line = __LINE__; h = (dma_addr_t)dma_map_sg(&E.dev, NULL, 1, DMA_TO_DEVICE);
	EXPECT_LOCATION(&E.cap, line);
	line = __LINE__; dma_unmap_sg(&E.dev, E.sgl, 0, DMA_TO_DEVICE);
	EXPECT_LOCATION(&E.cap, line);
	line = __LINE__; dma_sync_sg_for_device(&E.dev, E.sgl, NSG + 1, DMA_TO_DEVICE);
	EXPECT_LOCATION(&E.cap, line);
	line = __LINE__; (void)dma_alloc_attrs(&E.dev, PAGE_SIZE, NULL, GFP_KERNEL, NULL);
	EXPECT_LOCATION(&E.cap, line);
	line = __LINE__; dma_free_coherent(&E.dev, PAGE_SIZE, NULL, FAKE_ALLOC_HANDLE);
	EXPECT_LOCATION(&E.cap, line);
	line = __LINE__; h = (dma_addr_t)dma_mmap_coherent(&E.dev, NULL, fake_cpu, FAKE_ALLOC_HANDLE, PAGE_SIZE);
	EXPECT_LOCATION(&E.cap, line);
	line = __LINE__; h = (dma_addr_t)dma_get_sgtable(&E.dev, &sgt, fake_cpu, FAKE_ALLOC_HANDLE, 0);
	EXPECT_LOCATION(&E.cap, line);
	E.ops.map_page = NULL;
	line = __LINE__; h = dma_map_single(&E.dev, E.buf, 4, DMA_TO_DEVICE);
	assert_int_equal(E.cap.last_kind, DMAMAP_REPORT_API_MISUSE);
	EXPECT_LOCATION(&E.cap, line);

	/* NULL and uninitialised devices: process-wide, still located */
	line = __LINE__; h = dma_map_single(NULL, E.buf, 4, DMA_TO_DEVICE);
	assert_int_equal(E.gcap.last_kind, DMAMAP_REPORT_BAD_INPUT);
	EXPECT_LOCATION(&E.gcap, line);
	{
		struct device z;

		memset(&z, 0, sizeof(z));
		line = __LINE__; h = dma_mapping_error(&z, FAKE_MAP_BASE);
		assert_int_equal(E.gcap.last_kind, DMAMAP_REPORT_BAD_INPUT);
		EXPECT_LOCATION(&E.gcap, line);
	}
	assert_int_equal(E.cap.reports, 15);
	assert_int_equal(E.gcap.reports, 2);
	EXPECT_NO_CALL();
}

/* NULL and uninitialised devices, for every wrapper. */
static void test_bad_device(void **state)
{
	struct device z;

	(void)state;
	memset(&z, 0, sizeof(z));
	for (int op = 0; op < REC_NR; op++) {
		every_wrapper_refused((enum rec_op)op, NULL, DMAMAP_REPORT_BAD_INPUT);
		every_wrapper_refused((enum rec_op)op, &z, DMAMAP_REPORT_BAD_INPUT);
	}
	/* a released device is uninitialised again */
	dmamap_device_release(&E.dev);
	for (int op = 0; op < REC_NR; op++)
		every_wrapper_refused((enum rec_op)op, &E.dev, DMAMAP_REPORT_BAD_INPUT);
	assert_int_equal(dmamap_device_init(&E.dev, E.m, "coredev"), 0);
	set_dma_ops(&E.dev, &E.ops);
	assert_int_equal(E.cap.reports, 0);
	EXPECT_NO_CALL();

	/* the helpers that are not refused */
	assert_true(dma_get_mask(NULL) == DMA_BIT_MASK(32));
	assert_true(dma_get_mask(&z) == DMA_BIT_MASK(32));
	assert_int_equal(dma_get_max_seg_size(NULL), 65536);
	assert_true(dma_get_seg_boundary(NULL) == 0xffffffffUL);
	assert_int_equal(dma_set_max_seg_size(NULL, 4096), -EIO);
	assert_int_equal(dma_set_seg_boundary(NULL, 0xffff), -EIO);
}

/* An ops table lacking an operation: API_MISUSE, for every wrapper that needs it. */
static void test_missing_op(void **state)
{
	static const size_t member[] = {
		[REC_ALLOC] = offsetof(struct dma_map_ops, alloc),
		[REC_FREE] = offsetof(struct dma_map_ops, free),
		[REC_MMAP] = offsetof(struct dma_map_ops, mmap),
		[REC_GET_SGTABLE] = offsetof(struct dma_map_ops, get_sgtable),
		[REC_MAP_PAGE] = offsetof(struct dma_map_ops, map_page),
		[REC_UNMAP_PAGE] = offsetof(struct dma_map_ops, unmap_page),
		[REC_MAP_SG] = offsetof(struct dma_map_ops, map_sg),
		[REC_UNMAP_SG] = offsetof(struct dma_map_ops, unmap_sg),
		[REC_SYNC_SINGLE_FOR_CPU] = offsetof(struct dma_map_ops, sync_single_for_cpu),
		[REC_SYNC_SINGLE_FOR_DEVICE] = offsetof(struct dma_map_ops, sync_single_for_device),
		[REC_SYNC_SG_FOR_CPU] = offsetof(struct dma_map_ops, sync_sg_for_cpu),
		[REC_SYNC_SG_FOR_DEVICE] = offsetof(struct dma_map_ops, sync_sg_for_device),
	};
	static struct dma_map_ops empty; /* no operation at all */

	(void)state;
	for (int op = 0; op <= REC_SYNC_SG_FOR_DEVICE; op++) {
		struct dma_map_ops ops = rec_ops;

		memset((char *)&ops + member[op], 0, sizeof(void (*)(void)));
		set_dma_ops(&E.dev, &ops);
		every_wrapper_refused((enum rec_op)op, &E.dev, DMAMAP_REPORT_API_MISUSE);
		set_dma_ops(&E.dev, &empty);
		every_wrapper_refused((enum rec_op)op, &E.dev, DMAMAP_REPORT_API_MISUSE);
	}
	/* the optional members: their absence is no misuse */
	set_dma_ops(&E.dev, &empty);
	assert_int_not_equal(dma_mapping_error(&E.dev, DMA_MAPPING_ERROR), 0);
	assert_int_equal(dma_mapping_error(&E.dev, FAKE_MAP_BASE), 0);
	assert_int_equal(dma_supported(&E.dev, DMA_BIT_MASK(32)), 1);
	assert_int_equal(dma_set_mask(&E.dev, DMA_BIT_MASK(32)), 0);
	EXPECT_NO_CALL();
	EXPECT_NO_REPORTS();
	set_dma_ops(&E.dev, &E.ops);
}

/*
 * Bad arguments on a live device: one report each, no op reached, nothing
 * changed. Run once with the recording ops, once with arm_dma_ops.
 */
static void bad_arguments(void)
{
	struct dmamap_machine_config cfg;
	DEFINE_DMA_ATTRS(attrs);
	struct device *d = &E.dev;
	char stack_buf[64];
	u8 *last = page_address(E.last);
	u8 *first;
	struct scatterlist bad[NSG];
	struct sg_table sgt = { 0 };
	struct vm_area_struct fake_vma;
	dma_addr_t h = FAKE_MAP_BASE;
	const enum dma_data_direction bad_dirs[] = { DMA_NONE, (enum dma_data_direction)7,
						      (enum dma_data_direction)-1 };
	const enum dmamap_report_kind BI = DMAMAP_REPORT_BAD_INPUT, BA = DMAMAP_REPORT_BAD_ADDRESS,
				      AM = DMAMAP_REPORT_API_MISUSE;

	dmamap_machine_get_config(E.m, &cfg);
	first = page_address(page_n(E.m, cfg.ram_base));
	dma_set_attr(DMA_ATTR_SKIP_CPU_SYNC, &attrs);
	memset(stack_buf, 0, sizeof(stack_buf));

	/* zero size */
	REFUSED(BI, assert_true(dma_map_single(d, E.buf, 0, DMA_TO_DEVICE) == DMA_MAPPING_ERROR));
	REFUSED(BI, assert_true(dma_map_single_attrs(d, E.buf, 0, DMA_TO_DEVICE, &attrs) == DMA_MAPPING_ERROR));
	REFUSED(BI, assert_true(dma_map_page(d, E.pg, 0, 0, DMA_TO_DEVICE) == DMA_MAPPING_ERROR));
	REFUSED(BI, assert_true(dma_map_page_attrs(d, E.pg, 0, 0, DMA_TO_DEVICE, &attrs) == DMA_MAPPING_ERROR));
	REFUSED(BI, dma_unmap_single(d, h, 0, DMA_TO_DEVICE));
	REFUSED(BI, dma_unmap_page_attrs(d, h, 0, DMA_TO_DEVICE, &attrs));
	REFUSED(BI, dma_sync_single_for_cpu(d, h, 0, DMA_FROM_DEVICE));
	REFUSED(BI, dma_sync_single_for_device(d, h, 0, DMA_TO_DEVICE));
	REFUSED(BI, dma_sync_single_range_for_cpu(d, h, 8, 0, DMA_FROM_DEVICE));
	REFUSED(BI, dma_sync_single_range_for_device(d, h, 8, 0, DMA_TO_DEVICE));
	h = 0;
	REFUSED(BI, assert_null(dma_alloc_attrs(d, 0, &h, GFP_KERNEL, NULL)));
	assert_true(h == DMA_MAPPING_ERROR);
	REFUSED(BI, assert_null(dma_alloc_coherent(d, 0, &h, GFP_KERNEL)));
	REFUSED(BI, assert_null(dma_alloc_writecombine(d, 0, &h, GFP_KERNEL)));
	REFUSED(BI, dma_free_attrs(d, 0, fake_cpu, FAKE_ALLOC_HANDLE, NULL));
	REFUSED(BI, dma_free_writecombine(d, 0, fake_cpu, FAKE_ALLOC_HANDLE));
	REFUSED(BI, assert_int_equal(dma_mmap_attrs(d, E.vma, fake_cpu, FAKE_ALLOC_HANDLE, 0, NULL), -EINVAL));
	REFUSED(BI, assert_int_equal(dma_get_sgtable(d, &sgt, fake_cpu, FAKE_ALLOC_HANDLE, 0), -EINVAL));
	h = FAKE_MAP_BASE;

	/* invalid directions */
	for (size_t i = 0; i < sizeof(bad_dirs) / sizeof(bad_dirs[0]); i++) {
		enum dma_data_direction dir = bad_dirs[i];

		REFUSED(BI, assert_true(dma_map_single(d, E.buf, 64, dir) == DMA_MAPPING_ERROR));
		REFUSED(BI, assert_true(dma_map_single_attrs(d, E.buf, 64, dir, &attrs) == DMA_MAPPING_ERROR));
		REFUSED(BI, assert_true(dma_map_page(d, E.pg, 0, 64, dir) == DMA_MAPPING_ERROR));
		REFUSED(BI, assert_true(dma_map_page_attrs(d, E.pg, 0, 64, dir, &attrs) == DMA_MAPPING_ERROR));
		REFUSED(BI, dma_unmap_single(d, h, 64, dir));
		REFUSED(BI, dma_unmap_page(d, h, 64, dir));
		REFUSED(BI, assert_int_equal(dma_map_sg(d, E.sgl, NSG, dir), 0));
		REFUSED(BI, dma_unmap_sg(d, E.sgl, NSG, dir));
		REFUSED(BI, dma_sync_single_for_cpu(d, h, 64, dir));
		REFUSED(BI, dma_sync_single_for_device(d, h, 64, dir));
		REFUSED(BI, dma_sync_single_range_for_cpu(d, h, 8, 8, dir));
		REFUSED(BI, dma_sync_sg_for_cpu(d, E.sgl, NSG, dir));
		REFUSED(BI, dma_sync_sg_for_device(d, E.sgl, NSG, dir));
	}

	/* pointers outside the device's machine's linear map */
	REFUSED(BA, assert_true(dma_map_single(d, stack_buf, sizeof(stack_buf), DMA_TO_DEVICE) == DMA_MAPPING_ERROR));
	REFUSED(BA, assert_true(dma_map_single_attrs(d, stack_buf, 1, DMA_FROM_DEVICE, &attrs) == DMA_MAPPING_ERROR));
	REFUSED(BA, assert_true(dma_map_single(d, fake_cpu, 16, DMA_TO_DEVICE) == DMA_MAPPING_ERROR));
	REFUSED(BA, assert_true(dma_map_single(d, NULL, 16, DMA_TO_DEVICE) == DMA_MAPPING_ERROR));
	REFUSED(BA, assert_true(dma_map_single(d, E.buf2, 16, DMA_TO_DEVICE) == DMA_MAPPING_ERROR));
	REFUSED(BA, assert_true(dma_map_single(d, E.buf2 + 100, 1, DMA_BIDIRECTIONAL) == DMA_MAPPING_ERROR));
	REFUSED(BA, assert_true(dma_map_single(d, first - 1, 16, DMA_TO_DEVICE) == DMA_MAPPING_ERROR));
	/* ranges running past the end of RAM */
	REFUSED(BA, assert_true(dma_map_single(d, last + 100, PAGE_SIZE, DMA_TO_DEVICE) == DMA_MAPPING_ERROR));
	REFUSED(BA, assert_true(dma_map_single(d, last, PAGE_SIZE + 1, DMA_TO_DEVICE) == DMA_MAPPING_ERROR));
	REFUSED(BA, assert_true(dma_map_single(d, E.buf + PAGE_SIZE, SIZE_MAX, DMA_TO_DEVICE) == DMA_MAPPING_ERROR));
	REFUSED(BA, assert_true(dma_map_single(d, E.buf, (size_t)cfg.ram_size, DMA_TO_DEVICE) == DMA_MAPPING_ERROR));
	REFUSED(BA, assert_true(dma_map_page(d, E.last, 0, PAGE_SIZE + 1, DMA_TO_DEVICE) == DMA_MAPPING_ERROR));
	REFUSED(BA, assert_true(dma_map_page(d, E.last, PAGE_SIZE, 1, DMA_TO_DEVICE) == DMA_MAPPING_ERROR));
	REFUSED(BA, assert_true(dma_map_page(d, E.pg, ULONG_MAX - 10, 100, DMA_TO_DEVICE) == DMA_MAPPING_ERROR));
	REFUSED(BA, assert_true(dma_map_page(d, E.pg, 0, SIZE_MAX, DMA_TO_DEVICE) == DMA_MAPPING_ERROR));
	/* pages of another machine, or none */
	REFUSED(BA, assert_true(dma_map_page(d, E.pg2, 0, 16, DMA_TO_DEVICE) == DMA_MAPPING_ERROR));
	REFUSED(BA, assert_true(dma_map_page_attrs(d, E.pg2, 8, 8, DMA_FROM_DEVICE, &attrs) == DMA_MAPPING_ERROR));
	REFUSED(BA, assert_true(dma_map_page(d, NULL, 0, 16, DMA_TO_DEVICE) == DMA_MAPPING_ERROR));

	/* scatterlists: NULL, no entries, more entries than the list */
	REFUSED(BI, assert_int_equal(dma_map_sg(d, NULL, 1, DMA_TO_DEVICE), 0));
	REFUSED(BI, assert_int_equal(dma_map_sg(d, E.sgl, 0, DMA_TO_DEVICE), 0));
	REFUSED(BI, assert_int_equal(dma_map_sg(d, E.sgl, -1, DMA_TO_DEVICE), 0));
	REFUSED(BI, assert_int_equal(dma_map_sg(d, E.sgl, NSG + 1, DMA_TO_DEVICE), 0));
	REFUSED(BI, assert_int_equal(dma_map_sg_attrs(d, E.sgl, INT_MAX, DMA_TO_DEVICE, &attrs), 0));
	REFUSED(BI, dma_unmap_sg(d, NULL, 1, DMA_TO_DEVICE));
	REFUSED(BI, dma_unmap_sg(d, E.sgl, 0, DMA_TO_DEVICE));
	REFUSED(BI, dma_unmap_sg_attrs(d, E.sgl, NSG + 1, DMA_TO_DEVICE, &attrs));
	REFUSED(BI, dma_sync_sg_for_cpu(d, NULL, 1, DMA_FROM_DEVICE));
	REFUSED(BI, dma_sync_sg_for_cpu(d, E.sgl, 0, DMA_FROM_DEVICE));
	REFUSED(BI, dma_sync_sg_for_cpu(d, E.sgl, NSG + 1, DMA_FROM_DEVICE));
	REFUSED(BI, dma_sync_sg_for_device(d, NULL, 1, DMA_TO_DEVICE));
	REFUSED(BI, dma_sync_sg_for_device(d, E.sgl, -5, DMA_TO_DEVICE));
	REFUSED(BI, dma_sync_sg_for_device(d, E.sgl, NSG + 1, DMA_TO_DEVICE));
	/* bad entries: empty, another machine's page, no page, past the end of RAM */
	memcpy(bad, E.sgl, sizeof(bad));
	bad[1].length = 0;
	REFUSED(BI, assert_int_equal(dma_map_sg(d, bad, NSG, DMA_TO_DEVICE), 0));
	REFUSED(BI, dma_sync_sg_for_device(d, bad, NSG, DMA_TO_DEVICE));
	memcpy(bad, E.sgl, sizeof(bad));
	sg_set_page(&bad[2], E.pg2, 16, 0);
	REFUSED(BA, assert_int_equal(dma_map_sg(d, bad, NSG, DMA_TO_DEVICE), 0));
	REFUSED(BA, dma_unmap_sg(d, bad, NSG, DMA_TO_DEVICE));
	REFUSED(BA, dma_sync_sg_for_cpu(d, bad, NSG, DMA_FROM_DEVICE));
	memcpy(bad, E.sgl, sizeof(bad));
	sg_set_page(&bad[0], NULL, 16, 0);
	REFUSED(BA, assert_int_equal(dma_map_sg(d, bad, NSG, DMA_TO_DEVICE), 0));
	memcpy(bad, E.sgl, sizeof(bad));
	sg_set_page(&bad[2], E.last, PAGE_SIZE, 1);
	REFUSED(BA, assert_int_equal(dma_map_sg(d, bad, NSG, DMA_TO_DEVICE), 0));
	REFUSED(BA, dma_sync_sg_for_device(d, bad, NSG, DMA_TO_DEVICE));
	/* the bad entry lies beyond nents: not looked at */
	rec_reset_calls();
	assert_int_equal(dma_map_sg(d, bad, 2, DMA_TO_DEVICE), 2);
	dma_unmap_sg(d, bad, 2, DMA_TO_DEVICE);
	rec_reset_calls();

	/* coherent: NULL handle, NULL cpu_addr, a vma not from dmamap_vma_create */
	REFUSED(BI, assert_null(dma_alloc_attrs(d, PAGE_SIZE, NULL, GFP_KERNEL, NULL)));
	REFUSED(BI, assert_null(dma_alloc_coherent(d, PAGE_SIZE, NULL, GFP_KERNEL)));
	REFUSED(BI, assert_null(dma_alloc_noncoherent(d, PAGE_SIZE, NULL, GFP_KERNEL)));
	REFUSED(BI, dma_free_attrs(d, PAGE_SIZE, NULL, FAKE_ALLOC_HANDLE, NULL));
	REFUSED(BI, dma_free_coherent(d, PAGE_SIZE, NULL, FAKE_ALLOC_HANDLE));
	REFUSED(BI, dma_free_noncoherent(d, PAGE_SIZE, NULL, FAKE_ALLOC_HANDLE));
	memset(&fake_vma, 0, sizeof(fake_vma));
	fake_vma.vm_start = (unsigned long)(uintptr_t)stack_buf;
	fake_vma.vm_end = fake_vma.vm_start + PAGE_SIZE;
	fake_vma.vm_page_prot = PAGE_SHARED;
	REFUSED(BI, assert_int_equal(dma_mmap_attrs(d, &fake_vma, fake_cpu, FAKE_ALLOC_HANDLE, PAGE_SIZE, NULL), -EINVAL));
	REFUSED(BI, assert_int_equal(dma_mmap_coherent(d, &fake_vma, fake_cpu, FAKE_ALLOC_HANDLE, PAGE_SIZE), -EINVAL));
	REFUSED(BI, assert_int_equal(dma_mmap_writecombine(d, NULL, fake_cpu, FAKE_ALLOC_HANDLE, PAGE_SIZE), -EINVAL));
	REFUSED(BI, assert_int_equal(dma_mmap_attrs(d, E.vma, NULL, FAKE_ALLOC_HANDLE, PAGE_SIZE, NULL), -EINVAL));
	REFUSED(BI, assert_int_equal(dma_get_sgtable(d, NULL, fake_cpu, FAKE_ALLOC_HANDLE, PAGE_SIZE), -EINVAL));
	REFUSED(BI, assert_int_equal(dma_get_sgtable_attrs(d, &sgt, NULL, FAKE_ALLOC_HANDLE, PAGE_SIZE, NULL), -EINVAL));

	/* unmap of a failed mapping (no mapping_error op here) */
	REFUSED(AM, dma_unmap_single(d, DMA_MAPPING_ERROR, 64, DMA_TO_DEVICE));
	REFUSED(AM, dma_unmap_single_attrs(d, DMA_MAPPING_ERROR, 64, DMA_TO_DEVICE, &attrs));
	REFUSED(AM, dma_unmap_page(d, DMA_MAPPING_ERROR, 64, DMA_FROM_DEVICE));
	REFUSED(AM, dma_unmap_page_attrs(d, DMA_MAPPING_ERROR, 64, DMA_FROM_DEVICE, NULL));

	/* mask setters on a device without a dma_mask */
	{
		u64 *saved = d->dma_mask;

		d->dma_mask = NULL;
		REFUSED(BI, assert_int_equal(dma_set_mask(d, DMA_BIT_MASK(32)), -EIO));
		d->dma_mask = saved;
	}
	assert_int_equal(E.cap.last_kind, BI);
}

static void test_bad_arguments_fake_ops(void **state)
{
	(void)state;
	E.ops.mapping_error = NULL; /* so that DMA_MAPPING_ERROR is the failed handle */
	bad_arguments();
	EXPECT_NO_CALL();
}

static void test_bad_arguments_arm_ops(void **state)
{
	(void)state;
	set_dma_ops(&E.dev, NULL);
	assert_ptr_equal(get_dma_ops(&E.dev), &arm_dma_ops);
	bad_arguments();
}

/* The default ops really are reached once set_dma_ops(dev, NULL) restored them. */
static void test_default_ops_reached(void **state)
{
	dma_addr_t h;

	(void)state;
	set_dma_ops(&E.dev, NULL);
	fill_pattern(E.buf, 256, 3);
	h = dma_map_single(&E.dev, E.buf + 16, 256, DMA_TO_DEVICE);
	assert_false(dma_mapping_error(&E.dev, h));
	assert_true(h == page_to_phys(E.pg) + 16);
	dma_unmap_single(&E.dev, h, 256, DMA_TO_DEVICE);
	h = dma_map_page(&E.dev, E.pg, PAGE_SIZE + 4, 8, DMA_FROM_DEVICE);
	assert_true(h == page_to_phys(E.pg) + PAGE_SIZE + 4);
	dma_unmap_page(&E.dev, h, 8, DMA_FROM_DEVICE);
	assert_int_equal(dma_map_sg(&E.dev, E.sgl, NSG, DMA_BIDIRECTIONAL), NSG);
	assert_true(sg_dma_address(&E.sgl[1]) == page_to_phys(E.pg) + PAGE_SIZE + 16);
	dma_unmap_sg(&E.dev, E.sgl, NSG, DMA_BIDIRECTIONAL);
	EXPECT_NO_REPORTS();
	EXPECT_NO_CALL();
}

/* -------------------------------------------------- masks on arm_dma_ops */

static void tweak_zone8(struct dmamap_machine_config *cfg)
{
	cfg->ram_base = 0;
	cfg->ram_size = 16u << 20;
	cfg->dma_zone_limit = 8u << 20;
}

static void tweak_base0(struct dmamap_machine_config *cfg)
{
	cfg->ram_base = 0;
	cfg->ram_size = 16u << 20;
	cfg->dma_zone_limit = 0;
}

static void tweak_hizone(struct dmamap_machine_config *cfg)
{
	cfg->dma_zone_limit = cfg->ram_base + (8u << 20);
}

struct mask_env {
	struct dmamap_machine *m;
	struct device dev;
	struct capture cap;
};

static void mask_env_init(struct mask_env *e, void (*tweak)(struct dmamap_machine_config *))
{
	memset(e, 0, sizeof(*e)); /* dmamap_device_init() looks for its magic first */
	e->m = test_machine(16, tweak);
	capture_start(&e->cap, e->m);
	assert_int_equal(dmamap_device_init(&e->dev, e->m, "maskdev"), 0);
	assert_ptr_equal(get_dma_ops(&e->dev), &arm_dma_ops);
	assert_true(*e->dev.dma_mask == DMA_BIT_MASK(32));
	assert_true(e->dev.coherent_dma_mask == DMA_BIT_MASK(32));
}

static void mask_env_fini(struct mask_env *e)
{
	dmamap_device_release(&e->dev);
	capture_stop(e->m);
	test_machine_destroy(e->m);
}

static void test_masks_zone_limit(void **state)
{
	struct mask_env e;

	(void)state;
	mask_env_init(&e, tweak_zone8);
	assert_int_equal(dma_supported(&e.dev, DMA_BIT_MASK(23)), 1); /* covers [0, 8 MiB) */
	assert_int_equal(dma_supported(&e.dev, DMA_BIT_MASK(22)), 0);
	assert_int_equal(dma_supported(&e.dev, DMA_BIT_MASK(23) - 1), 0);
	assert_int_equal(dma_supported(&e.dev, DMA_BIT_MASK(24)), 1);
	assert_int_equal(dma_supported(&e.dev, DMA_BIT_MASK(64)), 1);
	assert_int_equal(dma_supported(&e.dev, 0), 0);

	/* dma_set_mask */
	assert_int_equal(dma_set_mask(&e.dev, DMA_BIT_MASK(22)), -EIO);
	assert_true(*e.dev.dma_mask == DMA_BIT_MASK(32));
	assert_int_equal(dma_set_mask(&e.dev, DMA_BIT_MASK(23)), 0);
	assert_true(*e.dev.dma_mask == DMA_BIT_MASK(23));
	assert_true(dma_get_mask(&e.dev) == DMA_BIT_MASK(23));
	assert_true(e.dev.coherent_dma_mask == DMA_BIT_MASK(32));

	/* dma_set_coherent_mask */
	assert_int_equal(dma_set_coherent_mask(&e.dev, DMA_BIT_MASK(22)), -EIO);
	assert_true(e.dev.coherent_dma_mask == DMA_BIT_MASK(32));
	assert_int_equal(dma_set_coherent_mask(&e.dev, DMA_BIT_MASK(23)), 0);
	assert_true(e.dev.coherent_dma_mask == DMA_BIT_MASK(23));
	assert_true(*e.dev.dma_mask == DMA_BIT_MASK(23));

	/* dma_set_mask_and_coherent: both or neither */
	assert_int_equal(dma_set_mask_and_coherent(&e.dev, DMA_BIT_MASK(20)), -EIO);
	assert_true(*e.dev.dma_mask == DMA_BIT_MASK(23));
	assert_true(e.dev.coherent_dma_mask == DMA_BIT_MASK(23));
	assert_int_equal(dma_set_mask_and_coherent(&e.dev, DMA_BIT_MASK(24)), 0);
	assert_true(*e.dev.dma_mask == DMA_BIT_MASK(24));
	assert_true(e.dev.coherent_dma_mask == DMA_BIT_MASK(24));
	assert_int_equal(dma_set_mask_and_coherent(&e.dev, DMA_BIT_MASK(64)), 0);
	assert_true(*e.dev.dma_mask == DMA_BIT_MASK(64));
	assert_true(e.dev.coherent_dma_mask == DMA_BIT_MASK(64));

	/* a refused mask is no report: the driver falls back (dmabounce) */
	assert_int_equal(e.cap.reports, 0);
	mask_env_fini(&e);
}

static void test_masks_no_limit(void **state)
{
	struct mask_env e;

	(void)state;
	/* RAM [0, 16 MiB): the mask must cover all of it */
	mask_env_init(&e, tweak_base0);
	assert_int_equal(dma_supported(&e.dev, DMA_BIT_MASK(23)), 0);
	assert_int_equal(dma_supported(&e.dev, DMA_BIT_MASK(24) - 1), 0);
	assert_int_equal(dma_supported(&e.dev, DMA_BIT_MASK(24)), 1);
	assert_int_equal(dma_set_mask(&e.dev, DMA_BIT_MASK(23)), -EIO);
	assert_true(*e.dev.dma_mask == DMA_BIT_MASK(32));
	assert_int_equal(dma_set_coherent_mask(&e.dev, DMA_BIT_MASK(23)), -EIO);
	assert_true(e.dev.coherent_dma_mask == DMA_BIT_MASK(32));
	assert_int_equal(dma_set_mask_and_coherent(&e.dev, DMA_BIT_MASK(24)), 0);
	assert_true(*e.dev.dma_mask == DMA_BIT_MASK(24));
	assert_true(e.dev.coherent_dma_mask == DMA_BIT_MASK(24));
	assert_int_equal(e.cap.reports, 0);
	mask_env_fini(&e);

	/* RAM [1 GiB, 1 GiB + 16 MiB): the 30-bit mask does not reach it */
	mask_env_init(&e, NULL);
	assert_int_equal(dma_supported(&e.dev, DMA_BIT_MASK(30)), 0);
	assert_int_equal(dma_supported(&e.dev, 0x40fffffeULL), 0);
	assert_int_equal(dma_supported(&e.dev, 0x40ffffffULL), 1);
	assert_int_equal(dma_supported(&e.dev, DMA_BIT_MASK(31)), 1);
	assert_int_equal(dma_set_mask_and_coherent(&e.dev, DMA_BIT_MASK(30)), -EIO);
	assert_true(*e.dev.dma_mask == DMA_BIT_MASK(32));
	assert_true(e.dev.coherent_dma_mask == DMA_BIT_MASK(32));
	assert_int_equal(e.cap.reports, 0);
	mask_env_fini(&e);
}

static void test_masks_pfn_offset(void **state)
{
	struct mask_env e;

	(void)state;
	/* RAM at 1 GiB seen at bus 0: 24 bits cover it */
	mask_env_init(&e, NULL);
	e.dev.dma_pfn_offset = 0x40000000UL >> PAGE_SHIFT;
	assert_int_equal(dma_supported(&e.dev, DMA_BIT_MASK(24)), 1);
	assert_int_equal(dma_supported(&e.dev, DMA_BIT_MASK(23)), 0);
	assert_int_equal(dma_set_mask(&e.dev, DMA_BIT_MASK(23)), -EIO);
	assert_int_equal(dma_set_mask(&e.dev, DMA_BIT_MASK(24)), 0);
	assert_true(*e.dev.dma_mask == DMA_BIT_MASK(24));
	/* the streaming path agrees: bus = phys - offset */
	{
		struct page *pg = dmamap_alloc_pages(e.m, GFP_KERNEL, 0);
		dma_addr_t h;

		assert_non_null(pg);
		h = dma_map_page(&e.dev, pg, 0, 64, DMA_TO_DEVICE);
		assert_false(dma_mapping_error(&e.dev, h));
		assert_true(h == page_to_phys(pg) - 0x40000000ULL);
		dma_unmap_page(&e.dev, h, 64, DMA_TO_DEVICE);
		dmamap_free_pages(pg, 0);
	}
	/* half the offset: the bus view of RAM is [512 MiB, 512 MiB + 16 MiB) */
	e.dev.dma_pfn_offset = 0x20000000UL >> PAGE_SHIFT;
	assert_int_equal(dma_supported(&e.dev, DMA_BIT_MASK(30)), 1);
	assert_int_equal(dma_supported(&e.dev, 0x20fffffeULL), 0);
	assert_int_equal(dma_supported(&e.dev, 0x20ffffffULL), 1);
	assert_int_equal(dma_supported(&e.dev, DMA_BIT_MASK(29)), 0);
	e.dev.dma_pfn_offset = 0;
	assert_int_equal(dma_supported(&e.dev, DMA_BIT_MASK(30)), 0);
	assert_int_equal(e.cap.reports, 0);
	mask_env_fini(&e);

	/* a zone limit is an absolute physical address, seen through the offset too */
	mask_env_init(&e, tweak_hizone);
	assert_int_equal(dma_supported(&e.dev, DMA_BIT_MASK(30)), 0);
	assert_int_equal(dma_supported(&e.dev, 0x407fffffULL), 1);
	e.dev.dma_pfn_offset = 0x40000000UL >> PAGE_SHIFT;
	assert_int_equal(dma_supported(&e.dev, DMA_BIT_MASK(23)), 1);
	assert_int_equal(dma_supported(&e.dev, DMA_BIT_MASK(22)), 0);
	assert_int_equal(e.cap.reports, 0);
	mask_env_fini(&e);
}

static void test_seg_params(void **state)
{
	struct device_dma_parameters *parms = E.dev.dma_parms;

	(void)state;
	assert_non_null(parms);
	assert_int_equal(dma_get_max_seg_size(&E.dev), 65536);
	assert_true(dma_get_seg_boundary(&E.dev) == 0xffffffffUL);

	assert_int_equal(dma_set_max_seg_size(&E.dev, 4096), 0);
	assert_int_equal(dma_get_max_seg_size(&E.dev), 4096);
	assert_int_equal(dma_set_max_seg_size(&E.dev, 0), -EINVAL);
	assert_int_equal(dma_get_max_seg_size(&E.dev), 4096);
	assert_int_equal(dma_set_max_seg_size(&E.dev, UINT_MAX), 0);
	assert_int_equal(dma_get_max_seg_size(&E.dev), UINT_MAX);

	assert_int_equal(dma_set_seg_boundary(&E.dev, 0xffff), 0);
	assert_true(dma_get_seg_boundary(&E.dev) == 0xffffUL);

	/* no dma_parms: the defaults, and the setters refuse with -EIO */
	E.dev.dma_parms = NULL;
	assert_int_equal(dma_get_max_seg_size(&E.dev), 65536);
	assert_true(dma_get_seg_boundary(&E.dev) == 0xffffffffUL);
	assert_int_equal(dma_set_max_seg_size(&E.dev, 8192), -EIO);
	assert_int_equal(dma_set_max_seg_size(&E.dev, 0), -EIO);
	assert_int_equal(dma_set_seg_boundary(&E.dev, 0xfff), -EIO);
	E.dev.dma_parms = parms;
	assert_int_equal(dma_get_max_seg_size(&E.dev), UINT_MAX);
	assert_true(dma_get_seg_boundary(&E.dev) == 0xffffUL);
	EXPECT_NO_CALL();
	EXPECT_NO_REPORTS();
}

static void test_dma_attrs(void **state)
{
	static const enum dma_attr all[] = {
		DMA_ATTR_WRITE_BARRIER,     DMA_ATTR_WEAK_ORDERING, DMA_ATTR_WRITE_COMBINE, DMA_ATTR_NON_CONSISTENT,
		DMA_ATTR_NO_KERNEL_MAPPING, DMA_ATTR_SKIP_CPU_SYNC, DMA_ATTR_FORCE_CONTIGUOUS,
	};
	const size_t n = sizeof(all) / sizeof(all[0]);
	DEFINE_DMA_ATTRS(attrs);

	(void)state;
	assert_int_equal(n, DMA_ATTR_MAX);
	assert_true(attrs.flags == 0);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(dma_get_attr(all[i], &attrs), 0);
		assert_int_equal(dma_get_attr(all[i], NULL), 0);
	}

	/* each alone */
	for (size_t i = 0; i < n; i++) {
		DEFINE_DMA_ATTRS(one);

		dma_set_attr(all[i], &one);
		for (size_t j = 0; j < n; j++)
			assert_int_equal(dma_get_attr(all[j], &one), i == j);
		dma_set_attr(all[i], &one); /* idempotent */
		for (size_t j = 0; j < n; j++)
			assert_int_equal(dma_get_attr(all[j], &one), i == j);
		init_dma_attrs(&one);
		for (size_t j = 0; j < n; j++)
			assert_int_equal(dma_get_attr(all[j], &one), 0);
	}

	/* accumulating */
	for (size_t i = 0; i < n; i++) {
		dma_set_attr(all[i], &attrs);
		for (size_t j = 0; j < n; j++)
			assert_int_equal(dma_get_attr(all[j], &attrs), j <= i);
	}

	/* out of range: ignored by set, 0 from get */
	{
		unsigned long before = attrs.flags;

		dma_set_attr(DMA_ATTR_MAX, &attrs);
		dma_set_attr((enum dma_attr)(DMA_ATTR_MAX + 5), &attrs);
		dma_set_attr((enum dma_attr)-1, &attrs);
		dma_set_attr((enum dma_attr)200, &attrs);
		assert_true(attrs.flags == before);
		assert_int_equal(dma_get_attr(DMA_ATTR_MAX, &attrs), 0);
		assert_int_equal(dma_get_attr((enum dma_attr)-1, &attrs), 0);
		assert_int_equal(dma_get_attr((enum dma_attr)200, &attrs), 0);
		attrs.flags = ~0UL;
		assert_int_equal(dma_get_attr(DMA_ATTR_MAX, &attrs), 0);
		assert_int_equal(dma_get_attr((enum dma_attr)(sizeof(long) * 8 - 1), &attrs), 0);
	}

	/* NULL set: ignored */
	dma_set_attr(DMA_ATTR_WRITE_COMBINE, NULL);

	init_dma_attrs(&attrs);
	assert_true(attrs.flags == 0);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(dma_get_attr(all[i], &attrs), 0);
}

/* dma_can_mmap() asks the ops set for an mmap operation; dma_need_unmap() is true on any ops set but the direct one. */
static void test_can_mmap_and_need_unmap(void **state)
{
	(void)state;
	assert_true(dma_can_mmap(&E.dev));
	assert_true(dma_need_unmap(&E.dev));
	E.ops.mmap = NULL;
	assert_false(dma_can_mmap(&E.dev));
	E.dev.dma_coherent = true;
	assert_true(dma_need_unmap(&E.dev)); /* not the direct ops, even coherent with the checker off */
	E.dev.dma_coherent = false;
	assert_int_equal(rec.total, 0);
	assert_int_equal(E.cap.reports, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_get_set_dma_ops, setup, teardown),
		cmocka_unit_test_setup_teardown(test_can_mmap_and_need_unmap, setup, teardown),
		cmocka_unit_test_setup_teardown(test_map_single, setup, teardown),
		cmocka_unit_test_setup_teardown(test_map_page, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unmap, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sync_single, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sg, setup, teardown),
		cmocka_unit_test_setup_teardown(test_alloc_free_mmap, setup, teardown),
		cmocka_unit_test_setup_teardown(test_free_with_other_attrs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_get_sgtable, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mapping_error, setup, teardown),
		cmocka_unit_test_setup_teardown(test_supported_and_set_mask_dispatch, setup, teardown),
		cmocka_unit_test_setup_teardown(test_plain_functions, setup, teardown),
		cmocka_unit_test_setup_teardown(test_report_location, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_device, setup, teardown),
		cmocka_unit_test_setup_teardown(test_missing_op, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_arguments_fake_ops, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_arguments_arm_ops, setup, teardown),
		cmocka_unit_test_setup_teardown(test_default_ops_reached, setup, teardown),
		cmocka_unit_test_setup_teardown(test_masks_zone_limit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_masks_no_limit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_masks_pfn_offset, setup, teardown),
		cmocka_unit_test_setup_teardown(test_seg_params, setup, teardown),
		cmocka_unit_test(test_dma_attrs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
