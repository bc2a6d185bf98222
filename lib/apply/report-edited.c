/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* A drifted PF whose layout was edited after its last apply, or that
 * [Drift] Mode=report leaves as it is. */

#include <sys/stat.h>

#include "layout-wants.h"
#include "report-edited.h"

int report_layouts_changed(const struct host_view *v, const struct pf_view *pv,
			   const struct pf_status *rec)
{
	_cleanup_free_ char *wants = NULL, *sig = NULL;

	if (!rec->layouts)
		return -ENODATA;
	wants = layout_wants(v->set, v->hs, pv->pf);
	sig = wants ? layout_wants_signature(wants) : NULL;
	if (!sig)
		return -ENOMEM;
	return !streq(sig, rec->layouts);
}

/* The first layout file that selects pv now and was changed after rec's
 * apply finished, or is not one that apply read (a file added, renamed):
 * "FILE modified after it", "FILE new since"; NULL: none (*ret), -ENOMEM. */
static int edited_file(const struct pf_view *pv, const struct pf_status *rec, char **ret)
{
	*ret = NULL;
	for (char **f = pv->desired->config_files; f && *f; f++) {
		struct stat st;
		usec_t mtime;

		if (stat(*f, &st) < 0)
			continue;
		mtime = (usec_t)st.st_mtim.tv_sec * USEC_PER_SEC +
			(usec_t)st.st_mtim.tv_nsec / 1000;
		if (mtime <= rec->finished && strv_contains(rec->config_files, *f))
			continue;
		*ret = strdup_printf("%s %s", *f,
				     mtime > rec->finished ? "modified after it" : "new since");
		return *ret ? 0 : -ENOMEM;
	}
	return 0;
}

/* For a drifted PF. When the record says what the layouts wanted at its
 * apply: whether they want something else now, certain. Of an older
 * record: whether a layout file was changed after the apply (then what
 * differs may be the layout's edit, not applied yet, as well as a change
 * on the host). The reason says so, with the file, put before *why (what
 * differs beyond the VFs, or NULL); *why left as it is otherwise. */
int report_layout_edited(const struct host_view *v, const struct pf_view *pv,
			 const struct pf_status *rec, const char *options, char **why)
{
	_cleanup_free_ char *file = NULL;
	char *ret;
	int changed, r;

	if (!pv->desired || !rec->finished)
		return 0;
	changed = report_layouts_changed(v, pv, rec);
	if (changed == -ENOMEM)
		return changed;
	if (changed == 0)
		return 0;
	r = edited_file(pv, rec, &file);
	if (r < 0)
		return r;
	if (changed > 0)
		ret = strdup_printf("the layout changed since its last apply%s%s%s, not applied "
				    "yet; sriovctl%s apply %s applies it",
				    file ? " (" : "", strempty(file), file ? ")" : "",
				    strempty(options), rec->pci);
	else if (file)
		ret = strdup_printf("the layout changed since its last apply (%s): what differs "
				    "may be the layout's, not applied yet, rather than a change on "
				    "the host; sriovctl%s apply %s applies it",
				    file, strempty(options), rec->pci);
	else
		return 0;
	if (ret && *why) {
		char *both = strdup_printf("%s; %s", ret, *why);

		free(ret);
		ret = both;
	}
	if (!ret)
		return -ENOMEM;
	free(*why);
	*why = ret;
	return 0;
}

/* When sriovctl apply does not run the disruptive change either, as
 * [Disruption] Policy=never holds it: what does, as the deferred apply's
 * reason says ("; set Policy=drain or immediate in FILE:LINE to let it
 * run, or make the change by hand"); "" otherwise. */
static const char *never_step(const struct layout_set *set, bool disruptive, char *buf, size_t size)
{
	if (!disruptive || !set->disruption_policy || set->disruption_runs ||
	    !streq(set->disruption_policy, "never"))
		return "";
	snprintf(buf, size,
		 "; set Policy=drain or immediate in %s to let it run, or make the change by hand",
		 set->disruption_never_at[0] ? set->disruption_never_at : "the main configuration");
	return buf;
}

