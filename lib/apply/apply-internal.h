/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* What the files of apply/ share: one PF's run, and the steps that more
 * than one of them takes. apply.c runs the PFs; apply-*.c each do one part
 * of a PF's apply. Not for use outside apply/. */

#include "apply.h"

struct pf_desired;

/* One PF's apply or reset, from its lock to its record. */
struct pf_run {
	struct host *host;
	const struct host_state *hs; /* as apply_run read it */
	const struct layout_set *set;
	const struct apply_options *opts;
	struct diag_list *diags;
	struct apply_pf_result *res;
	usec_t deadline; /* monotonic */
	bool attempted;	 /* an action was run, whatever came of it */
	/* this apply raised the card's firmware VF limit (not another port's) */
	bool raised_firmware;
};

/* apply-outcome.c: the PF's result */
usec_t apply_now(const struct pf_run *run);
int apply_set_outcome(struct apply_pf_result *res, enum pf_status_state state, char *error);
int apply_set_unmet(struct apply_pf_result *res, const struct plan *p);
char *apply_action_error(struct host *h, const struct action *a, int r);
char *apply_hold_reason(const struct pf_run *run);
int apply_status_init(struct pf_status *st, const struct pf_state *pf);
bool apply_failed(const struct pf_run *run);

/* apply-lock.c: the PF's lock and the host's transaction under it */
int apply_take_lock(struct pf_run *run, const struct pf_state *pf);
int apply_end_host(struct pf_run *run, int r);

/* apply-verify.c: reading the PF, and its read back after a plan */
int apply_read_pf(struct pf_run *run, const char *pci, struct host_state **ret_hs,
		  const struct pf_state **ret_pf);
int apply_verify(struct pf_run *run, const char *pci, const struct pf_desired *d,
		 struct plan **ret_back);
int apply_differs(struct pf_run *run, const struct plan *back);

/* VFs whose own actions failed: their other actions are skipped, and those
 * of the PF's other VFs go on. unbound: VFs an action of this plan took off
 * their driver and that are not bound again yet. */
struct vf_failures {
	uint32_t *vfs;
	size_t n;
	uint32_t *unbound;
	size_t n_unbound;
	char **messages;
	struct pf_created rec; /* the record as record_intent() wrote it */
	bool rec_changed;      /* VFs came off it since */
	/* the eswitch mode was changed and the steps that go with it (VF
	 * count, hw-tc-offload) are not done yet: a failure now switches it back */
	bool eswitch_open;
	bool probe_off;	     /* sriov_drivers_autoprobe is off: new VFs come unbound */
	bool probe_ours_off; /* this plan turned it off */
};

/* apply-undo.c: what a plan that stopped early leaves is put right */
void apply_vf_rebound(struct vf_failures *f, uint32_t vf);
bool apply_vf_listed(const uint32_t *l, size_t n, uint32_t vf);
int apply_vf_list_set(uint32_t **l, size_t *n, uint32_t vf, bool on);
void vf_failures_done(struct vf_failures *f);
char *apply_put_back(struct pf_run *run, const struct pf_state *pf, uint32_t vf, const char *failed,
		     struct vf_failures *f);
void apply_autoprobe_on_again(struct vf_failures *f);
int apply_undo_unfinished(struct pf_run *run, const struct pf_state *pf, struct vf_failures *f);

/* apply-execute.c: one PF's plan, executed */
int apply_execute_plan(struct pf_run *run, const struct pf_state *pf, const struct plan *p);

/* apply-reset.c: a PF that no layout selects, applied or reset */
int apply_unconfigured(struct pf_run *run, const struct pf_state *pf);
