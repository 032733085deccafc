/* SPDX-License-Identifier: MIT */
/*
 * dmabounce through the DMA API, as a driver of a device that reaches only
 * the first 16 MiB of a 64 MiB machine sees it: data that arrives on both
 * sides (and not before it should), partial syncs, the pools and their
 * limits, direct mappings that still get cache maintenance, scatterlists
 * mixing both, every allocation failure, misuse reports, register/unregister,
 * and many threads mapping at once.
 */
#include <pthread.h>
#include <stdatomic.h>

#include "common.h"
#include "internal.h"

#include <dmamap/testing.h>

/*
 * Every handle these tests map is asked about with dma_mapping_error() at
 * once, as a correct driver does (the DMA-API checker reports a handle used
 * without it); what the tests then assert about the handle is unchanged.
 */
static dma_addr_t checked_handle(struct device *dev, dma_addr_t h)
{
	(void)dma_mapping_error(dev, h);
	return h;
}
#undef dma_map_single
#undef dma_map_single_attrs
#define dma_map_single(d, p, s, r) checked_handle((d), dmamap_map_single_attrs((d), (p), (s), (r), NULL, __FILE__, __LINE__))
#define dma_map_single_attrs(d, p, s, r, a) \
	checked_handle((d), dmamap_map_single_attrs((d), (p), (s), (r), (a), __FILE__, __LINE__))

#define ZONE_LIMIT (16u << 20)
#define SMALL 512
#define LARGE 4096

struct fx {
	struct dmamap_machine *m;
	struct device dev;
	struct capture cap;
};

static void bounce_machine(struct dmamap_machine_config *c)
{
	c->ram_base = 0;
	c->dma_zone_limit = ZONE_LIMIT;
}

/* 512 KiB of consistent region: the 256 KiB atomic pool, and 256 KiB for the safe buffers. */
static void tight_machine(struct dmamap_machine_config *c)
{
	bounce_machine(c);
	c->consistent_size = 512u << 10;
}

static struct fx *fx_new_unregistered(void (*tweak)(struct dmamap_machine_config *))
{
	struct fx *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	f->m = test_machine(64, tweak ? tweak : bounce_machine);
	dmamap_machine_set_current(f->m);
	capture_start(&f->cap, f->m);
	assert_int_equal(dmamap_device_init(&f->dev, f->m, "bouncedev"), 0);
	*f->dev.dma_mask = DMA_BIT_MASK(24);
	f->dev.coherent_dma_mask = DMA_BIT_MASK(24);
	return f;
}

static struct fx *fx_new(void (*tweak)(struct dmamap_machine_config *))
{
	struct fx *f = fx_new_unregistered(tweak);

	assert_int_equal(dmabounce_register_dev(&f->dev, SMALL, LARGE, NULL), 0);
	assert_ptr_not_equal(get_dma_ops(&f->dev), &arm_dma_ops);
	return f;
}

static void fx_free(struct fx *f)
{
	if (f->dev.archdata.dmabounce)
		assert_int_equal(dmabounce_unregister_dev(&f->dev), 0);
	dmamap_device_release(&f->dev);
	capture_stop(f->m);
	test_machine_destroy(f->m);
	free(f);
}

static struct dmabounce_stats stats(struct fx *f)
{
	struct dmabounce_stats st;

	assert_int_equal(dmabounce_get_stats(&f->dev, &st), 0);
	return st;
}

/* A buffer the device cannot reach: Normal-zone pages above 16 MiB. */
static u8 *hi_buf(struct fx *f, unsigned order)
{
	struct page *p = dmamap_alloc_pages(f->m, GFP_KERNEL, order);

	assert_non_null(p);
	assert_true(page_to_phys(p) >= ZONE_LIMIT);
	return page_address(p);
}

/* A buffer it can reach, with its lines cached and clean and RAM zero. */
static u8 *lo_buf(struct fx *f, unsigned order)
{
	struct page *p = dmamap_alloc_pages(f->m, GFP_KERNEL | GFP_DMA | __GFP_ZERO, order);

	assert_non_null(p);
	assert_true(page_to_phys(p) + (PAGE_SIZE << order) <= ZONE_LIMIT);
	dmamap_cache_clean(f->m, DMAMAP_CACHE_INNER, page_to_phys(p), PAGE_SIZE << order);
	dmamap_cache_flush(f->m, DMAMAP_CACHE_OUTER, page_to_phys(p), PAGE_SIZE << order);
	return page_address(p);
}

static void free_buf(u8 *va, unsigned order)
{
	dmamap_free_pages(virt_to_page(va), order);
}

/* 0 when [off, off+len) of @p holds those bytes of pattern @seed. */
static int range_is(const u8 *p, size_t off, size_t len, unsigned seed)
{
	u8 *tmp = malloc(off + len);
	int r;

	assert_non_null(tmp);
	fill_pattern(tmp, off + len, seed);
	r = memcmp(p + off, tmp + off, len) != 0;
	free(tmp);
	return r;
}

static bool in_zone(dma_addr_t h, size_t size)
{
	return h != DMA_MAPPING_ERROR && h + size <= ZONE_LIMIT;
}

static const size_t sizes[] = { 1, 511, 512, 513, 4096, 4097, 20000 };
enum { POOL_SMALL, POOL_LARGE, POOL_ALLOC };

static int pool_for(size_t size)
{
	return size <= SMALL ? POOL_SMALL : size <= LARGE ? POOL_LARGE : POOL_ALLOC;
}

/* ------------------------------------------------------------ data paths */

static void test_to_device_bounced(void **state)
{
	struct fx *f = fx_new(NULL);
	u8 *buf = hi_buf(f, 3), *got = malloc(20000);
	unsigned long per_pool[3] = { 0 }, bytes = 0;
	struct dmabounce_stats st;

	(void)state;
	assert_non_null(got);
	for (size_t i = 0; i < ARRAY_SIZE(sizes); i++) {
		size_t size = sizes[i];
		u8 *p = buf + 100;
		dma_addr_t h;

		fill_pattern(p, size, (unsigned)i + 1);
		h = dma_map_single(&f->dev, p, size, DMA_TO_DEVICE);
		assert_false(dma_mapping_error(&f->dev, h));
		assert_true(in_zone(h, size));
		assert_int_not_equal(h, virt_to_phys(p));
		memset(got, 0, size);
		assert_int_equal(dmamap_dev_read(&f->dev, h, got, size), 0);
		assert_int_equal(check_pattern(got, size, (unsigned)i + 1), 0);
		per_pool[pool_for(size)]++;
		bytes += size;
		st = stats(f);
		assert_int_equal(st.live_buffers, 1);
		dma_unmap_single(&f->dev, h, size, DMA_TO_DEVICE);
		assert_int_equal(check_pattern(p, size, (unsigned)i + 1), 0); /* TO_DEVICE: nothing copied back */
	}
	st = stats(f);
	assert_int_equal(st.map_calls, ARRAY_SIZE(sizes));
	assert_int_equal(st.direct_maps, 0);
	assert_int_equal(st.bounces_small, per_pool[POOL_SMALL]);
	assert_int_equal(st.bounces_large, per_pool[POOL_LARGE]);
	assert_int_equal(st.bounces_alloc, per_pool[POOL_ALLOC]);
	assert_int_equal(per_pool[POOL_SMALL], 3);
	assert_int_equal(per_pool[POOL_LARGE], 2);
	assert_int_equal(per_pool[POOL_ALLOC], 2);
	assert_int_equal(st.bytes_to_device, bytes);
	assert_int_equal(st.bytes_from_device, 0);
	assert_int_equal(st.live_buffers, 0);
	assert_int_equal(st.high_water_small, 1);
	assert_int_equal(st.high_water_large, 1);
	assert_int_equal(st.high_water_alloc, 1);
	assert_int_equal(st.failures, 0);
	assert_int_equal(f->cap.reports, 0);

	/* the original itself is out of the device's reach */
	assert_int_equal(dmamap_dev_read(&f->dev, virt_to_phys(buf), got, 16), -EFAULT);
	assert_int_equal(f->cap.by_kind[DMAMAP_REPORT_DEVICE_FAULT], 1);
	free(got);
	free_buf(buf, 3);
	fx_free(f);
}

static void test_from_device_bounced(void **state)
{
	struct fx *f = fx_new(NULL);
	u8 *buf = hi_buf(f, 3), *data = malloc(20000);
	unsigned long bytes = 0;

	(void)state;
	assert_non_null(data);
	for (size_t i = 0; i < ARRAY_SIZE(sizes); i++) {
		size_t size = sizes[i], off = 64;
		u8 *p = buf + off;
		dma_addr_t h;

		fill_pattern(buf, PAGE_SIZE << 3, 100 + (unsigned)i); /* old contents, guard bytes around */
		h = dma_map_single(&f->dev, p, size, DMA_FROM_DEVICE);
		assert_true(in_zone(h, size));
		fill_pattern(data, size, 200 + (unsigned)i);
		assert_int_equal(dmamap_dev_write(&f->dev, h, data, size), 0);
		/* not before the unmap */
		assert_int_equal(check_pattern(buf, PAGE_SIZE << 3, 100 + (unsigned)i), 0);
		dma_unmap_single(&f->dev, h, size, DMA_FROM_DEVICE);
		assert_int_equal(check_pattern(p, size, 200 + (unsigned)i), 0);
		/* and nothing around it */
		assert_int_equal(range_is(buf, 0, off, 100 + (unsigned)i), 0);
		assert_int_equal(range_is(buf, off + size, (PAGE_SIZE << 3) - off - size, 100 + (unsigned)i), 0);
		bytes += size;
	}
	assert_int_equal(stats(f).bytes_from_device, bytes);
	assert_int_equal(stats(f).live_buffers, 0);
	assert_int_equal(f->cap.reports, 0);
	free(data);
	free_buf(buf, 3);
	fx_free(f);
}

