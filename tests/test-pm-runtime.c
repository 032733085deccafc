/* SPDX-License-Identifier: MIT */
/*
 * Runtime PM of <linux/pm_runtime.h>, as a platform driver of Linux 6.x uses
 * it: a toy driver whose runtime PM callbacks log their calls. The usage
 * count, the status and the disable depth through the calls; the callbacks
 * called in the documented order with the documented results (a failed
 * resume: get_sync keeps the count, resume_and_get gives it back; a fatal
 * error blocks until the status is set); the driver core's idle check after
 * probe and its get/put around remove; autosuspend, armed and run at the
 * next call once due; devm_pm_runtime_enable() undone at unbind; the
 * reports of misuse (underflow, unbalanced enable, a wait for its own
 * callback, sleeping in atomic context) each leaving things as they were,
 * and of what a driver leaves at unbind, at its lines; threads.
 */
#include <linux/delay.h>
#include <linux/device.h>
#include <linux/irqflags.h>
#include <linux/platform_device.h>
#include <linux/pm.h>
#include <linux/pm_runtime.h>
#include <linux/spinlock.h>

#include <pthread.h>
#include <unistd.h>

#include "common.h"

/* What the toy driver does, and what it saw. */
static struct {
	char order[256];        /* a letter a call: p probe, x remove, r resume, s suspend, i idle (runtime_*) */
	int resume_ret, suspend_ret, idle_ret;
	bool irqs_off;          /* whether the last callback ran with interrupts off */
	int (*probe)(struct device *dev);
	void (*remove)(struct device *dev);
	void (*in_resume)(struct device *dev);  /* called from runtime_resume */
	void (*in_suspend)(struct device *dev); /* called from runtime_suspend */
	int in_ret;             /* what the call made from a callback returned */
} toy;

static pthread_mutex_t toy_lock = PTHREAD_MUTEX_INITIALIZER;

static void note(char c)
{
	size_t n;

	pthread_mutex_lock(&toy_lock);
	n = strlen(toy.order);
	if (n + 1 < sizeof(toy.order)) {
		toy.order[n] = c;
		toy.order[n + 1] = '\0';
	}
	pthread_mutex_unlock(&toy_lock);
}

static int toy_runtime_suspend(struct device *dev)
{
	note('s');
	toy.irqs_off = irqs_disabled();
	if (toy.in_suspend)
		toy.in_suspend(dev);
	return toy.suspend_ret;
}

static int toy_runtime_resume(struct device *dev)
{
	note('r');
	toy.irqs_off = irqs_disabled();
	/* as runtime_pm.rst's example: the callback calls back into runtime PM, which holds no lock of its own */
	pm_runtime_mark_last_busy(dev);
	if (toy.in_resume)
		toy.in_resume(dev);
	return toy.resume_ret;
}

static int toy_runtime_idle(struct device *dev)
{
	(void)dev;
	note('i');
	return toy.idle_ret;
}

static DEFINE_RUNTIME_DEV_PM_OPS(toy_pm_ops, toy_runtime_suspend, toy_runtime_resume, toy_runtime_idle);

static int toy_probe(struct platform_device *pdev)
{
	note('p');
	return toy.probe ? toy.probe(&pdev->dev) : 0;
}

static void toy_remove(struct platform_device *pdev)
{
	note('x');
	if (toy.remove)
		toy.remove(&pdev->dev);
}

static struct platform_driver toy_driver = {
	.probe = toy_probe,
	.remove = toy_remove,
	.driver = {
		.name = "toy-pm",
		.pm = pm_ptr(&toy_pm_ops),
	},
};

/* The probe runtime_pm.rst asks for: the device is on, runtime PM managed. */
static int probe_devm(struct device *dev)
{
	pm_runtime_set_active(dev);
	return devm_pm_runtime_enable(dev);
}

/* The same by hand, undone in remove. */
static int probe_plain(struct device *dev)
{
	pm_runtime_set_active(dev);
	pm_runtime_enable(dev);
	return 0;
}

static void remove_plain(struct device *dev)
{
	pm_runtime_disable(dev);
}

static int setup(void **state)
{
	memset(&toy, 0, sizeof(toy));
	return current_fx_setup(state);
}

static struct dmamap_pm_runtime_info info_of(struct device *dev)
{
	struct dmamap_pm_runtime_info info;

	assert_int_equal(dmamap_pm_runtime_info(dev, &info), 0);
	return info;
}

/* A platform device of @f's machine with the toy driver bound (its probe as toy.probe says). */
static struct platform_device *bound(struct current_fx *f)
{
	struct platform_device *pdev = dmamap_platform_device_create(f->m, "toy-pm", 0);

	assert_false(IS_ERR(pdev));
	assert_int_equal(dmamap_platform_bind(pdev, &toy_driver), 0);
	return pdev;
}

/* The captured report of @kind at @line of this file, or NULL. */
static const struct captured *report_at(const struct capture *c, enum dmamap_report_kind kind, int line)
{
	unsigned long n = c->reports < CAPTURE_KEEP ? c->reports : CAPTURE_KEEP;

	for (unsigned long i = 0; i < n; i++)
		if (c->rec[i].kind == kind && c->rec[i].line == line && strstr(c->rec[i].file, "test-pm-runtime.c"))
			return &c->rec[i];
	return NULL;
}

static void clear_order(void)
{
	toy.order[0] = '\0';
}

