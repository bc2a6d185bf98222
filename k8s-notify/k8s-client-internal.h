/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The client's state, for the files that make up the client (k8s-curl.c,
 * k8s-request.c, k8s-watch.c ...); nobody else looks inside. */

#include "k8s-client.h"
#include "k8s-credentials.h"

struct k8s_client {
	struct k8s_transport t;
	/* what the transport holds in t.userdata, freed with the client, and
	 * how it takes credentials an exec plugin renewed (NULL: nothing to do) */
	void (*transport_free)(void *userdata);
	int (*credentials_changed)(struct k8s_client *c, void *userdata);
	char *server;
	struct k8s_credentials cred;
	struct k8s_client_options o;
	usec_t deadline;
	unsigned n_requests;   /* answered */
	unsigned n_unanswered; /* attempts that got no answer (connection, timeout) */
	/* the server answered something other than 429 or 5xx: it works, and a
	 * failure from now on is a blip worth retrying within this run */
	bool reached;
	/* the last request got no answer, or only 429 or 5xx (an eviction's
	 * are answers: its caller handles them) */
	bool unavailable;
	usec_t retry_after; /* the last 429's or 503's Retry-After; 0 = none */
	char error[K8S_ERROR_MAX];
	/* the watch under way: its callbacks, the line being received, and
	 * what a callback said (> 0 done, < 0 failed; 0 going on) */
	const struct k8s_watcher *watcher;
	char *line;
	size_t line_len, line_cap;
	int watch_end;
	bool watch_started; /* bytes of the stream came: the server answered */
};

static inline usec_t usec_min(usec_t a, usec_t b)
{
	return a < b ? a : b;
}

/* Runs the exec plugin again (within the request timeout and the deadline)
 * and hands what it gave to the transport. */
int k8s_client_renew(struct k8s_client *c, char error[static K8S_ERROR_MAX]);
/* Before a request: a plugin's credential that expires (or did) is renewed. */
int k8s_client_renew_expiring(struct k8s_client *c);
/* How long an exec plugin may run now. */
usec_t k8s_client_exec_timeout(struct k8s_client *c);
