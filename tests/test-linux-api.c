/* SPDX-License-Identifier: MIT */
/*
 * The Linux 6.x API (<linux/dma-mapping.h> and friends): the attrs
 * translation, every call the headers add, file:line in reports, and the
 * managed resources released at device release, and the kernel basics
 * (<linux/minmax.h>, <linux/bug.h>, <linux/printk.h>, <linux/log2.h>...).
 */
/* as a driver sets it, before its first include */
#define pr_fmt(fmt) "lx-test: " fmt

#include <linux/align.h>
#include <linux/bitfield.h>
#include <linux/bitmap.h>
#include <linux/bitops.h>
#include <linux/bits.h>
#include <linux/bug.h>
#include <linux/build_bug.h>
#include <linux/container_of.h>
#include <linux/array_size.h>
#include <linux/compiler.h>
#include <linux/device.h>
#include <linux/dma-mapping.h>
#include <linux/dmapool.h>
#include <linux/err.h>
#include <linux/errno.h>
#include <linux/highmem.h>
#include <linux/io.h>
#include <linux/iommu.h>
#include <linux/kconfig.h>
#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/math.h>
#include <linux/minmax.h>
#include <linux/overflow.h>
#include <linux/printk.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/sprintf.h>
#include <linux/stddef.h>
#include <linux/string.h>
#include <linux/types.h>
#include <linux/unaligned.h>
#include <linux/wordpart.h>
#include <asm/unaligned.h> /* the name before Linux 6.12: the same calls */

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"

struct fx {
	struct dmamap_machine *m;
	struct device dev;
	struct device dev2;  /* a second device a test may initialise: the teardown releases it */
	struct capture c;
	unsigned long base_free;
};

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
	f->m = test_machine(16, NULL);
	dmamap_machine_set_current(f->m);
	if (dmamap_device_init(&f->dev, f->m, "lx")) {
		dmamap_machine_destroy(f->m);
		free(f);
		return -1;
	}
	f->base_free = test_free_pages(f->m);
	capture_start(&f->c, f->m);
	*state = f;
	return 0;
}

/* The device goes first (its managed resources with it); then nothing may be left. */
static int teardown(void **state)
{
	struct fx *f = *state;
	struct dmamap_kmalloc_stats ks;
	int ret = 0;

	if (dmamap_dev_machine(&f->dev))
		dmamap_device_release(&f->dev);
	if (dmamap_dev_machine(&f->dev2))
		dmamap_device_release(&f->dev2);
	/* every page is back, but for those kmalloc's quarantine still holds */
	dmamap_kmalloc_stats(f->m, &ks);
	if (ks.live_objects || test_free_pages(f->m) + ks.slab_pages != f->base_free) {
		fprintf(stderr, "teardown: %lu kmalloc objects live, %lu pages not given back\n", ks.live_objects,
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
	free(f);
	return ret;
}

/* ------------------------------------------------------------ attrs */

static void test_attr_bits_are_the_kernels(void **state)
{
	(void)state;
	/* Linux 6.x's values: drivers and their binary interfaces rely on them */
	assert_int_equal(DMA_ATTR_WEAK_ORDERING, 1UL << 1);
	assert_int_equal(DMA_ATTR_WRITE_COMBINE, 1UL << 2);
	assert_int_equal(DMA_ATTR_NO_KERNEL_MAPPING, 1UL << 4);
	assert_int_equal(DMA_ATTR_SKIP_CPU_SYNC, 1UL << 5);
	assert_int_equal(DMA_ATTR_FORCE_CONTIGUOUS, 1UL << 6);
	assert_int_equal(DMA_ATTR_ALLOC_SINGLE_PAGES, 1UL << 7);
	assert_int_equal(DMA_ATTR_NO_WARN, 1UL << 8);
	assert_int_equal(DMA_ATTR_PRIVILEGED, 1UL << 9);
}

/* Each allocation attribute reaches the ops set: the kernel mapping's memory type shows it. */
static void test_alloc_attrs_reach_the_ops(void **state)
{
	struct fx *f = *state;
	pgprot_t prot;
	dma_addr_t h;
	void *p;

	p = dma_alloc_coherent(&f->dev, SZ_4K, &h, GFP_KERNEL);
	assert_non_null(p);
	assert_int_equal(dmamap_consistent_pte(f->m, p, NULL, &prot), 0);
	assert_int_equal(pgprot_memtype(prot), DMAMAP_MT_DMACOHERENT);
	dma_free_coherent(&f->dev, SZ_4K, p, h);

	p = dma_alloc_attrs(&f->dev, SZ_8K, &h, GFP_KERNEL, DMA_ATTR_WRITE_COMBINE);
	assert_non_null(p);
	assert_int_equal(dmamap_consistent_pte(f->m, p, NULL, &prot), 0);
	assert_int_equal(pgprot_memtype(prot), DMAMAP_MT_WRITECOMBINE);
	dma_free_attrs(&f->dev, SZ_8K, p, h, DMA_ATTR_WRITE_COMBINE);

	p = dma_alloc_wc(&f->dev, SZ_4K, &h, GFP_KERNEL);
	assert_non_null(p);
	assert_int_equal(dmamap_consistent_pte(f->m, p, NULL, &prot), 0);
	assert_int_equal(pgprot_memtype(prot), DMAMAP_MT_WRITECOMBINE);
	dma_free_wc(&f->dev, SZ_4K, p, h);

	p = dma_alloc_attrs(&f->dev, SZ_4K, &h, GFP_KERNEL, DMA_ATTR_NO_KERNEL_MAPPING);
	assert_non_null(p);
	assert_false(dmamap_consistent_contains(f->m, p)); /* a cookie, no mapping */
	assert_false(virt_addr_valid(p));
	dma_free_attrs(&f->dev, SZ_4K, p, h, DMA_ATTR_NO_KERNEL_MAPPING);

	/* hints no simulated ops set distinguishes are accepted */
	p = dma_alloc_attrs(&f->dev, SZ_4K, &h, GFP_KERNEL,
			    DMA_ATTR_NO_WARN | DMA_ATTR_ALLOC_SINGLE_PAGES | DMA_ATTR_PRIVILEGED);
	assert_non_null(p);
	dma_free_attrs(&f->dev, SZ_4K, p, h, DMA_ATTR_NO_WARN | DMA_ATTR_ALLOC_SINGLE_PAGES | DMA_ATTR_PRIVILEGED);
	assert_int_equal(f->c.reports, 0);
}

/*
 * Linux 6.x frees with other attrs than the allocation's: reported at the
 * free's line, naming the allocation's, and freed as allocated (every page
 * back); the managed forms free with the allocation's own attrs, silently.
 */
static void test_free_with_other_attrs(void **state)
{
	struct fx *f = *state;
	struct dmamap_checker_stats st;
	int lm, l;
	dma_addr_t h;
	void *p;

	p = dma_alloc_wc(&f->dev, SZ_8K, &h, GFP_KERNEL); lm = __LINE__;
	assert_non_null(p);
	dma_free_coherent(&f->dev, SZ_8K, p, h); l = __LINE__;
	assert_int_equal(f->c.reports, 1);
	assert_int_equal(f->c.last_kind, DMAMAP_REPORT_ATTR_MISMATCH);
	assert_int_equal(f->c.last_line, l);
	assert_int_equal(f->c.rec_last.map_line, lm);
	assert_non_null(strstr(f->c.last, "with attrs none: the buffer was allocated with DMA_ATTR_WRITE_COMBINE"));
	assert_int_equal(test_free_pages(f->m), f->base_free);

	p = dma_alloc_noncoherent(&f->dev, SZ_4K, &h, DMA_FROM_DEVICE, GFP_KERNEL); lm = __LINE__;
	assert_non_null(p);
	dma_free_wc(&f->dev, SZ_4K, p, h); l = __LINE__;
	assert_int_equal(f->c.reports, 2);
	assert_int_equal(f->c.last_kind, DMAMAP_REPORT_ATTR_MISMATCH);
	assert_int_equal(f->c.last_line, l);
	assert_int_equal(f->c.rec_last.map_line, lm);
	assert_non_null(strstr(f->c.last, "with attrs DMA_ATTR_WRITE_COMBINE: the buffer was allocated with "
					  "DMA_ATTR_NON_CONSISTENT"));
	assert_int_equal(test_free_pages(f->m), f->base_free);

	/* dmam_free_coherent() takes no attrs: the buffer's own are used */
	p = dmam_alloc_attrs(&f->dev, SZ_4K, &h, GFP_KERNEL, DMA_ATTR_WRITE_COMBINE | DMA_ATTR_NO_KERNEL_MAPPING);
	assert_non_null(p);
	dmam_free_coherent(&f->dev, SZ_4K, p, h);
	assert_int_equal(f->c.reports, 2);
	assert_int_equal(test_free_pages(f->m), f->base_free);
	dmamap_checker_stats(f->m, &st);
	assert_int_equal(st.live_coherent, 0);
}

/* A NULL cpu_addr frees nothing and says nothing, as Linux 6.x's dma_free_attrs(): teardown paths rely on it. */
static void test_free_of_null_is_silent(void **state)
{
	struct fx *f = *state;
	struct dmamap_checker_stats st;
	dma_addr_t h;
	void *p;

	p = dma_alloc_coherent(&f->dev, SZ_4K, &h, GFP_KERNEL);
	assert_non_null(p);
	dma_free_coherent(&f->dev, SZ_4K, NULL, 0);
	dma_free_coherent(&f->dev, SZ_4K, NULL, h); /* the live buffer's handle: still nothing freed */
	dma_free_wc(&f->dev, SZ_4K, NULL, DMA_MAPPING_ERROR);
	dma_free_attrs(&f->dev, SZ_4K, NULL, 0, DMA_ATTR_NO_KERNEL_MAPPING);
	dma_free_attrs(&f->dev, 0, NULL, 0, 1UL << 3); /* nor are the other arguments looked at */
	(dma_free_attrs)(&f->dev, SZ_4K, NULL, 0, 0);
	(dma_free_coherent)(&f->dev, SZ_4K, NULL, 0);
	assert_int_equal(f->c.reports, 0);
	assert_int_equal(f->c.messages, 0);
	dmamap_checker_stats(f->m, &st);
	assert_int_equal(st.live_coherent, 1);

	/* a buffer that is there is checked as before: bad attrs refused, the buffer kept */
	dma_free_attrs(&f->dev, SZ_4K, p, h, 1UL << 3);
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_BAD_INPUT], 1);
	dmamap_checker_stats(f->m, &st);
	assert_int_equal(st.live_coherent, 1);
	dma_free_coherent(&f->dev, SZ_4K, p, h);
	dmamap_checker_stats(f->m, &st);
	assert_int_equal(st.live_coherent, 0);
	assert_int_equal(f->c.reports, 1);
}

/* DMA_ATTR_SKIP_CPU_SYNC reaches the map: no cleaning, the device reads what RAM had. */
static void test_skip_cpu_sync_attr(void **state)
{
	struct fx *f = *state;
	u8 *buf = kmalloc(64, GFP_KERNEL), got[64];
	dma_addr_t h;

	assert_non_null(buf);
	fill_pattern(buf, 64, 5);
	h = dma_map_single_attrs(&f->dev, buf, 64, DMA_TO_DEVICE, DMA_ATTR_SKIP_CPU_SYNC);
	assert_false(dma_mapping_error(&f->dev, h));
	assert_int_equal(dmamap_dev_read(&f->dev, h, got, 64), 0);
	assert_int_not_equal(check_pattern(got, 64, 5), 0);
	dma_unmap_single_attrs(&f->dev, h, 64, DMA_TO_DEVICE, DMA_ATTR_SKIP_CPU_SYNC);
	/* the same call without it: cleaned, the device reads the pattern */
	h = dma_map_single(&f->dev, buf, 64, DMA_TO_DEVICE);
	assert_false(dma_mapping_error(&f->dev, h));
	assert_int_equal(dmamap_dev_read(&f->dev, h, got, 64), 0);
	assert_int_equal(check_pattern(got, 64, 5), 0);
	dma_unmap_single(&f->dev, h, 64, DMA_TO_DEVICE);
	kfree(buf);
	assert_int_equal(f->c.reports, 0);
}

/* Bits Linux 6.x does not define: reported with the caller's line, refused, nothing changed. */
static void test_unknown_attr_bits_are_refused(void **state)
{
	struct fx *f = *state;
	static const unsigned long bad[] = { 1UL << 0, 1UL << 3, 1UL << 10, DMA_ATTR_WRITE_COMBINE | (1UL << 31) };
	u8 *buf = kmalloc(64, GFP_KERNEL);
	unsigned long before = test_free_pages(f->m);
	dma_addr_t h;
	void *p;
	int line;

	assert_non_null(buf);
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		unsigned long reports = f->c.reports;

		h = dma_map_single_attrs(&f->dev, buf, 64, DMA_TO_DEVICE, bad[i]); line = __LINE__;
		assert_true(dma_mapping_error(&f->dev, h));
		assert_int_equal(f->c.reports, reports + 1);
		assert_int_equal(f->c.last_kind, DMAMAP_REPORT_BAD_INPUT);
		assert_int_equal(f->c.last_line, line);
		assert_non_null(strstr(f->c.last_file, "test-linux-api.c"));
		assert_int_equal(live_mappings(f->m), 0);
		p = dma_alloc_attrs(&f->dev, SZ_4K, &h, GFP_KERNEL, bad[i]);
		assert_null(p);
		assert_int_equal(h, DMA_MAPPING_ERROR);
		assert_int_equal(test_free_pages(f->m), before);
		assert_int_equal(f->c.reports, reports + 2);
	}
	kfree(buf);
}

/* ------------------------------------------------------------ file:line */

static void test_reports_name_the_callers_line(void **state)
{
	struct fx *f = *state;
	u8 *buf = kmalloc(64, GFP_KERNEL);
	dma_addr_t h;
	int line;

	assert_non_null(buf);
	dma_unmap_single(&f->dev, DMA_MAPPING_ERROR, 64, DMA_FROM_DEVICE); line = __LINE__;
	assert_int_equal(f->c.reports, 1);
	assert_int_equal(f->c.last_line, line);
	assert_non_null(strstr(f->c.last_file, "test-linux-api.c"));
	dma_sync_single_for_cpu(&f->dev, 0x1000, 0, DMA_FROM_DEVICE); line = __LINE__;
	assert_int_equal(f->c.reports, 2);
	assert_int_equal(f->c.last_line, line);
	h = dma_map_single(&f->dev, buf, 64, 7); line = __LINE__;
	assert_true(dma_mapping_error(&f->dev, h));
	assert_int_equal(f->c.reports, 3);
	assert_int_equal(f->c.last_line, line);
	kfree(buf);
	kfree(buf); line = __LINE__;
	assert_int_equal(f->c.reports, 4);
	assert_int_equal(f->c.last_kind, DMAMAP_REPORT_PAGE_MISUSE);
	assert_int_equal(f->c.last_line, line);
}

/*
 * dma_mapping_error() returns what Linux 6.x returns: -ENOMEM for a failed
 * mapping, 0 otherwise, so a driver may hand it on as its own error. The
 * checker still learns that the handle was checked.
 */
static void test_mapping_error_is_an_errno(void **state)
{
	struct fx *f = *state;
	u8 *buf = kmalloc(64, GFP_KERNEL);
	unsigned long n;
	dma_addr_t h;

	assert_non_null(buf);
	h = dma_map_single(&f->dev, buf, 64, DMA_TO_DEVICE);
	assert_int_equal(dma_mapping_error(&f->dev, h), 0);
	assert_int_equal((dma_mapping_error)(&f->dev, h), 0);
	dma_unmap_single(&f->dev, h, 64, DMA_TO_DEVICE);
	assert_int_equal(f->c.reports, 0); /* checked: no unchecked-mapping-error report */

	/* a device that cannot reach the buffer: the mapping fails, and the driver gets the errno */
	*f->dev.dma_mask = DMA_BIT_MASK(12);
	h = dma_map_single(&f->dev, buf, 64, DMA_TO_DEVICE);
	*f->dev.dma_mask = DMA_BIT_MASK(32);
	assert_int_equal(h, DMA_MAPPING_ERROR);
	n = f->c.reports;
	assert_int_equal(dma_mapping_error(&f->dev, h), -ENOMEM);
	assert_int_equal((dma_mapping_error)(&f->dev, DMA_MAPPING_ERROR), -ENOMEM);
	assert_int_equal(f->c.reports, n);
	/* no device (reported through the process-wide handler): an error still */
	assert_int_equal(dma_mapping_error(NULL, 0x1000), -ENOMEM);

	/* never asked: the first use of the handle is reported, as before */
	n = f->c.reports;
	h = dma_map_single(&f->dev, buf, 64, DMA_TO_DEVICE);
	dma_unmap_single(&f->dev, h, 64, DMA_TO_DEVICE);
	assert_int_equal(f->c.reports, n + 1);
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_UNCHECKED_ERROR], 1);
	kfree(buf);
}

/* ------------------------------------------------------------ sg tables */

static void test_map_sgtable(void **state)
{
	struct fx *f = *state;
	struct page *pages[2];
	struct sg_table sgt;
	struct scatterlist *sg;
	u8 data[3 * PAGE_SIZE];
	unsigned int i;
	size_t off = 0;

	for (i = 0; i < 2; i++) {
		pages[i] = alloc_pages(GFP_KERNEL, 2);
		assert_non_null(pages[i]);
	}
	{
		/* pages 0 and 2 of two 4-page blocks: no two physically consecutive, four entries */
		struct page *scattered[4] = { pages[0], pages[0] + 2, pages[1], pages[1] + 2 };

		assert_int_equal(sg_alloc_table_from_pages(&sgt, scattered, 4, 100, 3 * PAGE_SIZE, GFP_KERNEL), 0);
	}
	assert_int_equal(sgt.orig_nents, 4);
	sgt.nents = 0;
	assert_int_equal(dma_map_sgtable(&f->dev, &sgt, DMA_FROM_DEVICE, 0), 0);
	assert_true(sgt.nents >= 1 && sgt.nents <= 4);
	assert_int_equal(live_mappings(f->m), 1);
	/* the device writes each segment */
	fill_pattern(data, sizeof(data), 9);
	for_each_sgtable_dma_sg(&sgt, sg, i) {
		assert_int_equal(dmamap_dev_write(&f->dev, sg_dma_address(sg), data + off, sg_dma_len(sg)), 0);
		off += sg_dma_len(sg);
	}
	assert_int_equal(off, sizeof(data));
	dma_sync_sgtable_for_cpu(&f->dev, &sgt, DMA_FROM_DEVICE);
	{
		u8 got[3 * PAGE_SIZE];

		assert_int_equal(sg_copy_to_buffer(sgt.sgl, sgt.orig_nents, got, sizeof(got)), sizeof(got));
		assert_memory_equal(got, data, sizeof(got));
	}
	dma_sync_sgtable_for_device(&f->dev, &sgt, DMA_FROM_DEVICE);
	dma_unmap_sgtable(&f->dev, &sgt, DMA_FROM_DEVICE, 0);
	assert_int_equal(live_mappings(f->m), 0);
	/* the CPU-side walk covers every entry */
	off = 0;
	for_each_sgtable_sg(&sgt, sg, i)
		off += sg->length;
	assert_int_equal(off, 3 * PAGE_SIZE);
	sg_free_table(&sgt);
	for (i = 0; i < 2; i++)
		__free_pages(pages[i], 2);
	assert_int_equal(f->c.reports, 0);
}

static void test_map_sgtable_errors(void **state)
{
	struct fx *f = *state;
	struct sg_table sgt = { 0 }, empty = { 0 }, large;
	u8 *buf = kmalloc(256, GFP_KERNEL);
	struct page *big = alloc_pages(GFP_KERNEL, 4);
	unsigned long n;

	assert_non_null(buf);
	assert_int_equal(sg_alloc_table(&sgt, 1, GFP_KERNEL), 0);
	sg_set_buf(sgt.sgl, buf, 256);
	sgt.nents = 77;
	assert_int_equal(dma_map_sgtable(&f->dev, NULL, DMA_TO_DEVICE, 0), -EINVAL);
	assert_int_equal(dma_map_sgtable(&f->dev, &empty, DMA_TO_DEVICE, 0), -EINVAL);
	assert_int_equal(dma_map_sgtable(&f->dev, &sgt, DMA_NONE, 0), -EINVAL);
	assert_int_equal(dma_map_sgtable(&f->dev, &sgt, DMA_TO_DEVICE, 1UL << 3), -EINVAL);
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_BAD_INPUT], 4);
	assert_int_equal(dma_map_sgtable(NULL, &sgt, DMA_TO_DEVICE, 0), -EINVAL);
	/* a device that cannot reach the buffer: the mapping itself fails */
	*f->dev.dma_mask = DMA_BIT_MASK(12);
	assert_int_equal(dma_map_sgtable(&f->dev, &sgt, DMA_TO_DEVICE, 0), -EIO);
	*f->dev.dma_mask = DMA_BIT_MASK(32);
	/* on the direct ops too, a want of resources (the checker's record of 16 pages) is -ENOMEM, with no report */
	assert_non_null(big);
	assert_int_equal(sg_alloc_table(&large, 1, GFP_KERNEL), 0);
	sg_set_page(large.sgl, big, SZ_64K, 0);
	n = f->c.reports;
	assert_int_equal(dmamap_fault_inject(f->m, DMAMAP_FAULT_CHECKER, 1, 0), 0);
	assert_int_equal(dma_map_sgtable(&f->dev, &large, DMA_TO_DEVICE, 0), -ENOMEM);
	assert_int_equal(dmamap_fault_inject(f->m, DMAMAP_FAULT_CHECKER, 0, 0), 0);
	assert_int_equal(f->c.reports, n);
	assert_int_equal(dma_map_sgtable(&f->dev, &large, DMA_TO_DEVICE, 0), 0); /* retried, it succeeds */
	dma_unmap_sgtable(&f->dev, &large, DMA_TO_DEVICE, 0);
	sg_free_table(&large);
	__free_pages(big, 4);
	/* refused calls left the table and the tracker alone */
	assert_int_equal(sgt.nents, 77);
	assert_int_equal(live_mappings(f->m), 0);
	dma_sync_sgtable_for_cpu(&f->dev, NULL, DMA_TO_DEVICE);
	dma_unmap_sgtable(&f->dev, NULL, DMA_TO_DEVICE, 0);
	sg_free_table(&sgt);
	kfree(buf);
}

/* Behind the IOMMU mapper, IOVA space running out is -ENOMEM, as iommu-dma says: retried later, it succeeds. */
static void test_map_sgtable_out_of_iova_space(void **state)
{
	struct fx *f = *state;
	struct dma_iommu_mapping *map = arm_iommu_create_mapping(f->m, 0x80000000, SZ_64K, 0);
	struct page *big = alloc_pages(GFP_KERNEL, 4), *small = alloc_page(GFP_KERNEL);
	struct sg_table a, b;

	assert_false(IS_ERR(map));
	assert_non_null(big);
	assert_non_null(small);
	assert_int_equal(arm_iommu_attach_device(&f->dev, map), 0);
	assert_int_equal(sg_alloc_table(&a, 1, GFP_KERNEL), 0);
	sg_set_page(a.sgl, big, SZ_64K, 0);
	assert_int_equal(sg_alloc_table(&b, 1, GFP_KERNEL), 0);
	sg_set_page(b.sgl, small, PAGE_SIZE, 0);

	assert_int_equal(dma_map_sgtable(&f->dev, &a, DMA_TO_DEVICE, 0), 0); /* the whole IOVA space */
	b.nents = 77;
	assert_int_equal(dma_map_sgtable(&f->dev, &b, DMA_TO_DEVICE, 0), -ENOMEM);
	assert_int_equal(b.nents, 77);
	assert_int_equal(f->c.reports, 0);
	dma_unmap_sgtable(&f->dev, &a, DMA_TO_DEVICE, 0);
	/* retried once space is back, it succeeds */
	assert_int_equal(dma_map_sgtable(&f->dev, &b, DMA_TO_DEVICE, 0), 0);
	dma_unmap_sgtable(&f->dev, &b, DMA_TO_DEVICE, 0);

	/* what is refused with a report is not a lack of resources */
	assert_int_equal(dma_map_sgtable(&f->dev, &b, DMA_NONE, 0), -EINVAL);
	assert_int_equal(f->c.reports, 1);
	b.sgl->length = 0;
	assert_int_equal(dma_map_sgtable(&f->dev, &b, DMA_TO_DEVICE, 0), -EIO);
	assert_int_equal(f->c.reports, 2);
	assert_int_equal(f->c.last_kind, DMAMAP_REPORT_BAD_INPUT);
	assert_int_equal(live_mappings(f->m), 0);

	arm_iommu_detach_device(&f->dev);
	arm_iommu_release_mapping(map);
	sg_free_table(&a);
	sg_free_table(&b);
	__free_pages(big, 4);
	__free_page(small);
}

static void test_sg_nents_for_len(void **state)
{
	struct scatterlist sg[3];
	u8 *buf = kmalloc(300, GFP_KERNEL);

	(void)state;
	assert_non_null(buf);
	sg_init_table(sg, 3);
	sg_set_buf(&sg[0], buf, 100);
	sg_set_buf(&sg[1], buf + 100, 100);
	sg_set_buf(&sg[2], buf + 200, 100);
	assert_int_equal(sg_nents_for_len(sg, 0), 0);
	assert_int_equal(sg_nents_for_len(sg, 1), 1);
	assert_int_equal(sg_nents_for_len(sg, 100), 1);
	assert_int_equal(sg_nents_for_len(sg, 101), 2);
	assert_int_equal(sg_nents_for_len(sg, 300), 3);
	assert_int_equal(sg_nents_for_len(sg, 301), -EINVAL);
	kfree(buf);
}

/* ------------------------------------------------------------ noncoherent, resources */

static void test_alloc_noncoherent_needs_syncs(void **state)
{
	struct fx *f = *state;
	u8 got[128];
	dma_addr_t h;
	int line;
	u8 *p;

	p = dma_alloc_noncoherent(&f->dev, SZ_4K, &h, DMA_TO_DEVICE, GFP_KERNEL);
	assert_non_null(p);
	assert_ptr_equal(dmamap_machine_of(p), f->m); /* cached: the linear map */
	fill_pattern(p, sizeof(got), 3);
	assert_int_equal(dmamap_dev_read(&f->dev, h, got, sizeof(got)), 0);
	assert_int_not_equal(check_pattern(got, sizeof(got), 3), 0); /* still in the cache */
	dma_sync_single_for_device(&f->dev, h, sizeof(got), DMA_TO_DEVICE);
	assert_int_equal(dmamap_dev_read(&f->dev, h, got, sizeof(got)), 0);
	assert_int_equal(check_pattern(got, sizeof(got), 3), 0);
	dma_free_noncoherent(&f->dev, SZ_4K, p, h, DMA_TO_DEVICE);

	/* a direction is required */
	assert_null(dma_alloc_noncoherent(&f->dev, SZ_4K, &h, DMA_NONE, GFP_KERNEL));
	assert_int_equal(h, DMA_MAPPING_ERROR);
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_BAD_INPUT], 1);
	assert_int_equal(test_free_pages(f->m), f->base_free);
	assert_int_equal(f->c.reports, 1);

	/* freed with another direction than allocated: said at the free's line, and freed all the same */
	p = dma_alloc_noncoherent(&f->dev, SZ_4K, &h, DMA_BIDIRECTIONAL, GFP_KERNEL);
	assert_non_null(p);
	dma_free_noncoherent(&f->dev, SZ_4K, p, h, DMA_FROM_DEVICE); line = __LINE__;
	assert_int_equal(f->c.reports, 2);
	assert_int_equal(f->c.last_kind, DMAMAP_REPORT_DIR_MISMATCH);
	assert_int_equal(f->c.last_line, line);
	assert_non_null(strstr(f->c.last, "with DMA_FROM_DEVICE: the buffer was allocated for DMA_BIDIRECTIONAL"));
	assert_int_equal(test_free_pages(f->m), f->base_free);
}

