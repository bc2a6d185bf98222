/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* Other SR-IOV managers on the PF (the layout set's other_configs): a
 * file that surely applies to it holds it, with an error at that file's
 * line; one that may apply is a warning, as is one that could not be
 * read. */

#include "desired-internal.h"

static const char *pf_said(const struct pf_state *pf)
{
	return pf->name ?: pf->pci;
}

static int other_error(struct desired_ctx *c, const struct other_finding *f)
{
	return hw_error(c, f->path, f->line,
			"%s also configures %s (%s): %s; sriov-persist leaves the PF alone "
			"until that setting is removed",
			other_manager_to_string(f->manager), pf_said(c->pf), f->how, f->setting);
}

static int other_warning(struct desired_ctx *c, const struct other_finding *f)
{
	if (c->alone)
		return 0;
	if (f->unreadable)
		return diag_add(c->diags, DIAG_WARNING, f->path, f->line,
				"%s: %s; whether it also configures %s is unknown",
				other_manager_to_string(f->manager), f->setting, pf_said(c->pf));
	return diag_add(c->diags, DIAG_WARNING, f->path, f->line,
			"%s may also configure %s (%s): %s", other_manager_to_string(f->manager),
			pf_said(c->pf), f->how, f->setting);
}

int desired_check_others(struct desired_ctx *c)
{
	char id_path[PF_ID_PATH_MAX];
	struct pf_identity id;
	int r;

	if (!c->set->others)
		return 0;
	pf_identity_from_state(c->pf, id_path, &id);
	r = other_configs_match(c->set->others, &id, &c->others);
	for (size_t i = 0; r >= 0 && i < c->others.n; i++) {
		const struct other_finding *f = &c->others.items[i];

		r = f->certainty == OTHER_CERTAINTY_MATCHES && !f->unreadable ? other_error(c, f) :
										other_warning(c, f);
	}
	return r;
}
