/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The Kubernetes API server as the daemon's k8s-notify runs find it: one
 * backoff for every run while it does not answer (k8s-wait.c's), and the
 * credentials as the last run reported them. k8s.c and k8s-annotate.c run
 * through it; what waited hears that it may go through the resume callback
 * given to k8s_api_init(), from the event loop. */

#include <json-c/json.h>

#include "k8s-run.h"
#include "k8s-wait.h"
#include "manager.h"

struct k8s_api {
	struct manager *m;
	void (*resume)(struct manager *m); /* the server may be tried again */
	struct k8s_wait wait;
	sd_event_source *wait_timer;
	unsigned running; /* runs through k8s_api_run() under way */
	bool probing;	  /* a run tries the server during an outage */
	bool answered;	  /* the server answered a run of ours once */
	/* what the last k8s-notify run said of the credentials, checked hourly */
	struct json_object *credentials;
	sd_event_source *credentials_timer;
};

void k8s_api_init(struct k8s_api *api, struct manager *m, void (*resume)(struct manager *m));
void k8s_api_done(struct k8s_api *api);

/* A one-shot timer at when (CLOCK_MONOTONIC), made on its first use. */
void k8s_timer_at(sd_event *e, sd_event_source **s, usec_t when, sd_event_time_handler_t handler,
		  void *userdata);
/* The realtime of a CLOCK_MONOTONIC time to come. */
usec_t k8s_mono_to_real(usec_t t);

/* Whether a run that talks to the API may start now: always while the
 * server answers; during an outage one at a time, when the next try is due
 * (else the resume callback runs then). */
bool k8s_api_may_run(struct k8s_api *api);
/* k8s_run() for a run that talks to the API; its done callback calls
 * k8s_api_seen() first. */
int k8s_api_run(struct k8s_api *api, char **args, k8s_done_t done, void *userdata);
/* Every run through k8s_api_run(), when it ends: an outage begins or goes
 * on (one journal line when it begins), or an answer ends it (one line).
 * Returns whether the run failed for now because of the outage: what it was
 * for waits for the server, and counts as no failure of its own. */
bool k8s_api_seen(struct k8s_api *api, int status, const struct step_result *result);
/* The API server as the runs found it, with what waits for it, for
 * GetStatus(). */
struct json_object *k8s_api_status_json(const struct k8s_api *api, char *const *waiting);

/* Every k8s-notify run reports the credentials: kept for GetStatus, and a
 * warning that is new goes to the journal. */
void k8s_credentials_seen(struct k8s_api *api, const struct step_result *result);
/* Checks their expiry every hour (k8s-notify credentials, no request). */
void k8s_credentials_watch(struct k8s_api *api);
/* As k8s-notify last reported them, for GetStatus(); NULL when none was. */
struct json_object *k8s_api_credentials_json(const struct k8s_api *api);
