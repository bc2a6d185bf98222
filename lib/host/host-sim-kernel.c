/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* The "kernel" of the simulated host: what drivers/pci/iov.c, the driver core
 * and the PF drivers do with each request, applied to a parsed snapshot. Pure:
 * every rule first checks, then changes the state, so that a refused request
 * leaves it as it was. Per-driver behaviour comes from drivers.c. */

#include "addr-util.h"
#include "drivers.h"
#include "host-sim-internal.h"

/* Modules the simulated modprobe can find: those drivers.c names, and the
 * generic VF drivers of the kernel (not DPDK's igb_uio, built out of tree). What the plan is told (host_state.findable_modules). */
const char *const sim_known_modules[] = {
	"ice",	     "iavf",
	"irdma",     "i40e",
	"mlx5_core", "mlx5_ib",
	"bnxt_en",   "bnxt_re",
	"igb",	     "igbvf",
	"ixgbe",     "ixgbevf",
	"netdevsim", "vfio-pci",
	"vfio_pci",  "vfio_iommu_type1",
	"pci-stub",  "uio_pci_generic",
	NULL,
};

/* The modules above that need ib_core, which brings the RDMA subsystem
 * (and its netns mode, shared unless told otherwise) with it. */
static const char *const ib_core_users[] = { "irdma", "mlx5_ib", "bnxt_re" };

static bool module_in(const char *const *l, size_t n, const char *m)
{
	for (size_t i = 0; i < n; i++)
		if (module_name_equal(l[i], m))
			return true;
	return false;
}

static bool module_loaded(const struct host_state *s, const char *m)
{
	return module_in((const char *const *)s->modules, strv_length(s->modules), m);
}

static bool rdma_modules_loaded(const struct host_state *s, const struct driver_info *di)
{
	if (!di->rdma_modules)
		return false;
	for (const char *const *m = di->rdma_modules; *m; m++)
		if (!module_loaded(s, *m))
			return false;
	return true;
}

/* A VF has an RDMA device when it is bound to its PF's VF driver and the
 * vendor's RDMA modules are loaded. */
static void recompute_vf_rdma(const struct host_state *s, const struct pf_state *pf,
			      struct vf_state *vf)
{
	vf->attrs.rdma = pf->vf_driver && streq_ptr(vf->attrs.driver, pf->vf_driver) &&
			 rdma_modules_loaded(s, driver_info_get(pf->driver));
}

static void recompute_rdma(struct host_state *s)
{
	for (size_t i = 0; i < s->n_pfs; i++)
		for (size_t j = 0; j < s->pfs[i].n_vfs; j++)
			recompute_vf_rdma(s, &s->pfs[i], &s->pfs[i].vfs[j]);
}

static struct pf_state *find_pf(struct host *h, struct host_state *s, const char *pci)
{
	struct pf_state *pf = host_state_find_pf(s, pci);

	if (!pf)
		host_set_error(h, "no SR-IOV device %s", pci);
	return pf;
}

static struct vf_state *find_vf(struct host *h, struct pf_state *pf, uint32_t vf)
{
	if (vf >= pf->n_vfs) {
		host_set_error(h, "%s has no VF %u (%zu VFs)", pf->pci, vf, pf->n_vfs);
		return NULL;
	}
	return &pf->vfs[vf];
}

int sim_vf_pci(const struct host_state *s, const char *pf_pci, uint32_t vf,
	       char buf[static PCI_ADDR_MAX])
{
	const struct pf_state *pf = host_state_find_pf(s, pf_pci);

	if (!pf)
		return -ENODEV;
	if (vf < pf->n_vfs) {
		memcpy(buf, pf->vfs[vf].pci, PCI_ADDR_MAX);
		return 0;
	}
	return pf_vf_pci_addr(pf, vf, buf);
}

/* igb gives new VFs a random MAC; here it is derived from the VF's address
 * (FNV-1a) so that tests repeat: locally administered, unicast. */
static struct mac_addr vf_random_mac(const char *pci)
{
	uint64_t x = 0xcbf29ce484222325ULL;
	struct mac_addr m;

	for (const char *c = pci; *c; c++)
		x = (x ^ (uint8_t)*c) * 0x100000001b3ULL;
	for (size_t i = 0; i < ETHER_ADDR_LEN_; i++)
		m.b[i] = (uint8_t)(x >> (8 * i));
	m.b[0] = (uint8_t)((m.b[0] & 0xfc) | 0x02);
	return m;
}

