/* SPDX-License-Identifier: MIT */
/*
 * The invariant checker and the fault sweep: a machine in use checks clean;
 * each kind of corruption is found and named; the sweep fails every
 * allocation of a multi-step operation in turn and finds scenarios that
 * swallow an error, leak on failure or leak at teardown.
 */
#include "common.h"
#include "internal.h"

#define WIN_BASE 0x10000000ULL

/* ------------------------------------------------------------ the checker */

static void assert_clean(struct dmamap_machine *m)
{
	struct dmamap_check_result res;
	int n = dmamap_machine_check(m, &res);

	for (unsigned i = 0; i < res.nr_findings; i++)
		fprintf(stderr, "  %s: %s\n", dmamap_check_area_name(res.findings[i].area), res.findings[i].what);
	assert_int_equal(n, 0);
	assert_int_equal(res.inconsistencies, 0);
	assert_int_equal(res.nr_findings, 0);
}

/* One inconsistency or more, all in @area, the first naming @needle. */
static void assert_found(struct dmamap_machine *m, enum dmamap_check_area area, const char *needle)
{
	struct dmamap_check_result res;
	int n = dmamap_machine_check(m, &res);

	assert_true(n > 0);
	assert_int_equal((unsigned long)n, res.inconsistencies);
	assert_int_equal(res.by_area[area], res.inconsistencies);
	assert_true(res.nr_findings >= 1);
	assert_int_equal(res.findings[0].area, area);
	if (!strstr(res.findings[0].what, needle))
		fail_msg("finding \"%s\" does not name \"%s\"", res.findings[0].what, needle);
}

static void test_bad_arguments(void **state)
{
	struct dmamap_check_result res;

	(void)state;
	memset(&res, 0xa5, sizeof(res));
	assert_int_equal(dmamap_machine_check(NULL, &res), -EINVAL);
	assert_int_equal(res.inconsistencies, 0);
	assert_int_equal(dmamap_machine_check(NULL, NULL), -EINVAL);
	assert_string_equal(dmamap_check_area_name(DMAMAP_CHECK_PAGES), "pages");
	assert_string_equal(dmamap_check_area_name(DMAMAP_CHECK_IOVA), "iova");
	assert_string_equal(dmamap_check_area_name(DMAMAP_CHECK_AREA_NR), "unknown");
	assert_int_equal(dmamap_fault_sweep(NULL, NULL), -EINVAL);
}

/* RAM at 0 with a 16 MiB DMA zone, so that a 24-bit device can bounce. */
static void low_zone(struct dmamap_machine_config *cfg)
{
	cfg->ram_base = 0;
	cfg->dma_zone_limit = 16u << 20;
}

