/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* The daemon's summary, made again after every check, apply or step of an
 * operation: Drifted, State (decide_summary(), pure) and the pending reboot
 * reasons, kept in <state>/reboot.json. */

#include <syslog.h>
#include <systemd/sd-daemon.h>

#include "manager-summary.h"
#include "plan.h"
#include "report-gone.h"
#include "report.h"
#include "status.h"

/* A reason no layout asks for now is the one a layout asked for with more
 * words ("... (set by the apply of ...; no layout asks for it now)"): it
 * keeps the time that one was first seen. */
static usec_t unasked_since(const struct manager *m, const char *pci, const char *text, usec_t now)
{
	for (size_t i = 0; i < m->reboot.n_reasons; i++) {
		const struct reboot_reason *p = &m->reboot.reasons[i];

		if (streq(p->pci, pci) && startswith(text, p->text) && p->since &&
		    streq(m->reboot.boot_id, manager_boot_id(m)))
			return p->since;
	}
	return now;
}

static int current_reasons(struct manager *m, struct reboot_record *ret)
{
	struct reboot_record cur = {};
	usec_t now = now_realtime();

	for (size_t i = 0; i < m->n_pfs; i++) {
		const struct pf_entry *e = m->pfs[i];
		const struct pf_state *pf = m->hs ? host_state_find_pf(m->hs, e->pci) : NULL;

		for (char **r = e->reboot_reasons; r && *r; r++) {
			/* a layout of another port of the card that needs the
			 * raise of a PF no layout selects asks for that raise:
			 * that port's apply waits for it; a limit set by hand
			 * short of what the PF's layout wants, no layout */
			bool unasked =
				e->reboot_unasked ?
					!(pf && report_unselected_asked(m->set, m->hs, pf, *r)) :
					report_card_limit_short(*r);

			if ((unasked ?
				     reboot_record_add_unasked(&cur, e->pci, *r,
							       unasked_since(m, e->pci, *r, now)) :
				     reboot_record_add(&cur, e->pci, *r, now)) < 0) {
				reboot_record_done(&cur);
				return -ENOMEM;
			}
		}
	}
	*ret = cur;
	return 0;
}

static bool same_reasons(const struct reboot_record *a, const struct reboot_record *b)
{
	if (a->n_reasons != b->n_reasons || !streq(a->boot_id, b->boot_id))
		return false;
	for (size_t i = 0; i < a->n_reasons; i++)
		if (!reboot_record_has(b, a->reasons[i].pci, a->reasons[i].text))
			return false;
	return true;
}

/* The persisted reasons that still stand: a firmware VF limit's or link
 * type's goes once the firmware holds another one or it took effect, read
 * anew at each look (plan_firmware_reason_gone()), as sriov-persistd(8)
 * says. */
static bool reason_gone(const struct reboot_reason *p, void *userdata)
{
	const struct manager *m = userdata;
	const struct pf_state *pf = m->hs ? host_state_find_pf(m->hs, p->pci) : NULL;

	return pf && plan_firmware_reason_gone(pf, p->text);
}

static int standing_reasons(const struct manager *m, struct reboot_record *ret)
{
	return reboot_record_filter(&m->reboot, reason_gone, (void *)m, ret);
}

int manager_unasked_reasons(struct manager *m, struct pf_entry *e, const struct pf_state *pf,
			    const struct pf_status *rec)
{
	e->reboot_reasons = strv_free(e->reboot_reasons);
	e->reboot_unasked = true;
	return report_unselected_reboot_reasons(m->set, m->hs, rec, pf, &e->reboot_reasons);
}

/* After the layouts changed: the reasons of the PFs no layout selects said
 * again, whose layout of another port of the card needs the limit now (a
 * reload checks again only the PFs whose own layouts changed). */
