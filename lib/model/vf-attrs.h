/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The attributes of one VF: one vocabulary for what the host has (struct
 * vf_state), what a layout wants (struct vf_settings), the planner and both
 * host backends. Each key is one row of the table in vf-attrs.c: its name
 * in layouts and in ip-link(8), its kind and range, the kernel's value for a
 * new VF, the keys the kernel takes together with it, and the field it lives
 * in. Parsing, copying, comparing, formatting and default checks all go
 * through that row; the netlink encoding of a key is in vf-netlink*.c.
 * Pure. */

#include "util.h"

enum vlan_proto {
	VLAN_PROTO_8021Q,
	VLAN_PROTO_8021AD,
	_VLAN_PROTO_MAX,
	_VLAN_PROTO_INVALID = -EINVAL,
};

/* IFLA_VF_LINK_STATE_{AUTO,ENABLE,DISABLE}; spelled auto|yes|no in layouts,
 * auto|enable|disable in snapshots (as iproute2 prints it). */
enum link_state {
	LINK_STATE_AUTO,
	LINK_STATE_ENABLE,
	LINK_STATE_DISABLE,
	_LINK_STATE_MAX,
	_LINK_STATE_INVALID = -EINVAL,
};

/* HostNetworkStack=: whether the host's network stack (NetworkManager,
 * systemd-networkd) is to leave a VF's network interface alone. */
enum host_network_stack {
	HOST_NETWORK_STACK_MANAGED,
	HOST_NETWORK_STACK_UNMANAGED,
	_HOST_NETWORK_STACK_MAX,
	_HOST_NETWORK_STACK_INVALID = -EINVAL,
};

/* Snapshot spellings "802.1Q"/"802.1ad", "auto"/"enable"/"disable";
 * from_string returns the _INVALID value on an unknown string. */
const char *vlan_proto_to_string(enum vlan_proto p) _pure_;
enum vlan_proto vlan_proto_from_string(const char *s) _pure_;
const char *link_state_to_string(enum link_state s) _pure_;
enum link_state link_state_from_string(const char *s) _pure_;
/* "managed"/"unmanaged" */
const char *host_network_stack_to_string(enum host_network_stack h) _pure_;
enum host_network_stack host_network_stack_from_string(const char *s) _pure_;

/* In the order plans describe them. */
enum vf_key {
	VF_KEY_DRIVER,
	VF_KEY_MAC,
	VF_KEY_VLAN,
	VF_KEY_QOS,
	VF_KEY_VLAN_PROTO,
	VF_KEY_TRUST,
	VF_KEY_SPOOFCHK,
	VF_KEY_LINK_STATE,
	VF_KEY_QUERY_RSS,
	VF_KEY_MIN_TX_RATE,
	VF_KEY_MAX_TX_RATE,
	VF_KEY_IB_NODE_GUID,
	VF_KEY_IB_PORT_GUID,
	VF_KEY_MTU,
	VF_KEY_RDMA,
	VF_KEY_RESOURCE_NAME,
	VF_KEY_HOST_NETWORK_STACK,
	_VF_KEY_MAX,
	_VF_KEY_INVALID = -EINVAL,
};

#define VF_KEY_BIT(k) (1u << VF_KEY_##k)

/* The keys that travel in IFLA_VF_INFO ("ip link set DEV vf N ..."): those
 * whose row has an ip name. */
uint32_t vf_netlink_keys(void) _pure_;
#define VF_NETLINK_KEYS vf_netlink_keys()

/* The InfiniBand GUIDs among them: the kernel's do_setvfinfo returns after
 * the first GUID it sets, so each needs a request of its own. */
#define VF_NETLINK_GUID_KEYS (VF_KEY_BIT(IB_NODE_GUID) | VF_KEY_BIT(IB_PORT_GUID))

/* The value of every key. In a vf_state: driver NULL = unbound, rdma = the
 * VF has an RDMA device, resource_name and host_network_stack unused. In
 * a vf_settings: driver
 * NULL = the kernel's VF driver. */
struct vf_attrs {
	char *driver;
	struct mac_addr mac;
	uint16_t vlan;
	uint8_t qos;
	enum vlan_proto vlan_proto;
	bool trust;
	bool spoofchk;
	enum link_state link_state;
	bool query_rss;
	uint32_t min_tx_rate;  /* Mbps */
	uint32_t max_tx_rate;  /* Mbps, 0 = unlimited */
	uint64_t ib_node_guid; /* InfiniBand ports; 0 = not set */
	uint64_t ib_port_guid;
	uint32_t mtu;
	bool rdma;
	char *resource_name;
	enum host_network_stack host_network_stack;
};

/* Key names as written in layouts ("MACAddress", "VLANId", ...); NULL past
 * the last. */
const char *vf_key_to_string(enum vf_key k) _pure_;
enum vf_key vf_key_from_string(const char *s) _pure_;
/* The netlink keys as "ip link set DEV vf N ..." spells them ("mac",
 * "vlan", "state", ...); NULL for the others. */
const char *vf_key_to_ip_name(enum vf_key k) _pure_;
#define VF_KEY_OTHER_NAMES_MAX 2
/* The n-th name sysfs or another tool gives key k, when neither its
 * layout name nor its ip-link(8) name ("driver_override" for Driver,
 * ip-link's "vlan-qos" for QualityOfService): for "did you mean". NULL
 * past the last. */
const char *vf_key_other_name(enum vf_key k, size_t n) _pure_;
/* The name status tables give key k: its ip-link(8) name, else "driver",
 * "mtu", "rdma", "resource_name", "host_network_stack". */
