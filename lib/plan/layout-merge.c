/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "layout-merge.h"

static const struct layout_file *find_file(const struct layout_set *set, const char *path)
{
	for (size_t i = 0; i < set->n_files; i++)
		if (set->files[i] && streq(set->files[i]->path, path))
			return set->files[i];
	return NULL;
}

bool layout_merge_bound(const struct pf_desired *d, size_t *ret)
{
	if (!pf_settings_has(&d->pf, PF_KEY_VIRTUAL_FUNCTIONS))
		return false;
	*ret = d->pf.num_vfs_max ? d->n_vfs : d->pf.num_vfs;
	return true;
}

/* d's VFs, or past the last VF a section of the files names when no
 * VirtualFunctions= bounds them. */
static size_t count_vfs(const struct layout_set *set, const struct pf_desired *d)
{
	size_t n = d->n_vfs;

	if (layout_merge_bound(d, &n))
		return n;
	for (char *const *p = d->config_files; p && *p; p++) {
		const struct layout_file *f = find_file(set, *p);

		for (size_t j = 0; f && j < f->n_vf_sections; j++)
			if (f->vf_sections[j].first != VF_INDEX_ALL && f->vf_sections[j].last >= n)
				n = (size_t)f->vf_sections[j].last + 1;
	}
	return n;
}

/* src's refused literals (vf_settings.refused) into dst, for cat to show
 * where no file sets the key; a key set drops what was refused before. */
static int merge_refused(struct vf_settings *dst, const struct vf_settings *src)
{
	for (enum vf_key k = 0; k < _VF_KEY_MAX; k++) {
		int r;

		if (vf_settings_has(src, k))
			dst->refused &= ~(1u << k);
		if (!(src->refused & (1u << k)) || vf_settings_has(dst, k))
			continue;
		r = vf_attrs_copy(&dst->attrs, &src->attrs, k);
		if (r < 0)
			return r;
		dst->refused |= 1u << k;
		dst->src[k] = src->src[k];
	}
	return 0;
}

/* [VirtualFunction] is every VF of the PF (n_all), as desired_build() has
 * it; a range stops at n. */
static int merge_file(const struct layout_file *f, struct vf_settings *vfs, size_t n, size_t n_all)
{
	for (size_t j = 0; j < f->n_vf_sections; j++) {
		const struct vf_section *s = &f->vf_sections[j];
		size_t first = s->first == VF_INDEX_ALL ? 0 : s->first;
		size_t end = s->first == VF_INDEX_ALL ? n_all : (size_t)s->last + 1;

		for (size_t k = first; k < end && k < n; k++) {
			int r = vf_settings_merge(&vfs[k], &s->settings);

			if (r >= 0)
				r = merge_refused(&vfs[k], &s->settings);
			if (r < 0)
				return r;
		}
	}
	return 0;
}

int layout_merge_vfs(const struct layout_set *set, const struct pf_desired *d,
		     struct vf_settings **ret, size_t *ret_n)
{
	size_t n = count_vfs(set, d);
	struct vf_settings *vfs = NULL;

	if (n > 0) {
		vfs = calloc(n, sizeof(*vfs));
		if (!vfs)
			return -ENOMEM;
	}
	for (char *const *p = d->config_files; p && *p; p++) {
		const struct layout_file *f = find_file(set, *p);

		if (f && n > 0 && merge_file(f, vfs, n, d->n_vfs) < 0) {
			vf_settings_free_array(vfs, n);
			return -ENOMEM;
		}
	}
	*ret = vfs;
	*ret_n = n;
	return 0;
}

bool vf_settings_same(const struct vf_settings *a, const struct vf_settings *b)
{
	if (a->set != b->set || a->stable != b->stable || a->refused != b->refused)
		return false;
	for (enum vf_key k = 0; k < _VF_KEY_MAX; k++)
		if ((vf_settings_has(a, k) || (a->refused & (1u << k))) &&
		    (!vf_attrs_equal(&a->attrs, &b->attrs, k) ||
		     !streq_ptr(a->src[k].file, b->src[k].file) ||
		     a->src[k].line != b->src[k].line))
			return false;
	return true;
}

void vf_settings_free_array(struct vf_settings *v, size_t n)
{
	for (size_t i = 0; v && i < n; i++)
		vf_settings_done(&v[i]);
	free(v);
}
