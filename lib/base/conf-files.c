/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "conf-files.h"
#include "fs-util.h"

/* One file name, as the highest-priority directory that has it has it. */
struct conf_entry {
	char *name;
	char *path;   /* NULL: masked by a link to /dev/null */
	char *target; /* own_names: what path is read from, the link resolved */
	bool refused; /* a link out of the root: path is the link's */
};

struct conf_entries {
	struct conf_entry *items;
	size_t n;
	/* a file's link out of the root is an entry of its own (refused)
	 * rather than a failure of the list */
	bool keep_refused;
	/* a file's link is named by its own path, what it leads to kept apart
	 * (target), as systemd names a unit by the link's name */
	bool own_names;
};

static void conf_entries_done(struct conf_entries *e)
{
	for (size_t i = 0; i < e->n; i++) {
		free(e->items[i].name);
		free(e->items[i].path);
		free(e->items[i].target);
	}
	free(e->items);
	*e = (struct conf_entries){};
}

static bool conf_entries_have(const struct conf_entries *e, const char *name)
{
	for (size_t i = 0; i < e->n; i++)
		if (streq(e->items[i].name, name))
			return true;
	return false;
}

/* path: the file's, taken; NULL: masked by a link to /dev/null. target: what
 * a link resolves to, taken (NULL: path is read). */
static int conf_entries_add(struct conf_entries *e, const char *name, char *path, char *target,
			    bool refused)
{
	_cleanup_free_ char *n = strdup(name), *p = path, *t = target;
	struct conf_entry *items;

	if (!n)
		return -ENOMEM;
	items = realloc(e->items, sizeof(*items) * (e->n + 1));
	if (!items)
		return -ENOMEM;
	e->items = items;
	e->items[e->n++] = (struct conf_entry){
		.name = TAKE_PTR(n), .path = TAKE_PTR(p), .target = TAKE_PTR(t), .refused = refused
	};
	return 0;
}

static char *path_in(const char *dir, const char *name)
{
	size_t len = strlen(dir);

	return strdup_printf("%s%s%s", dir, len > 0 && dir[len - 1] == '/' ? "" : "/", name);
}

static bool name_has_suffix(const char *name, const char *suffix)
{
	size_t n = strlen(name), s = strlen(suffix);

	return n > s + 1 && name[n - s - 1] == '.' && streq(name + n - s, suffix);
}

static bool stat_is_dev_null(const struct stat *st)
{
	return S_ISCHR(st->st_mode) && major(st->st_rdev) == 1 && minor(st->st_rdev) == 3;
}

const char *conf_stat_unsafe(const struct stat *st, uid_t euid, char buf[static CONF_UNSAFE_MAX])
{
	if (st->st_uid != 0 && st->st_uid != euid) {
		if (euid == 0)
			snprintf(buf, CONF_UNSAFE_MAX,
				 "owned by uid %u, not by root; refusing it: chown root",
				 (unsigned)st->st_uid);
		else
			snprintf(buf, CONF_UNSAFE_MAX,
				 "owned by uid %u, neither root nor uid %u running this; "
				 "refusing it: chown root",
				 (unsigned)st->st_uid, (unsigned)euid);
		return buf;
	}
	if (st->st_mode & (S_IWGRP | S_IWOTH)) {
		snprintf(buf, CONF_UNSAFE_MAX,
			 "writable by group or others (mode %04o); refusing it: chmod go-w",
			 (unsigned)(st->st_mode & 07777));
		return buf;
	}
	return NULL;
}

static void conf_fail(struct conf_files_failure *f, const char *dir, int r)
{
	snprintf(f->dir, sizeof(f->dir), "%s", dir);
	if (r == -EXDEV)
		snprintf(f->why, sizeof(f->why), "%s; refusing it", root_strerror(r));
	else
		snprintf(f->why, sizeof(f->why), "cannot read: %s", strerror(-r));
}

/* The directory, open, once it is known to be safe; -ENOENT when it is
 * missing or not a directory (nothing to list). */
