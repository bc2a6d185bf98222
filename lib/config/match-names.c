/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* [Match] keys as other tools name them: for the messages of a key or a
 * value written as elsewhere. */

#include "match-names.h"
#include "link-file.h"
#include "string-util.h"
#include "strv.h"

/* What another tool calls a [Match] key, for "did you mean". */
static const struct match_key_names {
	const char *key;
	const char *other_names[3];
} match_key_names[] = {
	{ "PCIAddress", { "rootDevices" /* sriov-network-operator */ } },
	{ "Name",
	  { "interface-name" /* NetworkManager */, "pfNames" /* sriov-network-operator */ } },
	{ "Driver", { "driver_name" /* Open vSwitch, DPDK */ } },
	{ "Host", { "hostname" } },
};

void layout_match_suggest(struct suggest *sg, const char *key)
{
	suggest_consider(sg, key);
	for (size_t i = 0; i < ELEMENTSOF(match_key_names); i++)
		for (size_t n = 0; streq(match_key_names[i].key, key) &&
				   n < ELEMENTSOF(match_key_names[i].other_names);
		     n++)
			suggest_consider_alias(sg, key, match_key_names[i].other_names[n]);
}

const char *layout_match_link_key(const char *key, char *buf, size_t size)
{
	const char *ours, *how;

	if (link_match_key_in_layout(key, &ours, &how) < 0)
		return NULL;
	if (ours)
		snprintf(buf, size,
			 "%s= is a [Match] key of systemd.link(5) files: sriov-persist's "
			 "equivalent is %s= (%s)",
			 key, ours, how);
	else
		snprintf(buf, size,
			 "%s= is a [Match] key of systemd.link(5) files: sriov-persist's [Match] "
			 "has no equivalent",
			 key);
	return buf;
}

char *layout_match_comma_why(const char *key, const char *value, const char *why)
{
	_cleanup_strv_free_ char **words = NULL;
	_cleanup_free_ char *spaced = strdup(value), *fixed = NULL;

	if (!spaced)
		return NULL;
	if (!strchr(value, ','))
		return strdup(why);
	for (char *c = spaced; *c; c++)
		if (*c == ',')
			*c = ' ';
	if (strv_split(spaced, &words) < 0)
		return NULL;
	fixed = strv_join(words, " ");
	if (!fixed)
		return NULL;
	return strdup_printf("%s; globs are separated by spaces, not commas: write '%s=%s'", why,
			     key, fixed);
}
