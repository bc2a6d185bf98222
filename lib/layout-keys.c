/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <stddef.h>

#include "layout-keys.h"

#define WHY_BOOLEAN "must be a boolean (yes/no/true/false/on/off/1/0)"
#define NAME_MAX_ 63

static int fail(const char **ret_why, const char *why)
{
	*ret_why = why;
	return -EINVAL;
}

static int parse_bool(const char *v, bool *ret, const char **ret_why)
{
	int r = parse_boolean(v);

	if (r < 0)
		return fail(ret_why, WHY_BOOLEAN);
	*ret = r;
	return 0;
}

static int parse_range(const char *v, uint32_t min, uint32_t max, uint32_t *ret,
		       const char **ret_why, const char *why)
{
	uint32_t u;

	if (safe_atou32(v, 10, &u) < 0 || u < min || u > max)
		return fail(ret_why, why);
	*ret = u;
	return 0;
}

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

/* ---- [PhysicalFunction] ---- */

static const char *const firmware_vfs_names[_FIRMWARE_VFS_MAX] = {
	[FIRMWARE_VFS_AUTO] = "auto",
	[FIRMWARE_VFS_NO] = "no",
};

static int pf_parse_num_vfs(struct pf_settings *s, const char *v, const char **ret_why)
{
	static const char why[] = "must be 0..65535 or max";
	uint32_t n;

	if (streq(v, "max")) {
		s->num_vfs_max = true;
		s->num_vfs = 0;
		return 0;
	}
	if (parse_range(v, 0, 65535, &n, ret_why, why) < 0)
		return -EINVAL;
	s->num_vfs_max = false;
	s->num_vfs = n;
	return 0;
}

static int pf_parse_enum(int *field, const char *const *names, size_t n, const char *v,
			 const char **ret_why, const char *why)
{
	int i = string_table_lookup(names, n, v);

	if (i < 0)
		return fail(ret_why, why);
	*field = i;
	return 0;
}

int pf_settings_parse(struct pf_settings *s, enum pf_key k, const char *v, const char **ret_why)
{
	int i = 0, r = -EINVAL;

	switch (k) {
	case PF_KEY_VIRTUAL_FUNCTIONS:
		return pf_parse_num_vfs(s, v, ret_why);
	case PF_KEY_MTU:
		return parse_range(v, 68, 65535, &s->mtu, ret_why, "must be 68..65535");
	case PF_KEY_LINK_UP:
		return parse_bool(v, &s->link_up, ret_why);
	case PF_KEY_ESWITCH_MODE:
		i = eswitch_mode_from_string(v);
		if (i < 0)
			return fail(ret_why, "must be legacy or switchdev");
		s->eswitch_mode = (enum eswitch_mode)i;
		return 0;
	case PF_KEY_HW_TC_OFFLOAD:
		return parse_bool(v, &s->hw_tc_offload, ret_why);
	case PF_KEY_LINK_TYPE:
		i = link_type_from_string(v);
		if (i < 0)
			return fail(ret_why, "must be ethernet or infiniband");
		s->link_type = (enum link_type)i;
		return 0;
	case PF_KEY_FIRMWARE_VFS:
		r = pf_parse_enum(&i, firmware_vfs_names, _FIRMWARE_VFS_MAX, v, ret_why,
				  "must be auto or no");
		if (r >= 0)
			s->firmware_vfs = (enum firmware_vfs)i;
		return r;
	case PF_KEY_EXTERNALLY_MANAGED:
		return parse_bool(v, &s->externally_managed, ret_why);
	case _PF_KEY_MAX:
	case _PF_KEY_INVALID:
		break;
	}
	return -EINVAL;
}

void pf_settings_unset(struct pf_settings *s, enum pf_key k)
{
	s->set &= ~(1u << k);
	s->src[k] = (struct src){};
}

/* Copies the value of one key; the caller marks it set. */
static void pf_settings_copy_key(struct pf_settings *dst, const struct pf_settings *src,
				 enum pf_key k)
{
	switch (k) {
	case PF_KEY_VIRTUAL_FUNCTIONS:
		dst->num_vfs_max = src->num_vfs_max;
		dst->num_vfs = src->num_vfs;
		break;
	case PF_KEY_MTU:
		dst->mtu = src->mtu;
		break;
	case PF_KEY_LINK_UP:
		dst->link_up = src->link_up;
		break;
	case PF_KEY_ESWITCH_MODE:
		dst->eswitch_mode = src->eswitch_mode;
		break;
	case PF_KEY_HW_TC_OFFLOAD:
		dst->hw_tc_offload = src->hw_tc_offload;
		break;
	case PF_KEY_LINK_TYPE:
		dst->link_type = src->link_type;
		break;
	case PF_KEY_FIRMWARE_VFS:
		dst->firmware_vfs = src->firmware_vfs;
		break;
	case PF_KEY_EXTERNALLY_MANAGED:
		dst->externally_managed = src->externally_managed;
		break;
	case _PF_KEY_MAX:
	case _PF_KEY_INVALID:
		break;
	}
}

