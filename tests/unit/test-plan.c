/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* The planner. The key property is idempotence: a plan applied the way the
 * kernel would apply it leaves nothing to do. sim_apply() below is a small
 * model of the kernel's rules (EBUSY between non-zero VF counts, switchdev
 * per driver, MAC before bind on igb, vfio-pci needs the IOMMU, modules
 * before VFs) that fails the test when a plan breaks one of them. */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "plan.h"

#define KEY(k) (1u << VF_KEY_##k)

struct env {
	struct host_state host;
	struct pf_state pf;
	struct pf_desired *d;
	unsigned probes; /* VF driver probes, at creation and by bind */
};

/* ---- the observed side ---- */

static void sim_create_vfs(struct env *e, unsigned n)
{
	struct pf_state *pf = &e->pf;
	const struct driver_info *drv = driver_info_get(pf->driver);

	for (size_t i = 0; i < pf->n_vfs; i++)
		vf_state_done(&pf->vfs[i]);
	free(pf->vfs);
	pf->vfs = n ? calloc(n, sizeof(*pf->vfs)) : NULL;
	pf->n_vfs = pf->num_vfs = n;
	for (unsigned i = 0; i < n; i++) {
		struct vf_state *vf = &pf->vfs[i];
		/* with autoprobe off, a new VF binds nowhere */
		const char *drv_name = pf->drivers_autoprobe ? pf->vf_driver : NULL;
		bool netdev = vf_driver_has_netdev(drv_name);

		e->probes += !!drv_name;
		*vf = (struct vf_state){
			.index = i,
			.attrs.driver = drv_name ? strdup(drv_name) : NULL,
			.name = netdev ? strdup_printf("%sv%u", pf->name, i) : NULL,
			.attrs.vlan_proto = VLAN_PROTO_8021Q,
			.attrs.spoofchk = true,
			.attrs.link_state = LINK_STATE_AUTO,
			.attrs.mtu = netdev ? 1500 : 0,
		};
		assert_int_equal(pf_vf_pci_addr(pf, i, vf->pci), 0);
		if (drv->vf_random_mac)
			vf->attrs.mac = (struct mac_addr){
				{ 0x5a, 0x11, 0x22, 0x33, (uint8_t)(rand() & 0xff), (uint8_t)i }
			};
	}
}

static void env_init(struct env *e, const char *driver, unsigned total, unsigned num,
		     const char *modules)
{
	const struct driver_info *drv = driver_info_get(driver);

	*e = (struct env){};
	e->host.hostname = strdup("worker-7");
	e->host.iommu = true;
	assert_int_equal(strv_split(modules, &e->host.modules), 0);
	e->pf = (struct pf_state){
		.pci = "0000:3b:00.0",
		.name = strdup("ens1f0"),
		.driver = strdup(driver),
		.vf_driver = drv->vf_driver ? strdup(drv->vf_driver) : NULL,
		.total_vfs = total,
		.vf_offset = 8,
		.vf_stride = 1,
		.mtu = 1500,
		.up = true,
		.drivers_autoprobe = true,
		.permanent_mac = { { 0xb4, 0x96, 0x91, 0xaa, 0xbb, 0x00 } },
		.has_eswitch = drv->switchdev != SWITCHDEV_NONE,
		.numa_node = -1,
		.firmware_total_vfs = drv->firmware_vfs ? (int)total : -1,
		.has_firmware_link_type = drv->firmware_link_type,
	};
	sim_create_vfs(e, num);
	e->probes = 0;
}

static void env_done(struct env *e)
{
	pf_state_done(&e->pf);
	free(e->host.hostname);
	strv_free(e->host.modules);
	strv_free(e->host.kernel_args_added);
	pf_desired_free(e->d);
}

/* ---- the desired side, as desired_build() would leave it ---- */

/* VirtualFunctions=n when set_vfs, else unset (the current count). */
static void want(struct env *e, bool set_vfs, uint32_t n)
{
	struct pf_desired *d = calloc(1, sizeof(*d));

	assert_non_null(d);
	snprintf(d->pci, sizeof(d->pci), "%s", e->pf.pci);
	assert_int_equal(strv_extend(&d->config_files, "/etc/sriov-persist/conf.d/50.conf"), 0);
	if (set_vfs)
		d->pf.set |= 1u << PF_KEY_VIRTUAL_FUNCTIONS;
	d->pf.num_vfs = n;
	d->num_vfs = set_vfs ? n : e->pf.num_vfs;
	d->n_vfs = d->num_vfs;
	d->vfs = calloc(d->n_vfs ?: 1, sizeof(*d->vfs));
	assert_non_null(d->vfs);
	e->d = d;
}

/* VirtualFunctions=n (it was set already); new VFs have nothing set. */
static void want_count(struct env *e, uint32_t n)
{
	struct pf_desired *d = e->d;

	for (size_t i = n; i < d->n_vfs; i++)
		vf_settings_done(&d->vfs[i]);
	d->vfs = realloc(d->vfs, sizeof(*d->vfs) * (n ?: 1));
	assert_non_null(d->vfs);
	for (size_t i = d->n_vfs; i < n; i++)
		d->vfs[i] = (struct vf_settings){};
	d->pf.num_vfs = d->num_vfs = n;
	d->n_vfs = n;
}

#define PF(e, key, field, val)                        \
	do {                                          \
		(e)->d->pf.field = (val);             \
		(e)->d->pf.set |= 1u << PF_KEY_##key; \
	} while (0)

#define VF(e, i, key, field, val)                         \
	do {                                              \
		(e)->d->vfs[i].attrs.field = (val);       \
		(e)->d->vfs[i].set |= 1u << VF_KEY_##key; \
	} while (0)

#define VFS(e, first, last, key, field, val)                  \
	do {                                                  \
		for (size_t i_ = (first); i_ <= (last); i_++) \
			VF(e, i_, key, field, val);           \
	} while (0)

static void vf_driver(struct env *e, size_t i, const char *driver)
{
	free(e->d->vfs[i].attrs.driver);
	e->d->vfs[i].attrs.driver = driver ? strdup(driver) : NULL;
	e->d->vfs[i].set |= KEY(DRIVER);
}

static void vf_mac(struct env *e, size_t i, const char *mac)
{
	assert_int_equal(mac_parse(mac, &e->d->vfs[i].attrs.mac), 0);
	e->d->vfs[i].set |= KEY(MAC);
}

/* ---- plans as text ---- */

static struct plan *plan(const struct env *e)
{
	struct plan *p = NULL;

	assert_int_equal(plan_build(e->d, &e->pf, &e->host, &p), 0);
	assert_non_null(p);
	assert_non_null(p->reboot_reasons);
	assert_string_equal(p->pci, e->pf.pci);
	return p;
}

/* "desc; desc; ..." */
static char *plan_text(const struct plan *p)
{
	char **l = NULL, *s;

	for (size_t i = 0; i < p->n_actions; i++)
		assert_int_equal(strv_consume(&l, action_describe(&p->actions[i])), 0);
	s = l ? strv_join(l, "; ") : strdup("");
	strv_free(l);
	return s;
}

/* One letter per action: L live, D disruptive, R disruptive + reboot, B a
 * reboot after a live change (the kernel arguments). */
static char *plan_flags(const struct plan *p)
{
	char *s = calloc(p->n_actions + 1, 1);

	for (size_t i = 0; i < p->n_actions; i++) {
		const struct action *a = &p->actions[i];

		assert_true(!a->needs_reboot || a->disruptive ||
			    a->type == ACTION_SET_KERNEL_ARGUMENTS);
		s[i] = a->needs_reboot ? (a->disruptive ? 'R' : 'B') : a->disruptive ? 'D' : 'L';
	}
	return s;
}

static void expect_plan(const struct env *e, const char *text, const char *flags)
{
	struct plan *p = plan(e);
	char *t = plan_text(p), *f = plan_flags(p);

	assert_string_equal(t, text);
	if (flags)
		assert_string_equal(f, flags);
	assert_int_equal(plan_is_disruptive(p), strpbrk(f, "DR") != NULL);
	free(t);
	free(f);
	plan_free(p);
}

static void expect_reasons(const struct env *e, const char *reasons)
{
	struct plan *p = plan(e);
	char *s = strv_join(p->reboot_reasons, " | ");

	assert_string_equal(s, reasons);
	free(s);
	plan_free(p);
}

/* What waits for another tool: never a reboot reason, nothing unmet. */
static void expect_waiting(const struct env *e, const char *waiting)
{
	struct plan *p = plan(e);
	char *s = strv_join(p->waiting, " | ");

	assert_string_equal(s, waiting);
	assert_null(p->reboot_reasons[0]);
	assert_null(p->unmet[0]);
	free(s);
	plan_free(p);
}

/* What the host lacks: never a reboot reason. */
static void expect_unmet(const struct env *e, const char *unmet)
{
	struct plan *p = plan(e);
	char *s = strv_join(p->unmet, " | ");

	assert_string_equal(s, unmet);
	assert_null(p->reboot_reasons[0]);
	free(s);
	plan_free(p);
}

/* ---- the kernel, in miniature ---- */

static bool module_loaded(const struct env *e, const char *m)
{
	for (char **l = e->host.modules; *l; l++)
		if (streq(*l, m) || (streq(m, "vfio-pci") && streq(*l, "vfio_pci")))
			return true;
	return false;
}

static void sim_vf_modules_loaded(const struct env *e)
{
	const struct driver_info *drv = driver_info_get(e->pf.driver);

	for (const char *const *m = drv->vf_modules; m && *m; m++)
		assert_true(module_loaded(e, *m));
}

/* In switchdev mode each VF has a representor, down until set up. */
static void sim_representors(struct env *e)
{
	for (size_t i = 0; i < e->pf.n_vfs; i++) {
		struct vf_state *vf = &e->pf.vfs[i];

		if (e->pf.eswitch_mode != ESWITCH_MODE_SWITCHDEV) {
			vf->representor = mfree(vf->representor);
			vf->representor_up = false;
		} else if (!vf->representor) {
			vf->representor = strdup_printf("ens1f0npf0vf%zu", i);
			vf->representor_up = false;
		}
	}
}

/* A PF that the layout brings up is up before a VF probes (a test without
 * a layout has no LinkUp=). */
static bool pf_up_for_probe(const struct env *e)
{
	if (e->pf.up || !e->d)
		return true;
	return !pf_settings_has(&e->d->pf, PF_KEY_LINK_UP) || !e->d->pf.link_up;
}

static void sim_set_num_vfs(struct env *e, uint32_t n)
{
	assert_false(e->pf.num_vfs > 0 && n > 0); /* EBUSY */
	assert_true(n <= e->pf.total_vfs);
	if (n > 0 && e->pf.drivers_autoprobe && e->pf.vf_driver)
		assert_true(pf_up_for_probe(e));
	if (n > 0 && e->pf.drivers_autoprobe)
		sim_vf_modules_loaded(e);
	sim_create_vfs(e, n);
	sim_representors(e);
}

