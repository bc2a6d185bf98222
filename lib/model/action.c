/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "action.h"

static const struct {
	const char *name;
	bool on_vf;
	const char *blocking;
} types[_ACTION_TYPE_MAX] = {
	[ACTION_LOAD_MODULE] = { "load_module" },
	[ACTION_SET_FIRMWARE_VFS] = { "set_firmware_vfs" },
	[ACTION_SET_LINK_TYPE] = { "set_link_type" },
	[ACTION_SET_PF_MTU] = { "set_pf_mtu" },
	[ACTION_SET_PF_UP] = { "set_pf_up" },
	[ACTION_SET_AUTOPROBE] = { "set_drivers_autoprobe" },
	[ACTION_SET_NUM_VFS] = { "set_num_vfs", .blocking = "write to sriov_numvfs" },
	[ACTION_SET_ESWITCH_MODE] = { "set_eswitch_mode",
				      .blocking = "devlink eswitch mode change" },
	[ACTION_SET_HW_TC_OFFLOAD] = { "set_hw_tc_offload" },
	[ACTION_UNBIND_VF] = { "unbind_vf", .on_vf = true, .blocking = "unbind of the VF driver" },
	[ACTION_SET_VF] = { "set_vf", .on_vf = true },
	[ACTION_BIND_VF] = { "bind_vf", .on_vf = true, .blocking = "bind of the VF driver" },
	[ACTION_SET_VF_MTU] = { "set_vf_mtu", .on_vf = true },
	[ACTION_SET_RDMA_NETNS_MODE] = { "set_rdma_netns_mode" },
	[ACTION_SET_REPRESENTOR_UP] = { "set_representor_up", .on_vf = true },
	[ACTION_SET_KERNEL_ARGUMENTS] = { "set_kernel_arguments" },
	[ACTION_FIRMWARE_RESET] = { "firmware_reset" },
};

const char *action_type_to_string(enum action_type t)
{
	return t >= 0 && t < _ACTION_TYPE_MAX ? types[t].name : NULL;
}

enum action_type action_type_from_string(const char *s)
{
	for (enum action_type t = 0; s && t < _ACTION_TYPE_MAX; t++)
		if (streq(types[t].name, s))
			return t;
	return _ACTION_TYPE_INVALID;
}

bool action_type_on_vf(enum action_type t)
{
	return t >= 0 && t < _ACTION_TYPE_MAX && types[t].on_vf;
}

const char *action_type_blocking(enum action_type t)
{
	return t >= 0 && t < _ACTION_TYPE_MAX ? types[t].blocking : NULL;
}

void action_done(struct action *a)
{
	a->str = mfree(a->str);
	vf_attrs_done(&a->attrs);
}
