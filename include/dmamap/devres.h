/* SPDX-License-Identifier: MIT */
/*
 * Managed resources (devres): memory, coherent buffers, dma_pools and actions
 * a driver takes in probe and never releases itself.
 *
 * Each devm_ or dmam_ call records its resource on the device (devm_kmemdup(),
 * devm_kmemdup_array() and devm_kstrdup() are devm_kmalloc() memory holding a
 * copy; devm_krealloc() resizes such memory in its place). When the
 * driver goes (dmamap_device_release(), which stands for the driver's unbind),
 * the resources are released first, in the reverse order of their taking, as
 * devres_release_all() does: actions run, pools are destroyed, coherent
 * buffers freed, memory given back. None of that is reported: it is what
 * managed resources are for. A resource released by hand (devm_kfree(),
 * dmam_free_coherent(), dmam_pool_destroy(), devm_remove_action()) is
 * forgotten; one the device does not hold is reported
 * (DMAMAP_REPORT_API_MISUSE) and left alone.
 *
 * Each call is a macro passing the caller's file and line, kept with the
 * resource for reports, over a function of the kernel's signature. Thread-safe.
 */
#ifndef DMAMAP_DEVRES_H
#define DMAMAP_DEVRES_H

#include <stdarg.h>

#include <dmamap/types.h>

DMAMAP_BEGIN_DECLS

struct dma_attrs;
struct dma_pool;

/**
 * dmamap_devm_kmalloc() - kmalloc() memory of @dev's machine, freed when the device goes
 * @dev: an initialised device
 * @size: bytes; 0 returns ZERO_SIZE_PTR (nothing recorded)
 * @gfp: as dmamap_kmalloc()
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 *
 * Return: the memory (aligned as kmalloc's), or NULL: no memory, injected
 * failure (DMAMAP_FAULT_KMALLOC and the others kmalloc uses,
 * DMAMAP_FAULT_HOST_ALLOC for the record), or a NULL or uninitialised device
 * (reported). kfree() and krealloc() refuse the memory (reported): it goes
 * with the device, or with devm_kfree(); devm_krealloc() resizes it.
 */
DMAMAP_API void *dmamap_devm_kmalloc(struct device *dev, size_t size, gfp_t gfp, const char *file, int line);

/**
 * dmamap_devm_kmalloc_array() - dmamap_devm_kmalloc() of @n objects of @size bytes
 * @dev: an initialised device
 * @n: number of objects
 * @size: bytes each
 * @gfp: as dmamap_kmalloc()
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 *
 * Return: as dmamap_devm_kmalloc(); NULL (not reported) when @n * @size overflows.
 */
DMAMAP_API void *dmamap_devm_kmalloc_array(struct device *dev, size_t n, size_t size, gfp_t gfp, const char *file,
					   int line);

/**
 * dmamap_devm_krealloc() - resize devm_kmalloc() memory of @dev, still released with the device
 * @dev: an initialised device
 * @p: what devm_kmalloc() (or devm_kmemdup(), devm_kstrdup()...) returned on
 *     @dev; NULL or ZERO_SIZE_PTR make this dmamap_devm_kmalloc()
 * @new_size: bytes; 0 frees @p as devm_kfree() does and returns ZERO_SIZE_PTR
 * @gfp: as dmamap_kmalloc(); __GFP_ZERO zeroes the bytes beyond the old size
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 *
 * As the kernel's: the contents are kept up to the lesser of the two sizes;
 * when the object's slot already holds @new_size bytes @p itself is
 * returned, otherwise a new managed object on the device's machine receives
 * the contents (as the CPU sees them) and @p is freed. The memory stays
 * @dev's, in its place among the device's resources (the release order does
 * not change), for the device's release or devm_kfree() to free. A @p @dev
 * does not hold (plain kmalloc() memory, another device's, freed already) is
 * reported as DMAMAP_REPORT_API_MISUSE and nothing changes.
 * Return: the memory; NULL, with @p as it was and still managed, when no
 * memory can be had (DMAMAP_FAULT_KMALLOC and the others kmalloc uses),
 * for a @p @dev does not hold, a NULL or uninitialised device, unknown gfp
 * bits or a size above KMALLOC_MAX_SIZE (reported), or when @p is still
 * mapped for DMA (the checker reports it, as for kfree()).
 */
