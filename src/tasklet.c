/* SPDX-License-Identifier: MIT */
/*
 * Tasklets (<dmamap/tasklet.h>): one host mutex for every tasklet, and one
 * list of the tasklets scheduled, each entry naming the thread (its
 * dm_thread_token(), the "CPU") that runs it. The entries are the
 * library's, not the tasklet's memory: a tasklet found disabled when its
 * thread came to run it is *parked* (its entry stays, TASKLET_STATE_SCHED
 * stays set) and its memory is not read again until the enable that hands
 * it to a thread, so that a tasklet freed while disabled and scheduled
 * (the driver's bug) costs nothing until its machine's destruction
 * reports it from the entry's copies.
 *
 * Only a thread itself puts entries on its own name (a schedule, an
 * enable, a run scheduled again), and tells locking.c so
 * (dm_softirq_raise()); locking.c calls dm_softirq_run() at the thread's
 * next point where softirqs may run. A tasklet scheduled while it runs
 * (TASKLET_STATE_RUN) gets no entry: it is marked to run again, and the
 * thread whose run (or tasklet_unlock()) ends queues it on its own name.
 * So a tasklet has at most one entry, and none while it runs.
 */
#include <stdio.h>
#include <stdlib.h>

#include "internal.h"

#define SCHED (1ul << TASKLET_STATE_SCHED)
#define RUN (1ul << TASKLET_STATE_RUN)

/* A scheduled tasklet. */
struct tl_entry {
	struct tl_entry *next;
	struct tasklet_struct *t;  /* compared always; read only while not parked */
	unsigned long cpu;         /* the thread that runs it */
	struct dmamap_machine *m;  /* the current machine when scheduled, or NULL: its reports */
	const char *init_file;     /* copies of the tasklet's, for reports */
	int init_line;
	const char *file;          /* where it was scheduled */
	int line;
	bool hi;                   /* tasklet_hi_schedule() */
	bool parked;               /* found disabled: waits for the enable that hands it to a thread */
};

static pthread_mutex_t tl_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t tl_change = PTHREAD_COND_INITIALIZER; /* a run ended, or an entry went */
static struct tl_entry *tl_head;                            /* in the order scheduled */
unsigned long dm_tl_listed; /* entries (written under tl_lock, read without) */

static void listed_add(long d)
{
	__atomic_store_n(&dm_tl_listed, dm_tl_listed + (unsigned long)d, __ATOMIC_RELAXED);
}

/* The tasklets this thread runs now, innermost last: a wait for one of them would wait for itself. */
#define TL_NEST 8
static _Thread_local struct tasklet_struct *tl_running[TL_NEST] DM_TLS_MODEL;
static _Thread_local unsigned int tl_nest DM_TLS_MODEL;

static int count_of(const struct tasklet_struct *t)
{
	return __atomic_load_n(&t->count.counter, __ATOMIC_RELAXED);
}

static void count_set(struct tasklet_struct *t, int c)
{
	__atomic_store_n(&t->count.counter, c, __ATOMIC_RELAXED);
}

static bool running_here(const struct tasklet_struct *t)
{
	for (unsigned int i = 0; i < tl_nest && i < TL_NEST; i++)
		if (tl_running[i] == t)
			return true;
	return false;
}

/* A tasklet given: a NULL one is reported, as @how's. */
static bool tl_ok(const struct tasklet_struct *t, const char *how, const char *file, int line)
{
	if (t)
		return true;
	dmamap_report(dmamap_machine_peek_current(), DMAMAP_REPORT_BAD_INPUT, NULL, file, line, "%s: NULL tasklet", how);
	return false;
}

/* This thread has a tasklet to run: at once if it may, else at its next point. */
static void run_soon(void)
{
	dm_softirq_raise();
	dm_softirq_point();
}

/* The entry of @t, or NULL (tl_lock held). */
static struct tl_entry *entry_of(const struct tasklet_struct *t)
{
	for (struct tl_entry *e = tl_head; e; e = e->next)
		if (e->t == t)
			return e;
	return NULL;
}

static void entry_unlink(struct tl_entry *e)
{
	for (struct tl_entry **pp = &tl_head; *pp; pp = &(*pp)->next) {
		if (*pp == e) {
			*pp = e->next;
			e->next = NULL;
			listed_add(-1);
			return;
		}
	}
}

