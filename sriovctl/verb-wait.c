/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* The boot gate: returns once every PF that a layout selects has a status
 * record from this boot. Woken by inotify on the records directory (the
 * apply units write records with rename()), bounded by --timeout. */

#include <libudev.h>
#include <poll.h>
#include <sys/inotify.h>
#include <time.h>

#include "sriovctl.h"

static usec_t boot_realtime(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_BOOTTIME, &ts);
	return now_realtime() - ((usec_t)ts.tv_sec * USEC_PER_SEC + (usec_t)ts.tv_nsec / 1000);
}

struct progress {
	size_t configured, done, applied;
	char *missing; /* PFs without a record, space-separated */
};

static int check_records(struct ctl *c, usec_t since, struct progress *ret)
{
	struct progress p = {};
	struct host_view v;
	_cleanup_strv_free_ char **missing = calloc(1, sizeof(char *));

	if (!missing || ctl_host_view(c, &v) < 0)
		return -EIO;
	for (size_t i = 0; i < v.n_pfs; i++) {
		struct pf_status st;

		if (!v.pfs[i].desired)
			continue;
		p.configured++;
		if (pf_status_read(c->runtime_dir, v.pfs[i].pf->pci, &st) >= 0 &&
		    st.finished >= since) {
			p.done++;
			p.applied += st.state == PF_STATUS_APPLIED;
			pf_status_done(&st);
		} else if (strv_extend(&missing, v.pfs[i].pf->pci) < 0) {
			host_view_done(&v);
			return -ENOMEM;
		}
	}
	host_view_done(&v);
	p.missing = strv_join(missing, " ");
	if (!p.missing)
		return -ENOMEM;
	*ret = p;
	return 0;
}

static int watch_records(const char *runtime_dir)
{
	_cleanup_free_ char *dir = strdup_printf("%s/pf", runtime_dir);
	int fd, r;

	if (!dir)
		return -ENOMEM;
	r = mkdir_p(dir, 0755);
	if (r < 0)
		return r;
	fd = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
	if (fd < 0)
		return -errno;
	if (inotify_add_watch(fd, dir, IN_MOVED_TO | IN_CLOSE_WRITE) < 0) {
		r = -errno;
		close(fd);
		return r;
	}
	return fd;
}

static void drain(int fd)
{
	char buf[4096];

	while (read(fd, buf, sizeof(buf)) > 0)
		;
}

/* Until udev has handled every queued event (coldplug included): before that,
 * a PF's driver may not be bound yet and its layout may not select it. */
static int wait_udev_queue(usec_t deadline)
{
	struct udev *udev = udev_new();
	struct udev_queue *q = udev ? udev_queue_new(udev) : NULL;
	int r = -ENOMEM, fd;

	if (!q)
		goto out;
	fd = udev_queue_get_fd(q);
	for (;;) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		usec_t now = now_monotonic();

		if (udev_queue_get_queue_is_empty(q)) {
			r = 0;
			break;
		}
		if (fd < 0 || now >= deadline) {
			r = fd < 0 ? fd : -ETIMEDOUT;
			break;
		}
		if (poll(&pfd, 1, (int)((deadline - now) / USEC_PER_MSEC) + 1) > 0)
			udev_queue_flush(q);
	}
out:
	udev_queue_unref(q);
	udev_unref(udev);
	return r;
}

int verb_wait(struct ctl *c)
{
	_cleanup_close_ int fd = -EBADF;
	usec_t deadline = now_monotonic() + c->timeout, since = boot_realtime();
	struct progress p;
	int r;

	if (!c->host_path) {
		r = wait_udev_queue(deadline);
		if (r < 0)
			fprintf(stderr, "Waiting for udev to settle failed: %s; going on\n",
				strerror(-r));
	}
	fd = watch_records(c->runtime_dir);
	if (fd < 0) {
		fprintf(stderr, "Watching %s/pf failed: %s\n", c->runtime_dir, strerror(-fd));
		return EXIT_FAIL;
	}
	for (;;) {
		usec_t now = now_monotonic();
		struct pollfd pfd = { .fd = fd, .events = POLLIN };

		/* Read the records after draining the events, so that none is lost. */
		drain(fd);
		if (check_records(c, since, &p) < 0)
			return EXIT_FAIL;
		if (p.done == p.configured || now >= deadline)
			break;
		free(p.missing);
		r = poll(&pfd, 1, (int)((deadline - now + USEC_PER_MSEC - 1) / USEC_PER_MSEC));
		if (r < 0 && errno != EINTR) {
			fprintf(stderr, "Waiting failed: %m\n");
			return EXIT_FAIL;
		}
	}
	if (p.done < p.configured)
		printf("Timed out after %llus; not applied yet: %s\n",
		       (unsigned long long)(c->timeout / USEC_PER_SEC), p.missing);
	else
		printf("%zu configured PF(s): %zu applied, %zu not (see sriovctl status)\n",
		       p.configured, p.applied, p.configured - p.applied);
	free(p.missing);
	return p.done == p.configured && p.applied == p.configured ? EXIT_OK : EXIT_FAIL;
}