static void test_bidirectional_both_ways(void **state)
{
	struct fx *f = fx_new(NULL);
	u8 *buf = hi_buf(f, 3), *data = malloc(20000);

	(void)state;
	assert_non_null(data);
	for (size_t i = 0; i < ARRAY_SIZE(sizes); i++) {
		size_t size = sizes[i];
		dma_addr_t h;

		fill_pattern(buf, size, 300 + (unsigned)i);
		h = dma_map_single(&f->dev, buf, size, DMA_BIDIRECTIONAL);
		assert_true(in_zone(h, size));
		assert_int_equal(dmamap_dev_read(&f->dev, h, data, size), 0);
		assert_int_equal(check_pattern(data, size, 300 + (unsigned)i), 0);
		fill_pattern(data, size, 400 + (unsigned)i);
		assert_int_equal(dmamap_dev_write(&f->dev, h, data, size), 0);
		assert_int_equal(check_pattern(buf, size, 300 + (unsigned)i), 0);
		dma_unmap_single(&f->dev, h, size, DMA_BIDIRECTIONAL);
		assert_int_equal(check_pattern(buf, size, 400 + (unsigned)i), 0);
	}
	assert_int_equal(f->cap.reports, 0);
	free(data);
	free_buf(buf, 3);
	fx_free(f);
}

/*
 * The device writes only part of a FROM_DEVICE buffer: the rest keeps the
 * original's bytes, not what an earlier mapping left in the same safe block.
 */
static void test_from_device_partial_write_leaks_nothing(void **state)
{
	struct fx *f = fx_new(NULL);
	u8 *x = hi_buf(f, 0), *y = hi_buf(f, 0), data[400];
	dma_addr_t hx, hy;

	(void)state;
	fill_pattern(x, sizeof(data), 1);
	hx = dma_map_single(&f->dev, x, sizeof(data), DMA_FROM_DEVICE);
	assert_true(in_zone(hx, sizeof(data)));
	fill_pattern(data, sizeof(data), 2);
	assert_int_equal(dmamap_dev_write(&f->dev, hx, data, sizeof(data)), 0);
	dma_unmap_single(&f->dev, hx, sizeof(data), DMA_FROM_DEVICE);
	assert_int_equal(check_pattern(x, sizeof(data), 2), 0);

	fill_pattern(y, sizeof(data), 3);
	hy = dma_map_single(&f->dev, y, sizeof(data), DMA_FROM_DEVICE);
	assert_int_equal(hy, hx); /* the same block again */
	fill_pattern(data, 100, 4);
	assert_int_equal(dmamap_dev_write(&f->dev, hy, data, 100), 0);
	dma_unmap_single(&f->dev, hy, sizeof(data), DMA_FROM_DEVICE);
	assert_int_equal(check_pattern(y, 100, 4), 0);
	assert_int_equal(range_is(y, 100, sizeof(data) - 100, 3), 0);
	free_buf(x, 0);
	free_buf(y, 0);
	fx_free(f);
}

/* DMA_ATTR_SKIP_CPU_SYNC: no copy back at unmap; the driver's sync does it. */
static void test_skip_cpu_sync(void **state)
{
	struct fx *f = fx_new(NULL);
	u8 *buf = hi_buf(f, 0), data[300];
	DEFINE_DMA_ATTRS(attrs);
	dma_addr_t h;

	(void)state;
	dma_set_attr(DMA_ATTR_SKIP_CPU_SYNC, &attrs);
	fill_pattern(buf, sizeof(data), 1);
	h = dma_map_single_attrs(&f->dev, buf, sizeof(data), DMA_FROM_DEVICE, &attrs);
	assert_true(in_zone(h, sizeof(data)));
	fill_pattern(data, sizeof(data), 2);
	assert_int_equal(dmamap_dev_write(&f->dev, h, data, sizeof(data)), 0);
	dma_unmap_single_attrs(&f->dev, h, sizeof(data), DMA_FROM_DEVICE, &attrs);
	assert_int_equal(check_pattern(buf, sizeof(data), 1), 0);

	h = dma_map_single_attrs(&f->dev, buf, sizeof(data), DMA_FROM_DEVICE, &attrs);
	assert_int_equal(dmamap_dev_write(&f->dev, h, data, sizeof(data)), 0);
	dma_sync_single_for_cpu(&f->dev, h, sizeof(data), DMA_FROM_DEVICE);
	dma_unmap_single_attrs(&f->dev, h, sizeof(data), DMA_FROM_DEVICE, &attrs);
	assert_int_equal(check_pattern(buf, sizeof(data), 2), 0);
	assert_int_equal(stats(f).live_buffers, 0);
	assert_int_equal(f->cap.reports, 0);
	free_buf(buf, 0);
	fx_free(f);
}

/* ------------------------------------------------------------------ syncs */

static void test_partial_sync_for_cpu(void **state)
{
	struct fx *f = fx_new(NULL);
	u8 *buf = hi_buf(f, 0), data[4000];
	dma_addr_t h;

	(void)state;
	fill_pattern(buf, sizeof(data), 10);
	h = dma_map_single(&f->dev, buf, sizeof(data), DMA_FROM_DEVICE);
	assert_true(in_zone(h, sizeof(data)));
	fill_pattern(data, sizeof(data), 11);
	assert_int_equal(dmamap_dev_write(&f->dev, h, data, sizeof(data)), 0);

	dma_sync_single_range_for_cpu(&f->dev, h, 1000, 500, DMA_FROM_DEVICE);
	assert_int_equal(range_is(buf, 0, 1000, 10), 0);
	assert_int_equal(range_is(buf, 1000, 500, 11), 0);
	assert_int_equal(range_is(buf, 1500, sizeof(data) - 1500, 10), 0);
	assert_int_equal(stats(f).bytes_from_device, 500);

	/* any address inside the mapping, through the plain call too */
	dma_sync_single_for_cpu(&f->dev, h + 3000, 1000, DMA_FROM_DEVICE);
	assert_int_equal(range_is(buf, 0, 1000, 10), 0);
	assert_int_equal(range_is(buf, 1500, 1500, 10), 0);
	assert_int_equal(range_is(buf, 3000, 1000, 11), 0);
	/* the last byte */
	dma_sync_single_for_cpu(&f->dev, h + sizeof(data) - 1, 1, DMA_FROM_DEVICE);
	assert_int_equal(stats(f).bytes_from_device, 1501);

	dma_unmap_single(&f->dev, h, sizeof(data), DMA_FROM_DEVICE);
	assert_int_equal(check_pattern(buf, sizeof(data), 11), 0);
	assert_int_equal(f->cap.reports, 0);
	free_buf(buf, 0);
	fx_free(f);
}

static void test_partial_sync_for_device(void **state)
{
	struct fx *f = fx_new(NULL);
	u8 *buf = hi_buf(f, 0), got[4000];
	dma_addr_t h;

	(void)state;
	fill_pattern(buf, sizeof(got), 20);
	h = dma_map_single(&f->dev, buf, sizeof(got), DMA_TO_DEVICE);
	assert_true(in_zone(h, sizeof(got)));
	assert_int_equal(stats(f).bytes_to_device, sizeof(got));

	dma_sync_single_for_cpu(&f->dev, h, sizeof(got), DMA_TO_DEVICE); /* TO_DEVICE: nothing to copy */
	assert_int_equal(stats(f).bytes_from_device, 0);
	fill_pattern(buf, sizeof(got), 21);
	dma_sync_single_range_for_device(&f->dev, h, 1000, 500, DMA_TO_DEVICE);
	assert_int_equal(stats(f).bytes_to_device, sizeof(got) + 500);
	/* a look at all the device sees, while the CPU still owns the rest: the checker says so */
	assert_int_equal(dmamap_dev_read(&f->dev, h, got, sizeof(got)), 0);
	assert_int_equal(f->cap.by_kind[DMAMAP_REPORT_DEV_CPU_OWNED], 1);
	assert_int_equal(range_is(got, 0, 1000, 20), 0);
	assert_int_equal(range_is(got, 1000, 500, 21), 0);
	assert_int_equal(range_is(got, 1500, sizeof(got) - 1500, 20), 0);

	dma_sync_single_for_device(&f->dev, h, sizeof(got), DMA_TO_DEVICE);
	assert_int_equal(dmamap_dev_read(&f->dev, h, got, sizeof(got)), 0);
	assert_int_equal(check_pattern(got, sizeof(got), 21), 0);
	dma_unmap_single(&f->dev, h, sizeof(got), DMA_TO_DEVICE);
	assert_int_equal(f->cap.reports, 1);
	free_buf(buf, 0);
	fx_free(f);
}

