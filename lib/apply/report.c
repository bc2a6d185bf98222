/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* The status and plan documents. Field names and order are what `sriovctl
 * status --json` and `sriovctl plan --json` have always printed: scripts
 * parse them, and the daemon returns the same. */

#include <inttypes.h>

#include "drivers.h"
#include "json-util.h"
#include "match.h"
#include "report-edited.h"
#include "report-gone.h"
#include "report-vf.h"
#include "report.h"
#include "setting-row.h"
#include "snapshot.h"
#include "status.h"

/* ---- the status document ---- */

/* What a PF's status is, from the layouts, the host and the last record. */
struct pf_report {
	/* unconfigured, held, failed, deferred, degraded, drifted, pending, applied */
	const char *state;
	const char *why;
	char *why_owned; /* why, when it was made here */
	struct pf_status rec;
	bool has_rec;
	/* what a removed layout left, whose reset would be deferred now:
	 * why (the main configuration's [Disruption] Policy=), else NULL */
	const char *reset_waits;
	/* resetting what a removed layout left needs a disruptive change */
	bool reset_disruptive;
};

int report_unconfigured_left(const char *state_dir, const struct pf_state *pf, char **ret,
			     bool *ret_disruptive)
{
	struct pf_created c;
	struct action a;
	char *why = NULL;
	int r;

	*ret_disruptive = false;
	r = pf_created_left(state_dir, pf, &c);
	if (r > 0) {
		why = pf_created_describe(&c);
		*ret_disruptive = pf_created_next_undo(&c, pf, &a) && a.disruptive;
	} else if (r == 0 && state_dir && pf_created_read(state_dir, pf->pci, &c) >= 0) {
		r = c.num_vfs > 0 || pf_created_eswitch_kept(&c, pf);
		if (r > 0)
			why = pf_created_describe_gone(&c, pf);
		pf_created_done(&c);
	}
	if (r > 0 && !why)
		return -ENOMEM;
	*ret = r > 0 ? why : NULL;
	return 0;
}

/* A PF that no layout selects while its driver or netdev has not appeared,
 * and that a layout may select once they have: what sriovctl wait, which
 * waits for it, says of it. NULL otherwise. */
static const char *unsettled_why(const struct host_view *v, const struct pf_state *pf)
{
	if ((pf->driver && pf->name) || !layout_set_may_select(v->set, pf, v->hostname))
		return NULL;
	return pf->driver ? "no netdev yet: a layout may select it once it has one (sriovctl "
			    "wait waits for it)" :
			    "no driver yet: a layout may select it once one is bound (sriovctl "
			    "wait waits for it)";
}

/* Why a disruptive change would be deferred now, as apply and reset say
 * it (apply_hold_reason()), from the main configuration's policy; NULL
 * when it would run, or no main configuration was given. */
static const char *disruption_waits(const struct layout_set *set)
{
	if (!set->disruption_policy || set->disruption_runs)
		return NULL;
	if (streq(set->disruption_policy, "never"))
		return set->disruption_never;
	return set->drain_cannot_run ?:
				       "disruptive changes wait for a drain of this node "
				       "through Kubernetes ([Disruption] Policy=drain)";
}

static int report_unconfigured(const struct host_view *v, const struct pf_view *pv,
			       const char *state_dir, struct pf_report *r)
{
	const char *unsettled = unsettled_why(v, pv->pf);
	bool disruptive;
	char *left;

	r->state = "unconfigured";
	if (report_unconfigured_left(state_dir, pv->pf, &left, &disruptive) < 0)
		return -ENOMEM;
	r->reset_disruptive = disruptive;
	r->reset_waits = disruptive ? disruption_waits(v->set) : NULL;
	if (!unsettled) {
		r->why = r->why_owned = left;
		return 0;
	}
	/* the gate first, then what sriov-persist left */
	r->why = r->why_owned = left ? strdup_printf("%s; %s", unsettled, left) : strdup(unsettled);
	free(left);
	return r->why ? 0 : -ENOMEM;
}

/* What the layouts alone make of the PF: unconfigured (with what a removed
 * layout left, or what a PF without its driver waits for), held, degraded,
 * or applied so far. */
