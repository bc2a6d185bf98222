/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* What a host has (the observed state, as in the snapshot JSON of sriovctl
 * snapshot) and the PF enums both layouts and hosts use. Plain data. */

#include "vf-attrs.h"

enum eswitch_mode {
	ESWITCH_MODE_LEGACY,
	ESWITCH_MODE_SWITCHDEV,
	_ESWITCH_MODE_MAX,
	_ESWITCH_MODE_INVALID = -EINVAL,
};

enum link_type {
	LINK_TYPE_ETHERNET,
	LINK_TYPE_INFINIBAND,
	_LINK_TYPE_MAX,
	_LINK_TYPE_INVALID = -EINVAL,
};

/* The RDMA subsystem's network namespace mode (rdma system set netns):
 * shared, every RDMA device in every namespace; exclusive, each in one. */
enum rdma_netns_mode {
	RDMA_NETNS_MODE_SHARED,
	RDMA_NETNS_MODE_EXCLUSIVE,
	_RDMA_NETNS_MODE_MAX,
	_RDMA_NETNS_MODE_INVALID = -EINVAL,
};

/* Whose IOMMU the kernel arguments name: intel_iommu= or amd_iommu=; on
 * arm64 (any maker's CPU) the Arm SMMU, which no argument turns on. */
enum cpu_vendor {
	CPU_VENDOR_INTEL,
	CPU_VENDOR_AMD,
	CPU_VENDOR_ARM,
	_CPU_VENDOR_MAX,
	_CPU_VENDOR_INVALID = -EINVAL,
};

/* The tool that puts kernel arguments into the boot loader's configuration
 * ([Reboot] KernelArguments=manage); the real host looks for it in this
 * order. */
enum boot_loader {
	BOOT_LOADER_NONE,	    /* none found */
	BOOT_LOADER_GRUBBY,	    /* grubby (Fedora, RHEL) */
	BOOT_LOADER_GRUB,	    /* a drop-in in /etc/default/grub.d, update-grub (Debian) */
	BOOT_LOADER_KERNEL_INSTALL, /* /etc/kernel/cmdline, kernel-install (systemd-boot, UKIs) */
	_BOOT_LOADER_MAX,
	_BOOT_LOADER_INVALID = -EINVAL,
};

/* Snapshot spellings: "legacy"/"switchdev", "ethernet"/"infiniband",
 * "shared"/"exclusive", "intel"/"amd"/"arm", "grubby"/"grub"/"kernel-install".
 * from_string returns the _INVALID value on an unknown string. */
const char *eswitch_mode_to_string(enum eswitch_mode m) _pure_;
enum eswitch_mode eswitch_mode_from_string(const char *s) _pure_;
const char *link_type_to_string(enum link_type t) _pure_;
enum link_type link_type_from_string(const char *s) _pure_;
const char *rdma_netns_mode_to_string(enum rdma_netns_mode m) _pure_;
const char *cpu_vendor_to_string(enum cpu_vendor v) _pure_;
enum cpu_vendor cpu_vendor_from_string(const char *s) _pure_;
enum rdma_netns_mode rdma_netns_mode_from_string(const char *s) _pure_;
const char *boot_loader_to_string(enum boot_loader b) _pure_;
enum boot_loader boot_loader_from_string(const char *s) _pure_;

/* A VF's traffic counters as its PF's driver reports them (IFLA_VF_STATS,
 * which the kernel fills through the PF driver's ndo_get_vf_stats, whatever
 * driver the VF is bound to). Snapshot names: the kernel's IFLA_VF_STATS_*
 * names in lower case ("rx_packets"). */
enum vf_stat {
	VF_STAT_RX_PACKETS,
	VF_STAT_TX_PACKETS,
	VF_STAT_RX_BYTES,
	VF_STAT_TX_BYTES,
	VF_STAT_BROADCAST,
	VF_STAT_MULTICAST,
	VF_STAT_RX_DROPPED,
	VF_STAT_TX_DROPPED,
	_VF_STAT_MAX,
	_VF_STAT_INVALID = -EINVAL,
};

const char *vf_stat_to_string(enum vf_stat s) _pure_;
enum vf_stat vf_stat_from_string(const char *s) _pure_;

/* One VF as the host has it. */
struct vf_state {
	unsigned index;
	char pci[PCI_ADDR_MAX];
	char *name; /* netdev name; NULL when it has none (vfio-pci, unbound) */
	/* driver NULL: unbound; mtu 0: no netdev; rdma: an RDMA device exists */
	struct vf_attrs attrs;
	/* switchdev: the VF's representor netdev (its phys_port_name is
	 * pf<N>vf<index>) and whether it is up; NULL otherwise. Snapshot
	 * "representor" and "representor_up", optional. */
	char *representor;
	bool representor_up;
	/* unbound: the driver an apply of ours took it off and did not bind it
	 * to again (it was killed), from the record in the state directory
	 * (pf_created_mark()); NULL otherwise. Never in a snapshot. */
	char *unbound_from;
	/* the counters, when its PF's driver reports them (drivers.c
	 * vf_stats: the kernel sends zeros for a driver that does not);
	 * snapshot "stats", optional: an object of every counter */
	bool has_stats;
	uint64_t stats[_VF_STAT_MAX];
};

