/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <stddef.h>

#include "conf-parser.h"
#include "layout-settings.h"
#include "layout.h"
#include "mainconf.h"
#include "match-names.h"
#include "pf-keys.h"
#include "suggest.h"

#define VF_INDEX_MAX 4095

enum section_kind {
	SECTION_NONE,	 /* before the first header */
	SECTION_IGNORED, /* unknown or invalid: already reported */
	SECTION_MATCH,
	SECTION_PF,
	SECTION_VF,
	SECTION_LAYOUT,
};

struct layout_parser {
	struct layout_file *file;
	struct diag_list *diags;
	enum section_kind kind;
	size_t vf;	  /* index of the current section in file->vf_sections */
	bool match_error; /* an error in [Match]: no one can tell which PFs it meant */
	/* under an invalid [VirtualFunction ...] header: its lines are still
	 * checked, into scratch, and never applied */
	bool unused;
	struct vf_section scratch;
	char unused_name[64];
	/* the first unknown section that was meant as [Match], for the
	 * "no [Match] section" error */
	char match_typo[64];
	unsigned match_typo_line;
	size_t match_typo_diag; /* its "unknown section" error in diags */
	/* under an unknown section with a "did you mean": the section it was
	 * likely meant as (SECTION_NONE: none), whose keys its keys are
	 * checked against, so that one pass shows every typo */
	enum section_kind guess;
	char guess_name[64]; /* the unknown section's name, as written */
	/* the main configuration's sections the file has, "[Disruption]
	 * [Kubernetes]": a sriov-persist.conf put among the layouts */
	char main_sections[128];
};

static struct vf_section *current_vf_section(struct layout_parser *p)
{
	return p->unused ? &p->scratch : &p->file->vf_sections[p->vf];
}

#define layout_error(p, line, ...) \
	diag_add((p)->diags, DIAG_ERROR, (p)->file->path, (line), __VA_ARGS__)

static int layout_value_error(struct layout_parser *p, unsigned line, const char *key,
			      const char *value, const char *why)
{
	_cleanup_free_ char *msg = conf_value_error(key, value, why);

	return msg ? layout_error(p, line, "%s", msg) : -ENOMEM;
}

/* ---- [Match] ---- */

#define GLOB_CHARS "*?[]!-"

static bool only_chars(const char *s, const char *allowed)
{
	return s[strspn(s, allowed)] == '\0';
}

static const char *match_check_pci(const char *g)
{
	if (only_chars(g, "0123456789abcdefABCDEF:." GLOB_CHARS))
		return NULL;
	return "must be PCI address globs (hex digits, ':', '.', and * ? [ ] ! -)";
}

/* What the kernel allows in interface names, and no '#': a comment after
 * the value would otherwise silently become globs. */
static const char *match_check_name(const char *g)
{
	for (const char *p = g; *p; p++)
		if ((unsigned char)*p <= ' ' || *p == 0x7f || strchr("/:#", *p))
			return "must be interface name globs, each without '/', ':' or '#'";
	return NULL;
}

static const char *match_check_id(const char *g)
{
	if ((g[0] == '0' && (g[1] == 'x' || g[1] == 'X')) && g[2] != '\0' &&
	    only_chars(g + 2, "0123456789abcdefABCDEF" GLOB_CHARS))
		return NULL;
	return "must be globs like 0x8086 (0x, then hex digits or * ? [ ] ! -)";
}

#define ALNUM "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

static const char *match_check_driver(const char *g)
{
	if (only_chars(g, ALNUM "_" GLOB_CHARS))
		return NULL;
	return "must be driver name globs (letters, digits, '_', '-', and * ? [ ] !)";
}

static const char *match_check_host(const char *g)
{
	if (only_chars(g, ALNUM "._" GLOB_CHARS))
		return NULL;
	return "must be host name globs (letters, digits, '.', '-', '_', and * ? [ ] !)";
}

/* fnmatch(3) takes a '[' without its ']' as a plain '[': a glob that was
 * meant as a set and matches nothing the writer thought of. A ']' right
 * after "[" or "[!" is a member, not the end. */
