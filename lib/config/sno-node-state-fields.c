/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* The fields of a SriovNetworkNodeState, one table per object: each read
 * into plain data, or named with why compare does not judge it. */

#include <ctype.h>

#include "addr-util.h"
#include "parse-util.h"
#include "sno-node-state-internal.h"
#include "sriov-operator.h"
#include "string-util.h"

#define WHY_HW "what the hardware is and reports: sriov-persist reads the host's own"
#define WHY_POD "a VF's address, VLAN and GUID are given for a pod by the CNI, not by the operator"
#define WHY_VDPA "sriov-persist makes no vDPA devices"
#define WHY_OVS "sriov-persist does not configure Open vSwitch"
#define WHY_SYSTEM                                                                     \
	"the RDMA subsystem's mode is [RDMA] NetnsMode= of sriov-persist.conf, not a " \
	"layout's; Open vSwitch is not sriov-persist's"

/* ---- status.interfaces[].Vfs[] ---- */

static const struct ns_field status_vf_fields[] = {
	NS_FIELD("vfID", NS_UINT, struct sno_vf, id),
	NS_FIELD("driver", NS_STRING, struct sno_vf, driver),
	NS_FIELD("mtu", NS_UINT, struct sno_vf, mtu),
	NS_FIELD_NOT("pciAddress", WHY_HW),
	NS_FIELD_NOT("vendor", WHY_HW),
	NS_FIELD_NOT("deviceID", WHY_HW),
	NS_FIELD_NOT("name", WHY_HW),
	NS_FIELD_NOT("representorName", WHY_HW),
	NS_FIELD_NOT("mac", WHY_POD),
	NS_FIELD_NOT("Vlan", WHY_POD),
	NS_FIELD_NOT("assigned", WHY_POD),
	NS_FIELD_NOT("guid", WHY_POD),
	NS_FIELD_NOT("vdpaType", WHY_VDPA),
	{},
};

/* ---- spec.interfaces[].vfGroups[] ---- */

static int group_range(struct ns_reader *r, yaml_node_t *v, const struct ns_path *p, void *obj)
{
	struct sno_vf_group *g = obj;
	const char *s = sno_yaml_scalar(v), *dash;
	_cleanup_free_ char *first = NULL;

	if (!s)
		return ns_error(r, v, p->at, "is not a single value");
	dash = strchr(s, '-');
	first = dash ? strndup(s, (size_t)(dash - s)) : strdup(s);
	if (!first)
		return -ENOMEM;
	if (safe_atou32(first, 10, &g->first) < 0 ||
	    safe_atou32(dash ? dash + 1 : s, 10, &g->last) < 0 || g->first > g->last)
		return ns_error(r, v, p->at, "%s: must be a range of VFs, as 0-7", s);
	return 0;
}

static int group_device_type(struct ns_reader *r, yaml_node_t *v, const struct ns_path *p,
			     void *obj)
{
	const char *s = sno_yaml_scalar(v);

	if (!streq_ptr(s, "netdevice") && !streq_ptr(s, "vfio-pci"))
		return ns_error(r, v, p->at, "%s: must be netdevice or vfio-pci", strna(s));
	((struct sno_vf_group *)obj)->vfio = streq(s, "vfio-pci");
	return 0;
}

static const struct ns_field group_fields[] = {
	NS_FIELD_READ("vfRange", group_range),
	NS_FIELD_READ("deviceType", group_device_type),
	NS_FIELD("mtu", NS_UINT, struct sno_vf_group, mtu),
	NS_FIELD("isRdma", NS_BOOL, struct sno_vf_group, rdma),
	NS_FIELD("resourceName", NS_STRING, struct sno_vf_group, resource_name),
	NS_FIELD("policyName", NS_STRING, struct sno_vf_group, policy_name),
	NS_FIELD_NOT("vdpaType", WHY_VDPA),
	{},
};

/* ---- spec.interfaces[] and status.interfaces[] ---- */

static int iface_pci(struct ns_reader *r, yaml_node_t *v, const struct ns_path *p, void *obj)
{
	struct sno_iface *i = obj;
	int e = ns_string(r, v, p, &i->pci);

	if (e < 0 || !i->pci)
		return e;
	for (char *c = i->pci; *c; c++)
		*c = (char)tolower((unsigned char)*c);
	if (!pci_addr_is_valid(i->pci))
		return ns_error(r, v, p->at, "%s: not a PCI address", i->pci);
	return 0;
}

static int iface_link_type(struct ns_reader *r, yaml_node_t *v, const struct ns_path *p, void *obj)
{
	struct sno_iface *i = obj;
	int e = ns_string(r, v, p, &i->link_type);

	if (e >= 0 && i->link_type && strcasecmp(i->link_type, "eth") != 0 &&
	    strcasecmp(i->link_type, "ib") != 0)
		return ns_error(r, v, p->at, "%s: must be ETH or IB", i->link_type);
	return e;
}

static int iface_eswitch(struct ns_reader *r, yaml_node_t *v, const struct ns_path *p, void *obj)
{
	struct sno_iface *i = obj;
	int e = ns_string(r, v, p, &i->eswitch_mode);

	if (e >= 0 && i->eswitch_mode && !streq(i->eswitch_mode, "legacy") &&
	    !streq(i->eswitch_mode, "switchdev"))
		return ns_error(r, v, p->at, "%s: must be legacy or switchdev", i->eswitch_mode);
	return e;
}

