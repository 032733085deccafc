// SPDX-License-Identifier: MIT
/*
 * The toy flash controller's driver: a Linux 6.x platform driver, with the
 * kernel's include lines only.
 */
#include <linux/clk.h>
#include <linux/device.h>
#include <linux/dma-mapping.h>
#include <linux/err.h>
#include <linux/interrupt.h>
#include <linux/io.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mod_devicetable.h>
#include <linux/module.h>
#include <linux/platform_device.h>
#include <linux/property.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#include "toy-flash.h"

int tflash_bug;
module_param_named(bug, tflash_bug, int, 0644);
MODULE_PARM_DESC(bug, "make a mistake on purpose (enum tflash_bug)");

/* What a variant's of_match_table entry tells the driver. */
struct tflash_variant {
	unsigned int addr_bits; /* its address registers' width */
};

struct tflash {
	struct device *dev;
	struct clk *bus;            /* its bus clock, when the board wires one: on while bound */
	void __iomem *regs;
	struct tf_desc *ring;       /* coherent, TF_RING descriptors */
	dma_addr_t ring_dma;
	spinlock_t lock;            /* guards pending and head */
	struct list_head pending;   /* submitted requests, in ring order */
	u32 head;                   /* descriptors queued so far */
};

struct tflash_req {
	struct kref ref;            /* the submitter's hold, and the pending list's */
	struct list_head node;      /* on tflash.pending while the controller owns it */
	struct device *dev;
	struct tf_desc *desc;
	void *buf;                  /* kmalloc'd, mapped for the transfer */
	dma_addr_t dma;
	void *data;                 /* the submitter's bytes */
	size_t len;
	enum dma_data_direction dir;
	int status;                 /* -EINPROGRESS until completed */
};

/* Free a request once neither its submitter nor the pending list holds it. */
static void tflash_req_release(struct kref *ref)
{
	struct tflash_req *req = container_of(ref, struct tflash_req, ref);

	kfree(req->buf);
	kfree(req);
}

/* Complete @req, taken off the pending list, with the controller's status @st. */
static void tflash_complete(struct tflash_req *req, u32 st)
{
	if (st != TF_ST_DONE) {
		dev_err(req->dev, "transfer failed, status %#x\n", st);
		req->status = -EIO;
		if (tflash_bug != TFLASH_NO_UNMAP_ON_ERROR)
			dma_unmap_single(req->dev, req->dma, req->len, req->dir);
		goto out;
	}
	dma_unmap_single(req->dev, req->dma, req->len, req->dir);
	if (req->dir == DMA_FROM_DEVICE)
		memcpy(req->data, req->buf, req->len);
	req->status = 0;
out:
	kref_put(&req->ref, tflash_req_release);
}

/*
 * tflash_submit() - queue a read or write of @len bytes (up to a sector) at
 * @sector, through a buffer of the request's own; a read's bytes go to @data
 * at completion. The caller holds the request until tflash_req_finish().
 * Return: the request, or ERR_PTR(-EINVAL), -ENOMEM or -EBUSY (ring full).
 */
struct tflash_req *tflash_submit(struct tflash *fl, unsigned sector, void *data, size_t len, bool write)
{
	struct tflash_req *req;
	unsigned long flags;
	int ret = -ENOMEM;

	if (!len || len > TF_SECTOR || sector >= TF_SECTORS)
		return ERR_PTR(-EINVAL);
	req = kzalloc(sizeof(*req), GFP_KERNEL);
	if (!req)
		return ERR_PTR(-ENOMEM);
	req->buf = kmalloc(len, GFP_KERNEL);
	if (!req->buf)
		goto err_free;
	kref_init(&req->ref);
	req->dev = fl->dev;
	req->data = data;
	req->len = len;
	req->dir = write ? DMA_TO_DEVICE : DMA_FROM_DEVICE;
	req->status = -EINPROGRESS;
	if (write)
		memcpy(req->buf, data, len);
	req->dma = dma_map_single(fl->dev, req->buf, len, req->dir);
	if (dma_mapping_error(fl->dev, req->dma))
		goto err_free;

	spin_lock_irqsave(&fl->lock, flags);
	if (list_count_nodes(&fl->pending) == TF_RING) {
		spin_unlock_irqrestore(&fl->lock, flags);
		ret = -EBUSY;
		goto err_unmap;
	}
	req->desc = &fl->ring[fl->head % TF_RING];
	req->desc->addr = cpu_to_le32(lower_32_bits(req->dma));
	req->desc->len = cpu_to_le32((u32)len);
	req->desc->cmd = cpu_to_le32((write ? TF_CMD_WRITE : TF_CMD_READ) | sector << 8);
	req->desc->status = 0;
	kref_get(&req->ref); /* the pending list's */
	list_add_tail(&req->node, &fl->pending);
	fl->head++;
	dma_wmb(); /* the descriptor before the doorbell */
	writel(fl->head, fl->regs + TF_HEAD);
	spin_unlock_irqrestore(&fl->lock, flags);
	return req;

err_unmap:
	dma_unmap_single(fl->dev, req->dma, len, req->dir);
err_free:
	kfree(req->buf);
	kfree(req);
	return ERR_PTR(ret);
}

