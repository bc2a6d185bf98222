/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* The netlink side of the Linux backend: links and VF attributes over
 * rtnetlink, eswitch modes over devlink and hw-tc-offload over ethtool
 * (generic netlink). Each socket is
 * connected on first use. Messages are built and decoded in vf-netlink.c;
 * here they are sent, every one with NLM_F_ACK, and the kernel's answer
 * becomes 0 or -errno plus its extended ACK text in h->error. A PF is
 * addressed by ifindex: its name, read from sysfs, is resolved to an ifindex
 * and never sent (names change under udev renames). */

#include <linux/devlink.h>
#include <linux/ethtool_netlink.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <netlink/attr.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>
#include <rdma/rdma_netlink.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include "ethtool-features.h"
#include "host-linux-internal.h"
#include "vf-netlink.h"

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif

/* Called for each answer that is not an ACK or error; < 0 fails the request. */
typedef int (*reply_fn)(const struct nlmsghdr *nlh, void *userdata);

struct request {
	struct host *host;
	reply_fn reply;
	void *userdata;
	bool done;	  /* the ACK or the error arrived */
	bool replied;	  /* reply() accepted an answer */
	int kernel_error; /* the errno of NLMSG_ERROR, negative */
	int reply_error;  /* the first failure of reply() */
};

static int on_valid(struct nl_msg *msg, void *arg)
{
	struct request *req = arg;
	int r;

	if (!req->reply || req->reply_error < 0)
		return NL_OK;
	r = req->reply(nlmsg_hdr(msg), req->userdata);
	if (r < 0)
		req->reply_error = r;
	else
		req->replied = true;
	return NL_OK;
}

static int on_ack(struct nl_msg *msg, void *arg)
{
	struct request *req = arg;

	req->done = true;
	return NL_STOP;
}

static int on_error(struct sockaddr_nl *nla, struct nlmsgerr *e, void *arg)
{
	/* libnl hands over the payload of the NLMSG_ERROR message */
	const struct nlmsghdr *nlh = (const struct nlmsghdr *)((const char *)e - NLMSG_HDRLEN);
	struct request *req = arg;
	const char *text = vf_netlink_extack(nlh);

	req->done = true;
	req->kernel_error = e->error < 0 ? e->error : -EIO;
	if (text)
		host_set_error(req->host, "%s", text);
	return NL_STOP;
}

static int socket_open(int protocol, struct nl_sock **ret)
{
	struct nl_sock *sk = nl_socket_alloc();
	int one = 1, r;

	if (!sk)
		return -ENOMEM;
	r = nl_connect(sk, protocol);
	if (r < 0) {
		nl_socket_free(sk);
		return vf_netlink_errno(r);
	}
	/* the driver's reason in errors, without our request echoed back;
	 * kernels without them still answer */
	(void)setsockopt(nl_socket_get_fd(sk), SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	(void)setsockopt(nl_socket_get_fd(sk), SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one));
	*ret = sk;
	return 0;
}

/* Sends m and reads until its ACK or error. Not nl_wait_for_ack() alone:
 * that returns after the first datagram, which for a GET is the answer,
 * leaving the ACK queued for the next request. A socket that failed below
 * the kernel's answer (sequence mismatch, truncation) is dropped, so the
 * next request starts on a clean one. */
static int transact(struct host_linux *hl, struct nl_sock **skp, struct nl_msg *m, reply_fn reply,
		    void *userdata)
{
	struct request req = { .host = &hl->host, .reply = reply, .userdata = userdata };
	struct nl_cb *base = nl_socket_get_cb(*skp), *cb = base ? nl_cb_clone(base) : NULL;
	int r;

	nl_cb_put(base);
	if (!cb)
		return -ENOMEM;
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, on_valid, &req);
	nl_cb_set(cb, NL_CB_ACK, NL_CB_CUSTOM, on_ack, &req);
	nl_cb_err(cb, NL_CB_CUSTOM, on_error, &req);
	r = nl_send_auto(*skp, m);
	while (r >= 0 && !req.done)
		r = nl_recvmsgs(*skp, cb);
	nl_cb_put(cb);

	if (req.kernel_error < 0)
		return req.kernel_error;
	if (r < 0) {
		nl_socket_free(*skp);
		*skp = NULL;
		host_set_error(&hl->host, "netlink: %s", nl_geterror(r));
		return vf_netlink_errno(r);
	}
	if (req.reply_error < 0)
		return req.reply_error;
	if (reply && !req.replied) {
		host_set_error(&hl->host, "netlink: the kernel acknowledged without an answer");
		return -EBADMSG;
	}
	return 0;
}

