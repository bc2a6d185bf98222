/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* What mstfwreset (mstflint's mlxfwreset) prints, parsed strictly: the reset
 * levels of `mstfwreset -d PCI query` and the outcome of `mstfwreset -d PCI
 * --level 3 --yes reset`. Pure: text in, values out. Its error lines are
 * "-E- ..." as mstconfig's are: mstconfig_error_line() reads them. */

#include "util.h"

/* "Driver restart and PCI reset": the lowest level that loads the firmware's
 * next-boot configuration (mstconfig's "Next Boot" column) without a reboot;
 * level 4 is a warm reboot of the machine, level 0 ("live-Patch") keeps the
 * configuration the firmware runs with. */
#define MLXFWRESET_LEVEL_PCI_RESET 3u
#define MLXFWRESET_LEVELS 8u

struct mlxfwreset_query {
	uint8_t listed;	   /* bit n: the tool has a row for level n */
	uint8_t supported; /* bit n: the device supports level n in its current state */
	int default_level; /* the row marked "(default)", -1 when none is */
};

/* 0, or -EINVAL with *ret_why (caller frees) saying which line is not what
 * mstfwreset query prints; -ENOMEM. Level 3's row must read "Driver restart
 * and PCI reset": a tool that numbers its levels otherwise is not trusted. */
int mlxfwreset_parse_query(const char *text, struct mlxfwreset_query *ret, char **ret_why);
bool mlxfwreset_level_supported(const struct mlxfwreset_query *q, unsigned level) _pure_;
/* Whether reset's output ends with the tool's word that the firmware was
 * loaded again, and has no "-E- " line. */
bool mlxfwreset_reset_done(const char *out) _pure_;
