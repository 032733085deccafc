/* SPDX-License-Identifier: MIT */
/*
 * <linux/device.h> of Linux 6.x over libdmamap, as far as DMA drivers need
 * it: struct device (caller-owned, attached to a simulated machine with
 * dmamap_device_init()), dev_name(), drvdata, dev_err() and friends, and the
 * managed resources (devm_kzalloc(), devm_add_action_or_reset()..., released
 * by dmamap_device_release() as devres would at unbind), devm_ioremap_resource()
 * (<dmamap/iomem.h>), and dev_get_platdata() (the platform data a test gives
 * a platform device with platform_device_add_data(), <dmamap/platform.h>).
 */
#ifndef _LINUX_DEVICE_H
#define _LINUX_DEVICE_H

#include <dmamap/linux-api.h>
#include <linux/gfp.h>
#include <dmamap/device.h>
#include <dmamap/log.h>
#include <dmamap/slab.h>
#include <dmamap/devres.h>
#include <dmamap/iomem.h>

/*
 * dev_err_probe() - log @fmt as dev_err() does and return @err, for probe
 * error paths; for -EPROBE_DEFER (a resource not there yet, the probe will be
 * retried) at debug level, as dev_dbg() does, as the kernel's.
 */
#define dev_err_probe(dev, err, ...) DMAMAP_DEV_ERR_PROBE_((dev), (err), DMAMAP_UNIQUE(dmamap_err_), __VA_ARGS__)
#define DMAMAP_DEV_ERR_PROBE_(dev, err, e, ...)                                                            \
	__extension__({                                                                                    \
		int e = (err);                                                                             \
		dmamap_dev_printk(e == -EPROBE_DEFER ? DMAMAP_LOG_DEBUG : DMAMAP_LOG_ERR, dev, __VA_ARGS__); \
		e;                                                                                         \
	})

/*
 * dev_printk() - log @fmt on behalf of @dev at the KERN_* @level string, as
 * dev_err() and its siblings do (see dmamap_kern_level() for the levels).
 * dev_emerg(), dev_alert() and dev_crit() log at DMAMAP_LOG_ERR and
 * dev_notice() at DMAMAP_LOG_INFO, as pr_emerg()... and pr_notice() do.
 */
#define dev_printk(level, dev, ...) dmamap_dev_printk(dmamap_kern_level(level), (dev), __VA_ARGS__)
#define dev_emerg(dev, ...) dmamap_dev_printk(DMAMAP_LOG_ERR, (dev), __VA_ARGS__)
#define dev_alert(dev, ...) dmamap_dev_printk(DMAMAP_LOG_ERR, (dev), __VA_ARGS__)
#define dev_crit(dev, ...) dmamap_dev_printk(DMAMAP_LOG_ERR, (dev), __VA_ARGS__)
#define dev_notice(dev, ...) dmamap_dev_printk(DMAMAP_LOG_INFO, (dev), __VA_ARGS__)

/*
 * dev_err_once(), dev_warn_once(), dev_info_once() (and dev_notice_once(),
 * dev_dbg_once()) - log as dev_err()... the first time their call site runs,
 * in any thread, and never again from that site; the arguments are not
 * evaluated afterwards.
 */
#define DMAMAP_DEV_ONCE_(done, level, dev, ...)                                   \
	do {                                                                      \
		static int done;                                                  \
		if (!__atomic_exchange_n(&done, 1, __ATOMIC_RELAXED))             \
			dmamap_dev_printk((level), (dev), __VA_ARGS__);           \
	} while (0)
#define dev_err_once(dev, ...) DMAMAP_DEV_ONCE_(DMAMAP_UNIQUE(dmamap_once_), DMAMAP_LOG_ERR, dev, __VA_ARGS__)
#define dev_warn_once(dev, ...) DMAMAP_DEV_ONCE_(DMAMAP_UNIQUE(dmamap_once_), DMAMAP_LOG_WARN, dev, __VA_ARGS__)
#define dev_notice_once(dev, ...) DMAMAP_DEV_ONCE_(DMAMAP_UNIQUE(dmamap_once_), DMAMAP_LOG_INFO, dev, __VA_ARGS__)
#define dev_info_once(dev, ...) DMAMAP_DEV_ONCE_(DMAMAP_UNIQUE(dmamap_once_), DMAMAP_LOG_INFO, dev, __VA_ARGS__)
#define dev_dbg_once(dev, ...) DMAMAP_DEV_ONCE_(DMAMAP_UNIQUE(dmamap_once_), DMAMAP_LOG_DEBUG, dev, __VA_ARGS__)

