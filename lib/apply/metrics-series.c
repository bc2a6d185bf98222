/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* The text exposition format's lines (metrics-internal.h): a series with
 * its labels escaped, a family's HELP and TYPE; what metrics.c and
 * metrics-daemon.c both write with. */

#include <inttypes.h>

#include "metrics-internal.h"
#include "util.h"

char *metrics_escape_label(const char *s)
{
	size_t n = 1;
	char *out, *o;

	s = strempty(s);
	for (const char *p = s; *p; p++)
		n += strchr("\\\"\n", *p) ? 2 : 1;
	out = o = malloc(n);
	if (!out)
		return NULL;
	for (const char *p = s; *p; p++) {
		if (strchr("\\\"\n", *p)) {
			*o++ = '\\';
			*o++ = *p == '\n' ? 'n' : *p;
		} else
			*o++ = *p;
	}
	*o = '\0';
	return out;
}

int metrics_series(FILE *f, const char *name, const struct metrics_label *l, size_t n,
		   const char *value)
{
	fprintf(f, METRICS_PREFIX "%s%s", name, n ? "{" : "");
	for (size_t i = 0; i < n; i++) {
		_cleanup_free_ char *e = metrics_escape_label(l[i].value);

		if (!e)
			return -ENOMEM;
		fprintf(f, "%s%s=\"%s\"", i ? "," : "", l[i].key, e);
	}
	fprintf(f, "%s %s\n", n ? "}" : "", value);
	return 0;
}

int metrics_series_u64(FILE *f, const char *name, const struct metrics_label *l, size_t n,
		       uint64_t v)
{
	char buf[DECIMAL_STR_MAX(uint64_t)];

	snprintf(buf, sizeof(buf), "%" PRIu64, v);
	return metrics_series(f, name, l, n, buf);
}

int metrics_series_usec(FILE *f, const char *name, const struct metrics_label *l, size_t n,
			uint64_t usec)
{
	char buf[2 * DECIMAL_STR_MAX(uint64_t)];

	snprintf(buf, sizeof(buf), "%" PRIu64 ".%06" PRIu64, usec / 1000000, usec % 1000000);
	return metrics_series(f, name, l, n, buf);
}

void metrics_header(FILE *f, const char *name, const char *type, const char *help)
{
	fprintf(f, "# HELP " METRICS_PREFIX "%s %s\n# TYPE " METRICS_PREFIX "%s %s\n", name, help,
		name, type);
}
