/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "k8s-curl.h"
#include "k8s-client-internal.h"

static size_t on_write(char *ptr, size_t size, size_t nmemb, void *userdata)
{
	struct k8s_curl *t = userdata;
	size_t n = size * nmemb;

	if (t->len + n > K8S_RESPONSE_MAX) {
		t->too_big = true;
		return 0;
	}
	if (t->len + n + 1 > t->cap) {
		size_t cap = (t->len + n + 1) * 2;
		char *b = realloc(t->buf, cap);

		if (!b)
			return 0;
		t->buf = b;
		t->cap = cap;
	}
	memcpy(t->buf + t->len, ptr, n);
	t->len += n;
	t->buf[t->len] = '\0';
	return n;
}

int k8s_curl_setup(struct k8s_client *c, struct k8s_curl *t)
{
	CURL *h = t->curl;
	bool ok = true;

	ok &= curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L) == CURLE_OK;
	ok &= curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "https") == CURLE_OK;
	ok &= curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L) == CURLE_OK;
	ok &= curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, 1L) == CURLE_OK;
	ok &= curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, 2L) == CURLE_OK;
	ok &= curl_easy_setopt(h, CURLOPT_ERRORBUFFER, t->curl_error) == CURLE_OK;
	ok &= curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_write) == CURLE_OK;
	ok &= curl_easy_setopt(h, CURLOPT_WRITEDATA, t) == CURLE_OK;
	ok &= curl_easy_setopt(h, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)K8S_RESPONSE_MAX) ==
	      CURLE_OK;
	ok &= curl_easy_setopt(h, CURLOPT_USERAGENT, c->o.user_agent) == CURLE_OK;
	if (c->cred.ca.data) {
		/* only the cluster's CA, not the system's store */
		struct curl_blob b = { c->cred.ca.data, c->cred.ca.size, CURL_BLOB_COPY };

		ok &= curl_easy_setopt(h, CURLOPT_CAINFO_BLOB, &b) == CURLE_OK;
		ok &= curl_easy_setopt(h, CURLOPT_CAINFO, NULL) == CURLE_OK;
		ok &= curl_easy_setopt(h, CURLOPT_CAPATH, NULL) == CURLE_OK;
	}
	return ok ? k8s_curl_client_cert(c, t) : -EOPNOTSUPP;
}

int k8s_curl_client_cert(struct k8s_client *c, void *userdata)
{
	const struct k8s_pem *cert = &c->cred.cert, *key = &c->cred.key;
	struct curl_blob cb = { cert->data, cert->size, CURL_BLOB_COPY };
	struct curl_blob kb = { key->data, key->size, CURL_BLOB_COPY };
	struct k8s_curl *t = userdata;
	CURL *h = t->curl;
	bool ok = true;

	if (!cert->data) {
		ok &= curl_easy_setopt(h, CURLOPT_SSLCERT_BLOB, NULL) == CURLE_OK;
		ok &= curl_easy_setopt(h, CURLOPT_SSLKEY_BLOB, NULL) == CURLE_OK;
		return ok ? 0 : -EOPNOTSUPP;
	}
	ok &= curl_easy_setopt(h, CURLOPT_SSLCERT_BLOB, &cb) == CURLE_OK;
	ok &= curl_easy_setopt(h, CURLOPT_SSLCERTTYPE, "PEM") == CURLE_OK;
	ok &= curl_easy_setopt(h, CURLOPT_SSLKEY_BLOB, &kb) == CURLE_OK;
	ok &= curl_easy_setopt(h, CURLOPT_SSLKEYTYPE, "PEM") == CURLE_OK;
	return ok ? 0 : -EOPNOTSUPP;
}

void k8s_curl_free(void *userdata)
{
	struct k8s_curl *t = userdata;

	if (!t)
		return;
	if (t->curl)
		curl_easy_cleanup(t->curl);
	free(t->buf);
	free(t->watch_location);
	free(t);
}

