/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "k8s-curl-watch.h"
#include "k8s-client-internal.h"
#include "k8s-curl.h"
#include "k8s-watch.h"

struct curl_stream {
	struct k8s_client *c;
	CURL *h;
	CURLM *m;
	struct curl_slist *headers;
	long status;
	char *body; /* of an answer other than 200 */
	size_t len;
	bool too_big;
};

static size_t on_stream(char *ptr, size_t size, size_t nmemb, void *userdata)
{
	struct curl_stream *st = userdata;
	size_t n = size * nmemb;
	long status = 0;
	char *b;

	curl_easy_getinfo(st->h, CURLINFO_RESPONSE_CODE, &status);
	if (status == 200)
		return k8s_watch_feed(st->c, ptr, n) == 0 ? n : 0; /* 0 ends the transfer */
	if (st->len + n > K8S_RESPONSE_MAX) {
		st->too_big = true;
		return 0;
	}
	b = realloc(st->body, st->len + n + 1);
	if (!b)
		return 0;
	memcpy(b + st->len, ptr, n);
	st->body = b;
	st->len += n;
	st->body[st->len] = '\0';
	return n;
}

/* The second handle, set up as the first and added to the multi handle. */
static int stream_open(struct curl_stream *st, struct k8s_curl *t, const struct k8s_request *req)
{
	int r;

	st->h = curl_easy_duphandle(t->curl);
	st->m = curl_multi_init();
	r = st->h && st->m ? k8s_curl_prepare(st->c, t, st->h, req, &st->headers) : -ENOMEM;
	if (r < 0)
		return r;
	curl_easy_setopt(st->h, CURLOPT_HTTPHEADER, st->headers);
	curl_easy_setopt(st->h, CURLOPT_WRITEFUNCTION, on_stream);
	curl_easy_setopt(st->h, CURLOPT_WRITEDATA, st);
	curl_easy_setopt(st->h, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)0);
	return curl_multi_add_handle(st->m, st->h) == CURLM_OK ? 0 : -ENOMEM;
}

/* Until the stream ends or a callback ends it, with a tick whenever its time has come. */
static int stream_run(struct k8s_client *c, CURLM *m, CURLcode *ret)
{
	int running = 1;

	while (!c->watch_end) {
		usec_t wake, now;
		CURLMcode mc = curl_multi_perform(m, &running);

		if (mc != CURLM_OK)
			return -EIO;
		if (!running || c->watch_end)
			break;
		wake = k8s_watch_wake(c);
		now = k8s_client_now(c);
		if (wake && wake <= now) {
			(void)k8s_watch_tick(c);
			continue;
		}
		mc = curl_multi_poll(m, NULL, 0,
				     wake ? (int)usec_min((wake - now + 999) / 1000, 1000) : 1000,
				     NULL);
		if (mc != CURLM_OK)
			return -EIO;
	}
	for (CURLMsg *msg; (msg = curl_multi_info_read(m, &running));)
		if (msg->msg == CURLMSG_DONE)
			*ret = msg->data.result;
	return 0;
}

/* Takes the answer's status and Location from the handle, and closes it. */
static int stream_close(struct curl_stream *st, struct k8s_curl *t, int r)
{
	t->watch_location = mfree(t->watch_location);
	if (st->h) {
		char *location = NULL;

		curl_easy_getinfo(st->h, CURLINFO_RESPONSE_CODE, &st->status);
		curl_easy_getinfo(st->h, CURLINFO_REDIRECT_URL, &location);
		if (location && !(t->watch_location = strdup(location)))
			r = r < 0 ? r : -ENOMEM;
	}
	if (st->m)
		curl_multi_cleanup(st->m);
	if (st->h)
		curl_easy_cleanup(st->h);
	curl_slist_free_all(st->headers);
	return r;
}

int k8s_curl_watch(struct k8s_client *c, void *userdata, const struct k8s_request *req,
		   struct k8s_reply *ret)
{
	struct k8s_curl *t = userdata;
	struct curl_stream st = { .c = c };
	CURLcode code = CURLE_OK;
	int r;

	r = stream_open(&st, t, req);
	if (r >= 0) {
		r = stream_run(c, st.m, &code);
		curl_multi_remove_handle(st.m, st.h);
	}
	r = stream_close(&st, t, r);
	if (r < 0) {
		free(st.body);
		return k8s_client_fail(c, r, "%s: %s", req->what, strerror(-r));
	}
	/* ended by a callback, or the stream's time was up */
	if (c->watch_end || (st.status == 200 && code == CURLE_OPERATION_TIMEDOUT))
		code = CURLE_OK;
	if (code != CURLE_OK) {
		free(st.body);
		t->too_big = st.too_big;
		return k8s_curl_error(c, t, req, code);
	}
	/* the body of an answer other than 200 goes where an exchange's would */
	free(t->buf);
	t->buf = st.body;
	t->len = t->cap = st.len;
	*ret = (struct k8s_reply){
		.status = st.status, .body = t->buf, .len = t->len, .location = t->watch_location
	};
	return 0;
}
