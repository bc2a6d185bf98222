/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <syslog.h>
#include <systemd/sd-daemon.h>

#include "deferred-drift.h"
#include "host-error.h"
#include "layout-wants.h"
#include "manager-check.h"
#include "manager-summary.h"
#include "reload.h"

static int on_retry(sd_event_source *s, uint64_t usec, void *userdata)
{
	int r = manager_reload_retry(userdata);

	if (r < 0 && r != -EAGAIN)
		log_msg(LOG_ERR, "Reloading failed: %s", strerror(-r));
	return 0;
}

/* The next retry, each one twice as late as the one before, up to the cap;
 * the journal says what waits at the first, and at each reload asked for
 * while it waits (a layout edited meanwhile: the layout change waits). */
static void arm_retry(struct manager *m, bool asked)
{
	usec_t delay = RELOAD_RETRY_MIN_USEC;
	char span[FORMAT_TIMESPAN_MAX], most[FORMAT_TIMESPAN_MAX];
	int r;

	for (unsigned i = 0; i < m->reload_tries && delay < RELOAD_RETRY_MAX_USEC; i++)
		delay *= 2;
	if (delay > RELOAD_RETRY_MAX_USEC)
		delay = RELOAD_RETRY_MAX_USEC;
	m->reload_tries++;
	if (!m->reload_retry)
		r = sd_event_add_time_relative(m->event, &m->reload_retry, CLOCK_MONOTONIC, delay,
					       USEC_PER_MSEC, on_retry, m);
	else
		r = sd_event_source_set_time_relative(m->reload_retry, delay);
	if (r >= 0)
		r = sd_event_source_set_enabled(m->reload_retry, SD_EVENT_ONESHOT);
	if (r < 0)
		log_msg(LOG_ERR,
			"Cannot schedule trying the reload again: %s; it is tried again at "
			"the next event",
			strerror(-r));
	else if (m->reload_tries == 1 || asked)
		log_msg(LOG_WARNING,
			"Reloading: the layouts are read, but not the host: %s (tried again at the "
			"next event, and in %s, then less often, at least once every %s)",
			manager_reload_waits_why(m), format_timespan(span, delay),
			format_timespan(most, RELOAD_RETRY_MAX_USEC));
}

/* Whether a PF in state was applied as its layouts say (drifted since or
 * not), or has none: under [Drift] Mode=report a reload applies it again
 * only for a change of its layouts. */
static bool applied_as_layouts_say(enum pf_run_state state)
{
	switch (state) {
	case PF_RUN_UNCONFIGURED:
	case PF_RUN_APPLYING:
	case PF_RUN_APPLIED:
	case PF_RUN_DRIFTED:
	case PF_RUN_DEGRADED:
		return true;
	default:
		return false;
	}
}

/* Under [Drift] Mode=report a reload applies only the PFs whose layouts
 * changed (what the layouts before it (m->reload_from) and now want of the
 * PF differ, on the host as read now) and those not applied as their
 * layouts say (pending, held, failed, deferred). The others keep their drift,
 * reported. *ret NULL: every PF is applied ([Drift] Mode=repair, or the
 * layouts before are not known). */
static int changed_pfs(struct manager *m, char ***ret)
{
	_cleanup_strv_free_ char **l = NULL;

	*ret = NULL;
	if (m->conf.drift_mode != DRIFT_MODE_REPORT || !m->reload_from || !m->hs)
		return 0;
	l = calloc(1, sizeof(char *));
	if (!l)
		return -ENOMEM;
	for (size_t i = 0; i < m->hs->n_pfs; i++) {
		const struct pf_state *pf = &m->hs->pfs[i];
		const struct pf_entry *e = manager_find_entry(m, pf->pci);
		int differ = layouts_differ(m->reload_from, m->set, m->hs, pf);

		if (differ < 0)
			return differ;
		if (e && !applied_as_layouts_say(e->state)) {
			/* never applied, held, failed or deferred: the reload applies it
			 * as any, under the policy as it is now (it has no drift to keep) */
			if (strv_extend(&l, pf->pci) < 0)
				return -ENOMEM;
		} else if (!differ && layout_set_selects(m->set, m->hs, pf))
			log_pf(LOG_INFO, pf->pci,
			       "%s: its layouts did not change, the reload leaves it as it is "
			       "([Drift] Mode=report%s%s)",
			       pf->pci, m->set->drift_report_at[0] ? " in " : "",
			       m->set->drift_report_at);
		else if (differ && strv_extend(&l, pf->pci) < 0)
			return -ENOMEM;
	}
	*ret = TAKE_PTR(l);
	return 0;
}

