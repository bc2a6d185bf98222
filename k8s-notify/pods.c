/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "pods.h"

static const char *const pod_verdict_names[_POD_VERDICT_MAX] = {
	[POD_VERDICT_EVICT] = "evict",
	[POD_VERDICT_TERMINATING] = "terminating",
	[POD_VERDICT_REPLACE] = "replace",
	[POD_VERDICT_SKIP_MIRROR] = "mirror",
	[POD_VERDICT_SKIP_DAEMONSET] = "daemonset",
	[POD_VERDICT_SKIP_FINISHED] = "finished",
	[POD_VERDICT_SKIP_NOT_SRIOV] = "not-sriov",
};

DEFINE_STRING_TABLE_TO(pod_verdict, enum pod_verdict, pod_verdict_names)

static bool array_has(struct json_object *a, bool (*pred)(struct json_object *, const void *),
		      const void *arg)
{
	if (!a || !json_object_is_type(a, json_type_array))
		return false;
	for (size_t i = 0; i < json_object_array_length(a); i++)
		if (pred(json_object_array_get_idx(a, i), arg))
			return true;
	return false;
}

static bool owner_is_daemonset(struct json_object *ref, const void *arg)
{
	return streq_ptr(k8s_json_str(ref, "kind", NULL), "DaemonSet");
}

static bool is_mirror(struct json_object *pod)
{
	return k8s_json_get(pod, "metadata", "annotations", "kubernetes.io/config.mirror", NULL);
}

static bool is_finished(struct json_object *pod)
{
	const char *phase = k8s_json_str(pod, "status", "phase", NULL);

	return streq_ptr(phase, "Succeeded") || streq_ptr(phase, "Failed");
}

/* A resources.requests or .limits map with one of resources as a key. */
static bool map_has_resource(struct json_object *map, char *const *resources)
{
	if (!map || !json_object_is_type(map, json_type_object))
		return false;
	json_object_object_foreach(map, key, val)
	{
		(void)val;
		if (strv_contains(resources, key))
			return true;
	}
	return false;
}

static bool container_uses_resources(struct json_object *ctr, const void *resources)
{
	struct json_object *res = k8s_json_get(ctr, "resources", NULL);

	return map_has_resource(k8s_json_get(res, "requests", NULL), resources) ||
	       map_has_resource(k8s_json_get(res, "limits", NULL), resources);
}

bool pod_uses_resources(struct json_object *pod, char *const *resources)
{
	return array_has(k8s_json_get(pod, "spec", "containers", NULL), container_uses_resources,
			 resources) ||
	       array_has(k8s_json_get(pod, "spec", "initContainers", NULL),
			 container_uses_resources, resources);
}

static bool owner_is_controller_kind(struct json_object *ref, const void *arg)
{
	struct json_object *c = k8s_json_get(ref, "controller", NULL);

	return c && json_object_get_boolean(c) && streq_ptr(k8s_json_str(ref, "kind", NULL), arg);
}

bool pod_controlled_by(struct json_object *pod, const char *kind)
{
	return array_has(k8s_json_get(pod, "metadata", "ownerReferences", NULL),
			 owner_is_controller_kind, kind);
}

int64_t pod_grace_period(struct json_object *pod)
{
	struct json_object *v = k8s_json_get(pod, "spec", "terminationGracePeriodSeconds", NULL);
	int64_t g;

	/* the API's default when the field is absent */
	if (!v || !json_object_is_type(v, json_type_int))
		return 30;
	/* bounded: waits are computed from it */
	g = json_object_get_int64(v);
	return g < 0 ? 0 : g > POD_GRACE_MAX ? POD_GRACE_MAX : g;
}

bool pod_is_terminating(struct json_object *pod)
{
	return k8s_json_str(pod, "metadata", "deletionTimestamp", NULL) != NULL;
}

static bool condition_ready(struct json_object *cond, const void *arg)
{
	return streq_ptr(k8s_json_str(cond, "type", NULL), "Ready") &&
	       streq_ptr(k8s_json_str(cond, "status", NULL), "True");
}

bool pod_is_ready(struct json_object *pod)
{
	return !pod_is_terminating(pod) &&
	       array_has(k8s_json_get(pod, "status", "conditions", NULL), condition_ready, NULL);
}

enum pod_verdict pod_classify(struct json_object *pod, enum drain_pods mode, char *const *resources)
{
	if (is_mirror(pod))
		return POD_VERDICT_SKIP_MIRROR;
	if (array_has(k8s_json_get(pod, "metadata", "ownerReferences", NULL), owner_is_daemonset,
		      NULL)) {
		if (is_finished(pod) || !pod_uses_resources(pod, resources))
			return POD_VERDICT_SKIP_DAEMONSET;
		return pod_is_terminating(pod) ? POD_VERDICT_TERMINATING : POD_VERDICT_REPLACE;
	}
	if (is_finished(pod))
		return POD_VERDICT_SKIP_FINISHED;
	switch (mode) {
	case DRAIN_PODS_SRIOV:
		if (!pod_uses_resources(pod, resources))
			return POD_VERDICT_SKIP_NOT_SRIOV;
		break;
	case DRAIN_PODS_ALL:
		break;
	case _DRAIN_PODS_MAX:
	case _DRAIN_PODS_INVALID:
		return _POD_VERDICT_INVALID;
	}
	return pod_is_terminating(pod) ? POD_VERDICT_TERMINATING : POD_VERDICT_EVICT;
}
