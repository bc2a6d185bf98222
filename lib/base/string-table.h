/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Enum name tables: the names of an enum's values in one array. */

#include <stddef.h>

#include "macro.h"

/* The index of s in table[0..n-1] (NULL entries are skipped), -EINVAL when
 * it is not there or s is NULL: the from-string side of the enum name tables. */
int string_table_lookup(const char *const *table, size_t n, const char *s) _pure_;
/* table[v], NULL when v is out of range: the to-string side. */
const char *string_table_get(const char *const *table, size_t n, int v) _pure_;

/* name_to_string() and name_from_string() of an enum over its name table. */
#define DEFINE_STRING_TABLE(name, type, table)                                 \
	const char *name##_to_string(type v)                                   \
	{                                                                      \
		return string_table_get(table, ELEMENTSOF(table), (int)v);     \
	}                                                                      \
	type name##_from_string(const char *s)                                 \
	{                                                                      \
		return (type)string_table_lookup(table, ELEMENTSOF(table), s); \
	}
#define DEFINE_STRING_TABLE_TO(name, type, table)                          \
	const char *name##_to_string(type v)                               \
	{                                                                  \
		return string_table_get(table, ELEMENTSOF(table), (int)v); \
	}
