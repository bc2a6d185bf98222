/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <stdarg.h>
#include <time.h>

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

/* n decimal digits at s into *ret. */
static bool parse_digits(const char *s, unsigned n, int *ret)
{
	int v = 0;

	for (unsigned i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		v = v * 10 + (s[i] - '0');
	}
	*ret = v;
	return true;
}

/* ".123456" (any number of digits) into microseconds; returns the characters used. */
static size_t parse_fraction(const char *s, usec_t *ret)
{
	usec_t us = 0, scale = 100000;
	size_t i = 1;

	*ret = 0;
	if (s[0] != '.')
		return 0;
	for (; s[i] >= '0' && s[i] <= '9'; i++, scale /= 10)
		us += (usec_t)(s[i] - '0') * scale;
	if (i == 1)
		return 0;
	*ret = us;
	return i;
}

/* "Z", "+HH:MM" or "-HH:MM" as seconds east of UTC; -EINVAL otherwise. */
static int parse_zone(const char *s, long *ret)
{
	int h, m;

	if (streq(s, "Z") || streq(s, "z")) {
		*ret = 0;
		return 0;
	}
	if ((s[0] != '+' && s[0] != '-') || strlen(s) != 6 || s[3] != ':' ||
	    !parse_digits(s + 1, 2, &h) || !parse_digits(s + 4, 2, &m) || h > 23 || m > 59)
		return -EINVAL;
	*ret = (s[0] == '-' ? -1 : 1) * (h * 3600L + m * 60L);
	return 0;
}

int microtime_parse(const char *s, usec_t *ret)
{
	struct tm tm = {};
	int year, mon, day, hour, min, sec;
	usec_t frac;
	time_t t;
	long zone;
	size_t n;

	if (strlen(s) < 20 || !parse_digits(s, 4, &year) || s[4] != '-' ||
	    !parse_digits(s + 5, 2, &mon) || s[7] != '-' || !parse_digits(s + 8, 2, &day) ||
	    (s[10] != 'T' && s[10] != 't') || !parse_digits(s + 11, 2, &hour) || s[13] != ':' ||
	    !parse_digits(s + 14, 2, &min) || s[16] != ':' || !parse_digits(s + 17, 2, &sec))
		return -EINVAL;
	if (year < 1970 || mon < 1 || mon > 12 || day < 1 || day > 31 || hour > 23 || min > 59 ||
	    sec > 60)
		return -EINVAL;
	n = 19 + parse_fraction(s + 19, &frac);
	if (parse_zone(s + n, &zone) < 0)
		return -EINVAL;
	tm = (struct tm){ .tm_year = year - 1900,
			  .tm_mon = mon - 1,
			  .tm_mday = day,
			  .tm_hour = hour,
			  .tm_min = min,
			  .tm_sec = sec };
	t = timegm(&tm);
	if (t == (time_t)-1 || tm.tm_mday != day || t - zone < 0)
		return -EINVAL;
	*ret = (usec_t)(t - zone) * USEC_PER_SEC + frac;
	return 0;
}

static const struct {
	long status;
	const char *phrase;
	int error; /* -errno */
} http_codes[] = {
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