const char *vf_key_to_label(enum vf_key k) _pure_;
/* Whether a host has a value for key k (all but the resource name and
 * HostNetworkStack=, which are the layout's alone). */
bool vf_key_on_host(enum vf_key k) _pure_;
/* The keys the kernel takes in one attribute with k, k included: the VLAN
 * id, QoS and protocol (one ifla_vf_vlan_info), the two rates (one
 * ifla_vf_rate). Bits (1u << enum vf_key). */
uint32_t vf_key_group(enum vf_key k) _pure_;

/* How a key's value is spelled in layouts (only ever switched on, so no
 * _MAX). */
enum vf_kind {
	VF_KIND_DRIVER,	    /* "default" (NULL) or a module name */
	VF_KIND_NAME,	    /* letters, digits, '_' */
	VF_KIND_MAC,	    /* a literal unicast address */
	VF_KIND_GUID,	    /* a literal GUID, not zero */
	VF_KIND_UINT,	    /* min..max */
	VF_KIND_BOOL,	    /* a boolean */
	VF_KIND_LINK_STATE, /* auto or a boolean */
	VF_KIND_VLAN_PROTO, /* 802.1Q or 802.1ad */
	VF_KIND_HOST_STACK, /* managed or unmanaged */
};

/* The least MTUBytes= a layout takes ([PhysicalFunction] and
 * [VirtualFunction] alike): IPv4's minimum, whatever less a driver allows. */
#define LAYOUT_MTU_MIN 68

/* A host's value of one key as the documents that carry it (the snapshot,
 * the VFs of the status document) know it. */
struct vf_key_field {
	const char *name; /* "spoofchk", "vlan_proto", "ib_node_guid", "mtu" */
	enum vf_kind kind;
	size_t offset, size; /* of the field in struct vf_attrs */
	uint32_t min, max;   /* VF_KIND_UINT: what a host may have (0 too when
			      * 0 means it has none, as an MTU without a netdev) */
	bool optional;	     /* a snapshot may leave it out */
	bool in_status;	     /* the status document's VFs carry it */
};

/* Key k as a host document carries it; false for a key a host has no
 * value for (the resource name, HostNetworkStack=). */
bool vf_key_host_field(enum vf_key k, struct vf_key_field *ret);

/* Keys whose value names one VF and no other (the MAC, the GUIDs): a
 * literal only in a single-VF section, "stable" derived per VF. */
bool vf_key_is_unique(enum vf_key k) _pure_;

/* A module name as Driver= takes it: 1 to 63 letters, digits, '_' or '-'. */
bool vf_driver_name_is_valid(const char *s) _pure_;
/* Parses value into key k of a: 0, -ENOMEM, or -EINVAL with *ret_why set
 * to a static text saying what the value must be. MACAddress= takes a
 * literal unicast address here, the GUIDs a literal other than zero;
 * "stable" is the layout's business. */
int vf_attrs_parse(struct vf_attrs *a, enum vf_key k, const char *value, const char **ret_why);
bool vf_attrs_equal(const struct vf_attrs *a, const struct vf_attrs *b, enum vf_key k) _pure_;
/* Key k of src into dst. 0 or -ENOMEM (string keys only). */
int vf_attrs_copy(struct vf_attrs *dst, const struct vf_attrs *src, enum vf_key k);
/* The values the kernel gives a new VF (the table's defaults), the others
 * zero. */
void vf_attrs_init(struct vf_attrs *a);
/* Every key of src, strings copied, into *ret (a struct assignment would
 * share them). 0 or -ENOMEM. */
int vf_attrs_copy_all(struct vf_attrs *ret, const struct vf_attrs *src);
/* Key k back to zero, its string freed. */
void vf_attrs_clear(struct vf_attrs *a, enum vf_key k);
/* Whether key k has the value the kernel gives a new VF: all that a driver
 * without the attribute can "set". False for keys without such a value
 * (the driver, the MAC, the MTU, RDMA, the resource name). */
bool vf_attrs_is_default(const struct vf_attrs *a, enum vf_key k) _pure_;

enum vf_spelling {
	VF_SPELLING_LAYOUT, /* as a layout writes it: yes/no, LinkState=auto|yes|no */
	VF_SPELLING_IP,	    /* as ip-link(8) shows it: on/off, auto|enable|disable */
	/* as sriovctl status compares a VF: ip-link's on/off (its TRUST and
	 * SPOOF columns), the layout's auto|yes|no for the link state */
	VF_SPELLING_STATUS,
};
#define VF_ATTR_STR_MAX 72
/* Key k of a as text in buf; returns buf. A NULL driver is "default". */
const char *vf_attrs_format(const struct vf_attrs *a, enum vf_key k, enum vf_spelling s,
			    char buf[static VF_ATTR_STR_MAX]);

/* Whether the host has a value of key k for a VF (a in a vf_state): not
 * for no driver bound, no netdev (MTU 0), a GUID never set, the resource
 * name and HostNetworkStack= (the layout's alone). */
bool vf_attrs_host_has(const struct vf_attrs *a, enum vf_key k) _pure_;
/* Key k of a VF as the host has it (a in a vf_state), or NULL when the
 * host has no value for it: no driver bound, no netdev (MTU 0), a GUID
 * never set, the resource name and HostNetworkStack= (the layout's alone). */
const char *vf_attrs_format_host(const struct vf_attrs *a, enum vf_key k, enum vf_spelling s,
				 char buf[static VF_ATTR_STR_MAX]);

/* Frees the strings; a is all zero afterwards. */
void vf_attrs_done(struct vf_attrs *a);
