/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "lease-state.h"
#include "json-util.h"

static const char *const lease_state_names[_LEASE_STATE_MAX] = {
	[LEASE_STATE_ABSENT] = "absent",   [LEASE_STATE_FREE] = "free",
	[LEASE_STATE_EXPIRED] = "expired", [LEASE_STATE_OURS] = "ours",
	[LEASE_STATE_BUSY] = "busy",
};

const char *lease_state_to_string(enum lease_state s)
{
	return s >= 0 && s < _LEASE_STATE_MAX ? lease_state_names[s] : NULL;
}

/* Until when the holder holds it; 0 when that cannot be told (= expired). */
static usec_t lease_expiry(struct json_object *lease)
{
	struct json_object *d = k8s_json_get(lease, "spec", "leaseDurationSeconds", NULL);
	const char *t = k8s_json_str(lease, "spec", "renewTime", NULL);
	usec_t since;
	int64_t sec;

	if (!t)
		t = k8s_json_str(lease, "spec", "acquireTime", NULL);
	if (!t || microtime_parse(t, &since) < 0 || !d || !json_object_is_type(d, json_type_int))
		return 0;
	sec = json_object_get_int64(d);
	if (sec <= 0)
		return 0;
	return since + (usec_t)sec * USEC_PER_SEC;
}

enum lease_state lease_decide(struct json_object *lease, const char *holder, usec_t now)
{
	const char *h;

	if (!lease)
		return LEASE_STATE_ABSENT;
	h = k8s_json_str(lease, "spec", "holderIdentity", NULL);
	if (!h || !*h)
		return LEASE_STATE_FREE;
	if (streq(h, holder))
		return LEASE_STATE_OURS;
	return lease_expiry(lease) < now ? LEASE_STATE_EXPIRED : LEASE_STATE_BUSY;
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
	struct json_object *spec, *tr;
	const char *was = k8s_json_str(prev, "spec", "holderIdentity", NULL);
	char t[MICROTIME_MAX];
	int64_t transitions = 0;

	if (prev) {
		if (json_object_deep_copy(prev, &l, NULL) < 0)
			return -ENOMEM;
	} else if (lease_new(ns, name, &l) < 0)
		return -ENOMEM;
	spec = json_child(l, "spec");
	if (!spec)
		return -ENOMEM;
	microtime_format(now, t);
	tr = k8s_json_get(spec, "leaseTransitions", NULL);
	if (tr && json_object_is_type(tr, json_type_int))
		transitions = json_object_get_int64(tr);
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

	if (json_object_deep_copy(prev, &l, NULL) < 0)
		return -ENOMEM;
	spec = json_child(l, "spec");
	if (!spec)
		return -ENOMEM;
	json_object_object_del(spec, "holderIdentity");
	*ret = TAKE_PTR(l);
	return 0;
}
