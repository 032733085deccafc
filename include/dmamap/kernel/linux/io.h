/* SPDX-License-Identifier: MIT */
/*
 * <linux/io.h> of Linux 6.x over libdmamap, as far as DMA drivers need it:
 * register accessors (readl(), writel() and their relatives) and the
 * barriers that order descriptor writes with them.
 *
 * A simulated device's registers are plain host memory the test hands to the
 * driver as its `void __iomem *` window; the test's hardware model reads and
 * writes the same memory. The accessors are volatile accesses in little-endian
 * order; the barriers are compiler and CPU fences, enough for a model that
 * runs on the same host. Bus masters reach memory only through the library
 * (dmamap_dev_read/write), so no barrier can hide a missing cache operation.
 */
#ifndef _LINUX_IO_H
#define _LINUX_IO_H

#include <dmamap/linux-api.h>
#include <dmamap/types.h>

DMAMAP_BEGIN_DECLS

#ifndef mb
#define mb() __atomic_thread_fence(__ATOMIC_SEQ_CST)
#define rmb() __atomic_thread_fence(__ATOMIC_ACQUIRE)
#define wmb() __atomic_thread_fence(__ATOMIC_RELEASE)
#endif
#ifndef dma_rmb
#define dma_rmb() rmb()
#define dma_wmb() wmb()
#endif

/** readb() - read an 8-bit register. */
static inline u8 readb(const volatile void __iomem *addr)
{
	return *(const volatile u8 *)addr;
}

/** readw() - read a little-endian 16-bit register. */
static inline u16 readw(const volatile void __iomem *addr)
{
	return le16_to_cpu(*(const volatile u16 *)addr);
}

/** readl() - read a little-endian 32-bit register (after the accesses before it). */
static inline u32 readl(const volatile void __iomem *addr)
{
	u32 v = le32_to_cpu(*(const volatile u32 *)addr);

	rmb();
	return v;
}

/** writeb() - write an 8-bit register. */
static inline void writeb(u8 value, volatile void __iomem *addr)
{
	wmb();
	*(volatile u8 *)addr = value;
}

/** writew() - write a little-endian 16-bit register. */
static inline void writew(u16 value, volatile void __iomem *addr)
{
	wmb();
	*(volatile u16 *)addr = cpu_to_le16(value);
}

/** writel() - write a little-endian 32-bit register, after every memory write before it (descriptors). */
static inline void writel(u32 value, volatile void __iomem *addr)
{
	wmb();
	*(volatile u32 *)addr = cpu_to_le32(value);
}

/** readl_relaxed() - readl() without the ordering. */
static inline u32 readl_relaxed(const volatile void __iomem *addr)
{
	return le32_to_cpu(*(const volatile u32 *)addr);
}

/** writel_relaxed() - writel() without the ordering. */
static inline void writel_relaxed(u32 value, volatile void __iomem *addr)
{
	*(volatile u32 *)addr = cpu_to_le32(value);
}

/** ioread32() - readl(). */
static inline u32 ioread32(const volatile void __iomem *addr)
{
	return readl(addr);
}

/** iowrite32() - writel(). */
static inline void iowrite32(u32 value, volatile void __iomem *addr)
{
	writel(value, addr);
}

DMAMAP_END_DECLS

#endif /* _LINUX_IO_H */
