/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* Decoding the kernel's RTM_NEWLINK into pf_state and vf_state, and
 * checking that what was set stuck. By hand rather than through libnl's
 * rtnl_link: libnl 3.7 drops IFLA_VF_VLAN when the id is 0 and has no
 * IFLA_PERM_ADDRESS. The layout follows rtnl_fill_vfinfo in
 * net/core/rtnetlink.c of Linux 6.1. */

#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <netlink/attr.h>
#include <netlink/msg.h>

#include "drivers.h"
#include "vf-netlink.h"

#define KEY VF_KEY_BIT

/* --- decoding --- */

/* One IFLA_VF_INFO: the netlink fields of v that the message reported. */
struct vf_info {
	uint32_t index;
	uint32_t reported; /* bits (1u << enum vf_key) */
	struct vf_attrs v;
	bool has_stats;
	uint64_t stats[_VF_STAT_MAX];
};

/* Whether the attributes in [head, head + len) fill it exactly (the last
 * one may lack its alignment padding). */
static bool attrs_exact(const struct nlattr *head, int len)
{
	const struct nlattr *a = head;
	int rem = len;

	while (nla_ok(a, rem))
		a = nla_next(a, &rem);
	return rem <= 0 && rem > -NLA_ALIGNTO;
}

static bool nest_exact(const struct nlattr *nest)
{
	return attrs_exact(nla_data(nest), nla_len(nest));
}

static const struct nla_policy vf_info_policy[IFLA_VF_MAX + 1] = {
	[IFLA_VF_MAC] = { .minlen = sizeof(struct ifla_vf_mac) },
	[IFLA_VF_VLAN] = { .minlen = sizeof(struct ifla_vf_vlan) },
	[IFLA_VF_TX_RATE] = { .minlen = sizeof(struct ifla_vf_tx_rate) },
	[IFLA_VF_SPOOFCHK] = { .minlen = sizeof(struct ifla_vf_spoofchk) },
	[IFLA_VF_LINK_STATE] = { .minlen = sizeof(struct ifla_vf_link_state) },
	[IFLA_VF_RATE] = { .minlen = sizeof(struct ifla_vf_rate) },
	[IFLA_VF_RSS_QUERY_EN] = { .minlen = sizeof(struct ifla_vf_rss_query_en) },
	[IFLA_VF_STATS] = { .type = NLA_NESTED },
	[IFLA_VF_TRUST] = { .minlen = sizeof(struct ifla_vf_trust) },
	[IFLA_VF_IB_NODE_GUID] = { .minlen = sizeof(struct ifla_vf_guid) },
	[IFLA_VF_IB_PORT_GUID] = { .minlen = sizeof(struct ifla_vf_guid) },
	[IFLA_VF_VLAN_LIST] = { .type = NLA_NESTED },
};

/* Every attribute that starts with the VF index (__u32 vf) must name the same VF. */
static int vf_info_index(struct nlattr *const tb[], uint32_t *ret)
{
	static const int indexed[] = {
		IFLA_VF_MAC,	      IFLA_VF_VLAN,	    IFLA_VF_TX_RATE,	  IFLA_VF_SPOOFCHK,
		IFLA_VF_LINK_STATE,   IFLA_VF_RATE,	    IFLA_VF_RSS_QUERY_EN, IFLA_VF_TRUST,
		IFLA_VF_IB_NODE_GUID, IFLA_VF_IB_PORT_GUID,
	};
	bool found = false;
	uint32_t index = 0, v;

	for (size_t i = 0; i < ELEMENTSOF(indexed); i++) {
		if (!tb[indexed[i]])
			continue;
		memcpy(&v, nla_data(tb[indexed[i]]), sizeof(v));
		if (found && v != index)
			return -EBADMSG;
		index = v;
		found = true;
	}
	if (!found)
		return -ENOENT;
	*ret = index;
	return 0;
}

