/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <curl/curl.h>
#include <fcntl.h>
#include <stdarg.h>
#include <sys/random.h>
#include <time.h>

#include "exec-credential.h"
#include "json-util.h"
#include "k8s-client.h"

#define PEM_FILE_MAX (1u << 20)
#define TOKEN_FILE_MAX (64u << 10)

struct pem {
	char *data;
	size_t size;
};

struct k8s_client {
	struct k8s_transport t;
	CURL *curl;
	char *server;
	char *auth_header; /* "Authorization: Bearer ..." or NULL */
	struct pem ca, cert, key;
	/* an exec plugin's: run again when what it gave expires, or on a 401 */
	struct kc_exec *exec;
	usec_t cred_expires; /* CLOCK_REALTIME; 0 = not known */
	usec_t cred_issued;
	enum k8s_cred_kind cred_kind;
	usec_t cert_not_after; /* of the client certificate; 0 = none, or not known */
	char *cred_source;     /* the file or program they come from */
	unsigned n_exec;       /* plugin runs */
	struct k8s_client_options o;
	usec_t deadline;
	unsigned n_requests;   /* answered */
	unsigned n_unanswered; /* attempts that got no answer (connection, timeout) */
	/* the server answered something other than 429 or 5xx: it works, and a
	 * failure from now on is a blip worth retrying within this run */
	bool reached;
	/* the last request got no answer, or only 429 or 5xx (an eviction's
	 * are answers: its caller handles them) */
	bool unavailable;
	usec_t retry_after; /* the last 429's or 503's Retry-After; 0 = none */
	/* the response being received */
	char *buf;
	size_t len, cap;
	bool too_big;
	char curl_error[CURL_ERROR_SIZE];
	char error[K8S_ERROR_MAX];
	/* the watch under way: its callbacks, the line being received, and
	 * what a callback said (> 0 done, < 0 failed; 0 going on) */
	const struct k8s_watcher *watcher;
	char *line;
	size_t line_len, line_cap;
	int watch_end;
	bool watch_started;   /* bytes of the stream came: the server answered */
	char *watch_location; /* the Location of a watch's 3xx answer */
};

static usec_t usec_min(usec_t a, usec_t b)
{
	return a < b ? a : b;
}

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

int k8s_client_fail(struct k8s_client *c, int r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c->error, sizeof(c->error), fmt, ap);
	va_end(ap);
	return r;
}

/* ---- credentials ---- */

/* secret: a private key, read as k8s_read_private_file() reads. */
static int pem_load(const struct kc_blob *b, const char *what, const char *marker, bool secret,
		    struct pem *ret, char *error)
{
	_cleanup_free_ char *data = NULL;
	size_t size = b->size;
	int r;

	if (!b->path && !b->data)
		return 0;
	if (b->data) {
		data = malloc(b->size + 1);
		if (!data)
			return -ENOMEM;
		memcpy(data, b->data, b->size);
		data[b->size] = '\0';
	} else if (secret) {
		r = k8s_read_private_file(b->path, what, PEM_FILE_MAX, &data, &size, error);
		if (r < 0)
			return r;
	} else {
		r = read_file_at(AT_FDCWD, b->path, PEM_FILE_MAX, &data, &size);
		if (r < 0)
			return k8s_set_error(error, r, "cannot read %s %s: %s", what, b->path,
					     read_strerror(r));
	}
	if (!memmem(data, size, marker, strlen(marker)))
		return k8s_set_error(error, -EBADMSG, "bad %s%s%s: no PEM block \"%s\" in it", what,
				     b->path ? " " : "", strempty(b->path), marker);
	*ret = (struct pem){ .data = TAKE_PTR(data), .size = size };
	return 0;
}

static char *bearer_header(const char *token)
{
	return strdup_printf("Authorization: Bearer %s", token);
}

