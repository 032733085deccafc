/* SPDX-License-Identifier: MIT */
/*
 * <linux/cleanup.h> of Linux 6.5 and later over libdmamap: scope-based
 * release with the compiler's cleanup attribute (gcc and clang, in C and in
 * C++). DEFINE_FREE() and __free() give a pointer variable a function run on
 * it when it goes out of scope (however: the block's end, break, return,
 * goto out of it); no_free_ptr() takes the pointer out of such a variable
 * (leaving NULL, so nothing is freed) and return_ptr() returns it so.
 * DEFINE_CLASS() and CLASS() make a variable of a type with a constructor
 * and a destructor; DEFINE_GUARD() a class holding a lock, guard() one
 * held to the end of the scope, scoped_guard() one held for the statement
 * (or block) that follows, scoped_cond_guard() one that may fail to take
 * the lock (then runs its failure statement), DEFINE_LOCK_GUARD_0() and
 * DEFINE_LOCK_GUARD_1() guards of a lock call and its unlock call.
 *
 * The headers that own a type define its free and guard classes, as the
 * kernel's do: kfree and kvfree (<linux/slab.h>), vfree
 * (<linux/vmalloc.h>), device_node (<linux/of.h>), fwnode_handle
 * (<linux/property.h>); the guards spinlock, spinlock_irq, spinlock_irqsave,
 * spinlock_bh, spinlock_try and their _try forms, the raw_spinlock ones
 * (<linux/spinlock.h>), mutex, mutex_try and mutex_intr (<linux/mutex.h>).
 * Those lock guards take the lock at the guard's file:line, as the explicit
 * call on that line would, and release it at scope exit naming the same
 * line (where the guard was written, not where the scope ends, which no
 * macro can know): the lock checker sees a guarded lock as an explicit one.
 */
#ifndef _LINUX_CLEANUP_H
#define _LINUX_CLEANUP_H

#include <dmamap/linux-api.h>
#include <dmamap/types.h>

#ifndef __cleanup
#define __cleanup(func) __attribute__((__cleanup__(func)))
#endif

#define __DMAMAP_PASTE_(a, b) a##b
#define __DMAMAP_PASTE(a, b) __DMAMAP_PASTE_(a, b)
/* A name no other of the same prefix shares in the translation unit. */
#define __DMAMAP_UNIQUE_ID(prefix) __DMAMAP_PASTE(__DMAMAP_PASTE(__dmamap_, prefix), __COUNTER__)

/*
 * DEFINE_FREE() - define the free class @_name of variables of @_type:
 * @_free runs at scope exit with the variable's value as _T.
 */
#define DEFINE_FREE(_name, _type, _free)                          \
	static inline __maybe_unused void __free_##_name(void *p) \
	{                                                         \
		_type _T = *(_type *)p;                           \
		_free;                                            \
	}
/* __free() - the variable it marks is released by free class @_name at scope exit. */
#define __free(_name) __cleanup(__free_##_name)

/* __get_and_null() - the value of @p, @p then set to @nullvalue. */
#define __get_and_null(p, nullvalue)                        \
	({                                                  \
		__typeof__(p) *__dmamap_ptr = &(p);         \
		__typeof__(p) __dmamap_val = *__dmamap_ptr; \
		*__dmamap_ptr = nullvalue;                  \
		__dmamap_val;                               \
	})

/* __must_check_fn() - @val, which the caller must use (no_free_ptr() whose result is dropped leaks). */
static inline __must_check const volatile void *__must_check_fn(const volatile void *val)
{
	return val;
}

/* no_free_ptr() - the pointer of a __free() variable, which is left NULL: the caller now owns it. */
#define no_free_ptr(p) ((__typeof__(p))__must_check_fn((void *)__get_and_null(p, NULL)))
/* return_ptr() - return the pointer of a __free() variable without freeing it. */
#define return_ptr(p) return no_free_ptr(p)
/* retain_and_null_ptr() - leave a __free() variable NULL, its pointer kept elsewhere. */
#define retain_and_null_ptr(p) ((void)__get_and_null(p, NULL))

/*
 * DEFINE_CLASS() - a class @_name of variables of @_type, made by a
 * constructor taking @_init_args and returning @_init, released by @_exit
 * (the variable's value being _T).
 */
#define DEFINE_CLASS(_name, _type, _exit, _init, _init_args...)                    \
	typedef _type class_##_name##_t;                                           \
	static inline __maybe_unused void class_##_name##_destructor(_type *p)     \
	{                                                                          \
		_type _T = *p;                                                     \
		_exit;                                                             \
	}                                                                          \
	static inline __maybe_unused _type class_##_name##_constructor(_init_args) \
	{                                                                          \
		_type t = _init;                                                   \
		return t;                                                          \
	}

/* CLASS() - declare @var of class @_name: CLASS(name, var)(args) calls its constructor with args. */
#define CLASS(_name, var) \
	class_##_name##_t var __maybe_unused __cleanup(class_##_name##_destructor) = class_##_name##_constructor

/*
 * DEFINE_GUARD() - a guard class @_name of a @_type pointer to a lock: @_lock
 * takes _T, @_unlock releases it (not run for a NULL _T).
 */