/* What sriovctl apply does to a drift: repairs it now, or, when the repair
 * is disruptive and the policy does not let it run now, through a drain,
 * or not at all. edited: the reason named that command for the layout's
 * edit already ("... applies it"), which is then said once, here. */
static const char *drift_repair_waits(const struct layout_set *set, bool disruptive, bool edited)
{
	if (!disruptive || !set->disruption_policy || set->disruption_runs)
		return edited ? "applies it (and repairs the drift)" : "repairs it";
	if (streq(set->disruption_policy, "never"))
		return edited ? "does not apply it either: the change is disruptive, and "
				"[Disruption] Policy=never holds it" :
				"does not repair it either: the repair is disruptive, and "
				"[Disruption] Policy=never holds it";
	return edited ? "applies it (and repairs the drift) through a drain ([Disruption] "
			"Policy=drain)" :
			"repairs it through a drain ([Disruption] Policy=drain)";
}

/* Takes "; <cmd> applies it" (report_layout_edited()'s end) out of why:
 * whether it was there. */
static int take_applies(char *why, const char *cmd)
{
	_cleanup_free_ char *applies = why ? strdup_printf("; %s applies it", cmd) : NULL;
	char *at;

	if (!why)
		return 0;
	if (!applies)
		return -ENOMEM;
	at = strstr(why, applies);
	if (!at)
		return 0;
	memmove(at, at + strlen(applies), strlen(at + strlen(applies)) + 1);
	return 1;
}

/* report_drift_kept() and report_drift_unrepaired(): *why, then why
 * nothing repairs it (kept), then the command that does. */
static int drift_left(const struct layout_set *set, const struct plan *p, const char *options,
		      const char *kept, char **why)
{
	_cleanup_free_ char *cmd = NULL;
	char step[PATH_MAX + 128], *ret;
	int edited;

	cmd = strdup_printf("sriovctl%s apply %s", strempty(options), p->pci);
	edited = cmd ? take_applies(*why, cmd) : -ENOMEM;
	if (edited < 0)
		return edited;
	ret = strdup_printf("%s%s%s; %s %s%s", strempty(*why), *why ? "; " : "", kept, cmd,
			    drift_repair_waits(set, plan_is_disruptive(p), edited),
			    never_step(set, plan_is_disruptive(p), step, sizeof(step)));
	if (!ret)
		return -ENOMEM;
	free(*why);
	*why = ret;
	return 0;
}

int report_drift_kept(const struct layout_set *set, const struct plan *p, const char *options,
		      char **why)
{
	_cleanup_free_ char *kept = NULL;

	if (!set->drift_report_at[0])
		return 0;
	kept = strdup_printf("not repaired ([Drift] Mode=report in %s)", set->drift_report_at);
	return kept ? drift_left(set, p, options, kept, why) : -ENOMEM;
}

int report_drift_unrepaired(const struct layout_set *set, const struct plan *p, const char *options,
			    char **why)
{
	return drift_left(set, p, options, "no sriov-persistd runs to repair it", why);
}

/* For a drifted PF: what differs beyond its VFs (which their rows show),
 * "differs: 4 VFs wanted, 0 present; set PF mtu 9000 (now 1500)", or NULL
 * (with 0) when every action is a VF's or a step of another. */
static int drift_beyond_vfs(const struct pf_view *pv, char **ret)
{
	_cleanup_strv_free_ char **l = NULL;
	_cleanup_free_ char *s = NULL;
	int r;

	for (size_t i = 0; i < pv->plan->n_actions; i++) {
		char *d;

		if (action_type_on_vf(pv->plan->actions[i].type))
			continue;
		r = plan_describe_difference(pv->plan, i, pv->pf, &d);
		if (r >= 0 && d)
			r = strv_consume(&l, d);
		if (r < 0)
			return r;
	}
	*ret = NULL;
	if (!l)
		return 0;
	s = strv_join(l, "; ");
	if (!s)
		return -ENOMEM;
	*ret = strdup_printf("differs: %s", s);
	return *ret ? 0 : -ENOMEM;
}

