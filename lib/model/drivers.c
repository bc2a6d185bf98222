/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "drivers.h"

#define A(k) (1u << VF_KEY_##k)
#define NO_MODULES ((const char *const[]){ NULL })

/* Which ndo_set_vf_* callbacks each driver implements, and how, as read from
 * the drivers in Linux 6.1:
 *  - igb: set_vf_mac, set_vf_vlan (802.1Q only), set_vf_rate (max only:
 *    a non-zero min is -EINVAL), set_vf_spoofchk, set_vf_trust; no link state,
 *    no RSS query. New VFs get a random MAC (igb_vf_configure), and igbvf
 *    reads its MAC only when it probes.
 *  - i40e: no min rate ("Invalid min tx rate"), 802.1Q only, no devlink
 *    eswitch mode.
 *  - ice: 802.1ad port VLANs in double VLAN mode; eswitch mode changes only
 *    while no VF exists; in switchdev mode a VF's link follows its
 *    representor (ice_repr_open/stop).
 *  - mlx5_core: the VF driver is mlx5_core itself; switchdev after the VFs
 *    exist and are unbound, a VF's vport admin state then following its
 *    representor (mlx5e_rep_open/close); NUM_OF_VFS and LINK_TYPE_P* in firmware
 *    (mstconfig), effective after a reboot. On an InfiniBand port the PF
 *    netdev is IPoIB's (ipoib_netdev_ops_pf): VF link state and the node
 *    and port GUIDs only (set_vf_guid through mlx5_ib), which a VF takes
 *    when its driver probes.
 *  - bnxt_en: the VF driver is bnxt_en itself; a non-zero QoS is -EINVAL;
 *    802.1Q only.
 *  - ixgbe: the only one here with set_vf_rss_query_en.
 * A VF's rate above the PF's link speed is -EINVAL in igb_ndo_set_vf_bw,
 * i40e_set_bw_limit, ixgbe_ndo_set_vf_bw and bnxt_set_vf_bw (the minimum
 * too); ice refuses minimum rates whose sum over all VFs exceeds it
 * (ice_min_tx_rate_oversubscribed); mlx5 compares neither with it.
 * MTU ranges are the drivers' min_mtu/max_mtu. */
static const struct driver_info drivers[] = {
	{
		.pf_driver = "ice",
		.vf_driver = "iavf",
		.vf_modules = (const char *const[]){ "iavf", NULL },
		.rdma_modules = (const char *const[]){ "irdma", NULL },
		.min_mtu = 68,
		.max_mtu = 9702,
		.vf_attrs = A(MAC) | A(VLAN) | A(QOS) | A(VLAN_PROTO) | A(SPOOFCHK) | A(TRUST) |
			    A(LINK_STATE) | A(MIN_TX_RATE) | A(MAX_TX_RATE),
		.vlan_8021ad = true,
		.min_rates_sum_within_speed = true,
		.switchdev = SWITCHDEV_WITHOUT_VFS,
		.representor_link = true,
		.vf_stats = true,
	},
	{
		.pf_driver = "i40e",
		.vf_driver = "iavf",
		.vf_modules = (const char *const[]){ "iavf", NULL },
		.min_mtu = 68,
		.max_mtu = 9702,
		.vf_attrs = A(MAC) | A(VLAN) | A(QOS) | A(SPOOFCHK) | A(TRUST) | A(LINK_STATE) |
			    A(MAX_TX_RATE),
		.rates_within_speed = A(MAX_TX_RATE),
		.switchdev = SWITCHDEV_NONE,
		.vf_stats = true,
	},
	{
		.pf_driver = "mlx5_core",
		.vf_driver = "mlx5_core",
		.vf_modules = NO_MODULES,
		.rdma_modules = (const char *const[]){ "mlx5_ib", NULL },
		.min_mtu = 68,
		.max_mtu = 9978,
		.vf_attrs = A(MAC) | A(VLAN) | A(QOS) | A(VLAN_PROTO) | A(SPOOFCHK) | A(TRUST) |
			    A(LINK_STATE) | A(MIN_TX_RATE) | A(MAX_TX_RATE),
		.ib_vf_attrs = A(LINK_STATE) | A(IB_NODE_GUID) | A(IB_PORT_GUID),
		.vf_keys_before_bind = A(IB_NODE_GUID) | A(IB_PORT_GUID),
		.vlan_8021ad = true,
		.switchdev = SWITCHDEV_VFS_UNBOUND,
		.representor_link = true,
		.firmware_vfs = true,
		.firmware_max_vfs = 127,
		.firmware_link_type = true,
		.vf_stats = true,
	},
	{
		.pf_driver = "bnxt_en",
		.vf_driver = "bnxt_en",
		.vf_modules = NO_MODULES,
		.rdma_modules = (const char *const[]){ "bnxt_re", NULL },
		.min_mtu = 60,
		.max_mtu = 9500,
		.vf_attrs = A(MAC) | A(VLAN) | A(SPOOFCHK) | A(TRUST) | A(LINK_STATE) |
			    A(MIN_TX_RATE) | A(MAX_TX_RATE),
		.rates_within_speed = A(MIN_TX_RATE) | A(MAX_TX_RATE),
		.switchdev = SWITCHDEV_VFS_UNBOUND,
	},
	{
		.pf_driver = "igb",
		.vf_driver = "igbvf",
		.vf_modules = (const char *const[]){ "igbvf", NULL },
		.min_mtu = 68,
		.max_mtu = 9216,
		.vf_attrs = A(MAC) | A(VLAN) | A(QOS) | A(SPOOFCHK) | A(TRUST) | A(MAX_TX_RATE),
		.rates_within_speed = A(MAX_TX_RATE),
		.switchdev = SWITCHDEV_NONE,
		.vf_keys_before_bind = A(MAC),
		.vf_random_mac = true,
		.vf_mac_needs_pf_up = true,
		/* 3 VFs with the PF up 1.15 s, down 0.58 s + 0.60 s to bring it up after
		 * (the VM's igb, docs/PERFORMANCE.md) */
		.vf_enable_reopens_pf = true,
	},
	{
		.pf_driver = "ixgbe",
		.vf_driver = "ixgbevf",
		.vf_modules = (const char *const[]){ "ixgbevf", NULL },
		.min_mtu = 68,
		.max_mtu = 9710,
		.vf_attrs = A(MAC) | A(VLAN) | A(QOS) | A(SPOOFCHK) | A(TRUST) | A(LINK_STATE) |
			    A(QUERY_RSS) | A(MAX_TX_RATE),
		.rates_within_speed = A(MAX_TX_RATE),
		.switchdev = SWITCHDEV_NONE,
	},
	{
		/* the emulated device of the VM tests: VF attributes are stored as given */
		.pf_driver = "netdevsim",
		.vf_driver = NULL,
		.vf_modules = NO_MODULES,
		.min_mtu = 68,
		.max_mtu = 65535,
		.vf_attrs = A(MAC) | A(VLAN) | A(QOS) | A(VLAN_PROTO) | A(SPOOFCHK) | A(TRUST) |
			    A(LINK_STATE) | A(QUERY_RSS) | A(MIN_TX_RATE) | A(MAX_TX_RATE),
		.vlan_8021ad = true,
		.switchdev = SWITCHDEV_WITHOUT_VFS,
	},
};

