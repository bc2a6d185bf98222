/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* Operations that go through the Kubernetes API (k8s-notify), one at a time:
 *   drain:  lease slot, drain (cordons), apply the deferred PFs, device plugin,
 *           uncordon, release;
 *   reboot: lease slot, drain, record, reboot through logind; after the boot:
 *           uncordon, release;
 *   recover: at start, lift a cordon of ours that a crash left behind;
 *   device-plugin: restart it when its resources changed.
 * Each step is a k8s-notify run; the event loop goes on meanwhile. A drain or
 * reboot is recorded in <state>/operation.json at each step, so that a daemon
 * that crashed, or the boot after the reboot, knows what to undo. */

#include <stdarg.h>
#include <syslog.h>
#include <systemd/sd-daemon.h>

#include "json-util.h"
#include "k8s-run.h"
#include "k8s.h"
#include "logind.h"
#include "manager-check.h"
#include "status.h"

#define OPERATION_FILE "operation.json"
#define RETRIES_MAX 5
/* retries back off 2 s, 4 s ... 256 s, then stay 256 s apart */
#define RETRY_SHIFT_MAX 8
#define LEASE_WAIT_SEC "600"

static int op_save(struct manager *m, const struct operation *op)
{
	_cleanup_free_ char *text = operation_format(op);

	if (!text || mkdir_owned(m->state_dir, 0755) < 0)
		return -ENOMEM;
	return write_file_atomic(m->state_dir, OPERATION_FILE, text, 0644);
}

static void op_forget(struct manager *m)
{
	_cleanup_free_ char *path = strdup_printf("%s/" OPERATION_FILE, m->state_dir);

	if (path && unlink(path) < 0 && errno != ENOENT)
		log_msg(LOG_WARNING, "Removing %s failed: %m", path);
}

/* A recorded operation, or -ENOENT. */
static int op_load(struct manager *m, struct operation **ret)
{
	_cleanup_free_ char *path = strdup_printf("%s/" OPERATION_FILE, m->state_dir), *text = NULL;
	int r;

	if (!path)
		return -ENOMEM;
	r = read_file(path, &text);
	if (r < 0) {
		if (r != -ENOENT)
			log_msg(LOG_WARNING, "%s: %s; ignoring it", path, read_strerror(r));
		return -ENOENT;
	}
	r = operation_parse(text, ret);
	if (r == -EBADMSG) {
		log_msg(LOG_WARNING, "%s does not parse; ignoring it", path);
		return -ENOENT;
	}
	return r;
}

static void op_run_step(struct manager *m);
static void credentials_watch(struct manager *m);
static void credentials_seen(struct manager *m, const struct step_result *result);

/* What the summary shows while op runs (manager.operation). */
static enum manager_state op_state(const struct operation *op)
{
	if (op && op->kind == OP_KIND_DRAIN && op->step < OP_STEP_DONE)
		return MANAGER_DRAINING;
	if (op && op->kind == OP_KIND_REBOOT && op->step <= OP_STEP_REBOOT)
		return MANAGER_REBOOTING;
	return MANAGER_IDLE;
}

static void op_set_step(struct manager *m, enum op_step step)
{
	struct operation *op = m->k8s->op;

	op->step = step;
	op->attempts = 0;
	if (op->kind == OP_KIND_DRAIN || op->kind == OP_KIND_REBOOT) {
		if (step == OP_STEP_DONE)
			op_forget(m);
		else if (op_save(m, op) < 0)
			log_msg(LOG_WARNING, "Recording the %s in %s failed",
				op_kind_to_string(op->kind), m->state_dir);
	}
	(void)sd_notifyf(false, "STATUS=%s: %s", op_kind_to_string(op->kind),
			 op_step_to_string(step));
	m->operation = op_state(op);
	manager_update_summary(m, false);
}

/* The step after a failed one: undo what was done, in order. */
static enum op_step op_abort_step(const struct operation *op)
{
	if (op->drained)
		return OP_STEP_UNCORDON;
	/* a lease step that failed may have taken a slot all the same (the
	 * daemon stopped while k8s-notify waited): release looks for ours */
	if (op->slot || op->lease_unknown || op->step == OP_STEP_LEASE)
		return OP_STEP_RELEASE;
	return OP_STEP_DONE;
}

