/* SPDX-License-Identifier: MIT */
/*
 * What Linux 6.x drivers time and wait with, through the kernel's include
 * names: jiffies and their conversions and comparisons, ktime, the delays
 * and sleeps of <linux/delay.h>, the polling loops of <linux/iopoll.h>.
 * Durations are asserted from below only: a busy host makes every wait
 * longer, never shorter.
 */
#include <linux/delay.h>
#include <linux/iopoll.h>
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/ktime.h>

#include <limits.h>
#include <pthread.h>

#include "common.h"

/* Microseconds since @t0. */
static s64 us_since(ktime_t t0)
{
	return ktime_us_delta(ktime_get(), t0);
}

/* ------------------------------------------------------------ jiffies */

static void test_jiffies_tick_at_hz(void **state)
{
	unsigned long j0, j1;
	ktime_t t0;
	(void)state;

	assert_int_equal(HZ, 100);
	j0 = jiffies;
	t0 = ktime_get();
	msleep(35);
	j1 = jiffies;
	assert_true(us_since(t0) >= 35000);
	/* 35 ms at 100 Hz: at least three ticks passed */
	assert_true(time_after(j1, j0));
	assert_true(j1 - j0 >= 3);
	assert_true(time_is_before_jiffies(j0));
	assert_true(time_is_after_jiffies(jiffies + HZ));
	assert_true(time_is_before_eq_jiffies(j1));
	assert_false(time_is_after_eq_jiffies(j0));
	assert_true(get_jiffies_64() >= (u64)j1);
}

static void test_jiffies_conversions(void **state)
{
	(void)state;

	assert_int_equal(msecs_to_jiffies(0), 0);
	assert_int_equal(msecs_to_jiffies(1), 1);
	assert_int_equal(msecs_to_jiffies(10), 1);
	assert_int_equal(msecs_to_jiffies(11), 2);
	assert_int_equal(msecs_to_jiffies(1000), HZ);
	assert_int_equal(msecs_to_jiffies((unsigned int)-5), MAX_JIFFY_OFFSET);
	assert_int_equal(usecs_to_jiffies(1), 1);
	assert_int_equal(usecs_to_jiffies(10000), 1);
	assert_int_equal(usecs_to_jiffies(10001), 2);
	assert_int_equal(usecs_to_jiffies(UINT_MAX), (UINT_MAX / 10000u) + 1);
	assert_int_equal(nsecs_to_jiffies(NSEC_PER_SEC), HZ);
	assert_int_equal(nsecs_to_jiffies(9999999), 0);
	assert_int_equal(jiffies_to_msecs(HZ), 1000);
	assert_int_equal(jiffies_to_msecs(1), 10);
	assert_int_equal(jiffies_to_usecs(1), 10000);
	assert_int_equal(jiffies_to_nsecs(2), 20000000);
	/* a round trip never shortens a timeout */
	for (unsigned int ms = 0; ms < 100; ms++)
		assert_true(jiffies_to_msecs(msecs_to_jiffies(ms)) >= ms);
}

static void test_time_after_across_the_wrap(void **state)
{
	unsigned long a = ULONG_MAX - 5, b = a + 10, mid = a + 7;
	(void)state;

	assert_true(b < a); /* wrapped */
	assert_true(time_after(b, a));
	assert_false(time_after(a, b));
	assert_true(time_before(a, b));
	assert_false(time_before(b, a));
	assert_true(time_after_eq(a, a));
	assert_true(time_before_eq(a, a));
	assert_false(time_after(a, a));
	assert_true(time_in_range(mid, a, b));
	assert_false(time_in_range(b + 1, a, b));
	assert_true(time_in_range_open(a, a, b));
	assert_false(time_in_range_open(b, a, b));
	assert_true(time_after64((u64)5, (u64)-3));
	assert_true(time_before_eq64((u64)-3, (u64)-3));
	assert_true(time_in_range64((u64)0, (u64)-1, (u64)1));
}

