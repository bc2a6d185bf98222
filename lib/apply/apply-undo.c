/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* Putting right what a plan that stopped early left half-done: VFs it took
 * off their driver go back on one, an eswitch mode change is switched
 * back, VF driver autoprobe is turned on again. struct vf_failures keeps
 * the account of what is open while the plan runs. */

#include "apply-internal.h"

/* VF vf is on a driver again: off the record of VFs to bind again. */
void apply_vf_rebound(struct vf_failures *f, uint32_t vf)
{
	size_t n = f->rec.n_rebind;

	(void)pf_created_set_rebind(&f->rec, vf, NULL);
	f->rec_changed |= f->rec.n_rebind != n;
}

bool apply_vf_listed(const uint32_t *l, size_t n, uint32_t vf)
{
	for (size_t i = 0; i < n; i++)
		if (l[i] == vf)
			return true;
	return false;
}

int apply_vf_list_set(uint32_t **l, size_t *n, uint32_t vf, bool on)
{
	uint32_t *m;

	for (size_t i = 0; i < *n; i++)
		if ((*l)[i] == vf) {
			if (!on)
				(*l)[i] = (*l)[--*n];
			return 0;
		}
	if (!on)
		return 0;
	m = realloc(*l, sizeof(*m) * (*n + 1));
	if (!m)
		return -ENOMEM;
	m[(*n)++] = vf;
	*l = m;
	return 0;
}

void vf_failures_done(struct vf_failures *f)
{
	free(f->vfs);
	free(f->unbound);
	strv_free(f->messages);
	pf_created_done(&f->rec);
}

static int load_vf_modules(struct pf_run *run, const struct pf_state *pf)
{
	const struct driver_info *drv = driver_info_get(pf->driver);
	int r = 0;

	for (const char *const *m = drv->vf_modules; r >= 0 && m && *m; m++) {
		struct action load = { .type = ACTION_LOAD_MODULE, .str = (char *)*m };

		r = host_run(run->host, NULL, &load, run->opts->conf->sysfs_write_timeout);
		if (run->opts->on_action)
			run->opts->on_action(pf, &load, r, run->host->error, run->opts->userdata);
	}
	return r;
}

/* Binds a VF that an action of this plan left on no driver back on the one
 * it had before this apply (or the kernel's VF driver, when it had none or
 * that is the one that failed): never a VF that nothing drives because of
 * us. Returns what happened, for the PF's error; NULL on ENOMEM. */
char *apply_put_back(struct pf_run *run, const struct pf_state *pf, uint32_t vf, const char *failed,
		     struct vf_failures *f)
{
	const char *had = vf < pf->n_vfs ? pf->vfs[vf].attrs.driver ?: pf->vfs[vf].unbound_from :
					   NULL;
	struct action back = { .type = ACTION_BIND_VF, .vf = vf };
	const char *to;
	int r;

	back.str = had && !streq_ptr(had, failed) ? (char *)had : NULL;
	to = back.str ?: pf->vf_driver ?: "the kernel's VF driver";
	/* the kernel's VF driver may not be loaded where no VF was meant to
	 * use it: as udev would for a VF it probes (blacklist applied) */
	r = back.str ? 0 : load_vf_modules(run, pf);
	if (r >= 0)
		r = host_run(run->host, pf->pci, &back, run->opts->conf->sysfs_write_timeout);
	if (run->opts->on_action)
		run->opts->on_action(pf, &back, r, run->host->error, run->opts->userdata);
	(void)apply_vf_list_set(&f->unbound, &f->n_unbound, vf, false);
	if (r >= 0) {
		apply_vf_rebound(f, vf);
		return strdup_printf("VF %u is back on %s", vf, to);
	}
	return strdup_printf("putting VF %u back on %s failed too: %s%s%s", vf, to, strerror(-r),
			     run->host->error[0] ? ": " : "", run->host->error);
}

/* Autoprobe is on: off the record. */
void apply_autoprobe_on_again(struct vf_failures *f)
{
	f->probe_off = f->probe_ours_off = false;
	if (f->rec.autoprobe_off) {
		f->rec.autoprobe_off = false;
		f->rec_changed = true;
	}
}

/* Autoprobe on again after a plan that turned it off stopped early. */
static char *autoprobe_back(struct pf_run *run, const struct pf_state *pf, struct vf_failures *f)
{
	struct action on = { .type = ACTION_SET_AUTOPROBE, .value = 1 };
	int r;

	r = host_run(run->host, pf->pci, &on, run->opts->conf->sysfs_write_timeout);
	if (run->opts->on_action)
		run->opts->on_action(pf, &on, r, run->host->error, run->opts->userdata);
	if (r < 0)
		return strdup_printf("turning VF driver autoprobe on again failed too: %s%s%s",
				     strerror(-r), run->host->error[0] ? ": " : "",
				     run->host->error);
	apply_autoprobe_on_again(f);
	return strdup("VF driver autoprobe is on again");
}

/* The eswitch mode the PF had before this apply, set again after a step of
 * the change failed: the PF is left as it was, not half-way. Returns what
 * happened, for the PF's error; NULL on ENOMEM. */
static char *switch_back(struct pf_run *run, const struct pf_state *pf)
{
	struct action back = { .type = ACTION_SET_ESWITCH_MODE,
			       .value = pf->eswitch_mode,
			       .disruptive = true };
	const char *mode = eswitch_mode_to_string(pf->eswitch_mode);
	int r;

	run->host->error[0] = '\0';
	r = host_run(run->host, pf->pci, &back, run->opts->conf->sysfs_write_timeout);
	if (run->opts->on_action)
		run->opts->on_action(pf, &back, r, run->host->error, run->opts->userdata);
	if (r >= 0)
		return strdup_printf("the eswitch is back in %s mode", mode);
	return strdup_printf("switching the eswitch back to %s failed too: %s%s%s", mode,
			     strerror(-r), run->host->error[0] ? ": " : "", run->host->error);
}

static int note(struct vf_failures *f, char *what)
{
	return what ? strv_consume(&f->messages, what) : -ENOMEM;
}

/* A plan that stopped before its end (time ran out, a PF action failed):
 * what it left half-done is put right, and each step says so in the PF's
 * error. */
int apply_undo_unfinished(struct pf_run *run, const struct pf_state *pf, struct vf_failures *f)
{
	int r = 0;

	/* stopped half-way through an eswitch change: back to the mode it had,
	 * while its VFs are still unbound, and then onto their drivers */
	if (f->eswitch_open && apply_failed(run))
		r = note(f, switch_back(run, pf));
	/* stopped between unbind and bind (time ran out, a PF action failed) */
	while (r >= 0 && f->n_unbound > 0)
		r = note(f, apply_put_back(run, pf, f->unbound[0], NULL, f));
	/* stopped before the end, where autoprobe is on again */
	if (r >= 0 && f->probe_ours_off)
		r = note(f, autoprobe_back(run, pf, f));
	return r;
}
