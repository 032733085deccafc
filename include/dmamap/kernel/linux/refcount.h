/* SPDX-License-Identifier: MIT */
/*
 * <linux/refcount.h> of Linux 6.x over libdmamap: refcount_t, the reference
 * count of an object that is released when the count drops to 0, with the
 * kernel's checks. A count that would go wrong saturates instead: it is set
 * to REFCOUNT_SATURATED (INT_MIN / 2), where no later increment or
 * decrement can bring it back to 0, so the object leaks rather than being
 * used after it was freed. The cases are the kernel's:
 *
 *  - refcount_inc() or refcount_add() of a count of 0 (the object is
 *    already released: a use after free);
 *  - an increment past INT_MAX (refcount_inc(), refcount_inc_not_zero()...);
 *  - refcount_dec_and_test() or refcount_sub_and_test() below 0 (one put
 *    too many);
 *  - refcount_dec() to 0 (nothing releases the object then: a leak).
 *
 * Where the kernel warns, the library reports (DMAMAP_REPORT_REFCOUNT, at the
 * call's file:line, on the current machine: dmamap_refcount_report_at()),
 * once each time a count saturates: calls on a count already saturated stay
 * quiet, where the kernel warns once per boot. The calls are macros that pass
 * their line over inline functions; ordering is the kernel's (increments
 * relaxed, decrements release, and acquire before the release of the
 * object). refcount_dec_and_lock() and refcount_dec_and_mutex_lock() and
 * their forms need <linux/spinlock.h> or <linux/mutex.h> where they are used.
 */
#ifndef _LINUX_REFCOUNT_H
#define _LINUX_REFCOUNT_H

#include <limits.h>

#include <dmamap/linux-api.h>
#include <dmamap/log.h>
#include <linux/atomic.h>

DMAMAP_BEGIN_DECLS

/* refcount_t - a reference count; only the calls below change it. */
typedef struct refcount_struct {
	atomic_t refs;
} refcount_t;

/* REFCOUNT_INIT() - the static initialiser of a count of @n. */
#define REFCOUNT_INIT(n) { ATOMIC_INIT(n) }
/* The largest count; the value a count that went wrong is left at. */
#define REFCOUNT_MAX INT_MAX
#define REFCOUNT_SATURATED (INT_MIN / 2)

/** refcount_set() - set the count of @r to @n (initialisation: no check). */
static inline void refcount_set(refcount_t *r, int n)
{
	atomic_set(&r->refs, n);
}

/** refcount_set_release() - refcount_set() with release ordering. */
static inline void refcount_set_release(refcount_t *r, int n)
{
	atomic_set_release(&r->refs, n);
}

/** refcount_read() - the count of @r (REFCOUNT_SATURATED, as an unsigned int, once it saturated). */
static inline unsigned int refcount_read(const refcount_t *r)
{
	return (unsigned int)atomic_read(&r->refs);
}

/** dmamap_refcount_saturate_at() - saturate @r and, unless it already was (@old negative), report @what at @file:@line. */
static inline void dmamap_refcount_saturate_at(refcount_t *r, int old, int what, const char *file, int line)
{
	atomic_set(&r->refs, REFCOUNT_SATURATED);
	if (old >= 0)
		dmamap_refcount_report_at(what, r, file, line);
}

/** dmamap_refcount_wraps() - whether @old + @i (@i > 0) goes past INT_MAX, or @old is saturated already. */
static inline bool dmamap_refcount_wraps(int old, int i)
{
	return old < 0 || (int)((unsigned int)old + (unsigned int)i) < 0;
}

/**
 * dmamap_refcount_add_not_zero_at() - refcount_add_not_zero() called at @file:@line
 * @i: how many references to take, > 0
 * @r: the count
 * @oldp: receives the count before, or NULL
 * @file: the caller's source file
 * @line: the caller's source line
 *
 * Return: false, with nothing changed, when the count is 0 (the object is
 * going away); true once @i is added. Past INT_MAX the count saturates and
 * is reported.
 */
static inline bool dmamap_refcount_add_not_zero_at(int i, refcount_t *r, int *oldp, const char *file, int line)
{
	int old = atomic_read(&r->refs);

	do {
		if (!old)
			break;
	} while (!atomic_try_cmpxchg_relaxed(&r->refs, &old, (int)((unsigned int)old + (unsigned int)i)));
	if (oldp)
		*oldp = old;
	if (old && dmamap_refcount_wraps(old, i))
		dmamap_refcount_saturate_at(r, old, DMAMAP_REFCOUNT_ADD_NOT_ZERO_OVF, file, line);
	return old != 0;
}

