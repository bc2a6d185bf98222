/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Reading and writing whole files. */

#include <stddef.h>
#include <sys/types.h>

#include "macro.h"

struct stat;

/* The rest of fd, NUL-terminated; -EFBIG past max bytes; ret_size as below. */
int read_fd(int fd, size_t max, char **ret, size_t *ret_size);
/* Opens dirfd/path (AT_FDCWD for a plain path; links are followed) for
 * reading when it is a regular file, and returns the descriptor. Neither
 * the open nor a read can block on what is not one: -EISDIR for a
 * directory, -EBADFD for a FIFO, socket or device (read_strerror() says
 * "not a regular file"). ret_stat (may be NULL) gets its fstat(). Every file
 * the programs read goes through here, sysfs attributes aside. */
int open_regular_at(int dirfd, const char *path, struct stat *ret_stat);
/* strerror() that also explains open_regular_at()'s -EBADFD. */
const char *read_strerror(int r);
/* The whole of a regular file at dirfd/path (open_regular_at()), NUL-terminated;
 * -EFBIG when it is longer than max bytes. ret_size (may be NULL) gets the
 * length, which tells embedded NULs apart. */
int read_file_at(int dirfd, const char *path, size_t max, char **ret, size_t *ret_size);
/* A whole small (< 16 MiB) regular file, as read_file_at() reads it. */
int read_file(const char *path, char **ret);

/* Writes data to dir/name through a temporary file, dir/.#name.PID (created
 * exclusively, never through a link), and rename(). Temporary files of name
 * that writers killed before their rename() left behind (their PID is no
 * process's) are removed first; those of writers alive are theirs. */
int write_file_atomic(const char *dir, const char *name, const char *data, mode_t mode);