static const char *match_check_glob(const char *g)
{
	for (const char *p = strchr(g, '['); p; p = strchr(p + 1, '[')) {
		const char *q = p + 1;

		if (*q == '!' || *q == '^')
			q++;
		if (*q == ']')
			q++;
		p = strchr(q, ']');
		if (!p)
			return "'[' without a closing ']'";
	}
	return NULL;
}

static const struct match_key {
	const char *name;
	size_t offset;
	const char *(*check)(const char *glob);
} match_keys[] = {
	{ "PCIAddress", offsetof(struct layout_match, pci_address), match_check_pci },
	{ "Name", offsetof(struct layout_match, name), match_check_name },
	{ "Vendor", offsetof(struct layout_match, vendor), match_check_id },
	{ "Device", offsetof(struct layout_match, device), match_check_id },
	{ "Driver", offsetof(struct layout_match, driver), match_check_driver },
	{ "Host", offsetof(struct layout_match, host), match_check_host },
};

_Static_assert(ELEMENTSOF(match_keys) == LAYOUT_MATCH_KEYS, "one line per [Match] key");

const char *layout_match_key_name(size_t i)
{
	return i < ELEMENTSOF(match_keys) ? match_keys[i].name : NULL;
}

char ***layout_match_list(struct layout_match *m, size_t i)
{
	return (char ***)((char *)m + match_keys[i].offset);
}

/* A [Match] key: its globs are added to the list; an empty value unsets the
 * list. -ENOENT for an unknown key, -EINVAL with *ret_why for a bad glob. */
static int layout_match_parse(struct layout_match *m, const char *key, const char *value,
			      unsigned line, const char **ret_why)
{
	_cleanup_strv_free_ char **globs = NULL;
	const struct match_key *k = NULL;
	char ***list, **l;
	size_t n, add, i;
	int r;

	for (i = 0; i < ELEMENTSOF(match_keys) && !k; i++)
		if (streq(match_keys[i].name, key))
			k = &match_keys[i];
	if (!k)
		return -ENOENT;
	list = layout_match_list(m, --i);
	if (value[0] == '\0') {
		*list = strv_free(*list);
		m->key_line[i] = 0;
		return 0;
	}
	r = strv_split(value, &globs);
	if (r < 0)
		return r;
	for (char **g = globs; *g; g++)
		if ((*ret_why = k->check(*g) ?: match_check_glob(*g)))
			return -EINVAL;
	n = strv_length(*list);
	add = strv_length(globs);
	l = realloc(*list, sizeof(char *) * (n + add + 1));
	if (!l)
		return -ENOMEM;
	memcpy(l + n, globs, sizeof(char *) * (add + 1));
	*list = l;
	free(TAKE_PTR(globs));
	if (m->key_line[i] == 0)
		m->key_line[i] = line;
	return 0;
}

char *layout_match_describe(const struct layout_match *m)
{
	_cleanup_free_ char *s = strdup("");

	for (size_t i = 0; s && i < ELEMENTSOF(match_keys); i++) {
		char **l = *(char ***)((char *)m + match_keys[i].offset);
		_cleanup_free_ char *globs = l ? strv_join(l, " ") : NULL;
		char *t;

		if (!l)
			continue;
		if (!globs)
			return NULL;
		t = strdup_printf("%s%s%s=%s", s, s[0] ? " " : "", match_keys[i].name, globs);
		free(s);
		s = t;
	}
	return TAKE_PTR(s);
}

bool layout_match_is_empty(const struct layout_match *m)
{
	for (size_t i = 0; i < ELEMENTSOF(match_keys); i++)
		if (*(char ***)((char *)m + match_keys[i].offset))
			return false;
	return true;
}

static void layout_match_done(struct layout_match *m)
{
	for (size_t i = 0; i < ELEMENTSOF(match_keys); i++)
		strv_free(*(char ***)((char *)m + match_keys[i].offset));
	*m = (struct layout_match){};
}