DMAMAP_API void *dmamap_devm_krealloc(struct device *dev, void *p, size_t new_size, gfp_t gfp, const char *file,
				      int line);

/**
 * dmamap_devm_krealloc_array() - dmamap_devm_krealloc() to @new_n objects of @new_size bytes
 * @dev: an initialised device
 * @p: as dmamap_devm_krealloc()
 * @new_n: number of objects
 * @new_size: bytes each
 * @gfp: as dmamap_devm_krealloc()
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 *
 * Return: as dmamap_devm_krealloc(); NULL (not reported), with @p as it was
 * and nothing allocated, when @new_n * @new_size overflows.
 */
DMAMAP_API void *dmamap_devm_krealloc_array(struct device *dev, void *p, size_t new_n, size_t new_size, gfp_t gfp,
					    const char *file, int line);

/**
 * dmamap_devm_kfree() - free managed memory now
 * @dev: the device that holds it
 * @p: what devm_kmalloc() returned; NULL and ZERO_SIZE_PTR are ignored
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 *
 * Memory @dev does not hold (plain kmalloc() memory, another device's) is
 * reported and not freed.
 */
DMAMAP_API void dmamap_devm_kfree(struct device *dev, const void *p, const char *file, int line);

/**
 * dmamap_devm_kmemdup() - a copy of @len bytes at @src in managed memory of @dev
 * @dev: an initialised device
 * @src: the bytes (any memory the CPU can read); NULL only with @len 0
 * @len: bytes; 0 returns ZERO_SIZE_PTR (nothing recorded)
 * @gfp: as dmamap_kmalloc() (__GFP_ZERO is pointless and ignored)
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 *
 * The copy is stored through the CPU, as the kernel's memcpy would, and freed
 * when the device goes, as dmamap_devm_kmalloc() memory is (or by
 * devm_kfree()).
 * Return: the copy; NULL as dmamap_devm_kmalloc(), or for a NULL @src with a
 * non-zero @len (reported as DMAMAP_REPORT_BAD_INPUT).
 */
DMAMAP_API void *dmamap_devm_kmemdup(struct device *dev, const void *src, size_t len, gfp_t gfp, const char *file,
				     int line);

/**
 * dmamap_devm_kmemdup_array() - dmamap_devm_kmemdup() of @n objects of @size bytes at @src
 * @dev: an initialised device
 * @src: the objects (any memory the CPU can read)
 * @n: number of objects
 * @size: bytes each
 * @gfp: as dmamap_devm_kmemdup()
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 *
 * Return: as dmamap_devm_kmemdup() of @n * @size bytes; NULL (not reported),
 * with nothing allocated, when the product overflows.
 */
DMAMAP_API void *dmamap_devm_kmemdup_array(struct device *dev, const void *src, size_t n, size_t size, gfp_t gfp,
					   const char *file, int line);

/**
 * dmamap_devm_kstrdup() - dmamap_devm_kmemdup() of the string @s with its terminating NUL
 * @dev: an initialised device
 * @s: the string, or NULL
 * @gfp: as dmamap_kmalloc()
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 *
 * Return: the copy, freed when the device goes; NULL for a NULL @s (not
 * reported, as the kernel's), or as dmamap_devm_kmemdup().
 */
DMAMAP_API char *dmamap_devm_kstrdup(struct device *dev, const char *s, gfp_t gfp, const char *file, int line);

/**
 * dmamap_devm_kvasprintf() - dmamap_kvasprintf() in managed memory of @dev
 * @dev: the device
 * @gfp: as dmamap_devm_kmalloc()
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 * @fmt: a printf format, with the kernel's printk extensions
 * @ap: its arguments
 *
 * Return: the string, released with @dev (or by devm_kfree()); NULL as
 * dmamap_devm_kmalloc(), or for a NULL @fmt (reported).
 */
DMAMAP_API char *dmamap_devm_kvasprintf(struct device *dev, gfp_t gfp, const char *file, int line, const char *fmt,
					va_list ap) DMAMAP_PRINTF(5, 0);