/* A device starts disabled (depth 1), suspended, count 0: the calls that need runtime PM enabled refuse. */
static void test_starts_disabled_and_suspended(void **state)
{
	struct current_fx *f = *state;
	struct platform_device *pdev = dmamap_platform_device_create(f->m, "toy-pm", 0);
	struct device *dev = &pdev->dev;
	struct dmamap_pm_runtime_info info = info_of(dev);

	assert_int_equal(info.usage_count, 0);
	assert_int_equal(info.disable_depth, 1);
	assert_int_equal(info.status, RPM_SUSPENDED);
	assert_true(info.runtime_auto);
	assert_false(pm_runtime_enabled(dev));
	assert_true(pm_runtime_active(dev)); /* disabled counts as active, as the kernel's */
	assert_false(pm_runtime_suspended(dev));
	assert_true(pm_runtime_status_suspended(dev));

	dev->driver = &toy_driver.driver; /* its callbacks, were they called */
	assert_int_equal(pm_runtime_get_sync(dev), -EACCES);
	assert_int_equal(info_of(dev).usage_count, 1); /* kept, as the kernel's */
	assert_int_equal(pm_runtime_resume(dev), -EACCES);
	assert_int_equal(pm_runtime_put(dev), -EACCES);
	assert_int_equal(pm_runtime_suspend(dev), -EACCES);
	assert_int_equal(pm_runtime_idle(dev), -EACCES);
	assert_int_equal(pm_runtime_get_if_in_use(dev), -EINVAL);
	assert_int_equal(pm_runtime_get_if_active(dev), -EINVAL);
	assert_int_equal(pm_runtime_resume_and_get(dev), -EACCES);
	/* active while disabled, but never enabled: the status it had when disabled is not known */
	assert_int_equal(pm_runtime_set_active(dev), 0);
	assert_int_equal(pm_runtime_resume(dev), -EACCES);
	assert_int_equal(pm_runtime_set_suspended(dev), 0);
	info = info_of(dev);
	assert_int_equal(info.usage_count, 0);
	assert_int_equal(info.status, RPM_SUSPENDED);
	assert_string_equal(toy.order, "");
	dev->driver = NULL;
	assert_int_equal(f->c.reports, 0);
	dmamap_platform_device_destroy(pdev);
}

/*
 * The life of a well-behaved driver: the core's idle check after probe
 * suspends the idle device; get_sync resumes it, put suspends it again at
 * once; at unbind the core resumes it, idle-checks it, then remove, then the
 * managed disable. Nothing reported.
 */
static void test_driver_life(void **state)
{
	struct current_fx *f = *state;
	struct platform_device *pdev;
	struct device *dev;
	struct dmamap_pm_runtime_info info;

	toy.probe = probe_devm;
	pdev = bound(f);
	dev = &pdev->dev;
	assert_string_equal(toy.order, "pis");
	assert_true(pm_runtime_enabled(dev));
	assert_true(pm_runtime_suspended(dev));

	clear_order();
	assert_int_equal(pm_runtime_get_sync(dev), 0);
	assert_string_equal(toy.order, "r");
	assert_true(pm_runtime_active(dev));
	assert_int_equal(pm_runtime_get_sync(dev), 1); /* active already */
	info = info_of(dev);
	assert_int_equal(info.usage_count, 2);
	assert_int_equal(info.counts_taken, 2);
	assert_int_equal(pm_runtime_put(dev), 0);
	assert_string_equal(toy.order, "r");
	assert_true(pm_runtime_active(dev));
	assert_int_equal(pm_runtime_put(dev), 0); /* the queued idle check, done at once */
	assert_string_equal(toy.order, "ris");
	assert_true(pm_runtime_suspended(dev));
	assert_int_equal(info_of(dev).usage_count, 0);

	/* pm_runtime_resume() of an idle device: the idle check the kernel queues after it suspends it again */
	clear_order();
	assert_int_equal(pm_runtime_resume(dev), 0);
	assert_string_equal(toy.order, "ris");
	assert_true(pm_runtime_suspended(dev));
	assert_int_equal(pm_runtime_suspend(dev), 1); /* suspended already */

	/* get_noresume, then a plain resume; put_sync: the idle check now */
	clear_order();
	pm_runtime_get_noresume(dev);
	assert_true(pm_runtime_suspended(dev));
	assert_int_equal(pm_runtime_resume(dev), 0);
	assert_string_equal(toy.order, "r");
	assert_int_equal(pm_runtime_idle(dev), -EAGAIN); /* in use */
	assert_int_equal(pm_runtime_put_sync(dev), 0);
	assert_string_equal(toy.order, "ris");

	clear_order();
	dmamap_platform_unbind(pdev);
	/* the core's get_sync and put_sync, then remove, then devm's dont_use_autosuspend and disable */
	assert_string_equal(toy.order, "risx");
	info = info_of(dev);
	assert_int_equal(info.disable_depth, 1);
	assert_int_equal(info.usage_count, 0);
	assert_int_equal(info.counts_taken, 0);
	assert_int_equal(info.status, RPM_SUSPENDED);
	assert_int_equal(f->c.reports, 0);
	dmamap_platform_device_destroy(pdev);
}

/* A driver that never makes a runtime PM call: the core makes no state and calls nothing. */
static void test_core_leaves_a_device_without_runtime_pm_alone(void **state)
{
	struct current_fx *f = *state;
	struct platform_device *pdev = bound(f);

	assert_null(pdev->dev.dmamap.pm);
	dmamap_platform_unbind(pdev);
	assert_null(pdev->dev.dmamap.pm);
	assert_string_equal(toy.order, "px");
	assert_int_equal(f->c.reports, 0);
	dmamap_platform_device_destroy(pdev);
}

