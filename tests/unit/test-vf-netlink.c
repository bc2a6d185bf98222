/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* vf-netlink: requests decoded back attribute by attribute, and RTM_NEWLINK
 * messages built here the way net/core/rtnetlink.c (rtnl_fill_vfinfo) of
 * Linux 6.1 builds them. */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <arpa/inet.h>
#include <linux/ethtool_netlink.h>
#include <linux/if_ether.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <netlink/attr.h>
#include <netlink/errno.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>

#include "ethtool-features.h"
#include "vf-netlink.h"

#define KEY(k) (1u << VF_KEY_##k)

static const struct mac_addr mac_a = { { 0x02, 0x11, 0x22, 0x33, 0x44, 0x55 } };

/* --- requests --- */

struct request {
	struct nlmsghdr *nlh;
	struct ifinfomsg *ifi;
	struct nlattr *tb[IFLA_MAX + 1];
	struct nlattr *vf[IFLA_VF_MAX + 1]; /* the one IFLA_VF_INFO */
	unsigned n_link_attrs, n_vf_attrs;
};

static unsigned count_attrs(const struct nlattr *head, int len)
{
	const struct nlattr *a;
	unsigned n = 0;
	int rem;

	nla_for_each_attr(a, (struct nlattr *)head, len, rem) n++;
	assert_int_equal(rem, 0);
	return n;
}

static void request_decode(struct nl_msg *m, int type, struct request *r)
{
	struct nlattr *info;

	*r = (struct request){ .nlh = nlmsg_hdr(m) };
	assert_int_equal(r->nlh->nlmsg_type, type);
	assert_int_equal(r->nlh->nlmsg_flags, NLM_F_REQUEST | NLM_F_ACK);
	r->ifi = nlmsg_data(r->nlh);
	assert_int_equal(r->ifi->ifi_family, AF_UNSPEC);
	assert_int_equal(nlmsg_parse(r->nlh, sizeof(*r->ifi), r->tb, IFLA_MAX, NULL), 0);
	r->n_link_attrs = count_attrs(nlmsg_attrdata(r->nlh, sizeof(*r->ifi)),
				      nlmsg_attrlen(r->nlh, sizeof(*r->ifi)));
	if (!r->tb[IFLA_VFINFO_LIST])
		return;
	/* exactly one IFLA_VF_INFO in the list */
	assert_int_equal(count_attrs(nla_data(r->tb[IFLA_VFINFO_LIST]),
				     nla_len(r->tb[IFLA_VFINFO_LIST])),
			 1);
	info = nla_data(r->tb[IFLA_VFINFO_LIST]);
	assert_int_equal(nla_type(info), IFLA_VF_INFO);
	assert_int_equal(nla_parse_nested(r->vf, IFLA_VF_MAX, info, NULL), 0);
	r->n_vf_attrs = count_attrs(nla_data(info), nla_len(info));
}

static void *vf_attr(struct request *r, int type, size_t size, uint32_t vf)
{
	uint32_t index;

	assert_non_null(r->vf[type]);
	assert_int_equal(nla_len(r->vf[type]), size);
	memcpy(&index, nla_data(r->vf[type]), sizeof(index));
	assert_int_equal(index, vf);
	return nla_data(r->vf[type]);
}

/* What a SET_VF action carries: the keys and their values. */
struct set_vf {
	uint32_t set;
	struct vf_attrs attrs;
};

static struct set_vf all_keys(void)
{
	return (struct set_vf){
		/* one GUID per request: do_setvfinfo returns after the first */
		.set = VF_NETLINK_KEYS & ~KEY(IB_PORT_GUID),
		.attrs.mac = mac_a,
		.attrs.vlan = 100,
		.attrs.qos = 3,
		.attrs.vlan_proto = VLAN_PROTO_8021AD,
		.attrs.spoofchk = false,
		.attrs.trust = true,
		.attrs.link_state = LINK_STATE_DISABLE,
		.attrs.query_rss = true,
		.attrs.min_tx_rate = 1000,
		.attrs.max_tx_rate = 10000,
		.attrs.ib_node_guid = 0x0002c90300216e70u,
		.attrs.ib_port_guid = 0x0002c90300216e78u,
	};
}

static void test_set_vf_all_keys(void **state)
{
	struct set_vf s = all_keys();
	_cleanup_nlmsg_ struct nl_msg *m = NULL;
	struct ifla_vf_vlan_info *vi;
	struct ifla_vf_mac *mac;
	struct ifla_vf_rate *rate;
	struct ifla_vf_guid guid;
	struct nlattr *first;
	struct request r;
	static const uint8_t zero[32];

	assert_int_equal(vf_netlink_build_set_vf(42, 5, &s.attrs, s.set, &m), 0);
	request_decode(m, RTM_SETLINK, &r);
	assert_int_equal(r.ifi->ifi_index, 42);
	assert_int_equal(r.n_link_attrs, 1);
	assert_int_equal(r.n_vf_attrs, 8);

	mac = vf_attr(&r, IFLA_VF_MAC, sizeof(*mac), 5);
	assert_memory_equal(mac->mac, mac_a.b, 6);
	assert_memory_equal(mac->mac + 6, zero, sizeof(mac->mac) - 6);

	assert_null(r.vf[IFLA_VF_VLAN]);
	assert_non_null(r.vf[IFLA_VF_VLAN_LIST]);
	assert_int_equal(count_attrs(nla_data(r.vf[IFLA_VF_VLAN_LIST]),
				     nla_len(r.vf[IFLA_VF_VLAN_LIST])),
			 1);
	first = nla_data(r.vf[IFLA_VF_VLAN_LIST]);
	assert_int_equal(nla_type(first), IFLA_VF_VLAN_INFO);
	assert_int_equal(nla_len(first), sizeof(*vi));
	vi = nla_data(first);
	assert_int_equal(vi->vf, 5);
	assert_int_equal(vi->vlan, 100);
	assert_int_equal(vi->qos, 3);
	assert_int_equal(vi->vlan_proto, htons(ETH_P_8021AD)); /* network byte order */

	assert_int_equal(((struct ifla_vf_spoofchk *)vf_attr(&r, IFLA_VF_SPOOFCHK,
							     sizeof(struct ifla_vf_spoofchk), 5))
				 ->setting,
			 0);
	assert_int_equal(((struct ifla_vf_trust *)vf_attr(&r, IFLA_VF_TRUST,
							  sizeof(struct ifla_vf_trust), 5))
				 ->setting,
			 1);
	assert_int_equal(((struct ifla_vf_link_state *)vf_attr(
				  &r, IFLA_VF_LINK_STATE, sizeof(struct ifla_vf_link_state), 5))
				 ->link_state,
			 IFLA_VF_LINK_STATE_DISABLE);
	assert_int_equal(((struct ifla_vf_rss_query_en *)vf_attr(
				  &r, IFLA_VF_RSS_QUERY_EN, sizeof(struct ifla_vf_rss_query_en), 5))
				 ->setting,
			 1);
	rate = vf_attr(&r, IFLA_VF_RATE, sizeof(*rate), 5);
	assert_int_equal(rate->min_tx_rate, 1000);
	assert_int_equal(rate->max_tx_rate, 10000);
	assert_null(r.vf[IFLA_VF_TX_RATE]);
	/* the GUID as a number in host order, as iproute2 sends it (copied out: the
	 * struct wants 8-byte alignment, an attribute has 4) */
	memcpy(&guid, vf_attr(&r, IFLA_VF_IB_NODE_GUID, sizeof(guid), 5), sizeof(guid));
	assert_true(guid.guid == 0x0002c90300216e70u);
	assert_null(r.vf[IFLA_VF_IB_PORT_GUID]);
}

