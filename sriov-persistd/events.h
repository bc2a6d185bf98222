/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* What makes the daemon look again, without polling (events.c): udev,
 * rtnetlink link notifications, inotify on the layouts, the main
 * configuration, the status records and the simulated host's file. Each
 * event marks what it concerns (schedule.h). */

#include "manager.h"

/* Starts the sources; m->events is theirs. */
int manager_events_start(struct manager *m);
struct manager_events *manager_events_free(struct manager_events *e);
/* Takes the udev and rtnetlink notifications already queued on their sockets
 * now, without waiting (the inotify ones come first by priority). */
void manager_events_drain(struct manager *m);
