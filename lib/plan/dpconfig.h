/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The SR-IOV network device plugin's configuration (/etc/pcidp/config.json)
 * from the layouts' ResourceName= keys: one resourceList entry per resource,
 * with one selector per kind of VF in it (vendor, device, driver, RDMA), and
 * pfNames "<pf>#<first>-<last>,..." naming exactly the VFs of the layouts.
 * Pure; the document is formatted the same way for the same input, so that
 * it is written only when it changes. */

#include "host-view.h"

struct dp_count {
	char *resource; /* "<prefix>/<name>", as in the node's status.allocatable */
	uint32_t count;
};

struct dp_config {
	char *json;
	struct dp_count *counts; /* sorted by resource */
	size_t n_counts;
	/* "ResourceName=pool left out of ...: VFs with a network interface
	 * (...) and VFs without (...) would be one pool ...": a resource whose
	 * VFs would mix the two is not written (fail safe), NULL when none */
	char **left_out;
};

/* prefix: [Kubernetes] ResourcePrefix=. Only VFs that exist are named (a
 * layout not applied yet names none it has not made). Held and unconfigured
 * PFs, and PFs without a netdev name (the plugin selects by name), contribute
 * nothing. -ENOMEM. */
int dpconfig_build(const struct host_view *v, const char *prefix, struct dp_config *ret);
void dp_config_done(struct dp_config *c);

/* The resources ("<prefix>/<name>") that the VFs of d's layout belong to, in
 * VF order without repeats; empty for a held PF or NULL. The pods that use a
 * PF's VFs are the ones requesting these. -ENOMEM. */
int dpconfig_pf_resources(const struct pf_desired *d, const char *prefix, char ***ret);
