/* SPDX-License-Identifier: MIT */
/*
 * Power management of devices: struct dev_pm_ops, the callbacks a driver
 * gives the PM core (its struct device_driver's .pm), and runtime PM, what
 * <linux/pm_runtime.h> of the Linux 6.x headers is made of
 * (<linux/pm.h> and <linux/pm_runtime.h> bring this header).
 *
 * Each device has the runtime PM state of the kernel's Documentation/power/
 * runtime_pm.rst: a usage counter (0 at first), a status (RPM_SUSPENDED at
 * first, whatever the hardware does), a disable depth (1 at first: runtime PM
 * starts disabled, until the driver's pm_runtime_enable()), the error of the
 * last callback that failed for good, and the autosuspend settings. The
 * state lives in the library, made at the device's first runtime PM call and
 * freed with the device; a device that never makes one costs nothing.
 *
 * The callbacks are the bound driver's, dev->driver->pm's runtime_suspend,
 * runtime_resume and runtime_idle (there is no PM domain, bus, class or
 * type to come first); a NULL callback acts as one that returns 0, and
 * after pm_runtime_no_callbacks() none is called. Their results act as the
 * kernel's: a suspend that fails with -EBUSY or -EAGAIN leaves the device
 * active, any other error too, and then every runtime PM operation returns
 * -EINVAL until pm_runtime_set_active() or pm_runtime_set_suspended() clears
 * it; a resume that fails leaves the device suspended (an error other than
 * -EBUSY and -EAGAIN blocks it the same way); a callback's -EACCES is taken
 * as -EAGAIN. pm_runtime_get_sync() returns a failed resume's error with the
 * usage count still taken, pm_runtime_resume_and_get() gives the count back
 * first. While the disable depth is not 0 the operations return -EACCES
 * (pm_runtime_resume(): 1 when the device is active and was so when runtime
 * PM was disabled), pm_runtime_get_if_in_use() and pm_runtime_get_if_active()
 * -EINVAL.
 *
 * No workqueue, no timer. What the kernel queues for its PM workqueue
 * happens at once, in the calling thread, before the call returns, and the
 * call returns what the kernel's returns once the work is queued: the idle
 * check of pm_runtime_put() and pm_request_idle(), the resume of
 * pm_runtime_get() and pm_request_resume(), the suspend of
 * pm_runtime_put_autosuspend(), __pm_runtime_put_autosuspend() and
 * pm_request_autosuspend() once the autosuspend delay has passed, and the
 * idle check the kernel queues after every resume (so pm_runtime_resume()
 * of a device whose usage count is 0 suspends it again before it returns,
 * as the kernel's worker may at any moment after: hold a count, with
 * pm_runtime_get_sync(), for as long as the device must stay active). The
 * callbacks of such work run as the worker would run them, as a task of
 * their own: no lock of the caller held, interrupts on, so pm_runtime_put()
 * from an interrupt handler may have a runtime_suspend callback that
 * sleeps. Like an interrupt thread function, though, they run
 * in the caller's thread: a callback that takes a lock the caller holds is
 * reported as a recursion, where the kernel's worker would wait for it.
 *
 * Autosuspend (pm_runtime_use_autosuspend(), a delay in ms set with
 * pm_runtime_set_autosuspend_delay(), 0 at first): an idle device whose
 * delay since its last busy time (pm_runtime_mark_last_busy(), and every
 * successful resume, pm_runtime_put_autosuspend(),
 * pm_runtime_put_sync_autosuspend() and pm_runtime_autosuspend()) has not
 * passed is not suspended: an autosuspend is armed, due when the delay has
 * passed, as the kernel arms its timer. It runs at the first runtime PM call
 * on the device once it is due: every call of this header that names the
 * device except pm_runtime_mark_last_busy() and the status reads
 * (pm_runtime_active(), pm_runtime_suspended(),
 * pm_runtime_status_suspended(), pm_runtime_enabled(),
 * pm_runtime_is_irq_safe(), pm_runtime_autosuspend_expiration(),
 * dmamap_pm_runtime_info()), which never run callbacks; and in
 * dmamap_pm_runtime_run_timer(), a test's way of saying "the timer fired".
 * It then does what the kernel's timer does: it suspends the device if it is
 * still idle (usage count 0, active, enabled) and its delay has passed from
 * its latest busy time (a later pm_runtime_mark_last_busy() arms it again
 * for later). A resume leaves it armed; a suspend, a disable and a failed
 * suspend that is not retried drop it. A negative delay forbids runtime
 * suspend: pm_runtime_use_autosuspend() (or the delay going negative) takes
 * a usage count and resumes the device, as the kernel's does.
 *
 * Threads. Each device's state has a lock of its own, never held while a
 * callback runs, nor while a report is made: a callback may call any of
 * these functions for its device or others. The callbacks of one device are
 * never run at the same time, but for runtime_idle, which may run beside the
 * others (and is never run twice at once). As the kernel's, a synchronous
 * resume (pm_runtime_get_sync(), pm_runtime_resume()...) waits for a resume
 * or suspend under way in another thread, a synchronous suspend for another
 * suspend (one asked while a resume is under way returns -EAGAIN), the
 * first pm_runtime_disable() for any callback under way; the forms the
 * kernel queues never wait (a resume asked while another thread suspends
 * the device is done by that thread once its suspend is over, the kernel's
 * deferred resume; a suspend asked while another thread resumes it, by that
 * thread once its resume is over). A synchronous
 * call that would wait for a callback of its own thread (runtime_resume
 * calling pm_runtime_get_sync() of its own device: the kernel deadlocks) is
 * reported as DMAMAP_REPORT_API_MISUSE and returns -EINPROGRESS at once.
 * Unless the device is irq-safe (pm_runtime_irq_safe()), the synchronous
 * calls may sleep: one made holding a spinlock or with interrupts off is
 * reported as DMAMAP_REPORT_SLEEP_IN_ATOMIC, as the kernel's might_sleep()
 * says it (a resume of a device already active excepted, as in the
 * kernel); the callbacks of an irq-safe device run with interrupts off. A
 * callback that returns holding a lock it took is reported as
 * DMAMAP_REPORT_LOCK_MISUSE.
 *
 * Misuse is reported at the caller's file:line (the calls are macros over
 * the _at() functions below): a put with no count to drop, "Runtime PM usage
 * count underflow!" as the kernel warns (pm_runtime_put_noidle() too, which
 * the kernel lets pass silently; refused: the count stays 0, nothing runs,
 * -EINVAL), a pm_runtime_enable() of an enabled device, "Unbalanced
 * pm_runtime_enable!" (nothing done), both DMAMAP_REPORT_API_MISUSE. A NULL
 * or uninitialised device is DMAMAP_REPORT_BAD_INPUT (-EINVAL, nothing done).
 *
 * The driver core (dmamap_platform_bind(), dmamap_platform_unbind(), as the
 * kernel's really_probe() and __device_release_driver()): after a probe that
 * succeeded, an idle check (pm_request_idle(): the device is suspended at
 * once if the driver left it idle); before remove(), pm_runtime_get_sync()
 * then pm_runtime_put_sync() (the device resumed, then idle-checked: the
 * kernel lets remove() run on a suspended device unless the driver keeps a
 * count); after the managed resources are gone, at an unbind or a failed
 * probe, what the driver left is reported, each at the driver's line, and
 * undone: runtime PM still enabled, by a pm_runtime_enable() never undone
 * (DMAMAP_REPORT_LEAK at the enable; the kernel leaves it enabled and warns
 * "Unbalanced pm_runtime_enable!" at the next probe), each usage count the
 * driver took and never gave back (DMAMAP_REPORT_LEAK at the call that took
 * it: a put is matched with the latest count taken and not given back
 * yet, as get/put pairs nest), a pm_runtime_use_autosuspend() never undone
 * by pm_runtime_dont_use_autosuspend() (DMAMAP_REPORT_LEAK, as runtime_pm.rst
 * asks remove() to undo it), and runtime PM disabled more times than it was
 * enabled (DMAMAP_REPORT_API_MISUSE at the latest disable: the next driver's
 * pm_runtime_enable() would leave it disabled); then the device is made as
 * the kernel's pm_runtime_reinit() leaves it, disabled and, if it was
 * active, suspended without a callback. devm_pm_runtime_enable() is undone
 * with the managed resources, as the kernel's: pm_runtime_dont_use_autosuspend()
 * (which may suspend the device, through its driver's callbacks) then
 * pm_runtime_disable(). What the driver core does itself is never reported.
 * A device released with state left (a plain device a test drives) is
 * reported the same way at its release.
 *
 * Where it differs from the kernel: no parent, children, suppliers or PM
 * domains (pm_suspend_ignore_children() is not provided), no PM QoS, no
 * sysfs (pm_runtime_allow() and pm_runtime_forbid() are the driver's calls
 * for what user space would say), no system sleep: the PM core never calls
 * the system sleep callbacks (suspend, resume...): a test may call them
 * itself, through dev->driver->pm.
 */