static void layout_file_freep(struct layout_file **f)
{
	layout_file_free(*f);
}

struct layout_file *layout_file_free(struct layout_file *f)
{
	if (!f)
		return NULL;
	for (size_t i = 0; i < f->n_vf_sections; i++)
		vf_settings_done(&f->vf_sections[i].settings);
	free(f->vf_sections);
	layout_match_done(&f->match);
	layout_declare_done(&f->declare);
	free(f->path);
	free(f);
	return NULL;
}

static struct layout_file *layout_file_new(const char *path)
{
	struct layout_file *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	if (path) {
		f->path = strdup(path);
		if (!f->path)
			return layout_file_free(f);
	}
	return f;
}

/* "VirtualFunction", "VirtualFunction 3" or "VirtualFunction 0-7". */
static void vf_section_name(const struct vf_section *s, char *buf, size_t size)
{
	if (s->first == VF_INDEX_ALL)
		snprintf(buf, size, "VirtualFunction");
	else if (s->first == s->last)
		snprintf(buf, size, "VirtualFunction %u", s->first);
	else
		snprintf(buf, size, "VirtualFunction %u-%u", s->first, s->last);
}

/* 1 to 4 decimal digits, at most VF_INDEX_MAX. */
static int parse_vf_index(const char *s, size_t n, uint32_t *ret)
{
	uint32_t v = 0;

	if (n == 0 || n > 4)
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -EINVAL;
		v = v * 10 + (uint32_t)(s[i] - '0');
	}
	if (v > VF_INDEX_MAX)
		return -ERANGE;
	*ret = v;
	return 0;
}

/* What follows "VirtualFunction" in a header: "", " N" or " N-M". */
static int parse_vf_range(const char *spec, uint32_t *ret_first, uint32_t *ret_last)
{
	uint32_t first, last;
	const char *dash;

	if (spec[0] == '\0') {
		*ret_first = *ret_last = VF_INDEX_ALL;
		return 0;
	}
	if (spec[0] != ' ')
		return -EINVAL;
	spec++;
	dash = strchr(spec, '-');
	if (parse_vf_index(spec, dash ? (size_t)(dash - spec) : strlen(spec), &first) < 0)
		return -EINVAL;
	last = first;
	if (dash && parse_vf_index(dash + 1, strlen(dash + 1), &last) < 0)
		return -EINVAL;
	if (first > last)
		return -EINVAL;
	*ret_first = first;
	*ret_last = last;
	return 0;
}

static int layout_start_vf_section(struct layout_parser *p, const char *name, unsigned line)
{
	struct layout_file *f = p->file;
	struct vf_section *sections;
	uint32_t first, last;

	if (parse_vf_range(name + strlen("VirtualFunction"), &first, &last) < 0) {
		/* a single VF's section as far as its values go (a literal MAC
		 * is no second error) */
		vf_settings_done(&p->scratch.settings);
		p->scratch = (struct vf_section){ .line = line };
		snprintf(p->unused_name, sizeof(p->unused_name), "%s", name);
		p->unused = true;
		p->kind = SECTION_VF;
		return layout_error(
			p, line,
			"invalid section [%s]: must be [VirtualFunction], "
			"[VirtualFunction N] or [VirtualFunction N-M], 0 <= N <= M <= %u",
			name, VF_INDEX_MAX);
	}
	sections = realloc(f->vf_sections, sizeof(*sections) * (f->n_vf_sections + 1));
	if (!sections)
		return -ENOMEM;
	f->vf_sections = sections;
	sections[f->n_vf_sections] = (struct vf_section){
		.first = first,
		.last = last,
		.line = line,
	};
	p->vf = f->n_vf_sections++;
	p->kind = SECTION_VF;
	return 0;
}