/* A resume that fails: get_sync returns the error and keeps the count; resume_and_get gives it back. */
static void test_resume_error(void **state)
{
	struct current_fx *f = *state;
	struct platform_device *pdev;
	struct device *dev;
	struct dmamap_pm_runtime_info info;

	toy.probe = probe_devm;
	pdev = bound(f);
	dev = &pdev->dev;
	clear_order();

	toy.resume_ret = -EIO;
	assert_int_equal(pm_runtime_get_sync(dev), -EIO);
	info = info_of(dev);
	assert_int_equal(info.usage_count, 1);
	assert_int_equal(info.status, RPM_SUSPENDED);
	assert_int_equal(info.runtime_error, -EIO);
	/* a fatal error: no callback until the status is set */
	assert_int_equal(pm_runtime_get_sync(dev), -EINVAL);
	assert_int_equal(pm_runtime_resume_and_get(dev), -EINVAL);
	assert_string_equal(toy.order, "r");
	assert_int_equal(info_of(dev).usage_count, 2);
	pm_runtime_put_noidle(dev);
	pm_runtime_put_noidle(dev);

	/* the status set clears it, runtime PM stays enabled */
	assert_int_equal(pm_runtime_set_suspended(dev), 0);
	assert_true(pm_runtime_enabled(dev));
	assert_int_equal(info_of(dev).runtime_error, 0);
	assert_int_equal(pm_runtime_resume_and_get(dev), -EIO);
	info = info_of(dev);
	assert_int_equal(info.usage_count, 0);
	assert_int_equal(info.counts_taken, 0);
	assert_int_equal(info.status, RPM_SUSPENDED);
	assert_string_equal(toy.order, "rr");

	/* -EBUSY is no fatal error: the next try runs the callback */
	assert_int_equal(pm_runtime_set_active(dev), 0);
	assert_int_equal(pm_runtime_set_suspended(dev), -EAGAIN); /* enabled and working: refused */
	assert_true(pm_runtime_active(dev));
	clear_order();
	toy.resume_ret = 0;
	assert_int_equal(pm_runtime_suspend(dev), 0);
	toy.resume_ret = -EBUSY;
	assert_int_equal(pm_runtime_resume_and_get(dev), -EBUSY);
	assert_int_equal(info_of(dev).runtime_error, 0);
	toy.resume_ret = 0;
	assert_int_equal(pm_runtime_resume_and_get(dev), 0);
	assert_int_equal(info_of(dev).usage_count, 1);
	assert_string_equal(toy.order, "srr");
	assert_int_equal(pm_runtime_put(dev), 0);
	assert_string_equal(toy.order, "srris");
	assert_int_equal(f->c.reports, 0);
	dmamap_platform_device_destroy(pdev);
	assert_int_equal(f->c.reports, 0);
}

/* A suspend that fails: -EBUSY leaves it active and working, another error blocks it until the status is set. */
static void test_suspend_error(void **state)
{
	struct current_fx *f = *state;
	struct platform_device *pdev;
	struct device *dev;

	toy.probe = probe_devm;
	toy.suspend_ret = -EBUSY;
	pdev = bound(f);
	dev = &pdev->dev;
	assert_string_equal(toy.order, "pis");
	assert_true(pm_runtime_active(dev));
	assert_int_equal(pm_runtime_suspend(dev), -EBUSY);
	assert_int_equal(info_of(dev).runtime_error, 0);
	toy.suspend_ret = -EIO;
	assert_int_equal(pm_runtime_suspend(dev), -EIO);
	assert_int_equal(info_of(dev).runtime_error, -EIO);
	assert_int_equal(info_of(dev).status, RPM_ACTIVE);
	clear_order();
	assert_int_equal(pm_runtime_suspend(dev), -EINVAL);
	assert_int_equal(pm_runtime_idle(dev), -EINVAL);
	assert_int_equal(pm_runtime_resume(dev), -EINVAL);
	assert_string_equal(toy.order, "");
	toy.suspend_ret = 0;
	assert_int_equal(pm_runtime_set_active(dev), 0);
	assert_int_equal(pm_runtime_suspend(dev), 0);
	assert_string_equal(toy.order, "s");
	assert_true(pm_runtime_suspended(dev));
	assert_int_equal(f->c.reports, 0);
	dmamap_platform_device_destroy(pdev);
}

/* runtime_idle says whether to suspend: non-zero stops it (and pm_runtime_idle() returns it). */
static void test_idle_callback_decides(void **state)
{
	struct current_fx *f = *state;
	struct platform_device *pdev;
	struct device *dev;

	toy.probe = probe_devm;
	toy.idle_ret = -EBUSY;
	pdev = bound(f);
	dev = &pdev->dev;
	assert_string_equal(toy.order, "pi");
	assert_true(pm_runtime_active(dev));
	clear_order();
	assert_int_equal(pm_runtime_idle(dev), -EBUSY);
	assert_int_equal(pm_request_idle(dev), 0); /* the queued form: accepted */
	pm_runtime_get_noresume(dev);
	assert_int_equal(pm_runtime_put(dev), 0);
	assert_string_equal(toy.order, "iii");
	assert_true(pm_runtime_active(dev));
	toy.idle_ret = 0;
	assert_int_equal(pm_runtime_idle(dev), 0);
	assert_string_equal(toy.order, "iiiis");
	assert_true(pm_runtime_suspended(dev));
	assert_int_equal(pm_runtime_idle(dev), -EAGAIN); /* not active */
	assert_int_equal(f->c.reports, 0);
	dmamap_platform_device_destroy(pdev);
}

/* Each put of a count of 0 is reported at its line, returns -EINVAL and changes nothing. */
static void test_usage_count_underflow(void **state)
{
	struct current_fx *f = *state;
	struct platform_device *pdev;
	struct device *dev;
	struct dmamap_pm_runtime_info before, after;
	int lines[6], ret[6];

	toy.probe = probe_devm;
	pdev = bound(f);
	dev = &pdev->dev;
	pm_runtime_use_autosuspend(dev); /* a delay of 0: the autosuspend forms suspend at once */
	assert_int_equal(pm_runtime_get_sync(dev), 0);
	pm_runtime_put_noidle(dev);
	clear_order();
	before = info_of(dev);
	assert_int_equal(before.status, RPM_ACTIVE);
	capture_start(&f->c, f->m);

	lines[0] = __LINE__ + 1;
	ret[0] = pm_runtime_put(dev);
	lines[1] = __LINE__ + 1;
	ret[1] = pm_runtime_put_sync(dev);
	lines[2] = __LINE__ + 1;
	ret[2] = pm_runtime_put_autosuspend(dev);
	lines[3] = __LINE__ + 1;
	ret[3] = pm_runtime_put_sync_autosuspend(dev);
	lines[4] = __LINE__ + 1;
	ret[4] = pm_runtime_put_sync_suspend(dev);
	lines[5] = __LINE__ + 1;
	pm_runtime_put_noidle(dev);
	ret[5] = -EINVAL;

	assert_int_equal(f->c.reports, 6);
	for (int i = 0; i < 6; i++) {
		const struct captured *r = report_at(&f->c, DMAMAP_REPORT_API_MISUSE, lines[i]);

		assert_int_equal(ret[i], -EINVAL);
		assert_non_null(r);
		assert_non_null(strstr(r->message, "Runtime PM usage count underflow!"));
	}
	assert_non_null(strstr(f->c.rec[2].message, "pm_runtime_put_autosuspend"));
	after = info_of(dev);
	assert_int_equal(after.usage_count, 0);
	assert_int_equal(after.status, RPM_ACTIVE);
	assert_true(after.last_busy == before.last_busy);
	assert_string_equal(toy.order, "");
	/* pm_runtime_allow() with no pm_runtime_forbid() before is no underflow: nothing to give back */
	pm_runtime_allow(dev);
	assert_int_equal(f->c.reports, 6);
	dmamap_platform_device_destroy(pdev);
}

