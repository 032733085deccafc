/* SPDX-License-Identifier: MIT */
/*
 * The platform: device life cycle (it knows every layer) and the bus side,
 * where the simulated device touches memory as the hardware would.
 */
#include <limits.h>
#include <stdio.h>

#include "internal.h"

static void platform_release(struct device *dev);

/* Machine-wide state of the layers above the machine, torn down at destroy. */
static void platform_machine_teardown(struct dmamap_machine *m)
{
	dmamap_coherent_machine_fini(m);
	dmamap_debug_machine_fini(m);
}

DMAMAP_API int dmamap_device_init(struct device *dev, struct dmamap_machine *m, const char *name)
{
	if (!dev) {
		dmamap_report(m, DMAMAP_REPORT_BAD_INPUT, NULL, NULL, 0, "dmamap_device_init: NULL device");
		return -EINVAL;
	}
	if (dev->dmamap.magic == DM_DEVICE_MAGIC) {
		dmamap_report(dev->dmamap.machine, DMAMAP_REPORT_BAD_INPUT, dev->dmamap.name, NULL, 0,
			      "dmamap_device_init: device already initialised");
		return -EBUSY;
	}
	if (!m)
		m = dmamap_machine_current();
	if (!m)
		return -ENOMEM;
	if (dmamap_coherent_machine_init(m) || dmamap_debug_machine_init(m))
		return -ENOMEM;

	memset(dev, 0, sizeof(*dev));
	snprintf(dev->dmamap.name, sizeof(dev->dmamap.name), "%s", name ? name : "dmamap-dev");
	dev->dmamap.machine = m;
	dev->dmamap.dma_mask = DMA_BIT_MASK(32);
	dev->dma_mask = &dev->dmamap.dma_mask;
	dev->coherent_dma_mask = DMA_BIT_MASK(32);
	dev->dmamap.dma_parms.max_segment_size = 65536;
	dev->dmamap.dma_parms.segment_boundary_mask = 0xffffffffUL;
	dev->dma_parms = &dev->dmamap.dma_parms;
	dev->dmamap.default_ops = &arm_dma_ops;
	dev->dmamap.magic = DM_DEVICE_MAGIC;

	pthread_mutex_lock(&m->obj_lock);
	m->release_device = platform_release;
	m->destroy_hook = platform_machine_teardown;
	dev->dmamap.next = m->devices;
	if (m->devices)
		m->devices->dmamap.prev = dev;
	m->devices = dev;
	pthread_mutex_unlock(&m->obj_lock);
	return 0;
}

static void object_device_gone(struct dmamap_obj *o, void *dev)
{
	if (o->ops->device_gone)
		o->ops->device_gone(o, dev);
}

static void platform_teardown(struct device *dev)
{
	struct dmamap_machine *m = dev->dmamap.machine;
	/* what the layers free below is the library's doing, not the driver's */
	DM_CALL_AT(NULL, 0);

	/* first, what the driver left, each with the line that made it */
	dmamap_debug_device_leaks(dev);
	dmamap_clk_release(dev);
	dmamap_reset_release(dev);
	dmamap_firmware_unbind(dev);
	dmamap_of_unbind(dev);
	dmamap_noncontig_device_gone(dev);
	/*
	 * While the device can still free what it allocated: its safe buffers
	 * and their pools, then the pools the driver left (they may live in
	 * declared memory or behind the IOMMU).
	 */
	if (dev->archdata.dmabounce)
		dmamap_dmabounce_release(dev);
	dmamap_obj_for_each(m, object_device_gone, dev);
	dmamap_arm_release_buffers(dev);
	if (dev->archdata.mapping)
		arm_iommu_detach_device(dev);
	else if (dev->dmamap.iommu_domain)
		iommu_detach_device(dev->dmamap.iommu_domain, dev);
	dma_release_declared_memory(dev);
	dmamap_debug_device_release(dev);
	dmamap_of_release(dev);
	dmamap_pm_release(dev);

	pthread_mutex_lock(&m->obj_lock);
	if (dev->dmamap.prev)
		dev->dmamap.prev->dmamap.next = dev->dmamap.next;
	else
		m->devices = dev->dmamap.next;
	if (dev->dmamap.next)
		dev->dmamap.next->dmamap.prev = dev->dmamap.prev;
	pthread_mutex_unlock(&m->obj_lock);

	dev->dmamap.magic = 0;
	dev->dmamap.next = dev->dmamap.prev = NULL;
	dev->dma_mask = NULL;
	dev->dma_parms = NULL;
	dev->archdata.dma_ops = NULL;
}

