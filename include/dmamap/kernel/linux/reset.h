/* SPDX-License-Identifier: MIT */
/*
 * <linux/reset.h> of Linux 6.x over libdmamap (<dmamap/reset.h>): the reset
 * controller framework's consumer calls on the reset lines a test wires to a
 * device with dmamap_device_add_reset(): reset_control_get_exclusive(),
 * reset_control_get_shared(), their _optional forms and
 * reset_control_get_exclusive_released(), reset_control_put(); the devm_
 * forms of each, devm_reset_control_get(), the _by_index forms, the
 * _deasserted forms of 6.13 (deasserted at once, asserted again at unbind)
 * and devm_reset_control_array_get_*(); reset_control_assert(),
 * reset_control_deassert(), reset_control_reset(), reset_control_rearm(),
 * reset_control_status(), reset_control_acquire(), reset_control_release(),
 * device_reset() and device_reset_optional(). Each call carries the caller's
 * line to the reports. reset_control_assert(), reset_control_deassert(),
 * reset_control_reset() and reset_control_put() are also functions, for a
 * driver that takes their address. Not provided: the provider side
 * (reset-controller.h), the of_ gets of a node, the reset_control_bulk_*()
 * calls.
 */
#ifndef _LINUX_RESET_H_
#define _LINUX_RESET_H_

#include <dmamap/linux-api.h>
#include <linux/err.h>
#include <linux/errno.h>
#include <linux/types.h>
#include <dmamap/reset.h>

/** reset_control_assert() - hold the device in reset (see dmamap_reset_control_assert_at()). */
static inline int reset_control_assert(struct reset_control *rstc)
{
	return dmamap_reset_control_assert_at(rstc, NULL, 0);
}

/** reset_control_deassert() - let the device out of reset (see dmamap_reset_control_deassert_at()). */
static inline int reset_control_deassert(struct reset_control *rstc)
{
	return dmamap_reset_control_deassert_at(rstc, NULL, 0);
}

/** reset_control_reset() - pulse the line (see dmamap_reset_control_reset_at()). */
static inline int reset_control_reset(struct reset_control *rstc)
{
	return dmamap_reset_control_reset_at(rstc, NULL, 0);
}

/** reset_control_put() - give back a handle of a get (see dmamap_reset_control_put_at()). */
static inline void reset_control_put(struct reset_control *rstc)
{
	dmamap_reset_control_put_at(rstc, NULL, 0);
}

/**
 * dmamap_device_reset_at() - device_reset() / device_reset_optional(): pulse @dev's first line
 *
 * An exclusive get of the line, reset_control_reset(), the put.
 * Return: 0 (also for an optional line not wired), or the error of the get
 * or the pulse.
 */
static inline int dmamap_device_reset_at(struct device *dev, bool optional, const char *file, int line)
{
	struct reset_control *rstc =
		dmamap_reset_control_get_at(dev, NULL, 0, optional ? DMAMAP_RESET_OPTIONAL : 0, file, line);
	int ret;

	if (IS_ERR(rstc))
		return (int)PTR_ERR(rstc);
	ret = dmamap_reset_control_reset_at(rstc, file, line);
	dmamap_reset_control_put_at(rstc, file, line);
	return ret;
}

#define DMAMAP_RESET_GET(dev, id, flags) dmamap_reset_control_get_at((dev), (id), 0, (flags), __FILE__, __LINE__)
#define DMAMAP_DEVM_RESET_GET(dev, id, index, flags) \
	dmamap_devm_reset_control_get_at((dev), (id), (index), (flags), __FILE__, __LINE__)

#define reset_control_get_exclusive(dev, id) DMAMAP_RESET_GET((dev), (id), 0)
#define reset_control_get_shared(dev, id) DMAMAP_RESET_GET((dev), (id), DMAMAP_RESET_SHARED)
#define reset_control_get_optional_exclusive(dev, id) DMAMAP_RESET_GET((dev), (id), DMAMAP_RESET_OPTIONAL)
#define reset_control_get_optional_shared(dev, id) \
	DMAMAP_RESET_GET((dev), (id), DMAMAP_RESET_OPTIONAL | DMAMAP_RESET_SHARED)
#define reset_control_get_exclusive_released(dev, id) DMAMAP_RESET_GET((dev), (id), DMAMAP_RESET_RELEASED)
#define reset_control_get_optional_exclusive_released(dev, id) \
	DMAMAP_RESET_GET((dev), (id), DMAMAP_RESET_OPTIONAL | DMAMAP_RESET_RELEASED)
