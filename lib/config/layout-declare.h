/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The [Layout] section: what a file says about itself and the other files,
 * as rows of keys (one today: Overrides=, the earlier files whose values
 * this one means to replace, so that those overrides are no warning).
 * Pure. */

#include <stdbool.h>
#include <stddef.h>

#include "macro.h"

/* One file named by Overrides=, and the line that named it. */
struct layout_override {
	char *name;
	unsigned line;
};

/* What a file's [Layout] says. */
struct layout_declare {
	struct layout_override *overrides;
	size_t n_overrides;
};

/* [Layout] key names as written in files; NULL past the last. */
const char *layout_declare_key_name(size_t i) _pure_;

/* Told of each bad value of a key (one name of a list: the others are
 * kept) and why; < 0 stops the parse. */
struct declare_bad {
	int (*report)(void *userdata, const char *value, const char *why);
	void *userdata;
};

/* A [Layout] key at line of the file at path: -ENOENT for an unknown key,
 * bad told of each bad value, -ENOMEM. An empty value unsets the key. */
int layout_declare_parse(struct layout_declare *d, const char *path, const char *key,
			 const char *value, unsigned line, const struct declare_bad *bad);

void layout_declare_done(struct layout_declare *d);

/* Whether d declares that its file overrides the values of the file at
 * path (by file name, as Overrides= names it); *ret_i (may be NULL) is the
 * declaration's index in d->overrides. */
bool layout_declares_override(const struct layout_declare *d, const char *path, size_t *ret_i);

/* The file name of path: what Overrides= names. */
const char *layout_file_name(const char *path) _pure_;
