/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* The device plugin's config.json from ResourceName= keys, on the e810
 * fixture (two ice PFs, ens1f0 and ens1f1, iavf VFs 8086:1889). */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "dpconfig.h"
#include "json-util.h"
#include "snapshot.h"

#define FIXTURE "tests/fixtures/hosts/e810.json"

struct env {
	struct host_state *hs;
	struct layout_file *file;
	struct layout_set set;
	struct host_view v;
	struct dp_config c;
};

static void env_done(struct env *e)
{
	dp_config_done(&e->c);
	host_view_done(&e->v);
	layout_file_free(e->file);
	host_state_free(e->hs);
	diag_list_done(&e->set.diags);
}

/* When set, the VFs of the second PF (ens1f1) are bound to this driver now. */
static const char *second_pf_vf_driver;

/* Gives every PF of the fixture n VFs on the kernel's VF driver, as the host
 * has them after applying a layout with VirtualFunctions=n. */
static void give_vfs(struct host_state *hs, unsigned n)
{
	for (size_t p = 0; p < hs->n_pfs; p++) {
		struct pf_state *pf = &hs->pfs[p];

		pf->vfs = calloc(n, sizeof(*pf->vfs));
		assert_non_null(pf->vfs);
		for (unsigned i = 0; i < n; i++) {
			pf->vfs[i].index = i;
			assert_int_equal(pf_vf_pci_addr(pf, i, pf->vfs[i].pci), 0);
			pf->vfs[i].attrs.driver = strdup(p == 1 && second_pf_vf_driver ?
								 second_pf_vf_driver :
								 pf->vf_driver);
		}
		pf->n_vfs = pf->num_vfs = n;
	}
}

static struct json_object *build_with(struct env *e, unsigned vfs, const char *layout)
{
	_cleanup_free_ char *text = NULL, *error = NULL;

	assert_int_equal(read_file(FIXTURE, &text), 0);
	assert_int_equal(snapshot_parse(text, &e->hs, &error), 0);
	give_vfs(e->hs, vfs);
	assert_int_equal(layout_parse_string("/etc/sriov-persist/conf.d/50-t.conf", layout,
					     &e->set.diags, &e->file),
			 0);
	e->set.files = &e->file;
	e->set.n_files = 1;
	assert_int_equal(host_view_build(e->hs, &e->set, NULL, &e->v), 0);
	assert_int_equal(dpconfig_build(&e->v, "intel.com", &e->c), 0);
	return json_tokener_parse(e->c.json);
}

static struct json_object *build(struct env *e, const char *layout)
{
	return build_with(e, 8, layout);
}

static const char *sel_str(struct json_object *sel, const char *key, size_t i)
{
	struct json_object *a;

	if (!json_object_object_get_ex(sel, key, &a))
		return NULL;
	return json_object_get_string(json_object_array_get_idx(a, i));
}

static void test_ranges(void **state)
{
	const uint32_t a[] = { 0, 1, 2, 3, 5, 7, 8, 9, 11 };
	_cleanup_free_ char *s = ranges_format(a, 9), *one = ranges_format(a, 1);

	assert_string_equal(s, "0-3,5,7-9,11");
	assert_string_equal(one, "0");
}

/* Two resources on one PF (netdev VFs and vfio-pci VFs), one spanning both PFs. */
static void test_resources(void **state)
{
	struct env e = {};
	_cleanup_json_ struct json_object *doc = build(&e, "[Match]\n"
							   "Driver=ice\n"
							   "[PhysicalFunction]\n"
							   "VirtualFunctions=8\n"
							   "[VirtualFunction 0-3]\n"
							   "ResourceName=e810_net\n"
							   "RDMA=yes\n"
							   "[VirtualFunction 4-5]\n"
							   "Driver=vfio-pci\n"
							   "ResourceName=e810_dpdk\n"
							   "[VirtualFunction 7]\n"
							   "ResourceName=e810_net\n"
							   "RDMA=yes\n");
	struct json_object *list, *dpdk, *net, *sels, *sel;

	assert_non_null(doc);
	assert_true(json_object_object_get_ex(doc, "resourceList", &list));
	assert_int_equal(json_object_array_length(list), 2);
	dpdk = json_object_array_get_idx(list, 0);
	net = json_object_array_get_idx(list, 1);
	assert_string_equal(json_object_get_string(json_object_object_get(dpdk, "resourceName")),
			    "e810_dpdk");
	assert_string_equal(json_object_get_string(json_object_object_get(dpdk, "resourcePrefix")),
			    "intel.com");
	sels = json_object_object_get(dpdk, "selectors");
	assert_int_equal(json_object_array_length(sels), 1);
	sel = json_object_array_get_idx(sels, 0);
	assert_string_equal(sel_str(sel, "vendors", 0), "8086");
	assert_string_equal(sel_str(sel, "devices", 0), "1889");
	assert_string_equal(sel_str(sel, "drivers", 0), "vfio-pci");
	assert_string_equal(sel_str(sel, "pfNames", 0), "ens1f0#4-5");
	assert_string_equal(sel_str(sel, "pfNames", 1), "ens1f1#4-5");
	assert_null(json_object_object_get(sel, "isRdma"));

	sel = json_object_array_get_idx(json_object_object_get(net, "selectors"), 0);
	assert_string_equal(sel_str(sel, "drivers", 0), "iavf");
	assert_string_equal(sel_str(sel, "pfNames", 0), "ens1f0#0-3,7");
	assert_string_equal(sel_str(sel, "pfNames", 1), "ens1f1#0-3,7");
	assert_true(json_object_get_boolean(json_object_object_get(sel, "isRdma")));

	assert_int_equal(e.c.n_counts, 2);
	assert_string_equal(e.c.counts[0].resource, "intel.com/e810_dpdk");
	assert_int_equal(e.c.counts[0].count, 4);
	assert_string_equal(e.c.counts[1].resource, "intel.com/e810_net");
	assert_int_equal(e.c.counts[1].count, 10);
	env_done(&e);
}

