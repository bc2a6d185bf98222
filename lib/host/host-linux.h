/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The real Linux host: sysfs through directory file descriptors, VF
 * attributes over rtnetlink (libnl-route), eswitch modes over devlink
 * (libnl-genl), modules through libkmod, waiting through udev events. */

#include "host.h"

struct host_linux_options {
	const char *sysfs;	/* default "/sys" */
	const char *procfs;	/* default "/proc" */
	const char *machine_id; /* default "/etc/machine-id" (under root) */
	/* --root (canonical; NULL: "/"): the machine ID and the boot loader's
	 * files and record are read under it (path_under_root()); sysfs and
	 * procfs stay this machine's */
	const char *root;
	/* how long to wait for VFs, their drivers and netdevs to appear after
	 * a change (udev events); default 30 s */
	usec_t settle_timeout;
	/* mstconfig (Debian's mstflint), for the firmware settings of ConnectX
	 * PFs; default "/usr/bin/mstconfig" */
	const char *mstconfig;
	/* mstfwreset (the same package's mlxfwreset), for firmware resets;
	 * default "/usr/bin/mstfwreset" */
	const char *mstfwreset;
	/* do not read firmware settings (firmware_total_vfs stays -1): for
	 * callers that only match PFs and must not wait for the tool */
	bool no_firmware;
	/* read the VFs' counters (IFLA_VF_STATS) too: drivers ask the card for
	 * them VF by VF (mlx5 a firmware command each), so only the callers
	 * that show them (sriovctl metrics) ask */
	bool vf_stats;
};

int host_linux_open(const struct host_linux_options *o, struct host **ret);
