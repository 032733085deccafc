/* SPDX-License-Identifier: MIT */
/*
 * What Linux 6.x drivers lock, time and wait with, through the kernel's
 * include names: spinlocks, mutexes and completions shared by threads, the
 * interrupt state, the lock misuse the kernel's lock debugging reports,
 * the calls that may sleep made holding a spinlock (CONFIG_DEBUG_ATOMIC_SLEEP);
 * jiffies and their conversions and comparisons, ktime, the delays and
 * sleeps of <linux/delay.h>, the polling loops of <linux/iopoll.h>.
 * Durations are asserted from below only: a busy host makes every wait
 * longer, never shorter.
 */
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/device.h>
#include <linux/dma-mapping.h>
#include <linux/dmapool.h>
#include <linux/gfp.h>
#include <linux/iopoll.h>
#include <linux/irqflags.h>
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/lockdep.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/vmalloc.h>
#include <linux/wait.h>

#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"

/* current_fx_setup()'s, when nothing may be left reported but what the test asserted and cleared. */
static int teardown(void **state)
{
	struct current_fx *f = *state;
	int ret = 0;

	if (f->c.reports) {
		fprintf(stderr, "teardown: %lu reports (last: %s)\n", f->c.reports, f->c.last);
		ret = -1;
	}
	capture_stop(f->m);
	test_machine_destroy(f->m);
	free(f);
	return ret;
}

/* The one report the test expects: its kind, the line it names (0: none), words of its message; then forgotten. */
static void assert_one_report(struct current_fx *f, enum dmamap_report_kind kind, int line, const char *words)
{
	if (f->c.reports != 1)
		fail_msg("%lu reports, expected one (last: %s)", f->c.reports, f->c.last);
	assert_int_equal(f->c.rec[0].kind, kind);
	assert_int_equal(f->c.rec[0].category, DMAMAP_REPORT_API_MISUSE);
	assert_string_equal(f->c.rec[0].file, line ? __FILE__ : ""); /* 0: a call that carries no line */
	assert_int_equal(f->c.rec[0].line, line);
	if (words && !strstr(f->c.rec[0].message, words))
		fail_msg("the report says \"%s\", not \"%s\"", f->c.rec[0].message, words);
	capture_start(&f->c, f->m);
}

/* Microseconds since @t0. */
static s64 us_since(ktime_t t0)
{
	return ktime_us_delta(ktime_get(), t0);
}

/* ---------------------------------------------------- mutual exclusion */

#define THREADS 4

/* What the threads of an exclusion test share: the lock under test and what it guards. */
struct shared {
	spinlock_t spin;
	struct mutex mutex;
	unsigned long counter;  /* read, then written back one more, with a yield between */
	int inside;             /* threads inside the critical section now */
	int overlaps;           /* times a thread found another inside */
	int rounds;
	int use_mutex;
	int irqs_seen_off;      /* inside spin_lock_irqsave(), the thread's interrupts were off */
};

static void critical_section(struct shared *sh, int i)
{
	unsigned long v;

	if (__atomic_add_fetch(&sh->inside, 1, __ATOMIC_RELAXED) != 1)
		__atomic_add_fetch(&sh->overlaps, 1, __ATOMIC_RELAXED);
	v = sh->counter;
	if (i % 8 == 0)
		sched_yield();
	sh->counter = v + 1;
	__atomic_sub_fetch(&sh->inside, 1, __ATOMIC_RELAXED);
}

static void *exclusion_thread(void *arg)
{
	struct shared *sh = arg;
	unsigned long flags;

	for (int i = 0; i < sh->rounds; i++) {
		if (sh->use_mutex) {
			mutex_lock(&sh->mutex);
			critical_section(sh, i);
			mutex_unlock(&sh->mutex);
		} else if (i % 2) {
			spin_lock_irqsave(&sh->spin, flags);
			if (irqs_disabled() && in_atomic())
				__atomic_add_fetch(&sh->irqs_seen_off, 1, __ATOMIC_RELAXED);
			critical_section(sh, i);
			spin_unlock_irqrestore(&sh->spin, flags);
		} else {
			spin_lock(&sh->spin);
			critical_section(sh, i);
			spin_unlock(&sh->spin);
		}
	}
	return NULL;
}

static void run_exclusion(struct shared *sh)
{
	pthread_t t[THREADS];

	sh->rounds = under_valgrind() ? 200 : 2000;
	for (int i = 0; i < THREADS; i++)
		assert_int_equal(pthread_create(&t[i], NULL, exclusion_thread, sh), 0);
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	assert_int_equal(sh->overlaps, 0);
	assert_int_equal(sh->counter, (unsigned long)THREADS * (unsigned long)sh->rounds);
}

static void test_spinlock_excludes_across_threads(void **state)
{
	struct current_fx *f = *state;
	struct shared *sh = calloc(1, sizeof(*sh));

	assert_non_null(sh);
	spin_lock_init(&sh->spin);
	run_exclusion(sh);
	assert_int_equal(sh->irqs_seen_off, THREADS * (sh->rounds / 2));
	assert_false(spin_is_locked(&sh->spin));
	assert_false(irqs_disabled());
	assert_int_equal(f->c.reports, 0);
	free(sh);
}

static void test_mutex_excludes_across_threads(void **state)
{
	struct current_fx *f = *state;
	struct shared *sh = calloc(1, sizeof(*sh));

	assert_non_null(sh);
	mutex_init(&sh->mutex);
	sh->use_mutex = 1;
	run_exclusion(sh);
	assert_false(mutex_is_locked(&sh->mutex));
	mutex_destroy(&sh->mutex);
	assert_int_equal(f->c.reports, 0);
	free(sh);
}

static DEFINE_SPINLOCK(static_spin);
static DEFINE_MUTEX(static_mutex);
static DEFINE_RAW_SPINLOCK(static_raw);

/* A thread that takes a lock, says so, and keeps it until told to let go. */
struct holder {
	spinlock_t *spin;
	struct mutex *mutex;
	struct completion taken, release, done;
};

static void *holder_thread(void *arg)
{
	struct holder *h = arg;

	if (h->spin)
		spin_lock(h->spin);
	else
		mutex_lock(h->mutex);
	complete(&h->taken);
	/* a spinlock's holder may not sleep: it spins until told */
	while (!try_wait_for_completion(&h->release))
		udelay(20);
	if (h->spin)
		spin_unlock(h->spin);
	else
		mutex_unlock(h->mutex);
	complete(&h->done);
	return NULL;
}

static void holder_start(struct holder *h, pthread_t *t, spinlock_t *spin, struct mutex *mutex)
{
	memset(h, 0, sizeof(*h));
	h->spin = spin;
	h->mutex = mutex;
	init_completion(&h->taken);
	init_completion(&h->release);
	init_completion(&h->done);
	assert_int_equal(pthread_create(t, NULL, holder_thread, h), 0);
	wait_for_completion(&h->taken);
}

static void holder_stop(struct holder *h, pthread_t t)
{
	complete(&h->release);
	pthread_join(t, NULL);
}

static void test_trylock_and_is_locked(void **state)
{
	struct current_fx *f = *state;
	struct holder h;
	pthread_t t;
	unsigned long flags = 0;

	/* free: taken */
	assert_true(spin_trylock(&static_spin));
	assert_true(spin_is_locked(&static_spin));
	assert_true(in_atomic());
	/* one's own lock: a trylock fails, as on a kernel, and is not misuse */
	assert_false(spin_trylock(&static_spin));
	spin_unlock(&static_spin);
	assert_false(in_atomic());
	assert_true(mutex_trylock(&static_mutex));
	assert_true(mutex_is_locked(&static_mutex));
	assert_false(in_atomic()); /* a mutex holder may sleep */
	mutex_unlock(&static_mutex);
	assert_true(raw_spin_trylock(&static_raw));
	assert_true(raw_spin_is_locked(&static_raw));
	raw_spin_unlock(&static_raw);

	/* held by another thread: refused, the interrupt state left as it was */
	holder_start(&h, &t, &static_spin, NULL);
	assert_true(spin_is_locked(&static_spin));
	assert_false(spin_trylock(&static_spin));
	assert_false(spin_trylock_irqsave(&static_spin, flags));
	assert_false(irqs_disabled());
	holder_stop(&h, t);
	assert_false(spin_is_locked(&static_spin));
	assert_true(spin_trylock_irqsave(&static_spin, flags));
	assert_true(irqs_disabled());
	spin_unlock_irqrestore(&static_spin, flags);
	assert_false(irqs_disabled());

	holder_start(&h, &t, NULL, &static_mutex);
	assert_false(mutex_trylock(&static_mutex));
	holder_stop(&h, t);
	assert_true(mutex_trylock(&static_mutex));
	mutex_unlock(&static_mutex);
	assert_int_equal(f->c.reports, 0);
}

