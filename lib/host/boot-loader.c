/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* Kernel arguments through the boot loader's own tool. grub.cfg, the BLS
 * entries and the UKIs are never edited here: the tool that owns them
 * writes them. The record is written before the configuration changes and
 * removed after the arguments are out again, so that whatever happens in
 * between, what may be ours is on record. */

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "boot-loader.h"
#include "json-util.h"
#include "run-tool.h"

#define TOOL_TIMEOUT (300 * USEC_PER_SEC) /* update-grub probes every disk */
#define TOOL_OUTPUT_MAX (1u << 20)
#define CMDLINE_FILE "/etc/kernel/cmdline"

static const char *const grubby_paths[] = { "/usr/sbin/grubby", "/sbin/grubby" };

/* root/path, resolved inside root (path_under_root(): -EXDEV for a link
 * out of it); "" is the host itself. */
static int under(const char *root, const char *path, char **ret)
{
	return path_under_root(*root ? root : NULL, path, ret);
}

static int read_under(const char *root, const char *path, char **ret)
{
	_cleanup_free_ char *p = NULL;
	int r = under(root, path, &p);

	return r < 0 ? r : read_file(p, ret);
}

static bool exists_under(const char *root, const char *path, int mode)
{
	_cleanup_free_ char *p = NULL;

	return under(root, path, &p) >= 0 && access(p, mode) == 0;
}

