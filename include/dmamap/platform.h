/* SPDX-License-Identifier: MIT */
/*
 * Platform devices and drivers: what <linux/platform_device.h> of the Linux
 * 6.x headers is made of, and the calls a test binds a driver with.
 *
 * A platform device (struct platform_device) embeds the library's struct
 * device as .dev: dmamap_platform_device_create() makes one on a machine and
 * initialises .dev as dmamap_device_init() does. No bus matches drivers to
 * devices: the test binds the driver it tests with dmamap_platform_bind(),
 * which calls its probe() as the kernel's driver core does, and unbinds it
 * with dmamap_platform_unbind(): remove(), then the managed resources the
 * driver took (devm_*(), dmam_*()) are released newest first, then the
 * driver data is cleared, in the kernel's order. A probe that fails is
 * unwound the same way (its managed resources released) and logged with
 * the kernel's message; the device stays, unbound. dmamap_platform_device_destroy()
 * unbinds a bound driver, releases the device (reporting what the driver
 * left, as dmamap_device_release() does) and frees it.
 *
 * struct platform_driver has both removes of Linux 6.x: from 6.11,
 * .remove returns void, and .remove_new (6.3 to 6.12) is another name for it;
 * before 6.11, .remove returned int and .remove_new was a separate member.
 * A file of a driver written for a kernel before 6.11 defines
 * DMAMAP_PLATFORM_REMOVE_RETURNS_INT before its first include to get that
 * layout; both layouts are the same in memory, so either may be bound.
 *
 * A platform device may be given resources at its creation
 * (dmamap_platform_device_create_res()): memory windows and interrupt lines,
 * as a board file or the device tree gives them, which the driver finds
 * with platform_get_resource() and platform_get_irq(). An IORESOURCE_IRQ
 * resource names a line of the device's machine (<dmamap/irq.h>). Each
 * IORESOURCE_MEM resource gets a register window (<dmamap/iomem.h>): host
 * memory of its size, zeroed, the device's, which the driver maps with
 * devm_platform_ioremap_resource() and its siblings and the test reaches
 * with dmamap_platform_regs() to play the hardware. A test gives the
 * driver its platform data with platform_device_add_data() before it binds
 * it (dev_get_platdata() reads it).
 *
 * Calls on one platform device are not to be made concurrently (the kernel
 * holds the device lock around probe and remove).
 */
#ifndef DMAMAP_PLATFORM_H
#define DMAMAP_PLATFORM_H

#include <dmamap/types.h>
#include <dmamap/device.h>
#include <dmamap/iomem.h>

DMAMAP_BEGIN_DECLS

struct module;
struct dev_pm_ops;

#ifndef DMAMAP_HAVE_KERNEL_ULONG_T
#define DMAMAP_HAVE_KERNEL_ULONG_T 1
typedef unsigned long kernel_ulong_t;
#endif

/* <linux/mod_devicetable.h>: the ID tables drivers list the devices they handle in. */
#define PLATFORM_NAME_SIZE 20
struct platform_device_id {
	char name[PLATFORM_NAME_SIZE];
	kernel_ulong_t driver_data;
};

struct of_device_id {
	char name[32];
	char type[32];
	char compatible[128];
	const void *data;
};

/* <linux/ioport.h>: a resource of a device, [start, end] inclusive, of the type its flags say. */
#ifndef DMAMAP_HAVE_STRUCT_RESOURCE
#define DMAMAP_HAVE_STRUCT_RESOURCE 1
typedef phys_addr_t resource_size_t;
struct resource {
	resource_size_t start;
	resource_size_t end;
	const char *name;
	unsigned long flags;
	unsigned long desc;
};
#endif

/* The types of resource (the kernel's values), in IORESOURCE_TYPE_BITS of its flags. */
#define IORESOURCE_TYPE_BITS 0x00001f00ul
#define IORESOURCE_IO 0x00000100ul
#define IORESOURCE_MEM 0x00000200ul
#define IORESOURCE_REG 0x00000300ul
#define IORESOURCE_IRQ 0x00000400ul
#define IORESOURCE_DMA 0x00000800ul
#define IORESOURCE_BUS 0x00001000ul
/* A flag of a requested region (request_mem_region(), <linux/ioport.h>). */
#define IORESOURCE_BUSY 0x80000000ul