static void sim_set_eswitch(struct env *e, enum eswitch_mode m)
{
	const struct driver_info *drv = driver_info_get(e->pf.driver);

	assert_true(e->pf.has_eswitch);
	switch (drv->switchdev) {
	case SWITCHDEV_WITHOUT_VFS:
		assert_int_equal(e->pf.num_vfs, 0);
		break;
	case SWITCHDEV_VFS_UNBOUND:
		for (size_t i = 0; i < e->pf.n_vfs; i++)
			assert_null(e->pf.vfs[i].attrs.driver);
		break;
	case SWITCHDEV_NONE:
	case _SWITCHDEV_ORDER_MAX:
	case _SWITCHDEV_ORDER_INVALID:
		fail();
	}
	e->pf.eswitch_mode = m;
	sim_representors(e);
}

static void sim_unbind(struct env *e, uint32_t i)
{
	struct vf_state *vf = &e->pf.vfs[i];

	assert_non_null(vf->attrs.driver);
	free(vf->attrs.driver);
	free(vf->name);
	vf->attrs.driver = vf->name = NULL;
	vf->attrs.mtu = 0;
}

static void sim_bind(struct env *e, uint32_t i, const char *driver)
{
	struct vf_state *vf = &e->pf.vfs[i];
	const char *d = driver ?: e->pf.vf_driver;

	assert_null(vf->attrs.driver);
	assert_non_null(d);
	assert_true(pf_up_for_probe(e));
	if (streq(d, "vfio-pci"))
		assert_true(e->host.iommu && module_loaded(e, "vfio-pci"));
	else
		sim_vf_modules_loaded(e);
	e->probes++;
	vf->attrs.driver = strdup(d);
	vf->name = vf_driver_has_netdev(d) ? strdup_printf("%sv%u", e->pf.name, i) : NULL;
	vf->attrs.mtu = vf_driver_has_netdev(d) ? 1500 : 0;
}

/* One netlink request: the VLAN triple and the rate pair come whole;
 * attributes the driver lacks may only carry their defaults; igbvf takes
 * a MAC only when it binds after it was set. */
static void sim_set_vf(struct env *e, uint32_t i, const struct action *a)
{
	const struct driver_info *drv = driver_info_get(e->pf.driver);
	struct vf_state *vf = &e->pf.vfs[i];
	uint32_t vlan = KEY(VLAN) | KEY(QOS) | KEY(VLAN_PROTO);
	uint32_t rate = KEY(MIN_TX_RATE) | KEY(MAX_TX_RATE);

	assert_true(a->keys != 0);
	assert_int_equal(a->keys & ~VF_NETLINK_KEYS, 0);
	if (a->keys & (KEY(IB_NODE_GUID) | KEY(IB_PORT_GUID)))
		assert_int_equal(e->pf.link_type, LINK_TYPE_INFINIBAND);
	assert_true((a->keys & vlan) == 0 || (a->keys & vlan) == vlan);
	assert_true((a->keys & rate) == 0 || (a->keys & rate) == rate);
	if ((a->keys & KEY(MAC))) {
		assert_true(drv->vf_attrs & KEY(MAC));
		assert_false(mac_is_zero(&a->attrs.mac));
		if (drv->vf_keys_before_bind & KEY(MAC))
			assert_false(vf_driver_has_netdev(vf->attrs.driver));
		vf->attrs.mac = a->attrs.mac;
	}
	if (a->keys & vlan) {
		assert_true(a->attrs.qos == 0 || (drv->vf_attrs & KEY(QOS)));
		assert_true(a->attrs.vlan_proto == VLAN_PROTO_8021Q || drv->vlan_8021ad);
		vf->attrs.vlan = a->attrs.vlan;
		vf->attrs.qos = a->attrs.qos;
		vf->attrs.vlan_proto = a->attrs.vlan_proto;
	}
	if (a->keys & rate) {
		assert_true(a->attrs.min_tx_rate == 0 || (drv->vf_attrs & KEY(MIN_TX_RATE)));
		vf->attrs.min_tx_rate = a->attrs.min_tx_rate;
		vf->attrs.max_tx_rate = a->attrs.max_tx_rate;
	}
	if ((a->keys & KEY(SPOOFCHK)))
		vf->attrs.spoofchk = a->attrs.spoofchk;
	if ((a->keys & KEY(TRUST)))
		vf->attrs.trust = a->attrs.trust;
	if ((a->keys & KEY(LINK_STATE)))
		vf->attrs.link_state = a->attrs.link_state;
	if ((a->keys & KEY(QUERY_RSS)))
		vf->attrs.query_rss = a->attrs.query_rss;
	/* mlx5 reads the GUIDs as a VF probes: set while it is on no driver */
	if (a->keys & (KEY(IB_NODE_GUID) | KEY(IB_PORT_GUID)))
		assert_false(vf_driver_has_netdev(vf->attrs.driver));
	if (a->keys & KEY(IB_NODE_GUID))
		vf->attrs.ib_node_guid = a->attrs.ib_node_guid;
	if (a->keys & KEY(IB_PORT_GUID))
		vf->attrs.ib_port_guid = a->attrs.ib_port_guid;
}

static void sim_action(struct env *e, const struct action *a)
{
	switch (a->type) {
	case ACTION_LOAD_MODULE:
		assert_false(module_loaded(e, a->str));
		assert_int_equal(strv_extend(&e->host.modules, a->str), 0);
		return;
	case ACTION_SET_FIRMWARE_VFS:
		e->pf.firmware_total_vfs = (int)a->value;
		return;
	case ACTION_SET_LINK_TYPE:
		e->pf.firmware_link_type = (enum link_type)a->value;
		return;
	case ACTION_SET_PF_MTU:
		e->pf.mtu = a->value;
		return;
	case ACTION_SET_PF_UP:
		e->pf.up = true;
		return;
	case ACTION_SET_AUTOPROBE:
		assert_true(e->pf.drivers_autoprobe != !!a->value); /* planned only to change it */
		e->pf.drivers_autoprobe = a->value;
		return;
	case ACTION_SET_NUM_VFS:
		sim_set_num_vfs(e, a->value);
		return;
	case ACTION_SET_ESWITCH_MODE:
		sim_set_eswitch(e, (enum eswitch_mode)a->value);
		return;
	case ACTION_SET_HW_TC_OFFLOAD:
		e->pf.hw_tc_offload = a->value;
		return;
	case ACTION_UNBIND_VF:
		assert_true(a->vf < e->pf.n_vfs);
		sim_unbind(e, a->vf);
		return;
	case ACTION_SET_VF:
		assert_true(a->vf < e->pf.n_vfs);
		sim_set_vf(e, a->vf, a);
		return;
	case ACTION_BIND_VF:
		assert_true(a->vf < e->pf.n_vfs);
		sim_bind(e, a->vf, a->str);
		return;
	case ACTION_SET_VF_MTU:
		assert_true(a->vf < e->pf.n_vfs);
		assert_true(vf_driver_has_netdev(e->pf.vfs[a->vf].attrs.driver));
		assert_true(a->value <= e->pf.mtu); /* iavf, mlx5: not above the PF */
		e->pf.vfs[a->vf].attrs.mtu = a->value;
		return;
	case ACTION_SET_REPRESENTOR_UP:
		assert_true(a->vf < e->pf.n_vfs);
		assert_non_null(e->pf.vfs[a->vf].representor);
		assert_false(e->pf.vfs[a->vf].representor_up); /* planned only to change it */
		e->pf.vfs[a->vf].representor_up = true;
		return;
	case ACTION_SET_KERNEL_ARGUMENTS: {
		_cleanup_strv_free_ char **w = NULL;

		assert_int_equal(strv_split(a->str, &w), 0);
		for (char **p = w; *p; p++)
			assert_int_equal(strv_extend(&e->host.kernel_args_added, *p), 0);
		return;
	}
	case ACTION_SET_RDMA_NETNS_MODE:
		/* once an RDMA module brought ib_core */
		assert_true(module_loaded(e, driver_info_get(e->pf.driver)->rdma_modules[0]));
		e->host.has_rdma_netns_mode = true;
		e->host.rdma_netns_mode = (enum rdma_netns_mode)a->value;
		return;
	case ACTION_FIRMWARE_RESET: /* never planned */
	case _ACTION_TYPE_MAX:
	case _ACTION_TYPE_INVALID:
		break;
	}
	fail();
}

/* What a reboot does: firmware settings take effect, VFs are gone. */
static void sim_reboot(struct env *e)
{
	if (e->pf.firmware_total_vfs >= 0)
		e->pf.total_vfs = (unsigned)e->pf.firmware_total_vfs;
	e->pf.link_type = e->pf.firmware_link_type;
	sim_create_vfs(e, 0);
}

/* Plans, applies and plans again: the second plan must be empty. Returns
 * how many actions the first one had. */
static size_t apply_converges(struct env *e)
{
	struct plan *p = plan(e);
	size_t n = p->n_actions;
	char *t;

	for (size_t i = 0; i < p->n_actions; i++)
		sim_action(e, &p->actions[i]);
	plan_free(p);

	p = plan(e);
	t = plan_text(p);
	assert_string_equal(t, "");
	assert_false(plan_is_disruptive(p));
	free(t);
	plan_free(p);
	return n;
}

/* ---- idempotence, per driver family ---- */

/* What drifted says what the layout wants and what the host has now. */
static void test_describe_drift(void **state)
{
	struct env e;
	struct action a = { .type = ACTION_SET_NUM_VFS, .value = 4 };
	char *s;

	env_init(&e, "ice", 128, 2, "ice iavf");
	free(e.pf.vfs[1].attrs.driver);
	e.pf.vfs[1].attrs.driver = strdup("vfio-pci");
	e.pf.vfs[1].attrs.vlan = 7;
	s = action_describe_drift(&a, &e.pf);
	assert_string_equal(s, "set 4 VFs (now 2)");
	free(s);
	a = (struct action){ .type = ACTION_SET_VF, .vf = 1 };
	a.keys = KEY(VLAN);
	a.attrs.vlan = 100;
	s = action_describe_drift(&a, &e.pf);
	assert_non_null(strstr(s, "VF 1: vlan 100"));
	assert_non_null(strstr(s, "(now vlan 7"));
	free(s);
	a = (struct action){ .type = ACTION_BIND_VF, .vf = 1, .str = "iavf" };
	s = action_describe_drift(&a, &e.pf);
	assert_string_equal(s, "VF 1: bind iavf (now vfio-pci)");
	free(s);
	a = (struct action){ .type = ACTION_BIND_VF, .vf = 9, .str = "iavf" };
	s = action_describe_drift(&a, &e.pf); /* no such VF yet: nothing to say about now */
	assert_string_equal(s, "VF 9: bind iavf");
	free(s);
	env_done(&e);
}

