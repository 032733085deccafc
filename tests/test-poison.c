/* SPDX-License-Identifier: MIT */
/*
 * Ownership poisoning: a driver's read of a buffer the device owns is
 * reported by memcheck at the driver's line. The driver runs in a child
 * process (poison-child) under its own valgrind, whose report is checked
 * here; skipped unless this test itself runs under valgrind (the valgrind
 * setup), where the library is known to be built with its client requests.
 */
#include <stdlib.h>
#include <sys/wait.h>

#include "common.h"

/* Run the child with @arg under valgrind: its whole output in @out, its exit status returned. */
static int run_child(const char *arg, char *out, size_t n)
{
	const char *vg = getenv("DMAMAP_TEST_VALGRIND"), *child = getenv("DMAMAP_TEST_POISON_CHILD");
	char cmd[1024];
	size_t used = 0, k;
	FILE *p;

	assert_non_null(vg);
	assert_non_null(child);
	snprintf(cmd, sizeof(cmd), "'%s' --quiet --error-exitcode=3 '%s' %s 2>&1", vg, child, arg);
	p = popen(cmd, "r");
	assert_non_null(p);
	while (used < n - 1 && (k = fread(out + used, 1, n - 1 - used, p)) > 0)
		used += k;
	out[used] = '\0';
	return pclose(p);
}

static void test_memcheck_reports_read_of_device_owned_buffer(void **state)
{
	static char out[65536];
	char where[64];
	const char *at;
	int status, line;

	(void)state;
	if (!under_valgrind())
		skip();
	status = run_child("read", out, sizeof(out));
	at = strstr(out, "read at line ");
	if (!at)
		fail_msg("the child did not run: %s", out);
	line = atoi(at + strlen("read at line "));
	if (!strstr(out, "Invalid read of size 1"))
		fail_msg("memcheck did not report the read: %s", out);
	snprintf(where, sizeof(where), "poison-child.c:%d", line);
	if (!strstr(out, where))
		fail_msg("the report does not name %s: %s", where, out);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 3);
}

static void test_memcheck_quiet_after_unmap(void **state)
{
	static char out[65536];
	int status;

	(void)state;
	if (!under_valgrind())
		skip();
	status = run_child("correct", out, sizeof(out));
	if (strstr(out, "Invalid") || !strstr(out, "got 90"))
		fail_msg("a correct driver: %s", out);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_memcheck_reports_read_of_device_owned_buffer),
		cmocka_unit_test(test_memcheck_quiet_after_unmap),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
