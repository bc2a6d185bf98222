/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* Which netlink attributes of a VF differ from what a layout wants, and
 * what one SET_VF request must carry to fix them. */

#include <stddef.h>

#include "plan.h"

#define KEY(k) (1u << VF_KEY_##k)

/* The netlink attributes of a VF as plain fields, so that desired and
 * observed compare and copy through one table. */
#define FIELD(k, f) \
	[VF_KEY_##k] = { offsetof(struct vf_settings, f), sizeof(((struct vf_settings *)NULL)->f) }
static const struct {
	size_t offset, size;
} vf_fields[_VF_KEY_MAX] = {
	FIELD(MAC, mac),
	FIELD(VLAN, vlan),
	FIELD(QOS, qos),
	FIELD(VLAN_PROTO, vlan_proto),
	FIELD(SPOOFCHK, spoofchk),
	FIELD(TRUST, trust),
	FIELD(LINK_STATE, link_state),
	FIELD(QUERY_RSS, query_rss),
	FIELD(MIN_TX_RATE, min_tx_rate),
	FIELD(MAX_TX_RATE, max_tx_rate),
};

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

static void vf_state_as_settings(const struct vf_state *s, struct vf_settings *ret)
{
	*ret = (struct vf_settings){
		.mac_mode = MAC_MODE_LITERAL,
		.mac = s->mac,
		.vlan = s->vlan,
		.qos = s->qos,
		.vlan_proto = s->vlan_proto,
		.spoofchk = s->spoofchk,
		.trust = s->trust,
		.link_state = s->link_state,
		.query_rss = s->query_rss,
		.min_tx_rate = s->min_tx_rate,
		.max_tx_rate = s->max_tx_rate,
	};
}

static bool vf_field_equal(const struct vf_settings *a, const struct vf_settings *b, enum vf_key k)
{
	return memcmp((const char *)a + vf_fields[k].offset, (const char *)b + vf_fields[k].offset,
		      vf_fields[k].size) == 0;
}

static void vf_field_copy(struct vf_settings *dst, const struct vf_settings *src, enum vf_key k)
{
	memcpy((char *)dst + vf_fields[k].offset, (const char *)src + vf_fields[k].offset,
	       vf_fields[k].size);
	dst->set |= 1u << k;
}

/* Every group with a set key whose value differs goes whole, the rest of
 * the group taken from the VF as it is. Attributes the driver does not
 * implement are never compared (desired.c allows only their defaults). */
bool vf_attrs_diff(const struct driver_info *drv, const struct vf_settings *want,
		   const struct vf_state *now, bool random_mac, struct vf_settings *ret)
{
	struct vf_settings cur;

	vf_state_as_settings(now, &cur);
	*ret = (struct vf_settings){};
	for (size_t g = 0; g < ELEMENTSOF(vf_attr_groups); g++) {
		bool differs = false;

		for (enum vf_key k = VF_KEY_MAC; k <= VF_KEY_MAX_TX_RATE; k++)
			if ((vf_attr_groups[g] & (1u << k)) && vf_settings_has(want, k) &&
			    (drv->vf_attrs & (1u << k)) &&
			    ((k == VF_KEY_MAC && random_mac) || !vf_field_equal(want, &cur, k)))
				differs = true;
		for (enum vf_key k = VF_KEY_MAC; differs && k <= VF_KEY_MAX_TX_RATE; k++)
			if (vf_attr_groups[g] & (1u << k))
				vf_field_copy(ret, vf_settings_has(want, k) ? want : &cur, k);
	}
	ret->mac_mode = MAC_MODE_LITERAL;
	return ret->set != 0;
}
