/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* sriovctl reset [PF...]: removes what sriov-persist created on PFs whose
 * layout is gone (the VF count, switchdev), while they are as they were
 * left. A disruptive change: it follows [Disruption] Policy=. */

#include <inttypes.h>

#include "json-util.h"
#include "layout-wants.h"
#include "report-gone.h"
#include "reset-refusal.h"
#include "sriovctl.h"

/* "PCI (name): reset, N action(s); N VFs", the line of a reset that changed
 * the PF, done here or by the daemon. */
static void print_reset_done(const struct ctl *c, const char *who, uint32_t n_actions,
			     uint32_t num_vfs, bool eswitch_kept)
{
	printf("%s: %s, %" PRIu32 " action(s); %" PRIu32 " VFs%s\n", who,
	       ctl_paint(c, ANSI_GREEN, "reset"), n_actions, num_vfs,
	       eswitch_kept ? "; " PF_CREATED_ESWITCH_WAITS : "");
}

/* What a reset leaves of a firmware VF limit raised (plan_firmware_kept()),
 * on a line of its own below the PF's. */
static void print_firmware_kept(const char *who, const char *kept)
{
	if (kept)
		printf("%s: %s\n", who, kept);
}

/* Returns whether the PF is in the state reset wants. A PF whose record
 * goes, or that keeps a raised firmware VF limit, is said also by a reset of
 * every PF. */
static bool print_state(const struct ctl *c, const struct apply_pf_result *res, const char *who,
			bool named)
{
	const struct pf_status *st = &res->status;

	switch (st->state) {
	case PF_STATUS_APPLIED:
		if (res->changed) {
			print_reset_done(c, who, st->n_actions, st->num_vfs, res->eswitch_kept);
			if (res->without_drain)
				printf("  note: disruptive, without a drain: %s\n",
				       res->without_drain);
		} else if (named || res->record_dropped || res->eswitch_kept || res->firmware_kept)
			printf("%s: nothing reset: %s\n", who,
			       res->nothing_left ?:
				       "nothing that sriov-persist created is left on it");
		return true;
	case PF_STATUS_HELD:
	case PF_STATUS_FAILED:
	case PF_STATUS_DEGRADED:
		printf("%s: %s: %s\n", who, ctl_paint(c, ANSI_RED, "not reset"), strna(st->error));
		return false;
	case PF_STATUS_DEFERRED:
		printf("%s: %s: %s\n", who, ctl_paint(c, ANSI_YELLOW, "deferred"),
		       strna(st->error));
		return false;
	case _PF_STATUS_STATE_MAX:
	case _PF_STATUS_STATE_INVALID:
		break;
	}
	return false;
}

/* The PF's line, and what the reset leaves of a raised firmware VF limit
 * unless that line said it ("nothing reset: ...; the firmware VF limit
 * ..."). Returns whether the PF is in the state reset wants. */
static bool print_result(const struct ctl *c, const struct apply_pf_result *res, bool named)
{
	_cleanup_free_ char *who = pf_names_describe(res->status.pci, res->status.name);
	bool ok = print_state(c, res, strna(who), named);

	if (res->changed || res->status.state != PF_STATUS_APPLIED || !res->nothing_left)
		print_firmware_kept(strna(who), res->firmware_kept);
	return ok;
}

/* Each PF's progress lines and its result together, as it is done. */
static void reset_on_pf_done(const struct apply_pf_result *res, void *userdata)
{
	struct ctl_run *x = userdata;

	x->ok &= print_result(x->c, res, x->only != NULL);
	x->done += res->changed;
	x->said += res->changed || res->record_dropped || res->eswitch_kept ||
		   res->status.state != PF_STATUS_APPLIED;
	x->kept += !res->changed && res->eswitch_kept;
	fflush(stdout);
}

