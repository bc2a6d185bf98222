/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* The real Linux host: the host_ops table and reading a whole host. The
 * work is done in host-linux-sysfs.c (PCI functions, VF drivers, waiting),
 * host-linux-netlink.c (links, VF attributes, eswitch) and
 * host-linux-kmod.c (modules). */

#include <ctype.h>
#include <fcntl.h>
#include <limits.h>
#include <netlink/socket.h>
#include <systemd/sd-id128.h>

#include "host-linux-internal.h"

#define CMDLINE_MAX (256u << 10)

static int read_identity(struct host_linux *hl, struct host_state *s)
{
	char name[HOST_NAME_MAX + 1] = "";
	int r;

	if (gethostname(name, sizeof(name) - 1) < 0) {
		r = -errno;
		host_set_error(&hl->host, "gethostname: %s", strerror(-r));
		return r;
	}
	s->hostname = strdup(name);
	if (!s->hostname)
		return -ENOMEM;
	r = read_file_at(hl->procfs_fd, "cmdline", CMDLINE_MAX, &s->kernel_cmdline, NULL);
	if (r < 0) {
		host_set_error(&hl->host, "reading the kernel command line: %s", strerror(-r));
		return r;
	}
	strip_newline(s->kernel_cmdline);
	return 0;
}

/* A missing, empty or "uninitialized" machine-id (first boot) is unknown;
 * anything else must be 32 hex digits. */
static int read_machine_id(struct host_linux *hl, struct host_state *s)
{
	_cleanup_free_ char *text = NULL;
	sd_id128_t id;
	int r;

	r = read_file_at(AT_FDCWD, hl->machine_id_path, 64, &text, NULL);
	if (r == -ENOENT)
		return 0;
	if (r < 0) {
		host_set_error(&hl->host, "%s: %s", hl->machine_id_path, read_strerror(r));
		return r;
	}
	strip_newline(text);
	if (text[0] == '\0' || streq(text, "uninitialized"))
		return 0;
	if (strlen(text) != 32 || sd_id128_from_string(text, &id) < 0) {
		host_set_error(&hl->host, "%s: not a machine ID", hl->machine_id_path);
		return -EINVAL;
	}
	memcpy(s->machine_id, id.bytes, sizeof(s->machine_id));
	s->has_machine_id = true;
	return 0;
}

/* The first vendor_id of /proc/cpuinfo (its first 4 KiB: the whole file
 * of a large host is big). */
static void cpuinfo_vendor(struct host_linux *hl)
{
	_cleanup_close_ int fd = open_regular_at(hl->procfs_fd, "cpuinfo", NULL);
	char text[4096];
	size_t len = 0;
	ssize_t n;
	int v;

	while (fd >= 0 && len < sizeof(text) - 1 &&
	       ((n = read(fd, text + len, sizeof(text) - 1 - len)) > 0 ||
		(n < 0 && errno == EINTR)))
		len += n > 0 ? (size_t)n : 0;
	text[len] = '\0';
	v = cpu_vendor_from_cpuinfo(text);
	if (v < 0)
		return;
	hl->cpu_vendor = (enum cpu_vendor)v;
	hl->has_cpu_vendor = true;
}

/* Read once per process: it does not change. */
static void read_cpu_vendor(struct host_linux *hl, struct host_state *s)
{
	if (!hl->cpu_vendor_read)
		cpuinfo_vendor(hl);
	hl->cpu_vendor_read = true;
	s->has_cpu_vendor = hl->has_cpu_vendor;
	s->cpu_vendor = hl->cpu_vendor;
}

/* /proc/sys/kernel/random/boot_id is a UUID with dashes; kept as 32 hex
 * digits. Unreadable (an unusual /proc) is unknown, not an error. */
static void read_boot_id(struct host_linux *hl, struct host_state *s)
{
	_cleanup_free_ char *text = NULL;
	size_t k = 0;

	if (read_file_at(hl->procfs_fd, "sys/kernel/random/boot_id", 64, &text, NULL) < 0)
		return;
	for (const char *p = text; *p && k < 32; p++)
		if (isxdigit((unsigned char)*p))
			s->boot_id[k++] = (char)tolower((unsigned char)*p);
	s->boot_id[k == 32 ? 32 : 0] = '\0';
}

