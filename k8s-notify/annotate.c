/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* annotate --state JSON: the daemon's summary of this node's SR-IOV state
 * (applied, held, drifted, pending reboot ...) as sriov-persist.io/...
 * node annotations, in one merge patch. "--state -" reads it from stdin. */

#include "json-util.h"
#include "k8s-notify.h"
#include "node-patch.h"

static char *state_text(const char *state)
{
	char *text = NULL;

	if (!streq(state, "-"))
		return strdup(state);
	if (read_fd(STDIN_FILENO, NODE_STATE_MAX, &text, NULL) < 0)
		return NULL;
	return text;
}

int verb_annotate_check(struct k8s_ctx *x)
{
	if (!x->state)
		return k8s_usage(x, "annotate: --state JSON is required");
	return 0;
}

int verb_annotate(struct k8s_ctx *x)
{
	_cleanup_free_ char *text = state_text(x->state), *patch = NULL, *path = NULL;
	_cleanup_free_ char *what = strdup_printf("patch node %s (annotate)", x->node);
	struct json_object *ann = NULL;
	char error[K8S_ERROR_MAX];
	int r;

	if (!text)
		return k8s_client_fail(x->client, -EINVAL, "--state: cannot read it");
	r = node_patch_annotations(text, &patch, &ann, error);
	if (r < 0)
		return r == -ENOMEM ? r : k8s_client_fail(x->client, r, "%s", error);
	path = strdup_printf("/api/v1/nodes/%s", x->node);
	if (!path || !what) {
		json_object_put(ann);
		return -ENOMEM;
	}
	k8s_client_set_deadline(x->client,
				k8s_client_now(x->client) + (x->timeout ?: 60 * USEC_PER_SEC));
	r = k8s_do(x->client,
		   &(struct k8s_request){ .method = "PATCH",
					  .path = path,
					  .content_type = K8S_MERGE_PATCH,
					  .body = patch,
					  .what = what },
		   NULL);
	/* the result lists what the node carries now: nothing of a failed patch */
	if (r >= 0)
		result_set(x, "annotations", ann);
	else
		json_object_put(ann);
	return r;
}
