/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* mstconfig's output as mstflint 4.21 (Debian 12) and 4.31 print it for a
 * ConnectX-6 Dx (Ethernet only) and a ConnectX-6 VPI, from the transcripts
 * in tests/fixtures/mstconfig (NOTES.md says where each detail comes from),
 * and the backend's reading of a card through a stand-in mstconfig that
 * prints them. */

#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "mstconfig.h"

#define FIXTURES "tests/fixtures/mstconfig/"

static char *load(const char *version, const char *name)
{
	char path[256];
	char *text = NULL;

	snprintf(path, sizeof(path), FIXTURES "%s/%s", version, name);
	assert_int_equal(read_file_at(AT_FDCWD, path, 1 << 20, &text, NULL), 0);
	return text;
}

static void expect(const struct mst_config *c, const char *name, uint32_t next)
{
	uint32_t v = UINT32_MAX;

	assert_true(mst_config_get(c, name, &v));
	assert_int_equal(v, next);
}

static void test_query(void **state)
{
	static const char *const versions[] = { "4.21", "4.31" };

	for (size_t i = 0; i < ELEMENTSOF(versions); i++) {
		_cleanup_free_ char *dx = load(versions[i], "cx6dx-query.txt");
		_cleanup_free_ char *vpi = load(versions[i], "cx6-vpi-query.txt");
		struct mst_config c;
		char *why = NULL;
		uint32_t v;

		assert_int_equal(mstconfig_parse_query(dx, &c, &why), 0);
		expect(&c, "SRIOV_EN", 1);
		expect(&c, "NUM_OF_VFS", 16);
		assert_false(mst_config_get(&c, "LINK_TYPE_P1", &v));
		assert_int_equal(mstconfig_parse_query(vpi, &c, &why), 0);
		expect(&c, "SRIOV_EN", 0);
		expect(&c, "NUM_OF_VFS", 0);
		expect(&c, "LINK_TYPE_P1", MST_LINK_TYPE_ETH); /* IB now, ETH after a reboot */
		expect(&c, "LINK_TYPE_P2", MST_LINK_TYPE_IB);
	}
}

static void expect_refused(const char *text, const char *why_part)
{
	struct mst_config c;
	char *why = NULL;

	assert_int_equal(mstconfig_parse_query(text, &c, &why), -EINVAL);
	assert_non_null(why);
	if (!strstr(why, why_part))
		fail_msg("\"%s\" does not say \"%s\"", why, why_part);
	free(why);
}

static void test_query_refused(void **state)
{
	_cleanup_free_ char *err = load("4.21", "cx6dx-query-linktype-error.txt");
	_cleanup_free_ char *dx = load("4.21", "cx6dx-query.txt");
	char *row;

	expect_refused(err, "-E- The Device doesn't support LINK_TYPE_P1 parameter");
	expect_refused("", "no parameter table");
	expect_refused("Device #1:\nsomething else\n", "unexpected line");
	/* a row with a value that is not one of mstconfig's forms */
	row = strstr(dx, "16              16");
	assert_non_null(row);
	row[0] = '?';
	expect_refused(dx, "not a parameter row");
	row[0] = '1';
	/* cut short: two values */
	expect_refused("Configurations:   Default   Current   Next Boot\n"
		       "         NUM_OF_VFS                          8               16\n",
		       "not a parameter row");
	expect_refused("Configurations:   Default   Current   Next Boot\n"
		       "         NUM_OF_VFS                          8      16      N/A\n",
		       "NUM_OF_VFS has no number");
}

static void test_set_and_errors(void **state)
{
	_cleanup_free_ char *done = load("4.21", "cx6-vpi-set.txt");
	_cleanup_free_ char *range = load("4.21", "cx6-vpi-set-out-of-range.txt");
	_cleanup_free_ char *nodev = load("4.21", "no-device.txt");
	_cleanup_free_ char *a = NULL, *b = NULL, *c = NULL, *d = NULL;

	assert_true(mstconfig_set_done(done));
	assert_false(mstconfig_set_done(range));
	assert_false(mstconfig_set_done(nodev));
	a = mstconfig_error_line(nodev, "");
	assert_string_equal(a, "-E- Failed to open the device");
	b = mstconfig_error_line(range, "");
	assert_non_null(strstr(b, "-E- Parameter NUM_OF_VFS"));
	c = mstconfig_error_line("", "mstconfig: cannot execute\n\n");
	assert_string_equal(c, "mstconfig: cannot execute");
	d = mstconfig_error_line("", "");
	assert_string_equal(d, "no message");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_query),
		cmocka_unit_test(test_query_refused),
		cmocka_unit_test(test_set_and_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