/* One PF (an SR-IOV capable PCI function) as the host has it. */
struct pf_state {
	char pci[PCI_ADDR_MAX];
	char *name;	 /* NULL when it has no netdev */
	char **altnames; /* snapshot "altnames", optional; NULL or NULL-terminated */
	uint16_t vendor; /* snapshot "0x8086" */
	uint16_t device;
	char *driver; /* NULL when unbound */
	uint16_t vf_device;
	char *vf_driver; /* the kernel's default VF driver, e.g. "iavf"; may be NULL */
	unsigned total_vfs;
	unsigned num_vfs;
	unsigned vf_offset;
	unsigned vf_stride;
	/* sriov_drivers_autoprobe: new VFs are probed by a driver as they
	 * appear; off, each binds only once driver_override names a driver.
	 * Snapshot "drivers_autoprobe", optional, default true (the kernel's). */
	bool drivers_autoprobe;
	/* autoprobe is off because an apply of ours turned it off for the VFs
	 * it created and was killed before it turned it on again, from the
	 * record in the state directory (pf_created_mark()). Never in a
	 * snapshot. */
	bool autoprobe_ours;
	/* the VFs are the ones an apply of ours created (the count it made is
	 * the count there is), from the record in the state directory
	 * (pf_created_mark()); 0 otherwise. Never in a snapshot. */
	uint32_t vfs_ours;
	uint32_t mtu;
	bool up;
	/* the link speed in Mb/s (class/net/<name>/speed); 0 when unknown: the
	 * link is down, the PF has no netdev or its driver does not say.
	 * Snapshot "speed", optional (absent, null or -1: unknown) */
	uint32_t speed;
	struct mac_addr permanent_mac;
	bool has_eswitch; /* snapshot "eswitch_mode" non-null: the driver has devlink eswitch */
	enum eswitch_mode eswitch_mode;
	bool hw_tc_offload; /* snapshot "hw_tc_offload", optional, default false */
	/* the netdev cannot change hw-tc-offload (not in its ethtool hw
	 * features, or no netdev); snapshot "hw_tc_offload_fixed", optional,
	 * default false */
	bool hw_tc_offload_fixed;
	enum link_type link_type;
	/* ConnectX VPI: link type the firmware will use after the next reboot;
	 * snapshot "firmware_link_type", optional, = link_type when absent,
	 * null when the port has no link type in its firmware (an Ethernet-only
	 * ConnectX: no LINK_TYPE_P<n>) or it could not be read */
	bool has_firmware_link_type;
	enum link_type firmware_link_type;
	int numa_node; /* -1 = none */
	/* The firmware's VF limit (mlx5 NUM_OF_VFS): effective after the next
	 * reboot; -1 (snapshot null) when the device has no such setting. */
	int firmware_total_vfs;
	/* Why the firmware settings above could not be read (mstconfig missing,
	 * failed or timed out), for the messages that need them; snapshot
	 * "firmware_error", optional string. NULL when read or not asked. */
	char *firmware_error;
	struct vf_state *vfs; /* num_vfs entries, vfs[i].index == i */
	size_t n_vfs;
};

/* A whole host. */
struct host_state {
	char *hostname;
	char *kernel_cmdline;
	bool iommu; /* IOMMU groups exist */
	/* snapshot "cpu_vendor", optional: the real host reads /proc/cpuinfo;
	 * absent when neither Intel's nor AMD's nor arm64 (or not known) */
	bool has_cpu_vendor;
	enum cpu_vendor cpu_vendor;
	char **modules; /* loaded modules, NULL-terminated, never NULL */
	/* Not in the snapshot: the modules modprobe can find besides those
	 * loaded, NULL-terminated, static (never freed); NULL when the backend
	 * cannot tell (the running host: libkmod looks a name up, it lists
	 * none). The simulated host's are the kernel's own. */
	const char *const *findable_modules;
	/* snapshot "boot_loader", optional (absent: none found) */
	enum boot_loader boot_loader;
	/* snapshot "kernel_arguments_added", optional: the kernel arguments
	 * sriov-persist added to the boot loader's configuration
	 * (KernelArguments=manage), effective from the next boot on; NULL or
	 * empty when none */
	char **kernel_args_added;
	/* Not in the snapshot: the command lines the boot loader's configuration
	 * gives the next boot (boot_loader_cmdlines(): one for update-grub's
	 * files or /etc/kernel/cmdline, one per BLS entry for grubby), read
	 * under the root (the simulated host's only with sriovctl --root);
	 * NULL when not read. boot_config_error: why they could not be told
	 * (an /etc/default/grub only a shell could read), so that
	 * KernelArguments=manage leaves the configuration alone. */
	char **boot_cmdlines;
	char *boot_config_error;
	/* the words of boot_cmdlines that turn the IOMMU off, as pairs: where
	 * ("/etc/default/grub:3"), the word ("intel_iommu=off"); NULL if none */
	char **boot_iommu_off;
	/* Not in the snapshot: the boot loader's files were read under a root
	 * (sriovctl --root) for the tool the snapshot's boot_loader names, which
	 * is not looked for there */
	bool boot_loader_from_snapshot;
	/* snapshot "rdma_netns_mode", optional, null: no RDMA subsystem (ib_core
	 * is not loaded, so there is no mode to read or set) */
	bool has_rdma_netns_mode;
	enum rdma_netns_mode rdma_netns_mode;
	/* snapshot "machine_id" (32 hex digits), optional: the real host reads
	 * /etc/machine-id; zero when unknown */
	uint8_t machine_id[16];
	bool has_machine_id;
	/* Not in the snapshot: set by whoever plans a snapshot that has no
	 * machine ID and could be given one (sriovctl plan --host without
	 * --machine-id). A PF with "stable" MACs or GUIDs is held there as
	 * in apply, and the reason says how to give the ID. */
	bool machine_id_option;
	/* snapshot "boot_id" (32 hex digits), optional: the real host reads
	 * /proc/sys/kernel/random/boot_id; "" when unknown. A different one
	 * means the host rebooted. */
	char boot_id[33];
	struct pf_state *pfs;
	size_t n_pfs;
};

