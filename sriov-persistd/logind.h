/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The one thing the daemon asks of systemd-logind: a reboot. */

#include <systemd/sd-bus.h>

/* 0 or -errno, and logind's message when it refused. */
typedef void (*logind_done_t)(void *userdata, int r, const char *error);

/* Asks logind to reboot (org.freedesktop.login1.Manager.Reboot, not
 * interactive); done gets its answer from the event loop, or at once when
 * the request cannot be sent (bus NULL: -ENOTCONN). */
void logind_reboot(sd_bus *bus, logind_done_t done, void *userdata);
