/* SPDX-License-Identifier: MIT */
/*
 * Logging and reports (<dmamap/log.h>): handlers per machine and process-wide,
 * the record a handler receives, levels, report counters, dev_*() and strict
 * mode.
 */
#include <pthread.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"
#include "internal.h"

/* ------------------------------------------------------------- helpers */

#define MAXREC 16

/* Every field of the records a handler received, copied during the call. */
struct rec_copy {
	int level;
	enum dmamap_report_kind kind;
	struct dmamap_machine *machine;
	bool has_device, has_file;
	char device[64];
	char file[128];
	int line;
	char message[1100];
};

struct recorder {
	unsigned long n;
	struct rec_copy r[MAXREC];
	const void *ctx_seen;
};

static void record_fn(const struct dmamap_log_record *rec, void *ctx)
{
	struct recorder *rc = ctx;
	struct rec_copy *c = &rc->r[rc->n % MAXREC];

	memset(c, 0, sizeof(*c));
	c->level = rec->level;
	c->kind = rec->kind;
	c->machine = rec->machine;
	c->has_device = rec->device != NULL;
	c->has_file = rec->file != NULL;
	if (rec->device)
		snprintf(c->device, sizeof(c->device), "%s", rec->device);
	if (rec->file)
		snprintf(c->file, sizeof(c->file), "%s", rec->file);
	c->line = rec->line;
	snprintf(c->message, sizeof(c->message), "%s", rec->message);
	rc->ctx_seen = ctx;
	rc->n++;
}

static const struct rec_copy *last_rec(const struct recorder *rc)
{
	assert_true(rc->n > 0);
	return &rc->r[(rc->n - 1) % MAXREC];
}

static void rec_start(struct recorder *rc, struct dmamap_machine *m)
{
	memset(rc, 0, sizeof(*rc));
	dmamap_set_log_handler(m, record_fn, rc);
}

/* Raise one BAD_INPUT report on @m through the public API (an order out of range). */
static void raise_report_on(struct dmamap_machine *m)
{
	assert_null(dmamap_alloc_pages(m, GFP_KERNEL, MAX_ORDER));
}

/* Raise one BAD_ADDRESS report that belongs to no machine. */
static void raise_global_report(void)
{
	int local = 0;

	assert_int_equal(virt_to_phys(&local), ~(phys_addr_t)0);
}

static int setup_machine(void **state)
{
	*state = test_machine(16, NULL);
	return 0;
}

static int teardown_machine(void **state)
{
	struct dmamap_machine *m = *state;

	dmamap_set_log_handler(m, NULL, NULL);
	dmamap_set_log_handler(NULL, NULL, NULL);
	dmamap_set_log_level(NULL, DMAMAP_LOG_DEBUG);
	dmamap_set_strict(NULL, false);
	test_machine_destroy(m);
	return 0;
}

/* ------------------------------------------------------------- tests */

static void test_default_level_delivers_everything(void **state)
{
	struct dmamap_machine *m = *state;
	struct device dev = { 0 };
	struct recorder rc;

	/* The default level is DEBUG: a handler sees debug messages too. */
	assert_int_equal(dmamap_device_init(&dev, m, "dbgdev"), 0);
	rec_start(&rc, m);
	dev_dbg(&dev, "debug %d", 1);
	dev_info(&dev, "info %d", 2);
	dev_warn(&dev, "warn %d", 3);
	dev_err(&dev, "err %d", 4);
	assert_int_equal(rc.n, 4);
	assert_int_equal(rc.r[0].level, DMAMAP_LOG_DEBUG);
	assert_string_equal(rc.r[0].message, "debug 1");
	assert_int_equal(rc.r[1].level, DMAMAP_LOG_INFO);
	assert_int_equal(rc.r[2].level, DMAMAP_LOG_WARN);
	assert_int_equal(rc.r[3].level, DMAMAP_LOG_ERR);
	assert_string_equal(rc.r[3].message, "err 4");
	/* Plain messages are not reports. */
	assert_int_equal(dmamap_report_count(m), 0);
	dmamap_device_release(&dev);

	/* The process-wide default level is DEBUG as well. */
	rec_start(&rc, NULL);
	dev_dbg(NULL, "global debug");
	assert_int_equal(rc.n, 1);
	assert_string_equal(last_rec(&rc)->message, "global debug");
}

static void test_default_handler_is_not_strict(void **state)
{
	struct dmamap_machine *m = *state;
	unsigned long before = dmamap_report_count(m);

	/* No handler installed: the report goes to the default handler and returns. */
	dmamap_set_log_handler(m, NULL, NULL);
	dmamap_set_log_handler(NULL, NULL, NULL);
	raise_report_on(m);
	assert_int_equal(dmamap_report_count(m), before + 1);
	assert_int_equal(dmamap_report_count_kind(m, DMAMAP_REPORT_BAD_INPUT), 1);
}

