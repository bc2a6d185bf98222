/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* What status says of a drifted PF whose layout files changed after its
 * last apply: the difference may be the layout's edit, not the host's. */

#include "host-view.h"
#include "status.h"

/* "the layout changed since its last apply (FILE modified after it): ...;
 * sriovctl apply PCI applies it" put before *why when a file that selects
 * pv now was modified after rec's apply finished, or is not one rec
 * names; *why unchanged otherwise; -ENOMEM. */
int report_layout_edited(const struct pf_view *pv, const struct pf_status *rec, char **why);