static void test_interrupt_state_nests(void **state)
{
	struct current_fx *f = *state;
	spinlock_t a, b;
	unsigned long fa, fb, fl;

	spin_lock_init(&a);
	spin_lock_init(&b);
	assert_false(irqs_disabled());
	spin_lock_irqsave(&a, fa);
	assert_true(irqs_disabled());
	assert_false(irqs_disabled_flags(fa));
	spin_lock_irqsave(&b, fb);
	assert_true(irqs_disabled_flags(fb));
	spin_unlock_irqrestore(&b, fb);
	assert_true(irqs_disabled()); /* still inside a's section */
	assert_true(in_atomic());
	spin_unlock_irqrestore(&a, fa);
	assert_false(irqs_disabled());
	assert_false(in_atomic());

	spin_lock_irq(&a);
	assert_true(irqs_disabled());
	spin_unlock_irq(&a);
	assert_false(irqs_disabled());
	spin_lock_bh(&a);
	assert_true(in_atomic());
	assert_false(irqs_disabled());
	spin_unlock_bh(&a);

	local_irq_save(fl);
	assert_true(irqs_disabled());
	assert_false(in_atomic());
	lockdep_assert_irqs_disabled();
	local_irq_restore(fl);
	assert_false(irqs_disabled());
	lockdep_assert_irqs_enabled();
	local_irq_disable();
	assert_true(irqs_disabled());
	local_irq_enable();
	assert_false(irqs_disabled());
	assert_int_equal(f->c.reports, 0);
}

/* ---------------------------------------------------------- completions */

struct waiter {
	struct completion *c;
	unsigned long timeout;   /* 0: wait_for_completion() */
	unsigned long ret;
	ktime_t returned;
};

static void *waiter_thread(void *arg)
{
	struct waiter *w = arg;

	if (w->timeout)
		w->ret = wait_for_completion_timeout(w->c, w->timeout);
	else
		wait_for_completion(w->c);
	w->returned = ktime_get();
	return NULL;
}

static void test_completion_wakes_its_waiter(void **state)
{
	struct current_fx *f = *state;
	DECLARE_COMPLETION(done);
	struct waiter w = { .c = &done }, wt = { .c = &done, .timeout = 10 * HZ };
	pthread_t t, tt;
	ktime_t completed;

	assert_int_equal(pthread_create(&t, NULL, waiter_thread, &w), 0);
	assert_int_equal(pthread_create(&tt, NULL, waiter_thread, &wt), 0);
	msleep(15);
	assert_false(completion_done(&done));
	completed = ktime_get();
	complete(&done);
	complete(&done);
	pthread_join(t, NULL);
	pthread_join(tt, NULL);
	/* each returned after the complete() that let it through, the timed one with time to spare */
	assert_true(ktime_compare(w.returned, completed) >= 0);
	assert_true(ktime_compare(wt.returned, completed) >= 0);
	assert_true(wt.ret >= 1 && wt.ret <= 10 * HZ);
	assert_false(completion_done(&done)); /* both completions consumed */
	assert_int_equal(f->c.reports, 0);
}

static void test_completion_counts_and_times_out(void **state)
{
	struct current_fx *f = *state;
	struct completion c;
	ktime_t t0;

	init_completion(&c);
	/* a complete() before the wait is not lost; each wait consumes one */
	complete(&c);
	complete(&c);
	assert_true(completion_done(&c));
	assert_true(wait_for_completion_timeout(&c, 1) >= 1);
	assert_true(try_wait_for_completion(&c));
	assert_false(try_wait_for_completion(&c));
	t0 = ktime_get();
	assert_int_equal(wait_for_completion_timeout(&c, msecs_to_jiffies(30)), 0);
	assert_true(ktime_us_delta(ktime_get(), t0) >= 30000);
	assert_int_equal(wait_for_completion_timeout(&c, 0), 0);
	assert_int_equal(wait_for_completion_interruptible_timeout(&c, 1), 0);

	/* complete_all(): every wait goes through until reinit_completion() */
	complete_all(&c);
	for (int i = 0; i < 5; i++)
		assert_true(wait_for_completion_timeout(&c, HZ) >= 1);
	wait_for_completion(&c);
	assert_int_equal(wait_for_completion_interruptible(&c), 0);
	assert_true(try_wait_for_completion(&c));
	reinit_completion(&c);
	assert_false(completion_done(&c));
	assert_int_equal(wait_for_completion_timeout(&c, 1), 0);
	assert_int_equal(f->c.reports, 0);
}

/* ---------------------------------------------------------- wait queues */

struct event_waiter {
	struct wait_queue_head *wq;
	atomic_int *flag;
	atomic_int evals;        /* times the condition was tested */
	unsigned long timeout;   /* 0: wait_event() */
	long ret;
	atomic_int returned;
};

/* The condition of an event_waiter: counted each time it is tested. */
static bool flag_up(struct event_waiter *w)
{
	atomic_fetch_add(&w->evals, 1);
	return atomic_load(w->flag) != 0;
}

static void *event_waiter_thread(void *arg)
{
	struct event_waiter *w = arg;

	if (w->timeout)
		w->ret = wait_event_timeout(*w->wq, flag_up(w), w->timeout);
	else
		wait_event(*w->wq, flag_up(w));
	atomic_store(&w->returned, 1);
	return NULL;
}

/* Wait (at most a few seconds) until @w tested its condition @n times. */
static void await_evals(struct event_waiter *w, int n)
{
	for (int i = 0; i < 5000 && atomic_load(&w->evals) < n; i++)
		usleep(1000);
	assert_true(atomic_load(&w->evals) >= n);
}

static void test_wait_event_sleeps_until_woken_with_its_condition(void **state)
{
	struct current_fx *f = *state;
	DECLARE_WAIT_QUEUE_HEAD(wq);
	atomic_int flag = 0;
	struct event_waiter w = { .wq = &wq, .flag = &flag }, wt = { .wq = &wq, .flag = &flag, .timeout = 10 * HZ };
	pthread_t t, tt;

	assert_false(waitqueue_active(&wq));
	assert_int_equal(pthread_create(&t, NULL, event_waiter_thread, &w), 0);
	assert_int_equal(pthread_create(&tt, NULL, event_waiter_thread, &wt), 0);
	await_evals(&w, 1);
	await_evals(&wt, 1);
	/* a wake-up with the condition still false: each tests it again, and sleeps on */
	wake_up(&wq);
	await_evals(&w, 2);
	await_evals(&wt, 2);
	msleep(10);
	assert_int_equal(atomic_load(&w.returned), 0);
	assert_int_equal(atomic_load(&wt.returned), 0);
	assert_true(waitqueue_active(&wq));
	/* the condition true but nobody woken: they sleep on */
	atomic_store(&flag, 1);
	msleep(10);
	assert_int_equal(atomic_load(&w.returned), 0);
	assert_int_equal(atomic_load(&w.evals), 2);
	wake_up_all(&wq);
	pthread_join(t, NULL);
	pthread_join(tt, NULL);
	assert_int_equal(atomic_load(&w.evals), 3);
	assert_true(wt.ret >= 1 && wt.ret <= 10 * HZ);
	assert_false(waitqueue_active(&wq));
	assert_int_equal(f->c.reports, 0);
}

static void test_wait_event_timeout_values(void **state)
{
	struct current_fx *f = *state;
	struct wait_queue_head wq;
	int ready = 1, never = 0;
	ktime_t t0;
	long ret;

	init_waitqueue_head(&wq);
	/* true at once: no sleep, the whole timeout left */
	ret = wait_event_timeout(wq, ready, 5 * HZ);
	assert_true(ret >= 5 * HZ - 1 && ret <= 5 * HZ);
	assert_int_equal(wait_event_timeout(wq, ready, 0), 1);
	assert_int_equal(wait_event_interruptible_timeout(wq, ready, 1), 1);
	assert_int_equal(wait_event_interruptible(wq, ready), 0);
	wait_event(wq, ready);
	/* false: the time passes, then 0 */
	t0 = ktime_get();
	assert_int_equal(wait_event_timeout(wq, never, msecs_to_jiffies(30)), 0);
	assert_true(ktime_us_delta(ktime_get(), t0) >= 30000);
	assert_int_equal(wait_event_timeout(wq, never, 0), 0);
	assert_int_equal(wait_event_idle_timeout(wq, never, 1), 0);
	/* true when tested again as the time ran out: 1, as the kernel's */
	assert_int_equal(wait_event_timeout(wq, ++never > 1, 0), 1);
	assert_int_equal(never, 2);
	assert_int_equal(f->c.reports, 0);
}