/* Misuse of a bounced mapping: reported, nothing copied, the mapping stays. */
static void test_misuse_reported_and_refused(void **state)
{
	struct fx *f = fx_new(NULL);
	u8 *buf = hi_buf(f, 0), data[1000];
	struct dmabounce_stats before, after;
	dma_addr_t h;

	(void)state;
	fill_pattern(buf, sizeof(data), 30);
	h = dma_map_single(&f->dev, buf, sizeof(data), DMA_FROM_DEVICE);
	assert_true(in_zone(h, sizeof(data)));
	fill_pattern(data, sizeof(data), 31);
	assert_int_equal(dmamap_dev_write(&f->dev, h, data, sizeof(data)), 0);
	before = stats(f);

	/* sync with another direction */
	dma_sync_single_for_cpu(&f->dev, h, sizeof(data), DMA_BIDIRECTIONAL);
	assert_int_equal(f->cap.by_kind[DMAMAP_REPORT_API_MISUSE], 1);
	assert_int_equal(check_pattern(buf, sizeof(data), 30), 0);
	dma_sync_single_for_device(&f->dev, h + 10, 10, DMA_TO_DEVICE);
	assert_int_equal(f->cap.by_kind[DMAMAP_REPORT_API_MISUSE], 2);
	/* a range running past the end */
	dma_sync_single_range_for_cpu(&f->dev, h, sizeof(data) - 10, 11, DMA_FROM_DEVICE);
	assert_int_equal(f->cap.by_kind[DMAMAP_REPORT_API_MISUSE], 3);
	assert_int_equal(check_pattern(buf, sizeof(data), 30), 0);
	/* unmap with another direction, another size, inside the mapping */
	dma_unmap_single(&f->dev, h, sizeof(data), DMA_TO_DEVICE);
	dma_unmap_single(&f->dev, h, sizeof(data) - 1, DMA_FROM_DEVICE);
	dma_unmap_single(&f->dev, h + 32, sizeof(data) - 32, DMA_FROM_DEVICE);
	assert_int_equal(f->cap.by_kind[DMAMAP_REPORT_API_MISUSE], 6);
	assert_int_equal(f->cap.reports, 6);
	assert_int_equal(check_pattern(buf, sizeof(data), 30), 0);
	after = stats(f);
	assert_memory_equal(&before, &after, sizeof(before));
	assert_int_equal(after.live_buffers, 1);

	/* the mapping is intact: the right unmap still works */
	dma_unmap_single(&f->dev, h, sizeof(data), DMA_FROM_DEVICE);
	assert_int_equal(check_pattern(buf, sizeof(data), 31), 0);
	assert_int_equal(stats(f).live_buffers, 0);
	assert_int_equal(f->cap.reports, 6);
	free_buf(buf, 0);
	fx_free(f);
}

/*
 * A bounced DMA_BIDIRECTIONAL mapping may be synced with the direction of the
 * hand over alone, as in the kernel: DMA_FROM_DEVICE for the CPU copies the
 * device's bytes out, DMA_TO_DEVICE for the device copies the CPU's in, for
 * a single mapping and for a list. A one-way mapping is still synced its own
 * way only: a sync of another direction, whose copy would overwrite the side
 * holding the newer bytes, is refused and copies nothing. The fixture of
 * <dmamap/testing.h>, with the DMA-API checker on (which refuses those syncs
 * first) and off (the ops set does).
 */
static void bounced_synced_one_way(struct dmamap_test *t)
{
	struct page *pg = dmamap_alloc_pages(t->machine, GFP_KERNEL | __GFP_ZERO, 1);
	u8 *buf, data[300], reply[300], a[256], b[256];
	struct dmabounce_stats st0, st;
	int line[4];
	dma_addr_t h;

	assert_non_null(pg);
	assert_true(page_to_phys(pg) > dma_get_mask(&t->dev)); /* out of the device's reach: every mapping bounces */
	buf = page_address(pg);
	fill_pattern(data, sizeof(data), 61);
	fill_pattern(reply, sizeof(reply), 62);
	h = dma_map_single(&t->dev, buf + 100, sizeof(data), DMA_BIDIRECTIONAL);
	assert_false(dma_mapping_error(&t->dev, h));
	assert_int_not_equal(h, virt_to_phys(buf + 100));
	assert_int_equal(dmamap_dev_write(&t->dev, h, data, sizeof(data)), 0);
	assert_int_equal(dmabounce_get_stats(&t->dev, &st0), 0);
	dma_sync_single_for_cpu(&t->dev, h, sizeof(data), DMA_FROM_DEVICE);
	assert_memory_equal(buf + 100, data, sizeof(data));
	memcpy(buf + 100, reply, sizeof(reply));
	dma_sync_single_for_device(&t->dev, h, sizeof(reply), DMA_TO_DEVICE);
	dmamap_assert_device_sees(t, h, reply, sizeof(reply));
	assert_int_equal(dmabounce_get_stats(&t->dev, &st), 0);
	assert_int_equal(st.bytes_from_device, st0.bytes_from_device + sizeof(data));
	assert_int_equal(st.bytes_to_device, st0.bytes_to_device + sizeof(reply));
	dma_unmap_single(&t->dev, h, sizeof(data), DMA_BIDIRECTIONAL);
	assert_memory_equal(buf + 100, reply, sizeof(reply));

	sg_synced_one_way(t, buf, data, reply);

	/* TO_DEVICE, taken back and written by the CPU: a copy out would put a back over b */
	fill_pattern(a, sizeof(a), 63);
	fill_pattern(b, sizeof(b), 64);
	memcpy(buf, a, sizeof(a));
	h = dma_map_single(&t->dev, buf, sizeof(a), DMA_TO_DEVICE);
	assert_false(dma_mapping_error(&t->dev, h));
	dma_sync_single_for_cpu(&t->dev, h, sizeof(a), DMA_TO_DEVICE);
	memcpy(buf, b, sizeof(b));
	assert_int_equal(dmabounce_get_stats(&t->dev, &st0), 0);
	line[0] = __LINE__ + 1;
	dma_sync_single_for_cpu(&t->dev, h, sizeof(a), DMA_FROM_DEVICE);
	line[1] = __LINE__ + 1;
	dma_sync_single_for_cpu(&t->dev, h, sizeof(a), DMA_BIDIRECTIONAL);
	assert_memory_equal(buf, b, sizeof(b));
	dma_sync_single_for_device(&t->dev, h, sizeof(b), DMA_TO_DEVICE);
	dmamap_assert_device_sees(t, h, b, sizeof(b));
	dma_unmap_single(&t->dev, h, sizeof(a), DMA_TO_DEVICE);

	/* FROM_DEVICE, written by the device: a copy in would put the CPU's stale bytes over them */
	h = dma_map_single(&t->dev, buf, sizeof(a), DMA_FROM_DEVICE);
	assert_false(dma_mapping_error(&t->dev, h));
	assert_int_equal(dmamap_dev_write(&t->dev, h, a, sizeof(a)), 0);
	line[2] = __LINE__ + 1;
	dma_sync_single_for_device(&t->dev, h, sizeof(a), DMA_TO_DEVICE);
	line[3] = __LINE__ + 1;
	dma_sync_single_for_device(&t->dev, h, sizeof(a), DMA_BIDIRECTIONAL);
	dma_unmap_single(&t->dev, h, sizeof(a), DMA_FROM_DEVICE);
	assert_memory_equal(buf, a, sizeof(a));
	assert_int_equal(dmabounce_get_stats(&t->dev, &st), 0);
	/* besides the refused syncs' nothing: one sync and one map copied in, one unmap out */
	assert_int_equal(st.bytes_to_device, st0.bytes_to_device + 2 * sizeof(a));
	assert_int_equal(st.bytes_from_device, st0.bytes_from_device + sizeof(a));
	assert_int_equal(t->reports, 4);
	for (int i = 0; i < 4; i++)
		dmamap_assert_reported(t, DMAMAP_REPORT_API_MISUSE, "test-dmabounce.c", line[i]);
	dmamap_free_pages(pg, 1);
}

static void test_bidirectional_synced_one_way(void **state)
{
	const struct dmamap_test_traits tr = { .bounce = true, .quiet = true };

	(void)state;
	for (int checker = 1; checker >= 0; checker--) {
		struct dmamap_test t;

		assert_int_equal(dmamap_test_init(&t, &tr), 0);
		assert_int_equal(dmamap_checker_enable(t.machine, checker), 0);
		bounced_synced_one_way(&t);
		assert_machine_consistent(t.machine);
		dmamap_test_fini(&t);
		assert_int_equal(t.reports, 4);
	}
}

/*
 * A bounced mapping's safe buffer lies in a pool the library mapped for
 * itself, so the checker holds several records of that bus range. While
 * other mappings grow the checker's index (each growth reorders its chains),
 * the driver's calls are still judged against the driver's own mapping: a
 * sync one byte past its end is refused every time, and one inside it brings
 * the device's bytes.
 */
