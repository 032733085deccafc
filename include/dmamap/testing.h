/* SPDX-License-Identifier: MIT */
/*
 * Helpers for a driver author's own unit tests, with either kernel API.
 *
 * A fixture (struct dmamap_test) makes a simulated machine and a device with
 * the traits a test asks for (coherent or not, DMA mask, behind an IOMMU,
 * bouncing through dmabounce) and captures every report raised on the
 * machine, so a test can assert on them afterwards; dmamap_test_fini()
 * releases the device and destroys the machine, and what they report (leaks)
 * is captured too. The checks are plain functions that say what is wrong in
 * a buffer, usable from any test framework; when <cmocka.h> is included
 * before this header, dmamap_assert_*() macros fail the running CMocka test
 * with that text.
 *
 * This header brings in the simulator's own headers (machine, pages, cache,
 * device and bus side, kmalloc, checker, self-checks), not a DMA API: include
 * <linux/dma-mapping.h> (or <dmamap/dmamap.h> for the 2012 API) too.
 *
 * A typical test:
 *
 *	struct dmamap_test t;
 *	assert_int_equal(dmamap_test_init(&t, NULL), 0);
 *	... probe the driver on &t.dev, play the device with dmamap_dev_write() ...
 *	dmamap_assert_device_sees(&t, bus, expected, len);
 *	dmamap_test_fini(&t);
 *	dmamap_assert_no_reports(&t);
 */
#ifndef DMAMAP_TESTING_H
#define DMAMAP_TESTING_H

#include <dmamap/types.h>
#include <dmamap/log.h>
#include <dmamap/machine.h>
#include <dmamap/page.h>
#include <dmamap/cache.h>
#include <dmamap/slab.h>
#include <dmamap/device.h>
#include <dmamap/dmabounce.h>
#include <dmamap/dma-iommu.h>
#include <dmamap/iommu.h>
#include <dmamap/devres.h>
#include <dmamap/debug.h>
#include <dmamap/check.h>

DMAMAP_BEGIN_DECLS

/* What the fixture's device is like. Zero everywhere is a plain non-coherent device on the demanding machine. */
struct dmamap_test_traits {
	const struct dmamap_machine_config *cfg; /* NULL: the demanding machine (below) */
	const char *name;            /* the device's name; NULL: "dut" */
	bool coherent;               /* the device snoops the CPU caches (dev->dma_coherent) */
	unsigned mask_bits;          /* streaming and coherent DMA mask; 0: 32 (26 when bouncing) */
	bool iommu;                  /* behind an IOMMU: an arm_iommu mapping of its own */
	dma_addr_t iova_base;        /* its bus address space; 0 with iova_size 0: 256 MiB at 0x80000000 */
	size_t iova_size;
	bool bounce;                 /* registered with dmabounce */
	unsigned long bounce_small;  /* its pools' block sizes; 0: 512 and 4096 */
	unsigned long bounce_large;
	bool quiet;                  /* print nothing on stderr: neither reports (captured either way) nor the
				      * driver's error and warning messages (dev_err(), dev_warn(), WARN_ON()) */
};

/* One captured report: struct dmamap_log_record's fields, copied. */
struct dmamap_test_report {
	enum dmamap_report_kind kind;
	enum dmamap_report_kind category;
	int line;                    /* the API call's line in the caller's source, 0: none */
	int map_line;                /* where the mapping concerned was made, 0: none */
	dma_addr_t bus_addr;
	size_t size;
	int direction;
	char device[48];
	char file[160];
	char map_file[160];
	char message[400];
};

#define DMAMAP_TEST_MAX_REPORTS 64

struct dmamap_test_private;

struct dmamap_test {
	struct dmamap_machine *machine;  /* the machine (current while the fixture lives) */
	struct device dev;               /* the device under test, initialised */
	struct dma_iommu_mapping *mapping; /* its IOMMU mapping, when behind one */
	unsigned long reports;           /* reports captured since init or the last reset */
	unsigned long by_kind[DMAMAP_REPORT_KIND_NR];
	unsigned nr_kept;                /* the first DMAMAP_TEST_MAX_REPORTS are kept */
	struct dmamap_test_report kept[DMAMAP_TEST_MAX_REPORTS];
	/* library-private */
	struct dmamap_test_private *priv;
};