void vf_state_done(struct vf_state *vf);
void pf_state_done(struct pf_state *pf);
struct host_state *host_state_free(struct host_state *h);
static inline void host_state_freep(struct host_state **h)
{
	host_state_free(*h);
}
#define _cleanup_host_state_ _cleanup_(host_state_freep)

/* Deep copies; -ENOMEM on failure. */
int pf_state_copy(const struct pf_state *src, struct pf_state *ret);
int host_state_copy(const struct host_state *src, struct host_state **ret);
/* The same with only the PF at PCI address pci (none when it has no such
 * PF): what reading one PF returns. */
int host_state_copy_pf(const struct host_state *src, const char *pci, struct host_state **ret);

struct pf_state *host_state_find_pf(const struct host_state *h, const char *pci) _pure_;
/* Finds a PF by PCI address (in either case) or interface name (or
 * altname). */
const struct pf_state *host_state_lookup_pf(const struct host_state *hs, const char *what);
/* The PCI address VF i of pf has by the kernel's rule (offset, stride). */
int pf_vf_pci_addr(const struct pf_state *pf, unsigned index, char buf[static PCI_ADDR_MAX]);
/* "0000:3b:00.0 (ens1f0)" or "0000:3b:00.0"; caller frees. */
char *pf_describe(const struct pf_state *pf);
/* The same from a PF's PCI address and interface name (NULL: none), as a
 * record or a document keeps them. */
char *pf_names_describe(const char *pci, const char *name);

/* Whether the kernel command line has arg ("intel_iommu=on") as the last of
 * the words that give its parameter, alone or with further options after a
 * comma ("intel_iommu=on,sm_on"): "intel_iommu=on intel_iommu=off" has it
 * off, as the kernel reads it. */
bool kernel_cmdline_has(const char *cmdline, const char *arg) _pure_;
/* The CPU vendor of /proc/cpuinfo's text (its first vendor_id): Intel's, or
 * AMD's (Hygon's CPUs are AMD's design and take amd_iommu=); arm64, whose
 * kernel writes "CPU architecture: 8" for every CPU (arch/arm64/kernel/
 * cpuinfo.c; 32-bit Arm kernels write 7 even on ARMv8 CPUs); -ENOENT for
 * other CPUs. */
int cpu_vendor_from_cpuinfo(const char *text) _pure_;
/* The IOMMU arguments for h's CPU that its kernel command line lacks, as
 * one string ("intel_iommu=on iommu=pt"). 0 and *ret NULL when they cannot
 * be told (neither Intel's nor AMD's CPU), the IOMMU argument is there
 * already, or the CPU is arm64 (its SMMU is on whenever the firmware
 * describes it), so that only the firmware setup can help; -ENOMEM. */
int iommu_args_missing(const struct host_state *h, char **ret);
/* Whether each word of args is one the boot loader record says sriov-persist
 * added (host_state.kernel_args_added). */
bool kernel_args_all_added(const struct host_state *h, const char *args);
/* Whether each word of args is in every command line the boot loader's
 * configuration gives the next boot (host_state.boot_cmdlines, at least
 * one), as kernel_cmdline_has() reads a command line. */
bool kernel_args_all_configured(const struct host_state *h, const char *args);
/* The words of args that the next boot would still lack: neither added by
 * sriovctl (kernel_args_added) nor in every command line of the boot
 * loader's configuration; NULL in *ret when none. -ENOMEM. */
int kernel_args_unset(const struct host_state *h, const char *args, char **ret);
/* Where the boot loader's configuration turns off a parameter that a word
 * of args turns on (host_state.boot_iommu_off): "/etc/default/grub:3 holds
 * intel_iommu=off, which turns off what intel_iommu=on turns on", one for
 * each such line and word, joined by "; "; NULL in *ret when none. -ENOMEM. */
int kernel_args_contradicted(const struct host_state *h, const char *args, char **ret);