/* "0000:3b:00.0 (ens1f0)", appended to *list. -ENOMEM. */
static int list_pf(char ***list, const struct pf_state *pf)
{
	return strv_consume(list, pf_describe(pf));
}

/* A PF with something of sriov-persist's left on it that only refused
 * files select: a refusal, as for a named PF. -ENOMEM. */
static int say_refused(const struct ctl *c, const struct layout_set *set,
		       const struct host_state *hs, const struct pf_state *pf)
{
	_cleanup_free_ char *why = reset_refusal(set, hs, pf);

	if (!why)
		return -ENOMEM;
	printf("%s%s%s%s: %s: %s\n", pf->pci, pf->name ? " (" : "", strempty(pf->name),
	       pf->name ? ")" : "", ctl_paint(c, ANSI_RED, "not reset"), why);
	return 0;
}

/* After the lines of the PFs that keep it, local or through the daemon. */
#define NOTHING_ESWITCH_KEPT                                                                \
	"the switchdev mode that sriov-persist set stays on the PFs above until their VFs " \
	"are removed; then a reset sets it back to legacy"

static void say_selected(char **selected, size_t said, size_t kept)
{
	_cleanup_free_ char *names = NULL;

	if (!selected) {
		printf("Nothing to reset: %s\n",
		       kept ? NOTHING_ESWITCH_KEPT :
		       said ? "nothing that sriov-persist created is left on the PFs above" :
			      "no PF of this host has VFs or a switchdev mode that "
			      "sriov-persist created");
		return;
	}
	names = strv_join(selected, ", ");
	printf("Nothing to reset: a layout selects %s, which %s what sriov-persist created; "
	       "reset removes only what a removed layout left\n",
	       strna(names), strv_length(selected) == 1 ? "has" : "have");
}

/* A reset of every PF that reset nothing: why. The PFs that have something
 * of sriov-persist's left but that a layout selects are named; those that
 * only refused files select are refusals (*ok = false). */
static int say_nothing(struct ctl *c, struct host *h, const struct layout_set *set,
		       const struct ctl_run *x, bool *ok)
{
	_cleanup_host_state_ struct host_state *hs = NULL;
	_cleanup_strv_free_ char **selected = NULL;
	int r;

	r = host_read(h, &hs);
	if (r < 0)
		return r;
	for (size_t i = 0; i < hs->n_pfs; i++) {
		const struct pf_state *pf = &hs->pfs[i];
		struct pf_created cr = {};

		r = pf_created_left(c->state_dir, pf, &cr);
		pf_created_done(&cr);
		if (r == -ENOMEM)
			return r;
		if (r <= 0 || !layout_set_selects(set, hs, pf))
			continue;
		if (reset_refusal_only_refused(set, hs, pf)) {
			r = say_refused(c, set, hs, pf);
			*ok = false;
		} else
			r = list_pf(&selected, pf);
		if (r < 0)
			return r;
	}
	if (*ok)
		say_selected(selected, x->said, x->kept);
	return 0;
}

/* reset of a PF that is not on the host: one that is gone loses its status
 * record, which keeps status, plan and wait saying so; else it is no PF at
 * all. Returns whether it was found and done. */
static bool reset_gone(struct ctl *c, struct host *h, const struct mainconf *conf, const char *only)
{
	_cleanup_host_state_ struct host_state *hs = NULL;
	_cleanup_free_ char *said = NULL;
	int r;

	r = host_read(h, &hs);
	if (r < 0) {
		fprintf(stderr, "Reading the host failed: %s\n", strerror(-r));
		return false;
	}
	r = report_gone_forget(hs, c->runtime_dir, only, conf->apply_timeout, &said);
	if (r > 0)
		printf("%s; its status record is dropped\n", said);
	else if (r == 0)
		fprintf(stderr, "No PF '%s' on this host\n", only);
	else
		fprintf(stderr, "%s: dropping its status record in %s/pf failed: %s\n", only,
			c->runtime_dir, strerror(-r));
	return r > 0;
}

