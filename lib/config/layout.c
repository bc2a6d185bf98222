/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* One layout file → struct layout_file: inih calls layout-sections.c for
 * each header and layout-keys.c for each key; what is said once the whole
 * file is read ([Match] missing or empty) is said here. */

#include <strings.h>

#include "conf-parser.h"
#include "layout-internal.h"
#include "mainconf.h"

static void layout_file_freep(struct layout_file **f)
{
	layout_file_free(*f);
}

struct layout_file *layout_file_free(struct layout_file *f)
{
	if (!f)
		return NULL;
	for (size_t i = 0; i < f->n_vf_sections; i++)
		vf_settings_done(&f->vf_sections[i].settings);
	free(f->vf_sections);
	layout_match_done(&f->match);
	layout_declare_done(&f->declare);
	free(f->path);
	free(f);
	return NULL;
}

static struct layout_file *layout_file_new(const char *path)
{
	struct layout_file *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	if (path) {
		f->path = strdup(path);
		if (!f->path)
			return layout_file_free(f);
	}
	return f;
}

static const struct conf_parser_ops layout_ops = {
	.section = layout_on_section,
	.assignment = layout_on_assignment,
};

/* A file without [Match]: the header that was meant as one, when there is,
 * has its "unknown section" error, which now says what it is: one error
 * for one typo. */
static int layout_no_match(struct layout_parser *p)
{
	struct diag *d;
	char *msg;

	if (p->match_typo_line == 0 && p->main_sections[0])
		return layout_error(p, 0,
				    "no [Match] section: with %s this looks like the main "
				    "configuration, which belongs in " MAINCONF_PATH_DEFAULT
				    " (or a drop-in in " MAINCONF_PATH_DEFAULT ".d/), not among "
				    "the layouts",
				    p->main_sections);
	if (p->match_typo_line == 0)
		return layout_error(p, 0,
				    "no [Match] section; a layout must say which PFs it selects; "
				    "use [Match] with PCIAddress=* to select all");
	d = &p->diags->items[p->match_typo_diag];
	msg = strdup_printf(
		"unknown section [%s]: %swrite [Match] (the file has no [Match] section)",
		p->match_typo,
		strcasecmp(p->match_typo, "Match") == 0 ? "section names are case-sensitive, " :
							  "");
	if (!msg)
		return -ENOMEM;
	free(d->msg);
	d->msg = msg;
	return 0;
}

static int layout_parse_into(struct layout_file *f, const char *text, struct diag_list *diags)
{
	struct layout_parser p = { .file = f, .diags = diags };
	size_t errors = diag_count(diags, DIAG_ERROR);
	int r;

	r = conf_parse_text(f->path, text, &layout_ops, &p, diags);
	if (r >= 0)
		r = layout_finish_section(&p);
	vf_settings_done(&p.scratch.settings);
	if (r < 0)
		return r;
	/* Selecting every PF by accident would be dangerous in a fleet. */
	f->no_match = f->match.line == 0;
	if (f->no_match)
		r = layout_no_match(&p);
	else if (!p.match_error && layout_match_is_empty(&f->match))
		r = layout_error(&p, f->match.line,
				 "[Match] is empty; a layout must say which PFs it selects; "
				 "use PCIAddress=* to select all");
	else
		r = p.match_error ? 0 : 1;
	if (r < 0)
		return r;
	/* A [Match] that does not say what it means holds every PF of the
	 * host: with its lists cleared it selects them all, and the file's
	 * errors hold what it selects. */
	if (r == 0) {
		unsigned line = f->match.line; /* where it was: "a [Match] with an error" */

		layout_match_done(&f->match);
		f->match.line = line;
	}
	f->has_error = diag_count(diags, DIAG_ERROR) > errors;
	return 0;
}

int layout_parse_string(const char *path, const char *text, struct diag_list *diags,
			struct layout_file **ret)
{
	_cleanup_(layout_file_freep) struct layout_file *f = NULL;
	struct diag_list local = {};
	int r;

	f = layout_file_new(path);
	if (!f)
		return -ENOMEM;
	r = layout_parse_into(f, text, diags ?: &local);
	diag_list_done(&local);
	if (r < 0)
		return r;
	*ret = TAKE_PTR(f);
	return 0;
}

int layout_parse_file(const char *path, struct diag_list *diags, struct layout_file **ret)
{
	return layout_parse_file_from(path, path, diags, ret);
}

int layout_parse_file_from(const char *path, const char *from, struct diag_list *diags,
			   struct layout_file **ret)
{
	_cleanup_free_ char *text = NULL;
	char unsafe[CONF_UNSAFE_MAX];
	struct layout_file *f;
	int r;

	r = conf_read_trusted_file(from, &text, unsafe);
	if (r >= 0)
		return layout_parse_string(path, text, diags, ret);
	if (r == -ENOMEM)
		return r;
	/* Which PFs an unreadable file selects cannot be known, nor can
	 * those of a file that others may write (conf_stat_unsafe()). It comes
	 * back with an empty [Match] and has_error: callers treat it like
	 * any file with an error, which holds every PF it (here: possibly)
	 * selects, rather than applying layouts without it. */
	f = layout_file_new(path);
	if (!f)
		return -ENOMEM;
	f->has_error = true;
	if (diags && (r == -EPERM ? diag_add(diags, DIAG_ERROR, path, 0, "%s", unsafe) :
				    diag_add(diags, DIAG_ERROR, path, 0, "cannot read: %s",
					     conf_read_strerror(r))) < 0) {
		layout_file_free(f);
		return -ENOMEM;
	}
	*ret = f;
	return 0;
}
