/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* The rules that need only the layout files (layout-rules.c), as
 * `sriovctl check` without a host runs them: files parsed from text, the
 * diagnostics compared whole. */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "layout-rules.h"

#define A "50-a.conf"
#define B "60-b.conf"
#define MATCH_ICE "[Match]\nDriver=ice\n"

struct files {
	struct layout_file *f[4];
	size_t n;
	struct diag_list d;
};

static void add(struct files *t, const char *path, const char *text)
{
	struct diag_list parse_diags = {};

	assert_int_equal(layout_parse_string(path, text, &parse_diags, &t->f[t->n]), 0);
	for (size_t i = 0; i < parse_diags.n; i++)
		print_error("parse: %s:%u: %s\n", parse_diags.items[i].file,
			    parse_diags.items[i].line, parse_diags.items[i].msg);
	assert_int_equal(parse_diags.n, 0);
	diag_list_done(&parse_diags);
	t->n++;
}

static void run(struct files *t)
{
	assert_int_equal(
		layout_rules_check_files((const struct layout_file *const *)t->f, t->n, &t->d), 0);
}

static void done(struct files *t)
{
	for (size_t i = 0; i < t->n; i++)
		layout_file_free(t->f[i]);
	diag_list_done(&t->d);
	*t = (struct files){};
}

/* The diagnostics, each "file:line: [warning: ]message", one per line. */
static void expect(struct files *t, const char *want)
{
	_cleanup_free_ char *got = strdup("");

	for (size_t i = 0; i < t->d.n; i++) {
		_cleanup_free_ char *s = diag_format(&t->d.items[i]);
		char *n = strdup_printf("%s%s\n", got, s);

		free(got);
		got = n;
	}
	assert_string_equal(got, want);
	done(t);
}

static void test_section_beyond_count(void **state)
{
	struct files t = {};

	add(&t, A,
	    MATCH_ICE "[PhysicalFunction]\nVirtualFunctions=8\n"
		      "[VirtualFunction 0-7]\nTrust=yes\n[VirtualFunction 9]\nTrust=no\n"
		      "[VirtualFunction 4-12]\nTrust=no\n");
	run(&t);
	expect(&t, A ":7: [VirtualFunction 9]: VF 9 is beyond VirtualFunctions=8\n" A
		     ":9: [VirtualFunction 4-12]: VFs 8-12 are beyond VirtualFunctions=8\n");

	/* "max" and an unset count are known only with the PF */
	add(&t, A, MATCH_ICE "[PhysicalFunction]\nVirtualFunctions=max\n[VirtualFunction 99]\n");
	add(&t, B, "[Match]\nDriver=mlx5_core\n[VirtualFunction 99]\nTrust=yes\n");
	run(&t);
	expect(&t, "");
}

/* Files with the same [Match] go together, and an error of values from
 * both names both places; files with another [Match] are not combined. */
static void test_two_files(void **state)
{
	struct files t = {};

	add(&t, A, MATCH_ICE "[VirtualFunction 0-7]\nVLANId=10\n");
	add(&t, B, MATCH_ICE "[PhysicalFunction]\nVirtualFunctions=4\n");
	run(&t);
	expect(&t,
	       A ":3: [VirtualFunction 0-7]: VFs 4-7 are beyond VirtualFunctions=4 (" B ":4)\n");

	add(&t, A, MATCH_ICE "[VirtualFunction 0-7]\nVLANId=10\n");
	add(&t, B, "[Match]\nDriver=ice\nName=ens1f0\n[PhysicalFunction]\nVirtualFunctions=4\n");
	run(&t);
	expect(&t, "");
}

/* One literal MAC or GUID in files with different [Match]: a warning at
 * the later place naming the other, as only a host can tell whether both
 * files select a PF there; nothing when their Host= keep them apart, and
 * nothing for "stable". */