static int report_layout(const struct host_view *v, const struct pf_view *pv, const char *state_dir,
			 struct pf_report *r)
{
	if (!pv->desired) {
		if (report_unconfigured(v, pv, state_dir, r) < 0)
			return -ENOMEM;
	} else if (pv->desired->held) {
		r->state = "held";
		r->why = pv->desired->held_reason;
	} else if (pv->plan->n_actions == 0 && pv->plan->unmet[0]) {
		r->state = "degraded";
		r->why = r->why_owned = strv_join(pv->plan->unmet, "; ");
		if (!r->why_owned)
			return -ENOMEM;
	}
	return 0;
}

/* The reboots an applied PF with nothing left to do waits for: those an
 * apply did, then those only planned (another port of the card raises its
 * firmware VF limit), as "not applied yet; after its apply: ...". NULL on
 * ENOMEM. */
static char *reboot_why(const struct plan *p)
{
	_cleanup_strv_free_ char **done = NULL, **planned = NULL;
	_cleanup_free_ char *d = NULL, *l = NULL;

	if (plan_reboot_reasons_waited(p, &done) < 0 ||
	    plan_reboot_reasons_of(p, false, &planned) < 0 || !(d = strv_join(done, "; ")) ||
	    !(l = strv_join(planned, "; ")))
		return NULL;
	if (!planned[0])
		return TAKE_PTR(d);
	return strdup_printf("%s%snot applied yet; after its apply: %s", d, *d ? "; " : "", l);
}

/* Nothing left to do but what only a reboot brings (a raised firmware VF
 * limit, a link type), or VFs another tool has yet to create, or has
 * created (or made anew) since the last apply, which did not configure them yet: the
 * layout is not in place yet. An applied (or, for those VFs, drifted) PF
 * becomes pending, with why; NULL on ENOMEM. */
static const char *report_pending(const struct pf_view *pv, struct pf_report *r)
{
	const struct plan *p = pv->plan;
	bool applied = streq(r->state, "applied"), drifted = streq(r->state, "drifted");
	char *why;

	if (!p || !(applied || drifted))
		return r->why;
	/* only a reboot is left, and the last apply failed: a firmware reset
	 * instead of the reboot ran and did not take (sriov-persistd) */
	if (applied && !p->waiting[0] && p->reboot_reasons[0] && r->has_rec &&
	    r->rec.state == PF_STATUS_FAILED && r->rec.error) {
		r->state = "failed";
		return r->why = r->rec.error;
	}
	if (p->waiting[0])
		why = strv_join(p->waiting, "; ");
	else if (applied && p->reboot_reasons[0])
		why = reboot_why(p);
	else if (drifted && r->rec.waiting && r->rec.waiting[0])
		why = strdup("VFs that another tool created are not configured yet");
	else if (drifted && pv->desired && plan_external_vfs_unconfigured(p, pv->desired))
		why = strdup(plan_external_vfs_unconfigured(p, pv->desired));
	else
		return r->why;
	r->state = "pending";
	free(r->why_owned);
	return r->why_owned = why;
}

int report_hold_lifted(const struct pf_view *pv, const struct pf_status *rec, const char *options,
		       char **ret)
{
	*ret = NULL;
	if (!rec || rec->state != PF_STATUS_HELD || !pv->plan)
		return 0;
	*ret = strdup_printf("not applied since its last apply held it, and what held it is "
			     "fixed now (sriovctl%s apply %s applies it)",
			     strempty(options), rec->pci);
	return *ret ? 0 : -ENOMEM;
}

static bool record_of_reset(const struct pf_report *r)
{
	return r->has_rec && r->rec.reset;
}

/* "not reset since its last reset was deferred by [Disruption] Policy=never,
 * <now> (sriovctl reset 0000:3b:00.0 runs it)", now why it runs now; of an
 * apply "not applied since its last apply ... applies it)". */
static char *deferral_lifted_said(const struct pf_status *rec, const char *now, const char *options)
{
	bool reset = rec->reset;

	return strdup_printf(
		"not %s since its last %s was deferred%s%s, %s (sriovctl%s %s %s %s it)",
		reset ? "reset" : "applied", reset ? "reset" : "apply",
		rec->deferred_by ? " by [Disruption] Policy=" : "", strempty(rec->deferred_by), now,
		strempty(options), reset ? "reset" : "apply", rec->pci, reset ? "runs" : "applies");
}

