/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <ctype.h>
#include <inttypes.h>
#include <stdarg.h>

#include "snapshot-convert.h"

#define SNAPSHOT_VERSION 1
#define HEXDIGITS "0123456789abcdefABCDEF"

int snapshot_fail(struct parser *p, const char *path, const char *fmt, ...)
{
	_cleanup_free_ char *msg = NULL;
	va_list ap;

	if (p->error || p->oom)
		return -EINVAL;
	va_start(ap, fmt);
	msg = strdup_vprintf(fmt, ap);
	va_end(ap);
	if (msg)
		p->error = strdup_printf("%s: %s", *path ? path : "(document)", msg);
	if (!p->error)
		p->oom = true;
	return -EINVAL;
}

void snapshot_path(char *buf, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, PATH_MAX_, fmt, ap);
	va_end(ap);
}

int snapshot_oom(struct parser *p)
{
	p->oom = true;
	return -ENOMEM;
}

static void *member(void *obj, const struct field *f)
{
	return (char *)obj + f->offset;
}

static const void *cmember(const void *obj, const struct field *f)
{
	return (const char *)obj + f->offset;
}

static int new_value(struct json_object *v, struct json_object **ret)
{
	*ret = v;
	return v ? 1 : -ENOMEM;
}

static int string_value(struct parser *p, const char *path, struct json_object *v, const char **ret)
{
	const char *s;

	if (!json_object_is_type(v, json_type_string))
		return snapshot_fail(p, path, "not a string");
	s = json_object_get_string(v);
	/* "\u0000" would silently cut the string short */
	if (strlen(s) != (size_t)json_object_get_string_len(v))
		return snapshot_fail(p, path, "contains a NUL character");
	*ret = s;
	return 0;
}

int snapshot_parse_string(struct parser *p, const struct field *f, const char *path,
			  struct json_object *v, void *obj)
{
	char **m = member(obj, f);
	const char *s;
	int r;

	if (!v)
		return 0;
	r = string_value(p, path, v, &s);
	if (r < 0)
		return r;
	*m = strdup(s);
	return *m ? 0 : snapshot_oom(p);
}

int snapshot_format_string(const struct field *f, const void *obj, struct json_object **ret)
{
	char *const *m = cmember(obj, f);

	if (!*m) {
		*ret = NULL;
		return 1;
	}
	return new_value(json_object_new_string(*m), ret);
}

/* An optional string that is left out when NULL. */
int snapshot_parse_opt_string(struct parser *p, const struct field *f, const char *path,
			      struct json_object *v, void *obj)
{
	return snapshot_parse_string(p, f, path, v, obj);
}

int snapshot_format_opt_string(const struct field *f, const void *obj, struct json_object **ret)
{
	char *const *m = cmember(obj, f);

	if (!*m)
		return 0;
	return new_value(json_object_new_string(*m), ret);
}

int snapshot_parse_ifname(struct parser *p, const struct field *f, const char *path,
			  struct json_object *v, void *obj)
{
	char *const *m = member(obj, f);
	int r;

	r = snapshot_parse_string(p, f, path, v, obj);
	if (r < 0)
		return r;
	if (*m && !ifname_is_valid(*m))
		return snapshot_fail(p, path, "not an interface name");
	return 0;
}

int snapshot_format_ifname(const struct field *f, const void *obj, struct json_object **ret)
{
	return snapshot_format_string(f, obj, ret);
}

/* A VF's representor: left out without one (not in switchdev mode). */
int snapshot_parse_representor(struct parser *p, const struct field *f, const char *path,
			       struct json_object *v, void *obj)
{
	return snapshot_parse_ifname(p, f, path, v, obj);
}

int snapshot_format_representor(const struct field *f, const void *obj, struct json_object **ret)
{
	const struct vf_state *vf = obj;

	if (!vf->representor)
		return 0;
	return snapshot_format_ifname(f, obj, ret);
}