/* Everything the library keeps, live at once: the machine still checks clean, and after it is all freed. */
static void test_busy_machine_is_consistent(void **state)
{
	struct dmamap_machine *m = test_machine(64, low_zone);
	struct device plain = { 0 }, iodev = { 0 }, bounce = { 0 }, decl = { 0 };
	struct dma_iommu_mapping *map;
	struct iommu_domain *dom;
	struct vm_area_struct *vma;
	struct dma_pool *pool;
	struct scatterlist sg[4];
	struct page *pages[4], *big;
	void *cpu, *iocpu, *blk, *dcpu, *atomic;
	dma_addr_t h, ioh, bh, dh, ah, sh, bounced;
	struct capture cap;

	(void)state;
	capture_start(&cap, m);
	dmamap_set_log_level(m, DMAMAP_LOG_WARN);
	assert_int_equal(dmamap_contiguous_reserve(m, 4u << 20), 0);
	assert_int_equal(dmamap_device_init(&plain, m, "plain"), 0);
	assert_int_equal(dmamap_device_init(&iodev, m, "iodev"), 0);
	assert_int_equal(dmamap_device_init(&bounce, m, "bounce"), 0);
	assert_int_equal(dmamap_device_init(&decl, m, "decl"), 0);
	assert_clean(m);

	big = dmamap_alloc_pages(m, GFP_KERNEL, 3);
	assert_non_null(big);
	cpu = dma_alloc_coherent(&plain, 3 * PAGE_SIZE, &h, GFP_KERNEL);
	atomic = dma_alloc_coherent(&plain, PAGE_SIZE, &ah, GFP_ATOMIC);
	assert_non_null(cpu);
	assert_non_null(atomic);
	pool = dma_pool_create("p", &plain, 96, 32, 0);
	assert_non_null(pool);
	blk = dma_pool_alloc(pool, GFP_KERNEL, &bh);
	assert_non_null(blk);

	map = arm_iommu_create_mapping(m, WIN_BASE, 4u << 20, 1);
	assert_false(IS_ERR(map));
	assert_int_equal(arm_iommu_attach_device(&iodev, map), 0);
	iocpu = dma_alloc_coherent(&iodev, 5 * PAGE_SIZE, &ioh, GFP_KERNEL);
	assert_non_null(iocpu);
	sg_init_table(sg, 4);
	for (int i = 0; i < 4; i++) {
		pages[i] = dmamap_alloc_pages(m, GFP_KERNEL, 0);
		assert_non_null(pages[i]);
		sg_set_page(&sg[i], pages[i], PAGE_SIZE - (i == 3 ? 100 : 0), 0);
	}
	assert_true(dma_map_sg(&iodev, sg, 4, DMA_TO_DEVICE) > 0);
	sh = dma_map_page(&iodev, big, 10, 3 * PAGE_SIZE, DMA_FROM_DEVICE);
	assert_false(dma_mapping_error(&iodev, sh));

	dom = iommu_domain_alloc(m);
	assert_non_null(dom);
	assert_int_equal(iommu_map(dom, 0x200000, page_to_phys(big), 2 * PAGE_SIZE, IOMMU_READ), 0);

	*bounce.dma_mask = DMA_BIT_MASK(24);
	bounce.coherent_dma_mask = DMA_BIT_MASK(24);
	assert_int_equal(dmabounce_register_dev(&bounce, 256, 2048, NULL), 0);
	/* memory of its own: mapped for two devices at once, the checker would call it an overlap */
	bounced = dma_map_single(&bounce, (u8 *)page_address(big) + 3 * PAGE_SIZE + 256, 200, DMA_BIDIRECTIONAL);
	assert_false(dma_mapping_error(&bounce, bounced));

	assert_int_equal(dma_declare_coherent_memory(&decl, page_to_phys(big) + 4 * PAGE_SIZE, 0x1000000, 4 * PAGE_SIZE), 0);
	dcpu = dma_alloc_coherent(&decl, PAGE_SIZE, &dh, GFP_KERNEL);
	assert_non_null(dcpu);

	vma = dmamap_vma_create(m, 3 * PAGE_SIZE);
	assert_non_null(vma);
	assert_int_equal(dma_mmap_coherent(&plain, vma, cpu, h, 3 * PAGE_SIZE), 0);

	assert_clean(m);

	dmamap_vma_destroy(vma);
	dma_free_coherent(&decl, PAGE_SIZE, dcpu, dh);
	dma_unmap_single(&bounce, bounced, 200, DMA_BIDIRECTIONAL);
	assert_int_equal(dmabounce_unregister_dev(&bounce), 0);
	assert_int_equal(iommu_unmap(dom, 0x200000, 2 * PAGE_SIZE), 2 * PAGE_SIZE);
	iommu_domain_free(dom);
	dma_unmap_page(&iodev, sh, 3 * PAGE_SIZE, DMA_FROM_DEVICE);
	dma_unmap_sg(&iodev, sg, 4, DMA_TO_DEVICE);
	dma_free_coherent(&iodev, 5 * PAGE_SIZE, iocpu, ioh);
	arm_iommu_detach_device(&iodev);
	arm_iommu_release_mapping(map);
	dma_pool_free(pool, blk, bh);
	dma_pool_destroy(pool);
	dma_free_coherent(&plain, PAGE_SIZE, atomic, ah);
	dma_free_coherent(&plain, 3 * PAGE_SIZE, cpu, h);
	for (int i = 0; i < 4; i++)
		dmamap_free_pages(pages[i], 0);
	dmamap_free_pages(big, 3);
	assert_clean(m);
	assert_int_equal(cap.reports, 0);
	dmamap_device_release(&plain);
	dmamap_device_release(&iodev);
	dmamap_device_release(&bounce);
	dmamap_device_release(&decl);
	assert_clean(m);
	capture_stop(m);
	dmamap_machine_destroy(m);
}

