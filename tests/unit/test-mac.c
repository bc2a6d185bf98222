/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "mac.h"

static const uint8_t machine_id[16] = { 0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77,
					0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff };
static const struct mac_addr pf_mac = { { 0xb4, 0x96, 0x91, 0xaa, 0xbb, 0x00 } };

static void assert_mac_str(const struct mac_addr *m, const char *want)
{
	char buf[MAC_STR_MAX];

	assert_string_equal(mac_format(m, buf), want);
}

/* Computed once with
 *   printf 'sriov-persist-vf-mac-v1\xb4\x96\x91\xaa\xbb\x00\x03\x00\x00\x00' |
 *   openssl dgst -sha256 -mac HMAC -macopt hexkey:00112233445566778899aabbccddeeff
 * = b79fd591fda5...: b7 -> b6 (multicast bit cleared, local bit set). */
static void test_vector(void **state)
{
	struct mac_addr m;

	assert_int_equal(mac_stable(machine_id, &pf_mac, 3, &m), 0);
	assert_mac_str(&m, "b6:9f:d5:91:fd:a5");
}

/* The index is little endian: 0x01020304 is hashed as 04 03 02 01
 * (openssl: b52d63e080dc...). */
static void test_vector_index_byte_order(void **state)
{
	struct mac_addr m;

	assert_int_equal(mac_stable(machine_id, &pf_mac, 0x01020304, &m), 0);
	assert_mac_str(&m, "b6:2d:63:e0:80:dc");
}

static void test_same_inputs_same_mac(void **state)
{
	struct mac_addr a, b;

	assert_int_equal(mac_stable(machine_id, &pf_mac, 7, &a), 0);
	assert_int_equal(mac_stable(machine_id, &pf_mac, 7, &b), 0);
	assert_true(mac_equal(&a, &b));
}

static void test_differs(void **state)
{
	struct mac_addr base, m, other_pf = pf_mac;
	uint8_t other_id[16];

	memcpy(other_id, machine_id, sizeof(other_id));
	other_id[15] ^= 0x01;
	other_pf.b[5] = 0x01;

	assert_int_equal(mac_stable(machine_id, &pf_mac, 0, &base), 0);
	assert_int_equal(mac_stable(machine_id, &pf_mac, 1, &m), 0);
	assert_false(mac_equal(&base, &m));
	assert_int_equal(mac_stable(machine_id, &other_pf, 0, &m), 0);
	assert_false(mac_equal(&base, &m));
	assert_int_equal(mac_stable(other_id, &pf_mac, 0, &m), 0);
	assert_false(mac_equal(&base, &m));
}

/* Over many indexes: never multicast, always locally administered, never
 * zero, and no two alike. */
static void test_local_unicast(void **state)
{
	enum {
		N = 512
	};
	struct mac_addr m[N];

	for (uint32_t i = 0; i < N; i++) {
		assert_int_equal(mac_stable(machine_id, &pf_mac, i, &m[i]), 0);
		assert_false(mac_is_multicast(&m[i]));
		assert_int_equal(m[i].b[0] & 0x03, 0x02);
		assert_false(mac_is_zero(&m[i]));
		for (uint32_t j = 0; j < i; j++)
			assert_false(mac_equal(&m[i], &m[j]));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vector),
		cmocka_unit_test(test_vector_index_byte_order),
		cmocka_unit_test(test_same_inputs_same_mac),
		cmocka_unit_test(test_differs),
		cmocka_unit_test(test_local_unicast),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