#ifndef DMAMAP_PM_H
#define DMAMAP_PM_H

#include <stdbool.h>

#include <dmamap/types.h>
#include <dmamap/device.h>

DMAMAP_BEGIN_DECLS

/*
 * struct dev_pm_ops - the PM callbacks of a driver, <linux/pm.h>'s, in the
 * kernel's order: the system sleep ones (never called by the library) and the
 * three runtime PM ones.
 */
struct dev_pm_ops {
	int (*prepare)(struct device *dev);
	void (*complete)(struct device *dev);
	int (*suspend)(struct device *dev);
	int (*resume)(struct device *dev);
	int (*freeze)(struct device *dev);
	int (*thaw)(struct device *dev);
	int (*poweroff)(struct device *dev);
	int (*restore)(struct device *dev);
	int (*suspend_late)(struct device *dev);
	int (*resume_early)(struct device *dev);
	int (*freeze_late)(struct device *dev);
	int (*thaw_early)(struct device *dev);
	int (*poweroff_late)(struct device *dev);
	int (*restore_early)(struct device *dev);
	int (*suspend_noirq)(struct device *dev);
	int (*resume_noirq)(struct device *dev);
	int (*freeze_noirq)(struct device *dev);
	int (*thaw_noirq)(struct device *dev);
	int (*poweroff_noirq)(struct device *dev);
	int (*restore_noirq)(struct device *dev);
	int (*runtime_suspend)(struct device *dev);
	int (*runtime_resume)(struct device *dev);
	int (*runtime_idle)(struct device *dev);
};

/* A device's runtime PM status, the kernel's values. */
enum rpm_status {
	RPM_INVALID = -1,
	RPM_ACTIVE = 0,
	RPM_RESUMING,
	RPM_SUSPENDED,
	RPM_SUSPENDING,
};

