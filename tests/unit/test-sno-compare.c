/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* sriovctl compare's pure parts: SriovNetworkNodeState objects read
 * (sno-node-state*.c), this node's chosen, and compared with the view of a
 * fixture host under one layout (sno-compare*.c). */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "fileio.h"
#include "host-view.h"
#include "snapshot.h"
#include "sno-compare.h"
#include "strv.h"

#define LAYOUT "/etc/sriov-persist/conf.d/50-test.conf"
#define E810 "tests/fixtures/hosts/e810.json"
#define CX7 "tests/fixtures/hosts/cx7-ib.json"

#define HEAD "kind: SriovNetworkNodeState\nmetadata:\n  name: gpu-worker-03\n"

struct env {
	struct host_state *hs;
	struct layout_file *file;
	struct layout_set set;
	struct host_view v;
	struct sno_node_states states;
	struct diag_list diags;
	struct sno_comparison cmp;
};

static void env_done(struct env *e)
{
	sno_comparison_done(&e->cmp);
	sno_node_states_done(&e->states);
	diag_list_done(&e->diags);
	host_view_done(&e->v);
	layout_file_free(e->file);
	host_state_free(e->hs);
	diag_list_done(&e->set.diags);
	*e = (struct env){};
}

static void parse(struct env *e, const char *text)
{
	assert_int_equal(sno_node_states_parse("ns.yaml", text, &e->states, &e->diags), 0);
}

/* The host, the layout (none: NULL), the node state and what compare says. */
static char **compare(struct env *e, const char *fixture, const char *layout, const char *ns)
{
	_cleanup_free_ char *text = NULL, *error = NULL;

	assert_int_equal(read_file(fixture, &text), 0);
	assert_int_equal(snapshot_parse(text, &e->hs, &error), 0);
	if (layout) {
		assert_int_equal(layout_parse_string(LAYOUT, layout, &e->set.diags, &e->file), 0);
		e->set.files = &e->file;
		e->set.n_files = 1;
	}
	assert_int_equal(host_view_build(e->hs, &e->set, NULL, &e->v), 0);
	parse(e, ns);
	assert_int_equal(e->diags.n, 0);
	assert_int_equal(e->states.n, 1);
	assert_int_equal(sno_compare(&e->states.items[0], &e->v, &e->cmp), 0);
	return e->cmp.lines;
}

static void assert_lines(char **got, const char *const *want)
{
	size_t n = 0;

	for (; want[n]; n++) {
		assert_non_null(got[n]);
		assert_string_equal(got[n], want[n]);
	}
	assert_null(got[n]);
}

static void test_shapes_and_choice(void **state)
{
	struct env e = {};
	const struct sno_node_state *ns = NULL;
	_cleanup_free_ char *why = NULL;

	/* a List, another document, JSON */
	parse(&e, "kind: SriovNetworkNodeStateList\nitems:\n- kind: SriovNetworkNodeState\n"
		  "  metadata: {name: gpu-worker-03}\n  status: {}\n"
		  "---\n{\"kind\": \"SriovNetworkNodeState\", \"metadata\": {\"name\": \"w4\"},"
		  " \"spec\": {}}\n");
	assert_int_equal(e.diags.n, 0);
	assert_int_equal(e.states.n, 2);
	assert_int_equal(
		sno_node_states_select(&e.states, NULL, "gpu-worker-03.example.net", &ns, &why), 0);
	assert_string_equal(ns->name, "gpu-worker-03");
	assert_int_equal(sno_node_states_select(&e.states, "w4", NULL, &ns, &why), 0);
	assert_string_equal(ns->name, "w4");
	assert_int_equal(sno_node_states_select(&e.states, "w5", NULL, &ns, &why), -ENOENT);
	assert_string_equal(why, "no node state named w5 (the input has: gpu-worker-03, w4)");
	why = mfree(why);
	assert_int_equal(sno_node_states_select(&e.states, NULL, "gpu-worker-3", &ns, &why),
			 -ENOENT);
	assert_string_equal(why, "2 node states (gpu-worker-03, w4), none named for this host "
				 "(gpu-worker-3): give --node NAME");
	assert_false(sno_node_name_is_host("gpu-worker", "gpu-worker-03"));
	assert_true(sno_node_name_is_host("GPU-worker-03", "gpu-worker-03.dc1"));
	env_done(&e);
}

