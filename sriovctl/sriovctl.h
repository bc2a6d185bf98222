/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <json-c/json.h>
#include <systemd/sd-bus.h>

#include "apply.h"
#include "host-view.h"
#include "host.h"
#include "k8s-judge.h"
#include "layout.h"
#include "mainconf.h"

/* Exit codes (sriovctl(8), EXIT STATUS). */
enum {
	EXIT_OK = 0,
	EXIT_FAIL = 1,
	EXIT_USAGE = 2,
	EXIT_CHANGES = 10,
};

struct ctl {
	const char *host_path;	 /* --host: the simulated host */
	const char *config_dir;	 /* --config-dir */
	const char *main_config; /* --main-config */
	const char *k8s_notify;	 /* --k8s-notify; NULL: the installed one */
	const char *output_dir;	 /* import --output-dir */
	const char *node;	 /* compare --node */
	char *root;		 /* --root, canonical: the host's files under it */
	char *runtime_dir;	 /* status and locks */
	char *state_dir;	 /* what we created */
	bool json;
	bool color;
	bool vf_stats;	    /* metrics: the real host reads the VFs' counters too */
	bool strict;	    /* check --strict: warnings count as errors */
	usec_t timeout;	    /* wait --timeout */
	const char *output; /* metrics --output */
	const char *acting; /* "applying", "resetting": what ctl_on_action says */
	/* --machine-id: for planning a snapshot offline (snapshots of real hosts
	 * leave the machine ID out, and stable MACs are derived from it) */
	bool has_machine_id;
	uint8_t machine_id[16];
	char **args; /* operands after the verb */
	int n_args;
	/* An option named a host, layouts or directories: this process does the
	 * work, never sriov-persistd. */
	bool local;
	char *local_options; /* those options as given: " --host FILE ...", or NULL */
	/* sriov-persistd runs and answers this verb (status, plan, apply). */
	sd_bus *bus;
	/* The main configuration has errors (ctl_load_all(), ctl_host_view()):
	 * apply and plan exit 1, also when no layout selects a PF. */
	bool main_broken;
	/* ctl_drain_daemon()'s answer, once drain_daemon_asked */
	bool drain_daemon_asked;
	int drain_daemon;
};

/* The shared setup of the verbs; each prints its own error and returns
 * a negative errno on failure. */
int ctl_open_host(struct ctl *c, struct host **ret);
int ctl_load_layouts(struct ctl *c, struct layout_set **ret);
/* FILE, or standard input for "-": a text without NUL bytes, 16 MiB at
 * most (import, compare). */
int ctl_read_input(const char *path, char **ret);
/* How messages name it: standard input ("-") is "<stdin>". */
const char *ctl_input_name(const char *path);
/* The first error of diags, formatted "file:line: message"; NULL when
 * there is none or on ENOMEM. */
char *ctl_first_error(const struct diag_list *diags);
/* With errors in it: -EINVAL, or, with ret_first_error, 0 and the first
 * error there (what is valid of it is loaded). */
int ctl_load_mainconf(struct ctl *c, struct mainconf *ret, char **ret_first_error);
/* All three, for apply and reset: the layouts' diagnostics printed, the
 * main configuration's settings given to the layouts; mainconf_done() it.
 * A main configuration with errors fails, or with hold_on_errors holds
 * every PF (set->main_error says why). */
int ctl_load_all(struct ctl *c, struct host **ret_host, struct layout_set **ret_set,
		 struct mainconf *ret_conf, bool hold_on_errors);
/* Prints diagnostics to stderr, "file:line: message". */
void ctl_print_diags(const struct diag_list *l);
/* An ANSI color around s when colors are on; returns a static buffer. */
const char *ctl_paint(const struct ctl *c, const char *color, const char *s);
#define ANSI_RED "31"
#define ANSI_GREEN "32"
#define ANSI_YELLOW "33"
#define ANSI_BOLD "1"
const char *ctl_format_time(usec_t t, char *buf, size_t size);
/* The daemon's "reboot_failed" object (GetStatus()) as one line, after
 * prefix: when, why, and what to do. (verb-status.c) */
void ctl_print_reboot_failed(const struct ctl *c, FILE *f, const char *prefix,
			     struct json_object *failed);
/* The daemon's "host_error" object (GetStatus()'s daemon, Plan()) as one
 * line, after prefix: when reading the host failed, why, and that what the
 * daemon shows is what it read last. (verb-status.c) */
void ctl_print_host_error(const struct ctl *c, FILE *f, const char *prefix,
			  struct json_object *host_error);

int verb_check(struct ctl *c);
int verb_plan(struct ctl *c);
int verb_apply(struct ctl *c);
/* Apply() or Reset() through the daemon refused for errors in the main
 * configuration, said as without the daemon (from GetStatus()): the errors
 * on standard error, with apply each configured PF held (of c->args[0]
 * only, when named), then that the main configuration has errors.
 * Returns EXIT_FAIL. (verb-apply.c) */
