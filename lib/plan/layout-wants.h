/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* What the layouts want of a PF, for comparing: a reload's (did its layouts
 * change?) and the status record's signature (did they change since the
 * PF's last apply?). */

#include "layout-set.h"
#include "model.h"

/* What the layouts of set want of pf on hs: the keys they set (the
 * status's settings, without the host's values and the sources), the VF
 * count, whether the PF is selected and held; "none" when no layout
 * selects it. Caller frees; NULL on ENOMEM. */
char *layout_wants(const struct layout_set *set, const struct host_state *hs,
		   const struct pf_state *pf);
/* A short signature of s (layout_wants()'s): 16 hex digits of a stable
 * 64-bit FNV-1a hash. Caller frees; NULL on ENOMEM. */
char *layout_wants_signature(const char *s);
