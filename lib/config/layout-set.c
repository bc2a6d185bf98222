/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* Every layout of the three directories, parsed, in the order they apply. */

#include <libgen.h>

#include "conf-files.h"
#include "layout-set.h"

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
static int dir_unsafe(struct layout_set *s, const char *path, struct layout_file **ret)
{
	_cleanup_free_ char *copy = strdup(path);
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

static int layout_set_add(struct layout_set *s, const char *path)
{
	struct layout_file **files, *f = NULL;
	int r;

	files = realloc(s->files, sizeof(*files) * (s->n_files + 1));
	if (!files)
		return -ENOMEM;
	s->files = files;
	r = dir_unsafe(s, path, &f);
	if (r == 0)
		r = layout_parse_file(path, &s->diags, &f);
	if (r < 0) {
		layout_file_free(f);
		return r;
	}
	s->files[s->n_files++] = f;
	return 0;
}

int layout_set_load_files(char *const *paths, struct layout_set **ret)
{
	struct layout_set *s = calloc(1, sizeof(*s));
	int r;

	if (!s)
		return -ENOMEM;
	for (size_t i = 0; paths && paths[i]; i++) {
		r = layout_set_add(s, paths[i]);
		if (r < 0) {
			layout_set_free(s);
			return r;
		}
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

static int layout_set_load_under(const char *root, const char *const *dirs, struct layout_set **ret)
{
	_cleanup_strv_free_ char **paths = NULL;
	struct conf_files_failure fail;
	int r;

	r = conf_files_list_root(root, dirs, "conf", &paths, &fail);
	if (r == -ENOMEM)
		return r;
	if (r < 0)
		return layout_set_dir_failed(&fail, ret);
	return layout_set_load_files(paths, ret);
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
}

int layout_set_main_broken(struct layout_set *s, const char *error)
{
	free(s->main_error);
	s->main_error =
		strdup_printf("the main configuration has errors, nothing is applied: %s", error);
	return s->main_error ? 0 : -ENOMEM;
}
