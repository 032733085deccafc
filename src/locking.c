/* SPDX-License-Identifier: MIT */
/*
 * The kernel's spinlocks, mutexes and completions over POSIX threads, and
 * each thread's atomic context.
 *
 * A lock's state (held, owner, where taken) lives under its guard, a host
 * mutex held only for the few instructions that read or change it; a
 * waiter sleeps on the lock's condition variable. Reports are raised after
 * the guard is let go, so a handler may do anything, take the lock included.
 *
 * The atomic context is thread-local: the spinlocks the thread holds, with
 * where it took the innermost few, and its interrupt state. Only the thread
 * itself reads or changes it.
 */
#include <limits.h>
#include <stdio.h>
#include <time.h>

#include "internal.h"

#define HELD_MAX 16

struct held {
	const struct dmamap_lock *lk;
	const char *how;
	const char *file;
	int line;
};

struct dm_atomic {
	unsigned int spins;           /* spinlocks held */
	unsigned int nheld;           /* entries of held[] in use (the innermost HELD_MAX) */
	struct held held[HELD_MAX];
	bool irqs_off;
	const char *irq_how;          /* what turned them off, where */
	const char *irq_file;
	int irq_line;
};

static _Thread_local struct dm_atomic atomic_now DM_TLS_MODEL;

/* This thread, as a lock's owner: its context's address (unique among live threads). */
static const void *self(void)
{
	return &atomic_now;
}

static struct dmamap_machine *report_machine(void)
{
	return dmamap_machine_peek_current();
}

/* "'name' (0x...)" or "0x...": the lock as a report names it. */
static const char *lock_name(const struct dmamap_lock *lk, char *buf, size_t size)
{
	if (lk->name)
		snprintf(buf, size, "'%s' (%p)", lk->name, (const void *)lk);
	else
		snprintf(buf, size, "%p", (const void *)lk);
	return buf;
}

/* " (taken at file:line)" or "". */
static const char *taken_at(const char *file, int line, char *buf, size_t size)
{
	if (file)
		snprintf(buf, size, " (taken at %s:%d)", file, line);
	else
		buf[0] = '\0';
	return buf;
}

static bool lock_ok(struct dmamap_lock *lk, const char *how, const char *file, int line)
{
	if (lk)
		return true;
	dmamap_report(report_machine(), DMAMAP_REPORT_BAD_INPUT, NULL, file, line, "%s: NULL lock", how);
	return false;
}

/* ------------------------------------------------------ atomic context */

static void held_push(const struct dmamap_lock *lk, const char *how, const char *file, int line)
{
	struct dm_atomic *a = &atomic_now;

	a->spins++;
	if (a->nheld == HELD_MAX) {
		memmove(&a->held[0], &a->held[1], (HELD_MAX - 1) * sizeof(a->held[0]));
		a->nheld--;
	}
	a->held[a->nheld++] = (struct held){ lk, how, file, line };
}

static void held_pop(const struct dmamap_lock *lk)
{
	struct dm_atomic *a = &atomic_now;

	if (a->spins)
		a->spins--;
	for (unsigned int i = a->nheld; i-- > 0;) {
		if (a->held[i].lk == lk) {
			memmove(&a->held[i], &a->held[i + 1], (a->nheld - i - 1) * sizeof(a->held[0]));
			a->nheld--;
			return;
		}
	}
}

DMAMAP_API unsigned long dmamap_local_irq_save_at(const char *how, const char *file, int line)
{
	struct dm_atomic *a = &atomic_now;
	unsigned long flags = a->irqs_off ? DMAMAP_IRQFLAGS_OFF : 0;

	if (!a->irqs_off) {
		a->irqs_off = true;
		a->irq_how = how;
		a->irq_file = file;
		a->irq_line = line;
	}
	return flags;
}

DMAMAP_API void dmamap_local_irq_restore(unsigned long flags)
{
	atomic_now.irqs_off = (flags & DMAMAP_IRQFLAGS_OFF) != 0;
}

DMAMAP_API bool dmamap_irqs_disabled(void)
{
	return atomic_now.irqs_off;
}

DMAMAP_API bool dmamap_in_atomic(void)
{
	return atomic_now.spins > 0;
}

