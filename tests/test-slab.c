/* SPDX-License-Identifier: MIT */
/* kmalloc over simulated RAM (<dmamap/slab.h>): classes, alignment, misuse, leaks, faults. */
#include <pthread.h>

#include "common.h"
#include "internal.h"

#if DMAMAP_VALGRIND
#include <valgrind/memcheck.h>
#endif

struct fx {
	struct dmamap_machine *m;
	struct capture c;
	unsigned long base_free;
};

static struct dmamap_kmalloc_stats kstats(struct dmamap_machine *m)
{
	struct dmamap_kmalloc_stats st;

	dmamap_kmalloc_stats(m, &st);
	return st;
}

static void packed(struct dmamap_machine_config *cfg)
{
	cfg->kmalloc_packed = true;
	cfg->cache_line_size = 64;
}

static void with_zone(struct dmamap_machine_config *cfg)
{
	cfg->dma_zone_limit = cfg->ram_base + (4u << 20);
}

static int setup_with(void **state, void (*tweak)(struct dmamap_machine_config *cfg))
{
	struct fx *f = calloc(1, sizeof(*f));

	if (!f)
		return -1;
	f->m = test_machine(16, tweak);
	dmamap_machine_set_current(f->m);
	f->base_free = test_free_pages(f->m);
	capture_start(&f->c, f->m);
	*state = f;
	return 0;
}

static int setup(void **state)
{
	return setup_with(state, NULL);
}

static int setup_packed(void **state)
{
	return setup_with(state, packed);
}

static int setup_zone(void **state)
{
	return setup_with(state, with_zone);
}

/* Nothing may be left: no live object, no report at destroy, every page back once the quarantine drains. */
static int teardown(void **state)
{
	struct fx *f = *state;
	struct dmamap_kmalloc_stats st = kstats(f->m);
	int ret = 0;

	if (st.live_objects) {
		fprintf(stderr, "teardown: %lu kmalloc objects live\n", st.live_objects);
		ret = -1;
	}
	capture_start(&f->c, f->m);
	test_machine_destroy(f->m);
	if (f->c.reports) {
		fprintf(stderr, "teardown: %lu reports (last: %s)\n", f->c.reports, f->c.last);
		ret = -1;
	}
	dmamap_set_log_handler(NULL, NULL, NULL);
	free(f);
	return ret;
}

/* ------------------------------------------------------------ classes */

static void test_default_objects_own_their_cache_lines(void **state)
{
	struct fx *f = *state;
	static const struct {
		size_t ask, slot;
	} cases[] = {
		{ 1, 32 }, { 32, 32 }, { 33, 64 }, { 64, 64 }, { 65, 96 }, { 96, 96 }, { 97, 128 }, { 129, 192 },
		{ 193, 256 }, { 257, 512 }, { 1025, 2048 }, { 2048, 2048 }, { 2049, 4096 }, { 4097, 8192 },
		{ 12289, 16384 },
	};
	(void)state;

	assert_int_equal(kstats(f->m).minalign, 32);
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		u8 *a = kmalloc(cases[i].ask, GFP_KERNEL);
		u8 *b = kmalloc(cases[i].ask, GFP_KERNEL);

		assert_non_null(a);
		assert_non_null(b);
		assert_int_equal(ksize(a), cases[i].slot);
		/* each starts on a line and no two share one */
		assert_int_equal((uintptr_t)a % 32, 0);
		assert_int_equal((uintptr_t)b % 32, 0);
		assert_true(b >= a + cases[i].slot || a >= b + cases[i].slot);
		/* power-of-two slots are naturally aligned */
		if (!(cases[i].slot & (cases[i].slot - 1)))
			assert_int_equal((uintptr_t)a % (cases[i].slot < PAGE_SIZE ? cases[i].slot : PAGE_SIZE), 0);
		/* linear-map memory of the current machine */
		assert_ptr_equal(dmamap_machine_of(a), f->m);
		assert_ptr_equal(dmamap_machine_of(a + cases[i].ask - 1), f->m);
		kfree(a);
		kfree(b);
	}
	assert_int_equal(f->c.reports, 0);
}

