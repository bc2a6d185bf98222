/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* mstconfig's query table, line by line. mstflint 4.21 (Debian 12) and
 * 4.31 lay it out with other widths (tests/fixtures/mstconfig/NOTES.md),
 * so a row is read as tokens, not columns: an optional '*' (next value
 * differs), an optional "RO" (4.31), the name, and three values (Default,
 * Current, Next Boot), each "N/A", a number, "Array[a..b]" or "LABEL(n)".
 * 4.21 runs a 16-character value into the next one, so values are read one
 * token at a time. Anything else in the text is an error: the caller then
 * trusts nothing of it. */

#include <ctype.h>

#include "mstconfig.h"

static const char *const header_prefixes[] = {
	"Device #", "----------", "Device type:", "Name:", "Description:", "Device:",
};

/* The parameters the backend uses; every other row is only checked. */
static bool wanted(const char *name)
{
	return streq(name, "SRIOV_EN") || streq(name, "NUM_OF_VFS") ||
	       (startswith(name, "LINK_TYPE_P") && strlen(name) == 12 && isdigit(name[11]));
}

static const char *skip_spaces(const char *p)
{
	while (*p == ' ')
		p++;
	return p;
}

#define DIGITS "0123456789"
#define WORD "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_"

/* One value at p; its length, or 0 when p holds none. *ret_num is set for
 * a number or LABEL(n), and *ret_has says so. */
static size_t value_token(const char *p, uint32_t *ret_num, bool *ret_has)
{
	size_t n, d;

	*ret_has = false;
	if (startswith(p, "N/A"))
		return 3;
	if (startswith(p, "Array[")) {
		n = 6 + strspn(p + 6, DIGITS);
		if (n == 6 || !startswith(p + n, ".."))
			return 0;
		d = strspn(p + n + 2, DIGITS);
		if (d == 0 || p[n + 2 + d] != ']')
			return 0;
		return n + 2 + d + 1;
	}
	n = strspn(p, WORD);
	if (n == 0)
		return 0;
	if (p[n] == '(') {
		d = strspn(p + n + 1, DIGITS);
		if (d == 0 || d > 9 || p[n + 1 + d] != ')')
			return 0;
		*ret_num = (uint32_t)strtoul(p + n + 1, NULL, 10);
		*ret_has = true;
		return n + 1 + d + 1;
	}
	if (strspn(p, DIGITS) != n || n > 9)
		return 0;
	*ret_num = (uint32_t)strtoul(p, NULL, 10);
	*ret_has = true;
	return n;
}

static int row(const char *line, struct mst_config *c, char **ret_why)
{
	const char *p = line + 1;
	uint32_t v[3] = {};
	bool has[3];
	char name[MST_NAME_MAX];
	size_t n;

	if (line[0] != '*' && line[0] != ' ')
		goto bad;
	if (startswith(p, "RO"))
		p += 2;
	p = skip_spaces(p);
	n = strspn(p, WORD "[]");
	if (n == 0 || n >= sizeof(name) || p == line + 1)
		goto bad;
	snprintf(name, sizeof(name), "%.*s", (int)n, p);
	p += n;
	if (*p != ' ')
		goto bad;
	for (size_t i = 0; i < 3; i++) {
		p = skip_spaces(p);
		n = value_token(p, &v[i], &has[i]);
		if (n == 0)
			goto bad;
		p += n;
	}
	if (*skip_spaces(p) != '\0')
		goto bad;
	if (!wanted(name))
		return 0;
	if (!has[2] || !has[1])
		return (*ret_why = strdup_printf("%s has no number: \"%s\"", name, line)) ?
			       -EINVAL :
			       -ENOMEM;
	if (mst_config_get(c, name, &v[0]))
		return (*ret_why = strdup_printf("%s twice", name)) ? -EINVAL : -ENOMEM;
	if (c->n == ELEMENTSOF(c->params))
		return (*ret_why = strdup("too many parameters")) ? -EINVAL : -ENOMEM;
	snprintf(c->params[c->n].name, MST_NAME_MAX, "%s", name);
	c->params[c->n++].next = v[2];
	return 0;
bad:
	return (*ret_why = strdup_printf("not a parameter row: \"%s\"", line)) ? -EINVAL : -ENOMEM;
}