struct ping_pong {
	struct wait_queue_head wq;
	atomic_int turn; /* whose turn: 0 or 1 */
	int rounds, done;
	bool timed_out;
};

/* Whether it is @who's turn: read, then a pause, so a hand-over often lands between the test and the sleep. */
static bool turn_of(struct ping_pong *p, int who)
{
	bool mine = atomic_load(&p->turn) == who;

	usleep(20);
	return mine;
}

static void *pong_thread(void *arg)
{
	struct ping_pong *p = arg;

	for (int i = 0; i < p->rounds; i++) {
		if (!wait_event_timeout(p->wq, turn_of(p, 1), 5 * HZ)) {
			p->timed_out = true;
			break;
		}
		atomic_store(&p->turn, 0);
		wake_up(&p->wq);
	}
	return NULL;
}

/* Hand-overs, each a test then a sleep: a wake-up lost in between leaves one side asleep until its timeout. */
static void test_wait_event_loses_no_wake_up(void **state)
{
	struct current_fx *f = *state;
	struct ping_pong p = { .rounds = under_valgrind() ? 100 : 2000 };
	pthread_t t;

	init_waitqueue_head(&p.wq);
	assert_int_equal(pthread_create(&t, NULL, pong_thread, &p), 0);
	for (p.done = 0; p.done < p.rounds; p.done++) {
		atomic_store(&p.turn, 1);
		wake_up(&p.wq);
		if (!wait_event_timeout(p.wq, turn_of(&p, 0), 5 * HZ))
			break;
	}
	pthread_join(t, NULL);
	assert_false(p.timed_out);
	assert_int_equal(p.done, p.rounds);
	assert_int_equal(f->c.reports, 0);
}

static void test_wait_event_in_atomic_context_is_reported(void **state)
{
	struct current_fx *f = *state;
	DECLARE_WAIT_QUEUE_HEAD(wq);
	DEFINE_SPINLOCK(lock);
	int line;

	spin_lock(&lock);
	line = __LINE__ + 1;
	assert_int_equal(wait_event_timeout(wq, 1, 1), 1);
	spin_unlock(&lock);
	assert_one_report(f, DMAMAP_REPORT_SLEEP_IN_ATOMIC, line, "wait_event_timeout");
	/* wake_up() never sleeps: fine under the lock */
	spin_lock(&lock);
	wake_up(&wq);
	spin_unlock(&lock);
	assert_int_equal(f->c.reports, 0);
}

/* ------------------------------------------------------------ misuse */

static void test_unlock_of_a_lock_not_held_is_reported(void **state)
{
	struct current_fx *f = *state;
	spinlock_t l;
	struct mutex m;
	unsigned long flags = 0;
	int line;

	spin_lock_init(&l);
	mutex_init(&m);
	spin_unlock(&l); line = __LINE__;
	assert_one_report(f, DMAMAP_REPORT_LOCK_MISUSE, line, "not held");
	/* nothing changed: the interrupt state stays on */
	spin_unlock_irqrestore(&l, flags | DMAMAP_IRQFLAGS_OFF); line = __LINE__;
	assert_one_report(f, DMAMAP_REPORT_LOCK_MISUSE, line, "spin_unlock_irqrestore");
	assert_false(irqs_disabled());
	assert_false(in_atomic());
	mutex_unlock(&m); line = __LINE__;
	assert_one_report(f, DMAMAP_REPORT_LOCK_MISUSE, line, "the mutex is not held");
	/* once taken, a second unlock is the misuse */
	spin_lock(&l);
	spin_unlock(&l);
	assert_int_equal(f->c.reports, 0);
	spin_unlock(&l); line = __LINE__;
	assert_one_report(f, DMAMAP_REPORT_LOCK_MISUSE, line, "'&l'");
	assert_false(in_atomic());
}

struct foreign {
	spinlock_t *spin;
	struct mutex *mutex;
	int line;
};

static void *foreign_unlock_thread(void *arg)
{
	struct foreign *u = arg;

	if (u->spin) {
		spin_unlock(u->spin); u->line = __LINE__;
	} else {
		mutex_unlock(u->mutex); u->line = __LINE__;
	}
	return NULL;
}

static void test_unlock_by_another_thread_is_reported(void **state)
{
	struct current_fx *f = *state;
	struct foreign u = { 0 };
	spinlock_t l;
	struct mutex m;
	pthread_t t;
	char at[64];
	int taken;

	spin_lock_init(&l);
	mutex_init(&m);

	/* a mutex: reported, and unlocked as the kernel does */
	mutex_lock(&m); taken = __LINE__;
	u.mutex = &m;
	assert_int_equal(pthread_create(&t, NULL, foreign_unlock_thread, &u), 0);
	pthread_join(t, NULL);
	assert_false(mutex_is_locked(&m));
	assert_true(strstr(f->c.rec[0].message, "another thread") != NULL);
	snprintf(at, sizeof(at), "taken at %s:%d", __FILE__, taken);
	assert_true(strstr(f->c.rec[0].message, at) != NULL);
	assert_one_report(f, DMAMAP_REPORT_LOCK_MISUSE, u.line, "unlocked all the same");
	assert_true(mutex_trylock(&m));
	mutex_unlock(&m);

	/* a spinlock: refused, it stays its holder's */
	spin_lock(&l);
	u = (struct foreign){ .spin = &l };
	assert_int_equal(pthread_create(&t, NULL, foreign_unlock_thread, &u), 0);
	pthread_join(t, NULL);
	assert_one_report(f, DMAMAP_REPORT_LOCK_MISUSE, u.line, "refused");
	assert_true(spin_is_locked(&l));
	assert_true(in_atomic());
	lockdep_assert_held(&l);
	spin_unlock(&l);
	assert_false(in_atomic());
	assert_int_equal(f->c.reports, 0);
}

static void test_recursion_is_reported_not_a_deadlock(void **state)
{
	struct current_fx *f = *state;
	spinlock_t l;
	struct mutex m;
	int line;

	spin_lock_init(&l);
	mutex_init(&m);
	spin_lock(&l);
	spin_lock(&l); line = __LINE__;
	assert_one_report(f, DMAMAP_REPORT_LOCK_MISUSE, line, "already holds it");
	spin_unlock(&l);
	assert_false(spin_is_locked(&l));
	assert_false(in_atomic());
	mutex_lock(&m);
	mutex_lock(&m); line = __LINE__;
	assert_one_report(f, DMAMAP_REPORT_LOCK_MISUSE, line, "already holds it");
	mutex_unlock(&m);
	assert_false(mutex_is_locked(&m));
}

static void test_uninitialised_and_destroyed_locks_are_reported(void **state)
{
	struct current_fx *f = *state;
	struct {
		spinlock_t l;
		struct mutex m;
	} *z = calloc(1, sizeof(*z));
	int line;

	assert_non_null(z);
	/* zeroed memory, never initialised: said once, then the lock works */
	spin_lock(&z->l); line = __LINE__;
	assert_one_report(f, DMAMAP_REPORT_LOCK_MISUSE, line, "spin_lock_init()");
	assert_true(spin_is_locked(&z->l));
	spin_unlock(&z->l);
	spin_lock(&z->l);
	spin_unlock(&z->l);
	assert_int_equal(f->c.reports, 0);
	mutex_lock(&z->m); line = __LINE__;
	assert_one_report(f, DMAMAP_REPORT_LOCK_MISUSE, line, "mutex_init()");
	mutex_destroy(&z->m); line = __LINE__;
	assert_one_report(f, DMAMAP_REPORT_LOCK_MISUSE, line, "the mutex is held");
	mutex_unlock(&z->m);
	mutex_destroy(&z->m);
	assert_int_equal(f->c.reports, 0);
	mutex_lock(&z->m); line = __LINE__;
	assert_one_report(f, DMAMAP_REPORT_LOCK_MISUSE, line, "mutex_destroy()");
	mutex_unlock(&z->m);
	mutex_init(&z->m);
	mutex_lock(&z->m);
	mutex_unlock(&z->m);
	assert_int_equal(f->c.reports, 0);
	free(z);
}

