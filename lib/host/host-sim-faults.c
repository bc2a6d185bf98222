/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* Injected faults of the simulated host (the "faults" of its snapshot JSON):
 *   { "op": "set_num_vfs", "pci": "0000:3b:00.0", "errno": "EBUSY", "times": 1 }
 *   { "op": "bind_driver", "pci": "0000:3b:01.1", "hang": true }
 *   { "op": "set_num_vfs", "hang": true, "completes": true }  (lands after the time-out)
 *   { "op": "set_num_vfs", "netdevs": 2, "after_ms": 1500 }  (VF netdevs: VFs 0-1 at once,
 *                                                            the others 1.5 s late; without
 *                                                            after_ms, never)
 *   { "op": "bind_driver", "random_mac": true }  (bound, but the VF took a random MAC)
 *   { "op": "any", "crash_after": 3 }
 *   { "op": "firmware_reset", "errno": "EOPNOTSUPP" }  (the card offers no reset level 3)
 *   { "op": "firmware_reset", "no_effect": true }  (VFs gone, "reset", old settings still in force)
 * They live in the snapshot file next to the state, for tests only. */

#include <inttypes.h>
#include <stdarg.h>

#include "host-sim-internal.h"
#include "json-util.h"

/* the fault names speak of binding drivers */
static const struct {
	const char *alias;
	enum action_type op;
} op_aliases[] = {
	{ "bind_driver", ACTION_BIND_VF },
	{ "unbind_driver", ACTION_UNBIND_VF },
	{ "set_firmware_link_type", ACTION_SET_LINK_TYPE },
};

static const struct {
	const char *name;
	int error;
} errno_table[] = {
	{ "EBUSY", EBUSY },
	{ "ENOSPC", ENOSPC },
	{ "EINVAL", EINVAL },
	{ "EIO", EIO },
	{ "ENODEV", ENODEV },
	{ "EPERM", EPERM },
	{ "ETIMEDOUT", ETIMEDOUT },
	{ "EOPNOTSUPP", EOPNOTSUPP },
	{ "ENOENT", ENOENT },
	{ "ENOMEM", ENOMEM },
	{ "EAGAIN", EAGAIN },
	{ "ERANGE", ERANGE },
	{ "EACCES", EACCES },
	{ "ENXIO", ENXIO },
	{ "EADDRNOTAVAIL", EADDRNOTAVAIL },
	{ "ENETDOWN", ENETDOWN },
};

/* _ACTION_TYPE_MAX for "any" */
static int op_from_name(const char *s)
{
	if (streq(s, "any"))
		return _ACTION_TYPE_MAX;
	if (action_type_from_string(s) >= 0)
		return action_type_from_string(s);
	for (size_t i = 0; i < ELEMENTSOF(op_aliases); i++)
		if (streq(op_aliases[i].alias, s))
			return op_aliases[i].op;
	return -EINVAL;
}

const char *sim_errno_name(int error)
{
	for (size_t i = 0; i < ELEMENTSOF(errno_table); i++)
		if (errno_table[i].error == error)
			return errno_table[i].name;
	return NULL;
}

static int errno_from_name(const char *s)
{
	for (size_t i = 0; i < ELEMENTSOF(errno_table); i++)
		if (streq(errno_table[i].name, s))
			return errno_table[i].error;
	return -EINVAL;
}

void sim_faults_done(struct sim_faults *f)
{
	for (size_t i = 0; i < f->n; i++)
		free(f->items[i].op);
	free(f->items);
	*f = (struct sim_faults){};
}

static int bad(char **ret_error, size_t i, const char *key, const char *fmt, ...) _printf_(4, 5);
static int bad(char **ret_error, size_t i, const char *key, const char *fmt, ...)
{
	_cleanup_free_ char *msg = NULL;
	va_list ap;

	va_start(ap, fmt);
	msg = strdup_vprintf(fmt, ap);
	va_end(ap);
	if (!msg)
		return -ENOMEM;
	*ret_error = strdup_printf("faults[%zu]%s%s: %s", i, key ? "." : "", strempty(key), msg);
	return *ret_error ? -EINVAL : -ENOMEM;
}

static bool get_key(struct json_object *o, const char *key, enum json_type type,
		    struct json_object **ret)
{
	*ret = NULL;
	return json_object_object_get_ex(o, key, ret) && json_object_is_type(*ret, type);
}

static bool has_key(struct json_object *o, const char *key)
{
	return json_object_object_get_ex(o, key, NULL);
}

static int parse_count(struct json_object *o, const char *key, size_t i, int64_t min, int64_t *ret,
		       char **ret_error)
{
	struct json_object *v;

	if (!get_key(o, key, json_type_int, &v) || json_object_get_int64(v) < min ||
	    json_object_get_int64(v) > INT32_MAX)
		return bad(ret_error, i, key, "must be an integer %" PRIi64 "..%d", min, INT32_MAX);
	*ret = json_object_get_int64(v);
	return 0;
}

