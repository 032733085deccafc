/* SPDX-License-Identifier: MIT */
/*
 * The kernel's kmalloc family over simulated RAM.
 *
 * kmalloc() and its relatives hand out memory of a machine's linear map, as
 * the kernel's do, so a driver's own buffers can be given to dma_map_single().
 * Small objects come from size classes (8, 16, 32, 64, 96, 128, 192, 256, 512,
 * 1024 and 2048 bytes) carved out of pages; larger requests take a block of
 * whole pages. A class smaller than the machine's kmalloc alignment does not
 * exist, and 96 and 192 exist only when they are multiples of it:
 *
 *  - by default the alignment is the machine's cache line (what
 *    ARCH_DMA_MINALIGN guarantees on ARM): no object shares a cache line with
 *    another, so any kmalloc buffer may be mapped for DMA;
 *  - with dmamap_machine_config.kmalloc_packed it is 8 bytes
 *    (ARCH_KMALLOC_MINALIGN): small objects share cache lines, and a receive
 *    buffer mapped for DMA loses bytes at its edges to its neighbours' cache
 *    maintenance, exactly as on a kernel that packs its kmalloc caches.
 *
 * Power-of-two sizes are naturally aligned. kmalloc() and the calls below act
 * on the current machine (dmamap_machine_current()); dmamap_kmalloc() names
 * the machine, devm_kmalloc() (<dmamap/devres.h>) uses the device's; kfree()
 * finds the machine from the pointer. GFP_DMA objects come from the DMA zone.
 *
 * Each kernel call is a macro that passes the caller's file and line to the
 * library, kept with the object for reports; `(kfree)(p)` and `&kfree` reach
 * a function with the kernel's signature. A freed object waits in a small
 * quarantine before it is reused (as under KASAN), so a second kfree() of it
 * is reported with the line of the first. Double frees, pointers that are not
 * the start of a live kmalloc object, and pointers outside simulated RAM are
 * reported and ignored: nothing changes. Objects still allocated when their
 * machine is destroyed are reported one by one (DMAMAP_REPORT_LEAK) with the
 * line that allocated them. Under memcheck a freed object is inaccessible, and
 * so are the bytes between the size asked for and the end of its slot.
 *
 * Thread-safe: one lock per machine guards its kmalloc state.
 */
#ifndef DMAMAP_SLAB_H
#define DMAMAP_SLAB_H

#include <stdarg.h>

#include <dmamap/types.h>

DMAMAP_BEGIN_DECLS

/*
 * The alignment the kernel's headers promise a DMA buffer: the largest cache
 * line the simulated CPUs commonly have (128 bytes, as arm64's). A machine
 * configured with 256-byte lines breaks drivers that rely on it, as such a
 * CPU would break such a kernel.
 */
#define DMAMAP_ARCH_DMA_MINALIGN 128
/* The alignment of a packed kmalloc (kmalloc_packed machines). */
#define DMAMAP_ARCH_KMALLOC_MINALIGN 8
/* What kmalloc(0) returns: not NULL, not to be touched; kfree() accepts it. */
#define ZERO_SIZE_PTR ((void *)16)
#define ZERO_OR_NULL_PTR(x) ((unsigned long)(x) <= (unsigned long)ZERO_SIZE_PTR)
/* The largest kmalloc(): one block of the page allocator's largest order. */
#define KMALLOC_MAX_SIZE (PAGE_SIZE << (MAX_ORDER - 1))
/* Larger requests than this take whole pages. */
#define KMALLOC_MAX_CACHE_SIZE 2048u

/**
 * dmamap_kmalloc() - allocate @size bytes of linear-map memory on machine @m
 * @m: the machine, or NULL for the current machine
 * @size: bytes; 0 returns ZERO_SIZE_PTR
 * @gfp: GFP_KERNEL or GFP_ATOMIC, with __GFP_DMA (DMA zone), __GFP_ZERO
 *       (zeroed through the CPU cache, as memset would) and __GFP_NOWARN as wanted
 * @file: the caller's source file for reports, or NULL
 * @line: the caller's source line
 *
 * The caller owns the object and frees it with kfree().
 * Return: the object (aligned as the header comment says); NULL when memory
 * is short, when fault injection fails the attempt (DMAMAP_FAULT_KMALLOC, or
 * DMAMAP_FAULT_PAGE_ALLOC / DMAMAP_FAULT_HOST_ALLOC for a new slab), or for
 * unknown gfp bits or a size above KMALLOC_MAX_SIZE (reported as
 * DMAMAP_REPORT_BAD_INPUT unless __GFP_NOWARN asks for silence).
 */
DMAMAP_API void *dmamap_kmalloc(struct dmamap_machine *m, size_t size, gfp_t gfp, const char *file, int line);

