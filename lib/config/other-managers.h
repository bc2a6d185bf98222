/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Other SR-IOV managers' configuration on a host, read once
 * (other_configs_load(), which reads files) and matched against each PF
 * (other_configs_match(), pure):
 * - NetworkManager keyfiles in /etc, /run and /usr/lib
 *   NetworkManager/system-connections (nm-keyfile.h);
 * - systemd .link files in /etc, /run, /usr/local/lib, /usr/lib and /lib
 *   systemd/network, the same name in an earlier directory masking the
 *   others (a link to /dev/null masks), each with its drop-ins
 *   (the *.conf files of NAME.link.d in the same directories) (link-file.h);
 * - sriov-network-operator's systemd-mode interface list (sriov-operator.h).
 * Paths are kept as on the host, without the root directory. */

#include "link-file.h"
#include "nm-keyfile.h"
#include "sriov-operator.h"

struct other_configs {
	struct nm_profile *nm;
	size_t n_nm;
	struct link_file *links; /* in the order udev reads them */
	size_t n_links;
	struct sno_config sno; /* path NULL: no such file */
	/* files and directories that could not be read, which may be about any
	 * PF: every PF's findings include them */
	struct other_findings unreadable;
};

/* Reads the files under root (canonical, from root_canonicalize(); NULL or
 * "/" for the running host's), each path resolved inside it
 * (path_under_root(), conf_files_list_root()). A file or directory that
 * cannot be read, or whose link leads out of root, does not fail: it is a
 * finding of every PF. Files are named as this run names layouts: under
 * root (root followed by the path the host knows them by). -ENOMEM. */
int other_configs_load(const char *root, struct other_configs **ret);
struct other_configs *other_configs_free(struct other_configs *c);
static inline void other_configs_freep(struct other_configs **c)
{
	other_configs_free(*c);
}
#define _cleanup_other_configs_ _cleanup_(other_configs_freep)

/* Appends what the other managers set on the PF id to out. -ENOMEM. */
int other_configs_match(const struct other_configs *c, const struct pf_identity *id,
			struct other_findings *out);
