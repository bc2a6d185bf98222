/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What the firmware of a PF that no layout selects holds for the next reboot
 * because an apply of it set it (the raised VF limit, the link type), as its
 * status record carries it: the pending reboot reasons of status, metrics
 * and the daemon. */

#include "drivers.h"
#include "json-util.h"
#include "plan.h"
#include "report.h"
#include "status.h"

/* What the firmware VF limit that rec carries is now: "raised to 16, waiting
 * for a reboot (set by the apply of T; ...)" as that apply set it, or, when
 * the firmware holds another limit since (mstconfig by hand), "firmware VF
 * limit 12 set in firmware, waiting for a reboot (the apply of T raised it
 * to 16; changed since; ...)". */
static char *firmware_vfs_said(const char *reason, const struct pf_status *rec,
			       const struct pf_state *pf, const char *when, const char *whose)
{
	if (rec->firmware.total_vfs && pf->firmware_total_vfs >= 0 &&
	    rec->firmware.total_vfs != (uint32_t)pf->firmware_total_vfs)
		return strdup_printf("firmware VF limit %d set in firmware, waiting for a reboot "
				     "(the apply of %s raised it to %u; changed since; %s)",
				     pf->firmware_total_vfs, when, rec->firmware.total_vfs, whose);
	return strdup_printf("%s (set by the apply of %s; %s)", reason, when, whose);
}

bool report_firmware_needs(const struct pf_state *pf, uint32_t need, const char *by)
{
	return by && need > pf->total_vfs;
}

/* Whose layout needs the limit the firmware holds, which the reboot
 * brings: "0000:ca:00.1's layout needs 12 of it", "... needs 20, more than
 * it; no layout asks for it now", or "no layout asks for it now". */
static char *whose_needs(const struct pf_state *pf, uint32_t need, const char *by)
{
	if (!report_firmware_needs(pf, need, by))
		return strdup("no layout asks for it now");
	if (need <= (uint32_t)pf->firmware_total_vfs)
		return strdup_printf("%s's layout needs %u of it", by, need);
	return strdup_printf("%s's layout needs %u, more than it; no layout asks for it now", by,
			     need);
}

/* The firmware's reasons that rec carries, with the time of the apply that
 * set them, "firmware VF limit raised to 16, waiting for a reboot (set by
 * the apply of 2026-12-07T12:09:56Z; no layout asks for it now)", or whose
 * layout needs the card's limit ("0000:ca:00.1's layout needs 12 of it"; of
 * a layout that needs more than the limit the firmware holds, "... needs
 * 20, more than it; no layout asks for it now"):
 * only a layout that needs more VFs than the limit in effect needs the
 * raise (report_firmware_needs()); those it does not carry (another port's
 * raise of the card) go. */
static int firmware_set_when(char **reasons, const struct pf_status *rec, const struct pf_state *pf,
			     uint32_t need, const char *by, char ***ret)
{
	_cleanup_strv_free_ char **l = calloc(1, sizeof(char *));
	_cleanup_free_ char *whose = whose_needs(pf, need, by);
	char when[FORMAT_RFC3339_MAX];

	if (!l || !whose)
		return -ENOMEM;
	for (char **p = reasons; *p; p++) {
		char *said = NULL;

		if (startswith(*p, "firmware VF limit") && rec->firmware.set)
			said = firmware_vfs_said(*p, rec, pf,
						 format_rfc3339(when, rec->firmware.set), whose);
		else if (startswith(*p, "link type") && pf_status_link_pending(rec, pf))
			said = strdup_printf(
				"%s (set by the apply of %s; no layout asks for it now)", *p,
				format_rfc3339(when, rec->firmware.link_set));
		else
			continue;
		if (strv_consume(&l, said) < 0)
			return -ENOMEM;
	}
	*ret = TAKE_PTR(l);
	return 0;
}

bool report_unselected_reason_asked(const struct pf_state *pf, const char *reason, uint32_t need,
				    const char *by)
{
	uint32_t raised = plan_firmware_reason_raised(reason);

	return report_firmware_needs(pf, need, by) && raised >= need;
}

bool report_unselected_asked(const struct layout_set *set, const struct host_state *hs,
			     const struct pf_state *pf, const char *reason)
{
	const char *by = NULL;
	uint32_t need = 0;

	return host_card_need(set, hs, pf, &need, &by) >= 0 &&
	       report_unselected_reason_asked(pf, reason, need, by);
}

bool report_card_limit_short(const char *reason)
{
	static const char needs[] = "; changed since; its layout needs ";
	const char *p;
	unsigned n, want;
	int end = 0;

	if (sscanf(reason, "firmware VF limit %u set in firmware, waiting for a reboot%n", &n,
		   &end) != 1 ||
	    end == 0)
		return false;
	p = strstr(reason, needs);
	return p && sscanf(p + strlen(needs), "%u", &want) == 1 && want > n;
}

