/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* The D-Bus API (org.sriovpersist1(5)): org.sriovpersist1.Manager on
 * /org/sriovpersist1, one org.sriovpersist1.PhysicalFunction object per PF
 * below it, an object manager over both. Anyone may read; the methods that
 * change something check that the caller is root. */

#include <syslog.h>
#include <systemd/sd-daemon.h>

#include "apply.h"
#include "counters.h"
#include "events.h"
#include "host-error.h"
#include "host-view.h"
#include "json-util.h"
#include "k8s.h"
#include "manager-bus.h"
#include "manager-check.h"
#include "manager-summary.h"
#include "pf-shown.h"
#include "reload.h"
#include "report.h"

#define BUS_NAME "org.sriovpersist1"
#define MANAGER_PATH "/org/sriovpersist1"
#define PF_PREFIX "/org/sriovpersist1/pf"
#define MANAGER_IFACE "org.sriovpersist1.Manager"
#define PF_IFACE "org.sriovpersist1.PhysicalFunction"
#define ERROR_NO_SUCH_PF "org.sriovpersist1.Error.NoSuchPF"
#define ERROR_NOT_RESET "org.sriovpersist1.Error.NotReset"
#define ERROR_NOT_APPLIED "org.sriovpersist1.Error.NotApplied"
#define ERROR_MAIN_CONFIG "org.sriovpersist1.Error.MainConfigErrors"

struct pending_call;

struct manager_bus {
	/* Apply() and Reset() calls that wait for PFs another process was
	 * applying: after each check, those PFs whose lock is free are applied
	 * (or reset) and a call whose PFs are all done is answered. */
	struct pending_call **calls;
	size_t n_calls;
	sd_event_source *calls_timer;
	char *published; /* the manager's properties last announced */
};

static void resume_calls(struct manager *m);

static int check_root(sd_bus_message *msg, sd_bus_error *error)
{
	sd_bus_creds *creds = NULL;
	uid_t euid = (uid_t)-1;
	pid_t pid = 0;
	int r;

	r = sd_bus_query_sender_creds(
		msg, SD_BUS_CREDS_EUID | SD_BUS_CREDS_PID | SD_BUS_CREDS_AUGMENT, &creds);
	if (r >= 0) {
		r = sd_bus_creds_get_euid(creds, &euid);
		(void)sd_bus_creds_get_pid(creds, &pid);
	}
	sd_bus_creds_unref(creds);
	if (r >= 0 && euid == 0)
		return 0;
	log_msg(LOG_NOTICE, "Refused %s() from %s (uid %d, pid %d): not root",
		sd_bus_message_get_member(msg), strna(sd_bus_message_get_sender(msg)),
		euid == (uid_t)-1 ? -1 : (int)euid, (int)pid);
	return sd_bus_error_set(error, SD_BUS_ERROR_ACCESS_DENIED,
				"Only root may change the SR-IOV layout of this host");
}

static int method_reload(sd_bus_message *msg, void *userdata, sd_bus_error *error)
{
	struct manager *m = userdata;
	int r;

	r = check_root(msg, error);
	if (r < 0)
		return r;
	r = manager_reload(m);
	if (r < 0)
		return sd_bus_error_set_errnof(error, -r, "%s", manager_reload_why(m, r));
	return sd_bus_reply_method_return(msg, NULL);
}

static int on_calls_timer(sd_event_source *s, uint64_t usec, void *userdata)
{
	resume_calls(userdata);
	return 0;
}

/* Waiting calls are looked at again every second too: a lock given up
 * without a record written (sriovctl on a PF no layout selects, a writer
 * that was stuck in the kernel) is no event. */
