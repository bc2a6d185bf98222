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
/* Key k of VF vf (NULL: the host has no such VF); v: what the layouts say
 * of it, NULL when nothing. A "stable" MAC or GUID is wanted as "stable". */
void vf_setting_row(const struct vf_state *vf, const struct vf_settings *v, enum vf_key k,
		    struct setting_row *ret);
/* *ret = "file:line" of row's wanted value, NULL when it has none. 0 or
 * -ENOMEM. */
int setting_row_source(const struct setting_row *row, char **ret);
