/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "desired.h"
#include "sriovctl.h"

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

int ctl_host_view(struct ctl *c, struct host_view *ret)
{
	_cleanup_host_ struct host *h = NULL;
	struct host_view v = {};
	const struct pf_state *only = NULL;
	int r;

	r = ctl_open_host(c, &h);
	if (r < 0)
		return r;
	r = host_read(h, &v.hs);
	if (r < 0) {
		fprintf(stderr, "Reading the host failed: %s%s%s\n", strerror(-r),
			h->error[0] ? ": " : "", h->error);
		return r;
	}
	if (c->n_args > 0 && !(only = host_state_lookup_pf(v.hs, c->args[0]))) {
		fprintf(stderr, "No PF '%s' on this host\n", c->args[0]);
		host_view_done(&v);
		return -ENXIO;
	}
	r = ctl_load_layouts(c, &v.set);
	if (r >= 0 && !(v.pfs = calloc(v.hs->n_pfs ?: 1, sizeof(*v.pfs))))
		r = -ENOMEM;
	for (size_t i = 0; r >= 0 && i < v.hs->n_pfs; i++)
		if (!only || only == &v.hs->pfs[i])
			r = view_pf(&v, &v.hs->pfs[i]);
	if (r < 0) {
		fprintf(stderr, "Planning failed: %s\n", strerror(-r));
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
	layout_set_free(v->set);
	host_state_free(v->hs);
	diag_list_done(&v->diags);
	*v = (struct host_view){};
}
