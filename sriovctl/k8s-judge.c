/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* What check says of the Kubernetes credentials: k8s-notify's word
 * (k8s_judge()), and which k8s-notify is asked. */

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "sriovctl.h"

const char *ctl_k8s_notify_path(const struct ctl *c)
{
	return c->k8s_notify ?: K8S_NOTIFY_DEFAULT;
}

/* Enabled=auto with a Kubeconfig= set by hand that names no readable file:
 * Kubernetes was meant, so disruptive changes wait for a drain that cannot
 * run (rather than being made without one). */
static int kubeconfig_missing(const struct mainconf *conf, struct diag_list *diags)
{
	int e = access(conf->kubeconfig, R_OK) < 0 ? errno : EACCES;

	return diag_add(diags, DIAG_ERROR, conf->kubeconfig_file, conf->kubeconfig_line,
			"[Kubernetes] Kubeconfig=%s: %s; a Kubeconfig= set with Enabled=auto "
			"means Kubernetes, so disruptive changes wait for a drain that cannot "
			"run (fix the path, or set Enabled=no to do without Kubernetes)",
			conf->kubeconfig, strerror(e));
}

int ctl_check_credentials(const struct ctl *c, const char *main_config, const struct mainconf *conf,
			  struct diag_list *diags)
{
	struct k8s_judgement j;
	int r;

	if (c->root)
		return 0;
	if (mainconf_kubeconfig_missing(conf))
		return kubeconfig_missing(conf, diags);
	r = k8s_judge(ctl_k8s_notify_path(c), main_config, conf, &j);
	if (r < 0 || !j.error)
		return r;
	if (j.not_installed)
		/* at the Enabled= line that enables it, if one does */
		r = diag_add(diags, DIAG_ERROR,
			     conf->k8s_enabled_line ? conf->k8s_enabled_file : NULL,
			     conf->k8s_enabled_line, "[Kubernetes] Enabled=: %s", j.error);
	else if (geteuid() != 0)
		/* what k8s-notify may read and trust depends on who runs it */
		r = diag_add(diags, DIAG_WARNING, NULL, 0,
			     "[Kubernetes] Kubeconfig=: k8s-notify, run as uid %u, says: %s "
			     "(sriov-persistd runs it as root: check as root says what it will "
			     "say)",
			     (unsigned)geteuid(), j.error);
	else if (j.retryable)
		r = diag_add(
			diags, DIAG_WARNING, NULL, 0,
			"[Kubernetes] Kubeconfig=: k8s-notify cannot read the credentials now: "
			"%s",
			j.error);
	else
		r = diag_add(diags, DIAG_ERROR, NULL, 0,
			     "[Kubernetes] Kubeconfig=: k8s-notify says: %s (so no node can be "
			     "drained, and a disruptive change would wait for good)",
			     j.error);
	k8s_judgement_done(&j);
	return r;
}
