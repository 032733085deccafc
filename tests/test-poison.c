/* SPDX-License-Identifier: MIT */
/*
 * Ownership poisoning: a driver's read of a buffer the device owns is
 * reported at the driver's line by memcheck or by AddressSanitizer. The
 * driver runs in a child process (poison-child), under its own valgrind when
 * this test runs under valgrind (the valgrind setup, where the library is
 * known to be built with its client requests), or as it is when the tests are
 * built with ASan (the child is too); the tool's report is checked here.
 * Skipped elsewhere. And a driver's test built with ASan against the library
 * built without it (poison-child-asan, when the compiler can build it).
 */
#include <stdlib.h>
#include <sys/wait.h>

#include "common.h"

/* AddressSanitizer's runtime, when the tests are built with it (weak: NULL otherwise). */
void __asan_poison_memory_region(void const volatile *addr, size_t size) __attribute__((weak));

enum tool { TOOL_NONE, TOOL_MEMCHECK, TOOL_ASAN };

static enum tool tool(void)
{
	if (under_valgrind())
		return TOOL_MEMCHECK;
	return __asan_poison_memory_region ? TOOL_ASAN : TOOL_NONE;
}

/*
 * Run @child with @arg under the tool: its whole output in @out, its exit
 * status returned (3: the tool's error).
 */
static int run_child(enum tool t, const char *child, const char *arg, char *out, size_t n)
{
	const char *vg = getenv("DMAMAP_TEST_VALGRIND");
	char cmd[1024];
	size_t used = 0, k;
	FILE *p;

	assert_non_null(child);
	if (t == TOOL_MEMCHECK) {
		assert_non_null(vg);
		snprintf(cmd, sizeof(cmd), "'%s' --quiet --error-exitcode=3 '%s' %s 2>&1", vg, child, arg);
	} else {
		snprintf(cmd, sizeof(cmd),
			 "ASAN_OPTIONS=exitcode=3:halt_on_error=1:abort_on_error=0:detect_leaks=1 '%s' %s 2>&1", child,
			 arg);
	}
	p = popen(cmd, "r");
	assert_non_null(p);
	while (used < n - 1 && (k = fread(out + used, 1, n - 1 - used, p)) > 0)
		used += k;
	out[used] = '\0';
	return pclose(p);
}

/* The tool reports the child's read of a device-owned buffer at the child's line. */
static void expect_read_reported(enum tool t, const char *child)
{
	static char out[65536];
	char where[64];
	const char *at;
	int status, line;

	status = run_child(t, child, "read", out, sizeof(out));
	at = strstr(out, "read at line ");
	if (!at)
		fail_msg("the child did not run: %s", out);
	line = atoi(at + strlen("read at line "));
	if (t == TOOL_MEMCHECK && !strstr(out, "Invalid read of size 1"))
		fail_msg("memcheck did not report the read: %s", out);
	if (t == TOOL_ASAN && (!strstr(out, "use-after-poison") || !strstr(out, "READ of size 1")))
		fail_msg("ASan did not report the read: %s", out);
	snprintf(where, sizeof(where), "poison-child.c:%d", line);
	if (!strstr(out, where))
		fail_msg("the report does not name %s: %s", where, out);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 3);
}

/* The same driver, reading only after the unmap: nothing reported. */
static void expect_correct_quiet(enum tool t, const char *child)
{
	static char out[65536];
	int status;

	status = run_child(t, child, "correct", out, sizeof(out));
	if (strstr(out, "Invalid") || strstr(out, "AddressSanitizer") || !strstr(out, "got 90"))
		fail_msg("a correct driver: %s", out);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

static void test_tool_reports_read_of_device_owned_buffer(void **state)
{
	(void)state;
	if (tool() == TOOL_NONE)
		skip();
	assert_non_null(getenv("DMAMAP_TEST_POISON_CHILD"));
	expect_read_reported(tool(), getenv("DMAMAP_TEST_POISON_CHILD"));
}

static void test_tool_quiet_after_unmap(void **state)
{
	(void)state;
	if (tool() == TOOL_NONE)
		skip();
	assert_non_null(getenv("DMAMAP_TEST_POISON_CHILD"));
	expect_correct_quiet(tool(), getenv("DMAMAP_TEST_POISON_CHILD"));
}

/* A driver's test built with ASan, the library without it: the library finds ASan's runtime in the process. */
static void test_asan_driver_against_plain_library(void **state)
{
	const char *child = getenv("DMAMAP_TEST_POISON_CHILD_ASAN");

	(void)state;
	if (!child)
		skip();
	expect_read_reported(TOOL_ASAN, child);
	expect_correct_quiet(TOOL_ASAN, child);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tool_reports_read_of_device_owned_buffer),
		cmocka_unit_test(test_tool_quiet_after_unmap),
		cmocka_unit_test(test_asan_driver_against_plain_library),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