/* An enable of an enabled device is reported and does nothing: one disable then disables it. */
static void test_unbalanced_enable(void **state)
{
	struct current_fx *f = *state;
	struct platform_device *pdev;
	struct device *dev;
	const struct captured *r;
	int line;

	toy.probe = probe_plain;
	toy.remove = remove_plain;
	pdev = bound(f);
	dev = &pdev->dev;
	line = __LINE__ + 1;
	pm_runtime_enable(dev);
	assert_int_equal(f->c.reports, 1);
	r = report_at(&f->c, DMAMAP_REPORT_API_MISUSE, line);
	assert_non_null(r);
	assert_non_null(strstr(r->message, "Unbalanced pm_runtime_enable!"));
	assert_non_null(strstr(r->message, "by pm_runtime_enable() at "));
	assert_int_equal(info_of(dev).disable_depth, 0);
	pm_runtime_disable(dev);
	assert_false(pm_runtime_enabled(dev));
	pm_runtime_enable(dev);
	assert_true(pm_runtime_enabled(dev));
	dmamap_platform_unbind(pdev);
	assert_int_equal(f->c.reports, 1);
	dmamap_platform_device_destroy(pdev);
}

/*
 * Autosuspend: the put arms it while the delay has not passed; status reads
 * never run it; once due, the next call (or dmamap_pm_runtime_run_timer())
 * suspends the device, unless it was marked busy meanwhile (armed again).
 */
static void test_autosuspend(void **state)
{
	struct current_fx *f = *state;
	struct platform_device *pdev;
	struct device *dev;
	struct dmamap_pm_runtime_info info;

	toy.probe = probe_devm;
	pdev = bound(f);
	dev = &pdev->dev;
	pm_runtime_set_autosuspend_delay(dev, 60000);
	pm_runtime_use_autosuspend(dev);
	assert_int_equal(pm_runtime_get_sync(dev), 0);
	clear_order();
	assert_int_equal(pm_runtime_put_autosuspend(dev), 0);
	info = info_of(dev);
	assert_true(info.autosuspend_due > info.last_busy);
	assert_true(pm_runtime_autosuspend_expiration(dev) > 0);
	assert_int_equal(dmamap_pm_runtime_run_timer(dev), 0); /* not due */
	assert_true(pm_runtime_active(dev));
	assert_string_equal(toy.order, "");

	/* a shorter delay: the idle check it makes arms the autosuspend sooner */
	pm_runtime_set_autosuspend_delay(dev, 300);
	assert_string_equal(toy.order, "i");
	assert_true(pm_runtime_active(dev));
	msleep(400);
	assert_int_equal(pm_runtime_autosuspend_expiration(dev), 0);
	/* status reads run nothing */
	assert_false(pm_runtime_suspended(dev));
	assert_false(pm_runtime_status_suspended(dev));
	assert_true(info_of(dev).autosuspend_due != 0);
	assert_int_equal(dmamap_pm_runtime_run_timer(dev), 1);
	assert_string_equal(toy.order, "is");
	assert_true(pm_runtime_suspended(dev));
	assert_int_equal(info_of(dev).autosuspend_due, 0);

	/* marked busy meanwhile: the timer finds the delay not passed and arms itself again */
	clear_order();
	assert_int_equal(pm_runtime_get_sync(dev), 0);
	assert_int_equal(pm_runtime_put_autosuspend(dev), 0);
	msleep(200);
	pm_runtime_mark_last_busy(dev);
	msleep(200);
	assert_int_equal(dmamap_pm_runtime_run_timer(dev), 1);
	assert_true(pm_runtime_active(dev));
	assert_true(info_of(dev).autosuspend_due != 0);
	msleep(300);
	/* the next call of the driver's runs it first: then the device is suspended, not in use */
	assert_int_equal(pm_runtime_get_if_in_use(dev), 0);
	assert_string_equal(toy.order, "rs");
	assert_true(pm_runtime_suspended(dev));

	/* a resume leaves it armed; a disable drops it */
	assert_int_equal(pm_runtime_get_sync(dev), 0);
	assert_int_equal(pm_runtime_put_autosuspend(dev), 0);
	assert_true(info_of(dev).autosuspend_due != 0);
	pm_runtime_disable(dev);
	assert_int_equal(info_of(dev).autosuspend_due, 0);
	pm_runtime_enable(dev);

	/* a negative delay forbids runtime suspend: it holds a count */
	clear_order();
	pm_runtime_set_autosuspend_delay(dev, -1);
	assert_int_equal(info_of(dev).usage_count, 1);
	assert_int_equal(info_of(dev).counts_taken, 0);
	assert_int_equal(pm_runtime_suspend(dev), -EAGAIN);
	assert_true(pm_runtime_active(dev));
	pm_runtime_set_autosuspend_delay(dev, 0);
	assert_int_equal(info_of(dev).usage_count, 0);
	assert_true(pm_runtime_suspended(dev));
	assert_string_equal(toy.order, "is");
	dmamap_platform_unbind(pdev);
	assert_false(info_of(dev).use_autosuspend);
	assert_int_equal(f->c.reports, 0);
	dmamap_platform_device_destroy(pdev);
}

/* Autosuspend set up before runtime PM is enabled, the device marked busy at the end, as runtime_pm.rst says. */
static int probe_autosuspend(struct device *dev)
{
	int ret;

	pm_runtime_set_autosuspend_delay(dev, 60000);
	pm_runtime_use_autosuspend(dev);
	ret = probe_devm(dev);
	pm_runtime_mark_last_busy(dev);
	return ret;
}

/*
 * devm_pm_runtime_enable() is undone at unbind, after remove: autosuspend
 * turned off (which suspends the idle device) and runtime PM disabled.
 */