int sim_vf_random_mac(struct host_state *s, const char *pf, uint32_t vf)
{
	struct pf_state *p = host_state_find_pf(s, pf);

	if (!p || vf >= p->n_vfs)
		return -ENODEV;
	p->vfs[vf].attrs.mac = vf_random_mac(p->vfs[vf].pci);
	return 0;
}

int sim_vf_netdev_set(const struct pf_state *pf, struct vf_state *vf, bool present)
{
	char *name = NULL;

	if (present) {
		name = pf->name ? strdup_printf("%sv%u", pf->name, vf->index) :
				  strdup_printf("eth%u", vf->index);
		if (!name)
			return -ENOMEM;
	}
	free(vf->name);
	vf->name = name;
	vf->attrs.mtu = name ? vf_netdev_default_mtu(pf->link_type == LINK_TYPE_INFINIBAND) : 0;
	return 0;
}

static int vf_bind(const struct pf_state *pf, struct vf_state *vf, const char *driver)
{
	_cleanup_free_ char *d = strdup(driver);
	int r;

	if (!d)
		return -ENOMEM;
	r = sim_vf_netdev_set(pf, vf, vf_driver_has_netdev(driver));
	if (r < 0)
		return r;
	free(vf->attrs.driver);
	vf->attrs.driver = TAKE_PTR(d);
	return 0;
}

static void vf_unbind(struct vf_state *vf)
{
	free(vf->attrs.driver);
	free(vf->name);
	vf->attrs.driver = vf->name = NULL;
	vf->attrs.mtu = 0;
	vf->attrs.rdma = false;
}

/* Switchdev mode gives each VF a representor netdev, down, which the
 * driver removes again in legacy mode. Named from the PF's PCI address
 * ("rep3b000vf2"): unique on the host and short enough for a netdev. */
static int sync_representors(struct pf_state *pf)
{
	bool want = pf->has_eswitch && pf->eswitch_mode == ESWITCH_MODE_SWITCHDEV;

	for (size_t i = 0; i < pf->n_vfs; i++) {
		struct vf_state *vf = &pf->vfs[i];

		if (!want) {
			vf->representor = mfree(vf->representor);
			vf->representor_up = false;
		} else if (!vf->representor) {
			vf->representor = strdup_printf("rep%.2s%.2s%cvf%zu", pf->pci + 5,
							pf->pci + 8, pf->pci[11], i);
			if (!vf->representor)
				return -ENOMEM;
			vf->representor_up = false;
		}
	}
	return 0;
}

static int create_vfs(struct host *h, struct host_state *s, struct pf_state *pf, uint32_t n)
{
	const struct driver_info *di = driver_info_get(pf->driver);
	struct vf_state *vfs = calloc(n, sizeof(*vfs));
	int r = 0;

	if (!vfs)
		return -ENOMEM;
	for (uint32_t i = 0; i < n && r >= 0; i++) {
		struct vf_state *vf = &vfs[i];

		*vf = (struct vf_state){ .index = i, .has_stats = di->vf_stats };
		vf_attrs_init(&vf->attrs);
		r = pf_vf_pci_addr(pf, i, vf->pci);
		if (r < 0)
			host_set_error(h, "VF %u of %s would be past the last bus", i, pf->pci);
		if (r >= 0 && di->vf_random_mac)
			vf->attrs.mac = vf_random_mac(vf->pci);
		/* udev loads the VF driver's module when it is missing; with
		 * autoprobe off, a VF binds only when driver_override names a
		 * driver (pci_device_can_probe()) */
		if (r >= 0 && pf->vf_driver && pf->drivers_autoprobe)
			r = vf_bind(pf, vf, pf->vf_driver);
	}
	if (r >= 0 && pf->vf_driver && pf->drivers_autoprobe && !module_loaded(s, pf->vf_driver))
		r = strv_extend(&s->modules, pf->vf_driver);
	if (r < 0) {
		for (uint32_t i = 0; i < n; i++)
			vf_state_done(&vfs[i]);
		free(vfs);
		return r;
	}
	pf->vfs = vfs;
	pf->n_vfs = pf->num_vfs = n;
	for (uint32_t i = 0; i < n; i++)
		recompute_vf_rdma(s, pf, &pf->vfs[i]);
	return sync_representors(pf);
}

