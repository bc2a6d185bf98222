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
/* runs of a step that failed for now (the API server answered) */
#define RETRIES_MAX 5
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
static void annotate_resume(struct manager *m);

/* --- waiting for the API server ------------------------------------------
 * One backoff for every run: while the server does not answer, no run
 * starts before the time k8s-wait.c says, and then only one (an operation's
 * step first, else the node's annotations); its answer ends the wait for
 * all. While the server answers, an annotate may run beside a step: a drain
 * or a wait for a Lease slot takes minutes, and what the node publishes
 * must not wait for it. The hourly credentials check sends no request. */

static int on_wait_timer(sd_event_source *s, uint64_t usec, void *userdata);

/* A one-shot timer of ours at when (CLOCK_MONOTONIC), made on its first use. */
static void timer_at(struct manager *m, sd_event_source **s, usec_t when,
		     sd_event_time_handler_t handler)
{
	if (!*s) {
		(void)sd_event_add_time(m->event, s, CLOCK_MONOTONIC, when, USEC_PER_MSEC, handler,
					m);
		return;
	}
	(void)sd_event_source_set_time(*s, when);
	(void)sd_event_source_set_enabled(*s, SD_EVENT_ONESHOT);
}

static void wait_arm(struct manager *m, usec_t when)
{
	timer_at(m, &m->k8s->wait_timer, when, on_wait_timer);
}

/* Whether a run that talks to the API may start now. */
static bool api_may_run(struct manager *m)
{
	struct k8s *k = m->k8s;

	if (!k->wait.since)
		return true;
	/* one run at a time while it does not answer: a try, or a run that
	 * began before the outage (a step, an annotate beside it); its end
	 * arms the next try */
	if (k->probing || k->annotate_running || (k->op && k->op->running))
		return false;
	if (k8s_wait_may_run(&k->wait, now_monotonic()))
		return true;
	wait_arm(m, k->wait.next);
	return false;
}

static int api_run(struct manager *m, char **args, k8s_done_t done, void *userdata)
{
	int r = k8s_run(m, args, done, userdata);

	if (r >= 0 && m->k8s->wait.since)
		m->k8s->probing = true;
	return r;
}

/* What waited for the server: the operation's step first; the annotate
 * goes too while the server answers, else it waits for the next try. */
static void api_resume(struct manager *m)
{
	struct operation *op = m->k8s->op;

	if (op && op->waiting_api && !op->running && api_may_run(m)) {
		op->waiting_api = false;
		op_run_step(m);
	}
	if (m->k8s->annotate_waiting && api_may_run(m)) {
		m->k8s->annotate_waiting = false;
		annotate_resume(m);
	}
}

static int on_wait_timer(sd_event_source *s, uint64_t usec, void *userdata)
{
	api_resume(userdata);
	return 0;
}

/* Every run that talks to the API, when it ends: an outage begins or goes
 * on (one journal line when it begins), or an answer ends it (one line).
 * Returns whether the run failed for now because of the outage: what it was
 * for waits for the server, and counts as no failure of its own. */
static bool api_seen(struct manager *m, int status, const struct step_result *result)
{
	struct k8s *k = m->k8s;
	char span[FORMAT_TIMESPAN_MAX], cap[FORMAT_TIMESPAN_MAX];
	usec_t t = now_monotonic(), lasted;
	bool probe = k->probing;
	unsigned tries;
	int r;

	k->probing = false;
	if (status == 75 && result->unreachable) {
		r = k8s_wait_failed(&k->wait, t, now_realtime(), m->conf.retry_max_delay,
				    result->retry_after * USEC_PER_SEC, (uint32_t)random(),
				    result->error);
		if (r > 0)
			log_msg(LOG_WARNING,
				"Kubernetes API unreachable: %s; waiting for it (next try in %s, "
				"then less and less often, at least every %s)",
				strna(result->error), format_timespan(span, k->wait.next - t),
				format_timespan(cap, m->conf.retry_max_delay));
		wait_arm(m, k->wait.next);
		return true;
	}
	if (result->requests > 0)
		k->answered = true;
	/* a run that began before the outage and failed in it (k8s-notify says
	 * unreachable only of a run the server never answered): its answers
	 * may all be older than the outage, which goes on until a try's */
	if (k->wait.since && !probe && status != 0) {
		wait_arm(m, k->wait.next);
		return status == 75;
	}
	if (result->requests == 0 || !k8s_wait_answered(&k->wait, t, &lasted, &tries))
		return false;
	log_msg(LOG_NOTICE, "Kubernetes API answers again, after %s unreachable and %u failed %s",
		format_timespan(span, lasted), tries, tries == 1 ? "try" : "tries");
	/* what waited goes now, from the event loop */
	wait_arm(m, t);
	return false;
}

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
	op->failed_now = mfree(op->failed_now);
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
	/* a drain that failed for now keeps its cordon for the next run: given
	 * up, it is lifted (k8s-notify uncordon lifts only a cordon of ours) */
	if (op->drained || op->step == OP_STEP_DRAIN)
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
	struct manager *m = userdata;

	m->k8s->op->retry_at = 0;
	op_run_step(m);
	return 0;
}

