/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* What mstconfig (mstflint's mlxconfig) prints, parsed strictly: the
 * parameter table of `mstconfig -d PCI -e query` and the outcome of
 * `mstconfig -y -d PCI set ...`. Pure: text in, values out. */

#include "util.h"

/* LINK_TYPE_P<n> values */
#define MST_LINK_TYPE_IB 1u
#define MST_LINK_TYPE_ETH 2u

#define MST_NAME_MAX 48

struct mst_param {
	char name[MST_NAME_MAX]; /* "NUM_OF_VFS" */
	uint32_t next;		 /* the "Next Boot" column: what the card uses after a reboot */
};

/* The parameters of one device that the backend uses; the others are
 * checked for form and skipped. */
struct mst_config {
	struct mst_param params[8];
	size_t n;
};

/* 0, or -EINVAL with *ret_why (caller frees) saying which line is not what
 * mstconfig prints; -ENOMEM. */
int mstconfig_parse_query(const char *text, struct mst_config *ret, char **ret_why);
/* The "Next Boot" value of a parameter the query showed. */
bool mst_config_get(const struct mst_config *c, const char *name, uint32_t *ret_next);
/* Whether set's output says it wrote the new configuration. */
bool mstconfig_set_done(const char *out) _pure_;
/* The tool's own reason for a failure: its first "-E- " line (stdout, then
 * stderr), else its last non-empty line, else "no message"; NULL only when
 * out of memory. */
char *mstconfig_error_line(const char *out, const char *err);
