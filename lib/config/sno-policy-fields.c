/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* The fields of a policy's spec, one row each: every field the operator's
 * CRD has is read, converted or said to have no equivalent. */

#include <ctype.h>

#include "sno-policy-internal.h"
#include "sriov-operator.h"
#include "string-util.h"
#include "strv.h"

#define SNO_HOSTNAME_LABEL "kubernetes.io/hostname"

static int sno_mtu(struct sno_reader *r, yaml_node_t *v, const char *field)
{
	int e = sno_uint(r, v, field, 65535, &r->p->mtu);

	if (e >= 0 && r->p->mtu > 0 && r->p->mtu < 68)
		return sno_say(r, DIAG_ERROR, v, field, "%u: below 68", r->p->mtu);
	return e;
}

static int sno_num_vfs(struct sno_reader *r, yaml_node_t *v, const char *field)
{
	r->p->num_vfs_line = sno_line(v);
	return sno_uint(r, v, field, 65535, &r->p->num_vfs);
}

static int sno_priority(struct sno_reader *r, yaml_node_t *v, const char *field)
{
	r->p->priority_line = sno_line(v);
	return sno_uint(r, v, field, SNO_POLICY_PRIORITY_MAX, &r->p->priority);
}

static int sno_device_type(struct sno_reader *r, yaml_node_t *v, const char *field)
{
	static const char *const map[][2] = { { "netdevice", "default" },
					      { "vfio-pci", "vfio-pci" },
					      { NULL, NULL } };
	const char *driver = NULL;
	int e = sno_word(r, v, field, map, &driver);

	r->p->device_type_line = sno_line(v);
	if (driver)
		r->p->vfio = streq(driver, "vfio-pci");
	return e;
}

static int sno_link_type(struct sno_reader *r, yaml_node_t *v, const char *field)
{
	static const char *const map[][2] = { { "eth", "ethernet" },
					      { "ETH", "ethernet" },
					      { "ib", "infiniband" },
					      { "IB", "infiniband" },
					      { NULL, NULL } };

	r->p->link_type_line = sno_line(v);
	return sno_word(r, v, field, map, &r->p->link_type);
}

static int sno_eswitch(struct sno_reader *r, yaml_node_t *v, const char *field)
{
	static const char *const map[][2] = { { "legacy", "legacy" },
					      { "switchdev", "switchdev" },
					      { NULL, NULL } };

	return sno_word(r, v, field, map, &r->p->eswitch_mode);
}

static int sno_rdma(struct sno_reader *r, yaml_node_t *v, const char *field)
{
	r->p->rdma_line = sno_line(v);
	return sno_bool(r, v, field, &r->p->rdma);
}

static int sno_externally_managed(struct sno_reader *r, yaml_node_t *v, const char *field)
{
	return sno_bool(r, v, field, &r->p->externally_managed);
}

/* Warned at the field's line, whatever else is wrong with the policy. */
static int sno_exclude_topology(struct sno_reader *r, yaml_node_t *v, const char *field)
{
	int e = sno_bool(r, v, field, &r->p->exclude_topology);

	if (e < 0 || !r->p->exclude_topology)
		return e;
	return sno_say(r, DIAG_WARNING, v, field,
		       "true has no equivalent: the device plugin's configuration that "
		       "sriov-persist writes keeps the VFs' NUMA node");
}

static int sno_need_vhost_net(struct sno_reader *r, yaml_node_t *v, const char *field)
{
	int e = sno_bool(r, v, field, &r->p->need_vhost_net);

	if (e < 0 || !r->p->need_vhost_net)
		return e;
	return sno_say(r, DIAG_WARNING, v, field,
		       "true has no equivalent: the device plugin's configuration that "
		       "sriov-persist writes mounts no /dev/vhost-net into pods");
}

/* sriov-persist's ResourceName=: 1..63 letters, digits or '_'. */
static bool sno_resource_name_ok(const char *s)
{
	size_t n = strlen(s);

	for (const char *c = s; *c; c++)
		if (!isascii(*c) || !(isalnum(*c) || *c == '_'))
			return false;
	return n >= 1 && n <= 63;
}

