/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* The core: configuration, the cached host, one entry per PF, the
 * observers, and what outlives a restart (pending reboots, given-up plans). */

#include <syslog.h>
#include <systemd/sd-id128.h>
#include <unistd.h>

#include "deferred-drift.h"
#include "desired.h"
#include "host-linux.h"
#include "host-sim.h"
#include "host-view.h"
#include "json-util.h"
#include "layout-rules.h"
#include "manager.h"
#include "status.h"

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
	key_settings_done(&e->settings);
	strv_free(e->drift);
	strv_free(e->changed_from);
	deferred_base_free(e->deferred_base);
	strv_free(e->reboot_reasons);
	free(e->given_up);
	free(e->firmware_stuck);
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
	for (size_t i = 0; i < m->n_pfs; i++)
		entry_free(m->pfs[i]);
	free(m->pfs);
	free(m->observers);
	udev_unref(m->udev);
	sd_event_source_unref(m->reload_retry);
	free(m->host_error);
	sd_event_unref(m->event);
	host_free(m->host);
	host_state_free(m->hs);
	layout_set_free(m->set);
	layout_set_free(m->reload_from);
	strv_free(m->config_errors);
	mainconf_done(&m->conf);
	reboot_record_done(&m->reboot);
	free(m->reboot_failed);
	free(m->runtime_dir);
	free(m->state_dir);
	free(m);
	return NULL;
}

int manager_observe(struct manager *m, manager_observer_t fn, void *userdata)
{
	struct manager_observer *o;

	o = reallocarray(m->observers, m->n_observers + 1, sizeof(*o));
	if (!o)
		return -ENOMEM;
	m->observers = o;
	m->observers[m->n_observers++] = (struct manager_observer){ fn, userdata };
	return 0;
}