int snapshot_parse_representor_up(struct parser *p, const struct field *f, const char *path,
				  struct json_object *v, void *obj)
{
	return snapshot_parse_bool(p, f, path, v, obj);
}

int snapshot_format_representor_up(const struct field *f, const void *obj, struct json_object **ret)
{
	const struct vf_state *vf = obj;

	if (!vf->representor)
		return 0;
	return snapshot_format_bool(f, obj, ret);
}

int snapshot_parse_bool(struct parser *p, const struct field *f, const char *path,
			struct json_object *v, void *obj)
{
	if (!json_object_is_type(v, json_type_boolean))
		return snapshot_fail(p, path, "not a boolean");
	*(bool *)member(obj, f) = json_object_get_boolean(v);
	return 0;
}

int snapshot_format_bool(const struct field *f, const void *obj, struct json_object **ret)
{
	return new_value(json_object_new_boolean(*(const bool *)cmember(obj, f)), ret);
}

static int int_value(struct parser *p, const struct field *f, const char *path,
		     struct json_object *v, int64_t *ret)
{
	int64_t i;

	if (!json_object_is_type(v, json_type_int))
		return snapshot_fail(p, path, "not an integer");
	/* json-c clamps what does not fit into int64 to its limits */
	i = json_object_get_int64(v);
	if (i < f->min || i > f->max)
		return snapshot_fail(p, path, "%" PRIi64 " is out of range %" PRIi64 "..%" PRIi64,
				     i, f->min, f->max);
	*ret = i;
	return 0;
}

/* Unsigned members of 1, 2 or 4 bytes (the table's M() gives the size). */
int snapshot_parse_uint(struct parser *p, const struct field *f, const char *path,
			struct json_object *v, void *obj)
{
	void *m = member(obj, f);
	int64_t i;
	int r;

	r = int_value(p, f, path, v, &i);
	if (r < 0)
		return r;
	if (f->size == sizeof(uint8_t))
		*(uint8_t *)m = (uint8_t)i;
	else if (f->size == sizeof(uint16_t))
		*(uint16_t *)m = (uint16_t)i;
	else
		*(uint32_t *)m = (uint32_t)i;
	return 0;
}

int snapshot_format_uint(const struct field *f, const void *obj, struct json_object **ret)
{
	const void *m = cmember(obj, f);
	int64_t v;

	if (f->size == sizeof(uint8_t))
		v = *(const uint8_t *)m;
	else if (f->size == sizeof(uint16_t))
		v = *(const uint16_t *)m;
	else
		v = *(const uint32_t *)m;
	return new_value(json_object_new_int64(v), ret);
}

/* A VF's counters (struct vf_state has_stats, stats): an object with every
 * one of them, each 0..f->max; absent when the driver reports none. */
int snapshot_parse_vf_stats(struct parser *p, const struct field *f, const char *path,
			    struct json_object *v, void *obj)
{
	struct vf_state *vf = obj;
	uint64_t stats[_VF_STAT_MAX];
	char spath[PATH_MAX_];

	if (!json_object_is_type(v, json_type_object))
		return snapshot_fail(p, path, "not an object");
	for (enum vf_stat s = 0; s < _VF_STAT_MAX; s++) {
		struct json_object *c;
		int64_t i;
		int r;

		snapshot_path(spath, "%s.%s", path, vf_stat_to_string(s));
		if (!json_object_object_get_ex(v, vf_stat_to_string(s), &c) || !c)
			return snapshot_fail(p, spath, "missing");
		r = int_value(p, f, spath, c, &i);
		if (r < 0)
			return r;
		stats[s] = (uint64_t)i;
	}
	memcpy(vf->stats, stats, sizeof(stats));
	vf->has_stats = true;
	return 0;
}

