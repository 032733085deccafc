/* SPDX-License-Identifier: MIT */
/* The test kit (<dmamap/testing.h>): the fixture's traits, the captured reports, the checks and the sweep. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include <linux/dma-mapping.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>

#include <dmamap/testing.h>

static void test_default_fixture(void **state)
{
	struct dmamap_machine_config cfg;
	struct dmamap_test t;
	char why[256];

	(void)state;
	assert_int_equal(dmamap_test_init(&t, NULL), 0);
	assert_ptr_equal(dmamap_machine_current(), t.machine);
	dmamap_machine_get_config(t.machine, &cfg);
	assert_true(cfg.outer_cache);
	assert_true(cfg.speculative_prefetch);
	assert_false(cfg.coherent);
	assert_string_equal(dev_name(&t.dev), "dut");
	assert_int_equal(dma_get_mask(&t.dev), DMA_BIT_MASK(32));
	assert_false(t.dev.dma_coherent);
	assert_null(iommu_get_domain_for_dev(&t.dev));
	assert_true(dmamap_test_no_reports(&t, why, sizeof(why)));
	assert_true(dmamap_test_no_outstanding(&t, why, sizeof(why)));
	dmamap_test_fini(&t);
	assert_null(t.machine);
	assert_true(dmamap_test_no_reports(&t, why, sizeof(why)));
}

static void test_traits(void **state)
{
	struct dmamap_test_traits tr = { .name = "cam", .coherent = true, .mask_bits = 31, .quiet = true };
	struct dmamap_test t;
	u8 *buf;
	dma_addr_t h;

	(void)state;
	assert_int_equal(dmamap_test_init(&t, &tr), 0);
	assert_string_equal(dev_name(&t.dev), "cam");
	assert_true(t.dev.dma_coherent);
	assert_int_equal(dma_get_mask(&t.dev), DMA_BIT_MASK(31));
	assert_int_equal(t.dev.coherent_dma_mask, DMA_BIT_MASK(31));
	dmamap_test_fini(&t);

	/* behind an IOMMU: bus addresses are IOVAs of the mapping's space */
	tr = (struct dmamap_test_traits){ .iommu = true, .quiet = true };
	assert_int_equal(dmamap_test_init(&t, &tr), 0);
	assert_non_null(t.mapping);
	assert_ptr_equal(iommu_get_domain_for_dev(&t.dev), t.mapping->domain);
	buf = kmalloc(64, GFP_KERNEL);
	h = dma_map_single(&t.dev, buf, 64, DMA_TO_DEVICE);
	assert_false(dma_mapping_error(&t.dev, h));
	assert_true(h >= 0x80000000u && h < 0x90000000u);
	dma_unmap_single(&t.dev, h, 64, DMA_TO_DEVICE);
	kfree(buf);
	dmamap_test_fini(&t);
	dmamap_assert_no_reports(&t);

	/* bouncing: a 26-bit device on a machine whose RAM goes beyond it */
	tr = (struct dmamap_test_traits){ .bounce = true, .quiet = true };
	assert_int_equal(dmamap_test_init(&t, &tr), 0);
	assert_int_equal(dma_get_mask(&t.dev), DMA_BIT_MASK(26));
	buf = kmalloc(64, GFP_KERNEL | __GFP_NOWARN);
	assert_true(virt_to_phys(buf) >= (64u << 20)); /* above the zone: it will bounce */
	h = dma_map_single(&t.dev, buf, 64, DMA_TO_DEVICE);
	assert_false(dma_mapping_error(&t.dev, h));
	assert_true(h < (64u << 20));
	dma_unmap_single(&t.dev, h, 64, DMA_TO_DEVICE);
	kfree(buf);
	dmamap_test_fini(&t);
	dmamap_assert_no_reports(&t);
}

static void test_refused_traits(void **state)
{
	struct dmamap_test_traits both = { .iommu = true, .bounce = true };
	struct dmamap_machine_config cfg;
	struct dmamap_test_traits narrow = { .cfg = &cfg, .mask_bits = 20, .quiet = true };
	struct dmamap_test t;

	(void)state;
	assert_int_equal(dmamap_test_init(&t, &both), -EINVAL);
	assert_null(t.machine);
	/* a mask that does not cover the DMA zone, without bouncing */
	dmamap_test_demanding_config(&cfg, false);
	cfg.dma_zone_limit = cfg.ram_base + (8u << 20);
	assert_int_equal(dmamap_test_init(&t, &narrow), -EIO);
	assert_null(t.machine);
	/* a configuration the machine refuses */
	cfg.cache_line_size = 3;
	assert_int_equal(dmamap_test_init(&t, &narrow), -EINVAL);
	assert_int_equal(dmamap_test_init(NULL, NULL), -EINVAL);
}

