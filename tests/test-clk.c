/* SPDX-License-Identifier: MIT */
/*
 * Clocks of <linux/clk.h> as a platform driver of Linux 6.x uses them: the
 * clocks a test wires to a device, turned on in probe and off in remove,
 * the managed and bulk forms undone at unbind, each misuse reported where
 * it happens with nothing changed, and what a driver leaves on reported at
 * the line that turned it on.
 */
#include <linux/clk.h>
#include <linux/device.h>
#include <linux/platform_device.h>
#include <linux/spinlock.h>
#include "common.h"

#define MHZ 1000000UL

/* The state of @pdev's clock @id. */
static struct dmamap_clock_state state_of(struct platform_device *pdev, const char *id)
{
	struct dmamap_clock_state st;

	memset(&st, 0xff, sizeof(st));
	assert_int_equal(dmamap_device_clock_state(&pdev->dev, id, &st), 0);
	return st;
}

static void assert_clock(struct platform_device *pdev, const char *id, unsigned prepared, unsigned enabled,
			 unsigned handles)
{
	struct dmamap_clock_state st = state_of(pdev, id);

	assert_int_equal(st.prepare_count, prepared);
	assert_int_equal(st.enable_count, enabled);
	assert_int_equal(st.handles, handles);
}

/* A platform device of @f's machine with a "bus" clock at 100 MHz and a "core" one at 400 MHz. */
static struct platform_device *board(struct current_fx *f)
{
	struct platform_device *pdev = dmamap_platform_device_create(f->m, "toy", 0);

	assert_false(IS_ERR(pdev));
	assert_int_equal(dmamap_device_add_clock(&pdev->dev, "bus", 100 * MHZ), 0);
	assert_int_equal(dmamap_device_add_clock(&pdev->dev, "core", 400 * MHZ), 0);
	return pdev;
}

/* ------------------------------------------------------ a tidy driver */

struct toy {
	struct clk *bus, *core, *ref;
	unsigned long core_rate;
};

static int toy_probe(struct platform_device *pdev)
{
	struct device *dev = &pdev->dev;
	struct toy *toy = devm_kzalloc(dev, sizeof(*toy), GFP_KERNEL);
	int ret;

	if (!toy)
		return -ENOMEM;
	toy->bus = devm_clk_get_enabled(dev, "bus");
	if (IS_ERR(toy->bus))
		return dev_err_probe(dev, PTR_ERR(toy->bus), "no bus clock\n");
	toy->ref = devm_clk_get_optional(dev, "ref");
	if (IS_ERR(toy->ref))
		return PTR_ERR(toy->ref);
	toy->core = clk_get(dev, "core");
	if (IS_ERR(toy->core))
		return PTR_ERR(toy->core);
	ret = clk_prepare_enable(toy->core);
	if (ret) {
		clk_put(toy->core);
		return ret;
	}
	ret = clk_prepare_enable(toy->ref); /* NULL: nothing to do */
	toy->core_rate = clk_get_rate(toy->core) + clk_get_rate(toy->ref);
	platform_set_drvdata(pdev, toy);
	return ret;
}

static void toy_remove(struct platform_device *pdev)
{
	struct toy *toy = platform_get_drvdata(pdev);

	clk_disable_unprepare(toy->ref);
	clk_disable_unprepare(toy->core);
	clk_put(toy->core);
}

static struct platform_driver toy_driver = {
	.probe = toy_probe,
	.remove = toy_remove,
	.driver = { .name = "toy" },
};

static void test_driver_turns_its_clocks_on_and_off(void **state)
{
	struct current_fx *f = *state;
	struct platform_device *pdev = board(f);
	struct toy *toy;

	assert_clock(pdev, "bus", 0, 0, 0);
	assert_int_equal(dmamap_platform_bind(pdev, &toy_driver), 0);
	toy = platform_get_drvdata(pdev);
	assert_null(toy->ref);
	assert_int_equal(toy->core_rate, 400 * MHZ);
	assert_int_equal(clk_get_rate(toy->bus), 100 * MHZ);
	assert_clock(pdev, "bus", 1, 1, 1);
	assert_clock(pdev, "core", 1, 1, 1);

	dmamap_platform_unbind(pdev);
	assert_clock(pdev, "bus", 0, 0, 0);
	assert_clock(pdev, "core", 0, 0, 0);
	assert_int_equal(f->c.reports, 0);

	/* and again: the clocks are the board's, there for the next driver */
	assert_int_equal(dmamap_platform_bind(pdev, &toy_driver), 0);
	assert_clock(pdev, "core", 1, 1, 1);
	dmamap_platform_device_destroy(pdev);
	assert_int_equal(f->c.reports, 0);
}

