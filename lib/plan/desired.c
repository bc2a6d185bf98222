/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* Layouts -> the desired state of one PF: select, merge, resolve, check.
 * This file selects the files and merges them, and runs the steps of the
 * others in order: VirtualFunctions= (desired-count.c), stable values
 * (desired-stable.c), the driver's limits (desired-hw.c), literal MACs
 * and GUIDs unique on the host (desired-unique.c), one kind of VF per
 * ResourceName= on the host (desired-resource.c). The result borrows the
 * file names of its struct src entries from the layout set, which must
 * outlive it. */

#include "desired-host.h"
#include "desired-internal.h"
#include "match.h"
#include "pf-keys.h"

static int build_pf(const struct layout_set *set, const struct host_state *host,
		    const char *hostname, const struct pf_state *pf, bool alone,
		    struct diag_list *diags, struct pf_desired **ret);

/* Which files select the PF, in set order.
 *
 * A file with errors still counts when its [Match] selects the PF, and then
 * holds it. When its [Match] does not select the PF, the file is left out:
 * the parser drops a [Match] value it rejects, which makes the remaining
 * match broader, never narrower, so a PF it does not select is one the
 * file clearly does not mean. A file that could not be read at all has an
 * empty [Match], which selects (and so holds) every PF. */
static int select_files(struct desired_ctx *c, const struct layout_set *set)
{
	c->files = calloc(set->n_files ?: 1, sizeof(*c->files));
	if (!c->files)
		return -ENOMEM;
	for (size_t i = 0; i < set->n_files; i++) {
		const struct layout_file *f = set->files[i];

		if (!f || f->masked || !layout_match_pf(&f->match, c->pf, c->hostname))
			continue;
		c->files[c->n_files++] = f;
		/* a file that holds every PF (its [Match] is broken or could not
		 * be read) holds this one without selecting it: its error, not
		 * the list of files, names it */
		if (f->has_error && layout_match_is_empty(&f->match))
			continue;
		if (!set->dir_failed && strv_extend(&c->d->config_files, f->path) < 0)
			return -ENOMEM;
	}
	return 0;
}

/* How many errors the parser reported for f (at least one: it has errors). */
static size_t file_errors(const struct layout_set *set, const struct layout_file *f)
{
	size_t n = 0;

	for (size_t i = 0; i < set->diags.n; i++)
		if (set->diags.items[i].level == DIAG_ERROR &&
		    streq_ptr(set->diags.items[i].file, f->path))
			n++;
	return n ?: 1;
}

/* Said after the reason of a PF held by f: a [Match] with an error, or a
 * file without one, holds every PF, and the PFs the file was not written
 * for say why (an unreadable file's own error says it). */
static const char *file_holds_all(const struct layout_file *f)
{
	if (!layout_match_is_empty(&f->match))
		return "";
	if (f->match.line)
		return " (a [Match] with an error holds every PF)";
	return f->no_match ? " (a file without a [Match] holds every PF)" : "";
}

/* The first error the parser reported for f, so that status and apply say
 * what to fix, not only where. */
static char *file_first_error(const struct layout_set *set, const struct layout_file *f)
{
	for (size_t i = 0; i < set->diags.n; i++) {
		const struct diag *d = &set->diags.items[i];

		if (d->level == DIAG_ERROR && streq_ptr(d->file, f->path))
			return diag_format(d);
	}
	return strdup_printf("%s: has errors", f->path);
}

/* Files with errors that select the PF hold it; the reason is the first
 * error of the first, counted with all others (finish_held()). */
static int hold_for_file_errors(struct desired_ctx *c, const struct layout_set *set)
{
	for (size_t i = 0; i < c->n_files; i++) {
		if (!c->files[i]->has_error)
			continue;
		c->n_file_errors += file_errors(set, c->files[i]);
		if (c->d->held)
			continue;
		c->d->held = true;
		c->held_suffix = file_holds_all(c->files[i]);
		c->d->held_reason = file_first_error(set, c->files[i]);
		if (!c->d->held_reason)
			return -ENOMEM;
	}
	return 0;
}

