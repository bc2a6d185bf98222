/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* Coalescing of events into checks and reloads, and the safety scan. */

#include <syslog.h>

#include "manager-check.h"
#include "reload.h"
#include "schedule.h"

#define COALESCE_USEC (20 * USEC_PER_MSEC)
/* Layout edits are applied once the files have been quiet this long, so that
 * an editor's or a configuration manager's burst of writes (a file moved out
 * and back, written in several steps) is one change, never a half-done one;
 * a stream of writes that never pauses is read after RELOAD_SETTLE_MAX_USEC. */
#define RELOAD_SETTLE_USEC (500 * USEC_PER_MSEC)
#define RELOAD_SETTLE_MAX_USEC (5 * USEC_PER_SEC)

struct schedule {
	sd_event_source *coalesce;
	sd_event_source *reload_timer;
	uint64_t reload_first; /* CLOCK_MONOTONIC of the first change since the last reload */
	sd_event_source *safety_scan;
};

static void check_dirty(struct manager *m)
{
	int r = manager_check_dirty(m);

	if (r < 0)
		log_msg(LOG_ERR, "Checking the PFs failed: %s", strerror(-r));
}

static int on_reload(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct manager *m = userdata;
	int r;

	if (!m->reload_pending)
		return 0;
	r = manager_reload(m);
	/* -EAGAIN: it waits for the host, and is tried again (reload.c) */
	if (r < 0 && r != -EAGAIN) {
		log_msg(LOG_ERR, "Reloading failed: %s", strerror(-r));
		/* the PFs left dirty while it was pending, with the layouts still in force */
		check_dirty(m);
	}
	return 0;
}

/* While a layout edit waits for its reload (or its reload for the host),
 * nothing is checked: the layouts read last are not applied yet, and a PF
 * that someone changes meanwhile is most likely being given the new layout
 * (sriovctl apply right after the edit). Repairing it back would undo that,
 * and for a VF count destroy the VFs twice. The reload, at most
 * RELOAD_SETTLE_MAX_USEC away (or once the host can be read), checks every
 * PF. */
static int on_coalesce(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct manager *m = userdata;
	int r;

	if (m->reload_pending) /* the PFs stay dirty */
		return 0;
	/* a reload that waits for the host is tried again at each look: the
	 * new layouts are applied, never judged as drift */
	if (!m->reload_waits) {
		check_dirty(m);
		return 0;
	}
	r = manager_reload_retry(m);
	if (r < 0 && r != -EAGAIN)
		log_msg(LOG_ERR, "Reloading failed: %s", strerror(-r));
	return 0;
}

static void arm(struct manager *m, sd_event_source **s, usec_t delay)
{
	uint64_t now;
	int r;

	if (*s) {
		int enabled = SD_EVENT_OFF;

		(void)sd_event_source_get_enabled(*s, &enabled);
		if (enabled != SD_EVENT_OFF)
			return; /* already due: coalesce */
		(void)sd_event_now(m->event, CLOCK_MONOTONIC, &now);
		(void)sd_event_source_set_time(*s, now + delay);
		(void)sd_event_source_set_enabled(*s, SD_EVENT_ONESHOT);
		return;
	}
	/* accuracy 1 µs: the default (250 ms) would make drift that late */
	r = sd_event_add_time_relative(m->event, s, CLOCK_MONOTONIC, delay, 1, on_coalesce, m);
	if (r < 0)
		log_msg(LOG_ERR, "Cannot schedule a check: %s", strerror(-r));
	else
		(void)sd_event_source_set_enabled(*s, SD_EVENT_ONESHOT);
}

void manager_mark_dirty(struct manager *m, const char *pci)
{
	struct pf_entry *e = pci ? manager_find_entry(m, pci) : NULL;

	if (e)
		e->dirty = true;
	else
		m->rescan_all = true; /* everything, or a PF not seen before */
	arm(m, &m->schedule->coalesce, COALESCE_USEC);
}

void manager_mark_reload(struct manager *m)
{
	struct schedule *s = m->schedule;
	uint64_t now = 0, due;
	int r = 0;

	(void)sd_event_now(m->event, CLOCK_MONOTONIC, &now);
	if (!m->reload_pending)
		s->reload_first = now;
	m->reload_pending = true;
	due = now + RELOAD_SETTLE_USEC;
	if (due > s->reload_first + RELOAD_SETTLE_MAX_USEC)
		due = s->reload_first + RELOAD_SETTLE_MAX_USEC;
	if (!s->reload_timer)
		r = sd_event_add_time(m->event, &s->reload_timer, CLOCK_MONOTONIC, due, 1,
				      on_reload, m);
	else
		r = sd_event_source_set_time(s->reload_timer, due);
	if (r >= 0)
		r = sd_event_source_set_enabled(s->reload_timer, SD_EVENT_ONESHOT);
	if (r < 0)
		log_msg(LOG_ERR, "Cannot schedule a reload: %s", strerror(-r));
}

/* [Drift] SafetyScanSec=: a full look now and then, besides the events. */
static int on_safety_scan(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct manager *m = userdata;

	manager_mark_dirty(m, NULL);
	(void)sd_event_source_set_time_relative(s, m->conf.safety_scan);
	return sd_event_source_set_enabled(s, SD_EVENT_ON);
}

/* The timer as the configuration read last says: off, or due one interval
 * from now (also after a reload that changed it). */
static int arm_safety_scan(struct manager *m)
{
	struct schedule *s = m->schedule;
	int r;

	if (m->conf.safety_scan == 0) {
		s->safety_scan = sd_event_source_disable_unref(s->safety_scan);
		return 0;
	}
	if (!s->safety_scan)
		return sd_event_add_time_relative(m->event, &s->safety_scan, CLOCK_MONOTONIC,
						  m->conf.safety_scan, USEC_PER_SEC, on_safety_scan,
						  m);
	r = sd_event_source_set_time_relative(s->safety_scan, m->conf.safety_scan);
	if (r < 0)
		return r;
	return sd_event_source_set_enabled(s->safety_scan, SD_EVENT_ON);
}

static void on_event(struct manager *m, const struct manager_event *ev, void *userdata)
{
	int r;

	if (ev->type != MANAGER_CONFIG_LOADED)
		return;
	r = arm_safety_scan(m);
	if (r < 0)
		log_msg(LOG_ERR, "Cannot schedule the safety scan: %s", strerror(-r));
}

int schedule_new(struct manager *m)
{
	m->schedule = calloc(1, sizeof(*m->schedule));
	if (!m->schedule)
		return -ENOMEM;
	return manager_observe(m, on_event, NULL);
}

struct schedule *schedule_free(struct schedule *s)
{
	if (!s)
		return NULL;
	sd_event_source_unref(s->coalesce);
	sd_event_source_unref(s->reload_timer);
	sd_event_source_unref(s->safety_scan);
	free(s);
	return NULL;
}
