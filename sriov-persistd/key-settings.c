/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "key-settings.h"
#include "setting-row.h"

/* Adds row to *l when the layouts set its key. */
static int add(struct key_setting **l, size_t *n, uint32_t vf, const struct setting_row *row)
{
	_cleanup_free_ char *at = NULL;
	struct key_setting *bigger, *e;

	if (!row->wanted)
		return 0;
	if (setting_row_source(row, &at) < 0)
		return -ENOMEM;
	bigger = reallocarray(*l, *n + 1, sizeof(**l));
	if (!bigger)
		return -ENOMEM;
	*l = bigger;
	e = &bigger[(*n)++];
	*e = (struct key_setting){
		.vf = vf,
		.key = row->key,
		.now = strdup(strempty(row->now)),
		.wanted = strdup(row->wanted),
		.source = strdup(strempty(at)),
	};
	return e->now && e->wanted && e->source ? 0 : -ENOMEM;
}

static int build_vfs(const struct pf_state *pf, const struct pf_desired *d, struct key_settings *s)
{
	int r = 0;

	for (uint32_t i = 0; r >= 0 && i < d->n_vfs; i++)
		for (enum vf_key k = 0; r >= 0 && k < _VF_KEY_MAX; k++) {
			struct setting_row row;

			vf_setting_row(pf, i < pf->n_vfs ? &pf->vfs[i] : NULL, &d->vfs[i], k, &row);
			r = add(&s->vfs, &s->n_vfs, i, &row);
		}
	return r;
}

int key_settings_build(const struct pf_state *pf, const struct pf_desired *d,
		       struct key_settings *ret)
{
	struct key_settings s = {};
	int r = 0;

	/* a held PF applies nothing: nothing is wanted of it, as status says */
	if (d && d->held)
		d = NULL;
	for (enum pf_key k = 0; d && r >= 0 && k < _PF_KEY_MAX; k++) {
		struct setting_row row;

		pf_setting_row(pf, &d->pf, k, &row);
		r = add(&s.pf, &s.n_pf, 0, &row);
	}
	if (d && r >= 0)
		r = build_vfs(pf, d, &s);
	if (r < 0)
		key_settings_done(&s);
	*ret = s;
	return r;
}

static bool list_equal(const struct key_setting *a, size_t n_a, const struct key_setting *b,
		       size_t n_b)
{
	if (n_a != n_b)
		return false;
	for (size_t i = 0; i < n_a; i++)
		if (a[i].vf != b[i].vf || !streq(a[i].key, b[i].key) ||
		    !streq(a[i].now, b[i].now) || !streq(a[i].wanted, b[i].wanted) ||
		    !streq(a[i].source, b[i].source))
			return false;
	return true;
}

bool key_settings_equal(const struct key_settings *a, const struct key_settings *b)
{
	return list_equal(a->pf, a->n_pf, b->pf, b->n_pf) &&
	       list_equal(a->vfs, a->n_vfs, b->vfs, b->n_vfs);
}

static void list_free(struct key_setting *l, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(l[i].now);
		free(l[i].wanted);
		free(l[i].source);
	}
	free(l);
}

void key_settings_done(struct key_settings *s)
{
	list_free(s->pf, s->n_pf);
	list_free(s->vfs, s->n_vfs);
	*s = (struct key_settings){};
}
