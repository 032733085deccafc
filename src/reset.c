/* SPDX-License-Identifier: MIT */
/*
 * Reset lines wired to devices, and the consumer calls of the reset
 * controller framework (<dmamap/reset.h>). A line keeps its state and the
 * shared deassert count; each get is a handle on the process's list of live
 * handles, by which a handle is checked before it is used and the holders of
 * a line are found. An array control holds a handle per line, its members,
 * on the list too. One lock guards every line and the list.
 */
#include "internal.h"

struct dm_rst {
	struct dm_rst *next;
	char *id; /* NULL: no name */
	bool asserted;
	bool triggered; /* pulsed through a shared control, not rearmed */
	unsigned int pulses;
	unsigned int deassert_count;
};

struct reset_control {
	struct reset_control *next; /* the process's live handles */
	struct dm_rst *rst;         /* NULL for an array */
	struct device *dev;
	struct reset_control *owner; /* the array holding this member, or NULL */
	struct reset_control **members;
	unsigned int nmembers;
	bool shared, acquired, managed, deasserted;
	const char *file; /* the get */
	int line;
};

static pthread_mutex_t rst_lock = PTHREAD_MUTEX_INITIALIZER;
static struct reset_control *live_handles;

/* @dev's line named @id, or (@id NULL) its @nth, or NULL. Under rst_lock. */
static struct dm_rst *line_find(struct device *dev, const char *id, unsigned int nth)
{
	for (struct dm_rst *r = dev->dmamap.resets; r; r = r->next)
		if (id ? r->id && !strcmp(r->id, id) : !nth--)
			return r;
	return NULL;
}

static const char *line_name(const struct dm_rst *r)
{
	return r->id ? r->id : "(unnamed)";
}

/* Whether @h is a live handle (NULL and error pointers are not). Under rst_lock. */
static bool handle_live(const struct reset_control *h)
{
	for (const struct reset_control *l = live_handles; l; l = l->next)
		if (l == h)
			return true;
	return false;
}

/* Check @h for @what: true when it is live, with rst_lock held; false, reported, without. */
static bool handle_lock(struct reset_control *h, const char *what, const char *file, int line)
{
	pthread_mutex_lock(&rst_lock);
	if (handle_live(h) && !h->owner)
		return true;
	pthread_mutex_unlock(&rst_lock);
	dmamap_report(dmamap_machine_peek_current(), DMAMAP_REPORT_BAD_INPUT, NULL, file, line, "%s(%p): %s", what,
		      (void *)h,
		      IS_ERR(h) ? "an error pointer" : "not a live reset control (put already, or never got)");
	return false;
}

DMAMAP_API int dmamap_device_add_reset(struct device *dev, const char *id, bool asserted)
{
	struct dm_rst *r;

	if (!dm_dev_ok(dev, "dmamap_device_add_reset", NULL, 0))
		return -EINVAL;
	if (dev->driver) {
		dmamap_dev_report(dev, DMAMAP_REPORT_BAD_INPUT, NULL, 0,
				  "dmamap_device_add_reset: driver %s is bound: the board wires resets before it binds",
				  dev->driver->name ? dev->driver->name : "(unnamed)");
		return -EBUSY;
	}
	r = dmamap_zalloc(dm_dev_machine(dev), sizeof(*r) + (id ? strlen(id) + 1 : 0));
	if (!r)
		return -ENOMEM;
	if (id)
		r->id = strcpy((char *)(r + 1), id);
	r->asserted = asserted;
	pthread_mutex_lock(&rst_lock);
	if (id && line_find(dev, id, 0)) {
		pthread_mutex_unlock(&rst_lock);
		dmamap_free(r);
		dmamap_dev_report(dev, DMAMAP_REPORT_BAD_INPUT, NULL, 0,
				  "dmamap_device_add_reset: the device has a reset \"%s\" already", id);
		return -EINVAL;
	}
	if (!dev->dmamap.resets) {
		dev->dmamap.resets = r;
	} else {
		struct dm_rst *t = dev->dmamap.resets;

		while (t->next)
			t = t->next;
		t->next = r;
	}
	pthread_mutex_unlock(&rst_lock);
	return 0;
}