/**
 * dmamap_refcount_add_at() - refcount_add() called at @file:@line
 * @i: how many references to take, > 0
 * @r: the count: at least 1 (the caller holds a reference)
 * @oldp: receives the count before, or NULL
 * @file: the caller's source file
 * @line: the caller's source line
 *
 * A count of 0 (the object was released) or one that would go past INT_MAX
 * saturates and is reported.
 */
static inline void dmamap_refcount_add_at(int i, refcount_t *r, int *oldp, const char *file, int line)
{
	int old = atomic_fetch_add_relaxed(i, &r->refs);

	if (oldp)
		*oldp = old;
	if (!old)
		dmamap_refcount_saturate_at(r, old, DMAMAP_REFCOUNT_ADD_UAF, file, line);
	else if (dmamap_refcount_wraps(old, i))
		dmamap_refcount_saturate_at(r, old, DMAMAP_REFCOUNT_ADD_OVF, file, line);
}

/**
 * dmamap_refcount_sub_and_test_at() - refcount_sub_and_test() called at @file:@line
 * @i: how many references to drop, > 0
 * @r: the count
 * @oldp: receives the count before, or NULL
 * @file: the caller's source file
 * @line: the caller's source line
 *
 * Return: true when the count reached 0: the caller releases the object
 * (everything the other holders did to it is visible by then). A count that
 * would go below 0 saturates, is reported, and gives false.
 */
static inline bool dmamap_refcount_sub_and_test_at(int i, refcount_t *r, int *oldp, const char *file, int line)
{
	int old = atomic_fetch_sub_release(i, &r->refs);

	if (oldp)
		*oldp = old;
	if (old == i) {
		smp_acquire__after_ctrl_dep();
		return true;
	}
	if (old < 0 || old < i)
		dmamap_refcount_saturate_at(r, old, DMAMAP_REFCOUNT_SUB_UAF, file, line);
	return false;
}

/**
 * dmamap_refcount_dec_at() - refcount_dec() called at @file:@line
 * @r: the count: at least 2 (a reference remains that will release the object)
 * @oldp: receives the count before, or NULL
 * @file: the caller's source file
 * @line: the caller's source line
 *
 * A decrement to 0 or below (nothing would release the object) saturates
 * the count and is reported.
 */
static inline void dmamap_refcount_dec_at(refcount_t *r, int *oldp, const char *file, int line)
{
	int old = atomic_fetch_sub_release(1, &r->refs);

	if (oldp)
		*oldp = old;
	if (old <= 1)
		dmamap_refcount_saturate_at(r, old, DMAMAP_REFCOUNT_DEC_LEAK, file, line);
}

/**
 * dmamap_refcount_dec_not_one_at() - refcount_dec_not_one() called at @file:@line
 * @r: the count
 * @file: the caller's source file
 * @line: the caller's source line
 *
 * Return: false, with nothing changed, when the count is 1 (the caller then
 * takes the lock that guards the release, as refcount_dec_and_lock() does);
 * true otherwise: decremented, or left as it is when saturated, or when 0
 * (reported as an underflow; not saturated, as in the kernel).
 */
static inline bool dmamap_refcount_dec_not_one_at(refcount_t *r, const char *file, int line)
{
	int val = atomic_read(&r->refs);

	do {
		if (val < 0)
			return true;
		if (val == 1)
			return false;
		if (val == 0) {
			dmamap_refcount_report_at(DMAMAP_REFCOUNT_SUB_UAF, r, file, line);
			return true;
		}
	} while (!atomic_try_cmpxchg_release(&r->refs, &val, val - 1));
	return true;
}

/** refcount_dec_if_one() - drop the last reference, only if it is the last: whether the count went from 1 to 0. */
static inline bool refcount_dec_if_one(refcount_t *r)
{
	int one = 1;

	return atomic_try_cmpxchg_release(&r->refs, &one, 0);
}

/*
 * refcount_inc(@r), refcount_add(@i, @r) - take references on an object
 * the caller holds one on. refcount_inc_not_zero(@r),
 * refcount_add_not_zero(@i, @r) - take them only while the count is not 0
 * (an object found in a lookup table that may be going away); whether they
 * were taken. refcount_dec_and_test(@r), refcount_sub_and_test(@i, @r) -
 * drop references; true when the count reached 0 and the caller releases
 * the object. refcount_dec(@r) - drop a reference that is not the last.
 * The _fetch forms (__refcount_inc(@r, @oldp)...) also store the count
 * before in *@oldp. Misuse saturates the count and is reported (see above).
 */
