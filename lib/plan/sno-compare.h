/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* sriovctl compare: a node as sriov-network-operator left it (its
 * SriovNetworkNodeState) against what applying the layouts would leave on
 * each PF (the desired state of the host view: the layouts' values, and the
 * host's own where no layout sets one). The status is compared, as it is
 * what the node has; where the spec says otherwise the operator had not
 * converged, and that is a difference too. Pure. */

#include "host-view.h"
#include "sno-node-state.h"

struct sno_comparison {
	/* one a difference: "0000:3b:00.0 (ens1f0): VF 3 driver: operator
	 * vfio-pci, layouts iavf (50-intel.conf:7)"; NULL-terminated, never
	 * NULL */
	char **lines;
	/* of them, those where the operator had not converged (its spec and
	 * status differ, or its syncStatus says so) */
	size_t unconverged;
};

/* Every difference between ns and the view v of the host (built for every
 * PF). -ENOMEM. */
int sno_compare(const struct sno_node_state *ns, const struct host_view *v,
		struct sno_comparison *ret);
void sno_comparison_done(struct sno_comparison *c);
