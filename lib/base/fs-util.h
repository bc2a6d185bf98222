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

/* --root DIR (sriovctl(8)): every path the programs read or write on the
 * host, /etc/... and /run/... as the host names them, is taken under DIR
 * with path_under_root(). DIR itself is checked and made canonical once
 * by root_canonicalize(). */

/* dir's canonical form (realpath(3)), which must be a directory: -ENOENT,
 * -ENOTDIR, -errno. "/" stays "/". */
int root_canonicalize(const char *dir, char **ret);
/* path (absolute, as the host names it) under root (canonical, from
 * root_canonicalize()), resolved one component at a time as the kernel
 * would resolve it with root as "/": a link's absolute target is taken
 * under root too, so that root/etc/x -> /usr/lib/x reads root/usr/lib/x.
 * A ".." or a link that would climb above root is refused with -EXDEV,
 * more than 40 links with -ELOOP. Components that do not exist are kept
 * as written (reading them then fails with -ENOENT). root NULL or "/":
 * path as it is. The result has no link in it when it was resolved; a tree
 * changed meanwhile is read as the kernel finds it then (root is a tree
 * the operator gives, such as a node's mounted image, not an adversary's
 * writable directory: conf_stat_unsafe() still judges what is read). */
int path_under_root(const char *root, const char *path, char **ret);
/* "leads out of the root directory" for -EXDEV, else strerror(). */
const char *root_strerror(int r);

/* mkdir -p with mode. */
int mkdir_p(const char *path, mode_t mode);
/* mkdir -p, then path must be a directory (not a link to one) owned by us:
 * -ELOOP, -ENOTDIR, -EPERM otherwise. For the directories we write records,
 * locks and state in. */
int mkdir_owned(const char *path, mode_t mode);