/* Each corruption of the page allocator's bookkeeping is named; putting it back makes the machine clean again. */
static void test_finds_page_allocator_corruption(void **state)
{
	struct dmamap_machine *m = test_machine(16, NULL);
	struct capture cap;
	struct page *p = dmamap_alloc_pages(m, GFP_KERNEL, 2);
	unsigned long saved;
	unsigned head;

	(void)state;
	capture_start(&cap, m);
	assert_non_null(p);
	assert_clean(m);
	assert_int_equal(cap.messages, 0);

	/* a block lost: neither free nor allocated */
	saved = p->flags;
	p->flags &= ~(1UL << PG_head);
	assert_found(m, DMAMAP_CHECK_PAGES, "in no block");
	assert_true(cap.messages >= 1); /* each finding is logged on the machine */
	assert_int_equal(cap.reports, 0); /* as a message, not a report */
	assert_true(strstr(cap.last, "machine check") != NULL);
	p->flags = saved;
	assert_clean(m);

	/* a tail page of an allocated block without its tail flag */
	p[2].flags &= ~(1UL << PG_tail);
	assert_found(m, DMAMAP_CHECK_PAGES, "inside the allocated block");
	p[2].flags |= 1UL << PG_tail;

	/* a count that no longer matches the lists */
	m->pa.zones[DMAMAP_ZONE_DMA].nr_free[0]++;
	assert_found(m, DMAMAP_CHECK_PAGES, "free blocks listed");
	m->pa.zones[DMAMAP_ZONE_DMA].nr_free[0]--;
	m->pa.allocated_pages--;
	assert_found(m, DMAMAP_CHECK_PAGES, "pages in allocated blocks");
	m->pa.allocated_pages++;

	/* a free list linked one way only: the first listed block (no zone limit: all RAM is the DMA zone) */
	head = DM_NO_PAGE;
	for (unsigned o = 0; o < MAX_ORDER && head == DM_NO_PAGE; o++)
		head = m->pa.zones[DMAMAP_ZONE_DMA].free_head[o];
	assert_int_not_equal(head, DM_NO_PAGE);
	m->pa.pages[head].dmamap_prev = 7;
	assert_found(m, DMAMAP_CHECK_PAGES, "links back");
	m->pa.pages[head].dmamap_prev = DM_NO_PAGE;

	/* no reference on an allocated block */
	p->_refcount = 0;
	assert_found(m, DMAMAP_CHECK_PAGES, "no reference");
	p->_refcount = 1;
	assert_clean(m);

	dmamap_free_pages(p, 2);
	assert_clean(m);
	capture_stop(m);
	dmamap_machine_destroy(m);
}

static void test_finds_consistent_and_vma_corruption(void **state)
{
	struct dmamap_machine *m = test_machine(16, NULL);
	struct device dev = { 0 };
	struct vm_area_struct *vma;
	dma_addr_t h;
	void *cpu;
	size_t idx;

	(void)state;
	dmamap_set_log_level(m, DMAMAP_LOG_WARN);
	assert_int_equal(dmamap_device_init(&dev, m, "d"), 0);
	cpu = dma_alloc_coherent(&dev, 2 * PAGE_SIZE, &h, GFP_KERNEL);
	assert_non_null(cpu);
	assert_clean(m);

	m->cons.used += PAGE_SIZE;
	assert_found(m, DMAMAP_CHECK_CONSISTENT, "regions of");
	m->cons.used -= PAGE_SIZE;

	/* a pte left behind past the end of every region */
	idx = (m->cons.size >> PAGE_SHIFT) - 1;
	m->cons.pte_prot[idx] = (unsigned char)pgprot_val(pgprot_dmacoherent(PAGE_KERNEL));
	assert_found(m, DMAMAP_CHECK_CONSISTENT, "outside every region");
	m->cons.pte_prot[idx] = 0;
	assert_clean(m);

	vma = dmamap_vma_create(m, 2 * PAGE_SIZE);
	assert_non_null(vma);
	vma->dmamap->pte_pfn[1] = 5;
	assert_found(m, DMAMAP_CHECK_VMA, "not present but keeps pfn");
	vma->dmamap->pte_pfn[1] = 0;
	assert_clean(m);
	dmamap_vma_destroy(vma);

	dma_free_coherent(&dev, 2 * PAGE_SIZE, cpu, h);
	dmamap_device_release(&dev);
	assert_clean(m);
	dmamap_machine_destroy(m);
}

