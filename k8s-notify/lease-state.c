/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "lease-state.h"
#include "json-util.h"

static const char *const lease_state_names[_LEASE_STATE_MAX] = {
	[LEASE_STATE_ABSENT] = "absent",   [LEASE_STATE_FREE] = "free",
	[LEASE_STATE_EXPIRED] = "expired", [LEASE_STATE_OURS] = "ours",
	[LEASE_STATE_BUSY] = "busy",
};

DEFINE_STRING_TABLE_TO(lease_state, enum lease_state, lease_state_names)

/* An int32 field of the Lease API: -ERANGE when the value is one the API
 * cannot hold (a real server never sends it; garbage must not decide). */
static int lease_int32(struct json_object *lease, const char *field, int64_t *ret)
{
	struct json_object *v = k8s_json_get(lease, "spec", field, NULL);
	int64_t i;

	if (!v || !json_object_is_type(v, json_type_int))
		return -ENOENT;
	errno = 0;
	i = json_object_get_int64(v);
	if (errno != 0 || i < INT32_MIN || i > INT32_MAX)
		return -ERANGE;
	*ret = i;
	return 0;
}

/* Until when the holder holds it; 0 when that cannot be told (= expired),
 * -ERANGE when leaseDurationSeconds is beyond what the API holds. */
int lease_expiry(struct json_object *lease, usec_t *ret)
{
	const char *t = k8s_json_str(lease, "spec", "renewTime", NULL);
	usec_t since;
	int64_t sec;
	int r;

	*ret = 0;
	r = lease_int32(lease, "leaseDurationSeconds", &sec);
	if (r == -ERANGE)
		return r;
	if (!t)
		t = k8s_json_str(lease, "spec", "acquireTime", NULL);
	if (r < 0 || !t || microtime_parse(t, &since) < 0 || sec <= 0)
		return 0;
	/* at most 2^31 s after a MicroTime: no overflow in 64 bits of µs */
	*ret = since + (usec_t)sec * USEC_PER_SEC;
	return 0;
}

enum lease_state lease_decide(struct json_object *lease, const char *holder, usec_t now)
{
	const char *h;
	usec_t until;

	if (!lease)
		return LEASE_STATE_ABSENT;
	h = k8s_json_str(lease, "spec", "holderIdentity", NULL);
	if (!h || !*h)
		return LEASE_STATE_FREE;
	if (streq(h, holder))
		return LEASE_STATE_OURS;
	if (lease_expiry(lease, &until) < 0)
		return _LEASE_STATE_INVALID;
	return until < now ? LEASE_STATE_EXPIRED : LEASE_STATE_BUSY;
}

int lease_pick(const enum lease_state *states, size_t n, uint32_t rnd)
{
	size_t takeable = 0, k;

	for (size_t i = 0; i < n; i++)
		if (states[i] == LEASE_STATE_OURS)
			return (int)i;
	for (size_t i = 0; i < n; i++)
		takeable += states[i] != LEASE_STATE_BUSY;
	if (takeable == 0)
		return -EBUSY;
	k = rnd % takeable;
	for (size_t i = 0; i < n; i++)
		if (states[i] != LEASE_STATE_BUSY && k-- == 0)
			return (int)i;
	return -EBUSY; /* not reached */
}

char *lease_slot_name(unsigned i)
{
	return strdup_printf(LEASE_SLOT_PREFIX "%u", i);
}

static int json_set(struct json_object *o, const char *key, struct json_object *v)
{
	if (!v || json_object_object_add(o, key, v) < 0) {
		json_object_put(v);
		return -ENOMEM;
	}
	return 0;
}

/* o[key], created as an empty object when missing. */
static struct json_object *json_child(struct json_object *o, const char *key)
{
	struct json_object *c;

	if (json_object_object_get_ex(o, key, &c) && json_object_is_type(c, json_type_object))
		return c;
	c = json_object_new_object();
	return json_set(o, key, c) < 0 ? NULL : c;
}

static int lease_new(const char *ns, const char *name, struct json_object **ret)
{
	_cleanup_json_ struct json_object *l = json_object_new_object();
	struct json_object *meta, *labels;

	if (!l || json_set(l, "apiVersion", json_object_new_string("coordination.k8s.io/v1")) < 0 ||
	    json_set(l, "kind", json_object_new_string("Lease")) < 0 ||
	    !(meta = json_child(l, "metadata")) ||
	    json_set(meta, "name", json_object_new_string(name)) < 0 ||
	    json_set(meta, "namespace", json_object_new_string(ns)) < 0 ||
	    !(labels = json_child(meta, "labels")) ||
	    json_set(labels, "app.kubernetes.io/managed-by",
		     json_object_new_string(LEASE_MANAGED_BY)) < 0)
		return -ENOMEM;
	*ret = TAKE_PTR(l);
	return 0;
}

int lease_build_hold(struct json_object *prev, const char *ns, const char *name, const char *holder,
		     uint32_t duration, usec_t now, struct json_object **ret)
{
	_cleanup_json_ struct json_object *l = NULL;
	struct json_object *spec;
	const char *was = k8s_json_str(prev, "spec", "holderIdentity", NULL);
	char t[MICROTIME_MAX];
	int64_t transitions = 0;
	int r;

	/* one more transition must still be an int32 */
	r = lease_int32(prev, "leaseTransitions", &transitions);
	if (r == -ERANGE || (r >= 0 && (transitions < 0 || transitions == INT32_MAX)))
		return -ERANGE;
	if (r < 0)
		transitions = 0;
	if (duration > INT32_MAX)
		return -ERANGE;
	if (prev && !json_object_is_type(prev, json_type_object))
		return -EBADMSG;

	if (prev) {
		if (json_object_deep_copy(prev, &l, NULL) < 0)
			return -ENOMEM;
	} else if (lease_new(ns, name, &l) < 0)
		return -ENOMEM;
	spec = json_child(l, "spec");
	if (!spec)
		return -ENOMEM;
	microtime_format(now, t);
	if (!streq_ptr(was, holder) &&
	    (json_set(spec, "acquireTime", json_object_new_string(t)) < 0 ||
	     json_set(spec, "leaseTransitions",
		      json_object_new_int64(was && *was ? transitions + 1 : transitions)) < 0))
		return -ENOMEM;
	if (json_set(spec, "holderIdentity", json_object_new_string(holder)) < 0 ||
	    json_set(spec, "leaseDurationSeconds", json_object_new_int64(duration)) < 0 ||
	    json_set(spec, "renewTime", json_object_new_string(t)) < 0)
		return -ENOMEM;
	*ret = TAKE_PTR(l);
	return 0;
}

int lease_build_release(struct json_object *prev, struct json_object **ret)
{
	_cleanup_json_ struct json_object *l = NULL;
	struct json_object *spec;

	if (!json_object_is_type(prev, json_type_object))
		return -EBADMSG;
	if (json_object_deep_copy(prev, &l, NULL) < 0)
		return -ENOMEM;
	spec = json_child(l, "spec");
	if (!spec)
		return -ENOMEM;
	json_object_object_del(spec, "holderIdentity");
	*ret = TAKE_PTR(l);
	return 0;
}

usec_t lease_try_delay(unsigned lost, uint32_t rnd)
{
	usec_t d = LEASE_TRY_WINDOW;

	for (unsigned i = 0; i < lost && d < LEASE_TRY_WINDOW_MAX; i++)
		d *= 2;
	if (d > LEASE_TRY_WINDOW_MAX)
		d = LEASE_TRY_WINDOW_MAX;
	return rnd % d;
}