/* In the order they registered. */
void manager_publish(struct manager *m, const struct manager_event *ev)
{
	for (size_t i = 0; i < m->n_observers; i++)
		m->observers[i].fn(m, ev, m->observers[i].userdata);
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

void manager_view_appeared(struct manager *m, struct host_view *v)
{
	for (size_t i = 0; i < v->n_pfs; i++) {
		const struct pf_entry *e = manager_find_entry(m, v->pfs[i].pf->pci);

		struct pf_status st;

		v->pfs[i].appeared = e && e->lost;
		if (!v->pfs[i].appeared || pf_status_read(m->runtime_dir, e->pci, &st) < 0)
			continue;
		v->pfs[i].returned = st.finished < e->lost;
		pf_status_done(&st);
	}
}

static int entry_new(struct manager *m, const struct pf_state *pf, struct pf_entry **ret)
{
	struct pf_entry *e = calloc(1, sizeof(*e)), **n;

	if (!e)
		return -ENOMEM;
	snprintf(e->pci, sizeof(e->pci), "%s", pf->pci);
	e->manager = m;
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
	e->lost = m->watching ? now_realtime() : 0;
	*ret = e;
	return 0;
}

/* A PF that appeared while we run, with its status record when it has one
 * (it was here before, gone, and came back). */
static void log_pf_coming(struct manager *m, const struct pf_state *pf)
{
	struct pf_status st;
	bool had = pf_status_read(m->runtime_dir, pf->pci, &st) >= 0;

	if (had)
		pf_status_done(&st);
	log_pf(LOG_INFO, pf->pci, "%s%s%s%s: %s", pf->pci, pf->name ? " (" : "", strempty(pf->name),
	       pf->name ? ")" : "",
	       had ? "on the host again (hotplug); its status record is of before it went" :
		     "appeared on the host (hotplug)");
}

/* A PF gone from the host, with what to do of its status record when it
 * has one: it stays (status says "gone") until the PF comes back or a
 * reset drops it. */
static void log_pf_going(struct manager *m, const struct pf_entry *e)
{
	struct pf_status st;
	bool had = pf_status_read(m->runtime_dir, e->pci, &st) >= 0;

	if (had) {
		pf_status_done(&st);
		log_pf(LOG_INFO, e->pci,
		       "%s%s%s%s: gone from the host; its status record stays until it comes "
		       "back, or \"sriovctl reset %s\" drops it",
		       e->pci, e->name ? " (" : "", strempty(e->name), e->name ? ")" : "", e->pci);
	} else
		log_pf(LOG_INFO, e->pci, "%s%s%s%s: gone from the host", e->pci,
		       e->name ? " (" : "", strempty(e->name), e->name ? ")" : "");
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
		if (e->lost)
			log_pf_coming(m, &m->hs->pfs[i]);
		manager_notify(m, MANAGER_PF_ADDED, .pf = e);
	}
	for (size_t i = 0; i < m->n_pfs;) {
		struct pf_entry *e = m->pfs[i];

		if (host_state_find_pf(m->hs, e->pci)) {
			i++;
			continue;
		}
		log_pf_going(m, e);
		manager_notify(m, MANAGER_PF_REMOVED, .path = e->path);
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

/* fresh takes the other PFs of the old cache, by move: those it does not
 * have (an apply that reads the whole host, as for a literal MAC or a
 * ResourceName=, gives every PF fresh). */
static int merge_one(struct host_state *old, struct host_state *fresh, const char *only)
{
	struct pf_state *n;

	n = reallocarray(fresh->pfs, fresh->n_pfs + old->n_pfs, sizeof(*n));
	if (!n)
		return -ENOMEM;
	fresh->pfs = n;
	for (size_t i = 0; i < old->n_pfs; i++) {
		if (streq(old->pfs[i].pci, only) || host_state_find_pf(fresh, old->pfs[i].pci))
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

	/* VFs an apply killed mid-way left on no driver, from the record */
	r = host_state_mark_created(m->state_dir, fresh);
	if (r >= 0 && only && m->hs)
		r = merge_one(m->hs, fresh, only);
	if (r < 0) {
		host_state_free(fresh);
		return r;
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

static void log_diags(const struct diag_list *diags)
{
	for (size_t i = 0; i < diags->n; i++) {
		_cleanup_free_ char *s = diag_format(&diags->items[i]);

		log_msg(diags->items[i].level == DIAG_ERROR ? LOG_ERR : LOG_WARNING, "%s",
			strna(s));
	}
}

/* m->config_errors from both lists: the main configuration's, then the
 * layouts'. A main configuration with an error cannot say which policy it
 * meant: nothing is applied until it is fixed (sriovctl apply refuses
 * too). -ENOMEM. */
static int note_errors(struct manager *m, const struct diag_list *main_diags,
		       const struct diag_list *layout_diags)
{
	int r;

	m->config_errors = strv_free(m->config_errors);
	m->config_errors = calloc(1, sizeof(char *));
	r = m->config_errors ? collect_errors(m, main_diags) : -ENOMEM;
	m->main_broken = diag_count(main_diags, DIAG_ERROR) > 0;
	if (r >= 0)
		r = collect_errors(m, layout_diags);
	return r;
}

/* The layouts' diagnostics as sriovctl check without --host says them: the
 * parser's, then those of the rules that need only the files
 * (layout_rules_check_set()), each file's in line order. -ENOMEM. */
static int file_diags(const struct layout_set *set, struct diag_list *ret)
{
	struct diag_list l = {};
	int r = 0;

	for (size_t i = 0; r >= 0 && i < set->diags.n; i++) {
		const struct diag *d = &set->diags.items[i];

		r = diag_add(&l, d->level, d->file, d->line, "%s", d->msg);
	}
	if (r >= 0)
		r = layout_rules_check_set(set, &l);
	if (r >= 0)
		r = diag_list_sort_by_line(&l);
	if (r < 0) {
		diag_list_done(&l);
		return r;
	}
	*ret = l;
	return 0;
}

int manager_load_config(struct manager *m)
{
	_cleanup_layout_set_ struct layout_set *set = NULL;
	struct diag_list diags = {}, files = {};
	struct mainconf conf;
	int r;

	r = mainconf_load(m->main_config, &conf, &diags);
	if (r >= 0) {
		r = layout_set_load_dir(m->config_dir, &set);
		/* the other managers' files, read again with the layouts */
		if (r >= 0)
			r = layout_set_load_others(set, NULL);
		if (r >= 0)
			r = diag_list_sort_by_line(&diags);
		if (r >= 0)
			r = file_diags(set, &files);
		if (r < 0)
			mainconf_done(&conf);
	}
	if (r >= 0) {
		log_diags(&diags);
		log_diags(&files);
		r = note_errors(m, &diags, &files);
		if (r < 0)
			mainconf_done(&conf);
	}
	diag_list_done(&diags);
	diag_list_done(&files);
	if (r < 0)
		return r;
	mainconf_done(&m->conf);
	m->conf = conf;
	layout_set_use_mainconf(set, &m->conf);
	/* Plan() and GetStatus() hold the PFs as sriovctl plan does */
	if (m->main_broken && m->config_errors[0]) {
		r = layout_set_main_broken(set, m->config_errors[0]);
		if (r < 0)
			return r;
	}
	layout_set_free(m->set);
	m->set = TAKE_PTR(set);
	manager_notify(m, MANAGER_CONFIG_LOADED);
	return 0;
}

void manager_log_unselected(struct manager *m)
{
	struct diag_list diags = {};

	if (m->set && m->hs && desired_unselected(m->set, m->hs, &diags, NULL, NULL) >= 0)
		for (size_t i = 0; i < diags.n; i++) {
			_cleanup_free_ char *s = diag_format(&diags.items[i]);

			log_msg(LOG_WARNING, "%s", strna(s));
		}
	diag_list_done(&diags);
}

int manager_open_host(struct manager *m)
{
	char error[HOST_ERROR_MAX] = "";
	int r;

	if (m->host_path)
		r = host_sim_open(m->host_path, &m->host, error);
	else
		r = host_linux_open(NULL, &m->host);
	if (r < 0 && error[0])
		log_msg(LOG_ERR, "%s", error);
	else if (r < 0)
		log_msg(LOG_ERR, "Cannot open %s: %s",
			m->host_path ?: "this host's sysfs and netlink", read_strerror(r));
	return r;
}

void manager_load_reboot(struct manager *m)
{
	int r = reboot_record_read(m->state_dir, &m->reboot);

	if (r < 0 && r != -ENOENT)
		log_msg(LOG_WARNING, "%s/reboot.json: %s; starting without it", m->state_dir,
			read_strerror(r));
}

/* What failed and is not retried on its own (pf_entry.given_up, and a
 * reboot for the pending reboot reasons that failed: manager.reboot_failed)
 * outlives a restart of the daemon in the same boot: an upgrade must not
 * start the drain or the reboot that failed an hour ago again. A reboot, a
 * changed plan, Apply() or a reload retry a PF's; other reasons or Apply() a
 * reboot. */
#define GIVEN_UP_FILE "given-up.json"

/* What a failure may have come from beside the plan: the daemon's options,
 * whether k8s-notify can be run (not its version: an upgrade must not retry)
 * and the main configuration. A restart with others tries again what failed
 * (as a reload does), so that a PF never shows why an earlier setup failed. */
static char *daemon_setup(const struct manager *m)
{
	_cleanup_free_ char *conf = mainconf_format(&m->conf);

	if (!conf)
		return NULL;
	return strdup_printf("k8s-notify=%s (%s)\nkubernetes=%s\n%s", strna(m->k8s_notify),
			     m->k8s_notify && access(m->k8s_notify, X_OK) >= 0 ? "runs" : "missing",
			     yes_no(mainconf_kubernetes_enabled(&m->conf)), conf);
}

/* The pending reboot reasons as one string, one per line; NULL for none. */
static char *reasons_joined(const struct manager *m)
{
	_cleanup_strv_free_ char **reasons = manager_reboot_reasons(m);

	return reasons && reasons[0] ? strv_join(reasons, "\n") : NULL;
}

/* doc["reboot_failed"]: the failure that stands, and the reasons it was
 * for. Returns 1 when added, 0 when none stands. */
static int reboot_failed_add(const struct manager *m, struct json_object *doc)
{
	_cleanup_free_ char *reasons = NULL;
	struct json_object *o;

	if (!m->reboot_failed)
		return 0;
	reasons = reasons_joined(m);
	if (!reasons) /* none pending (or no memory): nothing a reboot is tried for */
		return 0;
	o = json_object_new_object();
	if (!o || json_object_object_add(doc, "reboot_failed", o) < 0) {
		json_object_put(o);
		return -ENOMEM;
	}
	json_object_object_add(o, "error", json_object_new_string(m->reboot_failed));
	json_object_object_add(o, "at_usec", json_object_new_uint64(m->reboot_failed_at));
	json_object_object_add(o, "reasons", json_object_new_string(reasons));
	return 1;
}

/* The reboot that failed for the reasons that are pending now stands: State
 * degraded and the failure reported, and the restart does not try it again. */
static void reboot_failed_load(struct manager *m, struct json_object *doc, const char *path)
{
	_cleanup_free_ char *now = reasons_joined(m);
	struct json_object *o, *error, *at, *reasons;

	if (!json_object_object_get_ex(doc, "reboot_failed", &o) ||
	    !json_object_object_get_ex(o, "error", &error) ||
	    !json_object_object_get_ex(o, "at_usec", &at) ||
	    !json_object_object_get_ex(o, "reasons", &reasons) ||
	    !json_object_is_type(error, json_type_string) ||
	    !json_object_is_type(at, json_type_int))
		return;
	if (!streq_ptr(json_object_get_string(reasons), now)) {
		log_msg(LOG_INFO,
			"%s: the reboot that failed was for other pending reboot "
			"reasons than now; a reboot for these is made as the policy says",
			path);
		return;
	}
	free(m->reboot_failed);
	m->reboot_failed = strdup(json_object_get_string(error));
	m->reboot_failed_at = m->reboot_failed ? json_object_get_uint64(at) : 0;
	log_msg(LOG_NOTICE,
		"The reboot for the pending reboot reasons failed before this start: %s; not "
		"tried again by the restart (sriovctl apply tries it again)",
		json_object_get_string(error));
}

int manager_save_given_up(struct manager *m)
{
	_cleanup_json_ struct json_object *doc = json_object_new_object();
	struct json_object *pfs = json_object_new_object();
	_cleanup_free_ char *path = NULL, *setup = NULL;
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
	r = reboot_failed_add(m, doc);
	if (r < 0)
		return r;
	if (n == 0 && r == 0) {
		path = strdup_printf("%s/%s", m->state_dir, GIVEN_UP_FILE);
		if (!path)
			return -ENOMEM;
		if (unlink(path) < 0 && errno != ENOENT) {
			r = -errno;
			log_msg(LOG_WARNING,
				"Removing %s failed: %s; nothing failed now, but a start in this "
				"boot would take what the file says failed for failed still, and "
				"not try it again: remove it by hand",
				path, strerror(-r));
			return r;
		}
		return 0;
	}
	setup = daemon_setup(m);
	if (!setup ||
	    json_object_object_add(doc, "boot_id", json_object_new_string(manager_boot_id(m))) <
		    0 ||
	    json_object_object_add(doc, "setup", json_object_new_string(setup)) < 0)
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

/* given-up.json of another setup, forgotten: what that does at start. With
 * [Drift] Mode=repair what failed is tried again; Mode=report applies
 * nothing at start but a changed layout, so the PFs that failed wait for
 * sriovctl apply, while a reboot that failed is made as the policy says. */
static void given_up_forgotten(struct manager *m, const char *path, struct json_object *doc,
			       struct json_object *pfs)
{
	static const char was[] = "written by a daemon with other options or another main "
				  "configuration";
	_cleanup_strv_free_ char **here = NULL;
	_cleanup_free_ char *list = NULL, *waits = NULL;
	bool reboot = json_object_object_get_ex(doc, "reboot_failed", NULL);

	if (m->conf.drift_mode != DRIFT_MODE_REPORT) {
		log_msg(LOG_INFO, "%s: %s; what failed then is tried again", path, was);
		return;
	}
	json_object_object_foreach(pfs, pci, sig)
	{
		(void)sig;
		if (manager_find_entry(m, pci) && strv_extend(&here, pci) < 0)
			return;
	}
	list = here ? strv_join(here, ", ") : NULL;
	if (list) {
		bool one = !here[1];

		waits = strdup_printf(
			"what failed then on %s is not tried again at start, as [Drift] "
			"Mode=report in %s applies nothing at start but a changed "
			"layout: sriovctl apply%s%s tries %s again",
			list, m->set->drift_report_at, one ? " " : "", one ? here[0] : "",
			one ? "it" : "them");
	}
	if (here && !waits)
		return;
	log_msg(LOG_INFO, "%s: %s; %s%s%s", path, was,
		waits ?: (reboot ? "" : "what failed then is on no PF of the host now"),
		waits && reboot ? "; " : "",
		reboot ? "the reboot that failed then is made as [Reboot] Policy= says" : "");
}

/* Read once at start, then gone: only this boot's, only for PFs still here. */
void manager_load_given_up(struct manager *m)
{
	_cleanup_free_ char *path = strdup_printf("%s/%s", m->state_dir, GIVEN_UP_FILE);
	_cleanup_free_ char *text = NULL, *setup = daemon_setup(m);
	_cleanup_json_ struct json_object *doc = NULL;
	struct json_object *pfs, *boot, *was;
	int r;

	if (!path)
		return;
	r = read_file(path, &text);
	if (r < 0) {
		/* left where it is, for whoever looks: what failed is tried again */
		if (r != -ENOENT)
			log_msg(LOG_WARNING, "%s: %s; what failed is tried again", path,
				read_strerror(r));
		return;
	}
	(void)unlink(path);
	doc = json_tokener_parse(text);
	if (!json_object_object_get_ex(doc, "boot_id", &boot) ||
	    !streq_ptr(json_object_get_string(boot), manager_boot_id(m)) ||
	    !json_object_object_get_ex(doc, "pfs", &pfs) ||
	    !json_object_is_type(pfs, json_type_object))
		return;
	if (!json_object_object_get_ex(doc, "setup", &was) ||
	    !streq_ptr(json_object_get_string(was), setup)) {
		given_up_forgotten(m, path, doc, pfs);
		return;
	}
	reboot_failed_load(m, doc, path);
	json_object_object_foreach(pfs, pci, sig)
	{
		struct pf_entry *e = manager_find_entry(m, pci);

		if (e && json_object_is_type(sig, json_type_string)) {
			free(e->given_up);
			e->given_up = strdup(json_object_get_string(sig));
		}
	}
}

const char *manager_boot_id(const struct manager *m)
{
	if (m->hs && m->hs->boot_id[0])
		return m->hs->boot_id;
	return m->boot_id;
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