static int rtnl_request(struct host_linux *hl, struct nl_msg *m, reply_fn reply, void *userdata)
{
	int r;

	if (!hl->rtnl) {
		r = socket_open(NETLINK_ROUTE, &hl->rtnl);
		if (r < 0) {
			host_set_error(&hl->host, "connecting to rtnetlink: %s", strerror(-r));
			return r;
		}
	}
	return transact(hl, &hl->rtnl, m, reply, userdata);
}

/* --- links --- */

static int pf_ifindex(struct host_linux *hl, const char *pci, int *ret)
{
	return hl_netdev_ifindex(hl, pci, -1, ret);
}

static int parse_link_reply(const struct nlmsghdr *nlh, void *userdata)
{
	return vf_netlink_parse_link(nlh, userdata);
}

int hl_read_pf_netlink(struct host_linux *hl, struct pf_state *pf)
{
	_cleanup_nlmsg_ struct nl_msg *m = NULL;
	bool changeable = false;
	int ifindex, r;

	pf->hw_tc_offload_fixed = true; /* until the netdev says otherwise */
	if (!pf->name)
		return 0;
	r = hl_ifindex(hl, pf->name, &ifindex);
	if (r < 0)
		return r;
	r = vf_netlink_build_get_link(ifindex, hl->vf_stats, &m);
	if (r < 0)
		return r;
	r = rtnl_request(hl, m, parse_link_reply, pf);
	if (r == -EBADMSG)
		host_set_error(&hl->host, "%s: malformed RTM_NEWLINK", pf->name);
	if (r < 0)
		return r;
	r = hl_get_hw_tc_offload_ifindex(hl, ifindex, &pf->hw_tc_offload, &changeable);
	pf->hw_tc_offload_fixed = !changeable;
	return r;
}

/* One request for a link whose ifindex is known. */
static int link_request(struct host_linux *hl, int ifindex,
			int (*build)(int, uint32_t, struct nl_msg **), uint32_t value)
{
	_cleanup_nlmsg_ struct nl_msg *m = NULL;
	int r;

	r = build(ifindex, value, &m);
	if (r < 0)
		return r;
	return rtnl_request(hl, m, NULL, NULL);
}

static int build_set_up(int ifindex, uint32_t unused, struct nl_msg **ret)
{
	return vf_netlink_build_set_up(ifindex, ret);
}

int hl_set_pf_mtu(struct host_linux *hl, const char *pf, uint32_t mtu)
{
	int ifindex, r;

	r = pf_ifindex(hl, pf, &ifindex);
	if (r < 0)
		return r;
	return link_request(hl, ifindex, vf_netlink_build_set_mtu, mtu);
}

int hl_set_pf_up(struct host_linux *hl, const char *pf)
{
	int ifindex, r;

	r = pf_ifindex(hl, pf, &ifindex);
	if (r < 0)
		return r;
	return link_request(hl, ifindex, build_set_up, 0);
}

int hl_set_up_ifname(struct host_linux *hl, const char *ifname)
{
	int ifindex, r;

	r = hl_ifindex(hl, ifname, &ifindex);
	if (r < 0)
		return r;
	return link_request(hl, ifindex, build_set_up, 0);
}

/* Only the PF's netdevs are looked at, not the whole PF: this runs once per
 * VF. */
int hl_set_representor_up(struct host_linux *hl, const char *pf, uint32_t vf)
{
	_cleanup_free_ char *name = NULL;
	int r;

	r = hl_find_representor(hl, pf, vf, &name);
	if (r < 0)
		return r;
	return hl_set_up_ifname(hl, name);
}

int hl_set_vf_mtu(struct host_linux *hl, const char *pf, uint32_t vf, uint32_t mtu)
{
	int ifindex, r;

	r = vf <= INT_MAX ? hl_netdev_ifindex(hl, pf, (int)vf, &ifindex) : -ERANGE;
	if (r < 0)
		return r;
	return link_request(hl, ifindex, vf_netlink_build_set_mtu, mtu);
}

/* --- VF attributes --- */

struct vf_readback {
	uint32_t index;
	struct vf_attrs attrs;
	uint32_t reported;
};

static int parse_vf_reply(const struct nlmsghdr *nlh, void *userdata)
{
	struct vf_readback *b = userdata;

	return vf_netlink_parse_vf(nlh, b->index, &b->attrs, &b->reported);
}

/* Every attribute in one request (the port GUID in a second one: the
 * kernel stops after the first GUID), then read back: drivers may accept
 * a value and keep another (or apply some attributes of the request and
 * refuse a later one). */