static int token_load(struct k8s_client *c, const struct kubeconfig *kc, char **ret, char *error)
{
	_cleanup_free_ char *token = NULL;
	usec_t issued, expires;
	size_t n;
	int r;

	if (kc->token)
		token = strdup(kc->token);
	else if (kc->token_file) {
		/* in-cluster (no context): the kubelet's projected token, its mode the kubelet's */
		if (kc->context)
			r = k8s_read_private_file(kc->token_file, "token file", TOKEN_FILE_MAX,
						  &token, NULL, error);
		else
			r = k8s_read_secret_file(kc->token_file, "token file", TOKEN_FILE_MAX,
						 &token, NULL, error);
		if (r < 0)
			return r;
	} else
		return 0;
	if (!token)
		return -ENOMEM;
	for (n = strlen(token); n > 0 && strchr(" \t\r\n", token[n - 1]); n--)
		token[n - 1] = '\0';
	if (n == 0 || strpbrk(token, "\r\n"))
		return k8s_set_error(error, -ENOKEY, "token%s%s is %s",
				     kc->token_file ? " file " : "", strempty(kc->token_file),
				     n ? "not one line" : "empty");
	/* a JWT says when it expires, other tokens do not; beside a client
	 * certificate, what is reported is what expires first */
	r = k8s_jwt_times(token, &issued, &expires);
	if (r == -ENOMEM)
		return r;
	if (r < 0)
		issued = expires = 0;
	if (!c->cert.data || (expires && (!c->cred_expires || expires < c->cred_expires))) {
		c->cred_kind = kc->token ? K8S_CRED_TOKEN : K8S_CRED_TOKEN_FILE;
		c->cred_issued = issued;
		c->cred_expires = expires;
		if (kc->token_file && free_and_strdup(&c->cred_source, kc->token_file) < 0)
			return -ENOMEM;
	}
	*ret = bearer_header(token);
	explicit_bzero(token, n);
	return *ret ? 0 : -ENOMEM;
}

static int curl_client_cert(struct k8s_client *c);
static void pem_done(struct pem *p);

/* How long before the plugin's credential expires it is run again. */
#define EXEC_EXPIRY_MARGIN (5 * USEC_PER_SEC)

/* Runs the exec plugin and takes its token or client certificate. */
static int exec_refresh(struct k8s_client *c, char *error)
{
	struct exec_credential cred = {};
	usec_t timeout = c->o.request_timeout ?: 30 * USEC_PER_SEC, now = k8s_client_now(c);
	int r;

	if (c->deadline && c->deadline > now && c->deadline - now < timeout)
		timeout = c->deadline - now;
	c->n_exec++;
	r = exec_credential_run(c->exec, c->server, c->ca.data, c->ca.size, timeout, &cred, error);
	if (r < 0)
		return r;
	if (c->auth_header)
		explicit_bzero(c->auth_header, strlen(c->auth_header));
	c->auth_header = mfree(c->auth_header);
	pem_done(&c->cert);
	pem_done(&c->key);
	if (cred.token && !(c->auth_header = bearer_header(cred.token)))
		r = -ENOMEM;
	if (cred.cert) {
		c->cert.size = strlen(cred.cert);
		c->cert.data = TAKE_PTR(cred.cert);
		c->key.size = strlen(cred.key);
		c->key.data = TAKE_PTR(cred.key);
	}
	c->cred_expires = cred.expires;
	c->cert_not_after = 0;
	if (c->cert.data)
		(void)k8s_cert_times(c->cert.data, c->cert.size, &(usec_t){ 0 },
				     &c->cert_not_after);
	exec_credential_done(&cred);
	if (r >= 0 && c->curl)
		r = curl_client_cert(c);
	return r;
}

/* Before a request: a plugin's credential that expires (or did) is renewed. */
static int credentials_current(struct k8s_client *c)
{
	if (!c->exec || !c->cred_expires ||
	    k8s_client_realtime(c) + EXEC_EXPIRY_MARGIN < c->cred_expires)
		return 0;
	return exec_refresh(c, c->error);
}

