/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>

#include "conf-files.h"
#include "conf-parser.h"
#include "fs-util.h"
#include "other-managers.h"

/* NetworkManager's keyfile directories; in /etc a file needs no
 * .nmconnection suffix (nms-keyfile-plugin.c keeps that for older files). */
static const struct nm_dir {
	const char *path;
	bool require_suffix;
} nm_dirs[] = {
	{ "/etc/NetworkManager/system-connections", false },
	{ "/run/NetworkManager/system-connections", true },
	{ "/usr/lib/NetworkManager/system-connections", true },
};

/* udev's .link directories, highest priority first (systemd's NETWORK_DIRS;
 * /lib for distributions that still have it apart from /usr/lib). */
static const char *const link_dirs[] = {
	"/etc/systemd/network",	    "/run/systemd/network", "/usr/local/lib/systemd/network",
	"/usr/lib/systemd/network", "/lib/systemd/network",
};

/* path as the host names it, as this run names it: under the root
 * directory when there is one (as layouts are named), so that the file
 * named is the one on the host the run looks at */
static char *root_name(const char *root, const char *path)
{
	if (!root || streq(root, "/"))
		return strdup(path);
	return strdup_printf("%s%s", root, path);
}

/* NetworkManager's nm_keyfile_utils_ignore_filename(): hidden files, and
 * without the suffix rule backups ("~"), mkstemp()'s leftovers (".XXXXXX")
 * and certificates. */
