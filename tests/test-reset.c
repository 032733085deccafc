/* SPDX-License-Identifier: MIT */
/*
 * Reset lines of <linux/reset.h> as a platform driver of Linux 6.x uses
 * them: the lines a test wires to a device, deasserted in probe and asserted
 * in remove, exclusive and shared controls, the optional, managed,
 * _deasserted and array forms undone at unbind, each misuse reported where
 * it happens with nothing changed, and a control a driver never put reported
 * at the line that got it.
 */
#include <linux/device.h>
#include <linux/platform_device.h>
#include <linux/reset.h>
#include <linux/spinlock.h>
#include "common.h"

/* The state of @pdev's line @id. */
static struct dmamap_reset_state state_of(struct platform_device *pdev, const char *id)
{
	struct dmamap_reset_state st;

	memset(&st, 0xff, sizeof(st));
	assert_int_equal(dmamap_device_reset_state(&pdev->dev, id, &st), 0);
	return st;
}

static void assert_line(struct platform_device *pdev, const char *id, bool asserted, unsigned deasserts,
			unsigned handles)
{
	struct dmamap_reset_state st = state_of(pdev, id);

	if (st.asserted != asserted)
		fail_msg("reset %s is %sasserted", id ? id : "(first)", st.asserted ? "" : "de");
	assert_int_equal(st.deassert_count, deasserts);
	assert_int_equal(st.handles, handles);
}

static void assert_pulses(struct platform_device *pdev, const char *id, unsigned pulses)
{
	assert_int_equal(state_of(pdev, id).pulses, pulses);
}

/* Whether @a and @b tell the same state. */
static void assert_same(struct dmamap_reset_state a, struct dmamap_reset_state b)
{
	assert_int_equal(a.asserted, b.asserted);
	assert_int_equal(a.pulses, b.pulses);
	assert_int_equal(a.deassert_count, b.deassert_count);
	assert_int_equal(a.handles, b.handles);
}

/* A platform device of @f's machine with a "core" line in reset and a "bus" one out of it. */
static struct platform_device *board(struct current_fx *f)
{
	struct platform_device *pdev = dmamap_platform_device_create(f->m, "toy", 0);

	assert_false(IS_ERR(pdev));
	assert_int_equal(dmamap_device_add_reset(&pdev->dev, "core", true), 0);
	assert_int_equal(dmamap_device_add_reset(&pdev->dev, "bus", false), 0);
	return pdev;
}

/* The last report of @f: its kind, its line, and @words in its message. */
static void assert_last(struct current_fx *f, enum dmamap_report_kind kind, int line, const char *words)
{
	assert_int_equal(f->c.rec_last.kind, kind);
	assert_int_equal(f->c.rec_last.line, line);
	if (!strstr(f->c.rec_last.message, words))
		fail_msg("\"%s\" does not say \"%s\"", f->c.rec_last.message, words);
}

/* ------------------------------------------------------ a tidy driver */

struct toy {
	struct reset_control *core, *phy;
	int status_in, status_out;
};

static int toy_probe(struct platform_device *pdev)
{
	struct device *dev = &pdev->dev;
	struct toy *toy = devm_kzalloc(dev, sizeof(*toy), GFP_KERNEL);
	int ret;

	if (!toy)
		return -ENOMEM;
	toy->core = devm_reset_control_get_exclusive(dev, "core");
	if (IS_ERR(toy->core))
		return dev_err_probe(dev, PTR_ERR(toy->core), "no core reset\n");
	toy->phy = devm_reset_control_get_optional_shared(dev, "phy");
	if (IS_ERR(toy->phy))
		return PTR_ERR(toy->phy);
	toy->status_in = reset_control_status(toy->core);
	ret = reset_control_deassert(toy->core);
	if (ret)
		return ret;
	ret = reset_control_deassert(toy->phy); /* NULL: nothing to do */
	toy->status_out = reset_control_status(toy->core);
	platform_set_drvdata(pdev, toy);
	return ret;
}

static void toy_remove(struct platform_device *pdev)
{
	struct toy *toy = platform_get_drvdata(pdev);

	reset_control_assert(toy->phy);
	reset_control_assert(toy->core);
}

static struct platform_driver toy_driver = {
	.probe = toy_probe,
	.remove = toy_remove,
	.driver = { .name = "toy" },
};

static void test_driver_holds_and_releases_its_reset(void **state)
{
	struct current_fx *f = *state;
	struct platform_device *pdev = board(f);
	struct toy *toy;

	assert_line(pdev, "core", true, 0, 0);
	assert_int_equal(dmamap_platform_bind(pdev, &toy_driver), 0);
	toy = platform_get_drvdata(pdev);
	assert_null(toy->phy);
	assert_int_equal(toy->status_in, 1);
	assert_int_equal(toy->status_out, 0);
	assert_line(pdev, "core", false, 0, 1);
	assert_line(pdev, "bus", false, 0, 0);

	dmamap_platform_unbind(pdev);
	assert_line(pdev, "core", true, 0, 0);
	assert_int_equal(f->c.reports, 0);

	/* and again: the line is the board's, there for the next driver */
	assert_int_equal(dmamap_platform_bind(pdev, &toy_driver), 0);
	assert_line(pdev, "core", false, 0, 1);
	dmamap_platform_device_destroy(pdev);
	assert_int_equal(f->c.reports, 0);
}

