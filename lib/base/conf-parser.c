/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <ctype.h>
#include <fcntl.h>
#include <ini.h>
#include <sys/stat.h>

#include "conf-parser.h"

/* inih sees one line at a time through conf_reader(), which counts lines,
 * reports what inih would accept but we do not ("Key: value", overlong
 * lines, text after a section's ']') and hands inih an empty line instead.
 * Section headers are announced from the reader, so callers see sections
 * that have no keys and know the line of each assignment. */
struct conf_parse_ctx {
	const char *path;
	const char *p; /* the next unread byte of the text */
	unsigned line;
	const struct conf_parser_ops *ops;
	void *userdata;
	struct diag_list *diags;
	int r; /* the first failure of a callback or of diag_add() */
};

#define INIH_BUFFER 4096

static void conf_configure_inih(void)
{
	ini_allow_multiline = false;
	ini_allow_inline_comments = false;
	ini_start_comment_prefixes = (char *)"#;";
	ini_allow_bom = true;
	ini_allow_no_value = false;
	ini_stop_on_first_error = false;
	ini_use_stack = false;
	ini_allow_realloc = false;
	/* Without realloc, Debian's inih sizes its heap line buffer from
	 * ini_initial_alloc, not from ini_max_line. */
	ini_initial_alloc = INIH_BUFFER;
	ini_max_line = INIH_BUFFER;
}

static void conf_note(struct conf_parse_ctx *c, int r)
{
	if (r < 0 && c->r == 0)
		c->r = r;
}

static bool conf_section_name_ok(const char *name, size_t n)
{
	return !memchr(name, '[', n) && !memchr(name, ']', n);
}

/* The length of "[Name]" in s when a comment follows it ("[Match] # ports"),
 * else 0. */
static size_t conf_header_before_comment(const char *s)
{
	const char *end = strchr(s, ']'), *p;

	if (!end || !conf_section_name_ok(s + 1, (size_t)(end - s - 1)))
		return 0;
	for (p = end + 1; *p == ' ' || *p == '\t'; p++)
		;
	return *p == '#' || *p == ';' ? (size_t)(end - s + 1) : 0;
}

/* s: the line without leading whitespace, starting with '['. */
static bool conf_check_section(struct conf_parse_ctx *c, const char *s)
{
	_cleanup_free_ char *name = NULL;
	size_t n = strlen(s), h = conf_header_before_comment(s);

	while (n > 0 && isspace((unsigned char)s[n - 1]))
		n--;
	if (h > 0) {
		/* reported, and the lines below are read as under [Name] so
		 * that their errors are reported too */
		conf_note(c, diag_add(c->diags, DIAG_ERROR, c->path, c->line,
				      "'%.*s': a comment after a section header is not allowed; "
				      "comments are whole lines starting with '#' or ';'",
				      (int)n, s));
		n = h;
	} else if (n < 2 || s[n - 1] != ']' || !conf_section_name_ok(s + 1, n - 2)) {
		conf_note(c, diag_add(c->diags, DIAG_ERROR, c->path, c->line,
				      "invalid section header '%.*s': must be [Name]", (int)n, s));
		/* Keys that follow belong to no section we know of. */
		conf_note(c, c->ops->section(c->userdata, NULL, c->line));
		return false;
	}
	name = strndup(s + 1, n - 2);
	if (!name) {
		conf_note(c, -ENOMEM);
		return false;
	}
	conf_note(c, c->ops->section(c->userdata, name, c->line));
	return true;
}

/* s: the line without leading whitespace, not a comment or a header. */
static bool conf_check_assignment(struct conf_parse_ctx *c, const char *s)
{
	const char *eq = strchr(s, '='), *colon = strchr(s, ':');
	size_t n = strcspn(s, "\r\n");
	const char *why = NULL;

	if (colon && (!eq || colon < eq))
		why = "must be Key=value (not Key: value)";
	else if (!eq)
		why = "not a Key=value line";
	else if (eq == s)
		why = "missing key name before '='";
	if (!why)
		return true;
	while (n > 0 && isspace((unsigned char)s[n - 1]))
		n--;
	conf_note(c,
		  diag_add(c->diags, DIAG_ERROR, c->path, c->line, "'%.*s': %s", (int)n, s, why));
	return false;
}

static bool conf_check_line(struct conf_parse_ctx *c, const char *line)
{
	const char *s = line;

	if (c->line == 1 && strncmp(s, "\xEF\xBB\xBF", 3) == 0)
		s += 3;
	while (isspace((unsigned char)*s))
		s++;
	if (*s == '\0' || *s == '#' || *s == ';')
		return true;
	if (*s == '[')
		return conf_check_section(c, s);
	return conf_check_assignment(c, s);
}