static void arm_calls_timer(struct manager *m)
{
	struct manager_bus *b = m->bus_state;
	int r;

	if (b->calls_timer)
		r = sd_event_source_set_time_relative(b->calls_timer, USEC_PER_SEC);
	else
		r = sd_event_add_time_relative(m->event, &b->calls_timer, CLOCK_MONOTONIC,
					       USEC_PER_SEC, 10 * USEC_PER_MSEC, on_calls_timer, m);
	if (r >= 0)
		r = sd_event_source_set_enabled(b->calls_timer, SD_EVENT_ONESHOT);
	if (r < 0)
		log_msg(LOG_WARNING, "Cannot schedule waiting calls: %s", strerror(-r));
}

/* An Apply() or Reset() that waits for PFs another process was applying. */
struct pending_call {
	sd_bus_message *msg;
	bool reset;
	struct asked out;
};

static void asked_done(struct asked *a)
{
	strv_free(a->failed);
	strv_free(a->busy);
	free(a->reset);
	*a = (struct asked){};
}

static struct pending_call *pending_call_free(struct pending_call *c)
{
	if (!c)
		return NULL;
	sd_bus_message_unref(c->msg);
	asked_done(&c->out);
	free(c);
	return NULL;
}

/* Reset()'s answer: each PF it changed, (pci, actions, VFs, whether the
 * switchdev mode stays). */
static int reply_reset(sd_bus_message *msg, const struct asked *out)
{
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
	int r;

	r = sd_bus_message_new_method_return(msg, &reply);
	if (r >= 0)
		r = sd_bus_message_open_container(reply, 'a', "(suub)");
	for (size_t i = 0; r >= 0 && i < out->n_reset; i++) {
		const struct asked_reset *one = &out->reset[i];

		r = sd_bus_message_append(reply, "(suub)", one->pci, one->n_actions, one->num_vfs,
					  (int)one->eswitch_kept);
	}
	if (r >= 0)
		r = sd_bus_message_close_container(reply);
	return r < 0 ? r : sd_bus_send(NULL, reply, NULL);
}

/* The answer to Apply() or Reset(), once nothing is left to another process:
 * an error that names each PF not applied (one a line: a held PF's reason
 * may hold "; ") or not reset. A PF that waits for a drain the daemon
 * starts is on its way, not in the error. */
static int reply_asked(sd_bus_message *msg, bool reset, const struct asked *out)
{
	_cleanup_free_ char *why = NULL;

	if ((!out->failed || !out->failed[0]) && reset)
		return reply_reset(msg, out);
	if (!out->failed || !out->failed[0])
		return sd_bus_reply_method_return(msg, NULL);
	why = strv_join(out->failed, reset ? "; " : "\n");
	return sd_bus_reply_method_errorf(msg, reset ? ERROR_NOT_RESET : ERROR_NOT_APPLIED, "%s",
					  strna(why));
}

/* Runs Apply(pci) or Reset(pci); "" = every PF. */
static int do_asked(struct manager *m, const char *pci, bool reset, struct asked *out,
		    sd_bus_error *error)
{
	const char *what = reset ? "reset" : "applied";
	int r;

	r = reset ? manager_reset(m, pci[0] == 0 ? NULL : pci, out) :
		    manager_apply(m, pci[0] == 0 ? NULL : pci, out);
	if (r == -ENXIO)
		return sd_bus_error_setf(error, ERROR_NO_SUCH_PF, "No PF '%s' on this host", pci);
	if (r == -ENOEXEC)
		return sd_bus_error_setf(error, ERROR_MAIN_CONFIG,
					 "The main configuration has errors (sriovctl status "
					 "lists them); nothing is %s until they are fixed",
					 what);
	if (r < 0)
		return manager_host_error_set(m, error, reset ? "Resetting" : "Applying", r);
	return 0;
}

