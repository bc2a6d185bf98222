/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* Whether k8s-notify takes the Kubernetes credentials, in its own words:
 * its "credentials" verb, which reads them as every run does and sends no
 * request. Which kubeconfig it reads, whether that holds a token (a YAML
 * question: the current-context's user) and what it then refuses is
 * k8s-notify's alone; sriovctl does not link libyaml, and a guess at its
 * rules would pass what it refuses. */

#include <json-c/json.h>
#include <unistd.h>

#include "json-util.h"
#include "run-tool.h"
#include "sriovctl.h"

extern char **environ;

#define K8S_NOTIFY_DEFAULT LIBEXECDIR "/sriov-persist/k8s-notify"
#define K8S_JUDGE_TIMEOUT (30 * USEC_PER_SEC)
#define K8S_JUDGE_OUT_MAX (64u << 10)

const char *ctl_k8s_notify_path(const struct ctl *c)
{
	return c->k8s_notify ?: K8S_NOTIFY_DEFAULT;
}

/* Its "error" and "retryable" from the JSON result; -EBADMSG when there is
 * no such result. */
static int judge_parse(const char *out, struct k8s_judgement *ret)
{
	_cleanup_json_ struct json_object *o = json_tokener_parse(out);
	struct json_object *ok, *error, *retryable;

	if (!o || !json_object_object_get_ex(o, "ok", &ok))
		return -EBADMSG;
	if (json_object_get_boolean(ok))
		return 0;
	if (!json_object_object_get_ex(o, "error", &error) ||
	    !json_object_is_type(error, json_type_string))
		return -EBADMSG;
	ret->error = strdup(json_object_get_string(error));
	if (!ret->error)
		return -ENOMEM;
	ret->retryable = json_object_object_get_ex(o, "retryable", &retryable) &&
			 json_object_get_boolean(retryable);
	return 0;
}

static int judge_run(const struct ctl *c, const char *main_config, struct k8s_judgement *ret)
{
	const char *path = ctl_k8s_notify_path(c);
	char *argv[] = { (char *)path,	      "--quiet-unreachable", "--main-config",
			 (char *)main_config, "credentials",	     NULL };
	struct tool_run_options o = { .env = environ, .max_err = 4096 };
	struct tool_run t = {};
	int r;

	if (!main_config) /* its default main configuration, as the daemon's runs */
		memmove(&argv[2], &argv[4], 2 * sizeof(char *));
	r = tool_run_with(argv, &o, K8S_JUDGE_TIMEOUT, K8S_JUDGE_OUT_MAX, &t);
	if (r >= 0)
		r = judge_parse(t.out, ret);
	if (r == -EBADMSG)
		ret->error = strdup_printf("%s credentials gave no result (exit status %d)", path,
					   t.exit_status);
	else if (r < 0 && r != -ENOMEM)
		ret->error = strdup_printf("cannot run %s: %s", path, strerror(-r));
	tool_run_done(&t);
	if (r < 0 && r != -ENOMEM)
		r = ret->error ? 0 : -ENOMEM;
	return r;
}

int ctl_k8s_judge(const struct ctl *c, const char *main_config, const struct mainconf *conf,
		  struct k8s_judgement *ret)
{
	const char *path = ctl_k8s_notify_path(c);

	*ret = (struct k8s_judgement){};
	/* the files of another root: not this k8s-notify's to read */
	if (!mainconf_kubernetes_enabled(conf) || c->root)
		return 0;
	if (access(path, X_OK) < 0) {
		ret->error = strdup_printf("Kubernetes is enabled but k8s-notify is not "
					   "installed (%s): install sriov-persist-k8s",
					   path);
		ret->not_installed = true;
		return ret->error ? 0 : -ENOMEM;
	}
	return judge_run(c, main_config, ret);
}

int ctl_check_credentials(const struct ctl *c, const char *main_config, const struct mainconf *conf,
			  struct diag_list *diags)
{
	struct k8s_judgement j;
	int r;

	r = ctl_k8s_judge(c, main_config, conf, &j);
	if (r < 0 || !j.error)
		return r;
	if (j.not_installed)
		r = diag_add(diags, DIAG_ERROR, NULL, 0, "[Kubernetes] Enabled=: %s", j.error);
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

void k8s_judgement_done(struct k8s_judgement *j)
{
	j->error = mfree(j->error);
}

/* Asked once, at the first PF that waits for a drain. A refusal that
 * k8s-notify says running again may cure is none: the drain may run then. */
int ctl_drain_refusal(void *userdata, const char **ret)
{
	struct ctl_drain *d = userdata;
	int r;

	if (!d->judged) {
		r = ctl_k8s_judge(d->c, d->c->main_config, d->conf, &d->judgement);
		if (r < 0)
			return r;
		d->judged = true;
		if (d->judgement.error && !d->judgement.retryable)
			d->refusal =
				d->judgement.not_installed ?
					strdup(d->judgement.error) :
					strdup_printf("k8s-notify says: %s", d->judgement.error);
		if (d->judgement.error && !d->judgement.retryable && !d->refusal)
			return -ENOMEM;
	}
	*ret = d->refusal;
	return 0;
}

void ctl_drain_done(struct ctl_drain *d)
{
	k8s_judgement_done(&d->judgement);
	d->refusal = mfree(d->refusal);
}
