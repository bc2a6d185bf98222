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

static int vf_id(struct ns_reader *r, yaml_node_t *v, const struct ns_path *p, void *obj)
{
	return ns_uint(r, v, p, &((struct sno_vf *)obj)->id);
}

static int vf_driver(struct ns_reader *r, yaml_node_t *v, const struct ns_path *p, void *obj)
{
	return ns_string(r, v, p, &((struct sno_vf *)obj)->driver);
}

static int vf_mtu(struct ns_reader *r, yaml_node_t *v, const struct ns_path *p, void *obj)
{
	return ns_uint(r, v, p, &((struct sno_vf *)obj)->mtu);
}

static const struct ns_field status_vf_fields[] = {
	{ "vfID", vf_id, NULL },	{ "driver", vf_driver, NULL },
	{ "mtu", vf_mtu, NULL },	{ "pciAddress", NULL, WHY_HW },
	{ "vendor", NULL, WHY_HW },	{ "deviceID", NULL, WHY_HW },
	{ "name", NULL, WHY_HW },	{ "representorName", NULL, WHY_HW },
	{ "mac", NULL, WHY_POD },	{ "Vlan", NULL, WHY_POD },
	{ "assigned", NULL, WHY_POD },	{ "guid", NULL, WHY_POD },
	{ "vdpaType", NULL, WHY_VDPA }, {},
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

static int group_mtu(struct ns_reader *r, yaml_node_t *v, const struct ns_path *p, void *obj)
{
	return ns_uint(r, v, p, &((struct sno_vf_group *)obj)->mtu);
}

static int group_rdma(struct ns_reader *r, yaml_node_t *v, const struct ns_path *p, void *obj)
{
	return ns_bool(r, v, p, &((struct sno_vf_group *)obj)->rdma);
}

static int group_resource(struct ns_reader *r, yaml_node_t *v, const struct ns_path *p, void *obj)
{
	return ns_string(r, v, p, &((struct sno_vf_group *)obj)->resource_name);
}

static int group_policy(struct ns_reader *r, yaml_node_t *v, const struct ns_path *p, void *obj)
{
	return ns_string(r, v, p, &((struct sno_vf_group *)obj)->policy_name);
}

static const struct ns_field group_fields[] = {
	{ "vfRange", group_range, NULL },
	{ "deviceType", group_device_type, NULL },
	{ "mtu", group_mtu, NULL },
	{ "isRdma", group_rdma, NULL },
	{ "resourceName", group_resource, NULL },
	{ "policyName", group_policy, NULL },
	{ "vdpaType", NULL, WHY_VDPA },
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

static int iface_name(struct ns_reader *r, yaml_node_t *v, const struct ns_path *p, void *obj)
{
	return ns_string(r, v, p, &((struct sno_iface *)obj)->name);
}

static int iface_num_vfs(struct ns_reader *r, yaml_node_t *v, const struct ns_path *p, void *obj)
{
	return ns_uint(r, v, p, &((struct sno_iface *)obj)->num_vfs);
}

static int iface_mtu(struct ns_reader *r, yaml_node_t *v, const struct ns_path *p, void *obj)
{
	return ns_uint(r, v, p, &((struct sno_iface *)obj)->mtu);
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

static int iface_external(struct ns_reader *r, yaml_node_t *v, const struct ns_path *p, void *obj)
{
	return ns_bool(r, v, p, &((struct sno_iface *)obj)->externally_managed);
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

static const struct ns_field spec_iface_fields[] = {
	{ "pciAddress", iface_pci, NULL },
	{ "name", iface_name, NULL },
	{ "numVfs", iface_num_vfs, NULL },
	{ "mtu", iface_mtu, NULL },
	{ "linkType", iface_link_type, NULL },
	{ "eSwitchMode", iface_eswitch, NULL },
	{ "externallyManaged", iface_external, NULL },
	{ "vfGroups", iface_groups, NULL },
	{},
};

static const struct ns_field status_iface_fields[] = {
	{ "pciAddress", iface_pci, NULL },
	{ "name", iface_name, NULL },
	{ "numVfs", iface_num_vfs, NULL },
	{ "mtu", iface_mtu, NULL },
	{ "linkType", iface_link_type, NULL },
	{ "eSwitchMode", iface_eswitch, NULL },
	{ "externallyManaged", iface_external, NULL },
	{ "Vfs", iface_vfs, NULL },
	{ "mac", NULL, WHY_HW },
	{ "driver", NULL, WHY_HW },
	{ "vendor", NULL, WHY_HW },
	{ "deviceID", NULL, WHY_HW },
	{ "totalvfs", NULL, WHY_HW },
	{ "linkSpeed", NULL, WHY_HW },
	{ "linkAdminState", NULL, WHY_HW },
	{ "netFilter", NULL, WHY_HW },
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

static int sync_status(struct ns_reader *r, yaml_node_t *v, const struct ns_path *p, void *obj)
{
	return ns_string(r, v, p, &((struct sno_node_state *)obj)->sync_status);
}

static int sync_error(struct ns_reader *r, yaml_node_t *v, const struct ns_path *p, void *obj)
{
	return ns_string(r, v, p, &((struct sno_node_state *)obj)->last_sync_error);
}

static const struct ns_field spec_fields[] = {
	{ "interfaces", spec_ifaces, NULL },
	{ "bridges", NULL, WHY_OVS },
	{ "system", NULL, WHY_SYSTEM },
	{},
};

static const struct ns_field status_fields[] = {
	{ "interfaces", status_ifaces, NULL }, { "syncStatus", sync_status, NULL },
	{ "lastSyncError", sync_error, NULL }, { "bridges", NULL, WHY_OVS },
	{ "system", NULL, WHY_SYSTEM },	       {},
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
	{ "apiVersion", NULL, NULL },	   { "kind", NULL, NULL },
	{ "metadata", NULL, NULL },	   { "spec", object_spec, NULL },
	{ "status", object_status, NULL }, {},
};

int ns_read_object(struct ns_reader *r, yaml_node_t *obj)
{
	return ns_mapping(r, obj, &(const struct ns_path){ "", "" }, object_fields, r->ns);
}
