/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Looking at PFs again and applying (manager-check.c). Decisions are
 * decide.c's; what changed is published to the observers. */

#include "manager.h"

/* Re-reads the PFs marked dirty (all when rescan_all) and checks them. */
int manager_check_dirty(struct manager *m);
/* Only the reading: the cache then has what the marks said had changed;
 * the marks stay for the check. */
int manager_refresh(struct manager *m);

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
/* Applies now: all PFs (only NULL) or one (PCI address or name). -ENXIO:
 * no such PF, -ENOEXEC: the main configuration has errors. Never waits for
 * a PF's lock: a PF another process holds goes to out->busy. */
int manager_apply(struct manager *m, const char *only, struct asked *out);
/* Reset(): removes what sriov-persist created on the PF (NULL: on every PF)
 * that no layout selects any more; out as for manager_apply(). */
int manager_reset(struct manager *m, const char *only, struct asked *out);
/* Whether another process holds the PF's lock now. */
bool manager_pf_busy(struct manager *m, const char *pci);
/* Reads the main configuration and layouts again, then applies all. */
int manager_reload(struct manager *m);
/* Applies one PF after the node was drained for it: disruptive changes run. */
int manager_apply_drained(struct manager *m, const char *pci);
/* A Kubernetes operation for pci failed: its PF shows why and is not tried
 * again on its own. */
void manager_pf_failed(struct manager *m, const char *pci, const char *error);
/* Writes error into pci's status record: always with fail (the PF failed),
 * else only into a deferred PF's. */
void manager_record_error(struct manager *m, const char *pci, const char *error, bool fail);
