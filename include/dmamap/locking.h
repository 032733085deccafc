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
 * Each thread also keeps its own atomic context: the locks it holds (with
 * where each was taken), whether it has interrupts off
 * (spin_lock_irqsave(), local_irq_save()...), whether it has bottom halves
 * off (local_bh_disable(), spin_lock_bh()) and whether it runs a tasklet
 * (softirq context, <dmamap/tasklet.h>). The interrupt state is the
 * thread's own, as a CPU's is: it excludes nothing, and only tells what the
 * thread may do. A call that may sleep made holding a spinlock, with
 * interrupts or bottom halves off, or in a tasklet is reported (see
 * dmamap_might_sleep_at()). A thread that has tasklets scheduled runs them
 * when it may (see <dmamap/tasklet.h>): at once if it may already, else
 * at the spin_unlock(), spin_unlock_bh(), local_bh_enable() or
 * local_irq_restore() after which it holds no spinlock and has interrupts
 * and bottom halves on again.
 *
 * A thread that ends (returns from its start routine or calls
 * pthread_exit()) holding a spinlock or a mutex is reported as
 * DMAMAP_REPORT_LOCK_MISUSE, the kernel's "exiting with locks still held",
 * naming each lock and where it was taken. The locks stay held, as they
 * would on a kernel: a thread that waits for one waits for ever. One that
 * ends with bottom halves off (a local_bh_disable() not undone) is
 * reported the same way; the tasklets a thread left scheduled run as it
 * ends (its CPU outlives it). The end of
 * the process (exit(), a return from main()) is not checked. Locks belong to
 * no machine: destroying a machine checks none of them.
 *
 * Lock order (the kernel's lockdep, CONFIG_PROVE_LOCKING). Every lock has a
 * *class*: the locks one spin_lock_init() or mutex_init() call site
 * initialises (its file:line, with the lock's name) are one class, a lock
 * that DEFINE_SPINLOCK() or DEFINE_MUTEX() defines is a class of its own
 * (keyed by its definition), and lockdep_set_class() puts a lock in the
 * class of a key. When a thread takes a lock, waiting for it if need be,
 * while it holds others, the class of the lock taken is recorded as
 * depending on the class of the lock it took last (and of the trylocked
 * ones taken after that one): an edge A -> B of a graph of classes that
 * lives as long as the process, whatever the threads. An acquisition that
 * would close a cycle in that graph -- B taken holding A when A was once
 * taken holding B, or a longer chain A -> B -> C then C -> A -- is
 * reported as DMAMAP_REPORT_LOCK_ORDER ("possible circular locking
 * dependency detected") before the thread waits for the lock, though the
 * run may never deadlock: the report, at the acquisition's file:line, names
 * the lock taken, the lock held and where it was taken, and each step of
 * the earlier order with the file:line where it was recorded. Taking a lock
 * while holding another of its class is "possible recursive locking",
 * reported the same way, unless the inner one is taken with
 * spin_lock_nested() or mutex_lock_nested() and another subclass (0 to
 * DMAMAP_LOCK_SUBCLASSES - 1): each subclass of a class is a class of its
 * own. Each dependency is reported once, an acquisition at most once. A
 * trylock waits for nothing: a successful one records no dependency on the
 * locks held, but the locks taken while it is held depend on it.
 *
 * The graph is bounded: DMAMAP_LOCKDEP_CLASSES classes (each with its
 * subclasses), DMAMAP_LOCKDEP_DEPENDENCIES dependencies, and
 * DMAMAP_LOCKDEP_DEPTH locks held by one thread at once. Past one of them,
 * lock order checking is turned off for the rest of the process, as the
 * kernel turns lockdep off, and a warning (a DMAMAP_LOG_WARN message, not a
 * report) says which limit was reached; every other check goes on.
 * dmamap_lockdep_enabled() tells whether it is on. A thread holding no lock
 * pays nothing for it; an acquisition under other locks looks the pairs up
 * in a hash under one host mutex, and walks the graph only for a pair never
 * seen before.
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
	pthread_mutex_t guard;   /* guards the fields below, up to @line */
	pthread_cond_t released; /* signalled when the lock is let go */
	unsigned int magic;      /* DMAMAP_LOCK_MAGIC once initialised; 0 in memory never initialised */
	unsigned int kind;       /* DMAMAP_LOCK_SPIN or DMAMAP_LOCK_MUTEX */
	const char *name;        /* the lock's expression at its initialisation ("priv->lock"), or NULL */
	unsigned int held;       /* 1 while taken */
	const void *owner;       /* the holding thread (the library's name for it), NULL when free */
	const char *file;        /* where it was taken, or NULL */
	int line;
	const char *init_file;   /* where it was initialised, or defined by DEFINE_*(); NULL: unknown */
	int init_line;
	unsigned int dep_class;  /* its lock class once known (0: not yet); set once, read without @guard */
	unsigned int dep_subclass; /* the subclass a plain lock call takes it as (lockdep_set_subclass()) */
};

/*
 * A lock of @kind named @name, unlocked: the static initialiser of
 * DEFINE_SPINLOCK() and DEFINE_MUTEX(). The line where it is expanded is
 * the lock's definition, which keys its lock class.
 */
#define DMAMAP_LOCK_INITIALIZER(kind, name)                                                                   \
	{ PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, DMAMAP_LOCK_MAGIC, (kind), (name), 0, NULL, NULL, 0, \
	  __FILE__, __LINE__, 0, 0 }

/* Subclasses of a lock class: the _nested calls take 0 to this minus 1 (the kernel's MAX_LOCKDEP_SUBCLASSES). */
#define DMAMAP_LOCK_SUBCLASSES 8u
/* Lock classes the lock order checker tells apart, dependencies it records, locks a thread may hold at once. */
#define DMAMAP_LOCKDEP_CLASSES 1023u
#define DMAMAP_LOCKDEP_DEPENDENCIES 8192u
#define DMAMAP_LOCKDEP_DEPTH 24u

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
 * dmamap_lock_init_at() - initialise @lk, unlocked, at @file:@line: spin_lock_init(), mutex_init()
 * @lk: caller-owned lock storage (in any memory); NULL is reported as
 *      DMAMAP_REPORT_BAD_INPUT
 * @kind: DMAMAP_LOCK_SPIN or DMAMAP_LOCK_MUTEX
 * @name: the lock's name for reports (a string that outlives the lock), or NULL
 * @file: the initialising call's source file (a string that lives as long
 *        as the process, as __FILE__ does), or NULL
 * @line: its source line
 *
 * The lock must not be held or waited on: its state is made afresh. A lock
 * needs no teardown (the kernel's have none; mutex_destroy() only marks it).
 * Its lock class, for lock order checking, is that of every lock
 * initialised at @file:@line with the same @name; with no @file, that of
 * the locks of the same @name initialised with no file; with neither, the
 * lock's order is not checked. When the class table is full, lock order
 * checking turns off (see the top of this header); the lock works all the
 * same.
 */
DMAMAP_API void dmamap_lock_init_at(struct dmamap_lock *lk, unsigned int kind, const char *name, const char *file,
				    int line);

/**
 * dmamap_lock_init() - dmamap_lock_init_at() with no file: initialise @lk, unlocked
 * @lk: caller-owned lock storage; NULL is reported as DMAMAP_REPORT_BAD_INPUT
 * @kind: DMAMAP_LOCK_SPIN or DMAMAP_LOCK_MUTEX
 * @name: the lock's name for reports and its lock class (a string that
 *        outlives the lock), or NULL: then its order is not checked
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
 * dmamap_spin_lock_nested_at() - take the spinlock @lk as @subclass of its class: spin_lock_nested() and its forms
 * @lk: the lock
 * @mode: an enum dmamap_spin_mode, as dmamap_spin_lock_at() takes
 * @subclass: its subclass for lock order checking, below
 *            DMAMAP_LOCK_SUBCLASSES (SINGLE_DEPTH_NESTING, 1, for a lock
 *            taken inside another of its class); a larger one is reported
 *            as DMAMAP_REPORT_LOCK_MISUSE and that acquisition's order is
 *            not checked
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 *
 * What dmamap_spin_lock_at() does, with the lock's order checked as a class
 * of its own: two locks of one class taken one inside the other on
 * purpose, the inner one as another subclass, are no recursive locking.
 * Return: what dmamap_spin_lock_at() returns.
 */
DMAMAP_API unsigned long dmamap_spin_lock_nested_at(struct dmamap_lock *lk, int mode, unsigned int subclass,
						    const char *file, int line);

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
 * dmamap_mutex_lock_nested_at() - take the mutex @lk as @subclass of its class: mutex_lock_nested()
 * @lk: the lock
 * @subclass: its subclass for lock order checking, below
 *            DMAMAP_LOCK_SUBCLASSES; a larger one is reported as
 *            DMAMAP_REPORT_LOCK_MISUSE and that acquisition's order is not
 *            checked
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 *
 * What dmamap_mutex_lock_at() does, with the lock's order checked as a
 * class of its own (see dmamap_spin_lock_nested_at()).
 */
DMAMAP_API void dmamap_mutex_lock_nested_at(struct dmamap_lock *lk, unsigned int subclass, const char *file,
					    int line);

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

/**
 * dmamap_lock_set_class() - put @lk in the lock class of @key: lockdep_set_class(), lockdep_set_subclass()
 * @lk: an initialised lock, held by no thread
 * @key: the class's key, an object whose address names it (a struct
 *       lock_class_key) and that lives as long as the process; NULL keeps
 *       the lock's class
 * @name: the class's name for reports (copied), or NULL for the lock's
 * @subclass: the subclass its plain lock calls take it as (the _nested
 *            calls name their own), below DMAMAP_LOCK_SUBCLASSES; a larger
 *            one is reported as DMAMAP_REPORT_LOCK_MISUSE and nothing changes
 *
 * Locks of one key are one class whatever their initialisation, as in the
 * kernel: a driver gives each kind of object its own key when one init
 * site serves several. A NULL @lk is reported as DMAMAP_REPORT_BAD_INPUT.
 * When the class table is full, lock order checking turns off.
 */
DMAMAP_API void dmamap_lock_set_class(struct dmamap_lock *lk, const void *key, const char *name,
				      unsigned int subclass);

/**
 * dmamap_lock_set_novalidate() - lockdep_set_novalidate_class(): never check the order of @lk
 * @lk: an initialised lock, held by no thread; NULL is reported as
 *      DMAMAP_REPORT_BAD_INPUT
 *
 * Its acquisitions record no dependency and are checked against none; every
 * other check of the lock goes on.
 */
DMAMAP_API void dmamap_lock_set_novalidate(struct dmamap_lock *lk);

/**
 * dmamap_lockdep_enabled() - whether lock order is checked
 *
 * Return: true until one of the checker's limits (DMAMAP_LOCKDEP_CLASSES,
 * DMAMAP_LOCKDEP_DEPENDENCIES, DMAMAP_LOCKDEP_DEPTH) is exceeded; then false
 * for the rest of the process.
 */
DMAMAP_API bool dmamap_lockdep_enabled(void);

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
 * dmamap_local_bh_disable_at() - turn the thread's bottom halves off: local_bh_disable()
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 *
 * Disables nest. Until the matching dmamap_local_bh_enable_at() the thread
 * is atomic (in_softirq(), in_interrupt() and in_atomic() are true, a call
 * that may sleep is reported) and runs no tasklet: one it schedules
 * meanwhile waits for the enable. Excludes no other thread.
 */
DMAMAP_API void dmamap_local_bh_disable_at(const char *file, int line);

/**
 * dmamap_local_bh_enable_at() - undo one dmamap_local_bh_disable_at(): local_bh_enable()
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 *
 * When this turns bottom halves on and the thread holds no spinlock and
 * has interrupts on, the tasklets it has scheduled run now, as the
 * kernel's local_bh_enable() runs the softirqs pending. An enable with
 * bottom halves on is reported as DMAMAP_REPORT_LOCK_MISUSE and changes
 * nothing.
 */
DMAMAP_API void dmamap_local_bh_enable_at(const char *file, int line);

/**
 * dmamap_in_softirq() - in_softirq(): the thread runs a tasklet or has bottom halves off
 *
 * Return: true while it runs a tasklet (<dmamap/tasklet.h>), or between
 * local_bh_disable() (or spin_lock_bh()) and the matching enable.
 */
DMAMAP_API bool dmamap_in_softirq(void);

/**
 * dmamap_in_serving_softirq() - in_serving_softirq(): the thread runs a tasklet
 *
 * Return: true while a tasklet's function runs in this thread.
 */
DMAMAP_API bool dmamap_in_serving_softirq(void);

/**
 * dmamap_in_atomic() - whether the calling thread may not sleep: in_atomic()
 *
 * Return: true while it holds a spinlock, runs an interrupt handler
 * (dmamap_irq_raise()) or a tasklet, or has bottom halves off.
 */
DMAMAP_API bool dmamap_in_atomic(void);

/**
 * dmamap_in_hardirq() - whether the calling thread runs an interrupt handler: in_hardirq(), in_interrupt()
 *
 * Return: true while dmamap_irq_raise() (or the enable_irq() that delivers
 * a pending interrupt) runs the handlers of a line in this thread
 * (<dmamap/irq.h>).
 */
DMAMAP_API bool dmamap_in_hardirq(void);

/**
 * dmamap_might_sleep_at() - might_sleep(): the caller may sleep here
 * @what: the call, for the report ("might_sleep", "read_poll_timeout"...);
 *        NULL for "might_sleep"
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 *
 * When the calling thread holds a spinlock, has its interrupts or bottom
 * halves off, or runs a tasklet, this is reported as DMAMAP_REPORT_SLEEP_IN_ATOMIC ("BUG: sleeping function
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

/* A kernel wait queue head: threads sleeping until a condition they test holds. */
struct dmamap_waitqueue {
	pthread_mutex_t guard; /* guards the fields below */
	pthread_cond_t wake;   /* broadcast at each wake-up */
	unsigned long wakes;   /* wake-ups so far: a sleeper sleeps until it changes */
	unsigned int sleepers; /* threads asleep on it now */
};

/* An empty wait queue: the static initialiser of DECLARE_WAIT_QUEUE_HEAD(). */
#define DMAMAP_WAITQUEUE_INITIALIZER { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0 }

/**
 * dmamap_waitqueue_init() - init_waitqueue_head(): make @wq afresh, empty
 * @wq: caller-owned storage; nobody may be asleep on it
 */
DMAMAP_API void dmamap_waitqueue_init(struct dmamap_waitqueue *wq);

/**
 * dmamap_wake_up() - wake_up() and its forms: wake every thread asleep on @wq
 * @wq: the queue
 *
 * Each sleeper then tests its condition again, as the kernel's waiters of
 * wait_event() (none of them exclusive) do. Callable from any thread,
 * holding any lock, from an interrupt handler.
 */
DMAMAP_API void dmamap_wake_up(struct dmamap_waitqueue *wq);

/**
 * dmamap_waitqueue_active() - waitqueue_active(): whether a thread sleeps on @wq now
 * @wq: the queue
 *
 * Racy by nature, as the kernel's: a sleeper may be about to come or go.
 */
DMAMAP_API bool dmamap_waitqueue_active(struct dmamap_waitqueue *wq);

/**
 * dmamap_waitqueue_ticket() - where @wq stands before a wait_event() tests its condition
 * @wq: the queue
 *
 * Return: the wake-ups of @wq so far; dmamap_waitqueue_sleep() sleeps until
 * there is another, so a wake-up between the test and the sleep is not lost.
 */
DMAMAP_API unsigned long dmamap_waitqueue_ticket(struct dmamap_waitqueue *wq);

/**
 * dmamap_wait_deadline() - the host's monotonic time @timeout jiffies from now, for a wait
 * @timeout: jiffies; MAX_SCHEDULE_TIMEOUT (LONG_MAX) or more waits for ever
 *
 * Return: the deadline in nanoseconds of CLOCK_MONOTONIC, or 0 for ever.
 */
DMAMAP_API s64 dmamap_wait_deadline(unsigned long timeout);

/**
 * dmamap_wait_left() - the jiffies left until @end (of dmamap_wait_deadline()), at least 1
 * @end: the deadline, 0 for ever (LONG_MAX is returned)
 */
DMAMAP_API long dmamap_wait_left(s64 end);

/**
 * dmamap_waitqueue_sleep() - one sleep of wait_event() and its forms
 * @wq: the queue
 * @ticket: dmamap_waitqueue_ticket() of @wq, taken before the condition was tested
 * @end: the deadline of dmamap_wait_deadline(), 0 for none
 *
 * Sleeps until @wq is woken after @ticket was taken (at once when it was
 * already), or until @end.
 * Return: false when @end passed first.
 */
DMAMAP_API bool dmamap_waitqueue_sleep(struct dmamap_waitqueue *wq, unsigned long ticket, s64 end);

/*
 * What the lock guards of <linux/cleanup.h> hold (guard(spinlock), guard(mutex)
 * and their forms): the lock (NULL when a _try form failed), how it was
 * taken and where, which its release at the scope's exit names too.
 */
struct dmamap_guard {
	struct dmamap_lock *lk;
	int mode;             /* an enum dmamap_spin_mode, or -1 for a mutex */
	unsigned long flags;  /* the interrupt state a _irqsave form restores */
	const char *file;     /* the guard's line */
	int line;
};

/* dmamap_guard_spin_at() - a spinlock guard: @lk taken as @mode at @file:@line (or tried, when @try_). */
static inline struct dmamap_guard dmamap_guard_spin_at(struct dmamap_lock *lk, int mode, bool try_, const char *file,
							int line)
{
	struct dmamap_guard g = { lk, mode, 0, file, line };

	if (!try_)
		g.flags = dmamap_spin_lock_at(lk, mode, file, line);
	else if (!dmamap_spin_trylock_at(lk, mode, &g.flags, file, line))
		g.lk = NULL;
	return g;
}

/* dmamap_guard_mutex_at() - a mutex guard: @lk locked at @file:@line (or tried, when @try_). */
static inline struct dmamap_guard dmamap_guard_mutex_at(struct dmamap_lock *lk, bool try_, const char *file, int line)
{
	struct dmamap_guard g = { lk, -1, 0, file, line };

	if (!try_)
		dmamap_mutex_lock_at(lk, file, line);
	else if (!dmamap_mutex_trylock_at(lk, file, line))
		g.lk = NULL;
	return g;
}

/* dmamap_guard_release() - a lock guard's end: its lock let go as it was taken, at the guard's line. */
static inline void dmamap_guard_release(struct dmamap_guard *g)
{
	if (!g->lk)
		return;
	if (g->mode < 0)
		dmamap_mutex_unlock_at(g->lk, g->file, g->line);
	else
		dmamap_spin_unlock_at(g->lk, g->mode, g->flags, g->file, g->line);
}

/* dmamap_guard_lock_ptr() - the lock guard @g holds, NULL for none. */
static inline void *dmamap_guard_lock_ptr(struct dmamap_guard *g)
{
	return g->lk;
}

DMAMAP_END_DECLS

#endif /* DMAMAP_LOCKING_H */
