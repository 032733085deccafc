/* SPDX-License-Identifier: MIT */
/*
 * The IOMMU mapper: mappings, attach/detach, the iommu ops set through the
 * DMA API, what the device sees through the IOMMU, and every failure path.
 */
#include <pthread.h>

#include "common.h"
#include "internal.h"

#include <dmamap/testing.h>

#define WIN_BASE 0x10000000ULL
#define WIN_SIZE (16ULL << 20)

struct fx {
	struct dmamap_machine *m;
	struct device dev;
	struct dma_iommu_mapping *map;
	struct capture cap;
};

static void with_spec(struct dmamap_machine_config *c)
{
	c->speculative_prefetch = true;
	c->outer_cache = true;
}

static struct fx *fx_new_order(void (*tweak)(struct dmamap_machine_config *), size_t size, int order)
{
	struct fx *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	f->m = test_machine(32, tweak);
	dmamap_machine_set_current(f->m);
	dmamap_set_log_level(f->m, DMAMAP_LOG_WARN);
	capture_start(&f->cap, f->m);
	assert_int_equal(dmamap_device_init(&f->dev, f->m, "iommudev"), 0);
	f->map = arm_iommu_create_mapping(f->m, WIN_BASE, size, order);
	assert_false(IS_ERR_OR_NULL(f->map));
	assert_int_equal(arm_iommu_attach_device(&f->dev, f->map), 0);
	arm_iommu_release_mapping(f->map); /* the device's reference keeps it */
	return f;
}

static struct fx *fx_new(void (*tweak)(struct dmamap_machine_config *))
{
	return fx_new_order(tweak, WIN_SIZE, 0);
}

static void fx_free(struct fx *f)
{
	arm_iommu_detach_device(&f->dev);
	dmamap_device_release(&f->dev);
	capture_stop(f->m);
	test_machine_destroy(f->m);
	free(f);
}

static unsigned long iova_used(struct fx *f)
{
	struct dmamap_iova_stats st;

	dmamap_iova_stats(f->map->iova, &st);
	return st.used_granules;
}

/* Zeroed pages of @m, their lines clean at both levels. */
static u8 *kbuf_on(struct dmamap_machine *m, unsigned order)
{
	struct page *p = dmamap_alloc_pages(m, GFP_KERNEL | __GFP_ZERO, order);

	assert_non_null(p);
	dmamap_cache_clean(m, DMAMAP_CACHE_INNER, page_to_phys(p), PAGE_SIZE << order);
	dmamap_cache_flush(m, DMAMAP_CACHE_OUTER, page_to_phys(p), PAGE_SIZE << order);
	return page_address(p);
}

static u8 *kbuf(struct fx *f, unsigned order)
{
	return kbuf_on(f->m, order);
}

static void kfree_buf(u8 *va, unsigned order)
{
	dmamap_free_pages(virt_to_page(va), order);
}

static void test_create_mapping_arguments(void **state)
{
	struct dmamap_machine *m = test_machine(16, NULL);
	struct dma_iommu_mapping *map;
	struct capture cap;

	(void)state;
	capture_start(&cap, m);
	assert_int_equal(PTR_ERR(arm_iommu_create_mapping(m, 0, 0, 0)), -EINVAL);
	assert_int_equal(PTR_ERR(arm_iommu_create_mapping(m, 0, 4096 + 1, 0)), -EINVAL);
	assert_int_equal(PTR_ERR(arm_iommu_create_mapping(m, 4096, 4 * 4096, 1)), -EINVAL); /* base not a granule multiple */
	assert_int_equal(PTR_ERR(arm_iommu_create_mapping(m, 0, 3 * 4096, 1)), -EINVAL);    /* size not one */
	assert_int_equal(PTR_ERR(arm_iommu_create_mapping(m, 0, 4096, -1)), -EINVAL);
	assert_int_equal(PTR_ERR(arm_iommu_create_mapping(m, 0, 1u << 22, 21)), -EINVAL);
	assert_int_equal(PTR_ERR(arm_iommu_create_mapping(m, ~0ULL & PAGE_MASK, 2 * 4096, 0)), -EINVAL); /* overflow */
	assert_int_equal(PTR_ERR(arm_iommu_create_mapping(m, 1ULL << 48, 4096, 0)), -EINVAL);
	assert_int_equal(PTR_ERR(arm_iommu_create_mapping(NULL, 0, 4096, 0)), -EINVAL);
	assert_int_equal(cap.by_kind[DMAMAP_REPORT_BAD_INPUT], 8);

	map = arm_iommu_create_mapping(m, 0, 1u << 20, 0); /* base 0 is fine */
	assert_false(IS_ERR(map));
	assert_int_equal(map->base, 0);
	assert_int_equal(map->size, 1u << 20);
	arm_iommu_release_mapping(map);
	map = arm_iommu_create_mapping(m, 1u << 22, 1u << 22, 2);
	assert_false(IS_ERR(map));
	arm_iommu_release_mapping(map);
	arm_iommu_release_mapping(NULL);
	arm_iommu_release_mapping(ERR_PTR(-EINVAL));

	/* host memory failing at each step: -ENOMEM, nothing left behind */
	for (unsigned long nth = 1; nth <= 4; nth++) {
		assert_int_equal(dmamap_fault_inject(m, DMAMAP_FAULT_HOST_ALLOC, nth, 0), 0);
		map = arm_iommu_create_mapping(m, 0, 1u << 20, 0);
		assert_int_equal(dmamap_fault_inject(m, DMAMAP_FAULT_HOST_ALLOC, 0, 0), 0);
		if (IS_ERR(map))
			assert_int_equal(PTR_ERR(map), -ENOMEM);
		else
			arm_iommu_release_mapping(map);
	}
	assert_true(dmamap_fault_injected(m, DMAMAP_FAULT_HOST_ALLOC) >= 1);
	capture_stop(m);
	test_machine_destroy(m);
}

static void test_attach_detach_refcounts(void **state)
{
	struct dmamap_machine *m = test_machine(16, NULL), *m2 = test_machine(16, NULL);
	struct dma_iommu_mapping *map = arm_iommu_create_mapping(m, WIN_BASE, 1u << 20, 0);
	struct dma_iommu_mapping *map2 = arm_iommu_create_mapping(m2, WIN_BASE, 1u << 20, 0);
	struct device a = { 0 }, b = { 0 }, c = { 0 };
	struct capture cap;

	(void)state;
	capture_start(&cap, m);
	assert_int_equal(dmamap_device_init(&a, m, "a"), 0);
	assert_int_equal(dmamap_device_init(&b, m, "b"), 0);
	memset(&c, 0, sizeof(c));
	assert_int_equal(map->kref, 1);
	assert_int_equal(arm_iommu_attach_device(&a, map), 0);
	assert_int_equal(arm_iommu_attach_device(&b, map), 0);
	assert_int_equal(map->kref, 3);
	assert_ptr_not_equal(get_dma_ops(&a), &arm_dma_ops);
	assert_ptr_equal(get_dma_ops(&a), get_dma_ops(&b));
	assert_ptr_equal(a.archdata.mapping, map);
	assert_int_equal(arm_iommu_attach_device(&a, map), -EBUSY);
	assert_int_equal(arm_iommu_attach_device(&c, map), -EINVAL);
	assert_int_equal(arm_iommu_attach_device(&a, map2), -EINVAL);
	assert_int_equal(arm_iommu_attach_device(&a, ERR_PTR(-ENOMEM)), -EINVAL);
	assert_int_equal(map->kref, 3);

	arm_iommu_release_mapping(map); /* the creator's reference: the devices keep it alive */
	assert_int_equal(map->kref, 2);
	arm_iommu_detach_device(&a);
	assert_ptr_equal(get_dma_ops(&a), &arm_dma_ops);
	assert_null(a.archdata.mapping);
	assert_int_equal(map->kref, 1);
	arm_iommu_detach_device(&a); /* not attached: reported */
	assert_int_equal(cap.by_kind[DMAMAP_REPORT_API_MISUSE], 1);
	arm_iommu_detach_device(&b); /* the last reference: freed (valgrind would see a leak otherwise) */
	assert_ptr_equal(get_dma_ops(&b), &arm_dma_ops);

	dmamap_device_release(&a);
	dmamap_device_release(&b);
	arm_iommu_release_mapping(map2);
	capture_stop(m);
	test_machine_destroy(m2);
	test_machine_destroy(m);
}

/* A streaming mapping: an IOVA in the window, the page offset kept, read-only to the device. */
static void test_map_single_to_device(void **state)
{
	struct fx *f = fx_new(with_spec);
	u8 *buf = kbuf(f, 1), got[3000];
	dma_addr_t h;

	(void)state;
	fill_pattern(buf + 100, sizeof(got), 1);
	h = dma_map_single(&f->dev, buf + 100, sizeof(got), DMA_TO_DEVICE);
	assert_false(dma_mapping_error(&f->dev, h));
	assert_true(h >= WIN_BASE && h + sizeof(got) <= WIN_BASE + WIN_SIZE);
	assert_int_equal(h & ~PAGE_MASK, 100);
	assert_int_equal(iova_used(f), 1);
	assert_int_equal(iommu_iova_to_phys(f->map->domain, (unsigned long)(h & PAGE_MASK)), virt_to_phys(buf));
	assert_int_equal(dmamap_dev_read(&f->dev, h, got, sizeof(got)), 0);
	assert_int_equal(check_pattern(got, sizeof(got), 1), 0);

	/* the device may not write a TO_DEVICE buffer: a permission fault, memory untouched */
	assert_int_equal(dmamap_dev_write(&f->dev, h, "x", 1), -EFAULT);
	assert_int_equal(f->cap.by_kind[DMAMAP_REPORT_IOMMU_FAULT], 1);
	dma_unmap_single(&f->dev, h, sizeof(got), DMA_TO_DEVICE);
	assert_int_equal(iova_used(f), 0);
	/* after the unmap the IOVA leads nowhere */
	assert_int_equal(dmamap_dev_read(&f->dev, h, got, 16), -EFAULT);
	assert_int_equal(f->cap.by_kind[DMAMAP_REPORT_IOMMU_FAULT], 2);
	kfree_buf(buf, 1);
	fx_free(f);
}