#define refcount_add(i, r) dmamap_refcount_add_at((i), (r), NULL, __FILE__, __LINE__)
#define refcount_inc(r) dmamap_refcount_add_at(1, (r), NULL, __FILE__, __LINE__)
#define __refcount_add(i, r, oldp) dmamap_refcount_add_at((i), (r), (oldp), __FILE__, __LINE__)
#define __refcount_inc(r, oldp) dmamap_refcount_add_at(1, (r), (oldp), __FILE__, __LINE__)
#define refcount_add_not_zero(i, r) dmamap_refcount_add_not_zero_at((i), (r), NULL, __FILE__, __LINE__)
#define refcount_inc_not_zero(r) dmamap_refcount_add_not_zero_at(1, (r), NULL, __FILE__, __LINE__)
#define __refcount_add_not_zero(i, r, oldp) dmamap_refcount_add_not_zero_at((i), (r), (oldp), __FILE__, __LINE__)
#define __refcount_inc_not_zero(r, oldp) dmamap_refcount_add_not_zero_at(1, (r), (oldp), __FILE__, __LINE__)
#define refcount_sub_and_test(i, r) dmamap_refcount_sub_and_test_at((i), (r), NULL, __FILE__, __LINE__)
#define refcount_dec_and_test(r) dmamap_refcount_sub_and_test_at(1, (r), NULL, __FILE__, __LINE__)
#define __refcount_sub_and_test(i, r, oldp) dmamap_refcount_sub_and_test_at((i), (r), (oldp), __FILE__, __LINE__)
#define __refcount_dec_and_test(r, oldp) dmamap_refcount_sub_and_test_at(1, (r), (oldp), __FILE__, __LINE__)
#define refcount_dec(r) dmamap_refcount_dec_at((r), NULL, __FILE__, __LINE__)
#define __refcount_dec(r, oldp) dmamap_refcount_dec_at((r), (oldp), __FILE__, __LINE__)
#define refcount_dec_not_one(r) dmamap_refcount_dec_not_one_at((r), __FILE__, __LINE__)

/*
 * refcount_dec_and_lock(@r, @lock) - drop a reference; when it is the last,
 * return true holding the spinlock @lock (the caller takes the object out
 * of what @lock guards, unlocks, and releases it); false, unlocked,
 * otherwise. The _irqsave form takes the lock with spin_lock_irqsave(),
 * @flags an unsigned long *; refcount_dec_and_mutex_lock() takes the
 * mutex @lock.
 */
#define DMAMAP_REFCOUNT_DEC_AND_LOCK_(r, lock_call, unlock_call, ur, ok)                          \
	__extension__({                                                                            \
		refcount_t *ur = (r);                                                              \
		bool ok = false;                                                                   \
		if (!refcount_dec_not_one(ur)) {                                                   \
			lock_call;                                                                 \
			ok = refcount_dec_and_test(ur);                                            \
			if (!ok)                                                                   \
				unlock_call;                                                       \
		}                                                                                  \
		ok;                                                                                \
	})
#define refcount_dec_and_lock(r, lock)                                                             \
	DMAMAP_REFCOUNT_DEC_AND_LOCK_(r, spin_lock(lock), spin_unlock(lock), DMAMAP_UNIQUE(dmamap_r_), \
				      DMAMAP_UNIQUE(dmamap_ok_))
#define refcount_dec_and_lock_irqsave(r, lock, flags)                                              \
	DMAMAP_REFCOUNT_DEC_AND_LOCK_(r, spin_lock_irqsave(lock, *(flags)), spin_unlock_irqrestore(lock, *(flags)), \
				      DMAMAP_UNIQUE(dmamap_r_), DMAMAP_UNIQUE(dmamap_ok_))
#define refcount_dec_and_mutex_lock(r, lock)                                                       \
	DMAMAP_REFCOUNT_DEC_AND_LOCK_(r, mutex_lock(lock), mutex_unlock(lock), DMAMAP_UNIQUE(dmamap_r_), \
				      DMAMAP_UNIQUE(dmamap_ok_))

DMAMAP_END_DECLS

#endif /* _LINUX_REFCOUNT_H */
