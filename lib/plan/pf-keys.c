/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "pf-keys.h"

static const char *const labels[_PF_KEY_MAX] = {
	[PF_KEY_VIRTUAL_FUNCTIONS] = "vfs",
	[PF_KEY_MTU] = "mtu",
	[PF_KEY_LINK_UP] = "link up",
	[PF_KEY_ESWITCH_MODE] = "eswitch",
	[PF_KEY_HW_TC_OFFLOAD] = "hw-tc-offload",
	[PF_KEY_LINK_TYPE] = "link type",
	[PF_KEY_FIRMWARE_VFS] = "firmware VF limit",
	[PF_KEY_EXTERNALLY_MANAGED] = "externally managed",
};

const char *pf_key_to_label(enum pf_key k)
{
	return string_table_get(labels, _PF_KEY_MAX, k);
}

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

const char *pf_settings_format(const struct pf_settings *s, enum pf_key k,
			       char buf[static PF_KEY_STR_MAX])
{
	switch (k) {
	case PF_KEY_VIRTUAL_FUNCTIONS:
		return s->num_vfs_max ? copy("max", buf) : format_uint(s->num_vfs, buf);
	case PF_KEY_MTU:
		return format_uint(s->mtu, buf);
	case PF_KEY_LINK_UP:
		return copy(yes_no(s->link_up), buf);
	case PF_KEY_ESWITCH_MODE:
		return copy(eswitch_mode_to_string(s->eswitch_mode), buf);
	case PF_KEY_HW_TC_OFFLOAD:
		return copy(yes_no(s->hw_tc_offload), buf);
	case PF_KEY_LINK_TYPE:
		return copy(link_type_to_string(s->link_type), buf);
	case PF_KEY_FIRMWARE_VFS:
		return copy(firmware_vfs_to_string(s->firmware_vfs), buf);
	case PF_KEY_EXTERNALLY_MANAGED:
		return copy(yes_no(s->externally_managed), buf);
	case _PF_KEY_MAX:
	case _PF_KEY_INVALID:
		break;
	}
	return copy(NULL, buf);
}

const char *pf_state_format_key(const struct pf_state *pf, enum pf_key k,
				char buf[static PF_KEY_STR_MAX])
{
	switch (k) {
	case PF_KEY_VIRTUAL_FUNCTIONS:
		return format_uint(pf->num_vfs, buf);
	case PF_KEY_MTU:
		return pf->name ? format_uint(pf->mtu, buf) : NULL;
	case PF_KEY_LINK_UP:
		return pf->name ? copy(yes_no(pf->up), buf) : NULL;
	case PF_KEY_ESWITCH_MODE:
		return pf->has_eswitch ? copy(eswitch_mode_to_string(pf->eswitch_mode), buf) : NULL;
	case PF_KEY_HW_TC_OFFLOAD:
		return pf->name ? copy(yes_no(pf->hw_tc_offload), buf) : NULL;
	case PF_KEY_LINK_TYPE:
		return copy(link_type_to_string(pf->link_type), buf);
	case PF_KEY_FIRMWARE_VFS:
		return pf->firmware_total_vfs >= 0 ?
			       format_uint((uint32_t)pf->firmware_total_vfs, buf) :
			       NULL;
	case PF_KEY_EXTERNALLY_MANAGED:
	case _PF_KEY_MAX:
	case _PF_KEY_INVALID:
		break;
	}
	return NULL;
}
