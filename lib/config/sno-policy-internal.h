/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Shared by the files of the policy reader: the reading state, the
 * diagnostics, and scalar readers (sno-policy-read.c). */

#include <yaml.h>

#include "sno-policy.h"

struct sno_reader {
	const char *source;
	yaml_document_t *doc;
	struct diag_list *diags;
	struct sno_policy *p; /* the policy being read; NULL between them */
	bool failed;	      /* p has an error */
	/* the spec's fields of p that have an error, by name (bit i: field i
	 * of sno-policy-fields.c's table): the checks across fields skip them */
	uint32_t bad_fields;
	/* the same for the keys of its nicSelector (sno-policy-fields.c's
	 * sno_nic_keys): a check reading pfNames reads no vendor */
	uint32_t bad_nic_keys;
	/* the line of the key whose value is being read (sno_each_key()): an
	 * error about the field as a whole cites the key, not a block value
	 * that starts on the next line */
	unsigned key_line;
};

unsigned sno_line(const yaml_node_t *n);
/* "policy NAME: FIELD: why" at the node's line (field may be NULL), the
 * policy's when n is NULL (a field not given); an error marks the policy
 * failed. 0 or -ENOMEM. */
int sno_say(struct sno_reader *r, enum diag_level level, const yaml_node_t *n, const char *field,
	    const char *fmt, ...) _printf_(5, 6);
/* The same at line, a field's line kept for a check made after its field
 * was read (0: not given, the policy's line). */
int sno_say_at(struct sno_reader *r, enum diag_level level, unsigned line, const char *field,
	       const char *fmt, ...) _printf_(5, 6);
yaml_node_t *sno_node(struct sno_reader *r, int id);
/* A scalar's text; NULL, with *ret the result of an error naming field,
 * for another node. */
const char *sno_text(struct sno_reader *r, yaml_node_t *v, const char *field, int *ret);
int sno_bool(struct sno_reader *r, yaml_node_t *v, const char *field, bool *ret);
int sno_uint(struct sno_reader *r, yaml_node_t *v, const char *field, unsigned max, unsigned *ret);
/* One of the words of the CRD's enum (map: {word, ours}..., {NULL}): ours. */
int sno_word(struct sno_reader *r, yaml_node_t *v, const char *field, const char *const map[][2],
	     const char **ret);
/* Each item of a list of strings v, given to add. */
int sno_strings(struct sno_reader *r, yaml_node_t *v, const char *field,
		int (*add)(struct sno_reader *r, yaml_node_t *item, const char *field,
			   const char *s));

/* sno-policy-fields.c: the spec's fields into r->p, each read whatever
 * errors the others have; those with one are marked in r->bad_fields. */
int sno_policy_read_spec(struct sno_reader *r, yaml_node_t *spec);
/* Whether the spec's field name ("numVfs", "nicSelector" for any of its
 * keys, "nicSelector.pfNames" for that key alone) had an error: a check
 * that reads it cannot tell anything. */
bool sno_field_bad(const struct sno_reader *r, const char *name);
