/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* An operation a stop or crash interrupted, undone at start (k8s-recover.c):
 * what waits for it is started again next, as the policy is now. */

#include "k8s-internal.h"
#include "manager-check.h"

/* Whether e waits: deferred, or (no layout selects it) its reset was
 * deferred by a policy that lets it run now, which shows it pending. */
static bool waits(const struct pf_entry *e)
{
	return e && (e->state == PF_RUN_DEFERRED ||
		     (e->state == PF_RUN_PENDING && strv_length(e->config_files) == 0));
}

/* One PF of an interrupted drain, undone, as the first check left it: what
 * the journal says of it, added to again (what the drain starts again for)
 * or to others (why it does not). A PF deferred again for a drain waits for
 * the drain that starts next. A reset that waited for it (deferred, and no
 * layout selects the PF: its record is the reset's) is run again under the
 * policy as it is now, unless [Drift] Mode=report, which changes nothing at
 * start. One that the first check did not run again for that reason (or
 * whose reset failed) and is still deferred for the drain is given up, as
 * a drain that failed: its reason names what starts it. One deferred again
 * by the policy as it is now, with no drain, keeps that reason. */
static int resume_pf(struct manager *m, const char *pci, char ***again, char ***others)
{
	struct pf_entry *e = manager_find_entry(m, pci);
	bool report = m->conf.drift_mode == DRIFT_MODE_REPORT;
	bool reset = waits(e) && strv_length(e->config_files) == 0;
	_cleanup_free_ char *why = NULL;
	int r = 0;

	if (reset && !report) {
		e->reset_wanted = true;
		r = manager_apply_wanted(m, pci, false);
		e = manager_find_entry(m, pci);
	}
	if (strv_contains(m->k8s->drain_wanted, pci))
		return strv_consume(again,
				    strdup_printf("the %s of %s", reset ? "reset" : "apply", pci));
	if (waits(e) && (report || r < 0)) {
		why = strdup_printf("drain interrupted (the daemon stopped during it) and undone; "
				    "not started again on its own: sriovctl %s %s starts it again",
				    reset ? "reset" : "apply", pci);
		if (!why)
			return -ENOMEM;
		manager_pf_failed(m, pci, why);
		return strv_consume(others,
				    strdup_printf("%s stays deferred (%s): sriovctl %s %s "
						  "starts it again",
						  pci,
						  report ? "[Drift] Mode=report changes nothing "
							   "at start" :
							   "resetting it again failed",
						  reset ? "reset" : "apply", pci));
	}
	/* run again at start, and the policy as it is now wants no drain for
	 * it: what that run left (deferred, its reason) stands */
	if (e && (reset || e->state == PF_RUN_DEFERRED))
		return strv_consume(
			others, strdup_printf("the %s of %s ran again, with no drain under the "
					      "policy as it is now: %s%s%s",
					      reset ? "reset" : "apply", pci,
					      pf_run_state_to_string(e->state),
					      e->last_error ? ": " : "", strempty(e->last_error)));
	return strv_consume(others, strdup_printf("%s no longer waits for it: %s", pci,
						  e ? pf_run_state_to_string(e->state) : "gone"));
}

char *k8s_resume(struct manager *m, const struct operation *op)
{
	_cleanup_strv_free_ char **again = NULL, **others = NULL;
	_cleanup_free_ char *list = NULL, *rest = NULL;

	if (op->kind == OP_KIND_REBOOT)
		return strdup(m->k8s->reboot_wanted ?
				      "starting it again" :
				      "not started again: the first look found no reboot due");
	for (char **p = op->pfs; p && *p; p++)
		if (resume_pf(m, *p, &again, &others) < 0)
			return NULL;
	if (again && !(list = strv_join(again, ", ")))
		return NULL;
	if (others && !(rest = strv_join(others, "; ")))
		return NULL;
	if (!again && !others)
		return strdup("no PF waits for it");
	return strdup_printf("%s%s%s%s%s", again ? "starting it again for " : "", strempty(list),
			     again && others ? "; " : "", others ? "not started again: " : "",
			     strempty(rest));
}
