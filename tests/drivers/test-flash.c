/* SPDX-License-Identifier: MIT */
/*
 * The toy flash controller's platform driver, bound and unbound as the
 * driver core would, against a model of the controller on the demanding
 * machine, its registers the window of its memory resource: the bytes each
 * way, a probe refused and unwound, one with no registers to map, a remove
 * that leaves nothing, and an error path that forgets its unmap.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <linux/platform_device.h>
#include <linux/property.h>
#include <linux/slab.h>

#include <dmamap/clk.h>
#include <dmamap/irq.h>
#include <dmamap/testing.h>

#include "toy-flash.h"

/* ------------------------------------------------------------ the controller */

struct tf_hw {
	struct device *dev;
	u32 *regs;                    /* its register window, little endian (dmamap_platform_regs()) */
	u32 consumed;
	bool fail_next;               /* the next transfer fails (an ECC error), moving nothing */
	u8 store[TF_SECTORS][TF_SECTOR];
};

#define TF_TEST_BASE 0x1c000000 /* where the board puts the controller's registers */
#define TF_TEST_IRQ 17          /* the controller's interrupt line */

/* The controller's resources, as its board gives them: its registers and its interrupt line. */
static const struct resource tf_res[] = { DEFINE_RES_MEM(TF_TEST_BASE, TF_REGS_SIZE), DEFINE_RES_IRQ(TF_TEST_IRQ) };

/* A controller at rest for @pdev: the hardware's side of its registers. */
static void hw_attach(struct tf_hw *hw, struct platform_device *pdev)
{
	memset(hw, 0, sizeof(*hw));
	hw->dev = &pdev->dev;
	hw->regs = dmamap_platform_regs(pdev, 0);
	assert_non_null(hw->regs);
}

/* Run every queued descriptor, then raise the interrupt. */
static void hw_run(struct tf_hw *hw)
{
	u32 ring = le32_to_cpu(hw->regs[TF_RING_BASE / 4]), head = le32_to_cpu(hw->regs[TF_HEAD / 4]);

	if (!hw->regs[TF_CTRL / 4])
		return;
	for (; hw->consumed != head; hw->consumed++) {
		u32 at = ring + (hw->consumed % TF_RING) * sizeof(struct tf_desc);
		__le32 st = cpu_to_le32(TF_ST_DONE);
		struct tf_desc d;
		u8 *sector;

		assert_int_equal(dmamap_dev_read(hw->dev, at, &d, sizeof(d)), 0);
		sector = hw->store[le32_to_cpu(d.cmd) >> 8];
		if (hw->fail_next)
			st = cpu_to_le32(TF_ST_ERR);
		else if (le32_to_cpu(d.cmd) & TF_CMD_WRITE)
			assert_int_equal(dmamap_dev_read(hw->dev, le32_to_cpu(d.addr), sector, le32_to_cpu(d.len)), 0);
		else
			assert_int_equal(dmamap_dev_write(hw->dev, le32_to_cpu(d.addr), sector, le32_to_cpu(d.len)), 0);
		hw->fail_next = false;
		assert_int_equal(dmamap_dev_write(hw->dev, at + offsetof(struct tf_desc, status), &st, sizeof(st)), 0);
	}
	hw->regs[TF_IRQ / 4] = cpu_to_le32(1);
}

/* ------------------------------------------------------------ helpers */

static void fill(u8 *p, size_t len, unsigned seed)
{
	for (size_t i = 0; i < len; i++)
		p[i] = (u8)((i * 131 + seed * 7) ^ (i >> 3));
}

/* A fresh machine, a platform device named @name on it, the driver bound: what its probe returned. */
static int bring_up(struct dmamap_test *t, struct tf_hw *hw, const char *name, struct platform_device **pdev)
{
	struct dmamap_test_traits traits = { .name = "toy-flash-test", .quiet = true };

	assert_int_equal(dmamap_test_init(t, &traits), 0);
	*pdev = dmamap_platform_device_create_res(t->machine, name, 0, tf_res, ARRAY_SIZE(tf_res));
	assert_false(IS_ERR(*pdev));
	hw_attach(hw, *pdev);
	return dmamap_platform_bind(*pdev, &tflash_driver);
}