static void test_bounced_found_after_the_index_grows(void **state)
{
	enum { NLO = 20, LO_ORDER = 6 };
	struct fx *f = fx_new(NULL);
	u8 *buf = hi_buf(f, 0), data[1000];
	u8 *lo[NLO];
	dma_addr_t h, hl[NLO];
	struct dmamap_checker_stats cs;
	unsigned long reports = 0;

	(void)state;
	fill_pattern(buf, sizeof(data), 40);
	h = dma_map_single(&f->dev, buf, sizeof(data), DMA_FROM_DEVICE);
	assert_true(in_zone(h, sizeof(data)));
	assert_int_equal(stats(f).bounces_large, 1);
	fill_pattern(data, sizeof(data), 41);
	assert_int_equal(dmamap_dev_write(&f->dev, h, data, sizeof(data)), 0);
	/* 5 MiB of direct mappings, 64 pages at a time: the index grows more than once */
	for (int i = 0; i < NLO; i++) {
		lo[i] = lo_buf(f, LO_ORDER);
		hl[i] = dma_map_single(&f->dev, lo[i], PAGE_SIZE << LO_ORDER, DMA_TO_DEVICE);
		assert_int_equal(hl[i], virt_to_phys(lo[i]));
		dma_sync_single_for_cpu(&f->dev, h, sizeof(data) + 1, DMA_FROM_DEVICE);
		assert_int_equal(f->cap.reports, ++reports);
		assert_int_equal(f->cap.rec_last.kind, DMAMAP_REPORT_SYNC_RANGE);
		assert_int_equal(f->cap.rec_last.map_bus_addr, h);
		assert_int_equal(f->cap.rec_last.map_size, sizeof(data));
		assert_int_equal(check_pattern(buf, sizeof(data), 40), 0);
	}
	dmamap_checker_stats(f->m, &cs);
	assert_int_equal(cs.live_single, 1 + NLO);

	dma_sync_single_range_for_cpu(&f->dev, h, 900, 100, DMA_FROM_DEVICE);
	assert_int_equal(range_is(buf, 0, 900, 40), 0);
	assert_int_equal(range_is(buf, 900, 100, 41), 0);
	dma_unmap_single(&f->dev, h, sizeof(data), DMA_FROM_DEVICE);
	assert_int_equal(check_pattern(buf, sizeof(data), 41), 0);
	for (int i = 0; i < NLO; i++) {
		dma_unmap_single(&f->dev, hl[i], PAGE_SIZE << LO_ORDER, DMA_TO_DEVICE);
		free_buf(lo[i], LO_ORDER);
	}
	assert_int_equal(f->cap.reports, reports);
	assert_int_equal(stats(f).live_buffers, 0);
	free_buf(buf, 0);
	fx_free(f);
}

/* ------------------------------------------------------- direct mappings */

static void test_reachable_buffer_not_bounced_but_maintained(void **state)
{
	struct fx *f = fx_new(NULL);
	u8 *buf = lo_buf(f, 1), got[6000];
	struct dmabounce_stats st;
	dma_addr_t h;

	(void)state;
	fill_pattern(buf, sizeof(got), 40);
	/* the CPU's stores sit in its cache: RAM is still zero (a look the checker calls unmapped) */
	assert_int_equal(dmamap_dev_read(&f->dev, virt_to_phys(buf), got, sizeof(got)), 0);
	assert_int_not_equal(check_pattern(got, sizeof(got), 40), 0);
	assert_int_equal(f->cap.by_kind[DMAMAP_REPORT_DEV_UNMAPPED], 1);

	h = dma_map_single(&f->dev, buf, sizeof(got), DMA_TO_DEVICE);
	assert_int_equal(h, virt_to_phys(buf));
	assert_int_equal(dmamap_dev_read(&f->dev, h, got, sizeof(got)), 0);
	assert_int_equal(check_pattern(got, sizeof(got), 40), 0); /* cleaned by the map */
	dma_unmap_single(&f->dev, h, sizeof(got), DMA_TO_DEVICE);

	h = dma_map_single(&f->dev, buf, sizeof(got), DMA_FROM_DEVICE);
	assert_int_equal(h, virt_to_phys(buf));
	fill_pattern(got, sizeof(got), 41);
	assert_int_equal(dmamap_dev_write(&f->dev, h, got, sizeof(got)), 0);
	dma_sync_single_for_cpu(&f->dev, h, sizeof(got), DMA_FROM_DEVICE); /* arm's sync: invalidate */
	assert_int_equal(check_pattern(buf, sizeof(got), 41), 0);
	dma_unmap_single(&f->dev, h, sizeof(got), DMA_FROM_DEVICE);
	assert_int_equal(check_pattern(buf, sizeof(got), 41), 0);

	st = stats(f);
	assert_int_equal(st.map_calls, 2);
	assert_int_equal(st.direct_maps, 2);
	assert_int_equal(st.bounces_small + st.bounces_large + st.bounces_alloc, 0);
	assert_int_equal(st.bytes_to_device + st.bytes_from_device, 0);
	assert_int_equal(f->cap.reports, 1);
	free_buf(buf, 1);
	fx_free(f);
}

/* Entries mixing bounced and direct, through dma_map_sg and the sg syncs. */
static void test_sg_mixed(void **state)
{
	struct fx *f = fx_new(NULL);
	u8 *hi = hi_buf(f, 3), *lo = lo_buf(f, 2), *got = malloc(8000);
	struct { u8 *p; unsigned len; bool bounced; } ent[] = {
		{ hi, 300, true }, { lo, 1000, false }, { hi + 4096, 3000, true },
		{ lo + 1024, 5000, false }, { hi + 8192, 8000, true },
	};
	struct scatterlist sg[ARRAY_SIZE(ent)];
	struct scatterlist *s;
	struct dmabounce_stats st;
	int i, n = (int)ARRAY_SIZE(ent);

	(void)state;
	assert_non_null(got);
	sg_init_table(sg, ARRAY_SIZE(ent));
	for (i = 0; i < n; i++) {
		fill_pattern(ent[i].p, ent[i].len, 50 + (unsigned)i);
		sg_set_buf(&sg[i], ent[i].p, ent[i].len);
	}
	assert_int_equal(dma_map_sg(&f->dev, sg, n, DMA_BIDIRECTIONAL), n);
	for_each_sg(sg, s, n, i) {
		dma_addr_t h = sg_dma_address(s);

		assert_int_equal(sg_dma_len(s), ent[i].len);
		assert_true(in_zone(h, ent[i].len));
		if (ent[i].bounced)
			assert_int_not_equal(h, virt_to_phys(ent[i].p));
		else
			assert_int_equal(h, virt_to_phys(ent[i].p));
		assert_int_equal(dmamap_dev_read(&f->dev, h, got, ent[i].len), 0);
		assert_int_equal(check_pattern(got, ent[i].len, 50 + (unsigned)i), 0);
		fill_pattern(got, ent[i].len, 60 + (unsigned)i);
		assert_int_equal(dmamap_dev_write(&f->dev, h, got, ent[i].len), 0);
	}
	st = stats(f);
	assert_int_equal(st.direct_maps, 2);
	assert_int_equal(st.bounces_small, 1);
	assert_int_equal(st.bounces_large, 1);
	assert_int_equal(st.bounces_alloc, 1);
	assert_int_equal(st.live_buffers, 3);

	dma_sync_sg_for_cpu(&f->dev, sg, n, DMA_BIDIRECTIONAL);
	for (i = 0; i < n; i++)
		assert_int_equal(check_pattern(ent[i].p, ent[i].len, 60 + (unsigned)i), 0);
	/* the CPU answers, the device reads it after sync_for_device */
	for (i = 0; i < n; i++)
		fill_pattern(ent[i].p, ent[i].len, 70 + (unsigned)i);
	dma_sync_sg_for_device(&f->dev, sg, n, DMA_BIDIRECTIONAL);
	for_each_sg(sg, s, n, i) {
		assert_int_equal(dmamap_dev_read(&f->dev, sg_dma_address(s), got, ent[i].len), 0);
		assert_int_equal(check_pattern(got, ent[i].len, 70 + (unsigned)i), 0);
		fill_pattern(got, ent[i].len, 80 + (unsigned)i);
		assert_int_equal(dmamap_dev_write(&f->dev, sg_dma_address(s), got, ent[i].len), 0);
	}
	dma_unmap_sg(&f->dev, sg, n, DMA_BIDIRECTIONAL);
	for (i = 0; i < n; i++)
		assert_int_equal(check_pattern(ent[i].p, ent[i].len, 80 + (unsigned)i), 0);
	assert_int_equal(stats(f).live_buffers, 0);
	assert_int_equal(f->cap.reports, 0);
	free(got);
	free_buf(hi, 3);
	free_buf(lo, 2);
	fx_free(f);
}

/*
 * A mapping larger than a large-pool block gets a coherent allocation of its
 * own, kept when it is unmapped and taken again by the next large mapping
 * (of at least half its size): no allocation, the same bus address, each
 * mapping's own bytes. Unregistering gives the kept allocations back.
 */
