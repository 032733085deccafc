/* SPDX-License-Identifier: MIT */
/*
 * Interrupt lines and their handlers: what <linux/interrupt.h> and
 * <linux/irqreturn.h> of the Linux 6.x headers are made of, and the call a
 * test raises an interrupt with.
 *
 * Each machine has its own interrupt lines, numbered 0 to DMAMAP_NR_IRQS - 1
 * (the numbers mean nothing else: a test gives its device one and the
 * driver requests it). A handler is registered on a line with
 * dmamap_request_irq_at() (request_irq()), a handler and a thread function
 * with dmamap_request_threaded_irq_at() (request_threaded_irq()), or their
 * managed forms (devm_request_irq(), devm_request_threaded_irq(), released
 * with the device's managed resources), in the kernel's rules: a line is
 * shared only when every handler on it asked for IRQF_SHARED and all agree
 * on IRQF_ONESHOT, and a shared handler needs a dev_id that tells it
 * apart.
 *
 * No hardware raises anything: a test calls dmamap_irq_raise(), which runs
 * every handler of the line, in the order they were requested, in the
 * calling thread and in hard interrupt context: the thread has its
 * interrupts off and in_interrupt(), in_hardirq() and in_atomic() are true
 * while they run, so a handler that sleeps or allocates with GFP_KERNEL is
 * reported as DMAMAP_REPORT_SLEEP_IN_ATOMIC, as the kernel's
 * CONFIG_DEBUG_ATOMIC_SLEEP reports it. A handler that returns with a lock
 * it took still held is reported as DMAMAP_REPORT_LOCK_MISUSE, "irq N
 * handler NAME returned with 1 lock held: ..." (each lock with where it
 * was taken; the kernel has no warning of its own there, the mistake
 * shows later), and the raising thread gets back the locks it held before
 * (the lock stays locked), as for a thread function; one that turns
 * interrupts on is reported too, "irq N handler NAME enabled interrupts",
 * as the kernel warns (interrupts left off are what a handler runs with:
 * the raise gives the thread its own state back). A line turned off with
 * disable_irq() remembers a raise as pending and delivers it, in the
 * thread that calls the enable_irq() that turns it back on, as the kernel
 * resends an edge interrupt.
 *
 * Threaded handlers. A handler that returns IRQ_WAKE_THREAD wakes its
 * thread function, and the thread functions woken run when the line's
 * handlers have all returned, before dmamap_irq_raise() returns, in the
 * calling thread, one after the other in the order they were woken: as if
 * each action's interrupt thread ran at once; the tasklets the handlers
 * scheduled run before them, in softirq context, as the kernel's
 * irq_exit() runs them (<dmamap/tasklet.h>). A thread function runs in
 * task context, as a thread of its own: interrupts on, in_hardirq() false,
 * none of the locks the raising thread holds counted as its (lockdep and
 * the sleep checks see only its own), so it may sleep: mutex_lock(),
 * msleep(), GFP_KERNEL. One that returns with a lock held or interrupts
 * off is reported as DMAMAP_REPORT_LOCK_MISUSE, and the raising thread
 * gets its own state back (the lock stays locked). A raise nested in a
 * handler (a handler that raises another line) leaves the thread functions
 * it wakes to run when the outermost handler has returned; a raise made
 * from a thread function runs the ones it wakes before it returns. A thread
 * function woken again while it runs (its own line raised from it, or from
 * another thread) runs once more when it returns, never two at once, as
 * the kernel's IRQTF_RUNTHREAD does. A line requested with IRQF_ONESHOT
 * stays masked from a wake until its thread functions have returned: a
 * raise meanwhile, from the thread function itself or from another
 * thread, is pending (once), and is delivered, handlers then thread
 * functions, by the thread whose thread function returns last, right after
 * it returns (a line also turned off waits for its enable_irq()), as the
 * kernel unmasks the line and a level interrupt still asserted fires.
 *
 * An interrupt that no handler claims (none registered, or each returned
 * IRQ_NONE; or each handler that did not returned IRQ_WAKE_THREAD and each
 * thread function it woke returned IRQ_NONE) is reported as
 * DMAMAP_REPORT_API_MISUSE, "irq N: nobody cared": the kernel only says so
 * after 99,900 of 100,000 interrupts went unhandled, and then turns the
 * line off; here each one is reported and the line stays on, so that a
 * test sees the first. A wake whose thread function runs elsewhere or
 * later (already woken, or a nested raise) counts as claimed, as the
 * kernel defers its judgement to the next interrupt.
 *
 * Where it differs from the kernel: there is no interrupt thread of its
 * own, the thread functions run in the thread that raised the line (so a
 * thread function that takes a lock the raising thread holds is reported
 * as a recursion, where the kernel's thread would wait for it; raise lines
 * with no lock held); trigger types and the other IRQF_* flags are
 * accepted and ignored, but for IRQF_SHARED, IRQF_ONESHOT,
 * IRQF_COND_ONESHOT and IRQF_NO_AUTOEN; an interrupt is never delivered by
 * itself, only by the calls above. The lines of a machine are its own:
 * requesting a line on one machine tells nothing to another. Handlers
 * still requested when the machine is destroyed are reported as
 * DMAMAP_REPORT_LEAK (each with where it was requested) and freed.
 *
 * The calls may be made from any thread. free_irq(), disable_irq() and
 * synchronize_irq() wait for the handlers of the line running in other
 * threads to return, and for the thread functions of the line woken in
 * other threads, as the kernel's do (those the calling thread has queued
 * and not run yet, it runs then); from a handler or thread function of
 * the line itself they do not wait (the kernel would deadlock there: a
 * free is refused and reported, a disable_irq() or synchronize_irq() from
 * a thread function reported).
 */
