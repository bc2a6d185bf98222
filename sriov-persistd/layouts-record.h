/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The status record's "layouts" (layout_wants_signature() of what the
 * layouts said of the PF at its apply) against the layouts now: whether
 * they changed since (a layout edited while the daemon was stopped), and
 * taking them into the record of a PF that is already as they say. */

#include "manager.h"
#include "status.h"

/* Whether the layouts of m say something else of pf now than rec says
 * they did at its apply; false when rec does not say (a record of an
 * earlier version, a reset's) or on ENOMEM. */
bool layouts_record_changed(const struct manager *m, const struct pf_state *pf,
			    const struct pf_status *rec);
/* pf is at rest as the layouts say, and its apply's record says they said
 * something else then (edited to what the host has, while the daemon was
 * stopped): the record takes what they say now, under the PF's lock, so
 * that a later change on the host is judged as drift, not as a change of
 * the layouts. A failure to write it is logged. */
void layouts_record_at_rest(struct manager *m, const struct pf_state *pf);
