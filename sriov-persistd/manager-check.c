/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* Looking at a PF again after an event: drift, repair, applying; the
 * summary that follows is manager-summary.c's. */

#include <syslog.h>
#include <systemd/sd-daemon.h>

#include "apply.h"
#include "deferred-drift.h"
#include "dpconfig.h"
#include "drift-error.h"
#include "host-error.h"
#include "layouts-record.h"
#include "manager-check.h"
#include "manager-result.h"
#include "manager-summary.h"
#include "report-edited.h"
#include "report-gone.h"
#include "report.h"
#include "unselected-state.h"

#define MAIN_BROKEN \
	"the main configuration has errors (see ConfigErrors); nothing is applied until they are fixed"

static void set_strv(char ***p, char **l)
{
	strv_free(*p);
	*p = l;
}

/* Each action described. */
static char **plan_lines(const struct plan *p)
{
	char **l = calloc(1, sizeof(char *));

	for (size_t i = 0; l && i < p->n_actions; i++) {
		const struct action *a = &p->actions[i];

		if (strv_consume(&l, action_describe(a)) < 0)
			return strv_free(l);
	}
	return l;
}

/* The plan as one string: a plan that is the same as the one that last
 * failed is not retried on its own. */
static char *plan_signature(const struct plan *p)
{
	_cleanup_strv_free_ char **l = plan_lines(p);

	return l ? strv_join(l, "\n") : NULL;
}

/* Another process (an apply unit, sriovctl apply) holds the PF's lock. */
static bool pf_busy(struct manager *m, const char *pci)
{
	int fd = pf_lock(m->runtime_dir, pci, 0);

	if (fd >= 0) {
		close(fd);
		return false;
	}
	return fd == -ETIMEDOUT;
}

static void noticed_drift(struct manager *m, struct pf_entry *e, char **what)
{
	_cleanup_free_ char *list = strv_join(what, "; ");

	if (e->drift && strv_length(e->drift) == strv_length(what)) {
		bool same = true;

		for (size_t i = 0; what[i]; i++)
			same &= streq(what[i], e->drift[i]);
		if (same) {
			strv_free(what);
			return;
		}
	}
	/* deferred: its apply waits for the policy as a whole */
	log_pf(LOG_WARNING, e->pci, "%s%s%s%s: drifted from its layout: %s%s", e->pci,
	       e->name ? " (" : "", strempty(e->name), e->name ? ")" : "", strna(list),
	       e->state == PF_RUN_DEFERRED ? "; deferred: repaired with the deferred apply" : "");
	set_strv(&e->drift, what);
	manager_notify(m, MANAGER_PF_DRIFTED, .pf = e);
}

/* The first module the plan loads, NULL when it loads none. */
static const char *plan_module(const struct plan *p)
{
	for (size_t i = 0; i < p->n_actions; i++)
		if (p->actions[i].type == ACTION_LOAD_MODULE)
			return p->actions[i].str;
	return NULL;
}

/* A PF whose plan is not empty: the facts for decide_changes(), and what
 * it decided. Returns whether to apply it now. */