static void test_clocks_found_by_name(void **state)
{
	struct current_fx *f = *state;
	struct platform_device *pdev = board(f);
	struct platform_device *bare = dmamap_platform_device_create(f->m, "bare", 0);
	struct device *dev = &pdev->dev;
	struct clk *first, *core, *again;
	struct dmamap_clock_state st;

	first = clk_get(dev, NULL);
	core = clk_get(dev, "core");
	again = clk_get(dev, "core");
	assert_false(IS_ERR_OR_NULL(first));
	assert_false(IS_ERR_OR_NULL(core));
	assert_ptr_not_equal(core, again); /* a handle per get, one clock */
	assert_int_equal(clk_get_rate(first), 100 * MHZ);
	assert_int_equal(clk_get_rate(again), 400 * MHZ);
	assert_clock(pdev, "core", 0, 0, 2);
	assert_ptr_equal(clk_get(dev, "nope"), ERR_PTR(-ENOENT));
	assert_null(clk_get_optional(dev, "nope"));
	assert_null(devm_clk_get_optional(dev, "nope"));
	assert_ptr_equal(devm_clk_get(dev, "nope"), ERR_PTR(-ENOENT));
	assert_ptr_equal(clk_get(&bare->dev, NULL), ERR_PTR(-ENOENT));
	assert_null(devm_clk_get_optional_enabled(&bare->dev, NULL));
	assert_int_equal(dmamap_device_clock_state(&bare->dev, NULL, &st), -ENOENT);
	assert_int_equal(dmamap_device_clock_state(dev, "nope", &st), -ENOENT);

	/* the rate: as asked, the clock's whatever the handle */
	assert_int_equal(clk_round_rate(core, 123), 123);
	assert_int_equal(clk_set_rate(core, 200 * MHZ), 0);
	assert_int_equal(clk_get_rate(again), 200 * MHZ);
	assert_int_equal(state_of(pdev, "core").rate, 200 * MHZ);
	/* a NULL clock does nothing at 0 Hz */
	assert_int_equal(clk_get_rate(NULL), 0);
	assert_int_equal(clk_set_rate(NULL, 5), 0);
	assert_int_equal(clk_round_rate(NULL, 5), 0);
	assert_int_equal(clk_prepare_enable(NULL), 0);
	clk_disable_unprepare(NULL);
	clk_put(NULL);
	clk_put(ERR_PTR(-ENOENT));

	/* the counts are the clock's: on through one handle, off through another */
	assert_int_equal(clk_prepare_enable(core), 0);
	assert_clock(pdev, "core", 1, 1, 2);
	clk_disable_unprepare(again);
	assert_clock(pdev, "core", 0, 0, 2);
	clk_put(first);
	clk_put(core);
	clk_put(again);
	assert_clock(pdev, "core", 0, 0, 0);
	assert_int_equal(f->c.reports, 0);

	/* a clock without a name: found as the first, never by a name */
	assert_int_equal(dmamap_device_add_clock(&bare->dev, NULL, 32768), 0);
	assert_int_equal(dmamap_device_add_clock(&bare->dev, NULL, 1), 0);
	first = clk_get(&bare->dev, NULL);
	assert_int_equal(clk_get_rate(first), 32768);
	assert_ptr_equal(clk_get(&bare->dev, ""), ERR_PTR(-ENOENT));
	clk_put(first);
	dmamap_platform_device_destroy(bare);
	dmamap_platform_device_destroy(pdev);
	assert_int_equal(f->c.reports, 0);
}

