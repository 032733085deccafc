/* SPDX-License-Identifier: MIT */
/*
 * Basic kernel types, constants and helpers that every other libdmamap
 * header uses: fixed-width integers, bus and physical addresses, page
 * geometry, DMA directions, gfp flags, ERR_PTR and the export macros.
 */
#ifndef DMAMAP_TYPES_H
#define DMAMAP_TYPES_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <dmamap/version.h>

#ifdef __cplusplus
#define DMAMAP_BEGIN_DECLS extern "C" {
#define DMAMAP_END_DECLS }
#else
#define DMAMAP_BEGIN_DECLS
#define DMAMAP_END_DECLS
#endif

/* Every public function carries DMAMAP_API; the library builds with hidden visibility. */
#define DMAMAP_API __attribute__((visibility("default")))
/* Results that must not be ignored: bus addresses and error codes. */
#define DMAMAP_MUST_CHECK __attribute__((warn_unused_result))
#define DMAMAP_PRINTF(a, b) __attribute__((format(printf, a, b)))

DMAMAP_BEGIN_DECLS

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int8_t s8;
typedef int16_t s16;
typedef int32_t s32;
typedef int64_t s64;

/* Bus addresses as a device sees them, and CPU physical addresses: both 64-bit. */
typedef u64 dma_addr_t;
typedef u64 phys_addr_t;

#define PAGE_SHIFT 12
#define PAGE_SIZE (1UL << PAGE_SHIFT)
#define PAGE_MASK (~(PAGE_SIZE - 1))
#define PAGE_ALIGN(addr) (((addr) + PAGE_SIZE - 1) & PAGE_MASK)
#define PFN_DOWN(x) ((unsigned long)((x) >> PAGE_SHIFT))
#define PFN_UP(x) ((unsigned long)(((x) + PAGE_SIZE - 1) >> PAGE_SHIFT))

/* Largest buddy order: blocks of 1 << (MAX_ORDER - 1) pages (4 MiB). */
#define MAX_ORDER 11

/*
 * get_order() - the page order of an allocation of @size bytes: the smallest
 * n with (PAGE_SIZE << n) >= size. As in the kernel, get_order(0) is undefined;
 * here it returns the order of a 2^64-byte request, so callers must check.
 */
static inline int get_order(unsigned long size)
{
	if (size <= PAGE_SIZE)
		return 0;
	size = (size - 1) >> PAGE_SHIFT;
	return (int)(sizeof(unsigned long) * 8) - __builtin_clzl(size);
}

#define DMA_BIT_MASK(n) (((n) == 64) ? ~0ULL : ((1ULL << (n)) - 1))

/* The bus address returned by a failed mapping (all bits set, as on ARM). */
#define DMA_MAPPING_ERROR (~(dma_addr_t)0)

enum dma_data_direction {
	DMA_BIDIRECTIONAL = 0,
	DMA_TO_DEVICE = 1,
	DMA_FROM_DEVICE = 2,
	DMA_NONE = 3,
};

/* valid_dma_direction() - whether @dir is one a mapping may have (not DMA_NONE). */
static inline bool valid_dma_direction(int dir)
{
	return dir == DMA_BIDIRECTIONAL || dir == DMA_TO_DEVICE || dir == DMA_FROM_DEVICE;
}

/* Allocation flags, with the kernel's names. */
typedef unsigned int gfp_t;
#define __GFP_DMA 0x01u
#define __GFP_HIGHMEM 0x02u
#define __GFP_WAIT 0x10u /* may sleep (reclaim); absent from GFP_ATOMIC */
#define __GFP_HIGH 0x20u /* may use the emergency reserve */
#define __GFP_IO 0x40u
#define __GFP_FS 0x80u
#define __GFP_COLD 0x100u
#define __GFP_NOWARN 0x200u /* no report when the allocation fails */
#define __GFP_ZERO 0x8000u
#define GFP_ATOMIC (__GFP_HIGH)
#define GFP_NOWAIT (0u)
#define GFP_NOIO (__GFP_WAIT)
#define GFP_KERNEL (__GFP_WAIT | __GFP_IO | __GFP_FS)
#define GFP_DMA (__GFP_DMA)

/* gfpflags_allow_blocking() - whether @gfp lets the allocation sleep (GFP_KERNEL does, GFP_ATOMIC not). */
static inline bool gfpflags_allow_blocking(gfp_t gfp)
{
	return (gfp & __GFP_WAIT) != 0;
}

/* Error pointers: the kernel encoding of -errno in the top page of the address space. */
#define MAX_ERRNO 4095

/* ERR_PTR() - encode -errno @error as a pointer. */
static inline void *ERR_PTR(long error)
{
	return (void *)error;
}

/* PTR_ERR() - the -errno an ERR_PTR() pointer encodes. */
static inline long PTR_ERR(const void *ptr)
{
	return (long)ptr;
}

/* IS_ERR() - whether @ptr encodes an error. */
static inline bool IS_ERR(const void *ptr)
{
	return (unsigned long)ptr >= (unsigned long)-MAX_ERRNO;
}

/* IS_ERR_OR_NULL() - whether @ptr is NULL or encodes an error. */
static inline bool IS_ERR_OR_NULL(const void *ptr)
{
	return !ptr || IS_ERR(ptr);
}

struct dmamap_machine;
struct device;
struct page;

DMAMAP_END_DECLS

#endif /* DMAMAP_TYPES_H */
