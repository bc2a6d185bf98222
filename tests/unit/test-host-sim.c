/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* The simulated host against the kernel's rules, on copies of the fixtures.
 * The injected faults (errno, hang, crash) and several processes sharing one
 * file are tested in test-host-sim-faults.c. */

#include <fcntl.h>
#include <sys/file.h>

#include "test-host-sim.h"

#define X710_PF0 "0000:18:00.0"
#define CX6_PF0 "0000:ca:00.0"
#define IGB_PF0 "0000:01:00.0"

static void test_open(void **state)
{
	struct env *e = *state;
	struct host *h = NULL;
	struct host_state *hs;
	char error[HOST_ERROR_MAX], want[HOST_ERROR_MAX + 64];

	env_load(e, "e810.json", NULL);
	assert_string_equal(e->h->ops->name, "simulated");
	hs = env_read(e);
	assert_int_equal(hs->n_pfs, 2);
	assert_string_equal(hs->pfs[0].pci, E810_PF0);
	host_state_free(hs);

	assert_int_equal(host_sim_open("/nonexistent/host.json", &h, error), -ENOENT);
	assert_string_equal(error, "");
	env_write_text(e, "{ \"version\": 1 ");
	assert_int_equal(host_sim_open(e->path, &h, error), -EINVAL);
	assert_null(h);
	snprintf(want, sizeof(want),
		 "%s: not a simulated host snapshot: (document): not valid JSON: unexpected "
		 "end of input",
		 e->path);
	assert_string_equal(error, want);
	/* an existing handle reports the broken file with the parser's message */
	assert_int_equal(host_read(e->h, &hs), -EINVAL);
	assert_non_null(strstr(e->h->error, "not valid JSON"));
}

/* With autoprobe off, VFs come on no driver and nothing loads the VF
 * driver's module; a bind that names the driver probes each. */
static void test_autoprobe_off(void **state)
{
	struct env *e = *state;
	struct host_state *hs;

	env_load(e, "e810.json", NULL);
	assert_int_equal(op_set_autoprobe(e->h, E810_PF0, false), 0);
	assert_int_equal(op_set_num_vfs(e->h, E810_PF0, 2, T), 0);
	hs = env_read(e);
	assert_false(hs->pfs[0].drivers_autoprobe);
	assert_true(hs->pfs[1].drivers_autoprobe);
	assert_null(hs->pfs[0].vfs[0].attrs.driver);
	assert_null(hs->pfs[0].vfs[1].name);
	assert_int_equal(hs->pfs[0].vfs[1].attrs.mtu, 0);
	assert_false(strv_contains(hs->modules, "iavf"));
	host_state_free(hs);

	assert_int_equal(op_load_module(e->h, "vfio-pci"), 0);
	assert_int_equal(op_bind_vf(e->h, E810_PF0, 1, "vfio-pci", T), 0);
	assert_int_equal(op_set_autoprobe(e->h, E810_PF0, true), 0);
	hs = env_read(e);
	assert_true(hs->pfs[0].drivers_autoprobe);
	assert_null(hs->pfs[0].vfs[0].attrs.driver); /* turning it on probes nothing */
	assert_string_equal(hs->pfs[0].vfs[1].attrs.driver, "vfio-pci");
	host_state_free(hs);
}

static void test_set_num_vfs(void **state)
{
	struct env *e = *state;
	struct host_state *hs;
	const struct pf_state *pf;

	env_load(e, "e810.json", NULL);
	assert_int_equal(op_set_num_vfs(e->h, E810_PF0, 129, T), -ERANGE);
	assert_int_equal(op_set_num_vfs(e->h, "0000:99:00.0", 1, T), -ENODEV);
	assert_int_equal(op_set_num_vfs(e->h, E810_PF0, 4, T), 0);
	assert_string_equal(e->h->error, "");

	hs = env_read(e);
	pf = &hs->pfs[0];
	assert_int_equal(pf->num_vfs, 4);
	assert_int_equal(pf->n_vfs, 4);
	assert_string_equal(pf->vfs[0].pci, "0000:3b:01.0");
	assert_string_equal(pf->vfs[3].pci, "0000:3b:01.3");
	assert_int_equal(pf->vfs[3].index, 3);
	assert_string_equal(pf->vfs[2].name, "ens1f0v2");
	assert_string_equal(pf->vfs[2].attrs.driver, "iavf");
	assert_int_equal(pf->vfs[2].attrs.mtu, 1500);
	assert_true(mac_is_zero(&pf->vfs[2].attrs.mac));
	assert_true(pf->vfs[2].attrs.spoofchk);
	assert_false(pf->vfs[2].attrs.trust);
	assert_int_equal(pf->vfs[2].attrs.vlan_proto, VLAN_PROTO_8021Q);
	assert_int_equal(pf->vfs[2].attrs.link_state, LINK_STATE_AUTO);
	assert_false(pf->vfs[2].attrs.rdma); /* irdma is not loaded */
	/* udev loaded the VF driver */
	assert_true(strv_contains(hs->modules, "iavf"));
	assert_int_equal(hs->pfs[1].num_vfs, 0);
	host_state_free(hs);

	/* the same count is no change; another non-zero count is refused */
	assert_int_equal(op_set_num_vfs(e->h, E810_PF0, 4, T), 0);
	assert_int_equal(op_set_num_vfs(e->h, E810_PF0, 2, T), -EBUSY);
	assert_non_null(strstr(e->h->error, "already enabled"));
	assert_int_equal(env_num_vfs(e, 0), 4);
	assert_int_equal(op_set_num_vfs(e->h, E810_PF0, 0, T), 0);
	assert_int_equal(env_num_vfs(e, 0), 0);
	/* the far end of the second port's range crosses into bus 3c */
	assert_int_equal(op_set_num_vfs(e->h, E810_PF1, 128, T), 0);
	hs = env_read(e);
	assert_string_equal(hs->pfs[1].vfs[0].pci, "0000:3b:11.0");
	assert_string_equal(hs->pfs[1].vfs[127].pci, "0000:3c:00.7");
	assert_string_equal(hs->pfs[1].vfs[127].name, "ens1f1v127");
	host_state_free(hs);
}