static void test_handler_receives_full_record(void **state)
{
	struct dmamap_machine *m = *state;
	struct recorder rc;
	const struct rec_copy *r;

	rec_start(&rc, m);
	dmamap_report(m, DMAMAP_REPORT_PAGE_MISUSE, "mydev", "driver.c", 42, "bad %s #%d\n\n", "thing", 7);
	assert_int_equal(rc.n, 1);
	r = last_rec(&rc);
	assert_ptr_equal(rc.ctx_seen, &rc);
	assert_int_equal(r->level, DMAMAP_LOG_ERR);
	assert_int_equal(r->kind, DMAMAP_REPORT_PAGE_MISUSE);
	assert_ptr_equal(r->machine, m);
	assert_true(r->has_device);
	assert_string_equal(r->device, "mydev");
	assert_true(r->has_file);
	assert_string_equal(r->file, "driver.c");
	assert_int_equal(r->line, 42);
	/* formatted, trailing newlines removed */
	assert_string_equal(r->message, "bad thing #7");

	/* A plain message: kind NONE, no device, no file. */
	dmamap_log(m, DMAMAP_LOG_INFO, NULL, "plain %u", 9u);
	r = last_rec(&rc);
	assert_int_equal(rc.n, 2);
	assert_int_equal(r->kind, DMAMAP_REPORT_NONE);
	assert_int_equal(r->level, DMAMAP_LOG_INFO);
	assert_false(r->has_device);
	assert_false(r->has_file);
	assert_int_equal(r->line, 0);
	assert_string_equal(r->message, "plain 9");

	/* A report raised by the library itself through the public API. */
	raise_report_on(m);
	r = last_rec(&rc);
	assert_int_equal(rc.n, 3);
	assert_int_equal(r->kind, DMAMAP_REPORT_BAD_INPUT);
	assert_ptr_equal(r->machine, m);
	assert_true(strlen(r->message) > 0);

	/* A very long message is truncated, not overflowed. */
	{
		char big[3000];

		memset(big, 'x', sizeof(big) - 1);
		big[sizeof(big) - 1] = '\0';
		dmamap_log(m, DMAMAP_LOG_INFO, NULL, "%s", big);
		r = last_rec(&rc);
		assert_int_equal(rc.n, 4);
		assert_true(strlen(r->message) > 100);
		assert_true(strlen(r->message) < sizeof(big) - 1);
		assert_int_equal(r->message[0], 'x');
	}
}

static void test_report_counts_per_machine_and_global(void **state)
{
	struct dmamap_machine *m = *state;
	struct dmamap_machine *m2 = test_machine(16, NULL);
	struct capture c1, c2, cg;
	unsigned long g0 = dmamap_report_count(NULL);
	unsigned long gk0 = dmamap_report_count_kind(NULL, DMAMAP_REPORT_BAD_ADDRESS);

	capture_start(&c1, m);
	capture_start(&c2, m2);
	capture_start(&cg, NULL);

	assert_int_equal(dmamap_report_count(m), 0);
	assert_int_equal(dmamap_report_count(m2), 0);
	for (unsigned k = 0; k < DMAMAP_REPORT_KIND_NR; k++) {
		assert_int_equal(dmamap_report_count_kind(m, (enum dmamap_report_kind)k), 0);
		assert_int_equal(dmamap_report_count_kind(m2, (enum dmamap_report_kind)k), 0);
	}

	raise_report_on(m);
	raise_report_on(m);
	dmamap_report(m, DMAMAP_REPORT_LEAK, NULL, NULL, 0, "leak");
	raise_report_on(m2);
	raise_global_report();

	assert_int_equal(dmamap_report_count(m), 3);
	assert_int_equal(dmamap_report_count_kind(m, DMAMAP_REPORT_BAD_INPUT), 2);
	assert_int_equal(dmamap_report_count_kind(m, DMAMAP_REPORT_LEAK), 1);
	assert_int_equal(dmamap_report_count_kind(m, DMAMAP_REPORT_BAD_ADDRESS), 0);
	assert_int_equal(dmamap_report_count(m2), 1);
	assert_int_equal(dmamap_report_count_kind(m2, DMAMAP_REPORT_BAD_INPUT), 1);
	assert_int_equal(dmamap_report_count_kind(m2, DMAMAP_REPORT_LEAK), 0);
	assert_int_equal(dmamap_report_count(NULL), g0 + 1);
	assert_int_equal(dmamap_report_count_kind(NULL, DMAMAP_REPORT_BAD_ADDRESS), gk0 + 1);

	/* Each handler saw only its own. */
	assert_int_equal(c1.reports, 3);
	assert_int_equal(c2.reports, 1);
	assert_int_equal(cg.reports, 1);
	assert_int_equal(cg.by_kind[DMAMAP_REPORT_BAD_ADDRESS], 1);

	/* Plain messages are not counted. */
	dmamap_log(m, DMAMAP_LOG_ERR, NULL, "not a report");
	assert_int_equal(dmamap_report_count(m), 3);
	assert_int_equal(c1.messages, 4);

	/* Kinds out of range count nothing. */
	assert_int_equal(dmamap_report_count_kind(m, DMAMAP_REPORT_KIND_NR), 0);
	assert_int_equal(dmamap_report_count_kind(m, (enum dmamap_report_kind)-1), 0);
	assert_int_equal(dmamap_report_count_kind(NULL, (enum dmamap_report_kind)1000), 0);

	/* The sum over the categories is the total. */
	{
		unsigned long sum = 0;

		for (unsigned k = 0; k <= DMAMAP_REPORT_API_MISUSE; k++)
			sum += dmamap_report_count_kind(m, (enum dmamap_report_kind)k);
		assert_int_equal(sum, dmamap_report_count(m));
	}

	capture_stop(m2);
	test_machine_destroy(m2);
}

