/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* The planner's steps for the PF and the host: firmware VF limit and link
 * type (step 2, a reboot), the PF's MTU and link (3), the VF count and
 * eswitch mode in the driver's switchdev order with the VF driver
 * autoprobe they need (4), hw-tc-offload (5), the RDMA netns mode (8); and
 * where step 4 leaves each VF, for the VF steps. */

#include "plan-internal.h"

/* The reboot reasons of what is already set in firmware: a plan's, and
 * plan_host_reboot_reasons()'s for a PF without one. */
static char *firmware_vfs_waiting(int fw)
{
	return strdup_printf("firmware VF limit raised to %d, waiting for a reboot", fw);
}

static char *link_type_waiting(enum link_type t)
{
	return strdup_printf("link type %s is set in firmware, waiting for a reboot",
			     link_type_to_string(t));
}

int plan_host_reboot_reasons(const struct pf_state *pf, char ***ret)
{
	_cleanup_strv_free_ char **l = calloc(1, sizeof(char *));
	int r = 0;

	if (!l)
		return -ENOMEM;
	/* sriov_totalvfs is the firmware's limit at boot, as status says */
	if (pf->firmware_total_vfs >= 0 && (uint32_t)pf->firmware_total_vfs > pf->total_vfs)
		r = strv_consume(&l, firmware_vfs_waiting(pf->firmware_total_vfs));
	if (r >= 0 && pf->has_firmware_link_type && pf->firmware_link_type != pf->link_type)
		r = strv_consume(&l, link_type_waiting(pf->firmware_link_type));
	if (r < 0)
		return r;
	*ret = TAKE_PTR(l);
	return 0;
}

/* "link type infiniband is set in firmware, ..." (also with the words of a
 * PF no layout selects) gone: the firmware holds another link type now (set
 * back by hand), or the port has it (the reboot or a firmware reset). "link
 * type ethernet -> infiniband takes effect after a reboot" is what a plan
 * still has to write, made anew at each look: it stays. */
static bool link_type_reason_gone(const struct pf_state *pf, const char *reason)
{
	int t = plan_link_type_reason_waited(reason);

	return t >= 0 &&
	       (pf->link_type == (enum link_type)t ||
		(pf->has_firmware_link_type && pf->firmware_link_type != (enum link_type)t));
}

int plan_link_type_reason_waited(const char *reason)
{
	for (enum link_type t = 0; t < _LINK_TYPE_MAX; t++) {
		char said[64];

		snprintf(said, sizeof(said), "link type %s is set in firmware,",
			 link_type_to_string(t));
		if (startswith(reason, said))
			return (int)t;
	}
	return -1;
}

uint32_t plan_firmware_reason_raised(const char *reason)
{
	static const char raised[] = "firmware VF limit raised to ";
	unsigned n;
	int end = 0;

	/* a number, as the gone reasons' (not " 16", "-1") */
	if (!startswith(reason, raised) || reason[strlen(raised)] < '0' ||
	    reason[strlen(raised)] > '9' ||
	    sscanf(reason, "firmware VF limit raised to %u, waiting for a reboot%n", &n, &end) !=
		    1 ||
	    end == 0)
		return 0;
	return n;
}

bool plan_firmware_reason_gone(const struct pf_state *pf, const char *reason)
{
	static const char set[] = "firmware VF limit ";
	unsigned n = plan_firmware_reason_raised(reason);
	int end = 0;

	if (n == 0 && startswith(reason, set)) {
		reason += strlen(set);
		if (*reason < '0' || *reason > '9' ||
		    sscanf(reason, "%u set in firmware,%n", &n, &end) != 1 || end == 0)
			return false;
	} else if (n == 0)
		return link_type_reason_gone(pf, reason);
	return pf->total_vfs >= n ||
	       (pf->firmware_total_vfs >= 0 && (uint32_t)pf->firmware_total_vfs != n);
}

static const char card_wait[] = " (the card raise made by the apply of ";

char *plan_card_wait_reason(const char *reason, const char *by)
{
	return strdup_printf("%s%s%s)", reason, card_wait, by);
}

bool plan_reason_card_wait(const char *reason)
{
	return plan_firmware_reason_raised(reason) && strstr(reason, card_wait);
}

/* waiting: the reasons an apply did (card: also those of the card raise
 * another port's apply made); else those only planned. */
static int reasons_of(const struct plan *p, bool waiting, bool card, char ***ret)
{
	_cleanup_strv_free_ char **l = calloc(1, sizeof(char *));

	if (!l)
		return -ENOMEM;
	for (char **r = p->reboot_reasons; *r; r++)
		if (strv_contains(p->reboot_planned, *r) != waiting &&
		    (card || !plan_reason_card_wait(*r)) && strv_consume(&l, strdup(*r)) < 0)
			return -ENOMEM;
	*ret = TAKE_PTR(l);
	return 0;
}

