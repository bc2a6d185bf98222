/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* A literal MAC address or GUID is unique on the whole host: this PF's VFs
 * against another PF's desired state (desired.c builds it). */

#include "desired-internal.h"

/* " (VF 1 of 0000:3b:00.1's at 60-b.conf:6)": where the other PF's VF
 * has the value, when that is another line than here. Returns buf. */
static const char *unique_elsewhere(const struct src *here, const struct src *there, size_t vf,
				    const char *pci, char buf[static 512])
{
	buf[0] = '\0';
	if (!there->file || (streq_ptr(here->file, there->file) && here->line == there->line))
		return buf;
	if (streq_ptr(here->file, there->file))
		snprintf(buf, 512, " (VF %zu of %s's at line %u)", vf, pci, there->line);
	else
		snprintf(buf, 512, " (VF %zu of %s's at %s:%u)", vf, pci, there->file, there->line);
	return buf;
}

/* VF i of this PF and VF j of the other PF o with the same literal k. */
static int unique_pair(struct desired_ctx *c, enum vf_key k, size_t i, const struct pf_desired *o,
		       size_t j)
{
	const struct vf_settings *a = &c->d->vfs[i], *b = &o->vfs[j];
	bool first = strcmp(c->d->pci, o->pci) < 0;
	char val[VF_ATTR_STR_MAX], where[512];

	if (!vf_settings_has(a, k) || !vf_settings_has(b, k) || (c->was_stable[i] & (1u << k)) ||
	    !vf_attrs_equal(&a->attrs, &b->attrs, k))
		return 0;
	return rules_error(&c->out, a->src[k].file, a->src[k].line,
			   "%s=%s: VF %u of %s and VF %u of %s would have the same %s%s",
			   vf_key_to_string(k),
			   vf_attrs_format(&a->attrs, k, VF_SPELLING_LAYOUT, val),
			   (unsigned)(first ? i : j), first ? c->d->pci : o->pci,
			   (unsigned)(first ? j : i), first ? o->pci : c->d->pci,
			   k == VF_KEY_MAC ? "address" : "GUID",
			   unique_elsewhere(&a->src[k], &b->src[k], j, o->pci, where));
}

int desired_unique_against(struct desired_ctx *c, const struct pf_desired *o)
{
	for (enum vf_key k = 0; k < _VF_KEY_MAX; k++) {
		if (!vf_key_is_unique(k))
			continue;
		for (size_t i = 0; i < c->d->n_vfs; i++)
			for (size_t j = 0; j < o->n_vfs; j++) {
				int r = unique_pair(c, k, i, o, j);

				if (r < 0)
					return r;
			}
	}
	return 0;
}

/* VF i's literal k that VF j of host PF hp has now, where no layout sets
 * VF j's (o: hp's desired state, NULL without one): the host would have
 * two VFs with it. VFs made anew (another count) lose what they have. */
static int unique_host_pair(struct desired_ctx *c, enum vf_key k, size_t i,
			    const struct pf_state *hp, const struct pf_desired *o, size_t j)
{
	const struct vf_settings *a = &c->d->vfs[i];
	char val[VF_ATTR_STR_MAX];

	if ((hp == c->pf && j == i) || (o && (o->num_vfs != hp->num_vfs || j >= o->num_vfs)) ||
	    (o && j < o->n_vfs && vf_settings_has(&o->vfs[j], k)) || !vf_settings_has(a, k) ||
	    (c->was_stable[i] & (1u << k)) || !vf_attrs_equal(&a->attrs, &hp->vfs[j].attrs, k))
		return 0;
	return rules_error(&c->out, a->src[k].file, a->src[k].line,
			   "%s=%s: VF %zu of %s has this %s now, and no layout sets another: VF "
			   "%zu of %s would have the same",
			   vf_key_to_string(k),
			   vf_attrs_format(&a->attrs, k, VF_SPELLING_LAYOUT, val), j, hp->pci,
			   k == VF_KEY_MAC ? "address" : "GUID", i, c->d->pci);
}

/* VF i's literal MAC that host PF hp has as its permanent address: two
 * interfaces of the host would have it. */
static int unique_pf_mac(struct desired_ctx *c, size_t i, const struct pf_state *hp)
{
	const struct vf_settings *a = &c->d->vfs[i];
	char val[VF_ATTR_STR_MAX];

	if (!vf_settings_has(a, VF_KEY_MAC) || (c->was_stable[i] & (1u << VF_KEY_MAC)) ||
	    mac_is_zero(&hp->permanent_mac) || !mac_equal(&a->attrs.mac, &hp->permanent_mac))
		return 0;
	return rules_error(&c->out, a->src[VF_KEY_MAC].file, a->src[VF_KEY_MAC].line,
			   "MACAddress=%s: PF %s (%s) has this permanent address: VF %zu of %s "
			   "would have the same",
			   vf_attrs_format(&a->attrs, VF_KEY_MAC, VF_SPELLING_LAYOUT, val), hp->pci,
			   strna(hp->name), i, c->d->pci);
}

int desired_unique_host_vfs(struct desired_ctx *c, const struct pf_state *hp,
			    const struct pf_desired *o)
{
	int r = 0;

	for (enum vf_key k = 0; k < _VF_KEY_MAX; k++)
		for (size_t i = 0; vf_key_is_unique(k) && i < c->d->n_vfs; i++)
			for (size_t j = 0; r >= 0 && j < hp->n_vfs; j++)
				r = unique_host_pair(c, k, i, hp, o, j);
	for (size_t i = 0; r >= 0 && i < c->d->n_vfs; i++)
		r = unique_pf_mac(c, i, hp);
	return r;
}

/* Whether some VF of this PF has a literal (not "stable") unique key. */
bool desired_has_literal_unique(const struct desired_ctx *c)
{
	for (enum vf_key k = 0; k < _VF_KEY_MAX; k++)
		for (size_t i = 0; vf_key_is_unique(k) && i < c->d->n_vfs; i++)
			if (vf_settings_has(&c->d->vfs[i], k) && !(c->was_stable[i] & (1u << k)))
				return true;
	return false;
}