/*
 * dma_alloc_pages(): one block of cached pages the CPU owns, with a bus
 * address; the driver hands it over with the syncs, as for a streaming
 * mapping, and frees it with dma_free_pages().
 */
static void test_alloc_pages_cpu_owned(void **state)
{
	struct fx *f = *state;
	u8 got[SZ_8K];
	struct page *page;
	dma_addr_t h;
	u8 *p;

	page = dma_alloc_pages(&f->dev, SZ_8K, &h, DMA_TO_DEVICE, GFP_KERNEL);
	assert_non_null(page);
	assert_ptr_equal(dmamap_machine_of(page_address(page)), f->m);
	assert_true(h == page_to_phys(page)); /* the direct ops: bus address = physical */
	assert_int_equal(test_free_pages(f->m), f->base_free - 2);
	p = page_address(page);
	assert_int_equal(p[0] | p[SZ_8K - 1], 0); /* zeroed */
	/* the CPU's: its stores stay in the cache until the driver hands the pages over */
	fill_pattern(p, SZ_8K, 5);
	assert_int_equal(dmamap_dev_read(&f->dev, h, got, SZ_8K), 0);
	assert_int_not_equal(check_pattern(got, SZ_8K, 5), 0);
	dma_sync_single_for_device(&f->dev, h, SZ_8K, DMA_TO_DEVICE);
	assert_int_equal(dmamap_dev_read(&f->dev, h, got, SZ_8K), 0);
	assert_int_equal(check_pattern(got, SZ_8K, 5), 0);
	dma_free_pages(&f->dev, SZ_8K, page, h, DMA_TO_DEVICE);
	assert_int_equal(test_free_pages(f->m), f->base_free);

	/* the device fills a receive block: the CPU sees it after sync_for_cpu */
	page = dma_alloc_pages(&f->dev, 3000, &h, DMA_FROM_DEVICE, GFP_KERNEL);
	assert_non_null(page);
	p = page_address(page);
	dma_sync_single_for_device(&f->dev, h, 3000, DMA_FROM_DEVICE);
	fill_pattern(got, 3000, 6);
	assert_int_equal(dmamap_dev_write(&f->dev, h, got, 3000), 0);
	dma_sync_single_for_cpu(&f->dev, h, 3000, DMA_FROM_DEVICE);
	assert_int_equal(check_pattern(p, 3000, 6), 0);
	dma_free_pages(&f->dev, 3000, page, h, DMA_FROM_DEVICE);
	assert_int_equal(test_free_pages(f->m), f->base_free);
	assert_int_equal(f->c.reports, 0);
}

/* What the checker says of dma_alloc_pages() buffers, as of dma_alloc_noncoherent() ones. */
static void test_alloc_pages_checked(void **state)
{
	struct fx *f = *state;
	const struct captured *r;
	struct page *page, *other;
	dma_addr_t h;
	int line;

	other = alloc_pages(GFP_KERNEL, 0); /* before any buffer: never one of them */
	assert_non_null(other);

	/* freed with another direction: said at the free's line, freed all the same */
	page = dma_alloc_pages(&f->dev, SZ_4K, &h, DMA_BIDIRECTIONAL, GFP_KERNEL);
	assert_non_null(page);
	dma_free_pages(&f->dev, SZ_4K, page, h, DMA_TO_DEVICE); line = __LINE__;
	assert_int_equal(f->c.reports, 1);
	assert_int_equal(f->c.last_kind, DMAMAP_REPORT_DIR_MISMATCH);
	assert_int_equal(f->c.last_line, line);
	assert_non_null(strstr(f->c.last, "dma_free_pages of bus"));
	assert_non_null(strstr(f->c.last, "with DMA_TO_DEVICE: the buffer was allocated for DMA_BIDIRECTIONAL"));
	assert_int_equal(test_free_pages(f->m), f->base_free - 1);

	/* pages never allocated so: refused at the free's line, the caller's still */
	dma_free_pages(&f->dev, SZ_4K, other, page_to_phys(other), DMA_TO_DEVICE); line = __LINE__;
	assert_int_equal(f->c.reports, 2);
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_NOT_MAPPED], 1);
	assert_int_equal(f->c.last_line, line);
	assert_int_equal(test_free_pages(f->m), f->base_free - 1);
	__free_pages(other, 0);
	assert_int_equal(test_free_pages(f->m), f->base_free);

	/* another size: refused, still allocated; then freed right */
	page = dma_alloc_pages(&f->dev, SZ_4K, &h, DMA_FROM_DEVICE, GFP_KERNEL);
	assert_non_null(page);
	dma_free_pages(&f->dev, SZ_8K, page, h, DMA_FROM_DEVICE);
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_SIZE_MISMATCH], 1);
	assert_int_equal(test_free_pages(f->m), f->base_free - 1);
	dma_free_pages(&f->dev, SZ_4K, page, h, DMA_FROM_DEVICE);
	assert_int_equal(test_free_pages(f->m), f->base_free);
	assert_int_equal(f->c.reports, 3);

	/* one left allocated: a leak at the device's release, naming the allocation's line */
	page = dma_alloc_pages(&f->dev, SZ_4K, &h, DMA_TO_DEVICE, GFP_KERNEL); line = __LINE__;
	assert_non_null(page);
	dmamap_device_release(&f->dev);
	r = capture_find(&f->c, DMAMAP_REPORT_LEAK);
	assert_non_null(r);
	assert_int_equal(r->map_line, line);
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_LEAK], 1);
	assert_int_equal(dmamap_device_init(&f->dev, f->m, "lx"), 0);
	f->c.reports = 0;
	f->c.by_kind[DMAMAP_REPORT_LEAK] = 0;
	f->c.by_kind[DMAMAP_REPORT_API_MISUSE] = 0;
}

/* A report of the last capture, at @line, naming @call and saying @why. */
static void assert_said(const struct fx *f, enum dmamap_report_kind kind, int line, const char *call, const char *why)
{
	assert_int_equal(f->c.last_kind, kind);
	assert_int_equal(f->c.last_line, line);
	if (strncmp(f->c.last, call, strlen(call)) || !strstr(f->c.last, why))
		fail_msg("report \"%s\" does not name %s and say \"%s\"", f->c.last, call, why);
}

/*
 * A refused dma_free_pages() or dma_free_noncoherent() names the driver's
 * own call, not dma_free_attrs() it is built on; and what the reports say
 * of the buffer names the call that made it and the one that frees it.
 */
static void test_refused_frees_name_the_call(void **state)
{
	struct fx *f = *state;
	struct page *page, *other;
	dma_addr_t h, nh;
	unsigned long free_before;
	void *nc;
	int line;

	other = alloc_pages(GFP_KERNEL, 0); /* pages never allocated by dma_alloc_pages() */
	assert_non_null(other);
	free_before = test_free_pages(f->m);
	dma_free_pages(&f->dev, SZ_4K, other, page_to_phys(other), DMA_TO_DEVICE); line = __LINE__;
	assert_said(f, DMAMAP_REPORT_NOT_MAPPED, line, "dma_free_pages of bus", "no live mapping there");
	dma_free_noncoherent(&f->dev, SZ_4K, page_address(other), page_to_phys(other), DMA_TO_DEVICE); line = __LINE__;
	assert_said(f, DMAMAP_REPORT_NOT_MAPPED, line, "dma_free_noncoherent of bus", "no live mapping there");

	/* another size: refused, naming the call, the allocation and its pair */
	page = dma_alloc_pages(&f->dev, SZ_4K, &h, DMA_TO_DEVICE, GFP_KERNEL);
	assert_non_null(page);
	nc = dma_alloc_noncoherent(&f->dev, SZ_4K, &nh, DMA_FROM_DEVICE, GFP_KERNEL);
	assert_non_null(nc);
	dma_free_pages(&f->dev, SZ_8K, page, h, DMA_TO_DEVICE); line = __LINE__;
	assert_said(f, DMAMAP_REPORT_SIZE_MISMATCH, line, "dma_free_pages of bus", "[dma_alloc_pages of 0x1000 bytes");
	dma_free_noncoherent(&f->dev, SZ_8K, nc, nh, DMA_FROM_DEVICE); line = __LINE__;
	assert_said(f, DMAMAP_REPORT_SIZE_MISMATCH, line, "dma_free_noncoherent of bus",
		    "[dma_alloc_noncoherent of 0x1000 bytes");
	/* released by the wrong call: the message names the right one */
	dma_unmap_single(&f->dev, h, SZ_4K, DMA_TO_DEVICE); line = __LINE__;
	assert_said(f, DMAMAP_REPORT_KIND_MISMATCH, line, "dma_unmap_single of bus",
		    "a buffer from dma_alloc_pages, released by dma_free_pages");
	dma_free_coherent(&f->dev, SZ_4K, nc, nh); line = __LINE__;
	assert_said(f, DMAMAP_REPORT_ATTR_MISMATCH, line, "dma_free_attrs of bus", "[dma_alloc_noncoherent of");
	/* and the other's buffer, by the other call: its attrs are not the buffer's */
	dma_free_noncoherent(&f->dev, SZ_4K, page_address(page), h, DMA_TO_DEVICE); line = __LINE__;
	assert_said(f, DMAMAP_REPORT_ATTR_MISMATCH, line, "dma_free_noncoherent of bus",
		    "the buffer was allocated with DMA_ATTR_NON_CONSISTENT|DMA_ATTR_FORCE_CONTIGUOUS");
	assert_int_equal(f->c.reports, 7);
	assert_int_equal(test_free_pages(f->m), free_before); /* the two freed as they were allocated */

	/* freed already: said, naming the call and the buffer's */
	dma_free_pages(&f->dev, SZ_4K, page, h, DMA_TO_DEVICE); line = __LINE__;
	assert_said(f, DMAMAP_REPORT_DOUBLE_UNMAP, line, "dma_free_pages of bus", "[dma_alloc_pages of");
	assert_int_equal(f->c.reports, 8);
	assert_int_equal(test_free_pages(f->m), free_before);
	__free_pages(other, 0);
	assert_int_equal(test_free_pages(f->m), f->base_free);
	f->c.reports = 0;
}

/*
 * With the checker off the ops refuse a bad free themselves, and their
 * report names the driver's call as well, at its line: dma_free_pages,
 * dma_free_noncoherent, and dma_free_attrs for dma_free_coherent(), on the
 * default ops, for declared memory and behind the IOMMU mapper; nothing is
 * freed by a refusal.
 */
static void test_refused_frees_name_the_call_checker_off(void **state)
{
	struct fx *f = *state;
	struct dma_iommu_mapping *map = arm_iommu_create_mapping(f->m, 0x80000000, SZ_1M, 0);
	struct page *decl = alloc_pages(GFP_KERNEL, 2);
	struct device *idev = &f->dev2;
	struct page *page, *other, *ipage;
	dma_addr_t h, nh, ch, dh, ih;
	unsigned long free_before;
	void *nc, *cpu, *dnc;
	int line;

	assert_false(IS_ERR(map));
	assert_non_null(decl);
	assert_int_equal(dmamap_device_init(idev, f->m, "lx-iommu"), 0);
	assert_int_equal(arm_iommu_attach_device(idev, map), 0);
	arm_iommu_release_mapping(map); /* the device's reference keeps it */
	assert_int_equal(dmamap_checker_enable(f->m, false), 0);
	other = alloc_pages(GFP_KERNEL, 0); /* pages never allocated by dma_alloc_pages() */
	assert_non_null(other);
	page = dma_alloc_pages(&f->dev, SZ_4K, &h, DMA_TO_DEVICE, GFP_KERNEL);
	nc = dma_alloc_noncoherent(&f->dev, SZ_4K, &nh, DMA_FROM_DEVICE, GFP_KERNEL);
	cpu = dma_alloc_coherent(&f->dev, SZ_4K, &ch, GFP_KERNEL);
	ipage = dma_alloc_pages(idev, SZ_4K, &ih, DMA_BIDIRECTIONAL, GFP_KERNEL);
	assert_non_null(page);
	assert_non_null(nc);
	assert_non_null(cpu);
	assert_non_null(ipage);
	assert_int_equal(dma_declare_coherent_memory(&f->dev, page_to_phys(decl), 0x10000000, 4 * SZ_4K), 0);
	dnc = dma_alloc_coherent(&f->dev, SZ_4K, &dh, GFP_KERNEL);
	assert_non_null(dnc);
	assert_true(dh == 0x10000000); /* from the declared memory */
	free_before = test_free_pages(f->m);

	dma_free_pages(&f->dev, SZ_4K, other, page_to_phys(other), DMA_TO_DEVICE); line = __LINE__;
	assert_said(f, DMAMAP_REPORT_API_MISUSE, line, "dma_free_pages of ", "refused: ");
	dma_free_noncoherent(&f->dev, SZ_4K, page_address(other), page_to_phys(other), DMA_TO_DEVICE); line = __LINE__;
	assert_said(f, DMAMAP_REPORT_API_MISUSE, line, "dma_free_noncoherent of ", "refused: ");
	dma_free_pages(&f->dev, SZ_8K, page, h, DMA_TO_DEVICE); line = __LINE__;
	assert_said(f, DMAMAP_REPORT_API_MISUSE, line, "dma_free_pages of ", "refused: ");
	dma_free_noncoherent(&f->dev, SZ_8K, nc, nh, DMA_FROM_DEVICE); line = __LINE__;
	assert_said(f, DMAMAP_REPORT_API_MISUSE, line, "dma_free_noncoherent of ", "refused: ");
	dma_free_coherent(&f->dev, SZ_8K, cpu, ch); line = __LINE__;
	assert_said(f, DMAMAP_REPORT_API_MISUSE, line, "dma_free_attrs of ", "refused: ");
	dma_free_coherent(&f->dev, SZ_8K, dnc, dh); line = __LINE__;
	assert_said(f, DMAMAP_REPORT_API_MISUSE, line, "dma_free_attrs: ", "of the device's declared memory");
	dma_free_pages(idev, SZ_8K, ipage, ih, DMA_BIDIRECTIONAL); line = __LINE__;
	assert_said(f, DMAMAP_REPORT_API_MISUSE, line, "dma_free_pages of ", "refused: ");
	assert_int_equal(f->c.reports, 7);
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_API_MISUSE], 7);
	assert_int_equal(test_free_pages(f->m), free_before); /* nothing freed */

	/* freed as allocated: silent; then freed again, named as well */
	dma_free_pages(&f->dev, SZ_4K, page, h, DMA_TO_DEVICE);
	dma_free_noncoherent(&f->dev, SZ_4K, nc, nh, DMA_FROM_DEVICE);
	dma_free_coherent(&f->dev, SZ_4K, cpu, ch);
	dma_free_coherent(&f->dev, SZ_4K, dnc, dh);
	dma_free_pages(idev, SZ_4K, ipage, ih, DMA_BIDIRECTIONAL);
	assert_int_equal(f->c.reports, 7);
	dma_free_pages(&f->dev, SZ_4K, page, h, DMA_TO_DEVICE); line = __LINE__;
	assert_said(f, DMAMAP_REPORT_API_MISUSE, line, "dma_free_pages of ", "refused: ");
	dma_free_pages(idev, SZ_4K, ipage, ih, DMA_BIDIRECTIONAL); line = __LINE__;
	assert_said(f, DMAMAP_REPORT_API_MISUSE, line, "dma_free_pages of ", "refused: ");
	assert_int_equal(f->c.reports, 9);

	assert_int_equal(dmamap_checker_enable(f->m, true), 0); /* everything freed: nothing untracked is live */
	arm_iommu_detach_device(idev);
	dmamap_device_release(idev);
	dma_release_declared_memory(&f->dev);
	__free_pages(decl, 2);
	__free_pages(other, 0);
	assert_int_equal(test_free_pages(f->m), f->base_free);
	assert_int_equal(f->c.reports, 9);
	f->c.reports = 0;
}

/* Refusals change nothing; a failed allocation leaves nothing. */
static void test_alloc_pages_refused_and_failing(void **state)
{
	struct fx *f = *state;
	struct capture pc;
	unsigned long live;
	struct page *page;
	dma_addr_t h = 0;

	assert_null(dma_alloc_pages(&f->dev, SZ_4K, &h, DMA_NONE, GFP_KERNEL));
	assert_true(h == DMA_MAPPING_ERROR);
	h = 0;
	assert_null(dma_alloc_pages(&f->dev, SZ_4K, &h, DMA_TO_DEVICE, GFP_KERNEL | GFP_DMA));
	assert_true(h == DMA_MAPPING_ERROR);
	assert_null(dma_alloc_pages(&f->dev, 0, &h, DMA_TO_DEVICE, GFP_KERNEL));
	capture_start(&pc, NULL);
	assert_null(dma_alloc_pages(NULL, SZ_4K, &h, DMA_TO_DEVICE, GFP_KERNEL));
	capture_stop(NULL);
	assert_int_equal(pc.by_kind[DMAMAP_REPORT_BAD_INPUT], 1); /* no device: process-wide */
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_BAD_INPUT], 3);
	assert_int_equal(test_free_pages(f->m), f->base_free);

	page = dma_alloc_pages(&f->dev, SZ_4K, &h, DMA_TO_DEVICE, GFP_KERNEL);
	assert_non_null(page);
	live = f->c.reports;
	dma_free_pages(&f->dev, SZ_4K, NULL, h, DMA_TO_DEVICE);
	dma_free_pages(&f->dev, SZ_4K, page, h, DMA_NONE);
	assert_int_equal(f->c.reports, live + 2);
	assert_int_equal(test_free_pages(f->m), f->base_free - 1); /* still allocated */
	dma_free_pages(&f->dev, SZ_4K, page, h, DMA_TO_DEVICE);
	assert_int_equal(test_free_pages(f->m), f->base_free);

	/* no page to be had: NULL, the handle an error, nothing kept */
	assert_int_equal(dmamap_fault_inject(f->m, DMAMAP_FAULT_PAGE_ALLOC, 1, 0), 0);
	h = 0;
	assert_null(dma_alloc_pages(&f->dev, SZ_4K, &h, DMA_TO_DEVICE, GFP_KERNEL));
	assert_true(h == DMA_MAPPING_ERROR);
	assert_int_equal(dmamap_fault_inject(f->m, DMAMAP_FAULT_PAGE_ALLOC, 0, 0), 0);
	assert_int_equal(test_free_pages(f->m), f->base_free);
	assert_int_equal(live_mappings(f->m), 0);
	f->c.reports = 0;
	f->c.by_kind[DMAMAP_REPORT_BAD_INPUT] = 0;
}

/*
 * A device with declared memory: dma_alloc_pages() and dma_alloc_noncoherent()
 * take pages of RAM, cached in the linear map, never the declared ones.
 */
static void test_alloc_pages_not_from_declared_memory(void **state)
{
	struct fx *f = *state;
	struct page *decl = alloc_pages(GFP_KERNEL, 2);
	struct page *page;
	dma_addr_t h, hc, hn;
	void *c, *nc;

	assert_non_null(decl);
	assert_int_equal(dma_declare_coherent_memory(&f->dev, page_to_phys(decl), 0x10000000, 4 * SZ_4K), 0);
	page = dma_alloc_pages(&f->dev, SZ_4K, &h, DMA_TO_DEVICE, GFP_KERNEL);
	assert_non_null(page);
	assert_true(h == page_to_phys(page));
	assert_true(page_to_pfn(page) < page_to_pfn(decl) || page_to_pfn(page) >= page_to_pfn(decl) + 4);
	assert_ptr_equal(dmamap_machine_of(page_address(page)), f->m);
	nc = dma_alloc_noncoherent(&f->dev, SZ_4K, &hn, DMA_FROM_DEVICE, GFP_KERNEL);
	assert_non_null(nc);
	assert_true(hn == virt_to_phys(nc));
	assert_true(PFN_DOWN(hn) < page_to_pfn(decl) || PFN_DOWN(hn) >= page_to_pfn(decl) + 4);
	assert_ptr_equal(virt_to_page(nc), pfn_to_page(PFN_DOWN(hn))); /* the linear map: cached */
	/* the declared memory is all there still for the coherent buffers */
	c = dma_alloc_coherent(&f->dev, 4 * SZ_4K, &hc, GFP_KERNEL);
	assert_non_null(c);
	assert_true(hc == 0x10000000);
	dma_free_coherent(&f->dev, 4 * SZ_4K, c, hc);
	dma_free_noncoherent(&f->dev, SZ_4K, nc, hn, DMA_FROM_DEVICE);
	dma_free_pages(&f->dev, SZ_4K, page, h, DMA_TO_DEVICE);
	dma_release_declared_memory(&f->dev);
	__free_pages(decl, 2);
	assert_int_equal(test_free_pages(f->m), f->base_free);
	assert_int_equal(f->c.reports, 0);
}

/* Behind the IOMMU mapper: an IOVA for the device, one block of pages for the CPU. */
static void test_alloc_pages_behind_iommu(void **state)
{
	struct fx *f = *state;
	struct dma_iommu_mapping *map = arm_iommu_create_mapping(f->m, 0x80000000, SZ_16M, 0);
	u8 got[3 * SZ_4K];
	struct page *page;
	dma_addr_t h;
	u8 *p;

	assert_false(IS_ERR(map));
	assert_int_equal(arm_iommu_attach_device(&f->dev, map), 0);
	page = dma_alloc_pages(&f->dev, sizeof(got), &h, DMA_TO_DEVICE, GFP_KERNEL);
	assert_non_null(page);
	assert_true(h >= 0x80000000 && h < 0x80000000 + SZ_16M);
	p = page_address(page);
	assert_ptr_equal(dmamap_machine_of(p), f->m);
	/* one block: the pages after the first are the next frames */
	assert_true(page_to_phys(page) + 2 * SZ_4K == page_to_phys(dmamap_pfn_to_page(f->m, page_to_pfn(page) + 2)));
	fill_pattern(p, sizeof(got), 8);
	dma_sync_single_for_device(&f->dev, h, sizeof(got), DMA_TO_DEVICE);
	assert_int_equal(dmamap_dev_read(&f->dev, h, got, sizeof(got)), 0);
	assert_int_equal(check_pattern(got, sizeof(got), 8), 0);
	/* the IOVA goes with the free: the same one is had again */
	dma_free_pages(&f->dev, sizeof(got), page, h, DMA_TO_DEVICE);
	{
		dma_addr_t again;

		page = dma_alloc_pages(&f->dev, sizeof(got), &again, DMA_TO_DEVICE, GFP_KERNEL);
		assert_non_null(page);
		assert_true(again == h);
		dma_free_pages(&f->dev, sizeof(got), page, again, DMA_TO_DEVICE);
	}
	arm_iommu_detach_device(&f->dev);
	arm_iommu_release_mapping(map);
	assert_int_equal(test_free_pages(f->m), f->base_free);
	assert_int_equal(f->c.reports, 0);
}

/* Read every byte at @p as the CPU would, pulling its lines into the cache; the sum, so nothing is optimised out. */
static unsigned cpu_touch(const u8 *p, size_t len)
{
	const volatile u8 *v = p;
	unsigned sum = 0;

	for (size_t i = 0; i < len; i++)
		sum += v[i];
	return sum;
}

/*
 * dma_alloc_noncontiguous(): one DMA segment over pages the CPU owns,
 * zeroed; what the CPU stores reaches the device after
 * dma_sync_sgtable_for_device(), what the device writes reaches the CPU
 * after dma_sync_sgtable_for_cpu() and not before; the free gives every
 * page back.
 */
static void test_alloc_noncontiguous_syncs(void **state)
{
	struct fx *f = *state;
	u8 got[SZ_8K];
	struct sg_table *sgt;
	struct page *page;
	unsigned sum;
	u8 *p;
	int stale;

	sgt = dma_alloc_noncontiguous(&f->dev, SZ_8K, DMA_TO_DEVICE, GFP_KERNEL, 0);
	assert_non_null(sgt);
	assert_int_equal(sgt->nents, 1);
	assert_int_equal(sgt->orig_nents, 1);
	assert_int_equal(sg_dma_len(sgt->sgl), SZ_8K);
	assert_int_equal(sgt->sgl->length, SZ_8K);
	page = sg_page(sgt->sgl);
	assert_true(sg_dma_address(sgt->sgl) == page_to_phys(page)); /* the direct ops: bus address = physical */
	assert_int_equal(test_free_pages(f->m), f->base_free - 2);
	p = dma_vmap_noncontiguous(&f->dev, SZ_8K, sgt);
	assert_ptr_equal(p, page_address(page));
	assert_int_equal(p[0] | p[SZ_8K - 1], 0); /* zeroed */
	/* the CPU's: its stores reach the device only once the table is handed over */
	fill_pattern(p, SZ_8K, 7);
	assert_int_equal(dmamap_dev_read(&f->dev, sg_dma_address(sgt->sgl), got, SZ_8K), 0);
	assert_int_not_equal(check_pattern(got, SZ_8K, 7), 0);
	dma_sync_sgtable_for_device(&f->dev, sgt, DMA_TO_DEVICE);
	assert_int_equal(dmamap_dev_read(&f->dev, sg_dma_address(sgt->sgl), got, SZ_8K), 0);
	assert_int_equal(check_pattern(got, SZ_8K, 7), 0);
	dma_vunmap_noncontiguous(&f->dev, p);
	dma_free_noncontiguous(&f->dev, SZ_8K, sgt, DMA_TO_DEVICE);
	assert_int_equal(test_free_pages(f->m), f->base_free);

	/* a receive table: the device's bytes reach the CPU after sync_for_cpu, and not without it */
	sgt = dma_alloc_noncontiguous(&f->dev, 3000, DMA_FROM_DEVICE, GFP_KERNEL, DMA_ATTR_ALLOC_SINGLE_PAGES);
	assert_non_null(sgt);
	p = dma_vmap_noncontiguous(&f->dev, 3000, sgt);
	assert_non_null(p);
	dma_sync_sgtable_for_device(&f->dev, sgt, DMA_FROM_DEVICE);
	misuse_begin(f->m); /* the CPU reads on: lines of the old bytes in its cache */
	sum = cpu_touch(p, 3000);
	misuse_end(f->m);
	assert_int_equal(sum, 0);
	fill_pattern(got, 3000, 8);
	assert_int_equal(dmamap_dev_write(&f->dev, sg_dma_address(sgt->sgl), got, 3000), 0);
	misuse_begin(f->m);
	stale = check_pattern(p, 3000, 8);
	misuse_end(f->m);
	assert_int_not_equal(stale, 0);
	dma_sync_sgtable_for_cpu(&f->dev, sgt, DMA_FROM_DEVICE);
	assert_int_equal(check_pattern(p, 3000, 8), 0);
	dma_vunmap_noncontiguous(&f->dev, p);
	dma_free_noncontiguous(&f->dev, 3000, sgt, DMA_FROM_DEVICE);
	assert_int_equal(test_free_pages(f->m), f->base_free);
	assert_int_equal(live_mappings(f->m), 0);
	assert_int_equal(f->c.reports, 0);
}