static void test_set_vf_one_key_each(void **state)
{
	static const struct {
		enum vf_key key;
		int attr;
	} cases[] = {
		{ VF_KEY_MAC, IFLA_VF_MAC },
		{ VF_KEY_VLAN, IFLA_VF_VLAN_LIST },
		{ VF_KEY_QOS, IFLA_VF_VLAN_LIST },
		{ VF_KEY_VLAN_PROTO, IFLA_VF_VLAN_LIST },
		{ VF_KEY_SPOOFCHK, IFLA_VF_SPOOFCHK },
		{ VF_KEY_TRUST, IFLA_VF_TRUST },
		{ VF_KEY_LINK_STATE, IFLA_VF_LINK_STATE },
		{ VF_KEY_QUERY_RSS, IFLA_VF_RSS_QUERY_EN },
		{ VF_KEY_MIN_TX_RATE, IFLA_VF_RATE },
		{ VF_KEY_MAX_TX_RATE, IFLA_VF_RATE },
		{ VF_KEY_IB_NODE_GUID, IFLA_VF_IB_NODE_GUID },
		{ VF_KEY_IB_PORT_GUID, IFLA_VF_IB_PORT_GUID },
	};

	for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
		struct set_vf s = all_keys();
		_cleanup_nlmsg_ struct nl_msg *m = NULL;
		struct request r;

		/* with a key that is not a netlink attribute beside it */
		s.set = (1u << cases[i].key) | KEY(MTU);
		assert_int_equal(vf_netlink_build_set_vf(7, 0, &s.attrs, s.set, &m), 0);
		request_decode(m, RTM_SETLINK, &r);
		assert_int_equal(r.n_vf_attrs, 1);
		assert_non_null(r.vf[cases[i].attr]);
	}
}

/* A VLAN id alone goes with QoS 0 and 802.1Q; one rate alone with 0 for the other. */
static void test_set_vf_partial_groups(void **state)
{
	struct set_vf s = all_keys();
	_cleanup_nlmsg_ struct nl_msg *m = NULL, *m2 = NULL;
	struct ifla_vf_vlan_info *vi;
	struct ifla_vf_rate *rate;
	struct request r;

	s.set = KEY(VLAN);
	assert_int_equal(vf_netlink_build_set_vf(7, 2, &s.attrs, s.set, &m), 0);
	request_decode(m, RTM_SETLINK, &r);
	vi = nla_data(nla_data(r.vf[IFLA_VF_VLAN_LIST]));
	assert_int_equal(vi->vlan, 100);
	assert_int_equal(vi->qos, 0);
	assert_int_equal(vi->vlan_proto, htons(ETH_P_8021Q));

	s.set = KEY(MAX_TX_RATE);
	assert_int_equal(vf_netlink_build_set_vf(7, 2, &s.attrs, s.set, &m2), 0);
	request_decode(m2, RTM_SETLINK, &r);
	rate = vf_attr(&r, IFLA_VF_RATE, sizeof(*rate), 2);
	assert_int_equal(rate->min_tx_rate, 0);
	assert_int_equal(rate->max_tx_rate, 10000);
}

static void test_set_vf_link_states(void **state)
{
	static const uint32_t want[_LINK_STATE_MAX] = {
		[LINK_STATE_AUTO] = IFLA_VF_LINK_STATE_AUTO,
		[LINK_STATE_ENABLE] = IFLA_VF_LINK_STATE_ENABLE,
		[LINK_STATE_DISABLE] = IFLA_VF_LINK_STATE_DISABLE,
	};

	for (enum link_state l = 0; l < _LINK_STATE_MAX; l++) {
		struct set_vf s = { .set = KEY(LINK_STATE), .attrs.link_state = l };
		_cleanup_nlmsg_ struct nl_msg *m = NULL;
		struct ifla_vf_link_state *v;
		struct request r;

		assert_int_equal(vf_netlink_build_set_vf(3, 9, &s.attrs, s.set, &m), 0);
		request_decode(m, RTM_SETLINK, &r);
		v = vf_attr(&r, IFLA_VF_LINK_STATE, sizeof(*v), 9);
		assert_int_equal(v->link_state, want[l]);
	}
}

static void test_set_vf_refused(void **state)
{
	struct set_vf s = all_keys();
	struct nl_msg *m = NULL;

	s.set = KEY(DRIVER) | KEY(MTU) | KEY(RDMA) | KEY(RESOURCE_NAME);
	assert_int_equal(vf_netlink_build_set_vf(3, 0, &s.attrs, s.set, &m), -EINVAL);
	s.set = KEY(MAC);
	s.attrs.mac = (struct mac_addr){}; /* never sent: the planner resolves stable MACs */
	assert_int_equal(vf_netlink_build_set_vf(3, 0, &s.attrs, s.set, &m), -EINVAL);
	s.set = KEY(LINK_STATE);
	s.attrs.link_state = _LINK_STATE_INVALID;
	assert_int_equal(vf_netlink_build_set_vf(3, 0, &s.attrs, s.set, &m), -EINVAL);
	/* the kernel would set the node GUID and silently drop the port GUID */
	s = all_keys();
	s.set = KEY(IB_NODE_GUID) | KEY(IB_PORT_GUID);
	assert_int_equal(vf_netlink_build_set_vf(3, 0, &s.attrs, s.set, &m), -EINVAL);
	assert_null(m);
}

static void test_link_requests(void **state)
{
	_cleanup_nlmsg_ struct nl_msg *get = NULL, *mtu = NULL, *up = NULL;
	struct request r;

	assert_int_equal(vf_netlink_build_get_link(11, false, &get), 0);
	request_decode(get, RTM_GETLINK, &r);
	assert_int_equal(r.ifi->ifi_index, 11);
	assert_int_equal(r.n_link_attrs, 1);
	assert_int_equal(nla_get_u32(r.tb[IFLA_EXT_MASK]),
			 RTEXT_FILTER_VF | RTEXT_FILTER_SKIP_STATS);
	nlmsg_free(TAKE_PTR(get));
	/* sriovctl metrics: with the VF counters */
	assert_int_equal(vf_netlink_build_get_link(11, true, &get), 0);
	request_decode(get, RTM_GETLINK, &r);
	assert_int_equal(nla_get_u32(r.tb[IFLA_EXT_MASK]), RTEXT_FILTER_VF);

	assert_int_equal(vf_netlink_build_set_mtu(12, 9000, &mtu), 0);
	request_decode(mtu, RTM_SETLINK, &r);
	assert_int_equal(r.ifi->ifi_index, 12);
	assert_int_equal(r.n_link_attrs, 1);
	assert_int_equal(nla_get_u32(r.tb[IFLA_MTU]), 9000);
	assert_int_equal(r.ifi->ifi_change, 0);

	assert_int_equal(vf_netlink_build_set_up(13, &up), 0);
	request_decode(up, RTM_SETLINK, &r);
	assert_int_equal(r.ifi->ifi_index, 13);
	assert_int_equal(r.n_link_attrs, 0);
	assert_int_equal(r.ifi->ifi_flags, IFF_UP);
	assert_int_equal(r.ifi->ifi_change, IFF_UP);
}

