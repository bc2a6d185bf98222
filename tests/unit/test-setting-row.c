/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* The rows that status's settings and the daemon's Settings and
 * VirtualFunctionSettings properties share. */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "setting-row.h"

static void assert_source(const struct setting_row *row, const char *want)
{
	_cleanup_free_ char *at = NULL;

	assert_int_equal(setting_row_source(row, &at), 0);
	if (want)
		assert_string_equal(at, want);
	else
		assert_null(at);
}

static void test_pf(void **state)
{
	struct pf_state pf = { .name = (char *)"ens1f0", .mtu = 1500 };
	struct pf_settings s = { .set = 1u << PF_KEY_MTU, .mtu = 9000 };
	struct setting_row row;

	s.src[PF_KEY_MTU] = (struct src){ "/etc/sriov-persist/conf.d/50-a.conf", 5 };
	pf_setting_row(&pf, &s, PF_KEY_MTU, &row);
	assert_string_equal(row.key, "MTUBytes");
	assert_string_equal(row.now, "1500");
	assert_string_equal(row.wanted, "9000");
	assert_source(&row, "/etc/sriov-persist/conf.d/50-a.conf:5");

	/* a key the layout leaves alone, and a PF no layout selects */
	pf_setting_row(&pf, &s, PF_KEY_LINK_UP, &row);
	assert_string_equal(row.key, "LinkUp");
	assert_null(row.wanted);
	assert_source(&row, NULL);
	pf_setting_row(&pf, NULL, PF_KEY_MTU, &row);
	assert_string_equal(row.now, "1500");
	assert_null(row.wanted);

	/* no netdev: no MTU to show */
	pf.name = NULL;
	pf_setting_row(&pf, &s, PF_KEY_MTU, &row);
	assert_null(row.now);
	assert_string_equal(row.wanted, "9000");
}

static void test_vf(void **state)
{
	struct pf_state pf = { .driver = (char *)"ice" };
	struct vf_state vf = { .attrs.vlan = 7 };
	struct vf_settings v = {
		.set = (1u << VF_KEY_VLAN) | (1u << VF_KEY_MAC),
		.stable = 1u << VF_KEY_MAC,
		.attrs.vlan = 10,
	};
	struct setting_row row;

	v.src[VF_KEY_VLAN] = (struct src){ "/etc/sriov-persist/conf.d/50-a.conf", 7 };
	v.src[VF_KEY_MAC] = (struct src){ "/etc/sriov-persist/conf.d/50-a.conf", 6 };
	vf_setting_row(&pf, &vf, &v, VF_KEY_VLAN, &row);
	assert_string_equal(row.key, "VLANId");
	assert_string_equal(row.now, "7");
	assert_string_equal(row.wanted, "10");
	assert_source(&row, "/etc/sriov-persist/conf.d/50-a.conf:7");

	/* "stable" not derived yet is wanted as written */
	vf_setting_row(&pf, &vf, &v, VF_KEY_MAC, &row);
	assert_string_equal(row.wanted, "stable");
	assert_source(&row, "/etc/sriov-persist/conf.d/50-a.conf:6");

	/* a VF the host does not have; a VF the layouts say nothing of */
	vf_setting_row(&pf, NULL, &v, VF_KEY_VLAN, &row);
	assert_null(row.now);
	assert_string_equal(row.wanted, "10");
	vf_setting_row(&pf, &vf, NULL, VF_KEY_VLAN, &row);
	assert_string_equal(row.now, "7");
	assert_null(row.wanted);
	assert_source(&row, NULL);
}

/* Driver= unset: a VF on no driver whose layout needs a netdev is wanted on
 * the kernel's VF driver, as the plan binds it, from the RDMA= line; on a
 * driver it is left as it is. ResourceName= is no host value: a VF the host
 * has is in its pool. */