int report_deferral_lifted(const struct layout_set *set, const struct pf_status *rec,
			   const char *options, char **ret)
{
	_cleanup_free_ char *now = NULL;

	*ret = NULL;
	if (!rec || rec->state != PF_STATUS_DEFERRED || !rec->deferred_by ||
	    !set->disruption_policy || !set->disruption_runs ||
	    streq(rec->deferred_by, set->disruption_policy))
		return 0;
	now = strdup_printf("which is now Policy=%s", set->disruption_policy);
	*ret = now ? deferral_lifted_said(rec, now, options) : NULL;
	return *ret ? 0 : -ENOMEM;
}

int report_reset_deferral_lifted(const struct layout_set *set, const struct pf_status *rec,
				 bool disruptive, const char *options, char **ret)
{
	int r = report_deferral_lifted(set, rec, options, ret);

	if (r < 0 || *ret || disruptive || !rec || !rec->reset || rec->state != PF_STATUS_DEFERRED)
		return r;
	*ret = deferral_lifted_said(rec, "and nothing disruptive is left for it now", options);
	return *ret ? 0 : -ENOMEM;
}

/* A PF not applied yet whose apply sets what a reboot then brings (a
 * firmware VF limit, a link type): not a pending reboot, which only what
 * an apply did is, but "not applied yet; after its apply: firmware VF
 * limit 8 -> 16 takes effect after a reboot". */
static int report_not_applied_reboot(const struct pf_view *pv, struct pf_report *r)
{
	_cleanup_strv_free_ char **planned = NULL;
	_cleanup_free_ char *joined = NULL;
	char *why;

	if (plan_reboot_reasons_of(pv->plan, false, &planned) < 0)
		return -ENOMEM;
	if (!planned[0])
		return 0;
	joined = strv_join(planned, "; ");
	why = joined ? strdup_printf("%s; after its apply: %s", r->why, joined) : NULL;
	free(r->why_owned);
	r->why = r->why_owned = why;
	return r->why ? 0 : -ENOMEM;
}

/* The plan has actions left: drifted when it was applied, pending when
 * there is no record, or when the policy that deferred it lets it run now,
 * else what the record says (failed, deferred ...), with why. */
static int report_actions_left(const struct host_view *v, const struct pf_view *pv,
			       struct pf_report *r)
{
	const char *state = NULL;
	char *lifted, *why = NULL;

	/* drifted, or pending: the rest of its apply, its apply unit's */
	if (r->has_rec && report_applied_differs(v, pv, &r->rec, v->ctl_options, &state, &why) < 0)
		return -ENOMEM;
	if (state) {
		r->state = state;
		free(r->why_owned);
		r->why = r->why_owned = why;
		return 0;
	}
	if (!r->has_rec) {
		r->state = "pending";
		free(r->why_owned);
		r->why = pv->appeared ? report_not_applied_appeared(v->set, pv->pf->pci,
								    v->ctl_options, &r->why_owned) :
					report_not_applied(v->set, pv->plan, v->ctl_options,
							   &r->why_owned);
		if (!r->why)
			return -ENOMEM;
		return report_not_applied_reboot(pv, r);
	}
	if (report_deferral_lifted(v->set, &r->rec, v->ctl_options, &lifted) < 0)
		return -ENOMEM;
	if (lifted) {
		r->state = "pending";
		free(r->why_owned);
		r->why = r->why_owned = lifted;
		return 0;
	}
	r->state = pf_status_state_to_string(r->rec.state);
	r->why = r->rec.error;
	return 0;
}

/* A PF that no layout selects, whose last reset failed or was deferred:
 * said so, not "unconfigured" (an apply of a layout removed since is not);
 * deferred after what is left, or pending when the policy that deferred it
 * lets it run now, or nothing disruptive is left for it (the VFs removed by
 * hand since). */
static int report_reset_record(const struct host_view *v, const struct pf_view *pv,
			       struct pf_report *r)
{
	_cleanup_free_ char *lifted = NULL;
	char *why;

