/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* A PF that no layout selects, when the daemon looks at it (manager-check.c):
 * its state and LastError in the words sriovctl status has. */

#include "manager.h"

struct pf_status;

/* e's state and last_error: what a removed layout left (left, NULL:
 * nothing of ours), or the reset that waits for the policy or failed, as
 * its record rec (NULL: none) says; a reset deferred by a policy that lets
 * it run now, or with nothing disruptive left for it (disruptive false:
 * its VFs removed by hand since), is pending, with what is left and what
 * runs it (report_reset_deferral_lifted()). -ENOMEM. */
int unselected_state(struct pf_entry *e, const struct layout_set *set, const char *left,
		     bool disruptive, const struct pf_status *rec);
/* The daemon's look at e, whose PF pf no layout selects: nothing to do,
 * whatever it has; what a removed layout left, a reset that waits or
 * failed, what an apply raised in firmware, said by unselected_state();
 * what drift or a deferral it had is forgotten. -ENOMEM. */
int unselected_check(struct manager *m, struct pf_entry *e, const struct pf_state *pf);