static void test_board_refusals(void **state)
{
	struct current_fx *f = *state;
	struct platform_device *pdev = board(f);
	struct dmamap_clock_state st;
	struct device stray;
	struct capture pc;

	assert_int_equal(dmamap_device_add_clock(&pdev->dev, "bus", 1), -EINVAL);
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_BAD_INPUT], 1);
	assert_int_equal(state_of(pdev, "bus").rate, 100 * MHZ);
	assert_int_equal(dmamap_device_clock_state(&pdev->dev, "bus", NULL), -EINVAL);
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_BAD_INPUT], 2);

	assert_int_equal(dmamap_platform_bind(pdev, &toy_driver), 0);
	assert_int_equal(dmamap_device_add_clock(&pdev->dev, "late", 1), -EBUSY);
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_BAD_INPUT], 3);
	assert_int_equal(dmamap_device_clock_state(&pdev->dev, "late", &st), -ENOENT);
	dmamap_platform_unbind(pdev);

	/* a fault on the way: nothing added */
	assert_int_equal(dmamap_fault_inject(f->m, DMAMAP_FAULT_HOST_ALLOC, 1, 0), 0);
	assert_int_equal(dmamap_device_add_clock(&pdev->dev, "late", 1), -ENOMEM);
	assert_int_equal(dmamap_fault_inject(f->m, DMAMAP_FAULT_HOST_ALLOC, 0, 0), 0);
	assert_int_equal(dmamap_device_clock_state(&pdev->dev, "late", &st), -ENOENT);

	memset(&stray, 0, sizeof(stray));
	capture_start(&pc, NULL);
	assert_int_equal(dmamap_device_add_clock(&stray, "x", 1), -EINVAL);
	assert_ptr_equal(clk_get(&stray, NULL), ERR_PTR(-EINVAL));
	capture_stop(NULL);
	assert_int_equal(pc.by_kind[DMAMAP_REPORT_BAD_INPUT], 2);
	dmamap_platform_device_destroy(pdev);
}

/* The last report of @f: its kind, its line, and @words in its message. */
static void assert_last(struct current_fx *f, enum dmamap_report_kind kind, int line, const char *words)
{
	assert_int_equal(f->c.rec_last.kind, kind);
	assert_int_equal(f->c.rec_last.line, line);
	if (!strstr(f->c.rec_last.message, words))
		fail_msg("\"%s\" does not say \"%s\"", f->c.rec_last.message, words);
}

static void test_misuse_reported_at_its_line(void **state)
{
	struct current_fx *f = *state;
	struct platform_device *pdev = board(f);
	struct device *dev = &pdev->dev;
	struct clk *core = clk_get(dev, "core"), *bus = devm_clk_get(dev, "bus"), *gone;
	unsigned long n = f->c.reports;
	int line;

	/* enable before prepare: refused */
	line = __LINE__ + 1;
	assert_int_equal(clk_enable(core), -ESHUTDOWN);
	assert_last(f, DMAMAP_REPORT_API_MISUSE, line, "Enabling unprepared clock core");
	assert_clock(pdev, "core", 0, 0, 1);
	/* disable and unprepare with nothing on */
	line = __LINE__ + 1;
	clk_disable(core);
	assert_last(f, DMAMAP_REPORT_API_MISUSE, line, "already disabled");
	line = __LINE__ + 1;
	clk_unprepare(core);
	assert_last(f, DMAMAP_REPORT_API_MISUSE, line, "already unprepared");
	assert_clock(pdev, "core", 0, 0, 1);
	assert_int_equal(f->c.reports, n + 3);

	/* unpreparing an enabled clock: warned, and done */
	assert_int_equal(clk_prepare(core), 0);
	assert_int_equal(clk_enable(core), 0);
	line = __LINE__ + 1;
	clk_unprepare(core);
	assert_last(f, DMAMAP_REPORT_API_MISUSE, line, "Unpreparing enabled clock core");
	assert_clock(pdev, "core", 0, 1, 1);
	clk_disable(core);
	assert_clock(pdev, "core", 0, 0, 1);
	assert_int_equal(f->c.reports, n + 4);

	/* a managed handle is not clk_put()'s */
	line = __LINE__ + 1;
	clk_put(bus);
	assert_last(f, DMAMAP_REPORT_API_MISUSE, line, "devm_clk_put() gives it back");
	assert_clock(pdev, "bus", 0, 0, 1);
	/* nor is a plain one devm_clk_put()'s */
	line = __LINE__ + 1;
	devm_clk_put(dev, core);
	assert_last(f, DMAMAP_REPORT_API_MISUSE, line, "no managed clock handle");
	assert_clock(pdev, "core", 0, 0, 1);
	devm_clk_put(dev, bus);
	assert_clock(pdev, "bus", 0, 0, 0);
	assert_int_equal(f->c.reports, n + 6);

	/* a handle put is no handle: refused, nothing changed */
	gone = core;
	clk_put(core);
	line = __LINE__ + 1;
	assert_int_equal(clk_prepare(gone), -EINVAL);
	assert_last(f, DMAMAP_REPORT_BAD_INPUT, line, "not a live clock handle");
	line = __LINE__ + 1;
	clk_put(gone);
	assert_last(f, DMAMAP_REPORT_BAD_INPUT, line, "not a live clock handle");
	assert_int_equal(clk_get_rate(gone), 0);
	assert_clock(pdev, "core", 0, 0, 0);
	assert_int_equal(f->c.reports, n + 8);

	/* put while on: reported where it was turned on; the clock stays on, and is a leak at unbind */
	core = clk_get(dev, "core");
	line = __LINE__ + 1;
	assert_int_equal(clk_prepare_enable(core), 0);
	clk_put(core);
	assert_last(f, DMAMAP_REPORT_API_MISUSE, line, "put while still enabled");
	assert_clock(pdev, "core", 1, 1, 0);
	assert_int_equal(f->c.reports, n + 9);
	dmamap_device_unbind(dev); /* the driver core's unbind without a driver */
	assert_int_equal(f->c.reports, n + 10);
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_LEAK], 1);
	assert_last(f, DMAMAP_REPORT_LEAK, line, "left enabled through a handle put since");
	assert_clock(pdev, "core", 0, 0, 0);
	dmamap_platform_device_destroy(pdev);
	assert_int_equal(f->c.reports, n + 10);
	f->c.reports = 0;
}

