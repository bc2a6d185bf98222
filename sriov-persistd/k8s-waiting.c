/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* What waits on the Kubernetes side, and for what, in the words of the
 * waiting lines of GetStatus(), sriovctl status and the node's
 * annotations: the step of the operation under way, the drain that PFs
 * deferred for it wait for (behind that operation, or the API server),
 * what an undo step left, the annotations. */

#include "k8s.h"

/* The lines of the operation under way: its step waits for the API
 * server, or is tried again later. */
static int op_lines(const struct operation *op, char ***l)
{
	int r = 0;

	if (op->waiting_api)
		r = strv_consume(l, strdup_printf("%s (step %s) waits for the Kubernetes API "
						  "server to answer",
						  op_kind_to_string(op->kind),
						  op_step_to_string(op->step)));
	if (r >= 0 && op->retry_at && !op->running)
		r = strv_consume(l, operation_retry_text(op, K8S_RETRIES_MAX,
							 k8s_mono_to_real(op->retry_at)));
	return r;
}

static const char *pf_name(const struct manager *m, const char *pci)
{
	for (size_t i = 0; i < m->n_pfs; i++)
		if (streq(m->pfs[i]->pci, pci))
			return m->pfs[i]->name;
	return NULL;
}

/* "drain of 0000:3b:00.0 (ens1f0) waits: recover (step uncordon) must
 * finish first (...); the Kubernetes API server does not answer (next try
 * at ...)": the drain that PFs deferred for it wait for, while it cannot
 * start; NULL when none waits (or on ENOMEM). */
static char *drain_wanted_text(const struct manager *m)
{
	const struct k8s *k = m->k8s;
	const struct operation *op = k->op;
	_cleanup_strv_free_ char **who = NULL;
	_cleanup_free_ char *pfs = NULL, *first = NULL, *api = NULL;
	char when[FORMAT_RFC3339_MAX];

	if (strv_length(k->drain_wanted) == 0 || (!op && !k->starting))
		return NULL;
	for (char **p = k->drain_wanted; *p; p++) {
		const char *name = pf_name(m, *p);

		if (strv_consume(&who, name ? strdup_printf("%s (%s)", *p, name) : strdup(*p)) < 0)
			return NULL;
	}
	pfs = strv_join(who, ", ");
	if (!pfs)
		return NULL;
	if (!op)
		first = strdup("the daemon's start must finish first");
	else
		first = strdup_printf("%s (step %s) must finish first%s",
				      op_kind_to_string(op->kind), op_step_to_string(op->step),
				      op->kind == OP_KIND_RECOVER ?
					      " (lifting a cordon of ours, if a crash "
					      "left one)" :
					      "");
	if (k->api.wait.since)
		api = strdup_printf("; the Kubernetes API server does not answer (next try at %s)",
				    format_rfc3339(when, k8s_mono_to_real(k->api.wait.next)));
	if (!first || (k->api.wait.since && !api))
		return NULL;
	return strdup_printf("drain of %s waits: %s%s", pfs, first, strempty(api));
}

char **k8s_waiting(const struct manager *m)
{
	const struct k8s *k = m->k8s;
	_cleanup_strv_free_ char **l = calloc(1, sizeof(char *));
	int r = l ? 0 : -ENOMEM;

	if (r >= 0 && k->op)
		r = op_lines(k->op, &l);
	if (r >= 0 && strv_length(k->drain_wanted) > 0 && (k->op || k->starting))
		r = strv_consume(&l, drain_wanted_text(m));
	if (r >= 0 && k->left_cordon)
		r = strv_extend(&l, k->left_cordon);
	if (r >= 0 && k->left_slot)
		r = strv_extend(&l, k->left_slot);
	if (r >= 0 && k->annotate.waiting)
		r = strv_extend(&l, "the node's annotations wait for the Kubernetes API server to "
				    "answer");
	return r < 0 ? NULL : TAKE_PTR(l);
}

/* What the PF pci waits for: the drain it is deferred for, or the step of
 * the drain under way for it that waits; NULL on ENOMEM. */
static char **pf_waiting(const struct manager *m, const char *pci)
{
	const struct k8s *k = m->k8s;
	_cleanup_strv_free_ char **l = calloc(1, sizeof(char *));
	int r = l ? 0 : -ENOMEM;

	if (!k)
		return TAKE_PTR(l);
	if (r >= 0 && k->op && k->op->kind == OP_KIND_DRAIN && strv_contains(k->op->pfs, pci))
		r = op_lines(k->op, &l);
	if (r >= 0 && strv_contains(k->drain_wanted, pci) && (k->op || k->starting))
		r = strv_consume(&l, drain_wanted_text(m));
	return r < 0 ? NULL : TAKE_PTR(l);
}

int k8s_status_add_waiting(const struct manager *m, struct json_object *doc)
{
	struct json_object *pfs = json_object_object_get(doc, "pfs");

	for (size_t i = 0; i < json_object_array_length(pfs); i++) {
		struct json_object *pf = json_object_array_get_idx(pfs, i);
		struct json_object *w = json_object_object_get(pf, "waiting");
		const char *pci = json_object_get_string(json_object_object_get(pf, "pci"));
		_cleanup_strv_free_ char **l = pci ? pf_waiting(m, pci) : NULL;

		if (pci && !l)
			return -ENOMEM;
		if (!l || !l[0])
			continue;
		if (!json_object_is_type(w, json_type_array)) {
			w = json_object_new_array();
			if (!w || json_object_object_add(pf, "waiting", w) < 0) {
				json_object_put(w);
				return -ENOMEM;
			}
		}
		for (char **p = l; *p; p++)
			if (json_object_array_add(w, json_object_new_string(*p)) < 0)
				return -ENOMEM;
	}
	return 0;
}

struct json_object *k8s_api_json(const struct manager *m)
{
	_cleanup_strv_free_ char **waiting = k8s_waiting(m);

	if (!mainconf_kubernetes_enabled(&m->conf) || !waiting)
		return NULL;
	return k8s_api_status_json(&m->k8s->api, waiting);
}
