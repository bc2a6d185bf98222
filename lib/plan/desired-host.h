/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* What the host a desired state is built for says about it beyond its
 * driver's table: the warnings of what apply cannot complete there. Part of
 * desired.c's checks, kept apart; pure. */

#include "drivers.h"
#include "layout-rules.h"
#include "model.h"

/* For check: a warning at each Driver= line that wants an IOMMU driver
 * (vfio-pci) while the host's IOMMU is off (pf's VFs keep their driver, the
 * VFs an apply creates get the kernel's VF driver), in plan's words for "cannot:"
 * (iommu_remedy()); none when KernelArguments=manage adds the arguments,
 * as plan then waits for a reboot. -ENOMEM. */
int desired_check_iommu(const struct host_state *h, const struct pf_state *pf,
			const struct vf_settings *vfs, size_t n_vfs,
			enum kernel_arguments kernel_arguments, struct diag_list *diags);

/* An error at v's Driver= line when it names a module the host cannot
 * find (host_state.findable_modules), with the nearest name that exists;
 * nothing when the host cannot tell. -ENOMEM. */
int desired_check_vf_module(struct rules_out *out, const struct host_state *h,
			    const struct vf_settings *v);

/* An error at "at" when mtu is outside the MTU range of drv (named
 * drv_name) on a port of that link type (IPoIB's on InfiniBand): 1 then,
 * else 0; -ENOMEM. */
int desired_check_mtu(struct rules_out *out, const struct driver_info *drv, const char *drv_name,
		      bool infiniband, const struct src *at, uint32_t mtu);

/* Warnings into diags for what apply does on this host but the VFs will
 * not have: MACAddress= on a driver whose VFs need the PF up to take it
 * (driver_info.vf_mac_needs_pf_up) while the PF is down and no LinkUp=yes,
 * with the value as written (was_stable: per VF, the keys "stable" gave;
 * may be NULL) and the PF named. -ENOMEM. */
int desired_host_warnings(const struct pf_state *pf, const struct driver_info *drv,
			  const struct pf_settings *s, const struct vf_settings *vfs, size_t n_vfs,
			  const uint32_t *was_stable, struct diag_list *diags);

/* An error into out at the [Match] Name= line of each file in files (those
 * that select pf) when the merged LinkType= s changes the port's link type:
 * the reboot that needs renames the interface, and Name= would then select
 * nothing, the layout silently no longer applied. It holds the PF, while
 * the change is pending, until the file matches by PCIAddress=; not for a
 * file whose Name= also selects the IPoIB name the port gets ("ibp65s0f0"
 * at 0000:41:00.0), which selects it after that reboot too. -ENOMEM. */
int desired_check_renamed(struct rules_out *out, const struct pf_state *pf,
			  const struct driver_info *drv, const struct pf_settings *s,
			  const struct layout_file *const *files, size_t n_files);
/* Whether glob, of a [Match] Name=, selects the name pf's interface gets at
 * the reboot that a change of its link type to `to` needs: only an IPoIB
 * name ("ibp65s0f0" at 0000:41:00.0) can be foreseen; false when drv
 * cannot change the link type or the port is of that type already. */
bool desired_names_renamed(const char *glob, const struct pf_state *pf,
			   const struct driver_info *drv, enum link_type to);
