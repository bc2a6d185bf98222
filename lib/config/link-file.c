/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <fnmatch.h>

#include "conf-parser.h"
#include "link-file.h"

/* How a [Match] key is compared with a PF. */
enum link_match_kind {
	LINK_KIND_GLOB,		 /* globs against a string of the PF ("!" inverts) */
	LINK_KIND_ORIGINAL_NAME, /* globs against the name before udev renamed it */
	LINK_KIND_MAC,		 /* addresses, the current one */
	LINK_KIND_PERMANENT_MAC, /* addresses, the permanent one */
	LINK_KIND_PROPERTY,	 /* udev properties, KEY=glob, each must hold */
	LINK_KIND_NOT_EVALUATED, /* conditions on the host */
};

/* field: offset of the PF's string in struct pf_identity, or -1: the PF
 * has none (a PF's netdev has no Kind=, which only virtual links have).
 * layout: the key of a layout's [Match] that does its job (NULL: none),
 * and how its value differs. */
static const struct link_match_row {
	const char *key;
	enum link_match_kind kind;
	ssize_t field;
	const char *layout, *layout_value;
} link_match_rows[_LINK_MATCH_MAX] = {
	[LINK_MATCH_ORIGINAL_NAME] = { "OriginalName", LINK_KIND_ORIGINAL_NAME, -1, "Name",
				       "the current interface name or an alternative name" },
	[LINK_MATCH_PATH] = { "Path", LINK_KIND_GLOB, offsetof(struct pf_identity, id_path),
			      "PCIAddress",
			      "the PCI address alone, 0000:3b:00.0 for pci-0000:3b:00.0" },
	[LINK_MATCH_DRIVER] = { "Driver", LINK_KIND_GLOB, offsetof(struct pf_identity, driver),
				"Driver", "the same" },
	[LINK_MATCH_TYPE] = { "Type", LINK_KIND_GLOB, offsetof(struct pf_identity, iftype) },
	[LINK_MATCH_KIND] = { "Kind", LINK_KIND_GLOB, -1 },
	[LINK_MATCH_MAC] = { "MACAddress", LINK_KIND_MAC, -1 },
	[LINK_MATCH_PERMANENT_MAC] = { "PermanentMACAddress", LINK_KIND_PERMANENT_MAC, -1 },
	[LINK_MATCH_PROPERTY] = { "Property", LINK_KIND_PROPERTY, -1 },
	[LINK_MATCH_HOST] = { "Host", LINK_KIND_NOT_EVALUATED, -1, "Host", "the same" },
	[LINK_MATCH_VIRTUALIZATION] = { "Virtualization", LINK_KIND_NOT_EVALUATED, -1 },
	[LINK_MATCH_KERNEL_COMMAND_LINE] = { "KernelCommandLine", LINK_KIND_NOT_EVALUATED, -1 },
	[LINK_MATCH_KERNEL_VERSION] = { "KernelVersion", LINK_KIND_NOT_EVALUATED, -1 },
	[LINK_MATCH_ARCHITECTURE] = { "Architecture", LINK_KIND_NOT_EVALUATED, -1 },
	[LINK_MATCH_FIRMWARE] = { "Firmware", LINK_KIND_NOT_EVALUATED, -1 },
	[LINK_MATCH_CREDENTIAL] = { "Credential", LINK_KIND_NOT_EVALUATED, -1 },
};

int link_match_key_in_layout(const char *key, const char **ret_key, const char **ret_value)
{
	for (size_t k = 0; k < _LINK_MATCH_MAX; k++)
		if (streq(key, link_match_rows[k].key)) {
			*ret_key = link_match_rows[k].layout;
			*ret_value = link_match_rows[k].layout_value;
			return 0;
		}
	return -ENOENT;
}

struct link_parse_ctx {
	struct link_file *lf;
	const char *path;
	char *section;
};

static int link_where_set(struct link_where *w, const char *path, unsigned line)
{
	w->line = line;
	return free_and_strdup(&w->path, path);
}

static void link_where_done(struct link_where *w)
{
	w->path = mfree(w->path);
}

/* A new [SR-IOV] section: a VF of its own. */
static int link_vf_new(struct link_file *lf, const char *path)
{
	struct other_vf *items = realloc(lf->sriov_vfs, sizeof(*items) * (lf->n_sriov_vfs + 1));

	if (!items)
		return -ENOMEM;
	lf->sriov_vfs = items;
	items[lf->n_sriov_vfs] = (struct other_vf){ .index = UINT32_MAX, .path = strdup(path) };
	if (!items[lf->n_sriov_vfs].path)
		return -ENOMEM;
	vf_attrs_init(&items[lf->n_sriov_vfs++].attrs);
	return 0;
}

