/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* k8s-notify: the daemon's hands in the Kubernetes API. Each verb writes one
 * JSON result on stdout and says what it does on stderr; see k8s-notify.c. */

#include "k8s-https.h"
#include "k8s-request.h"
#include "k8s-watch.h"
#include "mainconf.h"

/* Exit codes: the daemon tells retryable from final failures by them. */
enum {
	EXIT_OK = 0,
	EXIT_FAIL = 1,	    /* 401, 403, bad configuration, other 4xx */
	EXIT_USAGE = 2,	    /* bad command line */
	EXIT_TEMPFAIL = 75, /* EX_TEMPFAIL: API unreachable, timeouts, slots busy */
};

struct k8s_ctx {
	struct mainconf conf;
	struct k8s_client *client;
	char *node;		 /* --node, NodeName= or the hostname */
	const char *holder;	 /* --holder: the lease identity; default the node */
	usec_t timeout;		 /* --timeout; 0 = the verb's default */
	uint32_t lease_duration; /* --lease-duration, seconds */
	const char *slot;	 /* lease release/renew: the slot, NULL = look for ours */
	const char *state;	 /* annotate --state */
	char **expect;		 /* restart-device-plugin --expect RES=COUNT */
	char **resources; /* drain --resource: DrainPods=sriov evicts pods requesting these */
	char **args;	  /* operands after the verb */
	int n_args;
	struct json_object *result; /* the verb adds its fields */
	bool quiet;		    /* no progress lines (k8s_log) on stderr */
	bool quiet_unreachable;	    /* nothing on stderr when the API server did not answer */
};

int verb_cordon(struct k8s_ctx *x);
int verb_uncordon(struct k8s_ctx *x);
int verb_drain(struct k8s_ctx *x);
int verb_restart_device_plugin(struct k8s_ctx *x);
int verb_lease(struct k8s_ctx *x);
int verb_annotate(struct k8s_ctx *x);
int verb_credentials(struct k8s_ctx *x);
/* Usage checks before any I/O: a message on stderr and -EINVAL. */
int verb_restart_device_plugin_check(struct k8s_ctx *x);
int verb_lease_check(struct k8s_ctx *x);
int verb_annotate_check(struct k8s_ctx *x);

/* cordon.c, shared with drain. ret_ours: the cordon is now ours (it is not
 * when someone else had cordoned the node); ret_changed: we wrote the node. */
int node_cordon(struct k8s_ctx *x, bool *ret_ours, bool *ret_changed);
/* Lifts our own cordon only; ret_lifted tells whether it did. */
int node_uncordon(struct k8s_ctx *x, bool *ret_lifted);
/* GET the node. */
int node_get(struct k8s_ctx *x, struct json_object **ret);

/* drain.c, for restart-device-plugin: deletes this node's DaemonSet pods that
 * request one of x->resources (their grace period, UID precondition) and
 * waits up to wait (or their grace period and a margin) for them to be gone,
 * so that their DaemonSet replaces them with pods that get the VFs the device
 * plugin advertises now. Result field: replaced. */
int replace_daemonset_pods(struct k8s_ctx *x, usec_t wait);

/* Result helpers: x->result[key] = value (taking it; NULL values are dropped). */
void result_set(struct k8s_ctx *x, const char *key, struct json_object *value);
void result_append(struct k8s_ctx *x, const char *key, struct json_object *value);
/* A message on stderr, "k8s-notify: NODE: ...". */
void k8s_log(struct k8s_ctx *x, const char *fmt, ...) _printf_(2, 3);
/* A usage error of a verb: message on stderr; returns -EINVAL. */
int k8s_usage(struct k8s_ctx *x, const char *fmt, ...) _printf_(2, 3);
