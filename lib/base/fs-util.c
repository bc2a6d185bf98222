/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fs-util.h"
#include "string-util.h"

const char *path_option_problem(const char *path, bool dir)
{
	struct stat st;

	if (!path)
		return NULL;
	if (stat(path, &st) < 0)
		return errno == ENOENT ? "does not exist" : "cannot be read";
	if (dir && !S_ISDIR(st.st_mode))
		return "is not a directory";
	if (!dir && S_ISDIR(st.st_mode))
		return "is a directory, not a file";
	if (!dir && !S_ISREG(st.st_mode))
		return "is not a regular file";
	return NULL;
}

const char *path_last_component(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

char *path_parent(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		return strdup(".");
	if (slash == path)
		return strdup("/");
	return strndup(path, (size_t)(slash - path));
}

int mkdir_p(const char *path, mode_t mode)
{
	_cleanup_free_ char *p = strdup(path);

	if (!p)
		return -ENOMEM;
	for (char *s = p + 1;; s++) {
		bool end = *s == '\0';

		if (*s != '/' && !end)
			continue;
		*s = '\0';
		if (mkdir(p, mode) < 0 && errno != EEXIST)
			return -errno;
		if (end)
			return 0;
		*s = '/';
	}
}

int mkdir_owned(const char *path, mode_t mode)
{
	struct stat st;
	int r;

	r = mkdir_p(path, mode);
	if (r < 0)
		return r;
	if (lstat(path, &st) < 0)
		return -errno;
	if (S_ISLNK(st.st_mode))
		return -ELOOP;
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	if (st.st_uid != geteuid())
		return -EPERM;
	return 0;
}

int root_canonicalize(const char *dir, char **ret)
{
	_cleanup_free_ char *canon = realpath(dir, NULL);
	struct stat st;

	if (!canon)
		return -errno;
	if (stat(canon, &st) < 0)
		return -errno;
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	*ret = TAKE_PTR(canon);
	return 0;
}

const char *root_strerror(int r)
{
	return r == -EXDEV ? "leads out of the root directory" : strerror(-r);
}

#define ROOT_LINKS_MAX 40

/* The walk of path_under_root(): done is the part resolved so far, relative
 * to root ("" or "/etc/sriov-persist"), todo what is left of the path. */
struct root_walk {
	const char *root;
	char *done;
	char *todo;
	unsigned links;
	bool missing; /* a component did not exist: the rest is kept as written */
};

static int walk_append(struct root_walk *w, const char *name, size_t len)
{
	char *s = strdup_printf("%s/%.*s", w->done, (int)len, name);

	if (!s)
		return -ENOMEM;
	free(w->done);
	w->done = s;
	return 0;
}

/* A link at root/done/name: its target replaces it, before the rest. */
static int walk_link(struct root_walk *w, const char *full, const char *rest)
{
	char target[PATH_MAX];
	ssize_t n;
	char *todo;

	if (++w->links > ROOT_LINKS_MAX)
		return -ELOOP;
	n = readlink(full, target, sizeof(target) - 1);
	if (n < 0)
		return -errno;
	target[n] = '\0';
	if (target[0] == '/')
		w->done[0] = '\0'; /* absolute: from root again */
	todo = strdup_printf("%s/%s", target, rest);
	if (!todo)
		return -ENOMEM;
	free(w->todo);
	w->todo = todo;
	return 1;
}

/* One component, name[len], followed by rest: 1 when it was a link, whose
 * target is now todo. */
static int walk_step(struct root_walk *w, const char *name, size_t len, const char *rest)
{
	_cleanup_free_ char *full = NULL;
	struct stat st;
	char *slash;

	if (len == 1 && name[0] == '.')
		return 0;
	if (len == 2 && name[0] == '.' && name[1] == '.') {
		slash = strrchr(w->done, '/');
		if (!slash)
			return -EXDEV;
		*slash = '\0';
		return 0;
	}
	if (w->missing)
		return walk_append(w, name, len);
	full = strdup_printf("%s%s/%.*s", w->root, w->done, (int)len, name);
	if (!full)
		return -ENOMEM;
	if (lstat(full, &st) < 0) {
		/* as missing as on the host, where conf_files_list() skips it */
		if (errno != ENOENT && errno != ENOTDIR)
			return -errno;
		w->missing = true;
	} else if (S_ISLNK(st.st_mode))
		return walk_link(w, full, rest);
	return walk_append(w, name, len);
}

int path_under_root(const char *root, const char *path, char **ret)
{
	struct root_walk w = { .root = root };
	int r = 0;

	if (!root || streq(root, "/")) {
		*ret = strdup(path);
		return *ret ? 0 : -ENOMEM;
	}
	w.done = strdup("");
	w.todo = strdup(path);
	if (!w.done || !w.todo)
		r = -ENOMEM;
	while (r >= 0) {
		const char *p = w.todo + strspn(w.todo, "/");
		size_t len = strcspn(p, "/");
		char *rest;

		if (len == 0)
			break;
		rest = strdup(p + len);
		r = rest ? walk_step(&w, p, len, rest) : -ENOMEM;
		if (r == 0) { /* else a link's target replaced todo */
			free(w.todo);
			w.todo = rest;
		} else
			free(rest);
	}
	if (r >= 0 && !(*ret = strdup_printf("%s%s", root, w.done)))
		r = -ENOMEM;
	free(w.done);
	free(w.todo);
	return r < 0 ? r : 0;
}