static int sno_resource_name(struct sno_reader *r, yaml_node_t *v, const char *field)
{
	int e;
	const char *s = sno_text(r, v, field, &e);

	if (!s)
		return e;
	if (!*s)
		return 0;
	if (!sno_resource_name_ok(s))
		return sno_say(r, DIAG_ERROR, v, field,
			       "%s: sriov-persist's resource names are 1..63 letters, digits or "
			       "'_' (ResourceName=); rename the resource, and the pods' requests "
			       "of it",
			       s);
	return free_and_strdup(&r->p->resource_name, s);
}

/* A field that only an empty value may have: anything else has no
 * equivalent, an error. */
static int sno_unsupported(struct sno_reader *r, yaml_node_t *v, const char *field, const char *why)
{
	const char *s = sno_yaml_scalar(v);

	if (s && !*s)
		return 0;
	if (v && v->type == YAML_MAPPING_NODE &&
	    v->data.mapping.pairs.start == v->data.mapping.pairs.top)
		return 0;
	return sno_say_at(r, DIAG_ERROR, r->key_line ?: sno_line(v), field, "%s", why);
}

static int sno_vdpa_type(struct sno_reader *r, yaml_node_t *v, const char *field)
{
	return sno_unsupported(
		r, v, field,
		"sriov-persist makes no vDPA devices; leave this policy to the operator");
}

static int sno_bridge(struct sno_reader *r, yaml_node_t *v, const char *field)
{
	return sno_unsupported(r, v, field,
			       "sriov-persist configures no Open vSwitch bridge; configure the "
			       "bridge with OVS itself and import the policy without it");
}

/* nicSelector */

static bool sno_chars_ok(const char *s, const char *allowed)
{
	return *s && s[strspn(s, allowed)] == '\0';
}

#define SNO_HEX "0123456789abcdefABCDEF"

/* vendor "8086", deviceID "159b": four hex digits, as "0x8086". */
static int sno_pci_id(struct sno_reader *r, yaml_node_t *v, const char *field, char **ret)
{
	int e;
	const char *s = sno_text(r, v, field, &e);

	if (!s)
		return e;
	if (!*s)
		return 0;
	if (strlen(s) != 4 || !sno_chars_ok(s, SNO_HEX))
		return sno_say(r, DIAG_ERROR, v, field, "%s: must be four hex digits", s);
	*ret = strdup_printf("0x%s", s);
	return *ret ? 0 : -ENOMEM;
}

/* The line of entry n of a list, beside it in lines. */
static int sno_entry_line(unsigned **lines, size_t n, const yaml_node_t *item)
{
	unsigned *l = realloc(*lines, sizeof(*l) * (n + 1));

	if (!l)
		return -ENOMEM;
	l[n] = sno_line(item);
	*lines = l;
	return 0;
}

static int sno_add_pci(struct sno_reader *r, yaml_node_t *item, const char *field, const char *s)
{
	/* the operator compares the address as the kernel writes it */
	if (strlen(s) != 12 || !sno_chars_ok(s, SNO_HEX ":.") || s[4] != ':' || s[7] != ':' ||
	    s[10] != '.')
		return sno_say(r, DIAG_ERROR, item, field,
			       "%s: not a PCI address with its domain (0000:3b:00.0)", s);
	if (sno_entry_line(&r->p->pci_lines, strv_length(r->p->pci), item) < 0)
		return -ENOMEM;
	return strv_extend(&r->p->pci, s);
}

/* "ens1f0" or "ens1f0#0-3": the name, and the range the ranged entries
 * share; an entry without one is checked against it once numVfs is known
 * (sno_policy_judge). */
