/* SPDX-License-Identifier: MIT */
/*
 * Clocks wired to devices, and the consumer calls of the common clock
 * framework (<dmamap/clk.h>). A clock's counts are the sum of its handles'
 * (what each turned on and has not turned off), so whatever is left on at
 * unbind is reported at the line that turned it on. One lock guards every
 * clock and the process's list of live handles, by which a handle is
 * checked before it is used.
 */
#include "internal.h"

struct dm_clk {
	struct dm_clk *next;
	char *con_id; /* NULL: no name */
	unsigned long rate;
	unsigned int prepare_count, enable_count;
	/* the last handle to turn it on, for a clock left on after its handle was put */
	const char *on_file;
	int on_line;
};

struct clk {
	struct clk *next; /* the process's live handles */
	struct dm_clk *core;
	struct device *dev;
	unsigned int prepared, enabled; /* this handle's share of the counts */
	unsigned int how;               /* DMAMAP_CLK_* of a devm_ get */
	bool managed;
	const char *file; /* the get */
	int line;
	const char *on_file; /* its last prepare or enable */
	int on_line;
};

static pthread_mutex_t clk_lock = PTHREAD_MUTEX_INITIALIZER;
static struct clk *live_handles;

/* @dev's clock named @id, or (@id NULL) its @nth, or NULL. Under clk_lock. */
static struct dm_clk *clock_find(struct device *dev, const char *id, unsigned int nth)
{
	for (struct dm_clk *c = dev->dmamap.clocks; c; c = c->next)
		if (id ? c->con_id && !strcmp(c->con_id, id) : !nth--)
			return c;
	return NULL;
}

static const char *clock_name(const struct dm_clk *c)
{
	return c->con_id ? c->con_id : "(unnamed)";
}

/* Whether @h is a live handle (NULL and error pointers are not). Under clk_lock. */
static bool handle_live(const struct clk *h)
{
	for (const struct clk *l = live_handles; l; l = l->next)
		if (l == h)
			return true;
	return false;
}

/* Check @h for @what: true when it is live, with clk_lock held; false, reported, without. */
static bool handle_lock(struct clk *h, const char *what, const char *file, int line)
{
	pthread_mutex_lock(&clk_lock);
	if (handle_live(h))
		return true;
	pthread_mutex_unlock(&clk_lock);
	/* no device to name: the current machine's, if any */
	dmamap_report(dmamap_machine_peek_current(), DMAMAP_REPORT_BAD_INPUT, NULL, file, line, "%s(%p): %s", what,
		      (void *)h, IS_ERR(h) ? "an error pointer" : "not a live clock handle (put already, or never got)");
	return false;
}

DMAMAP_API int dmamap_device_add_clock(struct device *dev, const char *con_id, unsigned long rate)
{
	struct dm_clk *c;

	if (!dm_dev_ok(dev, "dmamap_device_add_clock", NULL, 0))
		return -EINVAL;
	if (dev->driver) {
		dmamap_dev_report(dev, DMAMAP_REPORT_BAD_INPUT, NULL, 0,
				  "dmamap_device_add_clock: driver %s is bound: the board wires clocks before it binds",
				  dev->driver->name ? dev->driver->name : "(unnamed)");
		return -EBUSY;
	}
	c = dmamap_zalloc(dm_dev_machine(dev), sizeof(*c) + (con_id ? strlen(con_id) + 1 : 0));
	if (!c)
		return -ENOMEM;
	if (con_id)
		c->con_id = strcpy((char *)(c + 1), con_id);
	c->rate = rate;
	pthread_mutex_lock(&clk_lock);
	if (con_id && clock_find(dev, con_id, 0)) {
		pthread_mutex_unlock(&clk_lock);
		dmamap_free(c);
		dmamap_dev_report(dev, DMAMAP_REPORT_BAD_INPUT, NULL, 0,
				  "dmamap_device_add_clock: the device has a clock \"%s\" already", con_id);
		return -EINVAL;
	}
	if (!dev->dmamap.clocks) {
		dev->dmamap.clocks = c;
	} else {
		struct dm_clk *t = dev->dmamap.clocks;

		while (t->next)
			t = t->next;
		t->next = c;
	}
	pthread_mutex_unlock(&clk_lock);
	return 0;
}

