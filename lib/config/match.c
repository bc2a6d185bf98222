/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* [Match]: does a layout file select a PF? Globs as fnmatch(3). */

#include <fnmatch.h>

#include "match.h"

/* A key that is not set (NULL) matches everything; a set key matches when
 * any of its globs does. An empty list (set, no globs) matches nothing: a
 * file that does not clearly select a PF must never touch it. value NULL
 * (no driver, no hostname) matches no set key. */
static bool globs_match(char *const *globs, const char *value, int flags)
{
	if (!globs)
		return true;
	if (!value)
		return false;
	for (char *const *g = globs; *g; g++)
		if (fnmatch(*g, value, flags) == 0)
			return true;
	return false;
}

static bool name_matches(char *const *globs, const struct pf_state *pf)
{
	if (!globs)
		return true;
	if (pf->name && globs_match(globs, pf->name, 0))
		return true;
	for (char *const *a = pf->altnames; a && *a; a++)
		if (globs_match(globs, *a, 0))
			return true;
	return false;
}

static bool id_matches(char *const *globs, uint16_t id)
{
	char buf[sizeof("0xffff")];

	snprintf(buf, sizeof(buf), "0x%04x", id);
	return globs_match(globs, buf, FNM_CASEFOLD);
}

/* Host names compare without case (DNS), and a glob matches the short name
 * as well as the FQDN: "worker-7" and "worker-*" select worker-7.dc1.example.net. */
static bool host_matches(char *const *globs, const char *hostname)
{
	char short_name[256];
	const char *dot;

	if (!globs || globs_match(globs, hostname, FNM_CASEFOLD))
		return true;
	dot = hostname ? strchr(hostname, '.') : NULL;
	if (!dot || (size_t)(dot - hostname) >= sizeof(short_name))
		return false;
	snprintf(short_name, sizeof(short_name), "%.*s", (int)(dot - hostname), hostname);
	return globs_match(globs, short_name, FNM_CASEFOLD);
}

bool layout_match_pf(const struct layout_match *m, const struct pf_state *pf, const char *hostname)
{
	return globs_match(m->pci_address, pf->pci, FNM_CASEFOLD) && name_matches(m->name, pf) &&
	       id_matches(m->vendor, pf->vendor) && id_matches(m->device, pf->device) &&
	       globs_match(m->driver, pf->driver, 0) && host_matches(m->host, hostname);
}

bool layout_set_may_select(const struct layout_set *set, const struct pf_state *pf,
			   const char *hostname)
{
	for (size_t i = 0; i < set->n_files; i++) {
		struct layout_match m = set->files[i]->match;

		m.name = NULL;
		if (!pf->driver)
			m.driver = NULL;
		if (layout_match_pf(&m, pf, hostname))
			return true;
	}
	return false;
}
