/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* Operations that go through the Kubernetes API (k8s-notify), one at a time:
 *   drain:  lease slot, drain (cordons), apply the deferred PFs, device plugin,
 *           uncordon, release;
 *   reboot: lease slot, drain, record, reboot through logind; after the boot:
 *           uncordon, release;
 *   recover: at start, lift a cordon of ours that a crash left behind;
 *   device-plugin: restart it when its resources changed.
 * Each step is a k8s-notify run (through k8s-api.c); the event loop goes on
 * meanwhile. A drain or reboot is recorded at each step (k8s-record.c). */

#include <stdarg.h>
#include <syslog.h>
#include <systemd/sd-daemon.h>

#include "firmware-reset.h"
#include "json-util.h"
#include "k8s-internal.h"
#include "k8s-record.h"
#include "logind.h"
#include "manager-check.h"
#include "manager-summary.h"
#include "status.h"

#define LEASE_WAIT_SEC "600"

/* Whether op goes through Kubernetes: all but a reboot that [Reboot]
 * Policy=immediate makes, or that runs where Kubernetes is not enabled. */
static bool op_kubernetes(const struct manager *m, const struct operation *op)
{
	return mainconf_kubernetes_enabled(&m->conf) &&
	       (op->kind != OP_KIND_REBOOT || m->conf.reboot_policy == REBOOT_POLICY_COORDINATED);
}

const char *k8s_op_title(const struct manager *m, const struct operation *op, char **buf)
{
	if (!op_kubernetes(m, op))
		return "Reboot for the pending reboot reasons";
	*buf = strdup_printf("Kubernetes %s", op_kind_to_string(op->kind));
	return *buf ?: "Kubernetes operation";
}

/* What waited for the server: the operation's step first; the annotate
 * goes too while the server answers, else it waits for the next try. */
static void api_resume(struct manager *m)
{
	struct k8s *k = m->k8s;

	if (k->op && k->op->waiting_api && !k->op->running && k8s_api_may_run(&k->api)) {
		k->op->waiting_api = false;
		k8s_op_run_step(m);
	}
	if (k->annotate.waiting && k8s_api_may_run(&k->api)) {
		k->annotate.waiting = false;
		k8s_annotate_resume(&k->annotate);
	}
}

void k8s_op_set_step(struct manager *m, enum op_step step)
{
	struct operation *op = m->k8s->op;

	op->step = step;
	op->attempts = 0;
	op->failed_now = mfree(op->failed_now);
	if (op->kind == OP_KIND_DRAIN || op->kind == OP_KIND_REBOOT) {
		if (step == OP_STEP_DONE)
			k8s_record_forget(m->state_dir);
		else if (k8s_record_save(m->state_dir, op) < 0)
			log_msg(LOG_WARNING, "Recording the %s in %s failed",
				op_kind_to_string(op->kind), m->state_dir);
	}
	(void)sd_notifyf(false, "STATUS=%s: %s", op_kind_to_string(op->kind),
			 op_step_to_string(step));
	m->operation = operation_manager_state(op);
	manager_update_summary(m, false);
}

