/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* Executing one PF's plan under its lock: the record of what it will have
 * created first, then its actions in order within the apply's time, a VF
 * whose action failed skipped from then on, and what a plan that stopped
 * early left put right (apply-undo.c). */

#include "apply-internal.h"

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

/* What the record says that is not so any more comes off it: true when c
 * changed. */
static bool record_forget_since(struct pf_created *c, const struct pf_state *pf)
{
	bool write = false;

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
	return write;
}

/* The VF count a plan's "set n VFs" makes ours: none when it only makes
 * again the VFs the PF had, which were not ours (a layout without
 * VirtualFunctions= whose eswitch change removes them first on ice): a
 * reset must not destroy VFs someone else made. */
static uint32_t count_made(bool had_ours, const struct pf_state *pf, uint32_t n)
{
	return n > 0 && n == pf->num_vfs && !had_ours ? 0 : n;
}

/* What the plan's actions will have created, added to c: 1 when c changed. */
static int record_plan_actions(struct pf_created *c, const struct pf_state *pf,
			       const struct plan *p)
{
	bool write = false, probe = pf->drivers_autoprobe, created_unbound = false;
	bool had_ours = c->num_vfs > 0 && c->num_vfs == pf->num_vfs, to_switchdev = false;
	int r;

	for (size_t i = 0; i < p->n_actions; i++) {
		const struct action *a = &p->actions[i];
		const char *to;

		if (a->type == ACTION_SET_NUM_VFS) {
			c->num_vfs = count_made(had_ours, pf, a->value);
			/* the VFs that were there, made again after the mode
			 * change: a reset says whose they are */
			c->vfs_remade = to_switchdev && a->value > 0 && c->num_vfs == 0 ? a->value :
											  0;
			c->n_rebind = 0; /* re-created, on the kernel's VF driver */
			created_unbound = a->value > 0 && !probe;
		} else if (a->type == ACTION_SET_AUTOPROBE) {
			/* on again comes off the record once it is done */
			probe = a->value != 0;
			c->autoprobe_off |= !probe;
		} else if (a->type == ACTION_SET_ESWITCH_MODE)
			c->eswitch_switchdev = to_switchdev = a->value == ESWITCH_MODE_SWITCHDEV;
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
	return write;
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
	bool forgot;
	int r;

	if (pf_created_read(run->opts->state_dir, pf->pci, c) < 0)
		*c = (struct pf_created){};
	forgot = record_forget_since(c, pf);
	r = record_plan_actions(c, pf, p);
	if (r < 0)
		return r;
	if (!forgot && r == 0)
		return 0;
	snprintf(c->pci, sizeof(c->pci), "%s", pf->pci);
	c->when = apply_now(run);
	return pf_created_write(run->opts->state_dir, c);
}

/* A VF action failed: its VF is put back on a driver if the plan had taken
 * it off one, and its other actions are skipped. */
static int vf_failed(struct pf_run *run, const struct pf_state *pf, const struct action *a, int err,
		     struct vf_failures *f)
{
	_cleanup_free_ char *why = apply_action_error(run->host, a, err), *back = NULL;

	if (!why)
		return -ENOMEM;
	if (apply_vf_listed(f->unbound, f->n_unbound, a->vf)) {
		back = apply_put_back(run, pf, a->vf, a->str, f);
		if (!back)
			return -ENOMEM;
	}
	if (strv_consume(&f->messages, back ? strdup_printf("%s; %s", why, back) : TAKE_PTR(why)) <
	    0)
		return -ENOMEM;
	return apply_vf_list_set(&f->vfs, &f->n, a->vf, true);
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
		return apply_set_outcome(run->res, PF_STATUS_FAILED,
					 apply_action_error(run->host, a, r));
	if (r < 0)
		return vf_failed(run, pf, a, r, f);
	run->res->status.n_actions++;
	run->res->changed = true;
	if (a->type == ACTION_SET_ESWITCH_MODE)
		f->eswitch_open = true;
	if (a->type == ACTION_SET_FIRMWARE_VFS)
		run->raised_firmware = true;
	if (a->type == ACTION_BIND_VF)
		apply_vf_rebound(f, a->vf);
	if (a->type == ACTION_UNBIND_VF || a->type == ACTION_BIND_VF)
		return apply_vf_list_set(&f->unbound, &f->n_unbound, a->vf,
					 a->type == ACTION_UNBIND_VF);
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
		apply_autoprobe_on_again(f);
	if (a->type != ACTION_SET_NUM_VFS || a->value == 0 || !f->probe_off)
		return 0;
	for (size_t i = k + 1; r >= 0 && i < p->n_actions; i++)
		if (p->actions[i].type == ACTION_BIND_VF)
			r = apply_vf_list_set(&f->unbound, &f->n_unbound, p->actions[i].vf, true);
	return r;
}

/* Before the first action: the record of what the plan will have created
 * (record_intent()). One that cannot be written fails the PF, and nothing
 * is done. */
static int record_plan(struct pf_run *run, const struct pf_state *pf, const struct plan *p,
		       struct vf_failures *f)
{
	int r = run->opts->state_dir ? record_intent(run, pf, p, &f->rec) : 0;

	if (r >= 0 || r == -ENOMEM)
		return r;
	return apply_set_outcome(run->res, PF_STATUS_FAILED,
				 strdup_printf("nothing done: recording what sriov-persist creates "
					       "in %s failed: %s",
					       run->opts->state_dir, strerror(-r)));
}

static int timed_out(struct pf_run *run, const struct plan *p, size_t done)
{
	const struct mainconf *c = run->opts->conf;

	return apply_set_outcome(
		run->res, PF_STATUS_FAILED,
		strdup_printf("timed out after TimeoutSec=%llus with %zu of %zu actions done",
			      (unsigned long long)(c->apply_timeout / USEC_PER_SEC), done,
			      p->n_actions));
}

/* The plan's actions in order, until one on the PF itself fails or time
 * runs out; a VF whose action failed has its other actions skipped. */
static int run_actions(struct pf_run *run, const struct pf_state *pf, const struct plan *p,
		       struct vf_failures *f)
{
	int r = 0;

	for (size_t i = 0; r >= 0 && !apply_failed(run) && i < p->n_actions; i++) {
		const struct action *a = &p->actions[i];

		if (action_type_on_vf(a->type) && apply_vf_listed(f->vfs, f->n, a->vf))
			continue;
		if (now_monotonic() >= run->deadline)
			r = timed_out(run, p, i);
		else {
			r = run_action(run, pf, a, f);
			if (r >= 0 && !apply_failed(run))
				r = note_created_unbound(p, i, f);
		}
	}
	return r;
}

/* After the plan: the VFs bound again come off the record; a record that
 * only listed VFs to bind again goes with them. */
static int record_rebound(struct pf_run *run, const struct pf_state *pf, struct vf_failures *f)
{
	const struct pf_created *c = &f->rec;
	const char *dir = run->opts->state_dir;
	int r;

	if (!f->rec_changed)
		return 0;
	r = c->num_vfs == 0 && !c->eswitch_switchdev && !c->autoprobe_off && !c->kernel_args &&
			    c->n_rebind == 0 ?
		    pf_created_remove(dir, pf->pci) :
		    pf_created_write(dir, c);
	if (r >= 0)
		return 0;
	return strv_consume(
		&f->messages,
		strdup_printf("taking the VFs bound again off the record in %s failed: %s", dir,
			      strerror(-r)));
}

/* VFs whose actions failed and what was put right fail the PF, after its
 * own error when it has one. */
static int fail_with_messages(struct pf_run *run, const struct vf_failures *f)
{
	struct pf_status *st = &run->res->status;
	_cleanup_free_ char *vfs = NULL;

	if (!f->messages)
		return 0;
	vfs = strv_join(f->messages, "; ");
	return apply_set_outcome(run->res, PF_STATUS_FAILED,
				 st->state == PF_STATUS_FAILED ?
					 strdup_printf("%s; %s", strna(st->error), strna(vfs)) :
					 TAKE_PTR(vfs));
}

/* The record first, then the actions; what a plan that stopped early left is
 * put right, the record follows the VFs bound again, and failed VFs fail
 * the PF. */
int apply_execute_plan(struct pf_run *run, const struct pf_state *pf, const struct plan *p)
{
	_cleanup_(vf_failures_done) struct vf_failures f = { .probe_off = !pf->drivers_autoprobe };
	int r;

	r = record_plan(run, pf, p, &f);
	if (r < 0 || apply_failed(run))
		return r;
	r = run_actions(run, pf, p, &f);
	if (r >= 0)
		r = apply_undo_unfinished(run, pf, &f);
	if (r >= 0)
		r = record_rebound(run, pf, &f);
	if (r >= 0)
		r = fail_with_messages(run, &f);
	return r;
}