/**
 * dmamap_kmalloc_array() - dmamap_kmalloc() of @n objects of @size bytes
 * @m: the machine, or NULL for the current machine
 * @n: number of objects
 * @size: bytes each
 * @gfp: as dmamap_kmalloc()
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 *
 * Return: as dmamap_kmalloc(); NULL (not reported) when @n * @size overflows.
 */
DMAMAP_API void *dmamap_kmalloc_array(struct dmamap_machine *m, size_t n, size_t size, gfp_t gfp, const char *file,
				      int line);

/**
 * dmamap_krealloc() - resize a kmalloc object
 * @p: the object, NULL or ZERO_SIZE_PTR (then this is dmamap_kmalloc())
 * @size: the new size; 0 frees @p and returns ZERO_SIZE_PTR
 * @gfp: as dmamap_kmalloc(); __GFP_ZERO zeroes the bytes beyond the old size
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 *
 * When the object's slot already holds @size bytes, @p itself is returned;
 * otherwise a new object on the same machine receives the old contents (as
 * the CPU sees them) and @p is freed.
 * Return: the object; NULL when no memory can be had (@p is left as it was),
 * or when @p is not a live kmalloc object (reported as kfree() would).
 */
DMAMAP_API void *dmamap_krealloc(const void *p, size_t size, gfp_t gfp, const char *file, int line);

/**
 * dmamap_kfree() - free a kmalloc object
 * @p: the object; NULL and ZERO_SIZE_PTR are ignored
 * @file: the caller's source file for reports, or NULL
 * @line: the caller's source line
 *
 * A double free, a pointer into the middle of an object or into memory that
 * is not kmalloc's (pages from alloc_pages(), a coherent buffer) is reported
 * as DMAMAP_REPORT_PAGE_MISUSE, a pointer outside any machine's RAM as
 * DMAMAP_REPORT_BAD_ADDRESS; nothing is freed then. With the checker on
 * (<dmamap/debug.h>), an object whose slot is still mapped for DMA is not
 * freed either: DMAMAP_REPORT_FREE_MAPPED names the mapping's line and this
 * call's, and the object stays live (unmap it, then free it again). Memory
 * from devm_kmalloc() is its device's: its kfree(), kfree_sensitive() or
 * krealloc() (which then returns NULL) is refused as DMAMAP_REPORT_API_MISUSE,
 * naming where it was allocated; devm_kfree() gives it back, devm_krealloc()
 * resizes it. A work item still pending or a tasklet still scheduled in the
 * object is reported (DMAMAP_REPORT_API_MISUSE, naming where it was queued)
 * and cancelled, as the kernel's debugobjects does, and a lock in it that
 * the calling thread holds is reported (DMAMAP_REPORT_LOCK_MISUSE, lockdep's
 * "held lock freed!"); the object is freed.
 */
DMAMAP_API void dmamap_kfree(const void *p, const char *file, int line);

/**
 * dmamap_kfree_sensitive() - zero a kmalloc object (its whole slot) through the CPU, then free it
 * @p: as dmamap_kfree()
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 *
 * Refused as dmamap_kfree() refuses; a refused object is not zeroed.
 */
DMAMAP_API void dmamap_kfree_sensitive(const void *p, const char *file, int line);

/**
 * dmamap_kmemdup() - a kmalloc copy of @len bytes at @src
 * @src: the bytes (any memory the CPU can read)
 * @len: bytes
 * @gfp: as dmamap_kmalloc()
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 *
 * Return: as dmamap_kmalloc() on the current machine.
 */
DMAMAP_API void *dmamap_kmemdup(const void *src, size_t len, gfp_t gfp, const char *file, int line);

/**
 * dmamap_kmemdup_nul() - kmemdup_nul(): a kmalloc string of the first @len bytes at @s
 * @s: the bytes (any memory the CPU can read; they need hold no NUL), or NULL
 * @len: bytes to copy
 * @gfp: as dmamap_kmalloc()
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 *
 * The copy is @len bytes and a NUL after them, stored through the CPU as
 * dmamap_kmemdup() stores, on the current machine; the caller frees it with
 * kfree(). Bytes of @s after a NUL among the @len are copied too, as the
 * kernel's.
 * Return: the string; NULL for a NULL @s (not reported, as the kernel's),
 * a @len of SIZE_MAX, or as dmamap_kmalloc() of @len + 1 bytes.
 */
DMAMAP_API char *dmamap_kmemdup_nul(const char *s, size_t len, gfp_t gfp, const char *file, int line);

/**
 * dmamap_kvasprintf() - a kmalloc string formatted from @fmt and @ap
 * @gfp: as dmamap_kmalloc()
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 * @fmt: a printf format, with the kernel's printk extensions (%pad, %pe...)
 * @ap: its arguments
 *
 * The string is stored through the CPU, as dmamap_kmemdup() stores.
 * Return: the string with its NUL on the current machine, which the caller
 * frees with kfree(); NULL when an allocation fails, or for a NULL @fmt
 * (reported).
 */
