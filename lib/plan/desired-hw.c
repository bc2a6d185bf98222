/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* The merged request against what the PF's driver can do (drivers.c), on
 * the port's link type as the layout makes it: the PF's MTU, eswitch mode,
 * hw-tc-offload and link type; per VF the netlink keys it can set, its
 * driver, MTU, RDMA and rates against the link speed; and what the files
 * alone rule out (layout-rules.c). */

#include <inttypes.h>

#include "desired-host.h"
#include "desired-internal.h"
#include "pf-keys.h"

/* was_stable: the keys of v that were "stable" before derivation. */
static int check_vf_attrs(struct desired_ctx *c, const struct vf_settings *v, uint32_t was_stable)
{
	bool ib = desired_wants_infiniband(c);

	/* first: a more precise message than "cannot set this" for drivers
	 * without any VLAN protocol attribute */
	if (vf_settings_has(v, VF_KEY_VLAN_PROTO) && v->attrs.vlan_proto == VLAN_PROTO_8021AD &&
	    !c->drv->vlan_8021ad) {
		int r = hw_error(c, v->src[VF_KEY_VLAN_PROTO].file, v->src[VF_KEY_VLAN_PROTO].line,
				 "VLANProtocol=802.1ad: the %s driver supports only 802.1Q",
				 c->drv_name);
		if (r < 0)
			return r;
	}
	for (enum vf_key k = 0; k < _VF_KEY_MAX; k++) {
		const struct src *at = &v->src[k];
		char val[VF_ATTR_STR_MAX];
		int r;

		if (!(VF_NETLINK_KEYS & (1u << k)) || !vf_settings_has(v, k) ||
		    (driver_vf_attrs(c->drv, ib) & (1u << k)) || vf_attrs_is_default(&v->attrs, k))
			continue;
		if ((was_stable & (1u << k)) || vf_settings_is_stable(v, k))
			snprintf(val, sizeof(val), "stable");
		else
			vf_attrs_format(&v->attrs, k, VF_SPELLING_LAYOUT, val);
		if (!ib && (c->drv->ib_vf_attrs & (1u << k)))
			r = hw_error(
				c, at->file, at->line,
				"%s=%s: the port is ethernet; GUIDs are set on InfiniBand ports "
				"(LinkType=infiniband)",
				vf_key_to_string(k), val);
		else
			r = hw_error(c, at->file, at->line,
				     "%s=%s: the %s driver cannot set this on VFs%s",
				     vf_key_to_string(k), val, c->drv_name,
				     ib && c->drv->ib_vf_attrs ? " of an InfiniBand port" : "");
		if (r < 0)
			return r;
	}
	return 0;
}

/* VF netdevs take their frames through the PF: a VF MTU above the PF's
 * (as the layout sets it, else as it is) is refused by iavf and mlx5. */
static int check_vf_mtu(struct desired_ctx *c, const struct vf_settings *v)
{
	const struct src *at = &v->src[VF_KEY_MTU];
	uint32_t pf_mtu = pf_settings_has(&c->d->pf, PF_KEY_MTU) ? c->d->pf.mtu : c->pf->mtu;
	int r;

	if (!vf_settings_has(v, VF_KEY_MTU))
		return 0;
	r = desired_check_mtu(&c->out, c->drv, c->drv_name, desired_wants_infiniband(c), at,
			      v->attrs.mtu);
	if (r != 0)
		return r < 0 ? r : 0;
	if (pf_mtu > 0 && v->attrs.mtu > pf_mtu && pf_settings_has(&c->d->pf, PF_KEY_MTU))
		return hw_error(c, at->file, at->line,
				"MTUBytes=%u: above the PF's MTUBytes=%u (%s:%u)", v->attrs.mtu,
				pf_mtu, c->d->pf.src[PF_KEY_MTU].file,
				c->d->pf.src[PF_KEY_MTU].line);
	if (pf_mtu > 0 && v->attrs.mtu > pf_mtu)
		return hw_error(c, at->file, at->line,
				"MTUBytes=%u: above the PF's MTU %u; set MTUBytes= in "
				"[PhysicalFunction]",
				v->attrs.mtu, pf_mtu);
	return 0;
}

/* A vendor's VF driver drives only the VFs whose device IDs its PCI table
 * lists: another vendor's (Driver=mlx5_core on an E810) never binds, so
 * the PF is held rather than left with VFs on no driver. The generic
 * drivers (vfio-pci, pci-stub ...) and drivers unknown to drivers.c are
 * left to the kernel. */