static void platform_release(struct device *dev)
{
	/*
	 * The driver's unbind first: what it took with devm_/dmam_ goes, newest
	 * first, through the calls the driver would have made (so the checker
	 * sees the driver's own pairs), while every layer is still there.
	 */
	dmamap_devres_release_all(dev);
	platform_teardown(dev);
}

DMAMAP_API void dmamap_device_release(struct device *dev)
{
	if (!dev || dev->dmamap.magic != DM_DEVICE_MAGIC) {
		dmamap_report(NULL, DMAMAP_REPORT_BAD_INPUT, dev ? "(uninitialised device)" : NULL, NULL, 0,
			      "dmamap_device_release: %s", dev ? "device not initialised" : "NULL device");
		return;
	}
	platform_release(dev);
}

/* ------------------------------------------------------- platform devices */

#ifndef EPROBE_DEFER
#define EPROBE_DEFER 517
#endif

/* struct platform_device.dmamap.magic of a device dmamap_platform_device_create() made */
#define DM_PDEV_MAGIC 0x706c6174666f726dUL

/* The ids PLATFORM_DEVID_AUTO hands out, in the process. */
static atomic_int pdev_auto_ids;

static bool pdev_live(const struct platform_device *pdev)
{
	return pdev && pdev->dmamap.magic == DM_PDEV_MAGIC;
}

static bool pdev_check(struct platform_device *pdev, const char *what)
{
	if (pdev_live(pdev))
		return true;
	dmamap_report(NULL, DMAMAP_REPORT_BAD_INPUT, NULL, NULL, 0, "%s: %s", what,
		      pdev ? "not a live platform device" : "NULL platform device");
	return false;
}

static const char *drv_name(const struct platform_driver *drv)
{
	return drv->driver.name ? drv->driver.name : "(unnamed)";
}

static struct platform_device *pdev_create(struct dmamap_machine *m, const char *name, int id,
					   const struct resource *res, unsigned int num, const char *what)
{
	struct platform_device *pdev;
	char devname[DMAMAP_DEV_NAME_MAX];
	size_t len = name ? strlen(name) : 0;
	unsigned int bad_res = num;
	int err;

	for (unsigned int i = 0; res && i < num; i++)
		if (res[i].end < res[i].start && bad_res == num)
			bad_res = i;
	if (!len || len >= PLATFORM_NAME_SIZE || id < PLATFORM_DEVID_AUTO || (num && !res) || bad_res < num) {
		dmamap_report(m, DMAMAP_REPORT_BAD_INPUT, NULL, NULL, 0, "%s: %s", what,
			      !name ? "NULL name" : !len ? "empty name" : len >= PLATFORM_NAME_SIZE ? "name too long"
				      : id < PLATFORM_DEVID_AUTO ? "bad id" : !res ? "NULL resources"
				      : "a resource ends before it starts");
		return ERR_PTR(-EINVAL);
	}
	if (!m)
		m = dmamap_machine_current();
	if (!m)
		return ERR_PTR(-ENOMEM);
	pdev = dmamap_zalloc(m, sizeof(*pdev) + (size_t)num * sizeof(struct resource));
	if (!pdev)
		return ERR_PTR(-ENOMEM);
	if (num) {
		pdev->resource = (struct resource *)(pdev + 1);
		memcpy(pdev->resource, res, (size_t)num * sizeof(*res));
		pdev->num_resources = num;
	}
	memcpy(pdev->dmamap.name, name, len + 1);
	pdev->name = pdev->dmamap.name;
	if (id == PLATFORM_DEVID_AUTO) {
		pdev->id = atomic_fetch_add(&pdev_auto_ids, 1);
		pdev->id_auto = true;
		snprintf(devname, sizeof(devname), "%s.%d.auto", name, pdev->id);
	} else {
		pdev->id = id;
		if (id == PLATFORM_DEVID_NONE)
			snprintf(devname, sizeof(devname), "%s", name);
		else
			snprintf(devname, sizeof(devname), "%s.%d", name, id);
	}
	err = dmamap_iomem_windows_add(m, pdev, devname, what);
	if (err) {
		dmamap_free(pdev);
		return ERR_PTR(err);
	}
	if (dmamap_device_init(&pdev->dev, m, devname)) {
		dmamap_iomem_windows_free(pdev);
		dmamap_free(pdev);
		return ERR_PTR(-ENOMEM);
	}
	pdev->dmamap.magic = DM_PDEV_MAGIC;
	return pdev;
}