static void test_set_num_vfs_no_driver(void **state)
{
	struct env *e = *state;
	struct host_state *hs;

	env_load(e, "e810.json", NULL);
	hs = env_read(e);
	free(hs->pfs[1].driver);
	hs->pfs[1].driver = NULL;
	env_write_state(e, hs);
	host_state_free(hs);
	assert_int_equal(op_set_num_vfs(e->h, E810_PF1, 2, T), -ENOENT);
	/* 0 -> 0 needs no driver, and the total is checked first */
	assert_int_equal(op_set_num_vfs(e->h, E810_PF1, 0, T), 0);
	assert_int_equal(op_set_num_vfs(e->h, E810_PF1, 200, T), -ERANGE);
}

static void test_igb_random_mac(void **state)
{
	struct env *e = *state;
	struct host_state *hs;
	struct mac_addr first[2];

	env_load(e, "igb-82576.json", NULL);
	assert_int_equal(op_set_num_vfs(e->h, IGB_PF0, 8, T), -ERANGE);
	assert_int_equal(op_set_num_vfs(e->h, IGB_PF0, 2, T), 0);
	hs = env_read(e);
	assert_string_equal(hs->pfs[0].vfs[0].pci, "0000:02:10.0");
	assert_string_equal(hs->pfs[0].vfs[1].pci, "0000:02:10.2");
	assert_string_equal(hs->pfs[0].vfs[1].attrs.driver, "igbvf");
	assert_true(strv_contains(hs->modules, "igbvf"));
	for (size_t i = 0; i < 2; i++) {
		const struct mac_addr *m = &hs->pfs[0].vfs[i].attrs.mac;

		assert_false(mac_is_zero(m));
		assert_false(mac_is_multicast(m));
		assert_true(m->b[0] & 0x02); /* locally administered */
		first[i] = *m;
	}
	assert_false(mac_equal(&first[0], &first[1]));
	host_state_free(hs);

	/* the same VF gets the same address again */
	assert_int_equal(op_set_num_vfs(e->h, IGB_PF0, 0, T), 0);
	assert_int_equal(op_set_num_vfs(e->h, IGB_PF0, 1, T), 0);
	hs = env_read(e);
	assert_true(mac_equal(&hs->pfs[0].vfs[0].attrs.mac, &first[0]));
	host_state_free(hs);
}

static void test_eswitch(void **state)
{
	struct env *e = *state;
	struct host_state *hs;

	env_load(e, "e810.json", NULL);
	/* ice: only while no VF exists */
	assert_int_equal(op_set_num_vfs(e->h, E810_PF0, 2, T), 0);
	assert_int_equal(op_set_eswitch_mode(e->h, E810_PF0, ESWITCH_MODE_SWITCHDEV, T),
			 -EOPNOTSUPP);
	assert_non_null(strstr(e->h->error, "no VFs created"));
	assert_int_equal(op_set_eswitch_mode(e->h, E810_PF0, ESWITCH_MODE_LEGACY, T), 0);
	assert_int_equal(op_set_num_vfs(e->h, E810_PF0, 0, T), 0);
	assert_int_equal(op_set_eswitch_mode(e->h, E810_PF0, ESWITCH_MODE_SWITCHDEV, T), 0);
	/* VFs still appear in switchdev mode */
	assert_int_equal(op_set_num_vfs(e->h, E810_PF0, 2, T), 0);
	assert_int_equal(op_set_hw_tc_offload(e->h, E810_PF0, true), 0);
	hs = env_read(e);
	assert_int_equal(hs->pfs[0].eswitch_mode, ESWITCH_MODE_SWITCHDEV);
	assert_true(hs->pfs[0].hw_tc_offload);
	assert_string_equal(hs->pfs[0].vfs[1].attrs.driver, "iavf");
	assert_int_equal(hs->pfs[1].eswitch_mode, ESWITCH_MODE_LEGACY);
	host_state_free(hs);

	/* i40e has no devlink eswitch; hw-tc-offload is an ethtool feature */
	env_load(e, "x710.json", NULL);
	assert_int_equal(op_set_eswitch_mode(e->h, X710_PF0, ESWITCH_MODE_SWITCHDEV, T),
			 -EOPNOTSUPP);
	assert_int_equal(op_set_hw_tc_offload(e->h, X710_PF0, true), 0);
	assert_int_equal(op_set_eswitch_mode(e->h, "0000:99:00.0", 0, T), -ENODEV);
}

