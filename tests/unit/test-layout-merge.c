/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* layout-merge.c and pf-keys.c: a PF's layout as its files write it, merged,
 * with where each value came from, and the [PhysicalFunction] keys as text. */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "layout-merge.h"
#include "pf-keys.h"

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

/* Later files win per key per VF; "stable" stays as written; VFs named by a
 * section count even when the PF has fewer. */
static void test_merge(void **state)
{
	struct layout_file *files[] = {
		parse(A, "[Match]\nDriver=ice\n[PhysicalFunction]\nVirtualFunctions=2\n"
			 "[VirtualFunction]\nMACAddress=stable\nTrust=yes\n"),
		parse(B, "[Match]\nDriver=ice\n[VirtualFunction 1]\nTrust=no\n"
			 "[VirtualFunction 3]\nVLANId=7\n"),
	};
	struct layout_set set = { .files = files, .n_files = 2 };
	char *paths[] = { (char *)A, (char *)B, NULL };
	struct pf_desired d = { .config_files = paths, .n_vfs = 2 };
	struct vf_settings *vfs = NULL;
	size_t n = 0;

	assert_int_equal(layout_merge_vfs(&set, &d, &vfs, &n), 0);
	assert_int_equal(n, 4);
	assert_true(vf_settings_is_stable(&vfs[0], VF_KEY_MAC));
	assert_true(vfs[0].attrs.trust);
	assert_string_equal(vfs[0].src[VF_KEY_TRUST].file, A);
	assert_int_equal(vfs[0].src[VF_KEY_TRUST].line, 7);
	assert_false(vfs[1].attrs.trust);
	assert_string_equal(vfs[1].src[VF_KEY_TRUST].file, B);
	assert_int_equal(vfs[1].src[VF_KEY_TRUST].line, 4);
	assert_false(vf_settings_same(&vfs[0], &vfs[1]));
	/* [VirtualFunction] covers the PF's VFs, not those named beyond them */
	assert_int_equal(vfs[2].set, 0);
	assert_int_equal(vfs[3].set, 1u << VF_KEY_VLAN);
	assert_int_equal(vfs[3].attrs.vlan, 7);
	vf_settings_free_array(vfs, n);

	/* a file that does not select the PF takes no part */
	paths[1] = NULL;
	d.n_vfs = 3;
	assert_int_equal(layout_merge_vfs(&set, &d, &vfs, &n), 0);
	assert_int_equal(n, 3);
	assert_true(vf_settings_same(&vfs[0], &vfs[1]) && vf_settings_same(&vfs[1], &vfs[2]));
	vf_settings_free_array(vfs, n);

	/* nothing to merge */
	d.n_vfs = 0;
	assert_int_equal(layout_merge_vfs(&set, &d, &vfs, &n), 0);
	assert_int_equal(n, 0);
	assert_null(vfs);
	layout_file_free(files[0]);
	layout_file_free(files[1]);
}

/* Every key has a label, a value as a layout writes it, and what a PF has. */
static void test_pf_keys(void **state)
{
	struct layout_file *f = parse(A, "[Match]\nDriver=ice\n[PhysicalFunction]\n"
					 "VirtualFunctions=max\nMTUBytes=9000\nLinkUp=yes\n"
					 "ESwitchMode=switchdev\nHardwareTCOffload=on\n"
					 "LinkType=infiniband\nFirmwareVirtualFunctions=no\n"
					 "ExternallyManaged=1\nSharedWith=NetworkManager\n");
	static const char *const want[_PF_KEY_MAX] = {
		"max",	      "9000", "yes", "switchdev",      "yes",
		"infiniband", "no",   "yes", "NetworkManager",
	};
	struct pf_state pf = { .name = (char *)"ens1f0",
			       .num_vfs = 4,
			       .mtu = 1500,
			       .up = true,
			       .firmware_total_vfs = -1 };
	char buf[PF_KEY_STR_MAX];

	for (enum pf_key k = 0; k < _PF_KEY_MAX; k++) {
		assert_non_null(pf_key_to_label(k));
		assert_true(pf_settings_has(&f->pf, k));
		assert_string_equal(pf_settings_format(&f->pf, k, buf), want[k]);
	}
	assert_string_equal(pf_state_format_key(&pf, PF_KEY_VIRTUAL_FUNCTIONS, buf), "4");
	assert_string_equal(pf_state_format_key(&pf, PF_KEY_MTU, buf), "1500");
	assert_string_equal(pf_state_format_key(&pf, PF_KEY_LINK_UP, buf), "yes");
	assert_null(pf_state_format_key(&pf, PF_KEY_ESWITCH_MODE, buf));
	assert_null(pf_state_format_key(&pf, PF_KEY_FIRMWARE_VFS, buf));
	assert_null(pf_state_format_key(&pf, PF_KEY_EXTERNALLY_MANAGED, buf));
	assert_null(pf_state_format_key(&pf, PF_KEY_SHARED_WITH, buf));
	pf.has_eswitch = true;
	pf.firmware_total_vfs = 16;
	assert_string_equal(pf_state_format_key(&pf, PF_KEY_ESWITCH_MODE, buf), "legacy");
	assert_string_equal(pf_state_format_key(&pf, PF_KEY_FIRMWARE_VFS, buf), "16");
	/* without a netdev: no MTU, link or hw-tc-offload */
	pf.name = NULL;
	assert_null(pf_state_format_key(&pf, PF_KEY_MTU, buf));
	assert_null(pf_state_format_key(&pf, PF_KEY_HW_TC_OFFLOAD, buf));
	layout_file_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_merge),
		cmocka_unit_test(test_pf_keys),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
