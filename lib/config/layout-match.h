/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* [Match] of a layout file (sriov-persist.layout(5)): one row per key,
 * each a list of globs with the line that first set it. Pure. */

#include "util.h"

/* [Match] key names as written in files ("PCIAddress", ...); NULL past the last. */
const char *layout_match_key_name(size_t i) _pure_;
/* The index of a [Match] key (layout_match_key_name() order), -ENOENT if none. */
int layout_match_key_from_string(const char *key) _pure_;

#define LAYOUT_MATCH_KEYS 6

/* [Match]: each is NULL (not set) or a NULL-terminated list of globs. */
struct layout_match {
	char **pci_address;
	char **name;
	char **vendor;
	char **device;
	char **driver;
	char **host;
	unsigned line; /* of the [Match] header, 0 when the file has none */
	/* of the first line that set each key (layout_match_key_name() order) */
	unsigned key_line[LAYOUT_MATCH_KEYS];
};

/* The glob list of key i (layout_match_key_name() order, i < LAYOUT_MATCH_KEYS) of m. */
char ***layout_match_list(struct layout_match *m, size_t i);

/* A [Match] key at line: its globs are added to the list; an empty value
 * unsets the list. -ENOENT for an unknown key, -EINVAL with *ret_why for a
 * bad glob. */
int layout_match_parse(struct layout_match *m, const char *key, const char *value, unsigned line,
		       const char **ret_why);

/* Nothing set: a file without a usable [Match] (an error), which holds
 * every PF. */
bool layout_match_is_empty(const struct layout_match *m) _pure_;

/* "PCIAddress=0000:3b:00.0 Driver=ice": the keys set, in table order;
 * NULL on allocation failure. */
char *layout_match_describe(const struct layout_match *m);

/* Frees the lists; m is then empty (line 0). */
void layout_match_done(struct layout_match *m);
