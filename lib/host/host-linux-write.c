/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* Changing PCI functions of the Linux host through sysfs: writing
 * sriov_numvfs and binding VF drivers, and waiting for what the kernel and
 * udev do after such a write. Every path is opened with openat() below the
 * sysfs root descriptor; a write that can hang in a driver runs in a child
 * process so that the caller's wait stays bounded. */

#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <sys/wait.h>
#include <time.h>

#include "drivers.h"
#include "host-linux-internal.h"

static inline void udev_monitor_unrefp(struct udev_monitor **m)
{
	if (*m)
		udev_monitor_unref(*m);
}
#define _cleanup_udev_monitor_ _cleanup_(udev_monitor_unrefp)

static bool driver_name_is_valid(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > 63)
		return false;
	return strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") == n;
}

/* What the writing child reports through its pipe. */
struct write_result {
	int error;	 /* errno of open() or write(), 0 on success */
	ssize_t written; /* -1 when write() failed, 0 when open() did */
};

/* One open and write of value to attr under dirfd, in whichever process
 * calls it: async-signal-safe calls only. */
static struct write_result write_attr_fd(int dirfd, const char *attr, const char *value)
{
	struct write_result res = {};
	size_t len = strlen(value);
	int fd;

	fd = openat(dirfd, attr, O_WRONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		res.error = errno;
		return res;
	}
	while ((res.written = write(fd, value, len)) < 0 && errno == EINTR)
		;
	if (res.written < 0)
		res.error = errno;
	close(fd);
	return res;
}

/* The child keeps only the directory, the pipe and the PF's lock: a copy of
 * any other descriptor (a netlink socket) would outlive the caller's use of
 * it for as long as the write hangs, and the lock must (see struct host). */
static void keep_only(int a, int b, int c)
{
	int keep[3] = { a, b, c }, next = 3;

	/* sorted, so that the gaps between them can be closed */
	for (int i = 0; i < 3; i++)
		for (int j = i + 1; j < 3; j++)
			if (keep[j] < keep[i]) {
				int t = keep[i];

				keep[i] = keep[j];
				keep[j] = t;
			}
	for (int i = 0; i < 3; i++) {
		if (keep[i] < next)
			continue;
		if (keep[i] > next)
			(void)close_range((unsigned)next, (unsigned)keep[i] - 1, 0);
		next = keep[i] + 1;
	}
	(void)close_range((unsigned)next, ~0U, 0);
}

/* Runs in the grandchild: async-signal-safe calls only. */
static _Noreturn void write_child(int dirfd, const char *attr, const char *value, int report,
				  int lock)
{
	struct write_result res, sent;

	keep_only(dirfd, report, lock);
	res = write_attr_fd(dirfd, attr, value);
	/* field by field into zeroed bytes: the padding goes down the pipe too,
	 * and uninitialised it is what valgrind (make check-valgrind) reports */
	memset(&sent, 0, sizeof(sent));
	sent.error = res.error;
	sent.written = res.written;
	(void)!write(report, &sent, sizeof(sent));
	_exit(0);
}

/* Forks twice: the grandchild writes and is reaped by init whenever the
 * kernel lets it return, so a stuck write leaves neither a zombie nor a
 * SIGCHLD for the caller. The middle child only forks, and is reaped here. */
static int spawn_writer(int dirfd, const char *attr, const char *value, int report_pipe[2],
			int lock)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -errno;
	if (pid == 0) {
		pid_t g;

		close(report_pipe[0]);
		g = fork();
		if (g == 0)
			write_child(dirfd, attr, value, report_pipe[1], lock);
		_exit(g < 0 ? 1 : 0);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -EAGAIN;
}

static int wait_readable(int fd, usec_t deadline)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	for (;;) {
		int r = poll(&p, 1, poll_ms(deadline));

		if (r > 0)
			return 1;
		if (r == 0)
			return 0;
		if (errno != EINTR)
			return -errno;
	}
}

