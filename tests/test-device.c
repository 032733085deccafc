/* SPDX-License-Identifier: MIT */
/*
 * struct device and the bus side (<dmamap/device.h>): init defaults, names,
 * refusals, release, and what a device reads and writes: bus = phys,
 * dma_pfn_offset, DMA masks, RAM bounds, stale CPU caches for a non-coherent
 * device and snooping for a coherent one.
 */
#include "common.h"
#include "internal.h"

#define MiB (1ULL << 20)
#define BASE 0x40000000ULL
#define PG ((size_t)PAGE_SIZE)

struct fx {
	struct dmamap_machine *m;
	struct device dev;
	struct page *page; /* order 1, CPU view 0x11, written back: RAM == CPU view, lines cached clean */
	phys_addr_t pa;
	u8 *va;
};

static void settle(struct dmamap_machine *m, struct page *p, size_t len, int c)
{
	memset(page_address(p), c, len);
	dmamap_cache_clean(m, DMAMAP_CACHE_INNER, page_to_phys(p), len);
}

static void (*fx_tweak)(struct dmamap_machine_config *cfg);

/*
 * The bus is studied against RAM and the inner cache alone: these machines
 * start simple (no outer cache, no prefetch), then take the test's tweak.
 */
static void simple_then_tweak(struct dmamap_machine_config *cfg)
{
	simple_machine(cfg);
	if (fx_tweak)
		fx_tweak(cfg);
}

static struct fx *fx_new(void (*tweak)(struct dmamap_machine_config *cfg))
{
	struct fx *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	fx_tweak = tweak;
	f->m = test_machine(16, simple_then_tweak);
	/* the bus itself, at physical addresses, nothing mapped: no checker */
	assert_int_equal(dmamap_checker_enable(f->m, false), 0);
	assert_int_equal(dmamap_device_init(&f->dev, f->m, "busdev"), 0);
	f->page = dmamap_alloc_pages(f->m, GFP_KERNEL, 1);
	assert_non_null(f->page);
	f->pa = page_to_phys(f->page);
	f->va = page_address(f->page);
	settle(f->m, f->page, 2 * PG, 0x11);
	return f;
}

static void fx_free(struct fx *f)
{
	struct capture c;

	dmamap_set_log_handler(NULL, NULL, NULL);
	dmamap_free_pages(f->page, 1);
	if (dmamap_dev_machine(&f->dev))
		dmamap_device_release(&f->dev);
	capture_start(&c, f->m);
	test_machine_destroy(f->m);
	free(f);
	assert_int_equal(c.by_kind[DMAMAP_REPORT_LEAK], 0);
}

static int setup(void **state)
{
	*state = fx_new(NULL);
	return 0;
}

static int teardown(void **state)
{
	fx_free(*state);
	dmamap_machine_set_current(NULL);
	return 0;
}

static const u8 *ram_at(struct fx *f, phys_addr_t pa)
{
	return f->m->ram + (pa - BASE);
}

static struct dmamap_cache_stats cache_stats(struct dmamap_machine *m)
{
	struct dmamap_cache_stats st;

	dmamap_cache_get_stats(m, &st);
	return st;
}

/* ------------------------------------------------------------- init */