int plan_reboot_reasons_of(const struct plan *p, bool waiting, char ***ret)
{
	return reasons_of(p, waiting, false, ret);
}

int plan_reboot_reasons_waited(const struct plan *p, char ***ret)
{
	return reasons_of(p, true, true, ret);
}

unsigned plan_link_port(const char *pci)
{
	const char *dot = strrchr(pci, '.');

	return dot && dot[1] >= '0' && dot[1] <= '7' ? (unsigned)(dot[1] - '0') + 1 : 1;
}

bool plan_firmware_set_back(const char *pci, uint32_t now, uint32_t fw, uint32_t need,
			    const char *by, char **ret)
{
	*ret = NULL;
	if (need <= now || !by)
		return true;
	/* a raise short of what that layout needs gives it nothing: its own
	 * apply raises the limit as far as it needs */
	if (need > fw)
		*ret = strdup_printf("\"mstconfig -d %s set NUM_OF_VFS=%u\" sets the limit back to "
				     "the one it has now, for %s too (one command for the card; "
				     "%s's layout needs %u, more than it: its own apply raises the "
				     "limit that far)",
				     pci, now, by, by, need);
	else
		*ret = need == fw ?
			       strdup_printf("no mstconfig command sets it back: %s's layout "
					     "needs %u of it (the card's other port)",
					     by, need) :
			       strdup_printf("\"mstconfig -d %s set NUM_OF_VFS=%u\" sets it to the "
					     "limit the card's other ports need (%s's layout needs "
					     "%u)",
					     pci, need, by, need);
	return !!*ret;
}

char *plan_firmware_set_now(const char *pci, uint32_t now, const char *other)
{
	return other ? strdup_printf("\"mstconfig -d %s set NUM_OF_VFS=%u\" sets the limit back to "
				     "the one it has now, for %s too (one command for the card, "
				     "not one per port)",
				     pci, now, other) :
		       strdup_printf("\"mstconfig -d %s set NUM_OF_VFS=%u\" sets the limit back to "
				     "the one it has now",
				     pci, now);
}

int plan_firmware_kept(const struct pf_state *pf, uint32_t need, const char *by, char **ret)
{
	_cleanup_free_ char *vfs = NULL, *link = NULL, *back = NULL;

	*ret = NULL;
	if (pf->firmware_total_vfs >= 0 && (uint32_t)pf->firmware_total_vfs > pf->total_vfs) {
		if (!plan_firmware_set_back(pf->pci, pf->total_vfs,
					    (uint32_t)pf->firmware_total_vfs, need, by, &back))
			return -ENOMEM;
		vfs = back ? strdup_printf("the firmware VF limit raised to %d stays set for the "
					   "next reboot: a reset changes no firmware (%s)",
					   pf->firmware_total_vfs, back) :
			     strdup_printf("the firmware VF limit raised to %d stays set for the "
					   "next reboot: a reset changes no firmware (\"mstconfig "
					   "-d %s set NUM_OF_VFS=%u\" sets it back to the limit it "
					   "has now)",
					   pf->firmware_total_vfs, pf->pci, pf->total_vfs);
		if (!vfs)
			return -ENOMEM;
	}
	/* LINK_TYPE_P<n>=1 (InfiniBand) or 2 (Ethernet), as mstconfig takes it */
	if (pf->has_firmware_link_type && pf->firmware_link_type != pf->link_type) {
		link = strdup_printf("the link type %s set in firmware stays set for the next "
				     "reboot: a reset changes no firmware (\"mstconfig -d %s set "
				     "LINK_TYPE_P%u=%u\" sets it back to the link type it has now, "
				     "%s)",
				     link_type_to_string(pf->firmware_link_type), pf->pci,
				     plan_link_port(pf->pci),
				     pf->link_type == LINK_TYPE_INFINIBAND ? 1u : 2u,
				     link_type_to_string(pf->link_type));
		if (!link)
			return -ENOMEM;
	}
	if (!vfs && !link)
		return 0;
	*ret = vfs && link ? strdup_printf("%s; %s", vfs, link) : strdup(vfs ?: link);
	return *ret ? 0 : -ENOMEM;
}

/* Step 2: a VF count above sriov_totalvfs waits for the firmware limit and
 * a reboot; meanwhile the PF keeps (and configures) the VFs it has. */