static void test_devm_enable_undone_at_unbind(void **state)
{
	struct current_fx *f = *state;
	struct platform_device *pdev;
	struct device *dev;
	struct dmamap_pm_runtime_info info;

	toy.probe = probe_autosuspend;
	pdev = bound(f);
	dev = &pdev->dev;
	/* the core's idle check after probe: the delay has not passed, so an autosuspend is armed */
	assert_string_equal(toy.order, "pi");
	assert_true(pm_runtime_active(dev));
	assert_int_equal(dmamap_devres_count(dev), 1);
	clear_order();
	dmamap_platform_unbind(pdev);
	/* the core's put_sync arms it again; remove; then the action: autosuspend off suspends it, then disable */
	assert_string_equal(toy.order, "ixis");
	info = info_of(dev);
	assert_int_equal(info.disable_depth, 1);
	assert_false(info.use_autosuspend);
	assert_int_equal(info.status, RPM_SUSPENDED);
	assert_int_equal(info.autosuspend_due, 0);
	assert_int_equal(dmamap_devres_count(dev), 0);
	assert_int_equal(f->c.reports, 0);

	/* bound again: a fresh start, no "Unbalanced pm_runtime_enable!" */
	clear_order();
	toy.probe = probe_devm;
	assert_int_equal(dmamap_platform_bind(pdev, &toy_driver), 0);
	assert_string_equal(toy.order, "pis");
	assert_int_equal(f->c.reports, 0);
	dmamap_platform_device_destroy(pdev);
}

static int leaky_enable_line, leaky_get_line, leaky_auto_line;

/* A driver that enables by hand, takes a count and turns autosuspend on, and whose remove undoes none of it. */
static int probe_leaky(struct device *dev)
{
	pm_runtime_set_active(dev);
	leaky_enable_line = __LINE__ + 1;
	pm_runtime_enable(dev);
	leaky_get_line = __LINE__ + 1;
	if (pm_runtime_get_sync(dev) < 0)
		return -EIO;
	leaky_auto_line = __LINE__ + 1;
	pm_runtime_use_autosuspend(dev);
	return 0;
}

/* What a driver leaves at unbind is reported at its lines, and undone: the next driver starts afresh. */
static void test_leaks_at_unbind(void **state)
{
	struct current_fx *f = *state;
	struct platform_device *pdev;
	struct device *dev;
	const struct captured *r;
	struct dmamap_pm_runtime_info info;

	toy.probe = probe_leaky;
	pdev = bound(f);
	dev = &pdev->dev;
	assert_string_equal(toy.order, "p");
	assert_int_equal(info_of(dev).counts_taken, 1);
	assert_int_equal(f->c.reports, 0);
	dmamap_platform_unbind(pdev);
	assert_int_equal(f->c.reports, 3);
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_LEAK], 3);
	r = report_at(&f->c, DMAMAP_REPORT_LEAK, leaky_enable_line);
	assert_non_null(r);
	assert_non_null(strstr(r->message, "pm_runtime_enable(): runtime PM is still enabled when driver toy-pm "
					   "unbinds"));
	r = report_at(&f->c, DMAMAP_REPORT_LEAK, leaky_get_line);
	assert_non_null(r);
	assert_non_null(strstr(r->message, "pm_runtime_get_sync() took a runtime PM usage count"));
	r = report_at(&f->c, DMAMAP_REPORT_LEAK, leaky_auto_line);
	assert_non_null(r);
	assert_non_null(strstr(r->message, "pm_runtime_use_autosuspend() never undone"));
	info = info_of(dev);
	assert_int_equal(info.disable_depth, 1);
	assert_int_equal(info.usage_count, 0);
	assert_int_equal(info.counts_taken, 0);
	assert_false(info.use_autosuspend);
	assert_int_equal(info.status, RPM_SUSPENDED); /* as pm_runtime_reinit() leaves it, without a callback */
	assert_string_equal(toy.order, "px");

	/* the next driver starts afresh */
	capture_start(&f->c, f->m);
	clear_order();
	toy.probe = probe_devm;
	assert_int_equal(dmamap_platform_bind(pdev, &toy_driver), 0);
	assert_string_equal(toy.order, "pis");
	dmamap_platform_unbind(pdev);
	assert_int_equal(f->c.reports, 0);
	dmamap_platform_device_destroy(pdev);
}

static int failing_enable_line;

/* A probe whose error path forgets pm_runtime_disable(). */
static int probe_failing(struct device *dev)
{
	failing_enable_line = __LINE__ + 1;
	pm_runtime_enable(dev);
	return -ENODEV;
}

static int extra_disable_line;

static void remove_double_disable(struct device *dev)
{
	extra_disable_line = __LINE__ + 1;
	pm_runtime_disable(dev);
}

/* A failed probe that leaves runtime PM enabled; a remove that disables what devm disables too. */
static void test_failed_probe_and_double_disable(void **state)
{
	struct current_fx *f = *state;
	struct platform_device *pdev = dmamap_platform_device_create(f->m, "toy-pm", 0);
	struct device *dev = &pdev->dev;
	const struct captured *r;

	toy.probe = probe_failing;
	assert_int_equal(dmamap_platform_bind(pdev, &toy_driver), -ENODEV);
	assert_int_equal(f->c.reports, 1);
	r = report_at(&f->c, DMAMAP_REPORT_LEAK, failing_enable_line);
	assert_non_null(r);
	assert_non_null(strstr(r->message, "still enabled"));
	assert_false(pm_runtime_enabled(dev));

	capture_start(&f->c, f->m);
	toy.probe = probe_devm;
	toy.remove = remove_double_disable;
	assert_int_equal(dmamap_platform_bind(pdev, &toy_driver), 0);
	assert_int_equal(f->c.reports, 0);
	dmamap_platform_unbind(pdev);
	assert_int_equal(f->c.reports, 1);
	r = report_at(&f->c, DMAMAP_REPORT_API_MISUSE, extra_disable_line);
	assert_non_null(r);
	assert_non_null(strstr(r->message, "pm_runtime_disable(): runtime PM is disabled 1 time more than it was "
					   "enabled"));
	assert_non_null(strstr(r->message, "the release of devm_pm_runtime_enable() at "));
	assert_int_equal(info_of(dev).disable_depth, 1);
	dmamap_platform_device_destroy(pdev);
}

