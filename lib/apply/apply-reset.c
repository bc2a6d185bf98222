/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* A PF that no layout selects: never touched, and its status record goes
 * (but a reset's that leaves the switchdev sriov-persist set, or that waits
 * for the disruption policy).
 * A reset (sriovctl reset, Reset()) removes what sriov-persist created on
 * it, step by step, while the PF is as it was left, and the kernel
 * arguments it added when no other PF needs them. */

#include "apply-internal.h"
#include "desired.h"
#include "host-view.h"

/* Runs one step of a reset on pf: 0 and one more change counted, or 1
 * when it did not go through and the PF failed with "what: why";
 * -ENOMEM. */
static int reset_step(struct pf_run *run, const struct pf_state *pf, const char *pci,
		      const struct action *a, const char *what)
{
	const struct apply_options *o = run->opts;
	int r = host_run(run->host, pci, a, o->conf->sysfs_write_timeout);

	if (o->on_action)
		o->on_action(pf, a, r, run->host->error, o->userdata);
	if (r < 0) {
		_cleanup_free_ char *why = apply_action_error(run->host, a, r);

		return apply_set_outcome(run->res, PF_STATUS_FAILED, strdup_printf("%s: %s", what, strna(why))) ?:
			       1;
	}
	run->res->changed = true;
	run->res->status.n_actions++;
	return 0;
}

/* Under the lock, for a PF that no layout selects any more: undo what
 * sriov-persist created on it, if it is still as we left it. Someone who
 * changed the VF count since owns the VFs now, and they are left alone. */
static int reset_locked(struct pf_run *run, const struct pf_created *c)
{
	_cleanup_host_state_ struct host_state *hs = NULL;
	const struct pf_state *pf;
	struct action a;
	_cleanup_free_ char *hold = NULL;
	int r;

	r = host_read_pf(run->host, c->pci, &hs);
	if (r < 0)
		return r;
	pf = host_state_find_pf(hs, c->pci);
	if (!pf || !pf_created_next_undo(c, pf, &a))
		return 0;
	hold = a.disruptive ? apply_hold_reason(run) : NULL;
	if (hold)
		return apply_set_outcome(
			run->res, PF_STATUS_DEFERRED,
			strdup_printf("resetting what sriov-persist created waits: %s", hold));
	/* [Disruption] Policy=drain without Kubernetes: said as apply says it */
	if (a.disruptive && !run->opts->allow_disruptive)
		run->res->without_drain = mainconf_without_drain(run->opts->conf);
	r = reset_step(run, pf, c->pci, &a, "resetting what sriov-persist created");
	if (r != 0)
		return r < 0 ? r : 0;
	/* then the next step, until the last (pf_created_next_undo()) */
	return a.type != ACTION_SET_AUTOPROBE ? reset_locked(run, c) : 0;
}

/* Whether a PF other than pci has a record saying we added kernel arguments
 * for its VFs: then they stay. One that cannot be read may say so. */
static bool kernel_args_claimed_elsewhere(const char *state_dir, const char *pci)
{
	_cleanup_strv_free_ char **pcis = NULL;

	if (pf_status_list(state_dir, &pcis) < 0)
		return true;
	for (char **p = pcis; *p; p++) {
		struct pf_created c;
		bool claims;

		if (streq(*p, pci))
			continue;
		if (pf_created_read(state_dir, *p, &c) < 0)
			return true;
		claims = c.kernel_args;
		pf_created_done(&c);
		if (claims)
			return true;
	}
	return false;
}

/* Whether a PF other than pci that a layout selects has a VF for vfio-pci:
 * it needs the arguments whoever added them (1), or cannot be told (<0). */
static int kernel_args_needed_elsewhere(struct pf_run *run, const struct host_state *hs,
					const char *pci)
{
	for (size_t i = 0; i < hs->n_pfs; i++) {
		_cleanup_pf_desired_ struct pf_desired *d = NULL;
		struct diag_list diags = {};
		int r;

		if (streq(hs->pfs[i].pci, pci))
			continue;
		r = desired_build(run->set, hs, &hs->pfs[i], &diags, &d);
		diag_list_done(&diags);
		if (r < 0)
			return r;
		/* a held PF's layout cannot be told: it may need them */
		if (d && (d->held || pf_desired_needs_iommu(d)))
			return 1;
	}
	return 0;
}

/* After the PF's own undo: the kernel arguments sriov-persist added come out
 * of the boot loader, unless another PF's VFs still need them (its record
 * says it added them, or its layout binds a VF to vfio-pci or cannot be
 * read). Taking them out destroys nothing now: the running kernel keeps its
 * command line. */