static void op_fail(struct manager *m, const char *fmt, ...) _printf_(2, 3);
static void op_fail(struct manager *m, const char *fmt, ...)
{
	struct operation *op = m->k8s->op;
	va_list ap;
	char *e = NULL;

	va_start(ap, fmt);
	e = strdup_vprintf(fmt, ap);
	va_end(ap);
	log_msg(LOG_ERR, "Kubernetes %s failed at %s: %s", op_kind_to_string(op->kind),
		op_step_to_string(op->step), strna(e));
	if (!op->error) {
		op->error = strdup_printf("%s failed: %s", op_step_to_string(op->step), strna(e));
		for (char **p = op->pfs; p && *p; p++)
			manager_pf_failed(m, *p, op->error);
	}
	free(e);
	op_set_step(m, op_abort_step(op));
	op_run_step(m);
}

static int on_retry(sd_event_source *s, uint64_t usec, void *userdata)
{
	op_run_step(userdata);
	return 0;
}

static bool op_retry(struct manager *m, usec_t delay)
{
	struct operation *op = m->k8s->op;

	sd_event_source_disable_unref(op->retry);
	op->retry = NULL;
	return sd_event_add_time_relative(m->event, &op->retry, CLOCK_MONOTONIC, delay, 0, on_retry,
					  m) >= 0;
}

/* After a k8s-notify run of the current step: retry a temporary failure
 * (backoff with jitter), fail on a final one. The steps that undo (uncordon,
 * release) are retried whatever the failure, for as long as it takes: our
 * cordon or slot must not stay behind because the API server was away or
 * the credentials were refused for a while. Returns whether it succeeded. */
static bool op_step_ok(struct manager *m, int status, const struct step_result *result)
{
	struct operation *op = m->k8s->op;
	const char *error = result->error;
	/* a release without a slot only looks for one of ours that may exist */
	bool undo = op->step == OP_STEP_UNCORDON || (op->step == OP_STEP_RELEASE && op->slot);
	unsigned shift;
	usec_t delay;

	if (status == 0)
		return true;
	if (undo || (status == 75 && op->attempts + 1 < RETRIES_MAX)) {
		op->attempts++;
		shift = op->attempts < RETRY_SHIFT_MAX ? op->attempts : RETRY_SHIFT_MAX;
		delay = (USEC_PER_SEC << shift) + (usec_t)random() % USEC_PER_SEC;
		log_msg(undo && status != 75 ? LOG_WARNING : LOG_NOTICE,
			"Kubernetes %s: %s will be tried again in %.1fs%s: %s",
			op_kind_to_string(op->kind), op_step_to_string(op->step),
			(double)delay / USEC_PER_SEC,
			op->step == OP_STEP_UNCORDON ? " (the node stays cordoned until then)" :
			undo			     ? " (the slot stays held until then)" :
						       "",
			strna(error));
		if (op_retry(m, delay))
			return false;
	}
	if (op->step == OP_STEP_RELEASE) {
		log_msg(LOG_WARNING,
			"Kubernetes %s: looking for a slot of ours to release failed; a slot "
			"taken by an interrupted lease step is free again when its lease "
			"expires: %s",
			op_kind_to_string(op->kind), strna(error));
		op_set_step(m, OP_STEP_DONE);
		op_run_step(m);
		return false;
	}
	op_fail(m, "%s",
		error		     ?:
			status == 75 ? "the API server stayed unreachable" :
				       "k8s-notify failed");
	return false;
}

static void on_step_done(struct manager *m, int status, const struct step_result *result,
			 void *data)
{
	struct operation *op = m->k8s->op;

	credentials_seen(m, result);
	if (!op)
		return;
	op->running = false;
	if (!op_step_ok(m, status, result))
		return;
	switch (op->step) {
	case OP_STEP_LEASE:
		free(op->slot);
		op->slot = result->slot ? strdup(result->slot) : NULL;
		op_set_step(m, OP_STEP_DRAIN);
		break;
	case OP_STEP_DRAIN:
		op->drained = true;
		op_set_step(m, op->kind == OP_KIND_REBOOT ? OP_STEP_REBOOT : OP_STEP_APPLY);
		break;
	case OP_STEP_DEVICE_PLUGIN:
		op_set_step(m, op->drained ? OP_STEP_UNCORDON : OP_STEP_DONE);
		break;
	case OP_STEP_UNCORDON:
		op->drained = false;
		op_set_step(m, op->slot || op->lease_unknown ? OP_STEP_RELEASE : OP_STEP_DONE);
		break;
	case OP_STEP_RELEASE:
		op->slot = mfree(op->slot);
		op_set_step(m, OP_STEP_DONE);
		break;
	case OP_STEP_APPLY:
	case OP_STEP_REBOOT:
	case OP_STEP_DONE:
	case _OP_STEP_MAX:
	case _OP_STEP_INVALID:
		break;
	}
	op_run_step(m);
}