/* A drifted PF's difference is what the plan leaves, not its steps: the
 * count 0 before another and autoprobe off and on again say nothing. */
static void test_describe_difference(void **state)
{
	struct action acts[] = {
		{ .type = ACTION_SET_NUM_VFS, .value = 0 },
		{ .type = ACTION_SET_AUTOPROBE, .value = 0 },
		{ .type = ACTION_SET_NUM_VFS, .value = 4 },
		{ .type = ACTION_SET_AUTOPROBE, .value = 1 },
	};
	struct plan p = { .actions = acts, .n_actions = ELEMENTSOF(acts) };
	struct env e;
	char *s;

	env_init(&e, "ice", 128, 2, "ice iavf");
	for (size_t i = 0; i < p.n_actions; i++) {
		assert_int_equal(plan_describe_difference(&p, i, &e.pf, &s), 0);
		if (i == 2)
			assert_string_equal(s, "4 VFs wanted, 2 present");
		else
			assert_null(s);
		free(s);
	}
	/* autoprobe left off by someone: that differs */
	e.pf.drivers_autoprobe = false;
	assert_int_equal(plan_describe_difference(&p, 3, &e.pf, &s), 0);
	assert_string_equal(s, "VF driver autoprobe off (wanted on)");
	free(s);
	env_done(&e);
}

/* A count that drifted is one line with the VFs it makes again; a VF the
 * host has with the values the plan sets, a VF the count makes and a bind
 * of a VF made again say nothing; a VF whose values differ is named. */
static void test_describe_drift_count(void **state)
{
	struct action acts[] = {
		{ .type = ACTION_SET_NUM_VFS, .value = 0 },
		{ .type = ACTION_SET_NUM_VFS, .value = 4 },
		{ .type = ACTION_SET_VF, .vf = 0, .keys = KEY(VLAN), .attrs.vlan = 7 },
		{ .type = ACTION_SET_VF, .vf = 1, .keys = KEY(VLAN), .attrs.vlan = 7 },
		{ .type = ACTION_SET_VF, .vf = 3, .keys = KEY(VLAN), .attrs.vlan = 7 },
		{ .type = ACTION_BIND_VF, .vf = 0, .str = "iavf" },
	};
	struct plan p = { .actions = acts, .n_actions = ELEMENTSOF(acts) };
	struct env e;
	char **l, **done;

	env_init(&e, "ice", 128, 2, "ice iavf");
	e.pf.vfs[0].attrs.vlan = 7;
	e.pf.vfs[1].attrs.vlan = 9;
	l = plan_describe_drift(&p, &e.pf);
	assert_non_null(l);
	assert_int_equal(strv_length(l), 2);
	assert_string_equal(l[0], "4 VFs wanted, 2 present (a repair makes VFs 0-1 again with it)");
	assert_non_null(strstr(l[1], "VF 1: vlan 7"));
	assert_non_null(strstr(l[1], "(now vlan 9"));
	/* as an apply that repaired it says it */
	done = plan_drift_repaired(l);
	assert_non_null(done);
	assert_int_equal(strv_length(done), 2);
	assert_string_equal(done[0], "4 VFs wanted, 2 present (VFs 0-1 were made again with it)");
	assert_string_equal(done[1], l[1]);
	strv_free(done);
	strv_free(l);
	/* one VF made again */
	e.pf.num_vfs = 1;
	l = plan_describe_drift(&p, &e.pf);
	assert_non_null(l);
	assert_string_equal(l[0], "4 VFs wanted, 1 present (a repair makes VF 0 again with it)");
	done = plan_drift_repaired(l);
	assert_non_null(done);
	assert_string_equal(done[0], "4 VFs wanted, 1 present (VF 0 was made again with it)");
	strv_free(done);
	strv_free(l);
	e.pf.num_vfs = 2;
	/* the count alone, from none */
	e.pf.num_vfs = 0;
	e.pf.n_vfs = 0;
	p.n_actions = 2;
	l = plan_describe_drift(&p, &e.pf);
	assert_int_equal(strv_length(l), 1);
	assert_string_equal(l[0], "4 VFs wanted, 0 present");
	strv_free(l);
	e.pf.n_vfs = 2;
	env_done(&e);
}

static void test_ice_converges(void **state)
{
	struct env e;

	env_init(&e, "ice", 64, 2, "ice");
	e.pf.up = false;
	e.pf.vfs[1].attrs.trust = true;
	e.pf.vfs[1].attrs.vlan = 5;
	want(&e, true, 8);
	PF(&e, MTU, mtu, 9000);
	PF(&e, LINK_UP, link_up, true);
	VFS(&e, 0, 7, TRUST, trust, true);
	VFS(&e, 0, 7, SPOOFCHK, spoofchk, false);
	VFS(&e, 2, 3, VLAN, vlan, 100);
	VFS(&e, 2, 3, QOS, qos, 3);
	VF(&e, 4, VLAN, vlan, 200);
	VF(&e, 4, VLAN_PROTO, vlan_proto, VLAN_PROTO_8021AD);
	VF(&e, 5, MIN_TX_RATE, min_tx_rate, 100);
	VF(&e, 5, MAX_TX_RATE, max_tx_rate, 1000);
	VFS(&e, 0, 5, MTU, mtu, 9000);
	VFS(&e, 0, 1, RDMA, rdma, true);
	vf_driver(&e, 6, "vfio-pci");
	vf_driver(&e, 7, "vfio-pci");
	for (size_t i = 0; i < 8; i++) {
		char mac[MAC_STR_MAX];

		snprintf(mac, sizeof(mac), "02:00:00:00:00:%02zx", i);
		vf_mac(&e, i, mac);
	}
	/* VFs 6-7 want vfio-pci: all are created unbound, and each is probed
	 * once, on its own driver, after its attributes are set; autoprobe is
	 * off only for that */
	assert_int_equal(apply_converges(&e), 3 + 2 + 2 + 2 + 6 * 3 + 2 * 2);
	assert_int_equal(e.probes, 8);
	assert_true(e.pf.drivers_autoprobe);
	assert_int_equal(e.pf.num_vfs, 8);
	assert_int_equal(e.pf.vfs[4].attrs.vlan_proto, VLAN_PROTO_8021AD);
	assert_string_equal(e.pf.vfs[7].attrs.driver, "vfio-pci");
	assert_int_equal(e.pf.vfs[5].attrs.mtu, 9000);

	/* drift on one VF: one live action repairs it */
	e.pf.vfs[3].attrs.trust = false;
	expect_plan(&e, "VF 3: trust on", "L");
	assert_int_equal(apply_converges(&e), 1);
	env_done(&e);
}

static void test_i40e_converges(void **state)
{
	struct env e;

	env_init(&e, "i40e", 32, 4, "i40e iavf");
	want(&e, true, 4);
	VFS(&e, 0, 3, TRUST, trust, true);
	VF(&e, 1, VLAN, vlan, 10);
	VF(&e, 2, MAX_TX_RATE, max_tx_rate, 500);
	VF(&e, 3, LINK_STATE, link_state, LINK_STATE_DISABLE);
	expect_plan(&e,
		    "VF 0: trust on; VF 1: vlan 10 qos 0 802.1Q, trust on; "
		    "VF 2: trust on, min_tx_rate 0 max_tx_rate 500; VF 3: trust on, state disable",
		    "LLLL");
	assert_int_equal(apply_converges(&e), 4);
	env_done(&e);
}

static void test_mlx5_switchdev_converges(void **state)
{
	struct env e;

	env_init(&e, "mlx5_core", 16, 0, "mlx5_core");
	want(&e, true, 4);
	PF(&e, ESWITCH_MODE, eswitch_mode, ESWITCH_MODE_SWITCHDEV);
	PF(&e, HW_TC_OFFLOAD, hw_tc_offload, true);
	VFS(&e, 0, 3, RDMA, rdma, true);
	vf_mac(&e, 0, "02:00:00:00:01:00");
	vf_driver(&e, 3, "vfio-pci");
	assert_true(apply_converges(&e) > 0);
	assert_int_equal(e.pf.eswitch_mode, ESWITCH_MODE_SWITCHDEV);
	assert_string_equal(e.pf.vfs[2].attrs.driver, "mlx5_core");
	assert_string_equal(e.pf.vfs[3].attrs.driver, "vfio-pci");
	env_done(&e);
}

/* mlx5 on an InfiniBand port: a VF takes its GUIDs as it probes, so a bound
 * VF is unbound, given them and bound again, and new VFs are created
 * unbound and probed once, GUIDs set. */
static void test_mlx5_ib_guids_converge(void **state)
{
	struct env e;

	env_init(&e, "mlx5_core", 8, 2, "mlx5_core mlx5_ib");
	e.pf.link_type = e.pf.firmware_link_type = LINK_TYPE_INFINIBAND;
	want(&e, true, 2);
	VF(&e, 0, IB_NODE_GUID, ib_node_guid, 0x0002c90300216e70u);
	VF(&e, 0, IB_PORT_GUID, ib_port_guid, 0x0002c90300216e78u);
	VF(&e, 1, LINK_STATE, link_state, LINK_STATE_ENABLE);
	expect_plan(&e,
		    "VF 0: unbind; VF 0: node_guid 00:02:c9:03:00:21:6e:70, port_guid "
		    "00:02:c9:03:00:21:6e:78; VF 0: bind mlx5_core; VF 1: state enable",
		    "LLLL");
	assert_int_equal(apply_converges(&e), 4);
	assert_true(e.pf.vfs[0].attrs.ib_port_guid == 0x0002c90300216e78u);
	assert_string_equal(e.pf.vfs[0].attrs.driver, "mlx5_core");

	/* VFs re-created: each probed once, after its GUIDs */
	sim_set_num_vfs(&e, 0);
	e.probes = 0;
	expect_plan(
		&e,
		"set VF driver autoprobe off; set 2 VFs; VF 0: node_guid "
		"00:02:c9:03:00:21:6e:70, port_guid 00:02:c9:03:00:21:6e:78; VF 0: bind "
		"mlx5_core; VF 1: state enable; VF 1: bind mlx5_core; set VF driver autoprobe on",
		"LLLLLLL");
	assert_int_equal(apply_converges(&e), 7);
	assert_int_equal(e.probes, 2);

	/* the same layout on an Ethernet port plans no GUID (desired.c refuses it) */
	e.pf.link_type = LINK_TYPE_ETHERNET;
	e.pf.vfs[0].attrs.ib_node_guid = 0;
	e.pf.vfs[1].attrs.link_state = LINK_STATE_AUTO;
	expect_plan(&e, "VF 1: state enable", "L");
	/* ... where the layout makes it InfiniBand, which takes a reboot: said */
	PF(&e, LINK_TYPE, link_type, LINK_TYPE_INFINIBAND);
	{
		struct plan *p = plan(&e);

		assert_string_equal(p->notes[0],
				    "VF 0: the GUIDs are set once the port is "
				    "InfiniBand, after the reboot its link type change "
				    "needs");
		assert_null(p->notes[1]);
		plan_free(p);
	}
	env_done(&e);
}

