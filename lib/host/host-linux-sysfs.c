/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* PCI functions of the Linux host through sysfs, the reading side: listing
 * PFs, reading what sysfs knows of a PF and its VFs, netdev ifindexes and
 * IOMMU groups, and the small attribute and directory helpers that
 * host-linux-write.c shares. Every path is opened with openat() below the
 * sysfs root descriptor. */

#include <dirent.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <net/if.h>
#include <sys/stat.h>

#include "drivers.h"
#include "host-linux-internal.h"

#define ATTR_MAX 4096
#define ARPHRD_INFINIBAND_ 32 /* class/net/<name>/type of an IPoIB netdev */

static inline void closedirp(DIR **d)
{
	if (*d)
		closedir(*d);
}
#define _cleanup_closedir_ _cleanup_(closedirp)

/* One attribute's value without its trailing newline. Not through
 * open_regular_at(): the kernel's own attributes, many per VF at every read
 * of the host, are regular files; one fstat() each would be waste. */
static int read_attr(int dirfd, const char *attr, char buf[static ATTR_MAX])
{
	_cleanup_close_ int fd = openat(dirfd, attr, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	ssize_t n;

	if (fd < 0)
		return -errno;
	do
		n = read(fd, buf, ATTR_MAX - 1);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

int hl_read_u32(int dirfd, const char *attr, int base, uint32_t *ret)
{
	char buf[ATTR_MAX];
	int r = read_attr(dirfd, attr, buf);

	return r < 0 ? r : safe_atou32(buf, base, ret);
}

/* A PCI ID, "0x8086". */
static int read_id(int dirfd, const char *attr, uint16_t *ret)
{
	uint32_t v;
	int r = hl_read_u32(dirfd, attr, 16, &v);

	if (r < 0)
		return r;
	if (v > UINT16_MAX)
		return -ERANGE;
	*ret = (uint16_t)v;
	return 0;
}

/* The last component of a symbolic link's target: a driver or device name. */
static int read_link_name(int dirfd, const char *link, char **ret)
{
	char buf[PATH_MAX];
	ssize_t n = readlinkat(dirfd, link, buf, sizeof(buf) - 1);
	const char *name;
	char *s;

	if (n < 0)
		return -errno;
	buf[n] = '\0';
	name = path_last_component(buf);
	if (*name == '\0')
		return -EINVAL;
	s = strdup(name);
	if (!s)
		return -ENOMEM;
	*ret = s;
	return 0;
}

int hl_list_dir(int dirfd, const char *sub, char ***ret)
{
	_cleanup_strv_free_ char **l = calloc(1, sizeof(char *));
	_cleanup_closedir_ DIR *d = NULL;
	int fd, r;

	if (!l)
		return -ENOMEM;
	fd = openat(dirfd, sub, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 && errno != ENOENT)
		return -errno;
	if (fd >= 0) {
		d = fdopendir(fd);
		if (!d) {
			r = -errno;
			close(fd);
			return r;
		}
		for (struct dirent *de; (errno = 0, de = readdir(d));)
			if (de->d_name[0] != '.' && (r = strv_extend(&l, de->d_name)) < 0)
				return r;
		if (errno != 0)
			return -errno;
	}
	strv_sort(l);
	*ret = TAKE_PTR(l);
	return 0;
}

/* class/net/<name>, for a name found in sysfs. */
static int open_netdev(struct host_linux *hl, const char *ifname, int *ret_fd)
{
	char path[64];
	int fd;

	if (!ifname_is_valid(ifname))
		return -EINVAL;
	snprintf(path, sizeof(path), "class/net/%s", ifname);
	fd = openat(hl->sysfs_fd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	*ret_fd = fd;
	return 0;
}

static int netdev_read_u32(struct host_linux *hl, const char *ifname, const char *attr,
			   uint32_t *ret)
{
	_cleanup_close_ int fd = -EBADF;
	int r = open_netdev(hl, ifname, &fd);

	return r < 0 ? r : hl_read_u32(fd, attr, 10, ret);
}

int hl_ifindex(struct host_linux *hl, const char *ifname, int *ret)
{
	uint32_t v;
	int r = netdev_read_u32(hl, ifname, "ifindex", &v);

	if (r >= 0 && (v == 0 || v > INT_MAX))
		r = -ERANGE;
	if (r < 0) {
		host_set_error(&hl->host, "no ifindex for %s: %s", ifname, strerror(-r));
		return r;
	}
	*ret = (int)v;
	return 0;
}

/* The uplink among several netdevs of a PF (switchdev representors share
 * its net/ directory): no phys_port_name, or a physical port's "p0" or
 * "p0s1" rather than a representor's "pf0vf3" or "c1pf0sf2". */
static bool netdev_is_uplink(struct host_linux *hl, const char *ifname)
{
	_cleanup_close_ int fd = -EBADF;
	char buf[ATTR_MAX];

	if (open_netdev(hl, ifname, &fd) < 0 || read_attr(fd, "phys_port_name", buf) < 0)
		return true;
	return buf[0] == '\0' || (buf[0] == 'p' && buf[1] >= '0' && buf[1] <= '9');
}

/* The netdev of a PCI function (net/<name>), NULL when it has none. */
static int read_netdev(struct host_linux *hl, int dev_fd, char **ret)
{
	_cleanup_strv_free_ char **names = NULL;
	const char *pick;
	char *s;
	int r;

	r = hl_list_dir(dev_fd, "net", &names);
	if (r < 0)
		return r;
	pick = names[0];
	for (char **n = names; pick && names[1] && *n; n++)
		if (netdev_is_uplink(hl, *n)) {
			pick = *n;
			break;
		}
	s = pick ? strdup(pick) : NULL;
	if (pick && !s)
		return -ENOMEM;
	*ret = s;
	return 0;
}

int hl_netdev_ifindex(struct host_linux *hl, const char *pci, int vf, int *ret)
{
	_cleanup_close_ int pf_fd = -EBADF, vf_fd = -EBADF;
	_cleanup_free_ char *name = NULL;
	char vf_pci[PCI_ADDR_MAX];
	int r;

	r = hl_open_pci(hl, pci, &pf_fd);
	if (r >= 0 && vf >= 0) {
		r = hl_open_virtfn(pf_fd, (uint32_t)vf, vf_pci, &vf_fd);
		if (r < 0)
			host_set_error(&hl->host, "VF %d of %s does not exist", vf, pci);
	}
	if (r >= 0)
		r = read_netdev(hl, vf >= 0 ? vf_fd : pf_fd, &name);
	if (r < 0)
		return r;
	if (!name) {
		if (vf >= 0)
			host_set_error(&hl->host, "VF %d has no network interface", vf);
		else
			host_set_error(&hl->host, "the PF has no network interface");
		return -ENODEV;
	}
	return hl_ifindex(hl, name, ret);
}

int hl_read_driver(int dev_fd, char **ret)
{
	int r = read_link_name(dev_fd, "driver", ret);

	if (r == -ENOENT) {
		*ret = NULL;
		return 0;
	}
	return r;
}

int hl_open_pci(struct host_linux *hl, const char *pci, int *ret_fd)
{
	char path[64];
	int fd;

	if (!pci_addr_is_valid(pci)) {
		host_set_error(&hl->host, "invalid PCI address \"%s\"", pci);
		return -EINVAL;
	}
	snprintf(path, sizeof(path), "bus/pci/devices/%s", pci);
	fd = openat(hl->sysfs_fd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		int r = errno == ENOENT ? -ENODEV : -errno;

		host_set_error(&hl->host, "no PCI device %s", pci);
		return r;
	}
	*ret_fd = fd;
	return 0;
}

int hl_list_pfs(struct host_linux *hl, char ***ret)
{
	_cleanup_strv_free_ char **all = NULL, **pfs = calloc(1, sizeof(char *));
	int r;

	if (!pfs)
		return -ENOMEM;
	r = hl_list_dir(hl->sysfs_fd, "bus/pci/devices", &all);
	if (r < 0) {
		host_set_error(&hl->host, "listing PCI devices: %s", strerror(-r));
		return r;
	}
	for (char **a = all; *a; a++) {
		char path[64];

		if (!pci_addr_is_valid(*a))
			continue;
		snprintf(path, sizeof(path), "bus/pci/devices/%s/sriov_totalvfs", *a);
		if (faccessat(hl->sysfs_fd, path, F_OK, 0) < 0)
			continue;
		r = strv_extend(&pfs, *a);
		if (r < 0)
			return r;
	}
	*ret = TAKE_PTR(pfs); /* sorted: hl_list_dir sorts, and addresses have a fixed width */
	return 0;
}

int hl_open_virtfn(int pf_fd, uint32_t vf, char pci[static PCI_ADDR_MAX], int *ret_fd)
{
	_cleanup_free_ char *addr = NULL;
	char link[32];
	int fd, r;

	snprintf(link, sizeof(link), "virtfn%" PRIu32, vf);
	r = read_link_name(pf_fd, link, &addr);
	if (r < 0)
		return r;
	if (!pci_addr_is_valid(addr))
		return -EINVAL;
	fd = openat(pf_fd, link, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	snprintf(pci, PCI_ADDR_MAX, "%s", addr);
	*ret_fd = fd;
	return 0;
}

static int read_vf(struct host_linux *hl, int pf_fd, unsigned index, struct vf_state *ret)
{
	_cleanup_(vf_state_done) struct vf_state vf = { .index = index };
	_cleanup_close_ int fd = -EBADF;
	struct stat st;
	int r;

	/* what the driver does not report (netlink) stays the kernel's default */
	vf_attrs_init(&vf.attrs);
	r = hl_open_virtfn(pf_fd, index, vf.pci, &fd);
	if (r < 0)
		return r;
	r = hl_read_driver(fd, &vf.attrs.driver);
	if (r >= 0)
		r = read_netdev(hl, fd, &vf.name);
	if (r < 0)
		return r;
	/* a netdev that went away between the two reads has no MTU */
	if (vf.name && netdev_read_u32(hl, vf.name, "mtu", &vf.attrs.mtu) < 0)
		vf.attrs.mtu = 0;
	vf.attrs.rdma = fstatat(fd, "infiniband", &st, 0) >= 0 && S_ISDIR(st.st_mode);
	*ret = vf;
	vf = (struct vf_state){};
	return 0;
}

/* virtfn0, virtfn1 ... until the first one missing. */
static int read_vfs(struct host_linux *hl, int pf_fd, struct pf_state *pf)
{
	for (unsigned i = 0; i < pf->total_vfs; i++) {
		struct vf_state vf, *vfs;
		int r = read_vf(hl, pf_fd, i, &vf);

		if (r == -ENOENT)
			break;
		if (r < 0)
			return r;
		vfs = reallocarray(pf->vfs, pf->n_vfs + 1, sizeof(*vfs));
		if (!vfs) {
			vf_state_done(&vf);
			return -ENOMEM;
		}
		pf->vfs = vfs;
		pf->vfs[pf->n_vfs++] = vf;
	}
	return 0;
}

/* The numeric attributes of a PF; optional ones are missing on older kernels. */
static const struct pf_attr {
	const char *name;
	bool id; /* a 16-bit "0x8086", else a decimal unsigned */
	bool optional;
	size_t offset;
} pf_attrs[] = {
	{ "vendor", true, false, offsetof(struct pf_state, vendor) },
	{ "device", true, false, offsetof(struct pf_state, device) },
	{ "sriov_vf_device", true, true, offsetof(struct pf_state, vf_device) },
	{ "sriov_totalvfs", false, false, offsetof(struct pf_state, total_vfs) },
	{ "sriov_numvfs", false, false, offsetof(struct pf_state, num_vfs) },
	{ "sriov_offset", false, false, offsetof(struct pf_state, vf_offset) },
	{ "sriov_stride", false, false, offsetof(struct pf_state, vf_stride) },
};

static int read_pf_attrs(int fd, struct pf_state *pf, const char **ret_what)
{
	char buf[ATTR_MAX];
	uint32_t autoprobe;
	int r;

	for (size_t i = 0; i < ELEMENTSOF(pf_attrs); i++) {
		const struct pf_attr *a = &pf_attrs[i];
		void *dest = (char *)pf + a->offset;

		r = a->id ? read_id(fd, a->name, dest) : hl_read_u32(fd, a->name, 10, dest);
		if (r < 0 && !(r == -ENOENT && a->optional)) {
			*ret_what = a->name;
			return r;
		}
	}
	/* -1 on machines without NUMA, and no file on kernels without it */
	r = read_attr(fd, "numa_node", buf);
	if (r >= 0)
		r = safe_atoi(buf, &pf->numa_node);
	if (r < 0 && r != -ENOENT) {
		*ret_what = "numa_node";
		return r;
	}
	/* 0 or 1; there since Linux 4.12 */
	r = hl_read_u32(fd, "sriov_drivers_autoprobe", 10, &autoprobe);
	if (r < 0 && r != -ENOENT) {
		*ret_what = "sriov_drivers_autoprobe";
		return r;
	}
	pf->drivers_autoprobe = r < 0 || autoprobe != 0;
	return 0;
}

static int read_pf_netdev(struct host_linux *hl, int fd, struct pf_state *pf)
{
	uint32_t type;
	int r;

	r = read_netdev(hl, fd, &pf->name);
	if (r < 0 || !pf->name)
		return r;
	if (netdev_read_u32(hl, pf->name, "type", &type) >= 0 && type == ARPHRD_INFINIBAND_)
		pf->link_type = LINK_TYPE_INFINIBAND;
	/* EINVAL while the netdev is down, "-1" while its link is: unknown */
	if (netdev_read_u32(hl, pf->name, "speed", &pf->speed) < 0)
		pf->speed = 0;
	pf->firmware_link_type = pf->link_type;
	return 0;
}

/* Switchdev representors share the PF's net/ directory; a VF's is the one
 * whose phys_port_name is pf<N>vf<index> (mlx5, ice, netdevsim; "c1pf0vf1",
 * a VF of another controller, is not ours). Whether netdev name is one: its
 * VF index, and whether it is up (IFF_UP in its flags). */
static bool representor_of(struct host_linux *hl, const char *name, unsigned *ret_vf, bool *ret_up)
{
	_cleanup_close_ int fd = -EBADF;
	char buf[ATTR_MAX];
	unsigned pfn, vf;
	uint32_t flags = 0;
	int end = 0;

	if (open_netdev(hl, name, &fd) < 0 || read_attr(fd, "phys_port_name", buf) < 0)
		return false;
	buf[strcspn(buf, "\n")] = '\0';
	if (sscanf(buf, "pf%uvf%u%n", &pfn, &vf, &end) != 2 || buf[end] != '\0')
		return false;
	if (hl_read_u32(fd, "flags", 16, &flags) < 0)
		return false; /* gone meanwhile */
	*ret_vf = vf;
	*ret_up = flags & IFF_UP;
	return true;
}

int hl_read_representors(struct host_linux *hl, int dev_fd, struct pf_state *pf)
{
	_cleanup_strv_free_ char **names = NULL;
	int r;

	r = hl_list_dir(dev_fd, "net", &names);
	if (r == -ENOENT)
		return 0;
	if (r < 0)
		return r;
	for (char **n = names; *n; n++) {
		unsigned vf;
		bool up;

		if (!representor_of(hl, *n, &vf, &up) || vf >= pf->n_vfs)
			continue;
		if (free_and_strdup(&pf->vfs[vf].representor, *n) < 0)
			return -ENOMEM;
		pf->vfs[vf].representor_up = up;
	}
	return 0;
}

int hl_find_representor(struct host_linux *hl, const char *pci, uint32_t vf, char **ret)
{
	_cleanup_strv_free_ char **names = NULL;
	_cleanup_close_ int fd = -EBADF;
	int r;

	r = hl_open_pci(hl, pci, &fd);
	if (r >= 0)
		r = hl_list_dir(fd, "net", &names);
	if (r < 0 && r != -ENOENT)
		return r;
	for (char **n = names; n && *n; n++) {
		unsigned i;
		bool up;

		if (representor_of(hl, *n, &i, &up) && i == vf)
			return (*ret = strdup(*n)) ? 0 : -ENOMEM;
	}
	host_set_error(&hl->host, "VF %u has no representor", vf);
	return -ENODEV;
}

static int read_pf(struct host_linux *hl, int fd, struct pf_state *pf, const char **ret_what)
{
	const struct driver_info *di;
	int r;

	r = read_pf_attrs(fd, pf, ret_what);
	if (r < 0)
		return r;
	*ret_what = "driver";
	r = hl_read_driver(fd, &pf->driver);
	if (r < 0)
		return r;
	*ret_what = "net";
	r = read_pf_netdev(hl, fd, pf);
	if (r < 0)
		return r;
	*ret_what = "virtfn links";
	r = read_vfs(hl, fd, pf);
	if (r < 0)
		return r;
	*ret_what = "representors";
	r = hl_read_representors(hl, fd, pf);
	if (r < 0)
		return r;
	/* the kernel's default VF driver comes from the drivers table: a
	 * PF driver it does not know has none */
	di = pf->driver ? driver_info_find(pf->driver) : NULL;
	if (di && di->vf_driver && !(pf->vf_driver = strdup(di->vf_driver)))
		return -ENOMEM;
	return 0;
}

int hl_read_pf_sysfs(struct host_linux *hl, const char *pci, struct pf_state *ret)
{
	_cleanup_(pf_state_done) struct pf_state pf = { .numa_node = -1,
							.firmware_total_vfs = -1,
							.link_type = LINK_TYPE_ETHERNET,
							.firmware_link_type = LINK_TYPE_ETHERNET };
	_cleanup_close_ int fd = -EBADF;
	const char *what = "";
	int r;

	r = hl_open_pci(hl, pci, &fd);
	if (r < 0)
		return r;
	snprintf(pf.pci, sizeof(pf.pci), "%s", pci);
	r = read_pf(hl, fd, &pf, &what);
	if (r < 0) {
		host_set_error(&hl->host, "%s: reading %s: %s", pci, what, strerror(-r));
		return r;
	}
	*ret = pf;
	pf = (struct pf_state){};
	return 0;
}

/* ib_core's netns_mode parameter is the variable rdma system set netns
 * changes: Y shared, N exclusive. Without ib_core there is no mode (and
 * nothing here loads it: opening an RDMA netlink socket would). */
void hl_read_rdma_netns(struct host_linux *hl, struct host_state *s)
{
	_cleanup_free_ char *text = NULL;

	s->has_rdma_netns_mode = false;
	if (read_file_at(hl->sysfs_fd, "module/ib_core/parameters/netns_mode", 16, &text, NULL) < 0)
		return;
	if (text[0] != 'Y' && text[0] != 'N')
		return;
	s->has_rdma_netns_mode = true;
	s->rdma_netns_mode = text[0] == 'Y' ? RDMA_NETNS_MODE_SHARED : RDMA_NETNS_MODE_EXCLUSIVE;
}

bool hl_iommu_groups(struct host_linux *hl)
{
	_cleanup_strv_free_ char **groups = NULL;

	return hl_list_dir(hl->sysfs_fd, "kernel/iommu_groups", &groups) >= 0 && groups[0];
}