/* The request's IFLA_VFINFO_LIST has the layout of the kernel's answer. */
static void test_set_vf_round_trip(void **state)
{
	struct set_vf s = all_keys();
	_cleanup_nlmsg_ struct nl_msg *m = NULL;
	struct vf_state vf = {};
	uint32_t reported = 0;
	char err[128] = "";

	assert_int_equal(vf_netlink_build_set_vf(42, 5, &s.attrs, s.set, &m), 0);
	nlmsg_hdr(m)->nlmsg_type = RTM_NEWLINK;
	assert_int_equal(vf_netlink_parse_vf(nlmsg_hdr(m), 5, &vf.attrs, &reported), 0);
	assert_int_equal(reported, s.set);
	assert_int_equal(
		vf_netlink_verify(5, &s.attrs, s.set, &vf.attrs, reported, err, sizeof(err)), 0);
	assert_string_equal(err, "");
	assert_true(mac_equal(&vf.attrs.mac, &mac_a));
	assert_int_equal(vf.attrs.vlan_proto, VLAN_PROTO_8021AD);
	assert_int_equal(vf.attrs.min_tx_rate, 1000);
	assert_int_equal(vf_netlink_parse_vf(nlmsg_hdr(m), 4, &vf.attrs, &reported), -ENOENT);
}

/* --- RTM_NEWLINK as the kernel sends it --- */

struct kvf {
	uint32_t index, vlan, qos, min, max, spoofchk, trust, rss, link_state;
	uint16_t proto; /* host order */
	uint8_t mac[6];
};

static struct kvf kvf_make(uint32_t i)
{
	return (struct kvf){
		.index = i,
		.mac = { 0x02, 0, 0, 0, (uint8_t)(i >> 8), (uint8_t)i },
		.vlan = 10 + i,
		.qos = i % 8,
		.proto = i % 2 ? ETH_P_8021AD : ETH_P_8021Q,
		.min = i,
		.max = 100 + i,
		.spoofchk = i % 2,
		.trust = !(i % 2),
		.rss = UINT32_MAX, /* not implemented: the kernel's -1 */
		.link_state = i % 3,
	};
}

static void put_kernel_vf(struct nl_msg *m, const struct kvf *k)
{
	struct ifla_vf_mac mac = { .vf = k->index };
	struct ifla_vf_broadcast bc;
	struct ifla_vf_vlan vlan = { .vf = k->index, .vlan = k->vlan, .qos = k->qos };
	struct ifla_vf_rate rate = { .vf = k->index, .min_tx_rate = k->min, .max_tx_rate = k->max };
	struct ifla_vf_tx_rate tx = { .vf = k->index, .rate = k->max };
	struct ifla_vf_spoofchk sc = { .vf = k->index, .setting = k->spoofchk };
	struct ifla_vf_link_state ls = { .vf = k->index, .link_state = k->link_state };
	struct ifla_vf_rss_query_en rss = { .vf = k->index, .setting = k->rss };
	struct ifla_vf_trust tr = { .vf = k->index, .setting = k->trust };
	struct ifla_vf_vlan_info vi = {
		.vf = k->index, .vlan = k->vlan, .qos = k->qos, .vlan_proto = htons(k->proto)
	};
	struct nlattr *vf, *list, *stats;

	memcpy(mac.mac, k->mac, 6);
	memset(bc.broadcast, 0xff, sizeof(bc.broadcast));
	vf = nla_nest_start(m, IFLA_VF_INFO);
	assert_int_equal(nla_put(m, IFLA_VF_MAC, sizeof(mac), &mac), 0);
	assert_int_equal(nla_put(m, IFLA_VF_BROADCAST, sizeof(bc), &bc), 0);
	assert_int_equal(nla_put(m, IFLA_VF_VLAN, sizeof(vlan), &vlan), 0);
	assert_int_equal(nla_put(m, IFLA_VF_RATE, sizeof(rate), &rate), 0);
	assert_int_equal(nla_put(m, IFLA_VF_TX_RATE, sizeof(tx), &tx), 0);
	assert_int_equal(nla_put(m, IFLA_VF_SPOOFCHK, sizeof(sc), &sc), 0);
	assert_int_equal(nla_put(m, IFLA_VF_LINK_STATE, sizeof(ls), &ls), 0);
	assert_int_equal(nla_put(m, IFLA_VF_RSS_QUERY_EN, sizeof(rss), &rss), 0);
	assert_int_equal(nla_put(m, IFLA_VF_TRUST, sizeof(tr), &tr), 0);
	list = nla_nest_start(m, IFLA_VF_VLAN_LIST);
	assert_int_equal(nla_put(m, IFLA_VF_VLAN_INFO, sizeof(vi), &vi), 0);
	nla_nest_end(m, list);
	stats = nla_nest_start(m, IFLA_VF_STATS);
	assert_int_equal(nla_put_u64(m, IFLA_VF_STATS_RX_PACKETS, 7), 0);
	nla_nest_end(m, stats);
	nla_nest_end(m, vf);
}

static struct nl_msg *newlink_begin(unsigned flags)
{
	struct nl_msg *m = nlmsg_alloc_size(128 * 1024);
	struct ifinfomsg *ifi;
	struct nlmsghdr *nlh;
	static const uint8_t perm[6] = { 0x52, 0x54, 0x00, 0x5a, 0x00, 0x01 };

	assert_non_null(m);
	nlh = nlmsg_put(m, 0, 1, RTM_NEWLINK, sizeof(*ifi), 0);
	assert_non_null(nlh);
	ifi = nlmsg_data(nlh);
	ifi->ifi_index = 2;
	ifi->ifi_flags = flags;
	assert_int_equal(nla_put_string(m, IFLA_IFNAME, "enp1s0"), 0);
	assert_int_equal(nla_put_u32(m, IFLA_MTU, 9000), 0);
	assert_int_equal(nla_put(m, IFLA_PERM_ADDRESS, sizeof(perm), perm), 0);
	return m;
}

/* Values a decoder must keep when the message does not say otherwise. */
static void pf_init(struct pf_state *pf, size_t n)
{
	*pf = (struct pf_state){ .mtu = 1500, .n_vfs = n, .num_vfs = n };
	pf->vfs = calloc(n ?: 1, sizeof(*pf->vfs));
	assert_non_null(pf->vfs);
	for (size_t i = 0; i < n; i++)
		pf->vfs[i] = (struct vf_state){
			.index = i,
			.attrs.spoofchk = true,
			.attrs.query_rss = true,
			.attrs.vlan_proto = VLAN_PROTO_8021AD,
			.attrs.link_state = LINK_STATE_DISABLE,
			.attrs.max_tx_rate = 77,
		};
}

static void check_vf(const struct vf_state *v, const struct kvf *k)
{
	assert_int_equal(v->index, k->index);
	assert_memory_equal(v->attrs.mac.b, k->mac, 6);
	assert_int_equal(v->attrs.vlan, k->vlan);
	assert_int_equal(v->attrs.qos, k->qos);
	assert_int_equal(v->attrs.vlan_proto,
			 k->proto == ETH_P_8021AD ? VLAN_PROTO_8021AD : VLAN_PROTO_8021Q);
	assert_int_equal(v->attrs.min_tx_rate, k->min);
	assert_int_equal(v->attrs.max_tx_rate, k->max);
	assert_int_equal(v->attrs.spoofchk, k->spoofchk);
	assert_int_equal(v->attrs.trust, k->trust);
	assert_int_equal(v->attrs.link_state, (enum link_state)k->link_state);
	assert_true(v->attrs.query_rss); /* -1: kept */
}

