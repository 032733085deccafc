/* SPDX-License-Identifier: MIT */
/*
 * Tasklets of <linux/interrupt.h>: a tasklet runs in softirq context, in
 * the thread that scheduled it, at once from task context or at the
 * thread's next point where softirqs may run (the unlock of its last
 * spinlock, spin_unlock_bh(), local_bh_enable(), local_irq_restore()),
 * and when scheduled from a hard handler, after the handlers and before
 * the thread functions they woke; scheduled twice it runs once, scheduled
 * while it runs it runs again after, never two runs at once, across
 * threads too; a disabled one stays scheduled until its enable. Sleeping
 * in a tasklet, a tasklet that keeps a lock, one that takes a lock its
 * raiser holds, the waits for itself, an enable without a disable, a
 * tasklet never initialised, memory freed with a tasklet in it still
 * scheduled and one left scheduled at machine destroy are reported. The BH workqueues of Linux 6.9 (WQ_BH, system_bh_wq) run their
 * items where tasklets run, in softirq context, BH items before the
 * tasklets of their priority.
 */
#include <linux/atomic.h>
#include <linux/delay.h>
#include <linux/interrupt.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>

#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

#include "common.h"

/* What a tasklet saw, and the log of what ran, shared by the tasklets and handlers of a test. */
struct tl {
	struct tasklet_struct t;
	char name;
	char *order;
	int runs;
	bool softirq, serving, interrupt, hardirq, irqs_off, atomic, task;
	pthread_t thread;
};

static void log_run(char *order, char name)
{
	size_t n = strlen(order);

	order[n] = name;
	order[n + 1] = '\0';
}

static void tl_cb(struct tasklet_struct *t)
{
	struct tl *x = from_tasklet(x, t, t);

	log_run(x->order, x->name);
	x->runs++;
	x->softirq = in_softirq();
	x->serving = in_serving_softirq();
	x->interrupt = in_interrupt();
	x->hardirq = in_hardirq();
	x->irqs_off = irqs_disabled();
	x->atomic = in_atomic();
	x->task = in_task();
	x->thread = pthread_self();
}

static void tl_make(struct tl *x, char name, char *order)
{
	memset(x, 0, sizeof(*x));
	x->name = name;
	x->order = order;
	tasklet_setup(&x->t, tl_cb);
}

/* TASKLET_STATE_SCHED, read under the library's lock (a driver's test_bit() would race with other threads). */
static bool test_bit_sched(struct tasklet_struct *t)
{
	return dmamap_tasklet_scheduled(t);
}

static bool scheduled(struct tl *x)
{
	return test_bit_sched(&x->t);
}

/* ------------------------------------------------------------ context */

static unsigned long old_data;
static int old_runs;

static void old_fn(unsigned long data)
{
	old_data = data;
	old_runs++;
}

static char static_order[8];
static int static_runs;

static void static_cb(struct tasklet_struct *t)
{
	(void)t;
	static_runs++;
	log_run(static_order, 's');
}

DECLARE_TASKLET(static_tasklet, static_cb);

/*
 * Scheduled from task context with nothing held, a tasklet runs before
 * tasklet_schedule() returns, in this thread, in softirq context:
 * in_softirq(), in_serving_softirq(), in_interrupt(), in_atomic() true,
 * in_hardirq() and in_task() false, interrupts on. The thread is a task
 * again after. tasklet_init() calls its function with its data;
 * DECLARE_TASKLET() defines a tasklet ready to run.
 */
static void test_runs_at_once_in_softirq_context(void **state)
{
	struct current_fx *f = *state;
	char order[8] = "";
	struct tl a;
	struct tasklet_struct old;

	tl_make(&a, 'a', order);
	assert_false(scheduled(&a));
	tasklet_schedule(&a.t);
	assert_string_equal(order, "a");
	assert_int_equal(a.runs, 1);
	assert_true(pthread_equal(a.thread, pthread_self()));
	assert_true(a.softirq && a.serving && a.interrupt && a.atomic);
	assert_false(a.hardirq || a.task || a.irqs_off);
	assert_false(scheduled(&a));
	assert_false(in_softirq() || in_serving_softirq() || in_interrupt() || in_atomic());
	assert_true(in_task());

	tasklet_init(&old, old_fn, 0x5a5a);
	tasklet_hi_schedule(&old);
	assert_int_equal(old_runs, 1);
	assert_int_equal(old_data, 0x5a5a);

	tasklet_schedule(&static_tasklet);
	assert_int_equal(static_runs, 1);
	tasklet_kill(&static_tasklet);
	tasklet_kill(&a.t);
	tasklet_kill(&old);
	assert_int_equal(f->c.reports, 0);
}

/*
 * From a thread that holds a spinlock, or has bottom halves or interrupts
 * off, a tasklet waits for the point where none holds any more: the
 * unlock of the last spinlock, spin_unlock_bh(), the last
 * local_bh_enable(), local_irq_restore(). Bottom halves off count as
 * softirq context (in_softirq(), in_interrupt()), the thread still a task.
 * A mutex held does not defer it.
 */
