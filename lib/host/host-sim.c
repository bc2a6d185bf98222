/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* The simulated host backend: the state is a snapshot JSON file. Every
 * operation is one transaction on it: lock, read, check the injected faults,
 * apply the kernel's rule (host-sim-kernel.c), write back atomically, unlock.
 * Several processes therefore see one consistent "kernel". */

#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>

#include "drivers.h"
#include "host-sim-internal.h"
#include "json-util.h"
#include "snapshot.h"

#define HANG_MAX_USEC (3600 * USEC_PER_SEC)
#define SNAPSHOT_SIZE_MAX (64u << 20)

struct sim {
	struct host host; /* first: the ops get &sim->host */
	char *path;
	/* successful operations through this handle, for "crash_after" */
	unsigned n_done;
};

/* One locked read-modify-write of the file. */
struct txn {
	int fd; /* holds the flock */
	struct host_state *state;
	struct sim_faults faults;
};

static void txn_done(struct txn *t)
{
	sim_faults_done(&t->faults);
	t->state = host_state_free(t->state);
	if (t->fd >= 0)
		close(t->fd);
	t->fd = -EBADF;
}

/* Locks path. The file is replaced by rename() on every write, so a lock
 * taken on an inode that is no longer the file's is dropped and retried. */
static int lock_file(const char *path, int op, int *ret_fd)
{
	for (unsigned attempt = 0; attempt < 1000; attempt++) {
		_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
		struct stat a, b;

		if (fd < 0)
			return -errno;
		while (flock(fd, op) < 0)
			if (errno != EINTR)
				return -errno;
		if (fstat(fd, &a) < 0)
			return -errno;
		if (stat(path, &b) < 0) {
			if (errno == ENOENT)
				continue; /* between unlink and rename elsewhere */
			return -errno;
		}
		if (a.st_dev == b.st_dev && a.st_ino == b.st_ino) {
			*ret_fd = TAKE_FD(fd);
			return 0;
		}
	}
	return -EAGAIN;
}

static int read_all(int fd, char **ret)
{
	_cleanup_free_ char *buf = NULL;
	size_t len;
	int r;

	r = read_fd(fd, SNAPSHOT_SIZE_MAX, &buf, &len);
	if (r < 0)
		return r;
	if (strlen(buf) != len)
		return -EINVAL; /* a NUL byte: not text */
	*ret = TAKE_PTR(buf);
	return 0;
}

static int txn_begin(struct sim *s, int lock, struct txn *t)
{
	_cleanup_free_ char *text = NULL, *error = NULL;
	int r;

	r = lock_file(s->path, lock, &t->fd);
	if (r < 0) {
		host_set_error(&s->host, "%s: %s", s->path, strerror(-r));
		return r;
	}
	r = read_all(t->fd, &text);
	if (r < 0) {
		host_set_error(&s->host, "%s: %s", s->path, strerror(-r));
		return r;
	}
	r = snapshot_parse(text, &t->state, &error);
	if (r >= 0)
		r = sim_faults_parse(text, &t->faults, &error);
	if (r < 0)
		host_set_error(&s->host, "%s: %s", s->path, error ?: strerror(-r));
	return r;
}

static int txn_text(const struct txn *t, char **ret)
{
	_cleanup_json_ struct json_object *o = NULL, *faults = NULL;
	int r;

	r = snapshot_to_json(t->state, &o);
	if (r >= 0)
		r = sim_faults_to_json(&t->faults, &faults);
	if (r < 0)
		return r;
	if (faults) {
		if (json_object_object_add(o, "faults", faults) < 0)
			return -ENOMEM;
		faults = NULL;
	}
	return snapshot_json_format(o, ret);
}

/* Writes the new state beside the file (exclusively: never through a link
 * someone placed there), fsyncs it and renames it over the file. */