static void test_lines_found_by_name(void **state)
{
	struct current_fx *f = *state;
	struct platform_device *pdev = board(f);
	struct platform_device *bare = dmamap_platform_device_create(f->m, "bare", 0);
	struct device *dev = &pdev->dev;
	struct reset_control *first, *bus, *byidx;
	struct dmamap_reset_state st;

	first = reset_control_get_exclusive(dev, NULL);
	assert_false(IS_ERR_OR_NULL(first));
	assert_int_equal(reset_control_status(first), 1); /* the first: "core", in reset */
	assert_line(pdev, "core", true, 0, 1);
	byidx = devm_reset_control_get_shared_by_index(dev, 1);
	assert_false(IS_ERR_OR_NULL(byidx));
	assert_line(pdev, "bus", false, 0, 1);
	bus = reset_control_get_shared(dev, "bus");
	assert_ptr_not_equal(bus, byidx); /* a handle per get, one line */
	assert_line(pdev, "bus", false, 0, 2);

	assert_ptr_equal(reset_control_get_exclusive(dev, "nope"), ERR_PTR(-ENOENT));
	assert_ptr_equal(reset_control_get_shared(dev, "nope"), ERR_PTR(-ENOENT));
	assert_ptr_equal(devm_reset_control_get(dev, "nope"), ERR_PTR(-ENOENT));
	assert_ptr_equal(devm_reset_control_get_exclusive_by_index(dev, 2), ERR_PTR(-ENOENT));
	assert_null(reset_control_get_optional_exclusive(dev, "nope"));
	assert_null(reset_control_get_optional_shared(dev, "nope"));
	assert_null(devm_reset_control_get_optional_exclusive(dev, "nope"));
	assert_ptr_equal(reset_control_get_exclusive(&bare->dev, NULL), ERR_PTR(-ENOENT));
	assert_null(devm_reset_control_get_optional_exclusive_deasserted(&bare->dev, NULL));
	assert_null(devm_reset_control_get_optional_shared_deasserted(&bare->dev, NULL));
	assert_int_equal(dmamap_device_reset_state(&bare->dev, NULL, &st), -ENOENT);
	assert_int_equal(dmamap_device_reset_state(dev, "nope", &st), -ENOENT);

	/* a NULL control does nothing */
	assert_int_equal(reset_control_assert(NULL), 0);
	assert_int_equal(reset_control_deassert(NULL), 0);
	assert_int_equal(reset_control_reset(NULL), 0);
	assert_int_equal(reset_control_rearm(NULL), 0);
	assert_int_equal(reset_control_status(NULL), 0);
	assert_int_equal(reset_control_acquire(NULL), 0);
	reset_control_release(NULL);
	reset_control_put(NULL);
	reset_control_put(ERR_PTR(-ENOENT));
	assert_int_equal(f->c.reports, 0);

	reset_control_put(first);
	reset_control_put(bus);
	assert_line(pdev, "core", true, 0, 0);
	assert_line(pdev, "bus", false, 0, 1);
	dmamap_device_unbind(dev); /* the managed one */
	assert_line(pdev, "bus", false, 0, 0);

	/* a line without a name: found as the first, never by a name */
	assert_int_equal(dmamap_device_add_reset(&bare->dev, NULL, false), 0);
	assert_int_equal(dmamap_device_add_reset(&bare->dev, NULL, true), 0);
	first = reset_control_get_exclusive(&bare->dev, NULL);
	assert_int_equal(reset_control_status(first), 0);
	assert_ptr_equal(reset_control_get_exclusive(&bare->dev, ""), ERR_PTR(-ENOENT));
	reset_control_put(first);

	/* device_reset(): the first line pulsed */
	assert_int_equal(device_reset(dev), 0);
	assert_pulses(pdev, "core", 1);
	assert_line(pdev, "core", false, 0, 0);
	dmamap_platform_device_destroy(bare);
	bare = dmamap_platform_device_create(f->m, "bare2", 0);
	assert_int_equal(device_reset(&bare->dev), -ENOENT);
	assert_int_equal(device_reset_optional(&bare->dev), 0);
	dmamap_platform_device_destroy(bare);
	dmamap_platform_device_destroy(pdev);
	assert_int_equal(f->c.reports, 0);
}

