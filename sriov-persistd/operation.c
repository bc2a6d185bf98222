/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "operation.h"
#include "json-util.h"

#define SLOT_NAME_MAX 63
#define REASONS_MAX (64u << 10)

static const char *const step_names[_OP_STEP_MAX] = {
	[OP_STEP_LEASE] = "lease",     [OP_STEP_DRAIN] = "drain",
	[OP_STEP_APPLY] = "apply",     [OP_STEP_DEVICE_PLUGIN] = "device-plugin",
	[OP_STEP_REBOOT] = "reboot",   [OP_STEP_UNCORDON] = "uncordon",
	[OP_STEP_RELEASE] = "release", [OP_STEP_DONE] = "done",
};

static const char *const kind_names[_OP_KIND_MAX] = {
	[OP_KIND_DRAIN] = "drain",
	[OP_KIND_REBOOT] = "reboot",
	[OP_KIND_RECOVER] = "recover",
	[OP_KIND_DEVICE_PLUGIN] = "device-plugin",
};

DEFINE_STRING_TABLE(op_step, enum op_step, step_names)

DEFINE_STRING_TABLE(op_kind, enum op_kind, kind_names)

void operation_free(struct operation *op)
{
	if (!op)
		return;
	sd_event_source_disable_unref(op->retry);
	strv_free(op->pfs);
	free(op->reasons);
	free(op->slot);
	free(op->error);
	free(op->failed_now);
	free(op);
}

bool op_slot_is_valid(const char *s)
{
	size_t n = s ? strlen(s) : 0;

	if (n == 0 || n > SLOT_NAME_MAX || s[0] == '-' || s[n - 1] == '-')
		return false;
	for (size_t i = 0; i < n; i++)
		if (!is_lower_alnum(s[i]) && s[i] != '-')
			return false;
	return true;
}

char *operation_format(const struct operation *op)
{
	_cleanup_json_ struct json_object *o = json_object_new_object();
	struct json_object *pfs = json_object_new_array();
	const char *text;

	if (!o || !pfs) {
		json_object_put(pfs);
		return NULL;
	}
	json_object_object_add(o, "kind", json_object_new_string(op_kind_to_string(op->kind)));
	json_object_object_add(o, "step", json_object_new_string(op_step_to_string(op->step)));
	json_object_object_add(o, "slot", op->slot ? json_object_new_string(op->slot) : NULL);
	json_object_object_add(o, "drained", json_object_new_boolean(op->drained));
	json_object_object_add(o, "boot_id", json_object_new_string(op->boot_id));
	json_object_object_add(o, "reasons",
			       op->reasons ? json_object_new_string(op->reasons) : NULL);
	for (char **p = op->pfs; p && *p; p++)
		json_object_array_add(pfs, json_object_new_string(*p));
	json_object_object_add(o, "pfs", pfs);
	text = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
							 JSON_C_TO_STRING_NOSLASHESCAPE);
	return text ? strdup(text) : NULL;
}

enum op_step operation_abort_step(const struct operation *op)
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

enum manager_state operation_manager_state(const struct operation *op)
{
	/* the recovery of an interrupted operation lifts a cordon and gives a
	 * slot back through Kubernetes as a drain's last steps do */
	if (op && (op->kind == OP_KIND_DRAIN || op->kind == OP_KIND_RECOVER) &&
	    op->step < OP_STEP_DONE)
		return MANAGER_DRAINING;
	if (op && op->kind == OP_KIND_REBOOT && op->step <= OP_STEP_REBOOT)
		return MANAGER_REBOOTING;
	return MANAGER_IDLE;
}

struct json_object *operation_json(const struct operation *op)
{
	struct json_object *o = json_object_new_object(), *pfs = json_object_new_array();

	json_object_object_add(o, "kind", json_object_new_string(op_kind_to_string(op->kind)));
	json_object_object_add(o, "step", json_object_new_string(op_step_to_string(op->step)));
	for (char **p = op->pfs; p && *p; p++)
		json_object_array_add(pfs, json_object_new_string(*p));
	json_object_object_add(o, "pfs", pfs);
	json_object_object_add(o, "slot", op->slot ? json_object_new_string(op->slot) : NULL);
	json_object_object_add(o, "error", op->error ? json_object_new_string(op->error) : NULL);
	return o;
}

/* o[key]: absent or null is NULL, a string is its value, else -EBADMSG. */
static int optional_string(struct json_object *o, const char *key, const char **ret)
{
	struct json_object *v = json_object_object_get(o, key);

	if (v && !json_object_is_type(v, json_type_string))
		return -EBADMSG;
	*ret = v ? json_object_get_string(v) : NULL;
	return 0;
}

static int parse_pfs(struct json_object *v, char ***ret)
{
	_cleanup_strv_free_ char **pfs = calloc(1, sizeof(char *));

	if (!pfs)
		return -ENOMEM;
	if (v && !json_object_is_type(v, json_type_array))
		return -EBADMSG;
	for (size_t i = 0; v && i < json_object_array_length(v); i++) {
		struct json_object *e = json_object_array_get_idx(v, i);

		if (!json_object_is_type(e, json_type_string) ||
		    !pci_addr_is_valid(json_object_get_string(e)))
			return -EBADMSG;
		if (strv_extend(&pfs, json_object_get_string(e)) < 0)
			return -ENOMEM;
	}
	*ret = TAKE_PTR(pfs);
	return 0;
}