DMAMAP_API int dmamap_device_clock_state(struct device *dev, const char *con_id, struct dmamap_clock_state *st)
{
	struct dm_clk *c;

	if (!dm_dev_ok(dev, "dmamap_device_clock_state", NULL, 0))
		return -EINVAL;
	if (!st) {
		dmamap_dev_report(dev, DMAMAP_REPORT_BAD_INPUT, NULL, 0, "dmamap_device_clock_state: NULL state");
		return -EINVAL;
	}
	pthread_mutex_lock(&clk_lock);
	c = clock_find(dev, con_id, 0);
	if (c) {
		st->rate = c->rate;
		st->prepare_count = c->prepare_count;
		st->enable_count = c->enable_count;
		st->handles = 0;
		for (const struct clk *h = live_handles; h; h = h->next)
			st->handles += h->core == c;
	}
	pthread_mutex_unlock(&clk_lock);
	return c ? 0 : -ENOENT;
}

/* A new live handle on @dev's clock @id (or its @nth); NULL with *@err set when there is none. */
static struct clk *handle_new(struct device *dev, const char *id, unsigned int nth, int *err, const char *file,
			      int line)
{
	struct clk *h = dmamap_zalloc(dm_dev_machine(dev), sizeof(*h));

	if (!h) {
		*err = -ENOMEM;
		return NULL;
	}
	pthread_mutex_lock(&clk_lock);
	h->core = clock_find(dev, id, nth);
	if (!h->core) {
		pthread_mutex_unlock(&clk_lock);
		dmamap_free(h);
		*err = -ENOENT;
		return NULL;
	}
	h->dev = dev;
	h->file = file;
	h->line = line;
	h->next = live_handles;
	live_handles = h;
	pthread_mutex_unlock(&clk_lock);
	return h;
}

DMAMAP_API struct clk *dmamap_clk_get_at(struct device *dev, const char *id, bool optional, const char *file,
					 int line)
{
	struct clk *h;
	int err;

	if (!dm_dev_ok(dev, optional ? "clk_get_optional" : "clk_get", file, line))
		return ERR_PTR(-EINVAL);
	dmamap_might_sleep_at("clk_get", file, line);
	h = handle_new(dev, id, 0, &err, file, line);
	if (h)
		return h;
	return optional && err == -ENOENT ? NULL : ERR_PTR(err);
}

/* Take @h off the live list and free it. Under clk_lock. */
static void handle_free(struct clk *h)
{
	for (struct clk **pp = &live_handles; *pp; pp = &(*pp)->next) {
		if (*pp == h) {
			*pp = h->next;
			break;
		}
	}
	dmamap_free(h);
}

/* Report @h put (or found at unbind, @why) while its clock is on through it. Under clk_lock. */
static void report_still_on(struct clk *h, enum dmamap_report_kind kind, const char *why)
{
	if (h->enabled || h->prepared)
		dmamap_dev_report(h->dev, kind, h->on_file, h->on_line, "clock %s %s %s (%u enable, %u prepare)",
				  clock_name(h->core), why, h->enabled ? "enabled" : "prepared", h->enabled,
				  h->prepared);
}

DMAMAP_API void dmamap_clk_put_at(struct clk *clk, const char *file, int line)
{
	if (IS_ERR_OR_NULL(clk) || !handle_lock(clk, "clk_put", file, line))
		return;
	if (clk->managed) {
		pthread_mutex_unlock(&clk_lock);
		dmamap_dev_report(clk->dev, DMAMAP_REPORT_API_MISUSE, file, line,
				  "clk_put: clock %s was got with a devm_ call at %s:%d: devm_clk_put() gives it back",
				  clock_name(clk->core), clk->file ? clk->file : "?", clk->line);
		return;
	}
	report_still_on(clk, DMAMAP_REPORT_API_MISUSE, "put while still");
	handle_free(clk);
	pthread_mutex_unlock(&clk_lock);
}