DMAMAP_API struct platform_device *dmamap_platform_device_create(struct dmamap_machine *m, const char *name, int id)
{
	return pdev_create(m, name, id, NULL, 0, "dmamap_platform_device_create");
}

DMAMAP_API struct platform_device *dmamap_platform_device_create_res(struct dmamap_machine *m, const char *name,
								     int id, const struct resource *res,
								     unsigned int num)
{
	return pdev_create(m, name, id, res, num, "dmamap_platform_device_create_res");
}

/* ------------------------------------------------------------ resources */

DMAMAP_API struct resource *platform_get_resource(struct platform_device *pdev, unsigned int type, unsigned int num)
{
	if (!pdev_check(pdev, "platform_get_resource"))
		return NULL;
	for (u32 i = 0; i < pdev->num_resources; i++) {
		struct resource *r = &pdev->resource[i];

		if ((r->flags & IORESOURCE_TYPE_BITS) == type && num-- == 0)
			return r;
	}
	return NULL;
}

DMAMAP_API struct resource *platform_get_resource_byname(struct platform_device *pdev, unsigned int type,
							 const char *name)
{
	if (!pdev_check(pdev, "platform_get_resource_byname") || !name)
		return NULL;
	for (u32 i = 0; i < pdev->num_resources; i++) {
		struct resource *r = &pdev->resource[i];

		if ((r->flags & IORESOURCE_TYPE_BITS) == type && r->name && !strcmp(r->name, name))
			return r;
	}
	return NULL;
}

/* The line of @pdev's interrupt resource @r (found by @what), or the kernel's error. */
static int irq_of(struct platform_device *pdev, const struct resource *r, const char *what)
{
	if (!r)
		return -ENXIO;
	if (r->start == 0 || r->start > INT_MAX) {
		dmamap_report(pdev->dev.dmamap.machine, DMAMAP_REPORT_BAD_INPUT, pdev->dev.dmamap.name, NULL, 0,
			      "%s: %llu is an invalid IRQ number", what, (unsigned long long)r->start);
		return -EINVAL;
	}
	return (int)r->start;
}

DMAMAP_API int platform_get_irq_optional(struct platform_device *pdev, unsigned int num)
{
	return irq_of(pdev, platform_get_resource(pdev, IORESOURCE_IRQ, num), "platform_get_irq");
}

DMAMAP_API int platform_get_irq_byname_optional(struct platform_device *pdev, const char *name)
{
	if (!pdev_check(pdev, "platform_get_irq_byname"))
		return -EINVAL;
	return irq_of(pdev, platform_get_resource_byname(pdev, IORESOURCE_IRQ, name), "platform_get_irq_byname");
}

DMAMAP_API int platform_get_irq_byname(struct platform_device *pdev, const char *name)
{
	int ret = platform_get_irq_byname_optional(pdev, name);

	if (ret == -ENXIO)
		dmamap_dev_printk(DMAMAP_LOG_ERR, &pdev->dev, "error -ENXIO: IRQ %s not found\n", name ? name : "(null)");
	return ret;
}

DMAMAP_API int platform_get_irq(struct platform_device *pdev, unsigned int num)
{
	int ret = platform_get_irq_optional(pdev, num);

	if (ret == -ENXIO && pdev_live(pdev))
		dmamap_dev_printk(DMAMAP_LOG_ERR, &pdev->dev, "error -ENXIO: IRQ index %u not found\n", num);
	return ret;
}

DMAMAP_API int platform_irq_count(struct platform_device *pdev)
{
	int n = 0;

	if (!pdev_check(pdev, "platform_irq_count"))
		return 0;
	for (u32 i = 0; i < pdev->num_resources; i++)
		n += (pdev->resource[i].flags & IORESOURCE_TYPE_BITS) == IORESOURCE_IRQ;
	return n;
}