static void test_large_safe_buffer_kept_for_reuse(void **state)
{
	struct fx *f = fx_new(NULL);
	u8 *buf = hi_buf(f, 3), *got = malloc(20000);
	struct dmamap_consistent_stats c0, c;
	struct dmamap_page_stats p0, p;
	dma_addr_t h1, h2, h3;

	(void)state;
	assert_non_null(got);
	dmamap_consistent_stats(f->m, &c0);
	fill_pattern(buf, 20000, 3);
	h1 = dma_map_single(&f->dev, buf, 20000, DMA_TO_DEVICE);
	assert_int_equal(dmamap_dev_read(&f->dev, h1, got, 20000), 0);
	assert_int_equal(check_pattern(got, 20000, 3), 0);
	dma_unmap_single(&f->dev, h1, 20000, DMA_TO_DEVICE);
	dmamap_consistent_stats(f->m, &c);
	assert_int_equal(c.regions, c0.regions + 1); /* kept, mapped uncached */
	dmamap_page_stats(f->m, &p0);

	/* a smaller FROM_DEVICE mapping takes it: no allocation */
	fill_pattern(buf, 16384, 4);
	h2 = dma_map_single(&f->dev, buf, 16384, DMA_FROM_DEVICE);
	assert_int_equal(h2, h1);
	dmamap_page_stats(f->m, &p);
	assert_int_equal(p.allocations, p0.allocations);
	/* the device writes half: the other half keeps the original's bytes, not the last mapping's */
	fill_pattern(got, 8192, 5);
	assert_int_equal(dmamap_dev_write(&f->dev, h2, got, 8192), 0);
	dma_unmap_single(&f->dev, h2, 16384, DMA_FROM_DEVICE);
	assert_int_equal(check_pattern(buf, 8192, 5), 0);
	assert_int_equal(range_is(buf, 8192, 8192, 4), 0);

	/* one under half its size makes its own; both are kept then */
	h3 = dma_map_single(&f->dev, buf, 6000, DMA_TO_DEVICE);
	assert_int_not_equal(h3, h1);
	dma_unmap_single(&f->dev, h3, 6000, DMA_TO_DEVICE);
	dmamap_consistent_stats(f->m, &c);
	assert_int_equal(c.regions, c0.regions + 2);
	assert_int_equal(stats(f).bounces_alloc, 3);
	assert_int_equal(stats(f).live_buffers, 0);

	/* a shrink gives them back; so does unregistering */
	dmamap_dmabounce_shrink(&f->dev);
	dmamap_consistent_stats(f->m, &c);
	assert_int_equal(c.regions, c0.regions);
	h1 = dma_map_single(&f->dev, buf, 20000, DMA_TO_DEVICE);
	dma_unmap_single(&f->dev, h1, 20000, DMA_TO_DEVICE);
	assert_int_equal(dmabounce_unregister_dev(&f->dev), 0);
	dmamap_consistent_stats(f->m, &c);
	assert_int_equal(c.regions, c0.regions);
	assert_int_equal(f->cap.reports, 0);
	free(got);
	free_buf(buf, 3);
	fx_free(f);
}

/* An sg entry that cannot be bounced unwinds the entries mapped before it. */
static void test_sg_failure_unwinds(void **state)
{
	struct fx *f = fx_new(NULL);
	u8 *hi = hi_buf(f, 2);
	struct scatterlist sg[3];
	struct dmabounce_stats st;

	(void)state;
	sg_init_table(sg, 3);
	sg_set_buf(&sg[0], hi, 300);
	sg_set_buf(&sg[1], hi + 4096, 3000);
	sg_set_buf(&sg[2], hi + 8192, 6000);
	fill_pattern(hi, 300, 1);
	/* once, so that both pools hold a free block */
	assert_int_equal(dma_map_sg(&f->dev, sg, 3, DMA_TO_DEVICE), 3);
	dma_unmap_sg(&f->dev, sg, 3, DMA_TO_DEVICE);
	/* the third entry's own coherent allocation fails: the first two are unmapped */
	dmamap_dmabounce_shrink(&f->dev); /* the one kept from the first map is given back */
	assert_int_equal(dmamap_fault_inject(f->m, DMAMAP_FAULT_PAGE_ALLOC, 1, 0), 0);
	assert_int_equal(dma_map_sg(&f->dev, sg, 3, DMA_TO_DEVICE), 0);
	assert_int_equal(dmamap_fault_injected(f->m, DMAMAP_FAULT_PAGE_ALLOC), 1);
	assert_int_equal(dmamap_fault_inject(f->m, DMAMAP_FAULT_PAGE_ALLOC, 0, 0), 0);
	st = stats(f);
	assert_int_equal(st.live_buffers, 0);
	assert_int_equal(st.failures, 1);
	assert_int_equal(st.bounces_small + st.bounces_large, 4);
	assert_int_equal(st.bounces_alloc, 1);
	assert_int_equal(dma_map_sg(&f->dev, sg, 3, DMA_TO_DEVICE), 3);
	dma_unmap_sg(&f->dev, sg, 3, DMA_TO_DEVICE);
	assert_int_equal(stats(f).live_buffers, 0);
	free_buf(hi, 2);
	fx_free(f);
}

/* ------------------------------------------------------------------ pools */

/* Hundreds of live mappings: each found by any address inside it, none sharing bytes. */
static int cmp_addr(const void *a, const void *b)
{
	dma_addr_t x = *(const dma_addr_t *)a, y = *(const dma_addr_t *)b;

	return x < y ? -1 : x > y;
}

static void test_many_live_mappings(void **state)
{
	enum { N = 300 };
	struct fx *f = fx_new(NULL);
	u8 *bufs[N], got[LARGE];
	dma_addr_t h[N], sorted[N];
	size_t size[N];
	struct dmabounce_stats st;
	int i;

	(void)state;
	for (i = 0; i < N; i++) {
		bufs[i] = hi_buf(f, 0);
		size[i] = i % 3 == 2 ? 1000 + (size_t)i : 100 + (size_t)i;
		fill_pattern(bufs[i], size[i], 1000 + (unsigned)i);
		h[i] = dma_map_single(&f->dev, bufs[i], size[i], DMA_BIDIRECTIONAL);
		assert_true(in_zone(h[i], size[i]));
	}
	st = stats(f);
	assert_int_equal(st.live_buffers, N);
	assert_int_equal(st.high_water_small, 200);
	assert_int_equal(st.high_water_large, 100);
	memcpy(sorted, h, sizeof(h));
	qsort(sorted, N, sizeof(sorted[0]), cmp_addr);
	for (i = 1; i < N; i++)
		assert_true(sorted[i] - sorted[i - 1] >= SMALL); /* blocks never overlap */

	for (i = 0; i < N; i++) {
		size_t mid = size[i] / 2;

		assert_int_equal(dmamap_dev_read(&f->dev, h[i], got, size[i]), 0);
		assert_int_equal(check_pattern(got, size[i], 1000 + (unsigned)i), 0);
		fill_pattern(got, size[i], 5000 + (unsigned)i);
		assert_int_equal(dmamap_dev_write(&f->dev, h[i], got, size[i]), 0);
		/* the second half, found from its middle */
		dma_sync_single_for_cpu(&f->dev, h[i] + mid, size[i] - mid, DMA_BIDIRECTIONAL);
		assert_int_equal(range_is(bufs[i], 0, mid, 1000 + (unsigned)i), 0);
		assert_int_equal(range_is(bufs[i], mid, size[i] - mid, 5000 + (unsigned)i), 0);
	}
	/* unmap in a scrambled order (7 is prime to 300) */
	for (i = 0; i < N; i++) {
		int k = (i * 7) % N;

		dma_unmap_single(&f->dev, h[k], size[k], DMA_BIDIRECTIONAL);
		assert_int_equal(check_pattern(bufs[k], size[k], 5000 + (unsigned)k), 0);
	}
	st = stats(f);
	assert_int_equal(st.live_buffers, 0);
	assert_int_equal(st.bounces_small, 200);
	assert_int_equal(st.bounces_large, 100);
	assert_int_equal(f->cap.reports, 0);
	for (i = 0; i < N; i++)
		free_buf(bufs[i], 0);
	fx_free(f);
}

/*
 * Random interleaving of maps and unmaps over up to 256 live mappings: after
 * each step a byte the device writes at a random address inside a random
 * live mapping reaches exactly that byte of its original through a one-byte
 * sync -- the lookup finds the right buffer from any address inside it.
 */
static void test_random_map_unmap_lookup(void **state)
{
	enum { SLOTS = 256 };
	struct fx *f = fx_new(NULL);
	u8 *bufs[SLOTS];
	dma_addr_t h[SLOTS];
	size_t size[SLOTS];
	uint64_t rng = 12345;
	unsigned long live = 0, maps = 0;
	int steps = under_valgrind() ? 1000 : 4000;

	(void)state;
	for (int i = 0; i < SLOTS; i++) {
		bufs[i] = hi_buf(f, 0);
		size[i] = 0;
	}
	for (int step = 0; step < steps; step++) {
		int i;

		rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
		i = (int)((rng >> 33) % SLOTS);
		if (size[i]) {
			dma_unmap_single(&f->dev, h[i], size[i], DMA_BIDIRECTIONAL);
			size[i] = 0;
			live--;
		} else {
			size[i] = 1 + (size_t)((rng >> 17) % 4096);
			memset(bufs[i], 0xee, size[i]);
			h[i] = dma_map_single(&f->dev, bufs[i], size[i], DMA_BIDIRECTIONAL);
			assert_true(in_zone(h[i], size[i]));
			live++;
			maps++;
		}
		/* probe one live mapping */
		for (int k = 0; k < SLOTS; k++) {
			int j = (i + k) % SLOTS;
			size_t off;
			u8 v;

			if (!size[j])
				continue;
			off = (size_t)(rng >> 7) % size[j];
			v = (u8)step;
			if (v == 0xee)
				v = 0x11;
			assert_int_equal(dmamap_dev_write(&f->dev, h[j] + off, &v, 1), 0);
			dma_sync_single_for_cpu(&f->dev, h[j] + off, 1, DMA_BIDIRECTIONAL);
			assert_int_equal(bufs[j][off], v);
			if (off)
				assert_int_equal(bufs[j][off - 1], 0xee);
			bufs[j][off] = 0xee;
			dma_sync_single_for_device(&f->dev, h[j] + off, 1, DMA_BIDIRECTIONAL);
			break;
		}
		assert_int_equal(stats(f).live_buffers, live);
	}
	for (int i = 0; i < SLOTS; i++) {
		if (size[i])
			dma_unmap_single(&f->dev, h[i], size[i], DMA_BIDIRECTIONAL);
		free_buf(bufs[i], 0);
	}
	assert_int_equal(stats(f).live_buffers, 0);
	assert_int_equal(stats(f).map_calls, maps);
	assert_int_equal(f->cap.reports, 0);
	fx_free(f);
}

