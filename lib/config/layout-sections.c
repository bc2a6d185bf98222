/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* The section headers of a layout file: which section a header opens,
 * [VirtualFunction N-M] ranges, unknown sections with what they were
 * likely meant as, and the checks that need a whole section. */

#include <stdio.h>
#include <string.h>

#include "layout-internal.h"
#include "mainconf.h"
#include "suggest.h"

struct vf_section *layout_current_vf_section(struct layout_parser *p)
{
	return p->unused ? &p->scratch : &p->file->vf_sections[p->vf];
}

void layout_vf_section_name(const struct vf_section *s, char *buf, size_t size)
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

/* MinTxRateMbps <= MaxTxRateMbps. */
int layout_finish_section(struct layout_parser *p)
{
	const struct vf_settings *s;

	if (p->kind != SECTION_VF)
		return 0;
	s = &layout_current_vf_section(p)->settings;
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

bool layout_is_extension(const char *name)
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

int layout_on_section(void *userdata, const char *name, unsigned line)
{
	struct layout_parser *p = userdata;
	int r;

	r = layout_finish_section(p);
	if (r < 0)
		return r;
	p->kind = SECTION_IGNORED;
	p->guess = SECTION_NONE;
	p->unused = false;
	if (!name || layout_is_extension(name)) /* invalid (already reported), or the user's own */
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
