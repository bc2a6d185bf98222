/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* What the node needs from Kubernetes, decided from the manager's state:
 * the device plugin's configuration and restarts, the resources a drain
 * evicts, a reboot, the node's published summary. It decides and never
 * runs anything: k8s.c carries it out. */

#include "manager.h"

/* What it remembers between two looks at the VF counts. */
struct k8s_node {
	char *vf_sig;	  /* VF counts of the configured PFs, last seen */
	bool vfs_changed; /* a configured PF's VF count changed since */
};

void k8s_node_done(struct k8s_node *n);

/* Adds "--resource R" to args for each resource that pods using the VFs of
 * pfs (NULL: of every PF) request (k8s-notify drain and
 * restart-device-plugin evict or replace those pods). */
int k8s_node_resource_args(const struct manager *m, char *const *pfs, char ***args);
/* Writes the device plugin's config.json when it changed; the arguments of
 * "k8s-notify restart-device-plugin" with the counts it should show. */
int k8s_node_device_plugin_args(const struct manager *m, char ***ret);
/* After a check or apply (once, however many PFs it applied): writes the
 * device-plugin config; whether the plugin is to restart because it or the
 * VFs changed. */
bool k8s_node_device_plugin_sync(struct k8s_node *n, const struct manager *m);
/* Whether a reboot is due: reasons stand that a reboot was not already done
 * for (*tried: the reasons of the last, updated when one is due). */
bool k8s_node_reboot_due(const struct manager *m, char **tried);
/* The node's summary as k8s-notify annotate publishes it, with what waits
 * (k8s_waiting()); NULL on ENOMEM. */
char *k8s_node_state(const struct manager *m, char *const *waiting);
