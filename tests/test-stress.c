/* SPDX-License-Identifier: MIT */
/*
 * Concurrency stress. Threads map, sync, unmap, allocate and free at once on
 * devices they share -- one per ops set: the ARM direct ops, dmabounce, and
 * two devices behind one shared IOMMU mapping -- while the "hardware" reads
 * and writes every buffer while it is the device's: each byte is checked on
 * both sides, every time. Then threads race to free the same buffer: one
 * frees it, the other is refused and reported, never both. The machine is
 * the default one (outer cache, speculative prefetch). CI runs this with
 * -Db_sanitize=thread.
 */
#include <pthread.h>
#include <stdatomic.h>

#include "common.h"

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif

#define NDEV 4
#define NTHREADS 6
#define BUF_ORDER 2
#define BUF_BYTES (PAGE_SIZE << BUF_ORDER)
#define WIN_BASE 0x80000000ULL
#define WIN_SIZE (32u << 20)

static const char *const dev_names[NDEV] = { "direct", "bounce", "iommu-a", "iommu-b" };

struct world {
	struct dmamap_machine *m;
	struct device dev[NDEV];
	struct dma_iommu_mapping *map;
	struct dma_pool *pool[NDEV];
	atomic_ulong reports;
	unsigned iters;
};

/* The capture of common.c is not thread-safe: this one only counts, and keeps nothing. */
static void count_reports(const struct dmamap_log_record *rec, void *ctx)
{
	struct world *w = ctx;

	if (rec->kind != DMAMAP_REPORT_NONE) {
		atomic_fetch_add(&w->reports, 1);
		if (getenv("DMAMAP_TEST_VERBOSE"))
			fprintf(stderr, "[report] %s: %s\n", rec->device ? rec->device : "", rec->message);
	}
}

/* RAM at 0 with a 16 MiB DMA zone: the 24-bit device bounces every buffer above it. */
static void stress_machine(struct dmamap_machine_config *cfg)
{
	cfg->ram_base = 0;
	cfg->ram_size = 64u << 20;
	cfg->dma_zone_limit = 16u << 20;
	cfg->consistent_size = 8u << 20;
}

static void world_init(struct world *w)
{
	memset(w, 0, sizeof(*w));
	w->m = test_machine(64, stress_machine);
	atomic_init(&w->reports, 0);
	dmamap_set_log_handler(w->m, count_reports, w);
	dmamap_set_log_level(w->m, DMAMAP_LOG_ERR);
	w->iters = under_valgrind() ? 20 : 300;
	if (getenv("DMAMAP_STRESS_ITERS"))
		w->iters = (unsigned)atoi(getenv("DMAMAP_STRESS_ITERS"));
	for (int i = 0; i < NDEV; i++)
		assert_int_equal(dmamap_device_init(&w->dev[i], w->m, dev_names[i]), 0);
	*w->dev[1].dma_mask = DMA_BIT_MASK(24);
	w->dev[1].coherent_dma_mask = DMA_BIT_MASK(24);
	assert_int_equal(dmabounce_register_dev(&w->dev[1], 512, 4096, NULL), 0);
	w->map = arm_iommu_create_mapping(w->m, WIN_BASE, WIN_SIZE, 0);
	assert_false(IS_ERR(w->map));
	assert_int_equal(arm_iommu_attach_device(&w->dev[2], w->map), 0);
	assert_int_equal(arm_iommu_attach_device(&w->dev[3], w->map), 0);
	arm_iommu_release_mapping(w->map); /* the devices' references keep it */
	for (int i = 0; i < NDEV; i++) {
		w->pool[i] = dma_pool_create("stress", &w->dev[i], 96, 32, 0);
		assert_non_null(w->pool[i]);
	}
}

static void world_fini(struct world *w)
{
	unsigned long reports = atomic_load(&w->reports);

	assert_machine_consistent(w->m);
	for (int i = 0; i < NDEV; i++)
		dma_pool_destroy(w->pool[i]);
	arm_iommu_detach_device(&w->dev[2]);
	arm_iommu_detach_device(&w->dev[3]);
	assert_int_equal(dmabounce_unregister_dev(&w->dev[1]), 0);
	for (int i = 0; i < NDEV; i++)
		dmamap_device_release(&w->dev[i]);
	assert_int_equal(atomic_load(&w->reports), reports); /* nothing left behind to report */
	assert_machine_consistent(w->m);
	dmamap_set_log_handler(w->m, NULL, NULL);
	test_machine_destroy(w->m);
}

