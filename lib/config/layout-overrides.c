/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* A value a later layout file overrides with another, for the same key on
 * the same PF or VF: a warning at the later place naming the earlier one,
 * unless the later file declares the override ([Layout] Overrides=,
 * layout-declare.c). Called by layout-rules.c and desired.c; calls neither. */

#include "layout-declare.h"
#include "layout-rules.h"
#include "pf-keys.h"

/* What an override of one file's values by a later one's says: whether
 * the later file declares it (Overrides=), then no warning, and how many
 * values it replaced. */
struct override_pass {
	struct diag_list *diags;
	bool declared;
	size_t n;
};

static int pf_overrides(struct override_pass *o, const struct pf_settings *a,
			const struct pf_settings *b)
{
	for (enum pf_key k = 0; k < _PF_KEY_MAX; k++) {
		char va[PF_KEY_STR_MAX], vb[PF_KEY_STR_MAX];
		const char *x, *y;
		int r;

		if (!pf_settings_has(a, k) || !pf_settings_has(b, k))
			continue;
		x = pf_settings_format(a, k, va);
		y = pf_settings_format(b, k, vb);
		if (streq(x, y))
			continue;
		o->n++;
		if (o->declared)
			continue;
		r = diag_add(o->diags, DIAG_WARNING, b->src[k].file, b->src[k].line,
			     "%s=%s overrides %s=%s at %s:%u (a later file wins)",
			     pf_key_to_string(k), y, pf_key_to_string(k), x, a->src[k].file,
			     a->src[k].line);
		if (r < 0)
			return r;
	}
	return 0;
}

static const char *vf_value(const struct vf_settings *s, enum vf_key k,
			    char buf[static VF_ATTR_STR_MAX])
{
	if (vf_settings_is_stable(s, k))
		return "stable";
	return vf_attrs_format(&s->attrs, k, VF_SPELLING_LAYOUT, buf);
}

/* "VF 3", "VFs 0-7" or "every VF": where two sections meet. */
static bool overlap(const struct vf_section *a, const struct vf_section *b, char buf[static 32])
{
	uint32_t first, last;

	if (a->first == VF_INDEX_ALL && b->first == VF_INDEX_ALL) {
		snprintf(buf, 32, "every VF");
		return true;
	}
	if (a->first == VF_INDEX_ALL || b->first == VF_INDEX_ALL) {
		const struct vf_section *r = a->first == VF_INDEX_ALL ? b : a;

		first = r->first;
		last = r->last;
	} else {
		first = a->first > b->first ? a->first : b->first;
		last = a->last < b->last ? a->last : b->last;
	}
	if (first > last)
		return false;
	if (first == last)
		snprintf(buf, 32, "VF %u", first);
	else
		snprintf(buf, 32, "VFs %u-%u", first, last);
	return true;
}

static int vf_overrides(struct override_pass *o, const struct vf_section *a,
			const struct vf_section *b)
{
	char which[32];

	if (!overlap(a, b, which))
		return 0;
	for (enum vf_key k = 0; k < _VF_KEY_MAX; k++) {
		const struct vf_settings *x = &a->settings, *y = &b->settings;
		char va[VF_ATTR_STR_MAX], vb[VF_ATTR_STR_MAX];
		const char *sa, *sb;
		int r;

		if (!vf_settings_has(x, k) || !vf_settings_has(y, k))
			continue;
		sa = vf_value(x, k, va);
		sb = vf_value(y, k, vb);
		if (streq(sa, sb))
			continue;
		o->n++;
		if (o->declared)
			continue;
		r = diag_add(o->diags, DIAG_WARNING, y->src[k].file, y->src[k].line,
			     "%s=%s overrides %s=%s at %s:%u for %s (a later file wins)",
			     vf_key_to_string(k), sb, vf_key_to_string(k), sa, x->src[k].file,
			     x->src[k].line, which);
		if (r < 0)
			return r;
	}
	return 0;
}

/* b's values over a's: a warning for each, unless b declares that it
 * overrides a; then one when it overrides nothing of a (a stale
 * declaration). */
static int file_overrides(struct diag_list *diags, const struct layout_file *a,
			  const struct layout_file *b)
{
	size_t d = 0;
	struct override_pass o = {
		.diags = diags,
		.declared = layout_declares_override(&b->declare, a->path, &d),
	};
	int r;

	r = pf_overrides(&o, &a->pf, &b->pf);
	for (size_t i = 0; r >= 0 && i < a->n_vf_sections; i++)
		for (size_t j = 0; r >= 0 && j < b->n_vf_sections; j++)
			r = vf_overrides(&o, &a->vf_sections[i], &b->vf_sections[j]);
	if (r < 0 || !o.declared || o.n > 0)
		return r;
	return diag_add(diags, DIAG_WARNING, b->path, b->declare.overrides[d].line,
			"Overrides=%s: this file overrides no value of %s, so this "
			"declaration is stale",
			b->declare.overrides[d].name, b->declare.overrides[d].name);
}

int rules_check_overrides(struct diag_list *diags, const struct layout_file *const *files, size_t n)
{
	for (size_t j = 1; j < n; j++)
		for (size_t i = 0; i < j; i++) {
			int r = file_overrides(diags, files[i], files[j]);

			if (r < 0)
				return r;
		}
	return 0;
}

/* ---- without a host ---- */