static void test_ktime_arithmetic(void **state)
{
	ktime_t a = ms_to_ktime(5), b = us_to_ktime(2000), t0, t1;
	(void)state;

	assert_int_equal(ktime_set(1, 500), NSEC_PER_SEC + 500);
	assert_int_equal(ktime_set(KTIME_SEC_MAX, 0), KTIME_MAX);
	assert_int_equal(ktime_to_ns(ktime_add_us(ns_to_ktime(7), 3)), 3007);
	assert_int_equal(ktime_add_ms(0, 2), 2000000);
	assert_int_equal(ktime_sub_us(a, 1000), 4000000);
	assert_int_equal(ktime_us_delta(a, b), 3000);
	assert_int_equal(ktime_ms_delta(a, b), 3);
	assert_int_equal(ktime_to_us(ktime_sub(a, b)), 3000);
	assert_int_equal(ktime_to_ms(ktime_add(a, b)), 7);
	assert_int_equal(ktime_compare(a, b), 1);
	assert_int_equal(ktime_compare(b, a), -1);
	assert_int_equal(ktime_compare(a, a), 0);
	assert_true(ktime_after(a, b));
	assert_true(ktime_before(b, a));
	t0 = ktime_get();
	t1 = ktime_get();
	assert_true(ktime_compare(t1, t0) >= 0);
	assert_true(ktime_get_ns() >= (u64)t1);
}

/* ------------------------------------------------------ delays, sleeps */

static void test_delays_last_at_least_what_they_ask(void **state)
{
	ktime_t t0;
	(void)state;

	t0 = ktime_get();
	ndelay(1500);
	assert_true(ktime_to_ns(ktime_sub(ktime_get(), t0)) >= 1500);
	t0 = ktime_get();
	udelay(2000);
	assert_true(us_since(t0) >= 2000);
	t0 = ktime_get();
	mdelay(3);
	assert_true(us_since(t0) >= 3000);
	t0 = ktime_get();
	udelay(0);
	ndelay(0);
}

static void test_sleeps_last_at_least_what_they_ask(void **state)
{
	ktime_t t0;
	(void)state;

	t0 = ktime_get();
	msleep(20);
	assert_true(us_since(t0) >= 20000);
	t0 = ktime_get();
	usleep_range(5000, 10000);
	assert_true(us_since(t0) >= 5000);
	t0 = ktime_get();
	assert_int_equal(msleep_interruptible(4), 0);
	assert_true(us_since(t0) >= 4000);
	/* fsleep(): a busy-wait up to 10 us, a sleep beyond; each at least as long as asked */
	t0 = ktime_get();
	fsleep(8);
	assert_true(us_since(t0) >= 8);
	t0 = ktime_get();
	fsleep(15000);
	assert_true(us_since(t0) >= 15000);
	t0 = ktime_get();
	fsleep(21500); /* msleep() of whole milliseconds, rounded up */
	assert_true(us_since(t0) >= 22000);
	msleep(0);
}

/* ---------------------------------------------------------- iopoll */

/* A status source that reads @ready from the read @after on, and counts its reads. */
struct source {
	int reads;
	int after;
	u32 ready;
	ktime_t ready_at;   /* or, when set: ready once the clock is past it */
	ktime_t last_read;
};

static u32 source_read(struct source *s)
{
	s->reads++;
	s->last_read = ktime_get();
	if (s->ready_at)
		return ktime_after(s->last_read, s->ready_at) ? s->ready : 0;
	return s->reads >= s->after ? s->ready : 0;
}

/* A read of two arguments, as read_poll_timeout() passes them. */
static u32 source_read2(struct source *s, u32 mask)
{
	return source_read(s) & mask;
}

static void test_poll_returns_once_the_condition_holds(void **state)
{
	struct source s = { .after = 4, .ready = 0x81 };
	u32 val = 0;
	int ret;
	(void)state;

	ret = read_poll_timeout(source_read2, val, val & 0x80, 100, 1000000, false, &s, 0xffu);
	assert_int_equal(ret, 0);
	assert_int_equal(val, 0x81);
	assert_int_equal(s.reads, 4);

	s = (struct source){ .after = 3, .ready = 1 };
	ret = readx_poll_timeout_atomic(source_read, &s, val, val == 1, 5, 1000000);
	assert_int_equal(ret, 0);
	assert_int_equal(s.reads, 3);

	/* a condition true at once: one read, no wait */
	s = (struct source){ .after = 1, .ready = 7 };
	ret = readx_poll_timeout(source_read, &s, val, val == 7, 0, 0);
	assert_int_equal(ret, 0);
	assert_int_equal(s.reads, 1);
}