/**
 * dmamap_test_demanding_config() - the machine a fixture makes by default
 * @cfg: caller-owned, overwritten
 * @bounce: whether the device will bounce (see below)
 *
 * dmamap_machine_config_init() with 64 MiB of RAM, an outer cache and
 * speculative prefetch: the machine on which most DMA mistakes show. When
 * @bounce is true, RAM starts at 0 (128 MiB) with a 64 MiB DMA zone, so a
 * 26-bit device reaches only the zone and its buffers above it bounce.
 */
DMAMAP_API void dmamap_test_demanding_config(struct dmamap_machine_config *cfg, bool bounce);

/**
 * dmamap_test_init() - a fresh machine and a device with @traits
 * @t: the fixture, caller-owned (its previous contents are ignored)
 * @traits: the device's traits, or NULL for the defaults
 *
 * Creates the machine, makes it current (so kmalloc() and alloc_pages() use
 * it), starts capturing its reports (and, while it stays current, those that
 * belong to no machine: sg_set_buf() of memory on no machine, a call with a
 * NULL device...), and sets the device up: initialised,
 * masks set, coherent or not, attached to an IOMMU mapping or registered with
 * dmabounce as asked. Release with dmamap_test_fini().
 * Return: 0; -EINVAL for traits that contradict each other (iommu with
 * bounce) or a configuration the machine refuses; -EIO when the device cannot
 * take the mask (it does not cover the DMA zone and the device does not
 * bounce); -ENOMEM; the error of the IOMMU or dmabounce setup. On error
 * nothing is left.
 */
DMAMAP_API DMAMAP_MUST_CHECK int dmamap_test_init(struct dmamap_test *t, const struct dmamap_test_traits *traits);

/**
 * dmamap_test_init_on() - dmamap_test_init() on an existing machine @m
 * @t: the fixture
 * @m: the machine (not made current, not destroyed by dmamap_test_fini())
 * @traits: as dmamap_test_init(); its cfg is ignored
 *
 * Return: as dmamap_test_init().
 */
DMAMAP_API DMAMAP_MUST_CHECK int dmamap_test_init_on(struct dmamap_test *t, struct dmamap_machine *m,
						      const struct dmamap_test_traits *traits);

/**
 * dmamap_test_fini() - release the device and destroy the machine
 * @t: the fixture
 *
 * The device is released first (its managed resources go, its leaks are
 * reported), then its IOMMU mapping, then the machine (when the fixture made
 * it; what it still holds is reported). Every report is captured: assert on
 * them afterwards. The captured reports stay readable until the next init.
 */
DMAMAP_API void dmamap_test_fini(struct dmamap_test *t);

/** dmamap_test_reset_reports() - forget the reports captured so far. */
DMAMAP_API void dmamap_test_reset_reports(struct dmamap_test *t);

/**
 * dmamap_test_find_report() - a captured report matching a pattern
 * @t: the fixture
 * @kind: the report's kind, or a category (DMAMAP_REPORT_API_MISUSE matches
 *        every checker kind of that category); DMAMAP_REPORT_NONE matches any
 * @file: the end of the file the report names (NULL: any), e.g. "mydrv.c"
 * @line: the line it names (0: any)
 *
 * Return: the first kept report that matches, or NULL.
 */
DMAMAP_API const struct dmamap_test_report *dmamap_test_find_report(const struct dmamap_test *t,
								    enum dmamap_report_kind kind, const char *file,
								    int line);

/**
 * dmamap_test_no_reports() - whether nothing was reported
 * @t: the fixture
 * @why: receives, when something was, what the first report said (may be NULL)
 * @len: bytes at @why
 *
 * Return: true when no report was captured since init or the last reset.
 */
DMAMAP_API bool dmamap_test_no_reports(const struct dmamap_test *t, char *why, size_t len);

/**
 * dmamap_test_no_outstanding() - whether the drivers hold no mapping now
 * @t: the fixture
 * @why: receives what is still held (may be NULL)
 * @len: bytes at @why
 *
 * Counts, on the fixture's machine, the streaming mappings (single, page,
 * sg) and the coherent buffers and pool blocks drivers hold, as the checker
 * tracks them. Call it after the driver's remove, before dmamap_test_fini().
 * Return: true when all are zero (also when the checker is off: it tracks
 * nothing then, and @why says so).
 */
DMAMAP_API bool dmamap_test_no_outstanding(struct dmamap_test *t, char *why, size_t len);

