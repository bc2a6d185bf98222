/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* What an apply's result of one PF tells (manager-result.c): the code the
 * observers get, the journal line, and what Apply() and Reset() reply. */

#include "apply.h"

/* A PF that Reset() did something on: the actions run, the VFs left, and
 * whether the switchdev mode sriov-persist set stays (its VFs are not
 * sriov-persist's). */
struct asked_reset {
	char pci[PCI_ADDR_MAX];
	uint32_t n_actions;
	uint32_t num_vfs;
	bool eswitch_kept;
};

/* What Apply() and Reset() report: "PCI: why" of each PF not applied (or
 * reset) that does not wait for a drain, the PFs that another process
 * (an apply unit, sriovctl) was applying and that were left to it, and the
 * PFs a reset changed. */
struct asked {
	char **failed;
	char **busy;
	struct asked_reset *reset;
	size_t n_reset;
};
/* Adds one PF a reset changed to out. -ENOMEM. */
int asked_add_reset(struct asked *out, const struct asked_reset *one);
/* The code MANAGER_PF_APPLIED carries for the result: 0 applied, -EINVAL
 * held, -EBUSY deferred, -EOPNOTSUPP degraded, -EIO failed. */
int apply_result_code(const struct apply_pf_result *res);
/* The journal line of a result that changed something or was not applied,
 * with also (may be NULL) added to the line of one applied; and, under
 * [Disruption] Policy=drain without Kubernetes, that a disruptive change ran
 * without a drain. */
void apply_result_log(const struct apply_pf_result *res, const char *also);
/* What also says of an apply that changed a PF whose drift [Drift]
 * Mode=report kept (drift: what differed, report_at: where Mode= is set):
 * "the apply of its changed layout (reload) also repaired the drift that
 * [Drift] Mode=report in FILE:LINE had left: VF 1: vlan 10 ... (now vlan 7
 * ...)"; NULL otherwise, or on
 * ENOMEM (it goes unsaid). */
char *apply_result_drift_repaired(const struct apply_pf_result *res, char **drift,
				  const char *report_at, bool reload);
/* What also says of an apply that changed a PF whose layouts changed since
 * its last apply outside a reload (edited while the daemon was stopped), so
 * that no check saw a drift since it (changed_from: what differed when the
 * apply was decided): "its layout changed since its last apply: the apply
 * repaired all that differed from it, any drift since that apply too: VF 1:
 * vlan 10 ... (now vlan 7 ...)"; NULL otherwise, or on ENOMEM. */
char *apply_result_changed_repaired(const struct apply_pf_result *res, char **changed_from);
/* Adds the PF to out->failed, when there is an out: "PCI: why" for a
 * reset, "PCI: state: why" for an apply. -ENOMEM. */
int asked_add_failed(struct asked *out, const struct apply_pf_result *pr, bool reset);
/* A reset that changed the PF, for Reset()'s reply (when there is an out).
 * -ENOMEM. */
int asked_note_reset(struct asked *out, const struct apply_pf_result *pr);
