/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* Waiting for the API server, and its credentials.
 * One backoff for every run: while the server does not answer, no run
 * starts before the time k8s-wait.c says, and then only one (k8s.c's resume
 * callback sends an operation's step first, else the node's annotations);
 * its answer ends the wait for all. While the server answers, an annotate
 * may run beside a step: a drain or a wait for a Lease slot takes minutes,
 * and what the node publishes must not wait for it. The hourly credentials
 * check sends no request. */

#include <syslog.h>

#include "k8s-api.h"

/* An hour: a token that lasts one is warned of within its life. */
#define CREDENTIALS_CHECK_USEC (3600 * USEC_PER_SEC)

void k8s_timer_at(sd_event *e, sd_event_source **s, usec_t when, sd_event_time_handler_t handler,
		  void *userdata)
{
	if (!*s) {
		(void)sd_event_add_time(e, s, CLOCK_MONOTONIC, when, USEC_PER_MSEC, handler,
					userdata);
		return;
	}
	(void)sd_event_source_set_time(*s, when);
	(void)sd_event_source_set_enabled(*s, SD_EVENT_ONESHOT);
}

usec_t k8s_mono_to_real(usec_t t)
{
	usec_t mono = now_monotonic();

	return now_realtime() + (t > mono ? t - mono : 0);
}

static int on_wait_timer(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct k8s_api *api = userdata;

	api->resume(api->m);
	return 0;
}

static void wait_arm(struct k8s_api *api, usec_t when)
{
	k8s_timer_at(api->m->event, &api->wait_timer, when, on_wait_timer, api);
}

void k8s_api_init(struct k8s_api *api, struct manager *m, void (*resume)(struct manager *m))
{
	*api = (struct k8s_api){ .m = m, .resume = resume };
}

void k8s_api_done(struct k8s_api *api)
{
	sd_event_source_disable_unref(api->wait_timer);
	k8s_wait_done(&api->wait);
	sd_event_source_disable_unref(api->credentials_timer);
	if (api->credentials)
		json_object_put(api->credentials);
}

bool k8s_api_may_run(struct k8s_api *api)
{
	if (!api->wait.since)
		return true;
	/* one run at a time while it does not answer: a try, or a run that
	 * began before the outage (a step, an annotate beside it); its end
	 * arms the next try */
	if (api->probing || api->running > 0)
		return false;
	if (k8s_wait_may_run(&api->wait, now_monotonic()))
		return true;
	wait_arm(api, api->wait.next);
	return false;
}

int k8s_api_run(struct k8s_api *api, char **args, k8s_done_t done, void *userdata)
{
	int r = k8s_run(api->m, args, done, userdata);

	if (r < 0)
		return r;
	api->running++;
	if (api->wait.since)
		api->probing = true;
	return r;
}

/* A run failed for want of an answer: an outage begins or goes on. */
static void seen_unreachable(struct k8s_api *api, const struct step_result *result, usec_t t)
{
	char span[FORMAT_TIMESPAN_MAX], cap[FORMAT_TIMESPAN_MAX];
	usec_t max_delay = api->m->conf.retry_max_delay;
	int r;

	r = k8s_wait_failed(&api->wait, t, now_realtime(), max_delay,
			    result->retry_after * USEC_PER_SEC, (uint32_t)random(), result->error);
	if (r > 0)
		log_msg(LOG_WARNING,
			"Kubernetes API unreachable: %s; waiting for it (next try in %s, "
			"then less and less often, at least every %s)",
			strna(result->error), format_timespan(span, api->wait.next - t),
			format_timespan(cap, max_delay));
	wait_arm(api, api->wait.next);
}

