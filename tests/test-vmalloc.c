/* SPDX-License-Identifier: MIT */
/*
 * The vmalloc area (<linux/vmalloc.h>): bytes through a vmalloc address and
 * through the linear map are one, the pages are scattered, a device sees
 * them once they are mapped page by page, vmap() of pages from anywhere,
 * and the misuse the area makes visible: dma_map_single() and sg_set_buf()
 * of a vmalloc address, bad vfree() and vunmap() calls, kfree() of vmalloc
 * memory, leaks at machine destroy, a use after vfree().
 */
#include <linux/dma-mapping.h>
#include <linux/mm.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/vmalloc.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"

struct fx {
	struct dmamap_machine *m;
	struct device dev;
	struct capture c;
	unsigned long base_free;
};

static struct dmamap_vmalloc_stats vstats(struct dmamap_machine *m)
{
	struct dmamap_vmalloc_stats st;

	dmamap_vmalloc_stats(m, &st);
	return st;
}

static unsigned long live_mappings(struct dmamap_machine *m)
{
	struct dmamap_checker_stats st;

	dmamap_checker_stats(m, &st);
	return st.live_single + st.live_page + st.live_sg;
}

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));

	if (!f)
		return -1;
	/* no outer cache, no prefetch: the bytes a device reads are exactly those maintenance put in RAM */
	f->m = test_machine(16, simple_machine);
	dmamap_machine_set_current(f->m);
	if (dmamap_device_init(&f->dev, f->m, "vm")) {
		dmamap_machine_destroy(f->m);
		free(f);
		return -1;
	}
	f->base_free = test_free_pages(f->m);
	/* the reports of no machine (host memory handed to vfree()) too */
	capture_start(&f->c, NULL);
	capture_start(&f->c, f->m);
	*state = f;
	return 0;
}