/* ------------------------------------------------------- register windows */

DMAMAP_API void *dmamap_devm_platform_get_and_ioremap_resource_at(struct platform_device *pdev, unsigned int index,
								  struct resource **res, const char *file, int line)
{
	struct resource *r;

	if (res)
		*res = NULL;
	if (!pdev_live(pdev)) {
		dmamap_report(NULL, DMAMAP_REPORT_BAD_INPUT, NULL, file, line, "devm_platform_ioremap_resource: %s",
			      pdev ? "not a live platform device" : "NULL platform device");
		return ERR_PTR(-EINVAL);
	}
	r = platform_get_resource(pdev, IORESOURCE_MEM, index);
	if (res)
		*res = r;
	return dmamap_devm_ioremap_resource_at(&pdev->dev, r, file, line);
}

DMAMAP_API void *dmamap_devm_platform_ioremap_resource_byname_at(struct platform_device *pdev, const char *name,
								 const char *file, int line)
{
	if (!pdev_live(pdev)) {
		dmamap_report(NULL, DMAMAP_REPORT_BAD_INPUT, NULL, file, line,
			      "devm_platform_ioremap_resource_byname: %s",
			      pdev ? "not a live platform device" : "NULL platform device");
		return ERR_PTR(-EINVAL);
	}
	return dmamap_devm_ioremap_resource_at(&pdev->dev, platform_get_resource_byname(pdev, IORESOURCE_MEM, name),
					       file, line);
}

/* The machine of @pdev's reports: its device's, while that is initialised. */
static struct dmamap_machine *pdev_machine(const struct platform_device *pdev)
{
	return dm_dev_live(&pdev->dev) ? dm_dev_machine(&pdev->dev) : NULL;
}

/* The window of @r, one of @pdev's resources (or NULL, reported: @what names the resource asked for). */
static void *regs_of(struct platform_device *pdev, const struct resource *r, const char *call, const char *what)
{
	void *w = r ? dmamap_iomem_window(pdev, (unsigned int)(r - pdev->resource)) : NULL;

	if (!w)
		dmamap_report(pdev_machine(pdev), DMAMAP_REPORT_BAD_INPUT, dev_name(&pdev->dev), NULL, 0,
			      "%s: the device has no memory resource %s, so no register window", call, what);
	return w;
}

DMAMAP_API void *dmamap_platform_regs(struct platform_device *pdev, unsigned int index)
{
	char what[24];

	if (!pdev_check(pdev, "dmamap_platform_regs"))
		return NULL;
	snprintf(what, sizeof(what), "%u", index);
	return regs_of(pdev, platform_get_resource(pdev, IORESOURCE_MEM, index), "dmamap_platform_regs", what);
}

DMAMAP_API void *dmamap_platform_regs_byname(struct platform_device *pdev, const char *name)
{
	char what[64];

	if (!pdev_check(pdev, "dmamap_platform_regs_byname"))
		return NULL;
	snprintf(what, sizeof(what), "named \"%s\"", name ? name : "(null)");
	return regs_of(pdev, name ? platform_get_resource_byname(pdev, IORESOURCE_MEM, name) : NULL,
		       "dmamap_platform_regs_byname", what);
}

/* ---------------------------------------------------------- platform data */

/* Free the copy platform_device_add_data() made of @pdev's platform data, if any. */
static void platdata_free(struct platform_device *pdev)
{
	void *copy = pdev->dmamap.platform_data;

	if (copy && copy != ZERO_SIZE_PTR)
		dmamap_free(copy);
	pdev->dmamap.platform_data = NULL;
}