static const struct {
	CURLcode code;
	int error;
	const char *detail; /* instead of libcurl's own words when it gives none */
} curl_errors[] = {
	{ CURLE_COULDNT_RESOLVE_HOST, -EHOSTUNREACH },
	{ CURLE_COULDNT_CONNECT, -ECONNREFUSED },
	{ CURLE_OPERATION_TIMEDOUT, -ETIMEDOUT },
	{ CURLE_SEND_ERROR, -ECONNRESET },
	{ CURLE_RECV_ERROR, -ECONNRESET },
	{ CURLE_GOT_NOTHING, -ECONNRESET },
	{ CURLE_PARTIAL_FILE, -ECONNRESET },
	{ CURLE_HTTP2, -ECONNRESET },
	{ CURLE_HTTP2_STREAM, -ECONNRESET },
	{ CURLE_SSL_CONNECT_ERROR, -ECONNRESET },
	{ CURLE_PEER_FAILED_VERIFICATION, -EBADMSG },
	{ CURLE_SSL_CACERT_BADFILE, -EBADMSG },
	{ CURLE_SSL_CERTPROBLEM, -EBADMSG },
	{ CURLE_SSL_ISSUER_ERROR, -EBADMSG },
	{ CURLE_SSL_CIPHER, -EBADMSG },
	{ CURLE_FILESIZE_EXCEEDED, -EFBIG },
	/* Response headers beyond libcurl's bounds: in all 300 KiB is
	 * CURLE_RECV_ERROR ("Too large response headers"), one line over 100
	 * KiB is CURLE_OUT_OF_MEMORY with no message before libcurl 8.6 (then
	 * CURLE_TOO_LARGE). Like a connection that broke, such an answer is
	 * tried again and then fails for now (EX_TEMPFAIL): a server or a proxy
	 * in trouble, not a refusal. Memory that really ran out is as temporary. */
	{ CURLE_OUT_OF_MEMORY, -ECONNRESET,
	  "a response header line beyond libcurl's bound of 100 KiB, or out of memory" },
#if LIBCURL_VERSION_NUM >= 0x080600
	{ CURLE_TOO_LARGE, -ECONNRESET, NULL },
#endif
	{ CURLE_UNSUPPORTED_PROTOCOL, -EPROTONOSUPPORT },
	{ CURLE_URL_MALFORMAT, -EINVAL },
};

/* The -errno of a libcurl failure, and what to say when libcurl said nothing. */
static int curl_errno(CURLcode code, const char **ret_detail)
{
	*ret_detail = curl_easy_strerror(code);
	for (size_t i = 0; i < ELEMENTSOF(curl_errors); i++)
		if (curl_errors[i].code == code) {
			*ret_detail = curl_errors[i].detail ?: *ret_detail;
			return curl_errors[i].error;
		}
	return -EIO;
}

/* A server that checks client certificates in the handshake refuses an
 * expired one there: no retry cures that. */
static bool client_cert_expired(struct k8s_client *c, CURLcode code)
{
	return c->cred.cert_not_after && k8s_client_realtime(c) >= c->cred.cert_not_after &&
	       (code == CURLE_SSL_CONNECT_ERROR || code == CURLE_RECV_ERROR ||
		code == CURLE_SEND_ERROR || code == CURLE_GOT_NOTHING);
}

int k8s_curl_error(struct k8s_client *c, struct k8s_curl *t, const struct k8s_request *req,
		   CURLcode code)
{
	const char *detail;
	int r = curl_errno(code, &detail);

	if (t->too_big)
		r = -EFBIG;
	if (t->curl_error[0])
		detail = t->curl_error;

	if (r == -EFBIG)
		return k8s_client_fail(c, r, "%s: response larger than %u MiB, refused", req->what,
				       K8S_RESPONSE_MAX >> 20);
	if (client_cert_expired(c, code)) {
		char when[MICROTIME_MAX];

		return k8s_client_fail(c, -EKEYEXPIRED,
				       "%s: TLS with %s failed: our client certificate expired at "
				       "%s (by this host's clock): %s",
				       req->what, c->server,
				       microtime_format(c->cred.cert_not_after, when), detail);
	}
	if (r == -EBADMSG)
		return k8s_client_fail(c, r, "%s: TLS with %s failed, server not trusted: %s",
				       req->what, c->server, detail);
	return k8s_client_fail(c, r, "%s: %s: %s", req->what, c->server, detail);
}

