/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* NetworkManager keyfile profiles (nm-settings-keyfile(5): GKeyFile INI,
 * lists separated by ';') as far as they set SR-IOV on a device: the [sriov]
 * section and what selects the device the profile applies to
 * (connection.interface-name, ethernet.mac-address, [match] interface-name,
 * driver, path, kernel-command-line). Parsing and matching are pure. */

#include "other-findings.h"

/* A value of the profile and the line it is on (line 0: not set). */
struct nm_value {
	char *text;
	unsigned line;
};

enum nm_key {
	NM_KEY_TYPE,		     /* connection.type */
	NM_KEY_INTERFACE_NAME,	     /* connection.interface-name */
	NM_KEY_MAC_ADDRESS,	     /* ethernet.mac-address */
	NM_KEY_MAC_DENYLIST,	     /* ethernet.mac-address-denylist */
	NM_KEY_MATCH_INTERFACE_NAME, /* match.interface-name */
	NM_KEY_MATCH_DRIVER,	     /* match.driver */
	NM_KEY_MATCH_PATH,	     /* match.path */
	NM_KEY_MATCH_CMDLINE,	     /* match.kernel-command-line */
	NM_KEY_TOTAL_VFS,	     /* sriov.total-vfs */
	_NM_KEY_MAX,
	_NM_KEY_INVALID = -EINVAL,
};

struct nm_profile {
	char *path;	     /* as on the host */
	unsigned sriov_line; /* the [sriov] header; 0: none */
	struct nm_value values[_NM_KEY_MAX];
	char *error;	      /* the first line that cannot be read, "line 3: ..." */
	struct other_vf *vfs; /* [sriov] vf.N, in file order */
	size_t n_vfs;
};

/* One [sriov] vf.N value (NetworkManager's VF string without the index:
 * "mac=… spoof-check=true trust=false min-tx-rate=… max-tx-rate=…
 * vlans=ID[.QOS[.q|ad]]") into ret, each attribute at line. An attribute
 * whose value cannot be read is marked so (a vlans list of more than one
 * VLAN, which no kernel takes, too); others are not read. -ENOMEM. */
int nm_vf_parse(const char *path, unsigned line, uint32_t index, const char *value,
		struct other_vf *ret);

/* Reads the keys above from a keyfile's text (path as on the host, for
 * messages). A line that cannot be read does not fail: ret->error says which
 * and matching treats the profile as one that may apply. -ENOMEM. */
int nm_profile_parse(const char *path, const char *text, struct nm_profile *ret);
void nm_profile_done(struct nm_profile *p);

/* The finding of a profile with [sriov] that applies to id, as
 * NetworkManager's check_connection_compatible() decides (the connection
 * type, the interface name, the permanent MAC address and the deny list,
 * [match] with its |, &, ! and \ prefixes);
 * kernel-command-line and a profile that names no device (NetworkManager may
 * activate it on any Ethernet device) "may match". Nothing for a profile
 * without [sriov] or one that does not apply. -ENOMEM. */
int nm_profile_match(const struct nm_profile *p, const struct pf_identity *id,
		     struct other_findings *out);

/* match.* semantics (NetworkManager's nm_wildcard_match_check()): each
 * element a shell glob, optional ("|" or none) or mandatory ("&", "!" is
 * "&!"), "!" after "|"/"&" inverts, a leading "\" escapes; true when every
 * mandatory element matches and, if there are optional ones, one of them
 * does. str NULL matches as "". */
bool nm_wildcard_match(const char *str, char *const *patterns) _pure_;
/* A GKeyFile list ("a;b\;c;") split and unescaped; -ENOMEM. */
int nm_list_split(const char *value, char ***ret);
