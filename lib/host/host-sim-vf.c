/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* The simulated host's answer to one RTM_SETLINK with IFLA_VFINFO_LIST: the
 * ndo_set_vf_* callbacks of the PF driver, all or nothing. An attribute the
 * driver does not implement on the port's link type (an InfiniBand port's
 * IPoIB netdev has link state and GUIDs only) is refused unless it asks for
 * the value the VF already has (iproute2 sends QoS and protocol with every
 * VLAN, and both rates together). */

#include <inttypes.h>

#include "drivers.h"
#include "host-sim-internal.h"

static int check_values(struct host *h, const struct vf_attrs *n)
{
	if (n->vlan > 4095 || n->qos > 7) {
		host_set_error(h, "vlan %u qos %u: must be 0..4095 and 0..7", n->vlan, n->qos);
		return -EINVAL;
	}
	if (mac_is_multicast(&n->mac)) {
		host_set_error(h, "a VF MAC must be unicast");
		return -EINVAL;
	}
	if (n->max_tx_rate != 0 && n->min_tx_rate > n->max_tx_rate) {
		host_set_error(h, "min_tx_rate %u is above max_tx_rate %u", n->min_tx_rate,
			       n->max_tx_rate);
		return -EINVAL;
	}
	return 0;
}

/* The link speed bounds the rates as the PF's driver checks them: one VF's
 * (igb, i40e, ixgbe, bnxt_en), or ice's sum of every VF's minimum; only the
 * rates the request sends are checked, as the driver sees only those. */
static int check_speed(struct host *h, const struct pf_state *pf, const struct driver_info *di,
		       uint32_t vf, uint32_t keys, const struct vf_attrs *n)
{
	uint64_t sum = n->min_tx_rate;

	if (driver_refuses_rate(di, VF_KEY_MAX_TX_RATE, n->max_tx_rate, pf->speed) &&
	    (keys & VF_KEY_BIT(MAX_TX_RATE))) {
		host_set_error(h, "max tx rate %u of VF %u exceeds the link speed, %u Mb/s",
			       n->max_tx_rate, vf, pf->speed);
		return -EINVAL;
	}
	if (driver_refuses_rate(di, VF_KEY_MIN_TX_RATE, n->min_tx_rate, pf->speed) &&
	    (keys & VF_KEY_BIT(MIN_TX_RATE))) {
		host_set_error(h, "min tx rate %u of VF %u exceeds the link speed, %u Mb/s",
			       n->min_tx_rate, vf, pf->speed);
		return -EINVAL;
	}
	for (size_t i = 0; i < pf->n_vfs; i++)
		if (i != vf)
			sum += pf->vfs[i].attrs.min_tx_rate;
	if ((keys & VF_KEY_BIT(MIN_TX_RATE)) && n->min_tx_rate > 0 &&
	    driver_refuses_min_rate_sum(di, sum, pf->speed)) {
		host_set_error(h,
			       "min_tx_rate of %u Mbps on VF %u would cause oversubscription "
			       "(%" PRIu64 " Mbps) of the link speed, %u Mbps",
			       n->min_tx_rate, vf, sum, pf->speed);
		return -EINVAL;
	}
	return 0;
}

/* The VF's attributes as the request would leave them, or -errno. */
static int request_result(struct host *h, const struct pf_state *pf, const struct vf_attrs *cur,
			  const struct sim_request *rq, struct vf_attrs *ret)
{
	const struct driver_info *di = driver_info_get(pf->driver);
	uint32_t supported = driver_vf_attrs(di, pf->link_type == LINK_TYPE_INFINIBAND);
	const char *driver = pf->driver;
	struct vf_attrs next = *cur;
	uint32_t keys = rq->a->keys & VF_NETLINK_KEYS;
	int r;

	for (enum vf_key k = 0; k < _VF_KEY_MAX; k++)
		if (keys & (1u << k))
			(void)vf_attrs_copy(&next, &rq->a->attrs, k); /* no strings: cannot fail */
	if (next.vlan_proto == VLAN_PROTO_8021AD && cur->vlan_proto != VLAN_PROTO_8021AD &&
	    !di->vlan_8021ad) {
		host_set_error(h, "%s: VF VLAN protocol 802.1ad is not supported", strna(driver));
		return -EPROTONOSUPPORT;
	}
	for (enum vf_key k = 0; k < _VF_KEY_MAX; k++)
		if ((keys & (1u << k)) && !(supported & (1u << k)) &&
		    !vf_attrs_equal(&next, cur, k)) {
			host_set_error(h, "%s does not implement VF %s", strna(driver),
				       vf_key_to_ip_name(k));
			return -EOPNOTSUPP;
		}
	r = check_values(h, &next);
	if (r >= 0)
		r = check_speed(h, pf, di, rq->a->vf, keys, &next);
	if (r < 0)
		return r;
	*ret = next;
	return 0;
}

int sim_kernel_set_vf(struct host *h, struct host_state *s, const struct sim_request *rq)
{
	struct pf_state *pf = host_state_find_pf(s, rq->pf);
	struct vf_attrs n;
	int r;

	if (!pf) {
		host_set_error(h, "no SR-IOV device %s", rq->pf);
		return -ENODEV;
	}
	/* the drivers' ndo_set_vf_* check the index against their VF count */
	if (rq->a->vf >= pf->n_vfs) {
		host_set_error(h, "%s has no VF %u (%zu VFs)", pf->pci, rq->a->vf, pf->n_vfs);
		return -EINVAL;
	}
	r = request_result(h, pf, &pf->vfs[rq->a->vf].attrs, rq, &n);
	if (r < 0)
		return r;
	pf->vfs[rq->a->vf].attrs = n; /* its strings are the VF's own */
	return 0;
}
