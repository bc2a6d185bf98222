/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* One row per VF key; everything else here is driven by the row's kind. */

#include <assert.h>
#include <stddef.h>

#include "vf-attrs.h"

static const char *const vlan_proto_table[_VLAN_PROTO_MAX] = {
	[VLAN_PROTO_8021Q] = "802.1Q",
	[VLAN_PROTO_8021AD] = "802.1ad",
};

static const char *const link_state_table[_LINK_STATE_MAX] = {
	[LINK_STATE_AUTO] = "auto",
	[LINK_STATE_ENABLE] = "enable",
	[LINK_STATE_DISABLE] = "disable",
};

/* LinkState= as systemd-networkd's [SR-IOV] LinkState= takes it. */
static const char *const link_state_layout_table[_LINK_STATE_MAX] = {
	[LINK_STATE_AUTO] = "auto",
	[LINK_STATE_ENABLE] = "yes",
	[LINK_STATE_DISABLE] = "no",
};

static const char *const host_network_stack_table[_HOST_NETWORK_STACK_MAX] = {
	[HOST_NETWORK_STACK_MANAGED] = "managed",
	[HOST_NETWORK_STACK_UNMANAGED] = "unmanaged",
};

DEFINE_STRING_TABLE(vlan_proto, enum vlan_proto, vlan_proto_table)
DEFINE_STRING_TABLE(host_network_stack, enum host_network_stack, host_network_stack_table)
DEFINE_STRING_TABLE(link_state, enum link_state, link_state_table)

#define GROUP_VLAN (VF_KEY_BIT(VLAN) | VF_KEY_BIT(QOS) | VF_KEY_BIT(VLAN_PROTO))
#define GROUP_RATE (VF_KEY_BIT(MIN_TX_RATE) | VF_KEY_BIT(MAX_TX_RATE))
#define WHY_GUID "must be stable or a GUID like 02:00:00:00:00:00:00:01"
#define NAME_MAX_ 63

struct key_info {
	const char *name;    /* in layouts */
	const char *ip_name; /* in ip-link(8); NULL: not a netlink attribute */
	const char *label;   /* in status tables when there is no ip_name */
	enum vf_kind kind;
	size_t offset, size;   /* of the field in struct vf_attrs */
	uint32_t min, max;     /* VF_KIND_UINT */
	const char *why;       /* what a value must be */
	const char *why_slash; /* VF_KIND_NAME: instead of why for a value with a '/' */
	uint32_t group;	       /* 0: the key goes to the kernel alone */
	bool unique;	       /* vf_key_is_unique() */
	bool has_default;      /* a new VF has dflt */
	uint32_t dflt;
	/* a host has no value for it when zero (no driver, no netdev, a GUID
	 * never set), or never (the resource name) */
	bool host_zero_is_none, not_on_host;
	/* the host's value in the snapshot and the status document: its name
	 * there when not the label; a snapshot may leave it out (added after
	 * the first snapshots, or a GUID never set); the VFs of the status
	 * document have never carried it (their "settings" do) */
	const char *doc_name;
	bool doc_optional, not_in_status;
	/* what sysfs or another tool calls it, for "did you mean" */
	const char *other_names[VF_KEY_OTHER_NAMES_MAX];
};

#define FIELD(f) \
	.offset = offsetof(struct vf_attrs, f), .size = sizeof(((struct vf_attrs *)NULL)->f)
#define RANGE(lo, hi, w) .min = (lo), .max = (hi), .why = (w)
#define DEFAULT(v) .has_default = true, .dflt = (v)

