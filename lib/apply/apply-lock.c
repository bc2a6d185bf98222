/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* The lock a PF is applied or reset under, and the end of the host's
 * transaction that runs under it. */

#include <fcntl.h>
#include <sys/file.h>

#include "apply-internal.h"

int pf_lock(const char *runtime_dir, const char *pci, usec_t timeout)
{
	_cleanup_free_ char *dir = NULL, *path = NULL;
	_cleanup_close_ int fd = -EBADF;
	usec_t deadline = now_monotonic() + timeout, wait = USEC_PER_MSEC;
	int r;

	if (!pci_addr_is_valid(pci))
		return -EINVAL;
	dir = strdup_printf("%s/lock", runtime_dir);
	path = strdup_printf("%s/lock/%s.lock", runtime_dir, pci);
	if (!dir || !path)
		return -ENOMEM;
	r = mkdir_owned(runtime_dir, 0755);
	if (r >= 0)
		r = mkdir_owned(dir, 0755);
	if (r < 0)
		return r;
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return -errno;
	/* flock() has no timeout of its own; poll it with a growing interval. */
	while (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		if (errno != EWOULDBLOCK && errno != EINTR)
			return -errno;
		if (now_monotonic() >= deadline)
			return -ETIMEDOUT;
		usleep((useconds_t)wait);
		if (wait < 50 * USEC_PER_MSEC)
			wait *= 2;
	}
	return TAKE_FD(fd);
}

/* The PF's lock, or -errno with the outcome set: failed, or busy (another
 * process holds it, lock_nowait). */
int apply_take_lock(struct pf_run *run, const struct pf_state *pf)
{
	const struct apply_options *o = run->opts;
	int lock = pf_lock(o->runtime_dir, pf->pci, o->lock_nowait ? 0 : o->conf->apply_timeout);

	if (lock == -ETIMEDOUT && o->lock_nowait) {
		run->res->busy = true;
		return lock;
	}
	if (lock < 0) {
		int r = apply_set_outcome(run->res, PF_STATUS_FAILED,
					  strdup_printf("taking the lock in %s/lock failed: %s",
							o->runtime_dir, strerror(-lock)));

		return r < 0 ? r : lock;
	}
	return lock;
}

/* The PF's apply or reset ends (host_end()); r is what it returned. A
 * simulated host whose file could not be written has lost what was done:
 * the PF failed. */
int apply_end_host(struct pf_run *run, int r)
{
	int k = host_end(run->host);

	if (r < 0 || k >= 0)
		return r;
	return apply_set_outcome(run->res, PF_STATUS_FAILED,
				 strdup_printf("writing the host's state failed: %s",
					       run->host->error[0] ? run->host->error :
								     strerror(-k)));
}