static int sno_add_pf_name(struct sno_reader *r, yaml_node_t *item, const char *field,
			   const char *s)
{
	_cleanup_free_ char *name = strndup(s, strcspn(s, "#"));
	const char *range = strchr(s, '#');
	struct sno_policy *p = r->p;
	unsigned first = 0, last = 0;
	char dash;

	if (!name)
		return -ENOMEM;
	if (!*name || strpbrk(name, "/: \t*?[]"))
		return sno_say(r, DIAG_ERROR, item, field, "%s: not an interface name", s);
	if (range && (sscanf(range + 1, "%u%c%u", &first, &dash, &last) != 3 || dash != '-' ||
		      first > last || !sno_chars_ok(range + 1, "0123456789-")))
		return sno_say(r, DIAG_ERROR, item, field,
			       "%s: the VF range after '#' must be FIRST-LAST", s);
	if (range && p->has_range && (first != p->vf_first || last != p->vf_last))
		return sno_say(r, DIAG_ERROR, item, field,
			       "%s: its VF range differs from that of %s, and a layout file has "
			       "one set of VF sections for all the PFs it selects: write a "
			       "policy per range",
			       s, p->pf_names[p->pf_ranged]);
	if (range && !p->has_range) {
		p->has_range = true;
		p->vf_first = first;
		p->vf_last = last;
		p->pf_ranged = strv_length(p->pf_names);
		p->pf_ranged_line = sno_line(item);
	}
	if (!range && !p->has_plain) {
		p->has_plain = true;
		p->pf_plain = strv_length(p->pf_names);
		p->pf_plain_line = sno_line(item);
	}
	if ((!range && strv_extend(&p->pf_plain_names, name) < 0) ||
	    sno_entry_line(&p->pf_name_lines, strv_length(p->pf_names), item) < 0)
		return -ENOMEM;
	return strv_consume(&p->pf_names, TAKE_PTR(name));
}

static int sno_net_filter(struct sno_reader *r, yaml_node_t *v, const char *field)
{
	const char *s = sno_yaml_scalar(v);

	if (s && !*s)
		return 0;
	return sno_say(r, DIAG_ERROR, v, field,
		       "a cloud network filter has no equivalent in [Match]; select the PFs by "
		       "rootDevices or pfNames");
}

/* The keys of nicSelector, each marked in r->bad_nic_keys when it has an
 * error (bit i: key i), for the checks across fields that read one. */
static const char *const sno_nic_keys[] = { "vendor", "deviceID", "rootDevices", "pfNames",
					    "netFilter" };

static int sno_nic_key_read(struct sno_reader *r, size_t i, yaml_node_t *v, const char *field)
{
	switch (i) {
	case 0:
		return sno_pci_id(r, v, field, &r->p->vendor);
	case 1:
		return sno_pci_id(r, v, field, &r->p->device);
	case 2:
		return sno_strings(r, v, field, sno_add_pci);
	case 3:
		return sno_strings(r, v, field, sno_add_pf_name);
	default:
		return sno_net_filter(r, v, field);
	}
}

static int sno_nic_key(struct sno_reader *r, const char *key, yaml_node_t *v)
{
	_cleanup_free_ char *field = strdup_printf("nicSelector.%s", key);
	bool failed = r->failed;
	int e;

	if (!field)
		return -ENOMEM;
	for (size_t i = 0; i < ELEMENTSOF(sno_nic_keys); i++)
		if (streq(key, sno_nic_keys[i])) {
			r->failed = false;
			e = sno_nic_key_read(r, i, v, field);
			if (r->failed)
				r->bad_nic_keys |= UINT32_C(1) << i;
			r->failed = r->failed || failed;
			return e;
		}
	return sno_say_at(r, DIAG_ERROR, r->key_line, field,
			  "not a field of the operator's nicSelector");
}

/* Calls each for every key of the mapping v (named field in errors), until
 * one fails. */
static int sno_each_key(struct sno_reader *r, yaml_node_t *v, const char *field,
			int (*each)(struct sno_reader *r, const char *key, yaml_node_t *v))
{
	int e = 0;

	if (!v || v->type != YAML_MAPPING_NODE)
		return sno_say(r, DIAG_ERROR, v, field, "is not a mapping");
	for (yaml_node_pair_t *p = v->data.mapping.pairs.start;
	     e >= 0 && p < v->data.mapping.pairs.top; p++) {
		yaml_node_t *k = sno_node(r, p->key);
		const char *key = sno_yaml_scalar(k);

		r->key_line = sno_line(k);
		if (key)
			e = each(r, key, sno_node(r, p->value));
	}
	return e;
}

static int sno_nic_selector(struct sno_reader *r, yaml_node_t *v, const char *field)
{
	r->p->nic_line = sno_line(v);
	return sno_each_key(r, v, field, sno_nic_key);
}