static int check_vf_driver(struct desired_ctx *c, const struct vf_settings *v)
{
	const char *want = v->attrs.driver, *own = c->pf->vf_driver ?: c->drv->vf_driver;
	const struct src *at = &v->src[VF_KEY_DRIVER];

	if (!vf_settings_has(v, VF_KEY_DRIVER) || !want || !own || vf_driver_info_find(want) ||
	    !vf_driver_kernel_name(want) || !vf_driver_kernel_name(own) ||
	    module_name_equal(want, own))
		return 0;
	return hw_error(c, at->file, at->line,
			"Driver=%s: does not drive the VFs of %s (its VFs take %s, or a generic "
			"driver such as vfio-pci)",
			vf_settings_driver_written(v), c->drv_name, own);
}

/* What the files alone rule out (layout-rules.c), then what this PF's
 * driver cannot do; a VF without a network interface is the former's. i:
 * v's index in the desired VFs (SIZE_MAX: a VF beyond them, whose
 * QualityOfService= rules_check_vfs() checks). */
static int check_vf_values(struct desired_ctx *c, size_t i, const struct vf_settings *v)
{
	const struct src *s = v->src;
	bool no_netdev = vf_settings_has(v, VF_KEY_DRIVER) && v->attrs.driver &&
			 !vf_driver_has_netdev(v->attrs.driver);
	int r = 0;

	if (i != SIZE_MAX)
		r = rules_check_qos(&c->out, c->d->vfs, NULL, NULL, c->d->n_vfs, i);
	if (r >= 0)
		r = rules_check_vf(&c->out, v, c->files, c->n_files);
	if (r >= 0)
		r = desired_check_vf_module(&c->out, c->host, v) ?: check_vf_driver(c, v);
	if (r < 0 || no_netdev)
		return r;
	r = check_vf_mtu(c, v);
	if (r >= 0 && vf_settings_wants_rdma(v) && !c->drv->rdma_modules)
		r = hw_error(c, s[VF_KEY_RDMA].file, s[VF_KEY_RDMA].line,
			     "RDMA=yes: the %s driver has no RDMA support on VFs", c->drv_name);
	return r;
}

/* LinkType= changes only through the firmware of a VPI port (ConnectX
 * with LINK_TYPE_P<n>); anything else may only name the type it has. */
static int check_link_type(struct desired_ctx *c)
{
	const struct pf_settings *s = &c->d->pf;
	const struct src *at = &s->src[PF_KEY_LINK_TYPE];
	const char *want = link_type_to_string(s->link_type);

	if (!c->drv->firmware_link_type) {
		if (s->link_type == c->pf->link_type && s->link_type != LINK_TYPE_INFINIBAND)
			return 0;
		return hw_error(c, at->file, at->line,
				"LinkType=%s: the %s driver cannot change the link type", want,
				c->drv_name);
	}
	if (c->pf->has_firmware_link_type || s->link_type == c->pf->link_type)
		return 0;
	if (c->pf->firmware_error)
		return hw_error(c, at->file, at->line,
				"LinkType=%s: the firmware link type cannot be read: %s", want,
				c->pf->firmware_error);
	return hw_error(c, at->file, at->line,
			"LinkType=%s: the port is %s only (its firmware has no link type setting)",
			want, link_type_to_string(c->pf->link_type));
}

/* HardwareTCOffload=yes on a PF that no file puts in switchdev mode: the
 * PF and the mode it is in are named. */
static int check_tc_offload(struct desired_ctx *c, enum eswitch_mode mode)
{
	const struct pf_settings *s = &c->d->pf;
	const struct src *at = &s->src[PF_KEY_HW_TC_OFFLOAD];
	_cleanup_free_ char *pf = NULL;

	if (!pf_settings_has(s, PF_KEY_HW_TC_OFFLOAD) || !s->hw_tc_offload ||
	    pf_settings_has(s, PF_KEY_ESWITCH_MODE) || mode < 0 || mode == ESWITCH_MODE_SWITCHDEV)
		return rules_check_pf(&c->out, s, mode);
	pf = pf_describe(c->pf);
	if (!pf)
		return -ENOMEM;
	return hw_error(c, at->file, at->line,
			"HardwareTCOffload=yes: needs ESwitchMode=switchdev; %s is in %s mode and "
			"no file sets ESwitchMode=",
			pf, eswitch_mode_to_string(mode));
}