int plan_firmware_vfs(struct plan_ctx *c)
{
	const struct pf_settings *s = &c->d->pf;
	int fw = c->pf->firmware_total_vfs;
	uint32_t want = c->d->num_vfs;
	int r;

	if (!pf_settings_has(s, PF_KEY_VIRTUAL_FUNCTIONS) || c->externally_managed ||
	    want <= c->pf->total_vfs)
		return 0;
	c->firmware_pending = true;
	if (fw >= 0 && (uint32_t)fw >= want)
		return plan_add_reason(c->p, firmware_vfs_waiting(fw));
	r = plan_add_reboot(c->p, ACTION_SET_FIRMWARE_VFS, want);
	if (r < 0)
		return r;
	if (fw < 0)
		return plan_add_planned_reason(
			c->p,
			strdup_printf("firmware VF limit -> %u takes effect after a reboot", want));
	return plan_add_planned_reason(
		c->p,
		strdup_printf("firmware VF limit %d -> %u takes effect after a reboot", fw, want));
}

int plan_link_type(struct plan_ctx *c)
{
	const struct pf_settings *s = &c->d->pf;
	const char *now = link_type_to_string(c->pf->firmware_link_type);
	const char *want = link_type_to_string(s->link_type);
	int r;

	if (!pf_settings_has(s, PF_KEY_LINK_TYPE) || !c->pf->has_firmware_link_type)
		return 0;
	if (s->link_type == c->pf->firmware_link_type) {
		if (s->link_type == c->pf->link_type)
			return 0;
		return plan_add_reason(c->p, link_type_waiting(s->link_type));
	}
	r = plan_add_reboot(c->p, ACTION_SET_LINK_TYPE, s->link_type);
	if (r < 0)
		return r;
	return plan_add_planned_reason(
		c->p, strdup_printf("link type %s -> %s takes effect after a reboot", now, want));
}

/* Step 3. LinkUp=no means "not needed", not "take the PF down". */
static bool pf_comes_up(const struct plan_ctx *c)
{
	const struct pf_settings *s = &c->d->pf;

	return pf_settings_has(s, PF_KEY_LINK_UP) && s->link_up && !c->pf->up;
}

/* Whether the PF comes up only after step 4 created its VFs: where enabling
 * VFs would close and reopen it, and the VFs are created unbound (a VF
 * probing as it is created needs the PF up). */
bool plan_pf_up_after_vfs(const struct plan_ctx *c)
{
	return pf_comes_up(c) && c->drv->vf_enable_reopens_pf && c->probe_off &&
	       c->pf->num_vfs == 0 && c->target > 0;
}

int plan_pf_link(struct plan_ctx *c)
{
	const struct pf_settings *s = &c->d->pf;
	int r;

	if (pf_settings_has(s, PF_KEY_MTU) && s->mtu != c->pf->mtu &&
	    !plan_mtu_waits_link_type(c->d, c->pf, s->mtu)) {
		r = plan_add_value(c->p, ACTION_SET_PF_MTU, false, s->mtu);
		if (r < 0)
			return r;
	}
	if (pf_comes_up(c) && !plan_pf_up_after_vfs(c))
		return plan_add_value(c->p, ACTION_SET_PF_UP, false, 1);
	return 0;
}

const char *plan_default_vf_driver(const struct plan_ctx *c)
{
	return c->pf->vf_driver ?: c->drv->vf_driver;
}

/* Keys the VFs' driver takes only as it binds (igbvf's MAC, mlx5's GUIDs). */
uint32_t plan_before_bind(const struct plan_ctx *c)
{
	return c->drv->vf_keys_before_bind & c->vf_attrs;
}

/* Whether a VF, probed on the kernel's VF driver as it is created, would
 * have to leave it again: a layout that binds it elsewhere (vfio-pci only
 * where there is an IOMMU), or a value its driver takes only as it binds
 * (igbvf's MAC, mlx5's GUIDs). */
bool plan_probe_wasted(const struct plan_ctx *c)
{
	const char *def = plan_default_vf_driver(c);

	if (!def)
		return false;
	for (uint32_t i = 0; i < c->target && i < c->d->n_vfs; i++) {
		const struct vf_settings *v = &c->d->vfs[i];

		if (vf_settings_has(v, VF_KEY_DRIVER) && v->attrs.driver &&
		    !module_name_equal(v->attrs.driver, def) &&
		    (c->host->iommu || !vf_driver_needs_iommu(v->attrs.driver)))
			return true;
		if (v->set & plan_before_bind(c))
			return true;
	}
	return false;
}

/* Step 8: the RDMA subsystem's netns mode, where a VF wants RDMA and the
 * main configuration names one. Without an RDMA subsystem yet, the module
 * that RDMA=yes loads brings ib_core with its default, shared. Last, so
 * that a kernel refusing the change (other network namespaces exist) leaves
 * the VFs configured. */
