/* SPDX-License-Identifier: MIT */
/*
 * <linux/io.h> of Linux 6.x over libdmamap, as far as DMA drivers need it:
 * register accessors (readb() to readq(), writeb() to writeq(), their
 * _relaxed forms, ioread8() to ioread32be() and iowrite8() to iowrite32be()),
 * the FIFO accessors (readsl(), writesl(), ioread32_rep(), iowrite32_rep()),
 * the copies to and from a register window (memcpy_toio(), memcpy_fromio(),
 * memset_io()), the barriers that order descriptor writes with them, and
 * the mappings of register windows: ioremap() and its ioremap_wc(),
 * ioremap_np(), ioremap_uc(), ioremap_wt() and ioremap_cache() forms (the
 * same window: nothing caches or buffers a window here), iounmap(),
 * devm_ioremap() and its _wc, _uc and _np forms, devm_iounmap() and
 * IOMEM_ERR_PTR().
 *
 * A simulated device's registers are plain host memory: the register window
 * of a platform device's memory resource (<dmamap/iomem.h>), which the
 * driver maps with the calls below or devm_platform_ioremap_resource()
 * (<linux/platform_device.h>) and the test reaches with
 * dmamap_platform_regs(), or any memory a test hands to its driver as a
 * `void __iomem *` window; the test's hardware model reads and writes the
 * same memory. The accessors are volatile accesses in little-endian order;
 * the barriers are compiler and CPU fences, enough for a model that runs on
 * the same host. Bus masters reach memory only through the library
 * (dmamap_dev_read/write), so no barrier can hide a missing cache operation.
 */
#ifndef _LINUX_IO_H
#define _LINUX_IO_H

#include <dmamap/linux-api.h>
#include <dmamap/types.h>
#include <dmamap/iomem.h>

DMAMAP_BEGIN_DECLS

#ifndef mb
#define mb() DMAMAP_FENCE(__ATOMIC_SEQ_CST)
#define rmb() DMAMAP_FENCE(__ATOMIC_ACQUIRE)
#define wmb() DMAMAP_FENCE(__ATOMIC_RELEASE)
#endif
#ifndef dma_rmb
#define dma_rmb() rmb()
#define dma_wmb() wmb()
#endif

/** readb() - read an 8-bit register (after the accesses before it). */
static inline u8 readb(const volatile void __iomem *addr)
{
	u8 v = *(const volatile u8 *)addr;

	rmb();
	return v;
}