/* ------------------------------------------------------------- workers */

struct worker {
	struct world *w;
	unsigned id;
	u64 rng;
	u8 *buf;                       /* the thread's own buffer, BUF_BYTES */
	u8 bounce[3 * PAGE_SIZE];      /* what the hardware reads or writes */
	u8 want[3 * PAGE_SIZE];
	unsigned long ops, bad;
	char first_bad[160];
};

static unsigned next(struct worker *k, unsigned n)
{
	k->rng ^= k->rng << 13;
	k->rng ^= k->rng >> 7;
	k->rng ^= k->rng << 17;
	return (unsigned)(k->rng % n);
}

static void bad(struct worker *k, const char *what, int dev)
{
	if (!k->bad)
		snprintf(k->first_bad, sizeof(k->first_bad), "thread %u, op %lu, %s on %s", k->id, k->ops, what,
			 dev_names[dev]);
	k->bad++;
}

/* The device reads [bus, bus + len) and must see @seed's pattern. */
static void hw_expect(struct worker *k, int d, dma_addr_t bus, size_t len, unsigned seed, const char *what)
{
	if (dmamap_dev_read(&k->w->dev[d], bus, k->bounce, len) || check_pattern(k->bounce, len, seed))
		bad(k, what, d);
}

static void hw_write(struct worker *k, int d, dma_addr_t bus, size_t len, unsigned seed, const char *what)
{
	fill_pattern(k->bounce, len, seed);
	if (dmamap_dev_write(&k->w->dev[d], bus, k->bounce, len))
		bad(k, what, d);
}

static void op_to_device(struct worker *k, int d, unsigned seed)
{
	size_t off = next(k, PAGE_SIZE), len = 1 + next(k, 2 * PAGE_SIZE);
	dma_addr_t h;

	fill_pattern(k->buf + off, len, seed);
	h = dma_map_single(&k->w->dev[d], k->buf + off, len, DMA_TO_DEVICE);
	if (dma_mapping_error(&k->w->dev[d], h))
		return bad(k, "map TO_DEVICE", d);
	hw_expect(k, d, h, len, seed, "device read of a TO_DEVICE mapping");
	dma_unmap_single(&k->w->dev[d], h, len, DMA_TO_DEVICE);
}

static void op_from_device(struct worker *k, int d, unsigned seed)
{
	size_t off = next(k, PAGE_SIZE), len = 1 + next(k, 2 * PAGE_SIZE);
	dma_addr_t h = dma_map_single(&k->w->dev[d], k->buf + off, len, DMA_FROM_DEVICE);

	if (dma_mapping_error(&k->w->dev[d], h))
		return bad(k, "map FROM_DEVICE", d);
	hw_write(k, d, h, len, seed, "device write to a FROM_DEVICE mapping");
	dma_unmap_single(&k->w->dev[d], h, len, DMA_FROM_DEVICE);
	if (check_pattern(k->buf + off, len, seed))
		bad(k, "CPU read after unmap", d);
}

/* Both ways over one mapping, handed back and forth with the syncs. */
static void op_bidirectional(struct worker *k, int d, unsigned seed)
{
	struct device *dev = &k->w->dev[d];
	size_t off = next(k, PAGE_SIZE), len = 1 + next(k, PAGE_SIZE);
	dma_addr_t h;

	fill_pattern(k->buf + off, len, seed);
	h = dma_map_single(dev, k->buf + off, len, DMA_BIDIRECTIONAL);
	if (dma_mapping_error(dev, h))
		return bad(k, "map BIDIRECTIONAL", d);
	hw_expect(k, d, h, len, seed, "device read after map");
	hw_write(k, d, h, len, seed + 1, "device write");
	dma_sync_single_for_cpu(dev, h, len, DMA_BIDIRECTIONAL);
	if (check_pattern(k->buf + off, len, seed + 1))
		bad(k, "CPU read after sync_for_cpu", d);
	fill_pattern(k->buf + off, len, seed + 2);
	dma_sync_single_for_device(dev, h, len, DMA_BIDIRECTIONAL);
	hw_expect(k, d, h, len, seed + 2, "device read after sync_for_device");
	dma_unmap_single(dev, h, len, DMA_BIDIRECTIONAL);
}