static void test_unjudged_and_errors(void **state)
{
	struct env e = {};
	const struct sno_node_state *ns;

	parse(&e, HEAD "status:\n  bridges: {}\n  interfaces:\n  - pciAddress: 0000:3B:00.0\n"
		       "    linkSpeed: 25000 Mb/s\n    newField: 1\n    Vfs:\n    - vfID: 0\n"
		       "      Vlan: 100\n      mac: 02:00:00:00:00:01\n");
	assert_int_equal(e.diags.n, 0);
	ns = &e.states.items[0];
	assert_string_equal(ns->status[0].pci, "0000:3b:00.0");
	assert_int_equal(ns->n_unjudged, 5);
	assert_string_equal(ns->unjudged[0].field, "status.bridges");
	assert_string_equal(ns->unjudged[2].field, "status.interfaces[].newField");
	assert_string_equal(ns->unjudged[2].why, "a field compare does not know");
	assert_int_equal(ns->unjudged[3].line, 12);
	env_done(&e);

	parse(&e, HEAD "spec:\n  interfaces:\n  - pciAddress: 0000:3b:00.0\n    vfGroups:\n"
		       "    - deviceType: dpdk\n");
	assert_int_equal(e.states.n, 0);
	assert_int_equal(e.diags.n, 1);
	assert_string_equal(e.diags.items[0].msg,
			    "node state gpu-worker-03: spec.interfaces[0].vfGroups[0].deviceType: "
			    "dpdk: must be netdevice or vfio-pci");
	assert_int_equal(e.diags.items[0].line, 8);
	env_done(&e);
}

#define E810_LAYOUT                                                                       \
	"[Match]\nName=ens1f0\n\n[PhysicalFunction]\nVirtualFunctions=4\nMTUBytes=9000\n" \
	"\n[VirtualFunction 0-1]\nDriver=vfio-pci\nResourceName=dpdk\n\n"                 \
	"[VirtualFunction 2-3]\nMTUBytes=9000\n"

#define E810_STATE(count, pf_mtu, vf3_driver, vf3_mtu)                                         \
	HEAD "status:\n  syncStatus: Succeeded\n  interfaces:\n"                               \
	     "  - pciAddress: 0000:3b:00.0\n    name: ens1f0\n    numVfs: " count "\n"         \
	     "    mtu: " pf_mtu "\n    linkType: ETH\n    eSwitchMode: legacy\n    Vfs:\n"     \
	     "    - {vfID: 0, driver: vfio-pci}\n    - {vfID: 1, driver: vfio-pci}\n"          \
	     "    - {vfID: 2, driver: iavf, mtu: 9000}\n"                                      \
	     "    - {vfID: 3, driver: " vf3_driver ", mtu: " vf3_mtu "}\n"                     \
	     "  - pciAddress: 0000:3b:00.1\n    name: ens1f1\n    mtu: 1500\n"                 \
	     "spec:\n  interfaces:\n  - pciAddress: 0000:3b:00.0\n    numVfs: " count "\n"     \
	     "    vfGroups:\n    - {vfRange: 0-1, deviceType: vfio-pci, resourceName: dpdk}\n" \
	     "    - {vfRange: 2-3, deviceType: netdevice, mtu: 9000}\n"

static void test_no_difference(void **state)
{
	struct env e = {};

	assert_lines(compare(&e, E810, E810_LAYOUT, E810_STATE("4", "9000", "iavf", "9000")),
		     (const char *const[]){ NULL });
	assert_int_equal(e.cmp.unconverged, 0);
	env_done(&e);
}