/* Behind the IOMMU mapper: an IOVA for the one segment, one block of pages for the CPU; the free gives both back. */
static void test_alloc_noncontiguous_behind_iommu(void **state)
{
	struct fx *f = *state;
	struct dma_iommu_mapping *map = arm_iommu_create_mapping(f->m, 0x80000000, SZ_16M, 0);
	u8 got[3 * SZ_4K];
	struct sg_table *sgt;
	dma_addr_t h;
	u8 *p;
	int stale;

	assert_false(IS_ERR(map));
	assert_int_equal(arm_iommu_attach_device(&f->dev, map), 0);
	sgt = dma_alloc_noncontiguous(&f->dev, sizeof(got), DMA_BIDIRECTIONAL, GFP_KERNEL, 0);
	assert_non_null(sgt);
	assert_int_equal(sgt->nents, 1);
	h = sg_dma_address(sgt->sgl);
	assert_true(h >= 0x80000000 && h < 0x80000000 + SZ_16M);
	assert_int_equal(sg_dma_len(sgt->sgl), sizeof(got));
	p = dma_vmap_noncontiguous(&f->dev, sizeof(got), sgt);
	assert_ptr_equal(p, page_address(sg_page(sgt->sgl)));
	/* one block: the pages after the first are the next frames */
	assert_true(page_to_phys(sg_page(sgt->sgl)) + 2 * SZ_4K ==
		    page_to_phys(dmamap_pfn_to_page(f->m, page_to_pfn(sg_page(sgt->sgl)) + 2)));
	fill_pattern(p, sizeof(got), 9);
	dma_sync_sgtable_for_device(&f->dev, sgt, DMA_BIDIRECTIONAL);
	assert_int_equal(dmamap_dev_read(&f->dev, h, got, sizeof(got)), 0);
	assert_int_equal(check_pattern(got, sizeof(got), 9), 0);
	/* the device answers through the IOVA: stale for the CPU until sync_for_cpu */
	misuse_begin(f->m);
	(void)cpu_touch(p, sizeof(got));
	misuse_end(f->m);
	fill_pattern(got, sizeof(got), 10);
	assert_int_equal(dmamap_dev_write(&f->dev, h, got, sizeof(got)), 0);
	misuse_begin(f->m);
	stale = check_pattern(p, sizeof(got), 10);
	misuse_end(f->m);
	assert_int_not_equal(stale, 0);
	dma_sync_sgtable_for_cpu(&f->dev, sgt, DMA_BIDIRECTIONAL);
	assert_int_equal(check_pattern(p, sizeof(got), 10), 0);
	dma_vunmap_noncontiguous(&f->dev, p);
	dma_free_noncontiguous(&f->dev, sizeof(got), sgt, DMA_BIDIRECTIONAL);
	/* the IOVA went with the free: the same one is had again */
	sgt = dma_alloc_noncontiguous(&f->dev, sizeof(got), DMA_TO_DEVICE, GFP_KERNEL, 0);
	assert_non_null(sgt);
	assert_true(sg_dma_address(sgt->sgl) == h);
	dma_free_noncontiguous(&f->dev, sizeof(got), sgt, DMA_TO_DEVICE);
	arm_iommu_detach_device(&f->dev);
	arm_iommu_release_mapping(map);
	assert_int_equal(test_free_pages(f->m), f->base_free);
	assert_int_equal(f->c.reports, 0);
}

/*
 * Frees, syncs and kernel mappings that name no table of the device, or
 * name it wrongly: reported at the caller's line, and nothing freed but
 * where the kernel's dma-debug frees all the same (another direction, a
 * mapping never undone).
 */
static void test_noncontiguous_misuse(void **state)
{
	struct fx *f = *state;
	struct sg_table *sgt, *other, plain = { 0 };
	unsigned long free_before;
	dma_addr_t h;
	u8 *p, *va;
	int line;

	assert_int_equal(dmamap_device_init(&f->dev2, f->m, "lx2"), 0);
	sgt = dma_alloc_noncontiguous(&f->dev, SZ_4K, DMA_FROM_DEVICE, GFP_KERNEL, 0); line = __LINE__;
	other = dma_alloc_noncontiguous(&f->dev2, SZ_4K, DMA_TO_DEVICE, GFP_KERNEL, 0);
	assert_non_null(sgt);
	assert_non_null(other);
	free_before = test_free_pages(f->m);

	/* another size: refused as dma_free_pages() refuses it, naming the call and the allocation's */
	dma_free_noncontiguous(&f->dev, SZ_8K, sgt, DMA_FROM_DEVICE); line = __LINE__;
	assert_said(f, DMAMAP_REPORT_SIZE_MISMATCH, line, "dma_free_noncontiguous of bus",
		    "[dma_alloc_noncontiguous of 0x1000 bytes");
	assert_int_equal(test_free_pages(f->m), free_before);
	/* a table the device never had, another device's: refused */
	dma_free_noncontiguous(&f->dev, SZ_4K, &plain, DMA_FROM_DEVICE); line = __LINE__;
	assert_said(f, DMAMAP_REPORT_NOT_MAPPED, line, "dma_free_noncontiguous(", "not a table");
	dma_free_noncontiguous(&f->dev, SZ_4K, other, DMA_TO_DEVICE); line = __LINE__;
	assert_said(f, DMAMAP_REPORT_NOT_MAPPED, line, "dma_free_noncontiguous(", "gave device lx2, not this one");
	dma_free_noncontiguous(&f->dev, SZ_4K, NULL, DMA_FROM_DEVICE); line = __LINE__;
	assert_said(f, DMAMAP_REPORT_BAD_INPUT, line, "dma_free_noncontiguous", "NULL table");
	/* its block freed by another call: refused, the table would describe freed pages */
	h = sg_dma_address(sgt->sgl);
	va = page_address(sg_page(sgt->sgl));
	dma_free_pages(&f->dev, SZ_4K, sg_page(sgt->sgl), h, DMA_FROM_DEVICE); line = __LINE__;
	assert_said(f, DMAMAP_REPORT_KIND_MISMATCH, line, "dma_free_pages of bus", "dma_free_noncontiguous");
	dma_free_noncoherent(&f->dev, SZ_4K, va, h, DMA_FROM_DEVICE); line = __LINE__;
	assert_said(f, DMAMAP_REPORT_KIND_MISMATCH, line, "dma_free_noncoherent of bus", "dma_free_noncontiguous");
	dma_free_coherent(&f->dev, SZ_4K, va, h); line = __LINE__;
	assert_said(f, DMAMAP_REPORT_KIND_MISMATCH, line, "dma_free_attrs of bus", "dma_free_noncontiguous");
	assert_int_equal(test_free_pages(f->m), free_before);
	assert_int_equal(f->c.reports, 7);

	/* a sync in another direction, a mapping of another size or of nothing: refused */
	dma_sync_sgtable_for_cpu(&f->dev, sgt, DMA_TO_DEVICE); line = __LINE__;
	assert_said(f, DMAMAP_REPORT_SYNC_DIRECTION, line, "dma_sync_sgtable_for_cpu with DMA_TO_DEVICE",
		    "a sync names the allocation's direction");
	assert_null(dma_vmap_noncontiguous(&f->dev, SZ_8K, sgt)); line = __LINE__;
	assert_said(f, DMAMAP_REPORT_SIZE_MISMATCH, line, "dma_vmap_noncontiguous(", "allocated with 0x1000 bytes");
	assert_null(dma_vmap_noncontiguous(&f->dev, SZ_4K, other)); line = __LINE__;
	assert_said(f, DMAMAP_REPORT_NOT_MAPPED, line, "dma_vmap_noncontiguous(", "not this one");
	dma_vunmap_noncontiguous(&f->dev, page_address(sg_page(sgt->sgl))); line = __LINE__; /* never mapped */
	assert_said(f, DMAMAP_REPORT_NOT_MAPPED, line, "dma_vunmap_noncontiguous(", "no kernel mapping");
	assert_int_equal(f->c.reports, 11);

	/* the table still works: a sync in its direction, then a free with another direction and a mapping left */
	p = dma_vmap_noncontiguous(&f->dev, SZ_4K, sgt);
	assert_non_null(p);
	dma_sync_sgtable_for_cpu(&f->dev, sgt, DMA_FROM_DEVICE);
	assert_int_equal(f->c.reports, 11);
	dma_free_noncontiguous(&f->dev, SZ_4K, sgt, DMA_BIDIRECTIONAL); line = __LINE__;
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_DIR_MISMATCH], 1);
	assert_said(f, DMAMAP_REPORT_LEAK, line, "dma_free_noncontiguous of bus", "dma_vunmap_noncontiguous() first");
	assert_int_equal(test_free_pages(f->m), free_before + 1); /* freed all the same */
	/* freed already: refused */
	dma_free_noncontiguous(&f->dev, SZ_4K, sgt, DMA_FROM_DEVICE); line = __LINE__;
	assert_said(f, DMAMAP_REPORT_NOT_MAPPED, line, "dma_free_noncontiguous(", "freed already?");
	assert_int_equal(f->c.reports, 14);
	dma_free_noncontiguous(&f->dev2, SZ_4K, other, DMA_TO_DEVICE);
	assert_int_equal(f->c.reports, 14);

	/* with the checker off, the ops refuse another size themselves: the table stays, then goes right */
	assert_int_equal(dmamap_checker_enable(f->m, false), 0);
	sgt = dma_alloc_noncontiguous(&f->dev, SZ_4K, DMA_TO_DEVICE, GFP_KERNEL, 0);
	assert_non_null(sgt);
	free_before = test_free_pages(f->m);
	dma_free_noncontiguous(&f->dev, SZ_8K, sgt, DMA_TO_DEVICE); line = __LINE__;
	assert_said(f, DMAMAP_REPORT_API_MISUSE, line, "dma_free_noncontiguous of ", "refused: ");
	assert_int_equal(test_free_pages(f->m), free_before);
	dma_sync_sgtable_for_device(&f->dev, sgt, DMA_TO_DEVICE);
	dma_free_noncontiguous(&f->dev, SZ_4K, sgt, DMA_TO_DEVICE);
	assert_int_equal(test_free_pages(f->m), f->base_free);
	assert_int_equal(f->c.reports, 15);
	assert_int_equal(dmamap_checker_enable(f->m, true), 0);
	f->c.reports = 0;
}

/* Refusals at allocation change nothing; a failed allocation (its pages, its table) leaves nothing. */
/*
 * dma_mmap_pages() and dma_mmap_noncontiguous(): the user mapping aliases
 * the block from vm_pgoff on, cached: user stores reach the device only
 * through a sync for the device. An offset or length past the block is
 * -ENXIO with nothing mapped; a bad page, vma or table is reported.
 */
static void test_mmap_pages_and_noncontiguous(void **state)
{
	struct fx *f = *state;
	struct vm_area_struct *vma, *small, fake = { 0 };
	u8 got[2 * SZ_4K];
	struct sg_table *sgt;
	unsigned long pfn;
	struct page *page;
	pgprot_t prot;
	dma_addr_t h;
	int line;

	page = dma_alloc_pages(&f->dev, 3 * SZ_4K, &h, DMA_TO_DEVICE, GFP_KERNEL);
	assert_non_null(page);
	vma = dmamap_vma_create(f->m, 2 * SZ_4K);
	assert_non_null(vma);
	assert_int_equal(vma_pages(vma), 2);
	/* the last two pages of the block: the vma ends exactly at its end */
	vma->vm_pgoff = 1;
	assert_int_equal(dma_mmap_pages(&f->dev, vma, 3 * SZ_4K, page), 0);
	assert_int_equal(dmamap_vma_pte(vma, vma->vm_start, &pfn, &prot), 0);
	assert_int_equal(pfn, page_to_pfn(page) + 1);
	assert_int_equal(pgprot_memtype(prot), DMAMAP_MT_CACHED);
	assert_int_equal(dmamap_vma_pte(vma, vma->vm_end - 1, &pfn, NULL), 0);
	assert_int_equal(pfn, page_to_pfn(page) + 2);
	/* user stores are the CPU's: in the linear map at once, at the device after the sync */
	fill_pattern((u8 *)vma->vm_start, 2 * SZ_4K, 21);
	assert_int_equal(check_pattern((u8 *)page_address(page) + SZ_4K, 2 * SZ_4K, 21), 0);
	assert_int_equal(dmamap_dev_read(&f->dev, h + SZ_4K, got, sizeof(got)), 0);
	assert_int_not_equal(check_pattern(got, sizeof(got), 21), 0);
	dma_sync_single_for_device(&f->dev, h, 3 * SZ_4K, DMA_TO_DEVICE);
	assert_int_equal(dmamap_dev_read(&f->dev, h + SZ_4K, got, sizeof(got)), 0);
	assert_int_equal(check_pattern(got, sizeof(got), 21), 0);
	/* mapped already: remap_pfn_range()'s -EBUSY */
	assert_int_equal(dma_mmap_pages(&f->dev, vma, 3 * SZ_4K, page), -EBUSY);
	dmamap_vma_destroy(vma);

	/* past the block: -ENXIO, not reported, nothing mapped (a size ending mid-page counts its page) */
	small = dmamap_vma_create(f->m, 2 * SZ_4K);
	assert_non_null(small);
	small->vm_pgoff = 2;
	assert_int_equal(dma_mmap_pages(&f->dev, small, 3 * SZ_4K, page), -ENXIO);
	small->vm_pgoff = 3;
	assert_int_equal(dma_mmap_pages(&f->dev, small, 3 * SZ_4K, page), -ENXIO);
	small->vm_pgoff = 0;
	assert_int_equal(dma_mmap_pages(&f->dev, small, SZ_4K, page), -ENXIO);
	assert_int_equal(dmamap_vma_pte(small, small->vm_start, NULL, NULL), -ENOENT);
	assert_int_equal(f->c.reports, 0);
	assert_int_equal(dma_mmap_pages(&f->dev, small, SZ_4K + 1, page), 0);
	dmamap_vma_destroy(small);

	/* a NULL page, a vma the library did not make: reported, nothing mapped */
	small = dmamap_vma_create(f->m, SZ_4K);
	assert_non_null(small);
	assert_int_equal(dma_mmap_pages(&f->dev, small, SZ_4K, NULL), -EINVAL); line = __LINE__;
	assert_said(f, DMAMAP_REPORT_BAD_INPUT, line, "dma_mmap_pages", "NULL page");
	fake.vm_end = SZ_4K;
	assert_int_equal(dma_mmap_pages(&f->dev, &fake, SZ_4K, page), -EINVAL); line = __LINE__;
	assert_said(f, DMAMAP_REPORT_BAD_INPUT, line, "dma_mmap_pages", "not a vma from dmamap_vma_create");
	assert_int_equal(dmamap_vma_pte(small, small->vm_start, NULL, NULL), -ENOENT);
	assert_int_equal(f->c.reports, 2);
	dma_free_pages(&f->dev, 3 * SZ_4K, page, h, DMA_TO_DEVICE);

	/* a non-contiguous table: its block, from vm_pgoff 0 */
	sgt = dma_alloc_noncontiguous(&f->dev, 2 * SZ_4K, DMA_TO_DEVICE, GFP_KERNEL, 0);
	assert_non_null(sgt);
	assert_int_equal(dma_mmap_noncontiguous(&f->dev, small, SZ_4K, sgt), -EINVAL); line = __LINE__;
	assert_said(f, DMAMAP_REPORT_SIZE_MISMATCH, line, "dma_mmap_noncontiguous(", "allocated with 0x2000 bytes");
	assert_int_equal(dma_mmap_noncontiguous(&f->dev, small, SZ_4K, NULL), -EINVAL); line = __LINE__;
	assert_said(f, DMAMAP_REPORT_BAD_INPUT, line, "dma_mmap_noncontiguous", "NULL table");
	assert_int_equal(dmamap_vma_pte(small, small->vm_start, NULL, NULL), -ENOENT);
	assert_int_equal(f->c.reports, 4);
	dmamap_vma_destroy(small);
	vma = dmamap_vma_create(f->m, 2 * SZ_4K);
	assert_non_null(vma);
	assert_int_equal(dma_mmap_noncontiguous(&f->dev, vma, 2 * SZ_4K, sgt), 0);
	assert_int_equal(dmamap_vma_pte(vma, vma->vm_start, &pfn, NULL), 0);
	assert_int_equal(pfn, page_to_pfn(sg_page(sgt->sgl)));
	fill_pattern((u8 *)vma->vm_start, 2 * SZ_4K, 22);
	assert_int_equal(dmamap_dev_read(&f->dev, sg_dma_address(sgt->sgl), got, sizeof(got)), 0);
	assert_int_not_equal(check_pattern(got, sizeof(got), 22), 0);
	dma_sync_sgtable_for_device(&f->dev, sgt, DMA_TO_DEVICE);
	assert_int_equal(dmamap_dev_read(&f->dev, sg_dma_address(sgt->sgl), got, sizeof(got)), 0);
	assert_int_equal(check_pattern(got, sizeof(got), 22), 0);
	dmamap_vma_destroy(vma);
	dma_free_noncontiguous(&f->dev, 2 * SZ_4K, sgt, DMA_TO_DEVICE);
	assert_int_equal(test_free_pages(f->m), f->base_free);
	assert_int_equal(f->c.reports, 4);
}

static void test_alloc_noncontiguous_refused_and_failing(void **state)
{
	struct fx *f = *state;
	static const enum dmamap_fault_site sites[] = { DMAMAP_FAULT_PAGE_ALLOC, DMAMAP_FAULT_HOST_ALLOC };
	struct sg_table *sgt;
	struct capture pc;
	int line;

	sgt = dma_alloc_noncontiguous(&f->dev, SZ_4K, DMA_TO_DEVICE, GFP_KERNEL, DMA_ATTR_WRITE_COMBINE); line = __LINE__;
	assert_null(sgt);
	assert_said(f, DMAMAP_REPORT_BAD_INPUT, line, "dma_alloc_noncontiguous: attrs 0x4",
		    "only DMA_ATTR_ALLOC_SINGLE_PAGES");
	assert_null(dma_alloc_noncontiguous(&f->dev, SZ_4K, DMA_NONE, GFP_KERNEL, 0));
	assert_null(dma_alloc_noncontiguous(&f->dev, SZ_4K, DMA_TO_DEVICE, GFP_KERNEL | GFP_DMA, 0)); line = __LINE__;
	assert_said(f, DMAMAP_REPORT_BAD_INPUT, line, "dma_alloc_noncontiguous: gfp", "asks for a zone");
	assert_null(dma_alloc_noncontiguous(&f->dev, 0, DMA_TO_DEVICE, GFP_KERNEL, 0));
	capture_start(&pc, NULL);
	assert_null(dma_alloc_noncontiguous(NULL, SZ_4K, DMA_TO_DEVICE, GFP_KERNEL, 0));
	capture_stop(NULL);
	assert_int_equal(pc.by_kind[DMAMAP_REPORT_BAD_INPUT], 1); /* no device: process-wide */
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_BAD_INPUT], 4);
	assert_int_equal(test_free_pages(f->m), f->base_free);

	/*
	 * No page, or no host memory (the table's, the checker's record), at
	 * each attempt in turn until one succeeds: NULL, nothing kept; the
	 * first page attempt is the block's.
	 */
	for (size_t s = 0; s < ARRAY_SIZE(sites); s++) {
		unsigned nth;

		for (nth = 1; nth < 8; nth++) {
			assert_int_equal(dmamap_fault_inject(f->m, sites[s], nth, 0), 0);
			sgt = dma_alloc_noncontiguous(&f->dev, SZ_8K, DMA_FROM_DEVICE, GFP_KERNEL, 0);
			assert_int_equal(dmamap_fault_inject(f->m, sites[s], 0, 0), 0);
			if (sgt)
				break;
			assert_int_equal(test_free_pages(f->m), f->base_free);
			assert_int_equal(live_mappings(f->m), 0);
		}
		assert_true(nth > 1 && nth < 8);
		dma_free_noncontiguous(&f->dev, SZ_8K, sgt, DMA_FROM_DEVICE);
		assert_int_equal(test_free_pages(f->m), f->base_free);
	}
	assert_int_equal(f->c.reports, 4); /* the failures are not misuse: unreported */
	f->c.reports = 0;
}

/*
 * A table the driver never frees: its block is reported at the device's
 * release, with the allocation's line, and freed; the table goes too.
 */
static void test_noncontiguous_left_is_a_leak(void **state)
{
	struct fx *f = *state;
	const struct captured *r;
	struct sg_table *sgt;
	int line;

	sgt = dma_alloc_noncontiguous(&f->dev, SZ_8K, DMA_TO_DEVICE, GFP_KERNEL, 0); line = __LINE__;
	assert_non_null(sgt);
	assert_non_null(dma_vmap_noncontiguous(&f->dev, SZ_8K, sgt));
	dmamap_device_release(&f->dev);
	assert_int_equal(f->c.reports, 1);
	r = capture_find(&f->c, DMAMAP_REPORT_LEAK);
	assert_non_null(r);
	assert_int_equal(r->map_line, line);
	assert_non_null(strstr(r->message, "dma_alloc_noncontiguous"));
	assert_int_equal(test_free_pages(f->m), f->base_free);
	assert_int_equal(dmamap_device_init(&f->dev, f->m, "lx"), 0);
	f->c.reports = 0;
}

/* ------------------------------------------------ IOVA-based DMA API */

/* An IOMMU mapping of 16 MiB at 0x80000000, @dev attached to it. */
static struct dma_iommu_mapping *iova_attach(struct device *dev)
{
	struct dma_iommu_mapping *map = arm_iommu_create_mapping(dmamap_dev_machine(dev), 0x80000000, SZ_16M, 0);

	assert_false(IS_ERR(map));
	assert_int_equal(arm_iommu_attach_device(dev, map), 0);
	return map;
}

static void iova_detach(struct device *dev, struct dma_iommu_mapping *map)
{
	arm_iommu_detach_device(dev);
	arm_iommu_release_mapping(map);
}

/*
 * Without an IOMMU mapper there is no range and nothing to report: the
 * driver falls back to dma_map_page(). Behind one, a zero size is the
 * kernel's WARN, and an IOVA space that fails gives no range either.
 */
static void test_iova_try_alloc_needs_the_iommu(void **state)
{
	struct fx *f = *state;
	struct dma_iommu_mapping *map;
	struct dma_iova_state st = { .addr = 0x1234, .__size = 99 };
	struct page *page = alloc_pages(GFP_KERNEL, 0);
	int line;

	assert_non_null(page);
	/* the direct ops */
	assert_false(dma_iova_try_alloc(&f->dev, &st, page_to_phys(page), SZ_4K));
	assert_int_equal(st.addr, 0);
	assert_false(dma_use_iova(&st));
	/* dmabounce */
	assert_int_equal(dmamap_device_init(&f->dev2, f->m, "lx2"), 0);
	assert_int_equal(dmabounce_register_dev(&f->dev2, 512, 4096, NULL), 0);
	st.__size = 1;
	assert_false(dma_iova_try_alloc(&f->dev2, &st, page_to_phys(page), SZ_4K));
	assert_false(dma_use_iova(&st));
	assert_int_equal(f->c.reports, 0);

	map = iova_attach(&f->dev);
	assert_false(dma_iova_try_alloc(&f->dev, &st, page_to_phys(page), 0)); line = __LINE__;
	assert_said(f, DMAMAP_REPORT_API_MISUSE, line, "dma_iova_try_alloc of phys", "size 0");
	assert_false(dma_use_iova(&st));
	assert_int_equal(dmamap_fault_inject(f->m, DMAMAP_FAULT_IOVA, 1, 0), 0);
	assert_false(dma_iova_try_alloc(&f->dev, &st, page_to_phys(page), SZ_4K));
	assert_false(dma_use_iova(&st));
	/* more than the window */
	assert_false(dma_iova_try_alloc(&f->dev, &st, page_to_phys(page), SZ_32M));
	assert_int_equal(f->c.reports, 1);
	iova_detach(&f->dev, map);
	__free_pages(page, 0);
}

/*
 * The range keeps the page offset of the address it was allocated for; the
 * device reaches linked pages through it, with the link direction's
 * permission, sees the CPU's stores only through the link's maintenance,
 * and its own bytes reach the CPU through a FROM_DEVICE unlink. Unlinked
 * pages fault; the IOVA given back is had again.
 */
static void test_iova_link_and_unlink(void **state)
{
	struct fx *f = *state;
	struct dma_iommu_mapping *map = iova_attach(&f->dev);
	struct page *page = alloc_pages(GFP_KERNEL, 1);
	size_t size = SZ_4K + 0x200;
	struct dma_iova_state st;
	u8 got[SZ_4K + 0x200];
	phys_addr_t phys;
	dma_addr_t first;
	u8 *p;
	int stale;

	assert_non_null(page);
	assert_int_equal(dmamap_checker_enable(f->m, true), 0);
	p = (u8 *)page_address(page) + 0x100;
	phys = page_to_phys(page) + 0x100;
	assert_true(dma_iova_try_alloc(&f->dev, &st, phys, size));
	assert_true(dma_use_iova(&st));
	assert_int_equal(dma_iova_size(&st), size);
	assert_int_equal(st.addr & ~PAGE_MASK, 0x100);
	assert_true(st.addr >= 0x80000000 && st.addr < 0x80000000 + SZ_16M);
	first = st.addr;
	/* allocated, nothing linked: consistent, and the device faults there */
	assert_machine_consistent(f->m);
	assert_int_equal(dmamap_dev_read(&f->dev, st.addr, got, 16), -EFAULT);
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_IOMMU_FAULT], 1);

	/* the CPU's stores stay in its cache without the link's maintenance */
	fill_pattern(p, size, 1);
	assert_int_equal(dma_iova_link(&f->dev, &st, phys, 0, size, DMA_TO_DEVICE, DMA_ATTR_SKIP_CPU_SYNC), 0);
	assert_int_equal(dma_iova_sync(&f->dev, &st, 0, size), 0);
	assert_int_equal(dmamap_dev_read(&f->dev, st.addr, got, size), 0);
	assert_int_not_equal(check_pattern(got, size, 1), 0);
	dma_iova_unlink(&f->dev, &st, 0, size, DMA_TO_DEVICE, DMA_ATTR_SKIP_CPU_SYNC);
	/* with it the device reads them, and may not write */
	assert_int_equal(dma_iova_link(&f->dev, &st, phys, 0, size, DMA_TO_DEVICE, 0), 0);
	assert_int_equal(dma_iova_sync(&f->dev, &st, 0, size), 0);
	assert_int_equal(dmamap_dev_read(&f->dev, st.addr, got, size), 0);
	assert_int_equal(check_pattern(got, size, 1), 0);
	assert_int_equal(dmamap_dev_write(&f->dev, st.addr, got, 1), -EFAULT);
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_IOMMU_FAULT], 2);
	assert_machine_consistent(f->m);
	dma_iova_unlink(&f->dev, &st, 0, size, DMA_TO_DEVICE, 0);
	assert_int_equal(dmamap_dev_read(&f->dev, st.addr, got, 16), -EFAULT);
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_IOMMU_FAULT], 3);

	/* FROM_DEVICE: write-only to the device; the unlink shows the CPU its bytes */
	assert_int_equal(dma_iova_link(&f->dev, &st, phys, 0, size, DMA_FROM_DEVICE, 0), 0);
	assert_int_equal(dma_iova_sync(&f->dev, &st, 0, size), 0);
	assert_int_equal(dmamap_dev_read(&f->dev, st.addr, got, 1), -EFAULT);
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_IOMMU_FAULT], 4);
	misuse_begin(f->m);
	(void)cpu_touch(p, size);
	misuse_end(f->m);
	fill_pattern(got, size, 2);
	assert_int_equal(dmamap_dev_write(&f->dev, st.addr, got, size), 0);
	misuse_begin(f->m);
	stale = check_pattern(p, size, 2);
	misuse_end(f->m);
	assert_int_not_equal(stale, 0);
	dma_iova_unlink(&f->dev, &st, 0, size, DMA_FROM_DEVICE, 0);
	assert_int_equal(check_pattern(p, size, 2), 0);

	/* the IOVA goes back with the free: the same one is had again */
	dma_iova_free(&f->dev, &st);
	assert_true(dma_iova_try_alloc(&f->dev, &st, phys, size));
	assert_true(st.addr == first);
	dma_iova_destroy(&f->dev, &st, 0, DMA_TO_DEVICE, 0);
	assert_int_equal(f->c.reports, 4); /* the faults the test made */
	iova_detach(&f->dev, map);
	__free_pages(page, 1);
}

/*
 * Where a link may go: up to the range's last byte and no further, once per
 * page; a physical address with a page offset at offset 0 only (the
 * kernel's WARN_ON_ONCE). Each refusal is reported at its line and leaves
 * the range as it was.
 */
