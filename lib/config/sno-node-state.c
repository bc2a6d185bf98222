/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* SriovNetworkNodeState objects in YAML or JSON: the documents, the objects
 * in them (one, a list, a kubectl "kind: List"), and which one is this
 * node's. The fields are sno-node-state-fields.c's. */

#include "sno-node-state-internal.h"
#include "sriov-operator.h"
#include "string-util.h"
#include "strv.h"

#define NS_KIND "SriovNetworkNodeState"

static void sno_iface_done(struct sno_iface *i)
{
	free(i->pci);
	free(i->name);
	free(i->link_type);
	free(i->eswitch_mode);
	for (size_t g = 0; g < i->n_groups; g++) {
		free(i->groups[g].resource_name);
		free(i->groups[g].policy_name);
	}
	free(i->groups);
	for (size_t v = 0; v < i->n_vfs; v++)
		free(i->vfs[v].driver);
	free(i->vfs);
}

static void sno_ifaces_free(struct sno_iface *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		sno_iface_done(&list[i]);
	free(list);
}

static void sno_node_state_done(struct sno_node_state *ns)
{
	free(ns->name);
	sno_ifaces_free(ns->spec, ns->n_spec);
	sno_ifaces_free(ns->status, ns->n_status);
	free(ns->sync_status);
	free(ns->last_sync_error);
	for (size_t i = 0; i < ns->n_unjudged; i++)
		free(ns->unjudged[i].field);
	free(ns->unjudged);
	*ns = (struct sno_node_state){};
}

void sno_node_states_done(struct sno_node_states *s)
{
	for (size_t i = 0; i < s->n; i++)
		sno_node_state_done(&s->items[i]);
	free(s->items);
	*s = (struct sno_node_states){};
}

static const char *ns_field_text(struct ns_reader *r, yaml_node_t *m, const char *key)
{
	return m && m->type == YAML_MAPPING_NODE ? sno_yaml_scalar(sno_yaml_get(r->doc, m, key)) :
						   NULL;
}

static bool ns_name_taken(const struct sno_node_states *s, const char *name)
{
	for (size_t i = 0; i < s->n; i++)
		if (streq(s->items[i].name, name))
			return true;
	return false;
}

static int ns_keep(struct sno_node_states *s, struct sno_node_state *ns)
{
	struct sno_node_state *items = realloc(s->items, sizeof(*items) * (s->n + 1));

	if (!items)
		return -ENOMEM;
	s->items = items;
	s->items[s->n++] = *ns;
	*ns = (struct sno_node_state){};
	return 0;
}

/* The fields; kept when none has an error. */
static int ns_object_read(struct ns_reader *r, struct sno_node_states *s, yaml_node_t *obj,
			  const char *name)
{
	struct sno_node_state ns = { .line = ns_line(obj) };
	int e;

	r->ns = &ns;
	r->failed = false;
	e = free_and_strdup(&ns.name, name);
	if (e >= 0 && ns_name_taken(s, name))
		e = ns_error(r, obj, "metadata.name", "a second node state of this name");
	if (e >= 0 && !r->failed)
		e = ns_read_object(r, obj);
	if (e >= 0 && !r->failed && !ns.has_spec && !ns.has_status)
		e = ns_error(r, obj, "spec", "neither spec nor status: nothing to compare");
	if (e >= 0 && !r->failed)
		e = ns_keep(s, &ns);
	sno_node_state_done(&ns);
	r->ns = NULL;
	return e;
}

static int ns_object(struct ns_reader *r, struct sno_node_states *s, yaml_node_t *obj)
{
	const char *kind, *name;

	if (!obj || obj->type != YAML_MAPPING_NODE)
		return diag_add(r->diags, DIAG_ERROR, r->source, ns_line(obj),
				"an object is not a mapping");
	kind = ns_field_text(r, obj, "kind");
	name = ns_field_text(r, sno_yaml_get(r->doc, obj, "metadata"), "name");
	if (!streq_ptr(kind, NS_KIND))
		return diag_add(r->diags, DIAG_ERROR, r->source, ns_line(obj),
				"%s%s: kind %s, not " NS_KIND, name ? "object " : "an object",
				strempty(name), kind ?: "not given");
	if (!name || !*name)
		return diag_add(r->diags, DIAG_ERROR, r->source, ns_line(obj),
				"a " NS_KIND " without metadata.name");
	return ns_object_read(r, s, obj, name);
}

