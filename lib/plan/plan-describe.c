/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* Plans as people read them, and their lifetime. */

#include "plan.h"
#include "setting-row.h"

/* One group of keys (vf_key_group) as "vlan 100 qos 3 802.1Q": ip-link(8)
 * names and values; a VLAN protocol names itself. */
static void describe_group(FILE *f, const struct vf_attrs *a, uint32_t group)
{
	const char *sep = "";
	char buf[VF_ATTR_STR_MAX];

	for (enum vf_key k = 0; k < _VF_KEY_MAX; k++) {
		if (!(group & (1u << k)))
			continue;
		vf_attrs_format(a, k, VF_SPELLING_IP, buf);
		if (k == VF_KEY_VLAN_PROTO)
			fprintf(f, "%s%s", sep, buf);
		else
			fprintf(f, "%s%s %s", sep, vf_key_to_ip_name(k), buf);
		sep = " ";
	}
}

/* "mac 02:..:01, vlan 100 qos 3 802.1Q, trust on, spoofchk off, ..." */
static void describe_attrs(FILE *f, const struct vf_attrs *a, uint32_t keys)
{
	const char *sep = "";
	uint32_t done = 0;

	for (enum vf_key k = 0; k < _VF_KEY_MAX; k++) {
		uint32_t group = vf_key_group(k);

		if (!(keys & (1u << k)) || (done & (1u << k)))
			continue;
		fputs(sep, f);
		describe_group(f, a, group);
		done |= group;
		sep = ", ";
	}
}