static bool header_line(const char *line)
{
	if (*line == '\0')
		return true;
	for (size_t i = 0; i < ELEMENTSOF(header_prefixes); i++)
		if (startswith(line, header_prefixes[i]))
			return true;
	return false;
}

static bool columns_line(const char *line)
{
	return startswith(line, "Configurations:") && strstr(line, "Default") &&
	       strstr(line, "Current") && strstr(line, "Next Boot");
}

static bool footer_line(const char *line)
{
	return *line == '\0' || startswith(line, "The '*' shows ") ||
	       startswith(line, "The 'RO' shows ");
}

enum query_part {
	QUERY_HEADER,
	QUERY_TABLE,
	QUERY_FOOTER,
};

/* One line of the query's output, in the part *at of it: 0, -EBADMSG for a
 * line that has no place there, or a row's error. */
static int query_line(const char *line, enum query_part *at, struct mst_config *c, size_t *rows,
		      char **ret_why)
{
	int r;

	if (*at == QUERY_HEADER && columns_line(line)) {
		*at = QUERY_TABLE;
		return 0;
	}
	if (*at == QUERY_HEADER)
		return header_line(line) ? 0 : -EBADMSG;
	if (*at == QUERY_TABLE && (*line == '*' || *line == ' ')) {
		r = row(line, c, ret_why);
		if (r >= 0)
			(*rows)++;
		return r;
	}
	*at = QUERY_FOOTER;
	return footer_line(line) ? 0 : -EBADMSG;
}

int mstconfig_parse_query(const char *text, struct mst_config *ret, char **ret_why)
{
	_cleanup_free_ char *copy = strdup(text);
	struct mst_config c = {};
	enum query_part at = QUERY_HEADER;
	size_t rows = 0;
	char *line, *save = NULL;
	int r;

	if (!copy)
		return -ENOMEM;
	/* strtok_r would merge empty lines: walk them one by one */
	for (line = copy; line; line = save) {
		char *nl = strchr(line, '\n');

		save = nl ? nl + 1 : NULL;
		if (nl)
			*nl = '\0';
		if (!nl && *line == '\0')
			break;
		r = query_line(line, &at, &c, &rows, ret_why);
		if (r == -EBADMSG)
			return (*ret_why = strdup_printf("unexpected line: \"%s\"", line)) ?
				       -EINVAL :
				       -ENOMEM;
		if (r < 0)
			return r;
	}
	if (rows == 0)
		return (*ret_why = strdup("no parameter table")) ? -EINVAL : -ENOMEM;
	*ret = c;
	return 0;
}

bool mst_config_get(const struct mst_config *c, const char *name, uint32_t *ret_next)
{
	for (size_t i = 0; i < c->n; i++)
		if (streq(c->params[i].name, name)) {
			*ret_next = c->params[i].next;
			return true;
		}
	return false;
}

bool mstconfig_set_done(const char *out)
{
	for (const char *p = out; p; p = strchr(p, '\n')) {
		if (*p == '\n')
			p++;
		if (startswith(p, "Applying... Done!"))
			return true;
	}
	return false;
}

/* The first line of text that starts with prefix (NULL for any non-empty
 * line: the last one), without its newline. */
static char *find_line(const char *text, const char *prefix)
{
	const char *found = NULL;
	size_t found_len = 0;

	for (const char *p = text; p && *p;) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);

		if (prefix ? startswith(p, prefix) : len > 0) {
			found = p;
			found_len = len;
			if (prefix)
				break;
		}
		p = nl ? nl + 1 : NULL;
	}
	if (!found)
		return NULL;
	return strndup(found, found_len > 200 ? 200 : found_len);
}

char *mstconfig_error_line(const char *out, const char *err)
{
	char *s;

	if ((s = find_line(out, "-E- ")) || (s = find_line(err, "-E- ")) ||
	    (s = find_line(err, NULL)) || (s = find_line(out, NULL)))
		return s;
	return strdup("no message");
}
