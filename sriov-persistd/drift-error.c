/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "drift-error.h"
#include "report-edited.h"

void drift_last_error(struct pf_entry *e, const struct pf_verdict *v, const struct layout_set *set,
		      const struct plan *p, const char *module, bool has_record,
		      const char *record_error)
{
	_cleanup_free_ char *why = NULL;

	if (!has_record) {
		/* never applied: with Mode=report, what applies it */
		const char *text = e->lost ? report_not_applied_appeared(set, p->pci, NULL, &why) :
					     report_not_applied(set, p, NULL, &why);

		(void)free_and_strdup(&e->last_error, set->drift_report_at[0] ? text : NULL);
		return;
	}
	if (!v->drifted || v->state != PF_RUN_DRIFTED) {
		(void)free_and_strdup(&e->last_error, record_error);
		return;
	}
	if (v->module_missing)
		why = strdup_printf(
			"module %s is not loaded (removed by hand?): not loaded again on "
			"its own; sriovctl apply loads it",
			strna(module));
	else if (!v->apply && report_drift_kept(set, p, NULL, &why) < 0)
		why = NULL;
	(void)free_and_strdup(&e->last_error, why);
}
