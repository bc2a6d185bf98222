/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* The snapshot JSON <-> struct host_state. Each JSON object is described by a
 * table of fields (key, member, converter pair) in document order, so that
 * parsing and writing cannot disagree on names, order or ranges. The
 * converters themselves are in snapshot-convert.c. */

#include <ctype.h>
#include <limits.h>

#include "addr-util.h"
#include "snapshot-convert.h"
#include "snapshot.h"

#define SNAPSHOT_FORMAT_FLAGS \
	(JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE)

#define M(type, m) offsetof(type, m), sizeof(((type *)NULL)->m)
#define FIELD(k, conv, type, m, lo, hi, ...)                                                \
	{                                                                                   \
		.key = k, .parse = snapshot_parse_##conv, .format = snapshot_format_##conv, \
		M(type, m), .min = lo, .max = hi, __VA_ARGS__                               \
	}

static int snapshot_parse_vfs(struct parser *p, const struct field *f, const char *path,
			      struct json_object *v, void *obj);
static int snapshot_format_vfs(const struct field *f, const void *obj, struct json_object **ret);

static int snapshot_parse_pfs(struct parser *p, const struct field *f, const char *path,
			      struct json_object *v, void *obj);
static int snapshot_format_pfs(const struct field *f, const void *obj, struct json_object **ret);

/* A VF's fields around its attributes, which come from the rows of vf-attrs.c. */
static const struct field vf_head_fields[] = {
	FIELD("index", uint, struct vf_state, index, 0, 65535),
	FIELD("pci", pci, struct vf_state, pci, 0, 0),
	FIELD("name", ifname, struct vf_state, name, 0, 0, .nullable = true),
};

static const struct field vf_tail_fields[] = {
	FIELD("representor", representor, struct vf_state, representor, 0, 0, .optional = true),
	FIELD("representor_up", representor_up, struct vf_state, representor_up, 0, 0,
	      .optional = true),
	FIELD("stats", vf_stats, struct vf_state, stats, 0, INT64_MAX, .optional = true),
};

