/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The LastError of a configured PF after the daemon looked at it: what its
 * record says, or for drift, why it is not repaired. */

#include "decide.h"
#include "manager.h"

struct plan;

/* e's last_error after verdict v: with no record (has_record false), none,
 * or under [Drift] Mode=report what applies it (report_not_applied()); the
 * record's error (record_error, NULL: none; of a deferral the policy now
 * lets run, what report_deferral_lifted() says), none for drift that is
 * repaired, and for drift of an applied PF that is not: a
 * module missing (module, the first that p, e's plan, loads) that
 * "sriovctl apply loads", or [Drift] Mode=report of set, with where it is
 * set and what an apply of p does (report_drift_kept()). */
void drift_last_error(struct pf_entry *e, const struct pf_verdict *v, const struct layout_set *set,
		      const struct plan *p, const char *module, bool has_record,
		      const char *record_error);
