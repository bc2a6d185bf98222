/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "plan.h"

static void test_host_reboot_reasons(void **state)
{
	struct pf_state pf = { .total_vfs = 8, .firmware_total_vfs = 8 };
	char **l = NULL;

	assert_int_equal(plan_host_reboot_reasons(&pf, &l), 0);
	assert_non_null(l);
	assert_null(l[0]);
	strv_free(l);

	/* no firmware tool: nothing known */
	pf.firmware_total_vfs = -1;
	assert_int_equal(plan_host_reboot_reasons(&pf, &l), 0);
	assert_null(l[0]);
	strv_free(l);

	pf.firmware_total_vfs = 16;
	pf.has_firmware_link_type = true;
	pf.link_type = LINK_TYPE_ETHERNET;
	pf.firmware_link_type = LINK_TYPE_INFINIBAND;
	assert_int_equal(plan_host_reboot_reasons(&pf, &l), 0);
	assert_string_equal(l[0], "firmware VF limit raised to 16, waiting for a reboot");
	assert_string_equal(l[1], "link type infiniband is set in firmware, waiting for a reboot");
	assert_null(l[2]);
	strv_free(l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_host_reboot_reasons),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
