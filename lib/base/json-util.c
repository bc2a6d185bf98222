/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "json-util.h"
#include "util.h"

struct json_object *json_strv(char *const *l)
{
	_cleanup_json_ struct json_object *a = json_object_new_array();

	for (size_t i = 0; a && l && l[i]; i++) {
		struct json_object *v = json_object_new_string(l[i]);

		if (!v || json_object_array_add(a, v) < 0) {
			json_object_put(v);
			return NULL;
		}
	}
	return TAKE_PTR(a);
}

int json_put(struct json_object *o, const char *key, struct json_object *v)
{
	if (!v)
		return -ENOMEM;
	if (json_object_object_add(o, key, v) < 0) {
		json_object_put(v);
		return -ENOMEM;
	}
	return 0;
}

int json_put_null(struct json_object *o, const char *key)
{
	return json_object_object_add(o, key, NULL) < 0 ? -ENOMEM : 0;
}

int json_put_str(struct json_object *o, const char *key, const char *s)
{
	return s ? json_put(o, key, json_object_new_string(s)) : json_put_null(o, key);
}

int json_put_int(struct json_object *o, const char *key, int64_t i)
{
	return json_put(o, key, json_object_new_int64(i));
}

int json_put_u64(struct json_object *o, const char *key, uint64_t u)
{
	return json_put(o, key, json_object_new_uint64(u));
}

int json_put_bool(struct json_object *o, const char *key, bool b)
{
	return json_put(o, key, json_object_new_boolean(b));
}

int json_append(struct json_object *a, struct json_object *v)
{
	if (!v)
		return -ENOMEM;
	if (json_object_array_add(a, v) < 0) {
		json_object_put(v);
		return -ENOMEM;
	}
	return 0;
}