static int decode_mac(struct nlattr *const tb[], struct vf_info *out)
{
	const struct ifla_vf_mac *v;

	if (!tb[IFLA_VF_MAC])
		return 0;
	v = nla_data(tb[IFLA_VF_MAC]);
	memcpy(out->v.mac.b, v->mac, sizeof(out->v.mac.b));
	out->reported |= KEY(MAC);
	return 0;
}

static int set_vlan(struct vf_info *out, uint32_t vlan, uint32_t qos, uint16_t proto_be)
{
	if (vlan > 4095 || qos > 7)
		return -EBADMSG;
	out->v.vlan = vlan;
	out->v.qos = qos;
	out->reported |= KEY(VLAN) | KEY(QOS);
	for (enum vlan_proto p = 0; p < _VLAN_PROTO_MAX; p++)
		if (ntohs(proto_be) == vf_netlink_vlan_protos[p]) {
			out->v.vlan_proto = p;
			out->reported |= KEY(VLAN_PROTO);
		}
	return 0;
}

/* IFLA_VF_VLAN_LIST (id, QoS and protocol) when the kernel has it, else
 * IFLA_VF_VLAN, which is 802.1Q by definition. */
static int decode_vlan(struct nlattr *const tb[], struct vf_info *out)
{
	const struct ifla_vf_vlan_info *vi;
	const struct ifla_vf_vlan *v;
	struct nlattr *first;

	if (tb[IFLA_VF_VLAN_LIST] && nla_len(tb[IFLA_VF_VLAN_LIST]) > 0) {
		if (!nest_exact(tb[IFLA_VF_VLAN_LIST]))
			return -EBADMSG;
		first = nla_data(tb[IFLA_VF_VLAN_LIST]);
		if (nla_type(first) != IFLA_VF_VLAN_INFO || nla_len(first) < (int)sizeof(*vi))
			return -EBADMSG;
		vi = nla_data(first);
		if (vi->vf != out->index)
			return -EBADMSG;
		return set_vlan(out, vi->vlan, vi->qos, vi->vlan_proto);
	}
	if (!tb[IFLA_VF_VLAN])
		return 0;
	v = nla_data(tb[IFLA_VF_VLAN]);
	return set_vlan(out, v->vlan, v->qos, htons(ETH_P_8021Q));
}

/* IFLA_VF_RATE has both rates; the old IFLA_VF_TX_RATE only the maximum. */
static int decode_rate(struct nlattr *const tb[], struct vf_info *out)
{
	if (tb[IFLA_VF_RATE]) {
		const struct ifla_vf_rate *v = nla_data(tb[IFLA_VF_RATE]);

		out->v.min_tx_rate = v->min_tx_rate;
		out->v.max_tx_rate = v->max_tx_rate;
		out->reported |= KEY(MIN_TX_RATE) | KEY(MAX_TX_RATE);
	} else if (tb[IFLA_VF_TX_RATE]) {
		const struct ifla_vf_tx_rate *v = nla_data(tb[IFLA_VF_TX_RATE]);

		out->v.max_tx_rate = v->rate;
		out->reported |= KEY(MAX_TX_RATE);
	}
	return 0;
}

/* rtnl_fill_vfinfo presets spoofchk, trust and RSS query to -1: a driver
 * that leaves them so does not implement them. */
static bool decode_setting(const struct nlattr *a, bool *ret)
{
	const struct ifla_vf_trust *v;

	if (!a)
		return false;
	v = nla_data(a);
	if (v->setting == UINT32_MAX)
		return false;
	*ret = v->setting != 0;
	return true;
}

static int decode_settings(struct nlattr *const tb[], struct vf_info *out)
{
	if (decode_setting(tb[IFLA_VF_SPOOFCHK], &out->v.spoofchk))
		out->reported |= KEY(SPOOFCHK);
	if (decode_setting(tb[IFLA_VF_TRUST], &out->v.trust))
		out->reported |= KEY(TRUST);
	if (decode_setting(tb[IFLA_VF_RSS_QUERY_EN], &out->v.query_rss))
		out->reported |= KEY(QUERY_RSS);
	return 0;
}

