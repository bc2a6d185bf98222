/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* lease acquire|renew|release: MaxParallelNodes slots as Leases named
 * sriov-persist-slot-0..N-1 in LeaseNamespace. Every write carries the
 * resourceVersion read (or is a create), so two nodes can never both win a
 * slot: the loser gets a 409 and reads again. When every slot is busy,
 * acquire waits with backoff and jitter until --timeout, then exits 75. */

#include "json-util.h"
#include "k8s-notify.h"
#include "lease-state.h"

#define ACQUIRE_TIMEOUT_DEFAULT (300 * USEC_PER_SEC)
#define POLL_BASE (500 * USEC_PER_MSEC)
#define POLL_MAX (5 * USEC_PER_SEC)
#define CONFLICT_RETRIES 5

struct slot {
	char *name;
	struct json_object *lease; /* NULL: absent */
};

struct slots {
	struct k8s_ctx *x;
	const char *holder;
	struct slot *s;
	enum lease_state *states; /* of s[i], as last read */
	unsigned n;
};

static void slots_done(struct slots *ss)
{
	for (unsigned i = 0; ss->s && i < ss->n; i++) {
		free(ss->s[i].name);
		json_object_putp(&ss->s[i].lease);
	}
	free(ss->s);
	free(ss->states);
}

static int slots_init(struct slots *ss, struct k8s_ctx *x, const char *only)
{
	*ss = (struct slots){ .x = x, .holder = x->holder ?: x->node };
	ss->n = only ? 1 : x->conf.max_parallel_nodes;
	ss->s = calloc(ss->n, sizeof(*ss->s));
	ss->states = calloc(ss->n, sizeof(*ss->states));
	if (!ss->s || !ss->states)
		return -ENOMEM;
	for (unsigned i = 0; i < ss->n; i++) {
		ss->s[i].name = only ? strdup(only) : lease_slot_name(i);
		if (!ss->s[i].name)
			return -ENOMEM;
	}
	return 0;
}

static char *lease_path(struct k8s_ctx *x, const char *name)
{
	return strdup_printf("/apis/coordination.k8s.io/v1/namespaces/%s/leases%s%s",
			     x->conf.lease_namespace, name ? "/" : "", strempty(name));
}

/* GETs slot i and decides what it means for us. */
static int slot_read(struct slots *ss, unsigned i)
{
	struct slot *s = &ss->s[i];
	_cleanup_free_ char *path = lease_path(ss->x, s->name);
	_cleanup_free_ char *what =
		strdup_printf("get lease %s/%s", ss->x->conf.lease_namespace, s->name);
	int r;

	if (!path || !what)
		return -ENOMEM;
	json_object_putp(&s->lease);
	r = k8s_do(ss->x->client,
		   &(struct k8s_request){ .method = "GET", .path = path, .what = what }, &s->lease);
	if (r < 0 && r != -ENOENT)
		return r;
	if (s->lease && !json_object_is_type(s->lease, json_type_object)) {
		json_object_putp(&s->lease);
		return k8s_client_fail(ss->x->client, -EBADMSG, "%s: the answer is not a Lease",
				       what);
	}
	ss->states[i] = lease_decide(s->lease, ss->holder, k8s_client_realtime(ss->x->client));
	if (ss->states[i] < 0)
		return k8s_client_fail(ss->x->client, -ERANGE,
				       "lease %s/%s: leaseDurationSeconds is not an int32; "
				       "refusing to judge it",
				       ss->x->conf.lease_namespace, s->name);
	return 0;
}

static int slots_read(struct slots *ss)
{
	for (unsigned i = 0; i < ss->n; i++) {
		int r = slot_read(ss, i);

		if (r < 0)
			return r;
	}
	return 0;
}

/* Writes the Lease (create when absent, else update); 1 written, 0 when
 * someone else wrote first (the slot is read again), <0 on errors. */
