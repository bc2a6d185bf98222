/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* SriovNetworkNodePolicy objects as layout files (sno-policy*.c): the
 * shapes of input, each field's conversion, the file order, the errors. */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "sno-policy.h"
#include "strv.h"

struct result {
	struct sno_policies p;
	struct diag_list diags;
	char **names, **texts;
};

static void convert(const char *yaml, struct result *r)
{
	*r = (struct result){};
	assert_int_equal(sno_policies_parse("p.yaml", yaml, &r->p, &r->diags), 0);
	assert_int_equal(sno_policies_layouts("p.yaml", &r->p, &r->names, &r->texts, &r->diags), 0);
}

static void result_done(struct result *r)
{
	sno_policies_done(&r->p);
	diag_list_done(&r->diags);
	strv_free(r->names);
	strv_free(r->texts);
}

/* The one diagnostic, formatted. */
static void assert_only_diag(const struct result *r, const char *text)
{
	char *s;

	assert_int_equal(r->diags.n, 1);
	s = diag_format(&r->diags.items[0]);
	assert_string_equal(s, text);
	free(s);
}

#define POLICY(name, spec) \
	"- kind: SriovNetworkNodePolicy\n  metadata: {name: " name "}\n  spec: {" spec "}\n"

static void test_shapes(void **state)
{
	static const char *const inputs[] = {
		"kind: SriovNetworkNodePolicy\nmetadata: {name: a}\nspec: {numVfs: 2, nicSelector: "
		"{vendor: \"8086\"}}\n",
		POLICY("a", "numVfs: 2, nicSelector: {vendor: \"8086\"}"),
		"apiVersion: v1\nkind: List\nitems:\n" POLICY("a",
							      "numVfs: 2, nicSelector: {vendor: "
							      "\"8086\"}"),
		"---\n" POLICY("a", "numVfs: 2, nicSelector: {vendor: \"8086\"}") "---\n",
	};

	for (size_t i = 0; i < ELEMENTSOF(inputs); i++) {
		struct result r;

		convert(inputs[i], &r);
		assert_int_equal(r.diags.n, 0);
		assert_int_equal(strv_length(r.names), 1);
		assert_string_equal(r.names[0], "99-a.conf");
		assert_non_null(strstr(r.texts[0],
				       "\n[Match]\nVendor=0x8086\n\n[PhysicalFunction]\n"
				       "VirtualFunctions=2\nExternallyManaged=no\n\n"
				       "[VirtualFunction 0-1]\nDriver=default\nRDMA=no\n"));
		result_done(&r);
	}
}

static void test_every_field(void **state)
{
	struct result r;

	convert(POLICY("all",
		       "resourceName: pool, priority: 30, mtu: 9000, numVfs: 8, "
		       "deviceType: netdevice, isRdma: true, linkType: ETH, "
		       "eSwitchMode: switchdev, externallyManaged: true, "
		       "nodeSelector: {kubernetes.io/hostname: node-1}, "
		       "nicSelector: {vendor: \"15b3\", deviceID: \"101d\", "
		       "rootDevices: [\"0000:CA:00.0\"], pfNames: [\"p0#2-5\", \"p1#2-5\"]}"),
		&r);
	assert_int_equal(r.diags.n, 0);
	assert_string_equal(r.names[0], "69-all.conf");
	assert_non_null(strstr(r.texts[0],
			       "\n[Match]\nPCIAddress=0000:CA:00.0\nName=p0 p1\nVendor=0x15b3\n"
			       "Device=0x101d\nHost=node-1\n\n[PhysicalFunction]\n"
			       "VirtualFunctions=8\nMTUBytes=9000\nLinkType=ethernet\n"
			       "ESwitchMode=switchdev\nExternallyManaged=yes\n\n"
			       "[VirtualFunction 2-5]\nDriver=default\nMTUBytes=9000\nRDMA=yes\n"
			       "ResourceName=pool\n"));
	result_done(&r);
}