/* drain: the main configuration, and whether a drain can run */
static int reset_one(struct ctl *c, struct host *h, const struct layout_set *set,
		     struct k8s_drain_judge *drain, const char *only, bool *ok)
{
	const struct mainconf *conf = drain->conf;
	struct ctl_run x = { .c = c, .only = only, .ok = true };
	_cleanup_free_ char *daemon_command = ctl_daemon_command(c);
	struct apply_result res = {};
	struct apply_options opts = {
		.conf = conf,
		.runtime_dir = c->runtime_dir,
		.state_dir = c->state_dir,
		.only = only,
		.on_action = ctl_on_action,
		.on_pf_done = reset_on_pf_done,
		.userdata = &x,
		.reset = true,
		.drain_refusal = c->root ? NULL : k8s_drain_refusal,
		.drain_userdata = drain,
		.drain_daemon = ctl_drain_daemon,
		.drain_daemon_userdata = c,
		.drain_daemon_command = daemon_command,
	};
	int r;

	if (c->local_options && !daemon_command) {
		fprintf(stderr, "Out of memory\n");
		return -ENOMEM;
	}
	r = apply_run(h, set, &opts, &res);
	apply_result_done(&res);
	*ok &= x.ok;
	if (r == -ENXIO) {
		*ok &= reset_gone(c, h, conf, only);
		return 0;
	}
	if (r < 0 && r != -EIO) {
		fprintf(stderr, "Resetting failed: %s%s%s\n", strerror(-r), h->error[0] ? ": " : "",
			h->error);
		return r;
	}
	if (!only && x.done == 0 && x.ok)
		return say_nothing(c, h, set, &x, ok);
	return 0;
}

/* Of a PF of GetStatus() that no layout selects and whose last apply raised
 * the firmware VF limit or set the link type in firmware (its pending
 * reboot): what a reset leaves, in
 * plan_firmware_kept()'s words, with what the layouts of its card's other
 * ports (in doc, the whole host) need; NULL when none (or on ENOMEM). */
static char *firmware_left(struct json_object *doc, struct json_object *pf)
{
	const char *by = NULL;
	uint64_t need = doc_card_need(doc, pf, &by);
	struct json_object *fw = doc_get(doc_get(pf, "settings"), "FirmwareVirtualFunctions");
	const char *link = doc_str(pf, "link_type"), *fw_link = doc_str(pf, "firmware_link_type");
	struct pf_state s = { .total_vfs = doc_u64(pf, "total_vfs"), .firmware_total_vfs = -1 };
	char *kept = NULL;

	if (doc_len(pf, "config_files") > 0 || doc_len(pf, "pending_reboot_reasons") == 0 ||
	    (doc_str(fw, "now") && safe_atoi(doc_str(fw, "now"), &s.firmware_total_vfs) < 0))
		return NULL;
	/* a link type set in firmware stays too, as a local reset says */
	if (link && fw_link) {
		s.link_type = link_type_from_string(link);
		s.firmware_link_type = link_type_from_string(fw_link);
		s.has_firmware_link_type = s.link_type >= 0 && s.firmware_link_type >= 0;
	}
	snprintf(s.pci, sizeof(s.pci), "%s", strempty(doc_str(pf, "pci")));
	(void)plan_firmware_kept(&s, need <= UINT32_MAX ? (uint32_t)need : 0, by, &kept);
	return kept;
}

/* A PF of GetStatus() that no layout selects and that has nothing of
 * sriov-persist's left: why, with the VFs it has now: the reason, when its
 * record says more than is left (the reset drops the record), else what
 * there is; and a firmware VF limit raised that the reset leaves. NULL
 * otherwise (or on ENOMEM: said the old way). */
