/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* k8s-notify as a child process whose JSON result comes back through the
 * event loop (k8s-run.c); never a shell. */

#include "manager.h"
#include "operation.h"

typedef void (*k8s_done_t)(struct manager *m, int exit_status, const struct step_result *result,
			   void *userdata);
/* Runs k8s-notify VERB ARGS... (verb_args NULL-terminated); done gets its exit
 * status (or -errno) and what its JSON result says (empty when there was
 * none). A run that exits 0 without a result that parses counts as failed
 * (exit status 1). */
int k8s_run(struct manager *m, char **verb_args, k8s_done_t done, void *userdata);
