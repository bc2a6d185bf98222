/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* Stable VF identifiers: HMAC-SHA256(key = machine ID, message = tag || PF
 * identity || VF index as 32 bit little endian), as systemd derives stable
 * IDs from the machine ID without revealing it. */

#include <endian.h>
#include <gcrypt.h>

#include "mac.h"

#define MAC_STABLE_TAG "sriov-persist-vf-mac-v1"
#define NODE_GUID_STABLE_TAG "sriov-persist-vf-node-guid-v1"
#define PORT_GUID_STABLE_TAG "sriov-persist-vf-port-guid-v1"

/* libgcrypt wants to be set up once per process before its first use; a
 * library in the same process (libsystemd) may have done it already. No
 * secure memory: the key is the machine ID, which is not a secret here. */
static int gcrypt_setup(void)
{
	if (gcry_control(GCRYCTL_INITIALIZATION_FINISHED_P))
		return 0;
	if (!gcry_check_version(GCRYPT_VERSION))
		return -EIO;
	gcry_control(GCRYCTL_DISABLE_SECMEM, 0);
	gcry_control(GCRYCTL_INITIALIZATION_FINISHED, 0);
	return 0;
}

static int hmac_sha256(const uint8_t key[static 16], const void *msg, size_t len,
		       uint8_t ret[static 32])
{
	gcry_mac_hd_t h;
	size_t n = 32;
	int r;

	r = gcrypt_setup();
	if (r < 0)
		return r;
	if (gcry_mac_open(&h, GCRY_MAC_HMAC_SHA256, 0, NULL) != 0)
		return -EIO;
	r = gcry_mac_setkey(h, key, 16) != 0 || gcry_mac_write(h, msg, len) != 0 ||
			    gcry_mac_read(h, ret, &n) != 0 || n != 32 ?
		    -EIO :
		    0;
	gcry_mac_close(h);
	return r;
}

/* The first n bytes of the digest, made a locally administered unicast
 * (individual) identifier: the two low bits of the first byte, as in MACs
 * and EUI-64s alike. */
static int stable_bytes(const uint8_t machine_id[static 16], const char *tag, const void *id,
			size_t id_len, uint32_t vf_index, uint8_t *ret, size_t n)
{
	size_t tag_len = strlen(tag);
	uint8_t msg[64 + PCI_ADDR_MAX + 4];
	uint8_t digest[32];
	int r;

	if (tag_len + id_len + 4 > sizeof(msg))
		return -EINVAL;
	memcpy(msg, tag, tag_len);
	memcpy(msg + tag_len, id, id_len);
	for (unsigned i = 0; i < 4; i++)
		msg[tag_len + id_len + i] = (uint8_t)(vf_index >> (8 * i));

	r = hmac_sha256(machine_id, msg, tag_len + id_len + 4, digest);
	if (r < 0 || n > sizeof(digest))
		return r < 0 ? r : -EINVAL;
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