/* IOVA allocations against the page tables: an IOVA leaked, a translation without IOVA, one outside the window. */
static void test_finds_iova_and_iommu_inconsistency(void **state)
{
	struct dmamap_machine *m = test_machine(16, NULL);
	struct dma_iommu_mapping *map = arm_iommu_create_mapping(m, WIN_BASE, 1u << 20, 0);
	struct device dev = { 0 };
	struct page *p = dmamap_alloc_pages(m, GFP_KERNEL, 0);
	dma_addr_t h, leaked;

	(void)state;
	assert_false(IS_ERR(map));
	assert_non_null(p);
	assert_int_equal(dmamap_device_init(&dev, m, "d"), 0);
	assert_int_equal(arm_iommu_attach_device(&dev, map), 0);
	h = dma_map_page(&dev, p, 0, 100, DMA_TO_DEVICE);
	assert_false(dma_mapping_error(&dev, h));
	assert_clean(m);

	/* an IOVA allocated that nothing maps */
	leaked = dmamap_iova_alloc(map->iova, PAGE_SIZE);
	assert_int_not_equal(leaked, DMA_MAPPING_ERROR);
	assert_found(m, DMAMAP_CHECK_IOVA, "IOVA granules allocated");
	dmamap_iova_free(map->iova, leaked, PAGE_SIZE);
	assert_clean(m);

	/* the page table entry torn down under a live IOVA allocation */
	assert_int_equal(iommu_unmap(map->domain, (unsigned long)h, PAGE_SIZE), PAGE_SIZE);
	assert_found(m, DMAMAP_CHECK_IOVA, "IOVA granules allocated");
	assert_int_equal(iommu_map(map->domain, (unsigned long)h, page_to_phys(p), PAGE_SIZE, IOMMU_READ), 0);
	assert_clean(m);

	/* a translation outside the mapping's window */
	assert_int_equal(iommu_map(map->domain, 0x1000, page_to_phys(p), PAGE_SIZE, IOMMU_READ), 0);
	assert_found(m, DMAMAP_CHECK_IOVA, "outside the window");
	assert_int_equal(iommu_unmap(map->domain, 0x1000, PAGE_SIZE), PAGE_SIZE);
	assert_clean(m);

	/* a domain counter that does not match the tables */
	{
		struct dmamap_iommu_stats st;

		dmamap_iommu_stats(map->domain, &st);
		assert_int_equal(st.mapped_bytes, PAGE_SIZE);
	}
	dma_unmap_page(&dev, h, 100, DMA_TO_DEVICE);
	assert_clean(m);
	arm_iommu_detach_device(&dev);
	arm_iommu_release_mapping(map);
	dmamap_free_pages(p, 0);
	dmamap_device_release(&dev);
	assert_clean(m);
	dmamap_machine_destroy(m);
}

static void test_finds_domain_attachment_mismatch(void **state)
{
	struct dmamap_machine *m = test_machine(16, NULL);
	struct iommu_domain *d = iommu_domain_alloc(m);
	struct device dev = { 0 };

	(void)state;
	assert_non_null(d);
	assert_int_equal(dmamap_device_init(&dev, m, "d"), 0);
	assert_int_equal(iommu_attach_device(d, &dev), 0);
	assert_clean(m);
	dev.dmamap.iommu_domain = NULL; /* the device forgot its domain; the domain still counts it */
	assert_found(m, DMAMAP_CHECK_IOMMU, "devices attached");
	dev.dmamap.iommu_domain = d;
	iommu_detach_device(d, &dev);
	iommu_domain_free(d);
	dmamap_device_release(&dev);
	assert_clean(m);
	dmamap_machine_destroy(m);
}

/* ------------------------------------------------------------- the sweep */

struct sweep_ctx {
	struct device dev;
	struct dma_iommu_mapping *map;
	struct page *pages[6];
	struct page *extra;
	struct scatterlist sg[6];
	int nents;
	void *cpu;
	size_t size;                   /* pages of cpu */
	dma_addr_t handle;
	bool attached;
	bool leak_on_failure, swallow, leak_at_teardown;
};

static struct dmamap_machine_config sweep_cfg;

static const struct dmamap_machine_config *small_cfg(void)
{
	dmamap_machine_config_init(&sweep_cfg);
	sweep_cfg.ram_size = 16u << 20;
	sweep_cfg.consistent_size = 2u << 20;
	return &sweep_cfg;
}

static int setup_iommu_dev(struct dmamap_machine *m, void *arg)
{
	struct sweep_ctx *c = arg;
	int err;

	memset(&c->dev, 0, sizeof(c->dev));
	c->nents = 0;
	c->cpu = NULL;
	c->extra = NULL;
	err = dmamap_device_init(&c->dev, m, "sweep");
	if (err)
		return err;
	c->map = arm_iommu_create_mapping(m, WIN_BASE, 8u << 20, 0);
	if (IS_ERR(c->map))
		return (int)PTR_ERR(c->map);
	err = arm_iommu_attach_device(&c->dev, c->map);
	arm_iommu_release_mapping(c->map);
	if (err)
		return err;
	sg_init_table(c->sg, 6);
	for (int i = 0; i < 6; i++) {
		/* every other page: a list that merges into runs of its own and splits between them */
		c->pages[i] = dmamap_alloc_pages(m, GFP_KERNEL, 0);
		if (!c->pages[i])
			return -ENOMEM;
		sg_set_page(&c->sg[i], c->pages[i], i % 3 == 2 ? 1000 : PAGE_SIZE, 0);
	}
	return 0;
}