/* [RDMA] NetnsMode=: set last, for a PF with RDMA=yes VFs, against the
 * mode ib_core starts with (shared) where no RDMA module is loaded yet. */
static void test_rdma_netns_mode(void **state)
{
	struct env e;

	env_init(&e, "ice", 64, 0, "ice iavf");
	want(&e, true, 2);
	VF(&e, 1, RDMA, rdma, true);
	e.d->rdma_netns = RDMA_NETNS_EXCLUSIVE;
	expect_plan(&e, "load module irdma; set 2 VFs; set RDMA netns mode exclusive", "LLL");
	assert_int_equal(apply_converges(&e), 3);
	assert_int_equal(e.host.rdma_netns_mode, RDMA_NETNS_MODE_EXCLUSIVE);

	/* changed back by hand: repaired; keep leaves it */
	e.host.rdma_netns_mode = RDMA_NETNS_MODE_SHARED;
	expect_plan(&e, "set RDMA netns mode exclusive", "L");
	e.d->rdma_netns = RDMA_NETNS_KEEP;
	expect_plan(&e, "", "");
	/* shared is what ib_core starts with */
	e.d->rdma_netns = RDMA_NETNS_SHARED;
	expect_plan(&e, "", "");
	/* a PF without RDMA=yes VFs leaves the host's mode alone */
	e.d->rdma_netns = RDMA_NETNS_EXCLUSIVE;
	e.d->vfs[1].set = 0;
	expect_plan(&e, "", "");
	env_done(&e);
}

/* igb: new VFs get random MACs, and igbvf takes a MAC only when it binds
 * after it was set. */
/* A rebind for a value the VF takes only as it binds (igb's MAC) sets the
 * MTU again: the MAC drifted, not the MTU the VF has, nor its driver. */
static void test_describe_drift_rebind(void **state)
{
	struct action acts[] = {
		{ .type = ACTION_UNBIND_VF, .vf = 0 },
		{ .type = ACTION_SET_VF, .vf = 0, .keys = KEY(MAC) },
		{ .type = ACTION_BIND_VF, .vf = 0, .str = "igbvf" },
		{ .type = ACTION_SET_VF_MTU, .vf = 0, .value = 9000 },
		{ .type = ACTION_SET_VF_MTU, .vf = 1, .value = 9000 },
	};
	struct plan p = { .actions = acts, .n_actions = ELEMENTSOF(acts) };
	struct env e;
	char **l;

	env_init(&e, "igb", 7, 2, "igb igbvf");
	acts[1].attrs.mac = (struct mac_addr){ { 0x02, 0, 0, 0, 0, 0x10 } };
	e.pf.vfs[0].attrs.mtu = 9000;
	e.pf.vfs[1].attrs.mtu = 1500;
	l = plan_describe_drift(&p, &e.pf);
	assert_non_null(l);
	assert_int_equal(strv_length(l), 2);
	assert_non_null(strstr(l[0], "VF 0: mac 02:00:00:00:00:10 (now mac "));
	assert_string_equal(l[1], "VF 1: mtu 9000 (now 1500)");
	strv_free(l);
	env_done(&e);
}

/* A representor is judged only on a PF in switchdev mode: on a legacy PF
 * (whatever a snapshot lists) the eswitch mode is what differs. */
static void test_describe_drift_representor(void **state)
{
	struct action acts[] = {
		{ .type = ACTION_SET_ESWITCH_MODE, .value = ESWITCH_MODE_SWITCHDEV },
		{ .type = ACTION_SET_REPRESENTOR_UP, .vf = 1 },
	};
	struct plan p = { .actions = acts, .n_actions = ELEMENTSOF(acts) };
	struct env e;
	char **l;

	env_init(&e, "mlx5_core", 8, 2, "mlx5_core");
	e.pf.has_eswitch = true;
	e.pf.eswitch_mode = ESWITCH_MODE_LEGACY;
	e.pf.vfs[1].representor = strdup("pf0vf1");
	e.pf.vfs[1].representor_up = true;
	l = plan_describe_drift(&p, &e.pf);
	assert_int_equal(strv_length(l), 1);
	assert_string_equal(l[0], "set eswitch mode switchdev (now legacy)");
	strv_free(l);
	assert_false(plan_vf_action_differs(&acts[1], &e.pf, &e.pf.vfs[1]));

	/* in switchdev: a representor that is up says nothing, one down does */
	e.pf.eswitch_mode = ESWITCH_MODE_SWITCHDEV;
	p.actions = &acts[1];
	p.n_actions = 1;
	l = plan_describe_drift(&p, &e.pf);
	assert_int_equal(strv_length(l), 0);
	strv_free(l);
	e.pf.vfs[1].representor_up = false;
	l = plan_describe_drift(&p, &e.pf);
	assert_int_equal(strv_length(l), 1);
	assert_string_equal(l[0], "VF 1: set representor up (now down)");
	strv_free(l);
	env_done(&e);
}

static void test_igb_converges(void **state)
{
	struct env e;

	env_init(&e, "igb", 7, 2, "igb igbvf");
	want(&e, true, 2);
	vf_mac(&e, 0, "02:00:00:00:00:10");
	VF(&e, 1, TRUST, trust, true);
	expect_plan(&e,
		    "VF 0: unbind; VF 0: mac 02:00:00:00:00:10; VF 0: bind igbvf; VF 1: trust on",
		    "LLLL");
	assert_int_equal(apply_converges(&e), 4);

	/* someone removed the VFs; the new ones have random MACs, which
	 * differ whatever the kernel chose. igbvf takes the MAC only as it
	 * binds: the VFs are created unbound and probed once, MAC set */
	sim_set_num_vfs(&e, 0);
	e.probes = 0;
	expect_plan(&e,
		    "set VF driver autoprobe off; set 2 VFs; VF 0: mac 02:00:00:00:00:10; "
		    "VF 0: bind igbvf; VF 1: trust on; VF 1: bind igbvf; "
		    "set VF driver autoprobe on",
		    "LLLLLLL");
	assert_int_equal(apply_converges(&e), 7);
	assert_int_equal(e.probes, 2);
	assert_string_equal(e.pf.vfs[1].attrs.driver, "igbvf");

	/* igb closes and reopens a PF that is up as it enables VFs: a PF to
	 * bring up comes up after VFs that are created unbound */
	sim_set_num_vfs(&e, 0);
	e.pf.up = false;
	PF(&e, LINK_UP, link_up, true);
	expect_plan(&e,
		    "set VF driver autoprobe off; set 2 VFs; set PF link up; "
		    "VF 0: mac 02:00:00:00:00:10; VF 0: bind igbvf; VF 1: trust on; "
		    "VF 1: bind igbvf; set VF driver autoprobe on",
		    "LLLLLLLL");
	assert_int_equal(apply_converges(&e), 8);

	/* a layout without MACs: the kernel probes them as it creates them,
	 * on a PF that is up */
	sim_set_num_vfs(&e, 0);
	e.pf.up = false;
	pf_desired_free(e.d);
	want(&e, true, 2);
	VF(&e, 1, TRUST, trust, true);
	PF(&e, LINK_UP, link_up, true);
	expect_plan(&e, "set PF link up; set 2 VFs; VF 1: trust on", "LLL");
	assert_int_equal(apply_converges(&e), 3);
	env_done(&e);
}

/* Autoprobe that someone else turned off stays off, and new VFs stay on no
 * driver unless the layout names one; autoprobe that an apply of ours left
 * off (it was killed) is turned on again, once its VFs are bound. */
static void test_autoprobe_not_ours(void **state)
{
	struct env e;

	env_init(&e, "ice", 64, 0, "ice iavf vfio_pci");
	e.pf.drivers_autoprobe = false;
	want(&e, true, 3);
	vf_driver(&e, 1, "vfio-pci");
	vf_driver(&e, 2, NULL); /* Driver=default */
	VF(&e, 0, TRUST, trust, true);
	expect_plan(&e, "set 3 VFs; VF 0: trust on; VF 1: bind vfio-pci; VF 2: bind iavf", "LLLL");
	assert_int_equal(apply_converges(&e), 4);
	assert_null(e.pf.vfs[0].attrs.driver);
	assert_false(e.pf.drivers_autoprobe);
	env_done(&e);

	/* killed after creating VFs with autoprobe off: they are bound as
	 * the record says, and then autoprobe is on again */
	env_init(&e, "ice", 64, 0, "ice iavf vfio_pci");
	e.pf.drivers_autoprobe = false;
	sim_create_vfs(&e, 2);
	e.pf.autoprobe_ours = true;
	e.pf.vfs[0].unbound_from = strdup("iavf");
	e.pf.vfs[1].unbound_from = strdup("vfio-pci");
	want(&e, true, 2);
	vf_driver(&e, 1, "vfio-pci");
	expect_plan(&e, "VF 0: bind iavf; VF 1: bind vfio-pci; set VF driver autoprobe on", "LLL");
	env_done(&e);
}

/* A VF on no driver is left so unless an apply of ours took it off one and
 * was killed before binding it again: then it goes back. */
static void test_killed_between_unbind_and_bind(void **state)
{
	struct env e;

	env_init(&e, "igb", 7, 2, "igb igbvf");
	want(&e, true, 2);
	vf_mac(&e, 0, "02:00:00:00:00:10");
	e.pf.vfs[0].attrs.driver = mfree(e.pf.vfs[0].attrs.driver);
	expect_plan(&e, "VF 0: mac 02:00:00:00:00:10", "L");

	e.pf.vfs[0].unbound_from = strdup("igbvf");
	assert_non_null(e.pf.vfs[0].unbound_from);
	expect_plan(&e, "VF 0: mac 02:00:00:00:00:10; VF 0: bind igbvf", "LL");
	env_done(&e);
}

static void test_bnxt_converges(void **state)
{
	struct env e;

	env_init(&e, "bnxt_en", 16, 0, "bnxt_en");
	e.pf.mtu = 9000;
	want(&e, true, 4);
	VFS(&e, 0, 3, VLAN, vlan, 42);
	VFS(&e, 0, 3, MTU, mtu, 9000);
	VF(&e, 1, MIN_TX_RATE, min_tx_rate, 100);
	VF(&e, 1, RDMA, rdma, true);
	vf_mac(&e, 2, "02:00:00:00:00:22");
	expect_plan(&e,
		    "load module bnxt_re; set 4 VFs; "
		    "VF 0: vlan 42 qos 0 802.1Q; VF 0: mtu 9000; "
		    "VF 1: vlan 42 qos 0 802.1Q, min_tx_rate 100 max_tx_rate 0; VF 1: mtu 9000; "
		    "VF 2: mac 02:00:00:00:00:22, vlan 42 qos 0 802.1Q; VF 2: mtu 9000; "
		    "VF 3: vlan 42 qos 0 802.1Q; VF 3: mtu 9000",
		    "LLLLLLLLLL");
	assert_int_equal(apply_converges(&e), 10);
	env_done(&e);
}

