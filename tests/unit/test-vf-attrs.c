/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "vf-attrs.h"

/* Every key has a layout name that finds it again; exactly the netlink keys
 * have an ip name; a group is the same seen from each of its keys. */
static void test_table(void **state)
{
	for (enum vf_key k = 0; k < _VF_KEY_MAX; k++) {
		uint32_t g = vf_key_group(k);

		assert_non_null(vf_key_to_string(k));
		assert_int_equal(vf_key_from_string(vf_key_to_string(k)), k);
		assert_int_equal(vf_key_to_ip_name(k) != NULL, (VF_NETLINK_KEYS >> k) & 1);
		assert_true(g & (1u << k));
		for (enum vf_key j = 0; j < _VF_KEY_MAX; j++)
			if (g & (1u << j))
				assert_int_equal(vf_key_group(j), g);
		if (g != (1u << k))
			assert_int_equal(g & ~VF_NETLINK_KEYS, 0);
	}
	/* every key has a name for status tables, and only the resource name
	 * and HostNetworkStack= have no value on a host */
	for (enum vf_key k = 0; k < _VF_KEY_MAX; k++) {
		assert_non_null(vf_key_to_label(k));
		assert_int_equal(vf_key_on_host(k),
				 k != VF_KEY_RESOURCE_NAME && k != VF_KEY_HOST_NETWORK_STACK);
	}
	assert_string_equal(vf_key_to_label(VF_KEY_HOST_NETWORK_STACK), "host_network_stack");
	assert_string_equal(vf_key_to_label(VF_KEY_MAX_TX_RATE), "max_tx_rate");
	assert_string_equal(vf_key_to_label(VF_KEY_MTU), "mtu");
	assert_null(vf_key_to_string(_VF_KEY_MAX));
	assert_int_equal(vf_key_from_string("macaddress"), _VF_KEY_INVALID);
	assert_int_equal(vf_key_from_string(NULL), _VF_KEY_INVALID);
	assert_int_equal(vf_key_group(VF_KEY_QOS),
			 VF_KEY_BIT(VLAN) | VF_KEY_BIT(QOS) | VF_KEY_BIT(VLAN_PROTO));
	assert_int_equal(vf_key_group(VF_KEY_MAX_TX_RATE),
			 VF_KEY_BIT(MIN_TX_RATE) | VF_KEY_BIT(MAX_TX_RATE));
	/* the kernel takes one GUID per request */
	assert_int_equal(vf_key_group(VF_KEY_IB_NODE_GUID), VF_KEY_BIT(IB_NODE_GUID));
	assert_int_equal(vf_key_group(VF_KEY_IB_PORT_GUID), VF_KEY_BIT(IB_PORT_GUID));
	for (enum vf_key k = 0; k < _VF_KEY_MAX; k++)
		assert_int_equal(vf_key_is_unique(k), k == VF_KEY_MAC || k == VF_KEY_IB_NODE_GUID ||
							      k == VF_KEY_IB_PORT_GUID);
}

/* Each key: a value as a layout writes it, and the same value formatted back
 * both ways. */