static void teardown_iommu_dev(struct dmamap_machine *m, void *arg, int ret)
{
	struct sweep_ctx *c = arg;

	(void)m;
	if (!ret && c->nents)
		dma_unmap_sg(&c->dev, c->sg, 6, DMA_BIDIRECTIONAL);
	if (!ret && c->cpu)
		dma_free_coherent(&c->dev, c->size * PAGE_SIZE, c->cpu, c->handle);
	if (c->extra && !c->leak_at_teardown)
		dmamap_free_pages(c->extra, 0);
	for (int i = 0; i < 6; i++)
		dmamap_free_pages(c->pages[i], 0);
	arm_iommu_detach_device(&c->dev);
	dmamap_device_release(&c->dev);
}

static int map_sg_scenario(struct dmamap_machine *m, void *arg)
{
	struct sweep_ctx *c = arg;

	(void)m;
	c->nents = dma_map_sg(&c->dev, c->sg, 6, DMA_BIDIRECTIONAL);
	return c->nents ? 0 : -ENOMEM;
}

static int alloc_scenario(struct dmamap_machine *m, void *arg)
{
	struct sweep_ctx *c = arg;

	(void)m;
	c->size = 40;
	c->cpu = dma_alloc_coherent(&c->dev, c->size * PAGE_SIZE, &c->handle, GFP_KERNEL);
	return c->cpu ? 0 : -ENOMEM;
}

/* A page first, then a coherent buffer of 8 pages: buggy variants leak the page, or swallow the error. */
static int two_step_scenario(struct dmamap_machine *m, void *arg)
{
	struct sweep_ctx *c = arg;

	c->extra = dmamap_alloc_pages(m, GFP_KERNEL, 0);
	if (!c->extra)
		return c->swallow ? 0 : -ENOMEM;
	c->size = 8;
	c->cpu = dma_alloc_coherent(&c->dev, c->size * PAGE_SIZE, &c->handle, GFP_KERNEL);
	if (!c->cpu) {
		if (!c->leak_on_failure) {
			dmamap_free_pages(c->extra, 0);
			c->extra = NULL;
		}
		return c->swallow ? 0 : -ENOMEM;
	}
	return 0;
}

/* A strict sweep of @scenario on a device behind an IOMMU mapping. */
static void sweep_iommu(int (*scenario)(struct dmamap_machine *, void *), struct dmamap_fault_sweep_result *r)
{
	struct sweep_ctx c = { 0 };
	struct dmamap_fault_sweep sw = {
		.cfg = small_cfg(), .setup = setup_iommu_dev, .scenario = scenario, .teardown = teardown_iommu_dev,
		.ctx = &c, .flags = DMAMAP_SWEEP_STRICT, .sites = sweep_sites(),
	};

	assert_sweep_clean(&sw, r);
}

/* map_sg through the IOMMU with merged segments: every IOVA and page-table failure unwinds. */
static void test_sweep_map_sg_through_iommu(void **state)
{
	struct dmamap_fault_sweep_result r;
	unsigned long attempts = 0;

	(void)state;
	sweep_iommu(map_sg_scenario, &r);
	assert_true(r.attempts[DMAMAP_FAULT_IOVA] >= 2); /* at least two segments */
	assert_true(r.attempts[DMAMAP_FAULT_IOMMU_PGTABLE] >= 1);
	/* one run per attempt at each site, with it failed */
	for (unsigned i = 0; i < DMAMAP_FAULT_SITE_NR; i++)
		attempts += r.attempts[i];
	assert_int_equal(r.injected_runs, attempts);
	assert_int_equal(r.runs, r.injected_runs + (unsigned long)__builtin_popcountl(sweep_sites()));
	assert_int_equal(r.recovered_runs, 0);
}

/* A coherent allocation over scattered pages behind the IOMMU: pages, IOVA, tables, remap, bookkeeping. */
static void test_sweep_iommu_coherent_alloc(void **state)
{
	struct dmamap_fault_sweep_result r;

	(void)state;
	sweep_iommu(alloc_scenario, &r);
	if (site_swept(DMAMAP_FAULT_PAGE_ALLOC))
		assert_int_equal(r.attempts[DMAMAP_FAULT_PAGE_ALLOC], 40);
	assert_true(r.attempts[DMAMAP_FAULT_REMAP] >= 1);
	assert_true(r.attempts[DMAMAP_FAULT_HOST_ALLOC] >= 2);
	assert_true(r.injected_runs >= 4);
}

