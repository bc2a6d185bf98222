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

enum vf_key {
	VF_KEY_DRIVER,
	VF_KEY_MAC,
	VF_KEY_VLAN,
	VF_KEY_QOS,
	VF_KEY_VLAN_PROTO,
	VF_KEY_SPOOFCHK,
	VF_KEY_TRUST,
	VF_KEY_LINK_STATE,
	VF_KEY_QUERY_RSS,
	VF_KEY_MIN_TX_RATE,
	VF_KEY_MAX_TX_RATE,
	VF_KEY_MTU,
	VF_KEY_RDMA,
	VF_KEY_RESOURCE_NAME,
	_VF_KEY_MAX,
	_VF_KEY_INVALID = -EINVAL,
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
	char *driver; /* NULL with VF_KEY_DRIVER set = "default" (the kernel's VF driver) */
	enum mac_mode mac_mode;
	struct mac_addr mac; /* MAC_MODE_LITERAL */
	uint16_t vlan;
	uint8_t qos;
	enum vlan_proto vlan_proto;
	bool spoofchk;
	bool trust;
	enum link_state link_state;
	bool query_rss;
	uint32_t min_tx_rate;
	uint32_t max_tx_rate;
	uint32_t mtu;
	bool rdma;
	char *resource_name;
};

static inline bool pf_settings_has(const struct pf_settings *s, enum pf_key k)
{
	return s->set & (1u << k);
}
static inline bool vf_settings_has(const struct vf_settings *s, enum vf_key k)
{
	return s->set & (1u << k);
}

/* Key names as written in files ("VirtualFunctions", "MACAddress", ...). */
const char *layout_match_key_name(size_t i) _pure_; /* NULL past the last */
const char *pf_key_to_string(enum pf_key k) _pure_;
const char *vf_key_to_string(enum vf_key k) _pure_;
/* The netlink VF attributes as "ip link set DEV vf N ..." spells them ("mac",
 * "vlan", "state" ...); NULL for keys that are not netlink attributes. */
const char *vf_key_to_ip_name(enum vf_key k) _pure_;

/* The netlink VF attributes (VF_KEY_MAC .. VF_KEY_MAX_TX_RATE), shared by the
 * planner, the netlink read-back and the simulated host: a vf_state's as a
 * vf_settings (no key set, the MAC literal), and back into the same fields of
 * a vf_state (its other fields untouched). */
void vf_settings_from_state(const struct vf_state *s, struct vf_settings *ret);
void vf_state_set_attrs(struct vf_state *s, const struct vf_settings *v);
/* Netlink key k compared, and copied (setting k in dst->set). */
bool vf_settings_key_equal(const struct vf_settings *a, const struct vf_settings *b,
			   enum vf_key k) _pure_;
void vf_settings_key_copy(struct vf_settings *dst, const struct vf_settings *src, enum vf_key k);

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

/* The three directories, highest priority first. */
extern const char *const layout_dirs_default[];

/* All layouts, in lexical order of their file names. */
struct layout_set {
	struct layout_file **files;
	size_t n_files;
	struct diag_list diags;
};

/* Lists "*.<suffix>" files from dirs (highest priority first, NULL-terminated):
 * one per file name, the first directory's copy masking the others; a symlink
 * to /dev/null masks and is itself left out. Missing directories are fine.
 * Returns full paths sorted by file name. */
int conf_files_list(const char *const *dirs, const char *suffix, char ***ret_paths);

/* Loads every layout from dirs (layout_dirs_default when NULL). */
int layout_set_load(const char *const *dirs, struct layout_set **ret);
/* Loads the given files (sriovctl check FILE...), in the order given. */
int layout_set_load_files(char *const *paths, struct layout_set **ret);
struct layout_set *layout_set_free(struct layout_set *s);
static inline void layout_set_freep(struct layout_set **s)
{
	layout_set_free(*s);
}
#define _cleanup_layout_set_ _cleanup_(layout_set_freep)
