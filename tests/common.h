/* SPDX-License-Identifier: MIT */
/* Helpers shared by the test programs. */
#ifndef DMAMAP_TEST_COMMON_H
#define DMAMAP_TEST_COMMON_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

/* A test written against the Linux 6.x headers includes them first: then only the simulator's own headers here. */
#ifdef DMAMAP_LINUX_API
#include <dmamap/log.h>
#include <dmamap/machine.h>
#include <dmamap/page.h>
#include <dmamap/cache.h>
#include <dmamap/device.h>
#include <dmamap/dmabounce.h>
#include <dmamap/dma-iommu.h>
#include <dmamap/debug.h>
#include <dmamap/check.h>
#else
#include <dmamap/dmamap.h>
#endif

/* One captured report, with what a test asserts on. */
struct captured {
	enum dmamap_report_kind kind, category;
	char device[64];
	char file[128];
	int line;
	char map_file[128];
	int map_line;
	dma_addr_t bus_addr, map_bus_addr;
	size_t size, map_size;
	int direction, map_direction;
	char message[512];
};

#define CAPTURE_KEEP 16

/*
 * Reports and messages captured from a machine's (or the process) handler.
 * by_kind counts each report under its kind and its category, as
 * dmamap_report_count_kind() does; rec[] keeps the first CAPTURE_KEEP
 * reports (plain messages are not kept), rec_last the latest one.
 */
struct capture {
	unsigned long messages;
	unsigned long reports;
	unsigned long by_kind[DMAMAP_REPORT_KIND_NR];
	int last_level;
	enum dmamap_report_kind last_kind;
	char last_device[64];
	char last_file[128];
	int last_line;
	char last[512];
	struct captured rec[CAPTURE_KEEP];
	struct captured rec_last;
};

/* The first captured report of @kind (or of that category), or NULL. */
const struct captured *capture_find(const struct capture *c, enum dmamap_report_kind kind);

/* Install a capturing handler on @m (NULL: process-wide); resets @c. */
void capture_start(struct capture *c, struct dmamap_machine *m);
/* Restore the default handler. */
void capture_stop(struct dmamap_machine *m);

/*
 * A small machine (16 MiB unless @ram_mib), defaults otherwise -- the
 * demanding machine, with an outer cache and speculative prefetch -- then
 * @tweak; fails the test if it cannot be made.
 */
struct dmamap_machine *test_machine(unsigned ram_mib, void (*tweak)(struct dmamap_machine_config *cfg));

/*
 * Tweaks for test_machine(). simple_machine: no outer cache, no speculative
 * prefetch, for tests about one thing that those would blur (what the
 * inner cache alone does, where the bytes are right after a call).
 */
void simple_machine(struct dmamap_machine_config *cfg);

/*
 * dmamap_machine_check() must find nothing: each finding is printed and the
 * test fails. Every test calls it when its scenario is over, through
 * test_machine_destroy().
 */
void assert_machine_consistent(struct dmamap_machine *m);
/* assert_machine_consistent(), then dmamap_machine_destroy(). */
void test_machine_destroy(struct dmamap_machine *m);
/* Free pages of @m, both zones. */
unsigned long test_free_pages(struct dmamap_machine *m);

/* Fill @len bytes with a pattern derived from @seed; check it. */
void fill_pattern(void *p, size_t len, unsigned seed);
int check_pattern(const void *p, size_t len, unsigned seed); /* 0 if equal, else 1 + first bad offset */

/* True when running under valgrind (tests scale their loops down). */
int under_valgrind(void);

/*
 * Around a test's deliberate touch of a buffer the device owns (the misuse
 * it shows): @m's ownership poisoning is off in between, so that neither
 * memcheck nor AddressSanitizer stops the test, and memcheck keeps quiet.
 */
void misuse_begin(struct dmamap_machine *m);
void misuse_end(struct dmamap_machine *m);

/*
 * Fault sites for a dmamap_fault_sweep() of a test: every one, except under
 * valgrind, where the sites a scenario tries hundreds of times (pages, pool
 * blocks) are left to the native run.
 */
unsigned long sweep_sites(void);
/* Whether @site is swept by sweep_sites(). */
int site_swept(enum dmamap_fault_site site);
struct dmamap_test;
/*
 * A bidirectional list of two segments of the two pages at @buf (200 bytes at
 * 64, 100 at PAGE_SIZE + 300; the second starts mid-page), written by the
 * fixture's device with @data, synced for the CPU as DMA_FROM_DEVICE, written
 * by the CPU with @reply and synced for the device as DMA_TO_DEVICE: the CPU
 * and the device each see the other's bytes, and nothing is reported. @data
 * and @reply hold 300 bytes.
 */
void sg_synced_one_way(struct dmamap_test *t, u8 *buf, const u8 *data, const u8 *reply);
/* dmamap_fault_sweep(), printing each bad run it records; fails the test unless every run was clean. */
void assert_sweep_clean(const struct dmamap_fault_sweep *sw, struct dmamap_fault_sweep_result *r);

/*
 * The fixture of the suites of the kernel's names: a 16 MiB machine made
 * current, its reports (and those of no machine) captured from setup on.
 */
struct current_fx {
	struct dmamap_machine *m;
	struct capture c;
};
int current_fx_setup(void **state);
/* Destroy the machine: the teardown fails when that reports anything (what the test left behind). */
int current_fx_teardown(void **state);

#endif
