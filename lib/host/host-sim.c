/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* The simulated host backend: the state is a snapshot JSON file. Every
 * operation is one transaction on it: lock, read, check the injected faults,
 * apply the kernel's rule (host-sim-kernel.c), write back atomically, unlock.
 * Several processes therefore see one consistent "kernel". While the apply
 * of one PF is under way (host_begin() to host_end()), its operations share
 * one transaction: the file is locked and parsed at the first of them and
 * written once at the end, or before anything that waits (a hang, VF
 * netdevs that come late) and before an injected crash, so that what
 * reached the "kernel" is always in the file when someone else can look. */

#include <assert.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>

#include "boot-loader.h"
#include "drivers.h"
#include "host-sim-internal.h"
#include "json-util.h"
#include "snapshot.h"

#define HANG_MAX_USEC (3600 * USEC_PER_SEC)
#define SNAPSHOT_SIZE_MAX (64u << 20)

/* One locked read-modify-write of the file. */
struct txn {
	int fd; /* holds the flock */
	struct host_state *state;
	struct sim_faults faults;
};

struct sim {
	struct host host; /* first: the ops get &sim->host */
	char *path;
	/* successful operations through this handle, for "crash_after" */
	unsigned n_done;
	/* between host_begin() and host_end(): the transaction the operations
	 * share (open while batch.fd >= 0), and whether it changed the state */
	bool holding;
	bool dirty;
	struct txn batch;
	/* what the shared transaction left in the file when it ended, and the
	 * state parsed from it: a next transaction that finds exactly this
	 * text takes the state instead of parsing it again */
	char *cache_text;
	struct txn cache;
	/* each PF's text as last written, while the shared transaction or the
	 * cache has the state it describes; NULL for a PF changed since */
	char **pf_texts;
	size_t n_pf_texts;
	/* sriovctl --root: the directory whose boot loader configuration the
	 * snapshot's boot_loader reads (host_sim_set_root()); NULL: none */
	char *boot_root;
};

static void txn_done(struct txn *t)
{
	sim_faults_done(&t->faults);
	t->state = host_state_free(t->state);
	if (t->fd >= 0)
		close(t->fd);
	t->fd = -EBADF;
}

/* Locks path, a regular file. The file is replaced by rename() on every
 * write, so a lock taken on an inode that is no longer the file's is dropped
 * and retried. */
