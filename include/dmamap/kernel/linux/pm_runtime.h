/* SPDX-License-Identifier: MIT */
/*
 * <linux/pm_runtime.h> of Linux 6.x over libdmamap (<dmamap/pm.h>, where
 * the whole model is told): pm_runtime_enable(), pm_runtime_disable(),
 * devm_pm_runtime_enable(); pm_runtime_get(), pm_runtime_get_sync(),
 * pm_runtime_resume_and_get(), pm_runtime_get_noresume(),
 * pm_runtime_get_if_in_use(), pm_runtime_get_if_active() (the one-argument
 * form of 6.9 and the two-argument one before); pm_runtime_put(),
 * pm_runtime_put_sync(), pm_runtime_put_sync_suspend(),
 * pm_runtime_put_noidle(), pm_runtime_put_autosuspend(),
 * __pm_runtime_put_autosuspend(), pm_runtime_put_sync_autosuspend();
 * pm_runtime_idle(), pm_runtime_suspend(), pm_runtime_autosuspend(),
 * pm_runtime_resume() and the pm_request_*() forms; pm_runtime_set_active(),
 * pm_runtime_set_suspended(); pm_runtime_mark_last_busy(),
 * pm_runtime_use_autosuspend(), pm_runtime_dont_use_autosuspend(),
 * pm_runtime_set_autosuspend_delay(), pm_runtime_autosuspend_expiration();
 * pm_runtime_active(), pm_runtime_suspended(),
 * pm_runtime_status_suspended(), pm_runtime_enabled(),
 * pm_runtime_is_irq_safe(); pm_runtime_allow(), pm_runtime_forbid(),
 * pm_runtime_no_callbacks(), pm_runtime_irq_safe();
 * pm_runtime_force_suspend(), pm_runtime_force_resume() and
 * DEFINE_RUNTIME_DEV_PM_OPS(); __pm_runtime_idle(), __pm_runtime_suspend()
 * and __pm_runtime_resume() with the RPM_* flags.
 *
 * Where it differs from the kernel: there is no PM workqueue and no timer.
 * What the kernel queues (pm_runtime_put(), pm_runtime_get(),
 * pm_runtime_put_autosuspend(), the pm_request_*() forms, the idle check
 * after a resume) is done at once in the calling thread, its callbacks run
 * as the worker would run them (no lock of the caller's held, interrupts
 * on); an autosuspend whose delay has not passed is armed, and runs at the
 * first runtime PM call on the device once it is due (any call here but
 * pm_runtime_mark_last_busy() and the status reads), or when a test calls
 * dmamap_pm_runtime_run_timer(). pm_runtime_put_noidle() of a count of 0 is
 * reported too, as the underflow it is. What a driver leaves when it
 * unbinds (runtime PM enabled, usage counts taken, autosuspend on) is
 * reported at its line and undone. No parents, suppliers, PM domains, QoS
 * or sysfs.
 */
#ifndef _LINUX_PM_RUNTIME_H
#define _LINUX_PM_RUNTIME_H

#include <dmamap/linux-api.h>
#include <linux/device.h>
#include <linux/pm.h>
#include <dmamap/pm.h>

/* The flags of __pm_runtime_idle(), __pm_runtime_suspend() and __pm_runtime_resume(), the kernel's values. */
#define RPM_ASYNC DMAMAP_RPM_ASYNC
#define RPM_NOWAIT DMAMAP_RPM_NOWAIT
#define RPM_GET_PUT DMAMAP_RPM_GET_PUT
#define RPM_AUTO DMAMAP_RPM_AUTO

#define __pm_runtime_idle(dev, rpmflags) dmamap_pm_runtime_idle_at((dev), (rpmflags), __FILE__, __LINE__)
#define __pm_runtime_suspend(dev, rpmflags) dmamap_pm_runtime_suspend_at((dev), (rpmflags), __FILE__, __LINE__)
#define __pm_runtime_resume(dev, rpmflags) dmamap_pm_runtime_resume_at((dev), (rpmflags), __FILE__, __LINE__)

/*
 * DEFINE_RUNTIME_DEV_PM_OPS() - ops @name of runtime PM callbacks whose
 * system sleep callbacks force a runtime suspend and resume
 * (pm_runtime_force_suspend(), pm_runtime_force_resume()).
 */
#define DEFINE_RUNTIME_DEV_PM_OPS(name, suspend_fn, resume_fn, idle_fn) \
	_DEFINE_DEV_PM_OPS(name, pm_runtime_force_suspend, pm_runtime_force_resume, suspend_fn, resume_fn, idle_fn)

#endif /* _LINUX_PM_RUNTIME_H */