/* Checks that need the whole section: MinTxRateMbps <= MaxTxRateMbps. */
static int layout_finish_section(struct layout_parser *p)
{
	const struct vf_settings *s;

	if (p->kind != SECTION_VF)
		return 0;
	s = &current_vf_section(p)->settings;
	if (vf_settings_has(s, VF_KEY_MIN_TX_RATE) && vf_settings_has(s, VF_KEY_MAX_TX_RATE) &&
	    s->attrs.max_tx_rate != 0 && s->attrs.min_tx_rate > s->attrs.max_tx_rate)
		return layout_error(p, s->src[VF_KEY_MIN_TX_RATE].line,
				    "MinTxRateMbps=%u: must not exceed MaxTxRateMbps=%u (line %u)",
				    s->attrs.min_tx_rate, s->attrs.max_tx_rate,
				    s->src[VF_KEY_MAX_TX_RATE].line);
	return 0;
}

static const char *const section_names[] = { "Match", "PhysicalFunction", "VirtualFunction",
					     "Layout" };
static const enum section_kind section_kinds[] = { SECTION_MATCH, SECTION_PF, SECTION_VF,
						   SECTION_LAYOUT };

static enum section_kind section_kind_of(const char *name)
{
	for (size_t i = 0; i < ELEMENTSOF(section_names); i++)
		if (streq_ptr(section_names[i], name))
			return section_kinds[i];
	return SECTION_NONE;
}

/* Keys and sections named "X-..." are the user's own annotations. */
static bool is_extension(const char *name)
{
	return name[0] == 'X' && name[1] == '-';
}

static bool is_main_section(const char *name)
{
	const char *section;

	for (size_t i = 0; mainconf_key_name(i, &section); i++)
		if (streq(section, name))
			return true;
	return false;
}

/* A section of sriov-persist.conf: the file is likely the main
 * configuration put in a layout directory, and says so. */
static int layout_main_section(struct layout_parser *p, const char *name, unsigned line)
{
	size_t n = strlen(p->main_sections);

	snprintf(p->main_sections + n, sizeof(p->main_sections) - n, "%s[%s]", n ? " " : "", name);
	return layout_error(p, line,
			    "unknown section [%s]: a section of the main configuration "
			    "(sriov-persist.conf), not of a layout",
			    name);
}

/* The nearest section name is looked up for the first word alone, and the
 * rest ("0-3" of "[VirtualFuntion 0-3]") is kept in the suggestion. */
static int layout_unknown_section(struct layout_parser *p, const char *name, unsigned line)
{
	size_t head = strcspn(name, " \t");
	char word[64], hint[96] = "";
	struct suggest sg;

	if (is_main_section(name))
		return layout_main_section(p, name, line);
	if (head < sizeof(word)) {
		memcpy(word, name, head);
		word[head] = '\0';
		sg = suggest_init(word);
		for (size_t i = 0; i < ELEMENTSOF(section_names); i++)
			suggest_consider(&sg, section_names[i]);
		if (sg.best) {
			snprintf(hint, sizeof(hint), "; did you mean '[%s%s]'?", sg.best,
				 name + head);
			p->guess = section_kind_of(sg.best);
			snprintf(p->guess_name, sizeof(p->guess_name), "%s", name);
		}
		if (streq_ptr(sg.best, "Match") && p->match_typo_line == 0) {
			snprintf(p->match_typo, sizeof(p->match_typo), "%s", name);
			p->match_typo_line = line;
			p->match_typo_diag = p->diags->n;
		}
	}
	return layout_error(p, line,
			    "unknown section [%s]; sections are [Match], [PhysicalFunction], "
			    "[VirtualFunction ...] and [Layout]%s",
			    name, hint);
}

/* Whether the parser just reported an error about the header at line. */
static bool header_has_error(const struct layout_parser *p, unsigned line)
{
	const struct diag *d = p->diags->n > 0 ? &p->diags->items[p->diags->n - 1] : NULL;

	return d && d->level == DIAG_ERROR && d->line == line && streq_ptr(d->file, p->file->path);
}