/* Reports are captured with their kind, file and line; the checks say what they found. */
static void test_captured_reports(void **state)
{
	struct dmamap_test_traits tr = { .quiet = true };
	struct dmamap_test t;
	u8 *buf;
	dma_addr_t h;
	char why[512];
	int line;

	(void)state;
	assert_int_equal(dmamap_test_init(&t, &tr), 0);
	buf = kmalloc(64, GFP_KERNEL);
	h = dma_map_single(&t.dev, buf, 64, DMA_FROM_DEVICE);
	assert_false(dma_mapping_error(&t.dev, h));
	dma_unmap_single(&t.dev, h, 32, DMA_FROM_DEVICE); line = __LINE__;
	assert_int_equal(t.reports, 1);
	assert_int_equal(t.by_kind[DMAMAP_REPORT_SIZE_MISMATCH], 1);
	assert_non_null(dmamap_test_find_report(&t, DMAMAP_REPORT_SIZE_MISMATCH, "test-testing.c", line));
	/* a category matches its kinds; a wrong line or file does not */
	assert_non_null(dmamap_test_find_report(&t, DMAMAP_REPORT_API_MISUSE, NULL, 0));
	assert_null(dmamap_test_find_report(&t, DMAMAP_REPORT_SIZE_MISMATCH, "test-testing.c", line + 1));
	assert_null(dmamap_test_find_report(&t, DMAMAP_REPORT_SIZE_MISMATCH, "other.c", 0));
	assert_null(dmamap_test_find_report(&t, DMAMAP_REPORT_LEAK, NULL, 0));
	assert_false(dmamap_test_no_reports(&t, why, sizeof(why)));
	assert_non_null(strstr(why, "test-testing.c"));
	/* the mapping is still live: the check says what */
	assert_false(dmamap_test_no_outstanding(&t, why, sizeof(why)));
	assert_non_null(strstr(why, "1 dma_map_single"));
	dma_unmap_single(&t.dev, h, 64, DMA_FROM_DEVICE);
	assert_true(dmamap_test_no_outstanding(&t, why, sizeof(why)));
	dmamap_test_reset_reports(&t);
	assert_true(dmamap_test_no_reports(&t, why, sizeof(why)));
	kfree(buf);
	/* what the release and the destruction report is captured too */
	buf = kmalloc(32, GFP_KERNEL); line = __LINE__;
	dmamap_test_fini(&t);
	assert_int_equal(t.by_kind[DMAMAP_REPORT_LEAK], 1);
	assert_non_null(dmamap_test_find_report(&t, DMAMAP_REPORT_LEAK, "test-testing.c", line));
}

static void test_device_sees(void **state)
{
	struct dmamap_test_traits tr = { .quiet = true };
	struct dmamap_test t;
	u8 *buf, want[100];
	dma_addr_t h;
	char why[512];
	int unmapped_line, fault_line;

	(void)state;
	assert_int_equal(dmamap_test_init(&t, &tr), 0);
	buf = kmalloc(100, GFP_KERNEL);
	for (int i = 0; i < 100; i++)
		want[i] = buf[i] = (u8)(i + 1);
	h = virt_to_phys(buf); /* no map: the bytes are still in the CPU's cache */
	assert_false(dmamap_test_device_sees(&t, h, want, 100, why, sizeof(why))); unmapped_line = __LINE__;
	assert_non_null(strstr(why, "byte 0 of 100"));
	h = dma_map_single(&t.dev, buf, 100, DMA_TO_DEVICE);
	assert_false(dma_mapping_error(&t.dev, h));
	dmamap_assert_device_sees(&t, h, want, 100);
	/* the last byte counts */
	want[99] ^= 1;
	assert_false(dmamap_test_device_sees(&t, h, want, 100, why, sizeof(why)));
	assert_non_null(strstr(why, "byte 99 of 100"));
	assert_non_null(strstr(why, "1 bytes differ"));
	/* a fault is said so */
	assert_false(dmamap_test_device_sees(&t, 0x10, want, 4, why, sizeof(why))); fault_line = __LINE__;
	assert_non_null(strstr(why, "cannot read"));
	dma_unmap_single(&t.dev, h, 100, DMA_TO_DEVICE);
	kfree(buf);
	dmamap_test_fini(&t);
	/* the read of memory the driver never mapped, and the fault, both at this file's lines */
	assert_int_equal(t.reports, 2);
	dmamap_assert_reported(&t, DMAMAP_REPORT_DEV_UNMAPPED, "test-testing.c", unmapped_line);
	dmamap_assert_reported(&t, DMAMAP_REPORT_DEVICE_FAULT, "test-testing.c", fault_line);
}