/* A platform device's id: none (the device's name is its base name alone), or one the bus picks. */
#define PLATFORM_DEVID_NONE (-1)
#define PLATFORM_DEVID_AUTO (-2)

/*
 * What a driver tells the driver core about itself: its name for messages,
 * its of_match_table (<dmamap/of.h>), and its PM callbacks (.pm = &foo_pm_ops,
 * or pm_ptr(&foo_pm_ops); <dmamap/pm.h>). The others are not read.
 */
struct device_driver {
	const char *name;
	struct module *owner;
	const struct of_device_id *of_match_table;
	const void *acpi_match_table;
	const struct dev_pm_ops *pm;
	bool suppress_bind_attrs;
	int probe_type;
};

struct platform_device {
	const char *name;  /* the base name given at creation */
	int id;            /* the id given, or the one picked for PLATFORM_DEVID_AUTO */
	bool id_auto;
	struct device dev;
	u32 num_resources;           /* the resources given at creation */
	struct resource *resource;   /* the library's copy of them, NULL when none */
	const struct platform_device_id *id_entry; /* the bound driver's id_table entry of this name, or NULL */
	/* library-private */
	struct {
		struct platform_driver *driver; /* bound driver, or NULL */
		char name[PLATFORM_NAME_SIZE];
		unsigned long magic;
		void *windows;       /* the register windows of its memory resources (<dmamap/iomem.h>) */
		void *platform_data; /* the copy platform_device_add_data() made, or NULL */
	} dmamap;
};

struct platform_driver {
	int (*probe)(struct platform_device *pdev);
#ifdef DMAMAP_PLATFORM_REMOVE_RETURNS_INT
	union {
		int (*remove)(struct platform_device *pdev);
		int (*dmamap_remove_int)(struct platform_device *pdev);
	};
	union {
		void (*remove_new)(struct platform_device *pdev);
		void (*dmamap_remove_void)(struct platform_device *pdev);
	};
#else
	int (*dmamap_remove_int)(struct platform_device *pdev); /* the int-returning .remove before 6.11 */
	union {
		void (*remove)(struct platform_device *pdev);
		void (*remove_new)(struct platform_device *pdev);
		void (*dmamap_remove_void)(struct platform_device *pdev);
	};
#endif
	void (*shutdown)(struct platform_device *pdev);
	struct device_driver driver;
	const struct platform_device_id *id_table;
	bool prevent_deferred_probe;
	bool driver_managed_dma;
};

/**
 * dmamap_platform_device_create() - a new platform device on machine @m, no driver bound
 * @m: the machine, or NULL for the current machine
 * @name: the device's base name (copied; at most 19 bytes, as the kernel's
 *        PLATFORM_NAME_SIZE), matched against a driver's id_table at bind
 * @id: the device's id: >= 0, PLATFORM_DEVID_NONE or PLATFORM_DEVID_AUTO
 *
 * The device is named as the kernel names it: "name.id", "name" for
 * PLATFORM_DEVID_NONE, "name.N.auto" for PLATFORM_DEVID_AUTO (N counted
 * from 0 in the process). Its .dev is initialised as dmamap_device_init()
 * does (32-bit masks, the default DMA ops). The device is the library's:
 * free it with dmamap_platform_device_destroy().
 * Return: the device; ERR_PTR(-EINVAL) for a NULL, empty or too long @name
 * or an @id below PLATFORM_DEVID_AUTO (reported as DMAMAP_REPORT_BAD_INPUT),
 * ERR_PTR(-ENOMEM) when memory or a machine cannot be had
 * (DMAMAP_FAULT_HOST_ALLOC).
 */
DMAMAP_API struct platform_device *dmamap_platform_device_create(struct dmamap_machine *m, const char *name, int id);

