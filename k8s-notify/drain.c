/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* drain: cordon, then evict this node's pods through policy/v1 Evictions so
 * that PodDisruptionBudgets apply. A 429 (a budget says not now) is retried
 * after its Retry-After until DrainTimeoutSec; then EvictionFallback decides:
 * delete what is left (grace period 0), or give up and lift our cordon. A 500
 * for a pod under two budgets cannot be retried away and fails that pod.
 * Evicted pods are then awaited until they are gone, bounded by --timeout. */

#include "json-util.h"
#include "k8s-notify.h"
#include "pods.h"

#define WAIT_DEFAULT (120 * USEC_PER_SEC)
#define BLOCKED_RETRY_DEFAULT (5 * USEC_PER_SEC)
#define BLOCKED_RETRY_MAX (30 * USEC_PER_SEC)

enum drain_pod_state {
	DRAIN_POD_PENDING, /* to evict (again, after next_attempt) */
	DRAIN_POD_EVICTED, /* accepted: wait for it to be gone */
	DRAIN_POD_DELETED, /* deleted by the fallback: wait for it to be gone */
	DRAIN_POD_GONE,
	DRAIN_POD_FAILED, /* cannot be evicted (two budgets) */
};

struct drain_pod {
	char *ns, *name, *uid;
	enum drain_pod_state state;
	usec_t next_attempt;
	bool blocked; /* a budget refused it at least once */
	bool gone;    /* evicted or deleted, and no longer on the node */
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
	*p = (struct drain_pod){
		.ns = strdup(ns), .name = strdup(name), .uid = strdup(uid), .state = state
	};
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

static int drain_select(struct drain *d)
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
		d->skipped[v]++;
		if (v == POD_VERDICT_EVICT || v == POD_VERDICT_TERMINATING) {
			r = drain_add(d, pod,
				      v == POD_VERDICT_EVICT ? DRAIN_POD_PENDING :
							       DRAIN_POD_EVICTED);
			if (r < 0)
				return r;
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

/* A 429, or a 5xx that is not the two-budgets case: try again later. */
static int evict_blocked(struct drain *d, struct drain_pod *p, const struct k8s_response *resp)
{
	usec_t after = resp->retry_after ?: BLOCKED_RETRY_DEFAULT;
	const char *msg = k8s_status_message(resp->json), *cause = k8s_status_cause(resp->json);
	_cleanup_free_ char *why = strdup_printf("%s%s%s", msg ?: "no reason given",
						 cause ? ": " : "", strempty(cause));

	if (!why)
		return -ENOMEM;
	if (!p->blocked || !streq_ptr(p->reason, why))
		k8s_log(d->x, "%s/%s: eviction refused (%ld): %s; retrying", p->ns, p->name,
			resp->status, why);
	p->blocked = p->blocked || resp->status == 429;
	after = after < BLOCKED_RETRY_MAX ? after : BLOCKED_RETRY_MAX;
	p->next_attempt = k8s_client_now(d->x->client) + after;
	return set_reason(p, why);
}

static int evict_handle(struct drain *d, struct drain_pod *p, const struct k8s_request *req,
			const struct k8s_response *resp)
{
	const char *msg = k8s_status_message(resp->json);

	if (resp->status >= 200 && resp->status < 300) {
		k8s_log(d->x, "%s/%s: evicted", p->ns, p->name);
		p->state = DRAIN_POD_EVICTED;
		return 0;
	}
	if (resp->status == 404 || resp->status == 409) { /* gone, or replaced (uid) */
		p->state = DRAIN_POD_GONE;
		return 0;
	}
	if (resp->status == 500 && msg && strstr(msg, "PodDisruptionBudget")) {
		k8s_log(d->x, "%s/%s: cannot be evicted: %s", p->ns, p->name, msg);
		p->state = DRAIN_POD_FAILED;
		return set_reason(p, msg);
	}
	if (resp->status == 429 || resp->status >= 500)
		return evict_blocked(d, p, resp);
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

/* EvictionFallback=delete: what a budget kept is deleted without a grace period. */
static int delete_one(struct drain *d, struct drain_pod *p)
{
	_cleanup_free_ char *what = strdup_printf("delete pod %s/%s", p->ns, p->name);
	_cleanup_free_ char *path =
		strdup_printf("/api/v1/namespaces/%s/pods/%s?gracePeriodSeconds=0", p->ns, p->name);
	_cleanup_free_ char *body = strdup_printf(
		"{\"apiVersion\":\"v1\",\"kind\":\"DeleteOptions\",\"gracePeriodSeconds\":0,"
		"\"preconditions\":{\"uid\":\"%s\"}}",
		p->uid);
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
	k8s_log(d->x, "%s/%s: deleted (EvictionFallback=delete)", p->ns, p->name);
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
	return (p->state == DRAIN_POD_EVICTED || p->state == DRAIN_POD_DELETED) && !p->gone;
}

static bool is_pending(const struct drain_pod *p)
{
	return p->state == DRAIN_POD_PENDING;
}

/* "a/b, c/d" of the pods that pred selects, for messages. */
static char *list_pods(const struct drain *d, bool (*pred)(const struct drain_pod *p))
{
	_cleanup_strv_free_ char **l = NULL;

	for (size_t i = 0; i < d->n; i++)
		if (pred(&d->pods[i]) && strv_consume(&l, pod_id(&d->pods[i])) < 0)
			return NULL;
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
			left = list_pods(d, awaited);
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

/* After DrainTimeoutSec, what a budget still holds back: deleted, or the end. */
static int drain_fallback(struct drain *d)
{
	_cleanup_free_ char *left = NULL;
	struct k8s_ctx *x = d->x;
	size_t n = 0;
	int r;

	for (size_t i = 0; i < d->n; i++)
		n += is_pending(&d->pods[i]);
	if (n == 0)
		return 0;
	switch (x->conf.eviction_fallback) {
	case EVICTION_FALLBACK_DELETE:
		for (size_t i = 0; i < d->n; i++)
			if (d->pods[i].state == DRAIN_POD_PENDING) {
				r = delete_one(d, &d->pods[i]);
				if (r < 0)
					return r;
			}
		return 0;
	case EVICTION_FALLBACK_FAIL:
		break;
	case _EVICTION_FALLBACK_MAX:
	case _EVICTION_FALLBACK_INVALID:
		return -EINVAL;
	}
	left = list_pods(d, is_pending);
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
	_cleanup_free_ char *failed = list_pods(d, is_failed);

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

static void drain_report(struct drain *d)
{
	static const char *const keys[] = {
		[DRAIN_POD_PENDING] = "remaining", [DRAIN_POD_EVICTED] = "evicted",
		[DRAIN_POD_DELETED] = "deleted",   [DRAIN_POD_GONE] = "gone",
		[DRAIN_POD_FAILED] = "failed",
	};
	struct json_object *skipped = json_object_new_object();

	for (size_t i = 0; i < ELEMENTSOF(keys); i++)
		result_set(d->x, keys[i], json_object_new_array());
	for (size_t i = 0; i < d->n; i++) {
		const struct drain_pod *p = &d->pods[i];
		_cleanup_free_ char *id = pod_id(p);
		bool detailed = p->state == DRAIN_POD_FAILED || p->state == DRAIN_POD_PENDING;

		result_append(d->x, keys[p->state],
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
	r = drain_select(&d);
	if (r >= 0)
		r = evict_all(&d);
	if (r >= 0)
		r = drain_fallback(&d);
	if (r >= 0)
		r = wait_gone(&d, k8s_client_now(x->client) + wait);
	if (r >= 0)
		r = drain_check_failed(&d);
	drain_report(&d);
	if (r < 0 && r != -ENOMEM)
		r = drain_give_up(&d, ours, r);
	drain_done(&d);
	return r;
}