/* Whether the layouts read last say something else of a PF on the host as
 * read last than those before the reload; true when either is not known or
 * on ENOMEM. */
static bool changes_layouts(const struct manager *m)
{
	if (!m->reload_from || !m->hs)
		return true;
	for (size_t i = 0; i < m->hs->n_pfs; i++)
		if (layouts_differ(m->reload_from, m->set, m->hs, &m->hs->pfs[i]) != 0)
			return true;
	return false;
}

/* The part of a reload after the configuration is read (asked: a reload,
 * not a retry of one that waits): the host read, and every PF applied as
 * the new layouts say. -EAGAIN: the host could not be read, the reload
 * waits. */
static int finish(struct manager *m, bool asked)
{
	_cleanup_strv_free_ char **only = NULL;
	int r = manager_reread(m);

	if (r < 0) {
		m->reload_waits = true;
		m->reload_changes = changes_layouts(m);
		manager_update_summary(m, false); /* degraded, and why */
		arm_retry(m, asked);
		return -EAGAIN;
	}
	if (m->reload_tries > 0)
		log_msg(LOG_NOTICE, "The host can be read again: %s",
			m->reload_changes ? "the layout change is applied" : "the reload goes on");
	m->reload_waits = false;
	m->reload_tries = 0;
	m->reload_retry = sd_event_source_disable_unref(m->reload_retry);
	manager_log_unselected(m);
	for (size_t i = 0; i < m->n_pfs; i++) {
		m->pfs[i]->given_up = mfree(m->pfs[i]->given_up);
		/* a new layout: what differs now is what its deferral leaves */
		m->pfs[i]->deferred_base = deferred_base_free(m->pfs[i]->deferred_base);
	}
	r = changed_pfs(m, &only);
	if (r >= 0)
		r = manager_apply_all(m, only);
	m->reload_from = layout_set_free(m->reload_from);
	manager_notify(m, MANAGER_LOOKED);
	manager_update_summary(m, true);
	return r;
}

int manager_reload(struct manager *m)
{
	int r;

	m->reload_pending = false;
	log_msg(LOG_INFO, "Reloading the configuration");
	(void)sd_notify(false, "RELOADING=1\nSTATUS=Reloading the configuration");
	/* the layouts applied last, kept until the reload is finished: a
	 * reload that waits for the host keeps the ones before it */
	if (!m->reload_waits) {
		m->reload_from = layout_set_free(m->reload_from);
		m->reload_from = TAKE_PTR(m->set);
	}
	r = manager_load_config(m);
	if (!m->set) /* not loaded: the layouts stay */
		m->set = TAKE_PTR(m->reload_from);
	if (r < 0) {
		log_msg(LOG_ERR, "Loading the configuration failed: %s", strerror(-r));
		(void)sd_notify(false, "READY=1");
		return r;
	}
	r = finish(m, true);
	(void)sd_notify(false, "READY=1");
	return r;
}

int manager_reload_retry(struct manager *m)
{
	if (!m->reload_waits)
		return 0;
	return finish(m, false);
}

const char *manager_reload_why(const struct manager *m, int r)
{
	static char buf[1024];

	if (r != -EAGAIN || !m->reload_waits)
		snprintf(buf, sizeof(buf), "Reloading failed: %s", strerror(-r));
	else
		snprintf(buf, sizeof(buf), "Reloading failed: reading the host failed: %s; %s, %s",
			 strna(m->host_error), manager_reload_waits_why(m),
			 m->reload_changes ? "and is applied then" : "and goes on then");
	return buf;
}
