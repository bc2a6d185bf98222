/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <stddef.h>

#include "drivers.h"
#include "layout-settings.h"

#define WHY_BOOLEAN "must be a boolean (yes/no/true/false/on/off/1/0)"

static int fail(const char **ret_why, const char *why)
{
	*ret_why = why;
	return -EINVAL;
}

static int parse_bool(const char *v, bool *ret, const char **ret_why)
{
	int r = parse_boolean(v);

	if (r < 0)
		return fail(ret_why, WHY_BOOLEAN);
	*ret = r;
	return 0;
}

static int parse_range(const char *v, uint32_t min, uint32_t max, uint32_t *ret,
		       const char **ret_why, const char *why)
{
	uint32_t u;

	if (safe_atou32(v, 10, &u) < 0 || u < min || u > max)
		return fail(ret_why, why);
	*ret = u;
	return 0;
}

/* ---- [PhysicalFunction] ---- */

static const char *const firmware_vfs_names[_FIRMWARE_VFS_MAX] = {
	[FIRMWARE_VFS_AUTO] = "auto",
	[FIRMWARE_VFS_NO] = "no",
};

DEFINE_STRING_TABLE_TO(firmware_vfs, enum firmware_vfs, firmware_vfs_names)

static int pf_parse_num_vfs(struct pf_settings *s, const char *v, const char **ret_why)
{
	static const char why[] = "must be 0..65535 or max";
	uint32_t n;

	if (streq(v, "max")) {
		s->num_vfs_max = true;
		s->num_vfs = 0;
		return 0;
	}
	if (parse_range(v, 0, 65535, &n, ret_why, why) < 0)
		return -EINVAL;
	s->num_vfs_max = false;
	s->num_vfs = n;
	return 0;
}

static int pf_parse_enum(int *field, const char *const *names, size_t n, const char *v,
			 const char **ret_why, const char *why)
{
	int i = string_table_lookup(names, n, v);

	if (i < 0)
		return fail(ret_why, why);
	*field = i;
	return 0;
}

int pf_settings_parse(struct pf_settings *s, enum pf_key k, const char *v, const char **ret_why)
{
	int i = 0, r = -EINVAL;

	switch (k) {
	case PF_KEY_VIRTUAL_FUNCTIONS:
		return pf_parse_num_vfs(s, v, ret_why);
	case PF_KEY_MTU:
		return parse_range(v, 68, 65535, &s->mtu, ret_why, "must be 68..65535");
	case PF_KEY_LINK_UP:
		return parse_bool(v, &s->link_up, ret_why);
	case PF_KEY_ESWITCH_MODE:
		i = eswitch_mode_from_string(v);
		if (i < 0)
			return fail(ret_why, "must be legacy or switchdev");
		s->eswitch_mode = (enum eswitch_mode)i;
		return 0;
	case PF_KEY_HW_TC_OFFLOAD:
		return parse_bool(v, &s->hw_tc_offload, ret_why);
	case PF_KEY_LINK_TYPE:
		i = link_type_from_string(v);
		if (i < 0)
			return fail(ret_why, "must be ethernet or infiniband");
		s->link_type = (enum link_type)i;
		return 0;
	case PF_KEY_FIRMWARE_VFS:
		r = pf_parse_enum(&i, firmware_vfs_names, _FIRMWARE_VFS_MAX, v, ret_why,
				  "must be auto or no");
		if (r >= 0)
			s->firmware_vfs = (enum firmware_vfs)i;
		return r;
	case PF_KEY_EXTERNALLY_MANAGED:
		return parse_bool(v, &s->externally_managed, ret_why);
	case _PF_KEY_MAX:
	case _PF_KEY_INVALID:
		break;
	}
	return -EINVAL;
}

void pf_settings_unset(struct pf_settings *s, enum pf_key k)
{
	s->set &= ~(1u << k);
	s->src[k] = (struct src){};
}

