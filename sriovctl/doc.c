/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* Reading the status and plan documents, wherever they were built. A
 * document from the daemon is read as defensively as one from a file:
 * a missing or mistyped member reads as null. */

#include "sriovctl.h"

struct json_object *doc_get(struct json_object *o, const char *key)
{
	struct json_object *v = NULL;

	if (!o || !json_object_is_type(o, json_type_object) ||
	    !json_object_object_get_ex(o, key, &v))
		return NULL;
	return v;
}

const char *doc_str(struct json_object *o, const char *key)
{
	struct json_object *v = doc_get(o, key);

	return json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}

int64_t doc_int(struct json_object *o, const char *key)
{
	struct json_object *v = doc_get(o, key);

	return json_object_is_type(v, json_type_int) ? json_object_get_int64(v) : 0;
}

uint64_t doc_u64(struct json_object *o, const char *key)
{
	struct json_object *v = doc_get(o, key);

	return json_object_is_type(v, json_type_int) ? json_object_get_uint64(v) : 0;
}

bool doc_bool(struct json_object *o, const char *key)
{
	struct json_object *v = doc_get(o, key);

	return json_object_is_type(v, json_type_boolean) && json_object_get_boolean(v);
}

size_t doc_len(struct json_object *o, const char *key)
{
	struct json_object *v = doc_get(o, key);

	return json_object_is_type(v, json_type_array) ? json_object_array_length(v) : 0;
}

struct json_object *doc_idx(struct json_object *o, const char *key, size_t i)
{
	struct json_object *v = doc_get(o, key);

	if (!json_object_is_type(v, json_type_array) || i >= json_object_array_length(v))
		return NULL;
	return json_object_array_get_idx(v, i);
}

/* A PF on the host (not one that is gone) called what; gone: a PF that is
 * gone whose PCI address is what. */
static bool pf_is(struct json_object *pf, const char *what, bool gone)
{
	if (streq_ptr(doc_str(pf, "state"), "gone"))
		return gone && streq_ptr(doc_str(pf, "pci"), what);
	return !gone &&
	       (streq_ptr(doc_str(pf, "pci"), what) || streq_ptr(doc_str(pf, "name"), what));
}

static int filter_pfs(struct json_object *doc, const char *what, bool gone)
{
	struct json_object *pfs = doc_get(doc, "pfs");
	size_t n = doc_len(doc, "pfs"), found = n;

	for (size_t i = 0; i < n && found == n; i++)
		if (pf_is(json_object_array_get_idx(pfs, i), what, gone))
			found = i;
	if (found == n)
		return -ENXIO;
	if (found + 1 < n && json_object_array_del_idx(pfs, found + 1, n - found - 1) < 0)
		return -ENOMEM;
	if (found > 0 && json_object_array_del_idx(pfs, 0, found) < 0)
		return -ENOMEM;
	return 0;
}

int doc_filter_pfs(struct json_object *doc, const char *what)
{
	return filter_pfs(doc, what, false);
}

int doc_filter_gone(struct json_object *doc, const char *pci)
{
	return filter_pfs(doc, pci, true);
}

char *doc_pf_describe(struct json_object *pf)
{
	const char *pci = strna(doc_str(pf, "pci")), *name = doc_str(pf, "name");

	return pf_names_describe(pci, name);
}

bool doc_pf_has_leftovers(struct json_object *pf)
{
	const char *why = doc_str(pf, "reason");

	/* the words of pf_created_describe(), all of which say so */
	return streq_ptr(doc_str(pf, "state"), "unconfigured") && why &&
	       strstr(why, "from a removed layout");
}

bool doc_pf_unsettled(struct json_object *pf)
{
	const char *why = doc_str(pf, "reason");

	/* the words of the status document's unsettled_why() */
	return streq_ptr(doc_str(pf, "state"), "unconfigured") && why &&
	       (startswith(why, "no driver yet:") || startswith(why, "no netdev yet:"));
}

void doc_print_files(struct json_object *pf, const char *indent)
{
	size_t n = doc_len(pf, "config_files");

	if (n == 0)
		return;
	printf("%sfiles:", indent);
	for (size_t i = 0; i < n; i++) {
		const char *f = json_object_get_string(doc_idx(pf, "config_files", i));
		const char *slash = f ? strrchr(f, '/') : NULL;

		printf(" %s", slash ? slash + 1 : strna(f));
	}
	printf("\n");
}

void ctl_print_json(struct json_object *doc)
{
	printf("%s\n", json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PRETTY |
								   JSON_C_TO_STRING_SPACED |
								   JSON_C_TO_STRING_NOSLASHESCAPE));
}

/* The VF count that the layouts of the other ports of pf's card want, the
 * most of them (the card's one firmware VF limit must keep it), and the
 * first port that wants it. */
uint64_t doc_card_need(struct json_object *doc, struct json_object *pf, const char **ret_by)
{
	const char *pci = doc_str(pf, "pci");
	struct json_object *need_o;
	uint64_t need = 0;

	*ret_by = NULL;
	/* what the report says, held layouts counted (host_card_need()); the
	 * layouts applied now, from a daemon older than that field */
	if (json_object_object_get_ex(pf, "firmware_card_need", &need_o)) {
		*ret_by = doc_str(need_o, "by");
		return *ret_by ? doc_u64(need_o, "num_vfs") : 0;
	}
	for (size_t i = 0; pci && i < doc_len(doc, "pfs"); i++) {
		struct json_object *o = doc_idx(doc, "pfs", i);
		const char *other = doc_str(o, "pci");

		if (other && !streq(other, pci) && pci_same_device(other, pci) &&
		    doc_get(o, "desired_num_vfs") && doc_u64(o, "desired_num_vfs") > need) {
			need = doc_u64(o, "desired_num_vfs");
			*ret_by = other;
		}
	}
	return need;
}
