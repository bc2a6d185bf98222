/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <stdio.h>

#include "drivers.h"
#include "setting-row.h"

static const struct src no_src;

void pf_setting_row(const struct pf_state *pf, const struct pf_settings *s, enum pf_key k,
		    struct setting_row *ret)
{
	bool set = s && pf_settings_has(s, k);

	ret->key = pf_key_to_string(k);
	ret->now = pf_state_format_key(pf, k, ret->now_buf);
	ret->wanted = set ? pf_settings_format(s, k, ret->wanted_buf) : NULL;
	ret->src = set ? &s->src[k] : &no_src;
}

/* The line of the key for which a VF on no driver is to be bound: RDMA=yes,
 * else MTUBytes= (vf_settings_needs_netdev()). */
static const struct src *netdev_src(const struct vf_settings *v)
{
	return &v->src[vf_settings_wants_rdma(v) ? VF_KEY_RDMA : VF_KEY_MTU];
}

void vf_setting_row(const struct pf_state *pf, const struct vf_state *vf,
		    const struct vf_settings *v, enum vf_key k, struct setting_row *ret)
{
	const char *default_driver = pf->vf_driver ?: driver_info_get(pf->driver)->vf_driver;
	bool set = v && vf_settings_has(v, k);

	ret->key = vf_key_to_string(k);
	ret->now = vf ? vf_attrs_format_host(&vf->attrs, k, VF_SPELLING_LAYOUT, ret->now_buf) :
			NULL;
	ret->src = set ? &v->src[k] : &no_src;
	if (set && vf_settings_is_stable(v, k))
		ret->wanted = strcpy(ret->wanted_buf, "stable");
	else if (set && k == VF_KEY_DRIVER && !v->attrs.driver && default_driver)
		/* Driver=default binds the kernel's VF driver (the plan's
		 * rule): wanted as that driver, not as the word */
		ret->wanted = strcpy(ret->wanted_buf, default_driver);
	else if (set)
		ret->wanted = vf_attrs_format(&v->attrs, k, VF_SPELLING_LAYOUT, ret->wanted_buf);
	else if (k == VF_KEY_DRIVER && vf && !vf->attrs.driver && v &&
		 vf_settings_needs_netdev(v) && default_driver) {
		/* Driver= unset keeps the driver, but a VF on none whose
		 * layout needs a netdev is bound to the kernel's VF driver
		 * (the plan's rule): that is what it is compared against */
		snprintf(ret->wanted_buf, sizeof(ret->wanted_buf), "%s", default_driver);
		ret->wanted = ret->wanted_buf;
		ret->src = netdev_src(v);
	} else
		ret->wanted = NULL;
	/* ResourceName= is no host value: a VF the host has is in the pool
	 * the layout names (the device plugin's configuration names the VFs
	 * that exist), nothing there to differ */
	if (set && vf && k == VF_KEY_RESOURCE_NAME)
		ret->now = strcpy(ret->now_buf, ret->wanted);
}

bool vf_mtu_comparable(const struct vf_state *vf)
{
	return vf->name && vf->attrs.driver && vf->attrs.mtu != 0;
}

static bool key_differs(const struct vf_state *vf, const struct vf_settings *v, enum vf_key k,
			const char *default_driver)
{
	const char *want;

	if (k == VF_KEY_DRIVER) {
		want = v->attrs.driver ?: default_driver;
		return want && !(vf->attrs.driver && module_name_equal(want, vf->attrs.driver));
	}
	if (k == VF_KEY_RDMA)
		return vf_settings_wants_rdma(v) && !vf->attrs.rdma;
	if (k == VF_KEY_MTU && !vf_mtu_comparable(vf))
		return false; /* unbound, vfio-pci: no MTU to compare */
	/* the keys the host shows as the layout writes them */
	return vf_key_on_host(k) && !vf_attrs_equal(&vf->attrs, &v->attrs, k);
}

uint32_t vf_settings_differ(const struct vf_state *vf, const struct vf_settings *v,
			    const char *default_driver)
{
	uint32_t keys = 0;

	for (enum vf_key k = 0; k < _VF_KEY_MAX; k++)
		if (vf_settings_has(v, k) && !vf_settings_is_stable(v, k) &&
		    key_differs(vf, v, k, default_driver))
			keys |= 1u << k;
	return keys;
}

int setting_row_source(const struct setting_row *row, char **ret)
{
	*ret = NULL;
	if (!row->wanted || !row->src->file)
		return 0;
	*ret = strdup_printf("%s:%u", row->src->file, row->src->line);
	return *ret ? 0 : -ENOMEM;
}