static void test_iova_link_boundaries(void **state)
{
	struct fx *f = *state;
	struct dma_iommu_mapping *map = iova_attach(&f->dev);
	struct page *page = alloc_pages(GFP_KERNEL, 2);
	phys_addr_t phys;
	struct dma_iova_state st, padded;
	u8 got[SZ_4K];
	int line, err;

	assert_non_null(page);
	phys = page_to_phys(page);
	fill_pattern(page_address(page), 4 * SZ_4K, 3);
	assert_true(dma_iova_try_alloc(&f->dev, &st, 0, 4 * SZ_4K));
	assert_int_equal(st.addr & ~PAGE_MASK, 0);
	/* the last page, ending exactly at the range's end */
	assert_int_equal(dma_iova_link(&f->dev, &st, phys + 3 * SZ_4K, 3 * SZ_4K, SZ_4K, DMA_TO_DEVICE, 0), 0);
	assert_int_equal(dma_iova_sync(&f->dev, &st, 3 * SZ_4K, SZ_4K), 0);
	assert_int_equal(dmamap_dev_read(&f->dev, st.addr + 3 * SZ_4K, got, SZ_4K), 0);
	assert_int_equal(memcmp(got, (u8 *)page_address(page) + 3 * SZ_4K, SZ_4K), 0);
	/* one page past it */
	err = dma_iova_link(&f->dev, &st, phys + 2 * SZ_4K, 3 * SZ_4K, 2 * SZ_4K, DMA_TO_DEVICE, 0); line = __LINE__;
	assert_int_equal(err, -EINVAL);
	assert_said(f, DMAMAP_REPORT_API_MISUSE, line, "dma_iova_link of phys", "outside the range allocated");
	assert_int_equal(dma_iova_link(&f->dev, &st, phys, 4 * SZ_4K, SZ_4K, DMA_TO_DEVICE, 0), -EINVAL); line = __LINE__;
	assert_said(f, DMAMAP_REPORT_API_MISUSE, line, "dma_iova_link of phys", "outside the range allocated");
	assert_int_equal(dma_iova_sync(&f->dev, &st, 3 * SZ_4K, 2 * SZ_4K), -EINVAL); line = __LINE__;
	assert_said(f, DMAMAP_REPORT_API_MISUSE, line, "dma_iova_sync of", "outside the range allocated");
	/* over a page linked already */
	err = dma_iova_link(&f->dev, &st, phys, 2 * SZ_4K, 2 * SZ_4K, DMA_TO_DEVICE, 0); line = __LINE__;
	assert_int_equal(err, -EEXIST);
	assert_said(f, DMAMAP_REPORT_API_MISUSE, line, "dma_iova_link of phys", "linked already");
	/* a page offset with a non-zero offset */
	err = dma_iova_link(&f->dev, &st, phys + 0x80, SZ_4K, 0x100, DMA_TO_DEVICE, 0); line = __LINE__;
	assert_int_equal(err, -EIO);
	assert_said(f, DMAMAP_REPORT_API_MISUSE, line, "dma_iova_link of phys", "WARN_ON_ONCE");
	/* pages that are no RAM (an MMIO address below it) */
	err = dma_iova_link(&f->dev, &st, 0x10000000, 0, SZ_4K, DMA_TO_DEVICE, 0); line = __LINE__;
	assert_int_equal(err, -EINVAL);
	assert_said(f, DMAMAP_REPORT_BAD_INPUT, line, "dma_iova_link of phys", "not RAM");
	assert_int_equal(f->c.reports, 6);
	/* nothing changed: page 2 unlinked (faults), page 3 still the device's */
	assert_int_equal(dmamap_dev_read(&f->dev, st.addr + 2 * SZ_4K, got, 1), -EFAULT);
	assert_int_equal(dmamap_dev_read(&f->dev, st.addr + 3 * SZ_4K, got, SZ_4K), 0);
	assert_int_equal(memcmp(got, (u8 *)page_address(page) + 3 * SZ_4K, SZ_4K), 0);
	f->c.reports = 0;
	assert_machine_consistent(f->m);

	/* a page offset at offset 0: the range starts at the same offset, the bytes where the device expects them */
	assert_true(dma_iova_try_alloc(&f->dev, &padded, phys + 0x80, 0x100));
	assert_int_equal(padded.addr & ~PAGE_MASK, 0x80);
	assert_int_equal(dma_iova_link(&f->dev, &padded, phys + 0x80, 0, 0x100, DMA_BIDIRECTIONAL, 0), 0);
	assert_int_equal(dma_iova_sync(&f->dev, &padded, 0, 0x100), 0);
	assert_int_equal(dmamap_dev_read(&f->dev, padded.addr, got, 0x100), 0);
	assert_int_equal(memcmp(got, (u8 *)page_address(page) + 0x80, 0x100), 0);
	dma_iova_destroy(&f->dev, &padded, 0x100, DMA_BIDIRECTIONAL, 0);
	/* what stays linked the free undoes, and says so */
	dma_iova_destroy(&f->dev, &st, 0, DMA_TO_DEVICE, 0); line = __LINE__;
	assert_int_equal(f->c.reports, 1);
	assert_said(f, DMAMAP_REPORT_API_MISUSE, line, "dma_iova_destroy of IOVA", "dma_iova_unlink() before");
	assert_int_equal(dmamap_dev_read(&f->dev, st.addr + 3 * SZ_4K, got, 1), -EFAULT);
	iova_detach(&f->dev, map);
	__free_pages(page, 2);
}

/*
 * Unlinks of pages not linked or linked for another direction, frees of
 * ranges the device has not (freed already, another device's): reported at
 * the caller's line, nothing changed. A destroy unlinks and gives the IOVA
 * back.
 */
static void test_iova_misuse(void **state)
{
	struct fx *f = *state;
	struct dma_iommu_mapping *map = iova_attach(&f->dev);
	struct page *page = alloc_pages(GFP_KERNEL, 1);
	struct dma_iova_state st, other, copy;
	phys_addr_t phys;
	u8 got[2 * SZ_4K];
	dma_addr_t first;
	int line;

	assert_non_null(page);
	phys = page_to_phys(page);
	fill_pattern(page_address(page), 2 * SZ_4K, 4);
	assert_true(dma_iova_try_alloc(&f->dev, &st, phys, 2 * SZ_4K));
	first = st.addr;
	assert_int_equal(dma_iova_link(&f->dev, &st, phys, 0, SZ_4K, DMA_TO_DEVICE, 0), 0);
	assert_int_equal(dma_iova_sync(&f->dev, &st, 0, SZ_4K), 0);
	/* the second page was never linked */
	dma_iova_unlink(&f->dev, &st, 0, 2 * SZ_4K, DMA_TO_DEVICE, 0); line = __LINE__;
	assert_said(f, DMAMAP_REPORT_NOT_MAPPED, line, "dma_iova_unlink of 0x2000 bytes", "not linked");
	/* another direction */
	dma_iova_unlink(&f->dev, &st, 0, SZ_4K, DMA_FROM_DEVICE, 0); line = __LINE__;
	assert_said(f, DMAMAP_REPORT_DIR_MISMATCH, line, "dma_iova_unlink of 0x1000 bytes", "another direction");
	assert_int_equal(f->c.reports, 2);
	/* the link is still there */
	assert_int_equal(dmamap_dev_read(&f->dev, st.addr, got, SZ_4K), 0);
	assert_int_equal(check_pattern(got, SZ_4K, 4), 0);
	/* a destroy refused with its unlink frees nothing */
	dma_iova_destroy(&f->dev, &st, 2 * SZ_4K, DMA_TO_DEVICE, 0); line = __LINE__;
	assert_said(f, DMAMAP_REPORT_NOT_MAPPED, line, "dma_iova_destroy of 0x2000 bytes", "not linked");
	assert_int_equal(dmamap_dev_read(&f->dev, st.addr, got, SZ_4K), 0);

	/* another device's range is not this device's to free */
	assert_int_equal(dmamap_device_init(&f->dev2, f->m, "lx2"), 0);
	assert_int_equal(arm_iommu_attach_device(&f->dev2, map), 0);
	assert_true(dma_iova_try_alloc(&f->dev2, &other, phys, SZ_4K));
	dma_iova_free(&f->dev, &other); line = __LINE__;
	assert_said(f, DMAMAP_REPORT_API_MISUSE, line, "dma_iova_free of IOVA", "another device's range");
	dma_iova_free(&f->dev2, &other);

	/* the destroy unlinks what was linked, then frees: the IOVA is had again, the device faults there */
	f->c.reports = 0;
	copy = st;
	dma_iova_destroy(&f->dev, &st, SZ_4K, DMA_TO_DEVICE, 0);
	assert_int_equal(f->c.reports, 0);
	assert_int_equal(dmamap_dev_read(&f->dev, first, got, 1), -EFAULT);
	/* freed already */
	dma_iova_free(&f->dev, &copy); line = __LINE__;
	assert_said(f, DMAMAP_REPORT_API_MISUSE, line, "dma_iova_free of IOVA", "no live dma_iova_try_alloc() range");
	assert_int_equal(dma_iova_link(&f->dev, &copy, phys, 0, SZ_4K, DMA_TO_DEVICE, 0), -EINVAL); line = __LINE__;
	assert_said(f, DMAMAP_REPORT_API_MISUSE, line, "dma_iova_link of IOVA", "no live dma_iova_try_alloc() range");
	assert_true(dma_iova_try_alloc(&f->dev, &st, phys, 2 * SZ_4K));
	assert_true(st.addr == first);
	dma_iova_free(&f->dev, &st);
	assert_int_equal(f->c.reports, 3);
	/* the direct ops have no ranges */
	arm_iommu_detach_device(&f->dev2);
	dma_iova_free(&f->dev2, &st); line = __LINE__;
	assert_said(f, DMAMAP_REPORT_API_MISUSE, line, "dma_iova_free of IOVA", "not behind an IOMMU mapping");
	iova_detach(&f->dev, map);
	__free_pages(page, 1);
}

struct iova_fault_rec {
	unsigned long calls;
	unsigned long iova;
	int flags;
};

static int iova_record_fault(struct iommu_domain *domain, struct device *dev, unsigned long iova, int flags,
			     void *token)
{
	struct iova_fault_rec *r = token;

	(void)domain;
	(void)dev;
	r->calls++;
	r->iova = iova;
	r->flags = flags;
	return 0;
}

/* The last report: the device's access at @line faulted on a page the link at @link_line left unsynced. */
static void assert_unsynced_fault(const struct fx *f, int line, int link_line)
{
	char at[200];

	assert_int_equal(f->c.last_kind, DMAMAP_REPORT_IOMMU_FAULT);
	assert_int_equal(f->c.last_line, line);
	assert_int_equal(f->c.rec_last.map_line, link_line);
	snprintf(at, sizeof(at), "dma_iova_link at %s:%d", f->c.rec_last.map_file, link_line);
	assert_non_null(strstr(f->c.last, at));
	assert_non_null(strstr(f->c.last, "dma_iova_sync() missing"));
}

/*
 * dma_iova_link() does not sync the IOTLB (the kernel leaves it to
 * dma_iova_sync()): until a sync covers a page, the device's reads and
 * writes there fault through the domain's fault handler, move nothing, and
 * are reported naming the link. A sync makes the pages its bytes touch
 * usable, no others; an unlink invalidates at once; a page linked again
 * needs a sync again. The mapper's own dma_map_single() pages, mapped
 * meanwhile in the same domain, are usable at once and gone at once.
 */
static void test_iova_link_needs_sync(void **state)
{
	struct fx *f = *state;
	struct dma_iommu_mapping *map = iova_attach(&f->dev);
	struct iommu_domain *domain = iommu_get_domain_for_dev(&f->dev);
	struct page *page = alloc_pages(GFP_KERNEL, 2);
	struct iova_fault_rec rec = { 0 };
	struct dma_iova_state st;
	u8 got[64], mine[64], *p, *buf = kmalloc(64, GFP_KERNEL);
	int link, line;
	dma_addr_t h;

	assert_non_null(page);
	assert_non_null(buf);
	iommu_set_fault_handler(domain, iova_record_fault, &rec);
	p = page_address(page);
	fill_pattern(p, 4 * SZ_4K, 7);
	assert_true(dma_iova_try_alloc(&f->dev, &st, page_to_phys(page), 4 * SZ_4K));
	assert_int_equal(dma_iova_link(&f->dev, &st, page_to_phys(page), 0, 4 * SZ_4K, DMA_BIDIRECTIONAL, 0), 0);
	link = __LINE__ - 1;
	assert_int_equal(f->c.reports, 0);

	/* linked, not synced: a read faults, nothing copied */
	memset(got, 0x11, sizeof(got));
	assert_int_equal(dmamap_dev_read(&f->dev, st.addr + 8, got, sizeof(got)), -EFAULT); line = __LINE__;
	for (size_t i = 0; i < sizeof(got); i++)
		assert_int_equal(got[i], 0x11);
	assert_int_equal(rec.calls, 1);
	assert_true(rec.iova == st.addr + 8);
	assert_int_equal(rec.flags, IOMMU_FAULT_READ);
	assert_int_equal(f->c.reports, 1);
	assert_unsynced_fault(f, line, link);
	/* a write faults too, and lands nowhere */
	memset(mine, 0xe5, sizeof(mine));
	assert_int_equal(dmamap_dev_write(&f->dev, st.addr + SZ_4K, mine, sizeof(mine)), -EFAULT); line = __LINE__;
	assert_int_equal(rec.calls, 2);
	assert_int_equal(rec.flags, IOMMU_FAULT_WRITE);
	assert_unsynced_fault(f, line, link);

	/* the mapper's own mapping in the same domain: usable at once, gone at once */
	fill_pattern(buf, 64, 8);
	h = dma_map_single(&f->dev, buf, 64, DMA_TO_DEVICE);
	assert_false(dma_mapping_error(&f->dev, h));
	assert_int_equal(dmamap_dev_read(&f->dev, h, got, 64), 0);
	assert_int_equal(check_pattern(got, 64, 8), 0);
	dma_unmap_single(&f->dev, h, 64, DMA_TO_DEVICE);
	assert_int_equal(f->c.reports, 2);
	assert_int_equal(dmamap_dev_read(&f->dev, h, got, 1), -EFAULT);
	assert_int_equal(f->c.reports, 3);
	assert_null(strstr(f->c.last, "dma_iova_sync"));
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_DEV_UNMAPPED], 0);

	/* the first page synced: read there; the second still faults */
	assert_int_equal(dma_iova_sync(&f->dev, &st, 0, SZ_4K), 0);
	assert_int_equal(dmamap_dev_read(&f->dev, st.addr, got, sizeof(got)), 0);
	assert_int_equal(check_pattern(got, sizeof(got), 7), 0);
	assert_int_equal(dmamap_dev_read(&f->dev, st.addr + SZ_4K - 8, got, 16), -EFAULT); line = __LINE__;
	assert_true(rec.iova == st.addr + SZ_4K);
	assert_unsynced_fault(f, line, link);
	assert_int_equal(f->c.reports, 4);
	/* ten bytes in the third page sync all of it, and only it */
	assert_int_equal(dma_iova_sync(&f->dev, &st, 2 * SZ_4K + 100, 10), 0);
	assert_int_equal(dmamap_dev_read(&f->dev, st.addr + 2 * SZ_4K, got, sizeof(got)), 0);
	assert_int_equal(memcmp(got, p + 2 * SZ_4K, sizeof(got)), 0);
	assert_int_equal(dmamap_dev_read(&f->dev, st.addr + 3 * SZ_4K, got, 1), -EFAULT); line = __LINE__;
	assert_unsynced_fault(f, line, link);
	assert_int_equal(dmamap_dev_read(&f->dev, st.addr + SZ_4K, got, 1), -EFAULT);
	assert_int_equal(f->c.reports, 6);
	assert_int_equal(rec.calls, 6);

	/* the whole range synced: the device reads it all, and its write arrives (the unlink shows the CPU) */
	assert_int_equal(dma_iova_sync(&f->dev, &st, 0, 4 * SZ_4K), 0);
	assert_int_equal(dmamap_dev_read(&f->dev, st.addr + SZ_4K - 8, got, sizeof(got)), 0);
	assert_int_equal(memcmp(got, p + SZ_4K - 8, sizeof(got)), 0);
	assert_int_equal(dmamap_dev_write(&f->dev, st.addr + SZ_4K, mine, sizeof(mine)), 0);
	assert_int_equal(f->c.reports, 6);
	assert_int_equal(rec.calls, 6);

	/* the unlink invalidates at once: the device faults as at any unmapped IOVA */
	dma_iova_unlink(&f->dev, &st, 0, 4 * SZ_4K, DMA_BIDIRECTIONAL, 0);
	assert_int_equal(memcmp(p + SZ_4K, mine, sizeof(mine)), 0);
	assert_int_equal(dmamap_dev_read(&f->dev, st.addr, got, 1), -EFAULT);
	assert_int_equal(f->c.reports, 7);
	assert_null(strstr(f->c.last, "dma_iova_sync"));
	assert_non_null(strstr(f->c.last, "unmapped"));
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_DEV_UNMAPPED], 0);
	/* linked again: the earlier sync does not carry over */
	assert_int_equal(dma_iova_link(&f->dev, &st, page_to_phys(page), 0, SZ_4K, DMA_TO_DEVICE, 0), 0);
	link = __LINE__ - 1;
	assert_int_equal(dmamap_dev_read(&f->dev, st.addr, got, 1), -EFAULT); line = __LINE__;
	assert_unsynced_fault(f, line, link);
	assert_int_equal(dma_iova_sync(&f->dev, &st, 0, SZ_4K), 0);
	assert_int_equal(dmamap_dev_read(&f->dev, st.addr, got, sizeof(got)), 0);
	assert_int_equal(memcmp(got, p, sizeof(got)), 0);
	assert_int_equal(f->c.reports, 8);
	assert_int_equal(rec.calls, 8);
	dma_iova_destroy(&f->dev, &st, SZ_4K, DMA_TO_DEVICE, 0);
	assert_int_equal(f->c.reports, 8);
	iova_detach(&f->dev, map);
	kfree(buf);
	__free_pages(page, 2);
	f->c.reports = 0;
}

/* A range left at the detach is a leak at the line that allocated it; the detach gives it all back. */
static void test_iova_left_is_a_leak(void **state)
{
	struct fx *f = *state;
	struct dma_iommu_mapping *map = iova_attach(&f->dev);
	struct page *page = alloc_pages(GFP_KERNEL, 0);
	struct dma_iova_state st, empty, again;
	int line, line2;

	assert_non_null(page);
	assert_true(dma_iova_try_alloc(&f->dev, &st, page_to_phys(page), SZ_4K)); line = __LINE__;
	assert_int_equal(dma_iova_link(&f->dev, &st, page_to_phys(page), 0, SZ_4K, DMA_FROM_DEVICE, 0), 0);
	assert_true(dma_iova_try_alloc(&f->dev, &empty, 0, SZ_8K)); line2 = __LINE__;
	arm_iommu_detach_device(&f->dev);
	assert_int_equal(f->c.reports, 2);
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_LEAK], 2);
	assert_int_equal(f->c.rec[0].line, line2);
	assert_non_null(strstr(f->c.rec[0].message, "dma_iova_try_alloc of IOVA"));
	assert_non_null(strstr(f->c.rec[0].message, "(0 pages linked)"));
	assert_int_equal(f->c.rec[1].line, line);
	assert_non_null(strstr(f->c.rec[1].message, "(1 page linked)"));
	assert_machine_consistent(f->m);
	/* everything went back: the same IOVAs are had again, nothing linked there */
	assert_int_equal(arm_iommu_attach_device(&f->dev, map), 0);
	assert_true(dma_iova_try_alloc(&f->dev, &again, 0, SZ_4K));
	assert_true(again.addr == (st.addr & PAGE_MASK));
	assert_int_equal(dmamap_dev_write(&f->dev, again.addr, "x", 1), -EFAULT);
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_IOMMU_FAULT], 1);
	assert_true(dma_iova_try_alloc(&f->dev, &st, 0, SZ_8K));
	assert_true(st.addr == empty.addr);
	/* and the device's release frees what it left too */
	dmamap_device_release(&f->dev);
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_LEAK], 4);
	assert_machine_consistent(f->m);
	arm_iommu_release_mapping(map);
	__free_pages(page, 0);
	assert_int_equal(dmamap_device_init(&f->dev, f->m, "lx"), 0);
	f->c.reports = 0;
}

/*
 * iommu_map_sg() maps the entries back to back, physically contiguous ones
 * as one run (two half-pages that follow each other are one page), synced
 * as iommu_map() is: the device uses them at once. A run iommu_map()
 * refuses undoes the whole call and returns its error.
 */
static void test_iommu_map_sg(void **state)
{
	struct fx *f = *state;
	struct iommu_domain *d = iommu_domain_alloc(f->m);
	struct page *a = alloc_pages(GFP_KERNEL, 1), *b = alloc_pages(GFP_KERNEL, 0);
	struct dmamap_iommu_stats st;
	struct scatterlist sg[3];
	u8 out[16] = "through the sg", in[16];

	assert_non_null(d);
	assert_non_null(a);
	assert_non_null(b);
	assert_int_equal(dmamap_device_init(&f->dev2, f->m, "lx2"), 0);
	assert_int_equal(iommu_attach_device(d, &f->dev2), 0);
	sg_init_table(sg, 3);
	sg_set_page(&sg[0], a, 0x800, 0);
	sg_set_page(&sg[1], a, 0x1800, 0x800);
	sg_set_page(&sg[2], b, SZ_4K, 0);
	assert_int_equal(iommu_map_sg(d, 0x100000, sg, 3, IOMMU_READ | IOMMU_WRITE), 3 * SZ_4K);
	assert_true(iommu_iova_to_phys(d, 0x100000) == page_to_phys(a));
	assert_true(iommu_iova_to_phys(d, 0x101000) == page_to_phys(a) + SZ_4K);
	assert_true(iommu_iova_to_phys(d, 0x102000) == page_to_phys(b));
	assert_int_equal(dmamap_dev_write(&f->dev2, 0x102000 + 8, out, sizeof(out)), 0);
	assert_int_equal(dmamap_dev_read(&f->dev2, 0x102000 + 8, in, sizeof(in)), 0);
	assert_memory_equal(in, out, sizeof(out));
	assert_int_equal(f->c.reports, 0);
	assert_int_equal(iommu_unmap(d, 0x100000, 3 * SZ_4K), 3 * SZ_4K);

	/* a last run not page aligned: refused as iommu_map() refuses it, the first undone */
	sg_set_page(&sg[2], b, 0x100, 0x100);
	assert_int_equal(iommu_map_sg(d, 0x100000, sg, 3, IOMMU_READ, GFP_KERNEL), -EINVAL);
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_BAD_INPUT], 1);
	assert_true(iommu_iova_to_phys(d, 0x100000) == 0);
	dmamap_iommu_stats(d, &st);
	assert_int_equal(st.mapped_bytes, 0);
	assert_int_equal(dmamap_dev_read(&f->dev2, 0x100000, in, 1), -EFAULT);
	assert_int_equal(f->c.reports, 2);
	iommu_detach_device(d, &f->dev2);
	iommu_domain_free(d);
	__free_pages(a, 1);
	__free_pages(b, 0);
	f->c.reports = 0;
}

static void test_map_resource(void **state)
{
	struct fx *f = *state;
	phys_addr_t fifo = 0x10000000; /* an MMIO register below RAM */
	struct dmamap_machine_config cfg;
	phys_addr_t ram;
	dma_addr_t h;
	u32 word;

	dmamap_machine_get_config(f->m, &cfg);
	ram = cfg.ram_base;

	h = dma_map_resource(&f->dev, fifo, 4, DMA_FROM_DEVICE, 0);
	assert_int_equal(h, fifo);
	assert_false(dma_mapping_error(&f->dev, h));
	/* nothing lives there on the simulated bus */
	assert_int_equal(dmamap_dev_read(&f->dev, h, &word, 4), -EFAULT);
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_DEVICE_FAULT], 1);
	dma_unmap_resource(&f->dev, h, 4, DMA_FROM_DEVICE, 0);
	/* RAM is not a resource */
	assert_true(dma_mapping_error(&f->dev, dma_map_resource(&f->dev, ram, 4, DMA_TO_DEVICE, 0)));
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_API_MISUSE], 1);
	/* a range that ends in RAM neither */
	assert_true(dma_mapping_error(&f->dev, dma_map_resource(&f->dev, ram - 2, 4, DMA_TO_DEVICE, 0)));
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_API_MISUSE], 2);
	/* beyond the mask: the last byte counts */
	assert_false(dma_mapping_error(&f->dev, dma_map_resource(&f->dev, 0xfffffffc, 4, DMA_TO_DEVICE, 0)));
	assert_true(dma_mapping_error(&f->dev, dma_map_resource(&f->dev, 0xfffffffd, 4, DMA_TO_DEVICE, 0)));
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_API_MISUSE], 3);
	/* bad arguments */
	assert_true(dma_mapping_error(&f->dev, dma_map_resource(&f->dev, fifo, 0, DMA_TO_DEVICE, 0)));
	assert_true(dma_mapping_error(&f->dev, dma_map_resource(&f->dev, fifo, 4, DMA_NONE, 0)));
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_BAD_INPUT], 2);
}

/* ------------------------------------------------------------ masks and helpers */

static void test_coerce_mask_and_helpers(void **state)
{
	struct fx *f = *state;
	struct dmamap_machine_config cfg;
	struct dmamap_machine *z;
	struct device zd = { 0 };
	DEFINE_DMA_UNMAP_ADDR(addr);
	DEFINE_DMA_UNMAP_LEN(len);
	struct {
		DEFINE_DMA_UNMAP_ADDR(mapping);
		DEFINE_DMA_UNMAP_LEN(size);
	} st;

	assert_int_equal(dma_coerce_mask_and_coherent(&f->dev, DMA_BIT_MASK(31)), 0);
	assert_ptr_equal(f->dev.dma_mask, &f->dev.coherent_dma_mask);
	assert_int_equal(f->dev.coherent_dma_mask, DMA_BIT_MASK(31));
	assert_int_equal(dma_get_mask(&f->dev), DMA_BIT_MASK(31));
	assert_int_equal(dma_set_mask_and_coherent(&f->dev, DMA_BIT_MASK(32)), 0);

	/* a refused mask changes nothing, not even where dma_mask points */
	dmamap_machine_config_init(&cfg);
	cfg.ram_size = 16u << 20;
	cfg.consistent_size = 1u << 20;
	cfg.dma_zone_limit = cfg.ram_base + (8u << 20);
	z = dmamap_machine_create(&cfg);
	assert_non_null(z);
	assert_int_equal(dmamap_device_init(&zd, z, "zone"), 0);
	assert_int_equal(dma_coerce_mask_and_coherent(&zd, DMA_BIT_MASK(20)), -EIO);
	assert_ptr_not_equal(zd.dma_mask, &zd.coherent_dma_mask);
	assert_int_equal(*zd.dma_mask, DMA_BIT_MASK(32));
	dmamap_device_release(&zd);
	test_machine_destroy(z);

	assert_int_equal(dma_max_mapping_size(&f->dev), SIZE_MAX);
	assert_int_equal(dma_opt_mapping_size(&f->dev), SIZE_MAX);
	assert_true(dma_get_cache_alignment() >= 32);
	assert_int_equal(dma_get_cache_alignment() % 32, 0);
	assert_true(dma_need_sync(&f->dev, 0));
	f->dev.dma_coherent = true;
	assert_false(dma_need_sync(&f->dev, 0));
	f->dev.dma_coherent = false;
	assert_int_equal(dma_max_mapping_size(NULL), 0);
	assert_true(dma_need_sync(NULL, 0));
	assert_int_equal(dma_coerce_mask_and_coherent(NULL, DMA_BIT_MASK(32)), -EIO);
	assert_int_equal(f->c.reports, 0);

	dma_unmap_addr_set(&st, mapping, 0x1234);
	dma_unmap_len_set(&st, size, 99);
	addr = dma_unmap_addr(&st, mapping);
	len = dma_unmap_len(&st, size);
	assert_int_equal(addr, 0x1234);
	assert_int_equal(len, 99);
	assert_int_equal(lower_32_bits(0x123456789abcULL), 0x56789abc);
	assert_int_equal(upper_32_bits(0x123456789abcULL), 0x1234);
	assert_int_equal(PTR_ERR_OR_ZERO(ERR_PTR(-ENOMEM)), -ENOMEM);
	assert_int_equal(PTR_ERR_OR_ZERO(&st), 0);
	assert_true(IS_ERR(ERR_CAST(ERR_PTR(-EIO))));
}

