/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <ctype.h>
#include <dirent.h>
#include <endian.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>

#include "util.h"

char **strv_free(char **l)
{
	if (!l)
		return NULL;
	for (char **i = l; *i; i++)
		free(*i);
	free(l);
	return NULL;
}

size_t strv_length(char *const *l)
{
	size_t n = 0;

	if (l)
		while (l[n])
			n++;
	return n;
}

bool string_has_control_chars(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < ' ' || *s == 0x7f)
			return true;
	return false;
}

bool strv_contains(char *const *l, const char *s)
{
	if (!l)
		return false;
	for (char *const *i = l; *i; i++)
		if (streq(*i, s))
			return true;
	return false;
}

int strv_consume(char ***l, char *value)
{
	size_t n = strv_length(*l);
	char **c;

	if (!value)
		return -ENOMEM;
	c = realloc(*l, sizeof(char *) * (n + 2));
	if (!c) {
		free(value);
		return -ENOMEM;
	}
	c[n] = value;
	c[n + 1] = NULL;
	*l = c;
	return 0;
}

int strv_extend(char ***l, const char *value)
{
	return strv_consume(l, strdup(value));
}

int strv_split(const char *s, char ***ret)
{
	_cleanup_strv_free_ char **l = calloc(1, sizeof(char *));
	const char *p = s;

	if (!l)
		return -ENOMEM;
	for (;;) {
		size_t n;
		int r;

		p += strspn(p, " \t\r\n");
		n = strcspn(p, " \t\r\n");
		if (n == 0)
			break;
		r = strv_consume(&l, strndup(p, n));
		if (r < 0)
			return r;
		p += n;
	}
	*ret = TAKE_PTR(l);
	return 0;
}

char **strv_copy(char *const *l)
{
	_cleanup_strv_free_ char **c = calloc(strv_length(l) + 1, sizeof(char *));

	if (!c)
		return NULL;
	for (size_t i = 0; l && l[i]; i++) {
		c[i] = strdup(l[i]);
		if (!c[i])
			return NULL;
	}
	return TAKE_PTR(c);
}

char *strv_join(char *const *l, const char *sep)
{
	size_t len = 1, k = 0;
	char *s;

	for (size_t i = 0; l && l[i]; i++)
		len += strlen(l[i]) + (i > 0 ? strlen(sep) : 0);
	s = malloc(len);
	if (!s)
		return NULL;
	for (size_t i = 0; l && l[i]; i++) {
		if (i > 0)
			k += (size_t)sprintf(s + k, "%s", sep);
		k += (size_t)sprintf(s + k, "%s", l[i]);
	}
	s[k] = '\0';
	return s;
}

int safe_atou64(const char *s, int base, uint64_t *ret)
{
	unsigned long long v;
	char *end;

	/* strtoull accepts leading space and a minus sign: we do not. */
	if (!s || !isxdigit((unsigned char)s[0]))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, base);
	if (errno == ERANGE)
		return -ERANGE;
	if (errno != 0 || end == s || *end != '\0')
		return -EINVAL;
	*ret = v;
	return 0;
}

int safe_atou32(const char *s, int base, uint32_t *ret)
{
	uint64_t v;
	int r;

	r = safe_atou64(s, base, &v);
	if (r < 0)
		return r;
	if (v > UINT32_MAX)
		return -ERANGE;
	*ret = (uint32_t)v;
	return 0;
}

int safe_atoi(const char *s, int *ret)
{
	long v;
	char *end;

	if (!s || *s == '\0' || isspace((unsigned char)s[0]))
		return -EINVAL;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno == ERANGE || v < INT32_MIN || v > INT32_MAX)
		return -ERANGE;
	if (errno != 0 || *end != '\0')
		return -EINVAL;
	*ret = (int)v;
	return 0;
}

static const struct {
	const char *name;
	usec_t usec;
} timespan_units[] = {
	{ "usec", 1 },
	{ "us", 1 },
	{ "μs", 1 },
	{ "msec", USEC_PER_MSEC },
	{ "ms", USEC_PER_MSEC },
	{ "seconds", USEC_PER_SEC },
	{ "second", USEC_PER_SEC },
	{ "sec", USEC_PER_SEC },
	{ "s", USEC_PER_SEC },
	{ "minutes", 60 * USEC_PER_SEC },
	{ "minute", 60 * USEC_PER_SEC },
	{ "min", 60 * USEC_PER_SEC },
	{ "m", 60 * USEC_PER_SEC },
	{ "hours", 3600 * USEC_PER_SEC },
	{ "hour", 3600 * USEC_PER_SEC },
	{ "hr", 3600 * USEC_PER_SEC },
	{ "h", 3600 * USEC_PER_SEC },
	{ "days", 86400 * USEC_PER_SEC },
	{ "day", 86400 * USEC_PER_SEC },
	{ "d", 86400 * USEC_PER_SEC },
	{ "weeks", 604800 * USEC_PER_SEC },
	{ "week", 604800 * USEC_PER_SEC },
	{ "w", 604800 * USEC_PER_SEC },
};