static void test_unique_across_files(void **state)
{
	struct files t = {};

	add(&t, A,
	    "[Match]\nPCIAddress=0000:18:00.0\n[PhysicalFunction]\nVirtualFunctions=2\n"
	    "[VirtualFunction 0]\nMACAddress=02:11:22:33:44:55\n");
	add(&t, B,
	    "[Match]\nPCIAddress=0000:18:00.1\n[PhysicalFunction]\nVirtualFunctions=2\n"
	    "[VirtualFunction 1]\nMACAddress=02:11:22:33:44:55\n");
	run(&t);
	expect(&t, B ":6: warning: MACAddress=02:11:22:33:44:55: VF 1 here and VF 0 at " A
		     ":6, a file with another [Match], would have the same address on a host "
		     "where the two files select a PF each: an error there (sriovctl check "
		     "--host says it)\n");

	/* the same VF of a PF both may select is one VF there */
	add(&t, A, MATCH_ICE "[VirtualFunction 0]\nMACAddress=02:11:22:33:44:55\n");
	add(&t, B,
	    "[Match]\nPCIAddress=0000:3b:00.*\n[VirtualFunction 0]\n"
	    "MACAddress=02:11:22:33:44:55\n");
	run(&t);
	expect(&t, B ":4: warning: MACAddress=02:11:22:33:44:55: VF 0 here and VF 0 at " A
		     ":4, a file with another [Match], would have the same address on a host "
		     "where the two files select different PFs: an error there (sriovctl check "
		     "--host says it)\n");

	/* Host= that cannot select one host: nothing; that may: the warning */
	add(&t, A,
	    "[Match]\nDriver=ice\nHost=worker-1 worker-2\n[VirtualFunction 0]\n"
	    "IBNodeGUID=00:11:22:33:44:55:66:77\n");
	add(&t, B,
	    "[Match]\nDriver=i40e\nHost=db-* worker-3.dc1.example.net\n[VirtualFunction 0]\n"
	    "IBNodeGUID=00:11:22:33:44:55:66:77\n");
	run(&t);
	expect(&t, "");
	add(&t, A,
	    "[Match]\nDriver=ice\nHost=worker-1\n[VirtualFunction 0]\n"
	    "IBNodeGUID=00:11:22:33:44:55:66:77\n");
	add(&t, B,
	    "[Match]\nDriver=i40e\nHost=WORKER-1.dc1.example.net\n[VirtualFunction 0]\n"
	    "IBNodeGUID=00:11:22:33:44:55:66:77\n");
	run(&t);
	expect(&t, B ":5: warning: IBNodeGUID=00:11:22:33:44:55:66:77: VF 0 here and "
		     "VF 0 at " A ":5, a file with another [Match], would have the same GUID on "
		     "a host where the two files select a PF each: an error there (sriovctl "
		     "check --host says it)\n");

	/* "stable" is derived per VF: never the same */
	add(&t, A, "[Match]\nPCIAddress=0000:18:00.0\n[VirtualFunction 0]\nMACAddress=stable\n");
	add(&t, B, "[Match]\nPCIAddress=0000:18:00.1\n[VirtualFunction 0]\nMACAddress=stable\n");
	run(&t);
	expect(&t, "");
}

/* One ResourceName= for VFs with and without a network interface: an
 * error at the later VF's line naming the lines of each kind (once per
 * line); VFs that differ only in RDMA=: a warning; another name per kind,
 * or the same kind in two sections: nothing. */
static void test_resource_kinds(void **state)
{
	struct files t = {};

	add(&t, A,
	    MATCH_ICE "[VirtualFunction 0-3]\nDriver=vfio-pci\nResourceName=pool\n"
		      "[VirtualFunction 4-5]\nRDMA=yes\nResourceName=pool\n"
		      "[VirtualFunction 6-7]\nResourceName=pool\n");
	run(&t);
	expect(&t, A ":8: ResourceName=pool: VF 4 (the kernel's VF driver, RDMA=yes at " A
		     ":7) and VF 0 (Driver=vfio-pci at " A ":4; its ResourceName= at " A
		     ":5) would be one device plugin resource, and a pod that asks for it gets "
		     "either a VF with a network interface or one without; give each kind its "
		     "own ResourceName=\n" A
		     ":10: ResourceName=pool: VF 6 (the kernel's VF driver) and VF 0 "
		     "(Driver=vfio-pci at " A ":4; its ResourceName= at " A
		     ":5) would be one device plugin resource, and a pod that asks for it gets "
		     "either a VF with a network interface or one without; give each kind its "
		     "own ResourceName=\n");

	add(&t, A,
	    MATCH_ICE "[VirtualFunction]\nResourceName=net\n[VirtualFunction 4-7]\nRDMA=yes\n");
	run(&t);
	expect(&t, A ":4: warning: ResourceName=net: VF 4 (the kernel's VF driver, RDMA=yes at " A
		     ":6) and VF 0 (the kernel's VF driver) are one device plugin resource, and "
		     "a pod that asks for it may get a VF without an RDMA device; give each kind "
		     "its own ResourceName=\n");

	add(&t, A,
	    MATCH_ICE "[VirtualFunction 0-3]\nDriver=vfio-pci\nResourceName=vfio\n"
		      "[VirtualFunction 4-5]\nDriver=vfio_pci\nResourceName=vfio\n"
		      "[VirtualFunction 6-7]\nRDMA=yes\nResourceName=rdma\n");
	run(&t);
	expect(&t, "");
}

