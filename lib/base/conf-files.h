/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Configuration directories as systemd reads them: one file per name, the
 * highest-priority directory's copy masking the others. */

#include "util.h"

/* Lists "*.<suffix>" files from dirs (highest priority first, NULL-terminated):
 * one per file name, the first directory's copy masking the others; a symlink
 * to /dev/null masks and is itself left out. Missing directories are fine.
 * Returns full paths sorted by file name. */
int conf_files_list(const char *const *dirs, const char *suffix, char ***ret_paths);