static void test_eswitch_mlx5(void **state)
{
	struct env *e = *state;
	struct host_state *hs;

	env_load(e, "cx6dx.json", NULL);
	/* mlx5: VFs first, unbound while the mode changes */
	assert_int_equal(op_set_num_vfs(e->h, CX6_PF0, 2, T), 0);
	assert_int_equal(op_set_eswitch_mode(e->h, CX6_PF0, ESWITCH_MODE_SWITCHDEV, T), -EBUSY);
	assert_int_equal(op_unbind_vf(e->h, CX6_PF0, 0, T), 0);
	assert_int_equal(op_set_eswitch_mode(e->h, CX6_PF0, ESWITCH_MODE_SWITCHDEV, T), -EBUSY);
	assert_int_equal(op_unbind_vf(e->h, CX6_PF0, 1, T), 0);
	assert_int_equal(op_set_eswitch_mode(e->h, CX6_PF0, ESWITCH_MODE_SWITCHDEV, T), 0);
	assert_int_equal(op_bind_vf(e->h, CX6_PF0, 0, NULL, T), 0);
	hs = env_read(e);
	assert_int_equal(hs->pfs[0].eswitch_mode, ESWITCH_MODE_SWITCHDEV);
	assert_string_equal(hs->pfs[0].vfs[0].attrs.driver, "mlx5_core");
	assert_string_equal(hs->pfs[0].vfs[0].name, "ens3f0np0v0");
	host_state_free(hs);
}

static void test_pf_mtu_and_up(void **state)
{
	struct env *e = *state;
	struct host_state *hs;

	env_load(e, "e810.json", NULL);
	assert_int_equal(op_set_pf_mtu(e->h, E810_PF0, 9703), -EINVAL);
	assert_int_equal(op_set_pf_mtu(e->h, E810_PF0, 67), -EINVAL);
	assert_int_equal(op_set_pf_mtu(e->h, E810_PF0, 9000), 0);
	hs = env_read(e);
	assert_int_equal(hs->pfs[0].mtu, 9000);
	assert_int_equal(hs->pfs[1].mtu, 1500);
	hs->pfs[1].up = false;
	env_write_state(e, hs);
	host_state_free(hs);
	assert_int_equal(op_set_pf_up(e->h, E810_PF1), 0);
	hs = env_read(e);
	assert_true(hs->pfs[1].up);
	host_state_free(hs);

	/* IPoIB's netdev on an InfiniBand port: the IB MTU less its header */
	env_load(e, "cx7-ib.json", NULL);
	assert_int_equal(op_set_pf_mtu(e->h, "0000:1a:00.0", 4093), -EINVAL);
	assert_string_equal(e->h->error, "MTU 4093 is outside 68..4092");
	assert_int_equal(op_set_vf_mtu(e->h, "0000:1a:00.0", 0, 9000), -EINVAL);
	assert_int_equal(op_set_pf_mtu(e->h, "0000:1a:00.0", 2044), 0);
}

/* A request: its keys and values. */
struct vf_request {
	uint32_t keys;
	struct vf_attrs a;
};

static struct vf_request attrs(uint32_t keys)
{
	return (struct vf_request){ .keys = keys };
}

#define K(k) (1u << VF_KEY_##k)