static int decode_link_state(struct nlattr *const tb[], struct vf_info *out)
{
	const struct ifla_vf_link_state *v;

	if (!tb[IFLA_VF_LINK_STATE])
		return 0;
	v = nla_data(tb[IFLA_VF_LINK_STATE]);
	for (enum link_state s = 0; s < _LINK_STATE_MAX; s++)
		if (v->link_state == vf_netlink_link_states[s]) {
			out->v.link_state = s;
			out->reported |= KEY(LINK_STATE);
		}
	return 0;
}

/* Reported by drivers with ndo_get_vf_guid (IPoIB on mlx5): 0 for a GUID
 * never set. Copied out: struct ifla_vf_guid wants 8-byte alignment, an
 * attribute has 4. */
static int decode_guids(struct nlattr *const tb[], struct vf_info *out)
{
	struct ifla_vf_guid v;

	if (tb[IFLA_VF_IB_NODE_GUID]) {
		memcpy(&v, nla_data(tb[IFLA_VF_IB_NODE_GUID]), sizeof(v));
		out->v.ib_node_guid = v.guid;
		out->reported |= KEY(IB_NODE_GUID);
	}
	if (tb[IFLA_VF_IB_PORT_GUID]) {
		memcpy(&v, nla_data(tb[IFLA_VF_IB_PORT_GUID]), sizeof(v));
		out->v.ib_port_guid = v.guid;
		out->reported |= KEY(IB_PORT_GUID);
	}
	return 0;
}

/* The kernel's IFLA_VF_STATS_* of each counter. */
static const int vf_stat_attrs[_VF_STAT_MAX] = {
	[VF_STAT_RX_PACKETS] = IFLA_VF_STATS_RX_PACKETS,
	[VF_STAT_TX_PACKETS] = IFLA_VF_STATS_TX_PACKETS,
	[VF_STAT_RX_BYTES] = IFLA_VF_STATS_RX_BYTES,
	[VF_STAT_TX_BYTES] = IFLA_VF_STATS_TX_BYTES,
	[VF_STAT_BROADCAST] = IFLA_VF_STATS_BROADCAST,
	[VF_STAT_MULTICAST] = IFLA_VF_STATS_MULTICAST,
	[VF_STAT_RX_DROPPED] = IFLA_VF_STATS_RX_DROPPED,
	[VF_STAT_TX_DROPPED] = IFLA_VF_STATS_TX_DROPPED,
};

static const struct nla_policy vf_stats_policy[IFLA_VF_STATS_MAX + 1] = {
	[IFLA_VF_STATS_RX_PACKETS] = { .type = NLA_U64 },
	[IFLA_VF_STATS_TX_PACKETS] = { .type = NLA_U64 },
	[IFLA_VF_STATS_RX_BYTES] = { .type = NLA_U64 },
	[IFLA_VF_STATS_TX_BYTES] = { .type = NLA_U64 },
	[IFLA_VF_STATS_BROADCAST] = { .type = NLA_U64 },
	[IFLA_VF_STATS_MULTICAST] = { .type = NLA_U64 },
	[IFLA_VF_STATS_RX_DROPPED] = { .type = NLA_U64 },
	[IFLA_VF_STATS_TX_DROPPED] = { .type = NLA_U64 },
};

/* IFLA_VF_STATS (Linux 4.6 on; the dropped counters since 5.0): the
 * counters when every one is there, none otherwise. */
