/* SPDX-License-Identifier: MIT */
/*
 * The kernel's locks and completions over POSIX threads: what
 * <linux/spinlock.h>, <linux/mutex.h>, <linux/lockdep.h>,
 * <linux/irqflags.h> and <linux/completion.h> of the Linux 6.x headers are
 * made of. A test's threads play the CPUs and the interrupt handlers; the
 * locks exclude each other across them as the kernel's do.
 *
 * A lock (struct dmamap_lock) is a host mutex guarding its state and a
 * condition variable its waiters sleep on; it remembers the thread holding
 * it and the file:line where it was taken. The library checks what the
 * kernel's lock debugging checks (CONFIG_DEBUG_SPINLOCK, CONFIG_DEBUG_MUTEXES,
 * lockdep's assertions) and reports each breach as
 * DMAMAP_REPORT_LOCK_MISUSE, on the current machine (or process-wide when
 * there is none), naming the call's file:line and where the lock was taken:
 *
 *  - a lock used before spin_lock_init(), mutex_init() or DEFINE_*()
 *    (reported once, then the lock works), a mutex used after
 *    mutex_destroy(), mutex_destroy() of a held mutex;
 *  - an unlock of a lock that is not held: nothing is done;
 *  - spin_unlock() by a thread that does not hold the spinlock: refused, the
 *    lock stays its holder's; mutex_unlock() by another thread than the one
 *    that locked it: unlocked all the same, as the kernel's mutex does after
 *    its warning;
 *  - spin_lock() or mutex_lock() of a lock the thread already holds: the
 *    kernel deadlocks there; here the call returns without taking it again;
 *  - a failed assert_spin_locked(), lockdep_assert_held(),
 *    lockdep_assert_not_held(), lockdep_assert_irqs_disabled() or
 *    lockdep_assert_irqs_enabled().
 *
 * Each thread also keeps its own atomic context: the spinlocks it holds
 * (with where each was taken) and whether it has interrupts off
 * (spin_lock_irqsave(), local_irq_save()...). The interrupt state is the
 * thread's own, as a CPU's is: it excludes nothing, and only tells what the
 * thread may do. A call that may sleep made in atomic context is reported
 * (see dmamap_might_sleep_at()).
 */
#ifndef DMAMAP_LOCKING_H
#define DMAMAP_LOCKING_H

#include <pthread.h>

#include <dmamap/types.h>

DMAMAP_BEGIN_DECLS

/* What a struct dmamap_lock is. */
#define DMAMAP_LOCK_SPIN 1u  /* spinlock_t, raw_spinlock_t: holding one makes the thread atomic */
#define DMAMAP_LOCK_MUTEX 2u /* struct mutex: its holder may sleep */

/* The magic of a lock initialised (statically or by dmamap_lock_init()), and of a destroyed mutex. */
#define DMAMAP_LOCK_MAGIC 0x6c6f636bu
#define DMAMAP_LOCK_DEAD 0x64656164u

/* One kernel lock. Only the library's calls touch its fields. */
struct dmamap_lock {
	pthread_mutex_t guard;   /* guards the fields below */
	pthread_cond_t released; /* signalled when the lock is let go */
	unsigned int magic;      /* DMAMAP_LOCK_MAGIC once initialised; 0 in memory never initialised */
	unsigned int kind;       /* DMAMAP_LOCK_SPIN or DMAMAP_LOCK_MUTEX */
	const char *name;        /* the lock's expression at its initialisation ("priv->lock"), or NULL */
	unsigned int held;       /* 1 while taken */
	const void *owner;       /* the holding thread, NULL when free */
	const char *file;        /* where it was taken, or NULL */
	int line;
};

/* A lock of @kind named @name, unlocked: the static initialiser of DEFINE_SPINLOCK() and DEFINE_MUTEX(). */
#define DMAMAP_LOCK_INITIALIZER(kind, name) \
	{ PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, DMAMAP_LOCK_MAGIC, (kind), (name), 0, NULL, NULL, 0 }

