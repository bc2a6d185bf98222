/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The planner: (desired, observed) -> an ordered list of actions, each live
 * or disruptive, in the PF driver's own order (drivers.h). Pure. A plan for
 * a PF already in the desired state is empty. */

#include "action.h"
#include "desired.h"

struct plan {
	char pci[PCI_ADDR_MAX];
	struct action *actions;
	size_t n_actions;
	/* states only a reboot can reach (firmware VF limit, link type): human
	 * sentences */
	char **reboot_reasons; /* NULL-terminated, never NULL */
	/* copies of the reboot reasons that the plan's own actions bring (a
	 * firmware VF limit or link type it sets, kernel arguments it adds):
	 * not done yet, so no reboot is pending for them (plan_reboot_reasons_of()) */
	char **reboot_planned; /* NULL-terminated, never NULL */
	/* what the layout needs that this host lacks, and that neither an action
	 * nor a reboot as it stands would bring (a VF that wants vfio-pci while
	 * the kernel runs without an IOMMU): sentences saying what to do. The PF
	 * is then degraded, never "applied". */
	char **unmet; /* NULL-terminated, never NULL */
	/* what the plan leaves to later: GUIDs of a port that becomes
	 * InfiniBand only after a reboot */
	char **notes; /* NULL-terminated, never NULL */
	/* what the layout waits for from outside sriov-persist, which no action
	 * of ours brings: with ExternallyManaged=yes, VFs another tool is
	 * expected to create ("waiting for another tool to create VFs: 0 of 8
	 * exist (ExternallyManaged=yes)"). The PF is then pending, never
	 * "applied"; the VFs are configured when they appear. */
	char **waiting; /* NULL-terminated, never NULL */
	/* VFs that want an RDMA device and have none while nothing is left to
	 * do (one of the unmet needs): a reader may look again, as the device
	 * can come after its driver */
	uint32_t n_no_rdma;
	/* step 4 makes the VFs that exist anew (removes them and creates them
	 * again): their count changes (VirtualFunctions=), or, when it does
	 * not, the driver changes the eswitch mode only without VFs (ice) */
	bool recreates, recreates_for_eswitch;
	/* of each VF made anew (the n_lost that exist and stay, by index): the
	 * keys (1u << enum vf_key) the host has a value of that the new VF
	 * will not have and that no layout sets, so that nothing sets again
	 * (a VLAN or trust set by hand): lost with the recreation */
	uint32_t *lost;
	uint32_t n_lost;
	/* the same as sentences, VFs with the same loss together, also among
	 * the notes: "VF 0: to be recreated by the eswitch change to
	 * switchdev, without its vlan 33, trust on (no layout sets them)" */
	char **dropped; /* NULL-terminated, never NULL */
};

/* d must not be held. host gives loaded modules and the IOMMU. Every action
 * needed to reach d from pf, in order; *ret->n_actions == 0 when there is
 * nothing to do. Modules already loaded are not loaded again. A VF that
 * wants vfio-pci on a host without IOMMU gets no bind action; the missing
 * IOMMU becomes an unmet need instead. -ENOMEM. */
int plan_build(const struct pf_desired *d, const struct pf_state *pf, const struct host_state *host,
	       struct plan **ret);
struct plan *plan_free(struct plan *p);
static inline void plan_freep(struct plan **p)
{
	plan_free(*p);
}
#define _cleanup_plan_ _cleanup_(plan_freep)

/* The netlink attributes of one VF that must be set to reach want from now,
 * as one SET_VF request would carry them (see struct action). Keys not set
 * in want, and keys not in supported (driver_vf_attrs() of the PF's
 * driver and link type), are left alone. random_mac: the
 * kernel gave the VF a MAC nobody knows, so a wanted MAC always differs.
 * Returns whether anything differs; ret has no allocated strings. */
bool plan_vf_diff(uint32_t supported, const struct vf_settings *want, const struct vf_attrs *now,
		  bool random_mac, struct vf_attrs *ret, uint32_t *ret_keys);

/* Whether MTU mtu, which the layouts in d want on the PF or a VF of pf,
 * waits for the reboot of a LinkType= change: the link type the port runs
 * now (IPoIB's, at most 4092) does not take it, the one the layout sets
 * does (MTUBytes= is checked against that one). An MTU both take is set
 * at once. */
bool plan_mtu_waits_link_type(const struct pf_desired *d, const struct pf_state *pf,
			      uint32_t mtu) _pure_;