DMAMAP_API int dmamap_device_reset_state(struct device *dev, const char *id, struct dmamap_reset_state *st)
{
	struct dm_rst *r;

	if (!dm_dev_ok(dev, "dmamap_device_reset_state", NULL, 0))
		return -EINVAL;
	if (!st) {
		dmamap_dev_report(dev, DMAMAP_REPORT_BAD_INPUT, NULL, 0, "dmamap_device_reset_state: NULL state");
		return -EINVAL;
	}
	pthread_mutex_lock(&rst_lock);
	r = line_find(dev, id, 0);
	if (r) {
		st->asserted = r->asserted;
		st->pulses = r->pulses;
		st->deassert_count = r->deassert_count;
		st->handles = 0;
		for (const struct reset_control *h = live_handles; h; h = h->next)
			st->handles += h->rst == r;
	}
	pthread_mutex_unlock(&rst_lock);
	return r ? 0 : -ENOENT;
}

/* The kernel's name of a get of @flags, for messages. */
static const char *get_name(unsigned int flags, bool managed)
{
	static const char *const names[2][8] = {
		{ "reset_control_get_exclusive", "reset_control_get_shared",
		  "reset_control_get_optional_exclusive", "reset_control_get_optional_shared",
		  "reset_control_get_exclusive_released", "reset_control_get_shared",
		  "reset_control_get_optional_exclusive_released", "reset_control_get_optional_shared" },
		{ "devm_reset_control_get_exclusive", "devm_reset_control_get_shared",
		  "devm_reset_control_get_optional_exclusive", "devm_reset_control_get_optional_shared",
		  "devm_reset_control_get_exclusive_released", "devm_reset_control_get_shared",
		  "devm_reset_control_get_optional_exclusive_released", "devm_reset_control_get_optional_shared" },
	};

	return names[managed][flags & 7];
}

/*
 * Whether a get of @flags may take line @r: not while a control holds it
 * in the other mode, nor (acquired exclusive) while any holds it. Under
 * rst_lock; the holder found is given in *@holder.
 */
static bool line_free_for(struct dm_rst *r, unsigned int flags, struct reset_control **holder)
{
	bool shared = flags & DMAMAP_RESET_SHARED, released = flags & DMAMAP_RESET_RELEASED;

	for (struct reset_control *h = live_handles; h; h = h->next) {
		if (h->rst != r)
			continue;
		if (shared ? !h->shared : !released || h->shared) {
			*holder = h->owner ? h->owner : h;
			return false;
		}
	}
	return true;
}

/*
 * A new live handle of @flags on @dev's line @id (or its @nth), for the get
 * @what at @file:@line; NULL with *@err set when there is none (an -EBUSY
 * reported).
 */
static struct reset_control *handle_new(struct device *dev, const char *id, unsigned int nth, unsigned int flags,
					const char *what, int *err, const char *file, int line)
{
	struct reset_control *h = dmamap_zalloc(dm_dev_machine(dev), sizeof(*h)), *holder = NULL;
	struct dm_rst *r;

	if (!h) {
		*err = -ENOMEM;
		return NULL;
	}
	pthread_mutex_lock(&rst_lock);
	r = line_find(dev, id, nth);
	if (!r) {
		pthread_mutex_unlock(&rst_lock);
		dmamap_free(h);
		*err = -ENOENT;
		return NULL;
	}
	if (!line_free_for(r, flags, &holder)) {
		const char *hfile = holder->file ? holder->file : "?";
		int hline = holder->line;
		bool hshared = holder->shared;

		pthread_mutex_unlock(&rst_lock);
		dmamap_free(h);
		dmamap_dev_report(dev, DMAMAP_REPORT_API_MISUSE, file, line,
				  "%s: reset %s is held %s (got at %s:%d): -EBUSY", what, line_name(r),
				  hshared ? "shared" : "exclusively", hfile, hline);
		*err = -EBUSY;
		return NULL;
	}
	h->rst = r;
	h->dev = dev;
	h->shared = flags & DMAMAP_RESET_SHARED;
	h->acquired = !h->shared && !(flags & DMAMAP_RESET_RELEASED);
	h->file = file;
	h->line = line;
	h->next = live_handles;
	live_handles = h;
	pthread_mutex_unlock(&rst_lock);
	return h;
}