/* The unit at *p (longest name first in the table's order), advancing *p;
 * seconds when no letter follows the number. */
static int timespan_unit(const char **p, usec_t *ret)
{
	size_t n = 0;

	while ((*p)[n] && !strchr(" \t0123456789.", (*p)[n]))
		n++;
	if (n == 0) {
		*ret = USEC_PER_SEC;
		return 0;
	}
	for (size_t i = 0; i < ELEMENTSOF(timespan_units); i++)
		if (strlen(timespan_units[i].name) == n &&
		    strncmp(*p, timespan_units[i].name, n) == 0) {
			*ret = timespan_units[i].usec;
			*p += n;
			return 0;
		}
	return -EINVAL;
}

int parse_timespan(const char *s, usec_t *ret)
{
	const char *p = s;
	usec_t total = 0;
	bool any = false;

	for (;;) {
		uint64_t whole = 0, frac = 0, scale = 1, part;
		usec_t unit;
		bool digits = false;

		p += strspn(p, " \t");
		if (*p == '\0')
			break;
		for (; *p >= '0' && *p <= '9'; p++, digits = true) {
			if (whole > (UINT64_MAX - 9) / 10)
				return -ERANGE;
			whole = whole * 10 + (uint64_t)(*p - '0');
		}
		if (*p == '.')
			for (p++; *p >= '0' && *p <= '9'; p++, digits = true)
				if (scale < 1000000) {
					frac = frac * 10 + (uint64_t)(*p - '0');
					scale *= 10;
				}
		if (!digits)
			return -EINVAL;
		p += strspn(p, " \t");
		if (timespan_unit(&p, &unit) < 0 || *p == '.')
			return -EINVAL;
		if (whole > UINT64_MAX / unit)
			return -ERANGE;
		part = whole * unit + frac * unit / scale;
		if (part > UINT64_MAX - total)
			return -ERANGE;
		total += part;
		any = true;
	}
	if (!any)
		return -EINVAL;
	*ret = total;
	return 0;
}

int parse_boolean(const char *s)
{
	static const char *const yes[] = { "yes", "true", "on", "1" };
	static const char *const no[] = { "no", "false", "off", "0" };

	for (size_t i = 0; i < ELEMENTSOF(yes); i++) {
		if (strcasecmp(s, yes[i]) == 0)
			return 1;
		if (strcasecmp(s, no[i]) == 0)
			return 0;
	}
	return -EINVAL;
}

int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = (char)tolower((unsigned char)c);
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -EINVAL;
}

bool module_name_equal(const char *a, const char *b)
{
	for (; *a && *b; a++, b++)
		if (*a != *b && !((*a == '-' || *a == '_') && (*b == '-' || *b == '_')))
			return false;
	return *a == *b;
}

/* n bytes as two hex digits each, separated by ':'. */
static int colon_hex_parse(const char *s, uint8_t *out, size_t n)
{
	if (!s || strlen(s) != n * 3 - 1)
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		const char *p = s + i * 3;
		int hi = hexval(p[0]), lo = hexval(p[1]);

		if (hi < 0 || lo < 0 || (i + 1 < n && p[2] != ':'))
			return -EINVAL;
		out[i] = (uint8_t)(hi << 4 | lo);
	}
	return 0;
}

int mac_parse(const char *s, struct mac_addr *ret)
{
	struct mac_addr m;

	if (colon_hex_parse(s, m.b, sizeof(m.b)) < 0)
		return -EINVAL;
	*ret = m;
	return 0;
}

char *mac_format(const struct mac_addr *m, char buf[static MAC_STR_MAX])
{
	snprintf(buf, MAC_STR_MAX, "%02x:%02x:%02x:%02x:%02x:%02x", m->b[0], m->b[1], m->b[2],
		 m->b[3], m->b[4], m->b[5]);
	return buf;
}

int guid_parse(const char *s, uint64_t *ret)
{
	uint64_t be;

	if (colon_hex_parse(s, (uint8_t *)&be, sizeof(be)) < 0)
		return -EINVAL;
	*ret = be64toh(be);
	return 0;
}

