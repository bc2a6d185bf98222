/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* One row per [PhysicalFunction] key; parsing, copying, formatting and the
 * host's value are all driven by the row, as vf-attrs.c does for the VF
 * keys and mainconf.c for the main configuration. */

#include <stddef.h>
#include <string.h>

#include "pf-keys.h"

static const char *const firmware_vfs_names[_FIRMWARE_VFS_MAX] = {
	[FIRMWARE_VFS_AUTO] = "auto",
	[FIRMWARE_VFS_NO] = "no",
};

DEFINE_STRING_TABLE_TO(firmware_vfs, enum firmware_vfs, firmware_vfs_names)

static enum firmware_vfs firmware_vfs_from_string(const char *s)
{
	return (enum firmware_vfs)string_table_lookup(firmware_vfs_names, _FIRMWARE_VFS_MAX, s);
}

enum pf_kind {
	PF_KIND_COUNT, /* 0..max or "max" (VirtualFunctions=) */
	PF_KIND_UINT,  /* min..max */
	PF_KIND_BOOL,  /* a boolean */
	PF_KIND_ENUM,  /* one of the words of to_word()/from_word() */
};

/* The enum fields are stored as int: their types are int-sized. */
_Static_assert(sizeof(enum eswitch_mode) == sizeof(int), "enum eswitch_mode is not an int");
_Static_assert(sizeof(enum link_type) == sizeof(int), "enum link_type is not an int");
_Static_assert(sizeof(enum firmware_vfs) == sizeof(int), "enum firmware_vfs is not an int");
_Static_assert(sizeof(enum other_manager) == sizeof(int), "enum other_manager is not an int");

#define ENUM_WORDS(name, type)                     \
	static int name##_from_word(const char *s) \
	{                                          \
		return (int)name##_from_string(s); \
	}                                          \
	static const char *name##_to_word(int v)   \
	{                                          \
		return name##_to_string((type)v);  \
	}

ENUM_WORDS(eswitch_mode, enum eswitch_mode)
ENUM_WORDS(link_type, enum link_type)
ENUM_WORDS(firmware_vfs, enum firmware_vfs)
ENUM_WORDS(other_manager_key, enum other_manager)

/* What the host has for a key now (NULL: nothing to show), as text. */
typedef const char *(*host_format_t)(const struct pf_state *pf, char *buf);

struct pf_key_info {
	const char *name;  /* in layouts */
	const char *label; /* in status tables */
	enum pf_kind kind;
	size_t offset, size; /* of the field in struct pf_settings */
	uint32_t min, max;   /* PF_KIND_COUNT, PF_KIND_UINT */
	int (*from_word)(const char *s);
	const char *(*to_word)(int v);
	const char *why; /* what a value must be */
	host_format_t host;
	/* what the kernel or another tool calls it, for "did you mean" */
	const char *other_names[PF_KEY_OTHER_NAMES_MAX];
};

static const char *format_uint(uint32_t u, char *buf)
{
	snprintf(buf, PF_KEY_STR_MAX, "%u", u);
	return buf;
}

static const char *copy(const char *s, char *buf)
{
	snprintf(buf, PF_KEY_STR_MAX, "%s", strna(s));
	return buf;
}

static const char *host_num_vfs(const struct pf_state *pf, char *buf)
{
	return format_uint(pf->num_vfs, buf);
}

static const char *host_mtu(const struct pf_state *pf, char *buf)
{
	return pf->name ? format_uint(pf->mtu, buf) : NULL;
}

static const char *host_link_up(const struct pf_state *pf, char *buf)
{
	return pf->name ? copy(yes_no(pf->up), buf) : NULL;
}

static const char *host_eswitch(const struct pf_state *pf, char *buf)
{
	return pf->has_eswitch ? copy(eswitch_mode_to_string(pf->eswitch_mode), buf) : NULL;
}

static const char *host_hw_tc_offload(const struct pf_state *pf, char *buf)
{
	return pf->name ? copy(yes_no(pf->hw_tc_offload), buf) : NULL;
}

static const char *host_link_type(const struct pf_state *pf, char *buf)
{
	return copy(link_type_to_string(pf->link_type), buf);
}