static void test_set_vf(void **state)
{
	struct env *e = *state;
	struct host_state *hs;
	struct vf_request a = attrs(K(MAC) | K(VLAN) | K(QOS) | K(VLAN_PROTO) | K(TRUST) |
				    K(SPOOFCHK) | K(LINK_STATE) | K(MIN_TX_RATE) | K(MAX_TX_RATE));
	const struct vf_state *vf;

	env_load(e, "e810.json", NULL);
	assert_int_equal(op_set_num_vfs(e->h, E810_PF0, 2, T), 0);
	assert_int_equal(mac_parse("02:11:22:33:44:55", &a.a.mac), 0);
	a.a.vlan = 100;
	a.a.qos = 3;
	a.a.vlan_proto = VLAN_PROTO_8021AD;
	a.a.trust = true;
	a.a.spoofchk = false;
	a.a.link_state = LINK_STATE_ENABLE;
	a.a.min_tx_rate = 100;
	a.a.max_tx_rate = 1000;
	assert_int_equal(op_set_vf(e->h, E810_PF0, 1, &a.a, a.keys), 0);
	assert_int_equal(op_set_vf(e->h, E810_PF0, 2, &a.a, a.keys), -EINVAL);
	hs = env_read(e);
	vf = &hs->pfs[0].vfs[1];
	assert_int_equal(vf->attrs.mac.b[5], 0x55);
	assert_int_equal(vf->attrs.vlan, 100);
	assert_int_equal(vf->attrs.qos, 3);
	assert_int_equal(vf->attrs.vlan_proto, VLAN_PROTO_8021AD);
	assert_true(vf->attrs.trust);
	assert_false(vf->attrs.spoofchk);
	assert_int_equal(vf->attrs.link_state, LINK_STATE_ENABLE);
	assert_int_equal(vf->attrs.min_tx_rate, 100);
	assert_int_equal(vf->attrs.max_tx_rate, 1000);
	assert_true(mac_is_zero(&hs->pfs[0].vfs[0].attrs.mac));
	host_state_free(hs);

	/* each bad value refuses the whole request */
	a.a.vlan = 4096;
	assert_int_equal(op_set_vf(e->h, E810_PF0, 0, &a.a, a.keys), -EINVAL);
	a.a.vlan = 5;
	a.a.qos = 8;
	assert_int_equal(op_set_vf(e->h, E810_PF0, 0, &a.a, a.keys), -EINVAL);
	a.a.qos = 0;
	a.a.min_tx_rate = 2000;
	assert_int_equal(op_set_vf(e->h, E810_PF0, 0, &a.a, a.keys), -EINVAL);
	a.a.min_tx_rate = 0;
	assert_int_equal(mac_parse("01:00:5e:00:00:01", &a.a.mac), 0);
	assert_int_equal(op_set_vf(e->h, E810_PF0, 0, &a.a, a.keys), -EINVAL);
	hs = env_read(e);
	assert_int_equal(hs->pfs[0].vfs[0].attrs.vlan, 0);
	assert_true(hs->pfs[0].vfs[0].attrs.spoofchk);
	host_state_free(hs);

	/* min rate without max is fine (max 0 = unlimited) */
	a = attrs(K(MIN_TX_RATE) | K(MAX_TX_RATE));
	a.a.min_tx_rate = 500;
	assert_int_equal(op_set_vf(e->h, E810_PF0, 0, &a.a, a.keys), 0);
}

/* Attributes the driver lacks are refused, unless they ask for no change. */
static void test_set_vf_driver_limits(void **state)
{
	struct env *e = *state;
	struct host_state *hs;
	struct vf_request a = attrs(K(VLAN) | K(QOS) | K(VLAN_PROTO));

	env_load(e, "x710.json", NULL);
	assert_int_equal(op_set_num_vfs(e->h, X710_PF0, 1, T), 0);
	a.a.vlan = 10;
	a.a.vlan_proto = VLAN_PROTO_8021AD;
	assert_int_equal(op_set_vf(e->h, X710_PF0, 0, &a.a, a.keys), -EPROTONOSUPPORT);
	a.a.vlan_proto = VLAN_PROTO_8021Q;
	assert_int_equal(op_set_vf(e->h, X710_PF0, 0, &a.a, a.keys), 0);
	a = attrs(K(MIN_TX_RATE) | K(MAX_TX_RATE));
	a.a.min_tx_rate = 10;
	a.a.max_tx_rate = 100;
	assert_int_equal(op_set_vf(e->h, X710_PF0, 0, &a.a, a.keys), -EOPNOTSUPP);
	assert_non_null(strstr(e->h->error, "min_tx_rate"));
	a.a.min_tx_rate = 0;
	assert_int_equal(op_set_vf(e->h, X710_PF0, 0, &a.a, a.keys), 0);
	hs = env_read(e);
	assert_int_equal(hs->pfs[0].vfs[0].attrs.vlan, 10);
	assert_int_equal(hs->pfs[0].vfs[0].attrs.max_tx_rate, 100);
	host_state_free(hs);

	env_load(e, "igb-82576.json", NULL);
	assert_int_equal(op_set_num_vfs(e->h, IGB_PF0, 1, T), 0);
	a = attrs(K(LINK_STATE) | K(TRUST));
	a.a.link_state = LINK_STATE_DISABLE;
	a.a.trust = true;
	assert_int_equal(op_set_vf(e->h, IGB_PF0, 0, &a.a, a.keys), -EOPNOTSUPP);
	a.a.link_state = LINK_STATE_AUTO;
	assert_int_equal(op_set_vf(e->h, IGB_PF0, 0, &a.a, a.keys), 0);
	hs = env_read(e);
	assert_true(hs->pfs[0].vfs[0].attrs.trust);
	host_state_free(hs);

	/* GUIDs only on an InfiniBand port, whose IPoIB netdev sets no MAC */
	env_load(e, "cx6-vpi.json", NULL);
	assert_int_equal(op_set_num_vfs(e->h, "0000:41:00.0", 1, T), 0);
	a = attrs(K(IB_NODE_GUID));
	a.a.ib_node_guid = 0x0002c90300216e70u;
	assert_int_equal(op_set_vf(e->h, "0000:41:00.0", 0, &a.a, a.keys), -EOPNOTSUPP);
	assert_non_null(strstr(e->h->error, "node_guid"));
	env_load(e, "cx7-ib.json", NULL);
	assert_int_equal(op_set_vf(e->h, "0000:1a:00.0", 1, &a.a, a.keys), 0);
	a = attrs(K(MAC));
	a.a.mac = (struct mac_addr){ { 0x02, 0, 0, 0, 0, 1 } };
	assert_int_equal(op_set_vf(e->h, "0000:1a:00.0", 1, &a.a, a.keys), -EOPNOTSUPP);
	hs = env_read(e);
	assert_true(hs->pfs[0].vfs[1].attrs.ib_node_guid == 0x0002c90300216e70u);
	assert_true(hs->pfs[0].vfs[1].attrs.ib_port_guid == 0);
	assert_true(mac_is_zero(&hs->pfs[0].vfs[1].attrs.mac));
	host_state_free(hs);
}

