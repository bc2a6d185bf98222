/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* Where the rules of layout-rules.c say what they found: one error per
 * file:line (and one more there about several VFs together), the first
 * kept as the reason a PF is held; and how a message names the other
 * places it rests on. */

#include <stdarg.h>

#include "layout-rules.h"

bool rules_said_at(const struct rules_out *o, const char *file, unsigned line)
{
	for (size_t i = 0; i < o->n_errors; i++)
		if (streq_ptr(o->reported[i].file, file) && o->reported[i].line == line &&
		    !o->reported[i].together)
			return true;
	return false;
}

static int rules_verror(struct rules_out *o, bool together, const char *file, unsigned line,
			const char *fmt, va_list ap)
{
	_cleanup_free_ char *msg = NULL;
	struct rules_reported *reported;
	int r;

	for (size_t i = 0; i < o->n_errors; i++)
		if (streq_ptr(o->reported[i].file, file) && o->reported[i].line == line &&
		    o->reported[i].together == together)
			return 0;
	msg = strdup_vprintf(fmt, ap);
	if (!msg)
		return -ENOMEM;
	if (o->known && diag_list_has(o->known, DIAG_ERROR, file, line, msg))
		return 0;
	reported = realloc(o->reported, sizeof(*reported) * (o->n_errors + 1));
	if (!reported)
		return -ENOMEM;
	o->reported = reported;
	/* diag_add() drops the same text reported before (for another PF);
	 * it still counts here */
	r = diag_add(o->diags, DIAG_ERROR, file, line, "%s", msg);
	if (r < 0)
		return r;
	o->reported[o->n_errors++] =
		(struct rules_reported){ .file = file, .line = line, .together = together };
	if (!o->first) {
		struct diag d = {
			.level = DIAG_ERROR, .file = (char *)file, .line = line, .msg = msg
		};

		o->first = diag_format(&d);
		if (!o->first)
			return -ENOMEM;
	}
	return 0;
}

int rules_error(struct rules_out *o, const char *file, unsigned line, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = rules_verror(o, false, file, line, fmt, ap);
	va_end(ap);
	return r;
}

int rules_error_together(struct rules_out *o, const char *file, unsigned line, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = rules_verror(o, true, file, line, fmt, ap);
	va_end(ap);
	return r;
}

void rules_out_done(struct rules_out *o)
{
	o->first = mfree(o->first);
	o->reported = mfree(o->reported);
	o->n_errors = 0;
}

const char *rules_elsewhere(const char *here, const struct src *there, const char *key,
			    const char *value, char buf[static 256])
{
	buf[0] = '\0';
	if (there->line == 0 || !there->file || streq_ptr(here, there->file))
		return buf;
	if (key)
		snprintf(buf, 256, " (%s=%s at %s:%u)", key, value, there->file, there->line);
	else
		snprintf(buf, 256, " (%s:%u)", there->file, there->line);
	return buf;
}

static bool in_group(const struct rules_out *o, const struct layout_file *f)
{
	for (size_t i = 0; i < o->n_group; i++)
		if (o->group[i] == f)
			return true;
	return false;
}

/* Whether a file outside the group comes after file in the set: one that
 * may change a value file sets (-1: file is not in the set). */
static int later_outside(const struct rules_out *o, const char *file)
{
	size_t i = 0;

	while (i < o->n_set && !(o->set[i] && streq_ptr(o->set[i]->path, file)))
		i++;
	if (i == o->n_set)
		return -1;
	for (i++; i < o->n_set; i++)
		if (o->set[i] && !o->set[i]->masked && !in_group(o, o->set[i]))
			return 1;
	return 0;
}

const char *rules_open(const struct rules_out *o, const char *key, const struct src *at,
		       char buf[static 64])
{
	int later = at && at->line > 0 && at->file ? later_outside(o, at->file) : -1;

	buf[0] = '\0';
	if (o->open && later != 0)
		snprintf(buf, 64, " (on every PF where no %s file sets %s=)",
			 later > 0 ? "later" : "other", key);
	return buf;
}

const char *rules_at(const char *here, const struct src *there, char buf[static 256])
{
	if (there->line > 0 && there->file && streq_ptr(here, there->file))
		snprintf(buf, 256, " (line %u)", there->line);
	else
		rules_elsewhere(here, there, NULL, NULL, buf);
	return buf;
}