/* ---- order ---- */

static void test_ice_switchdev_order(void **state)
{
	struct env e;

	env_init(&e, "ice", 64, 4, "ice iavf");
	want(&e, true, 8);
	PF(&e, ESWITCH_MODE, eswitch_mode, ESWITCH_MODE_SWITCHDEV);
	PF(&e, HW_TC_OFFLOAD, hw_tc_offload, true);
	VF(&e, 0, TRUST, trust, true);
	expect_plan(&e,
		    "remove all VFs; set eswitch mode switchdev; set 8 VFs; set hw-tc-offload on; "
		    "VF 0: trust on; VF 0: set representor up; VF 1: set representor up; "
		    "VF 2: set representor up; VF 3: set representor up; VF 4: set representor up; "
		    "VF 5: set representor up; VF 6: set representor up; VF 7: set representor up",
		    "DDDLLLLLLLLLL");
	assert_int_equal(apply_converges(&e), 13);
	/* one taken down by hand (the VF loses its link): up again */
	e.pf.vfs[5].representor_up = false;
	expect_plan(&e, "VF 5: set representor up", "L");
	assert_int_equal(apply_converges(&e), 1);

	/* the same count, only the mode: the VFs are re-created */
	PF(&e, ESWITCH_MODE, eswitch_mode, ESWITCH_MODE_LEGACY);
	PF(&e, HW_TC_OFFLOAD, hw_tc_offload, false);
	expect_plan(&e,
		    "remove all VFs; set eswitch mode legacy; set 8 VFs; set hw-tc-offload off; "
		    "VF 0: trust on",
		    "DDDLL");
	assert_int_equal(apply_converges(&e), 5);

	/* from no VFs: the mode, then the VFs; creating VFs destroys nothing */
	sim_create_vfs(&e, 0);
	PF(&e, ESWITCH_MODE, eswitch_mode, ESWITCH_MODE_SWITCHDEV);
	expect_plan(
		&e,
		"set eswitch mode switchdev; set 8 VFs; VF 0: trust on; VF 0: set representor up; "
		"VF 1: set representor up; VF 2: set representor up; VF 3: set representor up; "
		"VF 4: set representor up; VF 5: set representor up; VF 6: set representor up; "
		"VF 7: set representor up",
		"DLLLLLLLLLL");
	env_done(&e);
}

static void test_mlx5_switchdev_order(void **state)
{
	struct env e;

	env_init(&e, "mlx5_core", 16, 2, "mlx5_core");
	want(&e, true, 2);
	PF(&e, ESWITCH_MODE, eswitch_mode, ESWITCH_MODE_SWITCHDEV);
	vf_mac(&e, 1, "02:00:00:00:00:11");
	expect_plan(&e,
		    "VF 0: unbind; VF 1: unbind; set eswitch mode switchdev; VF 0: bind mlx5_core; "
		    "VF 0: set representor up; VF 1: mac 02:00:00:00:00:11; VF 1: bind mlx5_core; "
		    "VF 1: set representor up",
		    "DDDLLLLL");
	assert_int_equal(apply_converges(&e), 8);

	/* a count change and the mode back: count first, then unbind all */
	want_count(&e, 3);
	PF(&e, ESWITCH_MODE, eswitch_mode, ESWITCH_MODE_LEGACY);
	expect_plan(&e,
		    "remove all VFs; set 3 VFs; VF 0: unbind; VF 1: unbind; VF 2: unbind; "
		    "set eswitch mode legacy; VF 0: bind mlx5_core; "
		    "VF 1: mac 02:00:00:00:00:11; VF 1: bind mlx5_core; VF 2: bind mlx5_core",
		    "DDDDDDLLLL");
	assert_int_equal(apply_converges(&e), 10);
	env_done(&e);
}

/* What a VF made anew loses: values the host has that a new VF has not,
 * which no layout sets (set by hand), said with why the VFs are made anew;
 * a key a layout sets is set again, not lost. */
static void expect_dropped(const struct env *e, bool for_eswitch, const char *dropped)
{
	struct plan *p = plan(e);
	char *s = strv_join(p->dropped, " | ");

	assert_true(p->recreates);
	assert_int_equal(p->recreates_for_eswitch, for_eswitch);
	assert_string_equal(s, dropped);
	/* also among the notes */
	for (char **d = p->dropped; *d; d++)
		assert_true(strv_contains(p->notes, *d));
	free(s);
	plan_free(p);
}

static void test_recreated_vfs_lose_what_no_layout_sets(void **state)
{
	struct plan *p;
	char *lost;
	struct env e;

	env_init(&e, "ice", 64, 3, "ice iavf");
	e.pf.vfs[0].attrs.vlan = 33; /* ip link set ens1f0 vf 0 vlan 33 trust on */
	e.pf.vfs[0].attrs.trust = true;
	e.pf.vfs[1].attrs.max_tx_rate = 100;
	e.pf.vfs[2].attrs.vlan = 33;
	e.pf.vfs[2].attrs.trust = true;
	want(&e, false, 0);
	PF(&e, ESWITCH_MODE, eswitch_mode, ESWITCH_MODE_SWITCHDEV);
	expect_dropped(&e, true,
		       "VFs 0,2: recreated by the eswitch change to switchdev, without their "
		       "vlan 33, trust on (no layout sets them) | VF 1: recreated by the eswitch "
		       "change to switchdev, without its max_tx_rate 100 (no layout sets it)");
	p = plan(&e);
	lost = plan_recreate_cause(p);
	assert_string_equal(lost, "by the eswitch change to switchdev");
	free(lost);
	lost = plan_vf_lost_describe(p, &e.pf.vfs[1]);
	assert_string_equal(lost, ", without its max_tx_rate 100 (no layout sets it)");
	free(lost);
	plan_free(p);

	/* a key the layout sets is set again; a VF on another driver by hand loses it */
	VF(&e, 0, TRUST, trust, true);
	free(e.pf.vfs[1].attrs.driver);
	e.pf.vfs[1].attrs.driver = strdup("vfio-pci");
	e.pf.vfs[1].attrs.mtu = 0;
	expect_dropped(&e, true,
		       "VF 0: recreated by the eswitch change to switchdev, without its vlan 33 "
		       "(no layout sets it) | VF 1: recreated by the eswitch change to switchdev, "
		       "without its driver vfio-pci, max_tx_rate 100 (no layout sets them) | "
		       "VF 2: recreated by the eswitch change to switchdev, without its vlan 33, "
		       "trust on (no layout sets them)");
	env_done(&e);

	/* a count change: VirtualFunctions= is the cause, the VFs above it go */
	env_init(&e, "ice", 64, 2, "ice iavf");
	e.pf.vfs[0].attrs.mtu = 9000;
	e.pf.vfs[1].attrs.spoofchk = false;
	want(&e, true, 1);
	expect_dropped(&e, false,
		       "VF 0: recreated (VirtualFunctions=1), without its mtu 9000 "
		       "(no layout sets it)");
	env_done(&e);

	/* the PF's autoprobe turned off by someone: a VF made anew binds nowhere and
	 * loses its driver, unless its layout needs a network interface */
	env_init(&e, "ice", 64, 1, "ice iavf");
	e.pf.drivers_autoprobe = false;
	want(&e, false, 0);
	PF(&e, ESWITCH_MODE, eswitch_mode, ESWITCH_MODE_SWITCHDEV);
	expect_dropped(
		&e, true,
		"VF 0: recreated by the eswitch change to switchdev, without its driver iavf "
		"(no layout sets it)");
	VF(&e, 0, MTU, mtu, 1500);
	expect_dropped(&e, true, "");
	env_done(&e);

	/* nothing set by hand: nothing lost, the VFs are still made anew */
	env_init(&e, "ice", 64, 2, "ice iavf");
	want(&e, false, 0);
	PF(&e, ESWITCH_MODE, eswitch_mode, ESWITCH_MODE_SWITCHDEV);
	expect_dropped(&e, true, "");
	env_done(&e);
}

/* A VF left unbound by someone stays unbound across the mlx5 sequence: its
 * driver is not ours to choose when Driver= is unset. */
static void test_mlx5_unbound_vf_stays(void **state)
{
	struct env e;

	env_init(&e, "mlx5_core", 16, 2, "mlx5_core");
	free(e.pf.vfs[1].attrs.driver);
	free(e.pf.vfs[1].name);
	e.pf.vfs[1].attrs.driver = e.pf.vfs[1].name = NULL;
	want(&e, false, 0);
	PF(&e, ESWITCH_MODE, eswitch_mode, ESWITCH_MODE_SWITCHDEV);
	expect_plan(&e,
		    "VF 0: unbind; set eswitch mode switchdev; VF 0: bind mlx5_core; "
		    "VF 0: set representor up; VF 1: set representor up",
		    "DDLLL");
	assert_int_equal(apply_converges(&e), 5);
	assert_null(e.pf.vfs[1].attrs.driver);
	env_done(&e);
}

static void test_pf_before_vfs(void **state)
{
	struct env e;

	env_init(&e, "ice", 64, 0, "ice");
	e.pf.up = false;
	want(&e, true, 4);
	PF(&e, MTU, mtu, 9000);
	PF(&e, LINK_UP, link_up, true);
	expect_plan(&e, "load module iavf; set PF mtu 9000; set PF link up; set 4 VFs", "LLLL");
	assert_int_equal(apply_converges(&e), 4);

	/* LinkUp=no means "not needed", never "take it down" */
	PF(&e, LINK_UP, link_up, false);
	expect_plan(&e, "", "");
	env_done(&e);
}

static void test_count_changes(void **state)
{
	struct env e;

	env_init(&e, "i40e", 32, 4, "i40e iavf");
	want(&e, true, 8);
	expect_plan(&e, "remove all VFs; set 8 VFs", "DD");
	assert_int_equal(apply_converges(&e), 2);

	want_count(&e, 0);
	expect_plan(&e, "remove all VFs", "D");
	assert_int_equal(apply_converges(&e), 1);

	want_count(&e, 2);
	expect_plan(&e, "set 2 VFs", "L");
	env_done(&e);
}

/* Fresh VFs already have the kernel's defaults: nothing more to set. */
static void test_fresh_vfs_defaults(void **state)
{
	struct env e;

	env_init(&e, "ice", 64, 0, "ice iavf");
	want(&e, true, 2);
	VFS(&e, 0, 1, SPOOFCHK, spoofchk, true);
	VFS(&e, 0, 1, TRUST, trust, false);
	VFS(&e, 0, 1, VLAN, vlan, 0);
	VFS(&e, 0, 1, MTU, mtu, 1500);
	VFS(&e, 0, 1, LINK_STATE, link_state, LINK_STATE_AUTO);
	expect_plan(&e, "set 2 VFs", "L");
	env_done(&e);
}

