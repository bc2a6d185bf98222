/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The keys a PF's layout sets, beside what the host has: the
 * PhysicalFunction object's Settings and VirtualFunctionSettings. The rows
 * are the status document's (setting-row.h), kept when the PF is checked. */

#include "desired.h"

struct key_setting {
	uint32_t vf;	 /* the VF's index; 0 for the PF's own keys */
	const char *key; /* the key table's: "MTUBytes", "VLANId" */
	/* "" where status says null: the host has nothing, no source */
	char *now, *wanted, *source;
};

struct key_settings {
	struct key_setting *pf, *vfs;
	size_t n_pf, n_vfs;
};

/* The keys d sets for pf and its VFs, in key-table order (VFs by index);
 * empty when d is NULL or held. 0 or -ENOMEM (ret then empty). */
int key_settings_build(const struct pf_state *pf, const struct pf_desired *d,
		       struct key_settings *ret);
bool key_settings_equal(const struct key_settings *a, const struct key_settings *b);
void key_settings_done(struct key_settings *s);
