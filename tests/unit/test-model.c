/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "model.h"

static void test_enum_strings(void **state)
{
	assert_string_equal(eswitch_mode_to_string(ESWITCH_MODE_LEGACY), "legacy");
	assert_string_equal(eswitch_mode_to_string(ESWITCH_MODE_SWITCHDEV), "switchdev");
	assert_null(eswitch_mode_to_string(_ESWITCH_MODE_MAX));
	assert_null(eswitch_mode_to_string(_ESWITCH_MODE_INVALID));
	assert_int_equal(eswitch_mode_from_string("switchdev"), ESWITCH_MODE_SWITCHDEV);
	assert_int_equal(eswitch_mode_from_string("Switchdev"), _ESWITCH_MODE_INVALID);
	assert_int_equal(eswitch_mode_from_string(NULL), _ESWITCH_MODE_INVALID);

	assert_string_equal(link_type_to_string(LINK_TYPE_ETHERNET), "ethernet");
	assert_string_equal(link_type_to_string(LINK_TYPE_INFINIBAND), "infiniband");
	assert_int_equal(link_type_from_string("infiniband"), LINK_TYPE_INFINIBAND);
	assert_int_equal(link_type_from_string("ib"), _LINK_TYPE_INVALID);

	assert_string_equal(vlan_proto_to_string(VLAN_PROTO_8021Q), "802.1Q");
	assert_string_equal(vlan_proto_to_string(VLAN_PROTO_8021AD), "802.1ad");
	assert_int_equal(vlan_proto_from_string("802.1ad"), VLAN_PROTO_8021AD);
	assert_int_equal(vlan_proto_from_string("802.1q"), _VLAN_PROTO_INVALID);

	assert_string_equal(link_state_to_string(LINK_STATE_AUTO), "auto");
	assert_string_equal(link_state_to_string(LINK_STATE_ENABLE), "enable");
	assert_string_equal(link_state_to_string(LINK_STATE_DISABLE), "disable");
	assert_int_equal(link_state_from_string("disable"), LINK_STATE_DISABLE);
	assert_int_equal(link_state_from_string("yes"), _LINK_STATE_INVALID);
	assert_null(link_state_to_string(_LINK_STATE_MAX));
}

/* Every value survives to_string/from_string. */
static void test_enum_round_trip(void **state)
{
	for (int i = 0; i < _ESWITCH_MODE_MAX; i++)
		assert_int_equal(eswitch_mode_from_string(eswitch_mode_to_string(i)), i);
	for (int i = 0; i < _LINK_TYPE_MAX; i++)
		assert_int_equal(link_type_from_string(link_type_to_string(i)), i);
	for (int i = 0; i < _VLAN_PROTO_MAX; i++)
		assert_int_equal(vlan_proto_from_string(vlan_proto_to_string(i)), i);
	for (int i = 0; i < _LINK_STATE_MAX; i++)
		assert_int_equal(link_state_from_string(link_state_to_string(i)), i);
}

static void check_vf_addr(const char *pf_pci, unsigned offset, unsigned stride, unsigned index,
			  const char *expect)
{
	struct pf_state pf = { .vf_offset = offset, .vf_stride = stride };
	char buf[PCI_ADDR_MAX] = "unchanged";

	strcpy(pf.pci, pf_pci);
	assert_int_equal(pf_vf_pci_addr(&pf, index, buf), 0);
	assert_string_equal(buf, expect);
}