static int conf_open_dir(const char *dir, struct conf_files_failure *fail)
{
	_cleanup_close_ int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct stat st;

	int r;

	if (fd < 0) {
		if (errno == ENOENT || errno == ENOTDIR)
			return -ENOENT;
		r = -errno;
		conf_fail(fail, dir, r);
		return r;
	}
	if (fstat(fd, &st) < 0) {
		r = -errno;
		conf_fail(fail, dir, r);
		return r;
	}
	if (conf_stat_unsafe(&st, geteuid(), fail->why)) {
		snprintf(fail->dir, sizeof(fail->dir), "%s", dir);
		return -EPERM;
	}
	return TAKE_FD(fd);
}

/* What entry name of dir (open as fd; hostdir as the host names it) is:
 * 1 a file, its path in *ret_path; 2 a mask; 0 nothing to list; < 0 a
 * link out of root. Links are followed (under root when there is one): a
 * link to /dev/null masks, a dangling one or anything but a regular file
 * is skipped. */
static int conf_entry_kind(const char *root, const char *hostdir, const char *dir, int fd,
			   const char *name, char **ret_path)
{
	_cleanup_free_ char *path = NULL, *host = NULL;
	char target[sizeof("/dev/null")];
	struct stat st;
	ssize_t n;
	int r;

	if (root && fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode)) {
		n = readlinkat(fd, name, target, sizeof(target));
		if (n == sizeof(target) - 1 && memcmp(target, "/dev/null", n) == 0)
			return 2;
		if (!(host = path_in(hostdir, name)))
			return -ENOMEM;
		r = path_under_root(root, host, &path);
		if (r < 0)
			return r;
		if (stat(path, &st) < 0)
			return 0;
	} else {
		if (fstatat(fd, name, &st, 0) < 0)
			return 0;
		if (!(path = path_in(dir, name)))
			return -ENOMEM;
	}
	if (stat_is_dev_null(&st))
		return 2;
	if (!S_ISREG(st.st_mode))
		return 0;
	*ret_path = TAKE_PTR(path);
	return 1;
}

static int conf_scan_entry(struct conf_entries *e, const char *root, const char *hostdir,
			   const char *dir, int fd, const char *name,
			   struct conf_files_failure *fail)
{
	char *path = NULL, *own;
	int r;

	r = conf_entry_kind(root, hostdir, dir, fd, name, &path);
	if (r == -EXDEV && e->keep_refused) {
		path = path_in(dir, name);
		return path ? conf_entries_add(e, name, path, NULL, true) : -ENOMEM;
	}
	if (r == -EXDEV) {
		_cleanup_free_ char *p = path_in(dir, name);

		conf_fail(fail, p ?: dir, r);
	}
	if (r <= 0)
		return r;
	if (r == 1 && e->own_names) {
		own = path_in(dir, name);
		if (!own) {
			free(path);
			return -ENOMEM;
		}
		return conf_entries_add(e, name, own, path, false);
	}
	return conf_entries_add(e, name, r == 1 ? path : NULL, NULL, false);
}

static int conf_scan_dir(struct conf_entries *e, const char *root, const char *hostdir,
			 const char *suffix, struct conf_files_failure *fail)
{
	_cleanup_free_ char *dir = NULL;
	struct dirent *de;
	DIR *d;
	int fd, r;

	r = path_under_root(root, hostdir, &dir);
	if (r < 0) {
		_cleanup_free_ char *said = strdup_printf("%s%s", strempty(root), hostdir);

		if (r != -ENOMEM)
			conf_fail(fail, said ?: hostdir, r);
		return r;
	}
	fd = conf_open_dir(dir, fail);
	if (fd < 0)
		return fd == -ENOENT ? 0 : fd;
	d = fdopendir(fd);
	if (!d) {
		r = -errno;
		close(fd);
		conf_fail(fail, dir, r);
		return r;
	}
	while (r >= 0 && (errno = 0, de = readdir(d))) {
		if (de->d_name[0] == '.' || !name_has_suffix(de->d_name, suffix) ||
		    conf_entries_have(e, de->d_name))
			continue;
		r = conf_scan_entry(e, root, hostdir, dir, fd, de->d_name, fail);
	}
	if (r >= 0 && errno != 0) {
		r = -errno;
		conf_fail(fail, dir, r);
	}
	closedir(d);
	return r;
}

