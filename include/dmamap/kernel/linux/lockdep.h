/* SPDX-License-Identifier: MIT */
/*
 * <linux/lockdep.h> of Linux 6.x over libdmamap: lockdep's assertions, on a
 * spinlock_t, raw_spinlock_t or struct mutex (<dmamap/locking.h>).
 * lockdep_assert_held() holds when the calling thread holds the lock,
 * lockdep_assert_not_held() when it does not; lockdep_assert_irqs_disabled()
 * and lockdep_assert_irqs_enabled() look at the thread's interrupt state. A
 * false one is reported (DMAMAP_REPORT_LOCK_MISUSE, at its line) where the
 * kernel warns. Lock classes and subclasses name nothing here: the
 * lockdep_set_class() family does nothing, and no lock order is checked.
 */
#ifndef _LINUX_LOCKDEP_H
#define _LINUX_LOCKDEP_H

#include <dmamap/linux-api.h>
#include <dmamap/locking.h>

/* What lockdep_set_class() takes: a key whose address names a class of locks. */
struct lock_class_key {
	int dmamap_unused;
};

#define lockdep_assert_held(l) dmamap_lock_assert_at(&(l)->dmamap_lk, DMAMAP_ASSERT_HELD, __FILE__, __LINE__)
#define lockdep_assert_held_once(l) lockdep_assert_held(l)
#define lockdep_assert_held_write(l) lockdep_assert_held(l)
#define lockdep_assert_held_read(l) lockdep_assert_held(l)
#define lockdep_assert_not_held(l) \
	dmamap_lock_assert_at(&(l)->dmamap_lk, DMAMAP_ASSERT_NOT_HELD, __FILE__, __LINE__)
#define lockdep_assert_irqs_disabled() dmamap_irqs_assert_at(true, __FILE__, __LINE__)
#define lockdep_assert_irqs_enabled() dmamap_irqs_assert_at(false, __FILE__, __LINE__)
#define lockdep_set_class(l, key) ((void)(l), (void)(key))
#define lockdep_set_class_and_name(l, key, name) ((void)(l), (void)(key), (void)(name))
#define lockdep_set_subclass(l, sub) ((void)(l), (void)(sub))
#define lockdep_set_novalidate_class(l) ((void)(l))

#endif /* _LINUX_LOCKDEP_H */
