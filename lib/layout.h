/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Layout files (sriov-persist.layout(5)): parsing with inih into plain data,
 * finding them in the three directories with drop-in masking. Validation of
 * single values happens here; checks against a PF's hardware happen in
 * desired.c. */

#include "diag.h"
#include "model.h"

/* Where a value came from, for error messages. line 0 = not set. */
struct src {
	const char *file; /* borrowed from struct layout_file.path */
	unsigned line;
};

enum pf_key {
	PF_KEY_VIRTUAL_FUNCTIONS,
	PF_KEY_MTU,
	PF_KEY_LINK_UP,
	PF_KEY_ESWITCH_MODE,
	PF_KEY_HW_TC_OFFLOAD,
	PF_KEY_LINK_TYPE,
	PF_KEY_FIRMWARE_VFS,
	PF_KEY_EXTERNALLY_MANAGED,
	_PF_KEY_MAX,
	_PF_KEY_INVALID = -EINVAL,
};

enum firmware_vfs {
	FIRMWARE_VFS_AUTO,
	FIRMWARE_VFS_NO,
	_FIRMWARE_VFS_MAX,
	_FIRMWARE_VFS_INVALID = -EINVAL,
};

struct pf_settings {
	uint32_t set; /* bit (1u << enum pf_key) when the key is set */
	struct src src[_PF_KEY_MAX];
	bool num_vfs_max; /* VirtualFunctions=max */
	uint32_t num_vfs;
	uint32_t mtu;
	bool link_up;
	enum eswitch_mode eswitch_mode;
	bool hw_tc_offload;
	enum link_type link_type;
	enum firmware_vfs firmware_vfs;
	bool externally_managed;
};

enum mac_mode {
	MAC_MODE_STABLE,
	MAC_MODE_LITERAL,
	_MAC_MODE_MAX,
	_MAC_MODE_INVALID = -EINVAL,
};

struct vf_settings {
	uint32_t set; /* bit (1u << enum vf_key) when the key is set */
	struct src src[_VF_KEY_MAX];
	enum mac_mode mac_mode;
	struct vf_attrs attrs; /* attrs.mac: MAC_MODE_LITERAL */
};

static inline bool pf_settings_has(const struct pf_settings *s, enum pf_key k)
{
	return s->set & (1u << k);
}
static inline bool vf_settings_has(const struct vf_settings *s, enum vf_key k)
{
	return s->set & (1u << k);
}

/* Key names as written in files ("VirtualFunctions", ...). */
const char *layout_match_key_name(size_t i) _pure_; /* NULL past the last */
const char *pf_key_to_string(enum pf_key k) _pure_;

/* Copies every key set in src over dst (a later file wins). -ENOMEM. */
int vf_settings_merge(struct vf_settings *dst, const struct vf_settings *src);
void pf_settings_merge(struct pf_settings *dst, const struct pf_settings *src);
void vf_settings_done(struct vf_settings *s);

/* [Match]: each is NULL (not set) or a NULL-terminated list of globs. */
struct layout_match {
	char **pci_address;
	char **name;
	char **vendor;
	char **device;
	char **driver;
	char **host;
	unsigned line; /* of the [Match] header, 0 when the file has none */
};

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
	struct layout_match match;
	struct pf_settings pf;
	struct vf_section *vf_sections;
	size_t n_vf_sections;
};

/* Parses one layout file from memory; path is used for messages. Errors and
 * warnings go to diags (file:line each). Returns 0 even when the file has
 * errors (then ret->has_error is set); -ENOMEM only on allocation failure. */
int layout_parse_string(const char *path, const char *text, struct diag_list *diags,
			struct layout_file **ret);
int layout_parse_file(const char *path, struct diag_list *diags, struct layout_file **ret);
struct layout_file *layout_file_free(struct layout_file *f);
