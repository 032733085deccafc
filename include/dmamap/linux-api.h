/* SPDX-License-Identifier: MIT */
/*
 * What every Linux 6.x header of the library (<linux/dma-mapping.h>,
 * <linux/slab.h>... under dmamap/kernel/, pkg-config dmamap-linux) starts
 * with: the guard that keeps the 2012 API out of the same translation unit,
 * the compile-time check of an attrs argument, and the few kernel basics the
 * kernel's own DMA headers bring in through <linux/kernel.h>, <linux/bits.h>,
 * <linux/compiler.h>, <linux/minmax.h>, <linux/bug.h>, <linux/printk.h>,
 * <linux/log2.h>, <linux/limits.h>, <linux/errno.h> and <asm/byteorder.h>.
 * The library provides <linux/bits.h>, <linux/bug.h>, <linux/minmax.h>,
 * <linux/printk.h>, <linux/log2.h>, <linux/align.h>, <linux/math.h>,
 * <linux/overflow.h> and <linux/compiler.h> too, each including this header,
 * and <linux/kernel.h>, which includes the system's userspace header of that
 * name first and then this one. <linux/types.h> and <linux/errno.h> add the
 * kernel's types and internal errnos to the system's headers of those names
 * and bring nothing of this header, since libc's headers include them;
 * <linux/limits.h> is left to the system (libc's <limits.h> includes it): the
 * kernel's U32_MAX and its siblings come with every other header of the
 * library. Each basic is defined only when the name is still free.
 */
#ifndef DMAMAP_LINUX_API_H
#define DMAMAP_LINUX_API_H

#ifdef DMAMAP_SEED_API
#error "libdmamap: the Linux 6.x headers (<linux/dma-mapping.h>..., attrs are an unsigned long) cannot follow <dmamap/dmamap.h> (the 2012 ARM DMA API, attrs are a struct dma_attrs *) in one file: the calls of the same names take different arguments. Use one API per file; the simulator headers (<dmamap/testing.h>, <dmamap/machine.h>, <dmamap/device.h>...) go with either."
#endif
/* This translation unit uses the Linux 6.x API. */
#define DMAMAP_LINUX_API 6

#include <string.h> /* memcpy(), memset()...: what the kernel's <linux/string.h> gives its drivers */

#include <dmamap/types.h>
#include <dmamap/log.h> /* dmamap_warn_at(), dmamap_bug_at() behind WARN_ON() and BUG() */

/*
 * __u32, __le32...: the system's userspace <linux/types.h>, reached directly
 * or through the library's header of that name, which includes it first.
 * Whether it was found shows in its guard, _LINUX_TYPES_H; without it the
 * library's own byte-order types (here, or in its <linux/types.h>).
 */
#if defined(__has_include)
#if __has_include(<linux/types.h>)
#include <linux/types.h>
#endif
#endif
#if !defined(_LINUX_TYPES_H) && !defined(DMAMAP_HAVE_LE_TYPES)
#define DMAMAP_HAVE_LE_TYPES 1
typedef uint16_t __le16;
typedef uint32_t __le32;
typedef uint64_t __le64;
typedef uint16_t __be16;
typedef uint32_t __be32;
typedef uint64_t __be64;
#endif

/*
 * DMAMAP_LINUX_ATTRS() - the attrs argument of a 6.x call, checked at
 * compile time: an integer (DMA_ATTR_* bits, or 0). A pointer (a 2012
 * struct dma_attrs *) would otherwise become an integer with only a warning.
 */
#ifdef __cplusplus
#define DMAMAP_LINUX_ATTRS(a) ((unsigned long)(a))
#else
#define DMAMAP_LINUX_ATTRS(a)                                                                                  \
	((void)sizeof(struct {                                                                                 \
		 _Static_assert(_Generic((a), _Bool: 1, char: 1, signed char: 1, unsigned char: 1, short: 1,    \
					 unsigned short: 1, int: 1, unsigned int: 1, long: 1, unsigned long: 1,  \
					 long long: 1, unsigned long long: 1, default: 0),                       \
				"attrs of the Linux 6.x DMA API are an unsigned long of DMA_ATTR_* bits; a "    \
				"struct dma_attrs pointer is the 2012 API of <dmamap/dmamap.h>");               \
		 int dmamap_attrs_check;                                                                       \
	 }),                                                                                                   \
	 (unsigned long)(a))
#endif

/*
 * <linux/kconfig.h>: IS_BUILTIN(CONFIG_FOO) is 1 when CONFIG_FOO is defined
 * to 1 (a "y" option), IS_MODULE(CONFIG_FOO) when CONFIG_FOO_MODULE is (an
 * "m" one), IS_ENABLED() when either is, IS_REACHABLE() when the option is
 * built in, or a module and the code using it is one too (MODULE defined to
 * 1); each is 0 otherwise: undefined, or defined to anything but 1. Each
 * expands to the token 1 or 0, so it serves in #if (no -Wundef warning for
 * an undefined option) and in expressions alike. A test defines the options
 * its driver looks at before including the driver's code, or with -D.
 *
 * How: DMAMAP_KC_PROBE_ pasted to the option's value names a macro holding
 * a comma only when the value is 1, which moves the answer into the second
 * argument of DMAMAP_KC_SECOND().
 */