static const struct {
	enum vf_key key;
	const char *in, *layout, *ip;
} good[] = {
	{ VF_KEY_DRIVER, "vfio-pci", "vfio-pci", "vfio-pci" },
	{ VF_KEY_DRIVER, "default", "default", "default" },
	{ VF_KEY_MAC, "02:AA:00:00:00:01", "02:aa:00:00:00:01", "02:aa:00:00:00:01" },
	{ VF_KEY_IB_NODE_GUID, "00:02:C9:03:00:21:6e:70", "00:02:c9:03:00:21:6e:70",
	  "00:02:c9:03:00:21:6e:70" },
	{ VF_KEY_IB_PORT_GUID, "ff:ff:ff:ff:ff:ff:ff:fe", "ff:ff:ff:ff:ff:ff:ff:fe",
	  "ff:ff:ff:ff:ff:ff:ff:fe" },
	{ VF_KEY_VLAN, "4095", "4095", "4095" },
	{ VF_KEY_QOS, "7", "7", "7" },
	{ VF_KEY_VLAN_PROTO, "802.1ad", "802.1ad", "802.1ad" },
	{ VF_KEY_TRUST, "on", "yes", "on" },
	{ VF_KEY_SPOOFCHK, "false", "no", "off" },
	{ VF_KEY_LINK_STATE, "auto", "auto", "auto" },
	{ VF_KEY_LINK_STATE, "yes", "yes", "enable" },
	{ VF_KEY_LINK_STATE, "0", "no", "disable" },
	{ VF_KEY_QUERY_RSS, "1", "yes", "on" },
	{ VF_KEY_MIN_TX_RATE, "4294967295", "4294967295", "4294967295" },
	{ VF_KEY_MAX_TX_RATE, "0", "0", "0" },
	{ VF_KEY_MTU, "9000", "9000", "9000" },
	{ VF_KEY_RDMA, "yes", "yes", "on" },
	{ VF_KEY_RESOURCE_NAME, "intel_sriov_netdevice", "intel_sriov_netdevice",
	  "intel_sriov_netdevice" },
	{ VF_KEY_HOST_NETWORK_STACK, "unmanaged", "unmanaged", "unmanaged" },
	{ VF_KEY_HOST_NETWORK_STACK, "managed", "managed", "managed" },
};

static void test_parse_format(void **state)
{
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		struct vf_attrs a = {}, b = {};
		char buf[VF_ATTR_STR_MAX];
		const char *why = NULL;

		assert_int_equal(vf_attrs_parse(&a, good[i].key, good[i].in, &why), 0);
		assert_string_equal(vf_attrs_format(&a, good[i].key, VF_SPELLING_LAYOUT, buf),
				    good[i].layout);
		assert_string_equal(vf_attrs_format(&a, good[i].key, VF_SPELLING_IP, buf),
				    good[i].ip);
		/* status: ip-link's on/off, the layout's words for the link state */
		assert_string_equal(vf_attrs_format(&a, good[i].key, VF_SPELLING_STATUS, buf),
				    good[i].key == VF_KEY_LINK_STATE ? good[i].layout : good[i].ip);
		/* what a layout writes parses to the same value */
		assert_int_equal(vf_attrs_parse(&b, good[i].key, good[i].layout, &why), 0);
		assert_true(vf_attrs_equal(&a, &b, good[i].key));
		vf_attrs_done(&a);
		vf_attrs_done(&b);
	}
}

static const struct {
	enum vf_key key;
	const char *in, *why;
} bad[] = {
	{ VF_KEY_DRIVER, "vfio/pci", "must be default or a module name" },
	{ VF_KEY_DRIVER, "", "must be default or a module name" },
	{ VF_KEY_MAC, "stable", "must be stable or an address" },
	{ VF_KEY_MAC, "01:00:5e:00:00:01", "must be a unicast address" },
	{ VF_KEY_MAC, "00:00:00:00:00:00", "must not be 00:00:00:00:00:00" },
	{ VF_KEY_IB_NODE_GUID, "stable", "must be stable or a GUID" },
	{ VF_KEY_IB_NODE_GUID, "00:02:c9:03:00:21:6e", "must be stable or a GUID" },
	{ VF_KEY_IB_NODE_GUID, "00:02:c9:03:00:21:6e:7", "must be stable or a GUID" },
	{ VF_KEY_IB_PORT_GUID, "0002:c903:0021:6e70", "must be stable or a GUID" },
	{ VF_KEY_IB_PORT_GUID, "00:00:00:00:00:00:00:00", "must not be 00:00:00:00:00:00:00:00" },
	{ VF_KEY_VLAN, "4096", "must be 0..4095" },
	{ VF_KEY_VLAN, "-1", "must be 0..4095" },
	{ VF_KEY_QOS, "8", "must be 0..7" },
	{ VF_KEY_VLAN_PROTO, "802.1q", "must be 802.1Q or 802.1ad" },
	{ VF_KEY_TRUST, "maybe", "must be a boolean" },
	{ VF_KEY_LINK_STATE, "enable", "must be auto, yes or no" },
	{ VF_KEY_MAX_TX_RATE, "4294967296", "must be 0..4294967295" },
	{ VF_KEY_MTU, "67", "must be 68..65535" },
	{ VF_KEY_RESOURCE_NAME, "intel-sriov", "must be 1..63 letters, digits or '_'" },
	{ VF_KEY_HOST_NETWORK_STACK, "no", "must be managed or unmanaged" },
	{ VF_KEY_HOST_NETWORK_STACK, "Unmanaged", "must be managed or unmanaged" },
};