static char *conf_reader(char *buf, int num, void *stream)
{
	struct conf_parse_ctx *c = stream;
	size_t len, n;

	if (c->r < 0 || *c->p == '\0' || num < 2)
		return NULL;
	len = strcspn(c->p, "\n");
	n = len + (c->p[len] == '\n');
	if (len > 0 && c->p[len - 1] == '\r')
		len--;
	c->line++;
	if (len > CONF_LINE_MAX || n + 1 > (size_t)num) {
		conf_note(c, diag_add(c->diags, DIAG_ERROR, c->path, c->line,
				      "line too long (more than %d bytes)", CONF_LINE_MAX));
		buf[0] = '\0';
	} else {
		memcpy(buf, c->p, n);
		buf[n] = '\0';
		if (!conf_check_line(c, buf))
			buf[0] = '\0';
	}
	c->p += n;
	return buf;
}

static int conf_handler(void *user, const char *section, const char *name, const char *value)
{
	struct conf_parse_ctx *c = user;

	if (c->r == 0)
		conf_note(c, c->ops->assignment(c->userdata, name, value, c->line));
	return 1;
}

static bool conf_reported(const struct diag_list *diags, const char *path, unsigned line)
{
	for (size_t i = 0; i < diags->n; i++)
		if (diags->items[i].level == DIAG_ERROR && diags->items[i].line == line &&
		    streq_ptr(diags->items[i].file, path))
			return true;
	return false;
}

int conf_parse_text(const char *path, const char *text, const struct conf_parser_ops *ops,
		    void *userdata, struct diag_list *diags)
{
	struct conf_parse_ctx c = {
		.path = path,
		.p = text,
		.ops = ops,
		.userdata = userdata,
		.diags = diags,
	};
	int r;

	conf_configure_inih();
	r = ini_parse_stream(conf_reader, &c, conf_handler, &c);
	if (c.r < 0)
		return c.r;
	if (r == -2)
		return -ENOMEM;
	if (r < 0)
		return -EIO;
	/* The reader hides every line it rejects from inih, so this is a
	 * line inih refused for a reason of its own. */
	if (r > 0 && !conf_reported(diags, path, (unsigned)r))
		return diag_add(diags, DIAG_ERROR, path, (unsigned)r, "syntax error");
	return 0;
}

static int conf_read_fd(int fd, char **ret_text)
{
	_cleanup_free_ char *buf = NULL;
	size_t size;
	int r;

	r = read_fd(fd, CONF_FILE_MAX, &buf, &size);
	if (r < 0)
		return r;
	if (memchr(buf, '\0', size))
		return -EBADMSG;
	*ret_text = TAKE_PTR(buf);
	return 0;
}

int conf_read_file(const char *path, char **ret_text)
{
	_cleanup_close_ int fd = open_regular_at(AT_FDCWD, path, NULL);

	if (fd < 0)
		return fd;
	return conf_read_fd(fd, ret_text);
}

int conf_read_trusted_file(const char *path, char **ret_text,
			   char ret_unsafe[static CONF_UNSAFE_MAX])
{
	struct stat st;
	_cleanup_close_ int fd = open_regular_at(AT_FDCWD, path, &st);

	if (fd < 0)
		return fd;
	if (conf_stat_unsafe(&st, geteuid(), ret_unsafe))
		return -EPERM;
	return conf_read_fd(fd, ret_text);
}

const char *conf_read_strerror(int r)
{
	if (r == -EBADMSG)
		return "contains a NUL byte, not a text file";
	if (r == -EFBIG)
		return "larger than 4 MiB";
	return read_strerror(r);
}

/* The first " #" or " ;" (a blank before it) of value, or NULL. */
static const char *inline_comment(const char *value)
{
	for (const char *p = value; *p; p++)
		if ((*p == '#' || *p == ';') && p > value && (p[-1] == ' ' || p[-1] == '\t'))
			return p;
	return NULL;
}

char *conf_value_error(const char *key, const char *value, const char *why)
{
	const char *c = inline_comment(value);

	if (c)
		return strdup_printf("%s=%s: a '%c' after a value is part of the value; comments "
				     "are whole lines starting with '#' or ';' (the value %s)",
				     key, value, *c, why);
	return strdup_printf("%s=%s: %s", key, value, why);
}