/* One VF (index 0) with its MAC and, when n_stats, the first n_stats of
 * the kernel's IFLA_VF_STATS_* (PAD skipped), counter i being 1000 + i. */
static struct nl_msg *newlink_stats(size_t n_stats)
{
	static const int attrs[] = {
		IFLA_VF_STATS_RX_PACKETS, IFLA_VF_STATS_TX_PACKETS, IFLA_VF_STATS_RX_BYTES,
		IFLA_VF_STATS_TX_BYTES,	  IFLA_VF_STATS_BROADCAST,  IFLA_VF_STATS_MULTICAST,
		IFLA_VF_STATS_RX_DROPPED, IFLA_VF_STATS_TX_DROPPED,
	};
	struct nl_msg *m = newlink_begin(IFF_UP);
	struct ifla_vf_mac mac = { .vf = 0 };
	struct nlattr *list, *vf, *stats;

	list = nla_nest_start(m, IFLA_VFINFO_LIST);
	vf = nla_nest_start(m, IFLA_VF_INFO);
	assert_int_equal(nla_put(m, IFLA_VF_MAC, sizeof(mac), &mac), 0);
	stats = nla_nest_start(m, IFLA_VF_STATS);
	for (size_t i = 0; i < n_stats && i < ELEMENTSOF(attrs); i++)
		assert_int_equal(nla_put_u64(m, attrs[i], 1000 + i), 0);
	nla_nest_end(m, stats);
	nla_nest_end(m, vf);
	nla_nest_end(m, list);
	return m;
}

static void parse_stats(size_t n_stats, const char *driver, struct pf_state *pf)
{
	_cleanup_nlmsg_ struct nl_msg *m = newlink_stats(n_stats);

	pf_init(pf, 1);
	pf->driver = strdup(driver);
	assert_non_null(pf->driver);
	assert_int_equal(vf_netlink_parse_link(nlmsg_hdr(m), pf), 0);
}

static void test_parse_link_stats(void **state)
{
	struct pf_state pf;

	parse_stats(8, "mlx5_core", &pf);
	assert_true(pf.vfs[0].has_stats);
	assert_int_equal(pf.vfs[0].stats[VF_STAT_RX_PACKETS], 1000);
	assert_int_equal(pf.vfs[0].stats[VF_STAT_TX_BYTES], 1003);
	assert_int_equal(pf.vfs[0].stats[VF_STAT_MULTICAST], 1005);
	assert_int_equal(pf.vfs[0].stats[VF_STAT_TX_DROPPED], 1007);
	pf_state_done(&pf);
	/* igb has no ndo_get_vf_stats: the kernel's zeros count nothing */
	parse_stats(8, "igb", &pf);
	assert_false(pf.vfs[0].has_stats);
	pf_state_done(&pf);
	/* a kernel before the dropped counters: no counters rather than zeros */
	parse_stats(6, "ice", &pf);
	assert_false(pf.vfs[0].has_stats);
	pf_state_done(&pf);
}

static void test_parse_link_many(void **state)
{
	static const size_t sizes[] = { 2, 7, 64 };

	for (size_t s = 0; s < ELEMENTSOF(sizes); s++) {
		_cleanup_nlmsg_ struct nl_msg *m = newlink_begin(IFF_UP | IFF_BROADCAST);
		struct nlattr *list;
		struct pf_state pf;

		assert_int_equal(nla_put_u32(m, IFLA_NUM_VF, sizes[s]), 0);
		list = nla_nest_start(m, IFLA_VFINFO_LIST);
		for (uint32_t i = 0; i < sizes[s]; i++) {
			struct kvf k = kvf_make(i);

			put_kernel_vf(m, &k);
		}
		nla_nest_end(m, list);

		pf_init(&pf, sizes[s]);
		assert_int_equal(vf_netlink_parse_link(nlmsg_hdr(m), &pf), 0);
		assert_int_equal(pf.mtu, 9000);
		assert_true(pf.up);
		assert_memory_equal(pf.permanent_mac.b, "\x52\x54\x00\x5a\x00\x01", 6);
		for (uint32_t i = 0; i < sizes[s]; i++) {
			struct kvf k = kvf_make(i);

			check_vf(&pf.vfs[i], &k);
		}
		pf_state_done(&pf);
	}
}

/* Missing VFs and attributes, unknown values and types: defaults stay. */
static void test_parse_link_partial(void **state)
{
	_cleanup_nlmsg_ struct nl_msg *m = nlmsg_alloc_size(16384);
	struct ifla_vf_mac mac = { .vf = 1, .mac = { 0x02, 1, 2, 3, 4, 5 } };
	struct ifla_vf_link_state ls = { .vf = 1, .link_state = 7 };
	struct ifla_vf_spoofchk sc = { .vf = 1, .setting = UINT32_MAX };
	struct ifla_vf_vlan_info vi = { .vf = 1, .vlan = 5, .vlan_proto = htons(0x1234) };
	struct kvf k3 = kvf_make(3), k9 = kvf_make(9);
	struct nlattr *list, *vf, *vl;
	struct nlmsghdr *nlh;
	struct pf_state pf;

	nlh = nlmsg_put(m, 0, 1, RTM_NEWLINK, sizeof(struct ifinfomsg), 0);
	assert_non_null(nlh);
	/* a 20-byte (InfiniBand) permanent address is not a MAC */
	assert_int_equal(nla_put(m, IFLA_PERM_ADDRESS, 20, "01234567890123456789"), 0);
	list = nla_nest_start(m, IFLA_VFINFO_LIST);
	assert_int_equal(nla_put_u32(m, 99, 0), 0); /* unknown type in the list */
	vf = nla_nest_start(m, IFLA_VF_INFO);
	assert_int_equal(nla_put(m, IFLA_VF_MAC, sizeof(mac), &mac), 0);
	assert_int_equal(nla_put(m, IFLA_VF_LINK_STATE, sizeof(ls), &ls), 0);
	assert_int_equal(nla_put(m, IFLA_VF_SPOOFCHK, sizeof(sc), &sc), 0);
	assert_int_equal(nla_put_u32(m, 200, 1), 0); /* unknown attribute */
	vl = nla_nest_start(m, IFLA_VF_VLAN_LIST);
	assert_int_equal(nla_put(m, IFLA_VF_VLAN_INFO, sizeof(vi), &vi), 0);
	nla_nest_end(m, vl);
	nla_nest_end(m, vf);
	put_kernel_vf(m, &k3);
	put_kernel_vf(m, &k9);		      /* beyond num_vfs: ignored */
	vf = nla_nest_start(m, IFLA_VF_INFO); /* names no VF */
	nla_nest_end(m, vf);
	nla_nest_end(m, list);

	pf_init(&pf, 4);
	assert_int_equal(vf_netlink_parse_link(nlmsg_hdr(m), &pf), 0);
	assert_int_equal(pf.mtu, 1500);
	assert_false(pf.up);
	assert_true(mac_is_zero(&pf.permanent_mac));
	/* VF 0 and 2 are not in the list */
	for (size_t i = 0; i < 4; i += 2) {
		assert_true(mac_is_zero(&pf.vfs[i].attrs.mac));
		assert_true(pf.vfs[i].attrs.spoofchk);
		assert_int_equal(pf.vfs[i].attrs.link_state, LINK_STATE_DISABLE);
		assert_int_equal(pf.vfs[i].attrs.max_tx_rate, 77);
	}
	assert_memory_equal(pf.vfs[1].attrs.mac.b, mac.mac, 6);
	assert_int_equal(pf.vfs[1].attrs.link_state, LINK_STATE_DISABLE); /* 7: unknown */
	assert_true(pf.vfs[1].attrs.spoofchk);				  /* -1 */
	assert_int_equal(pf.vfs[1].attrs.vlan, 5);
	assert_int_equal(pf.vfs[1].attrs.vlan_proto, VLAN_PROTO_8021AD); /* 0x1234: unknown */
	assert_int_equal(pf.vfs[1].attrs.max_tx_rate, 77);
	check_vf(&pf.vfs[3], &k3);
	pf_state_done(&pf);
}

