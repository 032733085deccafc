/* SPDX-License-Identifier: MIT */
/*
 * <linux/devm-helpers.h> of Linux 6.x over libdmamap: devm_work_autocancel()
 * and devm_delayed_work_autocancel(), a work item set up (INIT_WORK(),
 * INIT_DELAYED_WORK()) and cancelled, waiting for a run in progress
 * (cancel_work_sync()), when the driver unbinds: its managed resources go,
 * newest first, with this among them. Return 0, or the error of recording
 * the cancel (the item is set up all the same, as the kernel's).
 */
#ifndef _LINUX_DEVM_HELPERS_H
#define _LINUX_DEVM_HELPERS_H

#include <dmamap/linux-api.h>
#include <dmamap/devres.h>
#include <linux/device.h>
#include <linux/workqueue.h>

/** dmamap_devm_work_cancel_() - the managed cancel of a devm_*_autocancel() item: cancel_work_sync(). */
static inline void dmamap_devm_work_cancel_(void *w)
{
	dmamap_cancel_work_at((struct dmamap_work *)w, true, NULL, 0);
}

/** dmamap_devm_work_autocancel_at() - devm_work_autocancel() with the caller's location. */
static inline int dmamap_devm_work_autocancel_at(struct device *dev, struct dmamap_work *w, work_func_t worker,
						 const char *file, int line)
{
	dmamap_work_init(w, worker);
	return dmamap_devm_add_action(dev, dmamap_devm_work_cancel_, w, false, file, line);
}

#define devm_work_autocancel(dev, w, worker) \
	dmamap_devm_work_autocancel_at((dev), &(w)->dmamap_w, (worker), __FILE__, __LINE__)
#define devm_delayed_work_autocancel(dev, w, worker) \
	dmamap_devm_work_autocancel_at((dev), &(w)->work.dmamap_w, (worker), __FILE__, __LINE__)

#endif /* _LINUX_DEVM_HELPERS_H */