static void test_false_lock_assertions_are_reported(void **state)
{
	struct current_fx *f = *state;
	struct holder h;
	pthread_t t;
	spinlock_t l;
	struct mutex m;
	unsigned long flags;
	int line;

	spin_lock_init(&l);
	mutex_init(&m);
	lockdep_assert_held(&l); line = __LINE__;
	assert_one_report(f, DMAMAP_REPORT_LOCK_MISUSE, line, "nobody holds it");
	assert_spin_locked(&l); line = __LINE__;
	assert_one_report(f, DMAMAP_REPORT_LOCK_MISUSE, line, "assert_spin_locked");
	lockdep_assert_held(&m); line = __LINE__;
	assert_one_report(f, DMAMAP_REPORT_LOCK_MISUSE, line, "lockdep_assert_held");
	lockdep_assert_not_held(&m);
	mutex_lock(&m);
	lockdep_assert_held(&m);
	lockdep_assert_not_held(&m); line = __LINE__;
	assert_one_report(f, DMAMAP_REPORT_LOCK_MISUSE, line, "this thread holds it");
	mutex_unlock(&m);
	lockdep_assert_irqs_disabled(); line = __LINE__;
	assert_one_report(f, DMAMAP_REPORT_LOCK_MISUSE, line, "interrupts are on");
	spin_lock_irqsave(&l, flags);
	lockdep_assert_irqs_enabled(); line = __LINE__;
	assert_one_report(f, DMAMAP_REPORT_LOCK_MISUSE, line, "interrupts are off");
	spin_unlock_irqrestore(&l, flags);

	/* held by another thread: locked, but not by this one */
	holder_start(&h, &t, &l, NULL);
	assert_spin_locked(&l);
	lockdep_assert_not_held(&l);
	assert_int_equal(f->c.reports, 0);
	lockdep_assert_held(&l); line = __LINE__;
	assert_one_report(f, DMAMAP_REPORT_LOCK_MISUSE, line, "another thread holds it");
	holder_stop(&h, t);
}

/* ------------------------------------------------- sleeping in atomic */

/* The report of a sleep in atomic context: its line, the call it names, where the lock was taken. */
static void assert_sleep_report(struct current_fx *f, int line, const char *call, const char *taken)
{
	if (f->c.reports != 1)
		fail_msg("%lu reports, expected one (last: %s)", f->c.reports, f->c.last);
	if (!strstr(f->c.rec[0].message, "sleeping function called from invalid context") ||
	    !strstr(f->c.rec[0].message, call) || (taken && !strstr(f->c.rec[0].message, taken)))
		fail_msg("the report says \"%s\", not %s and %s", f->c.rec[0].message, call, taken ? taken : "");
	assert_one_report(f, DMAMAP_REPORT_SLEEP_IN_ATOMIC, line, NULL);
}

static void test_sleeping_under_a_spinlock_is_reported(void **state)
{
	struct current_fx *f = *state;
	spinlock_t l;
	struct mutex m;
	struct completion c;
	u32 reg = 1, val;
	char taken[300];
	int line, at;

	spin_lock_init(&l);
	mutex_init(&m);
	init_completion(&c);
	spin_lock(&l); at = __LINE__;
	snprintf(taken, sizeof(taken), "taken by spin_lock() at %s:%d", __FILE__, at);
	msleep(1); line = __LINE__;
	assert_sleep_report(f, line, "msleep()", taken);
	usleep_range(100, 200); line = __LINE__;
	assert_sleep_report(f, line, "usleep_range()", taken);
	fsleep(50); line = __LINE__;
	assert_sleep_report(f, line, "fsleep()", taken);
	mutex_lock(&m); line = __LINE__;
	assert_sleep_report(f, line, "mutex_lock()", taken);
	assert_true(mutex_is_locked(&m)); /* then taken all the same */
	mutex_unlock(&m);
	complete(&c);
	assert_int_not_equal(wait_for_completion_timeout(&c, HZ), 0); line = __LINE__;
	assert_sleep_report(f, line, "wait_for_completion_timeout()", taken);
	might_sleep(); line = __LINE__;
	assert_sleep_report(f, line, "might_sleep()", taken);
	/* a sleeping poll: once, whatever its reads */
	assert_int_equal(readl_poll_timeout(&reg, val, val == 2, 100, 1000), -ETIMEDOUT); line = __LINE__;
	assert_sleep_report(f, line, "read_poll_timeout()", taken);

	/* what spins is what a spinlock's holder may do */
	udelay(5);
	mdelay(1);
	ndelay(10);
	fsleep(5);
	assert_int_equal(readl_poll_timeout_atomic(&reg, val, val == 1, 1, 100), 0);
	assert_int_equal(readl_poll_timeout(&reg, val, val == 1, 0, 100), 0); /* no sleep between reads */
	assert_true(mutex_trylock(&m));
	mutex_unlock(&m);
	complete(&c);
	assert_true(try_wait_for_completion(&c));
	assert_int_equal(f->c.reports, 0);

	/* nested: the report names the innermost lock */
	{
		spinlock_t inner;
		unsigned long flags;

		spin_lock_init(&inner);
		spin_lock_irqsave(&inner, flags); at = __LINE__;
		snprintf(taken, sizeof(taken),
			 "2 spinlocks held, the last taken by spin_lock_irqsave() at %s:%d; interrupts off since "
			 "spin_lock_irqsave() at %s:%d", __FILE__, at, __FILE__, at);
		msleep(1); line = __LINE__;
		assert_sleep_report(f, line, "msleep()", taken);
		spin_unlock_irqrestore(&inner, flags);
	}
	spin_unlock(&l);
	/* let go: the same calls are silent */
	msleep(1);
	mutex_lock(&m);
	might_sleep();
	mutex_unlock(&m);
	assert_int_equal(f->c.reports, 0);
}

static void test_sleeping_with_interrupts_off_is_reported(void **state)
{
	struct current_fx *f = *state;
	unsigned long flags;
	char off[160];
	int line, at;

	local_irq_save(flags); at = __LINE__;
	snprintf(off, sizeof(off), "interrupts off since local_irq_save() at %s:%d", __FILE__, at);
	msleep(1); line = __LINE__;
	assert_sleep_report(f, line, "msleep()", off);
	local_irq_restore(flags);
	local_irq_disable();
	might_sleep_if(1); line = __LINE__;
	assert_sleep_report(f, line, "might_sleep()", "interrupts off");
	local_irq_enable();
	might_sleep_if(1);
	msleep(1);
	assert_int_equal(f->c.reports, 0);
}

/* The atomic context is each thread's: another thread holding a spinlock does not make this one atomic. */
static void test_atomic_context_is_per_thread(void **state)
{
	struct current_fx *f = *state;
	struct holder h;
	pthread_t t;
	spinlock_t l;
	void *p;

	spin_lock_init(&l);
	holder_start(&h, &t, &l, NULL);
	assert_false(in_atomic());
	msleep(1);
	p = kmalloc(64, GFP_KERNEL);
	assert_non_null(p);
	kfree(p);
	holder_stop(&h, t);
	assert_int_equal(f->c.reports, 0);
}