/* Whether @flags are a get's: released is exclusive only, deasserted devm_ only (reported when not). */
static bool flags_ok(struct device *dev, unsigned int flags, bool managed, const char *what, const char *file,
		     int line)
{
	unsigned int known = DMAMAP_RESET_SHARED | DMAMAP_RESET_OPTIONAL | DMAMAP_RESET_RELEASED |
			     (managed ? DMAMAP_RESET_DEASSERTED : 0);

	if (!(flags & ~known) && !((flags & DMAMAP_RESET_SHARED) && (flags & DMAMAP_RESET_RELEASED)) &&
	    !((flags & DMAMAP_RESET_RELEASED) && (flags & DMAMAP_RESET_DEASSERTED)))
		return true;
	dmamap_dev_report(dev, DMAMAP_REPORT_BAD_INPUT, file, line, "%s: flags %#x are no get's", what, flags);
	return false;
}

DMAMAP_API struct reset_control *dmamap_reset_control_get_at(struct device *dev, const char *id, unsigned int index,
							     unsigned int flags, const char *file, int line)
{
	const char *what = get_name(flags, false);
	struct reset_control *h;
	int err;

	if (!dm_dev_ok(dev, what, file, line) || !flags_ok(dev, flags, false, what, file, line))
		return ERR_PTR(-EINVAL);
	dmamap_might_sleep_at(what, file, line);
	h = handle_new(dev, id, index, flags, what, &err, file, line);
	if (h)
		return h;
	return (flags & DMAMAP_RESET_OPTIONAL) && err == -ENOENT ? NULL : ERR_PTR(err);
}

/* Take @h (and an array's members) off the live list and free it; the line's shared count goes with its last. */
static void handle_free(struct reset_control *h)
{
	for (unsigned int i = 0; i < h->nmembers; i++)
		if (h->members[i])
			handle_free(h->members[i]);
	for (struct reset_control **pp = &live_handles; *pp; pp = &(*pp)->next) {
		if (*pp == h) {
			*pp = h->next;
			break;
		}
	}
	if (h->rst && h->shared) {
		bool last = true;

		for (const struct reset_control *o = live_handles; o && last; o = o->next)
			last = !(o->rst == h->rst && o->shared);
		if (last) {
			h->rst->deassert_count = 0;
			h->rst->triggered = false;
		}
	}
	dmamap_free(h);
}

DMAMAP_API void dmamap_reset_control_put_at(struct reset_control *rstc, const char *file, int line)
{
	if (IS_ERR_OR_NULL(rstc))
		return;
	dmamap_might_sleep_at("reset_control_put", file, line);
	if (!handle_lock(rstc, "reset_control_put", file, line))
		return;
	if (rstc->managed) {
		const char *gfile = rstc->file ? rstc->file : "?";
		int gline = rstc->line;

		pthread_mutex_unlock(&rst_lock);
		dmamap_dev_report(rstc->dev, DMAMAP_REPORT_API_MISUSE, file, line,
				  "reset_control_put: the control was got with a devm_ call at %s:%d: "
				  "the device puts it", gfile, gline);
		return;
	}
	handle_free(rstc);
	pthread_mutex_unlock(&rst_lock);
}

/* ------------------------------------------------------------ the calls */

enum rst_op { OP_ASSERT, OP_DEASSERT, OP_RESET, OP_REARM };

static const char *const op_names[] = {
	[OP_ASSERT] = "reset_control_assert",
	[OP_DEASSERT] = "reset_control_deassert",
	[OP_RESET] = "reset_control_reset",
	[OP_REARM] = "reset_control_rearm",
};

/*
 * @op through the single control @h: 0, or an error with nothing changed
 * and *@why set to what the report says. Under rst_lock.
 */
