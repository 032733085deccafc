/* SPDX-License-Identifier: MIT */
/*
 * The toy SPI controller's driver with an EEPROM on its bus and a client
 * driver that reads and writes it, on the demanding machine: every byte
 * checked, and each broken variant (of the controller driver or of its
 * client) caught.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <linux/slab.h>

#include <dmamap/testing.h>

#include "toy-spi.h"

#define EE_SIZE 256
#define EE_READ 0x03
#define EE_WRITE 0x02
#define MAX_XFER 300

/* The bytes the test writes to the EEPROM: never zero, so a read that returns stale zeroes shows. */
static u8 pattern(size_t i)
{
	return (u8)(((i * 2654435761u) >> 13) | 0x80);
}

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

static unsigned long pages_free(struct dmamap_machine *m)
{
	struct dmamap_page_stats st;

	dmamap_page_stats(m, &st);
	return st.free_pages[DMAMAP_ZONE_DMA] + st.free_pages[DMAMAP_ZONE_NORMAL];
}

/* Pages kmalloc holds (freed objects wait in its quarantine for a while). */
static unsigned long pages_in_kmalloc(struct dmamap_machine *m)
{
	struct dmamap_kmalloc_stats st;

	dmamap_kmalloc_stats(m, &st);
	return st.slab_pages;
}

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
	struct dmamap_test t;      /* the fixture: its captured reports stay readable after the run */
};

static void run_spi(struct run *r)
{
	struct dmamap_machine_config cfg;
	struct dmamap_test_traits traits = { .cfg = &cfg, .name = "toy-spi", .bounce = r->bounce, .quiet = true };
	struct dmamap_test *t = &r->t;
	struct ts_hw hw = { 0 };
	struct client cl;
	u8 data[EE_SIZE], got[EE_SIZE];
	unsigned long free_before;
	unsigned max_read = r->max_read ? r->max_read : 40;

	dmamap_test_demanding_config(&cfg, r->bounce);
	if (r->packed) {
		cfg.kmalloc_packed = true;
		cfg.cache_line_size = 64;
	}
	assert_int_equal(dmamap_test_init(t, &traits), 0);
	free_before = pages_free(t->machine);
	hw.dev = &t->dev;
	assert_int_equal(ts_probe(&t->dev, hw.regs, r->bug), 0);
	client_init(&cl, dev_get_drvdata(&t->dev), &hw, r->client, max_read + 2);
	r->neighbours_share_a_line =
		(uintptr_t)cl.rx / cfg.cache_line_size == (uintptr_t)cl.reads / cfg.cache_line_size ||
		(uintptr_t)(cl.rx + cl.rx_size - 1) / cfg.cache_line_size == (uintptr_t)cl.reads / cfg.cache_line_size;

	/* fill the EEPROM in 16-byte pages, as a real one wants */
	for (size_t i = 0; i < EE_SIZE; i++)
		data[i] = pattern(i);
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
	ts_remove(&t->dev);
	if (r->bug == TS_CORRECT) {
		/* the managed ring and private data go at unbind: then nothing is held, every page is back */
		dmamap_device_unbind(&t->dev);
		dmamap_assert_no_outstanding_mappings(t);
		r->devres_after_release = dmamap_devres_count(&t->dev);
		if (!r->bounce) /* dmabounce keeps its safe-buffer pools until the device goes */
			assert_int_equal(pages_free(t->machine) + pages_in_kmalloc(t->machine), free_before);
	}
	dmamap_test_fini(t);
}

/* ------------------------------------------------------------ the tests */

static void test_correct_driver_and_client(void **state)
{
	struct run r = { .bug = TS_CORRECT };

	(void)state;
	run_spi(&r);
	assert_int_equal(r.failed, 0);
	assert_int_equal(r.intact, 40);
	assert_int_equal(r.t.reports, 0);
	assert_int_equal(r.devres_after_release, 0);
}

static void test_correct_driver_behind_dmabounce(void **state)
{
	struct run r = { .bug = TS_CORRECT, .bounce = true };

	(void)state;
	run_spi(&r);
	assert_int_equal(r.failed, 0);
	assert_int_equal(r.intact, 40);
	assert_int_equal(r.t.reports, 0);
}

