/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <time.h>

#include "apply-internal.h"
#include "desired.h"
#include "host-view.h"

/* The driver the plan binds VF a->vf to after the unbind at p->actions[k]:
 * the bind's own, or the kernel's VF driver. NULL when none follows. */
static const char *rebind_target(const struct pf_state *pf, const struct plan *p, size_t k)
{
	for (size_t i = k + 1; i < p->n_actions; i++) {
		const struct action *a = &p->actions[i];

		if (a->type == ACTION_BIND_VF && a->vf == p->actions[k].vf)
			return a->str ?: pf->vf_driver;
	}
	return NULL;
}

/* Before a plan runs, the record in the state directory says what it will
 * have created (VFs, switchdev), which a later reset must know, and which
 * VFs it takes off their driver and where they go back, which an apply
 * after this one was killed must know. One that cannot be written stops the
 * apply before it starts. c is the record as written; its entries for VFs
 * that are then bound again come off it when the plan is done. */
static int record_intent(const struct pf_run *run, const struct pf_state *pf, const struct plan *p,
			 struct pf_created *c)
{
	bool write = false, probe = pf->drivers_autoprobe, created_unbound = false;
	int r;

	if (pf_created_read(run->opts->state_dir, pf->pci, c) < 0)
		*c = (struct pf_created){};
	/* on again since (a reboot): not ours to turn on any more */
	if (c->autoprobe_off && pf->drivers_autoprobe) {
		c->autoprobe_off = false;
		write = true;
	}
	/* a VF bound since is someone else's business now */
	for (size_t i = c->n_rebind; i > 0; i--) {
		uint32_t vf = c->rebind[i - 1].vf;

		if (vf >= pf->n_vfs || pf->vfs[vf].attrs.driver) {
			(void)pf_created_set_rebind(c, vf, NULL);
			write = true;
		}
	}
	for (size_t i = 0; i < p->n_actions; i++) {
		const struct action *a = &p->actions[i];
		const char *to;

		if (a->type == ACTION_SET_NUM_VFS) {
			c->num_vfs = a->value;
			c->n_rebind = 0; /* re-created, on the kernel's VF driver */
			created_unbound = a->value > 0 && !probe;
		} else if (a->type == ACTION_SET_AUTOPROBE) {
			/* on again comes off the record once it is done */
			probe = a->value != 0;
			c->autoprobe_off |= !probe;
		} else if (a->type == ACTION_SET_ESWITCH_MODE)
			c->eswitch_switchdev = a->value == ESWITCH_MODE_SWITCHDEV;
		else if (a->type == ACTION_SET_KERNEL_ARGUMENTS && a->value)
			c->kernel_args = true;
		else if (a->type == ACTION_UNBIND_VF && (to = rebind_target(pf, p, i))) {
			r = pf_created_set_rebind(c, a->vf, to);
			if (r < 0)
				return r;
		} else if (a->type == ACTION_BIND_VF && created_unbound &&
			   (to = a->str ?: pf->vf_driver)) {
			/* created with autoprobe off: unbound until this bind */
			r = pf_created_set_rebind(c, a->vf, to);
			if (r < 0)
				return r;
		} else
			continue;
		write = true;
	}
	if (!write)
		return 0;
	snprintf(c->pci, sizeof(c->pci), "%s", pf->pci);
	c->when = run_now(run);
	return pf_created_write(run->opts->state_dir, c);
}

/* A VF action failed: its VF is put back on a driver if the plan had taken
 * it off one, and its other actions are skipped. */
static int vf_failed(struct pf_run *run, const struct pf_state *pf, const struct action *a, int err,
		     struct vf_failures *f)
{
	_cleanup_free_ char *why = action_error(run->host, a, err), *back = NULL;

