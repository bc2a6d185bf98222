/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "secret-file.h"

static int judge(uid_t uid, mode_t mode, bool private_, char *buf)
{
	struct stat st = { .st_uid = uid, .st_mode = S_IFREG | mode };

	return secret_stat_refusal(&st, 1000, private_, "token file", "/k/token", buf,
				   SECRET_REFUSAL_MAX);
}

static void test_secret_stat_refusal(void **state)
{
	char buf[SECRET_REFUSAL_MAX] = "";

	/* root's or ours, its group may read it */
	assert_int_equal(judge(0, 0640, true, buf), 0);
	assert_int_equal(judge(1000, 0600, true, buf), 0);
	/* a file without a secret in it may be read by everyone */
	assert_int_equal(judge(0, 0644, false, buf), 0);

	assert_int_equal(judge(0, 0644, true, buf), -EPERM);
	assert_string_equal(buf, "refusing token file /k/token: readable by everyone (mode 0644), "
				 "so the secret in it is no longer one; chmod o-r it (and renew "
				 "the secret)");
	assert_int_equal(judge(0, 0666, false, buf), -EPERM);
	assert_string_equal(buf,
			    "refusing token file /k/token: writable by everyone (mode 0666); chmod "
			    "go-w it");
	assert_int_equal(judge(0, 0620, false, buf), -EPERM);
	assert_string_equal(
		buf, "refusing token file /k/token: writable by its group (mode 0620); chmod "
		     "go-w it");
	assert_int_equal(judge(65534, 0600, false, buf), -EPERM);
	assert_string_equal(buf, "refusing token file /k/token: owned by uid 65534, not by root "
				 "or this user (uid 1000); chown it to root");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_secret_stat_refusal),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