/* After the unbind: nothing mapped, no kmalloc object live, and no report up to the machine's destruction. */
static void assert_all_released(struct dmamap_test *t, struct platform_device *pdev)
{
	struct dmamap_kmalloc_stats ks;

	assert_null(platform_get_drvdata(pdev));
	dmamap_assert_no_outstanding_mappings(t);
	dmamap_kmalloc_stats(t->machine, &ks);
	assert_int_equal(ks.live_objects, 0);
	dmamap_platform_device_destroy(pdev);
	dmamap_test_fini(t);
	dmamap_assert_no_reports(t);
}

/* Submit a transfer, run the controller, raise its interrupt (one handler takes it): the request's outcome. */
static int transfer(struct tflash *fl, struct tf_hw *hw, unsigned sector, void *data, size_t len, bool write)
{
	struct tflash_req *req = tflash_submit(fl, sector, data, len, write);

	if (IS_ERR(req))
		return (int)PTR_ERR(req);
	hw_run(hw);
	assert_int_equal(dmamap_irq_raise(dmamap_dev_machine(hw->dev), TF_TEST_IRQ), 1);
	return tflash_req_finish(req);
}

/* The first line of the driver's source that holds @text: where a report should point. */
static int driver_line(const char *text)
{
	FILE *f = fopen(DRIVER_SOURCE, "r");
	char buf[256];
	int line = 0, found = 0;

	assert_non_null(f);
	while (!found && fgets(buf, sizeof(buf), f))
		found = ++line && strstr(buf, text);
	fclose(f);
	assert_true(found);
	return line;
}

/* ------------------------------------------------------------ the tests */

/* A sector written reaches the flash; read back, it reaches the caller; a failed read says so and leaves nothing. */
static void test_bytes_arrive_both_ways(void **state)
{
	static struct tf_hw hw;
	u8 data[TF_SECTOR], got[TF_SECTOR];
	struct platform_device *pdev;
	struct dmamap_test t;
	struct tflash *fl;

	(void)state;
	assert_int_equal(bring_up(&t, &hw, "toy-flash", &pdev), 0);
	fl = platform_get_drvdata(pdev);
	/* the probe pointed the controller at its ring and started it */
	assert_int_equal(le32_to_cpu(hw.regs[TF_CTRL / 4]), 1);
	assert_int_not_equal(le32_to_cpu(hw.regs[TF_RING_BASE / 4]), 0);
	fill(data, sizeof(data), 1);
	assert_int_equal(transfer(fl, &hw, 3, data, sizeof(data), true), 0);
	assert_memory_equal(hw.store[3], data, sizeof(data));

	fill(hw.store[5], 300, 2);
	memset(got, 0x5a, sizeof(got));
	assert_int_equal(transfer(fl, &hw, 5, got, 300, false), 0);
	assert_memory_equal(got, hw.store[5], 300);
	assert_int_equal(transfer(fl, &hw, 3, got, sizeof(got), false), 0);
	assert_memory_equal(got, data, sizeof(data));

	hw.fail_next = true;
	assert_int_equal(transfer(fl, &hw, 3, got, sizeof(got), false), -EIO);
	dmamap_platform_unbind(pdev);
	assert_all_released(&t, pdev);
}

/*
 * Requests the controller never ran: one past a full ring is refused and
 * unwound; remove aborts the rest, unmapped, each freed once its submitter
 * lets go.
 */