/*
 * Take one count of @which (enable or prepare) off @h's clock: from @h's
 * share if it has one, else from another handle's. Under clk_lock.
 */
static void count_down(struct clk *h, bool enable)
{
	unsigned int *own = enable ? &h->enabled : &h->prepared;

	if (!*own) {
		for (struct clk *o = live_handles; o; o = o->next) {
			unsigned int *other = enable ? &o->enabled : &o->prepared;

			if (o->core == h->core && *other) {
				own = other;
				break;
			}
		}
	}
	if (*own)
		(*own)--;
	if (enable)
		h->core->enable_count--;
	else
		h->core->prepare_count--;
}

/* A count up of @h's clock through @h at @file:@line. Under clk_lock. */
static void count_up(struct clk *h, bool enable, const char *file, int line)
{
	if (enable) {
		h->enabled++;
		h->core->enable_count++;
	} else {
		h->prepared++;
		h->core->prepare_count++;
	}
	h->on_file = h->core->on_file = file;
	h->on_line = h->core->on_line = line;
}

DMAMAP_API int dmamap_clk_prepare_at(struct clk *clk, const char *file, int line)
{
	if (!clk)
		return 0;
	if (!handle_lock(clk, "clk_prepare", file, line))
		return -EINVAL;
	pthread_mutex_unlock(&clk_lock);
	dmamap_might_sleep_at("clk_prepare", file, line);
	pthread_mutex_lock(&clk_lock);
	if (handle_live(clk))
		count_up(clk, false, file, line);
	pthread_mutex_unlock(&clk_lock);
	return 0;
}

DMAMAP_API void dmamap_clk_unprepare_at(struct clk *clk, const char *file, int line)
{
	struct dm_clk *c;

	if (!clk || !handle_lock(clk, "clk_unprepare", file, line))
		return;
	c = clk->core;
	if (!c->prepare_count) {
		pthread_mutex_unlock(&clk_lock);
		dmamap_dev_report(clk->dev, DMAMAP_REPORT_API_MISUSE, file, line, "clock %s already unprepared",
				  clock_name(c));
		return;
	}
	if (c->prepare_count == 1 && c->enable_count) {
		count_down(clk, false);
		pthread_mutex_unlock(&clk_lock);
		dmamap_dev_report(clk->dev, DMAMAP_REPORT_API_MISUSE, file, line, "Unpreparing enabled clock %s",
				  clock_name(c));
		return;
	}
	count_down(clk, false);
	pthread_mutex_unlock(&clk_lock);
}

DMAMAP_API int dmamap_clk_enable_at(struct clk *clk, const char *file, int line)
{
	struct dm_clk *c;

	if (!clk)
		return 0;
	if (!handle_lock(clk, "clk_enable", file, line))
		return -EINVAL;
	c = clk->core;
	if (!c->prepare_count) {
		pthread_mutex_unlock(&clk_lock);
		dmamap_dev_report(clk->dev, DMAMAP_REPORT_API_MISUSE, file, line, "Enabling unprepared clock %s",
				  clock_name(c));
		return -ESHUTDOWN;
	}
	count_up(clk, true, file, line);
	pthread_mutex_unlock(&clk_lock);
	return 0;
}

DMAMAP_API void dmamap_clk_disable_at(struct clk *clk, const char *file, int line)
{
	if (!clk || !handle_lock(clk, "clk_disable", file, line))
		return;
	if (!clk->core->enable_count) {
		pthread_mutex_unlock(&clk_lock);
		dmamap_dev_report(clk->dev, DMAMAP_REPORT_API_MISUSE, file, line, "clock %s already disabled",
				  clock_name(clk->core));
		return;
	}
	count_down(clk, true);
	pthread_mutex_unlock(&clk_lock);
}