/* Copies the value of one key; the caller marks it set. */
static void pf_settings_copy_key(struct pf_settings *dst, const struct pf_settings *src,
				 enum pf_key k)
{
	switch (k) {
	case PF_KEY_VIRTUAL_FUNCTIONS:
		dst->num_vfs_max = src->num_vfs_max;
		dst->num_vfs = src->num_vfs;
		break;
	case PF_KEY_MTU:
		dst->mtu = src->mtu;
		break;
	case PF_KEY_LINK_UP:
		dst->link_up = src->link_up;
		break;
	case PF_KEY_ESWITCH_MODE:
		dst->eswitch_mode = src->eswitch_mode;
		break;
	case PF_KEY_HW_TC_OFFLOAD:
		dst->hw_tc_offload = src->hw_tc_offload;
		break;
	case PF_KEY_LINK_TYPE:
		dst->link_type = src->link_type;
		break;
	case PF_KEY_FIRMWARE_VFS:
		dst->firmware_vfs = src->firmware_vfs;
		break;
	case PF_KEY_EXTERNALLY_MANAGED:
		dst->externally_managed = src->externally_managed;
		break;
	case _PF_KEY_MAX:
	case _PF_KEY_INVALID:
		break;
	}
}

void pf_settings_merge(struct pf_settings *dst, const struct pf_settings *src)
{
	for (enum pf_key k = 0; k < _PF_KEY_MAX; k++) {
		if (!pf_settings_has(src, k))
			continue;
		pf_settings_copy_key(dst, src, k);
		dst->set |= 1u << k;
		dst->src[k] = src->src[k];
	}
}

/* ---- [VirtualFunction] ---- */

/* MACAddress=, IBNodeGUID=, IBPortGUID=: stable, or a literal for one VF. */
static int vf_parse_unique(struct vf_settings *s, enum vf_key k, const char *v, bool single_vf,
			   const char **ret_why)
{
	struct vf_attrs a = {};
	int r;

	if (streq(v, "stable")) {
		s->stable |= 1u << k;
		vf_attrs_clear(&s->attrs, k);
		return 0;
	}
	r = vf_attrs_parse(&a, k, v, ret_why);
	if (r < 0)
		return r;
	if (!single_vf)
		return fail(ret_why, "a literal value needs a single-VF section such as "
				     "[VirtualFunction 3]; use stable here");
	s->stable &= ~(1u << k);
	return vf_attrs_copy(&s->attrs, &a, k);
}

int vf_settings_parse(struct vf_settings *s, enum vf_key k, const char *v, bool single_vf,
		      const char **ret_why)
{
	if (vf_key_is_unique(k))
		return vf_parse_unique(s, k, v, single_vf, ret_why);
	/* Driver=vfio_pci, as modprobe spells it, binds the driver the kernel
	 * calls vfio-pci: driver_override takes the latter only */
	if (k == VF_KEY_DRIVER && vf_driver_kernel_name(v))
		v = vf_driver_kernel_name(v);
	return vf_attrs_parse(&s->attrs, k, v, ret_why);
}

void vf_settings_unset(struct vf_settings *s, enum vf_key k)
{
	vf_attrs_clear(&s->attrs, k);
	s->set &= ~(1u << k);
	s->stable &= ~(1u << k);
	s->rejected &= ~(1u << k);
	s->src[k] = (struct src){};
}

int vf_settings_merge(struct vf_settings *dst, const struct vf_settings *src)
{
	dst->rejected |= src->rejected;
	for (enum vf_key k = 0; k < _VF_KEY_MAX; k++) {
		int r;

		if (!vf_settings_has(src, k))
			continue;
		r = vf_attrs_copy(&dst->attrs, &src->attrs, k);
		if (r < 0)
			return r;
		dst->stable = (dst->stable & ~(1u << k)) | (src->stable & (1u << k));
		dst->set |= 1u << k;
		dst->rejected &= ~(1u << k);
		dst->src[k] = src->src[k];
	}
	return 0;
}

void vf_settings_done(struct vf_settings *s)
{
	if (!s)
		return;
	vf_attrs_done(&s->attrs);
	*s = (struct vf_settings){};
}

/* ---- key names ---- */

static const char *const pf_key_names[_PF_KEY_MAX] = {
	[PF_KEY_VIRTUAL_FUNCTIONS] = "VirtualFunctions",
	[PF_KEY_MTU] = "MTUBytes",
	[PF_KEY_LINK_UP] = "LinkUp",
	[PF_KEY_ESWITCH_MODE] = "ESwitchMode",
	[PF_KEY_HW_TC_OFFLOAD] = "HardwareTCOffload",
	[PF_KEY_LINK_TYPE] = "LinkType",
	[PF_KEY_FIRMWARE_VFS] = "FirmwareVirtualFunctions",
	[PF_KEY_EXTERNALLY_MANAGED] = "ExternallyManaged",
};

DEFINE_STRING_TABLE(pf_key, enum pf_key, pf_key_names)
