/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* What makes the daemon look again, without polling: udev (PCI and net
 * devices), rtnetlink link notifications (VF attributes are PF link
 * attributes), inotify on the layouts, the main configuration and the status
 * records that apply units write. With --host the simulated host's file is
 * the kernel, and inotify on it is the only kernel event. Each event marks the
 * PF it concerns; the manager coalesces the marks. */

#include <fcntl.h>
#include <libudev.h>
#include <limits.h>
#include <linux/rtnetlink.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>
#include <sys/inotify.h>
#include <syslog.h>

#include "events.h"
#include "layout-set.h"
#include "schedule.h"
#include "status.h"

#define SYSFS_PCI "/sys/bus/pci/devices"
#define SYSFS_NET "/sys/class/net"

struct manager_events {
	struct udev_monitor *monitor;
	sd_event_source *udev_source;
	struct nl_sock *nl;
	sd_event_source *nl_source;
	sd_event_source **watches;
	size_t n_watches;
	char **watched_dirs; /* layout directories that have a watch */
};

struct manager_events *manager_events_free(struct manager_events *e)
{
	if (!e)
		return NULL;
	sd_event_source_unref(e->udev_source);
	udev_monitor_unref(e->monitor);
	sd_event_source_unref(e->nl_source);
	nl_socket_free(e->nl);
	for (size_t i = 0; i < e->n_watches; i++)
		sd_event_source_unref(e->watches[i]);
	free(e->watches);
	strv_free(e->watched_dirs);
	free(e);
	return NULL;
}

/* The PF a PCI function belongs to: known from the last read, or a VF's
 * physfn, or a PF not seen before (it has sriov_totalvfs). */
static const char *pf_of_pci(struct manager *m, const char *pci, char buf[static PCI_ADDR_MAX])
{
	char path[PATH_MAX], target[PATH_MAX];
	const char *known = manager_pf_of_pci(m, pci);
	ssize_t n;

	if (known)
		return known;
	if (!pci_addr_is_valid(pci))
		return NULL;
	snprintf(path, sizeof(path), SYSFS_PCI "/%s/physfn", pci);
	n = readlink(path, target, sizeof(target) - 1);
	if (n > 0) {
		const char *name;

		target[n] = '\0';
		name = path_last_component(target);
		if (strlen(name) >= PCI_ADDR_MAX || !pci_addr_is_valid(name))
			return NULL;
		memcpy(buf, name, strlen(name) + 1);
		return buf;
	}
	snprintf(path, sizeof(path), SYSFS_PCI "/%s/sriov_totalvfs", pci);
	if (access(path, F_OK) < 0)
		return NULL;
	snprintf(buf, PCI_ADDR_MAX, "%s", pci);
	return buf;
}

static const char *pf_of_ifname(struct manager *m, const char *ifname,
				char buf[static PCI_ADDR_MAX])
{
	char path[PATH_MAX], target[PATH_MAX];
	const char *known = manager_pf_of_ifname(m, ifname);
	ssize_t n;

	if (known)
		return known;
	if (!ifname_is_valid(ifname))
		return NULL;
	snprintf(path, sizeof(path), SYSFS_NET "/%s/device", ifname);
	n = readlink(path, target, sizeof(target) - 1);
	if (n <= 0)
		return NULL;
	target[n] = '\0';
	return pf_of_pci(m, path_last_component(target), buf);
}

static int on_udev(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	struct manager *m = userdata;
	struct udev_device *d;

	while ((d = udev_monitor_receive_device(m->events->monitor))) {
		struct udev_device *pci =
			udev_device_get_parent_with_subsystem_devtype(d, "pci", NULL);
		const char *subsystem = udev_device_get_subsystem(d), *pf = NULL;
		char buf[PCI_ADDR_MAX];

		if (streq_ptr(subsystem, "pci"))
			pci = d;
		if (pci)
			pf = pf_of_pci(m, udev_device_get_sysname(pci), buf);
		if (!pf && streq_ptr(subsystem, "net"))
			pf = manager_pf_of_ifname(m, udev_device_get_sysname(d));
		if (pf)
			manager_mark_dirty(m, pf);
		udev_device_unref(d);
	}
	return 0;
}

static int start_udev(struct manager *m)
{
	struct manager_events *e = m->events;
	int r;

	if (!m->udev)
		m->udev = udev_new();
	if (!m->udev)
		return -ENOMEM;
	e->monitor = udev_monitor_new_from_netlink(m->udev, "udev");
	if (!e->monitor)
		return -errno ?: -ENOMEM;
	r = udev_monitor_filter_add_match_subsystem_devtype(e->monitor, "pci", NULL);
	if (r >= 0)
		r = udev_monitor_filter_add_match_subsystem_devtype(e->monitor, "net", NULL);
	if (r >= 0)
		r = udev_monitor_set_receive_buffer_size(e->monitor, 4 << 20);
	if (r >= 0)
		r = udev_monitor_enable_receiving(e->monitor);
	if (r < 0)
		return r;
	return sd_event_add_io(m->event, &e->udev_source, udev_monitor_get_fd(e->monitor), EPOLLIN,
			       on_udev, m);
}

