/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* [Layout]: a file's declarations about the other files. Overrides= names
 * files as the conf directories list them (a name, not a path): the same
 * name in /etc, /run or /usr/lib is one file, the one read. */

#include <string.h>

#include "layout-declare.h"
#include "util.h"

static int parse_overrides(struct layout_declare *d, const char *path, const char *value,
			   unsigned line, const struct declare_bad *bad);

static const struct declare_key {
	const char *name;
	int (*parse)(struct layout_declare *d, const char *path, const char *value, unsigned line,
		     const struct declare_bad *bad);
} declare_keys[] = {
	{ "Overrides", parse_overrides },
};

const char *layout_declare_key_name(size_t i)
{
	return i < ELEMENTSOF(declare_keys) ? declare_keys[i].name : NULL;
}

const char *layout_file_name(const char *path)
{
	const char *slash = path ? strrchr(path, '/') : NULL;

	return slash ? slash + 1 : path;
}

static const char *check_name(const char *path, const char *name)
{
	if (strchr(name, '/'))
		return "must be file names as in the conf directory (no '/'), such as "
		       "40-fleet.conf";
	if (!endswith(name, ".conf"))
		return "must name layout files, which end in .conf";
	if (streq_ptr(name, layout_file_name(path)))
		return "a file cannot override itself";
	return NULL;
}

void layout_declare_done(struct layout_declare *d)
{
	for (size_t i = 0; i < d->n_overrides; i++)
		free(d->overrides[i].name);
	d->overrides = mfree(d->overrides);
	d->n_overrides = 0;
}

static int add_override(struct layout_declare *d, const char *name, unsigned line)
{
	struct layout_override *o;

	if (layout_declares_override(d, name, NULL))
		return 0;
	o = realloc(d->overrides, sizeof(*o) * (d->n_overrides + 1));
	if (!o)
		return -ENOMEM;
	d->overrides = o;
	o[d->n_overrides].name = strdup(name);
	if (!o[d->n_overrides].name)
		return -ENOMEM;
	o[d->n_overrides++].line = line;
	return 0;
}

/* The names are added to the list (a name given twice counts once); an
 * empty value clears it. Each bad name is said on its own, and the good
 * ones are kept: one typo must not bring back the warnings of the files
 * rightly named. */
static int parse_overrides(struct layout_declare *d, const char *path, const char *value,
			   unsigned line, const struct declare_bad *bad)
{
	_cleanup_strv_free_ char **names = NULL;
	int r;

	if (value[0] == '\0') {
		layout_declare_done(d);
		return 0;
	}
	r = strv_split(value, &names);
	if (r < 0)
		return r;
	for (char **n = names; *n; n++) {
		const char *why = check_name(path, *n);

		r = why ? bad->report(bad->userdata, *n, why) : add_override(d, *n, line);
		if (r < 0)
			return r;
	}
	return 0;
}

int layout_declare_parse(struct layout_declare *d, const char *path, const char *key,
			 const char *value, unsigned line, const struct declare_bad *bad)
{
	for (size_t i = 0; i < ELEMENTSOF(declare_keys); i++)
		if (streq(declare_keys[i].name, key))
			return declare_keys[i].parse(d, path, value, line, bad);
	return -ENOENT;
}

bool layout_declares_override(const struct layout_declare *d, const char *path, size_t *ret_i)
{
	const char *name = layout_file_name(path);

	for (size_t i = 0; i < d->n_overrides; i++)
		if (streq_ptr(d->overrides[i].name, name)) {
			if (ret_i)
				*ret_i = i;
			return true;
		}
	return false;
}