/* ---- modules ---- */

static void test_modules(void **state)
{
	struct env e;

	env_init(&e, "ice", 64, 0, "ice");
	want(&e, true, 2);
	VF(&e, 0, RDMA, rdma, true);
	vf_driver(&e, 1, "vfio-pci");
	expect_plan(&e,
		    "load module iavf; load module irdma; load module vfio-pci; "
		    "set VF driver autoprobe off; set 2 VFs; VF 0: bind iavf; VF 1: bind vfio-pci; "
		    "set VF driver autoprobe on",
		    "LLLLLLLL");
	env_done(&e);

	/* every VF on vfio-pci: iavf is never loaded (it may be blacklisted),
	 * and no VF is ever probed by it */
	env_init(&e, "ice", 64, 0, "ice");
	want(&e, true, 2);
	vf_driver(&e, 0, "vfio-pci");
	vf_driver(&e, 1, "vfio-pci");
	expect_plan(&e,
		    "load module vfio-pci; set VF driver autoprobe off; set 2 VFs; "
		    "VF 0: bind vfio-pci; VF 1: bind vfio-pci; set VF driver autoprobe on",
		    "LLLLLL");
	assert_int_equal(apply_converges(&e), 6);
	assert_int_equal(e.probes, 2);
	assert_false(module_loaded(&e, "iavf"));
	env_done(&e);

	/* loaded already (vfio-pci as /proc/modules spells it): not again */
	env_init(&e, "ice", 64, 0, "ice iavf irdma vfio_pci");
	want(&e, true, 2);
	VF(&e, 0, RDMA, rdma, true);
	vf_driver(&e, 1, "vfio-pci");
	expect_plan(&e,
		    "set VF driver autoprobe off; set 2 VFs; VF 0: bind iavf; VF 1: bind vfio-pci; "
		    "set VF driver autoprobe on",
		    "LLLLL");
	assert_int_equal(apply_converges(&e), 5);
	/* nothing left to do, and VF 0 has no RDMA device: what the host lacks */
	expect_unmet(&e, "VF 0 has no RDMA device (RDMA=yes) with irdma loaded: RDMA may be "
			 "turned off for the VFs in the device (devlink port function, firmware)");
	e.pf.vfs[0].attrs.rdma = true;
	expect_unmet(&e, "");
	env_done(&e);

	/* no VFs wanted: no VF modules */
	env_init(&e, "ice", 64, 0, "ice");
	want(&e, true, 0);
	expect_plan(&e, "", "");
	env_done(&e);
}

/* ---- drivers ---- */

static void test_vfio_without_iommu(void **state)
{
	struct env e;

	env_init(&e, "ice", 64, 4, "ice iavf");
	e.host.iommu = false;
	want(&e, true, 4);
	vf_driver(&e, 0, "vfio-pci");
	vf_driver(&e, 1, "vfio-pci");
	vf_driver(&e, 3, "vfio-pci");
	VF(&e, 2, TRUST, trust, true);
	expect_plan(&e, "VF 2: trust on", "L");
	expect_unmet(&e,
		     "VFs 0-1, 3 want vfio-pci but the IOMMU is off: the CPU's vendor is not "
		     "known: add intel_iommu=on iommu=pt (Intel) or amd_iommu=on iommu=pt (AMD) "
		     "to the kernel command line and reboot");
	assert_int_equal(apply_converges(&e), 1);
	assert_string_equal(e.pf.vfs[0].attrs.driver, "iavf");

	vf_driver(&e, 0, NULL);
	vf_driver(&e, 1, NULL);
	expect_unmet(&e,
		     "VF 3 wants vfio-pci but the IOMMU is off: the CPU's vendor is not "
		     "known: add intel_iommu=on iommu=pt (Intel) or amd_iommu=on iommu=pt (AMD) "
		     "to the kernel command line and reboot");

	/* the CPU's vendor names the argument; one already given points at the firmware */
	e.host.has_cpu_vendor = true;
	e.host.cpu_vendor = CPU_VENDOR_AMD;
	e.host.kernel_cmdline = (char *)"BOOT_IMAGE=/vmlinuz root=/dev/sda1 quiet";
	expect_unmet(&e, "VF 3 wants vfio-pci but the IOMMU is off: add amd_iommu=on iommu=pt to "
			 "the kernel command line and reboot");
	e.host.cpu_vendor = CPU_VENDOR_INTEL;
	expect_unmet(&e, "VF 3 wants vfio-pci but the IOMMU is off: add intel_iommu=on iommu=pt "
			 "to the kernel command line and reboot");
	/* KernelArguments=manage is named only where it would add them */
	e.host.boot_loader = BOOT_LOADER_GRUB;
	expect_unmet(&e, "VF 3 wants vfio-pci but the IOMMU is off: add intel_iommu=on iommu=pt "
			 "to the kernel command line and reboot, or set [Reboot] "
			 "KernelArguments=manage");
	e.host.boot_loader = BOOT_LOADER_NONE;
	e.host.kernel_cmdline = (char *)"root=/dev/sda1 intel_iommu=on,sm_on iommu=pt";
	expect_unmet(&e, "VF 3 wants vfio-pci but the IOMMU is off: the kernel command line has "
			 "intel_iommu=on: turn on VT-d in the firmware setup and reboot");
	e.host.kernel_cmdline = (char *)"root=/dev/sda1 nointel_iommu=on intel_iommu=on,sm_on "
					"intel_iommu=off";
	expect_unmet(&e, "VF 3 wants vfio-pci but the IOMMU is off: add intel_iommu=on iommu=pt "
			 "to the kernel command line and reboot");
	e.host.kernel_cmdline = NULL;

	/* with the IOMMU: bound, and nothing unmet */
	e.host.iommu = true;
	expect_plan(&e, "load module vfio-pci; VF 3: unbind; VF 3: bind vfio-pci", "LLL");
	expect_unmet(&e, "");
	env_done(&e);
}

/* KernelArguments=manage: the arguments are added (a live change, then a
 * reboot), once; then the PF waits for the reboot instead of being
 * degraded. Nothing to add with, or nothing that helps: degraded. */
static void test_vfio_kernel_arguments_manage(void **state)
{
	struct env e;

	env_init(&e, "ice", 64, 4, "ice iavf");
	e.host.iommu = false;
	e.host.has_cpu_vendor = true;
	e.host.cpu_vendor = CPU_VENDOR_INTEL;
	e.host.kernel_cmdline = (char *)"root=/dev/sda1 iommu=pt";
	want(&e, true, 4);
	e.d->kernel_arguments = KERNEL_ARGUMENTS_MANAGE;
	vf_driver(&e, 2, "vfio-pci");
	vf_driver(&e, 3, "vfio-pci");
	/* the command line has iommu=pt: only what it lacks */
	expect_unmet(&e, "VFs 2-3 want vfio-pci but the IOMMU is off: add intel_iommu=on "
			 "to the kernel command line and reboot; KernelArguments=manage found no "
			 "boot loader tool to add them with (grubby; kernel-install with "
			 "/etc/kernel/cmdline; update-grub with /etc/default/grub and "
			 "/boot/grub/grub.cfg)");
	/* the CPU's vendor not known: manage cannot tell which to add */
	e.host.has_cpu_vendor = false;
	expect_unmet(&e,
		     "VFs 2-3 want vfio-pci but the IOMMU is off: the CPU's vendor is not "
		     "known: add intel_iommu=on iommu=pt (Intel) or amd_iommu=on iommu=pt (AMD) "
		     "to the kernel command line and reboot; KernelArguments=manage cannot tell "
		     "which of them this CPU takes, and found no boot loader tool to add them "
		     "with (grubby; kernel-install with /etc/kernel/cmdline; update-grub with "
		     "/etc/default/grub and /boot/grub/grub.cfg)");
	e.host.boot_loader = BOOT_LOADER_GRUB;
	expect_unmet(&e,
		     "VFs 2-3 want vfio-pci but the IOMMU is off: the CPU's vendor is not "
		     "known: add intel_iommu=on iommu=pt (Intel) or amd_iommu=on iommu=pt (AMD) "
		     "to the kernel command line and reboot; KernelArguments=manage cannot tell "
		     "which of them this CPU takes");
	e.host.has_cpu_vendor = true;
	expect_plan(&e, "add kernel arguments intel_iommu=on to the boot loader", "B");
	expect_reasons(&e, "kernel arguments intel_iommu=on take effect after a reboot: VFs 2-3 "
			   "want vfio-pci, which needs the IOMMU");
	assert_int_equal(apply_converges(&e), 1);
	expect_plan(&e, "", "");
	expect_reasons(&e, "kernel arguments intel_iommu=on were added to the boot loader: the "
			   "IOMMU that VFs 2-3 want for vfio-pci is on after a reboot");
	/* an "off" put into the configuration after they were added: no reboot
	 * turns the IOMMU on, the PF is degraded and says where */
	{
		char *cmdline[] = { (char *)"root=/dev/sda1 intel_iommu=off", NULL };
		char *off[] = { (char *)"/etc/kernel/cmdline:1", (char *)"intel_iommu=off", NULL };

		e.host.boot_cmdlines = cmdline;
		e.host.boot_iommu_off = off;
		expect_plan(&e, "", "");
		expect_unmet(&e,
			     "VFs 2-3 want vfio-pci but the IOMMU is off: add intel_iommu=on "
			     "to the kernel command line and reboot; KernelArguments=manage "
			     "leaves the boot loader's configuration as it is: "
			     "/etc/kernel/cmdline:1 holds intel_iommu=off, which turns off what "
			     "intel_iommu=on turns on; remove it, and the IOMMU is on after the "
			     "next apply and a reboot");
		/* an "off" that a later "on" overrules is none */
		cmdline[0] = (char *)"intel_iommu=off root=/dev/sda1 intel_iommu=on";
		expect_reasons(&e, "kernel arguments intel_iommu=on were added to the boot "
				   "loader: the IOMMU that VFs 2-3 want for vfio-pci is on after "
				   "a reboot");
		e.host.boot_cmdlines = NULL;
		e.host.boot_iommu_off = NULL;
	}
	/* given, and still off: only the firmware setup can help */
	e.host.kernel_cmdline = (char *)"root=/dev/sda1 intel_iommu=on";
	expect_unmet(&e, "VFs 2-3 want vfio-pci but the IOMMU is off: the kernel command line has "
			 "intel_iommu=on: turn on VT-d in the firmware setup and reboot");
	e.host.kernel_cmdline = NULL;
	env_done(&e);
}

/* KernelArguments=manage by platform and by what the boot loader's
 * configuration has already: arm64 has no argument that turns its SMMU on;
 * arguments in the configuration are a reboot pending, not an edit; a
 * configuration that could not be read is left alone. */
