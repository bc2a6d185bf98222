/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* Every layout of the three directories, parsed, in the order they apply. */

#include <libgen.h>

#include "conf-files.h"
#include "fs-util.h"
#include "layout-empty.h"
#include "layout-set.h"
#include "suggest.h"

const char *const layout_dirs_default[] = {
	"/etc/sriov-persist/conf.d",
	"/run/sriov-persist/conf.d",
	"/usr/lib/sriov-persist/conf.d",
	NULL,
};

/* A file named alone (sriovctl check FILE) follows the rule of the
 * directories too: its directory must not be writable by others, who could
 * put another file there or replace it. Unsafe: the directory's error, and
 * the file stands as one that cannot be read (no [Match]: it holds every
 * PF). A directory that cannot be looked at is left to the file's read. */
static int dir_unsafe(struct layout_set *s, const char *path, const char *from,
		      struct layout_file **ret)
{
	_cleanup_free_ char *copy = strdup(from);
	char why[CONF_UNSAFE_MAX];
	struct diag_list ignored = {};
	const char *dir;
	struct stat st;
	int r;

	if (!copy)
		return -ENOMEM;
	dir = dirname(copy);
	if (stat(dir, &st) < 0 || !conf_stat_unsafe(&st, geteuid(), why))
		return 0;
	r = layout_parse_string(path, "", &ignored, ret);
	diag_list_done(&ignored);
	if (r < 0)
		return r;
	(*ret)->has_error = true;
	r = diag_add(&s->diags, DIAG_ERROR, dir, 0, "%s", why);
	return r < 0 ? r : 1;
}

/* A file whose link leads out of the root (--root): never followed, so
 * which PFs it selects is unknown; it stands as a file that cannot be
 * read, with its own error, and the other files are read. */
static int link_refused(struct layout_set *s, const char *path, struct layout_file **ret)
{
	struct diag_list ignored = {};
	int r;

	r = layout_parse_string(path, "", &ignored, ret);
	diag_list_done(&ignored);
	if (r < 0)
		return r;
	(*ret)->has_error = true;
	(*ret)->no_match = false; /* its own error says why */
	r = diag_add(&s->diags, DIAG_ERROR, path, 0, "%s; refusing it", root_strerror(-EXDEV));
	return r < 0 ? r : 1;
}

/* The file named path, read from from (a link's target under --root). */
static int layout_set_add(struct layout_set *s, const char *path, const char *from, bool refused)
{
	struct layout_file **files, *f = NULL;
	int r;

	files = realloc(s->files, sizeof(*files) * (s->n_files + 1));
	if (!files)
		return -ENOMEM;
	s->files = files;
	r = refused ? link_refused(s, path, &f) : dir_unsafe(s, path, from, &f);
	if (r == 0)
		r = layout_parse_file_from(path, from, &s->diags, &f);
	if (r < 0) {
		layout_file_free(f);
		return r;
	}
	s->files[s->n_files++] = f;
	return 0;
}

/* Where the file named name is among the set's files (n_files when none). */
static size_t find_name(const struct layout_set *s, const char *name)
{
	for (size_t i = 0; i < s->n_files; i++)
		if (streq_ptr(layout_file_name(s->files[i]->path), name))
			return i;
	return s->n_files;
}

/* "; did you mean 'X'?" for name, X the nearest name of a file read but
 * the j-th's own and at most two edits from it (file names share their
 * ".conf" and digits, so suggest_consider() alone would guess), or "" in
 * buf. */
static char *stale_hint(const struct layout_set *s, size_t j, const char *name, char *buf,
			size_t size)
{
	struct suggest sg = suggest_init(name);

	for (size_t i = 0; i < s->n_files; i++)
		if (i != j)
			suggest_consider(&sg, layout_file_name(s->files[i]->path));
	if (sg.best && suggest_distance(name, sg.best) > 2)
		sg.best = NULL;
	return suggest_hint(&sg, buf, size);
}