static int on_link_msg(struct nl_msg *msg, void *arg)
{
	struct manager *m = arg;
	struct nlmsghdr *h = nlmsg_hdr(msg);
	struct nlattr *tb[IFLA_MAX + 1];
	const char *pf;
	char buf[PCI_ADDR_MAX];

	if (h->nlmsg_type != RTM_NEWLINK && h->nlmsg_type != RTM_DELLINK)
		return NL_OK;
	if (nlmsg_parse(h, sizeof(struct ifinfomsg), tb, IFLA_MAX, NULL) < 0 || !tb[IFLA_IFNAME])
		return NL_OK;
	pf = pf_of_ifname(m, nla_get_string(tb[IFLA_IFNAME]), buf);
	if (pf)
		manager_mark_dirty(m, pf);
	return NL_OK;
}

static int on_netlink(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	struct manager *m = userdata;

	for (;;) {
		int r = nl_recvmsgs_default(m->events->nl);

		if (r >= 0)
			continue;
		if (r == -NLE_AGAIN)
			break;
		/* the socket overflowed (ENOBUFS): notifications were lost */
		log_msg(LOG_DEBUG, "rtnetlink: %s; looking at every PF", nl_geterror(r));
		manager_mark_dirty(m, NULL);
		break;
	}
	return 0;
}

static int start_netlink(struct manager *m)
{
	struct manager_events *e = m->events;
	int r;

	e->nl = nl_socket_alloc();
	if (!e->nl)
		return -ENOMEM;
	nl_socket_disable_seq_check(e->nl);
	r = nl_socket_modify_cb(e->nl, NL_CB_VALID, NL_CB_CUSTOM, on_link_msg, m);
	if (r >= 0)
		r = nl_connect(e->nl, NETLINK_ROUTE);
	if (r >= 0)
		r = nl_socket_add_membership(e->nl, RTNLGRP_LINK);
	if (r >= 0)
		r = nl_socket_set_nonblocking(e->nl);
	if (r >= 0)
		r = nl_socket_set_buffer_size(e->nl, 4 << 20, 0);
	if (r < 0)
		return -EIO;
	return sd_event_add_io(m->event, &e->nl_source, nl_socket_get_fd(e->nl), EPOLLIN,
			       on_netlink, m);
}

static int add_watch(struct manager *m, const char *path, uint32_t mask,
		     sd_event_inotify_handler_t cb)
{
	struct manager_events *e = m->events;
	sd_event_source **n = reallocarray(e->watches, e->n_watches + 1, sizeof(*n));
	int r;

	if (!n)
		return -ENOMEM;
	e->watches = n;
	r = sd_event_add_inotify(m->event, &e->watches[e->n_watches], path, mask, cb, m);
	if (r < 0)
		return r;
	e->n_watches++;
	return 0;
}

static bool is_conf_name(const char *name)
{
	return name && endswith(name, ".conf") && name[0] != '.';
}

static int on_layout_dir(sd_event_source *s, const struct inotify_event *ev, void *userdata)
{
	if (ev->mask & (IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED) ||
	    (ev->len > 0 && is_conf_name(ev->name)))
		manager_mark_reload(userdata);
	return 0;
}

#define DIR_MASK                                                                                 \
	(IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_CLOSE_WRITE | IN_DELETE_SELF | \
	 IN_MOVE_SELF | IN_ATTRIB | IN_ONLYDIR)

static int watch_dirs(struct manager *m);

/* In a parent directory: a layout directory, the main configuration (or
 * its drop-in directory) or the Kubeconfig= file ([Kubernetes] Enabled=auto
 * is decided when the configuration is read) appeared, went or changed. */
static int on_parent(sd_event_source *s, const struct inotify_event *ev, void *userdata)
{
	struct manager *m = userdata;
	_cleanup_free_ char *main_d = NULL;
	const char *main = m->main_config ?: MAINCONF_PATH_DEFAULT;

	if (ev->len == 0)
		return 0;
	main_d = strdup_printf("%s.d", path_last_component(main));
	if (streq(ev->name, path_last_component(main)) || streq_ptr(ev->name, main_d) ||
	    streq(ev->name, "conf.d") ||
	    (m->config_dir && streq(ev->name, path_last_component(m->config_dir))) ||
	    (m->conf.kubeconfig && streq(ev->name, path_last_component(m->conf.kubeconfig)))) {
		(void)watch_dirs(m);
		manager_mark_reload(m);
	}
	return 0;
}

