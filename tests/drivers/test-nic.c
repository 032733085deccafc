/* SPDX-License-Identifier: MIT */
/*
 * The toy network driver on a simulated non-coherent machine with a
 * loopback "hardware": what it transmits comes back on its receive ring.
 */
#include "../common.h"
#include "toy-nic.h"

/* The hardware: move every frame the driver queued to the next free receive slot. */
static unsigned hw_loopback(struct device *dev, struct toy_nic *nic, unsigned *tx_slot, unsigned *rx_slot)
{
	unsigned moved = 0;

	for (;;) {
		struct toy_desc txd, rxd;
		static u8 frame[TOY_BUF];
		dma_addr_t txa = nic->tx_dma + (*tx_slot % TOY_RING) * sizeof(txd);
		dma_addr_t rxa = nic->rx_dma + (*rx_slot % TOY_RING) * sizeof(rxd);

		assert_int_equal(dmamap_dev_read(dev, txa, &txd, sizeof(txd)), 0);
		if (!(txd.flags & TOY_DESC_OWN))
			break;
		assert_int_equal(dmamap_dev_read(dev, rxa, &rxd, sizeof(rxd)), 0);
		if (!(rxd.flags & TOY_DESC_OWN))
			break; /* receive ring full */
		assert_int_equal(dmamap_dev_read(dev, txd.addr, frame, txd.len), 0);
		assert_int_equal(dmamap_dev_write(dev, rxd.addr, frame, txd.len), 0);
		rxd.len = txd.len;
		rxd.flags = 0;
		assert_int_equal(dmamap_dev_write(dev, rxa, &rxd, sizeof(rxd)), 0);
		txd.flags = 0;
		assert_int_equal(dmamap_dev_write(dev, txa, &txd, sizeof(txd)), 0);
		(*tx_slot)++;
		(*rx_slot)++;
		moved++;
	}
	return moved;
}

static void with_spec_outer(struct dmamap_machine_config *cfg)
{
	cfg->speculative_prefetch = true;
	cfg->outer_cache = true;
}

/* RAM at 0, 256 MiB, of which a 26-bit device reaches the first 64 MiB: the DMA zone. */
static void limited_window(struct dmamap_machine_config *cfg)
{
	cfg->ram_base = 0;
	cfg->ram_size = 256u << 20;
	cfg->dma_zone_limit = 64u << 20;
	cfg->speculative_prefetch = true;
}

struct traffic {
	enum toy_bug bug;
	bool bounce;                   /* a 26-bit device behind dmabounce */
	bool misuse;                   /* the driver touches buffers the device owns: poisoning off */
	unsigned long reports;
	struct dmabounce_stats bstats;
	struct capture cap;            /* the machine's reports, to its destroy */
};

/* Send @n frames through the loopback; return how many came back intact. */
static unsigned run_traffic_on(struct traffic *t, unsigned n)
{
	struct dmamap_machine *m = t->bounce ? test_machine(0, limited_window) : test_machine(32, with_spec_outer);
	struct dmamap_page_stats before, after;
	struct toy_nic nic;
	struct device dev = { 0 };
	unsigned tx_slot = 0, rx_slot = 0, intact = 0, sent = 0, got = 0;
	u8 frame[TOY_BUF], out[TOY_BUF];

	dmamap_machine_set_current(m);
	capture_start(&t->cap, m);
	dmamap_set_log_level(m, DMAMAP_LOG_ERR);
	if (t->misuse)
		misuse_begin(m);
	assert_int_equal(dmamap_device_init(&dev, m, "toy-nic"), 0);
	if (t->bounce) {
		/* what the platform code of an IXP4xx-like board does before the driver probes */
		*dev.dma_mask = DMA_BIT_MASK(26);
		dev.coherent_dma_mask = DMA_BIT_MASK(26);
		assert_int_equal(dmabounce_register_dev(&dev, 512, 4096, NULL), 0);
	}
	dmamap_page_stats(m, &before);
	assert_int_equal(toy_nic_open(&nic, &dev, t->bug), 0);

	while (got < n) {
		while (sent < n && sent - got < TOY_RING / 2) {
			size_t len = 60 + (sent * 97) % 1400;

			fill_pattern(frame, len, sent);
			assert_int_equal(toy_nic_xmit(&nic, frame, len), 0);
			sent++;
		}
		hw_loopback(&dev, &nic, &tx_slot, &rx_slot);
		toy_nic_tx_done(&nic);
		for (size_t len; (len = toy_nic_rx(&nic, out, sizeof(out))) != 0; got++)
			intact += len == 60 + (got * 97) % 1400 && check_pattern(out, len, got) == 0;
	}
	toy_nic_close(&nic);
	if (t->bounce) {
		assert_int_equal(dmabounce_get_stats(&dev, &t->bstats), 0);
		assert_int_equal(dmabounce_unregister_dev(&dev), 0);
	}
	dmamap_page_stats(m, &after);
	if (t->bug != TOY_LEAK_RX_BUFFERS)
		assert_memory_equal(before.free_pages, after.free_pages, sizeof(before.free_pages));
	dmamap_device_release(&dev);
	if (t->misuse)
		misuse_end(m);
	t->reports = t->cap.reports;
	test_machine_destroy(m);
	return intact;
}

