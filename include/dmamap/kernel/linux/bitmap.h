/* SPDX-License-Identifier: MIT */
/*
 * <linux/bitmap.h> of Linux 6.x over libdmamap: bitmaps of @nbits bits in
 * arrays of unsigned long (DECLARE_BITMAP()), as drivers allocate descriptor
 * slots and channels: bitmap_zero(), bitmap_fill(), bitmap_set(),
 * bitmap_clear(), bitmap_empty(), bitmap_full(), bitmap_weight() and
 * bitmap_find_next_zero_area(), with <linux/bitops.h>; and bitmaps of
 * kmalloc() memory: bitmap_alloc(), bitmap_zalloc(), bitmap_free(),
 * devm_bitmap_alloc() and devm_bitmap_zalloc(). None is atomic: the
 * caller serialises, as with the kernel's.
 */
#ifndef _LINUX_BITMAP_H
#define _LINUX_BITMAP_H

#include <dmamap/devres.h>
#include <dmamap/linux-api.h>
#include <dmamap/slab.h>
#include <linux/bitops.h>

DMAMAP_BEGIN_DECLS

/* DECLARE_BITMAP() - declare @name, a bitmap of @bits bits (an array of unsigned long). */
#define DECLARE_BITMAP(name, bits) unsigned long name[BITS_TO_LONGS(bits)]

/** bitmap_zero() - clear the @nbits bits of @dst (the whole words that hold them). */
static inline void bitmap_zero(unsigned long *dst, unsigned int nbits)
{
	memset(dst, 0, BITS_TO_LONGS(nbits) * sizeof(unsigned long));
}

/** bitmap_set() - set @nbits bits of @map from bit @start on. */
static inline void bitmap_set(unsigned long *map, unsigned int start, unsigned int nbits)
{
	for (unsigned int i = start; i < start + nbits; i++)
		map[BIT_WORD(i)] |= BIT_MASK(i);
}

/** bitmap_clear() - clear @nbits bits of @map from bit @start on. */
static inline void bitmap_clear(unsigned long *map, unsigned int start, unsigned int nbits)
{
	for (unsigned int i = start; i < start + nbits; i++)
		map[BIT_WORD(i)] &= ~BIT_MASK(i);
}

/** bitmap_fill() - set the @nbits bits of @dst; the bits of its last word above them are cleared. */
static inline void bitmap_fill(unsigned long *dst, unsigned int nbits)
{
	bitmap_zero(dst, nbits);
	bitmap_set(dst, 0, nbits);
}

/** bitmap_weight() - the number of set bits among the @nbits bits of @src. */
static inline unsigned int bitmap_weight(const unsigned long *src, unsigned int nbits)
{
	unsigned int w = 0;

	for (unsigned int i = 0; i < nbits / BITS_PER_LONG; i++)
		w += (unsigned int)hweight_long(src[i]);
	if (nbits % BITS_PER_LONG)
		w += (unsigned int)hweight_long(src[nbits / BITS_PER_LONG] & (BIT_MASK(nbits) - 1));
	return w;
}

/** bitmap_empty() - whether none of the @nbits bits of @src is set. */
static inline bool bitmap_empty(const unsigned long *src, unsigned int nbits)
{
	return find_first_bit(src, nbits) == nbits;
}

/** bitmap_full() - whether all of the @nbits bits of @src are set. */
static inline bool bitmap_full(const unsigned long *src, unsigned int nbits)
{
	return find_first_zero_bit(src, nbits) == nbits;
}

/**
 * bitmap_find_next_zero_area() - the first run of @nr clear bits of @map at or after @start, below @size
 * @map: the bitmap
 * @size: bits in it
 * @start: the first bit the run may begin at
 * @nr: bits wanted
 * @align_mask: the run begins at a multiple of @align_mask + 1 (a power of two; 0 for any bit)
 *
 * The bits are not set: the caller does that with bitmap_set().
 * Return: the run's first bit; a value greater than @size - @nr (above @size
 * when @nr is not 0) when there is no such run, as the kernel's.
 */
static inline unsigned long bitmap_find_next_zero_area(unsigned long *map, unsigned long size, unsigned long start,
							unsigned int nr, unsigned long align_mask)
{
	for (;;) {
		unsigned long index = find_next_zero_bit(map, size, start), busy;

		index = (index + align_mask) & ~align_mask;
		if (index + nr > size)
			return index + nr;
		busy = find_next_bit(map, index + nr, index);
		if (busy == index + nr)
			return index;
		start = busy + 1;
	}
}

/** bitmap_alloc() - kmalloc() room for a bitmap of @nbits bits (its words uninitialised); NULL without memory. */
static inline unsigned long *bitmap_alloc(unsigned int nbits, gfp_t flags)
{
	return (unsigned long *)dmamap_kmalloc_array(NULL, BITS_TO_LONGS(nbits), sizeof(unsigned long), flags, NULL, 0);
}

/** bitmap_zalloc() - bitmap_alloc() with every bit clear. */
static inline unsigned long *bitmap_zalloc(unsigned int nbits, gfp_t flags)
{
	return (unsigned long *)dmamap_kmalloc_array(NULL, BITS_TO_LONGS(nbits), sizeof(unsigned long),
						     flags | __GFP_ZERO, NULL, 0);
}

/** bitmap_free() - free a bitmap of bitmap_alloc() or bitmap_zalloc(); NULL is ignored. */
static inline void bitmap_free(const unsigned long *bitmap)
{
	dmamap_kfree(bitmap, NULL, 0);
}

/** devm_bitmap_alloc() - bitmap_alloc() released with @dev (devm_kmalloc_array() memory). */
static inline unsigned long *devm_bitmap_alloc(struct device *dev, unsigned int nbits, gfp_t flags)
{
	return (unsigned long *)dmamap_devm_kmalloc_array(dev, BITS_TO_LONGS(nbits), sizeof(unsigned long), flags, NULL,
							  0);
}

/** devm_bitmap_zalloc() - devm_bitmap_alloc() with every bit clear. */
static inline unsigned long *devm_bitmap_zalloc(struct device *dev, unsigned int nbits, gfp_t flags)
{
	return (unsigned long *)dmamap_devm_kmalloc_array(dev, BITS_TO_LONGS(nbits), sizeof(unsigned long),
							  flags | __GFP_ZERO, NULL, 0);
}

#define bitmap_alloc(nbits, flags) \
	((unsigned long *)dmamap_kmalloc_array(NULL, BITS_TO_LONGS(nbits), sizeof(unsigned long), (flags), __FILE__, \
					       __LINE__))
#define bitmap_zalloc(nbits, flags)                                                                             \
	((unsigned long *)dmamap_kmalloc_array(NULL, BITS_TO_LONGS(nbits), sizeof(unsigned long), (flags) | __GFP_ZERO, \
					       __FILE__, __LINE__))
#define bitmap_free(bitmap) dmamap_kfree((bitmap), __FILE__, __LINE__)
#define devm_bitmap_alloc(dev, nbits, flags)                                                                     \
	((unsigned long *)dmamap_devm_kmalloc_array((dev), BITS_TO_LONGS(nbits), sizeof(unsigned long), (flags),     \
						    __FILE__, __LINE__))
#define devm_bitmap_zalloc(dev, nbits, flags)                                                                    \
	((unsigned long *)dmamap_devm_kmalloc_array((dev), BITS_TO_LONGS(nbits), sizeof(unsigned long),              \
						    (flags) | __GFP_ZERO, __FILE__, __LINE__))

DMAMAP_END_DECLS

#endif /* _LINUX_BITMAP_H */
