/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* The sysfs part of the Linux backend against a fake sysfs tree built in a
 * temporary directory: listing and reading PFs and VFs, the bounded write in
 * a child process, and the refusals of set_num_vfs and bind that come before
 * any write, and the list of loaded modules. What needs a real kernel
 * (uevents, netlink, loading a module) is tested in the VM. */

#include <fcntl.h>
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>

#include <cmocka.h>

#include "host-linux-internal.h"

#define ICE_PF "0000:01:00.0"
#define IGB_PF "0000:02:00.0"
#define MLX_PF "0000:03:00.0"
#define BARE_PF "0000:04:00.0"
#define BUS "devices/pci0000:00/0000:00:01.0/"
#define MS USEC_PER_MSEC

static char root[64];
static struct host_linux hl;

static void path_at(char *buf, size_t size, const char *rel)
{
	assert_true((size_t)snprintf(buf, size, "%s/%s", root, rel) < size);
}

static void mkdir_rel(const char *rel)
{
	char p[512];

	path_at(p, sizeof(p), rel);
	assert_int_equal(mkdir_p(p, 0755), 0);
}

static void put(const char *content, const char *fmt, ...) _printf_(2, 3);
static void put(const char *content, const char *fmt, ...)
{
	char rel[256], p[512], *slash;
	va_list ap;
	FILE *f;

	va_start(ap, fmt);
	vsnprintf(rel, sizeof(rel), fmt, ap);
	va_end(ap);
	slash = strrchr(rel, '/');
	*slash = '\0';
	mkdir_rel(rel);
	*slash = '/';
	path_at(p, sizeof(p), rel);
	f = fopen(p, "we");
	assert_non_null(f);
	fputs(content, f);
	assert_int_equal(fclose(f), 0);
}

/* rel -> target; a target without a leading '/' is relative to the link
 * (as the kernel writes virtfn links), else under root. */
static void link_to(const char *target, const char *rel)
{
	char p[512], t[512], dir[256];

	snprintf(dir, sizeof(dir), "%.*s", (int)(strrchr(rel, '/') - rel), rel);
	mkdir_rel(dir);
	path_at(p, sizeof(p), rel);
	if (target[0] == '/')
		path_at(t, sizeof(t), target + 1);
	else
		snprintf(t, sizeof(t), "%s", target);
	assert_int_equal(symlink(t, p), 0);
}