#ifndef IS_ENABLED
#define DMAMAP_KC_PROBE_1 ~,
#define DMAMAP_KC_SECOND(first, second, ...) second
#define DMAMAP_KC_IS_ONE(x) DMAMAP_KC_IS_ONE_(x)
#define DMAMAP_KC_IS_ONE_(value) DMAMAP_KC_IS_ONE__(DMAMAP_KC_PROBE_##value)
#define DMAMAP_KC_IS_ONE__(probe) DMAMAP_KC_SECOND(probe 1, 0, ~)
#define DMAMAP_KC_OR(x, y) DMAMAP_KC_OR_(x, y)
#define DMAMAP_KC_OR_(x, y) DMAMAP_KC_OR__(DMAMAP_KC_PROBE_##x, y)
#define DMAMAP_KC_OR__(probe, y) DMAMAP_KC_SECOND(probe 1, y, ~)
#define DMAMAP_KC_AND(x, y) DMAMAP_KC_AND_(x, y)
#define DMAMAP_KC_AND_(x, y) DMAMAP_KC_AND__(DMAMAP_KC_PROBE_##x, y)
#define DMAMAP_KC_AND__(probe, y) DMAMAP_KC_SECOND(probe y, 0, ~)
#define IS_BUILTIN(option) DMAMAP_KC_IS_ONE(option)
#define IS_MODULE(option) DMAMAP_KC_IS_ONE(option##_MODULE)
#define IS_ENABLED(option) DMAMAP_KC_OR(IS_BUILTIN(option), IS_MODULE(option))
#define IS_REACHABLE(option) \
	DMAMAP_KC_OR(IS_BUILTIN(option), DMAMAP_KC_AND(IS_MODULE(option), DMAMAP_KC_IS_ONE(MODULE)))
#endif

/* ------------------------------------------------ compiler and kernel basics */

#ifndef __iomem
#define __iomem
#endif
#ifndef __force
#define __force
#endif
#ifndef __user
#define __user
#endif
#ifndef __bitwise
#define __bitwise
#endif
#ifndef __must_check
#define __must_check __attribute__((warn_unused_result))
#endif
#ifndef __maybe_unused
#define __maybe_unused __attribute__((unused))
#endif
#ifndef __always_unused
#define __always_unused __attribute__((unused))
#endif
#ifndef __packed
#define __packed __attribute__((packed))
#endif
#ifndef __aligned
#define __aligned(x) __attribute__((aligned(x)))
#endif
#ifndef likely
#define likely(x) __builtin_expect(!!(x), 1)
#endif
#ifndef unlikely
#define unlikely(x) __builtin_expect(!!(x), 0)
#endif

#ifndef barrier
/* barrier() - a compiler barrier: no memory access is moved across it (the CPU may still reorder: see mb()). */
#define barrier() __asm__ __volatile__("" : : : "memory")
#endif

/*
 * smp_mb(), smp_rmb(), smp_wmb() - the ordering between CPUs that the
 * kernel's SMP barriers give (all accesses, loads, stores), as host fences;
 * cpu_relax() - the pause of a busy-wait loop: a compiler barrier, so the
 * loop re-reads what it polls.
 */
#if defined(__SANITIZE_THREAD__)
#define DMAMAP_TSAN_BUILD 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define DMAMAP_TSAN_BUILD 1
#endif
#endif
/* A host fence; under ThreadSanitizer, which follows none (gcc warns of each), a compiler barrier. */
#ifdef DMAMAP_TSAN_BUILD
#define DMAMAP_FENCE(order) __asm__ __volatile__("" : : : "memory")
#else
#define DMAMAP_FENCE(order) __atomic_thread_fence(order)
#endif
#ifndef smp_mb
#define smp_mb() DMAMAP_FENCE(__ATOMIC_SEQ_CST)
#define smp_rmb() DMAMAP_FENCE(__ATOMIC_ACQUIRE)
#define smp_wmb() DMAMAP_FENCE(__ATOMIC_RELEASE)
#endif
#ifndef cpu_relax
#define cpu_relax() barrier()
#endif

#ifndef ARRAY_SIZE
/* ARRAY_SIZE() - the number of elements of the array @a (not a pointer). */
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif
#ifndef container_of
/* container_of() - the @type whose @member @ptr points at. */
#define container_of(ptr, type, member) ((type *)(void *)((char *)(ptr) - offsetof(type, member)))
#endif
#ifndef BIT
#define BIT(nr) (1UL << (nr))
#endif
#ifndef BIT_ULL
#define BIT_ULL(nr) (1ULL << (nr))
#endif
#ifndef GENMASK
#define GENMASK(h, l) (((~0UL) << (l)) & (~0UL >> (8 * sizeof(long) - 1 - (h))))
#endif
#ifndef GENMASK_ULL
#define GENMASK_ULL(h, l) (((~0ULL) << (l)) & (~0ULL >> (8 * sizeof(long long) - 1 - (h))))
#endif
#ifndef lower_32_bits
/* lower_32_bits() - bits 31..0 of @n, a u32 (a descriptor's low address word). */
#define lower_32_bits(n) ((u32)((n) & 0xffffffff))
#endif
#ifndef upper_32_bits
/* upper_32_bits() - bits 63..32 of @n, a u32; 0 for a 32-bit @n, with no shift-count warning. */
#define upper_32_bits(n) ((u32)(((n) >> 16) >> 16))
#endif
#ifndef upper_16_bits
/* upper_16_bits() - bits 31..16 of @n, a u16. */
#define upper_16_bits(n) ((u16)((n) >> 16))
#endif
#ifndef lower_16_bits
/* lower_16_bits() - bits 15..0 of @n, a u16. */
#define lower_16_bits(n) ((u16)((n) & 0xffff))
#endif

/*
 * <linux/minmax.h>: min(), max(), min_t(), max_t(), min_not_zero() and
 * clamp() evaluate each argument exactly once, as the kernel's do (GNU C:
 * statement expressions and __typeof__, which gcc and clang accept in C and
 * C++), so min(ring[i++], budget) advances i once. Each argument is held in
 * a temporary of the arguments' common type (DMAMAP_COMMON_T(): the type the
 * plain operators would convert them to), so the results and their type are
 * those of `(x) < (y) ? (x) : (y)`, and min(u32_len, 4096) draws no
 * signedness warning; the _t forms convert to @type first. The kernel's
 * compile-time refusal of mixed signedness is not reproduced. min() and
 * max() are left out of C++, where they would break std::min and std::max.
 * DMAMAP_UNIQUE() names each temporary after the expansion it belongs to, so
 * nested calls neither shadow nor capture each other's.
 */