/* The sweep itself: a scenario that leaks on failure, one that swallows the error, one that leaks at teardown. */
static void test_sweep_finds_buggy_scenarios(void **state)
{
	struct sweep_ctx c = { 0 };
	struct dmamap_fault_sweep sw = {
		.cfg = small_cfg(), .setup = setup_iommu_dev, .scenario = two_step_scenario, .teardown = teardown_iommu_dev,
		.ctx = &c, .sites = 1UL << DMAMAP_FAULT_PAGE_ALLOC,
	};
	struct dmamap_fault_sweep_result r;
	int n;

	(void)state;
	/* correct: clean */
	assert_int_equal(dmamap_fault_sweep(&sw, &r), 0);
	assert_int_equal(r.attempts[DMAMAP_FAULT_PAGE_ALLOC], 9);
	assert_int_equal(r.injected_runs, 9);
	assert_int_equal(r.runs, 10);

	/* leaks the first page when the buffer cannot be had: every failure but the first one's */
	c.leak_on_failure = true;
	n = dmamap_fault_sweep(&sw, &r);
	assert_int_equal(n, 8);
	assert_int_equal(r.bad_runs, 8);
	assert_int_equal(r.nr_recorded, DMAMAP_SWEEP_MAX_RECORDED);
	assert_int_equal(r.recorded[0].site, DMAMAP_FAULT_PAGE_ALLOC);
	assert_int_equal(r.recorded[0].nth, 2);
	assert_int_equal(r.recorded[0].ret, -ENOMEM);
	assert_int_equal(r.recorded[0].problems, DMAMAP_SWEEP_NOT_UNWOUND); /* teardown frees it: no leak at destroy */
	assert_non_null(strstr(r.recorded[0].detail, "pages allocated"));
	assert_int_equal(r.recorded[1].nth, 3);
	c.leak_on_failure = false;

	/* returns 0 though it failed: a problem only in strict mode */
	c.swallow = true;
	assert_int_equal(dmamap_fault_sweep(&sw, &r), 0);
	assert_int_equal(r.recovered_runs, 9);
	sw.flags = DMAMAP_SWEEP_STRICT;
	assert_int_equal(dmamap_fault_sweep(&sw, &r), 9);
	assert_int_equal(r.recorded[0].problems, DMAMAP_SWEEP_NOT_SURFACED);
	assert_int_equal(r.recorded[0].ret, 0);
	c.swallow = false;

	/* teardown forgets what the scenario made: leaked in every run where it succeeded (the clean one) */
	c.leak_at_teardown = true;
	assert_int_equal(dmamap_fault_sweep(&sw, &r), 1);
	assert_int_equal(r.recorded[0].nth, 0);
	assert_int_equal(r.recorded[0].problems, DMAMAP_SWEEP_LEAKED);
	c.leak_at_teardown = false;
}

/* ------------------------------------------- more multi-step operations */

struct op_ctx {
	struct device dev;
	struct page *page;
	struct dma_pool *pool;
	void *blk[70];
	dma_addr_t bh[70];
	unsigned nblk;
	dma_addr_t bounced;
	struct dma_iommu_mapping *map;
	bool attached;
};

static struct dmamap_machine_config zone_cfg;

static const struct dmamap_machine_config *low_zone_cfg(void)
{
	dmamap_machine_config_init(&zone_cfg);
	zone_cfg.ram_size = 32u << 20;
	zone_cfg.consistent_size = 2u << 20;
	low_zone(&zone_cfg);
	return &zone_cfg;
}

static int setup_plain(struct dmamap_machine *m, void *arg)
{
	struct op_ctx *c = arg;

	memset(c, 0, sizeof(*c));
	c->bounced = DMA_MAPPING_ERROR;
	if (dmamap_device_init(&c->dev, m, "op"))
		return -ENODEV;
	c->page = dmamap_alloc_pages(m, GFP_KERNEL, 2); /* above the DMA zone: bounced */
	return c->page ? 0 : -ENOMEM;
}

static int setup_bounce(struct dmamap_machine *m, void *arg)
{
	struct op_ctx *c = arg;
	int err = setup_plain(m, arg);

	if (err)
		return err;
	*c->dev.dma_mask = DMA_BIT_MASK(24);
	c->dev.coherent_dma_mask = DMA_BIT_MASK(24);
	return dmabounce_register_dev(&c->dev, 512, 4096, NULL);
}

static void teardown_op(struct dmamap_machine *m, void *arg, int ret)
{
	struct op_ctx *c = arg;

	(void)m;
	(void)ret;
	if (!dma_mapping_error(&c->dev, c->bounced))
		dma_unmap_single(&c->dev, c->bounced, 3000, DMA_BIDIRECTIONAL);
	while (c->nblk) {
		c->nblk--;
		dma_pool_free(c->pool, c->blk[c->nblk], c->bh[c->nblk]);
	}
	dma_pool_destroy(c->pool);
	if (c->attached)
		arm_iommu_detach_device(&c->dev);
	if (!IS_ERR_OR_NULL(c->map))
		arm_iommu_release_mapping(c->map);
	dmamap_free_pages(c->page, 2);
	dmamap_device_release(&c->dev);
}