#define DEFINE_GUARD(_name, _type, _lock, _unlock)                                         \
	DEFINE_CLASS(_name, _type, if (_T) { _unlock; }, ({ _lock; _T; }), _type _T);      \
	static inline __maybe_unused void *class_##_name##_lock_ptr(class_##_name##_t *_T) \
	{                                                                                  \
		return (void *)(__UINTPTR_TYPE__)*_T;                                      \
	}

/* DEFINE_GUARD_COND() - @_name@_ext of a guard @_name whose @_condlock may fail (false: not held). */
#define DEFINE_GUARD_COND(_name, _ext, _condlock)                                                              \
	typedef class_##_name##_t class_##_name##_ext##_t;                                                     \
	static inline __maybe_unused void class_##_name##_ext##_destructor(class_##_name##_t *p)               \
	{                                                                                                      \
		class_##_name##_destructor(p);                                                                 \
	}                                                                                                      \
	static inline __maybe_unused class_##_name##_t class_##_name##_ext##_constructor(class_##_name##_t _T) \
	{                                                                                                      \
		if (_T && !(_condlock))                                                                        \
			_T = NULL;                                                                             \
		return _T;                                                                                     \
	}                                                                                                      \
	static inline __maybe_unused void *class_##_name##_ext##_lock_ptr(class_##_name##_t *_T)               \
	{                                                                                                      \
		return class_##_name##_lock_ptr(_T);                                                           \
	}

/* __guard_ptr() - what guard class @_name holds (its lock; NULL when a conditional one failed). */
#define __guard_ptr(_name) class_##_name##_lock_ptr

/* guard() - take guard class @_name's lock: guard(mutex)(&priv->lock); released at the scope's exit. */
#define guard(_name) CLASS(_name, __DMAMAP_UNIQUE_ID(guard))

/*
 * scoped_guard() - hold guard class @_name's lock (args: its constructor's)
 * for the statement that follows; a break or return in it releases the lock
 * too. A conditional guard (a _try form) that fails skips the statement.
 */
#define scoped_guard(_name, args...)                           \
	for (CLASS(_name, scope)(args), *__dmamap_done = NULL; \
	     __guard_ptr(_name)(&scope) && !__dmamap_done; __dmamap_done = (__typeof__(__dmamap_done))1)

/*
 * scoped_cond_guard() - scoped_guard() of a conditional guard class @_name
 * that runs @_fail (a return, say) instead when the lock is not taken.
 */
#define scoped_cond_guard(_name, _fail, args...)                               \
	for (CLASS(_name, scope)(args), *__dmamap_done = NULL; !__dmamap_done; \
	     __dmamap_done = (__typeof__(__dmamap_done))1)                     \
		if (!__guard_ptr(_name)(&scope)) {                             \
			_fail;                                                 \
		} else

/*
 * DEFINE_LOCK_GUARD_1() - a guard class @_name of a @_type lock: its
 * variable is a struct whose .lock is the lock; @_lock takes _T->lock,
 * @_unlock releases it. DEFINE_LOCK_GUARD_0(): the same of no lock (the
 * interrupt state, say), .lock being a dummy non-NULL pointer.
 */
#define __DEFINE_UNLOCK_GUARD(_name, _type, _unlock, ...)                                  \
	typedef struct {                                                                    \
		_type *lock;                                                                \
		__VA_ARGS__;                                                                \
	} class_##_name##_t;                                                                \
	static inline __maybe_unused void class_##_name##_destructor(class_##_name##_t *_T) \
	{                                                                                   \
		if (_T->lock) {                                                             \
			_unlock;                                                            \
		}                                                                           \
	}                                                                                   \
	static inline __maybe_unused void *class_##_name##_lock_ptr(class_##_name##_t *_T)  \
	{                                                                                   \
		return (void *)_T->lock;                                                    \
	}

/* The constructor of lock guard class @_name: its variable zeroed, .lock set to @l, then @_lock. */
#define __DEFINE_LOCK_GUARD_CONSTRUCTOR(_name, _params, l, _lock)                             \
	static inline __maybe_unused class_##_name##_t class_##_name##_constructor(_params)   \
	{                                                                                     \
		class_##_name##_t _t, *_T __maybe_unused = &_t;                               \
		__builtin_memset(&_t, 0, sizeof(_t));                                         \
		_t.lock = l;                                                                  \
		_lock;                                                                        \
		return _t;                                                                    \
	}

#define DEFINE_LOCK_GUARD_1(_name, _type, _lock, _unlock, ...)     \
	__DEFINE_UNLOCK_GUARD(_name, _type, _unlock, __VA_ARGS__)  \
	__DEFINE_LOCK_GUARD_CONSTRUCTOR(_name, _type *l, l, _lock)

#define DEFINE_LOCK_GUARD_0(_name, _lock, _unlock, ...)                   \
	__DEFINE_UNLOCK_GUARD(_name, void, _unlock, __VA_ARGS__)          \
	__DEFINE_LOCK_GUARD_CONSTRUCTOR(_name, void, (void *)1, _lock)

#endif /* _LINUX_CLEANUP_H */