#ifndef DMAMAP_IRQ_H
#define DMAMAP_IRQ_H

#include <dmamap/types.h>

DMAMAP_BEGIN_DECLS

struct device;

/* What a handler returns: <linux/irqreturn.h>'s values. */
#ifndef DMAMAP_HAVE_IRQRETURN
#define DMAMAP_HAVE_IRQRETURN 1
enum irqreturn {
	IRQ_NONE = 0,           /* not this device's interrupt, or nothing to do */
	IRQ_HANDLED = 1 << 0,   /* handled */
	IRQ_WAKE_THREAD = 1 << 1, /* wake the handler's thread function */
};
typedef enum irqreturn irqreturn_t;
/* A handler: the line's number and the dev_id given at its request. */
typedef irqreturn_t (*irq_handler_t)(int irq, void *dev_id);
#endif

/* The interrupt lines of a machine: 0 to this minus 1. */
#define DMAMAP_NR_IRQS 1024u

/* The flags of a request the library acts on (the kernel's IRQF_* values). */
#define DMAMAP_IRQF_SHARED 0x00000080ul
#define DMAMAP_IRQF_ONESHOT 0x00002000ul
#define DMAMAP_IRQF_NO_AUTOEN 0x00080000ul
#define DMAMAP_IRQF_COND_ONESHOT 0x00200000ul

/**
 * dmamap_request_irq_at() - register @handler on line @irq of machine @m: request_irq()
 * @m: the machine, or NULL for the current one
 * @irq: the line, below DMAMAP_NR_IRQS
 * @handler: the handler, called with @irq and @dev_id
 * @flags: IRQF_* flags: IRQF_SHARED to share the line, IRQF_NO_AUTOEN to
 *         leave a line requested first disabled (until enable_irq(); not
 *         with IRQF_SHARED),
 *         IRQF_ONESHOT (no thread function here: it only has to agree with
 *         the line's other handlers); IRQF_COND_ONESHOT is added, as the
 *         kernel's request_irq() adds it; the others are accepted and
 *         ignored
 * @name: the handler's name for reports (not copied: it must outlive the
 *        registration, as the kernel's), or NULL
 * @dev_id: the handler's cookie, given back to it; names the registration
 *          for dmamap_free_irq_at()
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 *
 * dmamap_request_threaded_irq_at() with no thread function. The handler
 * runs after the handlers already on the line. A line that had none starts
 * enabled (disabled with IRQF_NO_AUTOEN), nothing pending. The
 * registration is the library's until freed; it is freed, and reported as
 * a leak, at the machine's destruction.
 * Return: 0; -EINVAL for a line out of range, a NULL @handler,
 * IRQF_SHARED with a NULL @dev_id, or IRQF_SHARED with IRQF_NO_AUTOEN (a
 * line shared cannot start disabled, as the kernel refuses it), each
 * reported as DMAMAP_REPORT_BAD_INPUT, nothing registered; -EBUSY when the line has handlers and this
 * request or one of them lacks IRQF_SHARED, or the first of them was
 * requested with IRQF_ONESHOT and this request is not (not reported: a
 * driver may try another line); -ENOMEM when memory or a machine cannot be
 * had.
 */
