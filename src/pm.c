/* SPDX-License-Identifier: MIT */
/*
 * Runtime PM of devices (<dmamap/pm.h>): per device, one state made at its
 * first runtime PM call and hung from dev->dmamap.pm, guarded by a host
 * mutex of its own. The operations below (idle, suspend, resume) are called
 * with that mutex held and let it go around each driver callback, the status
 * saying meanwhile that a resume or a suspend is under way; threads that
 * must wait for one wait on the state's condition. What the kernel would
 * queue for its PM workqueue is done by the calling thread at once, its
 * callbacks run as a task of their own (dm_run_as_task()). Reports are made
 * with the mutex let go.
 */
#include <stdio.h>

#include "internal.h"

/* The library's flag: the callbacks run as a task of their own, as the kernel's PM worker runs them. */
#define DM_RPM_TASK 0x200

/* Where a call of the driver's was made. */
struct pm_site {
	const char *what;
	const char *file;
	int line;
};

/* Work a queued form found a resume under way for: the thread that ends the resume does it. */
enum pm_req { REQ_NONE, REQ_SUSPEND, REQ_AUTOSUSPEND };

struct dm_pm {
	pthread_mutex_t lock;
	pthread_cond_t settled;          /* broadcast when a resume, suspend or idle callback ends */
	int usage;
	unsigned int depth;              /* disables not undone; 1 at first */
	enum rpm_status status;
	enum rpm_status last_status;     /* the status when runtime PM was last disabled */
	int error;                       /* a callback's fatal error */
	int delay;                       /* autosuspend delay, ms */
	bool use_auto, runtime_auto, no_callbacks, irq_safe;
	bool in_idle;                    /* a runtime_idle callback runs, in thread idler */
	bool deferred_resume;            /* resume once the suspend under way is over */
	bool needs_force_resume;
	enum pm_req request;
	s64 last_busy;
	s64 timer;                       /* when the armed autosuspend is due, 0: none */
	pthread_t busy;                  /* the thread of the resume or suspend under way */
	pthread_t idler;
	/* what the driver did, for the reports when it unbinds */
	struct pm_site enabled;          /* the enable that turned runtime PM on */
	struct pm_site disabled[2];      /* the latest disable, and the one before */
	struct pm_site autosuspend;      /* the pm_runtime_use_autosuspend() in force */
	struct pm_site devm;             /* the devm_pm_runtime_enable() whose action is pending */
	struct pm_site *takes;           /* usage counts taken by get calls and not given back, oldest first */
	size_t ntakes, cap;
	unsigned long untracked;         /* such counts whose record could not be had */
};

/* One call on a device: the context the operations report in. */
struct pm_call {
	struct device *dev;
	struct dm_pm *p;
	const char *what;
	const char *file;
	int line;
};

static const char *drv_name(const struct device *dev)
{
	return dev->driver && dev->driver->name ? dev->driver->name : "(none)";
}

static struct dm_pm *pm_peek(struct device *dev)
{
	return __atomic_load_n((struct dm_pm **)&dev->dmamap.pm, __ATOMIC_ACQUIRE);
}

/* @dev's state, made now if it has none (NULL when memory lacks). */
static struct dm_pm *pm_get(struct device *dev)
{
	struct dm_pm *p = pm_peek(dev), *expected = NULL;

	if (p)
		return p;
	p = dmamap_zalloc(dm_dev_machine(dev), sizeof(*p));
	if (!p)
		return NULL;
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->settled, NULL);
	p->depth = 1;
	p->status = RPM_SUSPENDED;
	p->last_status = RPM_INVALID;
	p->runtime_auto = true;
	if (!__atomic_compare_exchange_n((struct dm_pm **)&dev->dmamap.pm, &expected, p, false, __ATOMIC_ACQ_REL,
					 __ATOMIC_ACQUIRE)) {
		/* another thread made it first */
		pthread_cond_destroy(&p->settled);
		pthread_mutex_destroy(&p->lock);
		dmamap_free(p);
		p = expected;
	}
	return p;
}

/* Report on @c's device at @c's line with @c->p's mutex let go for the while. */
static void DMAMAP_PRINTF(3, 4) pm_report(struct pm_call *c, enum dmamap_report_kind kind, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	pthread_mutex_unlock(&c->p->lock);
	dmamap_dev_report(c->dev, kind, c->file, c->line, "%s", msg);
	pthread_mutex_lock(&c->p->lock);
}

static const struct dev_pm_ops *ops_of(const struct device *dev)
{
	return dev->driver ? dev->driver->pm : NULL;
}

static bool in_transition(const struct dm_pm *p)
{
	return p->status == RPM_RESUMING || p->status == RPM_SUSPENDING;
}

/* Whether the calling thread runs the resume or suspend callback under way (or the idle one, @idle). */
static bool own_callback(const struct dm_pm *p, bool idle)
{
	pthread_t self = pthread_self();

	if (in_transition(p) && pthread_equal(p->busy, self))
		return true;
	return idle && p->in_idle && pthread_equal(p->idler, self);
}

/*
 * Wait until no resume or suspend (and, with @idle, no idle callback) is
 * under way. One this thread runs cannot be waited for: reported, and false.
 */