static int line_op(struct reset_control *h, enum rst_op op, const char **why)
{
	struct dm_rst *r = h->rst;

	if (!h->shared) {
		if (!h->acquired) {
			*why = "the exclusive control is not acquired";
			return -EPERM;
		}
		if (op == OP_ASSERT || op == OP_DEASSERT)
			r->asserted = op == OP_ASSERT;
		if (op == OP_RESET) {
			r->pulses++;
			r->asserted = false;
		}
		return 0;
	}
	switch (op) {
	case OP_ASSERT:
	case OP_DEASSERT:
		if (r->triggered) {
			*why = "the shared line was pulsed by reset_control_reset() and not rearmed";
			return -EINVAL;
		}
		if (op == OP_DEASSERT) {
			if (!r->deassert_count++)
				r->asserted = false;
			return 0;
		}
		if (!r->deassert_count) {
			*why = "a shared assert with no deassert to match";
			return -EINVAL;
		}
		if (!--r->deassert_count)
			r->asserted = true;
		return 0;
	case OP_RESET:
		if (r->deassert_count) {
			*why = "the shared line is deasserted";
			return -EINVAL;
		}
		if (!r->triggered) {
			r->triggered = true;
			r->pulses++;
			r->asserted = false;
		}
		return 0;
	case OP_REARM:
		if (r->deassert_count) {
			*why = "the shared line is deasserted";
			return -EINVAL;
		}
		if (!r->triggered) {
			*why = "the shared line was not pulsed";
			return -EDOM;
		}
		r->triggered = false;
		return 0;
	}
	return -EINVAL;
}

/* The op that undoes @op of an array's members when a later one fails, or -1 when none does. */
static int op_undo(enum rst_op op)
{
	return op == OP_ASSERT ? OP_DEASSERT : op == OP_DEASSERT ? OP_ASSERT : -1;
}

static int do_op(struct reset_control *rstc, enum rst_op op, const char *file, int line)
{
	struct reset_control *failed = rstc;
	const char *why = NULL;
	int ret = 0;

	if (!rstc)
		return 0;
	if (!handle_lock(rstc, op_names[op], file, line))
		return -EINVAL;
	if (!rstc->nmembers) {
		ret = line_op(rstc, op, &why);
	} else {
		unsigned int i;

		for (i = 0; i < rstc->nmembers && !ret; i++)
			ret = line_op(rstc->members[i], op, &why);
		if (ret) {
			const char *ignored;

			failed = rstc->members[--i];
			while (op_undo(op) >= 0 && i--)
				line_op(rstc->members[i], (enum rst_op)op_undo(op), &ignored);
		}
	}
	if (ret) {
		struct device *dev = rstc->dev;
		const char *name = line_name(failed->rst);

		pthread_mutex_unlock(&rst_lock);
		dmamap_dev_report(dev, DMAMAP_REPORT_API_MISUSE, file, line, "%s: reset %s: %s (%d)", op_names[op],
				  name, why, ret);
		return ret;
	}
	pthread_mutex_unlock(&rst_lock);
	return 0;
}

DMAMAP_API int dmamap_reset_control_assert_at(struct reset_control *rstc, const char *file, int line)
{
	return do_op(rstc, OP_ASSERT, file, line);
}

DMAMAP_API int dmamap_reset_control_deassert_at(struct reset_control *rstc, const char *file, int line)
{
	return do_op(rstc, OP_DEASSERT, file, line);
}

DMAMAP_API int dmamap_reset_control_reset_at(struct reset_control *rstc, const char *file, int line)
{
	return do_op(rstc, OP_RESET, file, line);
}

DMAMAP_API int dmamap_reset_control_rearm_at(struct reset_control *rstc, const char *file, int line)
{
	return do_op(rstc, OP_REARM, file, line);
}

DMAMAP_API int dmamap_reset_control_status_at(struct reset_control *rstc, const char *file, int line)
{
	struct device *dev;
	int ret;

	if (!rstc)
		return 0;
	if (!handle_lock(rstc, "reset_control_status", file, line))
		return -EINVAL;
	if (!rstc->nmembers) {
		ret = rstc->rst->asserted;
		pthread_mutex_unlock(&rst_lock);
		return ret;
	}
	dev = rstc->dev;
	pthread_mutex_unlock(&rst_lock);
	dmamap_dev_report(dev, DMAMAP_REPORT_API_MISUSE, file, line,
			  "reset_control_status: an array control has no one status (-EINVAL)");
	return -EINVAL;
}

