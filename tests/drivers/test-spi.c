/* SPDX-License-Identifier: MIT */
/*
 * The toy SPI controller's driver with an EEPROM on its bus and a client
 * driver that reads and writes it, on the demanding machine: every byte
 * checked, and each broken variant (of the controller driver or of its
 * client) caught.
 */
#include <linux/slab.h>

#include "toy-spi.h"
#include "../common.h"

#define EE_SIZE 256
#define EE_READ 0x03
#define EE_WRITE 0x02
#define MAX_XFER 300

/* ------------------------------------------------------------ the controller and the EEPROM */

struct ts_hw {
	struct device *dev;
	u32 regs[TS_REGS_SIZE / 4];
	u32 consumed;
	u8 eeprom[EE_SIZE];
	unsigned long faults;
};

static u32 hw_reg(const struct ts_hw *hw, unsigned off)
{
	return le32_to_cpu(hw->regs[off / 4]);
}

/* The EEPROM's answer to @tx: a read command returns its memory after the two command bytes. */
static void eeprom_exchange(struct ts_hw *hw, const u8 *tx, u8 *rx, u32 len)
{
	memset(rx, 0xff, len);
	if (len < 2)
		return;
	for (u32 k = 2; k < len; k++) {
		u8 addr = (u8)(tx[1] + k - 2);

		if (tx[0] == EE_READ)
			rx[k] = hw->eeprom[addr];
		else if (tx[0] == EE_WRITE)
			hw->eeprom[addr] = tx[k];
	}
}

static void hw_run(struct ts_hw *hw)
{
	u64 ring = hw_reg(hw, TS_RING_LO) | (u64)hw_reg(hw, TS_RING_HI) << 32;
	u32 head = hw_reg(hw, TS_HEAD);

	if (!hw_reg(hw, TS_CTRL))
		return;
	while (hw->consumed != head) {
		u64 da = ring + (hw->consumed % TS_RING) * sizeof(struct ts_desc);
		struct ts_desc d;
		u8 tx[MAX_XFER], rx[MAX_XFER];
		__le32 status = cpu_to_le32(TS_DONE_OK);
		u32 len;

		assert_int_equal(dmamap_dev_read(hw->dev, da, &d, sizeof(d)), 0);
		len = le32_to_cpu(d.len);
		if (len > MAX_XFER || dmamap_dev_read(hw->dev, le64_to_cpu(d.tx), tx, len)) {
			status = 0;
		} else {
			eeprom_exchange(hw, tx, rx, len);
			if (d.rx && dmamap_dev_write(hw->dev, le64_to_cpu(d.rx), rx, len))
				status = 0;
		}
		hw->faults += !status;
		assert_int_equal(dmamap_dev_write(hw->dev, da + offsetof(struct ts_desc, status), &status, 4), 0);
		hw->consumed++;
	}
	hw->regs[TS_DONE / 4] = cpu_to_le32(hw->consumed);
	hw->regs[TS_IRQ / 4] = cpu_to_le32(1);
}

/* ------------------------------------------------------------ the client (an at25-like EEPROM driver) */

enum client_bug {
	CLIENT_CORRECT,
	CLIENT_RX_ON_STACK,       /* reads into a buffer on its stack */
	CLIENT_TOUCHES_NEIGHBOUR, /* updates its small statistics object while a read is in flight */
};

struct client {
	struct ts_ctlr *ts;
	struct ts_hw *hw;
	enum client_bug bug;
	u8 *rx;                   /* its receive buffer, kmalloc'd: DMA-safe (or so it thinks) */
	size_t rx_size;
	u32 *reads;               /* statistics, kmalloc'd right after it */
};

static void client_init(struct client *c, struct ts_ctlr *ts, struct ts_hw *hw, enum client_bug bug, size_t rx_size)
{
	c->ts = ts;
	c->hw = hw;
	c->bug = bug;
	c->rx_size = rx_size;
	c->rx = kmalloc(rx_size, GFP_KERNEL);
	c->reads = kzalloc(sizeof(*c->reads), GFP_KERNEL);
	assert_non_null(c->rx);
	assert_non_null(c->reads);
}

static void client_fini(struct client *c)
{
	kfree(c->reads);
	kfree(c->rx);
}

/* One transfer, run to completion: the transfer's status, or the queueing error. */
static int client_xfer(struct client *c, const u8 *tx, u8 *rx, unsigned len)
{
	struct ts_transfer t = { .tx_buf = tx, .rx_buf = rx, .len = len };
	int err = ts_transfer_one(c->ts, &t);

	if (err)
		return err;
	if (c->bug == CLIENT_TOUCHES_NEIGHBOUR)
		(*c->reads)++;
	hw_run(c->hw);
	assert_int_equal(ts_irq(c->ts), 1);
	return t.status;
}