static char *nothing_left(struct json_object *doc, struct json_object *pf)
{
	uint64_t n = doc_u64(pf, "num_vfs");
	const char *why = doc_str(pf, "reason");
	_cleanup_free_ char *kept = NULL, *left = NULL;

	if (!streq_ptr(doc_str(pf, "state"), "unconfigured") || doc_pf_has_leftovers(pf))
		return NULL;
	if (why)
		left = strdup_printf("%s%s", why, pf_created_reset_tail(why));
	else if (n == 0)
		left = strdup(
			"it has no VFs, and nothing that sriov-persist created is left on it");
	else
		left = strdup_printf("%" PRIu64 " VF(s) exist, none of them sriov-persist's to "
				     "remove (made, or their count changed, outside "
				     "sriov-persist); left as they are",
				     n);
	kept = firmware_left(doc, pf);
	if (!left || !kept)
		return TAKE_PTR(left);
	return strdup_printf("%s; %s", left, kept);
}

/* The PF of doc that what names (PCI address or name), gone ones too. */
static struct json_object *doc_find(struct json_object *doc, const char *what)
{
	for (size_t i = 0; i < doc_len(doc, "pfs"); i++) {
		struct json_object *pf = doc_idx(doc, "pfs", i);

		if (streq_ptr(doc_str(pf, "pci"), what) || streq_ptr(doc_str(pf, "name"), what))
			return pf;
	}
	return NULL;
}

/* When the PF's last record was written, 0: never. */
static uint64_t record_time(struct json_object *pf)
{
	return pf ? doc_u64(doc_get(pf, "last_apply"), "finished_usec") : 0;
}

/* A PF that Reset() changed, in the words of print_result(); after: its
 * row of GetStatus() since, which says when the reset ran a disruptive
 * change without a drain. */
static void print_reset(const struct ctl *c, struct json_object *pf, const struct bus_reset *one,
			struct json_object *after)
{
	_cleanup_free_ char *who = pf ? doc_pf_describe(pf) : NULL;
	const char *without_drain = doc_str(after, "reset_without_drain");

	print_reset_done(c, who ?: one->pci, one->n_actions, one->num_vfs, one->eswitch_kept);
	if (without_drain)
		printf("  note: disruptive, without a drain: %s\n", without_drain);
}

/* A reset of the PF that did not finish, from the record it wrote (newer
 * than before), in the words of print_result(). Returns whether it said
 * one. */
static bool print_not_reset(const struct ctl *c, struct json_object *pf, uint64_t before)
{
	_cleanup_free_ char *who = doc_pf_describe(pf);
	struct json_object *last = doc_get(pf, "last_apply");
	const char *state = doc_str(last, "state"), *error = strna(doc_str(last, "error"));

	if (!state || streq(state, "applied") || record_time(pf) <= before)
		return false;
	if (streq(state, "deferred"))
		printf("%s: %s: %s\n", strna(who), ctl_paint(c, ANSI_YELLOW, "deferred"), error);
	else
		printf("%s: %s: %s\n", strna(who), ctl_paint(c, ANSI_RED, "not reset"), error);
	return true;
}

static const struct bus_reset *find_reset(const struct bus_reset *all, size_t n, const char *pci)
{
	for (size_t i = 0; i < n; i++)
		if (streq_ptr(pci, all[i].pci))
			return &all[i];
	return NULL;
}

/* Reset() of a PF that is gone from the host: its record is dropped.
 * Returns 1 when it was, 0 when not, -ENOEXEC when the main configuration
 * has errors (not printed). */
static int reset_gone_by_daemon(struct ctl *c, struct json_object *pf)
{
	_cleanup_free_ struct bus_reset *res = NULL;
	_cleanup_free_ char *who = doc_pf_describe(pf), *error = NULL;
	size_t n = 0;
	int r;

	r = bus_client_reset(c->bus, strempty(doc_str(pf, "pci")), &res, &n, &error);
	if (r == 1)
		fprintf(stderr, "sriov-persistd: %s\n", error);
	if (r != 0)
		return r == -ENOEXEC ? r : 0;
	printf("%s: %s; its status record is dropped\n", strna(who), strna(doc_str(pf, "reason")));
	return 1;
}

