/* SPDX-License-Identifier: MIT */
/*
 * <linux/atomic.h> of Linux 6.x over libdmamap: atomic_t (an int),
 * atomic64_t (an s64) and atomic_long_t (a long), and the calls on them,
 * as drivers count outstanding requests, hand out sequence numbers and
 * claim a channel once; cmpxchg(), xchg() and try_cmpxchg() on plain
 * variables; smp_load_acquire(), smp_store_release() and the
 * smp_mb__before/after_atomic() barriers. Each call is the host's atomic
 * operation (the compiler's __atomic builtins), so a test's threads, which
 * play the CPUs, see the kernel's guarantees.
 *
 * Semantics are the kernel's (Documentation/atomic_t.txt): arithmetic wraps
 * in two's complement, never undefined (INT_MAX + 1 is INT_MIN); atomic_read()
 * and atomic_set() are plain (relaxed) accesses; the operations that return
 * nothing are relaxed; those that return a value (the _return, fetch_,
 * _and_test, cmpxchg and xchg ones) are fully ordered, and their _relaxed,
 * _acquire and _release forms order as named. A failed cmpxchg orders
 * nothing.
 *
 * Where the library differs: atomic_long_t holds the host's long (64 bits),
 * as on a 64-bit kernel, not the 32 bits of the simulated ARM SoC; and it
 * is a type of its own, so atomic64_*() calls on it do not compile. The
 * kernel's names atomic_fetch_add()... are C11's too: this header and
 * <stdatomic.h> cannot be in one file (included after it, it says so). There
 * is no atomic_t debugging, as in the kernel: a count that goes wrong is for
 * <linux/refcount.h> to catch.
 */
#ifndef _LINUX_ATOMIC_H
#define _LINUX_ATOMIC_H

#if defined(atomic_fetch_add) || defined(ATOMIC_VAR_INIT)
#error "libdmamap: <linux/atomic.h> cannot follow C11's <stdatomic.h> in one file: atomic_fetch_add() and its siblings are the kernel's functions here and C11's generic macros there. Keep the host's atomics out of the driver's files (the kernel has no <stdatomic.h>)."
#endif

#include <dmamap/linux-api.h>
#include <linux/types.h>

DMAMAP_BEGIN_DECLS

/* atomic_long_t - a long read and changed atomically (atomic_t and atomic64_t are in <linux/types.h>). */
typedef struct {
	long counter;
} atomic_long_t;

/* ATOMIC_INIT(), ATOMIC64_INIT(), ATOMIC_LONG_INIT() - the static initialisers of each type, at @i. */
#define ATOMIC_INIT(i) { (i) }
#define ATOMIC64_INIT(i) { (i) }
#define ATOMIC_LONG_INIT(i) { (i) }

/*
 * The ordering each call form has: the plain value-returning call is fully
 * ordered, the _relaxed, _acquire and _release forms as named; a failed
 * compare-exchange has the failure ordering (no release part).
 */
#define DMAMAP_MO_FULL __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST
#define DMAMAP_MO_RELAXED __ATOMIC_RELAXED, __ATOMIC_RELAXED
#define DMAMAP_MO_ACQUIRE __ATOMIC_ACQUIRE, __ATOMIC_ACQUIRE
#define DMAMAP_MO_RELEASE __ATOMIC_RELEASE, __ATOMIC_RELAXED
#define DMAMAP_MO_OK_(ok, fail) ok
#define DMAMAP_MO_FAIL_(ok, fail) fail
#define DMAMAP_MO_OK(...) DMAMAP_MO_OK_(__VA_ARGS__)
#define DMAMAP_MO_FAIL(...) DMAMAP_MO_FAIL_(__VA_ARGS__)

