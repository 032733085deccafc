/* SPDX-License-Identifier: MIT */
/* The toy network driver: kernel DMA API only, nothing simulator-specific. */
#include <string.h>

#include "toy-nic.h"

int toy_nic_open(struct toy_nic *nic, struct device *dev, enum toy_bug bug)
{
	unsigned i;

	memset(nic, 0, sizeof(*nic));
	nic->dev = dev;
	nic->bug = bug;
	nic->desc_pool = dma_pool_create("toy-desc", dev, TOY_RING * sizeof(struct toy_desc), 64, 0);
	if (!nic->desc_pool)
		return -ENOMEM;
	nic->tx = dma_pool_zalloc(nic->desc_pool, GFP_KERNEL, &nic->tx_dma);
	nic->rx = dma_pool_zalloc(nic->desc_pool, GFP_KERNEL, &nic->rx_dma);
	if (!nic->tx || !nic->rx)
		goto fail;
	for (i = 0; i < TOY_RING; i++) {
		nic->rx_buf[i] = (void *)__get_free_pages(GFP_KERNEL, 0);
		if (!nic->rx_buf[i])
			goto fail;
		nic->rx_buf_dma[i] = dma_map_single(dev, nic->rx_buf[i], TOY_BUF, DMA_FROM_DEVICE);
		if (dma_mapping_error(dev, nic->rx_buf_dma[i])) {
			free_pages((unsigned long)nic->rx_buf[i], 0);
			nic->rx_buf[i] = NULL;
			goto fail;
		}
		nic->rx[i].addr = nic->rx_buf_dma[i];
		nic->rx[i].len = TOY_BUF;
		nic->rx[i].flags = TOY_DESC_OWN;
	}
	return 0;

fail:
	toy_nic_close(nic);
	return -ENOMEM;
}

void toy_nic_close(struct toy_nic *nic)
{
	enum dma_data_direction dir = nic->bug == TOY_TX_WRONG_DIRECTION ? DMA_FROM_DEVICE : DMA_TO_DEVICE;
	unsigned i;

	toy_nic_tx_done(nic);
	/* the hardware is stopped: frames it never sent are the driver's again */
	for (; nic->tx_tail != nic->tx_head; nic->tx_tail++) {
		unsigned slot = nic->tx_tail % TOY_RING;

		dma_unmap_single(nic->dev, nic->tx_buf_dma[slot], nic->tx_len[slot], dir);
		free_pages((unsigned long)nic->tx_buf[slot], 0);
		nic->tx_buf[slot] = NULL;
	}
	for (i = 0; i < TOY_RING && nic->bug != TOY_LEAK_RX_BUFFERS; i++) {
		if (nic->rx_buf[i]) {
			dma_unmap_single(nic->dev, nic->rx_buf_dma[i], TOY_BUF, DMA_FROM_DEVICE);
			free_pages((unsigned long)nic->rx_buf[i], 0);
			nic->rx_buf[i] = NULL;
		}
	}
	if (nic->tx)
		dma_pool_free(nic->desc_pool, nic->tx, nic->tx_dma);
	if (nic->rx)
		dma_pool_free(nic->desc_pool, nic->rx, nic->rx_dma);
	dma_pool_destroy(nic->desc_pool);
	nic->desc_pool = NULL;
}

int toy_nic_xmit(struct toy_nic *nic, const void *frame, size_t len)
{
	unsigned slot = nic->tx_head % TOY_RING;
	enum dma_data_direction dir = nic->bug == TOY_TX_WRONG_DIRECTION ? DMA_FROM_DEVICE : DMA_TO_DEVICE;
	void *buf;

	if (nic->tx_head - nic->tx_tail == TOY_RING || len > TOY_BUF)
		return -EBUSY;
	buf = (void *)__get_free_pages(GFP_KERNEL, 0);
	if (!buf)
		return -ENOMEM;
	memcpy(buf, frame, len);
	nic->tx_buf_dma[slot] = dma_map_single(nic->dev, buf, len, dir);
	if (dma_mapping_error(nic->dev, nic->tx_buf_dma[slot])) {
		free_pages((unsigned long)buf, 0);
		return -ENOMEM;
	}
	nic->tx_buf[slot] = buf;
	nic->tx_len[slot] = len;
	nic->tx[slot].addr = nic->tx_buf_dma[slot];
	nic->tx[slot].len = (u32)len;
	nic->tx[slot].flags = TOY_DESC_OWN; /* coherent memory: the device sees it at once */
	nic->tx_head++;
	return 0;
}

int toy_nic_tx_done(struct toy_nic *nic)
{
	enum dma_data_direction dir = nic->bug == TOY_TX_WRONG_DIRECTION ? DMA_FROM_DEVICE : DMA_TO_DEVICE;
	int n = 0;

	while (nic->tx_tail != nic->tx_head) {
		unsigned slot = nic->tx_tail % TOY_RING;

		if (nic->tx[slot].flags & TOY_DESC_OWN)
			break;
		dma_unmap_single(nic->dev, nic->tx_buf_dma[slot], nic->tx_len[slot], dir);
		free_pages((unsigned long)nic->tx_buf[slot], 0);
		nic->tx_buf[slot] = NULL;
		nic->tx_tail++;
		n++;
	}
	return n;
}

size_t toy_nic_rx(struct toy_nic *nic, void *out, size_t max)
{
	unsigned slot = nic->rx_next % TOY_RING;
	size_t len;

	if (nic->rx[slot].flags & TOY_DESC_OWN)
		return 0;
	len = nic->rx[slot].len < max ? nic->rx[slot].len : max;
	if (nic->bug != TOY_NO_RX_SYNC_FOR_CPU)
		dma_sync_single_for_cpu(nic->dev, nic->rx_buf_dma[slot], TOY_BUF, DMA_FROM_DEVICE);
	memcpy(out, nic->rx_buf[slot], len);
	dma_sync_single_for_device(nic->dev, nic->rx_buf_dma[slot], TOY_BUF, DMA_FROM_DEVICE);
	nic->rx[slot].len = TOY_BUF;
	nic->rx[slot].flags = TOY_DESC_OWN;
	nic->rx_next++;
	return len;
}
