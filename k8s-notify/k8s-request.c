/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <curl/curl.h>

#include "json-util.h"
#include "k8s-client-internal.h"
#include "k8s-request.h"

void k8s_response_done(struct k8s_response *r)
{
	if (r->json)
		json_object_put(r->json);
	free(r->location);
	*r = (struct k8s_response){};
}

char *k8s_escape(const char *s)
{
	char *e = curl_easy_escape(NULL, s, 0), *copy;

	if (!e)
		return NULL;
	copy = strdup(e);
	curl_free(e);
	return copy;
}

int k8s_response_take_location(struct k8s_client *c, const struct k8s_request *req,
			       const struct k8s_reply *reply, struct k8s_response *resp)
{
	if (reply->status < 300 || reply->status >= 400 || !reply->location)
		return 0;
	resp->location = strdup(reply->location);
	return resp->location ? 0 : k8s_client_fail(c, -ENOMEM, "%s: out of memory", req->what);
}

/* One attempt: 0 with the response, or -errno with the message set. */
static int perform_once(struct k8s_client *c, const struct k8s_request *req,
			struct k8s_response *ret)
{
	struct k8s_reply reply = {};
	int r;

	c->unavailable = false;
	r = k8s_client_renew_expiring(c);
	if (r < 0)
		return r;
	r = c->t.exchange(c, c->t.userdata, req, &reply);
	if (r < 0) {
		c->n_unanswered++;
		c->unavailable = k8s_errno_is_retryable(r);
		return r;
	}
	c->n_requests++;
	*ret = (struct k8s_response){ .status = reply.status,
				      .json = k8s_json_parse(reply.body, reply.len) };
	ret->retry_after = reply.retry_after ?: k8s_status_retry_after(ret->json) * USEC_PER_SEC;
	if (k8s_status_unavailable(reply.status)) {
		c->retry_after = ret->retry_after;
		c->unavailable = !(req->flags & K8S_CALL_RAW_STATUS);
	} else
		c->reached = true;
	return k8s_response_take_location(c, req, &reply, ret);
}

/* Until the server has answered this run once, nothing is retried here: a
 * server that is down or overloaded is waited for by whoever runs us (the
 * daemon backs off across runs, with jitter), so that a fleet does not
 * multiply its own attempts. Afterwards a failure is a blip: a dropped
 * connection, a 429 or 5xx in the middle of a drain, retried with backoff. */
static bool should_retry(const struct k8s_client *c, const struct k8s_request *req, int r,
			 const struct k8s_response *resp)
{
	if (!c->reached)
		return false;
	if (r < 0)
		return k8s_errno_is_retryable(r);
	if (req->flags & K8S_CALL_RAW_STATUS)
		return false;
	return k8s_status_unavailable(resp->status);
}

/* How long to wait before attempt + 1, or false when the deadline comes first. */
static bool retry_delay(struct k8s_client *c, unsigned attempt, int r,
			const struct k8s_response *resp, usec_t *ret)
{
	usec_t delay =
		k8s_backoff(attempt, c->o.backoff_base, c->o.backoff_max, k8s_client_random(c));

	if (r >= 0 && resp->retry_after > delay)
		delay = usec_min(resp->retry_after, c->o.backoff_max);
	if (c->deadline && k8s_client_now(c) + delay >= c->deadline)
		return false;
	*ret = delay;
	return true;
}

/* kube-apiserver refuses every request for a moment after it starts, as RBAC
 * would, until its authorizer has read the roles; its /readyz says so (403
 * as well for that moment, then 500 until it is ready). A refusal is the
 * server's word only when /readyz answers 200 at once; a 200 after a 403
 * means the server has just become ready (the run fails for now, and the
 * next sends the request again); one that /readyz keeps refusing for about
 * a second (RBAC that hides it) stands as well. */
#define READY_TRIES 5
#define READY_PAUSE (250 * USEC_PER_MSEC)

static bool server_starting(struct k8s_client *c)
{
	const struct k8s_request req = { .method = "GET", .path = "/readyz", .what = "readyz" };

	for (unsigned i = 0; i < READY_TRIES; i++) {
		struct k8s_reply reply = {};

		if (i > 0) {
			if (c->deadline && k8s_client_now(c) + READY_PAUSE >= c->deadline)
				return false;
			k8s_client_sleep(c, READY_PAUSE, c->deadline);
		}
		if (c->t.exchange(c, c->t.userdata, &req, &reply) < 0) {
			c->n_unanswered++;
			return true; /* gone again */
		}
		c->n_requests++;
		/* 200 at once: ready all along, the refusal stands; after a 403:
		 * ready just now, and the refusal may be from before */
		if (reply.status == 200)
			return i > 0;
		if (reply.status != 403)
			return true;
	}
	return false;
}

/* The attempts of one call: 0 with the last response, or -errno. */
static int call_attempts(struct k8s_client *c, const struct k8s_request *req,
			 struct k8s_response *resp)
{
	int r;

