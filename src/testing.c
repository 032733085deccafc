/* SPDX-License-Identifier: MIT */
/*
 * The test kit (<dmamap/testing.h>): a fixture that makes a machine and a
 * device with chosen traits and captures the machine's reports, the checks a
 * driver's tests assert with, and the fault sweep over a fixture. Built on the
 * public API of every layer; nothing below calls it.
 */
#include <stdio.h>
#include <stdlib.h>

#include "internal.h"

#include <dmamap/testing.h>

struct dmamap_test_private {
	pthread_mutex_t lock;            /* the captured reports */
	bool own_machine;
	bool capture;
	bool quiet;
};

DMAMAP_API void dmamap_test_demanding_config(struct dmamap_machine_config *cfg, bool bounce)
{
	if (!cfg)
		return;
	dmamap_machine_config_init(cfg);
	cfg->ram_size = 64u << 20;
	cfg->consistent_size = 4u << 20;
	cfg->outer_cache = true;
	cfg->speculative_prefetch = true;
	if (bounce) {
		cfg->ram_base = 0;
		cfg->ram_size = 128u << 20;
		cfg->dma_zone_limit = 64u << 20;
	}
}

static void copy_str(char *dst, size_t len, const char *src)
{
	snprintf(dst, len, "%s", src ? src : "");
}

static void capture(const struct dmamap_log_record *rec, void *ctx)
{
	struct dmamap_test *t = ctx;
	struct dmamap_test_private *p = t->priv;

	if (rec->kind == DMAMAP_REPORT_NONE) {
		/* a driver's own messages (dev_err(), dev_warn(), a WARN_ON() that fired): said, as without the fixture */
		if (!p->quiet && rec->level <= DMAMAP_LOG_WARN)
			fprintf(stderr, "dmamap %s: %s%s%s\n", rec->level == DMAMAP_LOG_ERR ? "error" : "warning",
				rec->device ? rec->device : "", rec->device ? ": " : "", rec->message);
		return;
	}
	if (!p->quiet)
		fprintf(stderr, "dmamap report [%s] %s%s%s:%d: %s\n", dmamap_report_kind_name(rec->kind),
			rec->device ? rec->device : "", rec->device ? " at " : "", rec->file ? rec->file : "?", rec->line,
			rec->message);
	pthread_mutex_lock(&p->lock);
	t->reports++;
	if ((unsigned)rec->kind < DMAMAP_REPORT_KIND_NR)
		t->by_kind[rec->kind]++;
	if (t->nr_kept < DMAMAP_TEST_MAX_REPORTS) {
		struct dmamap_test_report *r = &t->kept[t->nr_kept++];

		r->kind = rec->kind;
		r->category = rec->category;
		r->line = rec->line;
		r->map_line = rec->map_line;
		r->bus_addr = rec->bus_addr;
		r->size = rec->size;
		r->direction = rec->direction;
		copy_str(r->device, sizeof(r->device), rec->device);
		copy_str(r->file, sizeof(r->file), rec->file);
		copy_str(r->map_file, sizeof(r->map_file), rec->map_file);
		copy_str(r->message, sizeof(r->message), rec->message);
	}
	pthread_mutex_unlock(&p->lock);
}

static void reset_capture(struct dmamap_test *t)
{
	t->reports = 0;
	t->nr_kept = 0;
	memset(t->by_kind, 0, sizeof(t->by_kind));
	memset(t->kept, 0, sizeof(t->kept));
}

/* Set the device up as @tr says; 0 or -errno with the device released. */
static int device_setup(struct dmamap_test *t, const struct dmamap_test_traits *tr)
{
	unsigned bits = tr->mask_bits ? tr->mask_bits : tr->bounce ? 26 : 32;
	u64 mask = DMA_BIT_MASK(bits > 64 ? 64 : bits);
	int err;

	err = dmamap_device_init(&t->dev, t->machine, tr->name ? tr->name : "dut");
	if (err)
		return err;
	t->dev.dma_coherent = tr->coherent;
	if (tr->bounce) {
		/* what the board code of a bus-limited SoC does before its drivers probe */
		*t->dev.dma_mask = mask;
		t->dev.coherent_dma_mask = mask;
		err = dmabounce_register_dev(&t->dev, tr->bounce_small ? tr->bounce_small : 512,
					     tr->bounce_large ? tr->bounce_large : 4096, NULL);
	} else {
		err = dma_set_mask_and_coherent(&t->dev, mask);
	}
	if (!err && tr->iommu) {
		size_t size = tr->iova_size ? tr->iova_size : 256u << 20;
		dma_addr_t base = tr->iova_size ? tr->iova_base : 0x80000000u;

		t->mapping = arm_iommu_create_mapping(t->machine, base, size, 0);
		if (IS_ERR(t->mapping)) {
			err = (int)PTR_ERR(t->mapping);
			t->mapping = NULL;
		} else {
			err = arm_iommu_attach_device(&t->dev, t->mapping);
		}
	}
	if (err) {
		dmamap_device_release(&t->dev);
		if (t->mapping)
			arm_iommu_release_mapping(t->mapping);
		t->mapping = NULL;
	}
	return err;
}

