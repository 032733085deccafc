/* SPDX-License-Identifier: MIT */
/*
 * arm_dma_ops through the DMA API: the visibility rules of DESIGN.md section
 * 3 as a driver meets them, every attribute's effect, where coherent memory
 * comes from, mmap, masks and the DMA zone, and the failure paths.
 */
#include "common.h"
#include "internal.h"

struct fx {
	struct dmamap_machine *m;
	struct device dev;
	struct capture cap;
};

static struct fx *fx_new(void (*tweak)(struct dmamap_machine_config *))
{
	struct fx *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	f->m = test_machine(16, tweak);
	dmamap_machine_set_current(f->m);
	capture_start(&f->cap, f->m);
	assert_int_equal(dmamap_device_init(&f->dev, f->m, "armdev"), 0);
	return f;
}

static void fx_free(struct fx *f)
{
	dmamap_device_release(&f->dev);
	capture_stop(f->m);
	test_machine_destroy(f->m);
	free(f);
}

/* A kmalloc-like buffer: linear-map memory whose lines are cached and clean, RAM zero. */
static u8 *kbuf(struct fx *f, unsigned order)
{
	struct page *p = dmamap_alloc_pages(f->m, GFP_KERNEL | __GFP_ZERO, order);
	u8 *va;

	assert_non_null(p);
	va = page_address(p);
	dmamap_cache_clean(f->m, DMAMAP_CACHE_INNER, page_to_phys(p), PAGE_SIZE << order);
	dmamap_cache_flush(f->m, DMAMAP_CACHE_OUTER, page_to_phys(p), PAGE_SIZE << order);
	dmamap_cache_reset_stats(f->m);
	return va;
}

static unsigned long stats_live_coherent(struct dmamap_machine *m)
{
	struct dmamap_checker_stats st;

	dmamap_checker_stats(m, &st);
	return st.live_coherent;
}

static void kfree_buf(u8 *va, unsigned order)
{
	dmamap_free_pages(virt_to_page(va), order);
}

static void with_spec(struct dmamap_machine_config *c)
{
	c->speculative_prefetch = true;
}

static void with_outer_spec(struct dmamap_machine_config *c)
{
	c->outer_cache = true;
	c->speculative_prefetch = true;
}

static void coherent_machine(struct dmamap_machine_config *c)
{
	c->coherent = true;
}

/* Rule 1 through the API. */
static void test_to_device_map_makes_data_visible(void **state)
{
	struct fx *f = fx_new(with_outer_spec);
	u8 *buf = kbuf(f, 0), got[1000];
	dma_addr_t h;

	(void)state;
	fill_pattern(buf, sizeof(got), 1);
	h = dma_map_single(&f->dev, buf, sizeof(got), DMA_TO_DEVICE);
	assert_false(dma_mapping_error(&f->dev, h));
	assert_int_equal(h, virt_to_phys(buf)); /* no pfn offset: bus == phys */
	assert_int_equal(dmamap_dev_read(&f->dev, h, got, sizeof(got)), 0);
	assert_int_equal(check_pattern(got, sizeof(got), 1), 0);
	dma_unmap_single(&f->dev, h, sizeof(got), DMA_TO_DEVICE);
	assert_int_equal(f->cap.reports, 0);
	kfree_buf(buf, 0);
	fx_free(f);
}

/* Rule 1, negative: the driver forgot the map; the device reads stale RAM. */
static void test_to_device_without_map_is_stale(void **state)
{
	struct fx *f = fx_new(NULL);
	u8 *buf = kbuf(f, 0), got[256];

	(void)state;
	fill_pattern(buf, sizeof(got), 2);
	assert_int_equal(dmamap_dev_read(&f->dev, virt_to_phys(buf), got, sizeof(got)), 0);
	assert_int_not_equal(check_pattern(got, sizeof(got), 2), 0);
	kfree_buf(buf, 0);
	fx_free(f);
}

/* Rules 2 and 3: the CPU sees a device write after unmap, even with speculative prefetch. */
static void test_from_device_unmap_makes_data_visible(void **state)
{
	struct fx *f = fx_new(with_outer_spec);
	u8 *buf = kbuf(f, 1), data[5000];
	dma_addr_t h;

	(void)state;
	h = dma_map_single(&f->dev, buf, sizeof(data), DMA_FROM_DEVICE);
	assert_false(dma_mapping_error(&f->dev, h));
	fill_pattern(data, sizeof(data), 3);
	assert_int_equal(dmamap_dev_write(&f->dev, h, data, sizeof(data)), 0);
	dma_unmap_single(&f->dev, h, sizeof(data), DMA_FROM_DEVICE);
	assert_int_equal(check_pattern(buf, sizeof(data), 3), 0);
	kfree_buf(buf, 1);
	fx_free(f);
}

/* Rule 3, negative: with prefetch, skipping the unmap leaves stale lines. */
static void test_from_device_without_unmap_is_stale(void **state)
{
	struct fx *f = fx_new(with_spec);
	u8 *buf = kbuf(f, 0), data[512];
	dma_addr_t h;
	int stale;

	(void)state;
	h = dma_map_single(&f->dev, buf, sizeof(data), DMA_FROM_DEVICE);
	assert_false(dma_mapping_error(&f->dev, h));
	fill_pattern(data, sizeof(data), 4);
	assert_int_equal(dmamap_dev_write(&f->dev, h, data, sizeof(data)), 0);
	dmamap_cache_speculate(f->m); /* the CPU runs on */
	misuse_begin(f->m);
	stale = check_pattern(buf, sizeof(data), 4);
	misuse_end(f->m);
	assert_int_not_equal(stale, 0);
	dma_unmap_single(&f->dev, h, sizeof(data), DMA_FROM_DEVICE);
	assert_int_equal(check_pattern(buf, sizeof(data), 4), 0);
	kfree_buf(buf, 0);
	fx_free(f);
}

/* A receive ring: the buffer stays mapped; syncs hand it back and forth. */
static void test_sync_single_round_trips(void **state)
{
	struct fx *f = fx_new(with_outer_spec);
	u8 *buf = kbuf(f, 0), data[512], got[512];
	dma_addr_t h;

	(void)state;
	h = dma_map_single(&f->dev, buf, PAGE_SIZE, DMA_BIDIRECTIONAL);
	assert_false(dma_mapping_error(&f->dev, h));
	for (unsigned round = 0; round < 4; round++) {
		fill_pattern(data, sizeof(data), 10 + round);
		assert_int_equal(dmamap_dev_write(&f->dev, h, data, sizeof(data)), 0);
		dma_sync_single_for_cpu(&f->dev, h, PAGE_SIZE, DMA_BIDIRECTIONAL);
		assert_int_equal(check_pattern(buf, sizeof(data), 10 + round), 0);
		fill_pattern(buf + 1024, sizeof(got), 20 + round);
		dma_sync_single_for_device(&f->dev, h, PAGE_SIZE, DMA_BIDIRECTIONAL);
		assert_int_equal(dmamap_dev_read(&f->dev, h + 1024, got, sizeof(got)), 0);
		assert_int_equal(check_pattern(got, sizeof(got), 20 + round), 0);
	}
	dma_unmap_single(&f->dev, h, PAGE_SIZE, DMA_BIDIRECTIONAL);
	kfree_buf(buf, 0);
	fx_free(f);
}

/* dma_sync_single_range_*: only the range is handed over. */
static void test_sync_range_covers_only_the_range(void **state)
{
	struct fx *f = fx_new(with_spec);
	u8 *buf = kbuf(f, 0), data[PAGE_SIZE];
	dma_addr_t h;
	u8 first, last;

	(void)state;
	h = dma_map_single(&f->dev, buf, PAGE_SIZE, DMA_FROM_DEVICE);
	assert_false(dma_mapping_error(&f->dev, h));
	fill_pattern(data, sizeof(data), 30);
	assert_int_equal(dmamap_dev_write(&f->dev, h, data, sizeof(data)), 0);
	dma_sync_single_range_for_cpu(&f->dev, h, 1024, 512, DMA_FROM_DEVICE);
	assert_memory_equal(buf + 1024, data + 1024, 512);
	misuse_begin(f->m);                       /* outside the range: the device's still, and stale */
	first = buf[0];
	last = buf[PAGE_SIZE - 1];
	misuse_end(f->m);
	assert_int_equal(first, 0);
	assert_int_equal(last, 0);
	dma_unmap_single(&f->dev, h, PAGE_SIZE, DMA_FROM_DEVICE);
	assert_memory_equal(buf, data, PAGE_SIZE);
	kfree_buf(buf, 0);
	fx_free(f);
}

