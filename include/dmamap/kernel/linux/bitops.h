/* SPDX-License-Identifier: MIT */
/*
 * <linux/bitops.h> of Linux 6.x over libdmamap: bit numbers in arrays of
 * unsigned long, as drivers track free descriptors, channels and pending
 * requests: set_bit(), clear_bit(), test_bit(), test_and_set_bit()... (the
 * plain ones atomic, the __ ones not, as the kernel's), the searches
 * (find_first_bit(), find_next_zero_bit(), for_each_set_bit()...), and
 * __ffs(), __fls(), fls(), fls64(), ffz(), hweight8() to hweight64().
 *
 * Bit @nr is bit (@nr % BITS_PER_LONG) of word (@nr / BITS_PER_LONG), as in
 * the kernel. The atomic forms are host atomics: set_bit(), clear_bit() and
 * change_bit() are unordered (relaxed), the test_and_ forms fully ordered,
 * clear_bit_unlock() a release and test_and_set_bit_lock() an acquire.
 * ffs() is the C library's (<strings.h>), which has the kernel's meaning.
 */
#ifndef _LINUX_BITOPS_H
#define _LINUX_BITOPS_H

#include <dmamap/linux-api.h>
#include <linux/bits.h>

DMAMAP_BEGIN_DECLS

#ifndef BITS_PER_LONG
#define BITS_PER_LONG (__SIZEOF_LONG__ * 8)
#endif
#ifndef BITS_PER_BYTE
#define BITS_PER_BYTE 8
#endif
/* BITS_PER_TYPE() - the bits of @type; BITS_TO_LONGS() - the unsigned longs that hold @nr bits. */
#define BITS_PER_TYPE(type) (sizeof(type) * BITS_PER_BYTE)
#define BITS_TO_LONGS(nr) DIV_ROUND_UP(nr, BITS_PER_TYPE(long))
/* BIT_MASK() - bit @nr within its word; BIT_WORD() - the index of that word. */
#define BIT_MASK(nr) (1UL << ((nr) % BITS_PER_LONG))
#define BIT_WORD(nr) ((nr) / BITS_PER_LONG)

/** set_bit() - set bit @nr of the bitmap at @addr, atomically (unordered). */
static inline void set_bit(long nr, volatile unsigned long *addr)
{
	__atomic_fetch_or(&addr[BIT_WORD(nr)], BIT_MASK(nr), __ATOMIC_RELAXED);
}

/** clear_bit() - clear bit @nr of the bitmap at @addr, atomically (unordered). */
static inline void clear_bit(long nr, volatile unsigned long *addr)
{
	__atomic_fetch_and(&addr[BIT_WORD(nr)], ~BIT_MASK(nr), __ATOMIC_RELAXED);
}

/** change_bit() - flip bit @nr of the bitmap at @addr, atomically (unordered). */
static inline void change_bit(long nr, volatile unsigned long *addr)
{
	__atomic_fetch_xor(&addr[BIT_WORD(nr)], BIT_MASK(nr), __ATOMIC_RELAXED);
}

/** clear_bit_unlock() - clear_bit() ordered after the accesses before it (a release). */
static inline void clear_bit_unlock(long nr, volatile unsigned long *addr)
{
	__atomic_fetch_and(&addr[BIT_WORD(nr)], ~BIT_MASK(nr), __ATOMIC_RELEASE);
}

/** test_and_set_bit() - set bit @nr atomically (fully ordered); whether it was set. */
static inline bool test_and_set_bit(long nr, volatile unsigned long *addr)
{
	return (__atomic_fetch_or(&addr[BIT_WORD(nr)], BIT_MASK(nr), __ATOMIC_SEQ_CST) & BIT_MASK(nr)) != 0;
}

/** test_and_clear_bit() - clear bit @nr atomically (fully ordered); whether it was set. */
static inline bool test_and_clear_bit(long nr, volatile unsigned long *addr)
{
	return (__atomic_fetch_and(&addr[BIT_WORD(nr)], ~BIT_MASK(nr), __ATOMIC_SEQ_CST) & BIT_MASK(nr)) != 0;
}

/** test_and_set_bit_lock() - test_and_set_bit() as a lock: the accesses after it stay after (an acquire). */
static inline bool test_and_set_bit_lock(long nr, volatile unsigned long *addr)
{
	return (__atomic_fetch_or(&addr[BIT_WORD(nr)], BIT_MASK(nr), __ATOMIC_ACQUIRE) & BIT_MASK(nr)) != 0;
}

/** test_bit() - whether bit @nr of the bitmap at @addr is set (one load). */
static inline bool test_bit(long nr, const volatile unsigned long *addr)
{
	return (__atomic_load_n(&addr[BIT_WORD(nr)], __ATOMIC_RELAXED) & BIT_MASK(nr)) != 0;
}

/** __set_bit() - set_bit() without atomicity, for a bitmap no one else touches. */
static inline void __set_bit(long nr, volatile unsigned long *addr)
{
	addr[BIT_WORD(nr)] |= BIT_MASK(nr);
}

/** __clear_bit() - clear_bit() without atomicity. */
static inline void __clear_bit(long nr, volatile unsigned long *addr)
{
	addr[BIT_WORD(nr)] &= ~BIT_MASK(nr);
}

/** __change_bit() - change_bit() without atomicity. */
static inline void __change_bit(long nr, volatile unsigned long *addr)
{
	addr[BIT_WORD(nr)] ^= BIT_MASK(nr);
}

