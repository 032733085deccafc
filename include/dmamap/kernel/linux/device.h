/* SPDX-License-Identifier: MIT */
/*
 * <linux/device.h> of Linux 6.x over libdmamap, as far as DMA drivers need
 * it: struct device (caller-owned, attached to a simulated machine with
 * dmamap_device_init()), dev_name(), drvdata, dev_err() and friends, and the
 * managed resources (devm_kzalloc(), devm_add_action_or_reset()..., released
 * by dmamap_device_release() as devres would at unbind).
 */
#ifndef _LINUX_DEVICE_H
#define _LINUX_DEVICE_H

#include <dmamap/linux-api.h>
#include <linux/gfp.h>
#include <dmamap/device.h>
#include <dmamap/log.h>
#include <dmamap/slab.h>
#include <dmamap/devres.h>

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

#endif /* _LINUX_DEVICE_H */