static void test_dev_printk_prefixes_device(void **state)
{
	struct dmamap_machine *m = *state;
	struct device dev = { 0 };
	struct recorder rc, rg;

	assert_int_equal(dmamap_device_init(&dev, m, "uart7"), 0);
	rec_start(&rc, m);
	rec_start(&rg, NULL);

	dev_err(&dev, "e%d", 1);
	assert_int_equal(last_rec(&rc)->level, DMAMAP_LOG_ERR);
	dev_warn(&dev, "w%d", 2);
	assert_int_equal(last_rec(&rc)->level, DMAMAP_LOG_WARN);
	dev_info(&dev, "i%d", 3);
	assert_int_equal(last_rec(&rc)->level, DMAMAP_LOG_INFO);
	dev_dbg(&dev, "d%d", 4);
	assert_int_equal(last_rec(&rc)->level, DMAMAP_LOG_DEBUG);
	assert_int_equal(rc.n, 4);
	for (unsigned i = 0; i < 4; i++) {
		static const char *const msg[] = { "e1", "w2", "i3", "d4" };

		assert_true(rc.r[i].has_device);
		assert_string_equal(rc.r[i].device, "uart7");
		assert_string_equal(rc.r[i].message, msg[i]);
		assert_int_equal(rc.r[i].kind, DMAMAP_REPORT_NONE);
		assert_ptr_equal(rc.r[i].machine, m);
	}
	/* The device's machine got them, not the process-wide handler. */
	assert_int_equal(rg.n, 0);
	assert_int_equal(dmamap_report_count(m), 0);

	/* NULL device: the process-wide handler, no device name. */
	dev_warn(NULL, "orphan %s", "msg");
	assert_int_equal(rg.n, 1);
	assert_int_equal(rc.n, 4);
	assert_false(last_rec(&rg)->has_device);
	assert_null(last_rec(&rg)->machine);
	assert_string_equal(last_rec(&rg)->message, "orphan msg");

	/* A released device has no machine any more. */
	dmamap_device_release(&dev);
	dev_info(&dev, "after release");
	assert_int_equal(rc.n, 4);
	assert_int_equal(rg.n, 2);
	assert_null(last_rec(&rg)->machine);
	assert_string_equal(last_rec(&rg)->message, "after release");
}

