/* SPDX-License-Identifier: MIT */
/*
 * <linux/preempt.h> of Linux 6.x over libdmamap: in_atomic() is true while
 * the calling thread holds a spinlock (<dmamap/locking.h>), the context
 * where it may not sleep. A test's threads run driver code as tasks:
 * in_task() is 1, in_interrupt(), in_hardirq() and in_softirq() are 0 (a
 * thread that plays an interrupt handler takes its spinlocks as the handler
 * would, and is atomic while it holds them).
 */
#ifndef _LINUX_PREEMPT_H
#define _LINUX_PREEMPT_H

#include <dmamap/linux-api.h>
#include <dmamap/locking.h>

#define in_atomic() dmamap_in_atomic()
#define in_task() 1
#define in_interrupt() 0
#define in_hardirq() 0
#define in_softirq() 0
#define in_irq() 0

#endif /* _LINUX_PREEMPT_H */