static bool wait_settled(struct pm_call *c, bool idle)
{
	struct dm_pm *p = c->p;

	if (own_callback(p, idle)) {
		pm_report(c, DMAMAP_REPORT_API_MISUSE,
			  "%s: called from the device's own runtime PM callback, it would wait for that callback to "
			  "end: the kernel deadlocks here; returns at once", c->what);
		return false;
	}
	while (in_transition(p) || (idle && p->in_idle))
		pthread_cond_wait(&p->settled, &p->lock);
	return true;
}

struct cb_call {
	int (*fn)(struct device *dev);
	struct device *dev;
	bool irqs_off;
	int ret;
};

static void cb_run(void *arg)
{
	struct cb_call *cb = arg;
	unsigned long flags = 0;

	if (cb->irqs_off)
		flags = dmamap_local_irq_save_at("the runtime PM of an irq-safe device", NULL, 0);
	cb->ret = cb->fn(cb->dev);
	if (cb->irqs_off)
		dmamap_local_irq_restore(flags);
}

/*
 * Call the driver's @name callback @fn of @c's device with the mutex let
 * go: as a task of its own with DM_RPM_TASK in @flags, else in the caller's
 * context. The driver's code: no call context of the library's around it.
 */
static int callback(struct pm_call *c, int (*fn)(struct device *dev), const char *name, int flags)
{
	struct cb_call cb = { fn, c->dev, c->p->irq_safe, 0 };
	int call_depth = dmamap_call_now.depth;
	char left[600];

	pthread_mutex_unlock(&c->p->lock);
	dmamap_call_now.depth = 0;
	if (flags & DM_RPM_TASK) {
		dm_run_as_task(cb_run, &cb, left, sizeof(left));
	} else {
		struct dm_held_mark held;

		dm_held_mark(&held);
		cb_run(&cb);
		dm_held_since(&held, left, sizeof(left));
	}
	dmamap_call_now.depth = call_depth;
	if (left[0])
		dmamap_dev_report(c->dev, DMAMAP_REPORT_LOCK_MISUSE, NULL, 0,
				  "%s callback of driver %s returned with %s", name, drv_name(c->dev), left);
	pthread_mutex_lock(&c->p->lock);
	return cb.ret;
}

/* When the autosuspend delay from the last busy time passes, or 0 when it has (or autosuspend is off). */
static s64 expiration(const struct dm_pm *p, s64 now)
{
	s64 at;

	if (!p->use_auto || p->delay < 0)
		return 0;
	at = p->last_busy + (s64)p->delay * 1000000;
	return at > now ? at : 0;
}

static void cancel_pending(struct dm_pm *p)
{
	p->timer = 0;
	p->request = REQ_NONE;
}

/* Whether a suspend may start: 0, 1 (suspended already), or the kernel's error. */
static int suspend_allowed(const struct dm_pm *p)
{
	if (p->error)
		return -EINVAL;
	if (p->depth)
		return -EACCES;
	if (p->usage)
		return -EAGAIN;
	if (p->deferred_resume && p->status == RPM_SUSPENDING)
		return -EAGAIN;
	return p->status == RPM_SUSPENDED;
}

static int rpm_resume(struct pm_call *c, int flags);
static int rpm_idle(struct pm_call *c, int flags);

static int rpm_suspend(struct pm_call *c, int flags)
{
	struct dm_pm *p = c->p;
	const struct dev_pm_ops *ops;
	int ret;

	if (flags & DMAMAP_RPM_ASYNC)
		flags |= DM_RPM_TASK;
repeat:
	ret = suspend_allowed(p);
	if (ret < 0)
		return ret;
	if (p->status == RPM_RESUMING && !(flags & DMAMAP_RPM_ASYNC))
		return -EAGAIN;
	if (ret)
		return ret;
	if ((flags & DMAMAP_RPM_AUTO) && p->status != RPM_SUSPENDING) {
		s64 due = expiration(p, dmamap_ktime_ns());

		if (due) {
			p->request = REQ_NONE;
			if (!p->timer || p->timer > due)
				p->timer = due;
			return 0;
		}
	}
	cancel_pending(p);
	if (p->status == RPM_SUSPENDING) {
		if (flags & (DMAMAP_RPM_ASYNC | DMAMAP_RPM_NOWAIT))
			return -EINPROGRESS;
		if (!wait_settled(c, false))
			return -EINPROGRESS;
		goto repeat;
	}
	if (p->status == RPM_RESUMING) {
		/* a queued suspend while another thread resumes: that thread does it once it is done */
		p->request = (flags & DMAMAP_RPM_AUTO) ? REQ_AUTOSUSPEND : REQ_SUSPEND;
		return 0;
	}
	p->deferred_resume = false;
	ops = ops_of(c->dev);
	if (!p->no_callbacks && ops && ops->runtime_suspend) {
		p->status = RPM_SUSPENDING;
		p->busy = pthread_self();
		ret = callback(c, ops->runtime_suspend, "runtime_suspend", flags);
		if (ret) {
			if (ret == -EACCES)
				ret = -EAGAIN;
			p->status = RPM_ACTIVE;
			p->deferred_resume = false;
			pthread_cond_broadcast(&p->settled);
			if (ret == -EAGAIN || ret == -EBUSY) {
				p->error = 0;
				/* an autosuspend refused while the device was marked busy meanwhile: armed again */
				if ((flags & DMAMAP_RPM_AUTO) && expiration(p, dmamap_ktime_ns()))
					goto repeat;
			} else {
				p->error = ret;
				cancel_pending(p);
			}
			return (flags & DMAMAP_RPM_ASYNC) ? 0 : ret;
		}
	}
	p->status = RPM_SUSPENDED;
	p->timer = 0;
	pthread_cond_broadcast(&p->settled);
	if (p->deferred_resume) {
		p->deferred_resume = false;
		(void)rpm_resume(c, flags & DM_RPM_TASK);
		return (flags & DMAMAP_RPM_ASYNC) ? 0 : -EAGAIN;
	}
	return 0;
}