static int watch_one(struct manager *m, const char *dir, bool conf_files)
{
	_cleanup_free_ char *copy = strdup(dir);
	struct manager_events *e = m->events;
	int r;

	if (!copy)
		return -ENOMEM;
	if (strv_contains(e->watched_dirs, dir))
		return 0;
	r = add_watch(m, dir, DIR_MASK, conf_files ? on_layout_dir : on_parent);
	if (r == -ENOENT)
		return 0; /* its parent's watch sees it appear */
	if (r < 0)
		return log_msg(LOG_ERR, "Watching %s failed: %s", dir, strerror(-r)), r;
	return strv_extend(&e->watched_dirs, dir);
}

static int watch_dirs(struct manager *m)
{
	const char *const *dirs = layout_dirs_default;
	const char *one[] = { m->config_dir, NULL };
	const char *main = m->main_config ?: MAINCONF_PATH_DEFAULT;
	_cleanup_free_ char *main_d = strdup_printf("%s.d", main), *main_dir = path_parent(main);
	int r = 0;

	if (!main_d || !main_dir)
		return -ENOMEM;
	if (m->config_dir)
		dirs = one;
	for (size_t i = 0; r >= 0 && dirs[i]; i++) {
		_cleanup_free_ char *parent = path_parent(dirs[i]);

		if (!parent)
			return -ENOMEM;
		r = watch_one(m, dirs[i], true);
		if (r >= 0)
			r = watch_one(m, parent, false);
	}
	if (r >= 0)
		r = watch_one(m, main_d, true);
	if (r >= 0)
		r = watch_one(m, main_dir, false);
	if (r >= 0 && m->conf.kubeconfig) {
		_cleanup_free_ char *kube_dir = path_parent(m->conf.kubeconfig);

		r = kube_dir ? watch_one(m, kube_dir, false) : -ENOMEM;
	}
	return r;
}

/* A reload may name another Kubeconfig= file. */
static void on_event(struct manager *m, const struct manager_event *ev, void *userdata)
{
	if (ev->type == MANAGER_CONFIG_LOADED && m->events && watch_dirs(m) < 0)
		log_msg(LOG_WARNING, "Cannot watch the directory of %s", strna(m->conf.kubeconfig));
}

/* The simulated host's file written, replaced, removed or renamed away:
 * the host is read again, and one that is gone is a read that failed. */
static int on_host_file(sd_event_source *s, const struct inotify_event *ev, void *userdata)
{
	struct manager *m = userdata;

	if (ev->len > 0 && streq(ev->name, path_last_component(m->host_path)))
		manager_mark_dirty(m, NULL);
	return 0;
}

/* Apply units and sriovctl write a PF's record when they are done with it. */
static int on_record(sd_event_source *s, const struct inotify_event *ev, void *userdata)
{
	char pci[PCI_ADDR_MAX];

	if (ev->len == 0 || !endswith(ev->name, ".json") || strlen(ev->name) - 5 >= PCI_ADDR_MAX)
		return 0;
	snprintf(pci, sizeof(pci), "%.*s", (int)(strlen(ev->name) - 5), ev->name);
	if (pci_addr_is_valid(pci))
		manager_mark_dirty(userdata, pci);
	return 0;
}

void manager_events_drain(struct manager *m)
{
	struct manager_events *e = m->events;

	if (e && e->monitor)
		(void)on_udev(e->udev_source, udev_monitor_get_fd(e->monitor), EPOLLIN, m);
	if (e && e->nl)
		(void)on_netlink(e->nl_source, nl_socket_get_fd(e->nl), EPOLLIN, m);
}

int manager_events_start(struct manager *m)
{
	_cleanup_free_ char *records = strdup_printf("%s/pf", m->runtime_dir);
	int r;

	m->events = calloc(1, sizeof(*m->events));
	if (!m->events || !records)
		return -ENOMEM;
	r = manager_observe(m, on_event, NULL);
	if (r < 0)
		return r;
	m->watching = true;
	r = watch_dirs(m);
	if (r < 0) /* watch_one() said which directory */
		return r;
	r = mkdir_p(records, 0755);
	if (r >= 0)
		r = add_watch(m, records, IN_CLOSE_WRITE | IN_MOVED_TO | IN_ONLYDIR, on_record);
	if (r < 0)
		return log_msg(LOG_ERR, "Watching %s failed: %s", records, strerror(-r)), r;
	if (m->host_path) {
		_cleanup_free_ char *dir = path_parent(m->host_path);

		if (!dir)
			return -ENOMEM;
		r = add_watch(m, dir,
			      IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE | IN_ONLYDIR,
			      on_host_file);
		if (r < 0)
			log_msg(LOG_ERR, "Watching %s failed: %s", m->host_path, strerror(-r));
		return r;
	}
	r = start_udev(m);
	if (r < 0)
		return log_msg(LOG_ERR, "Listening to udev failed: %s", strerror(-r)), r;
	r = start_netlink(m);
	if (r < 0)
		log_msg(LOG_ERR, "Listening to rtnetlink failed: %s", strerror(-r));
	return r;
}