DMAMAP_API void dmamap_irqs_assert_at(bool off, const char *file, int line)
{
	if (atomic_now.irqs_off == off)
		return;
	dmamap_report(report_machine(), DMAMAP_REPORT_LOCK_MISUSE, NULL, file, line,
		      "lockdep_assert_irqs_%s() failed: interrupts are %s", off ? "disabled" : "enabled",
		      off ? "on" : "off");
}

/* The report of a call that may sleep made where it may not (CONFIG_DEBUG_ATOMIC_SLEEP's). */
void dm_might_sleep(struct dmamap_machine *m, const char *what, const char *file, int line)
{
	const struct dm_atomic *a = &atomic_now;
	char held[300] = "", irqs[200] = "";

	if ((!a->spins && !a->irqs_off) || dm_in_call())
		return;
	if (a->spins && a->nheld) {
		const struct held *h = &a->held[a->nheld - 1];
		char at[200] = "";

		if (h->file)
			snprintf(at, sizeof(at), " at %s:%d", h->file, h->line);
		snprintf(held, sizeof(held), " with %u spinlock%s held, the last taken by %s()%s", a->spins,
			 a->spins == 1 ? "" : "s", h->how, at);
	} else if (a->spins) {
		snprintf(held, sizeof(held), " with %u spinlock%s held", a->spins, a->spins == 1 ? "" : "s");
	}
	if (a->irqs_off) {
		if (a->irq_file)
			snprintf(irqs, sizeof(irqs), "%s interrupts off since %s() at %s:%d", a->spins ? ";" : " with",
				 a->irq_how, a->irq_file, a->irq_line);
		else
			snprintf(irqs, sizeof(irqs), "%s interrupts off", a->spins ? ";" : " with");
	}
	dmamap_report(m ? m : report_machine(), DMAMAP_REPORT_SLEEP_IN_ATOMIC, NULL, file, line,
		      "BUG: sleeping function called from invalid context: %s()%s%s", what, held, irqs);
}

DMAMAP_API void dmamap_might_sleep_at(const char *what, const char *file, int line)
{
	dm_might_sleep(NULL, what ? what : "might_sleep", file, line);
}

/* ---------------------------------------------------------------- locks */

DMAMAP_API void dmamap_lock_init(struct dmamap_lock *lk, unsigned int kind, const char *name)
{
	if (!lock_ok(lk, kind == DMAMAP_LOCK_MUTEX ? "mutex_init" : "spin_lock_init", NULL, 0))
		return;
	pthread_mutex_init(&lk->guard, NULL);
	pthread_cond_init(&lk->released, NULL);
	lk->magic = DMAMAP_LOCK_MAGIC;
	lk->kind = kind;
	lk->name = name;
	lk->held = 0;
	lk->owner = NULL;
	lk->file = NULL;
	lk->line = 0;
}

/* What the guard saw; reported once it is let go. */
enum verdict {
	V_OK = 0,
	V_UNINIT,      /* never initialised: now it is */
	V_DESTROYED,   /* used after mutex_destroy(): live again */
};

/* Check the lock's magic (guard held): a lock of zeroed memory works once said. */
static enum verdict magic_check(struct dmamap_lock *lk, unsigned int kind)
{
	enum verdict v;

	if (lk->magic == DMAMAP_LOCK_MAGIC)
		return V_OK;
	v = lk->magic == DMAMAP_LOCK_DEAD ? V_DESTROYED : V_UNINIT;
	lk->magic = DMAMAP_LOCK_MAGIC;
	if (v == V_UNINIT) {
		lk->kind = kind;
		lk->held = 0;
		lk->owner = NULL;
		lk->file = NULL;
	}
	return v;
}

static void magic_report(struct dmamap_lock *lk, unsigned int kind, enum verdict v, const char *how,
			 const char *file, int line)
{
	bool mutex = kind == DMAMAP_LOCK_MUTEX;
	char n[160];

	if (v == V_UNINIT)
		dmamap_report(report_machine(), DMAMAP_REPORT_LOCK_MISUSE, NULL, file, line,
			      "%s(%s): the %s was never initialised (%s or %s missing); initialised now", how,
			      lock_name(lk, n, sizeof(n)), mutex ? "mutex" : "spinlock",
			      mutex ? "mutex_init()" : "spin_lock_init()", mutex ? "DEFINE_MUTEX()" : "DEFINE_SPINLOCK()");
	else if (v == V_DESTROYED)
		dmamap_report(report_machine(), DMAMAP_REPORT_LOCK_MISUSE, NULL, file, line,
			      "%s(%s): the mutex was destroyed by mutex_destroy(); used all the same", how,
			      lock_name(lk, n, sizeof(n)));
}