/* This thread's next tasklet to run, high-priority ones first, parked ones left; NULL: none (tl_lock held). */
static struct tl_entry *next_mine(unsigned long me)
{
	struct tl_entry *lo = NULL;

	for (struct tl_entry *e = tl_head; e; e = e->next) {
		if (e->cpu != me || e->parked)
			continue;
		if (e->hi)
			return e;
		if (!lo)
			lo = e;
	}
	return lo;
}

/*
 * Queue @t, marked scheduled and not running, for this thread to run
 * (tl_lock held). False when no entry can be had: then it is not
 * scheduled (said as a warning).
 */
static bool queue_mine(struct tasklet_struct *t, bool hi, const char *file, int line)
{
	struct tl_entry *e = calloc(1, sizeof(*e)), **pp;

	if (!e) {
		t->state &= ~SCHED;
		dmamap_log(dmamap_machine_peek_current(), DMAMAP_LOG_WARN, NULL,
			   "tasklet scheduled at %s:%d: out of host memory; not scheduled", file ? file : "?", line);
		return false;
	}
	e->t = t;
	e->cpu = dm_thread_token();
	e->m = dmamap_machine_peek_current();
	e->init_file = t->dmamap_file;
	e->init_line = t->dmamap_line;
	e->file = file;
	e->line = line;
	e->hi = hi;
	for (pp = &tl_head; *pp; pp = &(*pp)->next)
		;
	*pp = e;
	listed_add(1);
	return true;
}

/* A run of @t ended, or its tasklet_unlock() (tl_lock held): whether it was scheduled meanwhile and is queued here. */
static bool run_ends(struct tasklet_struct *t)
{
	bool queued = false;

	t->state &= ~RUN;
	if (t->dmamap_again) {
		t->dmamap_again = false;
		queued = (t->state & SCHED) && queue_mine(t, false, t->dmamap_file, t->dmamap_line);
	}
	pthread_cond_broadcast(&tl_change);
	return queued;
}

void dm_softirq_call(void (*fn)(void *arg), void *arg, struct dmamap_machine *m, const char *file, int line,
		     const char *who)
{
	int call_depth = dmamap_call_now.depth;
	struct dm_softirq_mark sm;
	struct dm_held_mark held;
	char locks[600], state[300];

	/* the function is the driver's code, whatever library call runs it */
	dmamap_call_now.depth = 0;
	dm_softirq_enter(&sm);
	dm_held_mark(&held);
	fn(arg);
	/* what it took it gives back: the thread's locks are those it held before */
	dm_held_since(&held, locks, sizeof(locks));
	dm_softirq_exit(&sm, state, sizeof(state));
	dmamap_call_now.depth = call_depth;
	if (locks[0] || state[0])
		dmamap_report(m, DMAMAP_REPORT_LOCK_MISUSE, NULL, file, line, "%s returned with %s%s%s", who, locks,
			      locks[0] && state[0] ? "; " : "", state);
}

/* A tasklet's call, as dm_softirq_call() makes it. */
struct tl_call {
	struct tasklet_struct *t;
	bool use_callback;
	void (*fn)(void);
	unsigned long data;
};

static void tl_invoke(void *arg)
{
	struct tl_call *c = arg;

	if (c->use_callback)
		((void (*)(struct tasklet_struct *))c->fn)(c->t);
	else
		((void (*)(unsigned long))c->fn)(c->data);
}

/* Call @t's function in this thread's softirq context, and report what it left behind (no lock held). */
static void call(struct tasklet_struct *t, bool use_callback, void (*fn)(void), unsigned long data,
		 struct dmamap_machine *m, const char *init_file, int init_line)
{
	struct tl_call c = { t, use_callback, fn, data };
	char who[200], at[160];

	if (tl_nest < TL_NEST)
		tl_running[tl_nest] = t;
	tl_nest++;
	snprintf(who, sizeof(who), "tasklet initialised at %s", dm_site(init_file, init_line, at, sizeof(at)));
	dm_softirq_call(tl_invoke, &c, m, init_file, init_line, who);
	tl_nest--;
}

/*
 * Take @e, this thread's, off the list and run its tasklet now, unless it
 * is disabled (parked: it stays) or marked running by tasklet_trylock()
 * (then it runs again at tasklet_unlock()). tl_lock held, let go meanwhile.
 */