static int slot_write(struct slots *ss, unsigned i, struct json_object *lease, const char *verb)
{
	struct slot *s = &ss->s[i];
	bool create = ss->states[i] == LEASE_STATE_ABSENT;
	_cleanup_free_ char *path = lease_path(ss->x, create ? NULL : s->name);
	_cleanup_free_ char *what =
		strdup_printf("%s lease %s/%s", verb, ss->x->conf.lease_namespace, s->name);
	struct k8s_request req = {
		.method = create ? "POST" : "PUT",
		.path = path,
		.content_type = K8S_JSON,
		.body = json_object_to_json_string_ext(
			lease, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE),
		.what = what,
	};
	_cleanup_json_ struct json_object *written = NULL;
	int r;

	if (!path || !what || !req.body)
		return -ENOMEM;
	r = k8s_do(ss->x->client, &req, &written);
	if (r == -EEXIST || r == -ESTALE || r == -ENOENT)
		return slot_read(ss, i);
	if (r < 0)
		return r;
	json_object_putp(&s->lease);
	s->lease = TAKE_PTR(written);
	ss->states[i] = LEASE_STATE_OURS;
	return 1;
}

static int slot_hold(struct slots *ss, unsigned i)
{
	struct slot *s = &ss->s[i];
	_cleanup_json_ struct json_object *l = NULL;
	const char *verb = ss->states[i] == LEASE_STATE_ABSENT ? "create" :
			   ss->states[i] == LEASE_STATE_OURS   ? "renew" :
								 "take over";
	int r;

	r = lease_build_hold(s->lease, ss->x->conf.lease_namespace, s->name, ss->holder,
			     ss->x->lease_duration, k8s_client_realtime(ss->x->client), &l);
	if (r == -ERANGE)
		return k8s_client_fail(
			ss->x->client, r,
			"lease %s/%s: leaseTransitions is not an int32 that can grow",
			ss->x->conf.lease_namespace, s->name);
	if (r < 0)
		return r;
	return slot_write(ss, i, l, verb);
}

/* "slot-0 (node-a), slot-1 (node-b)": who holds what, for the busy message. */
static char *slots_describe(const struct slots *ss)
{
	_cleanup_strv_free_ char **l = NULL;

	for (unsigned i = 0; i < ss->n; i++)
		if (strv_consume(&l, strdup_printf("%s (%s)", ss->s[i].name,
						   strna(k8s_json_str(ss->s[i].lease, "spec",
								      "holderIdentity", NULL)))) <
		    0)
			return NULL;
	return strv_join(l, ", ");
}

static void result_slot(struct k8s_ctx *x, const struct slots *ss, unsigned i, bool already)
{
	result_set(x, "slot", json_object_new_string(ss->s[i].name));
	result_set(x, "holder", json_object_new_string(ss->holder));
	result_set(x, "already", json_object_new_boolean(already));
}

/* One pass over the slots as read: 1 when we hold one, 0 when all are busy. */
static int acquire_pass(struct slots *ss)
{
	for (unsigned tries = 0; tries < ss->n + CONFLICT_RETRIES; tries++) {
		int i = lease_pick(ss->states, ss->n, k8s_client_random(ss->x->client)), r;
		bool already;

		if (i < 0)
			return 0;
		already = ss->states[i] == LEASE_STATE_OURS;
		r = slot_hold(ss, (unsigned)i);
		if (r < 0)
			return r;
		if (r > 0) {
			result_slot(ss->x, ss, (unsigned)i, already);
			return 1;
		}
	}
	return 0;
}

static int lease_acquire(struct k8s_ctx *x)
{
	usec_t deadline = k8s_client_now(x->client) + (x->timeout ?: ACQUIRE_TIMEOUT_DEFAULT);
	struct slots ss;
	int r;

	k8s_client_set_deadline(x->client, deadline + 30 * USEC_PER_SEC);
	r = slots_init(&ss, x, NULL);
	for (unsigned round = 0; r >= 0; round++) {
		_cleanup_free_ char *busy = NULL;

		r = slots_read(&ss);
		if (r >= 0)
			r = acquire_pass(&ss);
		if (r > 0) {
			k8s_log(x, "holds lease slot %s",
				json_object_get_string(json_object_object_get(x->result, "slot")));
			result_set(x, "rounds", json_object_new_int((int)round + 1));
			r = 0;
			break;
		}
		if (r < 0)
			break;
		if (k8s_client_now(x->client) >= deadline) {
			busy = slots_describe(&ss);
			r = k8s_client_fail(x->client, -EBUSY,
					    "lease acquire: all %u slot(s) in %s are held: %s",
					    ss.n, x->conf.lease_namespace, strna(busy));
			break;
		}
		k8s_client_sleep(x->client,
				 k8s_backoff(round, POLL_BASE, POLL_MAX,
					     k8s_client_random(x->client)),
				 deadline);
	}
	slots_done(&ss);
	return r;
}