static int txn_write(struct sim *s, const struct txn *t)
{
	_cleanup_free_ char *text = NULL, *dir = NULL;
	struct stat st;
	int r;

	r = txn_text(t, &text);
	if (r < 0)
		return r;
	dir = path_parent(s->path);
	if (!dir)
		return -ENOMEM;
	if (fstat(t->fd, &st) < 0)
		return -errno;
	r = write_file_atomic(dir, path_last_component(s->path), text, st.st_mode & 07777);
	if (r < 0)
		host_set_error(&s->host, "writing %s: %s", s->path, strerror(-r));
	return r;
}

static const char *hang_what(enum action_type t)
{
	return action_type_blocking(t) ?: action_type_to_string(t);
}

/* Really blocks, as a driver stuck in the kernel would. */
static void wait_usec(usec_t t)
{
	struct timespec now, end;

	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += (time_t)(t / USEC_PER_SEC);
	end.tv_nsec += (long)(t % USEC_PER_SEC) * 1000;
	if (end.tv_nsec >= 1000000000) {
		end.tv_sec++;
		end.tv_nsec -= 1000000000;
	}
	for (;;) {
		struct timespec left;

		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec > end.tv_sec ||
		    (now.tv_sec == end.tv_sec && now.tv_nsec >= end.tv_nsec))
			return;
		left.tv_sec = end.tv_sec - now.tv_sec;
		left.tv_nsec = end.tv_nsec - now.tv_nsec;
		if (left.tv_nsec < 0) {
			left.tv_sec--;
			left.tv_nsec += 1000000000;
		}
		(void)ppoll(NULL, 0, &left, NULL);
	}
}

static void set_timed_out(struct sim *s, const struct sim_request *rq, usec_t wait)
{
	if (wait % USEC_PER_SEC == 0)
		host_set_error(&s->host, "%s did not return within %" PRIu64 "s",
			       hang_what(rq->a->type), wait / USEC_PER_SEC);
	else
		host_set_error(&s->host, "%s did not return within %" PRIu64 "ms",
			       hang_what(rq->a->type), wait / USEC_PER_MSEC);
}

static usec_t hang_wait(const struct sim_request *rq)
{
	return rq->timeout == USEC_INFINITY || rq->timeout > HANG_MAX_USEC ? HANG_MAX_USEC :
									     rq->timeout;
}

/* The change of a hung write lands once the caller has given up on it, as
 * a driver that was slow, not stuck, makes it. */
static int land_late(struct sim *s, const struct sim_request *rq)
{
	_cleanup_(txn_done) struct txn t = { .fd = -EBADF };
	char error[sizeof(s->host.error)];
	int r;

	memcpy(error, s->host.error, sizeof(error));
	r = txn_begin(s, LOCK_EX, &t);
	if (r >= 0 && sim_kernel_apply(&s->host, t.state, rq) >= 0)
		r = txn_write(s, &t);
	memcpy(s->host.error, error, sizeof(error));
	return r < 0 ? r : -ETIMEDOUT;
}

/* An errno or hang fault fired: its count is written back, the state is not
 * touched. A hang waits without holding the lock, as other processes can
 * still read the state of a kernel stuck in one driver. */
static int fault_fire(struct sim *s, struct txn *t, const struct sim_request *rq,
		      const struct sim_fault *f)
{
	enum sim_fault_kind kind = f->kind;
	bool completes = f->completes;
	int error = f->error, r;
	usec_t wait;

	r = txn_write(s, t);
	txn_done(t);
	if (r < 0)
		return r;
	if (kind == SIM_FAULT_ERRNO) {
		host_set_error(&s->host, "injected %s on %s", sim_errno_name(error),
			       action_type_to_string(rq->a->type));
		return -error;
	}
	wait = hang_wait(rq);
	wait_usec(wait);
	set_timed_out(s, rq, wait);
	return completes ? land_late(s, rq) : -ETIMEDOUT;
}

/* The VFs from "first" on whose driver makes a netdev: it is there, or
 * not yet (probed, but none made). */
