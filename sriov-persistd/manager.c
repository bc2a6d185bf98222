/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* The manager's state: configuration, the cached host, one entry per PF,
 * coalescing of events, and the JSON documents of Plan() and GetStatus(). */

#include <syslog.h>
#include <systemd/sd-daemon.h>
#include <systemd/sd-id128.h>

#include "apply.h"
#include "host-linux.h"
#include "host-sim.h"
#include "host-view.h"
#include "json-util.h"
#include "manager.h"
#include "report.h"

#define COALESCE_USEC (20 * USEC_PER_MSEC)
/* editors write a file in several steps; wait for the last one */
/* Layout edits are applied once the files have been quiet this long, so that
 * an editor's or a configuration manager's burst of writes (a file moved out
 * and back, written in several steps) is one change, never a half-done one;
 * a stream of writes that never pauses is read after RELOAD_SETTLE_MAX_USEC. */
#define RELOAD_SETTLE_USEC (500 * USEC_PER_MSEC)
#define RELOAD_SETTLE_MAX_USEC (5 * USEC_PER_SEC)

static const char *const pf_run_state_names[_PF_RUN_STATE_MAX] = {
	[PF_RUN_UNCONFIGURED] = "unconfigured",
	[PF_RUN_PENDING] = "pending",
	[PF_RUN_APPLYING] = "applying",
	[PF_RUN_APPLIED] = "applied",
	[PF_RUN_DRIFTED] = "drifted",
	[PF_RUN_HELD] = "held",
	[PF_RUN_FAILED] = "failed",
	[PF_RUN_DEFERRED] = "deferred",
	[PF_RUN_DEGRADED] = "degraded",
};

static const char *const manager_state_names[_MANAGER_STATE_MAX] = {
	[MANAGER_IDLE] = "idle",	 [MANAGER_APPLYING] = "applying",
	[MANAGER_DRAINING] = "draining", [MANAGER_REBOOTING] = "rebooting",
	[MANAGER_DEGRADED] = "degraded",
};

DEFINE_STRING_TABLE_TO(pf_run_state, enum pf_run_state, pf_run_state_names)

DEFINE_STRING_TABLE_TO(manager_state, enum manager_state, manager_state_names)

int manager_new(struct manager **ret)
{
	struct manager *m = calloc(1, sizeof(*m));
	sd_id128_t boot;
	int r;

	if (!m)
		return -ENOMEM;
	r = mainconf_init(&m->conf);
	if (r >= 0)
		r = sd_event_default(&m->event);
	if (r < 0) {
		manager_free(m);
		return r;
	}
	if (sd_id128_get_boot(&boot) >= 0)
		sd_id128_to_string(boot, m->boot_id);
	*ret = m;
	return 0;
}

static struct pf_entry *entry_free(struct pf_entry *e)
{
	if (!e)
		return NULL;
	free(e->path);
	free(e->name);
	free(e->last_error);
	strv_free(e->config_files);
	strv_free(e->drift);
	strv_free(e->reboot_reasons);
	free(e->given_up);
	free(e->plan_sig);
	free(e->published);
	strv_free(e->resources_wanted);
	strv_free(e->resources_running);
	free(e);
	return NULL;
}

struct manager *manager_free(struct manager *m)
{
	if (!m)
		return NULL;
	manager_events_free(m->events);
	operation_free(m->op);
	operation_free(m->op_saved);
	strv_free(m->drain_wanted);
	free(m->reboot_tried);
	free(m->dp_vf_sig);
	free(m->annotated);
	free(m->annotate_next);
	sd_event_source_unref(m->annotate_timer);
	sd_event_source_unref(m->coalesce);
	sd_event_source_unref(m->reload_timer);
	sd_event_source_unref(m->safety_scan);
	for (size_t i = 0; i < m->n_pfs; i++)
		entry_free(m->pfs[i]);
	free(m->pfs);
	manager_bus_calls_free(m);
	sd_bus_flush_close_unref(m->bus);
	sd_event_unref(m->event);
	host_free(m->host);
	host_state_free(m->hs);
	layout_set_free(m->set);
	strv_free(m->config_errors);
	mainconf_done(&m->conf);
	reboot_record_done(&m->reboot);
	free(m->published);
	free(m->runtime_dir);
	free(m->state_dir);
	free(m);
	return NULL;
}

