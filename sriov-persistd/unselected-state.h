/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The state and LastError of a PF that no layout selects, after the daemon
 * looked at it (manager-check.c), in the words sriovctl status has. */

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