static void op_fail(struct manager *m, const char *fmt, ...) _printf_(2, 3);
static void op_fail(struct manager *m, const char *fmt, ...)
{
	struct operation *op = m->k8s->op;
	_cleanup_free_ char *title = NULL;
	va_list ap;
	char *e = NULL;

	va_start(ap, fmt);
	e = strdup_vprintf(fmt, ap);
	va_end(ap);
	log_msg(LOG_ERR, "%s failed at %s: %s", k8s_op_title(m, op, &title),
		op_step_to_string(op->step), strna(e));
	if (!op->error) {
		_cleanup_free_ char *reason = NULL;

		op->error = strdup_printf("%s failed: %s", op_step_to_string(op->step), strna(e));
		/* a drain given up before it applied is not started again on
		 * its own (pf_entry.given_up): the PFs' reason says what does */
		if (op->error && op->kind == OP_KIND_DRAIN &&
		    (op->step == OP_STEP_LEASE || op->step == OP_STEP_DRAIN))
			reason = strdup_printf("%s; %snot started again on its own: sriovctl apply "
					       "starts it again once the cause is fixed",
					       op->error,
					       op->step == OP_STEP_DRAIN ? "" : "the drain is ");
		for (char **p = op->pfs; p && *p; p++)
			manager_pf_failed(m, *p, reason ?: op->error);
	}
	/* a reboot that did not happen (its lease, drain or logind failed) is
	 * not tried again on its own: the daemon is degraded until it is */
	if (op->kind == OP_KIND_REBOOT && !m->reboot_failed &&
	    (op->step == OP_STEP_LEASE || op->step == OP_STEP_DRAIN ||
	     op->step == OP_STEP_REBOOT)) {
		_cleanup_free_ char *why = op->step == OP_STEP_REBOOT ?
						   strdup(strna(e)) :
						   strdup_printf("%s failed: %s",
								 op_step_to_string(op->step),
								 strna(e));

		manager_reboot_failed(m, why ?: op->error);
	}
	free(e);
	k8s_op_set_step(m, operation_abort_step(op));
	k8s_op_run_step(m);
}