static int layout_on_section(void *userdata, const char *name, unsigned line)
{
	struct layout_parser *p = userdata;
	int r;

	r = layout_finish_section(p);
	if (r < 0)
		return r;
	p->kind = SECTION_IGNORED;
	p->guess = SECTION_NONE;
	p->unused = false;
	if (!name || is_extension(name)) /* invalid (already reported), or the user's own */
		return 0;
	if (streq(name, "Match")) {
		p->kind = SECTION_MATCH;
		/* "[Match] # ports" is read as [Match], but it is a [Match]
		 * with an error all the same */
		p->match_error = p->match_error || header_has_error(p, line);
		if (p->file->match.line == 0)
			p->file->match.line = line;
		return 0;
	}
	if (streq(name, "PhysicalFunction")) {
		p->kind = SECTION_PF;
		return 0;
	}
	if (streq(name, "Layout")) {
		p->kind = SECTION_LAYOUT;
		return 0;
	}
	/* Anything starting so is an error, not an unknown section: a typo
	 * like [VirtualFunctions] must not silently drop its keys. */
	if (startswith(name, "VirtualFunction"))
		return layout_start_vf_section(p, name, line);
	return layout_unknown_section(p, name, line);
}

/* Which other section knows key, for "it belongs in ...". */
static const char *key_home(const char *key, enum section_kind here)
{
	bool match = false;

	for (size_t i = 0; i < ELEMENTSOF(match_keys); i++)
		match = match || streq(match_keys[i].name, key);
	if (here != SECTION_PF && pf_key_from_string(key) >= 0)
		return "[PhysicalFunction]";
	if (here != SECTION_VF && vf_key_from_string(key) >= 0)
		return match && here != SECTION_MATCH ? "[Match] or [VirtualFunction]" :
							"[VirtualFunction]";
	if (here != SECTION_MATCH && match)
		return "[Match]";
	for (size_t i = 0; here != SECTION_LAYOUT && layout_declare_key_name(i); i++)
		if (streq(layout_declare_key_name(i), key))
			return "[Layout]";
	return NULL;
}

/* "unknown key 'K' in [S]", with the nearest key of the section or the
 * section the key belongs in. */
static int layout_unknown_key(struct layout_parser *p, const char *key, const char *section,
			      unsigned line)
{
	struct suggest sg = suggest_init(key);
	const char *home = key_home(key, p->kind);
	char hint[96], link[192];

	if (p->kind == SECTION_MATCH && layout_match_link_key(key, link, sizeof(link)))
		return layout_error(p, line, "unknown key '%s' in [%s]; %s", key, section, link);
	if (home)
		return layout_error(p, line, "unknown key '%s' in [%s]; it belongs in %s", key,
				    section, home);
	switch (p->kind) {
	case SECTION_MATCH:
		for (size_t i = 0; i < ELEMENTSOF(match_keys); i++)
			layout_match_suggest(&sg, match_keys[i].name);
		break;
	case SECTION_PF:
		for (int k = 0; k < _PF_KEY_MAX; k++) {
			suggest_consider(&sg, pf_key_to_string(k));
			suggest_consider_alias(&sg, pf_key_to_string(k), pf_key_to_label(k));
			for (size_t n = 0; pf_key_other_name(k, n); n++)
				suggest_consider_alias(&sg, pf_key_to_string(k),
						       pf_key_other_name(k, n));
		}
		break;
	case SECTION_VF:
		for (int k = 0; k < _VF_KEY_MAX; k++) {
			suggest_consider(&sg, vf_key_to_string(k));
			suggest_consider_alias(&sg, vf_key_to_string(k), vf_key_to_ip_name(k));
			for (size_t n = 0; vf_key_other_name(k, n); n++)
				suggest_consider_alias(&sg, vf_key_to_string(k),
						       vf_key_other_name(k, n));
		}
		break;
	case SECTION_LAYOUT:
		for (size_t i = 0; layout_declare_key_name(i); i++)
			suggest_consider(&sg, layout_declare_key_name(i));
		break;
	case SECTION_NONE:
	case SECTION_IGNORED:
		break;
	}
	return layout_error(p, line, "unknown key '%s' in [%s]%s", key, section,
			    suggest_hint(&sg, hint, sizeof(hint)));
}