static int link_on_section(void *userdata, const char *name, unsigned line)
{
	struct link_parse_ctx *c = userdata;
	struct link_file *lf = c->lf;
	int r;

	if (name && streq(name, "SR-IOV")) {
		r = link_vf_new(lf, c->path);
		if (r >= 0 && lf->n_sriov_sections++ == 0)
			r = link_where_set(&lf->sriov_where, c->path, line);
		if (r < 0)
			return r;
	}
	return free_and_strdup(&c->section, name);
}

/* The [SR-IOV] keys systemd.link(5) has, besides VirtualFunction=. */
static const enum vf_key link_sriov_keys[] = {
	VF_KEY_VLAN,	  VF_KEY_QOS,	VF_KEY_VLAN_PROTO, VF_KEY_SPOOFCHK,
	VF_KEY_QUERY_RSS, VF_KEY_TRUST, VF_KEY_LINK_STATE, VF_KEY_MAC,
};

static int link_on_sriov(struct link_parse_ctx *c, const char *key, const char *value,
			 unsigned line)
{
	struct other_vf *v = &c->lf->sriov_vfs[c->lf->n_sriov_vfs - 1];
	_cleanup_free_ char *written = NULL;

	if (streq(key, "VirtualFunction")) {
		if (safe_atou32(value, 10, &v->index) < 0)
			v->index = UINT32_MAX;
		return 0;
	}
	for (size_t i = 0; i < ELEMENTSOF(link_sriov_keys); i++) {
		enum vf_key k = link_sriov_keys[i];

		if (!streq(key, vf_key_to_string(k)))
			continue;
		if (!value[0]) { /* back to the default: not set */
			v->set &= ~(1u << k);
			return 0;
		}
		written = strdup_printf("%s=%s", key, value);
		return written ? other_vf_set(v, k, written, line, value) : -ENOMEM;
	}
	return 0;
}

/* A line of a list key: its words, each with the line's "!" if it has one. */
static int link_match_extend(char ***list, const char *value)
{
	_cleanup_strv_free_ char **words = NULL;
	bool invert = value[0] == '!';
	int r = strv_split(value + invert, &words);

	if (r < 0)
		return r;
	for (size_t i = 0; words[i]; i++) {
		r = strv_consume(list, invert ? strdup_printf("!%s", words[i]) : strdup(words[i]));
		if (r < 0)
			return r;
	}
	return 0;
}

static int link_on_match(struct link_parse_ctx *c, const char *key, const char *value,
			 unsigned line)
{
	struct link_file *lf = c->lf;

	for (size_t k = 0; k < _LINK_MATCH_MAX; k++) {
		if (!streq(key, link_match_rows[k].key))
			continue;
		if (!value[0]) {
			lf->match[k] = strv_free(lf->match[k]);
			return 0;
		}
		if (link_match_rows[k].kind == LINK_KIND_NOT_EVALUATED)
			/* a condition: the last assignment stands */
			lf->match[k] = strv_free(lf->match[k]);
		int r = link_match_extend(&lf->match[k], value);
		return r < 0 ? r : link_where_set(&lf->match_where[k], c->path, line);
	}
	if (lf->unknown_match)
		return 0;
	lf->unknown_match = strdup_printf("%s=%s", key, value);
	if (!lf->unknown_match)
		return -ENOMEM;
	return link_where_set(&lf->unknown_where, c->path, line);
}

static int link_on_assignment(void *userdata, const char *key, const char *value, unsigned line)
{
	struct link_parse_ctx *c = userdata;
	struct link_file *lf = c->lf;

	if (streq_ptr(c->section, "Match"))
		return link_on_match(c, key, value, line);
	if (streq_ptr(c->section, "SR-IOV") && lf->n_sriov_vfs > 0)
		return link_on_sriov(c, key, value, line);
	if (!streq_ptr(c->section, "Link") || !streq(key, "SR-IOVVirtualFunctions"))
		return 0;
	if (!value[0]) {
		lf->vfs = mfree(lf->vfs);
		return 0;
	}
	if (free_and_strdup(&lf->vfs, value) < 0)
		return -ENOMEM;
	return link_where_set(&lf->vfs_where, c->path, line);
}

static int link_set_error(struct link_file *lf, const char *path, unsigned line, char *msg)
{
	if (!msg)
		return -ENOMEM;
	if (lf->error) {
		free(msg);
		return 0;
	}
	lf->error = msg;
	return link_where_set(&lf->error_where, path, line);
}