static void run(struct manager *m, char **args)
{
	int r = k8s_run(m, args, on_step_done, NULL);

	if (r < 0) {
		op_fail(m, "cannot run k8s-notify: %s", strerror(-r));
		return;
	}
	m->k8s->op->running = true;
}

/* "--resource R" for each resource of the VFs of pfs (NULL: of every PF). */
static int add_resources(struct manager *m, char *const *pfs, char ***args)
{
	_cleanup_strv_free_ char **res = k8s_drain_resources(m, pfs);

	if (!res)
		return -ENOMEM;
	for (char **r = res; *r; r++)
		if (strv_extend(args, "--resource") < 0 || strv_extend(args, *r) < 0)
			return -ENOMEM;
	return 0;
}

/* Only the pods that use the VFs a drain is for: the resources of its PFs,
 * of every PF for a reboot. */
static void step_drain(struct manager *m)
{
	_cleanup_strv_free_ char **args = NULL;

	if (strv_extend(&args, "drain") < 0 ||
	    add_resources(m, m->k8s->op->kind == OP_KIND_REBOOT ? NULL : m->k8s->op->pfs, &args) <
		    0) {
		op_fail(m, "drain: %s", strerror(ENOMEM));
		return;
	}
	run(m, args);
}

static void step_apply(struct manager *m)
{
	for (char **p = m->k8s->op->pfs; p && *p; p++) {
		int r = manager_apply_drained(m, *p);

		if (r < 0)
			log_pf(LOG_ERR, *p, "%s: applying after the drain failed: %s", *p,
			       strerror(-r));
	}
	op_set_step(m, OP_STEP_DEVICE_PLUGIN);
	op_run_step(m);
}

/* After a drain, also the DaemonSet pods that use the PFs' VFs: the drain
 * evicted them, but their DaemonSet recreated them with the VFs of before. */
static void step_device_plugin(struct manager *m)
{
	struct operation *op = m->k8s->op;
	_cleanup_strv_free_ char **args = NULL;
	int r;

	r = k8s_device_plugin_args(m, &args);
	if (r >= 0 && op->kind == OP_KIND_DRAIN)
		r = add_resources(m, op->pfs, &args);
	if (r < 0) {
		op_fail(m, "device plugin: %s", strerror(-r));
		return;
	}
	run(m, args);
}

static void op_finish(struct manager *m)
{
	struct operation *op = TAKE_PTR(m->k8s->op);

	if (!op->error)
		log_msg(LOG_INFO, "Kubernetes %s done", op_kind_to_string(op->kind));
	operation_free(op);
	m->operation = op_state(NULL);
	manager_update_summary(m, false);
	k8s_next(m);
}

static void reboot_done(void *userdata, int r, const char *error)
{
	struct manager *m = userdata;

	if (!m->k8s->op || m->k8s->op->step != OP_STEP_REBOOT)
		return;
	if (r < 0) {
		op_fail(m, "logind refused to reboot: %s", strna(error));
		return;
	}
	log_msg(LOG_NOTICE, "Rebooting for: the pending reboot reasons");
	manager_update_summary(m, false);
}

static void step_reboot(struct manager *m)
{
	log_msg(LOG_NOTICE, "Asking logind to reboot for the pending reboot reasons");
	logind_reboot(m->bus, reboot_done, m);
}