DMAMAP_API char *dmamap_kvasprintf(gfp_t gfp, const char *file, int line, const char *fmt, va_list ap)
	DMAMAP_PRINTF(4, 0);

/** dmamap_kasprintf() - dmamap_kvasprintf() of the arguments after @fmt. */
DMAMAP_API char *dmamap_kasprintf(gfp_t gfp, const char *file, int line, const char *fmt, ...) DMAMAP_PRINTF(4, 5);

/**
 * ksize() - the usable size of a kmalloc object: its slot's size
 * @p: a live kmalloc object
 *
 * Return: bytes; 0 for NULL or ZERO_SIZE_PTR, and 0 (reported as kfree() would)
 * for anything that is not a live object.
 */
DMAMAP_API size_t ksize(const void *p);

/**
 * kmalloc_size_roundup() - the size of the slot kmalloc(@size) would hand out on the current machine
 * @size: bytes
 *
 * A driver that rounds a DMA buffer up to this uses the whole slot, and no
 * other object shares it.
 * Return: the size class holding @size (which depends on the machine's
 * kmalloc alignment, see kmalloc_packed), whole pages above
 * KMALLOC_MAX_CACHE_SIZE, 0 for 0, and @size itself when kmalloc() would
 * refuse it (above KMALLOC_MAX_SIZE) or there is no current machine.
 */
DMAMAP_API size_t kmalloc_size_roundup(size_t size);

/* The kmalloc counters of one machine. */
struct dmamap_kmalloc_stats {
	unsigned long live_objects;   /* allocated and not freed */
	size_t live_bytes;            /* bytes asked for by those objects */
	unsigned long slab_pages;     /* pages held by kmalloc (slabs and large objects) */
	unsigned long quarantined;    /* freed objects not yet reusable */
	unsigned long allocations;    /* successful allocations */
	unsigned long frees;          /* successful frees */
	unsigned long failures;       /* allocations that returned NULL */
	unsigned long refused_frees;  /* kfree/krealloc/ksize calls refused (double free, foreign, interior) */
	unsigned int minalign;        /* the alignment and smallest class of this machine */
};

/**
 * dmamap_kmalloc_stats() - read machine @m's kmalloc counters
 * @m: the machine
 * @st: caller-owned, overwritten (zeroed for a NULL machine)
 */
DMAMAP_API void dmamap_kmalloc_stats(struct dmamap_machine *m, struct dmamap_kmalloc_stats *st);

/** kmalloc() - allocate @size bytes on the current machine (see dmamap_kmalloc()). */
static inline void *kmalloc(size_t size, gfp_t flags)
{
	return dmamap_kmalloc(NULL, size, flags, NULL, 0);
}

/** kzalloc() - kmalloc() of zeroed memory. */
static inline void *kzalloc(size_t size, gfp_t flags)
{
	return dmamap_kmalloc(NULL, size, flags | __GFP_ZERO, NULL, 0);
}

/** kmalloc_array() - kmalloc() of @n objects of @size bytes; NULL when the product overflows. */
static inline void *kmalloc_array(size_t n, size_t size, gfp_t flags)
{
	return dmamap_kmalloc_array(NULL, n, size, flags, NULL, 0);
}

/** kcalloc() - kmalloc_array() of zeroed memory. */
static inline void *kcalloc(size_t n, size_t size, gfp_t flags)
{
	return dmamap_kmalloc_array(NULL, n, size, flags | __GFP_ZERO, NULL, 0);
}

/** krealloc() - resize a kmalloc object (see dmamap_krealloc()). */
static inline void *krealloc(const void *p, size_t new_size, gfp_t flags)
{
	return dmamap_krealloc(p, new_size, flags, NULL, 0);
}

/** kfree() - free a kmalloc object (see dmamap_kfree()). */
static inline void kfree(const void *p)
{
	dmamap_kfree(p, NULL, 0);
}

/** kfree_sensitive() - zero a kmalloc object, then free it. */
static inline void kfree_sensitive(const void *p)
{
	dmamap_kfree_sensitive(p, NULL, 0);
}

/** kmemdup() - a kmalloc copy of @len bytes at @src on the current machine. */
static inline void *kmemdup(const void *src, size_t len, gfp_t gfp)
{
	return dmamap_kmemdup(src, len, gfp, NULL, 0);
}

