/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* sriov-persistd: the daemon's state. One manager holds the host backend,
 * the layouts and main configuration, the last observed state of every PF,
 * and the event sources that say when a PF must be looked at again. */

#include <json-c/json.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>

#include "host.h"
#include "layout.h"
#include "mainconf.h"
#include "reboot.h"

enum pf_run_state {
	PF_RUN_UNCONFIGURED,
	PF_RUN_PENDING, /* configured, never applied */
	PF_RUN_APPLYING,
	PF_RUN_APPLIED,
	PF_RUN_DRIFTED,
	PF_RUN_HELD,
	PF_RUN_FAILED,
	PF_RUN_DEFERRED,
	PF_RUN_DEGRADED, /* applied as far as the host allows (no IOMMU for vfio-pci) */
	_PF_RUN_STATE_MAX,
	_PF_RUN_STATE_INVALID = -EINVAL,
};

enum manager_state {
	MANAGER_IDLE,
	MANAGER_APPLYING,
	MANAGER_DRAINING,
	MANAGER_REBOOTING,
	MANAGER_DEGRADED,
	_MANAGER_STATE_MAX,
	_MANAGER_STATE_INVALID = -EINVAL,
};

/* Which netdev instance a PF has: udev's USEC_INITIALIZED of it (a netdev
 * made again, by a driver reload or an unbind and bind, has a new one), and
 * since when, CLOCK_REALTIME. Zero when not known. */
struct netdev_id {
	uint64_t initialized;
	usec_t since;
};

struct pf_entry {
	char pci[PCI_ADDR_MAX];
	char *path; /* D-Bus object path */
	char *name;
	enum pf_run_state state;
	uint32_t num_vfs;
	uint32_t desired_vfs;
	char *last_error;
	char **config_files;
	char **drift; /* what differs, while drifted */
	/* the plan that last failed or was deferred: not retried on its own
	 * until it changes, so a failing action cannot loop on its own events */
	char *given_up;
	char *plan_sig;	       /* the current plan, NULL when empty */
	char **reboot_reasons; /* of the last plan */
	char *published;       /* the properties last announced on the bus */
	bool dirty;
	bool reset_wanted; /* Reset() waits for a drain: after it, reset, not apply */
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

enum op_kind {
	OP_KIND_DRAIN,
	OP_KIND_REBOOT,
	OP_KIND_RECOVER,
	OP_KIND_DEVICE_PLUGIN,
	_OP_KIND_MAX,
	_OP_KIND_INVALID = -EINVAL,
};

enum op_step {
	OP_STEP_LEASE,
	OP_STEP_DRAIN,
	OP_STEP_APPLY,
	OP_STEP_DEVICE_PLUGIN,
	OP_STEP_REBOOT,
	OP_STEP_UNCORDON,
	OP_STEP_RELEASE,
	OP_STEP_DONE,
	_OP_STEP_MAX,
	_OP_STEP_INVALID = -EINVAL,
};

/* One operation through the Kubernetes API (k8s.c). */
struct operation {
	enum op_kind kind;
	enum op_step step;
	char **pfs;    /* drain: the PFs it is for */
	char *slot;    /* the Lease slot held */
	bool drained;  /* cordoned and drained: uncordon when done or failed */
	char *reasons; /* reboot: the reasons it is for, one per line */
	char *error;   /* the step that failed, and why */
	unsigned attempts;
	bool running;
	char boot_id[33]; /* the boot it started in */
	sd_event_source *retry;
};

struct manager {
	sd_event *event;
	sd_bus *bus;
	struct host *host;
	/* options */
	const char *host_path; /* --host: the simulated host */
	const char *config_dir;
	const char *main_config;
	const char *k8s_notify;
	char *runtime_dir;
	char *state_dir;

	struct mainconf conf;
	bool main_broken;	     /* the main configuration has errors: nothing is applied */
	struct pending_call **calls; /* manager-bus.c: answered when their PFs are done */
	size_t n_calls;
	sd_event_source *calls_timer;
	struct layout_set *set;
	char **config_errors;
	struct host_state *hs; /* last read */
	struct pf_entry **pfs; /* pointers: the bus hands them out as userdata */
	size_t n_pfs;

