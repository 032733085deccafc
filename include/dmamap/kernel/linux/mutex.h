/* SPDX-License-Identifier: MIT */
/*
 * <linux/mutex.h> of Linux 6.x over libdmamap (<dmamap/locking.h>): struct
 * mutex, DEFINE_MUTEX() and mutex_init() (devm_mutex_init() of 6.10 too),
 * mutex_lock() and its _interruptible, _killable and _io forms (never
 * interrupted: they return 0), mutex_lock_nested() and its
 * _interruptible_nested, _killable_nested and _io_nested forms,
 * mutex_trylock(), mutex_unlock(), mutex_is_locked(), mutex_destroy(), and
 * the assertions and lock classes of <linux/lockdep.h>.
 *
 * The mutex excludes across a test's threads; a waiter sleeps. What the
 * kernel's mutex debugging reports is reported (see <dmamap/locking.h>): an
 * unlock of a mutex not held, an unlock by another thread than the one that
 * locked it (then unlocked, as the kernel does), a mutex locked twice by one
 * thread, used uninitialised or after mutex_destroy(), still held by a
 * thread that ends; and what lockdep reports: locks taken in an order that
 * can deadlock, each mutex_init() call site (or DEFINE_MUTEX()) being a
 * lock class. In C, a mutex_*() call given a spinlock fails to compile, as
 * in the kernel.
 */
#ifndef _LINUX_MUTEX_H
#define _LINUX_MUTEX_H

#include <dmamap/linux-api.h>
#include <dmamap/locking.h>
#include <linux/cleanup.h>
#include <linux/lockdep.h>

struct mutex {
	struct dmamap_lock dmamap_lk;
};

#define __MUTEX_INITIALIZER(lockname) { DMAMAP_LOCK_INITIALIZER(DMAMAP_LOCK_MUTEX, #lockname) }
#define DEFINE_MUTEX(mutexname) struct mutex mutexname = __MUTEX_INITIALIZER(mutexname)

/* DMAMAP_MUTEX_LK() - the struct dmamap_lock of @m, a struct mutex * (checked in C). */
#ifdef __cplusplus
#define DMAMAP_MUTEX_LK(m) (&(m)->dmamap_lk)
#else
#define DMAMAP_MUTEX_LK(m)                                                                       \
	((void)sizeof(struct {                                                                   \
		 _Static_assert(__builtin_types_compatible_p(__typeof__(*(m)), struct mutex),    \
				"this lock call takes a struct mutex *, as the kernel's");        \
		 int dmamap_lock_check;                                                          \
	 }),                                                                                     \
	 &(m)->dmamap_lk)
#endif

#define mutex_init(m) dmamap_lock_init_at(DMAMAP_MUTEX_LK(m), DMAMAP_LOCK_MUTEX, #m, __FILE__, __LINE__)
#define devm_mutex_init(dev, m) ((void)(dev), mutex_init(m), 0)
#define mutex_lock(m) dmamap_mutex_lock_at(DMAMAP_MUTEX_LK(m), __FILE__, __LINE__)
#define mutex_lock_nested(m, subclass) dmamap_mutex_lock_nested_at(DMAMAP_MUTEX_LK(m), (subclass), __FILE__, __LINE__)
#define mutex_lock_interruptible_nested(m, subclass) (mutex_lock_nested(m, subclass), 0)
#define mutex_lock_killable_nested(m, subclass) (mutex_lock_nested(m, subclass), 0)
#define mutex_lock_io_nested(m, subclass) mutex_lock_nested(m, subclass)
#define mutex_lock_io(m) mutex_lock(m)
#define mutex_lock_interruptible(m) (mutex_lock(m), 0)
#define mutex_lock_killable(m) (mutex_lock(m), 0)
#define mutex_trylock(m) dmamap_mutex_trylock_at(DMAMAP_MUTEX_LK(m), __FILE__, __LINE__)
#define mutex_unlock(m) dmamap_mutex_unlock_at(DMAMAP_MUTEX_LK(m), __FILE__, __LINE__)
#define mutex_is_locked(m) dmamap_lock_is_locked(DMAMAP_MUTEX_LK(m))
#define mutex_destroy(m) dmamap_mutex_destroy_at(DMAMAP_MUTEX_LK(m), __FILE__, __LINE__)

/*
 * The guards of <linux/cleanup.h>: guard(mutex)(&m) and scoped_guard(mutex, &m) { ... }, mutex_lock() at
 * the guard's line, mutex_unlock() at scope exit naming that line too; mutex_try, a mutex_trylock() that
 * may fail, and mutex_intr, a mutex_lock_interruptible() that never does here (scoped_cond_guard()).
 */
typedef struct dmamap_guard class_mutex_t;
#define class_mutex_constructor(m) dmamap_guard_mutex_at(DMAMAP_MUTEX_LK(m), false, __FILE__, __LINE__)
#define class_mutex_destructor dmamap_guard_release
#define class_mutex_lock_ptr dmamap_guard_lock_ptr
typedef struct dmamap_guard class_mutex_try_t;
#define class_mutex_try_constructor(m) dmamap_guard_mutex_at(DMAMAP_MUTEX_LK(m), true, __FILE__, __LINE__)
#define class_mutex_try_destructor dmamap_guard_release
#define class_mutex_try_lock_ptr dmamap_guard_lock_ptr
typedef struct dmamap_guard class_mutex_intr_t;
#define class_mutex_intr_constructor(m) dmamap_guard_mutex_at(DMAMAP_MUTEX_LK(m), false, __FILE__, __LINE__)
#define class_mutex_intr_destructor dmamap_guard_release
#define class_mutex_intr_lock_ptr dmamap_guard_lock_ptr

#endif /* _LINUX_MUTEX_H */
