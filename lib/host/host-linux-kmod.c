/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* Modules of the Linux host: loading what the vendor table names through
 * libkmod (as modprobe would, blacklist applied), and listing what is loaded
 * from /proc/modules.
 *
 * libkmod is opened with dlopen() on the first load, as systemd does: linked,
 * it brings libcrypto (module signatures), whose relocations alone cost every
 * process of ours about 400 KiB of private memory and a millisecond-scale
 * start, while most runs (the daemon after boot, the udev rule's match, any
 * apply whose modules are loaded) never load a module. Listing needs no
 * library: /proc/modules is the kernel's list, which libkmod reads too. */

#include <dlfcn.h>
#include <libkmod.h>

#include "host-linux-internal.h"

/* The functions of libkmod used here, resolved once. */
static struct {
	void *dl;
	typeof(kmod_new) *new_ctx;
	typeof(kmod_unref) *unref;
	typeof(kmod_set_log_fn) *set_log_fn;
	typeof(kmod_module_new_from_lookup) *new_from_lookup;
	typeof(kmod_module_get_module) *get_module;
	typeof(kmod_list_next) *list_next;
	typeof(kmod_module_get_name) *get_name;
	typeof(kmod_module_probe_insert_module) *probe_insert;
	typeof(kmod_module_unref) *module_unref;
	typeof(kmod_module_unref_list) *unref_list;
} kmod;

#define KMOD_LIBRARY "libkmod.so.2"

static int kmod_open(struct host_linux *hl)
{
	const struct {
		const char *name;
		void **fn;
	} syms[] = {
		{ "kmod_new", (void **)&kmod.new_ctx },
		{ "kmod_unref", (void **)&kmod.unref },
		{ "kmod_set_log_fn", (void **)&kmod.set_log_fn },
		{ "kmod_module_new_from_lookup", (void **)&kmod.new_from_lookup },
		{ "kmod_module_get_module", (void **)&kmod.get_module },
		{ "kmod_list_next", (void **)&kmod.list_next },
		{ "kmod_module_get_name", (void **)&kmod.get_name },
		{ "kmod_module_probe_insert_module", (void **)&kmod.probe_insert },
		{ "kmod_module_unref", (void **)&kmod.module_unref },
		{ "kmod_module_unref_list", (void **)&kmod.unref_list },
	};
	void *dl;

	if (kmod.dl)
		return 0;
	dl = dlopen(KMOD_LIBRARY, RTLD_NOW | RTLD_LOCAL);
	if (!dl) {
		host_set_error(&hl->host, "cannot load modules: %s", dlerror());
		return -EOPNOTSUPP;
	}
	for (size_t i = 0; i < ELEMENTSOF(syms); i++) {
		*syms[i].fn = dlsym(dl, syms[i].name);
		if (!*syms[i].fn) {
			host_set_error(&hl->host, "cannot load modules: %s lacks %s", KMOD_LIBRARY,
				       syms[i].name);
			dlclose(dl);
			return -EOPNOTSUPP;
		}
	}
	kmod.dl = dl;
	return 0;
}

static inline void kmod_module_unref_listp(struct kmod_list **l)
{
	if (*l)
		kmod.unref_list(*l);
}
#define _cleanup_kmod_list_ _cleanup_(kmod_module_unref_listp)

static inline void kmod_module_unrefp(struct kmod_module **m)
{
	if (*m)
		kmod.module_unref(*m);
}

/* The library does not print: libkmod's messages are dropped. */
static void kmod_log_nothing(void *data, int priority, const char *file, int line, const char *fn,
			     const char *format, va_list args)
{
}

/* The libkmod context, created on first use: reading a host that never
 * loads a module needs no module index. */
static int kmod_ctx_get(struct host_linux *hl, struct kmod_ctx **ret)
{
	int r;

	if (!hl->kmod) {
		r = kmod_open(hl);
		if (r < 0)
			return r;
		hl->kmod = kmod.new_ctx(NULL, NULL);
		if (!hl->kmod) {
			host_set_error(&hl->host, "cannot open the kernel module index");
			return -ENOMEM;
		}
		kmod.set_log_fn(hl->kmod, kmod_log_nothing, NULL);
	}
	*ret = hl->kmod;
	return 0;
}

void hl_kmod_free(struct host_linux *hl)
{
	if (hl->kmod)
		kmod.unref(hl->kmod);
	hl->kmod = NULL;
}

static bool module_name_is_valid(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > 63)
		return false;
	return strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") == n;
}

static int insert(struct host_linux *hl, const char *name, struct kmod_module *mod)
{
	int r;

	/* already loaded and built-in modules are success, as for modprobe */
	r = kmod.probe_insert(mod, KMOD_PROBE_APPLY_BLACKLIST, NULL, NULL, NULL, NULL);
	if (r == KMOD_PROBE_APPLY_BLACKLIST) {
		host_set_error(&hl->host, "module %s is blacklisted", kmod.get_name(mod));
		return -EPERM;
	}
	if (r < 0) {
		host_set_error(&hl->host, "loading module %s (%s): %s", name, kmod.get_name(mod),
			       strerror(-r));
		return r;
	}
	return 0;
}

int hl_load_module(struct host_linux *hl, const char *module)
{
	_cleanup_kmod_list_ struct kmod_list *list = NULL;
	struct kmod_list *l;
	struct kmod_ctx *ctx;
	int r;

	if (!module_name_is_valid(module)) {
		host_set_error(&hl->host, "invalid module name \"%s\"", module);
		return -EINVAL;
	}
	r = kmod_ctx_get(hl, &ctx);
	if (r < 0)
		return r;
	r = kmod.new_from_lookup(ctx, module, &list);
	if (r < 0) {
		host_set_error(&hl->host, "looking up module %s: %s", module, strerror(-r));
		return r;
	}
	if (!list) {
		host_set_error(&hl->host, "no module %s", module);
		return -ENOENT;
	}
	for (l = list; l; l = kmod.list_next(list, l)) {
		_cleanup_(kmod_module_unrefp) struct kmod_module *mod = kmod.get_module(l);

		r = insert(hl, module, mod);
		if (r < 0)
			return r;
	}
	return 0;
}

int hl_list_modules(struct host_linux *hl, char ***ret)
{
	_cleanup_strv_free_ char **names = calloc(1, sizeof(char *));
	_cleanup_free_ char *text = NULL;
	char *line, *next;
	int r;

	if (!names)
		return -ENOMEM;
	/* "name size refcount users state address", one module a line */
	r = read_file_at(hl->procfs_fd, "modules", 4 * 1024 * 1024, &text, NULL);
	/* a kernel without loadable modules has no /proc/modules */
	if (r == -ENOENT) {
		*ret = TAKE_PTR(names);
		return 0;
	}
	if (r < 0) {
		host_set_error(&hl->host, "reading /proc/modules: %s", strerror(-r));
		return r;
	}
	for (line = text; *line; line = next) {
		size_t n = strcspn(line, " \n");

		next = line + strcspn(line, "\n");
		if (*next)
			*next++ = '\0';
		if (n == 0)
			continue;
		line[n] = '\0';
		r = strv_extend(&names, line);
		if (r < 0)
			return r;
	}
	strv_sort(names);
	*ret = TAKE_PTR(names);
	return 0;
}