static void op_run_step(struct manager *m)
{
	struct operation *op = m->k8s->op;
	char *slot_args[] = { "lease", "release", "--slot", op->slot, NULL };

	switch (op->step) {
	case OP_STEP_LEASE:
		run(m, (char *[]){ "lease", "acquire", "--timeout", LEASE_WAIT_SEC, NULL });
		return;
	case OP_STEP_DRAIN:
		step_drain(m);
		return;
	case OP_STEP_APPLY:
		step_apply(m);
		return;
	case OP_STEP_DEVICE_PLUGIN:
		step_device_plugin(m);
		return;
	case OP_STEP_REBOOT:
		step_reboot(m);
		return;
	case OP_STEP_UNCORDON:
		run(m, (char *[]){ "uncordon", NULL });
		return;
	case OP_STEP_RELEASE:
		run(m, op->slot ? slot_args : (char *[]){ "lease", "release", NULL });
		return;
	case OP_STEP_DONE:
	case _OP_STEP_MAX:
	case _OP_STEP_INVALID:
		break;
	}
	op_finish(m);
}

static int op_start(struct manager *m, enum op_kind kind, enum op_step step, char **pfs)
{
	struct operation *op = calloc(1, sizeof(*op));

	if (!op) {
		strv_free(pfs);
		return -ENOMEM;
	}
	op->kind = kind;
	op->pfs = pfs;
	snprintf(op->boot_id, sizeof(op->boot_id), "%s", manager_boot_id(m));
	if (kind == OP_KIND_REBOOT && m->k8s->reboot_tried)
		op->reasons = strdup(m->k8s->reboot_tried);
	m->k8s->op = op;
	log_msg(LOG_INFO, "Kubernetes %s: starting", op_kind_to_string(kind));
	op_set_step(m, step);
	op_run_step(m);
	return 0;
}

/* Starts what is waiting, when nothing runs: a drain first, then a reboot,
 * then a device-plugin restart. [Reboot] Policy=immediate reboots without
 * Kubernetes. */
void k8s_next(struct manager *m)
{
	if (m->k8s->op || m->k8s->starting)
		return;
	if (m->k8s->reboot_wanted && m->conf.reboot_policy == REBOOT_POLICY_IMMEDIATE) {
		m->k8s->reboot_wanted = false;
		(void)op_start(m, OP_KIND_REBOOT, OP_STEP_REBOOT, NULL);
		return;
	}
	if (!mainconf_kubernetes_enabled(&m->conf))
		return;
	if (strv_length(m->k8s->drain_wanted) > 0) {
		(void)op_start(m, OP_KIND_DRAIN, OP_STEP_LEASE, TAKE_PTR(m->k8s->drain_wanted));
		return;
	}
	if (m->k8s->reboot_wanted) {
		m->k8s->reboot_wanted = false;
		(void)op_start(m, OP_KIND_REBOOT, OP_STEP_LEASE, NULL);
		return;
	}
	if (m->k8s->device_plugin_wanted) {
		m->k8s->device_plugin_wanted = false;
		(void)op_start(m, OP_KIND_DEVICE_PLUGIN, OP_STEP_DEVICE_PLUGIN, NULL);
	}
}

/* At start, after the first check: finish what a crash or the reboot left. */
void k8s_load(struct manager *m)
{
	struct operation *op = NULL;

	m->k8s->starting = true;
	if (op_load(m, &op) < 0)
		return;
	m->k8s->op_saved = op;
	if (op->kind == OP_KIND_REBOOT && op->reasons) {
		/* what it rebooted for: not again for the same, if the reboot did not help */
		free(m->k8s->reboot_tried);
		m->k8s->reboot_tried = strdup(op->reasons);
	}
}

void k8s_start(struct manager *m)
{
	bool k8s = mainconf_kubernetes_enabled(&m->conf);
	struct operation *op = TAKE_PTR(m->k8s->op_saved);

	m->k8s->starting = false;
	if (k8s)
		credentials_watch(m);
	if (!op) {
		/* a cordon of ours with no record of why: a crash between the two */
		if (k8s)
			(void)op_start(m, OP_KIND_RECOVER, OP_STEP_UNCORDON, NULL);
		else
			k8s_next(m);
		return;
	}
	m->k8s->op = op;
	m->operation = op_state(op);
	if (op->kind == OP_KIND_REBOOT && op->step == OP_STEP_REBOOT &&
	    streq(op->boot_id, manager_boot_id(m))) {
		log_msg(LOG_NOTICE, "The reboot recorded in %s/" OPERATION_FILE " has not happened",
			m->state_dir);
		op_run_step(m);
		return;
	}
	if (op->kind == OP_KIND_REBOOT && op->step == OP_STEP_REBOOT)
		log_msg(LOG_INFO, "Rebooted for the pending reboot; lifting the cordon");
	else
		log_msg(LOG_NOTICE, "A Kubernetes %s was interrupted at %s; undoing it",
			op_kind_to_string(op->kind), op_step_to_string(op->step));
	op->drained = true; /* k8s-notify uncordon lifts only a cordon of ours */
	/* interrupted while taking a slot: one may be ours without our knowing */
	op->lease_unknown = op->step == OP_STEP_LEASE && !op->slot;
	op_set_step(m, k8s ? OP_STEP_UNCORDON : OP_STEP_DONE);
	op_run_step(m);
}

