/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* A VF's "layout" column: the layouts against the host VF and the plan. */

#include <inttypes.h>
#include <stdio.h>

#include "drivers.h"
#include "report-vf.h"
#include "setting-row.h"

/* What the layouts say of VF i, or NULL when they say nothing or the PF
 * is held: it applies nothing, so it wants nothing either. */
const struct vf_settings *report_desired_vf(const struct pf_view *pv, uint32_t i)
{
	return pv->desired && !pv->desired->held && i < pv->desired->n_vfs ? &pv->desired->vfs[i] :
									     NULL;
}

/* The driver the layout wants on VF i, or NULL when it leaves the driver
 * alone (or the kernel's default is not known). */
static const char *wanted_driver(const struct pf_view *pv, uint32_t i)
{
	const struct vf_settings *v = report_desired_vf(pv, i);

	if (!v || !vf_settings_has(v, VF_KEY_DRIVER))
		return NULL;
	return v->attrs.driver ?: pv->pf->vf_driver;
}

/* "driver iavf (wanted vfio-pci)", "no driver bound (wanted iavf)" */
static void describe_driver(FILE *f, const struct vf_state *vf, const char *want)
{
	if (vf->attrs.driver)
		fprintf(f, " driver %s (wanted %s)", vf->attrs.driver, strna(want));
	else
		fprintf(f, " no driver bound (wanted %s)", strna(want));
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
			/* a value the host never set as the VF table shows it, "-" */
			fprintf(f, "%s%s %s (wanted %s)", sep, vf_key_to_label(k),
				vf_attrs_format_host(&vf->attrs, k, VF_SPELLING_STATUS, now) ?: "-",
				vf_attrs_format(&a->attrs, k, VF_SPELLING_STATUS, want));
			sep = ", ";
		}
	} else if (a->type == ACTION_SET_VF_MTU) {
		fprintf(f, " mtu %s (wanted %u)",
			vf_attrs_format_host(&vf->attrs, VF_KEY_MTU, VF_SPELLING_STATUS, now) ?:
												"-",
			a->value);
	} else if (a->type == ACTION_SET_REPRESENTOR_UP) {
		fprintf(f, " representor %s (wanted up)", vf->representor_up ? "up" : "down");
	} else if (a->type == ACTION_BIND_VF) {
		describe_driver(f, vf, a->str ?: pv->pf->vf_driver ?: "default");
	} else {
		d = action_describe(a);
		s = d ? strchr(d, ':') : NULL;
		fprintf(f, "%s", s ? s + 1 : " yes");
	}
}

/* Whether action a is on vf and says what differs (plan_vf_action_differs()). */
static bool is_vf_change(const struct pf_view *pv, const struct action *a,
			 const struct vf_state *vf)
{
	return action_type_on_vf(a->type) && a->vf == vf->index &&
	       plan_vf_action_differs(a, pv->pf, vf);
}

/* The VF count the plan sets last, or -1 when it leaves the count. */
int64_t report_planned_num_vfs(const struct plan *p)
{
	for (size_t i = p->n_actions; i > 0; i--)
		if (p->actions[i - 1].type == ACTION_SET_NUM_VFS)
			return p->actions[i - 1].value;
	return -1;
}

/* The keys (1u << enum vf_key) whose difference action a on vf shows. */
static uint32_t action_vf_keys(const struct action *a, const struct vf_state *vf)
{
	if (a->type == ACTION_SET_VF)
		return a->keys;
	if (a->type == ACTION_SET_VF_MTU)
		return VF_KEY_BIT(MTU);
	/* a VF on no driver gets its RDMA device, if any, with the bind */
	if (a->type == ACTION_BIND_VF)
		return VF_KEY_BIT(DRIVER) | (vf->attrs.driver ? 0 : VF_KEY_BIT(RDMA));
	return 0; /* the other actions set no VF key */
}

/* Key k of vf against what v wants: "trust off (wanted on)", "driver iavf
 * (wanted vfio-pci)", "no RDMA device". */
static void describe_key_change(FILE *f, const struct pf_view *pv, const struct vf_state *vf,
				const struct vf_settings *v, enum vf_key k)
{
	char now[VF_ATTR_STR_MAX], want[VF_ATTR_STR_MAX];

	if (k == VF_KEY_DRIVER)
		describe_driver(f, vf, wanted_driver(pv, vf->index));
	else if (k == VF_KEY_RDMA)
		fputs(" no RDMA device", f);
	else
		fprintf(f, " %s %s (wanted %s)", vf_key_to_label(k),
			vf_attrs_format_host(&vf->attrs, k, VF_SPELLING_STATUS, now) ?: "-",
			vf_attrs_format(&v->attrs, k, VF_SPELLING_STATUS, want));
}

/* The VF keys the port takes only once the link type a layout set in the
 * firmware is in effect, after a reboot (the GUIDs of a port becoming
 * InfiniBand): what the port will set, less what it sets now. An MTU
 * waits only where the port as it runs now does not take it
 * (mtu_after_reboot()). */
static uint32_t keys_after_reboot(const struct pf_view *pv)
{
	const struct pf_settings *s = &pv->desired->pf;
	const struct driver_info *drv = driver_info_get(pv->pf->driver);
	bool ib_now = pv->pf->link_type == LINK_TYPE_INFINIBAND;

	if (!pf_settings_has(s, PF_KEY_LINK_TYPE) || s->link_type == pv->pf->link_type)
		return 0;
	return driver_vf_attrs(drv, !ib_now) & ~driver_vf_attrs(drv, ib_now);
}