static void unasked_again(struct manager *m)
{
	for (size_t i = 0; i < m->n_pfs; i++) {
		struct pf_entry *e = m->pfs[i];
		const struct pf_state *pf = m->hs ? host_state_find_pf(m->hs, e->pci) : NULL;
		struct pf_status st = {};
		bool has_record;
		int r;

		if (!pf || !e->reboot_unasked || !e->reboot_reasons)
			continue;
		has_record = pf_status_read(m->runtime_dir, e->pci, &st) >= 0;
		r = manager_unasked_reasons(m, e, pf, has_record ? &st : NULL);
		if (r < 0)
			log_pf(LOG_ERR, e->pci,
			       "%s: saying its pending reboot reasons again failed: %s", e->pci,
			       strerror(-r));
		if (has_record)
			pf_status_done(&st);
	}
}

/* What became of the firmware that reason (of pf) waited for: "the
 * firmware VF limit 16 took effect" (a reboot or a firmware reset brought
 * the raise to 16 it waited for into effect), "firmware VF limit 16 set in
 * firmware again, the one in effect" (set back by hand), "firmware VF
 * limit 14 set in firmware since (12 in effect)"; so too "link type
 * infiniband took effect" (the port has the link type it waited for) and
 * "link type ethernet set in firmware since" (set back by hand);
 * else what else may take a reason away. */
static char *reason_gone_why(const struct pf_state *pf, const char *reason)
{
	uint32_t raised = plan_firmware_reason_raised(reason);

	if (pf && raised > 0 && pf->total_vfs >= raised)
		return strdup_printf("the firmware VF limit %u took effect", raised);
	if (pf && pf->firmware_total_vfs >= 0 && startswith(reason, "firmware VF limit"))
		return (uint32_t)pf->firmware_total_vfs == pf->total_vfs ?
			       strdup_printf("firmware VF limit %u set in firmware again, the "
					     "one in effect",
					     pf->total_vfs) :
			       strdup_printf("firmware VF limit %d set in firmware since (%u in "
					     "effect)",
					     pf->firmware_total_vfs, pf->total_vfs);
	if (pf && plan_link_type_reason_waited(reason) >= 0 &&
	    pf->link_type == (enum link_type)plan_link_type_reason_waited(reason))
		return strdup_printf("link type %s took effect",
				     strna(link_type_to_string(pf->link_type)));
	if (pf && pf->has_firmware_link_type && startswith(reason, "link type"))
		return strdup_printf("link type %s set in firmware since",
				     strna(link_type_to_string(pf->firmware_link_type)));
	return strdup("the firmware or the layouts changed since");
}

/* Whether reasons a and b wait for the same setting: the firmware VF
 * limit, the link type, or the same words otherwise. */
static bool same_kind(const char *a, const char *b)
{
	static const char *const kinds[] = { "firmware VF limit", "link type" };

	for (size_t i = 0; i < ELEMENTSOF(kinds); i++)
		if (startswith(a, kinds[i]) || startswith(b, kinds[i]))
			return startswith(a, kinds[i]) && startswith(b, kinds[i]);
	return streq(a, b);
}

/* A reason of this boot gone from merged without a reboot (the firmware
 * set back by hand, a firmware reset, a layout's change): one journal line,
 * as its coming had one ("reboot needed: ..."); not one said in other
 * words, whose PF still waits for the same setting in merged ("... (set by
 * the apply of ...; no layout asks for it now)", "firmware VF limit 14 set
 * in firmware, ..."). */
static void log_reasons_gone(const struct manager *m, const struct reboot_record *merged)
{
	if (!streq(m->reboot.boot_id, manager_boot_id(m)))
		return;
	for (size_t i = 0; i < m->reboot.n_reasons; i++) {
		const struct reboot_reason *o = &m->reboot.reasons[i];
		_cleanup_free_ char *why = NULL;
		bool reworded = false;

		if (reboot_record_has(merged, o->pci, o->text))
			continue;
		for (size_t j = 0; j < merged->n_reasons; j++)
			reworded = reworded || (streq(merged->reasons[j].pci, o->pci) &&
						same_kind(merged->reasons[j].text, o->text));
		if (reworded)
			continue;
		why = reason_gone_why(m->hs ? host_state_find_pf(m->hs, o->pci) : NULL, o->text);
		log_pf(LOG_NOTICE, o->pci, "%s: no reboot needed any more: %s (it waited: %s)",
		       o->pci, strna(why), o->text);
	}
}

