/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* apply_run: every PF of the host, or the one asked for, applied under its
 * lock (apply_pf: read, desired state, plan, disruption policy, execute,
 * read back), reset, or left alone when no layout selects it
 * (apply-reset.c); its status record written. */

#include "apply-internal.h"
#include "desired.h"
#include "host-view.h"
#include "layout-wants.h"
#include "reset-refusal.h"

/* A raise of the card's firmware VF limit goes as far as the layouts of all
 * its ports need (plan_raise_for_card()), read from the whole host; when
 * that cannot be read, the PF's own raise stands. */
static int raise_for_card(struct pf_run *run, struct plan *p, const struct pf_state *pf)
{
	_cleanup_host_state_ struct host_state *all = NULL;
	bool raises = false;

	for (size_t i = 0; i < p->n_actions; i++)
		raises |= p->actions[i].type == ACTION_SET_FIRMWARE_VFS;
	if (!raises || host_read(run->host, &all) < 0)
		return 0;
	return plan_raise_for_card(p, pf, all, run->set);
}

/* The PF read again under its lock, and what its layouts want of it. *ret_d
 * stays NULL when no layout selects it any more, or when the PF failed or
 * is held (its outcome says so). */
static int read_desired(struct pf_run *run, const char *pci, struct host_state **hs,
			const struct pf_state **ret_pf, struct pf_desired **ret_d)
{
	_cleanup_pf_desired_ struct pf_desired *d = NULL;
	struct pf_status *st = &run->res->status;
	const struct pf_state *pf;
	int r;

	r = apply_read_pf(run, pci, hs, &pf);
	if (r < 0)
		return apply_set_outcome(run->res, PF_STATUS_FAILED,
					 strdup_printf("reading the PF failed: %s", strerror(-r)));
	st->num_vfs = pf->num_vfs;
	r = desired_build(run->set, *hs, pf, run->diags, &d);
	if (r < 0)
		return r;
	if (!d) {
		run->res->configured = false;
		return 0;
	}
	strv_free(st->config_files);
	st->config_files = strv_copy(d->config_files);
	if (!st->config_files)
		return -ENOMEM;
	if (d->held)
		return apply_set_outcome(run->res, PF_STATUS_HELD, strdup(strna(d->held_reason)));
	*ret_pf = pf;
	*ret_d = TAKE_PTR(d);
	return 0;
}

/* The plan that takes pf to d, and the reboots it needs. */
static int make_plan(struct pf_run *run, const struct pf_desired *d, const struct pf_state *pf,
		     const struct host_state *hs, struct plan **ret)
{
	_cleanup_plan_ struct plan *p = NULL;
	struct pf_status *st = &run->res->status;
	int r;

	r = plan_build(d, pf, hs, &p);
	if (r >= 0)
		r = raise_for_card(run, p, pf);
	if (r < 0)
		return r;
	strv_free(st->reboot_reasons);
	st->reboot_reasons = strv_copy(p->reboot_reasons);
	if (!st->reboot_reasons)
		return -ENOMEM;
	*ret = TAKE_PTR(p);
	return 0;
}

/* The plan executed, and the PF read back: *ret_back is what is still to
 * do (unless the PF failed). */
static int execute_and_read_back(struct pf_run *run, const char *pci, const struct pf_desired *d,
				 const struct pf_state *pf, const struct plan *p,
				 struct plan **ret_back)
{
	int r = apply_execute_plan(run, pf, p);

	if (r < 0 || apply_failed(run))
		return r;
	return apply_verify(run, pci, d, ret_back);
}

/* Every step succeeded and yet something differs: a driver acted on its
 * own after a change (igb hands a VF that probes while it resets a
 * random MAC, and keeps it). What is left gets one more pass when it
 * destroys nothing; then it must hold. */
static int pass_again(struct pf_run *run, const char *pci, const struct pf_desired *d,
		      struct plan **back)
{
	_cleanup_plan_ struct plan *p = NULL;
	const struct pf_state *pf;

	if ((*back)->n_actions == 0 || plan_is_disruptive(*back))
		return 0;
	pf = host_state_find_pf(run->res->read_back, pci);
	if (!pf)
		return -ENODEV;
	p = TAKE_PTR(*back);
	return execute_and_read_back(run, pci, d, pf, p, back);
}

/* The disruption policy holds the plan back: nothing ran, so what only its
 * apply would set for the next reboot (a firmware VF limit it raises) waits
 * for no reboot; it is said apart, as plan says it, and the PF (and its
 * record) keeps only what the firmware already holds. */
