/* SPDX-License-Identifier: MIT */
/*
 * <linux/bitfield.h> of Linux 6.x over libdmamap: the register and descriptor
 * field macros drivers build their writel() values with. A field is named by
 * its mask (GENMASK(7, 4), BIT(3)...): a constant run of set bits.
 *
 *	writel(FIELD_PREP(CTRL_BURST, 4) | CTRL_EN, base + CTRL);
 *	len = FIELD_GET(DESC_LEN, le32_to_cpu(desc->status));
 *
 * FIELD_PREP(), FIELD_GET(), FIELD_FIT(), FIELD_MAX() and FIELD_PREP_CONST()
 * refuse to compile, as the kernel's do, when the mask is not a constant, is
 * zero or has a hole; FIELD_PREP() and FIELD_PREP_CONST() when a constant
 * value does not fit the field ("value too large for the field"); FIELD_GET()
 * when the mask is wider than the register's type. The checks are C11
 * _Static_assert()s; in C++ a template checks the mask and the register's
 * width, and FIELD_PREP_CONST()'s value, but not FIELD_PREP()'s (a C++
 * expression cannot tell a constant argument from a variable one).
 *
 * The typed functions, u32_encode_bits() and its relatives for u8 to u64 and
 * the __le and __be types, take the field as an argument and are checked at
 * run time only: a value too large for the field is cut to it.
 */
#ifndef _LINUX_BITFIELD_H
#define _LINUX_BITFIELD_H

#include <dmamap/linux-api.h>

/* The position of @mask's lowest set bit (a constant for a constant @mask). */
#define DMAMAP_BF_SHIFT(mask) __builtin_ctzll((unsigned long long)(mask))
/* @mask moved down to bit 0, as an unsigned long long. */
#define DMAMAP_BF_LOW(mask) ((unsigned long long)(mask) >> DMAMAP_BF_SHIFT(mask))
/* Whether a non-zero @mask is one run of set bits. */
#define DMAMAP_BF_CONTIGUOUS(mask) ((DMAMAP_BF_LOW(mask) & (DMAMAP_BF_LOW(mask) + 1)) == 0)
/* The largest value of an unsigned type of @size bytes. */
#define DMAMAP_BF_TYPE_MAX(size) ((size) >= sizeof(unsigned long long) ? ~0ULL : (1ULL << (8 * (size))) - 1)

#ifdef __cplusplus
/* C++: the mask a template argument, so that it must be a constant. */
template <unsigned long long mask, unsigned long long reg_max> struct dmamap_bf_check {
	static_assert(mask != 0, "FIELD_*: mask is zero");
	static_assert(mask == 0 || DMAMAP_BF_CONTIGUOUS(mask), "FIELD_*: mask is not one run of set bits");
	static_assert(mask <= reg_max, "FIELD_GET: type of reg too small for mask");
	static const int ok = 0;
};
template <unsigned long long mask, unsigned long long val> struct dmamap_bf_check_value {
	static_assert(mask == 0 || (~DMAMAP_BF_LOW(mask) & val) == 0, "FIELD_PREP_CONST: value too large for the field");
	static const int ok = 0;
};
#define DMAMAP_BF_CHECK(mask, reg_size, val) \
	((void)dmamap_bf_check<(unsigned long long)(mask), DMAMAP_BF_TYPE_MAX(reg_size)>::ok)
#define DMAMAP_BF_CHECK_CONST(mask, val)                                                  \
	(dmamap_bf_check<(unsigned long long)(mask), ~0ULL>::ok +                         \
	 dmamap_bf_check_value<(unsigned long long)(mask), (unsigned long long)(val)>::ok)
#else
/*
 * Whether @x is an integer constant expression, so the value check applies to
 * it: (void *)(@x * 0) is then a null pointer constant, and the conditional
 * takes the other operand's type, int *; otherwise it is a void *.
 */
