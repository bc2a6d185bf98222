/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* What status says of a drifted PF whose layout files changed after its
 * last apply: the difference may be the layout's edit, not the host's. */

#include "host-view.h"
#include "status.h"

/* Whether the layouts of v want something else of pv now than rec says
 * they did at its apply (rec->layouts, layout_wants_signature()): 1 yes,
 * 0 the same, -ENODATA not known (a record without "layouts": of an
 * earlier version, a reset's), -ENOMEM. What the daemon takes for a change
 * of the layouts, not drift, and applies in either [Drift] Mode= (at its
 * reload, or its start when they changed while it was stopped); the
 * decision of report_layout_edited() and of wait. */
int report_layouts_changed(const struct host_view *v, const struct pf_view *pv,
			   const struct pf_status *rec);
/* Of a drifted PF pv of v, with rec its status record: when rec says
 * what the layouts wanted of it at its apply (rec->layouts) and they want
 * something else now, "the layout changed since its last apply (FILE
 * modified after it), not applied yet; sriovctl apply PCI applies it" (the
 * file part when a file that selects pv was modified after rec's apply
 * finished, or is not one rec names; options, sriovctl's as given, NULL:
 * none); nothing when they want the same, whatever the files' times. Of a
 * record without it, judged by the files alone: "the layout changed since
 * its last apply (FILE modified after it): what differs may be the
 * layout's, not applied yet, rather than a change on the host; sriovctl
 * apply PCI applies it". Put before *why; *why unchanged otherwise;
 * -ENOMEM. */
int report_layout_edited(const struct host_view *v, const struct pf_view *pv,
			 const struct pf_status *rec, const char *options, char **why);
/* Of a drifted PF (p, its plan) that the daemon leaves as it is, as set's [Drift]
 * Mode=report says: "not repaired ([Drift] Mode=report in FILE:LINE);
 * sriovctl apply PCI repairs it" (with options, as above) put after *why
 * (NULL: alone); *why unchanged with Mode=repair; -ENOMEM. When the repair
 * is disruptive (plan_is_disruptive()) and set's [Disruption]
 * Policy= does not let it run now, what that apply does instead: "...
 * repairs it through a drain ([Disruption] Policy=drain)", or "... does not
 * repair it either: the repair is disruptive, and [Disruption] Policy=never
 * holds it". When *why ends report_layout_edited()'s text with the same
 * command ("; sriovctl apply PCI applies it"), that is taken out and the
 * command named once, at the end: "... applies it (and repairs the
 * drift)" (or "... applies it (and repairs the drift) through a drain
 * ...", "... does not apply it either: the change is disruptive, ...").
 * The reason of status and GetStatus(), and the daemon's LastError of such
 * a PF. */
int report_drift_kept(const struct layout_set *set, const struct plan *p, const char *options,
		      char **why);
/* Of a drifted PF (p, its plan) that [Drift] Mode=repair would repair
 * while no sriov-persistd runs to (sriovctl wait, asking the bus): as
 * report_drift_kept() says it, with "no sriov-persistd runs to repair it"
 * for "not repaired ([Drift] Mode=report in FILE:LINE)": "differs: 4 VFs
 * wanted, 0 present; no sriov-persistd runs to repair it; sriovctl apply
 * PCI repairs it". -ENOMEM. */
int report_drift_unrepaired(const struct layout_set *set, const struct plan *p, const char *options,
			    char **why);
/* Of a PF pv of v whose plan has actions left, with rec its status record:
 * *state "pending" with *why when that is the rest of the apply that a
 * firmware VF limit or link type waited for (report_firmware_took_effect()) or its apply
 * unit's (pv->returned, report_not_applied_returned()); "drifted" when rec
 * says applied, with *why what differs beyond its VFs ("differs: 4 VFs
 * wanted, 0 present"), then report_layout_edited()'s and
 * report_drift_kept()'s words (NULL: nothing beyond its VFs differs, in
 * [Drift] Mode=repair); else *state NULL. The one judgement of status (and
 * so GetStatus()) and wait. -ENOMEM. */
int report_applied_differs(const struct host_view *v, const struct pf_view *pv,
			   const struct pf_status *rec, const char *options, const char **state,
			   char **why);
/* Whether the link type that the apply of rec (a PF's status record) set
 * in firmware is pf's now (a reboot or a firmware reset brought it): what
 * pf lacks is the rest of that apply. The daemon asks it too. */
bool report_link_took_effect(const struct pf_status *rec, const struct pf_state *pf) _pure_;
/* Of a PF whose record rec says its apply raised the firmware VF limit or
 * set the link type in firmware and waited for the reboot, when that took
 * effect since (pf_status_firmware_took_effect(),
 * report_link_took_effect()): what it lacks is the rest of that apply, not
 * drift: "the firmware VF limit 12 took effect after its apply; the rest of
 * that apply is not applied yet; sriovctl apply PCI applies it", or "the
 * link type ethernet took effect after its apply; ..." (with options, as
 * above) in *ret; NULL otherwise. The one place status, wait, metrics and
 * the daemon's LastError judge it. -ENOMEM. */
int report_firmware_took_effect(const struct pf_view *pv, const struct pf_status *rec,
				const char *options, char **ret);
/* Of a configured PF with no status record (never applied in this boot):
 * "not applied yet", and under set's [Drift] Mode=report, which applies
 * nothing at start, "not applied yet: [Drift] Mode=report in FILE:LINE
 * applies nothing at start; sriovctl apply PCI applies it" (with options,
 * as above), in *buf, which the caller frees. When p, the PF's plan, is
 * disruptive and set's [Disruption] Policy= does not let it run now, what
 * that apply does instead: "... applies it through a drain ([Disruption]
 * Policy=drain)", or "... does not apply it either: the change is
 * disruptive, and [Disruption] Policy=never holds it". The reason of status
 * and GetStatus(), and the daemon's LastError of such a PF. NULL: -ENOMEM. */
const char *report_not_applied(const struct layout_set *set, const struct plan *p,
			       const char *options, char **buf);
/* The same of a PF that appeared while the daemon ran (hotplug, struct
 * pf_view's appeared): under [Drift] Mode=report, which holds back no apply
 * unit, "not applied yet: it appeared while the daemon ran (hotplug); its
 * apply unit, sriov-persist-apply@PCI.service, which udev starts then,
 * applies it ([Drift] Mode=report in FILE:LINE does not hold that back) and
 * has written no record; sriovctl apply PCI applies it". NULL: -ENOMEM. */
const char *report_not_applied_appeared(const struct layout_set *set, const char *pci,
					const char *options, char **buf);
/* Of a PF that went and came back while the daemon ran (hotplug, a driver
 * reload), whose status record is of before it went: its apply unit's to
 * apply, whatever [Drift] Mode= says, and what differs is no drift: "not
 * applied since it came back: it appeared again while the daemon ran
 * (hotplug); its apply unit, sriov-persist-apply@PCI.service, which udev
 * starts then, applies it and has written no record since (its record is
 * of before it went); sriovctl apply PCI applies it" (with options, as
 * above). NULL: -ENOMEM. */
char *report_not_applied_returned(const char *pci, const char *options);
