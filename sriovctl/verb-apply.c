/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <inttypes.h>
#include <unistd.h>

#include "desired.h"
#include "json-util.h"
#include "report-gone.h"
#include "report.h"
#include "sriovctl.h"

/* Applied as far as it goes, while another tool has yet to create VFs
 * (ExternallyManaged=yes): "pending: waiting for another tool to create
 * VFs: 0 of 8 exist (ExternallyManaged=yes)", or "pending after N
 * action(s): ..." when the VFs that exist were configured. */
static void print_waiting(const struct ctl *c, const char *who, uint64_t n_actions, const char *why)
{
	if (n_actions > 0)
		printf("%s: %s after %" PRIu64 " action(s): %s\n", strna(who),
		       ctl_paint(c, ANSI_YELLOW, "pending"), n_actions, strna(why));
	else
		printf("%s: %s: %s\n", strna(who), ctl_paint(c, ANSI_YELLOW, "pending"),
		       strna(why));
}

/* Nothing to do now, and what the layouts want waits for a reboot (the
 * "reboot needed:" lines that follow): not "already applied". */
static void print_reboot_pending(const struct ctl *c, const char *who)
{
	printf("%s: %s: nothing to do until a reboot\n", strna(who),
	       ctl_paint(c, ANSI_YELLOW, "pending"));
}

/* A PF no layout selects, named: said, not passed over in silence. */
static void print_unconfigured(const char *who)
{
	printf("%s: unconfigured (no layout selects it): nothing to apply\n", strna(who));
}

/* A whole-host apply that found no PF a layout selects. */
static void print_none_configured(void)
{
	printf("No layout selects a PF on this host; nothing applied\n");
}

/* A PF that an apply recorded and that is no longer on the host: not as the
 * layouts say, as plan says it, with the reset that drops its record. */
static void print_gone(struct ctl_run *x, const char *who, const char *pci, const char *why)
{
	printf("%s: %s: %s\n", strna(who), ctl_paint(x->c, ANSI_YELLOW, "gone"), strna(why));
	printf("  \"sriovctl%s reset %s\" drops its status record\n", strempty(x->c->local_options),
	       strna(pci));
	x->ok = false;
}

static int print_gone_record(const struct pf_status *st, void *userdata)
{
	_cleanup_free_ char *why = report_gone_reason(st);
	_cleanup_free_ char *who = pf_names_describe(st->pci, st->name);

	if (!why || !who)
		return -ENOMEM;
	print_gone(userdata, who, st->pci, why);
	return 0;
}

/* After an apply of every PF: the PFs with a record that are gone (the host
 * read anew, as they may leave while it runs). */
static int apply_report_gone(struct ctl_run *x, struct host *h)
{
	_cleanup_host_state_ struct host_state *hs = NULL;
	int r;

	r = host_read(h, &hs);
	if (r < 0) {
		fprintf(stderr, "Reading the host failed: %s\n", strerror(-r));
		return r;
	}
	return report_gone_each(hs, x->c->runtime_dir, print_gone_record, x);
}

/* "applied, N action(s) ..."; "pending a reboot, N action(s) ..." when what
 * is left waits for a reboot (the "reboot needed:" lines that follow), as
 * status says the PF is pending, not applied. */
static const char *applied_word(const struct ctl *c, bool reboot)
{
	return reboot ? ctl_paint(c, ANSI_YELLOW, "pending a reboot") :
			ctl_paint(c, ANSI_GREEN, "applied");
}

static void print_applied(const struct ctl *c, const char *who, const struct apply_pf_result *res,
			  double secs)
{
	const struct pf_status *st = &res->status;

	printf("%s: %s, %u action(s) in %.2fs (%.2fs in the host), %u VFs\n", strna(who),
	       applied_word(c, st->reboot_reasons && st->reboot_reasons[0]), st->n_actions, secs,
	       (double)st->host_usec / (double)USEC_PER_SEC, st->num_vfs);
	if (res->without_drain)
		printf("  note: disruptive, without a drain: %s\n", res->without_drain);
}