/* "Name=ens1f0, ens1f1": a ',' is allowed in an interface name, so the
 * globs are "ens1f0," and "ens1f1"; almost surely a list was meant. */
static int layout_match_commas(struct layout_parser *p, const char *key, const char *value,
			       unsigned line)
{
	_cleanup_strv_free_ char **words = NULL;
	_cleanup_free_ char *fixed = NULL, *spaced = NULL;
	int r;

	if (!streq(key, "Name") || !strchr(value, ','))
		return 0;
	spaced = strdup(value);
	if (!spaced)
		return -ENOMEM;
	for (char *c = spaced; *c; c++)
		if (*c == ',')
			*c = ' ';
	r = strv_split(spaced, &words);
	if (r < 0)
		return r;
	fixed = strv_join(words, " ");
	if (!fixed)
		return -ENOMEM;
	return diag_add(p->diags, DIAG_WARNING, p->file->path, line,
			"Name=%s: globs are separated by spaces, not commas: write 'Name=%s' "
			"(a ',' is taken as part of an interface name)",
			value, fixed);
}

static int layout_assign_match(struct layout_parser *p, const char *key, const char *value,
			       unsigned line)
{
	_cleanup_free_ char *why_commas = NULL;
	const char *why = NULL;
	int r;

	r = layout_match_parse(&p->file->match, key, value, line, &why);
	if (r >= 0)
		return layout_match_commas(p, key, value, line);
	if (r == -ENOMEM)
		return r;
	p->match_error = true;
	if (r == -ENOENT)
		return layout_unknown_key(p, key, "Match", line);
	why_commas = layout_match_comma_why(key, value, why);
	return why_commas ? layout_value_error(p, line, key, value, why_commas) : -ENOMEM;
}

/* The end of a [PhysicalFunction] or [VirtualFunction] assignment that
 * parsed to r: a bad value said at its line, or key k marked set there. */
static int layout_assigned(struct layout_parser *p, int r, unsigned line, const char *key,
			   const char *value, const char *why, uint32_t *set, struct src *src,
			   int k)
{
	if (r == -EINVAL)
		return layout_value_error(p, line, key, value, why);
	if (r < 0)
		return r;
	*set |= 1u << k;
	*src = (struct src){ .file = p->file->path, .line = line };
	return 0;
}

/* An empty value for key k at line: it unsets a value above it in the
 * section (was_set), else it changes nothing, which is noted. */
static void layout_emptied(struct emptied *e, bool was_set, int k, unsigned line)
{
	if (was_set) {
		e->keys &= ~(1u << k);
		return;
	}
	e->keys |= 1u << k;
	e->line[k] = line;
}

static int layout_assign_pf(struct layout_parser *p, const char *key, const char *value,
			    unsigned line)
{
	struct pf_settings *s = &p->file->pf;
	enum pf_key k = pf_key_from_string(key);
	const char *why = NULL;
	int r;

	if (k < 0)
		return layout_unknown_key(p, key, "PhysicalFunction", line);
	if (value[0] == '\0') {
		layout_emptied(&s->emptied, pf_settings_has(s, k), k, line);
		pf_settings_unset(s, k);
		return 0;
	}
	s->emptied.keys &= ~(1u << k);
	r = pf_settings_parse(s, k, value, &why);
	return layout_assigned(p, r, line, key, value, why, &s->set, &s->src[k], k);
}

static int layout_assign_vf(struct layout_parser *p, const char *key, const char *value,
			    unsigned line)
{
	struct vf_section *sec = current_vf_section(p);
	struct vf_settings *s = &sec->settings;
	enum vf_key k = vf_key_from_string(key);
	const char *why = NULL;
	char name[64];
	int r;

	if (k < 0) {
		if (p->unused)
			snprintf(name, sizeof(name), "%s", p->unused_name);
		else
			vf_section_name(sec, name, sizeof(name));
		return layout_unknown_key(p, key, name, line);
	}
	if (value[0] == '\0') {
		layout_emptied(&s->emptied, vf_settings_has(s, k), k, line);
		vf_settings_unset(s, k);
		return 0;
	}
	s->emptied.keys &= ~(1u << k);
	r = vf_settings_parse(s, k, value, sec->first != VF_INDEX_ALL && sec->first == sec->last,
			      &why);
	if (r == -EINVAL && !vf_settings_has(s, k))
		s->rejected |= 1u << k;
	else if (r >= 0)
		s->rejected &= ~(1u << k);
	return layout_assigned(p, r, line, key, value, why, &s->set, &s->src[k], k);
}

