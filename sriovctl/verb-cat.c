/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* sriovctl cat: the merged layout of a PF as its files make it, each value
 * with the file:line it comes from, as systemctl cat shows a unit. */

#include "layout-merge.h"
#include "pf-keys.h"
#include "sriovctl.h"

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

static void print_value(const char *key, const char *value, const struct src *at)
{
	printf("%s=%s  # %s:%u\n", key, value, base_name(strna(at->file)), at->line);
}

/* Whether paths a and b are in the same directory. */
static bool same_dir(const char *a, const char *b)
{
	size_t n = (size_t)(base_name(a) - a);

	return n == (size_t)(base_name(b) - b) && strncmp(a, b, n) == 0;
}

/* "# PF 0000:3b:00.0 (ens1f0), selected by /etc/sriov-persist/conf.d/50-e810.conf,
 * 60-other.conf": a file in the directory of the one before by its name. A
 * PF held only by a file that holds every PF (refused, unreadable, a broken
 * [Match]) has no file that selects it: its held line names that file. */
static void print_header(const struct pf_view *pv)
{
	char *const *files = pv->desired->config_files;
	const struct pf_state *pf = pv->pf;

	printf("# PF %s%s%s%s", pf->pci, pf->name ? " (" : "", strempty(pf->name),
	       pf->name ? ")" : "");
	for (size_t i = 0; files && files[i]; i++)
		printf("%s%s", i == 0 ? ", selected by " : ", ",
		       i > 0 && same_dir(files[i - 1], files[i]) ? base_name(files[i]) : files[i]);
	printf("\n");
	if (pv->desired->held)
		printf("# held, nothing is applied: %s\n", strna(pv->desired->held_reason));
}

/* The header only over keys: a held PF whose values were all rejected has none. */
static void print_pf_section(const struct pf_settings *s)
{
	char buf[PF_KEY_STR_MAX];
	bool any = false;

	for (enum pf_key k = 0; k < _PF_KEY_MAX; k++) {
		if (!pf_settings_has(s, k))
			continue;
		if (!any)
			printf("[PhysicalFunction]\n");
		any = true;
		print_value(pf_key_to_string(k), pf_settings_format(s, k, buf), &s->src[k]);
	}
}

/* VFs first..last, which the layouts set alike. */
static void print_vf_section(const struct vf_settings *v, size_t first, size_t last)
{
	char buf[VF_ATTR_STR_MAX];

	if (first == last)
		printf("\n[VirtualFunction %zu]\n", first);
	else
		printf("\n[VirtualFunction %zu-%zu]\n", first, last);
	/* a literal refused for its section (v->refused) is shown as the
	 * other rejected values are: the held line says the error */
	for (enum vf_key k = 0; k < _VF_KEY_MAX; k++) {
		if (!vf_settings_has(v, k) && !(v->refused & (1u << k)))
			continue;
		print_value(vf_key_to_string(k),
			    vf_settings_is_stable(v, k) ?
				    "stable" :
				    vf_attrs_format(&v->attrs, k, VF_SPELLING_LAYOUT, buf),
			    &v->src[k]);
	}
}

/* The sections of the PF's files that name VFs at or beyond the bound:
 * not merged, each said in a comment. */
static void print_beyond(const struct layout_set *set, const struct pf_desired *d)
{
	size_t bound;
	char at[256];

	if (!layout_merge_bound(d, &bound))
		return;
	snprintf(at, sizeof(at), "%s:%u",
		 base_name(strna(d->pf.src[PF_KEY_VIRTUAL_FUNCTIONS].file)),
		 d->pf.src[PF_KEY_VIRTUAL_FUNCTIONS].line);
	for (size_t i = 0; i < set->n_files; i++) {
		const struct layout_file *f = set->files[i];

		if (!f || !strv_contains(d->config_files, f->path))
			continue;
		for (size_t j = 0; j < f->n_vf_sections; j++) {
			const struct vf_section *s = &f->vf_sections[j];

			size_t from;

			if (s->first == VF_INDEX_ALL || s->last < bound)
				continue;
			from = s->first > bound ? s->first : bound;
			printf("\n# %s:%u: [VirtualFunction %u", base_name(f->path), s->line,
			       s->first);
			if (s->first != s->last)
				printf("-%u", s->last);
			printf("]: ");
			if (from == s->last)
				printf("VF %u is", s->last);
			else
				printf("VFs %zu-%u are", from, s->last);
			printf(" beyond VirtualFunctions=%zu (%s), an error that holds this PF\n",
			       bound, at);
		}
	}
}

static int print_pf(const struct layout_set *set, const struct pf_view *pv)
{
	struct vf_settings *vfs = NULL;
	size_t n = 0, first = 0;
	int r;

	r = layout_merge_vfs(set, pv->desired, &vfs, &n);
	if (r < 0)
		return r;
	print_header(pv);
	print_pf_section(&pv->desired->pf);
	for (size_t i = 1; i <= n; i++) {
		if (i < n && vf_settings_same(&vfs[first], &vfs[i]))
			continue;
		if (vfs[first].set || vfs[first].refused)
			print_vf_section(&vfs[first], first, i - 1);
		first = i;
	}
	print_beyond(set, pv->desired);
	vf_settings_free_array(vfs, n);
	return 0;
}

int verb_cat(struct ctl *c)
{
	struct ctl_view cv;
	size_t shown = 0;
	int r = 0;

	if (ctl_host_view(c, &cv) < 0)
		return EXIT_FAIL;
	for (size_t i = 0; r >= 0 && i < cv.v.n_pfs; i++) {
		const struct pf_view *pv = &cv.v.pfs[i];

		if (!pv->desired)
			continue;
		if (shown++ > 0)
			printf("\n");
		r = print_pf(cv.set, pv);
	}
	if (r < 0)
		fprintf(stderr, "Merging the layouts failed: %s\n", strerror(-r));
	else if (shown == 0 && c->n_args > 0)
		fprintf(stderr, "No layout selects %s\n", c->args[0]);
	else if (shown == 0)
		fprintf(stderr, "No layout selects a PF of this host\n");
	ctl_view_done(&cv);
	return r < 0 || (shown == 0 && c->n_args > 0) ? EXIT_FAIL : EXIT_OK;
}