static int parse_fields(struct json_object *o, struct operation *op)
{
	const char *kind, *step, *slot, *boot_id, *reasons;
	struct json_object *drained = json_object_object_get(o, "drained");
	int r;

	if (optional_string(o, "kind", &kind) < 0 || optional_string(o, "step", &step) < 0 ||
	    optional_string(o, "slot", &slot) < 0 || optional_string(o, "boot_id", &boot_id) < 0 ||
	    optional_string(o, "reasons", &reasons) < 0)
		return -EBADMSG;
	op->kind = op_kind_from_string(kind);
	op->step = op_step_from_string(step);
	if ((int)op->kind < 0 || (int)op->step < 0 || (slot && !op_slot_is_valid(slot)) ||
	    !boot_id || strlen(boot_id) >= sizeof(op->boot_id) ||
	    (reasons && strlen(reasons) > REASONS_MAX) ||
	    (drained && !json_object_is_type(drained, json_type_boolean)))
		return -EBADMSG;
	op->drained = json_object_get_boolean(drained);
	snprintf(op->boot_id, sizeof(op->boot_id), "%s", boot_id);
	op->slot = slot ? strdup(slot) : NULL;
	op->reasons = reasons ? strdup(reasons) : NULL;
	if ((slot && !op->slot) || (reasons && !op->reasons))
		return -ENOMEM;
	r = parse_pfs(json_object_object_get(o, "pfs"), &op->pfs);
	return r;
}

int operation_parse(const char *text, struct operation **ret)
{
	_cleanup_json_ struct json_object *o = json_tokener_parse(text);
	struct operation *op;
	int r;

	if (!json_object_is_type(o, json_type_object))
		return -EBADMSG;
	op = calloc(1, sizeof(*op));
	if (!op)
		return -ENOMEM;
	r = parse_fields(o, op);
	if (r < 0) {
		operation_free(op);
		return r;
	}
	*ret = op;
	return 0;
}

void step_result_done(struct step_result *r)
{
	free(r->error);
	free(r->slot);
	if (r->credentials)
		json_object_put(r->credentials);
	*r = (struct step_result){};
}

/* The "credentials" object, only its known string (or null) fields. */
static int parse_credentials(struct json_object *o, struct json_object **ret)
{
	static const char *const keys[] = { "kind", "source", "expires", "warning" };
	_cleanup_json_ struct json_object *c = NULL;
	struct json_object *v = json_object_object_get(o, "credentials");

	*ret = NULL;
	if (!v)
		return 0;
	if (!json_object_is_type(v, json_type_object))
		return -EBADMSG;
	c = json_object_new_object();
	if (!c)
		return -ENOMEM;
	for (size_t i = 0; i < ELEMENTSOF(keys); i++) {
		const char *s;

		if (optional_string(v, keys[i], &s) < 0)
			return -EBADMSG;
		json_object_object_add(c, keys[i], s ? json_object_new_string(s) : NULL);
	}
	*ret = TAKE_PTR(c);
	return 0;
}

/* A field that is a count: absent is 0. */
static int optional_count(struct json_object *o, const char *key, unsigned max, unsigned *ret)
{
	struct json_object *v = json_object_object_get(o, key);
	int64_t n;

	if (!v)
		return 0;
	if (!json_object_is_type(v, json_type_int))
		return -EBADMSG;
	n = json_object_get_int64(v);
	if (n < 0 || n > max)
		return -EBADMSG;
	*ret = (unsigned)n;
	return 0;
}

static int parse_counts(struct json_object *o, struct step_result *r)
{
	struct json_object *v = json_object_object_get(o, "unreachable");

	if (v && !json_object_is_type(v, json_type_boolean))
		return -EBADMSG;
	r->unreachable = v && json_object_get_boolean(v);
	if (optional_count(o, "retry_after", 86400, &r->retry_after) < 0 ||
	    optional_count(o, "requests", INT32_MAX, &r->requests) < 0)
		return -EBADMSG;
	return 0;
}

int step_result_parse(const char *out, struct step_result *ret)
{
	_cleanup_json_ struct json_object *o = out ? json_tokener_parse(out) : NULL;
	const char *error, *slot;
	int r;

	*ret = (struct step_result){};
	if (!json_object_is_type(o, json_type_object) || optional_string(o, "error", &error) < 0 ||
	    optional_string(o, "slot", &slot) < 0 || (slot && !op_slot_is_valid(slot)))
		return -EBADMSG;
	r = parse_counts(o, ret);
	if (r >= 0)
		r = parse_credentials(o, &ret->credentials);
	if (r < 0) {
		*ret = (struct step_result){};
		return r;
	}
	ret->error = error ? strdup(error) : NULL;
	ret->slot = slot ? strdup(slot) : NULL;
	if ((error && !ret->error) || (slot && !ret->slot)) {
		step_result_done(ret);
		return -ENOMEM;
	}
	return 0;
}

char *operation_retry_text(const struct operation *op, unsigned retries_max, usec_t retry_real)
{
	bool undo = op->step == OP_STEP_UNCORDON || op->step == OP_STEP_RELEASE;
	char bound[64], when[FORMAT_RFC3339_MAX];

	if (undo)
		snprintf(bound, sizeof(bound), "attempt %u, tried until done", op->attempts);
	else
		snprintf(bound, sizeof(bound), "attempt %u of %u at most", op->attempts,
			 retries_max);
	return strdup_printf("%s: %s failed for now (%s), tried again at %s: %s",
			     op_kind_to_string(op->kind), op_step_to_string(op->step), bound,
			     format_rfc3339(when, retry_real), strna(op->failed_now));
}
