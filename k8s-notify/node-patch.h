/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Who owns a node's cordon, and the merge patches that cordon, uncordon and
 * annotate it. Pure: nodes are the API's JSON objects, patches JSON text.
 *
 * A cordon of ours carries the annotation NODE_CORDON_ANNOTATION, set in the
 * same patch as spec.unschedulable, so that uncordon lifts only our own
 * cordon and a restart can find and undo one left by a crash. */

#include "k8s-api.h"

#define NODE_ANNOTATION_PREFIX "sriov-persist.io/"
#define NODE_CORDON_ANNOTATION NODE_ANNOTATION_PREFIX "cordoned"
#define NODE_STATE_MAX (64u << 10)
/* The label of node-feature-discovery and of the operator sriov-persist
 * replaces, by which a device-plugin DaemonSet selects the nodes it runs on;
 * the state key NODE_STATE_CAPABLE (a boolean) sets or removes it. */
#define NODE_CAPABLE_LABEL "feature.node.kubernetes.io/network-sriov.capable"
#define NODE_STATE_CAPABLE "network-sriov-capable"

enum cordon_state {
	CORDON_STATE_SCHEDULABLE, /* no cordon, no claim of ours */
	CORDON_STATE_OURS,	  /* unschedulable, and the annotation says we did it */
	CORDON_STATE_FOREIGN,	  /* unschedulable by someone else: never ours to lift */
	CORDON_STATE_STALE,	  /* our annotation on a schedulable node (lifted by hand) */
	_CORDON_STATE_MAX,
	_CORDON_STATE_INVALID = -EINVAL,
};

const char *cordon_state_to_string(enum cordon_state s) _pure_;
enum cordon_state node_cordon_state(struct json_object *node);

/* spec.unschedulable=true and our annotation; with resourceVersion rv (may be
 * NULL) as a precondition, so that a concurrent change makes it fail with 409. */
char *node_patch_cordon(const char *rv);
/* Removes our annotation, and with lift also sets spec.unschedulable=false. */
char *node_patch_uncordon(const char *rv, bool lift);
/* The daemon's state summary (a JSON object) as "sriov-persist.io/<key>"
 * annotations: strings as they are, other values as JSON text, null removes;
 * '_' in keys becomes '-'; but NODE_STATE_CAPABLE, true or false, sets
 * NODE_CAPABLE_LABEL to "true" or removes it (it is then in
 * *ret_annotations under that label's name). -EINVAL with a message for
 * anything else. */
int node_patch_annotations(const char *state, char **ret_patch,
			   struct json_object **ret_annotations, char error[static K8S_ERROR_MAX]);
