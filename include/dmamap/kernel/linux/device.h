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

/* dev_err_probe() - log @fmt as dev_err() does and return @err, for probe error paths. */
#define dev_err_probe(dev, err, ...) (dmamap_dev_printk(DMAMAP_LOG_ERR, (dev), __VA_ARGS__), (err))

#endif /* _LINUX_DEVICE_H */
