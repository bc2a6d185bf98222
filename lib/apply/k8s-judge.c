/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* k8s-notify's "credentials" verb run as the daemon runs it (its
 * environment: in a pod, KUBERNETES_SERVICE_HOST), its JSON result read. */

#include <json-c/json.h>
#include <unistd.h>

#include "json-util.h"
#include "k8s-judge.h"
#include "run-tool.h"

extern char **environ;

#define K8S_JUDGE_TIMEOUT (30 * USEC_PER_SEC)
#define K8S_JUDGE_OUT_MAX (64u << 10)

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

static int judge_run(const char *path, const char *main_config, struct k8s_judgement *ret)
{
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
	else if (r < 0 && r != -ENOMEM) {
		ret->error = strdup_printf("cannot run %s: %s", path, strerror(-r));
		ret->retryable = r == -ETIMEDOUT; /* an exec plugin that hangs now */
	}
	tool_run_done(&t);
	if (r < 0 && r != -ENOMEM)
		r = ret->error ? 0 : -ENOMEM;
	return r;
}

int k8s_judge(const char *path, const char *main_config, const struct mainconf *conf,
	      struct k8s_judgement *ret)
{
	*ret = (struct k8s_judgement){};
	if (!mainconf_kubernetes_enabled(conf))
		return 0;
	if (access(path, X_OK) < 0) {
		ret->error = k8s_not_installed(path);
		ret->not_installed = true;
		return ret->error ? 0 : -ENOMEM;
	}
	return judge_run(path, main_config, ret);
}

char *k8s_not_installed(const char *path)
{
	return strdup_printf("Kubernetes is enabled but k8s-notify is not installed (%s): "
			     "install sriov-persist-k8s",
			     path);
}

void k8s_judgement_done(struct k8s_judgement *j)
{
	j->error = mfree(j->error);
}

int k8s_drain_refusal(void *userdata, const char **ret)
{
	struct k8s_drain_judge *d = userdata;
	int r;

	if (!d->judged) {
		r = k8s_judge(d->k8s_notify, d->main_config, d->conf, &d->judgement);
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

void k8s_drain_judge_done(struct k8s_drain_judge *d)
{
	k8s_judgement_done(&d->judgement);
	d->refusal = mfree(d->refusal);
}