int link_file_parse(struct link_file *lf, const char *path, const char *text)
{
	static const struct conf_parser_ops ops = {
		.section = link_on_section,
		.assignment = link_on_assignment,
	};
	struct link_parse_ctx c = { .lf = lf, .path = path };
	struct diag_list diags = {};
	int r = 0;

	if (!lf->path)
		r = free_and_strdup(&lf->path, path);
	if (r >= 0)
		r = conf_parse_text(path, text, &ops, &c, &diags);
	free(c.section);
	if (r >= 0 && diags.n > 0)
		r = link_set_error(lf, path, diags.items[0].line,
				   strdup_printf("%s cannot be read", diags.items[0].msg));
	diag_list_done(&diags);
	return r;
}

int link_file_set_unreadable(struct link_file *lf, const char *path, const char *why)
{
	if (!lf->path && free_and_strdup(&lf->path, path) < 0)
		return -ENOMEM;
	return link_set_error(lf, path, 0, strdup_printf("cannot read: %s", why));
}

void link_file_done(struct link_file *lf)
{
	free(lf->path);
	for (size_t k = 0; k < _LINK_MATCH_MAX; k++) {
		strv_free(lf->match[k]);
		link_where_done(&lf->match_where[k]);
	}
	free(lf->unknown_match);
	link_where_done(&lf->unknown_where);
	free(lf->vfs);
	link_where_done(&lf->vfs_where);
	link_where_done(&lf->sriov_where);
	for (size_t i = 0; i < lf->n_sriov_vfs; i++)
		other_vf_done(&lf->sriov_vfs[i]);
	free(lf->sriov_vfs);
	free(lf->error);
	link_where_done(&lf->error_where);
	*lf = (struct link_file){};
}

enum link_verdict {
	LINK_VERDICT_NO,
	LINK_VERDICT_YES,
	LINK_VERDICT_MAYBE,
	LINK_VERDICT_IGNORED, /* an empty [Match]: udev ignores the file */
};

/* One file against a PF: the verdict, the keys compared ("Path=pci-*"), and
 * why it only may match. */
struct link_judgement {
	enum link_verdict verdict;
	char **how;
	char *unsure;
};

static void link_judgement_done(struct link_judgement *j)
{
	j->how = strv_free(j->how);
	j->unsure = mfree(j->unsure);
}

/* systemd's test of a glob list: any inverted glob that matches fails it;
 * otherwise it passes when a plain glob matches, or when there is none. */
static bool link_glob_test(char *const *patterns, const char *s)
{
	bool positive = false, matched = false;

	for (size_t i = 0; patterns[i]; i++) {
		bool invert = patterns[i][0] == '!';

		positive = positive || !invert;
		if (s && fnmatch(patterns[i] + invert, s, 0) == 0) {
			if (invert)
				return false;
			matched = true;
		}
	}
	return positive ? matched : true;
}

static bool link_mac_test(char *const *words, const struct mac_addr *m)
{
	for (size_t i = 0; words[i]; i++) {
		struct mac_addr w;

		/* udev ignores what is not an address */
		if (mac_parse(words[i], &w) >= 0 && mac_equal(&w, m))
			return true;
	}
	return false;
}

/* The name before renaming is not known: only a list that every name
 * passes ("*" and no inverted glob) is sure. */
static bool link_glob_any_name(char *const *patterns)
{
	bool star = false;

	for (size_t i = 0; patterns[i]; i++) {
		if (patterns[i][0] == '!')
			return false;
		star = star || streq(patterns[i], "*");
	}
	return star;
}

/* The udev properties a PCI PF's netdev has when udev applies .link files,
 * as far as they follow from the PF: 75-net-description.rules sets ID_BUS,
 * ID_VENDOR_ID and ID_MODEL_ID, 80-net-setup-link.rules imports ID_PATH
 * before net_setup_link. NULL for any other key (not known offline). */
static const char *link_property(const struct pf_identity *id, const char *key, size_t n,
				 char buf[static 8])
{
	if (!id->pci)
		return NULL;
	if (n == 6 && strncmp(key, "ID_BUS", n) == 0)
		return "pci";
	if (n == 7 && strncmp(key, "ID_PATH", n) == 0)
		return id->id_path;
	if (n == 12 && strncmp(key, "ID_VENDOR_ID", n) == 0 && id->vendor != 0) {
		snprintf(buf, 8, "0x%04x", id->vendor);
		return buf;
	}
	if (n == 11 && strncmp(key, "ID_MODEL_ID", n) == 0 && id->device != 0) {
		snprintf(buf, 8, "0x%04x", id->device);
		return buf;
	}
	return NULL;
}