/* A pool that cannot take a block falls back to a coherent allocation. */
static void test_pool_failure_falls_back(void **state)
{
	struct fx *f = fx_new(NULL);
	u8 *buf = hi_buf(f, 0), got[300];
	struct dmabounce_stats st;
	dma_addr_t h;

	(void)state;
	fill_pattern(buf, sizeof(got), 90);
	assert_int_equal(dmamap_fault_inject(f->m, DMAMAP_FAULT_POOL, 1, 0), 0);
	h = dma_map_single(&f->dev, buf, sizeof(got), DMA_TO_DEVICE);
	assert_int_equal(dmamap_fault_injected(f->m, DMAMAP_FAULT_POOL), 1);
	assert_true(in_zone(h, sizeof(got)));
	assert_int_equal(dmamap_dev_read(&f->dev, h, got, sizeof(got)), 0);
	assert_int_equal(check_pattern(got, sizeof(got), 90), 0);
	st = stats(f);
	assert_int_equal(st.bounces_small, 0);
	assert_int_equal(st.bounces_alloc, 1);
	assert_int_equal(st.high_water_alloc, 1);
	dma_unmap_single(&f->dev, h, sizeof(got), DMA_TO_DEVICE);
	assert_int_equal(stats(f).live_buffers, 0);
	assert_int_equal(f->cap.reports, 0);
	free_buf(buf, 0);
	fx_free(f);
}

/* Fill the coherent memory: the pool cannot grow, the fallback fails, nothing leaks. */
static void test_pool_exhaustion(void **state)
{
	enum { MAX = 200 };
	struct fx *f = fx_new(tight_machine);
	u8 *buf = hi_buf(f, 0), got[LARGE];
	dma_addr_t h[MAX];
	struct dmabounce_stats before, st;
	struct dmamap_page_stats pb, pa;
	int n;

	(void)state;
	fill_pattern(buf, LARGE, 95);
	for (n = 0; n < MAX; n++) {
		h[n] = dma_map_single(&f->dev, buf, LARGE, DMA_TO_DEVICE);
		if (dma_mapping_error(&f->dev, h[n]))
			break;
	}
	assert_true(n > 8 && n < MAX);
	/* the failed one changed nothing but the failure count; a retry fails the same way */
	before = stats(f);
	assert_int_equal(before.failures, 1);
	assert_int_equal(before.live_buffers, (unsigned long)n);
	dmamap_page_stats(f->m, &pb);
	assert_true(dma_mapping_error(&f->dev, dma_map_single(&f->dev, buf, LARGE, DMA_TO_DEVICE)));
	dmamap_page_stats(f->m, &pa);
	assert_memory_equal(pb.free_pages, pa.free_pages, sizeof(pb.free_pages));
	st = stats(f);
	assert_int_equal(st.failures, 2);
	assert_int_equal(st.live_buffers, (unsigned long)n);
	assert_int_equal(st.bounces_large + st.bounces_alloc, (unsigned long)n);
	assert_int_equal(f->cap.reports, 0);

	/* every mapping still carries its data */
	assert_int_equal(dmamap_dev_read(&f->dev, h[n - 1], got, LARGE), 0);
	assert_int_equal(check_pattern(got, LARGE, 95), 0);
	for (int i = 0; i < n; i++)
		dma_unmap_single(&f->dev, h[i], LARGE, DMA_TO_DEVICE);
	st = stats(f);
	assert_int_equal(st.live_buffers, 0);
	/* and the pool serves again */
	h[0] = dma_map_single(&f->dev, buf, LARGE, DMA_TO_DEVICE);
	assert_false(dma_mapping_error(&f->dev, h[0]));
	dma_unmap_single(&f->dev, h[0], LARGE, DMA_TO_DEVICE);
	assert_int_equal(stats(f).bounces_large, st.bounces_large + 1);
	free_buf(buf, 0);
	fx_free(f);
}

/* A safe buffer the device cannot reach either fails the mapping, reported. */
static void test_safe_buffer_beyond_mask(void **state)
{
	struct fx *f = fx_new_unregistered(NULL);
	u8 *buf = hi_buf(f, 0);
	struct dmabounce_stats st;
	dma_addr_t h;

	(void)state;
	f->dev.coherent_dma_mask = DMA_BIT_MASK(32); /* coherent memory may now lie anywhere */
	assert_int_equal(dmabounce_register_dev(&f->dev, SMALL, LARGE, NULL), 0);
	h = dma_map_single(&f->dev, buf, 300, DMA_TO_DEVICE);
	assert_true(dma_mapping_error(&f->dev, h));
	assert_int_equal(f->cap.by_kind[DMAMAP_REPORT_API_MISUSE], 1);
	st = stats(f);
	assert_int_equal(st.failures, 1);
	assert_int_equal(st.live_buffers, 0);
	assert_int_equal(st.bounces_small, 0);
	free_buf(buf, 0);
	fx_free(f);
}

/* ------------------------------------------------------- fault injection */

struct snapshot {
	struct dmamap_page_stats pages;
	struct dmabounce_stats bounce;
	struct dmamap_coherent_stats coh;
};

static void snap(struct fx *f, struct snapshot *s)
{
	dmamap_page_stats(f->m, &s->pages);
	dmamap_coherent_stats(f->m, &s->coh);
	s->bounce = stats(f);
}

/*
 * Fail each allocation of one bounce in turn (every attempt at @site, from
 * the first on, until the map no longer meets one): each failure returns
 * DMA_MAPPING_ERROR with the pages, the consistent region and the live
 * buffers as they were.
 */
static unsigned fail_each_step(struct fx *f, u8 *buf, size_t size, enum dmamap_fault_site site)
{
	unsigned failed = 0;
	u8 got[64];

	for (unsigned long nth = 1;; nth++) {
		struct snapshot a, b;
		unsigned long inj = dmamap_fault_injected(f->m, site);
		dma_addr_t h;

		/* no allocation kept from the last round: this bounce makes its own */
		dmamap_dmabounce_shrink(&f->dev);
		snap(f, &a);
		assert_int_equal(dmamap_fault_inject(f->m, site, nth, 0), 0);
		h = dma_map_single(&f->dev, buf, size, DMA_TO_DEVICE);
		assert_int_equal(dmamap_fault_inject(f->m, site, 0, 0), 0);
		if (dmamap_fault_injected(f->m, site) == inj) {
			assert_false(dma_mapping_error(&f->dev, h));
			assert_int_equal(dmamap_dev_read(&f->dev, h, got, sizeof(got)), 0);
			assert_int_equal(check_pattern(got, sizeof(got), 7), 0);
			dma_unmap_single(&f->dev, h, size, DMA_TO_DEVICE);
			return failed;
		}
		snap(f, &b);
		if (!dma_mapping_error(&f->dev, h)) {
			/* only a pool failure is survivable: the coherent fallback took over */
			assert_int_equal(site, DMAMAP_FAULT_POOL);
			dma_unmap_single(&f->dev, h, size, DMA_TO_DEVICE);
			continue;
		}
		failed++;
		assert_memory_equal(a.pages.free_pages, b.pages.free_pages, sizeof(a.pages.free_pages));
		assert_int_equal(a.coh.contiguous_free, b.coh.contiguous_free);
		assert_int_equal(a.coh.atomic_pool_free, b.coh.atomic_pool_free);
		assert_int_equal(b.bounce.live_buffers, a.bounce.live_buffers);
		assert_int_equal(b.bounce.failures, a.bounce.failures + 1);
		assert_int_equal(b.bounce.bytes_to_device, a.bounce.bytes_to_device);
		assert_true(nth < 50);
	}
}