/* ----------------------------------------------- what a driver leaves on */

static int leak_enable_line, leak_get_line;

static int forgetful_probe(struct platform_device *pdev)
{
	struct clk *core;

	leak_get_line = __LINE__ + 1;
	core = clk_get(&pdev->dev, "core");
	if (IS_ERR(core))
		return PTR_ERR(core);
	leak_enable_line = __LINE__ + 1;
	return clk_prepare_enable(core);
}

static int failing_probe(struct platform_device *pdev)
{
	int ret = forgetful_probe(pdev);

	return ret ? ret : -EIO; /* an error path that forgets the clock */
}

static struct platform_driver forgetful_driver = { .probe = forgetful_probe, .driver = { .name = "toy" } };
static struct platform_driver failing_driver = { .probe = failing_probe, .driver = { .name = "toy" } };

static void check_leaks_of_forgetful(struct current_fx *f, struct platform_device *pdev)
{
	const struct captured *first;

	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_LEAK], 2);
	first = capture_find(&f->c, DMAMAP_REPORT_LEAK);
	assert_non_null(first);
	assert_int_equal(first->line, leak_enable_line);
	assert_non_null(strstr(first->message, "clock core left enabled"));
	assert_int_equal(f->c.rec_last.line, leak_get_line);
	assert_non_null(strstr(f->c.rec_last.message, "clk_get() never put"));
	/* turned off and put: the next driver starts clean */
	assert_clock(pdev, "core", 0, 0, 0);
}

static void test_clock_left_on_at_unbind(void **state)
{
	struct current_fx *f = *state;
	struct platform_device *pdev = board(f);

	assert_int_equal(dmamap_platform_bind(pdev, &forgetful_driver), 0);
	assert_clock(pdev, "core", 1, 1, 1);
	assert_int_equal(f->c.reports, 0);
	dmamap_platform_unbind(pdev);
	check_leaks_of_forgetful(f, pdev);
	dmamap_platform_device_destroy(pdev);
	assert_int_equal(f->c.reports, 2);
	f->c.reports = 0; /* seen: not the teardown's */
}

static void test_clock_left_on_by_a_failed_probe(void **state)
{
	struct current_fx *f = *state;
	struct platform_device *pdev = board(f);

	assert_int_equal(dmamap_platform_bind(pdev, &failing_driver), -EIO);
	check_leaks_of_forgetful(f, pdev);
	assert_null(pdev->dev.driver);
	dmamap_platform_device_destroy(pdev);
	f->c.reports = 0;
}

