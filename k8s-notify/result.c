/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* What every verb shares: its JSON result and its messages on stderr. */

#include <stdarg.h>

#include "k8s-notify.h"

void result_set(struct k8s_ctx *x, const char *key, struct json_object *value)
{
	if (!value)
		return;
	if (json_object_object_add(x->result, key, value) < 0)
		json_object_put(value);
}

void result_append(struct k8s_ctx *x, const char *key, struct json_object *value)
{
	struct json_object *a;

	if (!value)
		return;
	if (!json_object_object_get_ex(x->result, key, &a)) {
		a = json_object_new_array();
		if (!a || json_object_object_add(x->result, key, a) < 0) {
			json_object_put(a);
			json_object_put(value);
			return;
		}
	}
	if (json_object_array_add(a, value) < 0)
		json_object_put(value);
}

void k8s_log(struct k8s_ctx *x, const char *fmt, ...)
{
	va_list ap;

	if (x->quiet)
		return;
	fprintf(stderr, "k8s-notify: %s: ", strna(x->node));
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int k8s_usage(struct k8s_ctx *x, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "k8s-notify: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return -EINVAL;
}
