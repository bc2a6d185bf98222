/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "unselected-state.h"
#include "deferred-drift.h"
#include "manager-summary.h"
#include "report.h"

int unselected_state(struct pf_entry *e, const struct layout_set *set, const char *left,
		     bool disruptive, const struct pf_status *rec)
{
	_cleanup_free_ char *lifted = NULL;

	if (rec && report_reset_deferral_lifted(set, rec, disruptive, NULL, &lifted) < 0)
		return -ENOMEM;
	e->state = decide_unconfigured(left != NULL, rec != NULL,
				       rec ? rec->state : PF_STATUS_APPLIED,
				       rec && !rec->config_files[0] && rec->error, lifted != NULL);
	if (e->state != PF_RUN_PENDING)
		return free_and_strdup(&e->last_error,
				       e->state == PF_RUN_UNCONFIGURED ? left : rec->error);
	/* what is left, and what runs the reset */
	free(e->last_error);
	e->last_error = strdup_printf("%s; %s", left, lifted);
	return e->last_error ? 0 : -ENOMEM;
}

/* No layout selects the PF: nothing to do, whatever it has. What a removed
 * layout left there is said, and stays until a reset; a reset that waits
 * for the policy or failed says so instead, as sriovctl status does
 * (unselected_state()). */
int unselected_check(struct manager *m, struct pf_entry *e, const struct pf_state *pf)
{
	_cleanup_free_ char *left = NULL;
	struct pf_status st = {};
	bool has_record, disruptive = true;
	struct pf_created c;
	int r, k;

	e->resources_wanted = strv_free(e->resources_wanted);
	r = pf_created_left(m->state_dir, pf, &c);
	if (r > 0 && !(left = pf_created_describe(&c)))
		return -ENOMEM;
	has_record = pf_status_read(m->runtime_dir, e->pci, &st) >= 0;
	/* a deferred reset's: what is left as status says it (gone too), and
	 * whether it still needs a disruptive change */
	if (has_record && st.reset && st.state == PF_STATUS_DEFERRED) {
		left = mfree(left);
		if (report_unconfigured_left(m->state_dir, pf, &left, &disruptive) < 0) {
			pf_status_done(&st);
			return -ENOMEM;
		}
	}
	/* what an apply raised in firmware stays pending until the reboot,
	 * whatever the layouts say */
	if (manager_unasked_reasons(m, e, pf, has_record ? &st : NULL) < 0) {
		if (has_record)
			pf_status_done(&st);
		return -ENOMEM;
	}
	k = unselected_state(e, m->set, left, disruptive, has_record ? &st : NULL);
	if (has_record)
		pf_status_done(&st);
	if (k < 0)
		return k;
	if (r == 0) /* no VF of ours left: no pod of ours uses one */
		e->resources_running = strv_free(e->resources_running);
	e->drift = strv_free(e->drift);
	e->deferred_base = deferred_base_free(e->deferred_base);
	e->given_up = mfree(e->given_up);
	return 0;
}