static int decode_stats(struct nlattr *const tb[], struct vf_info *out)
{
	struct nlattr *st[IFLA_VF_STATS_MAX + 1];

	if (!tb[IFLA_VF_STATS])
		return 0;
	if (!nest_exact(tb[IFLA_VF_STATS]) ||
	    nla_parse_nested(st, IFLA_VF_STATS_MAX, tb[IFLA_VF_STATS],
			     (struct nla_policy *)vf_stats_policy) < 0)
		return -EBADMSG;
	for (enum vf_stat s = 0; s < _VF_STAT_MAX; s++)
		if (!st[vf_stat_attrs[s]])
			return 0;
	for (enum vf_stat s = 0; s < _VF_STAT_MAX; s++)
		out->stats[s] = nla_get_u64(st[vf_stat_attrs[s]]);
	out->has_stats = true;
	return 0;
}

static int (*const vf_decoders[])(struct nlattr *const tb[], struct vf_info *out) = {
	decode_mac,	   decode_vlan,	 decode_rate,  decode_settings,
	decode_link_state, decode_guids, decode_stats,
};

/* -ENOENT: the nest names no VF (nothing to decode). */
static int vf_info_decode(const struct nlattr *nest, struct vf_info *ret)
{
	struct nlattr *tb[IFLA_VF_MAX + 1];
	struct vf_info info = {};
	int r;

	if (!nest_exact(nest))
		return -EBADMSG;
	if (nla_parse_nested(tb, IFLA_VF_MAX, (struct nlattr *)nest, vf_info_policy) < 0)
		return -EBADMSG;
	r = vf_info_index(tb, &info.index);
	if (r < 0)
		return r;
	for (size_t i = 0; i < ELEMENTSOF(vf_decoders); i++) {
		r = vf_decoders[i](tb, &info);
		if (r < 0)
			return r;
	}
	*ret = info;
	return 0;
}

/* Copies the fields of src that reported names into dst. */
static void vf_copy_reported(struct vf_attrs *dst, const struct vf_attrs *src, uint32_t reported)
{
	for (enum vf_key k = 0; k < _VF_KEY_MAX; k++)
		if (reported & VF_NETLINK_KEYS & (1u << k))
			(void)vf_attrs_copy(dst, src, k); /* no strings: cannot fail */
}

/* Decodes every IFLA_VF_INFO of IFLA_VFINFO_LIST whose index is in
 * [first, first + n) into infos[index - first]; other VFs and other
 * attribute types are skipped. A VF listed twice keeps the last. */
static int vf_list_decode(const struct nlattr *list, uint32_t first, size_t n,
			  struct vf_info *infos)
{
	const struct nlattr *a;
	struct vf_info info;
	int r, rem;

	if (!nest_exact(list))
		return -EBADMSG;
	for (a = nla_data(list), rem = nla_len(list); nla_ok(a, rem); a = nla_next(a, &rem)) {
		if (nla_type(a) != IFLA_VF_INFO)
			continue;
		r = vf_info_decode(a, &info);
		if (r == -ENOENT || (r >= 0 && (info.index < first || info.index - first >= n)))
			continue;
		if (r < 0)
			return r;
		infos[info.index - first] = info;
	}
	return 0;
}

static const struct nla_policy link_policy[IFLA_MAX + 1] = {
	[IFLA_MTU] = { .type = NLA_U32 },
	[IFLA_VFINFO_LIST] = { .type = NLA_NESTED },
};

static int link_parse(const struct nlmsghdr *nlh, struct nlattr *tb[IFLA_MAX + 1],
		      const struct ifinfomsg **ret_ifi)
{
	if (nlh->nlmsg_type != RTM_NEWLINK || !nlmsg_valid_hdr(nlh, sizeof(struct ifinfomsg)))
		return -EBADMSG;
	if (!attrs_exact(nlmsg_attrdata(nlh, sizeof(struct ifinfomsg)),
			 nlmsg_attrlen(nlh, sizeof(struct ifinfomsg))))
		return -EBADMSG;
	if (nlmsg_parse((struct nlmsghdr *)nlh, sizeof(struct ifinfomsg), tb, IFLA_MAX,
			(struct nla_policy *)link_policy) < 0)
		return -EBADMSG;
	*ret_ifi = nlmsg_data(nlh);
	return 0;
}

