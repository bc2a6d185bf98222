/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* What a plan says beside its actions, once they are all planned: GUIDs,
 * the MACs and other Ethernet keys, and MTUs the port takes only with its
 * new link type, left until a link type change's reboot (a note), VFs with
 * RDMA=yes that no action may bring an RDMA device (unmet), VFs another
 * tool is to make (waiting), a PF with no driver (unmet, and no action). */

#include "plan-internal.h"

/* The VFs up to the target count that pick() chooses, as ranges ("0-3, 5")
 * in *ret (NULL when none) and their number in *ret_n. */
static int vf_ranges(const struct plan_ctx *c, bool (*pick)(const struct plan_ctx *, uint32_t),
		     size_t *ret_n, char **ret)
{
	_cleanup_free_ uint32_t *idx = NULL;
	size_t n = 0;

	*ret = NULL;
	for (uint32_t i = 0; i < c->target && i < c->d->n_vfs; i++) {
		uint32_t *m;

		if (!pick(c, i))
			continue;
		m = realloc(idx, sizeof(*m) * (n + 1));
		if (!m)
			return -ENOMEM;
		idx = m;
		idx[n++] = i;
	}
	*ret_n = n;
	if (n > 0 && !(*ret = ranges_format(idx, n)))
		return -ENOMEM;
	return 0;
}

static bool wants_guid(const struct plan_ctx *c, uint32_t i)
{
	return c->d->vfs[i].set & VF_NETLINK_GUID_KEYS;
}

/* GUIDs for a port that becomes InfiniBand only with the reboot its link
 * type change needs: said, and planned after that reboot. */
int plan_note_guids_after_reboot(struct plan_ctx *c)
{
	const struct pf_settings *s = &c->d->pf;
	_cleanup_free_ char *vfs = NULL;
	size_t n;
	int r;

	if (!pf_settings_has(s, PF_KEY_LINK_TYPE) || s->link_type != LINK_TYPE_INFINIBAND ||
	    c->pf->link_type == LINK_TYPE_INFINIBAND)
		return 0;
	r = vf_ranges(c, wants_guid, &n, &vfs);
	if (r < 0 || n == 0)
		return r;
	return strv_consume(&c->p->notes,
			    strdup_printf("VF%s %s: the GUIDs are set once the port is InfiniBand, "
					  "after the reboot its link type change needs",
					  n > 1 ? "s" : "", vfs));
}

/* The VF keys of an Ethernet port that an InfiniBand one (IPoIB) cannot
 * set: the MAC, the VLAN, trust, ... */
static uint32_t ethernet_only_keys(const struct plan_ctx *c)
{
	return c->drv ? VF_NETLINK_KEYS & c->drv->vf_attrs & ~c->drv->ib_vf_attrs : 0;
}

static bool wants_ethernet_key(const struct plan_ctx *c, uint32_t i)
{
	return c->d->vfs[i].set & ethernet_only_keys(c);
}

/* "MACAddress=, VLANId=": the Ethernet keys the VFs up to the target count
 * want; in *ret_stable_mac whether one wants MACAddress=stable. */
static char *ethernet_keys_wanted(const struct plan_ctx *c, bool *ret_stable_mac)
{
	_cleanup_strv_free_ char **l = NULL;
	uint32_t keys = 0;

	*ret_stable_mac = false;
	for (uint32_t i = 0; i < c->target && i < c->d->n_vfs; i++) {
		keys |= c->d->vfs[i].set & ethernet_only_keys(c);
		*ret_stable_mac |= vf_settings_is_stable(&c->d->vfs[i], VF_KEY_MAC);
	}
	for (enum vf_key k = 0; k < _VF_KEY_MAX; k++)
		if ((keys & (1u << k)) &&
		    strv_consume(&l, strdup_printf("%s=", vf_key_to_string(k))) < 0)
			return NULL;
	return strv_join(l, ", ");
}

/* The VF keys of a port that becomes Ethernet only with the reboot its link
 * type change needs: IPoIB sets none of them, and they are set after that
 * reboot; a stable MAC is made then (desired-stable.c), from the permanent
 * MAC address the port has only as an Ethernet port. As the GUIDs above. */