static int rpm_resume(struct pm_call *c, int flags)
{
	struct dm_pm *p = c->p;
	const struct dev_pm_ops *ops;
	int ret;

	if (flags & DMAMAP_RPM_ASYNC)
		flags |= DM_RPM_TASK;
repeat:
	if (p->error)
		return -EINVAL;
	if (p->depth)
		return p->status == RPM_ACTIVE && p->last_status == RPM_ACTIVE ? 1 : -EACCES;
	/* what was asked for goes; an armed autosuspend stays armed */
	p->request = REQ_NONE;
	if (p->status == RPM_ACTIVE)
		return 1;
	if (in_transition(p)) {
		if (flags & (DMAMAP_RPM_ASYNC | DMAMAP_RPM_NOWAIT)) {
			if (p->status == RPM_SUSPENDING) {
				/* the suspending thread resumes it once its suspend is over */
				p->deferred_resume = true;
				return 0;
			}
			return -EINPROGRESS;
		}
		if (!wait_settled(c, false))
			return -EINPROGRESS;
		goto repeat;
	}
	ops = ops_of(c->dev);
	if (!p->no_callbacks && ops && ops->runtime_resume) {
		p->status = RPM_RESUMING;
		p->busy = pthread_self();
		ret = callback(c, ops->runtime_resume, "runtime_resume", flags);
		if (ret) {
			if (ret == -EACCES)
				ret = -EAGAIN;
			if (ret != -EAGAIN && ret != -EBUSY)
				p->error = ret;
			p->status = RPM_SUSPENDED;
			cancel_pending(p);
			pthread_cond_broadcast(&p->settled);
			return (flags & DMAMAP_RPM_ASYNC) ? 0 : ret;
		}
	}
	p->status = RPM_ACTIVE;
	p->last_busy = dmamap_ktime_ns();
	pthread_cond_broadcast(&p->settled);
	/* a suspend asked for meanwhile, else the idle check the kernel queues after a resume */
	if (p->request != REQ_NONE) {
		int auto_flag = p->request == REQ_AUTOSUSPEND ? DMAMAP_RPM_AUTO : 0;

		p->request = REQ_NONE;
		(void)rpm_suspend(c, DMAMAP_RPM_NOWAIT | DM_RPM_TASK | auto_flag);
	} else {
		(void)rpm_idle(c, DMAMAP_RPM_ASYNC);
	}
	return 0;
}

static int rpm_idle(struct pm_call *c, int flags)
{
	struct dm_pm *p = c->p;
	const struct dev_pm_ops *ops;
	int ret;

	if (flags & DMAMAP_RPM_ASYNC)
		flags |= DM_RPM_TASK;
	ret = suspend_allowed(c->p);
	if (ret < 0)
		return ret;
	if (p->status != RPM_ACTIVE || p->request != REQ_NONE)
		return -EAGAIN;
	if (p->in_idle)
		return -EINPROGRESS;
	ops = ops_of(c->dev);
	if (!p->no_callbacks && ops && ops->runtime_idle) {
		p->in_idle = true;
		p->idler = pthread_self();
		ret = callback(c, ops->runtime_idle, "runtime_idle", flags);
		p->in_idle = false;
		pthread_cond_broadcast(&p->settled);
		/* non-zero: the driver wants no suspend (the queued form said 0 already) */
		if (ret)
			return (flags & DMAMAP_RPM_ASYNC) ? 0 : ret;
		ret = rpm_suspend(c, flags | DMAMAP_RPM_AUTO);
		return (flags & DMAMAP_RPM_ASYNC) ? 0 : ret;
	}
	return rpm_suspend(c, flags | DMAMAP_RPM_AUTO);
}

/* ---------------------------------------------------------- entering a call */

/*
 * The state of @dev for the call @what at @file:@line, locked, after the
 * armed autosuspend ran if it is due: true; false after a report (a NULL or
 * uninitialised device: *@err = -EINVAL) or when the state cannot be had
 * (*@err = -ENOMEM).
 */
static bool enter(struct pm_call *c, struct device *dev, const char *what, const char *file, int line, int *err)
{
	struct dm_pm *p;

	c->dev = dev;
	c->what = what;
	c->file = file;
	c->line = line;
	if (!dm_dev_ok(dev, what, file, line)) {
		*err = -EINVAL;
		return false;
	}
	p = pm_get(dev);
	if (!p) {
		*err = -ENOMEM;
		return false;
	}
	c->p = p;
	pthread_mutex_lock(&p->lock);
	if (p->timer && dmamap_ktime_ns() >= p->timer) {
		/* the kernel's timer fired: its queued autosuspend */
		p->timer = 0;
		(void)rpm_suspend(c, DMAMAP_RPM_ASYNC | DMAMAP_RPM_AUTO);
	}
	return true;
}

static void leave(struct pm_call *c)
{
	pthread_mutex_unlock(&c->p->lock);
}