static int init_on(struct dmamap_test *t, struct dmamap_machine *m, const struct dmamap_test_traits *traits,
		   bool own, bool capture_reports)
{
	struct dmamap_test_traits none = { 0 };
	const struct dmamap_test_traits *tr = traits ? traits : &none;
	int err;

	memset(t, 0, sizeof(*t));
	if (!m || (tr->iommu && tr->bounce))
		return -EINVAL;
	t->priv = calloc(1, sizeof(*t->priv));
	if (!t->priv)
		return -ENOMEM;
	pthread_mutex_init(&t->priv->lock, NULL);
	t->priv->own_machine = own;
	t->priv->capture = capture_reports;
	t->priv->quiet = tr->quiet;
	t->machine = m;
	if (capture_reports)
		dmamap_set_log_handler(m, capture, t);
	err = device_setup(t, tr);
	if (err) {
		if (capture_reports)
			dmamap_set_log_handler(m, NULL, NULL);
		pthread_mutex_destroy(&t->priv->lock);
		free(t->priv);
		t->priv = NULL;
		t->machine = NULL;
	}
	return err;
}

DMAMAP_API int dmamap_test_init_on(struct dmamap_test *t, struct dmamap_machine *m,
				   const struct dmamap_test_traits *traits)
{
	if (!t)
		return -EINVAL;
	return init_on(t, m, traits, false, true);
}

DMAMAP_API int dmamap_test_init(struct dmamap_test *t, const struct dmamap_test_traits *traits)
{
	struct dmamap_machine_config cfg;
	struct dmamap_machine *m;
	int err;

	if (!t)
		return -EINVAL;
	if (traits && traits->cfg)
		cfg = *traits->cfg;
	else
		dmamap_test_demanding_config(&cfg, traits && traits->bounce);
	m = dmamap_machine_create(&cfg);
	if (!m)
		return errno == EINVAL ? -EINVAL : -ENOMEM;
	err = init_on(t, m, traits, true, true);
	if (err) {
		dmamap_machine_destroy(m);
		return err;
	}
	atomic_store(&m->adopts_orphans, true);
	dmamap_machine_set_current(m);
	return 0;
}

/* Release the device and its mapping; the machine stays. */
static void device_teardown(struct dmamap_test *t)
{
	if (dm_dev_live(&t->dev))
		dmamap_device_release(&t->dev);
	if (t->mapping)
		arm_iommu_release_mapping(t->mapping);
	t->mapping = NULL;
}

DMAMAP_API void dmamap_test_fini(struct dmamap_test *t)
{
	struct dmamap_machine *m;

	if (!t || !t->priv)
		return;
	m = t->machine;
	device_teardown(t);
	if (t->priv->own_machine) {
		if (dmamap_machine_peek_current() == m)
			dmamap_machine_set_current(NULL);
		dmamap_machine_destroy(m);
	} else if (t->priv->capture) {
		dmamap_set_log_handler(m, NULL, NULL);
	}
	pthread_mutex_destroy(&t->priv->lock);
	free(t->priv);
	t->priv = NULL;
	t->machine = NULL;
}

DMAMAP_API void dmamap_test_reset_reports(struct dmamap_test *t)
{
	if (!t)
		return;
	if (t->priv)
		pthread_mutex_lock(&t->priv->lock);
	reset_capture(t);
	if (t->priv)
		pthread_mutex_unlock(&t->priv->lock);
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);

	return a >= b && strcmp(s + a - b, suffix) == 0;
}

DMAMAP_API const struct dmamap_test_report *dmamap_test_find_report(const struct dmamap_test *t,
								    enum dmamap_report_kind kind, const char *file,
								    int line)
{
	if (!t)
		return NULL;
	for (unsigned i = 0; i < t->nr_kept && i < DMAMAP_TEST_MAX_REPORTS; i++) {
		const struct dmamap_test_report *r = &t->kept[i];

		if (kind != DMAMAP_REPORT_NONE && r->kind != kind && r->category != kind)
			continue;
		if (file && !ends_with(r->file, file))
			continue;
		if (line && r->line != line)
			continue;
		return r;
	}
	return NULL;
}

static void say(char *why, size_t len, const char *fmt, ...) DMAMAP_PRINTF(3, 4);

static void say(char *why, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (!why || !len)
		return;
	va_start(ap, fmt);
	vsnprintf(why, len, fmt, ap);
	va_end(ap);
}

DMAMAP_API bool dmamap_test_no_reports(const struct dmamap_test *t, char *why, size_t len)
{
	const struct dmamap_test_report *r;

	if (!t) {
		say(why, len, "no fixture");
		return false;
	}
	if (!t->reports) {
		say(why, len, "no reports");
		return true;
	}
	r = &t->kept[0];
	say(why, len, "%lu report%s; the first: [%s] %s%s%s:%d: %s", t->reports, t->reports == 1 ? "" : "s",
	    dmamap_report_kind_name(r->kind), r->device, r->device[0] ? " at " : "", r->file[0] ? r->file : "?",
	    r->line, r->message);
	return false;
}

