/* SPDX-License-Identifier: MIT */
/*
 * Clocks of devices: the ones a board wires to a device, and the common
 * clock framework's consumer calls drivers turn them on and off with
 * (<linux/clk.h>, which brings this header).
 *
 * The test gives a device its clocks before the driver binds, as its
 * device tree's "clocks" and "clock-names" would:
 *
 *	dmamap_device_add_clock(&pdev->dev, "bus", 100000000);
 *	dmamap_device_add_clock(&pdev->dev, "core", 400000000);
 *
 * and the driver gets them by name (NULL: the first) with clk_get(),
 * devm_clk_get() and their optional, prepared and enabled forms. Each get
 * gives a handle of its own; the counts are the clock's, as the kernel's:
 * clk_prepare() before clk_enable(), clk_disable() before clk_unprepare().
 * A NULL clock (an optional one the board did not wire) does nothing and
 * runs at 0 Hz. dmamap_device_clock_state() tells the test what the driver
 * left on.
 *
 * Reported, and changing nothing: enabling an unprepared clock (-ESHUTDOWN,
 * as the kernel), disabling one already disabled, unpreparing one already
 * unprepared (DMAMAP_REPORT_API_MISUSE, the kernel's warnings), a call on a
 * handle that was put or never got (DMAMAP_REPORT_BAD_INPUT). Unpreparing an
 * enabled clock is reported and done, as the kernel warns and does. When
 * the driver unbinds (or the probe fails), after its managed resources
 * went, a clock it left prepared or enabled and a handle it never put are
 * each a DMAMAP_REPORT_LEAK at the line that took them; the library then
 * turns the clock off and puts the handle, so the next driver starts clean.
 * clk_get(), clk_prepare(), clk_set_rate() and the devm_ gets may sleep
 * (reported under a spinlock, as might_sleep() is); clk_enable() and
 * clk_disable() do not.
 */
#ifndef DMAMAP_CLK_H
#define DMAMAP_CLK_H

#include <stdbool.h>

#include <dmamap/types.h>
#include <dmamap/device.h>

DMAMAP_BEGIN_DECLS

/* A consumer's handle on a clock (opaque). */
struct clk;

/* <linux/clk.h>: one clock of a bulk get, by name (@id) */
struct clk_bulk_data {
	const char *id;
	struct clk *clk;
};

/**
 * dmamap_device_add_clock() - wire a clock to @dev, as its board's device tree would
 * @dev: an initialised device with no driver bound
 * @con_id: its name in the device's "clock-names" (copied), or NULL for a
 *          clock without a name (found by clk_get(dev, NULL) when first)
 * @rate: its rate in Hz
 *
 * The clocks keep the order they were added in: clk_get(dev, NULL) finds
 * the first. The clock is off (unprepared) and stays the device's until its
 * release.
 * Return: 0; -EINVAL for a device that is not initialised or a name the
 * device has already (several clocks may have no name), -EBUSY while a
 * driver is bound, -ENOMEM. Each error but -ENOMEM is reported
 * (DMAMAP_REPORT_BAD_INPUT); on an error nothing changed.
 */
DMAMAP_API int dmamap_device_add_clock(struct device *dev, const char *con_id, unsigned long rate);

/* What dmamap_device_clock_state() tells of a clock. */
struct dmamap_clock_state {
	unsigned long rate;
	unsigned int prepare_count;
	unsigned int enable_count;
	unsigned int handles; /* handles got and not yet put */
};

/**
 * dmamap_device_clock_state() - the state of @dev's clock @con_id (NULL: the first)
 * @dev: the device
 * @con_id: the clock's name, or NULL
 * @st: receives its rate, counts and live handles
 *
 * Return: 0; -ENOENT when @dev has no such clock; -EINVAL for a device that
 * is not initialised or a NULL @st (reported).
 */
DMAMAP_API int dmamap_device_clock_state(struct device *dev, const char *con_id, struct dmamap_clock_state *st);

/**
 * dmamap_clk_get_at() - clk_get() / clk_get_optional(): a handle on @dev's clock @id
 * @dev: the consumer
 * @id: the clock's name, or NULL for the device's first clock
 * @optional: whether a clock the board did not wire gives NULL (a clock
 *            that does nothing) rather than ERR_PTR(-ENOENT)
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 *
 * The caller owns the handle and gives it back with clk_put().
 * Return: the handle; ERR_PTR(-ENOENT) for no such clock, ERR_PTR(-EINVAL)
 * for a device that is not initialised (reported), ERR_PTR(-ENOMEM).
 */
DMAMAP_API struct clk *dmamap_clk_get_at(struct device *dev, const char *id, bool optional, const char *file,
					 int line);

/**
 * dmamap_clk_put_at() - clk_put(): give back a handle of clk_get()
 *
 * NULL and error pointers are ignored, as the kernel's. A handle of a devm_
 * get is refused (devm_clk_put() gives it back), as is one already put; a
 * handle whose clock it still holds prepared or enabled is reported and put,
 * its counts left on the clock (which no handle can then turn off).
 */
DMAMAP_API void dmamap_clk_put_at(struct clk *clk, const char *file, int line);

