/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Applying layouts to a host: for every configured PF, under its lock:
 * desired state, plan, disruption policy, execution in plan order with
 * bounded time, read-back verification, status record. The one code path
 * that sriovctl, the udev helper and the daemon all use. */

#include "host.h"
#include "layout.h"
#include "mainconf.h"
#include "plan.h"
#include "status.h"

struct apply_pf_result;

struct apply_options {
	const struct mainconf *conf;
	const char *runtime_dir; /* status records and locks */
	const char *state_dir;	 /* what we created */
	/* only this PF (PCI address or interface name); NULL = all */
	const char *only;
	/* Called after each action with its result (0 or -errno); may be NULL. */
	void (*on_action)(const struct pf_state *pf, const struct action *a, int r,
			  const char *detail, void *userdata);
	/* Called once each PF is done, with its result, before the next PF
	 * starts: its lines and its outcome together; may be NULL. */
	void (*on_pf_done)(const struct apply_pf_result *res, void *userdata);
	void *userdata;
	/* the clock; NULL = CLOCK_REALTIME (tests pass their own) */
	usec_t (*now)(void);
	/* the node was drained for this apply: disruptive changes run whatever
	 * [Disruption] Policy= says */
	bool allow_disruptive;
	/* sriovctl reset, Reset(): instead of applying, remove what sriov-persist
	 * created on PFs that no layout selects any more (a disruptive change).
	 * A PF that a layout selects is left alone: with only set, that is a
	 * failure; without, it is not part of the result. */
	bool reset;
	/* Not NULL: every configured PF is held with this reason, and recorded so
	 * (the main configuration has errors: no one can tell its policy). */
	const char *hold;
	/* The PF lock is only tried, never waited for: a PF that another process
	 * (an apply unit, sriovctl) holds is left to it, and its result says
	 * busy (the daemon, whose event loop must never wait on a lock). */
	bool lock_nowait;
	/* Asked when a disruptive change waits for a drain: why that drain
	 * cannot run ("k8s-notify says: ...", kept by the caller until
	 * apply_run() returns) in *ret, NULL when it can; -ENOMEM. sriovctl
	 * asks k8s-notify's "credentials" verb. NULL: the Kubeconfig= file's
	 * owner and mode alone say it (mainconf_credentials_refusal()). */
	int (*drain_refusal)(void *userdata, const char **ret);
	void *drain_userdata;
	/* Asked when a disruptive change waits for a drain, which only
	 * sriov-persistd runs: > 0 when one manages this host, 0 when none
	 * does (nothing drains until one runs), < 0 when that is not known.
	 * sriovctl asks the bus (its apply and reset run here when no daemon
	 * does). NULL: not known (the daemon's own apply). */
	int (*drain_daemon)(void *userdata);
	void *drain_daemon_userdata;
	/* When drain_daemon says none runs: the command that starts one for
	 * the host, layouts and directories the caller reads ("sriov-persistd
	 * --host FILE ...", sriovctl's options as given); NULL: this machine's
	 * own (systemctl start sriov-persistd). */
	const char *drain_daemon_command;
};

struct apply_pf_result {
	struct pf_status status;
	bool configured; /* false: no layout selects it, never touched */
	bool changed;	 /* at least one action ran */
	/* a disruptive plan ran under Policy=drain without a drain: why
	 * (mainconf_without_drain()); NULL otherwise */
	const char *without_drain;
	/* the plan ran, and VFs it made anew lost settings that no layout sets
	 * (struct plan's dropped): "VF 0: recreated by the eswitch change to
	 * switchdev, without its vlan 33 (no layout sets it)"; NULL otherwise */
	char **dropped;
	/* the disruption policy deferred the plan: the reboot reasons that
	 * only its apply would set ("firmware VF limit 8 -> 12 takes effect
	 * after a reboot"), which status.reboot_reasons leaves out as nothing
	 * waits for them (plan_reboot_reasons_of(), !waiting); NULL otherwise */
	char **reboot_planned;
	/* DEFERRED until the node is drained (Policy=drain, Kubernetes enabled) */
	bool needs_drain;
	/* lock_nowait and another process holds the PF's lock: nothing done,
	 * nothing recorded (that process records its own result) */
	bool busy;
	/* The PF as apply_run last read it (after its actions, when any ran),
	 * NULL when it was not read: a caller that keeps a copy of the host
	 * may take it instead of reading the PF again. */
	struct host_state *read_back;
	/* a reset that found nothing of sriov-persist's left on the PF: why
	 * (pf_created_describe_gone()), NULL otherwise */
	char *nothing_left;
	/* that reset dropped the record of what sriov-persist created, which
	 * said more than is left (nothing_left says what), or of the VFs it
	 * created when the switchdev it set stays (eswitch_kept) */
	bool record_dropped;
	/* a reset left the eswitch that sriov-persist switched to switchdev
	 * as it is, and on its record, under VFs that are not its own: the
	 * driver changes the mode only without VFs (pf_created_eswitch_kept());
	 * a reset once they are gone sets it back */
	bool eswitch_kept;
	/* a reset of a PF whose status record carries a raise of its firmware
	 * VF limit still waiting for the reboot (pf_status_firmware_pending()):
	 * what the reset leaves of it (plan_firmware_kept()); NULL otherwise */
	char *firmware_kept;
};

struct apply_result {
	struct apply_pf_result *pfs;
	size_t n_pfs;
	struct diag_list diags; /* layout and hardware errors, file:line */
};

/* Applies set to every PF of h (or opts->only). Returns 0 when every
 * configured PF was applied, -EIO when any was held, deferred or failed
 * (ret is filled in either case), or another -errno when the host could not
 * be read (ret untouched; h->error has the detail). -ENXIO when opts->only
 * names no PF of the host. */
int apply_run(struct host *h, const struct layout_set *set, const struct apply_options *opts,
	      struct apply_result *ret);
void apply_result_done(struct apply_result *r);

/* Under [Disruption] Policy=drain with Kubernetes enabled, why the drain
 * cannot run, in the words an apply defers with, as far as running nothing
 * tells: k8s-notify not installed at k8s_notify (NULL: not looked at), or
 * the kubeconfig's owner and mode (mainconf_credentials_refusal()). *ret
 * NULL when neither says so; -ENOMEM. */
int apply_drain_cannot_run(const struct mainconf *c, const char *k8s_notify, char **ret);

/* The lock one PF is applied under: <runtime_dir>/lock/<pci>.lock, flock,
 * waits at most timeout. Returns the lock fd (close to release). */
int pf_lock(const char *runtime_dir, const char *pci, usec_t timeout);
