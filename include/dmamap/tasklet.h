/* SPDX-License-Identifier: MIT */
/*
 * Tasklets: the kernel's deferred work in softirq context, what the
 * tasklet part of <linux/interrupt.h> of the Linux 6.x headers is made of.
 *
 * A tasklet runs in softirq context: in_softirq(), in_serving_softirq(),
 * in_interrupt() and in_atomic() are true, in_hardirq() false, interrupts
 * on. It may not sleep: mutex_lock(), msleep(), GFP_KERNEL and the other
 * calls that may sleep are reported in it as DMAMAP_REPORT_SLEEP_IN_ATOMIC,
 * as in a hard interrupt handler; one that returns holding a lock it took
 * (or with interrupts or bottom halves off) is reported as
 * DMAMAP_REPORT_LOCK_MISUSE, and the thread gets back the locks and state
 * it had before (the lock stays locked).
 *
 * A test's thread plays a CPU: a tasklet runs in the thread that
 * scheduled it, at that thread's next point where softirqs may run, as the
 * kernel runs it on the CPU that scheduled it:
 *
 *  - scheduled from a hard interrupt handler (dmamap_irq_raise(),
 *    <dmamap/irq.h>): when the delivery's handlers are done, as the
 *    kernel's irq_exit() runs softirqs, before the thread functions they
 *    woke, unless the raise came with bottom halves off or in a tasklet
 *    (then as below). It runs on the raising thread's "CPU": the locks the
 *    raising thread holds are held there, so a tasklet taking one of them
 *    is reported as the recursion it is (a deadlock on a kernel), as a
 *    hard handler's is;
 *  - scheduled from task context: at once when the thread holds no
 *    spinlock and has interrupts and bottom halves on (holding a mutex
 *    does not wait: a mutex holder may be preempted by ksoftirqd; the
 *    tasklet taking that mutex is a sleep in atomic context all the same);
 *    otherwise at the spin_unlock(), spin_unlock_bh(), local_bh_enable()
 *    or local_irq_restore() after which none of those holds, as the
 *    kernel runs pending softirqs at local_bh_enable() and ksoftirqd runs
 *    them once the thread may be preempted;
 *  - scheduled from a tasklet: after it returns, in the same run;
 *  - scheduled from a thread function of a threaded interrupt (task
 *    context of its own): at once.
 *
 * High-priority tasklets (tasklet_hi_schedule()) of a thread run before
 * its others; each kind runs in the order scheduled. A tasklet scheduled
 * while scheduled runs once (TASKLET_STATE_SCHED); scheduled while it runs
 * (from itself or from another thread), it runs once more after it
 * returns, in the thread that ran it, never two runs at once
 * (TASKLET_STATE_RUN). A disabled tasklet (tasklet_disable()) stays
 * scheduled without running; the enable that makes its count 0 hands it
 * to the enabling thread, which runs it at its next point as above.
 *
 * Where it differs from the kernel: a tasklet scheduled while it runs in
 * another thread runs again in that thread (the kernel queues it on the
 * scheduling CPU, which retries until the run ends); an enabled tasklet
 * runs in the enabling thread (the kernel's runs on the CPU that
 * scheduled it, at its next softirq pass); softirqs run at the unlock of a
 * thread's last spinlock and at a local_irq_restore() that turns
 * interrupts on (the kernel's ksoftirqd would run them soon after), and a
 * local_bh_enable() made holding a spinlock does not run them (the
 * kernel's does); there is no ksoftirqd: a thread that ends with tasklets
 * scheduled (bottom halves left off, reported) runs them as it ends, as
 * its CPU would. There are no other softirqs.
 *
 * The BH workqueues of Linux 6.9 (<dmamap/workqueue.h>'s
 * dmamap_wq_alloc_bh(), WQ_BH and system_bh_wq of <linux/workqueue.h>)
 * run their items as tasklets: in softirq context, in the queuing thread,
 * where a tasklet it scheduled at that moment would run (an item queued
 * again while it runs runs after, in the thread that runs it). A
 * thread's softirq pass runs, as the kernel's does, the items of the
 * high-priority BH queues, then high-priority tasklets, then the other BH
 * items, then the other tasklets, each kind in the order queued.
 *
 * Reported: scheduling a tasklet never initialised (DMAMAP_REPORT_BAD_INPUT,
 * nothing scheduled); an enable without a disable (DMAMAP_REPORT_API_MISUSE,
 * the count stays 0); tasklet_kill(), tasklet_disable() and
 * tasklet_unlock_wait() made from the tasklet itself, and tasklet_kill() of
 * a disabled tasklet still scheduled (each would wait for ever on a kernel:
 * DMAMAP_REPORT_LOCK_MISUSE, nothing waited for); tasklet_kill(),
 * tasklet_disable() and tasklet_unlock_wait() in atomic context (they may
 * sleep); tasklets still scheduled when their machine (the current one at
 * schedule time) is destroyed (DMAMAP_REPORT_LEAK, each with where it was
 * initialised and scheduled; forgotten without touching their memory).
 * Every call is thread-safe.
 */
