/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* "did you mean ...?": the known name nearest to a misspelt one. Pure. */

#include "util.h"

struct suggest {
	const char *input;
	const char *best; /* NULL until one candidate is nearer than all others */
	unsigned distance;
	unsigned left_out; /* of an abbreviation at the same distance: fewer is nearer */
};

/* The edit distance between a and b, ignoring case, with an adjacent
 * transposition counting as one edit ("Devcie" is one from "Device").
 * Strings longer than 63 bytes are as far as their length. */
unsigned suggest_distance(const char *a, const char *b) _pure_;

static inline struct suggest suggest_init(const char *input)
{
	return (struct suggest){ .input = input, .distance = UINT32_MAX };
}
/* Keeps candidate when it is the nearest so far and near enough to be the
 * name that was meant: the same name but for case, '_' and '-' (nearest of
 * all); at most one edit in three characters of input; the input is the
 * start of the candidate; or it abbreviates the candidate, read as the
 * starts of the candidate's words in order, a word in capitals whole ("RSS",
 * "QueryRSS" and "qrss" for QueryReceiveSideScaling, "MAC" for MACAddress,
 * "MaxRate" for MaxTxRateMbps, "VF" for VirtualFunction), leaving out no
 * more words than it uses (the fewer, the nearer: "VirtFunc" is
 * VirtualFunctions, not FirmwareVirtualFunctions). Two different
 * candidates equally near are no suggestion: a guess would mislead. */
void suggest_consider(struct suggest *s, const char *candidate);
/* The same, with input measured against alias, another name of candidate
 * (as ip-link(8) or sysfs spell it: "spoofchk" for MACSpoofCheck); does
 * nothing when alias is NULL. */
void suggest_consider_alias(struct suggest *s, const char *candidate, const char *alias);
/* Whether any candidate was near enough, even when two equally near left
 * none to suggest. */
static inline bool suggest_near(const struct suggest *s)
{
	return s->distance != UINT32_MAX;
}
/* "; did you mean 'X'?" or "" when no candidate was near enough; written to
 * buf, which is returned. */
char *suggest_hint(const struct suggest *s, char *buf, size_t size);
/* The same for a key of another section: "; did you mean 'X' of where?",
 * where naming that section ("[PhysicalFunction]"); as suggest_hint() when
 * where is NULL. */
char *suggest_hint_of(const struct suggest *s, const char *where, char *buf, size_t size);
/* Puts section, the i-th of count, into the list of sections in buf, for
 * where and for "it belongs in ...": "[Disruption]", "[Disruption] or
 * [Reboot]", "[A], [B] or [C]"; i = 0 starts the list. */
void suggest_where_add(char *buf, size_t size, size_t i, size_t count, const char *section);