/*
 * The mapper syncs what it maps and invalidates what it unmaps, whatever
 * else the domain's IOTLB holds: a dma_map_single() buffer is the device's
 * at once and gone at its unmap, beside a stale entry an iommu_unmap_fast()
 * left and pages mapped unsynced, which it leaves as they were.
 */
static void test_map_single_beside_iotlb_entries(void **state)
{
	struct fx *f = fx_new(NULL);
	struct iommu_domain *d = f->map->domain;
	u8 *buf = kbuf(f, 0), *old = kbuf(f, 0), got[256];
	struct iommu_iotlb_gather g;
	dma_addr_t h;
	int line;

	(void)state;
	fill_pattern(old, PAGE_SIZE, 5);
	dmamap_cache_clean(f->m, DMAMAP_CACHE_INNER, virt_to_phys(old), PAGE_SIZE);
	dmamap_cache_flush(f->m, DMAMAP_CACHE_OUTER, virt_to_phys(old), PAGE_SIZE);
	assert_int_equal(iommu_map(d, 0x40000000, virt_to_phys(old), PAGE_SIZE, IOMMU_READ), 0);
	iommu_iotlb_gather_init(&g);
	assert_int_equal(iommu_unmap_fast(d, 0x40000000, PAGE_SIZE, &g), PAGE_SIZE); line = __LINE__;
	assert_int_equal(dmamap_iommu_map_unsynced(d, 0x50000000, virt_to_phys(old), PAGE_SIZE, IOMMU_READ, "drv.c", 3),
			 0);

	fill_pattern(buf + 8, sizeof(got), 6);
	h = dma_map_single(&f->dev, buf + 8, sizeof(got), DMA_TO_DEVICE);
	assert_false(dma_mapping_error(&f->dev, h));
	assert_int_equal(dmamap_dev_read(&f->dev, h, got, sizeof(got)), 0);
	assert_int_equal(check_pattern(got, sizeof(got), 6), 0);
	assert_int_equal(f->cap.reports, 0);
	dma_unmap_single(&f->dev, h, sizeof(got), DMA_TO_DEVICE);
	assert_int_equal(dmamap_dev_read(&f->dev, h, got, 16), -EFAULT);
	assert_int_equal(f->cap.by_kind[DMAMAP_REPORT_IOMMU_FAULT], 1);
	assert_int_equal(f->cap.by_kind[DMAMAP_REPORT_DEV_UNMAPPED], 0);
	assert_null(strstr(f->cap.last, "dma_iova_sync"));

	/* the others are as they were */
	assert_int_equal(dmamap_dev_read(&f->dev, 0x40000000, got, 16), 0);
	assert_int_equal(check_pattern(got, 16, 5), 0);
	assert_int_equal(f->cap.by_kind[DMAMAP_REPORT_DEV_UNMAPPED], 1);
	assert_int_equal(f->cap.rec_last.map_line, line);
	assert_int_equal(dmamap_dev_read(&f->dev, 0x50000000, got, 16), -EFAULT);
	assert_int_equal(f->cap.by_kind[DMAMAP_REPORT_IOMMU_FAULT], 2);
	assert_non_null(strstr(f->cap.last, "drv.c:3"));
	iommu_flush_iotlb_all(d);
	assert_int_equal(dmamap_dev_read(&f->dev, 0x50000000, got, 16), 0);
	assert_int_equal(check_pattern(got, 16, 5), 0);
	assert_int_equal(iommu_unmap(d, 0x50000000, PAGE_SIZE), PAGE_SIZE);
	assert_int_equal(f->cap.reports, 3);
	kfree_buf(buf, 0);
	kfree_buf(old, 0);
	fx_free(f);
}

static void test_map_single_from_device(void **state)
{
	struct fx *f = fx_new(with_spec);
	u8 *buf = kbuf(f, 1), data[6000];
	dma_addr_t h;
	int stale;

	(void)state;
	h = dma_map_single(&f->dev, buf + 50, sizeof(data), DMA_FROM_DEVICE);
	assert_false(dma_mapping_error(&f->dev, h));
	fill_pattern(data, sizeof(data), 2);
	assert_int_equal(dmamap_dev_write(&f->dev, h, data, sizeof(data)), 0);
	misuse_begin(f->m); /* a read before the unmap: stale */
	stale = check_pattern(buf + 50, sizeof(data), 2);
	misuse_end(f->m);
	assert_int_not_equal(stale, 0);
	dma_sync_single_for_cpu(&f->dev, h + 1000, 500, DMA_FROM_DEVICE);
	assert_memory_equal(buf + 1050, data + 1000, 500);
	dma_unmap_single(&f->dev, h, sizeof(data), DMA_FROM_DEVICE);
	assert_int_equal(check_pattern(buf + 50, sizeof(data), 2), 0);
	assert_int_equal(f->cap.reports, 0);
	kfree_buf(buf, 1);
	fx_free(f);
}

/* An unmap that names no live mapping is reported; nothing changes. */
static void test_bad_unmap_refused(void **state)
{
	struct fx *f = fx_new(NULL);
	u8 *buf = kbuf(f, 0);
	struct dmamap_iommu_stats before, after;
	dma_addr_t h;

	(void)state;
	h = dma_map_single(&f->dev, buf, 256, DMA_BIDIRECTIONAL);
	assert_false(dma_mapping_error(&f->dev, h));
	dmamap_iommu_stats(f->map->domain, &before);
	dma_unmap_single(&f->dev, h + PAGE_SIZE, 256, DMA_BIDIRECTIONAL);   /* not mapped */
	dma_unmap_single(&f->dev, h, 2 * PAGE_SIZE, DMA_BIDIRECTIONAL);     /* wrong size */
	dma_sync_single_for_cpu(&f->dev, h + 2 * PAGE_SIZE, 16, DMA_BIDIRECTIONAL);
	assert_int_equal(f->cap.by_kind[DMAMAP_REPORT_API_MISUSE], 3);
	dmamap_iommu_stats(f->map->domain, &after);
	assert_int_equal(before.mapped_bytes, after.mapped_bytes);
	assert_int_equal(iova_used(f), 1);
	dma_unmap_single(&f->dev, h, 256, DMA_BIDIRECTIONAL);
	assert_int_equal(iova_used(f), 0);
	kfree_buf(buf, 0);
	fx_free(f);
}

/* 64 scattered pages look contiguous to the device. */
static void test_scattered_pages_contiguous_to_device(void **state)
{
	struct fx *f = fx_new(NULL);
	struct scatterlist sgl[64];
	struct page *pages[128];
	u8 *got = malloc(64 * PAGE_SIZE);
	int n;

	(void)state;
	assert_int_equal(dma_set_max_seg_size(&f->dev, 1u << 20), 0);
	sg_init_table(sgl, 64);
	for (int i = 0; i < 128; i++)
		pages[i] = dmamap_alloc_pages(f->m, GFP_KERNEL, 0);
	for (int i = 0; i < 64; i++) {
		struct page *p = pages[(i * 37) % 64 * 2]; /* every other page, shuffled */

		fill_pattern(page_address(p), PAGE_SIZE, 100 + (unsigned)i);
		sg_set_page(&sgl[i], p, PAGE_SIZE, 0);
	}
	n = dma_map_sg(&f->dev, sgl, 64, DMA_TO_DEVICE);
	assert_int_equal(n, 1);
	assert_int_equal(sg_dma_len(&sgl[0]), 64 * PAGE_SIZE);
	assert_int_equal(dmamap_dev_read(&f->dev, sg_dma_address(&sgl[0]), got, 64 * PAGE_SIZE), 0);
	for (int i = 0; i < 64; i++)
		assert_int_equal(check_pattern(got + (size_t)i * PAGE_SIZE, PAGE_SIZE, 100 + (unsigned)i), 0);
	dma_unmap_sg(&f->dev, sgl, 64, DMA_TO_DEVICE);
	assert_int_equal(iova_used(f), 0);
	for (int i = 0; i < 128; i++)
		dmamap_free_pages(pages[i], 0);
	free(got);
	fx_free(f);
}

/* Which entries merge into one segment. */
static void test_sg_merging(void **state)
{
	struct fx *f = fx_new(NULL);
	struct scatterlist sgl[6];
	struct page *p[6];
	int n;

	(void)state;
	for (int i = 0; i < 6; i++)
		p[i] = dmamap_alloc_pages(f->m, GFP_KERNEL, 1);

	/* full pages: one segment */
	sg_init_table(sgl, 4);
	for (int i = 0; i < 4; i++)
		sg_set_page(&sgl[i], p[i], PAGE_SIZE, 0);
	n = dma_map_sg(&f->dev, sgl, 4, DMA_BIDIRECTIONAL);
	assert_int_equal(n, 1);
	assert_int_equal(sg_dma_len(&sgl[0]), 4 * PAGE_SIZE);
	assert_int_equal(sg_dma_len(&sgl[1]), 0);
	dma_unmap_sg(&f->dev, sgl, 4, DMA_BIDIRECTIONAL);

	/* an entry at an offset starts a segment; one ending mid-page ends it */
	sg_init_table(sgl, 4);
	sg_set_page(&sgl[0], p[0], PAGE_SIZE, 0);
	sg_set_page(&sgl[1], p[1], 100, 200);           /* offset: new segment, ends mid-page */
	sg_set_page(&sgl[2], p[2], PAGE_SIZE, 0);       /* previous ended mid-page: new segment */
	sg_set_page(&sgl[3], p[3], 2 * PAGE_SIZE, 0);   /* merges */
	n = dma_map_sg(&f->dev, sgl, 4, DMA_BIDIRECTIONAL);
	assert_int_equal(n, 3);
	assert_int_equal(sg_dma_len(&sgl[0]), PAGE_SIZE);
	assert_int_equal(sg_dma_len(&sgl[1]), 100);
	assert_int_equal(sg_dma_address(&sgl[1]) & ~PAGE_MASK, 200);
	assert_int_equal(sg_dma_len(&sgl[2]), 3 * PAGE_SIZE);
	assert_int_equal(sg_dma_len(&sgl[3]), 0);
	{
		u8 probe[100];

		dma_sync_sg_for_cpu(&f->dev, sgl, 4, DMA_BIDIRECTIONAL); /* the CPU's to write */
		fill_pattern((u8 *)page_address(p[1]) + 200, 100, 7);
		dma_sync_sg_for_device(&f->dev, sgl, 4, DMA_BIDIRECTIONAL);
		assert_int_equal(dmamap_dev_read(&f->dev, sg_dma_address(&sgl[1]), probe, 100), 0);
		assert_int_equal(check_pattern(probe, 100, 7), 0);
	}
	dma_unmap_sg(&f->dev, sgl, 4, DMA_BIDIRECTIONAL);
	assert_int_equal(iova_used(f), 0);

	/* the maximum segment size splits: 2 pages max, 5 pages -> 2 + 2 + 1 */
	assert_int_equal(dma_set_max_seg_size(&f->dev, 2 * PAGE_SIZE), 0);
	sg_init_table(sgl, 5);
	for (int i = 0; i < 5; i++)
		sg_set_page(&sgl[i], p[i], PAGE_SIZE, 0);
	n = dma_map_sg(&f->dev, sgl, 5, DMA_TO_DEVICE);
	assert_int_equal(n, 3);
	assert_int_equal(sg_dma_len(&sgl[0]), 2 * PAGE_SIZE);
	assert_int_equal(sg_dma_len(&sgl[1]), 2 * PAGE_SIZE);
	assert_int_equal(sg_dma_len(&sgl[2]), PAGE_SIZE);
	dma_unmap_sg(&f->dev, sgl, 5, DMA_TO_DEVICE);
	assert_int_equal(iova_used(f), 0);

	for (int i = 0; i < 6; i++)
		dmamap_free_pages(p[i], 1);
	assert_int_equal(f->cap.reports, 0);
	fx_free(f);
}

