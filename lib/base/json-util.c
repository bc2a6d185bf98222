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