/* The driver's messages take the kernel's printk formats: %pad, %pa, %pe, %pM, %*ph, %pI4; printf's the rest. */
static void test_dev_printk_kernel_formats(void **state)
{
	struct dmamap_machine *m = *state;
	struct device dev = { 0 };
	dma_addr_t dma = 0x3c40200;
	phys_addr_t phys = 0x40001000;
	const u8 mac[6] = { 0x00, 0x1b, 0x21, 0x0a, 0xbc, 0xde }, ip[4] = { 192, 168, 1, 20 };
	const u8 bytes[5] = { 0xde, 0xad, 0xbe, 0xef, 0x01 };
	struct recorder rc;
	char want[128];

	assert_int_equal(dmamap_device_init(&dev, m, "eth0"), 0);
	rec_start(&rc, m);
	dev_err(&dev, "map failed at %pad (phys %pa), %s", &dma, &phys, "dropped");
	snprintf(want, sizeof(want), "map failed at 0x%0*llx (phys 0x%0*llx), dropped", (int)(2 * sizeof(dma)),
		 (unsigned long long)dma, (int)(2 * sizeof(phys)), (unsigned long long)phys);
	assert_string_equal(last_rec(&rc)->message, want);
	dev_err(&dev, "probe: %pe, %pe, %pe", ERR_PTR(-ENOMEM), ERR_PTR(-517 /* EPROBE_DEFER */), ERR_PTR(-4000));
	assert_string_equal(last_rec(&rc)->message, "probe: -ENOMEM, -EPROBE_DEFER, -4000");
	dev_info(&dev, "mac %pM (%pMR, %pm) at %pI4", mac, mac, mac, ip);
	assert_string_equal(last_rec(&rc)->message, "mac 00:1b:21:0a:bc:de (de:bc:0a:21:1b:00, 001b210abcde) at 192.168.1.20");
	dev_info(&dev, "[%*ph] [%*phC] [%*phD] [%*phN] [%ph]", 5, bytes, 3, bytes, 2, bytes, 4, bytes, bytes);
	assert_string_equal(last_rec(&rc)->message, "[de ad be ef 01] [de:ad:be] [de-ad] [deadbeef] [de]");
	/* printf's conversions, with widths and precisions given or taken from the arguments */
	dev_info(&dev, "%5d|%-4u|%#x|%lld|%zu|%.*s|%*s|%c|%.2f|%%|%s", -12, 7u, 255, -5LL, (size_t)9, 3, "abcdef", 4,
		 "ab", 'z', 1.5, "end");
	assert_string_equal(last_rec(&rc)->message, "  -12|7   |0xff|-5|9|abc|  ab|z|1.50|%|end");
	/* every letter after %p is the conversion's: an unknown one prints the pointer alone */
	snprintf(want, sizeof(want), "at %p.", (const void *)bytes);
	dev_info(&dev, "at %pZq9.", bytes);
	assert_string_equal(last_rec(&rc)->message, want);
	dev_info(&dev, "%pad %pM", NULL, NULL);
	assert_string_equal(last_rec(&rc)->message, "(null) (null)");
	/* a message longer than the line is cut, not overrun */
	{
		static char big[2000];

		memset(big, 'x', sizeof(big) - 1);
		dev_info(&dev, "%pe %s", ERR_PTR(-EIO), big);
		assert_int_equal(strlen(last_rec(&rc)->message), 1023);
		assert_memory_equal(last_rec(&rc)->message, "-EIO xxx", 8);
	}
	/* what pr_warn() and the other pr_*() of the Linux 6.x headers call, alike */
	dmamap_printk(DMAMAP_LOG_WARN, "queue %pad stuck", &dma);
	snprintf(want, sizeof(want), "queue 0x%0*llx stuck", (int)(2 * sizeof(dma)), (unsigned long long)dma);
	assert_string_equal(last_rec(&rc)->message, want);
	dmamap_set_log_handler(m, NULL, NULL);
	dmamap_device_release(&dev);
}

static void test_level_filters_messages_not_reports(void **state)
{
	struct dmamap_machine *m = *state;
	struct device dev = { 0 };
	struct recorder rc;

	assert_int_equal(dmamap_device_init(&dev, m, "lvl"), 0);
	rec_start(&rc, m);

	dmamap_set_log_level(m, DMAMAP_LOG_WARN);
	dev_dbg(&dev, "dropped");
	dev_info(&dev, "dropped");
	assert_int_equal(rc.n, 0);
	dev_warn(&dev, "kept w");
	dev_err(&dev, "kept e");
	assert_int_equal(rc.n, 2);
	assert_string_equal(last_rec(&rc)->message, "kept e");

	/* Below every level: no plain message passes, a report always does. */
	dmamap_set_log_level(m, 0);
	dev_err(&dev, "dropped");
	assert_int_equal(rc.n, 2);
	raise_report_on(m);
	assert_int_equal(rc.n, 3);
	assert_int_equal(last_rec(&rc)->kind, DMAMAP_REPORT_BAD_INPUT);
	assert_int_equal(dmamap_report_count(m), 1);

	/* The level is per machine: another machine still sees debug. */
	{
		struct dmamap_machine *m2 = test_machine(16, NULL);
		struct recorder r2;

		rec_start(&r2, m2);
		dmamap_log(m2, DMAMAP_LOG_DEBUG, NULL, "m2 debug");
		assert_int_equal(r2.n, 1);
		dmamap_set_log_handler(m2, NULL, NULL);
		test_machine_destroy(m2);
	}

	/* The process-wide level filters process-wide messages. */
	{
		struct recorder rg;

		rec_start(&rg, NULL);
		dmamap_set_log_level(NULL, DMAMAP_LOG_ERR);
		dev_warn(NULL, "dropped");
		assert_int_equal(rg.n, 0);
		dev_err(NULL, "kept");
		assert_int_equal(rg.n, 1);
		dmamap_set_log_level(NULL, 0);
		raise_global_report();
		assert_int_equal(rg.n, 2);
		assert_int_equal(last_rec(&rg)->kind, DMAMAP_REPORT_BAD_ADDRESS);
		dmamap_set_log_level(NULL, DMAMAP_LOG_DEBUG);
	}

	dmamap_set_log_level(m, DMAMAP_LOG_DEBUG);
	dev_dbg(&dev, "back");
	assert_int_equal(rc.n, 4);
	dmamap_device_release(&dev);
}