static bool update_reboot(struct manager *m, bool layouts_changed)
{
	struct reboot_record cur, merged, standing;
	int r;

	if (current_reasons(m, &cur) < 0)
		return false;
	if (standing_reasons(m, &standing) < 0) {
		reboot_record_done(&cur);
		return false;
	}
	r = reboot_record_merge(&standing, &cur, manager_boot_id(m), layouts_changed, &merged);
	reboot_record_done(&cur);
	reboot_record_done(&standing);
	if (r < 0 || same_reasons(&merged, &m->reboot)) {
		if (r >= 0)
			reboot_record_done(&merged);
		return false;
	}
	log_reasons_gone(m, &merged);
	for (size_t i = 0; i < merged.n_reasons; i++)
		if (!reboot_record_has(&m->reboot, merged.reasons[i].pci, merged.reasons[i].text))
			log_pf(LOG_WARNING, merged.reasons[i].pci, "%s: reboot needed: %s",
			       merged.reasons[i].pci, merged.reasons[i].text);
	reboot_record_done(&m->reboot);
	m->reboot = merged;
	r = reboot_record_write(m->state_dir, &m->reboot);
	if (r < 0)
		log_msg(LOG_WARNING, "Writing %s/reboot.json failed: %s", m->state_dir,
			strerror(-r));
	return true;
}

/* A reason of the card of userdata (a PCI address), which a firmware reset
 * took into effect. */
static bool reason_of_card(const struct reboot_reason *k, void *userdata)
{
	return pci_same_device(k->pci, userdata);
}

void manager_reboot_forget_card(struct manager *m, const char *pci)
{
	struct reboot_record keep;
	int r;

	if (reboot_record_filter(&m->reboot, reason_of_card, (void *)pci, &keep) < 0)
		return;
	reboot_record_done(&m->reboot);
	m->reboot = keep;
	r = reboot_record_write(m->state_dir, &m->reboot);
	if (r < 0)
		log_msg(LOG_WARNING, "Writing %s/reboot.json failed: %s", m->state_dir,
			strerror(-r));
}

void manager_reboot_failed(struct manager *m, const char *error)
{
	free(m->reboot_failed);
	m->reboot_failed = error ? strdup(error) : NULL;
	m->reboot_failed_at = error ? now_realtime() : 0;
}

#define UNASKED_NO_REBOOT                                                                       \
	"no layout asks for what is pending (no reboot is made for that alone): the mstconfig " \
	"command under its PF sets it back"

const char *manager_no_reboot_why(const struct manager *m)
{
	bool asked = reboot_record_n_asked(&m->reboot) > 0;

	if (m->reboot.n_reasons == 0)
		return NULL;
	if (m->conf.reboot_policy == REBOOT_POLICY_NEVER ||
	    (m->conf.reboot_policy == REBOOT_POLICY_COORDINATED &&
	     !mainconf_kubernetes_enabled(&m->conf))) {
		/* what no layout asks for never makes a reboot: a reboot by hand
		 * is not what to do for it */
		if (!asked)
			return UNASKED_NO_REBOOT;
	}
	if (m->conf.reboot_policy == REBOOT_POLICY_NEVER)
		return "[Reboot] Policy=never: reboot by hand";
	if (m->conf.reboot_policy == REBOOT_POLICY_COORDINATED &&
	    !mainconf_kubernetes_enabled(&m->conf))
		return "[Reboot] Policy=coordinated needs Kubernetes, which is not enabled: reboot by "
		       "hand, or set Policy=immediate";
	return NULL;
}

struct json_object *manager_no_reboot_json(const struct manager *m)
{
	const char *why = manager_no_reboot_why(m);