	if (!why)
		return -ENOMEM;
	if (vf_listed(f->unbound, f->n_unbound, a->vf)) {
		back = put_back(run, pf, a->vf, a->str, f);
		if (!back)
			return -ENOMEM;
	}
	if (strv_consume(&f->messages, back ? strdup_printf("%s; %s", why, back) : TAKE_PTR(why)) <
	    0)
		return -ENOMEM;
	return vf_list_set(&f->vfs, &f->n, a->vf, true);
}

static int run_action(struct pf_run *run, const struct pf_state *pf, const struct action *a,
		      struct vf_failures *f)
{
	const struct mainconf *c = run->opts->conf;
	usec_t now = now_monotonic(), timeout = run->deadline - now;
	bool vf = action_type_on_vf(a->type);
	int r;

	if (timeout > c->sysfs_write_timeout)
		timeout = c->sysfs_write_timeout;
	run->attempted = true;
	r = host_run(run->host, pf->pci, a, timeout);
	run->res->status.host_usec += now_monotonic() - now;
	if (run->opts->on_action)
		run->opts->on_action(pf, a, r, run->host->error, run->opts->userdata);
	if (vf)
		f->eswitch_open = false; /* the VF steps after the switch have begun */
	if (r < 0 && !vf)
		return set_outcome(run->res, PF_STATUS_FAILED, action_error(run->host, a, r));
	if (r < 0)
		return vf_failed(run, pf, a, r, f);
	run->res->status.n_actions++;
	run->res->changed = true;
	if (a->type == ACTION_SET_ESWITCH_MODE)
		f->eswitch_open = true;
	if (a->type == ACTION_BIND_VF)
		vf_rebound(f, a->vf);
	if (a->type == ACTION_UNBIND_VF || a->type == ACTION_BIND_VF)
		return vf_list_set(&f->unbound, &f->n_unbound, a->vf, a->type == ACTION_UNBIND_VF);
	return 0;
}

/* After p->actions[k] succeeded. VFs created with autoprobe off are on no
 * driver until the plan binds them: like VFs it unbinds, they are put back
 * on a driver if it stops before. */
static int note_created_unbound(const struct plan *p, size_t k, struct vf_failures *f)
{
	const struct action *a = &p->actions[k];
	int r = 0;

	if (a->type == ACTION_SET_AUTOPROBE && a->value == 0)
		f->probe_off = f->probe_ours_off = true;
	else if (a->type == ACTION_SET_AUTOPROBE)
		autoprobe_on_again(f);
	if (a->type != ACTION_SET_NUM_VFS || a->value == 0 || !f->probe_off)
		return 0;
	for (size_t i = k + 1; r >= 0 && i < p->n_actions; i++)
		if (p->actions[i].type == ACTION_BIND_VF)
			r = vf_list_set(&f->unbound, &f->n_unbound, p->actions[i].vf, true);
	return r;
}

