/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* The key = value lines of a layout file: each to its section's parser
 * ([Match]: layout-match.c, [PhysicalFunction]: pf-keys.c,
 * [VirtualFunction]: vf-attrs.c, [Layout]: layout-declare.c), with where
 * it came from; an empty value unsets; an unknown key is an error with the
 * nearest key or the section it belongs in. */

#include <stdio.h>
#include <string.h>

#include "conf-parser.h"
#include "layout-internal.h"
#include "match-names.h"
#include "pf-keys.h"
#include "suggest.h"

static int layout_value_error(struct layout_parser *p, unsigned line, const char *key,
			      const char *value, const char *why)
{
	_cleanup_free_ char *msg = conf_value_error(key, value, why);

	return msg ? layout_error(p, line, "%s", msg) : -ENOMEM;
}

/* Whether key is one of the keys of section kind k. */
static bool key_known_in(const char *key, enum section_kind k)
{
	switch (k) {
	case SECTION_MATCH:
		return layout_match_key_from_string(key) >= 0;
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

/* The sections that have keys, in the order they are named. */
static const enum section_kind key_sections[] = { SECTION_MATCH, SECTION_PF, SECTION_VF,
						  SECTION_LAYOUT };
static const char *const key_section_names[] = { "Match", "PhysicalFunction", "VirtualFunction",
						 "Layout" };

/* The sections but here that know key, for "it belongs in ...": "[Match]",
 * "[Match] or [VirtualFunction]"; NULL when none does. */
static const char *key_home(const char *key, enum section_kind here, char *buf, size_t size)
{
	size_t count = 0, n = 0;

	for (size_t i = 0; i < ELEMENTSOF(key_sections); i++)
		count += key_sections[i] != here && key_known_in(key, key_sections[i]);
	for (size_t i = 0; i < ELEMENTSOF(key_sections); i++)
		if (key_sections[i] != here && key_known_in(key, key_sections[i]))
			suggest_where_add(buf, size, n++, count, key_section_names[i]);
	return count > 0 ? buf : NULL;
}

/* Every key of section kind, and its other names, as candidates of sg. */
static void suggest_keys_of(struct suggest *sg, enum section_kind kind)
{
	switch (kind) {
	case SECTION_MATCH:
		for (size_t i = 0; layout_match_key_name(i); i++)
			layout_match_suggest(sg, layout_match_key_name(i));
		break;
	case SECTION_PF:
		for (int k = 0; k < _PF_KEY_MAX; k++) {
			suggest_consider(sg, pf_key_to_string(k));
			suggest_consider_alias(sg, pf_key_to_string(k), pf_key_to_label(k));
			for (size_t n = 0; pf_key_other_name(k, n); n++)
				suggest_consider_alias(sg, pf_key_to_string(k),
						       pf_key_other_name(k, n));
		}
		break;
	case SECTION_VF:
		for (int k = 0; k < _VF_KEY_MAX; k++) {
			suggest_consider(sg, vf_key_to_string(k));
			suggest_consider_alias(sg, vf_key_to_string(k), vf_key_to_ip_name(k));
			for (size_t n = 0; vf_key_other_name(k, n); n++)
				suggest_consider_alias(sg, vf_key_to_string(k),
						       vf_key_other_name(k, n));
		}
		break;
	case SECTION_LAYOUT:
		for (size_t i = 0; layout_declare_key_name(i); i++)
			suggest_consider(sg, layout_declare_key_name(i));
		break;
	case SECTION_NONE:
	case SECTION_IGNORED:
		break;
	}
}

/* "unknown key 'K' in [S]", with the section the key belongs in, or the
 * nearest key of the section, or when none of it is near, the nearest key
 * of another section with that section ("did you mean 'VirtualFunctions'
 * of [PhysicalFunction]?" for VirtualFuntions= in a [VirtualFunction]). */
static int layout_unknown_key(struct layout_parser *p, const char *key, const char *section,
			      unsigned line)
{
	struct suggest sg = suggest_init(key), other = suggest_init(key);
	char where[96], hint[192], link[192];
	const char *home = key_home(key, p->kind, where, sizeof(where));

	if (p->kind == SECTION_MATCH && layout_match_link_key(key, link, sizeof(link)))
		return layout_error(p, line, "unknown key '%s' in [%s]; %s", key, section, link);
	if (home)
		return layout_error(p, line, "unknown key '%s' in [%s]; it belongs in %s", key,
				    section, home);
	suggest_keys_of(&sg, p->kind);
	if (!suggest_near(&sg)) {
		for (size_t i = 0; i < ELEMENTSOF(key_sections); i++)
			if (key_sections[i] != p->kind)
				suggest_keys_of(&other, key_sections[i]);
		if (other.best)
			return layout_error(
				p, line, "unknown key '%s' in [%s]%s", key, section,
				suggest_hint_of(&other,
						key_home(other.best, p->kind, where, sizeof(where)),
						hint, sizeof(hint)));
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

/* A literal of unique key k refused for a section of more than one VF
 * (error r): when the value itself is good, kept as refused for sriovctl
 * cat, which shows the line as it shows other rejected lines. r, or
 * -ENOMEM. */
static int layout_keep_refused(struct layout_parser *p, struct vf_settings *s, enum vf_key k,
			       const char *value, unsigned line, int r)
{
	struct vf_attrs a = {};
	const char *why;
	int q;

	if (vf_attrs_parse(&a, k, value, &why) < 0)
		return r;
	q = vf_attrs_copy(&s->attrs, &a, k);
	vf_attrs_clear(&a, k);
	if (q < 0)
		return q;
	s->refused |= 1u << k;
	s->src[k] = (struct src){ .file = p->file->path, .line = line };
	return r;
}

static int layout_assign_vf(struct layout_parser *p, const char *key, const char *value,
			    unsigned line)
{
	struct vf_section *sec = layout_current_vf_section(p);
	struct vf_settings *s = &sec->settings;
	enum vf_key k = vf_key_from_string(key);
	const char *why = NULL;
	char name[64];
	bool single;
	int r;

	if (k < 0) {
		if (p->unused)
			snprintf(name, sizeof(name), "%s", p->unused_name);
		else
			layout_vf_section_name(sec, name, sizeof(name));
		return layout_unknown_key(p, key, name, line);
	}
	if (value[0] == '\0') {
		layout_emptied(&s->emptied, vf_settings_has(s, k), k, line);
		vf_settings_unset(s, k);
		return 0;
	}
	s->emptied.keys &= ~(1u << k);
	single = sec->first != VF_INDEX_ALL && sec->first == sec->last;
	r = vf_settings_parse(s, k, value, single, &why);
	if (r == -EINVAL && !vf_settings_has(s, k)) {
		s->rejected |= 1u << k;
		if (vf_key_is_unique(k) && !single)
			r = layout_keep_refused(p, s, k, value, line, r);
	} else if (r >= 0)
		s->rejected &= ~(1u << k);
	if (r >= 0)
		s->refused &= ~(1u << k);
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

int layout_on_assignment(void *userdata, const char *key, const char *value, unsigned line)
{
	struct layout_parser *p = userdata;

	if (layout_is_extension(key))
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