/* systemd's test of Property=: every KEY=glob must hold (the property set
 * and its value matching), an inverted one must not. */
static enum link_verdict link_judge_property(char *const *words, const struct pf_identity *id,
					     const char **ret_unsure)
{
	enum link_verdict v = LINK_VERDICT_YES;

	for (size_t i = 0; words[i]; i++) {
		bool invert = words[i][0] == '!';
		const char *key = words[i] + invert, *eq = strchr(key, '=');
		const char *value;
		char buf[8];

		if (!eq)
			continue; /* udev refuses the assignment */
		value = link_property(id, key, (size_t)(eq - key), buf);
		if (!value) {
			*ret_unsure = "only ID_BUS, ID_PATH, ID_VENDOR_ID and ID_MODEL_ID are "
				      "evaluated offline";
			v = LINK_VERDICT_MAYBE;
		} else if ((fnmatch(eq + 1, value, 0) == 0) == invert)
			return LINK_VERDICT_NO;
	}
	return v;
}

static enum link_verdict link_judge_mac(char *const *words, const struct mac_addr *m,
					const char **ret_unsure, const char *unknown)
{
	if (!m) {
		*ret_unsure = unknown;
		return LINK_VERDICT_MAYBE;
	}
	return link_mac_test(words, m) ? LINK_VERDICT_YES : LINK_VERDICT_NO;
}

static enum link_verdict link_judge_key(const struct link_match_row *row, char *const *words,
					const struct pf_identity *id, const char **ret_unsure)
{
	const struct mac_addr *perm = id->has_permanent_mac ? &id->permanent_mac : NULL;
	const char *s;

	switch (row->kind) {
	case LINK_KIND_GLOB:
		s = row->field < 0 ? NULL : *(const char *const *)((const char *)id + row->field);
		return link_glob_test(words, s) ? LINK_VERDICT_YES : LINK_VERDICT_NO;
	case LINK_KIND_ORIGINAL_NAME:
		if (id->original_name)
			return link_glob_test(words, id->original_name) ? LINK_VERDICT_YES :
									  LINK_VERDICT_NO;
		if (link_glob_any_name(words))
			return LINK_VERDICT_YES;
		*ret_unsure = "the name the kernel gave the PF before udev renamed it is not known";
		return LINK_VERDICT_MAYBE;
	case LINK_KIND_MAC:
		/* as udev sees the PF at "add": with its permanent address */
		return link_judge_mac(words, id->has_mac ? &id->mac : perm, ret_unsure,
				      "the PF's MAC address is not known");
	case LINK_KIND_PERMANENT_MAC:
		return link_judge_mac(words, perm, ret_unsure,
				      "the PF's permanent MAC address is not known");
	case LINK_KIND_PROPERTY:
		return link_judge_property(words, id, ret_unsure);
	case LINK_KIND_NOT_EVALUATED:
		*ret_unsure = "it is not evaluated offline";
		return LINK_VERDICT_MAYBE;
	}
	return LINK_VERDICT_MAYBE;
}

static int link_note_unsure(struct link_judgement *j, const char *what, const char *why)
{
	j->verdict = LINK_VERDICT_MAYBE;
	if (j->unsure)
		return 0;
	j->unsure = strdup_printf("%s: %s", what, why);
	return j->unsure ? 0 : -ENOMEM;
}

static int link_judge_keys(const struct link_file *lf, const struct pf_identity *id,
			   struct link_judgement *j)
{
	for (size_t k = 0; k < _LINK_MATCH_MAX && j->verdict != LINK_VERDICT_NO; k++) {
		const struct link_match_row *row = &link_match_rows[k];
		_cleanup_free_ char *words = NULL, *what = NULL;
		const char *why = NULL;
		enum link_verdict v;

		if (!lf->match[k] || !lf->match[k][0])
			continue;
		words = strv_join(lf->match[k], " ");
		what = words ? strdup_printf("%s=%s", row->key, words) : NULL;
		if (!what)
			return -ENOMEM;
		v = link_judge_key(row, lf->match[k], id, &why);
		if (v == LINK_VERDICT_NO)
			j->verdict = v;
		else if (v == LINK_VERDICT_MAYBE && link_note_unsure(j, what, why) < 0)
			return -ENOMEM;
		if (strv_consume(&j->how, TAKE_PTR(what)) < 0)
			return -ENOMEM;
	}
	return 0;
}

static int link_judge(const struct link_file *lf, const struct pf_identity *id,
		      struct link_judgement *j)
{
	int r;

