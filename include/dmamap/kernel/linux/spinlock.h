/* SPDX-License-Identifier: MIT */
/*
 * <linux/spinlock.h> of Linux 6.x over libdmamap (<dmamap/locking.h>):
 * spinlock_t and raw_spinlock_t, DEFINE_SPINLOCK() and spin_lock_init(),
 * spin_lock() and spin_unlock() with their _bh, _irq and _irqsave /
 * _irqrestore forms (@flags an unsigned long lvalue, as the kernel checks),
 * spin_lock_nested() and spin_lock_irqsave_nested(), spin_trylock() and its
 * forms, spin_is_locked(), assert_spin_locked(), the raw_spin_*() forms, and
 * the interrupt state of <linux/irqflags.h>, local_bh_disable() and
 * local_bh_enable() of <linux/bottom_half.h>, the assertions and lock
 * classes of <linux/lockdep.h> and in_atomic() of <linux/preempt.h>, which
 * the kernel's header brings too. spin_lock_bh() turns the thread's bottom
 * halves off as local_bh_disable() does, and spin_unlock_bh() runs the
 * tasklets it scheduled meanwhile, as the kernel's does.
 *
 * The locks exclude each other across a test's threads. A waiter sleeps on
 * the host rather than spinning, which only the clock can tell. What the
 * kernel's spinlock debugging reports is reported (see <dmamap/locking.h>):
 * an unlock of a lock not held or held by another thread, a lock taken twice
 * by one thread, a lock never initialised, a thread that ends holding one;
 * and what lockdep reports: locks taken in an order that can deadlock, each
 * spin_lock_init() call site (or DEFINE_SPINLOCK()) being a lock class.
 * In C, a spin_*() call given a struct mutex or a raw_spinlock_t (and a
 * raw_spin_*() call given a spinlock_t) fails to compile, as in the kernel.
 */
#ifndef _LINUX_SPINLOCK_H
#define _LINUX_SPINLOCK_H

#include <dmamap/linux-api.h>
#include <dmamap/locking.h>
#include <linux/cleanup.h>
#include <linux/bottom_half.h>
#include <linux/irqflags.h>
#include <linux/lockdep.h>
#include <linux/preempt.h>

typedef struct spinlock {
	struct dmamap_lock dmamap_lk;
} spinlock_t;

typedef struct raw_spinlock {
	struct dmamap_lock dmamap_lk;
} raw_spinlock_t;

#define __SPIN_LOCK_UNLOCKED(lockname) { DMAMAP_LOCK_INITIALIZER(DMAMAP_LOCK_SPIN, #lockname) }
#define __RAW_SPIN_LOCK_UNLOCKED(lockname) { DMAMAP_LOCK_INITIALIZER(DMAMAP_LOCK_SPIN, #lockname) }
#define DEFINE_SPINLOCK(x) spinlock_t x = __SPIN_LOCK_UNLOCKED(x)
#define DEFINE_RAW_SPINLOCK(x) raw_spinlock_t x = __RAW_SPIN_LOCK_UNLOCKED(x)