static void test_waits_for_the_thread_softirq_point(void **state)
{
	struct current_fx *f = *state;
	char order[16] = "";
	unsigned long flags;
	struct tl a;
	DEFINE_SPINLOCK(one);
	DEFINE_SPINLOCK(two);
	DEFINE_MUTEX(mu);

	tl_make(&a, 'a', order);

	spin_lock(&one);
	spin_lock(&two);
	tasklet_schedule(&a.t);
	assert_true(scheduled(&a));
	spin_unlock(&two);
	assert_string_equal(order, "");
	spin_unlock(&one);
	assert_string_equal(order, "a");
	assert_false(scheduled(&a));

	spin_lock_bh(&one);
	assert_true(in_softirq() && in_interrupt() && in_atomic() && in_task());
	assert_false(in_serving_softirq());
	tasklet_schedule(&a.t);
	assert_string_equal(order, "a");
	spin_unlock_bh(&one);
	assert_string_equal(order, "aa");
	assert_false(in_softirq() || in_interrupt() || in_atomic());

	local_bh_disable();
	local_bh_disable();
	tasklet_schedule(&a.t);
	local_bh_enable();
	assert_string_equal(order, "aa");
	assert_true(in_softirq());
	local_bh_enable();
	assert_string_equal(order, "aaa");

	local_irq_save(flags);
	tasklet_schedule(&a.t);
	assert_string_equal(order, "aaa");
	local_irq_restore(flags);
	assert_string_equal(order, "aaaa");

	/* interrupts off inside bottom halves off: the later of the two ends it */
	local_bh_disable();
	spin_lock_irqsave(&one, flags);
	tasklet_schedule(&a.t);
	spin_unlock_irqrestore(&one, flags);
	assert_string_equal(order, "aaaa");
	local_bh_enable();
	assert_string_equal(order, "aaaaa");

	mutex_lock(&mu);
	tasklet_schedule(&a.t);
	assert_string_equal(order, "aaaaaa");
	mutex_unlock(&mu);

	/* what the thread saw inside: softirq context, interrupts on */
	assert_true(a.serving && a.softirq && !a.irqs_off && !a.hardirq);
	tasklet_kill(&a.t);
	assert_int_equal(f->c.reports, 0);
}

/* Scheduled twice before it runs, a tasklet runs once; high-priority ones run first, each kind in order. */
static void test_runs_once_hi_first(void **state)
{
	struct current_fx *f = *state;
	char order[16] = "";
	struct tl a, b, c, d;
	DEFINE_SPINLOCK(lk);

	tl_make(&a, 'a', order);
	tl_make(&b, 'b', order);
	tl_make(&c, 'c', order);
	tl_make(&d, 'd', order);
	spin_lock(&lk);
	tasklet_schedule(&a.t);
	tasklet_hi_schedule(&b.t);
	tasklet_schedule(&c.t);
	tasklet_schedule(&a.t);
	tasklet_hi_schedule(&d.t);
	spin_unlock(&lk);
	assert_string_equal(order, "bdac");
	assert_int_equal(a.runs, 1);
	tasklet_kill(&a.t);
	tasklet_kill(&b.t);
	tasklet_kill(&c.t);
	tasklet_kill(&d.t);
	assert_int_equal(f->c.reports, 0);
}

/* A tasklet that schedules itself runs again once it has returned, not inside itself. */
static int again_depth, again_max, again_runs;

static void again_cb(struct tasklet_struct *t)
{
	again_depth++;
	if (again_depth > again_max)
		again_max = again_depth;
	if (++again_runs < 3) {
		tasklet_schedule(t);
		tasklet_schedule(t); /* scheduled already: nothing more */
	}
	again_depth--;
}

static void test_scheduled_while_running_runs_after(void **state)
{
	struct current_fx *f = *state;
	struct tasklet_struct t;

	again_depth = again_max = again_runs = 0;
	tasklet_setup(&t, again_cb);
	tasklet_schedule(&t);
	assert_int_equal(again_runs, 3);
	assert_int_equal(again_max, 1);
	assert_false(test_bit_sched(&t));
	tasklet_kill(&t);
	assert_int_equal(f->c.reports, 0);
}

/*
 * A disabled tasklet stays scheduled without running; the enable that
 * brings its count to 0 runs it (at the enabling thread's next point);
 * disables nest. DECLARE_TASKLET_DISABLED() starts disabled.
 */
static char dis_order[8];
static void dis_cb(struct tasklet_struct *t)
{
	(void)t;
	log_run(dis_order, 'z');
}
DECLARE_TASKLET_DISABLED(dis_tasklet, dis_cb);

static void test_disabled_stays_scheduled_until_enabled(void **state)
{
	struct current_fx *f = *state;
	char order[16] = "";
	struct tl a;
	DEFINE_SPINLOCK(lk);

	tl_make(&a, 'a', order);
	tasklet_disable(&a.t);
	tasklet_disable_nosync(&a.t);
	tasklet_schedule(&a.t);
	assert_string_equal(order, "");
	assert_true(scheduled(&a));
	tasklet_enable(&a.t);
	assert_string_equal(order, "");
	assert_true(scheduled(&a));
	/* the enable under a spinlock: at its unlock */
	spin_lock(&lk);
	tasklet_enable(&a.t);
	assert_string_equal(order, "");
	spin_unlock(&lk);
	assert_string_equal(order, "a");
	assert_false(scheduled(&a));
	/* disabled, not scheduled: the enable runs nothing */
	tasklet_disable_in_atomic(&a.t);
	tasklet_enable(&a.t);
	assert_string_equal(order, "a");

	tasklet_schedule(&dis_tasklet);
	assert_string_equal(dis_order, "");
	tasklet_enable(&dis_tasklet);
	assert_string_equal(dis_order, "z");
	tasklet_kill(&dis_tasklet);
	tasklet_kill(&a.t);
	assert_int_equal(f->c.reports, 0);
}

/* ------------------------------------------------------------ interrupts */

struct irqdev {
	struct tl tl;
	char *order;
	bool thread_fn_in_task;
};

static irqreturn_t sched_irq(int irq, void *data)
{
	struct irqdev *d = data;

	(void)irq;
	tasklet_schedule(&d->tl.t);
	log_run(d->order, 'h');
	return IRQ_WAKE_THREAD;
}

static irqreturn_t sched_thread_fn(int irq, void *data)
{
	struct irqdev *d = data;

	(void)irq;
	log_run(d->order, 'f');
	d->thread_fn_in_task = in_task() && !in_interrupt();
	return IRQ_HANDLED;
}

/*
 * Scheduled from a hard handler, a tasklet runs when the line's handlers
 * are done, before the thread function they woke, in the raising thread,
 * in softirq context (not hard). Raised with bottom halves off, it waits
 * for their enable, after the thread function.
 */
