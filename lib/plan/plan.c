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

/* The state of VF i after step 4; *ret_driver is the driver it had before
 * an unbind of step 4 or of an apply that was killed before it bound the VF
 * again (the one "left as it is"). Strings are borrowed. */
static bool predict_vf(const struct plan_ctx *c, uint32_t i, struct vf_state *ret,
		       const char **ret_driver)
{
	bool fresh = c->fresh || i >= c->pf->n_vfs;

	if (fresh) {
		const char *drv = plan_bound_driver(c, i);

		*ret = (struct vf_state){ .index = i };
		vf_attrs_init(&ret->attrs);
		ret->attrs.driver = (char *)drv;
		ret->attrs.mtu = vf_driver_has_netdev(drv) ? KERNEL_DEFAULT_MTU : 0;
		/* "as it is" is as the PF's own autoprobe makes it: on the
		 * kernel's VF driver, even where we create it unbound */
		*ret_driver = c->probe_on ? plan_default_vf_driver(c) : NULL;
	} else {
		*ret = c->pf->vfs[i];
		*ret_driver = ret->attrs.driver ?: ret->unbound_from;
	}
	if (c->unbound)
		ret->attrs.driver = NULL;
	return fresh;
}

/* Driver names as the kernel and modprobe compare them ('-' and '_' alike);
 * NULL is no driver. */
static bool same_driver(const char *a, const char *b)
{
	return a && b ? module_name_equal(a, b) : a == b;
}

/* The driver VF i must end up with, and the BIND_VF argument for it.
 * Driver unset: as it is (or was, before step 4 unbound it). vfio-pci
 * without an IOMMU: left as it is, and an unmet need. */
static int vf_wanted_driver(struct plan_ctx *c, uint32_t i, const struct vf_settings *v,
			    const char *before, const char **ret_want, const char **ret_arg)
{
	const char *want = before, *arg = before;
	int r;

	if (vf_settings_has(v, VF_KEY_DRIVER)) {
		want = v->attrs.driver ?: plan_default_vf_driver(c);
		arg = v->attrs.driver;
	}
	if (vf_driver_needs_iommu(want) && !same_driver(before, want)) {
		if (!c->host->iommu) {
			want = arg = before;
			r = plan_note_no_iommu(c, i);
			if (r < 0)
				return r;
		} else
			c->iommu_bind = want;
	}
	if (want && plan_default_vf_driver(c) && module_name_equal(want, plan_default_vf_driver(c)))
		c->uses_default = true;
	*ret_want = want;
	*ret_arg = arg;
	return 0;
}

static int add_set_vf(struct plan_ctx *c, uint32_t i, const struct vf_attrs *attrs, uint32_t keys)
{
	int r;

	if (!keys)
		return 0;
	r = plan_add_vf(c->p, ACTION_SET_VF, false, i, 0, NULL);
	if (r >= 0) {
		c->p->actions[c->p->n_actions - 1].attrs = *attrs;
		c->p->actions[c->p->n_actions - 1].keys = keys;
	}
	return r;
}

/* Unbind, set, bind: for a driver change, and for drivers whose VF takes a
 * value only when it binds after the value was set (igb's MAC, mlx5's
 * GUIDs). A new netdev starts with the kernel's default MTU. */
static int vf_rebind(struct plan_ctx *c, uint32_t i, struct vf_state *now,
		     const struct vf_attrs *attrs, uint32_t keys, const char *to, const char *arg)
{
	int r = 0;

	if (now->attrs.driver)
		r = plan_add_vf(c->p, ACTION_UNBIND_VF, false, i, 0, NULL);
	if (r >= 0)
		r = add_set_vf(c, i, attrs, keys);
	if (r >= 0 && to)
		r = plan_add_vf(c->p, ACTION_BIND_VF, false, i, 0, arg);
	now->attrs.driver = (char *)to;
	now->attrs.mtu = vf_driver_has_netdev(to) ? KERNEL_DEFAULT_MTU : 0;
	return r;
}