/** dmamap_devm_kasprintf() - dmamap_devm_kvasprintf() of the arguments after @fmt. */
DMAMAP_API char *dmamap_devm_kasprintf(struct device *dev, gfp_t gfp, const char *file, int line, const char *fmt,
				       ...) DMAMAP_PRINTF(5, 6);

/**
 * dmamap_dmam_alloc_attrs() - a coherent buffer freed when the device goes
 * @dev: the device
 * @size: bytes, non-zero
 * @dma_handle: receives the bus address
 * @gfp: GFP_KERNEL or GFP_ATOMIC
 * @attrs: the 2012 API's struct dma_attrs, or NULL for plain coherent memory
 *         (copied: the caller's struct need not live on)
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 *
 * Allocated as dma_alloc_attrs() does, through the same core and checker.
 * Return: the CPU address, or NULL (also when the record cannot be had:
 * DMAMAP_FAULT_HOST_ALLOC; the buffer is then freed again).
 */
DMAMAP_API void *dmamap_dmam_alloc_attrs(struct device *dev, size_t size, dma_addr_t *dma_handle, gfp_t gfp,
					 const struct dma_attrs *attrs, const char *file, int line);

/**
 * dmamap_dmam_free_coherent() - free a managed coherent buffer now
 * @dev: the device
 * @size: the size allocated
 * @vaddr: what dmam_alloc_coherent() returned
 * @dma_handle: its bus address
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 *
 * A buffer @dev does not hold as a managed one, or a size or handle that
 * differs from the allocation's, is reported and nothing is freed.
 */
DMAMAP_API void dmamap_dmam_free_coherent(struct device *dev, size_t size, void *vaddr, dma_addr_t dma_handle,
					  const char *file, int line);

/**
 * dmamap_dmam_pool_create() - dma_pool_create() destroyed when the device goes
 * @name: for messages
 * @dev: the device
 * @size: block size
 * @align: block alignment
 * @boundary: boundary no block crosses, or 0
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 *
 * Return: the pool, or NULL (as dma_pool_create(), or no memory for the record).
 */
DMAMAP_API struct dma_pool *dmamap_dmam_pool_create(const char *name, struct device *dev, size_t size, size_t align,
						    size_t boundary, const char *file, int line);

/**
 * dmamap_dmam_pool_destroy() - destroy a managed pool now
 * @pool: what dmam_pool_create() returned; NULL is ignored
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 *
 * A pool no device holds as managed is reported and not destroyed; one
 * destroyed already is reported process-wide (DMAMAP_REPORT_BAD_INPUT, the
 * pointer compared, never read through) and nothing is done.
 */
DMAMAP_API void dmamap_dmam_pool_destroy(struct dma_pool *pool, const char *file, int line);

/**
 * dmamap_devm_add_action() - call @action(@data) when the device goes
 * @dev: the device
 * @action: the function
 * @data: its argument
 * @or_reset: when the action cannot be recorded, call it at once (devm_add_action_or_reset())
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 *
 * Return: 0; -ENOMEM when the record cannot be had (DMAMAP_FAULT_HOST_ALLOC);
 * -EINVAL for a NULL or uninitialised device or a NULL action (reported).
 */
DMAMAP_API int dmamap_devm_add_action(struct device *dev, void (*action)(void *), void *data, bool or_reset,
				      const char *file, int line);

/**
 * devm_remove_action() - forget an action without calling it
 * @dev: the device
 * @action: the function given to devm_add_action()
 * @data: its argument
 *
 * An action the device does not hold is reported.
 */
DMAMAP_API void devm_remove_action(struct device *dev, void (*action)(void *), void *data);

/**
 * devm_release_action() - call an action now and forget it
 * @dev: the device
 * @action: the function given to devm_add_action()
 * @data: its argument
 *
 * An action the device does not hold is reported and not called.
 */
DMAMAP_API void devm_release_action(struct device *dev, void (*action)(void *), void *data);

/**
 * dmamap_device_unbind() - release @dev's managed resources now
 * @dev: an initialised device
 *
 * What the driver core does when a driver's probe fails or the driver
 * unbinds: every devm_/dmam_ resource goes, newest first; then a clock the
 * driver left on, or a clock handle it never put, is reported as a leak and
 * undone (<dmamap/clk.h>), as is a reset control it never put
 * (<dmamap/reset.h>). The device stays initialised, ready for another
 * probe. A NULL or uninitialised device is reported.
 */