static bool judge_changes(struct manager *m, struct pf_entry *e, const struct pf_desired *d,
			  const struct plan *p, const struct pf_state *pf, bool may_apply)
{
	const char *module = plan_module(p);
	struct pf_status st = {};
	struct pf_facts f = {
		.drift_mode = m->conf.drift_mode,
		.loads_module = module,
		.plan_sig = e->plan_sig,
		.given_up = e->given_up,
		.may_apply = may_apply,
	};
	_cleanup_strv_free_ char **news = NULL;
	_cleanup_free_ char *lifted = NULL;
	struct pf_verdict v;
	bool link;

	f.has_record = pf_status_read(m->runtime_dir, e->pci, &st) >= 0;
	f.record = st.state;
	f.layout_changed = f.has_record && layouts_record_changed(m, pf, &st);
	link = f.has_record && report_link_took_effect(&st, pf);
	f.firmware_took_effect = f.has_record && (pf_status_firmware_took_effect(&st, pf) || link);
	if (f.has_record && report_deferral_lifted(m->set, &st, NULL, &lifted) < 0) {
		log_pf(LOG_ERR, e->pci, "%s: checking whether its deferral is lifted failed: %s",
		       e->pci, strerror(ENOMEM));
		lifted = NULL;
	}
	f.deferral_lifted = lifted;
	if (f.has_record && st.state == PF_STATUS_DEFERRED) {
		news = deferred_drift(&e->deferred_base, d, pf);
		f.deferred_drift = news && news[0];
	} else
		e->deferred_base = deferred_base_free(e->deferred_base);
	v = decide_changes(&f);
	e->state = v.state;
	drift_last_error(e, &v, m->set, p, module, f.has_record, lifted ?: st.error);
	if (f.firmware_took_effect && v.apply && link)
		log_pf(LOG_NOTICE, e->pci,
		       "%s%s%s%s: the link type %s it waited for took effect; its apply goes on",
		       e->pci, e->name ? " (" : "", strempty(e->name), e->name ? ")" : "",
		       strna(link_type_to_string(pf->link_type)));
	else if (f.firmware_took_effect && v.apply)
		log_pf(LOG_NOTICE, e->pci,
		       "%s%s%s%s: the firmware VF limit %u took effect; its apply goes on", e->pci,
		       e->name ? " (" : "", strempty(e->name), e->name ? ")" : "",
		       pf_status_firmware_waited(&st) ?: pf->total_vfs);
	if (v.drifted && news)
		noticed_drift(m, e, TAKE_PTR(news));
	else if (v.drifted) {
		char **what = plan_describe_drift(p, pf);

		if (what)
			noticed_drift(m, e, what);
	} else if (news) /* put back by hand: no drift */
		e->drift = strv_free(e->drift);
	if (v.drifted && v.apply)
		manager_notify(m, MANAGER_PF_REPAIRING, .pf = e);
	/* its layouts changed outside a reload (while the daemon was stopped):
	 * what differs now includes any drift since its last apply, which no
	 * check saw; said with the result, as a reload says the drift it kept */
	e->changed_from = strv_free(e->changed_from);
	if (v.apply && !v.drifted && f.layout_changed && !m->reload_from &&
	    st.state == PF_STATUS_APPLIED && !e->drift)
		e->changed_from = plan_describe_drift(p, pf);
	if (f.has_record)
		pf_status_done(&st);
	return v.apply;
}

/* Whether the PF is not the daemon's to apply now, and why: udev is not done
 * with its netdev (bringing it up before the rename makes the rename fail),
 * or its netdev appeared while we ran and the apply unit that udev started
 * has not written its record yet. On a simulated host, which has no udev, a
 * PF new to it is decide_changes()'s; one that came back with a record of
 * before it went is the apply unit's all the same, unless its plan (p) is
 * empty. *why is a static string
 * or owned by *buf. */
static bool left_to_udev(struct manager *m, struct pf_entry *e, const struct pf_state *pf,
			 const struct plan *p, char **buf, const char **why)
{
	struct netdev_id id;
	struct pf_status st;
	bool done;
	int r;

	if (!m->host_path) {
		if (!netdev_settled(m->udev, pf->name, why, &id))
			return true;
		/* a new netdev since we last looked: lost since it appeared */
		if (id.initialized && e->netdev.initialized &&
		    id.initialized != e->netdev.initialized && e->lost == 0)
			e->lost = id.since;
		if (id.initialized)
			e->netdev = id;
	}
	if (e->lost == 0)
		return false;
	r = pf_status_read(m->runtime_dir, e->pci, &st);
	if (r < 0 && m->host_path)
		return false;
	/* there, one that came back as its layout wants it is at rest */
	done = r >= 0 && (st.finished >= e->lost || (m->host_path && p && p->n_actions == 0));
	if (r >= 0)
		pf_status_done(&st);
	if (done) {
		e->lost = 0;
		return false;
	}
	*buf = r >= 0 ? report_not_applied_returned(e->pci, NULL) :
			strdup_printf(
				"its netdev appeared: sriov-persist-apply@%s.service applies it",
				e->pci);
	*why = *buf ?: "its netdev appeared: the apply unit applies it";
	return true;
}