int ctl_main_broken_by_daemon(struct ctl *c, bool apply);
/* The command that runs the apply (reset: the reset) of the PF at pci that
 * is pending since what held or deferred it no longer does, with the
 * options sriovctl was given, as the operator can copy it: ""sriovctl
 * --host h.json apply 0000:3b:00.0" applies it now"; NULL: out of memory.
 * status says it below the PF's row, wait below its "Not applied" line. */
char *status_run_hint(const struct ctl *c, const char *pci, bool reset);
int verb_status(struct ctl *c);
int verb_snapshot(struct ctl *c);
/* The PCI address and interface name of each PF, one a line (for the shell
 * completion with --host FILE, which cannot read that host's sysfs). */
int verb_list_pfs(struct ctl *c);
int verb_wait(struct ctl *c);
int verb_reset(struct ctl *c);
int verb_cat(struct ctl *c);
/* The Prometheus text exposition format of the host or one PF. */
int verb_metrics(struct ctl *c);
int verb_import(struct ctl *c);
int verb_compare(struct ctl *c);
/* One apply or reset run, the userdata of its apply_options. */
struct ctl_run {
	struct ctl *c;
	const char *only; /* the PF named on the command line, or NULL */
	bool ok;	  /* reset: every PF's result was good */
	size_t done;	  /* PFs configured (apply), or changed (reset) */
	size_t said;	  /* reset: PFs that printed a line */
	size_t kept;	  /* reset: PFs whose switchdev stays until their VFs go */
	/* apply: the host and layouts it applies, to say each PF's reboot
	 * reasons as status says them (borrowed; NULL: as recorded) */
	struct host *h;
	const struct layout_set *set;
};
/* apply_options.on_action of apply and reset (userdata a struct ctl_run):
 * each action as it is done. */
void ctl_on_action(const struct pf_state *pf, const struct action *a, int r, const char *detail,
		   void *userdata);

/* The host and the layouts as read here, with the view of every PF built
 * on them (or only of the PF named in c->args[0]), for status, plan and
 * wait. Prints its own errors. */
struct ctl_view {
	struct host_state *hs;
	struct layout_set *set;
	struct host_view v; /* borrows hs and set */
};
int ctl_host_view(struct ctl *c, struct ctl_view *ret);
/* ctl_host_view() in two steps: the host and the layouts read (cv->v
 * empty), then the view built on them as on a host named hostname, what
 * the layouts' [Match] Host= are matched against (NULL: the host's own;
 * sriovctl compare of another node). Both print their errors; on failure
 * of the second, the caller still frees *cv with ctl_view_done(). */
int ctl_host_read(struct ctl *c, struct ctl_view *ret);
int ctl_view_build(const struct ctl *c, struct ctl_view *cv, const char *hostname);
/* What the options say of the host read: --machine-id. */
void ctl_host_options(const struct ctl *c, struct host_state *hs);
void ctl_view_done(struct ctl_view *cv);
/* A document (report.h) of the view built here, by build: the diagnostics
 * of the layouts and of the view on stderr first; "<failed>: <error>" on
 * stderr when build fails. -EIO when the view cannot be built. */
typedef int (*ctl_document_fn)(const struct ctl *c, const struct host_view *v,
			       struct json_object **ret);
int ctl_view_document(struct ctl *c, ctl_document_fn build, const char *failed,
		      struct json_object **ret);

/* The status and plan documents (report.h), built here or received from
 * sriov-persistd: the verbs render them the same either way (doc.c). */
/* A member of o; NULL when o is NULL, the member is missing or is null. */
struct json_object *doc_get(struct json_object *o, const char *key);
/* A string member; NULL when missing, null or not a string. */
const char *doc_str(struct json_object *o, const char *key);
/* Numbers and booleans; 0 or false when missing or null. */
int64_t doc_int(struct json_object *o, const char *key);
uint64_t doc_u64(struct json_object *o, const char *key);
bool doc_bool(struct json_object *o, const char *key);
/* The elements of an array member; 0 when not an array. */
size_t doc_len(struct json_object *o, const char *key);
struct json_object *doc_idx(struct json_object *o, const char *key, size_t i);
/* Keeps only the PF in doc["pfs"] whose PCI address or name is what;
 * -ENXIO when there is none. */
int doc_filter_pfs(struct json_object *doc, const char *what);
/* Keeps only the PF in doc["pfs"] that is gone (state "gone") and whose
 * PCI address is pci; -ENXIO when there is none. */