static void destroy_vfs(struct pf_state *pf)
{
	for (size_t i = 0; i < pf->n_vfs; i++)
		vf_state_done(&pf->vfs[i]);
	free(pf->vfs);
	pf->vfs = NULL;
	pf->n_vfs = pf->num_vfs = 0;
}

/* sriov_numvfs_store() in drivers/pci/iov.c, in its order. */
static int k_set_num_vfs(struct host *h, struct host_state *s, const struct sim_request *rq)
{
	struct pf_state *pf = find_pf(h, s, rq->pf);
	uint32_t n = rq->a->value;

	if (!pf)
		return -ENODEV;
	if (n > pf->total_vfs) {
		host_set_error(h, "%u VFs requested, sriov_totalvfs is %u", n, pf->total_vfs);
		return -ERANGE;
	}
	if (n == pf->num_vfs)
		return 0;
	if (!pf->driver) {
		host_set_error(h, "no driver bound to device; cannot configure SR-IOV");
		return -ENOENT;
	}
	if (n == 0) {
		destroy_vfs(pf);
		return 0;
	}
	if (pf->num_vfs > 0) {
		host_set_error(h, "%u VFs already enabled. Disable before enabling %u VFs",
			       pf->num_vfs, n);
		return -EBUSY;
	}
	return create_vfs(h, s, pf, n);
}

static int k_set_eswitch_mode(struct host *h, struct host_state *s, const struct sim_request *rq)
{
	struct pf_state *pf = find_pf(h, s, rq->pf);
	const struct driver_info *di;

	if (!pf)
		return -ENODEV;
	di = driver_info_get(pf->driver);
	if (!pf->has_eswitch || di->switchdev == SWITCHDEV_NONE) {
		host_set_error(h, "%s has no devlink eswitch", strna(pf->driver));
		return -EOPNOTSUPP;
	}
	if ((enum eswitch_mode)rq->a->value == pf->eswitch_mode)
		return 0;
	/* ice_eswitch_mode_set() */
	if (di->switchdev == SWITCHDEV_WITHOUT_VFS && pf->num_vfs > 0) {
		host_set_error(h,
			       "Changing eswitch mode is allowed only if there is no VFs created");
		return -EOPNOTSUPP;
	}
	for (size_t i = 0; di->switchdev == SWITCHDEV_VFS_UNBOUND && i < pf->n_vfs; i++)
		if (pf->vfs[i].attrs.driver) {
			host_set_error(h, "VF %zu is bound to %s; unbind the VFs first", i,
				       pf->vfs[i].attrs.driver);
			return -EBUSY;
		}
	pf->eswitch_mode = (enum eswitch_mode)rq->a->value;
	return sync_representors(pf);
}

static int k_set_representor_up(struct host *h, struct host_state *s, const struct sim_request *rq)
{
	struct pf_state *pf = find_pf(h, s, rq->pf);

	if (!pf)
		return -ENODEV;
	if (rq->a->vf >= pf->n_vfs || !pf->vfs[rq->a->vf].representor) {
		host_set_error(h, "VF %u has no representor", rq->a->vf);
		return -ENODEV;
	}
	pf->vfs[rq->a->vf].representor_up = true;
	return 0;
}

static int k_set_hw_tc_offload(struct host *h, struct host_state *s, const struct sim_request *rq)
{
	struct pf_state *pf = find_pf(h, s, rq->pf);

	if (!pf)
		return -ENODEV;
	/* an ethtool feature: accepted in legacy mode too, where it does nothing;
	 * one the netdev cannot change stays as it is, and the read back says so */
	if (pf->hw_tc_offload_fixed && pf->hw_tc_offload != (rq->a->value != 0)) {
		host_set_error(h, "hw-tc-offload is still %s after setting it",
			       pf->hw_tc_offload ? "on" : "off");
		return -EIO;
	}
	pf->hw_tc_offload = rq->a->value != 0;
	return 0;
}

