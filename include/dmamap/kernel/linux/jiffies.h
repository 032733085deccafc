/* SPDX-License-Identifier: MIT */
/*
 * <linux/jiffies.h> of Linux 6.x over libdmamap: jiffies (a value read from
 * the host's monotonic clock at each use, ticking HZ times a second, HZ being
 * 100 as ARM's default), jiffies_64 and get_jiffies_64(), the conversions
 * msecs_to_jiffies(), usecs_to_jiffies(), nsecs_to_jiffies(),
 * jiffies_to_msecs() and jiffies_to_usecs() (<dmamap/clock.h>), the
 * comparisons that survive the counter's wrap (time_after(), time_before(),
 * time_after_eq(), time_before_eq(), time_in_range(), their 64-bit forms and
 * time_is_before_jiffies() and its siblings), and the kernel's time units
 * (NSEC_PER_SEC, USEC_PER_MSEC...).
 *
 * jiffies is an expression here, not a variable: `timeout = jiffies + HZ`
 * and `while (time_before(jiffies, timeout))` read the clock afresh each
 * time, as the kernel's volatile counter does; `&jiffies` does not compile.
 * In C, as in the kernel, the comparisons accept unsigned long values only:
 * a timeout kept in an int or a u32 (which wraps 49 days earlier) fails to
 * compile.
 */
#ifndef _LINUX_JIFFIES_H
#define _LINUX_JIFFIES_H

#include <dmamap/linux-api.h>
#include <dmamap/clock.h>

#ifndef HZ
#define HZ DMAMAP_HZ
#endif
#define USER_HZ HZ
#define INITIAL_JIFFIES DMAMAP_INITIAL_JIFFIES
#define MAX_JIFFY_OFFSET DMAMAP_MAX_JIFFY_OFFSET
#define MAX_SCHEDULE_TIMEOUT ((long)(~0UL >> 1))

#ifndef NSEC_PER_SEC
#define MSEC_PER_SEC 1000L
#define USEC_PER_MSEC 1000L
#define NSEC_PER_USEC 1000L
#define NSEC_PER_MSEC 1000000L
#define USEC_PER_SEC 1000000L
#define NSEC_PER_SEC 1000000000L
#endif

#define jiffies dmamap_jiffies()
#define jiffies_64 ((u64)dmamap_jiffies())
#define get_jiffies_64() ((u64)dmamap_jiffies())

/*
 * DMAMAP_JIFFIES_ARG() - @x as the unsigned long a jiffies comparison takes;
 * in C anything else fails to compile, as the kernel's typecheck() makes it.
 */
#ifdef __cplusplus
#define DMAMAP_JIFFIES_ARG(x) ((unsigned long)(x))
#else
#define DMAMAP_JIFFIES_ARG(x)                                                                                   \
	((void)sizeof(struct {                                                                                  \
		 _Static_assert(__builtin_types_compatible_p(__typeof__(x), unsigned long),                     \
				"time_after() and its siblings compare unsigned long jiffies values, as the kernel's"); \
		 int dmamap_jiffies_check;                                                                      \
	 }),                                                                                                    \
	 (unsigned long)(x))
#endif

/* time_after() - whether the jiffies value @a is later than @b (true across the counter's wrap). */
#define time_after(a, b) ((long)(DMAMAP_JIFFIES_ARG(b) - DMAMAP_JIFFIES_ARG(a)) < 0)
/* time_before() - whether @a is earlier than @b. */
#define time_before(a, b) time_after(b, a)
/* time_after_eq() - whether @a is @b or later. */
#define time_after_eq(a, b) ((long)(DMAMAP_JIFFIES_ARG(a) - DMAMAP_JIFFIES_ARG(b)) >= 0)
/* time_before_eq() - whether @a is @b or earlier. */
#define time_before_eq(a, b) time_after_eq(b, a)
/* time_in_range() - whether @a lies in [@b, @c]; time_in_range_open() in [@b, @c). */
#define time_in_range(a, b, c) (time_after_eq(a, b) && time_before_eq(a, c))
#define time_in_range_open(a, b, c) (time_after_eq(a, b) && time_before(a, c))

/* The same comparisons of 64-bit values (get_jiffies_64()). */
#define time_after64(a, b) ((s64)((u64)(b) - (u64)(a)) < 0)
#define time_before64(a, b) time_after64(b, a)
#define time_after_eq64(a, b) ((s64)((u64)(a) - (u64)(b)) >= 0)
#define time_before_eq64(a, b) time_after_eq64(b, a)
#define time_in_range64(a, b, c) (time_after_eq64(a, b) && time_before_eq64(a, c))

/* time_is_before_jiffies() - whether the jiffies value @a has passed; and its siblings against now. */
#define time_is_before_jiffies(a) time_after(jiffies, a)
#define time_is_after_jiffies(a) time_before(jiffies, a)
#define time_is_before_eq_jiffies(a) time_after_eq(jiffies, a)
#define time_is_after_eq_jiffies(a) time_before_eq(jiffies, a)
#define time_is_before_jiffies64(a) time_after64(get_jiffies_64(), a)
#define time_is_after_jiffies64(a) time_before64(get_jiffies_64(), a)

/* jiffies_to_nsecs() - @j jiffies in nanoseconds, a u64. */
#define jiffies_to_nsecs(j) ((u64)(j) * (u64)(NSEC_PER_SEC / HZ))
/* round_jiffies() and its siblings: the kernel rounds timer expiries to whole seconds; here the value stays. */
#define round_jiffies(j) ((unsigned long)(j))
#define round_jiffies_relative(j) ((unsigned long)(j))
#define round_jiffies_up(j) ((unsigned long)(j))
#define round_jiffies_up_relative(j) ((unsigned long)(j))

#endif /* _LINUX_JIFFIES_H */
