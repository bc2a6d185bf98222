/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* A deferred PF's drift, against the host at its deferral. */

#include <syslog.h>

#include "deferred-drift.h"
#include "log.h"

struct deferred_base *deferred_base_free(struct deferred_base *b)
{
	if (!b)
		return NULL;
	for (size_t i = 0; i < b->n_vfs; i++)
		vf_attrs_done(&b->vfs[i]);
	free(b->vfs);
	free(b);
	return NULL;
}

static struct deferred_base *base_take(const struct pf_state *pf)
{
	struct deferred_base *b = calloc(1, sizeof(*b));

	if (!b)
		return NULL;
	b->num_vfs = pf->num_vfs;
	b->mtu = pf->mtu;
	b->vfs = calloc(pf->n_vfs ?: 1, sizeof(*b->vfs));
	if (!b->vfs)
		return deferred_base_free(b);
	for (; b->n_vfs < pf->n_vfs; b->n_vfs++) {
		vf_attrs_init(&b->vfs[b->n_vfs]);
		if (vf_attrs_copy_all(&b->vfs[b->n_vfs], &pf->vfs[b->n_vfs].attrs) < 0) {
			b->n_vfs++;
			return deferred_base_free(b);
		}
	}
	return b;
}

/* "driver vfio-pci, spoofchk on": the groups of keys as ip-link(8) names
 * them, the host's values ("none": it has no value). */
static void describe_keys(FILE *f, const struct vf_attrs *a, uint32_t keys)
{
	const char *sep = "";
	uint32_t done = 0;
	char buf[VF_ATTR_STR_MAX];

	for (enum vf_key k = 0; k < _VF_KEY_MAX; k++) {
		uint32_t group = vf_key_group(k);

		if (!(keys & (1u << k)) || (done & (1u << k)))
			continue;
		fputs(sep, f);
		sep = "";
		for (enum vf_key g = 0; g < _VF_KEY_MAX; g++) {
			const char *v;

			if (!(group & (1u << g)))
				continue;
			v = vf_attrs_format_host(a, g, VF_SPELLING_IP, buf) ?: "none";
			if (g == VF_KEY_VLAN_PROTO)
				fprintf(f, "%s%s", sep, v);
			else
				fprintf(f, "%s%s %s", sep, vf_key_to_label(g), v);
			sep = " ";
		}
		done |= group;
		sep = ", ";
	}
}

static char *describe_vf(unsigned i, const struct vf_attrs *was, const struct vf_attrs *now,
			 uint32_t keys)
{
	_cleanup_fclose_ FILE *f = NULL;
	char *buf = NULL;
	size_t size = 0;

	f = open_memstream(&buf, &size);
	if (!f)
		return NULL;
	fprintf(f, "VF %u: ", i);
	describe_keys(f, was, keys);
	fputs(" (now ", f);
	describe_keys(f, now, keys);
	fputc(')', f);
	if (fclose(TAKE_PTR(f)) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* The keys d sets on VF i and the host has: those compared */
static uint32_t keys_of(const struct pf_desired *d, size_t i)
{
	uint32_t set = 0, host = 0;

	if (i < d->n_vfs)
		set = d->vfs[i].set;
	else
		for (size_t j = 0; j < d->n_vfs; j++)
			set |= d->vfs[j].set;
	for (enum vf_key k = 0; k < _VF_KEY_MAX; k++)
		if (vf_key_on_host(k))
			host |= 1u << k;
	return set & host;
}

char **deferred_drift(struct deferred_base **base, const struct pf_desired *d,
		      const struct pf_state *pf)
{
	_cleanup_strv_free_ char **l = calloc(1, sizeof(char *));
	const struct deferred_base *b = *base;

	if (!l)
		return NULL;
	if (!b) {
		*base = base_take(pf);
		return *base ? TAKE_PTR(l) : NULL;
	}
	if (pf->num_vfs != b->num_vfs &&
	    strv_consume(&l, strdup_printf("%u VFs present (%u when it was deferred)", pf->num_vfs,
					   b->num_vfs)) < 0)
		return NULL;
	if (pf_settings_has(&d->pf, PF_KEY_MTU) && pf->mtu != b->mtu &&
	    strv_consume(&l,
			 strdup_printf("PF mtu %u (%u when it was deferred)", pf->mtu, b->mtu)) < 0)
		return NULL;
	for (size_t i = 0; i < b->n_vfs && i < pf->n_vfs; i++) {
		uint32_t keys = keys_of(d, i), differ = 0;

		for (enum vf_key k = 0; k < _VF_KEY_MAX; k++)
			if ((keys & (1u << k)) && !vf_attrs_equal(&b->vfs[i], &pf->vfs[i].attrs, k))
				differ |= 1u << k;
		if (differ &&
		    strv_consume(&l, describe_vf(i, &b->vfs[i], &pf->vfs[i].attrs, differ)) < 0)
			return NULL;
	}
	return TAKE_PTR(l);
}

void deferred_log_made(const char *pci, const char *name)
{
	log_pf(LOG_NOTICE, pci,
	       "%s%s%s%s: the deferred change was made by hand: the host has what its layout "
	       "wants now",
	       pci, name ? " (" : "", strempty(name), name ? ")" : "");
}
