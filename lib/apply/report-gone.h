/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* PFs that an apply of this boot recorded and that are no longer on the host
 * (unplugged, removed from the PCI bus): what status, plan, apply and wait say of
 * them, from their status records in runtime_dir. */

#include <json-c/json.h>

#include "model.h"
#include "status.h"

/* "recorded applied at 2026-12-06T21:42:47Z with 4 VFs, no longer on the
 * host"; caller frees, NULL on ENOMEM. */
char *report_gone_reason(const struct pf_status *st);
/* Calls fn with the record of each PF of runtime_dir that hs lacks, in PCI
 * order; stops at fn's first negative return and returns it. A directory
 * or record that cannot be read only means nothing to say. */
int report_gone_each(const struct host_state *hs, const char *runtime_dir,
		     int (*fn)(const struct pf_status *st, void *userdata), void *userdata);
/* Drops the status record of the PF gone from hs that what names (its PCI
 * address or the name it had), under its lock (waiting up to timeout), as
 * sriovctl reset and Reset() do. 1 and "0000:3b:00.0 (ens1f0): recorded
 * applied at ... no longer on the host" in *ret_said (caller frees); 0 when
 * no gone PF is named so; -errno (the record stays). */
int report_gone_forget(const struct host_state *hs, const char *runtime_dir, const char *what,
		       usec_t timeout, char **ret_said);
/* Adds to the plan document doc ({"pfs": [...]}) one object per PF that is
 * gone: {"pci", "name", "configured": true, "gone": true, "reason",
 * "actions": []}, so that plan says it. -ENOMEM. */
int report_plan_add_gone(struct json_object *doc, const struct host_state *hs,
			 const char *runtime_dir);
