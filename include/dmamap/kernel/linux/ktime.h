/* SPDX-License-Identifier: MIT */
/*
 * <linux/ktime.h> of Linux 6.x over libdmamap: ktime_t (signed nanoseconds),
 * ktime_get() and ktime_get_ns() on the host's monotonic clock (the
 * boottime and raw clocks are the same clock here), and the arithmetic
 * drivers time their polls and timeouts with: ktime_add_us(),
 * ktime_sub(), ktime_to_us(), ktime_us_delta(), ktime_compare(),
 * ktime_after()... Each argument is evaluated once. The kernel's
 * <linux/ktime.h> brings <linux/jiffies.h>; so does this one.
 */
#ifndef _LINUX_KTIME_H
#define _LINUX_KTIME_H

#include <dmamap/linux-api.h>
#include <dmamap/clock.h>
#include <linux/jiffies.h>

typedef s64 ktime_t;

#define KTIME_MAX ((s64)~((u64)1 << 63))
#define KTIME_MIN (-KTIME_MAX - 1)
#define KTIME_SEC_MAX (KTIME_MAX / NSEC_PER_SEC)

#define ktime_get() ((ktime_t)dmamap_ktime_ns())
#define ktime_get_ns() ((u64)dmamap_ktime_ns())
#define ktime_get_raw() ktime_get()
#define ktime_get_raw_ns() ktime_get_ns()
#define ktime_get_boottime() ktime_get()
#define ktime_get_boottime_ns() ktime_get_ns()
#define ktime_get_mono_fast_ns() ktime_get_ns()

/* The conversions, and the arithmetic of the kernel's macros (a ktime_t is a count of ns). */
#define ns_to_ktime(ns) ((ktime_t)(ns))
#define us_to_ktime(us) ((ktime_t)(us) * NSEC_PER_USEC)
#define ms_to_ktime(ms) ((ktime_t)(ms) * NSEC_PER_MSEC)
#define ktime_to_ns(kt) ((s64)(kt))
#define ktime_to_us(kt) ((s64)(kt) / NSEC_PER_USEC)
#define ktime_to_ms(kt) ((s64)(kt) / NSEC_PER_MSEC)
#define ktime_add(lhs, rhs) ((ktime_t)((lhs) + (rhs)))
#define ktime_sub(lhs, rhs) ((ktime_t)((lhs) - (rhs)))
#define ktime_add_ns(kt, nsval) ((ktime_t)((kt) + (s64)(nsval)))
#define ktime_sub_ns(kt, nsval) ((ktime_t)((kt) - (s64)(nsval)))
#define ktime_add_us(kt, usval) ktime_add_ns(kt, (u64)(usval) * NSEC_PER_USEC)
#define ktime_sub_us(kt, usval) ktime_sub_ns(kt, (u64)(usval) * NSEC_PER_USEC)
#define ktime_add_ms(kt, msval) ktime_add_ns(kt, (u64)(msval) * NSEC_PER_MSEC)
#define ktime_sub_ms(kt, msval) ktime_sub_ns(kt, (u64)(msval) * NSEC_PER_MSEC)
/* ktime_us_delta() - @later - @earlier in microseconds; ktime_ms_delta() in milliseconds. */
#define ktime_us_delta(later, earlier) ktime_to_us(ktime_sub(later, earlier))
#define ktime_ms_delta(later, earlier) ktime_to_ms(ktime_sub(later, earlier))
/* ktime_after() - whether @cmp1 is later than @cmp2; ktime_before() earlier. */
#define ktime_after(cmp1, cmp2) ((ktime_t)(cmp1) > (ktime_t)(cmp2))
#define ktime_before(cmp1, cmp2) ((ktime_t)(cmp1) < (ktime_t)(cmp2))

/* ktime_compare() - -1, 0 or 1 as @cmp1 is before, at or after @cmp2 (each evaluated once). */
#define ktime_compare(cmp1, cmp2) DMAMAP_KTIME_COMPARE_(cmp1, cmp2, DMAMAP_UNIQUE(dmamap_a_), DMAMAP_UNIQUE(dmamap_b_))
#define DMAMAP_KTIME_COMPARE_(cmp1, cmp2, a, b)        \
	__extension__({                                \
		ktime_t a = (cmp1);                    \
		ktime_t b = (cmp2);                    \
		a < b ? -1 : a > b ? 1 : 0;            \
	})

/* ktime_set() - @secs seconds and @nsecs nanoseconds as a ktime_t; KTIME_MAX from KTIME_SEC_MAX seconds on. */
#define ktime_set(secs, nsecs) DMAMAP_KTIME_SET_(secs, nsecs, DMAMAP_UNIQUE(dmamap_s_))
#define DMAMAP_KTIME_SET_(secs, nsecs, s)                                                      \
	__extension__({                                                                        \
		s64 s = (secs);                                                                \
		s >= KTIME_SEC_MAX ? KTIME_MAX : (ktime_t)(s * NSEC_PER_SEC + (s64)(nsecs));  \
	})

#endif /* _LINUX_KTIME_H */
