/* SPDX-License-Identifier: MIT */
/*
 * <linux/lockdep.h> of Linux 6.x over libdmamap: lockdep's assertions, on a
 * spinlock_t, raw_spinlock_t or struct mutex (<dmamap/locking.h>).
 * lockdep_assert_held() holds when the calling thread holds the lock,
 * lockdep_assert_not_held() when it does not; lockdep_assert_irqs_disabled()
 * and lockdep_assert_irqs_enabled() look at the thread's interrupt state. A
 * false one is reported (DMAMAP_REPORT_LOCK_MISUSE, at its line) where the
 * kernel warns.
 *
 * Lock order is checked as lockdep checks it (DMAMAP_REPORT_LOCK_ORDER; see
 * <dmamap/locking.h>): by lock class, a class being the locks of one
 * spin_lock_init() or mutex_init() call site, or one DEFINE_SPINLOCK() or
 * DEFINE_MUTEX(). lockdep_set_class() and lockdep_set_class_and_name() put
 * a lock in the class of a struct lock_class_key (a static one: its address
 * names the class); lockdep_set_subclass() and
 * lockdep_set_class_and_subclass() make its plain lock calls take it as a
 * subclass; lockdep_set_novalidate_class() leaves its order unchecked.
 * SINGLE_DEPTH_NESTING is the subclass of spin_lock_nested() and
 * mutex_lock_nested() for a lock taken inside another of its class.
 */
#ifndef _LINUX_LOCKDEP_H
#define _LINUX_LOCKDEP_H

#include <dmamap/linux-api.h>
#include <dmamap/locking.h>

/* What lockdep_set_class() takes: a key whose address names a class of locks. */
struct lock_class_key {
	int dmamap_unused;
};

#define MAX_LOCKDEP_SUBCLASSES ((unsigned long)DMAMAP_LOCK_SUBCLASSES)
#define SINGLE_DEPTH_NESTING 1

#define lockdep_assert_held(l) dmamap_lock_assert_at(&(l)->dmamap_lk, DMAMAP_ASSERT_HELD, __FILE__, __LINE__)
#define lockdep_assert_held_once(l) lockdep_assert_held(l)
#define lockdep_assert_held_write(l) lockdep_assert_held(l)
#define lockdep_assert_held_read(l) lockdep_assert_held(l)
#define lockdep_assert_not_held(l) \
	dmamap_lock_assert_at(&(l)->dmamap_lk, DMAMAP_ASSERT_NOT_HELD, __FILE__, __LINE__)
#define lockdep_assert_irqs_disabled() dmamap_irqs_assert_at(true, __FILE__, __LINE__)
#define lockdep_assert_irqs_enabled() dmamap_irqs_assert_at(false, __FILE__, __LINE__)
#define lockdep_set_class(l, key) dmamap_lock_set_class(&(l)->dmamap_lk, (key), #key, 0)
#define lockdep_set_class_and_name(l, key, name) dmamap_lock_set_class(&(l)->dmamap_lk, (key), (name), 0)
#define lockdep_set_class_and_subclass(l, key, sub) dmamap_lock_set_class(&(l)->dmamap_lk, (key), #key, (sub))
#define lockdep_set_subclass(l, sub) dmamap_lock_set_class(&(l)->dmamap_lk, NULL, NULL, (sub))
#define lockdep_set_novalidate_class(l) dmamap_lock_set_novalidate(&(l)->dmamap_lk)

#endif /* _LINUX_LOCKDEP_H */