/* A receive buffer on the stack is not DMA-safe: the map refuses it at the driver's line, the tx mapping unwinds. */
static void test_client_reads_into_its_stack(void **state)
{
	struct run r = { .bug = TS_CORRECT, .client = CLIENT_RX_ON_STACK };

	(void)state;
	run_spi(&r);
	assert_int_equal(r.failed, 40);
	assert_int_equal(r.intact, 0);
	assert_int_equal(r.t.reports, 40);
	assert_int_equal(r.t.by_kind[DMAMAP_REPORT_BAD_ADDRESS], 40);
	dmamap_assert_reported(&r.t, DMAMAP_REPORT_BAD_ADDRESS, "toy-spi.c", 0);
	assert_non_null(strstr(dmamap_test_find_report(&r.t, DMAMAP_REPORT_BAD_ADDRESS, "toy-spi.c", 0)->message,
			       "linear map"));
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
	dmamap_assert_no_reports(&aligned.t);
	run_spi(&packed);
	assert_true(packed.neighbours_share_a_line);
	assert_int_equal(packed.failed, 0);
	/* every read comes back as the zeroes the CPU's stale line held */
	assert_int_equal(packed.intact, 0);
	/* and each read's map said why, at the driver's line, naming the statistics' allocation */
	assert_int_equal(packed.t.by_kind[DMAMAP_REPORT_SHARED_CACHELINE], 40);
	dmamap_assert_reported(&packed.t, DMAMAP_REPORT_SHARED_CACHELINE, "toy-spi.c", 0);
	assert_non_null(strstr(dmamap_test_find_report(&packed.t, DMAMAP_REPORT_SHARED_CACHELINE, NULL, 0)->message,
			       "test-spi.c"));
}

/*
 * The controller driver never unmaps tx: each mapping is listed at device
 * release, and the client's kfree() of each tx buffer is refused while mapped.
 */
static void test_driver_leaks_tx_mappings(void **state)
{
	struct run r = { .bug = TS_LEAK_TX_MAPPING };
	const struct dmamap_test_report *rep;

	(void)state;
	run_spi(&r);
	assert_int_equal(r.intact, 40);
	/*
	 * 16 writes and 40 reads, each left mapped; the client's kfree() of each
	 * tx buffer is refused while it is mapped, so the buffers are leaks too
	 */
	assert_int_equal(r.t.by_kind[DMAMAP_REPORT_FREE_MAPPED], 56);
	assert_int_equal(r.t.by_kind[DMAMAP_REPORT_LEAK], 56 + 56);
	assert_int_equal(r.t.reports, 3 * 56);
	/* each names the driver's line that made the mapping */
	assert_non_null(strstr(dmamap_test_find_report(&r.t, DMAMAP_REPORT_LEAK, NULL, 0)->map_file, "toy-spi.c"));
	rep = dmamap_test_find_report(&r.t, DMAMAP_REPORT_FREE_MAPPED, "test-spi.c", 0);
	assert_non_null(rep);
	assert_non_null(strstr(rep->map_file, "toy-spi.c"));
}

/*
 * Probe, one read transfer, remove and unbind, with each allocation and
 * mapping on the way failed in turn: the driver surfaces every failure and
 * leaves nothing behind.
 */
static int probe_and_read(struct dmamap_test *t, void *ctx)
{
	struct ts_hw *hw = ctx;
	struct ts_transfer x = { 0 };
	struct ts_ctlr *ts;
	u8 *tx = NULL, *rx = NULL;
	int err;

	memset(hw, 0, sizeof(*hw));
	hw->dev = &t->dev;
	err = ts_probe(&t->dev, hw->regs, TS_CORRECT);
	if (err)
		goto unbind;
	ts = dev_get_drvdata(&t->dev);
	tx = kzalloc(6, GFP_KERNEL);
	rx = kmalloc(6, GFP_KERNEL);
	if (!tx || !rx) {
		err = -ENOMEM;
		goto out;
	}
	tx[0] = EE_READ;
	x.tx_buf = tx;
	x.rx_buf = rx;
	x.len = 6;
	err = ts_transfer_one(ts, &x);
	if (!err) {
		hw_run(hw);
		err = ts_irq(ts) == 1 ? x.status : -EIO;
	}
out:
	kfree(rx);
	kfree(tx);
	ts_remove(&t->dev);
unbind:
	dmamap_device_unbind(&t->dev);
	return err;
}

static void test_every_failure_unwinds(void **state)
{
	struct dmamap_test_traits direct = { .name = "toy-spi", .quiet = true };
	/* behind an IOMMU every map allocates (IOVA, page tables), so each can fail */
	struct dmamap_test_traits iommu = { .name = "toy-spi", .iommu = true, .quiet = true };
	struct ts_hw hw;

	(void)state;
	dmamap_assert_fault_sweep_clean(&direct, probe_and_read, NULL, &hw);
	dmamap_assert_fault_sweep_clean(&iommu, probe_and_read, NULL, &hw);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_correct_driver_and_client),
		cmocka_unit_test(test_correct_driver_behind_dmabounce),
		cmocka_unit_test(test_client_reads_into_its_stack),
		cmocka_unit_test(test_client_rx_shares_a_line_on_a_packed_machine),
		cmocka_unit_test(test_driver_leaks_tx_mappings),
		cmocka_unit_test(test_every_failure_unwinds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