static void test_packed_objects_share_cache_lines(void **state)
{
	struct fx *f = *state;
	u8 *p[8];
	(void)state;

	assert_int_equal(kstats(f->m).minalign, 8);
	for (int i = 0; i < 8; i++) {
		p[i] = kmalloc(8, GFP_KERNEL);
		assert_non_null(p[i]);
		assert_int_equal(ksize(p[i]), 8);
		assert_int_equal((uintptr_t)p[i] % 8, 0);
	}
	/* a fresh slab hands out neighbours: several 8-byte objects in one 64-byte line */
	int shared = 0;
	for (int i = 1; i < 8; i++)
		shared += ((uintptr_t)p[i] >> 6) == ((uintptr_t)p[0] >> 6);
	assert_true(shared >= 1);
	assert_int_equal(ksize(p[0]), 8);
	void *q = kmalloc(20, GFP_KERNEL);
	assert_int_equal(ksize(q), 32);
	kfree(q);
	q = kmalloc(65, GFP_KERNEL); /* 96 is not a multiple of 64-byte lines, but packing only needs 8 */
	assert_int_equal(ksize(q), 96);
	kfree(q);
	for (int i = 0; i < 8; i++)
		kfree(p[i]);
	assert_int_equal(f->c.reports, 0);
}

static void test_gfp_dma_objects_lie_in_the_dma_zone(void **state)
{
	struct fx *f = *state;
	phys_addr_t limit = f->m->cfg.dma_zone_limit;
	void *a = kmalloc(100, GFP_KERNEL | GFP_DMA);
	void *b = kmalloc(3 * PAGE_SIZE, GFP_KERNEL | GFP_DMA);
	void *n = kmalloc(100, GFP_KERNEL);

	assert_non_null(a);
	assert_non_null(b);
	assert_true(virt_to_phys(a) + 100 <= limit);
	assert_true(virt_to_phys(b) + 3 * PAGE_SIZE <= limit);
	/* the Normal zone is preferred otherwise */
	assert_true(virt_to_phys(n) >= limit);
	kfree(a);
	kfree(b);
	kfree(n);
	assert_int_equal(f->c.reports, 0);
}

static void test_zero_size_and_null(void **state)
{
	struct fx *f = *state;
	struct dmamap_kmalloc_stats before = kstats(f->m), after;

	assert_ptr_equal(kmalloc(0, GFP_KERNEL), ZERO_SIZE_PTR);
	assert_ptr_equal(kzalloc(0, GFP_KERNEL), ZERO_SIZE_PTR);
	kfree(NULL);
	kfree(ZERO_SIZE_PTR);
	assert_int_equal(ksize(NULL), 0);
	assert_int_equal(ksize(ZERO_SIZE_PTR), 0);
	after = kstats(f->m);
	assert_int_equal(after.allocations, before.allocations);
	assert_int_equal(after.refused_frees, before.refused_frees);
	assert_int_equal(f->c.reports, 0);
}

/* ------------------------------------------------------------ through the cache */

/*
 * kzalloc zeroes as the CPU would: the zeroes sit dirty in the cache until the
 * buffer is mapped for the device; plain kmalloc stores nothing.
 */