/* A plain device's clocks: what is left at its release is a leak too. */
static void test_plain_device_release(void **state)
{
	struct current_fx *f = *state;
	struct device dev;
	struct clk *c;
	int get_line, prepare_line;

	memset(&dev, 0, sizeof(dev));
	assert_int_equal(dmamap_device_init(&dev, f->m, "plain"), 0);
	assert_int_equal(dmamap_device_add_clock(&dev, "ick", 1), 0);

	get_line = __LINE__ + 1;
	c = clk_get(&dev, "ick");
	prepare_line = __LINE__ + 1;
	assert_int_equal(clk_prepare(c), 0);
	dmamap_device_release(&dev);
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_LEAK], 2);
	assert_non_null(strstr(capture_find(&f->c, DMAMAP_REPORT_LEAK)->message, "clock ick left prepared"));
	assert_int_equal(capture_find(&f->c, DMAMAP_REPORT_LEAK)->line, prepare_line);
	assert_int_equal(f->c.rec_last.line, get_line);
	f->c.reports = 0;
}

/* ------------------------------------------------------ managed forms */

static int managed_probe(struct platform_device *pdev)
{
	struct clk *bus = devm_clk_get_prepared(&pdev->dev, "bus");
	struct clk *core = devm_clk_get_optional_enabled(&pdev->dev, "core");
	struct clk *ref = devm_clk_get_optional_prepared(&pdev->dev, "ref");

	if (IS_ERR(bus) || IS_ERR(core) || ref)
		return -ENODEV;
	return 0;
}

static struct platform_driver managed_driver = { .probe = managed_probe, .driver = { .name = "toy" } };

/* A driver that hands clk_disable_unprepare() itself to devres, as some do. */
static int action_probe(struct platform_device *pdev)
{
	struct clk *core = devm_clk_get(&pdev->dev, "core");
	int ret;

	if (IS_ERR(core))
		return PTR_ERR(core);
	ret = clk_prepare_enable(core);
	if (ret)
		return ret;
	return devm_add_action_or_reset(&pdev->dev, (void (*)(void *))clk_disable_unprepare, core);
}

static struct platform_driver action_driver = { .probe = action_probe, .driver = { .name = "toy" } };

/* A driver that turns off, in its remove, what devm_clk_get_enabled() turned on: undone twice. */
static void double_off_remove(struct platform_device *pdev)
{
	clk_disable_unprepare(platform_get_drvdata(pdev));
}

static int double_off_probe(struct platform_device *pdev)
{
	struct clk *core = devm_clk_get_enabled(&pdev->dev, "core");

	if (IS_ERR(core))
		return PTR_ERR(core);
	platform_set_drvdata(pdev, core);
	return 0;
}

static struct platform_driver double_off_driver = {
	.probe = double_off_probe,
	.remove = double_off_remove,
	.driver = { .name = "toy" },
};

static void test_managed_forms_undone_at_unbind(void **state)
{
	struct current_fx *f = *state;
	struct platform_device *pdev = board(f);

	assert_int_equal(dmamap_platform_bind(pdev, &managed_driver), 0);
	assert_clock(pdev, "bus", 1, 0, 1);
	assert_clock(pdev, "core", 1, 1, 1);
	dmamap_platform_unbind(pdev);
	assert_clock(pdev, "bus", 0, 0, 0);
	assert_clock(pdev, "core", 0, 0, 0);

	assert_int_equal(dmamap_platform_bind(pdev, &action_driver), 0);
	assert_clock(pdev, "core", 1, 1, 1);
	dmamap_platform_unbind(pdev);
	assert_clock(pdev, "core", 0, 0, 0);
	assert_int_equal(f->c.reports, 0);

	assert_int_equal(dmamap_platform_bind(pdev, &double_off_driver), 0);
	dmamap_platform_unbind(pdev);
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_API_MISUSE], 2);
	assert_non_null(strstr(capture_find(&f->c, DMAMAP_REPORT_API_MISUSE)->message, "already disabled"));
	assert_non_null(strstr(f->c.rec_last.message, "already unprepared"));
	assert_clock(pdev, "core", 0, 0, 0);
	dmamap_platform_device_destroy(pdev);
	f->c.reports = 0;
}

