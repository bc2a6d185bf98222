/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* When to look again (schedule.c): marks coalesced into one check shortly
 * after, layout edits into one reload once they are quiet, and the
 * [Drift] SafetyScanSec= timer. m->schedule is its state. */

#include "manager.h"

int schedule_new(struct manager *m);
struct schedule *schedule_free(struct schedule *s);

/* Mark what must be looked at again: one PF (pci) or every PF (NULL); a
 * check runs shortly after, however many marks come meanwhile. */
void manager_mark_dirty(struct manager *m, const char *pci);
/* The configuration changed: read it again once the files are quiet. */
void manager_mark_reload(struct manager *m);
