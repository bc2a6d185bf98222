/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* What the daemon shows of a PF: its object's properties, and GetStatus()'s
 * row of it while the host cannot be read, whose state and reason are its
 * object's State and LastError, decided in one place so that they never
 * differ (pf-shown.c). */

#include <json-c/json.h>
#include <systemd/sd-bus.h>

#include "manager.h"

/* What the daemon shows of the PF at pci (e: its entry, NULL: none): as it
 * last checked it (e's state and last_error); while the host cannot be read
 * (m->host_error), when a waiting reload changed its layouts, "pending",
 * "the layout change waits until the host can be read; then it is
 * applied", and else its last error without the command it names, which
 * cannot work now ("...; applying waits until the host can be read").
 * *ret_reason is static, e's or in *buf, which the caller frees; NULL: none.
 * Returns 1, 0 when there is nothing to show (no entry and nothing waits),
 * -ENOMEM. */
int manager_pf_shown(struct manager *m, const char *pci, const struct pf_entry *e,
		     const char **ret_state, const char **ret_reason, char **buf);

/* The properties of e's object that the daemon last announced, as one
 * string: a change of it is a PropertiesChanged. NULL: -ENOMEM. */
char *manager_pf_published(struct manager *m, const struct pf_entry *e);

/* The PF object's Settings, a(ssss), or with vfs its
 * VirtualFunctionSettings, a(ussss), from s into reply. */
int manager_pf_append_settings(sd_bus_message *reply, const struct key_settings *s, bool vfs);

/* GetStatus()'s PF rows (doc's "pfs") while the host cannot be read
 * (m->host_error): the daemon checks no PF then, so each is as
 * manager_pf_shown() says, not compared with the new layouts on the host as
 * read last. Each row of a PF whose last Reset() ran a disruptive change
 * without a drain gets "reset_without_drain": why. -ENOMEM. */
int manager_status_as_checked(struct manager *m, struct json_object *doc);
