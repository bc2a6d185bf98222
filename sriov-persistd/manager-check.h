/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Looking at PFs again and applying (manager-check.c). Decisions are
 * decide.c's; what changed is published to the observers. */

#include "manager-result.h"
#include "manager.h"

/* Re-reads the PFs marked dirty (all when rescan_all) and checks them. */
int manager_check_dirty(struct manager *m);
/* Only the reading: the cache then has what the marks said had changed;
 * the marks stay for the check. */
int manager_refresh(struct manager *m);

/* Applies now: all PFs (only NULL) or one (PCI address or name). -ENXIO:
 * no such PF, -ENOEXEC: the main configuration has errors. Never waits for
 * a PF's lock: a PF another process holds goes to out->busy. */
int manager_apply(struct manager *m, const char *only, struct asked *out);
/* Reset(): removes what sriov-persist created on the PF (NULL: on every PF)
 * that no layout selects any more; out as for manager_apply(). */
int manager_reset(struct manager *m, const char *only, struct asked *out);
/* Whether another process holds the PF's lock now. */
bool manager_pf_busy(struct manager *m, const char *pci);
/* Reads the whole host again (every PF then to be checked); a failure is
 * host-error.c's to say. */
int manager_reread(struct manager *m);
/* Applies every PF as the layouts read last say (a reload's apply), or with
 * only (NULL-terminated PCI addresses) only those, the others only checked
 * (their drift reported, not repaired); with errors in the main
 * configuration only checks them (held). */
int manager_apply_all(struct manager *m, char **only);
/* Applies one PF, or resets it when its reset_wanted says a reset waits:
 * after the node was drained for it (drained: disruptive changes run), or
 * under the policy as it is now (a reset whose drain a stop interrupted). */
int manager_apply_wanted(struct manager *m, const char *pci, bool drained);
/* A Kubernetes operation for pci failed: its PF shows why and is not tried
 * again on its own. */
void manager_pf_failed(struct manager *m, const char *pci, const char *error);
/* Writes error into pci's status record: always with fail (the PF failed),
 * else only into a deferred PF's. */
void manager_record_error(struct manager *m, const char *pci, const char *error, bool fail);