struct json_object *k8s_operation_json(const struct k8s *k)
{
	const struct operation *op = k ? k->op : NULL;
	struct json_object *o, *pfs;

	if (!op)
		return NULL;
	o = json_object_new_object();
	pfs = json_object_new_array();
	json_object_object_add(o, "kind", json_object_new_string(op_kind_to_string(op->kind)));
	json_object_object_add(o, "step", json_object_new_string(op_step_to_string(op->step)));
	for (char **p = op->pfs; p && *p; p++)
		json_object_array_add(pfs, json_object_new_string(*p));
	json_object_object_add(o, "pfs", pfs);
	json_object_object_add(o, "slot", op->slot ? json_object_new_string(op->slot) : NULL);
	json_object_object_add(o, "error", op->error ? json_object_new_string(op->error) : NULL);
	return o;
}

/* An hour: a token that lasts one is warned of within its life. */
#define CREDENTIALS_CHECK_USEC (3600 * USEC_PER_SEC)

struct json_object *k8s_credentials_json(const struct k8s *k)
{
	return k && k->credentials ? json_object_get(k->credentials) : NULL;
}

static const char *cred_field(struct json_object *c, const char *key)
{
	struct json_object *v = c ? json_object_object_get(c, key) : NULL;

	return json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}

/* Every k8s-notify run reports the credentials: kept for GetStatus, and a
 * warning that is new goes to the journal. */
static void credentials_seen(struct manager *m, const struct step_result *result)
{
	struct json_object *credentials = result->credentials;
	struct k8s *k = m->k8s;
	const char *was = cred_field(k->credentials, "warning");
	const char *now = cred_field(credentials, "warning");

	if (!credentials)
		return;
	if (now && !streq_ptr(was, now))
		log_msg(LOG_WARNING, "Kubernetes credentials: %s", now);
	else if (was && !now)
		log_msg(LOG_NOTICE, "Kubernetes credentials: renewed (expire %s)",
			strna(cred_field(credentials, "expires")));
	if (k->credentials)
		json_object_put(k->credentials);
	k->credentials = json_object_get(credentials);
}

static void on_credentials_checked(struct manager *m, int status, const struct step_result *result,
				   void *data)
{
	credentials_seen(m, result);
}

static int on_credentials_timer(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct manager *m = userdata;

	/* no request: k8s-notify only reads them (and runs an exec plugin) */
	(void)k8s_run(m, (char *[]){ "credentials", NULL }, on_credentials_checked, NULL);
	(void)sd_event_source_set_time_relative(s, CREDENTIALS_CHECK_USEC);
	(void)sd_event_source_set_enabled(s, SD_EVENT_ONESHOT);
	return 0;
}

/* The credentials' expiry, every hour. Every run reports it, and one runs at
 * start (the uncordon that finishes or recovers an operation). */
static void credentials_watch(struct manager *m)
{
	if (m->k8s->credentials_timer)
		return;
	(void)sd_event_add_time_relative(m->event, &m->k8s->credentials_timer, CLOCK_MONOTONIC,
					 CREDENTIALS_CHECK_USEC, USEC_PER_SEC, on_credentials_timer,
					 m);
}

static int on_annotate_timer(sd_event_source *s, uint64_t usec, void *userdata);

