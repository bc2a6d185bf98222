/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <ctype.h>
#include <strings.h>

#include "suggest.h"

#define SUGGEST_LEN_MAX 64

static unsigned row_min(const unsigned *row, size_t m)
{
	unsigned min = row[0];

	for (size_t j = 1; j <= m; j++)
		if (row[j] < min)
			min = row[j];
	return min;
}

/* Optimal string alignment distance over three rolling rows; gives up with
 * limit + 1 once the last two rows are past limit, as every later cell is
 * made from them. */
static unsigned distance_within(const char *a, const char *b, unsigned limit)
{
	unsigned rows[3][SUGGEST_LEN_MAX + 1];
	size_t n = strlen(a), m = strlen(b);
	unsigned *prev2 = rows[0], *prev = rows[1], *cur = rows[2];

	if (n >= SUGGEST_LEN_MAX || m >= SUGGEST_LEN_MAX)
		return (unsigned)(n > m ? n : m);
	for (size_t j = 0; j <= m; j++)
		prev[j] = (unsigned)j;
	for (size_t i = 1; i <= n; i++) {
		unsigned *t;

		cur[0] = (unsigned)i;
		for (size_t j = 1; j <= m; j++) {
			bool same = tolower((unsigned char)a[i - 1]) ==
				    tolower((unsigned char)b[j - 1]);
			unsigned d = prev[j - 1] + !same;

			if (prev[j] + 1 < d)
				d = prev[j] + 1;
			if (cur[j - 1] + 1 < d)
				d = cur[j - 1] + 1;
			if (i > 1 && j > 1 &&
			    tolower((unsigned char)a[i - 1]) == tolower((unsigned char)b[j - 2]) &&
			    tolower((unsigned char)a[i - 2]) == tolower((unsigned char)b[j - 1]) &&
			    prev2[j - 2] + 1 < d)
				d = prev2[j - 2] + 1;
			cur[j] = d;
		}
		if (limit < UINT32_MAX && row_min(cur, m) > limit && row_min(prev, m) > limit)
			return limit + 1;
		t = prev2;
		prev2 = prev;
		prev = cur;
		cur = t;
	}
	return prev[m];
}

unsigned suggest_distance(const char *a, const char *b)
{
	return distance_within(a, b, UINT32_MAX);
}

void suggest_consider(struct suggest *s, const char *candidate)
{
	size_t len = strlen(s->input), clen;
	unsigned d, allowed = len >= 6 ? (unsigned)(len / 3) : 1;

	if (!candidate)
		return;
	clen = strlen(candidate);
	/* the distance is at least the difference in length */
	if ((len > clen ? len - clen : clen - len) <= allowed)
		d = distance_within(s->input, candidate, allowed);
	else
		d = UINT32_MAX;
	/* "Timeout" for "TimeoutSec": a name cut short is meant too */
	if (d > allowed && len >= 4 && strncasecmp(s->input, candidate, len) == 0)
		d = allowed;
	if (d <= allowed && d < s->distance) {
		s->best = candidate;
		s->distance = d;
	}
}

char *suggest_hint(const struct suggest *s, char *buf, size_t size)
{
	if (s->best)
		snprintf(buf, size, "; did you mean '%s'?", s->best);
	else if (size > 0)
		buf[0] = '\0';
	return buf;
}