int hl_set_vf_ifindex(struct host_linux *hl, int ifindex, uint32_t vf, const struct vf_attrs *attrs,
		      uint32_t keys)
{
	const uint32_t second = keys & VF_KEY_BIT(IB_PORT_GUID);
	_cleanup_nlmsg_ struct nl_msg *set = NULL, *set2 = NULL, *get = NULL;
	struct vf_readback back = { .index = vf };
	int r = 0;

	if (keys & VF_NETLINK_KEYS & ~second)
		r = vf_netlink_build_set_vf(ifindex, vf, attrs, keys & ~second, &set);
	if (r >= 0 && second)
		r = vf_netlink_build_set_vf(ifindex, vf, attrs, second, &set2);
	if (r >= 0)
		r = vf_netlink_build_get_link(ifindex, false, &get);
	if (r < 0) {
		host_set_error(&hl->host, "VF %u: cannot build the request", vf);
		return r;
	}
	if (set)
		r = rtnl_request(hl, set, NULL, NULL);
	if (r >= 0 && set2)
		r = rtnl_request(hl, set2, NULL, NULL);
	if (r < 0)
		return r;
	r = rtnl_request(hl, get, parse_vf_reply, &back);
	if (r == -ENOENT) {
		host_set_error(&hl->host, "VF %u is missing from the PF's VF list", vf);
		return -EIO;
	}
	if (r < 0)
		return r;
	return vf_netlink_verify(vf, attrs, keys, &back.attrs, back.reported, hl->host.error,
				 sizeof(hl->host.error));
}

int hl_set_vf(struct host_linux *hl, const char *pf, uint32_t vf, const struct vf_attrs *attrs,
	      uint32_t keys)
{
	int ifindex, r;

	if (!(keys & VF_NETLINK_KEYS))
		return 0;
	r = pf_ifindex(hl, pf, &ifindex);
	if (r < 0)
		return r;
	return hl_set_vf_ifindex(hl, ifindex, vf, attrs, keys);
}

/* --- the RDMA subsystem --- */

/* RDMA netlink (NETLINK_RDMA, ib_core's): a bare nlmsghdr of type
 * RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_SYS_SET) with the u8
 * RDMA_NLDEV_SYS_ATTR_NETNS_MODE (1 shared, 0 exclusive), as
 * "rdma system set netns" sends it. The socket is opened only where ib_core
 * is loaded: opening it would load ib_core (its module alias). */
int hl_set_rdma_netns_mode(struct host_linux *hl, enum rdma_netns_mode m)
{
	_cleanup_nlmsg_ struct nl_msg *msg = NULL;
	struct nl_sock *sk = NULL;
	struct stat st;
	int r;

	if (fstatat(hl->sysfs_fd, "module/ib_core", &st, 0) < 0) {
		host_set_error(&hl->host, "no RDMA subsystem (ib_core is not loaded)");
		return -EPROTONOSUPPORT;
	}
	msg = nlmsg_alloc_simple(RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_SYS_SET),
				 NLM_F_REQUEST | NLM_F_ACK);
	if (!msg || nla_put_u8(msg, RDMA_NLDEV_SYS_ATTR_NETNS_MODE,
			       m == RDMA_NETNS_MODE_SHARED ? 1 : 0) < 0)
		return -ENOMEM;
	r = socket_open(NETLINK_RDMA, &sk);
	if (r < 0) {
		host_set_error(&hl->host, "connecting to RDMA netlink: %s", strerror(-r));
		return r;
	}
	r = transact(hl, &sk, msg, NULL, NULL);
	nl_socket_free(sk);
	if (r == -EBUSY)
		host_set_error(&hl->host,
			       "the kernel changes the RDMA netns mode only while no network "
			       "namespace but the host's exists; for %s from boot on, put "
			       "\"options ib_core netns_mode=%d\" in a file in /etc/modprobe.d and "
			       "reboot",
			       rdma_netns_mode_to_string(m), m == RDMA_NETNS_MODE_SHARED ? 1 : 0);
	return r;
}

/* --- devlink --- */

/* The devlink handle of a PF: "pci" and its address, or, for devices on
 * other buses (netdevsim in the VM tests), "BUS/NAME" as devlink(8) writes it. */