bool plan_is_disruptive(const struct plan *p) _pure_;
/* What the next reboot brings to pf whatever its layouts say, in the words
 * of a plan's reboot reasons: a firmware VF limit above sriov_totalvfs, a
 * link type set in firmware that the port does not have yet. For a PF
 * without a plan (held), so that its pending reboot still shows. *ret is
 * NULL-terminated, never NULL. -ENOMEM. */
int plan_host_reboot_reasons(const struct pf_state *pf, char ***ret);
/* Whether reason, a firmware VF limit's reboot reason of pf ("firmware VF
 * limit raised to 16, waiting for a reboot", or "firmware VF limit 12 set
 * in firmware, ..."), no longer stands: the firmware holds another limit
 * now, or the limit took effect (sriov_totalvfs reaches it); so too a link
 * type's ("link type infiniband is set in firmware, ..."): the firmware
 * holds another link type, or the port has it. False for every other
 * reason, "... -> ... takes effect after a reboot" too. */
bool plan_firmware_reason_gone(const struct pf_state *pf, const char *reason) _pure_;
/* Of reason, a reboot reason: N of "firmware VF limit raised to N, waiting
 * for a reboot" (the plan's words, which an apply's record keeps; with what
 * status puts after them too); 0 for any other reason. */
uint32_t plan_firmware_reason_raised(const char *reason) _pure_;
/* Of reason, a reboot reason: the link type T of "link type T is set in
 * firmware, waiting for a reboot" (also with the words of a PF no layout
 * selects after it); -1 for any other reason. */
int plan_link_type_reason_waited(const char *reason) _pure_;
/* The reboot reasons of p that an apply has done and that wait for the
 * reboot (waiting): what the firmware holds for the next boot, "firmware VF
 * limit raised to 16, waiting for a reboot", "link type infiniband is set in
 * firmware, waiting for a reboot", not the card raise of another port's apply
 * (plan_reason_card_wait()), which is that port's pending reboot; or (!waiting) those that only the plan
 * needs, which its apply sets first: "firmware VF limit 8 -> 16 takes effect
 * after a reboot". *ret is NULL-terminated, never NULL. -ENOMEM. */
int plan_reboot_reasons_of(const struct plan *p, bool waiting, char ***ret);
/* Of reason, the plan's "firmware VF limit raised to 20, waiting for a
 * reboot" of a port whose card's limit the apply of another port, by,
 * raised: what it waits for is that port's pending reboot, not one of its
 * own, "firmware VF limit raised to 20, waiting for a reboot (the card
 * raise made by the apply of 0000:ca:00.0)". NULL on ENOMEM. */
char *plan_card_wait_reason(const char *reason, const char *by);
/* Whether reason is one plan_card_wait_reason() made: a reboot reason
 * that plan_reboot_reasons_of() leaves out, as it is another port's. */
bool plan_reason_card_wait(const char *reason) _pure_;
/* The reboot reasons of p that wait for the reboot (plan_reboot_reasons_of(),
 * waiting), and those of the card raise of another port's apply it waits
 * for (plan_reason_card_wait()): all that the PF, applied as far as it
 * goes, waits for. -ENOMEM. */
int plan_reboot_reasons_waited(const struct plan *p, char ***ret);
/* Adds reason (taken over, also on failure) to p's reboot reasons as one
 * that an action of p brings. -ENOMEM. */
int plan_add_planned_reason(struct plan *p, char *reason);
/* What sets back the firmware VF limit fw of pf's card, which waits for a
 * reboot, while the layouts of the card's other ports need need of it (by:
 * the first port that needs the most; 0, NULL: none): NULL when the limit
 * it has now (now) does, which the caller says; ""mstconfig -d PCI set
 * NUM_OF_VFS=12" sets it to the limit the card's other ports need
 * (0000:ca:00.0's layout needs 12, one setting of this card)"; or, when
 * they need all of fw, "no mstconfig command sets it back: 0000:ca:00.0's
 * layout needs 16 of it (one setting of this card)"; when they need more
 * than fw, which gives them nothing (their own apply raises it that far),
 * the command that sets it back to now, for by too, "(one command for the
 * card; 0000:ca:00.0's layout needs 24, more than it: its own apply raises
 * the limit that far)". -ENOMEM: *ret NULL
 * and false returned. */