/* the limit the firmware uses after the next reboot */
static const char *host_firmware_vfs(const struct pf_state *pf, char *buf)
{
	return pf->firmware_total_vfs >= 0 ? format_uint((uint32_t)pf->firmware_total_vfs, buf) :
					     NULL;
}

#define FIELD(f) \
	.offset = offsetof(struct pf_settings, f), .size = sizeof(((struct pf_settings *)NULL)->f)
#define WORDS(name) .from_word = name##_from_word, .to_word = name##_to_word

static const struct pf_key_info keys[_PF_KEY_MAX] = {
	[PF_KEY_VIRTUAL_FUNCTIONS] = { "VirtualFunctions", "vfs", PF_KIND_COUNT, FIELD(num_vfs),
				       .max = 65535, .why = "must be 0..65535 or max",
				       .host = host_num_vfs,
				       .other_names = { "sriov_numvfs",
							"numVfs" /* sriov-network-operator */ } },
	[PF_KEY_MTU] = { "MTUBytes", "mtu", PF_KIND_UINT, FIELD(mtu), .min = LAYOUT_MTU_MIN,
			 .max = 65535, .why = "must be 68..65535", .host = host_mtu },
	[PF_KEY_LINK_UP] = { "LinkUp", "link up", PF_KIND_BOOL, FIELD(link_up), .why = WHY_BOOLEAN,
			     .host = host_link_up },
	[PF_KEY_ESWITCH_MODE] = { "ESwitchMode", "eswitch", PF_KIND_ENUM, FIELD(eswitch_mode),
				  WORDS(eswitch_mode), .why = "must be legacy or switchdev",
				  .host = host_eswitch },
	[PF_KEY_HW_TC_OFFLOAD] = { "HardwareTCOffload", "hw-tc-offload", PF_KIND_BOOL,
				   FIELD(hw_tc_offload), .why = WHY_BOOLEAN,
				   .host = host_hw_tc_offload },
	[PF_KEY_LINK_TYPE] = { "LinkType", "link type", PF_KIND_ENUM, FIELD(link_type),
			       WORDS(link_type), .why = "must be ethernet or infiniband",
			       .host = host_link_type },
	[PF_KEY_FIRMWARE_VFS] = { "FirmwareVirtualFunctions", "firmware VF limit", PF_KIND_ENUM,
				  FIELD(firmware_vfs), WORDS(firmware_vfs),
				  .why = "must be auto or no", .host = host_firmware_vfs,
				  .other_names = { "NUM_OF_VFS" /* mstconfig */ } },
	/* the layout's alone: the host has no such setting */
	[PF_KEY_EXTERNALLY_MANAGED] = { "ExternallyManaged", "externally managed", PF_KIND_BOOL,
					FIELD(externally_managed), .why = WHY_BOOLEAN },
	[PF_KEY_SHARED_WITH] = { "SharedWith", "shared with", PF_KIND_ENUM, FIELD(shared_with),
				 WORDS(other_manager_key),
				 .why = "must be NetworkManager, systemd-udevd or "
					"sriov-network-operator" },
};

static const struct pf_key_info *info(enum pf_key k)
{
	return k >= 0 && k < _PF_KEY_MAX ? &keys[k] : NULL;
}

const char *pf_key_to_string(enum pf_key k)
{
	const struct pf_key_info *i = info(k);

	return i ? i->name : NULL;
}

enum pf_key pf_key_from_string(const char *s)
{
	for (enum pf_key k = 0; s && k < _PF_KEY_MAX; k++)
		if (streq(keys[k].name, s))
			return k;
	return _PF_KEY_INVALID;
}

const char *pf_key_to_label(enum pf_key k)
{
	const struct pf_key_info *i = info(k);

	return i ? i->label : NULL;
}

const char *pf_key_other_name(enum pf_key k, size_t n)
{
	const struct pf_key_info *i = info(k);

	return i && n < PF_KEY_OTHER_NAMES_MAX ? i->other_names[n] : NULL;
}

static void *field(struct pf_settings *s, const struct pf_key_info *i)
{
	return (char *)s + i->offset;
}

static const void *field_const(const struct pf_settings *s, const struct pf_key_info *i)
{
	return (const char *)s + i->offset;
}