/* A list that is shorter than the PF's VFs, and a PF without VFs. */
static void test_parse_link_no_list(void **state)
{
	_cleanup_nlmsg_ struct nl_msg *m = newlink_begin(0);
	struct pf_state pf;

	pf_init(&pf, 0);
	pf.up = true;
	assert_int_equal(vf_netlink_parse_link(nlmsg_hdr(m), &pf), 0);
	assert_false(pf.up);
	assert_int_equal(pf.mtu, 9000);
	pf_state_done(&pf);
}

static void test_parse_vf(void **state)
{
	_cleanup_nlmsg_ struct nl_msg *m = newlink_begin(IFF_UP), *bare = newlink_begin(IFF_UP);
	struct kvf k = kvf_make(3);
	struct vf_state vf = { .attrs.query_rss = true };
	struct nlattr *list;
	uint32_t reported = 0;

	list = nla_nest_start(m, IFLA_VFINFO_LIST);
	for (uint32_t i = 0; i < 5; i++) {
		struct kvf ki = kvf_make(i);

		put_kernel_vf(m, &ki);
	}
	nla_nest_end(m, list);
	vf.index = 3;
	assert_int_equal(vf_netlink_parse_vf(nlmsg_hdr(m), 3, &vf.attrs, &reported), 0);
	check_vf(&vf, &k);
	assert_int_equal(reported, VF_NETLINK_KEYS & ~(KEY(QUERY_RSS) | KEY(IB_NODE_GUID) |
						       KEY(IB_PORT_GUID)));
	assert_int_equal(vf_netlink_parse_vf(nlmsg_hdr(m), 5, &vf.attrs, &reported), -ENOENT);
	assert_int_equal(vf_netlink_parse_vf(nlmsg_hdr(bare), 0, &vf.attrs, &reported), -ENOENT);
}

/* An IPoIB PF (mlx5 on an InfiniBand port): ndo_get_vf_config fills the
 * link state only, rtnl_fill_vfinfo sends the rest as it initialised it
 * (a zero MAC, -1 for spoofchk, trust and RSS query), and ndo_get_vf_guid
 * adds both GUIDs, 0 for one never set. */
static void test_parse_vf_ipoib(void **state)
{
	_cleanup_nlmsg_ struct nl_msg *m = newlink_begin(IFF_UP);
	struct ifla_vf_mac mac = { .vf = 1 };
	struct ifla_vf_link_state ls = { .vf = 1, .link_state = IFLA_VF_LINK_STATE_ENABLE };
	struct ifla_vf_spoofchk sc = { .vf = 1, .setting = (uint32_t)-1 };
	struct ifla_vf_trust tr = { .vf = 1, .setting = (uint32_t)-1 };
	struct ifla_vf_guid node = { .vf = 1, .guid = 0x0002c90300216e70u };
	struct ifla_vf_guid port = { .vf = 1, .guid = 0 };
	struct vf_attrs a = { .ib_port_guid = 5 };
	struct nlattr *list, *vf;
	uint32_t reported = 0;
	char err[128] = "";

	list = nla_nest_start(m, IFLA_VFINFO_LIST);
	vf = nla_nest_start(m, IFLA_VF_INFO);
	assert_int_equal(nla_put(m, IFLA_VF_MAC, sizeof(mac), &mac), 0);
	assert_int_equal(nla_put(m, IFLA_VF_SPOOFCHK, sizeof(sc), &sc), 0);
	assert_int_equal(nla_put(m, IFLA_VF_LINK_STATE, sizeof(ls), &ls), 0);
	assert_int_equal(nla_put(m, IFLA_VF_TRUST, sizeof(tr), &tr), 0);
	assert_int_equal(nla_put(m, IFLA_VF_IB_NODE_GUID, sizeof(node), &node), 0);
	assert_int_equal(nla_put(m, IFLA_VF_IB_PORT_GUID, sizeof(port), &port), 0);
	nla_nest_end(m, vf);
	nla_nest_end(m, list);

	assert_int_equal(vf_netlink_parse_vf(nlmsg_hdr(m), 1, &a, &reported), 0);
	assert_int_equal(reported,
			 KEY(MAC) | KEY(LINK_STATE) | KEY(IB_NODE_GUID) | KEY(IB_PORT_GUID));
	assert_true(a.ib_node_guid == 0x0002c90300216e70u);
	assert_true(a.ib_port_guid == 0);
	assert_int_equal(a.link_state, LINK_STATE_ENABLE);

	/* a port GUID that did not stick is named */
	struct vf_attrs want = { .ib_port_guid = 0x0002c90300216e78u };
	assert_int_equal(vf_netlink_verify(1, &want, KEY(IB_PORT_GUID), &a, reported, err,
					   sizeof(err)),
			 -EIO);
	assert_string_equal(err, "VF 1: port_guid is 00:00:00:00:00:00:00:00 after setting it to "
				 "00:02:c9:03:00:21:6e:78");
}

/* --- malformed messages --- */

static void bad_short_mac(struct nl_msg *m)
{
	struct ifla_vf_mac mac = { .vf = 0 };
	struct nlattr *vf = nla_nest_start(m, IFLA_VF_INFO);

	assert_int_equal(nla_put(m, IFLA_VF_MAC, 8, &mac), 0);
	nla_nest_end(m, vf);
}

/* the nest's only attribute claims 64 bytes in 12 */
static void bad_inner_overruns_nest(struct nl_msg *m)
{
	struct {
		struct nlattr h;
		uint32_t v[2];
	} overrun = { { .nla_len = 64, .nla_type = IFLA_VF_TRUST }, { 0, 1 } };

	assert_int_equal(nla_put(m, IFLA_VF_INFO, sizeof(overrun), &overrun), 0);
}

/* 2 bytes after the last attribute of the nest */
static void bad_trailing_bytes(struct nl_msg *m)
{
	struct ifla_vf_trust tr = { .vf = 0, .setting = 1 };
	uint8_t buf[NLA_HDRLEN + sizeof(tr) + 2] = {};
	struct nlattr *a = (struct nlattr *)buf;

	a->nla_len = NLA_HDRLEN + sizeof(tr);
	a->nla_type = IFLA_VF_TRUST;
	memcpy(buf + NLA_HDRLEN, &tr, sizeof(tr));
	assert_int_equal(nla_put(m, IFLA_VF_INFO, sizeof(buf), buf), 0);
}

/* IFLA_VF_MAC says VF 0, IFLA_VF_TRUST VF 1 */
static void bad_index_mismatch(struct nl_msg *m)
{
	struct ifla_vf_mac mac = { .vf = 0 };
	struct ifla_vf_trust tr = { .vf = 1, .setting = 1 };
	struct nlattr *vf = nla_nest_start(m, IFLA_VF_INFO);

	assert_int_equal(nla_put(m, IFLA_VF_MAC, sizeof(mac), &mac), 0);
	assert_int_equal(nla_put(m, IFLA_VF_TRUST, sizeof(tr), &tr), 0);
	nla_nest_end(m, vf);
}