/* The flags of the operations (<linux/pm_runtime.h>'s RPM_ASYNC... are these values). */
#define DMAMAP_RPM_ASYNC 0x01   /* the kernel queues the work: here it is done at once, as its worker would */
#define DMAMAP_RPM_NOWAIT 0x02  /* do not wait for a resume or suspend under way */
#define DMAMAP_RPM_GET_PUT 0x04 /* take (resume) or drop (idle, suspend) a usage count first */
#define DMAMAP_RPM_AUTO 0x08    /* a suspend honours the autosuspend delay */
#define DMAMAP_RPM_MARK_BUSY 0x100 /* the library's: mark the device busy first (pm_runtime_put_autosuspend()) */

/**
 * dmamap_pm_runtime_idle_at() - an idle check of @dev: __pm_runtime_idle(), behind pm_runtime_idle()...
 * @dev: an initialised device
 * @rpmflags: DMAMAP_RPM_GET_PUT drops a usage count first and stops there
 *            unless it reached 0 (pm_runtime_put_sync(); pm_runtime_put()
 *            with DMAMAP_RPM_ASYNC); DMAMAP_RPM_ASYNC: the kernel queues the
 *            check, here it is made at once
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 *
 * When the device is enabled, active, idle (usage count 0) and no suspend
 * is asked for, calls the driver's runtime_idle; unless it returns non-zero
 * (its error is returned, and stops there), suspends the device as
 * dmamap_pm_runtime_suspend_at() does with DMAMAP_RPM_AUTO.
 * Return: 0 (with DMAMAP_RPM_GET_PUT, also when the count is still taken;
 * with DMAMAP_RPM_ASYNC, when the work was done, whatever the callbacks
 * said), what the suspend returns, the idle callback's non-zero result;
 * -EINVAL after a fatal callback error or on a usage count underflow
 * (reported), -EACCES while disabled, -EAGAIN when the count is taken, the
 * device is not active or a suspend is asked for, -EINPROGRESS when an idle
 * callback runs already; -ENOMEM when the state cannot be had.
 */
DMAMAP_API int dmamap_pm_runtime_idle_at(struct device *dev, int rpmflags, const char *file, int line);

/**
 * dmamap_pm_runtime_suspend_at() - suspend @dev: __pm_runtime_suspend(), behind pm_runtime_suspend()...
 * @dev: an initialised device
 * @rpmflags: DMAMAP_RPM_GET_PUT drops a usage count first and stops there
 *            unless it reached 0; DMAMAP_RPM_AUTO honours the autosuspend
 *            delay (arming an autosuspend when it has not passed);
 *            DMAMAP_RPM_ASYNC: done at once, as the kernel's worker would;
 *            DMAMAP_RPM_MARK_BUSY marks the device busy once the count is
 *            dropped (pm_runtime_put_autosuspend())
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 *
 * When the device is enabled, active and idle, calls the driver's
 * runtime_suspend; the device is suspended when it returns 0, stays active
 * otherwise (after -EAGAIN or -EBUSY of an autosuspend whose delay was moved
 * on meanwhile, the autosuspend is armed again).
 * Return: 0 (with DMAMAP_RPM_GET_PUT, also when the count is still taken;
 * with DMAMAP_RPM_ASYNC or an armed autosuspend, whatever the callback
 * said); 1 when suspended already; the callback's error; -EINVAL (fatal
 * error, underflow), -EACCES (disabled), -EAGAIN (count taken, a resume
 * under way or asked for), -EINPROGRESS (a queued form while another
 * suspend is under way), -ENOMEM.
 */
DMAMAP_API int dmamap_pm_runtime_suspend_at(struct device *dev, int rpmflags, const char *file, int line);

/**
 * dmamap_pm_runtime_resume_at() - resume @dev: __pm_runtime_resume(), behind pm_runtime_get_sync()...
 * @dev: an initialised device
 * @rpmflags: DMAMAP_RPM_GET_PUT takes a usage count first, kept whatever
 *            happens next (pm_runtime_get_sync(); pm_runtime_get() with
 *            DMAMAP_RPM_ASYNC); DMAMAP_RPM_ASYNC: done at once
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 *
 * When the device is enabled and suspended, calls the driver's
 * runtime_resume; the device is active when it returns 0 (and marked busy,
 * then idle-checked, as the kernel queues it), stays suspended otherwise.
 * Return: 0 when resumed (with DMAMAP_RPM_ASYNC, whatever the callback
 * said); 1 when active already (or, while disabled, active since before it
 * was disabled); the callback's error; -EINVAL (fatal error), -EACCES
 * (disabled), -EINPROGRESS (a queued form while another resume is under
 * way, or a wait for its own thread's callback, reported), -ENOMEM.
 */
DMAMAP_API int dmamap_pm_runtime_resume_at(struct device *dev, int rpmflags, const char *file, int line);

/**
 * dmamap_pm_runtime_resume_and_get_at() - resume @dev, then take a count if it worked: pm_runtime_resume_and_get()
 * @dev: an initialised device
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 *
 * Return: 0 with the count taken (resumed, or active already); the error
 * of dmamap_pm_runtime_resume_at() with no count taken.
 */
DMAMAP_API int dmamap_pm_runtime_resume_and_get_at(struct device *dev, const char *file, int line);

/**
 * dmamap_pm_runtime_get_noresume_at() - take a usage count of @dev, nothing else: pm_runtime_get_noresume()
 * @dev: an initialised device
 * @file: the caller's source file, or NULL (where the count was taken, for a leak)
 * @line: the caller's source line
 */
DMAMAP_API void dmamap_pm_runtime_get_noresume_at(struct device *dev, const char *file, int line);

/**
 * dmamap_pm_runtime_put_noidle_at() - drop a usage count of @dev, nothing else: pm_runtime_put_noidle()
 * @dev: an initialised device
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 *
 * A count of 0 is left alone and reported as an underflow.
 */
