/* SPDX-License-Identifier: MIT */
/*
 * <linux/iopoll.h> of Linux 6.x over libdmamap: polling a register (or any
 * read) until a condition holds or a timeout passes, with the kernel's
 * semantics:
 *
 *  - read_poll_timeout(op, val, cond, sleep_us, timeout_us,
 *    sleep_before_read, args...) stores op(args) in @val and evaluates @cond
 *    after each read; between reads it sleeps (as usleep_range(), about
 *    @sleep_us / 4 at least; 0 spins). It returns 0 as soon as @cond holds,
 *    and -ETIMEDOUT when it still does not after @timeout_us (0: never): the
 *    read that decides is made after the time is up, so a condition that
 *    became true while the poller slept is seen, and @val holds the last
 *    value read either way. @cond is evaluated once per read. With a
 *    @sleep_us it may sleep: called holding a spinlock it is reported
 *    once, at its line (DMAMAP_REPORT_SLEEP_IN_ATOMIC), as the kernel's
 *    might_sleep_if() does.
 *  - read_poll_timeout_atomic() busy-waits @delay_us between reads (as
 *    udelay()) and never sleeps: the form for a caller holding a spinlock.
 *  - readx_poll_timeout(op, addr, ...) polls op(addr); readl_poll_timeout(),
 *    readb/w/q_poll_timeout(), their _relaxed and _atomic forms poll a
 *    register of <linux/io.h>.
 *
 * The time is the host's monotonic clock (<linux/ktime.h>): on a slow host
 * a poll lasts longer, never shorter, than its timeout.
 */
#ifndef _LINUX_IOPOLL_H
#define _LINUX_IOPOLL_H

#include <dmamap/linux-api.h>
#include <dmamap/clock.h>
#include <linux/delay.h>
#include <linux/errno.h>
#include <linux/io.h>
#include <linux/ktime.h>
#include <linux/preempt.h>

#define DMAMAP_POLL_(op, val, cond, wait_us, timeout_us, wait_before_read, sleeps, ...)                          \
	__extension__({                                                                                        \
		u64 dmamap_poll_timeout_ = (timeout_us);                                                       \
		u64 dmamap_poll_wait_ = (wait_us);                                                             \
		ktime_t dmamap_poll_end_ = ktime_add_us(ktime_get(), dmamap_poll_timeout_);                    \
		int dmamap_poll_ret_;                                                                          \
		if ((sleeps) && dmamap_poll_wait_)                                                             \
			dmamap_might_sleep_at(DMAMAP_POLL_HOW_, __FILE__, __LINE__);                           \
		if ((wait_before_read) && dmamap_poll_wait_)                                                   \
			DMAMAP_POLL_WAIT_(sleeps, dmamap_poll_wait_);                                          \
		for (;;) {                                                                                     \
			bool dmamap_poll_expired_ =                                                            \
				dmamap_poll_timeout_ && ktime_compare(ktime_get(), dmamap_poll_end_) > 0;      \
			barrier(); /* the read below is made after the clock was: the last one comes late */ \
			(val) = op(__VA_ARGS__);                                                               \
			if (cond) {                                                                            \
				dmamap_poll_ret_ = 0;                                                          \
				break;                                                                         \
			}                                                                                      \
			if (dmamap_poll_expired_) {                                                            \
				dmamap_poll_ret_ = -ETIMEDOUT;                                                 \
				break;                                                                         \
			}                                                                                      \
			if (dmamap_poll_wait_)                                                                 \
				DMAMAP_POLL_WAIT_(sleeps, dmamap_poll_wait_);                                  \
			cpu_relax();                                                                           \
		}                                                                                              \
		dmamap_poll_ret_;                                                                              \
	})
#define DMAMAP_POLL_HOW_ "read_poll_timeout"
/* Between reads: usleep_range((us >> 2) + 1, us) for the sleeping form, udelay(us) for the atomic one. */
#define DMAMAP_POLL_WAIT_(sleeps, us) \
	((sleeps) ? dmamap_sleep_us(((us) >> 2) + 1, NULL, __FILE__, __LINE__) : dmamap_delay_ns((us) * 1000u))