static int defer(struct pf_run *run, const struct plan *p, char *hold)
{
	struct pf_status *st = &run->res->status;
	int r;

	strv_free(st->reboot_reasons);
	st->reboot_reasons = NULL;
	r = plan_reboot_reasons_waited(p, &st->reboot_reasons);
	if (r >= 0)
		r = plan_reboot_reasons_of(p, false, &run->res->reboot_planned);
	if (r < 0) {
		free(hold);
		return r;
	}
	return apply_set_outcome(run->res, PF_STATUS_DEFERRED, hold);
}

static int apply_pf(struct pf_run *run, const char *pci, struct host_state **hs)
{
	_cleanup_pf_desired_ struct pf_desired *d = NULL;
	_cleanup_plan_ struct plan *p = NULL, *back = NULL;
	const struct pf_state *pf = NULL;
	char *hold;
	int r;

	r = read_desired(run, pci, hs, &pf, &d);
	if (r < 0 || !d)
		return r;
	r = make_plan(run, d, pf, *hs, &p);
	if (r < 0)
		return r;
	if (p->n_actions == 0)
		return apply_set_unmet(run->res, p);
	hold = plan_is_disruptive(p) ? apply_hold_reason(run) : NULL;
	if (hold)
		return defer(run, p, hold);
	if (plan_is_disruptive(p) && !run->opts->allow_disruptive)
		run->res->without_drain = mainconf_without_drain(run->opts->conf);
	/* on the record too, for the daemon's Apply() to say it as sriovctl does */
	if (run->res->without_drain) {
		run->res->status.without_drain = strdup(run->res->without_drain);
		if (!run->res->status.without_drain)
			return -ENOMEM;
	}
	r = execute_and_read_back(run, pci, d, pf, p, &back);
	/* what the VFs made anew lost, said once by whoever reports the apply */
	if (r >= 0 && !apply_failed(run))
		run->res->dropped = TAKE_PTR(p->dropped);
	if (r >= 0 && !apply_failed(run))
		r = pass_again(run, pci, d, &back);
	if (r < 0 || apply_failed(run))
		return r;
	if (back->n_actions > 0)
		return apply_differs(run, back);
	/* what the host still lacks, as the read back has it */
	return apply_set_unmet(run->res, back);
}

/* Under the PF's lock. The PF as last read is kept in the result: read
 * back after actions (apply_verify()), or as read before when none was tried (an
 * action that failed may still have changed something). */
static int apply_locked(struct pf_run *run, const char *pci)
{
	_cleanup_host_state_ struct host_state *hs = NULL;
	int r = apply_pf(run, pci, &hs);

	if (!run->res->read_back && !run->attempted)
		run->res->read_back = TAKE_PTR(hs);
	return r;
}

/* Whether any layout selects pf: a PF that none selects is never touched,
 * not even locked. */
static int is_configured(const struct pf_run *run, const struct host_state *hs,
			 const struct pf_state *pf)
{
	_cleanup_pf_desired_ struct pf_desired *d = NULL;
	struct diag_list ignored = {};
	int r;

	r = desired_build(run->set, hs, pf, &ignored, &d);
	diag_list_done(&ignored);
	if (r < 0)
		return r;
	return !!d;
}

/* reset names a PF that a layout selects: that is not what reset is for. */
static int refuse_reset(struct pf_run *run, const struct pf_state *pf)
{
	int r;

	run->res->configured = true;
	r = apply_status_init(&run->res->status, pf);
	if (r < 0)
		return r;
	return apply_set_outcome(run->res, PF_STATUS_FAILED, reset_refusal(run->set, run->hs, pf));
}

/* The status record of a configured PF, with the raise of the firmware VF
 * limit that the PF as read back (or as read before, when it was not) still
 * waits for; one that cannot be written fails it. */
static int record_status(struct pf_run *run, const struct pf_state *pf)
{
	const struct apply_options *o = run->opts;
	struct pf_status *st = &run->res->status;
	const struct pf_state *back =
		run->res->read_back ? host_state_find_pf(run->res->read_back, pf->pci) : NULL;
	int r;

	r = pf_status_carry_firmware(o->runtime_dir, st, back ?: pf, run->raised_firmware);
	if (r >= 0 && !st->layouts) {
		/* what the layouts want of it now: a start under [Drift]
		 * Mode=report tells a change of them from drift */
		_cleanup_free_ char *wants = layout_wants(run->set, run->hs, pf);

		st->layouts = wants ? layout_wants_signature(wants) : NULL;
		r = st->layouts ? 0 : -ENOMEM;
	}
	if (r >= 0)
		r = pf_status_write(o->runtime_dir, st);
	if (r < 0) {
		/* The boot gate and status read this record: without it the PF
		 * is not applied as far as anyone can tell. */
		_cleanup_free_ char *was =
			st->state == PF_STATUS_APPLIED ?
				strdup("applied") :
				strdup_printf("%s: %s", pf_status_state_to_string(st->state),
					      strna(st->error));

		return apply_set_outcome(
			run->res, PF_STATUS_FAILED,
			strdup_printf("writing the status record in %s/pf failed: %s "
				      "(the apply itself: %s)",
				      o->runtime_dir, strerror(-r), strna(was)));
	}
	return 0;
}