static int parse_kind(struct json_object *o, size_t i, struct sim_fault *f, char **ret_error)
{
	struct json_object *v;
	int64_t n;
	int r;

	if (has_key(o, "crash_after")) {
		r = parse_count(o, "crash_after", i, 1, &n, ret_error);
		f->kind = SIM_FAULT_CRASH;
		f->crash_after = (unsigned)n;
		return r;
	}
	if (has_key(o, "hang")) {
		if (!get_key(o, "hang", json_type_boolean, &v) || !json_object_get_boolean(v))
			return bad(ret_error, i, "hang", "must be true");
		if (has_key(o, "completes") && !get_key(o, "completes", json_type_boolean, &v))
			return bad(ret_error, i, "completes", "must be true or false");
		f->completes = has_key(o, "completes") && json_object_get_boolean(v);
		f->kind = SIM_FAULT_HANG;
		return 0;
	}
	if (has_key(o, "random_mac")) {
		if (!get_key(o, "random_mac", json_type_boolean, &v) || !json_object_get_boolean(v))
			return bad(ret_error, i, "random_mac", "must be true");
		f->kind = SIM_FAULT_RANDOM_MAC;
		return 0;
	}
	if (has_key(o, "no_effect")) {
		if (!get_key(o, "no_effect", json_type_boolean, &v) || !json_object_get_boolean(v))
			return bad(ret_error, i, "no_effect", "must be true");
		f->kind = SIM_FAULT_NO_EFFECT;
		return 0;
	}
	if (has_key(o, "netdevs")) {
		r = parse_count(o, "netdevs", i, 0, &n, ret_error);
		if (r >= 0)
			f->netdevs = (uint32_t)n;
		if (r >= 0 && has_key(o, "after_ms")) {
			r = parse_count(o, "after_ms", i, 1, &n, ret_error);
			if (r >= 0)
				f->after_ms = (uint32_t)n;
		}
		f->kind = SIM_FAULT_NETDEVS;
		return r;
	}
	if (!get_key(o, "errno", json_type_string, &v))
		return bad(ret_error, i, NULL, "needs \"errno\", \"hang\" or \"crash_after\"");
	f->error = errno_from_name(json_object_get_string(v));
	if (f->error < 0)
		return bad(ret_error, i, "errno", "unknown error name \"%s\"",
			   json_object_get_string(v));
	f->kind = SIM_FAULT_ERRNO;
	return 0;
}

static int parse_fault(struct json_object *o, size_t i, struct sim_fault *f, char **ret_error)
{
	struct json_object *v;
	int64_t n;
	int r;

	if (!json_object_is_type(o, json_type_object))
		return bad(ret_error, i, NULL, "not an object");
	if (!get_key(o, "op", json_type_string, &v) || op_from_name(json_object_get_string(v)) < 0)
		return bad(ret_error, i, "op", "must be \"any\" or an operation name");
	f->op = strdup(json_object_get_string(v));
	if (!f->op)
		return -ENOMEM;
	if (has_key(o, "pci")) {
		if (!get_key(o, "pci", json_type_string, &v) ||
		    !pci_addr_is_valid(json_object_get_string(v)))
			return bad(ret_error, i, "pci", "not a PCI address");
		strcpy(f->pci, json_object_get_string(v));
	}
	f->times = -1;
	if (has_key(o, "times")) {
		r = parse_count(o, "times", i, 0, &n, ret_error);
		if (r < 0)
			return r;
		f->times = (int)n;
	}
	r = parse_kind(o, i, f, ret_error);
	if (r >= 0 && f->kind == SIM_FAULT_NETDEVS && op_from_name(f->op) != ACTION_SET_NUM_VFS)
		return bad(ret_error, i, "netdevs", "only \"set_num_vfs\" makes VF netdevs");
	if (r >= 0 && f->kind == SIM_FAULT_RANDOM_MAC && op_from_name(f->op) != ACTION_BIND_VF)
		return bad(ret_error, i, "random_mac", "only \"bind_driver\" probes a VF");
	if (r >= 0 && f->kind == SIM_FAULT_NO_EFFECT &&
	    op_from_name(f->op) != ACTION_FIRMWARE_RESET)
		return bad(ret_error, i, "no_effect", "only \"firmware_reset\" resets firmware");
	return r;
}

