/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* The manuals and the shipped sriov-persist.conf against the languages'
 * own key tables: every key is documented, and the shipped file, with its
 * commented-out settings taken in, gives exactly the defaults. Run from the
 * repository's root, as scripts/run-unit-tests does. */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "layout.h"
#include "mainconf.h"
#include "pf-keys.h"

#define LAYOUT_PAGE "man/sriov-persist.layout.5"
#define CONF_PAGE "man/sriov-persist.conf.5"
#define CONF_FILE "conf/sriov-persist.conf"

static char *slurp(const char *path)
{
	char *text = NULL;

	if (read_file(path, &text) < 0) {
		fail_msg("cannot read %s (run from the repository's root)", path);
		return NULL;
	}
	return text;
}

/* The page shows key in bold: "\fBKey=" in running text, or a ".B Key=" or
 * ".BI Key=" line. */
static void assert_documented(const char *page, const char *text, const char *key)
{
	static const char *const forms[] = { "\\fB", "\n.B ", "\n.BI " };
	char want[96];

	for (size_t i = 0; i < ELEMENTSOF(forms); i++) {
		snprintf(want, sizeof(want), "%s%s=", forms[i], key);
		if (strstr(text, want))
			return;
	}
	fail_msg("%s does not document %s=", page, key);
}

static void test_layout_keys_are_documented(void **state)
{
	_cleanup_free_ char *text = slurp(LAYOUT_PAGE);
	const char *k;

	for (size_t i = 0; (k = layout_match_key_name(i)); i++)
		assert_documented(LAYOUT_PAGE, text, k);
	for (int i = 0; i < _PF_KEY_MAX; i++)
		assert_documented(LAYOUT_PAGE, text, pf_key_to_string(i));
	for (int i = 0; i < _VF_KEY_MAX; i++)
		assert_documented(LAYOUT_PAGE, text, vf_key_to_string(i));
	for (size_t i = 0; (k = layout_declare_key_name(i)); i++)
		assert_documented(LAYOUT_PAGE, text, k);
}

/* Each key is in the page, and commented out in the shipped file under its
 * section's header. */
static void test_main_keys_are_documented_and_shipped(void **state)
{
	_cleanup_free_ char *page = slurp(CONF_PAGE), *file = slurp(CONF_FILE);
	const char *section, *k;

	for (size_t i = 0; (k = mainconf_key_name(i, &section)); i++) {
		char header[64], line[96];
		const char *at, *next;

		assert_documented(CONF_PAGE, page, k);
		snprintf(header, sizeof(header), "\n[%s]\n", section);
		at = strstr(file, header);
		if (!at)
			fail_msg("%s has no [%s] section", CONF_FILE, section);
		next = strstr(at + 1, "\n[");
		snprintf(line, sizeof(line), "\n#%s=", k);
		at = strstr(at, line);
		if (!at || (next && at > next))
			fail_msg("%s has no #%s= in [%s]", CONF_FILE, k, section);
	}
}

/* "#Key=value" lines become "Key=value"; every other line stays. */
static char *take_in_settings(const char *text)
{
	char *out = text ? strdup(text) : NULL, *w = out;

	if (!out)
		return NULL;
	for (const char *p = text; *p;) {
		const char *eol = strchrnul(p, '\n');
		bool setting = p[0] == '#' && p[1] >= 'A' && p[1] <= 'Z' && memchr(p, '=', eol - p);

		if (setting)
			p++;
		memmove(w, p, eol - p);
		w += eol - p;
		if (*eol)
			*w++ = '\n';
		p = *eol ? eol + 1 : eol;
	}
	*w = '\0';
	return out;
}

static void test_shipped_file_is_the_defaults(void **state)
{
	_cleanup_free_ char *file = slurp(CONF_FILE), *taken = take_in_settings(file);
	struct mainconf defaults, shipped, settings;
	struct diag_list d = {};

	assert_int_equal(mainconf_init(&defaults), 0);
	assert_int_equal(mainconf_init(&shipped), 0);
	assert_int_equal(mainconf_init(&settings), 0);
	/* as shipped: nothing set, nothing wrong */
	assert_int_equal(mainconf_parse_string(&shipped, CONF_FILE, file, &d), 0);
	assert_int_equal(d.n, 0);
	/* every setting taken in: still the defaults */
	assert_int_equal(mainconf_parse_string(&settings, CONF_FILE, taken, &d), 0);
	for (size_t i = 0; i < d.n; i++)
		print_error("%s:%u: %s\n", CONF_FILE, d.items[i].line, d.items[i].msg);
	assert_int_equal(d.n, 0);
	assert_true(mainconf_equal(&shipped, &defaults));
	assert_true(mainconf_equal(&settings, &defaults));
	/* and the comparison can tell */
	settings.max_parallel_nodes++;
	assert_false(mainconf_equal(&settings, &defaults));
	mainconf_done(&defaults);
	mainconf_done(&shipped);
	mainconf_done(&settings);
	diag_list_done(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_layout_keys_are_documented),
		cmocka_unit_test(test_main_keys_are_documented_and_shipped),
		cmocka_unit_test(test_shipped_file_is_the_defaults),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