static void test_board_refusals(void **state)
{
	struct current_fx *f = *state;
	struct platform_device *pdev = board(f);
	struct dmamap_reset_state st;
	struct device stray;
	struct capture pc;

	assert_int_equal(dmamap_device_add_reset(&pdev->dev, "core", false), -EINVAL);
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_BAD_INPUT], 1);
	assert_true(state_of(pdev, "core").asserted);
	assert_int_equal(dmamap_device_reset_state(&pdev->dev, "core", NULL), -EINVAL);
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_BAD_INPUT], 2);

	assert_int_equal(dmamap_platform_bind(pdev, &toy_driver), 0);
	assert_int_equal(dmamap_device_add_reset(&pdev->dev, "late", true), -EBUSY);
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_BAD_INPUT], 3);
	assert_int_equal(dmamap_device_reset_state(&pdev->dev, "late", &st), -ENOENT);
	dmamap_platform_unbind(pdev);

	/* a fault on the way: nothing added */
	assert_int_equal(dmamap_fault_inject(f->m, DMAMAP_FAULT_HOST_ALLOC, 1, 0), 0);
	assert_int_equal(dmamap_device_add_reset(&pdev->dev, "late", true), -ENOMEM);
	assert_int_equal(dmamap_fault_inject(f->m, DMAMAP_FAULT_HOST_ALLOC, 0, 0), 0);
	assert_int_equal(dmamap_device_reset_state(&pdev->dev, "late", &st), -ENOENT);

	/* flags no get has */
	assert_ptr_equal(dmamap_reset_control_get_at(&pdev->dev, "core", 0, DMAMAP_RESET_DEASSERTED, NULL, 0),
			 ERR_PTR(-EINVAL));
	assert_ptr_equal(dmamap_devm_reset_control_get_at(&pdev->dev, "core", 0,
							  DMAMAP_RESET_SHARED | DMAMAP_RESET_RELEASED, NULL, 0),
			 ERR_PTR(-EINVAL));
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_BAD_INPUT], 5);
	assert_line(pdev, "core", true, 0, 0);

	memset(&stray, 0, sizeof(stray));
	capture_start(&pc, NULL);
	assert_int_equal(dmamap_device_add_reset(&stray, "x", true), -EINVAL);
	assert_ptr_equal(reset_control_get_exclusive(&stray, NULL), ERR_PTR(-EINVAL));
	capture_stop(NULL);
	assert_int_equal(pc.by_kind[DMAMAP_REPORT_BAD_INPUT], 2);
	dmamap_platform_device_destroy(pdev);
	f->c.reports = 0;
}

/* ------------------------------------------------- exclusive vs shared */

static void test_exclusive_is_alone(void **state)
{
	struct current_fx *f = *state;
	struct platform_device *pdev = board(f);
	struct device *dev = &pdev->dev;
	struct reset_control *mine, *shared;
	struct dmamap_reset_state before;
	int line;

	mine = reset_control_get_exclusive(dev, "core");
	assert_int_equal(reset_control_deassert(mine), 0);
	before = state_of(pdev, "core");

	/* a second exclusive get, a shared one, a released one: busy, warned */
	line = __LINE__ + 1;
	assert_ptr_equal(reset_control_get_exclusive(dev, "core"), ERR_PTR(-EBUSY));
	assert_last(f, DMAMAP_REPORT_API_MISUSE, line, "held exclusively");
	line = __LINE__ + 1;
	assert_ptr_equal(devm_reset_control_get_shared(dev, "core"), ERR_PTR(-EBUSY));
	assert_last(f, DMAMAP_REPORT_API_MISUSE, line, "-EBUSY");
	line = __LINE__ + 1;
	assert_ptr_equal(devm_reset_control_get_exclusive_deasserted(dev, "core"), ERR_PTR(-EBUSY));
	assert_last(f, DMAMAP_REPORT_API_MISUSE, line, "-EBUSY");
	assert_ptr_equal(reset_control_get_optional_exclusive(dev, "core"), ERR_PTR(-EBUSY));
	assert_int_equal(f->c.reports, 4);
	assert_same(state_of(pdev, "core"), before);
	assert_int_equal(dmamap_devres_count(dev), 0);

	/* put, the line is free for shared users, and then no exclusive get takes it */
	reset_control_put(mine);
	shared = reset_control_get_shared(dev, "core");
	assert_false(IS_ERR_OR_NULL(shared));
	before = state_of(pdev, "core");
	line = __LINE__ + 1;
	assert_ptr_equal(devm_reset_control_get(dev, "core"), ERR_PTR(-EBUSY));
	assert_last(f, DMAMAP_REPORT_API_MISUSE, line, "held shared");
	line = __LINE__ + 1;
	assert_ptr_equal(reset_control_get_exclusive_released(dev, "core"), ERR_PTR(-EBUSY));
	assert_last(f, DMAMAP_REPORT_API_MISUSE, line, "held shared");
	assert_int_equal(f->c.reports, 6);
	assert_same(state_of(pdev, "core"), before);
	reset_control_put(shared);
	assert_line(pdev, "core", false, 0, 0);
	dmamap_platform_device_destroy(pdev);
	f->c.reports = 0;
}

