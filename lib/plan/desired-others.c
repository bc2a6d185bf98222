/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* Other SR-IOV managers on the PF (the layout set's other_configs): a
 * file that surely applies to it holds it, with an error at that file's
 * line; one that may apply is a warning, as is one that could not be
 * read. The manager the layouts name in SharedWith= is known and left to
 * its part: a file of it that surely applies is compared with the layout
 * (desired-shared.c), one that may apply or cannot be read is a warning,
 * and when it has none for the PF, the key is a warning. */

#include "desired-internal.h"

static const char *pf_said(const struct pf_state *pf)
{
	return pf->name ?: pf->pci;
}

static int other_error(struct desired_ctx *c, const struct other_finding *f)
{
	return hw_error(c, f->path, f->line,
			"%s also configures %s (%s): %s; sriov-persist leaves the PF alone "
			"until that setting is removed, or the layout says SharedWith=%s (with "
			"ExternallyManaged=yes)",
			other_manager_to_string(f->manager), pf_said(c->pf), f->how, f->setting,
			other_manager_key_to_string(f->manager));
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

/* SharedWith= names a manager none of whose files is about the PF. */
static int shared_with_unused(struct desired_ctx *c)
{
	const struct pf_settings *s = &c->d->pf;
	const struct src *at = &s->src[PF_KEY_SHARED_WITH];

	if (c->alone || !pf_settings_has(s, PF_KEY_SHARED_WITH))
		return 0;
	for (size_t i = 0; i < c->others.n; i++)
		if (c->others.items[i].manager == s->shared_with)
			return 0;
	return diag_add(c->diags, DIAG_WARNING, at->file, at->line,
			"SharedWith=%s: no file of %s configures %s",
			other_manager_key_to_string(s->shared_with),
			other_manager_to_string(s->shared_with), pf_said(c->pf));
}

int desired_check_others(struct desired_ctx *c)
{
	const struct pf_settings *s = &c->d->pf;
	char id_path[PF_ID_PATH_MAX];
	struct pf_identity id;
	int r;

	if (!c->set->others)
		return 0;
	pf_identity_from_state(c->pf, id_path, &id);
	r = other_configs_match(c->set->others, &id, &c->others);
	for (size_t i = 0; r >= 0 && i < c->others.n; i++) {
		const struct other_finding *f = &c->others.items[i];
		bool sure = f->certainty == OTHER_CERTAINTY_MATCHES && !f->unreadable;

		if (pf_settings_has(s, PF_KEY_SHARED_WITH) && f->manager == s->shared_with)
			r = sure ? desired_check_shared(c, f) : other_warning(c, f);
		else
			r = sure ? other_error(c, f) : other_warning(c, f);
	}
	return r < 0 ? r : shared_with_unused(c);
}
