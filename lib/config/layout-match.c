/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* [Match] of a layout file: one row per key (its name, its list in
 * struct layout_match, what its globs may contain); match.c compares the
 * lists with a PF. */

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "layout-match.h"
#include "util.h"

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

int layout_match_key_from_string(const char *key)
{
	for (size_t i = 0; i < ELEMENTSOF(match_keys); i++)
		if (streq(match_keys[i].name, key))
			return (int)i;
	return -ENOENT;
}

int layout_match_parse(struct layout_match *m, const char *key, const char *value, unsigned line,
		       const char **ret_why)
{
	_cleanup_strv_free_ char **globs = NULL;
	const struct match_key *k;
	char ***list, **l;
	size_t n, add;
	int i, r;

	i = layout_match_key_from_string(key);
	if (i < 0)
		return i;
	k = &match_keys[i];
	list = layout_match_list(m, (size_t)i);
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

void layout_match_done(struct layout_match *m)
{
	for (size_t i = 0; i < ELEMENTSOF(match_keys); i++)
		strv_free(*(char ***)((char *)m + match_keys[i].offset));
	*m = (struct layout_match){};
}