DMAMAP_API bool dmamap_test_no_outstanding(struct dmamap_test *t, char *why, size_t len)
{
	struct dmamap_checker_stats st;
	unsigned long n;

	if (!t || !t->machine) {
		say(why, len, "no fixture (or it was released)");
		return false;
	}
	dmamap_checker_stats(t->machine, &st);
	n = st.live_single + st.live_page + st.live_sg + st.live_coherent + st.live_pool;
	if (!dmamap_checker_enabled(t->machine)) {
		say(why, len, "the checker is off: nothing is tracked");
		return true;
	}
	if (!n) {
		say(why, len, "no outstanding mappings");
		return true;
	}
	say(why, len,
	    "outstanding: %lu dma_map_single, %lu dma_map_page, %lu dma_map_sg, %lu coherent buffers, %lu pool blocks",
	    st.live_single, st.live_page, st.live_sg, st.live_coherent, st.live_pool);
	return false;
}

DMAMAP_API bool dmamap_test_device_sees_loc(struct dmamap_test *t, dma_addr_t addr, const void *bytes, size_t len,
					    char *why, size_t wlen, const char *file, int line)
{
	const u8 *want = bytes;
	u8 *got;
	int err;

	if (!t || !t->machine || !bytes || !len) {
		say(why, wlen, "dmamap_test_device_sees: %s", !t || !t->machine ? "no fixture" : "nothing to compare");
		return false;
	}
	got = malloc(len);
	if (!got) {
		say(why, wlen, "dmamap_test_device_sees: no memory");
		return false;
	}
	err = dmamap_dev_read_loc(&t->dev, addr, got, len, file, line);
	if (err) {
		say(why, wlen, "the device cannot read bus %#llx+%#zx (%d): see the report", (unsigned long long)addr, len,
		    err);
		free(got);
		return false;
	}
	for (size_t i = 0; i < len; i++) {
		if (got[i] != want[i]) {
			size_t diff = 0;

			for (size_t k = i; k < len; k++)
				diff += got[k] != want[k];
			say(why, wlen,
			    "the device sees %#04x at bus %#llx (byte %zu of %zu), not %#04x; %zu bytes differ",
			    got[i], (unsigned long long)(addr + i), i, len, want[i], diff);
			free(got);
			return false;
		}
	}
	free(got);
	say(why, wlen, "the device sees every byte");
	return true;
}

/* ------------------------------------------------------------ the fault sweep */

struct sweep_ctx {
	const struct dmamap_test_traits *traits;
	int (*scenario)(struct dmamap_test *t, void *ctx);
	void (*cleanup)(struct dmamap_test *t, void *ctx);
	void *ctx;
	struct dmamap_test t;
};

static int sweep_setup(struct dmamap_machine *m, void *ctx)
{
	struct sweep_ctx *s = ctx;

	/* the sweep watches the machine's reports itself: no capture here */
	return init_on(&s->t, m, s->traits, false, false);
}

static int sweep_scenario(struct dmamap_machine *m, void *ctx)
{
	struct sweep_ctx *s = ctx;

	(void)m;
	return s->scenario(&s->t, s->ctx);
}

static void sweep_teardown(struct dmamap_machine *m, void *ctx, int ret)
{
	struct sweep_ctx *s = ctx;

	(void)m;
	if (!ret && s->cleanup)
		s->cleanup(&s->t, s->ctx);
	dmamap_test_fini(&s->t);
}

DMAMAP_API int dmamap_test_fault_sweep(const struct dmamap_test_traits *traits,
				       int (*scenario)(struct dmamap_test *t, void *ctx),
				       void (*cleanup)(struct dmamap_test *t, void *ctx), void *ctx,
				       struct dmamap_fault_sweep_result *res, char *why, size_t len)
{
	struct dmamap_fault_sweep_result local;
	struct dmamap_machine_config cfg;
	struct sweep_ctx s = { traits, scenario, cleanup, ctx, { 0 } };
	struct dmamap_fault_sweep sw = { 0 };
	int ret;

	if (!res)
		res = &local;
	if (traits && traits->cfg)
		cfg = *traits->cfg;
	else
		dmamap_test_demanding_config(&cfg, traits && traits->bounce);
	sw.cfg = &cfg;
	sw.flags = DMAMAP_SWEEP_STRICT;
	sw.setup = sweep_setup;
	sw.scenario = scenario ? sweep_scenario : NULL;
	sw.teardown = sweep_teardown;
	sw.ctx = &s;
	ret = dmamap_fault_sweep(&sw, res);
	if (ret > 0 && res->nr_recorded) {
		const struct dmamap_fault_sweep_run *r = &res->recorded[0];

		say(why, len, "%lu bad runs of %lu; the first: fault site %d, attempt %lu failed, returned %d: %s",
		    res->bad_runs, res->runs, (int)r->site, r->nth, r->ret, r->detail);
	} else if (ret < 0) {
		say(why, len, "the sweep could not run (%d)", ret);
	} else {
		say(why, len, "%lu runs, every failure surfaced and unwound", res->runs);
	}
	return ret;
}