static void test_shared_counts_deasserts(void **state)
{
	struct current_fx *f = *state;
	struct platform_device *pdev = board(f);
	struct device *dev = &pdev->dev;
	struct reset_control *a = reset_control_get_shared(dev, "core");
	struct reset_control *b = devm_reset_control_get_shared(dev, "core");
	struct dmamap_reset_state before;
	int line;

	/* out of reset at the first deassert, back in at the assert matching the last */
	assert_int_equal(reset_control_deassert(a), 0);
	assert_line(pdev, "core", false, 1, 2);
	assert_int_equal(reset_control_deassert(b), 0);
	assert_line(pdev, "core", false, 2, 2);
	assert_int_equal(reset_control_assert(a), 0);
	assert_line(pdev, "core", false, 1, 2);
	assert_int_equal(reset_control_assert(b), 0);
	assert_line(pdev, "core", true, 0, 2);
	assert_int_equal(f->c.reports, 0);

	/* an assert with no deassert to match: warned, -EINVAL, nothing changed */
	before = state_of(pdev, "core");
	line = __LINE__ + 1;
	assert_int_equal(reset_control_assert(a), -EINVAL);
	assert_last(f, DMAMAP_REPORT_API_MISUSE, line, "no deassert to match");
	assert_same(state_of(pdev, "core"), before);
	assert_int_equal(f->c.reports, 1);

	/* a handle put with its deasserts: they stay while another shared handle holds the line */
	assert_int_equal(reset_control_deassert(a), 0);
	reset_control_put(a);
	assert_line(pdev, "core", false, 1, 1);
	assert_int_equal(reset_control_assert(b), 0);
	assert_line(pdev, "core", true, 0, 1);
	/* ... and go with the last, the line left as it is, not warned (as the kernel) */
	assert_int_equal(reset_control_deassert(b), 0);
	dmamap_device_unbind(dev);
	assert_line(pdev, "core", false, 0, 0);
	assert_int_equal(f->c.reports, 1);
	dmamap_platform_device_destroy(pdev);
	f->c.reports = 0;
}

static void test_pulses(void **state)
{
	struct current_fx *f = *state;
	struct platform_device *pdev = board(f);
	struct device *dev = &pdev->dev;
	struct reset_control *ex = reset_control_get_exclusive(dev, "core");
	struct reset_control *a = reset_control_get_shared(dev, "bus"), *b = reset_control_get_shared(dev, "bus");
	struct dmamap_reset_state before;
	int line;

	/* exclusive: a pulse per call, the line out of reset after it */
	assert_int_equal(reset_control_reset(ex), 0);
	assert_int_equal(reset_control_reset(ex), 0);
	assert_pulses(pdev, "core", 2);
	assert_line(pdev, "core", false, 0, 1);
	assert_int_equal(reset_control_rearm(ex), 0);

	/* shared: one pulse for all, until rearmed */
	assert_int_equal(reset_control_reset(a), 0);
	assert_int_equal(reset_control_reset(b), 0);
	assert_pulses(pdev, "bus", 1);
	assert_int_equal(f->c.reports, 0);

	/* no assert nor deassert of a line pulsed and not rearmed */
	before = state_of(pdev, "bus");
	line = __LINE__ + 1;
	assert_int_equal(reset_control_deassert(a), -EINVAL);
	assert_last(f, DMAMAP_REPORT_API_MISUSE, line, "pulsed by reset_control_reset()");
	line = __LINE__ + 1;
	assert_int_equal(reset_control_assert(b), -EINVAL);
	assert_last(f, DMAMAP_REPORT_API_MISUSE, line, "pulsed by reset_control_reset()");
	assert_same(state_of(pdev, "bus"), before);

	assert_int_equal(reset_control_rearm(a), 0);
	line = __LINE__ + 1;
	assert_int_equal(reset_control_rearm(b), -EDOM);
	assert_last(f, DMAMAP_REPORT_API_MISUSE, line, "not pulsed");
	assert_int_equal(reset_control_reset(b), 0);
	assert_pulses(pdev, "bus", 2);
	assert_int_equal(reset_control_rearm(b), 0);
	assert_int_equal(f->c.reports, 3);

	/* nor a pulse or a rearm of a shared line deasserted */
	assert_int_equal(reset_control_deassert(a), 0);
	before = state_of(pdev, "bus");
	line = __LINE__ + 1;
	assert_int_equal(reset_control_reset(b), -EINVAL);
	assert_last(f, DMAMAP_REPORT_API_MISUSE, line, "is deasserted");
	line = __LINE__ + 1;
	assert_int_equal(reset_control_rearm(b), -EINVAL);
	assert_last(f, DMAMAP_REPORT_API_MISUSE, line, "is deasserted");
	assert_same(state_of(pdev, "bus"), before);
	assert_int_equal(f->c.reports, 5);

	/* the pulse not rearmed goes with the line's last shared handle */
	assert_int_equal(reset_control_assert(a), 0);
	assert_int_equal(reset_control_reset(a), 0);
	reset_control_put(a);
	reset_control_put(b);
	b = reset_control_get_shared(dev, "bus");
	assert_int_equal(reset_control_deassert(b), 0);
	assert_int_equal(f->c.reports, 5);
	reset_control_put(b);
	reset_control_put(ex);
	dmamap_platform_device_destroy(pdev);
	f->c.reports = 0;
}

