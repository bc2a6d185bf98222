/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* What the files of desired_build() share: the state of one PF's build,
 * and the steps that more than one of them takes. desired.c selects and
 * merges; desired-*.c each do one part. Not for use outside plan/. */

#include "desired.h"
#include "layout-rules.h"

/* One PF's desired state as it is built. */
struct desired_ctx {
	const struct host_state *host;
	const char *hostname; /* what [Match] Host= is matched against */
	const struct pf_state *pf;
	const struct driver_info *drv;
	const char *drv_name;
	struct diag_list *diags;
	struct rules_out out;		  /* the errors found here, each file:line once */
	size_t n_file_errors;		  /* the parser's, in the files that select the PF */
	const char *held_suffix;	  /* file_holds_all() of the file that holds it */
	const struct layout_file **files; /* those selecting the PF, in order */
	size_t n_files;
	/* sections may name VFs below this: VirtualFunctions when set (even
	 * with ExternallyManaged), UINT32_MAX when not set */
	uint32_t vf_bound;
	uint32_t *was_stable; /* per VF: vf_settings.stable before derivation */
	const struct layout_set *set;
	bool alone; /* building another PF's state for check_host_wide() */
	struct pf_desired *d;
	/* other managers' files on the PF (desired-others.c); kept to the
	 * end: out.reported points into them */
	struct other_findings others;
};

/* One error per file:line: a section applied to many VFs reports its
 * problem once. Any error holds the PF (finish_held). */
#define hw_error(c, file, line, ...) rules_error(&(c)->out, (file), (line), __VA_ARGS__)

/* desired-result.c: the link type the layout wants, else the port's */
bool desired_wants_infiniband(const struct desired_ctx *c);

/* desired-stable.c: "stable" MACs and GUIDs derived, their VFs noted in
 * was_stable */
int desired_resolve_stable(struct desired_ctx *c);

/* desired-unique.c: literal MACs and GUIDs unique across the host's PFs */
bool desired_has_literal_unique(const struct desired_ctx *c);
int desired_unique_against(struct desired_ctx *c, const struct pf_desired *o);
/* This PF's literals against the VFs of host PF hp whose values no layout
 * sets (o: hp's desired state, NULL without one), and its literal MACs
 * against hp's permanent address. */
int desired_unique_host_vfs(struct desired_ctx *c, const struct pf_state *hp,
			    const struct pf_desired *o);

/* desired-resource.c: one ResourceName= of one kind across the host's PFs
 * (o: the desired state of host PF hp) */
bool desired_has_resource(const struct desired_ctx *c);
int desired_resource_against(struct desired_ctx *c, const struct pf_state *hp,
			     const struct pf_desired *o);

/* desired-hw.c: the PF's settings and every VF's against its driver, and
 * the rules of the files alone */
int desired_check_all(struct desired_ctx *c);

/* desired-others.c: another manager's file that applies to the PF is an
 * error that holds it; one that may apply, or could not be read, a
 * warning */
int desired_check_others(struct desired_ctx *c);
/* desired-shared.c: a file of the manager SharedWith= names, which surely
 * applies to the PF: its VF count against VirtualFunctions=, its VF values
 * against the layout's */
int desired_check_shared(struct desired_ctx *c, const struct other_finding *f);

/* desired-count.c: VirtualFunctions= resolved into d->num_vfs and
 * c->vf_bound, checked against the PF's and its card's limits */
int desired_resolve_num_vfs(struct desired_ctx *c);
