/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* /etc/default/grub read as the assignments it is meant to hold (its own
 * header: "If you change this file, run 'update-grub'"; GRUB's manual:
 * "normally, it will just be a sequence of 'KEY=value' lines"). Other
 * variables may take anything a line can hold (Debian's GRUB_DISTRIBUTOR is
 * a `command`); the two command line variables only quotes and each other. */

#include "grub-default.h"
#include "string-util.h"

#define LINUX "GRUB_CMDLINE_LINUX"
#define LINUX_DEFAULT "GRUB_CMDLINE_LINUX_DEFAULT"

void grub_default_done(struct grub_default *g)
{
	g->cmdline_linux = mfree(g->cmdline_linux);
	g->cmdline_default = mfree(g->cmdline_default);
}

/* A copy of s, or NULL for NULL; false when out of memory. */
static bool copy_null(const char *s, char **ret)
{
	*ret = s ? strdup(s) : NULL;
	return !s || *ret;
}

static bool name_char(char c, bool first)
{
	return c == '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
	       (!first && c >= '0' && c <= '9');
}

static size_t name_len(const char *p)
{
	size_t n = 0;

	while (name_char(p[n], n == 0))
		n++;
	return n;
}

/* Past the quote that closes the one at p, or NULL when the line ends first. */
static const char *skip_quoted(const char *p)
{
	char q = *p++;

	if (q == '\'')
		return (p = strchr(p, '\'')) ? p + 1 : NULL;
	for (; *p != q; p++) {
		if (!*p)
			return NULL;
		if (*p == '\\' && p[1])
			p++;
	}
	return p + 1;
}

/* The end of the shell word at p: quotes, backquotes and $( ) closed on
 * this line; NULL when they are not, or the line goes on after a backslash. */
static const char *word_end(const char *p)
{
	int depth = 0;

	while (*p) {
		if (*p == '\'' || *p == '"' || *p == '`') {
			if (!(p = skip_quoted(p)))
				return NULL;
			continue;
		}
		if (*p == '\\') {
			if (!p[1])
				return NULL;
			p += 2;
			continue;
		}
		if (*p == '(')
			depth++;
		else if (*p == ')' && --depth < 0)
			return NULL;
		else if (depth == 0 && strchr(" \t;&|<>", *p))
			break;
		p++;
	}
	return depth == 0 ? p : NULL;
}

/* $NAME or ${NAME} at p, one of the two variables: its value (unset: ""),
 * and p past it; NULL when it is anything else. */
static const char *var_ref(const struct grub_default *g, const char **p)
{
	const char *s = *p + 1;
	bool brace = *s == '{';
	size_t n = name_len(s + brace);
	const char *v;

	if (n == strlen(LINUX) && strncmp(s + brace, LINUX, n) == 0)
		v = g->cmdline_linux;
	else if (n == strlen(LINUX_DEFAULT) && strncmp(s + brace, LINUX_DEFAULT, n) == 0)
		v = g->cmdline_default;
	else
		return NULL;
	if (brace && s[1 + n] != '}')
		return NULL;
	*p = s + brace + n + brace;
	return v ?: "";
}

static int append(char **buf, const char *s, size_t n)
{
	char *r = strdup_printf("%s%.*s", *buf ?: "", (int)n, s);

	if (!r)
		return -ENOMEM;
	free(*buf);
	*buf = r;
	return 0;
}

/* The value of the word [p, end) as sh assigns it; -EBADMSG when only a
 * shell could tell it (a command, another variable, a glob, ~). */
static int expand(const struct grub_default *g, const char *p, const char *end, char **ret)
{
	_cleanup_free_ char *v = strdup("");
	char quote = 0;
	int r = 0;

	while (v && p < end && r >= 0) {
		const char *ref;

		if (quote != '\'' && *p == '$') {
			if (!(ref = var_ref(g, &p)))
				return -EBADMSG;
			r = append(&v, ref, strlen(ref));
		} else if (quote == '\'' ? *p == '\'' : *p == '\'' || *p == '"') {
			quote = quote ? 0 : *p;
			p++;
		} else if (quote != '\'' && *p == '\\') {
			/* within "", a backslash quotes only $ ` " \ */
			if (quote && !strchr("$`\"\\", p[1]))
				r = append(&v, p, 1);
			if (r >= 0)
				r = append(&v, p + 1, 1);
			p += 2;
		} else if (!quote && strchr("`()*?[~", *p))
			return -EBADMSG;
		else if (quote == '"' && *p == '`')
			return -EBADMSG;
		else
			r = append(&v, p++, 1);
	}
	if (!v || r < 0)
		return -ENOMEM;
	*ret = TAKE_PTR(v);
	return 0;
}

static int fail(char **ret_why, const char *what, const char *arg)
{
	*ret_why = strdup_printf("%s (\"%s\")", what, arg);
	return *ret_why ? -EBADMSG : -ENOMEM;
}

static int feed_line(struct grub_default *g, const char *line, char **ret_why)
{
	const char *p = line + strspn(line, " \t"), *end, *at;
	_cleanup_free_ char *value = NULL;
	char **var;
	size_t n;
	int r;

	if (!*p || *p == '#')
		return 0;
	if (startswith(p, "export") && (p[6] == ' ' || p[6] == '\t'))
		p += 6 + strspn(p + 6, " \t");
	n = name_len(p);
	if (n == 0 || p[n] != '=')
		return fail(ret_why, "not a plain assignment: only a shell can tell what it does",
			    p);
	end = word_end(p + n + 1);
	if (!end)
		return fail(ret_why, "a value that does not end on its line", p);
	if (*(at = end + strspn(end, " \t")) && *at != '#')
		return fail(ret_why, "more than an assignment on the line", p);
	if (n == strlen(LINUX) && strncmp(p, LINUX, n) == 0)
		var = &g->cmdline_linux;
	else if (n == strlen(LINUX_DEFAULT) && strncmp(p, LINUX_DEFAULT, n) == 0)
		var = &g->cmdline_default;
	else if (memmem(p + n + 1, end - (p + n + 1), LINUX, strlen(LINUX)))
		/* ${GRUB_CMDLINE_LINUX:=...} assigns it from another's value */
		return fail(ret_why, "names " LINUX " in another variable's value", p);
	else
		return 0; /* another variable: its value is not ours to know */
	r = expand(g, p + n + 1, end, &value);
	if (r == -EBADMSG) {
		*ret_why =
			strdup_printf("%.*s: only a shell can tell its value", (int)(end - p), p);
		return *ret_why ? r : -ENOMEM;
	}
	if (r < 0)
		return r;
	free(*var);
	*var = TAKE_PTR(value);
	return 0;
}

int grub_default_feed(struct grub_default *g, const char *text, unsigned *ret_line, char **ret_why)
{
	_cleanup_free_ char *copy = strdup(text);
	struct grub_default work = {};
	unsigned line = 0;
	char *p = copy, *l;
	int r = 0;

	if (!copy || !copy_null(g->cmdline_linux, &work.cmdline_linux) ||
	    !copy_null(g->cmdline_default, &work.cmdline_default)) {
		grub_default_done(&work);
		return -ENOMEM;
	}
	*ret_why = NULL;
	while (r >= 0 && (l = strsep(&p, "\n"))) {
		line++;
		r = feed_line(&work, l, ret_why);
	}
	if (r < 0) {
		grub_default_done(&work);
		*ret_line = line;
		return r;
	}
	grub_default_done(g);
	*g = work;
	return 0;
}

char *grub_default_cmdline(const struct grub_default *g)
{
	return strdup_printf("%s %s", strempty(g->cmdline_linux), strempty(g->cmdline_default));
}
