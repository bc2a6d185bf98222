/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <json-c/json.h>

/* Drops *o and forgets it, so that a cleanup that runs later does nothing. */
static inline void json_object_putp(struct json_object **o)
{
	if (*o)
		json_object_put(*o);
	*o = NULL;
}
#define _cleanup_json_ __attribute__((cleanup(json_object_putp)))

/* A JSON array of the strings of l (NULL: empty); NULL when out of memory. */
struct json_object *json_strv(char *const *l);
