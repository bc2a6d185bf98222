/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The INI syntax that layout files and the main configuration share, driven
 * through inih: whole-line comments (# or ;), "[Section]" headers, Key=value
 * lines, no inline comments, no continuation lines, no "Key: value", lines of
 * at most CONF_LINE_MAX bytes. Syntax errors go to a diag_list with file:line;
 * what a section or a key means is the caller's business. Not thread-safe:
 * inih is configured through process-wide variables. */

#include "conf-files.h"
#include "diag.h"

#define CONF_LINE_MAX 4000
#define CONF_FILE_MAX (4u * 1024 * 1024)

struct conf_parser_ops {
	/* A "[name]" header: name is what stands between the brackets. */
	int (*section)(void *userdata, const char *name, unsigned line);
	/* A Key=value line; key and value are trimmed, value may be empty. */
	int (*assignment)(void *userdata, const char *key, const char *value, unsigned line);
};

/* Calls ops for every header and assignment of text, in order. Callbacks
 * return 0 or a negative errno; a negative errno ends the parse and is
 * returned. Syntax errors are reported to diags as DIAG_ERROR. Returns 0 or
 * -ENOMEM (or a callback's error). */
int conf_parse_text(const char *path, const char *text, const struct conf_parser_ops *ops,
		    void *userdata, struct diag_list *diags);

/* The message for a value that was rejected: "Key=value: why"; when the
 * value holds " #" or " ;", which a reader takes for a comment, it says
 * that this is the cause. NULL on allocation failure. */
char *conf_value_error(const char *key, const char *value, const char *why);

/* Reads a whole text file (at most CONF_FILE_MAX bytes). -EBADMSG when it
 * holds a NUL byte, -EFBIG when it is too large, -errno otherwise. */
int conf_read_file(const char *path, char **ret_text);
/* conf_read_file() of a file the programs act on (layouts, the main
 * configuration): one that conf_stat_unsafe() refuses, judged on the opened
 * descriptor, is -EPERM, and ret_unsafe says why. */
int conf_read_trusted_file(const char *path, char **ret_text,
			   char ret_unsafe[static CONF_UNSAFE_MAX]);
/* strerror() that also explains conf_read_file()'s own errors. */
const char *conf_read_strerror(int r);