/**
 * dmamap_platform_device_create_res() - a new platform device on machine @m, with resources
 * @m: the machine, or NULL for the current machine
 * @name: the device's base name, as dmamap_platform_device_create() takes it
 * @id: the device's id, as dmamap_platform_device_create() takes it
 * @res: @num resources (DEFINE_RES_MEM(), DEFINE_RES_IRQ()...), copied into
 *       the device (their names are not copied: they must outlive it);
 *       NULL when @num is 0
 * @num: how many
 *
 * What dmamap_platform_device_create() does, with pdev->resource and
 * pdev->num_resources set to the copy, for the driver's
 * platform_get_resource() and platform_get_irq(). Each IORESOURCE_MEM
 * resource gets its register window (<dmamap/iomem.h>), zeroed, found
 * with dmamap_platform_regs(). The copy and the windows go with the
 * device.
 * Return: the device; ERR_PTR(-EINVAL) for what
 * dmamap_platform_device_create() refuses, a NULL @res with a non-zero
 * @num, or a resource whose end is below its start (a size of 0; each
 * reported as DMAMAP_REPORT_BAD_INPUT); ERR_PTR(-EBUSY) when a memory
 * resource overlaps another of @res or a window of another platform
 * device of the machine (reported as DMAMAP_REPORT_BAD_INPUT, "failed to
 * claim resource", as the kernel's platform_device_add() refuses it; the
 * kernel would nest a resource wholly inside another, here each window is
 * memory of its own); ERR_PTR(-ENOMEM) when memory (a window's included)
 * cannot be had.
 */
DMAMAP_API struct platform_device *dmamap_platform_device_create_res(struct dmamap_machine *m, const char *name,
								     int id, const struct resource *res,
								     unsigned int num);

/**
 * platform_get_resource() - the @num-th resource of @type of @pdev
 * @pdev: the device
 * @type: IORESOURCE_MEM, IORESOURCE_IRQ... (matched against the type bits)
 * @num: its index among the resources of that type, from 0
 *
 * Return: a pointer into the device's resources (valid as long as it
 * lives), or NULL when there is no such resource.
 */
DMAMAP_API struct resource *platform_get_resource(struct platform_device *pdev, unsigned int type,
						  unsigned int num);

/**
 * platform_get_resource_byname() - the resource of @type of @pdev named @name
 * @pdev: the device
 * @type: IORESOURCE_MEM, IORESOURCE_IRQ...
 * @name: the name given at creation (DEFINE_RES_MEM_NAMED()...)
 *
 * Return: a pointer into the device's resources, or NULL when none matches.
 */
DMAMAP_API struct resource *platform_get_resource_byname(struct platform_device *pdev, unsigned int type,
							 const char *name);

/**
 * platform_get_irq_optional() - the interrupt line of the @num-th IORESOURCE_IRQ resource of @pdev, quietly
 * @pdev: the device
 * @num: its index among the interrupt resources, from 0
 *
 * Return: the line (> 0); -ENXIO when there is no such resource (nothing
 * logged); -EINVAL for a resource naming line 0, which the kernel refuses
 * (reported as DMAMAP_REPORT_BAD_INPUT).
 */
DMAMAP_API int platform_get_irq_optional(struct platform_device *pdev, unsigned int num);

/**
 * platform_get_irq() - platform_get_irq_optional(), saying when the line is missing
 * @pdev: the device
 * @num: its index among the interrupt resources, from 0
 *
 * A missing line is logged on the device at DMAMAP_LOG_ERR, as the
 * kernel logs it ("error -ENXIO: IRQ index N not found").
 * Return: what platform_get_irq_optional() returns.
 */
DMAMAP_API int platform_get_irq(struct platform_device *pdev, unsigned int num);

/**
 * platform_get_irq_byname_optional() - the interrupt line of @pdev's IORESOURCE_IRQ resource named @name, quietly
 * @pdev: the device
 * @name: the name given at creation (DEFINE_RES_IRQ_NAMED())
 *
 * Return: the line (> 0); -ENXIO when no interrupt resource has that name,
 * or @name is NULL (nothing logged); -EINVAL for a resource naming line 0
 * (reported as DMAMAP_REPORT_BAD_INPUT), or for a NULL or uninitialised
 * @pdev (DMAMAP_REPORT_BAD_INPUT).
 */
DMAMAP_API int platform_get_irq_byname_optional(struct platform_device *pdev, const char *name);

