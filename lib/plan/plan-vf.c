/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* Step 6 of the planner, per VF in index order against the state step 4
 * leaves it in: [unbind], netlink attributes, [bind], VF MTU, its
 * representor up; which netlink attributes of a VF differ from what a
 * layout wants, and what one SET_VF request must carry to fix them. */

#include "plan-internal.h"

/* A key set to a value the plan can use: a stable value not derived
 * (desired-stable.c holds the PF, or leaves a key the port cannot set to
 * desired-hw.c) is not one. */
static bool wanted(const struct vf_settings *want, enum vf_key k)
{
	return vf_settings_has(want, k) && !vf_settings_is_stable(want, k);
}

static bool key_differs(uint32_t supported, const struct vf_settings *want,
			const struct vf_attrs *now, bool random_mac, enum vf_key k)
{
	if (!wanted(want, k) || !(supported & (1u << k)))
		return false;
	return (k == VF_KEY_MAC && random_mac) || !vf_attrs_equal(&want->attrs, now, k);
}

/* Every group (vf_key_group) with a set key whose value differs goes whole,
 * the rest of the group taken from the VF as it is. Attributes the driver
 * does not implement are never compared (desired-hw.c allows only their
 * defaults). */
bool plan_vf_diff(uint32_t supported, const struct vf_settings *want, const struct vf_attrs *now,
		  bool random_mac, struct vf_attrs *ret, uint32_t *ret_keys)
{
	uint32_t keys = 0;

	for (enum vf_key k = 0; k < _VF_KEY_MAX; k++)
		if ((VF_NETLINK_KEYS & (1u << k)) &&
		    key_differs(supported, want, now, random_mac, k))
			keys |= vf_key_group(k);
	*ret = (struct vf_attrs){};
	for (enum vf_key k = 0; k < _VF_KEY_MAX; k++)
		if (keys & (1u << k))
			(void)vf_attrs_copy(ret, wanted(want, k) ? &want->attrs : now, k);
	*ret_keys = keys;
	return keys != 0;
}

/* The MTU a VF's new netdev starts with on the port as it runs (IPoIB's
 * on InfiniBand). */
static uint32_t fresh_mtu(const struct plan_ctx *c)
{
	return vf_netdev_default_mtu(c->pf->link_type == LINK_TYPE_INFINIBAND);
}

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
		ret->attrs.mtu = vf_driver_has_netdev(drv) ? fresh_mtu(c) : 0;
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

/* The driver VF i must end up with, which is also the BIND_VF argument:
 * the kernel's VF driver named (Driver=default binds "iavf", and plan says
 * so), as the backends would bind for none. Driver unset: as it is (or
 * was, before step 4 unbound it), except that a VF on no driver whose
 * layout needs a network interface (MTUBytes=, RDMA=yes) goes on the
 * kernel's VF driver, as autoprobe would have put it. vfio-pci without an
 * IOMMU: left as it is, and an unmet need. */
