// SPDX-License-Identifier: MIT
/*
 * The toy SD host's driver: written as a Linux 6.x driver is, with the
 * kernel's include lines only.
 */
#include <linux/device.h>
#include <linux/dma-mapping.h>
#include <linux/highmem.h>
#include <linux/io.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>

#include "toy-sdhost.h"

int sdh_probe(struct device *dev, void __iomem *regs, enum sdh_bug bug)
{
	struct sdh_host *host;
	void *buf;
	dma_addr_t dma;
	int ret;

	host = devm_kzalloc(dev, sizeof(*host), GFP_KERNEL);
	if (!host)
		return -ENOMEM;
	host->dev = dev;
	host->regs = regs;
	host->bug = bug;

	ret = dma_set_mask_and_coherent(dev, DMA_BIT_MASK(64));
	if (ret)
		ret = dma_set_mask_and_coherent(dev, DMA_BIT_MASK(32));
	if (ret)
		return dev_err_probe(dev, ret, "no usable DMA configuration\n");
	host->v4_64bit = !dma_addressing_limited(dev);

	/* each segment may need a bounced head and its remainder: two descriptors, and the end */
	host->adma_table_sz = (SDH_MAX_SEGS * 2 + 1) * sizeof(struct sdh_adma2_desc);
	host->align_buffer_sz = SDH_MAX_SEGS * ADMA2_ALIGN;
	buf = dma_alloc_coherent(dev, host->align_buffer_sz + host->adma_table_sz, &dma, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	host->align_buffer = buf;
	host->align_addr = dma;
	host->adma_table = buf + host->align_buffer_sz;
	host->adma_addr = dma + host->align_buffer_sz;
	dev_set_drvdata(dev, host);
	return 0;
}

void sdh_remove(struct device *dev)
{
	struct sdh_host *host = dev_get_drvdata(dev);

	dma_free_coherent(dev, host->align_buffer_sz + host->adma_table_sz, host->align_buffer, host->align_addr);
}

static enum dma_data_direction sdh_dir(struct sdh_host *host, const struct sdh_request *req)
{
	if (req->write || host->bug == SDH_READ_AS_TO_DEVICE)
		return DMA_TO_DEVICE;
	return DMA_FROM_DEVICE;
}

static void adma_write_desc(void **desc, dma_addr_t addr, int len, unsigned int cmd)
{
	struct sdh_adma2_desc *d = *desc;

	d->cmd = cpu_to_le16(cmd);
	d->len = cpu_to_le16(len);
	d->addr_lo = cpu_to_le32(lower_32_bits(addr));
	d->addr_hi = cpu_to_le32(upper_32_bits(addr));
	*desc += sizeof(*d);
}

static void adma_table_pre(struct sdh_host *host, struct sdh_request *req)
{
	struct scatterlist *sg;
	void *desc = host->adma_table, *align = host->align_buffer, *buffer;
	dma_addr_t align_addr = host->align_addr, addr;
	int len, offset, i;

	for_each_sg(req->sg, sg, host->sg_count, i) {
		addr = sg_dma_address(sg);
		len = sg_dma_len(sg);
		/* the unaligned head goes through the bounce area */
		offset = (ADMA2_ALIGN - (addr & ADMA2_MASK)) & ADMA2_MASK;
		if (offset) {
			if (req->write) {
				buffer = kmap_local_page(sg_page(sg)) + sg->offset;
				memcpy(align, buffer, offset);
				kunmap_local(buffer);
			}
			adma_write_desc(&desc, align_addr, offset, ADMA2_TRAN | ADMA2_VALID);
			align += ADMA2_ALIGN;
			align_addr += ADMA2_ALIGN;
			addr += offset;
			len -= offset;
		}
		if (len)
			adma_write_desc(&desc, addr, len, ADMA2_TRAN | ADMA2_VALID);
	}
	adma_write_desc(&desc, 0, 0, ADMA2_END | ADMA2_VALID);
}

static void adma_table_post(struct sdh_host *host, struct sdh_request *req)
{
	struct scatterlist *sg;
	void *align = host->align_buffer;
	u8 *buffer;
	int i, size;

	if (req->write)
		return;
	/* the CPU writes the bounced heads into the buffers: they must be the CPU's first */
	dma_sync_sg_for_cpu(host->dev, req->sg, req->sg_len, sdh_dir(host, req));
	for_each_sg(req->sg, sg, host->sg_count, i) {
		if (!(sg_dma_address(sg) & ADMA2_MASK))
			continue;
		size = ADMA2_ALIGN - (sg_dma_address(sg) & ADMA2_MASK);
		buffer = kmap_local_page(sg_page(sg)) + sg->offset;
		memcpy(buffer, align, size);
		kunmap_local(buffer);
		align += ADMA2_ALIGN;
	}
}

int sdh_request(struct sdh_host *host, struct sdh_request *req)
{
	if (host->req)
		return -EBUSY;
	if (!req->blocks || req->sg_len > SDH_MAX_SEGS)
		return -EINVAL;
	host->sg_count = dma_map_sg(host->dev, req->sg, req->sg_len, sdh_dir(host, req));
	if (!host->sg_count)
		return -ENOSPC;
	host->req = req;
	adma_table_pre(host, req);

	writel(req->block, host->regs + SDH_BLOCK);
	writel(req->blocks, host->regs + SDH_BLKCNT);
	writel(lower_32_bits(host->adma_addr), host->regs + SDH_ADMA_LO);
	writel(host->v4_64bit ? upper_32_bits(host->adma_addr) : 0, host->regs + SDH_ADMA_HI);
	writel(0, host->regs + SDH_STATUS);
	writel(req->write ? SDH_CMD_WRITE : SDH_CMD_READ, host->regs + SDH_CMD);
	return 0;
}

int sdh_irq(struct sdh_host *host)
{
	struct sdh_request *req = host->req;
	u32 status = readl(host->regs + SDH_STATUS);

	if (!req || !(status & SDH_STATUS_DONE))
		return 0;
	writel(0, host->regs + SDH_STATUS);
	adma_table_post(host, req);
	if (host->bug == SDH_UNMAP_MAPPED_COUNT)
		dma_unmap_sg(host->dev, req->sg, host->sg_count, sdh_dir(host, req));
	else if (host->bug != SDH_NO_UNMAP)
		dma_unmap_sg(host->dev, req->sg, req->sg_len, sdh_dir(host, req));
	req->error = (status & SDH_STATUS_ADMA_ERR) ? -EIO : 0;
	host->req = NULL;
	return 1;
}