struct pf_entry *manager_find_entry(struct manager *m, const char *pci)
{
	for (size_t i = 0; i < m->n_pfs; i++)
		if (streq(m->pfs[i]->pci, pci))
			return m->pfs[i];
	return NULL;
}

const char *manager_pf_of_pci(struct manager *m, const char *pci)
{
	for (size_t i = 0; m->hs && i < m->hs->n_pfs; i++) {
		const struct pf_state *pf = &m->hs->pfs[i];

		if (streq(pf->pci, pci))
			return pf->pci;
		for (size_t k = 0; k < pf->n_vfs; k++)
			if (streq(pf->vfs[k].pci, pci))
				return pf->pci;
	}
	return NULL;
}

const char *manager_pf_of_ifname(struct manager *m, const char *ifname)
{
	for (size_t i = 0; m->hs && i < m->hs->n_pfs; i++) {
		const struct pf_state *pf = &m->hs->pfs[i];

		if (streq_ptr(pf->name, ifname))
			return pf->pci;
		for (size_t k = 0; k < pf->n_vfs; k++)
			if (streq_ptr(pf->vfs[k].name, ifname))
				return pf->pci;
	}
	return NULL;
}

static int on_reload(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct manager *m = userdata;
	int r;

	if (!m->reload_pending)
		return 0;
	r = manager_reload(m);
	if (r < 0)
		log_msg(LOG_ERR, "Reloading failed: %s", strerror(-r));
	return 0;
}

/* Until a reload, the layouts read last stay in force: a PF that changes
 * meanwhile is checked against them. */
static int on_coalesce(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct manager *m = userdata;
	int r;

	r = manager_check_dirty(m);
	if (r < 0)
		log_msg(LOG_ERR, "Checking the PFs failed: %s", strerror(-r));
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
	arm(m, &m->coalesce, COALESCE_USEC);
}

void manager_mark_reload(struct manager *m)
{
	uint64_t now = 0, due;
	int r = 0;

	(void)sd_event_now(m->event, CLOCK_MONOTONIC, &now);
	if (!m->reload_pending)
		m->reload_first = now;
	m->reload_pending = true;
	due = now + RELOAD_SETTLE_USEC;
	if (due > m->reload_first + RELOAD_SETTLE_MAX_USEC)
		due = m->reload_first + RELOAD_SETTLE_MAX_USEC;
	if (!m->reload_timer)
		r = sd_event_add_time(m->event, &m->reload_timer, CLOCK_MONOTONIC, due, 1,
				      on_reload, m);
	else
		r = sd_event_source_set_time(m->reload_timer, due);
	if (r >= 0)
		r = sd_event_source_set_enabled(m->reload_timer, SD_EVENT_ONESHOT);
	if (r < 0)
		log_msg(LOG_ERR, "Cannot schedule a reload: %s", strerror(-r));
}

static int entry_new(struct manager *m, const struct pf_state *pf, struct pf_entry **ret)
{
	struct pf_entry *e = calloc(1, sizeof(*e)), **n;
	int r;

	if (!e)
		return -ENOMEM;
	snprintf(e->pci, sizeof(e->pci), "%s", pf->pci);
	r = sd_bus_path_encode("/org/sriovpersist1/pf", pf->pci, &e->path);
	if (r < 0) {
		entry_free(e);
		return r;
	}
	n = reallocarray(m->pfs, m->n_pfs + 1, sizeof(*n));
	if (!n) {
		entry_free(e);
		return -ENOMEM;
	}
	m->pfs = n;
	m->pfs[m->n_pfs++] = e;
	e->num_vfs = pf->num_vfs;
	e->desired_vfs = pf->num_vfs;
	e->dirty = true;
	/* one that appears while we run (hotplug) is the udev path's to apply */
	e->lost = m->events ? now_realtime() : 0;
	*ret = e;
	return 0;
}