/* The link speed bounds the rates as each driver checks it (drivers.c);
 * an unknown one (the link is down) bounds nothing. */
static void test_set_vf_link_speed(void **state)
{
	struct env *e = *state;
	struct host_state *hs;
	struct vf_request a = attrs(K(MIN_TX_RATE) | K(MAX_TX_RATE));

	env_load(e, "igb-82576.json", NULL); /* 1000 Mb/s */
	assert_int_equal(op_set_num_vfs(e->h, IGB_PF0, 1, T), 0);
	a.a.max_tx_rate = 20000;
	assert_int_equal(op_set_vf(e->h, IGB_PF0, 0, &a.a, a.keys), -EINVAL);
	assert_non_null(strstr(e->h->error, "exceeds the link speed, 1000 Mb/s"));
	a.a.max_tx_rate = 1000;
	assert_int_equal(op_set_vf(e->h, IGB_PF0, 0, &a.a, a.keys), 0);

	/* ice: any maximum, but the minimums together within 25000 Mb/s */
	env_load(e, "e810.json", NULL);
	assert_int_equal(op_set_num_vfs(e->h, E810_PF0, 2, T), 0);
	a.a.max_tx_rate = 40000;
	a.a.min_tx_rate = 20000;
	assert_int_equal(op_set_vf(e->h, E810_PF0, 0, &a.a, a.keys), 0);
	a.a.min_tx_rate = 10000;
	assert_int_equal(op_set_vf(e->h, E810_PF0, 1, &a.a, a.keys), -EINVAL);
	assert_non_null(strstr(e->h->error, "oversubscription"));
	a.a.min_tx_rate = 5000;
	assert_int_equal(op_set_vf(e->h, E810_PF0, 1, &a.a, a.keys), 0);

	/* link down: the driver does not compare */
	env_load(e, "igb-82576.json", NULL);
	hs = env_read(e);
	hs->pfs[0].speed = 0;
	env_write_state(e, hs);
	host_state_free(hs);
	assert_int_equal(op_set_num_vfs(e->h, IGB_PF0, 1, T), 0);
	a.a.min_tx_rate = 0;
	a.a.max_tx_rate = 20000;
	assert_int_equal(op_set_vf(e->h, IGB_PF0, 0, &a.a, a.keys), 0);
	hs = env_read(e);
	assert_int_equal(hs->pfs[0].speed, 0);
	assert_int_equal(hs->pfs[0].vfs[0].attrs.max_tx_rate, 20000);
	host_state_free(hs);
}