DMAMAP_API int platform_device_add_data(struct platform_device *pdev, const void *data, size_t size)
{
	void *copy = NULL;

	if (!pdev_check(pdev, "platform_device_add_data"))
		return -EINVAL;
	if (pdev->dmamap.driver) {
		dmamap_report(pdev_machine(pdev), DMAMAP_REPORT_BAD_INPUT, dev_name(&pdev->dev), NULL, 0,
			      "platform_device_add_data: driver %s is bound: the platform data is the board's, given "
			      "before the driver binds", drv_name(pdev->dmamap.driver));
		return -EBUSY;
	}
	if (data && size) {
		copy = dmamap_zalloc(pdev_machine(pdev), size);
		if (!copy)
			return -ENOMEM;
		memcpy(copy, data, size);
	} else if (data) {
		copy = ZERO_SIZE_PTR; /* kmemdup() of 0 bytes, as the kernel's */
	}
	platdata_free(pdev);
	pdev->dmamap.platform_data = copy;
	pdev->dev.platform_data = copy;
	return 0;
}

/* The entry of @drv's id_table named as @pdev, or NULL. */
static const struct platform_device_id *id_match(const struct platform_driver *drv, const struct platform_device *pdev)
{
	for (const struct platform_device_id *e = drv->id_table; e && e->name[0]; e++)
		if (!strcmp(e->name, pdev->name))
			return e;
	return NULL;
}

/* What the driver core does after a failed probe or a remove: managed resources, then the driver's traces. */
static void pdev_unbind_cleanup(struct platform_device *pdev)
{
	dmamap_devres_release_all(&pdev->dev);
	dmamap_clk_unbind(&pdev->dev);
	dmamap_pm_unbound(&pdev->dev);
	dmamap_reset_unbind(&pdev->dev);
	dmamap_firmware_unbind(&pdev->dev);
	dmamap_of_unbind(&pdev->dev);
	pdev->dev.driver_data = NULL;
	pdev->dev.driver = NULL;
	pdev->id_entry = NULL;
	pdev->dmamap.driver = NULL;
}

DMAMAP_API int dmamap_platform_bind(struct platform_device *pdev, struct platform_driver *drv)
{
	struct dmamap_machine *m;
	int ret;

	if (!pdev_check(pdev, "dmamap_platform_bind"))
		return -EINVAL;
	m = pdev->dev.dmamap.machine;
	if (!drv) {
		dmamap_report(m, DMAMAP_REPORT_BAD_INPUT, dev_name(&pdev->dev), NULL, 0,
			      "dmamap_platform_bind: NULL driver");
		return -EINVAL;
	}
	if (pdev->dmamap.driver) {
		dmamap_report(m, DMAMAP_REPORT_BAD_INPUT, dev_name(&pdev->dev), NULL, 0,
			      "dmamap_platform_bind: driver %s is bound already; unbind it first",
			      drv_name(pdev->dmamap.driver));
		return -EBUSY;
	}
	pdev->dmamap.driver = drv;
	pdev->dev.driver = &drv->driver;
	pdev->id_entry = id_match(drv, pdev);
	/* no call context: what the probe calls reports at the probe's lines */
	ret = drv->probe ? drv->probe(pdev) : 0;
	if (!ret) {
		dmamap_pm_probed(&pdev->dev);
		return 0;
	}
	pdev_unbind_cleanup(pdev);
	if (ret == -EPROBE_DEFER)
		dmamap_log(m, DMAMAP_LOG_DEBUG, dev_name(&pdev->dev), "Driver %s requests probe deferral", drv_name(drv));
	else if (ret == -ENODEV || ret == -ENXIO)
		dmamap_log(m, DMAMAP_LOG_DEBUG, dev_name(&pdev->dev), "probe with driver %s rejects match %d", drv_name(drv),
			   ret);
	else
		dmamap_log(m, DMAMAP_LOG_ERR, dev_name(&pdev->dev), "probe with driver %s failed with error %d",
			   drv_name(drv), ret);
	return ret;
}

DMAMAP_API void dmamap_platform_unbind(struct platform_device *pdev)
{
	struct platform_driver *drv;

	if (!pdev_check(pdev, "dmamap_platform_unbind"))
		return;
	drv = pdev->dmamap.driver;
	if (!drv) {
		dmamap_report(pdev->dev.dmamap.machine, DMAMAP_REPORT_BAD_INPUT, dev_name(&pdev->dev), NULL, 0,
			      "dmamap_platform_unbind: no driver is bound");
		return;
	}
	dmamap_pm_unbinding(&pdev->dev);
	if (drv->dmamap_remove_void) {
		drv->dmamap_remove_void(pdev);
	} else if (drv->dmamap_remove_int) {
		int ret = drv->dmamap_remove_int(pdev);

		if (ret)
			dmamap_report(pdev->dev.dmamap.machine, DMAMAP_REPORT_API_MISUSE, dev_name(&pdev->dev), NULL, 0,
				      "driver %s: remove callback returned a non-zero value (%d). This will be ignored.",
				      drv_name(drv), ret);
	}
	pdev_unbind_cleanup(pdev);
}

