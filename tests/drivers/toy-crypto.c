// SPDX-License-Identifier: MIT
/*
 * The toy crypto engine's driver: written as a Linux 6.x driver is, with the
 * kernel's include lines only.
 */
#include <linux/device.h>
#include <linux/dma-mapping.h>
#include <linux/dmapool.h>
#include <linux/err.h>
#include <linux/io.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>

#include "toy-crypto.h"

int tc_probe(struct device *dev, void __iomem *regs, enum tc_bug bug)
{
	struct tc_engine *tc;
	int ret;

	tc = devm_kzalloc(dev, sizeof(*tc), GFP_KERNEL);
	if (!tc)
		return -ENOMEM;
	tc->dev = dev;
	tc->regs = regs;
	tc->bug = bug;

	ret = dma_set_mask_and_coherent(dev, DMA_BIT_MASK(32));
	if (ret)
		return dev_err_probe(dev, ret, "no suitable DMA available\n");

	tc->desc_pool = dma_pool_create("tc-desc", dev, sizeof(struct tc_desc), 8, 0);
	if (!tc->desc_pool)
		return -ENOMEM;
	tc->link_pool = dma_pool_create("tc-link", dev, TC_MAX_LINKS * sizeof(struct tc_link), 16, PAGE_SIZE);
	if (!tc->link_pool) {
		ret = -ENOMEM;
		goto err_desc_pool;
	}
	tc->ring = dma_alloc_coherent(dev, TC_RING * sizeof(*tc->ring), &tc->ring_dma, GFP_KERNEL);
	if (!tc->ring) {
		ret = -ENOMEM;
		goto err_link_pool;
	}

	writel(lower_32_bits(tc->ring_dma), regs + TC_RING_BASE_LO);
	writel(upper_32_bits(tc->ring_dma), regs + TC_RING_BASE_HI);
	writel(TC_RING, regs + TC_RING_SIZE);
	writel(0, regs + TC_RING_HEAD);
	writel(1, regs + TC_CTRL);
	dev_set_drvdata(dev, tc);
	return 0;

err_link_pool:
	dma_pool_destroy(tc->link_pool);
err_desc_pool:
	dma_pool_destroy(tc->desc_pool);
	return ret;
}

void tc_remove(struct device *dev)
{
	struct tc_engine *tc = dev_get_drvdata(dev);

	writel(0, tc->regs + TC_CTRL);
	dma_free_coherent(dev, TC_RING * sizeof(*tc->ring), tc->ring, tc->ring_dma);
	dma_pool_destroy(tc->link_pool);
	dma_pool_destroy(tc->desc_pool);
}

static enum dma_data_direction src_dir(const struct tc_request *req)
{
	return req->src == req->dst ? DMA_BIDIRECTIONAL : DMA_TO_DEVICE;
}

static enum dma_data_direction dst_dir(const struct tc_engine *tc)
{
	return tc->bug == TC_DST_TO_DEVICE ? DMA_TO_DEVICE : DMA_FROM_DEVICE;
}

/* Describe a mapped table in a link table; the number of links. */
static int fill_links(struct tc_link *links, struct sg_table *sgt)
{
	struct scatterlist *sg;
	int i;

	for_each_sgtable_dma_sg(sgt, sg, i) {
		links[i].addr = cpu_to_le64(sg_dma_address(sg));
		links[i].len = cpu_to_le32(sg_dma_len(sg));
		links[i].flags = cpu_to_le32(i == (int)sgt->nents - 1 ? TC_LINK_LAST : 0);
	}
	return i;
}

static void unmap_table(struct tc_engine *tc, struct sg_table *sgt, enum dma_data_direction dir)
{
	if (tc->bug == TC_UNMAP_WITH_NENTS)
		dma_unmap_sg(tc->dev, sgt->sgl, sgt->nents, dir);
	else
		dma_unmap_sgtable(tc->dev, sgt, dir, 0);
}