static void put_vlan_vf(struct nl_msg *m, const struct ifla_vf_vlan_info *vi, int len)
{
	struct ifla_vf_mac mac = { .vf = 0 };
	struct nlattr *vf = nla_nest_start(m, IFLA_VF_INFO), *vl;

	assert_int_equal(nla_put(m, IFLA_VF_MAC, sizeof(mac), &mac), 0);
	vl = nla_nest_start(m, IFLA_VF_VLAN_LIST);
	assert_int_equal(nla_put(m, IFLA_VF_VLAN_INFO, len, vi), 0);
	nla_nest_end(m, vl);
	nla_nest_end(m, vf);
}

static void bad_vlan_range(struct nl_msg *m)
{
	struct ifla_vf_vlan_info vi = { .vf = 0, .vlan = 4096, .vlan_proto = htons(ETH_P_8021Q) };

	put_vlan_vf(m, &vi, sizeof(vi));
}

static void bad_vlan_info_short(struct nl_msg *m)
{
	struct ifla_vf_vlan_info vi = { .vf = 0, .vlan = 1 };

	put_vlan_vf(m, &vi, 8);
}

static void bad_vlan_info_index(struct nl_msg *m)
{
	struct ifla_vf_vlan_info vi = { .vf = 1, .vlan = 1, .vlan_proto = htons(ETH_P_8021Q) };

	put_vlan_vf(m, &vi, sizeof(vi));
}

static void (*const bad_vfs[])(struct nl_msg *m) = {
	bad_short_mac,	bad_inner_overruns_nest, bad_trailing_bytes,  bad_index_mismatch,
	bad_vlan_range, bad_vlan_info_short,	 bad_vlan_info_index,
};

static void test_parse_malformed(void **state)
{
	for (size_t b = 0; b < ELEMENTSOF(bad_vfs); b++) {
		_cleanup_nlmsg_ struct nl_msg *m = newlink_begin(IFF_UP);
		struct kvf k = kvf_make(1);
		struct nlattr *list;
		struct pf_state pf;
		uint32_t reported = 0;

		list = nla_nest_start(m, IFLA_VFINFO_LIST);
		put_kernel_vf(m, &k);
		bad_vfs[b](m);
		nla_nest_end(m, list);

		pf_init(&pf, 2);
		assert_int_equal(vf_netlink_parse_link(nlmsg_hdr(m), &pf), -EBADMSG);
		/* nothing changed, not even the PF or the good VF */
		assert_int_equal(pf.mtu, 1500);
		assert_false(pf.up);
		assert_true(mac_is_zero(&pf.vfs[1].attrs.mac));
		assert_int_equal(vf_netlink_parse_vf(nlmsg_hdr(m), 1, &pf.vfs[1].attrs, &reported),
				 -EBADMSG);
		assert_true(mac_is_zero(&pf.vfs[1].attrs.mac));
		pf_state_done(&pf);
	}
}

static void test_parse_bad_header(void **state)
{
	_cleanup_nlmsg_ struct nl_msg *m = newlink_begin(IFF_UP);
	struct nlmsghdr *nlh = nlmsg_hdr(m);
	struct nlattr *list;
	struct pf_state pf;

	pf_init(&pf, 1);
	nlh->nlmsg_type = RTM_DELLINK;
	assert_int_equal(vf_netlink_parse_link(nlh, &pf), -EBADMSG);
	nlh->nlmsg_type = RTM_NEWLINK;
	nlh->nlmsg_len = NLMSG_HDRLEN + 4; /* shorter than struct ifinfomsg */
	assert_int_equal(vf_netlink_parse_link(nlh, &pf), -EBADMSG);
	nlh->nlmsg_len = nlmsg_total_size(sizeof(struct ifinfomsg));
	/* IFLA_VFINFO_LIST claims 2 bytes more than the message has */
	list = nla_nest_start(m, IFLA_VFINFO_LIST);
	assert_int_equal(nla_put(m, IFLA_VF_INFO, 0, NULL), 0);
	nla_nest_end(m, list);
	nlh = nlmsg_hdr(m);
	list->nla_len += 2;
	assert_int_equal(vf_netlink_parse_link(nlh, &pf), -EBADMSG);
	assert_int_equal(pf.mtu, 1500);
	pf_state_done(&pf);
}

/* --- verifying what stuck --- */

static void test_verify(void **state)
{
	struct set_vf want = all_keys();
	struct vf_state now = {};
	char err[128] = "";

	now = (struct vf_state){ .attrs.mac = mac_a,
				 .attrs.vlan = 100,
				 .attrs.qos = 3,
				 .attrs.vlan_proto = VLAN_PROTO_8021AD,
				 .attrs.trust = true,
				 .attrs.link_state = LINK_STATE_DISABLE,
				 .attrs.query_rss = true,
				 .attrs.min_tx_rate = 1000,
				 .attrs.max_tx_rate = 10000,
				 .attrs.ib_node_guid = 0x0002c90300216e70u };
	assert_int_equal(vf_netlink_verify(3, &want.attrs, want.set, &now.attrs, VF_NETLINK_KEYS,
					   err, sizeof(err)),
			 0);

	now.attrs.trust = false;
	assert_int_equal(vf_netlink_verify(3, &want.attrs, want.set, &now.attrs, VF_NETLINK_KEYS,
					   err, sizeof(err)),
			 -EIO);
	assert_string_equal(err, "VF 3: trust is still off after setting it");
	/* a driver that does not report trust cannot be caught */
	assert_int_equal(vf_netlink_verify(3, &want.attrs, want.set, &now.attrs,
					   VF_NETLINK_KEYS & ~KEY(TRUST), err, sizeof(err)),
			 0);
	now.attrs.trust = true;

	now.attrs.vlan = 0;
	assert_int_equal(vf_netlink_verify(3, &want.attrs, want.set, &now.attrs, VF_NETLINK_KEYS,
					   err, sizeof(err)),
			 -EIO);
	assert_string_equal(err, "VF 3: vlan is 0 after setting it to 100");
	now.attrs.vlan = 100;

	now.attrs.mac.b[5] = 0;
	assert_int_equal(vf_netlink_verify(3, &want.attrs, want.set, &now.attrs, VF_NETLINK_KEYS,
					   err, sizeof(err)),
			 -EIO);
	assert_string_equal(err,
			    "VF 3: mac is 02:11:22:33:44:00 after setting it to 02:11:22:33:44:55");
	now.attrs.mac = mac_a;

	now.attrs.link_state = LINK_STATE_AUTO;
	assert_int_equal(vf_netlink_verify(3, &want.attrs, want.set, &now.attrs, VF_NETLINK_KEYS,
					   err, sizeof(err)),
			 -EIO);
	assert_string_equal(err, "VF 3: state is auto after setting it to disable");
	now.attrs.link_state = LINK_STATE_DISABLE;

	now.attrs.min_tx_rate = 0;
	assert_int_equal(vf_netlink_verify(3, &want.attrs, want.set, &now.attrs, VF_NETLINK_KEYS,
					   err, sizeof(err)),
			 -EIO);
	assert_string_equal(err, "VF 3: min_tx_rate is 0 after setting it to 1000");

	/* keys not set are not checked; without a tag the protocol is moot */
	want.set = KEY(VLAN) | KEY(QOS) | KEY(VLAN_PROTO);
	want.attrs.vlan = want.attrs.qos = 0;
	now = (struct vf_state){ .attrs.vlan_proto = VLAN_PROTO_8021Q };
	assert_int_equal(vf_netlink_verify(3, &want.attrs, want.set, &now.attrs, VF_NETLINK_KEYS,
					   err, sizeof(err)),
			 0);
	want.attrs.qos = 1;
	now.attrs.qos = 1;
	assert_int_equal(vf_netlink_verify(3, &want.attrs, want.set, &now.attrs, VF_NETLINK_KEYS,
					   err, sizeof(err)),
			 -EIO);
	assert_string_equal(err, "VF 3: proto is 802.1Q after setting it to 802.1ad");
}