static void test_poll_times_out_after_a_last_read(void **state)
{
	struct source s = { .after = INT_MAX, .ready = 1 };
	ktime_t t0;
	u32 val = 0xdead;
	int ret;
	(void)state;

	t0 = ktime_get();
	ret = readx_poll_timeout(source_read, &s, val, val == 1, 500, 8000);
	assert_int_equal(ret, -ETIMEDOUT);
	assert_int_equal(val, 0); /* the last value read */
	assert_true(us_since(t0) >= 8000);
	/* the read that decided came after the timeout */
	assert_true(ktime_us_delta(s.last_read, t0) >= 8000);
	assert_true(s.reads >= 2);

	s = (struct source){ .after = INT_MAX, .ready = 1 };
	t0 = ktime_get();
	ret = readx_poll_timeout_atomic(source_read, &s, val, val == 1, 10, 3000);
	assert_int_equal(ret, -ETIMEDOUT);
	assert_true(ktime_us_delta(s.last_read, t0) >= 3000);
}

/* A register that became ready while the poller slept past its timeout is seen: 0, not -ETIMEDOUT. */
static void test_poll_sees_what_became_true_during_the_last_sleep(void **state)
{
	struct source s = { .ready = 0x10 };
	u32 val = 0;
	int ret;
	(void)state;

	s.ready_at = ktime_add_us(ktime_get(), 4000);
	/* sleeps of about 10 ms (sleep_us / 4) between reads; a timeout of 2 ms */
	ret = readx_poll_timeout(source_read, &s, val, val == 0x10, 40000, 2000);
	assert_int_equal(ret, 0);
	assert_int_equal(val, 0x10);
	assert_int_equal(s.reads, 2);
}

static void test_poll_sleeps_before_the_first_read_when_asked(void **state)
{
	struct source s = { .after = 1, .ready = 1 };
	ktime_t t0 = ktime_get();
	u32 val;
	int ret;
	(void)state;

	ret = read_poll_timeout(source_read, val, val, 20000, 0, true, &s);
	assert_int_equal(ret, 0);
	assert_true(ktime_us_delta(s.last_read, t0) >= 5000); /* (20000 >> 2) + 1 */
	s = (struct source){ .after = 1, .ready = 1 };
	t0 = ktime_get();
	ret = read_poll_timeout_atomic(source_read, val, val, 3000, 0, true, &s);
	assert_int_equal(ret, 0);
	assert_true(ktime_us_delta(s.last_read, t0) >= 3000);
}

static void test_register_polls(void **state)
{
	u32 regs[4] = { 0 };
	u8 __iomem *base = (u8 __iomem *)regs;
	u32 val;
	u8 b;
	int ret;
	(void)state;

	writel(0x8001, base + 4);
	ret = readl_poll_timeout(base + 4, val, val & 0x8000, 10, 1000);
	assert_int_equal(ret, 0);
	assert_int_equal(val, 0x8001);
	ret = readl_relaxed_poll_timeout_atomic(base + 4, val, val & 1, 1, 1000);
	assert_int_equal(ret, 0);
	ret = readb_poll_timeout_atomic(base + 4, b, b == 1, 1, 1000);
	assert_int_equal(ret, 0);
	assert_int_equal(b, 1);
	ret = readl_poll_timeout(base, val, val & 1, 100, 2000);
	assert_int_equal(ret, -ETIMEDOUT);
	assert_int_equal(val, 0);
	ret = readl_poll_timeout_atomic(base + 8, val, val != 0, 2, 500);
	assert_int_equal(ret, -ETIMEDOUT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_jiffies_tick_at_hz),
		cmocka_unit_test(test_jiffies_conversions),
		cmocka_unit_test(test_time_after_across_the_wrap),
		cmocka_unit_test(test_ktime_arithmetic),
		cmocka_unit_test(test_delays_last_at_least_what_they_ask),
		cmocka_unit_test(test_sleeps_last_at_least_what_they_ask),
		cmocka_unit_test(test_poll_returns_once_the_condition_holds),
		cmocka_unit_test(test_poll_times_out_after_a_last_read),
		cmocka_unit_test(test_poll_sees_what_became_true_during_the_last_sleep),
		cmocka_unit_test(test_poll_sleeps_before_the_first_read_when_asked),
		cmocka_unit_test(test_register_polls),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
