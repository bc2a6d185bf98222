/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* sriovctl reset [PF...]: removes what sriov-persist created on PFs whose
 * layout is gone (the VF count, switchdev), while they are as they were
 * left. A disruptive change: it follows [Disruption] Policy=. */

#include <inttypes.h>

#include "json-util.h"
#include "sriovctl.h"

#define RECORD_DROPPED "; sriov-persist's record of what it created is dropped"

/* Returns whether the PF is in the state reset wants. A PF whose record
 * goes is said also by a reset of every PF. */
static bool print_result(const struct ctl *c, const struct apply_pf_result *res, bool named)
{
	const struct pf_status *st = &res->status;
	_cleanup_free_ char *who = st->name ? strdup_printf("%s (%s)", st->pci, st->name) :
					      strdup(st->pci);

	switch (st->state) {
	case PF_STATUS_APPLIED:
		if (res->changed)
			printf("%s: %s, %u action(s); %u VFs\n", strna(who),
			       ctl_paint(c, ANSI_GREEN, "reset"), st->n_actions, st->num_vfs);
		else if (named || res->record_dropped)
			printf("%s: nothing reset: %s%s\n", strna(who),
			       res->nothing_left ?:
						   "nothing that sriov-persist created is left on it",
			       res->record_dropped ? RECORD_DROPPED : "");
		return true;
	case PF_STATUS_HELD:
	case PF_STATUS_FAILED:
	case PF_STATUS_DEGRADED:
		printf("%s: %s: %s\n", strna(who), ctl_paint(c, ANSI_RED, "not reset"),
		       strna(st->error));
		return false;
	case PF_STATUS_DEFERRED:
		printf("%s: %s: %s\n", strna(who), ctl_paint(c, ANSI_YELLOW, "deferred"),
		       strna(st->error));
		return false;
	case _PF_STATUS_STATE_MAX:
	case _PF_STATUS_STATE_INVALID:
		break;
	}
	return false;
}

/* Each PF's progress lines and its result together, as it is done. */
static void reset_on_pf_done(const struct apply_pf_result *res, void *userdata)
{
	struct ctl_run *x = userdata;

	x->ok &= print_result(x->c, res, x->only != NULL);
	x->done += res->changed;
	fflush(stdout);
}

static int reset_one(struct ctl *c, struct host *h, const struct layout_set *set,
		     const struct mainconf *conf, const char *only, bool *ok)
{
	struct ctl_run x = { .c = c, .only = only, .ok = true };
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
	};
	int r;

	r = apply_run(h, set, &opts, &res);
	apply_result_done(&res);
	*ok &= x.ok;
	if (r == -ENXIO) {
		fprintf(stderr, "No PF '%s' on this host\n", only);
		*ok = false;
		return 0;
	}
	if (r < 0 && r != -EIO) {
		fprintf(stderr, "Resetting failed: %s%s%s\n", strerror(-r), h->error[0] ? ": " : "",
			h->error);
		return r;
	}
	if (!only && x.done == 0 && x.ok)
		printf("Nothing to reset: no PF has what a removed layout left\n");
	return 0;
}

/* A PF of GetStatus() that no layout selects and that has nothing of
 * sriov-persist's left: why, with the VFs it has now: the reason, when its
 * record says more than is left (the reset drops the record), else what
 * there is. NULL otherwise (or on ENOMEM: said the old way). */
static char *nothing_left(struct json_object *pf)
{
	uint64_t n = doc_u64(pf, "num_vfs");
	const char *why = doc_str(pf, "reason");

	if (!streq_ptr(doc_str(pf, "state"), "unconfigured") || doc_pf_has_leftovers(pf))
		return NULL;
	if (why)
		return strdup_printf("%s%s", why, RECORD_DROPPED);
	if (n == 0)
		return strdup(
			"it has no VFs, and nothing that sriov-persist created is left on it");
	return strdup_printf("%" PRIu64 " VF(s) exist, none of them sriov-persist's to remove "
			     "(made, or their count changed, outside sriov-persist); left as they "
			     "are",
			     n);
}

/* Reset(what) through sriov-persistd. Returns whether it succeeded. */
static bool reset_one_by_daemon(struct ctl *c, const char *what)
{
	_cleanup_json_ struct json_object *doc = NULL;
	_cleanup_free_ char *who = NULL, *why = NULL;

	if (bus_client_document(c->bus, "GetStatus", what, &doc) < 0)
		return false;
	who = doc_pf_describe(doc_idx(doc, "pfs", 0));
	why = nothing_left(doc_idx(doc, "pfs", 0));
	if (bus_client_apply(c->bus, "Reset", what) < 0)
		return false;
	if (why)
		printf("%s: nothing reset: %s\n", who ?: what, why);
	else
		printf("%s: reset (or waiting for a drain; see sriovctl status)\n", what);
	return true;
}

/* Reset() through sriov-persistd, one call per PF named. */
static int reset_by_daemon(struct ctl *c)
{
	bool ok = true;

	if (c->n_args == 0)
		return bus_client_apply(c->bus, "Reset", "") < 0 ? EXIT_FAIL : EXIT_OK;
	for (int i = 0; i < c->n_args; i++)
		ok &= reset_one_by_daemon(c, c->args[i]);
	return ok ? EXIT_OK : EXIT_FAIL;
}

int verb_reset(struct ctl *c)
{
	_cleanup_layout_set_ struct layout_set *set = NULL;
	_cleanup_host_ struct host *h = NULL;
	struct mainconf conf;
	bool ok = true;
	int r = 0;

	c->acting = "resetting";
	if (c->bus)
		return reset_by_daemon(c);
	if (ctl_load_all(c, &h, &set, &conf) < 0)
		return EXIT_FAIL;
	if (c->n_args == 0)
		r = reset_one(c, h, set, &conf, NULL, &ok);
	for (int i = 0; r >= 0 && i < c->n_args; i++)
		r = reset_one(c, h, set, &conf, c->args[i], &ok);
	mainconf_done(&conf);
	return r >= 0 && ok ? EXIT_OK : EXIT_FAIL;
}