/* What an event may have changed about the PF itself. */
static void note_pf(struct manager *m, struct pf_entry *e, const struct pf_state *pf)
{
	(void)free_and_strdup(&e->name, pf->name);
	/* without a driver or netdev: whatever [Match] says of it now, when it
	 * comes back it is the udev path's to apply */
	if (!m->host_path && (!pf->name || !pf->driver))
		e->lost = now_realtime();
	/* VFs that vanished or appeared, even if repaired at once, are new
	 * devices to the device plugin */
	if (e->num_vfs != pf->num_vfs && e->state != PF_RUN_UNCONFIGURED)
		manager_notify(m, MANAGER_PF_VFS_CHANGED, .pf = e);
	e->num_vfs = pf->num_vfs;
}

/* Held, or nothing left to do: applied, degraded where the host lacks
 * something, or pending while what is left only another tool (VFs of an
 * ExternallyManaged=yes PF) or a reboot (a raised firmware VF limit)
 * brings, as sriovctl status says. */
static int check_at_rest(struct pf_entry *e, const struct pf_desired *d, const struct plan *p)
{
	_cleanup_free_ char *unmet = !d->held && p->unmet[0] ? strv_join(p->unmet, "; ") : NULL;
	char *const *later = d->held ? NULL : p->waiting[0] ? p->waiting : p->reboot_reasons;
	_cleanup_free_ char *pending = later && later[0] ? strv_join((char **)later, "; ") : NULL;

	/* only a reboot is left, which a firmware reset that did not take
	 * stands for: failed, with what the firmware reports */
	bool stuck = e->firmware_stuck && pending && !unmet && !p->waiting[0];

	e->state = d->held ? PF_RUN_HELD :
		   unmet   ? PF_RUN_DEGRADED :
		   stuck   ? PF_RUN_FAILED :
		   pending ? PF_RUN_PENDING :
			     PF_RUN_APPLIED;
	(void)free_and_strdup(&e->last_error, d->held ? d->held_reason :
					      unmet   ?:
					      stuck   ? e->firmware_stuck :
							pending);
	if (e->deferred_base && e->state == PF_RUN_APPLIED)
		deferred_log_made(e->pci, e->name);
	if (!stuck)
		e->firmware_stuck = mfree(e->firmware_stuck);
	if (!d->held) {
		set_strv(&e->resources_running, strv_copy(e->resources_wanted));
		if (!e->resources_running)
			return -ENOMEM;
	}
	e->drift = strv_free(e->drift);
	/* what differed when an apply of ours was decided, which did not run
	 * (another process applied it): no later apply's to say */
	e->changed_from = strv_free(e->changed_from);
	e->deferred_base = deferred_base_free(e->deferred_base);
	e->given_up = mfree(e->given_up);
	return 0;
}

/* The keys d sets, beside what pf has now. */
static int set_settings(struct pf_entry *e, const struct pf_state *pf, const struct pf_desired *d)
{
	struct key_settings now;
	int r = key_settings_build(pf, d, &now);

	if (r < 0)
		return r;
	if (key_settings_equal(&now, &e->settings)) {
		key_settings_done(&now);
		return 0;
	}
	key_settings_done(&e->settings);
	e->settings = now;
	e->settings_changes++;
	return 0;
}

/* What the PF's entry says of its layout (none: d NULL): the VFs, files,
 * keys, reboot reasons and device-plugin resources it wants. */
static int note_desired(struct manager *m, struct pf_entry *e, const struct pf_state *pf,
			const struct pf_desired *d, struct plan *p)
{
	char **names = NULL, **reasons;
	int r;

	e->desired_vfs = d && !d->held ? pf_desired_num_vfs(d, pf) : pf->num_vfs;
	set_strv(&e->config_files, d ? strv_copy(d->config_files) : NULL);
	r = set_settings(e, pf, d);
	if (r < 0)
		return r;
	/* a limit set by hand since the card's raise: as the firmware holds
	 * it; the card raise another port's apply made: that port's */
	if (p && report_card_limit_said(m->runtime_dir, m->hs, pf, pf_desired_num_vfs(d, pf),
					&p->reboot_reasons) < 0)
		return -ENOMEM;
	/* what an apply did that waits for the reboot, not what the plan
	 * needs: a PF not applied yet waits for its apply, not a reboot */
	reasons = NULL;
	if (p && plan_reboot_reasons_of(p, true, &reasons) < 0)
		return -ENOMEM;
	set_strv(&e->reboot_reasons, reasons);
	e->reboot_unasked = false;
	if (!d || d->held)
		return 0;
	r = dpconfig_pf_resources(d, m->conf.resource_prefix, &names);
	if (r < 0)
		return r;
	set_strv(&e->resources_wanted, names);
	return 0;
}

