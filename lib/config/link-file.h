/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* systemd .link files (systemd.link(5)) as far as they set SR-IOV on a PF:
 * [Match] and [Link] SR-IOVVirtualFunctions= and [SR-IOV] sections, read
 * from a file and its drop-ins; and udev's rule that only the first file
 * (in file name order) whose [Match] selects a device applies to it.
 * Parsing and matching are pure. */

#include "other-findings.h"

/* The [Match] keys, one row each in link-file.c. */
enum link_match_key {
	LINK_MATCH_ORIGINAL_NAME,
	LINK_MATCH_PATH,
	LINK_MATCH_DRIVER,
	LINK_MATCH_TYPE,
	LINK_MATCH_KIND,
	LINK_MATCH_MAC,
	LINK_MATCH_PERMANENT_MAC,
	LINK_MATCH_PROPERTY,
	LINK_MATCH_HOST,
	LINK_MATCH_VIRTUALIZATION,
	LINK_MATCH_KERNEL_COMMAND_LINE,
	LINK_MATCH_KERNEL_VERSION,
	LINK_MATCH_ARCHITECTURE,
	LINK_MATCH_FIRMWARE,
	LINK_MATCH_CREDENTIAL,
	_LINK_MATCH_MAX,
	_LINK_MATCH_INVALID = -EINVAL,
};

/* For key, a [Match] key of .link files: the key of a layout's [Match]
 * that does its job, or NULL when there is none, and how its value
 * differs ("the PCI address alone, ..." for Path=). -ENOENT for another
 * key. */
int link_match_key_in_layout(const char *key, const char **ret_key, const char **ret_value);

/* Where a value was set (the file may be a drop-in). */
struct link_where {
	char *path;
	unsigned line;
};

struct link_file {
	char *path; /* the .link file, as on the host */
	/* each key's words as systemd keeps them: a line's words get its
	 * leading "!"; an empty assignment empties the list */
	char **match[_LINK_MATCH_MAX];
	struct link_where match_where[_LINK_MATCH_MAX];
	/* a [Match] key this reader does not know */
	char *unknown_match;
	struct link_where unknown_where;
	char *vfs; /* SR-IOVVirtualFunctions=, NULL: unset */
	struct link_where vfs_where;
	unsigned n_sriov_sections;
	struct link_where sriov_where; /* the first [SR-IOV] */
	/* each [SR-IOV] section's values; index UINT32_MAX: no VirtualFunction=
	 * (udev ignores the section) */
	struct other_vf *sriov_vfs;
	size_t n_sriov_vfs;
	char *error; /* a line that cannot be read, or the file */
	struct link_where error_where;
};

/* Adds one file's text (the .link file, then each drop-in in order) to lf;
 * path as on the host. A line that cannot be read does not fail: lf->error
 * says which, and the file may then match any PF. -ENOMEM. */
int link_file_parse(struct link_file *lf, const char *path, const char *text);
/* The file could not be read (why: "Permission denied"); -ENOMEM. */
int link_file_set_unreadable(struct link_file *lf, const char *path, const char *why);
void link_file_done(struct link_file *lf);

/* files in the order udev reads them (by file name, masking done): the
 * finding of the first one whose [Match] selects id, when it sets SR-IOV.
 * A file whose [Match] has a key that cannot be evaluated offline (Host=,
 * KernelCommandLine=, the other conditions, a Property= other than ID_BUS,
 * ID_PATH, ID_VENDOR_ID and ID_MODEL_ID, or OriginalName= while the
 * original name is unknown), or that cannot be read, "may match": its own
 * SR-IOV settings are reported so, and a later file it may hide is reported
 * as "may match" too. A file with an empty [Match] applies to nothing, as
 * udev ignores it. -ENOMEM. */
int link_files_match(const struct link_file *files, size_t n, const struct pf_identity *id,
		     struct other_findings *out);