static void test_kzalloc_zeroes_through_the_cache(void **state)
{
	struct fx *f = *state;
	struct device dev = { 0 };
	u8 zero[64] = { 0 }, ram[64];
	u8 *p = kzalloc(64, GFP_KERNEL), *q = kmalloc(64, GFP_KERNEL);
	dma_addr_t bus;

	assert_non_null(p);
	assert_non_null(q);
	assert_memory_equal(p, zero, 64);
	for (int i = 0; i < 64; i += 32) {
		assert_int_equal(dmamap_cache_line_state(f->m, DMAMAP_CACHE_INNER, virt_to_phys(p + i)),
				 DMAMAP_LINE_DIRTY);
		assert_int_not_equal(dmamap_cache_line_state(f->m, DMAMAP_CACHE_INNER, virt_to_phys(q + i)),
				     DMAMAP_LINE_DIRTY);
	}
	assert_int_equal(dmamap_device_init(&dev, f->m, "kz"), 0);
	bus = dma_map_single(&dev, p, 64, DMA_TO_DEVICE);
	assert_false(dma_mapping_error(&dev, bus));
	assert_int_equal(dmamap_cache_line_state(f->m, DMAMAP_CACHE_INNER, virt_to_phys(p)), DMAMAP_LINE_CLEAN);
	assert_int_equal(dmamap_dev_read(&dev, bus, ram, 64), 0);
	assert_memory_equal(ram, zero, 64);
	dma_unmap_single(&dev, bus, 64, DMA_TO_DEVICE);
	kfree(p);
	kfree(q);
	dmamap_device_release(&dev);
	assert_int_equal(f->c.reports, 0);
}

/* ------------------------------------------------------------ misuse */

static void test_double_free_names_both_frees(void **state)
{
	struct fx *f = *state;
	struct dmamap_kmalloc_stats before, after;
	void *p = kmalloc(40, GFP_KERNEL);
	int first_line, second_line;

	assert_non_null(p);
	kfree(p); first_line = __LINE__;
	before = kstats(f->m);
	kfree(p); second_line = __LINE__;
	after = kstats(f->m);
	assert_int_equal(f->c.reports, 1);
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_PAGE_MISUSE], 1);
	assert_int_equal(f->c.last_line, second_line);
	assert_non_null(strstr(f->c.last_file, "test-slab.c"));
	assert_non_null(strstr(f->c.last, "double free"));
	char where[32];
	snprintf(where, sizeof(where), "test-slab.c:%d", first_line);
	assert_non_null(strstr(f->c.last, where));
	/* refused: nothing changed */
	assert_int_equal(after.frees, before.frees);
	assert_int_equal(after.quarantined, before.quarantined);
	assert_int_equal(after.refused_frees, before.refused_frees + 1);
}

static void test_interior_pointer_is_refused(void **state)
{
	struct fx *f = *state;
	u8 *p = kmalloc(100, GFP_KERNEL);
	struct dmamap_kmalloc_stats before = kstats(f->m);

	assert_non_null(p);
	kfree(p + 8);
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_PAGE_MISUSE], 1);
	assert_non_null(strstr(f->c.last, "not its start"));
	assert_int_equal(kstats(f->m).live_objects, before.live_objects);
	/* the object is intact and still freeable */
	p[99] = 1;
	kfree(p);
	assert_int_equal(f->c.reports, 1);
	assert_int_equal(kstats(f->m).live_objects, before.live_objects - 1);

	/* inside a large object, past its first page */
	p = kmalloc(3 * PAGE_SIZE, GFP_KERNEL);
	assert_non_null(p);
	kfree(p + PAGE_SIZE);
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_PAGE_MISUSE], 2);
	kfree(p);
	assert_int_equal(f->c.reports, 2);
}

static void test_kfree_of_pages_and_free_pages_of_kmalloc_are_refused(void **state)
{
	struct fx *f = *state;
	unsigned long page = __get_free_pages(GFP_KERNEL, 0);
	u8 *obj = kmalloc(2 * PAGE_SIZE, GFP_KERNEL);
	unsigned long free_before;

	assert_true(page);
	assert_non_null(obj);
	free_before = test_free_pages(f->m);
	kfree((void *)page);
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_PAGE_MISUSE], 1);
	assert_non_null(strstr(f->c.last, "not kmalloc memory"));
	/* the page allocator refuses a kmalloc block, even given the right order */
	free_pages((unsigned long)obj, 1);
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_PAGE_MISUSE], 2);
	assert_non_null(strstr(f->c.last, "kmalloc"));
	__free_pages(virt_to_page(obj), 1);
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_PAGE_MISUSE], 3);
	assert_int_equal(test_free_pages(f->m), free_before);
	assert_int_equal(kstats(f->m).live_objects, 1);
	/* each goes back the right way */
	free_pages(page, 0);
	kfree(obj);
	assert_int_equal(f->c.reports, 3);
}