DMAMAP_API void dmamap_platform_device_destroy(struct platform_device *pdev)
{
	if (!pdev)
		return;
	if (!pdev_check(pdev, "dmamap_platform_device_destroy"))
		return;
	if (pdev->dmamap.driver)
		dmamap_platform_unbind(pdev);
	if (dm_dev_live(&pdev->dev))
		dmamap_device_release(&pdev->dev);
	dmamap_iomem_windows_free(pdev);
	platdata_free(pdev);
	pdev->dmamap.magic = 0;
	dmamap_free(pdev);
}

/* ---------------------------------------------------------------- the bus */

/* At most this many physical pieces per access; longer accesses are done in turns. */
#define BUS_CHUNKS 64

struct bus_piece {
	phys_addr_t phys;
	size_t len;
};

/*
 * Translate the bus range [addr, addr+len) of @dev to physical pieces, all
 * checked before anything is touched: through the IOMMU domain the device
 * is attached to, else one piece at addr + dma_pfn_offset pages. Return the
 * number of pieces (> 0), or -EFAULT after a report. @again: the access's
 * second translation, to move its bytes (what the first reported is not
 * reported twice).
 */
static int bus_to_phys(struct device *dev, dma_addr_t addr, size_t len, bool write, bool again,
		       struct bus_piece *pieces, int max, const char *what)
{
	struct dmamap_machine *m = dev->dmamap.machine;
	u64 mask = dev->dma_mask ? *dev->dma_mask : 0;
	dma_addr_t last = addr + len - 1;
	phys_addr_t p;
	int n = 0;

	if (last < addr || last > mask) {
		dmamap_report(m, DMAMAP_REPORT_DEVICE_FAULT, dev->dmamap.name, NULL, 0,
			      "device %s at bus %#llx+%#zx is beyond its DMA mask %#llx", what, (unsigned long long)addr,
			      len, (unsigned long long)mask);
		return -EFAULT;
	}
	if (dev->dmamap.iommu_domain) {
		while (len) {
			size_t chunk;

			if (n == max)
				return n; /* the caller comes back for the rest */
			if (dmamap_iommu_translate(dev->dmamap.iommu_domain, dev, (unsigned long)addr, write, again, &p, &chunk))
				return -EFAULT;
			chunk = DM_MIN(chunk, len);
			pieces[n].phys = p;
			pieces[n].len = chunk;
			n++;
			addr += chunk;
			len -= chunk;
		}
		return n;
	}
	if (dmamap_declared_bus_to_phys(dev, addr, len, &p)) {
		pieces[0].phys = p;
		pieces[0].len = len;
		return 1;
	}
	p = addr + ((phys_addr_t)dev->dma_pfn_offset << PAGE_SHIFT);
	if (p < addr || !dm_phys_in_ram(m, p, len)) {
		dmamap_report(m, DMAMAP_REPORT_DEVICE_FAULT, dev->dmamap.name, NULL, 0,
			      "device %s at bus %#llx+%#zx (phys %#llx) is not RAM", what, (unsigned long long)addr, len,
			      (unsigned long long)p);
		return -EFAULT;
	}
	pieces[0].phys = p;
	pieces[0].len = len;
	return 1;
}

static int bus_check(struct device *dev, const void *buf, size_t len, const char *what)
{
	if (!dev || dev->dmamap.magic != DM_DEVICE_MAGIC || !buf || !len) {
		dmamap_report(dev && dev->dmamap.magic == DM_DEVICE_MAGIC ? dev->dmamap.machine : NULL,
			      DMAMAP_REPORT_BAD_INPUT, dev ? dev_name(dev) : NULL, NULL, 0, "%s: %s", what,
			      !dev ? "NULL device" : dev->dmamap.magic != DM_DEVICE_MAGIC ? "device not initialised"
						   : !buf ? "NULL buffer" : "zero length");
		return -EINVAL;
	}
	return 0;
}

