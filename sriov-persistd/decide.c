/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "decide.h"

static const char *const pf_run_state_names[_PF_RUN_STATE_MAX] = {
	[PF_RUN_UNCONFIGURED] = "unconfigured",
	[PF_RUN_PENDING] = "pending",
	[PF_RUN_APPLYING] = "applying",
	[PF_RUN_APPLIED] = "applied",
	[PF_RUN_DRIFTED] = "drifted",
	[PF_RUN_HELD] = "held",
	[PF_RUN_FAILED] = "failed",
	[PF_RUN_DEFERRED] = "deferred",
	[PF_RUN_DEGRADED] = "degraded",
};

static const char *const manager_state_names[_MANAGER_STATE_MAX] = {
	[MANAGER_IDLE] = "idle",	 [MANAGER_APPLYING] = "applying",
	[MANAGER_DRAINING] = "draining", [MANAGER_REBOOTING] = "rebooting",
	[MANAGER_DEGRADED] = "degraded",
};

DEFINE_STRING_TABLE_TO(pf_run_state, enum pf_run_state, pf_run_state_names)
DEFINE_STRING_TABLE_TO(manager_state, enum manager_state, manager_state_names)

enum pf_run_state decide_state_of_record(enum pf_status_state s)
{
	switch (s) {
	case PF_STATUS_APPLIED:
		return PF_RUN_APPLIED;
	case PF_STATUS_HELD:
		return PF_RUN_HELD;
	case PF_STATUS_FAILED:
		return PF_RUN_FAILED;
	case PF_STATUS_DEFERRED:
		return PF_RUN_DEFERRED;
	case PF_STATUS_DEGRADED:
		return PF_RUN_DEGRADED;
	case _PF_STATUS_STATE_MAX:
	case _PF_STATUS_STATE_INVALID:
		break;
	}
	return PF_RUN_PENDING;
}

/* Never applied (no record): pending, applied with Mode=repair. With
 * Mode=report it waits for sriovctl apply or a reload: the boot's apply
 * units write a record before the daemon starts, so a PF without one was
 * never applied, and its difference from the layout is no drift (a module
 * it loads was never loaded, not removed by hand). Applied before and
 * differs now: drift. Otherwise the
 * record says what happened (held, failed, deferred, degraded). Both are
 * applied again with Mode=repair, unless the plan is the one given up, or
 * a module is missing (removed by hand, as on the way to reloading a
 * driver). A deferred PF that changed since it was deferred (a VF's VLAN
 * set by hand) drifted too, and stays deferred: it is repaired with the
 * deferred apply, which the policy lets run as a whole or not at all.
 * Its layouts changed since the record's apply: pending, applied in either
 * mode, and what differs is not judged as drift. */
struct pf_verdict decide_changes(const struct pf_facts *f)
{
	bool retry = !streq_ptr(f->plan_sig, f->given_up);
	bool repair = f->drift_mode == DRIFT_MODE_REPAIR;
	struct pf_verdict v = {};

	if (!f->has_record) {
		v.state = PF_RUN_PENDING;
		v.apply = f->may_apply && retry && repair;
		return v;
	}
	if (f->layout_changed || f->firmware_took_effect) {
		v.state = PF_RUN_PENDING;
		v.apply = f->may_apply && retry;
		return v;
	}
	v.state = decide_state_of_record(f->record);
	if (f->record == PF_STATUS_DEFERRED && f->deferral_lifted)
		v.state = PF_RUN_PENDING;
	if (f->record == PF_STATUS_APPLIED) {
		v.state = PF_RUN_DRIFTED;
		v.drifted = true;
		v.module_missing = f->loads_module;
	} else if (f->record == PF_STATUS_DEFERRED && f->deferred_drift)
		v.drifted = true;
	v.apply = f->may_apply && retry && repair && !v.module_missing;
	return v;
}

enum pf_run_state decide_unconfigured(bool left, bool has_record, enum pf_status_state record,
				      bool of_reset, bool lifted)
{
	if (!left || !has_record || !of_reset)
		return PF_RUN_UNCONFIGURED;
	if (record == PF_STATUS_DEFERRED)
		return lifted ? PF_RUN_PENDING : PF_RUN_DEFERRED;
	if (record == PF_STATUS_FAILED)
		return PF_RUN_FAILED;
	return PF_RUN_UNCONFIGURED;
}

bool decide_give_up(enum pf_status_state result, const char *plan_sig)
{
	return result != PF_STATUS_APPLIED && plan_sig;
}

enum manager_state decide_summary(const struct summary_facts *f)
{
	if (f->draining)
		return MANAGER_DRAINING;
	if (f->rebooting)
		return MANAGER_REBOOTING;
	if (f->n_config_errors > 0 || f->drifted || f->n_gone > 0 || f->reboot_failed ||
	    f->host_failed)
		return MANAGER_DEGRADED;
	for (size_t i = 0; i < f->n_states; i++)
		switch (f->states[i]) {
		case PF_RUN_HELD:
		case PF_RUN_FAILED:
		case PF_RUN_DEFERRED:
		case PF_RUN_DRIFTED:
		case PF_RUN_DEGRADED:
			return MANAGER_DEGRADED;
		case PF_RUN_UNCONFIGURED:
		case PF_RUN_PENDING:
		case PF_RUN_APPLYING:
		case PF_RUN_APPLIED:
		case _PF_RUN_STATE_MAX:
		case _PF_RUN_STATE_INVALID:
			break;
		}
	return MANAGER_IDLE;
}