/* Record a usage count taken by @c's call (its line, for a leak). */
static void take(struct pm_call *c)
{
	struct dm_pm *p = c->p;

	p->usage++;
	if (p->ntakes == p->cap) {
		size_t cap = p->cap ? 2 * p->cap : 8;
		struct pm_site *t = dmamap_allocarray(dm_dev_machine(c->dev), cap, sizeof(*t));

		if (!t) {
			p->untracked++;
			return;
		}
		if (p->ntakes)
			memcpy(t, p->takes, p->ntakes * sizeof(*t));
		dmamap_free(p->takes);
		p->takes = t;
		p->cap = cap;
	}
	p->takes[p->ntakes++] = (struct pm_site){ c->what, c->file, c->line };
}

/* Give back the latest count taken (@c's put), as get/put pairs nest; none to give: reported, false. */
static bool drop(struct pm_call *c)
{
	struct dm_pm *p = c->p;

	if (!p->usage) {
		pm_report(c, DMAMAP_REPORT_API_MISUSE,
			  "%s: Runtime PM usage count underflow! (no count is taken: this put has no get to match; "
			  "refused, the count stays 0)", c->what);
		return false;
	}
	p->usage--;
	if (p->ntakes)
		p->ntakes--;
	else if (p->untracked)
		p->untracked--;
	return true;
}

/* The kernel's name of the idle, suspend or resume call with @flags. */
static const char *idle_name(int flags)
{
	if (flags & DMAMAP_RPM_GET_PUT)
		return (flags & DMAMAP_RPM_ASYNC) ? "pm_runtime_put" : "pm_runtime_put_sync";
	return (flags & DMAMAP_RPM_ASYNC) ? "pm_request_idle" : "pm_runtime_idle";
}

static const char *suspend_name(int flags)
{
	bool async = flags & DMAMAP_RPM_ASYNC, autos = flags & DMAMAP_RPM_AUTO;

	if (flags & DMAMAP_RPM_GET_PUT) {
		if (async && (flags & DMAMAP_RPM_MARK_BUSY))
			return "pm_runtime_put_autosuspend";
		if (async)
			return "__pm_runtime_put_autosuspend";
		return autos ? "pm_runtime_put_sync_autosuspend" : "pm_runtime_put_sync_suspend";
	}
	if (async)
		return autos ? "pm_request_autosuspend" : "pm_schedule_suspend";
	return autos ? "pm_runtime_autosuspend" : "pm_runtime_suspend";
}

static const char *resume_name(int flags)
{
	if (flags & DMAMAP_RPM_GET_PUT)
		return (flags & DMAMAP_RPM_ASYNC) ? "pm_runtime_get" : "pm_runtime_get_sync";
	return (flags & DMAMAP_RPM_ASYNC) ? "pm_request_resume" : "pm_runtime_resume";
}

/* might_sleep_if() of a synchronous call: not for the queued forms, nor an irq-safe device. */
static void might_sleep_sync(struct pm_call *c, int flags)
{
	if (!(flags & DMAMAP_RPM_ASYNC) && !c->p->irq_safe) {
		leave(c);
		dm_might_sleep(dm_dev_machine(c->dev), c->what, c->file, c->line);
		pthread_mutex_lock(&c->p->lock);
	}
}

/* ------------------------------------------------------------------ calls */

DMAMAP_API int dmamap_pm_runtime_idle_at(struct device *dev, int rpmflags, const char *file, int line)
{
	struct pm_call c;
	int ret = 0;

	if (!enter(&c, dev, idle_name(rpmflags), file, line, &ret))
		return ret;
	might_sleep_sync(&c, rpmflags);
	if (rpmflags & DMAMAP_RPM_GET_PUT) {
		if (!drop(&c))
			ret = -EINVAL;
		else if (c.p->usage)
			ret = 0;
		else
			ret = rpm_idle(&c, rpmflags & ~DMAMAP_RPM_GET_PUT);
	} else {
		ret = rpm_idle(&c, rpmflags);
	}
	leave(&c);
	return ret;
}

DMAMAP_API int dmamap_pm_runtime_suspend_at(struct device *dev, int rpmflags, const char *file, int line)
{
	struct pm_call c;
	int flags = rpmflags & ~(DMAMAP_RPM_GET_PUT | DMAMAP_RPM_MARK_BUSY);
	int ret = 0;

	if (!enter(&c, dev, suspend_name(rpmflags), file, line, &ret))
		return ret;
	might_sleep_sync(&c, rpmflags);
	if ((rpmflags & DMAMAP_RPM_GET_PUT) && !drop(&c)) {
		ret = -EINVAL;
	} else {
		if (rpmflags & DMAMAP_RPM_MARK_BUSY)
			c.p->last_busy = dmamap_ktime_ns();
		ret = (rpmflags & DMAMAP_RPM_GET_PUT) && c.p->usage ? 0 : rpm_suspend(&c, flags);
	}
	leave(&c);
	return ret;
}

DMAMAP_API int dmamap_pm_runtime_resume_at(struct device *dev, int rpmflags, const char *file, int line)
{
	struct pm_call c;
	int ret = 0;

	if (!enter(&c, dev, resume_name(rpmflags), file, line, &ret))
		return ret;
	if (c.p->status != RPM_ACTIVE)
		might_sleep_sync(&c, rpmflags);
	if (rpmflags & DMAMAP_RPM_GET_PUT)
		take(&c);
	ret = rpm_resume(&c, rpmflags & ~DMAMAP_RPM_GET_PUT);
	leave(&c);
	return ret;
}

