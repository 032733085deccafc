/* SPDX-License-Identifier: MIT */
/*
 * A toy crypto engine in the shape of the job-ring accelerators of Linux
 * (CAAM, Talitos): the driver maps a request's source and destination
 * sg_tables with dma_map_sgtable(), describes them in link tables and a
 * descriptor taken from dma_pools, and queues the descriptor's bus address on
 * a coherent job ring; the engine transforms the bytes and writes a status
 * back. Kernel includes only.
 */
#ifndef TOY_CRYPTO_H
#define TOY_CRYPTO_H

#include <linux/dma-mapping.h>
#include <linux/dmapool.h>
#include <linux/io.h>
#include <linux/scatterlist.h>

/* Registers (32-bit, byte offsets into the window). */
#define TC_CTRL 0x00         /* 1: run */
#define TC_RING_BASE_LO 0x04 /* bus address of the job ring */
#define TC_RING_BASE_HI 0x08
#define TC_RING_SIZE 0x0c    /* entries */
#define TC_RING_HEAD 0x10    /* written by the driver: jobs queued so far */
#define TC_RING_DONE 0x14    /* written by the engine: jobs completed so far */
#define TC_IRQ_STATUS 0x18   /* 1: completions to collect; the driver writes 0 to acknowledge */
#define TC_REGS_SIZE 0x20

#define TC_RING 16           /* job ring entries */
#define TC_MAX_LINKS 8       /* link-table entries per side */

/* What the engine reads: little endian, as shared with the hardware. */
struct tc_link {
	__le64 addr;
	__le32 len;
	__le32 flags;
};
#define TC_LINK_LAST 0x1

struct tc_desc {
	__le32 cmd;          /* TC_CMD_XOR | nsrc << 8 | ndst << 16 */
	__le32 key;
	__le64 src;          /* bus address of the source link table */
	__le64 dst;          /* bus address of the destination link table */
	__le32 len;          /* bytes */
	__le32 status;       /* written by the engine */
};
#define TC_CMD_XOR 0x1
#define TC_STATUS_DONE 0x1
#define TC_STATUS_FAULT 0x2

/* The transform the engine applies, byte @i of a job. */
static inline u8 tc_transform(u8 in, u32 key, size_t i)
{
	return (u8)(in ^ (u8)(key >> (8 * (i % 4))) ^ (u8)i);
}

/* Mistakes the driver can be told to make. */
enum tc_bug {
	TC_CORRECT,
	TC_DST_TO_DEVICE,       /* maps the destination DMA_TO_DEVICE */
	TC_UNMAP_WITH_NENTS,    /* unmaps with dma_unmap_sg(..., sgt->nents, ...), the mapped count */
	TC_LEAK_DESCRIPTOR,     /* never gives a descriptor back to its pool */
};

struct tc_request {
	struct sg_table *src, *dst;     /* dst == src: in place */
	u32 key;
	void (*complete)(struct tc_request *req, int err);
	void *ctx;
	/* the driver's */
	struct tc_desc *desc;
	dma_addr_t desc_dma;
	struct tc_link *links[2];
	dma_addr_t links_dma[2];
};

struct tc_engine {
	struct device *dev;
	void __iomem *regs;
	enum tc_bug bug;
	struct dma_pool *desc_pool;
	struct dma_pool *link_pool;
	__le64 *ring;
	dma_addr_t ring_dma;
	struct tc_request *inflight[TC_RING];
	u32 head, tail;
};

int tc_probe(struct device *dev, void __iomem *regs, enum tc_bug bug);
void tc_remove(struct device *dev);
/* Queue @req: 0, -EBUSY (ring full), -EINVAL (too many entries), or a mapping's error. */
int tc_encrypt(struct tc_engine *tc, struct tc_request *req);
/* The interrupt handler: complete what the engine finished; returns how many. */
int tc_irq(struct tc_engine *tc);

#endif