DMAMAP_API void dmamap_device_unbind(struct device *dev);

/**
 * dmamap_devres_count() - how many managed resources @dev holds now
 * @dev: the device
 *
 * Return: the count; 0 for a NULL or uninitialised device.
 */
DMAMAP_API unsigned long dmamap_devres_count(struct device *dev);

/** devm_kmalloc() - kmalloc() released with @dev (see dmamap_devm_kmalloc()). */
static inline void *devm_kmalloc(struct device *dev, size_t size, gfp_t gfp)
{
	return dmamap_devm_kmalloc(dev, size, gfp, NULL, 0);
}

/** devm_kzalloc() - zeroed devm_kmalloc(). */
static inline void *devm_kzalloc(struct device *dev, size_t size, gfp_t gfp)
{
	return dmamap_devm_kmalloc(dev, size, gfp | __GFP_ZERO, NULL, 0);
}

/** devm_kmalloc_array() - devm_kmalloc() of @n objects of @size bytes; NULL on overflow. */
static inline void *devm_kmalloc_array(struct device *dev, size_t n, size_t size, gfp_t gfp)
{
	return dmamap_devm_kmalloc_array(dev, n, size, gfp, NULL, 0);
}

/** devm_kcalloc() - zeroed devm_kmalloc_array(). */
static inline void *devm_kcalloc(struct device *dev, size_t n, size_t size, gfp_t gfp)
{
	return dmamap_devm_kmalloc_array(dev, n, size, gfp | __GFP_ZERO, NULL, 0);
}

/** devm_kmemdup() - a copy of @len bytes at @src released with @dev (see dmamap_devm_kmemdup()). */
static inline void *devm_kmemdup(struct device *dev, const void *src, size_t len, gfp_t gfp)
{
	return dmamap_devm_kmemdup(dev, src, len, gfp, NULL, 0);
}

/** devm_kmemdup_array() - devm_kmemdup() of @n objects of @size bytes; NULL on overflow, nothing allocated. */
static inline void *devm_kmemdup_array(struct device *dev, const void *src, size_t n, size_t size, gfp_t flags)
{
	return dmamap_devm_kmemdup_array(dev, src, n, size, flags, NULL, 0);
}

/** devm_krealloc() - resize devm_kmalloc() memory, still released with @dev (see dmamap_devm_krealloc()). */
static inline void *devm_krealloc(struct device *dev, void *ptr, size_t new_size, gfp_t gfp)
{
	return dmamap_devm_krealloc(dev, ptr, new_size, gfp, NULL, 0);
}

/** devm_krealloc_array() - devm_krealloc() to @new_n objects of @new_size bytes; NULL on overflow, @p kept. */
static inline void *devm_krealloc_array(struct device *dev, void *p, size_t new_n, size_t new_size, gfp_t flags)
{
	return dmamap_devm_krealloc_array(dev, p, new_n, new_size, flags, NULL, 0);
}

/** devm_kstrdup() - a copy of the string @s released with @dev; NULL for NULL (see dmamap_devm_kstrdup()). */
static inline char *devm_kstrdup(struct device *dev, const char *s, gfp_t gfp)
{
	return dmamap_devm_kstrdup(dev, s, gfp, NULL, 0);
}

/**
 * devm_kstrdup_const() - devm_kstrdup(): always a copy here (the kernel returns a string of its read-only
 * data itself, which a user program cannot tell apart); free it with devm_kfree() or leave it to @dev.
 */
static inline const char *devm_kstrdup_const(struct device *dev, const char *s, gfp_t gfp)
{
	return dmamap_devm_kstrdup(dev, s, gfp, NULL, 0);
}

/** devm_kfree() - free managed memory now (see dmamap_devm_kfree()). */
static inline void devm_kfree(struct device *dev, const void *p)
{
	dmamap_devm_kfree(dev, p, NULL, 0);
}