/*
 * A device whose segments may not cross 64 KiB (dma_set_seg_boundary()):
 * 64 KiB of entries starting 100 bytes into a page would merge into one
 * segment across the boundary; each entry is a segment of its own instead.
 */
static void test_sg_merging_keeps_the_segment_boundary(void **state)
{
	struct fx *f = fx_new(NULL);
	struct scatterlist sgl[17];
	struct dmamap_iommu_stats st;
	u8 *buf = kbuf(f, 5), *got = malloc(64 * 1024);
	unsigned long attempts;
	size_t total = 0;
	int n;

	(void)state;
	assert_non_null(got);
	assert_int_equal(dma_set_seg_boundary(&f->dev, 0xffff), 0);
	sg_init_table(sgl, 17);
	sg_set_buf(&sgl[0], buf + 100, PAGE_SIZE - 100);
	for (int i = 1; i < 16; i++)
		sg_set_buf(&sgl[i], buf + i * 2 * PAGE_SIZE, PAGE_SIZE); /* scattered pages */
	sg_set_buf(&sgl[16], buf + 31 * PAGE_SIZE, 100);
	for (int i = 0; i < 17; i++)
		fill_pattern(sg_virt(&sgl[i]), sgl[i].length, 40 + i);
	attempts = dmamap_fault_attempts(f->m, DMAMAP_FAULT_IOVA);
	n = dma_map_sg(&f->dev, sgl, 17, DMA_TO_DEVICE);
	assert_int_equal(n, 17);
	attempts = dmamap_fault_attempts(f->m, DMAMAP_FAULT_IOVA) - attempts;
	for (int i = 0; i < n; i++) {
		dma_addr_t a = sg_dma_address(&sgl[i]);
		size_t len = sg_dma_len(&sgl[i]);

		assert_int_equal(a >> 16, (a + len - 1) >> 16);
		assert_int_equal(len, sgl[i].length);
		assert_int_equal(dmamap_dev_read(&f->dev, a, got + total, len), 0);
		assert_int_equal(check_pattern(got + total, len, 40 + i), 0);
		total += len;
	}
	assert_int_equal(total, 64 * 1024);
	dma_unmap_sg(&f->dev, sgl, 17, DMA_TO_DEVICE);
	assert_int_equal(iova_used(f), 0);

	/* an IOVA failure at any step, the merged attempt's or an entry's, leaves nothing mapped */
	for (unsigned long nth = 1; nth <= attempts; nth++) {
		assert_int_equal(dmamap_fault_inject(f->m, DMAMAP_FAULT_IOVA, nth, 0), 0);
		assert_int_equal(dma_map_sg(&f->dev, sgl, 17, DMA_TO_DEVICE), 0);
		assert_int_equal(iova_used(f), 0);
		dmamap_iommu_stats(f->map->domain, &st);
		assert_int_equal(st.mapped_bytes, 0);
	}
	assert_int_equal(dmamap_fault_inject(f->m, DMAMAP_FAULT_IOVA, 0, 0), 0);
	assert_int_equal(f->cap.reports, 0);
	free(got);
	kfree_buf(buf, 5);
	fx_free(f);
}

/* A failure in the middle of map_sg leaves nothing mapped. */
static void test_sg_failure_unwinds(void **state)
{
	struct fx *f = fx_new(NULL);
	struct scatterlist sgl[3];
	struct page *p[3];
	struct dmamap_iommu_stats st;

	(void)state;
	for (int i = 0; i < 3; i++)
		p[i] = dmamap_alloc_pages(f->m, GFP_KERNEL, 0);
	sg_init_table(sgl, 3);
	for (int i = 0; i < 3; i++)
		sg_set_page(&sgl[i], p[i], 1000, 8); /* every entry its own segment */
	for (unsigned long nth = 1; nth <= 3; nth++) {
		assert_int_equal(dmamap_fault_inject(f->m, DMAMAP_FAULT_IOVA, nth, 0), 0);
		assert_int_equal(dma_map_sg(&f->dev, sgl, 3, DMA_TO_DEVICE), 0);
		assert_int_equal(iova_used(f), 0);
		dmamap_iommu_stats(f->map->domain, &st);
		assert_int_equal(st.mapped_bytes, 0);
		for (int i = 0; i < 3; i++) {
			assert_int_equal(sg_dma_address(&sgl[i]), DMA_MAPPING_ERROR);
			assert_int_equal(sg_dma_len(&sgl[i]), 0);
		}
	}
	assert_int_equal(dmamap_fault_inject(f->m, DMAMAP_FAULT_IOVA, 0, 0), 0);
	assert_int_equal(dma_map_sg(&f->dev, sgl, 3, DMA_TO_DEVICE), 3);
	dma_unmap_sg(&f->dev, sgl, 3, DMA_TO_DEVICE);
	for (int i = 0; i < 3; i++)
		dmamap_free_pages(p[i], 0);
	fx_free(f);
}

/* Map and unmap a million times in a 1 MiB space: nothing leaks. */
static void test_million_maps_no_leak(void **state)
{
	struct fx *f = fx_new_order(NULL, 1u << 20, 0);
	u8 *buf = kbuf(f, 2);
	unsigned long rounds = under_valgrind() ? 20000 : 1000000;
	dma_addr_t held[8];

	(void)state;
	for (unsigned long i = 0; i < rounds; i++) {
		size_t off = (i * 64) % PAGE_SIZE, len = 1 + (i * 13) % (3 * PAGE_SIZE - off);
		dma_addr_t h = dma_map_page(&f->dev, virt_to_page(buf), off, len, DMA_TO_DEVICE);

		assert_false(dma_mapping_error(&f->dev, h));
		held[i % 8] = h;
		if (i % 8 == 7) {
			for (int k = 0; k < 8; k++) {
				size_t o = ((i - 7 + (unsigned long)k) * 64) % PAGE_SIZE;

				dma_unmap_page(&f->dev, held[k], 1 + ((i - 7 + (unsigned long)k) * 13) % (3 * PAGE_SIZE - o),
					       DMA_TO_DEVICE);
			}
		}
	}
	assert_int_equal(iova_used(f), 0);
	{
		struct dmamap_iommu_stats st;

		dmamap_iommu_stats(f->map->domain, &st);
		assert_int_equal(st.mapped_bytes, 0);
		/* the tables stay after unmap, ready for the next map; given back, the root is left */
		assert_int_equal(st.table_pages, 4);
		dmamap_iommu_domain_shrink(f->map->domain);
		dmamap_iommu_stats(f->map->domain, &st);
		assert_int_equal(st.table_pages, 1);
	}
	assert_int_equal(f->cap.reports, 0);
	kfree_buf(buf, 2);
	fx_free(f);
}