DMAMAP_API int dmamap_clk_set_rate_at(struct clk *clk, unsigned long rate, const char *file, int line)
{
	if (!clk)
		return 0;
	if (!handle_lock(clk, "clk_set_rate", file, line))
		return -EINVAL;
	pthread_mutex_unlock(&clk_lock);
	dmamap_might_sleep_at("clk_set_rate", file, line);
	pthread_mutex_lock(&clk_lock);
	if (handle_live(clk))
		clk->core->rate = rate;
	pthread_mutex_unlock(&clk_lock);
	return 0;
}

DMAMAP_API unsigned long clk_get_rate(struct clk *clk)
{
	unsigned long rate = 0;

	if (IS_ERR_OR_NULL(clk))
		return 0;
	pthread_mutex_lock(&clk_lock);
	if (handle_live(clk))
		rate = clk->core->rate;
	pthread_mutex_unlock(&clk_lock);
	return rate;
}

DMAMAP_API long clk_round_rate(struct clk *clk, unsigned long rate)
{
	return clk ? (long)rate : 0;
}

/* ------------------------------------------------------------- managed */

/* The managed handle's release at unbind: what its get turned on, off, then the put. */
static void devm_clk_release(void *data)
{
	struct clk *h = data;

	if ((h->how & DMAMAP_CLK_ENABLED) == DMAMAP_CLK_ENABLED)
		dmamap_clk_disable_at(h, h->file, h->line);
	if (h->how & DMAMAP_CLK_PREPARED)
		dmamap_clk_unprepare_at(h, h->file, h->line);
	pthread_mutex_lock(&clk_lock);
	if (handle_live(h)) {
		report_still_on(h, DMAMAP_REPORT_LEAK, "left");
		handle_free(h);
	}
	pthread_mutex_unlock(&clk_lock);
}

/* devm_clk_get() and its forms, of @dev's clock @id or (@id NULL) its @nth. */
static struct clk *devm_get(struct device *dev, const char *id, unsigned int nth, unsigned int how, const char *file,
			    int line)
{
	struct clk *h;
	int err = 0;

	dmamap_might_sleep_at("devm_clk_get", file, line);
	h = handle_new(dev, id, nth, &err, file, line);
	if (!h)
		return (how & DMAMAP_CLK_OPTIONAL) && err == -ENOENT ? NULL : ERR_PTR(err);
	h->managed = true;
	if (how & DMAMAP_CLK_PREPARED)
		err = dmamap_clk_prepare_at(h, file, line);
	if (!err && (how & DMAMAP_CLK_ENABLED) == DMAMAP_CLK_ENABLED) {
		err = dmamap_clk_enable_at(h, file, line);
		if (err)
			dmamap_clk_unprepare_at(h, file, line);
	}
	if (err) {
		pthread_mutex_lock(&clk_lock);
		handle_free(h);
		pthread_mutex_unlock(&clk_lock);
		return ERR_PTR(err);
	}
	h->how = how;
	/* or_reset: when the record cannot be made, the release runs now */
	err = dmamap_devm_add_action(dev, devm_clk_release, h, true, file, line);
	return err ? ERR_PTR(err) : h;
}

DMAMAP_API struct clk *dmamap_devm_clk_get_at(struct device *dev, const char *id, unsigned int how,
					      const char *file, int line)
{
	if (!dm_dev_ok(dev, "devm_clk_get", file, line))
		return ERR_PTR(-EINVAL);
	return devm_get(dev, id, 0, how, file, line);
}

DMAMAP_API void dmamap_devm_clk_put_at(struct device *dev, struct clk *clk, const char *file, int line)
{
	bool managed;

	if (!dm_dev_ok(dev, "devm_clk_put", file, line) || IS_ERR_OR_NULL(clk) ||
	    !handle_lock(clk, "devm_clk_put", file, line))
		return;
	managed = clk->managed && clk->dev == dev;
	pthread_mutex_unlock(&clk_lock);
	if (!managed) {
		dmamap_dev_report(dev, DMAMAP_REPORT_API_MISUSE, file, line,
				  "devm_clk_put: the device holds no managed clock handle %p", (void *)clk);
		return;
	}
	devm_remove_action(dev, devm_clk_release, clk);
	pthread_mutex_lock(&clk_lock);
	report_still_on(clk, DMAMAP_REPORT_API_MISUSE, "put while still");
	handle_free(clk);
	pthread_mutex_unlock(&clk_lock);
}