/* One entry per PF of the cached host: new PFs get one (and an object on the
 * bus), PFs that are gone lose theirs. */
static int sync_entries(struct manager *m)
{
	for (size_t i = 0; i < m->hs->n_pfs; i++) {
		struct pf_entry *e;
		int r;

		if (manager_find_entry(m, m->hs->pfs[i].pci))
			continue;
		r = entry_new(m, &m->hs->pfs[i], &e);
		if (r < 0)
			return r;
		manager_bus_pf_added(m, e);
	}
	for (size_t i = 0; i < m->n_pfs;) {
		struct pf_entry *e = m->pfs[i];

		if (host_state_find_pf(m->hs, e->pci)) {
			i++;
			continue;
		}
		log_pf(LOG_INFO, e->pci, "%s: gone", e->pci);
		manager_bus_pf_removed(m, e->path);
		entry_free(e);
		memmove(&m->pfs[i], &m->pfs[i + 1], (m->n_pfs - i - 1) * sizeof(*m->pfs));
		m->n_pfs--;
	}
	return 0;
}

static int cmp_pf(const void *a, const void *b)
{
	return strcmp(((const struct pf_state *)a)->pci, ((const struct pf_state *)b)->pci);
}

/* fresh takes the other PFs of the old cache, by move. */
static int merge_one(struct host_state *old, struct host_state *fresh, const char *only)
{
	struct pf_state *n;

	n = reallocarray(fresh->pfs, fresh->n_pfs + old->n_pfs, sizeof(*n));
	if (!n)
		return -ENOMEM;
	fresh->pfs = n;
	for (size_t i = 0; i < old->n_pfs; i++) {
		if (streq(old->pfs[i].pci, only))
			continue;
		fresh->pfs[fresh->n_pfs++] = old->pfs[i];
		old->pfs[i] = (struct pf_state){};
	}
	qsort(fresh->pfs, fresh->n_pfs, sizeof(*fresh->pfs), cmp_pf);
	return 0;
}

int manager_update_cache(struct manager *m, struct host_state *fresh, const char *only)
{
	int r;

	if (only && m->hs) {
		r = merge_one(m->hs, fresh, only);
		if (r < 0) {
			host_state_free(fresh);
			return r;
		}
	}
	host_state_free(m->hs);
	m->hs = fresh;
	return sync_entries(m);
}

static int collect_errors(struct manager *m, const struct diag_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		if (l->items[i].level != DIAG_ERROR)
			continue;
		if (strv_consume(&m->config_errors, diag_format(&l->items[i])) < 0)
			return -ENOMEM;
	}
	return 0;
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
	int r;

	if (m->conf.safety_scan == 0) {
		m->safety_scan = sd_event_source_disable_unref(m->safety_scan);
		return 0;
	}
	if (!m->safety_scan)
		return sd_event_add_time_relative(m->event, &m->safety_scan, CLOCK_MONOTONIC,
						  m->conf.safety_scan, USEC_PER_SEC, on_safety_scan,
						  m);
	r = sd_event_source_set_time_relative(m->safety_scan, m->conf.safety_scan);
	if (r < 0)
		return r;
	return sd_event_source_set_enabled(m->safety_scan, SD_EVENT_ON);
}

