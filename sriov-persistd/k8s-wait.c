/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "k8s-wait.h"

usec_t k8s_wait_delay(unsigned attempt, usec_t cap, uint32_t rnd)
{
	usec_t d = K8S_WAIT_BASE;

	if (cap < K8S_WAIT_BASE)
		cap = K8S_WAIT_BASE;
	for (unsigned i = 1; i < attempt && d < cap; i++)
		d *= 2;
	if (d > cap)
		d = cap;
	/* anywhere between the base and d: a fleet that lost the server at
	 * the same moment spreads its tries over the whole span */
	return K8S_WAIT_BASE + (usec_t)rnd % (d - K8S_WAIT_BASE + 1);
}

int k8s_wait_failed(struct k8s_wait *w, usec_t now, usec_t real, usec_t cap, usec_t retry_after,
		    uint32_t rnd, const char *error)
{
	bool begins = w->since == 0;
	usec_t delay;
	char *e = error ? strdup(error) : NULL;

	if (error && !e)
		return -ENOMEM;
	free(w->error);
	w->error = e;
	if (begins) {
		w->since = real ?: 1;
		w->since_mono = now;
		w->attempts = 0;
	}
	w->attempts++;
	delay = k8s_wait_delay(w->attempts, cap, rnd);
	/* what the server asked for, at least (beyond the cap too: it knows
	 * best), and spread over half as long again, so that a fleet told the
	 * same does not come back in one second */
	if (retry_after > delay)
		delay = retry_after + (usec_t)rnd % (retry_after / 2 + 1);
	w->next = now + delay;
	return begins;
}

bool k8s_wait_answered(struct k8s_wait *w, usec_t now, usec_t *ret_duration, unsigned *ret_attempts)
{
	if (w->since == 0)
		return false;
	*ret_duration = now > w->since_mono ? now - w->since_mono : 0;
	*ret_attempts = w->attempts;
	free(w->error);
	*w = (struct k8s_wait){};
	return true;
}

bool k8s_wait_may_run(const struct k8s_wait *w, usec_t now)
{
	return w->since == 0 || now >= w->next;
}

void k8s_wait_done(struct k8s_wait *w)
{
	free(w->error);
	*w = (struct k8s_wait){};
}