struct ns_walk {
	struct ns_reader *r;
	struct sno_node_states *s;
};

static int ns_walk_object(yaml_document_t *doc, yaml_node_t *obj, void *userdata)
{
	struct ns_walk *nw = userdata;

	nw->r->doc = doc;
	return ns_object(nw->r, nw->s, obj);
}

int sno_node_states_parse(const char *source, const char *text, struct sno_node_states *ret,
			  struct diag_list *diags)
{
	struct ns_reader r = { .source = streq(source, "-") ? "<stdin>" : source, .diags = diags };
	struct sno_node_states s = {};
	struct ns_walk nw = { .r = &r, .s = &s };
	const struct sno_walk w = { .source = r.source,
				    .diags = diags,
				    .not_yaml = "neither YAML nor JSON",
				    .on_object = ns_walk_object,
				    .userdata = &nw };
	int e;

	e = sno_yaml_objects(&w, text);
	if (e < 0) {
		sno_node_states_done(&s);
		return e;
	}
	*ret = s;
	return 0;
}

/* ---- which one is this node's ---- */

bool sno_node_name_is_host(const char *name, const char *hostname)
{
	size_t n = strcspn(hostname, ".");

	return strcasecmp(name, hostname) == 0 ||
	       (strlen(name) == n && strncasecmp(name, hostname, n) == 0);
}

static char *ns_names(const struct sno_node_states *s)
{
	_cleanup_strv_free_ char **names = NULL;

	for (size_t i = 0; i < s->n; i++)
		if (strv_extend(&names, s->items[i].name) < 0)
			return NULL;
	return names ? strv_join(names, ", ") : strdup("");
}

static int ns_select_named(const struct sno_node_states *s, const char *node,
			   const struct sno_node_state **ret, char **ret_why)
{
	_cleanup_free_ char *names = NULL;

	for (size_t i = 0; i < s->n; i++)
		if (streq(s->items[i].name, node)) {
			*ret = &s->items[i];
			return 0;
		}
	names = ns_names(s);
	*ret_why =
		names ? strdup_printf("no node state named %s (the input has: %s)", node, names) :
			NULL;
	return *ret_why ? -ENOENT : -ENOMEM;
}

int sno_node_states_select(const struct sno_node_states *s, const char *node, const char *hostname,
			   const struct sno_node_state **ret, char **ret_why)
{
	_cleanup_free_ char *names = NULL;
	const struct sno_node_state *found = NULL;
	size_t n = 0;

	if (node)
		return ns_select_named(s, node, ret, ret_why);
	if (s->n == 1) {
		*ret = &s->items[0];
		return 0;
	}
	for (size_t i = 0; hostname && i < s->n; i++)
		if (sno_node_name_is_host(s->items[i].name, hostname)) {
			found = &s->items[i];
			n++;
		}
	if (n == 1) {
		*ret = found;
		return 0;
	}
	names = ns_names(s);
	if (!names)
		return -ENOMEM;
	if (s->n == 0)
		*ret_why = strdup("no node state in the input");
	else if (n == 0)
		*ret_why = strdup_printf("%zu node states (%s), none named for this host (%s): "
					 "give --node NAME",
					 s->n, names, strna(hostname));
	else
		*ret_why = strdup_printf("%zu node states (%s) are named for this host (%s): give "
					 "--node NAME",
					 n, names, strna(hostname));
	return !*ret_why ? -ENOMEM : n == 0 ? -ENOENT : -ENOTUNIQ;
}
