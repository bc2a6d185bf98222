/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <stdint.h>

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

/* Building objects: each returns 0 or -ENOMEM. json_put() and
 * json_append() take v, also on failure; v == NULL is an allocation
 * failure. json_put_str() of NULL puts a JSON null. */
int json_put(struct json_object *o, const char *key, struct json_object *v);
int json_put_null(struct json_object *o, const char *key);
int json_put_str(struct json_object *o, const char *key, const char *s);
int json_put_int(struct json_object *o, const char *key, int64_t i);
int json_put_u64(struct json_object *o, const char *key, uint64_t u);
int json_put_bool(struct json_object *o, const char *key, bool b);
int json_append(struct json_object *a, struct json_object *v);