/* Allocations that may sleep (GFP_KERNEL), under a spinlock: each reported once, at its line; GFP_ATOMIC ones never. */
static void test_blocking_allocations_under_a_spinlock_are_reported(void **state)
{
	struct current_fx *f = *state;
	struct device dev;
	struct dma_pool *pool;
	spinlock_t l;
	unsigned long flags;
	dma_addr_t h1, h2, h3, h4;
	void *k1, *k2, *k3, *d1, *d2, *c1, *c2, *p1, *p2;
	struct page *pg1, *pg2;
	struct scatterlist *sgl;
	unsigned int nents;
	char taken[160];
	int line, at;

	memset(&dev, 0, sizeof(dev));
	assert_int_equal(dmamap_device_init(&dev, f->m, "lk"), 0);
	pool = dma_pool_create("lk-pool", &dev, 64, 64, 0);
	assert_non_null(pool);
	spin_lock_init(&l);
	spin_lock_irqsave(&l, flags); at = __LINE__;
	snprintf(taken, sizeof(taken), "taken by spin_lock_irqsave() at %s:%d", __FILE__, at);

	k1 = kmalloc(64, GFP_KERNEL); line = __LINE__;
	assert_sleep_report(f, line, "kmalloc()", taken);
	k3 = kzalloc(3 * PAGE_SIZE, GFP_KERNEL); line = __LINE__; /* whole pages: still one report */
	assert_sleep_report(f, line, "kmalloc()", taken);
	d1 = devm_kzalloc(&dev, 64, GFP_KERNEL); line = __LINE__;
	assert_sleep_report(f, line, "kmalloc()", taken);
	c1 = dma_alloc_coherent(&dev, PAGE_SIZE, &h1, GFP_KERNEL); line = __LINE__;
	assert_sleep_report(f, line, "dma_alloc_attrs()", taken);
	p1 = dma_pool_alloc(pool, GFP_KERNEL, &h3); line = __LINE__; /* the pool grows: one report, the pool's */
	assert_sleep_report(f, line, "dma_pool_alloc()", taken);
	pg1 = alloc_pages(GFP_KERNEL, 1);
	assert_sleep_report(f, 0, "alloc_pages()", taken);
	sgl = sgl_alloc(2 * PAGE_SIZE, GFP_KERNEL, &nents);
	assert_sleep_report(f, 0, "sgl_alloc()", taken);

	/* GFP_ATOMIC never sleeps: nothing said */
	k2 = kmalloc(64, GFP_ATOMIC);
	d2 = devm_kmalloc(&dev, 32, GFP_ATOMIC);
	c2 = dma_alloc_coherent(&dev, PAGE_SIZE, &h2, GFP_ATOMIC);
	p2 = dma_pool_zalloc(pool, GFP_ATOMIC, &h4);
	pg2 = alloc_pages(GFP_ATOMIC | __GFP_ZERO, 0);
	assert_int_equal(f->c.reports, 0);
	spin_unlock_irqrestore(&l, flags);

	assert_non_null(k1);
	assert_non_null(k2);
	assert_non_null(k3);
	assert_non_null(d1);
	assert_non_null(d2);
	assert_non_null(c1);
	assert_non_null(c2);
	assert_non_null(p1);
	assert_non_null(p2);
	assert_non_null(pg1);
	assert_non_null(pg2);
	assert_non_null(sgl);
	kfree(k1);
	kfree(k2);
	kfree(k3);
	dma_free_coherent(&dev, PAGE_SIZE, c1, h1);
	dma_free_coherent(&dev, PAGE_SIZE, c2, h2);
	dma_pool_free(pool, p1, h3);
	dma_pool_free(pool, p2, h4);
	dma_pool_destroy(pool);
	__free_pages(pg1, 1);
	__free_pages(pg2, 0);
	sgl_free(sgl);
	dmamap_device_release(&dev); /* the managed memory with it */
	assert_int_equal(f->c.reports, 0);
}

/* ---------------------------------------------------------- lock order */

/* "file:line" of this file, as a report names a place in it. */
static const char *here(char *buf, size_t size, int line)
{
	snprintf(buf, size, "%s:%d", __FILE__, line);
	return buf;
}

/* The one report expected, of @kind at @line, saying each of the NULL-terminated words that follow; then forgotten. */
static void assert_report_says(struct current_fx *f, enum dmamap_report_kind kind, int line, ...)
{
	const char *w, *missing = NULL;
	va_list ap;

	if (f->c.reports != 1)
		fail_msg("%lu reports, expected one (last: %s)", f->c.reports, f->c.last);
	va_start(ap, line);
	while (!missing && (w = va_arg(ap, const char *)))
		if (!strstr(f->c.rec[0].message, w))
			missing = w;
	va_end(ap);
	if (missing)
		fail_msg("the report says \"%s\", not \"%s\"", f->c.rec[0].message, missing);
	assert_one_report(f, kind, line, NULL);
}

/* Two spinlocks taken in both orders by one thread: no deadlock in this run, one when two threads meet. */
static void test_lock_order_inversion_is_reported(void **state)
{
	struct current_fx *f = *state;
	spinlock_t a, b;
	unsigned long flags;
	char held[160], before[400], s1[128], s2[128], s3[128];
	int la, lb, lb2, la2;

	spin_lock_init(&a);
	spin_lock_init(&b);
	spin_lock(&a); la = __LINE__;
	spin_lock(&b); lb = __LINE__;
	spin_unlock(&b);
	spin_unlock(&a);
	assert_int_equal(f->c.reports, 0);

	spin_lock(&b); lb2 = __LINE__;
	spin_lock(&a); la2 = __LINE__;
	snprintf(held, sizeof(held), "while holding '&b' (taken at %s)", here(s1, sizeof(s1), lb2));
	snprintf(before, sizeof(before), "'&b' was taken at %s while holding '&a' (taken at %s)",
		 here(s2, sizeof(s2), lb), here(s3, sizeof(s3), la));
	assert_report_says(f, DMAMAP_REPORT_LOCK_ORDER, la2, "possible circular locking dependency detected",
			   "spin_lock('&a'", held, before, NULL);
	/* taken all the same, as the kernel goes on */
	assert_true(spin_is_locked(&a));
	spin_unlock(&a);
	spin_unlock(&b);

	/* each dependency is reported once: the same inversion again, in another form, says nothing */
	spin_lock(&b);
	spin_lock_irqsave(&a, flags);
	spin_unlock_irqrestore(&a, flags);
	spin_unlock(&b);
	spin_lock(&a);
	spin_lock(&b);
	spin_unlock(&b);
	spin_unlock(&a);
	assert_int_equal(f->c.reports, 0);
	assert_int_equal(dmamap_report_count_kind(f->m, DMAMAP_REPORT_LOCK_ORDER), 1);
}

/* What threads share in the lock order tests. */
struct order {
	struct mutex *first, *second;
	spinlock_t *a, *b, *c;
	int rounds;
};

static void *take_in_order_thread(void *arg)
{
	struct order *o = arg;

	mutex_lock(o->first);
	mutex_lock(o->second);
	mutex_unlock(o->second);
	mutex_unlock(o->first);
	return NULL;
}

/* The order is the class's, whatever the thread: one thread's A then B, another's B then A. */
static void test_lock_order_is_checked_across_threads(void **state)
{
	struct current_fx *f = *state;
	struct mutex m1, m2;
	struct order o = { .first = &m1, .second = &m2 };
	pthread_t t;
	char s1[128];
	int l1;

	mutex_init(&m1);
	mutex_init(&m2);
	assert_int_equal(pthread_create(&t, NULL, take_in_order_thread, &o), 0);
	pthread_join(t, NULL);
	assert_int_equal(f->c.reports, 0);
	mutex_lock(&m2);
	mutex_lock(&m1); l1 = __LINE__;
	assert_report_says(f, DMAMAP_REPORT_LOCK_ORDER, l1, "mutex_lock('&m1'", "while holding '&m2'",
			   "'&m2' was taken at ", "while holding '&m1' (taken at ", here(s1, sizeof(s1), l1 - 1),
			   NULL);
	mutex_unlock(&m1);
	mutex_unlock(&m2);
	assert_false(mutex_is_locked(&m1));
}

static void *consistent_thread(void *arg)
{
	struct order *o = arg;
	unsigned long flags;

	for (int i = 0; i < o->rounds; i++) {
		mutex_lock(o->first);
		mutex_lock(o->second);
		spin_lock_irqsave(o->a, flags);
		spin_lock(o->b);
		spin_lock(o->c);
		spin_unlock(o->c);
		spin_unlock(o->b);
		spin_unlock_irqrestore(o->a, flags);
		/* a lock let go before the next is taken orders nothing */
		spin_lock(o->c);
		spin_unlock(o->c);
		spin_lock(o->a);
		spin_unlock(o->a);
		/* nor does a lock taken under only some of the chain */
		spin_lock(o->a);
		spin_lock(o->c);
		spin_unlock(o->c);
		spin_unlock(o->a);
		mutex_unlock(o->second);
		mutex_unlock(o->first);
		mutex_lock(o->second);
		spin_lock(o->b);
		spin_unlock(o->b);
		mutex_unlock(o->second);
	}
	return NULL;
}

