/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The API server over HTTPS (libcurl), TLS always verified. Once the server
 * has answered (anything but 429 or 5xx), each call retries connection
 * failures, timeouts, 429 and 5xx with exponential backoff and jitter,
 * bounded by a number of attempts and by the client's deadline; before that,
 * a failure is final for the run (its caller backs off across runs).
 * Responses are bounded (K8S_RESPONSE_MAX) and decoded as JSON. Failures come
 * back as -errno with a message in k8s_client_error() that names the request. */

#include "k8s-api.h"
#include "kubeconfig.h"

#define K8S_RESPONSE_MAX (8u << 20)

#define K8S_MERGE_PATCH "application/merge-patch+json"
#define K8S_JSON "application/json"

struct k8s_client_options {
	usec_t connect_timeout; /* one connection attempt */
	usec_t request_timeout; /* one whole request */
	unsigned max_attempts;	/* per call, >= 1 */
	usec_t backoff_base, backoff_max;
	const char *user_agent;
	/* where the credentials come from ("/etc/sriov-persist/kubeconfig"), for
	 * the message of a 401; NULL: not said */
	const char *credentials;
};

struct k8s_client;
struct k8s_request;
struct k8s_watcher;

/* One answer as it came: the body stays the transport's until its next exchange. */
struct k8s_reply {
	long status;
	const char *body;
	size_t len;
	usec_t retry_after;   /* the Retry-After header; 0 = none */
	const char *location; /* of a 3xx, where it points; NULL = none (the transport's, as body) */
};

/* How the client reaches the server and passes time: libcurl and the
 * system's clocks (k8s_client_new), or a stand-in that answers every request
 * from a script (the fuzz target k8s-verbs). exchange sends one attempt: 0
 * with the reply, or -errno with the message set by k8s_client_fail(). now is
 * CLOCK_MONOTONIC's kind of time, realtime the wall clock; sleep waits d. */
struct k8s_transport {
	int (*exchange)(struct k8s_client *c, void *userdata, const struct k8s_request *req,
			struct k8s_reply *ret);
	/* A watch: sends req and hands the streamed body of a 200 answer to
	 * k8s_watch_feed() as it comes, while calling k8s_watch_tick() when
	 * k8s_watch_wake() says; both may end it (> 0 done, < 0 failed: then
	 * returns that). 0 with the reply (for a status other than 200, its
	 * body) when the stream ended or was ended; -errno with the message set
	 * when the transport failed. */
	int (*watch)(struct k8s_client *c, void *userdata, const struct k8s_request *req,
		     struct k8s_reply *ret);
	usec_t (*now)(void *userdata);
	usec_t (*realtime)(void *userdata);
	void (*sleep)(void *userdata, usec_t d);
	uint32_t (*random)(void *userdata);
	void *userdata;
};

/* Takes what it needs from kc (reads the token file and the CA now). */
int k8s_client_new(const struct kubeconfig *kc, const struct k8s_client_options *o,
		   struct k8s_client **ret, char error[static K8S_ERROR_MAX]);
/* A client that sends through t (copied). */
int k8s_client_new_transport(const struct k8s_transport *t, const struct k8s_client_options *o,
			     struct k8s_client **ret);
struct k8s_client *k8s_client_free(struct k8s_client *c);
static inline void k8s_client_freep(struct k8s_client **c)
{
	k8s_client_free(*c);
}
#define _cleanup_k8s_client_ _cleanup_(k8s_client_freep)

/* The credentials in use: how they are given, where from (a path or a
 * plugin; NULL when not known), and when they were issued and expire
 * (CLOCK_REALTIME µs, 0 when not known: a token that is no JWT, a client
 * certificate). */
void k8s_client_credential(const struct k8s_client *c, enum k8s_cred_kind *ret_kind,
			   const char **ret_source, usec_t *ret_issued, usec_t *ret_expires);
/* How many times the exec plugin ran. */
unsigned k8s_client_exec_runs(const struct k8s_client *c);

/* No call (retries included) goes on past this CLOCK_MONOTONIC time; 0 = none. */
void k8s_client_set_deadline(struct k8s_client *c, usec_t deadline);
/* HTTP requests the server answered so far (every attempt counts), and
 * attempts that got no answer (refused, reset, timed out). */
unsigned k8s_client_requests(const struct k8s_client *c);
unsigned k8s_client_unanswered(const struct k8s_client *c);
/* Whether the server answered this client with anything but 429 or 5xx:
 * until it has, no call is retried (the caller waits for a server that is
 * down or overloaded). */