static int lock_file(const char *path, int op, int *ret_fd)
{
	for (unsigned attempt = 0; attempt < 1000; attempt++) {
		_cleanup_close_ int fd = open_regular_at(AT_FDCWD, path, NULL);
		struct stat a, b;

		if (fd < 0)
			return fd;
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

static void pf_texts_drop(struct sim *s)
{
	for (size_t i = 0; i < s->n_pf_texts; i++)
		free(s->pf_texts[i]);
	s->pf_texts = mfree(s->pf_texts);
	s->n_pf_texts = 0;
}

/* The PF at pci (every PF: NULL) is about to change; with card, every PF
 * of its device (NUM_OF_VFS is one setting of the card). */
static void pf_text_forget_card(struct sim *s, const struct host_state *hs, const char *pci,
				bool card)
{
	for (size_t i = 0; i < s->n_pf_texts && i < hs->n_pfs; i++)
		if (!pci || streq(hs->pfs[i].pci, pci) ||
		    (card && pci_same_device(hs->pfs[i].pci, pci)))
			s->pf_texts[i] = mfree(s->pf_texts[i]);
}

static void pf_text_forget(struct sim *s, const struct host_state *hs, const char *pci)
{
	pf_text_forget_card(s, hs, pci, false);
}

static void cache_drop(struct sim *s)
{
	s->cache_text = mfree(s->cache_text);
	txn_done(&s->cache);
}

/* The cached state when the file holds text, which the cache then gives up. */
static bool cache_take(struct sim *s, const char *text, struct txn *t)
{
	bool hit = s->cache_text && streq(s->cache_text, text);

	if (hit) {
		t->state = TAKE_PTR(s->cache.state);
		t->faults = s->cache.faults;
		s->cache.faults = (struct sim_faults){};
	} else
		pf_texts_drop(s);
	cache_drop(s);
	return hit;
}

/* As the kernel shows it: a VF's MTU is its network interface's, which a
 * VF without one in this namespace does not have (host-linux-sysfs.c reads
 * it by the interface's name), whatever "mtu" a snapshot gives it. */
static void vf_mtus_of_netdevs(struct host_state *hs)
{
	for (size_t i = 0; i < hs->n_pfs; i++)
		for (size_t j = 0; j < hs->pfs[i].n_vfs; j++)
			if (!hs->pfs[i].vfs[j].name)
				hs->pfs[i].vfs[j].attrs.mtu = 0;
}

static int txn_begin(struct sim *s, int lock, struct txn *t)
{
	_cleanup_free_ char *text = NULL, *error = NULL;
	_cleanup_json_ struct json_object *root = NULL;
	int r;

	r = lock_file(s->path, lock, &t->fd);
	if (r < 0) {
		host_set_error(&s->host, "%s: %s", s->path, read_strerror(r));
		return r;
	}
	r = read_all(t->fd, &text);
	if (r < 0) {
		host_set_error(&s->host, "%s: %s", s->path, strerror(-r));
		return r;
	}
	if (cache_take(s, text, t))
		return 0;
	r = snapshot_parse_root(text, &t->state, &root, &error);
	if (r >= 0)
		r = sim_faults_parse(root, &t->faults, &error);
	if (r >= 0) {
		t->state->findable_modules = sim_known_modules;
		vf_mtus_of_netdevs(t->state);
	}
	if (r < 0)
		host_set_error(&s->host, "%s: %s%s", s->path,
			       error ? "not a simulated host snapshot: " : "",
			       error ?: strerror(-r));
	return r;
}

/* The PF texts for writing the shared transaction's state: those kept,
 * the others made (and kept). */
static int pf_texts_update(struct sim *s, const struct host_state *hs)
{
	if (s->n_pf_texts != hs->n_pfs) {
		pf_texts_drop(s);
		s->pf_texts = calloc(hs->n_pfs ?: 1, sizeof(*s->pf_texts));
		if (!s->pf_texts)
			return -ENOMEM;
		s->n_pf_texts = hs->n_pfs;
	}
	for (size_t i = 0; i < hs->n_pfs; i++)
		if (!s->pf_texts[i]) {
			int r = snapshot_pf_format(&hs->pfs[i], &s->pf_texts[i]);

			if (r < 0)
				return r;
		}
	return 0;
}

static int txn_text(struct sim *s, const struct txn *t, char **ret)
{
	_cleanup_json_ struct json_object *o = NULL, *faults = NULL;
	int r;

	if (t == &s->batch) {
		r = pf_texts_update(s, t->state);
		if (r >= 0)
			r = snapshot_to_json_texts(t->state, s->pf_texts, &o);
	} else
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
static int txn_write_text(struct sim *s, const struct txn *t, char **ret_text)
{
	_cleanup_free_ char *text = NULL, *dir = NULL;
	struct stat st;
	int r;

	r = txn_text(s, t, &text);
	if (r < 0)
		return r;
	dir = path_parent(s->path);
	if (!dir)
		return -ENOMEM;
	if (fstat(t->fd, &st) < 0)
		return -errno;
	r = write_file_atomic(dir, path_last_component(s->path), text, st.st_mode & 07777);
	if (r < 0) {
		host_set_error(&s->host, "writing %s: %s", s->path, strerror(-r));
		return r;
	}
	if (ret_text)
		*ret_text = TAKE_PTR(text);
	return 0;
}

static int txn_write(struct sim *s, const struct txn *t)
{
	return txn_write_text(s, t, NULL);
}

/* The transaction an operation works in: the shared one while a PF's apply
 * is under way (opened here when it is not), else own, begun here. */
static int txn_open(struct sim *s, int lock, struct txn *own, struct txn **ret)
{
	int r;

	if (!s->holding) {
		*ret = own;
		return txn_begin(s, lock, own);
	}
	if (s->batch.fd < 0) {
		r = txn_begin(s, LOCK_EX, &s->batch);
		if (r < 0) {
			txn_done(&s->batch);
			return r;
		}
	}
	*ret = &s->batch;
	return 0;
}

/* t's state changed: written now, or at the end of the shared one. */
static int txn_commit(struct sim *s, struct txn *t)
{
	if (t == &s->batch) {
		s->dirty = true;
		return 0;
	}
	return txn_write(s, t);
}

/* Before a wait, or at the end: what t changed is in the file and the lock
 * is free. The shared transaction opens again at the next operation. */
static int txn_release(struct sim *s, struct txn *t)
{
	_cleanup_free_ char *text = NULL;
	int r = 0;

	if (t != &s->batch) {
		txn_done(t);
		return 0;
	}
	if (s->dirty && t->fd >= 0) {
		r = txn_write_text(s, t, &text);
		/* the next PF's apply finds the file as written here */
		if (r >= 0) {
			cache_drop(s);
			s->cache_text = TAKE_PTR(text);
			s->cache.state = TAKE_PTR(t->state);
			s->cache.faults = t->faults;
			t->faults = (struct sim_faults){};
		}
	}
	s->dirty = false;
	txn_done(t);
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
	_cleanup_(txn_done) struct txn own = { .fd = -EBADF };
	char error[sizeof(s->host.error)];
	struct txn *t;
	int r;

	memcpy(error, s->host.error, sizeof(error));
	r = txn_open(s, LOCK_EX, &own, &t);
	if (r >= 0 && t == &s->batch)
		pf_text_forget(s, t->state, rq->pf);
	if (r >= 0 && sim_kernel_apply(&s->host, t->state, rq) >= 0)
		r = txn_commit(s, t);
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

	r = txn_commit(s, t);
	if (r >= 0)
		r = txn_release(s, t);
	else
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
		r = txn_commit(s, t);
	vf = r >= 0 ? first_without_netdev(t->state, rq->pf) : -ENOENT;
	if (r < 0 || vf < 0)
		return r < 0 ? r : 0; /* every VF has its netdev */
	r = txn_release(s, t);
	if (r < 0)
		return r;
	if (after_ms && late <= wait) {
		wait_usec(late);
		r = txn_open(s, LOCK_EX, t, &t);
		if (r >= 0 && t == &s->batch)
			pf_text_forget(s, t->state, rq->pf);
		if (r >= 0)
			r = set_netdevs(t->state, rq->pf, netdevs, true);
		if (r >= 0)
			r = txn_commit(s, t);
		return r;
	}
	wait_usec(wait);
	r = txn_open(s, LOCK_SH, t, &t);
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

/* What the faults make of a change the "kernel" has made (vf: its VF's
 * PCI address, or NULL): netdevs that come late, a random MAC after a
 * bind, a crash right after it; the change committed. */
static int sim_settle(struct sim *s, struct txn *t, const struct sim_request *rq, const char *vf)
{
	struct sim_fault *f = crash_due(s, t, rq, vf);
	bool crash = f != NULL;
	int r;

	if (crash)
		sim_faults_remove(&t->faults, f);
	f = rq->a->type == ACTION_SET_NUM_VFS && rq->a->value > 0 ?
		    sim_faults_fire(&t->faults, SIM_FAULT_NETDEVS, rq->a->type, rq->pf, vf) :
		    NULL;
	if (f && !crash)
		return netdevs_late(s, t, rq, f);
	/* a crash as the VFs were probed: the netdevs the fault lets appear */
	r = f ? set_netdevs(t->state, rq->pf, f->netdevs, false) : 0;
	if (r >= 0 && rq->a->type == ACTION_BIND_VF &&
	    sim_faults_fire(&t->faults, SIM_FAULT_RANDOM_MAC, rq->a->type, rq->pf, vf))
		r = sim_vf_random_mac(t->state, rq->pf, rq->a->vf);
	if (r >= 0)
		r = txn_commit(s, t);
	if (r < 0)
		return r;
	if (crash) {
		/* a crash right after the change reached the "kernel" */
		r = txn_release(s, t);
		if (r < 0)
			return r;
		(void)kill(getpid(), SIGKILL);
	}
	return 0;
}

static int sim_run(struct sim *s, const struct sim_request *rq)
{
	_cleanup_(txn_done) struct txn own = { .fd = -EBADF };
	char vf_pci[PCI_ADDR_MAX] = "";
	struct sim_fault *f;
	struct txn *t;
	int r;

	s->host.error[0] = '\0';
	r = txn_open(s, LOCK_EX, &own, &t);
	if (r < 0)
		return r;
	/* whatever happens next may change it (NULL: a module, for every PF) */
	if (t == &s->batch)
		pf_text_forget_card(s, t->state, rq->pf,
				    rq->a->type == ACTION_SET_FIRMWARE_VFS ||
					    rq->a->type == ACTION_FIRMWARE_RESET);
	if (action_type_on_vf(rq->a->type) && sim_vf_pci(t->state, rq->pf, rq->a->vf, vf_pci) < 0)
		vf_pci[0] = '\0';
	f = sim_faults_fire(&t->faults, SIM_FAULT_ERRNO, rq->a->type, rq->pf,
			    vf_pci[0] ? vf_pci : NULL);
	if (f)
		return fault_fire(s, t, rq, f);
	if (rq->a->type == ACTION_FIRMWARE_RESET &&
	    sim_faults_fire(&t->faults, SIM_FAULT_NO_EFFECT, rq->a->type, rq->pf, NULL)) {
		struct sim_request ne = *rq;

		ne.no_effect = true;
		r = sim_kernel_apply(&s->host, t->state, &ne);
	} else
		r = sim_kernel_apply(&s->host, t->state, rq);
	if (r < 0)
		return r;
	s->n_done++;
	return sim_settle(s, t, rq, vf_pci[0] ? vf_pci : NULL);
}

static struct sim *to_sim(struct host *h)
{
	return (struct sim *)h;
}

/* With a root directory, what its boot loader configuration gives the
 * next boot, as the real host reads its own (host-linux-boot.c). */
static int sim_boot_config(struct sim *s, struct host_state *state)
{
	int r;

	if (!s->boot_root)
		return 0;
	state->boot_loader_from_snapshot = true;
	r = boot_loader_cmdlines(s->boot_root, state->boot_loader, &state->boot_cmdlines,
				 &state->boot_iommu_off, &state->boot_config_error);
	return r == -ENOMEM ? r : 0;
}

static int sim_read(struct host *h, struct host_state **ret)
{
	_cleanup_(txn_done) struct txn own = { .fd = -EBADF };
	struct sim *s = to_sim(h);
	struct txn *t;
	int r;

	r = txn_open(s, LOCK_SH, &own, &t);
	if (r < 0)
		return r;
	if (t == &s->batch)
		r = host_state_copy(t->state, ret);
	else
		*ret = TAKE_PTR(t->state);
	if (r >= 0 && (r = sim_boot_config(s, *ret)) < 0)
		*ret = host_state_free(*ret);
	return r;
}

static int sim_read_pf(struct host *h, const char *pci, struct host_state **ret)
{
	_cleanup_(txn_done) struct txn own = { .fd = -EBADF };
	struct sim *s = to_sim(h);
	struct txn *t;
	int r;

	r = txn_open(s, LOCK_SH, &own, &t);
	if (r < 0)
		return r;
	r = host_state_copy_pf(t->state, pci, ret);
	if (r >= 0 && (r = sim_boot_config(s, *ret)) < 0)
		*ret = host_state_free(*ret);
	return r;
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

static int sim_hold(struct host *h, bool on)
{
	struct sim *s = to_sim(h);
	int r;

	if (on) {
		s->holding = true;
		return 0;
	}
	r = txn_release(s, &s->batch);
	s->holding = false;
	return r;
}

static void sim_free(struct host *h)
{
	struct sim *s = to_sim(h);

	/* a handle freed between host_begin() and host_end() still writes
	 * what its operations did */
	if (s->holding)
		(void)sim_hold(h, false);
	cache_drop(s);
	pf_texts_drop(s);
	free(s->boot_root);
	free(s->path);
	free(s);
}

static const struct host_ops sim_ops = {
	.name = "simulated",
	.read = sim_read,
	.read_pf = sim_read_pf,
	.run = sim_run_action,
	.hold = sim_hold,
	.free = sim_free,
};

int host_sim_set_root(struct host *h, const char *root)
{
	struct sim *s = to_sim(h);

	assert(h->ops == &sim_ops);
	free(s->boot_root);
	s->boot_root = root && !streq(root, "/") ? strdup(root) : NULL;
	return root && !streq(root, "/") && !s->boot_root ? -ENOMEM : 0;
}

int host_sim_open(const char *path, struct host **ret, char *ret_error)
{
	_cleanup_(txn_done) struct txn t = { .fd = -EBADF };
	struct sim *s = calloc(1, sizeof(*s));
	int r;

	if (!s)
		return -ENOMEM;
	s->host.ops = &sim_ops;
	s->host.lock_fd = -EBADF;
	s->batch.fd = -EBADF;
	s->cache.fd = -EBADF;
	/* absolute, for a daemon that changes its directory; through a
	 * symbolic link to the file it points to, which is what gets replaced */
	if (ret_error)
		ret_error[0] = '\0';
	s->path = realpath(path, NULL);
	if (!s->path) {
		r = -errno;
		free(s);
		return r;
	}
	/* a file that is missing or does not parse fails here, not later */
	r = txn_begin(s, LOCK_SH, &t);
	if (r < 0) {
		if (ret_error && r == -EINVAL) /* the parser's: errno cannot say it */
			snprintf(ret_error, HOST_ERROR_MAX, "%s", s->host.error);
		sim_free(&s->host);
		return r;
	}
	*ret = &s->host;
	return 0;
}