/* Rule 4 through the API: a receive buffer sharing lines with CPU data loses its edges. */
static void test_shared_cache_line_loses_edges(void **state)
{
	struct fx *f = fx_new(NULL);
	u8 *buf = kbuf(f, 0), data[128];
	dma_addr_t h;

	(void)state;
	h = dma_map_single(&f->dev, buf + 8, sizeof(data), DMA_FROM_DEVICE);
	assert_false(dma_mapping_error(&f->dev, h));
	buf[0] = 0x77; /* the driver touches a neighbouring field while the device owns the buffer */
	memset(data, 0xab, sizeof(data));
	assert_int_equal(dmamap_dev_write(&f->dev, h, data, sizeof(data)), 0);
	dma_unmap_single(&f->dev, h, sizeof(data), DMA_FROM_DEVICE);
	assert_int_equal(buf[8], 0);          /* first 24 bytes lost to the CPU's line */
	assert_int_equal(buf[31], 0);
	assert_int_equal(buf[32], 0xab);
	assert_int_equal(buf[8 + sizeof(data) - 1], 0xab); /* the last line is whole: 136 is not, but nobody wrote it */
	assert_int_equal(buf[0], 0x77);
	/* and the checker says which bytes went, and why */
	assert_int_equal(f->cap.reports, 1);
	assert_int_equal(f->cap.rec_last.kind, DMAMAP_REPORT_SHARED_CACHELINE);
	assert_non_null(strstr(f->cap.rec_last.message, "bytes 0-0x17"));
	assert_non_null(strstr(f->cap.rec_last.message, "first cache line"));
	kfree_buf(buf, 0);
	fx_free(f);
}

/* DMA_ATTR_SKIP_CPU_SYNC: no maintenance at all, so the device sees stale data. */
static void test_skip_cpu_sync_does_no_maintenance(void **state)
{
	struct fx *f = fx_new(NULL);
	u8 *buf = kbuf(f, 0), got[64];
	struct dmamap_cache_stats st;
	DEFINE_DMA_ATTRS(attrs);
	dma_addr_t h;

	(void)state;
	dma_set_attr(DMA_ATTR_SKIP_CPU_SYNC, &attrs);
	fill_pattern(buf, sizeof(got), 40);
	h = dma_map_single_attrs(&f->dev, buf, sizeof(got), DMA_TO_DEVICE, &attrs);
	assert_false(dma_mapping_error(&f->dev, h));
	dmamap_cache_get_stats(f->m, &st);
	assert_int_equal(st.level[DMAMAP_CACHE_INNER].clean_ops + st.level[DMAMAP_CACHE_INNER].inv_ops +
				 st.level[DMAMAP_CACHE_INNER].flush_ops,
			 0);
	assert_int_equal(dmamap_dev_read(&f->dev, h, got, sizeof(got)), 0);
	assert_int_not_equal(check_pattern(got, sizeof(got), 40), 0);
	dma_unmap_single_attrs(&f->dev, h, sizeof(got), DMA_TO_DEVICE, &attrs);
	dmamap_cache_get_stats(f->m, &st);
	assert_int_equal(st.level[DMAMAP_CACHE_INNER].lines_invalidated, 0);
	kfree_buf(buf, 0);
	fx_free(f);
}

/* Per-device coherence and coherent machines: correct data, no maintenance counted. */
static void test_coherent_devices_need_no_maintenance(void **state)
{
	struct fx *f = fx_new(NULL);
	u8 *buf = kbuf(f, 0), got[256], data[256];
	struct dmamap_cache_stats st;
	dma_addr_t h;

	(void)state;
	f->dev.dma_coherent = true;
	fill_pattern(buf, sizeof(got), 50);
	h = dma_map_single(&f->dev, buf, sizeof(got), DMA_BIDIRECTIONAL);
	assert_false(dma_mapping_error(&f->dev, h));
	assert_int_equal(dmamap_dev_read(&f->dev, h, got, sizeof(got)), 0);
	assert_int_equal(check_pattern(got, sizeof(got), 50), 0);
	fill_pattern(data, sizeof(data), 51);
	assert_int_equal(dmamap_dev_write(&f->dev, h, data, sizeof(data)), 0);
	dma_unmap_single(&f->dev, h, sizeof(got), DMA_BIDIRECTIONAL);
	assert_int_equal(check_pattern(buf, sizeof(data), 51), 0);
	dmamap_cache_get_stats(f->m, &st);
	assert_int_equal(st.level[DMAMAP_CACHE_INNER].lines_cleaned + st.level[DMAMAP_CACHE_INNER].lines_invalidated, 0);
	kfree_buf(buf, 0);
	fx_free(f);

	f = fx_new(coherent_machine);
	buf = kbuf(f, 0);
	fill_pattern(buf, sizeof(got), 52);
	h = dma_map_single(&f->dev, buf, sizeof(got), DMA_TO_DEVICE);
	assert_false(dma_mapping_error(&f->dev, h));
	assert_int_equal(dmamap_dev_read(&f->dev, h, got, sizeof(got)), 0);
	assert_int_equal(check_pattern(got, sizeof(got), 52), 0);
	dma_unmap_single(&f->dev, h, sizeof(got), DMA_TO_DEVICE);
	dmamap_cache_get_stats(f->m, &st);
	assert_int_equal(st.level[DMAMAP_CACHE_INNER].lines_cleaned, 0);
	kfree_buf(buf, 0);
	fx_free(f);
}

/* Rule 5: a coherent allocation is seen by both sides at once, and is zeroed. */
static void test_alloc_coherent_visible_both_ways(void **state)
{
	struct fx *f = fx_new(with_outer_spec);
	u8 got[300], data[300], *cpu;
	unsigned long pfn;
	pgprot_t prot;
	dma_addr_t h;

	(void)state;
	cpu = dma_alloc_coherent(&f->dev, 3 * PAGE_SIZE, &h, GFP_KERNEL);
	assert_non_null(cpu);
	assert_true(dmamap_consistent_contains(f->m, cpu));
	for (size_t i = 0; i < 3 * PAGE_SIZE; i++)
		assert_int_equal(cpu[i], 0);
	assert_int_equal(dmamap_consistent_pte(f->m, cpu, &pfn, &prot), 0);
	assert_int_equal(pfn, PFN_DOWN(h));
	assert_int_equal(pgprot_memtype(prot), DMAMAP_MT_DMACOHERENT);
	/* and the device sees zeroes in RAM too: no dirty line will land on it later */
	assert_int_equal(dmamap_dev_read(&f->dev, h, got, sizeof(got)), 0);
	for (size_t i = 0; i < sizeof(got); i++)
		assert_int_equal(got[i], 0);

	fill_pattern(cpu + 100, sizeof(got), 60);
	assert_int_equal(dmamap_dev_read(&f->dev, h + 100, got, sizeof(got)), 0);
	assert_int_equal(check_pattern(got, sizeof(got), 60), 0);
	fill_pattern(data, sizeof(data), 61);
	assert_int_equal(dmamap_dev_write(&f->dev, h + 2 * PAGE_SIZE, data, sizeof(data)), 0);
	assert_int_equal(check_pattern(cpu + 2 * PAGE_SIZE, sizeof(data), 61), 0);
	dma_free_coherent(&f->dev, 3 * PAGE_SIZE, cpu, h);
	assert_int_equal(dmamap_consistent_pte(f->m, cpu, NULL, NULL), -ENOENT);
	assert_int_equal(f->cap.reports, 0);
	fx_free(f);
}

/* Each attribute's effect on the kernel mapping. */
static void test_alloc_attrs_effects(void **state)
{
	struct fx *f = fx_new(NULL);
	struct dmamap_page_stats before, after;
	DEFINE_DMA_ATTRS(wc);
	DEFINE_DMA_ATTRS(nokmap);
	DEFINE_DMA_ATTRS(noncons);
	pgprot_t prot;
	dma_addr_t h;
	void *p;
	u8 got[16];

	(void)state;
	dma_set_attr(DMA_ATTR_WRITE_COMBINE, &wc);
	dma_set_attr(DMA_ATTR_NO_KERNEL_MAPPING, &nokmap);
	dma_set_attr(DMA_ATTR_NON_CONSISTENT, &noncons);
	dmamap_page_stats(f->m, &before);

	p = dma_alloc_writecombine(&f->dev, PAGE_SIZE, &h, GFP_KERNEL);
	assert_non_null(p);
	assert_int_equal(dmamap_consistent_pte(f->m, p, NULL, &prot), 0);
	assert_int_equal(pgprot_memtype(prot), DMAMAP_MT_WRITECOMBINE);
	dma_free_writecombine(&f->dev, PAGE_SIZE, p, h);

	p = dma_alloc_attrs(&f->dev, 2 * PAGE_SIZE, &h, GFP_KERNEL, &nokmap);
	assert_non_null(p);
	assert_false(dmamap_consistent_contains(f->m, p)); /* no kernel mapping at all */
	assert_false(virt_addr_valid(p));
	assert_int_equal(dmamap_dev_fill(&f->dev, h, 0x5c, 16), 0);
	assert_int_equal(dmamap_dev_read(&f->dev, h, got, sizeof(got)), 0);
	assert_int_equal(got[15], 0x5c);
	dma_free_attrs(&f->dev, 2 * PAGE_SIZE, p, h, &nokmap);

	p = dma_alloc_attrs(&f->dev, PAGE_SIZE, &h, GFP_KERNEL, &noncons);
	assert_non_null(p);
	assert_true(virt_addr_valid(p)); /* cached: the linear map itself */
	assert_int_equal(virt_to_phys(p), h);
	memset(p, 0x42, 64);
	assert_int_equal(dmamap_dev_read(&f->dev, h, got, sizeof(got)), 0);
	assert_int_equal(got[0], 0); /* the driver must sync non-consistent memory */
	dma_sync_single_for_device(&f->dev, h, 64, DMA_TO_DEVICE);
	assert_int_equal(dmamap_dev_read(&f->dev, h, got, sizeof(got)), 0);
	assert_int_equal(got[0], 0x42);
	dma_free_attrs(&f->dev, PAGE_SIZE, p, h, &noncons);

	dmamap_page_stats(f->m, &after);
	assert_memory_equal(before.free_pages, after.free_pages, sizeof(before.free_pages));
	assert_int_equal(f->cap.reports, 0);
	fx_free(f);
}