static int reset_kernel_args(struct pf_run *run, const char *pci)
{
	const struct apply_options *o = run->opts;
	_cleanup_host_state_ struct host_state *hs = NULL;
	_cleanup_free_ char *args = NULL;
	struct action a;
	int r;

	if (kernel_args_claimed_elsewhere(o->state_dir, pci))
		return 0;
	r = host_read(run->host, &hs);
	if (r < 0)
		return r;
	r = kernel_args_needed_elsewhere(run, hs, pci);
	if (r != 0)
		return r < 0 ? r : 0;
	if (strv_length(hs->kernel_args_added) == 0)
		return 0;
	args = strv_join(hs->kernel_args_added, " ");
	if (!args)
		return -ENOMEM;
	a = (struct action){ .type = ACTION_SET_KERNEL_ARGUMENTS, .value = 0, .str = args };
	r = reset_step(run, host_state_find_pf(hs, pci), pci, &a,
		       "taking the kernel arguments out");
	return r < 0 ? r : 0;
}

/* What a reset leaves of pf's firmware (plan_firmware_kept()), with what
 * the layouts of its card's other ports need of the card's one firmware VF
 * limit, read from the whole host (run's may be pf alone); when that cannot
 * be read, the limit it has now. */
static int firmware_kept_text(struct pf_run *run, const struct pf_state *pf, char **ret)
{
	_cleanup_host_state_ struct host_state *all = NULL;
	const char *by = NULL;
	uint32_t need = 0;

	if (host_read(run->host, &all) >= 0 && host_card_need(run->set, all, pf, &need, &by) < 0)
		return -ENOMEM;
	return plan_firmware_kept(pf, need, by, ret);
}

/* A reset of a PF with nothing of ours to undo now. Someone changed the PF
 * since (or it rebooted), and what is there is not ours any more: the
 * record goes. Or the switchdev we set stays under VFs that are not ours
 * (the driver changes the mode only without VFs): the record keeps it, so
 * that a reset once they are gone sets legacy, and drops what it said of
 * VFs we created. The result says who has the VFs now, and what became of
 * the record. */
static int forget_created(struct pf_run *run, const struct pf_state *pf)
{
	const char *dir = run->opts->state_dir;
	_cleanup_(pf_created_done) struct pf_created c = {};
	_cleanup_free_ char *why = NULL, *kept = NULL;
	bool had = dir && pf_created_read(dir, pf->pci, &c) >= 0, said;

	why = pf_created_describe_gone(had ? &c : NULL, pf);
	if (!why)
		return -ENOMEM;
	run->res->eswitch_kept = had && pf_created_eswitch_kept(&c, pf);
	/* said, also by a reset of every PF: a record gone in silence would
	 * make a later reset blame someone else for our VFs */
	if (run->res->eswitch_kept)
		said = pf_created_keep_eswitch(dir, &c, pf, &run->res->record_dropped) >= 0;
	else
		said = run->res->record_dropped = had && pf_created_remove(dir, pf->pci) >= 0;
	if (firmware_kept_text(run, pf, &kept) < 0)
		return -ENOMEM;
	run->res->nothing_left = strdup_printf("%s%s%s%s", why,
					       said ? pf_created_reset_tail(why) : "",
					       kept ? "; " : "", strempty(kept));
	return run->res->nothing_left ? 0 : -ENOMEM;
}

/* The PF's status record goes, but not one that carries a raise of the
 * firmware VF limit still waiting for the reboot: what the apply set stays
 * set whatever the layouts say now, and status says so, and since when.
 * The apply's record that raised it stays as it is, but for a reset that
 * went through (done); a later one (a reset deferred or failed) gives way
 * to this run's, which carries the raise. */
static int drop_record(struct pf_run *run, const struct pf_state *pf, bool done)
{
	const char *dir = run->opts->runtime_dir;
	struct pf_status *st = &run->res->status;
	_cleanup_(pf_status_done) struct pf_status rec = {};
	int r = pf_status_read(dir, pf->pci, &rec);

	if (r == -ENOMEM)
		return r;
	if (r < 0 || !pf_status_firmware_pending(&rec, pf))
		return pf_status_remove(dir, pf->pci);
	if (!rec.reset && !done)
		return 0;
	if (!st->started)
		st->started = apply_now(run);
	if (!st->finished)
		st->finished = apply_now(run);
	r = pf_status_carry_firmware(dir, st, pf, false);
	return r < 0 ? r : pf_status_write(dir, st);
}

/* Of an apply (not a reset) of a PF no layout selects: a reset that waits
 * for the disruption policy (the PF's record is that reset's, deferred)
 * still waits, as the apply touches nothing here; its record stays, and
 * status says what runs it, until a reset runs or a layout selects the PF
 * again. Any other record goes as drop_record() says. */
static int keep_deferred_reset(struct pf_run *run, const struct pf_state *pf)
{
	_cleanup_(pf_status_done) struct pf_status rec = {};
	int r = pf_status_read(run->opts->runtime_dir, pf->pci, &rec);

	if (r == -ENOMEM)
		return r;
	if (r >= 0 && rec.reset && rec.state == PF_STATUS_DEFERRED)
		return 0;
	return drop_record(run, pf, false);
}