/* A plain device a test drives: what is left at its release is reported there. */
static void test_left_at_release(void **state)
{
	struct current_fx *f = *state;
	struct device dev;
	int enable_line, get_line;

	memset(&dev, 0, sizeof(dev));
	assert_int_equal(dmamap_device_init(&dev, f->m, "plain"), 0);
	enable_line = __LINE__ + 1;
	pm_runtime_enable(&dev);
	get_line = __LINE__ + 1;
	assert_int_equal(pm_runtime_resume_and_get(&dev), 0); /* no driver: no callbacks, success */
	assert_true(pm_runtime_active(&dev));
	dmamap_device_release(&dev);
	assert_int_equal(f->c.reports, 2);
	assert_non_null(report_at(&f->c, DMAMAP_REPORT_LEAK, enable_line));
	assert_non_null(report_at(&f->c, DMAMAP_REPORT_LEAK, get_line));
	assert_non_null(strstr(f->c.rec[0].message, "when the device is released"));
	assert_null(dev.dmamap.pm);
}

/* While disabled, pm_runtime_resume() says 1 for a device that was active when it was disabled. */
static void test_resume_while_disabled(void **state)
{
	struct current_fx *f = *state;
	struct platform_device *pdev;
	struct device *dev;

	toy.probe = probe_devm;
	pdev = bound(f);
	dev = &pdev->dev;
	assert_int_equal(pm_runtime_get_sync(dev), 0);
	pm_runtime_disable(dev);
	assert_int_equal(pm_runtime_resume(dev), 1);
	assert_int_equal(pm_runtime_put(dev), -EACCES);
	assert_int_equal(pm_runtime_set_suspended(dev), 0);
	assert_int_equal(pm_runtime_resume(dev), -EACCES);
	assert_int_equal(pm_runtime_set_active(dev), 0);
	assert_int_equal(pm_runtime_resume(dev), 1); /* active, as when it was disabled */
	pm_runtime_enable(dev);
	assert_int_equal(pm_runtime_resume(dev), 1);
	assert_int_equal(f->c.reports, 0);
	dmamap_platform_device_destroy(pdev);
}

/* get_if_in_use and get_if_active (both forms), forbid and allow, no_callbacks. */
static void test_conditional_gets_forbid_no_callbacks(void **state)
{
	struct current_fx *f = *state;
	struct platform_device *pdev;
	struct device *dev;

	toy.probe = probe_devm;
	pdev = bound(f);
	dev = &pdev->dev;
	assert_int_equal(pm_runtime_get_if_active(dev), 0); /* suspended */
	assert_int_equal(pm_runtime_get_if_active(dev, true), 0);
	/* active with no count taken: not in use, but active */
	assert_int_equal(pm_runtime_get_sync(dev), 0);
	pm_runtime_put_noidle(dev);
	assert_int_equal(pm_runtime_get_if_in_use(dev), 0);
	assert_int_equal(pm_runtime_get_if_active(dev, false), 0);
	assert_int_equal(info_of(dev).usage_count, 0);
	assert_int_equal(pm_runtime_get_if_active(dev), 1);
	assert_int_equal(info_of(dev).usage_count, 1);
	assert_int_equal(pm_runtime_put_sync(dev), 0);
	assert_true(pm_runtime_suspended(dev));
	clear_order();

	pm_runtime_forbid(dev);
	assert_string_equal(toy.order, "r");
	assert_int_equal(info_of(dev).usage_count, 1);
	pm_runtime_forbid(dev);
	assert_int_equal(info_of(dev).usage_count, 1);
	assert_false(info_of(dev).runtime_auto);
	assert_int_equal(pm_runtime_get_if_in_use(dev), 1); /* the forbid's count */
	assert_int_equal(info_of(dev).usage_count, 2);
	pm_runtime_put_noidle(dev);
	assert_int_equal(pm_runtime_get_if_active(dev, false), 1);
	pm_runtime_put_noidle(dev);
	pm_runtime_allow(dev);
	assert_string_equal(toy.order, "ris");
	assert_int_equal(info_of(dev).usage_count, 0);
	pm_runtime_allow(dev);
	assert_int_equal(info_of(dev).usage_count, 0);

	assert_int_equal(pm_runtime_get_sync(dev), 0);
	assert_int_equal(pm_runtime_get_if_in_use(dev), 1);
	assert_int_equal(pm_runtime_get_if_active(dev), 1);
	assert_int_equal(info_of(dev).usage_count, 3);
	pm_runtime_put_noidle(dev);
	pm_runtime_put_noidle(dev);
	assert_int_equal(pm_runtime_put(dev), 0);
	assert_int_equal(pm_runtime_get_if_in_use(dev), 0);
	assert_int_equal(info_of(dev).usage_count, 0);

	/* no callbacks: suspends and resumes succeed at once */
	clear_order();
	pm_runtime_no_callbacks(dev);
	assert_int_equal(pm_runtime_get_sync(dev), 0);
	assert_true(pm_runtime_active(dev));
	assert_int_equal(pm_runtime_put_sync(dev), 0);
	assert_true(pm_runtime_suspended(dev));
	assert_string_equal(toy.order, "");
	assert_int_equal(f->c.reports, 0);
	dmamap_platform_device_destroy(pdev);
}

/*
 * A synchronous call in atomic context is reported (not for an irq-safe
 * device); the queued forms may be made there, their callbacks run as the
 * worker's, interrupts on. An irq-safe device's callbacks run with them off.
 */