/* mmap: the user sees the buffer's bytes, from vm_pgoff, with the buffer's protection; a vma past the end is refused. */
static void test_mmap_coherent(void **state)
{
	struct fx *f = fx_new(NULL);
	struct vm_area_struct *vma;
	unsigned long pfn;
	pgprot_t prot;
	dma_addr_t h, hwc;
	u8 *cpu, *wc;

	(void)state;
	cpu = dma_alloc_coherent(&f->dev, 4 * PAGE_SIZE, &h, GFP_KERNEL);
	assert_non_null(cpu);
	fill_pattern(cpu, 4 * PAGE_SIZE, 70);

	vma = dmamap_vma_create(f->m, 4 * PAGE_SIZE);
	assert_non_null(vma);
	assert_int_equal(dma_mmap_coherent(&f->dev, vma, cpu, h, 4 * PAGE_SIZE), 0);
	assert_memory_equal((void *)vma->vm_start, cpu, 4 * PAGE_SIZE);
	assert_int_equal(dmamap_vma_pte(vma, vma->vm_start, &pfn, &prot), 0);
	assert_int_equal(pfn, PFN_DOWN(h));
	assert_int_equal(pgprot_memtype(prot), DMAMAP_MT_DMACOHERENT);
	((u8 *)vma->vm_start)[5] = 0xee; /* the user's store reaches the buffer at once */
	assert_int_equal(cpu[5], 0xee);
	dmamap_vma_destroy(vma);

	/* a coherent buffer mapped as write-combining: said, and mapped as it was allocated */
	vma = dmamap_vma_create(f->m, 2 * PAGE_SIZE);
	vma->vm_pgoff = 2;
	assert_int_equal(dma_mmap_writecombine(&f->dev, vma, cpu, h, 4 * PAGE_SIZE), 0);
	assert_int_equal(f->cap.by_kind[DMAMAP_REPORT_ATTR_MISMATCH], 1);
	assert_memory_equal((void *)vma->vm_start, cpu + 2 * PAGE_SIZE, 2 * PAGE_SIZE);
	assert_int_equal(dmamap_vma_pte(vma, vma->vm_start, NULL, &prot), 0);
	assert_int_equal(pgprot_memtype(prot), DMAMAP_MT_DMACOHERENT);
	dmamap_vma_destroy(vma);

	/* a write-combining buffer's mapping is write-combining */
	wc = dma_alloc_writecombine(&f->dev, 4 * PAGE_SIZE, &hwc, GFP_KERNEL);
	assert_non_null(wc);
	fill_pattern(wc, 4 * PAGE_SIZE, 71);
	vma = dmamap_vma_create(f->m, 2 * PAGE_SIZE);
	vma->vm_pgoff = 2;
	assert_int_equal(dma_mmap_writecombine(&f->dev, vma, wc, hwc, 4 * PAGE_SIZE), 0);
	assert_memory_equal((void *)vma->vm_start, wc + 2 * PAGE_SIZE, 2 * PAGE_SIZE);
	assert_int_equal(dmamap_vma_pte(vma, vma->vm_start, NULL, &prot), 0);
	assert_int_equal(pgprot_memtype(prot), DMAMAP_MT_WRITECOMBINE);
	dmamap_vma_destroy(vma);
	dma_free_writecombine(&f->dev, 4 * PAGE_SIZE, wc, hwc);
	assert_int_equal(f->cap.reports, 1);

	vma = dmamap_vma_create(f->m, 3 * PAGE_SIZE);
	vma->vm_pgoff = 2;
	assert_int_equal(dma_mmap_coherent(&f->dev, vma, cpu, h, 4 * PAGE_SIZE), -ENXIO);
	assert_int_equal(dmamap_vma_pte(vma, vma->vm_start, NULL, NULL), -ENOENT);
	vma->vm_pgoff = 4;
	assert_int_equal(dma_mmap_coherent(&f->dev, vma, cpu, h, 4 * PAGE_SIZE), -ENXIO);
	dmamap_vma_destroy(vma);

	dma_free_coherent(&f->dev, 4 * PAGE_SIZE, cpu, h);
	fx_free(f);
}

/* Map @size bytes of the buffer at @cpu/@h into a new vma; return it, with the type and frame of its first page. */
static struct vm_area_struct *mmap_buffer(struct fx *f, struct device *dev, void *cpu, dma_addr_t h, size_t size,
					  bool wc, int *memtype, unsigned long *pfn)
{
	struct vm_area_struct *vma = dmamap_vma_create(f->m, size);
	pgprot_t prot;

	assert_non_null(vma);
	if (wc)
		assert_int_equal(dma_mmap_writecombine(dev, vma, cpu, h, size), 0);
	else
		assert_int_equal(dma_mmap_coherent(dev, vma, cpu, h, size), 0);
	assert_int_equal(dmamap_vma_pte(vma, vma->vm_start, pfn, &prot), 0);
	*memtype = pgprot_memtype(prot);
	return vma;
}

/*
 * A buffer from the device's declared memory is user-mapped with the type
 * its attrs ask for, as any other buffer is: the kernel's arm_dma_mmap()
 * sets the vma's protection from the attrs before dma_mmap_from_coherent()
 * maps declared memory with it, and arm_coherent_dma_mmap() leaves a
 * coherent device's as the caller made it. So a write-combining buffer's
 * mapping is write-combining and a coherent one's non-cacheable, both onto
 * the buffer's frames, showing its bytes and storing straight to it. With
 * the checker off other attrs than the allocation's are followed; with it
 * on they are reported and the buffer is mapped as allocated.
 */