#define DMAMAP_COMMON_T(x, y) __typeof__(1 ? (x) : (y))
#define DMAMAP_COMMON_T3(x, y, z) __typeof__(1 ? (x) : 1 ? (y) : (z))
#define DMAMAP_PASTE_(a, b) a##b
#define DMAMAP_PASTE(a, b) DMAMAP_PASTE_(a, b)
#define DMAMAP_UNIQUE(prefix) DMAMAP_PASTE(prefix, __COUNTER__)
#define DMAMAP_CMP_ONCE_(op, x, y, ux, uy)          \
	__extension__({                             \
		DMAMAP_COMMON_T(x, y) ux = (x);     \
		DMAMAP_COMMON_T(x, y) uy = (y);     \
		ux op uy ? ux : uy;                 \
	})
#define DMAMAP_CMP_ONCE(op, x, y) DMAMAP_CMP_ONCE_(op, x, y, DMAMAP_UNIQUE(dmamap_x_), DMAMAP_UNIQUE(dmamap_y_))
#if !defined(min) && !defined(__cplusplus)
/* min() - the smaller of @x and @y, each evaluated once. */
#define min(x, y) DMAMAP_CMP_ONCE(<, x, y)
#endif
#if !defined(max) && !defined(__cplusplus)
/* max() - the larger of @x and @y, each evaluated once. */
#define max(x, y) DMAMAP_CMP_ONCE(>, x, y)
#endif
#ifndef min_t
/* min_t() - min() of @x and @y converted to @type. */
#define min_t(type, x, y) DMAMAP_CMP_ONCE(<, (type)(x), (type)(y))
#endif
#ifndef max_t
/* max_t() - max() of @x and @y converted to @type. */
#define max_t(type, x, y) DMAMAP_CMP_ONCE(>, (type)(x), (type)(y))
#endif
#define DMAMAP_MIN_NOT_ZERO_(x, y, ux, uy)                        \
	__extension__({                                           \
		DMAMAP_COMMON_T(x, y) ux = (x);                   \
		DMAMAP_COMMON_T(x, y) uy = (y);                   \
		ux == 0 ? uy : uy == 0 ? ux : ux < uy ? ux : uy;  \
	})
#ifndef min_not_zero
/* min_not_zero() - the smaller of @x and @y that is not zero (0 when both are); each evaluated once. */
#define min_not_zero(x, y) DMAMAP_MIN_NOT_ZERO_(x, y, DMAMAP_UNIQUE(dmamap_x_), DMAMAP_UNIQUE(dmamap_y_))
#endif
#define DMAMAP_CLAMP_(val, lo, hi, uv, ul, uh)                   \
	__extension__({                                          \
		DMAMAP_COMMON_T3(val, lo, hi) uv = (val);        \
		DMAMAP_COMMON_T3(val, lo, hi) ul = (lo);         \
		DMAMAP_COMMON_T3(val, lo, hi) uh = (hi);         \
		uv >= uh ? uh : uv <= ul ? ul : uv;              \
	})
#ifndef clamp
/*
 * clamp() - @val limited to [@lo, @hi], each evaluated once; as Linux 6.x's
 * __clamp(): @hi when @val >= @hi, else @lo when @val <= @lo, else @val.
 */
#define clamp(val, lo, hi) \
	DMAMAP_CLAMP_(val, lo, hi, DMAMAP_UNIQUE(dmamap_v_), DMAMAP_UNIQUE(dmamap_l_), DMAMAP_UNIQUE(dmamap_h_))
#endif
#if !defined(min3) && !defined(__cplusplus)
/* min3() - the smallest of @x, @y and @z, each evaluated once. */
#define min3(x, y, z) min(min(x, y), z)
#endif
#if !defined(max3) && !defined(__cplusplus)
/* max3() - the largest of @x, @y and @z, each evaluated once. */
#define max3(x, y, z) max(max(x, y), z)
#endif
#ifndef clamp_t
/* clamp_t() - clamp() of @val, @lo and @hi converted to @type. */
#define clamp_t(type, val, lo, hi) clamp((type)(val), (type)(lo), (type)(hi))
#endif
#ifndef clamp_val
/* clamp_val() - clamp_t() in @val's type: @lo and @hi converted to it. */
#define clamp_val(val, lo, hi) clamp_t(__typeof__(val), val, lo, hi)
#endif
#ifndef in_range
/** dmamap_in_range64() - whether @start <= @val < @start + @len, in 64-bit unsigned arithmetic. */
static inline bool dmamap_in_range64(u64 val, u64 start, u64 len)
{
	return val - start < len;
}

/** dmamap_in_range32() - whether @start <= @val < @start + @len, in 32-bit unsigned arithmetic. */
static inline bool dmamap_in_range32(u32 val, u32 start, u32 len)
{
	return val - start < len;
}

/*
 * in_range() - whether @val lies in [@start, @start + @len), as the kernel's:
 * in 32-bit arithmetic when all three fit in 32 bits, else 64-bit (a range
 * that wraps past the top of its type still holds the values that wrapped).
 */
#define in_range(val, start, len)                                                         \
	((sizeof(start) | sizeof(len) | sizeof(val)) <= sizeof(u32)                       \
		 ? dmamap_in_range32((u32)(val), (u32)(start), (u32)(len))                \
		 : dmamap_in_range64((u64)(val), (u64)(start), (u64)(len)))
