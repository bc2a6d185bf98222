/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* The policy reader's scalars and diagnostics. */

#include "parse-util.h"
#include "sno-policy-internal.h"
#include "sriov-operator.h"
#include "string-util.h"

unsigned sno_line(const yaml_node_t *n)
{
	return n ? (unsigned)n->start_mark.line + 1 : 0;
}

static int sno_vsay(struct sno_reader *r, enum diag_level level, unsigned line, const char *field,
		    const char *fmt, va_list ap)
{
	_cleanup_free_ char *why = strdup_vprintf(fmt, ap);

	if (!why)
		return -ENOMEM;
	if (level == DIAG_ERROR)
		r->failed = true;
	/* a field not given (line 0): the policy's line */
	return diag_add(r->diags, level, r->source, line ?: (r->p ? r->p->line : 0),
			"policy %s: %s%s%s", strna(r->p ? r->p->name : NULL), strempty(field),
			field ? ": " : "", why);
}

int sno_say(struct sno_reader *r, enum diag_level level, const yaml_node_t *n, const char *field,
	    const char *fmt, ...)
{
	va_list ap;
	int e;

	va_start(ap, fmt);
	e = sno_vsay(r, level, sno_line(n), field, fmt, ap);
	va_end(ap);
	return e;
}

int sno_say_at(struct sno_reader *r, enum diag_level level, unsigned line, const char *field,
	       const char *fmt, ...)
{
	va_list ap;
	int e;

	va_start(ap, fmt);
	e = sno_vsay(r, level, line, field, fmt, ap);
	va_end(ap);
	return e;
}

yaml_node_t *sno_node(struct sno_reader *r, int id)
{
	return yaml_document_get_node(r->doc, id);
}

const char *sno_text(struct sno_reader *r, yaml_node_t *v, const char *field, int *ret)
{
	const char *s = sno_yaml_scalar(v);

	*ret = s ? 0 : sno_say(r, DIAG_ERROR, v, field, "is not a single value");
	return s;
}

int sno_bool(struct sno_reader *r, yaml_node_t *v, const char *field, bool *ret)
{
	int e;
	const char *s = sno_text(r, v, field, &e);

	if (!s)
		return e;
	if (streq(s, "true") || streq(s, "false")) {
		*ret = streq(s, "true");
		return 0;
	}
	return sno_say(r, DIAG_ERROR, v, field, "%s: must be true or false", s);
}

int sno_uint(struct sno_reader *r, yaml_node_t *v, const char *field, unsigned max, unsigned *ret)
{
	uint32_t u;
	int e;
	const char *s = sno_text(r, v, field, &e);

	if (!s)
		return e;
	if (safe_atou32(s, 10, &u) < 0 || u > max)
		return sno_say(r, DIAG_ERROR, v, field, "%s: must be a number 0..%u", s, max);
	*ret = u;
	return 0;
}

/* "eth, ETH, ib, IB": the words of map. */
static char *sno_words(const char *const map[][2])
{
	char *words = strdup("");

	for (size_t i = 0; words && map[i][0]; i++) {
		char *w = strdup_printf("%s%s%s", words, i ? ", " : "", map[i][0]);

		free(words);
		words = w;
	}
	return words;
}

int sno_word(struct sno_reader *r, yaml_node_t *v, const char *field, const char *const map[][2],
	     const char **ret)
{
	int e;
	const char *s = sno_text(r, v, field, &e);

	if (!s)
		return e;
	for (size_t i = 0; map[i][0]; i++)
		if (streq(s, map[i][0])) {
			*ret = map[i][1];
			return 0;
		}
	_cleanup_free_ char *words = sno_words(map);

	if (!words)
		return -ENOMEM;
	return sno_say(r, DIAG_ERROR, v, field, "%s: must be one of %s", s, words);
}

int sno_strings(struct sno_reader *r, yaml_node_t *v, const char *field,
		int (*add)(struct sno_reader *r, yaml_node_t *item, const char *field,
			   const char *s))
{
	int e = 0;

	if (!v || v->type != YAML_SEQUENCE_NODE)
		return sno_say(r, DIAG_ERROR, v, field, "is not a list");
	for (yaml_node_item_t *i = v->data.sequence.items.start;
	     e >= 0 && i < v->data.sequence.items.top; i++) {
		yaml_node_t *item = sno_node(r, *i);
		const char *s = sno_text(r, item, field, &e);

		if (s)
			e = add(r, item, field, s);
	}
	return e;
}