/* Whether another control than @h holds @h's line acquired. Under rst_lock. */
static bool line_acquired_by_other(const struct reset_control *h)
{
	for (const struct reset_control *o = live_handles; o; o = o->next)
		if (o != h && o->rst == h->rst && !o->shared && o->acquired)
			return true;
	return false;
}

DMAMAP_API int dmamap_reset_control_acquire_at(struct reset_control *rstc, const char *file, int line)
{
	unsigned int i;

	if (!rstc)
		return 0;
	if (!handle_lock(rstc, "reset_control_acquire", file, line))
		return -EINVAL;
	pthread_mutex_unlock(&rst_lock);
	dmamap_might_sleep_at("reset_control_acquire", file, line);
	pthread_mutex_lock(&rst_lock);
	if (!handle_live(rstc)) { /* put meanwhile */
		pthread_mutex_unlock(&rst_lock);
		return -EINVAL;
	}
	if (!rstc->nmembers) {
		if (!rstc->shared && !rstc->acquired) {
			if (line_acquired_by_other(rstc)) {
				pthread_mutex_unlock(&rst_lock);
				return -EBUSY;
			}
			rstc->acquired = true;
		}
		pthread_mutex_unlock(&rst_lock);
		return 0;
	}
	/* an array: all or none */
	for (i = 0; i < rstc->nmembers; i++) {
		struct reset_control *m = rstc->members[i];

		if (!m->shared && !m->acquired && line_acquired_by_other(m))
			break;
	}
	if (i < rstc->nmembers) {
		pthread_mutex_unlock(&rst_lock);
		return -EBUSY;
	}
	for (i = 0; i < rstc->nmembers; i++)
		if (!rstc->members[i]->shared)
			rstc->members[i]->acquired = true;
	pthread_mutex_unlock(&rst_lock);
	return 0;
}

DMAMAP_API void dmamap_reset_control_release_at(struct reset_control *rstc, const char *file, int line)
{
	if (!rstc || !handle_lock(rstc, "reset_control_release", file, line))
		return;
	if (!rstc->nmembers) {
		if (!rstc->shared)
			rstc->acquired = false;
	} else {
		for (unsigned int i = 0; i < rstc->nmembers; i++)
			if (!rstc->members[i]->shared)
				rstc->members[i]->acquired = false;
	}
	pthread_mutex_unlock(&rst_lock);
}

/* ------------------------------------------------------------- managed */

/* The managed handle's release at unbind: asserted again if its get deasserted it, then put. */
static void devm_reset_release(void *data)
{
	struct reset_control *h = data;

	if (h->deasserted)
		dmamap_reset_control_assert_at(h, h->file, h->line);
	pthread_mutex_lock(&rst_lock);
	if (handle_live(h))
		handle_free(h);
	pthread_mutex_unlock(&rst_lock);
}

/* Make @h @dev's until it unbinds, deasserting it first when @flags say so; @h or an error with @h put. */
static struct reset_control *devm_keep(struct device *dev, struct reset_control *h, unsigned int flags,
				       const char *file, int line)
{
	int err;

	h->managed = true;
	if (flags & DMAMAP_RESET_DEASSERTED) {
		err = dmamap_reset_control_deassert_at(h, file, line);
		if (err) {
			pthread_mutex_lock(&rst_lock);
			handle_free(h);
			pthread_mutex_unlock(&rst_lock);
			return ERR_PTR(err);
		}
		h->deasserted = true;
	}
	/* or_reset: when the record cannot be made, the release runs now */
	err = dmamap_devm_add_action(dev, devm_reset_release, h, true, file, line);
	return err ? ERR_PTR(err) : h;
}