bool k8s_client_reached(const struct k8s_client *c);
/* Whether the last request got no answer (refused, reset, timed out) or
 * only 429 or 5xx: a run that fails so failed for want of the server.
 * Evictions' 429 and 5xx (K8S_CALL_RAW_STATUS) are answers. */
bool k8s_client_unavailable(const struct k8s_client *c);
/* The Retry-After of the last 429 or 5xx answer (0: none). */
usec_t k8s_client_retry_after(const struct k8s_client *c);
const char *k8s_client_error(const struct k8s_client *c);
/* Records a message for r (the caller's own failure) and returns r. */
int k8s_client_fail(struct k8s_client *c, int r, const char *fmt, ...) _printf_(3, 4);

enum {
	/* Hand 429 and 5xx back to the caller instead of retrying them (evictions). */
	K8S_CALL_RAW_STATUS = 1 << 0,
};

struct k8s_request {
	const char *method; /* GET, POST, PUT, PATCH, DELETE */
	const char *path;   /* with query, already escaped */
	const char *content_type;
	const char *body;
	const char *what; /* "patch node worker-1", for messages */
	unsigned flags;
	usec_t timeout; /* of this request (a watch: its timeoutSeconds); 0 = the client's */
};

struct k8s_response {
	long status;
	struct json_object *json; /* NULL when the body is not JSON */
	usec_t retry_after;	  /* Retry-After or details.retryAfterSeconds; 0 = none */
	char *location;		  /* of a 3xx (never followed), where it points; NULL = none */
};
void k8s_response_done(struct k8s_response *r);

/* Sends req, retrying as above. 0 when a response came, whatever its status
 * (a 429 or 5xx comes back as such with K8S_CALL_RAW_STATUS or once the
 * attempts are used up); -errno when none did, it was too large, or the
 * server's certificate was not verified. */
int k8s_call(struct k8s_client *c, const struct k8s_request *req, struct k8s_response *ret);
/* k8s_call, and a status other than 2xx becomes -errno (k8s_http_errno) with
 * "what: 403 Forbidden: <Status message>". ret_json (may be NULL) gets the body. */
int k8s_do(struct k8s_client *c, const struct k8s_request *req, struct json_object **ret_json);
/* A GET of a list (path, what as for k8s_do): *ret_list the whole answer
 * (for its metadata.resourceVersion), *ret_items its items array, which must
 * be there (-EBADMSG "what: no items in the response" otherwise). */
int k8s_list(struct k8s_client *c, const char *path, const char *what,
	     struct json_object **ret_list, struct json_object **ret_items);
/* Sets the message for a non-2xx response and returns its -errno. */
int k8s_response_error(struct k8s_client *c, const struct k8s_request *req,
		       const struct k8s_response *resp);

/* A watch (a GET with watch=1 in req->path): each event of the stream, a
 * JSON object with "type" and "object", goes to w->event as it arrives;
 * meanwhile w->tick runs when w->wake's time (the client's clock, 0 = none)
 * has come, and may send requests of its own (the watch stays open). A
 * callback returns > 0 to end the watch, 0 to go on, < 0 to fail it. One
 * request, never retried: 1 when a callback ended it, 0 when the server did
 * (its timeoutSeconds) or req->timeout passed, -errno (the message set) when
 * it failed, the answer was not 200, or an event was not JSON. */
struct k8s_watcher {
	int (*event)(struct json_object *event, void *userdata);
	usec_t (*wake)(void *userdata);
	int (*tick)(void *userdata);
	void *userdata;
};
int k8s_watch(struct k8s_client *c, const struct k8s_request *req, const struct k8s_watcher *w);
/* For transports: the next bytes of the watch's stream, and its timer. */
int k8s_watch_feed(struct k8s_client *c, const char *data, size_t len);
usec_t k8s_watch_wake(struct k8s_client *c);
int k8s_watch_tick(struct k8s_client *c);

/* A path segment or query value, percent-encoded; NULL on ENOMEM. */
char *k8s_escape(const char *s);

/* The client's clock (µs, monotonic), by which deadlines are set. */
usec_t k8s_client_now(const struct k8s_client *c);
/* Its wall clock (µs since the epoch), by which Leases expire. */
usec_t k8s_client_realtime(const struct k8s_client *c);
/* Sleeps for d, but not past deadline (0 = none). */
void k8s_client_sleep(struct k8s_client *c, usec_t d, usec_t deadline);
uint32_t k8s_client_random(struct k8s_client *c);
