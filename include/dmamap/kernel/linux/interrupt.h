/* SPDX-License-Identifier: MIT */
/*
 * <linux/interrupt.h> of Linux 6.x over libdmamap (<dmamap/irq.h>):
 * irq_handler_t and the returns of <linux/irqreturn.h>; request_irq(),
 * free_irq(), devm_request_irq(), devm_free_irq(); disable_irq(),
 * disable_irq_nosync(), enable_irq(), synchronize_irq(); the IRQF_* flags;
 * and in_interrupt(), in_hardirq(), in_irq() of <linux/preempt.h>, which
 * the kernel's header brings too.
 *
 * The interrupt numbers are those of the current machine
 * (dmamap_machine_current()) for the calls that take no device, and of the
 * device's machine for the devm_ ones. A test raises a line with
 * dmamap_irq_raise(): the handlers run in its thread, in hard interrupt
 * context (interrupts off, in_hardirq() true), so a handler that sleeps is
 * reported as the kernel's CONFIG_DEBUG_ATOMIC_SLEEP reports it.
 *
 * Where it differs from the kernel: no interrupt thread
 * (request_threaded_irq() is not provided; IRQ_WAKE_THREAD is counted as
 * handled and reported), no irq descriptors or chips (irq_set_irq_type(),
 * irq_set_affinity() and the like are not provided), no tasklets or
 * softirqs. Of the flags, IRQF_SHARED and IRQF_NO_AUTOEN act; the others
 * are accepted and ignored. An interrupt no handler claims is reported at
 * once ("nobody cared"), not after 99,900 of them, and the line stays on.
 */
#ifndef _LINUX_INTERRUPT_H
#define _LINUX_INTERRUPT_H

#include <dmamap/linux-api.h>
#include <dmamap/irq.h>
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

/* The request flags, the kernel's values: IRQF_SHARED and IRQF_NO_AUTOEN act, the others are ignored. */
#define IRQF_SHARED DMAMAP_IRQF_SHARED
#define IRQF_PROBE_SHARED 0x00000100
#define __IRQF_TIMER 0x00000200
#define IRQF_PERCPU 0x00000400
#define IRQF_NOBALANCING 0x00000800
#define IRQF_IRQPOLL 0x00001000
#define IRQF_ONESHOT 0x00002000
#define IRQF_NO_SUSPEND 0x00004000
#define IRQF_FORCE_RESUME 0x00008000
#define IRQF_NO_THREAD 0x00010000
#define IRQF_EARLY_RESUME 0x00020000
#define IRQF_COND_SUSPEND 0x00040000
#define IRQF_NO_AUTOEN DMAMAP_IRQF_NO_AUTOEN
#define IRQF_NO_DEBUG 0x00100000
#define IRQF_TIMER (__IRQF_TIMER | IRQF_NO_SUSPEND | IRQF_NO_THREAD)

/*
 * request_irq() - register @handler on line @irq of the current machine
 * (see dmamap_request_irq_at()): 0, -EBUSY for a line taken without
 * IRQF_SHARED on both, -EINVAL, -ENOMEM. free_irq() removes the handler of
 * @dev_id, waiting for it to return, and gives back its name.
 */
#define request_irq(irq, handler, flags, name, dev) \
	dmamap_request_irq_at(NULL, (irq), (handler), (flags), (name), (dev), __FILE__, __LINE__)
#define free_irq(irq, dev_id) dmamap_free_irq_at(NULL, (irq), (dev_id), __FILE__, __LINE__)

/*
 * devm_request_irq() - request_irq() on @dev's machine, freed when the
 * driver unbinds (see dmamap_devm_request_irq_at()); devm_free_irq() frees
 * it before.
 */
#define devm_request_irq(dev, irq, handler, flags, name, dev_id) \
	dmamap_devm_request_irq_at((dev), (irq), (handler), (flags), (name), (dev_id), __FILE__, __LINE__)
#define devm_free_irq(dev, irq, dev_id) dmamap_devm_free_irq_at((dev), (irq), (dev_id), __FILE__, __LINE__)

/*
 * disable_irq() - turn the line off and wait for its handlers running
 * elsewhere (may sleep); disable_irq_nosync() does not wait; enable_irq()
 * undoes one disable and delivers a pending interrupt; synchronize_irq()
 * waits for the handlers running elsewhere (may sleep).
 */
#define disable_irq(irq) dmamap_irq_disable_at(NULL, (irq), true, __FILE__, __LINE__)
#define disable_irq_nosync(irq) dmamap_irq_disable_at(NULL, (irq), false, __FILE__, __LINE__)
#define enable_irq(irq) dmamap_irq_enable_at(NULL, (irq), __FILE__, __LINE__)
#define synchronize_irq(irq) dmamap_irq_synchronize_at(NULL, (irq), __FILE__, __LINE__)

#endif /* _LINUX_INTERRUPT_H */