/* The smaller queries of Linux 6.x: segment boundary in pages, merge boundary, min_align_mask, need_unmap, can_mmap. */
static void test_dma_queries_of_6x(void **state)
{
	struct fx *f = *state;
	struct dma_iommu_mapping *map;
	struct device bare = { 0 };
	struct capture pw;

	/* the boundary in pages: 4 GiB by default, the boundary set, NULL as a device without dma_parms */
	assert_int_equal(dma_get_seg_boundary_nr_pages(&f->dev, PAGE_SHIFT), 0x100000);
	assert_int_equal(dma_get_seg_boundary_nr_pages(NULL, PAGE_SHIFT), 0x100000);
	assert_int_equal(dma_set_seg_boundary(&f->dev, SZ_64K - 1), 0);
	assert_int_equal(dma_get_seg_boundary_nr_pages(&f->dev, PAGE_SHIFT), 16);
	assert_int_equal(dma_get_seg_boundary_nr_pages(&f->dev, 16), 1);
	assert_int_equal(dma_set_seg_boundary(&f->dev, 0xffffffffUL), 0);
	assert_int_equal(dma_get_merge_boundary(&f->dev), 0);

	assert_int_equal(dma_get_min_align_mask(&f->dev), 0);
	assert_int_equal(dma_set_min_align_mask(&f->dev, SZ_4K - 1), 0);
	assert_int_equal(dma_get_min_align_mask(&f->dev), SZ_4K - 1);

	/* need_unmap: false only for a snooping device on the direct ops with the checker off */
	assert_true(dma_need_unmap(&f->dev));
	f->dev.dma_coherent = true;
	assert_true(dma_need_unmap(&f->dev)); /* the checker must see the unmap */
	assert_int_equal(dmamap_checker_enable(f->m, false), 0);
	assert_false(dma_need_unmap(&f->dev));
	map = arm_iommu_create_mapping(f->m, 0x80000000, SZ_16M, 0);
	assert_false(IS_ERR(map));
	assert_int_equal(arm_iommu_attach_device(&f->dev, map), 0);
	assert_true(dma_need_unmap(&f->dev)); /* the unmap gives the IOVA back */
	arm_iommu_detach_device(&f->dev);
	arm_iommu_release_mapping(map);
	assert_int_equal(dmamap_checker_enable(f->m, true), 0);
	f->dev.dma_coherent = false;

	/* can_mmap: the library's ops sets can (an ops set without mmap: test-dma-mapping) */
	assert_true(dma_can_mmap(&f->dev));
	assert_int_equal(f->c.reports, 0);

	/* an uninitialised device: reported, the getters' defaults, the setter's -EIO, nothing written */
	capture_start(&pw, NULL);
	assert_int_equal(dma_set_min_align_mask(&bare, 7), -EIO);
	assert_int_equal(dma_get_min_align_mask(&bare), 0);
	assert_true(dma_need_unmap(&bare));
	assert_false(dma_can_mmap(&bare));
	assert_true(dma_need_unmap(NULL));
	capture_stop(NULL);
	assert_int_equal(pw.by_kind[DMAMAP_REPORT_BAD_INPUT], 5);
	assert_null(bare.dma_parms);
}

static void zone_machine(struct dmamap_machine_config *cfg)
{
	cfg->ram_base = 0;
	cfg->dma_zone_limit = 8u << 20;
}

static void test_addressing_limited(void **state)
{
	struct fx *f = *state;
	struct dmamap_machine *z = test_machine(16, zone_machine);
	struct dma_iommu_mapping *map;
	struct device zd = { 0 };

	assert_non_null(z);
	assert_int_equal(dmamap_device_init(&zd, z, "zone"), 0);
	/* RAM is [0, 16 MiB): a mask ending on its last byte reaches it all, one bit less does not */
	assert_int_equal(dma_set_mask_and_coherent(&zd, DMA_BIT_MASK(24)), 0);
	assert_false(dma_addressing_limited(&zd));
	assert_int_equal(dma_set_mask_and_coherent(&zd, DMA_BIT_MASK(23)), 0);
	assert_true(dma_addressing_limited(&zd));
	/* behind an IOMMU any page is reachable */
	map = arm_iommu_create_mapping(z, 0x100000, SZ_1M, 0);
	assert_false(IS_ERR(map));
	assert_int_equal(arm_iommu_attach_device(&zd, map), 0);
	assert_false(dma_addressing_limited(&zd));
	arm_iommu_detach_device(&zd);
	assert_true(dma_addressing_limited(&zd));
	arm_iommu_release_mapping(map);
	dmamap_device_release(&zd);
	test_machine_destroy(z);

	assert_false(dma_addressing_limited(&f->dev));
	assert_true(dma_addressing_limited(NULL)); /* the cautious answer */
	assert_int_equal(f->c.reports, 0);
}

/* What the kernel's headers bring along: overflow-safe sizes, rounding, READ_ONCE. */
static void test_kernel_basics(void **state)
{
	struct fx *f = *state;
	struct desc_ring {
		u32 count;
		__le32 desc[];
	} *ring = NULL;
	u32 flag = 0;

	assert_int_equal(struct_size(ring, desc, 4), sizeof(*ring) + 4 * sizeof(__le32));
	assert_int_equal(struct_size(ring, desc, SIZE_MAX / 2), SIZE_MAX);
	assert_int_equal(array_size(SIZE_MAX / 2, 3), SIZE_MAX);
	assert_int_equal(array_size(6, 7), 42);
	assert_int_equal(size_add(SIZE_MAX, 1), SIZE_MAX);
	/* an impossible count makes kmalloc fail instead of handing out a short buffer */
	ring = kmalloc(struct_size(ring, desc, SIZE_MAX / 4), GFP_KERNEL | __GFP_NOWARN);
	assert_null(ring);
	ring = kzalloc(struct_size(ring, desc, 8), GFP_KERNEL);
	assert_non_null(ring);
	assert_int_equal(ring->desc[7], 0);
	kfree(ring);

	assert_int_equal(round_up(1000u, 64u), 1024u);
	assert_int_equal(round_up(1024u, 64u), 1024u);
	assert_int_equal(round_down(1087u, 64u), 1024u);
	assert_int_equal(min_not_zero(0u, 5u), 5u);
	assert_int_equal(min_not_zero(7u, 0u), 7u);
	assert_int_equal(min_not_zero(7u, 5u), 5u);
	assert_int_equal(clamp(70, 0, 64), 64);
	WRITE_ONCE(flag, 3u);
	assert_int_equal(READ_ONCE(flag), 3u);
	assert_int_equal(f->c.reports, 0);
}

/* The names of <linux/align.h>, <linux/math.h>, <linux/overflow.h> and <linux/kernel.h>, at their edges. */
static void test_align_math_overflow(void **state)
{
	struct chan {
		u32 id;
		__le64 words[];
	};
	struct outer {
		u64 pad;
		struct chan ch;
	} o;
	static const u16 table[5];
	u8 buf[256], *p;
	u8 b8;
	u32 d32;
	size_t dz;
	int di;
	u64 addr = 0x123456789abcdef0ULL;
	u32 narrow = 0x89abcdefu;

	(void)state;
	/* ALIGN() and its siblings, at and just past the boundary */
	assert_int_equal(ALIGN(0x1000u, 0x1000), 0x1000);
	assert_int_equal(ALIGN(0x1001u, 0x1000), 0x2000);
	assert_int_equal(ALIGN(0u, 64), 0);
	assert_int_equal(ALIGN_DOWN(0x1fffu, 0x1000), 0x1000);
	assert_int_equal(ALIGN_DOWN(0x2000u, 0x1000), 0x2000);
	assert_true(IS_ALIGNED(0x2000u, 0x1000));
	assert_false(IS_ALIGNED(0x2001u, 0x1000));
	assert_true(ALIGN(0xfffffffffffff001ULL, 0x1000) == 0); /* wraps, as the kernel's */
	p = PTR_ALIGN(buf + 1, 64);
	assert_true(IS_ALIGNED((uintptr_t)p, 64) && p > buf && p <= buf + 64);
	assert_ptr_equal(PTR_ALIGN(p, 64), p);
	assert_ptr_equal(PTR_ALIGN_DOWN(p + 63, 64), p);
	assert_ptr_equal(PTR_ALIGN_DOWN(p + 64, 64), p + 64);

	/* <linux/math.h> */
	assert_int_equal(DIV_ROUND_UP(4096u, 4096u), 1);
	assert_int_equal(DIV_ROUND_UP(4097u, 4096u), 2);
	assert_int_equal(DIV_ROUND_UP(0u, 4096u), 0);
	assert_true(DIV_ROUND_UP_ULL(0x100000001ULL, 2) == 0x80000001ULL);
	_Static_assert(_Generic(DIV_ROUND_UP_ULL(5u, 2), unsigned long long: 1, default: 0), "DIV_ROUND_UP_ULL type");
	assert_int_equal(round_up(65u, 64u), 128u);
	assert_int_equal(round_down(127u, 64u), 64u);

	/* <linux/overflow.h>: the exact result did not fit, the wrapped one stored */
	assert_true(check_add_overflow((u32)0xffffffffu, (u32)1, &d32));
	assert_int_equal(d32, 0);
	assert_false(check_add_overflow((u32)0xfffffffeu, (u32)1, &d32));
	assert_int_equal(d32, 0xffffffffu);
	assert_true(check_mul_overflow((u8)16, (u8)16, &b8));
	assert_int_equal(b8, 0);
	assert_false(check_mul_overflow((u8)15, (u8)17, &b8));
	assert_int_equal(b8, 255);
	assert_true(check_sub_overflow((size_t)0, (size_t)1, &dz));
	assert_true(dz == SIZE_MAX);
	assert_false(check_sub_overflow(0, 1, &di));
	assert_int_equal(di, -1);
	/* saturating sizes: SIZE_MAX from the first overflowing value on */
	assert_true(size_mul(SIZE_MAX / 2, 2) == SIZE_MAX - 1);
	assert_true(size_mul(SIZE_MAX / 2 + 1, 2) == SIZE_MAX);
	assert_true(size_add(SIZE_MAX - 1, 1) == SIZE_MAX);
	assert_true(size_add(SIZE_MAX - 2, 1) == SIZE_MAX - 1);
	assert_int_equal(size_sub(6, 5), 1);
	assert_int_equal(size_sub(5, 5), 0);
	assert_true(size_sub(5, 6) == SIZE_MAX);
	assert_true(size_sub(SIZE_MAX, 1) == SIZE_MAX); /* a saturated size stays saturated */
	assert_true(size_sub(SIZE_MAX - 1, SIZE_MAX) == SIZE_MAX);
	assert_true(array3_size(2, 3, SIZE_MAX / 5) == SIZE_MAX);
	assert_int_equal(struct_size_t(struct chan, words, 3), sizeof(struct chan) + 3 * sizeof(__le64));
	assert_true(struct_size_t(struct chan, words, SIZE_MAX / 8) == SIZE_MAX);
	assert_int_equal(flex_array_size(&o.ch, words, 2), 2 * sizeof(__le64));

	/* <linux/kernel.h>: the address words of a descriptor, arrays, containers */
	assert_int_equal(upper_32_bits(addr), 0x12345678u);
	assert_int_equal(lower_32_bits(addr), 0x9abcdef0u);
	assert_int_equal(upper_32_bits(narrow), 0);
	assert_int_equal(lower_32_bits(narrow), 0x89abcdefu);
	assert_int_equal(ARRAY_SIZE(table), 5);
	assert_ptr_equal(container_of(&o.ch, struct outer, ch), &o);
	assert_int_equal(EPROBE_DEFER, 517);
	assert_int_equal(ENOTSUPP, 524);
	barrier();
}

/* The register accessors on a window of host memory: byte order, the FIFO forms, the copies. */
static void test_register_accessors(void **state)
{
	u64 win[8];
	u8 __iomem *regs = (u8 __iomem *)win;
	u32 words[4] = { 0xdeadbeef, 0xdeadbeef, 0xdeadbeef, 0xdeadbeef };
	u32 fifo_in[3] = { 0x01020304, 0x05060708, 0x090a0b0c };
	u8 bytes[16];

	(void)state;
	memset(win, 0, sizeof(win));
	writeq(0x1122334455667788ULL, regs);
	assert_memory_equal(regs, "\x88\x77\x66\x55\x44\x33\x22\x11", 8);
	assert_true(readq(regs) == 0x1122334455667788ULL);
	writeq_relaxed(0x0102030405060708ULL, regs + 8);
	assert_true(readq_relaxed(regs + 8) == 0x0102030405060708ULL);
	assert_memory_equal(regs + 8, "\x08\x07\x06\x05\x04\x03\x02\x01", 8);
	writew_relaxed(0xa1b2, regs + 16);
	writeb_relaxed(0xc3, regs + 18);
	iowrite8(0xd4, regs + 19);
	assert_memory_equal(regs + 16, "\xb2\xa1\xc3\xd4", 4);
	assert_int_equal(readw_relaxed(regs + 16), 0xa1b2);
	assert_int_equal(readb_relaxed(regs + 18), 0xc3);
	assert_int_equal(ioread16(regs + 16), 0xa1b2);
	assert_int_equal(ioread8(regs + 19), 0xd4);
	assert_int_equal(readl(regs + 16), 0xd4c3a1b2);
	iowrite16(0x1234, regs + 20);
	assert_memory_equal(regs + 20, "\x34\x12", 2);
	/* big-endian registers: the most significant byte first */
	iowrite32be(0x11223344, regs + 24);
	assert_memory_equal(regs + 24, "\x11\x22\x33\x44", 4);
	assert_int_equal(ioread32be(regs + 24), 0x11223344);
	assert_int_equal(readl(regs + 24), 0x44332211);

	/* the FIFO forms read and write the one register, as the bus delivers the words */
	memcpy(regs + 32, "\x01\x02\x03\x04\x05\x06\x07\x08", 8);
	readsl(regs + 32, words, 3);
	assert_memory_equal(&words[0], "\x01\x02\x03\x04", 4);
	assert_memory_equal(&words[2], "\x01\x02\x03\x04", 4); /* not the next register */
	assert_int_equal(words[3], 0xdeadbeef);                /* @count words only */
	readsl(regs + 32, words, 0);
	ioread32_rep(regs + 36, &words[3], 1);
	assert_memory_equal(&words[3], "\x05\x06\x07\x08", 4);
	writesl(regs + 32, fifo_in, 3);
	assert_int_equal(((u32 *)win)[8], fifo_in[2]); /* the last word written stays */
	assert_memory_equal(regs + 36, "\x05\x06\x07\x08", 4);
	iowrite32_rep(regs + 36, fifo_in, 2);
	assert_int_equal(((u32 *)win)[9], fifo_in[1]);

	/* copies to and from the window: at an odd offset, the neighbours untouched */
	memset(win, 0, sizeof(win));
	memcpy_toio(regs + 3, "\xaa\xbb\xcc\xdd\xee", 5);
	assert_memory_equal(regs + 2, "\x00\xaa\xbb\xcc\xdd\xee\x00", 7);
	memcpy_fromio(bytes, regs + 4, 3);
	assert_memory_equal(bytes, "\xbb\xcc\xdd", 3);
	memset_io(regs + 9, 0x1ab, 6); /* the value as a byte, as memset() */
	assert_memory_equal(regs + 8, "\x00\xab\xab\xab\xab\xab\xab\x00", 8);
	memset_io(regs + 9, 0x55, 0);
	assert_int_equal(regs[9], 0xab);
}

/* Fields at odd addresses, in either byte order; fields updated in place. */
static void test_unaligned_and_byteorder(void **state)
{
	u8 b[24];
	const u8 *cb = b;
	u64 q = 0x8877665544332211ULL;
	__le32 le = cpu_to_le32(0xfffffffe);
	__be16 be = cpu_to_be16(0x00ff);
	u32 host = 0x11223344;

	(void)state;
	memset(b, 0, sizeof(b));
	put_unaligned_le32(0x11223344, b + 1);
	assert_memory_equal(b, "\x00\x44\x33\x22\x11\x00", 6);
	assert_int_equal(get_unaligned_le32(b + 1), 0x11223344);
	assert_int_equal(get_unaligned_be32(b + 1), 0x44332211);
	assert_int_equal(get_unaligned_le16(b + 3), 0x1122);
	put_unaligned_be16(0xa1b2, b + 7);
	assert_memory_equal(b + 6, "\x00\xa1\xb2\x00", 4);
	assert_int_equal(get_unaligned_be16(b + 7), 0xa1b2);
	put_unaligned_be64(0x0102030405060708ULL, b + 9);
	assert_memory_equal(b + 9, "\x01\x02\x03\x04\x05\x06\x07\x08", 8);
	assert_true(get_unaligned_be64(b + 9) == 0x0102030405060708ULL);
	assert_true(get_unaligned_le64(b + 9) == 0x0807060504030201ULL);
	put_unaligned_le64(q, b + 9);
	assert_memory_equal(b + 9, "\x11\x22\x33\x44\x55\x66\x77\x88", 8);
	put_unaligned_le16(0xbeef, b + 17);
	assert_memory_equal(b + 17, "\xef\xbe", 2);
	put_unaligned_be32(0xcafef00d, b + 19);
	assert_memory_equal(b + 19, "\xca\xfe\xf0\x0d", 4);
	assert_int_equal(b[23], 0); /* nothing past the field */
	/* 24-bit fields: three bytes, the top byte of the value dropped */
	memset(b, 0, sizeof(b));
	put_unaligned_le24(0xff123456, b + 1);
	assert_memory_equal(b, "\x00\x56\x34\x12\x00", 5);
	assert_int_equal(get_unaligned_le24(b + 1), 0x123456);
	put_unaligned_be24(0x00abcdef, b + 5);
	assert_memory_equal(b + 5, "\xab\xcd\xef\x00", 4);
	assert_int_equal(get_unaligned_be24(b + 5), 0xabcdef);
	/* get_unaligned() and put_unaligned(): the pointer's type, in the CPU's order */
	put_unaligned(q, (u64 *)(b + 3));
	assert_memory_equal(b + 3, &q, 8);
	assert_true(get_unaligned((const u64 *)(cb + 3)) == q);
	put_unaligned(host | 0x1ffff, (u16 *)(b + 13)); /* converted to the u16 */
	assert_int_equal(get_unaligned((u16 *)(b + 13)), 0xffff);
	_Static_assert(_Generic(get_unaligned((const u16 *)cb), u16: 1, default: 0), "the pointee's type");

	/* in-place arithmetic in a field's byte order, wrapping at its width */
	le32_add_cpu(&le, 1);
	assert_int_equal(le32_to_cpu(le), 0xffffffff);
	le32_add_cpu(&le, 2);
	assert_int_equal(le32_to_cpup(&le), 1);
	be16_add_cpu(&be, 1);
	assert_memory_equal(&be, "\x01\x00", 2);
	assert_int_equal(be16_to_cpup(&be), 0x100);
	le = cpu_to_le32p(&host);
	assert_memory_equal(&le, "\x44\x33\x22\x11", 4);
	assert_int_equal(upper_16_bits(0x12345678u), 0x1234);
	assert_int_equal(lower_16_bits(0x12345678u), 0x5678);
	assert_int_equal(upper_16_bits(0x1234567890ULL), 0x3456); /* bits 31..16 only */
}

/* <linux/build_bug.h> and <linux/stddef.h>: checks that cost nothing at run time, and field geometry. */
struct tdesc_hw {
	__le32 ctrl;
	__le16 len;
	__le16 flags;
	__le64 addr;
};
static_assert(sizeof(struct tdesc_hw) == 16);
static_assert(offsetofend(struct tdesc_hw, flags) == 8, "flags end where addr starts");
static const int tdesc_zero = BUILD_BUG_ON_ZERO(sizeof(struct tdesc_hw) != 16);

static int rounding_calls;

static int counted_int(int v)
{
	rounding_calls++;
	return v;
}

/* DIV_ROUND_CLOSEST() rounds halves away from zero; in_range() at both ends of its range. */
static void test_rounding_and_ranges(void **state)
{
	u32 start32 = 0x1000;
	u64 start64 = 0xfffffffff000ULL;

	(void)state;
	static_assert(sizeof_field(struct tdesc_hw, len) == 2);
	BUILD_BUG_ON_MSG(offsetofend(struct tdesc_hw, addr) != 16, "the descriptor is 16 bytes");
	assert_int_equal(tdesc_zero, 0);
	assert_int_equal(BUILD_BUG_ON_ZERO(0) + 5, 5);
	assert_int_equal(sizeof_field(struct tdesc_hw, addr), 8);
	assert_int_equal(offsetofend(struct tdesc_hw, ctrl), 4);

	assert_int_equal(DIV_ROUND_CLOSEST(7, 2), 4);
	assert_int_equal(DIV_ROUND_CLOSEST(5, 2), 3);
	assert_int_equal(DIV_ROUND_CLOSEST(6, 4), 2);
	assert_int_equal(DIV_ROUND_CLOSEST(5, 4), 1);
	assert_int_equal(DIV_ROUND_CLOSEST(-7, 2), -4);
	assert_int_equal(DIV_ROUND_CLOSEST(-5, 4), -1);
	assert_int_equal(DIV_ROUND_CLOSEST(7, -2), -4);
	assert_int_equal(DIV_ROUND_CLOSEST(-7, -2), 4);
	assert_int_equal(DIV_ROUND_CLOSEST(7u, 2u), 4u);
	assert_int_equal(DIV_ROUND_CLOSEST(counted_int(9), counted_int(4)), 2);
	assert_int_equal(rounding_calls, 2);
	assert_true(DIV_ROUND_CLOSEST_ULL(0x300000001ULL, 2) == 0x180000001ULL);
	assert_true(DIV_ROUND_DOWN_ULL(0x300000001ULL, 2) == 0x180000000ULL);

	assert_true(in_range(start32, start32, 0x100u));
	assert_true(in_range(start32 + 0xff, start32, 0x100u));
	assert_false(in_range(start32 + 0x100, start32, 0x100u));
	assert_false(in_range(start32 - 1, start32, 0x100u));
	assert_false(in_range(start32, start32, 0u));
	assert_true(in_range(start64 + 0xfff, start64, 0x1000ULL)); /* 64-bit: no truncation */
	assert_false(in_range(start64 + 0x1000, start64, 0x1000ULL));
	assert_false(in_range((u64)start32 + 0x100000000ULL, start32, 0x100u));
}

/* Bit numbers across word boundaries, searches at the bitmap's edges, a slot allocator's area search. */
static void test_bitops_and_bitmaps(void **state)
{
	DECLARE_BITMAP(map, 130);
	unsigned long bit, seen[8], n = 0;
	unsigned long word = 0;

	(void)state;
	_Static_assert(sizeof(map) == BITS_TO_LONGS(130) * sizeof(long), "three words on LP64");
	assert_int_equal(BITS_PER_LONG, 8 * sizeof(long));
	assert_int_equal(BITS_TO_LONGS(64), 64 / BITS_PER_LONG);
	assert_int_equal(BITS_TO_LONGS(65), 64 / BITS_PER_LONG + 1);
	bitmap_zero(map, 130);
	assert_true(bitmap_empty(map, 130));
	/* the last bit of a word and the first of the next */
	set_bit(BITS_PER_LONG - 1, map);
	__set_bit(BITS_PER_LONG, map);
	assert_int_equal(map[0], 1UL << (BITS_PER_LONG - 1));
	assert_int_equal(map[1], 1UL);
	assert_true(test_bit(BITS_PER_LONG - 1, map));
	assert_false(test_bit(BITS_PER_LONG + 1, map));
	assert_true(test_and_set_bit(BITS_PER_LONG, map));
	assert_false(test_and_set_bit(129, map));
	assert_true(test_and_clear_bit(129, map));
	assert_false(test_and_clear_bit(129, map));
	assert_false(__test_and_set_bit(3, map));
	assert_true(__test_and_clear_bit(3, map));
	change_bit(5, map);
	__change_bit(6, map);
	clear_bit(5, map);
	assert_false(test_bit(5, map));
	assert_true(test_bit(6, map));
	__clear_bit(6, map);
	assert_false(test_and_set_bit_lock(7, map));
	clear_bit_unlock(7, map);
	assert_int_equal(bitmap_weight(map, 130), 2);

	/* searches: the bits in order, @size when there is none, nothing at or past @size */
	assert_int_equal(find_first_bit(map, 130), BITS_PER_LONG - 1);
	assert_int_equal(find_next_bit(map, 130, BITS_PER_LONG - 1), BITS_PER_LONG - 1);
	assert_int_equal(find_next_bit(map, 130, BITS_PER_LONG + 1), 130);
	assert_int_equal(find_next_bit(map, BITS_PER_LONG, 0), BITS_PER_LONG - 1);
	assert_int_equal(find_next_bit(map, BITS_PER_LONG - 1, 0), BITS_PER_LONG - 1); /* below @size only */
	assert_int_equal(find_last_bit(map, 130), BITS_PER_LONG);
	assert_int_equal(find_first_zero_bit(map, 130), 0);
	assert_int_equal(find_next_zero_bit(map, 130, BITS_PER_LONG - 1), BITS_PER_LONG + 1);
	bitmap_set(map, 128, 2);
	for_each_set_bit(bit, map, 130)
		seen[n++] = bit;
	assert_int_equal(n, 4);
	assert_true(seen[0] == BITS_PER_LONG - 1 && seen[1] == BITS_PER_LONG && seen[2] == 128 && seen[3] == 129);
	n = 0;
	for_each_clear_bit(bit, map, 130)
		n++;
	assert_int_equal(n, 126);
	bitmap_fill(map, 130);
	assert_true(bitmap_full(map, 130));
	assert_int_equal(bitmap_weight(map, 130), 130);
	assert_int_equal(map[BIT_WORD(129)] >> (130 % BITS_PER_LONG), 0); /* nothing past @nbits */
	assert_int_equal(find_first_zero_bit(map, 130), 130);
	assert_int_equal(find_last_bit(map, 0), 0);
	bitmap_clear(map, 1, 128);
	assert_int_equal(bitmap_weight(map, 130), 2);
	assert_true(test_bit(0, map) && test_bit(129, map));
	/* bits past @size or @nbits in the last word are not seen */
	assert_int_equal(find_first_bit(map + 2, 1), 1);
	assert_int_equal(find_next_bit(map, 129, 1), 129); /* bit 129 is past @size */
	__clear_bit(129, map);
	__set_bit(131, map); /* in the array's last word, past the bitmap's 130 bits */
	assert_int_equal(find_next_bit(map, 130, 1), 130);
	assert_int_equal(find_last_bit(map, 130), 0);
	__clear_bit(131, map);
	__set_bit(129, map);
	assert_int_equal(bitmap_weight(map, 129), 1);
	assert_false(bitmap_empty(map, 1));
	assert_true(bitmap_empty(map + 1, BITS_PER_LONG));

	/* a slot allocator: runs of clear bits, aligned, and the failure value above @size - @nr */
	bitmap_zero(map, 130);
	bitmap_set(map, 0, 3);
	assert_int_equal(bitmap_find_next_zero_area(map, 130, 0, 4, 0), 3);
	assert_int_equal(bitmap_find_next_zero_area(map, 130, 0, 4, 7), 8);
	bitmap_set(map, 10, 1);
	assert_int_equal(bitmap_find_next_zero_area(map, 130, 0, 8, 7), 16); /* 8..15 holds bit 10 */
	assert_int_equal(bitmap_find_next_zero_area(map, 130, 120, 10, 0), 120);
	assert_true(bitmap_find_next_zero_area(map, 130, 121, 10, 0) > 130 - 10);
	assert_true(bitmap_find_next_zero_area(map, 130, 0, 200, 0) > 130);

	/* single words */
	word = 1UL << (BITS_PER_LONG - 1);
	assert_int_equal(__ffs(word), BITS_PER_LONG - 1);
	assert_int_equal(__fls(word | 1), BITS_PER_LONG - 1);
	assert_int_equal(__ffs(word | 8), 3);
	assert_int_equal(ffz(0x7UL), 3);
	assert_int_equal(ffz(~word), BITS_PER_LONG - 1);
	assert_int_equal(fls(0), 0);
	assert_int_equal(fls(1), 1);
	assert_int_equal(fls(0x80000000u), 32);
	assert_int_equal(fls64(0), 0);
	assert_int_equal(fls64(1ULL << 63), 64);
	assert_int_equal(fls64(0x100000000ULL), 33);
	assert_int_equal(hweight8(0x1ff), 8);
	assert_int_equal(hweight16(0x1ffff), 16);
	assert_int_equal(hweight32(0xf0f0f0f0), 16);
	assert_int_equal(hweight64(~0ULL), 64);
}

