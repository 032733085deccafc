/* SPDX-License-Identifier: MIT */
/*
 * <linux/pm.h> of Linux 6.x over libdmamap (<dmamap/pm.h>): struct
 * dev_pm_ops with the kernel's fields, enum rpm_status, and what a driver
 * fills its ops with: SYSTEM_SLEEP_PM_OPS(), LATE_SYSTEM_SLEEP_PM_OPS(),
 * NOIRQ_SYSTEM_SLEEP_PM_OPS() and RUNTIME_PM_OPS() (the callbacks always
 * referenced: no #ifdef CONFIG_PM around them), their SET_ forms of older
 * drivers, DEFINE_SIMPLE_DEV_PM_OPS(), SIMPLE_DEV_PM_OPS(),
 * UNIVERSAL_DEV_PM_OPS(), pm_ptr() and pm_sleep_ptr(). A driver points its
 * struct device_driver's .pm at them: .pm = pm_ptr(&foo_pm_ops).
 *
 * The library has runtime PM (<linux/pm_runtime.h>): CONFIG_PM and
 * CONFIG_PM_SLEEP are on (defined to 1) unless the file defines them first;
 * defined to 0, the SET_ forms are empty and pm_ptr() (pm_sleep_ptr()) is
 * NULL, as in a kernel built without them. Where it differs from the
 * kernel: there is no system sleep, so the PM core never calls the system
 * sleep callbacks (prepare, suspend, resume, freeze...): a test that plays
 * system sleep calls them itself through dev->driver->pm; no struct
 * dev_pm_info (dev->power): the runtime PM state is read with the calls of
 * <linux/pm_runtime.h>, and by a test with dmamap_pm_runtime_info().
 */
#ifndef _LINUX_PM_H
#define _LINUX_PM_H

#include <dmamap/linux-api.h>
#include <linux/types.h>
#include <dmamap/pm.h>

#ifndef CONFIG_PM
#define CONFIG_PM 1
#endif
#ifndef CONFIG_PM_SLEEP
#define CONFIG_PM_SLEEP 1
#endif

/*
 * pm_ptr() - @_ptr, or NULL without CONFIG_PM; pm_sleep_ptr() - the same
 * for CONFIG_PM_SLEEP. The object stays referenced either way, so that a
 * callback a kernel without it never calls draws no unused warning.
 */
#define pm_ptr(_ptr) (IS_ENABLED(CONFIG_PM) ? (_ptr) : NULL)
#define pm_sleep_ptr(_ptr) (IS_ENABLED(CONFIG_PM_SLEEP) ? (_ptr) : NULL)

/* The system sleep callbacks: one for every way down (suspend, freeze, poweroff), one for every way up. */
#define SYSTEM_SLEEP_PM_OPS(suspend_fn, resume_fn)                                                      \
	.suspend = pm_sleep_ptr(suspend_fn), .resume = pm_sleep_ptr(resume_fn),                          \
	.freeze = pm_sleep_ptr(suspend_fn), .thaw = pm_sleep_ptr(resume_fn),                             \
	.poweroff = pm_sleep_ptr(suspend_fn), .restore = pm_sleep_ptr(resume_fn),
#define LATE_SYSTEM_SLEEP_PM_OPS(suspend_fn, resume_fn)                                                 \
	.suspend_late = pm_sleep_ptr(suspend_fn), .resume_early = pm_sleep_ptr(resume_fn),               \
	.freeze_late = pm_sleep_ptr(suspend_fn), .thaw_early = pm_sleep_ptr(resume_fn),                  \
	.poweroff_late = pm_sleep_ptr(suspend_fn), .restore_early = pm_sleep_ptr(resume_fn),
#define NOIRQ_SYSTEM_SLEEP_PM_OPS(suspend_fn, resume_fn)                                                \
	.suspend_noirq = pm_sleep_ptr(suspend_fn), .resume_noirq = pm_sleep_ptr(resume_fn),              \
	.freeze_noirq = pm_sleep_ptr(suspend_fn), .thaw_noirq = pm_sleep_ptr(resume_fn),                 \
	.poweroff_noirq = pm_sleep_ptr(suspend_fn), .restore_noirq = pm_sleep_ptr(resume_fn),
/* The runtime PM callbacks (any may be NULL: it acts as one that returns 0). */
#define RUNTIME_PM_OPS(suspend_fn, resume_fn, idle_fn) \
	.runtime_suspend = suspend_fn, .runtime_resume = resume_fn, .runtime_idle = idle_fn,

