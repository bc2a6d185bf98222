/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <inttypes.h>
#include <stdarg.h>
#include <time.h>

#include "json-util.h"
#include "k8s-api.h"

char *microtime_format(usec_t t, char buf[static MICROTIME_MAX])
{
	time_t sec = (time_t)(t / USEC_PER_SEC);
	struct tm tm;

	if (!gmtime_r(&sec, &tm) || tm.tm_year + 1900 > 9999)
		tm = (struct tm){ .tm_year = 70, .tm_mday = 1 };
	strftime(buf, MICROTIME_MAX, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf + 19, MICROTIME_MAX - 19, ".%06uZ", (unsigned)(t % USEC_PER_SEC));
	return buf;
}

int microtime_parse(const char *s, usec_t *ret)
{
	return parse_rfc3339(s, ret);
}

static const struct {
	long status;
	const char *phrase;
	int error; /* -errno */
} http_codes[] = {
	/* redirects: never followed (our credentials would go with them) */
	{ 300, "Multiple Choices", -EPROTO },
	{ 301, "Moved Permanently", -EPROTO },
	{ 302, "Found", -EPROTO },
	{ 303, "See Other", -EPROTO },
	{ 307, "Temporary Redirect", -EPROTO },
	{ 308, "Permanent Redirect", -EPROTO },
	{ 400, "Bad Request", -EINVAL },
	{ 401, "Unauthorized", -EKEYREJECTED },
	{ 403, "Forbidden", -EACCES },
	{ 404, "Not Found", -ENOENT },
	{ 405, "Method Not Allowed", -EOPNOTSUPP },
	{ 406, "Not Acceptable", -EPROTO },
	{ 409, "Conflict", -ESTALE },
	{ 410, "Gone", -ESTALE },
	{ 413, "Request Entity Too Large", -EFBIG },
	{ 415, "Unsupported Media Type", -EPROTO },
	{ 422, "Unprocessable Entity", -EINVAL },
	{ 429, "Too Many Requests", -EAGAIN },
	{ 500, "Internal Server Error", -EAGAIN },
	{ 502, "Bad Gateway", -EAGAIN },
	{ 503, "Service Unavailable", -EAGAIN },
	{ 504, "Gateway Timeout", -EAGAIN },
};

int k8s_http_errno(long status, const char *reason)
{
	if (status >= 200 && status < 300)
		return 0;
	if (status == 409 && streq_ptr(reason, "AlreadyExists"))
		return -EEXIST;
	for (size_t i = 0; i < ELEMENTSOF(http_codes); i++)
		if (http_codes[i].status == status)
			return http_codes[i].error;
	return status >= 500 ? -EAGAIN : -EPROTO;
}

const char *k8s_http_phrase(long status)
{
	for (size_t i = 0; i < ELEMENTSOF(http_codes); i++)
		if (http_codes[i].status == status)
			return http_codes[i].phrase;
	return "";
}

bool k8s_errno_is_retryable(int r)
{
	static const int retryable[] = {
		EAGAIN,	      ETIMEDOUT,   ECONNREFUSED,  ECONNRESET, ECONNABORTED,
		EHOSTUNREACH, ENETUNREACH, EHOSTDOWN,	  ENETDOWN,   EPIPE,
		EBUSY,	      ENOTCONN,	   EADDRNOTAVAIL,
	};

	for (size_t i = 0; i < ELEMENTSOF(retryable); i++)
		if (r == -retryable[i])
			return true;
	return false;
}

const char *k8s_status_message(struct json_object *status)
{
	const char *m = k8s_json_str(status, "message", NULL);

	return m && *m ? m : NULL;
}

const char *k8s_status_reason(struct json_object *status)
{
	const char *m = k8s_json_str(status, "reason", NULL);

	return m && *m ? m : NULL;
}

const char *k8s_status_cause(struct json_object *status)
{
	struct json_object *causes = k8s_json_get(status, "details", "causes", NULL);

	if (!causes || !json_object_is_type(causes, json_type_array))
		return NULL;
	for (size_t i = 0; i < json_object_array_length(causes); i++) {
		const char *m = k8s_json_str(json_object_array_get_idx(causes, i), "message", NULL);

		if (m && *m)
			return m;
	}
	return NULL;
}

bool k8s_status_has_cause(struct json_object *status, const char *reason)
{
	struct json_object *causes = k8s_json_get(status, "details", "causes", NULL);

	if (!causes || !json_object_is_type(causes, json_type_array))
		return false;
	for (size_t i = 0; i < json_object_array_length(causes); i++)
		if (streq_ptr(k8s_json_str(json_object_array_get_idx(causes, i), "reason", NULL),
			      reason))
			return true;
	return false;
}

