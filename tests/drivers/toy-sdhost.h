/* SPDX-License-Identifier: MIT */
/*
 * A toy SD host controller in the shape of SDHCI's ADMA2 path in Linux: each
 * request's scatterlist is mapped with dma_map_sg() and described to the
 * controller in a table of ADMA2 descriptors held in coherent memory. ADMA2
 * wants 4-byte aligned addresses, so the unaligned head of a segment goes
 * through a small bounce area in the same coherent buffer (copied in before a
 * write, copied out after a read). Kernel includes only.
 */
#ifndef TOY_SDHOST_H
#define TOY_SDHOST_H

#include <linux/device.h>
#include <linux/dma-mapping.h>
#include <linux/io.h>
#include <linux/scatterlist.h>

/* Registers (32-bit, byte offsets into the window). */
#define SDH_BLOCK 0x00     /* first 512-byte block of the request */
#define SDH_BLKCNT 0x04    /* blocks */
#define SDH_ADMA_LO 0x08   /* bus address of the descriptor table */
#define SDH_ADMA_HI 0x0c
#define SDH_CMD 0x10       /* written last: SDH_CMD_READ or SDH_CMD_WRITE starts the request */
#define SDH_STATUS 0x14    /* from the controller: SDH_STATUS_DONE, or with SDH_STATUS_ADMA_ERR */
#define SDH_REGS_SIZE 0x18

#define SDH_CMD_READ 1
#define SDH_CMD_WRITE 2
#define SDH_STATUS_DONE 0x1
#define SDH_STATUS_ADMA_ERR 0x2

#define SDH_BLOCK_SIZE 512
#define SDH_MAX_SEGS 32

/* ADMA2 descriptor, 32-bit addressing extended to 64 as SDHCI v4 does (little endian). */
struct sdh_adma2_desc {
	__le16 cmd;
	__le16 len;        /* 0 means 65536 */
	__le32 addr_lo;
	__le32 addr_hi;
} __packed;
#define ADMA2_VALID 0x1
#define ADMA2_END 0x2
#define ADMA2_TRAN 0x20
#define ADMA2_ALIGN 4
#define ADMA2_MASK (ADMA2_ALIGN - 1)

/* Mistakes the driver can be told to make. */
enum sdh_bug {
	SDH_CORRECT,
	SDH_NO_UNMAP,            /* never unmaps a finished request's scatterlist */
	SDH_READ_AS_TO_DEVICE,   /* maps a read's buffers DMA_TO_DEVICE (a direction test upside down) */
	SDH_UNMAP_MAPPED_COUNT,  /* unmaps with what dma_map_sg() returned instead of the list's length */
};

struct sdh_request {
	bool write;
	u32 block, blocks;
	struct scatterlist *sg;
	unsigned int sg_len;
	int error;               /* set at completion */
};

struct sdh_host {
	struct device *dev;
	void __iomem *regs;
	enum sdh_bug bug;
	bool v4_64bit;           /* the device reaches all of RAM: 64-bit descriptors */
	void *adma_table, *align_buffer;
	dma_addr_t adma_addr, align_addr;
	size_t adma_table_sz, align_buffer_sz;
	struct sdh_request *req;
	int sg_count;
};

int sdh_probe(struct device *dev, void __iomem *regs, enum sdh_bug bug);
void sdh_remove(struct device *dev);
/* Map @req and start it: 0; -EBUSY while a request runs; -EINVAL, -ENOSPC, -ENOMEM. */
int sdh_request(struct sdh_host *host, struct sdh_request *req);
/* The interrupt handler: finish the running request; 1 when there was one, else 0. */
int sdh_irq(struct sdh_host *host);

#endif