/* How a spinlock call treats interrupts: spin_lock(), spin_lock_bh(), spin_lock_irq(), spin_lock_irqsave(). */
enum dmamap_spin_mode {
	DMAMAP_SPIN_PLAIN = 0,
	DMAMAP_SPIN_BH,
	DMAMAP_SPIN_IRQ,
	DMAMAP_SPIN_IRQSAVE,
};

/* The bit of a saved interrupt state (local_irq_save()'s flags) that says interrupts were off: ARM's PSR I bit. */
#define DMAMAP_IRQFLAGS_OFF 0x80ul

/**
 * dmamap_lock_init() - initialise @lk, unlocked: spin_lock_init(), mutex_init()
 * @lk: caller-owned lock storage (in any memory); NULL is reported as
 *      DMAMAP_REPORT_BAD_INPUT
 * @kind: DMAMAP_LOCK_SPIN or DMAMAP_LOCK_MUTEX
 * @name: the lock's name for reports (a string that outlives the lock), or NULL
 *
 * The lock must not be held or waited on: its state is made afresh. A lock
 * needs no teardown (the kernel's have none; mutex_destroy() only marks it).
 */
DMAMAP_API void dmamap_lock_init(struct dmamap_lock *lk, unsigned int kind, const char *name);

/**
 * dmamap_spin_lock_at() - take the spinlock @lk at @file:@line: spin_lock() and its _bh, _irq, _irqsave forms
 * @lk: the lock
 * @mode: an enum dmamap_spin_mode: _irq and _irqsave turn the thread's
 *        interrupts off before taking the lock
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 *
 * Waits while another thread holds the lock. The thread then holds it and is
 * atomic until it lets it go. A lock the thread already holds is reported
 * (DMAMAP_REPORT_LOCK_MISUSE: the kernel would spin forever) and not taken
 * again.
 * Return: for DMAMAP_SPIN_IRQSAVE, the thread's interrupt state before the
 * call, for the matching unlock; 0 otherwise.
 */
DMAMAP_API unsigned long dmamap_spin_lock_at(struct dmamap_lock *lk, int mode, const char *file, int line);

/**
 * dmamap_spin_trylock_at() - take the spinlock @lk if it is free: spin_trylock() and its forms
 * @lk: the lock
 * @mode: an enum dmamap_spin_mode
 * @flags: for DMAMAP_SPIN_IRQSAVE, receives the interrupt state to restore
 *         (set whether or not the lock was taken, as the kernel's); else NULL
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 *
 * Never waits. When the lock is not taken, the interrupt state is left as it
 * was before the call.
 * Return: 1 when the thread now holds the lock, 0 when it is held (by
 * another thread or by this one: a trylock of one's own lock fails, as on
 * a kernel).
 */
DMAMAP_API int dmamap_spin_trylock_at(struct dmamap_lock *lk, int mode, unsigned long *flags, const char *file,
				      int line);

/**
 * dmamap_spin_unlock_at() - let go of the spinlock @lk: spin_unlock() and its forms
 * @lk: the lock
 * @mode: an enum dmamap_spin_mode: _irq turns the thread's interrupts on,
 *        _irqrestore puts back @flags
 * @flags: for DMAMAP_SPIN_IRQSAVE, what the lock call returned; else ignored
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 *
 * A lock that is not held is reported and nothing changes (not even the
 * interrupt state); a lock another thread holds is reported and stays that
 * thread's.
 */
DMAMAP_API void dmamap_spin_unlock_at(struct dmamap_lock *lk, int mode, unsigned long flags, const char *file,
				      int line);

/**
 * dmamap_mutex_lock_at() - take the mutex @lk at @file:@line: mutex_lock()
 * @lk: the lock
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 *
 * Sleeps while another thread holds it. A mutex the thread already holds is
 * reported (DMAMAP_REPORT_LOCK_MISUSE: a deadlock on a kernel) and not
 * taken again. A call made in atomic context is reported as
 * dmamap_might_sleep_at() says, then waits all the same.
 */
DMAMAP_API void dmamap_mutex_lock_at(struct dmamap_lock *lk, const char *file, int line);

/**
 * dmamap_mutex_trylock_at() - take the mutex @lk if it is free: mutex_trylock()
 * @lk: the lock
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 *
 * Return: 1 when the thread now holds it, 0 when it is held (never waits).
 */
