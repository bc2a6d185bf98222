/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* One change to a host: what the planner plans, the apply engine runs and
 * each backend of host.h carries out (the simulated host by the kernel's
 * rules, the Linux host through sysfs, netlink and kmod). Each type is
 * described once, in action.c. */

#include "vf-attrs.h"

enum action_type {
	ACTION_LOAD_MODULE,	 /* str = module */
	ACTION_SET_FIRMWARE_VFS, /* value = limit; reboot */
	ACTION_SET_LINK_TYPE,	 /* value = enum link_type; reboot */
	ACTION_SET_PF_MTU,	 /* value */
	ACTION_SET_PF_UP,	 /* value = 1 */
	ACTION_SET_AUTOPROBE,	 /* value = bool: sriov_drivers_autoprobe */
	ACTION_SET_NUM_VFS, /* value; a change between non-zero counts is two actions: 0, then N */
	ACTION_SET_ESWITCH_MODE,  /* value = enum eswitch_mode */
	ACTION_SET_HW_TC_OFFLOAD, /* value = bool */
	ACTION_UNBIND_VF,	  /* vf */
	ACTION_SET_VF,		  /* vf, attrs: all netlink attributes of one VF in one request */
	ACTION_BIND_VF,		  /* vf, str = driver, NULL = the kernel's VF driver */
	ACTION_SET_VF_MTU,	  /* vf, value */
	/* value = enum rdma_netns_mode: the host's, not the PF's (pf names the
	 * PF whose plan it is part of) */
	ACTION_SET_RDMA_NETNS_MODE,
	ACTION_SET_REPRESENTOR_UP, /* vf: its switchdev representor up */
	/* value = 1: add to the boot loader's configuration, 0: remove what we
	 * added; str = the arguments, space-separated; a reboot when added */
	ACTION_SET_KERNEL_ARGUMENTS,
	/* A firmware reset of the PF's card (mlxfwreset level 3, "Driver
	 * restart and PCI reset"): the firmware's next-boot settings of every
	 * PF of the card in force without a reboot, and the VFs of every PF of
	 * the card gone. -EOPNOTSUPP, with nothing touched, when the card
	 * does not offer that level. Whether the settings took is for the
	 * caller to read back: a tool may say it reset and leave them. */
	ACTION_FIRMWARE_RESET,
	_ACTION_TYPE_MAX,
	_ACTION_TYPE_INVALID = -EINVAL,
};

struct action {
	enum action_type type;
	/* destroys or re-creates VFs, needs a reboot, or takes a network
	 * interface from a pod (why says so) */
	bool disruptive;
	/* why a step live by its kind is disruptive here, as the plan says it
	 * after the step: "its network interface is not in this host's
	 * namespace: a pod may hold it"; static, NULL otherwise */
	const char *why;
	bool needs_reboot; /* takes effect only after a reboot */
	uint32_t vf;
	uint32_t value;
	char *str;
	/* ACTION_SET_VF: the netlink keys to set (VF_NETLINK_KEYS), whole
	 * groups (vf_key_group), and their values */
	uint32_t keys;
	struct vf_attrs attrs;
};

/* "set_num_vfs", "bind_vf", ...: in plan documents and in the simulated
 * host's faults. */
const char *action_type_to_string(enum action_type t) _pure_;
enum action_type action_type_from_string(const char *s) _pure_;
/* Whether an action of type t names a VF (a->vf). */
bool action_type_on_vf(enum action_type t) _pure_;
/* The kernel call an action of type t waits in, which may hang in a driver
 * ("write to sriov_numvfs"), or NULL when it cannot hang: those run under
 * SysfsWriteTimeoutSec=. */
const char *action_type_blocking(enum action_type t) _pure_;

/* Frees a->str and the strings of a->attrs; a keeps its type. */
void action_done(struct action *a);