static int execute_plan(struct pf_run *run, const struct pf_state *pf, const struct plan *p)
{
	const struct mainconf *c = run->opts->conf;
	struct vf_failures f = { .probe_off = !pf->drivers_autoprobe };
	int r;

	r = run->opts->state_dir ? record_intent(run, pf, p, &f.rec) : 0;
	if (r == -ENOMEM) {
		vf_failures_done(&f);
		return r;
	}
	if (r < 0) {
		vf_failures_done(&f);
		return set_outcome(
			run->res, PF_STATUS_FAILED,
			strdup_printf("nothing done: recording what sriov-persist creates "
				      "in %s failed: %s",
				      run->opts->state_dir, strerror(-r)));
	}
	for (size_t i = 0; r >= 0 && run->res->status.state != PF_STATUS_FAILED && i < p->n_actions;
	     i++) {
		const struct action *a = &p->actions[i];

		if (action_type_on_vf(a->type) && vf_listed(f.vfs, f.n, a->vf))
			continue;
		if (now_monotonic() >= run->deadline)
			r = set_outcome(
				run->res, PF_STATUS_FAILED,
				strdup_printf(
					"timed out after TimeoutSec=%llus with %zu of %zu actions done",
					(unsigned long long)(c->apply_timeout / USEC_PER_SEC), i,
					p->n_actions));
		else {
			r = run_action(run, pf, a, &f);
			if (r >= 0 && run->res->status.state != PF_STATUS_FAILED)
				r = note_created_unbound(p, i, &f);
		}
	}
	/* stopped half-way through an eswitch change: back to the mode it had,
	 * while its VFs are still unbound, and then onto their drivers */
	if (r >= 0 && f.eswitch_open && run->res->status.state == PF_STATUS_FAILED) {
		char *back = switch_back(run, pf);

		r = back ? strv_consume(&f.messages, back) : -ENOMEM;
	}
	/* stopped between unbind and bind (time ran out, a PF action failed) */
	while (r >= 0 && f.n_unbound > 0) {
		char *back = put_back(run, pf, f.unbound[0], NULL, &f);

		r = back ? strv_consume(&f.messages, back) : -ENOMEM;
	}
	/* stopped before the end, where autoprobe is on again */
	if (r >= 0 && f.probe_ours_off) {
		char *back = autoprobe_back(run, pf, &f);

		r = back ? strv_consume(&f.messages, back) : -ENOMEM;
	}
	if (r >= 0 && f.rec_changed) {
		/* a record that only listed VFs to bind again goes with them */
		r = f.rec.num_vfs == 0 && !f.rec.eswitch_switchdev && !f.rec.autoprobe_off &&
				    !f.rec.kernel_args && f.rec.n_rebind == 0 ?
			    pf_created_remove(run->opts->state_dir, pf->pci) :
			    pf_created_write(run->opts->state_dir, &f.rec);
		if (r < 0)
			r = strv_consume(
				&f.messages,
				strdup_printf("taking the VFs bound again off the record in "
					      "%s failed: %s",
					      run->opts->state_dir, strerror(-r)));
	}
	if (r >= 0 && f.messages) {
		_cleanup_free_ char *vfs = strv_join(f.messages, "; ");
		struct pf_status *st = &run->res->status;

		r = set_outcome(run->res, PF_STATUS_FAILED,
				st->state == PF_STATUS_FAILED ?
					strdup_printf("%s; %s", strna(st->error), strna(vfs)) :
					TAKE_PTR(vfs));
	}
	vf_failures_done(&f);
	return r;
}

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