/* The operator applies 99 first, then by name; the last applied wins, and
 * a later file that replaces an earlier one's values on a PF both may
 * select names it. */
static void test_priority_order(void **state)
{
	struct result r;

	convert(POLICY("strong", "priority: 1, numVfs: 4, deviceType: vfio-pci, "
				 "nicSelector: {pfNames: [\"ens1f0#0-1\"]}")
			POLICY("weak", "priority: 60, numVfs: 4, nicSelector: {pfNames: [ens1f0]}")
				POLICY("other", "priority: 1, numVfs: 4, nicSelector: {pfNames: "
						"[ens1f1]}"),
		&r);
	assert_int_equal(r.diags.n, 0);
	assert_string_equal(r.names[0], "39-weak.conf");
	assert_string_equal(r.names[1], "98-other.conf");
	assert_string_equal(r.names[2], "98-strong.conf");
	assert_null(strstr(r.texts[0], "[Layout]"));
	assert_null(strstr(r.texts[1], "[Layout]")); /* ens1f1: no PF in common */
	assert_non_null(strstr(r.texts[2], "\n[Layout]\nOverrides=39-weak.conf\n"));
	result_done(&r);
}

static void test_errors_name_policy_and_field(void **state)
{
	static const struct {
		const char *yaml, *diag;
	} cases[] = {
		{ POLICY("x", "numVfs: 2, vdpaType: vhost, nicSelector: {pfNames: [a]}"),
		  "p.yaml:3: policy x: vdpaType: sriov-persist makes no vDPA devices; leave this "
		  "policy to the operator" },
		{ POLICY("x", "numVfs: 2, nicSelector: {pfNames: [\"a#3-1\"]}"),
		  "p.yaml:3: policy x: nicSelector.pfNames: a#3-1: the VF range after '#' must be "
		  "FIRST-LAST" },
		{ POLICY("x", "numVfs: 2, nicSelector: {pfNames: [\"a#0-3\"]}"),
		  "p.yaml:3: policy x: nicSelector.pfNames: VFs 0-3: beyond numVfs 2" },
		{ POLICY("x", "numVfs: 2, nicSelector: {rootDevices: [\"3b:00.0\"]}"),
		  "p.yaml:3: policy x: nicSelector.rootDevices: 3b:00.0: not a PCI address with its "
		  "domain (0000:3b:00.0)" },
		{ POLICY("x", "numVfs: 2, nicSelector: {pfNames: [a], foo: 1}"),
		  "p.yaml:3: policy x: nicSelector.foo: not a field of the operator's nicSelector" },
		{ POLICY("x", "numVfs: 2, isRdma: true, deviceType: vfio-pci, nicSelector: "
			      "{pfNames: [a]}"),
		  "p.yaml:3: policy x: isRdma: true with deviceType vfio-pci: a VF on vfio-pci has "
		  "no RDMA device" },
		{ POLICY("x", "numVfs: 2, nicSelector: {pfNames: [a]}, "
			      "nodeSelector: {kubernetes.io/hostname: \"a b\"}"),
		  "p.yaml:3: policy x: nodeSelector.kubernetes.io/hostname: a b: not a host name" },
		{ POLICY("x", "numVfs: 2, nicSelector: {pfNames: [a]}")
			  POLICY("x", "numVfs: 2, "
				      "nicSelector: {pfNames: [a]}"),
		  "p.yaml:5: policy x: metadata.name: a second policy of this name" },
		{ POLICY("X_1", "numVfs: 2, nicSelector: {pfNames: [a]}"),
		  "p.yaml:2: policy X_1: metadata.name: not a Kubernetes object name (lower-case "
		  "letters, digits, '-' and '.')" },
		{ "- kind: SriovNetworkNodePolicy\n  spec: {}\n",
		  "p.yaml:1: a SriovNetworkNodePolicy without metadata.name" },
	};

	for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
		struct result r;

		convert(cases[i].yaml, &r);
		assert_only_diag(&r, cases[i].diag);
		assert_int_equal(r.diags.items[0].level, DIAG_ERROR);
		result_done(&r);
	}
}