static void test_fault_injection_unwinds(void **state)
{
	struct fx *f = fx_new(NULL);
	u8 *buf = hi_buf(f, 3);
	static const enum dmamap_fault_site sites[] = { DMAMAP_FAULT_HOST_ALLOC, DMAMAP_FAULT_PAGE_ALLOC,
							DMAMAP_FAULT_REMAP, DMAMAP_FAULT_POOL };
	unsigned failed[ARRAY_SIZE(sites)];
	dma_addr_t h;

	(void)state;
	fill_pattern(buf, 20000, 7);
	/* a large bounce: its own coherent allocation */
	for (size_t i = 0; i < ARRAY_SIZE(sites); i++)
		failed[i] = fail_each_step(f, buf, 20000, sites[i]);
	assert_true(failed[0] >= 1); /* the bookkeeping node */
	assert_true(failed[1] >= 1); /* the pages */
	assert_true(failed[2] >= 1); /* their uncached mapping */
	assert_int_equal(failed[3], 0); /* no pool involved */

	/* a large-pool bounce (the pool already holds a free block) */
	h = dma_map_single(&f->dev, buf, 4000, DMA_TO_DEVICE);
	dma_unmap_single(&f->dev, h, 4000, DMA_TO_DEVICE);
	for (size_t i = 0; i < ARRAY_SIZE(sites); i++)
		failed[i] = fail_each_step(f, buf, 4000, sites[i]);
	assert_true(failed[0] >= 1);
	assert_int_equal(failed[3], 0); /* a failed pool falls back */

	/* the pool and its fallback both fail */
	{
		struct snapshot a, b;

		snap(f, &a);
		assert_int_equal(dmamap_fault_inject(f->m, DMAMAP_FAULT_POOL, 1, 0), 0);
		assert_int_equal(dmamap_fault_inject(f->m, DMAMAP_FAULT_PAGE_ALLOC, 1, 0), 0);
		h = dma_map_single(&f->dev, buf, 4000, DMA_TO_DEVICE);
		assert_int_equal(dmamap_fault_inject(f->m, DMAMAP_FAULT_POOL, 0, 0), 0);
		assert_int_equal(dmamap_fault_inject(f->m, DMAMAP_FAULT_PAGE_ALLOC, 0, 0), 0);
		assert_true(dma_mapping_error(&f->dev, h));
		snap(f, &b);
		assert_memory_equal(a.pages.free_pages, b.pages.free_pages, sizeof(a.pages.free_pages));
		assert_int_equal(b.bounce.live_buffers, 0);
		assert_int_equal(b.bounce.failures, a.bounce.failures + 1);
	}
	assert_int_equal(f->cap.reports, 0);
	free_buf(buf, 3);
	fx_free(f);
}

static void test_register_fault_injection(void **state)
{
	struct fx *f = fx_new_unregistered(NULL);
	unsigned long nth;
	int err;

	(void)state;
	for (nth = 1;; nth++) {
		unsigned long inj = dmamap_fault_injected(f->m, DMAMAP_FAULT_HOST_ALLOC);

		assert_int_equal(dmamap_fault_inject(f->m, DMAMAP_FAULT_HOST_ALLOC, nth, 0), 0);
		err = dmabounce_register_dev(&f->dev, SMALL, LARGE, NULL);
		assert_int_equal(dmamap_fault_inject(f->m, DMAMAP_FAULT_HOST_ALLOC, 0, 0), 0);
		if (dmamap_fault_injected(f->m, DMAMAP_FAULT_HOST_ALLOC) == inj)
			break;
		assert_int_equal(err, -ENOMEM);
		assert_ptr_equal(get_dma_ops(&f->dev), &arm_dma_ops);
		assert_null(f->dev.archdata.dmabounce);
	}
	assert_true(nth >= 3); /* the device info and both pools */
	assert_int_equal(err, 0);
	assert_int_equal(f->cap.reports, 0);
	fx_free(f);
}

/* ---------------------------------------------------- register/unregister */

static void test_unregister_while_mapped(void **state)
{
	struct fx *f = fx_new(NULL);
	u8 *buf = hi_buf(f, 0), *lo = lo_buf(f, 0);
	const struct dma_map_ops *ops = get_dma_ops(&f->dev);
	struct dmabounce_stats before, after;
	struct dmabounce_stats st;
	dma_addr_t h, hd;

	(void)state;
	hd = dma_map_single(&f->dev, lo, 100, DMA_TO_DEVICE); /* a direct mapping holds nothing */
	h = dma_map_single(&f->dev, buf, 100, DMA_TO_DEVICE);
	assert_true(in_zone(h, 100));
	before = stats(f);
	assert_int_equal(dmabounce_unregister_dev(&f->dev), -EBUSY);
	assert_int_equal(f->cap.by_kind[DMAMAP_REPORT_API_MISUSE], 1);
	assert_ptr_equal(get_dma_ops(&f->dev), ops);
	after = stats(f);
	assert_memory_equal(&before, &after, sizeof(before));

	dma_unmap_single(&f->dev, h, 100, DMA_TO_DEVICE);
	f->cap.messages = 0;
	assert_int_equal(dmabounce_unregister_dev(&f->dev), 0);
	assert_ptr_equal(get_dma_ops(&f->dev), &arm_dma_ops);
	assert_null(f->dev.archdata.dmabounce);
	assert_true(f->cap.messages >= 1); /* the statistics, at debug level */
	assert_int_equal(f->cap.last_level, DMAMAP_LOG_DEBUG);
	assert_non_null(strstr(f->cap.last, "dmabounce"));
	assert_int_equal(dmabounce_get_stats(&f->dev, &st), -EINVAL);
	assert_int_equal(dmabounce_unregister_dev(&f->dev), -EINVAL);
	assert_int_equal(f->cap.reports, 2);
	/* plain arm ops now: the far buffer is refused, the direct mapping ends normally */
	dma_unmap_single(&f->dev, hd, 100, DMA_TO_DEVICE);
	assert_true(dma_mapping_error(&f->dev, dma_map_single(&f->dev, buf, 100, DMA_TO_DEVICE)));
	free_buf(buf, 0);
	free_buf(lo, 0);
	fx_free(f);
}

static void test_register_errors(void **state)
{
	struct fx *f = fx_new_unregistered(NULL);
	struct device raw;
	struct dmabounce_stats st;
	struct capture pcap;
	u8 *buf;
	dma_addr_t h;

	(void)state;
	memset(&raw, 0, sizeof(raw));
	capture_start(&pcap, NULL);
	assert_int_equal(dmabounce_register_dev(NULL, SMALL, LARGE, NULL), -EINVAL);
	assert_int_equal(dmabounce_register_dev(&raw, SMALL, LARGE, NULL), -EINVAL);
	assert_int_equal(dmabounce_unregister_dev(&raw), -EINVAL);
	assert_int_equal(dmabounce_get_stats(&raw, &st), -EINVAL);
	assert_int_equal(pcap.by_kind[DMAMAP_REPORT_BAD_INPUT], 3);
	capture_stop(NULL);

	assert_int_equal(dmabounce_get_stats(&f->dev, &st), -EINVAL);
	assert_int_equal(dmabounce_unregister_dev(&f->dev), -EINVAL);
	assert_int_equal(dmabounce_register_dev(&f->dev, LARGE, SMALL, NULL), -EINVAL);
	assert_int_equal(f->cap.by_kind[DMAMAP_REPORT_BAD_INPUT], 1);
	assert_ptr_equal(get_dma_ops(&f->dev), &arm_dma_ops);

	/* a small pool only: everything larger gets an allocation of its own */
	assert_int_equal(dmabounce_register_dev(&f->dev, SMALL, 0, NULL), 0);
	assert_int_equal(dmabounce_register_dev(&f->dev, SMALL, LARGE, NULL), -EBUSY);
	assert_int_equal(dmabounce_register_dev(&f->dev, SMALL, 0, NULL), -EBUSY);
	buf = hi_buf(f, 0);
	h = dma_map_single(&f->dev, buf, 2000, DMA_TO_DEVICE);
	assert_true(in_zone(h, 2000));
	dma_unmap_single(&f->dev, h, 2000, DMA_TO_DEVICE);
	st = stats(f);
	assert_int_equal(st.bounces_alloc, 1);
	assert_int_equal(st.bounces_large, 0);
	assert_int_equal(dmabounce_get_stats(&f->dev, NULL), -EINVAL);
	free_buf(buf, 0);
	fx_free(f);
}

/* set_dma_mask keeps the bus limit; dma_supported keeps the DMA-zone rule. */
static void test_masks(void **state)
{
	struct fx *f = fx_new(NULL);

	(void)state;
	assert_int_equal(dma_set_mask(&f->dev, DMA_BIT_MASK(32)), 0);
	assert_int_equal(*f->dev.dma_mask, DMA_BIT_MASK(24));
	assert_int_equal(dma_supported(&f->dev, DMA_BIT_MASK(20)), 0);
	assert_int_equal(dma_supported(&f->dev, DMA_BIT_MASK(24)), 1);
	assert_int_equal(dma_set_coherent_mask(&f->dev, DMA_BIT_MASK(20)), -EIO); /* safe buffers need the zone */
	assert_int_equal(f->dev.coherent_dma_mask, DMA_BIT_MASK(24));
	assert_int_equal(dmabounce_unregister_dev(&f->dev), 0);
	assert_int_equal(dma_supported(&f->dev, DMA_BIT_MASK(20)), 0);
	assert_int_equal(dma_set_mask(&f->dev, DMA_BIT_MASK(32)), 0);
	assert_int_equal(*f->dev.dma_mask, DMA_BIT_MASK(32));
	fx_free(f);
}

/* A driver's own needs_bounce decides: here, only odd pages bounce. */
static atomic_int nb_calls;
static dma_addr_t nb_last_addr;
static size_t nb_last_size;

static int odd_pages_bounce(struct device *dev, dma_addr_t addr, size_t size)
{
	(void)dev;
	atomic_fetch_add(&nb_calls, 1);
	nb_last_addr = addr;
	nb_last_size = size;
	return (int)((addr >> PAGE_SHIFT) & 1);
}