/* Three entries that meet on page boundaries (one segment behind the IOMMU, three elsewhere). */
static void op_sg(struct worker *k, int d, unsigned seed)
{
	struct device *dev = &k->w->dev[d];
	size_t off = next(k, PAGE_SIZE), tail = 1 + next(k, PAGE_SIZE), total = 0;
	struct scatterlist sg[3], *s;
	int n, i;

	sg_init_table(sg, 3);
	sg_set_buf(&sg[0], k->buf + off, (unsigned)(PAGE_SIZE - off));
	sg_set_buf(&sg[1], k->buf + PAGE_SIZE, PAGE_SIZE);
	sg_set_buf(&sg[2], k->buf + 2 * PAGE_SIZE, (unsigned)tail);
	for (i = 0; i < 3; i++)
		total += sg[i].length;
	fill_pattern(k->want, total, seed);
	sg_copy_from_buffer(sg, 3, k->want, total);
	n = dma_map_sg(dev, sg, 3, DMA_TO_DEVICE);
	if (!n)
		return bad(k, "map_sg", d);
	{
		size_t done = 0;

		for_each_sg(sg, s, n, i) {
			if (done + sg_dma_len(s) > total ||
			    dmamap_dev_read(dev, sg_dma_address(s), k->bounce + done, sg_dma_len(s)))
				return bad(k, "device read of an sg segment", d);
			done += sg_dma_len(s);
		}
		if (done != total || memcmp(k->bounce, k->want, total))
			bad(k, "the sg segments' bytes", d);
	}
	dma_unmap_sg(dev, sg, 3, DMA_TO_DEVICE);
}

static void op_coherent(struct worker *k, int d, unsigned seed)
{
	struct device *dev = &k->w->dev[d];
	size_t len = 1 + next(k, 3 * PAGE_SIZE);
	gfp_t gfp = next(k, 4) ? GFP_KERNEL : GFP_ATOMIC;
	dma_addr_t h;
	u8 *cpu = dma_alloc_coherent(dev, len, &h, gfp);

	if (!cpu) {
		if (gfp == GFP_KERNEL)
			bad(k, "dma_alloc_coherent", d);
		return; /* the atomic pool is small: it may be empty for a moment */
	}
	fill_pattern(cpu, len, seed);
	hw_expect(k, d, h, len, seed, "device read of a coherent buffer");
	hw_write(k, d, h, len, seed + 1, "device write to a coherent buffer");
	if (check_pattern(cpu, len, seed + 1))
		bad(k, "CPU read of a coherent buffer", d);
	dma_free_coherent(dev, len, cpu, h);
}

static void op_pool(struct worker *k, int d, unsigned seed)
{
	dma_addr_t h;
	u8 *blk = dma_pool_alloc(k->w->pool[d], GFP_KERNEL, &h);

	if (!blk)
		return bad(k, "dma_pool_alloc", d);
	fill_pattern(blk, 96, seed);
	hw_expect(k, d, h, 96, seed, "device read of a pool block");
	hw_write(k, d, h, 96, seed + 1, "device write to a pool block");
	if (check_pattern(blk, 96, seed + 1))
		bad(k, "CPU read of a pool block", d);
	dma_pool_free(k->w->pool[d], blk, h);
}

static void *worker_fn(void *arg)
{
	static void (*const ops[])(struct worker *, int, unsigned) = {
		op_to_device, op_from_device, op_bidirectional, op_sg, op_coherent, op_pool,
	};
	struct worker *k = arg;

	for (unsigned i = 0; i < k->w->iters; i++, k->ops++)
		ops[next(k, ARRAY_SIZE(ops))](k, (int)next(k, NDEV), k->id * 100000 + i * 4);
	return NULL;
}

