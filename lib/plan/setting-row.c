/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "setting-row.h"

static const struct src no_src;

void pf_setting_row(const struct pf_state *pf, const struct pf_settings *s, enum pf_key k,
		    struct setting_row *ret)
{
	bool set = s && pf_settings_has(s, k);

	ret->key = pf_key_to_string(k);
	ret->now = pf_state_format_key(pf, k, ret->now_buf);
	ret->wanted = set ? pf_settings_format(s, k, ret->wanted_buf) : NULL;
	ret->src = set ? &s->src[k] : &no_src;
}

void vf_setting_row(const struct vf_state *vf, const struct vf_settings *v, enum vf_key k,
		    struct setting_row *ret)
{
	bool set = v && vf_settings_has(v, k);

	ret->key = vf_key_to_string(k);
	ret->now = vf ? vf_attrs_format_host(&vf->attrs, k, VF_SPELLING_LAYOUT, ret->now_buf) :
			NULL;
	if (set && vf_settings_is_stable(v, k))
		ret->wanted = strcpy(ret->wanted_buf, "stable");
	else
		ret->wanted =
			set ? vf_attrs_format(&v->attrs, k, VF_SPELLING_LAYOUT, ret->wanted_buf) :
			      NULL;
	ret->src = set ? &v->src[k] : &no_src;
}

int setting_row_source(const struct setting_row *row, char **ret)
{
	*ret = NULL;
	if (!row->wanted || !row->src->file)
		return 0;
	*ret = strdup_printf("%s:%u", row->src->file, row->src->line);
	return *ret ? 0 : -ENOMEM;
}