DMAMAP_API void dmamap_pm_runtime_put_noidle_at(struct device *dev, const char *file, int line);

/**
 * dmamap_pm_runtime_get_if_active_at() - take a usage count of @dev if it is active: pm_runtime_get_if_active()...
 * @dev: an initialised device
 * @ign_usage_count: true takes one whenever the device is active
 *                   (pm_runtime_get_if_active()); false only when a count is
 *                   taken already (pm_runtime_get_if_in_use())
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 *
 * Return: 1 with the count taken; 0 with nothing done; -EINVAL while
 * runtime PM is disabled; -ENOMEM.
 */
DMAMAP_API int dmamap_pm_runtime_get_if_active_at(struct device *dev, bool ign_usage_count, const char *file,
						  int line);

/**
 * dmamap_pm_runtime_enable_at() - undo one disable of @dev's runtime PM: pm_runtime_enable()
 * @dev: an initialised device
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 *
 * At depth 0 the callbacks may run. An enable of an enabled device is
 * reported ("Unbalanced pm_runtime_enable!") and nothing is done. The
 * enable that turns runtime PM on is remembered for the report of one
 * never undone.
 */
DMAMAP_API void dmamap_pm_runtime_enable_at(struct device *dev, const char *file, int line);

/**
 * dmamap_pm_runtime_disable_at() - disable @dev's runtime PM once more: pm_runtime_disable()
 * @dev: an initialised device
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 *
 * The first disable drops the armed autosuspend and waits for a resume,
 * suspend or idle callback under way in another thread; the status is kept
 * (for the 1 of a resume while disabled).
 */
DMAMAP_API void dmamap_pm_runtime_disable_at(struct device *dev, const char *file, int line);

/**
 * dmamap_devm_pm_runtime_enable_at() - pm_runtime_enable(), undone when the driver unbinds: devm_pm_runtime_enable()
 * @dev: an initialised device
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 *
 * Enables runtime PM and records a managed action (<dmamap/devres.h>) that
 * runs pm_runtime_dont_use_autosuspend() then pm_runtime_disable() when the
 * managed resources are released.
 * Return: 0; -ENOMEM when the action cannot be recorded (runtime PM is
 * disabled again, as devm_add_action_or_reset() does); -EINVAL for a NULL or
 * uninitialised device (reported).
 */
DMAMAP_API int dmamap_devm_pm_runtime_enable_at(struct device *dev, const char *file, int line);

/**
 * dmamap_pm_runtime_set_status_at() - set @dev's status without a callback: pm_runtime_set_active()...
 * @dev: an initialised device
 * @status: RPM_ACTIVE or RPM_SUSPENDED
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 *
 * Allowed while runtime PM is disabled, or after a fatal callback error,
 * which it clears.
 * Return: 0; -EAGAIN when runtime PM is enabled and working (nothing
 * changed, as the kernel's); -EINVAL for another @status; -ENOMEM.
 */
DMAMAP_API int dmamap_pm_runtime_set_status_at(struct device *dev, enum rpm_status status, const char *file, int line);

/**
 * dmamap_pm_runtime_mark_last_busy_at() - make now @dev's last busy time: pm_runtime_mark_last_busy()
 * @dev: an initialised device
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 *
 * An armed autosuspend then waits for its delay from now. Runs nothing.
 */
DMAMAP_API void dmamap_pm_runtime_mark_last_busy_at(struct device *dev, const char *file, int line);

/**
 * dmamap_pm_runtime_use_autosuspend_at() - turn @dev's autosuspend on or off: pm_runtime_use_autosuspend()...
 * @dev: an initialised device
 * @use: on or off
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 *
 * As the kernel's: with a negative delay, turning it on takes a usage count
 * and resumes the device, turning it off gives the count back; otherwise
 * the device is idle-checked (and may be suspended, through its driver's
 * callbacks). The last turn on is remembered for the report of one never
 * undone.
 */
DMAMAP_API void dmamap_pm_runtime_use_autosuspend_at(struct device *dev, bool use, const char *file, int line);

/**
 * dmamap_pm_runtime_set_autosuspend_delay_at() - set @dev's autosuspend delay: pm_runtime_set_autosuspend_delay()
 * @dev: an initialised device
 * @delay: in ms; negative forbids runtime suspend while autosuspend is on
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 *
 * Going negative takes a usage count and resumes the device, leaving it
 * gives the count back, as dmamap_pm_runtime_use_autosuspend_at() says;
 * otherwise the device is idle-checked.
 */
DMAMAP_API void dmamap_pm_runtime_set_autosuspend_delay_at(struct device *dev, int delay, const char *file, int line);

/**
 * dmamap_pm_runtime_allow_at() - allow or forbid runtime PM of @dev: pm_runtime_allow(), pm_runtime_forbid()
 * @dev: an initialised device
 * @allow: true allows (the state at first), false forbids
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 *
 * What user space says through power/control in the kernel: a forbid takes
 * a usage count and resumes the device, an allow gives the count back and
 * idle-checks it; a second one of the same does nothing.
 */
DMAMAP_API void dmamap_pm_runtime_allow_at(struct device *dev, bool allow, const char *file, int line);

/**
 * dmamap_pm_runtime_no_callbacks_at() - never call @dev's runtime PM callbacks: pm_runtime_no_callbacks()
 * @dev: an initialised device
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 *
 * Suspends and resumes then always succeed at once.
 */
DMAMAP_API void dmamap_pm_runtime_no_callbacks_at(struct device *dev, const char *file, int line);

