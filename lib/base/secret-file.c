/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#include "secret-file.h"

int secret_stat_refusal(const struct stat *st, uid_t euid, bool private_, const char *what,
			const char *path, char *buf, size_t size)
{
	unsigned mode = (unsigned)(st->st_mode & 07777);

	if (st->st_uid != 0 && st->st_uid != euid)
		snprintf(buf, size,
			 "refusing %s %s: owned by uid %u, not by root or this user (uid %u); "
			 "chown it to root",
			 what, path, (unsigned)st->st_uid, (unsigned)euid);
	else if (st->st_mode & (S_IWGRP | S_IWOTH))
		snprintf(buf, size, "refusing %s %s: writable by %s (mode %04o); chmod go-w it",
			 what, path, st->st_mode & S_IWOTH ? "everyone" : "its group", mode);
	else if (private_ && (st->st_mode & S_IROTH))
		snprintf(buf, size,
			 "refusing %s %s: readable by everyone (mode %04o), so the secret in it "
			 "is no longer one; chmod o-r it (and renew the secret)",
			 what, path, mode);
	else
		return 0;
	return -EPERM;
}

int secret_file_refusal(const char *path, bool private_, const char *what, char *buf, size_t size)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode)) {
		snprintf(buf, size, "%s %s is not a regular file", what, path);
		return -EBADFD;
	}
	return secret_stat_refusal(&st, geteuid(), private_, what, path, buf, size);
}