/**
 * dmamap_test_device_sees_loc() - whether the device reads @bytes at bus address @addr
 * @t: the fixture
 * @addr: a bus address of the device (an IOVA behind an IOMMU)
 * @bytes: what it should read
 * @len: bytes, non-zero
 * @why: receives the first difference, or the fault (may be NULL)
 * @wlen: bytes at @why
 * @file: the test's source file, named by what the read reports (may be NULL)
 * @line: the test's source line
 *
 * Reads as the device would (dmamap_dev_read(): through its IOMMU, from RAM
 * unless it snoops): what a driver made visible to the hardware. The read is
 * the device's: the checker holds it against what the driver mapped, as any
 * device access, and reports a read of memory the device does not own.
 * Return: true when every byte matches.
 */
DMAMAP_API bool dmamap_test_device_sees_loc(struct dmamap_test *t, dma_addr_t addr, const void *bytes, size_t len,
					    char *why, size_t wlen, const char *file, int line);

/** dmamap_test_device_sees() - dmamap_test_device_sees_loc() at the caller's line. */
static inline bool dmamap_test_device_sees(struct dmamap_test *t, dma_addr_t addr, const void *bytes, size_t len,
					   char *why, size_t wlen)
{
	return dmamap_test_device_sees_loc(t, addr, bytes, len, why, wlen, NULL, 0);
}

#define dmamap_test_device_sees(t, a, b, l, w, wl) \
	dmamap_test_device_sees_loc((t), (a), (b), (l), (w), (wl), __FILE__, __LINE__)

/**
 * dmamap_test_fault_sweep() - run a scenario once per allocation point, with that allocation failed
 * @traits: the fixture each run gets (its cfg names the machine)
 * @scenario: the operation under test, on a fresh fixture: 0, or the -errno it surfaced
 * @cleanup: releases what the scenario built when it returned 0 (NULL: nothing to release)
 * @ctx: passed to both
 * @res: receives the sweep's outcome (may be NULL)
 * @why: receives what the first bad run did wrong (may be NULL)
 * @len: bytes at @why
 *
 * dmamap_fault_sweep() in strict mode over every fault site: each failed
 * allocation must surface as an error from @scenario, leave every count of
 * the machine as it was, raise no report, and leave nothing behind when the
 * device is released and the machine destroyed.
 * Return: 0 when every run was clean; the number of bad runs; or the -errno
 * of dmamap_fault_sweep() (a NULL scenario, a machine that cannot be made).
 */
DMAMAP_API int dmamap_test_fault_sweep(const struct dmamap_test_traits *traits,
				       int (*scenario)(struct dmamap_test *t, void *ctx),
				       void (*cleanup)(struct dmamap_test *t, void *ctx), void *ctx,
				       struct dmamap_fault_sweep_result *res, char *why, size_t len);

DMAMAP_END_DECLS

/* With CMocka: assertions that fail the running test with the library's explanation. */
#ifdef fail_msg
#define dmamap_assert_no_reports(t)                                     \
	do {                                                            \
		char dmamap_why_[512];                                  \
		if (!dmamap_test_no_reports((t), dmamap_why_, sizeof(dmamap_why_))) \
			fail_msg("%s", dmamap_why_);                    \
	} while (0)
#define dmamap_assert_no_outstanding_mappings(t)                        \
	do {                                                            \
		char dmamap_why_[512];                                  \
		if (!dmamap_test_no_outstanding((t), dmamap_why_, sizeof(dmamap_why_))) \
			fail_msg("%s", dmamap_why_);                    \
	} while (0)
#define dmamap_assert_device_sees(t, addr, bytes, len)                  \
	do {                                                            \
		char dmamap_why_[512];                                  \
		if (!dmamap_test_device_sees((t), (addr), (bytes), (len), dmamap_why_, sizeof(dmamap_why_))) \
			fail_msg("%s", dmamap_why_);                    \
	} while (0)
#define dmamap_assert_reported(t, kind, file, line)                     \
	do {                                                            \
		if (!dmamap_test_find_report((t), (kind), (file), (line))) \
			fail_msg("no %s report at %s:%d (%lu reports captured)", \
				 dmamap_report_kind_name(kind), (file) ? (const char *)(file) : "any file", (int)(line), \
				 (t)->reports);                         \
	} while (0)
#define dmamap_assert_fault_sweep_clean(traits, scenario, cleanup, ctx) \
	do {                                                            \
		char dmamap_why_[512];                                  \
		int dmamap_bad_ = dmamap_test_fault_sweep((traits), (scenario), (cleanup), (ctx), NULL, \
							  dmamap_why_, sizeof(dmamap_why_)); \
		if (dmamap_bad_)                                        \
			fail_msg("fault sweep: %d: %s", dmamap_bad_, dmamap_why_); \
	} while (0)
#endif

#endif /* DMAMAP_TESTING_H */