/* Coherent allocations: scattered pages, zeroed, one IOVA range, a kernel mapping, mmap. */
static void test_alloc_mmap(void **state)
{
	struct fx *f = fx_new(NULL);
	struct vm_area_struct *vma;
	struct sg_table sgt;
	pgprot_t prot;
	dma_addr_t h;
	u8 *cpu, probe[64];
	DEFINE_DMA_ATTRS(nokmap);

	(void)state;
	cpu = dma_alloc_coherent(&f->dev, 10 * PAGE_SIZE, &h, GFP_KERNEL);
	assert_non_null(cpu);
	assert_true(h >= WIN_BASE && h < WIN_BASE + WIN_SIZE);
	assert_true(dmamap_consistent_contains(f->m, cpu));
	assert_int_equal(dmamap_consistent_pte(f->m, cpu, NULL, &prot), 0);
	assert_int_equal(pgprot_memtype(prot), DMAMAP_MT_DMACOHERENT);
	for (size_t i = 0; i < 10 * PAGE_SIZE; i++)
		assert_int_equal(cpu[i], 0);
	fill_pattern(cpu, 10 * PAGE_SIZE, 9);
	assert_int_equal(dmamap_dev_read(&f->dev, h + 9 * PAGE_SIZE, probe, sizeof(probe)), 0);
	assert_memory_equal(probe, cpu + 9 * PAGE_SIZE, sizeof(probe));

	vma = dmamap_vma_create(f->m, 4 * PAGE_SIZE);
	vma->vm_pgoff = 3;
	assert_int_equal(dma_mmap_coherent(&f->dev, vma, cpu, h, 10 * PAGE_SIZE), 0);
	assert_memory_equal((void *)vma->vm_start, cpu + 3 * PAGE_SIZE, 4 * PAGE_SIZE);
	dmamap_vma_destroy(vma);
	vma = dmamap_vma_create(f->m, 8 * PAGE_SIZE);
	vma->vm_pgoff = 3;
	assert_int_equal(dma_mmap_coherent(&f->dev, vma, cpu, h, 10 * PAGE_SIZE), -ENXIO);
	assert_int_equal(dmamap_vma_pte(vma, vma->vm_start, NULL, NULL), -ENOENT);
	dmamap_vma_destroy(vma);

	assert_int_equal(dma_get_sgtable(&f->dev, &sgt, cpu, h, 10 * PAGE_SIZE), 0);
	{
		size_t total = 0;
		struct scatterlist *s;
		unsigned i;

		for_each_sg(sgt.sgl, s, sgt.orig_nents, i)
			total += s->length;
		assert_int_equal(total, 10 * PAGE_SIZE);
	}
	sg_free_table(&sgt);
	/* a part of the buffer: its first bytes, rounded up to pages, as without an IOMMU */
	assert_int_equal(dma_get_sgtable(&f->dev, &sgt, cpu, h, 3 * PAGE_SIZE + 100), 0);
	{
		size_t total = 0;
		struct scatterlist *s;
		unsigned i;

		for_each_sg(sgt.sgl, s, sgt.orig_nents, i)
			total += s->length;
		assert_int_equal(total, 4 * PAGE_SIZE);
	}
	sg_free_table(&sgt);

	dma_free_coherent(&f->dev, 10 * PAGE_SIZE, cpu + PAGE_SIZE, h); /* mismatch: refused */
	assert_int_equal(f->cap.by_kind[DMAMAP_REPORT_API_MISUSE], 1);
	dma_free_coherent(&f->dev, 10 * PAGE_SIZE, cpu, h);
	assert_int_equal(iova_used(f), 0);

	dma_set_attr(DMA_ATTR_NO_KERNEL_MAPPING, &nokmap);
	cpu = dma_alloc_attrs(&f->dev, 3 * PAGE_SIZE, &h, GFP_KERNEL, &nokmap);
	assert_non_null(cpu);
	assert_false(dmamap_consistent_contains(f->m, cpu));
	assert_int_equal(dmamap_dev_fill(&f->dev, h, 0x3c, 3 * PAGE_SIZE), 0);
	vma = dmamap_vma_create(f->m, 3 * PAGE_SIZE);
	assert_int_equal(dma_mmap_attrs(&f->dev, vma, cpu, h, 3 * PAGE_SIZE, &nokmap), 0);
	assert_int_equal(((u8 *)vma->vm_start)[3 * PAGE_SIZE - 1], 0x3c);
	dmamap_vma_destroy(vma);
	dma_free_attrs(&f->dev, 3 * PAGE_SIZE, cpu, h, &nokmap);
	assert_int_equal(iova_used(f), 0);
	fx_free(f);
}

struct snapshot {
	struct dmamap_page_stats pages;
	struct dmamap_iova_stats iova;
	struct dmamap_iommu_stats iommu;
	struct dmamap_consistent_stats cons;
};

static void snap(struct fx *f, struct snapshot *s)
{
	dmamap_page_stats(f->m, &s->pages);
	dmamap_iova_stats(f->map->iova, &s->iova);
	/* tables kept after an unmap (or an unwind) are a cache: counted once given back */
	dmamap_iommu_domain_shrink(f->map->domain);
	dmamap_iommu_stats(f->map->domain, &s->iommu);
	dmamap_consistent_stats(f->m, &s->cons);
}

static void same(const struct snapshot *a, const struct snapshot *b)
{
	assert_memory_equal(a->pages.free_pages, b->pages.free_pages, sizeof(a->pages.free_pages));
	assert_int_equal(a->iova.used_granules, b->iova.used_granules);
	assert_int_equal(a->iommu.mapped_bytes, b->iommu.mapped_bytes);
	assert_int_equal(a->iommu.table_pages, b->iommu.table_pages);
	assert_int_equal(a->cons.used, b->cons.used);
}

/* Every allocation step failing: NULL, and exactly the state before. */
static void test_alloc_fault_injection(void **state)
{
	struct fx *f = fx_new(NULL);
	enum dmamap_fault_site sites[] = { DMAMAP_FAULT_HOST_ALLOC, DMAMAP_FAULT_PAGE_ALLOC, DMAMAP_FAULT_IOVA,
					   DMAMAP_FAULT_IOMMU_PGTABLE, DMAMAP_FAULT_REMAP };
	DEFINE_DMA_ATTRS(contig);

	(void)state;
	dma_set_attr(DMA_ATTR_FORCE_CONTIGUOUS, &contig);
	for (unsigned s = 0; s < ARRAY_SIZE(sites); s++) {
		for (int pass = 0; pass < 2; pass++) {
			for (unsigned long nth = 1; nth <= 6; nth++) {
				struct snapshot before, after;
				dma_addr_t h;
				void *p;

				snap(f, &before);
				assert_int_equal(dmamap_fault_inject(f->m, sites[s], nth, 0), 0);
				p = dma_alloc_attrs(&f->dev, 5 * PAGE_SIZE, &h, GFP_KERNEL, pass ? &contig : NULL);
				assert_int_equal(dmamap_fault_inject(f->m, sites[s], 0, 0), 0);
				if (p) {
					dma_free_attrs(&f->dev, 5 * PAGE_SIZE, p, h, pass ? &contig : NULL);
					continue;
				}
				assert_int_equal(h, DMA_MAPPING_ERROR);
				snap(f, &after);
				same(&before, &after);
			}
		}
		assert_true(dmamap_fault_injected(f->m, sites[s]) >= 1);
	}
	/* and the streaming side */
	{
		u8 *buf = kbuf(f, 2);
		struct snapshot before, after;

		snap(f, &before);
		assert_int_equal(dmamap_fault_inject(f->m, DMAMAP_FAULT_IOMMU_PGTABLE, 1, 0), 0);
		assert_true(dma_mapping_error(&f->dev, dma_map_single(&f->dev, buf, 3 * PAGE_SIZE, DMA_TO_DEVICE)));
		assert_int_equal(dmamap_fault_inject(f->m, DMAMAP_FAULT_IOMMU_PGTABLE, 0, 0), 0);
		snap(f, &after);
		same(&before, &after);
		kfree_buf(buf, 2);
	}
	assert_int_equal(f->cap.reports, 0);
	fx_free(f);
}

struct worker {
	struct fx *f;
	u8 *buf;
	unsigned long rounds;
	_Atomic unsigned char *owner; /* one per IOVA page of the window */
	int bad;
};

static void *worker_fn(void *arg)
{
	struct worker *w = arg;

	for (unsigned long i = 0; i < w->rounds && !w->bad; i++) {
		size_t len = 1 + (i * 31) % (2 * PAGE_SIZE);
		dma_addr_t h = dma_map_single(&w->f->dev, w->buf, len, DMA_BIDIRECTIONAL);
		unsigned long first, last;

		if (dma_mapping_error(&w->f->dev, h)) {
			w->bad = 1;
			break;
		}
		first = (unsigned long)((h - WIN_BASE) >> PAGE_SHIFT);
		last = (unsigned long)((h + len - 1 - WIN_BASE) >> PAGE_SHIFT);
		for (unsigned long p = first; p <= last; p++)
			if (atomic_exchange(&w->owner[p], 1) != 0)
				w->bad = 2; /* someone else holds this IOVA */
		for (unsigned long p = first; p <= last; p++)
			atomic_store(&w->owner[p], 0);
		dma_unmap_single(&w->f->dev, h, len, DMA_BIDIRECTIONAL);
	}
	return NULL;
}

static void test_two_threads_one_mapping(void **state)
{
	struct fx *f = fx_new_order(NULL, 1u << 20, 0);
	_Atomic unsigned char *owner = calloc(256, 1);
	struct worker w[2];
	pthread_t t[2];

	(void)state;
	capture_stop(f->m); /* the capture handler is not thread-safe */
	for (int i = 0; i < 2; i++) {
		w[i] = (struct worker){ f, kbuf(f, 1), under_valgrind() ? 2000 : 100000, owner, 0 };
		assert_int_equal(pthread_create(&t[i], NULL, worker_fn, &w[i]), 0);
	}
	for (int i = 0; i < 2; i++) {
		pthread_join(t[i], NULL);
		assert_int_equal(w[i].bad, 0);
		kfree_buf(w[i].buf, 1);
	}
	assert_int_equal(iova_used(f), 0);
	assert_int_equal(dmamap_report_count(f->m), 0);
	free((void *)owner);
	fx_free(f);
}

/* Releasing a device detaches it from its mapping. */
static void test_release_detaches(void **state)
{
	struct dmamap_machine *m = test_machine(16, NULL);
	struct dma_iommu_mapping *map = arm_iommu_create_mapping(m, WIN_BASE, 1u << 20, 0);
	struct device dev = { 0 };

	(void)state;
	assert_int_equal(dmamap_device_init(&dev, m, "d"), 0);
	assert_int_equal(arm_iommu_attach_device(&dev, map), 0);
	assert_int_equal(map->kref, 2);
	dmamap_device_release(&dev);
	assert_int_equal(map->kref, 1);
	arm_iommu_release_mapping(map);
	test_machine_destroy(m);
}

/*
 * A mapping whose last reference goes while streaming mappings still hold
 * IOVA space: the space's leak goes to the machine's log (where the test
 * looks), not to the process-wide one.
 */