void pf_settings_merge(struct pf_settings *dst, const struct pf_settings *src)
{
	for (enum pf_key k = 0; k < _PF_KEY_MAX; k++) {
		if (!pf_settings_has(src, k))
			continue;
		pf_settings_copy_key(dst, src, k);
		dst->set |= 1u << k;
		dst->src[k] = src->src[k];
	}
}

/* ---- [VirtualFunction] ---- */

static int vf_parse_driver(struct vf_settings *s, const char *v, const char **ret_why)
{
	char *d = NULL;

	if (!streq(v, "default")) {
		if (!name_is_valid(v, "_-"))
			return fail(ret_why, "must be default or a module name (1..63 letters, "
					     "digits, '_' or '-')");
		d = strdup(v);
		if (!d)
			return -ENOMEM;
	}
	free(s->driver);
	s->driver = d;
	return 0;
}

static int vf_parse_mac(struct vf_settings *s, const char *v, bool single_vf, const char **ret_why)
{
	struct mac_addr m;

	if (streq(v, "stable")) {
		s->mac_mode = MAC_MODE_STABLE;
		s->mac = (struct mac_addr){};
		return 0;
	}
	if (mac_parse(v, &m) < 0)
		return fail(ret_why, "must be stable or an address like 02:00:00:00:00:01");
	if (mac_is_multicast(&m))
		return fail(ret_why, "must be a unicast address");
	if (mac_is_zero(&m))
		return fail(ret_why, "must not be 00:00:00:00:00:00");
	if (!single_vf)
		return fail(ret_why, "a literal address needs a single-VF section such as "
				     "[VirtualFunction 3]; use stable here");
	s->mac_mode = MAC_MODE_LITERAL;
	s->mac = m;
	return 0;
}

static int vf_parse_u16(uint16_t *field, const char *v, uint32_t max, const char **ret_why,
			const char *why)
{
	uint32_t u;

	if (parse_range(v, 0, max, &u, ret_why, why) < 0)
		return -EINVAL;
	*field = (uint16_t)u;
	return 0;
}

static int vf_parse_vlan_proto(struct vf_settings *s, const char *v, const char **ret_why)
{
	if (streq(v, "802.1Q"))
		s->vlan_proto = VLAN_PROTO_8021Q;
	else if (streq(v, "802.1ad"))
		s->vlan_proto = VLAN_PROTO_8021AD;
	else
		return fail(ret_why, "must be 802.1Q or 802.1ad");
	return 0;
}

/* auto, or a boolean as systemd-networkd's LinkState= takes it. */
static int vf_parse_link_state(struct vf_settings *s, const char *v, const char **ret_why)
{
	int r;

	if (streq(v, "auto")) {
		s->link_state = LINK_STATE_AUTO;
		return 0;
	}
	r = parse_boolean(v);
	if (r < 0)
		return fail(ret_why, "must be auto, yes or no");
	s->link_state = r ? LINK_STATE_ENABLE : LINK_STATE_DISABLE;
	return 0;
}

static int vf_parse_resource_name(struct vf_settings *s, const char *v, const char **ret_why)
{
	char *n;

	if (!name_is_valid(v, "_"))
		return fail(ret_why, "must be 1..63 letters, digits or '_'");
	n = strdup(v);
	if (!n)
		return -ENOMEM;
	free(s->resource_name);
	s->resource_name = n;
	return 0;
}

static int vf_parse_qos(struct vf_settings *s, const char *v, const char **ret_why)
{
	uint32_t u;

	if (parse_range(v, 0, 7, &u, ret_why, "must be 0..7") < 0)
		return -EINVAL;
	s->qos = (uint8_t)u;
	return 0;
}

