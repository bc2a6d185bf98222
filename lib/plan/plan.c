/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* The planner: desired vs observed -> ordered actions. Only what differs is
 * planned, so a PF already in its desired state gets an empty plan. Order:
 *  1. modules the VFs will need (not yet loaded)
 *  2. firmware (VF limit, link type): reboot
 *  3. PF MTU and link up, before VFs exist (link up right after step 4
 *     where enabling VFs reopens an up PF and they are created unbound)
 *  4. VF count and eswitch mode, in the driver's switchdev order; before
 *     VFs are created, the PF's VF driver autoprobe: off when a VF would
 *     otherwise probe on a driver only to leave it again (another driver
 *     wanted, or a MAC that the driver reads only as it binds), so that
 *     each VF is probed once, on its own driver
 *  5. hw-tc-offload, after the eswitch mode
 *  6. per VF, in index order, against the state predicted after step 4:
 *     [unbind], netlink attributes, [bind], VF MTU, in switchdev mode its
 *     representor up (drivers whose VF link follows it)
 *  7. autoprobe on again, where step 4 turned it off (or an apply of ours
 *     that was killed left it off): off is for the VFs being created only
 *  8. the RDMA subsystem's netns mode ([RDMA] NetnsMode=), for a PF with
 *     RDMA=yes VFs
 *  9. with [Reboot] KernelArguments=manage, the IOMMU kernel arguments that
 *     VFs bound to vfio-pci need: added to the boot loader, a reboot
 * Keys that are not set in the desired state are left as they are. The
 * modules loaded are those of the drivers some VF ends up on.
 *
 * Disruptive: whatever removes or re-creates VFs, the eswitch mode (with the
 * unbinds it needs), firmware. Creating VFs on a PF that has none destroys
 * nothing and is live, as are VF attributes, MTUs and binding a VF to
 * another driver (the VF is assumed unused; the policy is the caller's). */

#include "plan-internal.h"

/* What step 4 makes of the VFs: the count after it (the VFs there are
 * while a firmware limit waits for a reboot, or another tool makes them),
 * and the autoprobe they are created with. */
static void plan_decide_count(struct plan_ctx *c)
{
	const struct pf_settings *s = &c->d->pf;

	c->target = pf_settings_has(s, PF_KEY_VIRTUAL_FUNCTIONS) && !c->externally_managed &&
				    !c->firmware_pending ?
			    c->d->num_vfs :
			    c->pf->num_vfs;
	/* autoprobe off and not by us: someone wants VFs on no driver until
	 * they are bound; it stays so */
	c->probe_on = c->pf->drivers_autoprobe || c->pf->autoprobe_ours;
	c->probe_off = !c->probe_on || plan_probe_wasted(c);
	c->probe_now = c->pf->drivers_autoprobe;
}

/* Steps 3 to 8, in order. */
static int plan_actions(struct plan_ctx *c)
{
	int r;

	r = plan_pf_link(c);
	if (r >= 0)
		r = plan_count_eswitch(c);
	if (r >= 0 && plan_pf_up_after_vfs(c))
		r = plan_add_value(c->p, ACTION_SET_PF_UP, false, 1);
	for (uint32_t i = 0; r >= 0 && i < c->target && i < c->d->n_vfs; i++)
		r = plan_vf(c, i);
	/* step 7 */
	if (r >= 0 && c->probe_on && !c->probe_now)
		r = plan_add_value(c->p, ACTION_SET_AUTOPROBE, false, 1);
	if (r >= 0)
		r = plan_rdma_netns(c);
	return r;
}

/* What is decided once the VF steps are planned: step 9 or the unmet
 * IOMMU, the notes, step 1 put first, the unmet RDMA devices, the VFs
 * another tool is to make, what the VFs made anew lose. */
static int plan_after_actions(struct plan_ctx *c)
{
	int r;

	r = plan_add_no_iommu_reason(c);
	if (r >= 0)
		r = plan_note_guids_after_reboot(c);
	if (r >= 0)
		r = plan_note_ethernet_after_reboot(c);
	if (r >= 0)
		r = plan_note_mtu_after_reboot(c);
	if (r >= 0)
		r = plan_prepend_modules(c);
	if (r >= 0)
		r = plan_add_no_rdma_reason(c);
	if (r >= 0)
		r = plan_note_external_vfs(c);
	if (r >= 0)
		r = plan_note_recreated(c);
	return r;
}

static int plan_build_steps(struct plan_ctx *c)
{
	const struct pf_settings *s = &c->d->pf;
	int r;

	c->externally_managed = pf_settings_externally_managed(s);
	r = plan_firmware_vfs(c);
	if (r >= 0)
		r = plan_link_type(c);
	if (r < 0)
		return r;
	plan_decide_count(c);
	r = plan_actions(c);
	if (r >= 0)
		r = plan_after_actions(c);
	return r;
}

int plan_build(const struct pf_desired *d, const struct pf_state *pf, const struct host_state *host,
	       struct plan **ret)
{
	_cleanup_plan_ struct plan *p = NULL;
	struct plan_ctx c = {
		.d = d,
		.pf = pf,
		.host = host,
		.drv = driver_info_get(pf->driver),
		.vf_attrs = driver_vf_attrs(driver_info_get(pf->driver),
					    pf->link_type == LINK_TYPE_INFINIBAND),
	};
	int r;

	/* a held PF gets no plan at all: nothing may be applied to it */
	if (d->held)
		return -EINVAL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	snprintf(p->pci, sizeof(p->pci), "%s", pf->pci);
	p->reboot_reasons = calloc(1, sizeof(char *));
	p->unmet = calloc(1, sizeof(char *));
	p->notes = calloc(1, sizeof(char *));
	p->waiting = calloc(1, sizeof(char *));
	p->reboot_planned = calloc(1, sizeof(char *));
	p->dropped = calloc(1, sizeof(char *));
	if (!p->reboot_reasons || !p->reboot_planned || !p->unmet || !p->notes || !p->waiting ||
	    !p->dropped)
		return -ENOMEM;
	c.p = p;
	r = pf->driver ? plan_build_steps(&c) : plan_no_driver(&c);
	free(c.no_iommu);
	if (r < 0)
		return r;
	*ret = TAKE_PTR(p);
	return 0;
}