static void test_release_with_iova_held_reports_to_machine(void **state)
{
	struct dmamap_machine *m = test_machine(16, NULL);
	struct dma_iommu_mapping *map = arm_iommu_create_mapping(m, WIN_BASE, 1u << 20, 0);
	struct capture mc, pc;
	struct device dev = { 0 };
	struct page *pg;
	dma_addr_t h;

	(void)state;
	assert_false(IS_ERR_OR_NULL(map));
	assert_int_equal(dmamap_device_init(&dev, m, "d"), 0);
	assert_int_equal(arm_iommu_attach_device(&dev, map), 0);
	arm_iommu_release_mapping(map); /* the device holds the last reference */
	pg = dmamap_alloc_pages(m, GFP_KERNEL, 1);
	assert_non_null(pg);
	h = dma_map_single(&dev, page_address(pg), 5000, DMA_TO_DEVICE);
	assert_false(dma_mapping_error(&dev, h));
	capture_start(&mc, m);
	capture_start(&pc, NULL);
	dmamap_device_release(&dev); /* detaches: the mapping goes with its IOVA still held */
	capture_stop(NULL);
	capture_stop(m);
	assert_int_equal(pc.reports, 0);
	assert_int_equal(mc.by_kind[DMAMAP_REPORT_LEAK], 2); /* the mapping (checker), then its IOVA */
	assert_int_equal(mc.rec_last.kind, DMAMAP_REPORT_LEAK);
	assert_non_null(strstr(mc.rec_last.message, "1 allocation (2 granules) outstanding"));
	dmamap_free_pages(pg, 1);
	test_machine_destroy(m);
}

/* ------------------------------------------------ misuse refused by the mapper */

/* Run @fn with the DMA-API checker on, then off: each misuse in it must be reported once either way. */
static void both_checker_modes(struct fx *f, void (*fn)(struct fx *f))
{
	for (int on = 1; on >= 0; on--) {
		assert_int_equal(dmamap_checker_enable(f->m, on), 0);
		f->cap.reports = 0;
		fn(f);
	}
	assert_int_equal(dmamap_checker_enable(f->m, true), 0);
}

struct iommu_snap {
	struct dmamap_iommu_stats dom;
	struct dmamap_iova_stats iova;
	unsigned long free_pages[DMAMAP_ZONE_NR];
};

static void isnap(struct fx *f, struct iommu_snap *s)
{
	struct dmamap_page_stats ps;

	memset(s, 0, sizeof(*s));
	dmamap_iommu_stats(f->map->domain, &s->dom);
	s->dom.table_pages = 0; /* kept after unmap, as a cache */
	dmamap_iova_stats(f->map->iova, &s->iova);
	s->iova.refused_frees = 0;
	dmamap_page_stats(f->m, &ps);
	memcpy(s->free_pages, ps.free_pages, sizeof(s->free_pages));
}

static void assert_isnap(struct fx *f, const struct iommu_snap *before)
{
	struct iommu_snap now;

	isnap(f, &now);
	assert_memory_equal(before, &now, sizeof(now));
	assert_machine_consistent(f->m);
}

/*
 * A coherent buffer's bus address is no streaming mapping: unmapping it is
 * refused, its IOVA stays, and the next mapping gets another bus range. A
 * sync of it is accepted, as on the direct ops, and changes nothing.
 */
static void unmap_of_coherent_buffer(struct fx *f)
{
	u8 *buf = kbuf(f, 0), got = 0;
	struct iommu_snap before;
	dma_addr_t ch, h;
	u8 *cpu = dma_alloc_coherent(&f->dev, 2 * PAGE_SIZE, &ch, GFP_KERNEL);

	assert_non_null(cpu);
	isnap(f, &before);
	dma_unmap_single(&f->dev, ch, 2 * PAGE_SIZE, DMA_BIDIRECTIONAL);
	assert_int_equal(f->cap.reports, 1);
	dma_sync_single_for_cpu(&f->dev, ch, 64, DMA_BIDIRECTIONAL);
	assert_int_equal(f->cap.reports, 1);
	assert_isnap(f, &before);
	cpu[5] = 0x77;
	assert_int_equal(dmamap_dev_read(&f->dev, ch + 5, &got, 1), 0);
	assert_int_equal(got, 0x77);
	h = dma_map_single(&f->dev, buf, 2 * PAGE_SIZE, DMA_TO_DEVICE);
	assert_false(dma_mapping_error(&f->dev, h));
	assert_true(h + 2 * PAGE_SIZE <= ch || h >= ch + 2 * PAGE_SIZE);
	dma_unmap_single(&f->dev, h, 2 * PAGE_SIZE, DMA_TO_DEVICE);
	dma_free_coherent(&f->dev, 2 * PAGE_SIZE, cpu, ch);
	assert_int_equal(f->cap.reports, 1);
	kfree_buf(buf, 0);
}

static void test_unmap_of_coherent_buffer_refused(void **state)
{
	struct fx *f = fx_new(NULL);

	(void)state;
	both_checker_modes(f, unmap_of_coherent_buffer);
	fx_free(f);
}

/* A sync whose end wraps around the address space returns at once, refused; so does one beyond the window. */
static void sync_that_wraps(struct fx *f)
{
	u8 *buf = kbuf(f, 0);
	struct iommu_snap before;
	dma_addr_t h = dma_map_single(&f->dev, buf, 128, DMA_FROM_DEVICE);

	assert_false(dma_mapping_error(&f->dev, h));
	isnap(f, &before);
	dma_sync_single_for_cpu(&f->dev, h, SIZE_MAX - h + 2, DMA_FROM_DEVICE);
	dma_sync_single_for_device(&f->dev, h, SIZE_MAX - h + 2, DMA_FROM_DEVICE);
	dma_sync_single_for_cpu(&f->dev, h, SIZE_MAX, DMA_FROM_DEVICE);
	dma_sync_single_for_cpu(&f->dev, h, WIN_SIZE, DMA_FROM_DEVICE); /* runs out of the window */
	dma_unmap_single(&f->dev, h, SIZE_MAX - h + 2, DMA_FROM_DEVICE);
	assert_int_equal(f->cap.reports, 5);
	assert_isnap(f, &before);
	dma_unmap_single(&f->dev, h, 128, DMA_FROM_DEVICE);
	assert_int_equal(f->cap.reports, 5);
	kfree_buf(buf, 0);
}

static void test_sync_whose_end_wraps_refused(void **state)
{
	struct fx *f = fx_new(NULL);

	(void)state;
	both_checker_modes(f, sync_that_wraps);
	fx_free(f);
}

/* The direction an unmap or sync names must be the mapping's, as dmabounce requires. */
static void wrong_direction(struct fx *f)
{
	u8 *buf = kbuf(f, 0), got[16];
	struct scatterlist sg[2];
	struct iommu_snap before;
	dma_addr_t h = dma_map_single(&f->dev, buf, 300, DMA_TO_DEVICE);

	assert_false(dma_mapping_error(&f->dev, h));
	sg_init_table(sg, 2);
	sg_set_buf(&sg[0], buf + 1024, 100);
	sg_set_buf(&sg[1], buf + 2048, 100);
	assert_true(dma_map_sg(&f->dev, sg, 2, DMA_FROM_DEVICE) > 0);
	isnap(f, &before);
	dma_unmap_single(&f->dev, h, 300, DMA_FROM_DEVICE);
	dma_unmap_single(&f->dev, h, 300, DMA_BIDIRECTIONAL);
	dma_sync_single_for_cpu(&f->dev, h, 300, DMA_BIDIRECTIONAL);
	dma_unmap_sg(&f->dev, sg, 2, DMA_TO_DEVICE);
	dma_sync_sg_for_cpu(&f->dev, sg, 2, DMA_TO_DEVICE);
	assert_int_equal(f->cap.reports, 5);
	assert_isnap(f, &before);
	assert_int_equal(dmamap_dev_read(&f->dev, h, got, sizeof(got)), 0); /* still mapped */
	dma_unmap_sg(&f->dev, sg, 2, DMA_FROM_DEVICE);
	dma_unmap_single(&f->dev, h, 300, DMA_TO_DEVICE);
	assert_int_equal(f->cap.reports, 5);
	assert_int_equal(iova_used(f), 0);
	kfree_buf(buf, 0);
}

static void test_wrong_direction_refused(void **state)
{
	struct fx *f = fx_new(NULL);

	(void)state;
	both_checker_modes(f, wrong_direction);
	fx_free(f);
}

/* A device behind an IOMMU mapping of its own (the fixture of <dmamap/testing.h>), the DMA-API checker on or off. */
static void iommu_test_init(struct dmamap_test *t, bool checker)
{
	const struct dmamap_test_traits tr = { .iommu = true, .quiet = true };

	assert_int_equal(dmamap_test_init(t, &tr), 0);
	assert_int_equal(dmamap_checker_enable(t->machine, checker), 0);
}

/*
 * A DMA_BIDIRECTIONAL mapping may be synced with the direction of the hand
 * over alone, as in the kernel: DMA_FROM_DEVICE for the CPU, DMA_TO_DEVICE
 * for the device, each doing its own maintenance, for a single mapping and
 * for a list. A one-way mapping is still synced its own way only: a sync of
 * another direction, which would discard the CPU's bytes, is refused and
 * changes nothing.
 */
static void bidirectional_synced_one_way(struct dmamap_test *t)
{
	u8 *buf = kbuf_on(t->machine, 1), data[300], reply[300], a[256], b[256];
	int line[3];
	dma_addr_t h;

	fill_pattern(data, sizeof(data), 41);
	fill_pattern(reply, sizeof(reply), 42);
	h = dma_map_single(&t->dev, buf + 100, sizeof(data), DMA_BIDIRECTIONAL);
	assert_false(dma_mapping_error(&t->dev, h));
	assert_int_equal(dmamap_dev_write(&t->dev, h, data, sizeof(data)), 0);
	dma_sync_single_for_cpu(&t->dev, h, sizeof(data), DMA_FROM_DEVICE);
	assert_memory_equal(buf + 100, data, sizeof(data));
	memcpy(buf + 100, reply, sizeof(reply));
	dma_sync_single_for_device(&t->dev, h, sizeof(reply), DMA_TO_DEVICE);
	dmamap_assert_device_sees(t, h, reply, sizeof(reply));
	dma_unmap_single(&t->dev, h, sizeof(data), DMA_BIDIRECTIONAL);
	assert_memory_equal(buf + 100, reply, sizeof(reply));

	/* two segments (the second starts mid-page), synced the same way */
	sg_synced_one_way(t, buf, data, reply);

	/* a one-way mapping the CPU took back and wrote: an invalidate would lose b */
	fill_pattern(a, sizeof(a), 43);
	fill_pattern(b, sizeof(b), 44);
	memcpy(buf, a, sizeof(a));
	h = dma_map_single(&t->dev, buf, sizeof(a), DMA_TO_DEVICE);
	assert_false(dma_mapping_error(&t->dev, h));
	dmamap_assert_device_sees(t, h, a, sizeof(a));
	dma_sync_single_for_cpu(&t->dev, h, sizeof(a), DMA_TO_DEVICE);
	memcpy(buf, b, sizeof(b));
	line[0] = __LINE__ + 1;
	dma_sync_single_for_cpu(&t->dev, h, sizeof(a), DMA_FROM_DEVICE);
	line[1] = __LINE__ + 1;
	dma_sync_single_for_cpu(&t->dev, h, sizeof(a), DMA_BIDIRECTIONAL);
	line[2] = __LINE__ + 1;
	dma_sync_single_for_device(&t->dev, h, sizeof(a), DMA_FROM_DEVICE);
	assert_int_equal(t->reports, 3);
	for (int i = 0; i < 3; i++)
		dmamap_assert_reported(t, DMAMAP_REPORT_API_MISUSE, "test-dma-iommu.c", line[i]);
	assert_memory_equal(buf, b, sizeof(b));
	dma_sync_single_for_device(&t->dev, h, sizeof(b), DMA_TO_DEVICE);
	dmamap_assert_device_sees(t, h, b, sizeof(b));
	dma_unmap_single(&t->dev, h, sizeof(a), DMA_TO_DEVICE);
	assert_int_equal(t->reports, 3);
	kfree_buf(buf, 1);
}

