#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""What must and must not compile with the library's two kernel APIs.

Usage: check-compile.py --cc "<C compiler command>" [--cxx "<C++ compiler>"] -I dir [-I dir...]

Each case is a small translation unit compiled with -fsyntax-only -Wall
-Wextra -Werror. A case that must compile fails the test if it does not; a
case that must not compile fails it if it does, or if the compiler's message
does not say why (the expected words are checked).
"""
import argparse
import concurrent.futures
import os
import shlex
import subprocess
import sys
import tempfile

LIBC = '''
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <unistd.h>
'''

KERNEL = '''
#include <linux/align.h>
#include <linux/atomic.h>
#include <linux/array_size.h>
#include <linux/bitfield.h>
#include <linux/bitmap.h>
#include <linux/bitops.h>
#include <linux/bits.h>
#include <linux/bottom_half.h>
#include <linux/bug.h>
#include <linux/build_bug.h>
#include <linux/compiler.h>
#include <linux/cleanup.h>
#include <linux/completion.h>
#include <linux/container_of.h>
#include <linux/delay.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/log2.h>
#include <linux/math.h>
#include <linux/minmax.h>
#include <linux/printk.h>
#include <linux/refcount.h>
#include <linux/dma-direction.h>
#include <linux/dma-mapping.h>
#include <linux/dmapool.h>
#include <linux/device.h>
#include <linux/devm-helpers.h>
#include <linux/err.h>
#include <linux/gfp.h>
#include <linux/highmem.h>
#include <linux/init.h>
#include <linux/interrupt.h>
#include <linux/io.h>
#include <linux/iommu.h>
#include <linux/ioport.h>
#include <linux/iopoll.h>
#include <linux/irqflags.h>
#include <linux/irqreturn.h>
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/lockdep.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/mm.h>
#include <linux/mod_devicetable.h>
#include <linux/clk.h>
#include <linux/firmware.h>
#include <linux/reset.h>
#include <linux/of.h>
#include <linux/of_device.h>
#include <linux/of_platform.h>
#include <linux/of_reserved_mem.h>
#include <linux/platform_device.h>
#include <linux/pm.h>
#include <linux/pm_runtime.h>
#include <linux/property.h>
#include <linux/fwnode.h>
#include <linux/scatterlist.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/sprintf.h>
#include <linux/stddef.h>
#include <linux/string.h>
#include <linux/overflow.h>
#include <linux/poison.h>
#include <linux/types.h>
#include <linux/unaligned.h>
#include <linux/vmalloc.h>
#include <linux/wait.h>
#include <linux/wordpart.h>
#include <linux/workqueue.h>
'''

DRIVER = '''
struct ring {
	__le32 *desc;
	dma_addr_t desc_dma;
	u8 *buf;
	DEFINE_DMA_UNMAP_ADDR(buf_dma);
	DEFINE_DMA_UNMAP_LEN(buf_len);
	u8 cmd[4] __aligned(ARCH_DMA_MINALIGN);
};

int probe(struct device *dev, struct ring *r);
int probe(struct device *dev, struct ring *r)
{
	dma_addr_t h;
	int ret = dma_set_mask_and_coherent(dev, DMA_BIT_MASK(32));

	if (ret)
		return dev_err_probe(dev, ret, "no usable DMA (%d)\\n", ret);
	r->desc = dmam_alloc_coherent(dev, SZ_4K, &r->desc_dma, GFP_KERNEL);
	r->buf = devm_kzalloc(dev, 2048, GFP_KERNEL);
	if (!r->desc || !r->buf)
		return -ENOMEM;
	h = dma_map_single_attrs(dev, r->buf, 2048, DMA_FROM_DEVICE, DMA_ATTR_SKIP_CPU_SYNC);
	if (dma_mapping_error(dev, h))
		return -ENOMEM;
	dma_unmap_addr_set(r, buf_dma, h);
	dma_unmap_len_set(r, buf_len, 2048);
	r->desc[0] = cpu_to_le32(lower_32_bits(h));
	r->desc[1] = cpu_to_le32(upper_32_bits(h));
	dma_unmap_single(dev, dma_unmap_addr(r, buf_dma), dma_unmap_len(r, buf_len), DMA_FROM_DEVICE);
	return 0;
}
'''

# min() and its siblings as drivers write them: a constant beside an unsigned
# (held in a temporary, it must not draw a signedness warning), nested calls
# (their temporaries must not shadow each other), the _t forms.
MINMAX = '''
#pragma GCC diagnostic error "-Wshadow"
unsigned int rx_len(unsigned int len, int budget, u8 a, u8 b, size_t room);
unsigned int rx_len(unsigned int len, int budget, u8 a, u8 b, size_t room)
{
	unsigned int n = min(len, 4096);
	int m = clamp(budget, 0, 64);
	unsigned int c = clamp(len, 0, SZ_2K);
	size_t t = min_t(size_t, room, len);
	unsigned long z = min_not_zero(room, 4096ul);
	int nested = min(min(budget, 3), max(m, min(budget, 1)));

	n = max(n, 64u) + (unsigned int)max_t(int, m, nested) + (unsigned int)min(a, b);
	return n + c + (unsigned int)t + (unsigned int)z;
}
'''

# The same in C++, where min() and max() are left to std::.
MINMAX_CXX = '''
unsigned int rx_len(unsigned int len, int budget, size_t room);
unsigned int rx_len(unsigned int len, int budget, size_t room)
{
	int m = clamp(budget, 0, 64);
	size_t t = min_t(size_t, room, len);
	unsigned long z = min_not_zero(room, 4096ul);

	return (unsigned int)max_t(int, m, 1) + (unsigned int)t + (unsigned int)z;
}
'''

# The <linux/bug.h> family as drivers use it, in C and C++.
BUGS = '''
int check_len(struct device *dev, unsigned int len);
int check_len(struct device *dev, unsigned int len)
{
	BUG_ON(!dev);
	if (WARN_ON(len > 4096) || WARN_ON_ONCE(len == 1))
		return -EINVAL;
	if (WARN(len & 3, "%s: unaligned length %u\\n", dev_name(dev), len))
		return -EINVAL;
	WARN_ONCE(len > 2048, "long frame\\n");
	if (!len)
		BUG();
	return 0;
}
'''

# The kernel names drivers use beside the DMA API, as they use them (C and C++).
NAMES = '''
#pragma GCC diagnostic error "-Wimplicit-fallthrough"
extern char table[ilog2(SZ_4K)];
char table[ilog2(SZ_4K)];
int names(struct device *dev, unsigned long v, __be32 *hdr, unsigned int n);
int names(struct device *dev, unsigned long v, __be32 *hdr, unsigned int n)
{
	u64 window = SZ_4G - SZ_2G;

	BUILD_BUG_ON(sizeof(dma_addr_t) != 8);
	if (IS_ERR_VALUE(v))
		return dev_err_probe(dev, -EPROBE_DEFER, "not yet\\n");
	if (dma_get_required_mask(dev) > DMA_BIT_MASK(32) || window > U32_MAX || n > U16_MAX)
		pr_info("wide: %llu\\n", (unsigned long long)U64_MAX);
	switch (n) {
	case 0:
		pr_err("empty\\n");
		fallthrough;
	case 1:
		pr_warn("short\\n");
		break;
	default:
		pr_debug("ok\\n");
	}
	*hdr = cpu_to_be32(be32_to_cpu(*hdr) + (u32)roundup(n, 3) + (u32)rounddown(n, 4));
	if (!is_power_of_2(n) || ilog2(n) > 20)
		return -ENOTSUPP;
	return (int)sizeof(table) + (int)clamp_t(int, n, 0, 9) + (int)clamp_val(n, 1u, 4u);
}
'''

# C only: min3(), max3() and swap() stay out of C++, as min() and max() do.
NAMES_C = '''
unsigned int names_c(unsigned int a, unsigned int b);
unsigned int names_c(unsigned int a, unsigned int b)
{
	swap(a, b);
	return min3(a, b, 7u) + max3(a, b, 7u) + (unsigned int)be16_to_cpu(cpu_to_be16(3)) +
	       (unsigned int)be64_to_cpu(cpu_to_be64(3));
}
'''

# The dev_printk() family and device references, as drivers use them (C and C++).
DEV_LOG = '''
void dev_log(struct device *dev, int n);
void dev_log(struct device *dev, int n)
{
	struct device *ref = get_device(dev);

	dev_printk(KERN_ERR, ref, "ring %d\\n", n);
	dev_printk(KERN_DEBUG, ref, "quiet\\n");
	dev_emerg(ref, "e\\n");
	dev_alert(ref, "a\\n");
	dev_crit(ref, "c\\n");
	dev_notice(ref, "n %d\\n", n);
	if (n > 1)
		dev_err_once(ref, "once %d\\n", n);
	else
		dev_warn_once(ref, "once\\n");
	dev_info_once(ref, "i\\n");
	dev_err_ratelimited(ref, "r %d\\n", n);
	dev_warn_ratelimited(ref, "w\\n");
	dev_info_ratelimited(ref, "i %d\\n", n);
	if (n < 0)
		dev_WARN(ref, "negative %d\\n", n);
	dev_WARN_ONCE(ref, n > 100, "big %d\\n", n);
	dev_vdbg(ref, "v %d\\n", n);
	(void)page_to_virt(virt_to_page(ref));
	put_device(ref);
}
'''

# Copies and array sizes as a probe takes them (C and C++).
COPIES = '''
struct cfg { u32 regs[4]; };
int take_copies(struct device *dev, const struct cfg *def, const char *label, u32 **tbl, size_t n);
int take_copies(struct device *dev, const struct cfg *def, const char *label, u32 **tbl, size_t n)
{
	struct cfg *c = (struct cfg *)devm_kmemdup(dev, def, sizeof(*def), GFP_KERNEL);
	char *name = devm_kstrdup(dev, label, GFP_KERNEL);
	char *tmp = kstrdup(label, GFP_KERNEL);
	char short_name[8];
	u32 *grown = (u32 *)krealloc_array(*tbl, n, sizeof(**tbl), GFP_KERNEL);
	u32 *regs = (u32 *)devm_kmemdup_array(dev, def->regs, ARRAY_SIZE(def->regs), sizeof(u32), GFP_KERNEL);
	u32 *scratch = (u32 *)kmemdup_array(def->regs, ARRAY_SIZE(def->regs), sizeof(u32), GFP_KERNEL);
	void *ring = devm_krealloc(dev, NULL, 64, GFP_KERNEL);

	if (strscpy(short_name, label, sizeof(short_name)) < 0)
		short_name[0] = '\\0';
	kfree(scratch);
	if (!regs || !ring)
		return -ENOMEM;
	regs = (u32 *)devm_krealloc_array(dev, regs, 2 * ARRAY_SIZE(def->regs), sizeof(u32), GFP_KERNEL);
	ring = devm_krealloc(dev, ring, 128, GFP_KERNEL);
	if (!regs || !ring)
		return -ENOMEM;
	kfree(tmp);
	tmp = kasprintf(GFP_KERNEL, "%s-%zu", label, n);
	kfree(tmp);
	tmp = kmemdup_nul(label, 3, GFP_KERNEL);
	kfree(tmp);
	if (!devm_kasprintf(dev, GFP_KERNEL, "%s-rx%u", dev_name(dev), (unsigned int)n))
		return -ENOMEM;
	if (!c || !name || !grown)
		return -ENOMEM;
	*tbl = grown;
	return 0;
}
'''

# A register block driven with readl()/writel() and the <linux/bitfield.h>
# macros, as a DMA engine driver programs a channel (C and C++).
REGS = '''
#define CH_CTRL 0x00
#define CH_CTRL_EN BIT(0)
#define CH_CTRL_BURST GENMASK(7, 4)
#define CH_CTRL_PRIO GENMASK(31, 30)
#define CH_STAT 0x04
#define CH_STAT_DONE GENMASK(15, 0)
#define DESC_ADDR_HI GENMASK_ULL(63, 32)
static const u32 ch_default = FIELD_PREP_CONST(CH_CTRL_BURST, 4) | FIELD_PREP_CONST(CH_CTRL_PRIO, 3);
int ch_start(struct device *dev, void __iomem *base, dma_addr_t desc, unsigned int burst, __le32 *flags);
int ch_start(struct device *dev, void __iomem *base, dma_addr_t desc, unsigned int burst, __le32 *flags)
{
	u32 ctrl = readl(base + CH_CTRL);
	u64 hi = FIELD_GET(DESC_ADDR_HI, (u64)desc);

	if (!FIELD_FIT(CH_CTRL_BURST, burst) || burst > FIELD_MAX(CH_CTRL_BURST))
		return dev_err_probe(dev, -EINVAL, "burst %u\\n", burst);
	ctrl &= ~(u32)(CH_CTRL_BURST | CH_CTRL_PRIO);
	ctrl |= (u32)(FIELD_PREP(CH_CTRL_BURST, burst) | FIELD_PREP(CH_CTRL_PRIO, 2) | CH_CTRL_EN);
	le32p_replace_bits(flags, 1, BIT(31));
	writel(ctrl | ch_default, base + CH_CTRL);
	switch (readl(base + CH_STAT) & CH_STAT_DONE) {
	case FIELD_PREP_CONST(CH_STAT_DONE, 0):
		return -EBUSY;
	default:
		return (int)(FIELD_GET(CH_STAT_DONE, readl(base + CH_STAT)) + u32_get_bits((u32)hi, 0xff));
	}
}
'''

# A transmit path over a request's scatterlist: mapped for the device, with an
# unaligned head copied with the CPU through the mapping iterator and the
# positional copies (C and C++).
SG_TX = '''
struct tx_req { struct scatterlist *sgl; unsigned int nents; unsigned int len; u8 head[16]; };
int tx_submit(struct device *dev, struct tx_req *req, __le64 *ring);
int tx_submit(struct device *dev, struct tx_req *req, __le64 *ring)
{
	struct sg_mapping_iter miter;
	struct scatterlist *sg;
	unsigned int i, sum = 0;
	int n;

	sg_miter_start(&miter, req->sgl, req->nents, SG_MITER_FROM_SG | SG_MITER_ATOMIC);
	if (sg_miter_skip(&miter, 4)) {
		while (sg_miter_next(&miter)) {
			const u8 *p = (const u8 *)miter.addr;

			sum += p[0];
			miter.consumed = min_t(size_t, miter.length, 64);
		}
	}
	sg_miter_stop(&miter);
	sg_miter_start(&miter, req->sgl, req->nents, SG_MITER_TO_SG | SG_MITER_LOCAL);
	if (sg_miter_next(&miter))
		memset(miter.addr, 0, miter.length);
	sg_miter_stop(&miter);
	if (sg_pcopy_to_buffer(req->sgl, req->nents, req->head, sizeof(req->head), 2) != sizeof(req->head))
		return -EINVAL;
	sg_pcopy_from_buffer(req->sgl, req->nents, req->head, 4, req->len - 4);
	sg_zero_buffer(req->sgl, req->nents, 2, 0);
	n = dma_map_sg(dev, req->sgl, (int)req->nents, DMA_TO_DEVICE);
	if (!n)
		return -ENOMEM;
	for_each_sg(req->sgl, sg, n, i)
		ring[i] = cpu_to_le64(sg_dma_address(sg) | FIELD_PREP(GENMASK_ULL(63, 48), sg_dma_len(sg)));
	dma_unmap_sg(dev, req->sgl, (int)req->nents, DMA_TO_DEVICE);
	return (int)sum;
}
'''

# A bounce list of fresh pages for a request, as crypto and storage drivers
# keep one (sgl_alloc_order()... through <linux/scatterlist.h> alone; C and
# C++).
SGL_BOUNCE = '''
#include <linux/scatterlist.h>
struct scatterlist *bounce_get(unsigned long long len, unsigned int *n, bool big);
struct scatterlist *bounce_get(unsigned long long len, unsigned int *n, bool big)
{
	struct scatterlist *sgl = big ? sgl_alloc_order(len, 2, true, GFP_KERNEL, n) : sgl_alloc(len, GFP_KERNEL, n);

	if (sgl && !big && *n > 4) {
		sgl_free_n_order(sgl, (int)*n, 0);
		return NULL;
	}
	return sgl;
}
void bounce_put(struct scatterlist *sgl, bool big);
void bounce_put(struct scatterlist *sgl, bool big)
{
	if (big)
		sgl_free_order(sgl, 2);
	else
		sgl_free(sgl);
}
'''

# Pinned pages appended to a table a batch at a time, as RDMA drivers build
# one (struct sg_append_table through <linux/scatterlist.h> alone; C and C++).
SG_APPEND = '''
#include <linux/scatterlist.h>
int pin_into(struct sg_append_table *t, struct page **pages, unsigned int n, unsigned int total);
int pin_into(struct sg_append_table *t, struct page **pages, unsigned int n, unsigned int total)
{
	unsigned int done;
	int ret = 0;

	for (done = 0; done < total && !ret; done += n)
		ret = sg_alloc_append_table_from_pages(t, pages, n, 0, (unsigned long)n << PAGE_SHIFT, 0x10000,
						       total - done - n, GFP_KERNEL);
	if (ret)
		sg_free_append_table(t);
	return ret ? ret : (int)t->sgt.nents;
}
'''

# A status line built piece by piece, as drivers' sysfs and debugfs show
# functions do, from <linux/sprintf.h> (or <linux/kernel.h>) alone (C and C++).
STATUS = '''
int show_status(char *buf, size_t size, dma_addr_t ring, unsigned int head, const char *name);
int show_status(char *buf, size_t size, dma_addr_t ring, unsigned int head, const char *name)
{
	int n = scnprintf(buf, size, "%s: ring %pad", name, &ring);

	n += scnprintf(buf + n, size - (size_t)n, " head %u\\n", head);
	return n;
}
'''

# A name taken from a fixed-size field with no NUL of its own, from
# <linux/string.h> alone (C and C++).
NAME_FIELD = '''
#include <linux/string.h>
char *name_of(const u8 *field, size_t len);
char *name_of(const u8 *field, size_t len)
{
	return kmemdup_nul((const char *)field, len, GFP_KERNEL);
}
'''

# Code built by option, as drivers branch on Kconfig symbols, from
# <linux/kconfig.h> alone: in #if without -Wundef warnings for the options
# left undefined, and in expressions (C and C++).
KCONFIG = '''
#pragma GCC diagnostic error "-Wundef"
#include <linux/kconfig.h>
#define CONFIG_DRV_DEBUGFS 1
#define CONFIG_DRV_PM_MODULE 1
#if IS_ENABLED(CONFIG_DRV_DEBUGFS) && !IS_BUILTIN(CONFIG_DRV_OF) && IS_MODULE(CONFIG_DRV_PM)
static const int drv_features = IS_REACHABLE(CONFIG_DRV_PM) + 2 * IS_ENABLED(CONFIG_DRV_OF);
#endif
int drv_probe(void);
int drv_probe(void)
{
	if (IS_ENABLED(CONFIG_DRV_HIGHMEM))
		return -1;
	return drv_features;
}
'''

# A command ring in pages the driver syncs itself, as NVMe-style drivers
# keep one (dma_alloc_pages(), from <linux/dma-mapping.h>; C and C++).
PAGES_RING = '''
#include <linux/dma-mapping.h>
struct cmd_ring { struct page *pages; dma_addr_t dma; u8 *cpu; };
int ring_init(struct device *dev, struct cmd_ring *r);
int ring_init(struct device *dev, struct cmd_ring *r)
{
	r->pages = dma_alloc_pages(dev, SZ_8K, &r->dma, DMA_BIDIRECTIONAL, GFP_KERNEL);
	if (!r->pages)
		return -ENOMEM;
	r->cpu = (u8 *)page_address(r->pages);
	memset(r->cpu, 0, SZ_8K);
	dma_sync_single_for_device(dev, r->dma, SZ_8K, DMA_BIDIRECTIONAL);
	return 0;
}
void ring_exit(struct device *dev, struct cmd_ring *r);
void ring_exit(struct device *dev, struct cmd_ring *r)
{
	dma_sync_single_for_cpu(dev, r->dma, SZ_8K, DMA_BIDIRECTIONAL);
	dma_free_pages(dev, SZ_8K, r->pages, r->dma, DMA_BIDIRECTIONAL);
}
'''

# A receive ring in pages the driver maps and syncs as a table, as camera
# drivers keep one (dma_alloc_noncontiguous(), from <linux/dma-mapping.h>;
# C and C++).
NONCONTIG_RING = '''
#include <linux/dma-mapping.h>
struct rx_ring { struct sg_table *sgt; u8 *cpu; };
int rx_init(struct device *dev, struct rx_ring *r);
int rx_init(struct device *dev, struct rx_ring *r)
{
	r->sgt = dma_alloc_noncontiguous(dev, SZ_64K, DMA_FROM_DEVICE, GFP_KERNEL, DMA_ATTR_ALLOC_SINGLE_PAGES);
	if (!r->sgt)
		return -ENOMEM;
	r->cpu = (u8 *)dma_vmap_noncontiguous(dev, SZ_64K, r->sgt);
	if (!r->cpu) {
		dma_free_noncontiguous(dev, SZ_64K, r->sgt, DMA_FROM_DEVICE);
		return -ENOMEM;
	}
	dma_sync_sgtable_for_device(dev, r->sgt, DMA_FROM_DEVICE);
	return sg_dma_address(r->sgt->sgl) ? 0 : -EIO;
}
/* the ring, handed to user space as a V4L2 driver's mmap handler does */
int rx_mmap(struct device *dev, struct rx_ring *r, struct vm_area_struct *vma);
int rx_mmap(struct device *dev, struct rx_ring *r, struct vm_area_struct *vma)
{
	if (vma_pages(vma) > SZ_64K >> PAGE_SHIFT)
		return -EINVAL;
	return dma_mmap_noncontiguous(dev, vma, SZ_64K, r->sgt);
}
int rx_mmap_pages(struct device *dev, struct page *page, struct vm_area_struct *vma);
int rx_mmap_pages(struct device *dev, struct page *page, struct vm_area_struct *vma)
{
	return dma_mmap_pages(dev, vma, SZ_64K, page);
}
void rx_exit(struct device *dev, struct rx_ring *r);
void rx_exit(struct device *dev, struct rx_ring *r)
{
	dma_sync_sgtable_for_cpu(dev, r->sgt, DMA_FROM_DEVICE);
	dma_vunmap_noncontiguous(dev, r->cpu);
	dma_free_noncontiguous(dev, SZ_64K, r->sgt, DMA_FROM_DEVICE);
}
'''

# A request's pages mapped for the device as a block driver's fast path
# does with the IOVA-based DMA API of Linux 6.17: one IOVA range linked page
# by page and synced once, or, without an IOMMU, dma_map_page() of each
# (<linux/dma-mapping.h> alone; C and C++).
IOVA_FASTPATH = '''
#include <linux/dma-mapping.h>
struct req_map { struct dma_iova_state state; dma_addr_t addrs[4]; size_t mapped; };
int req_map(struct device *dev, struct req_map *rm, struct page **pages, unsigned int n, enum dma_data_direction dir);
int req_map(struct device *dev, struct req_map *rm, struct page **pages, unsigned int n, enum dma_data_direction dir)
{
	unsigned int i;
	int ret;

	if (n > 4)
		return -EINVAL;
	rm->mapped = 0;
	if (dma_iova_try_alloc(dev, &rm->state, page_to_phys(pages[0]), (size_t)n * PAGE_SIZE)) {
		for (i = 0; i < n; i++) {
			ret = dma_iova_link(dev, &rm->state, page_to_phys(pages[i]), rm->mapped, PAGE_SIZE, dir, 0);
			if (ret)
				goto out_destroy;
			rm->addrs[i] = rm->state.addr + rm->mapped;
			rm->mapped += PAGE_SIZE;
		}
		ret = dma_iova_sync(dev, &rm->state, 0, rm->mapped);
		if (ret)
			goto out_destroy;
		return 0;
	}
	for (i = 0; i < n; i++) {
		rm->addrs[i] = dma_map_page(dev, pages[i], 0, PAGE_SIZE, dir);
		if (dma_mapping_error(dev, rm->addrs[i])) {
			while (i--)
				dma_unmap_page(dev, rm->addrs[i], PAGE_SIZE, dir);
			return -ENOMEM;
		}
	}
	return 0;

out_destroy:
	dma_iova_destroy(dev, &rm->state, rm->mapped, dir, 0);
	return ret;
}
void req_unmap(struct device *dev, struct req_map *rm, unsigned int n, enum dma_data_direction dir);
void req_unmap(struct device *dev, struct req_map *rm, unsigned int n, enum dma_data_direction dir)
{
	if (dma_use_iova(&rm->state)) {
		/* every page was linked: the whole range */
		dma_iova_unlink(dev, &rm->state, 0, dma_iova_size(&rm->state), dir, 0);
		dma_iova_free(dev, &rm->state);
		return;
	}
	while (n--)
		dma_unmap_page(dev, rm->addrs[n], PAGE_SIZE, dir);
}
'''

# What a driver that manages its own IOMMU domain (a GPU's, a DSP's) does
# with <linux/iommu.h> alone: map its buffers (one by one, or a table with
# iommu_map_sg()), unmap a batch of them with iommu_unmap_fast() into one
# gather and invalidate once with iommu_iotlb_sync(), flush everything at
# reset (C and C++).
IOMMU_BATCH = '''
#include <linux/iommu.h>
struct gpu_buf { unsigned long iova; phys_addr_t phys; size_t size; };
int gpu_map_bufs(struct iommu_domain *dom, struct gpu_buf *bufs, unsigned int n);
int gpu_map_bufs(struct iommu_domain *dom, struct gpu_buf *bufs, unsigned int n)
{
	unsigned int i;
	int ret;

	for (i = 0; i < n; i++) {
		ret = iommu_map(dom, bufs[i].iova, bufs[i].phys, bufs[i].size, IOMMU_READ | IOMMU_WRITE, GFP_KERNEL);
		if (ret) {
			while (i--)
				iommu_unmap(dom, bufs[i].iova, bufs[i].size);
			return ret;
		}
	}
	return 0;
}
size_t gpu_unmap_bufs(struct iommu_domain *dom, struct gpu_buf *bufs, unsigned int n);
size_t gpu_unmap_bufs(struct iommu_domain *dom, struct gpu_buf *bufs, unsigned int n)
{
	struct iommu_iotlb_gather gather;
	size_t done = 0;
	unsigned int i;

	iommu_iotlb_gather_init(&gather);
	for (i = 0; i < n; i++)
		done += iommu_unmap_fast(dom, bufs[i].iova, bufs[i].size, &gather);
	iommu_iotlb_sync(dom, &gather);
	return done;
}
ssize_t gpu_map_table(struct iommu_domain *dom, unsigned long iova, struct sg_table *sgt);
ssize_t gpu_map_table(struct iommu_domain *dom, unsigned long iova, struct sg_table *sgt)
{
	return iommu_map_sg(dom, iova, sgt->sgl, sgt->orig_nents, IOMMU_READ, GFP_KERNEL);
}
void gpu_reset(struct iommu_domain *dom);
void gpu_reset(struct iommu_domain *dom)
{
	iommu_flush_iotlb_all(dom);
}
'''

# A driver's own header, as it declares its hardware with <linux/types.h>
# alone (C and C++).
HW_HEADER = '''
#include <linux/types.h>
struct hw_desc {
	__le32 ctrl;
	__le32 len;
	__le64 addr;
};
struct hw_ring {
	struct hw_desc *desc;
	dma_addr_t desc_dma;
	u32 head, tail;
	bool running;
	size_t size;
};
'''

# Probe code sizing and placing its rings with the names of <linux/kernel.h>,
# <linux/align.h>, <linux/math.h>, <linux/overflow.h> and <linux/compiler.h>.
SIZES = '''
struct chan { u32 id; struct hw_ring ring; };
struct engine { unsigned int nr; struct chan ch[]; };
struct engine *engine_alloc(struct device *dev, unsigned int nr, size_t ring_bytes);
struct engine *engine_alloc(struct device *dev, unsigned int nr, size_t ring_bytes)
{
	static const u32 burst[] = { 4, 8, 16 };
	struct engine *e = (struct engine *)devm_kzalloc(dev, struct_size_t(struct engine, ch, nr), GFP_KERNEL);
	size_t bytes, room = size_sub(ring_bytes, sizeof(struct hw_desc));
	u8 *buf;

	if (!e || check_mul_overflow((size_t)nr, room, &bytes) || !IS_ALIGNED(ring_bytes, 64))
		return (struct engine *)ERR_PTR(-EINVAL);
	if (dma_set_max_seg_size(dev, SZ_64K) || dma_get_max_seg_size(dev) < SZ_4K)
		return (struct engine *)ERR_PTR(-EPROBE_DEFER);
	e->nr = nr;
	e->ch[0].ring.size = ALIGN(bytes, SZ_4K) + ALIGN_DOWN(room, 64) + DIV_ROUND_UP(bytes, PAGE_SIZE) +
			     (size_t)DIV_ROUND_UP_ULL(bytes, 3) + array_size(nr, ARRAY_SIZE(burst));
	buf = (u8 *)e->ch;
	buf = PTR_ALIGN(buf, 64) + (PTR_ALIGN_DOWN(buf, 64) - buf);
	WRITE_ONCE(e->ch[0].ring.head, upper_32_bits((u64)e->ch[0].ring.size) + lower_32_bits(nr));
	barrier();
	if (READ_ONCE(e->ch[0].ring.tail) > round_up(nr, 4u))
		return container_of(&e->ch[0], struct engine, ch[0]);
	return buf ? e : (struct engine *)NULL;
}
'''

# PIO and register-window code beside the DMA path: 64-bit and big-endian
# registers, a FIFO drained with readsl(), a window filled with memcpy_toio()
# (C and C++).
PIO = '''
int pio_xfer(void __iomem *base, u32 *words, unsigned int n, const u8 *cmd, size_t cmd_len);
int pio_xfer(void __iomem *base, u32 *words, unsigned int n, const u8 *cmd, size_t cmd_len)
{
	u64 status = readq(base + 0x10);
	u8 tail[4];

	writeq(status | BIT_ULL(63), base + 0x10);
	writeq_relaxed(0, base + 0x18);
	iowrite32be(ioread32be(base + 0x20) | 1, base + 0x20);
	iowrite8(ioread8(base + 0x24), base + 0x25);
	iowrite16(ioread16(base + 0x26), base + 0x26);
	writew_relaxed(readw_relaxed(base + 0x28), base + 0x2a);
	writeb_relaxed(readb_relaxed(base + 0x2c), base + 0x2d);
	memset_io(base + 0x100, 0, 0x40);
	memcpy_toio(base + 0x100, cmd, cmd_len);
	readsl(base + 0x30, words, n);
	ioread32_rep(base + 0x30, words, n);
	writesl(base + 0x34, words, n);
	iowrite32_rep(base + 0x34, words, n);
	memcpy_fromio(tail, base + 0x140, sizeof(tail));
	return tail[0] + (int)(readq_relaxed(base + 0x10) & 1);
}
'''

# A receive path parsing a frame's packed header and updating its descriptor
# in place, with the <asm/unaligned.h> name of drivers before 6.12 (C and C++).
RX_PARSE = '''
#include <asm/unaligned.h>
struct rx_desc { __le32 status; __le16 count; __be16 proto; };
unsigned int rx_parse(struct rx_desc *d, const u8 *frame, u8 *reply);
unsigned int rx_parse(struct rx_desc *d, const u8 *frame, u8 *reply)
{
	u32 len = get_unaligned_le32(frame + 1) + get_unaligned_be16(frame + 5) + get_unaligned_be24(frame + 7);
	u64 stamp = get_unaligned_le64(frame + 10) ^ get_unaligned_be64(frame + 18);
	u16 tag = get_unaligned((const u16 *)(frame + 27));

	put_unaligned_le32(len, reply + 1);
	put_unaligned_be16(tag, reply + 5);
	put_unaligned_le24(len, reply + 7);
	put_unaligned(stamp, (u64 *)(reply + 11));
	le16_add_cpu(&d->count, 1);
	be16_add_cpu(&d->proto, 0);
	d->status = cpu_to_le32p(&len);
	return le32_to_cpup(&d->status) + upper_16_bits(len) + lower_16_bits(len) + be16_to_cpup(&d->proto);
}
'''

# A descriptor layout checked at compile time, clock-like rounding and
# window checks, as drivers write them (C and C++).
LAYOUT = '''
struct lay_desc { __le32 ctrl; __le16 len; __le16 flags; __le64 addr; };
static_assert(sizeof(struct lay_desc) == 16, "descriptor size");
static const int lay_pad = BUILD_BUG_ON_ZERO(offsetofend(struct lay_desc, flags) != 8);
int lay_check(dma_addr_t addr, dma_addr_t win, u32 len, int rate);
int lay_check(dma_addr_t addr, dma_addr_t win, u32 len, int rate)
{
	BUILD_BUG_ON_MSG(sizeof_field(struct lay_desc, addr) != 8, "64-bit addresses");
	if (!in_range(addr, win, (u64)SZ_1M) || !in_range(len, 1u, 0xffffu))
		return -ERANGE;
	return DIV_ROUND_CLOSEST(rate, 3) + (int)DIV_ROUND_CLOSEST_ULL(len, 3) + (int)DIV_ROUND_DOWN_ULL(len, 2) + lay_pad;
}
'''

# A descriptor-slot allocator and completion scan, as DMA engine drivers keep
# them in bitmaps (C and C++).
SLOTS = '''
#define NR_SLOTS 256
struct slots { DECLARE_BITMAP(used, NR_SLOTS); unsigned long pending; };
int slot_get(struct slots *s, unsigned int nr);
int slot_get(struct slots *s, unsigned int nr)
{
	unsigned long start = bitmap_find_next_zero_area(s->used, NR_SLOTS, 0, nr, 3);

	if (start > NR_SLOTS - nr)
		return -EBUSY;
	bitmap_set(s->used, (unsigned int)start, nr);
	return (int)start;
}
unsigned int slots_complete(struct slots *s);
unsigned int slots_complete(struct slots *s)
{
	unsigned long bit, done = 0;

	for_each_set_bit(bit, &s->pending, BITS_PER_LONG) {
		if (test_and_clear_bit((long)bit, &s->pending))
			done++;
		clear_bit((long)bit, s->used);
	}
	if (bitmap_empty(s->used, NR_SLOTS) || bitmap_full(s->used, NR_SLOTS))
		bitmap_zero(s->used, NR_SLOTS);
	set_bit(0, &s->pending);
	__set_bit(1, &s->pending);
	return (unsigned int)done + bitmap_weight(s->used, NR_SLOTS) + hweight32((u32)s->pending) +
	       (unsigned int)fls64(s->pending) + (unsigned int)__ffs(s->pending | 1) +
	       (unsigned int)find_first_zero_bit(s->used, NR_SLOTS);
}
'''

# A device page table filled from a mapped table, a page at a time, and the
# CPU pages of its entries (C and C++).
PGTABLE = '''
int fill_pt(struct device *dev, struct sg_table *sgt, __le64 *pt, unsigned int max, struct page **pages);
int fill_pt(struct device *dev, struct sg_table *sgt, __le64 *pt, unsigned int max, struct page **pages)
{
	struct sg_dma_page_iter dit;
	struct sg_page_iter pit;
	unsigned int n = 0, p = 0;
	int ret = dma_map_sgtable(dev, sgt, DMA_BIDIRECTIONAL, 0);

	if (ret)
		return ret;
	for_each_sgtable_dma_page(sgt, &dit, 0) {
		if (n == max)
			break;
		pt[n++] = cpu_to_le64(sg_page_iter_dma_address(&dit) | 1);
	}
	for_each_sgtable_page(sgt, &pit, 0)
		pages[p++] = sg_page_iter_page(&pit);
	for_each_sg_page(sgt->sgl, &pit, sgt->orig_nents, 1)
		p--;
	for_each_sg_dma_page(sgt->sgl, &dit, sgt->nents, 0)
		p++;
	sg_init_marker(sgt->sgl, sgt->orig_nents);
	return (int)(n + p);
}
'''

# Ring sizing with the power-of-two macros, a static ring sized by a
# constant, and a completion poll with the SMP barriers (C and C++).
RINGSIZE = '''
#define RX_RING roundup_pow_of_two(200)
static u8 rx_flags[RX_RING];
unsigned int ring_size(unsigned int want, volatile u32 *done, phys_addr_t base);
unsigned int ring_size(unsigned int want, volatile u32 *done, phys_addr_t base)
{
	unsigned long n = roundup_pow_of_two(want);
	int bits = order_base_2(want);

	if (n > rounddown_pow_of_two(SZ_64K) || !PAGE_ALIGNED(n * 16) || PHYS_PFN(base) == 0)
		return 0;
	smp_wmb();
	while (!*done)
		cpu_relax();
	smp_rmb();
	smp_mb();
	return (unsigned int)n + (unsigned int)bits + rx_flags[0];
}
'''

# What an NVMe-like driver asks of the DMA layer at probe, with Linux 6.x's
# smaller queries (<linux/dma-mapping.h> alone; C and C++).
DMA_QUERIES = '''
#include <linux/dma-mapping.h>
struct q_limits { unsigned long seg_pages, merge; bool unmap, mmap; unsigned int align; };
int q_probe(struct device *dev, struct q_limits *l);
int q_probe(struct device *dev, struct q_limits *l)
{
	int ret = dma_set_min_align_mask(dev, 4096 - 1);

	if (ret)
		return ret;
	l->align = dma_get_min_align_mask(dev);
	l->seg_pages = dma_get_seg_boundary_nr_pages(dev, PAGE_SHIFT);
	l->merge = dma_get_merge_boundary(dev);
	l->unmap = dma_need_unmap(dev);
	l->mmap = dma_can_mmap(dev);
	return 0;
}
'''

# A reset sequence as drivers write it: a register polled with
# readl_poll_timeout() (sleeping) and its _atomic form, a settle delay, a
# jiffies deadline and a ktime measure; each header alone (C and C++).
RESET_POLL = '''
#include <linux/iopoll.h>
int hw_reset(u8 __iomem *base, s64 *took_us);
int hw_reset(u8 __iomem *base, s64 *took_us)
{
	ktime_t t0 = ktime_get();
	u32 val;
	u8 b;
	int ret;

	writel(1, base + 0x04);
	ret = readl_poll_timeout(base + 0x08, val, val & BIT(0), 100, 10000);
	if (ret)
		return ret;
	ret = readl_relaxed_poll_timeout_atomic(base + 0x08, val, !(val & BIT(1)), 1, 100);
	ret = ret ?: readb_poll_timeout(base + 0x0c, b, b == 0, 10, 1000);
	ret = ret ?: read_poll_timeout(readl, val, val == 0, 10, 1000, true, base + 0x10);
	*took_us = ktime_us_delta(ktime_get(), t0);
	return ret;
}
'''

SETTLE = '''
#include <linux/delay.h>
void hw_settle(unsigned int ms);
void hw_settle(unsigned int ms)
{
	ndelay(100);
	udelay(10);
	mdelay(1);
	msleep(ms);
	usleep_range(100, 200);
	fsleep(50);
	if (msleep_interruptible(1))
		ssleep(1);
}
'''

DEADLINE = '''
#include <linux/jiffies.h>
int hw_wait_ready(volatile const int *ready);
int hw_wait_ready(volatile const int *ready)
{
	unsigned long timeout = jiffies + msecs_to_jiffies(100) + usecs_to_jiffies(10);
	u64 start = get_jiffies_64();

	while (!*ready) {
		if (time_after(jiffies, timeout) || time_is_before_jiffies(timeout))
			return -ETIMEDOUT;
		if (time_after64(get_jiffies_64(), start + HZ))
			return -EIO;
	}
	return (int)jiffies_to_msecs(jiffies - timeout) + (int)jiffies_to_usecs(1) + (int)nsecs_to_jiffies(0);
}
'''

STAMP = '''
#include <linux/ktime.h>
s64 hw_stamp(ktime_t start);
s64 hw_stamp(ktime_t start)
{
	ktime_t now = ktime_get(), end = ktime_add_ms(start, 5);

	if (ktime_after(now, end) || ktime_compare(now, end) > 0)
		return ktime_ms_delta(now, start);
	return ktime_to_us(ktime_sub(end, now)) + (s64)ktime_get_ns() + ktime_to_ns(ktime_set(1, 0));
}
'''

# A driver's locking as 6.x drivers write it: a ring under a spinlock taken
# from the interrupt handler with spin_lock_irqsave(), a mutex around
# configuration, a completion the handler completes, lockdep's assertions;
# each header alone (C and C++).
CLEANUP_ALONE = '''
#include <linux/cleanup.h>
struct res { int users; };
void res_put(struct res *r);
DEFINE_FREE(res, struct res *, if (_T) res_put(_T))
DEFINE_CLASS(res_ref, struct res *, res_put(_T), r, struct res *r)
struct gate { int held; };
void gate_lock(struct gate *g);
void gate_unlock(struct gate *g);
DEFINE_GUARD(gate, struct gate *, gate_lock(_T), gate_unlock(_T))
DEFINE_GUARD_COND(gate, _try, !_T->held)
DEFINE_LOCK_GUARD_1(gate1, struct gate, gate_lock(_T->lock), gate_unlock(_T->lock), unsigned long flags)
DEFINE_LOCK_GUARD_0(nothing, (void)0, (void)0)
int res_use(struct res *r, struct gate *g);
int res_use(struct res *r, struct gate *g)
{
	struct res *mine __free(res) = r;
	CLASS(res_ref, ref)(r);

	guard(gate)(g);
	guard(nothing)();
	scoped_guard(gate_try, g)
		return ref->users;
	scoped_guard(gate1, g) {
		if (ref->users)
			break;
	}
	scoped_cond_guard(gate_try, return -1, g) {
		ref->users++;
	}
	return no_free_ptr(mine)->users;
}
'''

# A driver of Linux 6.5 and later: guards of its locks, __free() buffers and nodes, scoped walks.
SCOPED_DRIVER = '''
#include <linux/cleanup.h>
#include <linux/device.h>
#include <linux/errno.h>
#include <linux/mutex.h>
#include <linux/of.h>
#include <linux/property.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/vmalloc.h>
struct foo { spinlock_t lock; raw_spinlock_t raw; struct mutex cfg; unsigned int pending; struct device *dev; };
void *foo_table(struct foo *f, size_t n);
void *foo_table(struct foo *f, size_t n)
{
	void *t __free(kfree) = kcalloc(n, 8, GFP_KERNEL);
	void *k __free(kvfree) = kvmalloc(n, GFP_KERNEL);
	void *v __free(vfree) = vzalloc(n);

	if (!t || !k || !v)
		return NULL;
	guard(mutex)(&f->cfg);
	scoped_guard(spinlock_irqsave, &f->lock)
		f->pending++;
	scoped_guard(spinlock_bh, &f->lock) {
		if (!f->pending)
			return NULL;
	}
	scoped_guard(raw_spinlock_irq, &f->raw)
		f->pending--;
	scoped_guard(spinlock_try, &f->lock)
		f->pending++;
	return_ptr(t);
}
int foo_ports(struct foo *f);
int foo_ports(struct foo *f)
{
	struct device_node *np __free(device_node) = of_get_child_by_name(f->dev->of_node, "ports");
	struct fwnode_handle *fw __free(fwnode_handle) = NULL;
	int n = 0;

	if (!np)
		return -ENODEV;
	scoped_cond_guard(mutex_intr, return -EINTR, &f->cfg) {
		for_each_child_of_node_scoped(np, child) {
			if (of_property_present(child, "disabled"))
				return -EINVAL;
			n++;
		}
		for_each_available_child_of_node_scoped(np, child)
			n++;
	}
	device_for_each_child_node_scoped(f->dev, child) {
		if (fwnode_property_present(child, "reg")) {
			fw = fwnode_handle_get(child);
			break;
		}
	}
	fwnode_for_each_available_child_node_scoped(dev_fwnode(f->dev), child)
		n++;
	scoped_guard(mutex_try, &f->cfg)
		n++;
	return n;
}
'''

RING_LOCK = '''
#include <linux/spinlock.h>
struct ring { spinlock_t lock; raw_spinlock_t hw_lock; unsigned int head, tail; };
static DEFINE_SPINLOCK(ring_list_lock);
static DEFINE_RAW_SPINLOCK(ring_hw_lock);
int ring_push(struct ring *r, unsigned int n);
int ring_push(struct ring *r, unsigned int n)
{
	unsigned long flags;
	int ret = 0;

	spin_lock_irqsave(&r->lock, flags);
	assert_spin_locked(&r->lock);
	lockdep_assert_held(&r->lock);
	if (r->head - r->tail < n)
		ret = -ENOSPC;
	else
		r->head += n;
	spin_unlock_irqrestore(&r->lock, flags);
	spin_lock_bh(&ring_list_lock);
	spin_unlock_bh(&ring_list_lock);
	spin_lock_irq(&r->lock);
	spin_unlock_irq(&r->lock);
	if (spin_trylock(&r->lock))
		spin_unlock(&r->lock);
	if (spin_trylock_irqsave(&r->lock, flags))
		spin_unlock_irqrestore(&r->lock, flags);
	raw_spin_lock_irqsave(&ring_hw_lock, flags);
	raw_spin_unlock_irqrestore(&ring_hw_lock, flags);
	raw_spin_lock(&r->hw_lock);
	raw_spin_unlock(&r->hw_lock);
	spin_lock(&ring_list_lock);
	spin_lock_nested(&r->lock, SINGLE_DEPTH_NESTING);
	spin_unlock(&r->lock);
	spin_unlock(&ring_list_lock);
	spin_lock_irqsave_nested(&r->lock, flags, 1);
	raw_spin_lock_nested(&r->hw_lock, SINGLE_DEPTH_NESTING);
	raw_spin_unlock(&r->hw_lock);
	spin_unlock_irqrestore(&r->lock, flags);
	raw_spin_lock_irqsave_nested(&r->hw_lock, flags, 2);
	raw_spin_unlock_irqrestore(&r->hw_lock, flags);
	local_irq_save(flags);
	if (irqs_disabled() && !in_atomic() && irqs_disabled_flags(flags))
		ret = -EBUSY;
	local_irq_restore(flags);
	return ret + (spin_is_locked(&r->lock) ? 1 : 0);
}
void ring_init(struct ring *r);
void ring_init(struct ring *r)
{
	static struct lock_class_key ring_key;

	spin_lock_init(&r->lock);
	raw_spin_lock_init(&r->hw_lock);
	lockdep_set_class(&r->lock, &ring_key);
	lockdep_set_class_and_name(&r->lock, &ring_key, "ring");
	lockdep_set_class_and_subclass(&r->lock, &ring_key, 1);
	lockdep_set_subclass(&r->hw_lock, 0);
	lockdep_set_novalidate_class(&r->hw_lock);
}
'''

CONFIG_MUTEX = '''
#include <linux/mutex.h>
struct cfg { struct mutex lock; int mode; };
static DEFINE_MUTEX(cfg_global);
int cfg_set(struct cfg *c, int mode);
int cfg_set(struct cfg *c, int mode)
{
	int ret = mutex_lock_interruptible(&c->lock);

	if (ret)
		return ret;
	lockdep_assert_held(&c->lock);
	c->mode = mode;
	mutex_unlock(&c->lock);
	if (!mutex_trylock(&cfg_global))
		return -EBUSY;
	mutex_unlock(&cfg_global);
	mutex_lock(&c->lock);
	mutex_unlock(&c->lock);
	lockdep_assert_not_held(&c->lock);
	mutex_lock(&cfg_global);
	mutex_lock_nested(&c->lock, SINGLE_DEPTH_NESTING);
	mutex_unlock(&c->lock);
	if (!mutex_lock_interruptible_nested(&c->lock, 1))
		mutex_unlock(&c->lock);
	if (!mutex_lock_killable_nested(&c->lock, 1))
		mutex_unlock(&c->lock);
	mutex_lock_io_nested(&c->lock, 1);
	mutex_unlock(&c->lock);
	mutex_unlock(&cfg_global);
	return mutex_is_locked(&c->lock);
}
void cfg_init(struct cfg *c);
void cfg_init(struct cfg *c)
{
	mutex_init(&c->lock);
}
void cfg_exit(struct cfg *c);
void cfg_exit(struct cfg *c)
{
	mutex_destroy(&c->lock);
}
'''

CMD_DONE = '''
#include <linux/completion.h>
struct cmd { struct completion done; void (*complete)(struct cmd *c); int status; };
static DECLARE_COMPLETION(probe_done);
int cmd_wait(struct cmd *c);
int cmd_wait(struct cmd *c)
{
	unsigned long left;

	reinit_completion(&c->done);
	if (c->complete)
		c->complete(c);
	left = wait_for_completion_timeout(&c->done, msecs_to_jiffies(100));
	if (!left)
		return -ETIMEDOUT;
	if (wait_for_completion_interruptible(&probe_done))
		return -EINTR;
	if (wait_for_completion_interruptible_timeout(&probe_done, HZ) <= 0)
		return -EIO;
	wait_for_completion(&c->done);
	return try_wait_for_completion(&c->done) + completion_done(&probe_done);
}
void cmd_irq(struct cmd *c);
void cmd_irq(struct cmd *c)
{
	complete(&c->done);
	complete_all(&probe_done);
}
void cmd_init(struct cmd *c);
void cmd_init(struct cmd *c)
{
	init_completion(&c->done);
}
'''

# A request queue as drivers keep one: struct list_head in a driver header
# that has only <linux/types.h>, the calls from <linux/list.h> alone.
REQ_QUEUE = '''
#include <linux/types.h>
struct req {
	u32 tag;
	struct list_head node;
	struct hlist_node hash;
};
struct queue {
	struct list_head pending, done;
	struct hlist_head by_tag[4];
};
#include <linux/list.h>
static LIST_HEAD(all_queues);
unsigned int queue_complete(struct queue *q, u32 tag);
unsigned int queue_complete(struct queue *q, u32 tag)
{
	struct req *r, *tmp, *first;
	struct list_head *pos, *n;
	struct hlist_node *hn;
	unsigned int count = 0;

	list_for_each_entry_safe(r, tmp, &q->pending, node) {
		if (r->tag == tag) {
			list_move_tail(&r->node, &q->done);
			hlist_del_init(&r->hash);
		}
	}
	list_for_each_entry_reverse(r, &q->done, node)
		count += r->tag;
	hlist_for_each_entry(r, &q->by_tag[tag % 4], hash)
		count++;
	hlist_for_each_entry_safe(r, hn, &q->by_tag[0], hash)
		hlist_del(&r->hash);
	list_for_each_safe(pos, n, &q->done)
		list_del(pos);
	first = list_first_entry_or_null(&q->pending, struct req, node);
	if (first && !list_is_last(&first->node, &q->pending))
		count += list_next_entry(first, node)->tag;
	list_splice_tail_init(&q->pending, &all_queues);
	return count + (unsigned int)list_count_nodes(&all_queues) + (list_empty(&q->done) ? 1u : 0u);
}
'''

# Counters as drivers keep them: atomic_t in a header with <linux/types.h>
# alone, the calls from <linux/atomic.h>.
COUNTERS = '''
#include <linux/types.h>
struct chan_stats {
	atomic_t inflight;
	atomic64_t bytes;
};
#include <linux/atomic.h>
static atomic_long_t seq = ATOMIC_LONG_INIT(0);
long chan_submit(struct chan_stats *s, u32 len, unsigned long *owner, unsigned long me);
long chan_submit(struct chan_stats *s, u32 len, unsigned long *owner, unsigned long me)
{
	int busy = 0;

	if (cmpxchg(owner, 0ul, me) != 0ul && !try_cmpxchg(owner, &me, me))
		return -EBUSY;
	if (!atomic_inc_not_zero(&s->inflight) && !atomic_try_cmpxchg(&s->inflight, &busy, 1))
		return -EAGAIN;
	atomic64_add(len, &s->bytes);
	smp_mb__after_atomic();
	if (atomic_dec_and_test(&s->inflight))
		(void)xchg(owner, 0ul);
	return atomic_long_inc_return(&seq) + atomic_fetch_add_unless(&s->inflight, 1, 0) +
	       (long)atomic64_read(&s->bytes);
}
'''

# An object shared by lookups and users: a kref, and a refcount_t whose last
# put takes the lock, from <linux/kref.h> and <linux/refcount.h> alone.
SHARED_OBJ = '''
#include <linux/kref.h>
#include <linux/spinlock.h>
#include <linux/mutex.h>
struct buf {
	struct kref ref;
	refcount_t users;
	int id;
};
static DEFINE_SPINLOCK(table_lock);
static DEFINE_MUTEX(table_mutex);
static void buf_release(struct kref *kref)
{
	struct buf *b = container_of(kref, struct buf, ref);

	b->id = -1;
}
static void buf_release_locked(struct kref *kref)
{
	buf_release(kref);
	mutex_unlock(&table_mutex);
}
int buf_use(struct buf *b);
int buf_use(struct buf *b)
{
	unsigned long flags;
	int ret = 0;

	kref_init(&b->ref);
	refcount_set(&b->users, 1);
	if (!kref_get_unless_zero(&b->ref))
		return -ENOENT;
	refcount_inc(&b->users);
	if (refcount_inc_not_zero(&b->users))
		refcount_dec(&b->users);
	if (refcount_dec_and_lock(&b->users, &table_lock))
		spin_unlock(&table_lock);
	if (refcount_dec_and_lock_irqsave(&b->users, &table_lock, &flags))
		spin_unlock_irqrestore(&table_lock, flags);
	if (refcount_dec_and_test(&b->users))
		ret = 1;
	ret += kref_put(&b->ref, buf_release);
	return ret + kref_put_mutex(&b->ref, buf_release_locked, &table_mutex) + (int)kref_read(&b->ref);
}
'''

# A module's boilerplate, from <linux/module.h> alone: parameters of each
# kind, a device table, exports, init and exit, the MODULE_*() strings.
MODULE_BOILERPLATE = '''
#include <linux/module.h>
static int debug = 1;
module_param(debug, int, 0644);
MODULE_PARM_DESC(debug, "debug level (0-3)");
static bool fast;
module_param_named(turbo, fast, bool, 0444);
static char name_buf[] = "rx";
static char *name = name_buf;
module_param(name, charp, 0);
static unsigned int chans[4];
static int nchans;
module_param_array(chans, uint, &nchans, 0444);
static unsigned long quirks[2];
module_param_array(quirks, ulong, NULL, 0444);
struct toy_id {
	const char *compatible;
};
static const struct toy_id toy_ids[] = { { "vendor,toy" }, { NULL } };
MODULE_DEVICE_TABLE(of, toy_ids);
int toy_helper(int x);
int toy_helper(int x)
{
	return x + debug;
}
EXPORT_SYMBOL_GPL(toy_helper);
EXPORT_SYMBOL_NS_GPL(toy_helper, "TOY");
static int __init toy_init(void)
{
	return try_module_get(THIS_MODULE) ? 0 : -ENODEV;
}
static void __exit toy_exit(void)
{
	module_put(THIS_MODULE);
}
module_init(toy_init);
module_exit(toy_exit);
MODULE_LICENSE("GPL");
MODULE_AUTHOR("A. Developer <a@example.com>");
MODULE_DESCRIPTION("toy " KBUILD_MODNAME " driver");
MODULE_VERSION("1.0");
MODULE_ALIAS("platform:toy");
MODULE_FIRMWARE("toy/fw.bin");
MODULE_IMPORT_NS(DMA_BUF);
'''

# A platform driver of Linux 6.x as it is written: probe with managed
# resources, a void .remove, an of_match_table and an id_table,
# module_platform_driver(). OLD_REMOVE: the int-returning .remove of kernels
# before 6.11 and the .remove_new of 6.3 to 6.10, in that layout.
PLATFORM_DRIVER = '''
#include <linux/module.h>
#include <linux/platform_device.h>
#include <linux/sizes.h>
#include <linux/dma-mapping.h>
#include <linux/list.h>
struct toy {
	struct device *dev;
	void *ring;
	dma_addr_t ring_dma;
	struct list_head pending;
};
static int toy_probe(struct platform_device *pdev)
{
	struct device *dev = &pdev->dev;
	const struct platform_device_id *id = platform_get_device_id(pdev);
	struct toy *t = devm_kzalloc(dev, sizeof(*t), GFP_KERNEL);
	int ret;

	if (!t)
		return -ENOMEM;
	ret = dma_set_mask_and_coherent(dev, DMA_BIT_MASK(32));
	if (ret)
		return dev_err_probe(dev, ret, "no DMA\\n");
	t->ring = dmam_alloc_coherent(dev, SZ_4K, &t->ring_dma, GFP_KERNEL);
	if (!t->ring)
		return -ENOMEM;
	t->dev = dev;
	INIT_LIST_HEAD(&t->pending);
	platform_set_drvdata(pdev, t);
	return id ? (int)id->driver_data - 1 : 0;
}
static void toy_remove(struct platform_device *pdev)
{
	struct toy *t = platform_get_drvdata(pdev);

	WARN_ON(!list_empty(&t->pending));
	WARN_ON(to_platform_device(t->dev) != pdev);
}
static const struct of_device_id toy_of_match[] = {
	{ .compatible = "vendor,toy" },
	{ }
};
MODULE_DEVICE_TABLE(of, toy_of_match);
static const struct platform_device_id toy_ids[] = {
	{ "toy", 1 },
	{ }
};
MODULE_DEVICE_TABLE(platform, toy_ids);
static struct platform_driver toy_driver = {
	.probe = toy_probe,
	.remove = toy_remove,
	.driver = {
		.name = "toy",
		.of_match_table = toy_of_match,
	},
	.id_table = toy_ids,
};
module_platform_driver(toy_driver);
MODULE_LICENSE("GPL");
'''

OLD_REMOVE = '''
#define DMAMAP_PLATFORM_REMOVE_RETURNS_INT 1
#include <linux/module.h>
#include <linux/platform_device.h>
static int old_probe(struct platform_device *pdev)
{
	return pdev->id;
}
static int old_remove(struct platform_device *pdev)
{
	platform_set_drvdata(pdev, NULL);
	return 0;
}
static void newer_remove(struct platform_device *pdev)
{
	platform_set_drvdata(pdev, NULL);
}
static struct platform_driver old_driver = {
	.probe = old_probe,
	.remove = old_remove,
	.driver = { .name = "old", .owner = THIS_MODULE },
};
static struct platform_driver newer_driver = {
	.probe = old_probe,
	.remove_new = newer_remove,
	.driver = { .name = "newer" },
};
module_platform_driver(old_driver);
builtin_platform_driver(newer_driver);
'''

# The same structures filled in by C++ code (C++ has C's designated
# initialisers only in order and in full): either remove layout.
PLATFORM_CXX = '''
#include <linux/platform_device.h>
static int cxx_probe(struct platform_device *pdev)
{
	return platform_get_drvdata(pdev) ? 0 : -ENODEV;
}
static REMOVE_T cxx_remove(struct platform_device *pdev)
{
	platform_set_drvdata(pdev, NULL);
	REMOVE_RET
}
int cxx_register(struct platform_driver *drv, struct platform_device *pdev);
int cxx_register(struct platform_driver *drv, struct platform_device *pdev)
{
	drv->probe = cxx_probe;
	drv->remove = cxx_remove;
	drv->driver.name = "cxx";
	return platform_driver_register(drv) + (to_platform_device(&pdev->dev) == pdev ? 0 : 1);
}
'''

SEED = '#include <dmamap/dmamap.h>\n'

# An interrupt handler as 6.x drivers write it, requested managed and not,
# with <linux/interrupt.h> and <linux/platform_device.h> alone.
IRQ_HANDLER = '''
#include <linux/interrupt.h>
#include <linux/platform_device.h>
struct chip { int hits; };
static irqreturn_t chip_irq(int irq, void *data)
{
	struct chip *c = (struct chip *)data;

	(void)irq;
	c->hits++;
	return IRQ_RETVAL(c->hits & 1);
}
static irqreturn_t chip_aux_irq(int irq, void *data)
{
	(void)irq;
	(void)data;
	return in_interrupt() && in_hardirq() && in_irq() && !in_task() ? IRQ_HANDLED : IRQ_NONE;
}
int chip_setup(struct platform_device *pdev, struct chip *c);
int chip_setup(struct platform_device *pdev, struct chip *c)
{
	irq_handler_t h = chip_aux_irq;
	const void *name;
	int ret;

	ret = devm_request_irq(&pdev->dev, 5, chip_irq, IRQF_SHARED | IRQF_TRIGGER_HIGH, "chip", c);
	if (ret)
		return ret;
	ret = request_irq(6, h, IRQF_NO_AUTOEN, "chip-aux", c);
	if (ret)
		return ret;
	enable_irq(6);
	disable_irq(6);
	enable_irq(6);
	disable_irq_nosync(6);
	enable_irq(6);
	synchronize_irq(6);
	name = free_irq(6, c);
	devm_free_irq(&pdev->dev, 5, c);
	return name ? 0 : -EINVAL;
}
'''

# A DMA engine's completion tasklet as drivers write it: set up at probe,
# scheduled from the hard handler, its state under spin_lock_bh() in task
# context, disabled around a reset, killed at remove; with
# <linux/interrupt.h> and <linux/spinlock.h> alone.
TASKLETS = '''
#include <linux/interrupt.h>
#include <linux/spinlock.h>
struct chan { spinlock_t lock; struct tasklet_struct done; unsigned long old_hits; int completed; };
static void chan_done(struct tasklet_struct *t)
{
	struct chan *c = from_tasklet(c, t, done);

	spin_lock(&c->lock);
	c->completed += in_serving_softirq() && in_softirq() && in_interrupt() && !in_hardirq();
	spin_unlock(&c->lock);
}
static void chan_old(unsigned long data)
{
	struct chan *c = (struct chan *)data;

	c->old_hits++;
}
static void global_done(struct tasklet_struct *t)
{
	(void)t;
}
DECLARE_TASKLET(global_tasklet, global_done);
DECLARE_TASKLET_DISABLED(parked_tasklet, global_done);
DECLARE_TASKLET_OLD(old_tasklet, chan_old);
static irqreturn_t chan_irq(int irq, void *data)
{
	struct chan *c = (struct chan *)data;

	(void)irq;
	tasklet_schedule(&c->done);
	tasklet_hi_schedule(&global_tasklet);
	return IRQ_HANDLED;
}
int chan_probe(struct chan *c, struct tasklet_struct *old);
int chan_probe(struct chan *c, struct tasklet_struct *old)
{
	int done;

	spin_lock_init(&c->lock);
	tasklet_setup(&c->done, chan_done);
	tasklet_init(old, chan_old, (unsigned long)c);
	spin_lock_bh(&c->lock);
	done = c->completed;
	spin_unlock_bh(&c->lock);
	local_bh_disable();
	tasklet_schedule(old);
	local_bh_enable();
	tasklet_disable(&c->done);
	tasklet_disable_nosync(&c->done);
	tasklet_disable_in_atomic(&c->done);
	tasklet_enable(&c->done);
	tasklet_enable(&c->done);
	tasklet_enable(&c->done);
	tasklet_unlock_wait(&c->done);
	tasklet_unlock_spin_wait(&c->done);
	if (tasklet_trylock(&c->done))
		tasklet_unlock(&c->done);
	tasklet_enable(&parked_tasklet);
	tasklet_kill(&c->done);
	tasklet_kill(&old_tasklet);
	return done + (chan_irq(1, c) == IRQ_HANDLED ? 0 : 1) + (test_bit(TASKLET_STATE_SCHED, &c->done.state) ? 1 : 0);
}
'''

# A threaded interrupt handler as drivers of devices behind slow buses write
# it, a mutex in the thread function, with <linux/interrupt.h>,
# <linux/mutex.h> and <linux/platform_device.h>.
THREADED_IRQ = '''
#include <linux/interrupt.h>
#include <linux/mutex.h>
#include <linux/platform_device.h>
struct sensor { struct mutex lock; int samples; };
static irqreturn_t sensor_hardirq(int irq, void *data)
{
	(void)irq;
	(void)data;
	return in_hardirq() ? IRQ_WAKE_THREAD : IRQ_NONE;
}
static irqreturn_t sensor_thread(int irq, void *data)
{
	struct sensor *s = (struct sensor *)data;

	(void)irq;
	mutex_lock(&s->lock);
	s->samples++;
	mutex_unlock(&s->lock);
	return IRQ_HANDLED;
}
int sensor_setup(struct platform_device *pdev, struct sensor *s);
int sensor_setup(struct platform_device *pdev, struct sensor *s)
{
	irq_handler_t t = sensor_thread;
	int irq = platform_get_irq(pdev, 0), ret;

	if (irq < 0)
		return irq;
	ret = devm_request_threaded_irq(&pdev->dev, irq, NULL, sensor_thread, IRQF_ONESHOT | IRQF_TRIGGER_LOW,
					dev_name(&pdev->dev), s);
	if (ret)
		return ret;
	ret = request_threaded_irq(7, sensor_hardirq, t, IRQF_SHARED | IRQF_COND_ONESHOT, "sensor-aux", s);
	if (ret)
		return ret;
	synchronize_irq(7);
	free_irq(7, s);
	ret = request_any_context_irq(8, sensor_hardirq, 0, "sensor-any", s);
	if (ret < 0)
		return ret;
	if (ret != IRQC_IS_HARDIRQ && ret != IRQC_IS_NESTED)
		return -EINVAL;
	free_irq(8, s);
	ret = devm_request_any_context_irq(&pdev->dev, 9, sensor_hardirq, 0, NULL, s);
	return ret < 0 ? ret : 0;
}
'''

# A board's resources and a probe that finds them, with <linux/platform_device.h> alone.
BOARD_RES = '''
#include <linux/platform_device.h>
static const struct resource board_res[] = {
	DEFINE_RES_MEM(0x10000000, 0x1000),
	DEFINE_RES_MEM_NAMED(0x10002000, 0x100, "dma"),
	DEFINE_RES_IRQ(17),
	DEFINE_RES_IRQ_NAMED(18, "err"),
};
struct platform_device *board_device(struct dmamap_machine *m);
struct platform_device *board_device(struct dmamap_machine *m)
{
	return dmamap_platform_device_create_res(m, "board", 0, board_res, sizeof(board_res) / sizeof(board_res[0]));
}
int board_probe(struct platform_device *pdev);
int board_probe(struct platform_device *pdev)
{
	struct resource *mem = platform_get_resource(pdev, IORESOURCE_MEM, 0);
	struct resource *dma = platform_get_resource_byname(pdev, IORESOURCE_MEM, "dma");
	struct resource one = DEFINE_RES_IRQ(3);
	int irq = platform_get_irq(pdev, 0), err = platform_get_irq_optional(pdev, 1);

	if (!mem || !dma || resource_size(mem) != 0x1000 || resource_type(&one) != IORESOURCE_IRQ)
		return -ENODEV;
	if (irq < 0)
		return irq;
	return err < 0 ? err : platform_irq_count(pdev);
}
'''

# A driver's runtime PM, as 6.x drivers write it, with <linux/pm_runtime.h> alone: its ops, the
# get/put around an access, autosuspend, both forms of pm_runtime_get_if_active().
PM_RUNTIME = '''
#include <linux/pm_runtime.h>
static int foo_runtime_suspend(struct device *dev)
{
	(void)dev;
	return 0;
}
static int foo_runtime_resume(struct device *dev)
{
	(void)dev;
	return 0;
}
static DEFINE_RUNTIME_DEV_PM_OPS(foo_pm_ops, foo_runtime_suspend, foo_runtime_resume, NULL);
const struct dev_pm_ops *foo_ops(void);
const struct dev_pm_ops *foo_ops(void)
{
	return pm_ptr(&foo_pm_ops);
}
int foo_xfer(struct device *dev);
int foo_xfer(struct device *dev)
{
	int ret = pm_runtime_resume_and_get(dev);

	if (ret < 0)
		return ret;
	if (pm_runtime_get_if_active(dev) > 0)
		pm_runtime_put_noidle(dev);
	if (pm_runtime_get_if_active(dev, true) > 0)
		pm_runtime_put_noidle(dev);
	if (pm_runtime_get_if_in_use(dev) > 0)
		(void)pm_runtime_put(dev);
	pm_runtime_mark_last_busy(dev);
	return pm_runtime_put_autosuspend(dev);
}
int foo_probe(struct device *dev);
int foo_probe(struct device *dev)
{
	int ret;

	pm_runtime_set_autosuspend_delay(dev, 50);
	pm_runtime_use_autosuspend(dev);
	pm_runtime_set_active(dev);
	ret = devm_pm_runtime_enable(dev);
	if (ret)
		return ret;
	ret = pm_runtime_get_sync(dev);
	if (ret < 0) {
		pm_runtime_put_noidle(dev);
		return ret;
	}
	(void)pm_runtime_put_sync_autosuspend(dev);
	return pm_runtime_enabled(dev) && !pm_runtime_suspended(dev) && pm_runtime_active(dev) &&
	       !pm_runtime_status_suspended(dev) && !pm_runtime_is_irq_safe(dev);
}
void foo_remove(struct device *dev);
void foo_remove(struct device *dev)
{
	(void)pm_runtime_get_sync(dev);
	pm_runtime_dont_use_autosuspend(dev);
	pm_runtime_disable(dev);
	pm_runtime_put_noidle(dev);
	pm_runtime_forbid(dev);
	pm_runtime_allow(dev);
	pm_runtime_no_callbacks(dev);
	pm_runtime_irq_safe(dev);
	pm_runtime_get_noresume(dev);
	(void)pm_runtime_get(dev);
	(void)pm_runtime_put_sync(dev);
	(void)pm_runtime_put_sync_suspend(dev);
	(void)__pm_runtime_put_autosuspend(dev);
	(void)pm_runtime_idle(dev);
	(void)pm_runtime_suspend(dev);
	(void)pm_runtime_autosuspend(dev);
	(void)pm_runtime_resume(dev);
	(void)pm_request_idle(dev);
	(void)pm_request_resume(dev);
	(void)pm_request_autosuspend(dev);
	(void)__pm_runtime_idle(dev, RPM_GET_PUT | RPM_ASYNC);
	(void)__pm_runtime_resume(dev, RPM_GET_PUT);
	(void)__pm_runtime_suspend(dev, RPM_AUTO);
	pm_runtime_enable(dev);
	(void)pm_runtime_set_suspended(dev);
	(void)pm_runtime_autosuspend_expiration(dev);
}
'''

# System sleep callbacks with <linux/pm.h> alone, the 6.x way and the older ones.
PM_SLEEP = '''
#include <linux/pm.h>
static int bar_suspend(struct device *dev)
{
	(void)dev;
	return 0;
}
static int bar_resume(struct device *dev)
{
	(void)dev;
	return 0;
}
static DEFINE_SIMPLE_DEV_PM_OPS(bar_pm_ops, bar_suspend, bar_resume);
static SIMPLE_DEV_PM_OPS(bar_old_pm_ops, bar_suspend, bar_resume);
static UNIVERSAL_DEV_PM_OPS(bar_universal_pm_ops, bar_suspend, bar_resume, NULL);
const struct dev_pm_ops *bar_ops(int which);
const struct dev_pm_ops *bar_ops(int which)
{
	if (which == 1)
		return &bar_old_pm_ops;
	return which ? &bar_universal_pm_ops : pm_sleep_ptr(&bar_pm_ops);
}
'''

# Ops a C driver fills itself, with the initialisers of every kind (in C++,
# designated initializers that leave fields out draw -Wextra's warning).
PM_OPS_C = '''
static const struct dev_pm_ops bar_late_pm_ops = {
	LATE_SYSTEM_SLEEP_PM_OPS(bar_suspend, bar_resume)
	NOIRQ_SYSTEM_SLEEP_PM_OPS(bar_suspend, bar_resume)
	RUNTIME_PM_OPS(bar_suspend, bar_resume, NULL)
};
static const struct dev_pm_ops bar_set_pm_ops = {
	SET_SYSTEM_SLEEP_PM_OPS(pm_runtime_force_suspend, pm_runtime_force_resume)
	SET_LATE_SYSTEM_SLEEP_PM_OPS(bar_suspend, bar_resume)
	SET_NOIRQ_SYSTEM_SLEEP_PM_OPS(bar_suspend, bar_resume)
	SET_RUNTIME_PM_OPS(bar_suspend, bar_resume, NULL)
};
const struct dev_pm_ops *bar_more_ops(int which);
const struct dev_pm_ops *bar_more_ops(int which)
{
	return which ? &bar_late_pm_ops : &bar_set_pm_ops;
}
'''

# A platform driver pointing its .pm at its ops, as drivers do.
PM_PLATFORM = '''
#include <linux/module.h>
#include <linux/platform_device.h>
#include <linux/pm_runtime.h>
static int baz_runtime_suspend(struct device *dev)
{
	(void)dev;
	return 0;
}
static int baz_runtime_resume(struct device *dev)
{
	(void)dev;
	return 0;
}
static DEFINE_RUNTIME_DEV_PM_OPS(baz_pm_ops, baz_runtime_suspend, baz_runtime_resume, NULL);
static int baz_probe(struct platform_device *pdev)
{
	pm_runtime_set_active(&pdev->dev);
	return devm_pm_runtime_enable(&pdev->dev);
}
static struct platform_driver baz_driver = {
	.probe = baz_probe,
	.driver = {
		.name = "baz",
		.pm = pm_ptr(&baz_pm_ops),
	},
};
module_platform_driver(baz_driver);
'''

# A device-tree probe that reads its node, with <linux/of.h> alone.
OF_READ = '''
#include <linux/of.h>
int acme_read(struct device *dev);
int acme_read(struct device *dev)
{
	struct device_node *np = of_node_get(dev->of_node);
	u32 chans, reg[2];
	u64 window;
	const char *label;
	int ret;

	if (of_property_read_u32(np, "dma-channels", &chans) || of_property_read_u32_array(np, "reg", reg, 2))
		return -EINVAL;
	if (of_property_read_u64(np, "dma-window", &window) || of_property_read_string(np, "label", &label))
		return -EINVAL;
	ret = of_property_read_bool(np, "dma-coherent") + of_device_is_compatible(np, "acme,dma") +
	      of_property_count_u32_elems(np, "reg") + of_property_match_string(np, "dma-names", "rx");
	of_node_put(np);
	return ret;
}
'''

# The firmware-agnostic readers a 6.x driver uses, with <linux/property.h> alone.
PROPERTY_READ = '''
#include <linux/property.h>
int acme_props(struct device *dev);
int acme_props(struct device *dev)
{
	const void *data = device_get_match_data(dev);
	const char *names[4];
	u32 chans;

	if (!data || device_property_read_u32(dev, "dma-channels", &chans))
		return -ENODEV;
	if (device_property_read_string_array(dev, "dma-names", names, 4) < 0)
		return -EINVAL;
	return device_property_count_u32(dev, "reg") + device_property_match_string(dev, "dma-names", "rx") +
	       device_property_read_bool(dev, "dma-coherent") + fwnode_property_present(dev_fwnode(dev), "reg");
}
'''

# A multi-channel probe that walks its children and follows its phandles, with <linux/of.h> alone.
OF_TREE = '''
#include <linux/of.h>
int acme_channels(struct device *dev);
int acme_channels(struct device *dev)
{
	struct device_node *np = dev->of_node, *child, *phy, *parent;
	struct of_phandle_args args;
	int n = 0;

	for_each_available_child_of_node(np, child) {
		u32 reg;

		if (of_property_read_u32(child, "reg", &reg)) {
			of_node_put(child);
			return -EINVAL;
		}
		n++;
	}
	for_each_child_of_node(np, child)
		n += of_device_is_available(child);
	child = of_get_child_by_name(np, "port");
	parent = of_get_parent(child);
	of_node_put(parent);
	of_node_put(child);
	if (of_parse_phandle_with_args(np, "dmas", "#dma-cells", 0, &args) == 0)
		of_node_put(args.np);
	if (of_parse_phandle_with_fixed_args(np, "clocks", 1, 0, &args) == 0)
		of_node_put(args.np);
	phy = of_parse_phandle(np, "phys", 0);
	of_node_put(of_find_node_by_phandle(phy ? phy->phandle : 0));
	of_node_put(phy);
	return n + of_get_child_count(np) + of_get_available_child_count(np) +
	       of_count_phandle_with_args(np, "dmas", "#dma-cells");
}
'''

# The children of a device through the firmware-agnostic calls, with <linux/property.h> alone.
FWNODE_CHILDREN = '''
#include <linux/property.h>
int acme_ports(struct device *dev);
int acme_ports(struct device *dev)
{
	struct fwnode_handle *child;
	unsigned int n = device_get_child_node_count(dev);

	device_for_each_child_node(dev, child) {
		if (!fwnode_property_present(child, "reg")) {
			fwnode_handle_put(child);
			return -EINVAL;
		}
	}
	fwnode_for_each_child_node(dev_fwnode(dev), child)
		n++;
	child = fwnode_handle_get(device_get_next_child_node(dev, NULL));
	fwnode_handle_put(child);
	fwnode_handle_put(child);
	return (int)n;
}
'''

# A driver's reserved memory, with <linux/of_reserved_mem.h> alone.
RESERVED_MEM = '''
#include <linux/of_reserved_mem.h>
int acme_rmem(struct device *dev);
int acme_rmem(struct device *dev)
{
	int ret = of_reserved_mem_device_init(dev);

	if (ret)
		return ret;
	ret = of_reserved_mem_device_init_by_idx(dev, dev->of_node, 1);
	of_reserved_mem_device_release(dev);
	return ret;
}
'''

# A board's nodes referring to each other, with <linux/of.h> and <linux/property.h>.
BOARD_REFS = '''
#include <linux/of.h>
#include <linux/property.h>
int acme_board_refs(struct dmamap_machine *m, struct device *dev);
int acme_board_refs(struct dmamap_machine *m, struct device *dev)
{
	static const struct property_entry cells[] = { PROPERTY_ENTRY_U32("#dma-cells", 1), { } };
	struct device_node *dmac = dmamap_of_node_create(m, "dma-controller@0", cells);
	const struct software_node_ref_args dmas[] = { SOFTWARE_NODE_REFERENCE(dmac, 1), SOFTWARE_NODE_REFERENCE(dmac, 2) };
	const struct property_entry props[] = {
		PROPERTY_ENTRY_REF_ARRAY("dmas", dmas),
		PROPERTY_ENTRY_REF("phys", dmac),
		{ }
	};
	int ret;

	if (IS_ERR(dmac))
		return (int)PTR_ERR(dmac);
	ret = dmamap_device_set_of_node(dev, "acme@0", props);
	if (!ret && IS_ERR(dmamap_of_node_add_child(dev->of_node, "port@0", NULL)))
		ret = -EINVAL;
	return ret ? ret : dmamap_of_node_destroy(dmac);
}
'''

# A board's device-tree node and a driver's match table, with <linux/of_platform.h> and <linux/property.h>.
BOARD_OF = '''
#include <linux/of_platform.h>
#include <linux/property.h>
static const char *const acme_compat[] = { "acme,dma-v2", "acme,dma" };
static const u32 acme_reg[] = { 0x10000000, 0x1000 };
static const struct property_entry acme_props[] = {
	PROPERTY_ENTRY_STRING_ARRAY("compatible", acme_compat),
	PROPERTY_ENTRY_U32_ARRAY("reg", acme_reg),
	PROPERTY_ENTRY_U32("dma-channels", 8),
	PROPERTY_ENTRY_U64("dma-window", 0x180000000ULL),
	PROPERTY_ENTRY_U16("u16", 2),
	PROPERTY_ENTRY_U8("u8", 1),
	PROPERTY_ENTRY_STRING("label", "engine0"),
	PROPERTY_ENTRY_BOOL("dma-coherent"),
	{ }
};
static const int acme_v2 = 2;
static const struct of_device_id acme_of_match[] = {
	{ .compatible = "acme,dma-v2", .data = &acme_v2 },
	{ }
};
int acme_board(struct platform_device *pdev);
int acme_board(struct platform_device *pdev)
{
	struct property_entry one = PROPERTY_ENTRY_U32("x", 1);
	const int *v2 = of_device_get_match_data(&pdev->dev);

	if (!of_match_device(of_match_ptr(acme_of_match), &pdev->dev) || !v2 || one.length != 4)
		return -ENODEV;
	return dmamap_device_set_of_node(&pdev->dev, "dma-controller@10000000", acme_props);
}
'''

# A probe that loads its firmware into a DMA buffer, and one that loads it in
# the background, with <linux/firmware.h> (and <linux/module.h> for THIS_MODULE).
FIRMWARE = '''
#include <linux/firmware.h>
#include <linux/module.h>
struct acme_fw { const u8 *code; size_t size; int err; };
int acme_load(struct device *dev, u8 *buf, size_t len, size_t *got);
int acme_load(struct device *dev, u8 *buf, size_t len, size_t *got)
{
	const struct firmware *fw;
	int ret = request_firmware(&fw, "acme/dsp-v2.bin", dev);

	if (ret)
		ret = firmware_request_nowarn(&fw, "acme/dsp.bin", dev);
	if (ret)
		return ret;
	if (fw->size > len) {
		release_firmware(fw);
		return -EFBIG;
	}
	for (size_t i = 0; i < fw->size; i++)
		buf[i] = fw->data[i];
	*got = fw->size;
	release_firmware(fw);
	ret = request_firmware_into_buf(&fw, "acme/table.bin", dev, buf, len);
	if (!ret)
		release_firmware(fw);
	return firmware_request_cache(dev, "acme/dsp-v2.bin");
}
static void acme_fw_ready(const struct firmware *fw, void *context)
{
	struct acme_fw *a = (struct acme_fw *)context;

	a->err = fw ? 0 : -ENOENT;
	a->size = fw ? fw->size : 0;
	release_firmware(fw);
}
int acme_load_later(struct device *dev, struct acme_fw *a);
int acme_load_later(struct device *dev, struct acme_fw *a)
{
	return request_firmware_nowait(THIS_MODULE, FW_ACTION_UEVENT, "acme/dsp-v2.bin", dev, GFP_KERNEL, a,
				       acme_fw_ready);
}
'''

# A probe that turns its clocks on, and a remove that turns them off, with <linux/clk.h> alone.
CLOCKS = '''
#include <linux/clk.h>
struct acme_clocks {
	struct clk *bus, *core;
	struct clk_bulk_data *all;
	int n;
};
int acme_clocks_on(struct device *dev, struct acme_clocks *c);
int acme_clocks_on(struct device *dev, struct acme_clocks *c)
{
	int ret;

	c->bus = devm_clk_get_enabled(dev, "bus");
	if (IS_ERR(c->bus))
		return PTR_ERR(c->bus);
	c->core = clk_get(dev, "core");
	if (IS_ERR(c->core))
		return PTR_ERR(c->core);
	ret = clk_set_rate(c->core, clk_round_rate(c->core, 400000000));
	if (!ret)
		ret = clk_prepare_enable(c->core);
	if (ret) {
		clk_put(c->core);
		return ret;
	}
	c->n = devm_clk_bulk_get_all(dev, &c->all);
	if (c->n < 0)
		return c->n;
	return clk_bulk_prepare_enable(c->n, c->all);
}
void acme_clocks_off(struct acme_clocks *c);
void acme_clocks_off(struct acme_clocks *c)
{
	void (*off)(struct clk *) = clk_disable_unprepare;

	clk_bulk_disable_unprepare(c->n, c->all);
	clk_disable(c->core);
	clk_unprepare(c->core);
	off(NULL);
	clk_put(c->core);
	(void)clk_get_rate(c->bus);
}
'''

# A command that waits for its interrupt on a wait queue, with <linux/wait.h> alone.
WAIT_QUEUE = '''
#include <linux/wait.h>
struct acme_cmd {
	wait_queue_head_t wq;
	int done;
};
static DECLARE_WAIT_QUEUE_HEAD(acme_global_wq);
long acme_wait(struct acme_cmd *c);
long acme_wait(struct acme_cmd *c)
{
	long left;

	init_waitqueue_head(&c->wq);
	left = wait_event_timeout(c->wq, READ_ONCE(c->done), msecs_to_jiffies(100));
	if (!left)
		return -ETIMEDOUT;
	if (wait_event_interruptible(c->wq, c->done))
		return -ERESTARTSYS;
	wait_event(acme_global_wq, c->done != 0);
	return wait_event_interruptible_timeout(c->wq, c->done, HZ) + waitqueue_active(&c->wq);
}
void acme_irq_done(struct acme_cmd *c);
void acme_irq_done(struct acme_cmd *c)
{
	WRITE_ONCE(c->done, 1);
	wake_up(&c->wq);
	wake_up_all(&acme_global_wq);
	wake_up_interruptible(&c->wq);
}
'''

# A driver's deferred work: its own queue, a delayed poll and the system queue, with <linux/workqueue.h> alone.
DEFERRED = '''
#include <linux/workqueue.h>
struct acme {
	struct workqueue_struct *wq;
	struct work_struct reset_work;
	struct delayed_work poll;
	int polls;
};
static void acme_reset(struct work_struct *work)
{
	struct acme *a = container_of(work, struct acme, reset_work);

	a->polls = 0;
}
static void acme_poll(struct work_struct *work)
{
	struct acme *a = container_of(to_delayed_work(work), struct acme, poll);

	if (++a->polls < 10)
		queue_delayed_work(a->wq, &a->poll, msecs_to_jiffies(10));
}
static DECLARE_WORK(acme_global, acme_reset);
int acme_start(struct acme *a);
int acme_start(struct acme *a)
{
	a->wq = alloc_workqueue("acme%d", WQ_UNBOUND | WQ_MEM_RECLAIM, 1, 0);
	if (!a->wq)
		return -ENOMEM;
	INIT_WORK(&a->reset_work, acme_reset);
	INIT_DELAYED_WORK(&a->poll, acme_poll);
	queue_work(a->wq, &a->reset_work);
	mod_delayed_work(a->wq, &a->poll, 0);
	schedule_work(&acme_global);
	return work_pending(&a->reset_work) + delayed_work_pending(&a->poll);
}
void acme_stop(struct acme *a);
void acme_stop(struct acme *a)
{
	cancel_delayed_work_sync(&a->poll);
	cancel_work_sync(&a->reset_work);
	flush_work(&acme_global);
	flush_workqueue(a->wq);
	destroy_workqueue(a->wq);
	flush_workqueue(system_wq);
}
'''

# A driver's BH work, the tasklet's successor of Linux 6.9: its own WQ_BH
# queue and the system BH queues, with <linux/workqueue.h> and
# <linux/interrupt.h>, queued from the hard handler.
BH_WORK = '''
#include <linux/interrupt.h>
#include <linux/workqueue.h>
struct acme_bh { struct workqueue_struct *wq; struct work_struct done, urgent; int completed; };
static void acme_bh_done(struct work_struct *work)
{
	struct acme_bh *a = container_of(work, struct acme_bh, done);

	a->completed += in_serving_softirq();
}
static irqreturn_t acme_bh_irq(int irq, void *data)
{
	struct acme_bh *a = (struct acme_bh *)data;

	(void)irq;
	queue_work(a->wq, &a->done);
	queue_work(system_bh_highpri_wq, &a->urgent);
	return IRQ_HANDLED;
}
int acme_bh_start(struct acme_bh *a);
int acme_bh_start(struct acme_bh *a)
{
	a->wq = alloc_workqueue("acme_bh%d", WQ_BH | WQ_HIGHPRI, 0, 1);
	if (!a->wq)
		return -ENOMEM;
	INIT_WORK(&a->done, acme_bh_done);
	INIT_WORK(&a->urgent, acme_bh_done);
	queue_work(system_bh_wq, &a->done);
	return acme_bh_irq(0, a) == IRQ_HANDLED ? 0 : -EIO;
}
void acme_bh_stop(struct acme_bh *a);
void acme_bh_stop(struct acme_bh *a)
{
	cancel_work_sync(&a->urgent);
	flush_work(&a->done);
	flush_workqueue(a->wq);
	destroy_workqueue(a->wq);
}
'''

# Work items a driver's unbind cancels, with <linux/devm-helpers.h> alone.
AUTOCANCEL = '''
#include <linux/devm-helpers.h>
struct acme_mon {
	struct work_struct irq_work;
	struct delayed_work poll;
};
static void acme_irq_work(struct work_struct *work)
{
	(void)container_of(work, struct acme_mon, irq_work);
}
static void acme_poll(struct work_struct *work)
{
	(void)container_of(to_delayed_work(work), struct acme_mon, poll);
}
int acme_mon_probe(struct device *dev, struct acme_mon *m);
int acme_mon_probe(struct device *dev, struct acme_mon *m)
{
	int ret = devm_work_autocancel(dev, &m->irq_work, acme_irq_work);

	if (ret)
		return ret;
	ret = devm_delayed_work_autocancel(dev, &m->poll, acme_poll);
	if (ret)
		return dev_err_probe(dev, ret, "no poll\\n");
	return schedule_delayed_work(&m->poll, HZ) ? 0 : -EBUSY;
}
'''

# A firmware image in vmalloc memory handed to a device page by page, and a
# vmap() of a driver's pages, with <linux/vmalloc.h> and <linux/dma-mapping.h>.
VMALLOC_FW = '''
#include <linux/dma-mapping.h>
#include <linux/vmalloc.h>
struct acme_fw {
	u8 *image;
	size_t size;
	dma_addr_t bus[16];
	void *window;
};
int acme_fw_load(struct device *dev, struct acme_fw *fw, size_t size);
int acme_fw_load(struct device *dev, struct acme_fw *fw, size_t size)
{
	size_t off;
	unsigned int i = 0;

	fw->image = (u8 *)vzalloc(size);
	if (!fw->image || !is_vmalloc_addr(fw->image))
		return -ENOMEM;
	fw->size = size;
	flush_kernel_vmap_range(fw->image, (int)size);
	for (off = 0; off < size && i < ARRAY_SIZE(fw->bus); off += PAGE_SIZE, i++) {
		fw->bus[i] = dma_map_page(dev, vmalloc_to_page(fw->image + off), 0, PAGE_SIZE, DMA_TO_DEVICE);
		if (dma_mapping_error(dev, fw->bus[i]))
			return -ENOMEM;
	}
	return vmalloc_to_pfn(fw->image) ? 0 : -EINVAL;
}
void acme_fw_unload(struct acme_fw *fw);
void acme_fw_unload(struct acme_fw *fw)
{
	invalidate_kernel_vmap_range(fw->image, (int)fw->size);
	vfree(fw->image);
	vfree_atomic(vmalloc_array(4, 8));
	kvfree(kvmalloc(fw->size, GFP_KERNEL));
	(vfree)(vcalloc(2, 2));
}
void *acme_window(struct page **pages, unsigned int n);
void *acme_window(struct page **pages, unsigned int n)
{
	void *w = vmap(pages, n, VM_MAP, pgprot_writecombine(PAGE_KERNEL));

	if (w)
		vunmap(w);
	return vmap(pages, n, VM_MAP, PAGE_KERNEL);
}
'''

# A probe that takes its device out of reset, and a remove that puts it back, with <linux/reset.h> alone.
RESETS = '''
#include <linux/reset.h>
struct acme_resets {
	struct reset_control *core, *bus, *phy, *all, *turn;
};
int acme_resets_on(struct device *dev, struct acme_resets *r);
int acme_resets_on(struct device *dev, struct acme_resets *r)
{
	int ret;

	r->core = devm_reset_control_get_exclusive(dev, "core");
	if (IS_ERR(r->core))
		return PTR_ERR(r->core);
	r->bus = reset_control_get_shared(dev, "bus");
	if (IS_ERR(r->bus))
		return PTR_ERR(r->bus);
	r->phy = devm_reset_control_get_optional_shared_deasserted(dev, "phy");
	if (IS_ERR(r->phy))
		return PTR_ERR(r->phy);
	r->all = devm_reset_control_array_get_optional_exclusive(dev);
	if (IS_ERR(r->all))
		return PTR_ERR(r->all);
	r->turn = reset_control_get_optional_exclusive_released(dev, "turn");
	if (IS_ERR(r->turn))
		return PTR_ERR(r->turn);
	(void)devm_reset_control_get_exclusive_deasserted(dev, NULL);
	(void)devm_reset_control_get_shared_by_index(dev, 1);
	ret = reset_control_deassert(r->bus);
	if (!ret && reset_control_status(r->core) > 0)
		ret = reset_control_reset(r->core);
	if (!ret && !reset_control_acquire(r->turn)) {
		ret = reset_control_deassert(r->turn);
		reset_control_release(r->turn);
	}
	if (ret) {
		reset_control_put(r->bus);
		return ret;
	}
	return device_reset_optional(dev);
}
void acme_resets_off(struct acme_resets *r);
void acme_resets_off(struct acme_resets *r)
{
	int (*off)(struct reset_control *) = reset_control_assert;
	void (*put)(struct reset_control *) = reset_control_put;

	reset_control_assert(r->bus);
	(void)reset_control_rearm(r->core);
	(void)off(r->core);
	put(r->bus);
	reset_control_put(r->turn);
}
'''

# A probe that maps its register windows as 6.x drivers do, with
# <linux/platform_device.h> and <linux/io.h>: by index with the resource, by
# name, by index, a range managed and unmapped, a resource of its own; and
# the board's platform data, given and read.
REG_WINDOWS = '''
#include <linux/io.h>
#include <linux/platform_device.h>
struct chip_pdata { u32 clock_hz; };
struct chip {
	void __iomem *base;
	void __iomem *fifo;
	void __iomem *aux;
	void __iomem *sram;
	struct resource *res;
	u32 clock_hz;
};
int chip_probe(struct platform_device *pdev, struct chip *c);
int chip_probe(struct platform_device *pdev, struct chip *c)
{
	const struct chip_pdata *pd = (const struct chip_pdata *)dev_get_platdata(&pdev->dev);
	struct resource *r;

	c->base = devm_platform_get_and_ioremap_resource(pdev, 0, &c->res);
	if (IS_ERR(c->base))
		return PTR_ERR(c->base);
	c->fifo = devm_platform_ioremap_resource_byname(pdev, "fifo");
	if (IS_ERR(c->fifo))
		return PTR_ERR(c->fifo);
	c->aux = devm_platform_ioremap_resource(pdev, 2);
	if (IS_ERR(c->aux))
		return PTR_ERR(c->aux);
	r = platform_get_resource(pdev, IORESOURCE_MEM, 3);
	c->sram = r ? devm_ioremap_wc(&pdev->dev, r->start, resource_size(r)) : NULL;
	if (!c->sram)
		return -ENOMEM;
	devm_iounmap(&pdev->dev, c->sram);
	c->sram = r ? devm_ioremap_resource(&pdev->dev, r) : IOMEM_ERR_PTR(-EINVAL);
	if (IS_ERR(c->sram))
		return PTR_ERR(c->sram);
	c->clock_hz = pd ? pd->clock_hz : 0;
	writel(readl(c->base) | 1, c->base);
	return 0;
}
int board_chip(struct platform_device *pdev);
int board_chip(struct platform_device *pdev)
{
	static const struct chip_pdata pd = { 100000000 };
	int ret = platform_device_add_data(pdev, &pd, sizeof(pd));

	return ret ? ret : pdev->dev.platform_data ? 0 : -EINVAL;
}
'''

# ioremap() and its forms with <linux/io.h> alone.
MAP_ALONE = '''
#include <linux/io.h>
u32 peek(phys_addr_t phys);
u32 peek(phys_addr_t phys)
{
	void __iomem *p = ioremap(phys, 4);
	void __iomem *wc = ioremap_wc(phys, 4);
	void __iomem *np = ioremap_np(phys, 4);
	u32 v;

	if (!p)
		return 0;
	v = readl(p);
	iounmap(p);
	iounmap(wc);
	iounmap(np);
	return v;
}
'''

CASES = [
    # (name, source, must compile, words the error must contain)
    ('kernel headers after libc headers', LIBC + KERNEL + DRIVER, True, None),
    ('kernel headers before libc headers', KERNEL + LIBC + DRIVER, True, None),
    # a scenario driver's source, as a driver file that also includes libc headers
    ('the SD host driver after libc headers', LIBC + '#include "toy-sdhost.c"\n', True, None),
    ('min() and friends: constants, nesting, the _t forms', KERNEL + MINMAX, True, None),
    ('WARN_ON(), WARN(), BUG_ON(), BUG() and the _ONCE forms', KERNEL + BUGS, True, None),
    ('the kernel basics beside the DMA API', KERNEL + NAMES + NAMES_C, True, None),
    ('dev_printk(), the _once and _ratelimited forms, get_device()', KERNEL + DEV_LOG, True, None),
    ('devm_kmemdup(), devm_kstrdup(), kstrdup(), krealloc_array(), devm_krealloc(), kmemdup_array()...',
     KERNEL + COPIES, True, None),
    ('a register block with FIELD_PREP(), FIELD_GET() and readl()/writel()', KERNEL + REGS, True, None),
    ('an sg transmit path: sg_miter_*(), sg_pcopy_*(), sg_zero_buffer()', KERNEL + SG_TX, True, None),
    ('a driver header with <linux/types.h> alone', HW_HEADER, True, None),
    ('a bounce list: sgl_alloc_order(), sgl_free_n_order() from <linux/scatterlist.h>', SGL_BOUNCE, True, None),
    ('a status line with scnprintf() from <linux/sprintf.h> alone', '#include <linux/sprintf.h>\n' + STATUS, True,
     None),
    ('kmemdup_nul() from <linux/string.h> alone', NAME_FIELD, True, None),
    ('a command ring with dma_alloc_pages(), dma_free_pages()', '#include <linux/sizes.h>\n' + PAGES_RING, True,
     None),
    ('the smaller DMA queries of Linux 6.x from <linux/dma-mapping.h> alone', DMA_QUERIES, True, None),
    ('a receive ring with dma_alloc_noncontiguous(), dma_vmap_noncontiguous(), dma_mmap_noncontiguous()',
     '#include <linux/sizes.h>\n' + NONCONTIG_RING, True, None),
    ('a request mapped with dma_iova_try_alloc(), dma_iova_link(), else dma_map_page()', IOVA_FASTPATH, True, None),
    ('a domain of its own: iommu_map_sg(), iommu_unmap_fast() into one gather, iommu_iotlb_sync()',
     IOMMU_BATCH, True, None),
    ('IS_ENABLED() and its siblings from <linux/kconfig.h> alone', KCONFIG, True, None),
    ('a status line with scnprintf() from <linux/kernel.h> alone', '#include <linux/kernel.h>\n' + STATUS, True,
     None),
    ('an append table: sg_alloc_append_table_from_pages() from <linux/scatterlist.h>', SG_APPEND, True, None),
    ('ring sizing: roundup_pow_of_two(), order_base_2(), PAGE_ALIGNED(), smp_wmb()', KERNEL + RINGSIZE, True, None),
    ('a device page table: for_each_sgtable_dma_page(), sg_page_iter_page()', KERNEL + PGTABLE, True, None),
    ('a slot allocator with <linux/bitmap.h> and <linux/bitops.h>', KERNEL + SLOTS, True, None),
    ('static_assert(), BUILD_BUG_ON_ZERO(), offsetofend(), DIV_ROUND_CLOSEST(), in_range()', KERNEL + LAYOUT, True,
     None),
    ("the kernel's one-argument static_assert() after libc's <assert.h>", LIBC + '#include <assert.h>\n' + KERNEL +
     'static_assert(sizeof(u32) == 4);\n', True, None),
    ('a false one-argument static_assert()', KERNEL + 'static_assert(sizeof(u32) == 8);\n', False,
     ['sizeof(u32) == 8']),
    ('a true BUILD_BUG_ON_ZERO()', KERNEL + 'extern const int z;\nconst int z = BUILD_BUG_ON_ZERO(sizeof(u32) == 4);\n',
     False, ['dmamap_build_bug_on_zero']),
    ('a true BUILD_BUG_ON_MSG()',
     KERNEL + 'void f(void);\nvoid f(void)\n{\n\tBUILD_BUG_ON_MSG(1, "ring too small");\n}\n',
     False, ['ring too small']),
    ('a receive path: get_unaligned_le32(), put_unaligned(), le16_add_cpu()...', KERNEL + RX_PARSE, True, None),
    ('a reset with readl_poll_timeout() and its _atomic form from <linux/iopoll.h> alone', RESET_POLL, True, None),
    ('settle delays and sleeps from <linux/delay.h> alone', SETTLE, True, None),
    ('a jiffies deadline from <linux/jiffies.h> alone', DEADLINE, True, None),
    ('a ktime measure from <linux/ktime.h> alone', STAMP, True, None),
    ('the time headers with the others', KERNEL + RESET_POLL + SETTLE + DEADLINE + STAMP, True, None),
    ('<linux/cleanup.h> alone: DEFINE_FREE(), DEFINE_CLASS(), DEFINE_GUARD() and their uses', CLEANUP_ALONE, True,
     None),
    ('guards, __free() and scoped walks of a 6.5 driver', SCOPED_DRIVER, True, None),
    ('guards, __free() and scoped walks of a 6.5 driver with the others', LIBC + KERNEL + SCOPED_DRIVER, True, None),
    ('guard(mutex) of a spinlock', '''
#include <linux/mutex.h>
#include <linux/spinlock.h>
void f(spinlock_t *l);
void f(spinlock_t *l)
{
	guard(mutex)(l);
}
''', False, ['struct mutex']),
    ('scoped_guard(spinlock) of a raw spinlock', '''
#include <linux/spinlock.h>
void f(raw_spinlock_t *l);
void f(raw_spinlock_t *l)
{
	scoped_guard(spinlock, l) {
	}
}
''', False, ['spinlock_t']),
    ('a ring under a spinlock from <linux/spinlock.h> alone', RING_LOCK, True, None),
    ('a configuration under a mutex from <linux/mutex.h> alone', CONFIG_MUTEX, True, None),
    ('a command completed from <linux/completion.h> alone', CMD_DONE, True, None),
    ('the lock headers with the others', KERNEL + RING_LOCK + CONFIG_MUTEX + CMD_DONE, True, None),
    ('an interrupt handler from <linux/interrupt.h> alone', IRQ_HANDLER, True, None),
    ('platform resources from <linux/platform_device.h> alone', BOARD_RES, True, None),
    ('deferred work from <linux/workqueue.h> alone', DEFERRED, True, None),
    ('work an unbind cancels, from <linux/devm-helpers.h> alone', AUTOCANCEL, True, None),
    ('deferred work with the others', LIBC + KERNEL + DEFERRED, True, None),
    ('BH work from <linux/workqueue.h> and <linux/interrupt.h>', BH_WORK, True, None),
    ('BH work with the others', LIBC + KERNEL + BH_WORK, True, None),
    ('a wait for an interrupt from <linux/wait.h> alone', WAIT_QUEUE, True, None),
    ('a wait for an interrupt with the others', LIBC + KERNEL + WAIT_QUEUE, True, None),
    ('clocks on and off from <linux/clk.h> alone', CLOCKS, True, None),
    ('firmware loaded with <linux/firmware.h>', FIRMWARE, True, None),
    ('clocks on and off with the others', LIBC + KERNEL + CLOCKS, True, None),
    ('resets in and out from <linux/reset.h> alone', RESETS, True, None),
    ('resets in and out with the others', LIBC + KERNEL + RESETS, True, None),
    ('a firmware image in vmalloc memory from <linux/vmalloc.h>', VMALLOC_FW, True, None),
    ('a firmware image in vmalloc memory with the others', LIBC + KERNEL + VMALLOC_FW, True, None),
    ('vmap() with a protection that is no pgprot_t', '''
#include <linux/vmalloc.h>
void *f(struct page **pages);
void *f(struct page **pages)
{
	return vmap(pages, 1, VM_MAP, 0);
}
''', False, ['incompatible']),
    ('a device-tree probe from <linux/of.h> alone', OF_READ, True, None),
    ('children and phandles from <linux/of.h> alone', OF_TREE, True, None),
    ('children and phandles with the others', LIBC + KERNEL + OF_TREE, True, None),
    ('child nodes from <linux/property.h> alone', FWNODE_CHILDREN, True, None),
    ('reserved memory from <linux/of_reserved_mem.h> alone', RESERVED_MEM, True, None),
    ('reserved memory with the others', LIBC + KERNEL + RESERVED_MEM, True, None),
    ('a board of nodes referring to each other', BOARD_REFS, True, None),
    ('runtime PM of a driver from <linux/pm_runtime.h> alone', PM_RUNTIME, True, None),
    ('runtime PM of a driver with the others', LIBC + KERNEL + PM_RUNTIME, True, None),
    ('system sleep ops from <linux/pm.h> alone', PM_SLEEP, True, None),
    ('every kind of ops initialiser with <linux/pm_runtime.h>', PM_SLEEP + '#include <linux/pm_runtime.h>\n' + PM_OPS_C,
     True, None),
    ('a platform driver with runtime PM ops', PM_PLATFORM, True, None),
    ('a platform driver with runtime PM ops with the others', KERNEL + PM_PLATFORM, True, None),
    ('SET_RUNTIME_PM_OPS() and pm_ptr() without CONFIG_PM', '''
#define CONFIG_PM 0
#include <linux/pm_runtime.h>
static int __maybe_unused qux_runtime_suspend(struct device *dev)
{
	(void)dev;
	return 0;
}
static const struct dev_pm_ops qux_pm_ops = {
	SET_RUNTIME_PM_OPS(qux_runtime_suspend, NULL, NULL)
};
const struct dev_pm_ops *qux_ops(void);
const struct dev_pm_ops *qux_ops(void)
{
	return pm_ptr(&qux_pm_ops);
}
''', True, None),
    ('a .pm that is no struct dev_pm_ops', '''
#include <linux/platform_device.h>
#include <linux/pm.h>
static const int not_ops = 1;
static struct platform_driver bad_driver = { .driver = { .name = "bad", .pm = &not_ops } };
struct platform_driver *bad(void);
struct platform_driver *bad(void)
{
	return &bad_driver;
}
''', False, ['incompatible']),
    ('device properties from <linux/property.h> alone', PROPERTY_READ, True, None),
    ('a board node and a match table with <linux/of_platform.h> and <linux/property.h>', BOARD_OF, True, None),
    ('a board node and a match table with the others', LIBC + KERNEL + BOARD_OF, True, None),
    ('register windows and platform data with <linux/platform_device.h> and <linux/io.h>', REG_WINDOWS, True, None),
    ('register windows and platform data with the others', LIBC + KERNEL + REG_WINDOWS, True, None),
    ('ioremap() and its forms from <linux/io.h> alone', MAP_ALONE, True, None),
    ('devm_platform_ioremap_resource() of a struct device', '''
#include <linux/platform_device.h>
void __iomem *f(struct platform_device *pdev);
void __iomem *f(struct platform_device *pdev)
{
	return devm_platform_ioremap_resource(&pdev->dev, 0);
}
''', False, ['incompatible']),
    ('the interrupt headers with the others', LIBC + KERNEL + IRQ_HANDLER, True, None),
    ('a completion tasklet from <linux/interrupt.h> and <linux/spinlock.h> alone', TASKLETS, True, None),
    ('a completion tasklet with the others', LIBC + KERNEL + TASKLETS, True, None),
    ('the contexts of <linux/preempt.h> alone', '''
#include <linux/preempt.h>
int f(void);
int f(void)
{
	might_sleep_if(!in_interrupt());
	return in_softirq() + in_serving_softirq() + in_hardirq() + in_irq() + in_task() + in_atomic();
}
''', True, None),
    ('local_bh_disable() from <linux/bottom_half.h> alone', '''
#include <linux/bottom_half.h>
void f(void);
void f(void)
{
	local_bh_disable();
	local_bh_enable();
}
''', True, None),
    ('tasklet_setup() of a function of unsigned long', '''
#include <linux/interrupt.h>
static void old_fn(unsigned long data)
{
	(void)data;
}
void f(struct tasklet_struct *t);
void f(struct tasklet_struct *t)
{
	tasklet_setup(t, old_fn);
}
''', False, ['incompatible']),
    ('a threaded interrupt handler with <linux/interrupt.h>, <linux/mutex.h>, <linux/platform_device.h>',
     THREADED_IRQ, True, None),
    ('a threaded interrupt handler with the others', LIBC + KERNEL + THREADED_IRQ, True, None),
    ('IRQ_RETVAL() from <linux/irqreturn.h> alone', '''
#include <linux/irqreturn.h>
irqreturn_t f(int done);
irqreturn_t f(int done)
{
	return done > 1 ? IRQ_WAKE_THREAD : IRQ_RETVAL(done);
}
''', True, None),
    ('request_irq() of a handler returning int', '''
#include <linux/interrupt.h>
static int old_irq(int irq, void *data)
{
	(void)irq;
	(void)data;
	return 1;
}
int f(void *c);
int f(void *c)
{
	return request_irq(3, old_irq, 0, "old", c);
}
''', False, ['incompatible']),
    ('request_threaded_irq() of a thread function returning int', '''
#include <linux/interrupt.h>
static int old_thread(int irq, void *data)
{
	(void)irq;
	(void)data;
	return 1;
}
int f(void *c);
int f(void *c)
{
	return request_threaded_irq(3, NULL, old_thread, IRQF_ONESHOT, "old", c);
}
''', False, ['incompatible']),
    ('lockdep assertions from <linux/lockdep.h> alone, interrupt state from <linux/irqflags.h> alone', '''
#include <linux/lockdep.h>
#include <linux/irqflags.h>
struct dev_state;
void f(void);
void f(void)
{
	unsigned long flags;

	local_irq_save(flags);
	lockdep_assert_irqs_disabled();
	local_irq_restore(flags);
	lockdep_assert_irqs_enabled();
}
''', True, None),
    ('spin_lock() of a mutex', '''
#include <linux/mutex.h>
#include <linux/spinlock.h>
void f(struct mutex *m);
void f(struct mutex *m)
{
	spin_lock(m);
}
''', False, ['spinlock_t']),
    ('mutex_lock() of a spinlock', '''
#include <linux/mutex.h>
#include <linux/spinlock.h>
void f(spinlock_t *l);
void f(spinlock_t *l)
{
	mutex_lock(l);
}
''', False, ['struct mutex']),
    ('spin_lock_irqsave() with int flags', '''
#include <linux/spinlock.h>
void f(spinlock_t *l);
void f(spinlock_t *l)
{
	int flags;

	spin_lock_irqsave(l, flags);
	spin_unlock_irqrestore(l, flags);
}
''', False, ['unsigned long']),
    ('a jiffies deadline kept in an int', '''
#include <linux/jiffies.h>
int f(void);
int f(void)
{
	int timeout = (int)(jiffies + HZ);

	return time_after((int)jiffies, timeout);
}
''', False, ['unsigned long jiffies values']),
    ('PIO beside DMA: readq(), ioread32be(), readsl(), memcpy_toio()...', KERNEL + PIO, True, None),
    ('EPROBE_DEFER from <linux/errno.h> alone',
     '#include <linux/errno.h>\nint f(void);\nint f(void) { return -EPROBE_DEFER - ENOTSUPP - EINVAL; }\n', True, None),
    ('ARRAY_SIZE(), min(), pr_err() and might_sleep() from <linux/kernel.h> alone', '''
#include <linux/kernel.h>
int f(const int *v, unsigned int n);
int f(const int *v, unsigned int n)
{
	static const int t[] = { 1, 2, 3 };

	pr_err("n %u\\n", n);
	might_sleep();
	might_sleep_if(n > 1);
	return min(v[0], t[ARRAY_SIZE(t) - 1]) + (int)DIV_ROUND_UP(n, 4u) + (int)ALIGN(n, 8u) - EPROBE_DEFER;
}
''', True, None),
    ('probe code sizing its rings: <linux/overflow.h>, <linux/align.h>, <linux/math.h>', KERNEL + HW_HEADER + SIZES,
     True, None),
    ('a request queue with <linux/list.h> alone', REQ_QUEUE, True, None),
    ('counters with <linux/atomic.h> alone', COUNTERS, True, None),
    ('a platform driver of Linux 6.11 and later', PLATFORM_DRIVER, True, None),
    ('a platform driver of Linux 6.11 and later with the others', KERNEL + PLATFORM_DRIVER, True, None),
    ('platform drivers of Linux 6.3 to 6.10: int .remove, .remove_new', OLD_REMOVE, True, None),
    ('an int-returning .remove without DMAMAP_PLATFORM_REMOVE_RETURNS_INT',
     OLD_REMOVE.replace('#define DMAMAP_PLATFORM_REMOVE_RETURNS_INT 1\n', ''), False, ['incompatible']),
    ("a module's boilerplate with <linux/module.h> alone", MODULE_BOILERPLATE, True, None),
    ("a module's boilerplate with the others", KERNEL + MODULE_BOILERPLATE, True, None),
    ('module_param() of a variable of another type',
     '#include <linux/module.h>\nstatic long dbg;\nmodule_param(dbg, int, 0644);\n', False, ['incompatible']),
    ('module_init() of a function that returns nothing',
     '#include <linux/init.h>\nstatic void f(void)\n{\n}\nmodule_init(f);\n', False, ['incompatible']),
    ('MODULE_LICENSE() of something else than a string literal',
     '#include <linux/module.h>\nstatic const char *lic = "GPL";\nMODULE_LICENSE(lic);\n', False, ['lic']),
    ('a shared object with <linux/kref.h> and <linux/refcount.h>', SHARED_OBJ, True, None),
    ("<linux/atomic.h> after C11's <stdatomic.h>", '#include <stdatomic.h>\n' + COUNTERS, False,
     ['<stdatomic.h>', 'atomic_fetch_add']),
    ('a request queue with the list calls and the others', KERNEL + REQ_QUEUE, True, None),
    ('the 2012 API after <linux/types.h> and <linux/errno.h>',
     '#include <linux/types.h>\n#include <linux/errno.h>\n' + SEED, True, None),
    ('FIELD_PREP() of a constant too large for the field', KERNEL + '''
u32 f(void);
u32 f(void)
{
	return (u32)FIELD_PREP(GENMASK(7, 4), 16);
}
''', False, ['value too large for the field']),
    ('FIELD_PREP_CONST() of a value too large for the field', KERNEL + '''
const u32 v = FIELD_PREP_CONST(GENMASK(7, 4), 0x10);
''', False, ['value_too_large_for_the_field']),
    ('FIELD_GET() with a mask that has a hole', KERNEL + '''
u32 f(u32 r);
u32 f(u32 r)
{
	return (u32)FIELD_GET(0x50, r);
}
''', False, ['mask is not one run of set bits']),
    ('FIELD_GET() of a register narrower than the mask', KERNEL + '''
u32 f(u16 r);
u32 f(u16 r)
{
	return (u32)FIELD_GET(GENMASK(19, 12), r);
}
''', False, ['type of reg too small for mask']),
    ('FIELD_PREP() with a variable mask', KERNEL + '''
u32 f(u32 m);
u32 f(u32 m)
{
	return (u32)FIELD_PREP(m, 1);
}
''', False, ['constant']),
    ('a true BUILD_BUG_ON()', KERNEL + '''
void f(void);
void f(void)
{
	BUILD_BUG_ON(sizeof(dma_addr_t) != 4);
}
''', False, ['BUILD_BUG_ON failed', 'sizeof(dma_addr_t) != 4']),
    ('the userspace <linux/types.h> next to them', '#include <linux/types.h>\n' + KERNEL + DRIVER, True, None),
    ('the 2012 API after libc headers', LIBC + SEED, True, None),
    ('the simulator headers with the kernel ones',
     KERNEL + '#include <dmamap/machine.h>\n#include <dmamap/device.h>\n#include <dmamap/debug.h>\n'
     '#include <dmamap/dmabounce.h>\n#include <dmamap/dma-iommu.h>\n', True, None),
    ('the 2012 API after the kernel headers', KERNEL + SEED, False, ['one API per file']),
    ('the kernel headers after the 2012 API', SEED + KERNEL, False, ['one API per file']),
    ('an unsigned long attrs in the 2012 API', SEED + '''
void f(struct device *dev, void *p);
void f(struct device *dev, void *p)
{
	unsigned long attrs = 4;
	dma_addr_t h = dma_map_single_attrs(dev, p, 64, DMA_TO_DEVICE, attrs);
	(void)h;
}
''', False, ['struct dma_attrs pointer', 'Linux 6.x']),
    ('a literal 0 attrs in the 2012 API', SEED + '''
void f(struct device *dev, void *p, dma_addr_t *h);
void f(struct device *dev, void *p, dma_addr_t *h)
{
	p = dma_alloc_attrs(dev, 4096, h, GFP_KERNEL, 0);
}
''', False, ['struct dma_attrs pointer']),
    ('NULL and a struct dma_attrs pointer in the 2012 API', SEED + '''
void f(struct device *dev, void *p);
void f(struct device *dev, void *p)
{
	DEFINE_DMA_ATTRS(attrs);
	dma_addr_t h;

	dma_set_attr(DMA_ATTR_WRITE_COMBINE, &attrs);
	h = dma_map_single_attrs(dev, p, 64, DMA_TO_DEVICE, &attrs);
	dma_unmap_single_attrs(dev, h, 64, DMA_TO_DEVICE, NULL);
}
''', True, None),
    ('a struct dma_attrs pointer in the Linux 6.x API', KERNEL + '''
struct dma_attrs { unsigned long flags; };
void f(struct device *dev, void *p);
void f(struct device *dev, void *p)
{
	struct dma_attrs a = { 0 };
	dma_addr_t h = dma_map_single_attrs(dev, p, 64, DMA_TO_DEVICE, &a);
	(void)h;
}
''', False, ['unsigned long of DMA_ATTR']),
]

CXX_CASES = [
    ('kernel headers in C++', LIBC + KERNEL, True, None),
    ('min_t(), clamp(), min_not_zero() in C++', LIBC + KERNEL + MINMAX_CXX, True, None),
    ('the <linux/bug.h> family in C++', LIBC + KERNEL + BUGS, True, None),
    ('the kernel basics in C++', LIBC + KERNEL + NAMES, True, None),
    ('the dev_printk() family in C++', LIBC + KERNEL + DEV_LOG, True, None),
    ('the managed and plain copies in C++', LIBC + KERNEL + COPIES, True, None),
    ('an sg transmit path in C++', LIBC + KERNEL + SG_TX, True, None),
    ('a driver header with <linux/types.h> alone in C++', HW_HEADER, True, None),
    ('a bounce list with sgl_alloc() in C++', SGL_BOUNCE, True, None),
    ('kmemdup_nul() from <linux/string.h> alone in C++', NAME_FIELD, True, None),
    ('a command ring with dma_alloc_pages() in C++', LIBC + '#include <linux/sizes.h>\n' + PAGES_RING, True, None),
    ('a request mapped with the IOVA-based DMA API in C++', LIBC + IOVA_FASTPATH, True, None),
    ('a domain of its own with a batched IOTLB invalidate in C++', LIBC + IOMMU_BATCH, True, None),
    ('IS_ENABLED() and its siblings in C++', KCONFIG, True, None),
    ('a status line with scnprintf() in C++', LIBC + '#include <linux/sprintf.h>\n' + STATUS, True, None),
    ('an append table in C++', SG_APPEND, True, None),
    ('ring sizing in C++', LIBC + KERNEL + RINGSIZE, True, None),
    ('a device page table with the page iterators in C++', LIBC + KERNEL + PGTABLE, True, None),
    ('a slot allocator with bitmaps in C++', LIBC + KERNEL + SLOTS, True, None),
    ('static_assert(), BUILD_BUG_ON_ZERO(), DIV_ROUND_CLOSEST(), in_range() in C++', LIBC + KERNEL + LAYOUT, True,
     None),
    ('a receive path with <asm/unaligned.h> in C++', LIBC + KERNEL + RX_PARSE, True, None),
    ('a reset with readl_poll_timeout() from <linux/iopoll.h> alone in C++', RESET_POLL, True, None),
    ('settle delays and sleeps from <linux/delay.h> alone in C++', SETTLE, True, None),
    ('a jiffies deadline from <linux/jiffies.h> alone in C++', DEADLINE, True, None),
    ('a ktime measure from <linux/ktime.h> alone in C++', STAMP, True, None),
    ('<linux/cleanup.h> alone in C++', CLEANUP_ALONE, True, None),
    ('guards, __free() and scoped walks of a 6.5 driver in C++', SCOPED_DRIVER, True, None),
    ('guards, __free() and scoped walks of a 6.5 driver with the others in C++', LIBC + KERNEL + SCOPED_DRIVER, True,
     None),
    ('a ring under a spinlock from <linux/spinlock.h> alone in C++', RING_LOCK, True, None),
    ('an interrupt handler from <linux/interrupt.h> alone in C++', IRQ_HANDLER, True, None),
    ('a threaded interrupt handler in C++', THREADED_IRQ, True, None),
    ('a completion tasklet from <linux/interrupt.h> alone in C++', TASKLETS, True, None),
    ('platform resources from <linux/platform_device.h> alone in C++', BOARD_RES, True, None),
    ('deferred work from <linux/workqueue.h> alone in C++', DEFERRED, True, None),
    ('BH work from <linux/workqueue.h> and <linux/interrupt.h> in C++', BH_WORK, True, None),
    ('work an unbind cancels, from <linux/devm-helpers.h> alone in C++', AUTOCANCEL, True, None),
    ('a wait for an interrupt from <linux/wait.h> alone in C++', WAIT_QUEUE, True, None),
    ('the smaller DMA queries of Linux 6.x in C++', DMA_QUERIES, True, None),
    ('clocks on and off from <linux/clk.h> alone in C++', CLOCKS, True, None),
    ('firmware loaded with <linux/firmware.h> in C++', FIRMWARE, True, None),
    ('resets in and out from <linux/reset.h> alone in C++', RESETS, True, None),
    ('resets in and out with the others in C++', LIBC + KERNEL + RESETS, True, None),
    ('a firmware image in vmalloc memory from <linux/vmalloc.h> in C++', VMALLOC_FW, True, None),
    ('a firmware image in vmalloc memory with the others in C++', LIBC + KERNEL + VMALLOC_FW, True, None),
    ('a device-tree probe from <linux/of.h> alone in C++', OF_READ, True, None),
    ('children and phandles from <linux/of.h> alone in C++', OF_TREE, True, None),
    ('children and phandles with the others in C++', LIBC + KERNEL + OF_TREE, True, None),
    ('child nodes from <linux/property.h> alone in C++', FWNODE_CHILDREN, True, None),
    ('reserved memory from <linux/of_reserved_mem.h> alone in C++', RESERVED_MEM, True, None),
    ('runtime PM of a driver from <linux/pm_runtime.h> alone in C++', PM_RUNTIME, True, None),
    ('runtime PM of a driver with the others in C++', LIBC + KERNEL + PM_RUNTIME, True, None),
    ('system sleep ops from <linux/pm.h> alone in C++', PM_SLEEP, True, None),
    ('a platform driver given runtime PM ops in C++', '#include <linux/platform_device.h>\n' + PM_RUNTIME + '''
void foo_attach(struct platform_driver *drv);
void foo_attach(struct platform_driver *drv)
{
	drv->driver.pm = pm_ptr(&foo_pm_ops);
}
''', True, None),
    ('device properties from <linux/property.h> alone in C++', PROPERTY_READ, True, None),
    ('register windows and platform data in C++', LIBC + KERNEL + REG_WINDOWS, True, None),
    ('ioremap() and its forms from <linux/io.h> alone in C++', MAP_ALONE, True, None),
    ('a configuration under a mutex from <linux/mutex.h> alone in C++', CONFIG_MUTEX, True, None),
    ('a command completed from <linux/completion.h> alone in C++', CMD_DONE, True, None),
    ('a request queue with <linux/list.h> alone in C++', REQ_QUEUE, True, None),
    ('counters with <linux/atomic.h> alone in C++', COUNTERS, True, None),
    ('a platform driver of Linux 6.11 and later in C++',
     '#define REMOVE_T void\n#define REMOVE_RET\n' + PLATFORM_CXX, True, None),
    ('a platform driver of Linux 6.3 to 6.10 in C++', '#define DMAMAP_PLATFORM_REMOVE_RETURNS_INT 1\n'
     '#define REMOVE_T int\n#define REMOVE_RET return 0;\n' + PLATFORM_CXX, True, None),
    ("a module's boilerplate with <linux/module.h> alone in C++", MODULE_BOILERPLATE, True, None),
    ('a shared object with <linux/kref.h> and <linux/refcount.h> in C++', SHARED_OBJ, True, None),
    ('PIO beside DMA in C++', LIBC + KERNEL + PIO.replace('void __iomem *base', 'u8 __iomem *base'), True, None),
    ('probe code sizing its rings in C++', LIBC + KERNEL + HW_HEADER + SIZES, True, None),
    # (C++ has no arithmetic on void *: the window is a u8 __iomem * there)
    ('a register block with the <linux/bitfield.h> macros in C++',
     LIBC + KERNEL + REGS.replace('void __iomem *base', 'u8 __iomem *base'), True, None),
    ('FIELD_GET() with a mask that has a hole in C++', KERNEL + '''
u32 f(u32 r);
u32 f(u32 r)
{
	return (u32)FIELD_GET(0x50, r);
}
''', False, ['mask is not one run of set bits']),
    ('FIELD_PREP_CONST() of a value too large for the field in C++', KERNEL + '''
extern const u32 v;
const u32 v = FIELD_PREP_CONST(GENMASK(7, 4), 0x10);
''', False, ['value too large for the field']),
]


def compile_one(cmd, source, suffix):
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, 'case' + suffix)
        with open(path, 'w', encoding='utf-8') as fh:
            fh.write(source)
        proc = subprocess.run(cmd + [path], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        return proc.returncode == 0, proc.stdout


def run(cases, cmd, suffix):
    failed = 0
    # the compilers run side by side; the verdicts are read in the cases' order
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        results = list(pool.map(lambda case: compile_one(cmd, case[1], suffix), cases))
    for (name, source, ok, words), (compiled, out) in zip(cases, results):
        if ok and not compiled:
            print(f'FAIL: {name}: does not compile\n{out}')
            failed += 1
        elif not ok and compiled:
            print(f'FAIL: {name}: compiles, but must not')
            failed += 1
        elif not ok and not all(w in out for w in words):
            print(f'FAIL: {name}: refused, but the message does not say {words}\n{out}')
            failed += 1
        else:
            print(f'ok: {name}')
    return failed


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--cc', required=True)
    ap.add_argument('--cxx')
    ap.add_argument('-I', dest='incs', action='append', default=[])
    args = ap.parse_args()
    incs = ['-I' + i for i in args.incs]
    flags = ['-fsyntax-only', '-Wall', '-Wextra', '-Werror', '-Wstrict-prototypes', '-Wmissing-prototypes']
    failed = run(CASES, shlex.split(args.cc) + ['-std=gnu11'] + flags + incs, '.c')
    failed += run(CASES[:1], shlex.split(args.cc) + ['-std=c11'] + flags + incs, '.c')
    if args.cxx:
        failed += run(CXX_CASES, shlex.split(args.cxx) + ['-fsyntax-only', '-Wall', '-Wextra', '-Werror'] + incs,
                      '.cpp')
    print(f'{failed} failed')
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
