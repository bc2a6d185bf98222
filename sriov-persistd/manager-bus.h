/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The D-Bus API, org.sriovpersist1(5) (manager-bus.c): it hears of every
 * change as an observer; m->bus_state is its own. */

#include "manager.h"

/* Connects to the system bus (m->bus), offers the objects, owns the name. */
int manager_bus_start(struct manager *m);
/* Answers no call that waits any more, and closes the connection. */
void manager_bus_stop(struct manager *m);
