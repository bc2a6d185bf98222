/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Device addresses and names as text: MAC addresses, InfiniBand GUIDs, PCI
 * addresses, network interface names. */

#include <stdint.h>

#include "macro.h"

#define ETHER_ADDR_LEN_ 6
#define MAC_STR_MAX 18
struct mac_addr {
	uint8_t b[ETHER_ADDR_LEN_];
};
/* xx:xx:xx:xx:xx:xx, hex digits either case. */
int mac_parse(const char *s, struct mac_addr *ret);
/* Lower case; buf must hold MAC_STR_MAX bytes. Returns buf. */
char *mac_format(const struct mac_addr *m, char buf[static MAC_STR_MAX]);
bool mac_is_zero(const struct mac_addr *m) _pure_;
bool mac_is_multicast(const struct mac_addr *m) _pure_;
static inline bool mac_equal(const struct mac_addr *a, const struct mac_addr *b)
{
	return memcmp(a->b, b->b, ETHER_ADDR_LEN_) == 0;
}

/* InfiniBand GUIDs (EUI-64) as ip-link(8) writes them, 8 bytes in
 * xx:xx:xx:xx:xx:xx:xx:xx, the first byte the most significant of the
 * number (struct ifla_vf_guid's __u64). */
#define GUID_STR_MAX 24
int guid_parse(const char *s, uint64_t *ret);
/* Lower case; returns buf. */
char *guid_format(uint64_t g, char buf[static GUID_STR_MAX]);

/* PCI addresses in the kernel's form, dddd:bb:dd.f (lower case). */
#define PCI_ADDR_MAX 16 /* "0000:3b:00.0" + NUL, with room */
bool pci_addr_is_valid(const char *s) _pure_;
/* Routing ID (bus<<8 | dev<<3 | fn) and domain of a valid address. */
int pci_addr_parse(const char *s, uint32_t *ret_domain, uint32_t *ret_rid);
void pci_addr_format(uint32_t domain, uint32_t rid, char buf[static PCI_ADDR_MAX]);
/* Whether two PCI addresses are functions of one device ("0000:41:00.0"
 * and "0000:41:00.1": the same card's two ports). */
bool pci_same_device(const char *a, const char *b) _pure_;

/* Network interface names as the kernel allows them (IFNAMSIZ-1, no '/', no whitespace). */
bool ifname_is_valid(const char *s) _pure_;