static bool op_retry(struct manager *m, usec_t delay)
{
	struct operation *op = m->k8s->op;

	sd_event_source_disable_unref(op->retry);
	op->retry = NULL;
	op->retry_at = now_monotonic() + delay;
	return sd_event_add_time(m->event, &op->retry, CLOCK_MONOTONIC, op->retry_at, 0, on_retry,
				 m) >= 0;
}

/* After a k8s-notify run of the current step: retry a temporary failure
 * (backoff with jitter), fail on a final one. The steps that undo (uncordon,
 * release) are retried whatever the failure, for as long as it takes: our
 * cordon or slot must not stay behind because the API server was away or
 * the credentials were refused for a while. Returns whether it succeeded. */
static bool op_step_ok(struct manager *m, int status, const struct step_result *result, bool outage)
{
	struct operation *op = m->k8s->op;
	const char *error = result->error;
	/* a release without a slot only looks for one of ours that may exist */
	bool undo = op->step == OP_STEP_UNCORDON || (op->step == OP_STEP_RELEASE && op->slot);
	char span[FORMAT_TIMESPAN_MAX];
	usec_t delay;

	if (status == 0)
		return true;
	if (outage) {
		/* no failure of the step: it runs again when the server answers
		 * (api_seen() said so once) */
		op->waiting_api = true;
		return false;
	}
	if (undo || (status == 75 && op->attempts + 1 < RETRIES_MAX)) {
		op->attempts++;
		free(op->failed_now);
		op->failed_now = strdup(strna(error));
		delay = k8s_wait_delay(op->attempts + 1, m->conf.retry_max_delay,
				       (uint32_t)random());
		log_msg(undo && status != 75 ? LOG_WARNING : LOG_NOTICE,
			"Kubernetes %s: %s will be tried again in %s%s: %s",
			op_kind_to_string(op->kind), op_step_to_string(op->step),
			format_timespan(span, delay),
			op->kind == OP_KIND_RECOVER ?
				" (lifting a cordon of ours, if a crash left one)" :
			op->step == OP_STEP_UNCORDON ? " (our cordon stays until then)" :
			undo			     ? " (the slot stays held until then)" :
						       "",
			strna(error));
		if (op_retry(m, delay)) {
			manager_update_summary(m, false); /* the node says what waits */
			return false;
		}
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
	bool outage = api_seen(m, status, result);

	credentials_seen(m, result);
	if (!op)
		return;
	op->running = false;
	if (!op_step_ok(m, status, result, outage))
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
	int r;

	if (!api_may_run(m)) {
		m->k8s->op->waiting_api = true;
		return;
	}
	r = api_run(m, args, on_step_done, NULL);
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

/* Drops the PFs of pfs from the drains waiting: an Apply(), a reload or an
 * edit while this drain ran (or waited for the server) deferred them again,
 * and this drain's apply takes what their layouts say now. */
static void drain_wanted_drop(struct k8s *k, char *const *pfs)
{
	size_t n = 0;

	for (char **p = k->drain_wanted; p && *p; p++)
		if (strv_contains(pfs, *p))
			free(*p);
		else
			k->drain_wanted[n++] = *p;
	if (k->drain_wanted)
		k->drain_wanted[n] = NULL;
}

static void step_apply(struct manager *m)
{
	for (char **p = m->k8s->op->pfs; p && *p; p++) {
		int r = manager_apply_drained(m, *p);

		if (r < 0)
			log_pf(LOG_ERR, *p, "%s: applying after the drain failed: %s", *p,
			       strerror(-r));
	}
	drain_wanted_drop(m->k8s, m->k8s->op->pfs);
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
	if (kind == OP_KIND_RECOVER)
		log_msg(LOG_INFO, "Kubernetes: lifting a cordon of ours if a crash left one "
				  "(k8s-notify uncordon leaves anyone else's alone)");
	else
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

/* The realtime of a CLOCK_MONOTONIC time to come. */
static usec_t mono_to_real(usec_t t)
{
	usec_t mono = now_monotonic();

	return now_realtime() + (t > mono ? t - mono : 0);
}

char **k8s_waiting(const struct manager *m)
{
	const struct k8s *k = m->k8s;
	const struct operation *op = k->op;
	_cleanup_strv_free_ char **l = calloc(1, sizeof(char *));
	char when[FORMAT_RFC3339_MAX];
	int r = l ? 0 : -ENOMEM;

	if (r >= 0 && op && op->waiting_api)
		r = strv_consume(&l, strdup_printf("%s (step %s) waits for the Kubernetes API "
						   "server to answer",
						   op_kind_to_string(op->kind),
						   op_step_to_string(op->step)));
	if (r >= 0 && op && op->retry_at && !op->running)
		r = strv_consume(&l, strdup_printf("%s: %s failed for now (%u of %s), tried again "
						   "at %s: %s",
						   op_kind_to_string(op->kind),
						   op_step_to_string(op->step), op->attempts,
						   op->step == OP_STEP_UNCORDON ||
								   op->step == OP_STEP_RELEASE ?
							   "until done" :
							   "5 at most",
						   format_rfc3339(when, mono_to_real(op->retry_at)),
						   strna(op->failed_now)));
	if (r >= 0 && k->annotate_waiting)
		r = strv_extend(&l, "the node's annotations wait for the Kubernetes API server to "
				    "answer");
	return r < 0 ? NULL : TAKE_PTR(l);
}

struct json_object *k8s_api_json(const struct manager *m)
{
	const struct k8s *k = m->k8s;
	_cleanup_strv_free_ char **waiting = k8s_waiting(m);
	struct json_object *o, *a;

	if (!mainconf_kubernetes_enabled(&m->conf) || !waiting)
		return NULL;
	o = json_object_new_object();
	a = json_object_new_array();
	json_object_object_add(o, "state",
			       json_object_new_string(k->wait.since ? "unreachable" :
						      k->answered   ? "answers" :
								      "unknown"));
	if (k->wait.since) {
		json_object_object_add(o, "unreachable_since_usec",
				       json_object_new_uint64(k->wait.since));
		json_object_object_add(o, "failed_tries",
				       json_object_new_int((int)k->wait.attempts));
		json_object_object_add(o, "next_try_usec",
				       json_object_new_uint64(mono_to_real(k->wait.next)));
		json_object_object_add(
			o, "error", k->wait.error ? json_object_new_string(k->wait.error) : NULL);
	}
	for (char **w = waiting; *w; w++)
		json_object_array_add(a, json_object_new_string(*w));
	json_object_object_add(o, "waiting", a);
	return o;
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

static void annotate_after(struct manager *m, usec_t delay)
{
	timer_at(m, &m->k8s->annotate_timer, now_monotonic() + delay, on_annotate_timer);
}

static void on_annotated(struct manager *m, int status, const struct step_result *result,
			 void *data)
{
	struct k8s *k = m->k8s;
	char *sent = data;
	bool outage = api_seen(m, status, result);

	credentials_seen(m, result);
	k->annotate_running = false;
	if (status != 0) {
		free(sent);
		if (outage) {
			k->annotate_waiting = true; /* api_resume() starts it again */
			return;
		}
		/* refused (403, a webhook): not every second for ever */
		k->annotate_failures++;
		annotate_after(m, k8s_wait_delay(k->annotate_failures + 1, m->conf.retry_max_delay,
						 (uint32_t)random()));
		return;
	}
	k->annotate_failures = 0;
	free(k->annotated);
	k->annotated = sent;
	if (k->annotate_next && !streq_ptr(k->annotate_next, k->annotated))
		k8s_annotate(m, NULL);
}

static int on_annotate_timer(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct manager *m = userdata;

	annotate_resume(m);
	return 0;
}

/* Runs annotate with the newest state, unless it runs already, or the state
 * is published, or the server is waited for. */
static void annotate_resume(struct manager *m)
{
	struct k8s *k = m->k8s;
	char *state;

	if (k->annotate_running || !k->annotate_next || streq_ptr(k->annotate_next, k->annotated))
		return;
	if (!api_may_run(m)) {
		k->annotate_waiting = true;
		return;
	}
	state = strdup(k->annotate_next);
	if (!state)
		return;
	if (api_run(m, (char *[]){ "annotate", "--state", state, NULL }, on_annotated, state) < 0) {
		free(state);
		return;
	}
	k->annotate_running = true;
}

/* Publishes state (NULL: the one waiting) on the node, at most once a second;
 * the newest state replaces one that waits. */
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
	if (!m->k8s->annotate_next || streq_ptr(m->k8s->annotate_next, m->k8s->annotated) ||
	    m->k8s->annotate_waiting)
		return;
	if (m->k8s->annotate_timer) {
		int on = SD_EVENT_OFF;

		/* armed: at most once a second, or backing off after a refusal */
		(void)sd_event_source_get_enabled(m->k8s->annotate_timer, &on);
		if (on != SD_EVENT_OFF)
			return;
	}
	annotate_after(m, USEC_PER_SEC);
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
	sd_event_source_disable_unref(k->wait_timer);
	k8s_wait_done(&k->wait);
	sd_event_source_disable_unref(k->credentials_timer);
	if (k->credentials)
		json_object_put(k->credentials);
	free(k);
	return NULL;
}