int report_applied_differs(const struct host_view *v, const struct pf_view *pv,
			   const struct pf_status *rec, const char *options, const char **state,
			   char **why)
{
	*state = NULL;
	*why = NULL;
	/* not drift: the rest of the apply a reboot waited for */
	if (report_firmware_took_effect(pv, rec, options, why) < 0)
		return -ENOMEM;
	if (!*why && pv->returned) /* its apply unit's: not drift */
		*why = report_not_applied_returned(pv->pf->pci, options);
	if (*why || pv->returned) {
		*state = "pending";
		return *why ? 0 : -ENOMEM;
	}
	if (rec->state != PF_STATUS_APPLIED)
		return 0;
	/* drift: it was applied, and now the host differs again */
	*state = "drifted";
	if (drift_beyond_vfs(pv, why) < 0 || report_layout_edited(v, pv, rec, options, why) < 0 ||
	    report_drift_kept(v->set, pv->plan, options, why) < 0) {
		*why = mfree(*why);
		return -ENOMEM;
	}
	return 0;
}

bool report_link_took_effect(const struct pf_status *rec, const struct pf_state *pf)
{
	return rec->firmware.link_set && pf->link_type == rec->firmware.link_type &&
	       (!pf->has_firmware_link_type || pf->firmware_link_type == pf->link_type);
}

int report_firmware_took_effect(const struct pf_view *pv, const struct pf_status *rec,
				const char *options, char **ret)
{
	*ret = NULL;
	if (report_link_took_effect(rec, pv->pf))
		*ret = strdup_printf(
			"the link type %s took effect after its apply; the rest of "
			"that apply is not applied yet; sriovctl%s apply %s applies it",
			strna(link_type_to_string(pv->pf->link_type)), strempty(options), rec->pci);
	else if (pf_status_firmware_took_effect(rec, pv->pf))
		*ret = strdup_printf("the firmware VF limit %u took effect after its apply; the "
				     "rest of that apply is not applied yet; sriovctl%s apply %s "
				     "applies it",
				     pf_status_firmware_waited(rec) ?: pv->pf->total_vfs,
				     strempty(options), rec->pci);
	else
		return 0;
	return *ret ? 0 : -ENOMEM;
}

/* What sriovctl apply does to a PF never applied: applies it, or, when its
 * plan is disruptive and the policy does not let it run now, through a
 * drain, or not at all (as it defers it). */
static const char *not_applied_waits(const struct layout_set *set, bool disruptive)
{
	if (!disruptive || !set->disruption_policy || set->disruption_runs)
		return "applies it";
	if (streq(set->disruption_policy, "never"))
		return "does not apply it either: the change is disruptive, and [Disruption] "
		       "Policy=never holds it";
	return "applies it through a drain ([Disruption] Policy=drain)";
}

const char *report_not_applied(const struct layout_set *set, const struct plan *p,
			       const char *options, char **buf)
{
	char step[PATH_MAX + 128];

	*buf = NULL;
	if (!set->drift_report_at[0])
		return "not applied yet";
	*buf = strdup_printf("not applied yet: [Drift] Mode=report in %s applies nothing at start; "
			     "sriovctl%s apply %s %s%s",
			     set->drift_report_at, strempty(options), p->pci,
			     not_applied_waits(set, plan_is_disruptive(p)),
			     never_step(set, plan_is_disruptive(p), step, sizeof(step)));
	return *buf;
}

const char *report_not_applied_appeared(const struct layout_set *set, const char *pci,
					const char *options, char **buf)
{
	*buf = NULL;
	if (!set->drift_report_at[0])
		return "not applied yet";
	*buf = strdup_printf(
		"not applied yet: it appeared while the daemon ran (hotplug); its apply "
		"unit, sriov-persist-apply@%s.service, which udev starts then, applies "
		"it ([Drift] Mode=report in %s does not hold that back) and has "
		"written no record; sriovctl%s apply %s applies it",
		pci, set->drift_report_at, strempty(options), pci);
	return *buf;
}

char *report_not_applied_returned(const char *pci, const char *options)
{
	return strdup_printf("not applied since it came back: it appeared again while the daemon "
			     "ran (hotplug); its apply unit, sriov-persist-apply@%s.service, which "
			     "udev starts then, applies it and has written no record since (its "
			     "record is of before it went); sriovctl%s apply %s applies it",
			     pci, strempty(options), pci);
}