/* Where a [Layout] key's bad values are said: its key and line. */
struct declare_at {
	struct layout_parser *p;
	const char *key;
	unsigned line;
};

static int layout_declare_bad(void *userdata, const char *value, const char *why)
{
	const struct declare_at *at = userdata;

	return layout_value_error(at->p, at->line, at->key, value, why);
}

static int layout_assign_declare(struct layout_parser *p, const char *key, const char *value,
				 unsigned line)
{
	struct declare_at at = { .p = p, .key = key, .line = line };
	const struct declare_bad bad = { .report = layout_declare_bad, .userdata = &at };
	int r;

	r = layout_declare_parse(&p->file->declare, p->file->path, key, value, line, &bad);
	if (r == -ENOENT)
		return layout_unknown_key(p, key, "Layout", line);
	return r;
}

/* Whether key is one of the keys of section kind k. */
static bool key_known_in(const char *key, enum section_kind k)
{
	switch (k) {
	case SECTION_MATCH:
		for (size_t i = 0; i < ELEMENTSOF(match_keys); i++)
			if (streq(match_keys[i].name, key))
				return true;
		return false;
	case SECTION_PF:
		return pf_key_from_string(key) >= 0;
	case SECTION_VF:
		return vf_key_from_string(key) >= 0;
	case SECTION_LAYOUT:
		for (size_t i = 0; layout_declare_key_name(i); i++)
			if (streq(layout_declare_key_name(i), key))
				return true;
		return false;
	case SECTION_NONE:
	case SECTION_IGNORED:
		return true;
	}
	return true;
}

/* A key under an unknown section that was likely meant as p->guess: a
 * key that section does not know either is an error of its own, with
 * that section's "did you mean". Its value is not read: the section is
 * not applied. */
static int layout_guessed_key(struct layout_parser *p, const char *key, unsigned line)
{
	int r;

	if (key_known_in(key, p->guess))
		return 0;
	p->kind = p->guess;
	r = layout_unknown_key(p, key, p->guess_name, line);
	p->kind = SECTION_IGNORED;
	return r;
}

static int layout_on_assignment(void *userdata, const char *key, const char *value, unsigned line)
{
	struct layout_parser *p = userdata;

	if (is_extension(key))
		return 0;
	switch (p->kind) {
	case SECTION_NONE:
		return layout_error(p, line,
				    "'%s' outside of any section; keys stand in [Match], "
				    "[PhysicalFunction], [VirtualFunction ...] or [Layout]",
				    key);
	case SECTION_IGNORED:
		return p->guess != SECTION_NONE ? layout_guessed_key(p, key, line) : 0;
	case SECTION_MATCH:
		return layout_assign_match(p, key, value, line);
	case SECTION_PF:
		return layout_assign_pf(p, key, value, line);
	case SECTION_VF:
		return layout_assign_vf(p, key, value, line);
	case SECTION_LAYOUT:
		return layout_assign_declare(p, key, value, line);
	}
	return 0;
}

static const struct conf_parser_ops layout_ops = {
	.section = layout_on_section,
	.assignment = layout_on_assignment,
};

/* A file without [Match]: the header that was meant as one, when there is,
 * has its "unknown section" error, which now says what it is: one error
 * for one typo. */