/* ice changes the eswitch mode only while the PF has no VFs, and the VFs
 * of ExternallyManaged=yes are another tool's, which we never remove: the
 * switch cannot be done, and is not tried. */
static int check_eswitch_external_vfs(struct desired_ctx *c)
{
	const struct pf_settings *s = &c->d->pf;
	const struct src *at = &s->src[PF_KEY_ESWITCH_MODE];

	if (!pf_settings_externally_managed(s) || !pf_settings_has(s, PF_KEY_ESWITCH_MODE) ||
	    !c->pf->has_eswitch || s->eswitch_mode == c->pf->eswitch_mode ||
	    c->drv->switchdev != SWITCHDEV_WITHOUT_VFS || c->pf->num_vfs == 0)
		return 0;
	return hw_error(c, at->file, at->line,
			"ESwitchMode=%s: %s changes the eswitch mode only while the PF has no "
			"VFs, and its %u VFs are another tool's (ExternallyManaged=yes), which "
			"sriov-persist never removes: remove them first",
			eswitch_mode_to_string(s->eswitch_mode), c->drv_name, c->pf->num_vfs);
}

static int check_pf_settings(struct desired_ctx *c)
{
	const struct pf_settings *s = &c->d->pf;
	const struct src *at = s->src;
	enum eswitch_mode mode = pf_desired_eswitch_mode(c->d, c->pf);
	int r = 0;

	/* 1 (the error was said) is no failure */
	if (pf_settings_has(s, PF_KEY_MTU) &&
	    desired_check_mtu(&c->out, c->drv, c->drv_name, desired_wants_infiniband(c),
			      &at[PF_KEY_MTU], s->mtu) < 0)
		return -ENOMEM;
	if (r >= 0 && pf_settings_has(s, PF_KEY_ESWITCH_MODE) &&
	    s->eswitch_mode == ESWITCH_MODE_SWITCHDEV &&
	    (c->drv->switchdev == SWITCHDEV_NONE || !c->pf->has_eswitch))
		r = hw_error(c, at[PF_KEY_ESWITCH_MODE].file, at[PF_KEY_ESWITCH_MODE].line,
			     c->drv->switchdev == SWITCHDEV_NONE ?
				     "ESwitchMode=switchdev: the %s driver has no switchdev mode" :
				     "ESwitchMode=switchdev: the PF (%s) has no devlink eswitch",
			     c->drv_name);
	if (r >= 0)
		r = check_eswitch_external_vfs(c);
	if (r >= 0)
		r = check_tc_offload(c, mode);
	if (r >= 0 && pf_settings_has(s, PF_KEY_HW_TC_OFFLOAD) &&
	    s->hw_tc_offload != c->pf->hw_tc_offload && c->pf->hw_tc_offload_fixed)
		r = c->pf->name ? hw_error(c, at[PF_KEY_HW_TC_OFFLOAD].file,
					   at[PF_KEY_HW_TC_OFFLOAD].line,
					   "HardwareTCOffload=%s: %s cannot change hw-tc-offload "
					   "(ethtool -k shows it [fixed])",
					   yes_no(s->hw_tc_offload), c->pf->name) :
				  hw_error(c, at[PF_KEY_HW_TC_OFFLOAD].file,
					   at[PF_KEY_HW_TC_OFFLOAD].line,
					   "HardwareTCOffload=%s: the PF has no network interface",
					   yes_no(s->hw_tc_offload));
	if (r >= 0 && pf_settings_has(s, PF_KEY_LINK_TYPE))
		r = check_link_type(c);
	return r;
}

/* A VF's rate above the PF's link speed, on a driver that refuses it
 * (drivers.c); while the speed is unknown (the link is down) nothing is
 * said. */
static int check_vf_rates(struct desired_ctx *c, const struct vf_settings *v)
{
	static const enum vf_key keys[] = { VF_KEY_MIN_TX_RATE, VF_KEY_MAX_TX_RATE };

	for (size_t i = 0; i < ELEMENTSOF(keys); i++) {
		enum vf_key k = keys[i];
		uint32_t rate = k == VF_KEY_MIN_TX_RATE ? v->attrs.min_tx_rate :
							  v->attrs.max_tx_rate;
		_cleanup_free_ char *pf = NULL;
		int r;

		if (!vf_settings_has(v, k) || !driver_refuses_rate(c->drv, k, rate, c->pf->speed))
			continue;
		/* named, so that the PFs with the same speed are one error that
		 * names them all (sriovctl check) */
		pf = pf_describe(c->pf);
		if (!pf)
			return -ENOMEM;
		r = hw_error(c, v->src[k].file, v->src[k].line,
			     "%s=%u: the %s driver refuses a VF rate above the link speed of %s, "
			     "%u Mb/s",
			     vf_key_to_string(k), rate, c->drv_name, pf, c->pf->speed);
		if (r < 0)
			return r;
	}
	return 0;
}

