/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* Which netlink attributes of a VF differ from what a layout wants, and
 * what one SET_VF request must carry to fix them. */

#include "plan.h"

/* A key set to a value the plan can use: a stable value not derived
 * (desired.c holds the PF or leaves a key the port cannot set) is not one. */
static bool wanted(const struct vf_settings *want, enum vf_key k)
{
	return vf_settings_has(want, k) && !vf_settings_is_stable(want, k);
}

static bool key_differs(uint32_t supported, const struct vf_settings *want,
			const struct vf_attrs *now, bool random_mac, enum vf_key k)
{
	if (!wanted(want, k) || !(supported & (1u << k)))
		return false;
	return (k == VF_KEY_MAC && random_mac) || !vf_attrs_equal(&want->attrs, now, k);
}

/* Every group (vf_key_group) with a set key whose value differs goes whole,
 * the rest of the group taken from the VF as it is. Attributes the driver
 * does not implement are never compared (desired.c allows only their
 * defaults). */
bool plan_vf_diff(uint32_t supported, const struct vf_settings *want, const struct vf_attrs *now,
		  bool random_mac, struct vf_attrs *ret, uint32_t *ret_keys)
{
	uint32_t keys = 0;

	for (enum vf_key k = 0; k < _VF_KEY_MAX; k++)
		if ((VF_NETLINK_KEYS & (1u << k)) &&
		    key_differs(supported, want, now, random_mac, k))
			keys |= vf_key_group(k);
	*ret = (struct vf_attrs){};
	for (enum vf_key k = 0; k < _VF_KEY_MAX; k++)
		if (keys & (1u << k))
			(void)vf_attrs_copy(ret, wanted(want, k) ? &want->attrs : now, k);
	*ret_keys = keys;
	return keys != 0;
}
