/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Whether the host's network stack (NetworkManager, systemd-networkd) is
 * to leave a VF's network interface alone: HostNetworkStack= where a
 * layout sets it, else "unmanaged" for a VF meant for a pod or a VM (a
 * ResourceName=, or a Driver= that makes no network interface), else no
 * opinion. What the udev rule turns into NM_UNMANAGED=1. Pure. */

#include "desired.h"

/* For one VF's merged settings: true with *ret set when they decide, false
 * when they say nothing either way. */
bool vf_settings_host_network_stack(const struct vf_settings *v, enum host_network_stack *ret);

/* For VF index of the PF that d is the desired state of, from the
 * [VirtualFunction] sections of the files that select it, merged as
 * `sriovctl cat` shows them (also when the PF is held: a file with an
 * error elsewhere still keeps its pod VFs from the host's network stack).
 * 1 with *ret set when they decide, 0 when they do not (no section names
 * the VF, or none sets a key that decides), -ENOMEM. */
int pf_desired_host_network_stack(const struct layout_set *set, const struct pf_desired *d,
				  unsigned index, enum host_network_stack *ret);
