/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* k8s-notify as a child process whose JSON result comes back through the
 * event loop (k8s-run.c); never a shell. */

#include <json-c/json.h>

#include "manager.h"

typedef void (*k8s_done_t)(struct manager *m, int exit_status, struct json_object *result,
			   void *userdata);
/* Runs k8s-notify VERB ARGS... (verb_args NULL-terminated); done gets its exit
 * status (or -errno) and its JSON result (NULL when there was none). */
int k8s_run(struct manager *m, char **verb_args, k8s_done_t done, void *userdata);