#define DMAMAP_IS_ICE(x) __builtin_types_compatible_p(__typeof__(8 ? (void *)((long)(x) * 0l) : (int *)8), int *)
/* @val when it is a constant, else 0 (which fits any field). */
#define DMAMAP_BF_CONST_OR_0(val) __builtin_choose_expr(DMAMAP_IS_ICE(val), (val), 0)
#define DMAMAP_BF_CHECK(mask, reg_size, val)                                                                  \
	((void)sizeof(struct {                                                                                \
		_Static_assert((mask) != 0, "FIELD_*: mask is zero");                                         \
		_Static_assert((mask) == 0 || DMAMAP_BF_CONTIGUOUS(mask),                                     \
			       "FIELD_*: mask is not one run of set bits");                                   \
		_Static_assert((mask) == 0 || (~DMAMAP_BF_LOW(mask) & (unsigned long long)(val)) == 0,       \
			       "FIELD_PREP: value too large for the field");                                  \
		_Static_assert((unsigned long long)(mask) <= DMAMAP_BF_TYPE_MAX(reg_size),                    \
			       "FIELD_GET: type of reg too small for mask");                                  \
		int dmamap_bf_check;                                                                          \
	}))
/* A constant 0 that fails to compile when @mask or @val is bad (bit-field widths: usable in initializers). */
#define DMAMAP_BF_CHECK_CONST(mask, val)                                                                  \
	(0 * (int)sizeof(struct {                                                                         \
		int dmamap_mask_is_zero : 1 - 2 * ((mask) == 0);                                          \
		int dmamap_mask_has_a_hole : 1 - 2 * ((mask) != 0 && !DMAMAP_BF_CONTIGUOUS(mask));        \
		int dmamap_value_too_large_for_the_field                                                  \
			: 1 - 2 * ((mask) != 0 && (~DMAMAP_BF_LOW(mask) & (unsigned long long)(val)) != 0); \
	}))
#endif

/*
 * FIELD_MAX() - the largest value the field @mask holds (GENMASK(7, 4): 15),
 * in @mask's type.
 */
#define FIELD_MAX(mask) (DMAMAP_BF_CHECK(mask, sizeof(unsigned long long), 0), (__typeof__(mask))DMAMAP_BF_LOW(mask))

/*
 * FIELD_FIT() - whether @val fits the field @mask (true or false; @val in
 * @mask's type, as FIELD_PREP() would take it). Checked at run time, for the
 * values FIELD_PREP() would cut.
 */
#define FIELD_FIT(mask, val)                                      \
	(DMAMAP_BF_CHECK(mask, sizeof(unsigned long long), 0),    \
	 !((((__typeof__(mask))(val)) << DMAMAP_BF_SHIFT(mask)) & ~(mask)))

/*
 * FIELD_PREP() - @val shifted into the field @mask, to be ORed into a
 * register value; in @mask's type. The bits of @val that do not fit are
 * dropped (FIELD_FIT() tells); a constant @val that does not fit fails to
 * compile in C. @val is evaluated once.
 */
#ifdef __cplusplus
#define FIELD_PREP(mask, val) \
	(DMAMAP_BF_CHECK(mask, sizeof(unsigned long long), 0), ((__typeof__(mask))(val) << DMAMAP_BF_SHIFT(mask)) & (mask))
#else
#define FIELD_PREP(mask, val)                                                         \
	(DMAMAP_BF_CHECK(mask, sizeof(unsigned long long), DMAMAP_BF_CONST_OR_0(val)), \
	 ((__typeof__(mask))(val) << DMAMAP_BF_SHIFT(mask)) & (mask))
#endif

/*
 * FIELD_PREP_CONST() - FIELD_PREP() of a constant @val, itself a constant
 * expression (static initializers, case labels); a bad mask or a value that
 * does not fit fails to compile.
 */