static void test_from_hard_handler_at_irq_exit(void **state)
{
	struct current_fx *f = *state;
	char order[16] = "";
	struct irqdev d;
	DEFINE_SPINLOCK(lk);

	memset(&d, 0, sizeof(d));
	tl_make(&d.tl, 't', order);
	d.order = order;
	assert_int_equal(request_threaded_irq(9, sched_irq, sched_thread_fn, IRQF_ONESHOT, "sched", &d), 0);
	assert_int_equal(dmamap_irq_raise(f->m, 9), 1);
	assert_string_equal(order, "htf");
	assert_true(d.tl.serving && d.tl.interrupt && !d.tl.hardirq && !d.tl.irqs_off);
	assert_true(pthread_equal(d.tl.thread, pthread_self()));
	assert_true(d.thread_fn_in_task);

	/* the raiser holding a spinlock: at the end of the interrupt all the same */
	order[0] = '\0';
	spin_lock(&lk);
	assert_int_equal(dmamap_irq_raise(f->m, 9), 1);
	assert_string_equal(order, "htf");
	spin_unlock(&lk);
	assert_string_equal(order, "htf");

	order[0] = '\0';
	spin_lock_bh(&lk);
	assert_int_equal(dmamap_irq_raise(f->m, 9), 1);
	assert_string_equal(order, "hf");
	spin_unlock_bh(&lk);
	assert_string_equal(order, "hft");
	free_irq(9, &d);
	tasklet_kill(&d.tl.t);
	assert_int_equal(f->c.reports, 0);
}

/* A tasklet that raises another line: its handler runs nested, in hard interrupt context, as on a kernel. */
static struct dmamap_machine *nest_machine;
static char *nest_order;

static void raise_cb(struct tasklet_struct *t)
{
	(void)t;
	log_run(nest_order, 'r');
	dmamap_irq_raise(nest_machine, 11);
	log_run(nest_order, in_serving_softirq() ? 's' : '?');
}

static irqreturn_t log_irq(int irq, void *data)
{
	(void)irq;
	log_run(data, in_hardirq() ? 'H' : '?');
	return IRQ_HANDLED;
}

static irqreturn_t sched_raiser_irq(int irq, void *data)
{
	(void)irq;
	log_run(nest_order, 'h');
	tasklet_schedule(data);
	return IRQ_WAKE_THREAD;
}

static irqreturn_t log_thread_fn(int irq, void *data)
{
	(void)irq;
	(void)data;
	log_run(nest_order, 'f');
	return IRQ_HANDLED;
}

static void test_tasklet_raising_a_line(void **state)
{
	struct current_fx *f = *state;
	struct tasklet_struct t;
	char order[16] = "";

	nest_machine = f->m;
	nest_order = order;
	tasklet_setup(&t, raise_cb);
	assert_int_equal(request_irq(11, log_irq, 0, "nested", order), 0);
	assert_int_equal(request_threaded_irq(12, sched_raiser_irq, log_thread_fn, IRQF_ONESHOT, "outer", &t), 0);
	assert_int_equal(dmamap_irq_raise(f->m, 12), 1);
	assert_string_equal(order, "hrHsf");
	free_irq(11, order);
	free_irq(12, &t);
	tasklet_kill(&t);
	assert_int_equal(f->c.reports, 0);
}

/* A tasklet taking the lock its raiser holds: the CPU it runs on holds it, a deadlock reported as recursion. */
static spinlock_t raiser_lock;
static int taker_line;

static void taker_cb(struct tasklet_struct *t)
{
	(void)t;
	taker_line = __LINE__ + 1;
	spin_lock(&raiser_lock); /* the kernel spins here for ever: not taken, so nothing to unlock */
}

static irqreturn_t sched_taker_irq(int irq, void *data)
{
	(void)irq;
	tasklet_schedule(data);
	return IRQ_HANDLED;
}

static void test_raiser_lock_taken_is_reported(void **state)
{
	struct current_fx *f = *state;
	struct tasklet_struct t;

	spin_lock_init(&raiser_lock);
	tasklet_setup(&t, taker_cb);
	assert_int_equal(request_irq(10, sched_taker_irq, 0, "taker", &t), 0);
	spin_lock(&raiser_lock);
	assert_int_equal(dmamap_irq_raise(f->m, 10), 1);
	assert_int_equal(f->c.reports, 1);
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_LOCK_MISUSE], 1);
	assert_int_equal(f->c.rec_last.line, taker_line);
	assert_non_null(strstr(f->c.rec_last.message, "already holds it"));
	/* the raiser still holds its lock, as before */
	assert_true(spin_is_locked(&raiser_lock));
	assert_true(in_atomic());
	assert_false(in_softirq());
	spin_unlock(&raiser_lock);
	assert_false(spin_is_locked(&raiser_lock));
	assert_false(in_atomic());
	assert_false(test_bit_sched(&t));
	free_irq(10, &t);
	tasklet_kill(&t);
	assert_int_equal(f->c.reports, 1);
	f->c.reports = 0;
}

/* ------------------------------------------------------------ what is reported */

static struct mutex sleeper_mutex;
static int sleep_lines[3];

static void sleeper_cb(struct tasklet_struct *t)
{
	(void)t;
	sleep_lines[0] = __LINE__ + 1;
	mutex_lock(&sleeper_mutex);
	mutex_unlock(&sleeper_mutex);
	sleep_lines[1] = __LINE__ + 1;
	msleep(1);
	sleep_lines[2] = __LINE__ + 1;
	kfree(kmalloc(32, GFP_KERNEL));
	kfree(kmalloc(32, GFP_ATOMIC));
}

