/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Configuration directories as systemd reads them: one file per name, the
 * highest-priority directory's copy masking the others. */

#include <limits.h>
#include <sys/stat.h>

#include "util.h"

/* Who may write a configuration file or directory, as sshd's StrictModes
 * has it: its owner is root or the user running the program (so that an
 * unprivileged run may use its own files), and neither its group nor others
 * may write it. Anyone else who can change a layout could change the host.
 * Returns NULL when st passes, else why it does not, with what to do
 * ("writable by group or others (mode 0666); refusing it: chmod go-w"),
 * written into buf. Links are judged by what they point to (fstat of the
 * opened descriptor, so that what is judged is what is read). */
#define CONF_UNSAFE_MAX 128
const char *conf_stat_unsafe(const struct stat *st, uid_t euid, char buf[static CONF_UNSAFE_MAX]);

/* A directory of dirs that conf_files_list() could not use, and why:
 * "cannot read: Permission denied" or conf_stat_unsafe()'s answer. */
struct conf_files_failure {
	char dir[PATH_MAX]; /* one of dirs (under root with conf_files_list_root()) */
	char why[CONF_UNSAFE_MAX];
};

/* Lists "*.<suffix>" files from dirs (highest priority first, NULL-terminated):
 * one per file name, the first directory's copy masking the others; a symlink
 * to /dev/null masks and is itself left out. Missing directories are fine.
 * Returns full paths sorted by file name. A directory that cannot be read or
 * is not safe (conf_stat_unsafe()) fails the list: -EPERM when unsafe, else
 * -errno; ret_failure (may be NULL) then says which directory and why. */
int conf_files_list(const char *const *dirs, const char *suffix, char ***ret_paths,
		    struct conf_files_failure *ret_failure);
/* The same with dirs as the host names them, read under root (NULL: the
 * host itself; path_under_root()): each directory and each file's link
 * resolved inside root, the paths returned those under root. A link whose
 * text is /dev/null masks, as on the host. A directory or a file's link
 * that leads out of root fails the list (-EXDEV, its failure says which):
 * which files would apply is then unknown. */
int conf_files_list_root(const char *root, const char *const *dirs, const char *suffix,
			 char ***ret_paths, struct conf_files_failure *ret_failure);
/* The same, but each file is named by its own path under root, a link too
 * (as systemd names a unit by the link's name): *ret_targets has, at the
 * same index, the path to read it from (the link resolved inside root, else
 * the path itself). A file's link that leads out of root does not fail the
 * list: it is listed at its place in *ret_paths as the link's own path
 * under root, never followed, and that path is also in *ret_refused (its
 * paths in order, empty when none), so that the caller refuses that file
 * alone ("leads out of the root directory; refusing it") and reads the
 * others. */
int conf_files_list_root_refusing(const char *root, const char *const *dirs, const char *suffix,
				  char ***ret_paths, char ***ret_targets, char ***ret_refused,
				  struct conf_files_failure *ret_failure);
