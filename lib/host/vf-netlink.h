/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The rtnetlink messages of the Linux backend as plain data: building the
 * RTM_GETLINK/RTM_SETLINK requests host-linux-netlink.c sends and reading
 * the NLMSG_ERROR answers (vf-netlink.c), decoding RTM_NEWLINK (the PF's
 * MTU, IFF_UP, IFLA_PERM_ADDRESS and IFLA_VFINFO_LIST) and checking what
 * stuck (vf-netlink-parse.c). No sockets: unit tests feed in-memory
 * messages. Requests address the PF by ifindex, never by name. */

#include <netlink/msg.h>

#include "model.h"

static inline void nlmsg_freep(struct nl_msg **m)
{
	nlmsg_free(*m);
}
#define _cleanup_nlmsg_ _cleanup_(nlmsg_freep)

/* RTM_SETLINK of the PF ifindex that sets, for VF vf, every netlink key of
 * keys (VF_NETLINK_KEYS) to its value in attrs in one
 * IFLA_VFINFO_LIST/IFLA_VF_INFO: IFLA_VF_MAC, IFLA_VF_VLAN_LIST with one IFLA_VF_VLAN_INFO (id, QoS and
 * protocol go to the driver together; a QoS or protocol not set is sent as 0
 * and 802.1Q), IFLA_VF_SPOOFCHK, IFLA_VF_TRUST, IFLA_VF_LINK_STATE,
 * IFLA_VF_RSS_QUERY_EN, IFLA_VF_RATE (both rates; one not set is sent as
 * 0) and one of IFLA_VF_IB_NODE_GUID and IFLA_VF_IB_PORT_GUID. Other keys
 * are ignored. -EINVAL when no netlink key is set or both GUIDs are,
 * -ENOMEM. */
int vf_netlink_build_set_vf(int ifindex, uint32_t vf, const struct vf_attrs *attrs, uint32_t keys,
			    struct nl_msg **ret);
/* RTM_GETLINK of ifindex asking for the VF list (RTEXT_FILTER_VF), with
 * the VF statistics (IFLA_VF_STATS) only when stats. */
int vf_netlink_build_get_link(int ifindex, bool stats, struct nl_msg **ret);
/* RTM_SETLINK of ifindex: IFLA_MTU, or IFF_UP. */
int vf_netlink_build_set_mtu(int ifindex, uint32_t mtu, struct nl_msg **ret);
int vf_netlink_build_set_up(int ifindex, struct nl_msg **ret);

/* Decodes an RTM_NEWLINK into pf: mtu (IFLA_MTU), up (IFF_UP),
 * permanent_mac (IFLA_PERM_ADDRESS of 6 bytes) and, for each IFLA_VF_INFO
 * whose VF index is below pf->n_vfs, the netlink fields of pf->vfs[index]
 * and its counters (IFLA_VF_STATS with every counter of enum vf_stat; only
 * when pf->driver reports them, drivers.h vf_stats: for another driver the
 * kernel sends zeros).
 * A value the message does not carry (missing attribute, a driver reporting
 * -1 for "not implemented", an unknown VLAN protocol or link state) keeps
 * what pf had. -EBADMSG when the message or a nest is malformed; pf is then
 * unchanged. */
int vf_netlink_parse_link(const struct nlmsghdr *nlh, struct pf_state *pf);
/* The same for one VF of an RTM_NEWLINK: its netlink fields into attrs
 * (kept where not reported) and the keys the message reported, as bits
 * (1u << enum vf_key). -ENOENT when the list has no such VF, -EBADMSG. */
int vf_netlink_parse_vf(const struct nlmsghdr *nlh, uint32_t index, struct vf_attrs *attrs,
			uint32_t *ret_reported);

/* After setting keys of want on VF index: whether now (read back; reported
 * as from vf_netlink_parse_vf) has every one of those values. Keys the driver does not
 * report cannot be checked and pass; the protocol is compared only with a
 * VLAN or QoS. 0, or -EIO with a sentence naming the first attribute that
 * did not stick in buf ("VF 3: trust is still off after setting it"). */
int vf_netlink_verify(uint32_t index, const struct vf_attrs *want, uint32_t keys,
		      const struct vf_attrs *now, uint32_t reported, char *buf, size_t size);

/* The kernel's extended ACK text (NLMSGERR_ATTR_MSG) of an NLMSG_ERROR, or
 * NULL when it has none. Points into nlh. */
const char *vf_netlink_extack(const struct nlmsghdr *nlh);

/* libnl's -NLE_* code as -errno (-EIO for codes without an equivalent). */
int vf_netlink_errno(int nle);

/* Shared by vf-netlink.c (requests) and vf-netlink-parse.c (answers): the
 * IFLA_VF_LINK_STATE_* and ETH_P_* (host order) values of our enums. */
extern const uint32_t vf_netlink_link_states[_LINK_STATE_MAX];
extern const uint16_t vf_netlink_vlan_protos[_VLAN_PROTO_MAX];
