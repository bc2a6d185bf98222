/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* One ResourceName= is one pool of the device plugin on the whole host:
 * this PF's VFs against another PF's desired state (desired.c builds it)
 * with the rule layout-rules.c applies to the VFs of one PF. Said at this
 * PF's line and, as the other PF's build compares the other way, at the
 * other's: both PFs are held, as neither file is more right than the
 * other, and so the device plugin's configuration never gets the pool. */

#include "desired-internal.h"

bool desired_has_resource(const struct desired_ctx *c)
{
	for (size_t i = 0; i < c->d->n_vfs; i++)
		if (vf_settings_has(&c->d->vfs[i], VF_KEY_RESOURCE_NAME))
			return true;
	return false;
}

/* Whether VF i's ResourceName= line was said already for an earlier VF. */
static bool line_said(const struct desired_ctx *c, const bool *said, size_t i)
{
	const struct src *at = &c->d->vfs[i].src[VF_KEY_RESOURCE_NAME];

	for (size_t j = 0; j < i; j++) {
		const struct src *there = &c->d->vfs[j].src[VF_KEY_RESOURCE_NAME];

		if (said[j] && streq_ptr(there->file, at->file) && there->line == at->line)
			return true;
	}
	return false;
}

/* VF i of this PF against the first VF of o (of host PF hp) of another kind
 * with its ResourceName=. 1 when said. */
static int resource_vf(struct desired_ctx *c, size_t i, const struct pf_state *hp,
		       const struct pf_desired *o)
{
	const struct driver_info *drv = driver_info_get(hp->driver);
	const char *driver = hp->vf_driver ?: drv ? drv->vf_driver : NULL;
	char va[64], vb[64];

	snprintf(vb, sizeof(vb), "VF %zu of %s", i, c->d->pci);
	for (size_t j = 0; j < o->n_vfs; j++) {
		int r;

		snprintf(va, sizeof(va), "VF %zu of %s", j, o->pci);
		r = rules_check_resource_across(&c->out, &o->vfs[j], va, driver, &c->d->vfs[i], vb);
		if (r != 0)
			return r;
	}
	return 0;
}

int desired_resource_against(struct desired_ctx *c, const struct pf_state *hp,
			     const struct pf_desired *o)
{
	_cleanup_free_ bool *said = calloc(c->d->n_vfs ?: 1, sizeof(*said));

	if (!said)
		return -ENOMEM;
	for (size_t i = 0; i < c->d->n_vfs; i++) {
		int r;

		if (!vf_settings_has(&c->d->vfs[i], VF_KEY_RESOURCE_NAME) || line_said(c, said, i))
			continue;
		r = resource_vf(c, i, hp, o);
		if (r < 0)
			return r;
		said[i] = r > 0;
	}
	return 0;
}
