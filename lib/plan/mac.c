/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* Stable VF identifiers: HMAC-SHA256(key = machine ID, message = tag || PF
 * identity || VF index as 32 bit little endian), as systemd derives stable
 * IDs from the machine ID without revealing it. */

#include <endian.h>
#include <openssl/evp.h>

#include "mac.h"

#define MAC_STABLE_TAG "sriov-persist-vf-mac-v1"
#define NODE_GUID_STABLE_TAG "sriov-persist-vf-node-guid-v1"
#define PORT_GUID_STABLE_TAG "sriov-persist-vf-port-guid-v1"

/* The first n bytes of the digest, made a locally administered unicast
 * (individual) identifier: the two low bits of the first byte, as in MACs
 * and EUI-64s alike. */
static int stable_bytes(const uint8_t machine_id[static 16], const char *tag, const void *id,
			size_t id_len, uint32_t vf_index, uint8_t *ret, size_t n)
{
	size_t tag_len = strlen(tag), len = 0;
	uint8_t msg[64 + PCI_ADDR_MAX + 4];
	uint8_t digest[EVP_MAX_MD_SIZE];

	if (tag_len + id_len + 4 > sizeof(msg))
		return -EINVAL;
	memcpy(msg, tag, tag_len);
	memcpy(msg + tag_len, id, id_len);
	for (unsigned i = 0; i < 4; i++)
		msg[tag_len + id_len + i] = (uint8_t)(vf_index >> (8 * i));

	if (!EVP_Q_mac(NULL, "HMAC", NULL, "SHA256", NULL, machine_id, 16, msg,
		       tag_len + id_len + 4, digest, sizeof(digest), &len) ||
	    len < n)
		return -EIO;
	memcpy(ret, digest, n);
	ret[0] &= (uint8_t)~0x01u; /* unicast */
	ret[0] |= 0x02u;	   /* locally administered */
	return 0;
}

int mac_stable(const uint8_t machine_id[static 16], const struct mac_addr *pf_permanent,
	       uint32_t vf_index, struct mac_addr *ret)
{
	return stable_bytes(machine_id, MAC_STABLE_TAG, pf_permanent->b, ETHER_ADDR_LEN_, vf_index,
			    ret->b, ETHER_ADDR_LEN_);
}

int guid_stable(const uint8_t machine_id[static 16], const char *pf_pci, bool port,
		uint32_t vf_index, uint64_t *ret)
{
	uint64_t be;
	int r;

	r = stable_bytes(machine_id, port ? PORT_GUID_STABLE_TAG : NODE_GUID_STABLE_TAG, pf_pci,
			 strlen(pf_pci), vf_index, (uint8_t *)&be, sizeof(be));
	if (r < 0)
		return r;
	*ret = be64toh(be);
	return 0;
}
