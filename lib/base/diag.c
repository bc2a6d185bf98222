/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <limits.h>
#include <stdarg.h>

#include "diag.h"

bool diag_list_has(const struct diag_list *l, enum diag_level level, const char *file,
		   unsigned line, const char *msg)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->items[i].level == level && l->items[i].line == line &&
		    streq_ptr(l->items[i].file, file) && streq(l->items[i].msg, msg))
			return true;
	return false;
}

int diag_add(struct diag_list *l, enum diag_level level, const char *file, unsigned line,
	     const char *fmt, ...)
{
	_cleanup_free_ char *msg = NULL, *f = NULL;
	struct diag *items;
	va_list ap;

	va_start(ap, fmt);
	msg = strdup_vprintf(fmt, ap);
	va_end(ap);
	if (!msg)
		return -ENOMEM;
	/* The same problem found again (a file selecting several PFs) is one problem. */
	if (diag_list_has(l, level, file, line, msg))
		return 0;
	if (file) {
		f = strdup(file);
		if (!f)
			return -ENOMEM;
	}
	items = realloc(l->items, sizeof(*items) * (l->n + 1));
	if (!items)
		return -ENOMEM;
	l->items = items;
	l->items[l->n++] = (struct diag){
		.level = level,
		.file = TAKE_PTR(f),
		.line = line,
		.msg = TAKE_PTR(msg),
	};
	return 0;
}

void diag_list_done(struct diag_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->items[i].file);
		free(l->items[i].msg);
	}
	free(l->items);
	*l = (struct diag_list){};
}

size_t diag_count(const struct diag_list *l, enum diag_level level)
{
	size_t n = 0;

	for (size_t i = 0; i < l->n; i++)
		if (l->items[i].level == level)
			n++;
	return n;
}

bool diag_file_has_error(const struct diag_list *l, const char *file)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->items[i].level == DIAG_ERROR && streq_ptr(l->items[i].file, file))
			return true;
	return false;
}

char *diag_format(const struct diag *d)
{
	const char *w = d->level == DIAG_WARNING ? "warning: " : "";

	if (!d->file)
		return strdup_printf("%s%s", w, d->msg);
	if (d->line == 0)
		return strdup_printf("%s: %s%s", d->file, w, d->msg);
	return strdup_printf("%s:%u: %s%s", d->file, d->line, w, d->msg);
}

int diag_list_move(struct diag_list *dst, struct diag_list *src)
{
	struct diag *items;

	if (src->n == 0)
		return 0;
	items = realloc(dst->items, sizeof(*items) * (dst->n + src->n));
	if (!items)
		return -ENOMEM;
	memcpy(items + dst->n, src->items, sizeof(*items) * src->n);
	dst->items = items;
	dst->n += src->n;
	free(src->items);
	*src = (struct diag_list){};
	return 0;
}

static unsigned line_key(const struct diag *d)
{
	return d->line ?: UINT_MAX;
}

int diag_list_sort_by_line(struct diag_list *l)
{
	_cleanup_free_ struct diag *items = calloc(l->n ?: 1, sizeof(*items));
	size_t n = 0;

	if (!items)
		return -ENOMEM;
	for (size_t i = 0; i < l->n; i++) {
		size_t start = n;
		bool seen = false;

		for (size_t k = 0; k < i && !seen; k++)
			seen = streq_ptr(l->items[k].file, l->items[i].file);
		if (seen)
			continue;
		/* the file's diagnostics, each put before those of a later line:
		 * an insertion sort, stable, and the lists are short */
		for (size_t k = i; k < l->n; k++) {
			size_t j = n++;

			if (!streq_ptr(l->items[k].file, l->items[i].file)) {
				n--;
				continue;
			}
			for (; j > start && line_key(&l->items[k]) < line_key(&items[j - 1]); j--)
				items[j] = items[j - 1];
			items[j] = l->items[k];
		}
	}
	free(l->items);
	l->items = TAKE_PTR(items);
	return 0;
}