static int conf_entry_cmp(const void *a, const void *b)
{
	return strcmp(((const struct conf_entry *)a)->name, ((const struct conf_entry *)b)->name);
}

int conf_files_list(const char *const *dirs, const char *suffix, char ***ret_paths,
		    struct conf_files_failure *ret_failure)
{
	return conf_files_list_root(NULL, dirs, suffix, ret_paths, ret_failure);
}

/* The refused entries' paths, in the order of e. */
static int conf_entries_refused(const struct conf_entries *e, char ***ret)
{
	_cleanup_strv_free_ char **l = calloc(1, sizeof(char *));
	int r = 0;

	if (!l)
		return -ENOMEM;
	for (size_t i = 0; r >= 0 && i < e->n; i++)
		if (e->items[i].refused)
			r = strv_extend(&l, e->items[i].path);
	if (r < 0)
		return r;
	*ret = TAKE_PTR(l);
	return 0;
}

/* Where each listed entry of e is read from, in the order of ret_paths. */
static int conf_entries_targets(struct conf_entries *e, char ***ret)
{
	_cleanup_strv_free_ char **l = calloc(1, sizeof(char *));
	int r = 0;

	if (!l)
		return -ENOMEM;
	for (size_t i = 0; r >= 0 && i < e->n; i++)
		if (e->items[i].path)
			r = strv_extend(&l, e->items[i].target ?: e->items[i].path);
	if (r < 0)
		return r;
	*ret = TAKE_PTR(l);
	return 0;
}

static int conf_list(const char *root, const char *const *dirs, const char *suffix,
		     char ***ret_paths, char ***ret_targets, char ***ret_refused,
		     struct conf_files_failure *ret_failure)
{
	struct conf_files_failure fail = {};
	struct conf_entries e = { .keep_refused = ret_refused, .own_names = ret_targets };
	char **paths;
	size_t k = 0;
	int r = 0;

	for (size_t i = 0; dirs && dirs[i] && r >= 0; i++)
		r = conf_scan_dir(&e, root, dirs[i], suffix, &fail);
	if (r < 0) {
		if (ret_failure && r != -ENOMEM)
			*ret_failure = fail;
		goto out;
	}
	if (e.n > 0)
		qsort(e.items, e.n, sizeof(*e.items), conf_entry_cmp);
	if (ret_refused && (r = conf_entries_refused(&e, ret_refused)) < 0)
		goto out;
	if (ret_targets && (r = conf_entries_targets(&e, ret_targets)) < 0) {
		if (ret_refused)
			*ret_refused = strv_free(*ret_refused);
		goto out;
	}
	paths = calloc(e.n + 1, sizeof(char *));
	if (!paths) {
		if (ret_refused)
			*ret_refused = strv_free(*ret_refused);
		if (ret_targets)
			*ret_targets = strv_free(*ret_targets);
		r = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < e.n; i++)
		if (e.items[i].path)
			paths[k++] = TAKE_PTR(e.items[i].path);
	*ret_paths = paths;
out:
	conf_entries_done(&e);
	return r;
}

int conf_files_list_root(const char *root, const char *const *dirs, const char *suffix,
			 char ***ret_paths, struct conf_files_failure *ret_failure)
{
	return conf_list(root, dirs, suffix, ret_paths, NULL, NULL, ret_failure);
}

int conf_files_list_root_refusing(const char *root, const char *const *dirs, const char *suffix,
				  char ***ret_paths, char ***ret_targets, char ***ret_refused,
				  struct conf_files_failure *ret_failure)
{
	return conf_list(root, dirs, suffix, ret_paths, ret_targets, ret_refused, ret_failure);
}
