/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <sys/random.h>
#include <time.h>

#include "k8s-client-internal.h"
#include "k8s-curl-watch.h"
#include "k8s-curl.h"
#include "k8s-https.h"

static usec_t clock_now(void *userdata)
{
	return now_monotonic();
}

static usec_t clock_realtime(void *userdata)
{
	return now_realtime();
}

static void clock_sleep(void *userdata, usec_t d)
{
	struct timespec ts = { .tv_sec = (time_t)(d / USEC_PER_SEC),
			       .tv_nsec = (long)(d % USEC_PER_SEC) * 1000 };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static uint32_t clock_random(void *userdata)
{
	uint32_t v;

	if (getrandom(&v, sizeof(v), GRND_NONBLOCK) != (ssize_t)sizeof(v))
		v = (uint32_t)now_monotonic() ^ (uint32_t)getpid() * 2654435761u;
	return v;
}

static const struct k8s_transport https_transport = {
	.exchange = k8s_curl_exchange,
	.watch = k8s_curl_watch,
	.now = clock_now,
	.realtime = clock_realtime,
	.sleep = clock_sleep,
	.random = clock_random,
};

/* The libcurl handle, set up with the credentials c has loaded. */
static int curl_attach(struct k8s_client *c, char *error)
{
	struct k8s_curl *t = calloc(1, sizeof(*t));
	int r;

	if (!t)
		return -ENOMEM;
	c->t.userdata = t;
	c->transport_free = k8s_curl_free;
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK || !(t->curl = curl_easy_init()))
		return k8s_set_error(error, -ENOMEM, "cannot initialize libcurl");
	r = k8s_curl_setup(c, t);
	if (r < 0)
		return k8s_set_error(error, r,
				     "libcurl lacks a needed option (built without TLS?)");
	c->credentials_changed = k8s_curl_client_cert;
	return 0;
}

int k8s_client_new(const struct kubeconfig *kc, const struct k8s_client_options *o,
		   struct k8s_client **ret, char error[static K8S_ERROR_MAX])
{
	_cleanup_k8s_client_ struct k8s_client *c = NULL;
	int r;

	r = k8s_client_new_transport(&https_transport, o, &c);
	if (r < 0)
		return r;
	c->server = strdup(kc->server);
	if (!c->server)
		return -ENOMEM;
	c->cred.node = c->o.node;
	r = k8s_credentials_load(&c->cred, kc, c->o.credentials, c->server,
				 k8s_client_exec_timeout(c), error);
	if (r < 0)
		return r;
	r = curl_attach(c, error);
	if (r < 0)
		return r;
	*ret = TAKE_PTR(c);
	return 0;
}