static const struct key_info keys[_VF_KEY_MAX] = {
	[VF_KEY_DRIVER] = { "Driver", NULL, "driver", VF_KIND_DRIVER, FIELD(driver),
			    .host_zero_is_none = true,
			    .other_names = { "driver_override" /* sysfs */ },
			    .why = "must be default or a module name (1..63 letters, digits, "
				   "'_' or '-')" },
	[VF_KEY_MAC] = { "MACAddress", "mac", NULL, VF_KIND_MAC, FIELD(mac),
			 .why = "must be stable or an address like 02:00:00:00:00:01",
			 .unique = true },
	[VF_KEY_VLAN] = { "VLANId", "vlan", NULL, VF_KIND_UINT, FIELD(vlan),
			  RANGE(0, 4095, "must be 0..4095"), .group = GROUP_VLAN, DEFAULT(0) },
	[VF_KEY_QOS] = { "QualityOfService", "qos", NULL, VF_KIND_UINT, FIELD(qos),
			 RANGE(0, 7, "must be 0..7"), .group = GROUP_VLAN, DEFAULT(0),
			 .other_names = { "vlan-qos" /* ip-link(8)'s VLAN-QOS */ } },
	[VF_KEY_VLAN_PROTO] = { "VLANProtocol", "proto", NULL, VF_KIND_VLAN_PROTO,
				FIELD(vlan_proto), .why = "must be 802.1Q or 802.1ad",
				.group = GROUP_VLAN, DEFAULT(VLAN_PROTO_8021Q),
				.doc_name = "vlan_proto", .not_in_status = true },
	[VF_KEY_TRUST] = { "Trust", "trust", NULL, VF_KIND_BOOL, FIELD(trust), .why = WHY_BOOLEAN,
			   DEFAULT(false) },
	[VF_KEY_SPOOFCHK] = { "MACSpoofCheck", "spoofchk", NULL, VF_KIND_BOOL, FIELD(spoofchk),
			      .why = WHY_BOOLEAN, DEFAULT(true) },
	[VF_KEY_LINK_STATE] = { "LinkState", "state", NULL, VF_KIND_LINK_STATE, FIELD(link_state),
				.why = "must be auto, yes or no", DEFAULT(LINK_STATE_AUTO),
				.doc_name = "link_state" },
	[VF_KEY_QUERY_RSS] = { "QueryReceiveSideScaling", "query_rss", NULL, VF_KIND_BOOL,
			       FIELD(query_rss), .why = WHY_BOOLEAN, DEFAULT(false),
			       .doc_optional = true, .not_in_status = true },
	[VF_KEY_MIN_TX_RATE] = { "MinTxRateMbps", "min_tx_rate", NULL, VF_KIND_UINT,
				 FIELD(min_tx_rate), RANGE(0, UINT32_MAX, "must be 0..4294967295"),
				 .group = GROUP_RATE, DEFAULT(0), .not_in_status = true },
	[VF_KEY_MAX_TX_RATE] = { "MaxTxRateMbps", "max_tx_rate", NULL, VF_KIND_UINT,
				 FIELD(max_tx_rate), RANGE(0, UINT32_MAX, "must be 0..4294967295"),
				 .group = GROUP_RATE, DEFAULT(0), .not_in_status = true },
	/* each alone: do_setvfinfo returns after the first GUID it sets */
	[VF_KEY_IB_NODE_GUID] = { "IBNodeGUID", "node_guid", NULL, VF_KIND_GUID,
				  FIELD(ib_node_guid), .why = WHY_GUID, .unique = true,
				  .host_zero_is_none = true, .doc_name = "ib_node_guid",
				  .doc_optional = true },
	[VF_KEY_IB_PORT_GUID] = { "IBPortGUID", "port_guid", NULL, VF_KIND_GUID,
				  FIELD(ib_port_guid), .why = WHY_GUID, .unique = true,
				  .host_zero_is_none = true, .doc_name = "ib_port_guid",
				  .doc_optional = true },
	[VF_KEY_MTU] = { "MTUBytes", NULL, "mtu", VF_KIND_UINT, FIELD(mtu),
			 RANGE(LAYOUT_MTU_MIN, 65535, "must be 68..65535"),
			 .host_zero_is_none = true },
	[VF_KEY_RDMA] = { "RDMA", NULL, "rdma", VF_KIND_BOOL, FIELD(rdma), .why = WHY_BOOLEAN },
	[VF_KEY_RESOURCE_NAME] = { "ResourceName", NULL, "resource_name", VF_KIND_NAME,
				   FIELD(resource_name),
				   .why = "must be 1..63 letters, digits or '_'",
				   /* "intel.com/e810": the full name of the resource */
				   .why_slash = "must be 1..63 letters, digits or '_': give the "
						"name without its 'prefix/'; the prefix is the "
						"host's [Kubernetes] ResourcePrefix= in "
						"sriov-persist.conf (intel.com by default)",
				   .not_on_host = true },
	[VF_KEY_HOST_NETWORK_STACK] = { "HostNetworkStack", NULL, "host_network_stack",
					VF_KIND_HOST_STACK, FIELD(host_network_stack),
					.why = "must be managed or unmanaged",
					.not_on_host = true },
};