int manager_load_config(struct manager *m)
{
	const char *const dirs[] = { m->config_dir, NULL };
	_cleanup_layout_set_ struct layout_set *set = NULL;
	struct diag_list diags = {};
	struct mainconf conf;
	int r;

	r = mainconf_load(m->main_config, &conf, &diags);
	if (r < 0) {
		diag_list_done(&diags);
		return r;
	}
	r = layout_set_load(m->config_dir ? dirs : NULL, &set);
	if (r < 0) {
		mainconf_done(&conf);
		diag_list_done(&diags);
		return r;
	}
	for (size_t i = 0; i < diags.n; i++) {
		_cleanup_free_ char *s = diag_format(&diags.items[i]);

		log_msg(diags.items[i].level == DIAG_ERROR ? LOG_ERR : LOG_WARNING, "%s", strna(s));
	}
	for (size_t i = 0; i < set->diags.n; i++) {
		_cleanup_free_ char *s = diag_format(&set->diags.items[i]);

		log_msg(set->diags.items[i].level == DIAG_ERROR ? LOG_ERR : LOG_WARNING, "%s",
			strna(s));
	}
	m->config_errors = strv_free(m->config_errors);
	m->config_errors = calloc(1, sizeof(char *));
	r = m->config_errors ? collect_errors(m, &diags) : -ENOMEM;
	/* A main configuration with an error cannot say which policy it meant:
	 * nothing is applied until it is fixed (sriovctl apply refuses too). */
	m->main_broken = diag_count(&diags, DIAG_ERROR) > 0;
	if (r >= 0)
		r = collect_errors(m, &set->diags);
	diag_list_done(&diags);
	if (r < 0) {
		mainconf_done(&conf);
		return r;
	}
	mainconf_done(&m->conf);
	m->conf = conf;
	layout_set_free(m->set);
	m->set = TAKE_PTR(set);
	return arm_safety_scan(m);
}

static int open_host(struct manager *m)
{
	int r;

	if (m->host_path)
		r = host_sim_open(m->host_path, &m->host);
	else
		r = host_linux_open(NULL, &m->host);
	if (r < 0)
		log_msg(LOG_ERR, "Cannot open %s: %s",
			m->host_path ?: "this host's sysfs and netlink", strerror(-r));
	return r;
}

static int load_reboot(struct manager *m)
{
	int r = reboot_record_read(m->state_dir, &m->reboot);

	if (r == -ENOENT)
		return 0;
	if (r < 0)
		log_msg(LOG_WARNING, "%s/reboot.json: %s; starting without it", m->state_dir,
			strerror(-r));
	return 0;
}

/* What failed and is not retried on its own (pf_entry.given_up) outlives a
 * restart of the daemon in the same boot: an upgrade must not start the drain
 * that failed an hour ago again. A reboot, a changed plan, Apply() or a reload
 * retry it. */
#define GIVEN_UP_FILE "given-up.json"

int manager_save_given_up(struct manager *m)
{
	_cleanup_json_ struct json_object *doc = json_object_new_object();
	struct json_object *pfs = json_object_new_object();
	_cleanup_free_ char *path = NULL;
	size_t n = 0;
	int r;

	if (!doc || !pfs || json_object_object_add(doc, "pfs", pfs) < 0) {
		json_object_put(pfs);
		return -ENOMEM;
	}
	for (size_t i = 0; i < m->n_pfs; i++) {
		if (!m->pfs[i]->given_up)
			continue;
		if (json_object_object_add(pfs, m->pfs[i]->pci,
					   json_object_new_string(m->pfs[i]->given_up)) < 0)
			return -ENOMEM;
		n++;
	}
	if (n == 0) {
		path = strdup_printf("%s/%s", m->state_dir, GIVEN_UP_FILE);
		if (!path)
			return -ENOMEM;
		return unlink(path) < 0 && errno != ENOENT ? -errno : 0;
	}
	if (json_object_object_add(doc, "boot_id", json_object_new_string(manager_boot_id(m))) < 0)
		return -ENOMEM;
	r = mkdir_owned(m->state_dir, 0755);
	if (r >= 0)
		r = write_file_atomic(m->state_dir, GIVEN_UP_FILE,
				      json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PLAIN),
				      0644);
	if (r < 0)
		log_msg(LOG_WARNING, "Writing %s/%s failed: %s; a restart retries what failed",
			m->state_dir, GIVEN_UP_FILE, strerror(-r));
	return r;
}

/* Read once at start, then gone: only this boot's, only for PFs still here. */
static void load_given_up(struct manager *m)
{
	_cleanup_free_ char *path = strdup_printf("%s/%s", m->state_dir, GIVEN_UP_FILE);
	_cleanup_free_ char *text = NULL;
	_cleanup_json_ struct json_object *doc = NULL;
	struct json_object *pfs, *boot;

	if (!path || read_file(path, &text) < 0)
		return;
	(void)unlink(path);
	doc = json_tokener_parse(text);
	if (!json_object_object_get_ex(doc, "boot_id", &boot) ||
	    !streq_ptr(json_object_get_string(boot), manager_boot_id(m)) ||
	    !json_object_object_get_ex(doc, "pfs", &pfs) ||
	    !json_object_is_type(pfs, json_type_object))
		return;
	json_object_object_foreach(pfs, pci, sig)
	{
		struct pf_entry *e = manager_find_entry(m, pci);

		if (e && json_object_is_type(sig, json_type_string)) {
			free(e->given_up);
			e->given_up = strdup(json_object_get_string(sig));
		}
	}
}