/**
 * dmamap_pm_runtime_irq_safe_at() - @dev's callbacks may run in atomic context: pm_runtime_irq_safe()
 * @dev: an initialised device
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 *
 * The callbacks then run with interrupts off, and the synchronous calls are
 * not checked for sleeping in atomic context. Undone when the driver
 * unbinds, as the kernel's pm_runtime_reinit() does.
 */
DMAMAP_API void dmamap_pm_runtime_irq_safe_at(struct device *dev, const char *file, int line);

/**
 * pm_runtime_active() - whether @dev's status is active, or its runtime PM disabled
 * @dev: the device
 *
 * Return: the kernel's answer; true for a device that never made a runtime
 * PM call (disabled). A status read: it runs no due autosuspend.
 */
DMAMAP_API bool pm_runtime_active(struct device *dev);

/**
 * pm_runtime_suspended() - whether @dev is suspended with runtime PM enabled
 * @dev: the device
 *
 * Return: true when its status is RPM_SUSPENDED and its disable depth 0.
 */
DMAMAP_API bool pm_runtime_suspended(struct device *dev);

/**
 * pm_runtime_status_suspended() - whether @dev's status is RPM_SUSPENDED, enabled or not
 * @dev: the device
 *
 * Return: the answer; true for a device that never made a runtime PM call.
 */
DMAMAP_API bool pm_runtime_status_suspended(struct device *dev);

/**
 * pm_runtime_enabled() - whether @dev's runtime PM is enabled (disable depth 0)
 * @dev: the device
 *
 * Return: the answer; false for a device that never made a runtime PM call.
 */
DMAMAP_API bool pm_runtime_enabled(struct device *dev);

/**
 * pm_runtime_is_irq_safe() - whether pm_runtime_irq_safe() was called for @dev (since its driver bound)
 * @dev: the device
 *
 * Return: the answer.
 */
DMAMAP_API bool pm_runtime_is_irq_safe(struct device *dev);

/**
 * pm_runtime_autosuspend_expiration() - when @dev's autosuspend delay from its last busy time passes
 * @dev: the device
 *
 * Return: that time in ns of the monotonic clock (dmamap_ktime_ns(), as
 * ktime_get_ns() reads it), or 0 when it has passed already, autosuspend is
 * off or the delay is negative.
 */
DMAMAP_API u64 pm_runtime_autosuspend_expiration(struct device *dev);

/**
 * pm_runtime_force_suspend() - suspend @dev for system sleep: DEFINE_RUNTIME_DEV_PM_OPS()'s suspend callback
 * @dev: an initialised device
 *
 * Disables runtime PM; unless the device is suspended already, calls the
 * driver's runtime_suspend (in the calling thread) and sets it suspended.
 * When its usage count is above 1 (the PM core holds one during system
 * sleep: a test that plays system sleep takes it with
 * pm_runtime_get_noresume() first), pm_runtime_force_resume() will resume
 * it; otherwise the device stays suspended until its next runtime resume.
 * Return: 0; the callback's error, with runtime PM enabled again.
 */
DMAMAP_API int pm_runtime_force_suspend(struct device *dev);

/**
 * pm_runtime_force_resume() - undo pm_runtime_force_suspend(): DEFINE_RUNTIME_DEV_PM_OPS()'s resume callback
 * @dev: an initialised device
 *
 * Calls the driver's runtime_resume when the forced suspend said so (and
 * marks the device active and busy; suspended when it fails), then enables
 * runtime PM again.
 * Return: 0, or the callback's error.
 */
DMAMAP_API int pm_runtime_force_resume(struct device *dev);

/* What dmamap_pm_runtime_info() tells of a device: its runtime PM state, as the kernel's dev->power holds it. */
struct dmamap_pm_runtime_info {
	int usage_count;            /* the usage counter */
	unsigned int disable_depth; /* 0: enabled */
	enum rpm_status status;     /* RPM_ACTIVE, RPM_SUSPENDED, or in between while a callback runs */
	int runtime_error;          /* the fatal error of a callback, or 0 */
	bool runtime_auto;          /* allowed (not forbidden) */
	bool no_callbacks;
	bool irq_safe;
	bool use_autosuspend;
	int autosuspend_delay;      /* ms */
	s64 last_busy;              /* ns of dmamap_ktime_ns(); 0 when never marked */
	s64 autosuspend_due;        /* when the armed autosuspend is due (ns); 0 when none is armed */
	unsigned int counts_taken;  /* usage counts taken by the get calls and not given back, each with its line */
};

/**
 * dmamap_pm_runtime_info() - read @dev's runtime PM state, for a test's assertions
 * @dev: an initialised device
 * @info: receives it
 *
 * A status read: it runs nothing. A device that never made a runtime PM
 * call reads as the kernel starts one: count 0, depth 1, suspended, allowed.
 * Return: 0; -EINVAL for a NULL @info or a NULL or uninitialised @dev
 * (reported as DMAMAP_REPORT_BAD_INPUT).
 */
DMAMAP_API int dmamap_pm_runtime_info(struct device *dev, struct dmamap_pm_runtime_info *info);

/**
 * dmamap_pm_runtime_run_timer() - what the kernel's suspend timer of @dev does when it fires, if it is due
 * @dev: an initialised device
 *
 * The armed autosuspend, when its time has come: the device is suspended
 * if it is still idle and its delay from its last busy time has passed
 * (armed again for later otherwise), as every runtime PM call on the device
 * does first. A test calls it after waiting out the delay, to see the
 * suspend without another call of the driver's.
 * Return: 1 when an autosuspend was due (whatever came of it), 0 when none
 * is armed or it is not due yet; -EINVAL for a NULL or uninitialised device
 * (reported).
 */
