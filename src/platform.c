/* SPDX-License-Identifier: MIT */
/*
 * The platform: device life cycle (it knows every layer) and the bus side,
 * where the simulated device touches memory as the hardware would.
 */
#include <stdio.h>

#include "internal.h"

static void platform_release(struct device *dev);

/* Machine-wide state of the layers above the machine, torn down at destroy. */
static void platform_machine_teardown(struct dmamap_machine *m)
{
	dmamap_coherent_machine_fini(m);
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
	if (dmamap_coherent_machine_init(m))
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

static void platform_release(struct device *dev)
{
	struct dmamap_machine *m = dev->dmamap.machine;

	dma_release_declared_memory(dev);

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

DMAMAP_API void dmamap_device_release(struct device *dev)
{
	if (!dev || dev->dmamap.magic != DM_DEVICE_MAGIC) {
		dmamap_report(NULL, DMAMAP_REPORT_BAD_INPUT, dev ? "(uninitialised device)" : NULL, NULL, 0,
			      "dmamap_device_release: %s", dev ? "device not initialised" : "NULL device");
		return;
	}
	platform_release(dev);
}

/* ---------------------------------------------------------------- the bus */

/*
 * Translate the bus range [addr, addr+len) of @dev to physical chunks and
 * check them all before anything is touched. Without an IOMMU the range is
 * one chunk at addr + dma_pfn_offset pages.
 */
static int bus_to_phys(struct device *dev, dma_addr_t addr, size_t len, bool write, phys_addr_t *phys,
		       const char *what)
{
	struct dmamap_machine *m = dev->dmamap.machine;
	u64 mask = dev->dma_mask ? *dev->dma_mask : 0;
	dma_addr_t last = addr + len - 1;
	phys_addr_t p;

	(void)write;
	if (last < addr || last > mask) {
		dmamap_report(m, DMAMAP_REPORT_DEVICE_FAULT, dev->dmamap.name, NULL, 0,
			      "device %s at bus %#llx+%#zx is beyond its DMA mask %#llx", what, (unsigned long long)addr,
			      len, (unsigned long long)mask);
		return -EFAULT;
	}
	p = addr + ((phys_addr_t)dev->dma_pfn_offset << PAGE_SHIFT);
	if (p < addr || !dm_phys_in_ram(m, p, len)) {
		dmamap_report(m, DMAMAP_REPORT_DEVICE_FAULT, dev->dmamap.name, NULL, 0,
			      "device %s at bus %#llx+%#zx (phys %#llx) is not RAM", what, (unsigned long long)addr, len,
			      (unsigned long long)p);
		return -EFAULT;
	}
	*phys = p;
	return 0;
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

DMAMAP_API int dmamap_dev_read(struct device *dev, dma_addr_t addr, void *dst, size_t len)
{
	phys_addr_t p;
	int err = bus_check(dev, dst, len, "dmamap_dev_read");

	if (err)
		return err;
	dmamap_cache_speculate(dev->dmamap.machine);
	err = bus_to_phys(dev, addr, len, false, &p, "read");
	if (err)
		return err;
	dmamap_mem_dev_read(dev->dmamap.machine, p, dst, len, snoops(dev));
	return 0;
}

DMAMAP_API int dmamap_dev_write(struct device *dev, dma_addr_t addr, const void *src, size_t len)
{
	phys_addr_t p;
	int err = bus_check(dev, src, len, "dmamap_dev_write");

	if (err)
		return err;
	dmamap_cache_speculate(dev->dmamap.machine);
	err = bus_to_phys(dev, addr, len, true, &p, "write");
	if (err)
		return err;
	dmamap_mem_dev_write(dev->dmamap.machine, p, src, len, snoops(dev));
	return 0;
}

DMAMAP_API int dmamap_dev_fill(struct device *dev, dma_addr_t addr, int c, size_t len)
{
	phys_addr_t p;
	int err = bus_check(dev, &c, len, "dmamap_dev_fill");

	if (err)
		return err;
	dmamap_cache_speculate(dev->dmamap.machine);
	err = bus_to_phys(dev, addr, len, true, &p, "write");
	if (err)
		return err;
	dmamap_mem_dev_fill(dev->dmamap.machine, p, c, len, snoops(dev));
	return 0;
}
