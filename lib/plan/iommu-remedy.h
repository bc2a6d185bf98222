/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* What the operator is told about VFs that want vfio-pci on a host whose
 * IOMMU is off: the one text that check's warning and plan's "cannot:"
 * share. Pure. */

#include "mainconf.h"
#include "model.h"

/* What to do about an IOMMU that is off, by the CPU's vendor: the kernel
 * arguments to add (and that KernelArguments=manage would add them, where
 * it is not set and would), or the firmware setting that keeps it off;
 * with KernelArguments=manage set, why it cannot act. NULL in *ret when
 * manage is set and acts (a reboot is pending then). -ENOMEM. */
int iommu_remedy(const struct host_state *h, enum kernel_arguments kernel_arguments, char **ret);