int plan_rdma_netns(struct plan_ctx *c)
{
	enum rdma_netns_mode want, now;
	bool any = false;

	if (c->d->rdma_netns == RDMA_NETNS_KEEP)
		return 0;
	for (uint32_t i = 0; i < c->target && i < c->d->n_vfs; i++)
		any = any || vf_settings_wants_rdma(&c->d->vfs[i]);
	if (!any)
		return 0;
	want = c->d->rdma_netns == RDMA_NETNS_EXCLUSIVE ? RDMA_NETNS_MODE_EXCLUSIVE :
							  RDMA_NETNS_MODE_SHARED;
	now = c->host->has_rdma_netns_mode ? c->host->rdma_netns_mode : RDMA_NETNS_MODE_SHARED;
	if (now == want)
		return 0;
	return plan_add_value(c->p, ACTION_SET_RDMA_NETNS_MODE, false, want);
}

/* n > 0 VFs where there are none, after setting the autoprobe they need. */
static int create_vfs(struct plan_ctx *c, uint32_t n, bool disruptive)
{
	int r = 0;

	if (c->probe_now == c->probe_off) {
		r = plan_add_value(c->p, ACTION_SET_AUTOPROBE, false, !c->probe_off);
		c->probe_now = !c->probe_off;
	}
	if (r >= 0)
		r = plan_add_value(c->p, ACTION_SET_NUM_VFS, disruptive, n);
	c->fresh = true;
	if (!c->probe_off && plan_default_vf_driver(c))
		c->uses_default = true;
	return r;
}

/* The kernel refuses a change between two non-zero counts: 0 first. Creating
 * VFs where there are none destroys nothing and is not disruptive. */
static int set_count(struct plan_ctx *c, uint32_t cur, uint32_t n)
{
	int r;

	if (n == cur)
		return 0;
	if (cur > 0 && n > 0) {
		r = plan_add_value(c->p, ACTION_SET_NUM_VFS, true, 0);
		if (r < 0)
			return r;
	}
	if (n == 0) {
		c->fresh = false;
		return plan_add_value(c->p, ACTION_SET_NUM_VFS, true, 0);
	}
	return create_vfs(c, n, cur > 0);
}

/* The driver VF i is bound to right after the count change. */
const char *plan_bound_driver(const struct plan_ctx *c, uint32_t i)
{
	if (c->fresh || i >= c->pf->n_vfs)
		return c->probe_off ? NULL : plan_default_vf_driver(c);
	return c->pf->vfs[i].attrs.driver;
}

static int switch_eswitch(struct plan_ctx *c, uint32_t cur)
{
	enum eswitch_mode mode = c->d->pf.eswitch_mode;
	int r = 0;

	switch (c->drv->switchdev) {
	case SWITCHDEV_WITHOUT_VFS:
		/* ExternallyManaged: we never destroy VFs; the mode change is
		 * planned anyway so that its failure (EBUSY) is reported. */
		if (c->externally_managed && cur > 0)
			break;
		if (cur > 0)
			r = plan_add_value(c->p, ACTION_SET_NUM_VFS, true, 0);
		if (r >= 0)
			r = plan_add_value(c->p, ACTION_SET_ESWITCH_MODE, true, mode);
		if (r >= 0 && c->target > 0)
			r = create_vfs(c, c->target, cur > 0);
		c->switched = true;
		return r;
	case SWITCHDEV_VFS_UNBOUND:
		r = set_count(c, cur, c->target);
		for (uint32_t i = 0; r >= 0 && i < c->target; i++)
			if (plan_bound_driver(c, i))
				r = plan_add_vf(c->p, ACTION_UNBIND_VF, true, i, 0, NULL);
		c->unbound = true;
		break;
	case SWITCHDEV_NONE:
	case _SWITCHDEV_ORDER_MAX:
	case _SWITCHDEV_ORDER_INVALID:
		r = set_count(c, cur, c->target);
		break;
	}
	if (r < 0)
		return r;
	c->switched = true;
	return plan_add_value(c->p, ACTION_SET_ESWITCH_MODE, true, mode);
}

/* Steps 4 and 5. */
int plan_count_eswitch(struct plan_ctx *c)
{
	const struct pf_settings *s = &c->d->pf;
	uint32_t cur = c->pf->num_vfs;
	int r;

	if (pf_settings_has(s, PF_KEY_ESWITCH_MODE) && c->pf->has_eswitch &&
	    s->eswitch_mode != c->pf->eswitch_mode)
		r = switch_eswitch(c, cur);
	else
		r = set_count(c, cur, c->target);
	if (r < 0)
		return r;
	if (pf_settings_has(s, PF_KEY_HW_TC_OFFLOAD) && s->hw_tc_offload != c->pf->hw_tc_offload)
		return plan_add_value(c->p, ACTION_SET_HW_TC_OFFLOAD, false, s->hw_tc_offload);
	return 0;
}