int report_unselected_reboot_reasons(const struct layout_set *set, const struct host_state *hs,
				     const struct pf_status *rec, const struct pf_state *pf,
				     char ***ret)
{
	_cleanup_strv_free_ char **host = NULL;
	const char *by = NULL;
	uint32_t need = 0;

	*ret = NULL;
	if (!rec || !pf_status_firmware_pending(rec, pf))
		return 0;
	if (plan_host_reboot_reasons(pf, &host) < 0 ||
	    host_card_need(set, hs, pf, &need, &by) < 0 ||
	    firmware_set_when(host, rec, pf, need, by, ret) < 0)
		return -ENOMEM;
	return 0;
}

/* The raise of pf's card that a status record of one of its ports carries
 * (the apply of *ret_rec, ret_by the port), when the firmware holds another
 * limit since (set by hand): none when the record of a port carries the
 * limit the firmware holds (a later raise, by another port's apply).
 * -ENOENT: none. */
static int card_raise_changed(const char *runtime_dir, const struct host_state *hs,
			      const struct pf_state *pf, struct pf_status *ret_rec,
			      const char **ret_by)
{
	struct pf_status found = {};
	const char *by = NULL;

	for (size_t i = 0; i < hs->n_pfs; i++) {
		const struct pf_state *o = &hs->pfs[i];
		struct pf_status st = {};

		if (!pci_same_device(o->pci, pf->pci) ||
		    pf_status_read(runtime_dir, o->pci, &st) < 0)
			continue;
		if (st.firmware.set && st.firmware.total_vfs == (uint32_t)pf->firmware_total_vfs) {
			pf_status_done(&st);
			if (by)
				pf_status_done(&found);
			return -ENOENT;
		}
		if (!by && st.firmware.set && st.firmware.total_vfs) {
			found = st;
			by = o->pci;
		} else
			pf_status_done(&st);
	}
	if (!by)
		return -ENOENT;
	*ret_rec = found;
	*ret_by = by;
	return 0;
}

/* The other port of pf's card whose status record carries the raise of the
 * limit the firmware holds, when pf's own does not: pf's apply waited for
 * that port's raise, which is that port's pending reboot. NULL: none. */
static const char *card_raise_by(const char *runtime_dir, const struct host_state *hs,
				 const struct pf_state *pf)
{
	_cleanup_(pf_status_done) struct pf_status own = {};

	/* pf's own raise is the one the firmware holds (0: a record of an
	 * earlier version that does not say its value) */
	if (pf_status_read(runtime_dir, pf->pci, &own) >= 0 && own.firmware.set &&
	    (!own.firmware.total_vfs || own.firmware.total_vfs == (uint32_t)pf->firmware_total_vfs))
		return NULL;
	for (size_t i = 0; i < hs->n_pfs; i++) {
		const struct pf_state *o = &hs->pfs[i];
		_cleanup_(pf_status_done) struct pf_status st = {};

		if (streq(o->pci, pf->pci) || !pci_same_device(o->pci, pf->pci) ||
		    pf_status_read(runtime_dir, o->pci, &st) < 0)
			continue;
		if (st.firmware.set && st.firmware.total_vfs == (uint32_t)pf->firmware_total_vfs)
			return o->pci;
	}
	return NULL;
}

/* "firmware VF limit 14 set in firmware, waiting for a reboot (the apply of
 * T raised it to 20[ for 0000:ca:00.0]; changed since; its layout needs
 * 16[ of it])". */
static char *card_limit_set(const struct pf_state *pf, const struct pf_status *rec, const char *by,
			    uint32_t want)
{
	char when[FORMAT_RFC3339_MAX];
	bool own = streq(by, pf->pci);

	return strdup_printf("firmware VF limit %d set in firmware, waiting for a reboot (the "
			     "apply of %s raised it to %u%s%s; changed since; its layout needs "
			     "%u%s)",
			     pf->firmware_total_vfs, format_rfc3339(when, rec->firmware.set),
			     rec->firmware.total_vfs, own ? "" : " for ", own ? "" : by, want,
			     want <= (uint32_t)pf->firmware_total_vfs ? " of it" : "");
}

int report_card_limit_said(const char *runtime_dir, const struct host_state *hs,
			   const struct pf_state *pf, uint32_t want, char ***reasons)
{
	_cleanup_free_ char *waiting = NULL, *set_hand = NULL;
	_cleanup_(pf_status_done) struct pf_status rec = {};
	const char *by = NULL;
	bool said = false;

	if (!runtime_dir || !hs || pf->firmware_total_vfs < 0)
		return 0;
	waiting = strdup_printf("firmware VF limit raised to %d, waiting for a reboot",
				pf->firmware_total_vfs);
	if (!waiting)
		return -ENOMEM;
	for (char **r = *reasons; r && *r; r++) {
		const char *theirs;
		char *set;

		if (!streq(*r, waiting))
			continue;
		/* the card raise another port's apply made: that port's */
		theirs = card_raise_by(runtime_dir, hs, pf);
		if (theirs) {
			set = plan_card_wait_reason(*r, theirs);
			if (!set)
				return -ENOMEM;
			free(*r);
			*r = set;
			return 0;
		}
		if (!by && card_raise_changed(runtime_dir, hs, pf, &rec, &by) < 0)
			return 0;
		set = card_limit_set(pf, &rec, by, want);
		if (!set)
			return -ENOMEM;
		free(*r);
		*r = set;
		said = true;
	}
	/* a layout that wants more than the limit set by hand: its plan raises
	 * it again, and meanwhile the limit the firmware holds waits for the
	 * reboot as it is, a reboot no layout asks for (report_card_limit_short());
	 * said once, however often this runs on the same reasons */
	if (said || (uint32_t)pf->firmware_total_vfs <= pf->total_vfs ||
	    want <= (uint32_t)pf->firmware_total_vfs ||
	    card_raise_changed(runtime_dir, hs, pf, &rec, &by) < 0)
		return 0;
	set_hand = card_limit_set(pf, &rec, by, want);
	if (!set_hand)
		return -ENOMEM;
	if (strv_contains(*reasons, set_hand))
		return 0;
	return strv_consume(reasons, TAKE_PTR(set_hand));
}

