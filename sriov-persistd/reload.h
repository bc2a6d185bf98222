/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Reloading the configuration (reload.c). A reload that read the layouts
 * but could not read the host is not lost: it waits (m->reload_waits), the
 * daemon degraded and saying why, and is finished at the next look (an
 * event) or by its own retry, paced from RELOAD_RETRY_MIN_USEC doubling up
 * to RELOAD_RETRY_MAX_USEC, until the host can be read; then the layouts
 * are applied as any layout change is. */

#include "manager.h"

#define RELOAD_RETRY_MIN_USEC (1 * USEC_PER_SEC)
#define RELOAD_RETRY_MAX_USEC (60 * USEC_PER_SEC)

/* Reads the main configuration and layouts again, then the host, then
 * applies all. */
int manager_reload(struct manager *m);

/* A reload that waits for the host: tried again now. 0 when none waits. */
int manager_reload_retry(struct manager *m);

/* What a failed manager_reload() (r) says to whoever asked for it:
 * "Reloading failed: ...". */
const char *manager_reload_why(const struct manager *m, int r);