	return why ? json_object_new_string(why) : NULL;
}

struct json_object *manager_reboot_failed_json(const struct manager *m)
{
	struct json_object *o;

	if (!m->reboot_failed)
		return NULL;
	o = json_object_new_object();
	json_object_object_add(o, "at_usec", json_object_new_uint64(m->reboot_failed_at));
	json_object_object_add(o, "error", json_object_new_string(m->reboot_failed));
	return o;
}

struct json_object *manager_host_error_json(const struct manager *m)
{
	struct json_object *o;

	if (!m->host_error)
		return NULL;
	o = json_object_new_object();
	json_object_object_add(o, "at_usec", json_object_new_uint64(m->host_error_at));
	json_object_object_add(o, "error", json_object_new_string(m->host_error));
	json_object_object_add(o, "layout_change_waits",
			       json_object_new_boolean(m->reload_waits && m->reload_changes));
	json_object_object_add(o, "reload_waits", json_object_new_boolean(m->reload_waits));
	return o;
}

void manager_daemon_errors_add(const struct manager *m, struct json_object *d)
{
	json_object_object_add(d, "reboot_failed", manager_reboot_failed_json(m));
	json_object_object_add(d, "host_error", manager_host_error_json(m));
}

static int count_gone(const struct pf_status *st, void *userdata)
{
	size_t *n = userdata;

	(void)st;
	(*n)++;
	return 0;
}

static enum manager_state summary_state(struct manager *m)
{
	_cleanup_free_ enum pf_run_state *states = calloc(m->n_pfs ?: 1, sizeof(*states));
	struct summary_facts f = {
		.draining = m->operation == MANAGER_DRAINING,
		.rebooting = m->operation == MANAGER_REBOOTING,
		.n_config_errors = strv_length(m->config_errors),
		.drifted = m->drifted,
		.reboot_failed = m->reboot_failed != NULL,
		.host_failed = m->host_error != NULL,
		.states = states,
	};

	/* a PF applied and then gone from the host is something wrong, as
	 * sriovctl status says (exit 1) until reset drops its record */
	if (m->hs && report_gone_each(m->hs, m->runtime_dir, count_gone, &f.n_gone) < 0)
		log_msg(LOG_ERR, "Counting the PFs gone from the host failed: %s",
			strerror(ENOMEM));
	if (!states) /* without memory, say no more than what is sure */
		return decide_summary(&f);
	for (size_t i = 0; i < m->n_pfs; i++)
		states[f.n_states++] = m->pfs[i]->state;
	return decide_summary(&f);
}

void manager_update_summary(struct manager *m, bool layouts_changed)
{
	bool drifted = false, changed;
	size_t n_configured = 0, n_applied = 0;
	enum manager_state state;

	for (size_t i = 0; i < m->n_pfs; i++) {
		drifted |= m->pfs[i]->drift != NULL;
		n_configured += m->pfs[i]->state != PF_RUN_UNCONFIGURED;
		n_applied += m->pfs[i]->state == PF_RUN_APPLIED;
	}
	if (layouts_changed)
		unasked_again(m);
	if (update_reboot(m, layouts_changed)) {
		/* other reasons: a reboot for them is another, not the one that failed */
		m->reboot_failed = mfree(m->reboot_failed);
		changed = true;
	} else
		changed = layouts_changed;
	changed |= drifted != m->drifted;
	m->drifted = drifted;
	state = summary_state(m);
	changed |= state != m->state;
	m->state = state;
	if (changed)
		manager_notify(m, MANAGER_SUMMARY_CHANGED);
	(void)sd_notifyf(false, "STATUS=%s: %zu PF(s), %zu configured, %zu applied%s%s",
			 manager_state_to_string(m->state), m->n_pfs, n_configured, n_applied,
			 m->drifted ? ", drift" : "",
			 m->reboot.n_reasons > 0 ? ", reboot needed" : "");
	manager_notify(m, MANAGER_SUMMARY);
}