	enum manager_state state;
	bool drifted;
	struct reboot_record reboot;
	char boot_id[BOOT_ID_MAX];

	char *published;

	/* Kubernetes (k8s.c) */
	struct operation *op;
	struct operation *op_saved; /* recorded by an earlier run, until k8s_start() */
	bool starting;		    /* the first check: no operation starts yet */
	char **drain_wanted;	    /* PFs deferred until a drain */
	bool reboot_wanted;	    /* a coordinated reboot is due */
	char *reboot_tried;	    /* the reasons a reboot was (being) done for */
	bool device_plugin_wanted;  /* its resources changed */
	char *dp_vf_sig;	    /* VF counts of the configured PFs, last seen */
	bool vfs_changed;	    /* a configured PF's VF count changed since */
	char *annotated;	    /* the state last published on the node */
	char *annotate_next;	    /* the state to publish */
	bool annotate_running;
	sd_event_source *annotate_timer;

	bool rescan_all;
	bool reload_pending;
	uint64_t reload_first; /* CLOCK_MONOTONIC of the first change since the last reload */
	sd_event_source *coalesce;
	sd_event_source *reload_timer;
	sd_event_source *safety_scan;
	struct manager_events *events;
};

int manager_new(struct manager **ret);
struct manager *manager_free(struct manager *m);
static inline void manager_freep(struct manager **m)
{
	manager_free(*m);
}
#define _cleanup_manager_ _cleanup_(manager_freep)

/* Reads configuration and host, starts the event sources and the bus. */
int manager_start(struct manager *m);

/* The events: mark what must be looked at again (coalesced, run from the
 * event loop shortly after). pci NULL = every PF. */
void manager_mark_dirty(struct manager *m, const char *pci);
void manager_mark_reload(struct manager *m);
/* The PF that a PCI function (a PF or one of its VFs) or netdev belongs to,
 * from what was last read; NULL when unknown. */
const char *manager_pf_of_pci(struct manager *m, const char *pci);
const char *manager_pf_of_ifname(struct manager *m, const char *ifname);

/* manager-check.c: looking at PFs again, applying. */
/* Re-reads the PFs marked dirty (all when rescan_all) and checks them. */
int manager_check_dirty(struct manager *m);
/* What Apply() and Reset() report: "PCI: why" of each PF not applied (or
 * reset) that does not wait for a drain, and the PFs that another process
 * (an apply unit, sriovctl) was applying and that were left to it. */
struct asked {
	char **failed;
	char **busy;
};
/* Applies now: all PFs (only NULL) or one (PCI address or name). -ENXIO:
 * no such PF, -ENOEXEC: the main configuration has errors. Never waits for
 * a PF's lock: a PF another process holds goes to out->busy. */
int manager_apply(struct manager *m, const char *only, struct asked *out);
/* Whether another process holds the PF's lock now. */
bool manager_pf_busy(struct manager *m, const char *pci);
/* Reset(): removes what sriov-persist created on the PF (NULL: on every PF)
 * that no layout selects any more; out as for manager_apply(). */
int manager_reset(struct manager *m, const char *only, struct asked *out);
/* Reads the main configuration and layouts again, then applies all. */
int manager_reload(struct manager *m);
/* Loads configuration; errors go to m->config_errors. */
int manager_load_config(struct manager *m);
/* Replaces the cached host (fresh has every PF) or one PF of it (fresh has
 * host-wide facts and zero or one PF); keeps the entries in step. Takes fresh. */
int manager_update_cache(struct manager *m, struct host_state *fresh, const char *only);
/* Recomputes Drifted, State and the pending reboot reasons; emits what changed. */
void manager_update_summary(struct manager *m, bool layouts_changed);

/* "0000:3b:00.0: <reason>" for every pending reboot reason; caller frees. */
char **manager_reboot_reasons(const struct manager *m);
/* JSON documents for Plan() and GetStatus(); caller frees. */
int manager_plan_json(struct manager *m, char **ret);
int manager_status_json(struct manager *m, char **ret);

const char *pf_run_state_to_string(enum pf_run_state s) _pure_;
const char *manager_state_to_string(enum manager_state s) _pure_;
struct pf_entry *manager_find_entry(struct manager *m, const char *pci);

/* manager-bus.c */
int manager_bus_start(struct manager *m);
void manager_bus_pf_added(struct manager *m, struct pf_entry *e);
void manager_bus_pf_removed(struct manager *m, const char *path);
void manager_bus_pf_changed(struct manager *m, struct pf_entry *e);
void manager_bus_manager_changed(struct manager *m);
void manager_bus_drift(struct manager *m, const char *pci, char **what);
void manager_bus_applied(struct manager *m, const char *pci, int result);
/* Apply() and Reset() calls that wait for PFs another process was applying:
 * after each check, those PFs whose lock is free are applied (or reset) and
 * a call whose PFs are all done is answered. */
void manager_bus_resume_calls(struct manager *m);
void manager_bus_calls_free(struct manager *m);

/* events.c */
int manager_events_start(struct manager *m);
/* Whether udev is done with the netdev ifname (its database entry written,
 * its rename over), as systemd-networkd waits for it; why not in *ret_why.
 * Always true with --host. */
bool manager_netdev_settled(struct manager *m, const char *ifname, const char **ret_why,
			    struct netdev_id *ret_id);
struct manager_events *manager_events_free(struct manager_events *e);

/* Applies one PF after the node was drained for it: disruptive changes run. */
int manager_apply_drained(struct manager *m, const char *pci);
/* A Kubernetes operation for pci failed: its PF shows why and is not tried
 * again on its own. */
void manager_pf_failed(struct manager *m, const char *pci, const char *error);
/* Keeps the plans that failed and are not retried on their own for the next
 * start in this boot (at exit). */
int manager_save_given_up(struct manager *m);
/* The boot ID of the host (the simulated host's, or this machine's). */
const char *manager_boot_id(const struct manager *m);
/* The resources that pods using the VFs of pfs (NULL: of every PF) request,
 * for "k8s-notify drain --resource ...": sorted, without repeats. */
char **manager_drain_resources(const struct manager *m, char *const *pfs);
/* Writes the device plugin's config.json when it changed; the arguments of
 * "k8s-notify restart-device-plugin" with the counts it should show. */
int manager_device_plugin_args(struct manager *m, char ***ret);
/* After a check or apply (once, however many PFs it applied): write the
 * device-plugin config, and restart the plugin when it or the VFs changed. */
void manager_device_plugin_sync(struct manager *m);
/* The Kubernetes side of a new summary: reboot decision, node annotations. */
void manager_k8s_summary(struct manager *m);
/* Reboot through logind (asynchronous; k8s_reboot_done gets the answer). */
void manager_reboot(struct manager *m);

/* k8s-run.c */
typedef void (*k8s_done_t)(struct manager *m, int exit_status, struct json_object *result,
			   void *userdata);
/* Runs k8s-notify VERB ARGS... (verb_args NULL-terminated); done gets its exit
 * status (or -errno) and its JSON result (NULL when there was none). */
int k8s_run(struct manager *m, char **verb_args, k8s_done_t done, void *userdata);

/* k8s.c */
void k8s_next(struct manager *m);
/* Before the first check: what an earlier run recorded (operation.json). */
void k8s_load(struct manager *m);
/* After it: finish or undo that, or lift a cordon a crash left. */
void k8s_start(struct manager *m);
void k8s_reboot_done(struct manager *m, int r, const char *error);
struct json_object *k8s_operation_json(const struct manager *m);
void operation_free(struct operation *op);
const char *op_kind_to_string(enum op_kind k) _pure_;
const char *op_step_to_string(enum op_step s) _pure_;
/* k8s-notify annotate, when the node's summary changed. */
void k8s_annotate(struct manager *m, const char *state);

/* log.c: to the journal when run by systemd, stderr otherwise */
void log_pf(int priority, const char *pci, const char *fmt, ...) _printf_(3, 4);
#define log_msg(priority, ...) log_pf(priority, NULL, __VA_ARGS__)
extern bool log_debug_enabled;