static bool nm_name_ignored(const char *name, bool require_suffix)
{
	static const char suffix[] = ".nmconnection";
	size_t n = strlen(name), s = strlen(suffix);
	const char *dot = strrchr(name, '.');

	if (name[0] == '.' || n == 0)
		return true;
	if (require_suffix)
		return n <= s || !streq(name + n - s, suffix);
	if (name[n - 1] == '~')
		return true;
	if (dot && strlen(dot + 1) == 6 &&
	    strspn(dot + 1, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789") == 6)
		return true;
	return dot && (strcasecmp(dot, ".pem") == 0 || strcasecmp(dot, ".der") == 0);
}

/* NetworkManager loads no keyfile that another user than root (or the one
 * it runs as: here, the one running this) owns, or that group or others may
 * read or write. */
static bool nm_would_refuse(const struct stat *st)
{
	return (st->st_uid != 0 && st->st_uid != geteuid()) || (st->st_mode & 0077);
}

static int nm_profile_push(struct other_configs *c, struct nm_profile *p)
{
	struct nm_profile *items = realloc(c->nm, sizeof(*items) * (c->n_nm + 1));

	if (!items) {
		nm_profile_done(p);
		return -ENOMEM;
	}
	c->nm = items;
	c->nm[c->n_nm++] = *p;
	return 0;
}

/* path as the host names it, read under root */
static int nm_load_file(struct other_configs *c, const char *root, const char *path)
{
	_cleanup_close_ int fd = -EBADF;
	_cleanup_free_ char *text = NULL, *full = NULL, *name = root_name(root, path);
	struct nm_profile p;
	struct stat st;
	size_t size = 0;
	int r;

	if (!name)
		return -ENOMEM;
	r = path_under_root(root, path, &full);
	if (r == -ENOMEM)
		return r;
	if (r < 0)
		return other_findings_add_unreadable(&c->unreadable, OTHER_MANAGER_NETWORKMANAGER,
						     name, root_strerror(r));
	fd = open_regular_at(AT_FDCWD, full, &st);
	if (fd == -EISDIR || fd == -EBADFD || fd == -ENOENT)
		return 0; /* NetworkManager takes regular files only */
	r = fd < 0 ? fd : read_fd(fd, CONF_FILE_MAX, &text, &size);
	if (r >= 0 && memchr(text, '\0', size))
		r = -EBADMSG;
	if (r < 0)
		return other_findings_add_unreadable(&c->unreadable, OTHER_MANAGER_NETWORKMANAGER,
						     name, conf_read_strerror(r));
	if (nm_would_refuse(&st))
		return 0;
	r = nm_profile_parse(name, text, &p);
	return r < 0 ? r : nm_profile_push(c, &p);
}

static int nm_list_dir(const char *full, bool require_suffix, char ***ret)
{
	_cleanup_strv_free_ char **names = calloc(1, sizeof(char *));
	DIR *d = opendir(full);
	struct dirent *de;
	int r = 0;

	if (!names) {
		if (d)
			closedir(d);
		return -ENOMEM;
	}
	if (!d)
		return errno == ENOENT || errno == ENOTDIR ? 0 : -errno;
	while (r >= 0 && (errno = 0, de = readdir(d)))
		if (!nm_name_ignored(de->d_name, require_suffix))
			r = strv_extend(&names, de->d_name);
	if (r >= 0 && errno != 0)
		r = -errno;
	closedir(d);
	if (r < 0)
		return r;
	strv_sort(names);
	*ret = TAKE_PTR(names);
	return 1;
}

static int nm_load_dir(struct other_configs *c, const char *root, const struct nm_dir *dir)
{
	_cleanup_free_ char *full = NULL, *name = root_name(root, dir->path);
	_cleanup_strv_free_ char **names = NULL;
	int r;

	if (!name)
		return -ENOMEM;
	r = path_under_root(root, dir->path, &full);
	if (r >= 0)
		r = nm_list_dir(full, dir->require_suffix, &names);
	if (r == -ENOMEM)
		return r;
	if (r < 0)
		return other_findings_add_unreadable(&c->unreadable, OTHER_MANAGER_NETWORKMANAGER,
						     name, root_strerror(r));
	for (size_t i = 0; r > 0 && names[i]; i++) {
		_cleanup_free_ char *path = strdup_printf("%s/%s", dir->path, names[i]);

		r = path ? nm_load_file(c, root, path) : -ENOMEM;
		if (r >= 0)
			r = 1;
	}
	return r;
}

/* link_dirs as the host names them, with "/sub" appended when sub is not
 * NULL */
static int link_dirs_with(const char *sub, char ***ret)
{
	_cleanup_strv_free_ char **dirs = calloc(1, sizeof(char *));

	if (!dirs)
		return -ENOMEM;
	for (size_t i = 0; i < ELEMENTSOF(link_dirs); i++) {
		_cleanup_free_ char *dir = sub ? strdup_printf("%s/%s", link_dirs[i], sub) :
						 strdup(link_dirs[i]);

		if (!dir || strv_consume(&dirs, TAKE_PTR(dir)) < 0)
			return -ENOMEM;
	}
	*ret = TAKE_PTR(dirs);
	return 0;
}

/* full as conf_files_list_root() made it: under the root, as layouts are named */
static int link_parse_file(struct link_file *lf, const char *full)
{
	_cleanup_free_ char *text = NULL;
	int r = conf_read_file(full, &text);

	if (r == -ENOMEM)
		return r;
	if (r < 0)
		return link_file_set_unreadable(lf, full, conf_read_strerror(r));
	return link_file_parse(lf, full, text);
}

static int link_load_dropins(struct link_file *lf, const char *root, const char *name)
{
	_cleanup_free_ char *sub = strdup_printf("%s.d", name);
	_cleanup_strv_free_ char **dirs = NULL, **paths = NULL;
	struct conf_files_failure fail = {};
	int r;

	if (!sub)
		return -ENOMEM;
	r = link_dirs_with(sub, &dirs);
	if (r < 0)
		return r;
	r = conf_files_list_root(root, (const char *const *)dirs, "conf", &paths, &fail);
	if (r == -ENOMEM)
		return r;
	if (r < 0) {
		_cleanup_free_ char *why = strdup_printf("%s: %s", fail.dir, fail.why);

		return why ? link_file_set_unreadable(lf, lf->path, why) : -ENOMEM;
	}
	for (size_t i = 0; r >= 0 && paths[i]; i++)
		r = link_parse_file(lf, paths[i]);
	return r;
}

static int link_load_one(struct other_configs *c, const char *root, const char *full)
{
	struct link_file *items = realloc(c->links, sizeof(*items) * (c->n_links + 1));
	struct link_file *lf;
	int r;

	if (!items)
		return -ENOMEM;
	c->links = items;
	lf = &c->links[c->n_links++];
	*lf = (struct link_file){};
	r = link_parse_file(lf, full);
	if (r >= 0)
		r = link_load_dropins(lf, root, strrchr(full, '/') + 1);
	return r;
}

static int link_load_all(struct other_configs *c, const char *root)
{
	_cleanup_strv_free_ char **dirs = NULL, **paths = NULL;
	struct conf_files_failure fail = {};
	int r = link_dirs_with(NULL, &dirs);

	if (r < 0)
		return r;
	r = conf_files_list_root(root, (const char *const *)dirs, "link", &paths, &fail);
	if (r == -ENOMEM)
		return r;
	if (r < 0)
		/* any file of it may be the first to match */
		return other_findings_add_unreadable(&c->unreadable, OTHER_MANAGER_SYSTEMD_LINK,
						     fail.dir, fail.why);
	for (size_t i = 0; r >= 0 && paths[i]; i++)
		r = link_load_one(c, root, paths[i]);
	return r;
}

static int sno_load(struct other_configs *c, const char *root)
{
	_cleanup_free_ char *full = NULL, *text = NULL,
			    *name = root_name(root, SNO_INTERFACE_CONFIG);
	int r;

	if (!name)
		return -ENOMEM;
	r = path_under_root(root, SNO_INTERFACE_CONFIG, &full);
	if (r >= 0)
		r = conf_read_file(full, &text);
	if (r == -ENOENT)
		return 0;
	if (r == -ENOMEM)
		return r;
	if (r < 0)
		return other_findings_add_unreadable(
			&c->unreadable, OTHER_MANAGER_SRIOV_OPERATOR, name,
			r == -EXDEV ? root_strerror(r) : conf_read_strerror(r));
	r = sno_config_scan(name, text, &c->sno);
	if (r < 0 || !c->sno.error)
		return r;
	return other_findings_add_unreadable_at(&c->unreadable, OTHER_MANAGER_SRIOV_OPERATOR, name,
						c->sno.error_line, c->sno.error);
}

int other_configs_load(const char *root, struct other_configs **ret)
{
	struct other_configs *c = calloc(1, sizeof(*c));
	int r = c ? 0 : -ENOMEM;

	for (size_t i = 0; r >= 0 && i < ELEMENTSOF(nm_dirs); i++)
		r = nm_load_dir(c, root, &nm_dirs[i]);
	if (r >= 0)
		r = link_load_all(c, root);
	if (r >= 0)
		r = sno_load(c, root);
	if (r < 0) {
		other_configs_free(c);
		return r;
	}
	*ret = c;
	return 0;
}