static void run_entry(struct tl_entry *e)
{
	struct tasklet_struct *t = e->t;
	struct dmamap_machine *m = e->m;
	const char *init_file = e->init_file;
	int init_line = e->init_line;
	void (*fn)(void);
	unsigned long data;
	bool use_callback;

	if (count_of(t) > 0) {
		e->parked = true;
		return;
	}
	entry_unlink(e);
	free(e);
	if (t->state & RUN) {
		t->dmamap_again = true;
		return;
	}
	t->state = (t->state & ~SCHED) | RUN;
	use_callback = t->use_callback;
	fn = use_callback ? (void (*)(void))t->callback : (void (*)(void))t->func;
	data = t->data;
	pthread_cond_broadcast(&tl_change);
	pthread_mutex_unlock(&tl_lock);
	call(t, use_callback, fn, data, m, init_file, init_line);
	pthread_mutex_lock(&tl_lock);
	run_ends(t);
}

/*
 * This thread's softirq pass. Each step runs the first of: a BH item of a
 * high-priority BH queue, a high-priority tasklet, a BH item of another
 * BH queue, a tasklet; the kernel's order within one pass (HI_SOFTIRQ runs
 * system_bh_highpri_wq's items, then tasklet_hi_schedule()'s tasklets;
 * TASKLET_SOFTIRQ system_bh_wq's, then tasklet_schedule()'s).
 */
void dm_softirq_run(void)
{
	const unsigned long me = dm_thread_token();
	struct tl_entry *e;

	for (;;) {
		if (dm_bh_work_run_one(true))
			continue;
		pthread_mutex_lock(&tl_lock);
		e = next_mine(me);
		if (e && e->hi) {
			run_entry(e);
			pthread_mutex_unlock(&tl_lock);
			continue;
		}
		pthread_mutex_unlock(&tl_lock);
		if (dm_bh_work_run_one(false))
			continue;
		pthread_mutex_lock(&tl_lock);
		e = next_mine(me);
		if (!e)
			break;
		run_entry(e);
		pthread_mutex_unlock(&tl_lock);
	}
	dm_softirq_settled();
	pthread_mutex_unlock(&tl_lock);
}

/* A tasklet's function: NULL for one never initialised. */
static bool initialised(const struct tasklet_struct *t)
{
	return t->dmamap_magic == DMAMAP_TASKLET_MAGIC && (t->use_callback ? t->callback != NULL : t->func != NULL);
}

DMAMAP_API void dmamap_tasklet_init_at(struct tasklet_struct *t, void (*func)(unsigned long data),
				       void (*callback)(struct tasklet_struct *t), unsigned long data,
				       const char *file, int line)
{
	const char *how = callback ? "tasklet_setup" : "tasklet_init";
	struct tl_entry *stale;
	char at[160], init_at[160];

	if (!tl_ok(t, how, file, line))
		return;
	pthread_mutex_lock(&tl_lock);
	stale = entry_of(t);
	if (stale)
		entry_unlink(stale);
	t->next = NULL;
	t->state = 0;
	count_set(t, 0);
	t->use_callback = callback != NULL;
	if (callback)
		t->callback = callback;
	else
		t->func = func;
	t->data = data;
	t->dmamap_magic = DMAMAP_TASKLET_MAGIC;
	t->dmamap_again = false;
	t->dmamap_file = file;
	t->dmamap_line = line;
	pthread_mutex_unlock(&tl_lock);
	if (stale) {
		dmamap_report(stale->m ? stale->m : dmamap_machine_peek_current(), DMAMAP_REPORT_API_MISUSE, NULL, file,
			      line, "%s: this memory holds a tasklet still scheduled at %s (initialised at %s); forgotten",
			      how, dm_site(stale->file, stale->line, at, sizeof(at)),
			      dm_site(stale->init_file, stale->init_line, init_at, sizeof(init_at)));
		free(stale);
	}
}

DMAMAP_API void dmamap_tasklet_schedule_at(struct tasklet_struct *t, bool hi, const char *file, int line)
{
	const char *how = hi ? "tasklet_hi_schedule" : "tasklet_schedule";
	bool queued = false, ok;

	if (!tl_ok(t, how, file, line))
		return;
	pthread_mutex_lock(&tl_lock);
	ok = initialised(t);
	if (ok && !(t->state & SCHED)) {
		t->state |= SCHED;
		if (t->state & RUN)
			t->dmamap_again = true; /* its run ends with its queuing again */
		else
			queued = queue_mine(t, hi, file, line);
	}
	pthread_mutex_unlock(&tl_lock);
	if (!ok) {
		dmamap_report(dmamap_machine_peek_current(), DMAMAP_REPORT_BAD_INPUT, NULL, file, line,
			      "%s: the tasklet was never initialised (tasklet_setup(), tasklet_init(), DECLARE_TASKLET()) "
			      "or has no function; nothing scheduled",
			      how);
		return;
	}
	if (queued)
		run_soon();
}