enum take_result { TAKEN, BUSY, RECURSION };

/* Take @lk for this thread; wait for it when @wait. Where it was taken goes in @at_file/@at_line on RECURSION. */
static enum take_result take(struct dmamap_lock *lk, unsigned int kind, bool wait, const char *how, const char *file,
			     int line, const char **at_file, int *at_line)
{
	enum take_result r = TAKEN;
	enum verdict v;

	pthread_mutex_lock(&lk->guard);
	v = magic_check(lk, kind);
	if (lk->held && lk->owner == self()) {
		r = RECURSION;
		*at_file = lk->file;
		*at_line = lk->line;
	} else if (lk->held && !wait) {
		r = BUSY;
	} else {
		while (lk->held)
			pthread_cond_wait(&lk->released, &lk->guard);
		lk->held = 1;
		lk->owner = self();
		lk->file = file;
		lk->line = line;
	}
	pthread_mutex_unlock(&lk->guard);
	magic_report(lk, kind, v, how, file, line);
	return r;
}

enum release_result { RELEASED, RELEASED_FOREIGN, NOT_HELD, REFUSED_FOREIGN };

/* Let go of @lk; one held by another thread only when @foreign_ok. Where it was taken in @at_file/@at_line. */
static enum release_result release(struct dmamap_lock *lk, unsigned int kind, bool foreign_ok, const char *how,
				   const char *file, int line, const char **at_file, int *at_line)
{
	enum release_result r;
	enum verdict v;

	pthread_mutex_lock(&lk->guard);
	v = magic_check(lk, kind);
	*at_file = lk->file;
	*at_line = lk->line;
	if (!lk->held) {
		r = NOT_HELD;
	} else if (lk->owner != self() && !foreign_ok) {
		r = REFUSED_FOREIGN;
	} else {
		r = lk->owner == self() ? RELEASED : RELEASED_FOREIGN;
		lk->held = 0;
		lk->owner = NULL;
		lk->file = NULL;
		lk->line = 0;
		pthread_cond_signal(&lk->released);
	}
	pthread_mutex_unlock(&lk->guard);
	magic_report(lk, kind, v, how, file, line);
	return r;
}

static void report_recursion(struct dmamap_lock *lk, const char *how, const char *file, int line,
			     const char *at_file, int at_line)
{
	char n[160], t[160];

	dmamap_report(report_machine(), DMAMAP_REPORT_LOCK_MISUSE, NULL, file, line,
		      "%s(%s): this thread already holds it%s: recursion, a deadlock on a kernel; not taken again", how,
		      lock_name(lk, n, sizeof(n)), taken_at(at_file, at_line, t, sizeof(t)));
}

static void report_release(struct dmamap_lock *lk, enum release_result r, const char *how, const char *file, int line,
			   const char *at_file, int at_line)
{
	const char *what = strncmp(how, "mutex", 5) ? "spinlock" : "mutex";
	char n[160], t[160];

	if (r == NOT_HELD)
		dmamap_report(report_machine(), DMAMAP_REPORT_LOCK_MISUSE, NULL, file, line,
			      "%s(%s): the %s is not held; nothing done", how, lock_name(lk, n, sizeof(n)), what);
	else if (r == REFUSED_FOREIGN)
		dmamap_report(report_machine(), DMAMAP_REPORT_LOCK_MISUSE, NULL, file, line,
			      "%s(%s): the %s is held by another thread%s; refused, it stays that thread's", how,
			      lock_name(lk, n, sizeof(n)), what, taken_at(at_file, at_line, t, sizeof(t)));
	else if (r == RELEASED_FOREIGN)
		dmamap_report(report_machine(), DMAMAP_REPORT_LOCK_MISUSE, NULL, file, line,
			      "%s(%s): the %s was locked by another thread%s; unlocked all the same, as the kernel does",
			      how, lock_name(lk, n, sizeof(n)), what, taken_at(at_file, at_line, t, sizeof(t)));
}