static int vf_wanted_driver(struct plan_ctx *c, uint32_t i, const struct vf_settings *v,
			    const char *before, const char **ret_want)
{
	const char *want = before;
	int r;

	if (vf_settings_has(v, VF_KEY_DRIVER))
		want = v->attrs.driver ?: plan_default_vf_driver(c);
	else if (!before && vf_settings_needs_netdev(v))
		want = plan_default_vf_driver(c);
	if (vf_driver_needs_iommu(want) && !same_driver(before, want)) {
		if (!c->host->iommu) {
			want = before;
			r = plan_note_no_iommu(c, i);
			if (r < 0)
				return r;
		} else
			c->iommu_bind = want;
	}
	if (want && plan_default_vf_driver(c) && module_name_equal(want, plan_default_vf_driver(c)))
		c->uses_default = true;
	*ret_want = want;
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

#define NETDEV_ELSEWHERE "its network interface is not in this host's namespace: a pod may hold it"
#define RDMA_ELSEWHERE \
	"its RDMA device is not in this host's namespace (RDMA netns mode exclusive): a pod may hold it"

/* Why VF i, as the host has it (not made anew by this plan, nor unbound
 * by step 4), may be in a pod, which an unbind would take it from; NULL
 * when it cannot be. On a driver that gives it a network interface while
 * this host's namespace shows none: CNI moved it into a pod. An InfiniBand
 * port's VF has a network interface only through ib_ipoib: without it
 * loaded, none is what the VF has (the PF's own interface shows IPoIB is
 * there, built in or loaded); but with the RDMA netns mode exclusive, an
 * RDMA device this namespace does not show is one rdma-cni moved. A VF on
 * vfio-pci or on no driver has none to lose. */
static const char *vf_in_pod(const struct plan_ctx *c, uint32_t i, bool fresh)
{
	const struct vf_state *vf;

	if (fresh || c->unbound)
		return NULL;
	vf = &c->pf->vfs[i];
	if (vf->name || !vf_driver_has_netdev(vf->attrs.driver))
		return NULL;
	/* IPoIB built into the kernel is in no module list, but gives the
	 * PF its interface too */
	if (c->pf->link_type != LINK_TYPE_INFINIBAND || c->pf->name)
		return NETDEV_ELSEWHERE;
	for (char *const *m = c->host->modules; m && *m; m++)
		if (module_name_equal(*m, "ib_ipoib"))
			return NETDEV_ELSEWHERE;
	if (!vf->attrs.rdma && c->host->has_rdma_netns_mode &&
	    c->host->rdma_netns_mode == RDMA_NETNS_MODE_EXCLUSIVE)
		return RDMA_ELSEWHERE;
	return NULL;
}

/* Unbind, set, bind: for a driver change, and for drivers whose VF takes a
 * value only when it binds after the value was set (igb's MAC, mlx5's
 * GUIDs). A new netdev starts with its link type's default MTU. The unbind is
 * disruptive when a pod may hold the VF (in_pod says why). */
static int vf_rebind(struct plan_ctx *c, uint32_t i, struct vf_state *now,
		     const struct vf_attrs *attrs, uint32_t keys, const char *to,
		     const char *in_pod)
{
	int r = 0;

	if (now->attrs.driver) {
		r = plan_add_vf(c->p, ACTION_UNBIND_VF, in_pod != NULL, i, 0, NULL);
		if (r >= 0)
			c->p->actions[c->p->n_actions - 1].why = in_pod;
	}
	if (r >= 0)
		r = add_set_vf(c, i, attrs, keys);
	if (r >= 0 && to)
		r = plan_add_vf(c->p, ACTION_BIND_VF, false, i, 0, to);
	now->attrs.driver = (char *)to;
	now->attrs.mtu = vf_driver_has_netdev(to) ? fresh_mtu(c) : 0;
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

/* VF i's MTU, set and read through its network interface: of one this
 * host's namespace does not show (a pod may hold it, and no rebind brings
 * it back) it is neither, as drift is not compared for it either: a pod's
 * VF is as normal as it gets, and neither degraded nor drifted. */
static int vf_mtu(struct plan_ctx *c, uint32_t i, uint32_t mtu, bool elsewhere)
{
	if (elsewhere)
		return 0;
	return plan_add_vf(c->p, ACTION_SET_VF_MTU, false, i, mtu, NULL);
}

/* Step 6 for VF i. */
int plan_vf(struct plan_ctx *c, uint32_t i)
{
	const struct vf_settings *v = &c->d->vfs[i];
	const char *before, *want, *in_pod;
	struct vf_attrs attrs;
	struct vf_state now;
	bool fresh, random_mac, set_first, rebound;
	uint32_t keys;
	int r;

	fresh = predict_vf(c, i, &now, &before);
	r = vf_wanted_driver(c, i, v, before, &want);
	if (r < 0)
		return r;
	random_mac = fresh && c->drv->vf_random_mac;
	plan_vf_diff(c->vf_attrs, v, &now.attrs, random_mac, &attrs, &keys);
	set_first = (keys & plan_before_bind(c)) && vf_driver_has_netdev(now.attrs.driver);

	in_pod = vf_in_pod(c, i, fresh);
	rebound = !same_driver(now.attrs.driver, want) || set_first;
	if (!same_driver(now.attrs.driver, want))
		r = vf_rebind(c, i, &now, &attrs, keys, want, in_pod);
	else if (set_first)
		r = vf_rebind(c, i, &now, &attrs, keys, now.attrs.driver, in_pod);
	else
		r = add_set_vf(c, i, &attrs, keys);
	if (r < 0)
		return r;
	if (vf_settings_has(v, VF_KEY_MTU) && vf_driver_has_netdev(now.attrs.driver) &&
	    now.attrs.mtu != v->attrs.mtu && !plan_mtu_waits_link_type(c->d, c->pf, v->attrs.mtu))
		r = vf_mtu(c, i, v->attrs.mtu,
			   !rebound && in_pod && streq(in_pod, NETDEV_ELSEWHERE));
	if (r >= 0 && representor_down(c, i, fresh, &now))
		r = plan_add_vf(c->p, ACTION_SET_REPRESENTOR_UP, false, i, 0, NULL);
	return r;
}