static int apply_pf(struct pf_run *run, const char *pci, struct host_state **hs)
{
	_cleanup_pf_desired_ struct pf_desired *d = NULL;
	_cleanup_plan_ struct plan *p = NULL, *back = NULL;
	struct pf_status *st = &run->res->status;
	const struct pf_state *pf;
	char *hold;
	int r;

	r = apply_read_pf(run, pci, hs, &pf);
	if (r < 0)
		return set_outcome(run->res, PF_STATUS_FAILED,
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
		return set_outcome(run->res, PF_STATUS_HELD, strdup(strna(d->held_reason)));
	r = plan_build(d, pf, *hs, &p);
	if (r >= 0)
		r = raise_for_card(run, p, pf);
	if (r < 0)
		return r;
	strv_free(st->reboot_reasons);
	st->reboot_reasons = strv_copy(p->reboot_reasons);
	if (!st->reboot_reasons)
		return -ENOMEM;
	if (p->n_actions == 0)
		return set_unmet(run->res, p);
	hold = plan_is_disruptive(p) ? policy_hold_reason(run) : NULL;
	if (hold)
		return set_outcome(run->res, PF_STATUS_DEFERRED, hold);
	r = execute_plan(run, pf, p);
	if (r < 0 || st->state == PF_STATUS_FAILED)
		return r;
	r = apply_verify(run, pci, d, &back);
	if (r < 0 || st->state == PF_STATUS_FAILED)
		return r;
	/* Every step succeeded and yet something differs: a driver acted on its
	 * own after a change (igb hands a VF that probes while it resets a
	 * random MAC, and keeps it). What is left gets one more pass when it
	 * destroys nothing; then it must hold. */
	if (back->n_actions > 0 && !plan_is_disruptive(back)) {
		pf = host_state_find_pf(run->res->read_back, pci);
		p = plan_free(p);
		p = TAKE_PTR(back);
		r = pf ? execute_plan(run, pf, p) : -ENODEV;
		if (r < 0 || st->state == PF_STATUS_FAILED)
			return r;
		r = apply_verify(run, pci, d, &back);
		if (r < 0 || st->state == PF_STATUS_FAILED)
			return r;
	}
	if (back->n_actions > 0)
		return apply_differs(run, back);
	/* what the host still lacks, as the read back has it */
	return set_unmet(run->res, back);
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

/* Under the lock, for a PF that no layout selects any more: undo what
 * sriov-persist created on it, if it is still as we left it. Someone who
 * changed the VF count since owns the VFs now, and they are left alone. */
static int reset_locked(struct pf_run *run, const struct pf_created *c)
{
	const struct apply_options *o = run->opts;
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
	hold = a.disruptive ? policy_hold_reason(run) : NULL;
	if (hold)
		return set_outcome(run->res, PF_STATUS_DEFERRED,
				   strdup_printf("resetting what sriov-persist created waits: %s",
						 hold));
	r = host_run(run->host, c->pci, &a, o->conf->sysfs_write_timeout);
	if (o->on_action)
		o->on_action(pf, &a, r, run->host->error, o->userdata);
	if (r < 0) {
		_cleanup_free_ char *why = action_error(run->host, &a, r);

		return set_outcome(run->res, PF_STATUS_FAILED,
				   strdup_printf("resetting what sriov-persist created: %s",
						 strna(why)));
	}
	run->res->changed = true;
	run->res->status.n_actions++;
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
	r = host_run(run->host, pci, &a, o->conf->sysfs_write_timeout);
	if (o->on_action)
		o->on_action(host_state_find_pf(hs, pci), &a, r, run->host->error, o->userdata);
	if (r < 0) {
		_cleanup_free_ char *why = action_error(run->host, &a, r);

		return set_outcome(run->res, PF_STATUS_FAILED,
				   strdup_printf("taking the kernel arguments out: %s",
						 strna(why)));
	}
	run->res->changed = true;
	run->res->status.n_actions++;
	return 0;
}

/* A reset of a PF with nothing of ours left: someone changed the PF since
 * (or it rebooted), and what is there is not ours any more. The record goes;
 * the result says who has the VFs now. */
static int forget_created(struct pf_run *run, const struct pf_state *pf)
{
	const char *dir = run->opts->state_dir;
	struct pf_created c;
	bool had = dir && pf_created_read(dir, pf->pci, &c) >= 0;

	run->res->nothing_left = pf_created_describe_gone(had ? &c : NULL, pf);
	if (had)
		pf_created_done(&c);
	if (!run->res->nothing_left)
		return -ENOMEM;
	/* said, also by a reset of every PF: a record gone in silence would
	 * make a later reset blame someone else for our VFs */
	run->res->record_dropped = had && pf_created_remove(dir, pf->pci) >= 0;
	return 0;
}

/* A PF no layout selects is never touched. What sriov-persist created on it
 * while a layout selected it stays, as the host has it: a layout file that
 * went away for a moment must not destroy running VFs. Only a reset removes
 * it, and only while the PF is as it was left. */
static int apply_unconfigured(struct pf_run *run, const struct pf_state *pf)
{
	const struct apply_options *o = run->opts;
	struct pf_status *st = &run->res->status;
	_cleanup_close_ int lock = -EBADF;
	struct pf_created c;
	int r;

	run->res->configured = false;
	r = status_init(st, pf);
	if (r < 0)
		return r;
	r = pf_created_left(o->state_dir, pf, &c);
	if (r == -ENOMEM)
		return r;
	if (r < 0 && o->reset)
		return set_outcome(
			run->res, PF_STATUS_FAILED,
			strdup_printf("reading what sriov-persist created from %s failed: "
				      "%s; nothing reset",
				      o->state_dir, read_strerror(r)));
	if (r < 0) /* not ours to know, and a PF no layout selects is left alone anyway */
		return pf_status_remove(o->runtime_dir, pf->pci);
	if (r == 0 && o->reset) {
		r = forget_created(run, pf);
		if (r < 0)
			return r;
	}
	if (r == 0)
		return pf_status_remove(o->runtime_dir, pf->pci);
	if (!o->reset)
		return pf_status_remove(o->runtime_dir, pf->pci);
	st->started = run_now(run);
	lock = take_lock(run, pf);
	if (lock < 0 || run->res->busy)
		return lock == -ENOMEM ? lock : 0;
	host_begin(run->host, lock);
	r = reset_locked(run, &c);
	/* also when another PF's apply added them: this may be the last PF
	 * that wanted them */
	if (r >= 0 && st->state == PF_STATUS_APPLIED)
		r = reset_kernel_args(run, pf->pci);
	r = end_host(run, r);
	if (r < 0)
		return r;
	st->finished = run_now(run);
	if (st->state != PF_STATUS_APPLIED)
		return pf_status_write(o->runtime_dir, st);
	r = pf_created_remove(o->state_dir, pf->pci);
	if (r < 0)
		return r;
	return pf_status_remove(o->runtime_dir, pf->pci);
}

/* reset names a PF that a layout selects: that is not what reset is for. */
static int refuse_reset(struct pf_run *run, const struct pf_state *pf)
{
	int r;

	run->res->configured = true;
	r = status_init(&run->res->status, pf);
	if (r < 0)
		return r;
	return set_outcome(run->res, PF_STATUS_FAILED,
			   strdup("a layout selects it: reset removes only what a removed layout "
				  "left; change or remove the layout instead"));
}

/* The status record of a configured PF; one that cannot be written fails it. */
static int record_status(struct pf_run *run)
{
	const struct apply_options *o = run->opts;
	struct pf_status *st = &run->res->status;
	int r;

	r = pf_status_write(o->runtime_dir, st);
	if (r < 0) {
		/* The boot gate and status read this record: without it the PF
		 * is not applied as far as anyone can tell. */
		_cleanup_free_ char *was =
			st->state == PF_STATUS_APPLIED ?
				strdup("applied") :
				strdup_printf("%s: %s", pf_status_state_to_string(st->state),
					      strna(st->error));

		return set_outcome(run->res, PF_STATUS_FAILED,
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

	r = status_init(st, pf);
	if (r < 0)
		return r;
	st->started = run_now(run);
	run->res->configured = true;
	run->deadline = now_monotonic() + o->conf->apply_timeout;
	/* also a held PF's record is written under the lock: never over the
	 * record of someone applying it right now */
	lock = take_lock(run, pf);
	if (run->res->busy)
		return 0;
	if (lock >= 0 && o->hold) {
		r = set_outcome(run->res, PF_STATUS_HELD, strdup(o->hold));
		if (r < 0)
			return r;
		st->finished = st->started;
		return record_status(run);
	}
	if (lock < 0)
		r = lock == -ENOMEM ? lock : 0;
	else {
		host_begin(run->host, lock);
		r = apply_locked(run, pf->pci);
		r = end_host(run, r);
	}
	if (r < 0)
		return r;
	st->finished = run_now(run);
	if (!run->res->configured)
		return pf_status_remove(o->runtime_dir, pf->pci);
	return record_status(run);
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
	}
	free(r->pfs);
	diag_list_done(&r->diags);
	*r = (struct apply_result){};
}
