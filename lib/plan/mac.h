/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Stable VF identifiers: MACAddress=stable, IBNodeGUID=stable,
 * IBPortGUID=stable. */

#include "util.h"

/* A locally administered unicast address derived from the machine ID, the
 * PF's permanent address and the VF index: HMAC-SHA256 keyed with the
 * machine ID over an application tag, the permanent address and the index
 * (little endian 32 bit), first six bytes, multicast bit cleared, local bit
 * set. The machine ID itself cannot be recovered from the result. Same
 * inputs, same address. Returns 0 or -EIO when the hash fails. */
int mac_stable(const uint8_t machine_id[static 16], const struct mac_addr *pf_permanent,
	       uint32_t vf_index, struct mac_addr *ret);
/* The same for a VF's node GUID (port false) or port GUID (port true), over
 * the PF's PCI address ("0000:81:00.0"): an InfiniBand PF has no 6-byte
 * permanent address. The card keeps its GUIDs as long as it stays in its
 * slot. First eight bytes, the first byte most significant; never zero. */
int guid_stable(const uint8_t machine_id[static 16], const char *pf_pci, bool port,
		uint32_t vf_index, uint64_t *ret);
