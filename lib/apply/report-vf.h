/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* What a VF's "layout" column says: the layouts compared with the host VF
 * and the plan ("ok", "differs: trust off (wanted on)", "to be recreated
 * (VirtualFunctions=6); ...", "to be recreated by the eswitch change to
 * switchdev, without its vlan 33 (no layout sets it)", "to be removed
 * (VirtualFunctions=4)"), for
 * report.c's status document. Pure. */

#include "host-view.h"

/* What the layouts say of VF i, or NULL when they say nothing. */
const struct vf_settings *report_desired_vf(const struct pf_view *pv, uint32_t i);
/* The VF count the plan sets last, or -1 when it leaves the count. */
int64_t report_planned_num_vfs(const struct plan *p);
/* What the layouts make of host VF vf. Caller frees; NULL on allocation
 * failure. */
char *report_vf_drift(const struct pf_view *pv, const struct vf_state *vf);
/* What becomes of VF i that the host does not have yet, fate as the status
 * document says it, with what of it waits for the link type its layout sets
 * in the firmware when the plan creates it before that: "to be created;
 * after a reboot: node_guid 2e:38:..., port_guid ... (LinkType=infiniband
 * takes effect after a reboot)". Caller frees; NULL on allocation failure. */
char *report_missing_vf_fate(const struct pf_view *pv, uint32_t i, const char *fate);