/* Each Overrides= name that is no file read, or one read after the file
 * that names it (its values win): a warning at the Overrides= line, as a
 * declaration that no longer says what happens. */
static int check_declared(struct layout_set *s)
{
	for (size_t j = 0; j < s->n_files; j++)
		for (size_t i = 0; i < s->files[j]->declare.n_overrides; i++) {
			const struct layout_override *o = &s->files[j]->declare.overrides[i];
			size_t at = find_name(s, o->name);
			char hint[PATH_MAX + 32];
			int r = 0;

			if (at == s->n_files)
				r = diag_add(&s->diags, DIAG_WARNING, s->files[j]->path, o->line,
					     "Overrides=%s: no layout file of that name is read, "
					     "so this declaration is stale%s",
					     o->name,
					     stale_hint(s, j, o->name, hint, sizeof(hint)));
			else if (at > j)
				r = diag_add(&s->diags, DIAG_WARNING, s->files[j]->path, o->line,
					     "Overrides=%s: %s is read after this file, so its "
					     "values win over this file's (files are read in the "
					     "lexical order of their names)",
					     o->name, o->name);
			if (r < 0)
				return r;
		}
	return 0;
}

/* targets: where each of paths is read from (NULL: from itself). */
static int load_files(char *const *paths, char *const *targets, char *const *refused,
		      struct layout_set **ret)
{
	struct layout_set *s = calloc(1, sizeof(*s));
	int r;

	if (!s)
		return -ENOMEM;
	for (size_t i = 0; paths && paths[i]; i++) {
		r = layout_set_add(s, paths[i], targets ? targets[i] : paths[i],
				   strv_contains(refused, paths[i]));
		if (r < 0) {
			layout_set_free(s);
			return r;
		}
	}
	r = check_declared(s);
	if (r >= 0)
		r = layout_empty_check(s->files, s->n_files, &s->diags);
	if (r < 0) {
		layout_set_free(s);
		return r;
	}
	*ret = s;
	return 0;
}

/* A directory that cannot be listed or trusted: which files it holds, and
 * so which PFs they select, is unknown. It stands in the set as a file
 * with an error and no [Match], which holds every PF, as an unreadable
 * layout file does. */
static int layout_set_dir_failed(const struct conf_files_failure *fail, struct layout_set **ret)
{
	_cleanup_layout_set_ struct layout_set *s = calloc(1, sizeof(*s));
	struct diag_list ignored = {};
	int r;

	if (!s || !(s->files = calloc(1, sizeof(*s->files))))
		return -ENOMEM;
	r = layout_parse_string(fail->dir, "", &ignored, &s->files[0]);
	diag_list_done(&ignored);
	if (r < 0)
		return r;
	s->n_files = 1;
	s->dir_failed = true;
	s->files[0]->has_error = true;
	s->files[0]->no_match = false; /* a directory: its own error says why */
	r = diag_add(&s->diags, DIAG_ERROR, fail->dir, 0, "%s", fail->why);
	if (r < 0)
		return r;
	*ret = TAKE_PTR(s);
	return 0;
}

int layout_set_load_files(char *const *paths, struct layout_set **ret)
{
	return load_files(paths, NULL, NULL, ret);
}

/* The files to read for check FILE: path (the name) and where it is read
 * from, in the order of their names. */
struct listed {
	const char *path, *target;
	size_t at; /* the order given, among files of one name */
};

static int listed_cmp(const void *a, const void *b)
{
	const struct listed *x = a, *y = b;
	int c = strcmp(layout_file_name(x->path), layout_file_name(y->path));

	return c != 0 ? c : (x->at > y->at) - (x->at < y->at);
}

static bool named_has(char *const *named, const char *path)
{
	for (size_t i = 0; named && named[i]; i++)
		if (streq(layout_file_name(named[i]), layout_file_name(path)))
			return true;
	return false;
}