/** __test_and_set_bit() - test_and_set_bit() without atomicity. */
static inline bool __test_and_set_bit(long nr, volatile unsigned long *addr)
{
	bool old = (addr[BIT_WORD(nr)] & BIT_MASK(nr)) != 0;

	addr[BIT_WORD(nr)] |= BIT_MASK(nr);
	return old;
}

/** __test_and_clear_bit() - test_and_clear_bit() without atomicity. */
static inline bool __test_and_clear_bit(long nr, volatile unsigned long *addr)
{
	bool old = (addr[BIT_WORD(nr)] & BIT_MASK(nr)) != 0;

	addr[BIT_WORD(nr)] &= ~BIT_MASK(nr);
	return old;
}

/** __ffs() - the index of the lowest set bit of @word (0 to BITS_PER_LONG - 1); undefined for 0, as the kernel's. */
static inline unsigned long __ffs(unsigned long word)
{
	return (unsigned long)__builtin_ctzl(word);
}

/** __fls() - the index of the highest set bit of @word; undefined for 0, as the kernel's. */
static inline unsigned long __fls(unsigned long word)
{
	return (unsigned long)(BITS_PER_LONG - 1 - __builtin_clzl(word));
}

/** ffz() - the index of the lowest clear bit of @word; undefined when all are set. */
static inline unsigned long ffz(unsigned long word)
{
	return __ffs(~word);
}

/** fls() - the position of the highest set bit of @x, counted from 1 (fls(1) is 1); 0 for 0. */
static inline int fls(unsigned int x)
{
	return x ? 32 - __builtin_clz(x) : 0;
}

/** fls64() - fls() of a 64-bit @x: 1 to 64, 0 for 0. */
static inline int fls64(u64 x)
{
	return x ? 64 - __builtin_clzll(x) : 0;
}

/** hweight8() - the number of set bits of the low 8 bits of @w. */
static inline unsigned int hweight8(unsigned int w)
{
	return (unsigned int)__builtin_popcount(w & 0xffu);
}

/** hweight16() - the number of set bits of the low 16 bits of @w. */
static inline unsigned int hweight16(unsigned int w)
{
	return (unsigned int)__builtin_popcount(w & 0xffffu);
}

/** hweight32() - the number of set bits of @w. */
static inline unsigned int hweight32(unsigned int w)
{
	return (unsigned int)__builtin_popcount(w);
}

/** hweight64() - the number of set bits of @w. */
static inline unsigned long hweight64(u64 w)
{
	return (unsigned long)__builtin_popcountll(w);
}

/** hweight_long() - the number of set bits of @w. */
static inline unsigned long hweight_long(unsigned long w)
{
	return (unsigned long)__builtin_popcountl(w);
}

/**
 * dmamap_find_bit() - the first bit at or after @offset, below @size, that is set (@want_set) or clear
 * @addr: the bitmap
 * @size: bits in it
 * @offset: the first bit to look at
 * @want_set: look for a set bit, else for a clear one
 *
 * Return: its number, or @size when there is none.
 */
static inline unsigned long dmamap_find_bit(const unsigned long *addr, unsigned long size, unsigned long offset,
					    bool want_set)
{
	while (offset < size) {
		unsigned long word = want_set ? addr[BIT_WORD(offset)] : ~addr[BIT_WORD(offset)];

		word &= ~0UL << (offset % BITS_PER_LONG);
		if (word) {
			unsigned long bit = BIT_WORD(offset) * BITS_PER_LONG + __ffs(word);

			return bit < size ? bit : size;
		}
		offset = (BIT_WORD(offset) + 1) * BITS_PER_LONG;
	}
	return size;
}

/** find_next_bit() - the first set bit at or after @offset, below @size; @size when none. */
static inline unsigned long find_next_bit(const unsigned long *addr, unsigned long size, unsigned long offset)
{
	return dmamap_find_bit(addr, size, offset, true);
}

/** find_next_zero_bit() - the first clear bit at or after @offset, below @size; @size when none. */
static inline unsigned long find_next_zero_bit(const unsigned long *addr, unsigned long size, unsigned long offset)
{
	return dmamap_find_bit(addr, size, offset, false);
}

/** find_first_bit() - the first set bit below @size; @size when none. */
static inline unsigned long find_first_bit(const unsigned long *addr, unsigned long size)
{
	return dmamap_find_bit(addr, size, 0, true);
}

/** find_first_zero_bit() - the first clear bit below @size; @size when none. */
static inline unsigned long find_first_zero_bit(const unsigned long *addr, unsigned long size)
{
	return dmamap_find_bit(addr, size, 0, false);
}

/** find_last_bit() - the last set bit below @size; @size when none. */
static inline unsigned long find_last_bit(const unsigned long *addr, unsigned long size)
{
	for (unsigned long i = size; i--;)
		if (addr[BIT_WORD(i)] & BIT_MASK(i))
			return i;
	return size;
}

/*
 * for_each_set_bit() - @bit through each set bit of the bitmap at @addr below
 * @size, in order; for_each_clear_bit() - through each clear one.
 */
#define for_each_set_bit(bit, addr, size) \
	for ((bit) = 0; (bit) = find_next_bit((addr), (size), (bit)), (bit) < (size); (bit)++)
#define for_each_clear_bit(bit, addr, size) \
	for ((bit) = 0; (bit) = find_next_zero_bit((addr), (size), (bit)), (bit) < (size); (bit)++)

DMAMAP_END_DECLS

#endif /* _LINUX_BITOPS_H */
