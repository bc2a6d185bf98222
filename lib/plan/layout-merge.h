/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The [VirtualFunction] settings of one PF as its layouts write them,
 * merged file over file with where each value came from, before anything
 * is derived ("stable" stays "stable"): what `sriovctl cat` shows. Pure. */

#include "desired.h"

/* Per VF index, the sections of the files that select the PF (d's
 * config_files, in set order) merged as desired_build() merges them. The
 * VFs are those VirtualFunctions= allows, or without it those of d and as
 * many more as a section names explicitly (a layout that leaves
 * VirtualFunctions= unset on a PF without VFs), which [VirtualFunction]
 * does not cover. A unique key's literal refused for a section of more
 * than one VF (vf_settings.refused) is kept where no file sets the key, for
 * cat to show. *ret is NULL when there are none.
 * -ENOMEM. */
int layout_merge_vfs(const struct layout_set *set, const struct pf_desired *d,
		     struct vf_settings **ret, size_t *ret_n);
/* Into *ret, the VFs that VirtualFunctions= allows (for "max", d's);
 * false when it is not set. Sections beyond it are errors, not merged. */
bool layout_merge_bound(const struct pf_desired *d, size_t *ret);
/* Whether a and b set the same keys to the same values from the same places. */
bool vf_settings_same(const struct vf_settings *a, const struct vf_settings *b) _pure_;
void vf_settings_free_array(struct vf_settings *v, size_t n);