static void test_calls_on_a_handle_put(void **state)
{
	struct current_fx *f = *state;
	struct platform_device *pdev = board(f);
	struct device *dev = &pdev->dev;
	struct reset_control *gone = reset_control_get_exclusive(dev, "core");
	struct reset_control *managed = devm_reset_control_get_shared(dev, "bus");
	struct dmamap_reset_state before;
	int line;

	reset_control_put(gone);
	before = state_of(pdev, "core");
	line = __LINE__ + 1;
	assert_int_equal(reset_control_deassert(gone), -EINVAL);
	assert_last(f, DMAMAP_REPORT_BAD_INPUT, line, "not a live reset control");
	line = __LINE__ + 1;
	assert_int_equal(reset_control_assert(gone), -EINVAL);
	assert_last(f, DMAMAP_REPORT_BAD_INPUT, line, "not a live reset control");
	assert_int_equal(reset_control_reset(gone), -EINVAL);
	assert_int_equal(reset_control_status(gone), -EINVAL);
	assert_int_equal(reset_control_acquire(gone), -EINVAL);
	reset_control_release(gone);
	line = __LINE__ + 1;
	reset_control_put(gone);
	assert_last(f, DMAMAP_REPORT_BAD_INPUT, line, "not a live reset control");
	assert_same(state_of(pdev, "core"), before);
	assert_int_equal(f->c.reports, 7);
	/* an error pointer: warned, -EINVAL */
	line = __LINE__ + 1;
	assert_int_equal(reset_control_deassert(ERR_PTR(-EBUSY)), -EINVAL);
	assert_last(f, DMAMAP_REPORT_BAD_INPUT, line, "an error pointer");

	/* a managed handle is not reset_control_put()'s: refused, it stays */
	line = __LINE__ + 1;
	reset_control_put(managed);
	assert_last(f, DMAMAP_REPORT_API_MISUSE, line, "the device puts it");
	assert_line(pdev, "bus", false, 0, 1);
	assert_int_equal(reset_control_deassert(managed), 0);
	assert_int_equal(f->c.reports, 9);
	dmamap_platform_device_destroy(pdev);
	f->c.reports = 0;
}

static void test_released_controls_take_turns(void **state)
{
	struct current_fx *f = *state;
	struct platform_device *pdev = board(f);
	struct device *dev = &pdev->dev;
	struct reset_control *a = reset_control_get_exclusive_released(dev, "core");
	struct reset_control *b = devm_reset_control_get_exclusive_released(dev, "core");
	struct dmamap_reset_state before;
	int line;

	assert_false(IS_ERR_OR_NULL(a));
	assert_false(IS_ERR_OR_NULL(b));
	assert_line(pdev, "core", true, 0, 2);
	/* not acquired: warned, -EPERM */
	before = state_of(pdev, "core");
	line = __LINE__ + 1;
	assert_int_equal(reset_control_deassert(a), -EPERM);
	assert_last(f, DMAMAP_REPORT_API_MISUSE, line, "not acquired");
	line = __LINE__ + 1;
	assert_int_equal(reset_control_reset(b), -EPERM);
	assert_last(f, DMAMAP_REPORT_API_MISUSE, line, "not acquired");
	assert_same(state_of(pdev, "core"), before);
	assert_int_equal(f->c.reports, 2);

	/* one at a time: the other waits, not warned */
	assert_int_equal(reset_control_acquire(a), 0);
	assert_int_equal(reset_control_acquire(a), 0);
	assert_int_equal(reset_control_acquire(b), -EBUSY);
	assert_int_equal(reset_control_deassert(a), 0);
	assert_line(pdev, "core", false, 0, 2);
	reset_control_release(a);
	assert_int_equal(reset_control_acquire(b), 0);
	assert_int_equal(reset_control_assert(b), 0);
	assert_line(pdev, "core", true, 0, 2);
	assert_int_equal(f->c.reports, 2);
	/* an exclusive get that would acquire: busy */
	assert_ptr_equal(reset_control_get_exclusive(dev, "core"), ERR_PTR(-EBUSY));
	assert_int_equal(f->c.reports, 3);
	reset_control_put(a);
	dmamap_device_unbind(dev);
	assert_line(pdev, "core", true, 0, 0);
	assert_int_equal(f->c.reports, 3);
	dmamap_platform_device_destroy(pdev);
	f->c.reports = 0;
}

/* ----------------------------------------------- what a driver leaves */

static int leak_ex_line, leak_shared_line;

static int forgetful_probe(struct platform_device *pdev)
{
	struct reset_control *core, *bus;

	leak_ex_line = __LINE__ + 1;
	core = reset_control_get_exclusive(&pdev->dev, "core");
	if (IS_ERR(core))
		return PTR_ERR(core);
	leak_shared_line = __LINE__ + 1;
	bus = reset_control_get_shared(&pdev->dev, "bus");
	if (IS_ERR(bus))
		return PTR_ERR(bus);
	reset_control_deassert(bus);
	return reset_control_deassert(core);
}

static int failing_probe(struct platform_device *pdev)
{
	int ret = forgetful_probe(pdev);

	return ret ? ret : -EIO; /* an error path that forgets the controls */
}

