/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Paths and directories. */

#include <sys/types.h>

#include "macro.h"

/* Why a path given on the command line cannot be used as a directory (dir)
 * or a regular file (not a FIFO, socket or device); NULL when it can, or is
 * NULL. */
const char *path_option_problem(const char *path, bool dir);

/* The last component of a path ("c" of "/a/b/c"), without modifying it. */
const char *path_last_component(const char *path) _pure_;
/* The directory a path is in: "/a/b" of "/a/b/c", "/" of "/c", "." of "c".
 * Caller frees; NULL on ENOMEM. */
char *path_parent(const char *path);

/* mkdir -p with mode. */
int mkdir_p(const char *path, mode_t mode);
/* mkdir -p, then path must be a directory (not a link to one) owned by us:
 * -ELOOP, -ENOTDIR, -EPERM otherwise. For the directories we write records,
 * locks and state in. */
int mkdir_owned(const char *path, mode_t mode);