int doc_filter_gone(struct json_object *doc, const char *pci);
/* "0000:3b:00.0 (ens1f0)" or "0000:3b:00.0" of a PF object; caller frees. */
char *doc_pf_describe(struct json_object *pf);
/* Whether PF object pf is unconfigured with what a removed layout left
 * ("4 VFs left from a removed layout"), which reset removes; an
 * unconfigured PF's other reason is what reset finds instead (its record
 * says more than is left). */
bool doc_pf_has_leftovers(struct json_object *pf);
/* The VF count that the layouts of the other ports of pf's card (the same
 * PCI device, in doc) want, the most of them (0: none): what the card's one
 * firmware VF limit must keep; *ret_by the first port that wants it
 * (borrowed from doc), NULL when none. */
uint64_t doc_card_need(struct json_object *doc, struct json_object *pf, const char **ret_by);
/* Whether pf, which no layout selects, waits for its driver or netdev, after
 * which a layout may select it (sriovctl wait waits for it): no reset hint. */
bool doc_pf_unsettled(struct json_object *pf);
/* "<indent>files: 50-e810.conf 60-other.conf": the layout files that select
 * pf (its "config_files"), by name; nothing when none does. */
void doc_print_files(struct json_object *pf, const char *indent);
/* Pretty-printed, as every --json output. */
void ctl_print_json(struct json_object *doc);

/* sriov-persistd over D-Bus (bus-client.c); each prints
 * "sriov-persistd: <message>" when a call fails. */
/* The system bus when org.sriovpersist1 has an owner (never activates
 * it); NULL otherwise, without a message. */
sd_bus *bus_client_open(void);
/* GetStatus() or Plan(): the JSON document, only the PF named by only (PCI
 * address, name or alternative name, which the daemon resolves) when it is
 * not NULL; -ENXIO, with a message, when there is no such PF. */
int bus_client_document(sd_bus *bus, const char *method, const char *only,
			struct json_object **ret);
/* Apply(pf) (method "Apply"): "" = every PF; returns once the daemon
 * is done: 0, or 1 when Apply() replied that PFs were not applied (not
 * printed: the caller shows each PF's result), -ENOEXEC (not printed) when
 * the main configuration has errors (ctl_main_broken_by_daemon()), or < 0
 * after a message. */
int bus_client_apply(sd_bus *bus, const char *method, const char *pf);
/* A PF that Reset() changed, as its reply says. */
struct bus_reset {
	char pci[PCI_ADDR_MAX];
	uint32_t n_actions;
	uint32_t num_vfs;
	bool eswitch_kept;
};
/* Reset(pf), "" = every PF: 0 with the PFs it changed in *ret (caller
 * frees), n in *ret_n; 1 when it replied that PFs were not reset, its
 * message in *ret_error (caller frees; not printed); -ENOEXEC (not printed)
 * when the main configuration has errors; < 0 after a message. */
int bus_client_reset(sd_bus *bus, const char *pf, struct bus_reset **ret, size_t *ret_n,
		     char **ret_error);
/* GetMetrics(): what the daemon counted, its document (metrics.h). */
int bus_client_metrics(sd_bus *bus, struct json_object **ret);
/* Whether the daemon's GetMetrics() document is of the host c reads: both
 * this host (its "host" null or absent), or both the same --host file by
 * canonical path. */
bool ctl_daemon_same_host(const struct ctl *c, struct json_object *doc);
/* For apply_options.drain_daemon (userdata: the struct ctl), and wait, asked once:
 * whether a sriov-persistd manages the host c reads (1), none runs or it
 * manages another host (0), or that is not known (-1: it did not answer,
 * or with --root, whose files are another node's). */
int ctl_drain_daemon(void *userdata);
/* The State and LastError of pci's object of the sriov-persistd that
 * runs (the caller asked ctl_drain_daemon() whether it manages the host
 * read here), each freed by the caller; both NULL when none runs or it
 * did not answer within 2 s (it answers no call while it applies). Never
 * starts the daemon. -ENOMEM. */
int ctl_daemon_pf_state(const char *pci, char **ret_state, char **ret_error);
/* For apply_options.drain_daemon_command: the sriov-persistd command that
 * manages the host, layouts and directories c's options name, with its
 * --k8s-notify ("sriov-persistd --host FILE ..."); NULL without such
 * options (this machine's, which systemctl starts) or on ENOMEM. */
char *ctl_daemon_command(const struct ctl *c);

/* The k8s-notify that check, apply and reset ask (--k8s-notify, or the installed one). */
const char *ctl_k8s_notify_path(const struct ctl *c);
/* k8s_judge() as check says it (not with --root: the files of another
 * root are not this k8s-notify's to read): an error in k8s-notify's words (a
 * warning when it says running again may cure it). */
int ctl_check_credentials(const struct ctl *c, const char *main_config, const struct mainconf *conf,
			  struct diag_list *diags);