#ifndef DMAMAP_TASKLET_H
#define DMAMAP_TASKLET_H

#include <stdbool.h>

#include <dmamap/types.h>

DMAMAP_BEGIN_DECLS

#ifndef DMAMAP_HAVE_ATOMIC_T
#define DMAMAP_HAVE_ATOMIC_T 1
typedef struct {
	int counter;
} atomic_t;

typedef struct {
	s64 counter;
} atomic64_t;
#endif

/* The bits of a tasklet's @state, the kernel's: scheduled, and running now. */
enum {
	TASKLET_STATE_SCHED,
	TASKLET_STATE_RUN,
};

/* What dmamap_tasklet_init_at() and the static initialisers mark a tasklet with. */
#define DMAMAP_TASKLET_MAGIC 0x7461736b6c6574UL

/*
 * A tasklet: the kernel's struct tasklet_struct, with the library's part
 * after. @state and @count are changed by the library's calls only; a
 * driver reads @data, and finds its structure from the tasklet with
 * from_tasklet().
 */
struct tasklet_struct {
	struct tasklet_struct *next; /* the kernel's list link: unused here */
	unsigned long state;         /* 1 << TASKLET_STATE_SCHED, 1 << TASKLET_STATE_RUN */
	atomic_t count;              /* disables not undone: runs only at 0 */
	bool use_callback;           /* @callback, else @func with @data */
	union {
		void (*func)(unsigned long data);
		void (*callback)(struct tasklet_struct *t);
	};
	unsigned long data;
	/* the library's */
	unsigned long dmamap_magic;  /* DMAMAP_TASKLET_MAGIC once initialised */
	bool dmamap_again;           /* scheduled while it ran: it runs once more */
	const char *dmamap_file;     /* where it was initialised (or defined), or NULL */
	int dmamap_line;
};

/*
 * The static initialisers of DECLARE_TASKLET() and its forms: a tasklet
 * calling @cb with itself, or @fn with @dat; @cnt 0, or 1 for a disabled
 * one. The line where one is expanded names the tasklet in reports.
 */
#define DMAMAP_TASKLET_INIT_CALLBACK(cb, cnt)                                                             \
	{ .next = NULL, .state = 0, .count = { (cnt) }, .use_callback = true, .callback = (cb), .data = 0,       \
	  .dmamap_magic = DMAMAP_TASKLET_MAGIC, .dmamap_again = false, .dmamap_file = __FILE__, .dmamap_line = __LINE__ }
#define DMAMAP_TASKLET_INIT_FUNC(fn, dat, cnt)                                                              \
	{ .next = NULL, .state = 0, .count = { (cnt) }, .use_callback = false, .func = (fn), .data = (dat),     \
	  .dmamap_magic = DMAMAP_TASKLET_MAGIC, .dmamap_again = false, .dmamap_file = __FILE__, .dmamap_line = __LINE__ }

/**
 * dmamap_tasklet_init_at() - tasklet_init() and tasklet_setup(): make @t an idle, enabled tasklet
 * @t: caller-owned storage, not scheduled nor running
 * @func: the function called with @data (tasklet_init()), or NULL
 * @callback: the function called with @t (tasklet_setup()), or NULL; one
 *            of @func and @callback is given
 * @data: what @func is called with
 * @file: the caller's source file (a string that lives as long as the
 *        process, as __FILE__ does), or NULL: reports name it
 * @line: the caller's source line
 *
 * Nothing to tear down: the tasklet is the caller's; it must be neither
 * scheduled nor running when its memory goes (tasklet_kill()).
 */
DMAMAP_API void dmamap_tasklet_init_at(struct tasklet_struct *t, void (*func)(unsigned long data),
				       void (*callback)(struct tasklet_struct *t), unsigned long data,
				       const char *file, int line);

/**
 * dmamap_tasklet_schedule_at() - tasklet_schedule(), tasklet_hi_schedule(): run @t in this thread's softirq context
 * @t: an initialised tasklet
 * @hi: a high-priority tasklet (tasklet_hi_schedule()): it runs before
 *      the thread's others
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 *
 * Marks @t scheduled and runs it when this thread next may (see the top),
 * which may be before this returns. Never sleeps: callable from any
 * context, a hard interrupt handler included. A tasklet already scheduled
 * is left as it is; one that runs now runs once more after it returns. A
 * tasklet never initialised (no dmamap_tasklet_init_at() nor static
 * initialiser, or no function) is reported as DMAMAP_REPORT_BAD_INPUT and
 * nothing is scheduled.
 */