/* What sysfs does not know: netlink attributes and the eswitch mode. */
static int complete_pf(struct host_linux *hl, struct pf_state *pf)
{
	enum eswitch_mode mode;
	int r;

	r = hl_read_pf_netlink(hl, pf);
	if (r >= 0 && hl->mstconfig)
		r = hl_read_firmware(hl, pf);
	if (r < 0)
		return r;
	r = hl_get_eswitch_mode(hl, pf->pci, &mode);
	if (r == -EOPNOTSUPP)
		return 0;
	if (r < 0)
		return r;
	pf->has_eswitch = true;
	pf->eswitch_mode = mode;
	return 0;
}

/* Removed (hot-unplug) since it was listed. */
static bool pf_gone(struct host_linux *hl, const char *pci)
{
	char path[64];

	snprintf(path, sizeof(path), "bus/pci/devices/%s", pci);
	return faccessat(hl->sysfs_fd, path, F_OK, 0) < 0 && errno == ENOENT;
}

/* sysfs, then netlink by the netdev's name: when udev renames the netdev in
 * between ("eth0" to "enp1s0" at boot), the name is gone (-ENOENT) and the
 * PF is read again, with its new name. */
#define RENAME_TRIES 3

static int read_pf(struct host_linux *hl, const char *pci, struct pf_state *pf)
{
	int r = 0;

	for (unsigned i = 0; i < RENAME_TRIES; i++) {
		pf_state_done(pf);
		r = hl_read_pf_sysfs(hl, pci, pf);
		if (r < 0)
			return r;
		r = complete_pf(hl, pf);
		if (r != -ENOENT)
			break;
	}
	return r;
}

/* Every PF, or only the one at PCI address only. */
static int read_pfs(struct host_linux *hl, struct host_state *s, const char *only)
{
	_cleanup_strv_free_ char **pcis = NULL;
	size_t n;
	int r;

	r = hl_list_pfs(hl, &pcis);
	if (r < 0)
		return r;
	if (only) {
		bool found = strv_contains(pcis, only);

		pcis = strv_free(pcis);
		pcis = calloc(2, sizeof(char *));
		if (!pcis || (found && !(pcis[0] = strdup(only))))
			return -ENOMEM;
	}
	n = strv_length(pcis);
	if (n == 0)
		return 0;
	s->pfs = calloc(n, sizeof(*s->pfs));
	if (!s->pfs)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		struct pf_state *pf = &s->pfs[s->n_pfs];

		r = read_pf(hl, pcis[i], pf);
		if (r < 0) {
			pf_state_done(pf);
			if (pf_gone(hl, pcis[i]))
				continue;
			return r;
		}
		s->n_pfs++; /* from here on host_state_free() frees it */
	}
	return 0;
}

static int read_host(struct host_linux *hl, const char *only, struct host_state **ret)
{
	_cleanup_host_state_ struct host_state *s = calloc(1, sizeof(*s));
	int r;

	if (!s)
		return -ENOMEM;
	r = read_identity(hl, s);
	if (r >= 0)
		r = read_machine_id(hl, s);
	if (r >= 0)
		r = hl_list_modules(hl, &s->modules);
	if (r < 0)
		return r;
	s->iommu = hl_iommu_groups(hl);
	read_cpu_vendor(hl, s);
	hl_read_rdma_netns(hl, s);
	read_boot_id(hl, s);
	r = hl_read_boot_loader(hl, s);
	if (r >= 0)
		r = read_pfs(hl, s, only);
	if (r < 0)
		return r;
	*ret = TAKE_PTR(s);
	return 0;
}

static int linux_read(struct host *h, struct host_state **ret)
{
	return read_host(host_linux(h), NULL, ret);
}

static int linux_read_pf(struct host *h, const char *pci, struct host_state **ret)
{
	return read_host(host_linux(h), pci, ret);
}

static int not_supported(struct host *h, const char *what)
{
	host_set_error(h, "setting %s needs mstconfig, which this program does not use", what);
	return -EOPNOTSUPP;
}

/* The devlink eswitch request returns when the mode has changed: it takes
 * no timeout. */
