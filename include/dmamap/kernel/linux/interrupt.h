/* SPDX-License-Identifier: MIT */
/*
 * <linux/interrupt.h> of Linux 6.x over libdmamap (<dmamap/irq.h>):
 * irq_handler_t and the returns of <linux/irqreturn.h>; request_irq(),
 * request_threaded_irq(), request_any_context_irq(), free_irq(),
 * devm_request_irq(), devm_request_threaded_irq(),
 * devm_request_any_context_irq(), devm_free_irq(); disable_irq(),
 * disable_irq_nosync(), enable_irq(), synchronize_irq(); the IRQF_* flags
 * and IRQC_*; tasklets (<dmamap/tasklet.h>): struct tasklet_struct,
 * DECLARE_TASKLET() and its forms, tasklet_setup(), tasklet_init(),
 * from_tasklet(), tasklet_schedule(), tasklet_hi_schedule(),
 * tasklet_disable() and its forms, tasklet_enable(), tasklet_kill(),
 * tasklet_unlock_wait(), tasklet_trylock(), tasklet_unlock(); and
 * in_interrupt(), in_hardirq(), in_softirq() and the others of
 * <linux/preempt.h>, local_bh_disable() and local_bh_enable() of
 * <linux/bottom_half.h>, which the kernel's header brings too.
 *
 * The interrupt numbers are those of the current machine
 * (dmamap_machine_current()) for the calls that take no device, and of the
 * device's machine for the devm_ ones. A test raises a line with
 * dmamap_irq_raise(): the handlers run in its thread, in hard interrupt
 * context (interrupts off, in_hardirq() true), so a handler that sleeps is
 * reported as the kernel's CONFIG_DEBUG_ATOMIC_SLEEP reports it, and one
 * that returns holding a lock it took is reported (the raising thread
 * gets its own locks back, the lock stays locked). Then the
 * thread functions the handlers woke (IRQ_WAKE_THREAD) run, still before
 * dmamap_irq_raise() returns and in its thread, but in task context, as
 * the interrupt thread of each would run them at once: they may sleep
 * (mutex_lock(), msleep(), GFP_KERNEL), in_hardirq() is false there, and
 * the locks the raising thread holds are not theirs. IRQF_ONESHOT keeps
 * the line masked until they have returned: a raise meanwhile is pending,
 * delivered when the last returns. <dmamap/irq.h> tells the whole model.
 *
 * A tasklet runs in softirq context (in_softirq(), in_serving_softirq()
 * and in_interrupt() true, interrupts on, no sleeping) in the thread that
 * scheduled it: scheduled from a hard handler, when the delivery's
 * handlers are done, before the thread functions they woke (the kernel's
 * irq_exit()), with the raising thread's locks held; from task context,
 * at once, or when the thread next holds no spinlock and has interrupts
 * and bottom halves on (spin_unlock_bh(), local_bh_enable()...). A
 * tasklet never runs twice at once; a disabled one stays scheduled until
 * tasklet_enable(). <dmamap/tasklet.h> tells the whole model and where it
 * differs from the kernel's.
 *
 * Where it differs from the kernel: there is no interrupt thread of its
 * own: a thread function runs in the thread that raised its line (a
 * thread function that takes a lock that thread holds is reported as a
 * recursion, where the kernel's thread would wait); no irq descriptors or
 * chips (irq_set_irq_type(), irq_set_affinity(), irq_wake_thread() and the
 * like are not provided; request_any_context_irq() always requests a hard
 * interrupt handler, IRQC_IS_HARDIRQ), no softirqs but tasklets and the
 * BH workqueues of <linux/workqueue.h> (WQ_BH, system_bh_wq, run where
 * tasklets run). Of the
 * flags, IRQF_SHARED, IRQF_ONESHOT, IRQF_COND_ONESHOT and IRQF_NO_AUTOEN
 * act; the others are accepted and ignored. An interrupt no handler claims
 * is reported at once ("nobody cared"), not after 99,900 of them, and the
 * line stays on.
 */
#ifndef _LINUX_INTERRUPT_H
#define _LINUX_INTERRUPT_H

#include <dmamap/linux-api.h>
#include <dmamap/irq.h>
#include <dmamap/tasklet.h>
#include <linux/bitops.h>
#include <linux/bottom_half.h>
#include <linux/container_of.h>
#include <linux/irqflags.h>
#include <linux/irqreturn.h>
#include <linux/preempt.h>