static const char *const spin_how[] = {
	[DMAMAP_SPIN_PLAIN] = "spin_lock",
	[DMAMAP_SPIN_BH] = "spin_lock_bh",
	[DMAMAP_SPIN_IRQ] = "spin_lock_irq",
	[DMAMAP_SPIN_IRQSAVE] = "spin_lock_irqsave",
};
static const char *const spin_unlock_how[] = {
	[DMAMAP_SPIN_PLAIN] = "spin_unlock",
	[DMAMAP_SPIN_BH] = "spin_unlock_bh",
	[DMAMAP_SPIN_IRQ] = "spin_unlock_irq",
	[DMAMAP_SPIN_IRQSAVE] = "spin_unlock_irqrestore",
};
static const char *const spin_trylock_how[] = {
	[DMAMAP_SPIN_PLAIN] = "spin_trylock",
	[DMAMAP_SPIN_BH] = "spin_trylock_bh",
	[DMAMAP_SPIN_IRQ] = "spin_trylock_irq",
	[DMAMAP_SPIN_IRQSAVE] = "spin_trylock_irqsave",
};

static int spin_mode(int mode)
{
	return mode >= DMAMAP_SPIN_PLAIN && mode <= DMAMAP_SPIN_IRQSAVE ? mode : DMAMAP_SPIN_PLAIN;
}

DMAMAP_API unsigned long dmamap_spin_lock_at(struct dmamap_lock *lk, int mode, const char *file, int line)
{
	const char *how = spin_how[spin_mode(mode)];
	unsigned long flags = 0;
	const char *at_file = NULL;
	int at_line = 0;

	if (!lock_ok(lk, how, file, line))
		return 0;
	mode = spin_mode(mode);
	if (mode == DMAMAP_SPIN_IRQ || mode == DMAMAP_SPIN_IRQSAVE)
		flags = dmamap_local_irq_save_at(how, file, line);
	if (take(lk, DMAMAP_LOCK_SPIN, true, how, file, line, &at_file, &at_line) == RECURSION)
		report_recursion(lk, how, file, line, at_file, at_line);
	else
		held_push(lk, how, file, line);
	return mode == DMAMAP_SPIN_IRQSAVE ? flags : 0;
}

DMAMAP_API int dmamap_spin_trylock_at(struct dmamap_lock *lk, int mode, unsigned long *flags, const char *file,
				      int line)
{
	const char *how = spin_trylock_how[spin_mode(mode)];
	unsigned long saved = 0;
	const char *at_file = NULL;
	int at_line = 0;

	if (!lock_ok(lk, how, file, line))
		return 0;
	mode = spin_mode(mode);
	if (mode == DMAMAP_SPIN_IRQ || mode == DMAMAP_SPIN_IRQSAVE)
		saved = dmamap_local_irq_save_at(how, file, line);
	if (flags)
		*flags = saved;
	if (take(lk, DMAMAP_LOCK_SPIN, false, how, file, line, &at_file, &at_line) == TAKEN) {
		held_push(lk, how, file, line);
		return 1;
	}
	if (mode == DMAMAP_SPIN_IRQ || mode == DMAMAP_SPIN_IRQSAVE)
		dmamap_local_irq_restore(saved);
	return 0;
}

DMAMAP_API void dmamap_spin_unlock_at(struct dmamap_lock *lk, int mode, unsigned long flags, const char *file,
				      int line)
{
	const char *how = spin_unlock_how[spin_mode(mode)];
	const char *at_file = NULL;
	int at_line = 0;
	enum release_result r;

	if (!lock_ok(lk, how, file, line))
		return;
	mode = spin_mode(mode);
	r = release(lk, DMAMAP_LOCK_SPIN, false, how, file, line, &at_file, &at_line);
	if (r != RELEASED) {
		report_release(lk, r, how, file, line, at_file, at_line);
		return;
	}
	held_pop(lk);
	if (mode == DMAMAP_SPIN_IRQ)
		dmamap_local_irq_restore(0);
	else if (mode == DMAMAP_SPIN_IRQSAVE)
		dmamap_local_irq_restore(flags);
}