static void test_remove_releases_everything(void **state)
{
	static struct tf_hw hw;
	static u8 bufs[TF_RING][TF_SECTOR];
	struct tflash_req *req[TF_RING];
	struct platform_device *pdev;
	struct dmamap_test t;
	struct tflash *fl;

	(void)state;
	assert_int_equal(bring_up(&t, &hw, "toy-flash", &pdev), 0);
	fl = platform_get_drvdata(pdev);
	fill(bufs[0], TF_SECTOR, 3);
	for (unsigned i = 0; i < TF_RING; i++) {
		req[i] = tflash_submit(fl, i, bufs[i], TF_SECTOR, i == 0);
		assert_false(IS_ERR(req[i]));
	}
	assert_ptr_equal(tflash_submit(fl, 0, bufs[0], 64, true), ERR_PTR(-EBUSY));
	assert_int_equal(tflash_req_finish(req[0]), -EINPROGRESS); /* the submitter gives up on the write */

	dmamap_platform_unbind(pdev);
	assert_int_equal(le32_to_cpu(hw.regs[TF_CTRL / 4]), 0); /* remove() stopped the controller */
	for (unsigned i = 1; i < TF_RING; i++)
		assert_int_equal(tflash_req_finish(req[i]), -ESHUTDOWN);
	assert_all_released(&t, pdev);
}

/* A variant whose address registers hold 24 bits: the mask is refused, the probe fails and unwinds. */
static void test_probe_refuses_a_narrow_mask(void **state)
{
	static struct tf_hw hw;
	struct platform_device *pdev;
	struct dmamap_test t;

	(void)state;
	assert_int_equal(bring_up(&t, &hw, "toy-flash-lite", &pdev), -EIO);
	assert_all_released(&t, pdev); /* the state devm_kzalloc() gave went back */
}

/* A board that forgot the controller's registers: the probe cannot map them, fails and unwinds. */
static void test_probe_without_registers(void **state)
{
	struct dmamap_test_traits traits = { .name = "toy-flash-test", .quiet = true };
	static const struct resource irq_only[] = { DEFINE_RES_IRQ(TF_TEST_IRQ) };
	struct platform_device *pdev;
	struct dmamap_test t;

	(void)state;
	assert_int_equal(dmamap_test_init(&t, &traits), 0);
	pdev = dmamap_platform_device_create_res(t.machine, "toy-flash", 0, irq_only, ARRAY_SIZE(irq_only));
	assert_false(IS_ERR(pdev));
	assert_int_equal(dmamap_platform_bind(pdev, &tflash_driver), -EINVAL);
	assert_all_released(&t, pdev);
}

/* A controller named nothing the ID table knows, described by a device-tree node, and a bus clock wired to it. */
static int bring_up_described(struct dmamap_test *t, struct tf_hw *hw, const char *compatible,
			      struct platform_device **pdev)
{
	struct dmamap_test_traits traits = { .name = "toy-flash-test", .quiet = true };
	const struct property_entry props[] = { PROPERTY_ENTRY_STRING("compatible", compatible), { } };

	assert_int_equal(dmamap_test_init(t, &traits), 0);
	*pdev = dmamap_platform_device_create_res(t->machine, "flash-ctl", 0, tf_res, ARRAY_SIZE(tf_res));
	assert_false(IS_ERR(*pdev));
	assert_int_equal(dmamap_device_set_of_node(&(*pdev)->dev, "flash@1c000000", props), 0);
	assert_int_equal(dmamap_device_add_clock(&(*pdev)->dev, "bus", 50000000), 0);
	hw_attach(hw, *pdev);
	return dmamap_platform_bind(*pdev, &tflash_driver);
}

/* The clock "bus" of @pdev: on (prepared and enabled once), or off. */
static void assert_bus_clock(struct platform_device *pdev, bool on)
{
	struct dmamap_clock_state st;

	assert_int_equal(dmamap_device_clock_state(&pdev->dev, "bus", &st), 0);
	assert_int_equal(st.prepare_count, on);
	assert_int_equal(st.enable_count, on);
}

/*
 * Described by its device tree: the match data gives the width ("toy,flash":
 * 32 bits, the transfers work; "toy,flash-lite": 24, refused), and the bus
 * clock is on while the driver is bound, off after its unbind or its failed
 * probe.
 */