static void test_machine_falls_back_to_global_handler(void **state)
{
	struct dmamap_machine *m = *state;
	struct recorder rg, rm;

	dmamap_set_log_handler(m, NULL, NULL);
	rec_start(&rg, NULL);
	raise_report_on(m);
	assert_int_equal(rg.n, 1);
	/* Delivered through the process-wide handler, still counted on (and naming) the machine. */
	assert_ptr_equal(last_rec(&rg)->machine, m);
	assert_int_equal(last_rec(&rg)->kind, DMAMAP_REPORT_BAD_INPUT);
	assert_int_equal(dmamap_report_count(m), 1);
	dmamap_log(m, DMAMAP_LOG_INFO, NULL, "via global");
	assert_int_equal(rg.n, 2);

	/* A handler of its own takes over, and the global one no longer sees it. */
	rec_start(&rm, m);
	raise_report_on(m);
	assert_int_equal(rm.n, 1);
	assert_int_equal(rg.n, 2);

	/* Setting NULL restores the fallback. */
	dmamap_set_log_handler(m, NULL, &rm);
	raise_report_on(m);
	assert_int_equal(rm.n, 1);
	assert_int_equal(rg.n, 3);

	/* And NULL for the process-wide handler restores the default: nobody captures. */
	dmamap_set_log_handler(NULL, NULL, NULL);
	raise_report_on(m);
	assert_int_equal(rg.n, 3);
	assert_int_equal(rm.n, 1);
	assert_int_equal(dmamap_report_count(m), 4);
}

static void test_report_kind_names(void **state)
{
	static const char *const names[DMAMAP_REPORT_KIND_NR] = {
		[DMAMAP_REPORT_NONE] = "message",
		[DMAMAP_REPORT_BAD_INPUT] = "bad-input",
		[DMAMAP_REPORT_BAD_ADDRESS] = "bad-address",
		[DMAMAP_REPORT_PAGE_MISUSE] = "page-misuse",
		[DMAMAP_REPORT_DEVICE_FAULT] = "device-fault",
		[DMAMAP_REPORT_IOMMU_FAULT] = "iommu-fault",
		[DMAMAP_REPORT_IOVA_MISUSE] = "iova-misuse",
		[DMAMAP_REPORT_LEAK] = "leak",
		[DMAMAP_REPORT_API_MISUSE] = "api-misuse",
		[DMAMAP_REPORT_NOT_MAPPED] = "not-mapped",
		[DMAMAP_REPORT_DOUBLE_UNMAP] = "double-unmap",
		[DMAMAP_REPORT_SIZE_MISMATCH] = "size-mismatch",
		[DMAMAP_REPORT_DIR_MISMATCH] = "direction-mismatch",
		[DMAMAP_REPORT_KIND_MISMATCH] = "kind-mismatch",
		[DMAMAP_REPORT_SG_MISMATCH] = "sg-mismatch",
		[DMAMAP_REPORT_SYNC_RANGE] = "sync-out-of-range",
		[DMAMAP_REPORT_SYNC_DIRECTION] = "sync-direction",
		[DMAMAP_REPORT_UNCHECKED_ERROR] = "unchecked-mapping-error",
		[DMAMAP_REPORT_ADDR_MISMATCH] = "address-mismatch",
		[DMAMAP_REPORT_MISSING_SYNC] = "missing-sync-for-cpu",
		[DMAMAP_REPORT_DEV_CPU_OWNED] = "device-access-cpu-owned",
		[DMAMAP_REPORT_DEV_WRITE_TO_DEVICE] = "device-write-to-device",
		[DMAMAP_REPORT_DEV_READ_FROM_DEVICE] = "device-read-from-device",
		[DMAMAP_REPORT_DEV_UNMAPPED] = "device-access-unmapped",
		[DMAMAP_REPORT_CPU_STORE] = "cpu-store-device-owned",
		[DMAMAP_REPORT_SHARED_CACHELINE] = "shared-cache-line",
		[DMAMAP_REPORT_OVERLAP] = "overlapping-mappings",
		[DMAMAP_REPORT_FREE_MAPPED] = "free-while-mapped",
		[DMAMAP_REPORT_ATTR_MISMATCH] = "attrs-mismatch",
		[DMAMAP_REPORT_LOCK_MISUSE] = "lock-misuse",
		[DMAMAP_REPORT_SLEEP_IN_ATOMIC] = "sleep-in-atomic",
		[DMAMAP_REPORT_REFCOUNT] = "refcount-saturated",
		[DMAMAP_REPORT_LOCK_ORDER] = "lock-order",
	};
	(void)state;

	for (unsigned k = 0; k < DMAMAP_REPORT_KIND_NR; k++) {
		const char *n = dmamap_report_kind_name((enum dmamap_report_kind)k);

		assert_non_null(n);
		assert_string_equal(n, names[k]);
		/* distinct names */
		for (unsigned j = 0; j < k; j++)
			assert_string_not_equal(n, dmamap_report_kind_name((enum dmamap_report_kind)j));
	}
	assert_string_equal(dmamap_report_kind_name(DMAMAP_REPORT_KIND_NR), "unknown");
	assert_string_equal(dmamap_report_kind_name((enum dmamap_report_kind)-1), "unknown");
	assert_string_equal(dmamap_report_kind_name((enum dmamap_report_kind)12345), "unknown");
}