/* A refused value says why and leaves the field alone. */
static void test_parse_refused(void **state)
{
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct vf_attrs a, before;
		const char *why = NULL;

		a = (struct vf_attrs){ .vlan = 7, .qos = 1, .mtu = 1500, .trust = true };
		before = a;
		assert_int_equal(vf_attrs_parse(&a, bad[i].key, bad[i].in, &why), -EINVAL);
		assert_non_null(why);
		assert_non_null(strstr(why, bad[i].why));
		assert_true(vf_attrs_equal(&a, &before, bad[i].key));
	}
}

static void test_copy_equal_clear(void **state)
{
	struct vf_attrs a = {}, b = {};
	const char *why;

	assert_int_equal(vf_attrs_parse(&a, VF_KEY_DRIVER, "vfio-pci", &why), 0);
	assert_int_equal(vf_attrs_parse(&a, VF_KEY_VLAN, "100", &why), 0);
	assert_false(vf_attrs_equal(&a, &b, VF_KEY_DRIVER));
	assert_false(vf_attrs_equal(&a, &b, VF_KEY_VLAN));
	assert_true(vf_attrs_equal(&a, &b, VF_KEY_QOS));
	assert_int_equal(vf_attrs_copy(&b, &a, VF_KEY_DRIVER), 0);
	assert_int_equal(vf_attrs_copy(&b, &a, VF_KEY_VLAN), 0);
	assert_true(vf_attrs_equal(&a, &b, VF_KEY_DRIVER));
	assert_ptr_not_equal(a.driver, b.driver); /* a copy, not the same string */
	assert_int_equal(b.vlan, 100);
	vf_attrs_clear(&b, VF_KEY_DRIVER);
	assert_null(b.driver);
	vf_attrs_clear(&b, VF_KEY_VLAN);
	assert_int_equal(b.vlan, 0);
	vf_attrs_done(&a);
	vf_attrs_done(&b);
}

/* The kernel's values for a new VF: what a driver without the attribute
 * "has". Keys without one are never default. */
static void test_defaults(void **state)
{
	struct vf_attrs a = { .spoofchk = true };

	for (enum vf_key k = 0; k < _VF_KEY_MAX; k++)
		assert_int_equal(vf_attrs_is_default(&a, k),
				 (VF_NETLINK_KEYS & ~(VF_KEY_BIT(MAC) | VF_KEY_BIT(IB_NODE_GUID) |
						      VF_KEY_BIT(IB_PORT_GUID))) >>
						 k &
					 1);
	a.spoofchk = false;
	a.trust = true;
	a.link_state = LINK_STATE_DISABLE;
	a.vlan_proto = VLAN_PROTO_8021AD;
	a.max_tx_rate = 1;
	assert_false(vf_attrs_is_default(&a, VF_KEY_SPOOFCHK));
	assert_false(vf_attrs_is_default(&a, VF_KEY_TRUST));
	assert_false(vf_attrs_is_default(&a, VF_KEY_LINK_STATE));
	assert_false(vf_attrs_is_default(&a, VF_KEY_VLAN_PROTO));
	assert_false(vf_attrs_is_default(&a, VF_KEY_MAX_TX_RATE));
	assert_true(vf_attrs_is_default(&a, VF_KEY_MIN_TX_RATE));
}

/* What a host has: nothing for no driver, no netdev, a GUID never set or
 * the resource name; the rest as vf_attrs_format() gives it. */