/* named and the directory's files that no named file replaces (nor
 * refused: a link out of the root, not read), sorted by name, into
 * ret_paths and ret_targets. */
static int merge_named(char *const *named, char *const *paths, char *const *targets,
		       char *const *refused, char ***ret_paths, char ***ret_targets)
{
	size_t n = strv_length(named) + strv_length(paths), k = 0;
	_cleanup_free_ struct listed *l = calloc(n ?: 1, sizeof(*l));
	_cleanup_strv_free_ char **p = calloc(1, sizeof(char *)), **t = calloc(1, sizeof(char *));
	int r = 0;

	if (!l || !p || !t)
		return -ENOMEM;
	for (size_t i = 0; paths && paths[i]; i++)
		if (!named_has(named, paths[i]) && !strv_contains(refused, paths[i])) {
			l[k] = (struct listed){ paths[i], targets[i], k };
			k++;
		}
	for (size_t i = 0; named && named[i]; i++) {
		l[k] = (struct listed){ named[i], named[i], k };
		k++;
	}
	qsort(l, k, sizeof(*l), listed_cmp);
	for (size_t i = 0; r >= 0 && i < k; i++) {
		r = strv_extend(&p, l[i].path);
		if (r >= 0)
			r = strv_extend(&t, l[i].target);
	}
	if (r < 0)
		return r;
	*ret_paths = TAKE_PTR(p);
	*ret_targets = TAKE_PTR(t);
	return 0;
}

/* The canonical directory of path; NULL when it cannot be resolved. */
static char *dir_of(const char *path)
{
	_cleanup_free_ char *copy = strdup(path);

	return copy ? realpath(dirname(copy), NULL) : NULL;
}

/* Whether dir (canonical) is one of the layout directories under root. */
static bool is_layout_dir(const char *root, const char *dir)
{
	for (size_t i = 0; layout_dirs_default[i]; i++) {
		_cleanup_free_ char *under = NULL, *real = NULL;

		if (path_under_root(root, layout_dirs_default[i], &under) < 0)
			continue;
		real = realpath(under, NULL);
		if (real && streq(real, dir))
			return true;
	}
	return false;
}

/* A warning at each named file of a layout directory that a file of the
 * same name in a directory read first masks (paths: the files the
 * directories give): it is checked, but never read as it is. */
static int warn_masked(const char *root, char *const *named, char *const *paths,
		       struct layout_set *s)
{
	for (size_t i = 0; named && named[i]; i++) {
		_cleanup_free_ char *dir = dir_of(named[i]);

		if (!dir || !is_layout_dir(root, dir))
			continue;
		for (size_t j = 0; paths && paths[j]; j++) {
			_cleanup_free_ char *winner = NULL;
			int r;

			if (!streq(layout_file_name(paths[j]), layout_file_name(named[i])))
				continue;
			winner = dir_of(paths[j]);
			if (!winner || streq(winner, dir))
				continue;
			r = diag_add(&s->diags, DIAG_WARNING, named[i], 0,
				     "masked by %s (a file of the same name in a directory read "
				     "first): that file is read, not this one, which is checked "
				     "here in its place",
				     paths[j]);
			if (r < 0)
				return r;
		}
	}
	return 0;
}

int layout_set_load_context(const char *root, const char *dir, char *const *named,
			    struct layout_set **ret)
{
	const char *const one[] = { dir, NULL };
	_cleanup_strv_free_ char **paths = NULL, **targets = NULL, **refused = NULL;
	_cleanup_strv_free_ char **all = NULL, **from = NULL;
	struct conf_files_failure fail;
	int r;