static int set_netdevs(struct host_state *hs, const char *pci, uint32_t first, bool present)
{
	struct pf_state *pf = host_state_find_pf(hs, pci);

	for (size_t i = first; pf && i < pf->n_vfs; i++)
		if (vf_driver_has_netdev(pf->vfs[i].attrs.driver) &&
		    sim_vf_netdev_set(pf, &pf->vfs[i], present) < 0)
			return -ENOMEM;
	return 0;
}

/* The first VF that should have a netdev and has none, or -ENOENT. */
static int first_without_netdev(const struct host_state *hs, const char *pci)
{
	const struct pf_state *pf = host_state_find_pf(hs, pci);

	for (size_t i = 0; pf && i < pf->n_vfs; i++)
		if (vf_driver_has_netdev(pf->vfs[i].attrs.driver) && !pf->vfs[i].name)
			return (int)i;
	return -ENOENT;
}

/* A netdevs fault after the VFs were made: VFs 0 .. netdevs-1 have their
 * netdevs, the others not yet. The state as the probes left it is written,
 * and the caller waits as the real backend waits for udev (within its
 * time-out): for the others to appear after after_ms, or, without after_ms
 * or with one past the wait, in vain (they do not appear later either: the
 * test makes them appear, as the driver would, when it wants them). */
static int netdevs_late(struct sim *s, struct txn *t, const struct sim_request *rq,
			const struct sim_fault *f)
{
	uint32_t netdevs = f->netdevs, after_ms = f->after_ms;
	usec_t wait = hang_wait(rq), late = after_ms * USEC_PER_MSEC;
	int r, vf;

	r = set_netdevs(t->state, rq->pf, netdevs, false);
	if (r >= 0)
		r = txn_write(s, t);
	vf = r >= 0 ? first_without_netdev(t->state, rq->pf) : -ENOENT;
	txn_done(t);
	if (r < 0 || vf < 0)
		return r < 0 ? r : 0; /* every VF has its netdev */
	if (after_ms && late <= wait) {
		wait_usec(late);
		r = txn_begin(s, LOCK_EX, t);
		if (r >= 0)
			r = set_netdevs(t->state, rq->pf, netdevs, true);
		if (r >= 0)
			r = txn_write(s, t);
		return r;
	}
	wait_usec(wait);
	r = txn_begin(s, LOCK_SH, t);
	if (r < 0)
		return r;
	vf = first_without_netdev(t->state, rq->pf);
	if (vf < 0)
		return 0;
	host_set_error(&s->host, "%s: VF %d has no network device after %" PRIu64 "ms", rq->pf, vf,
		       wait / USEC_PER_MSEC);
	return -ETIMEDOUT;
}

/* The crash fault due after this operation, if any. */
static struct sim_fault *crash_due(struct sim *s, struct txn *t, const struct sim_request *rq,
				   const char *vf_pci)
{
	for (size_t i = 0; i < t->faults.n; i++) {
		struct sim_fault *f = &t->faults.items[i];

		if (f->kind == SIM_FAULT_CRASH && s->n_done >= f->crash_after &&
		    sim_fault_matches(f, rq->a->type, rq->pf, vf_pci))
			return f;
	}
	return NULL;
}

