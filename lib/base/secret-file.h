/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Files that hold credentials (a kubeconfig, a token, a private key), judged
 * as ssh judges its own. k8s-notify refuses a file that fails; sriovctl check
 * says so beforehand, in the same words, so that no drain waits on
 * credentials that will never be read. */

#include <stdbool.h>
#include <sys/stat.h>

/* Enough for what and path of a usual length; longer ones are cut. */
#define SECRET_REFUSAL_MAX 512

/* 0 when st (of the file at path, what it is: "kubeconfig", "token file")
 * passes, else -EPERM and why, with the chmod or chown that fixes it, in buf:
 * its owner must be root or euid, neither its group nor others may write it,
 * and, when private_ (its secret would be theirs too), others may not read
 * it. Its group may read it, as an administrator may grant a group of readers. */
int secret_stat_refusal(const struct stat *st, uid_t euid, bool private_, const char *what,
			const char *path, char *buf, size_t size);

/* secret_stat_refusal() of the file at path as this process would open it
 * (links followed). -ENOENT and other errors of stat() as they are; -EBADFD
 * when it is not a regular file, said in buf. */
int secret_file_refusal(const char *path, bool private_, const char *what, char *buf, size_t size);