static int bounce_map_scenario(struct dmamap_machine *m, void *arg)
{
	struct op_ctx *c = arg;
	u8 *buf = (u8 *)page_address(c->page) + 100;

	(void)m;
	memset(buf, 0x5a, 3000);
	c->bounced = dma_map_single(&c->dev, buf, 3000, DMA_BIDIRECTIONAL);
	return dma_mapping_error(&c->dev, c->bounced) ? -ENOMEM : 0;
}

/* Two bounces from one pool: when the second fails, the first is unmapped, its pool page left idle. */
static int bounce_two_scenario(struct dmamap_machine *m, void *arg)
{
	struct op_ctx *c = arg;
	u8 *buf = page_address(c->page);
	dma_addr_t second;

	(void)m;
	memset(buf, 0x5a, 4 * PAGE_SIZE);
	c->bounced = dma_map_single(&c->dev, buf + 100, 3000, DMA_BIDIRECTIONAL);
	if (dma_mapping_error(&c->dev, c->bounced))
		return -ENOMEM;
	second = dma_map_single(&c->dev, buf + 2 * PAGE_SIZE, 3000, DMA_TO_DEVICE);
	if (dma_mapping_error(&c->dev, second)) {
		dma_unmap_single(&c->dev, c->bounced, 3000, DMA_BIDIRECTIONAL);
		c->bounced = DMA_MAPPING_ERROR;
		return -ENOMEM;
	}
	dma_unmap_single(&c->dev, second, 3000, DMA_TO_DEVICE);
	return 0;
}

/* Enough blocks that the pool grows twice; the driver unwinds what it took when a block cannot be had. */
static int pool_growth_scenario(struct dmamap_machine *m, void *arg)
{
	struct op_ctx *c = arg;

	(void)m;
	c->pool = dma_pool_create("grow", &c->dev, 120, 64, 0);
	if (!c->pool)
		return -ENOMEM;
	for (c->nblk = 0; c->nblk < 70; c->nblk++) {
		c->blk[c->nblk] = dma_pool_alloc(c->pool, GFP_KERNEL, &c->bh[c->nblk]);
		if (!c->blk[c->nblk]) {
			while (c->nblk) {
				c->nblk--;
				dma_pool_free(c->pool, c->blk[c->nblk], c->bh[c->nblk]);
			}
			dma_pool_destroy(c->pool);
			c->pool = NULL;
			return -ENOMEM;
		}
	}
	return 0;
}

static int create_attach_scenario(struct dmamap_machine *m, void *arg)
{
	struct op_ctx *c = arg;
	int err;

	c->map = arm_iommu_create_mapping(m, WIN_BASE, 64u << 20, 2);
	if (IS_ERR(c->map))
		return (int)PTR_ERR(c->map);
	err = arm_iommu_attach_device(&c->dev, c->map);
	if (err) {
		arm_iommu_release_mapping(c->map);
		c->map = NULL;
		return err;
	}
	c->attached = true;
	return 0;
}

static void sweep_op(int (*setup)(struct dmamap_machine *, void *), int (*scenario)(struct dmamap_machine *, void *),
		     struct dmamap_fault_sweep_result *r)
{
	struct op_ctx c;
	struct dmamap_fault_sweep sw = {
		.cfg = low_zone_cfg(), .setup = setup, .scenario = scenario, .teardown = teardown_op, .ctx = &c,
		.sites = sweep_sites(),
	};

	assert_sweep_clean(&sw, r);
	assert_true(r->injected_runs > 0);
}

static void test_sweep_dmabounce_map(void **state)
{
	struct dmamap_fault_sweep_result r;

	(void)state;
	sweep_op(setup_bounce, bounce_map_scenario, &r);
	/* the safe buffer: the pool's block (pool fault, a new pool page), else a coherent allocation */
	assert_true(r.attempts[DMAMAP_FAULT_HOST_ALLOC] >= 1);
	if (site_swept(DMAMAP_FAULT_POOL)) {
		assert_true(r.attempts[DMAMAP_FAULT_POOL] >= 1);
		/* a pool that cannot give a block is not the end: the coherent allocation serves the bounce */
		assert_true(r.recovered_runs >= 1);
	}
}

/*
 * The sweep gives back the pages a pool keeps idle before it counts: that is
 * the library freeing its own memory, which the checker lets through.
 */