int snapshot_format_vf_stats(const struct field *f, const void *obj, struct json_object **ret)
{
	const struct vf_state *vf = obj;
	_cleanup_json_ struct json_object *o = NULL;

	if (!vf->has_stats)
		return 0;
	o = json_object_new_object();
	if (!o)
		return -ENOMEM;
	for (enum vf_stat s = 0; s < _VF_STAT_MAX; s++)
		if (json_put_u64(o, vf_stat_to_string(s), vf->stats[s]) < 0)
			return -ENOMEM;
	*ret = TAKE_PTR(o);
	return 1;
}

/* int members; when nullable, null <-> -1 (firmware_total_vfs) */
int snapshot_parse_int(struct parser *p, const struct field *f, const char *path,
		       struct json_object *v, void *obj)
{
	int64_t i;
	int r;

	if (!v) {
		*(int *)member(obj, f) = -1;
		return 0;
	}
	r = int_value(p, f, path, v, &i);
	if (r < 0)
		return r;
	*(int *)member(obj, f) = (int)i;
	return 0;
}

int snapshot_format_int(const struct field *f, const void *obj, struct json_object **ret)
{
	int i = *(const int *)cmember(obj, f);

	if (f->nullable && i < 0) {
		*ret = NULL;
		return 1;
	}
	return new_value(json_object_new_int64(i), ret);
}

/* A link speed in Mb/s: absent while unknown (0); null and the kernel's
 * -1 (SPEED_UNKNOWN) read as unknown too. */
int snapshot_parse_speed(struct parser *p, const struct field *f, const char *path,
			 struct json_object *v, void *obj)
{
	int64_t i;
	int r;

	if (!v)
		return 0;
	r = int_value(p, f, path, v, &i);
	if (r < 0)
		return r;
	*(uint32_t *)member(obj, f) = i < 0 ? 0 : (uint32_t)i;
	return 0;
}

int snapshot_format_speed(const struct field *f, const void *obj, struct json_object **ret)
{
	uint32_t speed = *(const uint32_t *)cmember(obj, f);

	if (speed == 0)
		return 0;
	return new_value(json_object_new_int64(speed), ret);
}

int snapshot_parse_hex16(struct parser *p, const struct field *f, const char *path,
			 struct json_object *v, void *obj)
{
	const char *s;
	uint32_t u;
	size_t n;
	int r;

	r = string_value(p, path, v, &s);
	if (r < 0)
		return r;
	n = strlen(s);
	if (n < 3 || n > 6 || strncmp(s, "0x", 2) != 0 || strspn(s + 2, HEXDIGITS) != n - 2 ||
	    safe_atou32(s + 2, 16, &u) < 0)
		return snapshot_fail(p, path, "not a hexadecimal ID like \"0x8086\"");
	*(uint16_t *)member(obj, f) = (uint16_t)u;
	return 0;
}

int snapshot_format_hex16(const struct field *f, const void *obj, struct json_object **ret)
{
	char buf[sizeof("0xffff")];

	snprintf(buf, sizeof(buf), "0x%04x", *(const uint16_t *)cmember(obj, f));
	return new_value(json_object_new_string(buf), ret);
}

int snapshot_parse_mac(struct parser *p, const struct field *f, const char *path,
		       struct json_object *v, void *obj)
{
	const char *s;
	int r;

	r = string_value(p, path, v, &s);
	if (r < 0)
		return r;
	if (mac_parse(s, member(obj, f)) < 0)
		return snapshot_fail(p, path, "not a MAC address");
	return 0;
}

int snapshot_format_mac(const struct field *f, const void *obj, struct json_object **ret)
{
	char buf[MAC_STR_MAX];

	return new_value(json_object_new_string(mac_format(cmember(obj, f), buf)), ret);
}

/* An InfiniBand GUID, optional: left out while 0 (never set, or no IPoIB). */
int snapshot_parse_guid(struct parser *p, const struct field *f, const char *path,
			struct json_object *v, void *obj)
{
	const char *s;
	uint64_t g;
	int r;

