/* SPDX-License-Identifier: MIT */
/*
 * <linux/bottom_half.h> of Linux 6.x over libdmamap (<dmamap/locking.h>):
 * local_bh_disable() and local_bh_enable(), which turn the calling
 * thread's bottom halves off and on, as a CPU's: meanwhile in_softirq(),
 * in_interrupt() and in_atomic() are true, a call that may sleep is
 * reported, and the tasklets the thread schedules (<linux/interrupt.h>)
 * wait; the enable that turns them on runs them, when the thread holds no
 * spinlock and has interrupts on. Excludes no other thread.
 */
#ifndef _LINUX_BH_H
#define _LINUX_BH_H

#include <dmamap/linux-api.h>
#include <dmamap/locking.h>

#define local_bh_disable() dmamap_local_bh_disable_at(__FILE__, __LINE__)
#define local_bh_enable() dmamap_local_bh_enable_at(__FILE__, __LINE__)

#endif /* _LINUX_BH_H */
