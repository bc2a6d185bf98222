/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Diagnostics about configuration: a list of errors and warnings, each with the
 * file and line it is about. The library never prints; programs print these. */

#include "util.h"

enum diag_level {
	DIAG_WARNING,
	DIAG_ERROR,
	_DIAG_LEVEL_MAX,
	_DIAG_LEVEL_INVALID = -EINVAL,
};

struct diag {
	enum diag_level level;
	char *file;    /* may be NULL for problems not tied to a file */
	unsigned line; /* 0 = the whole file */
	char *msg;
};

struct diag_list {
	struct diag *items;
	size_t n;
};

/* Returns 0 or -ENOMEM. */
int diag_add(struct diag_list *l, enum diag_level level, const char *file, unsigned line,
	     const char *fmt, ...) _printf_(5, 6);
/* Whether l has this very diagnostic (level, file, line and text). */
bool diag_list_has(const struct diag_list *l, enum diag_level level, const char *file,
		   unsigned line, const char *msg) _pure_;
void diag_list_done(struct diag_list *l);
size_t diag_count(const struct diag_list *l, enum diag_level level) _pure_;
/* Errors (and warnings when include_warnings) about one file. */
bool diag_file_has_error(const struct diag_list *l, const char *file) _pure_;
/* "file:line: message" or "file:line: warning: message"; caller frees. */
char *diag_format(const struct diag *d);
/* Moves all items of src to the end of dst; src is left empty. */
int diag_list_move(struct diag_list *dst, struct diag_list *src);
/* Each file's diagnostics together, where the file's first one was, in
 * line order, stably; those about the whole file (line 0) after those with
 * a line. So that a file's problems read top to bottom when rules report
 * after the parser. 0 or -ENOMEM (l unchanged). */
int diag_list_sort_by_line(struct diag_list *l);