static int devlink_handle(const char *dev, char bus[static 32], char name[static 64])
{
	const char *slash;

	if (pci_addr_is_valid(dev)) {
		snprintf(bus, 32, "pci");
		snprintf(name, 64, "%s", dev);
		return 0;
	}
	slash = strchr(dev, '/');
	if (!slash || slash == dev || !slash[1] || strchr(slash + 1, '/') ||
	    (size_t)(slash - dev) >= 32 || strlen(slash + 1) >= 64)
		return -EINVAL;
	snprintf(bus, 32, "%.*s", (int)(slash - dev), dev);
	snprintf(name, 64, "%s", slash + 1);
	return 0;
}

/* The id of generic netlink family name, resolved once into *cache (0: not
 * yet, < 0: the kernel has no such family, -EOPNOTSUPP then). */
static int genl_family(struct host_linux *hl, const char *name, int *cache, int *ret)
{
	int r;

	if (*cache < 0)
		return -EOPNOTSUPP;
	if (!hl->genl) {
		r = socket_open(NETLINK_GENERIC, &hl->genl);
		if (r < 0) {
			host_set_error(&hl->host, "connecting to generic netlink: %s",
				       strerror(-r));
			return r;
		}
	}
	if (*cache == 0) {
		r = genl_ctrl_resolve(hl->genl, name);
		if (r == -NLE_OBJ_NOTFOUND) {
			*cache = -1;
			return -EOPNOTSUPP;
		}
		if (r < 0) {
			nl_socket_free(hl->genl);
			hl->genl = NULL;
			host_set_error(&hl->host, "resolving %s: %s", name, nl_geterror(r));
			return vf_netlink_errno(r);
		}
		*cache = r;
	}
	*ret = *cache;
	return 0;
}

static int devlink_family(struct host_linux *hl, int *ret)
{
	return genl_family(hl, DEVLINK_GENL_NAME, &hl->devlink_family, ret);
}

static const uint16_t eswitch_modes[_ESWITCH_MODE_MAX] = {
	[ESWITCH_MODE_LEGACY] = DEVLINK_ESWITCH_MODE_LEGACY,
	[ESWITCH_MODE_SWITCHDEV] = DEVLINK_ESWITCH_MODE_SWITCHDEV,
};

/* mode < 0: none to send (GET). */
static int devlink_request(struct host_linux *hl, uint8_t cmd, const char *dev,
			   enum eswitch_mode mode, reply_fn reply, void *userdata)
{
	_cleanup_nlmsg_ struct nl_msg *m = NULL;
	char bus[32], name[64];
	int family = 0, r;

	r = devlink_handle(dev, bus, name);
	if (r < 0) {
		host_set_error(&hl->host, "%s: not a devlink device", dev);
		return r;
	}
	r = devlink_family(hl, &family);
	if (r < 0)
		return r;
	m = nlmsg_alloc();
	if (!m)
		return -ENOMEM;
	if (!genlmsg_put(m, NL_AUTO_PORT, NL_AUTO_SEQ, family, 0, NLM_F_REQUEST | NLM_F_ACK, cmd,
			 DEVLINK_GENL_VERSION) ||
	    nla_put_string(m, DEVLINK_ATTR_BUS_NAME, bus) < 0 ||
	    nla_put_string(m, DEVLINK_ATTR_DEV_NAME, name) < 0 ||
	    (mode >= 0 && nla_put_u16(m, DEVLINK_ATTR_ESWITCH_MODE, eswitch_modes[mode]) < 0))
		return -ENOMEM;
	return transact(hl, &hl->genl, m, reply, userdata);
}

static int parse_eswitch_reply(const struct nlmsghdr *nlh, void *userdata)
{
	static const struct nla_policy policy[DEVLINK_ATTR_ESWITCH_MODE + 1] = {
		[DEVLINK_ATTR_ESWITCH_MODE] = { .type = NLA_U16 },
	};
	struct nlattr *tb[DEVLINK_ATTR_ESWITCH_MODE + 1];
	int *mode = userdata;

	if (genlmsg_parse((struct nlmsghdr *)nlh, 0, tb, DEVLINK_ATTR_ESWITCH_MODE,
			  (struct nla_policy *)policy) < 0)
		return -EBADMSG;
	if (tb[DEVLINK_ATTR_ESWITCH_MODE])
		*mode = nla_get_u16(tb[DEVLINK_ATTR_ESWITCH_MODE]);
	return 0;
}

/* No devlink instance (igb: -ENODEV), no eswitch ops, or no devlink at
 * all: the device has no eswitch mode. Not a failure for a reader, so
 * h->error keeps what it had. */