DMAMAP_API int dmamap_pm_runtime_resume_and_get_at(struct device *dev, const char *file, int line)
{
	struct pm_call c;
	int ret = 0;

	if (!enter(&c, dev, "pm_runtime_resume_and_get", file, line, &ret))
		return ret;
	if (c.p->status != RPM_ACTIVE)
		might_sleep_sync(&c, 0);
	/* the count is held while the resume runs, as the kernel's; given back on error */
	take(&c);
	ret = rpm_resume(&c, 0);
	if (ret < 0) {
		c.p->usage--;
		if (c.p->ntakes)
			c.p->ntakes--;
		else if (c.p->untracked)
			c.p->untracked--;
	} else {
		ret = 0;
	}
	leave(&c);
	return ret;
}

DMAMAP_API void dmamap_pm_runtime_get_noresume_at(struct device *dev, const char *file, int line)
{
	struct pm_call c;
	int err;

	if (!enter(&c, dev, "pm_runtime_get_noresume", file, line, &err))
		return;
	take(&c);
	leave(&c);
}

DMAMAP_API void dmamap_pm_runtime_put_noidle_at(struct device *dev, const char *file, int line)
{
	struct pm_call c;
	int err;

	if (!enter(&c, dev, "pm_runtime_put_noidle", file, line, &err))
		return;
	(void)drop(&c);
	leave(&c);
}

DMAMAP_API int dmamap_pm_runtime_get_if_active_at(struct device *dev, bool ign_usage_count, const char *file,
						  int line)
{
	struct pm_call c;
	int ret = 0;

	if (!enter(&c, dev, ign_usage_count ? "pm_runtime_get_if_active" : "pm_runtime_get_if_in_use", file, line,
		   &ret))
		return ret;
	if (c.p->depth)
		ret = -EINVAL;
	else if (c.p->status == RPM_ACTIVE && (ign_usage_count || c.p->usage))
		ret = 1;
	if (ret == 1)
		take(&c);
	leave(&c);
	return ret;
}

/* Disable once more (the kernel's __pm_runtime_disable()); @site: the driver's call, or NULL for the core's. */
static void do_disable(struct pm_call *c, const struct pm_site *site)
{
	struct dm_pm *p = c->p;

	if (site) {
		p->disabled[1] = p->disabled[0];
		p->disabled[0] = *site;
	}
	if (p->depth++)
		return;
	/* from now no operation starts: what is armed goes, what runs elsewhere is waited for */
	cancel_pending(p);
	(void)wait_settled(c, true);
	p->last_status = p->status;
}

static void do_enable(struct pm_call *c, const struct pm_site *site)
{
	struct dm_pm *p = c->p;

	if (!p->depth) {
		char at[200] = "";

		if (p->enabled.file)
			snprintf(at, sizeof(at), " at %s:%d", p->enabled.file, p->enabled.line);
		pm_report(c, DMAMAP_REPORT_API_MISUSE,
			  "Unbalanced pm_runtime_enable! (runtime PM is enabled already, by %s()%s; nothing done)",
			  p->enabled.what ? p->enabled.what : "pm_runtime_enable", at);
		return;
	}
	if (--p->depth)
		return;
	p->last_status = RPM_INVALID;
	if (site)
		p->enabled = *site;
}

DMAMAP_API void dmamap_pm_runtime_enable_at(struct device *dev, const char *file, int line)
{
	struct pm_call c;
	int err;

	if (!enter(&c, dev, "pm_runtime_enable", file, line, &err))
		return;
	do_enable(&c, &(struct pm_site){ "pm_runtime_enable", file, line });
	leave(&c);
}

DMAMAP_API void dmamap_pm_runtime_disable_at(struct device *dev, const char *file, int line)
{
	struct pm_call c;
	int err;

	if (!enter(&c, dev, "pm_runtime_disable", file, line, &err))
		return;
	do_disable(&c, &(struct pm_site){ "pm_runtime_disable", file, line });
	leave(&c);
}

/* pm_runtime_use_autosuspend() and the delay's changes: take or give back the count a negative delay holds. */
static void update_autosuspend(struct pm_call *c, int old_delay, bool old_use)
{
	struct dm_pm *p = c->p;

	if (p->use_auto && p->delay < 0) {
		if (!old_use || old_delay >= 0) {
			p->usage++;
			(void)rpm_resume(c, 0);
		}
		return;
	}
	if (old_use && old_delay < 0 && p->usage)
		p->usage--;
	(void)rpm_idle(c, DMAMAP_RPM_AUTO);
}

static void set_use_autosuspend(struct pm_call *c, bool use)
{
	struct dm_pm *p = c->p;
	bool old_use = p->use_auto;

	p->use_auto = use;
	if (use)
		p->autosuspend = (struct pm_site){ c->what, c->file, c->line };
	else
		p->autosuspend = (struct pm_site){ NULL, NULL, 0 };
	update_autosuspend(c, p->delay, old_use);
}

/* What the disables of devm_pm_runtime_enable()'s action are called in the reports. */
static const char devm_release[] = "the release of devm_pm_runtime_enable";

/* The action of devm_pm_runtime_enable(), at the release of the managed resources. */
static void devm_disable(void *data)
{
	struct device *dev = data;
	struct pm_call c;
	struct pm_site site;
	int err;

	if (!enter(&c, dev, "devm_pm_runtime_enable", NULL, 0, &err))
		return;
	site = c.p->devm;
	c.file = site.file;
	c.line = site.line;
	site.what = devm_release;
	set_use_autosuspend(&c, false);
	do_disable(&c, &site);
	leave(&c);
}

