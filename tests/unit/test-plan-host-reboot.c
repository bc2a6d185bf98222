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

/* A firmware VF limit's reason goes once the firmware holds another limit
 * or the limit took effect; other reasons never. */
static void test_firmware_reason_gone(void **state)
{
	struct pf_state pf = { .total_vfs = 8, .firmware_total_vfs = 16 };
	const char *raised16 = "firmware VF limit raised to 16, waiting for a reboot";
	const char *unasked16 = "firmware VF limit raised to 16, waiting for a reboot (set by the "
				"apply of 2026-12-07T12:09:56Z; no layout asks for it now)";
	const char *set12 =
		"firmware VF limit 12 set in firmware, waiting for a reboot (the apply "
		"of 2026-12-07T12:09:56Z raised it to 16; changed since; no layout asks "
		"for it now)";

	assert_false(plan_firmware_reason_gone(&pf, raised16));
	assert_false(plan_firmware_reason_gone(&pf, unasked16));
	assert_true(plan_firmware_reason_gone(&pf, set12));
	assert_false(plan_firmware_reason_gone(&pf, "firmware VF limit 8 -> 16 takes effect after "
						    "a reboot"));
	assert_false(plan_firmware_reason_gone(&pf, "link type infiniband is set in firmware, "
						    "waiting for a reboot"));
	/* set by hand to 12 */
	pf.firmware_total_vfs = 12;
	assert_true(plan_firmware_reason_gone(&pf, raised16));
	assert_true(plan_firmware_reason_gone(&pf, unasked16));
	assert_false(plan_firmware_reason_gone(&pf, set12));
	/* no firmware tool: only what took effect is known */
	pf.firmware_total_vfs = -1;
	assert_false(plan_firmware_reason_gone(&pf, raised16));
	/* 12 in effect after the reboot */
	pf.firmware_total_vfs = 12;
	pf.total_vfs = 12;
	assert_true(plan_firmware_reason_gone(&pf, set12));
	assert_true(plan_firmware_reason_gone(&pf, "firmware VF limit raised to 12, waiting for a "
						   "reboot"));
	assert_int_equal(plan_firmware_reason_raised(raised16), 16);
	assert_int_equal(plan_firmware_reason_raised(unasked16), 16);
	assert_int_equal(plan_firmware_reason_raised(set12), 0);
	assert_int_equal(plan_firmware_reason_raised("firmware VF limit raised to 16"), 0);
	assert_int_equal(plan_firmware_reason_raised(
				 "firmware VF limit raised to -1, waiting for a "
				 "reboot"),
			 0);
	assert_int_equal(plan_firmware_reason_raised("firmware VF limit raised to x, waiting for a "
						     "reboot"),
			 0);
}

/* A link type's reason goes once the firmware holds another link type (set
 * back by hand) or the port has it; what a plan still has to write stays. */
static void test_link_type_reason_gone(void **state)
{
	struct pf_state pf = { .total_vfs = 8,
			       .firmware_total_vfs = 8,
			       .has_firmware_link_type = true,
			       .link_type = LINK_TYPE_ETHERNET,
			       .firmware_link_type = LINK_TYPE_INFINIBAND };
	const char *ib = "link type infiniband is set in firmware, waiting for a reboot";
	const char *unasked = "link type infiniband is set in firmware, waiting for a reboot (set "
			      "by the apply of 2026-12-07T12:09:56Z; no layout asks for it now)";
	const char *planned = "link type ethernet -> infiniband takes effect after a reboot";

	assert_false(plan_firmware_reason_gone(&pf, ib));
	assert_false(plan_firmware_reason_gone(&pf, unasked));
	assert_false(plan_firmware_reason_gone(&pf, planned));
	assert_false(plan_firmware_reason_gone(&pf, "link type infinibandx is set in firmware, "
						    "waiting for a reboot"));
	/* set back by hand: LINK_TYPE_P1=2 */
	pf.firmware_link_type = LINK_TYPE_ETHERNET;
	assert_true(plan_firmware_reason_gone(&pf, ib));
	assert_true(plan_firmware_reason_gone(&pf, unasked));
	assert_false(plan_firmware_reason_gone(&pf, planned));
	/* no firmware tool: only what took effect is known */
	pf.has_firmware_link_type = false;
	assert_false(plan_firmware_reason_gone(&pf, ib));
	/* in effect after the reboot or a firmware reset */
	pf.link_type = LINK_TYPE_INFINIBAND;
	assert_true(plan_firmware_reason_gone(&pf, ib));
	pf.has_firmware_link_type = true;
	pf.firmware_link_type = LINK_TYPE_INFINIBAND;
	assert_true(plan_firmware_reason_gone(&pf, unasked));
	/* the other way round: ethernet set in firmware, the port still infiniband */
	pf.firmware_link_type = LINK_TYPE_ETHERNET;
	assert_false(plan_firmware_reason_gone(&pf, "link type ethernet is set in firmware, "
						    "waiting for a reboot"));
}

/* The card raise another port's apply made: waited for, not the PF's own
 * pending reboot; still the limit it waited for, and gone as that is. */
static void test_card_wait_reason(void **state)
{
	static char *none[] = { NULL };
	char *raised = (char *)"firmware VF limit raised to 20, waiting for a reboot";
	char *link = (char *)"link type infiniband is set in firmware, waiting for a reboot";
	char *wait = plan_card_wait_reason(raised, "0000:ca:00.0");
	char *reasons[] = { wait, link, NULL };
	struct plan p = { .reboot_reasons = reasons, .reboot_planned = none };
	struct pf_state pf = { .total_vfs = 8, .firmware_total_vfs = 20 };
	char **l = NULL;

	assert_string_equal(wait, "firmware VF limit raised to 20, waiting for a reboot (the card "
				  "raise made by the apply of 0000:ca:00.0)");
	assert_true(plan_reason_card_wait(wait));
	assert_false(plan_reason_card_wait(raised));
	assert_false(plan_reason_card_wait(link));
	assert_int_equal(plan_firmware_reason_raised(wait), 20);
	assert_false(plan_firmware_reason_gone(&pf, wait));
	pf.total_vfs = 20;
	assert_true(plan_firmware_reason_gone(&pf, wait));
	assert_int_equal(plan_reboot_reasons_of(&p, true, &l), 0);
	assert_int_equal(strv_length(l), 1);
	assert_string_equal(l[0], link);
	l = strv_free(l);
	assert_int_equal(plan_reboot_reasons_waited(&p, &l), 0);
	assert_int_equal(strv_length(l), 2);
	assert_string_equal(l[0], wait);
	strv_free(l);
	free(wait);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_host_reboot_reasons),
		cmocka_unit_test(test_firmware_reason_gone),
		cmocka_unit_test(test_link_type_reason_gone),
		cmocka_unit_test(test_card_wait_reason),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