static struct platform_driver forgetful_driver = { .probe = forgetful_probe, .driver = { .name = "toy" } };
static struct platform_driver failing_driver = { .probe = failing_probe, .driver = { .name = "toy" } };

static void check_leaks_of_forgetful(struct current_fx *f, struct platform_device *pdev)
{
	bool ex = false, shared = false;

	assert_int_equal(f->c.reports, 2);
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_LEAK], 2);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(f->c.rec[i].kind, DMAMAP_REPORT_LEAK);
		assert_non_null(strstr(f->c.rec[i].message, "never put"));
		ex |= f->c.rec[i].line == leak_ex_line && strstr(f->c.rec[i].message, "reset core");
		shared |= f->c.rec[i].line == leak_shared_line && strstr(f->c.rec[i].message, "reset bus");
	}
	assert_true(ex);
	assert_true(shared);
	/* put, the shared count with them; the lines left deasserted, as the driver left them */
	assert_line(pdev, "core", false, 0, 0);
	assert_line(pdev, "bus", false, 0, 0);
}

static void test_control_left_at_unbind(void **state)
{
	struct current_fx *f = *state;
	struct platform_device *pdev = board(f);

	assert_int_equal(dmamap_platform_bind(pdev, &forgetful_driver), 0);
	assert_line(pdev, "bus", false, 1, 1);
	assert_int_equal(f->c.reports, 0);
	dmamap_platform_unbind(pdev);
	check_leaks_of_forgetful(f, pdev);
	/* the next driver starts clean */
	assert_int_equal(dmamap_platform_bind(pdev, &toy_driver), 0);
	dmamap_platform_device_destroy(pdev);
	assert_int_equal(f->c.reports, 2);
	f->c.reports = 0;
}

static void test_control_left_by_a_failed_probe(void **state)
{
	struct current_fx *f = *state;
	struct platform_device *pdev = board(f);

	assert_int_equal(dmamap_platform_bind(pdev, &failing_driver), -EIO);
	check_leaks_of_forgetful(f, pdev);
	assert_null(pdev->dev.driver);
	dmamap_platform_device_destroy(pdev);
	f->c.reports = 0;
}

/* A plain device's lines: a control left at its release is a leak too. */
static void test_plain_device_release(void **state)
{
	struct current_fx *f = *state;
	struct dmamap_reset_state st;
	struct device dev;
	struct reset_control *r;
	int line;

	memset(&dev, 0, sizeof(dev));
	assert_int_equal(dmamap_device_init(&dev, f->m, "plain"), 0);
	assert_int_equal(dmamap_device_add_reset(&dev, "srst", true), 0);
	line = __LINE__ + 1;
	r = reset_control_get_shared(&dev, "srst");
	assert_int_equal(reset_control_deassert(r), 0);
	dmamap_device_unbind(&dev); /* the driver core's unbind without a driver */
	assert_int_equal(f->c.reports, 1);
	assert_last(f, DMAMAP_REPORT_LEAK, line, "reset srst: control got here never put");
	assert_int_equal(dmamap_device_reset_state(&dev, "srst", &st), 0);
	assert_false(st.asserted);
	assert_int_equal(st.deassert_count, 0);
	assert_int_equal(st.handles, 0);

	line = __LINE__ + 1;
	r = reset_control_get_exclusive(&dev, "srst");
	assert_int_equal(reset_control_assert(r), 0);
	dmamap_device_release(&dev);
	assert_int_equal(f->c.reports, 2);
	assert_last(f, DMAMAP_REPORT_LEAK, line, "reset srst: control got here never put");
	f->c.reports = 0;
}

/* ------------------------------------------------------ managed forms */

static int deasserted_probe(struct platform_device *pdev)
{
	struct reset_control *core = devm_reset_control_get_exclusive_deasserted(&pdev->dev, "core");
	struct reset_control *bus = devm_reset_control_get_shared_deasserted(&pdev->dev, "bus");
	struct reset_control *phy = devm_reset_control_get_optional_exclusive_deasserted(&pdev->dev, "phy");

	if (IS_ERR(core) || IS_ERR(bus) || phy)
		return -ENODEV;
	platform_set_drvdata(pdev, bus);
	return 0;
}

static struct platform_driver deasserted_driver = { .probe = deasserted_probe, .driver = { .name = "toy" } };

/* A driver that asserts, in its remove, what the _deasserted get will assert again: one assert too many. */
static void double_assert_remove(struct platform_device *pdev)
{
	reset_control_assert(platform_get_drvdata(pdev));
}

static struct platform_driver double_assert_driver = {
	.probe = deasserted_probe,
	.remove = double_assert_remove,
	.driver = { .name = "toy" },
};