	if (pv->desired || !r->why || !record_of_reset(r) || !r->rec.error ||
	    (r->rec.state != PF_STATUS_FAILED && r->rec.state != PF_STATUS_DEFERRED))
		return 0;
	if (report_reset_deferral_lifted(v->set, &r->rec, r->reset_disruptive, v->ctl_options,
					 &lifted) < 0)
		return -ENOMEM;
	if (!lifted && r->rec.state == PF_STATUS_FAILED) {
		r->state = pf_status_state_to_string(r->rec.state);
		r->why = r->rec.error;
		return 0;
	}
	/* what is left, then why its reset waits, or that it may run now */
	why = strdup_printf("%s; %s", r->why, lifted ?: r->rec.error);
	if (!why)
		return -ENOMEM;
	r->state = lifted ? "pending" : "deferred";
	free(r->why_owned);
	r->why = r->why_owned = why;
	return 0;
}

static int report_pf(const struct host_view *v, const struct pf_view *pv, const char *runtime_dir,
		     const char *state_dir, struct pf_report *ret)
{
	struct pf_report r = { .state = "applied" };
	_cleanup_free_ char *lifted = NULL;

	if (report_layout(v, pv, state_dir, &r) < 0)
		return -ENOMEM;
	r.has_rec = pf_status_read(runtime_dir, pv->pf->pci, &r.rec) >= 0;
	if (pv->plan && report_card_limit_said(runtime_dir, v->hs, pv->pf,
					       pf_desired_num_vfs(pv->desired, pv->pf),
					       &pv->plan->reboot_reasons) < 0)
		return -ENOMEM;
	if (report_reset_record(v, pv, &r) < 0)
		return -ENOMEM;
	if (report_hold_lifted(pv, r.has_rec ? &r.rec : NULL, v->ctl_options, &lifted) < 0)
		return -ENOMEM;
	if (lifted) {
		/* as wait says it, whatever is left to do */
		r.state = "pending";
		free(r.why_owned);
		r.why = r.why_owned = TAKE_PTR(lifted);
	} else if (pv->plan && pv->plan->n_actions > 0 && report_actions_left(v, pv, &r) < 0)
		return -ENOMEM;
	r.why = report_pending(pv, &r);
	if (streq(r.state, "pending") && !r.why)
		return -ENOMEM;
	/* The host is as the layouts say, but the boot gate counts a PF only
	 * once an apply of this boot wrote its record: say why it waits. */
	if (streq(r.state, "applied") && pv->desired && !r.why &&
	    (!r.has_rec || r.rec.finished < boot_start_realtime()))
		r.why = "in place, but not applied in this boot yet (sriovctl wait waits for it)";
	/* More VFs than an ExternallyManaged=yes layout expects: applied to
	 * those it covers, with a warning. */
	if (streq(r.state, "applied") && pv->desired && !r.why &&
	    pf_desired_has_extra_vfs(pv->desired, pv->pf)) {
		r.why = r.why_owned = pf_desired_extra_vfs(pv->desired, pv->pf);
		if (!r.why)
			return -ENOMEM;
	}
	*ret = r;
	return 0;
}

/* {"now": ..., "wanted": ..., "source": "file:line"}: what the host has
 * (null: nothing), what the layouts want (null: they leave it) and where
 * they say so. */
static int setting_put(struct json_object *all, const struct setting_row *row)
{
	_cleanup_json_ struct json_object *o = json_object_new_object();
	_cleanup_free_ char *at = NULL;

	if (!o || setting_row_source(row, &at) < 0 || json_put_str(o, "now", row->now) < 0 ||
	    json_put_str(o, "wanted", row->wanted) < 0 || json_put_str(o, "source", at) < 0)
		return -ENOMEM;
	return json_put(all, row->key, TAKE_PTR(o));
}

/* Every VF key of the table, by its layout name. */
static int vf_settings_put(struct json_object *o, const struct pf_state *pf,
			   const struct vf_state *vf, const struct vf_settings *v)
{
	struct json_object *all = json_object_new_object();
	int r = json_put(o, "settings", all);

	for (enum vf_key k = 0; r >= 0 && k < _VF_KEY_MAX; k++) {
		struct setting_row row;

		vf_setting_row(pf, vf, v, k, &row);
		r = setting_put(all, &row);
	}
	return r;
}

/* Every [PhysicalFunction] key, by its layout name; nothing wanted of a
 * held PF, as desired_num_vfs (sriovctl cat shows what its files say). */