#define CONVERTERS(f, conv) \
	((f)->parse = snapshot_parse_##conv, (f)->format = snapshot_format_##conv)

/* VF key k as a field of an object that has its struct vf_attrs at base;
 * false for a key a host has no value for. */
static bool vf_attr_field(enum vf_key k, size_t base, struct field *ret)
{
	struct vf_key_field kf;
	struct field f;

	if (!vf_key_host_field(k, &kf))
		return false;
	f = (struct field){ .key = kf.name,
			    .offset = base + kf.offset,
			    .size = kf.size,
			    .min = kf.min,
			    .max = kf.max,
			    .optional = kf.optional };
	switch (kf.kind) {
	case VF_KIND_DRIVER:
	case VF_KIND_NAME:
		/* null: no driver bound */
		CONVERTERS(&f, string);
		f.nullable = true;
		break;
	case VF_KIND_MAC:
		CONVERTERS(&f, mac);
		break;
	case VF_KIND_GUID:
		CONVERTERS(&f, guid);
		break;
	case VF_KIND_UINT:
		CONVERTERS(&f, uint);
		break;
	case VF_KIND_BOOL:
		CONVERTERS(&f, bool);
		break;
	case VF_KIND_LINK_STATE:
		CONVERTERS(&f, link_state);
		break;
	case VF_KIND_VLAN_PROTO:
		CONVERTERS(&f, vlan_proto);
		break;
	case VF_KIND_HOST_STACK:
		return false; /* the layout's alone (vf_key_host_field() said no) */
	}
	*ret = f;
	return true;
}

int snapshot_vf_attr_format(const struct vf_attrs *a, enum vf_key k, struct json_object **ret)
{
	struct field f;

	if (!vf_attr_field(k, 0, &f))
		return 0;
	return f.format(&f, a, ret);
}

#define N_VF_FIELDS (ELEMENTSOF(vf_head_fields) + _VF_KEY_MAX + ELEMENTSOF(vf_tail_fields))

/* The fields of a VF object in document order into fields; returns how many. */
static size_t vf_fields(struct field fields[static N_VF_FIELDS])
{
	size_t n = 0;

	for (size_t i = 0; i < ELEMENTSOF(vf_head_fields); i++)
		fields[n++] = vf_head_fields[i];
	for (enum vf_key k = 0; k < _VF_KEY_MAX; k++)
		n += vf_attr_field(k, offsetof(struct vf_state, attrs), &fields[n]);
	for (size_t i = 0; i < ELEMENTSOF(vf_tail_fields); i++)
		fields[n++] = vf_tail_fields[i];
	return n;
}

static const struct field pf_fields[] = {
	FIELD("pci", pci, struct pf_state, pci, 0, 0),
	FIELD("name", ifname, struct pf_state, name, 0, 0, .nullable = true),
	FIELD("altnames", strv, struct pf_state, altnames, 0, 0, .optional = true),
	FIELD("vendor", hex16, struct pf_state, vendor, 0, 0),
	FIELD("device", hex16, struct pf_state, device, 0, 0),
	FIELD("driver", string, struct pf_state, driver, 0, 0, .nullable = true),
	FIELD("vf_device", hex16, struct pf_state, vf_device, 0, 0),
	FIELD("vf_driver", string, struct pf_state, vf_driver, 0, 0, .nullable = true),
	FIELD("total_vfs", uint, struct pf_state, total_vfs, 0, 65535),
	FIELD("num_vfs", uint, struct pf_state, num_vfs, 0, 65535),
	FIELD("vf_offset", uint, struct pf_state, vf_offset, 0, 65535),
	FIELD("vf_stride", uint, struct pf_state, vf_stride, 0, 65535),
	FIELD("drivers_autoprobe", bool, struct pf_state, drivers_autoprobe, 0, 0,
	      .optional = true),
	FIELD("mtu", uint, struct pf_state, mtu, 0, 65535),
	FIELD("up", bool, struct pf_state, up, 0, 0),
	FIELD("speed", speed, struct pf_state, speed, -1, INT32_MAX, .optional = true,
	      .nullable = true),
	FIELD("permanent_mac", mac, struct pf_state, permanent_mac, 0, 0),
	FIELD("eswitch_mode", eswitch, struct pf_state, eswitch_mode, 0, 0, .nullable = true),
	FIELD("hw_tc_offload", bool, struct pf_state, hw_tc_offload, 0, 0, .optional = true),
	FIELD("hw_tc_offload_fixed", bool, struct pf_state, hw_tc_offload_fixed, 0, 0,
	      .optional = true),
	FIELD("link_type", link_type, struct pf_state, link_type, 0, 0),
	FIELD("firmware_link_type", firmware_link_type, struct pf_state, firmware_link_type, 0, 0,
	      .optional = true, .nullable = true),
	FIELD("numa_node", int, struct pf_state, numa_node, -1, 4095),
	FIELD("firmware_total_vfs", int, struct pf_state, firmware_total_vfs, 0, 65535,
	      .nullable = true),
	FIELD("firmware_error", opt_string, struct pf_state, firmware_error, 0, 0,
	      .optional = true),
	FIELD("vfs", vfs, struct pf_state, vfs, 0, 0),
};

static const struct field host_fields[] = {
	/* no member: checked when read, SNAPSHOT_VERSION when written */
	FIELD("version", version, struct host_state, hostname, 0, 0),
	FIELD("hostname", string, struct host_state, hostname, 0, 0),
	FIELD("kernel_cmdline", string, struct host_state, kernel_cmdline, 0, 0),
	FIELD("iommu", bool, struct host_state, iommu, 0, 0),
	FIELD("cpu_vendor", cpu_vendor, struct host_state, cpu_vendor, 0, 0, .optional = true),
	FIELD("boot_loader", boot_loader, struct host_state, boot_loader, 0, 0, .optional = true),
	FIELD("kernel_arguments_added", strv, struct host_state, kernel_args_added, 0, 0,
	      .optional = true),
	FIELD("modules", strv, struct host_state, modules, 0, 0),
	FIELD("rdma_netns_mode", rdma_netns, struct host_state, rdma_netns_mode, 0, 0,
	      .optional = true, .nullable = true),
	FIELD("machine_id", machine_id, struct host_state, machine_id, 0, 0, .optional = true),
	FIELD("boot_id", boot_id, struct host_state, boot_id, 0, 0, .optional = true),
	FIELD("pfs", pfs, struct host_state, pfs, 0, 0),
};

/* A key that may be left out may also be null, meaning the same, unless
 * null has a meaning of its own there (firmware_link_type). */
static bool is_null_absent(const struct field *f, const struct json_object *v)
{
	return !v && f->optional && !f->nullable;
}

/* Parses the members of one object in table order; unknown keys are ignored. */
static int parse_object(struct parser *p, const struct field *fields, size_t n_fields,
			const char *path, struct json_object *o, void *obj)
{
	char fpath[PATH_MAX_];

	if (!json_object_is_type(o, json_type_object))
		return snapshot_fail(p, path, "not an object");
	for (size_t i = 0; i < n_fields; i++) {
		const struct field *f = &fields[i];
		struct json_object *v;
		int r;

		snapshot_path(fpath, "%s%s%s", path, *path ? "." : "", f->key);
		if (!json_object_object_get_ex(o, f->key, &v) || is_null_absent(f, v)) {
			if (f->optional)
				continue;
			return snapshot_fail(p, fpath, "missing");
		}
		if (!v && !f->nullable)
			return snapshot_fail(p, fpath, "must not be null");
		r = f->parse(p, f, fpath, v, obj);
		if (r < 0)
			return r;
	}
	return 0;
}

static int format_object(const struct field *fields, size_t n_fields, const void *obj,
			 struct json_object **ret)
{
	_cleanup_json_ struct json_object *o = json_object_new_object();

	if (!o)
		return -ENOMEM;
	for (size_t i = 0; i < n_fields; i++) {
		struct json_object *v = NULL;
		int r;

		r = fields[i].format(&fields[i], obj, &v);
		if (r < 0)
			return r;
		if (r == 0)
			continue;
		if (json_object_object_add(o, fields[i].key, v) < 0) {
			json_object_put(v);
			return -ENOMEM;
		}
	}
	*ret = TAKE_PTR(o);
	return 0;
}

static int parse_vf(struct parser *p, const struct field *fields, size_t n_fields, const char *path,
		    size_t i, struct json_object *o, struct vf_state *vf)
{
	int r;

	r = parse_object(p, fields, n_fields, path, o, vf);
	if (r < 0)
		return r;
	if (vf->index != i) {
		char ipath[PATH_MAX_];

		snapshot_path(ipath, "%s.index", path);
		return snapshot_fail(p, ipath, "is %u, must be %zu (VFs are listed in order)",
				     vf->index, i);
	}
	return 0;
}

static int snapshot_parse_vfs(struct parser *p, const struct field *f, const char *path,
			      struct json_object *v, void *obj)
{
	struct pf_state *pf = obj;
	struct field fields[N_VF_FIELDS];
	size_t n_fields = vf_fields(fields);
	char ipath[PATH_MAX_];
	size_t n;

	if (!json_object_is_type(v, json_type_array))
		return snapshot_fail(p, path, "not an array");
	n = json_object_array_length(v);
	if (n != pf->num_vfs)
		return snapshot_fail(p, path, "has %zu entries but num_vfs is %u", n, pf->num_vfs);
	if (n == 0)
		return 0;
	pf->vfs = calloc(n, sizeof(*pf->vfs));
	if (!pf->vfs)
		return snapshot_oom(p);
	for (size_t i = 0; i < n; i++) {
		int r;

		/* counted before parsing, so that pf_state_done() frees a partial VF */
		pf->n_vfs = i + 1;
		snapshot_path(ipath, "%s[%zu]", path, i);
		r = parse_vf(p, fields, n_fields, ipath, i, json_object_array_get_idx(v, i),
			     &pf->vfs[i]);
		if (r < 0)
			return r;
	}
	return 0;
}

/* n items, each size bytes from items on, as a JSON array of objects of fields. */
static int format_array(const struct field *fields, size_t n_fields, const void *items, size_t n,
			size_t size, struct json_object **ret)
{
	_cleanup_json_ struct json_object *a = json_object_new_array();

	if (!a)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		struct json_object *o = NULL;
		int r;

		r = format_object(fields, n_fields, (const char *)items + i * size, &o);
		if (r < 0)
			return r;
		if (json_object_array_add(a, o) < 0) {
			json_object_put(o);
			return -ENOMEM;
		}
	}
	*ret = TAKE_PTR(a);
	return 1;
}

