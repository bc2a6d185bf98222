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

/* What [Kubernetes] Enabled= is under auto, which found credentials or a
 * Kubeconfig= set: at its place when written, else that no file sets it. */
static char *enabled_auto(const struct mainconf *conf)
{
	_cleanup_free_ char *unset = NULL;

	if (conf->k8s_enabled_line > 0 && conf->k8s_enabled_value[0])
		return strdup_printf("[Kubernetes] Enabled=%s at %s:%u", conf->k8s_enabled_value,
				     conf->k8s_enabled_file, conf->k8s_enabled_line);
	if (conf->k8s_enabled_line > 0)
		return strdup_printf("[Kubernetes] Enabled= is empty at %s:%u, so auto, the "
				     "default, applies",
				     conf->k8s_enabled_file, conf->k8s_enabled_line);
	unset = mainconf_not_set(conf, "Kubernetes", "Enabled");
	return unset ? strdup_printf("%s, so auto, the default, applies", unset) : NULL;
}

/* k8s-notify is not installed: at the line that enables Kubernetes, an
 * Enabled=yes, else the Kubeconfig= set that auto takes for Kubernetes,
 * else (auto found credentials) at no line, and never at a key no file
 * sets. */
static int not_installed(const struct mainconf *conf, const char *error, struct diag_list *diags)
{
	_cleanup_free_ char *aut = NULL;

	if (conf->k8s_enabled == K8S_ENABLED_YES)
		return diag_add(diags, DIAG_ERROR, conf->k8s_enabled_file, conf->k8s_enabled_line,
				"[Kubernetes] Enabled=%s: %s", conf->k8s_enabled_value, error);
	aut = enabled_auto(conf);
	if (!aut)
		return -ENOMEM;
	if (conf->kubeconfig_line > 0)
		return diag_add(diags, DIAG_ERROR, conf->kubeconfig_file, conf->kubeconfig_line,
				"[Kubernetes] Kubeconfig=%s: %s, or set Enabled=no to do without "
				"Kubernetes (%s, and auto takes a Kubeconfig= that is set for "
				"Kubernetes)",
				conf->kubeconfig, error, aut);
	return diag_add(diags, DIAG_ERROR, NULL, 0,
			"%s, or set [Kubernetes] Enabled=no to do without Kubernetes (%s, and "
			"auto found credentials: %s%s)",
			error, aut, access(conf->kubeconfig, R_OK) == 0 ? "the kubeconfig " : "",
			access(conf->kubeconfig, R_OK) == 0 ? conf->kubeconfig :
							      "the in-cluster service account");
}

/* What k8s-notify says of the credentials, at the Kubeconfig= line when
 * one is written; else said of the credentials, with no key. */
static int credentials_said(const struct mainconf *conf, enum diag_level level, const char *said,
			    struct diag_list *diags)
{
	_cleanup_free_ char *unset = NULL;

	if (conf->kubeconfig_line > 0)
		return diag_add(diags, level, conf->kubeconfig_file, conf->kubeconfig_line,
				"[Kubernetes] Kubeconfig=%s: %s", conf->kubeconfig, said);
	unset = mainconf_not_set(conf, "Kubernetes", "Kubeconfig");
	if (!unset)
		return -ENOMEM;
	return diag_add(diags, level, NULL, 0, "Kubernetes credentials (%s): %s", unset, said);
}

int ctl_check_credentials(const struct ctl *c, const char *main_config, const struct mainconf *conf,
			  struct diag_list *diags)
{
	_cleanup_free_ char *said = NULL;
	enum diag_level level = DIAG_ERROR;
	struct k8s_judgement j;
	int r;

	if (c->root)
		return 0;
	if (mainconf_kubeconfig_missing(conf))
		return kubeconfig_missing(conf, diags);
	r = k8s_judge(ctl_k8s_notify_path(c), main_config, conf, &j);
	if (r < 0 || !j.error)
		return r;
	if (j.not_installed) {
		r = not_installed(conf, j.error, diags);
		k8s_judgement_done(&j);
		return r;
	}
	if (geteuid() != 0) {
		/* what k8s-notify may read and trust depends on who runs it */
		level = DIAG_WARNING;
		said = strdup_printf("k8s-notify, run as uid %u, says: %s (sriov-persistd runs it "
				     "as root: check as root says what it will say)",
				     (unsigned)geteuid(), j.error);
	} else if (j.retryable) {
		level = DIAG_WARNING;
		said = strdup_printf("k8s-notify cannot read the credentials now: %s", j.error);
	} else
		said = strdup_printf("k8s-notify says: %s (so no node can be drained, and a "
				     "disruptive change would wait for good)",
				     j.error);
	k8s_judgement_done(&j);
	return said ? credentials_said(conf, level, said, diags) : -ENOMEM;
}
