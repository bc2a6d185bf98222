/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* cordon and uncordon, with the ownership rules of node-patch.h. Each write
 * carries the resourceVersion read, so that a concurrent change by someone
 * else (a 409) makes us read the node again and decide anew. */

#include "json-util.h"
#include "k8s-notify.h"
#include "node-patch.h"

#define CONFLICT_RETRIES 5

int node_get(struct k8s_ctx *x, struct json_object **ret)
{
	_cleanup_free_ char *path = strdup_printf("/api/v1/nodes/%s", x->node);
	_cleanup_free_ char *what = strdup_printf("get node %s", x->node);
	struct k8s_request req = { .method = "GET", .path = path, .what = what };

	if (!path || !what)
		return -ENOMEM;
	return k8s_do(x->client, &req, ret);
}

static int node_patch(struct k8s_ctx *x, const char *patch, const char *verb)
{
	_cleanup_free_ char *path = strdup_printf("/api/v1/nodes/%s", x->node);
	_cleanup_free_ char *what = strdup_printf("patch node %s (%s)", x->node, verb);
	struct k8s_request req = { .method = "PATCH",
				   .path = path,
				   .content_type = K8S_MERGE_PATCH,
				   .body = patch,
				   .what = what };

	if (!path || !what || !patch)
		return -ENOMEM;
	return k8s_do(x->client, &req, NULL);
}

/* One read-decide-write round: 1 done, 0 when the write lost a race. */
static int cordon_once(struct k8s_ctx *x, bool *ret_ours, bool *ret_changed)
{
	_cleanup_json_ struct json_object *node = NULL;
	_cleanup_free_ char *patch = NULL;
	enum cordon_state s;
	int r;

	r = node_get(x, &node);
	if (r < 0)
		return r;
	s = node_cordon_state(node);
	switch (s) {
	case CORDON_STATE_OURS:
	case CORDON_STATE_FOREIGN:
		*ret_ours = s == CORDON_STATE_OURS;
		*ret_changed = false;
		return 1;
	case CORDON_STATE_SCHEDULABLE:
	case CORDON_STATE_STALE:
		break;
	case _CORDON_STATE_MAX:
	case _CORDON_STATE_INVALID:
		return -EINVAL;
	}
	patch = node_patch_cordon(k8s_json_str(node, "metadata", "resourceVersion", NULL));
	r = node_patch(x, patch, "cordon");
	if (r == -ESTALE)
		return 0;
	if (r < 0)
		return r;
	*ret_ours = *ret_changed = true;
	return 1;
}

int node_cordon(struct k8s_ctx *x, bool *ret_ours, bool *ret_changed)
{
	for (unsigned i = 0; i < CONFLICT_RETRIES; i++) {
		int r = cordon_once(x, ret_ours, ret_changed);

		if (r != 0)
			return r < 0 ? r : 0;
	}
	return k8s_client_fail(x->client, -EAGAIN, "cordon node %s: the node kept changing (409)",
			       x->node);
}

static int uncordon_once(struct k8s_ctx *x, bool *ret_lifted)
{
	_cleanup_json_ struct json_object *node = NULL;
	_cleanup_free_ char *patch = NULL;
	enum cordon_state s;
	int r;

	r = node_get(x, &node);
	if (r < 0)
		return r;
	s = node_cordon_state(node);
	switch (s) {
	case CORDON_STATE_SCHEDULABLE:
		*ret_lifted = false;
		return 1;
	case CORDON_STATE_FOREIGN:
		k8s_log(x, "cordoned by someone else, left alone");
		*ret_lifted = false;
		return 1;
	case CORDON_STATE_OURS:
	case CORDON_STATE_STALE:
		break;
	case _CORDON_STATE_MAX:
	case _CORDON_STATE_INVALID:
		return -EINVAL;
	}
	patch = node_patch_uncordon(k8s_json_str(node, "metadata", "resourceVersion", NULL),
				    s == CORDON_STATE_OURS);
	r = node_patch(x, patch, "uncordon");
	if (r == -ESTALE)
		return 0;
	if (r < 0)
		return r;
	*ret_lifted = s == CORDON_STATE_OURS;
	return 1;
}

int node_uncordon(struct k8s_ctx *x, bool *ret_lifted)
{
	for (unsigned i = 0; i < CONFLICT_RETRIES; i++) {
		int r = uncordon_once(x, ret_lifted);

		if (r != 0)
			return r < 0 ? r : 0;
	}
	return k8s_client_fail(x->client, -EAGAIN, "uncordon node %s: the node kept changing (409)",
			       x->node);
}

static usec_t deadline_from(struct k8s_ctx *x, usec_t dflt)
{
	return k8s_client_now(x->client) + (x->timeout ?: dflt);
}

int verb_cordon(struct k8s_ctx *x)
{
	bool ours = false, changed = false;
	int r;

	k8s_client_set_deadline(x->client, deadline_from(x, 120 * USEC_PER_SEC));
	r = node_cordon(x, &ours, &changed);
	if (r < 0)
		return r;
	if (changed)
		k8s_log(x, "cordoned");
	else if (!ours)
		k8s_log(x, "already cordoned by someone else; not claiming it");
	result_set(x, "owned", json_object_new_boolean(ours));
	result_set(x, "changed", json_object_new_boolean(changed));
	return 0;
}

int verb_uncordon(struct k8s_ctx *x)
{
	bool lifted = false;
	int r;

	k8s_client_set_deadline(x->client, deadline_from(x, 120 * USEC_PER_SEC));
	r = node_uncordon(x, &lifted);
	if (r < 0)
		return r;
	if (lifted)
		k8s_log(x, "uncordoned (our own cordon)");
	result_set(x, "lifted", json_object_new_boolean(lifted));
	return 0;
}