static char *slurp(const char *rel)
{
	static char buf[256];
	char p[512];
	FILE *f;
	size_t n;

	path_at(p, sizeof(p), rel);
	f = fopen(p, "re");
	assert_non_null(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	return buf;
}

/* A PCI function under BUS, in bus/pci/devices, bound to driver (NULL: none). */
static void pci_dev(const char *addr, const char *driver)
{
	char rel[256], t[300];

	snprintf(rel, sizeof(rel), BUS "%s", addr);
	mkdir_rel(rel);
	snprintf(t, sizeof(t), "/%s", rel);
	snprintf(rel, sizeof(rel), "bus/pci/devices/%s", addr);
	link_to(t, rel);
	if (!driver)
		return;
	snprintf(rel, sizeof(rel), "bus/pci/drivers/%s", driver);
	mkdir_rel(rel);
	put("", "bus/pci/drivers/%s/unbind", driver);
	snprintf(t, sizeof(t), "/bus/pci/drivers/%s", driver);
	snprintf(rel, sizeof(rel), BUS "%s/driver", addr);
	link_to(t, rel);
}

static void pf_attrs(const char *addr, const char *vendor, const char *device,
		     const char *vf_device, const char *total, const char *num, const char *offset,
		     const char *stride, const char *numa)
{
	put(vendor, BUS "%s/vendor", addr);
	put(device, BUS "%s/device", addr);
	put(vf_device, BUS "%s/sriov_vf_device", addr);
	put(total, BUS "%s/sriov_totalvfs", addr);
	put(num, BUS "%s/sriov_numvfs", addr);
	put(offset, BUS "%s/sriov_offset", addr);
	put(stride, BUS "%s/sriov_stride", addr);
	put(numa, BUS "%s/numa_node", addr);
}

/* net/<name> of a device, and class/net/<name> pointing to it. */
static void netdev(const char *addr, const char *name, const char *mtu, const char *ifindex,
		   const char *type)
{
	char rel[256], t[300];

	put(mtu, BUS "%s/net/%s/mtu", addr, name);
	put(ifindex, BUS "%s/net/%s/ifindex", addr, name);
	put(type, BUS "%s/net/%s/type", addr, name);
	snprintf(t, sizeof(t), "/" BUS "%s/net/%s", addr, name);
	snprintf(rel, sizeof(rel), "class/net/%s", name);
	link_to(t, rel);
}

static void virtfn(const char *pf, unsigned i, const char *vf, const char *driver)
{
	char rel[256], t[64];

	pci_dev(vf, driver);
	put("0x8086\n", BUS "%s/vendor", vf);
	put("", BUS "%s/driver_override", vf);
	snprintf(t, sizeof(t), "../%s", vf);
	snprintf(rel, sizeof(rel), BUS "%s/virtfn%u", pf, i);
	link_to(t, rel);
}

/* E810-like: ice, VF 0 iavf with a netdev and RDMA, VF 1 unbound, VF 2
 * vfio-pci (no netdev, an IOMMU group); a switchdev representor beside the
 * uplink netdev. */
static void make_ice(void)
{
	pci_dev(ICE_PF, "ice");
	pf_attrs(ICE_PF, "0x8086\n", "0x159b\n", "0x1889\n", "128\n", "3\n", "8\n", "1\n", "0\n");
	put("0\n", BUS ICE_PF "/sriov_drivers_autoprobe");
	netdev(ICE_PF, "ens1f0", "1500\n", "4\n", "1\n");
	put("25000\n", BUS "%s/net/%s/speed", ICE_PF, "ens1f0");
	put("p0\n", BUS ICE_PF "/net/ens1f0/phys_port_name");
	netdev(ICE_PF, "enp0rep", "1500\n", "9\n", "1\n");
	put("pf0vf0\n", BUS ICE_PF "/net/enp0rep/phys_port_name");
	put("0x1002\n", BUS ICE_PF "/net/enp0rep/flags"); /* IFF_UP clear */
	virtfn(ICE_PF, 0, "0000:01:01.0", "iavf");
	netdev("0000:01:01.0", "ens1f0v0", "9000\n", "10\n", "1\n");
	mkdir_rel(BUS "0000:01:01.0/infiniband/irdma0");
	virtfn(ICE_PF, 1, "0000:01:01.1", NULL);
	virtfn(ICE_PF, 2, "0000:01:01.2", "vfio-pci");
	mkdir_rel("kernel/iommu_groups/7");
	link_to("/kernel/iommu_groups/7", BUS "0000:01:01.2/iommu_group");
}

/* 82576-like: igb, two VFs on igbvf, offset 128 stride 2, no NUMA. */
static void make_igb(void)
{
	pci_dev(IGB_PF, "igb");
	pf_attrs(IGB_PF, "0x8086\n", "0x10c9\n", "0x10ca\n", "7\n", "2\n", "128\n", "2\n", "-1\n");
	netdev(IGB_PF, "enp2s0", "1500\n", "2\n", "1\n");
	put("-1\n", BUS "%s/net/%s/speed", IGB_PF, "enp2s0"); /* link down */
	virtfn(IGB_PF, 0, "0000:02:10.0", "igbvf");
	netdev("0000:02:10.0", "enp2s0v0", "1500\n", "5\n", "1\n");
	virtfn(IGB_PF, 1, "0000:02:10.2", "igbvf");
	netdev("0000:02:10.2", "enp2s0v1", "1500\n", "6\n", "1\n");
}

static int setup(void **state)
{
	char p[512];

	snprintf(root, sizeof(root), "/tmp/test-host-linux-sysfs.XXXXXX");
	assert_non_null(mkdtemp(root));
	make_ice();
	make_igb();
	/* ConnectX-6 VPI port in InfiniBand mode, no VFs */
	pci_dev(MLX_PF, "mlx5_core");
	pf_attrs(MLX_PF, "0x15b3\n", "0x101b\n", "0x101c\n", "8\n", "0\n", "2\n", "1\n", "1\n");
	netdev(MLX_PF, "ibp3s0", "2044\n", "7\n", "32\n");
	/* an SR-IOV device without a driver, so without a netdev */
	pci_dev(BARE_PF, NULL);
	pf_attrs(BARE_PF, "0x1af4\n", "0x1041\n", "0x1041\n", "4\n", "0\n", "1\n", "1\n", "-1\n");
	/* the bridge has no sriov_totalvfs; a stray entry is not an address */
	pci_dev("0000:00:01.0", "pcieport");
	mkdir_rel("bus/pci/devices/not-a-device");
	put("", "bus/pci/drivers_probe");
	path_at(p, sizeof(p), "");
	hl = (struct host_linux){ .host.lock_fd = -EBADF,
				  .sysfs_fd = open(p, O_PATH | O_DIRECTORY | O_CLOEXEC),
				  .procfs_fd = -EBADF,
				  .settle_timeout = 200 * MS };
	assert_true(hl.sysfs_fd >= 0);
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	close(hl.sysfs_fd);
	if (hl.udev)
		udev_unref(hl.udev);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	assert_int_equal(system(cmd), 0);
	return 0;
}

static void move(const char *from, const char *to)
{
	char a[512], b[512];

	path_at(a, sizeof(a), from);
	path_at(b, sizeof(b), to);
	assert_int_equal(rename(a, b), 0);
}

static void test_list_pfs(void **state)
{
	char **pfs = NULL;

	assert_int_equal(hl_list_pfs(&hl, &pfs), 0);
	assert_int_equal(strv_length(pfs), 4);
	assert_string_equal(pfs[0], ICE_PF);
	assert_string_equal(pfs[1], IGB_PF);
	assert_string_equal(pfs[2], MLX_PF);
	assert_string_equal(pfs[3], BARE_PF);
	strv_free(pfs);
}

static void test_open_pci(void **state)
{
	int fd = -EBADF;

	assert_int_equal(hl_open_pci(&hl, "../../../etc", &fd), -EINVAL);
	assert_non_null(strstr(hl.host.error, "invalid PCI address"));
	assert_int_equal(hl_open_pci(&hl, "0000:99:00.0", &fd), -ENODEV);
	assert_int_equal(fd, -EBADF);
	assert_int_equal(hl_open_pci(&hl, ICE_PF, &fd), 0);
	assert_true(fd >= 0);
	close(fd);
}

static void test_read_ice(void **state)
{
	struct pf_state pf = {};

	assert_int_equal(hl_read_pf_sysfs(&hl, ICE_PF, &pf), 0);
	assert_string_equal(pf.pci, ICE_PF);
	assert_int_equal(pf.vendor, 0x8086);
	assert_int_equal(pf.device, 0x159b);
	assert_int_equal(pf.vf_device, 0x1889);
	assert_string_equal(pf.driver, "ice");
	assert_string_equal(pf.vf_driver, "iavf");
	assert_string_equal(pf.name, "ens1f0"); /* the uplink, not the representor */
	assert_int_equal(pf.total_vfs, 128);
	assert_int_equal(pf.num_vfs, 3);
	assert_int_equal(pf.vf_offset, 8);
	assert_int_equal(pf.vf_stride, 1);
	assert_int_equal(pf.numa_node, 0);
	assert_int_equal(pf.speed, 25000);
	assert_int_equal(pf.link_type, LINK_TYPE_ETHERNET);
	assert_int_equal(pf.firmware_total_vfs, -1);
	assert_false(pf.drivers_autoprobe);
	assert_int_equal(pf.n_vfs, 3);

	assert_int_equal(pf.vfs[0].index, 0);
	assert_string_equal(pf.vfs[0].pci, "0000:01:01.0");
	assert_string_equal(pf.vfs[0].attrs.driver, "iavf");
	assert_string_equal(pf.vfs[0].name, "ens1f0v0");
	assert_int_equal(pf.vfs[0].attrs.mtu, 9000);
	assert_true(pf.vfs[0].attrs.rdma);

	/* unbound */
	assert_int_equal(pf.vfs[1].index, 1);
	assert_string_equal(pf.vfs[1].pci, "0000:01:01.1");
	assert_null(pf.vfs[1].attrs.driver);
	assert_null(pf.vfs[1].name);
	assert_int_equal(pf.vfs[1].attrs.mtu, 0);
	assert_false(pf.vfs[1].attrs.rdma);

	/* vfio-pci: no netdev */
	assert_string_equal(pf.vfs[2].pci, "0000:01:01.2");
	assert_string_equal(pf.vfs[2].attrs.driver, "vfio-pci");
	assert_null(pf.vfs[2].name);
	assert_int_equal(pf.vfs[2].attrs.mtu, 0);

	/* VF 0's representor (pf0vf0), down; the uplink (p0) is nobody's */
	assert_string_equal(pf.vfs[0].representor, "enp0rep");
	assert_false(pf.vfs[0].representor_up);
	assert_null(pf.vfs[1].representor);
	assert_null(pf.vfs[2].representor);
	pf_state_done(&pf);
}

static void test_find_representor(void **state)
{
	char *name = NULL;

	assert_int_equal(hl_find_representor(&hl, ICE_PF, 0, &name), 0);
	assert_string_equal(name, "enp0rep");
	free(name);
	assert_int_equal(hl_find_representor(&hl, ICE_PF, 1, &name), -ENODEV);
	assert_string_equal(hl.host.error, "VF 1 has no representor");
	assert_int_equal(hl_find_representor(&hl, IGB_PF, 0, &name), -ENODEV);
}

static void test_read_igb(void **state)
{
	struct pf_state pf = {};

	assert_int_equal(hl_read_pf_sysfs(&hl, IGB_PF, &pf), 0);
	assert_int_equal(pf.device, 0x10c9);
	assert_int_equal(pf.vf_device, 0x10ca);
	assert_string_equal(pf.driver, "igb");
	assert_string_equal(pf.vf_driver, "igbvf");
	assert_true(pf.drivers_autoprobe); /* no file (before Linux 4.12): on, as it was */
	assert_string_equal(pf.name, "enp2s0");
	assert_int_equal(pf.total_vfs, 7);
	assert_int_equal(pf.vf_offset, 128);
	assert_int_equal(pf.vf_stride, 2);
	assert_int_equal(pf.numa_node, -1);
	assert_int_equal(pf.speed, 0); /* "-1": the link is down */
	assert_int_equal(pf.n_vfs, 2);
	assert_string_equal(pf.vfs[1].pci, "0000:02:10.2");
	assert_string_equal(pf.vfs[1].name, "enp2s0v1");
	assert_string_equal(pf.vfs[1].attrs.driver, "igbvf");
	assert_int_equal(pf.vfs[1].attrs.mtu, 1500);
	assert_false(pf.vfs[1].attrs.rdma);
	pf_state_done(&pf);
}

static void test_read_other_pfs(void **state)
{
	struct pf_state pf = {};

	assert_int_equal(hl_read_pf_sysfs(&hl, MLX_PF, &pf), 0);
	assert_string_equal(pf.name, "ibp3s0");
	assert_int_equal(pf.link_type, LINK_TYPE_INFINIBAND);
	assert_int_equal(pf.firmware_link_type, LINK_TYPE_INFINIBAND);
	assert_string_equal(pf.vf_driver, "mlx5_core");
	assert_int_equal(pf.n_vfs, 0);
	assert_null(pf.vfs);
	pf_state_done(&pf);

	assert_int_equal(hl_read_pf_sysfs(&hl, BARE_PF, &pf), 0);
	assert_null(pf.driver);
	assert_null(pf.vf_driver);
	assert_null(pf.name);
	assert_int_equal(pf.vendor, 0x1af4);
	assert_int_equal(pf.total_vfs, 4);
	pf_state_done(&pf);

	/* a broken attribute fails the read, naming it; ret stays untouched */
	put("lots\n", BUS BARE_PF "/sriov_offset");
	pf.total_vfs = 77;
	assert_int_equal(hl_read_pf_sysfs(&hl, BARE_PF, &pf), -EINVAL);
	assert_int_equal(pf.total_vfs, 77);
	assert_non_null(strstr(hl.host.error, "sriov_offset"));
	put("1\n", BUS BARE_PF "/sriov_offset");
	assert_int_equal(hl_read_pf_sysfs(&hl, "0000:00:01.0", &pf), -ENOENT);
}

static void test_ifindex_iommu(void **state)
{
	int ifindex = 0;

	assert_int_equal(hl_ifindex(&hl, "ens1f0v0", &ifindex), 0);
	assert_int_equal(ifindex, 10);
	assert_int_equal(hl_ifindex(&hl, "nosuch0", &ifindex), -ENOENT);
	assert_int_equal(hl_ifindex(&hl, "../../x", &ifindex), -EINVAL);
	assert_int_equal(ifindex, 10);

	/* one device's net/ directory: the uplink among the representors, a VF's own */
	assert_int_equal(hl_netdev_ifindex(&hl, ICE_PF, -1, &ifindex), 0);
	assert_int_equal(ifindex, 4);
	assert_int_equal(hl_netdev_ifindex(&hl, ICE_PF, 0, &ifindex), 0);
	assert_int_equal(ifindex, 10);
	assert_int_equal(hl_netdev_ifindex(&hl, IGB_PF, 1, &ifindex), 0);
	assert_int_equal(ifindex, 6);
	assert_int_equal(hl_netdev_ifindex(&hl, ICE_PF, 2, &ifindex), -ENODEV);
	assert_string_equal(hl.host.error, "VF 2 has no network interface");
	assert_int_equal(hl_netdev_ifindex(&hl, ICE_PF, 5, &ifindex), -ENOENT);
	assert_string_equal(hl.host.error, "VF 5 of " ICE_PF " does not exist");
	assert_int_equal(hl_netdev_ifindex(&hl, BARE_PF, -1, &ifindex), -ENODEV);
	assert_string_equal(hl.host.error, "the PF has no network interface");

	assert_true(hl_iommu_groups(&hl));
	move("kernel/iommu_groups/7", "group-aside");
	assert_false(hl_iommu_groups(&hl));
	move("group-aside", "kernel/iommu_groups/7");
}

static int open_dir(const char *rel)
{
	char p[512];
	int fd;

	mkdir_rel(rel);
	path_at(p, sizeof(p), rel);
	fd = open(p, O_PATH | O_DIRECTORY | O_CLOEXEC);
	assert_true(fd >= 0);
	return fd;
}

static void test_write_attr(void **state)
{
	int fd = open_dir("attrs");
	char p[512];

	put("", "attrs/value");
	assert_int_equal(hl_write_attr(&hl, fd, "value", "42", USEC_PER_SEC), 0);
	assert_string_equal(slurp("attrs/value"), "42");

	/* errors of open() and of write() come back as they are */
	mkdir_rel("attrs/adir");
	assert_int_equal(hl_write_attr(&hl, fd, "adir", "1\n", USEC_PER_SEC), -EISDIR);
	assert_string_equal(hl.host.error, "write of 1 to adir: Is a directory");
	assert_int_equal(hl_write_attr(&hl, fd, "missing", "1", USEC_PER_SEC), -ENOENT);
	path_at(p, sizeof(p), "attrs/full");
	assert_int_equal(symlink("/dev/full", p), 0);
	assert_int_equal(hl_write_attr(&hl, fd, "full", "1", USEC_PER_SEC), -ENOSPC);
	close(fd);
}

static usec_t now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (usec_t)ts.tv_sec * USEC_PER_SEC + (usec_t)ts.tv_nsec / 1000;
}