static void test_bulk_get_all(void **state)
{
	struct current_fx *f = *state;
	struct platform_device *pdev = board(f);
	struct platform_device *bare = dmamap_platform_device_create(f->m, "bare", 0);
	struct device *dev = &pdev->dev;
	struct clk_bulk_data *clks = (struct clk_bulk_data *)1;
	unsigned long nth;
	int n;

	assert_int_equal(devm_clk_bulk_get_all(&bare->dev, &clks), 0);
	assert_null(clks);

	n = devm_clk_bulk_get_all(dev, &clks);
	assert_int_equal(n, 2);
	assert_string_equal(clks[0].id, "bus");
	assert_string_equal(clks[1].id, "core");
	assert_int_equal(clk_get_rate(clks[1].clk), 400 * MHZ);
	assert_int_equal(clk_bulk_prepare_enable(n, clks), 0);
	assert_clock(pdev, "bus", 1, 1, 1);
	assert_clock(pdev, "core", 1, 1, 1);
	clk_bulk_disable_unprepare(n, clks);
	assert_clock(pdev, "core", 0, 0, 1);
	dmamap_device_unbind(dev);
	assert_clock(pdev, "bus", 0, 0, 0);
	assert_clock(pdev, "core", 0, 0, 0);

	assert_int_equal(devm_clk_bulk_get_all_enabled(dev, &clks), 2);
	assert_clock(pdev, "bus", 1, 1, 1);
	assert_clock(pdev, "core", 1, 1, 1);
	dmamap_device_unbind(dev);
	assert_clock(pdev, "core", 0, 0, 0);
	assert_int_equal(f->c.reports, 0);

	/* each allocation failing in turn: an error, and nothing left on or held */
	for (nth = 1;; nth++) {
		unsigned long held = dmamap_devres_count(dev);

		assert_int_equal(dmamap_fault_inject(f->m, DMAMAP_FAULT_HOST_ALLOC, nth, 0), 0);
		n = devm_clk_bulk_get_all_enabled(dev, &clks);
		assert_int_equal(dmamap_fault_inject(f->m, DMAMAP_FAULT_HOST_ALLOC, 0, 0), 0);
		if (n == 2)
			break;
		assert_int_equal(n, -ENOMEM);
		assert_null(clks);
		assert_int_equal(dmamap_devres_count(dev), held);
		assert_clock(pdev, "bus", 0, 0, 0);
		assert_clock(pdev, "core", 0, 0, 0);
	}
	assert_true(nth > 3); /* the array, then a handle and a record per clock */
	dmamap_device_unbind(dev);
	assert_int_equal(f->c.reports, 0);
	dmamap_platform_device_destroy(bare);
	dmamap_platform_device_destroy(pdev);
}

static void test_prepare_may_sleep_enable_does_not(void **state)
{
	struct current_fx *f = *state;
	struct platform_device *pdev = board(f);
	struct clk *core = clk_get(&pdev->dev, "core");
	DEFINE_SPINLOCK(lock);
	int line;

	spin_lock(&lock);
	line = __LINE__ + 1;
	assert_int_equal(clk_prepare(core), 0);
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_SLEEP_IN_ATOMIC], 1);
	assert_int_equal(f->c.rec_last.line, line);
	assert_int_equal(clk_enable(core), 0);
	clk_disable(core);
	spin_unlock(&lock);
	assert_int_equal(f->c.reports, 1);
	clk_unprepare(core);
	clk_put(core);
	assert_int_equal(f->c.reports, 1);
	dmamap_platform_device_destroy(pdev);
	f->c.reports = 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_driver_turns_its_clocks_on_and_off, current_fx_setup,
						current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_clocks_found_by_name, current_fx_setup, current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_board_refusals, current_fx_setup, current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_misuse_reported_at_its_line, current_fx_setup, current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_clock_left_on_at_unbind, current_fx_setup, current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_clock_left_on_by_a_failed_probe, current_fx_setup,
						current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_plain_device_release, current_fx_setup, current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_managed_forms_undone_at_unbind, current_fx_setup,
						current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_bulk_get_all, current_fx_setup, current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_prepare_may_sleep_enable_does_not, current_fx_setup,
						current_fx_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
