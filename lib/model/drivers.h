/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* What differs by PF driver, as data: VF drivers and modules, RDMA modules,
 * which VF attributes the driver implements, MTU limits, the switchdev
 * sequence and firmware quirks. Looked up by the PF's driver name. One
 * table serves the planner (validation, ordering) and the simulated host
 * (the kernel's behaviour). */

#include "vf-attrs.h"

enum switchdev_order {
	SWITCHDEV_NONE,	       /* no devlink eswitch (igb, i40e) */
	SWITCHDEV_WITHOUT_VFS, /* mode changes only with 0 VFs (ice) */
	SWITCHDEV_VFS_UNBOUND, /* VFs created first, unbound while the mode changes (mlx5, bnxt) */
	_SWITCHDEV_ORDER_MAX,
	_SWITCHDEV_ORDER_INVALID = -EINVAL,
};

struct driver_info {
	const char *pf_driver;		 /* "ice" */
	const char *vf_driver;		 /* the kernel's VF driver, "iavf" */
	const char *const *vf_modules;	 /* loaded before VFs are created, NULL-terminated */
	const char *const *rdma_modules; /* loaded for RDMA=yes; NULL = no RDMA on VFs */
	uint32_t min_mtu;
	uint32_t max_mtu; /* PF and VF netdevs */
	/* bit (1u << enum vf_key) for each netlink VF attribute the driver
	 * implements: VF_KEY_MAC, VF_KEY_VLAN, VF_KEY_QOS, VF_KEY_VLAN_PROTO,
	 * VF_KEY_SPOOFCHK, VF_KEY_TRUST, VF_KEY_LINK_STATE, VF_KEY_QUERY_RSS,
	 * VF_KEY_MIN_TX_RATE, VF_KEY_MAX_TX_RATE; on an Ethernet port */
	uint32_t vf_attrs;
	/* the same on an InfiniBand port, whose netdev is IPoIB's (mlx5: link
	 * state and the GUIDs); 0 for drivers without InfiniBand */
	uint32_t ib_vf_attrs;
	bool vlan_8021ad; /* VLANProtocol=802.1ad accepted */
	enum switchdev_order switchdev;
	/* in switchdev mode a VF's link follows its representor's admin state
	 * (mlx5e_rep_open/close set the vport state; ice's representor
	 * likewise): representors are brought up, or the VFs have no link */
	bool representor_link;
	/* keys (1u << enum vf_key) a VF's driver takes only as it binds: set
	 * through the PF before the bind, and a bound VF rebound after (igbvf
	 * reads its MAC at probe, mlx5 its GUIDs) */
	uint32_t vf_keys_before_bind;
	/* new VFs get a random MAC from the PF driver rather than zero (igb) */
	bool vf_random_mac;
	/* a VF's driver asks the PF for the MAC as it probes, and with the PF
	 * down gets no answer and makes one up (igbvf: "PF still in reset
	 * state"): MACAddress= needs LinkUp=yes on a PF that is down */
	bool vf_mac_needs_pf_up;
	/* enabling VFs closes and reopens the PF when it is up (igb_sriov_reinit,
	 * under RTNL): a PF that is to come up does so after VFs created
	 * unbound, which need it only when they probe */
	bool vf_enable_reopens_pf;
	/* the VF rates (1u << VF_KEY_MIN_TX_RATE, VF_KEY_MAX_TX_RATE) the
	 * driver refuses above the PF's link speed (ndo_set_vf_rate returns
	 * -EINVAL): igb, i40e and ixgbe the maximum, bnxt_en both */
	uint32_t rates_within_speed;
	/* the minimum rates of all VFs together may not exceed the link speed
	 * (ice: "would cause oversubscription") */
	bool min_rates_sum_within_speed;
	/* firmware VF limit settable (mlx5 NUM_OF_VFS through mstconfig); needs a reboot */
	bool firmware_vfs;
	uint32_t firmware_max_vfs; /* upper bound for the firmware limit */
	bool firmware_link_type;   /* VPI ports: LinkType through firmware; needs a reboot */
	/* the driver reports its VFs' counters (ndo_get_vf_stats: ice_get_vf_stats,
	 * i40e_get_vf_stats, mlx5e_get_vf_stats): for the others the kernel's
	 * IFLA_VF_STATS are zeros that count nothing */
	bool vf_stats;
};

/* NULL when the driver is not in the table; callers treat such a PF with
 * conservative defaults (driver_info_generic). */
const struct driver_info *driver_info_find(const char *pf_driver) _pure_;
/* For PFs whose driver is unknown: no eswitch, no RDMA, no firmware
 * features, the attributes every SR-IOV driver implements (MAC, VLAN, QoS,
 * spoofchk, trust, link state, max rate). */
const struct driver_info *driver_info_generic(void) _pure_;
static inline const struct driver_info *driver_info_get(const char *pf_driver)
{
	const struct driver_info *d = pf_driver ? driver_info_find(pf_driver) : NULL;
	return d ?: driver_info_generic();
}

/* The VF attributes d implements on a port of that link type. */
static inline uint32_t driver_vf_attrs(const struct driver_info *d, bool infiniband)
{
	return infiniband ? d->ib_vf_attrs : d->vf_attrs;
}

/* Whether d refuses rate (Mb/s) for the rate key k of one VF on a link of
 * speed Mb/s: never while the speed is unknown (0). */
bool driver_refuses_rate(const struct driver_info *d, enum vf_key k, uint32_t rate,
			 uint32_t speed) _pure_;
/* Whether d refuses VFs whose minimum rates add up to sum Mb/s on a link of
 * speed Mb/s (0: unknown, never). */
bool driver_refuses_min_rate_sum(const struct driver_info *d, uint64_t sum, uint32_t speed) _pure_;

/* The VF drivers that belong to no vendor: they bind a VF for user space
 * (vfio-pci, uio_pci_generic, igb_uio) or park it (pci-stub), and give it no
 * network interface, so no MTU and no RDMA device. */
struct vf_driver_info {
	const char *name;
	bool needs_iommu; /* binds only to a device in an IOMMU group */
};
/* NULL for every other driver (a vendor's VF driver, with a netdev).
 * Names compare as modprobe compares them ('-' and '_' alike). */
const struct vf_driver_info *vf_driver_info_find(const char *driver) _pure_;
/* False for NULL (unbound) and for the drivers above. */
bool vf_driver_has_netdev(const char *driver) _pure_;
/* The MTU a new netdev starts with (ether_setup()). */
#define KERNEL_DEFAULT_MTU 1500
/* An IPoIB interface's on a port with a 4096-byte InfiniBand MTU (datagram
 * mode: the 4-byte IPoIB header off 4096) */
#define IPOIB_DEFAULT_MTU 4092
/* The largest MTU of d's netdevs on a port of that link type. On InfiniBand
 * the netdev is IPoIB's, in datagram mode (mlx5's enhanced IPoIB has no
 * connected mode), and ipoib_change_mtu() refuses more than the IB MTU
 * (4096 at most) less the 4-byte IPoIB header (IPOIB_UD_MTU). */
static inline uint32_t driver_max_mtu(const struct driver_info *d, bool infiniband)
{
	return infiniband && d->max_mtu > IPOIB_DEFAULT_MTU ? IPOIB_DEFAULT_MTU : d->max_mtu;
}
/* The MTU a new VF netdev starts with on a port of that link type: IPoIB's
 * on InfiniBand, ether_setup()'s on Ethernet. */
static inline uint32_t vf_netdev_default_mtu(bool infiniband)
{
	return infiniband ? IPOIB_DEFAULT_MTU : KERNEL_DEFAULT_MTU;
}
bool vf_driver_needs_iommu(const char *driver) _pure_;
/* The name the kernel gives a known VF driver (its directory under
 * /sys/bus/pci/drivers, what driver_override takes) for a name that
 * modprobe would take for it ("vfio_pci" -> "vfio-pci"); NULL for a driver
 * in neither table. */
const char *vf_driver_kernel_name(const char *driver) _pure_;