enum k8s_forbidden k8s_forbidden_kind(struct json_object *status)
{
	const char *msg = k8s_status_message(status);
	struct json_object *causes = k8s_json_get(status, "details", "causes", NULL);

	if (k8s_status_has_cause(status, K8S_CAUSE_NAMESPACE_TERMINATING))
		return K8S_FORBIDDEN_NAMESPACE_TERMINATING;
	/* the authorizer's refusal: 'pods "x" is forbidden: User "u" cannot
	 * create resource "pods/eviction" in API group "" ...', without causes */
	if (msg && strstr(msg, " is forbidden: User \"") && strstr(msg, " cannot ") &&
	    strstr(msg, " resource \"") &&
	    !(causes && json_object_is_type(causes, json_type_array) &&
	      json_object_array_length(causes) > 0))
		return K8S_FORBIDDEN_RBAC;
	return K8S_FORBIDDEN_ADMISSION;
}

uint32_t k8s_status_retry_after(struct json_object *status)
{
	struct json_object *v = k8s_json_get(status, "details", "retryAfterSeconds", NULL);
	int64_t s;

	if (!v || !json_object_is_type(v, json_type_int))
		return 0;
	s = json_object_get_int64(v);
	return s > 0 && s < 86400 ? (uint32_t)s : 0;
}

usec_t k8s_backoff(unsigned attempt, usec_t base, usec_t cap, uint32_t rnd)
{
	usec_t d = base;

	for (unsigned i = 0; i < attempt && d < cap; i++)
		d *= 2;
	if (d > cap)
		d = cap;
	return d / 2 + (d / 2 ? rnd % (d / 2 + 1) : 0);
}

static struct json_object *json_get_va(struct json_object *o, va_list ap)
{
	for (const char *k; (k = va_arg(ap, const char *));) {
		if (!o || !json_object_is_type(o, json_type_object))
			return NULL;
		if (!json_object_object_get_ex(o, k, &o))
			return NULL;
	}
	return o;
}

struct json_object *k8s_json_get(struct json_object *o, ...)
{
	va_list ap;

	va_start(ap, o);
	o = json_get_va(o, ap);
	va_end(ap);
	return o;
}

const char *k8s_json_str(struct json_object *o, ...)
{
	va_list ap;

	va_start(ap, o);
	o = json_get_va(o, ap);
	va_end(ap);
	return o && json_object_is_type(o, json_type_string) ? json_object_get_string(o) : NULL;
}

bool k8s_name_is_valid(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > 253 || !is_lower_alnum(s[0]) || !is_lower_alnum(s[n - 1]))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!is_lower_alnum(s[i]) && s[i] != '-' && s[i] != '.')
			return false;
	return true;
}

int k8s_set_error(char *error, int r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(error, K8S_ERROR_MAX, fmt, ap);
	va_end(ap);
	return r;
}

static const char b64_alphabet[] =
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static int b64_value(char c)
{
	const char *p = c ? strchr(b64_alphabet, c) : NULL;

	return p ? (int)(p - b64_alphabet) : -1;
}

int k8s_base64_decode(const char *s, size_t n, char **ret, size_t *ret_size)
{
	_cleanup_free_ char *out = malloc(n / 4 * 3 + 4);
	size_t len = 0, pad = 0, bits = 0;
	uint32_t acc = 0;

	if (!out)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		int v;

		if (strchr(" \t\r\n", s[i]) && s[i])
			continue;
		if (s[i] == '=') {
			pad++;
			continue;
		}
		v = b64_value(s[i]);
		if (v < 0 || pad > 0)
			return -EINVAL;
		acc = (acc << 6) | (uint32_t)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			out[len++] = (char)((acc >> bits) & 0xff);
		}
	}
	/* leftover bits must be padding zeros, and at most 2 '=' */
	if (pad > 2 || bits >= 6 || (acc & ((1u << bits) - 1)) != 0)
		return -EINVAL;
	out[len] = '\0';
	*ret_size = len;
	*ret = TAKE_PTR(out);
	return 0;
}

char *k8s_base64_encode(const void *data, size_t n)
{
	const unsigned char *d = data;
	char *out = malloc((n + 2) / 3 * 4 + 1), *o = out;

	if (!out)
		return NULL;
	for (size_t i = 0; i < n; i += 3) {
		uint32_t v = (uint32_t)d[i] << 16 | (i + 1 < n ? (uint32_t)d[i + 1] << 8 : 0) |
			     (i + 2 < n ? d[i + 2] : 0);

		*o++ = b64_alphabet[v >> 18 & 63];
		*o++ = b64_alphabet[v >> 12 & 63];
		*o++ = i + 1 < n ? b64_alphabet[v >> 6 & 63] : '=';
		*o++ = i + 2 < n ? b64_alphabet[v & 63] : '=';
	}
	*o = '\0';
	return out;
}