static unsigned int pow2_calls;

static unsigned int pow2_arg(unsigned int v)
{
	pow2_calls++;
	return v;
}

/* Ring sizing: the powers of two around a count, at and beside each power; page geometry; SMP barriers. */
static void test_pow2_and_page_names(void **state)
{
	static u8 ring[roundup_pow_of_two(100)];
	static u8 order_bits[order_base_2(1000)];
	unsigned int v = 100;
	u64 big = 0x100000001ULL;
	int flag = 0;

	(void)state;
	assert_int_equal(sizeof(ring), 128);
	assert_int_equal(sizeof(order_bits), 10);
	assert_int_equal(roundup_pow_of_two(v), 128);
	assert_int_equal(roundup_pow_of_two(v + 28), 128);
	assert_int_equal(roundup_pow_of_two(v + 29), 256);
	assert_int_equal(roundup_pow_of_two(v - 99), 1);
	assert_int_equal(rounddown_pow_of_two(v), 64);
	assert_int_equal(rounddown_pow_of_two(v + 28), 128);
	assert_int_equal(rounddown_pow_of_two(v + 27), 64);
	assert_true(roundup_pow_of_two(big) == 0x200000000ULL);
	assert_true(rounddown_pow_of_two(big) == 0x100000000ULL);
	assert_int_equal(order_base_2(v - v), 0);
	assert_int_equal(order_base_2(v - 99), 0);
	assert_int_equal(order_base_2(v - 98), 1);
	assert_int_equal(order_base_2(v - 97), 2);
	assert_int_equal(order_base_2(v - 96), 2);
	assert_int_equal(order_base_2(v - 95), 3);
	assert_int_equal(order_base_2(big), 33);
	assert_int_equal(order_base_2(pow2_arg(4096)), 12);
	assert_int_equal(pow2_calls, 1);
	_Static_assert(roundup_pow_of_two(4096) == 4096 && rounddown_pow_of_two(4097) == 4096, "constants");
	_Static_assert(order_base_2(4097) == 13 && order_base_2(1) == 0, "constant orders");

	assert_true(PAGE_ALIGNED(2 * PAGE_SIZE));
	assert_false(PAGE_ALIGNED(2 * PAGE_SIZE + 1));
	assert_false(PAGE_ALIGNED(PAGE_SIZE / 2));
	assert_true(PAGE_ALIGNED(0));
	assert_int_equal(PHYS_PFN((phys_addr_t)0x80001fffULL), 0x80001fffULL >> PAGE_SHIFT);
	smp_wmb();
	WRITE_ONCE(flag, 1);
	smp_mb();
	while (!READ_ONCE(flag))
		cpu_relax();
	smp_rmb();
	assert_int_equal(flag, 1);
}

static int calls;

static unsigned int counted(unsigned int v)
{
	calls++;
	return v;
}

/* min() and its siblings evaluate each argument once, as <linux/minmax.h>'s do. */
static void test_minmax_evaluate_once(void **state)
{
	unsigned int ring[8] = { 10, 20, 30, 40, 50, 60, 70, 80 }, i = 0;
	int n = -5;

	(void)state;
	assert_int_equal(min(ring[i++], 25u), 10);
	assert_int_equal(i, 1);
	assert_int_equal(max(ring[i++], 25u), 25);
	assert_int_equal(i, 2);
	assert_int_equal(min(25u, ring[i++]), 25);
	assert_int_equal(i, 3);

	calls = 0;
	assert_int_equal(max(counted(100), 64u), 100);
	assert_int_equal(calls, 1);
	calls = 0;
	assert_int_equal(min(counted(100), counted(64)), 64);
	assert_int_equal(calls, 2);
	calls = 0;
	assert_int_equal(min_t(u32, counted(100), 4096), 100);
	assert_int_equal(max_t(u16, counted(0x10005), 4), 5); /* converted to the type before comparing */
	assert_int_equal(calls, 2);
	calls = 0;
	assert_int_equal(clamp(counted(100), 0u, 4096u), 100);
	assert_int_equal(clamp(counted(9000), counted(0), counted(4096)), 4096);
	assert_int_equal(clamp(counted(3), 8u, 4096u), 8);
	assert_int_equal(calls, 5);
	calls = 0;
	assert_int_equal(min_not_zero(counted(100), 4096u), 100);
	assert_int_equal(min_not_zero(counted(0), counted(7)), 7);
	assert_int_equal(min_not_zero(4096u, counted(100)), 100);
	assert_int_equal(calls, 4);

	/* nested: each temporary its own, whatever the depth */
	calls = 0;
	assert_int_equal(min(min(counted(10), counted(20)), min(counted(30), 5u)), 5);
	assert_int_equal(calls, 3);
	assert_int_equal(max(n, min(n + 10, max(n, 2))), 2);
	/* the values and types the plain operators give */
	assert_int_equal(min(n, 3), -5);
	assert_int_equal(clamp(n, -2, 2), -2);
	assert_int_equal(clamp(7, -2, 2), 2);
	_Static_assert(_Generic(min((u8)1, (u8)2), int: 1, default: 0), "u8 operands promote to int");
	_Static_assert(_Generic(min(1u, 2), unsigned int: 1, default: 0), "the common type");
	_Static_assert(_Generic(min_t(u64, 1, 2), u64: 1, default: 0), "min_t's type");
}

static int submit_line;

/* The kernel basics drivers use beside the DMA API: values, types, single evaluation. */
static void test_kernel_names(void **state)
{
	struct fx *f = *state;
	unsigned int ring[8] = { 9, 4, 7, 1, 0, 0, 0, 0 }, i = 0;
	u8 be[8];
	int a = 3, b = 5;
	__be32 w;
	__be64 q;

	(void)f;
	/* <linux/sizes.h> above 1 GiB: unsigned long long, as the kernel's */
	assert_true(SZ_2G == 0x80000000ULL && SZ_4G == 0x100000000ULL && SZ_64G == 1ULL << 36);
	_Static_assert(_Generic(SZ_4G, unsigned long long: 1, default: 0), "SZ_4G type");
	/* <linux/limits.h> of the kernel */
	assert_true(U32_MAX == 0xffffffffu && U64_MAX == ~0ULL && U16_MAX == 0xffff && U8_MAX == 0xff);
	assert_true(S32_MAX == INT32_MAX && S32_MIN == INT32_MIN && S64_MIN == INT64_MIN && S16_MIN == -32768);
	_Static_assert(_Generic(U32_MAX, u32: 1, default: 0) && _Generic(U64_MAX, u64: 1, default: 0), "limit types");
	/* the kernel-internal errnos, and IS_ERR_VALUE() */
	assert_int_equal(EPROBE_DEFER, 517);
	assert_int_equal(ENOTSUPP, 524);
	assert_true(IS_ERR_VALUE((unsigned long)-EINVAL));
	assert_true(IS_ERR_VALUE(-MAX_ERRNO));
	assert_false(IS_ERR_VALUE(-MAX_ERRNO - 1));
	assert_false(IS_ERR_VALUE(0));
	assert_true(IS_ERR_VALUE((unsigned long)ERR_PTR(-ENOMEM)));
	/* min3() and its kin: once each */
	assert_int_equal(min3(ring[i++], 5u, 8u), 5);
	assert_int_equal(i, 1);
	assert_int_equal(max3(ring[i++], ring[i++], ring[i++]), 7);
	assert_int_equal(i, 4);
	assert_int_equal(clamp_t(u8, 0x1ff, 0, 0x80), 0x80); /* 0x1ff as a u8 is 0xff */
	assert_int_equal(clamp_t(int, -3, 0, 9), 0);
	assert_int_equal(clamp_val(i, 5, 9), 5);
	{
		u8 small = 200;

		assert_int_equal(clamp_val(small, 0, 100), 100);
		assert_int_equal(clamp_val(small, 0, 300), 44); /* as the kernel's: 300 converted to a u8 is 44 */
		_Static_assert(_Generic(clamp_val(small, 0, 300), int: 1, default: 0), "promoted u8");
	}
	swap(a, b);
	assert_true(a == 5 && b == 3);
	/* roundup()/rounddown() to any multiple */
	assert_int_equal(roundup(10, 3), 12);
	assert_int_equal(roundup(12, 3), 12);
	assert_int_equal(rounddown(10, 3), 9);
	i = 0;
	assert_int_equal(roundup(ring[0], ring[i++]), 9);
	assert_int_equal(i, 1);
	assert_int_equal(rounddown(ring[i++], 3), 3);
	assert_int_equal(i, 2);
	/* <linux/log2.h> */
	assert_false(is_power_of_2(0));
	assert_true(is_power_of_2(1) && is_power_of_2(4096) && is_power_of_2(1UL << 63));
	assert_false(is_power_of_2(96));
	_Static_assert(ilog2(4096) == 12 && ilog2(1) == 0 && ilog2(0) == 0, "constant ilog2");
	{
		volatile u32 v32 = 4097;
		volatile u64 v64 = 1ULL << 40;

		assert_int_equal(ilog2(v32), 12); /* volatile: the run-time path */
		assert_int_equal(ilog2(v64), 40);
		assert_int_equal(ilog2(ring[i++]), 2);
		assert_int_equal(i, 3);
	}
	/* big-endian fields */
	w = cpu_to_be32(0x11223344);
	memcpy(be, &w, 4);
	assert_true(be[0] == 0x11 && be[3] == 0x44);
	assert_int_equal(be32_to_cpu(w), 0x11223344);
	q = cpu_to_be64(0x0102030405060708ULL);
	memcpy(be, &q, 8);
	assert_true(be[0] == 1 && be[7] == 8);
	assert_true(be64_to_cpu(q) == 0x0102030405060708ULL);
	assert_int_equal(be16_to_cpu(cpu_to_be16(0xabcd)), 0xabcd);
	/* BUILD_BUG_ON() of a false condition compiles to nothing; fallthrough is a statement */
	BUILD_BUG_ON(sizeof(dma_addr_t) != 8);
	switch (a) {
	case 5:
		a++;
		fallthrough;
	default:
		a++;
	}
	assert_int_equal(a, 7);
	assert_int_equal(f->c.messages, 0);
}

/* pr_err() and friends reach the current machine's handler with the file's pr_fmt(); dev_err_probe()'s levels. */
static void test_printk_levels(void **state)
{
	struct fx *f = *state;
	struct capture g;

	pr_err("ring %d stuck\n", 3);
	assert_int_equal(f->c.messages, 1);
	assert_string_equal(f->c.last, "lx-test: ring 3 stuck");
	assert_int_equal(f->c.last_level, DMAMAP_LOG_ERR);
	assert_int_equal(f->c.last_kind, DMAMAP_REPORT_NONE);
	assert_string_equal(f->c.last_device, "");
	pr_warn("w\n");
	assert_int_equal(f->c.last_level, DMAMAP_LOG_WARN);
	pr_info("i %s\n", "x");
	assert_int_equal(f->c.last_level, DMAMAP_LOG_INFO);
	assert_string_equal(f->c.last, "lx-test: i x");
	pr_notice("n\n");
	assert_int_equal(f->c.last_level, DMAMAP_LOG_INFO);
	pr_debug("d\n");
	assert_int_equal(f->c.last_level, DMAMAP_LOG_DEBUG);
	pr_crit("c\n");
	assert_int_equal(f->c.last_level, DMAMAP_LOG_ERR);
	assert_int_equal(f->c.messages, 6);
	assert_int_equal(f->c.reports, 0);

	/* dev_err_probe(): the error, logged as dev_err(); -EPROBE_DEFER only at debug level */
	assert_int_equal(dev_err_probe(&f->dev, -EIO, "no clock (%d)\n", 1), -EIO);
	assert_int_equal(f->c.last_level, DMAMAP_LOG_ERR);
	assert_string_equal(f->c.last, "no clock (1)");
	assert_int_equal(dev_err_probe(&f->dev, -EPROBE_DEFER, "clock not ready\n"), -EPROBE_DEFER);
	assert_int_equal(f->c.last_level, DMAMAP_LOG_DEBUG);
	assert_string_equal(f->c.last_device, "lx");

	/* no current machine: the process-wide handler */
	dmamap_machine_set_current(NULL);
	capture_start(&g, NULL);
	pr_err("alone\n");
	capture_stop(NULL);
	dmamap_machine_set_current(f->m);
	assert_int_equal(g.messages, 1);
	assert_string_equal(g.last, "lx-test: alone");
	assert_int_equal(f->c.messages, 8);
}

static void log_once_site(struct device *dev, int n)
{
	dev_warn_once(dev, "late %d\n", n);
}

/* dev_printk() takes the KERN_* strings; the other levels; _once logs once per call site; _ratelimited every time. */
static void test_dev_printk_family(void **state)
{
	struct fx *f = *state;
	static const struct {
		const char *kern;
		int level;
	} levels[] = {
		{ KERN_EMERG, DMAMAP_LOG_ERR },    { KERN_ALERT, DMAMAP_LOG_ERR },  { KERN_CRIT, DMAMAP_LOG_ERR },
		{ KERN_ERR, DMAMAP_LOG_ERR },      { KERN_WARNING, DMAMAP_LOG_WARN }, { KERN_NOTICE, DMAMAP_LOG_INFO },
		{ KERN_INFO, DMAMAP_LOG_INFO },    { KERN_DEBUG, DMAMAP_LOG_DEBUG }, { KERN_DEFAULT, DMAMAP_LOG_WARN },
	};
	int i, n = 0;

	assert_string_equal(KERN_ERR, "\0013");
	assert_string_equal(KERN_DEBUG, "\0017");
	for (i = 0; i < (int)ARRAY_SIZE(levels); i++) {
		dev_printk(levels[i].kern, &f->dev, "level %d\n", i);
		assert_int_equal(f->c.messages, (unsigned long)i + 1);
		assert_int_equal(f->c.last_level, levels[i].level);
		assert_string_equal(f->c.last_device, "lx");
		assert_true(strstr(f->c.last, "level ") != NULL);
	}
	f->c.messages = 0;
	dev_emerg(&f->dev, "e\n");
	assert_int_equal(f->c.last_level, DMAMAP_LOG_ERR);
	dev_alert(&f->dev, "a\n");
	assert_int_equal(f->c.last_level, DMAMAP_LOG_ERR);
	dev_crit(&f->dev, "c\n");
	assert_int_equal(f->c.last_level, DMAMAP_LOG_ERR);
	dev_notice(&f->dev, "n %s\n", "x");
	assert_int_equal(f->c.last_level, DMAMAP_LOG_INFO);
	assert_string_equal(f->c.last, "n x");
	assert_int_equal(f->c.messages, 4);

	/* once per call site: a loop logs once, and a second site logs once more */
	f->c.messages = 0;
	for (i = 0; i < 5; i++)
		dev_err_once(&f->dev, "stuck %d (%d)\n", i, n++);
	assert_int_equal(f->c.messages, 1);
	assert_string_equal(f->c.last, "stuck 0 (0)");
	assert_int_equal(f->c.last_level, DMAMAP_LOG_ERR);
	assert_int_equal(n, 1); /* the arguments are not evaluated again */
	for (i = 0; i < 3; i++)
		dev_info_once(&f->dev, "info %d\n", i);
	assert_int_equal(f->c.messages, 2);
	assert_int_equal(f->c.last_level, DMAMAP_LOG_INFO);
	for (i = 0; i < 3; i++)
		log_once_site(&f->dev, i);
	assert_int_equal(f->c.messages, 3);
	assert_string_equal(f->c.last, "late 0");
	assert_int_equal(f->c.last_level, DMAMAP_LOG_WARN);

	/* rate-limited forms log every time here */
	f->c.messages = 0;
	for (i = 0; i < 20; i++) {
		dev_err_ratelimited(&f->dev, "r %d\n", i);
		dev_warn_ratelimited(&f->dev, "w %d\n", i);
		dev_info_ratelimited(&f->dev, "i %d\n", i);
	}
	assert_int_equal(f->c.messages, 60);
	assert_string_equal(f->c.last, "i 19");
	assert_int_equal(f->c.reports, 0);

	/* a reference is the device itself; dropping it changes nothing */
	assert_ptr_equal(get_device(&f->dev), &f->dev);
	assert_null(get_device(NULL));
	put_device(&f->dev);
	put_device(NULL);
	assert_ptr_equal(dmamap_dev_machine(&f->dev), f->m);
}

/* dma_get_required_mask(): every bit up to the top one of RAM's last bus address, as the device sees it. */
static void test_required_mask(void **state)
{
	struct fx *f = *state;
	struct dmamap_machine_config cfg;
	struct dma_iommu_mapping *map;
	u64 last, want;

	dmamap_machine_get_config(f->m, &cfg);
	last = cfg.ram_base + cfg.ram_size - 1;
	want = DMA_BIT_MASK(64 - __builtin_clzll(last));
	assert_true(want >= last && want >> 1 < last);
	assert_true(dma_get_required_mask(&f->dev) == want);
	/* as dma_addressing_limited() sees it: a mask that covers it is not limited */
	assert_int_equal(dma_set_mask_and_coherent(&f->dev, want), 0);
	assert_false(dma_addressing_limited(&f->dev));
	assert_int_equal(dma_set_mask_and_coherent(&f->dev, DMA_BIT_MASK(32)), 0);
	/* a bus that sees RAM lower down needs fewer bits */
	f->dev.dma_pfn_offset = (unsigned long)(cfg.ram_base >> PAGE_SHIFT);
	assert_true(dma_get_required_mask(&f->dev) == DMA_BIT_MASK(64 - __builtin_clzll(cfg.ram_size - 1)));
	f->dev.dma_pfn_offset = 0;
	/* behind the IOMMU mapper, the kernel's 32 bits */
	map = arm_iommu_create_mapping(f->m, 0x80000000, SZ_16M, 0);
	assert_false(IS_ERR(map));
	assert_int_equal(arm_iommu_attach_device(&f->dev, map), 0);
	assert_true(dma_get_required_mask(&f->dev) == DMA_BIT_MASK(32));
	arm_iommu_detach_device(&f->dev);
	arm_iommu_release_mapping(map);
	assert_int_equal(f->c.reports, 0);
	/* no device: reported (process-wide), the 32-bit default */
	assert_true(dma_get_required_mask(NULL) == DMA_BIT_MASK(32));
}

/* A driver's size check, as drivers write it. */
static int submit(unsigned int len)
{
	submit_line = __LINE__ + 1;
	if (WARN_ON(len > 4096))
		return -EINVAL;
	return 0;
}

static int warn_once_site(int cond)
{
	return WARN_ON_ONCE(cond);
}

/* The message a WARN at @file:@line logs, with @msg after it when not NULL. */
static void assert_warning(const struct capture *c, int line, const char *msg)
{
	char want[512];

	snprintf(want, sizeof(want), "WARNING: at %s:%d%s%s", __FILE__, line, msg ? ": " : "", msg ? msg : "");
	assert_string_equal(c->last, want);
	assert_int_equal(c->last_level, DMAMAP_LOG_WARN);
	assert_int_equal(c->last_kind, DMAMAP_REPORT_NONE);
}

static int vdbg_args;

static int vdbg_arg(void)
{
	return ++vdbg_args;
}

/* dev_WARN() and dev_WARN_ONCE() warn with the device's name; dev_vdbg() is silent without VERBOSE_DEBUG. */
static void test_dev_warn_and_vdbg(void **state)
{
	struct fx *f = *state;
	struct page *pg;
	int line, r, i;

	r = dev_WARN(&f->dev, "ring %d stalled", 3); line = __LINE__;
	assert_int_equal(r, 1);
	assert_warning(&f->c, line, "lx: ring 3 stalled");
	assert_int_equal(f->c.messages, 1);
	for (i = 0; i < 3; i++) {
		r = dev_WARN_ONCE(&f->dev, i > 0, "late completion %d", i); line = __LINE__;
		assert_int_equal(r, i > 0);
	}
	assert_warning(&f->c, line, "lx: late completion 1");
	assert_int_equal(f->c.messages, 2);
	dev_vdbg(&f->dev, "verbose %d", vdbg_arg());
	assert_int_equal(vdbg_args, 0); /* not evaluated */
	assert_int_equal(f->c.messages, 2);
	assert_int_equal(f->c.reports, 0);

	pg = alloc_pages(GFP_KERNEL, 0);
	assert_non_null(pg);
	assert_ptr_equal(page_to_virt(pg), page_address(pg));
	assert_ptr_equal(virt_to_page(page_to_virt(pg)), pg);
	__free_pages(pg, 0);
}

/* WARN_ON() and its siblings return the condition and log where they fired; none is a report. */
static void test_warn_logs_where_it_fired(void **state)
{
	struct fx *f = *state;
	struct capture g;
	int line, n = 0, i, r;

	assert_int_equal(submit(64), 0);
	assert_int_equal(f->c.messages, 0);
	assert_int_equal(submit(10000), -EINVAL);
	assert_int_equal(f->c.messages, 1);
	assert_warning(&f->c, submit_line, NULL);

	assert_int_equal(WARN_ON(n++ == 0), 1); line = __LINE__;
	assert_int_equal(n, 1); /* evaluated once */
	assert_warning(&f->c, line, NULL);
	assert_int_equal(WARN_ON(7), 1); /* the truth of the condition, not its value */
	assert_int_equal(WARN_ON(0), 0);
	assert_int_equal(f->c.messages, 3);

	r = WARN(n & 1, "%s: unaligned length %u\n", dev_name(&f->dev), 10u); line = __LINE__;
	assert_int_equal(r, 1);
	assert_warning(&f->c, line, "lx: unaligned length 10");
	assert_int_equal(WARN(0, "never %d", n), 0);
	assert_int_equal(f->c.messages, 4);

	/* the _ONCE forms: true every time, logged the first time their site fires */
	assert_int_equal(warn_once_site(0), 0);
	for (i = 0; i < 3; i++)
		assert_int_equal(warn_once_site(1), 1);
	assert_int_equal(f->c.messages, 5);
	for (i = 0; i < 3; i++) {
		r = WARN_ONCE(i >= 1, "long frame %d", i); line = __LINE__;
		assert_int_equal(r, i >= 1);
	}
	assert_int_equal(f->c.messages, 6);
	assert_warning(&f->c, line, "long frame 1");
	assert_int_equal(f->c.reports, 0);

	/* no current machine: the process-wide handler hears it */
	dmamap_machine_set_current(NULL);
	capture_start(&g, NULL);
	assert_int_equal(WARN_ON(1), 1); line = __LINE__;
	capture_stop(NULL);
	dmamap_machine_set_current(f->m);
	assert_int_equal(g.messages, 1);
	assert_warning(&g, line, NULL);
	assert_int_equal(f->c.messages, 6);
	BUG_ON(n > 1); /* false: nothing happens */
	assert_int_equal(f->c.messages, 6);
}

/* BUG_ON() ends the process (SIGABRT) with "kernel BUG at file:line!" on stderr. */
static void test_bug_on_aborts(void **state)
{
	struct fx *f = *state;
	char out[8192], want[256];
	size_t len = 0;
	int fds[2], status, line;
	ssize_t got;
	pid_t pid;

	(void)f;
	assert_int_equal(pipe(fds), 0);
	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		dup2(fds[1], 2);
		close(fds[0]);
		BUG_ON(f->dev.dma_mask != NULL); line = __LINE__;
		(void)line;
		_exit(0); /* not reached */
	}
	line = __LINE__ - 4;
	close(fds[1]);
	while (len < sizeof(out) - 1 && (got = read(fds[0], out + len, sizeof(out) - 1 - len)) > 0)
		len += (size_t)got;
	out[len] = '\0';
	close(fds[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGABRT);
	snprintf(want, sizeof(want), "kernel BUG at %s:%d!", __FILE__, line);
	if (!strstr(out, want))
		fail_msg("no \"%s\" in the child's stderr:\n%s", want, out);
}

/* kvmalloc() is kmalloc memory while kmalloc serves it (a vmalloc fallback: test-vmalloc); kmalloc_size_roundup() names the slot. */
static void test_kvmalloc_and_size_roundup(void **state)
{
	struct fx *f = *state;
	struct dmamap_kmalloc_stats ks;
	u8 *p = kvzalloc(3000, GFP_KERNEL), *q, seen[3000];
	dma_addr_t bus;

	assert_non_null(p);
	assert_true(virt_addr_valid(p));
	assert_int_equal(ksize(p), kmalloc_size_roundup(3000));
	assert_int_equal(kmalloc_size_roundup(3000), PAGE_SIZE);
	memset(p, 0x5a, 3000);
	bus = dma_map_single(&f->dev, p, 3000, DMA_TO_DEVICE);
	assert_false(dma_mapping_error(&f->dev, bus));
	assert_int_equal(dmamap_dev_read(&f->dev, bus, seen, sizeof(seen)), 0);
	for (size_t i = 0; i < sizeof(seen); i++)
		assert_int_equal(seen[i], 0x5a);
	dma_unmap_single(&f->dev, bus, 3000, DMA_TO_DEVICE);
	kvfree(p);

	q = kvcalloc(10, 12, GFP_KERNEL);
	assert_non_null(q);
	assert_int_equal(ksize(q), kmalloc_size_roundup(120));
	kvfree(q);
	q = kzalloc_node(100, GFP_KERNEL, NUMA_NO_NODE);
	assert_non_null(q);
	assert_int_equal(ksize(q), kmalloc_size_roundup(100));
	kfree(q);
	dmamap_kmalloc_stats(f->m, &ks);
	assert_int_equal(ks.live_objects, 0);

	/* the slot of a small object: the cache line by default */
	assert_int_equal(kmalloc_size_roundup(12), 32);
	assert_int_equal(kmalloc_size_roundup(0), 0);
	assert_int_equal(kmalloc_size_roundup(KMALLOC_MAX_SIZE + 1), KMALLOC_MAX_SIZE + 1);
	assert_int_equal(kmalloc_size_roundup(KMALLOC_MAX_SIZE), KMALLOC_MAX_SIZE);
	assert_int_equal(f->c.reports, 0);
}

static void packed(struct dmamap_machine_config *cfg)
{
	cfg->kmalloc_packed = true;
}

static void test_size_roundup_on_a_packed_machine(void **state)
{
	struct fx *f = *state;
	struct dmamap_machine *pm = test_machine(16, packed);
	void *p;

	assert_non_null(pm);
	dmamap_machine_set_current(pm);
	assert_int_equal(kmalloc_size_roundup(12), 16);
	assert_int_equal(kmalloc_size_roundup(90), 96);
	p = kmalloc(12, GFP_KERNEL);
	assert_non_null(p);
	assert_int_equal(ksize(p), 16);
	kfree(p);
	dmamap_machine_set_current(f->m);
	test_machine_destroy(pm);
	assert_int_equal(kmalloc_size_roundup(12), 32);
}

