/* SPDX-License-Identifier: MIT */
/*
 * Self-checks: the invariant checker and the fault sweep.
 *
 * The checker asks each layer to check its own bookkeeping (the module that
 * owns a structure is the only one that knows its invariants) and gathers
 * what they find: the page allocator, the consistent region, the coherent
 * sources, then every device's dmabounce and declared memory (under the
 * machine's obj_lock), then every registered object -- pools, IOMMU domains
 * and mappings, vmas -- under objs_lock. Each structure is read under its
 * own lock, one at a time, in the machine's lock order (objs_lock, obj_lock,
 * then the object's), so a check can run at any time; it is exact only when
 * no operation is halfway.
 *
 * The fault sweep runs a caller's scenario on a fresh machine per run, with
 * the nth attempt at one fault site failed, n = 1, 2, ... until a run makes
 * no nth attempt. A failed run must leave the machine's census -- the counts
 * of everything a failed operation must give back -- where setup left it.
 * Caches (a pool's idle pages) are emptied before each census, as memory
 * pressure would, so that a cache that grew is not taken for a leak.
 */
#include <limits.h>
#include <stdio.h>

#include "internal.h"

static const char *const area_names[DMAMAP_CHECK_AREA_NR] = {
	[DMAMAP_CHECK_PAGES] = "pages",
	[DMAMAP_CHECK_CONSISTENT] = "consistent",
	[DMAMAP_CHECK_VMA] = "vma",
	[DMAMAP_CHECK_COHERENT] = "coherent",
	[DMAMAP_CHECK_IOMMU] = "iommu",
	[DMAMAP_CHECK_IOVA] = "iova",
	[DMAMAP_CHECK_POOL] = "dma_pool",
	[DMAMAP_CHECK_DMABOUNCE] = "dmabounce",
	[DMAMAP_CHECK_DEBUG] = "debug",
};

DMAMAP_API const char *dmamap_check_area_name(enum dmamap_check_area area)
{
	return (unsigned)area < DMAMAP_CHECK_AREA_NR ? area_names[area] : "unknown";
}

static void obj_check(struct dmamap_obj *o, void *arg)
{
	if (o->ops->check)
		o->ops->check(o, arg);
}

DMAMAP_API int dmamap_machine_check(struct dmamap_machine *m, struct dmamap_check_result *res)
{
	struct dmamap_check_result local;
	struct dm_check c = { .m = m, .res = res ? res : &local };

	memset(c.res, 0, sizeof(*c.res));
	if (!m)
		return -EINVAL;
	dmamap_page_alloc_check(m, &c);
	dmamap_consistent_check(m, &c);
	dmamap_coherent_check(m, &c);
	pthread_mutex_lock(&m->obj_lock);
	for (struct device *dev = m->devices; dev; dev = dev->dmamap.next) {
		dmamap_dmabounce_check(dev, &c);
		dmamap_declared_check(dev, &c);
	}
	pthread_mutex_unlock(&m->obj_lock);
	dmamap_obj_for_each(m, obj_check, &c);

	for (unsigned i = 0; i < c.res->nr_findings; i++)
		dmamap_log(m, DMAMAP_LOG_ERR, NULL, "machine check: %s: %s", area_names[c.res->findings[i].area],
			   c.res->findings[i].what);
	if (c.res->inconsistencies > c.res->nr_findings)
		dmamap_log(m, DMAMAP_LOG_ERR, NULL, "machine check: %lu more inconsistencies",
			   c.res->inconsistencies - c.res->nr_findings);
	return c.res->inconsistencies > INT_MAX ? INT_MAX : (int)c.res->inconsistencies;
}

/* ----------------------------------------------------------------- census */

static const char *const census_names[DM_CENSUS_NR] = {
	[DM_CENSUS_PAGES] = "pages allocated",
	[DM_CENSUS_CONSISTENT] = "consistent mappings",
	[DM_CENSUS_CONSISTENT_BYTES] = "consistent bytes",
	[DM_CENSUS_OBJECTS] = "objects",
	[DM_CENSUS_DEVICES] = "devices",
	[DM_CENSUS_ATOMIC_POOL] = "atomic-pool pages",
	[DM_CENSUS_CMA] = "contiguous-area pages",
	[DM_CENSUS_DECLARED] = "declared-memory pages",
	[DM_CENSUS_COHERENT_BUFS] = "coherent buffers",
	[DM_CENSUS_IOMMU_BYTES] = "IOMMU bytes mapped",
	[DM_CENSUS_IOMMU_TABLES] = "IOMMU table pages",
	[DM_CENSUS_IOMMU_ATTACHED] = "IOMMU attached devices",
	[DM_CENSUS_IOVA] = "IOVA granules",
	[DM_CENSUS_IOMMU_BUFFERS] = "IOMMU coherent buffers",
	[DM_CENSUS_POOL_BLOCKS] = "dma_pool blocks",
	[DM_CENSUS_POOL_PAGES] = "dma_pool pages",
	[DM_CENSUS_BOUNCED] = "bounced mappings",
	[DM_CENSUS_STREAMING] = "streaming mappings",
};