static void test_mmap_declared_follows_attrs(void **state)
{
	struct fx *f = fx_new(NULL);
	struct page *decl = dmamap_alloc_pages(f->m, GFP_KERNEL, 2);
	struct dmamap_coherent_stats cs;
	struct device cdev = { 0 };
	struct vm_area_struct *vma;
	unsigned long pfn;
	dma_addr_t hc, hw, hd;
	u8 *coh, *wc, *cd;
	pgprot_t prot_nc;
	int mt;

	(void)state;
	assert_non_null(decl);
	assert_int_equal(dma_declare_coherent_memory(&f->dev, page_to_phys(decl), 0x10000000, 4 * PAGE_SIZE), 0);
	coh = dma_alloc_coherent(&f->dev, PAGE_SIZE, &hc, GFP_KERNEL);
	wc = dma_alloc_writecombine(&f->dev, 2 * PAGE_SIZE, &hw, GFP_KERNEL);
	assert_non_null(coh);
	assert_non_null(wc);
	dmamap_coherent_stats(f->m, &cs);
	assert_int_equal(cs.from_declared, 2);
	assert_true(hc >= 0x10000000 && hc < 0x10000000 + 4 * PAGE_SIZE);
	assert_true(hw >= 0x10000000 && hw < 0x10000000 + 4 * PAGE_SIZE);
	fill_pattern(coh, PAGE_SIZE, 81);
	fill_pattern(wc, 2 * PAGE_SIZE, 82);

	vma = mmap_buffer(f, &f->dev, wc, hw, 2 * PAGE_SIZE, true, &mt, &pfn);
	assert_int_equal(mt, DMAMAP_MT_WRITECOMBINE);
	assert_int_equal(pfn, PFN_DOWN(page_to_phys(decl) + (hw - 0x10000000)));
	assert_memory_equal((void *)vma->vm_start, wc, 2 * PAGE_SIZE);
	((u8 *)vma->vm_start)[PAGE_SIZE + 7] = 0xa5; /* the user's store reaches the buffer at once */
	assert_int_equal(wc[PAGE_SIZE + 7], 0xa5);
	dmamap_vma_destroy(vma);
	vma = mmap_buffer(f, &f->dev, coh, hc, PAGE_SIZE, false, &mt, &pfn);
	assert_int_equal(mt, DMAMAP_MT_DMACOHERENT);
	assert_int_equal(pfn, PFN_DOWN(page_to_phys(decl) + (hc - 0x10000000)));
	assert_memory_equal((void *)vma->vm_start, coh, PAGE_SIZE);
	dmamap_vma_destroy(vma);
	assert_int_equal(f->cap.reports, 0);

	/* the checker on: other attrs are said, and the buffer is mapped as it was allocated */
	vma = mmap_buffer(f, &f->dev, wc, hw, 2 * PAGE_SIZE, false, &mt, &pfn);
	assert_int_equal(f->cap.by_kind[DMAMAP_REPORT_ATTR_MISMATCH], 1);
	assert_int_equal(mt, DMAMAP_MT_WRITECOMBINE);
	dmamap_vma_destroy(vma);
	vma = mmap_buffer(f, &f->dev, coh, hc, PAGE_SIZE, true, &mt, &pfn);
	assert_int_equal(f->cap.by_kind[DMAMAP_REPORT_ATTR_MISMATCH], 2);
	assert_int_equal(mt, DMAMAP_MT_DMACOHERENT);
	dmamap_vma_destroy(vma);

	/* the checker off: the attrs given are followed, as for a buffer of pages */
	assert_int_equal(dmamap_checker_enable(f->m, false), 0);
	vma = mmap_buffer(f, &f->dev, coh, hc, PAGE_SIZE, true, &mt, &pfn);
	assert_int_equal(mt, DMAMAP_MT_WRITECOMBINE);
	assert_memory_equal((void *)vma->vm_start, coh, PAGE_SIZE);
	dmamap_vma_destroy(vma);
	vma = mmap_buffer(f, &f->dev, wc, hw, 2 * PAGE_SIZE, false, &mt, &pfn);
	assert_int_equal(mt, DMAMAP_MT_DMACOHERENT);
	dmamap_vma_destroy(vma);
	assert_int_equal(f->cap.reports, 2);
	dma_free_coherent(&f->dev, PAGE_SIZE, coh, hc);
	dma_free_writecombine(&f->dev, 2 * PAGE_SIZE, wc, hw);
	assert_int_equal(dmamap_checker_enable(f->m, true), 0);

	/* a non-consistent buffer from declared memory is uncached memory: mapped non-cacheable, not cached */
	{
		DEFINE_DMA_ATTRS(nc);
		void *buf;
		dma_addr_t hn;

		dma_set_attr(DMA_ATTR_NON_CONSISTENT, &nc);
		buf = dma_alloc_attrs(&f->dev, PAGE_SIZE, &hn, GFP_KERNEL, &nc);
		assert_non_null(buf);
		assert_true(hn >= 0x10000000 && hn < 0x10000000 + 4 * PAGE_SIZE);
		vma = dmamap_vma_create(f->m, PAGE_SIZE);
		assert_non_null(vma);
		assert_int_equal(dma_mmap_attrs(&f->dev, vma, buf, hn, PAGE_SIZE, &nc), 0);
		assert_int_equal(dmamap_vma_pte(vma, vma->vm_start, &pfn, &prot_nc), 0);
		assert_int_equal(pgprot_memtype(prot_nc), DMAMAP_MT_DMACOHERENT);
		assert_int_equal(pfn, PFN_DOWN(page_to_phys(decl) + (hn - 0x10000000)));
		dmamap_vma_destroy(vma);
		dma_free_attrs(&f->dev, PAGE_SIZE, buf, hn, &nc);
	}
	dma_release_declared_memory(&f->dev);

	/* a coherent device's mapping keeps the vma's own type, as its ops do for any buffer */
	assert_int_equal(dmamap_device_init(&cdev, f->m, "coherent"), 0);
	cdev.dma_coherent = true;
	assert_int_equal(dma_declare_coherent_memory(&cdev, page_to_phys(decl), 0x10000000, 4 * PAGE_SIZE), 0);
	cd = dma_alloc_coherent(&cdev, PAGE_SIZE, &hd, GFP_KERNEL);
	assert_non_null(cd);
	assert_true(hd == 0x10000000);
	vma = mmap_buffer(f, &cdev, cd, hd, PAGE_SIZE, false, &mt, &pfn);
	assert_int_equal(mt, pgprot_memtype(vma->vm_page_prot));
	assert_int_equal(mt, DMAMAP_MT_CACHED);
	assert_int_equal(pfn, PFN_DOWN(page_to_phys(decl)));
	dmamap_vma_destroy(vma);
	dma_free_coherent(&cdev, PAGE_SIZE, cd, hd);
	dma_release_declared_memory(&cdev);
	dmamap_device_release(&cdev);
	dmamap_free_pages(decl, 2);
	assert_int_equal(f->cap.reports, 2);
	fx_free(f);
}

static void zone_machine(struct dmamap_machine_config *c)
{
	c->ram_base = 0;
	c->dma_zone_limit = 4u << 20;
}

/* A device whose coherent mask covers only the DMA zone gets memory below it. */
static void test_masks_and_dma_zone(void **state)
{
	struct fx *f = fx_new(zone_machine);
	struct dmamap_page_stats before, after;
	u8 *hi, *cpu;
	dma_addr_t h;
	int i;

	(void)state;
	assert_int_equal(dma_set_coherent_mask(&f->dev, DMA_BIT_MASK(22)), 0);
	assert_int_equal(dma_set_mask(&f->dev, DMA_BIT_MASK(22)), 0);
	assert_int_equal(dma_set_mask(&f->dev, DMA_BIT_MASK(21)), -EIO);
	assert_int_equal(*f->dev.dma_mask, DMA_BIT_MASK(22));
	for (i = 0; i < 8; i++) {
		cpu = dma_alloc_coherent(&f->dev, 64 * PAGE_SIZE, &h, GFP_KERNEL);
		assert_non_null(cpu);
		assert_true(h + 64 * PAGE_SIZE <= (4u << 20));
		dma_free_coherent(&f->dev, 64 * PAGE_SIZE, cpu, h);
	}
	/* a streaming buffer above the mask cannot be mapped directly */
	hi = page_address(dmamap_alloc_pages(f->m, GFP_KERNEL, 0));
	assert_true(virt_to_phys(hi) >= (4u << 20));
	dmamap_page_stats(f->m, &before);
	h = dma_map_single(&f->dev, hi, 64, DMA_TO_DEVICE);
	assert_true(dma_mapping_error(&f->dev, h));
	assert_int_equal(f->cap.by_kind[DMAMAP_REPORT_API_MISUSE], 1);
	dmamap_page_stats(f->m, &after);
	assert_memory_equal(&before, &after, sizeof(before));
	kfree_buf(hi, 0);

	/* a coherent mask below the zone is refused for allocations */
	f->dev.coherent_dma_mask = DMA_BIT_MASK(20);
	assert_null(dma_alloc_coherent(&f->dev, PAGE_SIZE, &h, GFP_KERNEL));
	assert_int_equal(h, DMA_MAPPING_ERROR);
	assert_int_equal(f->cap.by_kind[DMAMAP_REPORT_API_MISUSE], 2);
	fx_free(f);
}