/* The trigger types (accepted, ignored: the simulated lines have none). */
#define IRQF_TRIGGER_NONE 0x00000000
#define IRQF_TRIGGER_RISING 0x00000001
#define IRQF_TRIGGER_FALLING 0x00000002
#define IRQF_TRIGGER_HIGH 0x00000004
#define IRQF_TRIGGER_LOW 0x00000008
#define IRQF_TRIGGER_MASK (IRQF_TRIGGER_HIGH | IRQF_TRIGGER_LOW | IRQF_TRIGGER_RISING | IRQF_TRIGGER_FALLING)
#define IRQF_TRIGGER_PROBE 0x00000010

/* The request flags, the kernel's values: IRQF_SHARED, IRQF_ONESHOT, IRQF_COND_ONESHOT, IRQF_NO_AUTOEN act. */
#define IRQF_SHARED DMAMAP_IRQF_SHARED
#define IRQF_PROBE_SHARED 0x00000100
#define __IRQF_TIMER 0x00000200
#define IRQF_PERCPU 0x00000400
#define IRQF_NOBALANCING 0x00000800
#define IRQF_IRQPOLL 0x00001000
#define IRQF_ONESHOT DMAMAP_IRQF_ONESHOT
#define IRQF_NO_SUSPEND 0x00004000
#define IRQF_FORCE_RESUME 0x00008000
#define IRQF_NO_THREAD 0x00010000
#define IRQF_EARLY_RESUME 0x00020000
#define IRQF_COND_SUSPEND 0x00040000
#define IRQF_NO_AUTOEN DMAMAP_IRQF_NO_AUTOEN
#define IRQF_NO_DEBUG 0x00100000
#define IRQF_COND_ONESHOT DMAMAP_IRQF_COND_ONESHOT
#define IRQF_TIMER (__IRQF_TIMER | IRQF_NO_SUSPEND | IRQF_NO_THREAD)

/* What request_any_context_irq() returns on success: the handler runs in hard interrupt context, or nested in a thread. */
enum {
	IRQC_IS_HARDIRQ = 0,
	IRQC_IS_NESTED,
};

/*
 * request_irq() - register @handler on line @irq of the current machine
 * (see dmamap_request_irq_at()): 0, -EBUSY for a line taken without
 * IRQF_SHARED on both, -EINVAL (IRQF_SHARED with IRQF_NO_AUTOEN among
 * others), -ENOMEM. request_threaded_irq() registers
 * a handler (NULL: one that wakes the thread) and a thread function (see
 * dmamap_request_threaded_irq_at()): -EINVAL too for neither given, or no
 * handler without IRQF_ONESHOT. request_any_context_irq() is request_irq():
 * IRQC_IS_HARDIRQ (0) or the error. free_irq() removes the handler of
 * @dev_id, waiting for it and its thread function to return, and gives
 * back its name.
 */
#define request_irq(irq, handler, flags, name, dev) \
	dmamap_request_irq_at(NULL, (irq), (handler), (flags), (name), (dev), __FILE__, __LINE__)
#define request_threaded_irq(irq, handler, thread_fn, flags, name, dev) \
	dmamap_request_threaded_irq_at(NULL, (irq), (handler), (thread_fn), (flags), (name), (dev), __FILE__, __LINE__)
#define request_any_context_irq(irq, handler, flags, name, dev_id) request_irq(irq, handler, flags, name, dev_id)
#define free_irq(irq, dev_id) dmamap_free_irq_at(NULL, (irq), (dev_id), __FILE__, __LINE__)

/*
 * devm_request_irq() - request_irq() on @dev's machine, freed when the
 * driver unbinds (see dmamap_devm_request_irq_at()); devm_free_irq() frees
 * it before. devm_request_threaded_irq() and devm_request_any_context_irq()
 * are the managed forms of the others.
 */
#define devm_request_irq(dev, irq, handler, flags, name, dev_id) \
	dmamap_devm_request_irq_at((dev), (irq), (handler), (flags), (name), (dev_id), __FILE__, __LINE__)
#define devm_request_threaded_irq(dev, irq, handler, thread_fn, flags, name, dev_id)                          \
	dmamap_devm_request_threaded_irq_at((dev), (irq), (handler), (thread_fn), (flags), (name), (dev_id), __FILE__, \
					    __LINE__)
#define devm_request_any_context_irq(dev, irq, handler, flags, name, dev_id) \
	devm_request_irq(dev, irq, handler, flags, name, dev_id)
#define devm_free_irq(dev, irq, dev_id) dmamap_devm_free_irq_at((dev), (irq), (dev_id), __FILE__, __LINE__)

/*
 * disable_irq() - turn the line off and wait for its handlers and thread
 * functions running elsewhere (may sleep); disable_irq_nosync() does not
 * wait; enable_irq() undoes one disable and delivers a pending interrupt;
 * synchronize_irq() waits for the handlers and thread functions running
 * elsewhere (may sleep).
 */
