/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* lease acquire|renew|release: MaxParallelNodes slots as Leases named
 * sriov-persist-slot-0..N-1 in LeaseNamespace. Every write carries the
 * resourceVersion read (or is a create), so two nodes can never both win a
 * slot: the loser gets a 409. acquire lists the Leases once and, when every
 * slot is busy, watches them (one long request) until one is free or its
 * holder's time runs out, then waits a random moment (lease_try_delay) in
 * which another waiter may take it first before it writes; a lost race only
 * widens that moment. A watch the server ends early is opened again after
 * a backoff (watch_pause). Past --timeout it exits 75. */

#include "json-util.h"
#include "k8s-notify.h"
#include "lease-state.h"

#define ACQUIRE_TIMEOUT_DEFAULT (300 * USEC_PER_SEC)
#define CONFLICT_RETRIES 5
#define STALE_MAX (10 * USEC_PER_SEC)
/* Before a watch is opened again (the server ended the last one, or a 410
 * asks for a new list): k8s_backoff() from 1 s, doubling up to 30 s, equal
 * jitter. A server that ends every watch at once (an API server shedding
 * load, a proxy that cuts long requests) then sees a node's watches at 0.5-1,
 * 1-2, 2-4 ... 15-30 s apart instead of one new TLS connection after another,
 * and a fleet whose watches all ended together comes back spread out. The
 * count starts again after a watch that stayed open WATCH_BACKOFF_MAX or
 * longer: then no server, however it ends our watches, gets more than one
 * every 30 s or so. Events alone do not reset it: a server could send one
 * with every watch it ends at once. */
#define WATCH_BACKOFF_BASE (1 * USEC_PER_SEC)
#define WATCH_BACKOFF_MAX (30 * USEC_PER_SEC)

struct slot {
	char *name;
	struct json_object *lease; /* NULL: absent */
	/* a write to it lost: busy until the watch shows what the winner
	 * wrote, or until then (the client's clock), when it is read again */
	usec_t stale_until;
};

