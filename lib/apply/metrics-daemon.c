/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* The daemon's metric families (metrics-internal.h): what sriov-persistd
 * counted since it started, as its GetMetrics() document gives it, and the
 * Kubernetes API's state and credentials. Counters come as the daemon
 * counted them (from 0 at its start, which sriov_persist_daemon_start_time_seconds
 * gives: Prometheus takes a counter that goes back as a reset); a label's
 * values are the daemon's, so that a result it adds is not lost here. */

#include "metrics-internal.h"
#include "util.h"

static struct json_object *member(struct json_object *o, const char *key)
{
	struct json_object *v;

	return o && json_object_object_get_ex(o, key, &v) ? v : NULL;
}

static bool member_u64(struct json_object *o, const char *key, uint64_t *ret)
{
	struct json_object *v = member(o, key);

	if (!json_object_is_type(v, json_type_int))
		return false;
	*ret = json_object_get_uint64(v);
	return true;
}

static const char *member_str(struct json_object *o, const char *key)
{
	struct json_object *v = member(o, key);

	return json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}

struct daemon_family;
typedef int (*daemon_emit_t)(FILE *f, const struct daemon_family *fam, struct json_object *d,
			     const char *only_pci);

struct daemon_family {
	const char *name, *type, *help;
	daemon_emit_t emit;
	const char *key;   /* the document's member it reads */
	const char *label; /* of by_label(): the label its keys go in */
};

static int emit_start_time(FILE *f, const struct daemon_family *fam, struct json_object *d,
			   const char *only_pci)
{
	uint64_t t;

	if (!member_u64(d, fam->key, &t))
		return 0;
	return metrics_series_usec(f, fam->name, NULL, 0, t);
}

/* One series per PF of the document's "pfs", its count of fam->key. */
static int emit_per_pf(FILE *f, const struct daemon_family *fam, struct json_object *d,
		       const char *only_pci)
{
	struct json_object *pfs = member(d, "pfs");
	size_t n = json_object_is_type(pfs, json_type_array) ? json_object_array_length(pfs) : 0;

	for (size_t i = 0; i < n; i++) {
		struct json_object *pf = json_object_array_get_idx(pfs, i);
		const char *pci = member_str(pf, "pci");
		uint64_t v;

		if (!pci || !member_u64(pf, fam->key, &v) || (only_pci && !streq(pci, only_pci)))
			continue;
		if (metrics_series_u64(f, fam->name,
				       (const struct metrics_label[]){ { "pf_pci", pci } }, 1,
				       v) < 0)
			return -ENOMEM;
	}
	return 0;
}

/* {"label value": count, ...}: one series each. */
static int emit_by_label(FILE *f, const struct daemon_family *fam, struct json_object *d,
			 const char *only_pci)
{
	struct json_object *o = member(d, fam->key);

	if (!json_object_is_type(o, json_type_object))
		return 0;
	json_object_object_foreach(o, key, val)
	{
		if (!json_object_is_type(val, json_type_int))
			continue;
		if (metrics_series_u64(f, fam->name,
				       (const struct metrics_label[]){ { fam->label, key } }, 1,
				       json_object_get_uint64(val)) < 0)
			return -ENOMEM;
	}
	return 0;
}

/* When the reboot for the pending reboot reasons failed, while that failure
 * stands (the daemon tries it no more on its own); 0 when none stands. A
 * gauge, since a counter born at 1 (a reboot failed at the daemon's start)
 * shows no increase(). */
static int emit_reboot_failed(FILE *f, const struct daemon_family *fam, struct json_object *d,
			      const char *only_pci)
{
	uint64_t t;

	if (!member_u64(d, fam->key, &t))
		return metrics_series(f, fam->name, NULL, 0, "0");
	return metrics_series_usec(f, fam->name, NULL, 0, t);
}

/* As pf_state: one series per state, 1 for the current one. No series
 * where Kubernetes is not enabled (null). */
static int emit_api_state(FILE *f, const struct daemon_family *fam, struct json_object *d,
			  const char *only_pci)
{
	static const char *const states[] = { "unknown", "answers", "unreachable" };
	const char *now = member_str(d, fam->key);
	bool known = false;

	if (!now)
		return 0;
	for (size_t i = 0; i < ELEMENTSOF(states); i++) {
		bool is = streq(now, states[i]);

		known = known || is;
		if (metrics_series(f, fam->name,
				   (const struct metrics_label[]){ { "state", states[i] } }, 1,
				   is ? "1" : "0") < 0)
			return -ENOMEM;
	}
	if (!known)
		return metrics_series(f, fam->name,
				      (const struct metrics_label[]){ { "state", now } }, 1, "1");
	return 0;
}

/* When the credentials k8s-notify last read expire; none while that is not
 * known (never read, or a token that does not say). */
static int emit_credentials_expiry(FILE *f, const struct daemon_family *fam, struct json_object *d,
				   const char *only_pci)
{
	struct json_object *c = member(d, fam->key);
	uint64_t t;

	if (!member_u64(c, "expires_usec", &t))
		return 0;
	return metrics_series_usec(
		f, fam->name, (const struct metrics_label[]){ { "kind", member_str(c, "kind") } },
		1, t);
}

static const struct daemon_family daemon_families[] = {
	{ "daemon_start_time_seconds", "gauge",
	  "When sriov-persistd started: its counters count from then.", emit_start_time,
	  "start_time_usec" },
	{ "daemon_drift_events_total", "counter",
	  "Times the daemon found the PF drifted from its layout (DriftDetected).", emit_per_pf,
	  "drift_events" },
	{ "daemon_repairs_total", "counter",
	  "Times the daemon applied the PF's layout again because it drifted.", emit_per_pf,
	  "repairs" },
	{ "daemon_applies_total", "counter", "The daemon's applies and resets of a PF, by result.",
	  emit_by_label, "applies", "result" },
	{ "daemon_drains_total", "counter", "Drains of the node through Kubernetes, by result.",
	  emit_by_label, "drains", "result" },
	{ "daemon_reboots_total", "counter",
	  "Reboots for pending reboot reasons, by result (counted when they end: after the boot).",
	  emit_by_label, "reboots", "result" },
	{ "daemon_reboot_failed_timestamp_seconds", "gauge",
	  "When the reboot for pending reboot reasons failed, while it stands (not tried again on its own); 0 when none.",
	  emit_reboot_failed, "reboot_failed_usec" },
	{ "kubernetes_api_state", "gauge",
	  "The Kubernetes API server as the daemon's runs found it: 1 for the current state.",
	  emit_api_state, "kubernetes_api" },
	{ "kubernetes_credentials_expiry_timestamp_seconds", "gauge",
	  "When the Kubernetes credentials k8s-notify last read expire.", emit_credentials_expiry,
	  "credentials" },
};

int metrics_format_daemon(FILE *f, struct json_object *daemon, const char *only_pci)
{
	metrics_header(f, "daemon_up", "gauge", "1 when sriov-persistd answered on the bus.");
	if (metrics_series(f, "daemon_up", NULL, 0, daemon ? "1" : "0") < 0)
		return -ENOMEM;
	if (!daemon)
		return 0;
	for (size_t k = 0; k < ELEMENTSOF(daemon_families); k++) {
		const struct daemon_family *fam = &daemon_families[k];

		metrics_header(f, fam->name, fam->type, fam->help);
		if (fam->emit(f, fam, daemon, only_pci) < 0)
			return -ENOMEM;
	}
	return 0;
}