#endif
#if !defined(swap) && !defined(__cplusplus)
/* swap() - exchange the values of @a and @b (lvalues of one type), as the kernel's: each evaluated twice. */
#define swap(a, b) DMAMAP_SWAP_(a, b, DMAMAP_UNIQUE(dmamap_tmp_))
#define DMAMAP_SWAP_(a, b, tmp)               \
	do {                                  \
		__typeof__(a) tmp = (a);      \
		(a) = (b);                    \
		(b) = tmp;                    \
	} while (0)
#endif

/* <linux/math.h>: roundup() and rounddown() to any multiple (round_up() needs a power of two). */
#define DMAMAP_ROUNDUP_(x, y, uy)                             \
	__extension__({                                       \
		__typeof__(y) uy = (y);                       \
		(((x) + (uy - 1)) / uy) * uy;                 \
	})
#define DMAMAP_ROUNDDOWN_(x, y, ux)                           \
	__extension__({                                       \
		__typeof__(x) ux = (x);                       \
		ux - (ux % (y));                              \
	})
#ifndef roundup
/* roundup() - @x rounded up to a multiple of @y (@y evaluated once). */
#define roundup(x, y) DMAMAP_ROUNDUP_(x, y, DMAMAP_UNIQUE(dmamap_y_))
#endif
#ifndef rounddown
/* rounddown() - @x rounded down to a multiple of @y (@x evaluated once). */
#define rounddown(x, y) DMAMAP_ROUNDDOWN_(x, y, DMAMAP_UNIQUE(dmamap_x_))
#endif

/* <linux/limits.h> (the kernel's, not the userspace header of that name). */
#ifndef U8_MAX
#define U8_MAX ((u8)~0U)
#define S8_MAX ((s8)(U8_MAX >> 1))
#define S8_MIN ((s8)(-S8_MAX - 1))
#define U16_MAX ((u16)~0U)
#define S16_MAX ((s16)(U16_MAX >> 1))
#define S16_MIN ((s16)(-S16_MAX - 1))
#define U32_MAX ((u32)~0U)
#define U32_MIN ((u32)0)
#define S32_MAX ((s32)(U32_MAX >> 1))
#define S32_MIN ((s32)(-S32_MAX - 1))
#define U64_MAX ((u64)~0ULL)
#define S64_MAX ((s64)(U64_MAX >> 1))
#define S64_MIN ((s64)(-S64_MAX - 1))
#endif

/* The kernel-internal errnos of <linux/errno.h> that drivers return (not in the userspace errno.h). */
#ifndef EPROBE_DEFER
#define EPROBE_DEFER 517 /* a resource the probe needs is not there yet: probe again later */
#endif
#ifndef ENOTSUPP
#define ENOTSUPP 524 /* operation not supported (the kernel's; userspace has EOPNOTSUPP) */
#endif

/*
 * <linux/compiler_attributes.h>: fallthrough, the statement that ends a
 * switch case on purpose (-Wimplicit-fallthrough).
 */
#ifndef fallthrough
#if defined(__has_attribute)
#if __has_attribute(__fallthrough__)
#define fallthrough __attribute__((__fallthrough__))
#endif
#endif
#endif
#ifndef fallthrough
#define fallthrough \
	do {        \
	} while (0)
#endif

/*
 * <linux/log2.h>: is_power_of_2() and ilog2(). ilog2() is the kernel's: a
 * constant expression for a constant argument; otherwise dmamap_ilog2_u32()
 * or dmamap_ilog2_u64() by the argument's size, the argument evaluated once.
 * ilog2(0) is undefined, as in the kernel (0 or -1, by what the compiler
 * knows of the argument).
 */
#ifndef ilog2
/** is_power_of_2() - whether @n is a power of two (0 is not). */
static inline bool is_power_of_2(unsigned long n)
{
	return n != 0 && (n & (n - 1)) == 0;
}

/** dmamap_ilog2_u32() - the index of @n's highest set bit, -1 for 0 (ilog2() of a 32-bit value). */
static inline int dmamap_ilog2_u32(u32 n)
{
	return n ? 31 - __builtin_clz(n) : -1;
}

/** dmamap_ilog2_u64() - the index of @n's highest set bit, -1 for 0 (ilog2() of a 64-bit value). */
static inline int dmamap_ilog2_u64(u64 n)
{
	return n ? 63 - __builtin_clzll(n) : -1;
}

#define ilog2(n)                                                                          \
	(__builtin_constant_p(n) ? ((n) < 2 ? 0 : 63 - __builtin_clzll(n))                \
	 : (sizeof(n) <= 4)      ? dmamap_ilog2_u32((u32)(n))                             \
				 : dmamap_ilog2_u64((u64)(n)))
#endif
#ifndef roundup_pow_of_two
/**
 * dmamap_fls_long() - the position of @n's highest set bit counted from 1; 0 for 0
 * @n: the value
 */
static inline unsigned int dmamap_fls_long(unsigned long n)
{
	return n ? (unsigned int)(8 * sizeof(long)) - (unsigned int)__builtin_clzl(n) : 0;
}

/*
 * roundup_pow_of_two() - the smallest power of two not below @n (1 for 1);
 * rounddown_pow_of_two() - the largest not above @n; both unsigned long, as
 * the kernel's, and undefined for 0. order_base_2() - the power of two
 * roundup_pow_of_two() gives: ceil(log2(@n)), 0 for 0 and 1 (a ring of @n
 * entries needs order_base_2(@n) index bits). Constant expressions for a
 * constant @n (array sizes), as the kernel's; @n evaluated once otherwise.
 */
#define DMAMAP_FLS_CONST_(n) ((n) ? (unsigned int)(8 * sizeof(long)) - (unsigned int)__builtin_clzl(n) : 0u)
#define roundup_pow_of_two(n)                                                                  \
	(__builtin_constant_p(n) ? 1UL << DMAMAP_FLS_CONST_((unsigned long)(n) - 1)             \
				 : 1UL << dmamap_fls_long((unsigned long)(n) - 1))
