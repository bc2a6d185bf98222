/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <string.h>
#include <strings.h>
#include <yaml.h>

#include "sriov-operator.h"

/* The interface keys read, as the operator spells them. */
enum sno_key {
	SNO_KEY_PCI,
	SNO_KEY_NUMVFS,
	SNO_KEY_EXTERNALLY_MANAGED,
	_SNO_KEY_MAX,
};

static const char *const sno_keys[_SNO_KEY_MAX] = {
	[SNO_KEY_PCI] = "pciaddress",
	[SNO_KEY_NUMVFS] = "numvfs",
	[SNO_KEY_EXTERNALLY_MANAGED] = "externallymanaged",
};

const char *sno_yaml_scalar(yaml_node_t *n)
{
	return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

yaml_node_t *sno_yaml_get(yaml_document_t *doc, yaml_node_t *m, const char *key)
{
	for (yaml_node_pair_t *p = m->data.mapping.pairs.start; p < m->data.mapping.pairs.top; p++)
		if (streq_ptr(sno_yaml_scalar(yaml_document_get_node(doc, p->key)), key))
			return yaml_document_get_node(doc, p->value);
	return NULL;
}

static int sno_walk_items(const struct sno_walk *w, yaml_document_t *doc, yaml_node_t *list)
{
	int e = 0;

	for (yaml_node_item_t *i = list->data.sequence.items.start;
	     e >= 0 && i < list->data.sequence.items.top; i++)
		e = w->on_object(doc, yaml_document_get_node(doc, *i), w->userdata);
	return e;
}

static int sno_walk_document(const struct sno_walk *w, yaml_document_t *doc, yaml_node_t *root)
{
	const char *kind = root->type == YAML_MAPPING_NODE ?
				   sno_yaml_scalar(sno_yaml_get(doc, root, "kind")) :
				   NULL;
	yaml_node_t *items;

	if (root->type == YAML_SEQUENCE_NODE)
		return sno_walk_items(w, doc, root);
	if (!kind || !endswith(kind, "List"))
		return w->on_object(doc, root, w->userdata);
	items = sno_yaml_get(doc, root, "items");
	if (!items || items->type != YAML_SEQUENCE_NODE)
		return diag_add(w->diags, DIAG_ERROR, w->source,
				(unsigned)root->start_mark.line + 1,
				"kind %s without a list of items", kind);
	return sno_walk_items(w, doc, items);
}

static int sno_walk_stream(const struct sno_walk *w, yaml_parser_t *parser)
{
	yaml_document_t doc;
	yaml_node_t *root;
	int e = 0;

	while (e >= 0) {
		if (!yaml_parser_load(parser, &doc)) {
			if (parser->error == YAML_MEMORY_ERROR)
				return -ENOMEM;
			return diag_add(w->diags, DIAG_ERROR, w->source,
					(unsigned)parser->problem_mark.line + 1, "%s: %s",
					w->not_yaml, parser->problem ?: "unknown error");
		}
		root = yaml_document_get_root_node(&doc);
		if (!root) {
			yaml_document_delete(&doc);
			return 0; /* the end of the stream */
		}
		if (!(root->type == YAML_SCALAR_NODE && !root->data.scalar.length))
			e = sno_walk_document(w, &doc, root);
		yaml_document_delete(&doc);
	}
	return e;
}

int sno_yaml_objects(const struct sno_walk *w, const char *text)
{
	yaml_parser_t parser;
	int e;

	if (!yaml_parser_initialize(&parser))
		return -ENOMEM;
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, strlen(text));
	e = sno_walk_stream(w, &parser);
	yaml_parser_delete(&parser);
	return e;
}

static int sno_fail(struct sno_config *c, const yaml_node_t *n, const char *why)
{
	c->error_line = n ? (unsigned)n->start_mark.line + 1 : 0;
	return free_and_strdup(&c->error, why);
}

/* One of the interface's keys: its value, or a note of another spelling. */
static int sno_item_key(struct sno_interface *it, const char *key, yaml_node_t *value)
{
	const char *v = sno_yaml_scalar(value);
	unsigned line = value ? (unsigned)value->start_mark.line + 1 : 0;

	for (enum sno_key k = 0; k < _SNO_KEY_MAX; k++) {
		if (strcasecmp(key, sno_keys[k]) != 0)
			continue;
		if (!streq(key, sno_keys[k]) && !it->other_spelling) {
			int r = free_and_strdup(&it->other_spelling, key);

			if (r < 0)
				return r;
			it->operator_spelling = sno_keys[k];
		}
		if (!v)
			return 0;
		if (k == SNO_KEY_EXTERNALLY_MANAGED) {
			it->externally_managed = streq(v, "true");
			return 0;
		}
		if (k == SNO_KEY_PCI) {
			it->line = line;
			return free_and_strdup(&it->pci, v);
		}
		it->numvfs_line = line;
		if (free_and_strdup(&it->numvfs_key, key) < 0)
			return -ENOMEM;
		return free_and_strdup(&it->numvfs, v);
	}
	return 0;
}