/**
 * dmamap_kvmalloc_at() - kvmalloc(): kmalloc memory, or vmalloc memory when kmalloc cannot serve
 * @size: bytes
 * @gfp: as dmamap_kmalloc()
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 *
 * As the kernel's: kmalloc() first (quietly, for more than a page); when
 * that fails -- a size above KMALLOC_MAX_SIZE, memory too fragmented for
 * the block, an injected failure -- and @size is above a page and @gfp
 * may sleep, vmalloc() (<dmamap/vmalloc.h>). A driver must therefore not
 * hand a kvmalloc() buffer to dma_map_single(): is_vmalloc_addr() tells
 * which it got. The caller frees it with kvfree().
 * Return: the memory; NULL as dmamap_kmalloc() for a size of a page or
 * less or a @gfp that may not sleep, else as dmamap_vmalloc_at() (a size
 * above INT_MAX is refused first, reported unless __GFP_NOWARN, as the
 * kernel warns).
 */
DMAMAP_API void *dmamap_kvmalloc_at(size_t size, gfp_t gfp, const char *file, int line);

/**
 * dmamap_kvmalloc_array_at() - kvmalloc_array(): dmamap_kvmalloc_at() of @n objects of @size bytes
 * @n: number of objects
 * @size: bytes each
 * @gfp: as dmamap_kmalloc()
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 *
 * Return: as dmamap_kvmalloc_at(); NULL (not reported) when @n * @size overflows.
 */
DMAMAP_API void *dmamap_kvmalloc_array_at(size_t n, size_t size, gfp_t gfp, const char *file, int line);

/**
 * dmamap_kvfree_at() - kvfree(): vfree() of vmalloc memory, kfree() of anything else
 * @p: what a kvmalloc-family (or kmalloc- or vmalloc-family) call returned; NULL is ignored
 * @file: the caller's source file for reports, or NULL
 * @line: the caller's source line
 *
 * Refused, reported, as the free it chooses refuses.
 */
DMAMAP_API void dmamap_kvfree_at(const void *p, const char *file, int line);

/**
 * dmamap_kvfree_sensitive_at() - kvfree_sensitive(): zero @len bytes at @p through the CPU, then kvfree() it
 * @p: as dmamap_kvfree_at()
 * @len: bytes to zero (the size the caller asked for)
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 *
 * A kmalloc object is zeroed and freed as kfree_sensitive() does (its whole
 * slot); a vmalloc area has its first @len bytes zeroed (at most the area),
 * then is freed. Refused as dmamap_kvfree_at() refuses; a refused object
 * is not zeroed.
 */
DMAMAP_API void dmamap_kvfree_sensitive_at(const void *p, size_t len, const char *file, int line);

#define kvmalloc(size, flags) dmamap_kvmalloc_at((size), (flags), __FILE__, __LINE__)
#define kvzalloc(size, flags) dmamap_kvmalloc_at((size), (flags) | __GFP_ZERO, __FILE__, __LINE__)
#define kvmalloc_array(n, size, flags) dmamap_kvmalloc_array_at((n), (size), (flags), __FILE__, __LINE__)
#define kvcalloc(n, size, flags) dmamap_kvmalloc_array_at((n), (size), (flags) | __GFP_ZERO, __FILE__, __LINE__)
#define kvfree(p) dmamap_kvfree_at((p), __FILE__, __LINE__)
#define kvfree_sensitive(p, len) dmamap_kvfree_sensitive_at((p), (len), __FILE__, __LINE__)
/* The simulated machine has one NUMA node: the node is ignored. */
#define NUMA_NO_NODE (-1)
#define kmalloc_node(size, flags, node) ((void)(node), kmalloc(size, flags))
#define kzalloc_node(size, flags, node) ((void)(node), kzalloc(size, flags))
#define kmalloc_array_node(n, size, flags, node) ((void)(node), kmalloc_array(n, size, flags))
#define kcalloc_node(n, size, flags, node) ((void)(node), kcalloc(n, size, flags))

#define kmalloc(size, flags) dmamap_kmalloc(NULL, (size), (flags), __FILE__, __LINE__)
#define kzalloc(size, flags) dmamap_kmalloc(NULL, (size), (flags) | __GFP_ZERO, __FILE__, __LINE__)
#define kmalloc_array(n, size, flags) dmamap_kmalloc_array(NULL, (n), (size), (flags), __FILE__, __LINE__)
#define kcalloc(n, size, flags) dmamap_kmalloc_array(NULL, (n), (size), (flags) | __GFP_ZERO, __FILE__, __LINE__)
#define krealloc(p, size, flags) dmamap_krealloc((p), (size), (flags), __FILE__, __LINE__)
#define kfree(p) dmamap_kfree((p), __FILE__, __LINE__)
#define kfree_sensitive(p) dmamap_kfree_sensitive((p), __FILE__, __LINE__)
#define kmemdup(src, len, gfp) dmamap_kmemdup((src), (len), (gfp), __FILE__, __LINE__)

DMAMAP_END_DECLS

#endif /* DMAMAP_SLAB_H */
