/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Internal to the Linux backend: host-linux.c (the ops table, reading a whole
 * host), host-linux-sysfs.c (reading PCI functions), host-linux-write.c
 * (sriov_numvfs, driver binding, waiting through udev), host-linux-netlink.c
 * (rtnetlink links and VF attributes, devlink eswitch, ethtool
 * hw-tc-offload), host-linux-kmod.c (modules), host-linux-firmware.c
 * (ConnectX firmware settings through mstconfig). */

#include <libudev.h>

#include "host-linux.h"

struct nl_sock;
struct kmod_ctx;
struct hl_firmware;

struct host_linux {
	struct host host; /* first: struct host * is a struct host_linux * */
	int sysfs_fd;	  /* O_PATH|O_DIRECTORY|O_CLOEXEC of the sysfs root */
	int procfs_fd;
	char *machine_id_path;
	char *root; /* host_linux_options.root, "" for the host itself */
	usec_t settle_timeout;
	bool vf_stats;	      /* host_linux_options.vf_stats */
	struct nl_sock *rtnl; /* connected on first use */
	struct nl_sock *genl;
	int devlink_family; /* 0 = not resolved yet, < 0 = not available */
	int ethtool_family; /* the same */
	struct kmod_ctx *kmod;
	struct udev *udev;
	char *mstconfig;	      /* NULL: firmware settings are not read */
	struct hl_firmware *firmware; /* what mstconfig said, per device */
	size_t n_firmware;
	char *mstfwreset; /* NULL: no firmware resets */
	/* /proc/cpuinfo's vendor, read on the first host read: it does not
	 * change, and every read of that file makes the kernel ask the CPUs */
	bool cpu_vendor_read;
	bool has_cpu_vendor;
	enum cpu_vendor cpu_vendor;
};

static inline struct host_linux *host_linux(struct host *h)
{
	return (struct host_linux *)h;
}

/* --- host-linux-sysfs.c --- */

/* PCI addresses of every function with sriov_totalvfs, sorted. */
int hl_list_pfs(struct host_linux *hl, char ***ret);
/* Opens bus/pci/devices/<pci> under the sysfs root (O_DIRECTORY|O_CLOEXEC);
 * pci must be a valid address (never a path from configuration). */
int hl_open_pci(struct host_linux *hl, const char *pci, int *ret_fd);
/* Fills in what sysfs knows of a PF: IDs, driver, VF device and driver,
 * totalvfs, numvfs, offset, stride, NUMA node, its netdev name, and for each
 * VF (virtfnN) its PCI address, driver, netdev name, MTU and whether it has
 * an RDMA device. vf_driver is the kernel's default VF driver, from the
 * drivers table. The netlink part (MACs, VLANs ...) is filled in by
 * hl_read_pf_netlink. */
int hl_read_pf_sysfs(struct host_linux *hl, const char *pci, struct pf_state *ret);
/* The ifindex of a netdev named in sysfs (class/net/<name>/ifindex). */
int hl_ifindex(struct host_linux *hl, const char *ifname, int *ret);
/* The ifindex of the PF's own netdev (the uplink among switchdev
 * representors), or of VF vf's netdev (vf >= 0), from the one device's net/
 * directory: what an action on one PF or VF needs, without reading the PF
 * with all its VFs. -ENODEV (with h->error) when there is none. */
int hl_netdev_ifindex(struct host_linux *hl, const char *pci, int vf, int *ret);
/* Whether IOMMU groups exist (kernel/iommu_groups is not empty). */
/* The representors of pf's VFs among the netdevs of the device dev_fd
 * (a PCI function, or netdevsim's device in the VM tests). */
int hl_read_representors(struct host_linux *hl, int dev_fd, struct pf_state *pf);
/* The name of VF vf's representor among the PF's netdevs; -ENODEV (with
 * h->error) without one. */
int hl_find_representor(struct host_linux *hl, const char *pci, uint32_t vf, char **ret);
/* host_state.rdma_netns_mode from ib_core's parameter; none without it. */
void hl_read_rdma_netns(struct host_linux *hl, struct host_state *s);
bool hl_iommu_groups(struct host_linux *hl);

/* --- host-linux-sysfs.c: sysfs helpers shared with host-linux-write.c --- */

/* A decimal (base 10) or hexadecimal (base 16) attribute of dirfd. */
int hl_read_u32(int dirfd, const char *attr, int base, uint32_t *ret);
/* The entries of directory sub of dirfd, sorted; empty when it does not exist. */
int hl_list_dir(int dirfd, const char *sub, char ***ret);
/* The driver a PCI function is bound to (its driver link); a driver link
 * that is missing is no driver (NULL). */
int hl_read_driver(int dev_fd, char **ret);
/* Opens virtfn<vf> of a PF; its PCI address goes to pci. -ENOENT when the
 * PF has no such VF. */
int hl_open_virtfn(int pf_fd, uint32_t vf, char pci[static PCI_ADDR_MAX], int *ret_fd);

/* --- host-linux-write.c --- */

/* Writes value to an attribute of dirfd. Writes that can hang in a driver
 * (sriov_numvfs, bind, unbind, drivers_probe) run in a child process, and
 * the caller gets -ETIMEDOUT after timeout while the child stays stuck in the
 * kernel; the error of the write itself (EBUSY, ENOSPC, EINVAL ...) is
 * returned as it is. */