static void test_deasserted_forms_undone_at_unbind(void **state)
{
	struct current_fx *f = *state;
	struct platform_device *pdev = board(f);

	assert_int_equal(dmamap_platform_bind(pdev, &deasserted_driver), 0);
	assert_line(pdev, "core", false, 0, 1);
	assert_line(pdev, "bus", false, 1, 1);
	dmamap_platform_unbind(pdev);
	assert_line(pdev, "core", true, 0, 0);
	assert_line(pdev, "bus", true, 0, 0);
	assert_int_equal(f->c.reports, 0);

	/* the shared line asserted once by the driver, once at unbind: the second warned at the get's line */
	assert_int_equal(dmamap_platform_bind(pdev, &double_assert_driver), 0);
	dmamap_platform_unbind(pdev);
	assert_int_equal(f->c.reports, 1);
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_API_MISUSE], 1);
	assert_non_null(strstr(f->c.rec_last.message, "no deassert to match"));
	assert_non_null(strstr(f->c.rec_last.file, "test-reset.c"));
	assert_line(pdev, "bus", true, 0, 0);
	dmamap_platform_device_destroy(pdev);
	f->c.reports = 0;
}

static void test_array(void **state)
{
	struct current_fx *f = *state;
	struct platform_device *pdev = board(f);
	struct platform_device *bare = dmamap_platform_device_create(f->m, "bare", 0);
	struct device *dev = &pdev->dev;
	struct reset_control *all, *other;
	int line;

	assert_ptr_equal(devm_reset_control_array_get_exclusive(&bare->dev), ERR_PTR(-ENOENT));
	assert_null(devm_reset_control_array_get_optional_exclusive(&bare->dev));
	assert_null(devm_reset_control_array_get_optional_shared(&bare->dev));

	/* every line, one control */
	all = devm_reset_control_array_get_exclusive(dev);
	assert_false(IS_ERR_OR_NULL(all));
	assert_line(pdev, "core", true, 0, 1);
	assert_line(pdev, "bus", false, 0, 1);
	assert_int_equal(reset_control_assert(all), 0);
	assert_line(pdev, "bus", true, 0, 1);
	assert_int_equal(reset_control_deassert(all), 0);
	assert_line(pdev, "core", false, 0, 1);
	assert_line(pdev, "bus", false, 0, 1);
	assert_int_equal(reset_control_reset(all), 0);
	assert_pulses(pdev, "core", 1);
	assert_pulses(pdev, "bus", 1);
	assert_int_equal(f->c.reports, 0);
	line = __LINE__ + 1;
	assert_int_equal(reset_control_status(all), -EINVAL);
	assert_last(f, DMAMAP_REPORT_API_MISUSE, line, "array");
	/* its lines are held: no other exclusive get */
	assert_ptr_equal(reset_control_get_exclusive(dev, "bus"), ERR_PTR(-EBUSY));
	assert_int_equal(f->c.reports, 2);
	dmamap_device_unbind(dev);
	assert_line(pdev, "core", false, 0, 0);
	assert_line(pdev, "bus", false, 0, 0);
	assert_int_equal(f->c.reports, 2);

	/* a line held: the array is refused, nothing kept */
	other = reset_control_get_exclusive(dev, "bus");
	line = __LINE__ + 1;
	assert_ptr_equal(devm_reset_control_array_get_exclusive(dev), ERR_PTR(-EBUSY));
	assert_last(f, DMAMAP_REPORT_API_MISUSE, line, "reset bus is held exclusively");
	assert_line(pdev, "core", false, 0, 0);
	assert_line(pdev, "bus", false, 0, 1);
	assert_int_equal(dmamap_devres_count(dev), 0);
	reset_control_put(other);

	/* shared: a member's refusal undoes what the others did */
	all = devm_reset_control_array_get_shared(dev);
	other = reset_control_get_shared(dev, "bus");
	assert_int_equal(reset_control_deassert(all), 0);
	assert_int_equal(reset_control_assert(other), 0); /* takes the array's deassert of "bus" */
	assert_line(pdev, "core", false, 1, 1);
	assert_line(pdev, "bus", true, 0, 2);
	line = __LINE__ + 1;
	assert_int_equal(reset_control_assert(all), -EINVAL);
	assert_last(f, DMAMAP_REPORT_API_MISUSE, line, "reset bus: a shared assert with no deassert");
	assert_line(pdev, "core", false, 1, 1);
	assert_line(pdev, "bus", true, 0, 2);
	reset_control_put(other);
	dmamap_device_unbind(dev);
	assert_int_equal(f->c.reports, 4);
	dmamap_platform_device_destroy(bare);
	dmamap_platform_device_destroy(pdev);
	f->c.reports = 0;
}

static void test_array_released(void **state)
{
	struct current_fx *f = *state;
	struct platform_device *pdev = board(f);
	struct device *dev = &pdev->dev;
	struct reset_control *all = dmamap_devm_reset_control_array_get_at(dev, DMAMAP_RESET_RELEASED, NULL, 0);
	struct reset_control *bus = reset_control_get_exclusive_released(dev, "bus");

	assert_false(IS_ERR_OR_NULL(all));
	assert_int_equal(reset_control_acquire(bus), 0);
	assert_int_equal(reset_control_acquire(all), -EBUSY); /* all or none */
	assert_int_equal(reset_control_deassert(all), -EPERM);
	assert_line(pdev, "core", true, 0, 1);
	reset_control_release(bus);
	assert_int_equal(reset_control_acquire(all), 0);
	assert_int_equal(reset_control_deassert(all), 0);
	assert_line(pdev, "core", false, 0, 1);
	reset_control_release(all);
	assert_int_equal(reset_control_acquire(bus), 0);
	reset_control_put(bus);
	dmamap_device_unbind(dev);
	assert_int_equal(f->c.reports, 1);
	dmamap_platform_device_destroy(pdev);
	f->c.reports = 0;
}

