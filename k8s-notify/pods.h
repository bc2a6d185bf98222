/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Which pods a drain evicts, and pod facts the waits need. Pure: pods are
 * the API's JSON objects. */

#include "k8s-api.h"
#include "mainconf.h"

enum pod_verdict {
	POD_VERDICT_EVICT,
	POD_VERDICT_TERMINATING, /* already being deleted: only wait for it */
	/* a DaemonSet's pod that requests one of the resources: it would hold
	 * VFs across the change, so it is deleted once the others are gone (its
	 * DaemonSet creates it again at once, on a cordoned node too) */
	POD_VERDICT_REPLACE,
	POD_VERDICT_SKIP_MIRROR, /* a static pod's mirror: the API cannot evict it */
	POD_VERDICT_SKIP_DAEMONSET,
	POD_VERDICT_SKIP_FINISHED, /* Succeeded or Failed */
	POD_VERDICT_SKIP_NOT_SRIOV,
	_POD_VERDICT_MAX,
	_POD_VERDICT_INVALID = -EINVAL,
};

const char *pod_verdict_to_string(enum pod_verdict v) _pure_;
/* With DRAIN_PODS_SRIOV only pods that request one of resources (full names,
 * "intel.com/e810_rdma"; NULL or empty: none) are evicted. DaemonSet pods are
 * skipped in either mode, unless they request one of resources. */
enum pod_verdict pod_classify(struct json_object *pod, enum drain_pods mode,
			      char *const *resources);
/* Whether a container or init container requests or limits one of resources,
 * by its full name. */
bool pod_uses_resources(struct json_object *pod, char *const *resources);
/* status.conditions has Ready=True. */
bool pod_is_ready(struct json_object *pod);
bool pod_is_terminating(struct json_object *pod);
/* Whether its controller (the ownerReference with controller: true) is a kind. */
bool pod_controlled_by(struct json_object *pod, const char *kind);
/* spec.terminationGracePeriodSeconds, in seconds (30 when absent, as the API defaults it),
 * at most POD_GRACE_MAX. */
#define POD_GRACE_MAX (366 * 24 * 3600)
int64_t pod_grace_period(struct json_object *pod);