static void test_host_pointer_is_refused(void **state)
{
	struct fx *f = *state;
	struct capture pc;
	char *host = malloc(32);

	assert_non_null(host);
	capture_start(&pc, NULL);
	kfree(host);
	assert_int_equal(pc.by_kind[DMAMAP_REPORT_BAD_ADDRESS], 1);
	assert_non_null(strstr(pc.last, "free()"));
	assert_int_equal(ksize(host), 0);
	assert_ptr_equal(krealloc(host, 64, GFP_KERNEL), NULL);
	assert_int_equal(pc.by_kind[DMAMAP_REPORT_BAD_ADDRESS], 3);
	capture_stop(NULL);
	free(host);
	assert_int_equal(f->c.reports, 0);
}

static void test_bad_gfp_and_huge_sizes(void **state)
{
	struct fx *f = *state;
	struct dmamap_kmalloc_stats before = kstats(f->m);

	assert_null(kmalloc(16, 0x80000000u));
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_BAD_INPUT], 1);
	assert_null(kmalloc(KMALLOC_MAX_SIZE + 1, GFP_KERNEL));
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_BAD_INPUT], 2);
	/* a caller that expects to fail may ask for silence */
	assert_null(kmalloc(KMALLOC_MAX_SIZE + 1, GFP_KERNEL | __GFP_NOWARN));
	assert_int_equal(f->c.reports, 2);
	/* an overflowing array is NULL, silently, as in the kernel */
	assert_null(kmalloc_array(SIZE_MAX / 2, 3, GFP_KERNEL));
	assert_null(kcalloc(SIZE_MAX / 2, 3, GFP_KERNEL));
	assert_int_equal(f->c.reports, 2);
	assert_int_equal(kstats(f->m).allocations, before.allocations);
	assert_int_equal(test_free_pages(f->m), f->base_free);
}

/* ------------------------------------------------------------ krealloc, kcalloc, kmemdup */

static void test_krealloc(void **state)
{
	struct fx *f = *state;
	u8 *p = kmalloc(10, GFP_KERNEL), *q;

	assert_non_null(p);
	fill_pattern(p, 10, 7);
	/* grows inside its slot: same object, and the new bytes zeroed on request */
	q = krealloc(p, 30, GFP_KERNEL | __GFP_ZERO);
	assert_ptr_equal(q, p);
	assert_int_equal(check_pattern(q, 10, 7), 0);
	for (int i = 10; i < 30; i++)
		assert_int_equal(q[i], 0);
	/* beyond it: a new object with the contents, the old one freed */
	q = krealloc(p, 1000, GFP_KERNEL);
	assert_non_null(q);
	assert_ptr_not_equal(q, p);
	assert_int_equal(ksize(q), 1024);
	assert_int_equal(check_pattern(q, 10, 7), 0);
	assert_int_equal(kstats(f->m).live_objects, 1);
	assert_int_equal(kstats(f->m).live_bytes, 1000);
	/* a failed resize leaves the object as it was */
	assert_int_equal(dmamap_fault_inject(f->m, DMAMAP_FAULT_KMALLOC, 1, 0), 0);
	assert_null(krealloc(q, 5000, GFP_KERNEL));
	assert_int_equal(check_pattern(q, 10, 7), 0);
	assert_int_equal(ksize(q), 1024);
	/* shrinking keeps it */
	assert_ptr_equal(krealloc(q, 5, GFP_KERNEL), q);
	assert_int_equal(kstats(f->m).live_bytes, 5);
	/* to zero: freed */
	assert_ptr_equal(krealloc(q, 0, GFP_KERNEL), ZERO_SIZE_PTR);
	assert_int_equal(kstats(f->m).live_objects, 0);
	/* from NULL: an allocation */
	p = krealloc(NULL, 16, GFP_KERNEL);
	assert_non_null(p);
	kfree(p);
	/* of a freed object: refused */
	assert_null(krealloc(p, 64, GFP_KERNEL));
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_PAGE_MISUSE], 1);
	assert_int_equal(f->c.reports, 1);
}

