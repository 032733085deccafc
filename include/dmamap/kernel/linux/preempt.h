/* SPDX-License-Identifier: MIT */
/*
 * <linux/preempt.h> of Linux 6.x over libdmamap: in_atomic() is true while
 * the calling thread holds a spinlock (<dmamap/locking.h>), has bottom
 * halves off (local_bh_disable(), spin_lock_bh()), or runs an interrupt
 * handler or a tasklet, the contexts where it may not sleep, and
 * might_sleep() says so where it should (the kernel declares it in
 * <linux/kernel.h>, which brings this header). A test's threads run driver
 * code as tasks, but while dmamap_irq_raise() (<dmamap/irq.h>) runs the
 * handlers of a line in a thread, in_hardirq(), in_irq() and
 * in_interrupt() are 1 and in_task() is 0; while a tasklet runs
 * (<dmamap/tasklet.h>), in_serving_softirq(), in_softirq() and
 * in_interrupt() are 1, in_hardirq() and in_task() 0; with bottom halves
 * off, in_softirq() and in_interrupt() are 1 (the kernel counts a
 * disable as softirq context), in_task() stays 1.
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
#define in_hardirq() ((int)dmamap_in_hardirq())
#define in_irq() in_hardirq()
#define in_softirq() ((int)dmamap_in_softirq())
#define in_serving_softirq() ((int)dmamap_in_serving_softirq())
#define in_interrupt() (in_hardirq() || in_softirq())
#define in_task() (!in_hardirq() && !in_serving_softirq())

#endif /* _LINUX_PREEMPT_H */
