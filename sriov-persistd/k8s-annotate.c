/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* Publishing the node's summary: one k8s-notify annotate at a time. */

#include "k8s-annotate.h"

void k8s_annotate_init(struct k8s_annotate *a, struct k8s_api *api)
{
	*a = (struct k8s_annotate){ .api = api };
}

void k8s_annotate_done(struct k8s_annotate *a)
{
	free(a->published);
	free(a->next);
	free(a->sending);
	sd_event_source_unref(a->timer);
}

static int on_timer(sd_event_source *s, uint64_t usec, void *userdata)
{
	k8s_annotate_resume(userdata);
	return 0;
}

static void annotate_after(struct k8s_annotate *a, usec_t delay)
{
	k8s_timer_at(a->api->m->event, &a->timer, now_monotonic() + delay, on_timer, a);
}

static void on_annotated(struct manager *m, int status, const struct step_result *result,
			 void *userdata)
{
	struct k8s_annotate *a = userdata;
	bool outage = k8s_api_seen(a->api, status, result);

	k8s_credentials_seen(a->api, result);
	a->running = false;
	if (status != 0) {
		a->sending = mfree(a->sending);
		if (outage) {
			a->waiting = true; /* k8s.c's resume starts it again */
			return;
		}
		/* refused (403, a webhook): not every second for ever */
		a->failures++;
		annotate_after(a, k8s_wait_delay(a->failures + 1, m->conf.retry_max_delay,
						 (uint32_t)random()));
		return;
	}
	a->failures = 0;
	free(a->published);
	a->published = TAKE_PTR(a->sending);
	if (a->next && !streq_ptr(a->next, a->published))
		k8s_annotate(a, NULL);
}

void k8s_annotate_resume(struct k8s_annotate *a)
{
	if (a->running || !a->next || streq_ptr(a->next, a->published))
		return;
	if (!k8s_api_may_run(a->api)) {
		a->waiting = true;
		return;
	}
	a->sending = strdup(a->next);
	if (!a->sending)
		return;
	if (k8s_api_run(a->api, (char *[]){ "annotate", "--state", a->sending, NULL }, on_annotated,
			a) < 0) {
		a->sending = mfree(a->sending);
		return;
	}
	a->running = true;
}

/* At most once a second; the newest state replaces one that waits. */
void k8s_annotate(struct k8s_annotate *a, const char *state)
{
	if (!mainconf_kubernetes_enabled(&a->api->m->conf))
		return;
	if (state) {
		if (streq_ptr(state, a->next))
			return;
		free(a->next);
		a->next = strdup(state);
	}
	if (!a->next || streq_ptr(a->next, a->published) || a->waiting)
		return;
	if (a->timer) {
		int on = SD_EVENT_OFF;

		/* armed: at most once a second, or backing off after a refusal */
		(void)sd_event_source_get_enabled(a->timer, &on);
		if (on != SD_EVENT_OFF)
			return;
	}
	annotate_after(a, USEC_PER_SEC);
}