/** dmam_alloc_coherent() - dma_alloc_coherent() released with @dev. */
static inline void *dmam_alloc_coherent(struct device *dev, size_t size, dma_addr_t *dma_handle, gfp_t gfp)
{
	return dmamap_dmam_alloc_attrs(dev, size, dma_handle, gfp, NULL, NULL, 0);
}

/** dmam_free_coherent() - free a managed coherent buffer now (see dmamap_dmam_free_coherent()). */
static inline void dmam_free_coherent(struct device *dev, size_t size, void *vaddr, dma_addr_t dma_handle)
{
	dmamap_dmam_free_coherent(dev, size, vaddr, dma_handle, NULL, 0);
}

/** dmam_pool_create() - dma_pool_create() destroyed with @dev. */
static inline struct dma_pool *dmam_pool_create(const char *name, struct device *dev, size_t size, size_t align,
						size_t allocation)
{
	return dmamap_dmam_pool_create(name, dev, size, align, allocation, NULL, 0);
}

/** dmam_pool_destroy() - destroy a managed pool now. */
static inline void dmam_pool_destroy(struct dma_pool *pool)
{
	dmamap_dmam_pool_destroy(pool, NULL, 0);
}

/** devm_add_action() - call @action(@data) when @dev goes; 0 or -ENOMEM. */
static inline int devm_add_action(struct device *dev, void (*action)(void *), void *data)
{
	return dmamap_devm_add_action(dev, action, data, false, NULL, 0);
}

/** devm_add_action_or_reset() - devm_add_action(), calling @action at once when it fails. */
static inline int devm_add_action_or_reset(struct device *dev, void (*action)(void *), void *data)
{
	return dmamap_devm_add_action(dev, action, data, true, NULL, 0);
}

#define devm_kmalloc(d, s, g) dmamap_devm_kmalloc((d), (s), (g), __FILE__, __LINE__)
#define devm_kzalloc(d, s, g) dmamap_devm_kmalloc((d), (s), (g) | __GFP_ZERO, __FILE__, __LINE__)
#define devm_kmalloc_array(d, n, s, g) dmamap_devm_kmalloc_array((d), (n), (s), (g), __FILE__, __LINE__)
#define devm_kcalloc(d, n, s, g) dmamap_devm_kmalloc_array((d), (n), (s), (g) | __GFP_ZERO, __FILE__, __LINE__)
#define devm_kmemdup(d, s, l, g) dmamap_devm_kmemdup((d), (s), (l), (g), __FILE__, __LINE__)
#define devm_kstrdup(d, s, g) dmamap_devm_kstrdup((d), (s), (g), __FILE__, __LINE__)
#define devm_kmemdup_array(d, s, n, z, g) dmamap_devm_kmemdup_array((d), (s), (n), (z), (g), __FILE__, __LINE__)
#define devm_krealloc(d, p, s, g) dmamap_devm_krealloc((d), (p), (s), (g), __FILE__, __LINE__)
#define devm_krealloc_array(d, p, n, s, g) dmamap_devm_krealloc_array((d), (p), (n), (s), (g), __FILE__, __LINE__)
#define devm_kstrdup_const(d, s, g) ((const char *)dmamap_devm_kstrdup((d), (s), (g), __FILE__, __LINE__))
#define devm_kfree(d, p) dmamap_devm_kfree((d), (p), __FILE__, __LINE__)
#define dmam_alloc_coherent(d, s, h, g) dmamap_dmam_alloc_attrs((d), (s), (h), (g), NULL, __FILE__, __LINE__)
#define dmam_free_coherent(d, s, v, h) dmamap_dmam_free_coherent((d), (s), (v), (h), __FILE__, __LINE__)
#define dmam_pool_create(n, d, s, a, b) dmamap_dmam_pool_create((n), (d), (s), (a), (b), __FILE__, __LINE__)
#define dmam_pool_destroy(p) dmamap_dmam_pool_destroy((p), __FILE__, __LINE__)
#define devm_add_action(d, a, p) dmamap_devm_add_action((d), (a), (p), false, __FILE__, __LINE__)
#define devm_add_action_or_reset(d, a, p) dmamap_devm_add_action((d), (a), (p), true, __FILE__, __LINE__)

DMAMAP_END_DECLS

#endif /* DMAMAP_DEVRES_H */
