/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* mstfwreset's query, line by line. mstflint 4.21 (Debian 12) and 4.31 print
 * every row of it with one format, "N: <description padded to 62>-<status
 * padded to 14><(default) or nothing>", under a section heading; 4.31 adds
 * levels, types and, for newer firmware, other sections
 * (tests/fixtures/mlxfwreset/NOTES.md). Only the rows of "Reset-levels:"
 * are kept; every other line must still be one the tool prints, or the
 * caller trusts nothing of the text. */

#include <ctype.h>

#include "mlxfwreset.h"

#define ROW_DASH 65 /* "N: " and the description padded to 62 */
#define ROW_STATUS_WIDTH 14
#define LEVEL_PCI_RESET_TEXT "Driver restart and PCI reset"

enum section {
	SECTION_NONE,
	SECTION_LEVELS,
	SECTION_OTHER,
};

static const struct {
	const char *heading;
	enum section section;
} headings[] = {
	{ "Reset-levels:", SECTION_LEVELS },
	{ "Reset-sync (relevant only for reset-level 3):", SECTION_OTHER },
	{ "Reset sync (relevant only for reset-level 3):", SECTION_OTHER },
	{ "Reset request method (relevant only for reset-level 3):", SECTION_OTHER },
};

#define TYPES_HEADING "Reset-types (relevant only for reset-levels "

/* Lines of 4.31's last section (the MRSI register), a label and a value. */
static const char *const info_prefixes[] = {
	"Reset-reason: ",
	"Timestamp (number of clock cycles) since last cold reset: ",
};

static const char *const statuses[] = { "Supported", "Not Supported", "Not supported" };

static bool heading(const char *line, enum section *ret)
{
	const char *p;
	size_t n;

	for (size_t i = 0; i < ELEMENTSOF(headings); i++)
		if (streq(line, headings[i].heading)) {
			*ret = headings[i].section;
			return true;
		}
	if (!startswith(line, TYPES_HEADING))
		return false;
	p = line + strlen(TYPES_HEADING);
	n = strspn(p, "0123456789,");
	if (n == 0 || !streq(p + n, "):"))
		return false;
	*ret = SECTION_OTHER;
	return true;
}

struct row {
	unsigned number;
	char description[ROW_DASH];
	bool supported;
	bool is_default;
};

static bool row_status(const char *s, struct row *ret)
{
	char field[ROW_STATUS_WIDTH + 1];
	size_t n;

	/* the tool pads the status to 14 whether "(default)" follows or not */
	if (strlen(s) < ROW_STATUS_WIDTH)
		return false;
	if (!streq(s + ROW_STATUS_WIDTH, "") && !streq(s + ROW_STATUS_WIDTH, "(default)"))
		return false;
	memcpy(field, s, ROW_STATUS_WIDTH);
	for (n = ROW_STATUS_WIDTH; n > 0 && field[n - 1] == ' '; n--)
		;
	field[n] = '\0';
	for (size_t i = 0; i < ELEMENTSOF(statuses); i++)
		if (streq(field, statuses[i])) {
			ret->supported = i == 0;
			ret->is_default = s[ROW_STATUS_WIDTH] != '\0';
			return true;
		}
	return false;
}

static bool row(const char *line, struct row *ret)
{
	size_t n;

	if (!isdigit((unsigned char)line[0]) || !startswith(line + 1, ": ") || line[3] == ' ' ||
	    strnlen(line, ROW_DASH + 1) <= ROW_DASH || line[ROW_DASH] != '-')
		return false;
	for (n = ROW_DASH; n > 3 && line[n - 1] == ' '; n--)
		;
	ret->number = (unsigned)(line[0] - '0');
	snprintf(ret->description, sizeof(ret->description), "%.*s", (int)(n - 3), line + 3);
	return row_status(line + ROW_DASH + 1, ret);
}

static int level_row(const struct row *w, struct mlxfwreset_query *q, char **ret_why)
{
	if (w->number >= MLXFWRESET_LEVELS || (q->listed & (1u << w->number)))
		return (*ret_why = strdup_printf("reset level %u listed twice", w->number)) ?
			       -EINVAL :
			       -ENOMEM;
	if (w->number == MLXFWRESET_LEVEL_PCI_RESET && !streq(w->description, LEVEL_PCI_RESET_TEXT))
		return (*ret_why = strdup_printf(
				"reset level 3 is \"%s\", not \"" LEVEL_PCI_RESET_TEXT "\"",
				w->description)) ?
			       -EINVAL :
			       -ENOMEM;
	if (w->is_default && q->default_level >= 0)
		return (*ret_why = strdup("two default reset levels")) ? -EINVAL : -ENOMEM;
	q->listed |= 1u << w->number;
	if (w->supported)
		q->supported |= 1u << w->number;
	if (w->is_default)
		q->default_level = (int)w->number;
	return 0;
}

static bool info_line(const char *line)
{
	for (size_t i = 0; i < ELEMENTSOF(info_prefixes); i++)
		if (startswith(line, info_prefixes[i]))
			return true;
	return false;
}

/* One line in section *at: 0, -EBADMSG for a line that has no place there,
 * or a level row's error. An empty line ends a section. */
static int query_line(const char *line, enum section *at, struct mlxfwreset_query *q,
		      char **ret_why)
{
	struct row w;

	if (*line == '\0') {
		*at = SECTION_NONE;
		return 0;
	}
	if (*at == SECTION_NONE && heading(line, at))
		return 0;
	if (*at == SECTION_NONE)
		return info_line(line) ? 0 : -EBADMSG;
	if (!row(line, &w))
		return -EBADMSG;
	return *at == SECTION_LEVELS ? level_row(&w, q, ret_why) : 0;
}

int mlxfwreset_parse_query(const char *text, struct mlxfwreset_query *ret, char **ret_why)
{
	_cleanup_free_ char *copy = strdup(text);
	struct mlxfwreset_query q = { .default_level = -1 };
	enum section at = SECTION_NONE;
	char *line, *next;
	int r;

	if (!copy)
		return -ENOMEM;
	/* strtok_r would merge empty lines, which end sections: walk them one by one */
	for (line = copy; line && *line; line = next) {
		char *nl = strchr(line, '\n');

		next = nl ? nl + 1 : NULL;
		if (nl)
			*nl = '\0';
		r = query_line(line, &at, &q, ret_why);
		if (r == -EBADMSG)
			return (*ret_why = strdup_printf("unexpected line: \"%.200s\"", line)) ?
				       -EINVAL :
				       -ENOMEM;
		if (r < 0)
			return r;
	}
	if (q.listed == 0)
		return (*ret_why = strdup("no reset levels")) ? -EINVAL : -ENOMEM;
	*ret = q;
	return 0;
}

bool mlxfwreset_level_supported(const struct mlxfwreset_query *q, unsigned level)
{
	return level < MLXFWRESET_LEVELS && (q->supported & (1u << level));
}

bool mlxfwreset_reset_done(const char *out)
{
	static const char done[] = "-I- FW was loaded successfully.";
	const char *last = NULL;
	size_t last_len = 0;

	for (const char *p = out; p && *p;) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);

		if (startswith(p, "-E- "))
			return false;
		if (len > 0) {
			last = p;
			last_len = len;
		}
		p = nl ? nl + 1 : NULL;
	}
	return last && last_len == strlen(done) && startswith(last, done);
}