bool plan_firmware_set_back(const char *pci, uint32_t now, uint32_t fw, uint32_t need,
			    const char *by, char **ret);
/* The command that sets the firmware VF limit of pci's card back to now,
 * the one it has now: ""mstconfig -d PCI set NUM_OF_VFS=8" sets the limit
 * back to the one it has now", and when other, another port of the card
 * that says the same command under its own address, ", for OTHER too (one
 * command for the card, not one per port)". NULL: -ENOMEM. */
char *plan_firmware_set_now(const char *pci, uint32_t now, const char *other);
/* Of a PF whose firmware VF limit waits for a reboot (what a reset, which
 * changes no firmware, leaves): "the firmware VF limit raised to 16 stays
 * set for the next reboot: a reset changes no firmware ("mstconfig -d PCI
 * set NUM_OF_VFS=8" sets it back to the limit it has now)", or what
 * plan_firmware_set_back() says of the card's other ports' need (need, by);
 * *ret NULL when none waits. -ENOMEM. */
int plan_firmware_kept(const struct pf_state *pf, uint32_t need, const char *by, char **ret);
/* The port number mstconfig's LINK_TYPE_P<n> takes for a PF: "0000:41:00.1" -> 2. */
unsigned plan_link_port(const char *pci);
/* With ExternallyManaged=yes and VirtualFunctions=, when p (the plan of d)
 * has actions on VFs: the VFs the other tool made are not as the layouts
 * say (it made them anew since the last apply, or they were changed), and
 * the reason that says so; NULL otherwise. */
const char *plan_external_vfs_unconfigured(const struct plan *p, const struct pf_desired *d) _pure_;
/* Why p makes the VFs that exist anew (p->recreates): "(VirtualFunctions=6)",
 * "by the eswitch change to switchdev". Caller frees; NULL on ENOMEM. */
char *plan_recreate_cause(const struct plan *p);
/* What host VF vf loses with p's recreation (p->lost): ", without its vlan
 * 33, trust on (no layout sets them)"; "" when nothing. Caller frees; NULL
 * on ENOMEM. */
char *plan_vf_lost_describe(const struct plan *p, const struct vf_state *vf);
/* Short human description: "set 8 VFs", "VF 3: mac 02:..:01 vlan 100 qos 3 trust on".
 * Caller frees; NULL on ENOMEM. */
char *action_describe(const struct action *a);
/* The same, with what pf has now, for saying what drifted: "set 4 VFs (now 0)",
 * "VF 1: mac 02:00:00:00:01:00 (now mac 02:99:99:99:99:99)",
 * "VF 1: bind vfio-pci (now igbvf)". Caller frees; NULL on ENOMEM. */
char *action_describe_drift(const struct action *a, const struct pf_state *pf);
/* What plan p's action i says differs on pf, for a drifted PF: "4 VFs
 * wanted, 0 present", "VF driver autoprobe off (wanted on)", else as
 * action_describe_drift(); *ret NULL (with 0) for a step that leaves
 * nothing different on its own (autoprobe turned off to create VFs and on
 * again, the count 0 before another, the count the PF has made again for
 * an eswitch change). -ENOMEM. */
int plan_describe_difference(const struct plan *p, size_t i, const struct pf_state *pf, char **ret);
/* Whether action a on VF vf of pf says what the VF lacks, rather than being
 * the means of another action: not an unbind, a bind back to the driver the
 * VF is on (the rebind after a MAC or GUID), an MTU the VF has or has none
 * to compare with (vf_mtu_comparable()), a representor that is up or that a
 * PF not in switchdev mode has none of to judge, nor values the VF has. */
bool plan_vf_action_differs(const struct action *a, const struct pf_state *pf,
			    const struct vf_state *vf) _pure_;
/* What drifted on pf, for a drifted PF whose plan is p: each action's
 * difference (plan_describe_difference()), but a count change as one line
 * ("8 VFs wanted, 4 present (a repair makes VFs 0-3 again with it)")
 * without the settings of the VFs it makes, and no VF whose values the
 * host has already. Said before any repair, and where none follows. NULL
 * on ENOMEM. */
char **plan_describe_drift(const struct plan *p, const struct pf_state *pf);
/* The lines of plan_describe_drift() as an apply that repaired them says
 * them: "8 VFs wanted, 4 present (VFs 0-3 were made again with it)"; the
 * others as they are. NULL on ENOMEM. */
char **plan_drift_repaired(char *const *drift);
