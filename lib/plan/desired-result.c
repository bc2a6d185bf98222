/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* What a PF's desired state says, once built: the eswitch mode and VF
 * count it ends in, the VFs another tool made beyond them, whether a VF
 * needs an IOMMU; and the link type its VF keys are checked against. */

#include "desired-internal.h"
#include "pf-keys.h"

/* The link type the layout wants, else the one the port has: VF keys are
 * checked against the port as the layout makes it. */
bool desired_wants_infiniband(const struct desired_ctx *c)
{
	const struct pf_settings *s = &c->d->pf;

	return (pf_settings_has(s, PF_KEY_LINK_TYPE) ? s->link_type : c->pf->link_type) ==
	       LINK_TYPE_INFINIBAND;
}

enum eswitch_mode pf_desired_eswitch_mode(const struct pf_desired *d, const struct pf_state *pf)
{
	return pf_settings_has(&d->pf, PF_KEY_ESWITCH_MODE) ? d->pf.eswitch_mode : pf->eswitch_mode;
}

uint32_t pf_desired_num_vfs(const struct pf_desired *d, const struct pf_state *pf)
{
	const struct pf_settings *s = &d->pf;

	if (pf_settings_externally_managed(s) && pf_settings_has(s, PF_KEY_VIRTUAL_FUNCTIONS))
		return s->num_vfs_max ? pf->total_vfs : s->num_vfs;
	return d->num_vfs;
}

bool pf_desired_has_extra_vfs(const struct pf_desired *d, const struct pf_state *pf)
{
	const struct pf_settings *s = &d->pf;

	return pf_settings_externally_managed(s) && pf_settings_has(s, PF_KEY_VIRTUAL_FUNCTIONS) &&
	       pf->num_vfs > pf_desired_num_vfs(d, pf);
}

char *pf_desired_extra_vfs(const struct pf_desired *d, const struct pf_state *pf)
{
	uint32_t want = pf_desired_num_vfs(d, pf);

	if (pf->vfs_ours)
		return strdup_printf("%u VFs exist, %u expected; sriov-persist created them "
				     "before ExternallyManaged=yes (its record)",
				     pf->num_vfs, want);
	return strdup_printf("another tool made %u VFs, %u expected (ExternallyManaged=yes)",
			     pf->num_vfs, want);
}

bool pf_desired_needs_iommu(const struct pf_desired *d)
{
	for (size_t i = 0; d && !d->held && i < d->num_vfs && i < d->n_vfs; i++)
		if (vf_settings_has(&d->vfs[i], VF_KEY_DRIVER) && d->vfs[i].attrs.driver &&
		    vf_driver_needs_iommu(d->vfs[i].attrs.driver))
			return true;
	return false;
}

struct pf_desired *pf_desired_free(struct pf_desired *d)
{
	if (!d)
		return NULL;
	strv_free(d->config_files);
	free(d->held_reason);
	for (size_t i = 0; i < d->n_vfs; i++)
		vf_settings_done(&d->vfs[i]);
	free(d->vfs);
	free(d);
	return NULL;
}
