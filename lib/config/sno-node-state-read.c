/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* The node state reader's walk: a mapping by its table of fields, a
 * sequence of mappings, scalars, and what is not compared. */

#include <stddef.h>
#include <strings.h>

#include "parse-util.h"
#include "sno-node-state-internal.h"
#include "sriov-operator.h"
#include "string-util.h"

_Static_assert(offsetof(struct sno_iface, line) == 0, "ns_sequence() sets the line");
_Static_assert(offsetof(struct sno_vf, line) == 0, "ns_sequence() sets the line");
_Static_assert(offsetof(struct sno_vf_group, line) == 0, "ns_sequence() sets the line");

const struct sno_iface *sno_iface_find(const struct sno_iface *list, size_t n, const char *pci)
{
	for (size_t i = 0; i < n; i++)
		if (list[i].pci && strcasecmp(list[i].pci, pci) == 0)
			return &list[i];
	return NULL;
}

unsigned ns_line(const yaml_node_t *n)
{
	return n ? (unsigned)n->start_mark.line + 1 : 0;
}

yaml_node_t *ns_node(struct ns_reader *r, int id)
{
	return yaml_document_get_node(r->doc, id);
}

int ns_error(struct ns_reader *r, const yaml_node_t *n, const char *path, const char *fmt, ...)
{
	_cleanup_free_ char *why = NULL;
	va_list ap;

	va_start(ap, fmt);
	why = strdup_vprintf(fmt, ap);
	va_end(ap);
	if (!why)
		return -ENOMEM;
	r->failed = true;
	return diag_add(r->diags, DIAG_ERROR, r->source, ns_line(n), "node state %s: %s: %s",
			strna(r->ns ? r->ns->name : NULL), path, why);
}

/* Each field once, at its first line. */
static int ns_unjudged(struct ns_reader *r, yaml_node_t *v, const char *field, const char *why)
{
	struct sno_node_state *ns = r->ns;
	struct sno_unjudged *u;

	for (size_t i = 0; i < ns->n_unjudged; i++)
		if (streq(ns->unjudged[i].field, field))
			return 0;
	u = realloc(ns->unjudged, sizeof(*u) * (ns->n_unjudged + 1));
	if (!u)
		return -ENOMEM;
	ns->unjudged = u;
	u[ns->n_unjudged] =
		(struct sno_unjudged){ .field = strdup(field), .line = ns_line(v), .why = why };
	if (!u[ns->n_unjudged].field)
		return -ENOMEM;
	ns->n_unjudged++;
	return 0;
}

static const struct ns_field *ns_field_find(const struct ns_field *table, const char *key)
{
	for (; table->name; table++)
		if (streq(table->name, key))
			return table;
	return NULL;
}

static int ns_field_read(struct ns_reader *r, yaml_node_t *v, const struct ns_path *p,
			 const struct ns_field *f, void *obj)
{
	void *at = (char *)obj + f->offset;

	switch (f->kind) {
	case NS_UINT:
		return ns_uint(r, v, p, at);
	case NS_BOOL:
		return ns_bool(r, v, p, at);
	case NS_STRING:
		return ns_string(r, v, p, at);
	case NS_READ:
		return f->read(r, v, p, obj);
	case NS_SKIP:
		break;
	}
	return f->why ? ns_unjudged(r, v, p->generic, f->why) : 0;
}

static int ns_pair(struct ns_reader *r, yaml_node_pair_t *pair, const struct ns_path *p,
		   const struct ns_field *table, void *obj)
{
	yaml_node_t *k = ns_node(r, pair->key), *v = ns_node(r, pair->value);
	const char *key = sno_yaml_scalar(k);
	_cleanup_free_ char *at = NULL, *generic = NULL;
	const struct ns_field *f;

	if (!key)
		return ns_error(r, k, p->at, "a key that is not a single value");
	at = strdup_printf("%s%s%s", p->at, *p->at ? "." : "", key);
	generic = strdup_printf("%s%s%s", p->generic, *p->generic ? "." : "", key);
	if (!at || !generic)
		return -ENOMEM;
	f = ns_field_find(table, key);
	if (!f)
		return ns_unjudged(r, v, generic, "a field compare does not know");
	return ns_field_read(r, v, &(const struct ns_path){ at, generic }, f, obj);
}

int ns_mapping(struct ns_reader *r, yaml_node_t *m, const struct ns_path *p,
	       const struct ns_field *table, void *obj)
{
	int e = 0;

	if (!m || m->type != YAML_MAPPING_NODE)
		return ns_error(r, m, p->at, "is not a mapping");
	for (yaml_node_pair_t *pair = m->data.mapping.pairs.start;
	     e >= 0 && pair < m->data.mapping.pairs.top; pair++)
		e = ns_pair(r, pair, p, table, obj);
	return e;
}

static int ns_item(struct ns_reader *r, yaml_node_t *item, const struct ns_path *p, size_t i,
		   const struct ns_field *table, void *elem)
{
	_cleanup_free_ char *at = strdup_printf("%s[%zu]", p->at, i);
	_cleanup_free_ char *generic = strdup_printf("%s[]", p->generic);

	if (!at || !generic)
		return -ENOMEM;
	*(unsigned *)elem = ns_line(item);
	return ns_mapping(r, item, &(const struct ns_path){ at, generic }, table, elem);
}

int ns_sequence(struct ns_reader *r, yaml_node_t *v, const struct ns_path *p,
		const struct ns_field *table, void **array, size_t size, size_t *n)
{
	size_t count;
	char *items;
	int e = 0;

	if (!v || v->type != YAML_SEQUENCE_NODE)
		return ns_error(r, v, p->at, "is not a list");
	if (*array)
		return ns_error(r, v, p->at, "given twice");
	count = (size_t)(v->data.sequence.items.top - v->data.sequence.items.start);
	items = calloc(count ?: 1, size);
	if (!items)
		return -ENOMEM;
	*array = items;
	*n = count;
	for (size_t i = 0; e >= 0 && i < count; i++)
		e = ns_item(r, ns_node(r, v->data.sequence.items.start[i]), p, i, table,
			    items + i * size);
	return e;
}

int ns_uint(struct ns_reader *r, yaml_node_t *v, const struct ns_path *p, unsigned *ret)
{
	const char *s = sno_yaml_scalar(v);
	uint32_t u;

	if (!s)
		return ns_error(r, v, p->at, "is not a single value");
	if (safe_atou32(s, 10, &u) < 0 || u > 65535)
		return ns_error(r, v, p->at, "%s: must be a number 0..65535", s);
	*ret = u;
	return 0;
}

int ns_bool(struct ns_reader *r, yaml_node_t *v, const struct ns_path *p, bool *ret)
{
	const char *s = sno_yaml_scalar(v);

	if (!s)
		return ns_error(r, v, p->at, "is not a single value");
	if (!streq(s, "true") && !streq(s, "false"))
		return ns_error(r, v, p->at, "%s: must be true or false", s);
	*ret = streq(s, "true");
	return 0;
}

int ns_string(struct ns_reader *r, yaml_node_t *v, const struct ns_path *p, char **ret)
{
	const char *s = sno_yaml_scalar(v);

	if (!s)
		return ns_error(r, v, p->at, "is not a single value");
	return free_and_strdup(ret, s);
}
