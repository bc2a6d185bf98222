/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* What the node needs from Kubernetes, decided from the manager's state:
 * the device plugin's configuration and restarts, a reboot, the node's
 * published summary. k8s.c carries it out, and is told, never called. */

#include <fcntl.h>
#include <syslog.h>

#include "dpconfig.h"
#include "host-view.h"
#include "json-util.h"
#include "k8s-node.h"
#include "status.h"

static int build_config(const struct manager *m, struct dp_config *ret)
{
	struct host_view v;
	int r;

	r = host_view_build(m->hs, m->set, NULL, &v);
	if (r < 0)
		return r;
	r = dpconfig_build(&v, m->conf.resource_prefix, ret);
	host_view_done(&v);
	return r;
}

/* Writes the file when its content differs. Returns 1 when it was written. */
static int write_config(const struct manager *m, const struct dp_config *c)
{
	const char *path = m->conf.device_plugin_config;
	_cleanup_free_ char *old = NULL, *dir = NULL;
	int r;

	if (!path)
		return 0;
	if (read_file(path, &old) >= 0 && streq(old, c->json))
		return 0;
	dir = path_parent(path);
	if (!dir)
		return -ENOMEM;
	r = mkdir_p(dir, 0755);
	if (r >= 0)
		r = write_file_atomic(dir, path_last_component(path), c->json, 0644);
	if (r < 0) {
		log_msg(LOG_ERR, "Writing %s failed: %s", path, strerror(-r));
		return r;
	}
	log_msg(LOG_INFO, "Wrote the device plugin's resources to %s", path);
	return 1;
}

int k8s_node_device_plugin_args(const struct manager *m, char ***ret)
{
	_cleanup_strv_free_ char **args = NULL;
	struct dp_config c;
	int r;

	r = build_config(m, &c);
	if (r < 0)
		return r;
	for (char **why = c.left_out; why && *why; why++)
		log_msg(LOG_ERR, "%s", *why);
	(void)write_config(m, &c);
	r = strv_extend(&args, "restart-device-plugin");
	for (size_t i = 0; r >= 0 && i < c.n_counts; i++) {
		r = strv_extend(&args, "--expect");
		if (r >= 0)
			r = strv_consume(&args, strdup_printf("%s=%u", c.counts[i].resource,
							      c.counts[i].count));
	}
	dp_config_done(&c);
	if (r < 0)
		return r;
	*ret = TAKE_PTR(args);
	return 0;
}

/* The resources that pods using the VFs of pfs (NULL: of every PF) request:
 * sorted, without repeats. */
static char **drain_resources(const struct manager *m, char *const *pfs)
{
	_cleanup_strv_free_ char **l = calloc(1, sizeof(char *));

	for (size_t i = 0; l && i < m->n_pfs; i++) {
		const struct pf_entry *e = m->pfs[i];

		if (pfs && !strv_contains(pfs, e->pci))
			continue;
		for (size_t k = 0; k < 2; k++)
			for (char **r = k == 0 ? e->resources_running : e->resources_wanted;
			     r && *r; r++)
				if (!strv_contains(l, *r) && strv_extend(&l, *r) < 0)
					return NULL;
	}
	if (l)
		strv_sort(l);
	return TAKE_PTR(l);
}

int k8s_node_resource_args(const struct manager *m, char *const *pfs, char ***args)
{
	_cleanup_strv_free_ char **res = drain_resources(m, pfs);

	if (!res)
		return -ENOMEM;
	for (char **r = res; *r; r++)
		if (strv_extend(args, "--resource") < 0 || strv_extend(args, *r) < 0)
			return -ENOMEM;
	return 0;
}

/* The VF counts of the configured PFs, as one string. */
static char *vf_signature(const struct manager *m)
{
	_cleanup_strv_free_ char **l = calloc(1, sizeof(char *));

	for (size_t i = 0; l && i < m->n_pfs; i++) {
		const struct pf_entry *e = m->pfs[i];

		if (e->state != PF_RUN_UNCONFIGURED &&
		    strv_consume(&l, strdup_printf("%s=%u", e->pci, e->num_vfs)) < 0)
			return NULL;
	}
	return l ? strv_join(l, " ") : NULL;
}