/* Where coherent memory comes from: declared, contiguous, atomic pool, pages. */
static void test_coherent_sources(void **state)
{
	struct fx *f = fx_new(NULL);
	struct dmamap_coherent_stats cs;
	struct page *decl = dmamap_alloc_pages(f->m, GFP_KERNEL, 2);
	void *a, *b, *c, *d, *e;
	dma_addr_t ha, hb, hc, hd, he;

	(void)state;
	assert_int_equal(dmamap_contiguous_reserve(f->m, 4u << 20), 0);
	assert_int_equal(dmamap_contiguous_reserve(f->m, 4u << 20), -EEXIST);
	assert_int_equal(dmamap_contiguous_reserve(f->m, 4096), -EINVAL);
	assert_int_equal(dma_declare_coherent_memory(&f->dev, page_to_phys(decl), 0x10000000, 4 * PAGE_SIZE), 0);
	assert_int_equal(dma_declare_coherent_memory(&f->dev, page_to_phys(decl), 0x10000000, 4 * PAGE_SIZE), -EBUSY);

	a = dma_alloc_coherent(&f->dev, 4 * PAGE_SIZE, &ha, GFP_KERNEL); /* declared, all of it */
	assert_non_null(a);
	assert_int_equal(ha, 0x10000000);
	/* the device reaches it at its bus address, not at the physical one */
	{
		u8 got[8];

		memset((u8 *)a + 3 * PAGE_SIZE, 0x3c, PAGE_SIZE);
		assert_int_equal(dmamap_dev_read(&f->dev, ha + 4 * PAGE_SIZE - 8, got, 8), 0);
		assert_int_equal(got[7], 0x3c);
		assert_int_equal(dmamap_dev_write(&f->dev, ha + 5, "dev", 3), 0);
		assert_memory_equal((u8 *)a + 5, "dev", 3);
		assert_int_equal(f->cap.reports, 0);
	}
	b = dma_alloc_coherent(&f->dev, PAGE_SIZE, &hb, GFP_KERNEL); /* declared is full: falls through */
	assert_non_null(b);
	assert_int_not_equal(hb & 0xf0000000, 0x10000000);
	c = dma_alloc_coherent(&f->dev, 64 * PAGE_SIZE, &hc, GFP_KERNEL); /* large: contiguous area */
	assert_non_null(c);
	d = dma_alloc_coherent(&f->dev, 2 * PAGE_SIZE, &hd, GFP_ATOMIC); /* atomic pool */
	assert_non_null(d);
	assert_int_equal(dmamap_dev_fill(&f->dev, hd, 0x66, 8), 0);
	assert_int_equal(((u8 *)d)[7], 0x66);
	e = dma_alloc_coherent(&f->dev, 32 * PAGE_SIZE, &he, GFP_ATOMIC); /* the pool's second half */
	assert_non_null(e);

	dmamap_coherent_stats(f->m, &cs);
	assert_int_equal(cs.from_declared, 1);
	assert_int_equal(cs.from_pages, 1);
	assert_int_equal(cs.from_contiguous, 1);
	assert_int_equal(cs.from_atomic_pool, 2);
	assert_int_equal(cs.contiguous_size, 4u << 20);
	assert_int_equal(cs.contiguous_free, (4u << 20) - 64 * PAGE_SIZE);
	assert_int_equal(cs.atomic_pool_size, 256u << 10);
	assert_int_equal(cs.atomic_pool_free, (256u << 10) - 34 * PAGE_SIZE);
	/* 30 pages are free but no aligned run of 32: the next such atomic request fails cleanly */
	{
		dma_addr_t hf;

		assert_null(dma_alloc_coherent(&f->dev, 32 * PAGE_SIZE, &hf, GFP_ATOMIC));
		assert_int_equal(hf, DMA_MAPPING_ERROR);
	}

	dma_free_coherent(&f->dev, 32 * PAGE_SIZE, e, he);
	dma_free_coherent(&f->dev, 2 * PAGE_SIZE, d, hd);
	dma_free_coherent(&f->dev, 64 * PAGE_SIZE, c, hc);
	dma_free_coherent(&f->dev, PAGE_SIZE, b, hb);
	dma_free_coherent(&f->dev, 4 * PAGE_SIZE, a, ha);
	dmamap_coherent_stats(f->m, &cs);
	assert_int_equal(cs.contiguous_free, 4u << 20);
	assert_int_equal(cs.atomic_pool_free, 256u << 10);
	dma_release_declared_memory(&f->dev);
	dmamap_free_pages(decl, 2);
	assert_int_equal(f->cap.reports, 0);
	fx_free(f);
}

/* A free that does not name the contiguous-area allocation exactly is refused. */
static void test_contiguous_free_must_match(void **state)
{
	struct fx *f = fx_new(NULL);
	struct dmamap_coherent_stats before, after;
	struct dmamap_page_stats pb, pa;
	DEFINE_DMA_ATTRS(nokmap);
	dma_addr_t h;
	void *p;

	(void)state;
	dma_set_attr(DMA_ATTR_NO_KERNEL_MAPPING, &nokmap);
	assert_int_equal(dmamap_contiguous_reserve(f->m, 4u << 20), 0);
	p = dma_alloc_attrs(&f->dev, 64 * PAGE_SIZE, &h, GFP_KERNEL, &nokmap);
	assert_non_null(p);
	dmamap_coherent_stats(f->m, &before);
	dmamap_page_stats(f->m, &pb);
	assert_int_equal(before.from_contiguous, 1);
	dma_free_attrs(&f->dev, 32 * PAGE_SIZE, p, h, &nokmap); /* half of it */
	assert_int_equal(f->cap.by_kind[DMAMAP_REPORT_API_MISUSE], 1);
	dmamap_coherent_stats(f->m, &after);
	dmamap_page_stats(f->m, &pa);
	assert_int_equal(after.contiguous_free, before.contiguous_free);
	assert_memory_equal(pb.free_pages, pa.free_pages, sizeof(pb.free_pages));
	dma_free_attrs(&f->dev, 64 * PAGE_SIZE, p, h, &nokmap);
	dmamap_coherent_stats(f->m, &after);
	assert_int_equal(after.contiguous_free, 4u << 20);
	fx_free(f);
}

/* Every allocation step failing unwinds to exactly the state before. */
static void test_alloc_failures_unwind(void **state)
{
	struct fx *f = fx_new(NULL);
	struct dmamap_page_stats before, after;
	struct dmamap_consistent_stats cb, ca;
	enum dmamap_fault_site sites[] = { DMAMAP_FAULT_PAGE_ALLOC, DMAMAP_FAULT_REMAP };
	dma_addr_t h;

	(void)state;
	for (unsigned s = 0; s < ARRAY_SIZE(sites); s++) {
		for (unsigned long nth = 1; nth <= 2; nth++) {
			dmamap_page_stats(f->m, &before);
			dmamap_consistent_stats(f->m, &cb);
			assert_int_equal(dmamap_fault_inject(f->m, sites[s], nth, 0), 0);
			void *p = dma_alloc_coherent(&f->dev, 5 * PAGE_SIZE, &h, GFP_KERNEL);
			assert_int_equal(dmamap_fault_inject(f->m, sites[s], 0, 0), 0);
			if (p) { /* the nth attempt was not reached by this allocation */
				dma_free_coherent(&f->dev, 5 * PAGE_SIZE, p, h);
				continue;
			}
			assert_int_equal(h, DMA_MAPPING_ERROR);
			dmamap_page_stats(f->m, &after);
			dmamap_consistent_stats(f->m, &ca);
			assert_memory_equal(before.free_pages, after.free_pages, sizeof(before.free_pages));
			assert_int_equal(cb.used, ca.used);
			assert_int_equal(cb.regions, ca.regions);
		}
	}
	assert_true(dmamap_fault_injected(f->m, DMAMAP_FAULT_PAGE_ALLOC) >= 1);
	assert_true(dmamap_fault_injected(f->m, DMAMAP_FAULT_REMAP) >= 1);
	fx_free(f);
}

/* Freeing with a handle that is not the allocation's is refused; nothing is freed. */
static void test_free_mismatch_refused(void **state)
{
	struct fx *f = fx_new(NULL);
	struct dmamap_page_stats before, after;
	dma_addr_t h;
	void *p;

	(void)state;
	p = dma_alloc_coherent(&f->dev, 2 * PAGE_SIZE, &h, GFP_KERNEL);
	assert_non_null(p);
	dmamap_page_stats(f->m, &before);
	dma_free_coherent(&f->dev, 2 * PAGE_SIZE, p, h + PAGE_SIZE);
	dma_free_coherent(&f->dev, 2 * PAGE_SIZE, (u8 *)p + PAGE_SIZE, h);
	dma_free_coherent(&f->dev, PAGE_SIZE, p, h);
	dma_free_coherent(&f->dev, 2 * PAGE_SIZE, p, 0x1000); /* not RAM at all */
	assert_int_equal(f->cap.reports, 4);
	dmamap_page_stats(f->m, &after);
	assert_memory_equal(&before, &after, sizeof(before));
	assert_int_equal(dmamap_consistent_pte(f->m, p, NULL, NULL), 0); /* still mapped */
	dma_free_coherent(&f->dev, 2 * PAGE_SIZE, p, h);
	fx_free(f);
}

static void test_get_sgtable(void **state)
{
	struct fx *f = fx_new(NULL);
	struct sg_table sgt;
	dma_addr_t h;
	void *p;

	(void)state;
	p = dma_alloc_coherent(&f->dev, 3 * PAGE_SIZE, &h, GFP_KERNEL);
	assert_int_equal(dma_get_sgtable(&f->dev, &sgt, p, h, 3 * PAGE_SIZE), 0);
	assert_int_equal(sgt.orig_nents, 1);
	assert_int_equal(sg_phys(sgt.sgl), h);
	assert_int_equal(sgt.sgl->length, 3 * PAGE_SIZE);
	sg_free_table(&sgt);
	dma_free_coherent(&f->dev, 3 * PAGE_SIZE, p, h);
	fx_free(f);
}

