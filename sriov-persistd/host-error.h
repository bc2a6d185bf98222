/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* A read of the host that failed (sysfs EIO, a PF mid-removal, a simulated
 * host that does not parse): the daemon keeps what it read last, is
 * degraded and says why until a read works again (host-error.c). */

#include <systemd/sd-bus.h>

#include "json-util.h"
#include "manager.h"

/* What waits for the host while a reload does: HOST_ERROR_WAITS, or
 * HOST_ERROR_RELOAD_WAITS of a reload that changes no layout; NULL when
 * no reload waits. */
const char *manager_reload_waits_why(const struct manager *m);

/* The result r of reading the host (m->host->error has the details of a
 * failure): a failure is logged when it is new and kept in m->host_error;
 * a read that works ends it. Updates the summary when either changes. */
void manager_host_read(struct manager *m, int r);

#define HOST_ERROR_WAITS "the layout change waits until the host can be read"
#define HOST_ERROR_RELOAD_WAITS "the reload waits until the host can be read"
#define HOST_ERROR_APPLY_WAITS "applying waits until the host can be read"

/* A call's error r while doing ("Applying", "Resetting", "Reading the
 * host") into error, "<doing> failed: ...": with what m->host_error says when
 * r is that failed read of the host, and that a layout change waits for it.
 * Returns what sd_bus_error_set_errnof() returns (r). */
int manager_host_error_set(const struct manager *m, sd_bus_error *error, const char *doing, int r);

/* Plan()'s additions to the plan document doc: the PFs applied in this boot
 * and gone from the host, and, while the host cannot be read, host_error (as
 * GetStatus()'s daemon has it; the PFs are then as read last). */
int manager_plan_add(const struct manager *m, struct json_object *doc);