/* A scenario that unwinds its failures, and one that leaks a mapping when its second allocation fails. */
static int map_two(struct dmamap_test *t, void *ctx)
{
	bool leaky = *(bool *)ctx;
	u8 *a = kmalloc(64, GFP_KERNEL), *b;
	dma_addr_t ha, hb;

	if (!a)
		return -ENOMEM;
	ha = dma_map_single(&t->dev, a, 64, DMA_TO_DEVICE);
	if (dma_mapping_error(&t->dev, ha)) {
		kfree(a);
		return -ENOMEM;
	}
	b = kmalloc(64, GFP_KERNEL);
	if (!b) {
		if (!leaky)
			dma_unmap_single(&t->dev, ha, 64, DMA_TO_DEVICE);
		if (!leaky)
			kfree(a);
		return -ENOMEM;
	}
	hb = dma_map_single(&t->dev, b, 64, DMA_TO_DEVICE);
	if (!dma_mapping_error(&t->dev, hb))
		dma_unmap_single(&t->dev, hb, 64, DMA_TO_DEVICE);
	dma_unmap_single(&t->dev, ha, 64, DMA_TO_DEVICE);
	kfree(b);
	kfree(a);
	return dma_mapping_error(&t->dev, hb) ? -ENOMEM : 0;
}

static void test_fault_sweep(void **state)
{
	struct dmamap_test_traits tr = { .iommu = true, .quiet = true };
	struct dmamap_fault_sweep_result res;
	bool leaky = false;
	char why[512];

	(void)state;
	assert_int_equal(dmamap_test_fault_sweep(&tr, map_two, NULL, &leaky, &res, why, sizeof(why)), 0);
	assert_true(res.injected_runs >= 4);
	assert_true(res.attempts[DMAMAP_FAULT_KMALLOC] >= 2);
	assert_true(res.attempts[DMAMAP_FAULT_IOVA] >= 2);
	dmamap_assert_fault_sweep_clean(&tr, map_two, NULL, &leaky);
	leaky = true;
	assert_true(dmamap_test_fault_sweep(&tr, map_two, NULL, &leaky, &res, why, sizeof(why)) > 0);
	assert_non_null(strstr(why, "not unwound"));
	assert_int_equal(dmamap_test_fault_sweep(&tr, NULL, NULL, NULL, NULL, why, sizeof(why)), -EINVAL);
}

/* A bounced mapping of 3000 bytes (a safe buffer from dmabounce's large pool), unwound on failure. */
static int bounce_one(struct dmamap_test *t, void *ctx)
{
	u8 *a = kmalloc(3000, GFP_KERNEL);
	dma_addr_t h;

	(void)ctx;
	if (!a)
		return -ENOMEM;
	h = dma_map_single(&t->dev, a, 3000, DMA_TO_DEVICE);
	if (dma_mapping_error(&t->dev, h)) {
		kfree(a);
		return -ENOMEM;
	}
	dma_unmap_single(&t->dev, h, 3000, DMA_TO_DEVICE);
	kfree(a);
	return 0;
}

/*
 * Behind dmabounce, a pool that cannot grow gives way to a coherent allocation (the library's own recovery):
 * the sweep does not hold that against the driver, but still wants the coherent allocation's failure surfaced.
 */
static void test_fault_sweep_bounce(void **state)
{
	struct dmamap_test_traits tr = { .bounce = true, .quiet = true };
	struct dmamap_fault_sweep_result res;
	char why[512];

	(void)state;
	assert_int_equal(dmamap_test_fault_sweep(&tr, bounce_one, NULL, NULL, &res, why, sizeof(why)), 0);
	assert_true(res.recovered_runs >= 1); /* the pool's page failed, the coherent allocation served */
	assert_true(res.injected_runs > res.recovered_runs); /* the others surfaced */
	assert_true(res.attempts[DMAMAP_FAULT_PAGE_ALLOC] >= 1);
}

