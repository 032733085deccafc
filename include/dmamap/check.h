/* SPDX-License-Identifier: MIT */
/*
 * Self-checks for tests: the invariant checker, which says what in a machine's
 * bookkeeping is inconsistent, and the fault sweep, which runs a scenario once
 * per allocation attempt with that attempt failed and checks that every
 * failure was unwound.
 */
#ifndef DMAMAP_CHECK_H
#define DMAMAP_CHECK_H

#include <dmamap/types.h>
#include <dmamap/log.h>
#include <dmamap/machine.h>

DMAMAP_BEGIN_DECLS

/* The part of a machine an inconsistency was found in. */
enum dmamap_check_area {
	DMAMAP_CHECK_PAGES,        /* buddy free lists against page flags and counts */
	DMAMAP_CHECK_CONSISTENT,   /* the coherent remap region against its ptes */
	DMAMAP_CHECK_VMA,          /* user vmas */
	DMAMAP_CHECK_COHERENT,     /* atomic pool, contiguous area, declared memory */
	DMAMAP_CHECK_IOMMU,        /* IOMMU page tables against their counters and attached devices */
	DMAMAP_CHECK_IOVA,         /* IOVA allocations against the IOMMU page tables and live buffers */
	DMAMAP_CHECK_POOL,         /* dma_pool pages and blocks */
	DMAMAP_CHECK_DMABOUNCE,    /* safe buffers against their pools */
	DMAMAP_CHECK_DEBUG,        /* the misuse checker's records against live mappings */
	DMAMAP_CHECK_AREA_NR
};

/* How many findings a result keeps verbatim (the count goes on). */
#define DMAMAP_CHECK_MAX_FINDINGS 16

struct dmamap_check_finding {
	enum dmamap_check_area area;
	char what[200];                /* one line: the object and what is wrong with it */
};

struct dmamap_check_result {
	unsigned long inconsistencies;                  /* found in all */
	unsigned long by_area[DMAMAP_CHECK_AREA_NR];
	unsigned nr_findings;                           /* kept below: the first ones found */
	struct dmamap_check_finding findings[DMAMAP_CHECK_MAX_FINDINGS];
};

/**
 * dmamap_machine_check() - check a machine's bookkeeping against itself
 * @m: the machine
 * @res: receives what was found (overwritten); may be NULL
 *
 * Checks, each under the lock of the structure it reads: the buddy allocator
 * (every page in exactly one free or allocated block, free lists linked both
 * ways and sorted by order, counters equal to what the lists and flags say);
 * the consistent region (regions sorted, disjoint, inside the region, counted
 * right; no pte outside a region); user vmas; the atomic pool, contiguous
 * area and declared memory (bitmaps against their allocation records); every
 * IOMMU domain (tables against counters, no empty table, attached devices);
 * every IOMMU mapping (each IOVA granule in use has its first page mapped,
 * every mapped page lies in an allocated granule, each coherent buffer is
 * exactly one IOVA allocation, mapped); every dma_pool (blocks in use against
 * the counters); every dmabounce device (safe buffers against the pools they
 * come from). Each inconsistency is also logged at DMAMAP_LOG_ERR on @m (a
 * plain message, not a report).
 *
 * Meant for quiescent points (no other thread in the middle of a DMA call on
 * @m): it is safe to call at any time, but an operation caught halfway may be
 * seen as an inconsistency. Changes nothing.
 * Return: the number of inconsistencies (0: consistent), or -EINVAL for a
 * NULL machine.
 */
DMAMAP_API int dmamap_machine_check(struct dmamap_machine *m, struct dmamap_check_result *res);

/** dmamap_check_area_name() - a short constant name for @area ("pages"...), "unknown" if out of range. */
DMAMAP_API const char *dmamap_check_area_name(enum dmamap_check_area area);

/* What was wrong with one run of a fault sweep (bits of dmamap_fault_sweep_run.problems). */
#define DMAMAP_SWEEP_NOT_SURFACED  0x01u /* a failure was injected, the scenario returned 0 (DMAMAP_SWEEP_STRICT) */
#define DMAMAP_SWEEP_NOT_UNWOUND   0x02u /* the scenario failed but some count moved from where setup left it */
#define DMAMAP_SWEEP_INCONSISTENT  0x04u /* dmamap_machine_check() found something after the scenario or teardown */
#define DMAMAP_SWEEP_REPORTED      0x08u /* the scenario raised a report (misuse, fault) in a failed run */
#define DMAMAP_SWEEP_LEAKED        0x10u /* the machine reported leaks when destroyed after teardown */
#define DMAMAP_SWEEP_CLEAN_FAILED  0x20u /* with nothing injected, the scenario still failed */
#define DMAMAP_SWEEP_SETUP_FAILED  0x40u /* setup failed (nothing injected then): the site is abandoned */

