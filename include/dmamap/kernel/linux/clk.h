/* SPDX-License-Identifier: MIT */
/*
 * <linux/clk.h> of Linux 6.x over libdmamap (<dmamap/clk.h>): the common
 * clock framework's consumer calls on the clocks a test wires to a device
 * with dmamap_device_add_clock(): clk_get(), clk_get_optional(),
 * clk_put(), devm_clk_get() with its _optional, _prepared, _enabled and
 * _optional_enabled forms, devm_clk_put(), devm_clk_bulk_get_all() and
 * its _enabled form, clk_bulk_prepare_enable() and
 * clk_bulk_disable_unprepare(), clk_prepare(), clk_enable(),
 * clk_prepare_enable() and their undoing, clk_get_rate(), clk_set_rate(),
 * clk_round_rate(). Each call carries the caller's line to the reports.
 * clk_prepare_enable(), clk_disable_unprepare() and clk_put() are also
 * functions, for a driver that hands one to devm_add_action_or_reset().
 * Not provided: the provider side (clk-provider.h), parents, clk_bulk_get()
 * of a list of names, notifiers.
 */
#ifndef _LINUX_CLK_H
#define _LINUX_CLK_H

#include <dmamap/linux-api.h>
#include <linux/err.h>
#include <linux/types.h>
#include <dmamap/clk.h>

/** clk_prepare_enable() - prepare, then enable @clk (see dmamap_clk_prepare_enable_at()). */
static inline int clk_prepare_enable(struct clk *clk)
{
	return dmamap_clk_prepare_enable_at(clk, NULL, 0);
}

/** clk_disable_unprepare() - disable, then unprepare @clk. */
static inline void clk_disable_unprepare(struct clk *clk)
{
	dmamap_clk_disable_unprepare_at(clk, NULL, 0);
}

/** clk_put() - give back a handle of clk_get() (see dmamap_clk_put_at()). */
static inline void clk_put(struct clk *clk)
{
	dmamap_clk_put_at(clk, NULL, 0);
}

/** dmamap_clk_bulk_prepare_enable_at() - clk_bulk_prepare_enable(): each of @num clocks in order, undone on an error. */
static inline int dmamap_clk_bulk_prepare_enable_at(int num, const struct clk_bulk_data *clks, const char *file,
						    int line)
{
	for (int i = 0; i < num; i++) {
		int ret = dmamap_clk_prepare_enable_at(clks[i].clk, file, line);

		if (ret) {
			while (i--)
				dmamap_clk_disable_unprepare_at(clks[i].clk, file, line);
			return ret;
		}
	}
	return 0;
}

/** dmamap_clk_bulk_disable_unprepare_at() - clk_bulk_disable_unprepare(): @num clocks, the last first. */
static inline void dmamap_clk_bulk_disable_unprepare_at(int num, const struct clk_bulk_data *clks, const char *file,
							int line)
{
	while (num-- > 0)
		dmamap_clk_disable_unprepare_at(clks[num].clk, file, line);
}

#define clk_get(dev, id) dmamap_clk_get_at((dev), (id), false, __FILE__, __LINE__)
#define clk_get_optional(dev, id) dmamap_clk_get_at((dev), (id), true, __FILE__, __LINE__)
#define clk_put(clk) dmamap_clk_put_at((clk), __FILE__, __LINE__)
#define devm_clk_get(dev, id) dmamap_devm_clk_get_at((dev), (id), 0, __FILE__, __LINE__)
#define devm_clk_get_optional(dev, id) dmamap_devm_clk_get_at((dev), (id), DMAMAP_CLK_OPTIONAL, __FILE__, __LINE__)
#define devm_clk_get_prepared(dev, id) dmamap_devm_clk_get_at((dev), (id), DMAMAP_CLK_PREPARED, __FILE__, __LINE__)
#define devm_clk_get_enabled(dev, id) dmamap_devm_clk_get_at((dev), (id), DMAMAP_CLK_ENABLED, __FILE__, __LINE__)
#define devm_clk_get_optional_prepared(dev, id) \
	dmamap_devm_clk_get_at((dev), (id), DMAMAP_CLK_OPTIONAL | DMAMAP_CLK_PREPARED, __FILE__, __LINE__)
#define devm_clk_get_optional_enabled(dev, id) \
	dmamap_devm_clk_get_at((dev), (id), DMAMAP_CLK_OPTIONAL | DMAMAP_CLK_ENABLED, __FILE__, __LINE__)
#define devm_clk_put(dev, clk) dmamap_devm_clk_put_at((dev), (clk), __FILE__, __LINE__)
#define devm_clk_bulk_get_all(dev, clks) dmamap_devm_clk_bulk_get_all_at((dev), (clks), false, __FILE__, __LINE__)
#define devm_clk_bulk_get_all_enabled(dev, clks) \
	dmamap_devm_clk_bulk_get_all_at((dev), (clks), true, __FILE__, __LINE__)
#define clk_prepare(clk) dmamap_clk_prepare_at((clk), __FILE__, __LINE__)
#define clk_unprepare(clk) dmamap_clk_unprepare_at((clk), __FILE__, __LINE__)
#define clk_enable(clk) dmamap_clk_enable_at((clk), __FILE__, __LINE__)
#define clk_disable(clk) dmamap_clk_disable_at((clk), __FILE__, __LINE__)
#define clk_prepare_enable(clk) dmamap_clk_prepare_enable_at((clk), __FILE__, __LINE__)
#define clk_disable_unprepare(clk) dmamap_clk_disable_unprepare_at((clk), __FILE__, __LINE__)
#define clk_set_rate(clk, rate) dmamap_clk_set_rate_at((clk), (rate), __FILE__, __LINE__)
#define clk_bulk_prepare_enable(num, clks) dmamap_clk_bulk_prepare_enable_at((num), (clks), __FILE__, __LINE__)
#define clk_bulk_disable_unprepare(num, clks) \
	dmamap_clk_bulk_disable_unprepare_at((num), (clks), __FILE__, __LINE__)

#endif /* _LINUX_CLK_H */
