/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <inttypes.h>
#include <limits.h>
#include <time.h>

#include "time-util.h"

static const struct {
	const char *name;
	usec_t usec;
} timespan_units[] = {
	{ "usec", 1 },
	{ "us", 1 },
	{ "μs", 1 },
	{ "msec", USEC_PER_MSEC },
	{ "ms", USEC_PER_MSEC },
	{ "seconds", USEC_PER_SEC },
	{ "second", USEC_PER_SEC },
	{ "sec", USEC_PER_SEC },
	{ "s", USEC_PER_SEC },
	{ "minutes", 60 * USEC_PER_SEC },
	{ "minute", 60 * USEC_PER_SEC },
	{ "min", 60 * USEC_PER_SEC },
	{ "m", 60 * USEC_PER_SEC },
	{ "hours", 3600 * USEC_PER_SEC },
	{ "hour", 3600 * USEC_PER_SEC },
	{ "hr", 3600 * USEC_PER_SEC },
	{ "h", 3600 * USEC_PER_SEC },
	{ "days", 86400 * USEC_PER_SEC },
	{ "day", 86400 * USEC_PER_SEC },
	{ "d", 86400 * USEC_PER_SEC },
	{ "weeks", 604800 * USEC_PER_SEC },
	{ "week", 604800 * USEC_PER_SEC },
	{ "w", 604800 * USEC_PER_SEC },
};

/* The unit at *p (longest name first in the table's order), advancing *p;
 * seconds when no letter follows the number. */
static int timespan_unit(const char **p, usec_t *ret)
{
	size_t n = 0;

	while ((*p)[n] && !strchr(" \t0123456789.", (*p)[n]))
		n++;
	if (n == 0) {
		*ret = USEC_PER_SEC;
		return 0;
	}
	for (size_t i = 0; i < ELEMENTSOF(timespan_units); i++)
		if (strlen(timespan_units[i].name) == n &&
		    strncmp(*p, timespan_units[i].name, n) == 0) {
			*ret = timespan_units[i].usec;
			*p += n;
			return 0;
		}
	return -EINVAL;
}

int parse_timespan(const char *s, usec_t *ret)
{
	const char *p = s;
	usec_t total = 0;
	bool any = false;

	for (;;) {
		uint64_t whole = 0, frac = 0, scale = 1, part;
		usec_t unit;
		bool digits = false;

		p += strspn(p, " \t");
		if (*p == '\0')
			break;
		for (; *p >= '0' && *p <= '9'; p++, digits = true) {
			if (whole > (UINT64_MAX - 9) / 10)
				return -ERANGE;
			whole = whole * 10 + (uint64_t)(*p - '0');
		}
		if (*p == '.')
			for (p++; *p >= '0' && *p <= '9'; p++, digits = true)
				if (scale < 1000000) {
					frac = frac * 10 + (uint64_t)(*p - '0');
					scale *= 10;
				}
		if (!digits)
			return -EINVAL;
		p += strspn(p, " \t");
		if (timespan_unit(&p, &unit) < 0 || *p == '.')
			return -EINVAL;
		if (whole > UINT64_MAX / unit)
			return -ERANGE;
		part = whole * unit + frac * unit / scale;
		if (part > UINT64_MAX - total)
			return -ERANGE;
		total += part;
		any = true;
	}
	if (!any)
		return -EINVAL;
	*ret = total;
	return 0;
}

static usec_t now_clock(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (usec_t)ts.tv_sec * USEC_PER_SEC + (usec_t)ts.tv_nsec / 1000;
}

usec_t now_realtime(void)
{
	return now_clock(CLOCK_REALTIME);
}

usec_t boot_start_realtime(void)
{
	return now_realtime() - now_clock(CLOCK_BOOTTIME);
}

usec_t now_monotonic(void)
{
	return now_clock(CLOCK_MONOTONIC);
}

const char *format_rfc3339(char buf[static FORMAT_RFC3339_MAX], usec_t t)
{
	time_t sec = (time_t)(t / USEC_PER_SEC);
	struct tm tm;

	if (!gmtime_r(&sec, &tm) ||
	    strftime(buf, FORMAT_RFC3339_MAX, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
		snprintf(buf, FORMAT_RFC3339_MAX, "-");
	return buf;
}

const char *format_timespan(char buf[static FORMAT_TIMESPAN_MAX], usec_t t)
{
	uint64_t sec = t / USEC_PER_SEC, rest;
	const char *big, *small;
	uint64_t unit, sub;

	if (t < USEC_PER_SEC) {
		snprintf(buf, FORMAT_TIMESPAN_MAX, "%" PRIu64 "ms", t / USEC_PER_MSEC);
		return buf;
	}
	if (sec < 60) {
		if (t % USEC_PER_SEC == 0 || sec >= 10)
			snprintf(buf, FORMAT_TIMESPAN_MAX, "%" PRIu64 "s", sec);
		else
			snprintf(buf, FORMAT_TIMESPAN_MAX, "%.1fs",
				 (double)t / (double)USEC_PER_SEC);
		return buf;
	}
	if (sec < 3600)
		unit = 60, sub = 1, big = "min", small = "s";
	else if (sec < 86400)
		unit = 3600, sub = 60, big = "h", small = "min";
	else
		unit = 86400, sub = 3600, big = "d", small = "h";
	rest = sec % unit / sub;
	if (rest)
		snprintf(buf, FORMAT_TIMESPAN_MAX, "%" PRIu64 "%s %" PRIu64 "%s", sec / unit, big,
			 rest, small);
	else
		snprintf(buf, FORMAT_TIMESPAN_MAX, "%" PRIu64 "%s", sec / unit, big);
	return buf;
}

usec_t deadline_after(usec_t timeout)
{
	usec_t n = now_monotonic();

	return timeout >= USEC_INFINITY - n ? USEC_INFINITY : n + timeout;
}

int poll_ms(usec_t deadline)
{
	usec_t n = now_monotonic(), ms;

	if (deadline == USEC_INFINITY)
		return -1;
	if (n >= deadline)
		return 0;
	ms = (deadline - n + USEC_PER_MSEC - 1) / USEC_PER_MSEC;
	return ms > INT_MAX ? INT_MAX : (int)ms;
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

int parse_rfc3339(const char *s, usec_t *ret)
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