DMAMAP_API int dmamap_pm_runtime_run_timer(struct device *dev);

/*
 * The calls of <linux/pm_runtime.h> under the kernel's names. Each is a
 * static inline function (its address may be taken) and a macro of the same
 * name that passes the caller's file and line to the _at() function, so
 * that reports name the driver's line.
 */

/** pm_runtime_idle() - an idle check of @dev now: runtime_idle, then a suspend (see dmamap_pm_runtime_idle_at()). */
static inline int pm_runtime_idle(struct device *dev)
{
	return dmamap_pm_runtime_idle_at(dev, 0, NULL, 0);
}

/** pm_request_idle() - the idle check the kernel queues: made at once (see dmamap_pm_runtime_idle_at()). */
static inline int pm_request_idle(struct device *dev)
{
	return dmamap_pm_runtime_idle_at(dev, DMAMAP_RPM_ASYNC, NULL, 0);
}

/** pm_runtime_suspend() - suspend @dev now through its runtime_suspend (see dmamap_pm_runtime_suspend_at()). */
static inline int pm_runtime_suspend(struct device *dev)
{
	return dmamap_pm_runtime_suspend_at(dev, 0, NULL, 0);
}

/** pm_runtime_autosuspend() - mark @dev busy, then suspend it once its autosuspend delay has passed. */
static inline int pm_runtime_autosuspend(struct device *dev)
{
	return dmamap_pm_runtime_suspend_at(dev, DMAMAP_RPM_AUTO | DMAMAP_RPM_MARK_BUSY, NULL, 0);
}

/** pm_request_autosuspend() - the autosuspend the kernel queues: done at once once the delay has passed, else armed. */
static inline int pm_request_autosuspend(struct device *dev)
{
	return dmamap_pm_runtime_suspend_at(dev, DMAMAP_RPM_ASYNC | DMAMAP_RPM_AUTO, NULL, 0);
}

/** pm_runtime_resume() - resume @dev now through its runtime_resume (see dmamap_pm_runtime_resume_at()). */
static inline int pm_runtime_resume(struct device *dev)
{
	return dmamap_pm_runtime_resume_at(dev, 0, NULL, 0);
}

/** pm_request_resume() - the resume the kernel queues: done at once. */
static inline int pm_request_resume(struct device *dev)
{
	return dmamap_pm_runtime_resume_at(dev, DMAMAP_RPM_ASYNC, NULL, 0);
}

/** pm_runtime_get() - take a usage count of @dev and resume it, as the kernel's queued resume would, at once. */
static inline int pm_runtime_get(struct device *dev)
{
	return dmamap_pm_runtime_resume_at(dev, DMAMAP_RPM_GET_PUT | DMAMAP_RPM_ASYNC, NULL, 0);
}

/** pm_runtime_get_sync() - take a usage count of @dev and resume it; the count stays taken on error. */
static inline int pm_runtime_get_sync(struct device *dev)
{
	return dmamap_pm_runtime_resume_at(dev, DMAMAP_RPM_GET_PUT, NULL, 0);
}

/** pm_runtime_resume_and_get() - resume @dev and take a usage count, none on error. */
static inline int pm_runtime_resume_and_get(struct device *dev)
{
	return dmamap_pm_runtime_resume_and_get_at(dev, NULL, 0);
}

/** pm_runtime_get_noresume() - take a usage count of @dev, nothing else. */
static inline void pm_runtime_get_noresume(struct device *dev)
{
	dmamap_pm_runtime_get_noresume_at(dev, NULL, 0);
}

/** pm_runtime_get_if_in_use() - take a count of @dev if active and one is taken: 1, 0, -EINVAL while disabled. */
static inline int pm_runtime_get_if_in_use(struct device *dev)
{
	return dmamap_pm_runtime_get_if_active_at(dev, false, NULL, 0);
}

/** pm_runtime_get_if_active() - take a count of @dev if active (6.9's form): 1, 0, -EINVAL while disabled. */
static inline int pm_runtime_get_if_active(struct device *dev)
{
	return dmamap_pm_runtime_get_if_active_at(dev, true, NULL, 0);
}

/** pm_runtime_put() - drop a usage count of @dev; at 0, the idle check the kernel queues, made at once. */
static inline int pm_runtime_put(struct device *dev)
{
	return dmamap_pm_runtime_idle_at(dev, DMAMAP_RPM_GET_PUT | DMAMAP_RPM_ASYNC, NULL, 0);
}

/** pm_runtime_put_sync() - drop a usage count of @dev; at 0, an idle check now. */
static inline int pm_runtime_put_sync(struct device *dev)
{
	return dmamap_pm_runtime_idle_at(dev, DMAMAP_RPM_GET_PUT, NULL, 0);
}

/** pm_runtime_put_sync_suspend() - drop a usage count of @dev; at 0, suspend it now. */
static inline int pm_runtime_put_sync_suspend(struct device *dev)
{
	return dmamap_pm_runtime_suspend_at(dev, DMAMAP_RPM_GET_PUT, NULL, 0);
}

/** pm_runtime_put_autosuspend() - drop a usage count of @dev and mark it busy; at 0, the queued autosuspend. */
static inline int pm_runtime_put_autosuspend(struct device *dev)
{
	return dmamap_pm_runtime_suspend_at(dev, DMAMAP_RPM_GET_PUT | DMAMAP_RPM_ASYNC | DMAMAP_RPM_AUTO |
						 DMAMAP_RPM_MARK_BUSY, NULL, 0);
}

