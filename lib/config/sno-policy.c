/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* SriovNetworkNodePolicy objects in YAML: the documents, the objects in
 * them (one, a list, a kubectl "kind: List"), and what a policy as a whole
 * must be. The fields are sno-policy-fields.c's. */

#include "sno-policy-internal.h"
#include "sriov-operator.h"
#include "string-util.h"
#include "strv.h"

#define SNO_KIND "SriovNetworkNodePolicy"

static void sno_policy_done(struct sno_policy *p)
{
	free(p->name);
	free(p->vendor);
	free(p->device);
	strv_free(p->pci);
	strv_free(p->pf_names);
	free(p->pci_lines);
	free(p->pf_name_lines);
	strv_free(p->pf_plain_names);
	strv_free(p->hosts);
	strv_free(p->labels);
	free(p->resource_name);
	*p = (struct sno_policy){};
}

void sno_policies_done(struct sno_policies *p)
{
	for (size_t i = 0; i < p->n; i++)
		sno_policy_done(&p->items[i]);
	free(p->items);
	*p = (struct sno_policies){};
}

static const char *sno_field_text(struct sno_reader *r, yaml_node_t *m, const char *key)
{
	return m && m->type == YAML_MAPPING_NODE ? sno_yaml_scalar(sno_yaml_get(r->doc, m, key)) :
						   NULL;
}

/* An entry without a range means VFs 0..numVfs-1: the same as the ranged
 * entries', or the policy needs two sets of VF sections. */
static int sno_policy_ranges(struct sno_reader *r)
{
	struct sno_policy *p = r->p;

	if (p->has_range && p->vf_last >= p->num_vfs)
		return sno_say_at(r, DIAG_ERROR, p->pf_ranged_line, "nicSelector.pfNames",
				  "VFs %u-%u: beyond numVfs %u", p->vf_first, p->vf_last,
				  p->num_vfs);
	if (!p->has_range || !p->has_plain || (p->vf_first == 0 && p->vf_last == p->num_vfs - 1))
		return 0;
	r->failed = true;
	return diag_add(r->diags, DIAG_ERROR, r->source, p->pf_plain_line,
			"policy %s: nicSelector.pfNames: %s: its VF range 0-%u (numVfs %u) differs "
			"from that of %s (%u-%u), and a layout file has one set of VF sections "
			"for all the PFs it selects: write a policy per range",
			p->name, p->pf_names[p->pf_plain], p->num_vfs - 1, p->num_vfs,
			p->pf_names[p->pf_ranged], p->vf_first, p->vf_last);
}

/* Name= no longer selects a PF that linkType IB makes an InfiniBand port
 * (its interface is renamed): PCIAddress= does, where the policy gives it. */
static int sno_policy_ib_names(struct sno_reader *r)
{
	struct sno_policy *p = r->p;

	if (!p->pf_names || !streq_ptr(p->link_type, "infiniband"))
		return 0;
	if (p->pci)
		return diag_add(r->diags, DIAG_WARNING, r->source, p->link_type_line,
				"policy %s: linkType: IB with pfNames: the file matches "
				"by PCIAddress= (rootDevices) only, as Name= no longer selects a "
				"PF once it is an InfiniBand port",
				p->name);
	return diag_add(r->diags, DIAG_WARNING, r->source, p->link_type_line,
			"policy %s: linkType: IB with pfNames: a PF the file makes an InfiniBand "
			"port is renamed, and Name= then no longer selects it; unless its ports "
			"are InfiniBand already, replace Name= with PCIAddress= before "
			"installing the file (or give rootDevices)",
			p->name);
}

/* What the operator does with the policy as a whole. */
/* At isRdma's line: the check is across two fields. */
static int sno_rdma_vfio(struct sno_reader *r)
{
	return sno_say_at(r, DIAG_ERROR, r->p->rdma_line, "isRdma",
			  "true with deviceType vfio-pci: a VF on vfio-pci has no RDMA device");
}

/* The checks across the policy's fields, each of those whose fields have
 * no error of their own: all of a policy's diagnostics come at once. */
static int sno_policy_judge(struct sno_reader *r)
{
	struct sno_policy *p = r->p;
	bool nic_ok = !sno_field_bad(r, "nicSelector"), num_ok = !sno_field_bad(r, "numVfs");
	bool pf_ok = !sno_field_bad(r, "nicSelector.pfNames");
	bool ib_ok = pf_ok && !sno_field_bad(r, "nicSelector.rootDevices") &&
		     !sno_field_bad(r, "linkType");
	int e = 0;

	if (nic_ok && !p->vendor && !p->device && !p->pci && !p->pf_names) {
		p->skipped = true;
		return sno_say_at(r, DIAG_WARNING, p->nic_line, "nicSelector",
				  "empty: the operator selects no NIC with it; no file written");
	}
	if (num_ok && p->num_vfs == 0) {
		p->skipped = true;
		return sno_say_at(r, DIAG_WARNING, p->num_vfs_line, "numVfs",
				  "0 or not given: the operator configures nothing with it; no "
				  "file written");
	}
	if (pf_ok && num_ok)
		e = sno_policy_ranges(r);
	if (e >= 0 && p->rdma && p->vfio)
		e = sno_rdma_vfio(r);
	if (e >= 0 && ib_ok)
		e = sno_policy_ib_names(r);
	return e;
}

