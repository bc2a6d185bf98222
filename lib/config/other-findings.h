/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* What other SR-IOV managers' configuration says about a PF: the PF as they
 * see it (struct pf_identity) and the settings found (struct other_finding),
 * each with its file and line. Plain data; pure. */

#include "model.h"

/* Who else may set a PF's VF count. */
enum other_manager {
	OTHER_MANAGER_NETWORKMANAGER, /* a keyfile profile with [sriov] */
	OTHER_MANAGER_SYSTEMD_LINK,   /* a .link file systemd-udevd applies */
	OTHER_MANAGER_SRIOV_OPERATOR, /* sriov-network-operator's systemd mode */
	_OTHER_MANAGER_MAX,
	_OTHER_MANAGER_INVALID = -EINVAL,
};

/* Whether the file surely applies to the PF, or may (a match key that
 * cannot be told offline, an earlier .link file that may match first, a
 * file that cannot be read). */
enum other_certainty {
	OTHER_CERTAINTY_MATCHES,
	OTHER_CERTAINTY_MAY_MATCH,
	_OTHER_CERTAINTY_MAX,
	_OTHER_CERTAINTY_INVALID = -EINVAL,
};

/* "NetworkManager", "systemd .link", "sriov-network-operator" */
const char *other_manager_to_string(enum other_manager m) _pure_;
/* How a layout names the manager (SharedWith=): "NetworkManager",
 * "systemd-udevd" (which applies .link files), "sriov-network-operator". */
const char *other_manager_key_to_string(enum other_manager m) _pure_;
enum other_manager other_manager_key_from_string(const char *s) _pure_;
/* "matches", "may match" */
const char *other_certainty_to_string(enum other_certainty c) _pure_;

/* A PF as the other managers match it. Strings may be NULL (unknown). */
struct pf_identity {
	const char *name;	   /* the interface name now */
	char *const *altnames;	   /* NULL or NULL-terminated */
	const char *original_name; /* the name the kernel gave before udev renamed it */
	bool has_permanent_mac;
	struct mac_addr permanent_mac;
	bool has_mac; /* the current address, when it differs from the permanent one */
	struct mac_addr mac;
	const char *pci;
	const char *driver;
	uint16_t vendor, device;
	const char *id_path; /* udev's ID_PATH, "pci-0000:3b:00.0" */
	const char *iftype;  /* "ether" or "infiniband", as systemd's Type= names it */
};

#define PF_ID_PATH_MAX (PCI_ADDR_MAX + 4)
/* The identity of a host PF. The host state has no original name and no
 * current address (the permanent one stands for it: a PF's netdev has it when
 * udev applies .link files); ID_PATH is "pci-<PCI address>", what udev's
 * path_id gives a PCI device whose parents are PCI bridges only. pf must
 * outlive ret. */
void pf_identity_from_state(const struct pf_state *pf, char id_path[static PF_ID_PATH_MAX],
			    struct pf_identity *ret);

/* The values another manager sets on one VF (NetworkManager's vf.N, a
 * .link file's [SR-IOV] section), in the layout's keys: for each key set
 * (bit 1u << enum vf_key), where and how the file writes it. */
struct other_vf {
	uint32_t index;
	uint32_t set;
	uint32_t unreadable; /* keys whose value cannot be read: attrs has none */
	struct vf_attrs attrs;
	char *path; /* the file (or drop-in) */
	unsigned line[_VF_KEY_MAX];
	char *written[_VF_KEY_MAX]; /* "trust=true", "vlans=7.0.q", "Trust=yes" */
};

/* A VF value of the other manager's: k's text (its value parsed into
 * attrs, or the key marked unreadable) at line. -ENOMEM. */
int other_vf_set(struct other_vf *v, enum vf_key k, const char *written, unsigned line,
		 const char *value);
int other_vf_copy(struct other_vf *dst, const struct other_vf *src);
void other_vf_done(struct other_vf *v);

/* One file (or drop-in) of another manager that sets SR-IOV on a PF. */
struct other_finding {
	enum other_manager manager;
	enum other_certainty certainty;
	char *path;	 /* as on the host: without the --root directory */
	unsigned line;	 /* 0: the whole file */
	char *setting;	 /* "sriov.total-vfs=4", "SR-IOVVirtualFunctions=8" */
	char *how;	 /* why it applies: "connection.interface-name=ens1f0" */
	bool unreadable; /* the file could not be read: setting says why */
	/* the VF count the file makes, at path:line (has_count); count_bad:
	 * it sets one that cannot be read as a number; count_implied: the
	 * file does not write it, setting says why it is so (NetworkManager's
	 * [sriov] without total-vfs, an operator interface another tool's VFs
	 * are left to: 0) */
	bool has_count, count_bad, count_implied;
	uint32_t count;
	/* the VF values it sets */
	struct other_vf *vfs;
	size_t n_vfs;
};

struct other_findings {
	struct other_finding *items;
	size_t n;
};

/* Copies the strings; -ENOMEM. */
int other_findings_add(struct other_findings *l, enum other_manager m, enum other_certainty c,
		       const char *path, unsigned line, const char *setting, const char *how);
/* A file that could not be read, which may be about any PF. */
int other_findings_add_unreadable(struct other_findings *l, enum other_manager m, const char *path,
				  const char *why);
/* The same, where a line of the file is the one that cannot be read. */
int other_findings_add_unreadable_at(struct other_findings *l, enum other_manager m,
				     const char *path, unsigned line, const char *why);
/* The last finding added: its VF count (count NULL: none; text that is not
 * a number: count_bad) and a copy of its VF values. -ENOMEM. */
int other_finding_set_count(struct other_finding *f, const char *count);
int other_finding_add_vfs(struct other_finding *f, const struct other_vf *vfs, size_t n);
/* How the manager's file names the VF count: "sriov.total-vfs",
 * "SR-IOVVirtualFunctions", "numvfs". */
const char *other_manager_count_key(enum other_manager m) _pure_;
int other_findings_copy(struct other_findings *dst, const struct other_findings *src);
void other_findings_done(struct other_findings *l);
/* "/etc/NetworkManager/system-connections/a.nmconnection:7: sriov.total-vfs=4
 * (NetworkManager, matches: connection.interface-name=ens1f0)"; NULL on
 * allocation failure. */
char *other_finding_format(const struct other_finding *f);