static void test_warnings_and_skipped(void **state)
{
	struct result r;

	convert(POLICY("none", "numVfs: 0, nicSelector: {pfNames: [a]}"), &r);
	assert_only_diag(&r, "p.yaml:3: warning: policy none: numVfs: 0 or not given: the "
			     "operator configures nothing with it; no file written");
	assert_null(r.names);
	result_done(&r);
	convert(POLICY("lab", "numVfs: 1, nicSelector: {pfNames: [a]}, nodeSelector: {zone: b}"),
		&r);
	assert_only_diag(&r, "p.yaml:3: warning: policy lab: nodeSelector: zone=b names no host: "
			     "kept as a comment; install the file only on the nodes that have the "
			     "label");
	assert_non_null(strstr(r.texts[0], "# nodeSelector zone=b: names no host;"));
	result_done(&r);
	/* beside an error too */
	convert("kind: SriovNetworkNodePolicy\nmetadata: {name: v}\nspec:\n  numVfs: 1\n"
		"  nicSelector: {pfNames: [a]}\n  mtu: 1\n  needVhostNet: true\n",
		&r);
	assert_int_equal(r.diags.n, 2);
	assert_int_equal(r.diags.items[1].level, DIAG_WARNING);
	assert_int_equal(r.diags.items[1].line, 7);
	assert_null(r.names);
	result_done(&r);
}

/* An entry without a range is 0..numVfs-1, whatever the order of fields. */
static void test_pf_names_effective_range(void **state)
{
	struct result r;

	convert(POLICY("m", "nicSelector: {pfNames: [\"p0#0-7\", p1]}, numVfs: 8"), &r);
	assert_int_equal(r.diags.n, 0);
	assert_non_null(strstr(r.texts[0], "Name=p0 p1\n"));
	assert_non_null(strstr(r.texts[0], "[VirtualFunction 0-7]\n"));
	result_done(&r);
	convert(POLICY("m", "nicSelector: {pfNames: [p1, \"p0#0-3\"]}, numVfs: 8"), &r);
	assert_only_diag(&r, "p.yaml:3: policy m: nicSelector.pfNames: p1: its VF range 0-7 "
			     "(numVfs 8) differs from that of p0 (0-3), and a layout file has one "
			     "set of VF sections for all the PFs it selects: write a policy per "
			     "range");
	result_done(&r);
}

/* The operator's webhook refuses a second policy on a root device, and
 * on the same VFs of a pfNames entry; an entry without a range next to
 * one with a range it takes (the stronger one wins there). */
static void test_shared_pfs(void **state)
{
	struct result r;

	convert(POLICY("a", "priority: 20, numVfs: 8, nicSelector: {rootDevices: "
			    "[\"0000:1a:00.0\"]}")
			POLICY("b", "priority: 10, numVfs: 8, nicSelector: {rootDevices: "
				    "[\"0000:1a:00.0\"]}"),
		&r);
	assert_only_diag(&r,
			 "p.yaml:6: policy b: nicSelector: 0000:1a:00.0 is selected by policy a "
			 "too: the operator refuses two policies on one root device, or on the "
			 "same VFs of one pfNames entry; merge the two, or give each a pfNames "
			 "range of its own");
	assert_null(r.names);
	result_done(&r);
	convert(POLICY("a", "priority: 20, numVfs: 8, nicSelector: {pfNames: [p0]}") POLICY(
			"b", "priority: 10, numVfs: 4, nicSelector: {pfNames: [\"p0#0-1\"]}"),
		&r);
	assert_only_diag(&r, "p.yaml:6: policy b: numVfs: 4, applied after policy a that "
			     "configures VFs 0-7 of a PF both may select: its file's VF section "
			     "would be beyond VirtualFunctions=4; give both the same numVfs");
	result_done(&r);
	convert(POLICY("a", "priority: 20, numVfs: 8, nicSelector: {pfNames: [p0]}") POLICY(
			"b", "priority: 10, numVfs: 8, nicSelector: {pfNames: [\"p0#0-1\"]}"),
		&r);
	assert_int_equal(r.diags.n, 0);
	result_done(&r);
}

