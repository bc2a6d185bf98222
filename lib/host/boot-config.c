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

/* Whether one item of a comma list ("on,sm_on") is item. */
static bool has_item(const char *list, const char *item)
{
	size_t n = strlen(item);

	for (const char *p = list; p; p = strchr(p, ','), p = p ? p + 1 : NULL)
		if (strncmp(p, item, n) == 0 && (p[n] == ',' || p[n] == '\0'))
			return true;
	return false;
}

bool kernel_arg_turns_iommu_off(const char *arg)
{
	const char *v = strchr(arg, '=');
	size_t n = v ? (size_t)(v - arg) : 0;

	if (!v++)
		return false;
	if ((n == 11 && startswith(arg, "intel_iommu")) || (n == 9 && startswith(arg, "amd_iommu")))
		return has_item(v, "off");
	return n == 5 && startswith(arg, "iommu") && (has_item(v, "off") || has_item(v, "nopt"));
}

/* Each word of text's lines (comments aside) that turns the IOMMU off, as
 * the pair "shown:LINE", word, appended to *pairs. */
static int note_off_words(char ***pairs, const char *shown, const char *text)
{
	unsigned line = 0;

	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		size_t len = strcspn(p, "\n");
		_cleanup_free_ char *l = strndup(p, len);
		char *save = NULL;

		line++;
		if (!l)
			return -ENOMEM;
		if (l[strspn(l, " \t")] == '#')
			continue;
		for (char *w = strtok_r(l, " \t\"'", &save); w;
		     w = strtok_r(NULL, " \t\"'", &save)) {
			char *where;

			if (!kernel_arg_turns_iommu_off(w))
				continue;
			where = strdup_printf("%s:%u", shown, line);
			if (strv_consume(pairs, where) < 0 || strv_extend(pairs, w) < 0)
				return -ENOMEM;
		}
	}
	return 0;
}

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
static int grub_feed_file(struct grub_default *g, char ***pairs, const char *root, const char *path,
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
	return r < 0 ? r : note_off_words(pairs, shown, text);
}

static int grub_cmdlines(const char *root, char ***ret, char ***pairs, char **ret_error)
{
	_cleanup_strv_free_ char **dropins = NULL, **l = NULL;
	struct grub_default g = {};
	struct conf_files_failure fail;
	int r;

	r = grub_feed_file(&g, pairs, root, GRUB_DEFAULT_FILE, false, ret_error);
	if (r >= 0) {
		r = conf_files_list_root(*root ? root : NULL,
					 (const char *const[]){ GRUB_DEFAULT_DROPIN_DIR, NULL },
					 "cfg", &dropins, &fail);
		if (r < 0 && r != -ENOMEM)
			r = set_error(ret_error, host_path(root, fail.dir), 0, fail.why);
	}
	for (size_t i = 0; r >= 0 && dropins[i]; i++)
		r = grub_feed_file(&g, pairs, root, dropins[i], true, ret_error);
	if (r >= 0 && strv_consume(&l, grub_default_cmdline(&g)) < 0)
		r = -ENOMEM;
	grub_default_done(&g);
	if (r >= 0)
		*ret = TAKE_PTR(l);
	return r;
}

static int kernel_install_cmdlines(const char *root, char ***ret, char ***pairs, char **ret_error)
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
	if (strv_extend(&l, text) < 0 || note_off_words(pairs, "/etc/kernel/cmdline", text) < 0)
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

static int grubby_cmdlines(const char *root, char ***ret, char ***pairs, char **ret_error)
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
		if (strv_consume(&l, bls_options(text)) < 0 ||
		    note_off_words(pairs, host_path(root, entries[i]), text) < 0)
			return -ENOMEM;
	}
	*ret = TAKE_PTR(l); /* none: grubby of a grub.cfg without BLS, not known */
	return 0;
}

/* Whether word is one of the words of a command line of l. */
static bool in_cmdlines(char *const *l, const char *word)
{
	for (; l && *l; l++) {
		_cleanup_strv_free_ char **words = NULL;

		if (strv_split(*l, &words) >= 0 && strv_contains(words, word))
			return true;
	}
	return false;
}

/* pairs without those whose word no command line of l holds (a line that
 * a later assignment replaced). */
static int keep_in_cmdlines(char *const *l, char **pairs, char ***ret)
{
	_cleanup_strv_free_ char **keep = NULL;

	for (size_t i = 0; pairs && pairs[i] && pairs[i + 1]; i += 2)
		if (in_cmdlines(l, pairs[i + 1]) &&
		    (strv_extend(&keep, pairs[i]) < 0 || strv_extend(&keep, pairs[i + 1]) < 0))
			return -ENOMEM;
	*ret = TAKE_PTR(keep);
	return 0;
}

static int read_cmdlines(const char *root, enum boot_loader bl, char ***ret_cmdlines, char ***pairs,
			 char **ret_error)
{
	switch (bl) {
	case BOOT_LOADER_GRUB:
		return grub_cmdlines(root, ret_cmdlines, pairs, ret_error);
	case BOOT_LOADER_KERNEL_INSTALL:
		return kernel_install_cmdlines(root, ret_cmdlines, pairs, ret_error);
	case BOOT_LOADER_GRUBBY:
		return grubby_cmdlines(root, ret_cmdlines, pairs, ret_error);
	case BOOT_LOADER_NONE:
	case _BOOT_LOADER_MAX:
	case _BOOT_LOADER_INVALID:
		break;
	}
	return 0;
}

int boot_loader_cmdlines(const char *root, enum boot_loader bl, char ***ret_cmdlines,
			 char ***ret_iommu_off, char **ret_error)
{
	_cleanup_strv_free_ char **pairs = NULL;
	int r;

	*ret_cmdlines = NULL;
	*ret_iommu_off = NULL;
	*ret_error = NULL;
	r = read_cmdlines(root, bl, ret_cmdlines, &pairs, ret_error);
	if (r < 0)
		return r;
	return keep_in_cmdlines(*ret_cmdlines, pairs, ret_iommu_off);
}