/* A tasklet that sleeps is reported as a hard handler is, at each call; so is a sleep with bottom halves off. */
static void test_sleeping_in_tasklet_is_reported(void **state)
{
	struct current_fx *f = *state;
	struct tasklet_struct t;
	int line;

	mutex_init(&sleeper_mutex);
	tasklet_setup(&t, sleeper_cb);
	tasklet_schedule(&t);
	assert_int_equal(f->c.reports, 3);
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_SLEEP_IN_ATOMIC], 3);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(f->c.rec[i].kind, DMAMAP_REPORT_SLEEP_IN_ATOMIC);
		assert_int_equal(f->c.rec[i].line, sleep_lines[i]);
		assert_non_null(strstr(f->c.rec[i].message, "in a tasklet"));
	}
	assert_false(mutex_is_locked(&sleeper_mutex));
	tasklet_kill(&t);

	local_bh_disable();
	line = __LINE__ + 1;
	might_sleep();
	local_bh_enable();
	assert_int_equal(f->c.reports, 4);
	assert_int_equal(f->c.rec_last.line, line);
	assert_non_null(strstr(f->c.rec_last.message, "bottom halves off since local_bh_disable()"));
	/* outside, no report */
	might_sleep();
	assert_int_equal(f->c.reports, 4);
	f->c.reports = 0;
}

static spinlock_t kept_lock;
static int kept_line;

static void keeper_cb(struct tasklet_struct *t)
{
	(void)t;
	kept_line = __LINE__ + 1;
	spin_lock(&kept_lock);
}

/* A tasklet that returns holding a lock it took is reported; the lock stays locked, the thread a task again. */
static void test_returning_with_lock_is_reported(void **state)
{
	struct current_fx *f = *state;
	struct tasklet_struct t;
	char at[32];
	int line;

	spin_lock_init(&kept_lock);
	line = __LINE__ + 1;
	tasklet_setup(&t, keeper_cb);
	tasklet_schedule(&t);
	assert_int_equal(f->c.reports, 1);
	assert_int_equal(f->c.rec_last.kind, DMAMAP_REPORT_LOCK_MISUSE);
	assert_int_equal(f->c.rec_last.line, line);
	assert_non_null(strstr(f->c.rec_last.message, "returned with 1 lock held: '&kept_lock'"));
	snprintf(at, sizeof(at), ":%d", kept_line);
	assert_non_null(strstr(f->c.rec_last.message, at));
	assert_true(spin_is_locked(&kept_lock));
	assert_false(in_atomic() || in_softirq());
	might_sleep();
	assert_int_equal(f->c.reports, 1);
	f->c.reports = 0;
}

static int self_lines[3];

static void self_waiter_cb(struct tasklet_struct *t)
{
	self_lines[0] = __LINE__ + 1;
	tasklet_kill(t);
	self_lines[1] = __LINE__ + 1;
	tasklet_disable_in_atomic(t);
	tasklet_enable(t);
	self_lines[2] = __LINE__ + 1;
	tasklet_unlock_spin_wait(t);
}

/*
 * Reported, and nothing else changes: a tasklet never initialised is not
 * scheduled; an enable without a disable leaves the count 0; a
 * tasklet_kill() of a disabled, scheduled tasklet returns at once; the
 * waits of a tasklet for itself do not wait; tasklet_kill() holding a
 * spinlock is a sleep in atomic context.
 */
static void test_misuse_is_reported(void **state)
{
	struct current_fx *f = *state;
	struct tasklet_struct zero, t;
	char order[8] = "";
	struct tl a;
	DEFINE_SPINLOCK(lk);
	int line;

	memset(&zero, 0, sizeof(zero));
	line = __LINE__ + 1;
	tasklet_schedule(&zero);
	assert_int_equal(f->c.reports, 1);
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_BAD_INPUT], 1);
	assert_int_equal(f->c.rec_last.line, line);
	assert_non_null(strstr(f->c.rec_last.message, "never initialised"));
	assert_false(test_bit_sched(&zero));

	tl_make(&a, 'a', order);
	line = __LINE__ + 1;
	tasklet_enable(&a.t);
	assert_int_equal(f->c.reports, 2);
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_API_MISUSE], 1);
	assert_int_equal(f->c.rec_last.line, line);
	assert_int_equal(atomic_read(&a.t.count), 0);
	tasklet_schedule(&a.t);
	assert_string_equal(order, "a");

	tasklet_disable(&a.t);
	tasklet_schedule(&a.t);
	line = __LINE__ + 1;
	tasklet_kill(&a.t);
	assert_int_equal(f->c.reports, 3);
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_LOCK_MISUSE], 1);
	assert_int_equal(f->c.rec_last.line, line);
	assert_non_null(strstr(f->c.rec_last.message, "disabled and scheduled"));
	assert_true(scheduled(&a));
	assert_string_equal(order, "a");
	tasklet_enable(&a.t);
	assert_string_equal(order, "aa");

	/* tasklet_kill() in a tasklet is a sleep in atomic context too */
	tasklet_setup(&t, self_waiter_cb);
	tasklet_schedule(&t);
	assert_int_equal(f->c.reports, 7);
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_LOCK_MISUSE], 4);
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_SLEEP_IN_ATOMIC], 1);
	assert_int_equal(f->c.rec[3].kind, DMAMAP_REPORT_SLEEP_IN_ATOMIC);
	assert_int_equal(f->c.rec[3].line, self_lines[0]);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(f->c.rec[4 + i].kind, DMAMAP_REPORT_LOCK_MISUSE);
		assert_int_equal(f->c.rec[4 + i].line, self_lines[i]);
		assert_non_null(strstr(f->c.rec[4 + i].message, "from the tasklet itself"));
	}
	assert_false(test_bit_sched(&t));
	assert_int_equal(atomic_read(&t.count), 0);

	spin_lock(&lk);
	line = __LINE__ + 1;
	tasklet_kill(&a.t);
	spin_unlock(&lk);
	assert_int_equal(f->c.reports, 8);
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_SLEEP_IN_ATOMIC], 2);
	assert_int_equal(f->c.rec_last.line, line);

	line = __LINE__ + 1;
	local_bh_enable();
	assert_int_equal(f->c.reports, 9);
	assert_int_equal(f->c.rec_last.line, line);
	assert_false(in_softirq());
	assert_string_equal(order, "aa");
	tasklet_kill(&t);
	f->c.reports = 0;
}