/* tflash_irq() - the interrupt handler: complete, in order, each request the controller finished. */
static irqreturn_t tflash_irq(int irq, void *data)
{
	struct tflash *fl = data;
	struct tflash_req *req, *tmp;
	LIST_HEAD(done);

	if (!readl(fl->regs + TF_IRQ))
		return IRQ_NONE;
	writel(0, fl->regs + TF_IRQ);
	spin_lock(&fl->lock);
	list_for_each_entry_safe(req, tmp, &fl->pending, node) {
		if (!READ_ONCE(req->desc->status))
			break;
		list_move_tail(&req->node, &done);
	}
	spin_unlock(&fl->lock);
	dma_rmb(); /* the statuses before what they vouch for */
	list_for_each_entry_safe(req, tmp, &done, node) {
		list_del(&req->node);
		tflash_complete(req, le32_to_cpu(req->desc->status));
	}
	return IRQ_HANDLED;
}

/* tflash_req_finish() - drop the submitter's hold on @req; what became of it. */
int tflash_req_finish(struct tflash_req *req)
{
	int status = READ_ONCE(req->status);

	kref_put(&req->ref, tflash_req_release);
	return status;
}

/*
 * tflash_probe() - set the controller up: its state, its bus clock (on
 * while bound, when the board wires one), its registers (the first memory
 * resource), a DMA mask its address registers can hold (the width its
 * device-tree match gives, else the ID table's driver_data, in bits), the
 * descriptor ring, the interrupt handler; then start it.
 */
static int tflash_probe(struct platform_device *pdev)
{
	const struct tflash_variant *variant = device_get_match_data(&pdev->dev);
	const struct platform_device_id *id = platform_get_device_id(pdev);
	unsigned int bits = variant ? variant->addr_bits : id ? (unsigned int)id->driver_data : 32;
	struct device *dev = &pdev->dev;
	struct tflash *fl;
	int irq, ret;

	fl = devm_kzalloc(dev, sizeof(*fl), GFP_KERNEL);
	if (!fl)
		return -ENOMEM;
	fl->dev = dev;
	fl->bus = devm_clk_get_optional_enabled(dev, "bus");
	if (IS_ERR(fl->bus))
		return dev_err_probe(dev, PTR_ERR(fl->bus), "no bus clock\n");
	fl->regs = devm_platform_ioremap_resource(pdev, 0);
	if (IS_ERR(fl->regs))
		return PTR_ERR(fl->regs);
	ret = dma_set_mask_and_coherent(dev, DMA_BIT_MASK(bits));
	if (ret)
		return dev_err_probe(dev, ret, "no usable %u-bit DMA\n", bits);
	fl->ring = dmam_alloc_coherent(dev, TF_RING * sizeof(*fl->ring), &fl->ring_dma, GFP_KERNEL);
	if (!fl->ring)
		return -ENOMEM;
	spin_lock_init(&fl->lock);
	INIT_LIST_HEAD(&fl->pending);
	platform_set_drvdata(pdev, fl);
	irq = platform_get_irq(pdev, 0);
	if (irq < 0)
		return irq;
	ret = devm_request_irq(dev, irq, tflash_irq, 0, dev_name(dev), fl);
	if (ret)
		return dev_err_probe(dev, ret, "cannot request irq %d\n", irq);

	writel(lower_32_bits(fl->ring_dma), fl->regs + TF_RING_BASE);
	writel(0, fl->regs + TF_HEAD);
	writel(1, fl->regs + TF_CTRL);
	return 0;
}

/*
 * tflash_remove() - stop the controller and abort what it still holds
 * (-ESHUTDOWN); the ring and the state go with the managed resources.
 */
static void tflash_remove(struct platform_device *pdev)
{
	struct tflash *fl = platform_get_drvdata(pdev);
	struct tflash_req *req, *tmp;
	unsigned long flags;
	LIST_HEAD(aborted);

	writel(0, fl->regs + TF_CTRL);
	spin_lock_irqsave(&fl->lock, flags);
	list_splice_init(&fl->pending, &aborted);
	spin_unlock_irqrestore(&fl->lock, flags);
	list_for_each_entry_safe(req, tmp, &aborted, node) {
		list_del(&req->node);
		dma_unmap_single(req->dev, req->dma, req->len, req->dir);
		req->status = -ESHUTDOWN;
		kref_put(&req->ref, tflash_req_release);
	}
}

static const struct tflash_variant tflash_v1 = { .addr_bits = 32 }, tflash_lite = { .addr_bits = 24 };

static const struct of_device_id tflash_of_match[] = {
	{ .compatible = "toy,flash", .data = &tflash_v1 },
	{ .compatible = "toy,flash-lite", .data = &tflash_lite },
	{ }
};
MODULE_DEVICE_TABLE(of, tflash_of_match);

static const struct platform_device_id tflash_ids[] = {
	{ "toy-flash", 32 },
	{ "toy-flash-lite", 24 },
	{ }
};
MODULE_DEVICE_TABLE(platform, tflash_ids);

/* Not static, as a kernel driver's would be: the test binds it. */
struct platform_driver tflash_driver = {
	.probe = tflash_probe,
	.remove = tflash_remove,
	.driver = {
		.name = "toy-flash",
		.of_match_table = tflash_of_match,
	},
	.id_table = tflash_ids,
};
module_platform_driver(tflash_driver);

MODULE_DESCRIPTION("Toy flash controller");
MODULE_LICENSE("GPL");