/*
 * The value-returning operations of one type (@pfx: atomic, atomic64 or
 * atomic_long; @A: its struct; @T: its value type) in one ordering form
 * (@sfx: nothing, _relaxed, _acquire or _release; @mo: DMAMAP_MO_*):
 *   T atomic_add_return(T i, A *v), _sub_return(i, v): the new value;
 *   T atomic_inc_return(A *v), _dec_return(v): the new value;
 *   T atomic_fetch_add(T i, A *v), _fetch_sub, _fetch_and, _fetch_or,
 *     _fetch_xor, _fetch_andnot (v &= ~i): the value before;
 *   T atomic_fetch_inc(A *v), _fetch_dec(v): the value before;
 *   T atomic_xchg(A *v, T new): store @new, the value before;
 *   T atomic_cmpxchg(A *v, T old, T new): store @new if the value is @old;
 *     the value before either way (equal to @old: it was stored);
 *   bool atomic_try_cmpxchg(A *v, T *old, T new): store @new if the value is
 *     *@old and return true; else false, with the value now in *@old (the
 *     retry loop's next guess).
 */
#define DMAMAP_ATOMIC_ORDERED_OPS(pfx, A, T, sfx, mo)                                                      \
	static inline T pfx##_add_return##sfx(T i, A *v)                                                  \
	{                                                                                                 \
		return __atomic_add_fetch(&v->counter, i, DMAMAP_MO_OK(mo));                              \
	}                                                                                                 \
	static inline T pfx##_sub_return##sfx(T i, A *v)                                                  \
	{                                                                                                 \
		return __atomic_sub_fetch(&v->counter, i, DMAMAP_MO_OK(mo));                              \
	}                                                                                                 \
	static inline T pfx##_inc_return##sfx(A *v)                                                       \
	{                                                                                                 \
		return __atomic_add_fetch(&v->counter, 1, DMAMAP_MO_OK(mo));                              \
	}                                                                                                 \
	static inline T pfx##_dec_return##sfx(A *v)                                                       \
	{                                                                                                 \
		return __atomic_sub_fetch(&v->counter, 1, DMAMAP_MO_OK(mo));                              \
	}                                                                                                 \
	static inline T pfx##_fetch_add##sfx(T i, A *v)                                                   \
	{                                                                                                 \
		return __atomic_fetch_add(&v->counter, i, DMAMAP_MO_OK(mo));                              \
	}                                                                                                 \
	static inline T pfx##_fetch_sub##sfx(T i, A *v)                                                   \
	{                                                                                                 \
		return __atomic_fetch_sub(&v->counter, i, DMAMAP_MO_OK(mo));                              \
	}                                                                                                 \
	static inline T pfx##_fetch_inc##sfx(A *v)                                                        \
	{                                                                                                 \
		return __atomic_fetch_add(&v->counter, 1, DMAMAP_MO_OK(mo));                              \
	}                                                                                                 \
	static inline T pfx##_fetch_dec##sfx(A *v)                                                        \
	{                                                                                                 \
		return __atomic_fetch_sub(&v->counter, 1, DMAMAP_MO_OK(mo));                              \
	}                                                                                                 \
	static inline T pfx##_fetch_and##sfx(T i, A *v)                                                   \
	{                                                                                                 \
		return __atomic_fetch_and(&v->counter, i, DMAMAP_MO_OK(mo));                              \
	}                                                                                                 \
	static inline T pfx##_fetch_or##sfx(T i, A *v)                                                    \
	{                                                                                                 \
		return __atomic_fetch_or(&v->counter, i, DMAMAP_MO_OK(mo));                               \
	}                                                                                                 \
	static inline T pfx##_fetch_xor##sfx(T i, A *v)                                                   \
	{                                                                                                 \
		return __atomic_fetch_xor(&v->counter, i, DMAMAP_MO_OK(mo));                              \
	}                                                                                                 \
	static inline T pfx##_fetch_andnot##sfx(T i, A *v)                                                \
	{                                                                                                 \
		return __atomic_fetch_and(&v->counter, ~i, DMAMAP_MO_OK(mo));                             \
	}                                                                                                 \
	static inline T pfx##_xchg##sfx(A *v, T new_value)                                                \
	{                                                                                                 \
		return __atomic_exchange_n(&v->counter, new_value, DMAMAP_MO_OK(mo));                     \
	}                                                                                                 \
	static inline T pfx##_cmpxchg##sfx(A *v, T old, T new_value)                                      \
	{                                                                                                 \
		__atomic_compare_exchange_n(&v->counter, &old, new_value, false, DMAMAP_MO_OK(mo),         \
					    DMAMAP_MO_FAIL(mo));                                           \
		return old;                                                                               \
	}                                                                                                 \
	static inline bool pfx##_try_cmpxchg##sfx(A *v, T *old, T new_value)                              \
	{                                                                                                 \
		return __atomic_compare_exchange_n(&v->counter, old, new_value, false, DMAMAP_MO_OK(mo),   \
						   DMAMAP_MO_FAIL(mo));                                    \
	}