/* What VFs made anew lost that no layout sets (struct plan's dropped):
 * said once, after the PF's result. */
static void print_dropped(const struct ctl *c, const struct apply_pf_result *res)
{
	for (char **d = res->dropped; d && *d; d++)
		printf("  %s %s\n", ctl_paint(c, ANSI_YELLOW, "note:"), *d);
}

/* The PF's reboot reasons as status says them of the host as the apply
 * left it (report_card_limit_said(): a limit set by hand since the raise,
 * as the firmware holds it); the record keeps them as they are. NULL: out
 * of memory. */
static char **reasons_said(const struct ctl_run *x, const struct pf_status *st)
{
	_cleanup_strv_free_ char **said = strv_copy(st->reboot_reasons);
	_cleanup_host_state_ struct host_state *hs = NULL;
	struct host_view v = {};
	/* a raise it carries: a limit set by hand since is said, also without
	 * a reason of its own (a deferred apply) */
	bool raised = st->firmware.set;

	for (char **r = said; r && *r; r++)
		raised |= startswith(*r, "firmware VF limit raised to ");
	if (!said || !raised || !x->h || !x->set || host_read(x->h, &hs) < 0 ||
	    host_view_build(hs, x->set, st->pci, &v) < 0)
		return TAKE_PTR(said);
	if (v.n_pfs == 1 && v.pfs[0].desired &&
	    report_card_limit_said(x->c->runtime_dir, hs, v.pfs[0].pf,
				   pf_desired_num_vfs(v.pfs[0].desired, v.pfs[0].pf), &said) < 0)
		said = strv_free(said);
	host_view_done(&v);
	return TAKE_PTR(said);
}

static void print_result(const struct ctl_run *x, const struct apply_pf_result *res, bool named)
{
	const struct ctl *c = x->c;
	_cleanup_strv_free_ char **reboot = NULL;
	const struct pf_status *st = &res->status;
	_cleanup_free_ char *who = pf_names_describe(st->pci, st->name);
	_cleanup_free_ char *waiting =
		st->waiting && st->waiting[0] ? strv_join(st->waiting, "; ") : NULL;
	double secs = (double)(st->finished - st->started) / (double)USEC_PER_SEC;

	if (!res->configured) {
		if (named)
			print_unconfigured(who);
		return;
	}
	switch (st->state) {
	case PF_STATUS_APPLIED:
		if (waiting)
			print_waiting(c, who, st->n_actions, waiting);
		else if (res->changed)
			print_applied(c, who, res, secs);
		else if (st->reboot_reasons && st->reboot_reasons[0])
			print_reboot_pending(c, who);
		else
			printf("%s: %s\n", strna(who), ctl_paint(c, ANSI_GREEN, "already applied"));
		break;
	case PF_STATUS_HELD:
		printf("%s: %s (nothing applied): %s\n", strna(who), ctl_paint(c, ANSI_RED, "held"),
		       strna(st->error));
		break;
	case PF_STATUS_FAILED:
		printf("%s: %s after %u action(s): %s\n", strna(who),
		       ctl_paint(c, ANSI_RED, "failed"), st->n_actions, strna(st->error));
		break;
	case PF_STATUS_DEFERRED:
		printf("%s: %s: %s\n", strna(who), ctl_paint(c, ANSI_YELLOW, "deferred"),
		       strna(st->error));
		break;
	case PF_STATUS_DEGRADED:
		printf("%s: %s after %u action(s): %s\n", strna(who),
		       ctl_paint(c, ANSI_YELLOW, "degraded"), st->n_actions, strna(st->error));
		break;
	case _PF_STATUS_STATE_MAX:
	case _PF_STATUS_STATE_INVALID:
		break;
	}
	print_dropped(c, res);
	/* what the firmware holds for the next reboot; what only the apply
	 * the policy deferred would set, as plan says it */
	reboot = reasons_said(x, st);
	for (char **r = reboot ?: st->reboot_reasons; r && *r; r++)
		printf("  %s %s\n", ctl_paint(c, ANSI_YELLOW, "reboot needed:"), *r);
	for (char **r = res->reboot_planned; r && *r; r++)
		printf("  %s %s\n", ctl_paint(c, ANSI_YELLOW, "reboot needed after its apply:"),
		       *r);
}

