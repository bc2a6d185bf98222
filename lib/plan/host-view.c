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

/* The firmware VF limit pv's plan raises the card to, 0 when it does not. */
static uint32_t firmware_raise(const struct pf_view *pv, size_t *ret_index)
{
	for (size_t i = 0; pv->plan && i < pv->plan->n_actions; i++)
		if (pv->plan->actions[i].type == ACTION_SET_FIRMWARE_VFS) {
			if (ret_index)
				*ret_index = i;
			return pv->plan->actions[i].value;
		}
	return 0;
}

/* The PF of pv's card whose plan raises the firmware VF limit the most
 * (the first of equals, as apply goes in this order), or NULL. */
static const struct pf_view *card_raiser(const struct host_view *v, const struct pf_view *pv)
{
	const struct pf_view *best = NULL;

	for (size_t i = 0; i < v->n_pfs; i++)
		if (pci_same_device(v->pfs[i].pf->pci, pv->pf->pci) &&
		    firmware_raise(&v->pfs[i], NULL) > (best ? firmware_raise(best, NULL) : 0))
			best = &v->pfs[i];
	return best;
}

/* NUM_OF_VFS is one setting of the card: when another port's plan raises
 * it at least as far, pv's own raise would not run (apply plans pv again
 * after that port), and its reboot reason says whose raise it waits for. */
static int share_firmware_raise(const struct host_view *v, struct pf_view *pv)
{
	const struct pf_view *by = card_raiser(v, pv);
	struct plan *p = pv->plan;
	int fw = pv->pf->firmware_total_vfs;
	char **keep = p ? p->reboot_reasons : NULL;
	size_t at = 0, n = 0;

	if (!firmware_raise(pv, &at) || !by || by == pv)
		return 0;
	action_done(&p->actions[at]);
	memmove(&p->actions[at], &p->actions[at + 1],
		(p->n_actions - at - 1) * sizeof(*p->actions));
	p->n_actions--;
	for (char **r = p->reboot_reasons; *r; r++)
		if (startswith(*r, "firmware VF limit"))
			free(*r);
		else
			keep[n++] = *r;
	keep[n] = NULL;
	return strv_consume(
		&p->reboot_reasons,
		fw >= 0 ? strdup_printf("firmware VF limit %d -> %u (raised for %s, one "
					"setting of this card) takes effect after a reboot",
					fw, firmware_raise(by, NULL), by->pf->pci) :
			  strdup_printf("firmware VF limit -> %u (raised for %s, one "
					"setting of this card) takes effect after a reboot",
					firmware_raise(by, NULL), by->pf->pci));
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
	/* the whole host: the ports of a card share one firmware VF limit */
	for (size_t i = 0; r >= 0 && !one && i < v.n_pfs; i++)
		r = share_firmware_raise(&v, &v.pfs[i]);
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
