/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <inttypes.h>
#include <stdarg.h>

#include "layout-wants.h"
#include "match.h"
#include "pf-keys.h"

/* Appends what fmt says to *s; *s NULL on ENOMEM (and stays so). */
_printf_(2, 3) static void add(char **s, const char *fmt, ...)
{
	_cleanup_free_ char *more = NULL;
	va_list ap;
	char *both;

	if (!*s)
		return;
	va_start(ap, fmt);
	more = strdup_vprintf(fmt, ap);
	va_end(ap);
	both = more ? strdup_printf("%s%s", *s, more) : NULL;
	free(*s);
	*s = both;
}

static void add_pf(char **s, const struct pf_settings *p)
{
	for (enum pf_key k = 0; k < _PF_KEY_MAX; k++) {
		char buf[PF_KEY_STR_MAX];

		if (pf_settings_has(p, k))
			add(s, " %s=%s\n", pf_key_to_string(k), pf_settings_format(p, k, buf));
	}
}

static void add_vfs(char **s, const struct vf_section *sec)
{
	if (sec->first == VF_INDEX_ALL)
		add(s, " [VirtualFunction]\n");
	else
		add(s, " [VirtualFunction %" PRIu32 "-%" PRIu32 "]\n", sec->first, sec->last);
	for (enum vf_key k = 0; k < _VF_KEY_MAX; k++) {
		char buf[VF_ATTR_STR_MAX];

		if (!vf_settings_has(&sec->settings, k))
			continue;
		add(s, "  %s=%s\n", vf_key_to_string(k),
		    vf_settings_is_stable(&sec->settings, k) ?
			    "stable" :
			    vf_attrs_format(&sec->settings.attrs, k, VF_SPELLING_LAYOUT, buf));
	}
}

bool layout_file_selects(const struct layout_file *f, const struct host_state *hs,
			 const struct pf_state *pf)
{
	return f && !f->masked && layout_match_pf(&f->match, pf, hs->hostname);
}

bool layout_set_selects(const struct layout_set *set, const struct host_state *hs,
			const struct pf_state *pf)
{
	for (size_t i = 0; i < set->n_files; i++)
		if (layout_file_selects(set->files[i], hs, pf))
			return true;
	return false;
}

/* A file is known by its name, which orders the merge and masks a file of
 * that name in a lower directory: not by its directory, which sriovctl
 * --config-dir may name otherwise than the daemon. */
char *layout_wants(const struct layout_set *set, const struct host_state *hs,
		   const struct pf_state *pf)
{
	char *s = strdup_printf("%d %d %d|", (int)set->rdma_netns, (int)set->kernel_arguments,
				(int)set->dir_failed);
	bool any = false;

	for (size_t i = 0; s && i < set->n_files; i++) {
		const struct layout_file *f = set->files[i];

		if (!layout_file_selects(f, hs, pf))
			continue;
		any = true;
		add(&s, "%s%s\n", layout_file_name(f->path), f->has_error ? " (with errors)" : "");
		add_pf(&s, &f->pf);
		for (size_t j = 0; j < f->n_vf_sections; j++)
			add_vfs(&s, &f->vf_sections[j]);
	}
	if (s && !any) {
		free(s);
		return strdup("none");
	}
	return s;
}

int layouts_differ(const struct layout_set *from, const struct layout_set *to,
		   const struct host_state *hs, const struct pf_state *pf)
{
	_cleanup_free_ char *before = layout_wants(from, hs, pf);
	_cleanup_free_ char *after = layout_wants(to, hs, pf);

	if (!before || !after)
		return -ENOMEM;
	return !streq(before, after);
}

char *layout_wants_signature(const char *s)
{
	uint64_t h = UINT64_C(14695981039346656037);

	for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
		h ^= *c;
		h *= UINT64_C(1099511628211);
	}
	return strdup_printf("%016" PRIx64, h);
}