static void test_bind_unbind(void **state)
{
	struct env *e = *state;
	struct host_state *hs;

	env_load(e, "e810.json", NULL);
	assert_int_equal(op_set_num_vfs(e->h, E810_PF0, 2, T), 0);
	assert_int_equal(op_bind_vf(e->h, E810_PF0, 0, "vfio-pci", T), -EBUSY);
	assert_int_equal(op_unbind_vf(e->h, E810_PF0, 0, T), 0);
	assert_int_equal(op_unbind_vf(e->h, E810_PF0, 0, T), 0);
	assert_int_equal(op_unbind_vf(e->h, E810_PF0, 5, T), -ENODEV);
	hs = env_read(e);
	assert_null(hs->pfs[0].vfs[0].attrs.driver);
	assert_null(hs->pfs[0].vfs[0].name);
	assert_int_equal(hs->pfs[0].vfs[0].attrs.mtu, 0);
	host_state_free(hs);

	assert_int_equal(op_bind_vf(e->h, E810_PF0, 0, "vfio-pci", T), -ENODEV);
	assert_string_equal(e->h->error, "driver vfio-pci not loaded");
	assert_int_equal(op_load_module(e->h, "vfio-pci"), 0);
	assert_int_equal(op_bind_vf(e->h, E810_PF0, 0, "vfio-pci", T), 0);
	assert_int_equal(op_bind_vf(e->h, E810_PF0, 0, "vfio-pci", T), -EBUSY);
	hs = env_read(e);
	assert_string_equal(hs->pfs[0].vfs[0].attrs.driver, "vfio-pci");
	assert_null(hs->pfs[0].vfs[0].name);
	assert_int_equal(hs->pfs[0].vfs[0].attrs.mtu, 0);
	host_state_free(hs);

	/* back to the kernel's VF driver */
	assert_int_equal(op_unbind_vf(e->h, E810_PF0, 0, T), 0);
	assert_int_equal(op_bind_vf(e->h, E810_PF0, 0, NULL, T), 0);
	hs = env_read(e);
	assert_string_equal(hs->pfs[0].vfs[0].attrs.driver, "iavf");
	assert_string_equal(hs->pfs[0].vfs[0].name, "ens1f0v0");
	assert_int_equal(hs->pfs[0].vfs[0].attrs.mtu, 1500);
	host_state_free(hs);
	assert_int_equal(op_unbind_vf(e->h, E810_PF0, 1, T), 0);
	assert_int_equal(op_bind_vf(e->h, E810_PF0, 1, "ixgbevf", T), -ENODEV);

	/* no IOMMU, no vfio-pci */
	env_load(e, "igb-82576.json", NULL);
	assert_int_equal(op_load_module(e->h, "vfio_pci"), 0);
	assert_int_equal(op_set_num_vfs(e->h, IGB_PF0, 1, T), 0);
	assert_int_equal(op_unbind_vf(e->h, IGB_PF0, 0, T), 0);
	assert_int_equal(op_bind_vf(e->h, IGB_PF0, 0, "vfio-pci", T), -EINVAL);
	assert_non_null(strstr(e->h->error, "no IOMMU group"));
}

static void test_rdma(void **state)
{
	struct env *e = *state;
	struct host_state *hs;

	env_load(e, "cx6dx.json", NULL);
	assert_int_equal(op_set_num_vfs(e->h, CX6_PF0, 2, T), 0);
	hs = env_read(e);
	assert_true(hs->pfs[0].vfs[0].attrs.rdma);
	host_state_free(hs);
	assert_int_equal(op_unbind_vf(e->h, CX6_PF0, 0, T), 0);
	hs = env_read(e);
	assert_false(hs->pfs[0].vfs[0].attrs.rdma);
	assert_true(hs->pfs[0].vfs[1].attrs.rdma);
	host_state_free(hs);

	env_load(e, "e810.json", NULL);
	assert_int_equal(op_set_num_vfs(e->h, E810_PF0, 2, T), 0);
	assert_int_equal(op_load_module(e->h, "irdma"), 0);
	assert_int_equal(op_load_module(e->h, "vfio-pci"), 0);
	assert_int_equal(op_unbind_vf(e->h, E810_PF0, 1, T), 0);
	assert_int_equal(op_bind_vf(e->h, E810_PF0, 1, "vfio-pci", T), 0);
	hs = env_read(e);
	assert_true(hs->pfs[0].vfs[0].attrs.rdma);
	assert_false(hs->pfs[0].vfs[1].attrs.rdma);
	host_state_free(hs);
}

static void test_vf_mtu(void **state)
{
	struct env *e = *state;
	struct host_state *hs;

	env_load(e, "e810.json", NULL);
	assert_int_equal(op_set_vf_mtu(e->h, E810_PF0, 0, 1500), -ENODEV);
	assert_int_equal(op_set_num_vfs(e->h, E810_PF0, 2, T), 0);
	assert_int_equal(op_set_vf_mtu(e->h, E810_PF0, 0, 9000), -EINVAL);
	assert_non_null(strstr(e->h->error, "PF's MTU"));
	assert_int_equal(op_set_pf_mtu(e->h, E810_PF0, 9000), 0);
	assert_int_equal(op_set_vf_mtu(e->h, E810_PF0, 0, 9000), 0);
	assert_int_equal(op_set_vf_mtu(e->h, E810_PF0, 0, 10000), -EINVAL);
	assert_int_equal(op_load_module(e->h, "vfio-pci"), 0);
	assert_int_equal(op_unbind_vf(e->h, E810_PF0, 1, T), 0);
	assert_int_equal(op_set_vf_mtu(e->h, E810_PF0, 1, 1500), -ENODEV);
	assert_int_equal(op_bind_vf(e->h, E810_PF0, 1, "vfio-pci", T), 0);
	assert_int_equal(op_set_vf_mtu(e->h, E810_PF0, 1, 1500), -ENODEV);
	hs = env_read(e);
	assert_int_equal(hs->pfs[0].vfs[0].attrs.mtu, 9000);
	host_state_free(hs);
}