static void test_init_defaults(void **state)
{
	struct fx *f = *state;
	struct device dev;
	unsigned long r0 = dmamap_report_count(f->m);

	/* zeroed, then the driver-visible fields scribbled on: init overwrites every one */
	memset(&dev, 0, sizeof(dev));
	dev.dma_mask = (u64 *)(uintptr_t)0x1234;
	dev.coherent_dma_mask = 5;
	dev.dma_parms = (struct device_dma_parameters *)(uintptr_t)0x5678;
	dev.dma_pfn_offset = 77;
	dev.dma_coherent = true;
	dev.archdata.dma_ops = (const struct dma_map_ops *)(uintptr_t)0x9abc;
	dev.archdata.iommu_priv = &dev;
	dev.dma_mem = (struct dma_coherent_mem *)(uintptr_t)0xdef0;
	dev.driver_data = &dev;
	assert_int_equal(dmamap_device_init(&dev, f->m, "uart0"), 0);
	assert_non_null(dev.dma_mask);
	assert_true((char *)dev.dma_mask >= (char *)&dev && (char *)dev.dma_mask < (char *)(&dev + 1));
	assert_int_equal(*dev.dma_mask, DMA_BIT_MASK(32));
	assert_int_equal(dev.coherent_dma_mask, DMA_BIT_MASK(32));
	assert_non_null(dev.dma_parms);
	assert_true((char *)dev.dma_parms >= (char *)&dev && (char *)dev.dma_parms < (char *)(&dev + 1));
	assert_int_equal(dev.dma_parms->max_segment_size, 65536);
	assert_int_equal(dev.dma_parms->segment_boundary_mask, 0xffffffffUL);
	assert_int_equal(dev.dma_pfn_offset, 0);
	assert_false(dev.dma_coherent);
	assert_null(dev.archdata.dma_ops); /* NULL: the device's default ops ... */
	assert_ptr_equal(get_dma_ops(&dev), &arm_dma_ops); /* ... which the platform made arm_dma_ops */
	assert_null(dev.archdata.dmabounce);
	assert_null(dev.archdata.iommu_priv);
	assert_null(dev.archdata.mapping);
	assert_null(dev.dma_mem);
	assert_null(dev.driver_data);
	assert_string_equal(dev_name(&dev), "uart0");
	assert_ptr_equal(dmamap_dev_machine(&dev), f->m);
	assert_int_equal(dmamap_report_count(f->m), r0);

	/* the masks and parameters are the device's own */
	*dev.dma_mask = DMA_BIT_MASK(24);
	dev.dma_parms->max_segment_size = 4096;
	assert_int_equal(*f->dev.dma_mask, DMA_BIT_MASK(32));
	assert_int_equal(f->dev.dma_parms->max_segment_size, 65536);

	dev_set_drvdata(&dev, f);
	assert_ptr_equal(dev_get_drvdata(&dev), f);
	dmamap_device_release(&dev);
	assert_int_equal(dmamap_report_count(f->m), r0);
}