/* --- errors --- */

static struct nl_msg *error_msg(int error, bool capped, const char *text, size_t text_len)
{
	struct nl_msg *m = nlmsg_alloc_size(4096);
	struct nlmsghdr req = { .nlmsg_len = NLMSG_HDRLEN + 20, .nlmsg_type = RTM_SETLINK };
	struct nlmsghdr *nlh;
	struct nlmsgerr *e;
	char echo[20] = "ifinfomsg + attrs...";

	nlh = nlmsg_put(m, 0, 1, NLMSG_ERROR, sizeof(*e), capped ? NLM_F_CAPPED : 0);
	e = nlmsg_data(nlh);
	e->error = error;
	e->msg = req;
	if (!capped)
		assert_int_equal(nlmsg_append(m, echo, sizeof(echo), NLMSG_ALIGNTO), 0);
	if (text) {
		nlh->nlmsg_flags |= NLM_F_ACK_TLVS;
		assert_int_equal(nla_put(m, NLMSGERR_ATTR_OFFS, 4, "\0\0\0\0"), 0);
		assert_int_equal(nla_put(m, NLMSGERR_ATTR_MSG, text_len, text), 0);
	}
	return m;
}

static void test_extack(void **state)
{
	static const char text[] = "VF 0: min tx rate not supported";
	_cleanup_nlmsg_ struct nl_msg *capped = error_msg(-EINVAL, true, text, sizeof(text));
	_cleanup_nlmsg_ struct nl_msg *echoed = error_msg(-EINVAL, false, text, sizeof(text));
	_cleanup_nlmsg_ struct nl_msg *plain = error_msg(-EINVAL, true, NULL, 0);
	_cleanup_nlmsg_ struct nl_msg *unterminated = error_msg(-EINVAL, true, text, 5);

	assert_string_equal(vf_netlink_extack(nlmsg_hdr(capped)), text);
	assert_string_equal(vf_netlink_extack(nlmsg_hdr(echoed)), text);
	assert_null(vf_netlink_extack(nlmsg_hdr(plain)));
	assert_null(vf_netlink_extack(nlmsg_hdr(unterminated)));
	nlmsg_hdr(capped)->nlmsg_type = RTM_NEWLINK;
	assert_null(vf_netlink_extack(nlmsg_hdr(capped)));
}

static void test_errno(void **state)
{
	assert_int_equal(vf_netlink_errno(0), 0);
	assert_int_equal(vf_netlink_errno(-NLE_BUSY), -EBUSY);
	assert_int_equal(vf_netlink_errno(NLE_BUSY), -EBUSY);
	assert_int_equal(vf_netlink_errno(-NLE_OBJ_NOTFOUND), -ENOENT);
	assert_int_equal(vf_netlink_errno(-NLE_OPNOTSUPP), -EOPNOTSUPP);
	assert_int_equal(vf_netlink_errno(-NLE_PROTO_MISMATCH), -EPROTONOSUPPORT);
	assert_int_equal(vf_netlink_errno(-NLE_PERM), -EPERM);
	assert_int_equal(vf_netlink_errno(-NLE_NODEV), -ENODEV);
	assert_int_equal(vf_netlink_errno(-NLE_FAILURE), -EIO);
	assert_int_equal(vf_netlink_errno(-999), -EIO);
	/* every code has an errno */
	for (int i = 1; i <= NLE_MAX; i++)
		assert_true(vf_netlink_errno(-i) < 0);
}

/* --- ethtool features --- */

/* A bitset nest: a list of set bits (NOMASK), or bits with their VALUE flag
 * (value/mask form). names: "name" set, "-name" listed but clear. */
static void put_bitset(struct nl_msg *m, int type, bool list, const char *const *names)
{
	struct nlattr *set = nla_nest_start(m, type), *bits;

	assert_non_null(set);
	if (list)
		assert_int_equal(nla_put_flag(m, ETHTOOL_A_BITSET_NOMASK), 0);
	assert_int_equal(nla_put_u32(m, ETHTOOL_A_BITSET_SIZE, 64), 0);
	bits = nla_nest_start(m, ETHTOOL_A_BITSET_BITS);
	for (uint32_t i = 0; names[i]; i++) {
		struct nlattr *bit = nla_nest_start(m, ETHTOOL_A_BITSET_BITS_BIT);
		bool clear = names[i][0] == '-';

		assert_int_equal(nla_put_u32(m, ETHTOOL_A_BITSET_BIT_INDEX, 40 + i), 0);
		assert_int_equal(nla_put_string(m, ETHTOOL_A_BITSET_BIT_NAME, names[i] + clear), 0);
		if (!list && !clear)
			assert_int_equal(nla_put_flag(m, ETHTOOL_A_BITSET_BIT_VALUE), 0);
		nla_nest_end(m, bit);
	}
	nla_nest_end(m, bits);
	nla_nest_end(m, set);
}

static struct nl_msg *features_reply(bool list, const char *const *hw, const char *const *active,
				     const char *const *nochange)
{
	struct nl_msg *m = nlmsg_alloc_size(4096);

	assert_non_null(m);
	assert_non_null(genlmsg_put(m, 1, 1, 20, 0, 0, ETHTOOL_MSG_FEATURES_GET_REPLY, 1));
	if (hw)
		put_bitset(m, ETHTOOL_A_FEATURES_HW, list, hw);
	if (active) {
		put_bitset(m, ETHTOOL_A_FEATURES_WANTED, list, active);
		put_bitset(m, ETHTOOL_A_FEATURES_ACTIVE, list, active);
	}
	if (nochange)
		put_bitset(m, ETHTOOL_A_FEATURES_NOCHANGE, list, nochange);
	return m;
}

static void expect_feature(struct nl_msg *m, int r, bool active, bool changeable)
{
	struct ethtool_feature f = { .active = !active, .changeable = !changeable };

	assert_int_equal(ethtool_parse_feature(nlmsg_hdr(m), ETHTOOL_FEATURE_HW_TC, &f), r);
	if (r == 0) {
		assert_int_equal(f.active, active);
		assert_int_equal(f.changeable, changeable);
	}
	nlmsg_free(m);
}