static int snapshot_format_vfs(const struct field *f, const void *obj, struct json_object **ret)
{
	const struct pf_state *pf = obj;
	struct field fields[N_VF_FIELDS];

	return format_array(fields, vf_fields(fields), pf->vfs, pf->n_vfs, sizeof(pf->vfs[0]), ret);
}

static int parse_pf(struct parser *p, const char *path, struct json_object *o, struct pf_state *pf)
{
	int r;

	pf->firmware_link_type = _LINK_TYPE_INVALID;
	pf->has_firmware_link_type = true;
	pf->drivers_autoprobe = true;
	r = parse_object(p, pf_fields, ELEMENTSOF(pf_fields), path, o, pf);
	if (r < 0)
		return r;
	if (!pf->has_firmware_link_type || pf->firmware_link_type == _LINK_TYPE_INVALID)
		pf->firmware_link_type = pf->link_type;
	if (pf->num_vfs > pf->total_vfs) {
		char ipath[PATH_MAX_];

		snapshot_path(ipath, "%s.num_vfs", path);
		return snapshot_fail(p, ipath, "%u exceeds total_vfs %u", pf->num_vfs,
				     pf->total_vfs);
	}
	return 0;
}

/* Where a PCI address stands in a snapshot: pfs[pf], or pfs[pf].vfs[vf]. */
struct pci_place {
	const char *pci;
	size_t pf, vf;
	bool is_vf;
	size_t order; /* in the document */
};