/* Each host allocation of the gets failing in turn: an error, and nothing left held or deasserted. */
static void test_gets_under_faults(void **state)
{
	struct current_fx *f = *state;
	struct platform_device *pdev = board(f);
	struct device *dev = &pdev->dev;
	struct reset_control *r;
	unsigned long nth;

	assert_int_equal(dmamap_device_add_reset(dev, "phy", true), 0);
	for (nth = 1;; nth++) {
		unsigned long held = dmamap_devres_count(dev);

		assert_int_equal(dmamap_fault_inject(f->m, DMAMAP_FAULT_HOST_ALLOC, nth, 0), 0);
		r = devm_reset_control_array_get_exclusive(dev);
		assert_int_equal(dmamap_fault_inject(f->m, DMAMAP_FAULT_HOST_ALLOC, 0, 0), 0);
		if (!IS_ERR(r))
			break;
		assert_ptr_equal(r, ERR_PTR(-ENOMEM));
		assert_int_equal(dmamap_devres_count(dev), held);
		assert_line(pdev, "core", true, 0, 0);
		assert_line(pdev, "bus", false, 0, 0);
		assert_line(pdev, "phy", true, 0, 0);
	}
	assert_true(nth > 5); /* the array, a handle per line, the record */
	assert_line(pdev, "phy", true, 0, 1);
	dmamap_device_unbind(dev);

	for (nth = 1;; nth++) {
		assert_int_equal(dmamap_fault_inject(f->m, DMAMAP_FAULT_HOST_ALLOC, nth, 0), 0);
		r = devm_reset_control_get_shared_deasserted(dev, "core");
		assert_int_equal(dmamap_fault_inject(f->m, DMAMAP_FAULT_HOST_ALLOC, 0, 0), 0);
		if (!IS_ERR(r))
			break;
		assert_ptr_equal(r, ERR_PTR(-ENOMEM));
		assert_int_equal(dmamap_devres_count(dev), 0);
		assert_line(pdev, "core", true, 0, 0);
	}
	assert_true(nth > 2); /* the handle, the record */
	assert_line(pdev, "core", false, 1, 1);
	dmamap_device_unbind(dev);
	assert_line(pdev, "core", true, 0, 0);
	assert_int_equal(f->c.reports, 0);
	dmamap_platform_device_destroy(pdev);
}

static void test_gets_may_sleep_asserts_do_not(void **state)
{
	struct current_fx *f = *state;
	struct platform_device *pdev = board(f);
	struct reset_control *core, *bus = reset_control_get_exclusive_released(&pdev->dev, "bus");
	DEFINE_SPINLOCK(lock);
	int line;

	spin_lock(&lock);
	line = __LINE__ + 1;
	core = reset_control_get_exclusive(&pdev->dev, "core");
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_SLEEP_IN_ATOMIC], 1);
	assert_int_equal(f->c.rec_last.line, line);
	assert_int_equal(reset_control_deassert(core), 0);
	assert_int_equal(reset_control_assert(core), 0);
	assert_int_equal(reset_control_reset(core), 0);
	assert_int_equal(reset_control_status(core), 0);
	reset_control_release(bus);
	assert_int_equal(f->c.reports, 1);
	line = __LINE__ + 1;
	assert_int_equal(reset_control_acquire(bus), 0);
	assert_int_equal(f->c.rec_last.line, line);
	line = __LINE__ + 1;
	reset_control_put(core);
	assert_int_equal(f->c.rec_last.line, line);
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_SLEEP_IN_ATOMIC], 3);
	spin_unlock(&lock);
	reset_control_put(bus);
	assert_int_equal(f->c.reports, 3);
	dmamap_platform_device_destroy(pdev);
	f->c.reports = 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_driver_holds_and_releases_its_reset, current_fx_setup,
						current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_lines_found_by_name, current_fx_setup, current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_board_refusals, current_fx_setup, current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_exclusive_is_alone, current_fx_setup, current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_shared_counts_deasserts, current_fx_setup, current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_pulses, current_fx_setup, current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_calls_on_a_handle_put, current_fx_setup, current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_released_controls_take_turns, current_fx_setup,
						current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_control_left_at_unbind, current_fx_setup, current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_control_left_by_a_failed_probe, current_fx_setup,
						current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_plain_device_release, current_fx_setup, current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_deasserted_forms_undone_at_unbind, current_fx_setup,
						current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_array, current_fx_setup, current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_array_released, current_fx_setup, current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_gets_under_faults, current_fx_setup, current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_gets_may_sleep_asserts_do_not, current_fx_setup,
						current_fx_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