static void test_load_module(void **state)
{
	struct env *e = *state;
	struct host_state *hs;

	env_load(e, "e810.json", NULL);
	assert_int_equal(op_load_module(e->h, "no_such_module"), -ENOENT);
	assert_int_equal(op_load_module(e->h, "vfio-pci"), 0);
	assert_int_equal(op_load_module(e->h, "vfio_pci"), 0);
	assert_int_equal(op_load_module(e->h, "ice"), 0);
	hs = env_read(e);
	assert_int_equal(strv_length(hs->modules), 2);
	assert_string_equal(hs->modules[1], "vfio-pci");
	host_state_free(hs);
}

static void test_firmware(void **state)
{
	struct env *e = *state;
	struct host_state *hs;

	env_load(e, "cx6dx.json", NULL);
	assert_int_equal(op_set_firmware_vfs(e->h, CX6_PF0, 128), -EINVAL);
	assert_int_equal(op_set_firmware_vfs(e->h, CX6_PF0, 32), 0);
	/* ConnectX-6 Dx: Ethernet only, no LINK_TYPE_P1 */
	assert_int_equal(op_set_firmware_link_type(e->h, CX6_PF0, LINK_TYPE_INFINIBAND),
			 -EOPNOTSUPP);
	hs = env_read(e);
	assert_int_equal(hs->pfs[0].firmware_total_vfs, 32);
	assert_int_equal(hs->pfs[0].total_vfs, 8); /* after a reboot */
	/* NUM_OF_VFS is one setting of the card: the other port has it too */
	assert_int_equal(hs->pfs[1].firmware_total_vfs, 32);
	assert_false(hs->pfs[0].has_firmware_link_type);
	host_state_free(hs);
	assert_int_equal(op_set_num_vfs(e->h, CX6_PF0, 9, T), -ERANGE);

	/* ConnectX-6 VPI */
	env_load(e, "cx6-vpi.json", NULL);
	assert_int_equal(op_set_firmware_link_type(e->h, "0000:41:00.1", LINK_TYPE_INFINIBAND), 0);
	hs = env_read(e);
	assert_int_equal(hs->pfs[0].firmware_link_type, LINK_TYPE_ETHERNET);
	assert_int_equal(hs->pfs[1].firmware_link_type, LINK_TYPE_INFINIBAND);
	assert_int_equal(hs->pfs[1].link_type, LINK_TYPE_ETHERNET); /* after a reboot */
	host_state_free(hs);

	env_load(e, "e810.json", NULL);
	assert_int_equal(op_set_firmware_vfs(e->h, E810_PF0, 8), -EOPNOTSUPP);
	assert_int_equal(op_set_firmware_link_type(e->h, E810_PF0, LINK_TYPE_ETHERNET),
			 -EOPNOTSUPP);
	assert_int_equal(op_set_firmware_vfs(e->h, "0000:00:00.0", 8), -ENODEV);
}

/* A firmware reset puts the next-boot settings of every PF of the card in
 * force and takes the VFs of all of them; other cards keep theirs. */
static void check_reset(struct env *e, const char *faults, bool effect)
{
	struct host_state *hs;

	env_load(e, "cx6dx.json", faults);
	assert_int_equal(op_set_num_vfs(e->h, CX6_PF0, 4, T), 0);
	assert_int_equal(op_set_num_vfs(e->h, "0000:ca:00.1", 2, T), 0);
	assert_int_equal(op_set_firmware_vfs(e->h, CX6_PF0, 32), 0);
	assert_int_equal(op_firmware_reset(e->h, "0000:ca:00.1"), 0);
	hs = env_read(e);
	for (size_t i = 0; i < 2; i++) {
		assert_int_equal(hs->pfs[i].num_vfs, 0);
		assert_int_equal(hs->pfs[i].n_vfs, 0);
		assert_int_equal(hs->pfs[i].total_vfs, effect ? 32 : 8);
		assert_int_equal(hs->pfs[i].firmware_total_vfs, 32);
	}
	host_state_free(hs);
}

static void test_firmware_reset(void **state)
{
	struct env *e = *state;
	struct host_state *hs;

	check_reset(e, NULL, true);
	/* the tool says it reset the card; the firmware kept its settings */
	check_reset(e, "[ { \"op\": \"firmware_reset\", \"no_effect\": true } ]", false);
	/* no reset level 3: nothing touched */
	env_load(e, "cx6dx.json", "[ { \"op\": \"firmware_reset\", \"errno\": \"EOPNOTSUPP\" } ]");
	assert_int_equal(op_set_num_vfs(e->h, CX6_PF0, 4, T), 0);
	assert_int_equal(op_firmware_reset(e->h, CX6_PF0), -EOPNOTSUPP);
	assert_string_equal(e->h->error, "injected EOPNOTSUPP on firmware_reset");
	hs = env_read(e);
	assert_int_equal(hs->pfs[0].num_vfs, 4);
	host_state_free(hs);
	/* not a ConnectX */
	env_load(e, "e810.json", NULL);
	assert_int_equal(op_firmware_reset(e->h, E810_PF0), -EOPNOTSUPP);
	assert_string_equal(e->h->error, "ice has no firmware reset");
}

