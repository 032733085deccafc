/* SPDX-License-Identifier: MIT */
/*
 * <linux/platform_device.h> of Linux 6.x over libdmamap, minimal: struct
 * platform_device (the library's struct device embedded as .dev), struct
 * platform_driver with probe() and both removes of 6.x (see
 * <dmamap/platform.h>: from 6.11 .remove returns void and .remove_new is
 * another name for it; a driver file for an earlier kernel, whose .remove
 * returns int, defines DMAMAP_PLATFORM_REMOVE_RETURNS_INT before its first
 * include), platform_get_drvdata(), platform_set_drvdata(),
 * to_platform_device(), platform_get_device_id(), and the registration
 * boilerplate, which compiles: platform_driver_register() and
 * platform_driver_unregister() do nothing (there is no bus to match on),
 * and module_platform_driver() defines the init and exit functions that
 * call them.
 *
 * A test creates the device and binds the driver itself:
 *
 *	pdev = dmamap_platform_device_create(m, "toy", 0);
 *	ret = dmamap_platform_bind(pdev, &toy_driver);     (probe)
 *	...
 *	dmamap_platform_device_destroy(pdev);               (remove, devres, release)
 *
 * A test gives the device its resources at creation, with the
 * initialisers of <linux/ioport.h>, which this header brings as the
 * kernel's does:
 *
 *	static const struct resource res[] = { DEFINE_RES_MEM(0x10000000, 0x100), DEFINE_RES_IRQ(17) };
 *	pdev = dmamap_platform_device_create_res(m, "toy", 0, res, ARRAY_SIZE(res));
 *
 * and the driver finds them with platform_get_resource(),
 * platform_get_resource_byname(), platform_get_irq(),
 * platform_get_irq_optional() and platform_irq_count() (<dmamap/platform.h>).
 * An interrupt resource names a line of the device's machine, which
 * devm_request_irq() takes (<linux/interrupt.h>). A memory resource is a
 * register window (<dmamap/iomem.h>): host memory of its size, zeroed, the
 * device's, which the driver maps with devm_platform_ioremap_resource(),
 * devm_platform_get_and_ioremap_resource() or
 * devm_platform_ioremap_resource_byname() (released at unbind) and reads
 * with readl() and its siblings (<linux/io.h>); the test plays the
 * hardware on the same bytes:
 *
 *	u32 *regs = dmamap_platform_regs(pdev, 0);        (the window of the first memory resource)
 *	regs[STATUS / 4] = cpu_to_le32(DONE);
 *	dmamap_irq_raise(m, 17);                          (the handler readl()s STATUS)
 *
 * Platform data: the test gives it before binding, as a copy,
 * platform_device_add_data(pdev, &pdata, sizeof(pdata)), and the driver
 * reads it with dev_get_platdata(&pdev->dev).
 *
 * A device-tree node: the test gives it before binding too, with
 * dmamap_device_set_of_node(&pdev->dev, "name@addr", props)
 * (<dmamap/of.h>); the driver reads it with the <linux/property.h> and
 * <linux/of.h> readers, and of_device_get_match_data() or
 * device_get_match_data() give the data of its of_match_table entry
 * that matches the node's "compatible".
 *
 * Not provided: the device registration calls.
 */
#ifndef _LINUX_PLATFORM_DEVICE_H
#define _LINUX_PLATFORM_DEVICE_H

#include <dmamap/linux-api.h>
#include <linux/device.h>
#include <linux/init.h>
#include <linux/ioport.h>
#include <linux/mod_devicetable.h>
#include <dmamap/platform.h>

DMAMAP_BEGIN_DECLS

/* to_platform_device() - the platform device whose .dev is @x. */
#define to_platform_device(x) container_of((x), struct platform_device, dev)

/** platform_get_drvdata() - the driver's pointer platform_set_drvdata() attached to @pdev, or NULL. */
static inline void *platform_get_drvdata(const struct platform_device *pdev)
{
	return dev_get_drvdata(&pdev->dev);
}

/** platform_set_drvdata() - attach the driver's private pointer @data to @pdev (not owned by the library). */
static inline void platform_set_drvdata(struct platform_device *pdev, void *data)
{
	dev_set_drvdata(&pdev->dev, data);
}