static void test_kcalloc_kmemdup_kfree_sensitive(void **state)
{
	struct fx *f = *state;
	u32 *a = kcalloc(100, sizeof(u32), GFP_KERNEL);
	u8 src[300];
	u8 *d;

	assert_non_null(a);
	for (int i = 0; i < 100; i++)
		assert_int_equal(a[i], 0);
	assert_int_equal(ksize(a), 512);
	fill_pattern(src, sizeof(src), 3);
	d = kmemdup(src, sizeof(src), GFP_KERNEL);
	assert_non_null(d);
	assert_ptr_equal(dmamap_machine_of(d), f->m);
	assert_memory_equal(d, src, sizeof(src));
	{
		phys_addr_t phys = virt_to_phys(d);
		u8 after[300];

		kfree_sensitive(d);
		/* the CPU view was cleared before the object died */
		dmamap_track_quiet_begin();
		memcpy(after, dmamap_phys_to_virt(f->m, phys), sizeof(after));
		dmamap_track_quiet_end();
		for (size_t i = 0; i < sizeof(after); i++)
			assert_int_equal(after[i], 0);
	}
	kfree(a);
	assert_int_equal(kstats(f->m).live_objects, 0);
	assert_int_equal(f->c.reports, 0);
}

/* ------------------------------------------------------------ quarantine and pages */

static void test_freed_objects_wait_before_reuse(void **state)
{
	struct fx *f = *state;
	void *first = kmalloc(64, GFP_KERNEL);
	void *p;
	int reused_at = -1;

	assert_non_null(first);
	kfree(first);
	for (int i = 0; i < 200 && reused_at < 0; i++) {
		p = kmalloc(64, GFP_KERNEL);
		if (p == first)
			reused_at = i;
		kfree(p);
	}
	/* not before 64 other objects were freed after it (the quarantine's length) */
	assert_true(reused_at < 0 || reused_at >= 63);
	assert_true(kstats(f->m).quarantined <= 64);
	assert_int_equal(f->c.reports, 0);
}

static void test_pages_go_back_when_slabs_empty(void **state)
{
	struct fx *f = *state;
	void *p[600];

	for (int i = 0; i < 600; i++) {
		p[i] = kmalloc(i % 2 ? 200 : 3000, GFP_KERNEL);
		assert_non_null(p[i]);
	}
	assert_true(test_free_pages(f->m) < f->base_free - 300);
	for (int i = 0; i < 600; i++)
		kfree(p[i]);
	/* only what the quarantine still holds keeps pages */
	assert_true(kstats(f->m).slab_pages <= 64);
	assert_int_equal(f->base_free - test_free_pages(f->m), kstats(f->m).slab_pages);
	assert_int_equal(f->c.reports, 0);
}