static int check_mtu(struct host *h, const struct pf_state *pf, uint32_t mtu)
{
	const struct driver_info *di = driver_info_get(pf->driver);
	uint32_t max = driver_max_mtu(di, pf->link_type == LINK_TYPE_INFINIBAND);

	if (mtu < di->min_mtu || mtu > max) {
		host_set_error(h, "MTU %u is outside %u..%u", mtu, di->min_mtu, max);
		return -EINVAL;
	}
	return 0;
}

static int k_set_pf_mtu(struct host *h, struct host_state *s, const struct sim_request *rq)
{
	struct pf_state *pf = find_pf(h, s, rq->pf);
	int r;

	if (!pf)
		return -ENODEV;
	if (!pf->name) {
		host_set_error(h, "%s has no network device", pf->pci);
		return -ENODEV;
	}
	r = check_mtu(h, pf, rq->a->value);
	if (r < 0)
		return r;
	pf->mtu = rq->a->value;
	return 0;
}

static int k_set_pf_up(struct host *h, struct host_state *s, const struct sim_request *rq)
{
	struct pf_state *pf = find_pf(h, s, rq->pf);

	if (!pf)
		return -ENODEV;
	if (!pf->name) {
		host_set_error(h, "%s has no network device", pf->pci);
		return -ENODEV;
	}
	pf->up = true;
	return 0;
}

/* sriov_drivers_autoprobe_store(): any value, VFs or not */
static int k_set_autoprobe(struct host *h, struct host_state *s, const struct sim_request *rq)
{
	struct pf_state *pf = find_pf(h, s, rq->pf);

	if (!pf)
		return -ENODEV;
	pf->drivers_autoprobe = rq->a->value != 0;
	return 0;
}

static int k_unbind_vf(struct host *h, struct host_state *s, const struct sim_request *rq)
{
	struct pf_state *pf = find_pf(h, s, rq->pf);
	struct vf_state *vf = pf ? find_vf(h, pf, rq->a->vf) : NULL;

	if (!vf)
		return -ENODEV;
	vf_unbind(vf);
	recompute_vf_rdma(s, pf, vf);
	return 0;
}

static int check_bind(struct host *h, const struct host_state *s, const struct vf_state *vf,
		      const char *driver)
{
	if (vf->attrs.driver) {
		host_set_error(h, "VF %u is already bound to %s", vf->index, vf->attrs.driver);
		return -EBUSY;
	}
	if (vf_driver_needs_iommu(driver) && !s->iommu) {
		host_set_error(h, "no IOMMU group for %s", vf->pci);
		return -EINVAL;
	}
	if (!module_loaded(s, driver)) {
		host_set_error(h, "driver %s not loaded", driver);
		return -ENODEV;
	}
	return 0;
}

static int k_bind_vf(struct host *h, struct host_state *s, const struct sim_request *rq)
{
	struct pf_state *pf = find_pf(h, s, rq->pf);
	struct vf_state *vf = pf ? find_vf(h, pf, rq->a->vf) : NULL;
	const char *driver;
	int r;

	if (!vf)
		return -ENODEV;
	driver = rq->a->str ?: pf->vf_driver;
	if (!driver) {
		host_set_error(h, "%s has no default VF driver", pf->pci);
		return -EINVAL;
	}
	r = check_bind(h, s, vf, driver);
	if (r < 0)
		return r;
	r = vf_bind(pf, vf, driver);
	if (r < 0)
		return r;
	recompute_vf_rdma(s, pf, vf);
	return 0;
}

static int k_set_vf_mtu(struct host *h, struct host_state *s, const struct sim_request *rq)
{
	struct pf_state *pf = find_pf(h, s, rq->pf);
	struct vf_state *vf = pf ? find_vf(h, pf, rq->a->vf) : NULL;
	int r;

	if (!vf)
		return -ENODEV;
	if (!vf->name) {
		host_set_error(h, "VF %u has no network device", vf->index);
		return -ENODEV;
	}
	r = check_mtu(h, pf, rq->a->value);
	if (r < 0)
		return r;
	/* iavf and mlx5 VFs cannot go above their PF */
	if (rq->a->value > pf->mtu) {
		host_set_error(h, "VF MTU %u is above the PF's MTU %u", rq->a->value, pf->mtu);
		return -EINVAL;
	}
	vf->attrs.mtu = rq->a->value;
	return 0;
}

