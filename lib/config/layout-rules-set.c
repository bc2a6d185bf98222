/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* The rules of the files alone on a set of files without a host: each file
 * with the files whose [Match] is the same (layout-rules.c's rules), then
 * a literal MAC or GUID across files with another (layout-rules-across.c). */

#include "layout-rules.h"
#include "pf-keys.h"

static bool strv_same(char *const *a, char *const *b)
{
	size_t n = strv_length(a);

	if (n != strv_length(b))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!streq(a[i], b[i]))
			return false;
	return true;
}

/* The same [Match]: the two files select the same PFs on any host. An
 * empty one (a file with errors) is like no other. */
static bool match_same(const struct layout_match *a, const struct layout_match *b)
{
	bool empty = !a->pci_address && !a->name && !a->vendor && !a->device && !a->driver &&
		     !a->host;

	return !empty && strv_same(a->pci_address, b->pci_address) && strv_same(a->name, b->name) &&
	       strv_same(a->vendor, b->vendor) && strv_same(a->device, b->device) &&
	       strv_same(a->driver, b->driver) && strv_same(a->host, b->host);
}

/* Files that go together, in set order, as if they selected one PF; set
 * (n_set) holds them and the others. */
static int check_group(const struct layout_file *const *set, size_t n_set,
		       const struct layout_file *const *files, size_t n, bool open,
		       struct diag_list *diags)
{
	_cleanup_(rules_out_done) struct rules_out o = {
		.diags = diags,
		.open = open,
		.set = set,
		.n_set = n_set,
		.group = files,
		.n_group = n,
	};
	struct pf_settings pf = {};
	uint32_t bound = rules_vfs_bound(files, n, &pf);
	char text[16];
	int r;

	r = rules_check_overrides(diags, files, n);
	snprintf(text, sizeof(text), "%u", bound);
	for (size_t i = 0; r >= 0 && bound != UINT32_MAX && i < n; i++)
		for (size_t j = 0; r >= 0 && j < files[i]->n_vf_sections; j++)
			r = rules_check_section(&o, files[i]->path, &files[i]->vf_sections[j],
						bound, text, &pf.src[PF_KEY_VIRTUAL_FUNCTIONS]);
	if (r >= 0)
		r = rules_check_pf(&o, &pf,
				   pf_settings_has(&pf, PF_KEY_ESWITCH_MODE) ?
					   pf.eswitch_mode :
					   _ESWITCH_MODE_INVALID);
	if (r >= 0)
		r = rules_check_vfs(&o, files, n, bound);
	return r;
}

int layout_rules_check_files(const struct layout_file *const *files, size_t n,
			     struct diag_list *diags)
{
	_cleanup_free_ const struct layout_file **group = calloc(n ?: 1, sizeof(*group));
	_cleanup_free_ size_t *group_of = calloc(n ?: 1, sizeof(*group_of));
	size_t n_files = 0, n_groups = 0;
	int r = 0;

	if (!group || !group_of)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		n_files += files[i] && !files[i]->masked;
	for (size_t i = 0; r >= 0 && i < n; i++) {
		size_t m = 0;

		if (group_of[i] || !files[i] || files[i]->masked)
			continue;
		n_groups++;
		for (size_t j = i; j < n; j++)
			if (j == i || (files[j] && !files[j]->masked && !group_of[j] &&
				       match_same(&files[i]->match, &files[j]->match))) {
				group[m++] = files[j];
				group_of[j] = n_groups;
			}
		/* a file with another [Match] may select some of the same PFs */
		r = check_group(files, n, group, m, m < n_files, diags);
	}
	if (r >= 0 && n_groups > 1)
		r = rules_check_unique_across(files, n, group_of, n_groups, diags);
	return r;
}

int layout_rules_check_set(const struct layout_set *set, struct diag_list *diags)
{
	return layout_rules_check_files((const struct layout_file *const *)set->files, set->n_files,
					diags);
}