static int method_asked(sd_bus_message *msg, struct manager *m, bool reset, sd_bus_error *error)
{
	struct manager_bus *b = m->bus_state;
	struct pending_call *c, **n;
	struct asked out = {};
	const char *pci;
	int r;

	r = sd_bus_message_read(msg, "s", &pci);
	if (r < 0)
		return r;
	r = check_root(msg, error);
	if (r < 0)
		return r;
	r = do_asked(m, pci, reset, &out, error);
	if (r < 0 || !out.busy || !out.busy[0]) {
		if (r >= 0)
			r = reply_asked(msg, reset, &out);
		asked_done(&out);
		return r;
	}
	/* The loop never waits on another process's lock: the answer comes when
	 * that process has written its record (resume_calls()). */
	c = calloc(1, sizeof(*c));
	n = c ? reallocarray(b->calls, b->n_calls + 1, sizeof(*n)) : NULL;
	if (!n) {
		free(c);
		asked_done(&out);
		return -ENOMEM;
	}
	b->calls = n;
	*c = (struct pending_call){ .msg = sd_bus_message_ref(msg), .reset = reset, .out = out };
	b->calls[b->n_calls++] = c;
	arm_calls_timer(m);
	log_msg(LOG_INFO, "%s() waits for %zu PF(s) that another process is applying",
		reset ? "Reset" : "Apply", strv_length(out.busy));
	return 1;
}

static int method_apply(sd_bus_message *msg, void *userdata, sd_bus_error *error)
{
	return method_asked(msg, userdata, false, error);
}

static int method_reset(sd_bus_message *msg, void *userdata, sd_bus_error *error)
{
	return method_asked(msg, userdata, true, error);
}

/* One pending call: its PFs that are free now are done; 1 when none is left. */
static int resume_one(struct manager *m, struct pending_call *c)
{
	_cleanup_strv_free_ char **left = calloc(1, sizeof(char *));

	if (!left)
		return -ENOMEM;
	for (char **p = c->out.busy; *p; p++) {
		_cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
		struct asked again = {};
		int r;

		if (manager_pf_busy(m, *p)) {
			if (strv_extend(&left, *p) < 0)
				return -ENOMEM;
			continue;
		}
		r = do_asked(m, *p, c->reset, &again, &error);
		/* a PF that went away meanwhile has nothing left to do */
		if (r < 0 && !sd_bus_error_has_name(&error, ERROR_NO_SUCH_PF))
			r = strv_consume(&c->out.failed,
					 strdup_printf("%s: %s", *p, strna(error.message)));
		else
			r = 0;
		for (size_t i = 0; r >= 0 && i < again.n_reset; i++)
			r = asked_add_reset(&c->out, &again.reset[i]);
		for (char **f = again.failed; r >= 0 && f && *f; f++)
			r = strv_extend(&c->out.failed, *f);
		for (char **b = again.busy; r >= 0 && b && *b; b++)
			r = strv_extend(&left, *b);
		asked_done(&again);
		if (r < 0)
			return r;
	}
	strv_free(c->out.busy);
	c->out.busy = TAKE_PTR(left);
	return !c->out.busy[0];
}

static void resume_calls(struct manager *m)
{
	struct manager_bus *b = m->bus_state;

	for (size_t i = 0; i < b->n_calls;) {
		struct pending_call *c = b->calls[i];
		int r = resume_one(m, c);

		if (r == 0) {
			i++;
			continue;
		}
		if (r > 0)
			r = reply_asked(c->msg, c->reset, &c->out);
		else
			r = sd_bus_reply_method_errno(c->msg, r, NULL);
		if (r < 0)
			log_msg(LOG_WARNING, "Answering a waiting call failed: %s", strerror(-r));
		pending_call_free(c);
		memmove(&b->calls[i], &b->calls[i + 1], (b->n_calls - i - 1) * sizeof(*b->calls));
		b->n_calls--;
	}
	if (b->n_calls > 0)
		arm_calls_timer(m);
}

void manager_bus_stop(struct manager *m)
{
	struct manager_bus *b = TAKE_PTR(m->bus_state);

	if (b) {
		for (size_t i = 0; i < b->n_calls; i++)
			pending_call_free(b->calls[i]);
		free(b->calls);
		sd_event_source_disable_unref(b->calls_timer);
		free(b->published);
		free(b);
	}
	m->bus = sd_bus_flush_close_unref(m->bus);
}