static void test_duplicate_literals(void **state)
{
	struct files t = {};

	add(&t, A,
	    MATCH_ICE "[VirtualFunction 0]\nMACAddress=02:00:00:00:00:01\n"
		      "[VirtualFunction 1]\nMACAddress=02:00:00:00:00:02\n"
		      "[VirtualFunction 3]\nMACAddress=02:00:00:00:00:01\n"
		      "[VirtualFunction]\nIBNodeGUID=stable\n");
	add(&t, B,
	    MATCH_ICE "[VirtualFunction 5]\nMACAddress=02:00:00:00:00:02\n"
		      "[VirtualFunction 6]\nIBPortGUID=00:11:22:33:44:55:66:77\n"
		      "[VirtualFunction 7]\nIBPortGUID=00:11:22:33:44:55:66:77\n");
	run(&t);
	expect(&t, A ":8: MACAddress=02:00:00:00:00:01: VF 0 and VF 3 would have the same address "
		     "(VF 0's at line 4)\n" B
		     ":4: MACAddress=02:00:00:00:00:02: VF 1 and VF 5 would have the same address "
		     "(VF 1's at " A ":6)\n" B
		     ":8: IBPortGUID=00:11:22:33:44:55:66:77: VF 6 and VF 7 would have the same "
		     "GUID (VF 6's at line 6)\n");
}

static void test_keys_that_need_another(void **state)
{
	struct files t = {};

	add(&t, A,
	    MATCH_ICE "[PhysicalFunction]\nHardwareTCOffload=yes\nESwitchMode=legacy\n"
		      "[VirtualFunction 0]\nQualityOfService=3\n"
		      "[VirtualFunction 1]\nQualityOfService=3\nVLANId=5\n"
		      "[VirtualFunction 2]\nDriver=vfio-pci\nMTUBytes=9000\nRDMA=yes\n"
		      "[VirtualFunction 3]\nMinTxRateMbps=100\n");
	add(&t, B, MATCH_ICE "[VirtualFunction 3]\nMaxTxRateMbps=50\n");
	run(&t);
	expect(&t,
	       A ":4: HardwareTCOffload=yes: needs ESwitchMode=switchdev (ESwitchMode=legacy at "
		 "line 5)\n" A ":7: VF 0: QualityOfService=3 needs a VLANId= other than 0\n" A
		 ":13: MTUBytes=9000: a VF bound to vfio-pci has no network interface\n" A
		 ":14: RDMA=yes: a VF bound to vfio-pci has no RDMA device\n" B
		 ":4: MaxTxRateMbps=50: below MinTxRateMbps=100 (" A ":16)\n");

	/* the rates from two sections of one file: at MinTxRateMbps=, as the
	 * parser says it for one section */
	add(&t, A,
	    MATCH_ICE
	    "[VirtualFunction]\nMaxTxRateMbps=100\n[VirtualFunction 3]\nMinTxRateMbps=200\n");
	run(&t);
	expect(&t, A ":6: MinTxRateMbps=200: must not exceed MaxTxRateMbps=100 (line 4)\n");

	/* the minimum from the later file: the error is there */
	add(&t, A, MATCH_ICE "[VirtualFunction 3]\nMaxTxRateMbps=100\n");
	add(&t, B, MATCH_ICE "[VirtualFunction 3]\nMinTxRateMbps=500\n");
	run(&t);
	expect(&t, B ":4: MinTxRateMbps=500: must not exceed MaxTxRateMbps=100 (" A ":4)\n");

	/* the VLAN of a [VirtualFunction] for all is every VF's; a driver set
	 * in another file is named there */
	add(&t, A,
	    MATCH_ICE "[VirtualFunction]\nVLANId=7\n[VirtualFunction 2]\nQualityOfService=1\n");
	add(&t, B,
	    MATCH_ICE
	    "[VirtualFunction 0-3]\nDriver=vfio-pci\n[VirtualFunction 1]\nMTUBytes=1500\n");
	run(&t);
	expect(&t, B ":6: MTUBytes=1500: a VF bound to vfio-pci has no network interface\n");

	add(&t, A, MATCH_ICE "[VirtualFunction 1]\nMTUBytes=1500\n");
	add(&t, B, MATCH_ICE "[VirtualFunction 0-3]\nDriver=vfio-pci\n");
	run(&t);
	expect(&t, A ":4: MTUBytes=1500: a VF bound to vfio-pci has no network interface "
		     "(Driver=vfio-pci at " B ":4)\n");

	/* without ESwitchMode= the PF's own mode decides, unknown here */
	add(&t, A, MATCH_ICE "[PhysicalFunction]\nHardwareTCOffload=yes\n");
	run(&t);
	expect(&t, A ":4: warning: HardwareTCOffload=yes: needs ESwitchMode=switchdev, which no "
		     "file sets: only a PF already in switchdev mode takes it\n");

	add(&t, A, MATCH_ICE "[PhysicalFunction]\nHardwareTCOffload=yes\n");
	add(&t, B, MATCH_ICE "[PhysicalFunction]\nESwitchMode=switchdev\n");
	run(&t);
	expect(&t, "");
}