static void test_atomic_context(void **state)
{
	struct current_fx *f = *state;
	struct platform_device *pdev;
	struct device *dev;
	unsigned long flags;
	const struct captured *r;
	int line;
	DEFINE_SPINLOCK(lk);

	toy.probe = probe_devm;
	pdev = bound(f);
	dev = &pdev->dev;
	assert_int_equal(pm_runtime_get_sync(dev), 0);

	spin_lock_irqsave(&lk, flags);
	toy.irqs_off = true;
	assert_int_equal(pm_runtime_put(dev), 0);
	assert_false(toy.irqs_off);
	assert_int_equal(pm_runtime_get(dev), 0);
	assert_false(toy.irqs_off);
	spin_unlock_irqrestore(&lk, flags);
	assert_true(pm_runtime_active(dev));
	assert_int_equal(f->c.reports, 0);

	spin_lock(&lk);
	line = __LINE__ + 1;
	assert_int_equal(pm_runtime_put_sync(dev), 0);
	spin_unlock(&lk);
	assert_int_equal(f->c.reports, 1);
	r = report_at(&f->c, DMAMAP_REPORT_SLEEP_IN_ATOMIC, line);
	assert_non_null(r);
	assert_non_null(strstr(r->message, "pm_runtime_put_sync()"));

	/* irq-safe: no report, the callbacks with interrupts off */
	pm_runtime_irq_safe(dev);
	assert_true(pm_runtime_is_irq_safe(dev));
	spin_lock(&lk);
	toy.irqs_off = false;
	assert_int_equal(pm_runtime_get_sync(dev), 0);
	assert_true(toy.irqs_off);
	toy.irqs_off = false;
	assert_int_equal(pm_runtime_put_sync(dev), 0);
	assert_true(toy.irqs_off);
	spin_unlock(&lk);
	assert_int_equal(f->c.reports, 1);
	assert_true(pm_runtime_suspended(dev));
	dmamap_platform_unbind(pdev);
	assert_false(pm_runtime_is_irq_safe(dev)); /* undone at unbind, as pm_runtime_reinit() does */
	dmamap_platform_device_destroy(pdev);
}

static void get_from_suspend(struct device *dev)
{
	toy.in_ret = pm_runtime_get(dev);
}

static void get_sync_from_resume(struct device *dev)
{
	toy.in_ret = pm_runtime_get_sync(dev);
}

/*
 * Calls from a callback: a resume asked for while the device suspends is
 * done once the suspend is over (the kernel's deferred resume); a wait for
 * its own callback is reported and returns at once.
 */
static void test_calls_from_callbacks(void **state)
{
	struct current_fx *f = *state;
	struct platform_device *pdev;
	struct device *dev;
	const struct captured *r;

	toy.probe = probe_devm;
	pdev = bound(f);
	dev = &pdev->dev;
	assert_int_equal(pm_runtime_get_sync(dev), 0);
	pm_runtime_put_noidle(dev);
	clear_order();

	toy.in_suspend = get_from_suspend;
	assert_int_equal(pm_runtime_suspend(dev), -EAGAIN);
	toy.in_suspend = NULL;
	assert_int_equal(toy.in_ret, 0);
	assert_string_equal(toy.order, "sr");
	assert_true(pm_runtime_active(dev));
	assert_int_equal(info_of(dev).usage_count, 1);
	assert_int_equal(pm_runtime_put_sync_suspend(dev), 0);
	assert_string_equal(toy.order, "srs");

	toy.in_resume = get_sync_from_resume;
	assert_int_equal(pm_runtime_get_sync(dev), 0);
	toy.in_resume = NULL;
	assert_int_equal(toy.in_ret, -EINPROGRESS);
	assert_int_equal(f->c.reports, 1);
	r = &f->c.rec[0];
	assert_int_equal(r->kind, DMAMAP_REPORT_API_MISUSE);
	assert_non_null(strstr(r->message, "pm_runtime_get_sync: called from the device's own runtime PM callback"));
	assert_int_equal(info_of(dev).usage_count, 2);
	pm_runtime_put_noidle(dev);
	assert_int_equal(pm_runtime_put(dev), 0);
	assert_true(pm_runtime_suspended(dev));
	dmamap_platform_device_destroy(pdev);
}

/* The ops macros fill the kernel's fields; DEFINE_RUNTIME_DEV_PM_OPS()'s system sleep ones force runtime PM. */
static int sleep_suspend(struct device *dev)
{
	(void)dev;
	return 0;
}

static int sleep_resume(struct device *dev)
{
	(void)dev;
	return 0;
}

static DEFINE_SIMPLE_DEV_PM_OPS(simple_ops, sleep_suspend, sleep_resume);
static const struct dev_pm_ops set_ops = {
	SET_SYSTEM_SLEEP_PM_OPS(sleep_suspend, sleep_resume)
	SET_LATE_SYSTEM_SLEEP_PM_OPS(sleep_suspend, sleep_resume)
	SET_NOIRQ_SYSTEM_SLEEP_PM_OPS(sleep_suspend, sleep_resume)
	SET_RUNTIME_PM_OPS(toy_runtime_suspend, toy_runtime_resume, NULL)
};

static void test_pm_ops_and_forced_suspend(void **state)
{
	struct current_fx *f = *state;
	struct platform_device *pdev;
	struct device *dev;
	const struct dev_pm_ops *ops;

	assert_true(simple_ops.suspend == sleep_suspend);
	assert_true(simple_ops.poweroff == sleep_suspend);
	assert_true(simple_ops.restore == sleep_resume);
	assert_true(simple_ops.runtime_suspend == NULL);
	assert_true(simple_ops.suspend_late == NULL);
	assert_true(set_ops.resume_early == sleep_resume);
	assert_true(set_ops.freeze_noirq == sleep_suspend);
	assert_true(set_ops.runtime_resume == toy_runtime_resume);
	assert_true(set_ops.runtime_idle == NULL);
	assert_ptr_equal(pm_sleep_ptr(&simple_ops), &simple_ops);
	assert_true(toy_pm_ops.suspend == pm_runtime_force_suspend);
	assert_true(toy_pm_ops.thaw == pm_runtime_force_resume);
	assert_true(toy_pm_ops.runtime_idle == toy_runtime_idle);

	toy.probe = probe_devm;
	pdev = bound(f);
	dev = &pdev->dev;
	ops = dev->driver->pm;
	assert_ptr_equal(ops, &toy_pm_ops);

	/* system sleep as the PM core plays it, holding a count: an idle device stays suspended after */
	clear_order();
	assert_int_equal(pm_runtime_get_sync(dev), 0);
	pm_runtime_put_noidle(dev);
	pm_runtime_get_noresume(dev);
	assert_int_equal(ops->suspend(dev), 0);
	assert_false(pm_runtime_enabled(dev));
	assert_true(pm_runtime_status_suspended(dev));
	assert_int_equal(ops->resume(dev), 0);
	assert_true(pm_runtime_enabled(dev));
	assert_true(pm_runtime_status_suspended(dev));
	assert_string_equal(toy.order, "rs");
	/* in use through system sleep: resumed after it */
	assert_int_equal(pm_runtime_get_sync(dev), 0);
	assert_int_equal(ops->suspend(dev), 0);
	assert_int_equal(ops->resume(dev), 0);
	assert_string_equal(toy.order, "rsrsr");
	assert_true(pm_runtime_active(dev));
	pm_runtime_put_noidle(dev);
	assert_int_equal(pm_runtime_put(dev), 0);
	assert_string_equal(toy.order, "rsrsris");
	assert_int_equal(f->c.reports, 0);
	dmamap_platform_device_destroy(pdev);
}

