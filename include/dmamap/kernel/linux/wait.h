/* SPDX-License-Identifier: MIT */
/*
 * <linux/wait.h> of Linux 6.x over libdmamap (<dmamap/locking.h>): wait
 * queue heads (wait_queue_head_t, DECLARE_WAIT_QUEUE_HEAD(),
 * init_waitqueue_head()), wait_event() and its _timeout, _interruptible,
 * _interruptible_timeout, _killable, _idle and _idle_timeout forms (never
 * interrupted: the interruptible ones return 0 or the time left), wake_up()
 * and its _all, _interruptible and _interruptible_all forms, and
 * waitqueue_active().
 *
 * A wait tests its condition, and sleeps until a wake-up of the queue after
 * that test (none is lost between the test and the sleep), then tests it
 * again, as the kernel's. Every waiter is woken by any wake-up (there are no
 * exclusive waits). The timeouts take jiffies (msecs_to_jiffies()) and
 * return as the kernel's: 0 when the time passed with the condition false,
 * else the jiffies left, at least 1. A wait is a call that may sleep: made
 * holding a spinlock or with interrupts off, it is reported
 * (dmamap_might_sleep_at()), then waits all the same.
 */
#ifndef _LINUX_WAIT_H
#define _LINUX_WAIT_H

#include <dmamap/linux-api.h>
#include <dmamap/locking.h>
#include <linux/errno.h> /* -ERESTARTSYS, which the interruptible forms of the kernel may return */
#include <linux/jiffies.h>

struct wait_queue_head {
	struct dmamap_waitqueue dmamap_wq;
};
typedef struct wait_queue_head wait_queue_head_t;

#define __WAIT_QUEUE_HEAD_INITIALIZER(name) { DMAMAP_WAITQUEUE_INITIALIZER }
#define DECLARE_WAIT_QUEUE_HEAD(name) struct wait_queue_head name = __WAIT_QUEUE_HEAD_INITIALIZER(name)
#define DECLARE_WAIT_QUEUE_HEAD_ONSTACK(name) DECLARE_WAIT_QUEUE_HEAD(name)

/** init_waitqueue_head() - make @wq_head an empty wait queue. */
static inline void init_waitqueue_head(struct wait_queue_head *wq_head)
{
	dmamap_waitqueue_init(&wq_head->dmamap_wq);
}

/** wake_up() - wake the threads waiting on @wq_head: each tests its condition again. */
static inline void wake_up(struct wait_queue_head *wq_head)
{
	dmamap_wake_up(&wq_head->dmamap_wq);
}

/** waitqueue_active() - whether a thread waits on @wq_head now (racy, as the kernel's). */
static inline int waitqueue_active(struct wait_queue_head *wq_head)
{
	return dmamap_waitqueue_active(&wq_head->dmamap_wq);
}

#define wake_up_all(wq_head) wake_up(wq_head)
#define wake_up_interruptible(wq_head) wake_up(wq_head)
#define wake_up_interruptible_all(wq_head) wake_up(wq_head)
#define wake_up_nr(wq_head, nr) ((void)(nr), wake_up(wq_head))

/*
 * The wait of every form: @condition tested, then a sleep until a wake-up
 * or @timeout jiffies; its value is the kernel's (the jiffies left, at
 * least 1, once @condition holds; 0 when the time passed first).
 */
#define DMAMAP_WAIT_EVENT_(wq_head, condition, timeout, how)                                               \
	__extension__({                                                                                    \
		struct dmamap_waitqueue *dmamap_wq_ = &(wq_head).dmamap_wq;                                \
		s64 dmamap_wq_end_ = dmamap_wait_deadline(timeout);                                        \
		long dmamap_wq_ret_;                                                                       \
		dmamap_might_sleep_at(how, __FILE__, __LINE__);                                            \
		for (;;) {                                                                                 \
			unsigned long dmamap_wq_ticket_ = dmamap_waitqueue_ticket(dmamap_wq_);             \
			if (condition) {                                                                   \
				dmamap_wq_ret_ = dmamap_wait_left(dmamap_wq_end_);                         \
				break;                                                                     \
			}                                                                                  \
			if (!dmamap_waitqueue_sleep(dmamap_wq_, dmamap_wq_ticket_, dmamap_wq_end_)) {      \
				dmamap_wq_ret_ = (condition) ? 1 : 0;                                      \
				break;                                                                     \
			}                                                                                  \
		}                                                                                          \
		dmamap_wq_ret_;                                                                            \
	})

#define wait_event(wq_head, condition) \
	((void)DMAMAP_WAIT_EVENT_(wq_head, condition, MAX_SCHEDULE_TIMEOUT, "wait_event"))
#define wait_event_idle(wq_head, condition) \
	((void)DMAMAP_WAIT_EVENT_(wq_head, condition, MAX_SCHEDULE_TIMEOUT, "wait_event_idle"))
#define wait_event_interruptible(wq_head, condition) \
	((void)DMAMAP_WAIT_EVENT_(wq_head, condition, MAX_SCHEDULE_TIMEOUT, "wait_event_interruptible"), 0)
#define wait_event_killable(wq_head, condition) \
	((void)DMAMAP_WAIT_EVENT_(wq_head, condition, MAX_SCHEDULE_TIMEOUT, "wait_event_killable"), 0)
#define wait_event_timeout(wq_head, condition, timeout) \
	DMAMAP_WAIT_EVENT_(wq_head, condition, (timeout), "wait_event_timeout")
#define wait_event_idle_timeout(wq_head, condition, timeout) \
	DMAMAP_WAIT_EVENT_(wq_head, condition, (timeout), "wait_event_idle_timeout")
#define wait_event_interruptible_timeout(wq_head, condition, timeout) \
	DMAMAP_WAIT_EVENT_(wq_head, condition, (timeout), "wait_event_interruptible_timeout")

#endif /* _LINUX_WAIT_H */
