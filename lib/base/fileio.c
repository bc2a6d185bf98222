/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <sys/stat.h>

#include "fileio.h"
#include "parse-util.h"
#include "string-util.h"

int read_fd(int fd, size_t max, char **ret, size_t *ret_size)
{
	_cleanup_free_ char *buf = NULL;
	size_t len = 0, cap = 0;

	for (;;) {
		ssize_t n;

		if (cap - len < 2) {
			/* sysfs and procfs report size 0: grow as we go, one byte past max */
			size_t want = cap ? cap * 2 : 4096;
			char *b;

			if (want > max + 2)
				want = max + 2;
			if (want <= cap)
				return -EFBIG;
			b = realloc(buf, want);
			if (!b)
				return -ENOMEM;
			buf = b;
			cap = want;
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		len += (size_t)n;
		if (len > max)
			return -EFBIG;
	}
	if (!buf && !(buf = malloc(1)))
		return -ENOMEM;
	buf[len] = '\0';
	if (ret_size)
		*ret_size = len;
	*ret = TAKE_PTR(buf);
	return 0;
}

int open_regular_at(int dirfd, const char *path, struct stat *ret_stat)
{
	/* O_NONBLOCK: the open of a FIFO without a writer (or of a modem
	 * line) returns at once instead of waiting, and the type is checked
	 * before anything is read. A regular file reads as it would anyway. */
	_cleanup_close_ int fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	struct stat st;

	if (fd < 0)
		/* what open() says of a socket (and of a device without a driver) */
		return errno == ENXIO ? -EBADFD : -errno;
	if (fstat(fd, &st) < 0)
		return -errno;
	if (S_ISDIR(st.st_mode))
		return -EISDIR;
	if (!S_ISREG(st.st_mode))
		return -EBADFD;
	if (ret_stat)
		*ret_stat = st;
	return TAKE_FD(fd);
}

const char *read_strerror(int r)
{
	if (r == -EBADFD)
		return "not a regular file";
	return strerror(r < 0 ? -r : r);
}

int read_file_at(int dirfd, const char *path, size_t max, char **ret, size_t *ret_size)
{
	_cleanup_close_ int fd = open_regular_at(dirfd, path, NULL);

	if (fd < 0)
		return fd;
	return read_fd(fd, max, ret, ret_size);
}

int read_file(const char *path, char **ret)
{
	return read_file_at(AT_FDCWD, path, 16u << 20, ret, NULL);
}

/* Whether name is ".#<record>.<pid>" (the temporary file write_file_atomic()
 * makes for record) of a process that no longer exists. A pid that another
 * process has taken since keeps its file until that one is gone too. */
static bool temp_file_is_stale(const char *name, const char *prefix)
{
	uint32_t pid;

	if (!startswith(name, prefix) || safe_atou32(name + strlen(prefix), 10, &pid) < 0 ||
	    pid == 0 || pid > INT_MAX || (pid_t)pid == getpid())
		return false;
	return kill((pid_t)pid, 0) < 0 && errno == ESRCH;
}

/* Removes the temporary files of writers of dir/record that were killed
 * before their rename(). One that is alive is writing (the same record may be
 * written by two processes under different locks: its file is its own). Only
 * regular files go, as only they were made here: a link or anything else under
 * such a name is left, never followed. Best effort: a write never fails for it. */
static void remove_stale_temp_files(int dir_fd, const char *record)
{
	_cleanup_free_ char *prefix = strdup_printf(".#%s.", record);
	int fd = openat(dir_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct dirent *de;
	DIR *d;

	d = prefix && fd >= 0 ? fdopendir(fd) : NULL;
	if (!d) {
		if (fd >= 0)
			close(fd);
		return;
	}
	while ((de = readdir(d))) {
		struct stat st;

		if (temp_file_is_stale(de->d_name, prefix) &&
		    fstatat(dir_fd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    S_ISREG(st.st_mode))
			(void)unlinkat(dir_fd, de->d_name, 0);
	}
	closedir(d);
}

static int write_all(int fd, const char *data, size_t len)
{
	for (size_t done = 0; done < len;) {
		ssize_t n = write(fd, data + done, len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		done += (size_t)n;
	}
	return 0;
}

int write_file_atomic(const char *dir, const char *name, const char *data, mode_t mode)
{
	_cleanup_close_ int dir_fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), fd = -EBADF;
	_cleanup_free_ char *tmp = strdup_printf(".#%s.%d", name, (int)getpid());
	int r;

	if (dir_fd < 0)
		return -errno;
	if (!tmp)
		return -ENOMEM;
	remove_stale_temp_files(dir_fd, name);
	/* A file of our name left by a crash, or a link someone placed: gone,
	 * and ours made anew, never written through. */
	if (unlinkat(dir_fd, tmp, 0) < 0 && errno != ENOENT)
		return -errno;
	fd = openat(dir_fd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode);
	if (fd < 0)
		return -errno;
	r = fchmod(fd, mode) < 0 ? -errno : write_all(fd, data, strlen(data));
	if (r >= 0 && (fsync(fd) < 0 || renameat(dir_fd, tmp, dir_fd, name) < 0))
		r = -errno;
	if (r < 0)
		(void)unlinkat(dir_fd, tmp, 0);
	return r < 0 ? r : 0;
}