bool k8s_node_device_plugin_sync(struct k8s_node *n, const struct manager *m)
{
	_cleanup_free_ char *sig = vf_signature(m);
	bool first = !n->vf_sig;
	bool vfs_changed = !first && (n->vfs_changed || !streq_ptr(sig, n->vf_sig));
	struct dp_config c;
	int written = 0;

	if (!sig)
		return false;
	free(n->vf_sig);
	n->vf_sig = TAKE_PTR(sig);
	n->vfs_changed = false;
	if (m->conf.device_plugin_config && build_config(m, &c) >= 0) {
		written = write_config(m, &c);
		dp_config_done(&c);
	}
	/* at start nothing changed for a plugin that was started after the boot gate */
	return !first && (vfs_changed || written > 0) && mainconf_kubernetes_enabled(&m->conf);
}

char *k8s_node_state(const struct manager *m, char *const *waiting)
{
	_cleanup_json_ struct json_object *o = json_object_new_object();
	unsigned n[_PF_RUN_STATE_MAX] = {};
	_cleanup_strv_free_ char **reasons = manager_reboot_reasons(m);
	_cleanup_free_ char *joined = reasons ? strv_join(reasons, "; ") : NULL;
	_cleanup_free_ char *waiting_joined = waiting ? strv_join(waiting, "; ") : NULL;
	bool capable = false;

	for (size_t i = 0; i < m->n_pfs; i++) {
		n[m->pfs[i]->state]++;
		/* VFs the device plugin advertises: the plugin has something to do here */
		capable |= m->pfs[i]->resources_wanted && m->pfs[i]->resources_wanted[0];
	}
	json_object_object_add(o, "state",
			       json_object_new_string(manager_state_to_string(m->state)));
	json_object_object_add(o, "applied", json_object_new_int(n[PF_RUN_APPLIED]));
	json_object_object_add(o, "held", json_object_new_int(n[PF_RUN_HELD]));
	json_object_object_add(o, "failed", json_object_new_int(n[PF_RUN_FAILED]));
	json_object_object_add(o, "deferred", json_object_new_int(n[PF_RUN_DEFERRED]));
	json_object_object_add(o, "degraded", json_object_new_int(n[PF_RUN_DEGRADED]));
	json_object_object_add(o, "drifted", json_object_new_int(n[PF_RUN_DRIFTED]));
	json_object_object_add(o, "pending-reboot", json_object_new_string(strempty(joined)));
	/* what waits and why (a step that failed for now and when it runs again) */
	json_object_object_add(o, "waiting", json_object_new_string(strempty(waiting_joined)));
	/* a reboot for them that failed, not tried again on its own */
	if (m->reboot_failed) {
		char when[FORMAT_RFC3339_MAX];
		_cleanup_free_ char *failed = strdup_printf(
			"at %s: %s", format_rfc3339(when, m->reboot_failed_at), m->reboot_failed);

		json_object_object_add(o, "reboot-failed", json_object_new_string(strna(failed)));
	} else
		json_object_object_add(o, "reboot-failed", json_object_new_string(""));
	/* the label a device-plugin DaemonSet selects nodes by (node-patch.h) */
	json_object_object_add(o, "network-sriov-capable", json_object_new_boolean(capable));
	return strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
								JSON_C_TO_STRING_NOSLASHESCAPE));
}

/* A reboot that did not satisfy the reasons is not repeated on its own; one
 * is not made for reasons that no layout asks for (a firmware raise an apply
 * made for a layout since removed), which only a reboot made for others
 * satisfies. */
bool k8s_node_reboot_due(const struct manager *m, char **tried)
{
	_cleanup_strv_free_ char **reasons = NULL;
	_cleanup_free_ char *joined = NULL;

	if (reboot_record_n_asked(&m->reboot) == 0 || m->conf.reboot_policy == REBOOT_POLICY_NEVER)
		return false;
	if (m->conf.reboot_policy == REBOOT_POLICY_COORDINATED &&
	    !mainconf_kubernetes_enabled(&m->conf))
		return false; /* nobody to take turns with: reported, never done on its own */
	reasons = manager_reboot_reasons(m);
	joined = reasons ? strv_join(reasons, "\n") : NULL;
	if (!joined || streq_ptr(joined, *tried))
		return false;
	free(*tried);
	*tried = TAKE_PTR(joined);
	return true;
}

void k8s_node_done(struct k8s_node *n)
{
	free(n->vf_sig);
}