/*
 * The rest of one type's calls (@U: the unsigned type of @T's width, for
 * the wrapping arithmetic of the conditional ones):
 *   T atomic_read(const A *v), _read_acquire(v): the value;
 *   void atomic_set(A *v, T i), _set_release(v, i);
 *   void atomic_add(T i, A *v), _sub, _and, _or, _xor, _andnot; void
 *     atomic_inc(A *v), _dec(v): relaxed, nothing returned;
 *   bool atomic_sub_and_test(T i, A *v), _dec_and_test(v), _inc_and_test(v):
 *     whether the new value is 0; bool atomic_add_negative(T i, A *v):
 *     whether it is negative (each fully ordered);
 *   T atomic_fetch_add_unless(A *v, T a, T u): add @a unless the value is
 *     @u; the value before either way;
 *   bool atomic_add_unless(A *v, T a, T u): whether @a was added;
 *   bool atomic_inc_not_zero(A *v): increment unless 0 (taking a reference
 *     on an object only while it is alive); whether it did;
 *   bool atomic_inc_unless_negative(A *v), _dec_unless_positive(v): whether
 *     the value changed;
 *   T atomic_dec_if_positive(A *v): the value minus 1, stored only when
 *     that is not negative (0 stays 0, and -1 is returned).
 */