static void test_format_host(void **state)
{
	struct vf_attrs a;
	char buf[VF_ATTR_STR_MAX];

	vf_attrs_init(&a);
	assert_null(vf_attrs_format_host(&a, VF_KEY_DRIVER, VF_SPELLING_LAYOUT, buf));
	assert_null(vf_attrs_format_host(&a, VF_KEY_MTU, VF_SPELLING_LAYOUT, buf));
	assert_null(vf_attrs_format_host(&a, VF_KEY_IB_NODE_GUID, VF_SPELLING_LAYOUT, buf));
	/* no netdev: no MTU; the PF's netlink has the VF's link state and rates */
	assert_false(vf_attrs_host_has(&a, VF_KEY_MTU));
	assert_false(vf_attrs_host_has(&a, VF_KEY_DRIVER));
	assert_true(vf_attrs_host_has(&a, VF_KEY_LINK_STATE));
	assert_true(vf_attrs_host_has(&a, VF_KEY_MAX_TX_RATE));
	assert_true(vf_attrs_host_has(&a, VF_KEY_VLAN));
	assert_string_equal(vf_attrs_format_host(&a, VF_KEY_MAX_TX_RATE, VF_SPELLING_IP, buf), "0");
	assert_string_equal(vf_attrs_format_host(&a, VF_KEY_SPOOFCHK, VF_SPELLING_LAYOUT, buf),
			    "yes");
	assert_string_equal(vf_attrs_format_host(&a, VF_KEY_MAC, VF_SPELLING_IP, buf),
			    "00:00:00:00:00:00");
	a.mtu = 1500;
	a.ib_port_guid = 1;
	a.driver = strdup("iavf");
	a.resource_name = strdup("x");
	assert_string_equal(vf_attrs_format_host(&a, VF_KEY_MTU, VF_SPELLING_IP, buf), "1500");
	assert_string_equal(vf_attrs_format_host(&a, VF_KEY_IB_PORT_GUID, VF_SPELLING_IP, buf),
			    "00:00:00:00:00:00:00:01");
	assert_string_equal(vf_attrs_format_host(&a, VF_KEY_DRIVER, VF_SPELLING_IP, buf), "iavf");
	assert_null(vf_attrs_format_host(&a, VF_KEY_RESOURCE_NAME, VF_SPELLING_IP, buf));
	assert_true(vf_attrs_host_has(&a, VF_KEY_MTU));
	assert_false(vf_attrs_host_has(&a, VF_KEY_RESOURCE_NAME));
	vf_attrs_done(&a);
}

/* The host documents' names, in the order the snapshot and the status
 * document have always written them; the status document's VFs leave out
 * the VLAN protocol, RSS query and rates; an MTU of 0 (no netdev) is a
 * host's value. */
static void test_host_fields(void **state)
{
	static const char *const snapshot[] = {
		"driver",      "mac",	       "vlan",	       "qos",	    "vlan_proto",
		"trust",       "spoofchk",     "link_state",   "query_rss", "min_tx_rate",
		"max_tx_rate", "ib_node_guid", "ib_port_guid", "mtu",	    "rdma",
	};
	static const char *const status[] = {
		"driver",     "mac",	      "vlan",	      "qos", "trust", "spoofchk",
		"link_state", "ib_node_guid", "ib_port_guid", "mtu", "rdma",
	};
	size_t n = 0, n_status = 0;

	for (enum vf_key k = 0; k < _VF_KEY_MAX; k++) {
		struct vf_key_field f;

		if (!vf_key_host_field(k, &f)) {
			assert_true(k == VF_KEY_RESOURCE_NAME || k == VF_KEY_HOST_NETWORK_STACK);
			continue;
		}
		assert_true(n < ELEMENTSOF(snapshot));
		assert_string_equal(f.name, snapshot[n++]);
		if (f.in_status) {
			assert_true(n_status < ELEMENTSOF(status));
			assert_string_equal(f.name, status[n_status++]);
		}
		assert_int_equal(f.optional, k == VF_KEY_QUERY_RSS || k == VF_KEY_IB_NODE_GUID ||
						     k == VF_KEY_IB_PORT_GUID);
		if (k == VF_KEY_MTU) {
			assert_int_equal(f.min, 0);
			assert_int_equal(f.max, 65535);
		}
	}
	assert_int_equal(n, ELEMENTSOF(snapshot));
	assert_int_equal(n_status, ELEMENTSOF(status));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_host_fields),
		cmocka_unit_test(test_parse_format),
		cmocka_unit_test(test_parse_refused),
		cmocka_unit_test(test_copy_equal_clear),
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_format_host),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