/* A wait for @t from @t itself: the kernel would wait for ever. */
static void report_self(const struct tasklet_struct *t, const char *how, const char *file, int line)
{
	char at[160];

	dmamap_report(dmamap_machine_peek_current(), DMAMAP_REPORT_LOCK_MISUSE, NULL, file, line,
		      "%s() from the tasklet itself (initialised at %s): the kernel would wait for it for ever; not waited "
		      "for",
		      how, dm_site(t->dmamap_file, t->dmamap_line, at, sizeof(at)));
}

/* Wait until no other thread runs @t; from @t itself, report instead. */
static void wait_not_running(struct tasklet_struct *t, const char *how, const char *file, int line)
{
	if (running_here(t)) {
		report_self(t, how, file, line);
		return;
	}
	pthread_mutex_lock(&tl_lock);
	while (t->state & RUN)
		pthread_cond_wait(&tl_change, &tl_lock);
	pthread_mutex_unlock(&tl_lock);
}

DMAMAP_API void dmamap_tasklet_disable_at(struct tasklet_struct *t, int how, const char *file, int line)
{
	static const char *const names[] = {
		[DMAMAP_TASKLET_DISABLE_NOSYNC] = "tasklet_disable_nosync",
		[DMAMAP_TASKLET_DISABLE_WAIT] = "tasklet_disable",
		[DMAMAP_TASKLET_DISABLE_ATOMIC] = "tasklet_disable_in_atomic",
	};

	if (how < DMAMAP_TASKLET_DISABLE_NOSYNC || how > DMAMAP_TASKLET_DISABLE_ATOMIC)
		how = DMAMAP_TASKLET_DISABLE_WAIT;
	if (!tl_ok(t, names[how], file, line))
		return;
	if (how == DMAMAP_TASKLET_DISABLE_WAIT)
		dm_might_sleep(NULL, names[how], file, line);
	pthread_mutex_lock(&tl_lock);
	count_set(t, count_of(t) + 1);
	pthread_mutex_unlock(&tl_lock);
	if (how != DMAMAP_TASKLET_DISABLE_NOSYNC)
		wait_not_running(t, names[how], file, line);
}

DMAMAP_API void dmamap_tasklet_enable_at(struct tasklet_struct *t, const char *file, int line)
{
	struct tl_entry *e = NULL;
	char at[160];
	int c;

	if (!tl_ok(t, "tasklet_enable", file, line))
		return;
	pthread_mutex_lock(&tl_lock);
	c = count_of(t);
	if (c > 0) {
		count_set(t, c - 1);
		e = c == 1 ? entry_of(t) : NULL;
		/* scheduled while disabled: this thread runs it */
		if (e && e->parked) {
			e->parked = false;
			e->cpu = dm_thread_token();
		} else {
			e = NULL;
		}
	}
	pthread_mutex_unlock(&tl_lock);
	if (c <= 0) {
		dmamap_report(dmamap_machine_peek_current(), DMAMAP_REPORT_API_MISUSE, NULL, file, line,
			      "tasklet_enable: the tasklet (initialised at %s) is not disabled; its count stays 0",
			      dm_site(t->dmamap_file, t->dmamap_line, at, sizeof(at)));
		return;
	}
	if (e)
		run_soon();
}