/* The MTU of v when it waits for that link type too: beyond what the port
 * takes as it runs now (plan_mtu_waits_link_type()). */
static uint32_t mtu_after_reboot(const struct pf_view *pv, const struct vf_settings *v)
{
	return v && vf_settings_has(v, VF_KEY_MTU) &&
			       plan_mtu_waits_link_type(pv->desired, pv->pf, v->attrs.mtu) ?
		       VF_KEY_BIT(MTU) :
		       0;
}

/* "; after a reboot: node_guid 2e:38:... (LinkType=infiniband takes effect
 * after a reboot)", "after a reboot: mac stable (LinkType=ethernet ...)":
 * the keys of v that wait for the link type. */
static bool describe_after_reboot(FILE *f, const struct pf_view *pv, const struct vf_settings *v,
				  uint32_t keys, bool any)
{
	char want[VF_ATTR_STR_MAX];
	const char *sep = any ? "; after a reboot:" : "after a reboot:";

	for (enum vf_key k = 0; k < _VF_KEY_MAX; k++) {
		if (!(keys & (1u << k)))
			continue;
		fprintf(f, "%s %s %s", sep, vf_key_to_label(k),
			vf_settings_is_stable(v, k) ?
				"stable" :
				vf_attrs_format(&v->attrs, k, VF_SPELLING_STATUS, want));
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
 * nothing differs, prefix alone, "ok" without one. The bind of a VF whose
 * recreation loses its driver (a layout that needs a network interface
 * gets the VF the default driver) is not said again: prefix says it
 * ("without its driver vfio-pci"). */
static void vf_differences(FILE *f, const struct pf_view *pv, const struct vf_state *vf,
			   const char *prefix)
{
	const struct vf_settings *v = report_desired_vf(pv, vf->index);
	uint32_t shown = 0, rest, later;
	bool any = false, driver_lost;

	driver_lost = pv->plan->recreates && vf->index < pv->plan->n_lost &&
		      (pv->plan->lost[vf->index] & VF_KEY_BIT(DRIVER));
	fputs(prefix, f);
	for (size_t i = 0; i < pv->plan->n_actions; i++) {
		if (!is_vf_change(pv, &pv->plan->actions[i], vf))
			continue;
		if (driver_lost && pv->plan->actions[i].type == ACTION_BIND_VF) {
			shown |= action_vf_keys(&pv->plan->actions[i], vf);
			continue;
		}
		fputs(any ? ";" : *prefix ? "; differs:" : "differs:", f);
		describe_vf_change(f, pv, vf, &pv->plan->actions[i]);
		shown |= action_vf_keys(&pv->plan->actions[i], vf);
		any = true;
	}
	rest = v ? vf_settings_differ(vf, v, pv->pf->vf_driver) & ~shown : 0;
	/* a stable value made only after the reboot (the MAC of a port
	 * becoming Ethernet, desired-stable.c) is not derived yet */
	later = (rest | (v ? v->set & v->stable : 0)) & keys_after_reboot(pv);
	later |= rest & mtu_after_reboot(pv, v);
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

/* "to be recreated (VirtualFunctions=6)", "to be recreated by the eswitch
 * change to switchdev, without its vlan 33, trust on (no layout sets
 * them)" when the plan makes the VFs anew (plan_recreate_cause(), what vf
 * loses: plan_vf_lost_describe()); "" when it does not. NULL on ENOMEM. */
static char *recreate_prefix(const struct plan *p, const struct vf_state *vf)
{
	_cleanup_free_ char *cause = NULL, *lost = NULL;

	if (!p->recreates)
		return strdup("");
	cause = plan_recreate_cause(p);
	lost = plan_vf_lost_describe(p, vf);
	if (!cause || !lost)
		return NULL;
	return strdup_printf("to be recreated %s%s", cause, lost);
}

/* What the layouts make of host VF vf: "to be removed (VirtualFunctions=4)"
 * when the plan lowers the count below it; else vf_differences(), after
 * recreate_prefix() when the plan makes the VFs anew (the kernel makes all
 * VFs anew for a new count, ice for an eswitch mode change). Caller frees;
 * NULL on allocation failure. */
char *report_vf_drift(const struct pf_view *pv, const struct vf_state *vf)
{
	int64_t target = report_planned_num_vfs(pv->plan);
	_cleanup_fclose_ FILE *f = NULL;
	_cleanup_free_ char *prefix = NULL;
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
	prefix = recreate_prefix(pv->plan, vf);
	f = prefix ? open_memstream(&buf, &size) : NULL;
	if (!f)
		return NULL;
	vf_differences(f, pv, vf, prefix);
	if (fclose(TAKE_PTR(f)) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

char *report_missing_vf_fate(const struct pf_view *pv, uint32_t i, const char *fate)
{
	const struct vf_settings *v = report_desired_vf(pv, i);
	uint32_t later = v ? v->set & (keys_after_reboot(pv) | mtu_after_reboot(pv, v)) : 0;
	_cleanup_fclose_ FILE *f = NULL;
	char *buf = NULL;
	size_t size = 0;

	if (!later || !streq(fate, "to be created"))
		return strdup(fate);
	f = open_memstream(&buf, &size);
	if (!f)
		return NULL;
	fputs(fate, f);
	describe_after_reboot(f, pv, v, later, true);
	if (fclose(TAKE_PTR(f)) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}
