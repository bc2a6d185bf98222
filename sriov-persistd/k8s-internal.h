/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* What k8s.c shares with the other files of its module (k8s-recover.c, k8s-resume.c):
 * the steps of the operation under way, and what starts the next one. */

#include "k8s.h"

/* The operation as the journal names it: "Kubernetes drain", and "Reboot
 * for the pending reboot reasons" for one without Kubernetes. *buf is
 * owned by the caller. */
const char *k8s_op_title(const struct manager *m, const struct operation *op, char **buf);
/* Records the step (operation.json) and publishes it. */
void k8s_op_set_step(struct manager *m, enum op_step step);
/* Runs the step the operation is at; at OP_STEP_DONE it ends. */
void k8s_op_run_step(struct manager *m);
int k8s_op_start_full(struct manager *m, enum op_kind kind, enum op_step step, char **pfs,
		      bool lease_unknown, bool cordon_unknown);
/* An interrupted operation (op->resume), undone, before it ends: the PFs of
 * a drain as the first check left them, deferred again for the drain that
 * starts next, a reset that waited for it run again, or given up with what
 * starts it; a reboot the first check found due. Returns what the journal
 * says of it ("starting it again for the reset of PCI", "not started again:
 * ..."), NULL on ENOMEM. (k8s-resume.c) */
char *k8s_resume(struct manager *m, const struct operation *op);
/* Starts what is waiting, when nothing runs. */
void k8s_next(struct manager *m);