/* Locks always taken in one order, by several threads at once: nothing to say. */
static void test_consistent_lock_order_is_not_reported(void **state)
{
	struct current_fx *f = *state;
	struct mutex m1, m2;
	spinlock_t a, b, c;
	struct order o = { .first = &m1, .second = &m2, .a = &a, .b = &b, .c = &c };
	pthread_t t[THREADS];

	mutex_init(&m1);
	mutex_init(&m2);
	spin_lock_init(&a);
	spin_lock_init(&b);
	spin_lock_init(&c);
	o.rounds = under_valgrind() ? 50 : 500;
	for (int i = 0; i < THREADS; i++)
		assert_int_equal(pthread_create(&t[i], NULL, consistent_thread, &o), 0);
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	assert_int_equal(f->c.reports, 0);
	assert_false(spin_is_locked(&a));
	assert_false(mutex_is_locked(&m1));
}

/* A -> B -> C recorded, then C held while A is taken: the cycle is three locks long. */
static void test_three_lock_cycle_is_reported(void **state)
{
	struct current_fx *f = *state;
	struct mutex x, y, z;
	char held[160], step1[400], step2[400], s1[128], s2[128], s3[128];
	int lx, ly, ly2, lz, lz3, lx3;

	mutex_init(&x);
	mutex_init(&y);
	mutex_init(&z);
	mutex_lock(&x); lx = __LINE__;
	mutex_lock(&y); ly = __LINE__;
	mutex_unlock(&y);
	mutex_unlock(&x);
	mutex_lock(&y); ly2 = __LINE__;
	mutex_lock(&z); lz = __LINE__;
	mutex_unlock(&z);
	mutex_unlock(&y);
	assert_int_equal(f->c.reports, 0);

	mutex_lock(&z); lz3 = __LINE__;
	mutex_lock(&x); lx3 = __LINE__;
	snprintf(held, sizeof(held), "mutex_lock('&x' (%p)) while holding '&z' (taken at %s)", (void *)&x.dmamap_lk,
		 here(s1, sizeof(s1), lz3));
	snprintf(step1, sizeof(step1), "'&y' was taken at %s while holding '&x' (taken at %s)", here(s2, sizeof(s2), ly),
		 here(s3, sizeof(s3), lx));
	snprintf(step2, sizeof(step2), "'&z' was taken at %s while holding '&y' (taken at %s)", here(s2, sizeof(s2), lz),
		 here(s3, sizeof(s3), ly2));
	assert_report_says(f, DMAMAP_REPORT_LOCK_ORDER, lx3, "possible circular locking dependency detected", held,
			   step1, step2, NULL);
	mutex_unlock(&x);
	mutex_unlock(&z);

	/* once */
	mutex_lock(&z);
	mutex_lock(&x);
	mutex_unlock(&x);
	mutex_unlock(&z);
	assert_int_equal(f->c.reports, 0);
}

/* A lock of a class taken inside another of it: said, unless the inner one is another subclass on purpose. */
static void test_nesting_within_a_class(void **state)
{
	struct current_fx *f = *state;
	spinlock_t pair[2], same[2];
	struct mutex mpair[2];
	unsigned long flags, inner_flags;
	char held[160], s1[128];
	int init, l, lo;

	for (int i = 0; i < 2; i++) {
		spin_lock_init(&pair[i]);
		mutex_init(&mpair[i]);
	}
	/* the kernel's parent-then-child: the child as SINGLE_DEPTH_NESTING */
	spin_lock(&pair[0]);
	spin_lock_nested(&pair[1], SINGLE_DEPTH_NESTING);
	spin_unlock(&pair[1]);
	spin_unlock(&pair[0]);
	spin_lock_irqsave(&pair[1], flags);
	spin_lock_irqsave_nested(&pair[0], inner_flags, SINGLE_DEPTH_NESTING);
	assert_true(spin_is_locked(&pair[0]));
	spin_unlock_irqrestore(&pair[0], inner_flags);
	spin_unlock_irqrestore(&pair[1], flags);
	assert_false(irqs_disabled());
	mutex_lock(&mpair[0]);
	mutex_lock_nested(&mpair[1], SINGLE_DEPTH_NESTING);
	mutex_unlock(&mpair[1]);
	mutex_unlock(&mpair[0]);
	assert_int_equal(f->c.reports, 0);

	/* the same class twice with no subclass: possible recursive locking */
	for (int i = 0; i < 2; i++) {
		spin_lock_init(&same[i]); init = __LINE__;
	}
	spin_lock(&same[0]); lo = __LINE__;
	spin_lock(&same[1]); l = __LINE__;
	snprintf(held, sizeof(held), "while holding '&same[i]' (%p) (taken at %s)", (void *)&same[0].dmamap_lk,
		 here(s1, sizeof(s1), lo));
	assert_report_says(f, DMAMAP_REPORT_LOCK_ORDER, l, "possible recursive locking detected", "spin_lock('&same[i]'",
			   held, "spin_lock_nested()", here(s1, sizeof(s1), init), NULL);
	assert_true(spin_is_locked(&same[1]));
	spin_unlock(&same[1]);
	spin_unlock(&same[0]);
	/* once per class */
	spin_lock(&same[1]);
	spin_lock(&same[0]);
	spin_unlock(&same[0]);
	spin_unlock(&same[1]);
	assert_int_equal(f->c.reports, 0);

	/* the subclasses are the kernel's 0 to 7: an eighth is misuse, the lock taken all the same */
	spin_lock(&pair[0]);
	spin_lock_nested(&pair[1], MAX_LOCKDEP_SUBCLASSES); l = __LINE__;
	assert_report_says(f, DMAMAP_REPORT_LOCK_MISUSE, l, "spin_lock_nested('&pair[i]'", "subclasses, 0 to 7", NULL);
	assert_true(spin_is_locked(&pair[1]));
	spin_unlock(&pair[1]);
	spin_unlock(&pair[0]);
}

/* A successful trylock waits for nothing: no dependency on what is held; what is taken under it depends on it. */
static void test_trylock_records_no_dependency(void **state)
{
	struct current_fx *f = *state;
	spinlock_t a, b, c;
	struct mutex m1, m2;
	char held[160], before[400], s1[128], s2[128], s3[128];
	int la, lc, lc2, la2;

	spin_lock_init(&a);
	spin_lock_init(&b);
	spin_lock_init(&c);
	mutex_init(&m1);
	mutex_init(&m2);
	spin_lock(&a);
	spin_lock(&b);
	spin_unlock(&b);
	spin_unlock(&a);
	mutex_lock(&m1);
	mutex_lock(&m2);
	mutex_unlock(&m2);
	mutex_unlock(&m1);
	/* the other way round, by trylock: no inversion */
	spin_lock(&b);
	assert_true(spin_trylock(&a));
	spin_unlock(&a);
	spin_unlock(&b);
	mutex_lock(&m2);
	assert_true(mutex_trylock(&m1));
	mutex_unlock(&m1);
	mutex_unlock(&m2);
	assert_int_equal(f->c.reports, 0);

	/* c taken under b and the trylocked a: c depends on both */
	spin_lock(&b);
	assert_true(spin_trylock(&a)); la = __LINE__;
	spin_lock(&c); lc = __LINE__;
	spin_unlock(&c);
	spin_unlock(&a);
	spin_unlock(&b);
	assert_int_equal(f->c.reports, 0);
	spin_lock(&c); lc2 = __LINE__;
	spin_lock(&a); la2 = __LINE__;
	snprintf(held, sizeof(held), "spin_lock('&a' (%p)) while holding '&c' (taken at %s)", (void *)&a.dmamap_lk,
		 here(s1, sizeof(s1), lc2));
	snprintf(before, sizeof(before), "'&c' was taken at %s while holding '&a' (taken at %s)",
		 here(s2, sizeof(s2), lc), here(s3, sizeof(s3), la));
	assert_report_says(f, DMAMAP_REPORT_LOCK_ORDER, la2, held, before, NULL);
	spin_unlock(&a);
	spin_unlock(&c);
}

