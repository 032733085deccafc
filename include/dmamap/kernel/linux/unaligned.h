/* SPDX-License-Identifier: MIT */
/*
 * <linux/unaligned.h> of Linux 6.x over libdmamap (<asm/unaligned.h> before
 * 6.12: the library has both names): loads and stores of a value at any byte
 * address, in the CPU's order (get_unaligned(), put_unaligned()) or a fixed
 * one (get_unaligned_le32(), put_unaligned_be16()...), as drivers read the
 * fields of packed descriptors, frames and command blocks. @p may be at any
 * byte address; each access copies the bytes as the CPU sees them (through
 * the cache, for a buffer on the simulated machine).
 */
#ifndef _LINUX_UNALIGNED_H
#define _LINUX_UNALIGNED_H

#include <dmamap/linux-api.h>

DMAMAP_BEGIN_DECLS

/*
 * get_unaligned() - the value of *@ptr's type at @ptr, whatever its alignment;
 * put_unaligned() - store @val there, converted to that type.
 */
#define DMAMAP_UNALIGNED_(ptr, s) struct s { __typeof__(*(ptr)) x; } __attribute__((packed))
#define DMAMAP_GET_UNALIGNED_(ptr, s)                                             \
	__extension__({                                                           \
		DMAMAP_UNALIGNED_(ptr, s);                                        \
		((const struct s *)(const void *)(ptr))->x;                       \
	})
#define DMAMAP_PUT_UNALIGNED_(val, ptr, s)                                        \
	do {                                                                      \
		DMAMAP_UNALIGNED_(ptr, s);                                        \
		((struct s *)(void *)(ptr))->x = (val);                           \
	} while (0)
#define get_unaligned(ptr) DMAMAP_GET_UNALIGNED_(ptr, DMAMAP_UNIQUE(dmamap_unaligned_))
#define put_unaligned(val, ptr) DMAMAP_PUT_UNALIGNED_(val, ptr, DMAMAP_UNIQUE(dmamap_unaligned_))

/** get_unaligned_le16() - the little-endian 16-bit value at @p. */
static inline u16 get_unaligned_le16(const void *p)
{
	u16 v;

	memcpy(&v, p, sizeof(v));
	return le16_to_cpu(v);
}

/** get_unaligned_le32() - the little-endian 32-bit value at @p. */
static inline u32 get_unaligned_le32(const void *p)
{
	u32 v;

	memcpy(&v, p, sizeof(v));
	return le32_to_cpu(v);
}

/** get_unaligned_le64() - the little-endian 64-bit value at @p. */
static inline u64 get_unaligned_le64(const void *p)
{
	u64 v;

	memcpy(&v, p, sizeof(v));
	return le64_to_cpu(v);
}

/** get_unaligned_be16() - the big-endian 16-bit value at @p. */
static inline u16 get_unaligned_be16(const void *p)
{
	u16 v;

	memcpy(&v, p, sizeof(v));
	return be16_to_cpu(v);
}

/** get_unaligned_be32() - the big-endian 32-bit value at @p. */
static inline u32 get_unaligned_be32(const void *p)
{
	u32 v;

	memcpy(&v, p, sizeof(v));
	return be32_to_cpu(v);
}

/** get_unaligned_be64() - the big-endian 64-bit value at @p. */
static inline u64 get_unaligned_be64(const void *p)
{
	u64 v;

	memcpy(&v, p, sizeof(v));
	return be64_to_cpu(v);
}

/** get_unaligned_le24() - the little-endian 24-bit value at @p (3 bytes), in a u32. */
static inline u32 get_unaligned_le24(const void *p)
{
	const u8 *b = (const u8 *)p;

	return (u32)b[0] | (u32)b[1] << 8 | (u32)b[2] << 16;
}

/** get_unaligned_be24() - the big-endian 24-bit value at @p (3 bytes), in a u32. */
static inline u32 get_unaligned_be24(const void *p)
{
	const u8 *b = (const u8 *)p;

	return (u32)b[0] << 16 | (u32)b[1] << 8 | (u32)b[2];
}

/** put_unaligned_le16() - store @val at @p, little-endian (2 bytes). */
static inline void put_unaligned_le16(u16 val, void *p)
{
	u16 v = cpu_to_le16(val);

	memcpy(p, &v, sizeof(v));
}

/** put_unaligned_le32() - store @val at @p, little-endian (4 bytes). */
static inline void put_unaligned_le32(u32 val, void *p)
{
	u32 v = cpu_to_le32(val);

	memcpy(p, &v, sizeof(v));
}

/** put_unaligned_le64() - store @val at @p, little-endian (8 bytes). */
static inline void put_unaligned_le64(u64 val, void *p)
{
	u64 v = cpu_to_le64(val);

	memcpy(p, &v, sizeof(v));
}

/** put_unaligned_be16() - store @val at @p, big-endian (2 bytes). */
static inline void put_unaligned_be16(u16 val, void *p)
{
	u16 v = cpu_to_be16(val);

	memcpy(p, &v, sizeof(v));
}

/** put_unaligned_be32() - store @val at @p, big-endian (4 bytes). */
static inline void put_unaligned_be32(u32 val, void *p)
{
	u32 v = cpu_to_be32(val);

	memcpy(p, &v, sizeof(v));
}

/** put_unaligned_be64() - store @val at @p, big-endian (8 bytes). */
static inline void put_unaligned_be64(u64 val, void *p)
{
	u64 v = cpu_to_be64(val);

	memcpy(p, &v, sizeof(v));
}

/** put_unaligned_le24() - store the low 24 bits of @val at @p, little-endian (3 bytes). */
static inline void put_unaligned_le24(u32 val, void *p)
{
	u8 *b = (u8 *)p;

	b[0] = (u8)val;
	b[1] = (u8)(val >> 8);
	b[2] = (u8)(val >> 16);
}

/** put_unaligned_be24() - store the low 24 bits of @val at @p, big-endian (3 bytes). */
static inline void put_unaligned_be24(u32 val, void *p)
{
	u8 *b = (u8 *)p;

	b[0] = (u8)(val >> 16);
	b[1] = (u8)(val >> 8);
	b[2] = (u8)val;
}

DMAMAP_END_DECLS

#endif /* _LINUX_UNALIGNED_H */