#define read_poll_timeout(op, val, cond, sleep_us, timeout_us, sleep_before_read, ...) \
	DMAMAP_POLL_(op, val, cond, sleep_us, timeout_us, sleep_before_read, 1, __VA_ARGS__)
#define read_poll_timeout_atomic(op, val, cond, delay_us, timeout_us, delay_before_read, ...) \
	DMAMAP_POLL_(op, val, cond, delay_us, timeout_us, delay_before_read, 0, __VA_ARGS__)

#define readx_poll_timeout(op, addr, val, cond, sleep_us, timeout_us) \
	read_poll_timeout(op, val, cond, sleep_us, timeout_us, false, addr)
#define readx_poll_timeout_atomic(op, addr, val, cond, delay_us, timeout_us) \
	read_poll_timeout_atomic(op, val, cond, delay_us, timeout_us, false, addr)

#define readb_poll_timeout(addr, val, cond, delay_us, timeout_us) \
	readx_poll_timeout(readb, addr, val, cond, delay_us, timeout_us)
#define readb_poll_timeout_atomic(addr, val, cond, delay_us, timeout_us) \
	readx_poll_timeout_atomic(readb, addr, val, cond, delay_us, timeout_us)
#define readw_poll_timeout(addr, val, cond, delay_us, timeout_us) \
	readx_poll_timeout(readw, addr, val, cond, delay_us, timeout_us)
#define readw_poll_timeout_atomic(addr, val, cond, delay_us, timeout_us) \
	readx_poll_timeout_atomic(readw, addr, val, cond, delay_us, timeout_us)
#define readl_poll_timeout(addr, val, cond, delay_us, timeout_us) \
	readx_poll_timeout(readl, addr, val, cond, delay_us, timeout_us)
#define readl_poll_timeout_atomic(addr, val, cond, delay_us, timeout_us) \
	readx_poll_timeout_atomic(readl, addr, val, cond, delay_us, timeout_us)
#define readq_poll_timeout(addr, val, cond, delay_us, timeout_us) \
	readx_poll_timeout(readq, addr, val, cond, delay_us, timeout_us)
#define readq_poll_timeout_atomic(addr, val, cond, delay_us, timeout_us) \
	readx_poll_timeout_atomic(readq, addr, val, cond, delay_us, timeout_us)
#define readb_relaxed_poll_timeout(addr, val, cond, delay_us, timeout_us) \
	readx_poll_timeout(readb_relaxed, addr, val, cond, delay_us, timeout_us)
#define readb_relaxed_poll_timeout_atomic(addr, val, cond, delay_us, timeout_us) \
	readx_poll_timeout_atomic(readb_relaxed, addr, val, cond, delay_us, timeout_us)
#define readw_relaxed_poll_timeout(addr, val, cond, delay_us, timeout_us) \
	readx_poll_timeout(readw_relaxed, addr, val, cond, delay_us, timeout_us)
#define readw_relaxed_poll_timeout_atomic(addr, val, cond, delay_us, timeout_us) \
	readx_poll_timeout_atomic(readw_relaxed, addr, val, cond, delay_us, timeout_us)
#define readl_relaxed_poll_timeout(addr, val, cond, delay_us, timeout_us) \
	readx_poll_timeout(readl_relaxed, addr, val, cond, delay_us, timeout_us)
#define readl_relaxed_poll_timeout_atomic(addr, val, cond, delay_us, timeout_us) \
	readx_poll_timeout_atomic(readl_relaxed, addr, val, cond, delay_us, timeout_us)
#define readq_relaxed_poll_timeout(addr, val, cond, delay_us, timeout_us) \
	readx_poll_timeout(readq_relaxed, addr, val, cond, delay_us, timeout_us)
#define readq_relaxed_poll_timeout_atomic(addr, val, cond, delay_us, timeout_us) \
	readx_poll_timeout_atomic(readq_relaxed, addr, val, cond, delay_us, timeout_us)

#endif /* _LINUX_IOPOLL_H */