static int linux_run(struct host *h, const char *pf, const struct action *a, usec_t timeout)
{
	struct host_linux *hl = host_linux(h);

	switch (a->type) {
	case ACTION_LOAD_MODULE:
		return hl_load_module(hl, a->str);
	case ACTION_SET_FIRMWARE_VFS:
		return hl->mstconfig ? hl_set_firmware_vfs(hl, pf, a->value, timeout) :
				       not_supported(h, "the firmware VF limit");
	case ACTION_SET_LINK_TYPE:
		return hl->mstconfig ? hl_set_link_type(hl, pf, (enum link_type)a->value, timeout) :
				       not_supported(h, "the firmware link type");
	case ACTION_SET_PF_MTU:
		return hl_set_pf_mtu(hl, pf, a->value);
	case ACTION_SET_PF_UP:
		return hl_set_pf_up(hl, pf);
	case ACTION_SET_AUTOPROBE:
		return hl_set_autoprobe(hl, pf, a->value != 0);
	case ACTION_SET_NUM_VFS:
		return hl_set_num_vfs(hl, pf, a->value, timeout);
	case ACTION_SET_ESWITCH_MODE:
		return hl_set_eswitch_mode(hl, pf, (enum eswitch_mode)a->value);
	case ACTION_SET_HW_TC_OFFLOAD:
		return hl_set_hw_tc_offload(hl, pf, a->value != 0);
	case ACTION_UNBIND_VF:
		return hl_unbind_vf(hl, pf, a->vf, timeout);
	case ACTION_SET_VF:
		return hl_set_vf(hl, pf, a->vf, &a->attrs, a->keys);
	case ACTION_BIND_VF:
		return hl_bind_vf(hl, pf, a->vf, a->str, timeout);
	case ACTION_SET_VF_MTU:
		return hl_set_vf_mtu(hl, pf, a->vf, a->value);
	case ACTION_SET_RDMA_NETNS_MODE:
		return hl_set_rdma_netns_mode(hl, (enum rdma_netns_mode)a->value);
	case ACTION_SET_REPRESENTOR_UP:
		return hl_set_representor_up(hl, pf, a->vf);
	case ACTION_SET_KERNEL_ARGUMENTS:
		return hl_set_kernel_arguments(hl, a->value != 0, a->str);
	case ACTION_FIRMWARE_RESET:
		return hl_firmware_reset(hl, pf, timeout);
	case _ACTION_TYPE_MAX:
	case _ACTION_TYPE_INVALID:
		break;
	}
	return -EINVAL;
}

static void linux_free(struct host *h)
{
	struct host_linux *hl = host_linux(h);

	if (hl->sysfs_fd >= 0)
		close(hl->sysfs_fd);
	if (hl->procfs_fd >= 0)
		close(hl->procfs_fd);
	nl_socket_free(hl->rtnl);
	nl_socket_free(hl->genl);
	hl_kmod_free(hl);
	udev_unref(hl->udev);
	free(hl->machine_id_path);
	free(hl->root);
	hl_firmware_forget(hl);
	free(hl->mstconfig);
	free(hl->mstfwreset);
	free(hl);
}

static const struct host_ops linux_ops = {
	.name = "linux",
	.read = linux_read,
	.read_pf = linux_read_pf,
	.run = linux_run,
	.free = linux_free,
};

static int open_root(const char *path, int *ret_fd)
{
	int fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	*ret_fd = fd;
	return 0;
}

int host_linux_open(const struct host_linux_options *o, struct host **ret)
{
	static const struct host_linux_options defaults = {};
	struct host_linux *hl = calloc(1, sizeof(*hl));
	int r;

	if (!hl)
		return -ENOMEM;
	o = o ?: &defaults;
	*hl = (struct host_linux){
		.host.ops = &linux_ops,
		.host.lock_fd = -EBADF,
		.host.rdma_async = true,
		.sysfs_fd = -EBADF,
		.procfs_fd = -EBADF,
		.settle_timeout = o->settle_timeout ?: 30 * USEC_PER_SEC,
		.vf_stats = o->vf_stats,
	};
	r = open_root(o->sysfs ?: "/sys", &hl->sysfs_fd);
	if (r >= 0)
		r = open_root(o->procfs ?: "/proc", &hl->procfs_fd);
	if (r >= 0 && !(hl->root = strdup(o->root && !streq(o->root, "/") ? o->root : "")))
		r = -ENOMEM;
	if (r >= 0)
		r = o->machine_id ?
			    free_and_strdup(&hl->machine_id_path, o->machine_id) :
			    path_under_root(o->root, "/etc/machine-id", &hl->machine_id_path);
	if (r >= 0 && !o->no_firmware &&
	    !(hl->mstconfig = strdup(o->mstconfig ?: "/usr/bin/mstconfig")))
		r = -ENOMEM;
	if (r >= 0 && !o->no_firmware &&
	    !(hl->mstfwreset = strdup(o->mstfwreset ?: "/usr/bin/mstfwreset")))
		r = -ENOMEM;
	if (r >= 0 && !(hl->udev = udev_new()))
		r = -ENOMEM;
	if (r < 0) {
		linux_free(&hl->host);
		return r;
	}
	*ret = &hl->host;
	return 0;
}