int hl_write_attr(struct host_linux *hl, int dirfd, const char *attr, const char *value,
		  usec_t timeout)
{
	_cleanup_close_ int rd = -EBADF, wr = -EBADF;
	struct write_result res;
	char shown[64], span[32];
	usec_t deadline = deadline_after(timeout);
	int fds[2], r;
	ssize_t n;

	snprintf(shown, sizeof(shown), "%.*s", (int)strcspn(value, "\n"), value);
	if (pipe2(fds, O_CLOEXEC) < 0)
		return -errno;
	rd = fds[0];
	wr = fds[1];
	r = spawn_writer(dirfd, attr, value, fds, hl->host.lock_fd);
	if (r < 0) {
		host_set_error(&hl->host, "cannot start the writer of %s: %s", attr, strerror(-r));
		return r;
	}
	/* only the grandchild holds the write end now: EOF means it died */
	close(TAKE_FD(wr));
	r = wait_readable(rd, deadline);
	if (r < 0)
		return r;
	if (r == 0) {
		host_set_error(&hl->host, "write of %s to %s did not return within %s", shown, attr,
			       format_timespan(span, timeout));
		return -ETIMEDOUT;
	}
	do
		n = read(rd, &res, sizeof(res));
	while (n < 0 && errno == EINTR);
	if (n != (ssize_t)sizeof(res)) {
		host_set_error(&hl->host, "write of %s to %s: the writer died", shown, attr);
		return -EIO;
	}
	if (res.error != 0) {
		host_set_error(&hl->host, "write of %s to %s: %s", shown, attr,
			       strerror(res.error));
		return -res.error;
	}
	if ((size_t)res.written != strlen(value)) {
		host_set_error(&hl->host, "write of %s to %s: short write (%zd of %zu bytes)",
			       shown, attr, res.written, strlen(value));
		return -EIO;
	}
	return 0;
}

/* Subscribed before a write, so that no event of what the write causes is
 * missed: every check of sysfs after it sees at least what the events said. */
static int monitor_open(struct host_linux *hl, struct udev_monitor **ret)
{
	_cleanup_udev_monitor_ struct udev_monitor *m = NULL;
	int r;

	m = hl->udev ? udev_monitor_new_from_netlink(hl->udev, "udev") : NULL;
	if (!m)
		r = errno > 0 ? -errno : -ENOMEM;
	else if ((r = udev_monitor_filter_add_match_subsystem_devtype(m, "pci", NULL)) >= 0 &&
		 (r = udev_monitor_filter_add_match_subsystem_devtype(m, "net", NULL)) >= 0)
		r = udev_monitor_enable_receiving(m);
	if (r < 0) {
		host_set_error(&hl->host, "cannot listen to udev events: %s", strerror(-r));
		return r;
	}
	*ret = TAKE_PTR(m);
	return 0;
}

/* What a wait is for: returns 1 when there, 0 with a description of what is
 * missing, or -errno. */
typedef int (*settled_fn)(struct host_linux *hl, int fd, const void *want, char *missing,
			  size_t size);

/* Re-checks sysfs after every udev event until settled() holds, bounded by
 * the settle timeout; never sleeps for a fixed time. */
static int wait_settled(struct host_linux *hl, struct udev_monitor *m, int fd, settled_fn settled,
			const void *want, const char *what)
{
	usec_t deadline = deadline_after(hl->settle_timeout);
	char missing[160] = "", span[32];

	for (;;) {
		struct udev_device *d;
		int r = settled(hl, fd, want, missing, sizeof(missing));

		if (r != 0)
			return r < 0 ? r : 0;
		if (poll_ms(deadline) == 0)
			break;
		r = wait_readable(udev_monitor_get_fd(m), deadline);
		if (r < 0)
			return r;
		/* drain: the socket is non-blocking */
		while (r > 0 && (d = udev_monitor_receive_device(m)))
			udev_device_unref(d);
	}
	host_set_error(&hl->host, "%s: after %s, %s", what,
		       format_timespan(span, hl->settle_timeout), missing);
	return -ETIMEDOUT;
}

/* A VF bound to a driver that creates a netdev has its net/ entry. */
static int vf_netdev_ready(struct host_linux *hl, int vf_fd, const char *driver, bool *ret)
{
	_cleanup_strv_free_ char **net = NULL;
	int r;

	if (!vf_driver_has_netdev(driver)) {
		*ret = true;
		return 0;
	}
	r = hl_list_dir(vf_fd, "net", &net);
	if (r < 0)
		return r;
	*ret = net[0] != NULL;
	return 0;
}

int hl_write_attr_now(struct host_linux *hl, int dirfd, const char *attr, const char *value)
{
	struct write_result res = write_attr_fd(dirfd, attr, value);

	if (res.error != 0 && res.written == 0) {
		host_set_error(&hl->host, "opening %s: %s", attr, strerror(res.error));
		return -res.error;
	}
	if (res.error != 0) {
		host_set_error(&hl->host, "write of %.*s to %s: %s", (int)strcspn(value, "\n"),
			       value, attr, strerror(res.error));
		return -res.error;
	}
	if ((size_t)res.written != strlen(value)) {
		host_set_error(&hl->host, "write to %s: short write", attr);
		return -EIO;
	}
	return 0;
}