/* print_applied() of the daemon's apply, from the PF's last_apply: the
 * note of a disruptive change made without a drain is on that record. */
static void print_daemon_applied(const struct ctl *c, const char *who, struct json_object *pf,
				 double secs)
{
	struct json_object *last = doc_get(pf, "last_apply");
	const char *without_drain = doc_str(last, "without_drain");

	printf("%s: %s, %" PRIu64 " action(s) in %.2fs (%.2fs in the host), %" PRIu64 " VFs\n",
	       strna(who), applied_word(c, doc_len(pf, "pending_reboot_reasons") > 0),
	       doc_u64(last, "actions"), secs,
	       (double)doc_u64(last, "host_usec") / (double)USEC_PER_SEC, doc_u64(pf, "num_vfs"));
	if (without_drain)
		printf("  note: disruptive, without a drain: %s\n", without_drain);
}

/* The result of the daemon's apply of one PF, from its last_apply in the
 * status document, in the words of print_result(). Returns whether it was
 * applied. */
static bool print_daemon_result(const struct ctl *c, struct json_object *pf)
{
	_cleanup_free_ char *who = doc_pf_describe(pf);
	struct json_object *last = doc_get(pf, "last_apply");
	const char *state = doc_str(last, "state"), *error = strna(doc_str(last, "error"));
	uint64_t actions = doc_u64(last, "actions"), started = doc_u64(last, "started_usec");
	uint64_t finished = doc_u64(last, "finished_usec");
	double secs = (double)(finished > started ? finished - started : 0) / (double)USEC_PER_SEC;

	/* held by a layout error and never recorded: the reason is the PF's */
	if (!last && streq_ptr(doc_str(pf, "state"), "held")) {
		state = "held";
		error = strna(doc_str(pf, "reason"));
	}
	if (!state)
		printf("%s: %s\n", strna(who), ctl_paint(c, ANSI_RED, "not applied"));
	else if (streq(state, "applied") && doc_len(pf, "waiting") > 0)
		print_waiting(c, who, actions, json_object_get_string(doc_idx(pf, "waiting", 0)));
	else if (streq(state, "applied") && actions > 0)
		print_daemon_applied(c, who, pf, secs);
	else if (streq(state, "applied") && doc_len(pf, "pending_reboot_reasons") > 0)
		print_reboot_pending(c, who);
	else if (streq(state, "applied"))
		printf("%s: %s\n", strna(who), ctl_paint(c, ANSI_GREEN, "already applied"));
	else if (streq(state, "held"))
		printf("%s: %s (nothing applied): %s\n", strna(who), ctl_paint(c, ANSI_RED, "held"),
		       error);
	else if (streq(state, "failed"))
		printf("%s: %s after %" PRIu64 " action(s): %s\n", strna(who),
		       ctl_paint(c, ANSI_RED, "failed"), actions, error);
	else
		printf("%s: %s: %s\n", strna(who), ctl_paint(c, ANSI_YELLOW, state), error);
	for (size_t i = 0; i < doc_len(pf, "pending_reboot_reasons"); i++)
		printf("  %s %s\n", ctl_paint(c, ANSI_YELLOW, "reboot needed:"),
		       strna(json_object_get_string(doc_idx(pf, "pending_reboot_reasons", i))));
	return streq_ptr(state, "applied");
}

