/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* "did you mean ...?": the known name nearest to a misspelt one. Pure. */

#include "util.h"

struct suggest {
	const char *input;
	const char *best; /* NULL until a candidate is close enough */
	unsigned distance;
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
 * name that was meant: at most one edit in three characters of input, or
 * the input is the start of the candidate. */
void suggest_consider(struct suggest *s, const char *candidate);
/* "; did you mean 'X'?" or "" when no candidate was near enough; written to
 * buf, which is returned. */
char *suggest_hint(const struct suggest *s, char *buf, size_t size);