static const struct key_info *info(enum vf_key k)
{
	assert(k >= 0 && k < _VF_KEY_MAX);
	return &keys[k];
}

const char *vf_key_to_string(enum vf_key k)
{
	return k >= 0 && k < _VF_KEY_MAX ? keys[k].name : NULL;
}

enum vf_key vf_key_from_string(const char *s)
{
	for (enum vf_key k = 0; s && k < _VF_KEY_MAX; k++)
		if (streq(keys[k].name, s))
			return k;
	return _VF_KEY_INVALID;
}

const char *vf_key_to_ip_name(enum vf_key k)
{
	return k >= 0 && k < _VF_KEY_MAX ? keys[k].ip_name : NULL;
}

const char *vf_key_other_name(enum vf_key k, size_t n)
{
	return k >= 0 && k < _VF_KEY_MAX && n < VF_KEY_OTHER_NAMES_MAX ? keys[k].other_names[n] :
									 NULL;
}

const char *vf_key_to_label(enum vf_key k)
{
	return k >= 0 && k < _VF_KEY_MAX ? keys[k].ip_name ?: keys[k].label : NULL;
}

bool vf_key_on_host(enum vf_key k)
{
	return !info(k)->not_on_host;
}

bool vf_key_is_unique(enum vf_key k)
{
	return info(k)->unique;
}

uint32_t vf_key_group(enum vf_key k)
{
	return info(k)->group ?: 1u << k;
}

uint32_t vf_netlink_keys(void)
{
	uint32_t m = 0;

	for (enum vf_key k = 0; k < _VF_KEY_MAX; k++)
		if (keys[k].ip_name)
			m |= 1u << k;
	return m;
}

bool vf_key_host_field(enum vf_key k, struct vf_key_field *ret)
{
	const struct key_info *i = info(k);

	if (i->not_on_host)
		return false;
	*ret = (struct vf_key_field){
		.name = i->doc_name ?: vf_key_to_label(k),
		.kind = i->kind,
		.offset = i->offset,
		.size = i->size,
		/* a host without a value has zero (an MTU without a netdev) */
		.min = i->host_zero_is_none ? 0 : i->min,
		.max = i->max,
		.optional = i->doc_optional,
		.in_status = !i->not_in_status,
	};
	return true;
}

/* ---- fields ---- */

static void *field(struct vf_attrs *a, const struct key_info *i)
{
	return (char *)a + i->offset;
}

static const void *cfield(const struct vf_attrs *a, const struct key_info *i)
{
	return (const char *)a + i->offset;
}

static bool is_string(const struct key_info *i)
{
	return i->kind == VF_KIND_DRIVER || i->kind == VF_KIND_NAME;
}

/* A number, a bool or an enum of any width as uint32_t. */
static uint32_t get_scalar(const struct vf_attrs *a, const struct key_info *i)
{
	const void *p = cfield(a, i);

	switch (i->size) {
	case sizeof(uint8_t):
		return *(const uint8_t *)p;
	case sizeof(uint16_t):
		return *(const uint16_t *)p;
	default:
		assert(i->size == sizeof(uint32_t));
		return *(const uint32_t *)p;
	}
}

static void set_scalar(struct vf_attrs *a, const struct key_info *i, uint32_t v)
{
	void *p = field(a, i);

	switch (i->size) {
	case sizeof(uint8_t):
		*(uint8_t *)p = (uint8_t)v;
		break;
	case sizeof(uint16_t):
		*(uint16_t *)p = (uint16_t)v;
		break;
	default:
		assert(i->size == sizeof(uint32_t));
		*(uint32_t *)p = v;
	}
}

static char **string_field(struct vf_attrs *a, const struct key_info *i)
{
	return field(a, i);
}

static const char *get_string(const struct vf_attrs *a, const struct key_info *i)
{
	return *(char *const *)cfield(a, i);
}

bool vf_attrs_equal(const struct vf_attrs *a, const struct vf_attrs *b, enum vf_key k)
{
	const struct key_info *i = info(k);

	if (is_string(i))
		return streq_ptr(get_string(a, i), get_string(b, i));
	return memcmp(cfield(a, i), cfield(b, i), i->size) == 0;
}