DMAMAP_API struct reset_control *dmamap_devm_reset_control_get_at(struct device *dev, const char *id,
								  unsigned int index, unsigned int flags,
								  const char *file, int line)
{
	const char *what = get_name(flags, true);
	struct reset_control *h;
	int err;

	if (!dm_dev_ok(dev, what, file, line) || !flags_ok(dev, flags, true, what, file, line))
		return ERR_PTR(-EINVAL);
	dmamap_might_sleep_at(what, file, line);
	h = handle_new(dev, id, index, flags, what, &err, file, line);
	if (!h)
		return (flags & DMAMAP_RESET_OPTIONAL) && err == -ENOENT ? NULL : ERR_PTR(err);
	return devm_keep(dev, h, flags, file, line);
}

DMAMAP_API struct reset_control *dmamap_devm_reset_control_array_get_at(struct device *dev, unsigned int flags,
									const char *file, int line)
{
	const char *what = "devm_reset_control_array_get";
	struct reset_control *a, *h;
	unsigned int n = 0, i;
	int err = 0;

	if (!dm_dev_ok(dev, what, file, line) || !flags_ok(dev, flags, false, what, file, line))
		return ERR_PTR(-EINVAL);
	dmamap_might_sleep_at(what, file, line);
	pthread_mutex_lock(&rst_lock);
	for (struct dm_rst *r = dev->dmamap.resets; r; r = r->next)
		n++;
	pthread_mutex_unlock(&rst_lock);
	if (!n)
		return flags & DMAMAP_RESET_OPTIONAL ? NULL : ERR_PTR(-ENOENT);
	a = dmamap_zalloc(dm_dev_machine(dev), sizeof(*a) + n * sizeof(a->members[0]));
	if (!a)
		return ERR_PTR(-ENOMEM);
	a->members = (struct reset_control **)(a + 1);
	a->dev = dev;
	a->shared = flags & DMAMAP_RESET_SHARED;
	a->file = file;
	a->line = line;
	for (i = 0; i < n; i++) {
		h = handle_new(dev, NULL, i, flags, what, &err, file, line);
		if (!h)
			break;
		h->owner = a;
		a->members[i] = h;
	}
	pthread_mutex_lock(&rst_lock);
	if (err) {
		a->nmembers = i;
		/* a is on no list yet: free its members, then it */
		for (unsigned int j = 0; j < i; j++)
			handle_free(a->members[j]);
		pthread_mutex_unlock(&rst_lock);
		dmamap_free(a);
		return ERR_PTR(err);
	}
	a->nmembers = n;
	a->next = live_handles;
	live_handles = a;
	pthread_mutex_unlock(&rst_lock);
	return devm_keep(dev, a, flags, file, line);
}

/* ------------------------------------------------------------- unbind */

/*
 * What @dev's driver (or whoever got @dev's lines) left: each handle never
 * put, reported as a leak where it was got, then put. The lines stay as
 * they are.
 */
void dmamap_reset_unbind(struct device *dev)
{
	int depth = dm_call_suspend(); /* the reports name the gets' own lines */
	struct reset_control **pp;

	pthread_mutex_lock(&rst_lock);
	for (pp = &live_handles; *pp;) {
		struct reset_control *h = *pp;

		if (h->dev != dev || h->owner) {
			pp = &h->next;
			continue;
		}
		dmamap_dev_report(dev, DMAMAP_REPORT_LEAK, h->file, h->line, "reset %s: control got here never put",
				  h->rst ? line_name(h->rst) : "array");
		handle_free(h);
		pp = &live_handles; /* members may have gone from anywhere on the list */
	}
	pthread_mutex_unlock(&rst_lock);
	dm_call_resume(depth);
}

/* dmamap_reset_unbind(), then @dev's lines freed: the device's release. */
void dmamap_reset_release(struct device *dev)
{
	struct dm_rst *r;

	dmamap_reset_unbind(dev);
	pthread_mutex_lock(&rst_lock);
	r = dev->dmamap.resets;
	dev->dmamap.resets = NULL;
	pthread_mutex_unlock(&rst_lock);
	while (r) {
		struct dm_rst *next = r->next;

		dmamap_free(r);
		r = next;
	}
}