/* DMAMAP_SPIN_LK() - the struct dmamap_lock of @l, a pointer to @type (checked in C). */
#ifdef __cplusplus
#define DMAMAP_SPIN_LK(l, type) (&(l)->dmamap_lk)
#else
#define DMAMAP_SPIN_LK(l, type)                                                                  \
	((void)sizeof(struct {                                                                   \
		 _Static_assert(__builtin_types_compatible_p(__typeof__(*(l)), type),            \
				"this lock call takes a " #type " *, as the kernel's");           \
		 int dmamap_lock_check;                                                          \
	 }),                                                                                     \
	 &(l)->dmamap_lk)
#endif

#define DMAMAP_SPIN_LOCK_(l, type, mode) \
	((void)dmamap_spin_lock_at(DMAMAP_SPIN_LK(l, type), (mode), __FILE__, __LINE__))
#define DMAMAP_SPIN_LOCK_IRQSAVE_(l, type, flags)                                                            \
	do {                                                                                                 \
		DMAMAP_IRQFLAGS_CHECK(flags);                                                                \
		(flags) = dmamap_spin_lock_at(DMAMAP_SPIN_LK(l, type), DMAMAP_SPIN_IRQSAVE, __FILE__, __LINE__); \
	} while (0)
#define DMAMAP_SPIN_UNLOCK_(l, type, mode, flags) \
	dmamap_spin_unlock_at(DMAMAP_SPIN_LK(l, type), (mode), (flags), __FILE__, __LINE__)
#define DMAMAP_SPIN_TRYLOCK_(l, type, mode, flagsp) \
	dmamap_spin_trylock_at(DMAMAP_SPIN_LK(l, type), (mode), (flagsp), __FILE__, __LINE__)

#define DMAMAP_SPIN_LOCK_NESTED_(l, type, subclass) \
	((void)dmamap_spin_lock_nested_at(DMAMAP_SPIN_LK(l, type), DMAMAP_SPIN_PLAIN, (subclass), __FILE__, __LINE__))
#define DMAMAP_SPIN_LOCK_IRQSAVE_NESTED_(l, type, flags, subclass)                                        \
	do {                                                                                              \
		DMAMAP_IRQFLAGS_CHECK(flags);                                                             \
		(flags) = dmamap_spin_lock_nested_at(DMAMAP_SPIN_LK(l, type), DMAMAP_SPIN_IRQSAVE, (subclass), \
						     __FILE__, __LINE__);                                 \
	} while (0)

#define spin_lock_init(l) \
	dmamap_lock_init_at(DMAMAP_SPIN_LK(l, spinlock_t), DMAMAP_LOCK_SPIN, #l, __FILE__, __LINE__)
#define spin_lock(l) DMAMAP_SPIN_LOCK_(l, spinlock_t, DMAMAP_SPIN_PLAIN)
#define spin_lock_bh(l) DMAMAP_SPIN_LOCK_(l, spinlock_t, DMAMAP_SPIN_BH)
#define spin_lock_irq(l) DMAMAP_SPIN_LOCK_(l, spinlock_t, DMAMAP_SPIN_IRQ)
#define spin_lock_irqsave(l, flags) DMAMAP_SPIN_LOCK_IRQSAVE_(l, spinlock_t, flags)
#define spin_lock_nested(l, subclass) DMAMAP_SPIN_LOCK_NESTED_(l, spinlock_t, subclass)
#define spin_lock_irqsave_nested(l, flags, subclass) DMAMAP_SPIN_LOCK_IRQSAVE_NESTED_(l, spinlock_t, flags, subclass)
#define spin_unlock(l) DMAMAP_SPIN_UNLOCK_(l, spinlock_t, DMAMAP_SPIN_PLAIN, 0)
#define spin_unlock_bh(l) DMAMAP_SPIN_UNLOCK_(l, spinlock_t, DMAMAP_SPIN_BH, 0)
#define spin_unlock_irq(l) DMAMAP_SPIN_UNLOCK_(l, spinlock_t, DMAMAP_SPIN_IRQ, 0)
#define spin_unlock_irqrestore(l, flags) DMAMAP_SPIN_UNLOCK_(l, spinlock_t, DMAMAP_SPIN_IRQSAVE, (flags))
#define spin_trylock(l) DMAMAP_SPIN_TRYLOCK_(l, spinlock_t, DMAMAP_SPIN_PLAIN, NULL)
#define spin_trylock_bh(l) DMAMAP_SPIN_TRYLOCK_(l, spinlock_t, DMAMAP_SPIN_BH, NULL)
#define spin_trylock_irq(l) DMAMAP_SPIN_TRYLOCK_(l, spinlock_t, DMAMAP_SPIN_IRQ, NULL)
#define spin_trylock_irqsave(l, flags) DMAMAP_SPIN_TRYLOCK_(l, spinlock_t, DMAMAP_SPIN_IRQSAVE, &(flags))
#define spin_is_locked(l) dmamap_lock_is_locked(DMAMAP_SPIN_LK(l, spinlock_t))
#define assert_spin_locked(l) \
	dmamap_lock_assert_at(DMAMAP_SPIN_LK(l, spinlock_t), DMAMAP_ASSERT_LOCKED, __FILE__, __LINE__)

#define raw_spin_lock_init(l) \
	dmamap_lock_init_at(DMAMAP_SPIN_LK(l, raw_spinlock_t), DMAMAP_LOCK_SPIN, #l, __FILE__, __LINE__)
#define raw_spin_lock(l) DMAMAP_SPIN_LOCK_(l, raw_spinlock_t, DMAMAP_SPIN_PLAIN)
#define raw_spin_lock_bh(l) DMAMAP_SPIN_LOCK_(l, raw_spinlock_t, DMAMAP_SPIN_BH)
#define raw_spin_lock_irq(l) DMAMAP_SPIN_LOCK_(l, raw_spinlock_t, DMAMAP_SPIN_IRQ)
#define raw_spin_lock_irqsave(l, flags) DMAMAP_SPIN_LOCK_IRQSAVE_(l, raw_spinlock_t, flags)
#define raw_spin_lock_nested(l, subclass) DMAMAP_SPIN_LOCK_NESTED_(l, raw_spinlock_t, subclass)
#define raw_spin_lock_irqsave_nested(l, flags, subclass) \
	DMAMAP_SPIN_LOCK_IRQSAVE_NESTED_(l, raw_spinlock_t, flags, subclass)
#define raw_spin_unlock(l) DMAMAP_SPIN_UNLOCK_(l, raw_spinlock_t, DMAMAP_SPIN_PLAIN, 0)
#define raw_spin_unlock_bh(l) DMAMAP_SPIN_UNLOCK_(l, raw_spinlock_t, DMAMAP_SPIN_BH, 0)
#define raw_spin_unlock_irq(l) DMAMAP_SPIN_UNLOCK_(l, raw_spinlock_t, DMAMAP_SPIN_IRQ, 0)
#define raw_spin_unlock_irqrestore(l, flags) DMAMAP_SPIN_UNLOCK_(l, raw_spinlock_t, DMAMAP_SPIN_IRQSAVE, (flags))
#define raw_spin_trylock(l) DMAMAP_SPIN_TRYLOCK_(l, raw_spinlock_t, DMAMAP_SPIN_PLAIN, NULL)
#define raw_spin_trylock_irqsave(l, flags) DMAMAP_SPIN_TRYLOCK_(l, raw_spinlock_t, DMAMAP_SPIN_IRQSAVE, &(flags))
#define raw_spin_is_locked(l) dmamap_lock_is_locked(DMAMAP_SPIN_LK(l, raw_spinlock_t))

/*
 * The guards of <linux/cleanup.h>: guard(spinlock)(&l), scoped_guard(spinlock_irqsave, &l) { ... } and
 * the others, each the lock call of its name at the guard's line, its unlock at scope exit naming that
 * line too; the _try forms are the trylocks (scoped_guard() skips its statement when they fail).
 */
#define DMAMAP_SPIN_GUARD_(l, type, mode, try_) \
	dmamap_guard_spin_at(DMAMAP_SPIN_LK(l, type), DMAMAP_SPIN_##mode, (try_), __FILE__, __LINE__)
typedef struct dmamap_guard class_spinlock_t;
#define class_spinlock_constructor(l) DMAMAP_SPIN_GUARD_(l, spinlock_t, PLAIN, false)
#define class_spinlock_destructor dmamap_guard_release
#define class_spinlock_lock_ptr dmamap_guard_lock_ptr
typedef struct dmamap_guard class_spinlock_irq_t;
#define class_spinlock_irq_constructor(l) DMAMAP_SPIN_GUARD_(l, spinlock_t, IRQ, false)
#define class_spinlock_irq_destructor dmamap_guard_release
#define class_spinlock_irq_lock_ptr dmamap_guard_lock_ptr
typedef struct dmamap_guard class_spinlock_irqsave_t;
#define class_spinlock_irqsave_constructor(l) DMAMAP_SPIN_GUARD_(l, spinlock_t, IRQSAVE, false)
#define class_spinlock_irqsave_destructor dmamap_guard_release
#define class_spinlock_irqsave_lock_ptr dmamap_guard_lock_ptr
typedef struct dmamap_guard class_spinlock_bh_t;
#define class_spinlock_bh_constructor(l) DMAMAP_SPIN_GUARD_(l, spinlock_t, BH, false)
#define class_spinlock_bh_destructor dmamap_guard_release
#define class_spinlock_bh_lock_ptr dmamap_guard_lock_ptr
typedef struct dmamap_guard class_spinlock_try_t;
#define class_spinlock_try_constructor(l) DMAMAP_SPIN_GUARD_(l, spinlock_t, PLAIN, true)
#define class_spinlock_try_destructor dmamap_guard_release
#define class_spinlock_try_lock_ptr dmamap_guard_lock_ptr
typedef struct dmamap_guard class_spinlock_irq_try_t;
#define class_spinlock_irq_try_constructor(l) DMAMAP_SPIN_GUARD_(l, spinlock_t, IRQ, true)
#define class_spinlock_irq_try_destructor dmamap_guard_release
#define class_spinlock_irq_try_lock_ptr dmamap_guard_lock_ptr
typedef struct dmamap_guard class_spinlock_irqsave_try_t;
#define class_spinlock_irqsave_try_constructor(l) DMAMAP_SPIN_GUARD_(l, spinlock_t, IRQSAVE, true)
#define class_spinlock_irqsave_try_destructor dmamap_guard_release
#define class_spinlock_irqsave_try_lock_ptr dmamap_guard_lock_ptr
typedef struct dmamap_guard class_spinlock_bh_try_t;
#define class_spinlock_bh_try_constructor(l) DMAMAP_SPIN_GUARD_(l, spinlock_t, BH, true)
#define class_spinlock_bh_try_destructor dmamap_guard_release
#define class_spinlock_bh_try_lock_ptr dmamap_guard_lock_ptr
typedef struct dmamap_guard class_raw_spinlock_t;
#define class_raw_spinlock_constructor(l) DMAMAP_SPIN_GUARD_(l, raw_spinlock_t, PLAIN, false)
#define class_raw_spinlock_destructor dmamap_guard_release
#define class_raw_spinlock_lock_ptr dmamap_guard_lock_ptr
typedef struct dmamap_guard class_raw_spinlock_irq_t;
#define class_raw_spinlock_irq_constructor(l) DMAMAP_SPIN_GUARD_(l, raw_spinlock_t, IRQ, false)
#define class_raw_spinlock_irq_destructor dmamap_guard_release
#define class_raw_spinlock_irq_lock_ptr dmamap_guard_lock_ptr
typedef struct dmamap_guard class_raw_spinlock_irqsave_t;
#define class_raw_spinlock_irqsave_constructor(l) DMAMAP_SPIN_GUARD_(l, raw_spinlock_t, IRQSAVE, false)
#define class_raw_spinlock_irqsave_destructor dmamap_guard_release
#define class_raw_spinlock_irqsave_lock_ptr dmamap_guard_lock_ptr
typedef struct dmamap_guard class_raw_spinlock_bh_t;
#define class_raw_spinlock_bh_constructor(l) DMAMAP_SPIN_GUARD_(l, raw_spinlock_t, BH, false)
#define class_raw_spinlock_bh_destructor dmamap_guard_release
#define class_raw_spinlock_bh_lock_ptr dmamap_guard_lock_ptr
typedef struct dmamap_guard class_raw_spinlock_try_t;
#define class_raw_spinlock_try_constructor(l) DMAMAP_SPIN_GUARD_(l, raw_spinlock_t, PLAIN, true)
#define class_raw_spinlock_try_destructor dmamap_guard_release
#define class_raw_spinlock_try_lock_ptr dmamap_guard_lock_ptr
typedef struct dmamap_guard class_raw_spinlock_irq_try_t;
#define class_raw_spinlock_irq_try_constructor(l) DMAMAP_SPIN_GUARD_(l, raw_spinlock_t, IRQ, true)
#define class_raw_spinlock_irq_try_destructor dmamap_guard_release
#define class_raw_spinlock_irq_try_lock_ptr dmamap_guard_lock_ptr
typedef struct dmamap_guard class_raw_spinlock_irqsave_try_t;
#define class_raw_spinlock_irqsave_try_constructor(l) DMAMAP_SPIN_GUARD_(l, raw_spinlock_t, IRQSAVE, true)
#define class_raw_spinlock_irqsave_try_destructor dmamap_guard_release
#define class_raw_spinlock_irqsave_try_lock_ptr dmamap_guard_lock_ptr

#endif /* _LINUX_SPINLOCK_H */
