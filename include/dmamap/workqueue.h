/* SPDX-License-Identifier: MIT */
/*
 * Deferred work: the kernel's workqueues over POSIX threads, what
 * <linux/workqueue.h> of the Linux 6.x headers is made of.
 *
 * Each queue has one worker thread that runs its work items one at a time,
 * in the order they were queued, in process context (a work function may
 * sleep, take mutexes, allocate with GFP_KERNEL). The system queues
 * (system_wq and its siblings) are one such queue, made at first use. A
 * delayed item joins its queue's list when its delay (jiffies) has passed
 * on the host's clock. As in the kernel, an item is queued at most once at
 * a time (queuing a pending item does nothing and says false), may be
 * queued again while it runs, and may be freed by its own function: the
 * library never touches an item after its function returned.
 *
 * A BH queue (dmamap_wq_alloc_bh(), dmamap_wq_system_bh(): Linux 6.9's
 * WQ_BH, system_bh_wq) has no worker: an item queued on it runs in
 * softirq context in the thread that queued it, at that thread's next
 * point where softirqs run, where a tasklet it scheduled then would run
 * (<dmamap/tasklet.h> says where, and the order with tasklets), one at a
 * time across the process's threads: queued again while it runs in
 * another thread, it runs after, in that thread (the kernel queues it on
 * the CPU where it runs). Its flush, cancel_sync, and its queue's flush
 * and destroy wait from task context for that thread to run it; the
 * caller's own pending softirq work runs first, as local_bh_enable()
 * would run it. Delayed work on a BH queue is not provided: a queuing
 * with a delay is refused (DMAMAP_REPORT_API_MISUSE); with none it is
 * queue_work()'s. Where it differs from the kernel: there is no
 * concurrency limit nor a time budget for a softirq pass, and a BH item
 * left pending by a thread that never again passes a point where
 * softirqs run is waited for for ever, as such a tasklet is.
 *
 * flush_work() waits for the last queuing of the item to have run;
 * cancel_work_sync() takes it off its queue and waits for a run in
 * progress to end, refusing new queuings meanwhile; flush_workqueue()
 * waits for every item queued before it; destroy_workqueue() drains the
 * queue (items the draining queues again included), then ends its worker.
 *
 * Reported (and nothing done): queuing an item never initialised
 * (INIT_WORK()), a flush or cancel_sync of an item from its own function,
 * and a flush or destroy of a queue from one of its own items (each would
 * wait for ever in the kernel: DMAMAP_REPORT_API_MISUSE); a queue
 * destroyed with delayed items still waiting is reported and the items
 * dropped. Every call is thread-safe; queuing never sleeps (an interrupt
 * handler queues), the flushes, cancel_syncs and destroy may.
 */
#ifndef DMAMAP_WORKQUEUE_H
#define DMAMAP_WORKQUEUE_H

#include <stdbool.h>

#include <dmamap/types.h>

DMAMAP_BEGIN_DECLS

struct work_struct;
/* The function of a work item: called with the item, in the worker's thread (a BH item: in softirq context). */
typedef void (*work_func_t)(struct work_struct *work);

/* What dmamap_work_init() (or a static initialiser) marks an item with. */
#define DMAMAP_WORK_MAGIC 0x776f726b5f6f6b21UL

/* A queue and its worker (opaque). */
struct dmamap_wq;

/* A work item's state; the library's, between INIT_WORK() and the item's end. */
struct dmamap_work {
	work_func_t func;
	unsigned long magic;       /* DMAMAP_WORK_MAGIC, set by dmamap_work_init() */
	struct dmamap_wq *wq;      /* the queue it is pending on */
	struct dmamap_work *next;  /* in that queue's list */
	unsigned long queued;      /* queuings so far: the pending one is the last */
	unsigned long run_seq;     /* its place in the queue's run list */
	s64 due;                   /* a delayed item: when it joins the run list; 0 once it has */
	bool pending;              /* on a queue's run list or waiting for its delay */
	bool cancelling;           /* a cancel_*_sync() is under way: queuings refused */
	const char *file;          /* where it was last queued */
	int line;
	unsigned long cpu;         /* on a BH queue: the thread that runs it (its dm "CPU") */
};

/**
 * dmamap_work_init() - INIT_WORK(): make @w an idle work item that runs @func
 * @w: caller-owned storage (its struct work_struct), not pending
 * @func: the function
 */
DMAMAP_API void dmamap_work_init(struct dmamap_work *w, work_func_t func);

/**
 * dmamap_wq_alloc() - alloc_workqueue() and its forms: a new queue with its worker
 * @name: the queue's name, for messages (copied, truncated to 31 bytes)
 *
 * Return: the queue, which the caller destroys with dmamap_wq_destroy();
 * NULL when the host cannot make it (memory or a thread).
 */