#define reset_control_put(rstc) dmamap_reset_control_put_at((rstc), __FILE__, __LINE__)

#define devm_reset_control_get_exclusive(dev, id) DMAMAP_DEVM_RESET_GET((dev), (id), 0, 0)
#define devm_reset_control_get(dev, id) DMAMAP_DEVM_RESET_GET((dev), (id), 0, 0)
#define devm_reset_control_get_shared(dev, id) DMAMAP_DEVM_RESET_GET((dev), (id), 0, DMAMAP_RESET_SHARED)
#define devm_reset_control_get_optional_exclusive(dev, id) \
	DMAMAP_DEVM_RESET_GET((dev), (id), 0, DMAMAP_RESET_OPTIONAL)
#define devm_reset_control_get_optional_shared(dev, id) \
	DMAMAP_DEVM_RESET_GET((dev), (id), 0, DMAMAP_RESET_OPTIONAL | DMAMAP_RESET_SHARED)
#define devm_reset_control_get_exclusive_released(dev, id) \
	DMAMAP_DEVM_RESET_GET((dev), (id), 0, DMAMAP_RESET_RELEASED)
#define devm_reset_control_get_optional_exclusive_released(dev, id) \
	DMAMAP_DEVM_RESET_GET((dev), (id), 0, DMAMAP_RESET_OPTIONAL | DMAMAP_RESET_RELEASED)
#define devm_reset_control_get_exclusive_by_index(dev, index) DMAMAP_DEVM_RESET_GET((dev), NULL, (index), 0)
#define devm_reset_control_get_shared_by_index(dev, index) \
	DMAMAP_DEVM_RESET_GET((dev), NULL, (index), DMAMAP_RESET_SHARED)
#define devm_reset_control_get_exclusive_deasserted(dev, id) \
	DMAMAP_DEVM_RESET_GET((dev), (id), 0, DMAMAP_RESET_DEASSERTED)
#define devm_reset_control_get_shared_deasserted(dev, id) \
	DMAMAP_DEVM_RESET_GET((dev), (id), 0, DMAMAP_RESET_SHARED | DMAMAP_RESET_DEASSERTED)
#define devm_reset_control_get_optional_exclusive_deasserted(dev, id) \
	DMAMAP_DEVM_RESET_GET((dev), (id), 0, DMAMAP_RESET_OPTIONAL | DMAMAP_RESET_DEASSERTED)
#define devm_reset_control_get_optional_shared_deasserted(dev, id) \
	DMAMAP_DEVM_RESET_GET((dev), (id), 0, DMAMAP_RESET_OPTIONAL | DMAMAP_RESET_SHARED | DMAMAP_RESET_DEASSERTED)

#define devm_reset_control_array_get_exclusive(dev) \
	dmamap_devm_reset_control_array_get_at((dev), 0, __FILE__, __LINE__)
#define devm_reset_control_array_get_shared(dev) \
	dmamap_devm_reset_control_array_get_at((dev), DMAMAP_RESET_SHARED, __FILE__, __LINE__)
#define devm_reset_control_array_get_optional_exclusive(dev) \
	dmamap_devm_reset_control_array_get_at((dev), DMAMAP_RESET_OPTIONAL, __FILE__, __LINE__)
#define devm_reset_control_array_get_optional_shared(dev) \
	dmamap_devm_reset_control_array_get_at((dev), DMAMAP_RESET_OPTIONAL | DMAMAP_RESET_SHARED, __FILE__, __LINE__)

#define reset_control_assert(rstc) dmamap_reset_control_assert_at((rstc), __FILE__, __LINE__)
#define reset_control_deassert(rstc) dmamap_reset_control_deassert_at((rstc), __FILE__, __LINE__)
#define reset_control_reset(rstc) dmamap_reset_control_reset_at((rstc), __FILE__, __LINE__)
#define reset_control_rearm(rstc) dmamap_reset_control_rearm_at((rstc), __FILE__, __LINE__)
#define reset_control_status(rstc) dmamap_reset_control_status_at((rstc), __FILE__, __LINE__)
#define reset_control_acquire(rstc) dmamap_reset_control_acquire_at((rstc), __FILE__, __LINE__)
#define reset_control_release(rstc) dmamap_reset_control_release_at((rstc), __FILE__, __LINE__)
#define device_reset(dev) dmamap_device_reset_at((dev), false, __FILE__, __LINE__)
#define device_reset_optional(dev) dmamap_device_reset_at((dev), true, __FILE__, __LINE__)

#endif /* _LINUX_RESET_H_ */