/* Plan() and GetStatus(): from the cached host, which the events keep as
 * the host is now, the PFs an event marked read first; of a host that
 * cannot be read: as read last, with why (host_error). */
static int view_doc(struct manager *m, bool status, char **ret)
{
	_cleanup_json_ struct json_object *o = NULL;
	struct host_view v;
	int r;

	manager_events_drain(m);
	r = manager_refresh(m);
	if (r < 0 && !(m->hs && m->host_error))
		return r;
	/* as sriovctl plan notes it: why an apply would defer for a drain
	 * that cannot run, looked at now (k8s-notify may come and go) */
	m->set->drain_cannot_run = mfree(m->set->drain_cannot_run);
	r = apply_drain_cannot_run(&m->conf, m->k8s_notify, &m->set->drain_cannot_run);
	if (r < 0)
		return r;
	r = host_view_build(m->hs, m->set, NULL, &v);
	if (r < 0)
		return r;
	manager_view_appeared(m, &v);
	r = status ? report_status(&v, m->runtime_dir, m->state_dir, true, &o) :
		     report_plan(&v, m->runtime_dir, &o);
	if (r >= 0 && !status)
		r = manager_plan_add(m, o);
	if (r >= 0 && status)
		r = k8s_status_add_waiting(m, o);
	if (r >= 0 && status)
		r = manager_status_as_checked(m, o);
	host_view_done(&v);
	if (r < 0)
		return r;
	if (status) {
		struct json_object *d = json_object_new_object(), *a;
		_cleanup_strv_free_ char **reasons = manager_reboot_reasons(m);

		if (!d || !reasons) {
			json_object_put(d);
			return -ENOMEM;
		}
		json_object_object_add(o, "daemon", d);
		json_object_object_add(d, "version", json_object_new_string(VERSION));
		json_object_object_add(d, "state",
				       json_object_new_string(manager_state_to_string(m->state)));
		json_object_object_add(d, "drifted", json_object_new_boolean(m->drifted));
		a = json_object_new_array();
		for (char **p = reasons; *p; p++)
			json_object_array_add(a, json_object_new_string(*p));
		json_object_object_add(d, "pending_reboot_reasons", a);
		a = json_object_new_array();
		for (char **e = m->config_errors; e && *e; e++)
			json_object_array_add(a, json_object_new_string(*e));
		json_object_object_add(d, "config_errors", a);
		manager_daemon_errors_add(m, d);
		json_object_object_add(d, "no_reboot", manager_no_reboot_json(m));
		json_object_object_add(d, "operation", k8s_operation_json(m->k8s));
		json_object_object_add(d, "credentials", k8s_credentials_json(m->k8s));
		json_object_object_add(d, "kubernetes_api", k8s_api_json(m));
	}
	*ret = strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
								JSON_C_TO_STRING_SPACED |
								JSON_C_TO_STRING_NOSLASHESCAPE));
	return *ret ? 0 : -ENOMEM;
}

static int reply_doc(struct manager *m, sd_bus_message *msg, int r, char *doc, sd_bus_error *e)
{
	_cleanup_free_ char *d = doc;

	if (r < 0)
		return manager_host_error_set(m, e, "Reading the host", r);
	return sd_bus_reply_method_return(msg, "s", d);
}

static int method_plan(sd_bus_message *msg, void *userdata, sd_bus_error *error)
{
	char *doc = NULL;
	int r = view_doc(userdata, false, &doc);

	return reply_doc(userdata, msg, r, doc, error);
}

static int method_get_status(sd_bus_message *msg, void *userdata, sd_bus_error *error)
{
	char *doc = NULL;
	int r = view_doc(userdata, true, &doc);

	return reply_doc(userdata, msg, r, doc, error);
}