static void test_vfio_kernel_arguments_configured(void **state)
{
	char *grub[] = { (char *)" quiet splash intel_iommu=on iommu=pt", NULL };
	struct env e;

	env_init(&e, "ice", 64, 4, "ice iavf");
	e.host.iommu = false;
	e.host.has_cpu_vendor = true;
	e.host.cpu_vendor = CPU_VENDOR_ARM;
	e.host.boot_loader = BOOT_LOADER_GRUB;
	e.host.kernel_cmdline = (char *)"BOOT_IMAGE=/vmlinuz root=/dev/nvme0n1p2 ro";
	want(&e, true, 4);
	e.d->kernel_arguments = KERNEL_ARGUMENTS_MANAGE;
	vf_driver(&e, 1, "vfio-pci");
	expect_plan(&e, "", "");
	expect_unmet(&e, "VF 1 wants vfio-pci but the IOMMU is off: the IOMMU of an arm64 host is "
			 "its SMMU, which the kernel uses whenever the firmware describes it (no "
			 "kernel argument turns it on): turn on the SMMU in the firmware setup and "
			 "reboot");
	e.d->kernel_arguments = KERNEL_ARGUMENTS_CHECK;
	expect_unmet(&e, "VF 1 wants vfio-pci but the IOMMU is off: the IOMMU of an arm64 host is "
			 "its SMMU, which the kernel uses whenever the firmware describes it (no "
			 "kernel argument turns it on): turn on the SMMU in the firmware setup and "
			 "reboot");

	/* Ubuntu's GRUB_CMDLINE_LINUX_DEFAULT has them: the next boot has them */
	e.d->kernel_arguments = KERNEL_ARGUMENTS_MANAGE;
	e.host.cpu_vendor = CPU_VENDOR_INTEL;
	e.host.boot_cmdlines = grub;
	expect_plan(&e, "", "");
	expect_reasons(&e, "kernel arguments intel_iommu=on iommu=pt are in the boot loader's "
			   "configuration: the IOMMU that VF 1 wants for vfio-pci is on after a "
			   "reboot");
	/* only what it lacks is added */
	grub[0] = (char *)" quiet splash iommu=pt";
	expect_plan(&e, "add kernel arguments intel_iommu=on to the boot loader", "B");
	/* with check, the configuration does not change what check says */
	e.d->kernel_arguments = KERNEL_ARGUMENTS_CHECK;
	expect_unmet(&e, "VF 1 wants vfio-pci but the IOMMU is off: add intel_iommu=on iommu=pt "
			 "to the kernel command line and reboot, or set [Reboot] "
			 "KernelArguments=manage");
	/* a configuration only a shell could read: nothing is edited */
	e.d->kernel_arguments = KERNEL_ARGUMENTS_MANAGE;
	e.host.boot_config_error = (char *)"/etc/default/grub:12: GRUB_CMDLINE_LINUX=\"$EXTRA\": "
					   "only a shell can tell its value";
	expect_plan(&e, "", "");
	expect_unmet(&e, "VF 1 wants vfio-pci but the IOMMU is off: add intel_iommu=on iommu=pt "
			 "to the kernel command line and reboot; KernelArguments=manage leaves the "
			 "boot loader's configuration as it is: /etc/default/grub:12: "
			 "GRUB_CMDLINE_LINUX=\"$EXTRA\": only a shell can tell its value");
	e.host.boot_config_error = NULL;
	e.host.boot_cmdlines = NULL;
	e.host.kernel_cmdline = NULL;
	env_done(&e);
}

/* Driver= unset: the VF keeps whatever it is bound to. Driver=default:
 * back to the kernel's VF driver, with a fresh netdev and its MTU. */
static void test_driver_unset_and_default(void **state)
{
	struct env e;

	env_init(&e, "ice", 64, 1, "ice iavf vfio_pci");
	e.pf.mtu = 9000;
	sim_unbind(&e, 0);
	sim_bind(&e, 0, "vfio-pci");
	want(&e, false, 0);
	VF(&e, 0, TRUST, trust, true);
	expect_plan(&e, "VF 0: trust on", "L");
	assert_int_equal(apply_converges(&e), 1);

	vf_driver(&e, 0, NULL);
	VF(&e, 0, MTU, mtu, 9000);
	expect_plan(&e, "VF 0: unbind; VF 0: bind iavf; VF 0: mtu 9000", "LLL");
	assert_int_equal(apply_converges(&e), 3);
	assert_string_equal(e.pf.vfs[0].attrs.driver, "iavf");
	env_done(&e);
}

/* ---- firmware ---- */

static void test_firmware_vf_limit(void **state)
{
	struct env e;

	env_init(&e, "mlx5_core", 8, 2, "mlx5_core");
	want(&e, true, 16);
	VFS(&e, 0, 15, TRUST, trust, true);
	/* no VF count change now; the VFs there are configured */
	expect_plan(&e, "raise firmware VF limit to 16 (reboot); VF 0: trust on; VF 1: trust on",
		    "RLL");
	expect_reasons(&e, "firmware VF limit 8 -> 16 takes effect after a reboot");
	assert_int_equal(apply_converges(&e), 3);
	assert_int_equal(e.pf.num_vfs, 2);
	expect_reasons(&e, "firmware VF limit raised to 16, waiting for a reboot");

	sim_reboot(&e);
	expect_reasons(&e, "");
	assert_int_equal(apply_converges(&e), 1 + 16);
	assert_int_equal(e.pf.num_vfs, 16);
	env_done(&e);
}

static void test_link_type(void **state)
{
	struct env e;

	env_init(&e, "mlx5_core", 8, 0, "mlx5_core");
	want(&e, false, 0);
	PF(&e, LINK_TYPE, link_type, LINK_TYPE_INFINIBAND);
	expect_plan(&e, "set firmware link type infiniband (reboot)", "R");
	expect_reasons(&e, "link type ethernet -> infiniband takes effect after a reboot");
	assert_int_equal(apply_converges(&e), 1);
	expect_reasons(&e, "link type infiniband is set in firmware, waiting for a reboot");
	sim_reboot(&e);
	expect_reasons(&e, "");
	env_done(&e);
}

/* An MTU above IPoIB's 4092 on an InfiniBand port that LinkType=ethernet
 * makes Ethernet waits for the reboot, with a note; one IPoIB takes is set
 * at once; on an Ethernet port becoming InfiniBand nothing waits (desired.c
 * refuses such an MTU). */
static void test_link_type_mtu(void **state)
{
	struct env e;
	struct plan *p;

	env_init(&e, "mlx5_core", 8, 0, "mlx5_core");
	want(&e, false, 0);
	e.pf.link_type = e.pf.firmware_link_type = LINK_TYPE_INFINIBAND;
	e.pf.mtu = 4092;
	PF(&e, MTU, mtu, 9000);
	assert_false(plan_mtu_waits_link_type(e.d, &e.pf, 9000));
	PF(&e, LINK_TYPE, link_type, LINK_TYPE_ETHERNET);
	assert_true(plan_mtu_waits_link_type(e.d, &e.pf, 9000));
	assert_false(plan_mtu_waits_link_type(e.d, &e.pf, 4092));
	expect_plan(&e, "set firmware link type ethernet (reboot)", "R");
	p = plan(&e);
	assert_string_equal(p->notes[0], "PF: MTUBytes=9000 is set once the port is Ethernet, "
					 "after the reboot its link type change needs (IPoIB on "
					 "the InfiniBand port as it runs now takes 68..4092)");
	assert_null(p->notes[1]);
	plan_free(p);
	e.d->pf.mtu = 2044;
	expect_plan(&e, "set firmware link type ethernet (reboot); set PF mtu 2044", "RL");

	e.pf.link_type = e.pf.firmware_link_type = LINK_TYPE_ETHERNET;
	e.d->pf.link_type = LINK_TYPE_INFINIBAND;
	assert_false(plan_mtu_waits_link_type(e.d, &e.pf, 9000));
	env_done(&e);
}

/* ---- ExternallyManaged ---- */

static void test_externally_managed(void **state)
{
	struct env e;

	env_init(&e, "ice", 64, 2, "ice iavf");
	want(&e, true, 8);
	/* as desired_build leaves it: the VFs that exist */
	e.d->num_vfs = e.d->n_vfs = 2;
	PF(&e, EXTERNALLY_MANAGED, externally_managed, true);
	VFS(&e, 0, 1, TRUST, trust, true);
	expect_plan(&e, "VF 0: trust on; VF 1: trust on", "LL");
	/* the other 6 are the other tool's to make: the PF waits for them */
	expect_waiting(&e, "waiting for another tool to create VFs: 2 of 8 exist "
			   "(ExternallyManaged=yes)");
	assert_int_equal(apply_converges(&e), 2);
	expect_waiting(&e, "waiting for another tool to create VFs: 2 of 8 exist "
			   "(ExternallyManaged=yes)");
	env_done(&e);

	env_init(&e, "ice", 64, 0, "ice");
	want(&e, true, 8);
	e.d->num_vfs = e.d->n_vfs = 0;
	PF(&e, EXTERNALLY_MANAGED, externally_managed, true);
	expect_plan(&e, "", "");
	expect_waiting(&e, "waiting for another tool to create VFs: 0 of 8 exist "
			   "(ExternallyManaged=yes)");
	/* "max": as many as the PF allows */
	e.d->pf.num_vfs_max = true;
	expect_waiting(&e, "waiting for another tool to create VFs: 0 of 64 exist "
			   "(ExternallyManaged=yes)");
	env_done(&e);

	/* all there (or more): nothing to wait for; without VirtualFunctions=
	 * no count is expected */
	env_init(&e, "ice", 64, 8, "ice iavf");
	want(&e, true, 8);
	PF(&e, EXTERNALLY_MANAGED, externally_managed, true);
	expect_waiting(&e, "");
	env_done(&e);
	env_init(&e, "ice", 64, 0, "ice");
	want(&e, false, 0);
	PF(&e, EXTERNALLY_MANAGED, externally_managed, true);
	expect_waiting(&e, "");
	env_done(&e);
}

/* ---- one SET_VF ---- */

