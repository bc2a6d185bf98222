/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* Stable VF MAC addresses: HMAC-SHA256(key = machine ID, message = tag ||
 * PF permanent address || VF index as 32 bit little endian), as systemd
 * derives stable IDs from the machine ID without revealing it. */

#include <openssl/evp.h>

#include "mac.h"

#define MAC_STABLE_TAG "sriov-persist-vf-mac-v1"

int mac_stable(const uint8_t machine_id[static 16], const struct mac_addr *pf_permanent,
	       uint32_t vf_index, struct mac_addr *ret)
{
	uint8_t msg[sizeof(MAC_STABLE_TAG) - 1 + ETHER_ADDR_LEN_ + 4];
	uint8_t digest[EVP_MAX_MD_SIZE];
	size_t off = sizeof(MAC_STABLE_TAG) - 1, len = 0;
	struct mac_addr m;

	memcpy(msg, MAC_STABLE_TAG, off);
	memcpy(msg + off, pf_permanent->b, ETHER_ADDR_LEN_);
	off += ETHER_ADDR_LEN_;
	for (unsigned i = 0; i < 4; i++)
		msg[off + i] = (uint8_t)(vf_index >> (8 * i));

	if (!EVP_Q_mac(NULL, "HMAC", NULL, "SHA256", NULL, machine_id, 16, msg, sizeof(msg), digest,
		       sizeof(digest), &len) ||
	    len < ETHER_ADDR_LEN_)
		return -EIO;

	memcpy(m.b, digest, ETHER_ADDR_LEN_);
	m.b[0] &= (uint8_t)~0x01u; /* unicast */
	m.b[0] |= 0x02u;	   /* locally administered */
	*ret = m;
	return 0;
}
