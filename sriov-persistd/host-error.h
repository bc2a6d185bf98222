/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* A read of the host that failed (sysfs EIO, a PF mid-removal, a simulated
 * host that does not parse): the daemon keeps what it read last, is
 * degraded and says why until a read works again (host-error.c). */

#include "manager.h"

/* The result r of reading the host (m->host->error has the details of a
 * failure): a failure is logged when it is new and kept in m->host_error;
 * a read that works ends it. Updates the summary when either changes. */
void manager_host_read(struct manager *m, int r);