int vf_settings_parse(struct vf_settings *s, enum vf_key k, const char *v, bool single_vf,
		      const char **ret_why)
{
	switch (k) {
	case VF_KEY_DRIVER:
		return vf_parse_driver(s, v, ret_why);
	case VF_KEY_MAC:
		return vf_parse_mac(s, v, single_vf, ret_why);
	case VF_KEY_VLAN:
		return vf_parse_u16(&s->vlan, v, 4095, ret_why, "must be 0..4095");
	case VF_KEY_QOS:
		return vf_parse_qos(s, v, ret_why);
	case VF_KEY_VLAN_PROTO:
		return vf_parse_vlan_proto(s, v, ret_why);
	case VF_KEY_SPOOFCHK:
		return parse_bool(v, &s->spoofchk, ret_why);
	case VF_KEY_TRUST:
		return parse_bool(v, &s->trust, ret_why);
	case VF_KEY_LINK_STATE:
		return vf_parse_link_state(s, v, ret_why);
	case VF_KEY_QUERY_RSS:
		return parse_bool(v, &s->query_rss, ret_why);
	case VF_KEY_MIN_TX_RATE:
		return parse_range(v, 0, UINT32_MAX, &s->min_tx_rate, ret_why,
				   "must be 0..4294967295");
	case VF_KEY_MAX_TX_RATE:
		return parse_range(v, 0, UINT32_MAX, &s->max_tx_rate, ret_why,
				   "must be 0..4294967295");
	case VF_KEY_MTU:
		return parse_range(v, 68, 65535, &s->mtu, ret_why, "must be 68..65535");
	case VF_KEY_RDMA:
		return parse_bool(v, &s->rdma, ret_why);
	case VF_KEY_RESOURCE_NAME:
		return vf_parse_resource_name(s, v, ret_why);
	case _VF_KEY_MAX:
	case _VF_KEY_INVALID:
		break;
	}
	return -EINVAL;
}

void vf_settings_unset(struct vf_settings *s, enum vf_key k)
{
	if (k == VF_KEY_DRIVER)
		s->driver = mfree(s->driver);
	if (k == VF_KEY_RESOURCE_NAME)
		s->resource_name = mfree(s->resource_name);
	s->set &= ~(1u << k);
	s->src[k] = (struct src){};
}

/* Copies the value of one key; the caller marks it set. */
static int vf_settings_copy_key(struct vf_settings *dst, const struct vf_settings *src,
				enum vf_key k)
{
	switch (k) {
	case VF_KEY_DRIVER:
		return free_and_strdup(&dst->driver, src->driver);
	case VF_KEY_MAC:
		dst->mac_mode = src->mac_mode;
		dst->mac = src->mac;
		break;
	case VF_KEY_VLAN:
		dst->vlan = src->vlan;
		break;
	case VF_KEY_QOS:
		dst->qos = src->qos;
		break;
	case VF_KEY_VLAN_PROTO:
		dst->vlan_proto = src->vlan_proto;
		break;
	case VF_KEY_SPOOFCHK:
		dst->spoofchk = src->spoofchk;
		break;
	case VF_KEY_TRUST:
		dst->trust = src->trust;
		break;
	case VF_KEY_LINK_STATE:
		dst->link_state = src->link_state;
		break;
	case VF_KEY_QUERY_RSS:
		dst->query_rss = src->query_rss;
		break;
	case VF_KEY_MIN_TX_RATE:
		dst->min_tx_rate = src->min_tx_rate;
		break;
	case VF_KEY_MAX_TX_RATE:
		dst->max_tx_rate = src->max_tx_rate;
		break;
	case VF_KEY_MTU:
		dst->mtu = src->mtu;
		break;
	case VF_KEY_RDMA:
		dst->rdma = src->rdma;
		break;
	case VF_KEY_RESOURCE_NAME:
		return free_and_strdup(&dst->resource_name, src->resource_name);
	case _VF_KEY_MAX:
	case _VF_KEY_INVALID:
		break;
	}
	return 0;
}

int vf_settings_merge(struct vf_settings *dst, const struct vf_settings *src)
{
	for (enum vf_key k = 0; k < _VF_KEY_MAX; k++) {
		int r;

		if (!vf_settings_has(src, k))
			continue;
		r = vf_settings_copy_key(dst, src, k);
		if (r < 0)
			return r;
		dst->set |= 1u << k;
		dst->src[k] = src->src[k];
	}
	return 0;
}

void vf_settings_done(struct vf_settings *s)
{
	if (!s)
		return;
	free(s->driver);
	free(s->resource_name);
	*s = (struct vf_settings){};
}

/* ---- key names ---- */