static int k_load_module(struct host *h, struct host_state *s, const struct sim_request *rq)
{
	int r;

	if (module_loaded(s, rq->a->str))
		return 0;
	if (!module_in(sim_known_modules, ELEMENTSOF(sim_known_modules) - 1, rq->a->str)) {
		host_set_error(h, "Module %s not found", rq->a->str);
		return -ENOENT;
	}
	r = strv_extend(&s->modules, rq->a->str);
	if (r < 0)
		return r;
	if (module_in(ib_core_users, ELEMENTSOF(ib_core_users), rq->a->str) &&
	    !s->has_rdma_netns_mode) {
		s->has_rdma_netns_mode = true;
		s->rdma_netns_mode = RDMA_NETNS_MODE_SHARED;
	}
	recompute_rdma(s);
	return 0;
}

/* rdma system set netns: host-wide, where ib_core is loaded. The kernel's
 * refusal while other network namespaces exist is a fault to inject
 * (errno EBUSY): the simulated host has no namespaces. */
static int k_set_rdma_netns_mode(struct host *h, struct host_state *s, const struct sim_request *rq)
{
	if (!s->has_rdma_netns_mode) {
		host_set_error(h, "no RDMA subsystem (ib_core is not loaded)");
		return -EPROTONOSUPPORT;
	}
	if (rq->a->value >= _RDMA_NETNS_MODE_MAX)
		return -EINVAL;
	s->rdma_netns_mode = (enum rdma_netns_mode)rq->a->value;
	return 0;
}

/* The boot loader's configuration as the tool leaves it: the arguments on
 * the list of those we added (value 1), or off it (value 0). */
static int k_set_kernel_arguments(struct host *h, struct host_state *s,
				  const struct sim_request *rq)
{
	_cleanup_strv_free_ char **words = NULL;
	char **keep;
	size_t n = 0;

	if (s->boot_loader == BOOT_LOADER_NONE) {
		host_set_error(h, "no boot loader tool");
		return -ENOENT;
	}
	if (!rq->a->str || strv_split(rq->a->str, &words) < 0)
		return -EINVAL;
	if (rq->a->value) {
		for (char **w = words; *w; w++)
			if (!strv_contains(s->kernel_args_added, *w) &&
			    strv_extend(&s->kernel_args_added, *w) < 0)
				return -ENOMEM;
		return 0;
	}
	keep = s->kernel_args_added;
	for (size_t i = 0; keep && keep[i]; i++) {
		if (strv_contains(words, keep[i]))
			free(keep[i]);
		else
			keep[n++] = keep[i];
	}
	if (keep)
		keep[n] = NULL;
	return 0;
}

static int k_set_firmware_vfs(struct host *h, struct host_state *s, const struct sim_request *rq)
{
	struct pf_state *pf = find_pf(h, s, rq->pf);
	const struct driver_info *di;

	if (!pf)
		return -ENODEV;
	di = driver_info_get(pf->driver);
	if (!di->firmware_vfs) {
		host_set_error(h, "%s has no firmware VF limit", strna(pf->driver));
		return -EOPNOTSUPP;
	}
	if (rq->a->value > di->firmware_max_vfs) {
		host_set_error(h, "NUM_OF_VFS %u is above %u", rq->a->value, di->firmware_max_vfs);
		return -EINVAL;
	}
	/* effective after a reboot: total_vfs stays. NUM_OF_VFS is one
	 * setting of the card (no _P<n> as LINK_TYPE has): every PF of the
	 * device has the new limit. */
	for (size_t i = 0; i < s->n_pfs; i++)
		if (pci_same_device(s->pfs[i].pci, pf->pci) && s->pfs[i].firmware_total_vfs >= 0)
			s->pfs[i].firmware_total_vfs = (int)rq->a->value;
	pf->firmware_total_vfs = (int)rq->a->value;
	return 0;
}

static int k_set_firmware_link_type(struct host *h, struct host_state *s,
				    const struct sim_request *rq)
{
	struct pf_state *pf = find_pf(h, s, rq->pf);

	if (!pf)
		return -ENODEV;
	if (!driver_info_get(pf->driver)->firmware_link_type || !pf->has_firmware_link_type) {
		host_set_error(h, "%s has no firmware link type", pf->pci);
		return -EOPNOTSUPP;
	}
	pf->firmware_link_type = (enum link_type)rq->a->value;
	return 0;
}

