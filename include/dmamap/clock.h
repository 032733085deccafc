/* SPDX-License-Identifier: MIT */
/*
 * The kernel's sense of time, on the host's monotonic clock: what
 * <linux/ktime.h>, <linux/jiffies.h> and <linux/delay.h> of the Linux 6.x
 * headers are made of.
 *
 * ktime is the host's CLOCK_MONOTONIC in nanoseconds. jiffies tick DMAMAP_HZ
 * times a second (100, ARM's default HZ) from the same clock, counted from
 * the kernel's INITIAL_JIFFIES as if the machine had booted with the host.
 * The delays (ndelay(), udelay(), mdelay()) busy-wait on that clock, as the
 * kernel's spin without sleeping; the sleeps (msleep(), usleep_range(),
 * fsleep()) put the calling thread to sleep for at least the time asked,
 * and are the calls that may sleep: made while the thread holds a spinlock
 * or has its interrupts off (<dmamap/locking.h>) they are reported. Every
 * call here is thread-safe.
 */
#ifndef DMAMAP_CLOCK_H
#define DMAMAP_CLOCK_H

#include <dmamap/types.h>

DMAMAP_BEGIN_DECLS

/* Ticks of jiffies per second: the kernel's HZ (<linux/jiffies.h>). */
#define DMAMAP_HZ 100
/* The jiffies count at the host's boot: the kernel's INITIAL_JIFFIES of a 64-bit build. */
#define DMAMAP_INITIAL_JIFFIES ((unsigned long)(unsigned int)(-300 * DMAMAP_HZ))
/* The longest timeout in jiffies a conversion returns: the kernel's MAX_JIFFY_OFFSET. */
#define DMAMAP_MAX_JIFFY_OFFSET ((unsigned long)((((unsigned long)~0UL >> 1) >> 1) - 1))

/**
 * dmamap_ktime_ns() - the host's monotonic clock in nanoseconds: what ktime_get() returns
 *
 * Return: nanoseconds since an arbitrary point (the host's boot); never
 * goes back.
 */
DMAMAP_API s64 dmamap_ktime_ns(void);

/**
 * dmamap_jiffies() - the current value of the kernel's jiffies counter
 *
 * Return: DMAMAP_INITIAL_JIFFIES plus the ticks of DMAMAP_HZ since the
 * host's boot; compare two values with time_after() and its siblings.
 */
DMAMAP_API unsigned long dmamap_jiffies(void);

/**
 * msecs_to_jiffies() - the jiffies that last at least @m milliseconds
 * @m: milliseconds
 *
 * Return: @m rounded up to whole jiffies; DMAMAP_MAX_JIFFY_OFFSET for an @m
 * that is negative as an int, as the kernel's.
 */
DMAMAP_API unsigned long msecs_to_jiffies(const unsigned int m);

/**
 * usecs_to_jiffies() - the jiffies that last at least @u microseconds
 * @u: microseconds
 *
 * Return: @u rounded up to whole jiffies (at most DMAMAP_MAX_JIFFY_OFFSET).
 */
DMAMAP_API unsigned long usecs_to_jiffies(const unsigned int u);

/**
 * nsecs_to_jiffies() - the whole jiffies in @n nanoseconds
 * @n: nanoseconds
 *
 * Return: @n divided by the length of a jiffy, rounded down, as the kernel's.
 */
DMAMAP_API unsigned long nsecs_to_jiffies(u64 n);

/**
 * jiffies_to_msecs() - @j jiffies in milliseconds
 * @j: a count of jiffies (a difference of two jiffies values, a timeout)
 *
 * Return: the milliseconds, cut to an unsigned int.
 */
DMAMAP_API unsigned int jiffies_to_msecs(const unsigned long j);

/**
 * jiffies_to_usecs() - @j jiffies in microseconds
 * @j: a count of jiffies
 *
 * Return: the microseconds, cut to an unsigned int.
 */
DMAMAP_API unsigned int jiffies_to_usecs(const unsigned long j);

/**
 * dmamap_delay_ns() - busy-wait @ns nanoseconds on the host's clock: ndelay(), udelay(), mdelay()
 * @ns: nanoseconds; 0 returns at once
 *
 * The thread spins without sleeping, as the kernel's delays do, so a caller
 * holding a spinlock may call it; it returns once at least @ns have passed.
 */
DMAMAP_API void dmamap_delay_ns(u64 ns);

/**
 * dmamap_sleep_us() - sleep at least @us microseconds: msleep(), usleep_range(), ssleep()
 * @us: microseconds; 0 yields the processor and returns
 * @what: the kernel call, for a report ("msleep"...); NULL when the caller
 *        has already checked its context (the polling loops of <linux/iopoll.h>)
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 *
 * The thread sleeps on the host's monotonic clock, resuming after a signal
 * until the time is up. A call made while the thread holds a spinlock or has
 * interrupts off is reported (DMAMAP_REPORT_SLEEP_IN_ATOMIC, at @file:@line,
 * see dmamap_might_sleep_at()) and then sleeps all the same.
 */
DMAMAP_API void dmamap_sleep_us(u64 us, const char *what, const char *file, int line);

/**
 * dmamap_fsleep() - fsleep(): wait at least @us microseconds the way the kernel picks for the length
 * @us: microseconds
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 *
 * As the kernel's: up to 10 microseconds it busy-waits (as udelay()), and
 * does not sleep; longer, it sleeps (as usleep_range() up to 20 ms, as
 * msleep() beyond), and is then reported as dmamap_sleep_us() is when the
 * thread may not sleep.
 */
DMAMAP_API void dmamap_fsleep(unsigned long us, const char *file, int line);

DMAMAP_END_DECLS

#endif /* DMAMAP_CLOCK_H */
