/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* A PF's result as an apply or reset goes: its state and why, the clock it
 * is stamped with, and whether the disruption policy lets a change run. */

#include <unistd.h>

#include "apply-internal.h"
#include "k8s-judge.h"
#include "secret-file.h"

usec_t apply_now(const struct pf_run *run)
{
	return run->opts->now ? run->opts->now() : now_realtime();
}

int apply_set_outcome(struct apply_pf_result *res, enum pf_status_state state, char *error)
{
	if (state != PF_STATUS_APPLIED && !error)
		return -ENOMEM;
	res->status.state = state;
	free(res->status.error);
	res->status.error = error;
	if (state != PF_STATUS_DEFERRED)
		res->status.deferred_by = mfree(res->status.deferred_by);
	return 0;
}

/* The PF failed: nothing more is tried on it. */
bool apply_failed(const struct pf_run *run)
{
	return run->res->status.state == PF_STATUS_FAILED;
}

/* Applied (and waiting, when VFs another tool makes are missing), or
 * degraded when the host lacks what the layout needs. */
int apply_set_unmet(struct apply_pf_result *res, const struct plan *p)
{
	strv_free(res->status.waiting);
	res->status.waiting = strv_copy(p->waiting);
	if (!res->status.waiting)
		return -ENOMEM;
	if (!p->unmet[0])
		return apply_set_outcome(res, PF_STATUS_APPLIED, NULL);
	return apply_set_outcome(res, PF_STATUS_DEGRADED, strv_join(p->unmet, "; "));
}

char *apply_action_error(struct host *h, const struct action *a, int r)
{
	_cleanup_free_ char *what = action_describe(a);

	if (h->error[0])
		return strdup_printf("%s failed: %s (%s)", strna(what), strerror(-r), h->error);
	return strdup_printf("%s failed: %s", strna(what), strerror(-r));
}

/* Who runs the drain: sriov-persistd, and whether it runs for this host
 * when the caller knows (apply_options.drain_daemon), with how to start
 * one: systemctl starts this machine's, never one for a simulated host or
 * other layouts. */
static char *drain_runner(const struct apply_options *o, const char *wait)
{
	if (!o->drain_daemon || o->drain_daemon(o->drain_daemon_userdata) != 0)
		return strdup_printf("%ssriov-persistd does", wait);
	if (o->drain_daemon_command)
		return strdup_printf("%sonly sriov-persistd does, and none runs for this host: "
				     "nothing drains until one does (start one for it: %s; see "
				     "sriov-persistd(8)), or [Disruption] Policy=immediate applies "
				     "without a drain",
				     wait, o->drain_daemon_command);
	return strdup_printf("%sonly sriov-persistd does, and it does not run for this host: "
			     "nothing drains until it does (systemctl start sriov-persistd), or "
			     "[Disruption] Policy=immediate applies without a drain",
			     wait);
}

static const char drain_wait[] = "disruptive changes wait for a drain of this node through "
				 "Kubernetes ([Disruption] Policy=drain), which ";

/* Of the kubeconfig's owner and mode, why the drain cannot run; NULL when
 * they do not say so. */
static int drain_refused_file(const struct mainconf *c, char **ret)
{
	char why[SECRET_REFUSAL_MAX];
	int r;

	*ret = NULL;
	r = mainconf_credentials_refusal(c, why, sizeof(why));
	if (r != -EPERM && r != -EBADFD)
		return 0;
	*ret = strdup_printf("%scannot run: %s%s", drain_wait, r == -EPERM ? "k8s-notify is " : "",
			     why);
	return *ret ? 0 : -ENOMEM;
}

int apply_drain_cannot_run(const struct mainconf *c, const char *k8s_notify, char **ret)
{
	_cleanup_free_ char *missing = NULL;

	*ret = NULL;
	if (c->disruption_policy != DISRUPTION_POLICY_DRAIN || !mainconf_kubernetes_enabled(c))
		return 0;
	if (k8s_notify && access(k8s_notify, X_OK) < 0) {
		missing = k8s_not_installed(k8s_notify);
		*ret = missing ? strdup_printf("%scannot run: %s", drain_wait, missing) : NULL;
		return *ret ? 0 : -ENOMEM;
	}
	return drain_refused_file(c, ret);
}

/* The drain's reason, and why it cannot run when k8s-notify refuses the
 * credentials (sriovctl check says so too). */
static char *drain_reason(const struct apply_options *o)
{
	const char *wait = drain_wait, *refusal = NULL;
	char *why;

	if (o->drain_refusal) {
		if (o->drain_refusal(o->drain_userdata, &refusal) < 0)
			return NULL;
		if (refusal)
			return strdup_printf("%scannot run: %s", wait, refusal);
		return drain_runner(o, wait);
	}
	if (drain_refused_file(o->conf, &why) < 0)
		return NULL;
	return why ?: drain_runner(o, wait);
}

/* Puts the policy that defers the PF on its record, so that status can tell
 * when the main configuration's policy no longer does (report.h); on
 * ENOMEM it goes unsaid, and the PF stays deferred. */
static void note_deferred_by(const struct pf_run *run, enum disruption_policy p)
{
	free(run->res->status.deferred_by);
	run->res->status.deferred_by = strdup(disruption_policy_to_string(p));
}

/* Why disruptive changes may not run now, or NULL when they may. */
char *apply_hold_reason(const struct pf_run *run)
{
	const struct mainconf *c = run->opts->conf;

	if (run->opts->allow_disruptive)
		return NULL;
	if (c->disruption_policy == DISRUPTION_POLICY_NEVER) {
		char why[PATH_MAX + 256];

		note_deferred_by(run, c->disruption_policy);
		mainconf_never_reason(c, why, sizeof(why));
		return strdup(why);
	}
	if (c->disruption_policy == DISRUPTION_POLICY_DRAIN && mainconf_kubernetes_enabled(c)) {
		run->res->needs_drain = true;
		note_deferred_by(run, c->disruption_policy);
		return drain_reason(run->opts);
	}
	/* Policy=immediate, or drain where Kubernetes is not enabled: there is
	 * nothing to drain, so drain behaves as immediate. */
	return NULL;
}

int apply_status_init(struct pf_status *st, const struct pf_state *pf)
{
	snprintf(st->pci, sizeof(st->pci), "%s", pf->pci);
	st->name = pf->name ? strdup(pf->name) : NULL;
	st->reboot_reasons = calloc(1, sizeof(char *));
	st->config_files = calloc(1, sizeof(char *));
	st->waiting = calloc(1, sizeof(char *));
	if ((pf->name && !st->name) || !st->reboot_reasons || !st->config_files || !st->waiting)
		return -ENOMEM;
	return 0;
}