/* A scatterlist page touched by the CPU through a temporary mapping, then given to the device. */
static void test_highmem_mappings(void **state)
{
	struct fx *f = *state;
	struct page *pg = alloc_page(GFP_KERNEL);
	char *va, got[16];
	u8 seen[16];
	dma_addr_t bus;

	assert_non_null(pg);
	va = kmap_local_page(pg);
	assert_ptr_equal(va, page_address(pg));
	memset(va, 0, PAGE_SIZE);
	kunmap_local(va);
	memcpy_to_page(pg, 100, "sixteen bytes!!", 16);
	va = kmap_atomic(pg);
	assert_memory_equal(va + 100, "sixteen bytes!!", 16);
	kunmap_atomic(va);
	assert_ptr_equal(kmap(pg), page_address(pg));
	kunmap(pg);

	bus = dma_map_page(&f->dev, pg, 100, 16, DMA_TO_DEVICE);
	assert_false(dma_mapping_error(&f->dev, bus));
	assert_int_equal(dmamap_dev_read(&f->dev, bus, seen, sizeof(seen)), 0);
	assert_memory_equal(seen, "sixteen bytes!!", 16);
	dma_unmap_page(&f->dev, bus, 16, DMA_TO_DEVICE);

	memzero_page(pg, 104, 4);
	memcpy_from_page(got, pg, 100, 16);
	assert_memory_equal(got, "sixt\0\0\0\0bytes!!", 16);
	__free_page(pg);
	assert_int_equal(f->c.reports, 0);
}

static void test_iommu_helpers(void **state)
{
	struct fx *f = *state;
	struct dma_iommu_mapping *map = arm_iommu_create_mapping(f->m, 0x80000000, SZ_16M, 0);
	struct iommu_domain *d;
	struct page *pg = alloc_page(GFP_KERNEL);

	assert_false(IS_ERR(map));
	assert_non_null(pg);
	assert_null(iommu_get_domain_for_dev(&f->dev));
	assert_null(iommu_get_domain_for_dev(NULL));
	assert_int_equal(arm_iommu_attach_device(&f->dev, map), 0);
	assert_ptr_equal(iommu_get_domain_for_dev(&f->dev), map->domain);
	arm_iommu_detach_device(&f->dev);
	assert_null(iommu_get_domain_for_dev(&f->dev));
	arm_iommu_release_mapping(map);

	/* iommu_map() with Linux 6.1's five arguments and 6.3's six */
	d = iommu_domain_alloc(f->m);
	assert_non_null(d);
	assert_int_equal(iommu_map(d, 0x10000, page_to_phys(pg), PAGE_SIZE, IOMMU_READ), 0);
	assert_int_equal(iommu_map(d, 0x20000, page_to_phys(pg), PAGE_SIZE, IOMMU_READ | IOMMU_WRITE, GFP_KERNEL), 0);
	assert_int_equal(iommu_iova_to_phys(d, 0x20010), page_to_phys(pg) + 0x10);
	assert_int_equal(iommu_unmap(d, 0x10000, PAGE_SIZE), PAGE_SIZE);
	assert_int_equal(iommu_unmap(d, 0x20000, PAGE_SIZE), PAGE_SIZE);
	iommu_domain_free(d);
	__free_page(pg);
	assert_int_equal(f->c.reports, 0);
}

/* ------------------------------------------------------------ managed resources */

static int order_seen[8], order_n;

static void note_action(void *data)
{
	order_seen[order_n++] = (int)(intptr_t)data;
}

static void test_managed_resources_go_with_the_device(void **state)
{
	struct fx *f = *state;
	struct dmamap_kmalloc_stats ks;
	struct dma_pool *pool;
	dma_addr_t h, bh;
	void *coh, *wc, *blk;
	u8 *mem;

	order_n = 0;
	assert_int_equal(devm_add_action(&f->dev, note_action, (void *)1), 0);
	mem = devm_kzalloc(&f->dev, 100, GFP_KERNEL);
	assert_non_null(mem);
	assert_ptr_equal(dmamap_machine_of(mem), f->m);
	assert_int_equal(mem[99], 0);
	coh = dmam_alloc_coherent(&f->dev, SZ_8K, &h, GFP_KERNEL);
	assert_non_null(coh);
	wc = dmam_alloc_attrs(&f->dev, SZ_4K, &bh, GFP_KERNEL, DMA_ATTR_WRITE_COMBINE);
	assert_non_null(wc);
	pool = dmam_pool_create("lx-pool", &f->dev, 64, 64, 0);
	assert_non_null(pool);
	blk = dma_pool_alloc(pool, GFP_KERNEL, &bh);
	assert_non_null(blk);
	dma_pool_free(pool, blk, bh);
	assert_int_equal(devm_add_action_or_reset(&f->dev, note_action, (void *)2), 0);
	assert_int_equal(dmamap_devres_count(&f->dev), 6);
	assert_true(test_free_pages(f->m) < f->base_free);

	dmamap_device_release(&f->dev);
	/* everything went, newest first, with no report */
	assert_int_equal(order_n, 2);
	assert_int_equal(order_seen[0], 2);
	assert_int_equal(order_seen[1], 1);
	dmamap_kmalloc_stats(f->m, &ks);
	assert_int_equal(ks.live_objects, 0);
	assert_int_equal(f->c.reports, 0);
	assert_int_equal(dmamap_devres_count(&f->dev), 0);
}

static void test_managed_resources_released_by_hand(void **state)
{
	struct fx *f = *state;
	struct dma_pool *pool, *plain;
	dma_addr_t h, bh;
	void *coh, *mem, *other, *blk;

	mem = devm_kmalloc(&f->dev, 40, GFP_KERNEL);
	coh = dmam_alloc_coherent(&f->dev, SZ_4K, &h, GFP_KERNEL);
	pool = dmam_pool_create("p", &f->dev, 32, 32, 0);
	assert_non_null(mem);
	assert_non_null(coh);
	assert_non_null(pool);
	assert_int_equal(devm_add_action(&f->dev, note_action, (void *)3), 0);
	assert_int_equal(dmamap_devres_count(&f->dev), 4);

	devm_kfree(&f->dev, mem);
	dmam_free_coherent(&f->dev, SZ_4K, coh, h);
	dmam_pool_destroy(pool);
	order_n = 0;
	devm_release_action(&f->dev, note_action, (void *)3);
	assert_int_equal(order_n, 1);
	assert_int_equal(dmamap_devres_count(&f->dev), 0);
	assert_int_equal(f->c.reports, 0);

	/* what the device does not hold is reported and left alone */
	other = kmalloc(40, GFP_KERNEL);
	devm_kfree(&f->dev, other);
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_API_MISUSE], 1);
	kfree(other); /* still live: the plain free works */
	coh = dmam_alloc_coherent(&f->dev, SZ_4K, &h, GFP_KERNEL);
	assert_non_null(coh);
	dmam_free_coherent(&f->dev, SZ_8K, coh, h); /* wrong size: kept */
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_API_MISUSE], 2);
	assert_int_equal(dmamap_devres_count(&f->dev), 1);
	plain = dma_pool_create("plain", &f->dev, 32, 32, 0);
	dmam_pool_destroy(plain);
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_API_MISUSE], 3);
	dma_pool_destroy(plain);
	/* a managed pool given to dma_pool_destroy(): refused, the device still holds it */
	pool = dmam_pool_create("m", &f->dev, 32, 32, 0);
	assert_non_null(pool);
	dma_pool_destroy(pool);
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_API_MISUSE], 4);
	assert_non_null(strstr(f->c.rec_last.message, "dmam_pool_create"));
	assert_int_equal(dmamap_devres_count(&f->dev), 2);
	blk = dma_pool_alloc(pool, GFP_KERNEL, &bh);
	assert_non_null(blk);
	dma_pool_free(pool, blk, bh);
	dmam_pool_destroy(pool);
	assert_int_equal(dmamap_devres_count(&f->dev), 1);
	pool = dmam_pool_create("m", &f->dev, 32, 32, 0);
	assert_non_null(pool);
	dma_pool_destroy(pool); /* the release destroys it, once */
	/* a managed buffer given to dma_free_coherent(): refused, the device still holds it */
	blk = dmam_alloc_coherent(&f->dev, SZ_4K, &bh, GFP_KERNEL);
	assert_non_null(blk);
	assert_int_equal(dmamap_devres_count(&f->dev), 3);
	dma_free_coherent(&f->dev, SZ_4K, blk, bh);
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_API_MISUSE], 6);
	assert_non_null(strstr(f->c.rec_last.message, "dmam_alloc_coherent"));
	assert_int_equal(dmamap_devres_count(&f->dev), 3);
	memset(blk, 0x5c, SZ_4K);
	dmam_free_coherent(&f->dev, SZ_4K, blk, bh);
	assert_int_equal(dmamap_devres_count(&f->dev), 2);
	devm_remove_action(&f->dev, note_action, (void *)4);
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_API_MISUSE], 7);
	assert_int_equal(f->c.reports, 7);
	/* the wrongly freed buffer goes at release, silently */
}

/* devm_kmemdup() and devm_kstrdup(): copies on the device's machine, freed at release without a report. */
static void test_managed_copies_go_with_the_device(void **state)
{
	struct fx *f = *state;
	static const u8 fw[5] = { 1, 2, 3, 4, 5 };
	struct dmamap_kmalloc_stats ks;
	char *name, *label;
	u8 *copy;

	copy = devm_kmemdup(&f->dev, fw, sizeof(fw), GFP_KERNEL);
	assert_non_null(copy);
	assert_ptr_not_equal(copy, fw);
	assert_memory_equal(copy, fw, sizeof(fw));
	assert_ptr_equal(dmamap_machine_of(copy), f->m);
	name = devm_kstrdup(&f->dev, "lx-ring0", GFP_KERNEL);
	assert_non_null(name);
	assert_string_equal(name, "lx-ring0");
	assert_ptr_equal(dmamap_machine_of(name), f->m);
	label = devm_kstrdup(&f->dev, "tmp", GFP_KERNEL);
	assert_non_null(label);
	assert_null(devm_kstrdup(&f->dev, NULL, GFP_KERNEL));
	assert_ptr_equal(devm_kmemdup(&f->dev, fw, 0, GFP_KERNEL), ZERO_SIZE_PTR);
	assert_int_equal(dmamap_devres_count(&f->dev), 3);
	devm_kfree(&f->dev, label); /* managed memory like devm_kmalloc()'s */
	assert_int_equal(dmamap_devres_count(&f->dev), 2);
	dmamap_kmalloc_stats(f->m, &ks);
	assert_int_equal(ks.live_objects, 2);
	assert_int_equal(ks.live_bytes, sizeof(fw) + sizeof("lx-ring0")); /* the string with its NUL */
	assert_int_equal(f->c.reports, 0);

	dmamap_device_release(&f->dev);
	dmamap_kmalloc_stats(f->m, &ks);
	assert_int_equal(ks.live_objects, 0);
	assert_int_equal(f->c.reports, 0);

	/* a NULL source with a length is reported, not copied */
	assert_int_equal(dmamap_device_init(&f->dev, f->m, "lx"), 0);
	assert_null(devm_kmemdup(&f->dev, NULL, 4, GFP_KERNEL));
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_BAD_INPUT], 1);
	assert_int_equal(dmamap_devres_count(&f->dev), 0);
	f->c.reports = 0;
	f->c.by_kind[DMAMAP_REPORT_BAD_INPUT] = 0;
}

/* devm_kfree() of memory still mapped for DMA: refused, and the memory stays the device's, in its place. */
static void test_devm_kfree_of_mapped_memory_refused(void **state)
{
	struct fx *f = *state;
	struct dmamap_kmalloc_stats ks;
	u8 *first, *mem;
	dma_addr_t h;
	int line;

	first = devm_kzalloc(&f->dev, 32, GFP_KERNEL);
	mem = devm_kzalloc(&f->dev, 256, GFP_KERNEL);
	assert_non_null(first);
	assert_non_null(mem);
	fill_pattern(mem, 256, 9);
	h = dma_map_single(&f->dev, mem, 256, DMA_TO_DEVICE);
	assert_false(dma_mapping_error(&f->dev, h));
	devm_kfree(&f->dev, mem); line = __LINE__;
	assert_int_equal(f->c.reports, 1);
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_FREE_MAPPED], 1);
	assert_int_equal(f->c.last_line, line);
	assert_int_equal(dmamap_devres_count(&f->dev), 2);
	assert_int_equal(check_pattern(mem, 256, 9), 0);
	/* still managed: kfree() refuses it as the device's */
	dma_unmap_single(&f->dev, h, 256, DMA_TO_DEVICE);
	kfree(mem);
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_API_MISUSE], 1);
	assert_int_equal(check_pattern(mem, 256, 9), 0);
	/* unmapped, it goes */
	devm_kfree(&f->dev, mem);
	assert_int_equal(dmamap_devres_count(&f->dev), 1);
	assert_int_equal(f->c.reports, 2);
	/* the rest at release, in order, nothing more said */
	dmamap_device_release(&f->dev);
	dmamap_kmalloc_stats(f->m, &ks);
	assert_int_equal(ks.live_objects, 0);
	assert_int_equal(f->c.reports, 2);
	assert_int_equal(dmamap_device_init(&f->dev, f->m, "lx"), 0);
	f->c.reports = 0;
}

/* kfree() or krealloc() of managed memory: refused at once (the device frees it), not a double free at release. */
static void test_kfree_of_managed_memory_refused(void **state)
{
	struct fx *f = *state;
	struct dmamap_kmalloc_stats ks;
	u8 *mem, *copy;
	int la, lf;

	mem = devm_kzalloc(&f->dev, 100, GFP_KERNEL); la = __LINE__;
	assert_non_null(mem);
	mem[0] = 7;
	kfree(mem); lf = __LINE__;
	assert_int_equal(f->c.reports, 1);
	assert_int_equal(f->c.last_kind, DMAMAP_REPORT_API_MISUSE);
	assert_int_equal(f->c.last_line, lf);
	assert_non_null(strstr(f->c.last, "memory from devm_kmalloc() at "));
	assert_int_equal(mem[0], 7); /* still live, still the device's */
	assert_null(krealloc(mem, 4000, GFP_KERNEL));
	assert_int_equal(f->c.reports, 2);
	assert_int_equal(mem[0], 7);
	kfree_sensitive(mem);
	assert_int_equal(f->c.reports, 3);
	assert_int_equal(mem[0], 7);
	assert_int_equal(dmamap_devres_count(&f->dev), 1);
	dmamap_kmalloc_stats(f->m, &ks);
	assert_int_equal(ks.live_objects, 1);
	(void)la;

	/* devm_kfree() gives it back; a plain object in the same slot later is the caller's to kfree() */
	devm_kfree(&f->dev, mem);
	copy = kmalloc(100, GFP_KERNEL);
	assert_non_null(copy);
	kfree(copy);
	assert_int_equal(f->c.reports, 3);
	/* and what stays managed goes at release with nothing more said */
	mem = devm_kmalloc(&f->dev, 64, GFP_KERNEL);
	assert_non_null(mem);
	dmamap_device_release(&f->dev);
	dmamap_kmalloc_stats(f->m, &ks);
	assert_int_equal(ks.live_objects, 0);
	assert_int_equal(f->c.reports, 3);
	assert_int_equal(dmamap_device_init(&f->dev, f->m, "lx"), 0);
	f->c.reports = 0;
	f->c.by_kind[DMAMAP_REPORT_API_MISUSE] = 0;
}

/* kstrdup(), and the array forms of kmalloc and krealloc: NULL when the size overflows. */
static void test_strdup_and_array_sizes(void **state)
{
	struct fx *f = *state;
	struct dmamap_kmalloc_stats ks;
	char *s;
	u32 *a, *b;

	s = kstrdup("sdhci-0", GFP_KERNEL);
	assert_non_null(s);
	assert_string_equal(s, "sdhci-0");
	assert_ptr_equal(dmamap_machine_of(s), f->m);
	dmamap_kmalloc_stats(f->m, &ks);
	assert_int_equal(ks.live_bytes, sizeof("sdhci-0")); /* with its NUL */
	assert_null(kstrdup(NULL, GFP_KERNEL));
	kfree(s);

	assert_null(kmalloc_array(SIZE_MAX / 2, 3, GFP_KERNEL));
	assert_null(kcalloc(3, SIZE_MAX / 2, GFP_KERNEL));
	a = kcalloc(4, sizeof(*a), GFP_KERNEL);
	assert_non_null(a);
	assert_int_equal(a[3], 0);
	a[0] = 7;
	a[3] = 9;
	/* an overflowing krealloc_array() fails and leaves the array as it was */
	assert_null(krealloc_array(a, SIZE_MAX / 2, sizeof(*a), GFP_KERNEL));
	assert_true(a[0] == 7 && a[3] == 9);
	b = krealloc_array(a, 100, sizeof(*a), GFP_KERNEL);
	assert_non_null(b);
	assert_true(b[0] == 7 && b[3] == 9);
	assert_true(ksize(b) >= 100 * sizeof(*b));
	kfree(b);
	dmamap_kmalloc_stats(f->m, &ks);
	assert_int_equal(ks.live_objects, 0);
	assert_int_equal(f->c.reports, 0);
}

/* The live kmalloc objects an action saw when the device's release reached it. */
static unsigned long live_seen[4];

static void note_live(void *data)
{
	struct dmamap_kmalloc_stats ks;

	dmamap_kmalloc_stats(dmamap_machine_current(), &ks);
	live_seen[(intptr_t)data] = ks.live_objects;
}

/*
 * devm_krealloc(): the contents kept across growth and shrink, the memory
 * still the device's (kfree() refuses it) and released with it in the place
 * it was taken, with no report; NULL or ZERO_SIZE_PTR allocate, a size of 0
 * frees.
 */
static void test_devm_krealloc_keeps_contents_and_device(void **state)
{
	struct fx *f = *state;
	struct dmamap_kmalloc_stats ks;
	u8 *mem, *q, *z;
	size_t slot;

	live_seen[1] = live_seen[2] = 99;
	assert_int_equal(devm_add_action(&f->dev, note_live, (void *)1), 0);
	mem = devm_kmalloc(&f->dev, 20, GFP_KERNEL);
	assert_non_null(mem);
	assert_int_equal(devm_add_action(&f->dev, note_live, (void *)2), 0);
	fill_pattern(mem, 20, 11);
	slot = ksize(mem);
	assert_true(slot > 20 && slot < 1000);

	/* grows inside its slot: the same object; shrunk and grown again, the new bytes zeroed on request */
	q = devm_krealloc(&f->dev, mem, slot, GFP_KERNEL);
	assert_ptr_equal(q, mem);
	assert_int_equal(check_pattern(q, 20, 11), 0);
	memset(q + 20, 0xee, slot - 20);
	assert_ptr_equal(devm_krealloc(&f->dev, q, 20, GFP_KERNEL), mem);
	q = devm_krealloc(&f->dev, mem, slot, GFP_KERNEL | __GFP_ZERO);
	assert_ptr_equal(q, mem);
	assert_int_equal(check_pattern(q, 20, 11), 0);
	for (size_t i = 20; i < slot; i++)
		assert_int_equal(q[i], 0);
	/* beyond it: a new object with the contents, the old one freed */
	q = devm_krealloc(&f->dev, mem, 3000, GFP_KERNEL);
	assert_non_null(q);
	assert_ptr_not_equal(q, mem);
	assert_ptr_equal(dmamap_machine_of(q), f->m);
	assert_int_equal(check_pattern(q, 20, 11), 0);
	for (size_t i = 20; i < slot; i++)
		assert_int_equal(q[i], 0);
	dmamap_kmalloc_stats(f->m, &ks);
	assert_int_equal(ks.live_objects, 1);
	assert_int_equal(ks.live_bytes, 3000);
	assert_int_equal(dmamap_devres_count(&f->dev), 3);
	/* still the device's: a plain kfree() is refused */
	kfree(q);
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_API_MISUSE], 1);
	assert_int_equal(check_pattern(q, 20, 11), 0);
	/* shrinks in place, keeping what fits */
	mem = devm_krealloc(&f->dev, q, 10, GFP_KERNEL);
	assert_ptr_equal(mem, q);
	assert_int_equal(check_pattern(mem, 10, 11), 0);
	dmamap_kmalloc_stats(f->m, &ks);
	assert_int_equal(ks.live_bytes, 10);

	/* from NULL or ZERO_SIZE_PTR: a devm_kmalloc(); to 0: a devm_kfree() */
	z = devm_krealloc(&f->dev, NULL, 16, GFP_KERNEL);
	assert_non_null(z);
	assert_int_equal(dmamap_devres_count(&f->dev), 4);
	assert_ptr_equal(devm_krealloc(&f->dev, z, 0, GFP_KERNEL), ZERO_SIZE_PTR);
	assert_int_equal(dmamap_devres_count(&f->dev), 3);
	z = devm_krealloc(&f->dev, ZERO_SIZE_PTR, 8, GFP_KERNEL);
	assert_non_null(z);
	assert_ptr_not_equal(z, ZERO_SIZE_PTR);
	assert_int_equal(dmamap_devres_count(&f->dev), 4);
	assert_ptr_equal(devm_krealloc(&f->dev, NULL, 0, GFP_KERNEL), ZERO_SIZE_PTR);
	assert_int_equal(dmamap_devres_count(&f->dev), 4);
	assert_int_equal(f->c.reports, 1);

	/* the release frees it all, newest first: the resized memory went where it was taken */
	dmamap_device_release(&f->dev);
	assert_int_equal(live_seen[2], 1); /* taken after the memory (before z): ran while it was live */
	assert_int_equal(live_seen[1], 0); /* taken before it: ran after it went */
	dmamap_kmalloc_stats(f->m, &ks);
	assert_int_equal(ks.live_objects, 0);
	assert_int_equal(f->c.reports, 1);
	assert_int_equal(dmamap_device_init(&f->dev, f->m, "lx"), 0);
}

/*
 * devm_krealloc() of what the device does not hold, of memory still mapped
 * for DMA, and when no memory can be had: NULL, and nothing changed (the
 * bytes, the object, whose it is); the overflowing array form allocates
 * nothing and says nothing.
 */
static void test_devm_krealloc_refusals_change_nothing(void **state)
{
	struct fx *f = *state;
	struct dmamap_kmalloc_stats ks, before;
	u8 *plain, *other, *mem, *q;
	struct capture pc;
	dma_addr_t h;
	int line;

	assert_int_equal(dmamap_device_init(&f->dev2, f->m, "lx2"), 0);
	plain = kmalloc(40, GFP_KERNEL);
	other = devm_kmalloc(&f->dev2, 40, GFP_KERNEL);
	mem = devm_kmalloc(&f->dev, 64, GFP_KERNEL);
	assert_non_null(plain);
	assert_non_null(other);
	assert_non_null(mem);
	fill_pattern(plain, 40, 1);
	fill_pattern(other, 40, 2);
	fill_pattern(mem, 64, 3);
	dmamap_kmalloc_stats(f->m, &before);

	/* plain kmalloc memory, another device's, either resized or freed: refused at the caller's line */
	assert_null(devm_krealloc(&f->dev, plain, 4000, GFP_KERNEL)); line = __LINE__;
	assert_int_equal(f->c.last_kind, DMAMAP_REPORT_API_MISUSE);
	assert_int_equal(f->c.last_line, line);
	assert_non_null(strstr(f->c.last, "devm_krealloc("));
	assert_non_null(strstr(f->c.last, "not memory this device holds from devm_kmalloc"));
	assert_null(devm_krealloc(&f->dev, other, 4000, GFP_KERNEL));
	assert_null(devm_krealloc(&f->dev, other, 0, GFP_KERNEL));
	assert_null(devm_krealloc(&f->dev, plain, 8, GFP_KERNEL));
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_API_MISUSE], 4);
	assert_int_equal(check_pattern(plain, 40, 1), 0);
	assert_int_equal(check_pattern(other, 40, 2), 0);
	assert_int_equal(dmamap_devres_count(&f->dev2), 1);
	dmamap_kmalloc_stats(f->m, &ks);
	assert_int_equal(ks.live_objects, before.live_objects);
	assert_int_equal(ks.live_bytes, before.live_bytes);
	assert_int_equal(ks.allocations, before.allocations);
	kfree(plain); /* still the caller's plain memory */
	assert_int_equal(f->c.reports, 4);

	/* an array size that overflows: NULL, unreported, nothing allocated, the memory as it was */
	assert_null(devm_krealloc_array(&f->dev, mem, SIZE_MAX / 2, 3, GFP_KERNEL));
	dmamap_kmalloc_stats(f->m, &ks);
	assert_int_equal(ks.allocations, before.allocations);
	assert_int_equal(check_pattern(mem, 64, 3), 0);
	assert_int_equal(f->c.reports, 4);

	/* no memory to be had: NULL, the memory as it was and still the device's */
	assert_int_equal(dmamap_fault_inject(f->m, DMAMAP_FAULT_KMALLOC, 1, 0), 0);
	assert_null(devm_krealloc(&f->dev, mem, 5000, GFP_KERNEL));
	assert_int_equal(dmamap_fault_inject(f->m, DMAMAP_FAULT_KMALLOC, 0, 0), 0);
	assert_int_equal(check_pattern(mem, 64, 3), 0);
	assert_int_equal(ksize(mem), 64);
	assert_int_equal(dmamap_devres_count(&f->dev), 1);
	assert_int_equal(f->c.reports, 4);

	/* still mapped for DMA: the old object cannot go, so nothing is taken */
	h = dma_map_single(&f->dev, mem, 64, DMA_TO_DEVICE);
	assert_false(dma_mapping_error(&f->dev, h));
	assert_null(devm_krealloc(&f->dev, mem, 5000, GFP_KERNEL)); line = __LINE__;
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_FREE_MAPPED], 1);
	assert_int_equal(f->c.last_line, line);
	dmamap_kmalloc_stats(f->m, &ks);
	assert_int_equal(ks.live_objects, before.live_objects - 1); /* less the plain one freed above */
	dma_unmap_single(&f->dev, h, 64, DMA_TO_DEVICE);
	assert_int_equal(check_pattern(mem, 64, 3), 0);

	/* unmapped, the same call works: the array form to 100 u32s */
	q = devm_krealloc_array(&f->dev, mem, 100, sizeof(u32), GFP_KERNEL);
	assert_non_null(q);
	assert_int_equal(check_pattern(q, 64, 3), 0);
	assert_int_equal(dmamap_devres_count(&f->dev), 1);

	/* freed already, or no device: refused */
	devm_kfree(&f->dev, q);
	assert_int_equal(dmamap_devres_count(&f->dev), 0);
	assert_null(devm_krealloc(&f->dev, q, 64, GFP_KERNEL));
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_API_MISUSE], 5);
	capture_start(&pc, NULL);
	assert_null(devm_krealloc(NULL, other, 64, GFP_KERNEL));
	capture_stop(NULL);
	assert_int_equal(pc.by_kind[DMAMAP_REPORT_BAD_INPUT], 1); /* no device: process-wide */
	assert_int_equal(check_pattern(other, 40, 2), 0);
	/* the other device's memory goes with it, unreported */
	dmamap_device_release(&f->dev2);
	dmamap_kmalloc_stats(f->m, &ks);
	assert_int_equal(ks.live_objects, 0);
	assert_int_equal(f->c.reports, 6);
}

/* kmemdup_array() and devm_kmemdup_array(): copies of n objects; NULL, with nothing allocated, on overflow. */
static void test_kmemdup_arrays(void **state)
{
	struct fx *f = *state;
	static const u32 tbl[5] = { 10, 20, 30, 40, 50 };
	struct dmamap_kmalloc_stats ks, before;
	u32 *a, *d;

	a = kmemdup_array(tbl, ARRAY_SIZE(tbl), sizeof(tbl[0]), GFP_KERNEL);
	assert_non_null(a);
	assert_ptr_equal(dmamap_machine_of(a), f->m);
	assert_memory_equal(a, tbl, sizeof(tbl));
	assert_int_equal(ksize(a) >= sizeof(tbl), 1);
	d = devm_kmemdup_array(&f->dev, tbl, 3, sizeof(tbl[0]), GFP_KERNEL);
	assert_non_null(d);
	assert_memory_equal(d, tbl, 3 * sizeof(tbl[0]));
	assert_int_equal(dmamap_devres_count(&f->dev), 1);
	dmamap_kmalloc_stats(f->m, &before);
	assert_int_equal(before.live_bytes, sizeof(tbl) + 3 * sizeof(tbl[0]));

	assert_null(kmemdup_array(tbl, SIZE_MAX / 2, 3, GFP_KERNEL));
	assert_null(devm_kmemdup_array(&f->dev, tbl, 3, SIZE_MAX / 2, GFP_KERNEL));
	dmamap_kmalloc_stats(f->m, &ks);
	assert_int_equal(ks.allocations, before.allocations);
	assert_int_equal(ks.failures, before.failures);
	assert_int_equal(dmamap_devres_count(&f->dev), 1);
	assert_int_equal(f->c.reports, 0);
	kfree(a);

	/* the managed copy goes with the device, unreported */
	dmamap_device_release(&f->dev);
	dmamap_kmalloc_stats(f->m, &ks);
	assert_int_equal(ks.live_objects, 0);
	assert_int_equal(f->c.reports, 0);
	assert_int_equal(dmamap_device_init(&f->dev, f->m, "lx"), 0);
}