static void test_needs_bounce_callback(void **state)
{
	struct fx *f = fx_new_unregistered(NULL);
	u8 *buf, got[200];
	struct dmabounce_stats st;
	dma_addr_t even, odd;

	(void)state;
	atomic_store(&nb_calls, 0);
	assert_int_equal(dmabounce_register_dev(&f->dev, SMALL, LARGE, odd_pages_bounce), 0);
	buf = lo_buf(f, 1); /* two pages, the first at an even frame */
	assert_int_equal(page_to_pfn(virt_to_page(buf)) & 1, 0);
	fill_pattern(buf + 16, sizeof(got), 1);
	fill_pattern(buf + PAGE_SIZE + 16, sizeof(got), 2);

	even = dma_map_single(&f->dev, buf + 16, sizeof(got), DMA_TO_DEVICE);
	assert_int_equal(atomic_load(&nb_calls), 1);
	assert_int_equal(nb_last_addr, virt_to_phys(buf + 16));
	assert_int_equal(nb_last_size, sizeof(got));
	assert_int_equal(even, virt_to_phys(buf + 16));

	odd = dma_map_single(&f->dev, buf + PAGE_SIZE + 16, sizeof(got), DMA_TO_DEVICE);
	assert_int_equal(atomic_load(&nb_calls), 2);
	assert_int_equal(nb_last_addr, virt_to_phys(buf + PAGE_SIZE + 16));
	assert_true(in_zone(odd, sizeof(got)));
	assert_int_not_equal(odd, virt_to_phys(buf + PAGE_SIZE + 16));

	assert_int_equal(dmamap_dev_read(&f->dev, even, got, sizeof(got)), 0);
	assert_int_equal(check_pattern(got, sizeof(got), 1), 0);
	assert_int_equal(dmamap_dev_read(&f->dev, odd, got, sizeof(got)), 0);
	assert_int_equal(check_pattern(got, sizeof(got), 2), 0);
	st = stats(f);
	assert_int_equal(st.direct_maps, 1);
	assert_int_equal(st.bounces_small, 1);
	dma_unmap_single(&f->dev, even, sizeof(got), DMA_TO_DEVICE);
	dma_unmap_single(&f->dev, odd, sizeof(got), DMA_TO_DEVICE);
	assert_int_equal(stats(f).live_buffers, 0);
	assert_int_equal(f->cap.reports, 0);
	free_buf(buf, 1);
	fx_free(f);
}

/* The platform's forced teardown: live bounces reported as leaks and freed. */
static void test_release_with_live_mappings(void **state)
{
	struct fx *f = fx_new(NULL);
	u8 *buf = hi_buf(f, 3);
	struct dmabounce_stats st;
	dma_addr_t h1, h2, h3;

	(void)state;
	h1 = dma_map_single(&f->dev, buf, 100, DMA_TO_DEVICE);
	h2 = dma_map_single(&f->dev, buf + 4096, 4000, DMA_FROM_DEVICE);
	h3 = dma_map_single(&f->dev, buf + 8192, 9000, DMA_BIDIRECTIONAL);
	assert_false(dma_mapping_error(&f->dev, h1) || dma_mapping_error(&f->dev, h2) ||
		     dma_mapping_error(&f->dev, h3));
	dmamap_dmabounce_release(&f->dev);
	assert_int_equal(f->cap.by_kind[DMAMAP_REPORT_LEAK], 1);
	assert_ptr_equal(get_dma_ops(&f->dev), &arm_dma_ops);
	assert_int_equal(dmabounce_get_stats(&f->dev, &st), -EINVAL);
	dmamap_dmabounce_release(&f->dev); /* nothing left: no effect */
	assert_int_equal(f->cap.reports, 1);
	free_buf(buf, 3);
	fx_free(f);
}

/* ---------------------------------------------------------------- threads */

#define THREADS 2

struct range {
	dma_addr_t start;
	size_t len;
};

struct shared {
	struct fx *f;
	pthread_mutex_t lock;
	struct range live[THREADS];
	int iterations;
	atomic_int errors, overlaps;
};

struct worker {
	struct shared *sh;
	int id;
	u8 *buf;
};

static void *worker_fn(void *arg)
{
	static const size_t wsizes[] = { 1, 64, 500, 512, 700, 1000, 4096, 6000 };
	struct worker *w = arg;
	struct shared *sh = w->sh;
	struct device *dev = &sh->f->dev;
	u8 *got = malloc(6000);

	if (!got) {
		atomic_fetch_add(&sh->errors, 1);
		return NULL;
	}
	for (int i = 0; i < sh->iterations; i++) {
		size_t size = wsizes[(size_t)(i * 5 + w->id) % ARRAY_SIZE(wsizes)];
		unsigned seed = (unsigned)(w->id * 1000003 + i), seed2 = seed ^ 0x5a5a5a5au;
		enum dma_data_direction dir = (enum dma_data_direction)(i % 3); /* BIDI, TO, FROM */
		u8 *p = w->buf + (size_t)(i % 64);
		dma_addr_t h;

		fill_pattern(p, size, seed);
		h = dma_map_single(dev, p, size, dir);
		if (!in_zone(h, size)) {
			atomic_fetch_add(&sh->errors, 1);
			continue;
		}
		pthread_mutex_lock(&sh->lock);
		for (int t = 0; t < THREADS; t++)
			if (t != w->id && sh->live[t].len && h < sh->live[t].start + sh->live[t].len &&
			    sh->live[t].start < h + size)
				atomic_fetch_add(&sh->overlaps, 1);
		sh->live[w->id].start = h;
		sh->live[w->id].len = size;
		pthread_mutex_unlock(&sh->lock);

		if (dir != DMA_FROM_DEVICE) {
			if (dmamap_dev_read(dev, h, got, size) || check_pattern(got, size, seed))
				atomic_fetch_add(&sh->errors, 1);
		}
		if (dir != DMA_TO_DEVICE) {
			fill_pattern(got, size, seed2);
			if (dmamap_dev_write(dev, h, got, size))
				atomic_fetch_add(&sh->errors, 1);
		}
		pthread_mutex_lock(&sh->lock);
		sh->live[w->id].len = 0;
		pthread_mutex_unlock(&sh->lock);
		dma_unmap_single(dev, h, size, dir);
		if (check_pattern(p, size, dir == DMA_TO_DEVICE ? seed : seed2))
			atomic_fetch_add(&sh->errors, 1);
	}
	free(got);
	return NULL;
}

static void test_threads(void **state)
{
	struct fx *f = fx_new(NULL);
	struct shared sh = { .f = f };
	struct worker w[THREADS];
	pthread_t th[THREADS];
	struct dmabounce_stats st;

	(void)state;
	sh.iterations = under_valgrind() ? 1000 : 10000;
	/* the capture handler is not thread-safe: let only reports (none expected) through */
	dmamap_set_log_level(f->m, DMAMAP_LOG_WARN);
	pthread_mutex_init(&sh.lock, NULL);
	for (int t = 0; t < THREADS; t++) {
		w[t].sh = &sh;
		w[t].id = t;
		w[t].buf = hi_buf(f, 1);
		assert_int_equal(pthread_create(&th[t], NULL, worker_fn, &w[t]), 0);
	}
	for (int t = 0; t < THREADS; t++)
		assert_int_equal(pthread_join(th[t], NULL), 0);
	assert_int_equal(atomic_load(&sh.errors), 0);
	assert_int_equal(atomic_load(&sh.overlaps), 0);
	st = stats(f);
	assert_int_equal(st.live_buffers, 0);
	assert_int_equal(st.map_calls, (unsigned long)THREADS * (unsigned long)sh.iterations);
	assert_int_equal(st.bounces_small + st.bounces_large + st.bounces_alloc, st.map_calls);
	assert_true(st.bounces_small && st.bounces_large && st.bounces_alloc);
	assert_int_equal(st.failures, 0);
	assert_int_equal(f->cap.reports, 0);
	for (int t = 0; t < THREADS; t++)
		free_buf(w[t].buf, 1);
	pthread_mutex_destroy(&sh.lock);
	fx_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_to_device_bounced),
		cmocka_unit_test(test_from_device_bounced),
		cmocka_unit_test(test_bidirectional_both_ways),
		cmocka_unit_test(test_from_device_partial_write_leaks_nothing),
		cmocka_unit_test(test_skip_cpu_sync),
		cmocka_unit_test(test_partial_sync_for_cpu),
		cmocka_unit_test(test_partial_sync_for_device),
		cmocka_unit_test(test_misuse_reported_and_refused),
		cmocka_unit_test(test_bidirectional_synced_one_way),
		cmocka_unit_test(test_bounced_found_after_the_index_grows),
		cmocka_unit_test(test_reachable_buffer_not_bounced_but_maintained),
		cmocka_unit_test(test_sg_mixed),
		cmocka_unit_test(test_sg_failure_unwinds),
		cmocka_unit_test(test_large_safe_buffer_kept_for_reuse),
		cmocka_unit_test(test_many_live_mappings),
		cmocka_unit_test(test_random_map_unmap_lookup),
		cmocka_unit_test(test_pool_failure_falls_back),
		cmocka_unit_test(test_pool_exhaustion),
		cmocka_unit_test(test_safe_buffer_beyond_mask),
		cmocka_unit_test(test_fault_injection_unwinds),
		cmocka_unit_test(test_register_fault_injection),
		cmocka_unit_test(test_unregister_while_mapped),
		cmocka_unit_test(test_register_errors),
		cmocka_unit_test(test_masks),
		cmocka_unit_test(test_needs_bounce_callback),
		cmocka_unit_test(test_release_with_live_mappings),
		cmocka_unit_test(test_threads),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