int plan_note_ethernet_after_reboot(struct plan_ctx *c)
{
	const struct pf_settings *s = &c->d->pf;
	_cleanup_free_ char *vfs = NULL, *keys = NULL;
	bool stable_mac;
	size_t n;
	int r;

	if (!pf_settings_has(s, PF_KEY_LINK_TYPE) || s->link_type != LINK_TYPE_ETHERNET ||
	    c->pf->link_type != LINK_TYPE_INFINIBAND)
		return 0;
	r = vf_ranges(c, wants_ethernet_key, &n, &vfs);
	if (r < 0 || n == 0)
		return r;
	keys = ethernet_keys_wanted(c, &stable_mac);
	if (!keys)
		return -ENOMEM;
	return strv_consume(
		&c->p->notes,
		strdup_printf("VF%s %s: %s %s set once the port is Ethernet, after the reboot its "
			      "link type change needs%s",
			      n > 1 ? "s" : "", vfs, keys, strchr(keys, ',') ? "are" : "is",
			      stable_mac ?
				      " (MACAddress=stable is made from the PF's permanent MAC "
				      "address, which an InfiniBand port does not have)" :
				      ""));
}

bool plan_mtu_waits_link_type(const struct pf_desired *d, const struct pf_state *pf, uint32_t mtu)
{
	const struct driver_info *drv = driver_info_get(pf->driver);
	const struct pf_settings *s = &d->pf;

	if (!drv || !pf_settings_has(s, PF_KEY_LINK_TYPE) || s->link_type == pf->link_type)
		return false;
	return mtu < drv->min_mtu ||
	       mtu > driver_max_mtu(drv, pf->link_type == LINK_TYPE_INFINIBAND);
}

static bool wants_mtu_after_reboot(const struct plan_ctx *c, uint32_t i)
{
	const struct vf_settings *v = &c->d->vfs[i];

	return vf_settings_has(v, VF_KEY_MTU) &&
	       plan_mtu_waits_link_type(c->d, c->pf, v->attrs.mtu);
}

/* The PF's and the VFs' MTUs that the port takes only once the link type
 * the layout sets is in effect (plan_mtu_waits_link_type()): planned after
 * the reboot the change needs, and said, as the Ethernet keys above. */
int plan_note_mtu_after_reboot(struct plan_ctx *c)
{
	const struct pf_settings *s = &c->d->pf;
	bool ib_now = c->pf->link_type == LINK_TYPE_INFINIBAND;
	_cleanup_free_ char *vfs = NULL, *why = NULL;
	size_t n;
	int r;

	why = strdup_printf("once the port is %s, after the reboot its link type change needs (%s "
			    "takes %u..%u)",
			    s->link_type == LINK_TYPE_INFINIBAND ? "InfiniBand" : "Ethernet",
			    ib_now ? "IPoIB on the InfiniBand port as it runs now" :
				     "the Ethernet port as it runs now",
			    c->drv->min_mtu, driver_max_mtu(c->drv, ib_now));
	if (!why)
		return -ENOMEM;
	if (pf_settings_has(s, PF_KEY_MTU) && plan_mtu_waits_link_type(c->d, c->pf, s->mtu)) {
		r = strv_consume(&c->p->notes,
				 strdup_printf("PF: MTUBytes=%u is set %s", s->mtu, why));
		if (r < 0)
			return r;
	}
	r = vf_ranges(c, wants_mtu_after_reboot, &n, &vfs);
	if (r < 0 || n == 0)
		return r;
	return strv_consume(&c->p->notes, strdup_printf("VF%s %s: MTUBytes= is set %s",
							n > 1 ? "s" : "", vfs, why));
}

/* Whether action a may bring VF i an RDMA device: a module loaded, the
 * VFs created anew, VF i bound or unbound, the eswitch mode or the RDMA
 * netns mode changed, a reboot. Setting a VF's or the PF's values does not
 * (the VF stays on its driver). */
static bool action_may_bring_rdma(const struct action *a, uint32_t i)
{
	switch (a->type) {
	case ACTION_SET_VF:
	case ACTION_SET_VF_MTU:
	case ACTION_SET_REPRESENTOR_UP:
	case ACTION_SET_PF_MTU:
	case ACTION_SET_PF_UP:
	case ACTION_SET_HW_TC_OFFLOAD:
	case ACTION_SET_AUTOPROBE:
		return false;
	case ACTION_BIND_VF:
	case ACTION_UNBIND_VF:
		return a->vf == i;
	default:
		return true;
	}
}