/* Whether VF i's representor is down after steps 4-6: one the eswitch
 * change or the VF's creation makes starts down; the PF ends in switchdev
 * mode. */
static bool representor_down(const struct plan_ctx *c, uint32_t i, bool fresh,
			     const struct vf_state *now)
{
	if (!c->drv->representor_link || !c->pf->has_eswitch ||
	    pf_desired_eswitch_mode(c->d, c->pf) != ESWITCH_MODE_SWITCHDEV)
		return false;
	if (fresh || c->switched)
		return true;
	return now->representor && !now->representor_up;
}

/* Step 6 for VF i. */
static int plan_vf(struct plan_ctx *c, uint32_t i)
{
	const struct vf_settings *v = &c->d->vfs[i];
	const char *before, *want, *arg;
	struct vf_attrs attrs;
	struct vf_state now;
	bool fresh, random_mac, set_first;
	uint32_t keys;
	int r;

	fresh = predict_vf(c, i, &now, &before);
	r = vf_wanted_driver(c, i, v, before, &want, &arg);
	if (r < 0)
		return r;
	random_mac = fresh && c->drv->vf_random_mac;
	plan_vf_diff(c->vf_attrs, v, &now.attrs, random_mac, &attrs, &keys);
	set_first = (keys & plan_before_bind(c)) && vf_driver_has_netdev(now.attrs.driver);

	if (!same_driver(now.attrs.driver, want))
		r = vf_rebind(c, i, &now, &attrs, keys, want, arg);
	else if (set_first)
		r = vf_rebind(c, i, &now, &attrs, keys, now.attrs.driver, now.attrs.driver);
	else
		r = add_set_vf(c, i, &attrs, keys);
	if (r < 0)
		return r;
	if (vf_settings_has(v, VF_KEY_MTU) && vf_driver_has_netdev(now.attrs.driver) &&
	    now.attrs.mtu != v->attrs.mtu)
		r = plan_add_vf(c->p, ACTION_SET_VF_MTU, false, i, v->attrs.mtu, NULL);
	if (r >= 0 && representor_down(c, i, fresh, &now))
		r = plan_add_vf(c->p, ACTION_SET_REPRESENTOR_UP, false, i, 0, NULL);
	return r;
}

static int plan_build_steps(struct plan_ctx *c)
{
	const struct pf_settings *s = &c->d->pf;
	int r;

	c->externally_managed = pf_settings_has(s, PF_KEY_EXTERNALLY_MANAGED) &&
				s->externally_managed;
	r = plan_firmware_vfs(c);
	if (r >= 0)
		r = plan_link_type(c);
	if (r < 0)
		return r;
	c->target = pf_settings_has(s, PF_KEY_VIRTUAL_FUNCTIONS) && !c->externally_managed &&
				    !c->firmware_pending ?
			    c->d->num_vfs :
			    c->pf->num_vfs;
	/* autoprobe off and not by us: someone wants VFs on no driver until
	 * they are bound; it stays so */
	c->probe_on = c->pf->drivers_autoprobe || c->pf->autoprobe_ours;
	c->probe_off = !c->probe_on || plan_probe_wasted(c);
	c->probe_now = c->pf->drivers_autoprobe;
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
	if (r >= 0)
		r = plan_add_no_iommu_reason(c);
	if (r >= 0)
		r = plan_note_guids_after_reboot(c);
	if (r >= 0)
		r = plan_prepend_modules(c);
	if (r >= 0)
		r = plan_add_no_rdma_reason(c);
	if (r >= 0)
		r = plan_note_external_vfs(c);
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
	if (!p->reboot_reasons || !p->unmet || !p->notes || !p->waiting)
		return -ENOMEM;
	c.p = p;
	r = pf->driver ? plan_build_steps(&c) : plan_no_driver(&c);
	free(c.no_iommu);
	if (r < 0)
		return r;
	*ret = TAKE_PTR(p);
	return 0;
}