static int on_retry(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct manager *m = userdata;

	m->k8s->op->retry_at = 0;
	k8s_op_run_step(m);
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

/* Plans another run of the current step after a delay (backoff with
 * jitter); returns whether it did. undo: the step lifts our cordon or
 * releases our slot. */
static bool op_try_again(struct manager *m, bool undo, const char *error)
{
	struct operation *op = m->k8s->op;
	char span[FORMAT_TIMESPAN_MAX];
	usec_t delay;

	op->attempts++;
	free(op->failed_now);
	op->failed_now = strdup(strna(error));
	delay = k8s_wait_delay(op->attempts + 1, m->conf.retry_max_delay, (uint32_t)random());
	log_msg(LOG_NOTICE, "Kubernetes %s: %s will be tried again in %s%s: %s",
		op_kind_to_string(op->kind), op_step_to_string(op->step),
		format_timespan(span, delay),
		op->kind == OP_KIND_RECOVER  ? " (lifting a cordon of ours, if a crash left one)" :
		op->step == OP_STEP_UNCORDON ? " (our cordon stays until then)" :
		undo			     ? " (the slot stays held until then)" :
					       "",
		strna(error));
	if (!op_retry(m, delay))
		return false;
	manager_update_summary(m, false); /* the node says what waits */
	return true;
}

/* Whether what an undo step's final failure says differs from the last
 * time: the same refusal, tried again every RetryMaxDelaySec=, is logged
 * once. */
static bool undo_news(struct k8s *k, const char *what)
{
	if (streq_ptr(k->undo_logged, what))
		return false;
	(void)free_and_strdup(&k->undo_logged, what);
	return true;
}

static int on_left_timer(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct manager *m = userdata;

	m->k8s->left_retry = true;
	k8s_next(m);
	return 0;
}

/* An undo step (uncordon, release of our slot) failed for good: retrying
 * it gives the same answer until the operator fixes the cause (credentials,
 * RBAC), which may happen without a reload, so it is tried again only at the
 * slowest pace of a retry, or at once by a reload or Apply(). What it leaves
 * stays visible (waiting, the node's annotations, the journal) until then;
 * one that nothing says exists (the look at start for a cordon a crash may
 * have left) only in the journal. The operation goes on undoing, and the PFs
 * it was for keep the outcome they had. */
static void undo_failed(struct manager *m, const char *error)
{
	struct k8s *k = m->k8s;
	struct operation *op = k->op;
	bool cordon = op->step == OP_STEP_UNCORDON;
	char **left = cordon ? &k->left_cordon : &k->left_slot;
	char span[FORMAT_TIMESPAN_MAX];

	k->left_retry = false; /* a reload before this failure does not try it again */
	/* the operator may fix the cause (RBAC) without a reload: tried again
	 * at the slowest pace of a retry */
	k8s_timer_at(m->event, &k->left_timer, now_monotonic() + m->conf.retry_max_delay,
		     on_left_timer, m);
	format_timespan(span, m->conf.retry_max_delay);
	if (cordon && op->cordon_unknown) {
		/* nothing says there is one: no cordon to report as left */
		k->recover_again = true;
		log_msg(undo_news(k, error) ? LOG_WARNING : LOG_DEBUG,
			"Kubernetes: looking for a cordon of ours that a crash may have left "
			"failed: %s; no record says one was made, so none is reported; looked "
			"for again in %s, or when the daemon reloads or Apply() is called",
			strna(error), span);
		k8s_op_set_step(m, op->slot || op->lease_unknown ? OP_STEP_RELEASE : OP_STEP_DONE);
		k8s_op_run_step(m);
		return;
	}
	free(*left);
	*left = strdup_printf("%s: %s was refused: %s; %s stays until the cause is fixed: "
			      "tried again every %s ([Kubernetes] RetryMaxDelaySec=), at once when "
			      "the daemon reloads (systemctl reload sriov-persistd) or Apply() is "
			      "called",
			      op_kind_to_string(op->kind), op_step_to_string(op->step),
			      strna(error),
			      cordon ? "a cordon of ours, if there is one," : "our Lease slot",
			      span);
	log_msg(undo_news(k, *left) ? LOG_ERR : LOG_DEBUG, "Kubernetes %s", strna(*left));
	k8s_op_set_step(m,
			cordon && (op->slot || op->lease_unknown) ? OP_STEP_RELEASE : OP_STEP_DONE);
	k8s_op_run_step(m);
}

/* After a k8s-notify run of the current step: retry a temporary failure,
 * fail on a final one. The steps that undo (uncordon, release) are retried
 * after a temporary failure for as long as it takes: our cordon or slot
 * must not stay behind because the API server was away for a while; a
 * final failure of them is the operator's to fix (undo_failed()). Returns
 * whether it succeeded. */
static bool op_step_ok(struct manager *m, int status, const struct step_result *result, bool outage)
{
	struct operation *op = m->k8s->op;
	const char *error = result->error;
	/* a release without a slot only looks for one of ours that may exist */
	bool undo = op->step == OP_STEP_UNCORDON || (op->step == OP_STEP_RELEASE && op->slot);

	if (status == 0)
		return true;
	if (outage) {
		/* no failure of the step: it runs again when the server answers
		 * (k8s_api_seen() said so once) */
		op->waiting_api = true;
		return false;
	}
	if (status == 75 && (undo || op->attempts + 1 < K8S_RETRIES_MAX) &&
	    op_try_again(m, undo, error))
		return false;
	if (undo) {
		undo_failed(m, error ?: "k8s-notify failed");
		return false;
	}
	if (op->step == OP_STEP_RELEASE) {
		log_msg(LOG_WARNING,
			"Kubernetes %s: looking for a slot of ours to release failed; a slot "
			"taken by an interrupted lease step is free again when its lease "
			"expires: %s",
			op_kind_to_string(op->kind), strna(error));
		k8s_op_set_step(m, OP_STEP_DONE);
		k8s_op_run_step(m);
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
	bool outage = k8s_api_seen(&m->k8s->api, status, result);

	k8s_credentials_seen(&m->k8s->api, result);
	if (!op)
		return;
	op->running = false;
	if (!op_step_ok(m, status, result, outage))
		return;
	switch (op->step) {
	case OP_STEP_LEASE:
		free(op->slot);
		op->slot = result->slot ? strdup(result->slot) : NULL;
		k8s_op_set_step(m, OP_STEP_DRAIN);
		break;
	case OP_STEP_DRAIN:
		op->drained = true;
		k8s_op_set_step(m, op->kind == OP_KIND_REBOOT ? OP_STEP_REBOOT : OP_STEP_APPLY);
		break;
	case OP_STEP_DEVICE_PLUGIN:
		k8s_op_set_step(m, op->drained ? OP_STEP_UNCORDON : OP_STEP_DONE);
		break;
	case OP_STEP_UNCORDON:
		op->drained = false;
		m->k8s->left_cordon = mfree(m->k8s->left_cordon); /* none of ours is left */
		k8s_op_set_step(m, op->slot || op->lease_unknown ? OP_STEP_RELEASE : OP_STEP_DONE);
		break;
	case OP_STEP_RELEASE:
		op->slot = mfree(op->slot);
		m->k8s->left_slot = mfree(m->k8s->left_slot); /* none of ours is left */
		k8s_op_set_step(m, OP_STEP_DONE);
		break;
	case OP_STEP_APPLY:
	case OP_STEP_REBOOT:
	case OP_STEP_DONE:
	case _OP_STEP_MAX:
	case _OP_STEP_INVALID:
		break;
	}
	k8s_op_run_step(m);
}

static void run(struct manager *m, char **args)
{
	int r;

	if (!k8s_api_may_run(&m->k8s->api)) {
		m->k8s->op->waiting_api = true;
		return;
	}
	r = k8s_api_run(&m->k8s->api, args, on_step_done, NULL);
	if (r < 0) {
		op_fail(m, "cannot run k8s-notify: %s", strerror(-r));
		return;
	}
	m->k8s->op->running = true;
}

/* Only the pods that use the VFs a drain is for: the resources of its PFs,
 * of every PF for a reboot. */
static void step_drain(struct manager *m)
{
	_cleanup_strv_free_ char **args = NULL;

	if (strv_extend(&args, "drain") < 0 ||
	    k8s_node_resource_args(m, m->k8s->op->kind == OP_KIND_REBOOT ? NULL : m->k8s->op->pfs,
				   &args) < 0) {
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
		int r = manager_apply_wanted(m, *p, true);

		if (r < 0)
			log_pf(LOG_ERR, *p, "%s: applying after the drain failed: %s", *p,
			       strerror(-r));
	}
	drain_wanted_drop(m->k8s, m->k8s->op->pfs);
	k8s_op_set_step(m, OP_STEP_DEVICE_PLUGIN);
	k8s_op_run_step(m);
}

/* After a drain, also the DaemonSet pods that use the PFs' VFs: the drain
 * evicted them, but their DaemonSet recreated them with the VFs of before. */
static void step_device_plugin(struct manager *m)
{
	struct operation *op = m->k8s->op;
	_cleanup_strv_free_ char **args = NULL;
	int r;

	r = k8s_node_device_plugin_args(m, &args);
	if (r >= 0)
		m->k8s->device_plugin_wanted = false; /* this restart is the one wanted */
	if (r >= 0 && op->kind == OP_KIND_DRAIN)
		r = k8s_node_resource_args(m, op->pfs, &args);
	if (r < 0) {
		op_fail(m, "device plugin: %s", strerror(-r));
		return;
	}
	run(m, args);
}

/* A drain or a reboot ended: failed when a step failed, or when it was
 * interrupted (a crash, a restart) and undone at start. A reboot ends in
 * the boot after it (or when a firmware reset stood in for it). */
static void op_tell_done(struct manager *m, const struct operation *op)
{
	int result = op->error || op->interrupted ? -EIO : 0;

	if (op->kind == OP_KIND_DRAIN)
		manager_notify(m, MANAGER_DRAIN_DONE, .result = result);
	else if (op->kind == OP_KIND_REBOOT)
		manager_notify(m, MANAGER_REBOOT_DONE, .result = result);
}

static void op_finish(struct manager *m)
{
	struct operation *op = m->k8s->op;
	_cleanup_free_ char *title = NULL, *said = NULL;

	op_tell_done(m, op);
	/* before it ends: nothing starts while its PFs are looked at again */
	if (op->resume)
		said = k8s_resume(m, op);
	op = TAKE_PTR(m->k8s->op);
	if (op->interrupted && !op->error)
		/* undone: "done" would say the change was made */
		log_msg(LOG_INFO, "%s: interrupted %s undone%s%s", k8s_op_title(m, op, &title),
			op_kind_to_string(op->kind), said ? "; " : "", strempty(said));
	else if (!op->error)
		log_msg(LOG_INFO, "%s done%s", k8s_op_title(m, op, &title),
			op->reset_instead ? ": a firmware reset stood in for it" : "");
	operation_free(op);
	m->operation = operation_manager_state(NULL);
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

/* The reasons as they stand now count as tried: not reset or rebooted for
 * again on their own. */
static void reasons_tried(struct manager *m)
{
	_cleanup_strv_free_ char **reasons = manager_reboot_reasons(m);

	free(m->k8s->reboot_tried);
	m->k8s->reboot_tried = reasons && reasons[0] ? strv_join(reasons, "\n") : NULL;
}

static void step_reboot(struct manager *m)
{
	struct operation *op = m->k8s->op;

	if (m->conf.firmware_reset && manager_firmware_reset(m) == FIRMWARE_RESET_DONE) {
		op->reset_instead = true;
		reasons_tried(m);
		k8s_op_set_step(m, op->drained ? OP_STEP_DEVICE_PLUGIN : OP_STEP_DONE);
		k8s_op_run_step(m);
		return;
	}
	log_msg(LOG_NOTICE, "Asking logind to reboot for the pending reboot reasons");
	logind_reboot(m->bus, reboot_done, m);
}

void k8s_op_run_step(struct manager *m)
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

int k8s_op_start_full(struct manager *m, enum op_kind kind, enum op_step step, char **pfs,
		      bool lease_unknown, bool cordon_unknown)
{
	struct operation *op = calloc(1, sizeof(*op));
	_cleanup_free_ char *title = NULL;

	if (!op) {
		strv_free(pfs);
		return -ENOMEM;
	}
	op->kind = kind;
	op->pfs = pfs;
	op->lease_unknown = lease_unknown;
	op->cordon_unknown = cordon_unknown;
	snprintf(op->boot_id, sizeof(op->boot_id), "%s", manager_boot_id(m));
	if (kind == OP_KIND_REBOOT && m->k8s->reboot_tried)
		op->reasons = strdup(m->k8s->reboot_tried);
	if (kind == OP_KIND_REBOOT)
		manager_reboot_failed(m, NULL); /* tried again */
	m->k8s->op = op;
	if (kind == OP_KIND_RECOVER)
		log_msg(LOG_INFO, "Kubernetes: lifting a cordon of ours if a crash left one "
				  "(k8s-notify uncordon leaves anyone else's alone)");
	else if (op_kubernetes(m, op))
		log_msg(LOG_INFO, "%s: starting", k8s_op_title(m, op, &title));
	else
		log_msg(LOG_INFO, "%s: starting, without Kubernetes (%s: no slot, cordon or drain)",
			k8s_op_title(m, op, &title),
			mainconf_kubernetes_enabled(&m->conf) ? "[Reboot] Policy=immediate" :
								"not enabled");
	k8s_op_set_step(m, step);
	k8s_op_run_step(m);
	return 0;
}

static int op_start(struct manager *m, enum op_kind kind, enum op_step step, char **pfs)
{
	return k8s_op_start_full(m, kind, step, pfs, false, false);
}

/* What an undo step that failed for good left, tried again (a reload, an
 * Apply(), once the operation under way is over): a cordon of ours lifted,
 * a slot of ours released. Returns whether it started. */
static bool retry_left_behind(struct manager *m)
{
	struct k8s *k = m->k8s;
	bool slot = k->left_slot, known = k->left_cordon;

	if (!k->left_retry || k->op || k->starting)
		return false;
	k->left_retry = false;
	if (!(k->left_cordon || k->left_slot || k->recover_again) ||
	    !mainconf_kubernetes_enabled(&m->conf))
		return false;
	k->left_cordon = mfree(k->left_cordon);
	k->left_slot = mfree(k->left_slot);
	k->recover_again = false;
	return k8s_op_start_full(m, OP_KIND_RECOVER, OP_STEP_UNCORDON, NULL, slot, !known) >= 0;
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
	if (retry_left_behind(m) || !mainconf_kubernetes_enabled(&m->conf))
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

struct json_object *k8s_operation_json(const struct k8s *k)
{
	return k && k->op ? operation_json(k->op) : NULL;
}

struct json_object *k8s_credentials_json(const struct k8s *k)
{
	return k ? k8s_api_credentials_json(&k->api) : NULL;
}

/* After the summary: reboot decision, drains waiting, node annotation. */
static void summary(struct manager *m)
{
	struct k8s *k = m->k8s;
	_cleanup_strv_free_ char **waiting = NULL;
	_cleanup_free_ char *state = NULL;

	if (!(k->op && k->op->kind == OP_KIND_REBOOT) && k8s_node_reboot_due(m, &k->reboot_tried)) {
		k->reboot_wanted = true;
		k8s_next(m);
	}
	k8s_next(m); /* PFs waiting for a drain */
	if (!mainconf_kubernetes_enabled(&m->conf))
		return;
	waiting = k8s_waiting(m);
	state = k8s_node_state(m, waiting);
	if (state)
		k8s_annotate(&k->annotate, state);
}

static void on_event(struct manager *m, const struct manager_event *ev, void *userdata)
{
	struct k8s *k = m->k8s;

	switch (ev->type) {
	case MANAGER_PF_VFS_CHANGED:
		k->node.vfs_changed = true;
		return;
	case MANAGER_PF_WANTS_DRAIN:
		if (!strv_contains(k->drain_wanted, ev->pci) &&
		    strv_extend(&k->drain_wanted, ev->pci) < 0)
			log_msg(LOG_ERR, "%s: cannot queue a drain: %s", ev->pci, strerror(ENOMEM));
		return;
	case MANAGER_APPLY_ASKED:
		k->reboot_tried = mfree(k->reboot_tried);
		k->left_retry = true;
		k8s_next(m);
		return;
	case MANAGER_CONFIG_LOADED:
		k->left_retry = true;
		k8s_next(m);
		return;
	case MANAGER_LOOKED:
		if (k8s_node_device_plugin_sync(&k->node, m)) {
			k->device_plugin_wanted = true;
			k8s_next(m);
		}
		return;
	case MANAGER_SUMMARY:
		summary(m);
		return;
	case MANAGER_PF_ADDED:
	case MANAGER_PF_REMOVED:
	case MANAGER_PF_CHANGED:
	case MANAGER_PF_DRIFTED:
	case MANAGER_PF_APPLIED:
	case MANAGER_SUMMARY_CHANGED:
	case MANAGER_CHECKED:
	case MANAGER_PF_REPAIRING:
	case MANAGER_DRAIN_DONE:
	case MANAGER_REBOOT_DONE:
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
	k8s_api_init(&m->k8s->api, m, api_resume);
	k8s_annotate_init(&m->k8s->annotate, &m->k8s->api);
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
	free(k->left_cordon);
	free(k->left_slot);
	sd_event_source_disable_unref(k->left_timer);
	free(k->undo_logged);
	k8s_node_done(&k->node);
	k8s_annotate_done(&k->annotate);
	k8s_api_done(&k->api);
	free(k);
	return NULL;
}
