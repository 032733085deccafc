/* SPDX-License-Identifier: MIT */
/* The kernel's clock for drivers: ktime, jiffies, busy-waits and sleeps on the host's monotonic clock. */
#include <errno.h>
#include <sched.h>
#include <time.h>

#include "internal.h"

#define NSEC_PER_SEC_ 1000000000ull
#define NSEC_PER_JIFFY (NSEC_PER_SEC_ / DMAMAP_HZ)
#define USEC_PER_JIFFY (1000000u / DMAMAP_HZ)
#define MSEC_PER_JIFFY (1000u / DMAMAP_HZ)

DMAMAP_API s64 dmamap_ktime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (s64)ts.tv_sec * (s64)NSEC_PER_SEC_ + ts.tv_nsec;
}

DMAMAP_API unsigned long dmamap_jiffies(void)
{
	return DMAMAP_INITIAL_JIFFIES + (unsigned long)((u64)dmamap_ktime_ns() / NSEC_PER_JIFFY);
}

DMAMAP_API unsigned long msecs_to_jiffies(const unsigned int m)
{
	if ((int)m < 0)
		return DMAMAP_MAX_JIFFY_OFFSET;
	return (m + MSEC_PER_JIFFY - 1) / MSEC_PER_JIFFY;
}

DMAMAP_API unsigned long usecs_to_jiffies(const unsigned int u)
{
	return ((unsigned long)u + USEC_PER_JIFFY - 1) / USEC_PER_JIFFY;
}

DMAMAP_API unsigned long nsecs_to_jiffies(u64 n)
{
	u64 j = n / NSEC_PER_JIFFY;

	return j > DMAMAP_MAX_JIFFY_OFFSET ? DMAMAP_MAX_JIFFY_OFFSET : (unsigned long)j;
}

DMAMAP_API unsigned int jiffies_to_msecs(const unsigned long j)
{
	return (unsigned int)(j * MSEC_PER_JIFFY);
}

DMAMAP_API unsigned int jiffies_to_usecs(const unsigned long j)
{
	return (unsigned int)(j * USEC_PER_JIFFY);
}

DMAMAP_API void dmamap_delay_ns(u64 ns)
{
	s64 end;

	if (!ns)
		return;
	end = dmamap_ktime_ns() + (s64)(ns > (u64)INT64_MAX / 2 ? (u64)INT64_MAX / 2 : ns);
	while (dmamap_ktime_ns() < end)
		__asm__ __volatile__("" : : : "memory");
}

/* Sleep until the monotonic clock reads @end (ns), through signals. */
static void sleep_until(s64 end)
{
	struct timespec ts = { .tv_sec = (time_t)(end / (s64)NSEC_PER_SEC_), .tv_nsec = (long)(end % (s64)NSEC_PER_SEC_) };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

DMAMAP_API void dmamap_sleep_us(u64 us, const char *what, const char *file, int line)
{
	if (what)
		dm_might_sleep(NULL, what, file, line);
	if (!us) {
		sched_yield();
		return;
	}
	if (us > (u64)INT64_MAX / 4000)
		us = (u64)INT64_MAX / 4000;
	sleep_until(dmamap_ktime_ns() + (s64)(us * 1000));
}

DMAMAP_API void dmamap_fsleep(unsigned long us, const char *file, int line)
{
	if (us <= 10)
		dmamap_delay_ns((u64)us * 1000);
	else if (us <= 20000)
		dmamap_sleep_us(us, "fsleep", file, line);
	else
		dmamap_sleep_us(((u64)us + 999) / 1000 * 1000, "fsleep", file, line);
}
