/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Layout files (sriov-persist.layout(5)): parsing with inih into plain
 * data. Validation of single values happens here and in layout-settings.c;
 * checks against a PF's hardware happen in desired.c. */

#include "diag.h"
#include "layout-declare.h"
#include "layout-settings.h"

/* [Match] key names as written in files ("PCIAddress", ...); NULL past the last. */
const char *layout_match_key_name(size_t i) _pure_;

#define LAYOUT_MATCH_KEYS 6

/* [Match]: each is NULL (not set) or a NULL-terminated list of globs. */
struct layout_match {
	char **pci_address;
	char **name;
	char **vendor;
	char **device;
	char **driver;
	char **host;
	unsigned line; /* of the [Match] header, 0 when the file has none */
	/* of the first line that set each key (layout_match_key_name() order) */
	unsigned key_line[LAYOUT_MATCH_KEYS];
};

/* The glob list of key i (layout_match_key_name() order, i < LAYOUT_MATCH_KEYS) of m. */
char ***layout_match_list(struct layout_match *m, size_t i);

#define VF_INDEX_ALL UINT32_MAX

/* [VirtualFunction], [VirtualFunction N], [VirtualFunction N-M] */
struct vf_section {
	uint32_t first; /* VF_INDEX_ALL for [VirtualFunction] */
	uint32_t last;
	unsigned line; /* of the section header */
	struct vf_settings settings;
};

/* Nothing set: a file without a usable [Match] (an error), which holds
 * every PF. */
bool layout_match_is_empty(const struct layout_match *m) _pure_;

/* "PCIAddress=0000:3b:00.0 Driver=ice": the keys set, in table order;
 * NULL on allocation failure. */
char *layout_match_describe(const struct layout_match *m);

struct layout_file {
	char *path;
	bool masked;	/* not used for layouts in a set: masked files are dropped */
	bool has_error; /* any DIAG_ERROR was reported for this file */
	/* read, but without a [Match] section (none, or only a mistyped one):
	 * it holds every PF, as a [Match] with an error does */
	bool no_match;
	struct layout_match match;
	struct pf_settings pf;
	struct vf_section *vf_sections;
	size_t n_vf_sections;
	/* [Layout]: Overrides=, the earlier files whose values this one means
	 * to replace (layout-declare.c) */
	struct layout_declare declare;
};

/* Parses one layout file from memory; path is used for messages. Errors and
 * warnings go to diags (file:line each). Returns 0 even when the file has
 * errors (then ret->has_error is set); -ENOMEM only on allocation failure. */
int layout_parse_string(const char *path, const char *text, struct diag_list *diags,
			struct layout_file **ret);
int layout_parse_file(const char *path, struct diag_list *diags, struct layout_file **ret);
/* The same, read from the path from (a link's name resolved under a root
 * directory), named path in messages and in the set. */
int layout_parse_file_from(const char *path, const char *from, struct diag_list *diags,
			   struct layout_file **ret);
struct layout_file *layout_file_free(struct layout_file *f);
