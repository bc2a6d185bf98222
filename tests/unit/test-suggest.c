/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* The nearest name for a typo (suggest.c). */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "suggest.h"

static void test_suggest(void **state)
{
	static const char *const keys[] = {
		"VirtualFunctions",	   "MTUBytes", "LinkUp", "Device", "Driver", "Name",
		"FirmwareVirtualFunctions"
	};
	static const struct {
		const char *typo, *meant;
	} cases[] = {
		{ "VirtualFuntions", "VirtualFunctions" },
		{ "virtualfunctions", "VirtualFunctions" },
		{ "VirtualFunction", "VirtualFunctions" },
		{ "Devcie", "Device" }, /* one transposition */
		{ "Drivr", "Driver" },
		{ "MTUByte", "MTUBytes" },
		{ "Virtual", "VirtualFunctions" }, /* cut short */
		{ "MTU", "MTUBytes" },		   /* a word of it */
		{ "Up", NULL },			   /* too short to be told */
		{ "LU", "LinkUp" },		   /* the initials of every word */
		{ "link_up", "LinkUp" },
		{ "VFs", NULL },
		{ "VirtFunc", "VirtualFunctions" },
		{ "Dev", "Device" }, /* the start of a word */
		{ "Functions", "VirtualFunctions" },
		{ "Nmae", "Name" },
		{ "Foo", NULL },
		{ "Bandwidth", NULL },
		{ "", NULL },
	};

	assert_int_equal(suggest_distance("Device", "Devcie"), 1);
	assert_int_equal(suggest_distance("abc", ""), 3);
	assert_int_equal(suggest_distance("kitten", "sitting"), 3);
	assert_int_equal(suggest_distance("TRUST", "trust"), 0);
	for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
		struct suggest s = suggest_init(cases[i].typo);
		char hint[96];

		for (size_t k = 0; k < ELEMENTSOF(keys); k++)
			suggest_consider(&s, keys[k]);
		if (!cases[i].meant) {
			assert_null(s.best);
			assert_string_equal(suggest_hint(&s, hint, sizeof(hint)), "");
		} else {
			assert_non_null(s.best);
			assert_string_equal(s.best, cases[i].meant);
		}
	}
	/* another name of a key: nearer than any edit */
	{
		struct suggest s = suggest_init("Query_RSS");

		suggest_consider(&s, "QueryReceiveSideScaling");
		suggest_consider_alias(&s, "QueryRSSX", "query_rss");
		suggest_consider_alias(&s, "Trust", NULL);
		assert_string_equal(s.best, "QueryRSSX");
		assert_int_equal(s.distance, 0);
	}
	/* an abbreviation leaves out no more words than it uses */
	{
		struct suggest s = suggest_init("MAC");

		suggest_consider(&s, "MACSpoofCheck");
		assert_null(s.best);
		suggest_consider(&s, "MACAddress");
		assert_string_equal(s.best, "MACAddress");
	}
	/* names too long to measure are never suggested for a short typo */
	{
		char longname[100];
		struct suggest s = suggest_init("Name");

		memset(longname, 'x', sizeof(longname) - 1);
		longname[sizeof(longname) - 1] = '\0';
		suggest_consider(&s, longname);
		assert_null(s.best);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_suggest),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
