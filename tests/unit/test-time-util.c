/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* Time spans and times as people read them (time-util.c). */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "time-util.h"

static void test_format_timespan(void **state)
{
	char b[FORMAT_TIMESPAN_MAX];

	assert_string_equal(format_timespan(b, 0), "0ms");
	assert_string_equal(format_timespan(b, 200 * USEC_PER_MSEC), "200ms");
	assert_string_equal(format_timespan(b, 60 * USEC_PER_SEC), "1min");
	assert_string_equal(format_timespan(b, 1500 * USEC_PER_MSEC), "1.5s");
	assert_string_equal(format_timespan(b, 42 * USEC_PER_SEC), "42s");
	assert_string_equal(format_timespan(b, 250 * USEC_PER_SEC), "4min 10s");
	assert_string_equal(format_timespan(b, 7500 * USEC_PER_SEC), "2h 5min");
	assert_string_equal(format_timespan(b, 7200 * USEC_PER_SEC), "2h");
	assert_string_equal(format_timespan(b, (3 * 86400 + 4 * 3600 + 5) * USEC_PER_SEC), "3d 4h");
	assert_non_null(format_timespan(b, UINT64_MAX));
	assert_string_equal(format_rfc3339(b, 1796555782 * USEC_PER_SEC + 999999),
			    "2026-12-06T11:16:22Z");
	assert_string_equal(format_rfc3339(b, 0), "1970-01-01T00:00:00Z");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_format_timespan),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