DMAMAP_API int dmamap_mutex_trylock_at(struct dmamap_lock *lk, const char *file, int line);

/**
 * dmamap_mutex_unlock_at() - let go of the mutex @lk: mutex_unlock()
 * @lk: the lock
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 *
 * A mutex that is not held is reported and nothing changes; one that another
 * thread locked is reported and unlocked all the same, as the kernel does.
 */
DMAMAP_API void dmamap_mutex_unlock_at(struct dmamap_lock *lk, const char *file, int line);

/**
 * dmamap_mutex_destroy_at() - mutex_destroy(): the mutex @lk will not be used again
 * @lk: the lock
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 *
 * A held mutex is reported. Nothing is freed (the storage is the caller's);
 * a later use of the mutex, until it is initialised again, is reported once.
 */
DMAMAP_API void dmamap_mutex_destroy_at(struct dmamap_lock *lk, const char *file, int line);

/**
 * dmamap_lock_is_locked() - whether some thread holds @lk: spin_is_locked(), mutex_is_locked()
 * @lk: the lock
 *
 * Return: true while any thread holds it (a snapshot: it may change at once).
 */
DMAMAP_API bool dmamap_lock_is_locked(struct dmamap_lock *lk);

/* What dmamap_lock_assert_at() asserts. */
enum dmamap_lock_assert {
	DMAMAP_ASSERT_LOCKED = 0, /* some thread holds it: assert_spin_locked() */
	DMAMAP_ASSERT_HELD,       /* this thread holds it: lockdep_assert_held() */
	DMAMAP_ASSERT_NOT_HELD,   /* this thread does not hold it: lockdep_assert_not_held() */
};

/**
 * dmamap_lock_assert_at() - check what the caller believes of @lk; report it when false
 * @lk: the lock
 * @what: an enum dmamap_lock_assert
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 *
 * A false assertion is reported as DMAMAP_REPORT_LOCK_MISUSE (the kernel
 * warns); nothing else happens.
 */
DMAMAP_API void dmamap_lock_assert_at(struct dmamap_lock *lk, int what, const char *file, int line);

/**
 * dmamap_local_irq_save_at() - turn the thread's interrupts off: local_irq_save(), local_irq_disable()
 * @how: the kernel call, for reports ("local_irq_save"...)
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 *
 * Return: the interrupt state before the call (DMAMAP_IRQFLAGS_OFF set when
 * they were off already), for dmamap_local_irq_restore().
 */
DMAMAP_API unsigned long dmamap_local_irq_save_at(const char *how, const char *file, int line);

/**
 * dmamap_local_irq_restore() - put back the thread's interrupt state @flags: local_irq_restore()
 * @flags: what dmamap_local_irq_save_at() returned; 0 turns interrupts on
 *         (local_irq_enable())
 */
DMAMAP_API void dmamap_local_irq_restore(unsigned long flags);

/**
 * dmamap_irqs_disabled() - whether the calling thread has its interrupts off: irqs_disabled()
 *
 * Return: true between local_irq_save() (or spin_lock_irqsave()...) and the
 * matching restore.
 */
DMAMAP_API bool dmamap_irqs_disabled(void);

/**
 * dmamap_irqs_assert_at() - lockdep_assert_irqs_disabled() and lockdep_assert_irqs_enabled()
 * @off: true to assert that the thread's interrupts are off, false that they are on
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 *
 * A false assertion is reported as DMAMAP_REPORT_LOCK_MISUSE.
 */
DMAMAP_API void dmamap_irqs_assert_at(bool off, const char *file, int line);

/**
 * dmamap_in_atomic() - whether the calling thread may not sleep: in_atomic()
 *
 * Return: true while it holds a spinlock.
 */
DMAMAP_API bool dmamap_in_atomic(void);

