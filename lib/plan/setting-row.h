/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* One key a layout can set, as status shows it beside the host: the key's
 * layout name, what the host has now, what the layouts want and where they
 * say so. The status document and the daemon's PhysicalFunction properties
 * both take their rows from here, one per row of the key tables
 * (pf-keys.c, vf-attrs.c). Pure. */

#include "pf-keys.h"

struct setting_row {
	const char *key;       /* as layouts write it: "MTUBytes", "VLANId" */
	const char *now;       /* NULL: the host has nothing to show */
	const char *wanted;    /* NULL: the layouts leave the key alone */
	const struct src *src; /* of wanted; its file is NULL when it has none */
	char now_buf[VF_ATTR_STR_MAX], wanted_buf[VF_ATTR_STR_MAX];
};

/* Key k of pf; s: the merged [PhysicalFunction] settings of its layouts,
 * NULL when no layout selects it. */
void pf_setting_row(const struct pf_state *pf, const struct pf_settings *s, enum pf_key k,
		    struct setting_row *ret);
/* Key k of VF vf of pf (vf NULL: the host has no such VF); v: what the
 * layouts say of it, NULL when nothing. A "stable" MAC or GUID is wanted as
 * "stable". Driver=default is wanted as the kernel's VF driver it binds
 * ("default" where that is not known). Driver= unset on a VF on no driver whose layout needs a network
 * interface (MTUBytes=, RDMA=yes) is wanted as the kernel's VF driver,
 * which the plan binds (none where it is not known), from that key's line.
 * ResourceName=, no host value, has now equal to wanted on a VF the host
 * has: it is in the pool its layout names. */
void vf_setting_row(const struct pf_state *pf, const struct vf_state *vf,
		    const struct vf_settings *v, enum vf_key k, struct setting_row *ret);
/* The keys (bits 1u << enum vf_key) whose value on VF vf of the host
 * differs from what v wants: the keys v sets to a value (not a "stable"
 * one still to derive) that the host has. default_driver: the driver
 * Driver= without a module means (the kernel's VF driver; NULL: unknown,
 * then the driver is not compared). RDMA=yes differs when the VF has no
 * RDMA device; an MTU is not compared on a VF without a netdev. */
uint32_t vf_settings_differ(const struct vf_state *vf, const struct vf_settings *v,
			    const char *default_driver) _pure_;
/* Whether VF vf has an MTU to compare: a netdev (a name, a driver bound,
 * an MTU); an unbound or vfio-pci VF has none. */
bool vf_mtu_comparable(const struct vf_state *vf) _pure_;
/* *ret = "file:line" of row's wanted value, NULL when it has none. 0 or
 * -ENOMEM. */
int setting_row_source(const struct setting_row *row, char **ret);