/* When pages run out, the quarantine is reclaimed before kmalloc gives up. */
static void test_quarantine_yields_under_pressure(void **state)
{
	struct fx *f = *state;
	struct page *hog[4096];
	int n = 0;
	void *p;
	(void)state;

	/* hold every page, then give back one */
	while (n < 4096 && (hog[n] = dmamap_alloc_pages(f->m, GFP_KERNEL | __GFP_NOWARN, 0)))
		n++;
	assert_true(n > 100);
	__free_page(hog[--n]);
	p = kmalloc(PAGE_SIZE, GFP_KERNEL);
	assert_non_null(p);
	kfree(p); /* quarantined: its page is still held */
	assert_int_equal(test_free_pages(f->m), 0);
	p = kmalloc(PAGE_SIZE, GFP_KERNEL);
	assert_non_null(p);
	kfree(p);
	while (n)
		__free_page(hog[--n]);
	assert_int_equal(f->c.reports, 0);
}

/* ------------------------------------------------------------ faults */

static void test_fault_injection_unwinds(void **state)
{
	struct fx *f = *state;
	struct dmamap_kmalloc_stats st;
	void *p;

	/* the object itself */
	assert_int_equal(dmamap_fault_inject(f->m, DMAMAP_FAULT_KMALLOC, 1, 0), 0);
	assert_null(kmalloc(64, GFP_KERNEL));
	/* a new slab's page */
	assert_int_equal(dmamap_fault_inject(f->m, DMAMAP_FAULT_PAGE_ALLOC, 1, 0), 0);
	assert_null(kmalloc(64, GFP_KERNEL));
	/* a new slab's bookkeeping */
	assert_int_equal(dmamap_fault_inject(f->m, DMAMAP_FAULT_HOST_ALLOC, 1, 0), 0);
	assert_null(kmalloc(5000, GFP_KERNEL));
	st = kstats(f->m);
	assert_int_equal(st.failures, 3);
	assert_int_equal(st.allocations, 0);
	assert_int_equal(st.slab_pages, 0);
	assert_int_equal(test_free_pages(f->m), f->base_free);
	/* nothing stuck: the next one works */
	p = kmalloc(64, GFP_KERNEL);
	assert_non_null(p);
	kfree(p);
	assert_int_equal(f->c.reports, 0);
}

static void test_first_use_state_failure(void **state)
{
	struct fx *f = *state;
	struct dmamap_machine *m = test_machine(4, NULL);
	void *p;
	(void)f;

	assert_int_equal(dmamap_fault_inject(m, DMAMAP_FAULT_HOST_ALLOC, 1, 0), 0);
	assert_null(dmamap_kmalloc(m, 8, GFP_KERNEL, NULL, 0));
	assert_int_equal(dmamap_fault_inject(m, DMAMAP_FAULT_HOST_ALLOC, 2, 0), 0);
	assert_null(dmamap_kmalloc(m, 8, GFP_KERNEL, NULL, 0));
	p = dmamap_kmalloc(m, 8, GFP_KERNEL, NULL, 0);
	assert_non_null(p);
	assert_ptr_equal(dmamap_machine_of(p), m);
	kfree(p);
	test_machine_destroy(m);
}

/* ------------------------------------------------------------ leaks */

static void test_leaks_reported_at_destroy_with_their_lines(void **state)
{
	struct fx *f = *state;
	struct dmamap_machine *m = test_machine(4, NULL);
	struct capture c;
	void *a, *b, *gone;
	int line_b;
	(void)f;

	a = dmamap_kmalloc(m, 24, GFP_KERNEL, "drv.c", 10);
	b = dmamap_kmalloc(m, 9000, GFP_KERNEL, __FILE__, __LINE__); line_b = __LINE__;
	gone = dmamap_kmalloc(m, 24, GFP_KERNEL, "drv.c", 12);
	assert_non_null(a);
	assert_non_null(b);
	kfree(gone);
	capture_start(&c, m);
	dmamap_machine_destroy(m);
	assert_int_equal(c.by_kind[DMAMAP_REPORT_LEAK], 2);
	assert_int_equal(c.reports, 2); /* the slab pages themselves are not leaks of the page allocator */
	/* one of the two names drv.c:10; the last seen names its own line */
	assert_true((strcmp(c.last_file, "drv.c") == 0 && c.last_line == 10) ||
		    (strstr(c.last_file, "test-slab.c") && c.last_line == line_b));
}

