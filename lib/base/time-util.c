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