static int credentials_load(struct k8s_client *c, const struct kubeconfig *kc, char *error)
{
	int r;

	r = pem_load(&kc->ca, "CA", "-----BEGIN CERTIFICATE-----", false, &c->ca, error);
	if (r >= 0)
		r = pem_load(&kc->client_cert, "client certificate", "-----BEGIN CERTIFICATE-----",
			     false, &c->cert, error);
	if (r >= 0)
		r = pem_load(&kc->client_key, "client key", "PRIVATE KEY-----", true, &c->key,
			     error);
	c->cred_kind = K8S_CRED_CLIENT_CERTIFICATE;
	if (r >= 0 && c->cert.data &&
	    k8s_cert_times(c->cert.data, c->cert.size, &c->cred_issued, &c->cred_expires) >= 0)
		c->cert_not_after = c->cred_expires;
	if (r >= 0 && c->o.credentials)
		r = free_and_strdup(&c->cred_source, c->o.credentials);
	if (r >= 0)
		r = token_load(c, kc, &c->auth_header, error);
	if (r >= 0 && kc->exec) {
		c->cred_kind = K8S_CRED_EXEC;
		c->exec = kc_exec_copy(kc->exec);
		r = c->exec ? free_and_strdup(&c->cred_source, c->exec->command) : -ENOMEM;
		if (r >= 0)
			r = exec_refresh(c, error);
	}
	return r;
}

/* ---- the curl handle ---- */

static int curl_exchange(struct k8s_client *c, void *userdata, const struct k8s_request *req,
			 struct k8s_reply *ret);
static int curl_watch(struct k8s_client *c, void *userdata, const struct k8s_request *req,
		      struct k8s_reply *ret);

static size_t on_write(char *ptr, size_t size, size_t nmemb, void *userdata)
{
	struct k8s_client *c = userdata;
	size_t n = size * nmemb;

	if (c->len + n > K8S_RESPONSE_MAX) {
		c->too_big = true;
		return 0;
	}
	if (c->len + n + 1 > c->cap) {
		size_t cap = (c->len + n + 1) * 2;
		char *b = realloc(c->buf, cap);

		if (!b)
			return 0;
		c->buf = b;
		c->cap = cap;
	}
	memcpy(c->buf + c->len, ptr, n);
	c->len += n;
	c->buf[c->len] = '\0';
	return n;
}

static int curl_setup(struct k8s_client *c)
{
	CURL *h = c->curl;
	bool ok = true;

	ok &= curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L) == CURLE_OK;
	ok &= curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "https") == CURLE_OK;
	ok &= curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L) == CURLE_OK;
	ok &= curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, 1L) == CURLE_OK;
	ok &= curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, 2L) == CURLE_OK;
	ok &= curl_easy_setopt(h, CURLOPT_ERRORBUFFER, c->curl_error) == CURLE_OK;
	ok &= curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_write) == CURLE_OK;
	ok &= curl_easy_setopt(h, CURLOPT_WRITEDATA, c) == CURLE_OK;
	ok &= curl_easy_setopt(h, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)K8S_RESPONSE_MAX) ==
	      CURLE_OK;
	ok &= curl_easy_setopt(h, CURLOPT_USERAGENT, c->o.user_agent) == CURLE_OK;
	if (c->ca.data) {
		/* only the cluster's CA, not the system's store */
		struct curl_blob b = { c->ca.data, c->ca.size, CURL_BLOB_COPY };

		ok &= curl_easy_setopt(h, CURLOPT_CAINFO_BLOB, &b) == CURLE_OK;
		ok &= curl_easy_setopt(h, CURLOPT_CAINFO, NULL) == CURLE_OK;
		ok &= curl_easy_setopt(h, CURLOPT_CAPATH, NULL) == CURLE_OK;
	}
	return ok ? curl_client_cert(c) : -EOPNOTSUPP;
}