/* What dmamap_devm_clk_get_at() does beyond the get. */
#define DMAMAP_CLK_OPTIONAL 0x1u /* NULL when the board did not wire it */
#define DMAMAP_CLK_PREPARED 0x2u /* prepared, and unprepared at unbind */
#define DMAMAP_CLK_ENABLED 0x6u  /* prepared and enabled, both undone at unbind */

/**
 * dmamap_devm_clk_get_at() - devm_clk_get() and its _optional, _prepared and _enabled forms
 * @dev: the consumer
 * @id: the clock's name, or NULL for the first
 * @how: DMAMAP_CLK_* flags
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 *
 * As dmamap_clk_get_at(), the handle the device's until it unbinds (or
 * devm_clk_put()), when it is disabled and unprepared as far as this call
 * turned it on, then put.
 * Return: the handle, NULL for an optional clock not wired; the errors of
 * dmamap_clk_get_at(), or of the prepare or enable (nothing kept then).
 */
DMAMAP_API struct clk *dmamap_devm_clk_get_at(struct device *dev, const char *id, unsigned int how,
					      const char *file, int line);

/**
 * dmamap_devm_clk_put_at() - devm_clk_put(): give back a handle of a devm_ get now
 *
 * Refused (DMAMAP_REPORT_API_MISUSE) for a handle @dev does not hold as a
 * managed resource. What the get turned on is not undone: as in the kernel,
 * the driver turns it off first.
 */
DMAMAP_API void dmamap_devm_clk_put_at(struct device *dev, struct clk *clk, const char *file, int line);

/**
 * dmamap_devm_clk_bulk_get_all_at() - devm_clk_bulk_get_all(): handles on all of @dev's clocks
 * @dev: the consumer
 * @clks: receives a managed array of them, in the board's order, each
 *        with its name (NULL when there are none)
 * @enable: also prepare and enable them all (devm_clk_bulk_get_all_enabled())
 * @file: the caller's source file, or NULL
 * @line: the caller's source line
 *
 * Return: how many (0 when the board wired none); an error of a get, a
 * prepare or an enable, with nothing kept.
 */
DMAMAP_API int dmamap_devm_clk_bulk_get_all_at(struct device *dev, struct clk_bulk_data **clks, bool enable,
					       const char *file, int line);

/**
 * dmamap_clk_prepare_at() - clk_prepare(): count a prepare of @clk's clock (may sleep)
 *
 * Return: 0 (also for NULL); -EINVAL for a handle that is no live one (reported).
 */
DMAMAP_API int dmamap_clk_prepare_at(struct clk *clk, const char *file, int line);

/** dmamap_clk_unprepare_at() - clk_unprepare(): undo a clk_prepare() (see the header's comment for misuse). */
DMAMAP_API void dmamap_clk_unprepare_at(struct clk *clk, const char *file, int line);

/**
 * dmamap_clk_enable_at() - clk_enable(): count an enable of @clk's prepared clock
 *
 * Return: 0 (also for NULL); -ESHUTDOWN for a clock not prepared (reported),
 * -EINVAL for a handle that is no live one (reported).
 */
DMAMAP_API int dmamap_clk_enable_at(struct clk *clk, const char *file, int line);

/** dmamap_clk_disable_at() - clk_disable(): undo a clk_enable() (see the header's comment for misuse). */
DMAMAP_API void dmamap_clk_disable_at(struct clk *clk, const char *file, int line);

/**
 * dmamap_clk_set_rate_at() - clk_set_rate(): run @clk's clock at @rate Hz (may sleep)
 *
 * Every rate is taken as asked. Return: 0 (also for NULL); -EINVAL for a
 * handle that is no live one (reported).
 */
DMAMAP_API int dmamap_clk_set_rate_at(struct clk *clk, unsigned long rate, const char *file, int line);

/** clk_get_rate() - the rate of @clk's clock in Hz; 0 for NULL, an error pointer or a dead handle. */
DMAMAP_API unsigned long clk_get_rate(struct clk *clk);

/** clk_round_rate() - the rate clk_set_rate(@clk, @rate) would give: @rate; 0 for NULL. */
DMAMAP_API long clk_round_rate(struct clk *clk, unsigned long rate);

/**
 * dmamap_clk_prepare_enable_at() - clk_prepare_enable(): prepare, then enable
 *
 * Return: 0, or the error of either, the prepare undone when the enable fails.
 */
static inline int dmamap_clk_prepare_enable_at(struct clk *clk, const char *file, int line)
{
	int ret = dmamap_clk_prepare_at(clk, file, line);

	if (ret)
		return ret;
	ret = dmamap_clk_enable_at(clk, file, line);
	if (ret)
		dmamap_clk_unprepare_at(clk, file, line);
	return ret;
}

/** dmamap_clk_disable_unprepare_at() - clk_disable_unprepare(): disable, then unprepare. */
static inline void dmamap_clk_disable_unprepare_at(struct clk *clk, const char *file, int line)
{
	dmamap_clk_disable_at(clk, file, line);
	dmamap_clk_unprepare_at(clk, file, line);
}

DMAMAP_END_DECLS

#endif /* DMAMAP_CLK_H */
