/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* What happened since the daemon started, for GetMetrics() (sriovctl
 * metrics): drift noticed and repaired per PF, applies by result, drains and
 * reboots by result. An observer of the manager: each counter moves where
 * the event is published, with no timer or wakeup of its own. Counters
 * start at 0 with the daemon; Prometheus takes a counter that goes back to
 * 0 as a restart (rate(), increase()), and the start time is given beside
 * them. m->counters is its state. */

#include <json-c/json.h>

#include "manager.h"

/* The result of an Applied() signal, as the metrics' label says it. */
enum counter_apply {
	COUNTER_APPLY_APPLIED,
	COUNTER_APPLY_HELD,
	COUNTER_APPLY_DEFERRED,
	COUNTER_APPLY_DEGRADED,
	COUNTER_APPLY_FAILED,
	_COUNTER_APPLY_MAX,
	_COUNTER_APPLY_INVALID = -EINVAL,
};

/* A drain or reboot operation's end. */
enum counter_op {
	COUNTER_OP_SUCCEEDED,
	COUNTER_OP_FAILED,
	_COUNTER_OP_MAX,
	_COUNTER_OP_INVALID = -EINVAL,
};

struct pf_counters {
	char pci[PCI_ADDR_MAX];
	uint64_t drift_events; /* DriftDetected signals */
	uint64_t repairs;      /* applies started for drift (Mode=repair) */
};

struct counters {
	usec_t started; /* CLOCK_REALTIME */
	/* every PF seen since the start, in the order seen; one that is gone
	 * keeps its counters */
	struct pf_counters *pfs;
	size_t n_pfs;
	uint64_t applies[_COUNTER_APPLY_MAX];
	uint64_t drains[_COUNTER_OP_MAX];
	uint64_t reboots[_COUNTER_OP_MAX];
};

/* m->counters, observing m: before the first PF is added. */
int counters_new(struct manager *m);
struct counters *counters_free(struct counters *c);

/* An Applied() result (0 or -errno) as its label. */
enum counter_apply counter_apply_from_result(int result) _const_;
const char *counter_apply_to_string(enum counter_apply a) _pure_;
const char *counter_op_to_string(enum counter_op o) _pure_;

/* The GetMetrics() document: the counters, with the Kubernetes API's state
 * and when the credentials expire as k8s.c last found them. NULL on ENOMEM. */
struct json_object *counters_json(const struct manager *m);