int vf_netlink_parse_link(const struct nlmsghdr *nlh, struct pf_state *pf)
{
	struct nlattr *tb[IFLA_MAX + 1];
	const struct ifinfomsg *ifi;
	_cleanup_free_ struct vf_info *infos = NULL;
	int r;

	r = link_parse(nlh, tb, &ifi);
	if (r < 0)
		return r;
	infos = calloc(pf->n_vfs ?: 1, sizeof(*infos));
	if (!infos)
		return -ENOMEM;
	if (tb[IFLA_VFINFO_LIST]) {
		r = vf_list_decode(tb[IFLA_VFINFO_LIST], 0, pf->n_vfs, infos);
		if (r < 0)
			return r;
	}

	pf->up = ifi->ifi_flags & IFF_UP;
	if (tb[IFLA_MTU])
		pf->mtu = nla_get_u32(tb[IFLA_MTU]);
	if (tb[IFLA_PERM_ADDRESS] && nla_len(tb[IFLA_PERM_ADDRESS]) == ETHER_ADDR_LEN_)
		memcpy(pf->permanent_mac.b, nla_data(tb[IFLA_PERM_ADDRESS]), ETHER_ADDR_LEN_);
	for (size_t i = 0; i < pf->n_vfs; i++) {
		vf_copy_reported(&pf->vfs[i].attrs, &infos[i].v, infos[i].reported);
		if (infos[i].has_stats && driver_info_get(pf->driver)->vf_stats) {
			memcpy(pf->vfs[i].stats, infos[i].stats, sizeof(infos[i].stats));
			pf->vfs[i].has_stats = true;
		}
	}
	return 0;
}

int vf_netlink_parse_vf(const struct nlmsghdr *nlh, uint32_t index, struct vf_attrs *attrs,
			uint32_t *ret_reported)
{
	struct nlattr *tb[IFLA_MAX + 1];
	const struct ifinfomsg *ifi;
	struct vf_info info = {};
	int r;

	r = link_parse(nlh, tb, &ifi);
	if (r < 0)
		return r;
	if (!tb[IFLA_VFINFO_LIST])
		return -ENOENT;
	r = vf_list_decode(tb[IFLA_VFINFO_LIST], index, 1, &info);
	if (r < 0)
		return r;
	if (!info.reported)
		return -ENOENT;
	vf_copy_reported(attrs, &info.v, info.reported);
	*ret_reported = info.reported;
	return 0;
}

/* --- checking what stuck --- */

int vf_netlink_verify(uint32_t index, const struct vf_attrs *want, uint32_t keys,
		      const struct vf_attrs *now, uint32_t reported, char *buf, size_t size)
{
	const uint32_t bools = KEY(SPOOFCHK) | KEY(TRUST) | KEY(QUERY_RSS);
	char a[VF_ATTR_STR_MAX], b[VF_ATTR_STR_MAX];
	uint32_t check = keys & VF_NETLINK_KEYS & reported;

	/* without a tag the protocol means nothing, and drivers report what they like */
	if (!((keys & KEY(VLAN)) && want->vlan) && !((keys & KEY(QOS)) && want->qos))
		check &= ~KEY(VLAN_PROTO);
	for (enum vf_key k = 0; k < _VF_KEY_MAX; k++) {
		if (!(check & (1u << k)) || vf_attrs_equal(want, now, k))
			continue;
		vf_attrs_format(now, k, VF_SPELLING_IP, b);
		if (bools & (1u << k))
			snprintf(buf, size, "VF %u: %s is still %s after setting it", index,
				 vf_key_to_ip_name(k), b);
		else
			snprintf(buf, size, "VF %u: %s is %s after setting it to %s", index,
				 vf_key_to_ip_name(k), b,
				 vf_attrs_format(want, k, VF_SPELLING_IP, a));
		return -EIO;
	}
	return 0;
}
