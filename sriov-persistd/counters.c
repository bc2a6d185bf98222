/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* Counters of what the daemon did since it started (counters.h), moved by
 * the events the manager publishes anyway: no timer, no wakeup, a few
 * words per PF. */

#include "counters.h"
#include "json-util.h"
#include "k8s.h"
#include "string-table.h"

static const char *const counter_apply_table[_COUNTER_APPLY_MAX] = {
	[COUNTER_APPLY_APPLIED] = "applied",   [COUNTER_APPLY_HELD] = "held",
	[COUNTER_APPLY_DEFERRED] = "deferred", [COUNTER_APPLY_DEGRADED] = "degraded",
	[COUNTER_APPLY_FAILED] = "failed",
};
DEFINE_STRING_TABLE_TO(counter_apply, enum counter_apply, counter_apply_table);

static const char *const counter_op_table[_COUNTER_OP_MAX] = {
	[COUNTER_OP_SUCCEEDED] = "succeeded",
	[COUNTER_OP_FAILED] = "failed",
};
DEFINE_STRING_TABLE_TO(counter_op, enum counter_op, counter_op_table);

/* As the Applied() signal's manual gives its results. */
enum counter_apply counter_apply_from_result(int result)
{
	switch (result) {
	case 0:
		return COUNTER_APPLY_APPLIED;
	case -EINVAL:
		return COUNTER_APPLY_HELD;
	case -EBUSY:
		return COUNTER_APPLY_DEFERRED;
	case -EOPNOTSUPP:
		return COUNTER_APPLY_DEGRADED;
	}
	return COUNTER_APPLY_FAILED;
}

/* The PF's counters, made on first sight; NULL on ENOMEM. */
static struct pf_counters *pf_counters(struct counters *c, const char *pci)
{
	struct pf_counters *p;

	for (size_t i = 0; i < c->n_pfs; i++)
		if (streq(c->pfs[i].pci, pci))
			return &c->pfs[i];
	p = reallocarray(c->pfs, c->n_pfs + 1, sizeof(*p));
	if (!p)
		return NULL;
	c->pfs = p;
	p = &c->pfs[c->n_pfs++];
	*p = (struct pf_counters){};
	snprintf(p->pci, sizeof(p->pci), "%s", pci);
	return p;
}

static enum counter_op op_result(int result)
{
	return result < 0 ? COUNTER_OP_FAILED : COUNTER_OP_SUCCEEDED;
}

static void on_event(struct manager *m, const struct manager_event *ev, void *userdata)
{
	struct counters *c = m->counters;
	struct pf_counters *p;

	switch (ev->type) {
	case MANAGER_PF_ADDED:
		(void)pf_counters(c, ev->pf->pci);
		return;
	case MANAGER_PF_DRIFTED:
		p = pf_counters(c, ev->pf->pci);
		if (p)
			p->drift_events++;
		return;
	case MANAGER_PF_REPAIRING:
		p = pf_counters(c, ev->pf->pci);
		if (p)
			p->repairs++;
		return;
	case MANAGER_PF_APPLIED:
		c->applies[counter_apply_from_result(ev->result)]++;
		return;
	case MANAGER_DRAIN_DONE:
		c->drains[op_result(ev->result)]++;
		return;
	case MANAGER_REBOOT_DONE:
		c->reboots[op_result(ev->result)]++;
		return;
	case MANAGER_PF_REMOVED:
	case MANAGER_PF_CHANGED:
	case MANAGER_PF_VFS_CHANGED:
	case MANAGER_PF_WANTS_DRAIN:
	case MANAGER_APPLY_ASKED:
	case MANAGER_APPLY_STARTS:
	case MANAGER_CONFIG_LOADED:
	case MANAGER_LOOKED:
	case MANAGER_SUMMARY_CHANGED:
	case MANAGER_SUMMARY:
	case MANAGER_CHECKED:
	case _MANAGER_EVENT_TYPE_MAX:
	case _MANAGER_EVENT_TYPE_INVALID:
		break;
	}
}

