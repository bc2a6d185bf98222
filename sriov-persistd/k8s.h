/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The Kubernetes side of the daemon. k8s.c runs one operation at a time
 * (drain, reboot, recover, device-plugin restart) as a chain of k8s-notify
 * runs; k8s-node.c decides what the node needs (a reboot, a device-plugin
 * restart, its published summary). Both hear of the manager's changes as
 * an observer; m->k8s is their state, and no other module touches it. */

#include <json-c/json.h>

#include "k8s-wait.h"
#include "manager.h"
#include "operation.h"

struct k8s {
	struct operation *op;
	struct operation *op_saved; /* recorded by an earlier run, until k8s_start() */
	bool starting;		    /* the first check: no operation starts yet */
	char **drain_wanted;	    /* PFs deferred until a drain */
	bool reboot_wanted;	    /* a coordinated reboot is due */
	char *reboot_tried;	    /* the reasons a reboot was (being) done for */
	bool device_plugin_wanted;  /* its resources changed */
	char *dp_vf_sig;	    /* VF counts of the configured PFs, last seen */
	bool vfs_changed;	    /* a configured PF's VF count changed since */
	char *annotated;	    /* the state last published on the node */
	char *annotate_next;	    /* the state to publish */
	bool annotate_running;
	bool annotate_waiting;	    /* for the API server to answer */
	unsigned annotate_failures; /* in a row: the next try backs off */
	sd_event_source *annotate_timer;
	/* the API server while it does not answer: every run waits for it */
	struct k8s_wait wait;
	sd_event_source *wait_timer;
	bool probing;  /* a run tries the server during an outage */
	bool answered; /* the server answered a run of ours once */
	/* what the last k8s-notify run said of the credentials, checked hourly */
	struct json_object *credentials;
	sd_event_source *credentials_timer;
};

/* m->k8s, observing m. */
int k8s_new(struct manager *m);
struct k8s *k8s_free(struct k8s *k);
/* Before the first check: what an earlier run recorded (operation.json). */
void k8s_load(struct manager *m);
/* After it: finish or undo that, or lift a cordon a crash left. */
void k8s_start(struct manager *m);
/* Starts what is waiting, when nothing runs. */
void k8s_next(struct manager *m);
/* The operation under way for GetStatus(), NULL when none. */
struct json_object *k8s_operation_json(const struct k8s *k);
/* The credentials as k8s-notify last reported them, for GetStatus(); NULL
 * when none was reported. */
struct json_object *k8s_credentials_json(const struct k8s *k);
/* The API server as the runs found it, and what waits for it, for
 * GetStatus(); NULL where Kubernetes is not enabled. */
struct json_object *k8s_api_json(const struct manager *m);
/* What waits, and for what, as people read it (for GetStatus() and the
 * node's annotations); NULL on ENOMEM. */
char **k8s_waiting(const struct manager *m);

/* k8s-node.c */
/* The resources that pods using the VFs of pfs (NULL: of every PF) request,
 * for "k8s-notify drain --resource ...": sorted, without repeats. */
char **k8s_drain_resources(const struct manager *m, char *const *pfs);
/* Writes the device plugin's config.json when it changed; the arguments of
 * "k8s-notify restart-device-plugin" with the counts it should show. */
int k8s_device_plugin_args(struct manager *m, char ***ret);
/* After a check or apply (once, however many PFs it applied): write the
 * device-plugin config, and restart the plugin when it or the VFs changed. */
void k8s_device_plugin_sync(struct manager *m);
/* After the summary: reboot decision, drains waiting, node annotation. */
void k8s_summary(struct manager *m);
/* k8s-notify annotate, when the node's summary changed (k8s.c). */
void k8s_annotate(struct manager *m, const char *state);