int ctl_main_broken_by_daemon(struct ctl *c, bool apply)
{
	_cleanup_json_ struct json_object *doc = NULL;
	const char *only = apply && c->n_args > 0 ? c->args[0] : NULL;
	struct json_object *daemon;

	if (bus_client_document(c->bus, "GetStatus", only, &doc) < 0)
		return EXIT_FAIL;
	daemon = doc_get(doc, "daemon");
	for (size_t i = 0; i < doc_len(daemon, "config_errors"); i++)
		fprintf(stderr, "%s\n",
			strna(json_object_get_string(doc_idx(daemon, "config_errors", i))));
	fflush(stderr);
	for (size_t i = 0; apply && i < doc_len(doc, "pfs"); i++) {
		struct json_object *pf = doc_idx(doc, "pfs", i);
		const char *state = doc_str(pf, "state");
		_cleanup_free_ char *who = NULL;

		if (streq_ptr(state, "unconfigured") || streq_ptr(state, "gone"))
			continue;
		who = doc_pf_describe(pf);
		printf("%s: %s (nothing applied): %s\n", strna(who), ctl_paint(c, ANSI_RED, "held"),
		       strna(doc_str(pf, "reason")));
	}
	fflush(stdout);
	fprintf(stderr, "The main configuration has errors; fix them first\n");
	return EXIT_FAIL;
}

#define REBOOT_WAIT_USEC (10 * USEC_PER_SEC)

/* Apply() starts the reboot for the pending reboot reasons again where one
 * is to be made: while the daemon waits for logind's answer to it (its
 * operation's step "reboot"), GetStatus() again, for up to 10 seconds. */
static int status_after_reboot_call(struct ctl *c, const char *only, struct json_object **doc)
{
	usec_t until = deadline_after(REBOOT_WAIT_USEC);

	for (;;) {
		struct json_object *daemon = doc_get(*doc, "daemon");
		struct json_object *op = doc_get(daemon, "operation");

		if (doc_get(daemon, "reboot_failed") || !streq_ptr(doc_str(op, "kind"), "reboot") ||
		    !streq_ptr(doc_str(op, "step"), "reboot") || now_monotonic() >= until)
			return 0;
		(void)usleep(200 * 1000);
		json_object_put(*doc);
		*doc = NULL;
		if (bus_client_document(c->bus, "GetStatus", only, doc) < 0)
			return -EIO;
	}
}

/* A failed reboot that stands after Apply() (tried again and failed again,
 * or not tried), or a reboot it started that is still under way. Returns
 * false for the failure. */
static bool print_daemon_reboot(const struct ctl *c, struct json_object *daemon)
{
	struct json_object *failed = doc_get(daemon, "reboot_failed");
	struct json_object *op = doc_get(daemon, "operation");

	if (failed) {
		ctl_print_reboot_failed(c, stdout, "sriov-persistd: ", failed);
		return false;
	}
	if (streq_ptr(doc_str(op, "kind"), "reboot"))
		printf("sriov-persistd: reboot for the pending reboot reasons under way (step %s); "
		       "sriovctl status says whether it fails\n",
		       strna(doc_str(op, "step")));
	return true;
}

/* Apply() through sriov-persistd, then what it did from GetStatus(), as
 * apply prints it when it does the work itself: the errors in the layouts
 * on standard error, one line per configured PF; exit 1 when Apply()
 * replied that a PF was not applied or one is not applied now. */
static int apply_by_daemon(struct ctl *c)
{
	_cleanup_json_ struct json_object *doc = NULL;
	const char *only = c->n_args > 0 ? c->args[0] : NULL;
	struct ctl_run x = { .c = c, .ok = true };
	struct json_object *daemon;
	size_t configured = 0;
	bool ok;
	int r;

	r = bus_client_apply(c->bus, "Apply", only ?: "");
	if (r == -ENOEXEC)
		return ctl_main_broken_by_daemon(c, true);
	if (r < 0 || bus_client_document(c->bus, "GetStatus", only, &doc) < 0 ||
	    status_after_reboot_call(c, only, &doc) < 0)
		return EXIT_FAIL;
	ok = r == 0;
	daemon = doc_get(doc, "daemon");
	for (size_t i = 0; i < doc_len(daemon, "config_errors"); i++)
		fprintf(stderr, "%s\n",
			strna(json_object_get_string(doc_idx(daemon, "config_errors", i))));
	for (size_t i = 0; i < doc_len(doc, "pfs"); i++) {
		struct json_object *pf = doc_idx(doc, "pfs", i);
		const char *state = doc_str(pf, "state");
		_cleanup_free_ char *who = NULL;

		if (streq_ptr(state, "unconfigured") && only) {
			who = doc_pf_describe(pf);
			print_unconfigured(who);
		} else if (streq_ptr(state, "gone")) {
			who = doc_pf_describe(pf);
			print_gone(&x, who, doc_str(pf, "pci"), doc_str(pf, "reason"));
		} else if (!streq_ptr(state, "unconfigured")) {
			ok &= print_daemon_result(c, pf);
			configured++;
		}
	}
	if (!only && configured == 0)
		print_none_configured();
	ok &= print_daemon_reboot(c, daemon);
	return ok && x.ok ? EXIT_OK : EXIT_FAIL;
}