#define rounddown_pow_of_two(n)                                                                \
	(__builtin_constant_p(n) ? 1UL << (DMAMAP_FLS_CONST_((unsigned long)(n)) - 1)           \
				 : 1UL << (dmamap_fls_long((unsigned long)(n)) - 1))
#define order_base_2(n)                                                                        \
	(__builtin_constant_p(n) ? ((n) > 1 ? (int)DMAMAP_FLS_CONST_((unsigned long)(n) - 1) : 0) \
				 : DMAMAP_ORDER_BASE_2_((n), DMAMAP_UNIQUE(dmamap_n_)))
#define DMAMAP_ORDER_BASE_2_(n, un)                                                  \
	__extension__({                                                              \
		unsigned long un = (unsigned long)(n);                               \
		un > 1 ? (int)dmamap_fls_long(un - 1) : 0;                           \
	})
#endif

/*
 * <linux/align.h>: @a is a power of two; the result is in @x's type (a
 * pointer's address for the PTR_ forms, the pointer's type back).
 */
#ifndef ALIGN
/* ALIGN() - @x rounded up to a multiple of @a. */
#define ALIGN(x, a) (((x) + ((__typeof__(x))(a) - 1)) & ~((__typeof__(x))(a) - 1))
#endif
#ifndef ALIGN_DOWN
/* ALIGN_DOWN() - @x rounded down to a multiple of @a. */
#define ALIGN_DOWN(x, a) ((x) & ~((__typeof__(x))(a) - 1))
#endif
#ifndef IS_ALIGNED
/* IS_ALIGNED() - whether @x is a multiple of @a. */
#define IS_ALIGNED(x, a) (((x) & ((__typeof__(x))(a) - 1)) == 0)
#endif
#ifndef PTR_ALIGN
/* PTR_ALIGN() - the pointer @p rounded up to an @a-byte boundary. */
#define PTR_ALIGN(p, a) ((__typeof__(p))ALIGN((unsigned long)(p), (a)))
#endif
#ifndef PTR_ALIGN_DOWN
/* PTR_ALIGN_DOWN() - the pointer @p rounded down to an @a-byte boundary. */
#define PTR_ALIGN_DOWN(p, a) ((__typeof__(p))ALIGN_DOWN((unsigned long)(p), (a)))
#endif
#ifndef DIV_ROUND_UP
/* DIV_ROUND_UP() - @n / @d rounded up (the number of @d-sized pieces @n bytes take). */
#define DIV_ROUND_UP(n, d) (((n) + (d) - 1) / (d))
#endif
#ifndef DIV_ROUND_UP_ULL
/* DIV_ROUND_UP_ULL() - DIV_ROUND_UP() computed in unsigned long long, an unsigned long long. */
#define DIV_ROUND_UP_ULL(ll, d) (((unsigned long long)(ll) + (d) - 1) / (d))
#endif
#ifndef DIV_ROUND_DOWN_ULL
/* DIV_ROUND_DOWN_ULL() - @ll / @d computed in unsigned long long. */
#define DIV_ROUND_DOWN_ULL(ll, d) ((unsigned long long)(ll) / (d))
#endif
#ifndef DIV_ROUND_CLOSEST
/*
 * DIV_ROUND_CLOSEST() - @x / @divisor rounded to the nearest integer, halves
 * away from zero (7 / 2: 4, -7 / 2: -4), as the kernel's: for operands of
 * opposite signs the half is subtracted instead of added. Each argument is
 * evaluated once. DIV_ROUND_CLOSEST_ULL() - the same for unsigned long long
 * operands.
 */
#define DIV_ROUND_CLOSEST(x, divisor) \
	DMAMAP_DIV_CLOSEST_(x, divisor, DMAMAP_UNIQUE(dmamap_x_), DMAMAP_UNIQUE(dmamap_d_))
#define DMAMAP_DIV_CLOSEST_(x, divisor, ux, ud)                                                  \
	__extension__({                                                                          \
		__typeof__(x) ux = (x);                                                          \
		__typeof__(divisor) ud = (divisor);                                              \
		(((__typeof__(x))-1) > 0 || ((__typeof__(divisor))-1) > 0 || ((ux > 0) == (ud > 0))) \
			? ((ux + (ud / 2)) / ud)                                                 \
			: ((ux - (ud / 2)) / ud);                                                \
	})
#define DIV_ROUND_CLOSEST_ULL(x, divisor) \
	(((unsigned long long)(x) + (unsigned long long)(divisor) / 2) / (unsigned long long)(divisor))
#endif

#ifndef round_up
/* round_up() - @x rounded up to a multiple of @y, a power of two, in @x's type. */
#define round_up(x, y) ((((x) - 1) | ((__typeof__(x))((y) - 1))) + 1)
#endif
#ifndef round_down
/* round_down() - @x rounded down to a multiple of @y, a power of two, in @x's type. */
#define round_down(x, y) ((x) & ~((__typeof__(x))((y) - 1)))
#endif
/*
 * <linux/bug.h>: WARN_ON(@cond), WARN(@cond, fmt, ...) and their _ONCE forms
 * evaluate @cond once and return its truth (an int, 0 or 1), as the kernel's
 * do for `if (WARN_ON(...)) return -EINVAL;`. When @cond holds they log
 * "WARNING: at file:line" (WARN(): then ": " and the message) at
 * DMAMAP_LOG_WARN through the current machine's handler, as dev_warn() logs
 * (dmamap_warn_at()); a test sees it there, and it is not a report. The _ONCE
 * forms log only the first time their call site fires, in any thread.
 * BUG() logs "kernel BUG at file:line!" and aborts the process, as the
 * kernel's oops ends the driver (dmamap_bug_at()); BUG_ON(@cond) does when
 * @cond holds.
 */