static void test_differences(void **state)
{
	struct env e = {};

	/* the spec says 4 where the status has 3 VFs */
	assert_lines(compare(&e, E810, E810_LAYOUT,
			     E810_STATE("3", "1500", "iavf", "9000") "  - pciAddress: "
								     "0000:3b:00.1\n"
								     "    numVfs: 2\n"),
		     (const char *const[]){
			     "0000:3b:00.0 (ens1f0): VF count: operator 3, layouts 4 "
			     "(" LAYOUT ":5)",
			     "0000:3b:00.0 (ens1f0): MTU: operator 1500, layouts 9000 "
			     "(" LAYOUT ":6)",
			     "0000:3b:00.1 (ens1f1): VF count: operator spec 2, status 0 (the "
			     "operator had not converged)",
			     "0000:3b:00.1 (ens1f1): no layout selects it: the operator "
			     "configures it (2 VFs); it would be unconfigured, and nothing makes "
			     "its VFs again after a reboot",
			     NULL });
	env_done(&e);

	assert_lines(compare(&e, E810, E810_LAYOUT, E810_STATE("4", "9000", "vfio-pci", "0")),
		     (const char *const[]){
			     "0000:3b:00.0 (ens1f0): VF 3 driver: operator spec netdevice, "
			     "status vfio-pci (the operator had not converged)",
			     "0000:3b:00.0 (ens1f0): VF 3 driver: operator vfio-pci, layouts iavf",
			     NULL });
	assert_int_equal(e.cmp.unconverged, 1);
	env_done(&e);

	assert_lines(compare(&e, E810, E810_LAYOUT, E810_STATE("4", "9000", "iavf", "1500")),
		     (const char *const[]){
			     "0000:3b:00.0 (ens1f0): VF 3 MTU: operator spec 9000, status 1500 "
			     "(the operator had not converged)",
			     "0000:3b:00.0 (ens1f0): VF 3 MTU: operator 1500, layouts 9000 "
			     "(" LAYOUT ":13)",
			     NULL });
	env_done(&e);
}

/* A VF that the layouts keep keeps its driver and MTU; eswitch mode and link
 * type of a port without devlink eswitch. */
static void test_kept_vfs_and_port(void **state)
{
	struct env e = {};

	assert_lines(compare(&e, CX7, "[Match]\nName=ibp26s0\n\n[PhysicalFunction]\n",
			     HEAD "status:\n  syncStatus: InProgress\n  interfaces:\n"
				  "  - pciAddress: 0000:1a:00.0\n    numVfs: 2\n    linkType: ETH\n"
				  "    eSwitchMode: switchdev\n    mtu: 4092\n    Vfs:\n"
				  "    - {vfID: 0, driver: mlx5_core, mtu: 4092}\n"
				  "    - {vfID: 1, driver: vfio-pci}\n"
				  "  - pciAddress: 0000:5e:00.0\n    name: gone0\n"),
		     (const char *const[]){
			     "node state gpu-worker-03: syncStatus InProgress: the operator had "
			     "not converged",
			     "0000:1a:00.0 (ibp26s0): the layouts configure it (2 VFs; " LAYOUT
			     "), the operator does not (it is not in the spec of the "
			     "node state)",
			     "0000:5e:00.0 (gone0): not on this host: the node state is another "
			     "node's, or the PF is gone",
			     NULL });
	env_done(&e);

	assert_lines(compare(&e, CX7, "[Match]\nName=ibp26s0\n\n[PhysicalFunction]\n",
			     HEAD "spec:\n  interfaces:\n  - pciAddress: 0000:1a:00.0\n"
				  "    numVfs: 2\n"
				  "status:\n  interfaces:\n"
				  "  - pciAddress: 0000:1a:00.0\n    numVfs: 2\n    linkType: ETH\n"
				  "    eSwitchMode: switchdev\n    mtu: 4092\n    Vfs:\n"
				  "    - {vfID: 0, driver: mlx5_core, mtu: 4092}\n"
				  "    - {vfID: 1, driver: vfio-pci}\n"),
		     (const char *const[]){
			     "0000:1a:00.0 (ibp26s0): VF count: operator 2, layouts 2 only as the "
			     "host has it now: no layout sets it, and a reboot loses it",
			     "0000:1a:00.0 (ibp26s0): eswitch mode: operator switchdev, layouts "
			     "legacy",
			     "0000:1a:00.0 (ibp26s0): link type: operator ETH, layouts infiniband",
			     "0000:1a:00.0 (ibp26s0): VF 1 driver: operator vfio-pci, layouts "
			     "mlx5_core",
			     NULL });
	env_done(&e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shapes_and_choice),
		cmocka_unit_test(test_unjudged_and_errors),
		cmocka_unit_test(test_no_difference),
		cmocka_unit_test(test_differences),
		cmocka_unit_test(test_kept_vfs_and_port),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
