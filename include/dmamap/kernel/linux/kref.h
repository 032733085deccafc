/* SPDX-License-Identifier: MIT */
/*
 * <linux/kref.h> of Linux 6.x over libdmamap: struct kref, the reference
 * count embedded in an object that its release function frees, over
 * refcount_t (<linux/refcount.h>) and with its checks: a kref_get() of an
 * object already released, or a kref_put() too many, saturates the count
 * and is reported (DMAMAP_REPORT_REFCOUNT) at the call's line instead of
 * releasing the object twice. The calls are macros passing their line.
 */
#ifndef _LINUX_KREF_H
#define _LINUX_KREF_H

#include <dmamap/linux-api.h>
#include <linux/refcount.h>

DMAMAP_BEGIN_DECLS

struct kref {
	refcount_t refcount;
};

/* KREF_INIT() - the static initialiser of a kref holding @n references. */
#define KREF_INIT(n) { REFCOUNT_INIT(n) }

/** kref_init() - @kref holds one reference: its creator's. */
static inline void kref_init(struct kref *kref)
{
	refcount_set(&kref->refcount, 1);
}

/** kref_read() - the references @kref holds. */
static inline unsigned int kref_read(const struct kref *kref)
{
	return refcount_read(&kref->refcount);
}

/**
 * dmamap_kref_put_at() - kref_put() called at @file:@line
 * @kref: the object's kref
 * @release: called with @kref when the last reference goes; it frees the
 *           object (container_of(kref, ...)); not NULL
 * @file: the caller's source file
 * @line: the caller's source line
 *
 * Return: 1 when @release was called, 0 otherwise (other references remain,
 * or the count was misused: saturated and reported).
 */
static inline int dmamap_kref_put_at(struct kref *kref, void (*release)(struct kref *kref), const char *file, int line)
{
	if (dmamap_refcount_sub_and_test_at(1, &kref->refcount, NULL, file, line)) {
		release(kref);
		return 1;
	}
	return 0;
}

/*
 * kref_get(@kref) - take a reference on an object the caller holds one on
 * (refcount_inc()). kref_put(@kref, @release) - drop one; the last calls
 * @release(@kref); 1 when it did. kref_get_unless_zero(@kref) - take a
 * reference only while the object is not being released (found through a
 * lookup that does not hold one); non-zero when taken. kref_put_mutex() and
 * kref_put_lock() - kref_put() whose last reference is dropped holding the
 * mutex or spinlock @lock, which @release must unlock (it takes the object
 * out of what the lock guards).
 */
#define kref_get(kref) dmamap_refcount_add_at(1, &(kref)->refcount, NULL, __FILE__, __LINE__)
#define kref_put(kref, release) dmamap_kref_put_at((kref), (release), __FILE__, __LINE__)
#define kref_get_unless_zero(kref) ((int)dmamap_refcount_add_not_zero_at(1, &(kref)->refcount, NULL, __FILE__, __LINE__))
#define kref_put_mutex(kref, release, lock) \
	(refcount_dec_and_mutex_lock(&(kref)->refcount, lock) ? ((release)(kref), 1) : 0)
#define kref_put_lock(kref, release, lock) \
	(refcount_dec_and_lock(&(kref)->refcount, lock) ? ((release)(kref), 1) : 0)

DMAMAP_END_DECLS

#endif /* _LINUX_KREF_H */