static void test_vf_pci_addr(void **state)
{
	/* E810 port 0: offset 8, stride 1 */
	check_vf_addr("0000:3b:00.0", 8, 1, 0, "0000:3b:01.0");
	check_vf_addr("0000:3b:00.0", 8, 1, 7, "0000:3b:01.7");
	check_vf_addr("0000:3b:00.0", 8, 1, 8, "0000:3b:02.0");
	/* E810 port 1 (offset 135): its last VFs run into the next bus */
	check_vf_addr("0000:3b:00.1", 135, 1, 0, "0000:3b:11.0");
	check_vf_addr("0000:3b:00.1", 135, 1, 127, "0000:3c:00.7");
	/* 82576: VFs on the next bus, every other function */
	check_vf_addr("0000:01:00.0", 384, 2, 0, "0000:02:10.0");
	check_vf_addr("0000:01:00.1", 384, 2, 6, "0000:02:11.5");
	/* ConnectX port 1 */
	check_vf_addr("0000:ca:00.1", 9, 1, 7, "0000:ca:02.1");
	/* the domain is kept */
	check_vf_addr("0001:80:00.0", 2, 1, 1, "0001:80:00.3");
	/* the last routing ID of the domain */
	check_vf_addr("0000:ff:1f.0", 7, 1, 0, "0000:ff:1f.7");
}

static void test_vf_pci_addr_errors(void **state)
{
	struct pf_state pf = { .vf_offset = 8, .vf_stride = 1 };
	char buf[PCI_ADDR_MAX] = "unchanged";

	strcpy(pf.pci, "0000:ff:1f.0");
	assert_int_equal(pf_vf_pci_addr(&pf, 0, buf), -ERANGE);
	assert_string_equal(buf, "unchanged");
	pf.vf_offset = 0xffff;
	pf.vf_stride = 0xffff;
	strcpy(pf.pci, "0000:00:00.0");
	assert_int_equal(pf_vf_pci_addr(&pf, 0xffffffffu, buf), -ERANGE);
	strcpy(pf.pci, "0000:3B:00.0");
	assert_int_equal(pf_vf_pci_addr(&pf, 0, buf), -EINVAL);
	assert_string_equal(buf, "unchanged");
}

static void test_pf_describe(void **state)
{
	struct pf_state pf = { .name = (char *)"ens1f0" };
	char *s;

	strcpy(pf.pci, "0000:3b:00.0");
	s = pf_describe(&pf);
	assert_string_equal(s, "0000:3b:00.0 (ens1f0)");
	free(s);
	pf.name = NULL;
	s = pf_describe(&pf);
	assert_string_equal(s, "0000:3b:00.0");
	free(s);
}

static void fill_vf(struct vf_state *vf, unsigned i, const char *name, const char *driver)
{
	*vf = (struct vf_state){ .index = i,
				 .attrs.vlan = (uint16_t)(100 + i),
				 .attrs.spoofchk = true };
	snprintf(vf->pci, sizeof(vf->pci), "0000:3b:01.%u", i);
	vf->name = name ? strdup(name) : NULL;
	vf->attrs.driver = driver ? strdup(driver) : NULL;
}

static struct host_state *make_host(void)
{
	struct host_state *h = calloc(1, sizeof(*h));
	struct pf_state *pf;

	assert_non_null(h);
	h->hostname = strdup("worker-7");
	h->kernel_cmdline = strdup("ro quiet");
	assert_int_equal(strv_split("ice iavf", &h->modules), 0);
	h->has_machine_id = true;
	h->machine_id[0] = 0x9f;
	h->pfs = calloc(2, sizeof(*h->pfs));
	h->n_pfs = 2;
	pf = &h->pfs[0];
	strcpy(pf->pci, "0000:3b:00.0");
	pf->name = strdup("ens1f0");
	assert_int_equal(strv_split("enp59s0f0", &pf->altnames), 0);
	pf->driver = strdup("ice");
	pf->vf_driver = strdup("iavf");
	pf->total_vfs = 128;
	pf->num_vfs = pf->n_vfs = 2;
	pf->vfs = calloc(2, sizeof(*pf->vfs));
	fill_vf(&pf->vfs[0], 0, "ens1f0v0", "iavf");
	fill_vf(&pf->vfs[1], 1, NULL, NULL);
	strcpy(h->pfs[1].pci, "0000:3b:00.1");
	h->pfs[1].firmware_total_vfs = -1;
	return h;
}