static int sim_run(struct sim *s, const struct sim_request *rq)
{
	_cleanup_(txn_done) struct txn t = { .fd = -EBADF };
	char vf_pci[PCI_ADDR_MAX] = "";
	struct sim_fault *f;
	bool crash;
	int r;

	s->host.error[0] = '\0';
	r = txn_begin(s, LOCK_EX, &t);
	if (r < 0)
		return r;
	if (action_type_on_vf(rq->a->type) && sim_vf_pci(t.state, rq->pf, rq->a->vf, vf_pci) < 0)
		vf_pci[0] = '\0';
	f = sim_faults_fire(&t.faults, SIM_FAULT_ERRNO, rq->a->type, rq->pf,
			    vf_pci[0] ? vf_pci : NULL);
	if (f)
		return fault_fire(s, &t, rq, f);
	r = sim_kernel_apply(&s->host, t.state, rq);
	if (r < 0)
		return r;
	s->n_done++;
	f = crash_due(s, &t, rq, vf_pci[0] ? vf_pci : NULL);
	crash = f != NULL;
	if (crash)
		sim_faults_remove(&t.faults, f);
	f = rq->a->type == ACTION_SET_NUM_VFS && rq->a->value > 0 ?
		    sim_faults_fire(&t.faults, SIM_FAULT_NETDEVS, rq->a->type, rq->pf,
				    vf_pci[0] ? vf_pci : NULL) :
		    NULL;
	if (f && !crash)
		return netdevs_late(s, &t, rq, f);
	/* a crash as the VFs were probed: the netdevs the fault lets appear */
	r = f ? set_netdevs(t.state, rq->pf, f->netdevs, false) : 0;
	if (r >= 0 && rq->a->type == ACTION_BIND_VF &&
	    sim_faults_fire(&t.faults, SIM_FAULT_RANDOM_MAC, rq->a->type, rq->pf,
			    vf_pci[0] ? vf_pci : NULL))
		r = sim_vf_random_mac(t.state, rq->pf, rq->a->vf);
	if (r >= 0)
		r = txn_write(s, &t);
	if (r < 0)
		return r;
	if (crash)
		/* a crash right after the change reached the "kernel" */
		(void)kill(getpid(), SIGKILL);
	return 0;
}

static struct sim *to_sim(struct host *h)
{
	return (struct sim *)h;
}

static int sim_read(struct host *h, struct host_state **ret)
{
	_cleanup_(txn_done) struct txn t = { .fd = -EBADF };
	int r;

	r = txn_begin(to_sim(h), LOCK_SH, &t);
	if (r < 0)
		return r;
	*ret = TAKE_PTR(t.state);
	return 0;
}

static int sim_read_pf(struct host *h, const char *pci, struct host_state **ret)
{
	_cleanup_host_state_ struct host_state *hs = NULL;
	size_t k = 0;
	int r;

	r = sim_read(h, &hs);
	if (r < 0)
		return r;
	for (size_t i = 0; i < hs->n_pfs; i++) {
		if (streq(hs->pfs[i].pci, pci)) {
			struct pf_state t = hs->pfs[k];

			hs->pfs[k++] = hs->pfs[i];
			hs->pfs[i] = t;
		}
	}
	for (size_t i = k; i < hs->n_pfs; i++)
		pf_state_done(&hs->pfs[i]);
	hs->n_pfs = k;
	*ret = TAKE_PTR(hs);
	return 0;
}

/* Only the kernel calls that may hang (action_type_blocking) have a timeout:
 * a hang in any other waits as long as a hang may. */
static int sim_run_action(struct host *h, const char *pf, const struct action *a, usec_t timeout)
{
	const struct sim_request rq = {
		.pf = a->type == ACTION_LOAD_MODULE ? NULL : pf,
		.a = a,
		.timeout = action_type_blocking(a->type) ? timeout : USEC_INFINITY,
	};

	return sim_run(to_sim(h), &rq);
}

static void sim_free(struct host *h)
{
	struct sim *s = to_sim(h);

	free(s->path);
	free(s);
}

static const struct host_ops sim_ops = {
	.name = "simulated",
	.read = sim_read,
	.read_pf = sim_read_pf,
	.run = sim_run_action,
	.free = sim_free,
};

int host_sim_open(const char *path, struct host **ret)
{
	_cleanup_(txn_done) struct txn t = { .fd = -EBADF };
	struct sim *s = calloc(1, sizeof(*s));
	int r;

	if (!s)
		return -ENOMEM;
	s->host.ops = &sim_ops;
	s->host.lock_fd = -EBADF;
	/* absolute, for a daemon that changes its directory; through a
	 * symbolic link to the file it points to, which is what gets replaced */
	s->path = realpath(path, NULL);
	if (!s->path) {
		r = -errno;
		free(s);
		return r;
	}
	/* a file that is missing or does not parse fails here, not later */
	r = txn_begin(s, LOCK_SH, &t);
	if (r < 0) {
		sim_free(&s->host);
		return r;
	}
	*ret = &s->host;
	return 0;
}
