/* SPDX-License-Identifier: MIT */
/*
 * <linux/preempt.h> of Linux 6.x over libdmamap: in_atomic() is true while
 * the calling thread holds a spinlock (<dmamap/locking.h>), the context
 * where it may not sleep, and might_sleep() says so where it should (the
 * kernel declares it in <linux/kernel.h>, which brings this header). A test's threads run driver code as tasks:
 * in_task() is 1, in_interrupt(), in_hardirq() and in_softirq() are 0 (a
 * thread that plays an interrupt handler takes its spinlocks as the handler
 * would, and is atomic while it holds them).
 */
#ifndef _LINUX_PREEMPT_H
#define _LINUX_PREEMPT_H

#include <dmamap/linux-api.h>
#include <dmamap/locking.h>

#define in_atomic() dmamap_in_atomic()

/*
 * might_sleep() - the caller may sleep here: reported when the thread holds
 * a spinlock or has interrupts off (DMAMAP_REPORT_SLEEP_IN_ATOMIC, at this
 * line), as the kernel's CONFIG_DEBUG_ATOMIC_SLEEP does; might_sleep_if()
 * when @cond holds.
 */
#define might_sleep() dmamap_might_sleep_at("might_sleep", __FILE__, __LINE__)
#define might_sleep_if(cond)          \
	do {                          \
		if (cond)             \
			might_sleep(); \
	} while (0)
#define in_task() 1
#define in_interrupt() 0
#define in_hardirq() 0
#define in_softirq() 0
#define in_irq() 0

#endif /* _LINUX_PREEMPT_H */