static void obj_census(struct dmamap_obj *o, void *arg)
{
	struct dm_census *cs = arg;

	cs->v[DM_CENSUS_OBJECTS]++;
	if (o->ops->census)
		o->ops->census(o, cs);
}

static void obj_shrink(struct dmamap_obj *o, void *arg)
{
	(void)arg;
	if (o->ops->shrink)
		o->ops->shrink(o);
}

/* The counts, once every cache has given back what it keeps idle. */
static void take_census(struct dmamap_machine *m, struct dm_census *cs)
{
	struct dmamap_consistent_stats st;
	struct dmamap_checker_stats ck;

	dmamap_obj_for_each(m, obj_shrink, NULL);
	memset(cs, 0, sizeof(*cs));
	cs->v[DM_CENSUS_PAGES] = dmamap_page_alloc_allocated(m);
	dmamap_kmalloc_census(m, cs);
	dmamap_consistent_stats(m, &st);
	cs->v[DM_CENSUS_CONSISTENT] = st.regions;
	cs->v[DM_CENSUS_CONSISTENT_BYTES] = st.used;
	dmamap_coherent_census(m, cs);
	dmamap_checker_stats(m, &ck);
	cs->v[DM_CENSUS_STREAMING] = ck.live_single + ck.live_page + ck.live_sg + ck.untracked_live;
	pthread_mutex_lock(&m->obj_lock);
	for (struct device *dev = m->devices; dev; dev = dev->dmamap.next) {
		cs->v[DM_CENSUS_DEVICES]++;
		dmamap_dmabounce_census(dev, cs);
		dmamap_declared_census(dev, cs);
	}
	pthread_mutex_unlock(&m->obj_lock);
	dmamap_obj_for_each(m, obj_census, cs);
}

/* "pages allocated 3 -> 5, ..." for the counts that differ; false when none do. */
static bool census_diff(const struct dm_census *a, const struct dm_census *b, char *buf, size_t len)
{
	size_t n = 0;
	bool any = false;

	buf[0] = '\0';
	for (unsigned i = 0; i < DM_CENSUS_NR; i++) {
		if (a->v[i] == b->v[i])
			continue;
		any = true;
		if (n < len)
			n += (size_t)snprintf(buf + n, len - n, "%s%s %lu -> %lu", n ? ", " : "", census_names[i], a->v[i],
					      b->v[i]);
	}
	return any;
}

/* ------------------------------------------------------------ fault sweep */

struct sweep_log {
	const struct dmamap_fault_sweep *sw;
	unsigned long reports, leaks;
	char first[200];                  /* the first report of the current phase ("" until one) */
};

static void sweep_handler(const struct dmamap_log_record *rec, void *ctx)
{
	struct sweep_log *l = ctx;

	if (rec->kind != DMAMAP_REPORT_NONE) {
		if (!l->first[0])
			snprintf(l->first, sizeof(l->first), "%s%s%s", rec->device ? rec->device : "", rec->device ? ": " : "",
				 rec->message);
		l->reports++;
		l->leaks += rec->kind == DMAMAP_REPORT_LEAK;
	}
	if (l->sw->log)
		l->sw->log(rec, l->sw->log_ctx);
}

struct sweep_run {
	int ret;
	bool injected;
	unsigned long attempts;
	unsigned problems;
	char detail[256];
};

static void run_problem(struct sweep_run *r, unsigned problem, const char *fmt, ...) DMAMAP_PRINTF(3, 4);

static void run_problem(struct sweep_run *r, unsigned problem, const char *fmt, ...)
{
	va_list ap;

	if (!r->problems) {
		va_start(ap, fmt);
		vsnprintf(r->detail, sizeof(r->detail), fmt, ap);
		va_end(ap);
	}
	r->problems |= problem;
}

static void check_run(struct dmamap_machine *m, struct sweep_run *r, const char *when)
{
	struct dmamap_check_result res;

	if (dmamap_machine_check(m, &res) > 0)
		run_problem(r, DMAMAP_SWEEP_INCONSISTENT, "%s: %lu inconsistencies; %s: %s", when, res.inconsistencies,
			    area_names[res.findings[0].area], res.findings[0].what);
}

/* One run: a fresh machine, setup, the scenario with the nth attempt at @site failed (nth 0: none), teardown. */
static int sweep_one(const struct dmamap_fault_sweep *sw, enum dmamap_fault_site site, unsigned long nth,
		     struct sweep_run *r)
{
	struct sweep_log log = { .sw = sw };
	struct dm_census before, after;
	struct dmamap_machine *m, *prev = dmamap_machine_peek_current();
	unsigned long attempts0, injected0, absorbed0;
	char diff[200];
	int err;

