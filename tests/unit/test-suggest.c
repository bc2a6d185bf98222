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
	/* two equally near: none suggested, yet something was near */
	{
		struct suggest s = suggest_init("TxRate");
		char hint[96];

		assert_false(suggest_near(&s));
		suggest_consider(&s, "MinTxRateMbps");
		suggest_consider(&s, "MaxTxRateMbps");
		assert_null(s.best);
		assert_true(suggest_near(&s));
		assert_string_equal(suggest_hint_of(&s, "[VirtualFunction]", hint, sizeof(hint)),
				    "");
	}
	/* a key of another section is said with its section */
	{
		struct suggest s = suggest_init("VirtualFuntions");
		char hint[96];

		suggest_consider(&s, "VirtualFunctions");
		assert_string_equal(suggest_hint_of(&s, "[PhysicalFunction]", hint, sizeof(hint)),
				    "; did you mean 'VirtualFunctions' of [PhysicalFunction]?");
		assert_string_equal(suggest_hint_of(&s, NULL, hint, sizeof(hint)),
				    "; did you mean 'VirtualFunctions'?");
		assert_string_equal(suggest_hint(&s, hint, sizeof(hint)),
				    "; did you mean 'VirtualFunctions'?");
	}
	/* the sections of a key, as a list */
	{
		char where[64], tiny[8];

		suggest_where_add(where, sizeof(where), 0, 1, "Disruption");
		assert_string_equal(where, "[Disruption]");
		suggest_where_add(where, sizeof(where), 0, 2, "Disruption");
		suggest_where_add(where, sizeof(where), 1, 2, "Reboot");
		assert_string_equal(where, "[Disruption] or [Reboot]");
		suggest_where_add(where, sizeof(where), 0, 3, "A");
		suggest_where_add(where, sizeof(where), 1, 3, "B");
		suggest_where_add(where, sizeof(where), 2, 3, "C");
		assert_string_equal(where, "[A], [B] or [C]");
		/* cut short, never past the buffer */
		suggest_where_add(tiny, sizeof(tiny), 0, 2, "Disruption");
		suggest_where_add(tiny, sizeof(tiny), 1, 2, "Reboot");
		assert_string_equal(tiny, "[Disrup");
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_suggest),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