DMAMAP_API void dmamap_tasklet_schedule_at(struct tasklet_struct *t, bool hi, const char *file, int line);

/* How dmamap_tasklet_disable_at() treats a run in progress. */
enum dmamap_tasklet_disable {
	DMAMAP_TASKLET_DISABLE_NOSYNC = 0, /* tasklet_disable_nosync(): does not wait */
	DMAMAP_TASKLET_DISABLE_WAIT,       /* tasklet_disable(): waits, may sleep */
	DMAMAP_TASKLET_DISABLE_ATOMIC,     /* tasklet_disable_in_atomic(): waits without sleeping */
};

/**
 * dmamap_tasklet_disable_at() - tasklet_disable() and its forms: @t does not run until enabled
 * @t: the tasklet
 * @how: an enum dmamap_tasklet_disable
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 *
 * Disables nest. A scheduled tasklet stays scheduled. With a wait, a run
 * of @t in another thread has returned when this does; a call from @t
 * itself is reported (DMAMAP_REPORT_LOCK_MISUSE: the kernel would wait for
 * itself for ever) and does not wait. DMAMAP_TASKLET_DISABLE_WAIT in
 * atomic context is reported as dmamap_might_sleep_at() says.
 */
DMAMAP_API void dmamap_tasklet_disable_at(struct tasklet_struct *t, int how, const char *file, int line);

/**
 * dmamap_tasklet_enable_at() - tasklet_enable(): undo one disable of @t
 * @t: the tasklet
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 *
 * When the count drops to 0 and @t is scheduled, it runs in this thread,
 * at once if it may, else at its next point (see the top). An enable of a
 * tasklet not disabled is reported as DMAMAP_REPORT_API_MISUSE and the
 * count stays 0.
 */
DMAMAP_API void dmamap_tasklet_enable_at(struct tasklet_struct *t, const char *file, int line);

/**
 * dmamap_tasklet_kill_at() - tasklet_kill(): wait until @t is neither scheduled nor running
 * @t: the tasklet
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 *
 * A scheduled tasklet runs first (in the thread it is scheduled on; one
 * scheduled on this thread runs now). Schedules made meanwhile are lost,
 * as the kernel's. May sleep: in atomic context it is reported as
 * dmamap_might_sleep_at() says. A disabled tasklet still scheduled would
 * be waited for for ever, and a call from @t itself too: each is reported
 * as DMAMAP_REPORT_LOCK_MISUSE and nothing changes.
 */
DMAMAP_API void dmamap_tasklet_kill_at(struct tasklet_struct *t, const char *file, int line);

/**
 * dmamap_tasklet_unlock_wait_at() - tasklet_unlock_wait(), tasklet_unlock_spin_wait(): wait until @t does not run
 * @t: the tasklet
 * @spin: tasklet_unlock_spin_wait(), which never sleeps; else a call that
 *        may sleep, checked as dmamap_might_sleep_at() checks
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 *
 * From @t itself it is reported (DMAMAP_REPORT_LOCK_MISUSE) and does not
 * wait.
 */
DMAMAP_API void dmamap_tasklet_unlock_wait_at(struct tasklet_struct *t, bool spin, const char *file, int line);

/**
 * dmamap_tasklet_trylock() - tasklet_trylock(): mark @t running, if it is not
 * @t: the tasklet
 *
 * While the caller holds it so, @t does not run (a run waits for
 * dmamap_tasklet_unlock()).
 * Return: true when the caller now holds it, false when it runs.
 */
DMAMAP_API bool dmamap_tasklet_trylock(struct tasklet_struct *t);

/**
 * dmamap_tasklet_unlock() - tasklet_unlock(): let go of @t, marked running by dmamap_tasklet_trylock()
 * @t: the tasklet
 *
 * Waiters for @t wake; a schedule made meanwhile runs @t in this thread
 * (see dmamap_tasklet_schedule_at()).
 */
DMAMAP_API void dmamap_tasklet_unlock(struct tasklet_struct *t);

/**
 * dmamap_tasklet_scheduled() - whether @t is scheduled and not yet running (racy, as the kernel's state bits)
 * @t: the tasklet
 *
 * Return: true when TASKLET_STATE_SCHED is set.
 */
DMAMAP_API bool dmamap_tasklet_scheduled(struct tasklet_struct *t);

DMAMAP_END_DECLS

#endif /* DMAMAP_TASKLET_H */
