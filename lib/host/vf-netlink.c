/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* The rtnetlink requests of the Linux backend and the reading of the
 * kernel's errors. VF requests are built by hand rather than through
 * libnl's rtnl_link_vf_* and rtnl_link_build_change_request: libnl 3.7
 * writes IFLA_VF_VLAN_INFO's protocol in host byte order (the kernel reads
 * __be16, so 802.1ad would be refused) and a change request needs a whole
 * link object. The layout follows do_setvfinfo in net/core/rtnetlink.c of
 * Linux 6.1. Decoding is in vf-netlink-parse.c. */

#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <netlink/attr.h>
#include <netlink/errno.h>
#include <netlink/msg.h>

#include "vf-netlink.h"

#define KEY VF_KEY_BIT

const uint32_t vf_netlink_link_states[_LINK_STATE_MAX] = {
	[LINK_STATE_AUTO] = IFLA_VF_LINK_STATE_AUTO,
	[LINK_STATE_ENABLE] = IFLA_VF_LINK_STATE_ENABLE,
	[LINK_STATE_DISABLE] = IFLA_VF_LINK_STATE_DISABLE,
};

const uint16_t vf_netlink_vlan_protos[_VLAN_PROTO_MAX] = {
	[VLAN_PROTO_8021Q] = ETH_P_8021Q,
	[VLAN_PROTO_8021AD] = ETH_P_8021AD,
};

static int nle(int r)
{
	return r < 0 ? vf_netlink_errno(r) : r;
}

/* --- requests --- */

static int link_msg(int type, int flags, const struct ifinfomsg *ifi, struct nl_msg **ret)
{
	_cleanup_nlmsg_ struct nl_msg *m = nlmsg_alloc_simple(type, flags);

	if (!m)
		return -ENOMEM;
	if (nlmsg_append(m, (void *)ifi, sizeof(*ifi), NLMSG_ALIGNTO) < 0)
		return -ENOMEM;
	*ret = TAKE_PTR(m);
	return 0;
}

static int put_mac(struct nl_msg *m, uint32_t vf, const struct vf_attrs *a, uint32_t keys)
{
	struct ifla_vf_mac v = { .vf = vf };

	if (mac_is_zero(&a->mac))
		return -EINVAL;
	memcpy(v.mac, a->mac.b, sizeof(a->mac.b));
	return nle(nla_put(m, IFLA_VF_MAC, sizeof(v), &v));
}

/* IFLA_VF_VLAN_LIST rather than IFLA_VF_VLAN: do_setvfinfo hands the
 * protocol of the first IFLA_VF_VLAN_INFO to ndo_set_vf_vlan, whereas
 * IFLA_VF_VLAN always means 802.1Q. */
static int put_vlan(struct nl_msg *m, uint32_t vf, const struct vf_attrs *a, uint32_t keys)
{
	struct ifla_vf_vlan_info v = { .vf = vf, .vlan_proto = htons(ETH_P_8021Q) };
	struct nlattr *list;

	if ((keys & KEY(VLAN)))
		v.vlan = a->vlan;
	if ((keys & KEY(QOS)))
		v.qos = a->qos;
	if ((keys & KEY(VLAN_PROTO))) {
		if (a->vlan_proto < 0 || a->vlan_proto >= _VLAN_PROTO_MAX)
			return -EINVAL;
		v.vlan_proto = htons(vf_netlink_vlan_protos[a->vlan_proto]);
	}
	list = nla_nest_start(m, IFLA_VF_VLAN_LIST);
	if (!list || nla_put(m, IFLA_VF_VLAN_INFO, sizeof(v), &v) < 0)
		return -ENOMEM;
	return nle(nla_nest_end(m, list));
}

static int put_setting(struct nl_msg *m, int type, uint32_t vf, bool on)
{
	/* ifla_vf_spoofchk, ifla_vf_trust and ifla_vf_rss_query_en are alike */
	struct ifla_vf_trust v = { .vf = vf, .setting = on };

	return nle(nla_put(m, type, sizeof(v), &v));
}

static int put_spoofchk(struct nl_msg *m, uint32_t vf, const struct vf_attrs *a, uint32_t keys)
{
	return put_setting(m, IFLA_VF_SPOOFCHK, vf, a->spoofchk);
}

static int put_trust(struct nl_msg *m, uint32_t vf, const struct vf_attrs *a, uint32_t keys)
{
	return put_setting(m, IFLA_VF_TRUST, vf, a->trust);
}

static int put_query_rss(struct nl_msg *m, uint32_t vf, const struct vf_attrs *a, uint32_t keys)
{
	return put_setting(m, IFLA_VF_RSS_QUERY_EN, vf, a->query_rss);
}