static void release_request(struct tc_engine *tc, struct tc_request *req)
{
	bool in_place = req->src == req->dst;

	if (!in_place)
		unmap_table(tc, req->dst, dst_dir(tc));
	unmap_table(tc, req->src, src_dir(req));
	if (req->links[1])
		dma_pool_free(tc->link_pool, req->links[1], req->links_dma[1]);
	dma_pool_free(tc->link_pool, req->links[0], req->links_dma[0]);
	if (tc->bug != TC_LEAK_DESCRIPTOR)
		dma_pool_free(tc->desc_pool, req->desc, req->desc_dma);
}

int tc_encrypt(struct tc_engine *tc, struct tc_request *req)
{
	bool in_place = req->src == req->dst;
	int nsrc, ndst, ret;
	size_t len = 0;
	struct scatterlist *sg;
	int i;

	if (tc->head - tc->tail == TC_RING)
		return -EBUSY;
	if (req->src->orig_nents > TC_MAX_LINKS || req->dst->orig_nents > TC_MAX_LINKS)
		return -EINVAL;
	for_each_sgtable_sg(req->src, sg, i)
		len += sg->length;

	ret = dma_map_sgtable(tc->dev, req->src, src_dir(req), 0);
	if (ret)
		return ret;
	if (!in_place) {
		ret = dma_map_sgtable(tc->dev, req->dst, dst_dir(tc), 0);
		if (ret)
			goto err_unmap_src;
	}

	req->links[1] = NULL;
	req->desc = dma_pool_zalloc(tc->desc_pool, GFP_ATOMIC, &req->desc_dma);
	req->links[0] = dma_pool_alloc(tc->link_pool, GFP_ATOMIC, &req->links_dma[0]);
	if (!in_place)
		req->links[1] = dma_pool_alloc(tc->link_pool, GFP_ATOMIC, &req->links_dma[1]);
	if (!req->desc || !req->links[0] || (!in_place && !req->links[1])) {
		ret = -ENOMEM;
		goto err_free;
	}

	nsrc = fill_links(req->links[0], req->src);
	ndst = in_place ? nsrc : fill_links(req->links[1], req->dst);
	req->desc->cmd = cpu_to_le32(TC_CMD_XOR | nsrc << 8 | ndst << 16);
	req->desc->key = cpu_to_le32(req->key);
	req->desc->src = cpu_to_le64(req->links_dma[0]);
	req->desc->dst = cpu_to_le64(in_place ? req->links_dma[0] : req->links_dma[1]);
	req->desc->len = cpu_to_le32((u32)len);
	req->desc->status = 0;

	tc->inflight[tc->head % TC_RING] = req;
	tc->ring[tc->head % TC_RING] = cpu_to_le64(req->desc_dma);
	tc->head++;
	dma_wmb();
	writel(tc->head, tc->regs + TC_RING_HEAD);
	return 0;

err_free:
	if (req->links[1])
		dma_pool_free(tc->link_pool, req->links[1], req->links_dma[1]);
	if (req->links[0])
		dma_pool_free(tc->link_pool, req->links[0], req->links_dma[0]);
	if (req->desc)
		dma_pool_free(tc->desc_pool, req->desc, req->desc_dma);
	if (!in_place)
		dma_unmap_sgtable(tc->dev, req->dst, dst_dir(tc), 0);
err_unmap_src:
	dma_unmap_sgtable(tc->dev, req->src, src_dir(req), 0);
	return ret;
}

int tc_irq(struct tc_engine *tc)
{
	u32 done;
	int n = 0;

	if (!readl(tc->regs + TC_IRQ_STATUS))
		return 0;
	writel(0, tc->regs + TC_IRQ_STATUS);
	done = readl(tc->regs + TC_RING_DONE);
	dma_rmb();
	while (tc->tail != done) {
		struct tc_request *req = tc->inflight[tc->tail % TC_RING];
		u32 status = le32_to_cpu(req->desc->status);

		tc->inflight[tc->tail % TC_RING] = NULL;
		tc->tail++;
		release_request(tc, req);
		req->complete(req, status == TC_STATUS_DONE ? 0 : -EIO);
		n++;
	}
	return n;
}