int vf_attrs_copy(struct vf_attrs *dst, const struct vf_attrs *src, enum vf_key k)
{
	const struct key_info *i = info(k);

	if (is_string(i))
		return free_and_strdup(string_field(dst, i), get_string(src, i));
	memcpy(field(dst, i), cfield(src, i), i->size);
	return 0;
}

void vf_attrs_init(struct vf_attrs *a)
{
	*a = (struct vf_attrs){};
	for (enum vf_key k = 0; k < _VF_KEY_MAX; k++)
		if (keys[k].has_default)
			set_scalar(a, &keys[k], keys[k].dflt);
}

int vf_attrs_copy_all(struct vf_attrs *ret, const struct vf_attrs *src)
{
	struct vf_attrs c = {};

	for (enum vf_key k = 0; k < _VF_KEY_MAX; k++)
		if (vf_attrs_copy(&c, src, k) < 0) {
			vf_attrs_done(&c);
			return -ENOMEM;
		}
	*ret = c;
	return 0;
}

void vf_attrs_clear(struct vf_attrs *a, enum vf_key k)
{
	const struct key_info *i = info(k);

	if (is_string(i))
		free(*string_field(a, i));
	memset(field(a, i), 0, i->size);
}

bool vf_attrs_is_default(const struct vf_attrs *a, enum vf_key k)
{
	const struct key_info *i = info(k);

	return i->has_default && get_scalar(a, i) == i->dflt;
}

void vf_attrs_done(struct vf_attrs *a)
{
	if (!a)
		return;
	free(a->driver);
	free(a->resource_name);
	*a = (struct vf_attrs){};
}

/* ---- parsing ---- */

/* 1..63 characters, each a letter, a digit or one of extra. */
static bool name_is_valid(const char *s, const char *extra)
{
	size_t n = strlen(s);

	if (n == 0 || n > NAME_MAX_)
		return false;
	for (const char *p = s; *p; p++)
		if (!(*p >= 'a' && *p <= 'z') && !(*p >= 'A' && *p <= 'Z') &&
		    !(*p >= '0' && *p <= '9') && !strchr(extra, *p))
			return false;
	return true;
}

bool vf_driver_name_is_valid(const char *s)
{
	return name_is_valid(s, "_-");
}

static int parse_string(struct vf_attrs *a, const struct key_info *i, const char *v)
{
	char *s = NULL;

	if (!(i->kind == VF_KIND_DRIVER && streq(v, "default"))) {
		s = strdup(v);
		if (!s)
			return -ENOMEM;
	}
	free(*string_field(a, i));
	*string_field(a, i) = s;
	return 0;
}

static int parse_guid(struct vf_attrs *a, const struct key_info *i, const char *v,
		      const char **ret_why)
{
	uint64_t g;

	if (guid_parse(v, &g) < 0)
		return -EINVAL;
	/* the kernel reports 0 for a GUID never set */
	if (g == 0) {
		*ret_why = "must not be 00:00:00:00:00:00:00:00";
		return -EINVAL;
	}
	memcpy(field(a, i), &g, sizeof(g));
	return 0;
}

static int parse_mac(struct vf_attrs *a, const char *v, const char **ret_why)
{
	struct mac_addr m;

	if (mac_parse(v, &m) < 0)
		return -EINVAL;
	if (mac_is_multicast(&m)) {
		*ret_why = "must be a unicast address";
		return -EINVAL;
	}
	if (mac_is_zero(&m)) {
		*ret_why = "must not be 00:00:00:00:00:00";
		return -EINVAL;
	}
	a->mac = m;
	return 0;
}