#define FIELD_PREP_CONST(mask, val) \
	((__typeof__(mask))((((__typeof__(mask))(val) << DMAMAP_BF_SHIFT(mask)) & (mask)) + DMAMAP_BF_CHECK_CONST(mask, val)))

/*
 * FIELD_GET() - the value of the field @mask in the register value @reg,
 * moved down to bit 0, in @mask's type. A @mask wider than @reg's type fails
 * to compile. @reg is evaluated once.
 */
#define FIELD_GET(mask, reg) \
	(DMAMAP_BF_CHECK(mask, sizeof(reg), 0), (__typeof__(mask))(((reg) & (mask)) >> DMAMAP_BF_SHIFT(mask)))

/*
 * u32_encode_bits(@v, @field) - @v cut to the field's width and moved into
 * it; u32_get_bits(@v, @field) - the field's value in @v, at bit 0;
 * u32_replace_bits(@old, @val, @field) - @old with the field set to @val;
 * u32p_replace_bits(@p, @val, @field) - the same, stored back in *@p.
 * Likewise for u8, u16 and u64, and for le16, le32, le64, be16, be32 and
 * be64, whose values are in that byte order (le32_encode_bits() returns an
 * __le32, le32_get_bits() takes one). @field is a non-zero mask of one run
 * of bits (a zero @field gives 0 for encode and get).
 */
#define DMAMAP_BF_LOWEST_BIT(field) ((field) & (~(field) + 1))
#define DMAMAP_BF_TYPED(name, type, base, to_cpu, from_cpu)                                           \
	static inline type name##_encode_bits(base v, base field)                                       \
	{                                                                                               \
		return field ? from_cpu((base)((v & (base)(field / DMAMAP_BF_LOWEST_BIT(field))) *     \
						DMAMAP_BF_LOWEST_BIT(field)))                          \
			     : from_cpu((base)0);                                                       \
	}                                                                                               \
	static inline base name##_get_bits(type v, base field)                                          \
	{                                                                                               \
		return field ? (base)((to_cpu(v) & field) / DMAMAP_BF_LOWEST_BIT(field)) : (base)0;     \
	}                                                                                               \
	static inline type name##_replace_bits(type old, base val, base field)                          \
	{                                                                                               \
		return from_cpu((base)((to_cpu(old) & (base)~field) | to_cpu(name##_encode_bits(val, field)))); \
	}                                                                                               \
	static inline void name##p_replace_bits(type *p, base val, base field)                          \
	{                                                                                               \
		*p = name##_replace_bits(*p, val, field);                                               \
	}
#define DMAMAP_BF_SAME(x) (x)

DMAMAP_BEGIN_DECLS

DMAMAP_BF_TYPED(u8, u8, u8, DMAMAP_BF_SAME, DMAMAP_BF_SAME)
DMAMAP_BF_TYPED(u16, u16, u16, DMAMAP_BF_SAME, DMAMAP_BF_SAME)
DMAMAP_BF_TYPED(u32, u32, u32, DMAMAP_BF_SAME, DMAMAP_BF_SAME)
DMAMAP_BF_TYPED(u64, u64, u64, DMAMAP_BF_SAME, DMAMAP_BF_SAME)
DMAMAP_BF_TYPED(le16, __le16, u16, le16_to_cpu, cpu_to_le16)
DMAMAP_BF_TYPED(le32, __le32, u32, le32_to_cpu, cpu_to_le32)
DMAMAP_BF_TYPED(le64, __le64, u64, le64_to_cpu, cpu_to_le64)
DMAMAP_BF_TYPED(be16, __be16, u16, be16_to_cpu, cpu_to_be16)
DMAMAP_BF_TYPED(be32, __be32, u32, be32_to_cpu, cpu_to_be32)
DMAMAP_BF_TYPED(be64, __be64, u64, be64_to_cpu, cpu_to_be64)

DMAMAP_END_DECLS

#endif /* _LINUX_BITFIELD_H */
