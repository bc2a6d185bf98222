/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <ctype.h>
#include <strings.h>

#include "suggest.h"

#define SUGGEST_LEN_MAX 64
#define SUGGEST_WORDS_MAX 8

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

static bool is_separator(char c)
{
	return c == '_' || c == '-';
}

/* Whether a and b are one name, ignoring case, '_' and '-' ("query_rss",
 * "QueryRSS", "QUERY-RSS"). */
static bool same_name(const char *a, const char *b)
{
	for (;; a++, b++) {
		while (is_separator(*a))
			a++;
		while (is_separator(*b))
			b++;
		if (tolower((unsigned char)*a) != tolower((unsigned char)*b))
			return false;
		if (!*a)
			return true;
	}
}

struct words {
	size_t n;
	const char *start[SUGGEST_WORDS_MAX];
	size_t len[SUGGEST_WORDS_MAX];
};

/* Whether s[i] starts a word: after '_' or '-', at a capital after a small
 * letter, or at the capital that starts a word after capitals (the A of
 * "MACAddress"). */
static bool starts_word(const char *s, size_t i)
{
	bool up = isupper((unsigned char)s[i]);

	if (i == 0 || is_separator(s[i - 1]))
		return true;
	return up && (islower((unsigned char)s[i - 1]) ||
		      (isupper((unsigned char)s[i - 1]) && islower((unsigned char)s[i + 1])));
}

/* The words of a name: "MACAddress" is MAC|Address, "IBNodeGUID"
 * IB|Node|GUID, "min_tx_rate" min|tx|rate. False when there are too many. */
static bool split_words(const char *s, struct words *w)
{
	w->n = 0;
	for (size_t i = 0; s[i]; i++) {
		if (is_separator(s[i]))
			continue;
		if (starts_word(s, i) || w->n == 0) {
			if (w->n == SUGGEST_WORDS_MAX)
				return false;
			w->start[w->n] = s + i;
			w->len[w->n++] = 0;
		}
		w->len[w->n - 1]++;
	}
	return true;
}

static bool is_acronym(const char *word, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (!isupper((unsigned char)word[i]))
			return false;
	return len > 1;
}

/* The fewest words of w from word i on that are left out when in (without
 * separators) is read as the starts of the others (an acronym whole), in
 * order: "RSS" leaves
 * out Query of Query|Receive|Side|Scaling, "MaxRate" Tx and Mbps of
 * Max|Tx|Rate|Mbps. UINT32_MAX when in cannot be read so. */
static unsigned abbreviation_left_out(const char *in, const struct words *w, size_t i)
{
	unsigned best = UINT32_MAX, d;

	while (is_separator(*in))
		in++;
	if (!*in)
		return (unsigned)(w->n - i);
	if (i == w->n)
		return UINT32_MAX;
	d = abbreviation_left_out(in, w, i + 1);
	if (d < UINT32_MAX)
		best = d + 1;
	for (size_t k = 0; k < w->len[i] && in[k] &&
			   tolower((unsigned char)in[k]) == tolower((unsigned char)w->start[i][k]);
	     k++) {
		/* an acronym is used whole: "MA" is not the start of MAC */
		if (k + 1 < w->len[i] && is_acronym(w->start[i], w->len[i]))
			continue;
		d = abbreviation_left_out(in + k + 1, w, i + 1);
		if (d < best)
			best = d;
	}
	return best;
}

/* How many words of name input leaves out when it abbreviates name: it is
 * read as the starts of name's words in order, leaving out no more words
 * than it uses, and is three letters or more, or the initials of every
 * word ("VF" for VirtualFunction). UINT32_MAX when it does not. */
static unsigned abbreviation(const char *input, const char *name)
{
	size_t letters = 0;
	struct words w;
	unsigned out;

	for (const char *p = input; *p; p++)
		letters += !is_separator(*p);
	if (letters < 2 || !split_words(name, &w))
		return UINT32_MAX;
	out = abbreviation_left_out(input, &w, 0);
	if (out == UINT32_MAX || w.n - out < out || (letters < 3 && (out > 0 || letters != w.n)))
		return UINT32_MAX;
	return out;
}

/* How near input is to name: edits, at most allowed + 1, then the words an
 * abbreviation leaves out. */
static void nearness(const char *input, const char *name, unsigned allowed, unsigned *ret_d,
		     unsigned *ret_left_out)
{
	size_t len = strlen(input), nlen = strlen(name);
	unsigned d = UINT32_MAX, out = 0;

	if (same_name(input, name))
		d = 0;
	/* the distance is at least the difference in length */
	else if ((len > nlen ? len - nlen : nlen - len) <= allowed)
		d = distance_within(input, name, allowed);
	/* "Timeout" for "TimeoutSec": a name cut short is meant too; so is an
	 * abbreviation, "QueryRSS" for "QueryReceiveSideScaling" */
	if (d > allowed && len >= 4 && strncasecmp(input, name, len) == 0)
		d = allowed;
	else if (d > allowed) {
		out = abbreviation(input, name);
		if (out < UINT32_MAX)
			d = allowed;
		else
			out = 0;
	}
	*ret_d = d;
	*ret_left_out = out;
}

static void consider_as(struct suggest *s, const char *name, const char *candidate)
{
	size_t len = strlen(s->input);
	unsigned allowed = len >= 6 ? (unsigned)(len / 3) : 1, d, out;

	if (!name || !candidate)
		return;
	nearness(s->input, name, allowed, &d, &out);
	if (d > allowed || d > s->distance || (d == s->distance && out > s->left_out))
		return;
	if (d < s->distance || out < s->left_out) {
		s->best = candidate;
		s->distance = d;
		s->left_out = out;
	} else if (!streq_ptr(s->best, candidate)) {
		/* "TxRate": MinTxRateMbps or MaxTxRateMbps? Neither is said. */
		s->best = NULL;
	}
}

void suggest_consider(struct suggest *s, const char *candidate)
{
	consider_as(s, candidate, candidate);
}

void suggest_consider_alias(struct suggest *s, const char *candidate, const char *alias)
{
	consider_as(s, alias, candidate);
}

char *suggest_hint_of(const struct suggest *s, const char *where, char *buf, size_t size)
{
	if (s->best)
		snprintf(buf, size, "; did you mean '%s'%s%s?", s->best, where ? " of " : "",
			 strempty(where));
	else if (size > 0)
		buf[0] = '\0';
	return buf;
}

char *suggest_hint(const struct suggest *s, char *buf, size_t size)
{
	return suggest_hint_of(s, NULL, buf, size);
}

void suggest_where_add(char *buf, size_t size, size_t i, size_t count, const char *section)
{
	size_t len = i == 0 ? 0 : strnlen(buf, size);

	if (len < size)
		snprintf(buf + len, size - len, "%s[%s]",
			 i == 0		? "" :
			 i + 1 == count ? " or " :
					  ", ",
			 section);
}