/* The same input gives the same bytes; no ResourceName= gives an empty list. */
static void test_stable_and_empty(void **state)
{
	static const char *layout = "[Match]\nDriver=ice\n[PhysicalFunction]\nVirtualFunctions=2\n"
				    "[VirtualFunction]\nResourceName=all\n";
	struct env a = {}, b = {}, none = {};
	_cleanup_json_ struct json_object *da = build(&a, layout), *db = build(&b, layout);
	_cleanup_json_ struct json_object *dn =
		build(&none, "[Match]\nDriver=ice\n[PhysicalFunction]\nVirtualFunctions=2\n");

	assert_string_equal(a.c.json, b.c.json);
	assert_int_equal(a.c.n_counts, 1);
	assert_int_equal(a.c.counts[0].count, 4); /* 2 VFs on each of 2 PFs */
	assert_int_equal(json_object_array_length(json_object_object_get(dn, "resourceList")), 0);
	assert_int_equal(none.c.n_counts, 0);
	env_done(&a);
	env_done(&b);
	env_done(&none);
}

/* A held PF (error in its layout) contributes nothing. */
static void test_held_pf(void **state)
{
	struct env e = {};
	_cleanup_json_ struct json_object *doc = build(
		&e, "[Match]\nPCIAddress=0000:3b:00.0\n[PhysicalFunction]\nVirtualFunctions=2\n"
		    "[VirtualFunction 0]\nResourceName=x\nVLANId=5000\n");

	assert_int_equal(json_object_array_length(json_object_object_get(doc, "resourceList")), 0);
	env_done(&e);
}

/* Before the apply made them, VFs are not named: 4 exist, the layout wants 8. */
static void test_only_vfs_that_exist(void **state)
{
	struct env e = {};
	_cleanup_json_ struct json_object *doc =
		build_with(&e, 4,
			   "[Match]\nPCIAddress=0000:3b:00.0\n[PhysicalFunction]\n"
			   "VirtualFunctions=8\n[VirtualFunction]\nResourceName=x\n");
	struct json_object *sel = json_object_array_get_idx(
		json_object_object_get(
			json_object_array_get_idx(json_object_object_get(doc, "resourceList"), 0),
			"selectors"),
		0);

	assert_string_equal(sel_str(sel, "pfNames", 0), "ens1f0#0-3");
	assert_int_equal(e.c.counts[0].count, 4);
	env_done(&e);
}

/* A layout that leaves Driver= unset counts on the driver a VF has now: one
 * ResourceName= over VFs bound to iavf and VFs bound to vfio-pci by hand
 * would be one pool of both kinds, and is left out, saying why. */
static void test_mixed_pool_left_out(void **state)
{
	struct env e = {};
	_cleanup_json_ struct json_object *doc = NULL;

	second_pf_vf_driver = "vfio-pci";
	doc = build_with(&e, 2,
			 "[Match]\nDriver=ice\n[PhysicalFunction]\nVirtualFunctions=2\n"
			 "[VirtualFunction]\nResourceName=pool\n[VirtualFunction 1]\n"
			 "ResourceName=own\n");
	second_pf_vf_driver = NULL;
	/* "own" mixes too; nothing is written of either */
	assert_int_equal(json_object_array_length(json_object_object_get(doc, "resourceList")), 0);
	assert_int_equal(e.c.n_counts, 0);
	assert_int_equal(strv_length(e.c.left_out), 2);
	assert_string_equal(e.c.left_out[1],
			    "ResourceName=pool left out of the device plugin's configuration: VFs "
			    "with a network interface (ens1f0#0 on iavf) and VFs without (ens1f1#0 "
			    "on vfio-pci) would be one pool, and a pod that asks for it would get "
			    "either");
	env_done(&e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ranges),
		cmocka_unit_test(test_resources),
		cmocka_unit_test(test_stable_and_empty),
		cmocka_unit_test(test_held_pf),
		cmocka_unit_test(test_only_vfs_that_exist),
		cmocka_unit_test(test_mixed_pool_left_out),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