/* Checks one PF against its layout. Returns 1 when it should be applied. */
static int check_pf(struct manager *m, struct pf_entry *e, bool may_apply)
{
	const struct pf_state *pf = host_state_find_pf(m->hs, e->pci);
	_cleanup_pf_desired_ struct pf_desired *d = NULL;
	_cleanup_plan_ struct plan *p = NULL;
	_cleanup_free_ char *waiting = NULL;
	struct diag_list ignored = {};
	const char *why = NULL;
	int r;

	e->dirty = false;
	e->plan_sig = mfree(e->plan_sig);
	if (!pf)
		return 0;
	note_pf(m, e, pf);
	if (pf_busy(m, e->pci)) {
		/* its record is written when it is done, and that is an event */
		e->state = PF_RUN_APPLYING;
		return 0;
	}
	r = desired_build(m->set, m->hs, pf, &ignored, &d);
	diag_list_done(&ignored);
	if (r >= 0 && d && !d->held)
		r = plan_build(d, pf, m->hs, &p);
	if (r < 0)
		return r;
	if (d && m->main_broken) {
		e->state = PF_RUN_HELD;
		(void)free_and_strdup(&e->last_error, MAIN_BROKEN);
		return 0;
	}
	if (d && left_to_udev(m, e, pf, p, &waiting, &why)) {
		e->state = PF_RUN_PENDING;
		(void)free_and_strdup(&e->last_error, why);
		return 0;
	}
	r = note_desired(m, e, pf, d, p);
	if (r < 0)
		return r;
	if (!d)
		return unselected_check(m, e, pf);
	if (!d->held && p->n_actions == 0)
		layouts_record_at_rest(m, pf);
	if (d->held || p->n_actions == 0)
		return check_at_rest(e, d, p);
	e->plan_sig = plan_signature(p);
	if (!e->plan_sig)
		return -ENOMEM;
	return judge_changes(m, e, d, p, pf, may_apply);
}

/* A PF that run_apply() showed as applying and that nothing was done to. */
static int recheck_untouched(struct manager *m, const char *pci)
{
	struct pf_entry *e = manager_find_entry(m, pci);
	int r;

	if (!e || e->state != PF_RUN_APPLYING)
		return 0;
	r = check_pf(m, e, false);
	if (r < 0)
		return r;
	manager_pf_changed(m, e);
	return 0;
}

/* Another process applies it: its record, when written, is an event. What
 * differed when our apply was decided (changed_from) is not that apply's. */
static int left_to_other(struct manager *m, const struct apply_pf_result *pr, struct asked *out)
{
	struct pf_entry *e = manager_find_entry(m, pr->status.pci);

	if (e) {
		e->state = PF_RUN_APPLYING;
		e->changed_from = strv_free(e->changed_from);
		manager_pf_changed(m, e);
	}
	if (out && strv_extend(&out->busy, pr->status.pci) < 0)
		return -ENOMEM;
	return 0;
}

/* An apply that did something: the PF as it is now, the result told, and a
 * plan that failed remembered. */