DMAMAP_API DMAMAP_MUST_CHECK int dmamap_request_irq_at(struct dmamap_machine *m, unsigned int irq,
							 irq_handler_t handler, unsigned long flags, const char *name,
							 void *dev_id, const char *file, int line);

/**
 * dmamap_request_threaded_irq_at() - register @handler and @thread_fn on line @irq of machine @m: request_threaded_irq()
 * @m: the machine, or NULL for the current one
 * @irq: the line, below DMAMAP_NR_IRQS
 * @handler: the primary handler, run in hard interrupt context; NULL for
 *           the default one, which returns IRQ_WAKE_THREAD
 * @thread_fn: the thread function, run in task context when @handler
 *             returns IRQ_WAKE_THREAD (see the top), called with @irq and
 *             @dev_id; NULL for none (then this is request_irq() without
 *             IRQF_COND_ONESHOT)
 * @flags: IRQF_* flags: IRQF_SHARED, IRQF_NO_AUTOEN as
 *         dmamap_request_irq_at() takes them; IRQF_ONESHOT to keep the
 *         line masked until the thread functions woken have returned;
 *         IRQF_COND_ONESHOT to take IRQF_ONESHOT when the line's first
 *         handler has it; the others are accepted and ignored
 * @name: the handler's name for reports (not copied), or NULL
 * @dev_id: the cookie given back to @handler and @thread_fn; names the
 *          registration for dmamap_free_irq_at()
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 *
 * As the kernel's: the handler runs after those already on the line, and
 * the registration is the library's until freed (reported as a leak, and
 * freed, at the machine's destruction).
 * Return: 0; -EINVAL for a line out of range, IRQF_SHARED with a NULL
 * @dev_id, IRQF_SHARED with IRQF_NO_AUTOEN, a NULL @handler with a NULL
 * @thread_fn, or a NULL @handler
 * without IRQF_ONESHOT (the kernel's "Threaded irq requested with
 * handler=NULL and !ONESHOT"), each reported as DMAMAP_REPORT_BAD_INPUT,
 * nothing registered; -EBUSY when the line has handlers and this request
 * or the first of them lacks IRQF_SHARED, or they disagree on
 * IRQF_ONESHOT (not reported); -ENOMEM when memory or a machine cannot be
 * had.
 */
DMAMAP_API DMAMAP_MUST_CHECK int dmamap_request_threaded_irq_at(struct dmamap_machine *m, unsigned int irq,
								  irq_handler_t handler, irq_handler_t thread_fn,
								  unsigned long flags, const char *name, void *dev_id,
								  const char *file, int line);

/**
 * dmamap_free_irq_at() - remove the handler of @dev_id from line @irq of machine @m: free_irq()
 * @m: the machine, or NULL for the current one
 * @irq: the line
 * @dev_id: the cookie the handler was requested with
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 *
 * Waits until no other thread runs a handler of the line or has one of its
 * thread functions woken, so that once it returns neither the handler nor
 * its thread function is called again; the runs of the line's thread
 * functions the calling thread itself has queued (woken by a raise nested
 * in a handler, not run yet) are made first, as the kernel's interrupt
 * thread runs once more before it stops.
 * A line holding no handler of
 * @dev_id is reported as DMAMAP_REPORT_API_MISUSE ("Trying to free
 * already-free IRQ", as the kernel warns) and nothing changes. A handler
 * requested with devm_request_irq() is freed all the same, and reported
 * (DMAMAP_REPORT_API_MISUSE: devm_free_irq() frees it). A call from one of
 * the line's own handlers or thread functions is reported as
 * DMAMAP_REPORT_LOCK_MISUSE (the kernel would wait for it for ever) and
 * frees nothing.
 * Return: the @name the handler was requested with, or NULL (none, or
 * nothing freed).
 */
