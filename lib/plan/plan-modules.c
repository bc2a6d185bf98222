/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* Step 1 of the planner: the modules the VFs will need and the host has
 * not loaded (the kernel's VF driver, RDMA, a driver a VF is bound to),
 * decided once the VF steps are planned and put first. */

#include "plan-internal.h"

static bool module_listed(char *const *l, const char *m)
{
	for (; l && *l; l++)
		if (module_name_equal(*l, m))
			return true;
	return false;
}

static int need_module(struct plan_ctx *c, char ***mods, const char *m)
{
	if (module_listed(c->host->modules, m) || module_listed(*mods, m))
		return 0;
	return strv_extend(mods, m);
}

static bool any_vf_rdma(const struct plan_ctx *c)
{
	for (uint32_t i = 0; i < c->target && i < c->d->n_vfs; i++)
		if (vf_settings_wants_rdma(&c->d->vfs[i]))
			return true;
	return false;
}

static int need_modules(struct plan_ctx *c, const char *const *l, char ***mods)
{
	for (; l && *l; l++) {
		int r = need_module(c, mods, *l);
		if (r < 0)
			return r;
	}
	return 0;
}

/* The driver of every bind to a named driver (Driver=pci-stub, a DPDK
 * driver): loaded before any VF is created, so that a driver that cannot be
 * loaded fails the apply before it changes anything, and a loaded or
 * built-in one costs nothing (modprobe). */
static int need_bind_modules(struct plan_ctx *c, size_t n_actions, char ***mods)
{
	for (size_t i = 0; i < n_actions; i++) {
		const struct action *a = &c->p->actions[i];
		int r;

		if (a->type != ACTION_BIND_VF || !a->str)
			continue;
		r = need_module(c, mods, a->str);
		if (r < 0)
			return r;
	}
	return 0;
}

/* Step 1, decided last (it depends on the VF steps), put first. */
int plan_prepend_modules(struct plan_ctx *c)
{
	_cleanup_strv_free_ char **mods = NULL;
	struct plan *p = c->p;
	size_t n, old = p->n_actions;
	int r = 0;

	if (c->uses_default)
		r = need_modules(c, c->drv->vf_modules, &mods);
	if (r >= 0 && any_vf_rdma(c))
		r = need_modules(c, c->drv->rdma_modules, &mods);
	if (r >= 0 && c->iommu_bind)
		r = need_module(c, &mods, c->iommu_bind);
	if (r >= 0)
		r = need_bind_modules(c, old, &mods);
	if (r < 0)
		return r;
	n = strv_length(mods);
	if (n == 0)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!plan_add_action(p, ACTION_LOAD_MODULE, false))
			return -ENOMEM;
	memmove(p->actions + n, p->actions, sizeof(*p->actions) * old);
	for (size_t i = 0; i < n; i++)
		p->actions[i] =
			(struct action){ .type = ACTION_LOAD_MODULE, .str = TAKE_PTR(mods[i]) };
	return 0;
}
