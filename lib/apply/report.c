/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* The status and plan documents. Field names and order are what `sriovctl
 * status --json` and `sriovctl plan --json` have always printed: scripts
 * parse them, and the daemon returns the same. */

#include <inttypes.h>

#include "drivers.h"
#include "json-util.h"
#include "match.h"
#include "report-gone.h"
#include "report.h"
#include "setting-row.h"
#include "snapshot.h"
#include "status.h"

/* ---- building objects; each helper returns 0 or -ENOMEM ---- */

/* Takes v, also on failure; v == NULL is an allocation failure. */
static int put(struct json_object *o, const char *key, struct json_object *v)
{
	if (!v)
		return -ENOMEM;
	if (json_object_object_add(o, key, v) < 0) {
		json_object_put(v);
		return -ENOMEM;
	}
	return 0;
}

static int put_null(struct json_object *o, const char *key)
{
	return json_object_object_add(o, key, NULL) < 0 ? -ENOMEM : 0;
}

/* s == NULL: JSON null */
static int put_str(struct json_object *o, const char *key, const char *s)
{
	return s ? put(o, key, json_object_new_string(s)) : put_null(o, key);
}

static int put_int(struct json_object *o, const char *key, int64_t i)
{
	return put(o, key, json_object_new_int64(i));
}

static int put_u64(struct json_object *o, const char *key, uint64_t u)
{
	return put(o, key, json_object_new_uint64(u));
}

static int put_bool(struct json_object *o, const char *key, bool b)
{
	return put(o, key, json_object_new_boolean(b));
}

/* Takes v, also on failure. */
static int append(struct json_object *a, struct json_object *v)
{
	if (!v)
		return -ENOMEM;
	if (json_object_array_add(a, v) < 0) {
		json_object_put(v);
		return -ENOMEM;
	}
	return 0;
}

/* ---- the status document ---- */

/* What a PF's status is, from the layouts, the host and the last record. */
struct pf_report {
	/* unconfigured, held, failed, deferred, degraded, drifted, pending, applied */
	const char *state;
	const char *why;
	char *why_owned; /* why, when it was made here */
	struct pf_status rec;
	bool has_rec;
};

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

/* For a PF no layout selects: what a removed layout left ("4 VFs left from
 * a removed layout"), or, when the record says sriov-persist created VFs
 * that are not there as it left them, what a reset finds instead ("2 VF(s)
 * exist, but not the 4 sriov-persist created (...); left as they are");
 * NULL (with 0) for neither, or a record that cannot be read. */