/* The file stays a canonical snapshot that other programs can read. */
static void test_file_stays_canonical(void **state)
{
	struct env *e = *state;
	struct host_state *hs;
	char *text, *canon = NULL;

	env_load(e, "mixed.json", NULL);
	assert_int_equal(op_set_num_vfs(e->h, "0000:5e:00.0", 3, T), 0);
	text = env_text(e);
	assert_int_equal(snapshot_parse(text, &hs, NULL), 0);
	assert_int_equal(snapshot_format(hs, &canon), 0);
	assert_string_equal(text, canon);
	assert_int_equal(hs->pfs[1].num_vfs, 3);
	assert_string_equal(hs->pfs[1].vfs[2].pci, "0000:5e:00.4");
	assert_int_equal(hs->pfs[0].num_vfs, 2); /* untouched */
	host_state_free(hs);
	free(text);
	free(canon);
	assert_int_equal(env_count_files(e), 1); /* no temporary file left */
}

static ino_t file_ino(const char *path)
{
	struct stat st;

	assert_int_equal(stat(path, &st), 0);
	return st.st_ino;
}

static void assert_canonical(struct env *e, struct host_state **ret)
{
	char *text = env_text(e), *canon = NULL;

	assert_int_equal(snapshot_parse(text, ret, NULL), 0);
	assert_int_equal(snapshot_format(*ret, &canon), 0);
	assert_string_equal(text, canon);
	free(text);
	free(canon);
}

/* Between host_begin() and host_end() the operations share one transaction:
 * the file stays locked and is written once, at the end; the handle reads
 * what they did meanwhile. The next PF's apply writes a file in which the
 * PF it did not touch is as before (its text kept), byte for byte the
 * canonical snapshot. */
static void test_pf_apply_one_write(void **state)
{
	struct env *e = *state;
	struct host_state *hs;
	struct vf_attrs a;
	ino_t before;
	int fd;

	env_load(e, "e810.json", NULL);
	before = file_ino(e->path);
	host_begin(e->h, -EBADF);
	assert_int_equal(op_set_num_vfs(e->h, E810_PF0, 4, T), 0);
	vf_attrs_init(&a);
	a.vlan = 7;
	for (uint32_t i = 0; i < 4; i++)
		assert_int_equal(op_set_vf(e->h, E810_PF0, i, &a, VF_KEY_BIT(VLAN)), 0);
	assert_int_equal(file_ino(e->path), before); /* not written yet */
	fd = open(e->path, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(flock(fd, LOCK_SH | LOCK_NB), -1); /* and locked */
	assert_int_equal(errno, EWOULDBLOCK);
	hs = env_read(e);
	assert_int_equal(hs->pfs[0].num_vfs, 4);
	assert_int_equal(hs->pfs[0].vfs[3].attrs.vlan, 7);
	host_state_free(hs);
	assert_int_equal(host_end(e->h), 0);
	assert_int_equal(flock(fd, LOCK_SH | LOCK_NB), 0); /* the old file, free */
	close(fd);
	assert_int_not_equal(file_ino(e->path), before);
	assert_canonical(e, &hs);
	assert_int_equal(hs->pfs[0].vfs[3].attrs.vlan, 7);
	host_state_free(hs);

	host_begin(e->h, -EBADF);
	assert_int_equal(op_set_num_vfs(e->h, E810_PF1, 2, T), 0);
	assert_int_equal(host_end(e->h), 0);
	assert_canonical(e, &hs);
	assert_int_equal(hs->pfs[0].num_vfs, 4);
	assert_int_equal(hs->pfs[0].vfs[2].attrs.vlan, 7);
	assert_int_equal(hs->pfs[1].num_vfs, 2);
	host_state_free(hs);
	assert_int_equal(env_count_files(e), 1);

	/* nothing done: nothing written */
	before = file_ino(e->path);
	host_begin(e->h, -EBADF);
	hs = env_read(e);
	host_state_free(hs);
	assert_int_equal(host_end(e->h), 0);
	assert_int_equal(file_ino(e->path), before);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		ENV_TEST(test_open),
		ENV_TEST(test_autoprobe_off),
		ENV_TEST(test_set_num_vfs),
		ENV_TEST(test_set_num_vfs_no_driver),
		ENV_TEST(test_igb_random_mac),
		ENV_TEST(test_eswitch),
		ENV_TEST(test_eswitch_mlx5),
		ENV_TEST(test_pf_mtu_and_up),
		ENV_TEST(test_set_vf),
		ENV_TEST(test_set_vf_driver_limits),
		ENV_TEST(test_set_vf_link_speed),
		ENV_TEST(test_bind_unbind),
		ENV_TEST(test_rdma),
		ENV_TEST(test_vf_mtu),
		ENV_TEST(test_load_module),
		ENV_TEST(test_firmware),
		ENV_TEST(test_firmware_reset),
		ENV_TEST(test_file_stays_canonical),
		ENV_TEST(test_pf_apply_one_write),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
