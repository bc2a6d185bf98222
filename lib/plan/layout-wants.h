/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* What the layouts say of a PF, for comparing: a reload's (did its layouts
 * change?) and the status record's signature (did they change since the
 * PF's last apply?). Pure. */

#include "layout-set.h"
#include "model.h"

/* What the layout files of set that select pf on hs (by [Match], as
 * desired_build() selects them, with errors too) say, as written: each
 * file's name, whether it has errors, its [PhysicalFunction] keys and its
 * [VirtualFunction] sections with their keys and values, in set order,
 * and the main configuration's settings the planner takes (set's
 * rdma_netns, kernel_arguments); no line numbers, nothing of the host
 * beyond what selects the PF (a layout that leaves VirtualFunctions= to
 * the host says so, not the host's count); "none" when no file selects
 * it. Caller frees; NULL on ENOMEM. */
char *layout_wants(const struct layout_set *set, const struct host_state *hs,
		   const struct pf_state *pf);
/* Whether the layout file f (NULL: none) selects pf on hs, as
 * desired.c's select_files() selects it: not masked, and its [Match]
 * selects it; also one with errors (which holds it). */
bool layout_file_selects(const struct layout_file *f, const struct host_state *hs,
			 const struct pf_state *pf) _pure_;
/* Whether any layout file of set selects pf on hs (layout_wants() of it
 * is not "none"). */
bool layout_set_selects(const struct layout_set *set, const struct host_state *hs,
			const struct pf_state *pf) _pure_;
/* Whether the layouts of to say something else of pf on hs than those of
 * from (layout_wants() of each): 1 they differ, 0 the same, -ENOMEM. */
int layouts_differ(const struct layout_set *from, const struct layout_set *to,
		   const struct host_state *hs, const struct pf_state *pf);
/* A short signature of s (layout_wants()'s): 16 hex digits of a stable
 * 64-bit FNV-1a hash. Caller frees; NULL on ENOMEM. */
char *layout_wants_signature(const char *s);