static int put_link_state(struct nl_msg *m, uint32_t vf, const struct vf_attrs *a, uint32_t keys)
{
	struct ifla_vf_link_state v = { .vf = vf };

	if (a->link_state < 0 || a->link_state >= _LINK_STATE_MAX)
		return -EINVAL;
	v.link_state = vf_netlink_link_states[a->link_state];
	return nle(nla_put(m, IFLA_VF_LINK_STATE, sizeof(v), &v));
}

static int put_rate(struct nl_msg *m, uint32_t vf, const struct vf_attrs *a, uint32_t keys)
{
	struct ifla_vf_rate v = { .vf = vf };

	if ((keys & KEY(MIN_TX_RATE)))
		v.min_tx_rate = a->min_tx_rate;
	if ((keys & KEY(MAX_TX_RATE)))
		v.max_tx_rate = a->max_tx_rate;
	return nle(nla_put(m, IFLA_VF_RATE, sizeof(v), &v));
}

/* do_setvfinfo returns after the first GUID it sets: a request carries at
 * most one (vf_netlink_build_set_vf refuses both). */
static int put_guid(struct nl_msg *m, int type, uint32_t vf, uint64_t guid)
{
	struct ifla_vf_guid v = { .vf = vf, .guid = guid };

	return nle(nla_put(m, type, sizeof(v), &v));
}

static int put_node_guid(struct nl_msg *m, uint32_t vf, const struct vf_attrs *a, uint32_t keys)
{
	return put_guid(m, IFLA_VF_IB_NODE_GUID, vf, a->ib_node_guid);
}

static int put_port_guid(struct nl_msg *m, uint32_t vf, const struct vf_attrs *a, uint32_t keys)
{
	return put_guid(m, IFLA_VF_IB_PORT_GUID, vf, a->ib_port_guid);
}

/* One attribute of IFLA_VF_INFO, sent when any of its keys is set, in the
 * order do_setvfinfo handles them (the GUIDs last). */
static const struct {
	uint32_t keys;
	int (*put)(struct nl_msg *m, uint32_t vf, const struct vf_attrs *a, uint32_t keys);
} vf_attrs[] = {
	{ KEY(MAC), put_mac },
	{ KEY(VLAN) | KEY(QOS) | KEY(VLAN_PROTO), put_vlan },
	{ KEY(SPOOFCHK), put_spoofchk },
	{ KEY(TRUST), put_trust },
	{ KEY(LINK_STATE), put_link_state },
	{ KEY(QUERY_RSS), put_query_rss },
	{ KEY(MIN_TX_RATE) | KEY(MAX_TX_RATE), put_rate },
	{ KEY(IB_NODE_GUID), put_node_guid },
	{ KEY(IB_PORT_GUID), put_port_guid },
};

int vf_netlink_build_set_vf(int ifindex, uint32_t vf, const struct vf_attrs *attrs, uint32_t keys,
			    struct nl_msg **ret)
{
	const struct ifinfomsg ifi = { .ifi_family = AF_UNSPEC, .ifi_index = ifindex };
	_cleanup_nlmsg_ struct nl_msg *m = NULL;
	struct nlattr *list, *info;
	int r;

	if (!(keys & VF_NETLINK_KEYS) || vf >= INT32_MAX ||
	    (keys & VF_NETLINK_GUID_KEYS) == VF_NETLINK_GUID_KEYS)
		return -EINVAL;
	r = link_msg(RTM_SETLINK, NLM_F_REQUEST | NLM_F_ACK, &ifi, &m);
	if (r < 0)
		return r;
	list = nla_nest_start(m, IFLA_VFINFO_LIST);
	info = list ? nla_nest_start(m, IFLA_VF_INFO) : NULL;
	if (!info)
		return -ENOMEM;
	for (size_t i = 0; i < ELEMENTSOF(vf_attrs); i++) {
		if (!(keys & vf_attrs[i].keys))
			continue;
		r = vf_attrs[i].put(m, vf, attrs, keys);
		if (r < 0)
			return r;
	}
	if (nla_nest_end(m, info) < 0 || nla_nest_end(m, list) < 0)
		return -ENOMEM;
	*ret = TAKE_PTR(m);
	return 0;
}

int vf_netlink_build_get_link(int ifindex, bool stats, struct nl_msg **ret)
{
	const struct ifinfomsg ifi = { .ifi_family = AF_UNSPEC, .ifi_index = ifindex };
	_cleanup_nlmsg_ struct nl_msg *m = NULL;
	int r;

	r = link_msg(RTM_GETLINK, NLM_F_REQUEST | NLM_F_ACK, &ifi, &m);
	if (r < 0)
		return r;
	r = nla_put_u32(m, IFLA_EXT_MASK, RTEXT_FILTER_VF | (stats ? 0 : RTEXT_FILTER_SKIP_STATS));
	if (r < 0)
		return nle(r);
	*ret = TAKE_PTR(m);
	return 0;
}