static int pf_settings_put(struct json_object *o, const struct pf_view *pv)
{
	const struct pf_settings *s = pv->desired && !pv->desired->held ? &pv->desired->pf : NULL;
	struct json_object *all = json_object_new_object();
	int r = json_put(o, "settings", all);

	for (enum pf_key k = 0; r >= 0 && k < _PF_KEY_MAX; k++) {
		struct setting_row row;

		pf_setting_row(pv->pf, s, k, &row);
		r = setting_put(all, &row);
	}
	return r;
}

/* The host's value of every VF key the status document carries, by its
 * snapshot name and as the snapshot has it, null where the host has none
 * (vf_attrs_host_has(): no driver, no netdev for the MTU, a GUID never
 * set); all null for a VF the host does not have (a == NULL). */
static int vf_attrs_put(struct json_object *o, const struct vf_attrs *a)
{
	for (enum vf_key k = 0; k < _VF_KEY_MAX; k++) {
		struct vf_key_field kf;
		struct json_object *v = NULL;
		int r = 0;

		if (!vf_key_host_field(k, &kf) || !kf.in_status)
			continue;
		if (a && vf_attrs_host_has(a, k))
			r = snapshot_vf_attr_format(a, k, &v);
		if (r < 0)
			return r;
		r = v ? json_put(o, kf.name, v) : json_put_null(o, kf.name);
		if (r < 0)
			return r;
	}
	return 0;
}

static int vf_fill(struct json_object *o, const struct vf_state *vf, const struct pf_view *pv)
{
	_cleanup_free_ char *drift = pv->plan ? report_vf_drift(pv, vf) : NULL;

	if ((pv->plan && !drift) || json_put_int(o, "index", vf->index) < 0 ||
	    json_put_str(o, "pci", vf->pci) < 0 || json_put_str(o, "name", vf->name) < 0 ||
	    vf_attrs_put(o, &vf->attrs) < 0 ||
	    json_put_str(o, "representor", vf->representor) < 0 ||
	    json_put_bool(o, "representor_up", vf->representor && vf->representor_up) < 0 ||
	    json_put_str(o, "layout", drift) < 0)
		return -ENOMEM;
	return vf_settings_put(o, pv->pf, vf, report_desired_vf(pv, vf->index));
}

/* Whether the apply that st records left changes that only a reboot (or a
 * firmware reset) brings into effect and that still wait: a raise of the
 * firmware VF limit that the record carries while pf's limit waits for it
 * (pf NULL: a PF gone, as the record has it), or another reboot reason of
 * an apply that ran its plan (applied, degraded). Records of earlier
 * versions have both. */
static bool last_apply_pending_reboot(const struct pf_status *st, const struct pf_state *pf)
{
	if (pf ? pf_status_firmware_pending(st, pf) : st->firmware.set || st->firmware.link_set)
		return true;
	if (st->state != PF_STATUS_APPLIED && st->state != PF_STATUS_DEGRADED)
		return false;
	for (char **r = st->reboot_reasons; *r; r++)
		if (!startswith(*r, "firmware VF limit"))
			return true;
	return false;
}

static struct json_object *last_apply_json(const struct pf_status *st, const struct pf_state *pf)
{
	_cleanup_json_ struct json_object *o = json_object_new_object();

	if (!o || json_put_str(o, "state", pf_status_state_to_string(st->state)) < 0 ||
	    json_put_bool(o, "pending_reboot", last_apply_pending_reboot(st, pf)) < 0 ||
	    json_put_str(o, "error", st->error) < 0 ||
	    json_put_u64(o, "finished_usec", st->finished) < 0 ||
	    json_put_int(o, "actions", st->n_actions) < 0 ||
	    json_put_u64(o, "started_usec", st->started) < 0 ||
	    json_put_u64(o, "host_usec", st->host_usec) < 0 ||
	    json_put_str(o, "by", st->reset ? "reset" : "apply") < 0 ||
	    json_put_str(o, "without_drain", st->without_drain) < 0)
		return NULL;
	return TAKE_PTR(o);
}

/* A VF the layouts want that the host does not have yet: its index, what
 * becomes of it, and its settings; the host's fields are null. */
static int missing_vf_fill(struct json_object *o, const struct pf_view *pv, uint32_t i,
			   const char *what)
{
	if (json_put_int(o, "index", i) < 0 || json_put_null(o, "pci") < 0 ||
	    json_put_null(o, "name") < 0 || vf_attrs_put(o, NULL) < 0 ||
	    json_put_null(o, "representor") < 0 || json_put_null(o, "representor_up") < 0 ||
	    json_put_str(o, "layout", what) < 0)
		return -ENOMEM;
	return vf_settings_put(o, pv->pf, NULL, report_desired_vf(pv, i));
}

