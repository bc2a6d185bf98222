/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <stdarg.h>

#include "k8s-client-internal.h"

usec_t k8s_client_now(const struct k8s_client *c)
{
	return c->t.now(c->t.userdata);
}

usec_t k8s_client_realtime(const struct k8s_client *c)
{
	return c->t.realtime(c->t.userdata);
}

void k8s_client_sleep(struct k8s_client *c, usec_t d, usec_t deadline)
{
	usec_t now = k8s_client_now(c);

	if (deadline && now + d > deadline)
		d = deadline > now ? deadline - now : 0;
	c->t.sleep(c->t.userdata, d);
}

uint32_t k8s_client_random(struct k8s_client *c)
{
	return c->t.random(c->t.userdata);
}

int k8s_client_fail(struct k8s_client *c, int r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c->error, sizeof(c->error), fmt, ap);
	va_end(ap);
	return r;
}

int k8s_client_new_transport(const struct k8s_transport *t, const struct k8s_client_options *o,
			     struct k8s_client **ret)
{
	struct k8s_client *c = calloc(1, sizeof(*c));

	if (!c)
		return -ENOMEM;
	c->o = *o;
	if (c->o.max_attempts == 0)
		c->o.max_attempts = 1;
	c->t = *t;
	*ret = c;
	return 0;
}

struct k8s_client *k8s_client_free(struct k8s_client *c)
{
	if (!c)
		return NULL;
	if (c->transport_free)
		c->transport_free(c->t.userdata);
	free(c->server);
	k8s_credentials_done(&c->cred);
	free(c->line);
	free(c);
	return NULL;
}

usec_t k8s_client_exec_timeout(struct k8s_client *c)
{
	usec_t timeout = c->o.request_timeout ?: 30 * USEC_PER_SEC, now = k8s_client_now(c);

	if (c->deadline && c->deadline > now && c->deadline - now < timeout)
		timeout = c->deadline - now;
	return timeout;
}

int k8s_client_renew(struct k8s_client *c, char error[static K8S_ERROR_MAX])
{
	int r;

	r = k8s_credentials_renew(&c->cred, c->server, k8s_client_exec_timeout(c), error);
	if (r >= 0 && c->credentials_changed)
		r = c->credentials_changed(c, c->t.userdata);
	return r;
}

int k8s_client_renew_expiring(struct k8s_client *c)
{
	if (!k8s_credentials_expire(&c->cred) ||
	    k8s_client_realtime(c) + K8S_EXEC_EXPIRY_MARGIN < c->cred.expires)
		return 0;
	return k8s_client_renew(c, c->error);
}

void k8s_client_set_deadline(struct k8s_client *c, usec_t deadline)
{
	c->deadline = deadline;
}

unsigned k8s_client_requests(const struct k8s_client *c)
{
	return c->n_requests;
}

unsigned k8s_client_unanswered(const struct k8s_client *c)
{
	return c->n_unanswered;
}

bool k8s_client_reached(const struct k8s_client *c)
{
	return c->reached;
}

bool k8s_client_unavailable(const struct k8s_client *c)
{
	return c->unavailable;
}

usec_t k8s_client_retry_after(const struct k8s_client *c)
{
	return c->retry_after;
}

void k8s_client_credential(const struct k8s_client *c, enum k8s_cred_kind *ret_kind,
			   const char **ret_source, usec_t *ret_issued, usec_t *ret_expires)
{
	*ret_kind = c->cred.kind;
	*ret_source = c->cred.source;
	*ret_issued = c->cred.issued;
	*ret_expires = c->cred.expires;
}

unsigned k8s_client_exec_runs(const struct k8s_client *c)
{
	return c->cred.n_exec;
}

const char *k8s_client_error(const struct k8s_client *c)
{
	return c->error;
}