/* VF i's minimum rate after the apply: the layouts' value, else the
 * host's while the VF is kept (a VF made anew has none). */
static uint32_t min_rate_after(const struct desired_ctx *c, size_t i)
{
	const struct vf_settings *v = &c->d->vfs[i];

	if (vf_settings_has(v, VF_KEY_MIN_TX_RATE))
		return v->attrs.min_tx_rate;
	if (i < c->pf->n_vfs && c->d->num_vfs == c->pf->num_vfs)
		return c->pf->vfs[i].attrs.min_tx_rate;
	return 0;
}

/* ice: the minimum rates of all VFs together within the link speed. The
 * error is at the layout line whose rate takes the sum above it. */
static int check_min_rate_sum(struct desired_ctx *c)
{
	const struct vf_settings *last = NULL;
	uint64_t sum = 0, total = 0;

	for (size_t i = 0; i < c->d->n_vfs; i++)
		total += min_rate_after(c, i);
	if (!driver_refuses_min_rate_sum(c->drv, total, c->pf->speed))
		return 0;
	for (size_t i = 0; i < c->d->n_vfs; i++) {
		const struct vf_settings *v = &c->d->vfs[i];

		sum += min_rate_after(c, i);
		if (!vf_settings_has(v, VF_KEY_MIN_TX_RATE) || v->attrs.min_tx_rate == 0)
			continue;
		last = v;
		if (sum > c->pf->speed)
			break;
	}
	if (!last) /* the host's own rates: no layout line to blame */
		return 0;
	return rules_error_together(
		&c->out, last->src[VF_KEY_MIN_TX_RATE].file, last->src[VF_KEY_MIN_TX_RATE].line,
		"MinTxRateMbps=%u: the VFs' minimum rates would add up to %" PRIu64
		" Mb/s, above the PF's link speed, %u Mb/s, which the %s driver refuses",
		last->attrs.min_tx_rate, total, c->pf->speed, c->drv_name);
}

/* What VF v (i: as for check_vf_values()) cannot have on this PF's driver. */
static int check_vf_driver_rules(struct desired_ctx *c, size_t i, const struct vf_settings *v,
				 uint32_t was_stable)
{
	int r;

	r = check_vf_attrs(c, v, was_stable);
	if (r >= 0)
		r = check_vf_values(c, i, v);
	if (r >= 0)
		r = check_vf_rates(c, v);
	return r;
}

/* A VF that only a section beyond the VF count names (held for that): what
 * the section sets is checked against the driver all the same, so that
 * fixing the count brings up no error that was there all along. */
static int check_beyond(void *userdata, uint32_t vf, const struct vf_settings *v)
{
	struct desired_ctx *c = userdata;

	if (vf < c->d->n_vfs || vf < c->vf_bound)
		return 0;
	return check_vf_driver_rules(c, SIZE_MAX, v, 0);
}

int desired_check_all(struct desired_ctx *c)
{
	int r;

	r = check_pf_settings(c);
	if (r < 0)
		return r;
	for (size_t i = 0; i < c->d->n_vfs; i++) {
		r = check_vf_driver_rules(c, i, &c->d->vfs[i], c->was_stable[i]);
		if (r < 0)
			return r;
	}
	r = check_min_rate_sum(c);
	if (r < 0)
		return r;
	r = rules_check_unique(&c->out, c->d->vfs, NULL, c->was_stable, c->d->n_vfs);
	if (r < 0)
		return r;
	/* the VFs the layouts want and the host lacks yet (VirtualFunctions=
	 * on a PF without VFs, ExternallyManaged=yes, sections beyond the VFs
	 * there are): what the files alone rule out holds the PF now, as
	 * check without a host says */
	c->out.vf_hook = check_beyond;
	c->out.vf_hook_data = c;
	r = rules_check_vfs(&c->out, c->files, c->n_files, c->vf_bound);
	c->out.vf_hook = NULL;
	return r;
}