static int after_one(struct manager *m, struct apply_pf_result *pr, bool reset, struct asked *out)
{
	struct host_state *fresh = NULL;
	struct pf_entry *e = manager_find_entry(m, pr->status.pci);
	_cleanup_free_ char *repaired = NULL;
	int r = 0;

	/* the drift that Mode=report kept, which this apply repaired too */
	if (e && !reset && m->conf.drift_mode == DRIFT_MODE_REPORT)
		repaired = apply_result_drift_repaired(pr, e->drift, m->set->drift_report_at,
						       m->reload_from != NULL);
	if (!repaired && e && !reset && e->changed_from)
		repaired = apply_result_changed_repaired(pr, e->changed_from);
	if (e)
		e->changed_from = strv_free(e->changed_from);
	apply_result_log(pr, repaired);
	/* the apply read the PF last: that is the PF as it is now */
	if (pr->read_back)
		fresh = TAKE_PTR(pr->read_back);
	else
		r = host_read_pf(m->host, pr->status.pci, &fresh);
	if (r >= 0)
		r = manager_update_cache(m, fresh, pr->status.pci);
	if (r < 0)
		return r;
	/* deferred for a drain that sriov-persistd itself does: not the result yet */
	e = manager_find_entry(m, pr->status.pci);
	if (pr->needs_drain && mainconf_kubernetes_enabled(&m->conf)) {
		manager_notify(m, MANAGER_PF_WANTS_DRAIN, .pci = pr->status.pci);
		if (e)
			e->reset_wanted = reset;
	} else {
		manager_notify(m, MANAGER_PF_APPLIED, .pci = pr->status.pci,
			       .result = apply_result_code(pr));
		if (pr->status.state != PF_STATUS_APPLIED && asked_add_failed(out, pr, reset) < 0)
			return -ENOMEM;
		if (pr->status.state == PF_STATUS_APPLIED && reset && asked_note_reset(out, pr) < 0)
			return -ENOMEM;
	}
	if (!e)
		return 0;
	if (reset)
		e->reset_without_drain = pr->changed ? pr->without_drain : NULL;
	e->given_up = mfree(e->given_up);
	r = check_pf(m, e, false);
	if (r < 0)
		return r;
	if (decide_give_up(pr->status.state, e->plan_sig))
		(void)free_and_strdup(&e->given_up, e->plan_sig);
	manager_pf_changed(m, e);
	return 0;
}

/* After an apply: read the PFs back, signal, and remember a failed plan.
 * out (may be NULL) gets "PCI: why" of each PF that was not applied and does
 * not wait for a drain, and the PFs another process was applying. */
static int after_apply(struct manager *m, struct apply_result *res, bool reset, struct asked *out)
{
	for (size_t i = 0; i < res->n_pfs; i++) {
		struct apply_pf_result *pr = &res->pfs[i];
		int r;

		if (pr->busy)
			r = left_to_other(m, pr, out);
		/* nothing done: a PF no layout selects, or a reset refused for a
		 * PF that a layout selects; it only shows "applying" no more */
		else if ((!pr->configured && !pr->changed &&
			  pr->status.state == PF_STATUS_APPLIED) ||
			 (reset && pr->configured)) {
			r = reset && pr->configured ? asked_add_failed(out, pr, true) : 0;
			if (r >= 0)
				r = recheck_untouched(m, pr->status.pci);
		} else
			r = after_one(m, pr, reset, out);
		if (r < 0)
			return r;
	}
	return 0;
}

static void manager_log_action(const struct pf_state *pf, const struct action *a, int r,
			       const char *detail, void *userdata)
{
	_cleanup_free_ char *d = action_describe(a);

	/* the loop does not run during an apply: each action is bounded by
	 * SysfsWriteTimeoutSec=, well under WatchdogSec= */
	(void)sd_notify(false, "WATCHDOG=1");
	if (r < 0)
		log_pf(LOG_WARNING, pf->pci, "%s: %s failed: %s%s%s", pf->pci, strna(d),
		       strerror(-r), detail && *detail ? ": " : "", strempty(detail));
	else
		log_pf(LOG_DEBUG, pf->pci, "%s: %s", pf->pci, strna(d));
}

enum {
	RUN_DISRUPTIVE = 1 << 0, /* the node was drained for it */
	RUN_RESET = 1 << 1,	 /* remove what removed layouts left */
};