#define DMAMAP_WARN_(ret, cond, ...)                                                  \
	__extension__({                                                               \
		int ret = !!(cond);                                                   \
		if (__builtin_expect(ret, 0))                                         \
			dmamap_warn_at(__FILE__, __LINE__, __VA_ARGS__);              \
		__builtin_expect(ret, 0);                                             \
	})
#define DMAMAP_WARN_ONCE_(ret, done, cond, ...)                                       \
	__extension__({                                                               \
		static int done;                                                      \
		int ret = !!(cond);                                                   \
		if (__builtin_expect(ret, 0) && !__atomic_exchange_n(&done, 1, __ATOMIC_RELAXED)) \
			dmamap_warn_at(__FILE__, __LINE__, __VA_ARGS__);              \
		__builtin_expect(ret, 0);                                             \
	})
#ifndef WARN_ON
/* WARN_ON() - log "WARNING: at file:line" when @cond holds; its truth. */
#define WARN_ON(cond) DMAMAP_WARN_(DMAMAP_UNIQUE(dmamap_warn_), cond, (const char *)0)
#endif
#ifndef WARN_ON_ONCE
/* WARN_ON_ONCE() - WARN_ON() that logs the first time only. */
#define WARN_ON_ONCE(cond) \
	DMAMAP_WARN_ONCE_(DMAMAP_UNIQUE(dmamap_warn_), DMAMAP_UNIQUE(dmamap_once_), cond, (const char *)0)
#endif
#ifndef WARN
/* WARN() - WARN_ON() with a printf message. */
#define WARN(cond, ...) DMAMAP_WARN_(DMAMAP_UNIQUE(dmamap_warn_), cond, __VA_ARGS__)
#endif
#ifndef WARN_ONCE
/* WARN_ONCE() - WARN() that logs the first time only. */
#define WARN_ONCE(cond, ...) DMAMAP_WARN_ONCE_(DMAMAP_UNIQUE(dmamap_warn_), DMAMAP_UNIQUE(dmamap_once_), cond, __VA_ARGS__)
#endif
#ifndef BUG
/* BUG() - log "kernel BUG at file:line!" and abort(). */
#define BUG() dmamap_bug_at(__FILE__, __LINE__)
#endif
#ifndef BUG_ON
/* BUG_ON() - BUG() when @cond holds. */
#define BUG_ON(cond)                              \
	do {                                      \
		if (__builtin_expect(!!(cond), 0)) \
			BUG();                    \
	} while (0)
#endif
#ifndef BUILD_BUG_ON
/*
 * BUILD_BUG_ON() - a statement that fails to compile when @cond is true.
 * @cond must be an integer constant expression (sizeof, offsetof, constant
 * macros): the kernel's version also takes conditions only the optimizer
 * folds, which this one refuses.
 */