static void test_init_names(void **state)
{
	struct fx *f = *state;
	struct device dev = { 0 };
	char longname[100], exact[48];

	assert_int_equal(dmamap_device_init(&dev, f->m, NULL), 0);
	assert_string_equal(dev_name(&dev), "dmamap-dev");
	dmamap_device_release(&dev);

	memset(longname, 'n', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	longname[0] = 'L';
	assert_int_equal(dmamap_device_init(&dev, f->m, longname), 0);
	assert_int_equal(strlen(dev_name(&dev)), DMAMAP_DEV_NAME_MAX - 1);
	assert_int_equal(strncmp(dev_name(&dev), longname, DMAMAP_DEV_NAME_MAX - 1), 0);
	/* copied: the caller's buffer may change */
	longname[1] = 'X';
	assert_int_equal(dev_name(&dev)[1], 'n');
	dmamap_device_release(&dev);

	memset(exact, 'e', sizeof(exact) - 1);
	exact[sizeof(exact) - 1] = '\0';
	assert_int_equal(dmamap_device_init(&dev, f->m, exact), 0);
	assert_string_equal(dev_name(&dev), exact);
	dmamap_device_release(&dev);

	assert_int_equal(dmamap_device_init(&dev, f->m, ""), 0);
	assert_string_equal(dev_name(&dev), "");
	dmamap_device_release(&dev);
}

static void test_dev_name_and_machine_of_nothing(void **state)
{
	struct device dev = { 0 };
	(void)state;

	assert_string_equal(dev_name(NULL), "(null device)");
	memset(&dev, 0, sizeof(dev));
	assert_string_equal(dev_name(&dev), "(uninitialised device)");
	assert_null(dmamap_dev_machine(NULL));
	assert_null(dmamap_dev_machine(&dev));
}

/*
 * A device that was never initialised -- here full of garbage, its pointers
 * pointing nowhere -- is refused by every call that takes a device, each
 * reported, and not one byte of it is read through or written.
 */
static void test_garbage_device_refused_everywhere(void **state)
{
	struct fx *f = *state;
	struct device dev, copy;
	struct scatterlist sg;
	struct capture c;
	dma_addr_t h;
	u8 b[4];
	unsigned long n = 0;

	memset(&dev, 0xa5, sizeof(dev));
	memcpy(&copy, &dev, sizeof(dev));
	sg_init_one(&sg, page_address(dmamap_phys_to_page(f->m, f->pa)), 16);
	capture_start(&c, NULL);
	assert_int_equal(dma_get_mask(&dev), DMA_BIT_MASK(32));
	assert_int_equal(c.by_kind[DMAMAP_REPORT_BAD_INPUT], ++n);
	assert_int_equal(dma_get_max_seg_size(&dev), 65536);
	assert_int_equal(c.by_kind[DMAMAP_REPORT_BAD_INPUT], ++n);
	assert_int_equal(dma_set_max_seg_size(&dev, 4096), -EIO);
	assert_int_equal(c.by_kind[DMAMAP_REPORT_BAD_INPUT], ++n);
	assert_true(dma_get_seg_boundary(&dev) == 0xffffffffUL);
	assert_int_equal(c.by_kind[DMAMAP_REPORT_BAD_INPUT], ++n);
	assert_int_equal(dma_set_seg_boundary(&dev, 0xfff), -EIO);
	assert_int_equal(c.by_kind[DMAMAP_REPORT_BAD_INPUT], ++n);
	assert_int_equal(dma_set_mask(&dev, DMA_BIT_MASK(32)), -EIO);
	assert_int_equal(dma_set_coherent_mask(&dev, DMA_BIT_MASK(32)), -EIO);
	assert_int_equal(dma_supported(&dev, DMA_BIT_MASK(32)), 0);
	assert_null(get_dma_ops(&dev));
	set_dma_ops(&dev, &arm_dma_ops);
	assert_true(dma_mapping_error(&dev, 0x1000));
	h = dma_map_single(&dev, sg_virt(&sg), 16, DMA_TO_DEVICE);
	assert_int_equal(h, DMA_MAPPING_ERROR);
	dma_unmap_single(&dev, 0x1000, 16, DMA_TO_DEVICE);
	dma_sync_single_for_cpu(&dev, 0x1000, 16, DMA_FROM_DEVICE);
	assert_int_equal(dma_map_sg(&dev, &sg, 1, DMA_TO_DEVICE), 0);
	assert_null(dma_alloc_coherent(&dev, PAGE_SIZE, &h, GFP_KERNEL));
	assert_int_equal(dmamap_dev_read(&dev, 0x1000, b, sizeof(b)), -EINVAL);
	assert_null(dma_pool_create("p", &dev, 64, 8, 0));
	assert_int_equal(dmabounce_register_dev(&dev, 512, 0, NULL), -EINVAL);
	assert_int_equal(arm_iommu_attach_device(&dev, NULL), -EINVAL);
	assert_int_equal(dma_declare_coherent_memory(&dev, f->pa, 0, PAGE_SIZE), -EINVAL);
	dma_release_declared_memory(&dev);
	dmamap_device_release(&dev);
	assert_string_equal(dev_name(&dev), "(uninitialised device)");
	assert_null(dmamap_dev_machine(&dev));
	assert_int_equal(c.reports, 22);
	assert_int_equal(c.by_kind[DMAMAP_REPORT_BAD_INPUT], 22);
	capture_stop(NULL);
	assert_memory_equal(&dev, &copy, sizeof(dev));
	assert_int_equal(dmamap_report_count(f->m), 0);
}

static void test_init_null_machine_uses_current(void **state)
{
	struct fx *f = *state;
	struct device dev = { 0 };

	dmamap_machine_set_current(f->m);
	assert_int_equal(dmamap_device_init(&dev, NULL, "cur"), 0);
	assert_ptr_equal(dmamap_dev_machine(&dev), f->m);
	dmamap_device_release(&dev);
	dmamap_machine_set_current(NULL);
}

static void test_init_refusals(void **state)
{
	struct fx *f = *state;
	struct dmamap_machine *other = test_machine(16, simple_machine);
	struct capture c;

	/* already initialised: -EBUSY, nothing changed */
	*f->dev.dma_mask = DMA_BIT_MASK(28);
	f->dev.dma_pfn_offset = 3;
	capture_start(&c, f->m);
	assert_int_equal(dmamap_device_init(&f->dev, other, "renamed"), -EBUSY);
	assert_int_equal(dmamap_device_init(&f->dev, f->m, NULL), -EBUSY);
	capture_stop(f->m);
	assert_int_equal(c.by_kind[DMAMAP_REPORT_BAD_INPUT], 2);
	assert_string_equal(c.last_device, "busdev");
	assert_string_equal(dev_name(&f->dev), "busdev");
	assert_ptr_equal(dmamap_dev_machine(&f->dev), f->m);
	assert_int_equal(*f->dev.dma_mask, DMA_BIT_MASK(28));
	assert_int_equal(f->dev.dma_pfn_offset, 3);
	assert_int_equal(dmamap_report_count(other), 0);
	f->dev.dma_pfn_offset = 0;
	*f->dev.dma_mask = DMA_BIT_MASK(32);

	/* NULL device: -EINVAL, reported */
	capture_start(&c, f->m);
	assert_int_equal(dmamap_device_init(NULL, f->m, "x"), -EINVAL);
	capture_stop(f->m);
	assert_int_equal(c.by_kind[DMAMAP_REPORT_BAD_INPUT], 1);

	/* the other machine has no device: destroying it reports nothing */
	capture_start(&c, other);
	test_machine_destroy(other);
	assert_int_equal(c.reports, 0);
}

static void test_release_and_reinit(void **state)
{
	struct fx *f = *state;
	struct device dev = { 0 }, never;
	struct capture cg;
	u8 b[8] = { 0 };

	assert_int_equal(dmamap_device_init(&dev, f->m, "cycle"), 0);
	assert_int_equal(dmamap_dev_read(&dev, f->pa, b, sizeof(b)), 0);
	dmamap_device_release(&dev);
	assert_string_equal(dev_name(&dev), "(uninitialised device)");
	assert_null(dmamap_dev_machine(&dev));
	assert_null(dev.dma_mask);
	/* a released device is not on the bus any more */
	capture_start(&cg, NULL);
	assert_int_equal(dmamap_dev_read(&dev, f->pa, b, sizeof(b)), -EINVAL);
	capture_stop(NULL);
	assert_int_equal(cg.by_kind[DMAMAP_REPORT_BAD_INPUT], 1);

	/* releasing again, releasing a device never initialised, releasing NULL: reported process-wide */
	memset(&never, 0, sizeof(never));
	capture_start(&cg, NULL);
	dmamap_device_release(&dev);
	dmamap_device_release(&never);
	dmamap_device_release(NULL);
	capture_stop(NULL);
	assert_int_equal(cg.reports, 3);
	assert_int_equal(cg.by_kind[DMAMAP_REPORT_BAD_INPUT], 3);

	/* and it can be initialised again, on another name, with what the driver changed reset */
	dev.dma_pfn_offset = 9;
	dev.dma_coherent = true;
	dev.coherent_dma_mask = DMA_BIT_MASK(20);
	assert_int_equal(dmamap_device_init(&dev, f->m, "cycle2"), 0);
	assert_string_equal(dev_name(&dev), "cycle2");
	assert_int_equal(*dev.dma_mask, DMA_BIT_MASK(32));
	assert_int_equal(dev.coherent_dma_mask, DMA_BIT_MASK(32));
	assert_int_equal(dev.dma_pfn_offset, 0);
	assert_false(dev.dma_coherent);
	assert_int_equal(dmamap_dev_read(&dev, f->pa, b, sizeof(b)), 0);
	assert_int_equal(b[0], 0x11);
	dmamap_device_release(&dev);
}

/* The machine's device list: release from the middle, the head, the tail; destroy reports only the rest. */
static void test_release_order_and_destroy(void **state)
{
	struct dmamap_machine *m = test_machine(16, simple_machine);
	struct device d[5] = { { 0 } };
	struct capture c;
	(void)state;

	for (int i = 0; i < 5; i++) {
		char name[16];

		snprintf(name, sizeof(name), "d%d", i);
		assert_int_equal(dmamap_device_init(&d[i], m, name), 0);
	}
	dmamap_device_release(&d[2]);
	dmamap_device_release(&d[4]); /* the list's head (the last initialised) */
	dmamap_device_release(&d[0]); /* its tail */
	assert_int_equal(dmamap_device_init(&d[2], m, "d2-again"), 0);
	assert_int_equal(dmamap_report_count(m), 0);

	capture_start(&c, m);
	test_machine_destroy(m);
	assert_int_equal(c.by_kind[DMAMAP_REPORT_LEAK], 3); /* d1, d3, d2-again */
	assert_null(dmamap_dev_machine(&d[1]));
	assert_null(dmamap_dev_machine(&d[2]));
	assert_null(dmamap_dev_machine(&d[3]));
}

/* ------------------------------------------------------------- the bus */

static void test_bus_address_is_phys(void **state)
{
	struct fx *f = *state;
	u8 buf[256], got[256];
	struct dmamap_cache_stats cs0 = cache_stats(f->m), cs;

	/* read: RAM at the physical address */
	memset(got, 0, sizeof(got));
	assert_int_equal(dmamap_dev_read(&f->dev, f->pa + 100, got, sizeof(got)), 0);
	for (size_t i = 0; i < sizeof(got); i++)
		assert_int_equal(got[i], 0x11);

	/* write: RAM changes at the physical address, exactly there */
	fill_pattern(buf, sizeof(buf), 7);
	assert_int_equal(dmamap_dev_write(&f->dev, f->pa + 100, buf, sizeof(buf)), 0);
	assert_int_equal(memcmp(ram_at(f, f->pa + 100), buf, sizeof(buf)), 0);
	assert_int_equal(*ram_at(f, f->pa + 99), 0x11);
	assert_int_equal(*ram_at(f, f->pa + 100 + sizeof(buf)), 0x11);
	assert_int_equal(dmamap_dev_read(&f->dev, f->pa + 100, got, sizeof(got)), 0);
	assert_int_equal(memcmp(got, buf, sizeof(buf)), 0);

	/* fill */
	assert_int_equal(dmamap_dev_fill(&f->dev, f->pa + PG - 10, 0xc3, 20), 0);
	assert_int_equal(*ram_at(f, f->pa + PG - 11), 0x11);
	for (size_t i = 0; i < 20; i++)
		assert_int_equal(*ram_at(f, f->pa + PG - 10 + i), 0xc3);
	assert_int_equal(*ram_at(f, f->pa + PG + 10), 0x11);

	/* the first and the last byte of RAM are reachable */
	assert_int_equal(dmamap_dev_read(&f->dev, BASE, got, 1), 0);
	assert_int_equal(dmamap_dev_read(&f->dev, BASE + 16 * MiB - 16, got, 16), 0);

	cs = cache_stats(f->m);
	assert_int_equal(cs.device_bytes_read - cs0.device_bytes_read, 2 * sizeof(got) + 1 + 16);
	assert_int_equal(cs.device_bytes_written - cs0.device_bytes_written, sizeof(buf) + 20);
	assert_int_equal(dmamap_report_count(f->m), 0);
}

static void test_noncoherent_cpu_view_goes_stale(void **state)
{
	struct fx *f = *state;
	u8 buf[64], got[64];

	/* The CPU holds the lines (clean): the device's write leaves them stale. */
	assert_int_equal(dmamap_cache_line_state(f->m, DMAMAP_CACHE_INNER, f->pa), DMAMAP_LINE_CLEAN);
	fill_pattern(buf, sizeof(buf), 21);
	assert_int_equal(dmamap_dev_write(&f->dev, f->pa, buf, sizeof(buf)), 0);
	for (size_t i = 0; i < sizeof(buf); i++)
		assert_int_equal(f->va[i], 0x11);
	/* after an invalidate, the CPU sees what the device wrote */
	dmamap_cache_inv(f->m, DMAMAP_CACHE_INNER, f->pa, sizeof(buf));
	assert_int_equal(memcmp(f->va, buf, sizeof(buf)), 0);
	/* a line the CPU does not hold (just invalidated) mirrors RAM: a new write shows at once */
	fill_pattern(buf, sizeof(buf), 22);
	assert_int_equal(dmamap_dev_write(&f->dev, f->pa, buf, sizeof(buf)), 0);
	assert_int_equal(memcmp(f->va, buf, sizeof(buf)), 0);
	/* its neighbours, still cached, stay stale */
	assert_int_equal(dmamap_dev_fill(&f->dev, f->pa + 64, 0x99, 64), 0);
	assert_int_equal(f->va[64], 0x11);
	assert_int_equal(f->va[127], 0x11);

	/* The other way: a CPU store does not reach the device until cleaned. */
	memset(f->va + PG, 0x7e, 64);
	assert_int_equal(dmamap_dev_read(&f->dev, f->pa + PG, got, sizeof(got)), 0);
	for (size_t i = 0; i < sizeof(got); i++)
		assert_int_equal(got[i], 0x11);
	dmamap_cache_clean(f->m, DMAMAP_CACHE_INNER, f->pa + PG, 64);
	assert_int_equal(dmamap_dev_read(&f->dev, f->pa + PG, got, sizeof(got)), 0);
	for (size_t i = 0; i < sizeof(got); i++)
		assert_int_equal(got[i], 0x7e);
}

static void check_snooping(struct fx *f, struct device *dev)
{
	u8 buf[96], got[96];

	/* the CPU stores, no maintenance: the device reads the CPU's data */
	fill_pattern(f->va + 32, sizeof(buf), 81);
	assert_int_equal(dmamap_dev_read(dev, f->pa + 32, got, sizeof(got)), 0);
	assert_int_equal(check_pattern(got, sizeof(got), 81), 0);
	/* the device writes: the CPU sees it at once, though it held the lines */
	fill_pattern(buf, sizeof(buf), 82);
	assert_int_equal(dmamap_dev_write(dev, f->pa + PG + 8, buf, sizeof(buf)), 0);
	assert_int_equal(check_pattern(f->va + PG + 8, sizeof(buf), 82), 0);
	assert_int_equal(f->va[PG + 7], 0x11);
	assert_int_equal(f->va[PG + 8 + sizeof(buf)], 0x11);
	assert_int_equal(dmamap_dev_fill(dev, f->pa + 2 * PG - 4, 0x42, 4), 0);
	assert_int_equal(f->va[2 * PG - 1], 0x42);
	assert_int_equal(f->va[2 * PG - 5], 0x11);
}

static void test_coherent_device_snoops(void **state)
{
	struct fx *f = *state;
	struct device cdev = { 0 };
	u8 got[96];

	assert_int_equal(dmamap_device_init(&cdev, f->m, "coherent"), 0);
	cdev.dma_coherent = true;
	check_snooping(f, &cdev);
	/* a non-coherent device on the same machine reads RAM: the old bytes */
	assert_int_equal(dmamap_dev_read(&f->dev, f->pa + 32, got, sizeof(got)), 0);
	for (size_t i = 0; i < sizeof(got); i++)
		assert_int_equal(got[i], 0x11);
	dmamap_device_release(&cdev);
	assert_int_equal(dmamap_report_count(f->m), 0);
}

static void coherent_machine(struct dmamap_machine_config *cfg)
{
	cfg->coherent = true;
}

static void test_coherent_machine_snoops(void **state)
{
	struct fx *f = fx_new(coherent_machine);
	(void)state;

	assert_false(f->dev.dma_coherent);
	check_snooping(f, &f->dev);
	assert_int_equal(dmamap_report_count(f->m), 0);
	fx_free(f);
}

/* ------------------------------------------------------------- refusals */

/* A refused bus access: -EFAULT, one DEVICE_FAULT report naming the device, nothing read or written. */
static void expect_fault(struct fx *f, struct device *dev, dma_addr_t addr, size_t len)
{
	struct dmamap_cache_stats cs0 = cache_stats(f->m), cs;
	u8 *dst = malloc(len), *src = malloc(len);
	u8 *ram_copy = malloc(16 * MiB);
	struct capture c;

	assert_non_null(dst);
	assert_non_null(src);
	assert_non_null(ram_copy);
	memset(dst, 0x5a, len);
	memset(src, 0xe1, len);
	memcpy(ram_copy, f->m->ram, 16 * MiB);
	capture_start(&c, f->m);
	assert_int_equal(dmamap_dev_read(dev, addr, dst, len), -EFAULT);
	assert_int_equal(dmamap_dev_write(dev, addr, src, len), -EFAULT);
	assert_int_equal(dmamap_dev_fill(dev, addr, 0xe2, len), -EFAULT);
	capture_stop(f->m);
	assert_int_equal(c.reports, 3);
	assert_int_equal(c.by_kind[DMAMAP_REPORT_DEVICE_FAULT], 3);
	assert_string_equal(c.last_device, dev_name(dev));
	for (size_t i = 0; i < len; i++)
		assert_int_equal(dst[i], 0x5a);
	assert_int_equal(memcmp(ram_copy, f->m->ram, 16 * MiB), 0);
	cs = cache_stats(f->m);
	assert_int_equal(cs.device_bytes_read, cs0.device_bytes_read);
	assert_int_equal(cs.device_bytes_written, cs0.device_bytes_written);
	free(dst);
	free(src);
	free(ram_copy);
}

static void test_beyond_dma_mask(void **state)
{
	struct fx *f = *state;
	u8 got[16];

	/* RAM is at 1 GiB: a 24-bit device reaches none of it */
	*f->dev.dma_mask = DMA_BIT_MASK(24);
	expect_fault(f, &f->dev, f->pa, 64);
	expect_fault(f, &f->dev, BASE, 1);
	/* an address within the mask but not RAM faults too */
	expect_fault(f, &f->dev, 0x1000, 16);
	*f->dev.dma_mask = DMA_BIT_MASK(32);
	assert_int_equal(dmamap_dev_read(&f->dev, f->pa, got, sizeof(got)), 0);
	assert_int_equal(got[0], 0x11);
	/* a 30-bit mask ends exactly below RAM */
	*f->dev.dma_mask = DMA_BIT_MASK(30);
	expect_fault(f, &f->dev, BASE, 16);
	*f->dev.dma_mask = DMA_BIT_MASK(32);
}

static void across_4g(struct dmamap_machine_config *cfg)
{
	cfg->ram_base = 0xfff00000ULL; /* RAM straddles 4 GiB */
}

static void test_range_straddling_the_mask(void **state)
{
	struct fx *f = fx_new(across_4g);
	u8 got[32];
	(void)state;

	memset(got, 0, sizeof(got));
	/* the last 32 bytes below 4 GiB are fine, 16 bytes further is not */
	assert_int_equal(dmamap_dev_read(&f->dev, 0xffffffe0ULL, got, 32), 0);
	{
		struct capture c;

		capture_start(&c, f->m);
		memset(got, 0x5a, sizeof(got));
		assert_int_equal(dmamap_dev_read(&f->dev, 0xfffffff0ULL, got, 32), -EFAULT);
		assert_int_equal(dmamap_dev_write(&f->dev, 0xfffffff0ULL, got, 32), -EFAULT);
		assert_int_equal(dmamap_dev_read(&f->dev, 0x100000000ULL, got, 1), -EFAULT);
		capture_stop(f->m);
		assert_int_equal(c.by_kind[DMAMAP_REPORT_DEVICE_FAULT], 3);
		for (size_t i = 0; i < sizeof(got); i++)
			assert_int_equal(got[i], 0x5a);
	}
	/* a 64-bit mask reaches across */
	*f->dev.dma_mask = DMA_BIT_MASK(64);
	fill_pattern(got, sizeof(got), 3);
	assert_int_equal(dmamap_dev_write(&f->dev, 0xfffffff0ULL, got, 32), 0);
	assert_int_equal(check_pattern(f->m->ram + (0xfffffff0ULL - 0xfff00000ULL), 32, 3), 0);
	assert_int_equal(dmamap_report_count(f->m), 3);
	*f->dev.dma_mask = DMA_BIT_MASK(32);
	fx_free(f);
}

static void test_outside_ram(void **state)
{
	struct fx *f = *state;
	const phys_addr_t end = BASE + 16 * MiB;

	*f->dev.dma_mask = DMA_BIT_MASK(64);
	expect_fault(f, &f->dev, BASE - PG, 16);       /* below */
	expect_fault(f, &f->dev, BASE - 8, 16);        /* straddles the start */
	expect_fault(f, &f->dev, end, 1);              /* just past the end */
	expect_fault(f, &f->dev, end - 8, 16);         /* straddles the end */
	expect_fault(f, &f->dev, 0, 64);
	expect_fault(f, &f->dev, ~(dma_addr_t)0 - 3, 8); /* wraps around 2^64 */
	expect_fault(f, &f->dev, ~(dma_addr_t)0, 1);
	*f->dev.dma_mask = DMA_BIT_MASK(32);
}

static void test_bad_arguments(void **state)
{
	struct fx *f = *state;
	struct dmamap_cache_stats cs0 = cache_stats(f->m), cs;
	struct device uninit;
	struct capture c, cg;
	u8 b[8];

	memset(b, 0x5a, sizeof(b));
	memset(&uninit, 0, sizeof(uninit));
	capture_start(&c, f->m);
	capture_start(&cg, NULL);
	assert_int_equal(dmamap_dev_read(&f->dev, f->pa, b, 0), -EINVAL);
	assert_int_equal(dmamap_dev_read(&f->dev, f->pa, NULL, 8), -EINVAL);
	assert_int_equal(dmamap_dev_write(&f->dev, f->pa, b, 0), -EINVAL);
	assert_int_equal(dmamap_dev_write(&f->dev, f->pa, NULL, 8), -EINVAL);
	assert_int_equal(dmamap_dev_fill(&f->dev, f->pa, 0, 0), -EINVAL);
	assert_int_equal(c.by_kind[DMAMAP_REPORT_BAD_INPUT], 5);
	assert_string_equal(c.last_device, "busdev");
	assert_int_equal(dmamap_dev_read(NULL, f->pa, b, 8), -EINVAL);
	assert_int_equal(dmamap_dev_write(NULL, f->pa, b, 8), -EINVAL);
	assert_int_equal(dmamap_dev_fill(NULL, f->pa, 0, 8), -EINVAL);
	assert_int_equal(dmamap_dev_read(&uninit, f->pa, b, 8), -EINVAL);
	assert_int_equal(dmamap_dev_write(&uninit, f->pa, b, 8), -EINVAL);
	assert_int_equal(cg.by_kind[DMAMAP_REPORT_BAD_INPUT], 5);
	capture_stop(f->m);
	capture_stop(NULL);
	assert_int_equal(c.reports, 5);
	for (size_t i = 0; i < sizeof(b); i++)
		assert_int_equal(b[i], 0x5a);
	for (size_t i = 0; i < 64; i++)
		assert_int_equal(*ram_at(f, f->pa + i), 0x11);
	cs = cache_stats(f->m);
	assert_int_equal(cs.device_bytes_read, cs0.device_bytes_read);
	assert_int_equal(cs.device_bytes_written, cs0.device_bytes_written);
}

static void test_dma_pfn_offset(void **state)
{
	struct fx *f = *state;
	const unsigned long off = BASE >> PAGE_SHIFT; /* the bus sees RAM at 0 */
	u8 buf[32], got[32];

	f->dev.dma_pfn_offset = off;
	fill_pattern(buf, sizeof(buf), 91);
	/* bus = phys - offset pages */
	assert_int_equal(dmamap_dev_write(&f->dev, f->pa - BASE, buf, sizeof(buf)), 0);
	assert_int_equal(memcmp(ram_at(f, f->pa), buf, sizeof(buf)), 0);
	memset(got, 0, sizeof(got));
	assert_int_equal(dmamap_dev_read(&f->dev, f->pa - BASE, got, sizeof(got)), 0);
	assert_int_equal(memcmp(got, buf, sizeof(buf)), 0);
	/* now a 24-bit device reaches the first 16 MiB of RAM, i.e. all of it */
	*f->dev.dma_mask = DMA_BIT_MASK(24);
	assert_int_equal(dmamap_dev_read(&f->dev, 0, got, 1), 0);
	assert_int_equal(dmamap_dev_read(&f->dev, 16 * MiB - 8, got, 8), 0);
	/* the physical address itself is no bus address of RAM for this device any more */
	*f->dev.dma_mask = DMA_BIT_MASK(64);
	expect_fault(f, &f->dev, f->pa, sizeof(got));
	expect_fault(f, &f->dev, 16 * MiB, 1);

	/* a smaller offset: bus = phys - 1 MiB */
	f->dev.dma_pfn_offset = 256;
	fill_pattern(buf, sizeof(buf), 92);
	assert_int_equal(dmamap_dev_write(&f->dev, f->pa + PG - MiB, buf, sizeof(buf)), 0);
	assert_int_equal(memcmp(ram_at(f, f->pa + PG), buf, sizeof(buf)), 0);
	f->dev.dma_pfn_offset = 0;
	*f->dev.dma_mask = DMA_BIT_MASK(32);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_init_defaults, setup, teardown),
		cmocka_unit_test_setup_teardown(test_init_names, setup, teardown),
		cmocka_unit_test(test_dev_name_and_machine_of_nothing),
		cmocka_unit_test_setup_teardown(test_init_null_machine_uses_current, setup, teardown),
		cmocka_unit_test_setup_teardown(test_init_refusals, setup, teardown),
		cmocka_unit_test_setup_teardown(test_release_and_reinit, setup, teardown),
		cmocka_unit_test(test_release_order_and_destroy),
		cmocka_unit_test_setup_teardown(test_bus_address_is_phys, setup, teardown),
		cmocka_unit_test_setup_teardown(test_noncoherent_cpu_view_goes_stale, setup, teardown),
		cmocka_unit_test_setup_teardown(test_coherent_device_snoops, setup, teardown),
		cmocka_unit_test(test_coherent_machine_snoops),
		cmocka_unit_test_setup_teardown(test_beyond_dma_mask, setup, teardown),
		cmocka_unit_test(test_range_straddling_the_mask),
		cmocka_unit_test_setup_teardown(test_outside_ram, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_arguments, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dma_pfn_offset, setup, teardown),
		cmocka_unit_test_setup_teardown(test_garbage_device_refused_everywhere, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
