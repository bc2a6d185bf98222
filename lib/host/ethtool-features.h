/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* One netdev feature over ethtool's generic netlink family (kernel 5.6 and
 * later) as plain data: building ETHTOOL_MSG_FEATURES_GET and _SET and
 * reading the GET reply. Bitsets are asked for and sent in their verbose
 * form, so a feature is named ("hw-tc-offload"), never a bit number, which
 * differs between kernels. No sockets: unit tests feed in-memory messages. */

#include <netlink/msg.h>

#include "util.h"

#define ETHTOOL_FEATURE_HW_TC "hw-tc-offload"

struct ethtool_feature {
	bool active;	 /* in the ACTIVE set */
	bool changeable; /* in the HW set and not in NOCHANGE */
};

/* ETHTOOL_MSG_FEATURES_GET of ifindex for the resolved family id. -ENOMEM. */
int ethtool_build_features_get(int family, int ifindex, struct nl_msg **ret);
/* ETHTOOL_MSG_FEATURES_SET of ifindex that wants feature name on or off and
 * leaves every other feature alone; the kernel is asked for no reply (the
 * caller reads back). -ENOMEM. */
int ethtool_build_feature_set(int family, int ifindex, const char *name, bool on,
			      struct nl_msg **ret);
/* Feature name in an ETHTOOL_MSG_FEATURES_GET_REPLY. A feature the reply does
 * not list is off and cannot be changed. -EBADMSG when the message, a nest
 * or a bitset is malformed, or a bitset is compact (numbers, no names). */
int ethtool_parse_feature(const struct nlmsghdr *nlh, const char *name,
			  struct ethtool_feature *ret);