DMAMAP_API int dmamap_devm_pm_runtime_enable_at(struct device *dev, const char *file, int line)
{
	struct pm_call c;
	int ret = 0;

	if (!enter(&c, dev, "devm_pm_runtime_enable", file, line, &ret))
		return ret;
	c.p->devm = (struct pm_site){ "devm_pm_runtime_enable", file, line };
	do_enable(&c, &c.p->devm);
	leave(&c);
	return dmamap_devm_add_action(dev, devm_disable, dev, true, file, line);
}

DMAMAP_API int dmamap_pm_runtime_set_status_at(struct device *dev, enum rpm_status status, const char *file, int line)
{
	struct pm_call c;
	int ret = 0;

	if (!enter(&c, dev, status == RPM_ACTIVE ? "pm_runtime_set_active" : "pm_runtime_set_suspended", file, line,
		   &ret))
		return ret;
	if (status != RPM_ACTIVE && status != RPM_SUSPENDED) {
		ret = -EINVAL;
	} else if (!c.p->error && !c.p->depth) {
		ret = -EAGAIN; /* enabled and working: the kernel refuses, nothing changes */
	} else {
		/* done disabled (as the kernel's): an enabled device comes out enabled, its last status forgotten */
		if (!c.p->depth)
			c.p->last_status = RPM_INVALID;
		c.p->status = status;
		c.p->error = 0;
	}
	leave(&c);
	return ret;
}

DMAMAP_API void dmamap_pm_runtime_mark_last_busy_at(struct device *dev, const char *file, int line)
{
	struct dm_pm *p;

	if (!dm_dev_ok(dev, "pm_runtime_mark_last_busy", file, line) || !(p = pm_get(dev)))
		return;
	pthread_mutex_lock(&p->lock);
	p->last_busy = dmamap_ktime_ns();
	pthread_mutex_unlock(&p->lock);
}

DMAMAP_API void dmamap_pm_runtime_use_autosuspend_at(struct device *dev, bool use, const char *file, int line)
{
	struct pm_call c;
	int err;

	if (!enter(&c, dev, use ? "pm_runtime_use_autosuspend" : "pm_runtime_dont_use_autosuspend", file, line, &err))
		return;
	set_use_autosuspend(&c, use);
	leave(&c);
}

DMAMAP_API void dmamap_pm_runtime_set_autosuspend_delay_at(struct device *dev, int delay, const char *file, int line)
{
	struct pm_call c;
	int err, old;

	if (!enter(&c, dev, "pm_runtime_set_autosuspend_delay", file, line, &err))
		return;
	old = c.p->delay;
	c.p->delay = delay;
	update_autosuspend(&c, old, c.p->use_auto);
	leave(&c);
}

DMAMAP_API void dmamap_pm_runtime_allow_at(struct device *dev, bool allow, const char *file, int line)
{
	struct pm_call c;
	int err;

	if (!enter(&c, dev, allow ? "pm_runtime_allow" : "pm_runtime_forbid", file, line, &err))
		return;
	if (allow && !c.p->runtime_auto) {
		c.p->runtime_auto = true;
		if (drop(&c) && !c.p->usage)
			(void)rpm_idle(&c, DMAMAP_RPM_AUTO);
	} else if (!allow && c.p->runtime_auto) {
		c.p->runtime_auto = false;
		c.p->usage++;
		(void)rpm_resume(&c, 0);
	}
	leave(&c);
}

DMAMAP_API void dmamap_pm_runtime_no_callbacks_at(struct device *dev, const char *file, int line)
{
	struct pm_call c;
	int err;

	if (!enter(&c, dev, "pm_runtime_no_callbacks", file, line, &err))
		return;
	c.p->no_callbacks = true;
	leave(&c);
}

DMAMAP_API void dmamap_pm_runtime_irq_safe_at(struct device *dev, const char *file, int line)
{
	struct pm_call c;
	int err;

	if (!enter(&c, dev, "pm_runtime_irq_safe", file, line, &err))
		return;
	c.p->irq_safe = true;
	leave(&c);
}

/* ---------------------------------------------------------------- reads */

/* @dev's state, locked, for a read that makes none and runs nothing; NULL: the state of a fresh device. */
static struct dm_pm *read_lock(struct device *dev)
{
	struct dm_pm *p = dm_dev_live(dev) ? pm_peek(dev) : NULL;

	if (p)
		pthread_mutex_lock(&p->lock);
	return p;
}

DMAMAP_API bool pm_runtime_active(struct device *dev)
{
	struct dm_pm *p = read_lock(dev);
	bool ret;

	if (!p)
		return true;
	ret = p->status == RPM_ACTIVE || p->depth;
	pthread_mutex_unlock(&p->lock);
	return ret;
}

DMAMAP_API bool pm_runtime_suspended(struct device *dev)
{
	struct dm_pm *p = read_lock(dev);
	bool ret;

	if (!p)
		return false;
	ret = p->status == RPM_SUSPENDED && !p->depth;
	pthread_mutex_unlock(&p->lock);
	return ret;
}

DMAMAP_API bool pm_runtime_status_suspended(struct device *dev)
{
	struct dm_pm *p = read_lock(dev);
	bool ret;

	if (!p)
		return true;
	ret = p->status == RPM_SUSPENDED;
	pthread_mutex_unlock(&p->lock);
	return ret;
}

