/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* What applying the layouts leaves on a PF, field by field: the value a
 * layout sets (with its file:line), else what the PF keeps (its own), else
 * what the kernel gives a VF made anew. The planner's own rules: the count
 * or eswitch mode changing makes the VFs anew, on the kernel's VF driver
 * (plan-pf.c). */

#include "sno-compare-internal.h"
#include "string-util.h"

void after_pf(const struct pf_desired *d, const struct pf_state *pf, struct after *ret)
{
	const struct pf_settings *s = &d->pf;
	struct after a = { .d = d, .pf = pf };

	a.num_vfs = pf_desired_num_vfs(d, pf);
	if (pf_settings_has(s, PF_KEY_VIRTUAL_FUNCTIONS))
		a.num_vfs_src = s->src[PF_KEY_VIRTUAL_FUNCTIONS];
	a.mtu = pf_settings_has(s, PF_KEY_MTU) ? s->mtu : pf->mtu;
	if (pf_settings_has(s, PF_KEY_MTU))
		a.mtu_src = s->src[PF_KEY_MTU];
	/* a PF without devlink eswitch is in legacy mode, as the operator says */
	a.eswitch_mode = pf->has_eswitch || pf_settings_has(s, PF_KEY_ESWITCH_MODE) ?
				 pf_desired_eswitch_mode(d, pf) :
				 ESWITCH_MODE_LEGACY;
	if (pf_settings_has(s, PF_KEY_ESWITCH_MODE))
		a.eswitch_src = s->src[PF_KEY_ESWITCH_MODE];
	a.link_type = pf_settings_has(s, PF_KEY_LINK_TYPE) ? s->link_type : pf->link_type;
	if (pf_settings_has(s, PF_KEY_LINK_TYPE))
		a.link_type_src = s->src[PF_KEY_LINK_TYPE];
	a.fresh = a.num_vfs != pf->num_vfs ||
		  (pf->has_eswitch && a.eswitch_mode != pf->eswitch_mode);
	a.num_vfs_kept = !pf_settings_has(s, PF_KEY_VIRTUAL_FUNCTIONS) &&
			 !pf_settings_externally_managed(s) && a.num_vfs > 0;
	a.mtu_kept = !pf_settings_has(s, PF_KEY_MTU) && a.mtu != KERNEL_DEFAULT_MTU &&
		     a.link_type == LINK_TYPE_ETHERNET;
	a.eswitch_kept = !pf_settings_has(s, PF_KEY_ESWITCH_MODE) &&
			 a.eswitch_mode == ESWITCH_MODE_SWITCHDEV;
	*ret = a;
}

const struct vf_settings *after_vf_settings(const struct after *a, uint32_t i)
{
	return i < a->d->n_vfs ? &a->d->vfs[i] : NULL;
}

static const struct vf_state *after_kept_vf(const struct after *a, uint32_t i)
{
	return !a->fresh && i < a->pf->n_vfs ? &a->pf->vfs[i] : NULL;
}

static const char *after_default_driver(const struct after *a)
{
	return a->pf->vf_driver ?: driver_info_get(a->pf->driver)->vf_driver;
}

const char *after_vf_driver(const struct after *a, uint32_t i, struct src *ret_src, bool *ret_kept)
{
	const struct vf_settings *v = after_vf_settings(a, i);
	const struct vf_state *kept = after_kept_vf(a, i);
	const char *def = after_default_driver(a);
	bool netdev = v && vf_settings_needs_netdev(v);

	*ret_src = (struct src){};
	*ret_kept = false;
	if (v && vf_settings_has(v, VF_KEY_DRIVER)) {
		*ret_src = v->src[VF_KEY_DRIVER];
		return v->attrs.driver ?: def;
	}
	if (kept && kept->attrs.driver) {
		*ret_kept = !def || !module_name_equal(kept->attrs.driver, def);
		return kept->attrs.driver;
	}
	/* a VF on no driver is bound only when its layout needs a netdev; a
	 * new one is probed unless the PF has autoprobe off */
	if (kept)
		return netdev ? def : NULL;
	return a->pf->drivers_autoprobe || netdev ? def : NULL;
}

uint32_t after_vf_mtu(const struct after *a, uint32_t i, struct src *ret_src, bool *ret_kept)
{
	const struct vf_settings *v = after_vf_settings(a, i);
	const struct vf_state *kept = after_kept_vf(a, i);
	uint32_t fresh = vf_netdev_default_mtu(a->link_type == LINK_TYPE_INFINIBAND);
	struct src ignored;
	bool driver_kept;
	const char *driver = after_vf_driver(a, i, &ignored, &driver_kept);

	*ret_src = (struct src){};
	*ret_kept = false;
	if (!driver || !vf_driver_has_netdev(driver))
		return 0;
	if (v && vf_settings_has(v, VF_KEY_MTU)) {
		*ret_src = v->src[VF_KEY_MTU];
		return v->attrs.mtu;
	}
	/* a VF that keeps its driver keeps its network interface */
	if (kept && kept->attrs.mtu > 0 && module_name_equal(driver, kept->attrs.driver)) {
		*ret_kept = kept->attrs.mtu != fresh;
		return kept->attrs.mtu;
	}
	return fresh;
}
