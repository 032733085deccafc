/* SPDX-License-Identifier: MIT */
/*
 * <linux/slab.h> of Linux 6.x over libdmamap: kmalloc(), kzalloc(), kcalloc(),
 * kmalloc_array(), krealloc(), krealloc_array(), kmemdup(), kmemdup_array()
 * (which the kernel declares in <linux/string.h>), kfree()... over
 * the RAM of the current machine (see <dmamap/slab.h> for the model, the
 * alignment and the reports), kstrdup() (which the kernel declares in
 * <linux/string.h>; that header brings this one), kasprintf(), and the
 * alignment constants drivers use for DMA buffers.
 */
#ifndef _LINUX_SLAB_H
#define _LINUX_SLAB_H

#include <dmamap/linux-api.h>
#include <linux/cleanup.h>
#include <linux/gfp.h>
#include <dmamap/slab.h>

/* A DMA buffer aligned and sized to this shares no cache line (see DMAMAP_ARCH_DMA_MINALIGN). */
#define ARCH_DMA_MINALIGN DMAMAP_ARCH_DMA_MINALIGN
/* What kmalloc guarantees at least; the machine's cache line unless it packs (kmalloc_packed). */
#define ARCH_KMALLOC_MINALIGN DMAMAP_ARCH_KMALLOC_MINALIGN
#ifndef ____cacheline_aligned
#define ____cacheline_aligned __aligned(ARCH_DMA_MINALIGN)
#endif

/**
 * dmamap_kstrdup_at() - kstrdup() called at @file:@line
 * @s: the string, or NULL
 * @gfp: as dmamap_kmalloc()
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 *
 * Return: a kmalloc copy of @s with its NUL on the current machine, which the
 * caller frees with kfree(); NULL for a NULL @s (as the kernel's) or as
 * dmamap_kmemdup().
 */
static inline char *dmamap_kstrdup_at(const char *s, gfp_t gfp, const char *file, int line)
{
	return s ? (char *)dmamap_kmemdup(s, strlen(s) + 1, gfp, file, line) : NULL;
}

/**
 * dmamap_krealloc_array_at() - krealloc_array() called at @file:@line
 * @p: as dmamap_krealloc()
 * @n: number of objects
 * @size: bytes each
 * @gfp: as dmamap_krealloc()
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 *
 * Return: dmamap_krealloc() of @n * @size bytes; NULL, with @p left as it
 * was (still the caller's), when the product overflows, as the kernel's.
 */
static inline void *dmamap_krealloc_array_at(const void *p, size_t n, size_t size, gfp_t gfp, const char *file,
					     int line)
{
	size_t bytes;

	if (__builtin_mul_overflow(n, size, &bytes))
		return NULL;
	return dmamap_krealloc(p, bytes, gfp, file, line);
}

/**
 * dmamap_kmemdup_array_at() - kmemdup_array() called at @file:@line
 * @src: the objects (any memory the CPU can read)
 * @count: number of objects
 * @element_size: bytes each
 * @gfp: as dmamap_kmalloc()
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 *
 * Return: dmamap_kmemdup() of @count * @element_size bytes, which the caller
 * frees with kfree(); NULL (not reported), with nothing allocated, when the
 * product overflows.
 */
static inline void *dmamap_kmemdup_array_at(const void *src, size_t count, size_t element_size, gfp_t gfp,
					    const char *file, int line)
{
	size_t bytes;

	if (__builtin_mul_overflow(count, element_size, &bytes))
		return NULL;
	return dmamap_kmemdup(src, bytes, gfp, file, line);
}

/*
 * kasprintf() - a kmalloc string formatted as printk() formats (%pad, %pe...
 * included), which the caller frees with kfree(); NULL when out of memory.
 * kvasprintf() takes a va_list. The kernel declares them in <linux/sprintf.h>
 * (<linux/kernel.h> before 6.7), which brings this header; here they come
 * with kmalloc too.
 */
#define kasprintf(gfp, ...) dmamap_kasprintf((gfp), __FILE__, __LINE__, __VA_ARGS__)
#define kvasprintf(gfp, fmt, ap) dmamap_kvasprintf((gfp), __FILE__, __LINE__, (fmt), (ap))
#define kstrdup(s, gfp) dmamap_kstrdup_at((s), (gfp), __FILE__, __LINE__)
#define krealloc_array(p, n, size, gfp) dmamap_krealloc_array_at((p), (n), (size), (gfp), __FILE__, __LINE__)
#define kmemdup_array(src, count, size, gfp) dmamap_kmemdup_array_at((src), (count), (size), (gfp), __FILE__, __LINE__)

/* The free classes of <linux/cleanup.h>: void *p __free(kfree) = kmalloc(...), kvfree of kvmalloc(). */
DEFINE_FREE(kfree, void *, if (!IS_ERR_OR_NULL(_T)) dmamap_kfree(_T, NULL, 0))
DEFINE_FREE(kvfree, void *, if (!IS_ERR_OR_NULL(_T)) dmamap_kvfree_at(_T, NULL, 0))

#endif /* _LINUX_SLAB_H */