/** __pm_runtime_put_autosuspend() - pm_runtime_put_autosuspend() without marking @dev busy. */
static inline int __pm_runtime_put_autosuspend(struct device *dev)
{
	return dmamap_pm_runtime_suspend_at(dev, DMAMAP_RPM_GET_PUT | DMAMAP_RPM_ASYNC | DMAMAP_RPM_AUTO, NULL, 0);
}

/** pm_runtime_put_sync_autosuspend() - drop a usage count of @dev and mark it busy; at 0, an autosuspend now. */
static inline int pm_runtime_put_sync_autosuspend(struct device *dev)
{
	return dmamap_pm_runtime_suspend_at(dev, DMAMAP_RPM_GET_PUT | DMAMAP_RPM_AUTO | DMAMAP_RPM_MARK_BUSY, NULL, 0);
}

/** pm_runtime_put_noidle() - drop a usage count of @dev, nothing else. */
static inline void pm_runtime_put_noidle(struct device *dev)
{
	dmamap_pm_runtime_put_noidle_at(dev, NULL, 0);
}

/** pm_runtime_enable() - undo one disable of @dev's runtime PM (see dmamap_pm_runtime_enable_at()). */
static inline void pm_runtime_enable(struct device *dev)
{
	dmamap_pm_runtime_enable_at(dev, NULL, 0);
}

/** pm_runtime_disable() - disable @dev's runtime PM once more (see dmamap_pm_runtime_disable_at()). */
static inline void pm_runtime_disable(struct device *dev)
{
	dmamap_pm_runtime_disable_at(dev, NULL, 0);
}

/** devm_pm_runtime_enable() - pm_runtime_enable(), undone at unbind (see dmamap_devm_pm_runtime_enable_at()). */
static inline int devm_pm_runtime_enable(struct device *dev)
{
	return dmamap_devm_pm_runtime_enable_at(dev, NULL, 0);
}

/** pm_runtime_set_active() - make @dev's status active without a callback, while disabled: 0 or -EAGAIN. */
static inline int pm_runtime_set_active(struct device *dev)
{
	return dmamap_pm_runtime_set_status_at(dev, RPM_ACTIVE, NULL, 0);
}

/** pm_runtime_set_suspended() - make @dev's status suspended without a callback, while disabled: 0 or -EAGAIN. */
static inline int pm_runtime_set_suspended(struct device *dev)
{
	return dmamap_pm_runtime_set_status_at(dev, RPM_SUSPENDED, NULL, 0);
}

/** pm_runtime_mark_last_busy() - make now @dev's last busy time, for its autosuspend delay. */
static inline void pm_runtime_mark_last_busy(struct device *dev)
{
	dmamap_pm_runtime_mark_last_busy_at(dev, NULL, 0);
}

/** pm_runtime_use_autosuspend() - turn @dev's autosuspend on (see dmamap_pm_runtime_use_autosuspend_at()). */
static inline void pm_runtime_use_autosuspend(struct device *dev)
{
	dmamap_pm_runtime_use_autosuspend_at(dev, true, NULL, 0);
}

/** pm_runtime_dont_use_autosuspend() - turn @dev's autosuspend off (see dmamap_pm_runtime_use_autosuspend_at()). */
static inline void pm_runtime_dont_use_autosuspend(struct device *dev)
{
	dmamap_pm_runtime_use_autosuspend_at(dev, false, NULL, 0);
}

/** pm_runtime_set_autosuspend_delay() - set @dev's autosuspend delay, in ms. */
static inline void pm_runtime_set_autosuspend_delay(struct device *dev, int delay)
{
	dmamap_pm_runtime_set_autosuspend_delay_at(dev, delay, NULL, 0);
}

/** pm_runtime_allow() - allow runtime PM of @dev again: give back pm_runtime_forbid()'s usage count. */
static inline void pm_runtime_allow(struct device *dev)
{
	dmamap_pm_runtime_allow_at(dev, true, NULL, 0);
}

/** pm_runtime_forbid() - forbid runtime PM of @dev: take a usage count and resume it. */
static inline void pm_runtime_forbid(struct device *dev)
{
	dmamap_pm_runtime_allow_at(dev, false, NULL, 0);
}

/** pm_runtime_no_callbacks() - never call @dev's runtime PM callbacks. */
static inline void pm_runtime_no_callbacks(struct device *dev)
{
	dmamap_pm_runtime_no_callbacks_at(dev, NULL, 0);
}

/** pm_runtime_irq_safe() - run @dev's callbacks with interrupts off; its sync calls allowed in atomic context. */
static inline void pm_runtime_irq_safe(struct device *dev)
{
	dmamap_pm_runtime_irq_safe_at(dev, NULL, 0);
}

#define pm_runtime_idle(dev) dmamap_pm_runtime_idle_at((dev), 0, __FILE__, __LINE__)
#define pm_request_idle(dev) dmamap_pm_runtime_idle_at((dev), DMAMAP_RPM_ASYNC, __FILE__, __LINE__)
#define pm_runtime_suspend(dev) dmamap_pm_runtime_suspend_at((dev), 0, __FILE__, __LINE__)
#define pm_runtime_autosuspend(dev) \
	dmamap_pm_runtime_suspend_at((dev), DMAMAP_RPM_AUTO | DMAMAP_RPM_MARK_BUSY, __FILE__, __LINE__)
#define pm_request_autosuspend(dev) \
	dmamap_pm_runtime_suspend_at((dev), DMAMAP_RPM_ASYNC | DMAMAP_RPM_AUTO, __FILE__, __LINE__)
