/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <sys/stat.h>

#include "fs-util.h"

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
