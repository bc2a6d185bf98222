/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* k8s-notify's verbs against an API server that answers anything: every
 * reply a drain, a cordon, a lease, the device-plugin restart and annotate
 * read (nodes, pod lists, evictions, Leases, Status errors, bodies that are
 * not JSON, connections that fail) goes through the code that reads it, on a
 * clock that only moves when the verbs sleep. The input is text:
 *
 *   VERB [ARG]          cordon, uncordon, drain [RESOURCE], annotate STATE,
 *   [main config...]    restart-device-plugin [RES=N], lease acquire|renew|release
 *   ---
 *   STATUS [+MS]        the reply to the first request: an HTTP status, or
 *   BODY...             "reset" for a connection that breaks; a watch's
 *                       stream ends MS ms after it opened (without: when
 *                       the request's time is up)
 *   ---
 *   ...                 one part per request; when they run out, the server
 *                       refuses connections
 *
 * Every request the verbs send must carry a body that is JSON. With
 * SRIOV_FUZZ_PRINT set, the result goes to standard error (for writing
 * seeds). */

#include "fuzz-text.h"
#include "json-util.h"
#include "k8s-notify.h"

#define SEPARATOR "\n---\n"

struct script {
	char **parts; /* the replies, in order */
	size_t n, next;
	usec_t now;
	uint32_t rnd;
	usec_t ends_after; /* of the last reply: its +MS */
	bool ends_early;   /* it had one */
};

/* "STATUS" or "STATUS +MS" up to the end of the line; false otherwise. */
static bool parse_status(struct script *s, const char *part, const char *nl, long *ret_status)
{
	char *end;
	long ms = 0;

	errno = 0;
	*ret_status = strtol(part, &end, 10);
	if (end == part || errno != 0 || *ret_status < 100 || *ret_status > 599)
		return false;
	s->ends_early = end != nl && startswith(end, " +");
	if (s->ends_early) {
		const char *p = end + 2;

		ms = strtol(p, &end, 10);
		if (end == p || errno != 0 || ms < 0 || ms > 86400000)
			return false;
	}
	s->ends_after = (usec_t)ms * USEC_PER_MSEC;
	return end == nl;
}

static int script_exchange(struct k8s_client *c, void *userdata, const struct k8s_request *req,
			   struct k8s_reply *ret)
{
	struct script *s = userdata;
	struct json_object *body;
	char *part, *nl;
	long status;

	if (!req->what || !req->path || req->path[0] != '/')
		abort();
	if (req->body) {
		body = json_tokener_parse(req->body);
		if (!body)
			abort(); /* we sent something that is not JSON */
		json_object_put(body);
	}
	s->now += USEC_PER_MSEC;
	if (s->next >= s->n)
		return k8s_client_fail(c, -ECONNREFUSED, "%s: connection refused", req->what);
	part = s->parts[s->next++];
	nl = strchrnul(part, '\n');
	if (!parse_status(s, part, nl, &status))
		return k8s_client_fail(c, -ECONNRESET, "%s: connection reset", req->what);
	*ret = (struct k8s_reply){ .status = status,
				   .body = *nl ? nl + 1 : nl,
				   .len = strlen(*nl ? nl + 1 : nl) };
	return 0;
}

/* A watch: the part's body is the stream (when the status is 200), handed
 * over at once; then the timer runs on the script's clock until the
 * request's time is up (or the part's +MS), or a callback ends it. */
static int script_watch(struct k8s_client *c, void *userdata, const struct k8s_request *req,
			struct k8s_reply *ret)
{
	struct script *s = userdata;
	usec_t end;
	int r;

	r = script_exchange(c, userdata, req, ret);
	if (r < 0 || ret->status != 200)
		return r;
	end = s->now + (s->ends_early ? s->ends_after : req->timeout ?: USEC_PER_SEC);
	if (k8s_watch_feed(c, ret->body, ret->len) != 0)
		return 0;
	for (unsigned ticks = 0; ticks < 1000; ticks++) {
		usec_t wake = k8s_watch_wake(c);

		if (!wake || wake > end)
			break;
		if (wake > s->now)
			s->now = wake;
		if (k8s_watch_tick(c) != 0)
			return 0;
	}
	if (s->now < end)
		s->now = end;
	ret->len = 0;
	return 0;
}

static usec_t script_now(void *userdata)
{
	return ((struct script *)userdata)->now;
}

/* 2026-12-03T10:30:00Z at the monotonic clock's 0 (it starts at 1000 s); the seeds' Leases
 * were renewed at 10:00 */
#define SCRIPT_EPOCH (1796293800 * USEC_PER_SEC)

static usec_t script_realtime(void *userdata)
{
	return SCRIPT_EPOCH + ((struct script *)userdata)->now;
}

static void script_sleep(void *userdata, usec_t d)
{
	((struct script *)userdata)->now += d;
}

static uint32_t script_random(void *userdata)
{
	struct script *s = userdata;

	/* xorshift32: the same input runs the same way */
	s->rnd ^= s->rnd << 13;
	s->rnd ^= s->rnd >> 17;
	s->rnd ^= s->rnd << 5;
	return s->rnd;
}

/* Splits text at SEPARATOR in place. */
static int split(char *text, char ***ret, size_t *ret_n)
{
	_cleanup_free_ char **parts = NULL;
	size_t n = 0;

	for (char *p = text; p;) {
		char **a = reallocarray(parts, n + 1, sizeof(*a)), *sep;

		if (!a)
			return -ENOMEM;
		parts = a;
		parts[n++] = p;
		sep = strstr(p, SEPARATOR);
		if (sep) {
			*sep = '\0';
			sep += strlen(SEPARATOR);
		}
		p = sep;
	}
	*ret = TAKE_PTR(parts);
	*ret_n = n;
	return 0;
}

static int (*const verb_run[])(struct k8s_ctx *x) = {
	verb_cordon, verb_uncordon, verb_drain, verb_restart_device_plugin,
	verb_lease,  verb_annotate,
};
static const char *const verb_names[] = {
	"cordon", "uncordon", "drain", "restart-device-plugin", "lease", "annotate",
};

/* The verb line as k8s-notify's options would set it up; the verb's index. */
static int setup_verb(struct k8s_ctx *x, char *line, char **arg_buf)
{
	char *arg = strchr(line, ' ');

	if (arg)
		*arg++ = '\0';
	for (size_t i = 0; i < ELEMENTSOF(verb_names); i++) {
		if (!streq(line, verb_names[i]))
			continue;
		arg_buf[0] = arg;
		if (verb_run[i] == verb_lease) {
			char *slot = arg ? strchr(arg, ' ') : NULL;

			if (!arg)
				return -EINVAL;
			if (slot) {
				*slot++ = '\0';
				x->slot = slot;
			}
			x->args = arg_buf;
			x->n_args = 1;
			return verb_lease_check(x) < 0 ? -EINVAL : (int)i;
		}
		if (verb_run[i] == verb_annotate) {
			x->state = arg;
			return verb_annotate_check(x) < 0 ? -EINVAL : (int)i;
		}
		if (verb_run[i] == verb_drain && arg)
			x->resources = arg_buf;
		if (verb_run[i] == verb_restart_device_plugin && arg) {
			x->expect = arg_buf;
			if (verb_restart_device_plugin_check(x) < 0)
				return -EINVAL;
		}
		return (int)i;
	}
	return -EINVAL;
}

static void run(struct k8s_ctx *x, int verb, struct script *s)
{
	struct k8s_transport t = { .exchange = script_exchange,
				   .watch = script_watch,
				   .now = script_now,
				   .realtime = script_realtime,
				   .sleep = script_sleep,
				   .random = script_random,
				   .userdata = s };
	struct k8s_client_options co = { .max_attempts = 5,
					 .backoff_base = 250 * USEC_PER_MSEC,
					 .backoff_max = 4 * USEC_PER_SEC };
	int r;

	if (k8s_client_new_transport(&t, &co, &x->client) < 0)
		return;
	x->result = json_object_new_object();
	if (!x->result)
		return;
	r = verb_run[verb](x);
	/* the result as k8s-notify prints it */
	result_set(x, "ok", json_object_new_boolean(r >= 0));
	if (r < 0)
		result_set(x, "error", json_object_new_string(k8s_client_error(x->client)));
	result_set(x, "requests", json_object_new_int((int)s->next));
	if (!json_object_to_json_string_ext(x->result, JSON_C_TO_STRING_PLAIN))
		abort();
	if (getenv("SRIOV_FUZZ_PRINT"))
		fprintf(stderr, "%s\n", json_object_to_json_string(x->result));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	_cleanup_free_ char *text = fuzz_text(data, size);
	_cleanup_free_ char **parts = NULL;
	struct script s = { .now = 1000 * USEC_PER_SEC, .rnd = 2463534242u };
	struct k8s_ctx x = { .lease_duration = 3600, .node = (char *)"worker-1", .quiet = true };
	char *arg_buf[2] = {}, *conf;
	struct diag_list diags = {};
	size_t n;
	int verb;

	if (!text || split(text, &parts, &n) < 0)
		return 0;
	conf = strchr(parts[0], '\n');
	if (conf)
		*conf++ = '\0';
	if (mainconf_init(&x.conf) < 0)
		return 0;
	if (conf && mainconf_parse_string(&x.conf, "fuzz.conf", conf, &diags) < 0)
		goto out;
	if (diag_count(&diags, DIAG_ERROR) > 0)
		goto out; /* k8s-notify refuses to start */
	verb = setup_verb(&x, parts[0], arg_buf);
	if (verb < 0)
		goto out;
	s.parts = parts + 1;
	s.n = n - 1;
	run(&x, verb, &s);
out:
	diag_list_done(&diags);
	k8s_client_free(x.client);
	json_object_putp(&x.result);
	mainconf_done(&x.conf);
	return 0;
}
