/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* The files that select nothing on a host: a file whose [Match] selects no
 * PF (a warning at the key that selects nothing), and for sriovctl check a
 * Name= or PCIAddress= glob that selects no PF while the file's others do
 * (not the IPoIB name a LinkType=infiniband change gives a PF it selects). */

#include "desired-host.h"
#include "desired.h"
#include "match.h"

static bool match_selects_any(const struct layout_match *m, const struct host_state *host,
			      const char *hostname)
{
	for (size_t i = 0; i < host->n_pfs; i++)
		if (layout_match_pf(m, &host->pfs[i], hostname))
			return true;
	return false;
}

static bool selects_any(const struct layout_file *f, const struct host_state *host,
			const char *hostname)
{
	return match_selects_any(&f->match, host, hostname);
}

/* The line of the first [Match] key that alone selects no PF of host, else
 * (the keys select PFs, not together) of the header. */
static unsigned unselected_line(const struct layout_match *m, const struct host_state *host,
				const char *hostname)
{
	for (size_t i = 0; i < LAYOUT_MATCH_KEYS; i++) {
		struct layout_match one = { .line = m->line };
		char **list = *layout_match_list((struct layout_match *)m, i);

		*layout_match_list(&one, i) = list;
		if (list && !match_selects_any(&one, host, hostname))
			return m->key_line[i] ?: m->line;
	}
	return m->line;
}

static int warn_unselected(const struct layout_file *f, const struct host_state *host,
			   const char *hostname, struct diag_list *diags)
{
	_cleanup_free_ char *what = NULL;

	/* Host= names other machines: the file is for them, as a unit's
	 * ConditionHost= is, and saying so on every other host would only be
	 * noise (and fail --strict) where one directory goes to a fleet */
	if (f->match.host && !layout_match_pf(&(struct layout_match){ .host = f->match.host },
					      &(struct pf_state){}, hostname))
		return 0;
	what = layout_match_describe(&f->match);
	if (!what)
		return -ENOMEM;
	return diag_add(diags, DIAG_WARNING, f->path, unselected_line(&f->match, host, hostname),
			"[Match] %s selects no PF on this host", what);
}

int desired_unselected(const struct layout_set *set, const struct host_state *host,
		       struct diag_list *diags, const struct layout_file ***ret_files,
		       size_t *ret_n)
{
	return desired_unselected_as(set, host, host->hostname, diags, ret_files, ret_n);
}

int desired_unselected_as(const struct layout_set *set, const struct host_state *host,
			  const char *hostname, struct diag_list *diags,
			  const struct layout_file ***ret_files, size_t *ret_n)
{
	_cleanup_free_ const struct layout_file **files = calloc(set->n_files ?: 1, sizeof(*files));
	size_t n = 0;

	if (!files)
		return -ENOMEM;
	for (size_t i = 0; i < set->n_files; i++) {
		const struct layout_file *f = set->files[i];
		int r;

		/* a file without a usable [Match] holds every PF: its error says so */
		if (!f || f->masked || layout_match_is_empty(&f->match) ||
		    selects_any(f, host, hostname))
			continue;
		r = warn_unselected(f, host, hostname, diags);
		if (r < 0)
			return r;
		files[n++] = f;
	}
	if (ret_files)
		*ret_files = TAKE_PTR(files);
	if (ret_n)
		*ret_n = n;
	return 0;
}

/* Whether pf's LinkType= is set by the files of set that select it, and
 * to what (*ret): the last such file's, as desired_build() merges them. */
static bool link_type_wanted(const struct layout_set *set, const struct pf_state *pf,
			     const char *hostname, enum link_type *ret)
{
	bool set_by_any = false;

	for (size_t i = 0; i < set->n_files; i++) {
		const struct layout_file *f = set->files[i];

		if (!f || f->masked || layout_match_is_empty(&f->match) ||
		    !pf_settings_has(&f->pf, PF_KEY_LINK_TYPE) ||
		    !layout_match_pf(&f->match, pf, hostname))
			continue;
		*ret = f->pf.link_type;
		set_by_any = true;
	}
	return set_by_any;
}

/* Whether glob, of f's Name=, is the name a PF that f selects gets at the
 * reboot its LinkType= change needs ("Name=ens2f0np0 ibp65s0f0", as
 * sriov-persist.layout(5) recommends): it selects the PF after that
 * reboot, and desired_check_renamed() takes it as doing so. */
static bool names_renamed_pf(const struct layout_set *set, const struct layout_file *f,
			     const char *glob, const struct host_state *host)
{
	for (size_t i = 0; i < host->n_pfs; i++) {
		const struct pf_state *pf = &host->pfs[i];
		enum link_type to;

		if (layout_match_pf(&f->match, pf, host->hostname) &&
		    link_type_wanted(set, pf, host->hostname, &to) &&
		    desired_names_renamed(glob, pf, driver_info_get(pf->driver), to))
			return true;
	}
	return false;
}

/* Of key i of f (with two globs or more), each glob that selects no PF
 * of host where the file with only that glob for the key would select none;
 * not a Name= glob of the name a PF f selects gets at its link type
 * change's reboot. */
static int warn_globs(const struct layout_set *set, const struct layout_file *f, size_t i,
		      const struct host_state *host, struct diag_list *diags)
{
	char **list = *layout_match_list((struct layout_match *)&f->match, i);

	for (size_t g = 0; list && list[0] && list[1] && list[g]; g++) {
		struct layout_match one = f->match;
		char *only[] = { list[g], NULL };
		int r;

		*layout_match_list(&one, i) = only;
		if (match_selects_any(&one, host, host->hostname) ||
		    (streq(layout_match_key_name(i), "Name") &&
		     names_renamed_pf(set, f, list[g], host)))
			continue;
		r = diag_add(diags, DIAG_WARNING, f->path, f->match.key_line[i],
			     "[Match] %s=%s selects no PF on this host (the file's other %s= "
			     "globs do)",
			     layout_match_key_name(i), list[g], layout_match_key_name(i));
		if (r < 0)
			return r;
	}
	return 0;
}

/* Also in a file with errors elsewhere, so that one pass shows every
 * problem: a [Match] value the parser rejected is left out, which makes
 * the match broader, so a glob that selects no PF with it selects none
 * with the value fixed either. */
int desired_unmatched_globs(const struct layout_set *set, const struct host_state *host,
			    struct diag_list *diags)
{
	for (size_t i = 0; i < set->n_files; i++) {
		const struct layout_file *f = set->files[i];

		if (!f || f->masked || layout_match_is_empty(&f->match) ||
		    !selects_any(f, host, host->hostname))
			continue;
		for (size_t k = 0; k < LAYOUT_MATCH_KEYS; k++) {
			const char *key = layout_match_key_name(k);
			int r;

			if (!streq(key, "Name") && !streq(key, "PCIAddress"))
				continue;
			r = warn_globs(set, f, k, host, diags);
			if (r < 0)
				return r;
		}
	}
	return 0;
}