/* VF i wants RDMA=yes, has no RDMA device, and no action of the plan may
 * bring one. */
static bool rdma_unplanned(const struct plan_ctx *c, uint32_t i)
{
	if (!vf_settings_wants_rdma(&c->d->vfs[i]) || i >= c->pf->n_vfs || c->pf->vfs[i].attrs.rdma)
		return false;
	for (size_t k = 0; k < c->p->n_actions; k++)
		if (action_may_bring_rdma(&c->p->actions[k], i))
			return false;
	return true;
}

/* ... while it is on a driver with a network interface: the RDMA module
 * gave it none, which the device or its firmware decides. */
static bool rdma_missing(const struct plan_ctx *c, uint32_t i)
{
	return rdma_unplanned(c, i) && vf_driver_has_netdev(c->pf->vfs[i].attrs.driver);
}

/* ... while it is on no driver, or on one without a network interface
 * that no layout chose (Driver= unset), and nothing is to bind it (the
 * kernel's VF driver is not known). */
static bool rdma_no_netdev(const struct plan_ctx *c, uint32_t i)
{
	return rdma_unplanned(c, i) && !vf_driver_has_netdev(c->pf->vfs[i].attrs.driver);
}

/* "VF 2 has no driver with a network interface (RDMA=yes needs one): ..." */
static int add_no_netdev_reason(struct plan_ctx *c)
{
	_cleanup_free_ char *vfs = NULL;
	size_t n;
	int r;

	r = vf_ranges(c, rdma_no_netdev, &n, &vfs);
	if (r < 0 || n == 0)
		return r;
	return strv_consume(&c->p->unmet,
			    strdup_printf("VF%s %s ha%s no driver with a network interface "
					  "(RDMA=yes needs one): bind %s to its netdev driver, "
					  "or set Driver= for %s",
					  n > 1 ? "s" : "", vfs, n > 1 ? "ve" : "s",
					  n > 1 ? "them" : "it", n > 1 ? "them" : "it"));
}

/* Checked once every action is planned: VFs with RDMA=yes and no RDMA
 * device that nothing planned may bring (action_may_bring_rdma()) are an
 * unmet need, so the PF ends degraded, never "applied", and plan says so
 * before the apply. The RDMA module and the device are to blame only for
 * a VF on a driver with a network interface. */
int plan_add_no_rdma_reason(struct plan_ctx *c)
{
	_cleanup_free_ char *vfs = NULL, *mods = NULL;
	size_t n;
	int r;

	r = add_no_netdev_reason(c);
	if (r >= 0)
		r = vf_ranges(c, rdma_missing, &n, &vfs);
	if (r < 0 || n == 0)
		return r;
	c->p->n_no_rdma = (uint32_t)n;
	mods = c->drv->rdma_modules ? strv_join((char **)c->drv->rdma_modules, ", ") :
				      strdup("no RDMA module");
	if (!mods)
		return -ENOMEM;
	return strv_consume(&c->p->unmet,
			    strdup_printf("VF%s %s ha%s no RDMA device (RDMA=yes) with %s loaded: "
					  "RDMA may be turned off for the VFs in the device "
					  "(devlink port function, firmware)",
					  n > 1 ? "s" : "", vfs, n > 1 ? "ve" : "s", mods));
}

/* ExternallyManaged=yes with VirtualFunctions=: fewer VFs than the other
 * tool is expected to create exist. Nothing of ours brings them; the PF
 * waits, and the VFs get their sections when they appear. */
int plan_note_external_vfs(struct plan_ctx *c)
{
	uint32_t want = pf_desired_num_vfs(c->d, c->pf);

	if (!c->externally_managed || c->pf->num_vfs >= want)
		return 0;
	return strv_consume(&c->p->waiting,
			    strdup_printf("waiting for another tool to create VFs: %u of %u exist "
					  "(ExternallyManaged=yes)",
					  c->pf->num_vfs, want));
}

/* A PF with no driver bound has no sriov_numvfs, and nothing of its layout
 * can be set: an unmet need, and no action. On a real host the apply unit
 * runs when the driver binds. */
int plan_no_driver(struct plan_ctx *c)
{
	return strv_consume(&c->p->unmet,
			    strdup("no driver is bound to the PF, and SR-IOV needs one: bind it "
				   "(its layout is applied when the driver binds)"));
}