static void test_bidirectional_synced_one_way(void **state)
{
	(void)state;
	for (int checker = 1; checker >= 0; checker--) {
		struct dmamap_test t;

		iommu_test_init(&t, checker);
		bidirectional_synced_one_way(&t);
		assert_machine_consistent(t.machine);
		dmamap_test_fini(&t);
		assert_int_equal(t.reports, 3);
	}
}

/*
 * dma_alloc_noncoherent() (DMA_ATTR_NON_CONSISTENT) behind the IOMMU is
 * cached memory, in the kernel's mapping and the user's: the device sees the
 * CPU's stores at the driver's sync for it, the CPU the device's at the sync
 * for the CPU, each naming part of the buffer (across a page boundary), and
 * neither sync is misuse. A coherent buffer's syncs are accepted too, and
 * change nothing, as on the direct ops. Unmapping either buffer is still
 * refused, and leaves it as it was.
 */
static void noncoherent_synced(struct dmamap_test *t)
{
	const size_t size = 3 * PAGE_SIZE, at = PAGE_SIZE - 256;
	u8 *cpu, *coh, got[512], a[512], b[512];
	struct vm_area_struct *vma;
	DEFINE_DMA_ATTRS(nc);
	dma_addr_t h, ch;
	pgprot_t prot;
	int line[2];

	dma_set_attr(DMA_ATTR_NON_CONSISTENT, &nc);
	cpu = dma_alloc_noncoherent(&t->dev, size, &h, GFP_KERNEL);
	assert_non_null(cpu);
	assert_int_equal(dmamap_consistent_pte(t->machine, cpu, NULL, &prot), 0);
	assert_int_equal(pgprot_memtype(prot), DMAMAP_MT_CACHED);
	vma = dmamap_vma_create(t->machine, size);
	assert_non_null(vma);
	assert_int_equal(dma_mmap_attrs(&t->dev, vma, cpu, h, size, &nc), 0);
	assert_int_equal(dmamap_vma_pte(vma, vma->vm_start, NULL, &prot), 0);
	assert_int_equal(pgprot_memtype(prot), DMAMAP_MT_CACHED);
	dmamap_vma_destroy(vma);

	fill_pattern(a, sizeof(a), 51);
	fill_pattern(b, sizeof(b), 52);
	memcpy(cpu + at, a, sizeof(a));
	assert_int_equal(dmamap_dev_read(&t->dev, h + at, got, sizeof(got)), 0);
	assert_memory_not_equal(got, a, sizeof(a)); /* in the CPU's cache yet */
	dma_sync_single_for_device(&t->dev, h + at, sizeof(a), DMA_BIDIRECTIONAL);
	dmamap_assert_device_sees(t, h + at, a, sizeof(a));
	assert_int_equal(dmamap_dev_write(&t->dev, h + at, b, sizeof(b)), 0);
	assert_memory_equal(cpu + at, a, sizeof(a)); /* its lines are cached: stale */
	dma_sync_single_for_cpu(&t->dev, h + at, sizeof(b), DMA_FROM_DEVICE);
	assert_memory_equal(cpu + at, b, sizeof(b));

	coh = dma_alloc_coherent(&t->dev, PAGE_SIZE, &ch, GFP_KERNEL);
	assert_non_null(coh);
	memcpy(coh, a, sizeof(a));
	dmamap_assert_device_sees(t, ch, a, sizeof(a)); /* uncached: at once */
	dma_sync_single_for_device(&t->dev, ch, sizeof(a), DMA_TO_DEVICE);
	assert_int_equal(dmamap_dev_write(&t->dev, ch + sizeof(a), b, sizeof(b)), 0);
	dma_sync_single_for_cpu(&t->dev, ch, PAGE_SIZE, DMA_FROM_DEVICE);
	assert_memory_equal(coh, a, sizeof(a));
	assert_memory_equal(coh + sizeof(a), b, sizeof(b));
	dmamap_assert_no_reports(t);

	line[0] = __LINE__ + 1;
	dma_unmap_single(&t->dev, h, size, DMA_BIDIRECTIONAL);
	line[1] = __LINE__ + 1;
	dma_unmap_single(&t->dev, ch, PAGE_SIZE, DMA_BIDIRECTIONAL);
	assert_int_equal(t->reports, 2);
	for (int i = 0; i < 2; i++)
		dmamap_assert_reported(t, DMAMAP_REPORT_API_MISUSE, "test-dma-iommu.c", line[i]);
	dmamap_assert_device_sees(t, h + at, b, sizeof(b));
	dmamap_assert_device_sees(t, ch, a, sizeof(a));
	dma_free_noncoherent(&t->dev, size, cpu, h);
	dma_free_coherent(&t->dev, PAGE_SIZE, coh, ch);
	assert_int_equal(t->reports, 2);
}

static void test_noncoherent_synced(void **state)
{
	(void)state;
	for (int checker = 1; checker >= 0; checker--) {
		struct dmamap_test t;

		iommu_test_init(&t, checker);
		noncoherent_synced(&t);
		assert_machine_consistent(t.machine);
		dmamap_test_fini(&t);
		assert_int_equal(t.reports, 2);
	}
}

/* Coherent buffers: a free through another device of the mapping, with another size, or twice, frees nothing. */
static void bad_coherent_frees(struct fx *f)
{
	struct device other = { 0 };
	struct iommu_snap before;
	dma_addr_t h;
	void *cpu;

	assert_int_equal(dmamap_device_init(&other, f->m, "other"), 0);
	assert_int_equal(arm_iommu_attach_device(&other, f->map), 0);
	cpu = dma_alloc_coherent(&f->dev, 3 * PAGE_SIZE, &h, GFP_KERNEL);
	assert_non_null(cpu);
	isnap(f, &before);
	dma_free_coherent(&other, 3 * PAGE_SIZE, cpu, h);
	dma_free_coherent(&f->dev, 4 * PAGE_SIZE, cpu, h);
	dma_free_coherent(&f->dev, 3 * PAGE_SIZE, (u8 *)cpu + PAGE_SIZE, h);
	assert_int_equal(f->cap.reports, 3);
	assert_isnap(f, &before);
	dma_free_coherent(&f->dev, 3 * PAGE_SIZE, cpu, h);
	isnap(f, &before);
	dma_free_coherent(&f->dev, 3 * PAGE_SIZE, cpu, h);
	assert_int_equal(f->cap.reports, 4);
	assert_isnap(f, &before);
	arm_iommu_detach_device(&other);
	dmamap_device_release(&other);
}

static void test_bad_coherent_frees_refused(void **state)
{
	struct fx *f = fx_new(NULL);

	(void)state;
	both_checker_modes(f, bad_coherent_frees);
	fx_free(f);
}

/* Sizes that cannot be rounded, no window could hold, and unknown gfp bits: refused before anything is allocated. */
static void test_impossible_coherent_sizes_refused_up_front(void **state)
{
	struct fx *f = fx_new(NULL);
	unsigned long pages0 = dmamap_fault_attempts(f->m, DMAMAP_FAULT_PAGE_ALLOC);
	unsigned long host0 = dmamap_fault_attempts(f->m, DMAMAP_FAULT_HOST_ALLOC);
	struct iommu_snap before;
	dma_addr_t h;

	(void)state;
	isnap(f, &before);
	assert_null(dma_alloc_coherent(&f->dev, (size_t)1 << 42, &h, GFP_KERNEL));
	assert_null(dma_alloc_coherent(&f->dev, WIN_SIZE + PAGE_SIZE, &h, GFP_KERNEL));
	assert_int_equal(f->cap.reports, 0); /* too big is a failure, not a misuse */
	assert_null(dma_alloc_coherent(&f->dev, SIZE_MAX - 5, &h, GFP_KERNEL));
	assert_null(dma_alloc_coherent(&f->dev, PAGE_SIZE, &h, GFP_KERNEL | 0x10000000u));
	assert_int_equal(f->cap.by_kind[DMAMAP_REPORT_BAD_INPUT], 2);
	assert_int_equal(h, DMA_MAPPING_ERROR);
	assert_int_equal(dmamap_fault_attempts(f->m, DMAMAP_FAULT_PAGE_ALLOC), pages0);
	assert_int_equal(dmamap_fault_attempts(f->m, DMAMAP_FAULT_HOST_ALLOC), host0);
	assert_isnap(f, &before);
	fx_free(f);
}

/*
 * Releasing a mapping still attached once too often is refused: only the
 * devices' references are left, each dropped by its detach.
 */