DMAMAP_API void dmamap_tasklet_kill_at(struct tasklet_struct *t, const char *file, int line)
{
	const unsigned long me = dm_thread_token();
	struct tl_entry *e;
	char at[160];

	if (!tl_ok(t, "tasklet_kill", file, line))
		return;
	dm_might_sleep(NULL, "tasklet_kill", file, line);
	if (running_here(t)) {
		report_self(t, "tasklet_kill", file, line);
		return;
	}
	pthread_mutex_lock(&tl_lock);
	/* wait for it to run; then it is marked scheduled so that no schedule queues it, until it does not run */
	while (t->state & SCHED) {
		if (count_of(t) > 0) {
			pthread_mutex_unlock(&tl_lock);
			dmamap_report(dmamap_machine_peek_current(), DMAMAP_REPORT_LOCK_MISUSE, NULL, file, line,
				      "tasklet_kill: the tasklet (initialised at %s) is disabled and scheduled: the kernel "
				      "would wait for it for ever; nothing done",
				      dm_site(t->dmamap_file, t->dmamap_line, at, sizeof(at)));
			return;
		}
		e = entry_of(t);
		if (e && e->cpu == me) {
			run_entry(e); /* this thread's own: it could not run while the thread waits */
		} else if (!e && !(t->state & RUN)) {
			t->state &= ~SCHED; /* forgotten at its machine's destruction: nothing will run it */
			break;
		} else {
			pthread_cond_wait(&tl_change, &tl_lock);
		}
	}
	t->state |= SCHED;
	while (t->state & RUN)
		pthread_cond_wait(&tl_change, &tl_lock);
	t->state &= ~SCHED;
	t->dmamap_again = false;
	pthread_mutex_unlock(&tl_lock);
}

DMAMAP_API void dmamap_tasklet_unlock_wait_at(struct tasklet_struct *t, bool spin, const char *file, int line)
{
	const char *how = spin ? "tasklet_unlock_spin_wait" : "tasklet_unlock_wait";

	if (!tl_ok(t, how, file, line))
		return;
	if (!spin)
		dm_might_sleep(NULL, how, file, line);
	wait_not_running(t, how, file, line);
}

DMAMAP_API bool dmamap_tasklet_trylock(struct tasklet_struct *t)
{
	bool got;

	pthread_mutex_lock(&tl_lock);
	got = !(t->state & RUN);
	t->state |= RUN;
	pthread_mutex_unlock(&tl_lock);
	return got;
}

DMAMAP_API void dmamap_tasklet_unlock(struct tasklet_struct *t)
{
	bool queued;

	pthread_mutex_lock(&tl_lock);
	queued = run_ends(t);
	pthread_mutex_unlock(&tl_lock);
	if (queued)
		run_soon();
}

DMAMAP_API bool dmamap_tasklet_scheduled(struct tasklet_struct *t)
{
	bool sched;

	pthread_mutex_lock(&tl_lock);
	sched = (t->state & SCHED) != 0;
	pthread_mutex_unlock(&tl_lock);
	return sched;
}

void dmamap_tasklet_machine_fini(struct dmamap_machine *m)
{
	struct tl_entry *gone = NULL, **tail = &gone, *e;
	char at[160];

	pthread_mutex_lock(&tl_lock);
	for (struct tl_entry **pp = &tl_head; *pp;) {
		e = *pp;
		if (e->m != m) {
			pp = &e->next;
			continue;
		}
		*pp = e->next;
		e->next = NULL;
		listed_add(-1);
		*tail = e;
		tail = &e->next;
	}
	pthread_cond_broadcast(&tl_change);
	pthread_mutex_unlock(&tl_lock);
	while ((e = gone)) {
		gone = e->next;
		dmamap_report(m, DMAMAP_REPORT_LEAK, NULL, e->file, e->line,
			      "tasklet initialised at %s still scheduled%s at machine destroy (tasklet_kill() was "
			      "missing); forgotten",
			      dm_site(e->init_file, e->init_line, at, sizeof(at)), e->parked ? " and disabled" : "");
		free(e);
	}
}

void dm_tasklet_freed(struct dmamap_machine *m, const void *p, size_t n, const char *what, const char *file, int line)
{
	char init[160], at[160];
	struct tl_entry *e;

	if (!__atomic_load_n(&dm_tl_listed, __ATOMIC_RELAXED))
		return;
	for (;;) {
		pthread_mutex_lock(&tl_lock);
		for (e = tl_head; e && (uintptr_t)e->t - (uintptr_t)p >= n; e = e->next)
			;
		if (!e) {
			pthread_mutex_unlock(&tl_lock);
			return;
		}
		entry_unlink(e);
		pthread_cond_broadcast(&tl_change);
		pthread_mutex_unlock(&tl_lock);
		dmamap_report(m, DMAMAP_REPORT_API_MISUSE, NULL, file, line,
			      "%s: the memory at %p is freed while a tasklet in it (initialised at %s), scheduled at %s%s, "
			      "has not run: its function would run on freed memory (tasklet_kill() missing?); unscheduled",
			      what, p, dm_site(e->init_file, e->init_line, init, sizeof(init)),
			      dm_site(e->file, e->line, at, sizeof(at)), e->parked ? " and disabled" : "");
		free(e);
	}
}