struct json_object *k8s_json_parse(const char *buf, size_t len)
{
	struct json_tokener *tok;
	struct json_object *o;

	if (len == 0 || len > INT32_MAX)
		return NULL;
	tok = json_tokener_new_ex(64);
	if (!tok)
		return NULL;
	o = json_tokener_parse_ex(tok, buf, (int)len);
	/* one value, and nothing after it but white space */
	for (size_t i = o ? json_tokener_get_parse_end(tok) : len; o && i < len; i++)
		if (!buf[i] || !strchr(" \t\r\n", buf[i]))
			json_object_putp(&o);
	if (o && json_tokener_get_error(tok) != json_tokener_success)
		json_object_putp(&o);
	json_tokener_free(tok);
	return o;
}

int k8s_jwt_times(const char *token, usec_t *ret_issued, usec_t *ret_expires)
{
	_cleanup_free_ char *b64 = NULL, *payload = NULL;
	_cleanup_json_ struct json_object *claims = NULL;
	const char *dot = strchr(token, '.'), *end;
	usec_t t[2] = {};
	size_t n;

	end = dot ? strchr(dot + 1, '.') : NULL;
	if (!end || end == dot + 1 || end - dot > 64 * 1024)
		return -EINVAL;
	/* base64url without padding */
	b64 = strndup(dot + 1, (size_t)(end - dot - 1));
	if (!b64)
		return -ENOMEM;
	for (char *p = b64; *p; p++)
		if (*p == '-' || *p == '_')
			*p = *p == '-' ? '+' : '/';
		else if (*p == '+' || *p == '/' || *p == '=')
			return -EINVAL;
	if (k8s_base64_decode(b64, strlen(b64), &payload, &n) < 0)
		return -EINVAL;
	claims = k8s_json_parse(payload, n);
	if (!json_object_is_type(claims, json_type_object))
		return -EINVAL;
	for (size_t i = 0; i < 2; i++) {
		struct json_object *v = k8s_json_get(claims, i ? "exp" : "iat", NULL);
		int64_t sec;

		if (!v || !(json_object_is_type(v, json_type_int) ||
			    json_object_is_type(v, json_type_double)))
			continue;
		sec = json_object_get_int64(v);
		if (sec > 0 && sec < (int64_t)(UINT64_MAX / USEC_PER_SEC / 2))
			t[i] = (usec_t)sec * USEC_PER_SEC;
	}
	*ret_issued = t[0];
	*ret_expires = t[1];
	return 0;
}

/* One DER element at *p (before end): its tag, and its contents in
 * [*ret_body, *ret_body + *ret_len); *p moves past it. Short tags, definite
 * lengths of at most 4 bytes. */
static int der_next(const uint8_t **p, const uint8_t *end, uint8_t *ret_tag,
		    const uint8_t **ret_body, size_t *ret_len)
{
	const uint8_t *q = *p;
	size_t len;

	if (end - q < 2)
		return -EINVAL;
	*ret_tag = *q++;
	len = *q++;
	if (len & 0x80) {
		size_t n = len & 0x7f;

		if (n == 0 || n > 4 || (size_t)(end - q) < n)
			return -EINVAL;
		for (len = 0; n > 0; n--)
			len = len << 8 | *q++;
	}
	if ((size_t)(end - q) < len)
		return -EINVAL;
	*ret_body = q;
	*ret_len = len;
	*p = q + len;
	return 0;
}

/* UTCTime (YYMMDDHHMMSSZ, 1950-2049) or GeneralizedTime (YYYYMMDDHHMMSSZ). */
static int der_time(uint8_t tag, const uint8_t *b, size_t len, usec_t *ret)
{
	size_t y = tag == 0x17 ? 2 : 4;
	const char *s = (const char *)b;
	char text[32];

	if ((tag != 0x17 && tag != 0x18) || len != y + 11 || b[len - 1] != 'Z')
		return -EINVAL;
	for (size_t i = 0; i < len - 1; i++)
		if (b[i] < '0' || b[i] > '9')
			return -EINVAL;
	/* as RFC 3339, which microtime_parse() reads */
	snprintf(text, sizeof(text), "%s%.*s-%.2s-%.2sT%.2s:%.2s:%.2sZ",
		 y == 2 ? (b[0] >= '5' ? "19" : "20") : "", (int)y, s, s + y, s + y + 2, s + y + 4,
		 s + y + 6, s + y + 8);
	return microtime_parse(text, ret);
}