/* QualityOfService= without a VLAN names the VFs it holds for: those of
 * its sections that no other section gives a VLANId=. */
static void test_qos_names_its_vfs(void **state)
{
	struct files t = {};

	add(&t, A,
	    MATCH_ICE "[PhysicalFunction]\nVirtualFunctions=4\n[VirtualFunction 0-1]\n"
		      "QualityOfService=2\n[VirtualFunction 1]\nVLANId=5\n");
	run(&t);
	expect(&t, A ":6: VF 0: QualityOfService=2 needs a VLANId= other than 0\n");

	add(&t, A,
	    MATCH_ICE "[PhysicalFunction]\nVirtualFunctions=8\n[VirtualFunction 0-5]\n"
		      "QualityOfService=2\n[VirtualFunction 2]\nVLANId=5\n");
	run(&t);
	expect(&t, A ":6: VFs 0-1, 3-5: QualityOfService=2 needs a VLANId= other than 0\n");

	add(&t, A,
	    MATCH_ICE "[PhysicalFunction]\nVirtualFunctions=8\n[VirtualFunction]\n"
		      "QualityOfService=2\n");
	run(&t);
	expect(&t, A ":6: VFs 0-7: QualityOfService=2 needs a VLANId= other than 0\n");

	/* without a VF count: every VF, or every one after the sections
	 * that give a VLAN */
	add(&t, A, MATCH_ICE "[VirtualFunction]\nQualityOfService=2\n");
	run(&t);
	expect(&t, A ":4: every VF: QualityOfService=2 needs a VLANId= other than 0\n");
	add(&t, A,
	    MATCH_ICE "[VirtualFunction]\nQualityOfService=2\n[VirtualFunction 0-3]\nVLANId=5\n");
	run(&t);
	expect(&t, A ":4: VFs 4 and up: QualityOfService=2 needs a VLANId= other than 0\n");

	/* one error per QualityOfService= line */
	add(&t, A,
	    MATCH_ICE "[VirtualFunction 0]\nQualityOfService=2\n[VirtualFunction 1-2]\n"
		      "QualityOfService=3\n");
	run(&t);
	expect(&t, A ":4: VF 0: QualityOfService=2 needs a VLANId= other than 0\n" A
		     ":6: VFs 1-2: QualityOfService=3 needs a VLANId= other than 0\n");
}

