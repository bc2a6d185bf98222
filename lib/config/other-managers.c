/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "other-managers.h"

struct other_configs *other_configs_free(struct other_configs *c)
{
	if (!c)
		return NULL;
	for (size_t i = 0; i < c->n_nm; i++)
		nm_profile_done(&c->nm[i]);
	free(c->nm);
	for (size_t i = 0; i < c->n_links; i++)
		link_file_done(&c->links[i]);
	free(c->links);
	sno_config_done(&c->sno);
	other_findings_done(&c->unreadable);
	free(c);
	return NULL;
}

int other_configs_match(const struct other_configs *c, const struct pf_identity *id,
			struct other_findings *out)
{
	int r = other_findings_copy(out, &c->unreadable);

	for (size_t i = 0; r >= 0 && i < c->n_nm; i++)
		r = nm_profile_match(&c->nm[i], id, out);
	if (r >= 0)
		r = link_files_match(c->links, c->n_links, id, out);
	if (r >= 0 && c->sno.path && id->pci)
		r = sno_config_match(&c->sno, id->pci, out);
	return r;
}
