/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* The kernel's RTM_NEWLINK answers as the Linux backend decodes them (a
 * driver fills IFLA_VFINFO_LIST, and its bugs must not become ours), and
 * ethtool's ETHTOOL_MSG_FEATURES_GET replies. The
 * framing (nlmsg_len) is libnl's and is set to the input's size; every
 * byte after it is the fuzzer's. */

#include <linux/netlink.h>

#include "ethtool-features.h"
#include "vf-netlink.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define N_VFS 4

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	_cleanup_free_ struct nlmsghdr *nlh = NULL;
	struct vf_state vfs[N_VFS] = {};
	struct pf_state pf = { .vfs = vfs, .n_vfs = N_VFS, .num_vfs = N_VFS };
	struct vf_attrs attrs = {};
	struct ethtool_feature f;
	uint32_t reported = 0;
	char buf[256];

	if (size < sizeof(struct nlmsghdr) || size > 1 << 20)
		return 0;
	nlh = malloc(NLMSG_ALIGN(size));
	if (!nlh)
		return 0;
	memcpy(nlh, data, size);
	nlh->nlmsg_len = (uint32_t)size;
	(void)vf_netlink_parse_link(nlh, &pf);
	if (vf_netlink_parse_vf(nlh, 1, &attrs, &reported) >= 0)
		(void)vf_netlink_verify(1, &attrs, VF_NETLINK_KEYS, &attrs, reported, buf,
					sizeof(buf));
	(void)vf_netlink_extack(nlh);
	(void)ethtool_parse_feature(nlh, ETHTOOL_FEATURE_HW_TC, &f);
	return 0;
}