/* ------------------------------------------------------------ memcheck */

static void test_freed_and_slack_bytes_are_inaccessible_under_memcheck(void **state)
{
	struct fx *f = *state;
	u8 *p = kmalloc(20, GFP_KERNEL);

	assert_non_null(p);
#if DMAMAP_VALGRIND
	if (RUNNING_ON_VALGRIND) {
		u8 vbits[32];

		/* asked-for bytes are addressable, the rest of the 32-byte slot not */
		assert_int_equal(VALGRIND_GET_VBITS(p, vbits, 20), 1);
		assert_int_equal(VALGRIND_GET_VBITS(p + 20, vbits, 1), 3);
		kfree(p);
		assert_int_equal(VALGRIND_GET_VBITS(p, vbits, 1), 3);
		assert_int_equal(f->c.reports, 0);
		return;
	}
#endif
	kfree(p);
	assert_int_equal(f->c.reports, 0);
	skip();
}

/* ------------------------------------------------------------ threads */

static void *churn(void *arg)
{
	struct dmamap_machine *m = arg;
	void *held[32] = { 0 };
	unsigned n = under_valgrind() ? 2000 : 20000;

	for (unsigned i = 0; i < n; i++) {
		unsigned slot = (i * 7) % 32;

		kfree(held[slot]);
		held[slot] = dmamap_kmalloc(m, 1 + (i * 37) % 3000, GFP_KERNEL, __FILE__, __LINE__);
		if (!held[slot])
			return (void *)1;
		((u8 *)held[slot])[0] = (u8)i;
	}
	for (unsigned s = 0; s < 32; s++)
		kfree(held[s]);
	return NULL;
}

static void test_two_threads(void **state)
{
	struct fx *f = *state;
	pthread_t t[2];
	void *r[2];

	for (int i = 0; i < 2; i++)
		assert_int_equal(pthread_create(&t[i], NULL, churn, f->m), 0);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(pthread_join(t[i], &r[i]), 0);
		assert_null(r[i]);
	}
	assert_int_equal(kstats(f->m).live_objects, 0);
	assert_int_equal(kstats(f->m).live_bytes, 0);
	assert_int_equal(f->c.reports, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_default_objects_own_their_cache_lines, setup, teardown),
		cmocka_unit_test_setup_teardown(test_packed_objects_share_cache_lines, setup_packed, teardown),
		cmocka_unit_test_setup_teardown(test_gfp_dma_objects_lie_in_the_dma_zone, setup_zone, teardown),
		cmocka_unit_test_setup_teardown(test_zero_size_and_null, setup, teardown),
		cmocka_unit_test_setup_teardown(test_kzalloc_zeroes_through_the_cache, setup, teardown),
		cmocka_unit_test_setup_teardown(test_double_free_names_both_frees, setup, teardown),
		cmocka_unit_test_setup_teardown(test_interior_pointer_is_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_kfree_of_pages_and_free_pages_of_kmalloc_are_refused, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_host_pointer_is_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_gfp_and_huge_sizes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_krealloc, setup, teardown),
		cmocka_unit_test_setup_teardown(test_kcalloc_kmemdup_kfree_sensitive, setup, teardown),
		cmocka_unit_test_setup_teardown(test_freed_objects_wait_before_reuse, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pages_go_back_when_slabs_empty, setup, teardown),
		cmocka_unit_test_setup_teardown(test_quarantine_yields_under_pressure, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fault_injection_unwinds, setup, teardown),
		cmocka_unit_test_setup_teardown(test_first_use_state_failure, setup, teardown),
		cmocka_unit_test_setup_teardown(test_leaks_reported_at_destroy_with_their_lines, setup, teardown),
		cmocka_unit_test_setup_teardown(test_freed_and_slack_bytes_are_inaccessible_under_memcheck, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_two_threads, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