static int pci_place_compare(const void *a, const void *b)
{
	const struct pci_place *x = a, *y = b;
	int c = strcmp(x->pci, y->pci);

	return c ? c : (x->order > y->order) - (x->order < y->order);
}

static void pci_place_name(char *buf, const char *path, const struct pci_place *w,
			   const char *suffix)
{
	if (w->is_vf)
		snapshot_path(buf, "%s[%zu].vfs[%zu]%s", path, w->pf, w->vf, suffix);
	else
		snapshot_path(buf, "%s[%zu]%s", path, w->pf, suffix);
}

/* Every PCI address of the PFs and VFs in document order. */
static struct pci_place *pci_places(const struct host_state *h, size_t *ret_n)
{
	struct pci_place *all;
	size_t n = h->n_pfs;

	for (size_t i = 0; i < h->n_pfs; i++)
		n += h->pfs[i].n_vfs;
	all = calloc(n, sizeof(*all));
	if (!all)
		return NULL;
	n = 0;
	for (size_t i = 0; i < h->n_pfs; i++) {
		all[n] = (struct pci_place){ .pci = h->pfs[i].pci, .pf = i, .order = n };
		n++;
		for (size_t j = 0; j < h->pfs[i].n_vfs; j++, n++)
			all[n] = (struct pci_place){ .pci = h->pfs[i].vfs[j].pci,
						     .pf = i,
						     .vf = j,
						     .is_vf = true,
						     .order = n };
	}
	*ret_n = n;
	return all;
}

/* No two PFs or VFs have one PCI address: the first that repeats an
 * earlier one is an error that names both ("pfs[1].vfs[0].pci: 0000:3b:01.0
 * is already pfs[0].vfs[0]"). Sorted, as a PF may have 65535 VFs. */
