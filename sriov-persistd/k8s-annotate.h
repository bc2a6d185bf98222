/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The node's summary published as its annotations (k8s-notify annotate):
 * at most once a second, the newest state replacing one that waits, backing
 * off after a refusal, and waiting with every other run while the API
 * server does not answer (k8s-api.c). */

#include "k8s-api.h"

struct k8s_annotate {
	struct k8s_api *api;
	char *published; /* the state last published on the node */
	char *next;	 /* the state to publish */
	char *sending;	 /* the state the run under way publishes */
	bool running;
	bool waiting;	   /* for the API server to answer */
	unsigned failures; /* in a row: the next try backs off */
	sd_event_source *timer;
};

void k8s_annotate_init(struct k8s_annotate *a, struct k8s_api *api);
void k8s_annotate_done(struct k8s_annotate *a);
/* Publishes state (NULL: the one waiting) on the node. */
void k8s_annotate(struct k8s_annotate *a, const char *state);
/* Runs annotate with the newest state, unless it runs already, or the state
 * is published, or the server is waited for. */
void k8s_annotate_resume(struct k8s_annotate *a);
