/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* [Match] of a layout against a PF. Pure. */

#include "layout-set.h"
#include "model.h"

/* Does this [Match] select pf on a host named hostname? Every set key must
 * match; a key matches when any of its globs does. Name matches the
 * interface name or an alternative name; Vendor/Device compare as "0x8086"
 * (case-insensitive). A [Match] with no keys selects every PF. */
bool layout_match_pf(const struct layout_match *m, const struct pf_state *pf,
		     const char *hostname) _pure_;

/* Whether some layout of set may come to select pf once its netdev has its
 * final name and its driver is bound: Name= is left out (udev renames
 * netdevs after "add"), and so is Driver= while no driver is bound (it may
 * still be probing). For deciding early, never for applying. */
bool layout_set_may_select(const struct layout_set *set, const struct pf_state *pf,
			   const char *hostname) _pure_;