/**
 * platform_get_irq_byname() - platform_get_irq_byname_optional(), saying when the line is missing
 * @pdev: the device
 * @name: the name given at creation
 *
 * A missing line is logged on the device at DMAMAP_LOG_ERR, as the
 * kernel logs it ("error -ENXIO: IRQ NAME not found").
 * Return: what platform_get_irq_byname_optional() returns.
 */
DMAMAP_API int platform_get_irq_byname(struct platform_device *pdev, const char *name);

/**
 * platform_irq_count() - how many IORESOURCE_IRQ resources @pdev has
 * @pdev: the device
 *
 * Return: the count (0 when none).
 */
DMAMAP_API int platform_irq_count(struct platform_device *pdev);

/**
 * dmamap_devm_platform_get_and_ioremap_resource_at() - map @pdev's @index-th memory resource: devm_platform_get_and_ioremap_resource()
 * @pdev: the device
 * @index: the index among its IORESOURCE_MEM resources, from 0
 * @res: receives the resource (NULL when there is none), or NULL
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 *
 * platform_get_resource(@pdev, IORESOURCE_MEM, @index), then
 * dmamap_devm_ioremap_resource_at() of what it found, NULL included, on
 * @pdev's device: the region requested and the window mapped, both
 * released when the driver unbinds. devm_platform_ioremap_resource() is
 * this with a NULL @res.
 * Return: the window's CPU address; what dmamap_devm_ioremap_resource_at()
 * returns: ERR_PTR(-EINVAL) when there is no such resource (logged
 * "invalid resource (null)", as the kernel's), ERR_PTR(-EBUSY) when it is
 * requested already (by an earlier mapping of the same driver, say),
 * ERR_PTR(-ENOMEM); ERR_PTR(-EINVAL) for a @pdev that is no live platform
 * device (reported as DMAMAP_REPORT_BAD_INPUT).
 */
DMAMAP_API void *dmamap_devm_platform_get_and_ioremap_resource_at(struct platform_device *pdev, unsigned int index,
								  struct resource **res, const char *file, int line);

/**
 * dmamap_devm_platform_ioremap_resource_byname_at() - map @pdev's memory resource named @name: devm_platform_ioremap_resource_byname()
 * @pdev: the device
 * @name: the resource's name (DEFINE_RES_MEM_NAMED())
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 *
 * platform_get_resource_byname(@pdev, IORESOURCE_MEM, @name), then
 * dmamap_devm_ioremap_resource_at() of what it found.
 * Return: as dmamap_devm_platform_get_and_ioremap_resource_at():
 * ERR_PTR(-EINVAL) when no memory resource has that name (a NULL @name
 * included).
 */
DMAMAP_API void *dmamap_devm_platform_ioremap_resource_byname_at(struct platform_device *pdev, const char *name,
								 const char *file, int line);

/**
 * dmamap_platform_regs() - the register window of @pdev's @index-th memory resource, for the test to play the hardware
 * @pdev: the device
 * @index: the index among its IORESOURCE_MEM resources, from 0, as
 *         platform_get_resource() and devm_platform_ioremap_resource() count
 *
 * The bytes the driver's mapping of the resource reaches, whether it is
 * mapped or not (a test may set identification registers before the
 * probe): as many as the resource's size, zeroed at the device's creation,
 * little-endian registers as readl() reads them. The memory is the
 * device's: valid until dmamap_platform_device_destroy().
 * Return: the window; NULL (reported as DMAMAP_REPORT_BAD_INPUT) when
 * @pdev has no such resource or is no live platform device.
 */
DMAMAP_API void *dmamap_platform_regs(struct platform_device *pdev, unsigned int index);

/**
 * dmamap_platform_regs_byname() - the register window of @pdev's memory resource named @name
 * @pdev: the device
 * @name: the resource's name, as platform_get_resource_byname() matches it
 *
 * Return: as dmamap_platform_regs(); NULL (reported) when no memory
 * resource of @pdev has that name.
 */
DMAMAP_API void *dmamap_platform_regs_byname(struct platform_device *pdev, const char *name);