/* Whether someone holds the lock file at path (we do not). */
static bool lock_held(const char *path)
{
	int fd = open(path, O_RDWR | O_CLOEXEC), r;

	assert_true(fd >= 0);
	r = flock(fd, LOCK_EX | LOCK_NB);
	close(fd);
	return r < 0 && errno == EWOULDBLOCK;
}

/* A FIFO without a reader: the child's open() blocks as a write to a stuck
 * driver would. */
static void test_write_attr_timeout(void **state)
{
	int fd = open_dir("hang"), other[2], fifo, lock;
	struct pollfd p = {};
	char path[512], lock_path[512], buf[8] = "";
	usec_t t0, took;

	path_at(path, sizeof(path), "hang/sriov_numvfs");
	assert_int_equal(mkfifo(path, 0600), 0);
	/* a descriptor of the caller that the stuck child must not keep open */
	assert_int_equal(pipe2(other, O_CLOEXEC), 0);
	/* the PF's lock, which it must keep */
	path_at(lock_path, sizeof(lock_path), "hang.lock");
	lock = open(lock_path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	assert_true(lock >= 0);
	assert_int_equal(flock(lock, LOCK_EX | LOCK_NB), 0);
	hl.host.lock_fd = lock;

	t0 = now();
	assert_int_equal(hl_write_attr(&hl, fd, "sriov_numvfs", "8\n", 200 * MS), -ETIMEDOUT);
	hl.host.lock_fd = -EBADF;
	/* the caller gives up its lock: the stuck write still holds it, so no
	 * other applier can start while the write may still land */
	close(lock);
	assert_true(lock_held(lock_path));
	took = now() - t0;
	assert_true(took >= 200 * MS);
	assert_true(took < 1000 * MS);
	assert_string_equal(hl.host.error,
			    "write of 8 to sriov_numvfs did not return within 200ms");

	close(other[1]);
	p = (struct pollfd){ .fd = other[0], .events = POLLIN };
	assert_int_equal(poll(&p, 1, 0), 1);
	assert_true(p.revents & POLLHUP);
	close(other[0]);

	/* the child is still there and finishes its write once it can */
	fifo = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	assert_true(fifo >= 0);
	p = (struct pollfd){ .fd = fifo, .events = POLLIN };
	assert_int_equal(poll(&p, 1, 5000), 1);
	assert_int_equal(read(fifo, buf, sizeof(buf) - 1), 2);
	assert_string_equal(buf, "8\n");
	close(fifo);
	/* and lets the lock go when it is done */
	for (int i = 0; i < 500 && lock_held(lock_path); i++)
		usleep(10 * 1000);
	assert_false(lock_held(lock_path));
	close(fd);
}

static void test_set_num_vfs_refused(void **state)
{
	assert_int_equal(hl_set_num_vfs(&hl, ICE_PF, 5, USEC_PER_SEC), -EBUSY);
	assert_non_null(strstr(hl.host.error, "has 3 VFs"));
	assert_string_equal(slurp(BUS ICE_PF "/sriov_numvfs"), "3\n");
	assert_int_equal(hl_set_num_vfs(&hl, "0000:01:00.0/../x", 0, USEC_PER_SEC), -EINVAL);
}

static void test_unbind(void **state)
{
	/* unbound already: nothing to write */
	assert_int_equal(hl_unbind_vf(&hl, ICE_PF, 1, USEC_PER_SEC), 0);
	assert_int_equal(hl_unbind_vf(&hl, ICE_PF, 0, USEC_PER_SEC), 0);
	assert_string_equal(slurp("bus/pci/drivers/iavf/unbind"), "0000:01:01.0");
	assert_int_equal(hl_unbind_vf(&hl, ICE_PF, 3, USEC_PER_SEC), -ENODEV);
	assert_non_null(strstr(hl.host.error, "has no VF 3"));
}

static void test_bind_refused(void **state)
{
	assert_int_equal(hl_bind_vf(&hl, ICE_PF, 1, "vfio-pci", USEC_PER_SEC), -EINVAL);
	assert_non_null(
		strstr(hl.host.error, "no IOMMU group: boot with intel_iommu=on or amd_iommu=on"));
	assert_int_equal(hl_bind_vf(&hl, ICE_PF, 1, "../../evil", USEC_PER_SEC), -EINVAL);
	assert_non_null(strstr(hl.host.error, "invalid driver name"));
	assert_int_equal(hl_bind_vf(&hl, ICE_PF, 1, "vfio pci", USEC_PER_SEC), -EINVAL);
	assert_int_equal(hl_bind_vf(&hl, ICE_PF, 1, "ixgbevf", USEC_PER_SEC), -ENODEV);
	assert_string_equal(hl.host.error, "driver ixgbevf is not loaded");
	assert_int_equal(hl_bind_vf(&hl, IGB_PF, 0, "igbvf", USEC_PER_SEC), -EBUSY);
	assert_non_null(strstr(hl.host.error, "already bound to igbvf"));
	assert_int_equal(hl_bind_vf(&hl, IGB_PF, 7, NULL, USEC_PER_SEC), -ENODEV);
	/* nothing was written on the way */
	assert_string_equal(slurp("bus/pci/drivers_probe"), "");
}

/* set_num_vfs waits until sysfs shows the VFs and the netdevs of netdev
 * drivers; here no uevent ever comes, so what is not there times out. */
static void test_set_num_vfs_wait(void **state)
{
	usec_t t0, took;

	hl.udev = hl.udev ?: udev_new();
	assert_non_null(hl.udev);
	/* there already: nothing is written */
	assert_int_equal(hl_set_num_vfs(&hl, IGB_PF, 2, USEC_PER_SEC), 0);
	assert_string_equal(slurp(BUS IGB_PF "/sriov_numvfs"), "2\n");
	/* an unbound VF and one on vfio-pci have no netdev to wait for */
	assert_int_equal(hl_set_num_vfs(&hl, ICE_PF, 3, USEC_PER_SEC), 0);

	move(BUS "0000:02:10.2/net", "igb-vf1-net");
	t0 = now();
	assert_int_equal(hl_set_num_vfs(&hl, IGB_PF, 2, USEC_PER_SEC), -ETIMEDOUT);
	took = now() - t0;
	move("igb-vf1-net", BUS "0000:02:10.2/net");
	assert_true(took >= 200 * MS && took < 1000 * MS);
	assert_string_equal(hl.host.error, IGB_PF ": 2 VFs: after 200ms, VF 1 (0000:02:10.2, "
						  "igbvf) has no network device");

	/* written, then no VF appears */
	assert_int_equal(hl_set_num_vfs(&hl, BARE_PF, 2, USEC_PER_SEC), -ETIMEDOUT);
	assert_string_equal(slurp(BUS BARE_PF "/sriov_numvfs"), "2\n"); /* was "0\n" */
	assert_non_null(strstr(hl.host.error, "0 of 2 VFs exist"));
	put("0\n", BUS BARE_PF "/sriov_numvfs");
}

static void test_bind_writes(void **state)
{
	hl.udev = hl.udev ?: udev_new();
	assert_non_null(hl.udev);
	/* the kernel's VF driver by name: with autoprobe off, a VF probes
	 * only with an override */
	assert_int_equal(hl_bind_vf(&hl, ICE_PF, 1, NULL, USEC_PER_SEC), -ETIMEDOUT);
	assert_string_equal(slurp(BUS "0000:01:01.1/driver_override"), "iavf");
	assert_string_equal(slurp("bus/pci/drivers_probe"), "0000:01:01.1");
	assert_string_equal(hl.host.error, ICE_PF ": binding VF 1 (0000:01:01.1) to iavf: "
						  "after 200ms, bound to no driver");

	link_to("/kernel/iommu_groups/7", BUS "0000:01:01.1/iommu_group");
	assert_int_equal(hl_bind_vf(&hl, ICE_PF, 1, "vfio-pci", USEC_PER_SEC), -ETIMEDOUT);
	assert_string_equal(slurp(BUS "0000:01:01.1/driver_override"), "vfio-pci");

	assert_int_equal(hl_set_autoprobe(&hl, ICE_PF, true), 0);
	assert_string_equal(slurp(BUS ICE_PF "/sriov_drivers_autoprobe"), "1\n"); /* over "0\n" */
	assert_int_equal(hl_set_autoprobe(&hl, IGB_PF, false), -ENOENT);
	assert_string_equal(hl.host.error,
			    "opening sriov_drivers_autoprobe: No such file or directory");
}

/* ConnectX firmware settings through a stand-in mstconfig that prints what
 * mstflint 4.21 prints (tests/fixtures/mstconfig) and logs its arguments. */
static void stand_in_mstconfig(char *path, size_t size)
{
	char cwd[256], script[2048];

	assert_non_null(getcwd(cwd, sizeof(cwd)));
	snprintf(script, sizeof(script),
		 "#!/bin/sh\n"
		 "echo \"$*\" >> %s/mstconfig.args\n"
		 "f=%s/tests/fixtures/mstconfig/4.21\n"
		 "case \"$*\" in\n"
		 "'-d 0000:03:00.0 -e query') cat $f/cx6-vpi-query.txt ;;\n"
		 "'-y -d 0000:03:00.1 set SRIOV_EN=1 NUM_OF_VFS=16') cat $f/cx6-vpi-set.txt ;;\n"
		 "*NUM_OF_VFS=200) cat $f/cx6-vpi-set-out-of-range.txt; exit 3 ;;\n"
		 "*) cat $f/no-device.txt; exit 3 ;;\n"
		 "esac\n",
		 root, cwd);
	put(script, "tools/mstconfig");
	path_at(path, size, "tools/mstconfig");
	assert_int_equal(chmod(path, 0755), 0);
}

static size_t count_lines(const char *rel)
{
	_cleanup_free_ char *text = NULL;
	char p[512];
	size_t n = 0;

	path_at(p, sizeof(p), rel);
	if (read_file_at(AT_FDCWD, p, 1 << 16, &text, NULL) < 0)
		return 0;
	for (const char *c = text; *c; c++)
		n += *c == '\n';
	return n;
}

/* Loaded modules come from procfs's "modules", newest first there, sorted
 * here; a kernel without loadable modules has none. */
static void test_list_modules(void **state)
{
	char p[512], **mods = NULL;

	put("vfio_pci 16384 0 - Live 0xffffffffc0a2e000\n"
	    "igbvf 49152 0 - Live 0xffffffffc0a1c000\n"
	    "vfio_pci_core 86016 1 vfio_pci, Live 0xffffffffc0a05000\n",
	    "proc/modules");
	path_at(p, sizeof(p), "proc");
	hl.procfs_fd = open(p, O_PATH | O_DIRECTORY | O_CLOEXEC);
	assert_true(hl.procfs_fd >= 0);
	assert_int_equal(hl_list_modules(&hl, &mods), 0);
	assert_int_equal(strv_length(mods), 3);
	assert_string_equal(mods[0], "igbvf");
	assert_string_equal(mods[1], "vfio_pci");
	assert_string_equal(mods[2], "vfio_pci_core");
	strv_free(mods);

	path_at(p, sizeof(p), "proc/modules");
	assert_int_equal(unlink(p), 0);
	assert_int_equal(hl_list_modules(&hl, &mods), 0);
	assert_int_equal(strv_length(mods), 0);
	strv_free(mods);
	close(hl.procfs_fd);
	hl.procfs_fd = -EBADF;
}

static void test_firmware(void **state)
{
	char tool[512];
	struct pf_state p0 = { .pci = MLX_PF,
			       .driver = (char *)"mlx5_core",
			       .firmware_total_vfs = -1 };
	struct pf_state p1 = p0, gone = p0, ice = p0;

	stand_in_mstconfig(tool, sizeof(tool));
	hl.mstconfig = tool;
	snprintf(p1.pci, sizeof(p1.pci), "0000:03:00.1");
	assert_int_equal(hl_read_firmware(&hl, &p0), 0);
	assert_null(p0.firmware_error);
	assert_int_equal(p0.firmware_total_vfs, 0); /* SRIOV_EN False(0) */
	assert_true(p0.has_firmware_link_type);
	assert_int_equal(p0.firmware_link_type, LINK_TYPE_ETHERNET); /* P1 next boot */
	/* the other port of the card: its own link type, no second query */
	assert_int_equal(hl_read_firmware(&hl, &p1), 0);
	assert_true(p1.has_firmware_link_type);
	assert_int_equal(p1.firmware_link_type, LINK_TYPE_INFINIBAND);
	assert_int_equal(count_lines("mstconfig.args"), 1);
	/* a driver without firmware settings: the tool is not run */
	ice.driver = (char *)"ice";
	assert_int_equal(hl_read_firmware(&hl, &ice), 0);
	assert_int_equal(ice.firmware_total_vfs, -1);
	assert_int_equal(count_lines("mstconfig.args"), 1);

	/* set: the card is asked again afterwards */
	assert_int_equal(hl_set_firmware_vfs(&hl, "0000:03:00.1", 16, 0), 0);
	assert_int_equal(hl.n_firmware, 0);
	assert_int_equal(hl_set_firmware_vfs(&hl, "0000:03:00.1", 200, 0), -EIO);
	assert_non_null(strstr(hl.host.error, "exit code 3): -E- Parameter NUM_OF_VFS"));
	assert_int_equal(hl_set_link_type(&hl, MLX_PF, LINK_TYPE_INFINIBAND, 0), -EIO);
	assert_non_null(strstr(hl.host.error, "-E- Failed to open the device"));

	/* a card the tool cannot open, and no tool */
	snprintf(gone.pci, sizeof(gone.pci), "0000:05:00.0");
	assert_int_equal(hl_read_firmware(&hl, &gone), 0);
	assert_int_equal(gone.firmware_total_vfs, -1);
	assert_false(gone.has_firmware_link_type);
	assert_non_null(strstr(gone.firmware_error,
			       "query failed (exit code 3): -E- Failed to open the device"));
	free(gone.firmware_error);
	hl_firmware_forget(&hl);
	hl.mstconfig = (char *)"/nonexistent/mstconfig";
	gone.firmware_error = NULL;
	assert_int_equal(hl_read_firmware(&hl, &gone), 0);
	assert_string_equal(gone.firmware_error,
			    "/nonexistent/mstconfig not found (install the package mstflint)");
	free(gone.firmware_error);
	hl_firmware_forget(&hl);
	hl.mstconfig = NULL;
	free(p0.firmware_error);
	free(p1.firmware_error);
}

/* mstconfig failing in a process without CAP_SYS_ADMIN (procfs's
 * self/status says so): the error says what lacks it and gives the command
 * that has it; with the capability, or when status cannot be read, only
 * the tool's error. */
static void test_firmware_without_sys_admin(void **state)
{
	char tool[512], p[512];
	struct pf_state gone = { .pci = "0000:05:00.0",
				 .driver = (char *)"mlx5_core",
				 .firmware_total_vfs = -1 };

	stand_in_mstconfig(tool, sizeof(tool));
	hl.mstconfig = tool;
	put("Name:\tsriov-persistd\nCapInh:\t0000000000000000\nCapEff:\t0000000000011000\n",
	    "proc/self/status");
	path_at(p, sizeof(p), "proc");
	hl.procfs_fd = open(p, O_PATH | O_DIRECTORY | O_CLOEXEC);
	assert_true(hl.procfs_fd >= 0);
	assert_int_equal(hl_read_firmware(&hl, &gone), 0);
	assert_non_null(gone.firmware_error);
	assert_non_null(strstr(gone.firmware_error,
			       " query failed (exit code 3): -E- Failed to open the device; it "
			       "needs CAP_SYS_ADMIN, which this process does not have (nor have "
			       "sriov-persistd and the apply units, as shipped): run 'sudo "
			       "sriovctl --runtime-dir /run/sriov-persist apply 0000:05:00.0' "
			       "once, and reboot"));
	gone.firmware_error = mfree(gone.firmware_error);
	hl_firmware_forget(&hl);

	put("Name:\tsriovctl\nCapEff:\t000001ffffffffff\n", "proc/self/status");
	assert_int_equal(hl_read_firmware(&hl, &gone), 0);
	assert_non_null(strstr(gone.firmware_error, "-E- Failed to open the device"));
	assert_null(strstr(gone.firmware_error, "CAP_SYS_ADMIN"));
	gone.firmware_error = mfree(gone.firmware_error);
	hl_firmware_forget(&hl);
	close(hl.procfs_fd);
	hl.procfs_fd = -EBADF;
	hl.mstconfig = NULL;
}

/* A stand-in mstfwreset printing what mstflint 4.21 prints
 * (tests/fixtures/mlxfwreset), as the file "fwreset.mode" says: the card
 * without level 3, or a reset whose firmware did not restart. */
static void stand_in_mstfwreset(char *path, size_t size)
{
	char cwd[256], script[2048];

	assert_non_null(getcwd(cwd, sizeof(cwd)));
	snprintf(
		script, sizeof(script),
		"#!/bin/sh\n"
		"echo \"$*\" >> %s/mstfwreset.args\n"
		"m=$(cat %s/tools/fwreset.mode)\n"
		"f=%s/tests/fixtures/mlxfwreset/4.21\n"
		"case \"$m $*\" in\n"
		"'no-level-3 -d 0000:03:00.0 query') cat $f/query-no-pci-reset.txt ;;\n"
		"*' -d 0000:03:00.0 query') cat $f/query.txt ;;\n"
		"'fails -d 0000:03:00.0 --level 3 --yes reset') cat $f/reset-failed.txt; exit 1 ;;\n"
		"*' -d 0000:03:00.0 --level 3 --yes reset') cat $f/reset.txt ;;\n"
		"*) cat $f/no-device.txt; exit 1 ;;\n"
		"esac\n",
		root, root, cwd);
	put(script, "tools/mstfwreset");
	path_at(path, size, "tools/mstfwreset");
	assert_int_equal(chmod(path, 0755), 0);
}

/* Level 3 asked for first; the card's VFs removed before the reset. */
static void test_firmware_reset(void **state)
{
	char tool[512];

	stand_in_mstfwreset(tool, sizeof(tool));
	hl.mstfwreset = tool;
	put("ok", "tools/fwreset.mode");
	put("2\n", BUS MLX_PF "/sriov_numvfs");
	assert_int_equal(hl_firmware_reset(&hl, MLX_PF, USEC_PER_SEC), 0);
	assert_int_equal(slurp(BUS MLX_PF "/sriov_numvfs")[0], '0');
	assert_int_equal(count_lines("mstfwreset.args"), 2);

	/* no level 3: the VFs stay */
	put("no-level-3", "tools/fwreset.mode");
	put("2\n", BUS MLX_PF "/sriov_numvfs");
	assert_int_equal(hl_firmware_reset(&hl, MLX_PF, USEC_PER_SEC), -EOPNOTSUPP);
	assert_non_null(strstr(hl.host.error, "query: 0000:03:00.0 does not support reset level 3 "
					      "(Driver restart and PCI reset)"));
	assert_string_equal(slurp(BUS MLX_PF "/sriov_numvfs"), "2\n");
	assert_int_equal(count_lines("mstfwreset.args"), 3);

	put("fails", "tools/fwreset.mode");
	assert_int_equal(hl_firmware_reset(&hl, MLX_PF, USEC_PER_SEC), -EIO);
	assert_non_null(strstr(hl.host.error,
			       "reset failed (exit code 1): -E- Firmware reset failed, retry "
			       "operation or reboot machine."));
	assert_int_equal(count_lines("mstfwreset.args"), 5);

	assert_int_equal(hl_firmware_reset(&hl, "0000:05:00.0", USEC_PER_SEC), -EIO);
	assert_non_null(strstr(hl.host.error, "query failed (exit code 1): -E- Failed to "
					      "Identify Device"));
	hl.mstfwreset = (char *)"/nonexistent/mstfwreset";
	assert_int_equal(hl_firmware_reset(&hl, MLX_PF, USEC_PER_SEC), -ENOENT);
	assert_string_equal(hl.host.error,
			    "/nonexistent/mstfwreset not found (install the package mstflint)");
	hl.mstfwreset = NULL;
	assert_int_equal(hl_firmware_reset(&hl, MLX_PF, USEC_PER_SEC), -EOPNOTSUPP);
	put("0\n", BUS MLX_PF "/sriov_numvfs");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_list_pfs),
		cmocka_unit_test(test_open_pci),
		cmocka_unit_test(test_read_ice),
		cmocka_unit_test(test_find_representor),
		cmocka_unit_test(test_read_igb),
		cmocka_unit_test(test_read_other_pfs),
		cmocka_unit_test(test_ifindex_iommu),
		cmocka_unit_test(test_write_attr),
		cmocka_unit_test(test_write_attr_timeout),
		cmocka_unit_test(test_set_num_vfs_refused),
		cmocka_unit_test(test_unbind),
		cmocka_unit_test(test_bind_refused),
		cmocka_unit_test(test_set_num_vfs_wait),
		cmocka_unit_test(test_bind_writes),
		cmocka_unit_test(test_list_modules),
		cmocka_unit_test(test_firmware),
		cmocka_unit_test(test_firmware_without_sys_admin),
		cmocka_unit_test(test_firmware_reset),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