/* A checker's kind is counted under itself and its category; the record says both. */
static void test_kind_categories(void **state)
{
	struct dmamap_machine *m = test_machine(16, NULL);
	struct capture c;
	struct dm_detail d = { .bus = 0x1000, .size = 64, .dir = DMA_FROM_DEVICE, .map_file = "drv.c", .map_line = 7,
			       .map_bus = 0x1000, .map_size = 128, .map_dir = DMA_FROM_DEVICE };

	(void)state;
	for (unsigned k = 0; k < DMAMAP_REPORT_KIND_NR; k++) {
		enum dmamap_report_kind cat = dmamap_report_kind_category((enum dmamap_report_kind)k);

		assert_true(cat <= DMAMAP_REPORT_API_MISUSE);
		if (k <= DMAMAP_REPORT_API_MISUSE)
			assert_int_equal(cat, k);
		else
			assert_int_not_equal(cat, DMAMAP_REPORT_NONE);
	}
	assert_int_equal(dmamap_report_kind_category(DMAMAP_REPORT_KIND_NR), DMAMAP_REPORT_NONE);
	assert_int_equal(dmamap_report_kind_category(DMAMAP_REPORT_DOUBLE_UNMAP), DMAMAP_REPORT_API_MISUSE);
	assert_int_equal(dmamap_report_kind_category(DMAMAP_REPORT_REFCOUNT), DMAMAP_REPORT_API_MISUSE);

	capture_start(&c, m);
	dmamap_report_detail(m, DMAMAP_REPORT_SIZE_MISMATCH, "dev0", &d, "size %d", 64);
	assert_int_equal(dmamap_report_count(m), 1);
	assert_int_equal(dmamap_report_count_kind(m, DMAMAP_REPORT_SIZE_MISMATCH), 1);
	assert_int_equal(dmamap_report_count_kind(m, DMAMAP_REPORT_API_MISUSE), 1);
	assert_int_equal(dmamap_report_count_kind(m, DMAMAP_REPORT_DIR_MISMATCH), 0);
	assert_int_equal(c.rec[0].kind, DMAMAP_REPORT_SIZE_MISMATCH);
	assert_int_equal(c.rec[0].category, DMAMAP_REPORT_API_MISUSE);
	assert_int_equal(c.rec[0].bus_addr, 0x1000);
	assert_int_equal(c.rec[0].size, 64);
	assert_int_equal(c.rec[0].direction, DMA_FROM_DEVICE);
	assert_string_equal(c.rec[0].map_file, "drv.c");
	assert_int_equal(c.rec[0].map_line, 7);
	assert_int_equal(c.rec[0].map_size, 128);
	assert_string_equal(c.rec[0].message, "size 64");

	/* a report without details: no size, no directions */
	dmamap_report(m, DMAMAP_REPORT_BAD_INPUT, NULL, "f.c", 3, "plain");
	assert_int_equal(c.rec[1].size, 0);
	assert_int_equal(c.rec[1].map_size, 0);
	assert_int_equal(c.rec[1].direction, DMA_NONE);
	assert_int_equal(c.rec[1].map_direction, DMA_NONE);
	assert_string_equal(c.rec[1].map_file, "");
	assert_string_equal(c.rec[1].file, "f.c");
	assert_int_equal(c.rec[1].line, 3);
	capture_stop(m);
	dmamap_machine_destroy(m);
}

/* A call made from within another: the outer location stands. */
static void nested_call(struct dmamap_machine *m)
{
	const char *file = "inner.c";
	int line = 7;
	DM_CALL();

	assert_true(dm_call_nested());
	dmamap_report(m, DMAMAP_REPORT_BAD_INPUT, NULL, NULL, 0, "nested");
}

/*
 * Inside a DMA API call, every report names the call's file:line, whatever
 * location the code that raises it knows; outside, its own.
 */