/* The client certificate, or none (an exec plugin may switch). */
static int curl_client_cert(struct k8s_client *c)
{
	struct curl_blob cb = { c->cert.data, c->cert.size, CURL_BLOB_COPY };
	struct curl_blob kb = { c->key.data, c->key.size, CURL_BLOB_COPY };
	CURL *h = c->curl;
	bool ok = true;

	if (!c->cert.data) {
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

int k8s_client_new(const struct kubeconfig *kc, const struct k8s_client_options *o,
		   struct k8s_client **ret, char error[static K8S_ERROR_MAX])
{
	_cleanup_k8s_client_ struct k8s_client *c = calloc(1, sizeof(*c));
	int r;

	if (!c)
		return -ENOMEM;
	c->o = *o;
	if (c->o.max_attempts == 0)
		c->o.max_attempts = 1;
	c->server = strdup(kc->server);
	if (!c->server)
		return -ENOMEM;
	c->t = (struct k8s_transport){ .exchange = curl_exchange,
				       .watch = curl_watch,
				       .now = clock_now,
				       .realtime = clock_realtime,
				       .sleep = clock_sleep,
				       .random = clock_random };
	r = credentials_load(c, kc, error);
	if (r < 0)
		return r;
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK || !(c->curl = curl_easy_init()))
		return k8s_set_error(error, -ENOMEM, "cannot initialize libcurl");
	r = curl_setup(c);
	if (r < 0)
		return k8s_set_error(error, r,
				     "libcurl lacks a needed option (built without TLS?)");
	*ret = TAKE_PTR(c);
	return 0;
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

static void pem_done(struct pem *p)
{
	if (p->data)
		explicit_bzero(p->data, p->size);
	free(p->data);
}

struct k8s_client *k8s_client_free(struct k8s_client *c)
{
	if (!c)
		return NULL;
	if (c->curl)
		curl_easy_cleanup(c->curl);
	free(c->server);
	if (c->auth_header)
		explicit_bzero(c->auth_header, strlen(c->auth_header));
	free(c->auth_header);
	pem_done(&c->ca);
	pem_done(&c->cert);
	pem_done(&c->key);
	kc_exec_free(c->exec);
	free(c->cred_source);
	free(c->buf);
	free(c->line);
	free(c->watch_location);
	free(c);
	return NULL;
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

static bool status_unavailable(long status)
{
	return status == 429 || status >= 500;
}

void k8s_client_credential(const struct k8s_client *c, enum k8s_cred_kind *ret_kind,
			   const char **ret_source, usec_t *ret_issued, usec_t *ret_expires)
{
	*ret_kind = c->cred_kind;
	*ret_source = c->cred_source;
	*ret_issued = c->cred_issued;
	*ret_expires = c->cred_expires;
}

unsigned k8s_client_exec_runs(const struct k8s_client *c)
{
	return c->n_exec;
}

const char *k8s_client_error(const struct k8s_client *c)
{
	return c->error;
}

void k8s_response_done(struct k8s_response *r)
{
	if (r->json)
		json_object_put(r->json);
	free(r->location);
	*r = (struct k8s_response){};
}

char *k8s_escape(const char *s)
{
	char *e = curl_easy_escape(NULL, s, 0), *copy;

	if (!e)
		return NULL;
	copy = strdup(e);
	curl_free(e);
	return copy;
}

/* ---- requests ---- */

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

static int transport_error(struct k8s_client *c, const struct k8s_request *req, CURLcode code)
{
	const char *detail;
	int r = curl_errno(code, &detail);

	if (c->too_big)
		r = -EFBIG;
	if (c->curl_error[0])
		detail = c->curl_error;

	if (r == -EFBIG)
		return k8s_client_fail(c, r, "%s: response larger than %u MiB, refused", req->what,
				       K8S_RESPONSE_MAX >> 20);
	/* a server that checks client certificates in the handshake refuses an
	 * expired one there: no retry cures that */
	if (c->cert_not_after && k8s_client_realtime(c) >= c->cert_not_after &&
	    (code == CURLE_SSL_CONNECT_ERROR || code == CURLE_RECV_ERROR ||
	     code == CURLE_SEND_ERROR || code == CURLE_GOT_NOTHING)) {
		char when[MICROTIME_MAX];

		return k8s_client_fail(c, -EKEYEXPIRED,
				       "%s: TLS with %s failed: our client certificate expired at "
				       "%s (by this host's clock): %s",
				       req->what, c->server,
				       microtime_format(c->cert_not_after, when), detail);
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
	const char *h[4] = { "Accept: application/json", "Expect:", c->auth_header, NULL };

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

static int request_setup(struct k8s_client *c, CURL *h, const struct k8s_request *req)
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
	c->len = 0;
	c->too_big = false;
	c->curl_error[0] = '\0';
	return 0;
}

/* libcurl's exchange: 0 with the reply, or -errno with the message set. */
static int curl_exchange(struct k8s_client *c, void *userdata, const struct k8s_request *req,
			 struct k8s_reply *ret)
{
	struct curl_slist *headers = NULL;
	curl_off_t retry_after = 0;
	char *location = NULL;
	CURLcode code;
	long status = 0;
	int r;

	r = request_setup(c, c->curl, req);
	if (r >= 0)
		r = request_headers(c, req, &headers);
	if (r < 0)
		return k8s_client_fail(c, r, "%s: %s", req->what, strerror(-r));
	curl_easy_setopt(c->curl, CURLOPT_HTTPHEADER, headers);
	code = curl_easy_perform(c->curl);
	curl_easy_setopt(c->curl, CURLOPT_HTTPHEADER, NULL);
	curl_slist_free_all(headers);
	if (code != CURLE_OK)
		return transport_error(c, req, code);
	curl_easy_getinfo(c->curl, CURLINFO_RESPONSE_CODE, &status);
	curl_easy_getinfo(c->curl, CURLINFO_RETRY_AFTER, &retry_after);
	/* where the redirect that we do not follow would go (the handle's) */
	curl_easy_getinfo(c->curl, CURLINFO_REDIRECT_URL, &location);
	*ret = (struct k8s_reply){ .status = status,
				   .body = c->buf,
				   .len = c->len,
				   .retry_after =
					   retry_after > 0 ? (usec_t)retry_after * USEC_PER_SEC : 0,
				   .location = location };
	return 0;
}

/* libcurl's watch: a second handle (the first stays free for the requests a
 * tick sends) driven by a multi handle, so that the timer runs while the
 * stream is quiet. */
struct curl_stream {
	struct k8s_client *c;
	CURL *h;
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

static int curl_watch(struct k8s_client *c, void *userdata, const struct k8s_request *req,
		      struct k8s_reply *ret)
{
	struct curl_stream st = { .c = c };
	struct curl_slist *headers = NULL;
	CURLcode code = CURLE_OK;
	CURLM *m = NULL;
	long status = 0;
	int r;

	st.h = curl_easy_duphandle(c->curl);
	m = curl_multi_init();
	r = st.h && m ? request_setup(c, st.h, req) : -ENOMEM;
	if (r >= 0)
		r = request_headers(c, req, &headers);
	if (r >= 0) {
		curl_easy_setopt(st.h, CURLOPT_HTTPHEADER, headers);
		curl_easy_setopt(st.h, CURLOPT_WRITEFUNCTION, on_stream);
		curl_easy_setopt(st.h, CURLOPT_WRITEDATA, &st);
		curl_easy_setopt(st.h, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)0);
		r = curl_multi_add_handle(m, st.h) == CURLM_OK ? 0 : -ENOMEM;
	}
	if (r >= 0) {
		r = stream_run(c, m, &code);
		curl_multi_remove_handle(m, st.h);
	}
	c->watch_location = mfree(c->watch_location);
	if (st.h) {
		char *location = NULL;

		curl_easy_getinfo(st.h, CURLINFO_RESPONSE_CODE, &status);
		curl_easy_getinfo(st.h, CURLINFO_REDIRECT_URL, &location);
		if (location && !(c->watch_location = strdup(location)))
			r = r < 0 ? r : -ENOMEM;
	}
	if (m)
		curl_multi_cleanup(m);
	if (st.h)
		curl_easy_cleanup(st.h);
	curl_slist_free_all(headers);
	if (r < 0) {
		free(st.body);
		return k8s_client_fail(c, r, "%s: %s", req->what, strerror(-r));
	}
	/* ended by a callback, or the stream's time was up */
	if (c->watch_end || (status == 200 && code == CURLE_OPERATION_TIMEDOUT))
		code = CURLE_OK;
	if (code != CURLE_OK) {
		free(st.body);
		c->too_big = st.too_big;
		return transport_error(c, req, code);
	}
	/* the body of an answer other than 200 goes where an exchange's would */
	free(c->buf);
	c->buf = st.body;
	c->len = c->cap = st.len;
	*ret = (struct k8s_reply){
		.status = status, .body = c->buf, .len = c->len, .location = c->watch_location
	};
	return 0;
}

/* A 3xx's Location, for the message that says we do not follow it. */
static int response_take_location(struct k8s_client *c, const struct k8s_request *req,
				  const struct k8s_reply *reply, struct k8s_response *resp)
{
	if (reply->status < 300 || reply->status >= 400 || !reply->location)
		return 0;
	resp->location = strdup(reply->location);
	return resp->location ? 0 : k8s_client_fail(c, -ENOMEM, "%s: out of memory", req->what);
}

int k8s_watch_feed(struct k8s_client *c, const char *data, size_t len)
{
	c->watch_started |= len > 0;
	while (len > 0 && !c->watch_end) {
		const char *nl = memchr(data, '\n', len);
		size_t n = nl ? (size_t)(nl - data) : len;
		_cleanup_json_ struct json_object *ev = NULL;

		if (c->line_len + n + 1 > K8S_RESPONSE_MAX)
			return c->watch_end = -EFBIG;
		if (c->line_len + n + 1 > c->line_cap) {
			char *b = realloc(c->line, (c->line_len + n + 1) * 2);

			if (!b)
				return c->watch_end = -ENOMEM;
			c->line = b;
			c->line_cap = (c->line_len + n + 1) * 2;
		}
		memcpy(c->line + c->line_len, data, n);
		c->line_len += n;
		c->line[c->line_len] = '\0';
		data += n;
		len -= n;
		if (!nl)
			break;
		data++;
		len--;
		n = c->line_len;
		c->line_len = 0;
		if (strspn(c->line, " \t\r") == n)
			continue;
		ev = k8s_json_parse(c->line, n);
		if (!ev || !json_object_is_type(ev, json_type_object))
			return c->watch_end = -EBADMSG;
		c->watch_end = c->watcher->event(ev, c->watcher->userdata);
	}
	return c->watch_end;
}

usec_t k8s_watch_wake(struct k8s_client *c)
{
	return c->watcher->wake ? c->watcher->wake(c->watcher->userdata) : 0;
}

int k8s_watch_tick(struct k8s_client *c)
{
	if (!c->watch_end && c->watcher->tick)
		c->watch_end = c->watcher->tick(c->watcher->userdata);
	return c->watch_end;
}

int k8s_watch(struct k8s_client *c, const struct k8s_request *req, const struct k8s_watcher *w)
{
	struct k8s_reply reply = {};
	struct k8s_response resp = {};
	int r;

	if (!c->t.watch)
		return k8s_client_fail(c, -EOPNOTSUPP, "%s: this transport cannot watch",
				       req->what);
	c->watcher = w;
	c->line_len = 0;
	c->watch_end = 0;
	c->watch_started = false;
	r = credentials_current(c);
	if (r < 0)
		return r;
	c->unavailable = false;
	r = c->t.watch(c, c->t.userdata, req, &reply);
	c->watcher = NULL;
	if (r < 0 && !c->watch_started) {
		c->n_unanswered++;
		c->unavailable = true;
		return r;
	}
	c->n_requests++;
	if (r < 0)
		return r;
	c->unavailable = status_unavailable(reply.status);
	if (!c->unavailable)
		c->reached = true;
	if (c->watch_end == -EBADMSG)
		return k8s_client_fail(c, -EBADMSG, "%s: an event is not a JSON object", req->what);
	if (c->watch_end == -EFBIG)
		return k8s_client_fail(c, -EFBIG, "%s: an event larger than %u MiB, refused",
				       req->what, K8S_RESPONSE_MAX >> 20);
	if (c->watch_end < 0)
		return c->watch_end; /* the callback's own failure, its message set */
	if (c->watch_end > 0)
		return 1;
	if (reply.status == 200)
		return 0;
	resp = (struct k8s_response){ .status = reply.status,
				      .json = k8s_json_parse(reply.body, reply.len) };
	r = response_take_location(c, req, &reply, &resp);
	if (r >= 0)
		r = k8s_response_error(c, req, &resp);
	k8s_response_done(&resp);
	return r < 0 ? r :
		       k8s_client_fail(c, -EBADMSG, "%s: answered %ld", req->what, reply.status);
}

/* One attempt: 0 with the response, or -errno with the message set. */
static int perform_once(struct k8s_client *c, const struct k8s_request *req,
			struct k8s_response *ret)
{
	struct k8s_reply reply = {};
	int r;

	c->unavailable = false;
	r = credentials_current(c);
	if (r < 0)
		return r;
	r = c->t.exchange(c, c->t.userdata, req, &reply);
	if (r < 0) {
		c->n_unanswered++;
		c->unavailable = k8s_errno_is_retryable(r);
		return r;
	}
	c->n_requests++;
	*ret = (struct k8s_response){ .status = reply.status,
				      .json = k8s_json_parse(reply.body, reply.len) };
	ret->retry_after = reply.retry_after ?: k8s_status_retry_after(ret->json) * USEC_PER_SEC;
	if (status_unavailable(reply.status)) {
		c->retry_after = ret->retry_after;
		c->unavailable = !(req->flags & K8S_CALL_RAW_STATUS);
	} else
		c->reached = true;
	return response_take_location(c, req, &reply, ret);
}

/* Until the server has answered this run once, nothing is retried here: a
 * server that is down or overloaded is waited for by whoever runs us (the
 * daemon backs off across runs, with jitter), so that a fleet does not
 * multiply its own attempts. Afterwards a failure is a blip: a dropped
 * connection, a 429 or 5xx in the middle of a drain, retried with backoff. */
static bool should_retry(const struct k8s_client *c, const struct k8s_request *req, int r,
			 const struct k8s_response *resp)
{
	if (!c->reached)
		return false;
	if (r < 0)
		return k8s_errno_is_retryable(r);
	if (req->flags & K8S_CALL_RAW_STATUS)
		return false;
	return status_unavailable(resp->status);
}

/* kube-apiserver refuses every request for a moment after it starts, as RBAC
 * would, until its authorizer has read the roles; its /readyz says so (403
 * as well for that moment, then 500 until it is ready). A refusal is the
 * server's word only when /readyz answers 200 at once; a 200 after a 403
 * means the server has just become ready (the run fails for now, and the
 * next sends the request again); one that /readyz keeps refusing for about
 * a second (RBAC that hides it) stands as well. */
#define READY_TRIES 5
#define READY_PAUSE (250 * USEC_PER_MSEC)

static bool server_starting(struct k8s_client *c)
{
	const struct k8s_request req = { .method = "GET", .path = "/readyz", .what = "readyz" };

	for (unsigned i = 0; i < READY_TRIES; i++) {
		struct k8s_reply reply = {};

		if (i > 0) {
			if (c->deadline && k8s_client_now(c) + READY_PAUSE >= c->deadline)
				return false;
			k8s_client_sleep(c, READY_PAUSE, c->deadline);
		}
		if (c->t.exchange(c, c->t.userdata, &req, &reply) < 0) {
			c->n_unanswered++;
			return true; /* gone again */
		}
		c->n_requests++;
		/* 200 at once: ready all along, the refusal stands; after a 403:
		 * ready just now, and the refusal may be from before */
		if (reply.status == 200)
			return i > 0;
		if (reply.status != 403)
			return true;
	}
	return false;
}

int k8s_call(struct k8s_client *c, const struct k8s_request *req, struct k8s_response *ret)
{
	struct k8s_response resp = {};
	int r;

	for (unsigned attempt = 0, renewed = 0;; attempt++) {
		usec_t delay;

		k8s_response_done(&resp);
		r = perform_once(c, req, &resp);
		/* as kubectl: a 401 renews a plugin's credential, once per call */
		if (r >= 0 && resp.status == 401 && c->exec && !renewed++) {
			r = exec_refresh(c, c->error);
			if (r < 0)
				break;
			continue;
		}
		if (!should_retry(c, req, r, &resp) || attempt + 1 >= c->o.max_attempts)
			break;
		delay = k8s_backoff(attempt, c->o.backoff_base, c->o.backoff_max,
				    k8s_client_random(c));
		if (r >= 0 && resp.retry_after > delay)
			delay = usec_min(resp.retry_after, c->o.backoff_max);
		if (c->deadline && k8s_client_now(c) + delay >= c->deadline)
			break;
		k8s_client_sleep(c, delay, c->deadline);
	}
	if (r < 0)
		return r;
	if (resp.status == 403 && k8s_forbidden_kind(resp.json) == K8S_FORBIDDEN_RBAC &&
	    server_starting(c)) {
		r = k8s_client_fail(
			c, -EAGAIN,
			"%s: 403 Forbidden while the API server is starting (its /readyz "
			"is not ok): %s",
			req->what, strna(k8s_status_message(resp.json)));
		k8s_response_done(&resp);
		c->unavailable = true;
		return r;
	}
	*ret = resp;
	return 0;
}

int k8s_response_error(struct k8s_client *c, const struct k8s_request *req,
		       const struct k8s_response *resp)
{
	const char *msg = k8s_status_message(resp->json), *phrase = k8s_http_phrase(resp->status);
	int r = k8s_http_errno(resp->status, k8s_status_reason(resp->json));

	if (r == 0)
		return 0;
	if (resp->status == 401) {
		_cleanup_free_ char *whose =
			c->exec		 ? strdup_printf(" that the exec plugin %s gave%s%s%s",
							 c->exec->command,
						 c->o.credentials ? " (kubeconfig " : "",
							 strempty(c->o.credentials),
						 c->o.credentials ? ")" : "") :
			c->o.credentials ? strdup_printf(" of %s", c->o.credentials) :
					   NULL;

		return k8s_client_fail(c, r,
				       "%s: 401 Unauthorized: credentials expired or revoked: the "
				       "API server did not accept the token or client "
				       "certificate%s%s%s",
				       req->what, strempty(whose), msg ? ": " : "", strempty(msg));
	}
	if (resp->status == 403 && k8s_forbidden_kind(resp->json) == K8S_FORBIDDEN_RBAC)
		return k8s_client_fail(c, r, "%s: 403 Forbidden, refused by RBAC: %s", req->what,
				       msg);
	if (resp->status == 403)
		return k8s_client_fail(c, r, "%s: 403 Forbidden, refused by admission control: %s",
				       req->what, msg ?: "no reason given");
	/* the client's own TLS settings and credentials would go with it */
	if (resp->status >= 300 && resp->status < 400)
		return k8s_client_fail(c, r,
				       "%s: %ld%s%s: redirects are not followed (Location: %s)",
				       req->what, resp->status, *phrase ? " " : "", phrase,
				       resp->location ?: "none given");
	return k8s_client_fail(c, r, "%s: %ld%s%s%s%s", req->what, resp->status, *phrase ? " " : "",
			       phrase, msg ? ": " : "", strempty(msg));
}

int k8s_do(struct k8s_client *c, const struct k8s_request *req, struct json_object **ret_json)
{
	struct k8s_response resp = {};
	int r;

	r = k8s_call(c, req, &resp);
	if (r < 0)
		return r;
	r = k8s_response_error(c, req, &resp);
	if (r >= 0 && ret_json && !resp.json)
		r = k8s_client_fail(c, -EBADMSG, "%s: the response is not JSON", req->what);
	if (r >= 0 && ret_json)
		*ret_json = TAKE_PTR(resp.json);
	k8s_response_done(&resp);
	return r;
}

int k8s_list(struct k8s_client *c, const char *path, const char *what,
	     struct json_object **ret_list, struct json_object **ret_items)
{
	_cleanup_json_ struct json_object *list = NULL;
	struct json_object *items;
	int r;

	r = k8s_do(c, &(struct k8s_request){ .method = "GET", .path = path, .what = what }, &list);
	if (r < 0)
		return r;
	items = k8s_json_get(list, "items", NULL);
	if (!items || !json_object_is_type(items, json_type_array))
		return k8s_client_fail(c, -EBADMSG, "%s: no items in the response", what);
	if (ret_items)
		*ret_items = items;
	*ret_list = TAKE_PTR(list);
	return 0;
}
