/* SPDX-License-Identifier: MIT */
/*
 * <linux/workqueue.h> of Linux 6.x over libdmamap (<dmamap/workqueue.h>):
 * struct work_struct and struct delayed_work, INIT_WORK(),
 * INIT_DELAYED_WORK(), DECLARE_WORK(), DECLARE_DELAYED_WORK() and their
 * _ONSTACK forms, to_delayed_work(); queue_work(), queue_delayed_work(),
 * mod_delayed_work(), schedule_work(), schedule_delayed_work(),
 * cancel_work(), cancel_work_sync(), cancel_delayed_work() and its _sync
 * form, flush_work(), flush_delayed_work(), work_pending(),
 * delayed_work_pending(), work_busy(); alloc_workqueue(),
 * alloc_ordered_workqueue(), create_workqueue(),
 * create_singlethread_workqueue(), destroy_workqueue(),
 * flush_workqueue(), drain_workqueue(), and the system queues
 * (system_wq, system_highpri_wq, system_long_wq, system_unbound_wq,
 * system_freezable_wq, system_power_efficient_wq: one queue here).
 *
 * Each queue runs its items one at a time in its own thread, in process
 * context: an ordered queue, whatever the flags and max_active asked (a
 * driver that needs two items of one queue to run at once would wait
 * here). The calls carry the caller's line to the reports. The BH
 * workqueues of Linux 6.9 (alloc_workqueue() with WQ_BH, WQ_HIGHPRI too
 * for a high-priority one; system_bh_wq, system_bh_highpri_wq) have no
 * thread: their items run in softirq context where tasklets run
 * (<dmamap/tasklet.h>), in the thread that queued them; delayed work on
 * one is refused (reported), not provided.
 */
#ifndef _LINUX_WORKQUEUE_H
#define _LINUX_WORKQUEUE_H

#include <dmamap/linux-api.h>
#include <dmamap/workqueue.h>
#include <linux/jiffies.h>
#include <linux/types.h>

struct work_struct {
	struct dmamap_work dmamap_w;
};

struct delayed_work {
	struct work_struct work;
};

struct workqueue_struct;

/* The flags of alloc_workqueue(): WQ_BH makes a BH queue (WQ_HIGHPRI with it, a high-priority one); the others change nothing here. */
#define WQ_BH (1u << 0)
#define WQ_UNBOUND (1u << 1)
#define WQ_FREEZABLE (1u << 2)
#define WQ_MEM_RECLAIM (1u << 3)
#define WQ_HIGHPRI (1u << 4)
#define WQ_CPU_INTENSIVE (1u << 5)
#define WQ_SYSFS (1u << 6)
#define WQ_POWER_EFFICIENT (1u << 7)
#define WQ_PERCPU (1u << 8)
#define WQ_MAX_ACTIVE 512

#define system_wq ((struct workqueue_struct *)dmamap_wq_system())
#define system_highpri_wq system_wq
#define system_long_wq system_wq
#define system_unbound_wq system_wq
#define system_freezable_wq system_wq
#define system_power_efficient_wq system_wq
#define system_freezable_power_efficient_wq system_wq
#define system_percpu_wq system_wq
#define system_dfl_wq system_wq
#define system_bh_wq ((struct workqueue_struct *)dmamap_wq_system_bh(false))
#define system_bh_highpri_wq ((struct workqueue_struct *)dmamap_wq_system_bh(true))

#define DMAMAP_WORK_INITIALIZER_(f) { { (f), DMAMAP_WORK_MAGIC, NULL, NULL, 0, 0, 0, false, false, NULL, 0, 0 } }
#define __WORK_INITIALIZER(n, f) DMAMAP_WORK_INITIALIZER_(f)
#define DECLARE_WORK(n, f) struct work_struct n = DMAMAP_WORK_INITIALIZER_(f)
#define DECLARE_DELAYED_WORK(n, f) struct delayed_work n = { DMAMAP_WORK_INITIALIZER_(f) }

#define INIT_WORK(_work, _func) dmamap_work_init(&(_work)->dmamap_w, (_func))
#define INIT_WORK_ONSTACK(_work, _func) INIT_WORK(_work, _func)
#define INIT_DELAYED_WORK(_work, _func) INIT_WORK(&(_work)->work, _func)
#define INIT_DELAYED_WORK_ONSTACK(_work, _func) INIT_DELAYED_WORK(_work, _func)
#define INIT_DEFERRABLE_WORK(_work, _func) INIT_DELAYED_WORK(_work, _func)
#define destroy_work_on_stack(work) ((void)(work))
#define destroy_delayed_work_on_stack(work) ((void)(work))

