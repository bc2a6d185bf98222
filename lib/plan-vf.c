/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* Which netlink attributes of a VF differ from what a layout wants, and
 * what one SET_VF request must carry to fix them. */

#include "plan.h"

#define KEY(k) (1u << VF_KEY_##k)

/* Attributes that go to the kernel together: the VLAN id, QoS and protocol
 * in one ifla_vf_vlan_info, the two rates in one ifla_vf_rate. */
static const uint32_t vf_attr_groups[] = {
	KEY(MAC),
	KEY(VLAN) | KEY(QOS) | KEY(VLAN_PROTO),
	KEY(SPOOFCHK),
	KEY(TRUST),
	KEY(LINK_STATE),
	KEY(QUERY_RSS),
	KEY(MIN_TX_RATE) | KEY(MAX_TX_RATE),
};

/* Every group with a set key whose value differs goes whole, the rest of
 * the group taken from the VF as it is. Attributes the driver does not
 * implement are never compared (desired.c allows only their defaults). */
/* A key set to a value the plan can use: a stable MAC that the host derives
 * (stable_macs_on_host) is not one. */
static bool wanted(const struct vf_settings *want, enum vf_key k)
{
	return vf_settings_has(want, k) && !(k == VF_KEY_MAC && want->mac_mode == MAC_MODE_STABLE);
}

bool vf_attrs_diff(const struct driver_info *drv, const struct vf_settings *want,
		   const struct vf_state *now, bool random_mac, struct vf_settings *ret)
{
	struct vf_settings cur;

	vf_settings_from_state(now, &cur);
	*ret = (struct vf_settings){};
	for (size_t g = 0; g < ELEMENTSOF(vf_attr_groups); g++) {
		bool differs = false;

		for (enum vf_key k = VF_KEY_MAC; k <= VF_KEY_MAX_TX_RATE; k++)
			if ((vf_attr_groups[g] & (1u << k)) && wanted(want, k) &&
			    (drv->vf_attrs & (1u << k)) &&
			    ((k == VF_KEY_MAC && random_mac) ||
			     !vf_settings_key_equal(want, &cur, k)))
				differs = true;
		for (enum vf_key k = VF_KEY_MAC; differs && k <= VF_KEY_MAX_TX_RATE; k++)
			if (vf_attr_groups[g] & (1u << k))
				vf_settings_key_copy(ret, wanted(want, k) ? want : &cur, k);
	}
	ret->mac_mode = MAC_MODE_LITERAL;
	return ret->set != 0;
}