	r = conf_files_list_root_refusing(dir ? NULL : root, dir ? one : layout_dirs_default,
					  "conf", &paths, &targets, &refused, &fail);
	if (r == -ENOMEM)
		return r;
	/* a directory that cannot be read or trusted gives no context: the
	 * named files are read alone, as check of the directory says why */
	if (r < 0)
		paths = strv_free(paths);
	r = merge_named(named, paths, targets, refused, &all, &from);
	if (r < 0)
		return r;
	r = load_files(all, from, NULL, ret);
	if (r >= 0 && !dir && (r = warn_masked(root, named, paths, *ret)) < 0)
		*ret = layout_set_free(*ret);
	return r;
}

static int layout_set_load_under(const char *root, const char *const *dirs, struct layout_set **ret)
{
	_cleanup_strv_free_ char **paths = NULL, **targets = NULL, **refused = NULL;
	struct conf_files_failure fail;
	int r;

	r = conf_files_list_root_refusing(root, dirs, "conf", &paths, &targets, &refused, &fail);
	if (r == -ENOMEM)
		return r;
	if (r < 0)
		return layout_set_dir_failed(&fail, ret);
	return load_files(paths, targets, refused, ret);
}

int layout_set_load(const char *const *dirs, struct layout_set **ret)
{
	return layout_set_load_under(NULL, dirs ?: layout_dirs_default, ret);
}

int layout_set_load_dir(const char *dir, struct layout_set **ret)
{
	return layout_set_load_root(NULL, dir, ret);
}

int layout_set_load_root(const char *root, const char *dir, struct layout_set **ret)
{
	const char *const dirs[] = { dir, NULL };

	/* a directory named on the command line is taken as given */
	return dir ? layout_set_load_under(NULL, dirs, ret) :
		     layout_set_load_under(root, layout_dirs_default, ret);
}

struct layout_set *layout_set_free(struct layout_set *s)
{
	if (!s)
		return NULL;
	for (size_t i = 0; i < s->n_files; i++)
		layout_file_free(s->files[i]);
	free(s->files);
	diag_list_done(&s->diags);
	free(s->main_error);
	free(s->drain_cannot_run);
	other_configs_free(s->others);
	free(s);
	return NULL;
}

int layout_set_load_others(struct layout_set *s, const char *root)
{
	struct other_configs *c;
	int r = other_configs_load(root, &c);

	if (r < 0)
		return r;
	other_configs_free(s->others);
	s->others = c;
	return 0;
}

void layout_set_use_mainconf(struct layout_set *s, const struct mainconf *c)
{
	s->rdma_netns = c->rdma_netns;
	s->kernel_arguments = c->kernel_arguments;
	s->without_drain = mainconf_without_drain(c);
	s->disruption_policy = disruption_policy_to_string(c->disruption_policy);
	s->disruption_runs = c->disruption_policy == DISRUPTION_POLICY_IMMEDIATE ||
			     s->without_drain;
	s->disruption_never[0] = s->disruption_never_at[0] = '\0';
	if (c->disruption_policy == DISRUPTION_POLICY_NEVER) {
		mainconf_never_reason(c, s->disruption_never, sizeof(s->disruption_never));
		if (c->disruption_policy_line > 0)
			snprintf(s->disruption_never_at, sizeof(s->disruption_never_at), "%s:%u",
				 c->disruption_policy_file, c->disruption_policy_line);
		else
			snprintf(s->disruption_never_at, sizeof(s->disruption_never_at), "%s",
				 "the main configuration");
	}
	if (c->drift_mode != DRIFT_MODE_REPORT)
		s->drift_report_at[0] = '\0';
	else if (c->drift_mode_line > 0)
		snprintf(s->drift_report_at, sizeof(s->drift_report_at), "%s:%u",
			 c->drift_mode_file, c->drift_mode_line);
	else
		snprintf(s->drift_report_at, sizeof(s->drift_report_at), "%s",
			 "the main configuration");
}

int layout_set_main_broken(struct layout_set *s, const char *error)
{
	free(s->main_error);
	s->main_error =
		strdup_printf("the main configuration has errors, nothing is applied: %s", error);
	return s->main_error ? 0 : -ENOMEM;
}