#define pm_runtime_resume(dev) dmamap_pm_runtime_resume_at((dev), 0, __FILE__, __LINE__)
#define pm_request_resume(dev) dmamap_pm_runtime_resume_at((dev), DMAMAP_RPM_ASYNC, __FILE__, __LINE__)
#define pm_runtime_get(dev) \
	dmamap_pm_runtime_resume_at((dev), DMAMAP_RPM_GET_PUT | DMAMAP_RPM_ASYNC, __FILE__, __LINE__)
#define pm_runtime_get_sync(dev) dmamap_pm_runtime_resume_at((dev), DMAMAP_RPM_GET_PUT, __FILE__, __LINE__)
#define pm_runtime_resume_and_get(dev) dmamap_pm_runtime_resume_and_get_at((dev), __FILE__, __LINE__)
#define pm_runtime_get_noresume(dev) dmamap_pm_runtime_get_noresume_at((dev), __FILE__, __LINE__)
#define pm_runtime_get_if_in_use(dev) dmamap_pm_runtime_get_if_active_at((dev), false, __FILE__, __LINE__)
/*
 * pm_runtime_get_if_active(dev) of Linux 6.9 and later, and
 * pm_runtime_get_if_active(dev, ign_usage_count) before: the second takes
 * a count only when one is taken already unless @ign_usage_count.
 */
#define DMAMAP_PM_GIA_PICK_(_1, _2, name, ...) name
#define DMAMAP_PM_GIA_1_(dev) dmamap_pm_runtime_get_if_active_at((dev), true, __FILE__, __LINE__)
#define DMAMAP_PM_GIA_2_(dev, ign) dmamap_pm_runtime_get_if_active_at((dev), (ign), __FILE__, __LINE__)
#define pm_runtime_get_if_active(...) \
	DMAMAP_PM_GIA_PICK_(__VA_ARGS__, DMAMAP_PM_GIA_2_, DMAMAP_PM_GIA_1_, ~)(__VA_ARGS__)
#define pm_runtime_put(dev) \
	dmamap_pm_runtime_idle_at((dev), DMAMAP_RPM_GET_PUT | DMAMAP_RPM_ASYNC, __FILE__, __LINE__)
#define pm_runtime_put_sync(dev) dmamap_pm_runtime_idle_at((dev), DMAMAP_RPM_GET_PUT, __FILE__, __LINE__)
#define pm_runtime_put_sync_suspend(dev) dmamap_pm_runtime_suspend_at((dev), DMAMAP_RPM_GET_PUT, __FILE__, __LINE__)
#define pm_runtime_put_autosuspend(dev)                                                                        \
	dmamap_pm_runtime_suspend_at((dev), DMAMAP_RPM_GET_PUT | DMAMAP_RPM_ASYNC | DMAMAP_RPM_AUTO |          \
					    DMAMAP_RPM_MARK_BUSY, __FILE__, __LINE__)
#define __pm_runtime_put_autosuspend(dev) \
	dmamap_pm_runtime_suspend_at((dev), DMAMAP_RPM_GET_PUT | DMAMAP_RPM_ASYNC | DMAMAP_RPM_AUTO, __FILE__, __LINE__)
#define pm_runtime_put_sync_autosuspend(dev)                                                               \
	dmamap_pm_runtime_suspend_at((dev), DMAMAP_RPM_GET_PUT | DMAMAP_RPM_AUTO | DMAMAP_RPM_MARK_BUSY, __FILE__, \
				     __LINE__)
#define pm_runtime_put_noidle(dev) dmamap_pm_runtime_put_noidle_at((dev), __FILE__, __LINE__)
#define pm_runtime_enable(dev) dmamap_pm_runtime_enable_at((dev), __FILE__, __LINE__)
#define pm_runtime_disable(dev) dmamap_pm_runtime_disable_at((dev), __FILE__, __LINE__)
#define devm_pm_runtime_enable(dev) dmamap_devm_pm_runtime_enable_at((dev), __FILE__, __LINE__)
#define pm_runtime_set_active(dev) dmamap_pm_runtime_set_status_at((dev), RPM_ACTIVE, __FILE__, __LINE__)
#define pm_runtime_set_suspended(dev) dmamap_pm_runtime_set_status_at((dev), RPM_SUSPENDED, __FILE__, __LINE__)
#define pm_runtime_mark_last_busy(dev) dmamap_pm_runtime_mark_last_busy_at((dev), __FILE__, __LINE__)
#define pm_runtime_use_autosuspend(dev) dmamap_pm_runtime_use_autosuspend_at((dev), true, __FILE__, __LINE__)
#define pm_runtime_dont_use_autosuspend(dev) dmamap_pm_runtime_use_autosuspend_at((dev), false, __FILE__, __LINE__)
#define pm_runtime_set_autosuspend_delay(dev, delay) \
	dmamap_pm_runtime_set_autosuspend_delay_at((dev), (delay), __FILE__, __LINE__)
#define pm_runtime_allow(dev) dmamap_pm_runtime_allow_at((dev), true, __FILE__, __LINE__)
#define pm_runtime_forbid(dev) dmamap_pm_runtime_allow_at((dev), false, __FILE__, __LINE__)
#define pm_runtime_no_callbacks(dev) dmamap_pm_runtime_no_callbacks_at((dev), __FILE__, __LINE__)
#define pm_runtime_irq_safe(dev) dmamap_pm_runtime_irq_safe_at((dev), __FILE__, __LINE__)

DMAMAP_END_DECLS

#endif /* DMAMAP_PM_H */