/* What becomes of VF i that the layouts want and the host does not have:
 * made by this plan, after the reboot that raises the firmware VF limit
 * (after the apply that raises it, while only the plan does), or by the tool ExternallyManaged=yes leaves them to; or not, as with a PF
 * on no driver. */
static const char *missing_vf_fate(const struct pf_view *pv, uint32_t i)
{
	const struct pf_settings *s = &pv->desired->pf;

	if (i < report_planned_num_vfs(pv->plan))
		return "to be created";
	if (pf_settings_externally_managed(s))
		return "not created yet (ExternallyManaged=yes: another tool makes the VFs)";
	/* what an apply did waits for the reboot; else only the plan needs
	 * one, after its apply (not run yet, or deferred) raises the limit */
	for (char **r = pv->plan->reboot_reasons; *r; r++)
		if (!strv_contains(pv->plan->reboot_planned, *r))
			return "to be created after a reboot";
	if (pv->plan->reboot_reasons[0])
		return "to be created after its apply raises the firmware VF limit, and a reboot";
	if (!pv->pf->driver)
		return "not created (no driver is bound to the PF)";
	return "not created";
}

static int vfs_put(struct json_object *o, const struct pf_view *pv)
{
	struct json_object *vfs = json_object_new_array();
	int r = json_put(o, "vfs", vfs);
	int64_t want = pv->desired && !pv->desired->held && pv->plan ?
			       pf_desired_num_vfs(pv->desired, pv->pf) :
			       0;

	for (size_t i = 0; r >= 0 && i < pv->pf->n_vfs; i++) {
		struct json_object *vf = json_object_new_object();

		r = json_append(vfs, vf);
		if (r >= 0)
			r = vf_fill(vf, &pv->pf->vfs[i], pv);
	}
	for (int64_t i = pv->pf->n_vfs; r >= 0 && i < want; i++) {
		struct json_object *vf = json_object_new_object();

		_cleanup_free_ char *fate = report_missing_vf_fate(pv, i, missing_vf_fate(pv, i));

		r = json_append(vfs, vf);
		if (r >= 0)
			r = fate ? missing_vf_fill(vf, pv, i, fate) : -ENOMEM;
	}
	return r;
}

/* The plan's reboot reasons that an apply has done (what the firmware
 * holds for the next boot), not those it only plans; of a held PF, which has no plan, what the host
 * itself brings at the next reboot; so too of one that no layout selects
 * whose last apply raised the firmware VF limit: no layout withdraws what
 * the firmware holds (another port's raise of the card is that port's). */
static struct json_object *pending_reboot_json(const struct host_view *v, const struct pf_view *pv,
					       const struct pf_report *r)
{
	_cleanup_strv_free_ char **host = NULL;

	if (pv->plan) {
		if (plan_reboot_reasons_of(pv->plan, true, &host) < 0)
			return NULL;
		return json_strv(host);
	}
	if (pv->desired && !pv->desired->held)
		return json_strv(NULL);
	if (!pv->desired) {
		if (report_unselected_reboot_reasons(v->set, v->hs, r->has_rec ? &r->rec : NULL,
						     pv->pf, &host) < 0)
			return NULL;
		return json_strv(host);
	}
	if (plan_host_reboot_reasons(pv->pf, &host) < 0)
		return NULL;
	return json_strv(host);
}

