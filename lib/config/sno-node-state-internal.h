/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stddef.h>

/* Shared by the files of the node state reader: the reading state, the
 * walk over a mapping by a table of fields (sno-node-state-read.c), and the
 * tables (sno-node-state-fields.c). */

#include <yaml.h>

#include "sno-node-state.h"

struct ns_reader {
	const char *source;
	yaml_document_t *doc;
	struct diag_list *diags;
	struct sno_node_state *ns; /* the object being read */
	bool failed;		   /* it has an error */
};

/* Where a value is: path with indexes for messages ("status.interfaces[1]
 * .mtu"), without them for what is not compared ("status.interfaces[].mtu"). */
struct ns_path {
	const char *at;
	const char *generic;
};

/* One field of a mapping: read into obj, or, with why, not compared. */
/* How a field's value is read: into the object at the row's offset, by the
 * row's read function, or not at all (why says why compare does not judge
 * it; neither: a field read elsewhere, as kind and metadata). */
enum ns_kind {
	NS_SKIP,
	NS_UINT,   /* unsigned */
	NS_BOOL,   /* bool */
	NS_STRING, /* char *, allocated */
	NS_READ,   /* read() */
};

struct ns_field {
	const char *name;
	enum ns_kind kind;
	size_t offset;
	int (*read)(struct ns_reader *r, yaml_node_t *v, const struct ns_path *p, void *obj);
	const char *why;
};

#define NS_FIELD(n, k, type, member)                                       \
	{                                                                  \
		.name = (n), .kind = (k), .offset = offsetof(type, member) \
	}
#define NS_FIELD_READ(n, fn)                               \
	{                                                  \
		.name = (n), .kind = NS_READ, .read = (fn) \
	}
#define NS_FIELD_NOT(n, w)                               \
	{                                                \
		.name = (n), .kind = NS_SKIP, .why = (w) \
	}

unsigned ns_line(const yaml_node_t *n);
yaml_node_t *ns_node(struct ns_reader *r, int id);
/* "node state NAME: PATH: why" at the node's line; marks the object failed. */
int ns_error(struct ns_reader *r, const yaml_node_t *n, const char *path, const char *fmt, ...)
	_printf_(4, 5);
/* Each key of mapping m by table: read, or kept as not compared (a key
 * the table lacks too). */
int ns_mapping(struct ns_reader *r, yaml_node_t *m, const struct ns_path *p,
	       const struct ns_field *table, void *obj);
/* Each item of sequence v, a mapping read by table into a new element of
 * *array (of size bytes, *n of them), its line set by set_line. */
int ns_sequence(struct ns_reader *r, yaml_node_t *v, const struct ns_path *p,
		const struct ns_field *table, void **array, size_t size, size_t *n);
int ns_uint(struct ns_reader *r, yaml_node_t *v, const struct ns_path *p, unsigned *ret);
int ns_bool(struct ns_reader *r, yaml_node_t *v, const struct ns_path *p, bool *ret);
int ns_string(struct ns_reader *r, yaml_node_t *v, const struct ns_path *p, char **ret);

/* sno-node-state-fields.c: an object's spec and status into r->ns. */
int ns_read_object(struct ns_reader *r, yaml_node_t *obj);