	for (unsigned attempt = 0, renewed = 0;; attempt++) {
		usec_t delay;

		k8s_response_done(resp);
		r = perform_once(c, req, resp);
		/* as kubectl: a 401 renews a plugin's credential, once per call */
		if (r >= 0 && resp->status == 401 && c->cred.exec && !renewed++) {
			r = k8s_client_renew(c, c->error);
			if (r < 0)
				return r;
			continue;
		}
		if (!should_retry(c, req, r, resp) || attempt + 1 >= c->o.max_attempts)
			return r;
		if (!retry_delay(c, attempt, r, resp, &delay))
			return r;
		k8s_client_sleep(c, delay, c->deadline);
	}
}

int k8s_call(struct k8s_client *c, const struct k8s_request *req, struct k8s_response *ret)
{
	struct k8s_response resp = {};
	int r;

	r = call_attempts(c, req, &resp);
	if (r < 0) {
		k8s_response_done(&resp);
		return r;
	}
	if (resp.status == 403 && k8s_forbidden_kind(resp.json) == K8S_FORBIDDEN_RBAC &&
	    server_starting(c)) {
		r = k8s_client_fail(
			c, -EAGAIN,
			"%s: 403 Forbidden while the API server is starting (its /readyz "
			"is not ok): %s",
			req->what, strna(k8s_status_message(resp.json)));
		k8s_response_done(&resp);
		c->unavailable = true;
		return r;
	}
	*ret = resp;
	return 0;
}

/* Whose credentials a 401 refused, for its message; NULL when not known. */
static char *unauthorized_whose(const struct k8s_client *c)
{
	const char *kc = c->o.credentials;

	if (c->cred.exec)
		return strdup_printf(" that the exec plugin %s gave%s%s%s", c->cred.exec->command,
				     kc ? " (kubeconfig " : "", strempty(kc), kc ? ")" : "");
	return kc ? strdup_printf(" of %s", kc) : NULL;
}

int k8s_response_error(struct k8s_client *c, const struct k8s_request *req,
		       const struct k8s_response *resp)
{
	const char *msg = k8s_status_message(resp->json), *phrase = k8s_http_phrase(resp->status);
	int r = k8s_http_errno(resp->status, k8s_status_reason(resp->json));

	if (r == 0)
		return 0;
	if (resp->status == 401) {
		_cleanup_free_ char *whose = unauthorized_whose(c);

		return k8s_client_fail(c, r,
				       "%s: 401 Unauthorized: credentials expired or revoked: the "
				       "API server did not accept the token or client "
				       "certificate%s%s%s",
				       req->what, strempty(whose), msg ? ": " : "", strempty(msg));
	}
	if (resp->status == 403 && k8s_forbidden_kind(resp->json) == K8S_FORBIDDEN_RBAC)
		return k8s_client_fail(c, r, "%s: 403 Forbidden, refused by RBAC: %s", req->what,
				       msg);
	if (resp->status == 403)
		return k8s_client_fail(c, r, "%s: 403 Forbidden, refused by admission control: %s",
				       req->what, msg ?: "no reason given");
	/* the client's own TLS settings and credentials would go with it */
	if (resp->status >= 300 && resp->status < 400)
		return k8s_client_fail(c, r,
				       "%s: %ld%s%s: redirects are not followed (Location: %s)",
				       req->what, resp->status, *phrase ? " " : "", phrase,
				       resp->location ?: "none given");
	return k8s_client_fail(c, r, "%s: %ld%s%s%s%s", req->what, resp->status, *phrase ? " " : "",
			       phrase, msg ? ": " : "", strempty(msg));
}

int k8s_do(struct k8s_client *c, const struct k8s_request *req, struct json_object **ret_json)
{
	struct k8s_response resp = {};
	int r;

	r = k8s_call(c, req, &resp);
	if (r < 0)
		return r;
	r = k8s_response_error(c, req, &resp);
	if (r >= 0 && ret_json && !resp.json)
		r = k8s_client_fail(c, -EBADMSG, "%s: the response is not JSON", req->what);
	if (r >= 0 && ret_json)
		*ret_json = TAKE_PTR(resp.json);
	k8s_response_done(&resp);
	return r;
}

int k8s_list(struct k8s_client *c, const char *path, const char *what,
	     struct json_object **ret_list, struct json_object **ret_items)
{
	_cleanup_json_ struct json_object *list = NULL;
	struct json_object *items;
	int r;

	r = k8s_do(c, &(struct k8s_request){ .method = "GET", .path = path, .what = what }, &list);
	if (r < 0)
		return r;
	items = k8s_json_get(list, "items", NULL);
	if (!items || !json_object_is_type(items, json_type_array))
		return k8s_client_fail(c, -EBADMSG, "%s: no items in the response", what);
	if (ret_items)
		*ret_items = items;
	*ret_list = TAKE_PTR(list);
	return 0;
}