static int apply_one(struct pf_run *run, const struct pf_state *pf, bool configured)
{
	struct pf_status *st = &run->res->status;
	_cleanup_close_ int lock = -EBADF;
	const struct apply_options *o = run->opts;
	int r;

	if (!configured)
		return apply_unconfigured(run, pf);
	if (o->reset)
		return refuse_reset(run, pf);

	r = apply_status_init(st, pf);
	if (r < 0)
		return r;
	st->started = apply_now(run);
	run->res->configured = true;
	run->deadline = now_monotonic() + o->conf->apply_timeout;
	/* also a held PF's record is written under the lock: never over the
	 * record of someone applying it right now */
	lock = apply_take_lock(run, pf);
	if (run->res->busy)
		return 0;
	if (lock >= 0 && o->hold) {
		r = apply_set_outcome(run->res, PF_STATUS_HELD, strdup(o->hold));
		if (r < 0)
			return r;
		st->finished = st->started;
		return record_status(run, pf);
	}
	if (lock < 0)
		r = lock == -ENOMEM ? lock : 0;
	else {
		host_begin(run->host, lock);
		r = apply_locked(run, pf->pci);
		r = apply_end_host(run, r);
	}
	if (r < 0)
		return r;
	st->finished = apply_now(run);
	if (!run->res->configured)
		return pf_status_remove(o->runtime_dir, pf->pci);
	return record_status(run, pf);
}

/* The host as apply_run needs it: only the PF asked for when only is a PCI
 * address, else all of it; *ret_only is the PF only names (NULL: every PF). */
static int read_for_run(struct host *h, const char *only, struct host_state **ret,
			const struct pf_state **ret_only)
{
	_cleanup_host_state_ struct host_state *hs = NULL;
	char pci[PCI_ADDR_MAX];
	uint32_t domain, rid;
	int r;

	if (only && pci_addr_parse(only, &domain, &rid) >= 0) {
		pci_addr_format(domain, rid, pci);
		r = host_read_pf(h, pci, &hs);
	} else
		r = host_read(h, &hs);
	if (r < 0)
		return r;
	*ret_only = only ? host_state_lookup_pf(hs, only) : NULL;
	if (only && !*ret_only)
		return -ENXIO;
	*ret = TAKE_PTR(hs);
	return 0;
}

int apply_run(struct host *h, const struct layout_set *set, const struct apply_options *opts,
	      struct apply_result *ret)
{
	_cleanup_host_state_ struct host_state *hs = NULL;
	const struct pf_state *only;
	struct apply_result res = {};
	bool ok = true;
	int r;

	r = read_for_run(h, opts->only, &hs, &only);
	if (r < 0)
		return r;
	res.pfs = calloc(hs->n_pfs ?: 1, sizeof(*res.pfs));
	/* a mistyped [Match] would otherwise pass in silence */
	if (!res.pfs || (!only && desired_unselected(set, hs, &res.diags, NULL, NULL) < 0)) {
		apply_result_done(&res);
		return -ENOMEM;
	}
	for (size_t i = 0; i < hs->n_pfs; i++) {
		const struct pf_state *pf = &hs->pfs[i];
		struct pf_run run = {
			.host = h,
			.hs = hs,
			.set = set,
			.opts = opts,
			.diags = &res.diags,
			.res = &res.pfs[res.n_pfs],
		};

		if (only && pf != only)
			continue;
		r = is_configured(&run, hs, pf);
		if (r > 0 && opts->reset && !only)
			continue;
		res.n_pfs++;
		if (r >= 0)
			r = apply_one(&run, pf, r > 0);
		if (r < 0) {
			apply_result_done(&res);
			return r;
		}
		if (opts->on_pf_done)
			opts->on_pf_done(run.res, opts->userdata);
		/* unconfigured PFs count when undoing what we created failed */
		if (run.res->status.state != PF_STATUS_APPLIED || run.res->busy)
			ok = false;
	}
	*ret = res;
	return ok ? 0 : -EIO;
}

void apply_result_done(struct apply_result *r)
{
	for (size_t i = 0; i < r->n_pfs; i++) {
		pf_status_done(&r->pfs[i].status);
		host_state_free(r->pfs[i].read_back);
		free(r->pfs[i].nothing_left);
		free(r->pfs[i].firmware_kept);
		strv_free(r->pfs[i].dropped);
		strv_free(r->pfs[i].reboot_planned);
	}
	free(r->pfs);
	diag_list_done(&r->diags);
	*r = (struct apply_result){};
}
