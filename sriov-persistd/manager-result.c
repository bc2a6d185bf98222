/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* What an apply's result of one PF tells: its code for the observers, its
 * journal line, and what Apply() and Reset() reply about it. */

#include <syslog.h>

#include "log.h"
#include "manager-result.h"

int apply_result_code(const struct apply_pf_result *res)
{
	switch (res->status.state) {
	case PF_STATUS_APPLIED:
		return 0;
	case PF_STATUS_HELD:
		return -EINVAL;
	case PF_STATUS_DEFERRED:
		return -EBUSY;
	case PF_STATUS_DEGRADED:
		return -EOPNOTSUPP;
	case PF_STATUS_FAILED:
	case _PF_STATUS_STATE_MAX:
	case _PF_STATUS_STATE_INVALID:
		break;
	}
	return -EIO;
}

static void log_outcome(const struct apply_pf_result *res, const char *also)
{
	const struct pf_status *st = &res->status;
	int prio = st->state == PF_STATUS_APPLIED ? LOG_INFO : LOG_WARNING;

	if (st->state == PF_STATUS_APPLIED && !res->changed)
		return;
	if (!res->configured && st->state == PF_STATUS_APPLIED) {
		log_pf(prio, st->pci,
		       "%s%s%s%s: reset: removed what sriov-persist created (%u action(s))",
		       st->pci, st->name ? " (" : "", strempty(st->name), st->name ? ")" : "",
		       st->n_actions);
		return;
	}
	/* the VFs that exist configured, the others another tool has yet to make */
	if (st->state == PF_STATUS_APPLIED && st->waiting && st->waiting[0]) {
		log_pf(prio, st->pci, "%s%s%s%s: pending after %u action(s): %s%s%s", st->pci,
		       st->name ? " (" : "", strempty(st->name), st->name ? ")" : "", st->n_actions,
		       st->waiting[0], also ? "; " : "", strempty(also));
		return;
	}
	/* what is left waits for a reboot: the PF is pending, not applied */
	if (st->state == PF_STATUS_APPLIED && st->reboot_reasons && st->reboot_reasons[0]) {
		_cleanup_free_ char *why = strv_join(st->reboot_reasons, "; ");

		log_pf(LOG_WARNING, st->pci,
		       "%s%s%s%s: pending a reboot after %u action(s): %s%s%s", st->pci,
		       st->name ? " (" : "", strempty(st->name), st->name ? ")" : "", st->n_actions,
		       strna(why), also ? "; " : "", strempty(also));
		return;
	}
	log_pf(prio, st->pci, "%s%s%s%s: %s after %u action(s)%s%s%s%s", st->pci,
	       st->name ? " (" : "", strempty(st->name), st->name ? ")" : "",
	       pf_status_state_to_string(st->state), st->n_actions, st->error ? ": " : "",
	       strempty(st->error), also ? "; " : "", strempty(also));
}

char *apply_result_drift_repaired(const struct apply_pf_result *res, char **drift,
				  const char *report_at, bool reload)
{
	_cleanup_strv_free_ char **done = NULL;
	_cleanup_free_ char *list = NULL;

	if (!drift || !drift[0] || !res->configured || !res->changed ||
	    res->status.state != PF_STATUS_APPLIED)
		return NULL;
	done = plan_drift_repaired(drift);
	list = done ? strv_join(done, "; ") : NULL;
	if (!list)
		return NULL;
	return strdup_printf("%s also repaired the drift that [Drift] Mode=report%s%s had left: %s",
			     reload ? "the apply of its changed layout" : "the apply",
			     report_at && report_at[0] ? " in " : "", strempty(report_at), list);
}

char *apply_result_changed_repaired(const struct apply_pf_result *res, char **changed_from)
{
	_cleanup_strv_free_ char **done = NULL;
	_cleanup_free_ char *list = NULL;

	if (!changed_from || !changed_from[0] || !res->configured || !res->changed ||
	    res->status.state != PF_STATUS_APPLIED)
		return NULL;
	done = plan_drift_repaired(changed_from);
	list = done ? strv_join(done, "; ") : NULL;
	if (!list)
		return NULL;
	return strdup_printf("its layout changed since its last apply: the apply repaired all "
			     "that differed from it, any drift since that apply too: %s",
			     list);
}

void apply_result_log(const struct apply_pf_result *res, const char *also)
{
	const struct pf_status *st = &res->status;

	log_outcome(res, also);
	/* what VFs made anew lost that no layout sets: said once, here */
	for (char **d = res->dropped; d && *d; d++)
		log_pf(LOG_WARNING, st->pci, "%s%s%s%s: %s", st->pci, st->name ? " (" : "",
		       strempty(st->name), st->name ? ")" : "", *d);
	/* [Disruption] Policy=drain where Kubernetes is not enabled: said as
	 * sriovctl apply says it */
	if (res->without_drain && res->changed && st->state != PF_STATUS_DEFERRED)
		log_pf(LOG_NOTICE, st->pci,
		       "%s%s%s%s: the disruptive change ran without a drain ([Disruption] "
		       "Policy=drain): %s",
		       st->pci, st->name ? " (" : "", strempty(st->name), st->name ? ")" : "",
		       res->without_drain);
}

/* Added to out->failed, when there is an out: "PCI: why" for a reset,
 * "PCI: state: why" for an apply (held, failed, deferred or degraded). */
int asked_add_failed(struct asked *out, const struct apply_pf_result *pr, bool reset)
{
	const struct pf_status *st = &pr->status;

	if (!out)
		return 0;
	if (reset)
		return strv_consume(&out->failed,
				    strdup_printf("%s: %s", st->pci, strna(st->error)));
	return strv_consume(&out->failed, strdup_printf("%s: %s: %s", st->pci,
							strna(pf_status_state_to_string(st->state)),
							strna(st->error)));
}

int asked_add_reset(struct asked *out, const struct asked_reset *one)
{
	struct asked_reset *n = reallocarray(out->reset, out->n_reset + 1, sizeof(*n));

	if (!n)
		return -ENOMEM;
	out->reset = n;
	out->reset[out->n_reset++] = *one;
	return 0;
}

/* A reset that changed the PF, for Reset()'s reply. -ENOMEM. */
int asked_note_reset(struct asked *out, const struct apply_pf_result *pr)
{
	struct asked_reset one = { .n_actions = pr->status.n_actions,
				   .num_vfs = pr->status.num_vfs,
				   .eswitch_kept = pr->eswitch_kept };

	if (!out || !pr->changed)
		return 0;
	snprintf(one.pci, sizeof(one.pci), "%s", pr->status.pci);
	return asked_add_reset(out, &one);
}
