/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Which pods a drain evicts, and pod facts the waits need. Pure: pods are
 * the API's JSON objects. */

#include "k8s-api.h"
#include "mainconf.h"

enum pod_verdict {
	POD_VERDICT_EVICT,
	POD_VERDICT_TERMINATING, /* already being deleted: only wait for it */
	POD_VERDICT_SKIP_MIRROR, /* a static pod's mirror: the API cannot evict it */
	POD_VERDICT_SKIP_DAEMONSET,
	POD_VERDICT_SKIP_FINISHED, /* Succeeded or Failed */
	POD_VERDICT_SKIP_NOT_SRIOV,
	_POD_VERDICT_MAX,
	_POD_VERDICT_INVALID = -EINVAL,
};

const char *pod_verdict_to_string(enum pod_verdict v) _pure_;
/* With DRAIN_PODS_SRIOV only pods that request one of "<prefix>/..." are evicted. */
enum pod_verdict pod_classify(struct json_object *pod, enum drain_pods mode, const char *prefix);
/* Whether a container or init container requests or limits a resource "<prefix>/...". */
bool pod_uses_resource_prefix(struct json_object *pod, const char *prefix);
/* status.conditions has Ready=True. */
bool pod_is_ready(struct json_object *pod);
bool pod_is_terminating(struct json_object *pod);
