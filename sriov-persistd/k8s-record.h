/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* <state>/operation.json: a drain or reboot under way, recorded at each
 * step so that a daemon that crashed, or the boot after the reboot, knows
 * what to undo (operation.c formats and parses it). */

#include "operation.h"

#define K8S_RECORD_FILE "operation.json"

int k8s_record_save(const char *state_dir, const struct operation *op);
void k8s_record_forget(const char *state_dir);
/* The recorded operation, or -ENOENT (also for a record that cannot be
 * read or does not parse, with a warning). */
int k8s_record_load(const char *state_dir, struct operation **ret);