/** platform_get_device_id() - the entry of the bound driver's id_table that matched @pdev's name, or NULL. */
static inline const struct platform_device_id *platform_get_device_id(const struct platform_device *pdev)
{
	return pdev->id_entry;
}

/**
 * devm_platform_get_and_ioremap_resource() - map @pdev's @index-th memory resource, giving the resource in *@res
 * @pdev: the device
 * @index: the index among its IORESOURCE_MEM resources
 * @res: receives the resource (NULL when there is none), or NULL
 *
 * See dmamap_devm_platform_get_and_ioremap_resource_at(): the CPU address
 * of the window, released when the driver unbinds, or an ERR_PTR()
 * (-EINVAL for no such resource, -EBUSY, -ENOMEM).
 */
static inline void __iomem *devm_platform_get_and_ioremap_resource(struct platform_device *pdev, unsigned int index,
								   struct resource **res)
{
	return dmamap_devm_platform_get_and_ioremap_resource_at(pdev, index, res, NULL, 0);
}

/** devm_platform_ioremap_resource() - devm_platform_get_and_ioremap_resource() without the resource. */
static inline void __iomem *devm_platform_ioremap_resource(struct platform_device *pdev, unsigned int index)
{
	return dmamap_devm_platform_get_and_ioremap_resource_at(pdev, index, NULL, NULL, 0);
}

/** devm_platform_ioremap_resource_wc() - devm_platform_ioremap_resource() with write combining: the same window here. */
static inline void __iomem *devm_platform_ioremap_resource_wc(struct platform_device *pdev, unsigned int index)
{
	return dmamap_devm_platform_get_and_ioremap_resource_at(pdev, index, NULL, NULL, 0);
}

/** devm_platform_ioremap_resource_byname() - map @pdev's memory resource named @name (see dmamap_devm_platform_ioremap_resource_byname_at()). */
static inline void __iomem *devm_platform_ioremap_resource_byname(struct platform_device *pdev, const char *name)
{
	return dmamap_devm_platform_ioremap_resource_byname_at(pdev, name, NULL, 0);
}

#define devm_platform_get_and_ioremap_resource(pdev, index, res) \
	dmamap_devm_platform_get_and_ioremap_resource_at((pdev), (index), (res), __FILE__, __LINE__)
#define devm_platform_ioremap_resource(pdev, index) \
	dmamap_devm_platform_get_and_ioremap_resource_at((pdev), (index), NULL, __FILE__, __LINE__)
#define devm_platform_ioremap_resource_wc(pdev, index) \
	dmamap_devm_platform_get_and_ioremap_resource_at((pdev), (index), NULL, __FILE__, __LINE__)
#define devm_platform_ioremap_resource_byname(pdev, name) \
	dmamap_devm_platform_ioremap_resource_byname_at((pdev), (name), __FILE__, __LINE__)

/** platform_driver_register() - register @drv with the bus: nothing to do, no bus matches here; 0. */
static inline int platform_driver_register(struct platform_driver *drv)
{
	(void)drv;
	return 0;
}

/** platform_driver_unregister() - the counterpart of platform_driver_register(): nothing to do. */
static inline void platform_driver_unregister(struct platform_driver *drv)
{
	(void)drv;
}

/*
 * module_platform_driver(@drv) - the init and exit functions of a module
 * that only registers the platform driver @drv, with module_init() and
 * module_exit(); builtin_platform_driver(@drv) - the init function alone.
 * They compile; the test binds @drv itself (dmamap_platform_bind()).
 */
#define module_platform_driver(drv)                                  \
	static int __init DMAMAP_PASTE(drv, _dmamap_init)(void)      \
	{                                                            \
		return platform_driver_register(&(drv));             \
	}                                                            \
	module_init(DMAMAP_PASTE(drv, _dmamap_init));                \
	static void __exit DMAMAP_PASTE(drv, _dmamap_exit)(void)     \
	{                                                            \
		platform_driver_unregister(&(drv));                  \
	}                                                            \
	module_exit(DMAMAP_PASTE(drv, _dmamap_exit))
#define builtin_platform_driver(drv)                                 \
	static int __init DMAMAP_PASTE(drv, _dmamap_init)(void)      \
	{                                                            \
		return platform_driver_register(&(drv));             \
	}                                                            \
	device_initcall(DMAMAP_PASTE(drv, _dmamap_init))

DMAMAP_END_DECLS

#endif /* _LINUX_PLATFORM_DEVICE_H */