static const struct driver_info generic = {
	.pf_driver = NULL,
	.vf_driver = NULL,
	.vf_modules = NO_MODULES,
	.min_mtu = 68,
	.max_mtu = 9000,
	.vf_attrs = A(MAC) | A(VLAN) | A(QOS) | A(SPOOFCHK) | A(TRUST) | A(LINK_STATE) |
		    A(MAX_TX_RATE),
	.switchdev = SWITCHDEV_NONE,
};

const struct driver_info *driver_info_find(const char *pf_driver)
{
	for (size_t i = 0; i < ELEMENTSOF(drivers); i++)
		if (streq(drivers[i].pf_driver, pf_driver))
			return &drivers[i];
	return NULL;
}

const struct driver_info *driver_info_generic(void)
{
	return &generic;
}

bool driver_refuses_rate(const struct driver_info *d, enum vf_key k, uint32_t rate, uint32_t speed)
{
	return speed > 0 && rate > speed && (d->rates_within_speed & (1u << k));
}

bool driver_refuses_min_rate_sum(const struct driver_info *d, uint64_t sum, uint32_t speed)
{
	return speed > 0 && sum > speed && d->min_rates_sum_within_speed;
}

static const struct vf_driver_info vf_drivers[] = {
	{ "vfio-pci", .needs_iommu = true },
	{ "pci-stub" },
	{ "uio_pci_generic" },
	{ "igb_uio" },
};

const struct vf_driver_info *vf_driver_info_find(const char *driver)
{
	for (size_t i = 0; driver && i < ELEMENTSOF(vf_drivers); i++)
		if (module_name_equal(driver, vf_drivers[i].name))
			return &vf_drivers[i];
	return NULL;
}

bool vf_driver_has_netdev(const char *driver)
{
	return driver && !vf_driver_info_find(driver);
}

bool vf_driver_needs_iommu(const char *driver)
{
	const struct vf_driver_info *i = vf_driver_info_find(driver);

	return i && i->needs_iommu;
}

const char *vf_driver_kernel_name(const char *driver)
{
	const struct vf_driver_info *g = vf_driver_info_find(driver);

	if (g)
		return g->name;
	for (size_t i = 0; driver && i < ELEMENTSOF(drivers); i++)
		if (drivers[i].vf_driver && module_name_equal(driver, drivers[i].vf_driver))
			return drivers[i].vf_driver;
	return NULL;
}