#ifdef __cplusplus
#define BUILD_BUG_ON(cond)                                               \
	do {                                                             \
		static_assert(!(cond), "BUILD_BUG_ON failed: " #cond);    \
	} while (0)
#else
#define BUILD_BUG_ON(cond)                                               \
	do {                                                             \
		_Static_assert(!(cond), "BUILD_BUG_ON failed: " #cond);   \
	} while (0)
#endif
#endif
/*
 * <linux/build_bug.h>: BUILD_BUG_ON_MSG() - BUILD_BUG_ON() with @msg as the
 * compiler's message; BUILD_BUG_ON_ZERO() - the int 0, usable inside an
 * expression (a constant one included), that fails to compile when @e, a
 * constant expression, is true.
 */
#ifndef BUILD_BUG_ON_MSG
#ifdef __cplusplus
#define BUILD_BUG_ON_MSG(cond, msg)                 \
	do {                                        \
		static_assert(!(cond), msg);        \
	} while (0)
#define BUILD_BUG_ON_ZERO(e) ((int)(0 * sizeof(char[(e) ? -1 : 1])))
#else
#define BUILD_BUG_ON_MSG(cond, msg)                 \
	do {                                        \
		_Static_assert(!(cond), msg);       \
	} while (0)
#define BUILD_BUG_ON_ZERO(e) ((int)(0 * sizeof(struct { int dmamap_build_bug_on_zero : 1 - 2 * !!(e); })))
#endif
#endif
/*
 * static_assert() - in C, the kernel's: C11's _Static_assert() whose message
 * may be left out (it is then the condition's text), at file scope or in a
 * block. C's <assert.h> defines a two-argument static_assert(): this header
 * includes it first and replaces its definition; a file that includes
 * <assert.h> after the library's headers gets libc's back. C++'s own
 * static_assert is left as it is.
 */
#ifndef __cplusplus
#include <assert.h>
#undef static_assert
#define static_assert(expr, ...) DMAMAP_STATIC_ASSERT_(expr, ##__VA_ARGS__, #expr)
#define DMAMAP_STATIC_ASSERT_(expr, msg, ...) _Static_assert(expr, msg)
#endif

/*
 * <linux/stddef.h>: sizeof_field() - the size of @MEMBER of struct @TYPE;
 * offsetofend() - the offset of the first byte after it.
 */
#ifndef sizeof_field
#define sizeof_field(TYPE, MEMBER) sizeof((((TYPE *)0)->MEMBER))
#endif
#ifndef offsetofend
#define offsetofend(TYPE, MEMBER) (offsetof(TYPE, MEMBER) + sizeof_field(TYPE, MEMBER))
#endif

/*
 * <linux/printk.h>: pr_err() and friends log through the current machine's
 * handler (the process-wide one when no machine is current), as dev_err()
 * logs for a device (dmamap_printk()). pr_emerg(), pr_alert() and pr_crit()
 * log at DMAMAP_LOG_ERR, pr_notice() at DMAMAP_LOG_INFO. pr_debug() is
 * delivered at DMAMAP_LOG_DEBUG, like dev_dbg() (the default handler prints
 * warnings and errors only). Each applies the file's pr_fmt(), defined
 * before the first include as in the kernel.
 */
#ifndef pr_fmt
#define pr_fmt(fmt) fmt
#endif
/*
 * <linux/kern_levels.h>: the level strings of dev_printk() (and of the
 * kernel's printk()), "\001" and a digit, 0 the most urgent.
 */
#ifndef KERN_SOH
#define KERN_SOH "\001"
#define KERN_EMERG KERN_SOH "0"
#define KERN_ALERT KERN_SOH "1"
#define KERN_CRIT KERN_SOH "2"
#define KERN_ERR KERN_SOH "3"
#define KERN_WARNING KERN_SOH "4"
#define KERN_NOTICE KERN_SOH "5"
#define KERN_INFO KERN_SOH "6"
#define KERN_DEBUG KERN_SOH "7"
#define KERN_DEFAULT ""
#define KERN_CONT KERN_SOH "c"
#endif

/**
 * dmamap_kern_level() - the enum dmamap_log_level of a KERN_* level string
 * @level: KERN_EMERG to KERN_DEBUG, KERN_DEFAULT or KERN_CONT; NULL is KERN_DEFAULT
 *
 * Return: DMAMAP_LOG_ERR for KERN_EMERG, KERN_ALERT, KERN_CRIT and KERN_ERR,
 * DMAMAP_LOG_WARN for KERN_WARNING, DMAMAP_LOG_INFO for KERN_NOTICE and
 * KERN_INFO, DMAMAP_LOG_DEBUG for KERN_DEBUG (as pr_emerg()... log); for
 * KERN_DEFAULT, KERN_CONT or any other string DMAMAP_LOG_WARN, the kernel's
 * default message level (4).
 */
static inline int dmamap_kern_level(const char *level)
{
	if (!level || level[0] != KERN_SOH[0] || level[1] < '0' || level[1] > '7')
		return DMAMAP_LOG_WARN;
	switch (level[1]) {
	case '4':
		return DMAMAP_LOG_WARN;
	case '5':
	case '6':
		return DMAMAP_LOG_INFO;
	case '7':
		return DMAMAP_LOG_DEBUG;
	default:
		return DMAMAP_LOG_ERR;
	}
}
#ifndef pr_err
#define pr_emerg(fmt, ...) dmamap_printk(DMAMAP_LOG_ERR, pr_fmt(fmt), ##__VA_ARGS__)
#define pr_alert(fmt, ...) dmamap_printk(DMAMAP_LOG_ERR, pr_fmt(fmt), ##__VA_ARGS__)
#define pr_crit(fmt, ...) dmamap_printk(DMAMAP_LOG_ERR, pr_fmt(fmt), ##__VA_ARGS__)
#define pr_err(fmt, ...) dmamap_printk(DMAMAP_LOG_ERR, pr_fmt(fmt), ##__VA_ARGS__)
#define pr_warn(fmt, ...) dmamap_printk(DMAMAP_LOG_WARN, pr_fmt(fmt), ##__VA_ARGS__)
#define pr_notice(fmt, ...) dmamap_printk(DMAMAP_LOG_INFO, pr_fmt(fmt), ##__VA_ARGS__)
#define pr_info(fmt, ...) dmamap_printk(DMAMAP_LOG_INFO, pr_fmt(fmt), ##__VA_ARGS__)
#define pr_debug(fmt, ...) dmamap_printk(DMAMAP_LOG_DEBUG, pr_fmt(fmt), ##__VA_ARGS__)
#endif

#ifndef READ_ONCE
/* READ_ONCE() - one load of @x that the compiler may not tear, repeat or drop (a volatile access). */
#define READ_ONCE(x) (*(const volatile __typeof__(x) *)&(x))
#endif
#ifndef WRITE_ONCE
/* WRITE_ONCE() - one store of @val to @x that the compiler may not tear, repeat or drop. */
#define WRITE_ONCE(x, val) ((void)(*(volatile __typeof__(x) *)&(x) = (val)))
#endif

/*
 * <linux/overflow.h>: sizes that saturate at SIZE_MAX instead of wrapping, so
 * kmalloc(struct_size(...)) of an impossible count fails rather than handing
 * out a short buffer.
 */
/*
 * check_add_overflow(), check_sub_overflow(), check_mul_overflow() - store
 * @a op @b in *@d (wrapped to *@d's type) and return whether the exact result
 * did not fit there.
 */
#ifndef check_add_overflow
#define check_add_overflow(a, b, d) __builtin_add_overflow(a, b, d)
#define check_sub_overflow(a, b, d) __builtin_sub_overflow(a, b, d)
#define check_mul_overflow(a, b, d) __builtin_mul_overflow(a, b, d)
#endif
#ifndef size_mul
/** size_mul() - @a * @b, or SIZE_MAX when that overflows. */
static inline size_t size_mul(size_t a, size_t b)
{
	size_t r;

	return __builtin_mul_overflow(a, b, &r) ? SIZE_MAX : r;
}

/** size_add() - @a + @b, or SIZE_MAX when that overflows. */
static inline size_t size_add(size_t a, size_t b)
{
	size_t r;

	return __builtin_add_overflow(a, b, &r) ? SIZE_MAX : r;
}
/** size_sub() - @minuend - @subtrahend, or SIZE_MAX when either is SIZE_MAX or the result would be negative. */
static inline size_t size_sub(size_t minuend, size_t subtrahend)
{
	size_t r;

	if (minuend == SIZE_MAX || subtrahend == SIZE_MAX || __builtin_sub_overflow(minuend, subtrahend, &r))
		return SIZE_MAX;
	return r;
}
#define size_mul size_mul
#define size_add size_add
#define size_sub size_sub
#endif
#ifndef array_size
/* array_size() - size_mul() of @a elements of @b bytes; array3_size() of three factors. */
#define array_size(a, b) size_mul(a, b)
#define array3_size(a, b, c) size_mul(size_mul(a, b), c)
#endif
#ifndef flex_array_size
/* flex_array_size() - bytes of @count elements of @p's flexible array @member, saturating. */
#define flex_array_size(p, member, count) size_mul(count, sizeof(*(p)->member))
#endif
#ifndef struct_size
/* struct_size() - bytes of *@p with @count elements of its flexible array @member, saturating. */
#define struct_size(p, member, count) size_add(sizeof(*(p)), flex_array_size(p, member, count))
#endif
#ifndef struct_size_t
/* struct_size_t() - struct_size() of the struct @type itself, when there is no pointer to it yet. */
#define struct_size_t(type, member, count) struct_size((type *)NULL, member, count)
#endif

/* Byte order: the simulated SoC is little endian, like the host. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define DMAMAP_LE16(x) __builtin_bswap16(x)
#define DMAMAP_LE32(x) __builtin_bswap32(x)
#define DMAMAP_LE64(x) __builtin_bswap64(x)
#define DMAMAP_BE16(x) (x)
#define DMAMAP_BE32(x) (x)
#define DMAMAP_BE64(x) (x)
#else
#define DMAMAP_LE16(x) (x)
#define DMAMAP_LE32(x) (x)
#define DMAMAP_LE64(x) (x)
#define DMAMAP_BE16(x) __builtin_bswap16(x)
#define DMAMAP_BE32(x) __builtin_bswap32(x)
#define DMAMAP_BE64(x) __builtin_bswap64(x)
#endif
#ifndef cpu_to_le16
#define cpu_to_le16(x) ((__le16)DMAMAP_LE16((u16)(x)))
#define cpu_to_le32(x) ((__le32)DMAMAP_LE32((u32)(x)))
#define cpu_to_le64(x) ((__le64)DMAMAP_LE64((u64)(x)))
#define le16_to_cpu(x) ((u16)DMAMAP_LE16((u16)(x)))
#define le32_to_cpu(x) ((u32)DMAMAP_LE32((u32)(x)))
#define le64_to_cpu(x) ((u64)DMAMAP_LE64((u64)(x)))
#endif
#ifndef cpu_to_be16
/* Big-endian fields (network headers, some devices' descriptors): byte-swapped on this little-endian SoC. */
#define cpu_to_be16(x) ((__be16)DMAMAP_BE16((u16)(x)))
#define cpu_to_be32(x) ((__be32)DMAMAP_BE32((u32)(x)))
#define cpu_to_be64(x) ((__be64)DMAMAP_BE64((u64)(x)))
#define be16_to_cpu(x) ((u16)DMAMAP_BE16((u16)(x)))
#define be32_to_cpu(x) ((u32)DMAMAP_BE32((u32)(x)))
#define be64_to_cpu(x) ((u64)DMAMAP_BE64((u64)(x)))
#endif
#ifndef le32_to_cpup
/*
 * le32_to_cpup() and its siblings - the conversions of the value at a
 * pointer: le16_to_cpup(@p) is le16_to_cpu(*@p), cpu_to_le32p(@p) is
 * cpu_to_le32(*@p), for le and be, 16 to 64 bits.
 */
#define le16_to_cpup(p) le16_to_cpu(*(const __le16 *)(p))
#define le32_to_cpup(p) le32_to_cpu(*(const __le32 *)(p))
#define le64_to_cpup(p) le64_to_cpu(*(const __le64 *)(p))
#define be16_to_cpup(p) be16_to_cpu(*(const __be16 *)(p))
#define be32_to_cpup(p) be32_to_cpu(*(const __be32 *)(p))
#define be64_to_cpup(p) be64_to_cpu(*(const __be64 *)(p))
#define cpu_to_le16p(p) cpu_to_le16(*(const u16 *)(p))
#define cpu_to_le32p(p) cpu_to_le32(*(const u32 *)(p))
#define cpu_to_le64p(p) cpu_to_le64(*(const u64 *)(p))
#define cpu_to_be16p(p) cpu_to_be16(*(const u16 *)(p))
#define cpu_to_be32p(p) cpu_to_be32(*(const u32 *)(p))
#define cpu_to_be64p(p) cpu_to_be64(*(const u64 *)(p))
#endif
#ifndef le32_add_cpu
/*
 * le32_add_cpu() and its siblings - add @val to the little- (le) or
 * big-endian (be) field at @var, in its byte order, wrapping at its width:
 * a descriptor's count or index updated in place.
 */
#define le16_add_cpu(var, val) ((void)(*(var) = cpu_to_le16((u16)(le16_to_cpu(*(var)) + (val)))))
#define le32_add_cpu(var, val) ((void)(*(var) = cpu_to_le32((u32)(le32_to_cpu(*(var)) + (val)))))
#define le64_add_cpu(var, val) ((void)(*(var) = cpu_to_le64((u64)(le64_to_cpu(*(var)) + (val)))))
#define be16_add_cpu(var, val) ((void)(*(var) = cpu_to_be16((u16)(be16_to_cpu(*(var)) + (val)))))
#define be32_add_cpu(var, val) ((void)(*(var) = cpu_to_be32((u32)(be32_to_cpu(*(var)) + (val)))))
#define be64_add_cpu(var, val) ((void)(*(var) = cpu_to_be64((u64)(be64_to_cpu(*(var)) + (val)))))
#endif

#endif /* DMAMAP_LINUX_API_H */