static int iface_groups(struct ns_reader *r, yaml_node_t *v, const struct ns_path *p, void *obj)
{
	struct sno_iface *i = obj;

	return ns_sequence(r, v, p, group_fields, (void **)&i->groups, sizeof(*i->groups),
			   &i->n_groups);
}

static int iface_vfs(struct ns_reader *r, yaml_node_t *v, const struct ns_path *p, void *obj)
{
	struct sno_iface *i = obj;

	return ns_sequence(r, v, p, status_vf_fields, (void **)&i->vfs, sizeof(*i->vfs), &i->n_vfs);
}

/* What spec and status say alike of an interface. */
#define IFACE_FIELDS                                                    \
	NS_FIELD_READ("pciAddress", iface_pci),                         \
		NS_FIELD("name", NS_STRING, struct sno_iface, name),    \
		NS_FIELD("numVfs", NS_UINT, struct sno_iface, num_vfs), \
		NS_FIELD("mtu", NS_UINT, struct sno_iface, mtu),        \
		NS_FIELD_READ("linkType", iface_link_type),             \
		NS_FIELD_READ("eSwitchMode", iface_eswitch),            \
		NS_FIELD("externallyManaged", NS_BOOL, struct sno_iface, externally_managed)

static const struct ns_field spec_iface_fields[] = {
	IFACE_FIELDS,
	NS_FIELD_READ("vfGroups", iface_groups),
	{},
};

static const struct ns_field status_iface_fields[] = {
	IFACE_FIELDS,
	NS_FIELD_READ("Vfs", iface_vfs),
	NS_FIELD_NOT("mac", WHY_HW),
	NS_FIELD_NOT("driver", WHY_HW),
	NS_FIELD_NOT("vendor", WHY_HW),
	NS_FIELD_NOT("deviceID", WHY_HW),
	NS_FIELD_NOT("totalvfs", WHY_HW),
	NS_FIELD_NOT("linkSpeed", WHY_HW),
	NS_FIELD_NOT("linkAdminState", WHY_HW),
	NS_FIELD_NOT("netFilter", WHY_HW),
	{},
};

/* ---- spec, status, the object ---- */

/* Every entry names its PF, once. */
static int ifaces_check(struct ns_reader *r, yaml_node_t *v, const struct ns_path *p,
			const struct sno_iface *list, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (!list[i].pci)
			return ns_error(r, v, p->at, "entry %zu (line %u) has no pciAddress", i,
					list[i].line);
		if (sno_iface_find(list, i, list[i].pci))
			return ns_error(r, v, p->at, "%s: listed twice", list[i].pci);
	}
	return 0;
}

static int spec_ifaces(struct ns_reader *r, yaml_node_t *v, const struct ns_path *p, void *obj)
{
	struct sno_node_state *ns = obj;
	int e = ns_sequence(r, v, p, spec_iface_fields, (void **)&ns->spec, sizeof(*ns->spec),
			    &ns->n_spec);

	return e < 0 || r->failed ? e : ifaces_check(r, v, p, ns->spec, ns->n_spec);
}

static int status_ifaces(struct ns_reader *r, yaml_node_t *v, const struct ns_path *p, void *obj)
{
	struct sno_node_state *ns = obj;
	int e = ns_sequence(r, v, p, status_iface_fields, (void **)&ns->status, sizeof(*ns->status),
			    &ns->n_status);

	return e < 0 || r->failed ? e : ifaces_check(r, v, p, ns->status, ns->n_status);
}

static const struct ns_field spec_fields[] = {
	NS_FIELD_READ("interfaces", spec_ifaces),
	NS_FIELD_NOT("bridges", WHY_OVS),
	NS_FIELD_NOT("system", WHY_SYSTEM),
	{},
};

static const struct ns_field status_fields[] = {
	NS_FIELD_READ("interfaces", status_ifaces),
	NS_FIELD("syncStatus", NS_STRING, struct sno_node_state, sync_status),
	NS_FIELD("lastSyncError", NS_STRING, struct sno_node_state, last_sync_error),
	NS_FIELD_NOT("bridges", WHY_OVS),
	NS_FIELD_NOT("system", WHY_SYSTEM),
	{},
};

static int object_spec(struct ns_reader *r, yaml_node_t *v, const struct ns_path *p, void *obj)
{
	((struct sno_node_state *)obj)->has_spec = true;
	return ns_mapping(r, v, p, spec_fields, obj);
}

static int object_status(struct ns_reader *r, yaml_node_t *v, const struct ns_path *p, void *obj)
{
	((struct sno_node_state *)obj)->has_status = true;
	return ns_mapping(r, v, p, status_fields, obj);
}

/* apiVersion, kind and metadata.name are sno-node-state.c's. */
static const struct ns_field object_fields[] = {
	{ "apiVersion" },
	{ "kind" },
	{ "metadata" },
	NS_FIELD_READ("spec", object_spec),
	NS_FIELD_READ("status", object_status),
	{},
};

int ns_read_object(struct ns_reader *r, yaml_node_t *obj)
{
	return ns_mapping(r, obj, &(const struct ns_path){ "", "" }, object_fields, r->ns);
}