/* Every report of the run was of @kind and named a mapping made in toy-nic.c; how many. */
static unsigned long only_kind(const struct traffic *t, enum dmamap_report_kind kind)
{
	for (unsigned long i = 0; i < t->cap.reports && i < CAPTURE_KEEP; i++) {
		if (t->cap.rec[i].kind != kind)
			fail_msg("report %lu is %s, not %s: %s", i, dmamap_report_kind_name(t->cap.rec[i].kind),
				 dmamap_report_kind_name(kind), t->cap.rec[i].message);
		assert_non_null(strstr(t->cap.rec[i].map_file, "toy-nic.c"));
		assert_true(t->cap.rec[i].map_line > 0);
	}
	assert_int_equal(t->cap.by_kind[kind], t->cap.reports);
	return t->cap.reports;
}

static unsigned run_traffic(enum toy_bug bug, unsigned n, unsigned long *reports)
{
	struct traffic t = { .bug = bug };
	unsigned intact = run_traffic_on(&t, n);

	*reports = t.reports;
	return intact;
}

/* The same driver, unchanged, on a 26-bit device of a machine with RAM beyond its reach. */
static void test_driver_unchanged_behind_dmabounce(void **state)
{
	struct traffic t = { .bug = TOY_CORRECT, .bounce = true };

	(void)state;
	assert_int_equal(run_traffic_on(&t, 200), 200);
	assert_int_equal(t.reports, 0);
	/* every TX and RX buffer lay above 64 MiB: all bounced, every byte copied both ways */
	assert_int_equal(t.bstats.bounces_small + t.bstats.bounces_large, 200 + TOY_RING);
	assert_int_equal(t.bstats.direct_maps, 0);
	assert_true(t.bstats.bytes_to_device > 0);
	assert_true(t.bstats.bytes_from_device >= 200 * 60);
	assert_int_equal(t.bstats.live_buffers, 0);
	assert_int_equal(t.bstats.failures, 0);
}

static void test_correct_driver_loses_nothing(void **state)
{
	unsigned long reports;

	(void)state;
	assert_int_equal(run_traffic(TOY_CORRECT, 200, &reports), 200);
	assert_int_equal(reports, 0);
}

/* The receive path reads before dma_sync_single_for_cpu: stale frames, and each hand-back says why. */
static void test_missing_rx_sync_reads_stale_frames(void **state)
{
	/* the driver reads device-owned buffers: memcheck and ASan would say so too */
	struct traffic t = { .bug = TOY_NO_RX_SYNC_FOR_CPU, .misuse = true };
	bool stale;

	(void)state;
	stale = run_traffic_on(&t, 64) < 64;
	assert_true(stale);
	assert_int_equal(only_kind(&t, DMAMAP_REPORT_MISSING_SYNC), 64);
	assert_non_null(strstr(t.cap.rec[0].file, "toy-nic.c")); /* at the driver's dma_sync_single_for_device */
}

/* TX buffers mapped DMA_FROM_DEVICE: the device reads what was never cleaned for it, and is told so. */
static void test_wrong_tx_direction_sends_garbage(void **state)
{
	struct traffic t = { .bug = TOY_TX_WRONG_DIRECTION };

	(void)state;
	assert_int_equal(run_traffic_on(&t, 64), 0);
	assert_int_equal(only_kind(&t, DMAMAP_REPORT_DEV_READ_FROM_DEVICE), 64);
	assert_non_null(strstr(t.cap.rec[0].file, "test-nic.c")); /* at the simulated hardware's read */
	assert_int_equal(t.cap.rec[0].map_direction, DMA_FROM_DEVICE);
}

/* Close without unmapping the receive ring: every buffer listed at device release, with its line. */
static void test_leaked_rx_ring_listed(void **state)
{
	struct traffic t = { .bug = TOY_LEAK_RX_BUFFERS };

	(void)state;
	assert_int_equal(run_traffic_on(&t, 32), 32);
	for (unsigned i = 0; i < TOY_RING; i++) {
		assert_int_equal(t.cap.rec[i].kind, DMAMAP_REPORT_LEAK);
		assert_non_null(strstr(t.cap.rec[i].map_file, "toy-nic.c"));
		assert_int_equal(t.cap.rec[i].map_line, t.cap.rec[0].map_line);
		assert_int_equal(t.cap.rec[i].map_direction, DMA_FROM_DEVICE);
	}
	/* then the pages under them, at machine destroy: nothing else */
	assert_int_equal(t.cap.by_kind[DMAMAP_REPORT_LEAK], t.cap.reports);
}

