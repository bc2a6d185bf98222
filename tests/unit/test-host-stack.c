/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* host-stack.c: which VFs the layouts keep from the host's network stack
 * (what the udev rule turns into NM_UNMANAGED=1). */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "host-stack.h"

#define A "/etc/sriov-persist/conf.d/50-a.conf"
#define B "/etc/sriov-persist/conf.d/60-b.conf"

static struct layout_file *parse(const char *path, const char *text)
{
	struct diag_list diags = {};
	struct layout_file *f = NULL;

	assert_int_equal(layout_parse_string(path, text, &diags, &f), 0);
	assert_int_equal(diags.n, 0);
	diag_list_done(&diags);
	return f;
}

/* -1: no opinion, else the enum value */
static int decide(const struct layout_set *set, const struct pf_desired *d, unsigned index)
{
	enum host_network_stack h = _HOST_NETWORK_STACK_INVALID;
	int r = pf_desired_host_network_stack(set, d, index, &h);

	assert_true(r == 0 || r == 1);
	return r ? (int)h : -1;
}

/* A resource name or a driver without a netdev is a pod's or a VM's VF;
 * HostNetworkStack= decides over both, from the later file; a driver with
 * a netdev, other keys or no section: no opinion. */
static void test_decide(void **state)
{
	struct layout_file *files[] = {
		parse(A, "[Match]\nDriver=igb\n[PhysicalFunction]\nVirtualFunctions=8\n"
			 "[VirtualFunction 0-2]\nResourceName=pods\n"
			 "[VirtualFunction 3]\nDriver=vfio-pci\n"
			 "[VirtualFunction 4]\nDriver=igbvf\n"
			 "[VirtualFunction 5]\nVLANId=3\n"
			 "[VirtualFunction 6]\nHostNetworkStack=unmanaged\n"),
		parse(B, "[Match]\nDriver=igb\n[VirtualFunction 2-3]\nHostNetworkStack=managed\n"),
	};
	struct layout_set set = { .files = files, .n_files = 2 };
	char *paths[] = { (char *)A, (char *)B, NULL };
	struct pf_desired d = { .config_files = paths, .n_vfs = 8 };

	d.pf.set = 1u << PF_KEY_VIRTUAL_FUNCTIONS;
	d.pf.num_vfs = 8;
	assert_int_equal(decide(&set, &d, 0), HOST_NETWORK_STACK_UNMANAGED);
	assert_int_equal(decide(&set, &d, 1), HOST_NETWORK_STACK_UNMANAGED);
	assert_int_equal(decide(&set, &d, 2), HOST_NETWORK_STACK_MANAGED);
	assert_int_equal(decide(&set, &d, 3), HOST_NETWORK_STACK_MANAGED);
	assert_int_equal(decide(&set, &d, 4), -1);
	assert_int_equal(decide(&set, &d, 5), -1);
	assert_int_equal(decide(&set, &d, 6), HOST_NETWORK_STACK_UNMANAGED);
	assert_int_equal(decide(&set, &d, 7), -1);
	/* beyond the VFs the layouts allow */
	assert_int_equal(decide(&set, &d, 8), -1);
	for (size_t i = 0; i < ELEMENTSOF(files); i++)
		layout_file_free(files[i]);
}

/* Driver=default: the kernel's VF driver, which has a netdev. */
static void test_settings_alone(void **state)
{
	struct vf_settings v = {};
	enum host_network_stack h = _HOST_NETWORK_STACK_INVALID;
	const char *why;

	assert_false(vf_settings_host_network_stack(&v, &h));
	v.set = 1u << VF_KEY_DRIVER;
	assert_false(vf_settings_host_network_stack(&v, &h));
	assert_int_equal(vf_attrs_parse(&v.attrs, VF_KEY_DRIVER, "vfio_pci", &why), 0);
	assert_true(vf_settings_host_network_stack(&v, &h));
	assert_int_equal(h, HOST_NETWORK_STACK_UNMANAGED);
	vf_attrs_done(&v.attrs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_decide),
		cmocka_unit_test(test_settings_alone),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