/* The host the daemon manages, for sriovctl metrics to pair its counters
 * with the host it reads: null for this host, else the --host file's
 * canonical path (as given when it cannot be resolved: then it matches no
 * file that sriovctl reads, and the counters are left out). */
static int host_json(const struct manager *m, struct json_object **ret)
{
	_cleanup_free_ char *canon = NULL;

	if (!m->host_path) {
		*ret = NULL;
		return 0;
	}
	canon = realpath(m->host_path, NULL);
	*ret = json_object_new_string(canon ?: m->host_path);
	return *ret ? 0 : -ENOMEM;
}

/* GetMetrics(): what counters.c counted, and the Kubernetes API's state and
 * credentials, with the host they are of; answers at once (no read of the host). */
static int method_get_metrics(sd_bus_message *msg, void *userdata, sd_bus_error *error)
{
	_cleanup_json_ struct json_object *o = counters_json(userdata);
	struct json_object *host = NULL;
	const char *text = NULL;

	if (!o || host_json(userdata, &host) < 0)
		return sd_bus_error_set_errno(error, ENOMEM);
	if (json_object_object_add(o, "host", host) < 0)
		json_object_put(host);
	else
		text = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
								 JSON_C_TO_STRING_SPACED |
								 JSON_C_TO_STRING_NOSLASHESCAPE);
	if (!text)
		return sd_bus_error_set_errno(error, ENOMEM);
	return sd_bus_reply_method_return(msg, "s", text);
}

/* GetPhysicalFunction(): the PF called what (PCI address, interface name or
 * alternative name), found as Apply() finds it, in the host as it is now. */
static int method_get_pf(sd_bus_message *msg, void *userdata, sd_bus_error *error)
{
	struct manager *m = userdata;
	const struct pf_state *pf;
	struct pf_entry *e;
	const char *what;
	int r;

	r = sd_bus_message_read(msg, "s", &what);
	if (r < 0)
		return r;
	manager_events_drain(m);
	r = manager_refresh(m);
	if (r < 0 && !(m->hs && m->host_error)) /* else the PF as read last */
		return manager_host_error_set(m, error, "Reading the host", r);
	pf = host_state_lookup_pf(m->hs, what);
	e = pf ? manager_find_entry(m, pf->pci) : NULL;
	if (!e || !e->path)
		return sd_bus_error_setf(error, ERROR_NO_SUCH_PF, "No PF '%s' on this host", what);
	return sd_bus_reply_method_return(msg, "so", e->pci, e->path);
}

static int manager_get(sd_bus *bus, const char *path, const char *interface, const char *property,
		       sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
	struct manager *m = userdata;
	_cleanup_strv_free_ char **reasons = NULL;

	if (streq(property, "Version"))
		return sd_bus_message_append(reply, "s", VERSION);
	if (streq(property, "State"))
		return sd_bus_message_append(reply, "s", manager_state_to_string(m->state));
	if (streq(property, "Drifted"))
		return sd_bus_message_append(reply, "b", (int)m->drifted);
	if (streq(property, "PendingReboot"))
		return sd_bus_message_append(reply, "b", (int)(m->reboot.n_reasons > 0));
	if (streq(property, "ConfigErrors"))
		return sd_bus_message_append_strv(reply, m->config_errors);
	/* PendingRebootReasons */
	reasons = manager_reboot_reasons(m);
	return reasons ? sd_bus_message_append_strv(reply, reasons) : -ENOMEM;
}