int k8s_cert_times(const char *pem, size_t size, usec_t *ret_not_before, usec_t *ret_not_after)
{
	static const char begin[] = "-----BEGIN CERTIFICATE-----", end_mark[] = "-----END";
	const char *b = memmem(pem, size, begin, strlen(begin)), *e;
	_cleanup_free_ char *der = NULL;
	const uint8_t *p, *end, *body;
	size_t n, len;
	usec_t t[2];
	uint8_t tag;

	if (!b)
		return -EINVAL;
	b += strlen(begin);
	e = memmem(b, size - (size_t)(b - pem), end_mark, strlen(end_mark));
	if (!e || k8s_base64_decode(b, (size_t)(e - b), &der, &n) < 0)
		return -EINVAL;
	/* Certificate, then its TBSCertificate */
	p = (const uint8_t *)der;
	end = p + n;
	for (int i = 0; i < 2; i++) {
		if (der_next(&p, end, &tag, &body, &len) < 0 || tag != 0x30)
			return -EINVAL;
		p = body;
		end = body + len;
	}
	/* [0] version (optional), serialNumber, signature, issuer, then validity */
	if (der_next(&p, end, &tag, &body, &len) < 0 ||
	    (tag == 0xa0 && der_next(&p, end, &tag, &body, &len) < 0) || tag != 0x02)
		return -EINVAL;
	for (int i = 0; i < 3; i++)
		if (der_next(&p, end, &tag, &body, &len) < 0 || tag != 0x30)
			return -EINVAL;
	p = body;
	end = body + len;
	for (int i = 0; i < 2; i++)
		if (der_next(&p, end, &tag, &body, &len) < 0 || der_time(tag, body, len, &t[i]) < 0)
			return -EINVAL;
	*ret_not_before = t[0];
	*ret_not_after = t[1];
	return 0;
}
static const char *const cred_kind_names[_K8S_CRED_KIND_MAX] = {
	[K8S_CRED_TOKEN] = "token",
	[K8S_CRED_TOKEN_FILE] = "token-file",
	[K8S_CRED_EXEC] = "exec",
	[K8S_CRED_CLIENT_CERTIFICATE] = "client-certificate",
};

DEFINE_STRING_TABLE_TO(k8s_cred_kind, enum k8s_cred_kind, cred_kind_names)

/* "3 d 4 h", "58 min", "40 s" */
static char *span_string(usec_t d)
{
	uint64_t s = d / USEC_PER_SEC;

	if (s >= 86400)
		return strdup_printf("%" PRIu64 " d %" PRIu64 " h", s / 86400, s % 86400 / 3600);
	if (s >= 3600)
		return strdup_printf("%" PRIu64 " h %" PRIu64 " min", s / 3600, s % 3600 / 60);
	if (s >= 60)
		return strdup_printf("%" PRIu64 " min", s / 60);
	return strdup_printf("%" PRIu64 " s", s);
}

char *k8s_cred_warning(enum k8s_cred_kind kind, const char *source, usec_t issued, usec_t expires,
		       usec_t now)
{
	static const char *const what[_K8S_CRED_KIND_MAX] = {
		[K8S_CRED_TOKEN] = "the token of",
		[K8S_CRED_TOKEN_FILE] = "the token in the file",
		[K8S_CRED_EXEC] = "the credential of the exec plugin",
		[K8S_CRED_CLIENT_CERTIFICATE] = "the client certificate of",
	};
	usec_t day = 24 * 3600 * USEC_PER_SEC, left, margin;
	_cleanup_free_ char *span = NULL;
	char when[MICROTIME_MAX];

	if (!expires || kind < 0 || kind >= _K8S_CRED_KIND_MAX)
		return NULL;
	microtime_format(expires, when);
	when[19] = 'Z'; /* whole seconds */
	when[20] = '\0';
	/* a plugin's is renewed by running it: only one that comes expired is news */
	if (expires <= now)
		return strdup_printf("%s %s expired at %s: %s", what[kind], source, when,
				     kind == K8S_CRED_EXEC ?
					     "it gives a credential that has expired already" :
					     "every request is refused (401) until it is replaced");
	if (kind == K8S_CRED_EXEC)
		return NULL;
	left = expires - now;
	if (kind == K8S_CRED_TOKEN)
		margin = K8S_CRED_WARN * day;
	else
		margin = issued && issued < expires ? (expires - issued) / 5 : day;
	if (kind == K8S_CRED_CLIENT_CERTIFICATE && margin > K8S_CRED_WARN_CERT * day)
		margin = K8S_CRED_WARN_CERT * day;
	if (left >= margin)
		return NULL;
	span = span_string(left);
	if (!span)
		return NULL;
	return strdup_printf("%s %s expires at %s, in %s%s", what[kind], source, when, span,
			     kind == K8S_CRED_TOKEN ?
				     ", and nothing renews it: replace it before then, or use a "
				     "tokenFile that is renewed, an exec plugin or a client "
				     "certificate" :
			     kind == K8S_CRED_TOKEN_FILE ?
				     ", and has not been renewed: write a new one before then" :
				     ": renew it before then");
}
