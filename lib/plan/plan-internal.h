/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* What the files of plan_build() share: the state of one PF's plan as its
 * steps (plan.c lists them) add to it, and the steps more than one of them
 * takes. Not for use outside plan/. */

#include "plan.h"

/* One PF's plan as it is built. */
struct plan_ctx {
	const struct pf_desired *d;
	const struct pf_state *pf;
	const struct host_state *host;
	const struct driver_info *drv;
	uint32_t vf_attrs; /* what drv sets on VFs of this port (driver_vf_attrs) */
	struct plan *p;
	bool externally_managed;
	bool firmware_pending;	/* the VF count waits for a reboot */
	uint32_t target;	/* VF count after step 4 */
	bool fresh;		/* step 4 (re)creates the VFs: kernel defaults */
	bool unbound;		/* step 4 unbinds every VF (mlx5 eswitch change) */
	bool switched;		/* step 4 changes the eswitch mode */
	bool probe_on;		/* the PF's own autoprobe setting, as we leave it */
	bool probe_off;		/* VFs are created with autoprobe off, unbound */
	bool probe_now;		/* autoprobe after step 4 */
	bool uses_default;	/* a VF is (or stays) on the kernel's VF driver */
	const char *iommu_bind; /* a VF gets bound to this driver (vfio-pci) */
	char *no_iommu;		/* "0-3, 5": VFs that want vfio-pci without an IOMMU */
	uint32_t no_iommu_last; /* last VF in no_iommu, for ranges */
	bool no_iommu_open;	/* no_iommu ends in an unfinished range */
	unsigned no_iommu_count;
};

/* plan-actions.c: an action or a reboot reason added to the plan; -ENOMEM */
struct action *plan_add_action(struct plan *p, enum action_type type, bool disruptive);
int plan_add_value(struct plan *p, enum action_type type, bool disruptive, uint32_t value);
int plan_add_vf(struct plan *p, enum action_type type, bool disruptive, uint32_t vf, uint32_t value,
		const char *str);
int plan_add_reason(struct plan *p, char *reason);
int plan_add_reboot(struct plan *p, enum action_type type, uint32_t value);

/* plan-modules.c: step 1, put before the actions planned so far */
int plan_prepend_modules(struct plan_ctx *c);

/* plan-iommu.c: VF i wants vfio-pci without an IOMMU; what the plan does
 * about the VFs so noted (step 9 or an unmet need) */
int plan_note_no_iommu(struct plan_ctx *c, uint32_t i);
int plan_add_no_iommu_reason(struct plan_ctx *c);

/* plan-notes.c: what the plan says beside its actions, added once they
 * are all planned */
int plan_note_guids_after_reboot(struct plan_ctx *c);
int plan_note_ethernet_after_reboot(struct plan_ctx *c);
int plan_note_mtu_after_reboot(struct plan_ctx *c);
int plan_add_no_rdma_reason(struct plan_ctx *c);
int plan_note_external_vfs(struct plan_ctx *c);
int plan_no_driver(struct plan_ctx *c);

/* plan-pf.c: the steps for the PF and the host (2-5, 8), and what the VF
 * steps ask of them */
int plan_firmware_vfs(struct plan_ctx *c);
int plan_link_type(struct plan_ctx *c);
int plan_pf_link(struct plan_ctx *c);
bool plan_pf_up_after_vfs(const struct plan_ctx *c);
bool plan_probe_wasted(const struct plan_ctx *c);
int plan_count_eswitch(struct plan_ctx *c);
int plan_rdma_netns(struct plan_ctx *c);
const char *plan_default_vf_driver(const struct plan_ctx *c);
uint32_t plan_before_bind(const struct plan_ctx *c);
const char *plan_bound_driver(const struct plan_ctx *c, uint32_t i);

/* plan-recreate.c: why step 4 makes the VFs anew, and what they lose */
int plan_note_recreated(struct plan_ctx *c);

/* plan-vf.c: step 6 for VF i */
int plan_vf(struct plan_ctx *c, uint32_t i);