static bool regular_under(const char *root, const char *path)
{
	_cleanup_free_ char *p = NULL;
	struct stat st;

	return under(root, path, &p) >= 0 && stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

static const char *grubby_path(const char *root)
{
	for (size_t i = 0; i < ELEMENTSOF(grubby_paths); i++)
		if (exists_under(root, grubby_paths[i], X_OK))
			return grubby_paths[i];
	return NULL;
}

enum boot_loader boot_loader_detect(const char *root)
{
	if (grubby_path(root))
		return BOOT_LOADER_GRUBBY;
	if (exists_under(root, "/usr/bin/kernel-install", X_OK) &&
	    regular_under(root, CMDLINE_FILE))
		return BOOT_LOADER_KERNEL_INSTALL;
	if (exists_under(root, "/usr/sbin/update-grub", X_OK) &&
	    regular_under(root, "/etc/default/grub") && regular_under(root, "/boot/grub/grub.cfg"))
		return BOOT_LOADER_GRUB;
	return BOOT_LOADER_NONE;
}

bool kernel_arg_allowed(const char *arg)
{
	return streq(arg, "intel_iommu=on") || streq(arg, "amd_iommu=on") || streq(arg, "iommu=pt");
}

int kernel_args_record_parse(const char *text, enum boot_loader *ret_loader, char ***ret_added)
{
	_cleanup_json_ struct json_object *o = json_tokener_parse(text);
	_cleanup_strv_free_ char **added = calloc(1, sizeof(char *));
	struct json_object *loader, *list;
	enum boot_loader bl;
	size_t n;

	if (!added)
		return -ENOMEM;
	if (!o || !json_object_is_type(o, json_type_object) || json_object_object_length(o) != 2 ||
	    !json_object_object_get_ex(o, "boot_loader", &loader) ||
	    !json_object_object_get_ex(o, "added", &list) ||
	    !json_object_is_type(loader, json_type_string) ||
	    !json_object_is_type(list, json_type_array))
		return -EBADMSG;
	bl = boot_loader_from_string(json_object_get_string(loader));
	if (bl < 0 || bl == BOOT_LOADER_NONE)
		return -EBADMSG;
	n = json_object_array_length(list);
	for (size_t i = 0; i < n; i++) {
		struct json_object *a = json_object_array_get_idx(list, i);
		const char *s = json_object_get_string(a);

		if (!json_object_is_type(a, json_type_string) || !kernel_arg_allowed(s) ||
		    strv_contains(added, s))
			return -EBADMSG;
		if (strv_extend(&added, s) < 0)
			return -ENOMEM;
	}
	*ret_loader = bl;
	*ret_added = TAKE_PTR(added);
	return 0;
}

char *kernel_args_record_format(enum boot_loader loader, char *const *added)
{
	_cleanup_json_ struct json_object *o = json_object_new_object();
	struct json_object *l = json_strv(added);

	if (!o || !l ||
	    json_object_object_add(o, "boot_loader",
				   json_object_new_string(boot_loader_to_string(loader))) < 0 ||
	    json_object_object_add(o, "added", l) < 0) {
		json_object_put(l);
		return NULL;
	}
	return strdup_printf("%s\n",
			     json_object_to_json_string_ext(
				     o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
}

int kernel_args_record_read(const char *root, enum boot_loader *ret_loader, char ***ret_added)
{
	_cleanup_free_ char *text = NULL;
	int r = read_under(root, KERNEL_ARGS_RECORD, &text);

	if (r < 0)
		return r;
	return kernel_args_record_parse(text, ret_loader, ret_added);
}

char *cmdline_add_words(const char *line, char *const *words)
{
	_cleanup_strv_free_ char **l = NULL;

	if (strv_split(line, &l) < 0)
		return NULL;
	for (; words && *words; words++)
		if (!strv_contains(l, *words) && strv_extend(&l, *words) < 0)
			return NULL;
	return strv_join(l, " ");
}

char *cmdline_remove_words(const char *line, char *const *words)
{
	_cleanup_strv_free_ char **l = NULL, **keep = calloc(1, sizeof(char *));

	if (!keep || strv_split(line, &l) < 0)
		return NULL;
	for (char **w = l; *w; w++)
		if (!strv_contains(words, *w) && strv_extend(&keep, *w) < 0)
			return NULL;
	return strv_join(keep, " ");
}

char *grub_dropin_format(char *const *args)
{
	_cleanup_free_ char *joined = strv_join((char **)args, " ");

	if (!joined)
		return NULL;
	return strdup_printf(
		"# Written by sriov-persist ([Reboot] KernelArguments=manage in sriov-persist.conf):\n"
		"# the IOMMU that VFs bound to vfio-pci need. \"sriovctl reset\" takes it out again.\n"
		"GRUB_CMDLINE_LINUX=\"$GRUB_CMDLINE_LINUX %s\"\n",
		joined);
}

/* Writes root/path (its directory is made as needed) atomically. */
static int write_under(const char *root, const char *path, const char *text)
{
	_cleanup_free_ char *full = NULL, *dir = NULL;
	char *slash;
	int r;

	r = under(root, path, &full);
	if (r < 0)
		return r;
	if (!(dir = strdup(full)))
		return -ENOMEM;
	slash = strrchr(dir, '/');
	*slash = '\0';
	r = mkdir_p(dir, 0755);
	if (r < 0)
		return r;
	return write_file_atomic(dir, slash + 1, text, 0644);
}

static int remove_under(const char *root, const char *path)
{
	_cleanup_free_ char *full = NULL;
	int r = under(root, path, &full);

	if (r < 0)
		return r;
	return unlink(full) < 0 && errno != ENOENT ? -errno : 0;
}

static int write_record(const char *root, enum boot_loader loader, char *const *added)
{
	_cleanup_free_ char *text = kernel_args_record_format(loader, added);

	return text ? write_under(root, KERNEL_ARGS_RECORD, text) : -ENOMEM;
}

/* Runs argv (argv[0] under root); NULL *ret_error when it exited 0. */
static int run(const char *root, char **argv, char **ret_error)
{
	_cleanup_free_ char *path = NULL;
	const char *tool = argv[0];
	struct tool_run t = {};
	char *line;
	int r;

	r = under(root, argv[0], &path);
	if (r < 0)
		return r;
	argv[0] = path;
	r = tool_run(argv, TOOL_TIMEOUT, TOOL_OUTPUT_MAX, &t);
	argv[0] = (char *)tool;
	if (r == -ENOMEM)
		return r;
	if (r == -ETIMEDOUT)
		*ret_error = strdup_printf("%s did not finish within %llu s", tool,
					   (unsigned long long)(TOOL_TIMEOUT / USEC_PER_SEC));
	else if (r < 0)
		*ret_error = strdup_printf("%s: %s", tool, strerror(-r));
	else if (t.exit_status != 0) {
		/* the tool's last line of stderr says why, as a rule */
		strip_newline(t.err);
		line = strrchr(t.err, '\n');
		line = line ? line + 1 : t.err;
		*ret_error = strdup_printf("%s failed (exit code %d)%s%s", tool, t.exit_status,
					   *line ? ": " : "", line);
	} else {
		tool_run_done(&t);
		return 0;
	}
	tool_run_done(&t);
	return *ret_error ? -EIO : -ENOMEM;
}

static int kernel_release(const char *root, char **ret)
{
	_cleanup_free_ char *text = NULL;
	int r = read_under(root, "/proc/sys/kernel/osrelease", &text);

	if (r < 0)
		return r;
	strip_newline(text);
	if (!*text || strchr(text, '/') || streq(text, "..") || streq(text, "."))
		return -EBADMSG;
	*ret = TAKE_PTR(text);
	return 0;
}

/* kernel-install add for the running kernel, from the image it was
 * installed from. Kernels installed later take /etc/kernel/cmdline as they
 * are installed. */
static int kernel_install(const char *root, char **ret_error)
{
	_cleanup_free_ char *kver = NULL, *image = NULL;
	int r = kernel_release(root, &kver);

	if (r < 0) {
		*ret_error =
			strdup_printf("cannot read the running kernel's release: %s", strerror(-r));
		return *ret_error ? r : -ENOMEM;
	}
	image = strdup_printf("/usr/lib/modules/%s/vmlinuz", kver);
	if (image && !regular_under(root, image)) {
		free(image);
		image = strdup_printf("/boot/vmlinuz-%s", kver);
		if (image && !regular_under(root, image)) {
			*ret_error =
				strdup_printf("no kernel image of %s in /usr/lib/modules/%s or "
					      "/boot for kernel-install",
					      kver, kver);
			return *ret_error ? -ENOENT : -ENOMEM;
		}
	}
	if (!image)
		return -ENOMEM;
	{
		_cleanup_free_ char *full = NULL;
		char *argv[] = { "/usr/bin/kernel-install", "add", kver, NULL, NULL };

		r = under(root, image, &full);
		if (r < 0)
			return r;
		argv[3] = full;
		return run(root, argv, ret_error);
	}
}

/* /etc/kernel/cmdline with words added (or taken out), then kernel-install;
 * the file goes back as it was when the tool fails. */
static int set_kernel_install(const char *root, char *const *words, bool add, char **ret_error)
{
	_cleanup_free_ char *old = NULL, *new = NULL, *text = NULL;
	int r;

	r = read_under(root, CMDLINE_FILE, &old);
	if (r < 0) {
		*ret_error = strdup_printf("%s: %s", CMDLINE_FILE, read_strerror(r));
		return *ret_error ? r : -ENOMEM;
	}
	strip_newline(old);
	new = add ? cmdline_add_words(old, words) : cmdline_remove_words(old, words);
	if (!new || !(text = strdup_printf("%s\n", new)))
		return -ENOMEM;
	r = write_under(root, CMDLINE_FILE, text);
	if (r < 0) {
		*ret_error = strdup_printf("%s: %s", CMDLINE_FILE, strerror(-r));
		return *ret_error ? r : -ENOMEM;
	}
	r = kernel_install(root, ret_error);
	if (r < 0 && r != -ENOMEM) {
		_cleanup_free_ char *back = strdup_printf("%s\n", old);

		if (back)
			(void)write_under(root, CMDLINE_FILE, back);
	}
	return r;
}

static int set_grubby(const char *root, char *const *words, bool add, char **ret_error)
{
	_cleanup_free_ char *joined = strv_join((char **)words, " "), *opt = NULL;
	const char *tool = grubby_path(root);

	if (!joined || !(opt = strdup_printf("%s=%s", add ? "--args" : "--remove-args", joined)))
		return -ENOMEM;
	{
		char *argv[] = { (char *)(tool ?: grubby_paths[0]), "--update-kernel=ALL", opt,
				 NULL };

		return run(root, argv, ret_error);
	}
}

/* The drop-in, then update-grub; without it again when update-grub fails. */
static int set_grub(const char *root, char *const *words, bool add, char **ret_error)
{
	_cleanup_free_ char *text = add ? grub_dropin_format(words) : NULL;
	char *argv[] = { "/usr/sbin/update-grub", NULL };
	int r;

	if (add && !text)
		return -ENOMEM;
	r = add ? write_under(root, KERNEL_ARGS_GRUB_DROPIN, text) :
		  remove_under(root, KERNEL_ARGS_GRUB_DROPIN);
	if (r < 0) {
		*ret_error = strdup_printf("%s: %s", KERNEL_ARGS_GRUB_DROPIN, strerror(-r));
		return *ret_error ? r : -ENOMEM;
	}
	r = run(root, argv, ret_error);
	if (r < 0 && add)
		(void)remove_under(root, KERNEL_ARGS_GRUB_DROPIN);
	return r;
}

static int set_args(const char *root, enum boot_loader bl, char *const *words, bool add,
		    char **ret_error)
{
	switch (bl) {
	case BOOT_LOADER_GRUBBY:
		return set_grubby(root, words, add, ret_error);
	case BOOT_LOADER_KERNEL_INSTALL:
		return set_kernel_install(root, words, add, ret_error);
	case BOOT_LOADER_GRUB:
		return set_grub(root, words, add, ret_error);
	case BOOT_LOADER_NONE:
	case _BOOT_LOADER_MAX:
	case _BOOT_LOADER_INVALID:
		break;
	}
	*ret_error = strdup("no boot loader tool found (grubby; kernel-install with "
			    "/etc/kernel/cmdline; update-grub with /etc/default/grub)");
	return *ret_error ? -ENOENT : -ENOMEM;
}

/* The arguments on record (NULL when there is no record), which must
 * have been added through the host's tool bl. */
static int record_for_add(const char *root, enum boot_loader bl, char ***ret_had, char **ret_error)
{
	enum boot_loader recorded;
	int r = kernel_args_record_read(root, &recorded, ret_had);

	if (r == -EBADMSG) {
		*ret_error = strdup_printf("%s: not a record of kernel arguments; remove it once "
					   "the boot loader is as it should be",
					   KERNEL_ARGS_RECORD);
		return *ret_error ? r : -ENOMEM;
	}
	if (r >= 0 && recorded != bl) {
		*ret_error = strdup_printf("%s says the arguments were added through %s, but the "
					   "host's tool is now %s: run sriovctl reset first",
					   KERNEL_ARGS_RECORD, boot_loader_to_string(recorded),
					   boot_loader_to_string(bl));
		return *ret_error ? -EBUSY : -ENOMEM;
	}
	if (r < 0 && r != -ENOENT) {
		*ret_error = strdup_printf("%s: %s", KERNEL_ARGS_RECORD, read_strerror(r));
		return *ret_error ? r : -ENOMEM;
	}
	return 0;
}

int kernel_args_add(const char *root, char *const *args, char **ret_error)
{
	_cleanup_strv_free_ char **had = NULL, **all = NULL;
	enum boot_loader bl = boot_loader_detect(root);
	int r;

	*ret_error = NULL;
	for (char *const *a = args; a && *a; a++)
		if (!kernel_arg_allowed(*a)) {
			*ret_error =
				strdup_printf("%s: not a kernel argument sriov-persist adds", *a);
			return *ret_error ? -EINVAL : -ENOMEM;
		}
	r = record_for_add(root, bl, &had, ret_error);
	if (r < 0)
		return r;
	all = had ? strv_copy(had) : calloc(1, sizeof(char *));
	if (!all)
		return -ENOMEM;
	for (char *const *a = args; a && *a; a++)
		if (!strv_contains(all, *a) && strv_extend(&all, *a) < 0)
			return -ENOMEM;
	if (bl == BOOT_LOADER_NONE)
		return set_args(root, bl, all, true, ret_error);
	/* on record first: a crash in between leaves nothing of ours unknown */
	r = write_record(root, bl, all);
	if (r < 0) {
		*ret_error = strdup_printf("%s: %s", KERNEL_ARGS_RECORD, strerror(-r));
		return *ret_error ? r : -ENOMEM;
	}
	r = set_args(root, bl, all, true, ret_error);
	if (r < 0) {
		/* the configuration is as it was: so is the record */
		if (had)
			(void)write_record(root, bl, had);
		else
			(void)remove_under(root, KERNEL_ARGS_RECORD);
	}
	return r;
}

int kernel_args_remove(const char *root, char **ret_error)
{
	_cleanup_strv_free_ char **had = NULL;
	enum boot_loader bl;
	int r;

	*ret_error = NULL;
	r = kernel_args_record_read(root, &bl, &had);
	if (r == -ENOENT)
		return 0;
	if (r < 0) {
		*ret_error = strdup_printf("%s: %s", KERNEL_ARGS_RECORD,
					   r == -EBADMSG ? "not a record of kernel arguments" :
							   read_strerror(r));
		return *ret_error ? r : -ENOMEM;
	}
	if (boot_loader_detect(root) != bl) {
		_cleanup_free_ char *joined = strv_join(had, " ");

		*ret_error = strdup_printf("the arguments %s were added through %s, which this "
					   "host no longer uses: take them out yourself, then "
					   "remove %s",
					   strna(joined), boot_loader_to_string(bl),
					   KERNEL_ARGS_RECORD);
		return *ret_error ? -ENOENT : -ENOMEM;
	}
	if (strv_length(had) > 0) {
		r = set_args(root, bl, had, false, ret_error);
		if (r < 0)
			return r;
	}
	r = remove_under(root, KERNEL_ARGS_RECORD);
	if (r < 0)
		*ret_error = strdup_printf("%s: %s", KERNEL_ARGS_RECORD, strerror(-r));
	return r;
}