#define disable_irq(irq) dmamap_irq_disable_at(NULL, (irq), true, __FILE__, __LINE__)
#define disable_irq_nosync(irq) dmamap_irq_disable_at(NULL, (irq), false, __FILE__, __LINE__)
#define enable_irq(irq) dmamap_irq_enable_at(NULL, (irq), __FILE__, __LINE__)
#define synchronize_irq(irq) dmamap_irq_synchronize_at(NULL, (irq), __FILE__, __LINE__)

/*
 * DECLARE_TASKLET() - define the tasklet @name calling @_callback with
 * itself (tasklet_setup()'s kind); DECLARE_TASKLET_DISABLED() defines it
 * disabled (a tasklet_enable() lets it run). The _OLD forms call @_func
 * with 0 (tasklet_init()'s kind).
 */
#define DECLARE_TASKLET(name, _callback) struct tasklet_struct name = DMAMAP_TASKLET_INIT_CALLBACK(_callback, 0)
#define DECLARE_TASKLET_DISABLED(name, _callback) \
	struct tasklet_struct name = DMAMAP_TASKLET_INIT_CALLBACK(_callback, 1)
#define DECLARE_TASKLET_OLD(name, _func) struct tasklet_struct name = DMAMAP_TASKLET_INIT_FUNC(_func, 0, 0)
#define DECLARE_TASKLET_DISABLED_OLD(name, _func) struct tasklet_struct name = DMAMAP_TASKLET_INIT_FUNC(_func, 0, 1)

/* from_tasklet() - the structure of @var's type whose @tasklet_fieldname is @callback_tasklet. */
#define from_tasklet(var, callback_tasklet, tasklet_fieldname) \
	container_of(callback_tasklet, __typeof__(*var), tasklet_fieldname)

/*
 * tasklet_setup() - make @t an idle, enabled tasklet calling @callback
 * with @t; tasklet_init() one calling @func with @data (see
 * dmamap_tasklet_init_at()).
 */
#define tasklet_setup(t, callback) dmamap_tasklet_init_at((t), NULL, (callback), 0, __FILE__, __LINE__)
#define tasklet_init(t, func, data) dmamap_tasklet_init_at((t), (func), NULL, (data), __FILE__, __LINE__)

/*
 * tasklet_schedule() - run @t in softirq context, in this thread, when it
 * next may (see dmamap_tasklet_schedule_at()); tasklet_hi_schedule()
 * before the others. Never sleeps.
 */
#define tasklet_schedule(t) dmamap_tasklet_schedule_at((t), false, __FILE__, __LINE__)
#define tasklet_hi_schedule(t) dmamap_tasklet_schedule_at((t), true, __FILE__, __LINE__)

/*
 * tasklet_disable() - keep @t from running, and wait for a run in another
 * thread (may sleep); tasklet_disable_nosync() does not wait;
 * tasklet_disable_in_atomic() waits without sleeping. tasklet_enable()
 * undoes one, and runs @t when it was scheduled meanwhile.
 */
#define tasklet_disable_nosync(t) dmamap_tasklet_disable_at((t), DMAMAP_TASKLET_DISABLE_NOSYNC, __FILE__, __LINE__)
#define tasklet_disable(t) dmamap_tasklet_disable_at((t), DMAMAP_TASKLET_DISABLE_WAIT, __FILE__, __LINE__)
#define tasklet_disable_in_atomic(t) dmamap_tasklet_disable_at((t), DMAMAP_TASKLET_DISABLE_ATOMIC, __FILE__, __LINE__)
#define tasklet_enable(t) dmamap_tasklet_enable_at((t), __FILE__, __LINE__)

/*
 * tasklet_kill() - wait until @t is neither scheduled nor running (may
 * sleep); tasklet_unlock_wait() until it does not run (may sleep),
 * tasklet_unlock_spin_wait() without sleeping; tasklet_trylock() and
 * tasklet_unlock() mark it running and not.
 */
#define tasklet_kill(t) dmamap_tasklet_kill_at((t), __FILE__, __LINE__)
#define tasklet_unlock_wait(t) dmamap_tasklet_unlock_wait_at((t), false, __FILE__, __LINE__)
#define tasklet_unlock_spin_wait(t) dmamap_tasklet_unlock_wait_at((t), true, __FILE__, __LINE__)
#define tasklet_trylock(t) dmamap_tasklet_trylock(t)
#define tasklet_unlock(t) dmamap_tasklet_unlock(t)

#endif /* _LINUX_INTERRUPT_H */