/* Exactly n virtfn links, and every VF's netdev when its driver makes one. */
static int vfs_settled(struct host_linux *hl, int pf_fd, const void *want, char *missing,
		       size_t size)
{
	uint32_t n = *(const uint32_t *)want, i;
	char link[32];

	for (i = 0;; i++) {
		_cleanup_free_ char *driver = NULL;
		_cleanup_close_ int fd = -EBADF;
		char pci[PCI_ADDR_MAX];
		bool ready;
		int r = hl_open_virtfn(pf_fd, i, pci, &fd);

		if (r == -ENOENT)
			break;
		if (r >= 0)
			r = hl_read_driver(fd, &driver);
		if (r >= 0)
			r = vf_netdev_ready(hl, fd, driver, &ready);
		if (r < 0)
			return r;
		if (!ready && i < n) {
			snprintf(missing, size, "VF %" PRIu32 " (%s, %s) has no network device", i,
				 pci, driver);
			return 0;
		}
	}
	snprintf(link, sizeof(link), "virtfn%" PRIu32, i + 1);
	if (i != n || faccessat(pf_fd, link, F_OK, AT_SYMLINK_NOFOLLOW) >= 0) {
		snprintf(missing, size, "%" PRIu32 " of %" PRIu32 " VFs exist", i, n);
		return 0;
	}
	return 1;
}

int hl_set_num_vfs(struct host_linux *hl, const char *pf, uint32_t n, usec_t timeout)
{
	_cleanup_udev_monitor_ struct udev_monitor *m = NULL;
	_cleanup_close_ int fd = -EBADF;
	char value[16], what[64];
	uint32_t cur;
	int r;

	r = hl_open_pci(hl, pf, &fd);
	if (r < 0)
		return r;
	r = hl_read_u32(fd, "sriov_numvfs", 10, &cur);
	if (r < 0) {
		host_set_error(&hl->host, "%s: reading sriov_numvfs: %s", pf, strerror(-r));
		return r;
	}
	/* the kernel refuses it too; the planner writes 0 first */
	if (cur != 0 && n != 0 && cur != n) {
		host_set_error(&hl->host, "%s has %" PRIu32 " VFs: set 0 before %" PRIu32, pf, cur,
			       n);
		return -EBUSY;
	}
	r = monitor_open(hl, &m);
	if (r < 0)
		return r;
	if (cur != n) {
		snprintf(value, sizeof(value), "%" PRIu32, n);
		r = hl_write_attr(hl, fd, "sriov_numvfs", value, timeout);
		if (r < 0)
			return r;
	}
	snprintf(what, sizeof(what), "%s: %" PRIu32 " VFs", pf, n);
	return wait_settled(hl, m, fd, vfs_settled, &n, what);
}

int hl_set_autoprobe(struct host_linux *hl, const char *pf, bool on)
{
	_cleanup_close_ int fd = -EBADF;
	int r;

	r = hl_open_pci(hl, pf, &fd);
	if (r < 0)
		return r;
	return hl_write_attr_now(hl, fd, "sriov_drivers_autoprobe", on ? "1" : "0");
}

/* The VF's directory and address, or -ENODEV with a message. */
static int open_vf(struct host_linux *hl, const char *pf, uint32_t vf,
		   char pci[static PCI_ADDR_MAX], int *ret_fd)
{
	_cleanup_close_ int pf_fd = -EBADF;
	int r;

	r = hl_open_pci(hl, pf, &pf_fd);
	if (r < 0)
		return r;
	r = hl_open_virtfn(pf_fd, vf, pci, ret_fd);

	if (r == -ENOENT) {
		host_set_error(&hl->host, "%s has no VF %" PRIu32, pf, vf);
		return -ENODEV;
	}
	if (r < 0)
		host_set_error(&hl->host, "%s: reading virtfn%" PRIu32 ": %s", pf, vf,
			       strerror(-r));
	return r;
}