static char *describe_set_vf(const struct action *a)
{
	_cleanup_fclose_ FILE *f = NULL;
	char *buf = NULL;
	size_t size = 0;

	f = open_memstream(&buf, &size);
	if (!f)
		return NULL;
	fprintf(f, "VF %u: ", a->vf);
	describe_attrs(f, &a->attrs, a->keys);
	if (fclose(TAKE_PTR(f)) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

static char *describe_num_vfs(const struct action *a)
{
	if (a->value == 0)
		return strdup("remove all VFs");
	return strdup_printf("set %u VF%s", a->value, a->value == 1 ? "" : "s");
}

static char *describe_kernel_arguments(const struct action *a)
{
	if (a->value)
		return strdup_printf("add kernel arguments %s to the boot loader", strna(a->str));
	return strdup_printf("remove kernel arguments %s from the boot loader", strna(a->str));
}

char *action_describe(const struct action *a)
{
	switch (a->type) {
	case ACTION_LOAD_MODULE:
		return strdup_printf("load module %s", strna(a->str));
	case ACTION_SET_FIRMWARE_VFS:
		return strdup_printf("raise firmware VF limit to %u (reboot)", a->value);
	case ACTION_SET_LINK_TYPE:
		return strdup_printf("set firmware link type %s (reboot)",
				     strna(link_type_to_string((enum link_type)a->value)));
	case ACTION_SET_PF_MTU:
		return strdup_printf("set PF mtu %u", a->value);
	case ACTION_SET_PF_UP:
		return strdup("set PF link up");
	case ACTION_SET_AUTOPROBE:
		return strdup_printf("set VF driver autoprobe %s", on_off(a->value));
	case ACTION_SET_NUM_VFS:
		return describe_num_vfs(a);
	case ACTION_SET_ESWITCH_MODE:
		return strdup_printf("set eswitch mode %s",
				     strna(eswitch_mode_to_string((enum eswitch_mode)a->value)));
	case ACTION_SET_HW_TC_OFFLOAD:
		return strdup_printf("set hw-tc-offload %s", on_off(a->value));
	case ACTION_UNBIND_VF:
		return a->why ? strdup_printf("VF %u: unbind (%s)", a->vf, a->why) :
				strdup_printf("VF %u: unbind", a->vf);
	case ACTION_SET_VF:
		return describe_set_vf(a);
	case ACTION_BIND_VF:
		return strdup_printf("VF %u: bind %s", a->vf, a->str ?: "default driver");
	case ACTION_SET_VF_MTU:
		return strdup_printf("VF %u: mtu %u", a->vf, a->value);
	case ACTION_SET_REPRESENTOR_UP:
		return strdup_printf("VF %u: set representor up", a->vf);
	case ACTION_SET_RDMA_NETNS_MODE:
		return strdup_printf(
			"set RDMA netns mode %s",
			strna(rdma_netns_mode_to_string((enum rdma_netns_mode)a->value)));
	case ACTION_SET_KERNEL_ARGUMENTS:
		return describe_kernel_arguments(a);
	case ACTION_FIRMWARE_RESET:
		return strdup("firmware reset of the card (its next-boot settings in force, "
			      "the VFs of all its PFs removed)");
	case _ACTION_TYPE_MAX:
	case _ACTION_TYPE_INVALID:
		break;
	}
	return strdup_printf("unknown action %d", (int)a->type);
}

bool plan_is_disruptive(const struct plan *p)
{
	for (size_t i = 0; i < p->n_actions; i++)
		if (p->actions[i].disruptive)
			return true;
	return false;
}

const char *plan_external_vfs_unconfigured(const struct plan *p, const struct pf_desired *d)
{
	const struct pf_settings *s = &d->pf;

	if (!(pf_settings_externally_managed(s) && pf_settings_has(s, PF_KEY_VIRTUAL_FUNCTIONS)))
		return NULL;
	for (size_t i = 0; i < p->n_actions; i++)
		if (action_type_on_vf(p->actions[i].type))
			return "VFs that another tool made (anew, or changed) since the last apply are "
			       "not configured yet";
	return NULL;
}

struct plan *plan_free(struct plan *p)
{
	if (!p)
		return NULL;
	for (size_t i = 0; i < p->n_actions; i++)
		action_done(&p->actions[i]);
	free(p->actions);
	strv_free(p->reboot_reasons);
	strv_free(p->reboot_planned);
	strv_free(p->unmet);
	strv_free(p->waiting);
	strv_free(p->notes);
	strv_free(p->dropped);
	free(p->lost);
	free(p);
	return NULL;
}

/* What the host has now for what a: changes, or NULL when that says nothing
 * more (loading a module, setting the PF up). */
static char *describe_now(const struct action *a, const struct pf_state *pf)
{
	const struct vf_state *vf = a->vf < pf->n_vfs ? &pf->vfs[a->vf] : NULL;
	_cleanup_free_ char *d = NULL;
	struct action now;

	switch (a->type) {
	case ACTION_SET_NUM_VFS:
		return strdup_printf("%u", pf->num_vfs);
	case ACTION_SET_PF_MTU:
		return strdup_printf("%u", pf->mtu);
	case ACTION_SET_ESWITCH_MODE:
		return strdup(strna(eswitch_mode_to_string(pf->eswitch_mode)));
	case ACTION_SET_VF:
		if (!vf)
			return NULL;
		now = *a;
		now.attrs = vf->attrs;
		d = describe_set_vf(&now);
		return d && strchr(d, ':') ? strdup(strchr(d, ':') + 2) : NULL;
	case ACTION_BIND_VF:
	case ACTION_UNBIND_VF:
		return vf ? strdup(vf->attrs.driver ?: "no driver") : NULL;
	case ACTION_SET_VF_MTU:
		return vf ? strdup_printf("%u", vf->attrs.mtu) : NULL;
	case ACTION_SET_REPRESENTOR_UP:
		return vf && vf->representor ? strdup(vf->representor_up ? "up" : "down") : NULL;
	case ACTION_SET_HW_TC_OFFLOAD:
		return strdup(on_off(pf->hw_tc_offload));
	case ACTION_LOAD_MODULE:
	case ACTION_SET_FIRMWARE_VFS:
	case ACTION_SET_LINK_TYPE:
	case ACTION_SET_PF_UP:
	case ACTION_SET_AUTOPROBE:
	case ACTION_SET_RDMA_NETNS_MODE:
	case ACTION_SET_KERNEL_ARGUMENTS:
	case ACTION_FIRMWARE_RESET:
	case _ACTION_TYPE_MAX:
	case _ACTION_TYPE_INVALID:
		break;
	}
	return NULL;
}

char *action_describe_drift(const struct action *a, const struct pf_state *pf)
{
	_cleanup_free_ char *want = action_describe(a), *now = NULL;

	if (!want)
		return NULL;
	now = describe_now(a, pf);
	if (!now)
		return TAKE_PTR(want);
	return strdup_printf("%s (now %s)", want, now);
}

/* Whether a later action of p is of the same kind as action i: the value
 * the plan leaves is that one's. */
static bool replaced_later(const struct plan *p, size_t i)
{
	for (size_t j = i + 1; j < p->n_actions; j++)
		if (p->actions[j].type == p->actions[i].type)
			return true;
	return false;
}

int plan_describe_difference(const struct plan *p, size_t i, const struct pf_state *pf, char **ret)
{
	const struct action *a = &p->actions[i];
	char *d;

	*ret = NULL;
	switch (a->type) {
	case ACTION_SET_AUTOPROBE:
		if (replaced_later(p, i) || !!a->value == pf->drivers_autoprobe)
			return 0;
		d = strdup_printf("VF driver autoprobe %s (wanted %s)",
				  on_off(pf->drivers_autoprobe), on_off(a->value));
		break;
	case ACTION_SET_NUM_VFS:
		/* the count made again as it is (for an eswitch change on ice):
		 * the eswitch mode is what differs */
		if (replaced_later(p, i) || a->value == pf->num_vfs)
			return 0;
		d = strdup_printf("%u VFs wanted, %u present", a->value, pf->num_vfs);
		break;
	case ACTION_SET_FIRMWARE_VFS:
		/* what the host has and wants, not the step */
		d = pf->firmware_total_vfs >= 0 ?
			    strdup_printf("firmware VF limit %d (wanted %u; raising it needs a "
					  "reboot)",
					  pf->firmware_total_vfs, a->value) :
			    strdup_printf("firmware VF limit unknown (wanted %u; raising it needs "
					  "a reboot)",
					  a->value);
		break;
	default:
		d = action_describe_drift(a, pf);
		break;
	}
	if (!d)
		return -ENOMEM;
	*ret = d;
	return 0;
}

/* Whether the plan changes the VF count: every VF is made anew with it. */
static bool count_changes(const struct plan *p, const struct pf_state *pf)
{
	for (size_t i = 0; i < p->n_actions; i++)
		if (p->actions[i].type == ACTION_SET_NUM_VFS && p->actions[i].value != pf->num_vfs)
			return true;
	return false;
}

bool plan_vf_action_differs(const struct action *a, const struct pf_state *pf,
			    const struct vf_state *vf)
{
	switch (a->type) {
	case ACTION_UNBIND_VF:
		return false;
	case ACTION_BIND_VF:
		return !(vf->attrs.driver && module_name_equal(a->str ?: "", vf->attrs.driver));
	case ACTION_SET_REPRESENTOR_UP:
		/* only a PF in switchdev mode has representors to judge; before,
		 * the eswitch mode differs, and the PF's line says so */
		return pf->has_eswitch && pf->eswitch_mode == ESWITCH_MODE_SWITCHDEV &&
		       vf->representor && !vf->representor_up;
	case ACTION_SET_VF_MTU:
		return vf_mtu_comparable(vf) && vf->attrs.mtu != a->value;
	case ACTION_SET_VF:
		for (enum vf_key k = 0; k < _VF_KEY_MAX; k++)
			if ((a->keys & (1u << k)) && !vf_attrs_equal(&vf->attrs, &a->attrs, k))
				return true;
		return false;
	case ACTION_LOAD_MODULE:
	case ACTION_SET_FIRMWARE_VFS:
	case ACTION_SET_LINK_TYPE:
	case ACTION_SET_PF_MTU:
	case ACTION_SET_PF_UP:
	case ACTION_SET_AUTOPROBE:
	case ACTION_SET_NUM_VFS:
	case ACTION_SET_ESWITCH_MODE:
	case ACTION_SET_HW_TC_OFFLOAD:
	case ACTION_SET_RDMA_NETNS_MODE:
	case ACTION_SET_KERNEL_ARGUMENTS:
	case ACTION_FIRMWARE_RESET:
	case _ACTION_TYPE_MAX:
	case _ACTION_TYPE_INVALID:
		break;
	}
	return true;
}

/* The VFs a count change makes again (those present, as many as it
 * keeps), as what a repair does: the drift is said before any repair, and
 * where none follows ([Drift] Mode=report, a deferral). */
static const char count_again_one[] = " (a repair makes VF 0 again with it)",
		  count_again_from[] = " (a repair makes VFs 0-",
		  count_again_to[] = " again with it)";

static int describe_count_drift(const struct action *a, const struct pf_state *pf, char **ret)
{
	uint32_t again = a->value < pf->num_vfs ? a->value : pf->num_vfs;

	if (again == 0)
		*ret = strdup_printf("%u VFs wanted, %u present", a->value, pf->num_vfs);
	else if (again == 1)
		*ret = strdup_printf("%u VFs wanted, %u present%s", a->value, pf->num_vfs,
				     count_again_one);
	else
		*ret = strdup_printf("%u VFs wanted, %u present%s%u%s", a->value, pf->num_vfs,
				     count_again_from, again - 1, count_again_to);
	return *ret ? 0 : -ENOMEM;
}

/* One line of plan_describe_drift() as an apply that ran says it. */
static char *drift_line_repaired(const char *line)
{
	const char *from = strstr(line, count_again_from);
	unsigned last;
	int end = 0;

	if (endswith(line, count_again_one))
		return strdup_printf("%.*s (VF 0 was made again with it)",
				     (int)(strlen(line) - strlen(count_again_one)), line);
	if (from && sscanf(from + strlen(count_again_from), "%u%n", &last, &end) == 1 &&
	    streq(from + strlen(count_again_from) + end, count_again_to))
		return strdup_printf("%.*s (VFs 0-%u were made again with it)", (int)(from - line),
				     line, last);
	return strdup(line);
}

char **plan_drift_repaired(char *const *drift)
{
	_cleanup_strv_free_ char **l = calloc(1, sizeof(char *));

	for (size_t i = 0; l && drift && drift[i]; i++)
		if (strv_consume(&l, drift_line_repaired(drift[i])) < 0)
			return NULL;
	return TAKE_PTR(l);
}

/* A VF action that says what drifted: not on a VF the count change makes
 * (a new one, or, when its values differ from what the layout sets, one
 * made again), nor one that is the means of another (plan_vf_action_differs()). */
static bool vf_drifted(const struct action *a, const struct pf_state *pf, bool recreated)
{
	if (a->vf >= pf->n_vfs || (recreated && a->type != ACTION_SET_VF))
		return false;
	return plan_vf_action_differs(a, pf, &pf->vfs[a->vf]);
}

char **plan_describe_drift(const struct plan *p, const struct pf_state *pf)
{
	_cleanup_strv_free_ char **l = calloc(1, sizeof(char *));
	bool recreated = count_changes(p, pf);

	for (size_t i = 0; l && i < p->n_actions; i++) {
		const struct action *a = &p->actions[i];
		char *d = NULL;
		int r;

		if (action_type_on_vf(a->type) && !vf_drifted(a, pf, recreated))
			continue;
		if (a->type == ACTION_SET_NUM_VFS && !replaced_later(p, i) &&
		    a->value != pf->num_vfs)
			r = describe_count_drift(a, pf, &d);
		else
			r = plan_describe_difference(p, i, pf, &d);
		if (r < 0 || (d && strv_consume(&l, d) < 0))
			return NULL;
	}
	return TAKE_PTR(l);
}
