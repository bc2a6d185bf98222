/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The attributes, cleanup helpers and one-line string tests that every file
 * uses, as systemd's macro.h and string-util.h inlines. */

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define _cleanup_(f) __attribute__((cleanup(f)))
#define _printf_(a, b) __attribute__((format(printf, a, b)))
#define _unused_ __attribute__((unused))
#define _pure_ __attribute__((pure))
#define _const_ __attribute__((const))
#define _warn_unused_result_ __attribute__((warn_unused_result))

#define ELEMENTSOF(x) (sizeof(x) / sizeof((x)[0]))

/* Hand ownership out of a _cleanup_ variable. */
#define TAKE_PTR(p)                    \
	({                             \
		typeof(p) _ptr_ = (p); \
		(p) = NULL;            \
		_ptr_;                 \
	})

#define TAKE_FD(fd)              \
	({                       \
		int _fd_ = (fd); \
		(fd) = -EBADF;   \
		_fd_;            \
	})

static inline void freep(void *p)
{
	free(*(void **)p);
}
#define _cleanup_free_ _cleanup_(freep)

static inline void closep(int *fd)
{
	if (*fd >= 0) {
		int saved = errno;
		close(*fd);
		errno = saved;
	}
}
#define _cleanup_close_ _cleanup_(closep)

static inline bool startswith(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

static inline void fclosep(FILE **f)
{
	if (*f)
		fclose(*f);
}
#define _cleanup_fclose_ _cleanup_(fclosep)

static inline bool streq(const char *a, const char *b)
{
	return strcmp(a, b) == 0;
}

static inline bool streq_ptr(const char *a, const char *b)
{
	if (!a || !b)
		return a == b;
	return streq(a, b);
}

static inline const char *strempty(const char *s)
{
	return s ?: "";
}

static inline const char *strna(const char *s)
{
	return s ?: "n/a";
}

static inline const char *yes_no(bool b)
{
	return b ? "yes" : "no";
}

static inline bool endswith(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n >= k && memcmp(s + n - k, suffix, k) == 0;
}

static inline void *mfree(void *p)
{
	free(p);
	return NULL;
}

/* [a-z0-9]: what DNS labels and Kubernetes names are made of. */
static inline bool is_lower_alnum(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

static inline const char *on_off(bool b)
{
	return b ? "on" : "off";
}
