/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "unselected-state.h"
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
