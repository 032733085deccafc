/* SPDX-License-Identifier: MIT */
/*
 * Interrupt lines and their handlers: what <linux/interrupt.h> and
 * <linux/irqreturn.h> of the Linux 6.x headers are made of, and the call a
 * test raises an interrupt with.
 *
 * Each machine has its own interrupt lines, numbered 0 to DMAMAP_NR_IRQS - 1
 * (the numbers mean nothing else: a test gives its device one and the
 * driver requests it). A handler is registered on a line with
 * dmamap_request_irq_at() (request_irq()) or its managed form
 * (devm_request_irq(), released with the device's managed resources), in the
 * kernel's rules: a line is shared only when every handler on it asked for
 * IRQF_SHARED, and a shared handler needs a dev_id that tells it apart.
 *
 * No hardware raises anything: a test calls dmamap_irq_raise(), which runs
 * every handler of the line, in the order they were requested, in the
 * calling thread and in hard interrupt context: the thread has its
 * interrupts off and in_interrupt(), in_hardirq() and in_atomic() are true
 * while they run, so a handler that sleeps or allocates with GFP_KERNEL is
 * reported as DMAMAP_REPORT_SLEEP_IN_ATOMIC, as the kernel's
 * CONFIG_DEBUG_ATOMIC_SLEEP reports it. A line turned off with
 * disable_irq() remembers a raise as pending and delivers it, in the
 * thread that calls the enable_irq() that turns it back on, as the kernel
 * resends an edge interrupt.
 *
 * An interrupt that no handler claims (none registered, or each returned
 * IRQ_NONE) is reported as DMAMAP_REPORT_API_MISUSE, "irq N: nobody
 * cared": the kernel only says so after 99,900 of 100,000 interrupts went
 * unhandled, and then turns the line off; here each one is reported and the
 * line stays on, so that a test sees the first.
 *
 * Where it differs from the kernel: there is no interrupt thread (a handler
 * that returns IRQ_WAKE_THREAD counts as handled, and is reported as the
 * kernel warns, since no thread function can be given); trigger types and
 * the other IRQF_* flags are accepted and ignored, but for IRQF_SHARED and
 * IRQF_NO_AUTOEN; an interrupt is never delivered by itself, only by the
 * calls above. The lines of a machine are its own: requesting a line on one
 * machine tells nothing to another. Handlers still requested when the
 * machine is destroyed are reported as DMAMAP_REPORT_LEAK (each with where
 * it was requested) and freed.
 *
 * The calls may be made from any thread. free_irq(), disable_irq() and
 * synchronize_irq() wait for the handlers of the line running in other
 * threads to return, as the kernel's do; from a handler of the line itself
 * they do not wait (the kernel would deadlock there).
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
	IRQ_WAKE_THREAD = 1 << 1, /* handled; wake the interrupt thread (there is none here) */
};
typedef enum irqreturn irqreturn_t;
/* A handler: the line's number and the dev_id given at its request. */
typedef irqreturn_t (*irq_handler_t)(int irq, void *dev_id);
#endif

/* The interrupt lines of a machine: 0 to this minus 1. */
#define DMAMAP_NR_IRQS 1024u

/* The flags of a request the library acts on (the kernel's IRQF_SHARED and IRQF_NO_AUTOEN values). */
#define DMAMAP_IRQF_SHARED 0x00000080ul
#define DMAMAP_IRQF_NO_AUTOEN 0x00080000ul

/**
 * dmamap_request_irq_at() - register @handler on line @irq of machine @m: request_irq()
 * @m: the machine, or NULL for the current one
 * @irq: the line, below DMAMAP_NR_IRQS
 * @handler: the handler, called with @irq and @dev_id
 * @flags: IRQF_* flags: IRQF_SHARED to share the line, IRQF_NO_AUTOEN to
 *         leave a line requested first disabled (until enable_irq());
 *         the others are accepted and ignored
 * @name: the handler's name for reports (not copied: it must outlive the
 *        registration, as the kernel's), or NULL
 * @dev_id: the handler's cookie, given back to it; names the registration
 *          for dmamap_free_irq_at()
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 *
 * The handler runs after the handlers already on the line. A line that had
 * none starts enabled (disabled with IRQF_NO_AUTOEN), nothing pending. The
 * registration is the library's until freed; it is freed, and reported as
 * a leak, at the machine's destruction.
 * Return: 0; -EINVAL for a line out of range, a NULL @handler, or
 * IRQF_SHARED with a NULL @dev_id (each reported as
 * DMAMAP_REPORT_BAD_INPUT); -EBUSY when the line has handlers and this
 * request or one of them lacks IRQF_SHARED (not reported: a driver may
 * try another line); -ENOMEM when memory or a machine cannot be had.
 */
DMAMAP_API DMAMAP_MUST_CHECK int dmamap_request_irq_at(struct dmamap_machine *m, unsigned int irq,
							 irq_handler_t handler, unsigned long flags, const char *name,
							 void *dev_id, const char *file, int line);

/**
 * dmamap_free_irq_at() - remove the handler of @dev_id from line @irq of machine @m: free_irq()
 * @m: the machine, or NULL for the current one
 * @irq: the line
 * @dev_id: the cookie the handler was requested with
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 *
 * Waits until no other thread runs a handler of the line, so that once it
 * returns the handler is never called again. A line holding no handler of
 * @dev_id is reported as DMAMAP_REPORT_API_MISUSE ("Trying to free
 * already-free IRQ", as the kernel warns) and nothing changes. A handler
 * requested with devm_request_irq() is freed all the same, and reported
 * (DMAMAP_REPORT_API_MISUSE: devm_free_irq() frees it). A call from one of
 * the line's own handlers is reported as DMAMAP_REPORT_LOCK_MISUSE (the
 * kernel would wait for that handler for ever) and frees nothing.
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
 * @flags: IRQF_* flags, as dmamap_request_irq_at() takes
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
 * @sync: wait for the handlers running in other threads to return
 *        (disable_irq(), a call that may sleep, checked as
 *        dmamap_might_sleep_at() checks); false for disable_irq_nosync()
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 *
 * Disables nest: the line is on again after as many enables. While it is
 * off, a raise is remembered (once) and delivered by the enable that turns
 * it on.
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
 * When this turns the line on and a raise is pending, the handlers run now,
 * in the calling thread, as dmamap_irq_raise() runs them. An enable of a
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
 * A call that may sleep, checked as dmamap_might_sleep_at() checks.
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
 * raise another line: it runs nested). A handler that returns
 * IRQ_WAKE_THREAD counts as handled and is reported as
 * DMAMAP_REPORT_API_MISUSE (there is no thread to wake). A line that is off
 * (disable_irq()) runs nothing: the raise is pending until enable_irq().
 * An interrupt that no handler claims is reported as
 * DMAMAP_REPORT_API_MISUSE, "irq N: nobody cared".
 * Return: how many handlers returned IRQ_HANDLED (or IRQ_WAKE_THREAD); 0
 * when none did or the line is off; -EINVAL for a line out of range
 * (reported as DMAMAP_REPORT_BAD_INPUT); -ENOMEM when no machine can be
 * had.
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