/* brief: without the PF's settings and its VFs (report_status_brief()). */
static int pf_status_fill(struct json_object *o, const struct host_view *v,
			  const struct pf_view *pv, const struct pf_report *r,
			  const char *runtime_dir, bool brief)
{
	const struct pf_state *pf = pv->pf;

	if (json_put_str(o, "pci", pf->pci) < 0 || json_put_str(o, "name", pf->name) < 0 ||
	    json_put_str(o, "driver", pf->driver) < 0 ||
	    json_put_str(o, "link_type", link_type_to_string(pf->link_type)) < 0 ||
	    json_put_str(o, "firmware_link_type",
			 pf->has_firmware_link_type ? link_type_to_string(pf->firmware_link_type) :
						      NULL) < 0 ||
	    (pf->speed ? json_put_int(o, "speed", pf->speed) : json_put_null(o, "speed")) < 0 ||
	    json_put_str(o, "state", r->state) < 0 || json_put_str(o, "reason", r->why) < 0 ||
	    json_put_int(o, "num_vfs", pf->num_vfs) < 0 ||
	    json_put_int(o, "total_vfs", pf->total_vfs) < 0 ||
	    (pv->desired && !pv->desired->held ?
		     json_put_int(o, "desired_num_vfs", pf_desired_num_vfs(pv->desired, pv->pf)) :
		     json_put_null(o, "desired_num_vfs")) < 0 ||
	    json_put(o, "config_files", json_strv(pv->desired ? pv->desired->config_files : NULL)) <
		    0 ||
	    json_put_int(o, "pending_actions", pv->plan ? (int64_t)pv->plan->n_actions : 0) < 0 ||
	    json_put(o, "pending_reboot_reasons", pending_reboot_json(v, pv, r)) < 0 ||
	    json_put(o, "waiting", json_strv(pv->plan ? pv->plan->waiting : NULL)) < 0 ||
	    (r->has_rec ? json_put(o, "last_apply", last_apply_json(&r->rec, pf)) :
			  json_put_null(o, "last_apply")) < 0 ||
	    json_put_str(o, "reset_waits", r->reset_waits) < 0 ||
	    report_firmware_put(o, v, pv, runtime_dir) < 0)
		return -ENOMEM;
	if (brief)
		return 0;
	if (pf_settings_put(o, pv) < 0)
		return -ENOMEM;
	return vfs_put(o, pv);
}

static int pf_status_append(struct json_object *arr, const struct host_view *v,
			    const struct pf_view *pv, const char *runtime_dir,
			    const char *state_dir, bool brief)
{
	struct json_object *o = json_object_new_object();
	struct pf_report rep;
	int r;

	r = json_append(arr, o);
	if (r >= 0)
		r = report_pf(v, pv, runtime_dir, state_dir, &rep);
	if (r < 0)
		return r;
	r = pf_status_fill(o, v, pv, &rep, runtime_dir, brief);
	if (rep.has_rec)
		pf_status_done(&rep.rec);
	free(rep.why_owned);
	return r;
}

/* PFs that were applied here and are gone (unplugged, removed from the PCI
 * bus: a PF whose driver is unbound is still listed). */
static int gone_append(struct json_object *arr, const struct host_view *v, const char *runtime_dir)
{
	_cleanup_strv_free_ char **pcis = NULL;
	int r;

	r = pf_status_list(runtime_dir, &pcis);
	if (r < 0) /* an unreadable directory only means nothing to add */
		return r == -ENOMEM ? r : 0;
	for (char **p = pcis; r >= 0 && *p; p++) {
		_cleanup_free_ char *why = NULL;
		struct json_object *o;
		struct pf_status st;

		if (host_state_find_pf(v->hs, *p) || pf_status_read(runtime_dir, *p, &st) < 0)
			continue;
		o = json_object_new_object();
		r = json_append(arr, o);
		why = report_gone_reason(&st);
		/* its last apply too: when it was last seen applied */
		if (r >= 0 &&
		    (!why || json_put_str(o, "pci", *p) < 0 ||
		     json_put_str(o, "name", st.name) < 0 || json_put_str(o, "state", "gone") < 0 ||
		     json_put_str(o, "reason", why) < 0 ||
		     json_put(o, "last_apply", last_apply_json(&st, NULL)) < 0))
			r = -ENOMEM;
		pf_status_done(&st);
	}
	return r;
}

static int status_doc(const struct host_view *v, const char *runtime_dir, const char *state_dir,
		      bool with_gone, bool brief, struct json_object **ret)
{
	_cleanup_json_ struct json_object *doc = json_object_new_object();
	struct json_object *arr = json_object_new_array();
	int r;

	if (!doc) {
		json_object_put(arr);
		return -ENOMEM;
	}
	r = json_put(doc, "pfs", arr);
	for (size_t i = 0; r >= 0 && i < v->n_pfs; i++)
		r = pf_status_append(arr, v, &v->pfs[i], runtime_dir, state_dir, brief);
	if (r >= 0 && with_gone)
		r = gone_append(arr, v, runtime_dir);
	if (r < 0)
		return r;
	*ret = TAKE_PTR(doc);
	return 0;
}

