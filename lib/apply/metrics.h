/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* sriovctl metrics: the Prometheus text exposition format (version 0.0.4)
 * of a host view and its status document (report.h), as node-exporter's
 * textfile collector and promtool read it. Pure: plain data in, text out. */

#include <json-c/json.h>

#include "host-view.h"

#define METRICS_PREFIX "sriov_persist_"

/* Every metric family with its HELP and TYPE lines, in a fixed order: per
 * PF of status (its "pfs", as report_status() makes them, "gone" ones too)
 * the state, VF counts, pending reboot and last apply, and the description
 * of the PFs of v; per VF of v whose PF's driver reports counters
 * (vf_state.has_stats) its traffic counters. A VF without counters has no
 * series, never a zero. Then sriov_persist_daemon_up, and with daemon (the
 * document sriov-persistd's GetMetrics() returns; NULL when none answered)
 * what it counted since it started (per PF: of only_pci alone, when not
 * NULL) and the Kubernetes API's state and credentials; without it those
 * families are left out, never written as zeros. With daemon_elsewhere (a
 * daemon answers, for another host than v's; daemon NULL) none of the
 * daemon's families is written, not even daemon_up. -ENOMEM. */
int metrics_format(const struct host_view *v, struct json_object *status,
		   struct json_object *daemon, bool daemon_elsewhere, const char *only_pci,
		   char **ret);

/* s as a label value: backslash, double quote and line feed escaped
 * ("\\", "\"", "\n"); NULL is "". Caller frees; NULL on ENOMEM. */
char *metrics_escape_label(const char *s);
