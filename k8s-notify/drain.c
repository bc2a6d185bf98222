/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* drain: cordon, then evict this node's pods through policy/v1 Evictions so
 * that PodDisruptionBudgets apply, answering what the API server answers as
 * kubectl drain does:
 *  - 429 with a DisruptionBudget cause: a budget says not now; retried after
 *    its Retry-After until DrainTimeoutSec, then EvictionFallback decides for
 *    the pods a budget still keeps (and only those): delete them with their
 *    own grace period (delete), with none (delete-now; never a StatefulSet
 *    pod, which could then run twice), or give up and lift our cordon (fail);
 *  - 403 NamespaceTerminating: the namespace is being deleted and its pods
 *    with it; the pod is looked at and retried until it is terminating;
 *  - a 429 of the server's own flow control, a 5xx (an eviction webhook that
 *    is down): retried until DrainTimeoutSec, then the drain fails for now
 *    (EX_TEMPFAIL, our cordon kept for the next run) without deleting any
 *    pod, since no budget protects them;
 *  - 500 for a pod under two budgets cannot be retried away: that pod fails;
 *  - any other refusal (RBAC, an admission webhook's denial) fails the drain.
 * Evicted and deleted pods are then awaited until they are gone, bounded by
 * --timeout (and by the longest grace period of the pods deleted). Last, the
 * DaemonSet pods that request one of the resources go the same way (evicted,
 * budgets and the fallback apply, awaited), within a DrainTimeoutSec of their
 * own: the pods that used their services are gone by then. Their DaemonSet
 * creates them again at once, cordon or not, with VFs the device plugin still
 * advertises; restart-device-plugin --resource replaces them once more after
 * the change (replace_daemonset_pods()). */

#include "json-util.h"
#include "k8s-notify.h"
#include "pods.h"

#define WAIT_DEFAULT (120 * USEC_PER_SEC)
#define BLOCKED_RETRY_DEFAULT (5 * USEC_PER_SEC)
#define BLOCKED_RETRY_MAX (30 * USEC_PER_SEC)
/* beyond a deleted pod's grace period, for the kubelet to report it gone */
#define GRACE_MARGIN (30 * USEC_PER_SEC)

enum drain_pod_state {
	DRAIN_POD_PENDING,     /* to evict (again, after next_attempt) */
	DRAIN_POD_EVICTED,     /* accepted: wait for it to be gone */
	DRAIN_POD_DELETED,     /* deleted by the fallback: wait for it to be gone */
	DRAIN_POD_TERMINATING, /* being deleted by someone else: wait for it */
	DRAIN_POD_GONE,
	DRAIN_POD_FAILED,  /* cannot be evicted (two budgets) */
	DRAIN_POD_HOLDING, /* a DaemonSet pod with our resources: its turn comes last */
	_DRAIN_POD_STATE_MAX,
};

struct drain_pod {
	char *ns, *name, *uid;
	enum drain_pod_state state;
	usec_t next_attempt;
	int64_t grace;	  /* terminationGracePeriodSeconds */
	bool statefulset; /* its controller is a StatefulSet */
	bool blocked;	  /* a budget refused it at least once */
	bool by_budget;	  /* and the last refusal was a budget's */
	bool gone;	  /* evicted or deleted, and no longer on the node */
	bool holder;	  /* a DaemonSet pod that requests the resources */
	char *reason;
};

struct drain {
	struct k8s_ctx *x;
	struct drain_pod *pods;
	size_t n;
	unsigned skipped[_POD_VERDICT_MAX];
	usec_t evict_deadline;
};

static void drain_done(struct drain *d)
{
	for (size_t i = 0; i < d->n; i++) {
		free(d->pods[i].ns);
		free(d->pods[i].name);
		free(d->pods[i].uid);
		free(d->pods[i].reason);
	}
	free(d->pods);
}

static int set_reason(struct drain_pod *p, const char *why);

static char *pod_id(const struct drain_pod *p)
{
	return strdup_printf("%s/%s", p->ns, p->name);
}

static int drain_add(struct drain *d, struct json_object *pod, enum drain_pod_state state)
{
	const char *ns = k8s_json_str(pod, "metadata", "namespace", NULL);
	const char *name = k8s_json_str(pod, "metadata", "name", NULL);
	const char *uid = k8s_json_str(pod, "metadata", "uid", NULL);
	struct drain_pod *pods, *p;

	if (!ns || !name || !uid || !k8s_name_is_valid(ns) || !k8s_name_is_valid(name))
		return k8s_client_fail(d->x->client, -EBADMSG,
				       "list pods: a pod without a valid namespace, name or uid");
	pods = reallocarray(d->pods, d->n + 1, sizeof(*pods));
	if (!pods)
		return -ENOMEM;
	d->pods = pods;
	p = &d->pods[d->n];
	*p = (struct drain_pod){ .ns = strdup(ns),
				 .name = strdup(name),
				 .uid = strdup(uid),
				 .state = state,
				 .grace = pod_grace_period(pod),
				 .statefulset = pod_controlled_by(pod, "StatefulSet") };
	d->n++;
	return p->ns && p->name && p->uid ? 0 : -ENOMEM;
}

/* This node's pods, all namespaces. */
static int list_node_pods(struct k8s_ctx *x, struct json_object **ret_items,
			  struct json_object **ret_list)
{
	_cleanup_free_ char *sel = strdup_printf("spec.nodeName=%s", x->node), *esc = NULL;
	_cleanup_free_ char *path = NULL, *what = strdup_printf("list pods on node %s", x->node);

	if (!sel || !what || !(esc = k8s_escape(sel)) ||
	    !(path = strdup_printf("/api/v1/pods?fieldSelector=%s", esc)))
		return -ENOMEM;
	return k8s_list(x->client, path, what, ret_list, ret_items);
}

/* The pods to drain; with holders_only, only the DaemonSet pods that request
 * one of the resources. */
static int drain_select(struct drain *d, bool holders_only)
{
	struct k8s_ctx *x = d->x;
	_cleanup_json_ struct json_object *list = NULL;
	struct json_object *items;
	int r;

	r = list_node_pods(x, &items, &list);
	if (r < 0)
		return r;
	for (size_t i = 0; i < json_object_array_length(items); i++) {
		struct json_object *pod = json_object_array_get_idx(items, i);
		enum pod_verdict v = pod_classify(pod, x->conf.drain_pods, x->resources);

		if (v < 0)
			return -EINVAL;
		if (holders_only && v != POD_VERDICT_REPLACE)
			continue;
		d->skipped[v]++;
		if (v == POD_VERDICT_EVICT || v == POD_VERDICT_TERMINATING ||
		    v == POD_VERDICT_REPLACE) {
			r = drain_add(d, pod,
				      v == POD_VERDICT_EVICT	   ? DRAIN_POD_PENDING :
				      v == POD_VERDICT_TERMINATING ? DRAIN_POD_TERMINATING :
								     DRAIN_POD_HOLDING);
			if (r < 0)
				return r;
			d->pods[d->n - 1].holder = v == POD_VERDICT_REPLACE;
			if (v == POD_VERDICT_REPLACE &&
			    set_reason(&d->pods[d->n - 1],
				       "a DaemonSet pod that requests the resources: evicted once "
				       "the other pods are gone") < 0)
				return -ENOMEM;
		}
	}
	return 0;
}

static char *eviction_body(const struct drain_pod *p)
{
	return strdup_printf("{\"apiVersion\":\"policy/v1\",\"kind\":\"Eviction\","
			     "\"metadata\":{\"name\":\"%s\",\"namespace\":\"%s\"},"
			     "\"deleteOptions\":{\"preconditions\":{\"uid\":\"%s\"}}}",
			     p->name, p->ns, p->uid);
}

static int set_reason(struct drain_pod *p, const char *why)
{
	free(p->reason);
	p->reason = strdup(why ?: "no reason given");
	return p->reason ? 0 : -ENOMEM;
}

/* Not now: a budget's 429, the server's own 429, a 5xx, a namespace being
 * deleted. Tried again after Retry-After (or a default), within the drain
 * timeout; the reason is the server's own words. */
static int evict_later(struct drain *d, struct drain_pod *p, const struct k8s_response *resp,
		       bool budget)
{
	usec_t after = resp->retry_after ?: BLOCKED_RETRY_DEFAULT;
	const char *msg = k8s_status_message(resp->json) ?: "no reason given";
	const char *cause = k8s_status_cause(resp->json), *reason = k8s_status_reason(resp->json);
	_cleanup_free_ char *why = NULL;

	/* a budget's own sentence is its cause; others say it in the message,
	 * tagged with the server's reason */
	if (budget)
		why = strdup_printf("%s%s%s", msg, cause ? ": " : "", strempty(cause));
	else if (k8s_status_has_cause(resp->json, K8S_CAUSE_NAMESPACE_TERMINATING))
		why = strdup_printf("%s (%s)", msg, K8S_CAUSE_NAMESPACE_TERMINATING);
	else
		why = strdup_printf("%s (%ld%s%s)", msg, resp->status, reason ? " " : "",
				    strempty(reason));
	if (!why)
		return -ENOMEM;
	if (!streq_ptr(p->reason, why))
		k8s_log(d->x, "%s/%s: eviction refused (%ld): %s; retrying", p->ns, p->name,
			resp->status, why);
	p->blocked = p->blocked || budget;
	p->by_budget = budget;
	after = after < BLOCKED_RETRY_MAX ? after : BLOCKED_RETRY_MAX;
	p->next_attempt = k8s_client_now(d->x->client) + after;
	return set_reason(p, why);
}

/* The namespace is being deleted (403 NamespaceTerminating): no eviction
 * will pass, and the namespace controller deletes the pod. Once it is
 * terminating (or gone), it is only waited for; until then, tried again. */
static int evict_namespace_terminating(struct drain *d, struct drain_pod *p,
				       const struct k8s_response *resp)
{
	_cleanup_free_ char *what = strdup_printf("get pod %s/%s", p->ns, p->name);
	_cleanup_free_ char *path = strdup_printf("/api/v1/namespaces/%s/pods/%s", p->ns, p->name);
	_cleanup_json_ struct json_object *pod = NULL;
	int r;

	if (!what || !path)
		return -ENOMEM;
	r = k8s_do(d->x->client,
		   &(struct k8s_request){ .method = "GET", .path = path, .what = what }, &pod);
	if (r == -ENOENT ||
	    (r >= 0 && !streq_ptr(k8s_json_str(pod, "metadata", "uid", NULL), p->uid))) {
		p->state = DRAIN_POD_GONE;
		return 0;
	}
	if (r < 0)
		return r;
	if (pod_is_terminating(pod)) {
		k8s_log(d->x, "%s/%s: terminating with its namespace", p->ns, p->name);
		p->state = DRAIN_POD_TERMINATING;
		return 0;
	}
	return evict_later(d, p, resp, false);
}

static int evict_handle(struct drain *d, struct drain_pod *p, const struct k8s_request *req,
			const struct k8s_response *resp)
{
	const char *msg = k8s_status_message(resp->json);

	if (resp->status >= 200 && resp->status < 300) {
		k8s_log(d->x, "%s/%s: evicted%s", p->ns, p->name,
			p->holder ? " (a DaemonSet pod that requests the resources: its DaemonSet "
				    "replaces it)" :
				    "");
		p->state = DRAIN_POD_EVICTED;
		return 0;
	}
	if (resp->status == 404 || resp->status == 409) { /* gone, or replaced (uid) */
		p->state = DRAIN_POD_GONE;
		return 0;
	}
	if (resp->status == 500 && msg && strstr(msg, "more than one PodDisruptionBudget")) {
		k8s_log(d->x, "%s/%s: cannot be evicted: %s", p->ns, p->name, msg);
		p->state = DRAIN_POD_FAILED;
		return set_reason(p, msg);
	}
	if (resp->status == 429)
		return evict_later(d, p, resp,
				   k8s_status_has_cause(resp->json, K8S_CAUSE_DISRUPTION_BUDGET));
	if (resp->status >= 500)
		return evict_later(d, p, resp, false);
	if (resp->status == 403 &&
	    k8s_forbidden_kind(resp->json) == K8S_FORBIDDEN_NAMESPACE_TERMINATING)
		return evict_namespace_terminating(d, p, resp);
	return k8s_response_error(d->x->client, req, resp);
}

static int evict_one(struct drain *d, struct drain_pod *p)
{
	_cleanup_free_ char *body = eviction_body(p), *what = NULL, *path = NULL;
	struct k8s_response resp = {};
	struct k8s_request req;
	int r;

	what = strdup_printf("evict pod %s/%s", p->ns, p->name);
	path = strdup_printf("/api/v1/namespaces/%s/pods/%s/eviction", p->ns, p->name);
	if (!body || !what || !path)
		return -ENOMEM;
	req = (struct k8s_request){ .method = "POST",
				    .path = path,
				    .content_type = K8S_JSON,
				    .body = body,
				    .what = what,
				    .flags = K8S_CALL_RAW_STATUS };
	r = k8s_call(d->x->client, &req, &resp);
	if (r >= 0)
		r = evict_handle(d, p, &req, &resp);
	k8s_response_done(&resp);
	return r;
}

/* Evicts until no pod is pending or the drain timeout has passed. */
static int evict_all(struct drain *d)
{
	for (;;) {
		usec_t now = k8s_client_now(d->x->client), wake = USEC_INFINITY;
		size_t pending = 0;

		for (size_t i = 0; i < d->n; i++) {
			struct drain_pod *p = &d->pods[i];
			int r;

			if (p->state != DRAIN_POD_PENDING)
				continue;
			if (p->next_attempt <= now) {
				r = evict_one(d, p);
				if (r < 0)
					return r;
			}
			if (p->state != DRAIN_POD_PENDING)
				continue;
			pending++;
			wake = p->next_attempt < wake ? p->next_attempt : wake;
		}
		now = k8s_client_now(d->x->client);
		if (pending == 0 || now >= d->evict_deadline)
			return 0;
		k8s_client_sleep(d->x->client, wake > now ? wake - now : 0, d->evict_deadline);
	}
}

/* The fallback for a pod a budget kept: deleted with its own grace period
 * (now = false), or with none. */
static int delete_one(struct drain *d, struct drain_pod *p, bool now)
{
	_cleanup_free_ char *what = strdup_printf("delete pod %s/%s", p->ns, p->name);
	_cleanup_free_ char *path = strdup_printf("/api/v1/namespaces/%s/pods/%s%s", p->ns, p->name,
						  now ? "?gracePeriodSeconds=0" : "");
	_cleanup_free_ char *body =
		strdup_printf("{\"apiVersion\":\"v1\",\"kind\":\"DeleteOptions\",%s"
			      "\"preconditions\":{\"uid\":\"%s\"}}",
			      now ? "\"gracePeriodSeconds\":0," : "", p->uid);
	struct k8s_request req = { .method = "DELETE",
				   .path = path,
				   .content_type = K8S_JSON,
				   .body = body,
				   .what = what };
	int r;

	if (!what || !path || !body)
		return -ENOMEM;
	r = k8s_do(d->x->client, &req, NULL);
	if (r == -ENOENT || r == -ESTALE) { /* gone, or replaced (uid) */
		p->state = DRAIN_POD_GONE;
		return 0;
	}
	if (r < 0)
		return r;
	if (now)
		k8s_log(d->x, "%s/%s: deleted at once (EvictionFallback=delete-now)", p->ns,
			p->name);
	else
		k8s_log(d->x,
			"%s/%s: deleted with its grace period of %" PRIi64
			" s (EvictionFallback=%s)",
			p->ns, p->name, p->grace,
			p->statefulset ? "delete-now, a StatefulSet pod" : "delete");
	p->state = DRAIN_POD_DELETED;
	return 0;
}

static bool uid_listed(struct json_object *items, const char *uid)
{
	for (size_t i = 0; i < json_object_array_length(items); i++)
		if (streq_ptr(k8s_json_str(json_object_array_get_idx(items, i), "metadata", "uid",
					   NULL),
			      uid))
			return true;
	return false;
}

static bool awaited(const struct drain_pod *p)
{
	return (p->state == DRAIN_POD_EVICTED || p->state == DRAIN_POD_DELETED ||
		p->state == DRAIN_POD_TERMINATING) &&
	       !p->gone;
}

static bool is_pending(const struct drain_pod *p)
{
	return p->state == DRAIN_POD_PENDING;
}

/* Pending, and not because of a budget: the fallback is not for it. */
static bool is_pending_other(const struct drain_pod *p)
{
	return p->state == DRAIN_POD_PENDING && !p->by_budget;
}

/* "a/b, c/d" of the pods that pred selects, for messages; with why, each
 * followed by its reason: "a/b (why)". */
static char *list_pods(const struct drain *d, bool (*pred)(const struct drain_pod *p), bool why)
{
	_cleanup_strv_free_ char **l = NULL;

	for (size_t i = 0; i < d->n; i++) {
		const struct drain_pod *p = &d->pods[i];

		if (pred(p) && strv_consume(&l, why ? strdup_printf("%s/%s (%s)", p->ns, p->name,
								    strna(p->reason)) :
						      pod_id(p)) < 0)
			return NULL;
	}
	return l ? strv_join(l, ", ") : strdup("");
}

/* Until every evicted or deleted pod is gone from the node (404, or a new uid). */
static int wait_gone(struct drain *d, usec_t deadline)
{
	for (unsigned round = 0;; round++) {
		_cleanup_json_ struct json_object *list = NULL;
		_cleanup_free_ char *left = NULL;
		struct json_object *items;
		size_t waiting = 0;
		int r;

		for (size_t i = 0; i < d->n; i++)
			waiting += awaited(&d->pods[i]);
		if (waiting == 0)
			return 0;
		if (round > 0 && k8s_client_now(d->x->client) >= deadline) {
			left = list_pods(d, awaited, false);
			return k8s_client_fail(d->x->client, -ETIMEDOUT,
					       "drain node %s: %zu pod(s) still terminating: %s",
					       d->x->node, waiting, strna(left));
		}
		if (round > 0)
			k8s_client_sleep(d->x->client,
					 k8s_backoff(round - 1, 500 * USEC_PER_MSEC,
						     4 * USEC_PER_SEC,
						     k8s_client_random(d->x->client)),
					 deadline);
		r = list_node_pods(d->x, &items, &list);
		if (r < 0)
			return r;
		for (size_t i = 0; i < d->n; i++)
			if (awaited(&d->pods[i]) && !uid_listed(items, d->pods[i].uid))
				d->pods[i].gone = true;
	}
}

/* After DrainTimeoutSec. Pods still refused for another reason than a
 * budget fail the drain for now, and then nothing is deleted; what only a
 * budget holds back goes to EvictionFallback. Returns the longest grace
 * period of the pods deleted with theirs in *ret_grace. */
/* Deletes the pods still pending (f: at once, but for StatefulSets' pods),
 * raising *ret_grace to the longest grace period they were given. */
static int delete_pending(struct drain *d, enum eviction_fallback f, int64_t *ret_grace)
{
	for (size_t i = 0; i < d->n; i++) {
		struct drain_pod *p = &d->pods[i];
		bool now = f == EVICTION_FALLBACK_DELETE_NOW && !p->statefulset;
		int r;

		if (p->state != DRAIN_POD_PENDING)
			continue;
		r = delete_one(d, p, now);
		if (r < 0)
			return r;
		if (!now && p->grace > *ret_grace)
			*ret_grace = p->grace;
	}
	return 0;
}

static int drain_fallback(struct drain *d, int64_t *ret_grace)
{
	_cleanup_free_ char *left = NULL;
	struct k8s_ctx *x = d->x;
	enum eviction_fallback f = x->conf.eviction_fallback;
	size_t n = 0, other = 0;

	for (size_t i = 0; i < d->n; i++) {
		n += is_pending(&d->pods[i]);
		other += is_pending_other(&d->pods[i]);
	}
	if (n == 0)
		return 0;
	if (other > 0) {
		left = list_pods(d, is_pending_other, true);
		return k8s_client_fail(x->client, -EAGAIN,
				       "drain node %s: %zu pod(s) not evicted within "
				       "DrainTimeoutSec=%llu, and no budget is why, so none is "
				       "deleted: %s",
				       x->node, other,
				       (unsigned long long)(x->conf.drain_timeout / USEC_PER_SEC),
				       strna(left));
	}
	switch (f) {
	case EVICTION_FALLBACK_DELETE:
	case EVICTION_FALLBACK_DELETE_NOW:
		return delete_pending(d, f, ret_grace);
	case EVICTION_FALLBACK_FAIL:
		break;
	case _EVICTION_FALLBACK_MAX:
	case _EVICTION_FALLBACK_INVALID:
		return -EINVAL;
	}
	left = list_pods(d, is_pending, false);
	return k8s_client_fail(x->client, -ETIME,
			       "drain node %s: %zu pod(s) not evicted within DrainTimeoutSec=%llu "
			       "(EvictionFallback=fail): %s",
			       x->node, n,
			       (unsigned long long)(x->conf.drain_timeout / USEC_PER_SEC),
			       strna(left));
}

static bool is_failed(const struct drain_pod *p)
{
	return p->state == DRAIN_POD_FAILED;
}

/* Pods under two budgets: reported, and the drain fails. */
static int drain_check_failed(struct drain *d)
{
	_cleanup_free_ char *failed = list_pods(d, is_failed, false);

	if (!failed)
		return -ENOMEM;
	if (!*failed)
		return 0;
	return k8s_client_fail(
		d->x->client, -ENOTRECOVERABLE,
		"drain node %s: cannot evict %s (more than one PodDisruptionBudget?)", d->x->node,
		failed);
}

static struct json_object *pod_reason(const struct drain_pod *p)
{
	_cleanup_free_ char *id = pod_id(p);
	struct json_object *o = json_object_new_object();

	if (o && id) {
		json_object_object_add(o, "pod", json_object_new_string(id));
		json_object_object_add(o, "reason", json_object_new_string(strna(p->reason)));
	}
	return o;
}

/* A DaemonSet pod that held the resources, evicted or deleted for its
 * DaemonSet to replace it. */
static bool is_replaced(const struct drain_pod *p)
{
	return p->holder && (p->state == DRAIN_POD_EVICTED || p->state == DRAIN_POD_DELETED);
}

static void drain_report(struct drain *d)
{
	static const char *const keys[_DRAIN_POD_STATE_MAX] = {
		[DRAIN_POD_PENDING] = "remaining", [DRAIN_POD_EVICTED] = "evicted",
		[DRAIN_POD_DELETED] = "deleted",   [DRAIN_POD_TERMINATING] = "terminating",
		[DRAIN_POD_GONE] = "gone",	   [DRAIN_POD_FAILED] = "failed",
		[DRAIN_POD_HOLDING] = "remaining",
	};
	struct json_object *skipped = json_object_new_object();

	for (size_t i = 0; i < ELEMENTSOF(keys); i++)
		result_set(d->x, keys[i], json_object_new_array());
	result_set(d->x, "blocked", json_object_new_array());
	result_set(d->x, "replaced", json_object_new_array());
	for (size_t i = 0; i < d->n; i++) {
		const struct drain_pod *p = &d->pods[i];
		_cleanup_free_ char *id = pod_id(p);
		bool detailed = p->state == DRAIN_POD_FAILED || p->state == DRAIN_POD_PENDING ||
				p->state == DRAIN_POD_HOLDING;

		result_append(d->x, is_replaced(p) ? "replaced" : keys[p->state],
			      detailed ? pod_reason(p) :
			      id       ? json_object_new_string(id) :
					 NULL);
		if (p->blocked && id)
			result_append(d->x, "blocked", json_object_new_string(id));
	}
	for (int v = POD_VERDICT_SKIP_MIRROR; skipped && v < _POD_VERDICT_MAX; v++)
		json_object_object_add(skipped, pod_verdict_to_string(v),
				       json_object_new_int((int)d->skipped[v]));
	result_set(d->x, "skipped", skipped);
}

/* A final failure after we cordoned: lift our cordon, so that no failure of
 * ours leaves the node cordoned. A retryable one keeps it for the next run. */
static int drain_give_up(struct drain *d, bool ours, int r)
{
	struct k8s_ctx *x = d->x;
	char msg[K8S_ERROR_MAX];
	bool lifted = false;
	int q;

	if (!ours || k8s_errno_is_retryable(r))
		return r;
	snprintf(msg, sizeof(msg), "%s", k8s_client_error(x->client));
	q = node_uncordon(x, &lifted);
	result_set(x, "uncordoned", json_object_new_boolean(lifted));
	if (q < 0)
		return k8s_client_fail(x->client, r, "%s; lifting our cordon failed too: %s", msg,
				       k8s_client_error(x->client));
	if (lifted)
		k8s_log(x, "uncordoned after the failed drain");
	return k8s_client_fail(x->client, r, "%s", msg);
}

/* Waits for the pods deleted or evicted to be gone: for wait, or for the
 * longest grace period of the pods deleted with theirs plus a margin. */
static int drain_wait(struct drain *d, usec_t wait, int64_t grace)
{
	usec_t need = (usec_t)grace * USEC_PER_SEC + GRACE_MARGIN;

	if (need > wait) {
		wait = need;
		k8s_client_set_deadline(d->x->client,
					k8s_client_now(d->x->client) + wait + 30 * USEC_PER_SEC);
	}
	return wait_gone(d, k8s_client_now(d->x->client) + wait);
}

/* Evicts the pending pods as the drain does (budgets, the fallback), waits
 * for them to be gone, fails for the pods that cannot be evicted. */
static int drain_pending(struct drain *d, usec_t wait)
{
	int64_t grace = 0;
	int r;

	r = evict_all(d);
	if (r >= 0)
		r = drain_fallback(d, &grace);
	if (r >= 0)
		r = drain_wait(d, wait, grace);
	if (r >= 0)
		r = drain_check_failed(d);
	return r;
}

/* The DaemonSet pods that hold the resources, now that no other pod uses
 * them: pending, with a DrainTimeoutSec of their own. */
static int drain_holders(struct drain *d, usec_t wait)
{
	struct k8s_ctx *x = d->x;
	size_t n = 0;

	for (size_t i = 0; i < d->n; i++)
		if (d->pods[i].state == DRAIN_POD_HOLDING) {
			d->pods[i].state = DRAIN_POD_PENDING;
			n++;
		}
	if (n == 0)
		return 0;
	d->evict_deadline = k8s_client_now(x->client) + x->conf.drain_timeout;
	k8s_client_set_deadline(x->client, d->evict_deadline + wait + 30 * USEC_PER_SEC);
	return drain_pending(d, wait);
}

int replace_daemonset_pods(struct k8s_ctx *x, usec_t wait)
{
	struct drain d = { .x = x };
	int r;

	r = drain_select(&d, true);
	if (r >= 0)
		r = drain_holders(&d, wait);
	result_set(x, "replaced", json_object_new_array());
	for (size_t i = 0; i < d.n; i++) {
		const struct drain_pod *p = &d.pods[i];
		_cleanup_free_ char *id = pod_id(p);

		if (is_replaced(p) && id)
			result_append(x, "replaced", json_object_new_string(id));
	}
	drain_done(&d);
	return r;
}

/* DrainPods=sriov evicts the pods that request the VFs' resources; VFs
 * without one are no pod's as far as Kubernetes knows (pods get VFs through
 * the device plugin's resources), so none is evicted. That is no usage
 * error: sriov-persistd drains that way for a PF whose VFs have no
 * ResourceName= (add_resources() passes none), and the change still runs
 * under the cordon. The result says why nothing was evicted. */
static void drain_explain_none(struct k8s_ctx *x)
{
	static const char why[] = "no resource given: under DrainPods=sriov no pod uses these VFs";

	if (x->conf.drain_pods != DRAIN_PODS_SRIOV || x->resources)
		return;
	k8s_log(x, "%s, none is evicted (DrainPods=all evicts every pod)", why);
	result_set(x, "reason", json_object_new_string(why));
}

int verb_drain(struct k8s_ctx *x)
{
	usec_t wait = x->timeout ?: WAIT_DEFAULT;
	struct drain d = { .x = x };
	bool ours = false, changed = false;
	int r;

	d.evict_deadline = k8s_client_now(x->client) + x->conf.drain_timeout;
	k8s_client_set_deadline(x->client, d.evict_deadline + wait + 30 * USEC_PER_SEC);
	r = node_cordon(x, &ours, &changed);
	if (r < 0)
		return r;
	if (changed)
		k8s_log(x, "cordoned");
	result_set(x, "owned", json_object_new_boolean(ours));
	result_set(x, "cordon_changed", json_object_new_boolean(changed));
	drain_explain_none(x);
	r = drain_select(&d, false);
	if (r >= 0)
		r = drain_pending(&d, wait);
	/* the DaemonSet pods that hold VFs, once no other pod uses them */
	if (r >= 0)
		r = drain_holders(&d, wait);
	drain_report(&d);
	if (r < 0 && r != -ENOMEM)
		r = drain_give_up(&d, ours, r);
	drain_done(&d);
	return r;
}