	r = string_value(p, path, v, &s);
	if (r < 0)
		return r;
	if (guid_parse(s, &g) < 0)
		return snapshot_fail(p, path, "not a GUID (xx:xx:xx:xx:xx:xx:xx:xx)");
	memcpy(member(obj, f), &g, sizeof(g));
	return 0;
}

int snapshot_format_guid(const struct field *f, const void *obj, struct json_object **ret)
{
	char buf[GUID_STR_MAX];
	uint64_t g;

	memcpy(&g, cmember(obj, f), sizeof(g));
	if (g == 0)
		return 0;
	return new_value(json_object_new_string(guid_format(g, buf)), ret);
}

int snapshot_parse_pci(struct parser *p, const struct field *f, const char *path,
		       struct json_object *v, void *obj)
{
	const char *s;
	int r;

	r = string_value(p, path, v, &s);
	if (r < 0)
		return r;
	if (!pci_addr_is_valid(s))
		return snapshot_fail(p, path, "not a PCI address (dddd:bb:dd.f in lower case)");
	memcpy(member(obj, f), s, strlen(s) + 1);
	return 0;
}

int snapshot_format_pci(const struct field *f, const void *obj, struct json_object **ret)
{
	return new_value(json_object_new_string(cmember(obj, f)), ret);
}

/* Lists of non-empty strings. Optional lists (altnames) stay NULL when empty
 * and are left out; required ones (modules) are never NULL. */
int snapshot_parse_strv(struct parser *p, const struct field *f, const char *path,
			struct json_object *v, void *obj)
{
	_cleanup_strv_free_ char **l = calloc(1, sizeof(char *));
	char ipath[PATH_MAX_];
	size_t n;

	if (!l)
		return snapshot_oom(p);
	if (!json_object_is_type(v, json_type_array))
		return snapshot_fail(p, path, "not an array");
	n = json_object_array_length(v);
	for (size_t i = 0; i < n; i++) {
		const char *s;
		int r;

		snapshot_path(ipath, "%s[%zu]", path, i);
		r = string_value(p, ipath, json_object_array_get_idx(v, i), &s);
		if (r < 0)
			return r;
		if (*s == '\0')
			return snapshot_fail(p, ipath, "empty string");
		if (strv_extend(&l, s) < 0)
			return snapshot_oom(p);
	}
	if (!(f->optional && n == 0))
		*(char ***)member(obj, f) = TAKE_PTR(l);
	return 0;
}

int snapshot_format_strv(const struct field *f, const void *obj, struct json_object **ret)
{
	char *const *l = *(char **const *)cmember(obj, f);
	_cleanup_json_ struct json_object *a = NULL;

	if (f->optional && strv_length(l) == 0)
		return 0;
	a = json_object_new_array();
	if (!a)
		return -ENOMEM;
	for (size_t i = 0; l && l[i]; i++) {
		struct json_object *s = json_object_new_string(l[i]);

		if (!s || json_object_array_add(a, s) < 0) {
			json_object_put(s);
			return -ENOMEM;
		}
	}
	*ret = TAKE_PTR(a);
	return 1;
}

/* Enums spelled by model.c's tables; the message lists the allowed values. */
#define DEFINE_ENUM_CONVERTER(conv, name, type, max)                                             \
	int snapshot_parse_##conv(struct parser *p, const struct field *f, const char *path,     \
				  struct json_object *v, void *obj)                              \
	{                                                                                        \
		const char *s;                                                                   \
		type t;                                                                          \
		int r;                                                                           \
                                                                                                 \
		r = string_value(p, path, v, &s);                                                \
		if (r < 0)                                                                       \
			return r;                                                                \
		t = name##_from_string(s);                                                       \
		if ((int)t < 0)                                                                  \
			return snapshot_fail(p, path, "unknown value \"%s\", must be %s|%s%s%s", \
					     s, name##_to_string(0), name##_to_string(1),        \
					     max > 2 ? "|" : "",                                 \
					     max > 2 ? name##_to_string(2) : "");                \
		*(type *)member(obj, f) = t;                                                     \
		return 0;                                                                        \
	}                                                                                        \
	int snapshot_format_##conv(const struct field *f, const void *obj,                       \
				   struct json_object **ret)                                     \
	{                                                                                        \
		const char *s = name##_to_string(*(const type *)cmember(obj, f));                \
                                                                                                 \
		return new_value(json_object_new_string(strempty(s)), ret);                      \
	}

