/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "k8s-watch.h"
#include "json-util.h"
#include "k8s-client-internal.h"
#include "k8s-request.h"

/* Appends n bytes to the line being received: 0, or the watch's end. */
static int line_append(struct k8s_client *c, const char *data, size_t n)
{
	if (c->line_len + n + 1 > K8S_RESPONSE_MAX)
		return c->watch_end = -EFBIG;
	if (c->line_len + n + 1 > c->line_cap) {
		char *b = realloc(c->line, (c->line_len + n + 1) * 2);

		if (!b)
			return c->watch_end = -ENOMEM;
		c->line = b;
		c->line_cap = (c->line_len + n + 1) * 2;
	}
	memcpy(c->line + c->line_len, data, n);
	c->line_len += n;
	c->line[c->line_len] = '\0';
	return 0;
}

/* A whole line: blank, or an event for the watcher. */
static int line_event(struct k8s_client *c)
{
	_cleanup_json_ struct json_object *ev = NULL;
	size_t n = c->line_len;

	c->line_len = 0;
	if (strspn(c->line, " \t\r") == n)
		return 0;
	ev = k8s_json_parse(c->line, n);
	if (!ev || !json_object_is_type(ev, json_type_object))
		return c->watch_end = -EBADMSG;
	return c->watch_end = c->watcher->event(ev, c->watcher->userdata);
}

int k8s_watch_feed(struct k8s_client *c, const char *data, size_t len)
{
	c->watch_started |= len > 0;
	while (len > 0 && !c->watch_end) {
		const char *nl = memchr(data, '\n', len);
		size_t n = nl ? (size_t)(nl - data) : len;

		if (line_append(c, data, n) < 0)
			return c->watch_end;
		data += n;
		len -= n;
		if (!nl)
			break;
		data++;
		len--;
		(void)line_event(c);
	}
	return c->watch_end;
}

usec_t k8s_watch_wake(struct k8s_client *c)
{
	return c->watcher->wake ? c->watcher->wake(c->watcher->userdata) : 0;
}

int k8s_watch_tick(struct k8s_client *c)
{
	if (!c->watch_end && c->watcher->tick)
		c->watch_end = c->watcher->tick(c->watcher->userdata);
	return c->watch_end;
}

/* An answer other than 200: its Status message, else its status. */
static int watch_refused(struct k8s_client *c, const struct k8s_request *req,
			 const struct k8s_reply *reply)
{
	struct k8s_response resp = { .status = reply->status,
				     .json = k8s_json_parse(reply->body, reply->len) };
	int r;

	r = k8s_response_take_location(c, req, reply, &resp);
	if (r >= 0)
		r = k8s_response_error(c, req, &resp);
	k8s_response_done(&resp);
	return r < 0 ? r :
		       k8s_client_fail(c, -EBADMSG, "%s: answered %ld", req->what, reply->status);
}

/* What the watch comes to, once the transport is done with it. */
static int watch_outcome(struct k8s_client *c, const struct k8s_request *req,
			 const struct k8s_reply *reply)
{
	if (c->watch_end == -EBADMSG)
		return k8s_client_fail(c, -EBADMSG, "%s: an event is not a JSON object", req->what);
	if (c->watch_end == -EFBIG)
		return k8s_client_fail(c, -EFBIG, "%s: an event larger than %u MiB, refused",
				       req->what, K8S_RESPONSE_MAX >> 20);
	if (c->watch_end < 0)
		return c->watch_end; /* the callback's own failure, its message set */
	if (c->watch_end > 0)
		return 1;
	if (reply->status == 200)
		return 0;
	return watch_refused(c, req, reply);
}

int k8s_watch(struct k8s_client *c, const struct k8s_request *req, const struct k8s_watcher *w)
{
	struct k8s_reply reply = {};
	int r;

	if (!c->t.watch)
		return k8s_client_fail(c, -EOPNOTSUPP, "%s: this transport cannot watch",
				       req->what);
	c->watcher = w;
	c->line_len = 0;
	c->watch_end = 0;
	c->watch_started = false;
	r = k8s_client_renew_expiring(c);
	if (r < 0)
		return r;
	c->unavailable = false;
	r = c->t.watch(c, c->t.userdata, req, &reply);
	c->watcher = NULL;
	if (r < 0 && !c->watch_started) {
		c->n_unanswered++;
		c->unavailable = true;
		return r;
	}
	c->n_requests++;
	if (r < 0)
		return r;
	c->unavailable = k8s_status_unavailable(reply.status);
	if (!c->unavailable)
		c->reached = true;
	return watch_outcome(c, req, &reply);
}
