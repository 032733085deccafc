/* SPDX-License-Identifier: MIT */
/*
 * A toy network driver written against the kernel DMA API only: coherent
 * descriptor rings from a dma_pool, streaming TX buffers mapped per frame,
 * RX buffers mapped once and handed back and forth with syncs.
 */
#ifndef TOY_NIC_H
#define TOY_NIC_H

#include <dmamap/dmamap.h>

#define TOY_RING 16
#define TOY_BUF 2048
#define TOY_DESC_OWN 0x80000000u /* the device owns the descriptor */

/* Descriptor layout shared with the hardware (little endian, 16 bytes). */
struct toy_desc {
	u64 addr;
	u32 len;
	u32 flags;
};

/* Mistakes the driver can be told to make, one at a time. */
enum toy_bug {
	TOY_CORRECT,
	TOY_NO_RX_SYNC_FOR_CPU,  /* reads a received frame without dma_sync_single_for_cpu */
	TOY_TX_WRONG_DIRECTION,  /* maps TX buffers DMA_FROM_DEVICE */
	TOY_LEAK_RX_BUFFERS,     /* close leaves its receive buffers mapped (and allocated) */
};

struct toy_nic {
	struct device *dev;
	enum toy_bug bug;
	struct dma_pool *desc_pool;
	struct toy_desc *tx, *rx;       /* rings (coherent) */
	dma_addr_t tx_dma, rx_dma;
	void *tx_buf[TOY_RING];         /* frame being sent, per slot */
	dma_addr_t tx_buf_dma[TOY_RING];
	size_t tx_len[TOY_RING];
	void *rx_buf[TOY_RING];
	dma_addr_t rx_buf_dma[TOY_RING];
	unsigned tx_head, tx_tail, rx_next;
};

int toy_nic_open(struct toy_nic *nic, struct device *dev, enum toy_bug bug);
void toy_nic_close(struct toy_nic *nic);
/* Queue @len bytes for transmission; -EBUSY when the ring is full. */
int toy_nic_xmit(struct toy_nic *nic, const void *frame, size_t len);
/* Reclaim sent frames; returns how many. */
int toy_nic_tx_done(struct toy_nic *nic);
/* Copy the next received frame into @out; its length, or 0 when none. */
size_t toy_nic_rx(struct toy_nic *nic, void *out, size_t max);

#endif