static void test_call_context_names_the_line(void **state)
{
	struct dmamap_machine *m = test_machine(16, NULL);
	struct capture c;
	const char *file = "driver.c";
	int line = 42;

	(void)state;
	capture_start(&c, m);
	assert_false(dm_in_call());
	{
		DM_CALL();

		assert_true(dm_in_call());
		assert_false(dm_call_nested());
		dmamap_report(m, DMAMAP_REPORT_BAD_INPUT, NULL, "ops.c", 900, "below the call");
		nested_call(m);
		assert_false(dm_call_nested());
	}
	assert_false(dm_in_call());
	dmamap_report(m, DMAMAP_REPORT_BAD_INPUT, NULL, "ops.c", 900, "outside");
	assert_string_equal(c.rec[0].file, "driver.c");
	assert_int_equal(c.rec[0].line, 42);
	assert_string_equal(c.rec[1].file, "driver.c");
	assert_int_equal(c.rec[1].line, 42);
	assert_string_equal(c.rec[2].file, "ops.c");
	assert_int_equal(c.rec[2].line, 900);
	capture_stop(m);
	dmamap_machine_destroy(m);
}

/* ------------------------------------------------------------- strict mode */

/*
 * Run @fn in a forked child; return its wait status. The child exits 0 when
 * @fn returns. No core files.
 */
static int run_in_child(void (*fn)(void *), void *arg)
{
	pid_t pid;
	int status = 0;

	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct rlimit rl = { 0, 0 };

		setrlimit(RLIMIT_CORE, &rl);
		signal(SIGABRT, SIG_DFL); /* the child must die of abort(), whatever the test harness set */
		fn(arg);
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	return status;
}

static void child_report_on_machine(void *arg)
{
	struct dmamap_machine *m = arg;
	struct capture c;

	capture_start(&c, m);
	dmamap_set_strict(m, true);
	/* A plain message never aborts. */
	dmamap_log(m, DMAMAP_LOG_ERR, NULL, "plain message in strict mode");
	if (c.messages != 1)
		_exit(3);
	raise_report_on(m);
	_exit(c.reports == 1 ? 4 : 5); /* not reached in strict mode */
}

/* Strict mode delivers the report to the handler, then aborts: the handler writes it down a pipe. */
static int strict_pipe[2];

static void pipe_fn(const struct dmamap_log_record *rec, void *ctx)
{
	char buf[64];
	int n = snprintf(buf, sizeof(buf), "%s;", dmamap_report_kind_name(rec->kind));

	(void)ctx;
	if (write(strict_pipe[1], buf, (size_t)n) != n)
		_exit(9);
}

static void child_report_to_pipe(void *arg)
{
	struct dmamap_machine *m = arg;

	close(strict_pipe[0]);
	dmamap_set_log_handler(m, pipe_fn, NULL);
	dmamap_set_strict(m, true);
	dmamap_log(m, DMAMAP_LOG_INFO, NULL, "first a message");
	dmamap_report(m, DMAMAP_REPORT_LEAK, NULL, NULL, 0, "then a report");
	dmamap_report(m, DMAMAP_REPORT_BAD_INPUT, NULL, NULL, 0, "never delivered");
	_exit(4);
}

static void child_report_global(void *arg)
{
	(void)arg;
	dmamap_set_log_handler(NULL, NULL, NULL);
	dmamap_set_strict(NULL, true);
	dev_err(NULL, "plain message in strict mode");
	raise_global_report();
	_exit(4);
}

static void child_strict_other_machine(void *arg)
{
	struct dmamap_machine *m = arg;
	struct dmamap_machine *m2 = dmamap_machine_create(NULL);
	struct capture c, c2;

	if (!m2)
		_exit(6);
	/* Strict on m2 only: reports on m do not abort. */
	capture_start(&c, m);
	capture_start(&c2, m2);
	dmamap_set_strict(m2, true);
	raise_report_on(m);
	/* Strict switched off again: reports on m2 do not abort. */
	dmamap_set_strict(m2, false);
	raise_report_on(m2);
	if (c.reports != 1 || c2.reports != 1)
		_exit(7);
	capture_stop(m2);
	test_machine_destroy(m2);
	_exit(0);
}

