/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* At start: what an earlier run of the daemon left (operation.json). A
 * drain interrupted before it applied (the daemon was stopped or crashed)
 * is undone and then started again, as if its PFs had just been deferred,
 * and so is a reboot interrupted before it asked logind; a coordinated
 * reboot is finished after the boot; a reboot that failed
 * (kept in given-up.json by the daemon that stopped) is not tried again. */

#include <syslog.h>

#include "k8s-internal.h"
#include "k8s-record.h"

/* An interrupted drain that had not applied yet: its PFs wait for it still.
 * One that failed is past its drain step (undoing it) when recorded. */
static bool drain_to_resume(const struct operation *op)
{
	return op->kind == OP_KIND_DRAIN && op->step <= OP_STEP_APPLY;
}

/* A reboot interrupted before it asked logind (at its lease or drain step):
 * not made, and not failed either. */
static bool reboot_to_resume(const struct operation *op)
{
	return op->kind == OP_KIND_REBOOT && op->step < OP_STEP_REBOOT;
}

/* Before the first check: what an earlier run recorded (operation.json),
 * and what it must not start again. */
void k8s_load(struct manager *m)
{
	struct operation *op = NULL;

	m->k8s->starting = true;
	if (m->reboot_failed) {
		/* the reboot for these reasons failed before the restart: not tried
		 * again by it (Apply() does) */
		_cleanup_strv_free_ char **reasons = manager_reboot_reasons(m);

		free(m->k8s->reboot_tried);
		m->k8s->reboot_tried = reasons && reasons[0] ? strv_join(reasons, "\n") : NULL;
	}
	if (k8s_record_load(m->state_dir, &op) < 0)
		return;
	m->k8s->op_saved = op;
	if (reboot_to_resume(op))
		/* the first check finds the reboot due again, made after the undo */
		op->resume = true;
	else if (op->kind == OP_KIND_REBOOT && op->reasons) {
		/* what it rebooted for: not again for the same, if the reboot did not help */
		free(m->k8s->reboot_tried);
		m->k8s->reboot_tried = strdup(op->reasons);
	}
	if (drain_to_resume(op)) {
		/* its PFs are applied again by the first check (deferred again, they
		 * want the drain), not kept as given up by the daemon that stopped */
		op->resume = true;
		for (char **p = op->pfs; p && *p; p++) {
			struct pf_entry *e = manager_find_entry(m, *p);

			if (e)
				e->given_up = mfree(e->given_up);
		}
	}
}

/* After it: finish or undo that, or lift a cordon a crash left. */
void k8s_start(struct manager *m)
{
	bool k8s = mainconf_kubernetes_enabled(&m->conf);
	struct operation *op = TAKE_PTR(m->k8s->op_saved);
	_cleanup_free_ char *title = NULL;

	m->k8s->starting = false;
	if (k8s)
		k8s_credentials_watch(&m->k8s->api);
	if (!op) {
		/* a cordon of ours with no record of why: a crash between the two */
		if (k8s)
			(void)k8s_op_start_full(m, OP_KIND_RECOVER, OP_STEP_UNCORDON, NULL, false,
						true);
		else
			k8s_next(m);
		return;
	}
	m->k8s->op = op;
	m->operation = operation_manager_state(op);
	if (op->kind == OP_KIND_REBOOT && op->step == OP_STEP_REBOOT &&
	    streq(op->boot_id, manager_boot_id(m))) {
		log_msg(LOG_NOTICE,
			"The reboot recorded in %s/" K8S_RECORD_FILE " has not happened",
			m->state_dir);
		k8s_op_run_step(m);
		return;
	}
	if (op->kind == OP_KIND_REBOOT && op->step == OP_STEP_REBOOT)
		log_msg(LOG_INFO, "Rebooted for the pending reboot reasons%s",
			k8s ? "; lifting the cordon" : "");
	else {
		log_msg(LOG_NOTICE, "%s was interrupted at %s; undoing it%s",
			k8s_op_title(m, op, &title), op_step_to_string(op->step),
			!op->resume		   ? "" :
			op->kind == OP_KIND_REBOOT ? ", then starting it again" :
						     ", then starting it again for the PFs that "
						     "still wait for it");
		op->interrupted = true;
	}
	op->drained = true; /* k8s-notify uncordon lifts only a cordon of ours */
	/* interrupted while taking a slot: one may be ours without our knowing */
	op->lease_unknown = op->step == OP_STEP_LEASE && !op->slot;
	k8s_op_set_step(m, k8s ? OP_STEP_UNCORDON : OP_STEP_DONE);
	k8s_op_run_step(m);
}