/* lockdep_set_class() makes one class of locks initialised apart; novalidate leaves a lock unchecked. */
static void test_lock_classes_set_by_key(void **state)
{
	static struct lock_class_key key, key2;
	struct current_fx *f = *state;
	spinlock_t a, b, c, d;
	char cls[96];
	int l;

	spin_lock_init(&a);
	spin_lock_init(&b);
	lockdep_set_class(&a, &key);
	lockdep_set_class(&b, &key);
	spin_lock(&a);
	spin_lock(&b); l = __LINE__;
	snprintf(cls, sizeof(cls), "the class '&key' of a lockdep_set_class() key, %p", (void *)&key);
	assert_report_says(f, DMAMAP_REPORT_LOCK_ORDER, l, "possible recursive locking detected", cls, NULL);
	spin_unlock(&b);
	spin_unlock(&a);

	/* a subclass of its own for a lock's plain lock calls: no recursion */
	spin_lock_init(&c);
	spin_lock_init(&d);
	lockdep_set_class(&c, &key2);
	lockdep_set_class_and_subclass(&d, &key2, 1);
	spin_lock(&c);
	spin_lock(&d);
	spin_unlock(&d);
	spin_unlock(&c);
	assert_int_equal(f->c.reports, 0);
	/* a subclass beyond the kernel's 0 to 7: said, and nothing changed */
	lockdep_set_subclass(&d, MAX_LOCKDEP_SUBCLASSES);
	assert_report_says(f, DMAMAP_REPORT_LOCK_MISUSE, 0, "lockdep_set_subclass('&d'", "subclass 8", NULL);
	spin_lock(&c);
	spin_lock(&d);
	spin_unlock(&d);
	spin_unlock(&c);
	assert_int_equal(f->c.reports, 0);
	/* lockdep_set_subclass() back to 0: the same class again */
	lockdep_set_subclass(&d, 0);
	spin_lock(&c);
	spin_lock(&d); l = __LINE__;
	assert_report_says(f, DMAMAP_REPORT_LOCK_ORDER, l, "possible recursive locking detected", NULL);
	spin_unlock(&d);
	spin_unlock(&c);

	/* never checked: taken in both orders with another lock, nothing said */
	spin_lock_init(&c);
	spin_lock_init(&d);
	lockdep_set_novalidate_class(&c);
	spin_lock(&c);
	spin_lock(&d);
	spin_unlock(&d);
	spin_unlock(&c);
	spin_lock(&d);
	spin_lock(&c);
	spin_unlock(&c);
	spin_unlock(&d);
	assert_int_equal(f->c.reports, 0);
	assert_true(dmamap_lockdep_enabled());
}