static int check_unique_pci(struct parser *p, const char *path, const struct host_state *h)
{
	_cleanup_free_ struct pci_place *all = NULL;
	const struct pci_place *dup = NULL;
	char where[PATH_MAX_], other[PATH_MAX_];
	size_t n = 0;

	if (h->n_pfs == 0)
		return 0;
	all = pci_places(h, &n);
	if (!all)
		return snapshot_oom(p);
	qsort(all, n, sizeof(*all), pci_place_compare);
	/* the second of each group of one address repeats the first */
	for (size_t i = 1; i < n; i++)
		if (streq(all[i].pci, all[i - 1].pci) &&
		    (i == 1 || !streq(all[i - 1].pci, all[i - 2].pci)) &&
		    (!dup || all[i].order < dup->order))
			dup = &all[i];
	if (!dup)
		return 0;
	pci_place_name(where, path, dup, ".pci");
	pci_place_name(other, path, dup - 1, "");
	return snapshot_fail(p, where, "%s is already %s", dup->pci, other);
}

/* The routing IDs of a PF's possible VFs (total_vfs of them, from
 * vf_offset by vf_stride): false when it has none in its domain. */
struct vf_span {
	uint32_t domain;
	uint64_t first, last, stride;
};

static bool vf_span_of(const struct pf_state *pf, struct vf_span *ret)
{
	uint32_t domain, rid;

	/* a vf_offset of 0 would make VF 0 the PF itself: a snapshot that
	 * leaves it out says nothing of where its VFs are */
	if (pf->total_vfs == 0 || pf->vf_offset == 0 || pci_addr_parse(pf->pci, &domain, &rid) < 0)
		return false;
	*ret = (struct vf_span){
		.domain = domain,
		.first = (uint64_t)rid + pf->vf_offset,
		.stride = pf->vf_stride ?: 1,
	};
	ret->last = ret->first + (uint64_t)(pf->vf_stride ? pf->total_vfs - 1 : 0) * ret->stride;
	/* past the domain's last routing ID there is no VF (pf_vf_pci_addr()) */
	if (ret->last > 0xffff)
		ret->last = 0xffff;
	return ret->first <= 0xffff;
}

/* The first routing ID that both spans reach; false when none. */
static bool vf_spans_meet(const struct vf_span *a, const struct vf_span *b, uint64_t *ret)
{
	uint64_t lo = a->first > b->first ? a->first : b->first;
	uint64_t hi = a->last < b->last ? a->last : b->last;

	if (a->domain != b->domain || lo > hi)
		return false;
	for (uint64_t x = a->first + (lo - a->first + a->stride - 1) / a->stride * a->stride;
	     x <= hi; x += a->stride)
		if ((x - b->first) % b->stride == 0) {
			*ret = x;
			return true;
		}
	return false;
}

/* The VFs that total_vfs allows two PFs take addresses from one range: a
 * host where they share one cannot be (the kernel gives each VF its own),
 * and the VFs an apply creates there would repeat an address, which this
 * loader refuses; so the first PF whose range meets an earlier one's is an
 * error that names both, before anything is changed. */
static int check_vf_ranges(struct parser *p, const char *path, const struct host_state *h)
{
	char where[PATH_MAX_], at[PCI_ADDR_MAX];
	struct vf_span a, b;
	uint64_t x;

	for (size_t i = 0; i < h->n_pfs; i++)
		for (size_t j = 0; j < i; j++) {
			if (!vf_span_of(&h->pfs[i], &b) || !vf_span_of(&h->pfs[j], &a) ||
			    !vf_spans_meet(&b, &a, &x))
				continue;
			pci_addr_format(b.domain, (uint32_t)x, at);
			snapshot_path(where, "%s[%zu].total_vfs", path, i);
			return snapshot_fail(p, where,
					     "%u VFs of %s would share %s with %s's (%s[%zu]); "
					     "set vf_offset past them",
					     h->pfs[i].total_vfs, h->pfs[i].pci, at, h->pfs[j].pci,
					     path, j);
		}
	return 0;
}

/* The firmware VF limit (NUM_OF_VFS) is one setting of a card, which a
 * query through any of its ports shows alike: two ports of one PCI device
 * with two values cannot be a real host, and the first port that differs
 * from an earlier one of its card is an error that names both. */