/* A reset that leaves the switchdev sriov-persist set (under VFs that are
 * not its own) leaves something of sriov-persist's on the PF: the status
 * record stays, the reset's own ("by": "reset"), so that status says when
 * it ran; it carries a firmware raise on record over. */
static int record_kept_eswitch(struct pf_run *run, const struct pf_state *pf)
{
	const char *dir = run->opts->runtime_dir;
	struct pf_status *st = &run->res->status;
	int r;

	if (!st->started)
		st->started = apply_now(run);
	if (!st->finished)
		st->finished = apply_now(run);
	st->num_vfs = pf->num_vfs;
	r = pf_status_carry_firmware(dir, st, pf, false);
	return r < 0 ? r : pf_status_write(dir, st);
}

/* After a reset that went through: the record goes, or, when the switchdev
 * we set stays under VFs that are not ours, keeps only that. */
static int record_after_reset(struct pf_run *run, const struct pf_state *pf,
			      const struct pf_created *c)
{
	const char *dir = run->opts->state_dir;
	bool dropped;

	run->res->eswitch_kept = pf_created_eswitch_kept(c, pf);
	if (run->res->eswitch_kept)
		return pf_created_keep_eswitch(dir, c, pf, &dropped);
	return pf_created_remove(dir, pf->pci);
}

/* Under the PF's lock: what sriov-persist created undone, then the record
 * of it removed; a reset that did not finish is recorded in the PF's
 * status. */
static int reset_pf(struct pf_run *run, const struct pf_state *pf, const struct pf_created *c)
{
	const struct apply_options *o = run->opts;
	struct pf_status *st = &run->res->status;
	_cleanup_close_ int lock = -EBADF;
	int r;

	st->started = apply_now(run);
	lock = apply_take_lock(run, pf);
	if (lock < 0 || run->res->busy)
		return lock == -ENOMEM ? lock : 0;
	host_begin(run->host, lock);
	r = reset_locked(run, c);
	/* also when another PF's apply added them: this may be the last PF
	 * that wanted them */
	if (r >= 0 && st->state == PF_STATUS_APPLIED)
		r = reset_kernel_args(run, pf->pci);
	r = apply_end_host(run, r);
	if (r < 0)
		return r;
	st->finished = apply_now(run);
	/* a reset changes no firmware: its record carries the raise on record */
	if (st->state != PF_STATUS_APPLIED)
		return pf_status_carry_firmware(o->runtime_dir, st, pf, false) < 0 ?
			       -ENOMEM :
			       pf_status_write(o->runtime_dir, st);
	r = record_after_reset(run, pf, c);
	if (r < 0)
		return r;
	if (run->res->eswitch_kept)
		return record_kept_eswitch(run, pf);
	return drop_record(run, pf, true);
}

/* Of a reset: what it leaves of a raise of the firmware VF limit that the
 * PF's record carries, before anything rewrites that record. */
static int firmware_kept(struct pf_run *run, const struct pf_state *pf)
{
	_cleanup_(pf_status_done) struct pf_status rec = {};
	int r = pf_status_read(run->opts->runtime_dir, pf->pci, &rec);

	if (r == -ENOMEM)
		return r;
	if (r < 0 || !pf_status_firmware_pending(&rec, pf))
		return 0;
	return firmware_kept_text(run, pf, &run->res->firmware_kept);
}

/* A PF no layout selects is never touched. What sriov-persist created on it
 * while a layout selected it stays, as the host has it: a layout file that
 * went away for a moment must not destroy running VFs. Only a reset removes
 * it, and only while the PF is as it was left. */
int apply_unconfigured(struct pf_run *run, const struct pf_state *pf)
{
	const struct apply_options *o = run->opts;
	struct pf_created c;
	int r;

	run->res->configured = false;
	r = apply_status_init(&run->res->status, pf);
	if (r < 0)
		return r;
	run->res->status.reset = o->reset;
	if (o->reset && firmware_kept(run, pf) < 0)
		return -ENOMEM;
	r = pf_created_left(o->state_dir, pf, &c);
	if (r == -ENOMEM)
		return r;
	if (r < 0 && o->reset)
		return apply_set_outcome(
			run->res, PF_STATUS_FAILED,
			strdup_printf("reading what sriov-persist created from %s failed: "
				      "%s; nothing reset",
				      o->state_dir, read_strerror(r)));
	if (r < 0) /* not ours to know, and a PF no layout selects is left alone anyway */
		return keep_deferred_reset(run, pf);
	if (r == 0 && o->reset) {
		r = forget_created(run, pf);
		if (r < 0)
			return r;
		if (run->res->eswitch_kept)
			return record_kept_eswitch(run, pf);
	}
	if (r == 0) /* nothing of ours left: nothing for a reset to wait for */
		return drop_record(run, pf, false);
	if (!o->reset)
		return keep_deferred_reset(run, pf);
	return reset_pf(run, pf, &c);
}