/*
 * The fault sweep: open, a few frames through the loopback, close -- with
 * each allocation of it failed in turn. The driver must return the error and
 * give back everything it took; the library must leave nothing behind.
 */
struct sweep_nic {
	struct device dev;
	bool bounce;
};

static int nic_setup(struct dmamap_machine *m, void *arg)
{
	struct sweep_nic *s = arg;

	memset(&s->dev, 0, sizeof(s->dev));
	dmamap_set_log_level(m, DMAMAP_LOG_ERR);
	if (dmamap_device_init(&s->dev, m, "toy-nic"))
		return -ENODEV;
	if (s->bounce) {
		*s->dev.dma_mask = DMA_BIT_MASK(24);
		s->dev.coherent_dma_mask = DMA_BIT_MASK(24);
		return dmabounce_register_dev(&s->dev, 512, 4096, NULL);
	}
	return 0;
}

static int nic_scenario(struct dmamap_machine *m, void *arg)
{
	struct sweep_nic *s = arg;
	unsigned tx_slot = 0, rx_slot = 0;
	u8 frame[TOY_BUF], out[TOY_BUF];
	struct toy_nic nic;
	int err;

	(void)m;
	err = toy_nic_open(&nic, &s->dev, TOY_CORRECT);
	if (err)
		return err;
	for (unsigned i = 0; i < 4; i++) {
		fill_pattern(frame, 100 + i, i);
		err = toy_nic_xmit(&nic, frame, 100 + i);
		if (err) {
			toy_nic_close(&nic);
			return err;
		}
	}
	hw_loopback(&s->dev, &nic, &tx_slot, &rx_slot);
	assert_int_equal(toy_nic_tx_done(&nic), 4);
	for (unsigned i = 0; i < 4; i++) {
		assert_int_equal(toy_nic_rx(&nic, out, sizeof(out)), 100 + i);
		assert_int_equal(check_pattern(out, 100 + i, i), 0);
	}
	toy_nic_close(&nic);
	return 0;
}

static void nic_teardown(struct dmamap_machine *m, void *arg, int ret)
{
	struct sweep_nic *s = arg;

	(void)m;
	(void)ret;
	if (s->bounce)
		assert_int_equal(dmabounce_unregister_dev(&s->dev), 0);
	dmamap_device_release(&s->dev);
}

static void sweep_nic(bool bounce)
{
	struct dmamap_machine_config cfg;
	struct sweep_nic s = { .bounce = bounce };
	struct dmamap_fault_sweep sw = {
		.cfg = &cfg, .setup = nic_setup, .scenario = nic_scenario, .teardown = nic_teardown, .ctx = &s,
		.sites = sweep_sites(),
		/* a pool that cannot grow is covered by a coherent safe buffer: only then may a failure be absorbed */
		.flags = bounce ? 0 : DMAMAP_SWEEP_STRICT,
	};
	struct dmamap_fault_sweep_result r;

	/* small machines: a sweep makes one per run */
	dmamap_machine_config_init(&cfg);
	with_spec_outer(&cfg);
	cfg.ram_size = 16u << 20;
	cfg.consistent_size = 2u << 20;
	if (bounce) { /* a 24-bit device: the lower half of RAM is its DMA zone, the buffers above it bounce */
		cfg.ram_base = 0;
		cfg.dma_zone_limit = 8u << 20;
	}
	assert_sweep_clean(&sw, &r);
	/* rings from the pool, a page per RX and TX buffer */
	if (site_swept(DMAMAP_FAULT_PAGE_ALLOC))
		assert_true(r.attempts[DMAMAP_FAULT_PAGE_ALLOC] >= TOY_RING + 4);
	if (site_swept(DMAMAP_FAULT_POOL))
		assert_true(r.attempts[DMAMAP_FAULT_POOL] >= 2);
	assert_true(r.injected_runs >= 1);
}

static void test_fault_sweep_open_traffic_close(void **state)
{
	(void)state;
	sweep_nic(false);
}

static void test_fault_sweep_behind_dmabounce(void **state)
{
	(void)state;
	sweep_nic(true);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_correct_driver_loses_nothing),
		cmocka_unit_test(test_driver_unchanged_behind_dmabounce),
		cmocka_unit_test(test_missing_rx_sync_reads_stale_frames),
		cmocka_unit_test(test_wrong_tx_direction_sends_garbage),
		cmocka_unit_test(test_leaked_rx_ring_listed),
		cmocka_unit_test(test_fault_sweep_open_traffic_close),
		cmocka_unit_test(test_fault_sweep_behind_dmabounce),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