static void test_release_of_attached_mapping_refused(void **state)
{
	struct fx *f = fx_new(NULL); /* the device holds the only reference */
	u8 *buf = kbuf(f, 0);
	dma_addr_t h;

	(void)state;
	assert_int_equal(f->map->kref, 1);
	arm_iommu_release_mapping(f->map);
	assert_int_equal(f->cap.by_kind[DMAMAP_REPORT_API_MISUSE], 1);
	assert_int_equal(f->map->kref, 1);
	h = dma_map_single(&f->dev, buf, 64, DMA_TO_DEVICE); /* the mapping is alive */
	assert_false(dma_mapping_error(&f->dev, h));
	dma_unmap_single(&f->dev, h, 64, DMA_TO_DEVICE);
	/* an extra reference may be dropped once, not twice */
	assert_int_equal(arm_iommu_attach_device(&f->dev, f->map), -EBUSY);
	f->map->kref++; /* as a second owner's arm_iommu_create_mapping() reference would be */
	arm_iommu_release_mapping(f->map);
	arm_iommu_release_mapping(f->map);
	assert_int_equal(f->cap.by_kind[DMAMAP_REPORT_API_MISUSE], 2);
	assert_int_equal(f->map->kref, 1);
	kfree_buf(buf, 0);
	assert_int_equal(f->cap.reports, 2);
	fx_free(f);
}

struct racer {
	struct fx *f;
	pthread_barrier_t *go;
	void *cpu;
	dma_addr_t h;
};

static void *racer_fn(void *arg)
{
	struct racer *r = arg;

	pthread_barrier_wait(r->go);
	dma_free_coherent(&r->f->dev, 2 * PAGE_SIZE, r->cpu, r->h);
	return NULL;
}

/* Two threads freeing one coherent buffer: one frees it, the other is refused and reported. */
static void test_concurrent_double_free_one_wins(void **state)
{
	struct fx *f = fx_new(NULL);
	unsigned rounds = under_valgrind() ? 20 : 2000;
	struct iommu_snap before;

	(void)state;
	capture_stop(f->m); /* counted with dmamap_report_count(): the capture is not thread-safe */
	isnap(f, &before);
	for (unsigned i = 0; i < rounds; i++) {
		unsigned long reports = dmamap_report_count(f->m);
		pthread_barrier_t go;
		struct racer r[2];
		pthread_t t[2];
		dma_addr_t h;
		void *cpu = dma_alloc_coherent(&f->dev, 2 * PAGE_SIZE, &h, GFP_KERNEL);

		assert_non_null(cpu);
		pthread_barrier_init(&go, NULL, 2);
		for (int k = 0; k < 2; k++) {
			r[k] = (struct racer){ f, &go, cpu, h };
			assert_int_equal(pthread_create(&t[k], NULL, racer_fn, &r[k]), 0);
		}
		for (int k = 0; k < 2; k++)
			pthread_join(t[k], NULL);
		pthread_barrier_destroy(&go);
		assert_int_equal(dmamap_report_count(f->m), reports + 1);
		assert_isnap(f, &before);
	}
	fx_free(f);
}

/*
 * A mapping still referenced when its machine is destroyed: its buffers and
 * tables go with the machine (reported); attach is refused; the last release
 * frees what is left.
 */
static void test_mapping_outlives_its_machine(void **state)
{
	struct dmamap_machine *m = test_machine(16, NULL), *m2 = test_machine(16, NULL);
	struct dma_iommu_mapping *map = arm_iommu_create_mapping(m, WIN_BASE, 1u << 20, 0);
	struct device dev = { 0 }, dev2 = { 0 };
	struct capture c, cg;
	dma_addr_t h;

	(void)state;
	assert_false(IS_ERR(map));
	assert_int_equal(dmamap_device_init(&dev, m, "d"), 0);
	assert_int_equal(dmamap_device_init(&dev2, m2, "d2"), 0);
	assert_int_equal(arm_iommu_attach_device(&dev, map), 0);
	assert_non_null(dma_alloc_coherent(&dev, 2 * PAGE_SIZE, &h, GFP_KERNEL));
	capture_start(&c, m);
	test_machine_destroy(m); /* the device (detached), then the mapping and its buffer */
	assert_true(c.by_kind[DMAMAP_REPORT_LEAK] >= 2);
	assert_int_equal(map->kref, 1);
	capture_start(&cg, NULL);
	assert_int_equal(arm_iommu_attach_device(&dev2, map), -ENODEV);
	assert_int_equal(cg.by_kind[DMAMAP_REPORT_API_MISUSE], 1);
	arm_iommu_release_mapping(map);
	assert_int_equal(cg.by_kind[DMAMAP_REPORT_API_MISUSE], 2);
	capture_stop(NULL);
	dmamap_device_release(&dev2);
	test_machine_destroy(m2);
}

/*
 * A mapping released once more than it was taken -- its machine destroyed in
 * between or not -- is reported process-wide and changes nothing: the first
 * release freed it, the second reads none of it (ASan and valgrind see no
 * access). Attaching it is refused the same way.
 */
static void test_release_of_a_freed_mapping_refused(void **state)
{
	struct dmamap_machine *m = test_machine(16, NULL);
	struct dma_iommu_mapping *map = arm_iommu_create_mapping(m, WIN_BASE, 1u << 20, 0);
	struct device dev = { 0 };
	unsigned long before;
	struct capture c, cg;

	(void)state;
	assert_false(IS_ERR(map));
	assert_int_equal(dmamap_device_init(&dev, m, "d"), 0);
	capture_start(&c, m);
	arm_iommu_release_mapping(map);
	assert_int_equal(c.reports, 0);
	capture_start(&cg, NULL);
	before = dmamap_report_count(NULL);
	arm_iommu_release_mapping(map);
	assert_int_equal(cg.reports, 1);
	assert_int_equal(cg.last_kind, DMAMAP_REPORT_BAD_INPUT);
	assert_non_null(strstr(cg.last, "arm_iommu_release_mapping("));
	assert_non_null(strstr(cg.last, "): no live IOMMU mapping (freed already?): nothing done"));
	assert_int_equal(arm_iommu_attach_device(&dev, map), -EINVAL);
	assert_int_equal(cg.reports, 2);
	assert_int_equal(cg.last_kind, DMAMAP_REPORT_BAD_INPUT);
	assert_null(dev.archdata.mapping);
	assert_ptr_equal(get_dma_ops(&dev), &arm_dma_ops);
	assert_int_equal(dmamap_report_count(NULL), before + 2);
	assert_int_equal(c.reports, 0);
	dmamap_device_release(&dev);

	/* destroyed with its machine, released, then released again */
	map = arm_iommu_create_mapping(m, WIN_BASE, 1u << 20, 0);
	assert_false(IS_ERR(map));
	test_machine_destroy(m);
	assert_int_equal(c.by_kind[DMAMAP_REPORT_LEAK], 1);
	capture_start(&cg, NULL);
	arm_iommu_release_mapping(map); /* the machine is gone: said, and its struct freed */
	assert_int_equal(cg.reports, 1);
	assert_int_equal(cg.last_kind, DMAMAP_REPORT_API_MISUSE);
	arm_iommu_release_mapping(map);
	assert_int_equal(cg.reports, 2);
	assert_int_equal(cg.last_kind, DMAMAP_REPORT_BAD_INPUT);
	assert_non_null(strstr(cg.last, "no live IOMMU mapping (freed already?)"));
	capture_stop(NULL);
}

/* The last report, one more than @n before, refuses @call of a pointer that names no live IOMMU domain. */
static void assert_domain_refused(const struct capture *cg, unsigned long n, const char *call)
{
	assert_int_equal(cg->reports, n + 1);
	assert_int_equal(cg->last_kind, DMAMAP_REPORT_BAD_INPUT);
	assert_non_null(strstr(cg->last, call));
	assert_non_null(strstr(cg->last, "): no live IOMMU domain (freed already?): nothing done"));
}

/* The domain calls a driver may make on @dom, no live domain: refused, each reported; @dev is left as it was. */
static void assert_dead_domain_refused(struct capture *cg, struct iommu_domain *dom, struct device *dev, phys_addr_t pa)
{
	unsigned long n = cg->reports;

	assert_int_equal(iommu_iova_to_phys(dom, WIN_BASE), 0);
	assert_domain_refused(cg, n++, "iommu_iova_to_phys(");
	assert_int_equal(iommu_map(dom, WIN_BASE, pa, PAGE_SIZE, IOMMU_READ), -EINVAL);
	assert_domain_refused(cg, n++, "iommu_map(");
	assert_int_equal(iommu_unmap(dom, WIN_BASE, PAGE_SIZE), 0);
	assert_domain_refused(cg, n++, "iommu_unmap(");
	assert_int_equal(iommu_attach_device(dom, dev), -EINVAL);
	assert_domain_refused(cg, n++, "iommu_attach_device(");
	iommu_detach_device(dom, dev);
	assert_domain_refused(cg, n++, "iommu_detach_device(");
	iommu_domain_free(dom);
	assert_domain_refused(cg, n++, "iommu_domain_free(");
}

/*
 * A mapping's domain, kept by the driver (iommu_get_domain_for_dev()) past
 * the mapping's last reference -- its machine destroyed in between, before
 * or after the release, or not -- names no live domain: each call on it is
 * one process-wide report and does nothing. Another mapping, its device's
 * streaming mapping and what the device reads through it are untouched.
 */
