/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "layout-empty.h"
#include "pf-keys.h"

/* Whether sections a and b name a VF in common. */
static bool overlap(const struct vf_section *a, const struct vf_section *b)
{
	if (a->first == VF_INDEX_ALL || b->first == VF_INDEX_ALL)
		return true;
	return a->first <= b->last && b->first <= a->last;
}

/* "; Key=value at file:line stays ...": the last value set before the
 * empty line, or "" when there is none. */
static void vf_stays(struct layout_file *const *files, size_t j, size_t sec, enum vf_key k,
		     char buf[static 256])
{
	const struct vf_section *e = &files[j]->vf_sections[sec];
	const struct vf_settings *last = NULL;
	char val[VF_ATTR_STR_MAX];

	for (size_t i = 0; i <= j; i++)
		for (size_t t = 0; files[i] && t < files[i]->n_vf_sections; t++) {
			const struct vf_section *s = &files[i]->vf_sections[t];

			if (i == j && t >= sec)
				break;
			if (vf_settings_has(&s->settings, k) && overlap(s, e))
				last = &s->settings;
		}
	buf[0] = '\0';
	if (!last)
		return;
	if (vf_settings_is_stable(last, k))
		snprintf(val, sizeof(val), "stable");
	else
		vf_attrs_format(&last->attrs, k, VF_SPELLING_LAYOUT, val);
	if (streq_ptr(last->src[k].file, files[j]->path))
		snprintf(buf, 256, "; %s=%s at line %u stays: to change it, write the value wanted",
			 vf_key_to_string(k), val, last->src[k].line);
	else
		snprintf(buf, 256,
			 "; %s=%s at %s:%u stays (where that file selects the PF): to change "
			 "it, write the value wanted",
			 vf_key_to_string(k), val, last->src[k].file, last->src[k].line);
}

static void pf_stays(struct layout_file *const *files, size_t j, enum pf_key k,
		     char buf[static 256])
{
	const struct pf_settings *last = NULL;
	char val[PF_KEY_STR_MAX];

	for (size_t i = 0; i < j; i++)
		if (files[i] && pf_settings_has(&files[i]->pf, k))
			last = &files[i]->pf;
	buf[0] = '\0';
	if (last)
		snprintf(buf, 256,
			 "; %s=%s at %s:%u stays (where that file selects the PF): to change "
			 "it, write the value wanted",
			 pf_key_to_string(k), pf_settings_format(last, k, val), last->src[k].file,
			 last->src[k].line);
}

static int say(struct diag_list *diags, const char *file, unsigned line, const char *key,
	       const char *stays)
{
	return diag_add(diags, DIAG_WARNING, file, line,
			"%s=: an empty value changes nothing here: it unsets only a value set "
			"above it in its own section%s",
			key, stays);
}

static int check_file(struct layout_file *const *files, size_t j, struct diag_list *diags)
{
	const struct layout_file *f = files[j];
	char stays[256];
	int r = 0;

	for (enum pf_key k = 0; r >= 0 && k < _PF_KEY_MAX; k++)
		if (f->pf.emptied.keys & (1u << k)) {
			pf_stays(files, j, k, stays);
			r = say(diags, f->path, f->pf.emptied.line[k], pf_key_to_string(k), stays);
		}
	for (size_t s = 0; r >= 0 && s < f->n_vf_sections; s++) {
		const struct emptied *e = &f->vf_sections[s].settings.emptied;

		for (enum vf_key k = 0; r >= 0 && k < _VF_KEY_MAX; k++)
			if (e->keys & (1u << k)) {
				vf_stays(files, j, s, k, stays);
				r = say(diags, f->path, e->line[k], vf_key_to_string(k), stays);
			}
	}
	return r;
}

int layout_empty_check(struct layout_file *const *files, size_t n, struct diag_list *diags)
{
	for (size_t j = 0; j < n; j++) {
		int r = files[j] ? check_file(files, j, diags) : 0;

		if (r < 0)
			return r;
	}
	return 0;
}