/* Each PF's result right after its actions, so that the lines of one PF
 * stay together. */
static void apply_on_pf_done(const struct apply_pf_result *res, void *userdata)
{
	struct ctl_run *x = userdata;

	print_result(x, res, x->only);
	x->done += res->configured;
	fflush(stdout);
}

/* Values written into a simulated host come from that host alone: an ID
 * given here would be ignored, and what plan showed with it not be what is
 * written. */
static bool refuse_machine_id(const struct ctl *c)
{
	if (!c->has_machine_id)
		return false;
	fprintf(stderr, "--machine-id: not taken by apply, which derives stable values from "
			"the snapshot's own machine_id; plan without --machine-id shows what "
			"apply writes\n");
	return true;
}

int verb_apply(struct ctl *c)
{
	_cleanup_layout_set_ struct layout_set *set = NULL;
	_cleanup_host_ struct host *h = NULL;
	struct apply_result res = {};
	struct mainconf conf;
	struct ctl_run x = { .c = c, .only = c->n_args > 0 ? c->args[0] : NULL, .ok = true };
	_cleanup_free_ char *daemon_command = ctl_daemon_command(c);
	struct k8s_drain_judge drain = { .k8s_notify = ctl_k8s_notify_path(c),
					 .main_config = c->main_config,
					 .conf = &conf };
	struct apply_options opts = {
		.conf = &conf,
		.runtime_dir = c->runtime_dir,
		.state_dir = c->state_dir,
		.only = x.only,
		.on_action = ctl_on_action,
		.on_pf_done = apply_on_pf_done,
		.userdata = &x,
		.drain_refusal = c->root ? NULL : k8s_drain_refusal,
		.drain_userdata = &drain,
		.drain_daemon = ctl_drain_daemon,
		.drain_daemon_userdata = c,
		.drain_daemon_command = daemon_command,
	};
	int r;

	c->acting = "applying";
	if (c->local_options && !daemon_command) {
		fprintf(stderr, "Out of memory\n");
		return EXIT_FAIL;
	}
	if (refuse_machine_id(c))
		return EXIT_USAGE;
	if (c->bus)
		return apply_by_daemon(c);
	/* with errors in the main configuration, its policy cannot be known:
	 * every configured PF is held, and recorded so, as plan says */
	if (ctl_load_all(c, &h, &set, &conf, true) < 0)
		return EXIT_FAIL;
	opts.hold = set->main_error;
	x.h = h;
	x.set = set;
	r = apply_run(h, set, &opts, &res);
	k8s_drain_judge_done(&drain);
	mainconf_done(&conf);
	if (r == -ENXIO) {
		fprintf(stderr, "No PF '%s' on this host\n", opts.only);
		return EXIT_FAIL;
	}
	if (r < 0 && r != -EIO) {
		fprintf(stderr, "Applying failed: %s%s%s\n", strerror(-r), h->error[0] ? ": " : "",
			h->error);
		return EXIT_FAIL;
	}
	ctl_print_diags(&res.diags);
	if (!opts.only && x.done == 0)
		print_none_configured();
	apply_result_done(&res);
	if (!opts.only && apply_report_gone(&x, h) < 0)
		return EXIT_FAIL;
	/* a main configuration with errors fails the apply, also when no
	 * layout selects a PF to hold */
	return r < 0 || !x.ok || c->main_broken ? EXIT_FAIL : EXIT_OK;
}