static void test_sweep_dmabounce_unwinds_through_a_pool(void **state)
{
	struct dmamap_fault_sweep_result r;

	(void)state;
	sweep_op(setup_bounce, bounce_two_scenario, &r);
	/* the second bounce's tracking fails after the first took a page of the large pool */
	assert_true(r.attempts[DMAMAP_FAULT_HOST_ALLOC] >= 2);
	assert_true(r.injected_runs > r.recovered_runs);
}

static void test_sweep_pool_growth(void **state)
{
	struct dmamap_fault_sweep_result r;

	(void)state;
	sweep_op(setup_plain, pool_growth_scenario, &r);
	if (site_swept(DMAMAP_FAULT_POOL))
		assert_int_equal(r.attempts[DMAMAP_FAULT_POOL], 70);
	if (site_swept(DMAMAP_FAULT_PAGE_ALLOC))
		assert_true(r.attempts[DMAMAP_FAULT_PAGE_ALLOC] >= 2); /* 70 blocks of 128 bytes: three pages */
	assert_true(r.attempts[DMAMAP_FAULT_REMAP] >= 2);
}

static void test_sweep_mapping_creation_and_attach(void **state)
{
	struct dmamap_fault_sweep_result r;

	(void)state;
	sweep_op(setup_plain, create_attach_scenario, &r);
	assert_true(r.attempts[DMAMAP_FAULT_HOST_ALLOC] >= 1);
	assert_true(r.attempts[DMAMAP_FAULT_IOMMU_PGTABLE] >= 1);
	assert_int_equal(r.recovered_runs, 0);
}

static int failing_setup(struct dmamap_machine *m, void *arg)
{
	(void)m;
	(void)arg;
	return -ENODEV;
}

static int always_fails(struct dmamap_machine *m, void *arg)
{
	(void)m;
	(void)arg;
	return -EIO;
}

static void test_sweep_arguments_and_setup_failure(void **state)
{
	struct dmamap_machine_config bad;
	struct dmamap_fault_sweep sw = { .scenario = always_fails };
	struct dmamap_fault_sweep_result r;
	struct dmamap_machine *cur = test_machine(16, NULL);

	(void)state;
	dmamap_machine_set_current(cur);
	sw.sites = 1UL << DMAMAP_FAULT_SITE_NR;
	assert_int_equal(dmamap_fault_sweep(&sw, &r), -EINVAL);
	sw.sites = 0;
	sw.scenario = NULL;
	assert_int_equal(dmamap_fault_sweep(&sw, &r), -EINVAL);
	dmamap_machine_config_init(&bad);
	bad.cache_line_size = 24;
	sw.scenario = always_fails;
	sw.cfg = &bad;
	capture_start(&(struct capture){ 0 }, NULL);
	assert_int_equal(dmamap_fault_sweep(&sw, &r), -EINVAL);
	capture_stop(NULL);

	/* a scenario that fails with nothing injected: one bad run per site */
	sw.cfg = small_cfg();
	assert_int_equal(dmamap_fault_sweep(&sw, &r), DMAMAP_FAULT_SITE_NR);
	assert_int_equal(r.recorded[0].problems, DMAMAP_SWEEP_CLEAN_FAILED);
	assert_int_equal(r.recorded[0].ret, -EIO);
	/* setup failing abandons the site */
	sw.setup = failing_setup;
	sw.sites = 1UL << DMAMAP_FAULT_IOVA;
	assert_int_equal(dmamap_fault_sweep(&sw, &r), 1);
	assert_int_equal(r.runs, 1);
	assert_int_equal(r.recorded[0].problems, DMAMAP_SWEEP_SETUP_FAILED);
	/* the current machine is the caller's again */
	assert_ptr_equal(dmamap_machine_current(), cur);
	dmamap_machine_destroy(cur);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bad_arguments),
		cmocka_unit_test(test_busy_machine_is_consistent),
		cmocka_unit_test(test_finds_page_allocator_corruption),
		cmocka_unit_test(test_finds_consistent_and_vma_corruption),
		cmocka_unit_test(test_finds_iova_and_iommu_inconsistency),
		cmocka_unit_test(test_finds_domain_attachment_mismatch),
		cmocka_unit_test(test_sweep_map_sg_through_iommu),
		cmocka_unit_test(test_sweep_iommu_coherent_alloc),
		cmocka_unit_test(test_sweep_dmabounce_map),
		cmocka_unit_test(test_sweep_dmabounce_unwinds_through_a_pool),
		cmocka_unit_test(test_sweep_pool_growth),
		cmocka_unit_test(test_sweep_mapping_creation_and_attach),
		cmocka_unit_test(test_sweep_finds_buggy_scenarios),
		cmocka_unit_test(test_sweep_arguments_and_setup_failure),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
