/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "decide.h"

static struct pf_facts facts(void)
{
	return (struct pf_facts){
		.has_record = true,
		.record = PF_STATUS_APPLIED,
		.drift_mode = DRIFT_MODE_REPAIR,
		.plan_sig = "VF 1: vlan 5 qos 0 802.1Q",
		.may_apply = true,
	};
}

/* No record: pending and applied now with Mode=repair; with Mode=report
 * pending too (never applied: the boot's apply units write a record
 * before the daemon starts), no drift, not applied on its own, and a
 * module its plan loads is not one removed by hand. */
static void test_no_record(void **state)
{
	struct pf_facts f = facts();
	struct pf_verdict v;

	f.has_record = false;
	v = decide_changes(&f);
	assert_int_equal(v.state, PF_RUN_PENDING);
	assert_true(v.apply);
	assert_false(v.drifted);
	f.may_apply = false;
	assert_false(decide_changes(&f).apply);
	/* the same plan failed before: not tried again on its own */
	f.may_apply = true;
	f.given_up = f.plan_sig;
	assert_false(decide_changes(&f).apply);

	f.given_up = NULL;
	f.drift_mode = DRIFT_MODE_REPORT;
	v = decide_changes(&f);
	assert_int_equal(v.state, PF_RUN_PENDING);
	assert_false(v.drifted);
	assert_false(v.apply);
	f.loads_module = true;
	v = decide_changes(&f);
	assert_int_equal(v.state, PF_RUN_PENDING);
	assert_false(v.drifted);
	assert_false(v.module_missing);
	assert_false(v.apply);
}

/* Applied before and different now: drift, repaired only with
 * Mode=repair, never when a module is missing, never a given-up plan. */
static void test_drift(void **state)
{
	struct pf_facts f = facts();
	struct pf_verdict v = decide_changes(&f);

	assert_int_equal(v.state, PF_RUN_DRIFTED);
	assert_true(v.drifted);
	assert_true(v.apply);
	assert_false(v.module_missing);

	f.drift_mode = DRIFT_MODE_REPORT;
	v = decide_changes(&f);
	assert_true(v.drifted);
	assert_false(v.apply);

	f.drift_mode = DRIFT_MODE_REPAIR;
	f.loads_module = true;
	v = decide_changes(&f);
	assert_int_equal(v.state, PF_RUN_DRIFTED);
	assert_true(v.module_missing);
	assert_false(v.apply);

	f.loads_module = false;
	f.given_up = "VF 1: vlan 5 qos 0 802.1Q";
	assert_false(decide_changes(&f).apply);
	f.given_up = "VF 1: vlan 6 qos 0 802.1Q"; /* another plan: tried */
	assert_true(decide_changes(&f).apply);
}

/* The layouts want something else of it than at its record's apply: a
 * change of the layouts, pending and applied in either mode, not drift;
 * whatever the record says; never a given-up plan. */
static void test_layout_changed(void **state)
{
	static const enum pf_status_state records[] = {
		PF_STATUS_APPLIED,  PF_STATUS_HELD,	PF_STATUS_FAILED,
		PF_STATUS_DEFERRED, PF_STATUS_DEGRADED,
	};
	struct pf_facts f = facts();
	struct pf_verdict v;

	f.layout_changed = true;
	f.loads_module = true;
	f.deferred_drift = true;
	for (size_t i = 0; i < ELEMENTSOF(records); i++)
		for (int mode = 0; mode < 2; mode++) {
			f.record = records[i];
			f.drift_mode = mode ? DRIFT_MODE_REPORT : DRIFT_MODE_REPAIR;
			v = decide_changes(&f);
			assert_int_equal(v.state, PF_RUN_PENDING);
			assert_false(v.drifted);
			assert_false(v.module_missing);
			assert_true(v.apply);
		}
	f.given_up = f.plan_sig;
	assert_false(decide_changes(&f).apply);
	f.given_up = NULL;
	f.may_apply = false;
	assert_false(decide_changes(&f).apply);
}

/* A raise of the firmware VF limit its apply waited for took effect: the
 * rest of that apply, pending and applied in either mode, not drift. */
