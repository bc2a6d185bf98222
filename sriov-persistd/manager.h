/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* sriov-persistd's core: the host backend, the layouts and main
 * configuration, the last observed state of every PF (one entry each), and
 * the observers that hear of every change. Each module around it owns its
 * own part and registers as an observer where it cares:
 *   schedule.c       when to look at PFs again, when to reload
 *   manager-check.c  looking at PFs, applying
 *   manager-summary.c  the summary: State, Drifted, pending reboot reasons
 *   reload.c         reloading, and a layout change that waits for the host
 *   host-error.c     a read of the host that failed: said until one works
 *   events.c         udev, rtnetlink and inotify sources
 *   manager-bus.c    the D-Bus API
 *   counters.c       what happened since the start, for GetMetrics()
 *   k8s.c            the Kubernetes operations, over k8s-node.c (the device
 *                    plugin, reboots, the node's summary), k8s-annotate.c,
 *                    k8s-api.c and k8s-record.c
 * sriov-persistd.c starts and stops them in order. */

#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>

#include "decide.h"
#include "host.h"
#include "key-settings.h"
#include "layout-set.h"
#include "log.h"
#include "mainconf.h"
#include "netdev.h"
#include "reboot.h"

struct pf_entry {
	char pci[PCI_ADDR_MAX];
	struct manager *manager; /* whose it is: what its object shows (pf-shown.c) */
	/* manager-bus.c's, for the PF's object: its path (set when the PF is
	 * added) and the properties it last announced */
	char *path;
	char *published;
	char *name;
	enum pf_run_state state;
	uint32_t num_vfs;
	uint32_t desired_vfs;
	char *last_error;
	char **config_files;
	/* the keys its layout sets, beside the host's values, as last checked;
	 * settings_changes counts the checks that changed them */
	struct key_settings settings;
	unsigned settings_changes;
	char **drift; /* what differs, while drifted */
	/* what differed from its layouts when an apply of layouts changed since
	 * its last one (edited while the daemon was stopped) was decided, to say
	 * with its result, since a drift since that apply is among it; NULL
	 * otherwise, and again once that apply ran, was not run (another
	 * process's, a failure before it) or the PF came to rest */
	char **changed_from;
	/* while deferred: the host when it was deferred (or the daemon first
	 * saw it so, or at the last reload), the deferral's own; a change from
	 * that is drift (deferred-drift.c) */
	struct deferred_base *deferred_base;
	/* the plan that last failed or was deferred: not retried on its own
	 * until it changes, so a failing action cannot loop on its own events */
	char *given_up;
	char *plan_sig;	       /* the current plan, NULL when empty */
	char **reboot_reasons; /* of the last plan */
	/* reboot_reasons are no layout's: a raise of the firmware VF limit an
	 * apply made, still waiting for the reboot, of a PF no layout selects
	 * now (report_unselected_reboot_reasons()) */
	bool reboot_unasked;
	/* A firmware reset ran for them and the firmware kept its settings:
	 * what it reports. The PF is failed with it while they stand. */
	char *firmware_stuck;
	bool dirty;
	bool reset_wanted; /* Reset() waits for a drain: after it, reset, not apply */
	/* its last Reset() ran a disruptive change without a drain ([Disruption]
	 * Policy=drain without Kubernetes): why (a static string,
	 * mainconf_without_drain()), for sriovctl reset to say it as it does
	 * without the daemon; NULL: it did not */
	const char *reset_without_drain;
	/* One applier per PF: a PF whose netdev appeared while the daemon runs
	 * (hotplug, driver reload or bind) is the udev path's to apply. lost:
	 * CLOCK_REALTIME when it was last seen without a netdev (0: never while
	 * we ran); the daemon leaves it alone until a status record newer than
	 * that says the apply unit is done with it. */
	usec_t lost;
	/* the netdev seen last: a different one appeared, even if we never saw
	 * the PF without one (the unbind and bind were over before we looked) */
	struct netdev_id netdev;
	/* "<prefix>/<name>" of the resources its VFs belong to: as its layout
	 * says now, and as they were when it was last applied (what running
	 * pods request); a drain for the PF evicts the pods that request them */
	char **resources_wanted;
	char **resources_running;
};

/* What observers hear (manager_observe). */
enum manager_event_type {
	MANAGER_PF_ADDED,	 /* pf: a new PF */
	MANAGER_PF_REMOVED,	 /* path: the object of a PF that is gone */
	MANAGER_PF_CHANGED,	 /* pf: its state or properties may differ */
	MANAGER_PF_DRIFTED,	 /* pf: pf->drift says what differs now */
	MANAGER_PF_APPLIED,	 /* pci, result: an apply of it ended */
	MANAGER_PF_VFS_CHANGED,	 /* pf: a configured PF's VF count changed */
	MANAGER_PF_WANTS_DRAIN,	 /* pci: its apply waits for a drain of the node */
	MANAGER_APPLY_ASKED,	 /* Apply() or Reset(): what was tried may be tried again */
	MANAGER_APPLY_STARTS,	 /* an apply begins; the loop waits until it is over */
	MANAGER_CONFIG_LOADED,	 /* conf and set are new */
	MANAGER_LOOKED,		 /* after a check, an apply or a reload: VF counts settled */
	MANAGER_SUMMARY_CHANGED, /* state, drifted or the reboot reasons changed */
	MANAGER_SUMMARY,	 /* the summary was made again, changed or not */
	MANAGER_CHECKED,	 /* the PFs marked dirty were looked at */
	MANAGER_PF_REPAIRING,	 /* pf: it drifted, and its layout is applied again for it */
	MANAGER_DRAIN_DONE,	 /* result: a drain operation ended (0, or -EIO: failed) */
	MANAGER_REBOOT_DONE,	 /* result: a reboot operation ended (0, or -EIO: failed) */
	_MANAGER_EVENT_TYPE_MAX,
	_MANAGER_EVENT_TYPE_INVALID = -EINVAL,
};

struct manager_event {
	enum manager_event_type type;
	struct pf_entry *pf;
	const char *pci;
	const char *path;
	int result;
};

struct manager;
struct host_view;
typedef void (*manager_observer_t)(struct manager *m, const struct manager_event *ev,
				   void *userdata);

struct manager_observer {
	manager_observer_t fn;
	void *userdata;
};

struct schedule;
struct manager_bus;
struct manager_events;
struct k8s;
struct counters;

struct manager {
	sd_event *event;
	sd_bus *bus; /* the system bus (or DBUS_SYSTEM_BUS_ADDRESS's); NULL until started */
	struct udev *udev;
	struct host *host;
	/* options */
	const char *host_path; /* --host: the simulated host */
	const char *config_dir;
	const char *main_config;
	const char *k8s_notify;
	char *runtime_dir;
	char *state_dir;

	struct mainconf conf;
	bool main_broken; /* the main configuration has errors: nothing is applied */
	struct layout_set *set;
	char **config_errors;
	struct host_state *hs; /* last read */
	struct pf_entry **pfs; /* pointers: the bus hands them out as userdata */
	size_t n_pfs;
	bool watching;	     /* the event sources run: a PF that appears now is new */
	bool rescan_all;     /* every PF is to be read again, not only the dirty ones */
	bool reload_pending; /* the configuration changed and is to be read again */
	/* the layouts read last are not applied yet: the reload could not read
	 * the host, and is finished (tried again, reload.c) once it can */
	bool reload_waits;
	/* while it waits: its layouts say something else of a PF (on the host
	 * as read last) than those before it; false: the reload changes no
	 * layout (SIGHUP without an edit), only it waits (reload.c) */
	bool reload_changes;
	/* the layouts before a reload, until it is finished: under [Drift]
	 * Mode=report only the PFs they differ on are applied (reload.c) */
	struct layout_set *reload_from;
	sd_event_source *reload_retry;
	unsigned reload_tries;
	/* the last read of the host failed (host-error.c): what failed, and
	 * since when (CLOCK_REALTIME); the daemon is degraded until a read works */
	char *host_error;
	usec_t host_error_at;

	/* the summary (manager-summary.c) */
	enum manager_state state;
	bool drifted;
	struct reboot_record reboot;
	/* the last reboot for the pending reboot reasons that failed (set by
	 * k8s.c, a failed step of the reboot operation), until a reboot is
	 * tried again or the reasons change: the daemon is degraded while it
	 * stands (GetStatus() "reboot_failed") */
	char *reboot_failed;
	usec_t reboot_failed_at; /* CLOCK_REALTIME */
	/* MANAGER_DRAINING or MANAGER_REBOOTING while k8s.c runs such an
	 * operation, MANAGER_IDLE otherwise */
	enum manager_state operation;
	char boot_id[BOOT_ID_MAX];

	struct manager_observer *observers;
	size_t n_observers;

	/* each owned by its module */
	struct schedule *schedule;
	struct manager_bus *bus_state;
	struct manager_events *events;
	struct k8s *k8s;
	struct counters *counters;
};

int manager_new(struct manager **ret);
/* Frees what is the core's; the modules' own states are freed first by
 * whoever started them. */
struct manager *manager_free(struct manager *m);

int manager_observe(struct manager *m, manager_observer_t fn, void *userdata);
void manager_publish(struct manager *m, const struct manager_event *ev);
#define manager_notify(m, t, ...) \
	manager_publish(m, &(const struct manager_event){ .type = (t), __VA_ARGS__ })
#define manager_pf_changed(m, e) manager_notify(m, MANAGER_PF_CHANGED, .pf = (e))

/* Opens the host backend (the simulated host with --host). */
int manager_open_host(struct manager *m);
/* Loads configuration; errors go to m->config_errors. */
int manager_load_config(struct manager *m);
/* Each layout file that selects no PF of the cached host, as a warning in
 * the journal (at start and at each reload): a mistyped [Match]. */
void manager_log_unselected(struct manager *m);
/* Replaces the cached host (fresh has every PF) or one PF of it (fresh has
 * host-wide facts and zero or one PF); keeps the entries in step. Takes fresh. */
int manager_update_cache(struct manager *m, struct host_state *fresh, const char *only);

struct pf_entry *manager_find_entry(struct manager *m, const char *pci);
/* Marks the PFs of v that appeared while the daemon ran (hotplug: an
 * entry's lost), whose reasons say so. */
void manager_view_appeared(struct manager *m, struct host_view *v);
/* The PF that a PCI function (a PF or one of its VFs) or netdev belongs to,
 * from what was last read; NULL when unknown. */
const char *manager_pf_of_pci(struct manager *m, const char *pci);
const char *manager_pf_of_ifname(struct manager *m, const char *ifname);
/* The boot ID of the host (the simulated host's, or this machine's). */
const char *manager_boot_id(const struct manager *m);
/* "0000:3b:00.0: <reason>" for every pending reboot reason; caller frees. */
char **manager_reboot_reasons(const struct manager *m);

/* The pending reboot reasons as recorded in <state>/reboot.json. */
void manager_load_reboot(struct manager *m);
/* Keeps the plans that failed and are not retried on their own for the next
 * start in this boot (at exit), or removes the file when none did; a failed
 * write or removal is logged (with the path), and returned as -errno, as is
 * -ENOMEM, which is not. Loads them once at start. */
int manager_save_given_up(struct manager *m);
void manager_load_given_up(struct manager *m);