/* A tasklet still scheduled (disabled) when its machine goes is reported, with where it was scheduled. */
static void test_left_scheduled_at_machine_destroy(void **state)
{
	struct dmamap_machine *m = test_machine(16, NULL);
	char order[8] = "";
	struct capture c;
	struct tl a;
	int line;

	(void)state;
	capture_start(&c, m);
	dmamap_machine_set_current(m);
	tl_make(&a, 'a', order);
	tasklet_disable(&a.t);
	line = __LINE__ + 1;
	tasklet_schedule(&a.t);
	dmamap_machine_destroy(m);
	assert_int_equal(c.reports, 1);
	assert_int_equal(c.by_kind[DMAMAP_REPORT_LEAK], 1);
	assert_int_equal(c.rec[0].line, line);
	assert_non_null(strstr(c.rec[0].message, "still scheduled and disabled"));
	dmamap_machine_set_current(NULL);
	/* the tasklet, still the test's, is forgotten: its enable runs nothing, its kill returns */
	tasklet_enable(&a.t);
	tasklet_kill(&a.t);
	assert_string_equal(order, "");
}

/*
 * kfree() of memory holding a scheduled tasklet (the driver's private data,
 * its remove() without tasklet_kill()) is reported at the kfree, naming
 * where the tasklet was scheduled, and the tasklet is unscheduled: it never
 * runs on the freed memory, and nothing is left for the machine's destroy
 * to report. A disabled one is said to be so. A tasklet in the object
 * right after the freed one stays scheduled and runs.
 */
static void test_free_of_scheduled_tasklet_reported(void **state)
{
	struct current_fx *f = *state;
	struct tl *x = kzalloc(sizeof(*x), GFP_KERNEL), *next = kzalloc(sizeof(*next), GFP_KERNEL);
	struct tl *off = kzalloc(sizeof(*off), GFP_KERNEL);
	char order[8] = "", want[80];
	int sline, line;

	assert_non_null(x);
	assert_non_null(next);
	assert_non_null(off);
	/* the second object in the slot after the first: its tasklet at the first's end */
	assert_ptr_equal((char *)next, (char *)x + ksize(x));
	tl_make(x, 'x', order);
	tl_make(next, 'n', order);
	tl_make(off, 'o', order);
	local_bh_disable();
	sline = __LINE__ + 1;
	tasklet_schedule(&x->t);
	tasklet_schedule(&next->t);
	line = __LINE__ + 1;
	kfree(x);
	assert_int_equal(f->c.reports, 1);
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_API_MISUSE], 1);
	assert_int_equal(f->c.rec[0].line, line);
	assert_non_null(strstr(f->c.rec[0].message, "kfree: the memory at"));
	snprintf(want, sizeof(want), "test-tasklet.c:%d, has not run", sline);
	assert_non_null(strstr(f->c.rec[0].message, want));
	assert_non_null(strstr(f->c.rec[0].message, "(tasklet_kill() missing?); unscheduled"));
	local_bh_enable();
	assert_string_equal(order, "n");
	kfree(next);

	/* disabled and scheduled: the same, said so */
	tasklet_disable(&off->t);
	tasklet_schedule(&off->t);
	line = __LINE__ + 1;
	kfree(off);
	assert_int_equal(f->c.reports, 2);
	assert_int_equal(f->c.rec[1].line, line);
	assert_non_null(strstr(f->c.rec[1].message, "has not run"));
	assert_non_null(strstr(f->c.rec[1].message, " and disabled, has not run"));
	assert_string_equal(order, "n");
	f->c.reports = 0;
}

/* ------------------------------------------------------------ threads */

struct gate {
	struct tasklet_struct t;
	struct work_struct w;
	bool bh; /* the BH item @w on system_bh_wq, else the tasklet @t */
	atomic_int inside, max_inside, runs, hold, release, inside_at_wait, scheduled;
	pthread_t threads[4];
};

static void gate_run(struct gate *g)
{
	int in = atomic_fetch_add(&g->inside, 1) + 1;
	int run = atomic_fetch_add(&g->runs, 1);

	if (in > atomic_load(&g->max_inside))
		atomic_store(&g->max_inside, in);
	if (run < 4)
		g->threads[run] = pthread_self();
	/* held until the test lets it go: it spins (softirq context may not sleep) */
	while (atomic_load(&g->hold) && !atomic_load(&g->release))
		sched_yield();
	atomic_fetch_sub(&g->inside, 1);
}

static void gate_cb(struct tasklet_struct *t)
{
	gate_run(from_tasklet((struct gate *)NULL, t, t));
}

static void gate_work(struct work_struct *w)
{
	gate_run(container_of(w, struct gate, w));
}

static bool gate_pending(struct gate *g)
{
	return g->bh ? work_pending(&g->w) : test_bit_sched(&g->t);
}

static void *schedule_in_thread(void *arg)
{
	struct gate *g = arg;

	if (g->bh)
		queue_work(system_bh_wq, &g->w);
	else
		tasklet_schedule(&g->t);
	atomic_fetch_add(&g->scheduled, 1);
	return NULL;
}

static void *disable_in_thread(void *arg)
{
	struct gate *g = arg;

	tasklet_disable(&g->t);
	atomic_store(&g->inside_at_wait, atomic_load(&g->inside) + 1);
	return NULL;
}

static void *cancel_in_thread(void *arg)
{
	struct gate *g = arg;

	cancel_work_sync(&g->w);
	atomic_store(&g->inside_at_wait, atomic_load(&g->inside) + 1);
	return NULL;
}

