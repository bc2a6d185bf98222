/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The D-Bus API, org.sriovpersist1(5) (manager-bus.c): it hears of every
 * change as an observer; m->bus_state is its own. */

#include "manager.h"

/* Connects to the system bus, offers the objects, owns the name. */
int manager_bus_start(struct manager *m);
struct manager_bus *manager_bus_free(struct manager_bus *b);
