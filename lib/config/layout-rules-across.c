/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* Without a host: one literal MAC or GUID that files with different
 * [Match] give to a VF each. Whether both files select a PF of one host is
 * known only with the host, where it is an error (desired-unique.c); here
 * it is a warning that says so, unless the files' Host= keep them apart.
 * What cannot be told from the globs alone counts as possible. */

#include <fnmatch.h>
#include <strings.h>

#include "layout-rules.h"

static bool is_glob(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

/* Whether some host name is selected by both lit (no wildcard) and other,
 * as match.c compares them: without case, the full name and its part
 * before the first dot. lit selects lit, and, without a dot, lit.<domain>. */
static bool literal_host_meets(const char *lit, const char *other)
{
	const char *dot = strchr(lit, '.');
	size_t len = strlen(lit), p;

	if (fnmatch(other, lit, FNM_CASEFOLD) == 0)
		return true;
	if (dot) {
		char short_name[256];

		snprintf(short_name, sizeof(short_name), "%.*s", (int)(dot - lit), lit);
		return fnmatch(other, short_name, FNM_CASEFOLD) == 0;
	}
	/* lit.<domain>: other starts so, or its part before a wildcard may */
	p = strcspn(other, "*?[");
	if (!is_glob(other))
		return strncasecmp(other, lit, len) == 0 && other[len] == '.';
	if (p <= len)
		return strncasecmp(other, lit, p) == 0;
	return strncasecmp(other, lit, len) == 0 && other[len] == '.';
}

static bool hosts_may_meet(const char *a, const char *b)
{
	if (is_glob(a) && is_glob(b))
		return true;
	return is_glob(a) ? literal_host_meets(b, a) : literal_host_meets(a, b);
}

/* Whether a and b (Host= of two files) may both select one host: either
 * is not set, or some glob of one may select a name the other does. */
static bool may_share_host(char *const *a, char *const *b)
{
	if (!a || !b)
		return true;
	for (char *const *x = a; *x; x++)
		for (char *const *y = b; *y; y++)
			if (hosts_may_meet(*x, *y))
				return true;
	return false;
}

/* Whether two glob lists of a [Match] key may select one value (flags as
 * match.c compares it). */
static bool globs_may_meet(char *const *a, char *const *b, int flags)
{
	if (!a || !b)
		return true;
	for (char *const *x = a; *x; x++)
		for (char *const *y = b; *y; y++)
			if ((is_glob(*x) && is_glob(*y)) ||
			    fnmatch(is_glob(*x) ? *x : *y, is_glob(*x) ? *y : *x, flags) == 0)
				return true;
	return false;
}

/* Whether a and b may select one PF (Name= left out: a PF has
 * alternative names). */
static bool may_share_pf(const struct layout_match *a, const struct layout_match *b)
{
	return globs_may_meet(a->pci_address, b->pci_address, FNM_CASEFOLD) &&
	       globs_may_meet(a->vendor, b->vendor, FNM_CASEFOLD) &&
	       globs_may_meet(a->device, b->device, FNM_CASEFOLD) &&
	       globs_may_meet(a->driver, b->driver, 0);
}

static int build_group(const struct layout_file *const *files, size_t n, const size_t *group_of,
		       size_t g, struct rules_vfs *ret)
{
	_cleanup_free_ const struct layout_file **in = calloc(n ?: 1, sizeof(*in));
	struct pf_settings pf = {};
	size_t m = 0;

	if (!in)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		if (group_of[i] == g)
			in[m++] = files[i];
	return rules_vfs_build(in, m, rules_vfs_bound(in, m, &pf), ret);
}

static bool literal(const struct vf_settings *v, enum vf_key k)
{
	return vf_settings_has(v, k) && !vf_settings_is_stable(v, k) && !(v->rejected & (1u << k));
}

/* b (VF vb, a file of group h) against each VF of a (group g, earlier). */
static int check_pair(const struct rules_vfs *a, const struct layout_match *ma,
		      const struct vf_settings *b, uint32_t vb, const struct layout_match *mb,
		      struct diag_list *diags)
{
	for (enum vf_key k = 0; k < _VF_KEY_MAX; k++) {
		if (!vf_key_is_unique(k) || !literal(b, k))
			continue;
		for (size_t i = 0; i < a->n; i++) {
			const struct src *at = &b->src[k], *other = &a->vfs[i].src[k];
			bool same_vf = a->index[i] == vb && may_share_pf(ma, mb);
			char val[VF_ATTR_STR_MAX];
			int r;

			if (!literal(&a->vfs[i], k) ||
			    !vf_attrs_equal(&a->vfs[i].attrs, &b->attrs, k))
				continue;
			r = diag_add(
				diags, DIAG_WARNING, at->file, at->line,
				"%s=%s: VF %u here and VF %u at %s:%u, a file with another "
				"[Match], would have the same %s on a host where the two files "
				"select %s: an error there (sriovctl check --host says it)",
				vf_key_to_string(k),
				vf_attrs_format(&b->attrs, k, VF_SPELLING_LAYOUT, val), vb,
				a->index[i], strna(other->file), other->line,
				k == VF_KEY_MAC ? "address" : "GUID",
				same_vf ? "different PFs" : "a PF each");
			if (r < 0)
				return r;
		}
	}
	return 0;
}

int rules_check_unique_across(const struct layout_file *const *files, size_t n,
			      const size_t *group_of, size_t n_groups, struct diag_list *diags)
{
	_cleanup_free_ const struct layout_match **match = calloc(n_groups, sizeof(*match));
	struct rules_vfs *g = calloc(n_groups, sizeof(*g));
	int r = g && match ? 0 : -ENOMEM;

	/* a group's [Match] is that of each of its files */
	for (size_t i = 0; r >= 0 && i < n; i++)
		if (group_of[i] && group_of[i] <= n_groups && !match[group_of[i] - 1])
			match[group_of[i] - 1] = &files[i]->match;
	for (size_t i = 0; r >= 0 && i < n_groups; i++)
		r = match[i] ? build_group(files, n, group_of, i + 1, &g[i]) : 0;
	for (size_t h = 1; r >= 0 && h < n_groups; h++)
		for (size_t e = 0; r >= 0 && e < h; e++) {
			if (!match[e] || !match[h] ||
			    !may_share_host(match[e]->host, match[h]->host))
				continue;
			for (size_t j = 0; r >= 0 && j < g[h].n; j++)
				r = check_pair(&g[e], match[e], &g[h].vfs[j], g[h].index[j],
					       match[h], diags);
		}
	for (size_t i = 0; g && i < n_groups; i++)
		rules_vfs_done(&g[i]);
	free(g);
	return r;
}