/* @g, held in a run, scheduled again from another thread: it runs again after, in the runner, never two at once. */
static void gate_runs_again_in_runner(struct gate *g)
{
	pthread_t runner, other;

	atomic_store(&g->hold, 1);
	assert_int_equal(pthread_create(&runner, NULL, schedule_in_thread, g), 0);
	while (!atomic_load(&g->inside))
		sched_yield();
	assert_int_equal(pthread_create(&other, NULL, schedule_in_thread, g), 0);
	for (int i = 0; i < 1000 && atomic_load(&g->scheduled) < 1; i++)
		usleep(1000);
	/* scheduled again, not run by the other thread (which would spin at the gate too) */
	assert_int_equal(atomic_load(&g->max_inside), 1);
	assert_int_equal(atomic_load(&g->scheduled), 1);
	assert_int_equal(pthread_join(other, NULL), 0);
	assert_int_equal(atomic_load(&g->runs), 1);
	assert_true(gate_pending(g));
	atomic_store(&g->release, 1);
	assert_int_equal(pthread_join(runner, NULL), 0);
	assert_int_equal(atomic_load(&g->runs), 2);
	assert_int_equal(atomic_load(&g->max_inside), 1);
	assert_true(pthread_equal(g->threads[0], runner));
	assert_true(pthread_equal(g->threads[1], runner));
	assert_false(gate_pending(g));
}

/* @waiter, called from another thread while @g runs held, returns only after the run. */
static void gate_wait_waits_for_run(struct gate *g, void *(*waiter)(void *))
{
	pthread_t runner, other;

	atomic_store(&g->release, 0);
	assert_int_equal(pthread_create(&runner, NULL, schedule_in_thread, g), 0);
	while (!atomic_load(&g->inside))
		sched_yield();
	assert_int_equal(pthread_create(&other, NULL, waiter, g), 0);
	usleep(20000);
	assert_int_equal(atomic_load(&g->inside_at_wait), 0);
	atomic_store(&g->release, 1);
	assert_int_equal(pthread_join(other, NULL), 0);
	assert_int_equal(pthread_join(runner, NULL), 0);
	assert_int_equal(atomic_load(&g->inside_at_wait), 1); /* nothing inside when it returned */
	assert_int_equal(atomic_load(&g->runs), 3);
}

/*
 * A tasklet never runs twice at once: scheduled from another thread while
 * it runs, it runs again once the run returns, in the thread that ran it;
 * tasklet_disable() from another thread waits for a run to return.
 */
static void test_serialized_across_threads(void **state)
{
	struct current_fx *f = *state;
	struct gate g;

	memset(&g, 0, sizeof(g));
	tasklet_setup(&g.t, gate_cb);
	gate_runs_again_in_runner(&g);
	gate_wait_waits_for_run(&g, disable_in_thread);
	tasklet_enable(&g.t);
	tasklet_kill(&g.t);
	assert_int_equal(f->c.reports, 0);
}

/*
 * A BH item never runs twice at once either: queued from another thread
 * while it runs, it runs again once the run returns, in the thread that
 * ran it; cancel_work_sync() from another thread waits for a run to return.
 */
static void test_bh_work_serialized_across_threads(void **state)
{
	struct current_fx *f = *state;
	struct gate g;

	memset(&g, 0, sizeof(g));
	g.bh = true;
	INIT_WORK(&g.w, gate_work);
	gate_runs_again_in_runner(&g);
	gate_wait_waits_for_run(&g, cancel_in_thread);
	assert_int_equal(f->c.reports, 0);
}

struct bh_holder {
	struct tl *x;
	atomic_int scheduled;
};

static void *schedule_with_bh_off(void *arg)
{
	struct bh_holder *h = arg;

	local_bh_disable();
	tasklet_schedule(&h->x->t);
	atomic_store(&h->scheduled, 1);
	usleep(20000);
	local_bh_enable();
	return NULL;
}

/* tasklet_kill() waits for a tasklet scheduled on another thread to have run there. */
static void test_kill_waits_for_the_run_elsewhere(void **state)
{
	struct current_fx *f = *state;
	struct bh_holder h = { NULL, 0 };
	char order[8] = "";
	pthread_t th;
	struct tl a;

	tl_make(&a, 'a', order);
	h.x = &a;
	assert_int_equal(pthread_create(&th, NULL, schedule_with_bh_off, &h), 0);
	while (!atomic_load(&h.scheduled))
		sched_yield();
	tasklet_kill(&a.t);
	/* it ran, in the other thread, once that thread turned bottom halves on: before the kill returned */
	assert_string_equal(order, "a");
	assert_true(pthread_equal(a.thread, th));
	assert_false(scheduled(&a));
	assert_int_equal(pthread_join(th, NULL), 0);
	assert_int_equal(f->c.reports, 0);
}

static int exiting_bh_line;

static void *exit_with_bh_off(void *arg)
{
	struct tl *x = arg;

	exiting_bh_line = __LINE__ + 1;
	local_bh_disable();
	tasklet_schedule(&x->t);
	return NULL;
}

/*
 * A thread that ends with bottom halves off is reported, at its
 * local_bh_disable(); the tasklet it left scheduled runs as it ends, in
 * it, so that nothing waits for it for ever.
 */
static void test_thread_ending_with_bh_off(void **state)
{
	struct current_fx *f = *state;
	char order[8] = "";
	pthread_t th;
	struct tl a;

	tl_make(&a, 'a', order);
	assert_int_equal(pthread_create(&th, NULL, exit_with_bh_off, &a), 0);
	assert_int_equal(pthread_join(th, NULL), 0);
	assert_int_equal(f->c.reports, 1);
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_LOCK_MISUSE], 1);
	assert_int_equal(f->c.rec_last.line, exiting_bh_line);
	assert_non_null(strstr(f->c.rec_last.message, "exiting with bottom halves off"));
	assert_string_equal(order, "a");
	assert_true(pthread_equal(a.thread, th));
	assert_true(a.serving);
	assert_false(scheduled(&a));
	tasklet_kill(&a.t);
	assert_int_equal(f->c.reports, 1);
	f->c.reports = 0;
}

/* ------------------------------------------------------------ BH workqueues */

/* A BH work item: what it saw, as a struct tl records a tasklet's run. */
struct bhw {
	struct work_struct w;
	char name;
	char *order;
	int runs;
	bool serving, hardirq, irqs_off, task;
	pthread_t thread;
};