/* The firmware places the VFs of a card's ports one range after another:
 * a limit the reset raised moves a later port's first VF past the last
 * one of the ports before it, so that no two VFs share an address (a host
 * where they would is no snapshot). Ports in the snapshot's PCI order. */
static void place_card_vfs(struct host_state *s, const struct pf_state *pf)
{
	uint64_t next = 0;

	for (size_t i = 0; i < s->n_pfs; i++) {
		struct pf_state *p = &s->pfs[i];
		uint32_t domain, rid;
		uint64_t last;

		if (!pci_same_device(p->pci, pf->pci) || p->total_vfs == 0 || p->vf_offset == 0 ||
		    pci_addr_parse(p->pci, &domain, &rid) < 0)
			continue;
		if (next > (uint64_t)rid + p->vf_offset && next - rid <= 0xffff)
			p->vf_offset = (unsigned)(next - rid);
		last = (uint64_t)rid + p->vf_offset + (uint64_t)(p->total_vfs - 1) * p->vf_stride;
		if (last + 1 > next)
			next = last + 1;
	}
}

/* mlxfwreset --level 3 reset: the tool writes 0 VFs to the card's PFs
 * (ours does so first, for VFs bound to vfio-pci the tool would refuse),
 * restarts the firmware, which then runs with its next-boot settings, and
 * reloads mlx5_core, which starts in legacy eswitch mode. */
static int k_firmware_reset(struct host *h, struct host_state *s, const struct sim_request *rq)
{
	struct pf_state *pf = find_pf(h, s, rq->pf);
	const struct driver_info *di;

	if (!pf)
		return -ENODEV;
	di = driver_info_get(pf->driver);
	if (!di->firmware_vfs && !di->firmware_link_type) {
		host_set_error(h, "%s has no firmware reset", strna(pf->driver));
		return -EOPNOTSUPP;
	}
	for (size_t i = 0; i < s->n_pfs; i++) {
		struct pf_state *p = &s->pfs[i];

		if (!pci_same_device(p->pci, pf->pci))
			continue;
		destroy_vfs(p);
		if (p->has_eswitch)
			p->eswitch_mode = ESWITCH_MODE_LEGACY;
		if (rq->no_effect)
			continue;
		if (p->firmware_total_vfs >= 0)
			p->total_vfs = (unsigned)p->firmware_total_vfs;
		if (p->has_firmware_link_type)
			p->link_type = p->firmware_link_type;
	}
	if (!rq->no_effect)
		place_card_vfs(s, pf);
	return 0;
}

static int (*const rules[_ACTION_TYPE_MAX])(struct host *h, struct host_state *s,
					    const struct sim_request *rq) = {
	[ACTION_LOAD_MODULE] = k_load_module,
	[ACTION_SET_NUM_VFS] = k_set_num_vfs,
	[ACTION_SET_ESWITCH_MODE] = k_set_eswitch_mode,
	[ACTION_SET_HW_TC_OFFLOAD] = k_set_hw_tc_offload,
	[ACTION_SET_PF_MTU] = k_set_pf_mtu,
	[ACTION_SET_PF_UP] = k_set_pf_up,
	[ACTION_SET_AUTOPROBE] = k_set_autoprobe,
	[ACTION_SET_VF] = sim_kernel_set_vf,
	[ACTION_UNBIND_VF] = k_unbind_vf,
	[ACTION_BIND_VF] = k_bind_vf,
	[ACTION_SET_VF_MTU] = k_set_vf_mtu,
	[ACTION_SET_FIRMWARE_VFS] = k_set_firmware_vfs,
	[ACTION_SET_LINK_TYPE] = k_set_firmware_link_type,
	[ACTION_SET_RDMA_NETNS_MODE] = k_set_rdma_netns_mode,
	[ACTION_SET_REPRESENTOR_UP] = k_set_representor_up,
	[ACTION_SET_KERNEL_ARGUMENTS] = k_set_kernel_arguments,
	[ACTION_FIRMWARE_RESET] = k_firmware_reset,
};

int sim_kernel_apply(struct host *h, struct host_state *s, const struct sim_request *rq)
{
	if (rq->a->type < 0 || rq->a->type >= _ACTION_TYPE_MAX)
		return -EINVAL;
	return rules[rq->a->type](h, s, rq);
}
