/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Every PF of a host with its desired state and plan: what sriovctl plan,
 * status and wait and the daemon's Plan()/GetStatus() look at. Pure. */

#include "desired.h"
#include "plan.h"

struct pf_view {
	const struct pf_state *pf;  /* borrowed from the host_state */
	struct pf_desired *desired; /* NULL: no layout selects it */
	struct plan *plan;	    /* NULL when unconfigured or held */
	/* it appeared on the host while sriov-persistd ran (hotplug), which
	 * the daemon sets in the views it builds */
	bool appeared;
	/* it appeared so, and its status record is of before it went (it came
	 * back: hotplug, a driver reload): its apply unit's, not drift */
	bool returned;
};

struct host_view {
	const struct host_state *hs;  /* borrowed */
	const struct layout_set *set; /* borrowed */
	/* what the layouts' [Match] Host= are matched against: hs's hostname,
	 * or the node sriovctl compare judges them for (borrowed) */
	const char *hostname;
	struct pf_view *pfs;
	size_t n_pfs;
	struct diag_list diags; /* hardware checks, file:line */
	/* the options of the commands the reasons name: sriovctl's that name a
	 * host, layouts or directories (" --host FILE ..."), NULL: none
	 * (borrowed; the builder sets it) */
	const char *ctl_options;
};

/* Builds the view of every PF of hs, or only of the PF named by only (PCI
 * address, interface name or altname; -ENXIO when there is none). hs and
 * set must outlive the view. -ENOMEM. */
int host_view_build(const struct host_state *hs, const struct layout_set *set, const char *only,
		    struct host_view *ret);
/* The same as on a host named hostname (desired_build_as()): the PFs of hs
 * stand for those of another node of the same hardware. */
int host_view_build_as(const struct host_state *hs, const struct layout_set *set,
		       const char *hostname, const char *only, struct host_view *ret);
/* The firmware VF limit is one setting of a card: when p, the plan of pf,
 * raises it, it raises it as far as the layouts of the card's other ports
 * need too (their own plans on hs, which has them; pf may be another
 * host_state's), with a reboot reason that says so, so
 * that no later apply of another port raises it a second time. -ENOMEM. */
int plan_raise_for_card(struct plan *p, const struct pf_state *pf, const struct host_state *hs,
			const struct layout_set *set);
/* Of pv, a PF that no layout selects and whose own last apply raised
 * nothing, when its card's firmware VF limit (NUM_OF_VFS, one setting of
 * the card) changes at the next reboot through another port: "firmware VF
 * limit 16 from the next reboot, 8 until then (raised by the apply of
 * 0000:ca:00.0, one setting of this card)", and when the layouts of the
 * card's ports need less than that limit, the mstconfig command that sets it back as far as
 * they let it (plan_firmware_set_back()); *ret NULL otherwise. own: pv's
 * own reboot reasons say it already. recorded_by: the other port whose
 * status record carries the raise, named when no plan of the card waits for
 * it (that port's layout removed since), or NULL. -ENOMEM. */
int host_view_card_firmware_note(const struct host_view *v, const struct pf_view *pv, bool own,
				 const char *recorded_by, char **ret);
/* The VF count that the layouts of the other ports of pf's card (the same
 * PCI device on hs) want, the most of them (0: none), and the first port
 * that wants it (borrowed from hs): what the card's one firmware VF limit
 * must keep. -ENOMEM. */
int host_card_need(const struct layout_set *set, const struct host_state *hs,
		   const struct pf_state *pf, uint32_t *ret, const char **ret_by);
void host_view_done(struct host_view *v);
