/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <ctype.h>
#include <endian.h>

#include "addr-util.h"
#include "parse-util.h"

/* n bytes as two hex digits each, separated by ':'. */
static int colon_hex_parse(const char *s, uint8_t *out, size_t n)
{
	if (!s || strlen(s) != n * 3 - 1)
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		const char *p = s + i * 3;
		int hi = hexval(p[0]), lo = hexval(p[1]);

		if (hi < 0 || lo < 0 || (i + 1 < n && p[2] != ':'))
			return -EINVAL;
		out[i] = (uint8_t)(hi << 4 | lo);
	}
	return 0;
}

int mac_parse(const char *s, struct mac_addr *ret)
{
	struct mac_addr m;

	if (colon_hex_parse(s, m.b, sizeof(m.b)) < 0)
		return -EINVAL;
	*ret = m;
	return 0;
}

char *mac_format(const struct mac_addr *m, char buf[static MAC_STR_MAX])
{
	snprintf(buf, MAC_STR_MAX, "%02x:%02x:%02x:%02x:%02x:%02x", m->b[0], m->b[1], m->b[2],
		 m->b[3], m->b[4], m->b[5]);
	return buf;
}

int guid_parse(const char *s, uint64_t *ret)
{
	uint64_t be;

	if (colon_hex_parse(s, (uint8_t *)&be, sizeof(be)) < 0)
		return -EINVAL;
	*ret = be64toh(be);
	return 0;
}

char *guid_format(uint64_t g, char buf[static GUID_STR_MAX])
{
	char *p = buf;

	for (int i = 7; i >= 0; i--)
		p += snprintf(p, GUID_STR_MAX - (size_t)(p - buf), i ? "%02x:" : "%02x",
			      (unsigned)(g >> (8 * i)) & 0xffu);
	return buf;
}

bool mac_is_zero(const struct mac_addr *m)
{
	static const struct mac_addr zero;

	return mac_equal(m, &zero);
}

bool mac_is_multicast(const struct mac_addr *m)
{
	return m->b[0] & 0x01;
}

int pci_addr_parse(const char *s, uint32_t *ret_domain, uint32_t *ret_rid)
{
	unsigned dom, bus, dev, fn;
	int n = 0;

	if (!s || strlen(s) != 12)
		return -EINVAL;
	for (size_t i = 0; i < 12; i++) {
		char c = s[i];

		if (i == 4 || i == 7) {
			if (c != ':')
				return -EINVAL;
		} else if (i == 10) {
			if (c != '.')
				return -EINVAL;
		} else if (!isxdigit((unsigned char)c) || isupper((unsigned char)c)) {
			return -EINVAL;
		}
	}
	if (sscanf(s, "%4x:%2x:%2x.%1x%n", &dom, &bus, &dev, &fn, &n) != 4 || n != 12)
		return -EINVAL;
	if (dev > 0x1f || fn > 7)
		return -EINVAL;
	if (ret_domain)
		*ret_domain = dom;
	if (ret_rid)
		*ret_rid = bus << 8 | dev << 3 | fn;
	return 0;
}

bool pci_addr_is_valid(const char *s)
{
	return pci_addr_parse(s, NULL, NULL) >= 0;
}

bool pci_same_device(const char *a, const char *b)
{
	const char *da = strrchr(a, '.'), *db = strrchr(b, '.');

	return da && db && da - a == db - b && strncmp(a, b, (size_t)(da - a)) == 0;
}

void pci_addr_format(uint32_t domain, uint32_t rid, char buf[static PCI_ADDR_MAX])
{
	snprintf(buf, PCI_ADDR_MAX, "%04x:%02x:%02x.%x", domain & 0xffff, (rid >> 8) & 0xff,
		 (rid >> 3) & 0x1f, rid & 0x7);
}

bool ifname_is_valid(const char *s)
{
	size_t n;

	if (!s)
		return false;
	n = strlen(s);
	if (n == 0 || n >= 16 || streq(s, ".") || streq(s, ".."))
		return false;
	for (const char *p = s; *p; p++)
		if (*p == '/' || *p == ':' || isspace((unsigned char)*p) ||
		    !isprint((unsigned char)*p))
			return false;
	return true;
}