	j->verdict = LINK_VERDICT_YES;
	r = link_judge_keys(lf, id, j);
	if (r < 0 || j->verdict == LINK_VERDICT_NO)
		return r;
	if (lf->unknown_match) {
		r = link_note_unsure(j, lf->unknown_match,
				     "a [Match] key this check does not know");
		if (r < 0)
			return r;
	}
	if (lf->error)
		return link_note_unsure(j, lf->error_where.path, lf->error);
	if (!j->how && !lf->unknown_match)
		j->verdict = LINK_VERDICT_IGNORED;
	return 0;
}

/* What the file sets: SR-IOVVirtualFunctions= (and how many [SR-IOV]
 * sections), else its [SR-IOV] sections; NULL when neither. */
static char *link_setting(const struct link_file *lf, const struct link_where **ret_where)
{
	if (lf->vfs) {
		*ret_where = &lf->vfs_where;
		if (lf->n_sriov_sections > 0)
			return strdup_printf("SR-IOVVirtualFunctions=%s and %u [SR-IOV] section%s",
					     lf->vfs, lf->n_sriov_sections,
					     lf->n_sriov_sections == 1 ? "" : "s");
		return strdup_printf("SR-IOVVirtualFunctions=%s", lf->vfs);
	}
	*ret_where = &lf->sriov_where;
	return strdup_printf("%u [SR-IOV] section%s", lf->n_sriov_sections,
			     lf->n_sriov_sections == 1 ? "" : "s");
}

/* The count and the [SR-IOV] sections with a VirtualFunction= onto f. */
static int link_finding_values(const struct link_file *lf, struct other_finding *f)
{
	int r = other_finding_set_count(f, lf->vfs);

	for (size_t i = 0; r >= 0 && i < lf->n_sriov_vfs; i++)
		if (lf->sriov_vfs[i].index != UINT32_MAX)
			r = other_finding_add_vfs(f, &lf->sriov_vfs[i], 1);
	return r;
}

static int link_finding_add(const struct link_file *lf, const struct link_judgement *j,
			    const char *hidden_by, struct other_findings *out)
{
	const struct link_where *where;
	_cleanup_free_ char *setting = NULL, *keys = NULL, *how = NULL;
	bool sure = j->verdict == LINK_VERDICT_YES && !hidden_by;
	int r;

	if (!lf->vfs && lf->n_sriov_sections == 0)
		return 0;
	setting = link_setting(lf, &where);
	keys = strv_join(j->how, " ");
	if (!setting || !keys)
		return -ENOMEM;
	how = strdup_printf("[Match] %s%s%s%s%s", keys, j->unsure ? "; may match: " : "",
			    j->unsure ? j->unsure : "", hidden_by ? "; " : "",
			    hidden_by ? hidden_by : "");
	if (!how)
		return -ENOMEM;
	r = other_findings_add(out, OTHER_MANAGER_SYSTEMD_LINK,
			       sure ? OTHER_CERTAINTY_MATCHES : OTHER_CERTAINTY_MAY_MATCH,
			       where->path, where->line, setting, how);
	return r < 0 ? r : link_finding_values(lf, &out->items[out->n - 1]);
}

/* A file that cannot be read may set anything. */
static int link_unreadable_add(const struct link_file *lf, struct other_findings *out)
{
	if (!lf->error || lf->error_where.line > 0)
		return 0;
	return other_findings_add_unreadable(out, OTHER_MANAGER_SYSTEMD_LINK, lf->path,
					     lf->error + strlen("cannot read: "));
}

int link_files_match(const struct link_file *files, size_t n, const struct pf_identity *id,
		     struct other_findings *out)
{
	_cleanup_free_ char *hidden_by = NULL;
	int r = 0;

	for (size_t i = 0; i < n && r >= 0; i++) {
		struct link_judgement j = {};

		r = link_judge(&files[i], id, &j);
		if (r >= 0 && (j.verdict == LINK_VERDICT_YES || j.verdict == LINK_VERDICT_MAYBE)) {
			r = link_unreadable_add(&files[i], out);
			if (r >= 0)
				r = link_finding_add(&files[i], &j, hidden_by, out);
			if (r >= 0 && j.verdict == LINK_VERDICT_MAYBE && !hidden_by) {
				/* only the first file that applies counts */
				hidden_by = strdup_printf("%s sorts first and may match (%s)",
							  files[i].path, j.unsure);
				if (!hidden_by)
					r = -ENOMEM;
			}
		}
		link_judgement_done(&j);
		if (r >= 0 && j.verdict == LINK_VERDICT_YES)
			break;
	}
	return r;
}
