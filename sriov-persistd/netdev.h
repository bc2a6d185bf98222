/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Whether udev is done with a netdev, as systemd-networkd waits for it. */

#include <libudev.h>

#include "util.h"

/* Which netdev instance a PF has: udev's USEC_INITIALIZED of it (a netdev
 * made again, by a driver reload or an unbind and bind, has a new one), and
 * since when, CLOCK_REALTIME. Zero when not known. */
struct netdev_id {
	uint64_t initialized;
	usec_t since;
};

/* Whether udev is done with the netdev ifname (its database entry written,
 * its rename over); why not in *ret_why (static). udev NULL: no udev yet. */
bool netdev_settled(struct udev *udev, const char *ifname, const char **ret_why,
		    struct netdev_id *ret_id);