/*
 * A buffer served from declared memory is a coherent buffer like any other:
 * its table is one entry of its own pages, checker on or off; a call naming
 * no live allocation there is refused with -ENXIO and a report.
 */
static void test_get_sgtable_declared(void **state)
{
	struct fx *f = fx_new(NULL);
	struct page *decl = dmamap_alloc_pages(f->m, GFP_KERNEL, 2);
	struct sg_table sgt, untouched;
	dma_addr_t h1, h2;
	void *p1, *p2;

	(void)state;
	assert_non_null(decl);
	assert_int_equal(dma_declare_coherent_memory(&f->dev, page_to_phys(decl), 0x10000000, 4 * PAGE_SIZE), 0);
	p1 = dma_alloc_coherent(&f->dev, PAGE_SIZE, &h1, GFP_KERNEL);
	p2 = dma_alloc_coherent(&f->dev, 2 * PAGE_SIZE, &h2, GFP_KERNEL);
	assert_non_null(p1);
	assert_non_null(p2);
	assert_int_equal(h1, 0x10000000);
	assert_int_equal(h2, 0x10000000 + 2 * PAGE_SIZE);

	for (int on = 1; on >= 0; on--) {
		unsigned long reports;

		assert_int_equal(dmamap_checker_enable(f->m, on), 0);
		reports = f->cap.reports;
		assert_int_equal(dma_get_sgtable(&f->dev, &sgt, p2, h2, 2 * PAGE_SIZE), 0);
		assert_int_equal(sgt.orig_nents, 1);
		assert_int_equal(sg_phys(sgt.sgl), page_to_phys(decl) + 2 * PAGE_SIZE);
		assert_int_equal(sgt.sgl->offset, 0);
		assert_int_equal(sgt.sgl->length, 2 * PAGE_SIZE);
		sg_free_table(&sgt);
		/* a part from the start, as for any coherent buffer */
		assert_int_equal(dma_get_sgtable(&f->dev, &sgt, p2, h2, 100), 0);
		assert_int_equal(sg_phys(sgt.sgl), page_to_phys(decl) + 2 * PAGE_SIZE);
		assert_int_equal(sgt.sgl->length, PAGE_SIZE);
		sg_free_table(&sgt);
		assert_int_equal(dma_get_sgtable(&f->dev, &sgt, p1, h1, PAGE_SIZE), 0);
		assert_int_equal(sg_phys(sgt.sgl), page_to_phys(decl));
		sg_free_table(&sgt);
		assert_int_equal(f->cap.reports, reports);
	}

	/* checker off, the ops themselves refuse what names no live allocation: nothing made */
	memset(&untouched, 0x5a, sizeof(untouched));
	{
		const struct {
			void *cpu;
			dma_addr_t h;
			size_t size;
		} bad[] = {
			{ p2, h2, 3 * PAGE_SIZE },                       /* larger than the buffer */
			{ p2, h1, 2 * PAGE_SIZE },                       /* another buffer's handle */
			{ (u8 *)p2 + PAGE_SIZE, h2 + PAGE_SIZE, 100 },   /* inside it */
			{ (u8 *)p2 + 64, h2 + 64, 64 },
		};

		for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			unsigned long misuse = f->cap.by_kind[DMAMAP_REPORT_API_MISUSE];

			memcpy(&sgt, &untouched, sizeof(sgt));
			assert_int_equal(dma_get_sgtable(&f->dev, &sgt, bad[i].cpu, bad[i].h, bad[i].size), -ENXIO);
			assert_int_equal(f->cap.by_kind[DMAMAP_REPORT_API_MISUSE], misuse + 1);
			assert_memory_equal(&sgt, &untouched, sizeof(sgt));
		}
	}
	dma_free_coherent(&f->dev, PAGE_SIZE, p1, h1);
	memcpy(&sgt, &untouched, sizeof(sgt));
	assert_int_equal(dma_get_sgtable(&f->dev, &sgt, p1, h1, PAGE_SIZE), -ENXIO); /* freed */
	assert_memory_equal(&sgt, &untouched, sizeof(sgt));
	dma_free_coherent(&f->dev, 2 * PAGE_SIZE, p2, h2);
	assert_int_equal(dmamap_checker_enable(f->m, true), 0); /* both freed: nothing untracked is live */
	dma_release_declared_memory(&f->dev);
	dmamap_free_pages(decl, 2);
	fx_free(f);
}

/*
 * Declared memory's bus range may end at the last bus address, not wrap
 * past it: a wrapping one is refused with nothing changed, and one that
 * ends exactly at 2^64 - 1 serves buffers that free as any other.
 */
static void test_declare_bus_range_at_the_top(void **state)
{
	struct fx *f = fx_new(NULL);
	struct page *decl = dmamap_alloc_pages(f->m, GFP_KERNEL, 2);
	const struct {
		dma_addr_t bus;
		size_t size;
	} wrap[] = {
		{ 0xfffffffffffff000ULL, 2 * PAGE_SIZE },  /* wraps to 0x1000 */
		{ 0xffffffffffffe000ULL, 3 * PAGE_SIZE },  /* one page too many */
		{ 0xfffffffffffff000ULL, 4 * PAGE_SIZE },
	};
	struct dmamap_coherent_stats cs0, cs1;
	dma_addr_t h1, h2, h3;
	void *p1, *p2, *p3;
	unsigned long free0, before;
	u8 got[PAGE_SIZE];

	(void)state;
	assert_non_null(decl);
	free0 = test_free_pages(f->m);
	for (size_t i = 0; i < sizeof(wrap) / sizeof(wrap[0]); i++) {
		unsigned long bad = f->cap.by_kind[DMAMAP_REPORT_BAD_INPUT], reports = f->cap.reports;

		assert_int_equal(dma_declare_coherent_memory(&f->dev, page_to_phys(decl), wrap[i].bus, wrap[i].size),
				 -EINVAL);
		assert_int_equal(f->cap.reports, reports + 1);
		assert_int_equal(f->cap.by_kind[DMAMAP_REPORT_BAD_INPUT], bad + 1);
		assert_null(f->dev.dma_mem);
		assert_int_equal(test_free_pages(f->m), free0);
	}
	/* nothing declared: an allocation comes from the pages */
	dmamap_coherent_stats(f->m, &cs0);
	p1 = dma_alloc_coherent(&f->dev, PAGE_SIZE, &h1, GFP_KERNEL);
	assert_non_null(p1);
	dmamap_coherent_stats(f->m, &cs1);
	assert_int_equal(cs1.from_declared, cs0.from_declared);
	assert_int_equal(cs1.from_pages, cs0.from_pages + 1);
	dma_free_coherent(&f->dev, PAGE_SIZE, p1, h1);

	/* the largest range that does not wrap: its last byte is at 2^64 - 1 */
	assert_int_equal(dma_declare_coherent_memory(&f->dev, page_to_phys(decl), 0xffffffffffffc000ULL, 4 * PAGE_SIZE),
			 0);
	p1 = dma_alloc_coherent(&f->dev, 2 * PAGE_SIZE, &h1, GFP_KERNEL);
	p2 = dma_alloc_coherent(&f->dev, PAGE_SIZE, &h2, GFP_KERNEL);
	p3 = dma_alloc_coherent(&f->dev, PAGE_SIZE, &h3, GFP_KERNEL);
	assert_non_null(p1);
	assert_non_null(p2);
	assert_non_null(p3);
	assert_int_equal(h1, 0xffffffffffffc000ULL);
	assert_int_equal(h2, 0xffffffffffffe000ULL);
	assert_int_equal(h3, 0xfffffffffffff000ULL);
	dmamap_coherent_stats(f->m, &cs1);
	assert_int_equal(cs1.from_declared, cs0.from_declared + 3);
	/* a device with a 64-bit mask reaches the last page, and the checker follows it to the last byte */
	assert_int_equal(dma_set_mask_and_coherent(&f->dev, DMA_BIT_MASK(64)), 0);
	before = f->cap.reports;
	assert_int_equal(dmamap_dev_write(&f->dev, h3 + PAGE_SIZE - 3, "top", 3), 0);
	assert_memory_equal((u8 *)p3 + PAGE_SIZE - 3, "top", 3);
	assert_int_equal(f->cap.reports, before);
	dma_free_coherent(&f->dev, PAGE_SIZE, p3, h3);
	assert_int_equal(dmamap_dev_read(&f->dev, h3, got, sizeof(got)), 0); /* after the free */
	assert_int_equal(f->cap.reports, before + 1);
	assert_int_equal(f->cap.rec_last.kind, DMAMAP_REPORT_DEV_UNMAPPED);
	p3 = dma_alloc_coherent(&f->dev, PAGE_SIZE, &h3, GFP_KERNEL);
	assert_non_null(p3);
	assert_int_equal(h3, 0xfffffffffffff000ULL);
	dma_free_coherent(&f->dev, PAGE_SIZE, p3, h3);
	dma_free_coherent(&f->dev, PAGE_SIZE, p2, h2);
	dma_free_coherent(&f->dev, 2 * PAGE_SIZE, p1, h1);
	p3 = dma_alloc_coherent(&f->dev, 4 * PAGE_SIZE, &h3, GFP_KERNEL); /* all of it again: all were freed */
	assert_non_null(p3);
	assert_int_equal(h3, 0xffffffffffffc000ULL);
	dma_free_coherent(&f->dev, 4 * PAGE_SIZE, p3, h3);
	assert_int_equal(f->cap.by_kind[DMAMAP_REPORT_API_MISUSE], 0);
	assert_int_equal(stats_live_coherent(f->m), 0);
	dma_release_declared_memory(&f->dev);
	dmamap_free_pages(decl, 2);
	assert_int_equal(f->cap.by_kind[DMAMAP_REPORT_LEAK], 0);
	fx_free(f);
}