	memset(r, 0, sizeof(*r));
	m = dmamap_machine_create(sw->cfg);
	if (!m)
		return errno == EINVAL ? -EINVAL : -ENOMEM;
	dmamap_set_log_handler(m, sweep_handler, &log);
	dmamap_machine_set_current(m);

	err = sw->setup ? sw->setup(m, sw->ctx) : 0;
	if (err) {
		run_problem(r, DMAMAP_SWEEP_SETUP_FAILED, "setup failed (%d)", err);
		goto out;
	}
	take_census(m, &before);
	log.reports = 0;
	log.first[0] = '\0';
	attempts0 = dmamap_fault_attempts(m, site);
	injected0 = dmamap_fault_injected(m, site);
	absorbed0 = atomic_load(&m->fault.absorbed);
	if (nth && dmamap_fault_inject(m, site, nth, 0))
		run_problem(r, DMAMAP_SWEEP_SETUP_FAILED, "cannot arm site %d", (int)site);
	r->ret = sw->scenario(m, sw->ctx);
	if (dmamap_fault_inject(m, site, 0, 0))
		run_problem(r, DMAMAP_SWEEP_SETUP_FAILED, "cannot disarm site %d", (int)site);
	r->injected = dmamap_fault_injected(m, site) != injected0;
	r->attempts = dmamap_fault_attempts(m, site) - attempts0;

	if (r->injected && r->ret) {
		take_census(m, &after);
		if (census_diff(&before, &after, diff, sizeof(diff)))
			run_problem(r, DMAMAP_SWEEP_NOT_UNWOUND, "failed with %d but not unwound: %s", r->ret, diff);
		if (log.reports)
			run_problem(r, DMAMAP_SWEEP_REPORTED, "failed with %d and reported: %s", r->ret, log.first);
	} else if (r->injected) {
		/* the library's own recovery (a bounce pool giving way) is not the caller's silence */
		if ((sw->flags & DMAMAP_SWEEP_STRICT) && atomic_load(&m->fault.absorbed) == absorbed0)
			run_problem(r, DMAMAP_SWEEP_NOT_SURFACED, "the failure did not reach the caller (returned 0)");
	} else if (r->ret) {
		run_problem(r, DMAMAP_SWEEP_CLEAN_FAILED, "failed with %d with nothing injected", r->ret);
	}
	check_run(m, r, "after the scenario");

	if (sw->teardown)
		sw->teardown(m, sw->ctx, r->ret);
	check_run(m, r, "after teardown");
out:
	log.leaks = 0;
	log.first[0] = '\0';
	dmamap_machine_destroy(m);
	if (log.leaks)
		run_problem(r, DMAMAP_SWEEP_LEAKED, "leaked: %s", log.first);
	dmamap_machine_set_current(prev);
	return 0;
}

static void record(struct dmamap_fault_sweep_result *res, enum dmamap_fault_site site, unsigned long nth,
		   const struct sweep_run *r)
{
	struct dmamap_fault_sweep_run *rec;

	res->bad_runs++;
	if (res->nr_recorded >= DMAMAP_SWEEP_MAX_RECORDED)
		return;
	rec = &res->recorded[res->nr_recorded++];
	rec->site = site;
	rec->nth = r->injected ? nth : 0;
	rec->ret = r->ret;
	rec->problems = r->problems;
	snprintf(rec->detail, sizeof(rec->detail), "%s", r->detail);
}

DMAMAP_API int dmamap_fault_sweep(const struct dmamap_fault_sweep *sw, struct dmamap_fault_sweep_result *res)
{
	struct dmamap_fault_sweep_result local;
	unsigned long sites, max_runs;
	struct sweep_run r;
	int err;

	if (!res)
		res = &local;
	memset(res, 0, sizeof(*res));
	if (!sw || !sw->scenario || (sw->sites >> DMAMAP_FAULT_SITE_NR))
		return -EINVAL;
	sites = sw->sites ? sw->sites : (1UL << DMAMAP_FAULT_SITE_NR) - 1;
	max_runs = sw->max_runs ? sw->max_runs : 100000;

	for (unsigned site = 0; site < DMAMAP_FAULT_SITE_NR; site++) {
		if (!(sites & (1UL << site)))
			continue;
		for (unsigned long nth = 1; nth <= max_runs; nth++) {
			err = sweep_one(sw, (enum dmamap_fault_site)site, nth, &r);
			if (err)
				return err;
			res->runs++;
			if (r.injected) {
				res->injected_runs++;
				res->recovered_runs += r.ret == 0;
			}
			if (r.problems)
				record(res, (enum dmamap_fault_site)site, nth, &r);
			if (!r.injected || (r.problems & DMAMAP_SWEEP_SETUP_FAILED)) {
				res->attempts[site] = r.attempts;
				break;
			}
		}
	}
	return res->bad_runs > INT_MAX ? INT_MAX : (int)res->bad_runs;
}