/**
 * dmamap_might_sleep_at() - might_sleep(): the caller may sleep here
 * @what: the call, for the report ("might_sleep", "read_poll_timeout"...);
 *        NULL for "might_sleep"
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 *
 * When the calling thread holds a spinlock or has its interrupts off, this
 * is reported as DMAMAP_REPORT_SLEEP_IN_ATOMIC ("BUG: sleeping function
 * called from invalid context", as the kernel's CONFIG_DEBUG_ATOMIC_SLEEP
 * says), at @file:@line, naming the last spinlock taken and where, on the
 * current machine (process-wide when there is none). The library's calls
 * that may sleep check the same way: mutex_lock(), wait_for_completion()
 * and its forms, msleep(), usleep_range(), fsleep() beyond 10 us, the
 * sleeping polls of <linux/iopoll.h>, and every allocation whose gfp allows
 * blocking (GFP_KERNEL; GFP_ATOMIC never): kmalloc() and its family,
 * devm_kmalloc(), alloc_pages(), dma_alloc_coherent() and dma_alloc_attrs()
 * with their managed and 6.x forms, dma_pool_alloc(), sg_alloc_table(),
 * sgl_alloc(). Each such call is reported once, by its outermost entry; it
 * then goes on (and sleeps, if it must), as the kernel's does.
 */
DMAMAP_API void dmamap_might_sleep_at(const char *what, const char *file, int line);

/* A kernel completion: an event counted, and the threads waiting for it. */
struct dmamap_completion {
	pthread_mutex_t guard; /* guards @done */
	pthread_cond_t wake;   /* broadcast at each completion */
	unsigned int done;     /* completions not yet consumed; UINT_MAX after complete_all() */
};

/* A completion not yet completed: the static initialiser of DECLARE_COMPLETION(). */
#define DMAMAP_COMPLETION_INITIALIZER { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0 }

/**
 * dmamap_completion_init() - init_completion(): make @c afresh, not completed
 * @c: caller-owned storage; nobody may be waiting on it
 */
DMAMAP_API void dmamap_completion_init(struct dmamap_completion *c);

/**
 * dmamap_completion_reinit() - reinit_completion(): forget the completions not yet consumed
 * @c: the completion (waiters, if any, keep waiting)
 */
DMAMAP_API void dmamap_completion_reinit(struct dmamap_completion *c);

/**
 * dmamap_complete() - complete(): count one completion of @c and wake a waiter
 * @c: the completion
 *
 * One wait, of a thread waiting now or of the next to wait, returns for it.
 * Callable from any thread, holding any lock.
 */
DMAMAP_API void dmamap_complete(struct dmamap_completion *c);

/**
 * dmamap_complete_all() - complete_all(): complete @c for every wait, now and until reinit_completion()
 * @c: the completion
 */
DMAMAP_API void dmamap_complete_all(struct dmamap_completion *c);

/**
 * dmamap_completion_wait_at() - wait_for_completion() and its _timeout form
 * @c: the completion
 * @timeout: jiffies to wait at most (each DMAMAP_HZ-th of a second, counted
 *           on the host's clock from the call); LONG_MAX
 *           (MAX_SCHEDULE_TIMEOUT) or more waits for ever
 * @how: the kernel call, for reports ("wait_for_completion_timeout"...)
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 *
 * Sleeps until @c is completed and consumes one completion (none after
 * complete_all()). A call made in atomic context is reported as
 * dmamap_might_sleep_at() says, then waits all the same.
 * Return: 0 when @timeout jiffies passed first (nothing consumed);
 * otherwise the jiffies left of @timeout, at least 1, as the kernel's.
 */
DMAMAP_API unsigned long dmamap_completion_wait_at(struct dmamap_completion *c, unsigned long timeout,
						   const char *how, const char *file, int line);

/**
 * dmamap_completion_try_wait() - try_wait_for_completion(): consume a completion of @c if there is one
 * @c: the completion
 *
 * Return: true when one was consumed (or @c was completed for all), false
 * when there was none; never waits.
 */
DMAMAP_API bool dmamap_completion_try_wait(struct dmamap_completion *c);

/**
 * dmamap_completion_done() - completion_done(): whether a wait on @c would return at once
 * @c: the completion
 *
 * Return: true when a completion is there to consume.
 */
DMAMAP_API bool dmamap_completion_done(struct dmamap_completion *c);

DMAMAP_END_DECLS

#endif /* DMAMAP_LOCKING_H */
