/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* mstfwreset's output as mstflint 4.21 (Debian 12) and 4.31 print it for a
 * ConnectX-6 Dx, from the transcripts in tests/fixtures/mlxfwreset
 * (NOTES.md says where each detail comes from). */

#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "mlxfwreset.h"
#include "mstconfig.h"

#define FIXTURES "tests/fixtures/mlxfwreset/"

static const char *const versions[] = { "4.21", "4.31" };

static char *load(const char *version, const char *name)
{
	char path[256];
	char *text = NULL;

	snprintf(path, sizeof(path), FIXTURES "%s/%s", version, name);
	assert_int_equal(read_file_at(AT_FDCWD, path, 1 << 20, &text, NULL), 0);
	return text;
}

static void parse(const char *text, struct mlxfwreset_query *q)
{
	_cleanup_free_ char *why = NULL;

	if (mlxfwreset_parse_query(text, q, &why) < 0)
		fail_msg("refused: %s", why);
}

static void test_query(void **state)
{
	for (size_t i = 0; i < ELEMENTSOF(versions); i++) {
		_cleanup_free_ char *yes = load(versions[i], "query.txt");
		_cleanup_free_ char *no = load(versions[i], "query-no-pci-reset.txt");
		struct mlxfwreset_query q;

		parse(yes, &q);
		assert_true(mlxfwreset_level_supported(&q, MLXFWRESET_LEVEL_PCI_RESET));
		assert_false(mlxfwreset_level_supported(&q, 0));
		assert_true(mlxfwreset_level_supported(&q, 4));
		assert_int_equal(q.default_level, 3);
		parse(no, &q);
		assert_false(mlxfwreset_level_supported(&q, MLXFWRESET_LEVEL_PCI_RESET));
		assert_true(mlxfwreset_level_supported(&q, 4));
		assert_int_equal(q.default_level, 4);
		assert_true(q.listed & (1u << MLXFWRESET_LEVEL_PCI_RESET));
	}
}

/* 4.31 with firmware that has the MROQ and MRSI registers: two more
 * sections and two label lines, all checked and skipped. */
static void test_query_newer_firmware(void **state)
{
	_cleanup_free_ char *text = load("4.31", "query-mroq.txt");
	struct mlxfwreset_query q;

	parse(text, &q);
	assert_true(mlxfwreset_level_supported(&q, MLXFWRESET_LEVEL_PCI_RESET));
	assert_int_equal(q.listed, (1u << 0) | (1u << 1) | (1u << 3) | (1u << 4));
}

static void expect_refused(const char *text, const char *why_part)
{
	struct mlxfwreset_query q;
	char *why = NULL;

	assert_int_equal(mlxfwreset_parse_query(text, &q, &why), -EINVAL);
	assert_non_null(why);
	if (!strstr(why, why_part))
		fail_msg("\"%s\" does not say \"%s\"", why, why_part);
	free(why);
}

/* Replaces the first `from` in text by `to`, of the same length. */
static void patch(char *text, const char *from, const char *to)
{
	char *p = strstr(text, from);

	assert_non_null(p);
	assert_int_equal(strlen(from), strlen(to));
	memcpy(p, to, strlen(to));
}

static void test_query_refused(void **state)
{
	_cleanup_free_ char *nodev = load("4.21", "no-device.txt");
	_cleanup_free_ char *a = load("4.21", "query.txt"), *b = load("4.21", "query.txt");
	_cleanup_free_ char *c = load("4.21", "query.txt"), *d = load("4.31", "query.txt");
	_cleanup_free_ char *e = load("4.21", "query.txt");

	expect_refused(nodev, "unexpected line: \"-E- Failed to Identify Device");
	expect_refused("", "no reset levels");
	expect_refused("\nReset-levels:\n\n", "no reset levels");
	/* a level 3 that is not the PCI reset */
	patch(a, "Driver restart and PCI reset", "Driver restart and ARM reset");
	expect_refused(a, "reset level 3 is \"Driver restart and ARM reset\"");
	/* a status the tool never prints */
	patch(b, "-Supported     (default)", "-Maybe         (default)");
	expect_refused(b, "unexpected line: \"3: Driver restart");
	/* the padding cut off: not the tool's own text */
	patch(c, "-Supported     \n", "-Supported\n     ");
	expect_refused(c, "unexpected line: \"4: Warm Reboot");
	/* a status run into "(default)" */
	patch(d, "-Supported     \n", "-Supported(def)\n");
	expect_refused(d, "unexpected line");
	expect_refused("Reset-levels:\n"
		       "3: Driver restart and PCI reset                                  "
		       "-Supported     (default)\n"
		       "4: Warm Reboot                                                   "
		       "-Supported     (default)\n",
		       "two default reset levels");
	patch(e, "4: Warm Reboot", "3: Warm Reboot");
	expect_refused(e, "reset level 3 listed twice");
	expect_refused("Reset-types (relevant only for reset-levels x):\n", "unexpected line");
	expect_refused("3: Driver restart and PCI reset\n", "unexpected line");
}

static void test_reset(void **state)
{
	for (size_t i = 0; i < ELEMENTSOF(versions); i++) {
		_cleanup_free_ char *done = load(versions[i], "reset.txt");
		_cleanup_free_ char *failed = load(versions[i], "reset-failed.txt");
		_cleanup_free_ char *level = load(versions[i], "reset-level-unsupported.txt");
		_cleanup_free_ char *a = NULL, *b = NULL;

		assert_true(mlxfwreset_reset_done(done));
		assert_false(mlxfwreset_reset_done(failed));
		assert_false(mlxfwreset_reset_done(level));
		a = mstconfig_error_line(failed, "");
		assert_string_equal(
			a, "-E- Firmware reset failed, retry operation or reboot machine.");
		b = mstconfig_error_line(level, "");
		assert_string_equal(b, "-E- Reset-level '3' is not supported in the current "
				       "state of this device.");
	}
}

static void test_reset_refused_by_the_tool(void **state)
{
	static const char *const files[] = { "no-device.txt", "not-root.txt",
					     "reset-virtual-machine.txt" };

	for (size_t i = 0; i < ELEMENTSOF(files); i++) {
		_cleanup_free_ char *text = load("4.21", files[i]);
		_cleanup_free_ char *line = mstconfig_error_line(text, "");

		assert_false(mlxfwreset_reset_done(text));
		assert_true(startswith(line, "-E- "));
	}
	assert_false(mlxfwreset_reset_done(""));
	assert_false(mlxfwreset_reset_done("-I- FW was loaded successfully.\n"
					   "-E- something after\n"));
	assert_true(mlxfwreset_reset_done("-I- FW was loaded successfully."));
	assert_false(mlxfwreset_reset_done("-I- FW was loaded successfully. Or not.\n"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_query),
		cmocka_unit_test(test_query_newer_firmware),
		cmocka_unit_test(test_query_refused),
		cmocka_unit_test(test_reset),
		cmocka_unit_test(test_reset_refused_by_the_tool),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
