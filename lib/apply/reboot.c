/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <fcntl.h>

#include "json-util.h"
#include "reboot.h"
#include "status.h"

#define REBOOT_FILE "reboot.json"
#define REBOOT_FILE_MAX (1u << 20)

void reboot_record_done(struct reboot_record *r)
{
	for (size_t i = 0; i < r->n_reasons; i++)
		free(r->reasons[i].text);
	free(r->reasons);
	*r = (struct reboot_record){};
}

static const struct reboot_reason *find(const struct reboot_record *r, const char *pci,
					const char *text)
{
	for (size_t i = 0; i < r->n_reasons; i++)
		if (streq(r->reasons[i].pci, pci) && streq(r->reasons[i].text, text))
			return &r->reasons[i];
	return NULL;
}

size_t reboot_record_n_asked(const struct reboot_record *r)
{
	size_t n = 0;

	for (size_t i = 0; i < r->n_reasons; i++)
		n += !r->reasons[i].unasked;
	return n;
}

bool reboot_record_has(const struct reboot_record *r, const char *pci, const char *text)
{
	return find(r, pci, text) != NULL;
}

int reboot_record_add(struct reboot_record *r, const char *pci, const char *text, usec_t since)
{
	struct reboot_reason *n;

	if (reboot_record_has(r, pci, text))
		return 0;
	n = reallocarray(r->reasons, r->n_reasons + 1, sizeof(*n));
	if (!n)
		return -ENOMEM;
	r->reasons = n;
	n = &r->reasons[r->n_reasons];
	*n = (struct reboot_reason){ .since = since };
	snprintf(n->pci, sizeof(n->pci), "%s", pci);
	n->text = strdup(text);
	if (!n->text)
		return -ENOMEM;
	r->n_reasons++;
	return 0;
}

int reboot_record_add_unasked(struct reboot_record *r, const char *pci, const char *text,
			      usec_t since)
{
	size_t n = r->n_reasons;
	int k = reboot_record_add(r, pci, text, since);

	if (k >= 0 && r->n_reasons > n)
		r->reasons[n].unasked = true;
	return k;
}

static int add_like(struct reboot_record *r, const struct reboot_reason *src, usec_t since)
{
	return src->unasked ? reboot_record_add_unasked(r, src->pci, src->text, since) :
			      reboot_record_add(r, src->pci, src->text, since);
}

int reboot_record_filter(const struct reboot_record *r,
			 bool (*drop)(const struct reboot_reason *reason, void *userdata),
			 void *userdata, struct reboot_record *ret)
{
	struct reboot_record keep = {};
	int k = 0;

	snprintf(keep.boot_id, sizeof(keep.boot_id), "%s", r->boot_id);
	for (size_t i = 0; k >= 0 && i < r->n_reasons; i++)
		if (!drop(&r->reasons[i], userdata))
			k = add_like(&keep, &r->reasons[i], r->reasons[i].since);
	if (k < 0) {
		reboot_record_done(&keep);
		return k;
	}
	*ret = keep;
	return 0;
}

int reboot_record_merge(const struct reboot_record *persisted, const struct reboot_record *current,
			const char *boot_id, bool layouts_changed, struct reboot_record *ret)
{
	bool same_boot = persisted && streq(persisted->boot_id, boot_id);
	struct reboot_record m = {};
	int r = 0;

	snprintf(m.boot_id, sizeof(m.boot_id), "%s", boot_id);
	for (size_t i = 0; r >= 0 && i < current->n_reasons; i++) {
		const struct reboot_reason *c = &current->reasons[i];
		const struct reboot_reason *p = same_boot ? find(persisted, c->pci, c->text) : NULL;

		r = add_like(&m, c, p ? p->since : c->since);
	}
	for (size_t i = 0; r >= 0 && same_boot && !layouts_changed && i < persisted->n_reasons;
	     i++) {
		const struct reboot_reason *p = &persisted->reasons[i];

		/* what no layout asks for is the firmware's as the PF's record
		 * carries it, seen anew at each look: gone when it is gone */
		if (p->unasked)
			continue;
		r = add_like(&m, p, p->since);
	}
	if (r < 0) {
		reboot_record_done(&m);
		return r;
	}
	*ret = m;
	return 0;
}