static bool snoops(const struct device *dev)
{
	return dev->dmamap.machine->cfg.coherent || dev->dma_coherent;
}

enum bus_op { BUS_READ, BUS_WRITE, BUS_FILL };

/*
 * One device access. Every piece is translated and checked first, so a
 * faulting access touches nothing; an access longer than BUS_CHUNKS pieces
 * is checked whole before the first byte moves, then done piece by piece.
 */
static int bus_access(struct device *dev, dma_addr_t addr, void *buf, int c, size_t len, enum bus_op op,
		      const char *file, int line)
{
	DM_CALL();
	static const char *const names[] = { "dmamap_dev_read", "dmamap_dev_write", "dmamap_dev_fill" };
	struct bus_piece pieces[BUS_CHUNKS];
	struct dmamap_machine *m;
	dma_addr_t a;
	size_t left, done;
	int err = bus_check(dev, op == BUS_FILL ? (void *)&c : buf, len, names[op]);
	int n;

	if (err)
		return err;
	m = dev->dmamap.machine;
	dmamap_cache_speculate(m);
	/* first pass: translate everything */
	for (a = addr, left = len; left;) {
		n = bus_to_phys(dev, a, left, op != BUS_READ, false, pieces, BUS_CHUNKS, op == BUS_READ ? "read" : "write");
		if (n < 0)
			return n;
		for (int i = 0; i < n; i++) {
			a += pieces[i].len;
			left -= pieces[i].len;
		}
	}
	/* what the hardware may do, the driver may not have allowed: say so, then do it */
	if (dmamap_debug_on(m))
		dmamap_debug_dev_access(dev, addr, len, op != BUS_READ);
	/* second pass: move the bytes */
	for (a = addr, left = len, done = 0; left;) {
		n = bus_to_phys(dev, a, left, op != BUS_READ, true, pieces, BUS_CHUNKS, op == BUS_READ ? "read" : "write");
		if (n < 0)
			return n; /* only if the mapping changed under us */
		for (int i = 0; i < n; i++) {
			if (op == BUS_READ)
				dmamap_mem_dev_read(m, pieces[i].phys, (u8 *)buf + done, pieces[i].len, snoops(dev));
			else if (op == BUS_WRITE)
				dmamap_mem_dev_write(m, pieces[i].phys, (const u8 *)buf + done, pieces[i].len, snoops(dev));
			else
				dmamap_mem_dev_fill(m, pieces[i].phys, c, pieces[i].len, snoops(dev));
			a += pieces[i].len;
			left -= pieces[i].len;
			done += pieces[i].len;
		}
	}
	if (op != BUS_READ && dmamap_debug_on(m))
		dmamap_debug_dev_wrote(dev, addr, op == BUS_WRITE ? buf : NULL, c, len);
	return 0;
}

DMAMAP_API int dmamap_dev_read_loc(struct device *dev, dma_addr_t addr, void *dst, size_t len, const char *file,
				   int line)
{
	return bus_access(dev, addr, dst, 0, len, BUS_READ, file, line);
}

DMAMAP_API int dmamap_dev_write_loc(struct device *dev, dma_addr_t addr, const void *src, size_t len, const char *file,
				    int line)
{
	return bus_access(dev, addr, (void *)src, 0, len, BUS_WRITE, file, line);
}

DMAMAP_API int dmamap_dev_fill_loc(struct device *dev, dma_addr_t addr, int c, size_t len, const char *file, int line)
{
	return bus_access(dev, addr, NULL, c, len, BUS_FILL, file, line);
}

DMAMAP_API int (dmamap_dev_read)(struct device *dev, dma_addr_t addr, void *dst, size_t len)
{
	return bus_access(dev, addr, dst, 0, len, BUS_READ, NULL, 0);
}

DMAMAP_API int (dmamap_dev_write)(struct device *dev, dma_addr_t addr, const void *src, size_t len)
{
	return bus_access(dev, addr, (void *)src, 0, len, BUS_WRITE, NULL, 0);
}

DMAMAP_API int (dmamap_dev_fill)(struct device *dev, dma_addr_t addr, int c, size_t len)
{
	return bus_access(dev, addr, NULL, c, len, BUS_FILL, NULL, 0);
}
