/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <linux/ethtool_netlink.h>
#include <netlink/attr.h>
#include <netlink/genl/genl.h>

#include "ethtool-features.h"

static struct nl_msg *features_msg(int family, int ifindex, uint8_t cmd, uint32_t flags)
{
	struct nl_msg *m = nlmsg_alloc();
	struct nlattr *hdr;

	if (!m)
		return NULL;
	if (!genlmsg_put(m, NL_AUTO_PORT, NL_AUTO_SEQ, family, 0, NLM_F_REQUEST | NLM_F_ACK, cmd,
			 ETHTOOL_GENL_VERSION) ||
	    !(hdr = nla_nest_start(m, ETHTOOL_A_FEATURES_HEADER)) ||
	    nla_put_u32(m, ETHTOOL_A_HEADER_DEV_INDEX, (uint32_t)ifindex) < 0 ||
	    (flags && nla_put_u32(m, ETHTOOL_A_HEADER_FLAGS, flags) < 0) ||
	    nla_nest_end(m, hdr) < 0) {
		nlmsg_free(m);
		return NULL;
	}
	return m;
}

int ethtool_build_features_get(int family, int ifindex, struct nl_msg **ret)
{
	*ret = features_msg(family, ifindex, ETHTOOL_MSG_FEATURES_GET, 0);
	return *ret ? 0 : -ENOMEM;
}

int ethtool_build_feature_set(int family, int ifindex, const char *name, bool on,
			      struct nl_msg **ret)
{
	struct nl_msg *m =
		features_msg(family, ifindex, ETHTOOL_MSG_FEATURES_SET, ETHTOOL_FLAG_OMIT_REPLY);
	struct nlattr *wanted, *bits, *bit;

	/* no NOMASK: the bits listed are the mask, so only this one changes */
	if (!m || !(wanted = nla_nest_start(m, ETHTOOL_A_FEATURES_WANTED)) ||
	    !(bits = nla_nest_start(m, ETHTOOL_A_BITSET_BITS)) ||
	    !(bit = nla_nest_start(m, ETHTOOL_A_BITSET_BITS_BIT)) ||
	    nla_put_string(m, ETHTOOL_A_BITSET_BIT_NAME, name) < 0 ||
	    (on && nla_put_flag(m, ETHTOOL_A_BITSET_BIT_VALUE) < 0) || nla_nest_end(m, bit) < 0 ||
	    nla_nest_end(m, bits) < 0 || nla_nest_end(m, wanted) < 0) {
		nlmsg_free(m);
		*ret = NULL;
		return -ENOMEM;
	}
	*ret = m;
	return 0;
}

/* Whether the bitset nest set has bit name set: listed in a list (NOMASK),
 * or listed with its VALUE flag in a value/mask pair. */
static int bitset_has(struct nlattr *set, const char *name, bool *ret)
{
	struct nlattr *tb[ETHTOOL_A_BITSET_MAX + 1], *bit;
	bool list;
	int rem;

	*ret = false;
	if (nla_parse_nested(tb, ETHTOOL_A_BITSET_MAX, set, NULL) < 0)
		return -EBADMSG;
	list = tb[ETHTOOL_A_BITSET_NOMASK];
	if (!tb[ETHTOOL_A_BITSET_BITS])
		/* a compact bitset has numbers only; an empty verbose one has neither */
		return tb[ETHTOOL_A_BITSET_VALUE] ? -EBADMSG : 0;
	nla_for_each_nested(bit, tb[ETHTOOL_A_BITSET_BITS], rem)
	{
		struct nlattr *b[ETHTOOL_A_BITSET_BIT_MAX + 1];

		if (nla_type(bit) != ETHTOOL_A_BITSET_BITS_BIT)
			continue;
		if (nla_parse_nested(b, ETHTOOL_A_BITSET_BIT_MAX, bit, NULL) < 0 ||
		    !b[ETHTOOL_A_BITSET_BIT_NAME])
			return -EBADMSG;
		if (nla_strcmp(b[ETHTOOL_A_BITSET_BIT_NAME], name) == 0)
			*ret = list || b[ETHTOOL_A_BITSET_BIT_VALUE];
	}
	return 0;
}

int ethtool_parse_feature(const struct nlmsghdr *nlh, const char *name, struct ethtool_feature *ret)
{
	struct nlattr *tb[ETHTOOL_A_FEATURES_MAX + 1];
	bool hw, active, nochange = false;

	if (!genlmsg_valid_hdr((struct nlmsghdr *)nlh, 0) ||
	    genlmsg_parse((struct nlmsghdr *)nlh, 0, tb, ETHTOOL_A_FEATURES_MAX, NULL) < 0 ||
	    !tb[ETHTOOL_A_FEATURES_HW] || !tb[ETHTOOL_A_FEATURES_ACTIVE])
		return -EBADMSG;
	if (bitset_has(tb[ETHTOOL_A_FEATURES_HW], name, &hw) < 0 ||
	    bitset_has(tb[ETHTOOL_A_FEATURES_ACTIVE], name, &active) < 0 ||
	    (tb[ETHTOOL_A_FEATURES_NOCHANGE] &&
	     bitset_has(tb[ETHTOOL_A_FEATURES_NOCHANGE], name, &nochange) < 0))
		return -EBADMSG;
	*ret = (struct ethtool_feature){ .active = active, .changeable = hw && !nochange };
	return 0;
}