char *guid_format(uint64_t g, char buf[static GUID_STR_MAX])
{
	char *p = buf;

	for (int i = 7; i >= 0; i--)
		p += snprintf(p, GUID_STR_MAX - (size_t)(p - buf), i ? "%02x:" : "%02x",
			      (unsigned)(g >> (8 * i)) & 0xffu);
	return buf;
}

bool mac_is_zero(const struct mac_addr *m)
{
	static const struct mac_addr zero;

	return mac_equal(m, &zero);
}

bool mac_is_multicast(const struct mac_addr *m)
{
	return m->b[0] & 0x01;
}

int pci_addr_parse(const char *s, uint32_t *ret_domain, uint32_t *ret_rid)
{
	unsigned dom, bus, dev, fn;
	int n = 0;

	if (!s || strlen(s) != 12)
		return -EINVAL;
	for (size_t i = 0; i < 12; i++) {
		char c = s[i];

		if (i == 4 || i == 7) {
			if (c != ':')
				return -EINVAL;
		} else if (i == 10) {
			if (c != '.')
				return -EINVAL;
		} else if (!isxdigit((unsigned char)c) || isupper((unsigned char)c)) {
			return -EINVAL;
		}
	}
	if (sscanf(s, "%4x:%2x:%2x.%1x%n", &dom, &bus, &dev, &fn, &n) != 4 || n != 12)
		return -EINVAL;
	if (dev > 0x1f || fn > 7)
		return -EINVAL;
	if (ret_domain)
		*ret_domain = dom;
	if (ret_rid)
		*ret_rid = bus << 8 | dev << 3 | fn;
	return 0;
}

bool pci_addr_is_valid(const char *s)
{
	return pci_addr_parse(s, NULL, NULL) >= 0;
}

bool pci_same_device(const char *a, const char *b)
{
	const char *da = strrchr(a, '.'), *db = strrchr(b, '.');

	return da && db && da - a == db - b && strncmp(a, b, (size_t)(da - a)) == 0;
}

void pci_addr_format(uint32_t domain, uint32_t rid, char buf[static PCI_ADDR_MAX])
{
	snprintf(buf, PCI_ADDR_MAX, "%04x:%02x:%02x.%x", domain & 0xffff, (rid >> 8) & 0xff,
		 (rid >> 3) & 0x1f, rid & 0x7);
}

bool ifname_is_valid(const char *s)
{
	size_t n;

	if (!s)
		return false;
	n = strlen(s);
	if (n == 0 || n >= 16 || streq(s, ".") || streq(s, ".."))
		return false;
	for (const char *p = s; *p; p++)
		if (*p == '/' || *p == ':' || isspace((unsigned char)*p) ||
		    !isprint((unsigned char)*p))
			return false;
	return true;
}

char *strdup_vprintf(const char *fmt, va_list ap)
{
	char *s;

	return vasprintf(&s, fmt, ap) < 0 ? NULL : s;
}

char *strdup_printf(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = strdup_vprintf(fmt, ap);
	va_end(ap);
	return s;
}

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

int string_table_lookup(const char *const *table, size_t n, const char *s)
{
	for (size_t i = 0; s && i < n; i++)
		if (table[i] && streq(table[i], s))
			return (int)i;
	return -EINVAL;
}