/* Every ops set and the shared mapping at once: every byte arrives, nothing is reported, nothing leaks. */
static void test_threads_on_shared_devices(void **state)
{
	struct world w;
	struct worker k[NTHREADS];
	pthread_t t[NTHREADS];
	struct dmamap_page_stats ps;

	(void)state;
	world_init(&w);
	for (unsigned i = 0; i < NTHREADS; i++) {
		struct page *p = dmamap_alloc_pages(w.m, GFP_KERNEL, BUF_ORDER); /* above the DMA zone: bounced */

		assert_non_null(p);
		assert_true(page_to_phys(p) >= (16u << 20));
		memset(&k[i], 0, sizeof(k[i]));
		k[i] = (struct worker){ .w = &w, .id = i, .rng = 0x9e3779b97f4a7c15ULL * (i + 1), .buf = page_address(p) };
		assert_int_equal(pthread_create(&t[i], NULL, worker_fn, &k[i]), 0);
	}
	for (unsigned i = 0; i < NTHREADS; i++) {
		pthread_join(t[i], NULL);
		if (k[i].bad)
			fail_msg("%lu bad: first %s", k[i].bad, k[i].first_bad);
		assert_int_equal(k[i].ops, w.iters);
		dmamap_free_pages(virt_to_page(k[i].buf), BUF_ORDER);
	}
	assert_int_equal(atomic_load(&w.reports), 0);
	dmamap_page_stats(w.m, &ps);
	assert_true(ps.allocations > 0);
	world_fini(&w);
}

/* ------------------------------------------------------ double frees */

struct racer {
	pthread_barrier_t *go;
	struct device *dev;
	struct dma_pool *pool;
	void *cpu;
	dma_addr_t h;
	size_t size;
};

static void *racer_fn(void *arg)
{
	struct racer *r = arg;

	pthread_barrier_wait(r->go);
	if (r->pool)
		dma_pool_free(r->pool, r->cpu, r->h);
	else
		dma_free_coherent(r->dev, r->size, r->cpu, r->h);
	return NULL;
}

/* Two threads free the same coherent buffer or pool block: exactly one report, the buffer freed once. */
static void race_frees(struct world *w, bool pool)
{
	unsigned rounds = under_valgrind() ? 4 : 100;

	for (int d = 0; d < NDEV; d++) {
		for (unsigned i = 0; i < rounds; i++) {
			unsigned long reports = atomic_load(&w->reports);
			struct racer r = { .dev = &w->dev[d], .size = (1 + i % 3) * PAGE_SIZE };
			struct racer rr[2];
			pthread_barrier_t go;
			pthread_t t[2];

			if (pool) {
				r.pool = w->pool[d];
				r.cpu = dma_pool_alloc(r.pool, GFP_KERNEL, &r.h);
			} else {
				r.cpu = dma_alloc_coherent(r.dev, r.size, &r.h, i % 2 ? GFP_ATOMIC : GFP_KERNEL);
			}
			assert_non_null(r.cpu);
			pthread_barrier_init(&go, NULL, 2);
			r.go = &go;
			for (int j = 0; j < 2; j++) {
				rr[j] = r;
				assert_int_equal(pthread_create(&t[j], NULL, racer_fn, &rr[j]), 0);
			}
			for (int j = 0; j < 2; j++)
				pthread_join(t[j], NULL);
			pthread_barrier_destroy(&go);
			if (atomic_load(&w->reports) != reports + 1)
				fail_msg("%s free race on %s: %lu reports, not 1", pool ? "pool" : "coherent", dev_names[d],
					 atomic_load(&w->reports) - reports);
		}
		assert_machine_consistent(w->m);
	}
}

static void double_frees(bool checker)
{
	struct world w;

	world_init(&w);
	assert_int_equal(dmamap_checker_enable(w.m, checker), 0);
	race_frees(&w, false);
	race_frees(&w, true);
	world_fini(&w); /* as it ran: switched back on, the checker would not know the pools' pages */
}

static void test_concurrent_double_frees_checker_on(void **state)
{
	(void)state;
	double_frees(true);
}

/* The ops' own records refuse the second free with the checker off too. */
static void test_concurrent_double_frees_checker_off(void **state)
{
	(void)state;
	double_frees(false);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_threads_on_shared_devices),
		cmocka_unit_test(test_concurrent_double_frees_checker_on),
		cmocka_unit_test(test_concurrent_double_frees_checker_off),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