DEFINE_ENUM_CONVERTER(vlan_proto, vlan_proto, enum vlan_proto, _VLAN_PROTO_MAX)
DEFINE_ENUM_CONVERTER(link_state, link_state, enum link_state, _LINK_STATE_MAX)
DEFINE_ENUM_CONVERTER(link_type, link_type, enum link_type, _LINK_TYPE_MAX)
DEFINE_ENUM_CONVERTER(eswitch_value, eswitch_mode, enum eswitch_mode, _ESWITCH_MODE_MAX)
DEFINE_ENUM_CONVERTER(rdma_netns_value, rdma_netns_mode, enum rdma_netns_mode, _RDMA_NETNS_MODE_MAX)

DEFINE_ENUM_CONVERTER(cpu_vendor_value, cpu_vendor, enum cpu_vendor, _CPU_VENDOR_MAX)

/* "cpu_vendor": left out when not known. */
int snapshot_parse_cpu_vendor(struct parser *p, const struct field *f, const char *path,
			      struct json_object *v, void *obj)
{
	struct host_state *h = obj;
	int r = snapshot_parse_cpu_vendor_value(p, f, path, v, obj);

	h->has_cpu_vendor = r >= 0;
	return r;
}

int snapshot_format_cpu_vendor(const struct field *f, const void *obj, struct json_object **ret)
{
	const struct host_state *h = obj;

	if (!h->has_cpu_vendor)
		return 0;
	return snapshot_format_cpu_vendor_value(f, obj, ret);
}

DEFINE_ENUM_CONVERTER(boot_loader_value, boot_loader, enum boot_loader, _BOOT_LOADER_MAX)

/* "boot_loader": left out when none was found. */
int snapshot_parse_boot_loader(struct parser *p, const struct field *f, const char *path,
			       struct json_object *v, void *obj)
{
	return snapshot_parse_boot_loader_value(p, f, path, v, obj);
}

int snapshot_format_boot_loader(const struct field *f, const void *obj, struct json_object **ret)
{
	const struct host_state *h = obj;

	if (h->boot_loader == BOOT_LOADER_NONE)
		return 0;
	return snapshot_format_boot_loader_value(f, obj, ret);
}

/* "rdma_netns_mode": null (or absent) without an RDMA subsystem. */
int snapshot_parse_rdma_netns(struct parser *p, const struct field *f, const char *path,
			      struct json_object *v, void *obj)
{
	struct host_state *h = obj;

	h->has_rdma_netns_mode = v != NULL;
	if (!v)
		return 0;
	return snapshot_parse_rdma_netns_value(p, f, path, v, obj);
}

int snapshot_format_rdma_netns(const struct field *f, const void *obj, struct json_object **ret)
{
	const struct host_state *h = obj;

	if (!h->has_rdma_netns_mode)
		return 0;
	return snapshot_format_rdma_netns_value(f, obj, ret);
}

/* "eswitch_mode": null when the driver has no devlink eswitch. */
int snapshot_parse_eswitch(struct parser *p, const struct field *f, const char *path,
			   struct json_object *v, void *obj)
{
	struct pf_state *pf = obj;

	pf->has_eswitch = v != NULL;
	if (!v)
		return 0;
	return snapshot_parse_eswitch_value(p, f, path, v, obj);
}

int snapshot_format_eswitch(const struct field *f, const void *obj, struct json_object **ret)
{
	const struct pf_state *pf = obj;

	if (!pf->has_eswitch) {
		*ret = NULL;
		return 1;
	}
	return snapshot_format_eswitch_value(f, obj, ret);
}

