/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Shared by the files of the layout parser: the parsing state of one file
 * (layout.c), its section headers (layout-sections.c) and its key
 * assignments (layout-keys.c). layout.c calls both, layout-keys.c calls
 * layout-sections.c; neither calls back. */

#include "layout.h"

#define VF_INDEX_MAX 4095

enum section_kind {
	SECTION_NONE,	 /* before the first header */
	SECTION_IGNORED, /* unknown or invalid: already reported */
	SECTION_MATCH,
	SECTION_PF,
	SECTION_VF,
	SECTION_LAYOUT,
};

struct layout_parser {
	struct layout_file *file;
	struct diag_list *diags;
	enum section_kind kind;
	size_t vf;	  /* index of the current section in file->vf_sections */
	bool match_error; /* an error in [Match]: no one can tell which PFs it meant */
	/* under an invalid [VirtualFunction ...] header: its lines are still
	 * checked, into scratch, and never applied */
	bool unused;
	struct vf_section scratch;
	char unused_name[64];
	/* the first unknown section that was meant as [Match], for the
	 * "no [Match] section" error */
	char match_typo[64];
	unsigned match_typo_line;
	size_t match_typo_diag; /* its "unknown section" error in diags */
	/* under an unknown section with a "did you mean": the section it was
	 * likely meant as (SECTION_NONE: none), whose keys its keys are
	 * checked against, so that one pass shows every typo */
	enum section_kind guess;
	char guess_name[64]; /* the unknown section's name, as written */
	/* the main configuration's sections the file has, "[Disruption]
	 * [Kubernetes]": a sriov-persist.conf put among the layouts */
	char main_sections[128];
};

#define layout_error(p, line, ...) \
	diag_add((p)->diags, DIAG_ERROR, (p)->file->path, (line), __VA_ARGS__)

/* layout-sections.c */

/* The section whose keys are being read: scratch under an invalid header. */
struct vf_section *layout_current_vf_section(struct layout_parser *p);
/* "VirtualFunction", "VirtualFunction 3" or "VirtualFunction 0-7". */
void layout_vf_section_name(const struct vf_section *s, char *buf, size_t size);
/* Keys and sections named "X-..." are the user's own annotations. */
bool layout_is_extension(const char *name) _pure_;
/* A section header at line (name NULL: an invalid header, already
 * reported); the section before it is finished first. */
int layout_on_section(void *userdata, const char *name, unsigned line);
/* Checks that need the whole section, at its end or the file's. */
int layout_finish_section(struct layout_parser *p);

/* layout-keys.c */

/* A key = value line at line, in the section being read. */
int layout_on_assignment(void *userdata, const char *key, const char *value, unsigned line);
