/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "host-view.h"

static int view_pf(struct host_view *v, const struct pf_state *pf)
{
	struct pf_view *pv = &v->pfs[v->n_pfs++];
	int r;

	pv->pf = pf;
	r = desired_build(v->set, v->hs, pf, &v->diags, &pv->desired);
	if (r < 0 || !pv->desired || pv->desired->held)
		return r;
	return plan_build(pv->desired, pf, v->hs, &pv->plan);
}

int host_view_build(const struct host_state *hs, const struct layout_set *set, const char *only,
		    struct host_view *ret)
{
	struct host_view v = { .hs = hs, .set = set };
	const struct pf_state *one = NULL;
	int r = 0;

	if (only && !(one = host_state_lookup_pf(hs, only)))
		return -ENXIO;
	v.pfs = calloc(hs->n_pfs ?: 1, sizeof(*v.pfs));
	if (!v.pfs)
		return -ENOMEM;
	if (!one)
		r = desired_unselected(set, hs, &v.diags, NULL, NULL);
	for (size_t i = 0; r >= 0 && i < hs->n_pfs; i++)
		if (!one || one == &hs->pfs[i])
			r = view_pf(&v, &hs->pfs[i]);
	if (r < 0) {
		host_view_done(&v);
		return r;
	}
	*ret = v;
	return 0;
}

void host_view_done(struct host_view *v)
{
	for (size_t i = 0; i < v->n_pfs; i++) {
		pf_desired_free(v->pfs[i].desired);
		plan_free(v->pfs[i].plan);
	}
	free(v->pfs);
	diag_list_done(&v->diags);
	*v = (struct host_view){};
}