static void test_firmware_took_effect(void **state)
{
	struct pf_facts f = facts();
	struct pf_verdict v;

	f.record = PF_STATUS_APPLIED;
	f.firmware_took_effect = true;
	for (int mode = 0; mode < 2; mode++) {
		f.drift_mode = mode ? DRIFT_MODE_REPORT : DRIFT_MODE_REPAIR;
		v = decide_changes(&f);
		assert_int_equal(v.state, PF_RUN_PENDING);
		assert_false(v.drifted);
		assert_true(v.apply);
	}
	f.given_up = f.plan_sig;
	assert_false(decide_changes(&f).apply);
}

/* A deferral the policy now lets run is pending, drift or not; with
 * Mode=report not applied on its own. */
static void test_deferral_lifted(void **state)
{
	struct pf_facts f = facts();
	struct pf_verdict v;

	f.record = PF_STATUS_DEFERRED;
	f.deferral_lifted = true;
	f.drift_mode = DRIFT_MODE_REPORT;
	v = decide_changes(&f);
	assert_int_equal(v.state, PF_RUN_PENDING);
	assert_false(v.drifted);
	assert_false(v.apply);
	f.deferred_drift = true;
	v = decide_changes(&f);
	assert_int_equal(v.state, PF_RUN_PENDING);
	assert_true(v.drifted);
	f.drift_mode = DRIFT_MODE_REPAIR;
	assert_true(decide_changes(&f).apply);
	f.deferral_lifted = false;
	assert_int_equal(decide_changes(&f).state, PF_RUN_DEFERRED);
}

/* What the record says stays the state; with Mode=repair a plan that was
 * not given up is tried again. */
static void test_record_states(void **state)
{
	static const struct {
		enum pf_status_state record;
		enum pf_run_state state;
	} cases[] = {
		{ PF_STATUS_HELD, PF_RUN_HELD },
		{ PF_STATUS_FAILED, PF_RUN_FAILED },
		{ PF_STATUS_DEFERRED, PF_RUN_DEFERRED },
		{ PF_STATUS_DEGRADED, PF_RUN_DEGRADED },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct pf_facts f = facts();
		struct pf_verdict v;

		f.record = cases[i].record;
		v = decide_changes(&f);
		assert_int_equal(v.state, cases[i].state);
		assert_false(v.drifted);
		assert_true(v.apply);
		f.given_up = f.plan_sig;
		assert_false(decide_changes(&f).apply);
		f.given_up = NULL;
		f.drift_mode = DRIFT_MODE_REPORT;
		assert_false(decide_changes(&f).apply);
	}
	assert_int_equal(decide_state_of_record(_PF_STATUS_STATE_INVALID), PF_RUN_PENDING);
}

/* Deferred, and changed since it was deferred: drift, still deferred; the
 * deferred apply repairs it (tried only as any other: a plan not given up,
 * Mode=repair). Only a deferred record: a failed or held one is not. */
static void test_deferred_drift(void **state)
{
	struct pf_facts f = facts();
	struct pf_verdict v;

	f.record = PF_STATUS_DEFERRED;
	f.deferred_drift = true;
	f.given_up = f.plan_sig;
	v = decide_changes(&f);
	assert_int_equal(v.state, PF_RUN_DEFERRED);
	assert_true(v.drifted);
	assert_false(v.module_missing);
	assert_false(v.apply);
	f.record = PF_STATUS_FAILED;
	assert_false(decide_changes(&f).drifted);
	f.record = PF_STATUS_HELD;
	assert_false(decide_changes(&f).drifted);
}

static void test_give_up(void **state)
{
	assert_true(decide_give_up(PF_STATUS_FAILED, "set 4 VFs"));
	assert_true(decide_give_up(PF_STATUS_DEFERRED, "set 4 VFs"));
	assert_true(decide_give_up(PF_STATUS_HELD, "set 4 VFs"));
	assert_false(decide_give_up(PF_STATUS_APPLIED, "set 4 VFs"));
	assert_false(decide_give_up(PF_STATUS_FAILED, NULL));
}

