/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Layout files (sriov-persist.layout(5)): parsing with inih into plain
 * data. Validation of single values happens here, in layout-match.c and
 * in layout-settings.c; checks against a PF's hardware happen in
 * desired.c. */

#include "diag.h"
#include "layout-declare.h"
#include "layout-match.h"
#include "layout-settings.h"

#define VF_INDEX_ALL UINT32_MAX

/* [VirtualFunction], [VirtualFunction N], [VirtualFunction N-M] */
struct vf_section {
	uint32_t first; /* VF_INDEX_ALL for [VirtualFunction] */
	uint32_t last;
	unsigned line; /* of the section header */
	struct vf_settings settings;
};

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
