/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

struct stat;

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

/* Microseconds, as in systemd. */
typedef uint64_t usec_t;
#define USEC_INFINITY ((usec_t)UINT64_MAX)
#define USEC_PER_MSEC ((usec_t)1000ULL)
#define USEC_PER_SEC ((usec_t)1000000ULL)
#define USEC_PER_HOUR (3600 * USEC_PER_SEC)

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

/* NULL-terminated string vectors. */
char **strv_free(char **l);
static inline void strv_freep(char ***l)
{
	strv_free(*l);
}
#define _cleanup_strv_free_ _cleanup_(strv_freep)
size_t strv_length(char *const *l) _pure_;
bool strv_contains(char *const *l, const char *s) _pure_;
/* Whether s has a byte below ' ' or DEL (a newline, a tab, an escape). */
bool string_has_control_chars(const char *s) _pure_;
/* Takes ownership of value, also on failure. */
int strv_consume(char ***l, char *value);
int strv_extend(char ***l, const char *value);
/* Splits on whitespace; empty input gives an empty (non-NULL) vector. */
int strv_split(const char *s, char ***ret);
char **strv_copy(char *const *l);
char *strv_join(char *const *l, const char *sep);
/* In strcmp() order. */
void strv_sort(char **l);

/* The index of s in table[0..n-1] (NULL entries are skipped), -EINVAL when
 * it is not there or s is NULL: the from-string side of the enum name tables. */
int string_table_lookup(const char *const *table, size_t n, const char *s) _pure_;
/* table[v], NULL when v is out of range: the to-string side. */
const char *string_table_get(const char *const *table, size_t n, int v) _pure_;

/* name_to_string() and name_from_string() of an enum over its name table. */
#define DEFINE_STRING_TABLE(name, type, table)                                 \
	const char *name##_to_string(type v)                                   \
	{                                                                      \
		return string_table_get(table, ELEMENTSOF(table), (int)v);     \
	}                                                                      \
	type name##_from_string(const char *s)                                 \
	{                                                                      \
		return (type)string_table_lookup(table, ELEMENTSOF(table), s); \
	}
#define DEFINE_STRING_TABLE_TO(name, type, table)                          \
	const char *name##_to_string(type v)                               \
	{                                                                  \
		return string_table_get(table, ELEMENTSOF(table), (int)v); \
	}

/* Checked number parsing: whole string, no sign, no overflow. base 0 accepts 0x. */
int safe_atou32(const char *s, int base, uint32_t *ret);
int safe_atou64(const char *s, int base, uint64_t *ret);
int safe_atoi(const char *s, int *ret);
/* A systemd time span: "90", "5min", "1h 30s", "1.5h", "250ms" (a bare
 * number is seconds; units us, ms, s, min, h, d, w and their long forms).
 * -EINVAL for anything else, -ERANGE past UINT64_MAX µs. */
int parse_timespan(const char *s, usec_t *ret);
/* yes/no/true/false/on/off/1/0, case-insensitive; -EINVAL otherwise. */
int parse_boolean(const char *s);
/* What a value for parse_boolean() must be, for "Key=value: <why>". */
#define WHY_BOOLEAN "must be a boolean (yes/no/true/false/on/off/1/0)"

#define ETHER_ADDR_LEN_ 6
#define MAC_STR_MAX 18
struct mac_addr {
	uint8_t b[ETHER_ADDR_LEN_];
};
/* xx:xx:xx:xx:xx:xx, hex digits either case. */
int mac_parse(const char *s, struct mac_addr *ret);
/* Lower case; buf must hold MAC_STR_MAX bytes. Returns buf. */
char *mac_format(const struct mac_addr *m, char buf[static MAC_STR_MAX]);
bool mac_is_zero(const struct mac_addr *m) _pure_;
bool mac_is_multicast(const struct mac_addr *m) _pure_;
static inline bool mac_equal(const struct mac_addr *a, const struct mac_addr *b)
{
	return memcmp(a->b, b->b, ETHER_ADDR_LEN_) == 0;
}

/* InfiniBand GUIDs (EUI-64) as ip-link(8) writes them, 8 bytes in
 * xx:xx:xx:xx:xx:xx:xx:xx, the first byte the most significant of the
 * number (struct ifla_vf_guid's __u64). */
#define GUID_STR_MAX 24
int guid_parse(const char *s, uint64_t *ret);
/* Lower case; returns buf. */
char *guid_format(uint64_t g, char buf[static GUID_STR_MAX]);