static int run_apply(struct manager *m, const char *only, unsigned flags, struct asked *out)
{
	struct apply_options opts = {
		.conf = &m->conf,
		.runtime_dir = m->runtime_dir,
		.state_dir = m->state_dir,
		.only = only,
		.on_action = manager_log_action,
		.allow_disruptive = flags & RUN_DISRUPTIVE,
		.reset = flags & RUN_RESET,
		/* the event loop never waits on a lock: a PF another process holds
		 * is left to it */
		.lock_nowait = true,
	};
	struct apply_result res = {};
	enum manager_state before = m->state;
	int r;

	if (m->main_broken) {
		log_msg(LOG_ERR, "Not applying: %s", MAIN_BROKEN);
		return -ENOEXEC;
	}
	m->state = MANAGER_APPLYING;
	for (size_t i = 0; i < m->n_pfs; i++)
		if (!only || streq(m->pfs[i]->pci, only)) {
			if (m->pfs[i]->state != PF_RUN_UNCONFIGURED)
				m->pfs[i]->state = PF_RUN_APPLYING;
			manager_pf_changed(m, m->pfs[i]);
		}
	if (before != MANAGER_APPLYING)
		manager_notify(m, MANAGER_SUMMARY_CHANGED);
	(void)sd_notifyf(false, "STATUS=Applying %s", only ?: "every PF");
	manager_notify(m, MANAGER_APPLY_STARTS);
	r = apply_run(m->host, m->set, &opts, &res);
	if (r < 0 && r != -EIO) {
		/* the applies decided were not run: what differed then is no
		 * later apply's to say (the next check decides again) */
		for (size_t i = 0; i < m->n_pfs; i++)
			if (!only || streq(m->pfs[i]->pci, only))
				m->pfs[i]->changed_from = strv_free(m->pfs[i]->changed_from);
		log_msg(LOG_ERR, "Applying failed: %s%s%s", strerror(-r),
			m->host->error[0] ? ": " : "", m->host->error);
		manager_update_summary(m, false);
		return r;
	}
	for (size_t i = 0; i < res.diags.n; i++) {
		_cleanup_free_ char *s = diag_format(&res.diags.items[i]);

		log_pf(LOG_DEBUG, NULL, "%s", strna(s));
	}
	r = after_apply(m, &res, flags & RUN_RESET, out);
	apply_result_done(&res);
	return r;
}

int manager_apply_wanted(struct manager *m, const char *pci, bool drained)
{
	struct pf_entry *e = manager_find_entry(m, pci);
	bool reset = e && e->reset_wanted;
	int r;

	if (e)
		e->reset_wanted = false;
	r = run_apply(m, pci, (drained ? RUN_DISRUPTIVE : 0) | (reset ? RUN_RESET : 0), NULL);
	manager_notify(m, MANAGER_LOOKED);
	manager_update_summary(m, false);
	return r;
}

int manager_reread(struct manager *m)
{
	struct host_state *hs = NULL;
	int r;

	r = host_read(m->host, &hs);
	manager_host_read(m, r);
	if (r < 0)
		return r;
	r = manager_update_cache(m, hs, NULL);
	for (size_t i = 0; r >= 0 && i < m->n_pfs; i++)
		m->pfs[i]->dirty = true;
	return r;
}

static int reread_dirty(struct manager *m)
{
	_cleanup_strv_free_ char **pcis = calloc(1, sizeof(char *));

	if (!pcis)
		return -ENOMEM;
	for (size_t i = 0; i < m->n_pfs; i++)
		if (m->pfs[i]->dirty && strv_extend(&pcis, m->pfs[i]->pci) < 0)
			return -ENOMEM;
	for (char **p = pcis; *p; p++) {
		struct host_state *fresh = NULL;
		struct pf_entry *e;
		int r;

		r = host_read_pf(m->host, *p, &fresh);
		manager_host_read(m, r);
		if (r < 0)
			return r;
		r = manager_update_cache(m, fresh, *p);
		if (r < 0)
			return r;
		e = manager_find_entry(m, *p);
		if (e)
			e->dirty = true; /* a PF that came back keeps its mark */
	}
	return 0;
}

int manager_refresh(struct manager *m)
{
	return m->rescan_all || !m->hs ? manager_reread(m) : reread_dirty(m);
}

int manager_check_dirty(struct manager *m)
{
	_cleanup_strv_free_ char **todo = calloc(1, sizeof(char *));
	int r;

	if (!todo)
		return -ENOMEM;
	r = m->rescan_all ? manager_reread(m) : reread_dirty(m);
	m->rescan_all = false;
	if (r < 0)
		return r;
	for (size_t i = 0; i < m->n_pfs; i++) {
		struct pf_entry *e = m->pfs[i];

		if (!e->dirty)
			continue;
		r = check_pf(m, e, true);
		if (r < 0)
			return r;
		if (r > 0 && strv_extend(&todo, e->pci) < 0)
			return -ENOMEM;
		manager_pf_changed(m, e);
	}
	for (char **p = todo; *p; p++) {
		r = run_apply(m, *p, 0, NULL);
		if (r < 0)
			return r;
	}
	manager_notify(m, MANAGER_LOOKED);
	manager_update_summary(m, false);
	manager_notify(m, MANAGER_CHECKED);
	return 0;
}