static int request_headers(struct k8s_client *c, const struct k8s_request *req,
			   struct curl_slist **ret)
{
	_cleanup_free_ char *ct = NULL;
	struct curl_slist *l = NULL, *n;
	const char *h[4] = { "Accept: application/json", "Expect:", c->cred.auth_header, NULL };

	if (req->body) {
		ct = strdup_printf("Content-Type: %s", req->content_type ?: K8S_JSON);
		if (!ct)
			return -ENOMEM;
		h[3] = ct;
	}
	for (size_t i = 0; i < ELEMENTSOF(h); i++) {
		if (!h[i])
			continue;
		n = curl_slist_append(l, h[i]);
		if (!n) {
			curl_slist_free_all(l);
			return -ENOMEM;
		}
		l = n;
	}
	*ret = l;
	return 0;
}

static void request_timeouts(struct k8s_client *c, CURL *h, const struct k8s_request *req)
{
	usec_t total = req->timeout ?: c->o.request_timeout, now = k8s_client_now(c);

	if (c->deadline && (c->deadline <= now || c->deadline - now < total))
		total = c->deadline > now ? c->deadline - now : 1000;
	curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, (long)((total + 999) / 1000));
	curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS,
			 (long)((usec_min(total, c->o.connect_timeout) + 999) / 1000));
}

static int request_setup(struct k8s_client *c, struct k8s_curl *t, CURL *h,
			 const struct k8s_request *req)
{
	_cleanup_free_ char *url = strdup_printf("%s%s", c->server, req->path);

	if (!url)
		return -ENOMEM;
	curl_easy_setopt(h, CURLOPT_URL, url); /* copied */
	curl_easy_setopt(h, CURLOPT_HTTPGET, 1L);
	if (req->body) {
		curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)strlen(req->body));
		curl_easy_setopt(h, CURLOPT_COPYPOSTFIELDS, req->body);
	}
	curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, streq(req->method, "GET") ? NULL : req->method);
	request_timeouts(c, h, req);
	t->len = 0;
	t->too_big = false;
	t->curl_error[0] = '\0';
	return 0;
}

int k8s_curl_prepare(struct k8s_client *c, struct k8s_curl *t, CURL *h,
		     const struct k8s_request *req, struct curl_slist **ret_headers)
{
	int r;

	r = request_setup(c, t, h, req);
	if (r < 0)
		return r;
	return request_headers(c, req, ret_headers);
}

int k8s_curl_exchange(struct k8s_client *c, void *userdata, const struct k8s_request *req,
		      struct k8s_reply *ret)
{
	struct k8s_curl *t = userdata;
	struct curl_slist *headers = NULL;
	curl_off_t retry_after = 0;
	char *location = NULL;
	CURLcode code;
	long status = 0;
	int r;

	r = k8s_curl_prepare(c, t, t->curl, req, &headers);
	if (r < 0)
		return k8s_client_fail(c, r, "%s: %s", req->what, strerror(-r));
	curl_easy_setopt(t->curl, CURLOPT_HTTPHEADER, headers);
	code = curl_easy_perform(t->curl);
	curl_easy_setopt(t->curl, CURLOPT_HTTPHEADER, NULL);
	curl_slist_free_all(headers);
	if (code != CURLE_OK)
		return k8s_curl_error(c, t, req, code);
	curl_easy_getinfo(t->curl, CURLINFO_RESPONSE_CODE, &status);
	curl_easy_getinfo(t->curl, CURLINFO_RETRY_AFTER, &retry_after);
	/* where the redirect that we do not follow would go (the handle's) */
	curl_easy_getinfo(t->curl, CURLINFO_REDIRECT_URL, &location);
	*ret = (struct k8s_reply){ .status = status,
				   .body = t->buf,
				   .len = t->len,
				   .retry_after =
					   retry_after > 0 ? (usec_t)retry_after * USEC_PER_SEC : 0,
				   .location = location };
	return 0;
}