DMAMAP_API void dmamap_mutex_lock_at(struct dmamap_lock *lk, const char *file, int line)
{
	const char *at_file = NULL;
	int at_line = 0;

	if (!lock_ok(lk, "mutex_lock", file, line))
		return;
	dm_might_sleep(NULL, "mutex_lock", file, line);
	if (take(lk, DMAMAP_LOCK_MUTEX, true, "mutex_lock", file, line, &at_file, &at_line) == RECURSION)
		report_recursion(lk, "mutex_lock", file, line, at_file, at_line);
}

DMAMAP_API int dmamap_mutex_trylock_at(struct dmamap_lock *lk, const char *file, int line)
{
	const char *at_file = NULL;
	int at_line = 0;

	if (!lock_ok(lk, "mutex_trylock", file, line))
		return 0;
	return take(lk, DMAMAP_LOCK_MUTEX, false, "mutex_trylock", file, line, &at_file, &at_line) == TAKEN;
}

DMAMAP_API void dmamap_mutex_unlock_at(struct dmamap_lock *lk, const char *file, int line)
{
	const char *at_file = NULL;
	int at_line = 0;
	enum release_result r;

	if (!lock_ok(lk, "mutex_unlock", file, line))
		return;
	r = release(lk, DMAMAP_LOCK_MUTEX, true, "mutex_unlock", file, line, &at_file, &at_line);
	if (r != RELEASED)
		report_release(lk, r, "mutex_unlock", file, line, at_file, at_line);
}

DMAMAP_API void dmamap_mutex_destroy_at(struct dmamap_lock *lk, const char *file, int line)
{
	const char *at_file;
	int at_line;
	bool held;
	char n[160], t[160];

	if (!lock_ok(lk, "mutex_destroy", file, line))
		return;
	pthread_mutex_lock(&lk->guard);
	held = lk->held;
	at_file = lk->file;
	at_line = lk->line;
	if (!held)
		lk->magic = DMAMAP_LOCK_DEAD;
	pthread_mutex_unlock(&lk->guard);
	if (held)
		dmamap_report(report_machine(), DMAMAP_REPORT_LOCK_MISUSE, NULL, file, line,
			      "mutex_destroy(%s): the mutex is held%s", lock_name(lk, n, sizeof(n)),
			      taken_at(at_file, at_line, t, sizeof(t)));
}

DMAMAP_API bool dmamap_lock_is_locked(struct dmamap_lock *lk)
{
	bool held;

	if (!lk)
		return false;
	pthread_mutex_lock(&lk->guard);
	held = lk->held;
	pthread_mutex_unlock(&lk->guard);
	return held;
}

DMAMAP_API void dmamap_lock_assert_at(struct dmamap_lock *lk, int what, const char *file, int line)
{
	static const char *const how[] = {
		[DMAMAP_ASSERT_LOCKED] = "assert_spin_locked",
		[DMAMAP_ASSERT_HELD] = "lockdep_assert_held",
		[DMAMAP_ASSERT_NOT_HELD] = "lockdep_assert_not_held",
	};
	const char *at_file;
	int at_line;
	bool held, mine, ok;
	char n[160], t[160];

	if (what < DMAMAP_ASSERT_LOCKED || what > DMAMAP_ASSERT_NOT_HELD)
		what = DMAMAP_ASSERT_HELD;
	if (!lock_ok(lk, how[what], file, line))
		return;
	pthread_mutex_lock(&lk->guard);
	held = lk->held;
	mine = held && lk->owner == self();
	at_file = lk->file;
	at_line = lk->line;
	pthread_mutex_unlock(&lk->guard);
	ok = what == DMAMAP_ASSERT_LOCKED ? held : what == DMAMAP_ASSERT_HELD ? mine : !mine;
	if (ok)
		return;
	dmamap_report(report_machine(), DMAMAP_REPORT_LOCK_MISUSE, NULL, file, line, "%s(%s) failed: %s%s", how[what],
		      lock_name(lk, n, sizeof(n)),
		      !held ? "nobody holds it" : mine ? "this thread holds it" : "another thread holds it",
		      held ? taken_at(at_file, at_line, t, sizeof(t)) : "");
}

