/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* What the sections of a layout set: [PhysicalFunction] keys and
 * [VirtualFunction] keys with where each came from, parsed one value at a
 * time, and merged file over file. A value parser writes the value into
 * the settings and returns 0, -ENOMEM, or -EINVAL with *ret_why set to a
 * static text saying what is allowed, for the message "Key=value: <why>".
 * Marking the key set (and where) is the caller's job. The
 * [PhysicalFunction] keys' functions are in pf-keys.h, driven by the rows of
 * pf-keys.c; the [VirtualFunction] keys' by those of vf-attrs.c. */

#include "model.h"
#include "other-findings.h"

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
	PF_KEY_SHARED_WITH,
	_PF_KEY_MAX,
	_PF_KEY_INVALID = -EINVAL,
};

enum firmware_vfs {
	FIRMWARE_VFS_AUTO,
	FIRMWARE_VFS_NO,
	_FIRMWARE_VFS_MAX,
	_FIRMWARE_VFS_INVALID = -EINVAL,
};

/* Keys given an empty value where nothing above in the same section set
 * them: such a line changes nothing (an earlier file's or section's value
 * stays), which layout-empty.c says. Not merged. */
struct emptied {
	uint32_t keys; /* bit (1u << key) */
	unsigned line[32];
};

_Static_assert(_PF_KEY_MAX <= 32, "struct emptied has a line per key");

struct pf_settings {
	uint32_t set; /* bit (1u << enum pf_key) when the key is set */
	struct src src[_PF_KEY_MAX];
	struct emptied emptied;
	bool num_vfs_max; /* VirtualFunctions=max */
	uint32_t num_vfs;
	uint32_t mtu;
	bool link_up;
	enum eswitch_mode eswitch_mode;
	bool hw_tc_offload;
	enum link_type link_type;
	enum firmware_vfs firmware_vfs;
	bool externally_managed;
	enum other_manager shared_with; /* SharedWith=: the other manager acknowledged */
};

struct vf_settings {
	uint32_t set; /* bit (1u << enum vf_key) when the key is set */
	struct src src[_VF_KEY_MAX];
	struct emptied emptied;
	/* bit (1u << enum vf_key) when a unique key (vf_key_is_unique) is
	 * "stable" and not derived yet; its value in attrs is then zero */
	uint32_t stable;
	/* bit (1u << enum vf_key) when a value of the key was rejected (an
	 * error said so) and no later one set it: rules that need the key
	 * say nothing more */
	uint32_t rejected;
	/* bit (1u << enum vf_key) when a unique key's literal, a good value,
	 * was rejected for its section, one of more than one VF (an error):
	 * its value in attrs and its line in src are kept for sriovctl cat
	 * to show, as it shows the other rejected lines; the key is not set */
	uint32_t refused;
	struct vf_attrs attrs;
	/* Driver= as the file spells it where attrs.driver, the kernel's
	 * name, differs (Driver=mlx5-core binds mlx5_core): what messages
	 * quote; "" otherwise */
	char driver_written[64];
};

_Static_assert(_VF_KEY_MAX <= 32, "struct emptied has a line per key");

static inline bool pf_settings_has(const struct pf_settings *s, enum pf_key k)
{
	return s->set & (1u << k);
}
static inline bool vf_settings_has(const struct vf_settings *s, enum vf_key k)
{
	return s->set & (1u << k);
}
static inline bool vf_settings_is_stable(const struct vf_settings *s, enum vf_key k)
{
	return vf_settings_has(s, k) && (s->stable & (1u << k));
}
/* ExternallyManaged=yes is set: another tool creates the VFs. */
static inline bool pf_settings_externally_managed(const struct pf_settings *s)
{
	return pf_settings_has(s, PF_KEY_EXTERNALLY_MANAGED) && s->externally_managed;
}
/* Driver= as the file wrote it, for messages; NULL when not set. */
static inline const char *vf_settings_driver_written(const struct vf_settings *s)
{
	return s->driver_written[0] ? s->driver_written : s->attrs.driver;
}
/* RDMA=yes is set for these VFs. */
static inline bool vf_settings_wants_rdma(const struct vf_settings *s)
{
	return vf_settings_has(s, VF_KEY_RDMA) && s->attrs.rdma;
}
/* MTUBytes= or RDMA=yes: the VF needs a driver with a network interface. */
static inline bool vf_settings_needs_netdev(const struct vf_settings *s)
{
	return vf_settings_has(s, VF_KEY_MTU) || vf_settings_wants_rdma(s);
}

/* Copies every key set in src over dst (a later file wins). -ENOMEM. */
int vf_settings_merge(struct vf_settings *dst, const struct vf_settings *src);
void vf_settings_done(struct vf_settings *s);

/* single_vf: the section is [VirtualFunction N] (or N-N), the only place a
 * literal MACAddress=, IBNodeGUID= or IBPortGUID= may stand. */
int vf_settings_parse(struct vf_settings *s, enum vf_key k, const char *value, bool single_vf,
		      const char **ret_why);
/* An empty value: the key is unset again (systemd semantics). */
void vf_settings_unset(struct vf_settings *s, enum vf_key k);
