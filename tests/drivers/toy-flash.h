/* SPDX-License-Identifier: MIT */
/*
 * A toy flash controller, driven by a Linux 6.x platform driver: each read
 * or write of a sector is a descriptor on a coherent ring naming a streaming
 * buffer; the controller moves the bytes, writes a status back into the
 * descriptor and raises its interrupt, which the driver requests with
 * devm_request_irq(). Its registers are its first memory resource, which the
 * driver maps with devm_platform_ioremap_resource(). A board may describe it
 * by a device-tree node ("toy,flash" or "toy,flash-lite") and wire it a
 * "bus" clock, which the driver keeps on while bound. Kernel includes only.
 */
#ifndef TOY_FLASH_H
#define TOY_FLASH_H

#include <linux/dma-mapping.h>
#include <linux/io.h>
#include <linux/platform_device.h>

/* Registers (32-bit, byte offsets into the window). */
#define TF_RING_BASE 0x00 /* bus address of the descriptor ring */
#define TF_HEAD 0x04      /* written by the driver: descriptors queued so far */
#define TF_IRQ 0x08       /* 1: completions to collect; the driver writes 0 to acknowledge */
#define TF_CTRL 0x0c      /* 1: run */
#define TF_REGS_SIZE 0x10

#define TF_RING 8         /* descriptors */
#define TF_SECTOR 512     /* bytes */
#define TF_SECTORS 16

/* A descriptor, little endian, as shared with the controller. */
struct tf_desc {
	__le32 addr;
	__le32 len;
	__le32 cmd;       /* TF_CMD_* | sector << 8 */
	__le32 status;    /* written by the controller */
};
#define TF_CMD_READ 0x1
#define TF_CMD_WRITE 0x2
#define TF_ST_DONE 0x1
#define TF_ST_ERR 0x2

/* Mistakes the driver can be told to make (module parameter "bug"). */
enum tflash_bug {
	TFLASH_CORRECT,
	TFLASH_NO_UNMAP_ON_ERROR, /* a request the controller failed is never unmapped */
};
extern int tflash_bug;

struct tflash;
struct tflash_req;
/*
 * The driver, bound by the test; its ID table names "toy-flash" (32-bit DMA)
 * and "toy-flash-lite" (24-bit), its of_match_table the compatibles of both.
 */
extern struct platform_driver tflash_driver;

/* Queue a transfer of @len bytes (up to a sector) at @sector: the request, or an ERR_PTR(). */
struct tflash_req *tflash_submit(struct tflash *fl, unsigned sector, void *data, size_t len, bool write);
/* Drop the caller's hold on @req: 0 once done (a read's bytes are in its buffer), -EINPROGRESS, or -errno. */
int tflash_req_finish(struct tflash_req *req);

#endif