/* Sweep flags. */
#define DMAMAP_SWEEP_STRICT        0x01u /* every injected failure must reach the caller: no silent recovery */

struct dmamap_fault_sweep {
	const struct dmamap_machine_config *cfg; /* each run's machine; NULL: dmamap_machine_config_init() */
	unsigned long sites;                      /* mask of 1UL << enum dmamap_fault_site; 0: every site */
	unsigned long max_runs;                   /* cap on runs per site; 0: 100000 */
	unsigned flags;                           /* DMAMAP_SWEEP_STRICT */
	/* Build what the scenario needs on the fresh machine (devices...); nothing is injected. 0 or -errno. NULL: none. */
	int (*setup)(struct dmamap_machine *m, void *ctx);
	/* The operation under test: 0 on success, or the -errno it surfaced (required). */
	int (*scenario)(struct dmamap_machine *m, void *ctx);
	/* Release what setup built, and what the scenario built when @ret is 0. NULL: none. */
	void (*teardown)(struct dmamap_machine *m, void *ctx, int ret);
	void *ctx;                                /* passed to the three callbacks, owned by the caller */
	/* Every message of every run's machine, if set; otherwise they are dropped. */
	dmamap_log_handler_t log;
	void *log_ctx;
};

/* One run that went wrong. */
struct dmamap_fault_sweep_run {
	enum dmamap_fault_site site;   /* the site a failure was injected at */
	unsigned long nth;             /* which attempt at it failed (1 = the first); 0: none injected */
	int ret;                       /* what the scenario returned */
	unsigned problems;             /* DMAMAP_SWEEP_* bits */
	char detail[256];              /* the first thing found: counts that moved, a finding, a report */
};

#define DMAMAP_SWEEP_MAX_RECORDED 8

struct dmamap_fault_sweep_result {
	unsigned long runs;                              /* scenario runs in all */
	unsigned long injected_runs;                     /* runs in which a failure was injected */
	unsigned long recovered_runs;                    /* ... and the scenario still returned 0 */
	unsigned long attempts[DMAMAP_FAULT_SITE_NR];    /* attempts at each site in a run without injection */
	unsigned long bad_runs;                          /* runs with any problem */
	unsigned nr_recorded;                            /* kept below: the first bad runs */
	struct dmamap_fault_sweep_run recorded[DMAMAP_SWEEP_MAX_RECORDED];
};

/**
 * dmamap_fault_sweep() - run a scenario with each of its allocations failed in turn
 * @sweep: the scenario and how to sweep it (read only)
 * @res: receives the outcome (overwritten); may be NULL
 *
 * For each fault site of @sweep->sites, in enum order, and n = 1, 2, ...: a
 * fresh machine is created from @sweep->cfg (made current for the run, the
 * previous current machine restored afterwards), setup() runs, the site is
 * armed to fail its nth attempt from then (dmamap_fault_inject()), scenario()
 * runs, the site is disarmed. When the nth attempt was failed and the
 * scenario returned an error, every count of the machine (pages allocated,
 * kmalloc objects, consistent-region mappings, vmas, atomic pool, contiguous
 * area, declared memory, IOMMU mappings and table pages, IOVA granules,
 * dma_pool blocks and pages, bounced buffers, streaming mappings, registered
 * objects) must be where setup left it,
 * the scenario must have raised no report, and dmamap_machine_check() must be
 * clean. When the scenario returned 0 despite the failure, the run counts as
 * recovered (a problem only with DMAMAP_SWEEP_STRICT, unless the library
 * itself recovered by design: dmabounce taking a coherent allocation when its
 * pool cannot grow). Then teardown() runs,
 * dmamap_machine_check() must be clean again, and the machine is destroyed:
 * any leak it reports is a problem. The site is done after the first run in
 * which no attempt was failed (its attempts are recorded in @res->attempts);
 * that run's scenario must succeed.
 *
 * The scenario must be deterministic (one thread, same calls each run) and
 * must not arm fault injection itself.
 * Return: 0 when every run was clean; the number of bad runs (described in
 * @res); -EINVAL for a NULL @sweep or scenario, a bad site mask or a
 * configuration dmamap_machine_create() refuses; -ENOMEM when a machine
 * cannot be created.
 */
DMAMAP_API int dmamap_fault_sweep(const struct dmamap_fault_sweep *sweep, struct dmamap_fault_sweep_result *res);

DMAMAP_END_DECLS

#endif /* DMAMAP_CHECK_H */