int sim_faults_parse(struct json_object *root, struct sim_faults *ret, char **ret_error)
{
	struct sim_faults faults = {};
	struct json_object *a;
	size_t n;

	*ret_error = NULL;
	if (!json_object_object_get_ex(root, "faults", &a) || !a) {
		*ret = faults;
		return 0;
	}
	if (!json_object_is_type(a, json_type_array)) {
		*ret_error = strdup("faults: not an array");
		return *ret_error ? -EINVAL : -ENOMEM;
	}
	n = json_object_array_length(a);
	faults.items = calloc(n ?: 1, sizeof(*faults.items));
	if (!faults.items)
		return -ENOMEM;
	for (; faults.n < n; faults.n++) {
		int r = parse_fault(json_object_array_get_idx(a, faults.n), faults.n,
				    &faults.items[faults.n], ret_error);
		if (r < 0) {
			faults.n++;
			sim_faults_done(&faults);
			return r;
		}
	}
	*ret = faults;
	return 0;
}

static int add(struct json_object *o, const char *key, struct json_object *v)
{
	if (!v || json_object_object_add(o, key, v) < 0) {
		json_object_put(v);
		return -ENOMEM;
	}
	return 0;
}

static int fault_to_json(const struct sim_fault *f, struct json_object **ret)
{
	_cleanup_json_ struct json_object *o = json_object_new_object();
	int r;

	if (!o)
		return -ENOMEM;
	r = add(o, "op", json_object_new_string(f->op));
	if (r >= 0 && f->pci[0])
		r = add(o, "pci", json_object_new_string(f->pci));
	if (r >= 0 && f->kind == SIM_FAULT_ERRNO)
		r = add(o, "errno", json_object_new_string(sim_errno_name(f->error)));
	if (r >= 0 && f->kind == SIM_FAULT_HANG)
		r = add(o, "hang", json_object_new_boolean(true));
	if (r >= 0 && f->kind == SIM_FAULT_HANG && f->completes)
		r = add(o, "completes", json_object_new_boolean(true));
	if (r >= 0 && f->kind == SIM_FAULT_NETDEVS)
		r = add(o, "netdevs", json_object_new_int64(f->netdevs));
	if (r >= 0 && f->kind == SIM_FAULT_NETDEVS && f->after_ms)
		r = add(o, "after_ms", json_object_new_int64(f->after_ms));
	if (r >= 0 && f->kind == SIM_FAULT_RANDOM_MAC)
		r = add(o, "random_mac", json_object_new_boolean(true));
	if (r >= 0 && f->kind == SIM_FAULT_NO_EFFECT)
		r = add(o, "no_effect", json_object_new_boolean(true));
	if (r >= 0 && f->kind == SIM_FAULT_CRASH)
		r = add(o, "crash_after", json_object_new_int64(f->crash_after));
	if (r >= 0 && f->times >= 0)
		r = add(o, "times", json_object_new_int(f->times));
	if (r < 0)
		return r;
	*ret = TAKE_PTR(o);
	return 0;
}

int sim_faults_to_json(const struct sim_faults *f, struct json_object **ret)
{
	_cleanup_json_ struct json_object *a = NULL;

	if (f->n == 0) {
		*ret = NULL;
		return 0;
	}
	a = json_object_new_array();
	if (!a)
		return -ENOMEM;
	for (size_t i = 0; i < f->n; i++) {
		struct json_object *o;
		int r;

		r = fault_to_json(&f->items[i], &o);
		if (r < 0)
			return r;
		if (json_object_array_add(a, o) < 0) {
			json_object_put(o);
			return -ENOMEM;
		}
	}
	*ret = TAKE_PTR(a);
	return 0;
}

bool sim_fault_matches(const struct sim_fault *f, enum action_type op, const char *pci,
		       const char *vf_pci)
{
	int fop = op_from_name(f->op);

	if (fop != _ACTION_TYPE_MAX && fop != (int)op)
		return false;
	if (!f->pci[0])
		return true;
	return streq_ptr(f->pci, pci) || streq_ptr(f->pci, vf_pci);
}

static enum sim_fault_kind fire_kind(enum sim_fault_kind k)
{
	return k == SIM_FAULT_HANG ? SIM_FAULT_ERRNO : k;
}

struct sim_fault *sim_faults_fire(struct sim_faults *f, enum sim_fault_kind kind,
				  enum action_type op, const char *pci, const char *vf_pci)
{
	for (size_t i = 0; i < f->n; i++) {
		struct sim_fault *x = &f->items[i];

		if (fire_kind(x->kind) != fire_kind(kind) || x->times == 0 ||
		    !sim_fault_matches(x, op, pci, vf_pci))
			continue;
		if (x->times > 0)
			x->times--;
		return x;
	}
	return NULL;
}

void sim_faults_remove(struct sim_faults *f, struct sim_fault *fault)
{
	size_t i = (size_t)(fault - f->items);

	free(fault->op);
	memmove(&f->items[i], &f->items[i + 1], (f->n - i - 1) * sizeof(*f->items));
	f->n--;
}
