/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* What the boot loader's configuration gives the next boot, read the way
 * its tool reads it, so that KernelArguments=manage adds only what is not
 * there yet: update-grub sources /etc/default/grub and then
 * each *.cfg of /etc/default/grub.d in order (grub-mkconfig, grub-common 2.06);
 * kernel-install takes /etc/kernel/cmdline; grubby edits the "options"
 * line of each BLS entry in /boot/loader/entries. */

#include "boot-loader.h"
#include "conf-files.h"
#include "grub-default.h"

#define BLS_ENTRIES "/boot/loader/entries"

/* root/path (root "" is the host), as the host names it again: for messages */
static const char *host_path(const char *root, const char *full)
{
	return *root && startswith(full, root) ? full + strlen(root) : full;
}

static int read_in_root(const char *root, const char *path, char **ret)
{
	_cleanup_free_ char *p = NULL;
	int r = path_under_root(*root ? root : NULL, path, &p);

	return r < 0 ? r : read_file(p, ret);
}

static int set_error(char **ret_error, const char *path, unsigned line, const char *why)
{
	*ret_error = line ? strdup_printf("%s:%u: %s", path, line, why) :
			    strdup_printf("%s: %s", path, why);
	return *ret_error ? -EBADMSG : -ENOMEM;
}

/* One file fed to g; a file that cannot be read, or that only a shell could
 * read, is an error. */
static int grub_feed_file(struct grub_default *g, const char *root, const char *path,
			  bool under_root, char **ret_error)
{
	_cleanup_free_ char *text = NULL, *why = NULL;
	const char *shown = under_root ? host_path(root, path) : path;
	unsigned line = 0;
	int r;

	r = under_root ? read_file(path, &text) : read_in_root(root, path, &text);
	if (r == -ENOMEM || (r == -ENOENT && !under_root))
		return r == -ENOENT ? 0 : r; /* grub-mkconfig: "if test -f" */
	if (r < 0)
		return set_error(ret_error, shown, 0, read_strerror(r));
	r = grub_default_feed(g, text, &line, &why);
	if (r == -EBADMSG)
		return set_error(ret_error, shown, line, why);
	return r;
}

static int grub_cmdlines(const char *root, char ***ret, char **ret_error)
{
	_cleanup_strv_free_ char **dropins = NULL, **l = NULL;
	struct grub_default g = {};
	struct conf_files_failure fail;
	int r;

	r = grub_feed_file(&g, root, GRUB_DEFAULT_FILE, false, ret_error);
	if (r >= 0) {
		r = conf_files_list_root(*root ? root : NULL,
					 (const char *const[]){ GRUB_DEFAULT_DROPIN_DIR, NULL },
					 "cfg", &dropins, &fail);
		if (r < 0 && r != -ENOMEM)
			r = set_error(ret_error, host_path(root, fail.dir), 0, fail.why);
	}
	for (size_t i = 0; r >= 0 && dropins[i]; i++)
		r = grub_feed_file(&g, root, dropins[i], true, ret_error);
	if (r >= 0 && strv_consume(&l, grub_default_cmdline(&g)) < 0)
		r = -ENOMEM;
	grub_default_done(&g);
	if (r >= 0)
		*ret = TAKE_PTR(l);
	return r;
}

static int kernel_install_cmdlines(const char *root, char ***ret, char **ret_error)
{
	_cleanup_free_ char *text = NULL;
	_cleanup_strv_free_ char **l = NULL;
	int r = read_in_root(root, "/etc/kernel/cmdline", &text);

	/* without it, kernel-install takes another file's or the running
	 * kernel's: not known here */
	if (r == -ENOMEM || r == -ENOENT)
		return r == -ENOENT ? 0 : r;
	if (r < 0)
		return set_error(ret_error, "/etc/kernel/cmdline", 0, read_strerror(r));
	if (strv_extend(&l, text) < 0)
		return -ENOMEM;
	*ret = TAKE_PTR(l);
	return 0;
}

/* The "options" of one BLS entry; "" when it has none or takes them from a
 * variable of grubenv ("options $kernelopts", RHEL 8): such an entry is not
 * known to have an argument, and grubby adds it there. */
static char *bls_options(const char *text)
{
	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		size_t n = strcspn(p, "\n");

		if (startswith(p, "options") && (p[7] == ' ' || p[7] == '\t'))
			return memchr(p, '$', n) ? strdup("") : strndup(p + 8, n - 8);
	}
	return strdup("");
}

static int grubby_cmdlines(const char *root, char ***ret, char **ret_error)
{
	_cleanup_strv_free_ char **entries = NULL, **l = NULL;
	struct conf_files_failure fail;
	int r;

	r = conf_files_list_root(*root ? root : NULL, (const char *const[]){ BLS_ENTRIES, NULL },
				 "conf", &entries, &fail);
	if (r == -ENOMEM)
		return r;
	if (r < 0)
		return set_error(ret_error, host_path(root, fail.dir), 0, fail.why);
	for (size_t i = 0; entries[i]; i++) {
		_cleanup_free_ char *text = NULL;

		r = read_file(entries[i], &text);
		if (r == -ENOMEM)
			return r;
		if (r < 0)
			return set_error(ret_error, host_path(root, entries[i]), 0,
					 read_strerror(r));
		if (strv_consume(&l, bls_options(text)) < 0)
			return -ENOMEM;
	}
	*ret = TAKE_PTR(l); /* none: grubby of a grub.cfg without BLS, not known */
	return 0;
}

int boot_loader_cmdlines(const char *root, enum boot_loader bl, char ***ret_cmdlines,
			 char **ret_error)
{
	*ret_cmdlines = NULL;
	*ret_error = NULL;
	switch (bl) {
	case BOOT_LOADER_GRUB:
		return grub_cmdlines(root, ret_cmdlines, ret_error);
	case BOOT_LOADER_KERNEL_INSTALL:
		return kernel_install_cmdlines(root, ret_cmdlines, ret_error);
	case BOOT_LOADER_GRUBBY:
		return grubby_cmdlines(root, ret_cmdlines, ret_error);
	case BOOT_LOADER_NONE:
	case _BOOT_LOADER_MAX:
	case _BOOT_LOADER_INVALID:
		break;
	}
	return 0;
}