bool k8s_api_seen(struct k8s_api *api, int status, const struct step_result *result)
{
	char span[FORMAT_TIMESPAN_MAX];
	usec_t t = now_monotonic(), lasted;
	bool probe = api->probing;
	unsigned tries;

	api->probing = false;
	if (api->running > 0)
		api->running--;
	if (status == 75 && result->unreachable) {
		seen_unreachable(api, result, t);
		return true;
	}
	if (result->requests > 0)
		api->answered = true;
	/* a run that began before the outage and failed in it (k8s-notify says
	 * unreachable only of a run the server never answered): its answers
	 * may all be older than the outage, which goes on until a try's */
	if (api->wait.since && !probe && status != 0) {
		wait_arm(api, api->wait.next);
		return status == 75;
	}
	if (result->requests == 0 || !k8s_wait_answered(&api->wait, t, &lasted, &tries))
		return false;
	log_msg(LOG_NOTICE, "Kubernetes API answers again, after %s unreachable and %u failed %s",
		format_timespan(span, lasted), tries, tries == 1 ? "try" : "tries");
	/* what waited goes now, from the event loop */
	wait_arm(api, t);
	return false;
}

struct json_object *k8s_api_status_json(const struct k8s_api *api, char *const *waiting)
{
	const struct k8s_wait *w = &api->wait;
	struct json_object *o = json_object_new_object(), *a = json_object_new_array();

	json_object_object_add(o, "state",
			       json_object_new_string(w->since	    ? "unreachable" :
						      api->answered ? "answers" :
								      "unknown"));
	if (w->since) {
		json_object_object_add(o, "unreachable_since_usec",
				       json_object_new_uint64(w->since));
		json_object_object_add(o, "failed_tries", json_object_new_int((int)w->attempts));
		json_object_object_add(o, "next_try_usec",
				       json_object_new_uint64(k8s_mono_to_real(w->next)));
		json_object_object_add(o, "error",
				       w->error ? json_object_new_string(w->error) : NULL);
	}
	for (char *const *p = waiting; *p; p++)
		json_object_array_add(a, json_object_new_string(*p));
	json_object_object_add(o, "waiting", a);
	return o;
}

struct json_object *k8s_api_credentials_json(const struct k8s_api *api)
{
	return api->credentials ? json_object_get(api->credentials) : NULL;
}

static const char *cred_field(struct json_object *c, const char *key)
{
	struct json_object *v = c ? json_object_object_get(c, key) : NULL;

	return json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}

void k8s_credentials_seen(struct k8s_api *api, const struct step_result *result)
{
	struct json_object *credentials = result->credentials;
	const char *was = cred_field(api->credentials, "warning");
	const char *now = cred_field(credentials, "warning");

	if (!credentials)
		return;
	if (now && !streq_ptr(was, now))
		log_msg(LOG_WARNING, "Kubernetes credentials: %s", now);
	else if (was && !now)
		log_msg(LOG_NOTICE, "Kubernetes credentials: renewed (expire %s)",
			strna(cred_field(credentials, "expires")));
	if (api->credentials)
		json_object_put(api->credentials);
	api->credentials = json_object_get(credentials);
}

static void on_credentials_checked(struct manager *m, int status, const struct step_result *result,
				   void *userdata)
{
	k8s_credentials_seen(userdata, result);
}

static int on_credentials_timer(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct k8s_api *api = userdata;

	/* no request: k8s-notify only reads them (and runs an exec plugin) */
	(void)k8s_run(api->m, (char *[]){ "credentials", NULL }, on_credentials_checked, api);
	(void)sd_event_source_set_time_relative(s, CREDENTIALS_CHECK_USEC);
	(void)sd_event_source_set_enabled(s, SD_EVENT_ONESHOT);
	return 0;
}

/* Every run reports them, and one runs at start (the uncordon that finishes
 * or recovers an operation). */
void k8s_credentials_watch(struct k8s_api *api)
{
	if (api->credentials_timer)
		return;
	(void)sd_event_add_time_relative(api->m->event, &api->credentials_timer, CLOCK_MONOTONIC,
					 CREDENTIALS_CHECK_USEC, USEC_PER_SEC, on_credentials_timer,
					 api);
}