/** to_delayed_work() - the delayed item whose .work is @work. */
static inline struct delayed_work *to_delayed_work(struct work_struct *work)
{
	return (struct delayed_work *)work;
}

#define DMAMAP_WQ_(wq) ((struct dmamap_wq *)(wq))

/** dmamap_alloc_workqueue_() - alloc_workqueue()'s queue: a BH one for WQ_BH, else one with its worker. */
static inline struct workqueue_struct *dmamap_alloc_workqueue_(const char *name, unsigned int flags)
{
	if (flags & WQ_BH)
		return (struct workqueue_struct *)dmamap_wq_alloc_bh(name, (flags & WQ_HIGHPRI) != 0);
	return (struct workqueue_struct *)dmamap_wq_alloc(name);
}

#define alloc_workqueue(fmt, flags, max_active, ...) \
	((void)(max_active), dmamap_alloc_workqueue_((fmt), (unsigned int)(flags)))
#define alloc_ordered_workqueue(fmt, flags, ...) ((struct workqueue_struct *)((void)(flags), dmamap_wq_alloc(fmt)))
#define create_workqueue(name) ((struct workqueue_struct *)dmamap_wq_alloc(name))
#define create_singlethread_workqueue(name) ((struct workqueue_struct *)dmamap_wq_alloc(name))
#define create_freezable_workqueue(name) ((struct workqueue_struct *)dmamap_wq_alloc(name))
#define destroy_workqueue(wq) dmamap_wq_destroy_at(DMAMAP_WQ_(wq), __FILE__, __LINE__)
#define flush_workqueue(wq) dmamap_flush_wq_at(DMAMAP_WQ_(wq), false, __FILE__, __LINE__)
#define drain_workqueue(wq) dmamap_flush_wq_at(DMAMAP_WQ_(wq), true, __FILE__, __LINE__)

#define queue_work(wq, work) dmamap_queue_work_at(DMAMAP_WQ_(wq), &(work)->dmamap_w, 0, __FILE__, __LINE__)
#define queue_delayed_work(wq, dwork, delay) \
	dmamap_queue_work_at(DMAMAP_WQ_(wq), &(dwork)->work.dmamap_w, (delay), __FILE__, __LINE__)
#define mod_delayed_work(wq, dwork, delay) \
	dmamap_mod_delayed_work_at(DMAMAP_WQ_(wq), &(dwork)->work.dmamap_w, (delay), __FILE__, __LINE__)
#define schedule_work(work) dmamap_queue_work_at(NULL, &(work)->dmamap_w, 0, __FILE__, __LINE__)
#define schedule_delayed_work(dwork, delay) \
	dmamap_queue_work_at(NULL, &(dwork)->work.dmamap_w, (delay), __FILE__, __LINE__)
#define cancel_work(work) dmamap_cancel_work_at(&(work)->dmamap_w, false, __FILE__, __LINE__)
#define cancel_work_sync(work) dmamap_cancel_work_at(&(work)->dmamap_w, true, __FILE__, __LINE__)
#define cancel_delayed_work(dwork) dmamap_cancel_work_at(&(dwork)->work.dmamap_w, false, __FILE__, __LINE__)
#define cancel_delayed_work_sync(dwork) dmamap_cancel_work_at(&(dwork)->work.dmamap_w, true, __FILE__, __LINE__)
#define flush_work(work) dmamap_flush_work_at(&(work)->dmamap_w, false, __FILE__, __LINE__)
#define flush_delayed_work(dwork) dmamap_flush_work_at(&(dwork)->work.dmamap_w, true, __FILE__, __LINE__)
#define flush_scheduled_work() dmamap_flush_wq_at(NULL, false, __FILE__, __LINE__)
#define work_pending(work) dmamap_work_pending(&(work)->dmamap_w)
#define delayed_work_pending(dwork) work_pending(&(dwork)->work)
#define work_busy(work) ((unsigned int)dmamap_work_busy(&(work)->dmamap_w))

#endif /* _LINUX_WORKQUEUE_H */
