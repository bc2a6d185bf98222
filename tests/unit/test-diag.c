/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "diag.h"

static void add(struct diag_list *l, const char *file, unsigned line, const char *msg)
{
	assert_int_equal(diag_add(l, DIAG_ERROR, file, line, "%s", msg), 0);
}

static void assert_at(const struct diag_list *l, size_t i, const char *file, unsigned line,
		      const char *msg)
{
	assert_true(streq_ptr(l->items[i].file, file));
	assert_int_equal(l->items[i].line, line);
	assert_string_equal(l->items[i].msg, msg);
}

/* The parser's errors first, the rules' after: each file reads top to
 * bottom, where its first diagnostic was; the whole file's (line 0) after
 * its lines, those without a file where the first of them was; equal lines
 * keep their order. */
static void test_sort_by_line(void **state)
{
	struct diag_list l = {};

	(void)state;
	add(&l, "main.conf", 4, "main");
	add(&l, "a.conf", 12, "unknown key");
	add(&l, NULL, 0, "no file 1");
	add(&l, "b.conf", 3, "b parser");
	add(&l, "a.conf", 0, "whole file");
	add(&l, "a.conf", 6, "beyond");
	add(&l, "a.conf", 9, "qos first");
	add(&l, "a.conf", 9, "qos second");
	add(&l, NULL, 0, "no file 2");
	add(&l, "b.conf", 1, "b rules");
	assert_int_equal(diag_list_sort_by_line(&l), 0);
	assert_int_equal(l.n, 10);
	assert_at(&l, 0, "main.conf", 4, "main");
	assert_at(&l, 1, "a.conf", 6, "beyond");
	assert_at(&l, 2, "a.conf", 9, "qos first");
	assert_at(&l, 3, "a.conf", 9, "qos second");
	assert_at(&l, 4, "a.conf", 12, "unknown key");
	assert_at(&l, 5, "a.conf", 0, "whole file");
	assert_at(&l, 6, NULL, 0, "no file 1");
	assert_at(&l, 7, NULL, 0, "no file 2");
	assert_at(&l, 8, "b.conf", 1, "b rules");
	assert_at(&l, 9, "b.conf", 3, "b parser");
	diag_list_done(&l);
	assert_int_equal(diag_list_sort_by_line(&l), 0);
	assert_int_equal(l.n, 0);
	diag_list_done(&l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sort_by_line),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