/**
 * platform_device_add_data() - give @pdev a copy of @size bytes at @data as its platform data
 * @pdev: the device, no driver bound
 * @data: the board's data (the test's, copied: it need not live on), or
 *        NULL to take the platform data away
 * @size: bytes of @data; 0 gives ZERO_SIZE_PTR, as the kernel's kmemdup()
 *
 * Sets pdev->dev.platform_data, which the driver reads with
 * dev_get_platdata(), to the copy, and frees the copy an earlier call
 * made. The copy is the library's (host memory, in no statistics of the
 * machine), freed with the device. As in the kernel, the board gives it
 * before the driver binds.
 * Return: 0; -ENOMEM when the copy cannot be had (nothing changed); -EINVAL
 * for a @pdev that is no live platform device, -EBUSY while a driver is
 * bound (each reported as DMAMAP_REPORT_BAD_INPUT, nothing changed).
 */
DMAMAP_API int platform_device_add_data(struct platform_device *pdev, const void *data, size_t size);

/**
 * dmamap_platform_bind() - bind @drv to @pdev: call its probe(), as the driver core does
 * @pdev: a device dmamap_platform_device_create() made, no driver bound
 * @drv: the driver (the caller's; it must outlive the binding); a NULL
 *       probe binds without a call, as in the kernel
 *
 * Before the probe, pdev->id_entry is set to @drv's id_table entry named as
 * @pdev (NULL when none is, or there is no table). The probe runs in the
 * calling thread; what it calls reports at its own lines. When it fails,
 * the managed resources it took are released newest first, the driver data
 * is cleared, @drv is not bound, and the failure is logged as the kernel
 * logs it, a plain message on @pdev: "probe with driver NAME failed with
 * error E" at DMAMAP_LOG_ERR; for -ENODEV and -ENXIO ("rejects match") and
 * -EPROBE_DEFER ("requests probe deferral") at DMAMAP_LOG_DEBUG. The
 * runtime PM of the device is the driver core's as in the kernel
 * (<dmamap/pm.h>): after a probe that succeeded, an idle check (the
 * driver's runtime_idle, then runtime_suspend for a device it left idle);
 * after one that failed, what it left of runtime PM is reported and undone.
 * Return: 0 once bound, or the probe's error; -EINVAL for a NULL @drv or a
 * @pdev that is no live platform device, -EBUSY when a driver is bound
 * already (each reported as DMAMAP_REPORT_BAD_INPUT, nothing called).
 */
DMAMAP_API int dmamap_platform_bind(struct platform_device *pdev, struct platform_driver *drv);

/**
 * dmamap_platform_unbind() - unbind the driver of @pdev: remove(), then its managed resources
 * @pdev: a device with a driver bound
 *
 * Calls the driver's remove (the void one, or the int-returning one of
 * kernels before 6.11, whose non-zero return is reported as
 * DMAMAP_REPORT_API_MISUSE and ignored, as the kernel warns and ignores
 * it), then releases the managed resources of .dev newest first, then
 * clears the driver data and pdev->id_entry. Around that, runtime PM as the
 * kernel's driver core does it (<dmamap/pm.h>): before remove,
 * pm_runtime_get_sync() then pm_runtime_put_sync(); after the managed
 * resources, what the driver left of runtime PM (enabled, usage counts,
 * autosuspend) is reported at its lines and undone. The device stays, and may be
 * bound again. A device with no driver bound, or no live platform device,
 * is reported (DMAMAP_REPORT_BAD_INPUT) and nothing is done.
 */
DMAMAP_API void dmamap_platform_unbind(struct platform_device *pdev);

/**
 * dmamap_platform_device_destroy() - unbind, release and free @pdev
 * @pdev: a device dmamap_platform_device_create() made; NULL is ignored
 *
 * Unbinds a bound driver as dmamap_platform_unbind() does, releases .dev as
 * dmamap_device_release() does (reporting what the driver left behind),
 * frees its register windows (each ioremap() mapping still made of them is
 * reported as DMAMAP_REPORT_LEAK and forgotten, <dmamap/iomem.h>) and its
 * platform data copy, and frees the device. A pointer that is no live
 * platform device is reported (DMAMAP_REPORT_BAD_INPUT) and left alone.
 */
DMAMAP_API void dmamap_platform_device_destroy(struct platform_device *pdev);

DMAMAP_END_DECLS

#endif /* DMAMAP_PLATFORM_H */