DMAMAP_API bool pm_runtime_enabled(struct device *dev)
{
	struct dm_pm *p = read_lock(dev);
	bool ret;

	if (!p)
		return false;
	ret = !p->depth;
	pthread_mutex_unlock(&p->lock);
	return ret;
}

DMAMAP_API bool pm_runtime_is_irq_safe(struct device *dev)
{
	struct dm_pm *p = read_lock(dev);
	bool ret;

	if (!p)
		return false;
	ret = p->irq_safe;
	pthread_mutex_unlock(&p->lock);
	return ret;
}

DMAMAP_API u64 pm_runtime_autosuspend_expiration(struct device *dev)
{
	struct dm_pm *p = read_lock(dev);
	s64 at;

	if (!p)
		return 0;
	at = expiration(p, dmamap_ktime_ns());
	pthread_mutex_unlock(&p->lock);
	return (u64)at;
}

DMAMAP_API int dmamap_pm_runtime_info(struct device *dev, struct dmamap_pm_runtime_info *info)
{
	struct dm_pm *p;

	if (!dm_dev_ok(dev, "dmamap_pm_runtime_info", NULL, 0))
		return -EINVAL;
	if (!info) {
		dmamap_dev_report(dev, DMAMAP_REPORT_BAD_INPUT, NULL, 0, "dmamap_pm_runtime_info: NULL info");
		return -EINVAL;
	}
	memset(info, 0, sizeof(*info));
	p = read_lock(dev);
	if (!p) {
		info->disable_depth = 1;
		info->status = RPM_SUSPENDED;
		info->runtime_auto = true;
		return 0;
	}
	info->usage_count = p->usage;
	info->disable_depth = p->depth;
	info->status = p->status;
	info->runtime_error = p->error;
	info->runtime_auto = p->runtime_auto;
	info->no_callbacks = p->no_callbacks;
	info->irq_safe = p->irq_safe;
	info->use_autosuspend = p->use_auto;
	info->autosuspend_delay = p->delay;
	info->last_busy = p->last_busy;
	info->autosuspend_due = p->timer;
	info->counts_taken = (unsigned int)(p->ntakes + p->untracked);
	pthread_mutex_unlock(&p->lock);
	return 0;
}

DMAMAP_API int dmamap_pm_runtime_run_timer(struct device *dev)
{
	struct pm_call c = { dev, NULL, "dmamap_pm_runtime_run_timer", NULL, 0 };
	int due;

	if (!dm_dev_ok(dev, c.what, NULL, 0))
		return -EINVAL;
	c.p = pm_peek(dev);
	if (!c.p)
		return 0;
	pthread_mutex_lock(&c.p->lock);
	due = c.p->timer && dmamap_ktime_ns() >= c.p->timer;
	if (due) {
		c.p->timer = 0;
		(void)rpm_suspend(&c, DMAMAP_RPM_ASYNC | DMAMAP_RPM_AUTO);
	}
	leave(&c);
	return due;
}

/* ------------------------------------------------- system sleep, forced */

DMAMAP_API int pm_runtime_force_suspend(struct device *dev)
{
	const struct dev_pm_ops *ops;
	struct pm_call c;
	int ret = 0;

	if (!enter(&c, dev, "pm_runtime_force_suspend", NULL, 0, &ret))
		return ret;
	do_disable(&c, &(struct pm_site){ "pm_runtime_force_suspend", NULL, 0 });
	if (c.p->status == RPM_SUSPENDED)
		goto out;
	ops = ops_of(dev);
	if (!c.p->no_callbacks && ops && ops->runtime_suspend)
		ret = callback(&c, ops->runtime_suspend, "runtime_suspend", 0);
	if (ret) {
		do_enable(&c, NULL);
		goto out;
	}
	c.p->status = RPM_SUSPENDED;
	/* a device in use (beyond the count system sleep holds) is resumed by pm_runtime_force_resume() */
	if (c.p->usage > 1)
		c.p->needs_force_resume = true;
	else
		c.p->error = 0;
out:
	leave(&c);
	return ret;
}

DMAMAP_API int pm_runtime_force_resume(struct device *dev)
{
	const struct dev_pm_ops *ops;
	struct pm_call c;
	int ret = 0;

	if (!enter(&c, dev, "pm_runtime_force_resume", NULL, 0, &ret))
		return ret;
	if (c.p->status == RPM_SUSPENDED && c.p->needs_force_resume) {
		c.p->status = RPM_ACTIVE;
		ops = ops_of(dev);
		if (!c.p->no_callbacks && ops && ops->runtime_resume)
			ret = callback(&c, ops->runtime_resume, "runtime_resume", 0);
		if (ret) {
			c.p->status = RPM_SUSPENDED;
			c.p->error = 0;
		} else {
			c.p->last_busy = dmamap_ktime_ns();
		}
	}
	c.p->needs_force_resume = false;
	do_enable(&c, NULL);
	leave(&c);
	return ret;
}

/* ------------------------------------------------------------ driver core */

void dmamap_pm_probed(struct device *dev)
{
	struct pm_call c;
	int err;

	if (!pm_peek(dev) || !enter(&c, dev, "pm_request_idle", NULL, 0, &err))
		return;
	(void)rpm_idle(&c, DMAMAP_RPM_ASYNC);
	leave(&c);
}

