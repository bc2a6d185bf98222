/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* MAC=stable and the GUIDs' stable: derived per VF from the machine ID and
 * the PF's permanent MAC (MACs) or PCI address (GUIDs), mac.c's HMAC; a PF
 * or host without them is held, but for the MACs of an InfiniBand port that
 * LinkType=ethernet makes Ethernet at the reboot it needs. */

#include "desired-internal.h"
#include "mac.h"

/* Whether the PF identity a stable value is derived from is known: the
 * permanent MAC for MACs; for GUIDs the PCI address, as an InfiniBand PF
 * has no 6-byte permanent address. */
static bool stable_identity_known(const struct desired_ctx *c, enum vf_key k)
{
	return k != VF_KEY_MAC || !mac_is_zero(&c->pf->permanent_mac);
}

/* Whether stable key k waits for the reboot of the layout's LinkType=
 * change of an InfiniBand port to Ethernet: an InfiniBand port has no
 * 6-byte permanent MAC address until then. The MAC is left underived (plan
 * sets nothing for it) and plan notes it (plan-notes.c), as it does the
 * GUIDs of a change the other way. */
static bool stable_waits_for_ethernet(const struct desired_ctx *c, enum vf_key k)
{
	return k == VF_KEY_MAC && c->pf->link_type == LINK_TYPE_INFINIBAND &&
	       !desired_wants_infiniband(c);
}

static int derive_stable(const struct desired_ctx *c, enum vf_key k, uint32_t i, struct vf_attrs *a)
{
	const uint8_t *id = c->host->machine_id;

	switch (k) {
	case VF_KEY_MAC:
		return mac_stable(id, &c->pf->permanent_mac, i, &a->mac);
	case VF_KEY_IB_NODE_GUID:
		return guid_stable(id, c->pf->pci, false, i, &a->ib_node_guid);
	case VF_KEY_IB_PORT_GUID:
		return guid_stable(id, c->pf->pci, true, i, &a->ib_port_guid);
	default:
		return -EINVAL;
	}
}

int desired_resolve_stable(struct desired_ctx *c)
{
	for (size_t i = 0; i < c->d->n_vfs; i++) {
		struct vf_settings *v = &c->d->vfs[i];

		for (enum vf_key k = 0; k < _VF_KEY_MAX; k++) {
			const struct src *at = &v->src[k];
			int r;

			if (!vf_settings_is_stable(v, k))
				continue;
			c->was_stable[i] |= 1u << k;
			/* a key the port cannot set is check_vf_attrs()'s error */
			if (!(driver_vf_attrs(c->drv, desired_wants_infiniband(c)) & (1u << k)))
				continue;
			/* without either input, every PF (or host) would derive the
			 * same values; a snapshot planned without its machine ID
			 * holds the PF as apply does, plan and apply agreeing */
			if (!c->host->has_machine_id ||
			    (!stable_identity_known(c, k) && !stable_waits_for_ethernet(c, k))) {
				r = hw_error(
					c, at->file, at->line, "%s=stable: the %s is unknown%s",
					vf_key_to_string(k),
					c->host->has_machine_id ? "PF's permanent MAC address" :
								  "machine ID",
					!c->host->has_machine_id && c->host->machine_id_option ?
						": this snapshot leaves it out (--machine-id "
						"gives it)" :
						"");
				if (r < 0)
					return r;
				continue;
			}
			if (stable_waits_for_ethernet(c, k))
				continue;
			r = derive_stable(c, k, (uint32_t)i, &v->attrs);
			if (r < 0)
				return r;
			v->stable &= ~(1u << k);
		}
	}
	return 0;
}