DMAMAP_API int dmamap_devm_clk_bulk_get_all_at(struct device *dev, struct clk_bulk_data **clks, bool enable,
					       const char *file, int line)
{
	struct clk_bulk_data *b;
	unsigned int n = 0, i;
	int err = 0;

	if (!dm_dev_ok(dev, "devm_clk_bulk_get_all", file, line))
		return -EINVAL;
	if (!clks) {
		dmamap_dev_report(dev, DMAMAP_REPORT_BAD_INPUT, file, line, "devm_clk_bulk_get_all: NULL clks");
		return -EINVAL;
	}
	*clks = NULL;
	pthread_mutex_lock(&clk_lock);
	for (struct dm_clk *c = dev->dmamap.clocks; c; c = c->next)
		n++;
	pthread_mutex_unlock(&clk_lock);
	if (!n)
		return 0;
	b = dmamap_devm_kmalloc_array(dev, n, sizeof(*b), GFP_KERNEL, file, line);
	if (!b)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		struct clk *h = devm_get(dev, NULL, i, enable ? DMAMAP_CLK_ENABLED : 0, file, line);

		if (IS_ERR_OR_NULL(h)) {
			err = h ? (int)PTR_ERR(h) : -ENOENT;
			break;
		}
		b[i].clk = h;
		b[i].id = h->core->con_id;
	}
	if (!err) {
		*clks = b;
		return (int)n;
	}
	while (i--)
		devm_release_action(dev, devm_clk_release, b[i].clk);
	dmamap_devm_kfree(dev, b, file, line);
	return err;
}

/* ------------------------------------------------------------- unbind */

/*
 * What @dev's driver (or whoever got @dev's clocks) left: each clock on
 * through a handle, each handle not put, each clock left on by a handle
 * put since, reported as a leak where it was taken; then every count
 * dropped and every handle put.
 */
void dmamap_clk_unbind(struct device *dev)
{
	int depth = dm_call_suspend(); /* the reports name the driver's own lines */
	struct clk **pp;

	pthread_mutex_lock(&clk_lock);
	for (pp = &live_handles; *pp;) {
		struct clk *h = *pp;

		if (h->dev != dev) {
			pp = &h->next;
			continue;
		}
		report_still_on(h, DMAMAP_REPORT_LEAK, "left");
		dmamap_dev_report(dev, DMAMAP_REPORT_LEAK, h->file, h->line, "clock %s: clk_get() never put",
				  clock_name(h->core));
		h->core->enable_count -= h->enabled;
		h->core->prepare_count -= h->prepared;
		*pp = h->next;
		dmamap_free(h);
	}
	for (struct dm_clk *c = dev->dmamap.clocks; c; c = c->next) {
		if (c->enable_count || c->prepare_count)
			dmamap_dev_report(dev, DMAMAP_REPORT_LEAK, c->on_file, c->on_line,
					  "clock %s left %s through a handle put since (%u enable, %u prepare)",
					  clock_name(c), c->enable_count ? "enabled" : "prepared", c->enable_count,
					  c->prepare_count);
		c->enable_count = c->prepare_count = 0;
	}
	pthread_mutex_unlock(&clk_lock);
	dm_call_resume(depth);
}

/* dmamap_clk_unbind(), then @dev's clocks freed: the device's release. */
void dmamap_clk_release(struct device *dev)
{
	struct dm_clk *c;

	dmamap_clk_unbind(dev);
	pthread_mutex_lock(&clk_lock);
	c = dev->dmamap.clocks;
	dev->dmamap.clocks = NULL;
	pthread_mutex_unlock(&clk_lock);
	while (c) {
		struct dm_clk *next = c->next;

		dmamap_free(c);
		c = next;
	}
}