static int check_section(struct desired_ctx *c, const struct layout_file *f,
			 const struct vf_section *s)
{
	char bound[32];

	if (c->vf_bound == UINT32_MAX)
		return 0;
	if (c->d->pf.num_vfs_max)
		snprintf(bound, sizeof(bound), "max (%u)", c->vf_bound);
	else
		snprintf(bound, sizeof(bound), "%u", c->vf_bound);
	return rules_check_section(&c->out, f->path, s, c->vf_bound, bound,
				   &c->d->pf.src[PF_KEY_VIRTUAL_FUNCTIONS]);
}

/* Sections in file order, files in set order: a later one wins per key per
 * VF. A section naming VFs that do not exist (VirtualFunctions unset) is
 * simply not applied to them. */
static int merge_vfs(struct desired_ctx *c)
{
	struct pf_desired *d = c->d;
	int r;

	/* With an impossible VirtualFunctions (held) the array is capped; with
	 * ExternallyManaged=yes it covers the VFs the layout expects, those the
	 * other tool has yet to make too, not those it made beyond them. */
	d->n_vfs = d->held || c->out.n_errors > 0 ?
			   (d->num_vfs < c->pf->total_vfs ? d->num_vfs : c->pf->total_vfs) :
		   pf_settings_externally_managed(&d->pf) ? c->vf_bound :
							    d->num_vfs;
	if (d->n_vfs == UINT32_MAX) /* ExternallyManaged=yes without a count */
		d->n_vfs = d->num_vfs;
	if (d->n_vfs > c->vf_bound)
		d->n_vfs = c->vf_bound;
	if (d->n_vfs > 0) {
		d->vfs = calloc(d->n_vfs, sizeof(*d->vfs));
		c->was_stable = calloc(d->n_vfs, sizeof(*c->was_stable));
		if (!d->vfs || !c->was_stable)
			return -ENOMEM;
	}

	for (size_t i = 0; i < c->n_files; i++) {
		const struct layout_file *f = c->files[i];

		for (size_t j = 0; j < f->n_vf_sections; j++) {
			const struct vf_section *s = &f->vf_sections[j];
			uint64_t first = s->first == VF_INDEX_ALL ? 0 : s->first;
			uint64_t last = s->first == VF_INDEX_ALL ? UINT32_MAX : s->last;

			r = check_section(c, f, s);
			if (r < 0)
				return r;
			for (uint64_t k = first; k <= last && k < d->n_vfs; k++) {
				r = vf_settings_merge(&d->vfs[k], &s->settings);
				if (r < 0)
					return r;
			}
		}
	}
	return 0;
}

/* What is unique on the whole host: a literal MAC address or GUID (the
 * same one on VFs of two PFs is an error of both), and the kind of VF a
 * ResourceName= pools (desired-resource.c). The other PFs' states are
 * built from the same host read (alone: without these checks, diagnostics
 * dropped), and only when this PF has a literal or a ResourceName=: the
 * common case builds no other PF; a host read of one PF only has no other
 * PF to compare with. */
static int check_host_wide(struct desired_ctx *c)
{
	bool unique = desired_has_literal_unique(c), resource = desired_has_resource(c);

	if (!unique && !resource)
		return 0;
	if (unique && desired_unique_host_vfs(c, c->pf, c->d) < 0)
		return -ENOMEM;
	for (size_t p = 0; p < c->host->n_pfs; p++) {
		_cleanup_pf_desired_ struct pf_desired *o = NULL;
		struct diag_list ignored = {};
		const struct pf_state *other = &c->host->pfs[p];
		int r;

		if (streq(other->pci, c->pf->pci))
			continue;
		r = build_pf(c->set, c->host, c->hostname, other, true, &ignored, &o);
		diag_list_done(&ignored);
		if (r >= 0 && o && unique)
			r = desired_unique_against(c, o);
		if (r >= 0 && o && resource)
			r = desired_resource_against(c, other, o);
		if (r >= 0 && unique)
			r = desired_unique_host_vfs(c, other, o);
		if (r < 0)
			return r;
	}
	return 0;
}

/* Any error found here holds the PF. The first error says why (a file's
 * own before those found here), with how many more there are of both. */
