/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Internal to snapshot.c: the value converters of the field tables. Each
 * parse_X checks one JSON value (NULL = JSON null, only for nullable fields)
 * and stores it in the member; each format_X builds the JSON value back. */

#include <stddef.h>

#include "json-util.h"
#include "model.h"

#define PATH_MAX_ 128

struct parser {
	char *error; /* the first error, "path: what is wrong" */
	bool oom;
};

struct field;
typedef int (*field_parse_t)(struct parser *p, const struct field *f, const char *path,
			     struct json_object *v, void *obj);
/* Returns 1 and the value to add (NULL = JSON null), 0 to leave the key out,
 * or -ENOMEM. */
typedef int (*field_format_t)(const struct field *f, const void *obj, struct json_object **ret);

struct field {
	const char *key;
	field_parse_t parse;
	field_format_t format;
	size_t offset;
	size_t size;	  /* of the member */
	int64_t min, max; /* integers */
	bool optional;	  /* may be absent: the member keeps its default */
	bool nullable;	  /* may be null */
};

/* Builds a field path for messages into buf (PATH_MAX_ bytes; cut if longer). */
void snapshot_path(char *buf, const char *fmt, ...) _printf_(2, 3);
/* Records the first error; returns -EINVAL. */
int snapshot_fail(struct parser *p, const char *path, const char *fmt, ...) _printf_(3, 4);
int snapshot_oom(struct parser *p);

#define DECLARE_CONVERTER(name)                                                              \
	int snapshot_parse_##name(struct parser *p, const struct field *f, const char *path, \
				  struct json_object *v, void *obj);                         \
	int snapshot_format_##name(const struct field *f, const void *obj, struct json_object **ret)

DECLARE_CONVERTER(string);
DECLARE_CONVERTER(opt_string);
DECLARE_CONVERTER(ifname);
DECLARE_CONVERTER(bool);
DECLARE_CONVERTER(uint);
DECLARE_CONVERTER(int);
DECLARE_CONVERTER(speed);
DECLARE_CONVERTER(hex16);
DECLARE_CONVERTER(mac);
DECLARE_CONVERTER(guid);
DECLARE_CONVERTER(representor);
DECLARE_CONVERTER(representor_up);
DECLARE_CONVERTER(vf_stats);
DECLARE_CONVERTER(pci);
DECLARE_CONVERTER(strv);
DECLARE_CONVERTER(vlan_proto);
DECLARE_CONVERTER(link_state);
DECLARE_CONVERTER(link_type);
DECLARE_CONVERTER(eswitch_value);
DECLARE_CONVERTER(eswitch);
DECLARE_CONVERTER(firmware_link_type);
DECLARE_CONVERTER(rdma_netns_value);
DECLARE_CONVERTER(rdma_netns);
DECLARE_CONVERTER(boot_loader_value);
DECLARE_CONVERTER(boot_loader);
DECLARE_CONVERTER(cpu_vendor_value);
DECLARE_CONVERTER(cpu_vendor);
DECLARE_CONVERTER(version);
DECLARE_CONVERTER(machine_id);
DECLARE_CONVERTER(boot_id);
