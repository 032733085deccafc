/* SPDX-License-Identifier: MIT */
/*
 * A toy SPI controller in the shape of the DMA-capable SPI and I2C
 * controllers of Linux: probe takes managed memory (devm_kzalloc) and a
 * managed coherent descriptor ring (dmam_alloc_coherent); each transfer maps
 * its client's tx and rx buffers with dma_map_single() and queues a
 * descriptor; the completion interrupt unmaps them. Kernel includes only.
 */
#ifndef TOY_SPI_H
#define TOY_SPI_H

#include <linux/device.h>
#include <linux/dma-mapping.h>
#include <linux/io.h>

/* Registers (32-bit, byte offsets into the window). */
#define TS_CTRL 0x00         /* 1: run */
#define TS_RING_LO 0x04      /* bus address of the descriptor ring */
#define TS_RING_HI 0x08
#define TS_HEAD 0x0c         /* written by the driver: descriptors queued so far */
#define TS_DONE 0x10         /* written by the controller: descriptors completed so far */
#define TS_IRQ 0x14          /* 1: completions to collect; the driver writes 0 to acknowledge */
#define TS_REGS_SIZE 0x18

#define TS_RING 8

/* One full-duplex transfer, chip select held throughout (little endian). */
struct ts_desc {
	__le64 tx;           /* bus address of the bytes to send */
	__le64 rx;           /* bus address for the bytes received, 0: discard them */
	__le32 len;
	__le32 status;       /* TS_DONE_OK from the controller */
};
#define TS_DONE_OK 0x1

/* Mistakes the driver can be told to make. */
enum ts_bug {
	TS_CORRECT,
	TS_LEAK_TX_MAPPING,  /* never unmaps the tx buffer */
};

struct ts_transfer {
	const void *tx_buf;
	void *rx_buf;        /* NULL: receive nothing */
	unsigned int len;
	int status;          /* set at completion */
	/* the driver's */
	dma_addr_t tx_dma, rx_dma;
};

struct ts_ctlr {
	struct device *dev;
	void __iomem *regs;
	enum ts_bug bug;
	struct ts_desc *ring;
	dma_addr_t ring_dma;
	struct ts_transfer *inflight[TS_RING];
	u32 head, tail;
};

int ts_probe(struct device *dev, void __iomem *regs, enum ts_bug bug);
void ts_remove(struct device *dev);
/* Map and queue @t: 0, -EBUSY when the ring is full, -ENOMEM when a buffer cannot be mapped. */
int ts_transfer_one(struct ts_ctlr *ts, struct ts_transfer *t);
/* The interrupt handler: complete finished transfers; returns how many. */
int ts_irq(struct ts_ctlr *ts);

#endif