static void on_annotated(struct manager *m, int status, const struct step_result *result,
			 void *data)
{
	char *sent = data;

	credentials_seen(m, result);
	m->k8s->annotate_running = false;
	if (status == 0) {
		free(m->k8s->annotated);
		m->k8s->annotated = sent;
	} else {
		free(sent);
	}
	if (m->k8s->annotate_next && !streq_ptr(m->k8s->annotate_next, m->k8s->annotated))
		k8s_annotate(m, NULL);
}

static int on_annotate_timer(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct manager *m = userdata;
	char *state;

	if (m->k8s->annotate_running || !m->k8s->annotate_next ||
	    streq_ptr(m->k8s->annotate_next, m->k8s->annotated))
		return 0;
	state = strdup(m->k8s->annotate_next);
	if (!state)
		return 0;
	if (k8s_run(m, (char *[]){ "annotate", "--state", state, NULL }, on_annotated, state) < 0) {
		free(state);
		return 0;
	}
	m->k8s->annotate_running = true;
	return 0;
}

/* Publishes state (NULL: the one waiting) on the node, at most once a second. */
void k8s_annotate(struct manager *m, const char *state)
{
	if (!mainconf_kubernetes_enabled(&m->conf))
		return;
	if (state) {
		if (streq_ptr(state, m->k8s->annotate_next))
			return;
		free(m->k8s->annotate_next);
		m->k8s->annotate_next = strdup(state);
	}
	if (!m->k8s->annotate_next || streq_ptr(m->k8s->annotate_next, m->k8s->annotated))
		return;
	if (m->k8s->annotate_timer) {
		int on = SD_EVENT_OFF;

		(void)sd_event_source_get_enabled(m->k8s->annotate_timer, &on);
		if (on != SD_EVENT_OFF)
			return;
		(void)sd_event_source_set_time_relative(m->k8s->annotate_timer, USEC_PER_SEC);
		(void)sd_event_source_set_enabled(m->k8s->annotate_timer, SD_EVENT_ONESHOT);
		return;
	}
	(void)sd_event_add_time_relative(m->event, &m->k8s->annotate_timer, CLOCK_MONOTONIC,
					 USEC_PER_SEC, USEC_PER_MSEC, on_annotate_timer, m);
}

static void on_event(struct manager *m, const struct manager_event *ev, void *userdata)
{
	struct k8s *k = m->k8s;

	switch (ev->type) {
	case MANAGER_PF_VFS_CHANGED:
		k->vfs_changed = true;
		return;
	case MANAGER_PF_WANTS_DRAIN:
		if (!strv_contains(k->drain_wanted, ev->pci) &&
		    strv_extend(&k->drain_wanted, ev->pci) < 0)
			log_msg(LOG_ERR, "%s: cannot queue a drain: %s", ev->pci, strerror(ENOMEM));
		return;
	case MANAGER_APPLY_ASKED:
		k->reboot_tried = mfree(k->reboot_tried);
		return;
	case MANAGER_LOOKED:
		k8s_device_plugin_sync(m);
		return;
	case MANAGER_SUMMARY:
		k8s_summary(m);
		return;
	case MANAGER_PF_ADDED:
	case MANAGER_PF_REMOVED:
	case MANAGER_PF_CHANGED:
	case MANAGER_PF_DRIFTED:
	case MANAGER_PF_APPLIED:
	case MANAGER_CONFIG_LOADED:
	case MANAGER_SUMMARY_CHANGED:
	case MANAGER_CHECKED:
	case MANAGER_APPLY_STARTS:
	case _MANAGER_EVENT_TYPE_MAX:
	case _MANAGER_EVENT_TYPE_INVALID:
		break;
	}
}

int k8s_new(struct manager *m)
{
	m->k8s = calloc(1, sizeof(*m->k8s));
	if (!m->k8s)
		return -ENOMEM;
	return manager_observe(m, on_event, NULL);
}

struct k8s *k8s_free(struct k8s *k)
{
	if (!k)
		return NULL;
	operation_free(k->op);
	operation_free(k->op_saved);
	strv_free(k->drain_wanted);
	free(k->reboot_tried);
	free(k->dp_vf_sig);
	free(k->annotated);
	free(k->annotate_next);
	sd_event_source_unref(k->annotate_timer);
	sd_event_source_disable_unref(k->credentials_timer);
	if (k->credentials)
		json_object_put(k->credentials);
	free(k);
	return NULL;
}