static int check_card_firmware(struct parser *p, const char *path, const struct host_state *h)
{
	char where[PATH_MAX_];

	for (size_t i = 0; i < h->n_pfs; i++)
		for (size_t j = 0; j < i; j++) {
			const struct pf_state *a = &h->pfs[j], *b = &h->pfs[i];

			if (a->firmware_total_vfs < 0 || b->firmware_total_vfs < 0 ||
			    a->firmware_total_vfs == b->firmware_total_vfs ||
			    !pci_same_device(a->pci, b->pci))
				continue;
			snapshot_path(where, "%s[%zu].firmware_total_vfs", path, i);
			return snapshot_fail(p, where,
					     "%d on %s, %d on %s (%s[%zu]): one setting of the "
					     "card, alike through every port",
					     b->firmware_total_vfs, b->pci, a->firmware_total_vfs,
					     a->pci, path, j);
		}
	return 0;
}

static int snapshot_parse_pfs(struct parser *p, const struct field *f, const char *path,
			      struct json_object *v, void *obj)
{
	struct host_state *h = obj;
	char ipath[PATH_MAX_];
	size_t n;
	int r;

	if (!json_object_is_type(v, json_type_array))
		return snapshot_fail(p, path, "not an array");
	n = json_object_array_length(v);
	if (n == 0)
		return 0;
	h->pfs = calloc(n, sizeof(*h->pfs));
	if (!h->pfs)
		return snapshot_oom(p);
	for (size_t i = 0; i < n; i++) {
		struct pf_state *pf = &h->pfs[i];

		h->n_pfs = i + 1;
		snapshot_path(ipath, "%s[%zu]", path, i);
		r = parse_pf(p, ipath, json_object_array_get_idx(v, i), pf);
		if (r < 0)
			return r;
	}
	r = check_unique_pci(p, path, h);
	if (r >= 0)
		r = check_vf_ranges(p, path, h);
	return r < 0 ? r : check_card_firmware(p, path, h);
}

static int snapshot_format_pfs(const struct field *f, const void *obj, struct json_object **ret)
{
	const struct host_state *h = obj;

	return format_array(pf_fields, ELEMENTSOF(pf_fields), h->pfs, h->n_pfs, sizeof(h->pfs[0]),
			    ret);
}

/* The whole text must be one JSON value, with nothing but white space after it. */
static int tokenize(struct parser *p, const char *text, struct json_object **ret)
{
	struct json_tokener *tok = json_tokener_new();
	struct json_object *o;
	enum json_tokener_error e;
	size_t len = strlen(text), end;

	if (!tok)
		return snapshot_oom(p);
	o = json_tokener_parse_ex(tok, text, (int)len);
	e = json_tokener_get_error(tok);
	end = json_tokener_get_parse_end(tok);
	json_tokener_free(tok);
	if (e == json_tokener_continue)
		return snapshot_fail(p, "", "not valid JSON: unexpected end of input");
	if (e != json_tokener_success)
		return snapshot_fail(p, "", "not valid JSON at offset %zu: %s", end,
				     json_tokener_error_desc(e));
	for (const char *c = text + end; *c; c++)
		if (!isspace((unsigned char)*c)) {
			json_object_put(o);
			return snapshot_fail(p, "", "not valid JSON: trailing data at offset %zu",
					     (size_t)(c - text));
		}
	*ret = o;
	return 0;
}

int snapshot_parse(const char *text, struct host_state **ret, char **ret_error)
{
	return snapshot_parse_root(text, ret, NULL, ret_error);
}