static void test_plan_vf_diff(void **state)
{
	const struct driver_info *i40e = driver_info_get("i40e");
	struct vf_attrs now = {
		.vlan = 10,
		.qos = 2,
		.spoofchk = true,
		.link_state = LINK_STATE_AUTO,
		.max_tx_rate = 300,
	};
	struct vf_settings want = {};
	struct vf_attrs ret;
	uint32_t keys;

	/* nothing set: nothing differs */
	assert_false(plan_vf_diff(i40e->vf_attrs, &want, &now, false, &ret, &keys));
	assert_int_equal(keys, 0);

	/* equal values: nothing differs */
	want.attrs.vlan = 10;
	want.attrs.trust = false;
	want.set = KEY(VLAN) | KEY(TRUST);
	assert_false(plan_vf_diff(i40e->vf_attrs, &want, &now, false, &ret, &keys));

	/* one key of a group differs: the whole group, the rest as it is */
	want.attrs.vlan = 20;
	assert_true(plan_vf_diff(i40e->vf_attrs, &want, &now, false, &ret, &keys));
	assert_int_equal(keys, KEY(VLAN) | KEY(QOS) | KEY(VLAN_PROTO));
	assert_int_equal(ret.vlan, 20);
	assert_int_equal(ret.qos, 2);
	assert_int_equal(ret.vlan_proto, VLAN_PROTO_8021Q);

	/* the two rates go together; i40e has no min rate, so a min rate
	 * alone is never compared */
	want = (struct vf_settings){ .attrs.min_tx_rate = 50, .set = KEY(MIN_TX_RATE) };
	assert_false(plan_vf_diff(i40e->vf_attrs, &want, &now, false, &ret, &keys));
	want = (struct vf_settings){ .attrs.max_tx_rate = 500, .set = KEY(MAX_TX_RATE) };
	assert_true(plan_vf_diff(i40e->vf_attrs, &want, &now, false, &ret, &keys));
	assert_int_equal(keys, KEY(MIN_TX_RATE) | KEY(MAX_TX_RATE));
	assert_int_equal(ret.min_tx_rate, 0);
	assert_int_equal(ret.max_tx_rate, 500);

	/* a MAC the kernel chose at random differs even when it matches */
	want = (struct vf_settings){ .set = KEY(MAC) };
	assert_false(plan_vf_diff(i40e->vf_attrs, &want, &now, false, &ret, &keys));
	assert_true(plan_vf_diff(i40e->vf_attrs, &want, &now, true, &ret, &keys));
	assert_int_equal(keys, KEY(MAC));
	assert_true(mac_equal(&ret.mac, &want.attrs.mac));
}

/* A VF on a driver that gives it a network interface that this host's
 * namespace does not show: a pod may hold the interface, so its unbind is
 * disruptive, and says why. Not of a VF the plan makes anew, one on
 * vfio-pci, or an InfiniBand port's VF without ib_ipoib. */
#define POD " (its network interface is not in this host's namespace: a pod may hold it)"

static void test_vf_netdev_elsewhere(void **state)
{
	struct env e;

	env_init(&e, "ice", 64, 10, "ice iavf vfio_pci");
	want(&e, true, 10);
	vf_driver(&e, 9, "vfio-pci");
	expect_plan(&e, "VF 9: unbind; VF 9: bind vfio-pci", "LL");
	e.pf.vfs[9].name = mfree(e.pf.vfs[9].name);
	e.pf.vfs[9].attrs.mtu = 0;
	expect_plan(&e, "VF 9: unbind" POD "; VF 9: bind vfio-pci", "DL");
	/* its MTU is set through its interface, which is not here: unmet, no
	 * step; one the host shows gets it */
	pf_desired_free(e.d);
	want(&e, true, 10);
	VF(&e, 9, MTU, mtu, 1400);
	expect_plan(&e, "", "");
	expect_unmet(&e, "");
	e.pf.vfs[9].name = strdup("ens1f0v9");
	e.pf.vfs[9].attrs.mtu = 1500;
	expect_plan(&e, "VF 9: mtu 1400", "L");
	expect_unmet(&e, "");
	e.pf.vfs[9].name = mfree(e.pf.vfs[9].name);
	e.pf.vfs[9].attrs.mtu = 0;
	pf_desired_free(e.d);
	want(&e, true, 10);
	/* made anew by a count change: in no pod */
	want_count(&e, 12);
	vf_driver(&e, 9, "vfio-pci");
	{
		struct plan *p = plan(&e);
		char *t = plan_text(p);

		assert_null(strstr(t, "pod"));
		for (size_t i = 0; i < p->n_actions; i++)
			assert_true(p->actions[i].type != ACTION_UNBIND_VF ||
				    !p->actions[i].disruptive);
		free(t);
		plan_free(p);
	}
	/* on vfio-pci, no network interface to lose */
	want_count(&e, 10);
	free(e.pf.vfs[9].attrs.driver);
	e.pf.vfs[9].attrs.driver = strdup("vfio-pci");
	vf_driver(&e, 9, "iavf");
	expect_plan(&e, "VF 9: unbind; VF 9: bind iavf", "LL");
	env_done(&e);

	/* InfiniBand: a VF has a network interface only through ib_ipoib */
	env_init(&e, "mlx5_core", 8, 2, "mlx5_core mlx5_ib");
	e.pf.link_type = e.pf.firmware_link_type = LINK_TYPE_INFINIBAND;
	e.pf.vfs[0].name = mfree(e.pf.vfs[0].name);
	e.pf.vfs[0].attrs.mtu = 0;
	want(&e, true, 2);
	VF(&e, 0, IB_NODE_GUID, ib_node_guid, 0x0002c90300216e70u);
	/* the PF's interface shows IPoIB is there, built in when in no module list */
	expect_plan(&e,
		    "VF 0: unbind" POD "; VF 0: node_guid 00:02:c9:03:00:21:6e:70; VF 0: "
		    "bind mlx5_core",
		    "DLL");
	e.pf.name = mfree(e.pf.name);
	expect_plan(&e,
		    "VF 0: unbind; VF 0: node_guid 00:02:c9:03:00:21:6e:70; VF 0: "
		    "bind mlx5_core",
		    "LLL");
	/* the RDMA netns mode exclusive: an RDMA device not shown here is in
	 * another namespace; one shown here is not */
	e.host.has_rdma_netns_mode = true;
	e.host.rdma_netns_mode = RDMA_NETNS_MODE_EXCLUSIVE;
	e.pf.vfs[0].attrs.rdma = false;
	expect_plan(&e,
		    "VF 0: unbind (its RDMA device is not in this host's namespace (RDMA netns "
		    "mode exclusive): a pod may hold it); VF 0: node_guid 00:02:c9:03:00:21:6e:70; "
		    "VF 0: bind mlx5_core",
		    "DLL");
	e.host.rdma_netns_mode = RDMA_NETNS_MODE_SHARED;
	expect_plan(&e,
		    "VF 0: unbind; VF 0: node_guid 00:02:c9:03:00:21:6e:70; VF 0: "
		    "bind mlx5_core",
		    "LLL");
	e.host.rdma_netns_mode = RDMA_NETNS_MODE_EXCLUSIVE;
	e.pf.vfs[0].attrs.rdma = true;
	expect_plan(&e,
		    "VF 0: unbind; VF 0: node_guid 00:02:c9:03:00:21:6e:70; VF 0: "
		    "bind mlx5_core",
		    "LLL");
	assert_int_equal(strv_extend(&e.host.modules, "ib_ipoib"), 0);
	expect_plan(&e,
		    "VF 0: unbind" POD "; VF 0: node_guid 00:02:c9:03:00:21:6e:70; VF 0: "
		    "bind mlx5_core",
		    "DLL");
	env_done(&e);
}

/* ---- descriptions ---- */

static void test_describe(void **state)
{
	struct action a = { .type = ACTION_SET_VF, .vf = 3 };
	char *s;

	assert_int_equal(mac_parse("02:1a:00:00:00:01", &a.attrs.mac), 0);
	a.keys = KEY(MAC) | KEY(VLAN) | KEY(QOS) | KEY(VLAN_PROTO) | KEY(TRUST) | KEY(SPOOFCHK) |
		 KEY(LINK_STATE) | KEY(QUERY_RSS) | KEY(MIN_TX_RATE) | KEY(MAX_TX_RATE);
	a.attrs.vlan = 100;
	a.attrs.qos = 3;
	a.attrs.trust = true;
	a.attrs.link_state = LINK_STATE_ENABLE;
	a.attrs.max_tx_rate = 10000;
	s = action_describe(&a);
	assert_string_equal(s, "VF 3: mac 02:1a:00:00:00:01, vlan 100 qos 3 802.1Q, trust on, "
			       "spoofchk off, state enable, query_rss off, "
			       "min_tx_rate 0 max_tx_rate 10000");
	free(s);

	a = (struct action){ .type = ACTION_SET_NUM_VFS, .value = 1 };
	s = action_describe(&a);
	assert_string_equal(s, "set 1 VF");
	free(s);
	a = (struct action){ .type = ACTION_BIND_VF, .vf = 0, .str = "vfio-pci" };
	s = action_describe(&a);
	assert_string_equal(s, "VF 0: bind vfio-pci");
	free(s);

	for (enum action_type t = 0; t < _ACTION_TYPE_MAX; t++) {
		a = (struct action){ .type = t };
		assert_non_null(action_type_to_string(t));
		s = action_describe(&a);
		assert_non_null(s);
		assert_true(strlen(s) > 0 && !strchr(s, '\n'));
		free(s);
	}
	assert_string_equal(action_type_to_string(ACTION_SET_NUM_VFS), "set_num_vfs");
	assert_null(action_type_to_string(_ACTION_TYPE_MAX));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_describe_drift),
		cmocka_unit_test(test_describe_difference),
		cmocka_unit_test(test_describe_drift_count),
		cmocka_unit_test(test_describe_drift_rebind),
		cmocka_unit_test(test_describe_drift_representor),
		cmocka_unit_test(test_ice_converges),
		cmocka_unit_test(test_i40e_converges),
		cmocka_unit_test(test_mlx5_switchdev_converges),
		cmocka_unit_test(test_igb_converges),
		cmocka_unit_test(test_killed_between_unbind_and_bind),
		cmocka_unit_test(test_autoprobe_not_ours),
		cmocka_unit_test(test_bnxt_converges),
		cmocka_unit_test(test_ice_switchdev_order),
		cmocka_unit_test(test_mlx5_switchdev_order),
		cmocka_unit_test(test_mlx5_unbound_vf_stays),
		cmocka_unit_test(test_pf_before_vfs),
		cmocka_unit_test(test_count_changes),
		cmocka_unit_test(test_fresh_vfs_defaults),
		cmocka_unit_test(test_modules),
		cmocka_unit_test(test_vfio_without_iommu),
		cmocka_unit_test(test_vfio_kernel_arguments_configured),
		cmocka_unit_test(test_vfio_kernel_arguments_manage),
		cmocka_unit_test(test_driver_unset_and_default),
		cmocka_unit_test(test_firmware_vf_limit),
		cmocka_unit_test(test_link_type),
		cmocka_unit_test(test_link_type_mtu),
		cmocka_unit_test(test_externally_managed),
		cmocka_unit_test(test_plan_vf_diff),
		cmocka_unit_test(test_mlx5_ib_guids_converge),
		cmocka_unit_test(test_vf_netdev_elsewhere),
		cmocka_unit_test(test_rdma_netns_mode),
		cmocka_unit_test(test_describe),
		cmocka_unit_test(test_recreated_vfs_lose_what_no_layout_sets),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