static void test_copy(void **state)
{
	struct host_state *h = make_host(), *c = NULL;

	assert_int_equal(host_state_copy(h, &c), 0);
	assert_ptr_not_equal(c->hostname, h->hostname);
	assert_string_equal(c->hostname, "worker-7");
	assert_string_equal(c->kernel_cmdline, "ro quiet");
	assert_ptr_not_equal(c->modules, h->modules);
	assert_int_equal(strv_length(c->modules), 2);
	assert_true(c->has_machine_id);
	assert_int_equal(c->machine_id[0], 0x9f);
	assert_int_equal(c->n_pfs, 2);
	assert_string_equal(c->pfs[0].pci, "0000:3b:00.0");
	assert_ptr_not_equal(c->pfs[0].name, h->pfs[0].name);
	assert_string_equal(c->pfs[0].altnames[0], "enp59s0f0");
	assert_ptr_not_equal(c->pfs[0].vfs, h->pfs[0].vfs);
	assert_int_equal(c->pfs[0].n_vfs, 2);
	assert_string_equal(c->pfs[0].vfs[0].name, "ens1f0v0");
	assert_ptr_not_equal(c->pfs[0].vfs[0].name, h->pfs[0].vfs[0].name);
	assert_null(c->pfs[0].vfs[1].name);
	assert_null(c->pfs[0].vfs[1].attrs.driver);
	assert_int_equal(c->pfs[0].vfs[1].attrs.vlan, 101);
	assert_null(c->pfs[1].name);
	assert_null(c->pfs[1].vfs);
	assert_int_equal(c->pfs[1].firmware_total_vfs, -1);

	/* the copy is independent */
	c->pfs[0].vfs[0].name[0] = 'X';
	c->hostname[0] = 'X';
	assert_string_equal(h->pfs[0].vfs[0].name, "ens1f0v0");
	assert_string_equal(h->hostname, "worker-7");

	assert_null(host_state_free(c));
	assert_null(host_state_free(h));
}

static void test_pf_copy(void **state)
{
	struct host_state *h = make_host();
	struct pf_state c;

	assert_int_equal(pf_state_copy(&h->pfs[0], &c), 0);
	assert_string_equal(c.vf_driver, "iavf");
	assert_int_equal(c.n_vfs, 2);
	assert_string_equal(c.vfs[1].pci, "0000:3b:01.1");
	pf_state_done(&c);
	assert_null(c.vfs);
	assert_int_equal(c.n_vfs, 0);
	pf_state_done(&c); /* twice is fine */
	host_state_free(h);
}

static void test_free_null(void **state)
{
	struct pf_state pf = {};
	struct vf_state vf = {};

	assert_null(host_state_free(NULL));
	pf_state_done(NULL);
	pf_state_done(&pf);
	vf_state_done(NULL);
	vf_state_done(&vf);
}

static void test_find_pf(void **state)
{
	struct host_state *h = make_host();

	assert_ptr_equal(host_state_find_pf(h, "0000:3b:00.1"), &h->pfs[1]);
	assert_ptr_equal(host_state_find_pf(h, "0000:3b:00.0"), &h->pfs[0]);
	assert_null(host_state_find_pf(h, "0000:3b:00.2"));
	assert_null(host_state_find_pf(h, NULL));
	assert_null(host_state_find_pf(NULL, "0000:3b:00.0"));
	host_state_free(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_enum_strings), cmocka_unit_test(test_enum_round_trip),
		cmocka_unit_test(test_vf_pci_addr),  cmocka_unit_test(test_vf_pci_addr_errors),
		cmocka_unit_test(test_pf_describe),  cmocka_unit_test(test_copy),
		cmocka_unit_test(test_pf_copy),	     cmocka_unit_test(test_free_null),
		cmocka_unit_test(test_find_pf),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
