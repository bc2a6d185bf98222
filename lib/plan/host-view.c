/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "host-view.h"

static int view_pf(struct host_view *v, const struct pf_state *pf)
{
	struct pf_view *pv = &v->pfs[v->n_pfs++];
	int r;

	pv->pf = pf;
	r = desired_build_as(v->set, v->hs, v->hostname, pf, &v->diags, &pv->desired);
	if (r < 0 || !pv->desired || pv->desired->held)
		return r;
	return plan_build(pv->desired, pf, v->hs, &pv->plan);
}

/* The note of pv's plan, once the card's firmware raise is where apply
 * makes it: of a disruptive plan, that [Disruption] Policy=never makes an
 * apply defer all of it, as Policy=drain does when its drain cannot run, or
 * that Policy=drain runs it without a drain. */
static int note_disruption(const struct host_view *v, struct pf_view *pv)
{
	if (!pv->plan || !plan_is_disruptive(pv->plan))
		return 0;
	if (v->set->disruption_never[0] || v->set->drain_cannot_run)
		return strv_consume(&pv->plan->notes,
				    strdup_printf("an apply defers all of it: %s",
						  v->set->disruption_never[0] ?
							  v->set->disruption_never :
							  v->set->drain_cannot_run));
	if (!v->set->without_drain)
		return 0;
	return strv_consume(&pv->plan->notes, strdup_printf("disruptive, without a drain: %s",
							    v->set->without_drain));
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

/* The PF of pv's card whose apply raises the firmware VF limit: the first
 * whose plan raises it, as apply goes in this order and raises it as far
 * as the layouts of all the card's ports need (raise_for_card()); or NULL. */
static const struct pf_view *card_raiser(const struct host_view *v, const struct pf_view *pv)
{
	for (size_t i = 0; i < v->n_pfs; i++)
		if (pci_same_device(v->pfs[i].pf->pci, pv->pf->pci) &&
		    firmware_raise(&v->pfs[i], NULL))
			return &v->pfs[i];
	return NULL;
}

/* l without its firmware VF limit's reasons. */
static void drop_firmware_reason(char **l)
{
	char **keep = l;
	size_t n = 0;

	for (char **r = l; *r; r++)
		if (startswith(*r, "firmware VF limit"))
			free(*r);
		else
			keep[n++] = *r;
	keep[n] = NULL;
}

/* p's reboot reasons with the firmware VF limit's replaced by text, which
 * the plans of the card bring (taken over, also on failure). */
static int replace_firmware_reason(struct plan *p, char *text)
{
	drop_firmware_reason(p->reboot_reasons);
	drop_firmware_reason(p->reboot_planned);
	return plan_add_planned_reason(p, text);
}

/* NUM_OF_VFS is one setting of the card: when another port's apply raises
 * it (card_raiser(), as far as pv's layouts need too), pv's own raise would
 * not run (apply plans pv again after that port), and its reboot reason
 * says whose raise it waits for. */
static int share_firmware_raise(const struct host_view *v, struct pf_view *pv)
{
	const struct pf_view *by = card_raiser(v, pv);
	struct plan *p = pv->plan;
	int fw = pv->pf->firmware_total_vfs;
	size_t at = 0;

	if (!firmware_raise(pv, &at) || !by || by == pv)
		return 0;
	action_done(&p->actions[at]);
	memmove(&p->actions[at], &p->actions[at + 1],
		(p->n_actions - at - 1) * sizeof(*p->actions));
	p->n_actions--;
	return replace_firmware_reason(
		p, fw >= 0 ? strdup_printf("firmware VF limit %d -> %u (raised by the apply of "
					   "%s, one setting of this card) takes effect after a "
					   "reboot",
					   fw, firmware_raise(by, NULL), by->pf->pci) :
			     strdup_printf("firmware VF limit -> %u (raised by the apply of %s, "
					   "one setting of this card) takes effect after a reboot",
					   firmware_raise(by, NULL), by->pf->pci));
}

/* The firmware VF limit the layouts of port pf would raise its card to
 * (0: none), from a plan of its own whose diagnostics are not shown. */
static int port_raise(const struct layout_set *set, const struct host_state *hs,
		      const char *hostname, const struct pf_state *pf, uint32_t *ret)
{
	struct pf_view pv = { .pf = pf };
	struct diag_list scratch = {};
	int r;

	r = desired_build_as(set, hs, hostname, pf, &scratch, &pv.desired);
	if (r >= 0 && pv.desired && !pv.desired->held)
		r = plan_build(pv.desired, pf, hs, &pv.plan);
	*ret = r >= 0 ? firmware_raise(&pv, NULL) : 0;
	plan_free(pv.plan);
	pf_desired_free(pv.desired);
	diag_list_done(&scratch);
	return r;
}

static int raise_for_card(struct plan *p, const struct pf_state *pf, const struct host_state *hs,
			  const char *hostname, const struct layout_set *set)
{
	struct pf_view pv = { .pf = pf, .plan = p };
	size_t at = 0;
	uint32_t own = firmware_raise(&pv, &at), most = own, theirs;
	const char *by = NULL;
	int fw = pf->firmware_total_vfs, r;

	for (size_t i = 0; own && i < hs->n_pfs; i++) {
		const struct pf_state *port = &hs->pfs[i];

		if (streq(port->pci, pf->pci) || !pci_same_device(port->pci, pf->pci))
			continue;
		r = port_raise(set, hs, hostname, port, &theirs);
		if (r < 0)
			return r;
		if (theirs > most) {
			most = theirs;
			by = port->pci;
		}
	}
	if (!by)
		return 0;
	p->actions[at].value = most;
	return replace_firmware_reason(
		p, fw >= 0 ?
			   strdup_printf("firmware VF limit %d -> %u (as far as the layouts of %s "
					 "need too, one setting of this card) takes effect after "
					 "a reboot",
					 fw, most, by) :
			   strdup_printf("firmware VF limit -> %u (as far as the layouts of %s "
					 "need too, one setting of this card) takes effect after "
					 "a reboot",
					 most, by));
}

int host_card_need(const struct layout_set *set, const struct host_state *hs,
		   const struct pf_state *pf, uint32_t *ret, const char **ret_by)
{
	*ret = 0;
	*ret_by = NULL;
	for (size_t i = 0; i < hs->n_pfs; i++) {
		const struct pf_state *port = &hs->pfs[i];
		_cleanup_pf_desired_ struct pf_desired *d = NULL;
		struct diag_list scratch = {};
		uint32_t n;
		int r;

		if (streq(port->pci, pf->pci) || !pci_same_device(port->pci, pf->pci))
			continue;
		r = desired_build_as(set, hs, hs->hostname, port, &scratch, &d);
		diag_list_done(&scratch);
		if (r < 0)
			return r;
		n = d ? pf_desired_num_vfs(d, port) : 0;
		if (n > *ret) {
			*ret = n;
			*ret_by = port->pci;
		}
	}
	return 0;
}

int plan_raise_for_card(struct plan *p, const struct pf_state *pf, const struct host_state *hs,
			const struct layout_set *set)
{
	return raise_for_card(p, pf, hs, hs->hostname, set);
}

int host_view_build(const struct host_state *hs, const struct layout_set *set, const char *only,
		    struct host_view *ret)
{
	return host_view_build_as(hs, set, hs->hostname, only, ret);
}

int host_view_build_as(const struct host_state *hs, const struct layout_set *set,
		       const char *hostname, const char *only, struct host_view *ret)
{
	struct host_view v = { .hs = hs, .set = set, .hostname = hostname };
	const struct pf_state *one = NULL;
	int r = 0;

	if (only && !(one = host_state_lookup_pf(hs, only)))
		return -ENXIO;
	v.pfs = calloc(hs->n_pfs ?: 1, sizeof(*v.pfs));
	if (!v.pfs)
		return -ENOMEM;
	if (!one)
		r = desired_unselected_as(set, hs, hostname, &v.diags, NULL, NULL);
	for (size_t i = 0; r >= 0 && i < hs->n_pfs; i++)
		if (!one || one == &hs->pfs[i])
			r = view_pf(&v, &hs->pfs[i]);
	/* the whole host: the ports of a card share one firmware VF limit,
	 * which the first port's apply raises as far as the card needs */
	for (size_t i = 0; r >= 0 && !one && i < v.n_pfs; i++)
		if (card_raiser(&v, &v.pfs[i]) == &v.pfs[i])
			r = raise_for_card(v.pfs[i].plan, v.pfs[i].pf, hs, hostname, set);
	for (size_t i = 0; r >= 0 && !one && i < v.n_pfs; i++)
		r = share_firmware_raise(&v, &v.pfs[i]);
	/* one PF alone: as far as the whole card needs, as apply raises it */
	if (r >= 0 && one && v.n_pfs == 1 && v.pfs[0].plan)
		r = raise_for_card(v.pfs[0].plan, one, hs, hostname, set);
	for (size_t i = 0; r >= 0 && i < v.n_pfs; i++)
		r = note_disruption(&v, &v.pfs[i]);
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

/* The other port of pv's card whose plan waits for the firmware VF limit
 * its apply raised, or NULL. */
static const struct pf_view *card_raised_by(const struct host_view *v, const struct pf_view *pv)
{
	for (size_t i = 0; i < v->n_pfs; i++) {
		const struct pf_view *o = &v->pfs[i];

		if (o == pv || !o->plan || !pci_same_device(o->pf->pci, pv->pf->pci))
			continue;
		for (char **r = o->plan->reboot_reasons; *r; r++)
			if (startswith(*r, "firmware VF limit raised to"))
				return o;
	}
	return NULL;
}

/* The first port of pf's card on hs other than pf, or NULL. */
static const char *card_other_port(const struct host_state *hs, const struct pf_state *pf)
{
	for (size_t i = 0; i < hs->n_pfs; i++)
		if (!streq(hs->pfs[i].pci, pf->pci) && pci_same_device(hs->pfs[i].pci, pf->pci))
			return hs->pfs[i].pci;
	return NULL;
}

/* Of a raise of pv's card that no port's layout needs all of (held or not,
 * host_card_need()): the command that sets it back as far as they let it,
 * after "; "; "" otherwise. */
static char *card_set_back(const struct host_view *v, const struct pf_view *pv)
{
	const struct pf_state *pf = pv->pf;
	_cleanup_free_ char *back = NULL;
	const char *by = NULL;
	uint32_t need = 0;

	/* a held layout counts: it is applied once fixed, as reset counts it */
	if (host_card_need(v->set, v->hs, pf, &need, &by) < 0)
		return NULL;
	if (need >= (uint32_t)pf->firmware_total_vfs)
		return strdup("");
	if (!plan_firmware_set_back(pf->pci, pf->total_vfs, (uint32_t)pf->firmware_total_vfs, need,
				    by, &back))
		return NULL;
	if (!back)
		back = plan_firmware_set_now(pf->pci, pf->total_vfs, card_other_port(v->hs, pf));
	return back ? strdup_printf("; %s", back) : NULL;
}

int host_view_card_firmware_note(const struct host_view *v, const struct pf_view *pv, bool own,
				 const char *recorded_by, char **ret)
{
	const struct pf_state *pf = pv->pf;
	_cleanup_free_ char *back = NULL;
	const struct pf_view *planned;
	const char *by;

	*ret = NULL;
	if (own || pv->desired || pf->firmware_total_vfs < 0 ||
	    (uint32_t)pf->firmware_total_vfs <= pf->total_vfs)
		return 0;
	planned = card_raised_by(v, pv);
	by = planned ? planned->pf->pci : recorded_by;
	back = card_set_back(v, pv);
	if (!back)
		return -ENOMEM;
	*ret = by ? strdup_printf("firmware VF limit %d from the next reboot, %u until then "
				  "(raised by the apply of %s, one setting of this card)%s",
				  pf->firmware_total_vfs, pf->total_vfs, by, back) :
		    strdup_printf("firmware VF limit %d from the next reboot, %u until then "
				  "(one setting of this card)%s",
				  pf->firmware_total_vfs, pf->total_vfs, back);
	return *ret ? 0 : -ENOMEM;
}