int counters_new(struct manager *m)
{
	m->counters = calloc(1, sizeof(*m->counters));
	if (!m->counters)
		return -ENOMEM;
	m->counters->started = now_realtime();
	return manager_observe(m, on_event, NULL);
}

struct counters *counters_free(struct counters *c)
{
	if (!c)
		return NULL;
	free(c->pfs);
	free(c);
	return NULL;
}

/* {"label": count, ...} of a table of counters. */
static struct json_object *by_label(const uint64_t *v, size_t n, const char *(*name)(int))
{
	struct json_object *o = json_object_new_object();

	for (size_t i = 0; o && i < n; i++)
		json_object_object_add(o, name((int)i), json_object_new_uint64(v[i]));
	return o;
}

static const char *apply_name(int i)
{
	return counter_apply_to_string(i);
}

static const char *op_name(int i)
{
	return counter_op_to_string(i);
}

static struct json_object *pfs_json(const struct counters *c)
{
	struct json_object *a = json_object_new_array();

	for (size_t i = 0; a && i < c->n_pfs; i++) {
		struct json_object *o = json_object_new_object();

		json_object_object_add(o, "pci", json_object_new_string(c->pfs[i].pci));
		json_object_object_add(o, "drift_events",
				       json_object_new_uint64(c->pfs[i].drift_events));
		json_object_object_add(o, "repairs", json_object_new_uint64(c->pfs[i].repairs));
		json_object_array_add(a, o);
	}
	return a;
}

static const char *json_str(struct json_object *o, const char *key)
{
	struct json_object *v = o ? json_object_object_get(o, key) : NULL;

	return json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}

/* The Kubernetes API's state ("unknown", "answers", "unreachable"), null
 * where Kubernetes is not enabled. */
static struct json_object *api_state_json(const struct manager *m)
{
	_cleanup_json_ struct json_object *api = k8s_api_json(m);
	const char *state = json_str(api, "state");

	return state ? json_object_new_string(state) : NULL;
}

/* {"kind": ..., "expires_usec": N or null} as k8s-notify last reported the
 * credentials (its "expires" in RFC 3339), null before any report. */
static struct json_object *credentials_json(const struct manager *m)
{
	_cleanup_json_ struct json_object *cred = k8s_credentials_json(m->k8s);
	const char *kind = json_str(cred, "kind"), *expires = json_str(cred, "expires");
	struct json_object *o;
	usec_t t;

	if (!cred)
		return NULL;
	o = json_object_new_object();
	if (!o)
		return NULL;
	json_object_object_add(o, "kind", kind ? json_object_new_string(kind) : NULL);
	json_object_object_add(
		o, "expires_usec",
		expires && parse_rfc3339(expires, &t) >= 0 ? json_object_new_uint64(t) : NULL);
	return o;
}

struct json_object *counters_json(const struct manager *m)
{
	const struct counters *c = m->counters;
	struct json_object *o = json_object_new_object();

	if (!o)
		return NULL;
	json_object_object_add(o, "start_time_usec", json_object_new_uint64(c->started));
	json_object_object_add(o, "pfs", pfs_json(c));
	json_object_object_add(o, "applies", by_label(c->applies, _COUNTER_APPLY_MAX, apply_name));
	json_object_object_add(o, "drains", by_label(c->drains, _COUNTER_OP_MAX, op_name));
	json_object_object_add(o, "reboots", by_label(c->reboots, _COUNTER_OP_MAX, op_name));
	/* the failure that stands (manager_reboot_failed()), null when none */
	json_object_object_add(o, "reboot_failed_usec",
			       m->reboot_failed ? json_object_new_uint64(m->reboot_failed_at) :
						  NULL);
	json_object_object_add(o, "kubernetes_api", api_state_json(m));
	json_object_object_add(o, "credentials", credentials_json(m));
	return o;
}