/*
 * Options as a driver's test sets them: built in, a module, set to 0, set
 * to nothing, and one left undefined (CONFIG_LXTEST_NONE).
 */
#define CONFIG_LXTEST_Y 1
#define CONFIG_LXTEST_M_MODULE 1
#define CONFIG_LXTEST_ZERO 0
#define CONFIG_LXTEST_EMPTY
#define CONFIG_LXTEST_TWO 2

/* What the preprocessor says of each, as driver code branches on it. */
#if IS_ENABLED(CONFIG_LXTEST_Y) && IS_BUILTIN(CONFIG_LXTEST_Y) && !IS_MODULE(CONFIG_LXTEST_Y)
#define LXTEST_PP_Y 1
#else
#define LXTEST_PP_Y 0
#endif
#if IS_ENABLED(CONFIG_LXTEST_M) && !IS_BUILTIN(CONFIG_LXTEST_M) && IS_MODULE(CONFIG_LXTEST_M)
#define LXTEST_PP_M 1
#else
#define LXTEST_PP_M 0
#endif
#if IS_ENABLED(CONFIG_LXTEST_NONE) || IS_ENABLED(CONFIG_LXTEST_ZERO) || IS_ENABLED(CONFIG_LXTEST_EMPTY) || \
	IS_ENABLED(CONFIG_LXTEST_TWO) || IS_MODULE(CONFIG_LXTEST_NONE) || IS_REACHABLE(CONFIG_LXTEST_NONE)
#define LXTEST_PP_OFF 1
#else
#define LXTEST_PP_OFF 0
#endif
/* A module reaches a module's symbols; built-in code does not. */
static const int lxtest_reach_m_builtin = IS_REACHABLE(CONFIG_LXTEST_M);
static const int lxtest_reach_y_builtin = IS_REACHABLE(CONFIG_LXTEST_Y);
#define MODULE 1
static const int lxtest_reach_m_module = IS_REACHABLE(CONFIG_LXTEST_M);
static const int lxtest_reach_y_module = IS_REACHABLE(CONFIG_LXTEST_Y);
#undef MODULE
/* constant expressions, as BUILD_BUG_ON() and array sizes need */
static_assert(IS_ENABLED(CONFIG_LXTEST_Y) + IS_ENABLED(CONFIG_LXTEST_M) == 2, "two options on");

/* IS_ENABLED() and its siblings: 1 only for an option defined to 1 (or its _MODULE to 1). */
static void test_kconfig_options(void **state)
{
	char sized[IS_ENABLED(CONFIG_LXTEST_M) + IS_BUILTIN(CONFIG_LXTEST_M) * 4]; /* no VLA (-Wvla) */
	int seen = 0;

	(void)state;
	assert_int_equal(LXTEST_PP_Y, 1);
	assert_int_equal(LXTEST_PP_M, 1);
	assert_int_equal(LXTEST_PP_OFF, 0);
	/* in expressions, as `if (IS_ENABLED(CONFIG_...))` reads: the int 1 or 0 */
	assert_int_equal(IS_ENABLED(CONFIG_LXTEST_Y), 1);
	assert_int_equal(IS_BUILTIN(CONFIG_LXTEST_Y), 1);
	assert_int_equal(IS_MODULE(CONFIG_LXTEST_Y), 0);
	assert_int_equal(IS_ENABLED(CONFIG_LXTEST_M), 1);
	assert_int_equal(IS_BUILTIN(CONFIG_LXTEST_M), 0);
	assert_int_equal(IS_MODULE(CONFIG_LXTEST_M), 1);
	assert_int_equal(IS_ENABLED(CONFIG_LXTEST_NONE), 0);
	assert_int_equal(IS_ENABLED(CONFIG_LXTEST_ZERO), 0);
	assert_int_equal(IS_ENABLED(CONFIG_LXTEST_EMPTY), 0);
	assert_int_equal(IS_ENABLED(CONFIG_LXTEST_TWO), 0);
	assert_int_equal(IS_BUILTIN(CONFIG_LXTEST_NONE) + IS_MODULE(CONFIG_LXTEST_NONE), 0);
	assert_int_equal(sizeof(sized), 1);
	if (IS_ENABLED(CONFIG_LXTEST_Y))
		seen++;
	if (IS_ENABLED(CONFIG_LXTEST_NONE))
		seen += 10;
	assert_int_equal(seen, 1);
	/* IS_REACHABLE(): built in always; a module only from a module */
	assert_int_equal(lxtest_reach_y_builtin, 1);
	assert_int_equal(lxtest_reach_y_module, 1);
	assert_int_equal(lxtest_reach_m_builtin, 0);
	assert_int_equal(lxtest_reach_m_module, 1);
	assert_int_equal(IS_REACHABLE(CONFIG_LXTEST_M), 0);
}

/* kmemdup_nul(): the first len bytes and a NUL, on the current machine; NULL for NULL or no memory. */
static void test_kmemdup_nul(void **state)
{
	struct fx *f = *state;
	static const char label[] = {'r', 'x', '-', '0', '1', 'z', 'z'}; /* no NUL of its own */
	static const char inner[] = {'a', '\0', 'b', 'c'};
	struct dmamap_kmalloc_stats ks;
	char *s, *dirty[128];

	/* slots that held other bytes before, past the quarantine: the NUL must be stored */
	for (unsigned i = 0; i < ARRAY_SIZE(dirty); i++) {
		dirty[i] = kmalloc(6, GFP_KERNEL);
		assert_non_null(dirty[i]);
		memset(dirty[i], 'x', 6);
	}
	for (unsigned i = 0; i < ARRAY_SIZE(dirty); i++)
		kfree(dirty[i]);
	s = kmemdup_nul(label, 5, GFP_KERNEL);
	assert_non_null(s);
	assert_string_equal(s, "rx-01");
	assert_ptr_equal(dmamap_machine_of(s), f->m);
	dmamap_kmalloc_stats(f->m, &ks);
	assert_int_equal(ks.live_bytes, 6); /* the bytes and the NUL, no more */
	kfree(s);
	/* nothing of the source read past len; a NUL inside is copied like any byte */
	s = kmemdup_nul(inner, sizeof(inner), GFP_KERNEL);
	assert_non_null(s);
	assert_memory_equal(s, "a\0bc", 5);
	kfree(s);
	s = kmemdup_nul(label, 0, GFP_KERNEL);
	assert_non_null(s);
	assert_int_equal(s[0], '\0');
	kfree(s);
	assert_null(kmemdup_nul(NULL, 3, GFP_KERNEL));
	assert_null(kmemdup_nul(label, SIZE_MAX, GFP_KERNEL));
	assert_int_equal(dmamap_fault_inject(f->m, DMAMAP_FAULT_KMALLOC, 1, 0), 0);
	assert_null(kmemdup_nul(label, 3, GFP_KERNEL));
	assert_int_equal(dmamap_fault_inject(f->m, DMAMAP_FAULT_KMALLOC, 0, 0), 0);
	dmamap_kmalloc_stats(f->m, &ks);
	assert_int_equal(ks.live_objects, 0);
	assert_int_equal(f->c.reports, 0);
}

/* strscpy(): the copy always terminated, -E2BIG from the exact fit of the NUL on. */
static void test_strscpy_bounds(void **state)
{
	char b[8];

	(void)state;
	memset(b, 'x', sizeof(b));
	assert_int_equal(strscpy(b, "ring", sizeof(b)), 4);
	assert_string_equal(b, "ring");
	assert_int_equal(b[5], 'x'); /* nothing written past the NUL */
	assert_int_equal(strscpy(b, "ring-01", sizeof(b)), 7); /* the last byte takes the NUL */
	assert_string_equal(b, "ring-01");
	assert_int_equal(strscpy(b, "ring-012", sizeof(b)), -E2BIG);
	assert_string_equal(b, "ring-01"); /* truncated, terminated */
	memset(b, 'x', sizeof(b));
	assert_int_equal(strscpy(b, "ab", 1), -E2BIG);
	assert_int_equal(b[0], '\0');
	assert_int_equal(b[1], 'x');
	assert_int_equal(strscpy(b, "ab", 0), -E2BIG);
	assert_int_equal(b[0], '\0');
	assert_int_equal(b[1], 'x');
}

/* A descriptor word as drivers lay it out with GENMASK(): fields from bit 0 to the top bit. */
#define TDESC_LEN GENMASK(15, 0)
#define TDESC_BURST GENMASK(19, 16)
#define TDESC_OWN BIT(31)
#define TDESC_ADDR_HI GENMASK_ULL(63, 56)
static const u32 tdesc_template = FIELD_PREP_CONST(TDESC_BURST, 8) | FIELD_PREP_CONST(TDESC_OWN, 1);

/* FIELD_PREP() and its siblings: values at the field's edges, the mask's top bit, the bits cut off. */
static void test_bitfield(void **state)
{
	unsigned int i = 0, vals[2] = { 0x1f, 3 };
	u32 reg;
	__le32 le;
	__be32 be;
	u16 h;

	(void)state;
	assert_int_equal(FIELD_PREP(TDESC_LEN, 0xffff), 0xffff);
	assert_int_equal(FIELD_PREP(TDESC_BURST, 0xf), 0xf0000);
	assert_int_equal(FIELD_PREP(TDESC_OWN, 1), 0x80000000u); /* the mask's top bit */
	assert_true(FIELD_PREP(TDESC_ADDR_HI, 0xab) == 0xab00000000000000ULL);
	assert_true(FIELD_PREP(GENMASK_ULL(63, 0), ~0ULL) == ~0ULL);
	_Static_assert(_Generic(FIELD_PREP(TDESC_BURST, 1), unsigned long: 1, default: 0), "the mask's type");
	/* a variable value too large is cut to the field; evaluated once */
	assert_int_equal(FIELD_PREP(TDESC_BURST, vals[i++]), 0xf0000);
	assert_int_equal(i, 1);
	assert_int_equal(FIELD_PREP(TDESC_OWN, vals[0] + 1), 0); /* 0x20: bit 0 clear */

	reg = 0x8005a123;
	assert_int_equal(FIELD_GET(TDESC_LEN, reg), 0xa123);
	assert_int_equal(FIELD_GET(TDESC_BURST, reg), 5);
	assert_int_equal(FIELD_GET(TDESC_OWN, reg), 1);
	assert_true(FIELD_GET(TDESC_ADDR_HI, 0xcd12345678abcdefULL) == 0xcd);
	i = 0;
	assert_int_equal(FIELD_GET(TDESC_BURST, (u32)vals[i++] << 16), 0xf); /* bit 20 is not the field's */
	assert_int_equal(i, 1);

	assert_int_equal(FIELD_MAX(TDESC_LEN), 0xffff);
	assert_int_equal(FIELD_MAX(TDESC_BURST), 15);
	assert_int_equal(FIELD_MAX(TDESC_OWN), 1);
	assert_true(FIELD_MAX(GENMASK_ULL(63, 0)) == ~0ULL);
	assert_true(FIELD_FIT(TDESC_BURST, 15));
	assert_false(FIELD_FIT(TDESC_BURST, 16));
	assert_true(FIELD_FIT(TDESC_LEN, 0));
	assert_false(FIELD_FIT(TDESC_OWN, 2));
	assert_false(FIELD_FIT(TDESC_LEN, vals[0] << 12));

	/* FIELD_PREP_CONST(): a constant, in an initializer and a case label */
	assert_int_equal(tdesc_template, 0x80080000u);
	switch (reg & TDESC_OWN) {
	case FIELD_PREP_CONST(TDESC_OWN, 1):
		break;
	default:
		fail();
	}

	/* the typed functions: cut to the field, in their byte order */
	assert_int_equal(u32_encode_bits(0x1f, 0xf0), 0xf0);
	assert_int_equal(u32_encode_bits(1, 0x80000000u), 0x80000000u);
	assert_int_equal(u32_get_bits(0x8005a123, 0xf0000), 5);
	assert_int_equal(u32_replace_bits(0xffffffff, 0, 0xf0), 0xffffff0f);
	assert_true(u64_encode_bits(0xab, GENMASK_ULL(63, 56)) == 0xab00000000000000ULL);
	assert_int_equal(u8_get_bits(0xa5, 0xf0), 0xa);
	h = 0xffff;
	u16p_replace_bits(&h, 0x12, 0xff00);
	assert_int_equal(h, 0x12ff);
	le = le32_encode_bits(0x1234, GENMASK(23, 8));
	assert_memory_equal(&le, "\x00\x34\x12\x00", 4);
	assert_int_equal(le32_get_bits(le, GENMASK(23, 8)), 0x1234);
	le32p_replace_bits(&le, 0xff, GENMASK(7, 0));
	assert_memory_equal(&le, "\xff\x34\x12\x00", 4);
	be = be32_encode_bits(0x1234, GENMASK(15, 0));
	assert_memory_equal(&be, "\x00\x00\x12\x34", 4);
	assert_int_equal(be32_get_bits(be, GENMASK(15, 8)), 0x12);
	assert_int_equal(u32_encode_bits(7, 0), 0);
}

static char *fmt_va(const char *fmt, ...) DMAMAP_PRINTF(1, 2);

/* kvasprintf() through a driver's own varargs function */
static char *fmt_va(const char *fmt, ...)
{
	va_list ap;
	char *p;

	va_start(ap, fmt);
	p = kvasprintf(GFP_KERNEL, fmt, ap);
	va_end(ap);
	return p;
}

/* kasprintf() and devm_kasprintf(): kmalloc strings in the printk formats, the managed one released with the device. */
static void test_kasprintf(void **state)
{
	struct fx *f = *state;
	struct dmamap_kmalloc_stats ks;
	dma_addr_t h = 0x12345678;
	char *s, *name, *v;

	s = kasprintf(GFP_KERNEL, "%s-ring%d@%pad %pe", dev_name(&f->dev), 3, &h, ERR_PTR(-ENOMEM));
	assert_non_null(s);
	assert_string_equal(s, "lx-ring3@0x0000000012345678 -ENOMEM");
	assert_ptr_equal(dmamap_machine_of(s), f->m);
	dmamap_kmalloc_stats(f->m, &ks);
	assert_int_equal(ks.live_bytes, strlen(s) + 1); /* the string and its NUL, no more */
	kfree(s);
	s = kasprintf(GFP_KERNEL, "%s", "");
	assert_non_null(s);
	assert_int_equal(s[0], '\0');
	kfree(s);
	v = fmt_va("%u:%02x", 7u, 10u);
	assert_string_equal(v, "7:0a");
	kfree(v);

	name = devm_kasprintf(&f->dev, GFP_KERNEL, "%s-tx%u", dev_name(&f->dev), 1u);
	assert_string_equal(name, "lx-tx1");
	assert_int_equal(dmamap_devres_count(&f->dev), 1);
	dmamap_device_release(&f->dev);
	dmamap_kmalloc_stats(f->m, &ks);
	assert_int_equal(ks.live_objects, 0);
	assert_int_equal(f->c.reports, 0);
	assert_int_equal(dmamap_device_init(&f->dev, f->m, "lx"), 0);

	/* out of memory: NULL, nothing left */
	assert_int_equal(dmamap_fault_inject(f->m, DMAMAP_FAULT_KMALLOC, 1, 0), 0);
	assert_null(kasprintf(GFP_KERNEL, "x%d", 1));
	assert_int_equal(dmamap_fault_inject(f->m, DMAMAP_FAULT_KMALLOC, 0, 0), 0);
}

static int status_va(char *buf, size_t size, const char *fmt, ...) DMAMAP_PRINTF(3, 4);

/* vscnprintf() through a driver's own varargs function */
static int status_va(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vscnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n;
}

/* scnprintf() and vscnprintf(): the bytes written, never the would-be length; 0 for no room at all. */
static void test_scnprintf_counts_what_it_wrote(void **state)
{
	struct fx *f = *state;
	dma_addr_t h = 0x12345678;
	const char *volatile no_fmt = NULL;
	int (*fmt_fn)(char *, size_t, const char *, ...) = scnprintf; /* a pointer: no format check at the call */
	char buf[32];
	size_t pos;
	int n;

	assert_int_equal(scnprintf(buf, sizeof(buf), "%s-%d", "ring", 12), 7);
	assert_string_equal(buf, "ring-12");
	/* the printk formats */
	assert_int_equal(scnprintf(buf, sizeof(buf), "at %pad %pe", &h, ERR_PTR(-EIO)), 26);
	assert_string_equal(buf, "at 0x0000000012345678 -EIO");
	/* cut: what fits, terminated, and its length (snprintf would say 10) */
	memset(buf, 'x', sizeof(buf));
	assert_int_equal(scnprintf(buf, 8, "abcdefghij"), 7);
	assert_string_equal(buf, "abcdefg");
	assert_int_equal(buf[8], 'x');
	assert_int_equal(status_va(buf, 5, "%u:%02x", 7u, 10u), 4);
	assert_string_equal(buf, "7:0a");
	assert_int_equal(status_va(buf, 4, "%u:%02x", 7u, 10u), 3);
	assert_string_equal(buf, "7:0");
	/* one byte: only the NUL; none: nothing written, 0 */
	assert_int_equal(scnprintf(buf, 1, "abc"), 0);
	assert_int_equal(buf[0], '\0');
	assert_int_equal(buf[1], ':'); /* left from before */
	memset(buf, 'x', sizeof(buf));
	assert_int_equal(scnprintf(buf, 0, "abc"), 0);
	assert_int_equal(buf[0], 'x');
	assert_int_equal(scnprintf(NULL, 0, "abc"), 0);

	/* the appending idiom stops at the end instead of running past it */
	memset(buf, 'x', sizeof(buf));
	pos = 0;
	for (int i = 0; i < 10; i++)
		pos += (size_t)scnprintf(buf + pos, sizeof(buf) - pos, "q%d=%04x ", i, i * 3u);
	assert_int_equal(pos, sizeof(buf) - 1);
	assert_int_equal(strlen(buf), sizeof(buf) - 1);
	assert_memory_equal(buf, "q0=0000 q1=0003 q2=0006 q3=0009", 31);
	assert_int_equal(f->c.reports, 0);

	/* no format: reported, an empty string */
	n = fmt_fn(buf, sizeof(buf), no_fmt);
	assert_int_equal(n, 0);
	assert_int_equal(buf[0], '\0');
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_BAD_INPUT], 1);
}

/* Every allocation a managed call makes can fail: NULL or -ENOMEM, and nothing left behind. */
static void test_managed_calls_unwind_on_failure(void **state)
{
	struct fx *f = *state;
	static const enum dmamap_fault_site sites[] = { DMAMAP_FAULT_HOST_ALLOC, DMAMAP_FAULT_KMALLOC,
							 DMAMAP_FAULT_PAGE_ALLOC, DMAMAP_FAULT_REMAP };

	for (size_t s = 0; s < ARRAY_SIZE(sites); s++) {
		for (unsigned nth = 1; nth < 8; nth++) {
			dma_addr_t h;
			u8 *mem, *grown, *fresh;
			void *coh;
			struct dma_pool *pool;

			assert_int_equal(dmamap_fault_inject(f->m, sites[s], nth, 0), 0);
			mem = devm_kzalloc(&f->dev, 64, GFP_KERNEL);
			if (mem)
				mem[63] = 0x3c;
			/* a resize that fails leaves the memory as it was, still the device's */
			grown = mem ? devm_krealloc(&f->dev, mem, 3000, GFP_KERNEL) : NULL;
			fresh = devm_krealloc(&f->dev, NULL, 64, GFP_KERNEL);
			coh = dmam_alloc_coherent(&f->dev, SZ_4K, &h, GFP_KERNEL);
			pool = dmam_pool_create("f", &f->dev, 32, 32, 0);
			assert_int_equal(dmamap_fault_inject(f->m, sites[s], 0, 0), 0);
			assert_int_equal(dmamap_devres_count(&f->dev),
					 (mem != NULL) + (fresh != NULL) + (coh != NULL) + (pool != NULL));
			if (mem)
				assert_int_equal((grown ? grown : mem)[63], 0x3c);
			if (!coh)
				assert_int_equal(h, DMA_MAPPING_ERROR);
			dmamap_device_release(&f->dev);
			assert_int_equal(dmamap_device_init(&f->dev, f->m, "lx"), 0);
			assert_int_equal(live_mappings(f->m), 0);
		}
	}
	order_n = 0;
	assert_int_equal(dmamap_fault_inject(f->m, DMAMAP_FAULT_HOST_ALLOC, 1, 0), 0);
	assert_int_equal(devm_add_action_or_reset(&f->dev, note_action, (void *)5), -ENOMEM);
	assert_int_equal(order_n, 1); /* called at once */
	assert_int_equal(dmamap_fault_inject(f->m, DMAMAP_FAULT_HOST_ALLOC, 1, 0), 0);
	assert_int_equal(devm_add_action(&f->dev, note_action, (void *)6), -ENOMEM);
	assert_int_equal(order_n, 1);
	assert_int_equal(dmamap_devres_count(&f->dev), 0);
	assert_int_equal(f->c.reports, 0);
}

static void test_managed_calls_refuse_bad_devices(void **state)
{
	struct fx *f = *state;
	struct device fresh = { 0 };
	dma_addr_t h = 0;

	assert_null(devm_kzalloc(NULL, 8, GFP_KERNEL));
	assert_null(devm_kzalloc(&fresh, 8, GFP_KERNEL));
	assert_null(dmam_alloc_coherent(&fresh, SZ_4K, &h, GFP_KERNEL));
	assert_int_equal(h, DMA_MAPPING_ERROR);
	assert_null(dmam_pool_create("x", &fresh, 32, 32, 0));
	assert_int_equal(devm_add_action(&fresh, note_action, NULL), -EINVAL);
	assert_int_equal(devm_add_action(&f->dev, NULL, NULL), -EINVAL);
	/* the uninitialised device's reports go process-wide; the NULL action is the device's */
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_BAD_INPUT], 1);
	assert_int_equal(test_free_pages(f->m), f->base_free);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_attr_bits_are_the_kernels),
		cmocka_unit_test_setup_teardown(test_alloc_attrs_reach_the_ops, setup, teardown),
		cmocka_unit_test_setup_teardown(test_free_with_other_attrs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_free_of_null_is_silent, setup, teardown),
		cmocka_unit_test_setup_teardown(test_skip_cpu_sync_attr, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unknown_attr_bits_are_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reports_name_the_callers_line, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mapping_error_is_an_errno, setup, teardown),
		cmocka_unit_test_setup_teardown(test_map_sgtable, setup, teardown),
		cmocka_unit_test_setup_teardown(test_map_sgtable_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_map_sgtable_out_of_iova_space, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sg_nents_for_len, setup, teardown),
		cmocka_unit_test_setup_teardown(test_alloc_noncoherent_needs_syncs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_map_resource, setup, teardown),
		cmocka_unit_test_setup_teardown(test_coerce_mask_and_helpers, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dma_queries_of_6x, setup, teardown),
		cmocka_unit_test_setup_teardown(test_addressing_limited, setup, teardown),
		cmocka_unit_test_setup_teardown(test_kernel_basics, setup, teardown),
		cmocka_unit_test(test_align_math_overflow),
		cmocka_unit_test(test_register_accessors),
		cmocka_unit_test(test_unaligned_and_byteorder),
		cmocka_unit_test(test_rounding_and_ranges),
		cmocka_unit_test(test_bitops_and_bitmaps),
		cmocka_unit_test(test_pow2_and_page_names),
		cmocka_unit_test(test_minmax_evaluate_once),
		cmocka_unit_test_setup_teardown(test_warn_logs_where_it_fired, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dev_warn_and_vdbg, setup, teardown),
		cmocka_unit_test_setup_teardown(test_kernel_names, setup, teardown),
		cmocka_unit_test_setup_teardown(test_printk_levels, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dev_printk_family, setup, teardown),
		cmocka_unit_test_setup_teardown(test_required_mask, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bug_on_aborts, setup, teardown),
		cmocka_unit_test_setup_teardown(test_kvmalloc_and_size_roundup, setup, teardown),
		cmocka_unit_test_setup_teardown(test_size_roundup_on_a_packed_machine, setup, teardown),
		cmocka_unit_test_setup_teardown(test_highmem_mappings, setup, teardown),
		cmocka_unit_test_setup_teardown(test_iommu_helpers, setup, teardown),
		cmocka_unit_test_setup_teardown(test_managed_resources_go_with_the_device, setup, teardown),
		cmocka_unit_test_setup_teardown(test_managed_resources_released_by_hand, setup, teardown),
		cmocka_unit_test_setup_teardown(test_managed_copies_go_with_the_device, setup, teardown),
		cmocka_unit_test_setup_teardown(test_strdup_and_array_sizes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_kfree_of_managed_memory_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_devm_kfree_of_mapped_memory_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_devm_krealloc_keeps_contents_and_device, setup, teardown),
		cmocka_unit_test_setup_teardown(test_devm_krealloc_refusals_change_nothing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_kmemdup_arrays, setup, teardown),
		cmocka_unit_test(test_strscpy_bounds),
		cmocka_unit_test_setup_teardown(test_kasprintf, setup, teardown),
		cmocka_unit_test_setup_teardown(test_scnprintf_counts_what_it_wrote, setup, teardown),
		cmocka_unit_test_setup_teardown(test_kmemdup_nul, setup, teardown),
		cmocka_unit_test(test_kconfig_options),
		cmocka_unit_test_setup_teardown(test_alloc_pages_cpu_owned, setup, teardown),
		cmocka_unit_test_setup_teardown(test_alloc_pages_checked, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refused_frees_name_the_call, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refused_frees_name_the_call_checker_off, setup, teardown),
		cmocka_unit_test_setup_teardown(test_alloc_pages_refused_and_failing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_alloc_pages_behind_iommu, setup, teardown),
		cmocka_unit_test_setup_teardown(test_alloc_pages_not_from_declared_memory, setup, teardown),
		cmocka_unit_test_setup_teardown(test_alloc_noncontiguous_syncs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_alloc_noncontiguous_behind_iommu, setup, teardown),
		cmocka_unit_test_setup_teardown(test_noncontiguous_misuse, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mmap_pages_and_noncontiguous, setup, teardown),
		cmocka_unit_test_setup_teardown(test_alloc_noncontiguous_refused_and_failing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_noncontiguous_left_is_a_leak, setup, teardown),
		cmocka_unit_test_setup_teardown(test_iova_try_alloc_needs_the_iommu, setup, teardown),
		cmocka_unit_test_setup_teardown(test_iova_link_and_unlink, setup, teardown),
		cmocka_unit_test_setup_teardown(test_iova_link_boundaries, setup, teardown),
		cmocka_unit_test_setup_teardown(test_iova_misuse, setup, teardown),
		cmocka_unit_test_setup_teardown(test_iova_link_needs_sync, setup, teardown),
		cmocka_unit_test_setup_teardown(test_iova_left_is_a_leak, setup, teardown),
		cmocka_unit_test_setup_teardown(test_iommu_map_sg, setup, teardown),
		cmocka_unit_test(test_bitfield),
		cmocka_unit_test_setup_teardown(test_managed_calls_unwind_on_failure, setup, teardown),
		cmocka_unit_test_setup_teardown(test_managed_calls_refuse_bad_devices, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