/* "firmware_link_type": null when the port has none in its firmware. */
int snapshot_parse_firmware_link_type(struct parser *p, const struct field *f, const char *path,
				      struct json_object *v, void *obj)
{
	struct pf_state *pf = obj;

	pf->has_firmware_link_type = v != NULL;
	if (!v)
		return 0;
	return snapshot_parse_link_type(p, f, path, v, obj);
}

int snapshot_format_firmware_link_type(const struct field *f, const void *obj,
				       struct json_object **ret)
{
	const struct pf_state *pf = obj;

	if (!pf->has_firmware_link_type) {
		*ret = NULL;
		return 1;
	}
	return snapshot_format_link_type(f, obj, ret);
}

int snapshot_parse_version(struct parser *p, const struct field *f, const char *path,
			   struct json_object *v, void *obj)
{
	if (!json_object_is_type(v, json_type_int))
		return snapshot_fail(p, path, "not an integer");
	if (json_object_get_int64(v) != SNAPSHOT_VERSION)
		return snapshot_fail(p, path,
				     "unsupported version %" PRIi64 " (this program reads %d)",
				     json_object_get_int64(v), SNAPSHOT_VERSION);
	return 0;
}

int snapshot_format_version(const struct field *f, const void *obj, struct json_object **ret)
{
	return new_value(json_object_new_int(SNAPSHOT_VERSION), ret);
}

/* A string of 32 hex digits (machine and boot IDs). */
static int hex32_value(struct parser *p, const char *path, struct json_object *v, const char **ret)
{
	const char *s;
	int r;

	r = string_value(p, path, v, &s);
	if (r < 0)
		return r;
	if (strlen(s) != 32)
		return snapshot_fail(p, path, "not 32 hexadecimal digits");
	for (size_t i = 0; i < 32; i++)
		if (hexval(s[i]) < 0)
			return snapshot_fail(p, path, "not 32 hexadecimal digits");
	*ret = s;
	return 0;
}

/* 32 hex digits, as in /etc/machine-id; left out when unknown. */
int snapshot_parse_machine_id(struct parser *p, const struct field *f, const char *path,
			      struct json_object *v, void *obj)
{
	struct host_state *h = obj;
	uint8_t id[16];
	const char *s;
	int r;

	r = hex32_value(p, path, v, &s);
	if (r < 0)
		return r;
	for (size_t i = 0; i < 16; i++)
		id[i] = (uint8_t)(hexval(s[2 * i]) << 4 | hexval(s[2 * i + 1]));
	memcpy(h->machine_id, id, sizeof(id));
	h->has_machine_id = true;
	return 0;
}

int snapshot_format_machine_id(const struct field *f, const void *obj, struct json_object **ret)
{
	const struct host_state *h = obj;
	char buf[33];

	if (!h->has_machine_id)
		return 0;
	for (size_t i = 0; i < 16; i++)
		snprintf(buf + 2 * i, 3, "%02x", h->machine_id[i]);
	return new_value(json_object_new_string(buf), ret);
}

/* 32 hex digits (lower case when written); left out when unknown. */
int snapshot_parse_boot_id(struct parser *p, const struct field *f, const char *path,
			   struct json_object *v, void *obj)
{
	struct host_state *h = obj;
	const char *s;
	int r;

	r = hex32_value(p, path, v, &s);
	if (r < 0)
		return r;
	for (size_t i = 0; i < 32; i++)
		h->boot_id[i] = (char)tolower((unsigned char)s[i]);
	h->boot_id[32] = '\0';
	return 0;
}

int snapshot_format_boot_id(const struct field *f, const void *obj, struct json_object **ret)
{
	const struct host_state *h = obj;

	if (!h->boot_id[0])
		return 0;
	return new_value(json_object_new_string(h->boot_id), ret);
}
