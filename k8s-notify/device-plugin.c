/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* restart-device-plugin: the SR-IOV device plugin discovers VFs only when it
 * starts. Delete this node's plugin pod (DevicePluginNamespace,
 * DevicePluginSelector, spec.nodeName), wait for its replacement (a new uid)
 * to be Ready and for the node's allocatable to show the expected counts.
 * Then, with --resource, the DaemonSet pods that request those resources are
 * replaced: the kubelet gave them devices of the plugin that ran before the
 * change (a drain deletes them, but their DaemonSet recreates them at once),
 * and only pods admitted from now on get VFs that exist. */

#include <inttypes.h>

#include "json-util.h"
#include "k8s-notify.h"
#include "pods.h"

#define WAIT_DEFAULT (120 * USEC_PER_SEC)
#define POLL_BASE (500 * USEC_PER_MSEC)
#define POLL_MAX (4 * USEC_PER_SEC)

/* "RESOURCE=COUNT" */
static int parse_expect(const char *s, char **ret_resource, uint64_t *ret_count)
{
	const char *eq = strrchr(s, '=');
	uint64_t n;
	char *res;

	if (!eq || eq == s || safe_atou64(eq + 1, 10, &n) < 0)
		return -EINVAL;
	for (const char *p = s; p < eq; p++)
		if ((unsigned char)*p <= ' ' || *p == 0x7f || *p == '"')
			return -EINVAL;
	res = strndup(s, (size_t)(eq - s));
	if (!res)
		return -ENOMEM;
	*ret_resource = res;
	*ret_count = n;
	return 0;
}

int verb_restart_device_plugin_check(struct k8s_ctx *x)
{
	for (char **e = x->expect; e && *e; e++) {
		_cleanup_free_ char *res = NULL;
		uint64_t n;

		if (parse_expect(*e, &res, &n) < 0)
			return k8s_usage(x, "--expect %s: must be RESOURCE=COUNT", *e);
	}
	return 0;
}

static int list_plugin_pods(struct k8s_ctx *x, struct json_object **ret_list)
{
	_cleanup_free_ char *field = strdup_printf("spec.nodeName=%s", x->node);
	_cleanup_free_ char *fe = field ? k8s_escape(field) : NULL;
	_cleanup_free_ char *le = k8s_escape(x->conf.device_plugin_selector);
	_cleanup_free_ char *path = NULL, *what = NULL;

	if (!fe || !le)
		return -ENOMEM;
	path = strdup_printf("/api/v1/namespaces/%s/pods?labelSelector=%s&fieldSelector=%s",
			     x->conf.device_plugin_namespace, le, fe);
	what = strdup_printf("list pods %s in %s", x->conf.device_plugin_selector,
			     x->conf.device_plugin_namespace);
	if (!path || !what)
		return -ENOMEM;
	return k8s_list(x->client, path, what, ret_list, NULL);
}

static int delete_pod(struct k8s_ctx *x, struct json_object *pod)
{
	const char *name = k8s_json_str(pod, "metadata", "name", NULL);
	const char *uid = k8s_json_str(pod, "metadata", "uid", NULL);
	const char *ns = x->conf.device_plugin_namespace;
	_cleanup_free_ char *path = NULL, *what = NULL, *body = NULL;
	int r;

	if (!name || !uid || !k8s_name_is_valid(name) || strchr(uid, '"'))
		return k8s_client_fail(x->client, -EBADMSG,
				       "a device-plugin pod without name or uid");
	path = strdup_printf("/api/v1/namespaces/%s/pods/%s", ns, name);
	what = strdup_printf("delete pod %s/%s", ns, name);
	body = strdup_printf("{\"apiVersion\":\"v1\",\"kind\":\"DeleteOptions\","
			     "\"preconditions\":{\"uid\":\"%s\"}}",
			     uid);
	if (!path || !what || !body)
		return -ENOMEM;
	r = k8s_do(x->client,
		   &(struct k8s_request){ .method = "DELETE",
					  .path = path,
					  .content_type = K8S_JSON,
					  .body = body,
					  .what = what },
		   NULL);
	if (r == -ENOENT || r == -ESTALE)
		return 0;
	if (r >= 0)
		k8s_log(x, "deleted device-plugin pod %s/%s", ns, name);
	return r;
}

