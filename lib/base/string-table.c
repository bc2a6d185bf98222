/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "string-table.h"

int string_table_lookup(const char *const *table, size_t n, const char *s)
{
	for (size_t i = 0; s && i < n; i++)
		if (table[i] && streq(table[i], s))
			return (int)i;
	return -EINVAL;
}

const char *string_table_get(const char *const *table, size_t n, int v)
{
	if (v < 0 || (size_t)v >= n)
		return NULL;
	return table[v];
}