int manager_start(struct manager *m)
{
	_cleanup_host_state_ struct host_state *hs = NULL;
	int r;

	r = open_host(m);
	if (r < 0)
		return r;
	r = manager_load_config(m);
	if (r < 0) {
		log_msg(LOG_ERR, "Loading the configuration failed: %s", strerror(-r));
		return r;
	}
	r = host_read(m->host, &hs);
	if (r < 0) {
		log_msg(LOG_ERR, "Reading the host failed: %s%s%s", strerror(-r),
			m->host->error[0] ? ": " : "", m->host->error);
		return r;
	}
	load_reboot(m);
	r = manager_bus_start(m);
	if (r < 0)
		return r;
	r = manager_update_cache(m, TAKE_PTR(hs), NULL);
	if (r < 0)
		return r;
	load_given_up(m);
	r = manager_events_start(m);
	if (r < 0)
		return r;
	k8s_load(m);
	m->starting = true;
	r = manager_check_dirty(m);
	m->starting = false;
	if (r < 0)
		return r;
	/* after the first check: what a crash or the reboot left to finish */
	k8s_start(m);
	return 0;
}

char **manager_reboot_reasons(const struct manager *m)
{
	char **l = calloc(m->reboot.n_reasons + 1, sizeof(char *));

	for (size_t i = 0; l && i < m->reboot.n_reasons; i++)
		if (!(l[i] = strdup_printf("%s: %s", m->reboot.reasons[i].pci,
					   m->reboot.reasons[i].text)))
			return strv_free(l);
	return l;
}

static int view_doc(struct manager *m, bool status, char **ret)
{
	_cleanup_host_state_ struct host_state *hs = NULL;
	_cleanup_json_ struct json_object *o = NULL;
	struct host_view v;
	int r;

	/* a fresh read: the documents say how the host is now */
	r = host_read(m->host, &hs);
	if (r < 0)
		return r;
	r = host_view_build(hs, m->set, NULL, &v);
	if (r < 0)
		return r;
	r = status ? report_status(&v, m->runtime_dir, m->state_dir, true, &o) :
		     report_plan(&v, &o);
	host_view_done(&v);
	if (r < 0)
		return r;
	if (status) {
		struct json_object *d = json_object_new_object(), *a;

		if (!d)
			return -ENOMEM;
		json_object_object_add(o, "daemon", d);
		json_object_object_add(d, "version", json_object_new_string(VERSION));
		json_object_object_add(d, "state",
				       json_object_new_string(manager_state_to_string(m->state)));
		json_object_object_add(d, "drifted", json_object_new_boolean(m->drifted));
		_cleanup_strv_free_ char **reasons = manager_reboot_reasons(m);

		if (!reasons)
			return -ENOMEM;
		a = json_object_new_array();
		for (char **p = reasons; *p; p++)
			json_object_array_add(a, json_object_new_string(*p));
		json_object_object_add(d, "pending_reboot_reasons", a);
		a = json_object_new_array();
		for (char **e = m->config_errors; e && *e; e++)
			json_object_array_add(a, json_object_new_string(*e));
		json_object_object_add(d, "config_errors", a);
		json_object_object_add(d, "operation", k8s_operation_json(m));
	}
	*ret = strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
								JSON_C_TO_STRING_SPACED |
								JSON_C_TO_STRING_NOSLASHESCAPE));
	return *ret ? 0 : -ENOMEM;
}

int manager_plan_json(struct manager *m, char **ret)
{
	return view_doc(m, false, ret);
}

int manager_status_json(struct manager *m, char **ret)
{
	return view_doc(m, true, ret);
}