static void test_overrides(void **state)
{
	struct files t = {};

	add(&t, A,
	    MATCH_ICE "[PhysicalFunction]\nVirtualFunctions=8\nMTUBytes=9000\n"
		      "[VirtualFunction]\nTrust=yes\nMACAddress=stable\n"
		      "[VirtualFunction 4-7]\nVLANId=10\n");
	add(&t, B,
	    MATCH_ICE "[PhysicalFunction]\nVirtualFunctions=8\nMTUBytes=1500\n"
		      "[VirtualFunction 6-9]\nVLANId=20\nTrust=no\n"
		      "[VirtualFunction 1]\nVLANId=30\nMACAddress=02:00:00:00:00:01\n");
	run(&t);
	expect(&t, B ":5: warning: MTUBytes=1500 overrides MTUBytes=9000 at " A
		     ":5 (a later file wins)\n" B ":8: warning: Trust=no overrides Trust=yes at " A
		     ":7 for VFs 6-9 (a later file wins)\n" B
		     ":11: warning: MACAddress=02:00:00:00:00:01 overrides MACAddress=stable at " A
		     ":8 for VF 1 (a later file wins)\n" B
		     ":7: warning: VLANId=20 overrides VLANId=10 at " A
		     ":10 for VFs 6-7 (a later file wins)\n" B
		     ":6: [VirtualFunction 6-9]: VFs 8-9 are beyond VirtualFunctions=8\n");
}

/* [Layout] Overrides= names the earlier files whose values are replaced
 * on purpose: no warning for those, one for another file's, and one when
 * the named file has no value replaced. */
static void test_declared_overrides(void **state)
{
	struct files t = {};

	add(&t, "/usr/lib/x/" A, MATCH_ICE "[PhysicalFunction]\nVirtualFunctions=4\n");
	add(&t, "/etc/x/55-c.conf", MATCH_ICE "[VirtualFunction]\nTrust=no\n");
	add(&t, "/etc/x/" B,
	    "[Layout]\nOverrides=" A "\n" MATCH_ICE "[PhysicalFunction]\nVirtualFunctions=8\n"
	    "[VirtualFunction 0]\nTrust=yes\n");
	run(&t);
	expect(&t, "/etc/x/" B ":8: warning: Trust=yes overrides Trust=no at /etc/x/55-c.conf:4 "
		   "for VF 0 (a later file wins)\n");

	add(&t, A, MATCH_ICE "[PhysicalFunction]\nVirtualFunctions=4\n");
	add(&t, B, "[Layout]\nOverrides=" A "\n" MATCH_ICE "[PhysicalFunction]\nMTUBytes=9000\n");
	run(&t);
	expect(&t, B ":2: warning: Overrides=" A ": this file overrides no value of " A
		     ", so this declaration is stale\n");
}

/* Within one file a later section narrowing an earlier one is the usual
 * way to write a layout, and no warning. */
static void test_no_override_within_a_file(void **state)
{
	struct files t = {};

	add(&t, A, MATCH_ICE "[VirtualFunction]\nTrust=no\n[VirtualFunction 0]\nTrust=yes\n");
	run(&t);
	expect(&t, "");
}

/* One error per file:line however many VFs a section reaches. */
static void test_once_per_place(void **state)
{
	struct files t = {};
	struct rules_out o = { .diags = &t.d };

	assert_int_equal(rules_error(&o, A, 3, "first"), 0);
	assert_int_equal(rules_error(&o, A, 3, "second"), 0);
	assert_int_equal(rules_error(&o, A, 4, "third"), 0);
	assert_int_equal(o.n_errors, 2);
	assert_string_equal(o.first, A ":3: first");
	rules_out_done(&o);
	/* a second PF's rules_out reports the same text again: kept once */
	o = (struct rules_out){ .diags = &t.d };
	assert_int_equal(rules_error(&o, A, 3, "first"), 0);
	assert_int_equal(o.n_errors, 1);
	rules_out_done(&o);
	expect(&t, A ":3: first\n" A ":4: third\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_section_beyond_count),
		cmocka_unit_test(test_two_files),
		cmocka_unit_test(test_resource_kinds),
		cmocka_unit_test(test_duplicate_literals),
		cmocka_unit_test(test_keys_that_need_another),
		cmocka_unit_test(test_qos_names_its_vfs),
		cmocka_unit_test(test_overrides),
		cmocka_unit_test(test_declared_overrides),
		cmocka_unit_test(test_no_override_within_a_file),
		cmocka_unit_test(test_once_per_place),
		cmocka_unit_test(test_unique_across_files),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