DMAMAP_API const void *dmamap_free_irq_at(struct dmamap_machine *m, unsigned int irq, void *dev_id,
					  const char *file, int line);

/**
 * dmamap_devm_request_irq_at() - request_irq() on @dev's machine, freed with @dev's managed resources: devm_request_irq()
 * @dev: an initialised device (its machine's lines are meant)
 * @irq: the line, below DMAMAP_NR_IRQS
 * @handler: the handler
 * @flags: IRQF_* flags, as dmamap_request_irq_at() takes them
 *         (IRQF_COND_ONESHOT is added, as the kernel's devm_request_irq()
 *         adds it)
 * @name: the handler's name (not copied), or NULL for the device's name
 * @dev_id: the handler's cookie
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 *
 * When the driver unbinds (or its probe fails), the handler is freed as
 * free_irq() frees it, in the order of the managed resources (newest
 * first).
 * Return: what dmamap_request_irq_at() returns; -EINVAL (reported) for a
 * NULL or uninitialised @dev; -ENOMEM when the managed record cannot be
 * had (the handler is then freed again).
 */
DMAMAP_API DMAMAP_MUST_CHECK int dmamap_devm_request_irq_at(struct device *dev, unsigned int irq,
							      irq_handler_t handler, unsigned long flags,
							      const char *name, void *dev_id, const char *file,
							      int line);

/**
 * dmamap_devm_request_threaded_irq_at() - request_threaded_irq() on @dev's machine, freed with @dev's managed resources: devm_request_threaded_irq()
 * @dev: an initialised device (its machine's lines are meant)
 * @irq: the line, below DMAMAP_NR_IRQS
 * @handler: the primary handler, or NULL for the default one
 * @thread_fn: the thread function, or NULL for none
 * @flags: IRQF_* flags, as dmamap_request_threaded_irq_at() takes them
 * @name: the handler's name (not copied), or NULL for the device's name
 * @dev_id: the cookie given back to @handler and @thread_fn
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 *
 * When the driver unbinds (or its probe fails), the handler is freed as
 * free_irq() frees it, waiting for its thread function, in the order of
 * the managed resources (newest first); devm_free_irq() frees it before.
 * Return: what dmamap_request_threaded_irq_at() returns; -EINVAL
 * (reported) for a NULL or uninitialised @dev; -ENOMEM when the managed
 * record cannot be had (the handler is then freed again).
 */
DMAMAP_API DMAMAP_MUST_CHECK int dmamap_devm_request_threaded_irq_at(struct device *dev, unsigned int irq,
								       irq_handler_t handler, irq_handler_t thread_fn,
								       unsigned long flags, const char *name,
								       void *dev_id, const char *file, int line);

/**
 * dmamap_devm_free_irq_at() - free now a handler devm_request_irq() registered: devm_free_irq()
 * @dev: the device it was requested for
 * @irq: the line
 * @dev_id: its cookie
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 *
 * Frees it as dmamap_free_irq_at() does (refusing a call from the line's
 * own handler the same way) and forgets its managed record. A
 * handler @dev did not request with devm_request_irq() is reported as
 * DMAMAP_REPORT_API_MISUSE and nothing changes.
 */
DMAMAP_API void dmamap_devm_free_irq_at(struct device *dev, unsigned int irq, void *dev_id, const char *file,
					int line);

/**
 * dmamap_irq_disable_at() - turn line @irq of machine @m off: disable_irq(), disable_irq_nosync()
 * @m: the machine, or NULL for the current one
 * @irq: the line, below DMAMAP_NR_IRQS (else reported, DMAMAP_REPORT_BAD_INPUT)
 * @sync: wait for the handlers running in other threads to return, and
 *        the thread functions of the line woken in other threads (those
 *        the calling thread has queued run now)
 *        (disable_irq(), a call that may sleep, checked as
 *        dmamap_might_sleep_at() checks; from one of the line's own
 *        thread functions it is reported as DMAMAP_REPORT_LOCK_MISUSE, the
 *        kernel waiting for itself for ever, and does not wait for it);
 *        false for disable_irq_nosync()
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 *
 * Disables nest: the line is on again after as many enables. While it is
 * off, a raise is remembered (once) and delivered by the enable that turns
 * it on. A thread function already woken still runs.
 */
