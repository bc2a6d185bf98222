/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Stable VF MAC addresses (MACAddress=stable). */

#include "util.h"

/* A locally administered unicast address derived from the machine ID, the
 * PF's permanent address and the VF index: HMAC-SHA256 keyed with the
 * machine ID over an application tag, the permanent address and the index
 * (little endian 32 bit), first six bytes, multicast bit cleared, local bit
 * set. The machine ID itself cannot be recovered from the result. Same
 * inputs, same address. Returns 0 or -EIO when the hash fails. */
int mac_stable(const uint8_t machine_id[static 16], const struct mac_addr *pf_permanent,
	       uint32_t vf_index, struct mac_addr *ret);