int hl_get_eswitch_mode(struct host_linux *hl, const char *pci, enum eswitch_mode *ret)
{
	char saved[sizeof(hl->host.error)];
	int mode = -1, r;

	memcpy(saved, hl->host.error, sizeof(saved));
	r = devlink_request(hl, DEVLINK_CMD_ESWITCH_GET, pci, _ESWITCH_MODE_INVALID,
			    parse_eswitch_reply, &mode);
	if (r == -ENODEV || r == -EOPNOTSUPP || (r >= 0 && mode < 0)) {
		memcpy(hl->host.error, saved, sizeof(saved));
		return -EOPNOTSUPP;
	}
	if (r < 0)
		return r;
	for (enum eswitch_mode m = 0; m < _ESWITCH_MODE_MAX; m++)
		if (eswitch_modes[m] == mode) {
			*ret = m;
			return 0;
		}
	host_set_error(&hl->host, "%s: unknown devlink eswitch mode %d", pci, mode);
	return -EBADMSG;
}

int hl_set_eswitch_mode(struct host_linux *hl, const char *pf, enum eswitch_mode m)
{
	int r;

	if (m < 0 || m >= _ESWITCH_MODE_MAX)
		return -EINVAL;
	hl->host.error[0] = '\0';
	r = devlink_request(hl, DEVLINK_CMD_ESWITCH_SET, pf, m, NULL, NULL);
	if (r == -ENODEV || (r == -EOPNOTSUPP && !hl->host.error[0])) {
		host_set_error(&hl->host, "%s has no devlink eswitch", pf);
		return -EOPNOTSUPP;
	}
	return r;
}

/* --- ethtool features --- */

struct feature_reply {
	const char *name;
	struct ethtool_feature f;
};

static int parse_feature_reply(const struct nlmsghdr *nlh, void *userdata)
{
	struct feature_reply *fr = userdata;

	return ethtool_parse_feature(nlh, fr->name, &fr->f);
}

static int get_feature(struct host_linux *hl, int family, int ifindex, const char *name,
		       struct ethtool_feature *ret)
{
	_cleanup_nlmsg_ struct nl_msg *m = NULL;
	struct feature_reply fr = { .name = name };
	int r;

	r = ethtool_build_features_get(family, ifindex, &m);
	if (r < 0)
		return r;
	r = transact(hl, &hl->genl, m, parse_feature_reply, &fr);
	if (r == -EBADMSG)
		host_set_error(&hl->host, "malformed ETHTOOL_MSG_FEATURES_GET reply");
	if (r < 0)
		return r;
	*ret = fr.f;
	return 0;
}

int hl_get_hw_tc_offload_ifindex(struct host_linux *hl, int ifindex, bool *ret_on,
				 bool *ret_changeable)
{
	struct ethtool_feature f;
	int family, r;

	r = genl_family(hl, ETHTOOL_GENL_NAME, &hl->ethtool_family, &family);
	if (r == -EOPNOTSUPP) {
		/* a kernel before 5.6: the feature is not ours to read or set */
		*ret_on = *ret_changeable = false;
		return 0;
	}
	if (r >= 0)
		r = get_feature(hl, family, ifindex, ETHTOOL_FEATURE_HW_TC, &f);
	if (r < 0)
		return r;
	*ret_on = f.active;
	*ret_changeable = f.changeable;
	return 0;
}

int hl_set_hw_tc_offload_ifindex(struct host_linux *hl, int ifindex, bool on)
{
	_cleanup_nlmsg_ struct nl_msg *m = NULL;
	struct ethtool_feature f;
	int family, r;

	r = genl_family(hl, ETHTOOL_GENL_NAME, &hl->ethtool_family, &family);
	if (r == -EOPNOTSUPP)
		host_set_error(&hl->host, "the kernel has no ethtool netlink family");
	if (r >= 0)
		r = ethtool_build_feature_set(family, ifindex, ETHTOOL_FEATURE_HW_TC, on, &m);
	if (r >= 0)
		r = transact(hl, &hl->genl, m, NULL, NULL);
	if (r >= 0)
		r = get_feature(hl, family, ifindex, ETHTOOL_FEATURE_HW_TC, &f);
	if (r < 0)
		return r;
	/* the driver may keep a feature off that another one depends on */
	if (f.active != on) {
		host_set_error(&hl->host, "hw-tc-offload is still %s after setting it",
			       f.active ? "on" : "off");
		return -EIO;
	}
	return 0;
}

int hl_set_hw_tc_offload(struct host_linux *hl, const char *pf, bool on)
{
	int ifindex, r;

	r = pf_ifindex(hl, pf, &ifindex);
	if (r < 0)
		return r;
	return hl_set_hw_tc_offload_ifindex(hl, ifindex, on);
}
