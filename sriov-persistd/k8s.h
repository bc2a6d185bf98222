/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The Kubernetes side of the daemon, as an observer of the manager: it runs
 * one operation at a time (drain, reboot, recover, device-plugin restart)
 * as a chain of k8s-notify runs, and publishes the node's summary. Below
 * it: k8s-node.c decides what the node needs, k8s-annotate.c publishes,
 * k8s-api.c waits for the API server, k8s-record.c keeps the operation on
 * disk. m->k8s is its state, and no other module touches it. */

#include <json-c/json.h>

#include "k8s-annotate.h"
#include "k8s-api.h"
#include "k8s-node.h"
#include "manager.h"
#include "operation.h"

/* runs of a step that failed for now (the API server answered) */
#define K8S_RETRIES_MAX 5

struct k8s {
	struct operation *op;
	struct operation *op_saved; /* recorded by an earlier run, until k8s_start() */
	bool starting;		    /* the first check: no operation starts yet */
	char **drain_wanted;	    /* PFs deferred until a drain */
	bool reboot_wanted;	    /* a coordinated reboot is due */
	char *reboot_tried;	    /* the reasons a reboot was (being) done for */
	bool device_plugin_wanted;  /* its resources changed */
	/* an undo step that failed for good, what it left on the cluster and
	 * why, until it is tried again (after RetryMaxDelaySec=, a reload,
	 * Apply()): a cordon of ours (the uncordon), a Lease slot of ours (the
	 * release) */
	char *left_cordon;
	char *left_slot;
	bool left_retry;	     /* a reload, Apply() or left_timer asked to try them again */
	sd_event_source *left_timer; /* tries them again after RetryMaxDelaySec= */
	char *undo_logged;	     /* the last such failure in the journal */
	/* the look for a cordon of ours that no record tells of failed for
	 * good: looked for again with them, and reported nowhere but the journal */
	bool recover_again;
	struct k8s_node node;
	struct k8s_api api;
	struct k8s_annotate annotate;
};

/* m->k8s, observing m. */
int k8s_new(struct manager *m);
struct k8s *k8s_free(struct k8s *k);
/* Before the first check: what an earlier run recorded (operation.json). */
void k8s_load(struct manager *m);
/* After it: finish or undo that, or lift a cordon a crash left. */
void k8s_start(struct manager *m);
/* The operation under way for GetStatus(), NULL when none. */
struct json_object *k8s_operation_json(const struct k8s *k);
/* The credentials as k8s-notify last reported them, for GetStatus(); NULL
 * when none was reported. */
struct json_object *k8s_credentials_json(const struct k8s *k);
/* The API server as the runs found it, and what waits for it, for
 * GetStatus(); NULL where Kubernetes is not enabled. */
struct json_object *k8s_api_json(const struct manager *m);
/* What waits, and for what, as people read it (for GetStatus() and the
 * node's annotations); NULL on ENOMEM. (k8s-waiting.c) */
char **k8s_waiting(const struct manager *m);
/* Adds what of that each PF waits for (the drain it is deferred for, or the
 * step of the drain under way for it that waits) to the waiting of each PF of the status document
 * doc ({"pfs": [...]}), which the host and the records cannot know. -ENOMEM. */
int k8s_status_add_waiting(const struct manager *m, struct json_object *doc);