int hl_unbind_vf(struct host_linux *hl, const char *pf, uint32_t vf, usec_t timeout)
{
	_cleanup_close_ int vf_fd = -EBADF, drv_fd = -EBADF;
	char pci[PCI_ADDR_MAX];
	int r;

	r = open_vf(hl, pf, vf, pci, &vf_fd);
	if (r < 0)
		return r;
	/* the driver's directory through the VF's own link: the driver it
	 * is bound to, whatever its name */
	drv_fd = openat(vf_fd, "driver", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (drv_fd < 0 && errno == ENOENT)
		return 0;
	if (drv_fd < 0) {
		r = -errno;
		host_set_error(&hl->host, "%s: driver of VF %s: %s", pf, pci, strerror(-r));
		return r;
	}
	return hl_write_attr(hl, drv_fd, "unbind", pci, timeout);
}

/* What bind waits for: the driver link to that driver, and the netdev for
 * a driver that makes one. */
static int bound_settled(struct host_linux *hl, int vf_fd, const void *want, char *missing,
			 size_t size)
{
	const char *driver = want;
	_cleanup_free_ char *cur = NULL;
	bool ready;
	int r;

	r = hl_read_driver(vf_fd, &cur);
	if (r < 0)
		return r;
	if (!streq_ptr(cur, driver)) {
		snprintf(missing, size, "bound to %s", cur ?: "no driver");
		return 0;
	}
	r = vf_netdev_ready(hl, vf_fd, cur, &ready);
	if (r < 0)
		return r;
	if (!ready)
		snprintf(missing, size, "%s has made no network device", cur);
	return ready;
}

/* A named driver must be able to bind at all: loaded, and for vfio-pci an
 * IOMMU group. */
static int check_driver(struct host_linux *hl, int vf_fd, const char *pci, const char *driver)
{
	char path[96];

	if (!driver_name_is_valid(driver)) {
		host_set_error(&hl->host, "invalid driver name \"%s\"", driver);
		return -EINVAL;
	}
	if (vf_driver_needs_iommu(driver) &&
	    faccessat(vf_fd, "iommu_group", F_OK, AT_SYMLINK_NOFOLLOW) < 0) {
		host_set_error(&hl->host,
			       "%s: no IOMMU group: boot with intel_iommu=on or amd_iommu=on", pci);
		return -EINVAL;
	}
	snprintf(path, sizeof(path), "bus/pci/drivers/%s", driver);
	if (faccessat(hl->sysfs_fd, path, F_OK, 0) < 0) {
		host_set_error(&hl->host, "driver %s is not loaded", driver);
		return -ENODEV;
	}
	return 0;
}

/* driver_override, then drivers_probe: the kernel binds the one driver
 * named, as driverctl does, also where sriov_drivers_autoprobe is off (a VF
 * then probes only with an override). The override stays, so that a later
 * probe keeps it. */
static int bind_write(struct host_linux *hl, int vf_fd, const char *pci, const char *driver,
		      usec_t timeout)
{
	_cleanup_close_ int bus_fd = -EBADF;
	int r;

	r = hl_write_attr_now(hl, vf_fd, "driver_override", driver);
	if (r < 0)
		return r;
	bus_fd = openat(hl->sysfs_fd, "bus/pci", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (bus_fd < 0) {
		r = -errno;
		host_set_error(&hl->host, "bus/pci: %s", strerror(-r));
		return r;
	}
	return hl_write_attr(hl, bus_fd, "drivers_probe", pci, timeout);
}

/* The kernel's VF driver for the PF's driver (drivers.h), by name. */
static int default_vf_driver(struct host_linux *hl, const char *pf, const char **ret)
{
	_cleanup_close_ int pf_fd = -EBADF;
	_cleanup_free_ char *pf_driver = NULL;
	const struct driver_info *di;
	int r;

	r = hl_open_pci(hl, pf, &pf_fd);
	if (r >= 0)
		r = hl_read_driver(pf_fd, &pf_driver);
	if (r < 0) {
		host_set_error(&hl->host, "%s: reading its driver: %s", pf, strerror(-r));
		return r;
	}
	di = pf_driver ? driver_info_find(pf_driver) : NULL;
	if (!di || !di->vf_driver) {
		host_set_error(&hl->host, "%s: no VF driver known for PF driver %s", pf,
			       pf_driver ?: "(none)");
		return -EINVAL;
	}
	*ret = di->vf_driver;
	return 0;
}

int hl_bind_vf(struct host_linux *hl, const char *pf, uint32_t vf, const char *driver,
	       usec_t timeout)
{
	_cleanup_udev_monitor_ struct udev_monitor *m = NULL;
	_cleanup_close_ int vf_fd = -EBADF;
	_cleanup_free_ char *cur = NULL;
	char pci[PCI_ADDR_MAX], what[96];
	int r;

	if (!driver && (r = default_vf_driver(hl, pf, &driver)) < 0)
		return r;
	r = open_vf(hl, pf, vf, pci, &vf_fd);
	if (r < 0)
		return r;
	r = check_driver(hl, vf_fd, pci, driver);
	if (r < 0)
		return r;
	r = hl_read_driver(vf_fd, &cur);
	if (r >= 0 && cur) {
		host_set_error(&hl->host, "VF %" PRIu32 " (%s) is already bound to %s", vf, pci,
			       cur);
		r = -EBUSY;
	}
	if (r >= 0)
		r = monitor_open(hl, &m);
	if (r >= 0)
		r = bind_write(hl, vf_fd, pci, driver, timeout);
	if (r < 0)
		return r;
	snprintf(what, sizeof(what), "%s: binding VF %" PRIu32 " (%s) to %s", pf, vf, pci, driver);
	return wait_settled(hl, m, vf_fd, bound_settled, driver, what);
}