static void test_domain_of_a_released_mapping_refused(void **state)
{
	struct fx *f = fx_new(with_spec);
	struct dma_iommu_mapping *gone = arm_iommu_create_mapping(f->m, WIN_BASE, 1u << 20, 0), *map2, *map3;
	struct dmamap_machine *m2;
	struct iommu_domain *dom, *dom2, *dom3;
	struct device dev = { 0 };
	u8 *buf = kbuf(f, 0), got[256];
	struct capture cg, c2;
	unsigned long used;
	dma_addr_t h;

	(void)state;
	assert_false(IS_ERR(gone));
	assert_int_equal(dmamap_device_init(&dev, f->m, "gone-dev"), 0);
	assert_int_equal(arm_iommu_attach_device(&dev, gone), 0);
	dom = iommu_get_domain_for_dev(&dev);
	assert_ptr_equal(dom, gone->domain);
	arm_iommu_release_mapping(gone);
	arm_iommu_detach_device(&dev); /* the last reference: the mapping goes, its domain with it */
	assert_ptr_equal(get_dma_ops(&dev), &arm_dma_ops);
	fill_pattern(buf, sizeof(got), 9);
	h = dma_map_single(&f->dev, buf, sizeof(got), DMA_TO_DEVICE);
	assert_false(dma_mapping_error(&f->dev, h));
	used = iova_used(f);

	capture_start(&cg, NULL);
	assert_dead_domain_refused(&cg, dom, &dev, virt_to_phys(buf));
	assert_int_equal(cg.reports, 6);
	capture_stop(NULL);
	assert_null(iommu_get_domain_for_dev(&dev));
	assert_null(dev.archdata.mapping);
	assert_ptr_equal(get_dma_ops(&dev), &arm_dma_ops);
	assert_int_equal(f->cap.reports, 0);
	assert_int_equal(iova_used(f), used);
	assert_int_equal(iommu_iova_to_phys(f->map->domain, (unsigned long)(h & PAGE_MASK)), virt_to_phys(buf));
	assert_int_equal(dmamap_dev_read(&f->dev, h, got, sizeof(got)), 0);
	assert_int_equal(check_pattern(got, sizeof(got), 9), 0);
	assert_machine_consistent(f->m);
	dma_unmap_single(&f->dev, h, sizeof(got), DMA_TO_DEVICE);
	dmamap_device_release(&dev);
	kfree_buf(buf, 0);
	assert_int_equal(f->cap.reports, 0);
	fx_free(f);

	/* a mapping released before its machine is destroyed, and one released after */
	m2 = test_machine(16, NULL);
	map2 = arm_iommu_create_mapping(m2, WIN_BASE, 1u << 20, 0);
	map3 = arm_iommu_create_mapping(m2, WIN_BASE, 1u << 20, 0);
	assert_false(IS_ERR(map2));
	assert_false(IS_ERR(map3));
	dom2 = map2->domain;
	dom3 = map3->domain;
	capture_start(&c2, m2);
	arm_iommu_release_mapping(map3);
	assert_int_equal(c2.reports, 0);
	test_machine_destroy(m2);
	assert_int_equal(c2.by_kind[DMAMAP_REPORT_LEAK], 1); /* map2 */
	capture_start(&cg, NULL);
	arm_iommu_release_mapping(map2); /* the machine is gone: said, and freed with its domain */
	assert_int_equal(cg.reports, 1);
	assert_int_equal(cg.last_kind, DMAMAP_REPORT_API_MISUSE);
	assert_dead_domain_refused(&cg, dom2, &dev, 0x40000000);
	assert_dead_domain_refused(&cg, dom3, &dev, 0x40000000);
	assert_int_equal(cg.reports, 13);
	capture_stop(NULL);
}

/*
 * iommu_detach_device() of a device attached through an arm_iommu mapping
 * (its domain from iommu_get_domain_for_dev()) is refused: the device's DMA
 * ops would go on handing out IOVAs it no longer translates. The device
 * stays attached and reads its buffer through the domain; then
 * arm_iommu_detach_device() detaches it, silently.
 */
static void test_detach_of_a_mapping_device_refused(void **state)
{
	struct fx *f = fx_new(with_spec);
	struct iommu_domain *dom = iommu_get_domain_for_dev(&f->dev);
	u8 *buf = kbuf(f, 0), got[64];
	dma_addr_t h;

	(void)state;
	assert_non_null(dom);
	fill_pattern(buf, sizeof(got), 21);
	h = dma_map_single(&f->dev, buf, sizeof(got), DMA_TO_DEVICE);
	assert_false(dma_mapping_error(&f->dev, h));
	iommu_detach_device(dom, &f->dev);
	assert_int_equal(f->cap.reports, 1);
	assert_int_equal(f->cap.last_kind, DMAMAP_REPORT_API_MISUSE);
	assert_non_null(strstr(f->cap.last, "iommu_detach_device: the device is attached through an arm_iommu mapping"));
	assert_ptr_equal(iommu_get_domain_for_dev(&f->dev), dom);
	assert_int_equal(dmamap_dev_read(&f->dev, h, got, sizeof(got)), 0);
	assert_int_equal(check_pattern(got, sizeof(got), 21), 0);
	dma_unmap_single(&f->dev, h, sizeof(got), DMA_TO_DEVICE);
	kfree_buf(buf, 0);
	/* the mapper's own detach goes through */
	arm_iommu_detach_device(&f->dev);
	assert_null(iommu_get_domain_for_dev(&f->dev));
	assert_int_equal(f->cap.reports, 1);
	assert_machine_consistent(f->m);
	fx_free(f);
}

/*
 * iommu_domain_free() of the domain of an arm_iommu mapping, which the
 * mapping goes on using, is refused with a report and changes nothing: the
 * device stays attached, its streaming mappings work, and the mapping's
 * release frees the domain later, once. The same once the machine is gone.
 */
static void test_free_of_a_mapping_domain_refused(void **state)
{
	struct fx *f = fx_new(with_spec);
	struct iommu_domain *dom = iommu_get_domain_for_dev(&f->dev);
	struct dma_iommu_mapping *map2;
	struct dmamap_iommu_stats before, after;
	struct dmamap_machine *m2;
	u8 *buf = kbuf(f, 0), got[128];
	struct capture c2, cg;
	dma_addr_t h;

	(void)state;
	assert_ptr_equal(dom, f->map->domain);
	fill_pattern(buf, sizeof(got), 12);
	h = dma_map_single(&f->dev, buf, sizeof(got), DMA_TO_DEVICE);
	assert_false(dma_mapping_error(&f->dev, h));
	dmamap_iommu_stats(dom, &before);
	iommu_domain_free(dom);
	assert_int_equal(f->cap.reports, 1);
	assert_int_equal(f->cap.last_kind, DMAMAP_REPORT_API_MISUSE);
	assert_non_null(strstr(f->cap.last, "iommu_domain_free("));
	assert_non_null(strstr(f->cap.last, "the domain of an arm_iommu mapping goes with the mapping's last reference"));
	dmamap_iommu_stats(dom, &after);
	assert_memory_equal(&before, &after, sizeof(before));
	assert_ptr_equal(iommu_get_domain_for_dev(&f->dev), dom);
	assert_int_equal(dmamap_dev_read(&f->dev, h, got, sizeof(got)), 0);
	assert_int_equal(check_pattern(got, sizeof(got), 12), 0);
	dma_unmap_single(&f->dev, h, sizeof(got), DMA_TO_DEVICE);
	/* and the mapper maps through it still */
	h = dma_map_single(&f->dev, buf, sizeof(got), DMA_TO_DEVICE);
	assert_false(dma_mapping_error(&f->dev, h));
	assert_int_equal(iommu_iova_to_phys(dom, (unsigned long)(h & PAGE_MASK)), virt_to_phys(buf));
	dma_unmap_single(&f->dev, h, sizeof(got), DMA_TO_DEVICE);
	assert_int_equal(f->cap.reports, 1);
	assert_machine_consistent(f->m);
	kfree_buf(buf, 0);
	fx_free(f);

	/* its machine destroyed: refused all the same (said process-wide); the release frees it */
	m2 = test_machine(16, NULL);
	map2 = arm_iommu_create_mapping(m2, WIN_BASE, 1u << 20, 0);
	assert_false(IS_ERR(map2));
	capture_start(&c2, m2);
	iommu_domain_free(map2->domain);
	assert_int_equal(c2.reports, 1);
	assert_int_equal(c2.last_kind, DMAMAP_REPORT_API_MISUSE);
	test_machine_destroy(m2);
	assert_int_equal(c2.by_kind[DMAMAP_REPORT_LEAK], 1);
	capture_start(&cg, NULL);
	iommu_domain_free(map2->domain);
	assert_int_equal(cg.reports, 1);
	assert_int_equal(cg.last_kind, DMAMAP_REPORT_API_MISUSE);
	assert_non_null(strstr(cg.last, "the domain of an arm_iommu mapping"));
	arm_iommu_release_mapping(map2); /* the machine is gone: said; the mapping and its domain freed */
	assert_int_equal(cg.reports, 2);
	assert_int_equal(cg.by_kind[DMAMAP_REPORT_API_MISUSE], 2);
	capture_stop(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_create_mapping_arguments),
		cmocka_unit_test(test_attach_detach_refcounts),
		cmocka_unit_test(test_map_single_to_device),
		cmocka_unit_test(test_map_single_beside_iotlb_entries),
		cmocka_unit_test(test_map_single_from_device),
		cmocka_unit_test(test_bad_unmap_refused),
		cmocka_unit_test(test_scattered_pages_contiguous_to_device),
		cmocka_unit_test(test_sg_merging),
		cmocka_unit_test(test_sg_merging_keeps_the_segment_boundary),
		cmocka_unit_test(test_sg_failure_unwinds),
		cmocka_unit_test(test_million_maps_no_leak),
		cmocka_unit_test(test_alloc_mmap),
		cmocka_unit_test(test_alloc_fault_injection),
		cmocka_unit_test(test_two_threads_one_mapping),
		cmocka_unit_test(test_release_detaches),
		cmocka_unit_test(test_release_with_iova_held_reports_to_machine),
		cmocka_unit_test(test_unmap_of_coherent_buffer_refused),
		cmocka_unit_test(test_sync_whose_end_wraps_refused),
		cmocka_unit_test(test_wrong_direction_refused),
		cmocka_unit_test(test_bidirectional_synced_one_way),
		cmocka_unit_test(test_noncoherent_synced),
		cmocka_unit_test(test_bad_coherent_frees_refused),
		cmocka_unit_test(test_impossible_coherent_sizes_refused_up_front),
		cmocka_unit_test(test_release_of_attached_mapping_refused),
		cmocka_unit_test(test_concurrent_double_free_one_wins),
		cmocka_unit_test(test_mapping_outlives_its_machine),
		cmocka_unit_test(test_release_of_a_freed_mapping_refused),
		cmocka_unit_test(test_domain_of_a_released_mapping_refused),
		cmocka_unit_test(test_free_of_a_mapping_domain_refused),
		cmocka_unit_test(test_detach_of_a_mapping_device_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
