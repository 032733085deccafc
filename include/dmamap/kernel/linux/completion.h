/* SPDX-License-Identifier: MIT */
/*
 * <linux/completion.h> of Linux 6.x over libdmamap (<dmamap/locking.h>):
 * struct completion, DECLARE_COMPLETION() (and _ONSTACK), init_completion(),
 * reinit_completion(), complete(), complete_all(), wait_for_completion()
 * and its _timeout, _interruptible, _killable and _io forms (never
 * interrupted), try_wait_for_completion() and completion_done().
 *
 * A completion counts the complete() calls not yet consumed, as the
 * kernel's: each wait consumes one, a complete() before the wait is not
 * lost, complete_all() lets every wait through until reinit_completion().
 * wait_for_completion_timeout() takes jiffies (msecs_to_jiffies()) and
 * returns 0 when they passed first, else what was left of them, at least 1.
 * complete() and complete_all() are functions (drivers call function
 * pointers of that name: req->complete(req)); the waits are macros that
 * pass the caller's line.
 */
#ifndef _LINUX_COMPLETION_H
#define _LINUX_COMPLETION_H

#include <dmamap/linux-api.h>
#include <dmamap/locking.h>
#include <linux/jiffies.h>

struct completion {
	struct dmamap_completion dmamap_c;
};

#define COMPLETION_INITIALIZER(work) { DMAMAP_COMPLETION_INITIALIZER }
#define COMPLETION_INITIALIZER_ONSTACK(work) COMPLETION_INITIALIZER(work)
#define DECLARE_COMPLETION(work) struct completion work = COMPLETION_INITIALIZER(work)
#define DECLARE_COMPLETION_ONSTACK(work) DECLARE_COMPLETION(work)

/** complete() - count one completion of @x and wake one waiter (see dmamap_complete()). */
static inline void complete(struct completion *x)
{
	dmamap_complete(&x->dmamap_c);
}

/** complete_all() - complete @x for every wait until reinit_completion() (see dmamap_complete_all()). */
static inline void complete_all(struct completion *x)
{
	dmamap_complete_all(&x->dmamap_c);
}

#define init_completion(x) dmamap_completion_init(&(x)->dmamap_c)
#define reinit_completion(x) dmamap_completion_reinit(&(x)->dmamap_c)
#define try_wait_for_completion(x) dmamap_completion_try_wait(&(x)->dmamap_c)
#define completion_done(x) dmamap_completion_done(&(x)->dmamap_c)

#define DMAMAP_WAIT_(x, timeout, how) dmamap_completion_wait_at(&(x)->dmamap_c, (timeout), how, __FILE__, __LINE__)
#define wait_for_completion(x) ((void)DMAMAP_WAIT_(x, MAX_SCHEDULE_TIMEOUT, "wait_for_completion"))
#define wait_for_completion_io(x) ((void)DMAMAP_WAIT_(x, MAX_SCHEDULE_TIMEOUT, "wait_for_completion_io"))
#define wait_for_completion_interruptible(x) \
	((void)DMAMAP_WAIT_(x, MAX_SCHEDULE_TIMEOUT, "wait_for_completion_interruptible"), 0)
#define wait_for_completion_killable(x) \
	((void)DMAMAP_WAIT_(x, MAX_SCHEDULE_TIMEOUT, "wait_for_completion_killable"), 0)
#define wait_for_completion_timeout(x, timeout) DMAMAP_WAIT_(x, (timeout), "wait_for_completion_timeout")
#define wait_for_completion_io_timeout(x, timeout) DMAMAP_WAIT_(x, (timeout), "wait_for_completion_io_timeout")
#define wait_for_completion_interruptible_timeout(x, timeout) \
	((long)DMAMAP_WAIT_(x, (timeout), "wait_for_completion_interruptible_timeout"))
#define wait_for_completion_killable_timeout(x, timeout) \
	((long)DMAMAP_WAIT_(x, (timeout), "wait_for_completion_killable_timeout"))

#endif /* _LINUX_COMPLETION_H */
