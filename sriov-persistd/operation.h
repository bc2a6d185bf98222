/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* An operation through the Kubernetes API as a record: operation.json, kept
 * across a crash or a reboot, and what a k8s-notify run reports back. Pure:
 * text in, text out; k8s-record.c reads and writes the file. */

#include <json-c/json.h>
#include <systemd/sd-event.h>

#include "decide.h"
#include "util.h"

enum op_kind {
	OP_KIND_DRAIN,
	OP_KIND_REBOOT,
	OP_KIND_RECOVER,
	OP_KIND_DEVICE_PLUGIN,
	_OP_KIND_MAX,
	_OP_KIND_INVALID = -EINVAL,
};

enum op_step {
	OP_STEP_LEASE,
	OP_STEP_DRAIN,
	OP_STEP_APPLY,
	OP_STEP_DEVICE_PLUGIN,
	OP_STEP_REBOOT,
	OP_STEP_UNCORDON,
	OP_STEP_RELEASE,
	OP_STEP_DONE,
	_OP_STEP_MAX,
	_OP_STEP_INVALID = -EINVAL,
};

/* One operation through the Kubernetes API. */
struct operation {
	enum op_kind kind;
	enum op_step step;
	char **pfs;	    /* drain: the PFs it is for */
	char *slot;	    /* the Lease slot held */
	bool lease_unknown; /* a lease step was cut short: release looks for a slot of ours */
	/* recover: no record says a cordon of ours was made; the uncordon only
	 * looks for one */
	bool cordon_unknown;
	bool drained;	    /* cordoned and drained: uncordon when done or failed */
	bool reset_instead; /* reboot: firmware resets stood in for it */
	bool interrupted;   /* found at start in the boot it began in: undone, so failed */
	/* interrupted before it applied (drain) or asked logind (reboot): once
	 * undone, a new one starts for the PFs the first check deferred again,
	 * or for the reboot it found due (not recorded) */
	bool resume;
	char *reasons;	  /* reboot: the reasons it is for, one per line */
	char *error;	  /* the step that failed, and why */
	char *failed_now; /* why the step failed for now, until it runs again */
	unsigned attempts;
	bool running;
	bool waiting_api; /* the step waits for the API server to answer */
	usec_t retry_at;  /* CLOCK_MONOTONIC: the step's next try; 0 none planned */
	char boot_id[33]; /* the boot it started in */
	sd_event_source *retry;
};

const char *op_kind_to_string(enum op_kind k) _pure_;
enum op_kind op_kind_from_string(const char *s) _pure_;
const char *op_step_to_string(enum op_step s) _pure_;
enum op_step op_step_from_string(const char *s) _pure_;

void operation_free(struct operation *op);

/* Whether s can be a Lease slot's name as k8s-notify gives it: a DNS label. */
bool op_slot_is_valid(const char *s) _pure_;

/* The step after a failed one: undo what was done, in order. */
enum op_step operation_abort_step(const struct operation *op) _pure_;
/* What the summary shows while op (NULL: none) runs (manager.operation). */
enum manager_state operation_manager_state(const struct operation *op) _pure_;
/* The operation as GetStatus() shows it: kind, step, pfs, slot, error. */
struct json_object *operation_json(const struct operation *op);

/* operation.json: what survives the daemon (kind, step, slot, drained,
 * boot_id, reasons, pfs). NULL on ENOMEM. */
char *operation_format(const struct operation *op);
/* An operation waiting to try its step again, as people read it: "drain:
 * drain failed for now (attempt 2 of 5 at most), tried again at ...: why";
 * an undo step is tried until it is done. NULL on ENOMEM. */
char *operation_retry_text(const struct operation *op, unsigned retries_max, usec_t retry_real);
/* Reads it back: -EBADMSG for anything operation_format() does not write
 * (a file cut short, edited by hand, or from another version). */
int operation_parse(const char *text, struct operation **ret);

/* What the daemon takes from a k8s-notify run's JSON result (stdout). */
struct step_result {
	char *error; /* "error": the failure in k8s-notify's words; NULL when none */
	char *slot;  /* "slot": lease acquire's slot; NULL when none */
	/* "credentials": kind, source, expires, warning (strings or null); NULL
	 * when the run did not get as far as reading them */
	struct json_object *credentials;
	/* "unreachable": the run failed for want of an answer from the API
	 * server (or only 429 and 5xx); "retry_after": what the server asked
	 * for, in seconds (0: nothing); "requests": how many it answered */
	bool unreachable;
	unsigned retry_after;
	unsigned requests;
};
void step_result_done(struct step_result *r);
/* -EBADMSG when out is not one JSON object, or "error" or "slot" has the
 * wrong type, or the slot is not a valid name, or "credentials" is not an
 * object of those strings, or "unreachable" is no boolean, or "retry_after"
 * or "requests" no count (retry_after at most a day); r is then empty. */
int step_result_parse(const char *out, struct step_result *ret);