/* Reset(what) through sriov-persistd, said as a local reset says it, from
 * its reply and the PF's status before and after. Returns 1 when it
 * succeeded, 0 when not, -ENOEXEC when the main configuration has errors
 * (not printed). */
static int reset_one_by_daemon(struct ctl *c, const char *what)
{
	_cleanup_json_ struct json_object *all = NULL, *doc = NULL, *after = NULL;
	_cleanup_free_ char *who = NULL, *why = NULL, *error = NULL, *kept = NULL;
	_cleanup_free_ struct bus_reset *res = NULL;
	struct json_object *pf;
	size_t n = 0;
	int r;

	if (bus_client_document(c->bus, "GetStatus", NULL, &all) < 0)
		return 0;
	pf = doc_find(all, what);
	if (streq_ptr(doc_str(pf, "state"), "gone"))
		return reset_gone_by_daemon(c, pf);
	if (bus_client_document(c->bus, "GetStatus", what, &doc) < 0)
		return 0;
	pf = doc_idx(doc, "pfs", 0);
	who = doc_pf_describe(pf);
	why = nothing_left(all, pf);
	r = bus_client_reset(c->bus, what, &res, &n, &error);
	if (r == -ENOEXEC)
		return r;
	if (r < 0 || bus_client_document(c->bus, "GetStatus", what, &after) < 0)
		return 0;
	kept = firmware_left(all, doc_idx(after, "pfs", 0));
	if (n > 0)
		print_reset(c, pf, &res[0], doc_idx(after, "pfs", 0));
	else if (print_not_reset(c, doc_idx(after, "pfs", 0), record_time(pf))) {
		print_firmware_kept(who ?: what, kept);
		return 0;
	} else if (r == 1)
		fprintf(stderr, "sriov-persistd: %s\n", error);
	else
		printf("%s: nothing reset: %s\n", who ?: what,
		       why ?: "nothing that sriov-persist created is left on it");
	if (n > 0 || (!why && r == 0))
		print_firmware_kept(who ?: what, kept);
	return r == 0;
}

/* The line that says why a reset of every PF through the daemon reset
 * nothing: the daemon does not say what sriov-persist created on a PF a
 * layout selects. */
static void say_nothing_by_daemon(struct json_object *doc)
{
	for (size_t i = 0; i < doc_len(doc, "pfs"); i++) {
		const char *state = doc_str(doc_idx(doc, "pfs", i), "state");

		if (!streq_ptr(state, "unconfigured") && !streq_ptr(state, "gone")) {
			printf("Nothing to reset: no PF that no layout selects has VFs or a "
			       "switchdev mode that sriov-persist created; reset removes only what "
			       "a removed layout left\n");
			return;
		}
	}
	printf("Nothing to reset: no PF of this host has VFs or a switchdev mode that "
	       "sriov-persist created\n");
}

/* Below a PF's line: what the reset left of a raised firmware VF limit. */
static void kept_by_daemon(struct json_object *doc, struct json_object *pf)
{
	_cleanup_free_ char *who = doc_pf_describe(pf), *kept = firmware_left(doc, pf);

	print_firmware_kept(strna(who), kept);
}

/* A PF that Reset("") left as it was, whose raised firmware VF limit
 * stays, or that keeps the switchdev mode sriov-persist set while VFs not
 * its own are there: "nothing reset: ...", as a reset of that PF says it
 * (from before, its status before the reset), as a local reset of every
 * PF does. Returns 0 when it said nothing, 1 when it said it, 2 when it
 * said that the switchdev stays. */