static int unconfigured_why(const char *state_dir, const struct pf_state *pf, char **ret)
{
	struct pf_created c;
	char *why = NULL;
	int r;

	r = pf_created_left(state_dir, pf, &c);
	if (r > 0)
		why = pf_created_describe(&c);
	else if (r == 0 && state_dir && pf_created_read(state_dir, pf->pci, &c) >= 0) {
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
	if ((pf->driver && pf->name) || !layout_set_may_select(v->set, pf, v->hs->hostname))
		return NULL;
	return pf->driver ? "no netdev yet: a layout may select it once it has one (sriovctl "
			    "wait waits for it)" :
			    "no driver yet: a layout may select it once one is bound (sriovctl "
			    "wait waits for it)";
}

static int report_unconfigured(const struct host_view *v, const struct pf_view *pv,
			       const char *state_dir, struct pf_report *r)
{
	const char *unsettled = unsettled_why(v, pv->pf);
	char *left;

	r->state = "unconfigured";
	if (unconfigured_why(state_dir, pv->pf, &left) < 0)
		return -ENOMEM;
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
	if (p->waiting[0])
		why = strv_join(p->waiting, "; ");
	else if (applied && p->reboot_reasons[0])
		why = strv_join(p->reboot_reasons, "; ");
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

static int report_pf(const struct host_view *v, const struct pf_view *pv, const char *runtime_dir,
		     const char *state_dir, struct pf_report *ret)
{
	struct pf_report r = { .state = "applied" };

	if (report_layout(v, pv, state_dir, &r) < 0)
		return -ENOMEM;
	r.has_rec = pf_status_read(runtime_dir, pv->pf->pci, &r.rec) >= 0;
	/* A reset that failed or waits for the policy says so, not "unconfigured". */
	if (!pv->desired && r.why && r.has_rec &&
	    (r.rec.state == PF_STATUS_FAILED || r.rec.state == PF_STATUS_DEFERRED) && r.rec.error) {
		r.state = pf_status_state_to_string(r.rec.state);
		r.why = r.rec.error;
	}
	if (pv->plan && pv->plan->n_actions > 0) {
		bool ok = r.has_rec && r.rec.state == PF_STATUS_APPLIED;

		/* Drift: it was applied, and now the host differs again. */
		r.state = ok	     ? "drifted" :
			  !r.has_rec ? "pending" :
				       pf_status_state_to_string(r.rec.state);
		r.why = ok ? NULL : r.has_rec ? r.rec.error : "not applied yet";
		if (ok) {
			int k = drift_beyond_vfs(pv, &r.why_owned);

			if (k < 0)
				return k;
			r.why = r.why_owned;
		}
	}
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

/* What the layouts say of VF i, or NULL when they say nothing. */
static const struct vf_settings *desired_vf(const struct pf_view *pv, uint32_t i)
{
	return pv->desired && i < pv->desired->n_vfs ? &pv->desired->vfs[i] : NULL;
}

/* The driver the layout wants on VF i, or NULL when it leaves the driver
 * alone (or the kernel's default is not known). */
static const char *wanted_driver(const struct pf_view *pv, uint32_t i)
{
	const struct vf_settings *v = desired_vf(pv, i);

	if (!v || !vf_settings_has(v, VF_KEY_DRIVER))
		return NULL;
	return v->attrs.driver ?: pv->pf->vf_driver;
}

/* What one action on vf changes, as "what the host has (wanted what)":
 * "max_tx_rate 0 (wanted 2000)", "mtu 1500 (wanted 9000)", "driver iavf
 * (wanted vfio-pci)", "representor down (wanted up)"; for an action
 * without such a value, its description. */
static void describe_vf_change(FILE *f, const struct pf_view *pv, const struct vf_state *vf,
			       const struct action *a)
{
	char now[VF_ATTR_STR_MAX], want[VF_ATTR_STR_MAX];
	_cleanup_free_ char *d = NULL;
	const char *s;

	if (a->type == ACTION_SET_VF) {
		const char *sep = " ";

		for (enum vf_key k = 0; k < _VF_KEY_MAX; k++) {
			if (!(a->keys & (1u << k)) || vf_attrs_equal(&vf->attrs, &a->attrs, k))
				continue;
			fprintf(f, "%s%s %s (wanted %s)", sep, vf_key_to_label(k),
				vf_attrs_format(&vf->attrs, k, VF_SPELLING_IP, now),
				vf_attrs_format(&a->attrs, k, VF_SPELLING_IP, want));
			sep = ", ";
		}
	} else if (a->type == ACTION_SET_VF_MTU) {
		fprintf(f, " mtu %s (wanted %u)",
			vf_attrs_format_host(&vf->attrs, VF_KEY_MTU, VF_SPELLING_IP, now) ?: "-",
			a->value);
	} else if (a->type == ACTION_SET_REPRESENTOR_UP) {
		fprintf(f, " representor %s (wanted up)", vf->representor_up ? "up" : "down");
	} else if (a->type == ACTION_BIND_VF) {
		fprintf(f, " driver %s (wanted %s)", vf->attrs.driver ?: "none",
			a->str			  ?:
				pv->pf->vf_driver ?:
						    "default");
	} else {
		d = action_describe(a);
		s = d ? strchr(d, ':') : NULL;
		fprintf(f, "%s", s ? s + 1 : " yes");
	}
}

/* Whether action a is on vf and says what differs: an unbind, a bind
 * back to the driver the VF is on (the rebind after a MAC or GUID), or an
 * MTU the VF has or has none to compare with, is the means, not the
 * difference. */
static bool is_vf_change(const struct action *a, const struct vf_state *vf)
{
	if (!action_type_on_vf(a->type) || a->vf != vf->index || a->type == ACTION_UNBIND_VF)
		return false;
	if (a->type == ACTION_BIND_VF)
		return !(vf->attrs.driver && module_name_equal(a->str ?: "", vf->attrs.driver));
	/* no representor yet (not in switchdev): the eswitch mode differs, the
	 * PF's line says so */
	if (a->type == ACTION_SET_REPRESENTOR_UP)
		return vf->representor != NULL;
	/* an MTU set after a bind, on a VF without a netdev, is the means of
	 * the bind; on one with a netdev, a change only where it differs */
	if (a->type == ACTION_SET_VF_MTU)
		return vf_mtu_comparable(vf) && vf->attrs.mtu != a->value;
	/* a recreated VF gets its values again: a change only where they differ */
	if (a->type == ACTION_SET_VF)
		for (enum vf_key k = 0; k < _VF_KEY_MAX; k++)
			if ((a->keys & (1u << k)) && !vf_attrs_equal(&vf->attrs, &a->attrs, k))
				return true;
	return a->type != ACTION_SET_VF;
}

/* The VF count the plan sets last, or -1 when it leaves the count. */
static int64_t planned_num_vfs(const struct plan *p)
{
	for (size_t i = p->n_actions; i > 0; i--)
		if (p->actions[i - 1].type == ACTION_SET_NUM_VFS)
			return p->actions[i - 1].value;
	return -1;
}

/* The keys (1u << enum vf_key) whose difference action a shows. */
static uint32_t action_vf_keys(const struct action *a)
{
	if (a->type == ACTION_SET_VF)
		return a->keys;
	if (a->type == ACTION_SET_VF_MTU)
		return VF_KEY_BIT(MTU);
	if (a->type == ACTION_BIND_VF)
		return VF_KEY_BIT(DRIVER);
	return 0; /* the other actions set no VF key */
}

/* Key k of vf against what v wants: "trust off (wanted on)", "driver iavf
 * (wanted vfio-pci)", "no RDMA device". */
static void describe_key_change(FILE *f, const struct pf_view *pv, const struct vf_state *vf,
				const struct vf_settings *v, enum vf_key k)
{
	char now[VF_ATTR_STR_MAX], want[VF_ATTR_STR_MAX];

	if (k == VF_KEY_DRIVER)
		fprintf(f, " driver %s (wanted %s)", vf->attrs.driver ?: "none",
			wanted_driver(pv, vf->index));
	else if (k == VF_KEY_RDMA)
		fputs(" no RDMA device", f);
	else
		fprintf(f, " %s %s (wanted %s)", vf_key_to_label(k),
			vf_attrs_format_host(&vf->attrs, k, VF_SPELLING_IP, now) ?: "none",
			vf_attrs_format(&v->attrs, k, VF_SPELLING_IP, want));
}

/* The VF keys the port takes only once the link type a layout set in the
 * firmware is in effect, after a reboot (the GUIDs of a port becoming
 * InfiniBand): what the port will set, less what it sets now. */
static uint32_t keys_after_reboot(const struct pf_view *pv)
{
	const struct pf_settings *s = &pv->desired->pf;
	const struct driver_info *drv = driver_info_get(pv->pf->driver);
	bool ib_now = pv->pf->link_type == LINK_TYPE_INFINIBAND;

	if (!pf_settings_has(s, PF_KEY_LINK_TYPE) || s->link_type == pv->pf->link_type)
		return 0;
	return driver_vf_attrs(drv, !ib_now) & ~driver_vf_attrs(drv, ib_now);
}

/* "; after a reboot: node_guid 2e:38:... (LinkType=infiniband takes effect
 * after a reboot)": the keys of v that wait for the link type. */
static bool describe_after_reboot(FILE *f, const struct pf_view *pv, const struct vf_settings *v,
				  uint32_t keys, bool any)
{
	char want[VF_ATTR_STR_MAX];
	const char *sep = any ? "; after a reboot:" : "after a reboot:";

	for (enum vf_key k = 0; k < _VF_KEY_MAX; k++) {
		if (!(keys & (1u << k)))
			continue;
		fprintf(f, "%s %s %s", sep, vf_key_to_label(k),
			vf_attrs_format(&v->attrs, k, VF_SPELLING_IP, want));
		sep = ",";
	}
	if (!keys)
		return any;
	fprintf(f, " (LinkType=%s takes effect after a reboot)",
		link_type_to_string(pv->desired->pf.link_type));
	return true;
}

/* Into f after prefix: "differs: ..." with each action on vf as what the host has and
 * what is wanted (describe_vf_change()), then every other key whose value
 * on the host differs from what the layouts want (a VF that is not on the
 * driver its layout asks for and that no action will move, as with
 * vfio-pci without an IOMMU; a VF without the RDMA device RDMA=yes asks
 * for; a key the plan sets only after recreating the VFs); or, when
 * nothing differs, prefix alone, "ok" without one. */
static void vf_differences(FILE *f, const struct pf_view *pv, const struct vf_state *vf,
			   const char *prefix)
{
	const struct vf_settings *v = desired_vf(pv, vf->index);
	uint32_t shown = 0, rest, later;
	bool any = false;

	fputs(prefix, f);
	for (size_t i = 0; i < pv->plan->n_actions; i++) {
		if (!is_vf_change(&pv->plan->actions[i], vf))
			continue;
		fputs(any ? ";" : *prefix ? "; differs:" : "differs:", f);
		describe_vf_change(f, pv, vf, &pv->plan->actions[i]);
		shown |= action_vf_keys(&pv->plan->actions[i]);
		any = true;
	}
	rest = v ? vf_settings_differ(vf, v, pv->pf->vf_driver) & ~shown : 0;
	later = rest & keys_after_reboot(pv);
	rest &= ~later;
	for (enum vf_key k = 0; k < _VF_KEY_MAX; k++) {
		if (!(rest & (1u << k)))
			continue;
		fputs(any ? ";" : *prefix ? "; differs:" : "differs:", f);
		describe_key_change(f, pv, vf, v, k);
		any = true;
	}
	if (later)
		any = describe_after_reboot(f, pv, v, later, any || *prefix);
	if (!any && !*prefix)
		fputs("ok", f);
}

/* What the layouts make of host VF vf: "to be removed (VirtualFunctions=4)"
 * when the plan lowers the count below it; else vf_differences(), after
 * "to be recreated (VirtualFunctions=6); " when the plan changes the count
 * (the kernel makes all VFs anew). Caller frees; NULL on allocation
 * failure. */
static char *vf_drift(const struct pf_view *pv, const struct vf_state *vf)
{
	int64_t target = planned_num_vfs(pv->plan);
	_cleanup_fclose_ FILE *f = NULL;
	char prefix[64] = "";
	char *buf = NULL;
	size_t size = 0;

	if (target >= 0 && vf->index >= target)
		return strdup_printf("to be removed (VirtualFunctions=%" PRId64 ")", target);
	if (pv->desired && pf_desired_has_extra_vfs(pv->desired, pv->pf) &&
	    vf->index >= pf_desired_num_vfs(pv->desired, pv->pf))
		return strdup_printf("left as it is: beyond VirtualFunctions=%u, %s",
				     pf_desired_num_vfs(pv->desired, pv->pf),
				     pv->pf->vfs_ours ?
					     "sriov-persist created it before "
					     "ExternallyManaged=yes (its record)" :
					     "another tool made it (ExternallyManaged=yes)");
	f = open_memstream(&buf, &size);
	if (!f)
		return NULL;
	if (target >= 0)
		snprintf(prefix, sizeof(prefix), "to be recreated (VirtualFunctions=%" PRId64 ")",
			 target);
	vf_differences(f, pv, vf, prefix);
	if (fclose(TAKE_PTR(f)) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* {"now": ..., "wanted": ..., "source": "file:line"}: what the host has
 * (null: nothing), what the layouts want (null: they leave it) and where
 * they say so. */
static int setting_put(struct json_object *all, const struct setting_row *row)
{
	_cleanup_json_ struct json_object *o = json_object_new_object();
	_cleanup_free_ char *at = NULL;

	if (!o || setting_row_source(row, &at) < 0 || put_str(o, "now", row->now) < 0 ||
	    put_str(o, "wanted", row->wanted) < 0 || put_str(o, "source", at) < 0)
		return -ENOMEM;
	return put(all, row->key, TAKE_PTR(o));
}

/* Every VF key of the table, by its layout name. */
static int vf_settings_put(struct json_object *o, const struct vf_state *vf,
			   const struct vf_settings *v)
{
	struct json_object *all = json_object_new_object();
	int r = put(o, "settings", all);

	for (enum vf_key k = 0; r >= 0 && k < _VF_KEY_MAX; k++) {
		struct setting_row row;

		vf_setting_row(vf, v, k, &row);
		r = setting_put(all, &row);
	}
	return r;
}

/* Every [PhysicalFunction] key, by its layout name. */
static int pf_settings_put(struct json_object *o, const struct pf_view *pv)
{
	const struct pf_settings *s = pv->desired ? &pv->desired->pf : NULL;
	struct json_object *all = json_object_new_object();
	int r = put(o, "settings", all);

	for (enum pf_key k = 0; r >= 0 && k < _PF_KEY_MAX; k++) {
		struct setting_row row;

		pf_setting_row(pv->pf, s, k, &row);
		r = setting_put(all, &row);
	}
	return r;
}

/* The host's value of every VF key the status document carries, by its
 * snapshot name and as the snapshot has it, null where the snapshot leaves
 * it out (a GUID never set); all null for a VF the host does not have
 * (a == NULL). */
static int vf_attrs_put(struct json_object *o, const struct vf_attrs *a)
{
	for (enum vf_key k = 0; k < _VF_KEY_MAX; k++) {
		struct vf_key_field kf;
		struct json_object *v = NULL;
		int r = 0;

		if (!vf_key_host_field(k, &kf) || !kf.in_status)
			continue;
		if (a)
			r = snapshot_vf_attr_format(a, k, &v);
		if (r < 0)
			return r;
		r = v ? put(o, kf.name, v) : put_null(o, kf.name);
		if (r < 0)
			return r;
	}
	return 0;
}

static int vf_fill(struct json_object *o, const struct vf_state *vf, const struct pf_view *pv)
{
	_cleanup_free_ char *drift = pv->plan ? vf_drift(pv, vf) : NULL;

	if ((pv->plan && !drift) || put_int(o, "index", vf->index) < 0 ||
	    put_str(o, "pci", vf->pci) < 0 || put_str(o, "name", vf->name) < 0 ||
	    vf_attrs_put(o, &vf->attrs) < 0 || put_str(o, "representor", vf->representor) < 0 ||
	    put_bool(o, "representor_up", vf->representor && vf->representor_up) < 0 ||
	    put_str(o, "layout", drift) < 0)
		return -ENOMEM;
	return vf_settings_put(o, vf, desired_vf(pv, vf->index));
}

static struct json_object *last_apply_json(const struct pf_status *st)
{
	_cleanup_json_ struct json_object *o = json_object_new_object();

	if (!o || put_str(o, "state", pf_status_state_to_string(st->state)) < 0 ||
	    put_str(o, "error", st->error) < 0 || put_u64(o, "finished_usec", st->finished) < 0 ||
	    put_int(o, "actions", st->n_actions) < 0 ||
	    put_u64(o, "started_usec", st->started) < 0 ||
	    put_u64(o, "host_usec", st->host_usec) < 0)
		return NULL;
	return TAKE_PTR(o);
}

/* A VF the layouts want that the host does not have yet: its index, what
 * becomes of it, and its settings; the host's fields are null. */
static int missing_vf_fill(struct json_object *o, const struct pf_view *pv, uint32_t i,
			   const char *what)
{
	if (put_int(o, "index", i) < 0 || put_null(o, "pci") < 0 || put_null(o, "name") < 0 ||
	    vf_attrs_put(o, NULL) < 0 || put_null(o, "representor") < 0 ||
	    put_null(o, "representor_up") < 0 || put_str(o, "layout", what) < 0)
		return -ENOMEM;
	return vf_settings_put(o, NULL, desired_vf(pv, i));
}

/* What becomes of VF i that the layouts want and the host does not have:
 * made by this plan, after the reboot that raises the firmware VF limit,
 * or by the tool ExternallyManaged=yes leaves them to; or not, as with a PF
 * on no driver. */
static const char *missing_vf_fate(const struct pf_view *pv, uint32_t i)
{
	const struct pf_settings *s = &pv->desired->pf;

	if (i < planned_num_vfs(pv->plan))
		return "to be created";
	if (pf_settings_externally_managed(s))
		return "not created yet (ExternallyManaged=yes: another tool makes the VFs)";
	if (pv->plan->reboot_reasons[0])
		return "to be created after a reboot";
	if (!pv->pf->driver)
		return "not created (no driver is bound to the PF)";
	return "not created";
}

static int vfs_put(struct json_object *o, const struct pf_view *pv)
{
	struct json_object *vfs = json_object_new_array();
	int r = put(o, "vfs", vfs);
	int64_t want = pv->desired && !pv->desired->held && pv->plan ?
			       pf_desired_num_vfs(pv->desired, pv->pf) :
			       0;

	for (size_t i = 0; r >= 0 && i < pv->pf->n_vfs; i++) {
		struct json_object *vf = json_object_new_object();

		r = append(vfs, vf);
		if (r >= 0)
			r = vf_fill(vf, &pv->pf->vfs[i], pv);
	}
	for (int64_t i = pv->pf->n_vfs; r >= 0 && i < want; i++) {
		struct json_object *vf = json_object_new_object();

		r = append(vfs, vf);
		if (r >= 0)
			r = missing_vf_fill(vf, pv, i, missing_vf_fate(pv, i));
	}
	return r;
}

static int pf_status_fill(struct json_object *o, const struct pf_view *pv,
			  const struct pf_report *r)
{
	const struct pf_state *pf = pv->pf;

	if (put_str(o, "pci", pf->pci) < 0 || put_str(o, "name", pf->name) < 0 ||
	    put_str(o, "driver", pf->driver) < 0 ||
	    put_str(o, "link_type", link_type_to_string(pf->link_type)) < 0 ||
	    (pf->speed ? put_int(o, "speed", pf->speed) : put_null(o, "speed")) < 0 ||
	    put_str(o, "state", r->state) < 0 || put_str(o, "reason", r->why) < 0 ||
	    put_int(o, "num_vfs", pf->num_vfs) < 0 || put_int(o, "total_vfs", pf->total_vfs) < 0 ||
	    (pv->desired && !pv->desired->held ?
		     put_int(o, "desired_num_vfs", pf_desired_num_vfs(pv->desired, pv->pf)) :
		     put_null(o, "desired_num_vfs")) < 0 ||
	    put(o, "config_files", json_strv(pv->desired ? pv->desired->config_files : NULL)) < 0 ||
	    put_int(o, "pending_actions", pv->plan ? (int64_t)pv->plan->n_actions : 0) < 0 ||
	    put(o, "pending_reboot_reasons",
		json_strv(pv->plan ? pv->plan->reboot_reasons : NULL)) < 0 ||
	    put(o, "waiting", json_strv(pv->plan ? pv->plan->waiting : NULL)) < 0 ||
	    (r->has_rec ? put(o, "last_apply", last_apply_json(&r->rec)) :
			  put_null(o, "last_apply")) < 0 ||
	    pf_settings_put(o, pv) < 0)
		return -ENOMEM;
	return vfs_put(o, pv);
}

static int pf_status_append(struct json_object *arr, const struct host_view *v,
			    const struct pf_view *pv, const char *runtime_dir,
			    const char *state_dir)
{
	struct json_object *o = json_object_new_object();
	struct pf_report rep;
	int r;

	r = append(arr, o);
	if (r >= 0)
		r = report_pf(v, pv, runtime_dir, state_dir, &rep);
	if (r < 0)
		return r;
	r = pf_status_fill(o, pv, &rep);
	if (rep.has_rec)
		pf_status_done(&rep.rec);
	free(rep.why_owned);
	return r;
}

/* PFs that were applied here and are gone (unplugged, driver unbound). */
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
		r = append(arr, o);
		why = report_gone_reason(&st);
		/* its last apply too: when it was last seen applied */
		if (r >= 0 &&
		    (!why || put_str(o, "pci", *p) < 0 || put_str(o, "name", st.name) < 0 ||
		     put_str(o, "state", "gone") < 0 || put_str(o, "reason", why) < 0 ||
		     put(o, "last_apply", last_apply_json(&st)) < 0))
			r = -ENOMEM;
		pf_status_done(&st);
	}
	return r;
}

int report_status(const struct host_view *v, const char *runtime_dir, const char *state_dir,
		  bool with_gone, struct json_object **ret)
{
	_cleanup_json_ struct json_object *doc = json_object_new_object();
	struct json_object *arr = json_object_new_array();
	int r;

	if (!doc) {
		json_object_put(arr);
		return -ENOMEM;
	}
	r = put(doc, "pfs", arr);
	for (size_t i = 0; r >= 0 && i < v->n_pfs; i++)
		r = pf_status_append(arr, v, &v->pfs[i], runtime_dir, state_dir);
	if (r >= 0 && with_gone)
		r = gone_append(arr, v, runtime_dir);
	if (r < 0)
		return r;
	*ret = TAKE_PTR(doc);
	return 0;
}

/* ---- the plan document ---- */

static struct json_object *action_json(const struct action *a)
{
	_cleanup_free_ char *d = action_describe(a);
	_cleanup_json_ struct json_object *o = json_object_new_object();

	if (!o || !d || put_str(o, "action", action_type_to_string(a->type)) < 0 ||
	    put_str(o, "description", d) < 0 || put_bool(o, "disruptive", a->disruptive) < 0 ||
	    put_bool(o, "needs_reboot", a->needs_reboot) < 0 ||
	    (action_type_on_vf(a->type) && put_int(o, "vf", a->vf) < 0))
		return NULL;
	return TAKE_PTR(o);
}

static int pf_plan_fill(struct json_object *o, const struct pf_view *pv)
{
	const struct pf_desired *d = pv->desired;
	const struct plan *p = pv->plan;
	struct json_object *acts = json_object_new_array();
	int r;

	if (put_str(o, "pci", pv->pf->pci) < 0 || put_str(o, "name", pv->pf->name) < 0 ||
	    put_bool(o, "configured", d) < 0 || put_bool(o, "held", d && d->held) < 0 ||
	    put_str(o, "held_reason", d && d->held ? strna(d->held_reason) : NULL) < 0 ||
	    put_bool(o, "disruptive", p && plan_is_disruptive(p)) < 0) {
		json_object_put(acts);
		return -ENOMEM;
	}
	r = put(o, "actions", acts);
	for (size_t i = 0; r >= 0 && p && i < p->n_actions; i++)
		r = append(acts, action_json(&p->actions[i]));
	if (r < 0 || put(o, "reboot_reasons", json_strv(p ? p->reboot_reasons : NULL)) < 0 ||
	    put(o, "unmet", json_strv(p ? p->unmet : NULL)) < 0 ||
	    put(o, "waiting", json_strv(p ? p->waiting : NULL)) < 0 ||
	    put(o, "notes", json_strv(p ? p->notes : NULL)) < 0 ||
	    put(o, "config_files", json_strv(d ? d->config_files : NULL)) < 0)
		return -ENOMEM;
	return 0;
}

int report_plan(const struct host_view *v, struct json_object **ret)
{
	_cleanup_json_ struct json_object *doc = json_object_new_object();
	struct json_object *arr = json_object_new_array();
	bool changes = false;
	int r;

	if (!doc) {
		json_object_put(arr);
		return -ENOMEM;
	}
	r = put(doc, "pfs", arr);
	for (size_t i = 0; r >= 0 && i < v->n_pfs; i++) {
		struct json_object *o = json_object_new_object();

		changes |= v->pfs[i].plan && v->pfs[i].plan->n_actions > 0;
		r = append(arr, o);
		if (r >= 0)
			r = pf_plan_fill(o, &v->pfs[i]);
	}
	if (r >= 0)
		r = put_bool(doc, "changes", changes);
	if (r < 0)
		return r;
	*ret = TAKE_PTR(doc);
	return 0;
}