/* dma_pfn_offset: the bus address is the physical one minus the offset. */
static void test_pfn_offset(void **state)
{
	struct fx *f = fx_new(NULL);
	u8 *buf = kbuf(f, 0), got[32];
	dma_addr_t h;

	(void)state;
	f->dev.dma_pfn_offset = 0x40000; /* RAM at 0x40000000 appears at bus 0 */
	fill_pattern(buf, sizeof(got), 80);
	h = dma_map_single(&f->dev, buf, sizeof(got), DMA_TO_DEVICE);
	assert_false(dma_mapping_error(&f->dev, h));
	assert_int_equal(h, virt_to_phys(buf) - 0x40000000);
	assert_int_equal(dmamap_dev_read(&f->dev, h, got, sizeof(got)), 0);
	assert_int_equal(check_pattern(got, sizeof(got), 80), 0);
	dma_unmap_single(&f->dev, h, sizeof(got), DMA_TO_DEVICE);
	kfree_buf(buf, 0);
	fx_free(f);
}

/* ----------------------------------------------- coherent frees and sizes */

/* What a refused call must leave alone: free pages, the consistent region, the coherent sources. */
struct snap {
	unsigned long free_pages[DMAMAP_ZONE_NR];
	struct dmamap_consistent_stats cons;
	size_t pool_free, cma_free;
};

static void snap_take(struct dmamap_machine *m, struct snap *s)
{
	struct dmamap_page_stats ps;
	struct dmamap_coherent_stats cs;

	memset(s, 0, sizeof(*s));
	dmamap_page_stats(m, &ps);
	memcpy(s->free_pages, ps.free_pages, sizeof(s->free_pages));
	dmamap_consistent_stats(m, &s->cons);
	s->cons.failures = 0;
	dmamap_coherent_stats(m, &cs);
	s->pool_free = cs.atomic_pool_free;
	s->cma_free = cs.contiguous_free;
}

static void assert_unchanged(struct dmamap_machine *m, const struct snap *before)
{
	struct snap now;

	snap_take(m, &now);
	assert_memory_equal(before, &now, sizeof(now));
	assert_machine_consistent(m);
}

/*
 * A size within a page of SIZE_MAX cannot be rounded up to pages: refused
 * whatever the attributes and context, and nothing is handed out: not a free
 * page, not a live atomic-pool buffer.
 */
static void test_alloc_size_that_cannot_be_rounded(void **state)
{
	struct fx *f = fx_new(NULL);
	const size_t sizes[] = { SIZE_MAX, SIZE_MAX - 1, SIZE_MAX - (PAGE_SIZE - 2) };
	const enum dma_attr kinds[] = { DMA_ATTR_WRITE_BARRIER, DMA_ATTR_NON_CONSISTENT, DMA_ATTR_NO_KERNEL_MAPPING };
	const gfp_t gfps[] = { GFP_KERNEL, GFP_ATOMIC };
	dma_addr_t live_h, h, h1, h2;
	unsigned long reports = 0;
	void *live, *p1, *p2;
	struct snap before;

	(void)state;
	live = dma_alloc_coherent(&f->dev, PAGE_SIZE, &live_h, GFP_ATOMIC);
	assert_non_null(live);
	memset(live, 0x3c, PAGE_SIZE);
	snap_take(f->m, &before);
	for (unsigned i = 0; i < ARRAY_SIZE(sizes); i++) {
		for (unsigned k = 0; k < ARRAY_SIZE(kinds); k++) {
			for (unsigned g = 0; g < ARRAY_SIZE(gfps); g++) {
				DEFINE_DMA_ATTRS(attrs);

				dma_set_attr(kinds[k], &attrs);
				h = 0;
				assert_null(dma_alloc_attrs(&f->dev, sizes[i], &h, gfps[g], &attrs));
				assert_int_equal(h, DMA_MAPPING_ERROR);
				assert_int_equal(f->cap.by_kind[DMAMAP_REPORT_BAD_INPUT], ++reports);
				assert_unchanged(f->m, &before);
			}
		}
	}
	/* the live pool buffer kept its bytes and its length: only its own free takes it */
	for (unsigned i = 0; i < PAGE_SIZE; i++)
		assert_int_equal(((u8 *)live)[i], 0x3c);
	dma_free_coherent(&f->dev, 2 * PAGE_SIZE, live, live_h);
	assert_int_equal(f->cap.by_kind[DMAMAP_REPORT_API_MISUSE], 1);
	dma_free_coherent(&f->dev, PAGE_SIZE, live, live_h);
	assert_int_equal(f->cap.reports, reports + 1);

	/* a size that rounds but no machine can hold fails plainly, without a report */
	assert_null(dma_alloc_coherent(&f->dev, SIZE_MAX - PAGE_SIZE, &h, GFP_KERNEL));
	assert_null(dma_alloc_coherent(&f->dev, (size_t)1 << 42, &h, GFP_ATOMIC));
	assert_int_equal(f->cap.reports, reports + 1);

	/* the allocator still hands out distinct frames */
	p1 = dma_alloc_coherent(&f->dev, PAGE_SIZE, &h1, GFP_KERNEL);
	p2 = dma_alloc_coherent(&f->dev, PAGE_SIZE, &h2, GFP_KERNEL);
	assert_non_null(p1);
	assert_non_null(p2);
	assert_int_not_equal(h1, h2);
	dma_free_coherent(&f->dev, PAGE_SIZE, p1, h1);
	dma_free_coherent(&f->dev, PAGE_SIZE, p2, h2);
	assert_int_equal(f->cap.reports, reports + 1);
	fx_free(f);
}

/* Run @fn with the DMA-API checker on, then off: a misuse is reported once either way. */
static void both_checker_modes(struct fx *f, void (*fn)(struct fx *f))
{
	for (int on = 1; on >= 0; on--) {
		assert_int_equal(dmamap_checker_enable(f->m, on), 0);
		fn(f);
	}
	assert_int_equal(dmamap_checker_enable(f->m, true), 0);
}

/*
 * Cached (or device-coherent) and NO_KERNEL_MAPPING buffers have no kernel
 * mapping to carry their size: a free larger than the buffer, a second free,
 * and a free after the pages went to someone else are each reported once and
 * free nothing.
 */
static void bad_frees_of_unmapped_buffers(struct fx *f)
{
	const enum dma_attr kinds[] = { DMA_ATTR_NON_CONSISTENT, DMA_ATTR_NO_KERNEL_MAPPING };

	for (unsigned k = 0; k < ARRAY_SIZE(kinds); k++) {
		DEFINE_DMA_ATTRS(attrs);
		struct snap before;
		struct page *other;
		dma_addr_t h;
		void *p;

		dma_set_attr(kinds[k], &attrs);
		f->cap.reports = 0;
		p = dma_alloc_attrs(&f->dev, 2 * PAGE_SIZE, &h, GFP_KERNEL, &attrs);
		assert_non_null(p);
		snap_take(f->m, &before);
		dma_free_attrs(&f->dev, 3 * PAGE_SIZE, p, h, &attrs); /* one page more than it has */
		assert_int_equal(f->cap.reports, 1);
		assert_unchanged(f->m, &before);
		dma_free_attrs(&f->dev, 2 * PAGE_SIZE, p, h, &attrs);
		assert_int_equal(f->cap.reports, 1);

		/* the same buffer again: nothing left to free */
		snap_take(f->m, &before);
		dma_free_attrs(&f->dev, 2 * PAGE_SIZE, p, h, &attrs);
		assert_int_equal(f->cap.reports, 2);
		assert_unchanged(f->m, &before);

		/* the frame now belongs to someone else: a stale free must not take it */
		other = dmamap_alloc_pages(f->m, GFP_KERNEL, 1);
		assert_non_null(other);
		snap_take(f->m, &before);
		dma_free_attrs(&f->dev, 2 * PAGE_SIZE, page_to_phys(other) == h ? p : p, page_to_phys(other), &attrs);
		assert_int_equal(f->cap.reports, 3);
		assert_unchanged(f->m, &before);
		assert_int_equal(page_count(other), 1);
		dmamap_free_pages(other, 1);
	}
}