static int ee_write(struct client *c, u8 addr, const u8 *data, unsigned n)
{
	u8 *tx = kmalloc(n + 2, GFP_KERNEL);
	int err;

	assert_non_null(tx);
	tx[0] = EE_WRITE;
	tx[1] = addr;
	memcpy(tx + 2, data, n);
	err = client_xfer(c, tx, NULL, n + 2);
	kfree(tx);
	return err;
}

static int ee_read(struct client *c, u8 addr, u8 *out, unsigned n)
{
	u8 stack_rx[MAX_XFER];
	u8 *tx = kzalloc(n + 2, GFP_KERNEL);
	u8 *rx = c->bug == CLIENT_RX_ON_STACK ? stack_rx : c->rx;
	int err;

	assert_non_null(tx);
	tx[0] = EE_READ;
	tx[1] = addr;
	memset(rx, 0, n + 2);
	err = client_xfer(c, tx, rx, n + 2);
	if (!err)
		memcpy(out, rx + 2, n);
	kfree(tx);
	return err;
}

/* ------------------------------------------------------------ a run */

struct run {
	enum ts_bug bug;
	enum client_bug client;
	bool bounce;               /* a 26-bit controller behind dmabounce */
	bool packed;               /* kmalloc packs small objects (64-byte lines) */
	unsigned max_read;         /* reads are 1 to this many bytes (40 unless set) */
	unsigned reads;            /* read transfers done */
	unsigned intact;           /* of which returned every byte right */
	unsigned failed;           /* transfers that returned an error */
	bool neighbours_share_a_line;
	unsigned long devres_after_release;
	struct capture c;
};

static void demanding(struct dmamap_machine_config *cfg)
{
	cfg->outer_cache = true;
	cfg->speculative_prefetch = true;
}

static void demanding_packed(struct dmamap_machine_config *cfg)
{
	demanding(cfg);
	cfg->kmalloc_packed = true;
	cfg->cache_line_size = 64;
}

/* RAM at 0, 128 MiB, of which a 26-bit controller reaches the first 64 MiB: the DMA zone. */
static void limited_window(struct dmamap_machine_config *cfg)
{
	demanding(cfg);
	cfg->ram_base = 0;
	cfg->ram_size = 128u << 20;
	cfg->dma_zone_limit = 64u << 20;
}

static void run_spi(struct run *r)
{
	struct dmamap_machine *m = test_machine(r->bounce ? 128 : 32,
						 r->bounce ? limited_window : r->packed ? demanding_packed : demanding);
	struct device dev = { 0 };
	struct ts_hw hw = { 0 };
	struct dmamap_machine_config cfg;
	struct client cl;
	u8 data[EE_SIZE], got[EE_SIZE];
	unsigned long free_before;
	unsigned max_read = r->max_read ? r->max_read : 40;

	dmamap_machine_set_current(m);
	capture_start(&r->c, m);
	assert_int_equal(dmamap_device_init(&dev, m, "toy-spi"), 0);
	if (r->bounce) {
		/* what the board code of an IXP4xx-like SoC does before the driver probes */
		*dev.dma_mask = DMA_BIT_MASK(26);
		dev.coherent_dma_mask = DMA_BIT_MASK(26);
		assert_int_equal(dmabounce_register_dev(&dev, 512, 4096, NULL), 0);
	}
	free_before = test_free_pages(m);
	hw.dev = &dev;
	assert_int_equal(ts_probe(&dev, hw.regs, r->bug), 0);
	client_init(&cl, dev_get_drvdata(&dev), &hw, r->client, max_read + 2);
	dmamap_machine_get_config(m, &cfg);
	r->neighbours_share_a_line = (uintptr_t)cl.rx / cfg.cache_line_size == (uintptr_t)cl.reads / cfg.cache_line_size ||
				     (uintptr_t)(cl.rx + cl.rx_size - 1) / cfg.cache_line_size ==
					     (uintptr_t)cl.reads / cfg.cache_line_size;

	/* fill the EEPROM in 16-byte pages, as a real one wants */
	fill_pattern(data, sizeof(data), 77);
	for (unsigned a = 0; a < EE_SIZE; a += 16)
		r->failed += ee_write(&cl, (u8)a, data + a, 16) != 0;
	/* then read it back 40 times, every length from 1 to max_read bytes, at moving addresses */
	for (unsigned i = 0; i < 40; i++) {
		unsigned n = 1 + i % max_read;
		u8 addr = (u8)(i * 37);
		int err = ee_read(&cl, addr, got, n);

		r->reads++;
		if (err) {
			r->failed++;
			continue;
		}
		bool ok = true;
		for (unsigned k = 0; k < n; k++)
			ok &= got[k] == data[(u8)(addr + k)];
		r->intact += ok;
	}
	/* what the device saw: every byte written reached the EEPROM */
	if (r->client == CLIENT_CORRECT && r->bug == TS_CORRECT)
		assert_memory_equal(hw.eeprom, data, EE_SIZE);

	client_fini(&cl);
	ts_remove(&dev);
	if (r->bounce)
		assert_int_equal(dmabounce_unregister_dev(&dev), r->bug == TS_CORRECT ? 0 : -EBUSY);
	dmamap_device_release(&dev);
	r->devres_after_release = dmamap_devres_count(&dev);
	if (r->bug == TS_CORRECT) {
		struct dmamap_kmalloc_stats ks;

		/* the managed ring and private data went with the device: every page is back */
		dmamap_kmalloc_stats(m, &ks);
		assert_int_equal(ks.live_objects, 0);
		assert_int_equal(test_free_pages(m) + ks.slab_pages, free_before);
	}
	test_machine_destroy(m);
	dmamap_machine_set_current(NULL);
}