static void test_described_by_its_device_tree(void **state)
{
	static struct tf_hw hw;
	u8 data[TF_SECTOR];
	struct platform_device *pdev;
	struct dmamap_test t;

	(void)state;
	assert_int_equal(bring_up_described(&t, &hw, "toy,flash", &pdev), 0);
	assert_int_equal(dma_get_mask(&pdev->dev), DMA_BIT_MASK(32));
	assert_bus_clock(pdev, true);
	fill(data, sizeof(data), 9);
	assert_int_equal(transfer(platform_get_drvdata(pdev), &hw, 1, data, sizeof(data), true), 0);
	assert_memory_equal(hw.store[1], data, sizeof(data));
	dmamap_platform_unbind(pdev);
	assert_bus_clock(pdev, false);
	assert_all_released(&t, pdev);

	assert_int_equal(bring_up_described(&t, &hw, "toy,flash-lite", &pdev), -EIO);
	assert_bus_clock(pdev, false);
	assert_all_released(&t, pdev);
}

/* Create, bind, write and read a sector, unbind, destroy: with each allocation failed in turn. */
static int bind_and_transfer(struct dmamap_test *t, void *ctx)
{
	struct tf_hw *hw = ctx;
	struct platform_device *pdev;
	u8 buf[100] = { 1, 2, 3 };
	int err;

	pdev = dmamap_platform_device_create_res(t->machine, "toy-flash", 0, tf_res, ARRAY_SIZE(tf_res));
	if (IS_ERR(pdev))
		return (int)PTR_ERR(pdev);
	hw_attach(hw, pdev);
	err = dmamap_platform_bind(pdev, &tflash_driver);
	if (!err)
		err = transfer(platform_get_drvdata(pdev), hw, 2, buf, sizeof(buf), true);
	if (!err)
		err = transfer(platform_get_drvdata(pdev), hw, 2, buf, sizeof(buf), false);
	dmamap_platform_device_destroy(pdev); /* unbinds a bound driver first */
	return err;
}

static void test_every_failure_unwinds(void **state)
{
	struct dmamap_test_traits traits = { .name = "toy-flash-test", .quiet = true };
	static struct tf_hw hw;

	(void)state;
	dmamap_assert_fault_sweep_clean(&traits, bind_and_transfer, NULL, &hw);
}

/*
 * The broken variant: a failed transfer is completed without its unmap. The
 * release's kfree() of the buffer is refused, the buffer being still mapped,
 * the device's release reports the mapping, the machine's destruction the
 * buffer: each at the driver's lines.
 */
static void test_error_path_without_unmap(void **state)
{
	static struct tf_hw hw;
	u8 got[TF_SECTOR];
	struct platform_device *pdev;
	struct dmamap_test t;
	const struct dmamap_test_report *r;
	int map_line = driver_line("req->dma = dma_map_single("), kfree_line = driver_line("kfree(req->buf);");

	(void)state;
	assert_int_equal(bring_up(&t, &hw, "toy-flash", &pdev), 0);
	tflash_bug = TFLASH_NO_UNMAP_ON_ERROR;
	hw.fail_next = true;
	assert_int_equal(transfer(platform_get_drvdata(pdev), &hw, 4, got, sizeof(got), false), -EIO);
	tflash_bug = TFLASH_CORRECT;
	dmamap_platform_device_destroy(pdev);
	dmamap_test_fini(&t);

	r = dmamap_test_find_report(&t, DMAMAP_REPORT_FREE_MAPPED, "toy-flash.c", kfree_line);
	assert_non_null(r);
	assert_int_equal(r->map_line, map_line);
	r = dmamap_test_find_report(&t, DMAMAP_REPORT_LEAK, NULL, 0);
	assert_non_null(r);
	assert_non_null(strstr(r->map_file, "toy-flash.c"));
	assert_int_equal(r->map_line, map_line);
	assert_int_equal(t.by_kind[DMAMAP_REPORT_LEAK], 2);
	assert_int_equal(t.reports, 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bytes_arrive_both_ways),
		cmocka_unit_test(test_remove_releases_everything),
		cmocka_unit_test(test_probe_refuses_a_narrow_mask),
		cmocka_unit_test(test_probe_without_registers),
		cmocka_unit_test(test_described_by_its_device_tree),
		cmocka_unit_test(test_every_failure_unwinds),
		cmocka_unit_test(test_error_path_without_unmap),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