/** readw() - read a little-endian 16-bit register (after the accesses before it). */
static inline u16 readw(const volatile void __iomem *addr)
{
	u16 v = le16_to_cpu(*(const volatile u16 *)addr);

	rmb();
	return v;
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

/** readq() - read a little-endian 64-bit register in one access (after the accesses before it). */
static inline u64 readq(const volatile void __iomem *addr)
{
	u64 v = le64_to_cpu(*(const volatile u64 *)addr);

	rmb();
	return v;
}

/** writeq() - write a little-endian 64-bit register in one access, after every memory write before it. */
static inline void writeq(u64 value, volatile void __iomem *addr)
{
	wmb();
	*(volatile u64 *)addr = cpu_to_le64(value);
}

/** readb_relaxed() - readb() without the ordering. */
static inline u8 readb_relaxed(const volatile void __iomem *addr)
{
	return *(const volatile u8 *)addr;
}

/** readw_relaxed() - readw() without the ordering. */
static inline u16 readw_relaxed(const volatile void __iomem *addr)
{
	return le16_to_cpu(*(const volatile u16 *)addr);
}

/** readq_relaxed() - readq() without the ordering. */
static inline u64 readq_relaxed(const volatile void __iomem *addr)
{
	return le64_to_cpu(*(const volatile u64 *)addr);
}

/** writeb_relaxed() - writeb() without the ordering. */
static inline void writeb_relaxed(u8 value, volatile void __iomem *addr)
{
	*(volatile u8 *)addr = value;
}

/** writew_relaxed() - writew() without the ordering. */
static inline void writew_relaxed(u16 value, volatile void __iomem *addr)
{
	*(volatile u16 *)addr = cpu_to_le16(value);
}

/** writeq_relaxed() - writeq() without the ordering. */
static inline void writeq_relaxed(u64 value, volatile void __iomem *addr)
{
	*(volatile u64 *)addr = cpu_to_le64(value);
}

/** ioread8() - readb(). */
static inline u8 ioread8(const volatile void __iomem *addr)
{
	return readb(addr);
}

/** ioread16() - readw(). */
static inline u16 ioread16(const volatile void __iomem *addr)
{
	return readw(addr);
}

/** iowrite8() - writeb(). */
static inline void iowrite8(u8 value, volatile void __iomem *addr)
{
	writeb(value, addr);
}

/** iowrite16() - writew(). */
static inline void iowrite16(u16 value, volatile void __iomem *addr)
{
	writew(value, addr);
}

/** ioread32be() - read a big-endian 32-bit register, ordered as readl(). */
static inline u32 ioread32be(const volatile void __iomem *addr)
{
	u32 v = be32_to_cpu(*(const volatile u32 *)addr);

	rmb();
	return v;
}

/** iowrite32be() - write a big-endian 32-bit register, ordered as writel(). */
static inline void iowrite32be(u32 value, volatile void __iomem *addr)
{
	wmb();
	*(volatile u32 *)addr = cpu_to_be32(value);
}

/**
 * readsl() - read @count 32-bit words from the one register @addr (a FIFO) into @buffer
 * @addr: the FIFO register
 * @buffer: @count words, 32-bit aligned
 * @count: words; 0 reads nothing
 *
 * As the kernel's, the words are stored as the bus delivered them, with no
 * byte swapping (the FIFO carries a byte stream), and there is no barrier.
 */
static inline void readsl(const volatile void __iomem *addr, void *buffer, unsigned int count)
{
	u32 *b = (u32 *)buffer;

	while (count--)
		*b++ = *(const volatile u32 *)addr;
}

/** writesl() - write @count 32-bit words of @buffer to the one register @addr (a FIFO); as readsl(). */
static inline void writesl(volatile void __iomem *addr, const void *buffer, unsigned int count)
{
	const u32 *b = (const u32 *)buffer;

	while (count--)
		*(volatile u32 *)addr = *b++;
}

/** ioread32_rep() - readsl(). */
static inline void ioread32_rep(const volatile void __iomem *addr, void *buffer, unsigned long count)
{
	readsl(addr, buffer, (unsigned int)count);
}

/** iowrite32_rep() - writesl(). */
static inline void iowrite32_rep(volatile void __iomem *addr, const void *buffer, unsigned long count)
{
	writesl(addr, buffer, (unsigned int)count);
}

/**
 * memcpy_fromio() - copy @size bytes of the register window at @addr into @buffer
 *
 * Byte by byte, each a volatile read, in address order; no barrier.
 */
static inline void memcpy_fromio(void *buffer, const volatile void __iomem *addr, size_t size)
{
	const volatile u8 *src = (const volatile u8 *)addr;
	u8 *dst = (u8 *)buffer;

	while (size--)
		*dst++ = *src++;
}

/** memcpy_toio() - copy @size bytes of @buffer into the register window at @addr; as memcpy_fromio(). */
static inline void memcpy_toio(volatile void __iomem *addr, const void *buffer, size_t size)
{
	volatile u8 *dst = (volatile u8 *)addr;
	const u8 *src = (const u8 *)buffer;

	while (size--)
		*dst++ = *src++;
}

/** memset_io() - set @size bytes of the register window at @addr to @value; as memcpy_toio(). */
static inline void memset_io(volatile void __iomem *addr, int value, size_t size)
{
	volatile u8 *dst = (volatile u8 *)addr;

	while (size--)
		*dst++ = (u8)value;
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

/* IOMEM_ERR_PTR() - ERR_PTR() of -errno @err as a register window pointer. */
#define IOMEM_ERR_PTR(err) ((__force void __iomem *)ERR_PTR(err))

/**
 * ioremap() - map @size bytes of a register window at physical @offset, on the current machine
 * @offset: the physical address, in a memory resource of a platform device
 * @size: bytes, non-zero
 *
 * See dmamap_ioremap_at(): the CPU address of @offset in its window, or
 * NULL (reported) when no window holds the range; iounmap() undoes it.
 */
static inline void __iomem *ioremap(phys_addr_t offset, size_t size)
{
	return dmamap_ioremap_at(NULL, offset, size, NULL, 0);
}

/** ioremap_wc() - ioremap() with write combining: the same window here (nothing caches or buffers it). */
static inline void __iomem *ioremap_wc(phys_addr_t offset, size_t size)
{
	return dmamap_ioremap_at(NULL, offset, size, NULL, 0);
}

/** ioremap_np() - ioremap() non-posted (arm64): the same window here, where every write lands at once. */
static inline void __iomem *ioremap_np(phys_addr_t offset, size_t size)
{
	return dmamap_ioremap_at(NULL, offset, size, NULL, 0);
}

/** iounmap() - undo the mapping ioremap() returned @addr for (see dmamap_iounmap_at()); NULL is ignored. */
static inline void iounmap(volatile void __iomem *addr)
{
	dmamap_iounmap_at(NULL, addr, NULL, 0);
}

/**
 * devm_ioremap() - ioremap() on @dev's machine, undone when the driver unbinds
 * @dev: the device
 * @offset: the physical address
 * @size: bytes, non-zero
 *
 * See dmamap_devm_ioremap_at(): the CPU address, or NULL (not an ERR_PTR(),
 * as in the kernel); the region is not requested.
 */
static inline void __iomem *devm_ioremap(struct device *dev, phys_addr_t offset, phys_addr_t size)
{
	return dmamap_devm_ioremap_at(dev, offset, size, NULL, 0);
}

/** devm_ioremap_wc() - devm_ioremap() with write combining: the same window here. */
static inline void __iomem *devm_ioremap_wc(struct device *dev, phys_addr_t offset, phys_addr_t size)
{
	return dmamap_devm_ioremap_at(dev, offset, size, NULL, 0);
}

/** ioremap_uc() - ioremap() uncached: the same window here. */
static inline void __iomem *ioremap_uc(phys_addr_t offset, size_t size)
{
	return dmamap_ioremap_at(NULL, offset, size, NULL, 0);
}

/** ioremap_wt() - ioremap() write-through: the same window here (nothing caches it). */
static inline void __iomem *ioremap_wt(phys_addr_t offset, size_t size)
{
	return dmamap_ioremap_at(NULL, offset, size, NULL, 0);
}

/** ioremap_cache() - ioremap() cached: the same window here (the cache model holds RAM only, never a window). */
static inline void __iomem *ioremap_cache(phys_addr_t offset, size_t size)
{
	return dmamap_ioremap_at(NULL, offset, size, NULL, 0);
}

/** devm_ioremap_uc() - devm_ioremap() uncached: the same window here. */
static inline void __iomem *devm_ioremap_uc(struct device *dev, phys_addr_t offset, phys_addr_t size)
{
	return dmamap_devm_ioremap_at(dev, offset, size, NULL, 0);
}

/** devm_ioremap_np() - devm_ioremap() non-posted (arm64): the same window here. */
static inline void __iomem *devm_ioremap_np(struct device *dev, phys_addr_t offset, phys_addr_t size)
{
	return dmamap_devm_ioremap_at(dev, offset, size, NULL, 0);
}

/** devm_iounmap() - undo now a managed mapping of @dev (see dmamap_devm_iounmap_at()). */
static inline void devm_iounmap(struct device *dev, void __iomem *addr)
{
	dmamap_devm_iounmap_at(dev, addr, NULL, 0);
}

#define ioremap(offset, size) dmamap_ioremap_at(NULL, (offset), (size), __FILE__, __LINE__)
#define ioremap_wc(offset, size) dmamap_ioremap_at(NULL, (offset), (size), __FILE__, __LINE__)
#define ioremap_np(offset, size) dmamap_ioremap_at(NULL, (offset), (size), __FILE__, __LINE__)
#define ioremap_uc(offset, size) dmamap_ioremap_at(NULL, (offset), (size), __FILE__, __LINE__)
#define ioremap_wt(offset, size) dmamap_ioremap_at(NULL, (offset), (size), __FILE__, __LINE__)
#define ioremap_cache(offset, size) dmamap_ioremap_at(NULL, (offset), (size), __FILE__, __LINE__)
#define iounmap(addr) dmamap_iounmap_at(NULL, (addr), __FILE__, __LINE__)
#define devm_ioremap(dev, offset, size) dmamap_devm_ioremap_at((dev), (offset), (size), __FILE__, __LINE__)
#define devm_ioremap_wc(dev, offset, size) dmamap_devm_ioremap_at((dev), (offset), (size), __FILE__, __LINE__)
#define devm_ioremap_uc(dev, offset, size) dmamap_devm_ioremap_at((dev), (offset), (size), __FILE__, __LINE__)
#define devm_ioremap_np(dev, offset, size) dmamap_devm_ioremap_at((dev), (offset), (size), __FILE__, __LINE__)
#define devm_iounmap(dev, addr) dmamap_devm_iounmap_at((dev), (addr), __FILE__, __LINE__)

DMAMAP_END_DECLS

#endif /* _LINUX_IO_H */