/* nodeSelector: the host name label is Host=, the others comments. */
static int sno_node_label(struct sno_reader *r, const char *key, yaml_node_t *v)
{
	_cleanup_free_ char *field = strdup_printf("nodeSelector.%s", key);
	const char *s;
	int e;

	if (!field)
		return -ENOMEM;
	s = sno_text(r, v, field, &e);
	if (!s)
		return e;
	if (!streq(key, SNO_HOSTNAME_LABEL)) {
		e = strv_consume(&r->p->labels, strdup_printf("%s=%s", key, s));
		if (e < 0)
			return e;
		return sno_say(r, DIAG_WARNING, v, "nodeSelector",
			       "%s=%s names no host: kept as a comment; install the file only on "
			       "the nodes that have the label",
			       key, s);
	}
	if (!sno_chars_ok(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_"))
		return sno_say(r, DIAG_ERROR, v, field, "%s: not a host name", s);
	return strv_extend(&r->p->hosts, s);
}

static int sno_node_selector(struct sno_reader *r, yaml_node_t *v, const char *field)
{
	if (sno_yaml_scalar(v) && !*sno_yaml_scalar(v))
		return 0;
	return sno_each_key(r, v, field, sno_node_label);
}

static const struct sno_field {
	const char *name;
	int (*read)(struct sno_reader *r, yaml_node_t *v, const char *field);
} sno_spec_fields[] = {
	{ "nicSelector", sno_nic_selector },
	{ "numVfs", sno_num_vfs },
	{ "mtu", sno_mtu },
	{ "deviceType", sno_device_type },
	{ "isRdma", sno_rdma },
	{ "linkType", sno_link_type },
	{ "eSwitchMode", sno_eswitch },
	{ "resourceName", sno_resource_name },
	{ "priority", sno_priority },
	{ "nodeSelector", sno_node_selector },
	{ "externallyManaged", sno_externally_managed },
	{ "excludeTopology", sno_exclude_topology },
	{ "needVhostNet", sno_need_vhost_net },
	{ "vdpaType", sno_vdpa_type },
	{ "bridge", sno_bridge },
};
_Static_assert(ELEMENTSOF(sno_spec_fields) <= 32, "bad_fields has a bit per field");

/* Fields of the operator's SriovNetwork that its policy documentation
 * lists too, and the layout key that does their job. */
static const char *const sno_network_fields[][2] = {
	{ "spoofChk", "MACSpoofCheck=" },   { "trust", "Trust=" },
	{ "linkState", "LinkState=" },	    { "maxTxRate", "MaxTxRateMbps=" },
	{ "minTxRate", "MinTxRateMbps=" },  { "vlan", "VLANId=" },
	{ "vlanQoS", "QualityOfService=" }, { "vlanProto", "VLANProtocol=" },
};

/* Field i, marked in r->bad_fields when it has an error. */
static int sno_spec_field_read(struct sno_reader *r, size_t i, yaml_node_t *v)
{
	bool failed = r->failed;
	int e;

	r->failed = false;
	e = sno_spec_fields[i].read(r, v, sno_spec_fields[i].name);
	if (r->failed)
		r->bad_fields |= UINT32_C(1) << i;
	r->failed = r->failed || failed;
	return e;
}

bool sno_field_bad(const struct sno_reader *r, const char *name)
{
	if (startswith(name, "nicSelector.")) {
		for (size_t i = 0; i < ELEMENTSOF(sno_nic_keys); i++)
			if (streq(name + strlen("nicSelector."), sno_nic_keys[i]))
				return r->bad_nic_keys & (UINT32_C(1) << i);
		return false;
	}
	for (size_t i = 0; i < ELEMENTSOF(sno_spec_fields); i++)
		if (streq(name, sno_spec_fields[i].name))
			return r->bad_fields & (UINT32_C(1) << i);
	return false;
}

static int sno_spec_field(struct sno_reader *r, const char *key, yaml_node_t *v)
{
	for (size_t i = 0; i < ELEMENTSOF(sno_spec_fields); i++)
		if (streq(key, sno_spec_fields[i].name))
			return sno_spec_field_read(r, i, v);
	for (size_t i = 0; i < ELEMENTSOF(sno_network_fields); i++)
		if (streq(key, sno_network_fields[i][0]))
			return sno_say_at(
				r, DIAG_ERROR, r->key_line, key,
				"a field of the operator's SriovNetwork, not of a policy; "
				"set %s in the VF section of the layout file instead",
				sno_network_fields[i][1]);
	return sno_say_at(r, DIAG_ERROR, r->key_line, key,
			  "not a field of the operator's SriovNetworkNodePolicy spec");
}

int sno_policy_read_spec(struct sno_reader *r, yaml_node_t *spec)
{
	return sno_each_key(r, spec, "spec", sno_spec_field);
}