static void test_strict_mode_aborts(void **state)
{
	struct dmamap_machine *m = *state;
	int st;

	st = run_in_child(child_report_on_machine, m);
	assert_true(WIFSIGNALED(st));
	assert_int_equal(WTERMSIG(st), SIGABRT);

	st = run_in_child(child_report_global, NULL);
	assert_true(WIFSIGNALED(st));
	assert_int_equal(WTERMSIG(st), SIGABRT);

	st = run_in_child(child_strict_other_machine, m);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);

	{
		char buf[256];
		ssize_t n, got = 0;

		assert_int_equal(pipe(strict_pipe), 0);
		st = run_in_child(child_report_to_pipe, m);
		close(strict_pipe[1]);
		while ((n = read(strict_pipe[0], buf + got, sizeof(buf) - 1 - (size_t)got)) > 0)
			got += n;
		close(strict_pipe[0]);
		buf[got] = '\0';
		assert_true(WIFSIGNALED(st));
		assert_int_equal(WTERMSIG(st), SIGABRT);
		/* the message and the first report were delivered, nothing after */
		assert_string_equal(buf, "message;leak;");
	}

	/* In the parent nothing was switched on: a report returns. */
	raise_report_on(m);
	assert_int_equal(dmamap_report_count(m), 1);
}

/* A handler may use the log API itself: no library lock is held while it runs. */
struct reentrant {
	struct dmamap_machine *m;
	unsigned calls;
	unsigned long count_seen;
};

static void reentrant_fn(const struct dmamap_log_record *rec, void *ctx)
{
	struct reentrant *r = ctx;

	r->calls++;
	r->count_seen = dmamap_report_count(r->m);
	if (rec->kind != DMAMAP_REPORT_NONE) {
		dmamap_set_log_level(r->m, DMAMAP_LOG_DEBUG);
		dmamap_set_strict(r->m, false);
		dmamap_log(r->m, DMAMAP_LOG_INFO, NULL, "nested message from the handler");
		dmamap_set_log_handler(NULL, NULL, NULL);
	}
}

static void test_handler_may_reenter_log_api(void **state)
{
	struct dmamap_machine *m = *state;
	struct reentrant r = { m, 0, 0 };

	dmamap_set_log_handler(m, reentrant_fn, &r);
	raise_report_on(m);
	/* the report, then the nested message */
	assert_int_equal(r.calls, 2);
	/* the report was counted before it was delivered */
	assert_int_equal(r.count_seen, 1);
	dmamap_set_log_handler(m, NULL, NULL);
}

/* ------------------------------------------------------------- threads */

struct thread_arg {
	struct dmamap_machine *m;
	unsigned n;
};

static void *report_thread(void *p)
{
	struct thread_arg *a = p;

	for (unsigned i = 0; i < a->n; i++)
		dmamap_report(a->m, DMAMAP_REPORT_API_MISUSE, NULL, NULL, 0, "r%u", i);
	return NULL;
}

static atomic_ulong threaded_seen;

static void count_fn(const struct dmamap_log_record *rec, void *ctx)
{
	(void)rec;
	(void)ctx;
	atomic_fetch_add(&threaded_seen, 1);
}

static void test_reports_counted_from_threads(void **state)
{
	struct dmamap_machine *m = *state;
	struct thread_arg a = { m, under_valgrind() ? 500 : 5000 };
	pthread_t t[4];

	atomic_store(&threaded_seen, 0);
	dmamap_set_log_handler(m, count_fn, NULL);
	for (unsigned i = 0; i < 4; i++)
		assert_int_equal(pthread_create(&t[i], NULL, report_thread, &a), 0);
	for (unsigned i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	assert_int_equal(dmamap_report_count(m), 4UL * a.n);
	assert_int_equal(dmamap_report_count_kind(m, DMAMAP_REPORT_API_MISUSE), 4UL * a.n);
	assert_int_equal(atomic_load(&threaded_seen), 4UL * a.n);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_default_level_delivers_everything, setup_machine, teardown_machine),
		cmocka_unit_test_setup_teardown(test_default_handler_is_not_strict, setup_machine, teardown_machine),
		cmocka_unit_test_setup_teardown(test_handler_receives_full_record, setup_machine, teardown_machine),
		cmocka_unit_test_setup_teardown(test_report_counts_per_machine_and_global, setup_machine,
						teardown_machine),
		cmocka_unit_test_setup_teardown(test_dev_printk_kernel_formats, setup_machine, teardown_machine),
		cmocka_unit_test_setup_teardown(test_dev_printk_prefixes_device, setup_machine, teardown_machine),
		cmocka_unit_test_setup_teardown(test_level_filters_messages_not_reports, setup_machine, teardown_machine),
		cmocka_unit_test_setup_teardown(test_machine_falls_back_to_global_handler, setup_machine,
						teardown_machine),
		cmocka_unit_test(test_report_kind_names),
		cmocka_unit_test(test_kind_categories),
		cmocka_unit_test(test_call_context_names_the_line),
		cmocka_unit_test_setup_teardown(test_strict_mode_aborts, setup_machine, teardown_machine),
		cmocka_unit_test_setup_teardown(test_handler_may_reenter_log_api, setup_machine, teardown_machine),
		cmocka_unit_test_setup_teardown(test_reports_counted_from_threads, setup_machine, teardown_machine),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