#define DMAMAP_ATOMIC_OPS(pfx, A, T, U)                                                                    \
	static inline T pfx##_read(const A *v)                                                            \
	{                                                                                                 \
		return __atomic_load_n(&v->counter, __ATOMIC_RELAXED);                                    \
	}                                                                                                 \
	static inline T pfx##_read_acquire(const A *v)                                                    \
	{                                                                                                 \
		return __atomic_load_n(&v->counter, __ATOMIC_ACQUIRE);                                    \
	}                                                                                                 \
	static inline void pfx##_set(A *v, T i)                                                           \
	{                                                                                                 \
		__atomic_store_n(&v->counter, i, __ATOMIC_RELAXED);                                       \
	}                                                                                                 \
	static inline void pfx##_set_release(A *v, T i)                                                   \
	{                                                                                                 \
		__atomic_store_n(&v->counter, i, __ATOMIC_RELEASE);                                       \
	}                                                                                                 \
	static inline void pfx##_add(T i, A *v)                                                           \
	{                                                                                                 \
		__atomic_fetch_add(&v->counter, i, __ATOMIC_RELAXED);                                     \
	}                                                                                                 \
	static inline void pfx##_sub(T i, A *v)                                                           \
	{                                                                                                 \
		__atomic_fetch_sub(&v->counter, i, __ATOMIC_RELAXED);                                     \
	}                                                                                                 \
	static inline void pfx##_inc(A *v)                                                                \
	{                                                                                                 \
		__atomic_fetch_add(&v->counter, 1, __ATOMIC_RELAXED);                                     \
	}                                                                                                 \
	static inline void pfx##_dec(A *v)                                                                \
	{                                                                                                 \
		__atomic_fetch_sub(&v->counter, 1, __ATOMIC_RELAXED);                                     \
	}                                                                                                 \
	static inline void pfx##_and(T i, A *v)                                                           \
	{                                                                                                 \
		__atomic_fetch_and(&v->counter, i, __ATOMIC_RELAXED);                                     \
	}                                                                                                 \
	static inline void pfx##_or(T i, A *v)                                                            \
	{                                                                                                 \
		__atomic_fetch_or(&v->counter, i, __ATOMIC_RELAXED);                                      \
	}                                                                                                 \
	static inline void pfx##_xor(T i, A *v)                                                           \
	{                                                                                                 \
		__atomic_fetch_xor(&v->counter, i, __ATOMIC_RELAXED);                                     \
	}                                                                                                 \
	static inline void pfx##_andnot(T i, A *v)                                                        \
	{                                                                                                 \
		__atomic_fetch_and(&v->counter, ~i, __ATOMIC_RELAXED);                                    \
	}                                                                                                 \
	DMAMAP_ATOMIC_ORDERED_OPS(pfx, A, T, , DMAMAP_MO_FULL)                                            \
	DMAMAP_ATOMIC_ORDERED_OPS(pfx, A, T, _relaxed, DMAMAP_MO_RELAXED)                                 \
	DMAMAP_ATOMIC_ORDERED_OPS(pfx, A, T, _acquire, DMAMAP_MO_ACQUIRE)                                 \
	DMAMAP_ATOMIC_ORDERED_OPS(pfx, A, T, _release, DMAMAP_MO_RELEASE)                                 \
	static inline bool pfx##_sub_and_test(T i, A *v)                                                  \
	{                                                                                                 \
		return pfx##_sub_return(i, v) == 0;                                                       \
	}                                                                                                 \
	static inline bool pfx##_dec_and_test(A *v)                                                       \
	{                                                                                                 \
		return pfx##_dec_return(v) == 0;                                                          \
	}                                                                                                 \
	static inline bool pfx##_inc_and_test(A *v)                                                       \
	{                                                                                                 \
		return pfx##_inc_return(v) == 0;                                                          \
	}                                                                                                 \
	static inline bool pfx##_add_negative(T i, A *v)                                                  \
	{                                                                                                 \
		return pfx##_add_return(i, v) < 0;                                                        \
	}                                                                                                 \
	static inline T pfx##_fetch_add_unless(A *v, T a, T u)                                            \
	{                                                                                                 \
		T c = pfx##_read(v);                                                                      \
                                                                                                          \
		do {                                                                                      \
			if (c == u)                                                                       \
				break;                                                                    \
		} while (!pfx##_try_cmpxchg(v, &c, (T)((U)c + (U)a)));                                    \
		return c;                                                                                 \
	}                                                                                                 \
	static inline bool pfx##_add_unless(A *v, T a, T u)                                               \
	{                                                                                                 \
		return pfx##_fetch_add_unless(v, a, u) != u;                                              \
	}                                                                                                 \
	static inline bool pfx##_inc_not_zero(A *v)                                                       \
	{                                                                                                 \
		return pfx##_add_unless(v, 1, 0);                                                         \
	}                                                                                                 \
	static inline bool pfx##_inc_unless_negative(A *v)                                                \
	{                                                                                                 \
		T c = pfx##_read(v);                                                                      \
                                                                                                          \
		do {                                                                                      \
			if (c < 0)                                                                        \
				return false;                                                             \
		} while (!pfx##_try_cmpxchg(v, &c, (T)((U)c + 1)));                                       \
		return true;                                                                              \
	}                                                                                                 \
	static inline bool pfx##_dec_unless_positive(A *v)                                                \
	{                                                                                                 \
		T c = pfx##_read(v);                                                                      \
                                                                                                          \
		do {                                                                                      \
			if (c > 0)                                                                        \
				return false;                                                             \
		} while (!pfx##_try_cmpxchg(v, &c, (T)((U)c - 1)));                                       \
		return true;                                                                              \
	}                                                                                                 \
	static inline T pfx##_dec_if_positive(A *v)                                                       \
	{                                                                                                 \
		T c = pfx##_read(v), dec;                                                                 \
                                                                                                          \
		do {                                                                                      \
			dec = (T)((U)c - 1);                                                              \
			if (dec < 0)                                                                      \
				break;                                                                    \
		} while (!pfx##_try_cmpxchg(v, &c, dec));                                                 \
		return dec;                                                                               \
	}

DMAMAP_ATOMIC_OPS(atomic, atomic_t, int, unsigned int)
DMAMAP_ATOMIC_OPS(atomic64, atomic64_t, s64, u64)
DMAMAP_ATOMIC_OPS(atomic_long, atomic_long_t, long, unsigned long)

/*
 * cmpxchg(@ptr, @old, @new) - store @new in *@ptr (a plain integer or
 * pointer variable) if it holds @old; the value before either way.
 * xchg(@ptr, @new) - store @new; the value before. try_cmpxchg(@ptr, @oldp,
 * @new) - store @new if *@ptr equals *@oldp and return true, else false
 * with the value in *@oldp. Fully ordered; the _relaxed, _acquire and
 * _release forms as named. @ptr and @oldp are evaluated once; *@oldp must
 * have *@ptr's type.
 */
#define DMAMAP_CMPXCHG_(ptr, o, n, mo, uo)                                                            \
	__extension__({                                                                               \
		__typeof__(*(ptr)) uo = (o);                                                          \
		__atomic_compare_exchange_n((ptr), &uo, (n), false, DMAMAP_MO_OK(mo), DMAMAP_MO_FAIL(mo)); \
		uo;                                                                                   \
	})
#define cmpxchg(ptr, o, n) DMAMAP_CMPXCHG_(ptr, o, n, DMAMAP_MO_FULL, DMAMAP_UNIQUE(dmamap_old_))
#define cmpxchg_relaxed(ptr, o, n) DMAMAP_CMPXCHG_(ptr, o, n, DMAMAP_MO_RELAXED, DMAMAP_UNIQUE(dmamap_old_))
#define cmpxchg_acquire(ptr, o, n) DMAMAP_CMPXCHG_(ptr, o, n, DMAMAP_MO_ACQUIRE, DMAMAP_UNIQUE(dmamap_old_))
#define cmpxchg_release(ptr, o, n) DMAMAP_CMPXCHG_(ptr, o, n, DMAMAP_MO_RELEASE, DMAMAP_UNIQUE(dmamap_old_))
#define try_cmpxchg(ptr, oldp, n) __atomic_compare_exchange_n((ptr), (oldp), (n), false, DMAMAP_MO_OK(DMAMAP_MO_FULL), DMAMAP_MO_FAIL(DMAMAP_MO_FULL))
#define try_cmpxchg_relaxed(ptr, oldp, n) \
	__atomic_compare_exchange_n((ptr), (oldp), (n), false, __ATOMIC_RELAXED, __ATOMIC_RELAXED)
#define try_cmpxchg_acquire(ptr, oldp, n) \
	__atomic_compare_exchange_n((ptr), (oldp), (n), false, __ATOMIC_ACQUIRE, __ATOMIC_ACQUIRE)
#define try_cmpxchg_release(ptr, oldp, n) \
	__atomic_compare_exchange_n((ptr), (oldp), (n), false, __ATOMIC_RELEASE, __ATOMIC_RELAXED)
#define xchg(ptr, n) __atomic_exchange_n((ptr), (n), __ATOMIC_SEQ_CST)
#define xchg_relaxed(ptr, n) __atomic_exchange_n((ptr), (n), __ATOMIC_RELAXED)
#define xchg_acquire(ptr, n) __atomic_exchange_n((ptr), (n), __ATOMIC_ACQUIRE)
#define xchg_release(ptr, n) __atomic_exchange_n((ptr), (n), __ATOMIC_RELEASE)

/*
 * smp_mb__before_atomic(), smp_mb__after_atomic() - make a relaxed atomic
 * operation (atomic_inc(), set_bit()...) that follows or precedes them
 * fully ordered, as smp_mb() would. smp_load_acquire(@p) - read *@p, no
 * later access moving before it; smp_store_release(@p, @v) - store @v in
 * *@p, no earlier access moving after it (the pair hands data from one
 * thread to another). smp_acquire__after_ctrl_dep() - acquire ordering for
 * the accesses after a branch on a value read before.
 */
#ifndef smp_mb__before_atomic
#define smp_mb__before_atomic() smp_mb()
#define smp_mb__after_atomic() smp_mb()
#endif
#ifndef smp_load_acquire
#define smp_load_acquire(p) __atomic_load_n((p), __ATOMIC_ACQUIRE)
#define smp_store_release(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)
#endif
#ifndef smp_acquire__after_ctrl_dep
#define smp_acquire__after_ctrl_dep() smp_rmb()
#endif

DMAMAP_END_DECLS

#endif /* _LINUX_ATOMIC_H */
