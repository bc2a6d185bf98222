/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* Modules of the Linux host through libkmod: loading what the vendor table
 * names (as modprobe would, blacklist applied) and listing what is loaded. */

#include <libkmod.h>

#include "host-linux-internal.h"

static inline void kmod_module_unref_listp(struct kmod_list **l)
{
	if (*l)
		kmod_module_unref_list(*l);
}
#define _cleanup_kmod_list_ _cleanup_(kmod_module_unref_listp)

static inline void kmod_module_unrefp(struct kmod_module **m)
{
	if (*m)
		kmod_module_unref(*m);
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
	if (!hl->kmod) {
		hl->kmod = kmod_new(NULL, NULL);
		if (!hl->kmod) {
			host_set_error(&hl->host, "cannot open the kernel module index");
			return -ENOMEM;
		}
		kmod_set_log_fn(hl->kmod, kmod_log_nothing, NULL);
	}
	*ret = hl->kmod;
	return 0;
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
	r = kmod_module_probe_insert_module(mod, KMOD_PROBE_APPLY_BLACKLIST, NULL, NULL, NULL,
					    NULL);
	if (r == KMOD_PROBE_APPLY_BLACKLIST) {
		host_set_error(&hl->host, "module %s is blacklisted", kmod_module_get_name(mod));
		return -EPERM;
	}
	if (r < 0) {
		host_set_error(&hl->host, "loading module %s (%s): %s", name,
			       kmod_module_get_name(mod), strerror(-r));
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
	r = kmod_module_new_from_lookup(ctx, module, &list);
	if (r < 0) {
		host_set_error(&hl->host, "looking up module %s: %s", module, strerror(-r));
		return r;
	}
	if (!list) {
		host_set_error(&hl->host, "no module %s", module);
		return -ENOENT;
	}
	kmod_list_foreach(l, list)
	{
		_cleanup_(kmod_module_unrefp) struct kmod_module *mod = kmod_module_get_module(l);

		r = insert(hl, module, mod);
		if (r < 0)
			return r;
	}
	return 0;
}

int hl_list_modules(struct host_linux *hl, char ***ret)
{
	_cleanup_kmod_list_ struct kmod_list *list = NULL;
	_cleanup_strv_free_ char **names = calloc(1, sizeof(char *));
	struct kmod_list *l;
	struct kmod_ctx *ctx;
	int r;

	if (!names)
		return -ENOMEM;
	r = kmod_ctx_get(hl, &ctx);
	if (r < 0)
		return r;
	r = kmod_module_new_from_loaded(ctx, &list);
	/* a kernel without loadable modules has no /proc/modules */
	if (r == -ENOENT)
		r = 0;
	if (r < 0) {
		host_set_error(&hl->host, "listing loaded modules: %s", strerror(-r));
		return r;
	}
	kmod_list_foreach(l, list)
	{
		_cleanup_(kmod_module_unrefp) struct kmod_module *mod = kmod_module_get_module(l);

		r = strv_extend(&names, kmod_module_get_name(mod));
		if (r < 0)
			return r;
	}
	strv_sort(names);
	*ret = TAKE_PTR(names);
	return 0;
}