static void test_free_of_unmapped_buffer_must_match(void **state)
{
	struct fx *f = fx_new(NULL);

	(void)state;
	both_checker_modes(f, bad_frees_of_unmapped_buffers);
	fx_free(f);
}

/*
 * The atomic pool and declared memory keep their own records: a free with the
 * handle of another allocation, or through another device of the machine, is
 * reported once and frees nothing; so is a buffer of the page allocator freed
 * through another device.
 */
static void bad_frees_of_pool_and_declared(struct fx *f)
{
	struct device other = { 0 };
	struct page *decl = dmamap_alloc_pages(f->m, GFP_KERNEL, 2);
	void *a, *b, *d1, *d2, *pg;
	dma_addr_t ha, hb, hd1, hd2, hpg;
	struct snap before;

	assert_non_null(decl);
	assert_int_equal(dmamap_device_init(&other, f->m, "other"), 0);
	a = dma_alloc_coherent(&f->dev, PAGE_SIZE, &ha, GFP_ATOMIC);
	b = dma_alloc_coherent(&f->dev, PAGE_SIZE, &hb, GFP_ATOMIC);
	/* declared memory serves every later allocation that fits in it */
	assert_int_equal(dma_declare_coherent_memory(&f->dev, page_to_phys(decl), 0x20000000, 4 * PAGE_SIZE), 0);
	d1 = dma_alloc_coherent(&f->dev, PAGE_SIZE, &hd1, GFP_KERNEL);
	d2 = dma_alloc_coherent(&f->dev, PAGE_SIZE, &hd2, GFP_KERNEL);
	dma_release_declared_memory(&other); /* nothing declared there: a no-op */
	assert_non_null(a);
	assert_non_null(b);
	assert_non_null(d1);
	assert_non_null(d2);
	assert_int_equal(hd1 & 0xf0000000, 0x20000000);
	f->cap.reports = 0;
	snap_take(f->m, &before);

	dma_free_coherent(&f->dev, PAGE_SIZE, a, hb); /* the pool: another allocation's handle */
	assert_int_equal(f->cap.reports, 1);
	dma_free_coherent(&f->dev, PAGE_SIZE, d1, hd2); /* declared memory: likewise */
	assert_int_equal(f->cap.reports, 2);
	dma_free_coherent(&other, PAGE_SIZE, a, ha); /* the pool, through another device */
	assert_int_equal(f->cap.reports, 3);
	assert_unchanged(f->m, &before);
	{
		u8 probe = 0x5a;

		/* both pool buffers still reach the device */
		memset(a, 0x11, PAGE_SIZE);
		assert_int_equal(dmamap_dev_read(&f->dev, ha, &probe, 1), 0);
		assert_int_equal(probe, 0x11);
	}

	/* a buffer of pages, through another device */
	pg = dma_alloc_coherent(&f->dev, 64 * PAGE_SIZE, &hpg, GFP_KERNEL); /* too big for declared memory */
	assert_non_null(pg);
	snap_take(f->m, &before);
	dma_free_coherent(&other, 64 * PAGE_SIZE, pg, hpg);
	assert_int_equal(f->cap.reports, 4);
	assert_unchanged(f->m, &before);

	dma_free_coherent(&f->dev, 64 * PAGE_SIZE, pg, hpg);
	dma_free_coherent(&f->dev, PAGE_SIZE, d2, hd2);
	dma_free_coherent(&f->dev, PAGE_SIZE, d1, hd1);
	dma_free_coherent(&f->dev, PAGE_SIZE, b, hb);
	dma_free_coherent(&f->dev, PAGE_SIZE, a, ha);
	assert_int_equal(f->cap.reports, 4);
	dma_release_declared_memory(&f->dev);
	dmamap_device_release(&other);
	dmamap_free_pages(decl, 2);
}

static void test_free_with_wrong_handle_or_device(void **state)
{
	struct fx *f = fx_new(NULL);

	(void)state;
	both_checker_modes(f, bad_frees_of_pool_and_declared);
	fx_free(f);
}

/* Unknown gfp bits are refused as the page allocator refuses them, in atomic context too. */
static void test_alloc_unknown_gfp_refused(void **state)
{
	struct fx *f = fx_new(NULL);
	const gfp_t bad[] = { GFP_KERNEL | 0x40000000u, GFP_ATOMIC | 0x4u, 0x80000000u };
	struct snap before;
	dma_addr_t h;

	(void)state;
	snap_take(f->m, &before);
	for (unsigned i = 0; i < ARRAY_SIZE(bad); i++) {
		assert_null(dma_alloc_coherent(&f->dev, PAGE_SIZE, &h, bad[i]));
		assert_int_equal(h, DMA_MAPPING_ERROR);
		assert_int_equal(f->cap.by_kind[DMAMAP_REPORT_BAD_INPUT], i + 1);
		assert_unchanged(f->m, &before);
	}
	assert_int_equal(f->cap.reports, ARRAY_SIZE(bad));
	fx_free(f);
}

/*
 * Coherent buffers the driver leaves at device release are given back,
 * reported once each by the DMA-API checker, or all in one report without it.
 */
static void leftover_buffers(struct fx *f)
{
	bool checker = dmamap_checker_enabled(f->m);
	struct snap before;
	dma_addr_t h1, h2;
	DEFINE_DMA_ATTRS(nokmap);

	dma_set_attr(DMA_ATTR_NO_KERNEL_MAPPING, &nokmap);
	snap_take(f->m, &before);
	f->cap.by_kind[DMAMAP_REPORT_LEAK] = 0;
	assert_non_null(dma_alloc_coherent(&f->dev, 3 * PAGE_SIZE, &h1, GFP_KERNEL));
	assert_non_null(dma_alloc_attrs(&f->dev, PAGE_SIZE, &h2, GFP_KERNEL, &nokmap));
	assert_non_null(dma_alloc_coherent(&f->dev, PAGE_SIZE, &h2, GFP_ATOMIC));
	dmamap_device_release(&f->dev);
	assert_int_equal(f->cap.by_kind[DMAMAP_REPORT_LEAK], checker ? 3 : 1);
	if (!checker)
		assert_non_null(strstr(f->cap.last, "3 coherent buffers (5 pages)"));
	assert_unchanged(f->m, &before);
	assert_int_equal(dmamap_device_init(&f->dev, f->m, "armdev"), 0);
}

static void test_release_frees_leftover_buffers(void **state)
{
	struct fx *f = fx_new(NULL);

	(void)state;
	both_checker_modes(f, leftover_buffers);
	fx_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_to_device_map_makes_data_visible),
		cmocka_unit_test(test_to_device_without_map_is_stale),
		cmocka_unit_test(test_from_device_unmap_makes_data_visible),
		cmocka_unit_test(test_from_device_without_unmap_is_stale),
		cmocka_unit_test(test_sync_single_round_trips),
		cmocka_unit_test(test_sync_range_covers_only_the_range),
		cmocka_unit_test(test_shared_cache_line_loses_edges),
		cmocka_unit_test(test_skip_cpu_sync_does_no_maintenance),
		cmocka_unit_test(test_coherent_devices_need_no_maintenance),
		cmocka_unit_test(test_alloc_coherent_visible_both_ways),
		cmocka_unit_test(test_alloc_attrs_effects),
		cmocka_unit_test(test_mmap_coherent),
		cmocka_unit_test(test_masks_and_dma_zone),
		cmocka_unit_test(test_coherent_sources),
		cmocka_unit_test(test_contiguous_free_must_match),
		cmocka_unit_test(test_alloc_failures_unwind),
		cmocka_unit_test(test_free_mismatch_refused),
		cmocka_unit_test(test_get_sgtable),
		cmocka_unit_test(test_mmap_declared_follows_attrs),
		cmocka_unit_test(test_get_sgtable_declared),
		cmocka_unit_test(test_declare_bus_range_at_the_top),
		cmocka_unit_test(test_pfn_offset),
		cmocka_unit_test(test_alloc_size_that_cannot_be_rounded),
		cmocka_unit_test(test_free_of_unmapped_buffer_must_match),
		cmocka_unit_test(test_free_with_wrong_handle_or_device),
		cmocka_unit_test(test_alloc_unknown_gfp_refused),
		cmocka_unit_test(test_release_frees_leftover_buffers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