/* The refusals of bad devices, and a state that cannot be had. */
static void test_bad_devices_and_no_memory(void **state)
{
	struct current_fx *f = *state;
	struct capture pc;
	struct device stray, dev;
	struct dmamap_pm_runtime_info info;

	memset(&stray, 0, sizeof(stray));
	capture_start(&pc, NULL);
	assert_int_equal(pm_runtime_get_sync(NULL), -EINVAL);
	assert_int_equal(pm_runtime_put(&stray), -EINVAL);
	pm_runtime_enable(&stray);
	assert_int_equal(dmamap_pm_runtime_info(NULL, &info), -EINVAL);
	assert_int_equal(dmamap_pm_runtime_run_timer(&stray), -EINVAL);
	capture_stop(NULL);
	assert_int_equal(pc.by_kind[DMAMAP_REPORT_BAD_INPUT], 5);
	assert_null(stray.dmamap.pm);

	memset(&dev, 0, sizeof(dev));
	assert_int_equal(dmamap_device_init(&dev, f->m, "plain"), 0);
	assert_int_equal(dmamap_fault_inject(f->m, DMAMAP_FAULT_HOST_ALLOC, 1, 0), 0);
	assert_int_equal(pm_runtime_set_active(&dev), -ENOMEM);
	assert_int_equal(dmamap_fault_inject(f->m, DMAMAP_FAULT_HOST_ALLOC, 0, 0), 0);
	assert_null(dev.dmamap.pm);
	assert_true(pm_runtime_status_suspended(&dev));
	assert_int_equal(pm_runtime_set_active(&dev), 0);
	assert_false(pm_runtime_status_suspended(&dev));
	dmamap_device_release(&dev);
	assert_int_equal(f->c.reports, 0);
}

/* Threads getting and putting one device: the callbacks alternate, never two at once, and the counts add up. */
static int thr_in_cb, thr_active, thr_bad, thr_resumes, thr_suspends;

static int thr_add(int *v, int d)
{
	return __atomic_fetch_add(v, d, __ATOMIC_SEQ_CST);
}

static int thr_swap(int *v, int to)
{
	return __atomic_exchange_n(v, to, __ATOMIC_SEQ_CST);
}

static int thr_resume(struct device *dev)
{
	(void)dev;
	if (thr_add(&thr_in_cb, 1) != 0 || thr_swap(&thr_active, 1) != 0)
		thr_add(&thr_bad, 1);
	usleep(50);
	thr_add(&thr_resumes, 1);
	thr_add(&thr_in_cb, -1);
	return 0;
}

static int thr_suspend(struct device *dev)
{
	(void)dev;
	if (thr_add(&thr_in_cb, 1) != 0 || thr_swap(&thr_active, 0) != 1)
		thr_add(&thr_bad, 1);
	usleep(50);
	thr_add(&thr_suspends, 1);
	thr_add(&thr_in_cb, -1);
	return 0;
}

static const struct dev_pm_ops thr_ops = { SET_RUNTIME_PM_OPS(thr_suspend, thr_resume, NULL) };

static int thr_probe(struct platform_device *pdev)
{
	return devm_pm_runtime_enable(&pdev->dev);
}

static struct platform_driver thr_driver = {
	.probe = thr_probe,
	.driver = { .name = "thr-pm", .pm = &thr_ops },
};

static void *thr_user(void *arg)
{
	struct device *dev = arg;
	int n = under_valgrind() ? 50 : 500;

	for (int i = 0; i < n; i++) {
		if (pm_runtime_get_sync(dev) < 0 || !pm_runtime_active(dev))
			thr_add(&thr_bad, 1);
		if (i % 2)
			(void)pm_runtime_put(dev);
		else
			(void)pm_runtime_put_sync(dev);
	}
	return NULL;
}

static void test_threads(void **state)
{
	struct current_fx *f = *state;
	struct platform_device *pdev = dmamap_platform_device_create(f->m, "thr-pm", 0);
	pthread_t t[4];

	assert_false(IS_ERR(pdev));
	assert_int_equal(dmamap_platform_bind(pdev, &thr_driver), 0);
	for (int i = 0; i < 4; i++)
		assert_int_equal(pthread_create(&t[i], NULL, thr_user, &pdev->dev), 0);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	assert_int_equal(thr_add(&thr_bad, 0), 0);
	assert_true(thr_add(&thr_resumes, 0) >= 1);
	assert_int_equal(thr_add(&thr_resumes, 0), thr_add(&thr_suspends, 0));
	assert_int_equal(info_of(&pdev->dev).usage_count, 0);
	assert_true(pm_runtime_suspended(&pdev->dev));
	assert_int_equal(f->c.reports, 0);
	dmamap_platform_device_destroy(pdev);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_starts_disabled_and_suspended, setup, current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_driver_life, setup, current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_core_leaves_a_device_without_runtime_pm_alone, setup,
						current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_resume_error, setup, current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_suspend_error, setup, current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_idle_callback_decides, setup, current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_usage_count_underflow, setup, current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_unbalanced_enable, setup, current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_autosuspend, setup, current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_devm_enable_undone_at_unbind, setup, current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_leaks_at_unbind, setup, current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_failed_probe_and_double_disable, setup, current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_left_at_release, setup, current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_resume_while_disabled, setup, current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_conditional_gets_forbid_no_callbacks, setup, current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_atomic_context, setup, current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_calls_from_callbacks, setup, current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_pm_ops_and_forced_suspend, setup, current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_bad_devices_and_no_memory, setup, current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_threads, setup, current_fx_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