/* An interface, kept when it names a PCI address (in either spelling). */
static int sno_item(struct sno_config *c, yaml_document_t *doc, yaml_node_t *m)
{
	struct sno_interface it = { .line = (unsigned)m->start_mark.line + 1 };
	struct sno_interface *items;
	int r = 0;

	if (m->type != YAML_MAPPING_NODE)
		return sno_fail(c, m, "an interface is not a mapping");
	for (yaml_node_pair_t *p = m->data.mapping.pairs.start;
	     r >= 0 && p < m->data.mapping.pairs.top; p++) {
		const char *key = sno_yaml_scalar(yaml_document_get_node(doc, p->key));

		if (key)
			r = sno_item_key(&it, key, yaml_document_get_node(doc, p->value));
	}
	if (r >= 0 && it.pci) {
		items = realloc(c->items, sizeof(*items) * (c->n + 1));
		if (items) {
			c->items = items;
			c->items[c->n++] = it;
			return 0;
		}
		r = -ENOMEM;
	}
	free(it.pci);
	free(it.numvfs);
	free(it.numvfs_key);
	free(it.other_spelling);
	return r;
}

/* spec: interfaces: [...] */
static int sno_document(struct sno_config *c, yaml_document_t *doc)
{
	yaml_node_t *root = yaml_document_get_root_node(doc), *spec, *list;
	int r = 0;

	if (!root)
		return 0; /* an empty file */
	if (root->type != YAML_MAPPING_NODE)
		return sno_fail(c, root, "the file is not a mapping");
	spec = sno_yaml_get(doc, root, "spec");
	if (!spec || (spec->type == YAML_SCALAR_NODE && !spec->data.scalar.length))
		return 0;
	if (spec->type != YAML_MAPPING_NODE)
		return sno_fail(c, spec, "spec is not a mapping");
	list = sno_yaml_get(doc, spec, "interfaces");
	if (!list || (list->type == YAML_SCALAR_NODE && !list->data.scalar.length))
		return 0;
	if (list->type != YAML_SEQUENCE_NODE)
		return sno_fail(c, list, "spec.interfaces is not a list");
	for (yaml_node_item_t *i = list->data.sequence.items.start;
	     r >= 0 && i < list->data.sequence.items.top; i++)
		r = sno_item(c, doc, yaml_document_get_node(doc, *i));
	return r;
}

static int sno_parse(struct sno_config *c, const char *text)
{
	yaml_parser_t parser;
	yaml_document_t doc;
	int r;

	if (!yaml_parser_initialize(&parser))
		return -ENOMEM;
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, strlen(text));
	if (!yaml_parser_load(&parser, &doc)) {
		r = parser.error == YAML_MEMORY_ERROR ? -ENOMEM : 0;
		if (r >= 0) {
			c->error_line = (unsigned)parser.problem_mark.line + 1;
			r = free_and_strdup(&c->error, parser.problem ?: "not YAML");
		}
		yaml_parser_delete(&parser);
		return r;
	}
	r = sno_document(c, &doc);
	yaml_document_delete(&doc);
	yaml_parser_delete(&parser);
	return r;
}

int sno_config_scan(const char *path, const char *text, struct sno_config *ret)
{
	struct sno_config c = { .path = strdup(path) };
	int r = c.path ? sno_parse(&c, text) : -ENOMEM;

	if (r < 0) {
		sno_config_done(&c);
		return r;
	}
	*ret = c;
	return 0;
}

void sno_config_done(struct sno_config *c)
{
	for (size_t i = 0; i < c->n; i++) {
		free(c->items[i].pci);
		free(c->items[i].numvfs);
		free(c->items[i].numvfs_key);
		free(c->items[i].other_spelling);
	}
	free(c->items);
	free(c->path);
	free(c->error);
	*c = (struct sno_config){};
}

static char *sno_setting(const struct sno_interface *it)
{
	if (!it->numvfs)
		return strdup("an interface without numvfs");
	return strdup_printf("%s: %s%s", it->numvfs_key, it->numvfs,
			     it->externally_managed ? " with externallymanaged: true (it "
						      "configures the VFs another tool makes)" :
						      "");
}

static char *sno_how(const struct sno_interface *it, const char *pci)
{
	if (it->other_spelling)
		return strdup_printf("an interface for %s with the key %s, which the operator "
				     "writes as %s and reads only so: what it makes of the "
				     "interface is unknown",
				     pci, it->other_spelling, it->operator_spelling);
	return strdup_printf("pciaddress: %s (systemd mode: sriov-config.service applies it at "
			     "boot)",
			     it->pci);
}

/* The PCI address an interface names, in the operator's spelling or not. */
static bool sno_names(const struct sno_interface *it, const char *pci)
{
	return it->pci && strcasecmp(it->pci, pci) == 0;
}

int sno_config_match(const struct sno_config *c, const char *pci, struct other_findings *out)
{
	for (size_t i = 0; i < c->n; i++) {
		const struct sno_interface *it = &c->items[i];
		_cleanup_free_ char *setting = NULL, *how = NULL;
		int r;

		if (!sno_names(it, pci))
			continue;
		setting = sno_setting(it);
		how = sno_how(it, pci);
		if (!setting || !how)
			return -ENOMEM;
		r = other_findings_add(
			out, OTHER_MANAGER_SRIOV_OPERATOR,
			it->other_spelling ? OTHER_CERTAINTY_MAY_MATCH : OTHER_CERTAINTY_MATCHES,
			c->path, it->numvfs ? it->numvfs_line : it->line, setting, how);
		if (r < 0)
			return r;
		/* an interface whose VFs the operator leaves to another tool:
		 * it makes none */
		r = other_finding_set_count(&out->items[out->n - 1],
					    it->externally_managed ? "0" : it->numvfs);
		out->items[out->n - 1].count_implied = it->externally_managed;
		return r;
	}
	return 0;
}