static void test_ethtool_features(void **state)
{
	static const char *const none[] = { NULL };
	static const char *const tc[] = { "rx-checksum", "hw-tc-offload", NULL };
	static const char *const other[] = { "rx-checksum", "hw-tc-offload-x", NULL };
	static const char *const tc_clear[] = { "rx-checksum", "-hw-tc-offload", NULL };

	/* the kernel's form: lists of the bits set */
	expect_feature(features_reply(true, tc, none, none), 0, false, true);
	expect_feature(features_reply(true, tc, tc, none), 0, true, true);
	expect_feature(features_reply(true, tc, tc, tc), 0, true, false);
	expect_feature(features_reply(true, other, other, none), 0, false, false);
	/* value and mask: a bit listed without its VALUE flag is clear */
	expect_feature(features_reply(false, tc, tc_clear, none), 0, false, true);
	expect_feature(features_reply(false, tc_clear, tc, none), 0, true, false);
	/* HW and ACTIVE are needed */
	expect_feature(features_reply(true, NULL, tc, none), -EBADMSG, false, false);
	expect_feature(features_reply(true, tc, NULL, none), -EBADMSG, false, false);
}

static void test_ethtool_compact_and_malformed(void **state)
{
	struct nl_msg *m = nlmsg_alloc_size(4096);
	struct ethtool_feature f;
	struct nlattr *set, *bits, *bit;
	uint32_t words[2] = { 0xffffffff, 0xffffffff };

	/* compact bitsets have numbers only: not ours to guess */
	assert_non_null(genlmsg_put(m, 1, 1, 20, 0, 0, ETHTOOL_MSG_FEATURES_GET_REPLY, 1));
	for (int type = ETHTOOL_A_FEATURES_HW; type <= ETHTOOL_A_FEATURES_ACTIVE; type++) {
		set = nla_nest_start(m, type);
		assert_int_equal(nla_put_u32(m, ETHTOOL_A_BITSET_SIZE, 64), 0);
		assert_int_equal(nla_put(m, ETHTOOL_A_BITSET_VALUE, sizeof(words), words), 0);
		nla_nest_end(m, set);
	}
	assert_int_equal(ethtool_parse_feature(nlmsg_hdr(m), ETHTOOL_FEATURE_HW_TC, &f), -EBADMSG);
	nlmsg_free(m);

	/* a bit without a name */
	m = nlmsg_alloc_size(4096);
	assert_non_null(genlmsg_put(m, 1, 1, 20, 0, 0, ETHTOOL_MSG_FEATURES_GET_REPLY, 1));
	for (int type = ETHTOOL_A_FEATURES_HW; type <= ETHTOOL_A_FEATURES_ACTIVE; type++) {
		set = nla_nest_start(m, type);
		bits = nla_nest_start(m, ETHTOOL_A_BITSET_BITS);
		bit = nla_nest_start(m, ETHTOOL_A_BITSET_BITS_BIT);
		assert_int_equal(nla_put_u32(m, ETHTOOL_A_BITSET_BIT_INDEX, 3), 0);
		nla_nest_end(m, bit);
		nla_nest_end(m, bits);
		nla_nest_end(m, set);
	}
	assert_int_equal(ethtool_parse_feature(nlmsg_hdr(m), ETHTOOL_FEATURE_HW_TC, &f), -EBADMSG);
	nlmsg_free(m);
}

/* SET names the one feature, with VALUE only when on, and asks for no
 * reply; GET asks for the verbose form. */
static void test_ethtool_requests(void **state)
{
	for (int on = 0; on <= 1; on++) {
		_cleanup_nlmsg_ struct nl_msg *m = NULL;
		struct nlattr *tb[ETHTOOL_A_FEATURES_MAX + 1], *h[ETHTOOL_A_HEADER_MAX + 1];
		struct nlattr *b[ETHTOOL_A_BITSET_MAX + 1], *bit,
			*one[ETHTOOL_A_BITSET_BIT_MAX + 1];
		int rem, n = 0;

		assert_int_equal(ethtool_build_feature_set(20, 7, ETHTOOL_FEATURE_HW_TC, on, &m),
				 0);
		assert_int_equal(genlmsg_hdr(nlmsg_hdr(m))->cmd, ETHTOOL_MSG_FEATURES_SET);
		assert_int_equal(genlmsg_parse(nlmsg_hdr(m), 0, tb, ETHTOOL_A_FEATURES_MAX, NULL),
				 0);
		assert_int_equal(nla_parse_nested(h, ETHTOOL_A_HEADER_MAX,
						  tb[ETHTOOL_A_FEATURES_HEADER], NULL),
				 0);
		assert_int_equal(nla_get_u32(h[ETHTOOL_A_HEADER_DEV_INDEX]), 7);
		assert_int_equal(nla_get_u32(h[ETHTOOL_A_HEADER_FLAGS]), ETHTOOL_FLAG_OMIT_REPLY);
		assert_int_equal(nla_parse_nested(b, ETHTOOL_A_BITSET_MAX,
						  tb[ETHTOOL_A_FEATURES_WANTED], NULL),
				 0);
		assert_null(b[ETHTOOL_A_BITSET_NOMASK]);
		nla_for_each_nested(bit, b[ETHTOOL_A_BITSET_BITS], rem)
		{
			assert_int_equal(nla_parse_nested(one, ETHTOOL_A_BITSET_BIT_MAX, bit, NULL),
					 0);
			assert_string_equal(nla_get_string(one[ETHTOOL_A_BITSET_BIT_NAME]),
					    "hw-tc-offload");
			assert_int_equal(one[ETHTOOL_A_BITSET_BIT_VALUE] != NULL, on);
			n++;
		}
		assert_int_equal(n, 1);
	}
	{
		_cleanup_nlmsg_ struct nl_msg *m = NULL;
		struct nlattr *tb[ETHTOOL_A_FEATURES_MAX + 1], *h[ETHTOOL_A_HEADER_MAX + 1];

		assert_int_equal(ethtool_build_features_get(20, 9, &m), 0);
		assert_int_equal(genlmsg_hdr(nlmsg_hdr(m))->cmd, ETHTOOL_MSG_FEATURES_GET);
		assert_int_equal(genlmsg_parse(nlmsg_hdr(m), 0, tb, ETHTOOL_A_FEATURES_MAX, NULL),
				 0);
		assert_int_equal(nla_parse_nested(h, ETHTOOL_A_HEADER_MAX,
						  tb[ETHTOOL_A_FEATURES_HEADER], NULL),
				 0);
		assert_int_equal(nla_get_u32(h[ETHTOOL_A_HEADER_DEV_INDEX]), 9);
		/* no ETHTOOL_FLAG_COMPACT_BITSETS: names, not numbers */
		assert_null(h[ETHTOOL_A_HEADER_FLAGS]);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_set_vf_all_keys),
		cmocka_unit_test(test_set_vf_one_key_each),
		cmocka_unit_test(test_set_vf_partial_groups),
		cmocka_unit_test(test_set_vf_link_states),
		cmocka_unit_test(test_set_vf_refused),
		cmocka_unit_test(test_link_requests),
		cmocka_unit_test(test_set_vf_round_trip),
		cmocka_unit_test(test_parse_link_many),
		cmocka_unit_test(test_parse_link_stats),
		cmocka_unit_test(test_parse_link_partial),
		cmocka_unit_test(test_parse_link_no_list),
		cmocka_unit_test(test_parse_vf),
		cmocka_unit_test(test_parse_vf_ipoib),
		cmocka_unit_test(test_parse_malformed),
		cmocka_unit_test(test_parse_bad_header),
		cmocka_unit_test(test_verify),
		cmocka_unit_test(test_ethtool_features),
		cmocka_unit_test(test_ethtool_compact_and_malformed),
		cmocka_unit_test(test_ethtool_requests),
		cmocka_unit_test(test_extack),
		cmocka_unit_test(test_errno),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
