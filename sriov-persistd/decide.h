/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The daemon's decisions, as pure functions of facts that manager-check.c
 * gathers: what state a PF is in after a look, whether to apply it, when a
 * plan is given up (not retried on its own), and the daemon's summary
 * state. No I/O, no clock: tests/unit/test-daemon-decide.c covers them. */

#include "mainconf.h"
#include "status.h"

enum pf_run_state {
	PF_RUN_UNCONFIGURED,
	PF_RUN_PENDING, /* configured, never applied */
	PF_RUN_APPLYING,
	PF_RUN_APPLIED,
	PF_RUN_DRIFTED,
	PF_RUN_HELD,
	PF_RUN_FAILED,
	PF_RUN_DEFERRED,
	PF_RUN_DEGRADED, /* applied as far as the host allows (no IOMMU for vfio-pci) */
	_PF_RUN_STATE_MAX,
	_PF_RUN_STATE_INVALID = -EINVAL,
};

enum manager_state {
	MANAGER_IDLE,
	MANAGER_APPLYING,
	MANAGER_DRAINING,
	MANAGER_REBOOTING,
	MANAGER_DEGRADED,
	_MANAGER_STATE_MAX,
	_MANAGER_STATE_INVALID = -EINVAL,
};

const char *pf_run_state_to_string(enum pf_run_state s) _pure_;
const char *manager_state_to_string(enum manager_state s) _pure_;

/* A configured PF whose plan is not empty. */
struct pf_facts {
	bool has_record;	     /* its status record could be read */
	enum pf_status_state record; /* the record's state */
	enum drift_mode drift_mode;
	bool loads_module;    /* the plan loads a module: someone removed it by hand */
	const char *plan_sig; /* the plan now */
	const char *given_up; /* the plan that last failed or was deferred, NULL: none */
	bool may_apply;	      /* the look may lead to an apply */
	/* deferred (record DEFERRED), and the host differs from what it was
	 * when it was deferred: a change the deferral did not make */
	bool deferred_drift;
	/* the record says what the layouts wanted of it at its apply
	 * (pf_status.layouts), and they want something else now: a change of
	 * the layouts, applied in either drift mode, no drift */
	bool layout_changed;
	/* the record's apply raised the firmware VF limit and waited for the
	 * reboot (its last_apply pending_reboot), and that limit took effect
	 * since: what differs is the rest of that apply, applied in either
	 * drift mode, no drift */
	bool firmware_took_effect;
	/* deferred, by a [Disruption] Policy= that is no longer the policy,
	 * and the one now lets it run (report_deferral_lifted()): pending, as
	 * sriovctl status says */
	bool deferral_lifted;
};

struct pf_verdict {
	enum pf_run_state state;
	/* it was applied and differs now, or it is deferred and differs from
	 * what it was deferred with: drift, to report */
	bool drifted;
	/* drift that is not repaired on its own: a module is missing */
	bool module_missing;
	/* apply it now */
	bool apply;
};

struct pf_verdict decide_changes(const struct pf_facts *f) _pure_;
/* The state a status record shows (PENDING without one). */
enum pf_run_state decide_state_of_record(enum pf_status_state s) _pure_;
/* A PF no layout selects, with something left from a removed layout
 * (left), and its status record (has_record, record; of_reset: written by
 * a reset, which names no file): a reset that waits for the policy or
 * failed is DEFERRED or FAILED, as sriovctl status says, and PENDING when
 * the policy that deferred it lets it run now (lifted); UNCONFIGURED
 * otherwise. */
enum pf_run_state decide_unconfigured(bool left, bool has_record, enum pf_status_state record,
				      bool of_reset, bool lifted) _pure_;
/* After an apply of a PF whose plan is plan_sig (NULL: nothing left to do)
 * ended in result: whether that plan is given up, and is not tried again
 * until it changes (so a failing action cannot loop on its own events). */
bool decide_give_up(enum pf_status_state result, const char *plan_sig) _pure_;

/* What the daemon as a whole is doing. */
struct summary_facts {
	bool draining;	/* a Kubernetes drain operation is under way */
	bool rebooting; /* a coordinated reboot is under way */
	size_t n_config_errors;
	bool drifted;
	bool reboot_failed;		 /* a reboot for the pending reboot reasons failed */
	bool host_failed;		 /* the last read of the host failed */
	size_t n_gone;			 /* PFs that were applied and are no longer on the host */
	const enum pf_run_state *states; /* of every PF */
	size_t n_states;
};

enum manager_state decide_summary(const struct summary_facts *f) _pure_;