#if IS_ENABLED(CONFIG_PM_SLEEP)
#define SET_SYSTEM_SLEEP_PM_OPS(suspend_fn, resume_fn) SYSTEM_SLEEP_PM_OPS(suspend_fn, resume_fn)
#define SET_LATE_SYSTEM_SLEEP_PM_OPS(suspend_fn, resume_fn) LATE_SYSTEM_SLEEP_PM_OPS(suspend_fn, resume_fn)
#define SET_NOIRQ_SYSTEM_SLEEP_PM_OPS(suspend_fn, resume_fn) NOIRQ_SYSTEM_SLEEP_PM_OPS(suspend_fn, resume_fn)
#else
#define SET_SYSTEM_SLEEP_PM_OPS(suspend_fn, resume_fn)
#define SET_LATE_SYSTEM_SLEEP_PM_OPS(suspend_fn, resume_fn)
#define SET_NOIRQ_SYSTEM_SLEEP_PM_OPS(suspend_fn, resume_fn)
#endif
#if IS_ENABLED(CONFIG_PM)
#define SET_RUNTIME_PM_OPS(suspend_fn, resume_fn, idle_fn) RUNTIME_PM_OPS(suspend_fn, resume_fn, idle_fn)
#else
#define SET_RUNTIME_PM_OPS(suspend_fn, resume_fn, idle_fn)
#endif

#ifndef __cplusplus
/* _DEFINE_DEV_PM_OPS() - a const struct dev_pm_ops @name of system sleep and runtime PM callbacks. */
#define _DEFINE_DEV_PM_OPS(name, suspend_fn, resume_fn, runtime_suspend_fn, runtime_resume_fn, idle_fn) \
	const struct dev_pm_ops name = { SYSTEM_SLEEP_PM_OPS(suspend_fn, resume_fn)                      \
						 RUNTIME_PM_OPS(runtime_suspend_fn, runtime_resume_fn, idle_fn) }
/* SIMPLE_DEV_PM_OPS(), UNIVERSAL_DEV_PM_OPS() - the forms before DEFINE_SIMPLE_DEV_PM_OPS(), still in use. */
#define SIMPLE_DEV_PM_OPS(name, suspend_fn, resume_fn) \
	const struct dev_pm_ops __maybe_unused name = { SET_SYSTEM_SLEEP_PM_OPS(suspend_fn, resume_fn) }
#define UNIVERSAL_DEV_PM_OPS(name, suspend_fn, resume_fn, idle_fn)                \
	const struct dev_pm_ops __maybe_unused name = {                           \
		SET_SYSTEM_SLEEP_PM_OPS(suspend_fn, resume_fn)                    \
		SET_RUNTIME_PM_OPS(suspend_fn, resume_fn, idle_fn)                \
	}
#else
/*
 * The same in C++, every field given in order (a designated initializer
 * that leaves fields out draws -Wextra's warning there).
 */
#define DMAMAP_PM_OPS_ALL_(sus, res, rsus, rres, ridle)                                                  \
	{ NULL, NULL, sus, res, sus, res, sus, res, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, \
	  NULL, NULL, rsus, rres, ridle }
#if IS_ENABLED(CONFIG_PM_SLEEP)
#define DMAMAP_PM_SLEEP_(fn) fn
#else
#define DMAMAP_PM_SLEEP_(fn) NULL
#endif
#if IS_ENABLED(CONFIG_PM)
#define DMAMAP_PM_RUNTIME_(fn) fn
#else
#define DMAMAP_PM_RUNTIME_(fn) NULL
#endif
#define _DEFINE_DEV_PM_OPS(name, suspend_fn, resume_fn, runtime_suspend_fn, runtime_resume_fn, idle_fn)         \
	const struct dev_pm_ops name = DMAMAP_PM_OPS_ALL_(DMAMAP_PM_SLEEP_(suspend_fn), DMAMAP_PM_SLEEP_(resume_fn), \
							  runtime_suspend_fn, runtime_resume_fn, idle_fn)
#define SIMPLE_DEV_PM_OPS(name, suspend_fn, resume_fn)                                                 \
	const struct dev_pm_ops __maybe_unused name =                                                  \
		DMAMAP_PM_OPS_ALL_(DMAMAP_PM_SLEEP_(suspend_fn), DMAMAP_PM_SLEEP_(resume_fn), NULL, NULL, NULL)
#define UNIVERSAL_DEV_PM_OPS(name, suspend_fn, resume_fn, idle_fn)                                 \
	const struct dev_pm_ops __maybe_unused name =                                              \
		DMAMAP_PM_OPS_ALL_(DMAMAP_PM_SLEEP_(suspend_fn), DMAMAP_PM_SLEEP_(resume_fn),       \
				   DMAMAP_PM_RUNTIME_(suspend_fn), DMAMAP_PM_RUNTIME_(resume_fn),    \
				   DMAMAP_PM_RUNTIME_(idle_fn))
#endif
/* DEFINE_SIMPLE_DEV_PM_OPS() - ops @name of the system sleep callbacks alone: static DEFINE_SIMPLE_DEV_PM_OPS(...); */
#define DEFINE_SIMPLE_DEV_PM_OPS(name, suspend_fn, resume_fn) \
	_DEFINE_DEV_PM_OPS(name, suspend_fn, resume_fn, NULL, NULL, NULL)

#endif /* _LINUX_PM_H */