static void bhw_fn(struct work_struct *w)
{
	struct bhw *x = container_of(w, struct bhw, w);

	log_run(x->order, x->name);
	x->runs++;
	x->serving = in_serving_softirq();
	x->hardirq = in_hardirq();
	x->irqs_off = irqs_disabled();
	x->task = in_task();
	x->thread = pthread_self();
}

static void bhw_make(struct bhw *x, char name, char *order)
{
	memset(x, 0, sizeof(*x));
	x->name = name;
	x->order = order;
	INIT_WORK(&x->w, bhw_fn);
}

struct bh_irqdev {
	struct bhw bw;
	struct tl tl;
	char *order;
};

static irqreturn_t bh_queue_irq(int irq, void *data)
{
	struct bh_irqdev *d = data;

	(void)irq;
	tasklet_schedule(&d->tl.t);
	queue_work(system_bh_wq, &d->bw.w);
	log_run(d->order, 'h');
	return IRQ_WAKE_THREAD;
}

static irqreturn_t bh_thread_fn(int irq, void *data)
{
	struct bh_irqdev *d = data;

	(void)irq;
	log_run(d->order, 'f');
	return IRQ_HANDLED;
}

/*
 * A BH item queued from a hard handler runs at the end of the interrupt,
 * before the thread function, in the raising thread, in softirq context,
 * before a tasklet scheduled there earlier (the kernel's TASKLET_SOFTIRQ
 * runs system_bh_wq's items, then the tasklets).
 */
static void test_bh_work_from_hard_handler_at_irq_exit(void **state)
{
	struct current_fx *f = *state;
	char order[16] = "";
	struct bh_irqdev d;

	memset(&d, 0, sizeof(d));
	d.order = order;
	bhw_make(&d.bw, 'w', order);
	tl_make(&d.tl, 't', order);
	assert_int_equal(request_threaded_irq(9, bh_queue_irq, bh_thread_fn, IRQF_ONESHOT, "bh", &d), 0);
	assert_int_equal(dmamap_irq_raise(f->m, 9), 1);
	assert_string_equal(order, "hwtf");
	assert_true(d.bw.serving && !d.bw.hardirq && !d.bw.irqs_off && !d.bw.task);
	assert_true(pthread_equal(d.bw.thread, pthread_self()));
	assert_false(work_pending(&d.bw.w));
	free_irq(9, &d);
	tasklet_kill(&d.tl.t);
	assert_int_equal(f->c.reports, 0);
}

/*
 * Queued from task context holding a spinlock, a BH item runs at the
 * unlock, with the tasklets scheduled meanwhile, in the kernel's order:
 * system_bh_highpri_wq's items, high-priority tasklets, system_bh_wq's
 * (and WQ_BH queues') items, tasklets. Nothing held, it runs at once. A
 * queue without WQ_BH still runs its items in its worker, in task context.
 */
static void test_bh_work_at_unlock_in_kernel_order(void **state)
{
	struct current_fx *f = *state;
	struct workqueue_struct *bhq = alloc_workqueue("bhq", WQ_BH, 0), *plain = alloc_workqueue("plain", 0, 0);
	char order[16] = "";
	struct bhw hw, w, q, p;
	struct tl hi, lo;
	DEFINE_SPINLOCK(lk);

	assert_non_null(bhq);
	assert_non_null(plain);
	bhw_make(&hw, 'B', order);
	bhw_make(&w, 'w', order);
	bhw_make(&q, 'q', order);
	tl_make(&hi, 'H', order);
	tl_make(&lo, 't', order);

	spin_lock(&lk);
	tasklet_schedule(&lo.t);
	queue_work(system_bh_wq, &w.w);
	tasklet_hi_schedule(&hi.t);
	queue_work(bhq, &q.w);
	queue_work(system_bh_highpri_wq, &hw.w);
	assert_string_equal(order, "");
	assert_true(work_pending(&w.w));
	spin_unlock(&lk);
	assert_string_equal(order, "BHwqt");
	assert_true(w.serving && hw.serving && q.serving);
	assert_true(pthread_equal(q.thread, pthread_self()));

	order[0] = '\0';
	assert_true(queue_work(bhq, &q.w));
	assert_string_equal(order, "q");

	bhw_make(&p, 'p', order);
	order[0] = '\0';
	assert_true(queue_work(plain, &p.w));
	flush_work(&p.w);
	assert_string_equal(order, "p");
	assert_true(p.task && !p.serving);
	assert_false(pthread_equal(p.thread, pthread_self()));

	destroy_workqueue(plain);
	destroy_workqueue(bhq);
	tasklet_kill(&hi.t);
	tasklet_kill(&lo.t);
	assert_int_equal(f->c.reports, 0);
}

static int bh_sleep_line, bh_keep_line;
static spinlock_t bh_kept_lock;

static void bh_sleeper_fn(struct work_struct *w)
{
	(void)w;
	bh_sleep_line = __LINE__ + 1;
	msleep(1);
}

static void bh_keeper_fn(struct work_struct *w)
{
	(void)w;
	bh_keep_line = __LINE__ + 1;
	spin_lock(&bh_kept_lock);
}

/*
 * A BH item may not sleep: msleep() in it is reported as in a tasklet;
 * one that returns holding a lock is reported at its queue_work(); a
 * delayed item on a BH queue is refused, reported (not provided here),
 * and one with no delay runs as queue_work()'s. flush_work() with bottom
 * halves off is reported, and runs the thread's own pending item.
 */