/* Nothing may be left: no area, no mapping, every page back, no report at destroy. */
static int teardown(void **state)
{
	struct fx *f = *state;
	struct dmamap_vmalloc_stats vs = vstats(f->m);
	struct dmamap_kmalloc_stats ks;
	int ret = 0;

	dmamap_device_release(&f->dev);
	dmamap_kmalloc_stats(f->m, &ks);
	if (vs.live_areas || vs.live_vmaps || ks.live_objects ||
	    test_free_pages(f->m) + ks.slab_pages != f->base_free) {
		fprintf(stderr, "teardown: %lu areas, %lu vmaps, %lu kmalloc objects live, %lu pages not given back\n",
			vs.live_areas, vs.live_vmaps, ks.live_objects,
			f->base_free - test_free_pages(f->m) - ks.slab_pages);
		ret = -1;
	}
	if (live_mappings(f->m)) {
		fprintf(stderr, "teardown: %lu mappings live\n", live_mappings(f->m));
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

/* The last report: @kind, at @line of this file, starting with @call and saying @why. */
static void assert_said(const struct fx *f, enum dmamap_report_kind kind, int line, const char *call, const char *why)
{
	assert_int_equal(f->c.last_kind, kind);
	assert_int_equal(f->c.last_line, line);
	assert_non_null(strstr(f->c.last_file, "test-vmalloc.c"));
	if (strncmp(f->c.last, call, strlen(call)) || !strstr(f->c.last, why))
		fail_msg("report \"%s\" does not name %s and say \"%s\"", f->c.last, call, why);
}

/* ------------------------------------------------------------ bytes and pages */

/* A store through the vmalloc address is the byte page_address() of its page shows, and back. */
static void test_bytes_through_both_aliases(void **state)
{
	struct fx *f = *state;
	size_t size = 3 * PAGE_SIZE + 100;
	u8 *p = vmalloc(size), *lin, *k;

	assert_non_null(p);
	assert_int_equal((uintptr_t)p % PAGE_SIZE, 0);
	assert_true(is_vmalloc_addr(p));
	assert_true(is_vmalloc_addr(p + size - 1));
	assert_false(virt_addr_valid(p));
	fill_pattern(p, size, 7);
	for (size_t off = 0; off < size; off += PAGE_SIZE) {
		size_t n = size - off < PAGE_SIZE ? size - off : PAGE_SIZE;

		lin = page_address(vmalloc_to_page(p + off));
		assert_non_null(lin);
		assert_true(virt_addr_valid(lin));
		assert_false(is_vmalloc_addr(lin));
		assert_memory_equal(lin, p + off, n);
	}
	/* the last byte of the area, through its page */
	lin = page_address(vmalloc_to_page(p + size - 1));
	p[size - 1] = 0xe7;
	assert_int_equal(lin[(size - 1) % PAGE_SIZE], 0xe7);
	/* and the other way: a store through the linear map shows through the vmalloc address */
	lin = page_address(vmalloc_to_page(p + PAGE_SIZE + 5));
	lin[5] = 0x3c;
	assert_int_equal(p[PAGE_SIZE + 5], 0x3c);
	/* an interior address names the page it lies in */
	assert_ptr_equal(vmalloc_to_page(p + 2 * PAGE_SIZE + 17), vmalloc_to_page(p + 2 * PAGE_SIZE));
	assert_int_equal(vmalloc_to_pfn(p + PAGE_SIZE), page_to_pfn(vmalloc_to_page(p + PAGE_SIZE)));
	k = kmalloc(64, GFP_KERNEL);
	assert_false(is_vmalloc_addr(k));
	kfree(k);
	assert_int_equal(vstats(f->m).live_areas, 1);
	assert_int_equal(vstats(f->m).live_pages, 4);
	vfree(p);
	assert_int_equal(vstats(f->m).live_areas, 0);
	assert_int_equal(f->c.reports, 0);
}

/* The pages are the page allocator's, none following its predecessor in physical memory, and go back with vfree(). */
static void test_pages_scattered_and_given_back(void **state)
{
	struct fx *f = *state;
	unsigned long before = test_free_pages(f->m);
	struct page *pg[8];
	u8 *p = vzalloc(8 * PAGE_SIZE);

	assert_non_null(p);
	assert_int_equal(test_free_pages(f->m), before - 8);
	for (int i = 0; i < 8; i++) {
		pg[i] = vmalloc_to_page(p + (size_t)i * PAGE_SIZE);
		assert_non_null(pg[i]);
		assert_int_equal(page_count(pg[i]), 1);
		for (int j = 0; j < i; j++)
			assert_ptr_not_equal(pg[i], pg[j]);
		if (i)
			assert_int_not_equal(page_to_pfn(pg[i]), page_to_pfn(pg[i - 1]) + 1);
	}
	/* zeroed, through both */
	for (int i = 0; i < 8; i++) {
		const u8 *lin = page_address(pg[i]);

		for (size_t b = 0; b < PAGE_SIZE; b += 511)
			assert_int_equal(lin[b] | p[(size_t)i * PAGE_SIZE + b], 0);
	}
	vfree(p);
	assert_int_equal(test_free_pages(f->m), before);
	assert_int_equal(f->c.reports, 0);
}

/* A one-page area: its guard page maps nothing, and is still the area's address space. */
static void test_one_page_area_and_its_guard(void **state)
{
	struct fx *f = *state;
	u8 *p = vmalloc(1), *q;

	assert_non_null(p);
	assert_int_equal(vstats(f->m).live_pages, 1);
	p[PAGE_SIZE - 1] = 0x11;
	assert_int_equal(((u8 *)page_address(vmalloc_to_page(p)))[PAGE_SIZE - 1], 0x11);
	assert_true(is_vmalloc_addr(p + PAGE_SIZE));
	assert_null(vmalloc_to_page(p + PAGE_SIZE));
	/* the next area starts past the guard */
	q = vmalloc(PAGE_SIZE);
	assert_non_null(q);
	assert_true(q >= p + 2 * PAGE_SIZE || q + 2 * PAGE_SIZE <= p);
	vfree(q);
	vfree(p);
	assert_int_equal(f->c.reports, 0);
}

/* vzalloc(), vcalloc(), vmalloc_user() are zeroed; vmalloc_array() and vcalloc() refuse an overflow quietly. */
static void test_zeroed_forms_and_array_overflow(void **state)
{
	struct fx *f = *state;
	u32 *a = vcalloc(3000, sizeof(u32));
	u8 *u = vmalloc_user(5000), *z = __vmalloc(PAGE_SIZE, GFP_KERNEL | __GFP_ZERO);
	u64 *w = vmalloc_array(1000, sizeof(u64));

	assert_non_null(a);
	assert_non_null(u);
	assert_non_null(z);
	assert_non_null(w);
	for (int i = 0; i < 3000; i++)
		assert_int_equal(a[i], 0);
	for (int i = 0; i < 5000; i++)
		assert_int_equal(u[i], 0);
	assert_int_equal(z[PAGE_SIZE - 1], 0);
	w[999] = 42;
	assert_int_equal(w[999], 42);
	assert_int_equal(vstats(f->m).live_pages, 3 + 2 + 1 + 2);
	assert_null(vmalloc_array(SIZE_MAX / 2, 4));
	assert_null(vcalloc(SIZE_MAX, 2));
	assert_int_equal(f->c.reports, 0);
	vfree(a);
	vfree(u);
	vfree(z);
	vfree(w);
}

/* Sizes of 0 and beyond RAM are NULL, reported where the kernel warns; nothing is taken. */
static void test_bad_sizes(void **state)
{
	struct fx *f = *state;
	unsigned long before = test_free_pages(f->m);
	int line;

	assert_null(vmalloc(0)); line = __LINE__;
	assert_said(f, DMAMAP_REPORT_BAD_INPUT, line, "vmalloc(0", "zero size");
	assert_null(vzalloc((16u << 20) + 1)); line = __LINE__;
	assert_said(f, DMAMAP_REPORT_BAD_INPUT, line, "vmalloc(", "exceeds total pages");
	assert_null(vmalloc(SIZE_MAX)); line = __LINE__;
	assert_said(f, DMAMAP_REPORT_BAD_INPUT, line, "vmalloc(", "exceeds total pages");
	f->c.reports = 0;
	assert_null(__vmalloc(SIZE_MAX - 5, GFP_KERNEL | __GFP_NOWARN));
	assert_int_equal(f->c.reports, 0);
	assert_int_equal(test_free_pages(f->m), before);
	assert_int_equal(vstats(f->m).live_areas, 0);
	assert_int_equal(vstats(f->m).allocations, 0);
}

/* ------------------------------------------------------------ the device */

/* Mapped page by page, the device reads what the CPU stored through the vmalloc address; unflushed, stale RAM. */
static void test_device_reads_pages_mapped_one_by_one(void **state)
{
	struct fx *f = *state;
	size_t size = 2 * PAGE_SIZE;
	u8 *p = vmalloc(size), seen[2 * PAGE_SIZE], old[PAGE_SIZE];
	dma_addr_t bus[2];

	assert_non_null(p);
	fill_pattern(p, size, 21);
	for (int i = 0; i < 2; i++) {
		bus[i] = dma_map_page(&f->dev, vmalloc_to_page(p + i * PAGE_SIZE), 0, PAGE_SIZE, DMA_TO_DEVICE);
		assert_false(dma_mapping_error(&f->dev, bus[i]));
		assert_int_equal(dmamap_dev_read(&f->dev, bus[i], seen + i * PAGE_SIZE, PAGE_SIZE), 0);
		dma_unmap_page(&f->dev, bus[i], PAGE_SIZE, DMA_TO_DEVICE);
	}
	assert_int_equal(check_pattern(seen, size, 21), 0);

	/* new bytes, mapped without the CPU sync: the device reads the old ones, as for any cached buffer */
	memcpy(old, p, PAGE_SIZE);
	fill_pattern(p, PAGE_SIZE, 22);
	bus[0] = dma_map_page_attrs(&f->dev, vmalloc_to_page(p), 0, PAGE_SIZE, DMA_TO_DEVICE, DMA_ATTR_SKIP_CPU_SYNC);
	assert_false(dma_mapping_error(&f->dev, bus[0]));
	assert_int_equal(dmamap_dev_read(&f->dev, bus[0], seen, PAGE_SIZE), 0);
	assert_memory_equal(seen, old, PAGE_SIZE);
	assert_memory_not_equal(seen, p, PAGE_SIZE);
	dma_unmap_page_attrs(&f->dev, bus[0], PAGE_SIZE, DMA_TO_DEVICE, DMA_ATTR_SKIP_CPU_SYNC);
	vfree(p);
	assert_int_equal(f->c.reports, 0);
}

/* An sg table of the area's pages: the right way to give a device a vmalloc buffer in one call. */
static void test_device_reads_an_sg_table_of_the_pages(void **state)
{
	struct fx *f = *state;
	size_t size = 3 * PAGE_SIZE;
	u8 *p = vmalloc(size), *seen = malloc(size);
	struct page *pages[3];
	struct sg_table sgt;
	struct scatterlist *sg;
	size_t at = 0;
	int i;

	assert_non_null(p);
	assert_non_null(seen);
	fill_pattern(p, size, 31);
	for (i = 0; i < 3; i++)
		pages[i] = vmalloc_to_page(p + (size_t)i * PAGE_SIZE);
	assert_int_equal(sg_alloc_table_from_pages(&sgt, pages, 3, 0, size, GFP_KERNEL), 0);
	/* scattered pages: no two merge into one entry */
	assert_int_equal(sgt.orig_nents, 3);
	assert_int_equal(dma_map_sgtable(&f->dev, &sgt, DMA_TO_DEVICE, 0), 0);
	for_each_sgtable_dma_sg(&sgt, sg, i) {
		assert_int_equal(dmamap_dev_read(&f->dev, sg_dma_address(sg), seen + at, sg_dma_len(sg)), 0);
		at += sg_dma_len(sg);
	}
	assert_int_equal(at, size);
	assert_int_equal(check_pattern(seen, size, 31), 0);
	dma_unmap_sgtable(&f->dev, &sgt, DMA_TO_DEVICE, 0);
	sg_free_table(&sgt);
	vfree(p);
	free(seen);
	assert_int_equal(f->c.reports, 0);
}

/* ------------------------------------------------------------ misuse */

/* dma_map_single() of a vmalloc address: refused at the driver's line, nothing mapped. */
static void test_dma_map_single_refused(void **state)
{
	struct fx *f = *state;
	u8 *p = vmalloc(2 * PAGE_SIZE);
	struct dmamap_checker_stats before, after;
	dma_addr_t bus;
	int line;

	assert_non_null(p);
	dmamap_checker_stats(f->m, &before);
	bus = dma_map_single(&f->dev, p + 8, 100, DMA_TO_DEVICE); line = __LINE__;
	assert_int_equal(bus, DMA_MAPPING_ERROR);
	assert_said(f, DMAMAP_REPORT_BAD_ADDRESS, line, "dma_map_single", "maps memory from vmalloc area");
	assert_non_null(strstr(f->c.last, "vmalloc_to_page()"));
	bus = dma_map_single_attrs(&f->dev, p, PAGE_SIZE, DMA_FROM_DEVICE, DMA_ATTR_SKIP_CPU_SYNC); line = __LINE__;
	assert_int_equal(bus, DMA_MAPPING_ERROR);
	assert_said(f, DMAMAP_REPORT_BAD_ADDRESS, line, "dma_map_single", "vmalloc area");
	dmamap_checker_stats(f->m, &after);
	assert_int_equal(after.live_single, before.live_single);
	assert_int_equal(live_mappings(f->m), 0);
	assert_int_equal(f->c.reports, 2);
	vfree(p);
}

/* sg_set_buf() and sg_init_one() of a vmalloc address: refused at the driver's line, the entry as it was. */
static void test_sg_set_buf_refused(void **state)
{
	struct fx *f = *state;
	u8 *p = vmalloc(PAGE_SIZE), *k = kmalloc(256, GFP_KERNEL);
	struct scatterlist sg[2], was[2];
	int line;

	assert_non_null(p);
	assert_non_null(k);
	sg_init_table(sg, 2);
	sg_set_buf(&sg[0], k, 256);
	memcpy(was, sg, sizeof(sg));
	sg_set_buf(&sg[0], p, 100); line = __LINE__;
	assert_said(f, DMAMAP_REPORT_BAD_ADDRESS, line, "sg_set_buf", "a vmalloc address");
	assert_memory_equal(sg, was, sizeof(sg));
	assert_ptr_equal(sg_virt(&sg[0]), k);
	sg_init_one(&sg[1], p + 10, 50); line = __LINE__;
	assert_said(f, DMAMAP_REPORT_BAD_ADDRESS, line, "sg_init_one", "a vmalloc address");
	assert_memory_equal(sg, was, sizeof(sg));
	assert_int_equal(f->c.reports, 2);
	kfree(k);
	vfree(p);
}

/* virt_to_page() and virt_to_phys() of a vmalloc address say so, and give nothing. */
static void test_linear_conversions_refused(void **state)
{
	struct fx *f = *state;
	u8 *p = vmalloc(PAGE_SIZE);

	assert_non_null(p);
	assert_null(virt_to_page(p));
	assert_int_equal(f->c.last_kind, DMAMAP_REPORT_BAD_ADDRESS);
	assert_non_null(strstr(f->c.last, "a vmalloc address"));
	assert_non_null(strstr(f->c.last, "vmalloc_to_page()"));
	assert_int_equal(virt_to_phys(p + 3), ~(phys_addr_t)0);
	assert_non_null(strstr(f->c.last, "virt_to_phys"));
	assert_non_null(strstr(f->c.last, "a vmalloc address"));
	assert_int_equal(f->c.reports, 2);
	vfree(p);
}

/* vfree() of what vmalloc did not hand out: reported at the line, nothing freed. */
static void test_vfree_refusals(void **state)
{
	struct fx *f = *state;
	u8 *p = vmalloc(2 * PAGE_SIZE), *k = kmalloc(512, GFP_KERNEL), host[16];
	unsigned long free_before;
	int line, freed_line;

	assert_non_null(p);
	assert_non_null(k);
	fill_pattern(p, 2 * PAGE_SIZE, 5);
	free_before = test_free_pages(f->m);

	vfree(k); line = __LINE__;
	assert_said(f, DMAMAP_REPORT_PAGE_MISUSE, line, "vfree", "kfree()");
	assert_int_equal(ksize(k), 512);
	vfree(p + 8); line = __LINE__;
	assert_said(f, DMAMAP_REPORT_PAGE_MISUSE, line, "vfree", "inside of the 8192-byte area");
	vfree(p + 2 * PAGE_SIZE); line = __LINE__;
	assert_said(f, DMAMAP_REPORT_PAGE_MISUSE, line, "vfree", "in the guard page");
	vfree(host); line = __LINE__;
	assert_said(f, DMAMAP_REPORT_BAD_ADDRESS, line, "vfree", "not an address of any machine's vmalloc area");
	vunmap(p); line = __LINE__;
	assert_said(f, DMAMAP_REPORT_PAGE_MISUSE, line, "vunmap", "vfree() frees it");
	/* nothing of it changed */
	assert_int_equal(test_free_pages(f->m), free_before);
	assert_int_equal(vstats(f->m).live_areas, 1);
	assert_int_equal(vstats(f->m).refused_frees, 3);
	assert_int_equal(check_pattern(p, 2 * PAGE_SIZE, 5), 0);

	vfree(p); freed_line = __LINE__;
	assert_int_equal(test_free_pages(f->m), free_before + 2);
	vfree(p); line = __LINE__;
	assert_said(f, DMAMAP_REPORT_PAGE_MISUSE, line, "vfree", "double vfree");
	{
		char want[64];

		snprintf(want, sizeof(want), "test-vmalloc.c:%d", freed_line);
		assert_non_null(strstr(f->c.last, want));
	}
	assert_int_equal(test_free_pages(f->m), free_before + 2);
	assert_int_equal(f->c.reports, 6);
	vfree(NULL);
	assert_int_equal(f->c.reports, 6);
	kfree(k);
}

/* kfree() of vmalloc memory: refused, the area kept; kvfree() frees either kind. */
static void test_kfree_of_vmalloc_refused(void **state)
{
	struct fx *f = *state;
	u8 *p = vmalloc(PAGE_SIZE), *k = kmalloc(100, GFP_KERNEL);
	int line;

	assert_non_null(p);
	p[0] = 9;
	kfree(p); line = __LINE__;
	assert_said(f, DMAMAP_REPORT_PAGE_MISUSE, line, "kfree", "vmalloc memory");
	assert_int_equal(vstats(f->m).live_areas, 1);
	assert_int_equal(p[0], 9);
	assert_int_equal(f->c.reports, 1);
	kvfree(p);
	kvfree(k);
	assert_int_equal(vstats(f->m).live_areas, 0);
	assert_int_equal(f->c.reports, 1);
}

/* vfree() of an area whose page is still mapped for DMA: refused until the unmap. */
static void test_vfree_while_mapped_refused(void **state)
{
	struct fx *f = *state;
	u8 *p = vmalloc(2 * PAGE_SIZE);
	dma_addr_t bus;
	int line;

	assert_non_null(p);
	bus = dma_map_page(&f->dev, vmalloc_to_page(p + PAGE_SIZE), 0, PAGE_SIZE, DMA_FROM_DEVICE);
	assert_false(dma_mapping_error(&f->dev, bus));
	vfree(p); line = __LINE__;
	assert_int_equal(f->c.last_kind, DMAMAP_REPORT_FREE_MAPPED);
	assert_int_equal(f->c.last_line, line);
	assert_int_equal(vstats(f->m).live_areas, 1);
	dma_unmap_page(&f->dev, bus, PAGE_SIZE, DMA_FROM_DEVICE);
	vfree(p);
	assert_int_equal(vstats(f->m).live_areas, 0);
	assert_int_equal(f->c.reports, 1);
}

/* vmalloc() with a spinlock held sleeps in atomic context; vfree_atomic() may be called there. */
static void test_sleep_in_atomic(void **state)
{
	struct fx *f = *state;
	DEFINE_SPINLOCK(lock);
	u8 *p;
	int line;

	spin_lock(&lock);
	p = vmalloc(PAGE_SIZE); line = __LINE__;
	spin_unlock(&lock);
	assert_non_null(p);
	assert_said(f, DMAMAP_REPORT_SLEEP_IN_ATOMIC, line, "", "vmalloc");
	assert_int_equal(f->c.reports, 1);
	spin_lock(&lock);
	vfree_atomic(p);
	spin_unlock(&lock);
	assert_int_equal(f->c.reports, 1);
	assert_int_equal(vstats(f->m).live_areas, 0);
}

/* A use after vfree() faults: the addresses are inaccessible again. */
static void test_use_after_vfree_faults(void **state)
{
	struct fx *f = *state;
	volatile u8 *p = vmalloc(PAGE_SIZE);
	int status;
	pid_t pid;

	assert_non_null(p);
	p[0] = 1;
	vfree((void *)p);
	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		/* the test runner's handler (and a sanitizer's) would catch the fault and go on */
		signal(SIGSEGV, SIG_DFL);
		signal(SIGBUS, SIG_DFL);
		p[0] = 2;
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGSEGV);
	assert_int_equal(f->c.reports, 0);
}

/* ------------------------------------------------------------ vmap */

/* vmap() of pages from different places: consecutive addresses, each the page's bytes; vunmap() leaves them. */
static void test_vmap_pages_from_anywhere(void **state)
{
	struct fx *f = *state;
	struct page *a = alloc_page(GFP_KERNEL), *b = alloc_pages(GFP_KERNEL, 2);
	u8 *v = vmalloc(PAGE_SIZE), *m;
	struct page *pages[4];
	unsigned long free_before;

	assert_non_null(a);
	assert_non_null(b);
	assert_non_null(v);
	pages[0] = b + 3;                 /* the last page of a block */
	pages[1] = a;
	pages[2] = vmalloc_to_page(v);    /* a page of a vmalloc area */
	pages[3] = a;                     /* the same page twice */
	free_before = test_free_pages(f->m);
	m = vmap(pages, 4, VM_MAP, PAGE_KERNEL);
	assert_non_null(m);
	assert_true(is_vmalloc_addr(m));
	assert_int_equal(vstats(f->m).live_vmaps, 1);
	for (int i = 0; i < 4; i++)
		assert_ptr_equal(vmalloc_to_page(m + i * PAGE_SIZE + 1), pages[i]);
	fill_pattern(m, PAGE_SIZE, 41);
	assert_int_equal(check_pattern(page_address(b + 3), PAGE_SIZE, 41), 0);
	m[PAGE_SIZE + 7] = 0x77;
	assert_int_equal(((u8 *)page_address(a))[7], 0x77);
	assert_int_equal(m[3 * PAGE_SIZE + 7], 0x77);
	m[2 * PAGE_SIZE] = 0x55;
	assert_int_equal(v[0], 0x55);
	/* the last byte of the mapping */
	m[4 * PAGE_SIZE - 1] = 0x66;
	assert_int_equal(((u8 *)page_address(a))[PAGE_SIZE - 1], 0x66);
	/* no page was taken for it */
	assert_int_equal(test_free_pages(f->m), free_before);

	vunmap(m);
	assert_int_equal(vstats(f->m).live_vmaps, 0);
	assert_null(vmalloc_to_page(m));
	/* the pages stay the caller's, with their bytes */
	assert_int_equal(test_free_pages(f->m), free_before);
	assert_int_equal(page_count(a), 1);
	assert_int_equal(check_pattern(page_address(b + 3), PAGE_SIZE, 41), 0);
	assert_int_equal(v[0], 0x55);
	assert_int_equal(f->c.reports, 0);
	__free_page(a);
	__free_pages(b, 2);
	vfree(v);
}

/* An uncached vmap() sees RAM itself: what the device wrote, with no maintenance at all. */
static void test_vmap_uncached_sees_ram(void **state)
{
	struct fx *f = *state;
	struct page *pg = alloc_page(GFP_KERNEL);
	static const u8 data[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	u8 *u;
	dma_addr_t bus;

	assert_non_null(pg);
	bus = dma_map_page(&f->dev, pg, 0, PAGE_SIZE, DMA_FROM_DEVICE);
	assert_false(dma_mapping_error(&f->dev, bus));
	assert_int_equal(dmamap_dev_write(&f->dev, bus + 64, data, sizeof(data)), 0);
	u = vmap(&pg, 1, VM_MAP, pgprot_noncached(PAGE_KERNEL));
	assert_non_null(u);
	assert_memory_equal(u + 64, data, sizeof(data));
	vunmap(u);
	dma_unmap_page(&f->dev, bus, PAGE_SIZE, DMA_FROM_DEVICE);
	__free_page(pg);
	assert_int_equal(f->c.reports, 0);
}

/* vmap() refusals and vfree() of a vmap() mapping; vunmap() twice. */
static void test_vmap_refusals(void **state)
{
	struct fx *f = *state;
	struct page *pages[2] = { alloc_page(GFP_KERNEL), NULL };
	u8 *m;
	int line, unmap_line;

	assert_non_null(pages[0]);
	assert_null(vmap(pages, 0, VM_MAP, PAGE_KERNEL));
	assert_int_equal(f->c.reports, 0);
	assert_null(vmap(pages, 2, VM_MAP, PAGE_KERNEL)); line = __LINE__;
	assert_said(f, DMAMAP_REPORT_BAD_INPUT, line, "vmap", "page 1 is NULL");
	assert_null(vmap(pages, 1, VM_MAP, PAGE_NONE)); line = __LINE__;
	assert_said(f, DMAMAP_REPORT_BAD_INPUT, line, "vmap", "no memory type");
	assert_int_equal(vstats(f->m).live_vmaps, 0);

	m = vmap(pages, 1, VM_MAP, PAGE_KERNEL);
	assert_non_null(m);
	vfree(m); line = __LINE__;
	assert_said(f, DMAMAP_REPORT_PAGE_MISUSE, line, "vfree", "vunmap() undoes it");
	assert_int_equal(vstats(f->m).live_vmaps, 1);
	assert_int_equal(page_count(pages[0]), 1);
	vunmap(m); unmap_line = __LINE__;
	vunmap(m); line = __LINE__;
	assert_said(f, DMAMAP_REPORT_PAGE_MISUSE, line, "vunmap", "double vunmap");
	{
		char want[64];

		snprintf(want, sizeof(want), "unmapped at %s:%d", __FILE__, unmap_line);
		assert_non_null(strstr(f->c.last, want));
	}
	assert_int_equal(f->c.reports, 4);
	__free_page(pages[0]);
}

/* ------------------------------------------------------------ kvmalloc */

/* kvmalloc() is kmalloc memory while kmalloc serves it, vmalloc memory beyond; kvfree() frees both. */
static void test_kvmalloc_falls_back_to_vmalloc(void **state)
{
	struct fx *f = *state;
	u8 *small = kvmalloc(3000, GFP_KERNEL), *big = kvzalloc(KMALLOC_MAX_SIZE + 1, GFP_KERNEL), *atomic, *inj;

	assert_non_null(small);
	assert_false(is_vmalloc_addr(small));
	assert_int_equal(ksize(small), PAGE_SIZE);
	assert_non_null(big);
	assert_true(is_vmalloc_addr(big));
	assert_int_equal(big[KMALLOC_MAX_SIZE], 0);
	/* no sleeping allocation, no vmalloc: NULL, quietly */
	atomic = kvmalloc(KMALLOC_MAX_SIZE + 1, GFP_ATOMIC);
	assert_null(atomic);
	/* kmalloc failing for a large size: vmalloc serves it */
	assert_int_equal(dmamap_fault_inject(f->m, DMAMAP_FAULT_KMALLOC, 1, 0), 0);
	inj = kvmalloc_array(2, PAGE_SIZE, GFP_KERNEL);
	assert_non_null(inj);
	assert_true(is_vmalloc_addr(inj));
	assert_int_equal(f->c.reports, 0);
	kvfree(small);
	kvfree(big);
	kvfree_sensitive(inj, 2 * PAGE_SIZE);
	assert_int_equal(vstats(f->m).live_areas, 0);
	assert_int_equal(f->c.reports, 0);
}

/* kvfree_sensitive() of vmalloc memory zeroes the bytes it is told of, through the CPU, then frees the area. */
static void test_kvfree_sensitive_zeroes_vmalloc_memory(void **state)
{
	struct fx *f = *state;
	u8 *p = vmalloc(2 * PAGE_SIZE);
	struct page *second;
	const u8 *lin;

	assert_non_null(p);
	memset(p, 0xcd, 2 * PAGE_SIZE);
	second = vmalloc_to_page(p + PAGE_SIZE);
	get_page(second); /* held, so that its bytes can be read after the area goes */
	kvfree_sensitive(p, PAGE_SIZE + 10);
	assert_int_equal(vstats(f->m).live_areas, 0);
	lin = page_address(second);
	for (int i = 0; i < 10; i++)
		assert_int_equal(lin[i], 0);
	assert_int_equal(lin[10], 0xcd);
	assert_int_equal(lin[PAGE_SIZE - 1], 0xcd);
	put_page(second);
	assert_int_equal(f->c.reports, 0);
}

/* ------------------------------------------------------------ faults, leaks */

/* A failed page or mapping leaves nothing taken. */
static void test_failures_give_everything_back(void **state)
{
	struct fx *f = *state;
	unsigned long before = test_free_pages(f->m);

	assert_int_equal(dmamap_fault_inject(f->m, DMAMAP_FAULT_PAGE_ALLOC, 3, 0), 0);
	assert_null(vmalloc(4 * PAGE_SIZE));
	assert_int_equal(test_free_pages(f->m), before);
	assert_int_equal(dmamap_fault_inject(f->m, DMAMAP_FAULT_REMAP, 1, 0), 0);
	assert_null(vmalloc(4 * PAGE_SIZE));
	assert_int_equal(test_free_pages(f->m), before);
	assert_int_equal(dmamap_fault_inject(f->m, DMAMAP_FAULT_HOST_ALLOC, 1, 0), 0);
	assert_null(vmalloc(4 * PAGE_SIZE));
	assert_int_equal(test_free_pages(f->m), before);
	assert_int_equal(vstats(f->m).failures, 3);
	assert_int_equal(vstats(f->m).live_areas, 0);
	assert_int_equal(f->c.reports, 0);
}

/* What a driver leaves is reported at machine destroy, at the lines that made it. */
static void test_leaks_reported_at_destroy(void **state)
{
	struct fx *f = *state;
	struct dmamap_machine *m = test_machine(16, NULL);
	struct capture c;
	struct page *pg;
	u8 *p, *q;
	int line, vmap_line;

	dmamap_machine_set_current(m);
	capture_start(&c, m);
	p = vmalloc(5000); line = __LINE__;
	pg = alloc_page(GFP_KERNEL);
	q = vmap(&pg, 1, VM_MAP, PAGE_KERNEL); vmap_line = __LINE__;
	assert_non_null(p);
	assert_non_null(q);
	__free_page(pg); /* the page may go; its mapping still leaks */
	capture_start(&c, m);
	dmamap_machine_destroy(m);
	assert_int_equal(c.reports, 2);
	assert_int_equal(c.by_kind[DMAMAP_REPORT_LEAK], 2);
	/* in address order */
	assert_int_equal(c.rec[0].line, line);
	assert_non_null(strstr(c.rec[0].file, "test-vmalloc.c"));
	assert_non_null(strstr(c.rec[0].message, "vmalloc'd 5000 bytes"));
	assert_int_equal(c.rec[1].line, vmap_line);
	assert_non_null(strstr(c.rec[1].message, "vmap() of 1 pages"));
	dmamap_machine_set_current(f->m);
	capture_start(&f->c, NULL);
	capture_start(&f->c, f->m);
}

/* The vmap alias helpers are no-ops on the model's physically indexed cache, and compile as a driver calls them. */
static void test_kernel_vmap_range_helpers(void **state)
{
	struct fx *f = *state;
	u8 *p = vmalloc(PAGE_SIZE);

	assert_non_null(p);
	p[0] = 0xab;
	flush_kernel_vmap_range(p, PAGE_SIZE);
	invalidate_kernel_vmap_range(p, PAGE_SIZE);
	assert_int_equal(p[0], 0xab);
	assert_int_equal(((u8 *)page_address(vmalloc_to_page(p)))[0], 0xab);
	vfree(p);
	assert_int_equal(f->c.reports, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_bytes_through_both_aliases, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pages_scattered_and_given_back, setup, teardown),
		cmocka_unit_test_setup_teardown(test_one_page_area_and_its_guard, setup, teardown),
		cmocka_unit_test_setup_teardown(test_zeroed_forms_and_array_overflow, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_sizes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_device_reads_pages_mapped_one_by_one, setup, teardown),
		cmocka_unit_test_setup_teardown(test_device_reads_an_sg_table_of_the_pages, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dma_map_single_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sg_set_buf_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_linear_conversions_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_vfree_refusals, setup, teardown),
		cmocka_unit_test_setup_teardown(test_kfree_of_vmalloc_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_vfree_while_mapped_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sleep_in_atomic, setup, teardown),
		cmocka_unit_test_setup_teardown(test_use_after_vfree_faults, setup, teardown),
		cmocka_unit_test_setup_teardown(test_vmap_pages_from_anywhere, setup, teardown),
		cmocka_unit_test_setup_teardown(test_vmap_uncached_sees_ram, setup, teardown),
		cmocka_unit_test_setup_teardown(test_vmap_refusals, setup, teardown),
		cmocka_unit_test_setup_teardown(test_kvmalloc_falls_back_to_vmalloc, setup, teardown),
		cmocka_unit_test_setup_teardown(test_kvfree_sensitive_zeroes_vmalloc_memory, setup, teardown),
		cmocka_unit_test_setup_teardown(test_failures_give_everything_back, setup, teardown),
		cmocka_unit_test_setup_teardown(test_leaks_reported_at_destroy, setup, teardown),
		cmocka_unit_test_setup_teardown(test_kernel_vmap_range_helpers, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
