/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The summary of every PF (manager-summary.c). */

#include <json-c/json.h>

#include "manager.h"

/* Recomputes Drifted, State and the pending reboot reasons; tells the
 * observers (MANAGER_SUMMARY_CHANGED when anything changed, then
 * MANAGER_SUMMARY). */
void manager_update_summary(struct manager *m, bool layouts_changed);
/* The pending reboot reasons of e, a PF no layout selects: what an apply
 * raised in its firmware (rec: its status record, NULL when none), with
 * whose layout of another port of the card needs it now
 * (report_unselected_reboot_reasons()). */
struct pf_status;
int manager_unasked_reasons(struct manager *m, struct pf_entry *e, const struct pf_state *pf,
			    const struct pf_status *rec);
/* Drops the pending reboot reasons of every PF of pci's card (a firmware
 * reset met them), in memory and in reboot.json. */
void manager_reboot_forget_card(struct manager *m, const char *pci);
/* A reboot for the pending reboot reasons failed (error: what failed, at
 * the time now), or one is tried again (error NULL): the daemon is
 * degraded until then. Does not update the summary. */
void manager_reboot_failed(struct manager *m, const char *error);
/* {"at_usec": ..., "error": ...} of the reboot that failed, for
 * GetStatus(); NULL when none stands. */
struct json_object *manager_reboot_failed_json(const struct manager *m);

/* GetStatus()'s daemon-level errors into d: "reboot_failed" (as
 * manager_reboot_failed_json()) and "host_error", {"at_usec": ..., "error":
 * ..., "layout_change_waits": ...} while the host cannot be read (else
 * null). */
void manager_daemon_errors_add(const struct manager *m, struct json_object *d);
/* GetStatus()'s daemon.host_error: null (NULL) or {at_usec, error, layout_change_waits}. */
struct json_object *manager_host_error_json(const struct manager *m);
/* Why no reboot is made for the pending reboot reasons, and what to do
 * ([Reboot] Policy=never, or coordinated without Kubernetes); NULL when
 * there are none or a reboot is made for them. */
const char *manager_no_reboot_why(const struct manager *m);
/* manager_no_reboot_why() as a JSON string, NULL (null) for none. */
struct json_object *manager_no_reboot_json(const struct manager *m);