/* Deletes the plugin pods on this node; their uids go to old. */
static int delete_plugin_pods(struct k8s_ctx *x, char ***old)
{
	_cleanup_json_ struct json_object *list = NULL;
	struct json_object *items;
	size_t n;
	int r;

	r = list_plugin_pods(x, &list);
	if (r < 0)
		return r;
	items = k8s_json_get(list, "items", NULL);
	n = json_object_array_length(items);
	if (n == 0)
		return k8s_client_fail(
			x->client, -ENOENT,
			"no device-plugin pod on node %s (namespace %s, selector %s)", x->node,
			x->conf.device_plugin_namespace, x->conf.device_plugin_selector);
	for (size_t i = 0; i < n; i++) {
		struct json_object *pod = json_object_array_get_idx(items, i);
		const char *uid = k8s_json_str(pod, "metadata", "uid", NULL);

		r = delete_pod(x, pod);
		if (r >= 0 && uid)
			r = strv_extend(old, uid);
		if (r < 0)
			return r;
		result_append(x, "deleted",
			      json_object_new_string(
				      strempty(k8s_json_str(pod, "metadata", "name", NULL))));
	}
	return 0;
}

/* 1 when a pod that is not one of old is Ready (its name in the result). */
static int replacement_ready(struct k8s_ctx *x, char **old)
{
	_cleanup_json_ struct json_object *list = NULL;
	struct json_object *items;
	int r;

	r = list_plugin_pods(x, &list);
	if (r < 0)
		return r;
	items = k8s_json_get(list, "items", NULL);
	for (size_t i = 0; i < json_object_array_length(items); i++) {
		struct json_object *pod = json_object_array_get_idx(items, i);
		const char *uid = k8s_json_str(pod, "metadata", "uid", NULL);

		if (uid && !strv_contains(old, uid) && pod_is_ready(pod)) {
			result_set(x, "new_pod",
				   json_object_new_string(
					   strempty(k8s_json_str(pod, "metadata", "name", NULL))));
			return 1;
		}
	}
	return 0;
}

/* 1 when status.allocatable shows every expected count; else why not in *why. */
static int allocatable_ok(struct k8s_ctx *x, char **why)
{
	_cleanup_json_ struct json_object *node = NULL;
	struct json_object *alloc;
	int r;

	r = node_get(x, &node);
	if (r < 0)
		return r;
	alloc = k8s_json_get(node, "status", "allocatable", NULL);
	for (char **e = x->expect; e && *e; e++) {
		_cleanup_free_ char *res = NULL;
		const char *have;
		uint64_t want, n;

		if (parse_expect(*e, &res, &want) < 0)
			return -EINVAL;
		have = k8s_json_str(alloc, res, NULL);
		if (!have || safe_atou64(have, 10, &n) < 0 || n != want) {
			free(*why);
			*why = strdup_printf("allocatable %s is %s, expected %" PRIu64, res,
					     have ?: "absent", want);
			return 0;
		}
	}
	result_set(x, "allocatable", json_object_get(alloc));
	return 1;
}

int verb_restart_device_plugin(struct k8s_ctx *x)
{
	usec_t deadline = k8s_client_now(x->client) + (x->timeout ?: WAIT_DEFAULT);
	_cleanup_strv_free_ char **old = NULL;
	_cleanup_free_ char *why = NULL;
	bool ready = false;
	usec_t now;
	int r;

	k8s_client_set_deadline(x->client, deadline + 30 * USEC_PER_SEC);
	r = delete_plugin_pods(x, &old);
	for (unsigned round = 0; r >= 0; round++) {
		if (round > 0 && k8s_client_now(x->client) >= deadline)
			return k8s_client_fail(
				x->client, -ETIMEDOUT, "restart-device-plugin: %s after %llus",
				ready ? strna(why) : "no new device-plugin pod Ready",
				(unsigned long long)((x->timeout ?: WAIT_DEFAULT) / USEC_PER_SEC));
		if (round > 0)
			k8s_client_sleep(x->client,
					 k8s_backoff(round - 1, POLL_BASE, POLL_MAX,
						     k8s_client_random(x->client)),
					 deadline);
		if (!ready)
			r = replacement_ready(x, old);
		ready = ready || r > 0;
		if (ready)
			r = allocatable_ok(x, &why);
		if (r > 0) {
			k8s_log(x, "device plugin restarted");
			if (!x->resources)
				return 0;
			now = k8s_client_now(x->client);
			return replace_daemonset_pods(x, deadline > now ? deadline - now : 0);
		}
	}
	return r;
}