static const sd_bus_vtable manager_vtable[] = {
	SD_BUS_VTABLE_START(0),
	SD_BUS_PROPERTY("Version", "s", manager_get, 0, SD_BUS_VTABLE_PROPERTY_CONST),
	SD_BUS_PROPERTY("State", "s", manager_get, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
	SD_BUS_PROPERTY("Drifted", "b", manager_get, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
	SD_BUS_PROPERTY("PendingReboot", "b", manager_get, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
	SD_BUS_PROPERTY("PendingRebootReasons", "as", manager_get, 0,
			SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
	SD_BUS_PROPERTY("ConfigErrors", "as", manager_get, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
	SD_BUS_METHOD("Reload", "", "", method_reload, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_NAMES("Apply", "s", SD_BUS_PARAM(pci), "", , method_apply,
				 SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_NAMES("Reset", "s", SD_BUS_PARAM(pci), "a(suub)", SD_BUS_PARAM(reset),
				 method_reset, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_NAMES("Plan", "", , "s", SD_BUS_PARAM(json), method_plan,
				 SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_NAMES("GetStatus", "", , "s", SD_BUS_PARAM(json), method_get_status,
				 SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_NAMES("GetMetrics", "", , "s", SD_BUS_PARAM(json), method_get_metrics,
				 SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_NAMES("GetPhysicalFunction", "s", SD_BUS_PARAM(name), "so",
				 SD_BUS_PARAM(pci) SD_BUS_PARAM(path), method_get_pf,
				 SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_SIGNAL_WITH_NAMES("DriftDetected", "sas", SD_BUS_PARAM(pci) SD_BUS_PARAM(what), 0),
	SD_BUS_SIGNAL_WITH_NAMES("Applied", "si", SD_BUS_PARAM(pci) SD_BUS_PARAM(result), 0),
	SD_BUS_VTABLE_END,
};

static int pf_get(sd_bus *bus, const char *path, const char *interface, const char *property,
		  sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
	struct pf_entry *e = userdata;

	if (streq(property, "PCIAddress"))
		return sd_bus_message_append(reply, "s", e->pci);
	if (streq(property, "Name"))
		return sd_bus_message_append(reply, "s", strempty(e->name));
	if (streq(property, "State") || streq(property, "LastError")) {
		_cleanup_free_ char *buf = NULL;
		const char *state = NULL, *reason = NULL;
		int r = manager_pf_shown(e->manager, e->pci, e, &state, &reason, &buf);

		if (r < 0)
			return r;
		return sd_bus_message_append(reply, "s",
					     streq(property, "State") ? state : strempty(reason));
	}
	if (streq(property, "VirtualFunctions"))
		return sd_bus_message_append(reply, "u", e->num_vfs);
	if (streq(property, "DesiredVirtualFunctions"))
		return sd_bus_message_append(reply, "u", e->desired_vfs);
	if (streq(property, "Settings"))
		return manager_pf_append_settings(reply, &e->settings, false);
	if (streq(property, "VirtualFunctionSettings"))
		return manager_pf_append_settings(reply, &e->settings, true);
	return sd_bus_message_append_strv(reply, e->config_files); /* ConfigFiles */
}

#define PF_PROPERTY(name, sig) \
	SD_BUS_PROPERTY(name, sig, pf_get, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE)

static const sd_bus_vtable pf_vtable[] = {
	SD_BUS_VTABLE_START(0),
	SD_BUS_PROPERTY("PCIAddress", "s", pf_get, 0, SD_BUS_VTABLE_PROPERTY_CONST),
	PF_PROPERTY("Name", "s"),
	PF_PROPERTY("State", "s"),
	PF_PROPERTY("VirtualFunctions", "u"),
	PF_PROPERTY("DesiredVirtualFunctions", "u"),
	PF_PROPERTY("LastError", "s"),
	PF_PROPERTY("ConfigFiles", "as"),
	PF_PROPERTY("Settings", "a(ssss)"),
	PF_PROPERTY("VirtualFunctionSettings", "a(ussss)"),
	SD_BUS_VTABLE_END,
};

static int pf_find(sd_bus *bus, const char *path, const char *interface, void *userdata,
		   void **found, sd_bus_error *error)
{
	struct manager *m = userdata;

	for (size_t i = 0; i < m->n_pfs; i++)
		if (streq_ptr(m->pfs[i]->path, path)) {
			*found = m->pfs[i];
			return 1;
		}
	return 0;
}

static int pf_enumerate(sd_bus *bus, const char *path, void *userdata, char ***nodes,
			sd_bus_error *error)
{
	struct manager *m = userdata;
	_cleanup_strv_free_ char **l = calloc(1, sizeof(char *));

	if (!l)
		return -ENOMEM;
	for (size_t i = 0; i < m->n_pfs; i++)
		if (m->pfs[i]->path && strv_extend(&l, m->pfs[i]->path) < 0)
			return -ENOMEM;
	*nodes = TAKE_PTR(l);
	return 1;
}

static int open_bus(sd_bus **ret)
{
	int r = sd_bus_open_system(ret);

	if (r < 0)
		log_msg(LOG_ERR, "Cannot connect to the system bus: %s", strerror(-r));
	return r;
}

static void on_event(struct manager *m, const struct manager_event *ev, void *userdata);

int manager_bus_start(struct manager *m)
{
	int r;

	m->bus_state = calloc(1, sizeof(*m->bus_state));
	if (!m->bus_state)
		return -ENOMEM;
	r = manager_observe(m, on_event, NULL);
	if (r < 0)
		return r;
	r = open_bus(&m->bus);
	if (r < 0)
		return r;
	r = sd_bus_add_object_vtable(m->bus, NULL, MANAGER_PATH, MANAGER_IFACE, manager_vtable, m);
	if (r >= 0)
		r = sd_bus_add_fallback_vtable(m->bus, NULL, PF_PREFIX, PF_IFACE, pf_vtable,
					       pf_find, m);
	if (r >= 0)
		r = sd_bus_add_node_enumerator(m->bus, NULL, PF_PREFIX, pf_enumerate, m);
	if (r >= 0)
		r = sd_bus_add_object_manager(m->bus, NULL, MANAGER_PATH);
	if (r >= 0)
		/* after the event sources: a call answered from the cache sees
		 * every change that reached the daemon before it */
		r = sd_bus_attach_event(m->bus, m->event, SD_EVENT_PRIORITY_NORMAL + 1);
	if (r < 0) {
		log_msg(LOG_ERR, "Setting up the D-Bus objects failed: %s", strerror(-r));
		return r;
	}
	r = sd_bus_request_name(m->bus, BUS_NAME, 0);
	if (r == -EEXIST)
		log_msg(LOG_ERR, "Another sriov-persistd already owns %s on this bus; not starting",
			BUS_NAME);
	else if (r == -EACCES || r == -EPERM)
		log_msg(LOG_ERR,
			"The bus policy does not let this user own %s: the shipped policy "
			"(system.d/org.sriovpersist1.conf) lets root only",
			BUS_NAME);
	else if (r < 0)
		log_msg(LOG_ERR, "Cannot own %s on the system bus: %s", BUS_NAME, strerror(-r));
	return r;
}

static void pf_added(struct manager *m, struct pf_entry *e)
{
	int r = sd_bus_path_encode(PF_PREFIX, e->pci, &e->path);

	if (r < 0)
		log_msg(LOG_ERR, "%s: no D-Bus object: %s", e->pci, strerror(-r));
	else if (m->bus)
		(void)sd_bus_emit_object_added(m->bus, e->path);
}

static void pf_removed(struct manager *m, const char *path)
{
	if (m->bus && path)
		(void)sd_bus_emit_object_removed(m->bus, path);
}

static void pf_changed(struct manager *m, struct pf_entry *e)
{
	_cleanup_free_ char *now = manager_pf_published(m, e);

	if (!m->bus || !e->path || !now || streq_ptr(now, e->published))
		return;
	free(e->published);
	e->published = TAKE_PTR(now);
	(void)sd_bus_emit_properties_changed(m->bus, e->path, PF_IFACE, "Name", "State",
					     "VirtualFunctions", "DesiredVirtualFunctions",
					     "LastError", "ConfigFiles", "Settings",
					     "VirtualFunctionSettings", NULL);
}

static char *manager_published(const struct manager *m)
{
	_cleanup_free_ char *errors = strv_join(m->config_errors, "\n");
	_cleanup_strv_free_ char **reasons = manager_reboot_reasons(m);
	_cleanup_free_ char *r = NULL;

	r = reasons ? strv_join(reasons, "\n") : NULL;
	return strdup_printf("%s|%d|%s|%s", manager_state_to_string(m->state), m->drifted,
			     strempty(r), strempty(errors));
}

static void manager_changed(struct manager *m)
{
	_cleanup_free_ char *now = manager_published(m);

	if (!m->bus || !now || streq_ptr(now, m->bus_state->published))
		return;
	free(m->bus_state->published);
	m->bus_state->published = TAKE_PTR(now);
	(void)sd_bus_emit_properties_changed(m->bus, MANAGER_PATH, MANAGER_IFACE, "State",
					     "Drifted", "PendingReboot", "PendingRebootReasons",
					     "ConfigErrors", NULL);
}

static void drift(struct manager *m, const char *pci, char **what)
{
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *s = NULL;
	int r;

	if (!m->bus)
		return;
	r = sd_bus_message_new_signal(m->bus, &s, MANAGER_PATH, MANAGER_IFACE, "DriftDetected");
	if (r >= 0)
		r = sd_bus_message_append(s, "s", pci);
	if (r >= 0)
		r = sd_bus_message_append_strv(s, what);
	if (r >= 0)
		r = sd_bus_send(m->bus, s, NULL);
	if (r < 0)
		log_msg(LOG_WARNING, "Sending DriftDetected failed: %s", strerror(-r));
}

static void applied(struct manager *m, const char *pci, int result)
{
	int r;

	if (!m->bus)
		return;
	r = sd_bus_emit_signal(m->bus, MANAGER_PATH, MANAGER_IFACE, "Applied", "si", pci, result);
	if (r < 0)
		log_msg(LOG_WARNING, "Sending Applied failed: %s", strerror(-r));
}

static void on_event(struct manager *m, const struct manager_event *ev, void *userdata)
{
	switch (ev->type) {
	case MANAGER_PF_ADDED:
		pf_added(m, ev->pf);
		return;
	case MANAGER_PF_REMOVED:
		pf_removed(m, ev->path);
		return;
	case MANAGER_PF_CHANGED:
		pf_changed(m, ev->pf);
		return;
	case MANAGER_PF_DRIFTED:
		drift(m, ev->pf->pci, ev->pf->drift);
		return;
	case MANAGER_PF_APPLIED:
		applied(m, ev->pci, ev->result);
		return;
	case MANAGER_SUMMARY_CHANGED:
		manager_changed(m);
		return;
	case MANAGER_CHECKED:
		resume_calls(m);
		return;
	case MANAGER_APPLY_STARTS:
		/* clients see "applying" before the loop stops to apply */
		(void)sd_bus_flush(m->bus);
		return;
	case MANAGER_SUMMARY: /* a host that cannot be read changes what each shows */
		for (size_t i = 0; i < m->n_pfs; i++)
			pf_changed(m, m->pfs[i]);
		return;
	case MANAGER_PF_VFS_CHANGED:
	case MANAGER_PF_WANTS_DRAIN:
	case MANAGER_APPLY_ASKED:
	case MANAGER_CONFIG_LOADED:
	case MANAGER_LOOKED:
	case MANAGER_PF_REPAIRING:
	case MANAGER_DRAIN_DONE:
	case MANAGER_REBOOT_DONE:
	case _MANAGER_EVENT_TYPE_MAX:
	case _MANAGER_EVENT_TYPE_INVALID:
		break;
	}
}