int vf_netlink_build_set_mtu(int ifindex, uint32_t mtu, struct nl_msg **ret)
{
	const struct ifinfomsg ifi = { .ifi_family = AF_UNSPEC, .ifi_index = ifindex };
	_cleanup_nlmsg_ struct nl_msg *m = NULL;
	int r;

	r = link_msg(RTM_SETLINK, NLM_F_REQUEST | NLM_F_ACK, &ifi, &m);
	if (r < 0)
		return r;
	r = nla_put_u32(m, IFLA_MTU, mtu);
	if (r < 0)
		return nle(r);
	*ret = TAKE_PTR(m);
	return 0;
}

int vf_netlink_build_set_up(int ifindex, struct nl_msg **ret)
{
	const struct ifinfomsg ifi = {
		.ifi_family = AF_UNSPEC,
		.ifi_index = ifindex,
		.ifi_flags = IFF_UP,
		.ifi_change = IFF_UP,
	};

	return link_msg(RTM_SETLINK, NLM_F_REQUEST | NLM_F_ACK, &ifi, ret);
}

/* --- errors --- */

const char *vf_netlink_extack(const struct nlmsghdr *nlh)
{
	const struct nlmsgerr *e;
	const struct nlattr *msg;
	size_t off = NLMSG_HDRLEN + sizeof(*e);

	if (nlh->nlmsg_type != NLMSG_ERROR || !(nlh->nlmsg_flags & NLM_F_ACK_TLVS) ||
	    nlh->nlmsg_len < off)
		return NULL;
	e = NLMSG_DATA(nlh);
	/* the request is echoed unless NETLINK_CAP_ACK capped it */
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED)) {
		if (e->msg.nlmsg_len < NLMSG_HDRLEN)
			return NULL;
		off += NLMSG_ALIGN(e->msg.nlmsg_len - NLMSG_HDRLEN);
	}
	if (nlh->nlmsg_len <= off)
		return NULL;
	msg = nla_find((const struct nlattr *)((const char *)nlh + off), nlh->nlmsg_len - off,
		       NLMSGERR_ATTR_MSG);
	if (!msg || nla_len(msg) < 1 || !memchr(nla_data(msg), '\0', nla_len(msg)))
		return NULL;
	return nla_data(msg);
}

static const int nle_errno[] = {
	[NLE_SUCCESS] = 0,
	[NLE_FAILURE] = EIO,
	[NLE_INTR] = EINTR,
	[NLE_BAD_SOCK] = EBADF,
	[NLE_AGAIN] = EAGAIN,
	[NLE_NOMEM] = ENOMEM,
	[NLE_EXIST] = EEXIST,
	[NLE_INVAL] = EINVAL,
	[NLE_RANGE] = ERANGE,
	[NLE_MSGSIZE] = EMSGSIZE,
	[NLE_OPNOTSUPP] = EOPNOTSUPP,
	[NLE_AF_NOSUPPORT] = EAFNOSUPPORT,
	[NLE_OBJ_NOTFOUND] = ENOENT,
	[NLE_NOATTR] = ENODATA,
	[NLE_MISSING_ATTR] = EINVAL,
	[NLE_AF_MISMATCH] = EAFNOSUPPORT,
	[NLE_SEQ_MISMATCH] = EPROTO,
	[NLE_MSG_OVERFLOW] = EOVERFLOW,
	[NLE_MSG_TRUNC] = EMSGSIZE,
	[NLE_NOADDR] = EADDRNOTAVAIL,
	[NLE_SRCRT_NOSUPPORT] = EOPNOTSUPP,
	[NLE_MSG_TOOSHORT] = EBADMSG,
	[NLE_MSGTYPE_NOSUPPORT] = EOPNOTSUPP,
	[NLE_OBJ_MISMATCH] = EINVAL,
	[NLE_NOCACHE] = ENOENT,
	[NLE_BUSY] = EBUSY,
	[NLE_PROTO_MISMATCH] = EPROTONOSUPPORT,
	[NLE_NOACCESS] = EACCES,
	[NLE_PERM] = EPERM,
	[NLE_PKTLOC_FILE] = ENOENT,
	[NLE_PARSE_ERR] = EINVAL,
	[NLE_NODEV] = ENODEV,
	[NLE_IMMUTABLE] = EPERM,
	[NLE_DUMP_INTR] = EAGAIN,
	[NLE_ATTRSIZE] = EBADMSG,
};

int vf_netlink_errno(int nle)
{
	unsigned n = nle < 0 ? -(unsigned)nle : (unsigned)nle;

	if (n == 0)
		return 0;
	return n < ELEMENTSOF(nle_errno) ? -nle_errno[n] : -EIO;
}