static int finish_held(struct desired_ctx *c)
{
	size_t n = c->n_file_errors + c->out.n_errors;
	_cleanup_free_ char *first = NULL, *more = NULL;

	if (n == 0)
		return 0;
	c->d->held = true;
	first = c->d->held_reason ?: TAKE_PTR(c->out.first);
	c->d->held_reason = NULL;
	if (!first)
		return -ENOMEM;
	if (n > 1)
		more = strdup_printf(" (and %zu more error%s)", n - 1, n == 2 ? "" : "s");
	if (n > 1 && !more)
		return -ENOMEM;
	c->d->held_reason =
		strdup_printf("%s%s%s", first, strempty(more), strempty(c->held_suffix));
	return c->d->held_reason ? 0 : -ENOMEM;
}

static int build(struct desired_ctx *c, const struct layout_set *set)
{
	size_t kept = 0;
	int r;

	r = hold_for_file_errors(c, set);
	if (r < 0)
		return r;
	/* a file with errors holds the PF, and what parsed of it still takes
	 * part, so that every bad line is reported at once (a rejected value
	 * is as if unset). Not so a file whose [Match] is broken: it holds
	 * every PF without meaning them, and what it sets would make errors
	 * of other files that are right. */
	for (size_t i = 0; i < c->n_files; i++)
		if (!layout_match_is_empty(&c->files[i]->match))
			c->files[kept++] = c->files[i];
	c->n_files = kept;
	r = rules_check_overrides(c->diags, c->files, c->n_files);
	if (r < 0)
		return r;
	for (size_t i = 0; i < c->n_files; i++)
		pf_settings_merge(&c->d->pf, &c->files[i]->pf);
	r = desired_resolve_num_vfs(c);
	if (r < 0)
		return r;
	r = merge_vfs(c);
	if (r < 0)
		return r;
	r = desired_resolve_stable(c);
	if (r < 0)
		return r;
	r = desired_check_all(c);
	if (r >= 0 && !c->alone)
		r = check_host_wide(c);
	if (r >= 0 && !c->alone)
		r = desired_host_warnings(c->pf, c->drv, &c->d->pf, c->d->vfs, c->d->n_vfs,
					  c->was_stable, c->diags);
	if (r >= 0 && !c->alone)
		r = desired_check_renamed(&c->out, c->pf, c->drv, &c->d->pf, c->files, c->n_files);
	if (r >= 0)
		r = desired_check_others(c);
	if (r < 0)
		return r;
	return finish_held(c);
}

static int build_pf(const struct layout_set *set, const struct host_state *host,
		    const char *hostname, const struct pf_state *pf, bool alone,
		    struct diag_list *diags, struct pf_desired **ret)
{
	_cleanup_pf_desired_ struct pf_desired *d = NULL;
	struct desired_ctx c = {
		.set = set,
		.alone = alone,
		.host = host,
		.hostname = hostname,
		.pf = pf,
		.drv = driver_info_get(pf->driver),
		.drv_name = pf->driver ?: "PF's",
		.diags = diags,
		.out = { .diags = diags, .known = &set->diags },
	};
	bool selected;
	int r;

	d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	snprintf(d->pci, sizeof(d->pci), "%s", pf->pci);
	c.out.vf_driver = pf->vf_driver ?: c.drv ? c.drv->vf_driver : NULL;
	d->rdma_netns = set->rdma_netns;
	d->kernel_arguments = set->kernel_arguments;
	c.d = d;

	r = select_files(&c, set);
	selected = r >= 0 && c.n_files > 0;
	if (selected)
		r = build(&c, set);
	if (r >= 0 && selected && set->main_error && !d->held) {
		d->held = true;
		d->held_reason = strdup(set->main_error);
		if (!d->held_reason)
			r = -ENOMEM;
	}
	free(c.files);
	free(c.was_stable);
	rules_out_done(&c.out);
	other_findings_done(&c.others);
	if (r < 0)
		return r;
	*ret = selected ? TAKE_PTR(d) : NULL;
	return 0;
}

int desired_build(const struct layout_set *set, const struct host_state *host,
		  const struct pf_state *pf, struct diag_list *diags, struct pf_desired **ret)
{
	return build_pf(set, host, host->hostname, pf, false, diags, ret);
}

int desired_build_as(const struct layout_set *set, const struct host_state *host,
		     const char *hostname, const struct pf_state *pf, struct diag_list *diags,
		     struct pf_desired **ret)
{
	return build_pf(set, host, hostname, pf, false, diags, ret);
}