/* What a child running a fixture (@quiet or not) prints on stderr when its driver warns, into @out. */
static void fixture_stderr(bool quiet, char *out, size_t size)
{
	size_t len = 0;
	int fds[2], status;
	ssize_t got;
	pid_t pid;

	assert_int_equal(pipe(fds), 0);
	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct dmamap_test_traits tr = { .quiet = quiet };
		struct dmamap_test t;

		dup2(fds[1], 2);
		close(fds[0]);
		if (dmamap_test_init(&t, &tr))
			_exit(2);
		dev_err(&t.dev, "ring %d stalled", 3);
		dev_warn(&t.dev, "link down");
		dev_info(&t.dev, "link up");
		dmamap_test_fini(&t);
		_exit(t.reports == 0 ? 0 : 3);
	}
	close(fds[1]);
	while (len < size - 1 && (got = read(fds[0], out + len, size - 1 - len)) > 0)
		len += (size_t)got;
	out[len] = '\0';
	close(fds[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

/* The driver's errors and warnings are said on stderr under the fixture, unless it is quiet; they are no reports. */
static void test_driver_messages_printed(void **state)
{
	char out[4096];

	(void)state;
	fixture_stderr(false, out, sizeof(out));
	assert_non_null(strstr(out, "dmamap error: dut: ring 3 stalled\n"));
	assert_non_null(strstr(out, "dmamap warning: dut: link down\n"));
	assert_null(strstr(out, "link up"));
	fixture_stderr(true, out, sizeof(out));
	assert_string_equal(out, "");
}

static unsigned long process_reports;

static void count_process_report(const struct dmamap_log_record *rec, void *ctx)
{
	(void)ctx;
	if (rec->kind != DMAMAP_REPORT_NONE)
		process_reports++;
}

/* What belongs to no machine is the fixture's while its machine is current; not before, not after, not another's. */
static void test_reports_of_no_machine_captured(void **state)
{
	struct dmamap_test_traits tr = { .quiet = true };
	struct dmamap_machine_config cfg;
	struct dmamap_machine *other;
	static u8 host_buf[64];
	struct scatterlist sg;
	struct dmamap_test t;
	unsigned long before;
	char why[256];
	int l;

	(void)state;
	dmamap_set_log_handler(NULL, count_process_report, NULL);
	assert_int_equal(dmamap_test_init(&t, &tr), 0);
	before = dmamap_report_count(NULL);
	sg_init_table(&sg, 1);
	sg_set_buf(&sg, host_buf, sizeof(host_buf)); l = __LINE__; /* memory of no machine */
	assert_int_equal(t.reports, 1);
	assert_int_equal(t.by_kind[DMAMAP_REPORT_BAD_ADDRESS], 1);
	assert_non_null(dmamap_test_find_report(&t, DMAMAP_REPORT_BAD_ADDRESS, "test-testing.c", l));
	assert_false(dmamap_test_no_reports(&t, why, sizeof(why)));
	assert_int_equal(process_reports, 0); /* the fixture's, not the process handler's */
	assert_int_equal(dmamap_report_count(NULL), before + 1); /* still counted as no machine's */
	assert_int_equal(dmamap_report_count(t.machine), 0);
	dmamap_test_reset_reports(&t);

	/* another machine made current: its own handler, the fixture hears nothing */
	dmamap_test_demanding_config(&cfg, false);
	other = dmamap_machine_create(&cfg);
	assert_non_null(other);
	dmamap_machine_set_current(other);
	sg_set_buf(&sg, host_buf, sizeof(host_buf));
	assert_int_equal(t.reports, 0);
	assert_int_equal(process_reports, 1);
	dmamap_machine_set_current(t.machine);
	dmamap_machine_destroy(other);
	dmamap_test_fini(&t);

	/* with no fixture, the process handler again */
	sg_set_buf(&sg, host_buf, sizeof(host_buf));
	assert_int_equal(process_reports, 2);
	assert_int_equal(t.reports, 0);
	dmamap_set_log_handler(NULL, NULL, NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_default_fixture),
		cmocka_unit_test(test_driver_messages_printed),
		cmocka_unit_test(test_traits),
		cmocka_unit_test(test_refused_traits),
		cmocka_unit_test(test_captured_reports),
		cmocka_unit_test(test_reports_of_no_machine_captured),
		cmocka_unit_test(test_device_sees),
		cmocka_unit_test(test_fault_sweep),
		cmocka_unit_test(test_fault_sweep_bounce),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