static struct json_object *to_json(const struct reboot_record *r)
{
	struct json_object *o = json_object_new_object(), *a = json_object_new_array();

	json_object_object_add(o, "boot_id", json_object_new_string(r->boot_id));
	for (size_t i = 0; i < r->n_reasons; i++) {
		struct json_object *e = json_object_new_object();

		json_object_object_add(e, "pci", json_object_new_string(r->reasons[i].pci));
		json_object_object_add(e, "reason", json_object_new_string(r->reasons[i].text));
		json_object_object_add(e, "since_usec",
				       json_object_new_uint64(r->reasons[i].since));
		if (r->reasons[i].unasked)
			json_object_object_add(e, "unasked", json_object_new_boolean(true));
		json_object_array_add(a, e);
	}
	json_object_object_add(o, "reasons", a);
	return o;
}

int reboot_record_write(const char *dir, const struct reboot_record *r)
{
	_cleanup_json_ struct json_object *o = to_json(r);
	const char *text;
	int k;

	text = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
							 JSON_C_TO_STRING_NOSLASHESCAPE);
	if (!text)
		return -ENOMEM;
	k = mkdir_owned(dir, 0755);
	if (k < 0)
		return k;
	return write_file_atomic(dir, REBOOT_FILE, text, 0644);
}

static int from_json(struct json_object *o, struct reboot_record *ret)
{
	struct json_object *id, *a, *pci, *text, *since, *unasked;
	struct reboot_record m = {};
	int r = 0;

	if (!json_object_object_get_ex(o, "boot_id", &id) ||
	    !json_object_is_type(id, json_type_string) ||
	    !json_object_object_get_ex(o, "reasons", &a) ||
	    !json_object_is_type(a, json_type_array))
		return -EINVAL;
	snprintf(m.boot_id, sizeof(m.boot_id), "%s", json_object_get_string(id));
	for (size_t i = 0; r >= 0 && i < json_object_array_length(a); i++) {
		struct json_object *e = json_object_array_get_idx(a, i);

		if (!json_object_object_get_ex(e, "pci", &pci) ||
		    !json_object_object_get_ex(e, "reason", &text) ||
		    !json_object_is_type(pci, json_type_string) ||
		    !json_object_is_type(text, json_type_string) ||
		    strlen(json_object_get_string(pci)) >= PCI_ADDR_MAX)
			r = -EINVAL;
		else
			r = (json_object_object_get_ex(e, "unasked", &unasked) &&
					     json_object_get_boolean(unasked) ?
				     reboot_record_add_unasked :
				     reboot_record_add)(
				&m, json_object_get_string(pci), json_object_get_string(text),
				json_object_object_get_ex(e, "since_usec", &since) ?
					json_object_get_uint64(since) :
					0);
	}
	if (r < 0) {
		reboot_record_done(&m);
		return r;
	}
	*ret = m;
	return 0;
}

int reboot_record_read(const char *dir, struct reboot_record *ret)
{
	_cleanup_free_ char *path = strdup_printf("%s/%s", dir, REBOOT_FILE), *text = NULL;
	int r;

	if (!path)
		return -ENOMEM;
	r = read_file_at(AT_FDCWD, path, REBOOT_FILE_MAX, &text, NULL);
	if (r < 0)
		return r;
	return reboot_record_parse(text, ret);
}

int reboot_record_parse(const char *text, struct reboot_record *ret)
{
	_cleanup_json_ struct json_object *o = json_tokener_parse(text);

	if (!o || !json_object_is_type(o, json_type_object))
		return -EINVAL;
	return from_json(o, ret);
}
