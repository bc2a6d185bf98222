/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* A deferred PF's drift: the host as it was when the PF was first seen
 * deferred (the deferral's own differences, what the last apply set), and
 * what differs from that now. Compared as the drift of an applied PF is,
 * value by value for every key the layout sets on a VF, not through the
 * deferred plan's lines (a count change folds its VFs' differences into
 * "made again"). */

#include "desired.h"

struct deferred_base {
	uint32_t num_vfs;
	uint32_t mtu;
	size_t n_vfs;
	struct vf_attrs *vfs; /* n_vfs, as the host had them */
};

struct deferred_base *deferred_base_free(struct deferred_base *b);

/* What differs on pf from *base beyond the deferral, one line a VF
 * ("VF 4: driver vfio-pci (now iavf)"), for the keys d sets on it (a VF
 * the layout no longer has: the keys it sets on any VF). *base NULL:
 * taken from pf now, and nothing differs. NULL on ENOMEM, an empty list
 * when nothing more. */
char **deferred_drift(struct deferred_base **base, const struct pf_desired *d,
		      const struct pf_state *pf);
/* The journal line of a PF that was deferred (its base taken) and whose
 * host has what its layouts want now, the change made by hand, as the
 * deferred apply's reason suggests: "PCI (name): the deferred change was
 * made by hand: the host has what its layout wants now". */
void deferred_log_made(const char *pci, const char *name);
