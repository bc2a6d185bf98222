/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The status and plan documents (JSON) that `sriovctl status --json` and
 * `sriovctl plan --json` print and the daemon's GetStatus() and Plan()
 * return: built in one place so that both say the same. */

#include <json-c/json.h>

#include "host-view.h"

struct pf_status;

/* {"pfs": [...]}: per PF its state (unconfigured, with as reason what a
 * removed layout left when state_dir records it, and first, for a PF whose
 * driver or netdev has not appeared that a layout may select then, what
 * sriovctl wait waits for ("no driver yet: ..."); held, failed, deferred,
 * degraded, drifted, pending (also when only a reboot is left), applied),
 * the files that select it, the last apply record read from
 * runtime_dir/pf/<pci>.json, pending reboot reasons, its VFs, and per PF
 * and per VF every key of the key tables (pf-keys.h, vf-attrs.h) as
 * {"now", "wanted", "source"}. With
 * with_gone, PFs that have a record but are no longer on the host are
 * listed with state "gone" and a reason (report-gone.h). -ENOMEM. */
int report_status(const struct host_view *v, const char *runtime_dir, const char *state_dir,
		  bool with_gone, struct json_object **ret);
/* The same without each PF's "settings" and "vfs": what sriovctl metrics
 * reads, a fraction of the memory on a host of thousands of VFs. */
int report_status_brief(const struct host_view *v, const char *runtime_dir, const char *state_dir,
			bool with_gone, struct json_object **ret);
/* Of a PF that no layout selects whose record rec (NULL: none) carries a
 * raise of the firmware VF limit that still waits for the reboot: what the
 * host brings at that reboot, the firmware's reason with the time of the
 * apply that raised it ("firmware VF limit raised to 16, waiting for a
 * reboot (set by the apply of 2026-12-07T12:09:56Z; no layout asks for it
 * now)", or whose layout of the card's other ports on hs under set needs
 * it, host_card_need()), or the limit the firmware holds when it differs
 * from what that apply wrote, as status says it; else *ret NULL. -ENOMEM. */
/* Of pv, the PF's status object o: "firmware_note" (of a PF that no layout
 * selects, that its card's firmware VF limit changes at the next reboot
 * through another port, host_view_card_firmware_note()) and
 * "firmware_card_need" (what the layouts of the card's other ports need of
 * its limit, host_card_need(): {"num_vfs", "by"}, or null); the status
 * records under runtime_dir name the port whose apply raised the limit
 * when no plan does. -ENOMEM. */
int report_firmware_put(struct json_object *o, const struct host_view *v, const struct pf_view *pv,
			const char *runtime_dir);
/* Of pf, whose layout wants want VFs: its plan's "firmware VF limit raised
 * to 12, waiting for a reboot" (reasons, changed in place) when the
 * firmware holds 12 set by hand since an apply of the card (its status
 * record in runtime_dir, of any port) raised it to another limit, said as
 * the firmware holds it, as the raising port says it: "firmware VF limit
 * 12 set in firmware, waiting for a reboot (the apply of T raised it to 16
 * for 0000:ca:00.0; changed since; its layout needs 12 of it)"; and, when
 * the layout wants more than that limit (the plan raises it again), such a
 * reason added: what the firmware holds waits for the reboot as well, "...
 * (the apply of T raised it to 20; changed since; its layout needs 24)",
 * once (report_card_limit_short(): no reboot is asked for it).
 * *reasons may be reallocated. -ENOMEM. */
int report_card_limit_said(const char *runtime_dir, const struct host_state *hs,
			   const struct pf_state *pf, uint32_t want, char ***reasons);
/* Whether the layout of by, another port of pf's card, that wants need VFs
 * needs a raise of the card's firmware VF limit: only when it wants more
 * than the limit in effect (sriov_totalvfs), "0000:ca:00.1's layout needs
 * 16 of it"; by NULL: no layout of the card's other ports wants VFs. */
bool report_firmware_needs(const struct pf_state *pf, uint32_t need, const char *by) _pure_;
/* Whether reason, a pending reboot reason of pf, which no layout selects,
 * is asked for by the layout of by, another port of pf's card, that wants
 * need VFs: only a raise of the firmware VF limit an apply made ("firmware
 * VF limit raised to 16, waiting for a reboot ...",
 * plan_firmware_reason_raised()) to at least need, when that layout needs
 * a raise (report_firmware_needs()), as that port's apply waits for it. A
 * link type, a limit set by hand since, or a raise short of need: no
 * layout asks for it, and no reboot is made for it. */