int report_status(const struct host_view *v, const char *runtime_dir, const char *state_dir,
		  bool with_gone, struct json_object **ret)
{
	return status_doc(v, runtime_dir, state_dir, with_gone, false, ret);
}

int report_status_brief(const struct host_view *v, const char *runtime_dir, const char *state_dir,
			bool with_gone, struct json_object **ret)
{
	return status_doc(v, runtime_dir, state_dir, with_gone, true, ret);
}

/* ---- the plan document ---- */

static struct json_object *action_json(const struct action *a)
{
	_cleanup_free_ char *d = action_describe(a);
	_cleanup_json_ struct json_object *o = json_object_new_object();

	if (!o || !d || json_put_str(o, "action", action_type_to_string(a->type)) < 0 ||
	    json_put_str(o, "description", d) < 0 ||
	    json_put_bool(o, "disruptive", a->disruptive) < 0 ||
	    json_put_bool(o, "needs_reboot", a->needs_reboot) < 0 ||
	    (action_type_on_vf(a->type) && json_put_int(o, "vf", a->vf) < 0))
		return NULL;
	return TAKE_PTR(o);
}

static int pf_plan_fill(struct json_object *o, const struct host_view *v, const struct pf_view *pv,
			const char *runtime_dir)
{
	const struct pf_desired *d = pv->desired;
	const struct plan *p = pv->plan;
	struct json_object *acts = json_object_new_array();
	/* its reboot reasons as status says them: a limit set by hand since
	 * the raise, as the firmware holds it (the plan's own stay as they are) */
	_cleanup_strv_free_ char **reboot = p ? strv_copy(p->reboot_reasons) : NULL;
	int r;

	if (p && (!reboot ||
		  (d && report_card_limit_said(runtime_dir, v->hs, pv->pf,
					       pf_desired_num_vfs(d, pv->pf), &reboot) < 0))) {
		json_object_put(acts);
		return -ENOMEM;
	}

	if (json_put_str(o, "pci", pv->pf->pci) < 0 || json_put_str(o, "name", pv->pf->name) < 0 ||
	    json_put_bool(o, "configured", d) < 0 || json_put_bool(o, "held", d && d->held) < 0 ||
	    json_put_str(o, "held_reason", d && d->held ? strna(d->held_reason) : NULL) < 0 ||
	    json_put_bool(o, "disruptive", p && plan_is_disruptive(p)) < 0) {
		json_object_put(acts);
		return -ENOMEM;
	}
	r = json_put(o, "actions", acts);
	for (size_t i = 0; r >= 0 && p && i < p->n_actions; i++)
		r = json_append(acts, action_json(&p->actions[i]));
	if (r < 0 || json_put(o, "reboot_reasons", json_strv(reboot)) < 0 ||
	    json_put(o, "reboot_planned", json_strv(p ? p->reboot_planned : NULL)) < 0 ||
	    json_put(o, "unmet", json_strv(p ? p->unmet : NULL)) < 0 ||
	    json_put(o, "waiting", json_strv(p ? p->waiting : NULL)) < 0 ||
	    json_put(o, "notes", json_strv(p ? p->notes : NULL)) < 0 ||
	    json_put(o, "config_files", json_strv(d ? d->config_files : NULL)) < 0)
		return -ENOMEM;
	return 0;
}

int report_plan(const struct host_view *v, const char *runtime_dir, struct json_object **ret)
{
	_cleanup_json_ struct json_object *doc = json_object_new_object();
	struct json_object *arr = json_object_new_array();
	bool changes = false;
	int r;

	if (!doc) {
		json_object_put(arr);
		return -ENOMEM;
	}
	r = json_put(doc, "pfs", arr);
	for (size_t i = 0; r >= 0 && i < v->n_pfs; i++) {
		struct json_object *o = json_object_new_object();

		changes |= v->pfs[i].plan && v->pfs[i].plan->n_actions > 0;
		r = json_append(arr, o);
		if (r >= 0)
			r = pf_plan_fill(o, v, &v->pfs[i], runtime_dir);
	}
	if (r >= 0)
		r = json_put_bool(doc, "changes", changes);
	if (r < 0)
		return r;
	*ret = TAKE_PTR(doc);
	return 0;
}