/* ------------------------------------------------------------ the tests */

static void test_correct_driver_and_client(void **state)
{
	struct run r = { .bug = TS_CORRECT };

	(void)state;
	run_spi(&r);
	assert_int_equal(r.failed, 0);
	assert_int_equal(r.intact, 40);
	assert_int_equal(r.c.reports, 0);
	assert_int_equal(r.devres_after_release, 0);
}

static void test_correct_driver_behind_dmabounce(void **state)
{
	struct run r = { .bug = TS_CORRECT, .bounce = true };

	(void)state;
	run_spi(&r);
	assert_int_equal(r.failed, 0);
	assert_int_equal(r.intact, 40);
	assert_int_equal(r.c.reports, 0);
}

/* A receive buffer on the stack is not DMA-safe: the map refuses it at the driver's line, the tx mapping unwinds. */
static void test_client_reads_into_its_stack(void **state)
{
	struct run r = { .bug = TS_CORRECT, .client = CLIENT_RX_ON_STACK };

	(void)state;
	run_spi(&r);
	assert_int_equal(r.failed, 40);
	assert_int_equal(r.intact, 0);
	assert_int_equal(r.c.reports, 40);
	assert_int_equal(r.c.by_kind[DMAMAP_REPORT_BAD_ADDRESS], 40);
	assert_non_null(strstr(r.c.last_file, "toy-spi.c"));
	assert_non_null(strstr(r.c.last, "linear map"));
}

/*
 * The client's receive buffer and its statistics are separate kmalloc
 * objects: on a kernel that aligns kmalloc to the cache line that is safe,
 * on one that packs small objects they share a line, and the statistics
 * update made during the transfer costs the received bytes.
 */
static void test_client_rx_shares_a_line_on_a_packed_machine(void **state)
{
	/* a sensor-like client: register reads of 1 to 6 bytes into an 8-byte buffer */
	struct run aligned = { .bug = TS_CORRECT, .client = CLIENT_TOUCHES_NEIGHBOUR, .max_read = 6 };
	struct run packed = { .bug = TS_CORRECT, .client = CLIENT_TOUCHES_NEIGHBOUR, .max_read = 6, .packed = true };

	(void)state;
	run_spi(&aligned);
	assert_false(aligned.neighbours_share_a_line);
	assert_int_equal(aligned.intact, 40);
	assert_int_equal(aligned.c.reports, 0);
	run_spi(&packed);
	assert_true(packed.neighbours_share_a_line);
	assert_int_equal(packed.failed, 0);
	/* every read comes back as the zeroes the CPU's stale line held */
	assert_int_equal(packed.intact, 0);
}

/* The controller driver never unmaps tx: each mapping is listed at device release. */
static void test_driver_leaks_tx_mappings(void **state)
{
	struct run r = { .bug = TS_LEAK_TX_MAPPING };

	(void)state;
	run_spi(&r);
	assert_int_equal(r.intact, 40);
	/* 16 writes and 40 reads, each left mapped */
	assert_int_equal(r.c.by_kind[DMAMAP_REPORT_LEAK], 56);
	assert_int_equal(r.c.reports, 56);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_correct_driver_and_client),
		cmocka_unit_test(test_correct_driver_behind_dmabounce),
		cmocka_unit_test(test_client_reads_into_its_stack),
		cmocka_unit_test(test_client_rx_shares_a_line_on_a_packed_machine),
		cmocka_unit_test(test_driver_leaks_tx_mappings),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