int hl_write_attr(struct host_linux *hl, int dirfd, const char *attr, const char *value,
		  usec_t timeout);
/* The same in this process, for attributes whose store only keeps a value
 * (sriov_drivers_autoprobe, driver_override) and cannot hang. */
int hl_write_attr_now(struct host_linux *hl, int dirfd, const char *attr, const char *value);
int hl_set_num_vfs(struct host_linux *hl, const char *pf, uint32_t n, usec_t timeout);
int hl_set_autoprobe(struct host_linux *hl, const char *pf, bool on);
int hl_unbind_vf(struct host_linux *hl, const char *pf, uint32_t vf, usec_t timeout);
int hl_bind_vf(struct host_linux *hl, const char *pf, uint32_t vf, const char *driver,
	       usec_t timeout);

/* --- host-linux-netlink.c --- */

/* Fills in, by the PF netdev's ifindex: MTU, up, permanent MAC, and for each
 * VF of ret->vfs the IFLA_VFINFO_LIST attributes. A PF without a netdev
 * keeps zeros. */
int hl_read_pf_netlink(struct host_linux *hl, struct pf_state *pf);
int hl_set_vf(struct host_linux *hl, const char *pf, uint32_t vf, const struct vf_attrs *attrs,
	      uint32_t keys);
/* The same by the PF netdev's ifindex: for PFs that are not PCI functions
 * (netdevsim in the VM tests). */
int hl_set_vf_ifindex(struct host_linux *hl, int ifindex, uint32_t vf, const struct vf_attrs *attrs,
		      uint32_t keys);
int hl_set_pf_mtu(struct host_linux *hl, const char *pf, uint32_t mtu);
int hl_set_pf_up(struct host_linux *hl, const char *pf);
int hl_set_vf_mtu(struct host_linux *hl, const char *pf, uint32_t vf, uint32_t mtu);
/* devlink: -EOPNOTSUPP when the device has no eswitch. */
int hl_get_eswitch_mode(struct host_linux *hl, const char *pci, enum eswitch_mode *ret);
int hl_set_eswitch_mode(struct host_linux *hl, const char *pf, enum eswitch_mode m);
/* ethtool: hw-tc-offload of a netdev, and whether it can be changed (a
 * kernel without ethtool netlink: off and fixed). Set: read back, -EIO with
 * h->error when the driver kept the other value. */
int hl_get_hw_tc_offload_ifindex(struct host_linux *hl, int ifindex, bool *ret_on,
				 bool *ret_changeable);
int hl_set_hw_tc_offload_ifindex(struct host_linux *hl, int ifindex, bool on);
int hl_set_hw_tc_offload(struct host_linux *hl, const char *pf, bool on);
/* rdma system set netns over RDMA netlink; -EPROTONOSUPPORT without
 * ib_core, -EBUSY (with the remedy in h->error) while other network
 * namespaces exist. */
int hl_set_rdma_netns_mode(struct host_linux *hl, enum rdma_netns_mode m);
/* VF vf's switchdev representor up (IFF_UP); -ENODEV without one. */
int hl_set_representor_up(struct host_linux *hl, const char *pf, uint32_t vf);
int hl_set_up_ifname(struct host_linux *hl, const char *ifname);

/* --- host-linux-kmod.c --- */

/* Loads module as modprobe would; libkmod is opened on the first call. */
int hl_load_module(struct host_linux *hl, const char *module);
void hl_kmod_free(struct host_linux *hl);
/* Loaded modules, from /proc/modules (names as the kernel has them, '_' not
 * '-'). */
int hl_list_modules(struct host_linux *hl, char ***ret);

/* --- host-linux-firmware.c --- */

/* For PFs whose driver has firmware settings (drivers.c): firmware_total_vfs
 * (SRIOV_EN and NUM_OF_VFS, next boot), the port's firmware link type
 * (LINK_TYPE_P<function + 1>, next boot), or firmware_error when mstconfig
 * is missing or fails. Only -ENOMEM is an error. */
int hl_read_firmware(struct host_linux *hl, struct pf_state *pf);
/* Forgets what was read, so that the next read asks the card again. */
void hl_firmware_forget(struct host_linux *hl);
int hl_set_firmware_vfs(struct host_linux *hl, const char *pf, uint32_t n, usec_t timeout);
int hl_set_link_type(struct host_linux *hl, const char *pf, enum link_type t, usec_t timeout);

/* --- host-linux-fwreset.c --- */

/* ACTION_FIRMWARE_RESET of pf's card: -EOPNOTSUPP (nothing touched) when
 * mstfwreset's query has no level 3; the VFs of every PF of the card
 * removed within timeout each; the reset within its own bound; what was
 * read of the firmware forgotten. */
int hl_firmware_reset(struct host_linux *hl, const char *pf, usec_t timeout);

/* --- host-linux-boot.c --- */

/* The boot loader's tool and the kernel arguments we added (the record);
 * a record that cannot be read counts as none. */
int hl_read_boot_loader(struct host_linux *hl, struct host_state *s);
/* Adds (add) or takes out the IOMMU arguments through
 * sriov-persist-kernel-arguments@add|remove.service, which may write the
 * boot loader's files that the units applying layouts may not; then checks
 * the record for args. */
int hl_set_kernel_arguments(struct host_linux *hl, bool add, const char *args);
