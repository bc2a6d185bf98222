/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Shared by the files of sno_compare(): what the layouts leave on a PF
 * (sno-compare-after.c), which sno-compare.c compares. */

#include "sno-compare.h"

/* What applying the layouts leaves on one PF. */
struct after {
	const struct pf_desired *d;
	const struct pf_state *pf;
	uint32_t num_vfs;
	struct src num_vfs_src;
	uint32_t mtu;
	struct src mtu_src;
	enum eswitch_mode eswitch_mode; /* legacy for a PF without devlink eswitch */
	struct src eswitch_src;
	enum link_type link_type;
	struct src link_type_src;
	bool fresh; /* the VFs are made anew: none keeps its driver or MTU */
	/* the value is the host's own, which no layout sets: a reboot (or a
	 * reload of the driver) loses it */
	bool num_vfs_kept, mtu_kept, eswitch_kept;
};

void after_pf(const struct pf_desired *d, const struct pf_state *pf, struct after *ret);
/* VF i's driver (NULL: on none) and MTU (0: no network interface);
 * *ret_kept: the VF's own, other than a new VF's, which no layout sets. */
const char *after_vf_driver(const struct after *a, uint32_t i, struct src *ret_src, bool *ret_kept);
uint32_t after_vf_mtu(const struct after *a, uint32_t i, struct src *ret_src, bool *ret_kept);
/* The layouts' settings of VF i; NULL beyond them. */
const struct vf_settings *after_vf_settings(const struct after *a, uint32_t i);