bool report_unselected_reason_asked(const struct pf_state *pf, const char *reason, uint32_t need,
				    const char *by) _pure_;
/* report_unselected_reason_asked() with the need of the layouts of set of
 * the other ports of pf's card (host_card_need()). */
bool report_unselected_asked(const struct layout_set *set, const struct host_state *hs,
			     const struct pf_state *pf, const char *reason);
/* Whether reason is the one report_card_limit_said() adds of a limit set
 * by hand that the PF's layout wants more than ("firmware VF limit 14 set
 * in firmware, waiting for a reboot (...; changed since; its layout needs
 * 20)"): the reboot does not give that layout what it wants, so no layout
 * asks for it and no reboot is made for it. */
bool report_card_limit_short(const char *reason) _pure_;
int report_unselected_reboot_reasons(const struct layout_set *set, const struct host_state *hs,
				     const struct pf_status *rec, const struct pf_state *pf,
				     char ***ret);
/* Whether rec, the PF's record (NULL: none), says held while the files hold
 * it no more (a PF they hold has no plan): what held it was fixed since,
 * and the PF is pending, even when the host is as the layouts say, until an
 * apply writes a record of now. Then *ret is why: "not applied since its
 * last apply held it, and what held it is fixed now (sriovctl apply
 * 0000:3b:00.0 applies it)", the command with options (sriovctl's that
 * name a host, layouts or directories; NULL: none); else NULL. The one
 * rule of status (and so metrics and GetStatus()) and wait. -ENOMEM. */
int report_hold_lifted(const struct pf_view *pv, const struct pf_status *rec, const char *options,
		       char **ret);
/* Whether rec, the PF's record (NULL: none), says deferred by a value of
 * [Disruption] Policy= (its deferred_by) other than that of the main
 * configuration given to set now, which lets disruptive changes run
 * (immediate, or drain without Kubernetes): then *ret is why the PF is
 * pending, "not applied since its last apply was deferred by [Disruption]
 * Policy=never, which is now Policy=immediate (sriovctl apply 0000:3b:00.0
 * applies it)", or for a reset's record "not reset since its last reset ...
 * (sriovctl reset 0000:3b:00.0 runs it)", with options as above; else NULL. The one rule of status (and so metrics
 * and GetStatus()) and wait. -ENOMEM. */
int report_deferral_lifted(const struct layout_set *set, const struct pf_status *rec,
			   const char *options, char **ret);
/* The same of a PF that no layout selects, and also when rec says its reset
 * was deferred (by any policy) while nothing disruptive is left for it now
 * (disruptive false: report_unconfigured_left()), its VFs removed by hand
 * since: "not reset since its last reset was deferred by [Disruption]
 * Policy=never, and nothing disruptive is left for it now (sriovctl reset
 * 0000:3b:00.0 runs it)". The one rule of status and sriov-persistd's PF
 * objects. -ENOMEM. */
int report_reset_deferral_lifted(const struct layout_set *set, const struct pf_status *rec,
				 bool disruptive, const char *options, char **ret);
/* For a PF no layout selects: what a removed layout left ("4 VFs left from
 * a removed layout"), or, when the record in state_dir says sriov-persist
 * created VFs that are not there as it left them, what a reset finds
 * instead ("2 VF(s) exist, but not the 4 sriov-persist created (...); left
 * as they are"); NULL (with 0) for neither, or a record that cannot be
 * read. *ret_disruptive: whether the next step that undoes it is
 * disruptive. Status's reason; caller frees. -ENOMEM. */
int report_unconfigured_left(const char *state_dir, const struct pf_state *pf, char **ret,
			     bool *ret_disruptive);

/* {"pfs": [...], "changes": bool}: per PF the actions apply would run; its
 * "reboot_reasons" as status says them (report_card_limit_said(), with the
 * status records under runtime_dir; NULL: as the plan has them). */
int report_plan(const struct host_view *v, const char *runtime_dir, struct json_object **ret);