DMAMAP_API struct dmamap_wq *dmamap_wq_alloc(const char *name);

/**
 * dmamap_wq_system() - system_wq: the process's queue, made at first use
 *
 * Return: the queue (never destroyed); NULL only when the host cannot make it.
 */
DMAMAP_API struct dmamap_wq *dmamap_wq_system(void);

/**
 * dmamap_wq_alloc_bh() - alloc_workqueue(WQ_BH): a new BH queue, whose items run in softirq context
 * @name: the queue's name, for messages (copied, truncated to 31 bytes)
 * @highpri: WQ_HIGHPRI too: its items run before the high-priority
 *           tasklets, else before the other tasklets (see the top)
 *
 * A BH queue has no worker thread: an item runs in the thread that queued
 * it, where and when a tasklet scheduled there at that moment would run.
 * Return: the queue, which the caller destroys with dmamap_wq_destroy();
 * NULL when the host has no memory for it.
 */
DMAMAP_API struct dmamap_wq *dmamap_wq_alloc_bh(const char *name, bool highpri);

/**
 * dmamap_wq_system_bh() - system_bh_wq and system_bh_highpri_wq: the process's BH queues, made at first use
 * @highpri: system_bh_highpri_wq, else system_bh_wq
 *
 * Return: the queue (never destroyed); NULL only when the host cannot make it.
 */
DMAMAP_API struct dmamap_wq *dmamap_wq_system_bh(bool highpri);

/**
 * dmamap_wq_destroy_at() - destroy_workqueue(): drain @wq, end its worker, free it
 * @wq: the queue; NULL does nothing
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 *
 * Runs every item queued, and queued again while it drains, first. The
 * system queue and a call from one of @wq's own items are refused
 * (reported).
 */
DMAMAP_API void dmamap_wq_destroy_at(struct dmamap_wq *wq, const char *file, int line);

/**
 * dmamap_queue_work_at() - queue_work() and queue_delayed_work(): queue @w on @wq
 * @wq: the queue; NULL for the system queue
 * @w: an initialised item
 * @delay: jiffies before it may run; 0 runs it as soon as the worker can
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 *
 * Return: true when queued; false when it was pending already (nothing
 * changed), is being cancelled, or was never initialised (reported).
 */
DMAMAP_API bool dmamap_queue_work_at(struct dmamap_wq *wq, struct dmamap_work *w, unsigned long delay,
				     const char *file, int line);

/**
 * dmamap_mod_delayed_work_at() - mod_delayed_work(): queue @w to run @delay jiffies from now, pending or not
 *
 * Return: true when it was pending (its delay changed, on @wq), false when
 * it was idle and is queued now, or could not be (never initialised, being
 * cancelled: reported for the first).
 */
DMAMAP_API bool dmamap_mod_delayed_work_at(struct dmamap_wq *wq, struct dmamap_work *w, unsigned long delay,
					   const char *file, int line);

/**
 * dmamap_cancel_work_at() - cancel_work() / cancel_delayed_work() and their _sync forms
 * @w: the item
 * @sync: also wait until no run of it is in progress, refusing queuings
 *        meanwhile; from @w's own function this is refused (reported)
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 *
 * Return: true when it was pending (and is not any more).
 */
DMAMAP_API bool dmamap_cancel_work_at(struct dmamap_work *w, bool sync, const char *file, int line);

/**
 * dmamap_flush_work_at() - flush_work() / flush_delayed_work(): wait for @w's last queuing to have run
 * @w: the item
 * @now: a delayed item's delay is cut short first (flush_delayed_work())
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 *
 * Return: true when it waited for a run (pending or in progress), false
 * when @w was idle. From @w's own function it is refused (reported), false.
 */
DMAMAP_API bool dmamap_flush_work_at(struct dmamap_work *w, bool now, const char *file, int line);

/**
 * dmamap_flush_wq_at() - flush_workqueue() and drain_workqueue(): wait for @wq's items
 * @wq: the queue; NULL for the system queue
 * @drain: also wait for the items queued meanwhile, until the queue is empty
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 *
 * Waits for every item on @wq's run list at the call (delayed items whose
 * delay has not passed are not waited for) to have run. From one of @wq's
 * items it is refused (reported).
 */
DMAMAP_API void dmamap_flush_wq_at(struct dmamap_wq *wq, bool drain, const char *file, int line);

/** dmamap_work_pending() - work_pending(): whether @w is queued and has not started (racy, as the kernel's). */
DMAMAP_API bool dmamap_work_pending(struct dmamap_work *w);

/** dmamap_work_busy() - whether @w is pending or running now (racy, as the kernel's work_busy()). */
DMAMAP_API bool dmamap_work_busy(struct dmamap_work *w);

DMAMAP_END_DECLS

#endif /* DMAMAP_WORKQUEUE_H */