static void test_summary(void **state)
{
	enum pf_run_state states[] = { PF_RUN_APPLIED, PF_RUN_UNCONFIGURED, PF_RUN_PENDING,
				       PF_RUN_APPLYING };
	struct summary_facts f = { .states = states, .n_states = 4 };

	assert_int_equal(decide_summary(&f), MANAGER_IDLE);
	for (enum pf_run_state s = 0; s < _PF_RUN_STATE_MAX; s++) {
		bool bad = s == PF_RUN_HELD || s == PF_RUN_FAILED || s == PF_RUN_DEFERRED ||
			   s == PF_RUN_DRIFTED || s == PF_RUN_DEGRADED;

		states[3] = s;
		assert_int_equal(decide_summary(&f), bad ? MANAGER_DEGRADED : MANAGER_IDLE);
	}
	states[3] = PF_RUN_APPLIED;
	f.drifted = true;
	assert_int_equal(decide_summary(&f), MANAGER_DEGRADED);
	f.drifted = false;
	f.n_config_errors = 1;
	assert_int_equal(decide_summary(&f), MANAGER_DEGRADED);
	f.n_config_errors = 0;
	f.n_gone = 1;
	assert_int_equal(decide_summary(&f), MANAGER_DEGRADED);
	f.n_gone = 0;
	/* a reboot that failed, not tried again on its own */
	f.reboot_failed = true;
	assert_int_equal(decide_summary(&f), MANAGER_DEGRADED);
	f.reboot_failed = false;
	/* the host cannot be read: what is shown is old */
	f.host_failed = true;
	assert_int_equal(decide_summary(&f), MANAGER_DEGRADED);
	f.host_failed = false;
	assert_int_equal(decide_summary(&f), MANAGER_IDLE);
	f.n_gone = 1;
	/* an operation under way says more than a degraded PF */
	f.rebooting = true;
	assert_int_equal(decide_summary(&f), MANAGER_REBOOTING);
	f.draining = true;
	assert_int_equal(decide_summary(&f), MANAGER_DRAINING);
	assert_string_equal(manager_state_to_string(MANAGER_DRAINING), "draining");
	assert_string_equal(pf_run_state_to_string(PF_RUN_DEGRADED), "degraded");
	assert_null(pf_run_state_to_string(_PF_RUN_STATE_MAX));
}

/* A reset that waits or failed shows as such on a PF no layout selects, as
 * sriovctl status says it; anything else is unconfigured. */
static void test_unconfigured(void **state)
{
	(void)state;
	assert_int_equal(decide_unconfigured(true, true, PF_STATUS_DEFERRED, true, false),
			 PF_RUN_DEFERRED);
	/* deferred by a policy that lets it run now: pending, not run */
	assert_int_equal(decide_unconfigured(true, true, PF_STATUS_DEFERRED, true, true),
			 PF_RUN_PENDING);
	assert_int_equal(decide_unconfigured(true, true, PF_STATUS_FAILED, true, false),
			 PF_RUN_FAILED);
	/* an apply's record of a layout removed since, or nothing left */
	assert_int_equal(decide_unconfigured(true, true, PF_STATUS_DEFERRED, false, false),
			 PF_RUN_UNCONFIGURED);
	assert_int_equal(decide_unconfigured(false, true, PF_STATUS_FAILED, true, false),
			 PF_RUN_UNCONFIGURED);
	assert_int_equal(decide_unconfigured(true, false, PF_STATUS_DEFERRED, true, false),
			 PF_RUN_UNCONFIGURED);
	assert_int_equal(decide_unconfigured(true, true, PF_STATUS_APPLIED, true, false),
			 PF_RUN_UNCONFIGURED);
	assert_int_equal(decide_unconfigured(true, true, PF_STATUS_HELD, true, false),
			 PF_RUN_UNCONFIGURED);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_record),
		cmocka_unit_test(test_drift),
		cmocka_unit_test(test_layout_changed),
		cmocka_unit_test(test_record_states),
		cmocka_unit_test(test_deferred_drift),
		cmocka_unit_test(test_give_up),
		cmocka_unit_test(test_summary),
		cmocka_unit_test(test_unconfigured),
		cmocka_unit_test(test_firmware_took_effect),
		cmocka_unit_test(test_deferral_lifted),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
