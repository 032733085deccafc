/* SPDX-License-Identifier: MIT */
/*
 * <linux/delay.h> of Linux 6.x over libdmamap (<dmamap/clock.h>):
 *
 *  - ndelay(), udelay(), mdelay() busy-wait on the host's monotonic clock
 *    for at least the time asked, without sleeping, as the kernel's spin;
 *  - msleep(), msleep_interruptible() (0: no signal ever interrupts it),
 *    ssleep(), usleep_range() (sleeps the minimum), usleep_range_idle() and
 *    fsleep() (a busy-wait up to 10 us, a sleep beyond, as the kernel's)
 *    put the thread to sleep for at least the time asked.
 */
#ifndef _LINUX_DELAY_H
#define _LINUX_DELAY_H

#include <dmamap/linux-api.h>
#include <dmamap/clock.h>

#define ndelay(nsecs) dmamap_delay_ns((u64)(nsecs))
#define udelay(usecs) dmamap_delay_ns((u64)(usecs) * 1000u)
#define mdelay(msecs) dmamap_delay_ns((u64)(msecs) * 1000000u)
#define msleep(msecs) dmamap_sleep_us((u64)(msecs) * 1000u, "msleep", __FILE__, __LINE__)
#define msleep_interruptible(msecs) \
	((void)dmamap_sleep_us((u64)(msecs) * 1000u, "msleep_interruptible", __FILE__, __LINE__), 0UL)
#define ssleep(secs) dmamap_sleep_us((u64)(secs) * 1000000u, "ssleep", __FILE__, __LINE__)
#define usleep_range(min, max) ((void)(max), dmamap_sleep_us((u64)(min), "usleep_range", __FILE__, __LINE__))
#define usleep_range_idle(min, max) \
	((void)(max), dmamap_sleep_us((u64)(min), "usleep_range_idle", __FILE__, __LINE__))
#define fsleep(usecs) dmamap_fsleep((unsigned long)(usecs), __FILE__, __LINE__)

#endif /* _LINUX_DELAY_H */