/* Name= does not select a PF made an InfiniBand port: PCIAddress= does. */
static void test_infiniband_names(void **state)
{
	struct result r;

	convert(POLICY("ib", "numVfs: 2, linkType: IB, nicSelector: {pfNames: [p0], "
			     "rootDevices: [\"0000:1b:00.0\"]}"),
		&r);
	assert_int_equal(r.diags.n, 1);
	assert_int_equal(r.diags.items[0].level, DIAG_WARNING);
	assert_non_null(strstr(r.texts[0], "\n[Match]\nPCIAddress=0000:1b:00.0\n\n"));
	result_done(&r);
	convert(POLICY("ib", "numVfs: 2, linkType: IB, nicSelector: {pfNames: [p0]}"), &r);
	assert_int_equal(r.diags.n, 1);
	assert_int_equal(r.diags.items[0].level, DIAG_WARNING);
	assert_non_null(strstr(r.texts[0], "\n[Match]\nName=p0\n"));
	result_done(&r);
}

/* One bad field hides none of the policy's other diagnostics, also of
 * the checks across its other fields; a check whose field is bad says
 * nothing more. */
static void test_all_of_a_policy_at_once(void **state)
{
	struct result r;
	char *s;

	convert("kind: SriovNetworkNodePolicy\nmetadata: {name: cx7}\nspec:\n  priority: 150\n"
		"  numVfs: 8\n  linkType: IB\n  nicSelector:\n    pfNames: [\"ibp26s0#0-9\"]\n",
		&r);
	assert_int_equal(r.diags.n, 3);
	s = diag_format(&r.diags.items[0]);
	assert_string_equal(s, "p.yaml:4: policy cx7: priority: 150: must be a number 0..99");
	free(s);
	s = diag_format(&r.diags.items[1]);
	assert_string_equal(s, "p.yaml:8: policy cx7: nicSelector.pfNames: VFs 0-9: beyond "
			       "numVfs 8");
	free(s);
	assert_int_equal(r.diags.items[2].level, DIAG_WARNING);
	assert_int_equal(r.diags.items[2].line, 6);
	assert_null(r.names);
	result_done(&r);
	/* numVfs itself bad: no "0 or not given", no range against it */
	convert(POLICY("n", "numVfs: many, nicSelector: {pfNames: [\"p0#0-9\"]}"), &r);
	assert_only_diag(&r, "p.yaml:3: policy n: numVfs: many: must be a number 0..65535");
	result_done(&r);
	/* another key of nicSelector bad: the range check reads no vendor */
	convert(POLICY("v", "numVfs: 4, nicSelector: {pfNames: [\"p0#4-9\"], vendor: 8086x}"), &r);
	assert_int_equal(r.diags.n, 2);
	s = diag_format(&r.diags.items[1]);
	assert_string_equal(s, "p.yaml:3: policy v: nicSelector.pfNames: VFs 4-9: beyond numVfs 4");
	free(s);
	result_done(&r);
	/* a bad vendor alone: nicSelector is not "empty" */
	convert(POLICY("e", "numVfs: 4, nicSelector: {vendor: 8086x}"), &r);
	assert_only_diag(&r,
			 "p.yaml:3: policy e: nicSelector.vendor: 8086x: must be four hex digits");
	result_done(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shapes),
		cmocka_unit_test(test_every_field),
		cmocka_unit_test(test_priority_order),
		cmocka_unit_test(test_errors_name_policy_and_field),
		cmocka_unit_test(test_warnings_and_skipped),
		cmocka_unit_test(test_pf_names_effective_range),
		cmocka_unit_test(test_shared_pfs),
		cmocka_unit_test(test_infiniband_names),
		cmocka_unit_test(test_all_of_a_policy_at_once),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
