/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The host interface: how the rest of the code reads and changes SR-IOV state.
 * Two backends implement it: the simulated host (host-sim.c, a snapshot JSON
 * file following the kernel's rules) and the real Linux host (sysfs, netlink,
 * kmod). Every operation returns 0 or -errno; a backend may leave a detail
 * message in h->error (e.g. "write to sriov_numvfs timed out after 60s")
 * that callers add to their own context. Operations that can hang in the
 * kernel take a timeout and return -ETIMEDOUT when it passes. */

#include "action.h"
#include "model.h"

struct host;

struct host_ops {
	const char *name; /* "simulated", "linux" */
	/* The whole SR-IOV state: every PF with sriov_totalvfs, its VFs. */
	int (*read)(struct host *h, struct host_state **ret);
	/* The same, with only the PF at PCI address pci (none when it is gone
	 * or has no SR-IOV): what the daemon re-reads after an event. */
	int (*read_pf)(struct host *h, const char *pci, struct host_state **ret);
	/* Carries out a on the PF at PCI address pf (NULL for
	 * ACTION_LOAD_MODULE). timeout bounds the kernel calls that may hang
	 * (action_type_blocking); the disruption flags are not the backend's
	 * business. */
	int (*run)(struct host *h, const char *pf, const struct action *a, usec_t timeout);
	/* Optional: the apply of one PF begins (on) or ends (off); see
	 * host_begin(). Off returns what a deferred write returned. */
	int (*hold)(struct host *h, bool on);
	void (*free)(struct host *h);
};

#define HOST_ERROR_MAX 256

struct host {
	const struct host_ops *ops;
	char error[HOST_ERROR_MAX]; /* detail of the last failure, "" when none */
	/* The PF lock of the apply under way (-EBADF: none). A write that may
	 * hang runs in a process that holds it too: a write that timed out and
	 * lands later still does so under the lock, never under the next
	 * applier's. */
	int lock_fd;
	/* RDMA devices appear after the driver calls return (an auxiliary
	 * device probed later): a reader looks again for a while. The
	 * simulated host makes them at once. */
	bool rdma_async;
};

/* Call the backend after clearing h->error. */
int host_read(struct host *h, struct host_state **ret);
int host_read_pf(struct host *h, const char *pci, struct host_state **ret);
int host_run(struct host *h, const char *pf, const struct action *a, usec_t timeout);
/* The apply of one PF begins under its lock (lock_fd) and ends. In between,
 * the simulated host keeps its file locked and parsed and writes it once at
 * the end (and before anything that waits), so that an apply costs what its
 * PF has, not what the host has times its actions. host_end() returns
 * -errno when that write failed (the detail in h->error). */
void host_begin(struct host *h, int lock_fd);
int host_end(struct host *h);
struct host *host_free(struct host *h);
static inline void host_freep(struct host **h)
{
	host_free(*h);
}
#define _cleanup_host_ _cleanup_(host_freep)
/* Sets h->error (printf-style). */
void host_set_error(struct host *h, const char *fmt, ...) _printf_(2, 3);
