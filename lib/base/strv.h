/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* NULL-terminated string vectors. */

#include <stddef.h>

#include "macro.h"

char **strv_free(char **l);
static inline void strv_freep(char ***l)
{
	strv_free(*l);
}
#define _cleanup_strv_free_ _cleanup_(strv_freep)
size_t strv_length(char *const *l) _pure_;
bool strv_contains(char *const *l, const char *s) _pure_;
/* Takes ownership of value, also on failure. */
int strv_consume(char ***l, char *value);
int strv_extend(char ***l, const char *value);
/* Splits on whitespace; empty input gives an empty (non-NULL) vector. */
int strv_split(const char *s, char ***ret);
char **strv_copy(char *const *l);
char *strv_join(char *const *l, const char *sep);
/* In strcmp() order. */
void strv_sort(char **l);
