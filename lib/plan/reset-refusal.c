/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "reset-refusal.h"
#include "layout-wants.h"

/* The paths of the files of set that select pf, those with errors (refused)
 * or those without. -ENOMEM. */
static int selecting_files(const struct layout_set *set, const struct host_state *host,
			   const struct pf_state *pf, bool refused, char ***ret)
{
	_cleanup_strv_free_ char **l = NULL;

	for (size_t i = 0; i < set->n_files; i++) {
		const struct layout_file *f = set->files[i];

		if (layout_file_selects(f, host, pf) && f->has_error == refused &&
		    strv_extend(&l, f->path) < 0)
			return -ENOMEM;
	}
	*ret = TAKE_PTR(l);
	return 0;
}

bool reset_refusal_only_refused(const struct layout_set *set, const struct host_state *host,
				const struct pf_state *pf)
{
	bool any = false;

	for (size_t i = 0; i < set->n_files; i++) {
		const struct layout_file *f = set->files[i];

		if (!layout_file_selects(f, host, pf))
			continue;
		if (!f->has_error)
			return false;
		any = true;
	}
	return any;
}

/* The parser's first error of the file at path, so that the operator sees
 * what to fix. */
static char *first_error(const struct layout_set *set, const char *path)
{
	for (size_t i = 0; i < set->diags.n; i++) {
		const struct diag *d = &set->diags.items[i];

		if (d->level == DIAG_ERROR && streq_ptr(d->file, path))
			return diag_format(d);
	}
	return strdup_printf("%s: has errors", path);
}

static char *refused(const struct layout_set *set, char **files)
{
	_cleanup_free_ char *names = strv_join(files, ", ");
	_cleanup_free_ char *why = first_error(set, files[0]);
	bool one = strv_length(files) == 1;

	if (!names || !why)
		return NULL;
	return strdup_printf("%s %s refused and may select it (%s); fix or remove %s first", names,
			     one ? "is" : "are", why, one ? "it" : "them");
}

char *reset_refusal(const struct layout_set *set, const struct host_state *host,
		    const struct pf_state *pf)
{
	_cleanup_strv_free_ char **good = NULL, **bad = NULL;
	_cleanup_free_ char *names = NULL;

	if (selecting_files(set, host, pf, false, &good) < 0 ||
	    selecting_files(set, host, pf, true, &bad) < 0)
		return NULL;
	if (!good)
		return bad ? refused(set, bad) : NULL;
	names = strv_join(good, ", ");
	if (!names)
		return NULL;
	return strdup_printf("a layout selects it (%s): reset removes only what a removed layout "
			     "left; change or remove the layout instead",
			     names);
}
