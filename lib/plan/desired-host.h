/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* What the host a desired state is built for says about it beyond its
 * driver's table: the warnings of what apply cannot complete there. Part of
 * desired.c's checks, kept apart; pure. */

#include "desired.h"

/* For check: a warning at each Driver= line that wants an IOMMU driver
 * (vfio-pci) while the host's IOMMU is off, which plan says as "cannot:".
 * -ENOMEM. */
int desired_check_iommu(const struct host_state *h, const struct pf_desired *d,
			struct diag_list *diags);