static void test_vf_row_implied(void **state)
{
	struct pf_state pf = { .driver = (char *)"mlx5_core" };
	struct vf_state unbound = {}, bound = { .attrs.driver = (char *)"vfio-pci" };
	struct vf_settings v = {
		.set = (1u << VF_KEY_RDMA) | (1u << VF_KEY_RESOURCE_NAME),
		.attrs = { .rdma = true, .resource_name = (char *)"cx7_ib" },
	};
	struct setting_row row;

	v.src[VF_KEY_RDMA] = (struct src){ "50-a.conf", 9 };
	v.src[VF_KEY_RESOURCE_NAME] = (struct src){ "50-a.conf", 10 };
	vf_setting_row(&pf, &unbound, &v, VF_KEY_DRIVER, &row);
	assert_null(row.now);
	assert_string_equal(row.wanted, "mlx5_core");
	assert_source(&row, "50-a.conf:9");
	pf.vf_driver = (char *)"mlx5_vf";
	vf_setting_row(&pf, &unbound, &v, VF_KEY_DRIVER, &row);
	assert_string_equal(row.wanted, "mlx5_vf");
	vf_setting_row(&pf, &bound, &v, VF_KEY_DRIVER, &row);
	assert_string_equal(row.now, "vfio-pci");
	assert_null(row.wanted);
	v.set = 1u << VF_KEY_RESOURCE_NAME;
	vf_setting_row(&pf, &unbound, &v, VF_KEY_DRIVER, &row);
	assert_null(row.wanted);

	/* Driver=default: wanted as the driver it binds, from its line;
	 * "default" where the PF's driver has no VF driver known */
	v.set |= 1u << VF_KEY_DRIVER;
	v.src[VF_KEY_DRIVER] = (struct src){ "50-a.conf", 11 };
	vf_setting_row(&pf, &bound, &v, VF_KEY_DRIVER, &row);
	assert_string_equal(row.wanted, "mlx5_vf");
	assert_source(&row, "50-a.conf:11");
	pf = (struct pf_state){ .driver = (char *)"no-such-driver" };
	vf_setting_row(&pf, &bound, &v, VF_KEY_DRIVER, &row);
	assert_string_equal(row.wanted, "default");
	v.set = 1u << VF_KEY_RESOURCE_NAME;

	vf_setting_row(&pf, &unbound, &v, VF_KEY_RESOURCE_NAME, &row);
	assert_string_equal(row.now, "cx7_ib");
	assert_string_equal(row.wanted, "cx7_ib");
	assert_source(&row, "50-a.conf:10");
	vf_setting_row(&pf, NULL, &v, VF_KEY_RESOURCE_NAME, &row);
	assert_null(row.now);
	assert_string_equal(row.wanted, "cx7_ib");
}

static void test_vf_differ(void **state)
{
	struct vf_state vf = { .attrs = { .driver = (char *)"iavf", .trust = true, .mtu = 1500 } };
	struct vf_settings v = {
		.set = VF_KEY_BIT(TRUST) | VF_KEY_BIT(VLAN) | VF_KEY_BIT(MAC) |
		       VF_KEY_BIT(RESOURCE_NAME) | VF_KEY_BIT(DRIVER) | VF_KEY_BIT(MTU),
		.stable = VF_KEY_BIT(MAC),
		.attrs = { .trust = false, .resource_name = (char *)"pool", .mtu = 1500 },
	};

	/* trust differs; the VLAN is what the host has; a MAC still to derive,
	 * the resource name and the kernel's driver (iavf) are no difference */
	assert_int_equal(vf_settings_differ(&vf, &v, "iavf"), VF_KEY_BIT(TRUST));
	/* the default driver unknown: not compared; another one: differs */
	assert_int_equal(vf_settings_differ(&vf, &v, NULL), VF_KEY_BIT(TRUST));
	v.attrs.driver = (char *)"vfio-pci";
	assert_int_equal(vf_settings_differ(&vf, &v, "iavf"),
			 VF_KEY_BIT(TRUST) | VF_KEY_BIT(DRIVER));
	/* vfio-pci: no netdev, no MTU to compare */
	vf.attrs.driver = (char *)"vfio-pci";
	vf.attrs.mtu = 0;
	v.attrs.mtu = 9000;
	assert_int_equal(vf_settings_differ(&vf, &v, "iavf"), VF_KEY_BIT(TRUST));
	/* RDMA=yes without an RDMA device */
	v.set |= VF_KEY_BIT(RDMA);
	v.attrs.rdma = true;
	assert_int_equal(vf_settings_differ(&vf, &v, "iavf"), VF_KEY_BIT(TRUST) | VF_KEY_BIT(RDMA));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pf),
		cmocka_unit_test(test_vf),
		cmocka_unit_test(test_vf_row_implied),
		cmocka_unit_test(test_vf_differ),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
