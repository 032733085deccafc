// SPDX-License-Identifier: MIT
/*
 * The toy SPI controller's driver: written as a Linux 6.x driver is, with the
 * kernel's include lines only.
 */
#include <linux/device.h>
#include <linux/dma-mapping.h>
#include <linux/io.h>
#include <linux/slab.h>

#include "toy-spi.h"

int ts_probe(struct device *dev, void __iomem *regs, enum ts_bug bug)
{
	struct ts_ctlr *ts;

	/* the masks are the platform's: this controller takes what the board gave it */
	ts = devm_kzalloc(dev, sizeof(*ts), GFP_KERNEL);
	if (!ts)
		return -ENOMEM;
	ts->dev = dev;
	ts->regs = regs;
	ts->bug = bug;

	ts->ring = dmam_alloc_coherent(dev, TS_RING * sizeof(*ts->ring), &ts->ring_dma, GFP_KERNEL);
	if (!ts->ring)
		return -ENOMEM;

	writel(lower_32_bits(ts->ring_dma), regs + TS_RING_LO);
	writel(upper_32_bits(ts->ring_dma), regs + TS_RING_HI);
	writel(0, regs + TS_HEAD);
	writel(1, regs + TS_CTRL);
	dev_set_drvdata(dev, ts);
	return 0;
}

void ts_remove(struct device *dev)
{
	struct ts_ctlr *ts = dev_get_drvdata(dev);

	writel(0, ts->regs + TS_CTRL);
	/* the ring and the private data are managed: they go with the device */
}

int ts_transfer_one(struct ts_ctlr *ts, struct ts_transfer *t)
{
	struct ts_desc *d;

	if (ts->head - ts->tail == TS_RING)
		return -EBUSY;
	t->tx_dma = dma_map_single(ts->dev, (void *)t->tx_buf, t->len, DMA_TO_DEVICE);
	if (dma_mapping_error(ts->dev, t->tx_dma))
		return -ENOMEM;
	t->rx_dma = 0;
	if (t->rx_buf) {
		t->rx_dma = dma_map_single(ts->dev, t->rx_buf, t->len, DMA_FROM_DEVICE);
		if (dma_mapping_error(ts->dev, t->rx_dma)) {
			dma_unmap_single(ts->dev, t->tx_dma, t->len, DMA_TO_DEVICE);
			return -ENOMEM;
		}
	}

	d = &ts->ring[ts->head % TS_RING];
	d->tx = cpu_to_le64(t->tx_dma);
	d->rx = cpu_to_le64(t->rx_dma);
	d->len = cpu_to_le32(t->len);
	d->status = 0;
	ts->inflight[ts->head % TS_RING] = t;
	ts->head++;
	dma_wmb();
	writel(ts->head, ts->regs + TS_HEAD);
	return 0;
}

int ts_irq(struct ts_ctlr *ts)
{
	u32 done;
	int n = 0;

	if (!readl(ts->regs + TS_IRQ))
		return 0;
	writel(0, ts->regs + TS_IRQ);
	done = readl(ts->regs + TS_DONE);
	dma_rmb();
	while (ts->tail != done) {
		struct ts_desc *d = &ts->ring[ts->tail % TS_RING];
		struct ts_transfer *t = ts->inflight[ts->tail % TS_RING];

		if (t->rx_buf)
			dma_unmap_single(ts->dev, t->rx_dma, t->len, DMA_FROM_DEVICE);
		if (ts->bug != TS_LEAK_TX_MAPPING)
			dma_unmap_single(ts->dev, t->tx_dma, t->len, DMA_TO_DEVICE);
		t->status = le32_to_cpu(d->status) == TS_DONE_OK ? 0 : -EIO;
		ts->inflight[ts->tail % TS_RING] = NULL;
		ts->tail++;
		n++;
	}
	return n;
}