int snapshot_parse_root(const char *text, struct host_state **ret, struct json_object **ret_root,
			char **ret_error)
{
	_cleanup_host_state_ struct host_state *h = NULL;
	_cleanup_json_ struct json_object *root = NULL;
	struct parser p = {};
	int r;

	if (strlen(text) > INT_MAX)
		r = snapshot_fail(&p, "", "too large");
	else
		r = tokenize(&p, text, &root);
	if (r >= 0) {
		h = calloc(1, sizeof(*h));
		r = h ? parse_object(&p, host_fields, ELEMENTSOF(host_fields), "", root, h) :
			snapshot_oom(&p);
	}
	if (r < 0 || p.oom) {
		if (ret_error)
			*ret_error = TAKE_PTR(p.error);
		free(p.error);
		return p.oom ? -ENOMEM : -EINVAL;
	}
	if (ret_error)
		*ret_error = NULL;
	*ret = TAKE_PTR(h);
	if (ret_root)
		*ret_root = TAKE_PTR(root);
	return 0;
}

int snapshot_to_json(const struct host_state *h, struct json_object **ret)
{
	return format_object(host_fields, ELEMENTSOF(host_fields), h, ret);
}

int snapshot_pf_format(const struct pf_state *pf, char **ret)
{
	_cleanup_json_ struct json_object *o = NULL;
	const char *t;
	int r;

	r = format_object(pf_fields, ELEMENTSOF(pf_fields), pf, &o);
	if (r < 0)
		return r;
	t = json_object_to_json_string_ext(o, SNAPSHOT_FORMAT_FLAGS);
	if (!t)
		return -ENOMEM;
	*ret = strdup(t);
	return *ret ? 0 : -ENOMEM;
}

/* Prints a PF's text from snapshot_pf_format() (made at level 0) at level:
 * json-c's pretty printer indents two spaces a level, and a JSON text has
 * newlines only between tokens. */
static int print_pf_text(struct json_object *o, struct printbuf *pb, int level, int flags)
{
	const char *text = json_object_get_userdata(o);

	(void)flags;
	for (const char *c = text; *c;) {
		size_t n = strcspn(c, "\n");

		if (printbuf_memappend(pb, c, (int)n) < 0)
			return -1;
		c += n;
		if (!*c)
			break;
		if (printbuf_memappend(pb, "\n", 1) < 0)
			return -1;
		for (int i = 0; i < level; i++)
			if (printbuf_memappend(pb, "  ", 2) < 0)
				return -1;
		c++;
	}
	return 0;
}

int snapshot_to_json_texts(const struct host_state *h, char *const *pf_texts,
			   struct json_object **ret)
{
	_cleanup_json_ struct json_object *o = NULL, *a = NULL;
	struct host_state top = *h;
	int r;

	top.pfs = NULL;
	top.n_pfs = 0;
	r = snapshot_to_json(&top, &o);
	if (r < 0)
		return r;
	a = json_object_new_array();
	if (!a)
		return -ENOMEM;
	for (size_t i = 0; i < h->n_pfs; i++) {
		struct json_object *pf = NULL;

		if (pf_texts[i]) {
			pf = json_object_new_object();
			if (pf)
				json_object_set_serializer(pf, print_pf_text, pf_texts[i], NULL);
			r = pf ? 0 : -ENOMEM;
		} else
			r = format_object(pf_fields, ELEMENTSOF(pf_fields), &h->pfs[i], &pf);
		if (r < 0)
			return r;
		if (json_object_array_add(a, pf) < 0) {
			json_object_put(pf);
			return -ENOMEM;
		}
	}
	/* in the place the empty array had */
	if (json_object_object_add(o, "pfs", a) < 0)
		return -ENOMEM;
	a = NULL;
	*ret = TAKE_PTR(o);
	return 0;
}

int snapshot_json_format(struct json_object *o, char **ret)
{
	const char *s = json_object_to_json_string_ext(o, SNAPSHOT_FORMAT_FLAGS);
	char *t;

	if (!s)
		return -ENOMEM;
	t = strdup_printf("%s\n", s);
	if (!t)
		return -ENOMEM;
	*ret = t;
	return 0;
}

int snapshot_format(const struct host_state *h, char **ret)
{
	_cleanup_json_ struct json_object *o = NULL;
	int r;

	r = snapshot_to_json(h, &o);
	if (r < 0)
		return r;
	return snapshot_json_format(o, ret);
}