static int strcmp_ptr(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void strv_sort(char **l)
{
	if (l)
		qsort(l, strv_length(l), sizeof(char *), strcmp_ptr);
}

const char *string_table_get(const char *const *table, size_t n, int v)
{
	if (v < 0 || (size_t)v >= n)
		return NULL;
	return table[v];
}

const char *path_option_problem(const char *path, bool dir)
{
	struct stat st;

	if (!path)
		return NULL;
	if (stat(path, &st) < 0)
		return errno == ENOENT ? "does not exist" : "cannot be read";
	if (dir && !S_ISDIR(st.st_mode))
		return "is not a directory";
	if (!dir && S_ISDIR(st.st_mode))
		return "is a directory, not a file";
	if (!dir && !S_ISREG(st.st_mode))
		return "is not a regular file";
	return NULL;
}

const char *path_last_component(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

char *path_parent(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		return strdup(".");
	if (slash == path)
		return strdup("/");
	return strndup(path, (size_t)(slash - path));
}

int mkdir_p(const char *path, mode_t mode)
{
	_cleanup_free_ char *p = strdup(path);

	if (!p)
		return -ENOMEM;
	for (char *s = p + 1;; s++) {
		bool end = *s == '\0';

		if (*s != '/' && !end)
			continue;
		*s = '\0';
		if (mkdir(p, mode) < 0 && errno != EEXIST)
			return -errno;
		if (end)
			return 0;
		*s = '/';
	}
}

int mkdir_owned(const char *path, mode_t mode)
{
	struct stat st;
	int r;

	r = mkdir_p(path, mode);
	if (r < 0)
		return r;
	if (lstat(path, &st) < 0)
		return -errno;
	if (S_ISLNK(st.st_mode))
		return -ELOOP;
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	if (st.st_uid != geteuid())
		return -EPERM;
	return 0;
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

static usec_t now_clock(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (usec_t)ts.tv_sec * USEC_PER_SEC + (usec_t)ts.tv_nsec / 1000;
}

usec_t now_realtime(void)
{
	return now_clock(CLOCK_REALTIME);
}

usec_t boot_start_realtime(void)
{
	return now_realtime() - now_clock(CLOCK_BOOTTIME);
}

usec_t now_monotonic(void)
{
	return now_clock(CLOCK_MONOTONIC);
}

const char *format_rfc3339(char buf[static FORMAT_RFC3339_MAX], usec_t t)
{
	time_t sec = (time_t)(t / USEC_PER_SEC);
	struct tm tm;

	if (!gmtime_r(&sec, &tm) ||
	    strftime(buf, FORMAT_RFC3339_MAX, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
		snprintf(buf, FORMAT_RFC3339_MAX, "-");
	return buf;
}

const char *format_timespan(char buf[static FORMAT_TIMESPAN_MAX], usec_t t)
{
	uint64_t sec = t / USEC_PER_SEC, rest;
	const char *big, *small;
	uint64_t unit, sub;

	if (t < USEC_PER_SEC) {
		snprintf(buf, FORMAT_TIMESPAN_MAX, "%" PRIu64 "ms", t / USEC_PER_MSEC);
		return buf;
	}
	if (sec < 60) {
		if (t % USEC_PER_SEC == 0 || sec >= 10)
			snprintf(buf, FORMAT_TIMESPAN_MAX, "%" PRIu64 "s", sec);
		else
			snprintf(buf, FORMAT_TIMESPAN_MAX, "%.1fs",
				 (double)t / (double)USEC_PER_SEC);
		return buf;
	}
	if (sec < 3600)
		unit = 60, sub = 1, big = "min", small = "s";
	else if (sec < 86400)
		unit = 3600, sub = 60, big = "h", small = "min";
	else
		unit = 86400, sub = 3600, big = "d", small = "h";
	rest = sec % unit / sub;
	if (rest)
		snprintf(buf, FORMAT_TIMESPAN_MAX, "%" PRIu64 "%s %" PRIu64 "%s", sec / unit, big,
			 rest, small);
	else
		snprintf(buf, FORMAT_TIMESPAN_MAX, "%" PRIu64 "%s", sec / unit, big);
	return buf;
}

usec_t deadline_after(usec_t timeout)
{
	usec_t n = now_monotonic();

	return timeout >= USEC_INFINITY - n ? USEC_INFINITY : n + timeout;
}

int poll_ms(usec_t deadline)
{
	usec_t n = now_monotonic(), ms;

	if (deadline == USEC_INFINITY)
		return -1;
	if (n >= deadline)
		return 0;
	ms = (deadline - n + USEC_PER_MSEC - 1) / USEC_PER_MSEC;
	return ms > INT_MAX ? INT_MAX : (int)ms;
}

int free_and_strdup(char **p, const char *s)
{
	char *c = NULL;

	if (streq_ptr(*p, s))
		return 0;
	if (s) {
		c = strdup(s);
		if (!c)
			return -ENOMEM;
	}
	free(*p);
	*p = c;
	return 0;
}

char *ranges_format(const uint32_t *idx, size_t n)
{
	_cleanup_free_ char *s = strdup("");

	for (size_t i = 0; s && i < n;) {
		size_t j = i;
		char *t;

		while (j + 1 < n && idx[j + 1] == idx[j] + 1)
			j++;
		if (j == i)
			t = strdup_printf("%s%s%u", s, *s ? "," : "", idx[i]);
		else
			t = strdup_printf("%s%s%u-%u", s, *s ? "," : "", idx[i], idx[j]);
		free(s);
		s = t;
		i = j + 1;
	}
	return TAKE_PTR(s);
}

void strip_newline(char *s)
{
	size_t n = strlen(s);

	while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == '\r'))
		s[--n] = '\0';
}