/* The value of v for row i, or -EINVAL. */
static int parse_value(const struct pf_key_info *i, const char *v, uint32_t *ret)
{
	uint32_t u;
	int r = -EINVAL;

	switch (i->kind) {
	case PF_KIND_COUNT:
	case PF_KIND_UINT:
		if (safe_atou32(v, 10, &u) < 0 || u < i->min || u > i->max)
			return -EINVAL;
		*ret = u;
		return 0;
	case PF_KIND_BOOL:
		r = parse_boolean(v);
		break;
	case PF_KIND_ENUM:
		r = i->from_word(v);
		break;
	}
	if (r < 0)
		return -EINVAL;
	*ret = (uint32_t)r;
	return 0;
}

static void store(struct pf_settings *s, const struct pf_key_info *i, uint32_t u)
{
	bool b = u;
	int e = (int)u;

	switch (i->kind) {
	case PF_KIND_COUNT:
	case PF_KIND_UINT:
		memcpy(field(s, i), &u, sizeof(u));
		break;
	case PF_KIND_BOOL:
		memcpy(field(s, i), &b, sizeof(b));
		break;
	case PF_KIND_ENUM:
		memcpy(field(s, i), &e, sizeof(e));
		break;
	}
}

static uint32_t load(const struct pf_settings *s, const struct pf_key_info *i)
{
	uint32_t u = 0;
	bool b = false;
	int e = 0;

	switch (i->kind) {
	case PF_KIND_COUNT:
	case PF_KIND_UINT:
		memcpy(&u, field_const(s, i), sizeof(u));
		return u;
	case PF_KIND_BOOL:
		memcpy(&b, field_const(s, i), sizeof(b));
		return b;
	case PF_KIND_ENUM:
		memcpy(&e, field_const(s, i), sizeof(e));
		return (uint32_t)e;
	}
	return 0;
}

int pf_settings_parse(struct pf_settings *s, enum pf_key k, const char *v, const char **ret_why)
{
	const struct pf_key_info *i = info(k);
	uint32_t u;

	if (!i)
		return -EINVAL;
	if (i->kind == PF_KIND_COUNT && streq(v, "max")) {
		s->num_vfs_max = true;
		s->num_vfs = 0;
		return 0;
	}
	if (parse_value(i, v, &u) < 0) {
		*ret_why = i->why;
		return -EINVAL;
	}
	if (i->kind == PF_KIND_COUNT)
		s->num_vfs_max = false;
	store(s, i, u);
	return 0;
}

void pf_settings_unset(struct pf_settings *s, enum pf_key k)
{
	s->set &= ~(1u << k);
	s->src[k] = (struct src){};
}

void pf_settings_merge(struct pf_settings *dst, const struct pf_settings *src)
{
	for (enum pf_key k = 0; k < _PF_KEY_MAX; k++) {
		if (!pf_settings_has(src, k))
			continue;
		if (keys[k].kind == PF_KIND_COUNT)
			dst->num_vfs_max = src->num_vfs_max;
		store(dst, &keys[k], load(src, &keys[k]));
		dst->set |= 1u << k;
		dst->src[k] = src->src[k];
	}
}

const char *pf_settings_format(const struct pf_settings *s, enum pf_key k,
			       char buf[static PF_KEY_STR_MAX])
{
	const struct pf_key_info *i = info(k);

	if (!i)
		return copy(NULL, buf);
	switch (i->kind) {
	case PF_KIND_COUNT:
		if (s->num_vfs_max)
			return copy("max", buf);
		return format_uint(load(s, i), buf);
	case PF_KIND_UINT:
		return format_uint(load(s, i), buf);
	case PF_KIND_BOOL:
		return copy(yes_no(load(s, i)), buf);
	case PF_KIND_ENUM:
		return copy(i->to_word((int)load(s, i)), buf);
	}
	return copy(NULL, buf);
}

const char *pf_state_format_key(const struct pf_state *pf, enum pf_key k,
				char buf[static PF_KEY_STR_MAX])
{
	const struct pf_key_info *i = info(k);

	return i && i->host ? i->host(pf, buf) : NULL;
}