/*
 * dev_err_ratelimited(), dev_warn_ratelimited(), dev_notice_ratelimited(),
 * dev_info_ratelimited() and dev_dbg_ratelimited() - dev_err()...: here every
 * call logs. The kernel drops what exceeds 10 messages in 5 seconds per call
 * site; a test's handler sees them all, so what it counts does not depend on
 * the clock.
 */
#define dev_err_ratelimited(dev, ...) dev_err(dev, __VA_ARGS__)
#define dev_warn_ratelimited(dev, ...) dev_warn(dev, __VA_ARGS__)
#define dev_notice_ratelimited(dev, ...) dev_notice(dev, __VA_ARGS__)
#define dev_info_ratelimited(dev, ...) dev_info(dev, __VA_ARGS__)
#define dev_dbg_ratelimited(dev, ...) dev_dbg(dev, __VA_ARGS__)

/*
 * devm_kasprintf() - kasprintf() in managed memory of @dev, released with it
 * (or by devm_kfree()), as probe code names its rings and channels;
 * devm_kvasprintf() takes a va_list.
 */
#define devm_kasprintf(dev, gfp, ...) dmamap_devm_kasprintf((dev), (gfp), __FILE__, __LINE__, __VA_ARGS__)
#define devm_kvasprintf(dev, gfp, fmt, ap) dmamap_devm_kvasprintf((dev), (gfp), __FILE__, __LINE__, (fmt), (ap))

/*
 * dev_WARN() - WARN(1, ...) with @dev's name before the message ("name: ..."):
 * logs "WARNING: at file:line: name: message" and is 1. dev_WARN_ONCE() -
 * WARN_ONCE(@condition, ...) likewise: the condition's truth, logged the first
 * time its site fires. The kernel puts the driver's name before the device's;
 * a simulated device has none.
 */
#define dev_WARN(dev, fmt, ...) WARN(1, "%s: " fmt, dev_name(dev), ##__VA_ARGS__)
#define dev_WARN_ONCE(dev, condition, fmt, ...) WARN_ONCE(condition, "%s: " fmt, dev_name(dev), ##__VA_ARGS__)

/*
 * dev_vdbg() - dev_dbg() when the file defines VERBOSE_DEBUG before its first
 * include, as in the kernel; otherwise nothing is logged and the arguments
 * are not evaluated (the format is still checked).
 */
#ifdef VERBOSE_DEBUG
#define dev_vdbg(dev, ...) dev_dbg(dev, __VA_ARGS__)
#else
#define dev_vdbg(dev, ...)                              \
	do {                                            \
		if (0)                                  \
			dev_dbg(dev, __VA_ARGS__);      \
	} while (0)
#endif

/**
 * get_device() - take a reference on @dev: here @dev itself, nothing counted
 * @dev: the device, or NULL
 *
 * The simulated struct device is owned by the caller (the test), which
 * releases it with dmamap_device_release() whatever references a driver took.
 * Return: @dev (NULL for NULL).
 */
static inline struct device *get_device(struct device *dev)
{
	return dev;
}

/**
 * put_device() - drop a reference get_device() took: nothing to do
 * @dev: the device, or NULL
 */
static inline void put_device(struct device *dev)
{
	(void)dev;
}

/**
 * devm_ioremap_resource() - request and map the memory resource @res for @dev, both released when the driver unbinds
 * @dev: the device
 * @res: an IORESOURCE_MEM resource (what platform_get_resource() found,
 *       NULL included)
 *
 * See dmamap_devm_ioremap_resource_at(): the CPU address of @res->start in
 * its register window; ERR_PTR(-EINVAL) for a NULL or non-memory @res,
 * ERR_PTR(-EBUSY) for a region requested already, ERR_PTR(-ENOMEM), each
 * logged with the kernel's message.
 */
static inline void __iomem *devm_ioremap_resource(struct device *dev, const struct resource *res)
{
	return dmamap_devm_ioremap_resource_at(dev, res, NULL, 0);
}

/** devm_ioremap_resource_wc() - devm_ioremap_resource() with write combining: the same window here. */
static inline void __iomem *devm_ioremap_resource_wc(struct device *dev, const struct resource *res)
{
	return dmamap_devm_ioremap_resource_at(dev, res, NULL, 0);
}

#define devm_ioremap_resource(dev, res) dmamap_devm_ioremap_resource_at((dev), (res), __FILE__, __LINE__)
#define devm_ioremap_resource_wc(dev, res) dmamap_devm_ioremap_resource_at((dev), (res), __FILE__, __LINE__)

#endif /* _LINUX_DEVICE_H */