static const char *const pf_key_names[_PF_KEY_MAX] = {
	[PF_KEY_VIRTUAL_FUNCTIONS] = "VirtualFunctions",
	[PF_KEY_MTU] = "MTUBytes",
	[PF_KEY_LINK_UP] = "LinkUp",
	[PF_KEY_ESWITCH_MODE] = "ESwitchMode",
	[PF_KEY_HW_TC_OFFLOAD] = "HardwareTCOffload",
	[PF_KEY_LINK_TYPE] = "LinkType",
	[PF_KEY_FIRMWARE_VFS] = "FirmwareVirtualFunctions",
	[PF_KEY_EXTERNALLY_MANAGED] = "ExternallyManaged",
};

static const char *const vf_key_names[_VF_KEY_MAX] = {
	[VF_KEY_DRIVER] = "Driver",
	[VF_KEY_MAC] = "MACAddress",
	[VF_KEY_VLAN] = "VLANId",
	[VF_KEY_QOS] = "QualityOfService",
	[VF_KEY_VLAN_PROTO] = "VLANProtocol",
	[VF_KEY_SPOOFCHK] = "MACSpoofCheck",
	[VF_KEY_TRUST] = "Trust",
	[VF_KEY_LINK_STATE] = "LinkState",
	[VF_KEY_QUERY_RSS] = "QueryReceiveSideScaling",
	[VF_KEY_MIN_TX_RATE] = "MinTxRateMbps",
	[VF_KEY_MAX_TX_RATE] = "MaxTxRateMbps",
	[VF_KEY_MTU] = "MTUBytes",
	[VF_KEY_RDMA] = "RDMA",
	[VF_KEY_RESOURCE_NAME] = "ResourceName",
};

const char *pf_key_to_string(enum pf_key k)
{
	if (k < 0 || k >= _PF_KEY_MAX)
		return NULL;
	return pf_key_names[k];
}

const char *vf_key_to_string(enum vf_key k)
{
	if (k < 0 || k >= _VF_KEY_MAX)
		return NULL;
	return vf_key_names[k];
}

enum pf_key pf_key_from_string(const char *s)
{
	return (enum pf_key)string_table_lookup(pf_key_names, _PF_KEY_MAX, s);
}

enum vf_key vf_key_from_string(const char *s)
{
	return (enum vf_key)string_table_lookup(vf_key_names, _VF_KEY_MAX, s);
}

static const char *const vf_key_ip_names[_VF_KEY_MAX] = {
	[VF_KEY_MAC] = "mac",
	[VF_KEY_VLAN] = "vlan",
	[VF_KEY_QOS] = "qos",
	[VF_KEY_VLAN_PROTO] = "proto",
	[VF_KEY_SPOOFCHK] = "spoofchk",
	[VF_KEY_TRUST] = "trust",
	[VF_KEY_LINK_STATE] = "state",
	[VF_KEY_QUERY_RSS] = "query_rss",
	[VF_KEY_MIN_TX_RATE] = "min_tx_rate",
	[VF_KEY_MAX_TX_RATE] = "max_tx_rate",
};

const char *vf_key_to_ip_name(enum vf_key k)
{
	if (k < 0 || k >= _VF_KEY_MAX)
		return NULL;
	return vf_key_ip_names[k];
}

/* The netlink attributes as plain fields, compared and copied through one table. */
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

void vf_settings_from_state(const struct vf_state *s, struct vf_settings *ret)
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

void vf_state_set_attrs(struct vf_state *s, const struct vf_settings *v)
{
	s->mac = v->mac;
	s->vlan = v->vlan;
	s->qos = v->qos;
	s->vlan_proto = v->vlan_proto;
	s->spoofchk = v->spoofchk;
	s->trust = v->trust;
	s->link_state = v->link_state;
	s->query_rss = v->query_rss;
	s->min_tx_rate = v->min_tx_rate;
	s->max_tx_rate = v->max_tx_rate;
}

bool vf_settings_key_equal(const struct vf_settings *a, const struct vf_settings *b, enum vf_key k)
{
	return memcmp((const char *)a + vf_fields[k].offset, (const char *)b + vf_fields[k].offset,
		      vf_fields[k].size) == 0;
}

void vf_settings_key_copy(struct vf_settings *dst, const struct vf_settings *src, enum vf_key k)
{
	memcpy((char *)dst + vf_fields[k].offset, (const char *)src + vf_fields[k].offset,
	       vf_fields[k].size);
	dst->set |= 1u << k;
}