static void test_bh_work_misuse_is_reported(void **state)
{
	struct current_fx *f = *state;
	struct work_struct sl, kp;
	struct delayed_work dw;
	char order[8] = "";
	struct bhw x;
	int line;

	INIT_WORK(&sl, bh_sleeper_fn);
	queue_work(system_bh_wq, &sl);
	assert_int_equal(f->c.reports, 1);
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_SLEEP_IN_ATOMIC], 1);
	assert_int_equal(f->c.rec_last.line, bh_sleep_line);
	assert_non_null(strstr(f->c.rec_last.message, "in a tasklet"));

	spin_lock_init(&bh_kept_lock);
	INIT_WORK(&kp, bh_keeper_fn);
	line = __LINE__ + 1;
	queue_work(system_bh_wq, &kp);
	assert_int_equal(f->c.reports, 2);
	assert_int_equal(f->c.by_kind[DMAMAP_REPORT_LOCK_MISUSE], 1);
	assert_int_equal(f->c.rec_last.line, line);
	assert_non_null(strstr(f->c.rec_last.message, "BH work item"));
	assert_true(spin_is_locked(&bh_kept_lock));
	assert_false(in_atomic());
	spin_unlock(&bh_kept_lock);

	bhw_make(&x, 'd', order);
	INIT_DELAYED_WORK(&dw, bhw_fn);
	line = __LINE__ + 1;
	assert_false(queue_delayed_work(system_bh_wq, &dw, 1));
	assert_int_equal(f->c.reports, 3);
	assert_int_equal(f->c.rec_last.kind, DMAMAP_REPORT_API_MISUSE);
	assert_int_equal(f->c.rec_last.line, line);
	assert_non_null(strstr(f->c.rec_last.message, "not provided"));
	assert_false(delayed_work_pending(&dw));
	assert_true(queue_work(system_bh_wq, &x.w));
	assert_string_equal(order, "d");

	/* a flush with bottom halves off is reported; the item, this thread's, runs then rather than never */
	local_bh_disable();
	queue_work(system_bh_wq, &x.w);
	line = __LINE__ + 1;
	assert_true(flush_work(&x.w));
	assert_int_equal(f->c.reports, 4);
	assert_int_equal(f->c.rec_last.kind, DMAMAP_REPORT_SLEEP_IN_ATOMIC);
	assert_int_equal(f->c.rec_last.line, line);
	assert_string_equal(order, "dd");
	assert_true(x.serving);
	local_bh_enable();
	assert_string_equal(order, "dd");
	f->c.reports = 0;
}

struct bh_other {
	struct bhw *x;
	struct workqueue_struct *wq;
	atomic_int queued, release;
};

/* Queue the item with bottom halves off; turn them on when the test says, 20 ms later. */
static void *queue_with_bh_off(void *arg)
{
	struct bh_other *o = arg;

	local_bh_disable();
	queue_work(o->wq, &o->x->w);
	atomic_store(&o->queued, 1);
	while (!atomic_load(&o->release))
		usleep(1000);
	usleep(20000);
	local_bh_enable();
	return NULL;
}

/*
 * From task context, flush_work() and flush_workqueue() of a BH item
 * queued on another thread wait for it to run there; cancel_work_sync()
 * takes it off before it runs.
 */
static void test_bh_work_flush_and_cancel(void **state)
{
	struct current_fx *f = *state;
	struct bh_other o;
	char order[8] = "";
	pthread_t th;
	struct bhw x;

	bhw_make(&x, 'x', order);
	memset(&o, 0, sizeof(o));
	o.x = &x;
	o.wq = alloc_workqueue("bhflush", WQ_BH | WQ_HIGHPRI, 0);
	assert_non_null(o.wq);
	atomic_store(&o.release, 1);
	assert_int_equal(pthread_create(&th, NULL, queue_with_bh_off, &o), 0);
	while (!atomic_load(&o.queued))
		sched_yield();
	assert_true(flush_work(&x.w));
	assert_string_equal(order, "x");
	assert_true(pthread_equal(x.thread, th));
	assert_int_equal(pthread_join(th, NULL), 0);

	/* flush_workqueue() too */
	memset(&o.queued, 0, sizeof(o.queued));
	assert_int_equal(pthread_create(&th, NULL, queue_with_bh_off, &o), 0);
	while (!atomic_load(&o.queued))
		sched_yield();
	flush_workqueue(o.wq);
	assert_string_equal(order, "xx");
	assert_int_equal(pthread_join(th, NULL), 0);

	/* cancelled while the other thread has bottom halves off: it never runs */
	atomic_store(&o.queued, 0);
	atomic_store(&o.release, 0);
	assert_int_equal(pthread_create(&th, NULL, queue_with_bh_off, &o), 0);
	while (!atomic_load(&o.queued))
		sched_yield();
	assert_true(cancel_work_sync(&x.w));
	atomic_store(&o.release, 1);
	assert_int_equal(pthread_join(th, NULL), 0);
	assert_string_equal(order, "xx");
	destroy_workqueue(o.wq);
	assert_int_equal(f->c.reports, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_runs_at_once_in_softirq_context, current_fx_setup,
						current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_waits_for_the_thread_softirq_point, current_fx_setup,
						current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_runs_once_hi_first, current_fx_setup, current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_scheduled_while_running_runs_after, current_fx_setup,
						current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_disabled_stays_scheduled_until_enabled, current_fx_setup,
						current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_from_hard_handler_at_irq_exit, current_fx_setup,
						current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_tasklet_raising_a_line, current_fx_setup, current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_raiser_lock_taken_is_reported, current_fx_setup,
						current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_sleeping_in_tasklet_is_reported, current_fx_setup,
						current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_returning_with_lock_is_reported, current_fx_setup,
						current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_misuse_is_reported, current_fx_setup, current_fx_teardown),
		cmocka_unit_test(test_left_scheduled_at_machine_destroy),
		cmocka_unit_test_setup_teardown(test_free_of_scheduled_tasklet_reported, current_fx_setup,
						current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_serialized_across_threads, current_fx_setup, current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_kill_waits_for_the_run_elsewhere, current_fx_setup,
						current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_thread_ending_with_bh_off, current_fx_setup, current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_bh_work_from_hard_handler_at_irq_exit, current_fx_setup,
						current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_bh_work_at_unlock_in_kernel_order, current_fx_setup,
						current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_bh_work_misuse_is_reported, current_fx_setup, current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_bh_work_flush_and_cancel, current_fx_setup, current_fx_teardown),
		cmocka_unit_test_setup_teardown(test_bh_work_serialized_across_threads, current_fx_setup,
						current_fx_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