/* PCI addresses in the kernel's form, dddd:bb:dd.f (lower case). */
#define PCI_ADDR_MAX 16 /* "0000:3b:00.0" + NUL, with room */
bool pci_addr_is_valid(const char *s) _pure_;
/* Routing ID (bus<<8 | dev<<3 | fn) and domain of a valid address. */
int pci_addr_parse(const char *s, uint32_t *ret_domain, uint32_t *ret_rid);
void pci_addr_format(uint32_t domain, uint32_t rid, char buf[static PCI_ADDR_MAX]);
/* Whether two PCI addresses are functions of one device ("0000:41:00.0"
 * and "0000:41:00.1": the same card's two ports). */
bool pci_same_device(const char *a, const char *b) _pure_;

/* Network interface names as the kernel allows them (IFNAMSIZ-1, no '/', no whitespace). */
bool ifname_is_valid(const char *s) _pure_;

/* Why a path given on the command line cannot be used as a directory (dir)
 * or a regular file (not a FIFO, socket or device); NULL when it can, or is
 * NULL. */
const char *path_option_problem(const char *path, bool dir);

/* The last component of a path ("c" of "/a/b/c"), without modifying it. */
const char *path_last_component(const char *path) _pure_;
/* The directory a path is in: "/a/b" of "/a/b/c", "/" of "/c", "." of "c".
 * Caller frees; NULL on ENOMEM. */
char *path_parent(const char *path);

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
/* *p becomes a copy of s (NULL: none); nothing happens when they are equal.
 * 0, or -ENOMEM with *p as it was. */
int free_and_strdup(char **p, const char *s);

/* The value of a hex digit, in either case; -EINVAL for anything else. */
int hexval(char c) _const_;
/* Kernel module names compare with '-' and '_' alike, as modprobe does
 * (/proc/modules spells vfio-pci as vfio_pci). */
bool module_name_equal(const char *a, const char *b) _pure_;

/* [a-z0-9]: what DNS labels and Kubernetes names are made of. */
static inline bool is_lower_alnum(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

static inline const char *on_off(bool b)
{
	return b ? "on" : "off";
}

/* The clocks, in µs. */
usec_t now_realtime(void);
/* When this boot began, on CLOCK_REALTIME: a record finished before it is
 * from an earlier boot. */
usec_t boot_start_realtime(void);
usec_t now_monotonic(void);
/* A span as people read it: "200ms", "1.5s", "12s", "4min 10s", "2h", "3d 4h". */
#define FORMAT_TIMESPAN_MAX 32
const char *format_timespan(char buf[static FORMAT_TIMESPAN_MAX], usec_t t);
/* A CLOCK_REALTIME time in UTC as RFC 3339: "2026-12-06T11:16:22Z". */
#define FORMAT_RFC3339_MAX 32
const char *format_rfc3339(char buf[static FORMAT_RFC3339_MAX], usec_t t);
/* now_monotonic() + timeout; USEC_INFINITY stays infinite. */
usec_t deadline_after(usec_t timeout);
/* poll()'s timeout until deadline, rounded up: 0 once it has passed, -1
 * for USEC_INFINITY. */
int poll_ms(usec_t deadline);

/* Drops the newlines (and carriage returns) that end s. */
void strip_newline(char *s);

/* A whole small (< 16 MiB) regular file, as read_file_at() reads it. */
int read_file(const char *path, char **ret);

/* "0-3,5,7-9" for the sorted indices idx[0..n-1]; caller frees. */
char *ranges_format(const uint32_t *idx, size_t n);

/* asprintf that returns NULL on failure. */
char *strdup_printf(const char *fmt, ...) _printf_(1, 2);
char *strdup_vprintf(const char *fmt, va_list ap) _printf_(1, 0);

/* Writes data to dir/name through a temporary file, dir/.#name.PID (created
 * exclusively, never through a link), and rename(). Temporary files of name
 * that writers killed before their rename() left behind (their PID is no
 * process's) are removed first; those of writers alive are theirs. */
int write_file_atomic(const char *dir, const char *name, const char *data, mode_t mode);
/* mkdir -p with mode. */
int mkdir_p(const char *path, mode_t mode);
/* mkdir -p, then path must be a directory (not a link to one) owned by us:
 * -ELOOP, -ENOTDIR, -EPERM otherwise. For the directories we write records,
 * locks and state in. */
int mkdir_owned(const char *path, mode_t mode);