/* Run @fn(@f) in a forked child (a limit turns checking off for good there only); it exits 0 when all held. */
static void run_in_child(struct current_fx *f, int (*fn)(struct current_fx *f))
{
	pid_t pid;
	int status = 0;

	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(fn(f));
	assert_int_equal(waitpid(pid, &status, 0), pid);
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		fail_msg("the child failed its check %d", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

/* After the warning that it is off, an inversion goes unsaid; the other lock checks go on. */
static int off_and_other_checks_go_on(struct current_fx *f, const char *why)
{
	spinlock_t a, b;

	if (dmamap_lockdep_enabled())
		return 20;
	if (f->c.messages != 1 || f->c.reports || f->c.last_level != DMAMAP_LOG_WARN || !strstr(f->c.last, why) ||
	    !strstr(f->c.last, "lock order is no longer checked"))
		return 21;
	spin_lock_init(&a);
	spin_lock_init(&b);
	spin_lock(&a);
	spin_lock(&b);
	spin_unlock(&b);
	spin_unlock(&a);
	spin_lock(&b);
	spin_lock(&a);
	spin_unlock(&a);
	spin_unlock(&b);
	if (f->c.messages != 1)
		return 22; /* said once, and no report */
	spin_unlock(&a);
	if (f->c.reports != 1 || f->c.rec[0].kind != DMAMAP_REPORT_LOCK_MISUSE)
		return 23;
	return in_atomic() ? 24 : 0;
}

static int fill_classes(struct current_fx *f)
{
	struct dmamap_lock lk;
	int i;

	capture_start(&f->c, f->m);
	for (i = 1; dmamap_lockdep_enabled() && i <= (int)DMAMAP_LOCKDEP_CLASSES + 1; i++)
		dmamap_lock_init_at(&lk, DMAMAP_LOCK_SPIN, "many", "classes.c", i);
	return off_and_other_checks_go_on(f, "more than 1023 lock classes");
}

static int fill_dependencies(struct current_fx *f)
{
	enum { SIDE = 91 }; /* 91 x 91 > 8192 */
	static struct dmamap_lock left[SIDE], right[SIDE];

	capture_start(&f->c, f->m);
	for (int i = 0; i < SIDE; i++) {
		dmamap_lock_init_at(&left[i], DMAMAP_LOCK_SPIN, "left", "deps.c", i);
		dmamap_lock_init_at(&right[i], DMAMAP_LOCK_SPIN, "right", "deps.c", 1000 + i);
	}
	for (int i = 0; i < SIDE && dmamap_lockdep_enabled(); i++) {
		for (int j = 0; j < SIDE; j++) {
			dmamap_spin_lock_at(&left[i], DMAMAP_SPIN_PLAIN, "deps.c", 1);
			dmamap_spin_lock_at(&right[j], DMAMAP_SPIN_PLAIN, "deps.c", 2);
			dmamap_spin_unlock_at(&right[j], DMAMAP_SPIN_PLAIN, 0, "deps.c", 3);
			dmamap_spin_unlock_at(&left[i], DMAMAP_SPIN_PLAIN, 0, "deps.c", 4);
		}
	}
	return off_and_other_checks_go_on(f, "more than 8192 lock dependencies");
}

static int hold_too_many(struct current_fx *f)
{
	enum { DEEP = DMAMAP_LOCKDEP_DEPTH + 1 };
	struct dmamap_lock lk[DEEP];

	capture_start(&f->c, f->m);
	for (int i = 0; i < DEEP; i++)
		dmamap_lock_init_at(&lk[i], DMAMAP_LOCK_SPIN, "deep", "depth.c", i);
	for (int i = 0; i < DEEP; i++)
		dmamap_spin_lock_at(&lk[i], DMAMAP_SPIN_PLAIN, "depth.c", 100 + i);
	if (!in_atomic())
		return 10;
	/* released out of order, the outermost (forgotten by the checker) among the last */
	for (int i = DEEP - 1; i >= 0; i -= 2)
		dmamap_spin_unlock_at(&lk[i], DMAMAP_SPIN_PLAIN, 0, "depth.c", 200);
	for (int i = DEEP - 2; i >= 0; i -= 2) {
		if (!in_atomic())
			return 11;
		dmamap_spin_unlock_at(&lk[i], DMAMAP_SPIN_PLAIN, 0, "depth.c", 201);
	}
	if (in_atomic())
		return 12;
	return off_and_other_checks_go_on(f, "a thread holds more than 24 locks");
}

/* Past a limit of its tables, the checker turns itself off, says so once, and the rest goes on. */
static void test_lock_order_checking_turns_off_when_full(void **state)
{
	struct current_fx *f = *state;

	run_in_child(f, fill_classes);
	run_in_child(f, fill_dependencies);
	run_in_child(f, hold_too_many);
	/* here, in the parent, it is still on */
	assert_true(dmamap_lockdep_enabled());
	assert_int_equal(f->c.reports, 0);
}

/* ------------------------------------------------- threads holding locks */

/* A thread that takes what it is given, and lets go of it or not. */
struct leaver {
	spinlock_t *spin;
	struct mutex *mutex;
	bool let_go;
	struct completion *taken, *go; /* when set: says it took them, then waits before it ends */
	int spin_line, mutex_line;
};

static void *leaver_thread(void *arg)
{
	struct leaver *l = arg;

	if (l->mutex) {
		mutex_lock(l->mutex); l->mutex_line = __LINE__;
	}
	if (l->spin) {
		spin_lock(l->spin); l->spin_line = __LINE__;
	}
	if (l->taken) {
		complete(l->taken);
		wait_for_completion(l->go);
	}
	if (l->let_go && l->spin)
		spin_unlock(l->spin);
	if (l->let_go && l->mutex)
		mutex_unlock(l->mutex);
	return NULL;
}

/* An object with a lock in it, freed by a thread that holds the lock, or that held it and let go. */
struct locked_obj {
	long pad[3];
	spinlock_t lock;
	struct mutex mtx;
};

struct freer {
	struct locked_obj *o;
	bool vm, let_go;
	int take_line, free_line;
};

static void *freer_thread(void *arg)
{
	struct freer *fr = arg;

	mutex_lock(&fr->o->mtx);
	spin_lock(&fr->o->lock); fr->take_line = __LINE__;
	if (fr->let_go) {
		spin_unlock(&fr->o->lock);
		mutex_unlock(&fr->o->mtx);
	}
	if (fr->vm) {
		vfree_atomic(fr->o); fr->free_line = __LINE__; /* vfree() may sleep: not under a spinlock */
	} else {
		kfree(fr->o); fr->free_line = __LINE__;
	}
	return NULL;
}

/*
 * Memory freed while the freeing thread holds a lock in it is reported at
 * the free, lockdep's "held lock freed!", one report a lock, naming it and
 * where it was taken (kfree() and vfree_atomic()); the thread still holds the
 * locks, and its end says so. Freed after the thread let go: nothing.
 */
static void test_held_lock_freed_is_reported(void **state)
{
	struct current_fx *f = *state;
	struct freer fr;
	char want[200], s1[128];
	pthread_t t;

	for (int vm = 0; vm < 2; vm++) {
		struct locked_obj *o = vm ? vzalloc(sizeof(*o)) : kzalloc(sizeof(*o), GFP_KERNEL);

		assert_non_null(o);
		spin_lock_init(&o->lock);
		mutex_init(&o->mtx);
		fr = (struct freer){ .o = o, .vm = vm != 0 };
		assert_int_equal(pthread_create(&t, NULL, freer_thread, &fr), 0);
		pthread_join(t, NULL);
		assert_int_equal(f->c.reports, 3);
		assert_int_equal(f->c.by_kind[DMAMAP_REPORT_LOCK_MISUSE], 3);
		assert_int_equal(f->c.rec[0].line, fr.free_line);
		assert_int_equal(f->c.rec[1].line, fr.free_line);
		assert_non_null(strstr(f->c.rec[0].message, vm ? "vfree_atomic: the memory at" : "kfree: the memory at"));
		assert_non_null(strstr(f->c.rec[0].message, "'&o->mtx'"));
		snprintf(want, sizeof(want), "'&o->lock' (%p) in it, taken by spin_lock() at %s", (void *)&o->lock.dmamap_lk,
			 here(s1, sizeof(s1), fr.take_line));
		assert_non_null(strstr(f->c.rec[1].message, want));
		assert_non_null(strstr(f->c.rec[1].message, "held lock freed (its unlock would write freed memory)"));
		assert_non_null(strstr(f->c.rec[2].message, "exiting with 2 locks still held"));
		f->c.reports = 0;
		memset(f->c.by_kind, 0, sizeof(f->c.by_kind));
	}

	/* let go first: a free like any other */
	fr = (struct freer){ .o = kzalloc(sizeof(*fr.o), GFP_KERNEL), .let_go = true };
	assert_non_null(fr.o);
	spin_lock_init(&fr.o->lock);
	mutex_init(&fr.o->mtx);
	assert_int_equal(pthread_create(&t, NULL, freer_thread, &fr), 0);
	pthread_join(t, NULL);
	assert_int_equal(f->c.reports, 0);
}

static void test_thread_ending_with_locks_held_is_reported(void **state)
{
	struct current_fx *f = *state;
	struct leaver l = { 0 };
	DECLARE_COMPLETION(taken);
	DECLARE_COMPLETION(go);
	spinlock_t s;
	struct mutex m;
	pthread_t t;
	char sm[160], ss[160], s1[128];

	spin_lock_init(&s);
	mutex_init(&m);
	/* let go before the end: nothing */
	l = (struct leaver){ .spin = &s, .mutex = &m, .let_go = true };
	assert_int_equal(pthread_create(&t, NULL, leaver_thread, &l), 0);
	pthread_join(t, NULL);
	assert_int_equal(f->c.reports, 0);

	/* ended holding both: one report, naming each and where it was taken */
	l = (struct leaver){ .spin = &s, .mutex = &m };
	assert_int_equal(pthread_create(&t, NULL, leaver_thread, &l), 0);
	pthread_join(t, NULL);
	snprintf(sm, sizeof(sm), "'&m' (%p) taken by mutex_lock() at %s", (void *)&m.dmamap_lk,
		 here(s1, sizeof(s1), l.mutex_line));
	snprintf(ss, sizeof(ss), "'&s' (%p) taken by spin_lock() at %s", (void *)&s.dmamap_lk,
		 here(s1, sizeof(s1), l.spin_line));
	assert_report_says(f, DMAMAP_REPORT_LOCK_MISUSE, l.spin_line, "exiting with 2 locks still held", sm, ss,
			   "they stay held", NULL);
	/* they stay held, by nobody alive */
	assert_true(spin_is_locked(&s));
	assert_true(mutex_is_locked(&m));
	assert_false(spin_trylock(&s));
	assert_false(mutex_trylock(&m));
	spin_lock_init(&s);
	mutex_init(&m);

	/* a mutex another thread unlocked for it (misuse said there) is no longer the ending thread's */
	l = (struct leaver){ .mutex = &m, .taken = &taken, .go = &go };
	assert_int_equal(pthread_create(&t, NULL, leaver_thread, &l), 0);
	wait_for_completion(&taken);
	mutex_unlock(&m);
	assert_one_report(f, DMAMAP_REPORT_LOCK_MISUSE, __LINE__ - 1, "unlocked all the same");
	complete(&go);
	pthread_join(t, NULL);
	assert_int_equal(f->c.reports, 0);
	assert_false(mutex_is_locked(&m));
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
		cmocka_unit_test_setup_teardown(test_spinlock_excludes_across_threads, current_fx_setup, teardown),
		cmocka_unit_test_setup_teardown(test_mutex_excludes_across_threads, current_fx_setup, teardown),
		cmocka_unit_test_setup_teardown(test_trylock_and_is_locked, current_fx_setup, teardown),
		cmocka_unit_test_setup_teardown(test_interrupt_state_nests, current_fx_setup, teardown),
		cmocka_unit_test_setup_teardown(test_completion_wakes_its_waiter, current_fx_setup, teardown),
		cmocka_unit_test_setup_teardown(test_completion_counts_and_times_out, current_fx_setup, teardown),
		cmocka_unit_test_setup_teardown(test_wait_event_sleeps_until_woken_with_its_condition, current_fx_setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_wait_event_timeout_values, current_fx_setup, teardown),
		cmocka_unit_test_setup_teardown(test_wait_event_loses_no_wake_up, current_fx_setup, teardown),
		cmocka_unit_test_setup_teardown(test_wait_event_in_atomic_context_is_reported, current_fx_setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_unlock_of_a_lock_not_held_is_reported, current_fx_setup, teardown),
		cmocka_unit_test_setup_teardown(test_unlock_by_another_thread_is_reported, current_fx_setup, teardown),
		cmocka_unit_test_setup_teardown(test_recursion_is_reported_not_a_deadlock, current_fx_setup, teardown),
		cmocka_unit_test_setup_teardown(test_uninitialised_and_destroyed_locks_are_reported, current_fx_setup, teardown),
		cmocka_unit_test_setup_teardown(test_false_lock_assertions_are_reported, current_fx_setup, teardown),
		cmocka_unit_test_setup_teardown(test_sleeping_under_a_spinlock_is_reported, current_fx_setup, teardown),
		cmocka_unit_test_setup_teardown(test_sleeping_with_interrupts_off_is_reported, current_fx_setup, teardown),
		cmocka_unit_test_setup_teardown(test_atomic_context_is_per_thread, current_fx_setup, teardown),
		cmocka_unit_test_setup_teardown(test_blocking_allocations_under_a_spinlock_are_reported, current_fx_setup, teardown),
		cmocka_unit_test_setup_teardown(test_lock_order_inversion_is_reported, current_fx_setup, teardown),
		cmocka_unit_test_setup_teardown(test_lock_order_is_checked_across_threads, current_fx_setup, teardown),
		cmocka_unit_test_setup_teardown(test_consistent_lock_order_is_not_reported, current_fx_setup, teardown),
		cmocka_unit_test_setup_teardown(test_three_lock_cycle_is_reported, current_fx_setup, teardown),
		cmocka_unit_test_setup_teardown(test_nesting_within_a_class, current_fx_setup, teardown),
		cmocka_unit_test_setup_teardown(test_trylock_records_no_dependency, current_fx_setup, teardown),
		cmocka_unit_test_setup_teardown(test_lock_classes_set_by_key, current_fx_setup, teardown),
		cmocka_unit_test_setup_teardown(test_lock_order_checking_turns_off_when_full, current_fx_setup, teardown),
		cmocka_unit_test_setup_teardown(test_thread_ending_with_locks_held_is_reported, current_fx_setup, teardown),
		cmocka_unit_test_setup_teardown(test_held_lock_freed_is_reported, current_fx_setup, teardown),
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