static int layout_no_match(struct layout_parser *p)
{
	struct diag *d;
	char *msg;

	if (p->match_typo_line == 0 && p->main_sections[0])
		return layout_error(p, 0,
				    "no [Match] section: with %s this looks like the main "
				    "configuration, which belongs in " MAINCONF_PATH_DEFAULT
				    " (or a drop-in in " MAINCONF_PATH_DEFAULT ".d/), not among "
				    "the layouts",
				    p->main_sections);
	if (p->match_typo_line == 0)
		return layout_error(p, 0,
				    "no [Match] section; a layout must say which PFs it selects; "
				    "use [Match] with PCIAddress=* to select all");
	d = &p->diags->items[p->match_typo_diag];
	msg = strdup_printf(
		"unknown section [%s]: %swrite [Match] (the file has no [Match] section)",
		p->match_typo,
		strcasecmp(p->match_typo, "Match") == 0 ? "section names are case-sensitive, " :
							  "");
	if (!msg)
		return -ENOMEM;
	free(d->msg);
	d->msg = msg;
	return 0;
}

static int layout_parse_into(struct layout_file *f, const char *text, struct diag_list *diags)
{
	struct layout_parser p = { .file = f, .diags = diags };
	size_t errors = diag_count(diags, DIAG_ERROR);
	int r;

	r = conf_parse_text(f->path, text, &layout_ops, &p, diags);
	if (r >= 0)
		r = layout_finish_section(&p);
	vf_settings_done(&p.scratch.settings);
	if (r < 0)
		return r;
	/* Selecting every PF by accident would be dangerous in a fleet. */
	f->no_match = f->match.line == 0;
	if (f->no_match)
		r = layout_no_match(&p);
	else if (!p.match_error && layout_match_is_empty(&f->match))
		r = layout_error(&p, f->match.line,
				 "[Match] is empty; a layout must say which PFs it selects; "
				 "use PCIAddress=* to select all");
	else
		r = p.match_error ? 0 : 1;
	if (r < 0)
		return r;
	/* A [Match] that does not say what it means holds every PF of the
	 * host: with its lists cleared it selects them all, and the file's
	 * errors hold what it selects. */
	if (r == 0) {
		unsigned line = f->match.line; /* where it was: "a [Match] with an error" */

		layout_match_done(&f->match);
		f->match.line = line;
	}
	f->has_error = diag_count(diags, DIAG_ERROR) > errors;
	return 0;
}

int layout_parse_string(const char *path, const char *text, struct diag_list *diags,
			struct layout_file **ret)
{
	_cleanup_(layout_file_freep) struct layout_file *f = NULL;
	struct diag_list local = {};
	int r;

	f = layout_file_new(path);
	if (!f)
		return -ENOMEM;
	r = layout_parse_into(f, text, diags ?: &local);
	diag_list_done(&local);
	if (r < 0)
		return r;
	*ret = TAKE_PTR(f);
	return 0;
}

int layout_parse_file(const char *path, struct diag_list *diags, struct layout_file **ret)
{
	return layout_parse_file_from(path, path, diags, ret);
}

int layout_parse_file_from(const char *path, const char *from, struct diag_list *diags,
			   struct layout_file **ret)
{
	_cleanup_free_ char *text = NULL;
	char unsafe[CONF_UNSAFE_MAX];
	struct layout_file *f;
	int r;

	r = conf_read_trusted_file(from, &text, unsafe);
	if (r >= 0)
		return layout_parse_string(path, text, diags, ret);
	if (r == -ENOMEM)
		return r;
	/* Which PFs an unreadable file selects cannot be known, nor can
	 * those of a file that others may write (conf_stat_unsafe()). It comes
	 * back with an empty [Match] and has_error: callers treat it like
	 * any file with an error, which holds every PF it (here: possibly)
	 * selects, rather than applying layouts without it. */
	f = layout_file_new(path);
	if (!f)
		return -ENOMEM;
	f->has_error = true;
	if (diags && (r == -EPERM ? diag_add(diags, DIAG_ERROR, path, 0, "%s", unsafe) :
				    diag_add(diags, DIAG_ERROR, path, 0, "cannot read: %s",
					     conf_read_strerror(r))) < 0) {
		layout_file_free(f);
		return -ENOMEM;
	}
	*ret = f;
	return 0;
}