static int say_kept_by_daemon(struct json_object *doc, struct json_object *pf,
			      struct json_object *before)
{
	_cleanup_free_ char *who = doc_pf_describe(pf), *kept = firmware_left(doc, pf),
			    *why = before ? nothing_left(doc, before) : NULL;
	bool eswitch = why && strstr(why, PF_CREATED_ESWITCH_WAITS);

	if (!why || (!kept && !eswitch))
		return 0;
	printf("%s: nothing reset: %s\n", strna(who), why);
	return eswitch ? 2 : 1;
}

/* Reset("") through sriov-persistd: each PF it changed, or whose reset did
 * not finish, said as a local reset says it, in PCI order. */
static int reset_all_by_daemon(struct ctl *c)
{
	_cleanup_json_ struct json_object *before = NULL, *after = NULL;
	_cleanup_free_ struct bus_reset *res = NULL;
	_cleanup_free_ char *error = NULL;
	size_t n = 0, not_reset = 0, kept = 0;
	int r, said;

	if (bus_client_document(c->bus, "GetStatus", NULL, &before) < 0)
		return EXIT_FAIL;
	r = bus_client_reset(c->bus, "", &res, &n, &error);
	if (r == -ENOEXEC)
		return ctl_main_broken_by_daemon(c, false);
	if (r < 0 || bus_client_document(c->bus, "GetStatus", NULL, &after) < 0)
		return EXIT_FAIL;
	for (size_t i = 0; i < doc_len(after, "pfs"); i++) {
		struct json_object *pf = doc_idx(after, "pfs", i);
		const struct bus_reset *one = find_reset(res, n, doc_str(pf, "pci"));

		if (one)
			print_reset(c, pf, one, pf);
		else if (print_not_reset(c, pf, record_time(doc_find(before, doc_str(pf, "pci")))))
			not_reset++;
		else if ((said = say_kept_by_daemon(after, pf,
						    doc_find(before, doc_str(pf, "pci"))))) {
			kept += said == 2;
			continue;
		}
		kept_by_daemon(after, pf);
	}
	if (r == 1 && not_reset == 0)
		fprintf(stderr, "sriov-persistd: %s\n", error);
	if (r == 0 && n == 0 && not_reset == 0 && kept > 0)
		printf("Nothing to reset: %s\n", NOTHING_ESWITCH_KEPT);
	else if (r == 0 && n == 0 && not_reset == 0)
		say_nothing_by_daemon(after);
	return r == 0 ? EXIT_OK : EXIT_FAIL;
}

/* Reset() through sriov-persistd, one call per PF named. */
static int reset_by_daemon(struct ctl *c)
{
	bool ok = true;
	int r;

	if (c->n_args == 0)
		return reset_all_by_daemon(c);
	for (int i = 0; i < c->n_args; i++) {
		r = reset_one_by_daemon(c, c->args[i]);
		if (r == -ENOEXEC)
			return ctl_main_broken_by_daemon(c, false);
		ok &= r > 0;
	}
	return ok ? EXIT_OK : EXIT_FAIL;
}

int verb_reset(struct ctl *c)
{
	_cleanup_layout_set_ struct layout_set *set = NULL;
	_cleanup_host_ struct host *h = NULL;
	struct mainconf conf;
	struct k8s_drain_judge drain = { .k8s_notify = ctl_k8s_notify_path(c),
					 .main_config = c->main_config,
					 .conf = &conf };
	bool ok = true;
	int r = 0;

	c->acting = "resetting";
	if (c->bus)
		return reset_by_daemon(c);
	if (ctl_load_all(c, &h, &set, &conf, false) < 0)
		return EXIT_FAIL;
	if (c->n_args == 0)
		r = reset_one(c, h, set, &drain, NULL, &ok);
	for (int i = 0; r >= 0 && i < c->n_args; i++)
		r = reset_one(c, h, set, &drain, c->args[i], &ok);
	k8s_drain_judge_done(&drain);
	mainconf_done(&conf);
	return r >= 0 && ok ? EXIT_OK : EXIT_FAIL;
}
