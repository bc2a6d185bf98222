/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* A client of the API server: what it is configured with, how it reaches
 * the server and passes time (struct k8s_transport), what it counts, and
 * the message of its last failure. The parts around it:
 *   k8s-credentials.h  tokens, client certificates, exec plugins, expiry
 *   k8s-curl.h         libcurl: TLS always verified, bounded responses, timeouts
 *   k8s-https.h        k8s_client_new(): a client over HTTPS from a kubeconfig
 *   k8s-request.h      requests with retries and backoff, status codes as -errno
 *   k8s-watch.h        a watch: the stream of events and its timer
 * Failures come back as -errno with a message in k8s_client_error() that
 * names the request. */

#include "k8s-api.h"

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
	/* the node this run is for, named in every line of standard error; NULL: none */
	const char *node;
};

struct k8s_client;
struct k8s_request;
struct k8s_watcher;

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

/* The client's clock (µs, monotonic), by which deadlines are set. */
usec_t k8s_client_now(const struct k8s_client *c);
/* Its wall clock (µs since the epoch), by which Leases expire. */
usec_t k8s_client_realtime(const struct k8s_client *c);
/* Sleeps for d, but not past deadline (0 = none). */
void k8s_client_sleep(struct k8s_client *c, usec_t d, usec_t deadline);
uint32_t k8s_client_random(struct k8s_client *c);