/* ---------------------------------------------------------- completions */

#define NSEC_PER_JIFFY (1000000000ll / DMAMAP_HZ)

/* The monotonic clock in ns, as mono_ns() reads it (clock.c comes after this module). */
static s64 mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (s64)ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

DMAMAP_API void dmamap_completion_init(struct dmamap_completion *c)
{
	if (!c) {
		dmamap_report(report_machine(), DMAMAP_REPORT_BAD_INPUT, NULL, NULL, 0, "init_completion: NULL completion");
		return;
	}
	pthread_mutex_init(&c->guard, NULL);
	pthread_cond_init(&c->wake, NULL);
	c->done = 0;
}

DMAMAP_API void dmamap_completion_reinit(struct dmamap_completion *c)
{
	pthread_mutex_lock(&c->guard);
	c->done = 0;
	pthread_mutex_unlock(&c->guard);
}

DMAMAP_API void dmamap_complete(struct dmamap_completion *c)
{
	pthread_mutex_lock(&c->guard);
	if (c->done != UINT_MAX)
		c->done++;
	/* every waiter rechecks: one consumes it, the others sleep again */
	pthread_cond_broadcast(&c->wake);
	pthread_mutex_unlock(&c->guard);
}

DMAMAP_API void dmamap_complete_all(struct dmamap_completion *c)
{
	pthread_mutex_lock(&c->guard);
	c->done = UINT_MAX;
	pthread_cond_broadcast(&c->wake);
	pthread_mutex_unlock(&c->guard);
}

/* Sleep on @c (guard held) until @end on the monotonic clock; the condition variable counts in real time. */
static void wait_until(struct dmamap_completion *c, s64 end)
{
	struct timespec now, abs;
	s64 left = end - mono_ns(), ns;

	if (left <= 0)
		return;
	clock_gettime(CLOCK_REALTIME, &now);
	ns = (s64)now.tv_nsec + left % 1000000000ll;
	abs.tv_sec = now.tv_sec + (time_t)(left / 1000000000ll) + (time_t)(ns / 1000000000ll);
	abs.tv_nsec = (long)(ns % 1000000000ll);
	pthread_cond_timedwait(&c->wake, &c->guard, &abs);
}

DMAMAP_API unsigned long dmamap_completion_wait_at(struct dmamap_completion *c, unsigned long timeout,
						   const char *how, const char *file, int line)
{
	bool forever = timeout >= (unsigned long)LONG_MAX;
	s64 end = 0, left;
	unsigned long ret;

	dm_might_sleep(NULL, how ? how : "wait_for_completion", file, line);
	if (!forever)
		end = mono_ns() +
		      (timeout > (unsigned long)(INT64_MAX / 4 / NSEC_PER_JIFFY) ? INT64_MAX / 4
										: (s64)timeout * NSEC_PER_JIFFY);
	pthread_mutex_lock(&c->guard);
	while (!c->done) {
		if (forever) {
			pthread_cond_wait(&c->wake, &c->guard);
			continue;
		}
		if (mono_ns() >= end)
			break;
		wait_until(c, end);
	}
	if (!c->done) {
		pthread_mutex_unlock(&c->guard);
		return 0;
	}
	if (c->done != UINT_MAX)
		c->done--;
	pthread_mutex_unlock(&c->guard);
	if (forever)
		return (unsigned long)LONG_MAX;
	left = end - mono_ns();
	ret = left > 0 ? (unsigned long)((left + NSEC_PER_JIFFY - 1) / NSEC_PER_JIFFY) : 0;
	return ret ? ret : 1;
}

DMAMAP_API bool dmamap_completion_try_wait(struct dmamap_completion *c)
{
	bool got;

	pthread_mutex_lock(&c->guard);
	got = c->done != 0;
	if (c->done && c->done != UINT_MAX)
		c->done--;
	pthread_mutex_unlock(&c->guard);
	return got;
}

DMAMAP_API bool dmamap_completion_done(struct dmamap_completion *c)
{
	bool done;

	pthread_mutex_lock(&c->guard);
	done = c->done != 0;
	pthread_mutex_unlock(&c->guard);
	return done;
}