struct slots {
	struct k8s_ctx *x;
	const char *holder;
	struct slot *s;
	enum lease_state *states; /* of s[i], as last read */
	unsigned n;
	/* a write that lost reads the slot again; a watcher learns of it from
	 * the watch instead */
	bool watching;
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
	/* a create can only miss its namespace: no slot is ever to be had there */
	if (create && r == -ENOENT)
		return k8s_client_fail(
			ss->x->client, -ENOENT,
			"%s: the namespace %s does not exist: apply rbac.yaml, which "
			"makes it, or set LeaseNamespace= to the slots' namespace",
			what, ss->x->conf.lease_namespace);
	if ((r == -EEXIST || r == -ESTALE || r == -ENOENT) && ss->watching) {
		s->stale_until = k8s_client_now(ss->x->client) + STALE_MAX;
		ss->states[i] = LEASE_STATE_BUSY;
		return 0;
	}
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

/* What acquire knows while it lists and watches. */
struct acquire {
	struct slots ss;
	char *rv;	 /* the resourceVersion the slots are known at */
	usec_t deadline; /* the client's clock */
	usec_t try_at;	 /* when to try a free slot; 0: none planned */
	unsigned lost;	 /* races lost */
	unsigned attempts;
	unsigned reopens; /* watches opened again since the last that stayed open */
	int won;	  /* the slot held, -1 none yet */
	bool relist;	  /* the watch's resourceVersion is too old (410) */
};

static int slot_index(const struct slots *ss, const char *name)
{
	for (unsigned i = 0; name && i < ss->n; i++)
		if (streq(ss->s[i].name, name))
			return (int)i;
	return -ENOENT;
}

static int set_rv(struct acquire *a, struct json_object *o)
{
	const char *rv = k8s_json_str(o, "metadata", "resourceVersion", NULL);

	if (!rv)
		return 0;
	free(a->rv);
	a->rv = strdup(rv);
	return a->rv ? 0 : -ENOMEM;
}

/* Every slot's state by the clock now. */
static int slots_decide(struct slots *ss)
{
	for (unsigned i = 0; i < ss->n; i++) {
		ss->states[i] = ss->s[i].stale_until ?
					LEASE_STATE_BUSY :
					lease_decide(ss->s[i].lease, ss->holder,
						     k8s_client_realtime(ss->x->client));
		if (ss->states[i] < 0)
			return k8s_client_fail(ss->x->client, -ERANGE,
					       "lease %s/%s: leaseDurationSeconds is not an int32; "
					       "refusing to judge it",
					       ss->x->conf.lease_namespace, ss->s[i].name);
	}
	return 0;
}

/* One list of the namespace's Leases: every slot and the resourceVersion to
 * watch from. */
static int slots_list(struct acquire *a)
{
	struct k8s_ctx *x = a->ss.x;
	_cleanup_free_ char *path = lease_path(x, NULL);
	_cleanup_free_ char *what = strdup_printf("list leases in %s", x->conf.lease_namespace);
	_cleanup_json_ struct json_object *list = NULL;
	struct json_object *items;
	int r;

	if (!path || !what)
		return -ENOMEM;
	r = k8s_list(x->client, path, what, &list, &items);
	if (r < 0)
		return r;
	/* never the resourceVersion of an older list: this one's, or none */
	a->rv = mfree(a->rv);
	r = set_rv(a, list);
	if (r < 0)
		return r;
	for (unsigned i = 0; i < a->ss.n; i++) {
		json_object_putp(&a->ss.s[i].lease);
		a->ss.s[i].stale_until = 0;
	}
	for (size_t k = 0; k < json_object_array_length(items); k++) {
		struct json_object *l = json_object_array_get_idx(items, k);
		int i = slot_index(&a->ss, k8s_json_str(l, "metadata", "name", NULL));

		if (i >= 0 && json_object_is_type(l, json_type_object))
			a->ss.s[i].lease = json_object_get(l);
	}
	return slots_decide(&a->ss);
}

/* Tries the slot lease_pick() names: 1 held, 0 none free or the race lost. */
static int try_slot(struct acquire *a)
{
	int i = lease_pick(a->ss.states, a->ss.n, k8s_client_random(a->ss.x->client)), r;
	bool already;

	if (i < 0)
		return 0;
	already = a->ss.states[i] == LEASE_STATE_OURS;
	a->attempts++;
	r = slot_hold(&a->ss, (unsigned)i);
	if (r > 0) {
		a->won = i;
		result_slot(a->ss.x, &a->ss, (unsigned)i, already);
		return 1;
	}
	if (r == 0)
		a->lost++;
	return r;
}

/* After a change: a try planned when a slot is free (at once for one that is
 * already ours), none while every slot is busy. */
static int plan_try(struct acquire *a)
{
	int r = slots_decide(&a->ss);

	if (r < 0)
		return r;
	if (lease_pick(a->ss.states, a->ss.n, 0) < 0)
		a->try_at = 0;
	else if (a->try_at == 0)
		a->try_at = k8s_client_now(a->ss.x->client) +
			    lease_try_delay(a->lost, k8s_client_random(a->ss.x->client));
	return 0;
}

static int on_lease_event(struct json_object *ev, void *userdata)
{
	struct acquire *a = userdata;
	struct k8s_client *c = a->ss.x->client;
	const char *type = k8s_json_str(ev, "type", NULL);
	struct json_object *o = k8s_json_get(ev, "object", NULL);
	int i, r;

	if (!type || !o || !json_object_is_type(o, json_type_object))
		return k8s_client_fail(c, -EBADMSG,
				       "watch leases: an event without type or object");
	if (streq(type, "ERROR")) {
		if (json_object_get_int(k8s_json_get(o, "code", NULL)) == 410) {
			a->relist = true; /* compacted away: list again */
			return 1;
		}
		return k8s_client_fail(c, -EIO, "watch leases: %s",
				       k8s_status_message(o) ?: "an error event");
	}
	r = set_rv(a, o);
	if (r < 0 || streq(type, "BOOKMARK"))
		return r;
	i = slot_index(&a->ss, k8s_json_str(o, "metadata", "name", NULL));
	if (i < 0)
		return 0;
	json_object_putp(&a->ss.s[i].lease);
	a->ss.s[i].stale_until = 0;
	if (!streq(type, "DELETED"))
		a->ss.s[i].lease = json_object_get(o);
	return plan_try(a);
}

/* The next thing to do without an event: the try planned, a holder's time
 * running out, or the deadline. */
static usec_t acquire_wake(void *userdata)
{
	struct acquire *a = userdata;
	struct k8s_client *c = a->ss.x->client;
	usec_t wake = a->deadline, now = k8s_client_now(c), real = k8s_client_realtime(c);

	if (a->try_at && a->try_at < wake)
		wake = a->try_at;
	for (unsigned i = 0; i < a->ss.n; i++) {
		usec_t until;

		if (a->ss.s[i].stale_until) {
			if (a->ss.s[i].stale_until < wake)
				wake = a->ss.s[i].stale_until;
			continue;
		}
		if (a->ss.states[i] != LEASE_STATE_BUSY ||
		    lease_expiry(a->ss.s[i].lease, &until) < 0)
			continue;
		/* the wall clock's time on the client's clock, just after it */
		until = until > real ? now + (until - real) + USEC_PER_MSEC : now;
		if (until < wake)
			wake = until;
	}
	return wake;
}

static int acquire_tick(void *userdata)
{
	struct acquire *a = userdata;
	struct k8s_client *c = a->ss.x->client;
	int r;

	if (k8s_client_now(c) >= a->deadline)
		return 1;
	/* a lost race whose winner the watch never showed */
	for (unsigned i = 0; i < a->ss.n; i++)
		if (a->ss.s[i].stale_until && k8s_client_now(c) >= a->ss.s[i].stale_until) {
			a->ss.s[i].stale_until = 0;
			r = slot_read(&a->ss, i);
			if (r < 0)
				return r;
		}
	if (a->try_at && k8s_client_now(c) >= a->try_at) {
		a->try_at = 0;
		r = slots_decide(&a->ss);
		if (r >= 0)
			r = try_slot(a);
		if (r != 0)
			return r;
	}
	/* a holder's time ran out, or the race was lost: look again */
	return plan_try(a);
}

static int watch_slots(struct acquire *a)
{
	struct k8s_ctx *x = a->ss.x;
	usec_t left = a->deadline - k8s_client_now(x->client);
	unsigned secs = (unsigned)((left + USEC_PER_SEC - 1) / USEC_PER_SEC);
	_cleanup_free_ char *rv = k8s_escape(a->rv), *base = lease_path(x, NULL), *path = NULL;
	_cleanup_free_ char *what = strdup_printf("watch leases in %s", x->conf.lease_namespace);
	const struct k8s_watcher w = {
		.event = on_lease_event, .wake = acquire_wake, .tick = acquire_tick, .userdata = a
	};

	if (!rv || !base || !what)
		return -ENOMEM;
	path = strdup_printf("%s?watch=1&allowWatchBookmarks=true&resourceVersion=%s"
			     "&timeoutSeconds=%u",
			     base, rv, secs ?: 1);
	if (!path)
		return -ENOMEM;
	return k8s_watch(x->client,
			 &(struct k8s_request){ .method = "GET",
						.path = path,
						.what = what,
						.timeout =
							((usec_t)(secs ?: 1) + 5) * USEC_PER_SEC },
			 &w);
}

/* Between one watch and the next: the backoff (see WATCH_BACKOFF_BASE), but
 * never past what the watch would have done meanwhile. Until the next watch
 * opens, acquire_wake()'s times (a try planned, a holder's time running out,
 * a lost race to read again, the deadline) still run acquire_tick() on time,
 * so that a slot whose holder expires is taken when it does, not when the
 * backoff ends. 0 to watch again, 1 when a tick took a slot or the deadline
 * came, <0 on errors. */
static int watch_pause(struct acquire *a, usec_t opened)
{
	struct k8s_client *c = a->ss.x->client;
	usec_t now = k8s_client_now(c), until;

	if (now - opened >= WATCH_BACKOFF_MAX)
		a->reopens = 0;
	until = now + k8s_backoff(a->reopens++, WATCH_BACKOFF_BASE, WATCH_BACKOFF_MAX,
				  k8s_client_random(c));
	while ((now = k8s_client_now(c)) < until) {
		usec_t wake = acquire_wake(a);
		int r;

		if (wake > now) {
			k8s_client_sleep(c, (wake < until ? wake : until) - now, 0);
			continue;
		}
		r = acquire_tick(a);
		if (r != 0)
			return r;
		/* nothing new to do before the clock moves */
		if (acquire_wake(a) <= now)
			k8s_client_sleep(c, USEC_PER_MSEC, 0);
	}
	return 0;
}

/* Lists the slots (the first time, or after a 410) and tries at once what
 * the list shows free: 0 to go on watching, else what ends the wait. */
static int acquire_list(struct acquire *a, bool *listed)
{
	int r;

	if (*listed && !a->relist)
		return 0;
	*listed = true;
	a->relist = false;
	r = slots_list(a);
	if (r >= 0 && lease_pick(a->ss.states, a->ss.n, 0) >= 0)
		r = try_slot(a);
	a->ss.watching = true;
	return r;
}

/* Why the wait cannot go on: the time is up, or there is nothing to watch from. */
static int acquire_stuck(struct acquire *a)
{
	struct k8s_ctx *x = a->ss.x;

	if (k8s_client_now(x->client) >= a->deadline) {
		_cleanup_free_ char *busy = slots_describe(&a->ss);

		return k8s_client_fail(x->client, -EBUSY,
				       "lease acquire: all %u slot(s) in %s are held: %s", a->ss.n,
				       x->conf.lease_namespace, strna(busy));
	}
	/* kube-apiserver gives every list a resourceVersion, the point from
	 * which a watch sees every change after the list. Without one there
	 * is no such point (a watch without it starts wherever the server
	 * likes, and could miss a slot given back in between): the server
	 * is no kube-apiserver, or something between rewrites its answers.
	 * Waiting does not mend that, so it is a final failure, said as
	 * such, and nothing is held. */
	if (!a->rv)
		return k8s_client_fail(x->client, -EBADMSG,
				       "list leases in %s: the LeaseList has no "
				       "metadata.resourceVersion to watch from (kube-apiserver "
				       "always gives one: a proxy that rewrites answers?)",
				       x->conf.lease_namespace);
	return 0;
}

/* Watches the slots until one is won, the server ends the watch, or a 410
 * wants a new list; a watch that ended is opened again after a pause. */
static int acquire_watch(struct acquire *a)
{
	struct k8s_client *client = a->ss.x->client;
	usec_t opened;
	int r;

	r = plan_try(a);
	if (r < 0)
		return r;
	opened = k8s_client_now(client);
	r = watch_slots(a);
	if (r >= 0 && a->won < 0 && k8s_client_now(client) < a->deadline)
		r = watch_pause(a, opened);
	return r;
}

static int lease_acquire(struct k8s_ctx *x)
{
	struct acquire a = { .won = -1 };
	bool listed = false;
	int r;

	a.deadline = k8s_client_now(x->client) + (x->timeout ?: ACQUIRE_TIMEOUT_DEFAULT);
	k8s_client_set_deadline(x->client, a.deadline + 30 * USEC_PER_SEC);
	r = slots_init(&a.ss, x, NULL);
	while (r >= 0 && a.won < 0) {
		r = acquire_list(&a, &listed);
		if (r != 0)
			break;
		r = acquire_stuck(&a);
		if (r == 0)
			r = acquire_watch(&a);
	}
	if (r >= 0 && a.won >= 0) {
		k8s_log(x, "holds lease slot %s", a.ss.s[a.won].name);
		result_set(x, "attempts", json_object_new_int((int)a.attempts));
		r = 0;
	}
	free(a.rv);
	slots_done(&a.ss);
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
