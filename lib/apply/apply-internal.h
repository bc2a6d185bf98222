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
	const struct layout_set *set;
	const struct apply_options *opts;
	struct diag_list *diags;
	struct apply_pf_result *res;
	usec_t deadline; /* monotonic */
	bool attempted;	 /* an action was run, whatever came of it */
};

/* apply-outcome.c: the PF's result */
usec_t run_now(const struct pf_run *run);
int set_outcome(struct apply_pf_result *res, enum pf_status_state state, char *error);
int set_unmet(struct apply_pf_result *res, const struct plan *p);
char *action_error(struct host *h, const struct action *a, int r);
char *policy_hold_reason(const struct pf_run *run);
int status_init(struct pf_status *st, const struct pf_state *pf);

/* apply-lock.c: the PF's lock and the host's transaction under it */
int take_lock(struct pf_run *run, const struct pf_state *pf);
int end_host(struct pf_run *run, int r);

/* apply-verify.c: reading the PF, and its read back after a plan */
int apply_read_pf(struct pf_run *run, const char *pci, struct host_state **ret_hs,
		  const struct pf_state **ret_pf);
int apply_verify(struct pf_run *run, const char *pci, const struct pf_desired *d,
		 struct plan **ret_back);
int apply_differs(struct pf_run *run, const struct plan *back);