DMAMAP_API void dmamap_irq_disable_at(struct dmamap_machine *m, unsigned int irq, bool sync, const char *file,
				      int line);

/**
 * dmamap_irq_enable_at() - undo one disable of line @irq of machine @m: enable_irq()
 * @m: the machine, or NULL for the current one
 * @irq: the line, below DMAMAP_NR_IRQS (else reported, DMAMAP_REPORT_BAD_INPUT)
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 *
 * When this turns the line on and a raise is pending, the handlers (and
 * the thread functions they wake) run now, in the calling thread, as
 * dmamap_irq_raise() runs them; on a line an IRQF_ONESHOT thread function
 * keeps masked, when that returns. An enable of a
 * line that is on is reported as DMAMAP_REPORT_API_MISUSE ("Unbalanced
 * enable for IRQ", as the kernel warns) and nothing changes.
 */
DMAMAP_API void dmamap_irq_enable_at(struct dmamap_machine *m, unsigned int irq, const char *file, int line);

/**
 * dmamap_irq_synchronize_at() - wait for the handlers of line @irq running in other threads: synchronize_irq()
 * @m: the machine, or NULL for the current one
 * @irq: the line, below DMAMAP_NR_IRQS (else reported, DMAMAP_REPORT_BAD_INPUT)
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 *
 * Waits for the thread functions of the line woken in other threads too;
 * those the calling thread has queued (woken by a raise nested in a
 * handler, not run yet) run now, so that all have returned when it does.
 * A call that may sleep, checked as dmamap_might_sleep_at() checks; from
 * one of the line's own thread functions it is reported as
 * DMAMAP_REPORT_LOCK_MISUSE (the kernel would wait for itself for ever)
 * and does not wait for that one.
 */
DMAMAP_API void dmamap_irq_synchronize_at(struct dmamap_machine *m, unsigned int irq, const char *file, int line);

/**
 * dmamap_irq_raise() - the device raises line @irq of machine @m: run its handlers now
 * @m: the machine, or NULL for the current one
 * @irq: the line, below DMAMAP_NR_IRQS
 *
 * Each handler of the line runs, in the order they were requested, in the
 * calling thread, in hard interrupt context: the thread's interrupts are
 * off and dmamap_in_hardirq() is true until the last returns (a handler may
 * raise another line: it runs nested). Then the tasklets they scheduled
 * run (unless the thread has bottom halves off or runs a tasklet: then at
 * its next point where softirqs may run, <dmamap/tasklet.h>), then the
 * thread functions the handlers woke (IRQ_WAKE_THREAD), in the calling
 * thread, in task context (see the top). A handler that returns holding a lock it took,
 * or with interrupts on, is reported as DMAMAP_REPORT_LOCK_MISUSE, and the
 * thread's locks and interrupt state are given back as they were before
 * the raise. A handler with no thread function that returns
 * IRQ_WAKE_THREAD counts as handled and is reported as
 * DMAMAP_REPORT_API_MISUSE, as the kernel warns. A line that is off
 * (disable_irq()), or masked while an IRQF_ONESHOT thread function has not
 * returned, runs nothing: the raise is pending until enable_irq() or that
 * return. An interrupt that no handler or thread function claims is
 * reported as DMAMAP_REPORT_API_MISUSE, "irq N: nobody cared".
 * Return: how many handlers returned IRQ_HANDLED or IRQ_WAKE_THREAD (the
 * thread functions' returns are not counted); 0 when none did or the line
 * is off; -EINVAL for a line out of range (reported as
 * DMAMAP_REPORT_BAD_INPUT); -ENOMEM when no machine can be had.
 */
DMAMAP_API int dmamap_irq_raise(struct dmamap_machine *m, unsigned int irq);

/**
 * dmamap_irq_handlers() - how many handlers line @irq of machine @m has now
 * @m: the machine, or NULL for the current one
 * @irq: the line
 *
 * Return: the count; 0 for a line out of range or a machine that cannot be had.
 */
DMAMAP_API unsigned int dmamap_irq_handlers(struct dmamap_machine *m, unsigned int irq);

DMAMAP_END_DECLS

#endif /* DMAMAP_IRQ_H */