/* The first other port of pf's card on hs, or NULL. */
static const char *card_other(const struct host_state *hs, const struct pf_state *pf)
{
	for (size_t i = 0; i < hs->n_pfs; i++)
		if (!streq(hs->pfs[i].pci, pf->pci) && pci_same_device(hs->pfs[i].pci, pf->pci))
			return hs->pfs[i].pci;
	return NULL;
}

static bool names_reason(struct json_object *reasons, const char *prefix)
{
	for (size_t i = 0; i < json_object_array_length(reasons); i++)
		if (startswith(
			    strempty(json_object_get_string(json_object_array_get_idx(reasons, i))),
			    prefix))
			return true;
	return false;
}

/* Of a PF that no layout selects whose own reboot reasons (what its last
 * apply set in firmware) wait for the reboot: the mstconfig commands that
 * set back what waits, NUM_OF_VFS as far as the layouts of the card's other
 * ports let it (plan_firmware_set_back(), for the whole card:
 * plan_firmware_set_now() with the card's other port), LINK_TYPE_P<n>=1
 * (InfiniBand) or 2 (Ethernet) of the port. The whole host's words, local
 * or through the daemon, whatever PFs a status asks for. */
static int own_firmware_note(const struct host_view *v, const struct pf_view *pv,
			     struct json_object *own, char **ret)
{
	const struct pf_state *pf = pv->pf;
	bool vfs = names_reason(own, "firmware VF limit"), link = names_reason(own, "link type");
	_cleanup_free_ char *back = NULL, *lt = NULL;
	const char *by = NULL;
	uint32_t need = 0;

	*ret = NULL;
	if (vfs && pf->firmware_total_vfs >= 0 &&
	    (host_card_need(v->set, v->hs, pf, &need, &by) < 0 ||
	     !plan_firmware_set_back(pf->pci, pf->total_vfs, (uint32_t)pf->firmware_total_vfs, need,
				     by, &back)))
		return -ENOMEM;
	if (!back && vfs) {
		back = plan_firmware_set_now(pf->pci, pf->total_vfs, card_other(v->hs, pf));
		if (!back)
			return -ENOMEM;
	}
	if (link) {
		lt = strdup_printf(
			"\"mstconfig -d %s set LINK_TYPE_P%u=%u\" sets the link type back "
			"to the one it has now, %s",
			pf->pci, plan_link_port(pf->pci),
			pf->link_type == LINK_TYPE_INFINIBAND ? 1u : 2u,
			strna(link_type_to_string(pf->link_type)));
		if (!lt)
			return -ENOMEM;
	}
	if (!back && !lt)
		return 0;
	*ret = strdup_printf("%s%s%s", strempty(back), back && lt ? "; " : "", strempty(lt));
	return *ret ? 0 : -ENOMEM;
}

int report_firmware_put(struct json_object *o, const struct host_view *v, const struct pf_view *pv,
			const char *runtime_dir)
{
	_cleanup_free_ char *note = NULL;
	struct json_object *own = NULL, *need_o;
	const char *by = NULL, *recorded_by;
	uint32_t need = 0;

	json_object_object_get_ex(o, "pending_reboot_reasons", &own);
	/* the raise a port whose layout is removed since made: its record's */
	recorded_by = pv->desired ? NULL : card_raise_by(runtime_dir, v->hs, pv->pf);
	if ((!pv->desired && json_object_array_length(own) > 0 ?
		     own_firmware_note(v, pv, own, &note) :
		     host_view_card_firmware_note(v, pv, json_object_array_length(own) > 0,
						  recorded_by, &note)) < 0 ||
	    json_put_str(o, "firmware_note", note) < 0 ||
	    host_card_need(v->set, v->hs, pv->pf, &need, &by) < 0)
		return -ENOMEM;
	/* only a card with one firmware VF limit (mlx5 NUM_OF_VFS) has a need
	 * of it */
	if (!by || !driver_info_get(pv->pf->driver)->firmware_vfs)
		return json_put_null(o, "firmware_card_need");
	need_o = json_object_new_object();
	if (json_put(o, "firmware_card_need", need_o) < 0 ||
	    json_put_int(need_o, "num_vfs", need) < 0 || json_put_str(need_o, "by", by) < 0)
		return -ENOMEM;
	return 0;
}