void dmamap_pm_unbinding(struct device *dev)
{
	struct pm_call c;
	int err;

	if (!pm_peek(dev) || !enter(&c, dev, "pm_runtime_get_sync", NULL, 0, &err))
		return;
	/* the core's own count: not the driver's to give back, never reported */
	c.p->usage++;
	(void)rpm_resume(&c, 0);
	c.p->usage--;
	if (!c.p->usage)
		(void)rpm_idle(&c, 0);
	leave(&c);
}

/*
 * What the driver left, reported and undone (at its unbind, or, with
 * @release, at the device's release); then what pm_runtime_reinit() does.
 */
static void left_behind(struct device *dev, bool release)
{
	struct dm_pm *p = pm_peek(dev);
	struct pm_site enabled = { NULL, NULL, 0 }, autos = { NULL, NULL, 0 }, dis[2];
	struct pm_site *takes;
	size_t ntakes;
	unsigned long untracked;
	unsigned int extra = 0;
	struct pm_call c = { dev, p, "pm_runtime_disable", NULL, 0 };
	bool was_enabled = false;
	int call_depth = dmamap_call_now.depth;
	char when[160];

	if (!p)
		return;
	if (release)
		snprintf(when, sizeof(when), "when the device is released");
	else
		snprintf(when, sizeof(when), "when driver %s unbinds", drv_name(dev));
	pthread_mutex_lock(&p->lock);
	if (!p->depth) {
		was_enabled = true;
		enabled = p->enabled;
		if (!enabled.what)
			enabled.what = "pm_runtime_enable";
		do_disable(&c, NULL);
	} else if (p->depth > 1) {
		extra = p->depth - 1;
		p->depth = 1;
	}
	dis[0] = p->disabled[0];
	dis[1] = p->disabled[1];
	if (p->use_auto && p->autosuspend.what) {
		autos = p->autosuspend;
		if (p->delay < 0 && p->usage)
			p->usage--;
		p->use_auto = false;
		p->autosuspend = (struct pm_site){ NULL, NULL, 0 };
	}
	takes = p->takes;
	ntakes = p->ntakes;
	untracked = p->untracked;
	p->usage -= (int)DM_MIN((size_t)p->usage, ntakes + untracked);
	p->takes = NULL;
	p->ntakes = p->cap = 0;
	p->untracked = 0;
	/* pm_runtime_reinit(): disabled now, and suspended */
	if (p->status == RPM_ACTIVE)
		p->status = RPM_SUSPENDED;
	p->irq_safe = false;
	p->needs_force_resume = false;
	p->disabled[0] = p->disabled[1] = (struct pm_site){ NULL, NULL, 0 };
	p->enabled = (struct pm_site){ NULL, NULL, 0 };
	pthread_mutex_unlock(&p->lock);

	/* the reports name the driver's lines, whatever call of the library's releases the device */
	dmamap_call_now.depth = 0;
	if (was_enabled)
		dmamap_dev_report(dev, DMAMAP_REPORT_LEAK, enabled.file, enabled.line,
				  "%s(): runtime PM is still enabled %s: it was never disabled (call "
				  "pm_runtime_disable() in remove and on the probe's error paths, or use "
				  "devm_pm_runtime_enable()); disabled now", enabled.what, when);
	if (extra) {
		/* at the driver's own disable rather than devm's release, when one of the latest two is */
		const struct pm_site *at = dis[0].what == devm_release && dis[1].what ? &dis[1] : &dis[0];
		char other[200] = "";

		if (dis[1].what)
			snprintf(other, sizeof(other), "; the latest disables: %s() at %s:%d, %s() at %s:%d",
				 dis[1].what, dis[1].file ? dis[1].file : "?", dis[1].line, dis[0].what,
				 dis[0].file ? dis[0].file : "?", dis[0].line);
		dmamap_dev_report(dev, DMAMAP_REPORT_API_MISUSE, at->file, at->line,
				  "%s(): runtime PM is disabled %u time%s more than it was enabled %s%s: the next "
				  "pm_runtime_enable() would leave it disabled; depth set back to 1",
				  at->what ? at->what : "pm_runtime_disable", extra, extra == 1 ? "" : "s", when,
				  other);
	}
	if (autos.what)
		dmamap_dev_report(dev, DMAMAP_REPORT_LEAK, autos.file, autos.line,
				  "%s() never undone by pm_runtime_dont_use_autosuspend() %s; turned off now",
				  autos.what, when);
	for (size_t i = 0; i < ntakes; i++)
		dmamap_dev_report(dev, DMAMAP_REPORT_LEAK, takes[i].file, takes[i].line,
				  "%s() took a runtime PM usage count that is still taken %s (no pm_runtime_put*() "
				  "gave it back); dropped now", takes[i].what, when);
	if (untracked)
		dmamap_dev_report(dev, DMAMAP_REPORT_LEAK, NULL, 0,
				  "%lu more runtime PM usage count%s still taken %s (where, unknown: no memory to "
				  "record it); dropped now", untracked, untracked == 1 ? "" : "s", when);
	dmamap_call_now.depth = call_depth;
	dmamap_free(takes);
}

void dmamap_pm_unbound(struct device *dev)
{
	left_behind(dev, false);
}

void dmamap_pm_release(struct device *dev)
{
	struct dm_pm *p = pm_peek(dev);

	if (!p)
		return;
	left_behind(dev, true);
	dev->dmamap.pm = NULL;
	pthread_cond_destroy(&p->settled);
	pthread_mutex_destroy(&p->lock);
	dmamap_free(p->takes);
	dmamap_free(p);
}