/* For renew and release: 1 with *ret the slot we hold, 0 when none. */
static int find_ours(struct slots *ss, unsigned *ret)
{
	for (unsigned i = 0; i < ss->n; i++) {
		int r = slot_read(ss, i);

		if (r < 0)
			return r;
		if (ss->states[i] == LEASE_STATE_OURS) {
			*ret = i;
			return 1;
		}
	}
	return 0;
}

static int lease_renew(struct k8s_ctx *x)
{
	struct slots ss;
	unsigned i = 0;
	int r;

	k8s_client_set_deadline(x->client,
				k8s_client_now(x->client) + (x->timeout ?: 60 * USEC_PER_SEC));
	r = slots_init(&ss, x, x->slot);
	for (unsigned tries = 0; r >= 0 && tries < CONFLICT_RETRIES; tries++) {
		r = find_ours(&ss, &i);
		if (r == 0)
			r = k8s_client_fail(x->client, -ENOENT,
					    "lease renew: %s holds no slot in %s", ss.holder,
					    x->conf.lease_namespace);
		if (r > 0)
			r = slot_hold(&ss, i);
		if (r > 0) {
			result_slot(x, &ss, i, true);
			r = 0;
			break;
		}
	}
	slots_done(&ss);
	return r;
}

static int slot_release(struct slots *ss, unsigned i)
{
	_cleanup_json_ struct json_object *l = NULL;
	int r = lease_build_release(ss->s[i].lease, &l);

	if (r < 0)
		return r;
	return slot_write(ss, i, l, "release");
}

/* Reads slot i and gives it back while it is ours (a 409 makes us read it again). */
static int release_one(struct slots *ss, unsigned i)
{
	int r = slot_read(ss, i);

	for (unsigned tries = 0; r >= 0 && tries < CONFLICT_RETRIES; tries++) {
		if (ss->states[i] != LEASE_STATE_OURS)
			return 0;
		r = slot_release(ss, i);
		if (r > 0) {
			k8s_log(ss->x, "released lease slot %s", ss->s[i].name);
			result_append(ss->x, "released", json_object_new_string(ss->s[i].name));
			return 0;
		}
	}
	if (r < 0)
		return r;
	return k8s_client_fail(ss->x->client, -EAGAIN, "release lease %s: it kept changing (409)",
			       ss->s[i].name);
}

static int lease_release(struct k8s_ctx *x)
{
	struct slots ss;
	int r;

	k8s_client_set_deadline(x->client,
				k8s_client_now(x->client) + (x->timeout ?: 60 * USEC_PER_SEC));
	result_set(x, "released", json_object_new_array());
	r = slots_init(&ss, x, x->slot);
	for (unsigned i = 0; r >= 0 && i < ss.n; i++)
		r = release_one(&ss, i);
	slots_done(&ss);
	return r;
}

static const struct {
	const char *name;
	int (*run)(struct k8s_ctx *x);
} lease_actions[] = {
	{ "acquire", lease_acquire },
	{ "renew", lease_renew },
	{ "release", lease_release },
};

int verb_lease_check(struct k8s_ctx *x)
{
	for (size_t i = 0; i < ELEMENTSOF(lease_actions); i++)
		if (streq(x->args[0], lease_actions[i].name)) {
			if (x->slot && (i == 0 || !k8s_name_is_valid(x->slot) ||
					!startswith(x->slot, LEASE_SLOT_PREFIX)))
				return k8s_usage(
					x,
					"lease %s: --slot must name a slot " LEASE_SLOT_PREFIX
					"N (renew and release only)",
					x->args[0]);
			return 0;
		}
	return k8s_usage(x, "lease: '%s' is not acquire, renew or release", x->args[0]);
}

int verb_lease(struct k8s_ctx *x)
{
	for (size_t i = 0; i < ELEMENTSOF(lease_actions); i++)
		if (streq(x->args[0], lease_actions[i].name)) {
			result_set(x, "action", json_object_new_string(x->args[0]));
			return lease_actions[i].run(x);
		}
	return -EINVAL;
}