/* Apply() and Reset(): the PF named (or all) read again and applied or reset. */
static int apply_asked(struct manager *m, const char *only, unsigned flags, struct asked *out)
{
	const struct pf_state *pf = NULL;
	char pci[PCI_ADDR_MAX];
	int r;

	r = manager_reread(m);
	if (r < 0)
		return r;
	if (only) {
		pf = host_state_lookup_pf(m->hs, only);
		if (!pf)
			return -ENXIO;
		snprintf(pci, sizeof(pci), "%s", pf->pci);
	}
	for (size_t i = 0; i < m->n_pfs; i++)
		if (!pf || streq(m->pfs[i]->pci, pci)) {
			m->pfs[i]->given_up = mfree(m->pfs[i]->given_up);
			m->pfs[i]->lost = 0; /* asked for: ours now, whoever else may */
		}
	manager_notify(m, MANAGER_APPLY_ASKED); /* a reboot may be tried again too */
	r = run_apply(m, pf ? pci : NULL, flags, out);
	manager_notify(m, MANAGER_LOOKED);
	manager_update_summary(m, false);
	return r;
}

int manager_apply(struct manager *m, const char *only, struct asked *out)
{
	return apply_asked(m, only, 0, out);
}

/* Reset() of a PF gone from the host drops its status record, as sriovctl
 * reset does without the daemon: -ENXIO when no gone PF is named so. The
 * daemon never waits for another process's lock: held, it is -ETIMEDOUT. */
static int forget_gone(struct manager *m, const char *only)
{
	_cleanup_free_ char *said = NULL;
	int r;

	r = report_gone_forget(m->hs, m->runtime_dir, only, 0, &said);
	if (r <= 0)
		return r == 0 ? -ENXIO : r;
	log_msg(LOG_INFO, "%s; its status record is dropped", said);
	manager_notify(m, MANAGER_LOOKED);
	manager_update_summary(m, false);
	return 0;
}

int manager_reset(struct manager *m, const char *only, struct asked *out)
{
	int r = apply_asked(m, only, RUN_RESET, out);

	return r == -ENXIO && only ? forget_gone(m, only) : r;
}

bool manager_pf_busy(struct manager *m, const char *pci)
{
	return pf_busy(m, pci);
}

int manager_apply_all(struct manager *m, char **only)
{
	int r = 0, k;

	/* with errors in the main configuration nothing is applied: the PFs only
	 * show why (held) */
	if (m->main_broken || (only && !*only))
		return manager_check_dirty(m);
	if (!only)
		return run_apply(m, NULL, 0, NULL);
	for (char **p = only; *p; p++)
		if ((k = run_apply(m, *p, 0, NULL)) < 0 && r >= 0)
			r = k;
	k = manager_check_dirty(m); /* the others: looked at, not applied */
	return r < 0 ? r : k;
}

/* The PF's status record carries error (sriovctl status), written under its
 * lock, never over the record of someone applying the PF right now. With
 * fail the PF is failed; else only a deferred one takes it: still deferred,
 * but no longer waiting for a drain that comes, the operation failed, at
 * which step and why. */
void manager_record_error(struct manager *m, const char *pci, const char *error, bool fail)
{
	_cleanup_close_ int lock = pf_lock(m->runtime_dir, pci, 0);
	struct pf_status st;
	int r;

	if (lock < 0 || pf_status_read(m->runtime_dir, pci, &st) < 0)
		return;
	if (fail)
		st.state = PF_STATUS_FAILED;
	if (st.state == PF_STATUS_DEFERRED || fail) {
		free(st.error);
		st.error = strdup(error);
		r = st.error ? pf_status_write(m->runtime_dir, &st) : -ENOMEM;
		if (r < 0)
			log_pf(LOG_WARNING, pci, "%s: writing its status record failed: %s", pci,
			       strerror(-r));
	}
	pf_status_done(&st);
}

void manager_pf_failed(struct manager *m, const char *pci, const char *error)
{
	struct pf_entry *e = manager_find_entry(m, pci);

	if (!e)
		return;
	manager_record_error(m, pci, error, false);
	free(e->last_error);
	e->last_error = strdup(error);
	free(e->given_up);
	e->given_up = e->plan_sig ? strdup(e->plan_sig) : NULL;
	manager_pf_changed(m, e);
	manager_notify(m, MANAGER_PF_APPLIED, .pci = pci, .result = -EBUSY);
}