/* The value of a scalar kind, -EINVAL when v is not one. */
static int parse_scalar(const struct key_info *i, const char *v, uint32_t *ret)
{
	int r = -EINVAL;

	switch (i->kind) {
	case VF_KIND_UINT:
		if (safe_atou32(v, 10, ret) < 0 || *ret < i->min || *ret > i->max)
			return -EINVAL;
		return 0;
	case VF_KIND_BOOL:
		r = parse_boolean(v);
		break;
	case VF_KIND_LINK_STATE:
		if (streq(v, "auto"))
			r = LINK_STATE_AUTO;
		else if ((r = parse_boolean(v)) >= 0)
			r = r ? LINK_STATE_ENABLE : LINK_STATE_DISABLE;
		break;
	case VF_KIND_VLAN_PROTO:
		r = vlan_proto_from_string(v);
		break;
	case VF_KIND_HOST_STACK:
		r = host_network_stack_from_string(v);
		break;
	case VF_KIND_DRIVER:
	case VF_KIND_NAME:
	case VF_KIND_MAC:
	case VF_KIND_GUID:
		return -EINVAL;
	}
	if (r < 0)
		return -EINVAL;
	*ret = (uint32_t)r;
	return 0;
}

int vf_attrs_parse(struct vf_attrs *a, enum vf_key k, const char *v, const char **ret_why)
{
	const struct key_info *i = info(k);
	uint32_t u;
	int r;

	*ret_why = i->why;
	switch (i->kind) {
	case VF_KIND_DRIVER:
		if (!streq(v, "default") && !vf_driver_name_is_valid(v))
			return -EINVAL;
		return parse_string(a, i, v);
	case VF_KIND_NAME:
		if (i->why_slash && strchr(v, '/'))
			*ret_why = i->why_slash;
		if (!name_is_valid(v, "_"))
			return -EINVAL;
		return parse_string(a, i, v);
	case VF_KIND_MAC:
		return parse_mac(a, v, ret_why);
	case VF_KIND_GUID:
		return parse_guid(a, i, v, ret_why);
	case VF_KIND_UINT:
	case VF_KIND_BOOL:
	case VF_KIND_LINK_STATE:
	case VF_KIND_VLAN_PROTO:
	case VF_KIND_HOST_STACK:
		r = parse_scalar(i, v, &u);
		if (r < 0)
			return r;
		set_scalar(a, i, u);
		return 0;
	}
	return -EINVAL;
}

/* ---- formatting ---- */

const char *vf_attrs_format(const struct vf_attrs *a, enum vf_key k, enum vf_spelling s,
			    char buf[static VF_ATTR_STR_MAX])
{
	const struct key_info *i = info(k);
	const char *t = NULL;

	switch (i->kind) {
	case VF_KIND_DRIVER:
	case VF_KIND_NAME:
		t = get_string(a, i) ?: (i->kind == VF_KIND_DRIVER ? "default" : "");
		break;
	case VF_KIND_MAC:
		return mac_format(&a->mac, buf);
	case VF_KIND_GUID: {
		uint64_t g;

		memcpy(&g, cfield(a, i), sizeof(g));
		return guid_format(g, buf);
	}
	case VF_KIND_UINT:
		snprintf(buf, VF_ATTR_STR_MAX, "%u", get_scalar(a, i));
		return buf;
	case VF_KIND_BOOL:
		t = s == VF_SPELLING_LAYOUT ? yes_no(get_scalar(a, i)) : on_off(get_scalar(a, i));
		break;
	case VF_KIND_LINK_STATE:
		t = string_table_get(s == VF_SPELLING_IP ? link_state_table :
							   link_state_layout_table,
				     _LINK_STATE_MAX, (int)get_scalar(a, i));
		break;
	case VF_KIND_VLAN_PROTO:
		t = vlan_proto_to_string((enum vlan_proto)get_scalar(a, i));
		break;
	case VF_KIND_HOST_STACK:
		t = host_network_stack_to_string((enum host_network_stack)get_scalar(a, i));
		break;
	}
	snprintf(buf, VF_ATTR_STR_MAX, "%s", strna(t));
	return buf;
}

bool vf_attrs_host_has(const struct vf_attrs *a, enum vf_key k)
{
	const struct key_info *i = info(k);
	static const char zero[sizeof(uint64_t)];

	if (i->not_on_host)
		return false;
	return !i->host_zero_is_none ||
	       (is_string(i) ? !!get_string(a, i) : memcmp(cfield(a, i), zero, i->size) != 0);
}

const char *vf_attrs_format_host(const struct vf_attrs *a, enum vf_key k, enum vf_spelling s,
				 char buf[static VF_ATTR_STR_MAX])
{
	return vf_attrs_host_has(a, k) ? vf_attrs_format(a, k, s, buf) : NULL;
}