static bool sno_name_taken(const struct sno_policies *ps, const char *name)
{
	for (size_t i = 0; i < ps->n; i++)
		if (streq(ps->items[i].name, name))
			return true;
	return false;
}

static int sno_policy_keep(struct sno_policies *ps, struct sno_policy *p)
{
	struct sno_policy *items = realloc(ps->items, sizeof(*items) * (ps->n + 1));

	if (!items)
		return -ENOMEM;
	ps->items = items;
	ps->items[ps->n++] = *p;
	*p = (struct sno_policy){};
	return 0;
}

/* The name (its node name_node), the spec, the judgement (also of a policy
 * with errors, for the fields without one); kept when it has no error. */
static int sno_object_read(struct sno_reader *r, struct sno_policies *ps, yaml_node_t *obj,
			   yaml_node_t *name_node, const char *name)
{
	struct sno_policy p = { .line = sno_line(obj), .name_line = sno_line(name_node) };
	int e;

	r->p = &p;
	r->failed = false;
	r->bad_fields = 0;
	r->bad_nic_keys = 0;
	e = free_and_strdup(&p.name, name);
	if (e >= 0 && sno_name_taken(ps, name))
		e = sno_say(r, DIAG_ERROR, name_node, "metadata.name",
			    "a second policy of this name");
	if (e >= 0)
		e = sno_policy_read_spec(r, sno_yaml_get(r->doc, obj, "spec"));
	if (e >= 0)
		e = sno_policy_judge(r);
	if (e >= 0 && !r->failed)
		e = sno_policy_keep(ps, &p);
	sno_policy_done(&p);
	r->p = NULL;
	return e;
}

/* The line of field key of mapping m, else of fallback (a field not given). */
static unsigned sno_field_line(struct sno_reader *r, yaml_node_t *m, const char *key,
			       yaml_node_t *fallback)
{
	yaml_node_t *v = m && m->type == YAML_MAPPING_NODE ? sno_yaml_get(r->doc, m, key) : NULL;

	return sno_line(v ?: fallback);
}

static int sno_object(struct sno_reader *r, struct sno_policies *ps, yaml_node_t *obj)
{
	yaml_node_t *metadata;
	const char *kind, *name;

	if (!obj || obj->type != YAML_MAPPING_NODE)
		return diag_add(r->diags, DIAG_ERROR, r->source, sno_line(obj),
				"an object is not a mapping");
	kind = sno_field_text(r, obj, "kind");
	metadata = sno_yaml_get(r->doc, obj, "metadata");
	name = sno_field_text(r, metadata, "name");
	if (!streq_ptr(kind, SNO_KIND))
		return diag_add(r->diags, DIAG_ERROR, r->source,
				sno_field_line(r, obj, "kind", obj), "%s%s: kind %s, not " SNO_KIND,
				name ? "object " : "an object", strempty(name),
				kind ?: "not given");
	if (!name || !*name)
		return diag_add(r->diags, DIAG_ERROR, r->source,
				sno_field_line(r, metadata, "name", metadata ?: obj),
				"a " SNO_KIND " without metadata.name");
	return sno_object_read(r, ps, obj, sno_yaml_get(r->doc, metadata, "name"), name);
}

struct sno_policy_walk {
	struct sno_reader *r;
	struct sno_policies *ps;
};

static int sno_policy_object(yaml_document_t *doc, yaml_node_t *obj, void *userdata)
{
	struct sno_policy_walk *pw = userdata;

	pw->r->doc = doc;
	return sno_object(pw->r, pw->ps, obj);
}

int sno_policies_parse(const char *source, const char *text, struct sno_policies *ret,
		       struct diag_list *diags)
{
	struct sno_reader r = { .source = streq(source, "-") ? "<stdin>" : source, .diags = diags };
	struct sno_policies ps = {};
	struct sno_policy_walk pw = { .r = &r, .ps = &ps };
	const struct sno_walk w = { .source = r.source,
				    .diags = diags,
				    .not_yaml = "not YAML",
				    .on_object = sno_policy_object,
				    .userdata = &pw };
	int e;

	e = sno_yaml_objects(&w, text);
	if (e < 0) {
		sno_policies_done(&ps);
		return e;
	}
	*ret = ps;
	return 0;
}
