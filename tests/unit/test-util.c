/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* The small helpers: reading and writing files safely, the directories we
 * own, and the nearest name for a typo. */

#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <cmocka.h>

#include "suggest.h"
#include "util.h"

struct tmp {
	char dir[64];
};

static int setup(void **state)
{
	struct tmp *t = calloc(1, sizeof(*t));

	snprintf(t->dir, sizeof(t->dir), "/tmp/test-util-XXXXXX");
	assert_non_null(mkdtemp(t->dir));
	*state = t;
	return 0;
}

static int teardown(void **state)
{
	struct tmp *t = *state;
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf -- '%s'", t->dir);
	assert_int_equal(system(cmd), 0);
	free(t);
	return 0;
}

static char *at(const struct tmp *t, const char *name)
{
	static char buf[4][256];
	static unsigned k;

	k = (k + 1) % 4;
	snprintf(buf[k], sizeof(buf[k]), "%s/%s", t->dir, name);
	return buf[k];
}

static char *slurp(const char *path)
{
	char *text = NULL;

	assert_int_equal(read_file(path, &text), 0);
	return text;
}

static void spit(const char *path, const char *text)
{
	FILE *f = fopen(path, "we");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* The temporary file is ours alone: a link someone placed under its name,
 * symbolic or hard, is replaced, and what it pointed to is left as it was. */
static void test_pci_same_device(void **state)
{
	assert_true(pci_same_device("0000:41:00.0", "0000:41:00.1"));
	assert_false(pci_same_device("0000:41:00.0", "0000:42:00.0"));
	assert_false(pci_same_device("0000:41:00.0", "0000:41:01.0"));
	assert_false(pci_same_device("0000:41:00.0", "junk"));
}

static void test_write_file_atomic_never_follows(void **state)
{
	struct tmp *t = *state;
	char tmpname[64];
	_cleanup_free_ char *victim = NULL, *victim2 = NULL, *written = NULL;
	struct stat st;

	snprintf(tmpname, sizeof(tmpname), ".#state.json.%d", (int)getpid());
	spit(at(t, "victim"), "precious\n");
	spit(at(t, "victim2"), "also precious\n");
	assert_int_equal(symlink(at(t, "victim"), at(t, tmpname)), 0);
	assert_int_equal(write_file_atomic(t->dir, "state.json", "{}\n", 0640), 0);
	victim = slurp(at(t, "victim"));
	assert_string_equal(victim, "precious\n");
	written = slurp(at(t, "state.json"));
	assert_string_equal(written, "{}\n");
	assert_int_equal(lstat(at(t, "state.json"), &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(st.st_mode & 07777, 0640);
	assert_int_equal(lstat(at(t, tmpname), &st), -1);

	assert_int_equal(link(at(t, "victim2"), at(t, tmpname)), 0);
	assert_int_equal(write_file_atomic(t->dir, "state.json", "{\"a\":1}\n", 0644), 0);
	victim2 = slurp(at(t, "victim2"));
	assert_string_equal(victim2, "also precious\n");
	assert_int_equal(stat(at(t, "victim2"), &st), 0);
	assert_int_equal(st.st_nlink, 1);

	/* a directory that is not there: an error, nothing made */
	assert_int_equal(write_file_atomic(at(t, "missing"), "x", "y", 0644), -ENOENT);
}

/* A FIFO, a socket or a device where a record or a configuration file
 * belongs: refused before anything is read. The open of a FIFO without a
 * writer used to block for ever; alarm() turns such a regression into a
 * failure (the test is killed) instead of a hang. */
static void test_open_regular_refuses_what_could_block(void **state)
{
	struct tmp *t = *state;
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	_cleanup_close_ int sock = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	_cleanup_free_ char *text = NULL;
	struct stat st;
	int fd;

	spit(at(t, "record.json"), "{}\n");
	assert_int_equal(symlink(at(t, "record.json"), at(t, "link.json")), 0);
	assert_int_equal(mkfifo(at(t, "fifo.json"), 0600), 0);
	assert_true(sock >= 0);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", at(t, "socket.json"));
	assert_int_equal(bind(sock, (struct sockaddr *)&sa, sizeof(sa)), 0);

	alarm(10);
	assert_int_equal(open_regular_at(AT_FDCWD, at(t, "fifo.json"), NULL), -EBADFD);
	assert_int_equal(read_file_at(AT_FDCWD, at(t, "fifo.json"), 64, &text, NULL), -EBADFD);
	assert_int_equal(read_file(at(t, "fifo.json"), &text), -EBADFD);
	assert_int_equal(open_regular_at(AT_FDCWD, at(t, "socket.json"), NULL), -EBADFD);
	assert_int_equal(read_file("/dev/null", &text), -EBADFD);
	assert_int_equal(read_file(t->dir, &text), -EISDIR);
	assert_int_equal(read_file(at(t, "missing.json"), &text), -ENOENT);
	alarm(0);
	assert_null(text);
	assert_string_equal(read_strerror(-EBADFD), "not a regular file");
	assert_string_equal(read_strerror(-ENOENT), strerror(ENOENT));
	/* the option check says so before anything is opened */
	assert_string_equal(path_option_problem(at(t, "fifo.json"), false),
			    "is not a regular file");
	assert_string_equal(path_option_problem("/dev/null", false), "is not a regular file");
	assert_null(path_option_problem(at(t, "record.json"), false));

	/* a regular file, also through a link (as before: links are followed) */
	fd = open_regular_at(AT_FDCWD, at(t, "link.json"), &st);
	assert_true(fd >= 0);
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(st.st_size, 3);
	close(fd);
	assert_int_equal(read_file(at(t, "link.json"), &text), 0);
	assert_string_equal(text, "{}\n");
}

/* A pid above pid_max, which no process can have: kill() says ESRCH. */
static int dead_pid(void)
{
	_cleanup_free_ char *text = NULL;
	int max;

	assert_int_equal(read_file("/proc/sys/kernel/pid_max", &text), 0);
	strip_newline(text);
	assert_int_equal(safe_atoi(text, &max), 0);
	assert_int_equal(kill(max + 1, 0), -1);
	assert_int_equal(errno, ESRCH);
	return max + 1;
}

static bool exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

/* Temporary files of writers killed before their rename() go at the next
 * write of the same record; those of writers alive, and anything not a
 * regular file, stay. */
static void test_write_file_atomic_removes_stale_temp_files(void **state)
{
	struct tmp *t = *state;
	char dead[64], alive[64], init_alive[64], other[64], link[64], dir[64], odd[64];
	_cleanup_free_ char *victim = NULL, *written = NULL;
	int pid = dead_pid();

	snprintf(dead, sizeof(dead), ".#pf.json.%d", pid);
	snprintf(alive, sizeof(alive), ".#pf.json.%d", (int)getppid());
	snprintf(init_alive, sizeof(init_alive), ".#pf.json.1");
	snprintf(other, sizeof(other), ".#other.json.%d", pid);
	snprintf(link, sizeof(link), ".#pf.json.%d", pid + 1);
	snprintf(dir, sizeof(dir), ".#pf.json.%d", pid + 2);
	snprintf(odd, sizeof(odd), ".#pf.json.%dx", pid);
	spit(at(t, dead), "half a rec");
	spit(at(t, alive), "being written");
	spit(at(t, init_alive), "init's");
	spit(at(t, other), "another record's");
	spit(at(t, odd), "not a pid");
	spit(at(t, "victim"), "precious\n");
	assert_int_equal(symlink(at(t, "victim"), at(t, link)), 0);
	assert_int_equal(mkdir(at(t, dir), 0755), 0);

	assert_int_equal(write_file_atomic(t->dir, "pf.json", "{}\n", 0644), 0);
	written = slurp(at(t, "pf.json"));
	assert_string_equal(written, "{}\n");
	assert_false(exists(at(t, dead)));
	assert_true(exists(at(t, alive)));
	assert_true(exists(at(t, init_alive)));
	assert_true(exists(at(t, other)));
	assert_true(exists(at(t, odd)));
	/* a link is no file of ours: neither followed nor removed */
	assert_true(exists(at(t, link)));
	victim = slurp(at(t, "victim"));
	assert_string_equal(victim, "precious\n");
	assert_true(exists(at(t, dir)));
}

static void test_mkdir_owned(void **state)
{
	struct tmp *t = *state;

	assert_int_equal(mkdir_owned(at(t, "a/b/c"), 0755), 0);
	assert_int_equal(mkdir_owned(at(t, "a/b/c"), 0755), 0);
	/* a link to a directory is not our directory */
	assert_int_equal(mkdir(at(t, "elsewhere"), 0755), 0);
	assert_int_equal(symlink(at(t, "elsewhere"), at(t, "host.json.run")), 0);
	assert_int_equal(mkdir_owned(at(t, "host.json.run"), 0755), -ELOOP);
	spit(at(t, "file"), "x");
	assert_int_equal(mkdir_owned(at(t, "file"), 0755), -ENOTDIR);
	/* someone else's: only root can make one here (CI runs as root) */
	if (geteuid() == 0) {
		assert_int_equal(mkdir(at(t, "theirs"), 0755), 0);
		assert_int_equal(chown(at(t, "theirs"), 65534, 65534), 0);
		assert_int_equal(mkdir_owned(at(t, "theirs"), 0755), -EPERM);
	} else {
		print_message("not root: the owner check is exercised by CI, which runs as root\n");
	}
}

static void test_suggest(void **state)
{
	static const char *const keys[] = {
		"VirtualFunctions",	   "MTUBytes", "LinkUp", "Device", "Driver", "Name",
		"FirmwareVirtualFunctions"
	};
	static const struct {
		const char *typo, *meant;
	} cases[] = {
		{ "VirtualFuntions", "VirtualFunctions" },
		{ "virtualfunctions", "VirtualFunctions" },
		{ "VirtualFunction", "VirtualFunctions" },
		{ "Devcie", "Device" }, /* one transposition */
		{ "Drivr", "Driver" },
		{ "MTUByte", "MTUBytes" },
		{ "Virtual", "VirtualFunctions" }, /* cut short */
		{ "MTU", "MTUBytes" },		   /* a word of it */
		{ "Up", NULL },			   /* too short to be told */
		{ "LU", "LinkUp" },		   /* the initials of every word */
		{ "link_up", "LinkUp" },
		{ "VFs", NULL },
		{ "VirtFunc", "VirtualFunctions" },
		{ "Dev", "Device" }, /* the start of a word */
		{ "Functions", "VirtualFunctions" },
		{ "Nmae", "Name" },
		{ "Foo", NULL },
		{ "Bandwidth", NULL },
		{ "", NULL },
	};

	assert_int_equal(suggest_distance("Device", "Devcie"), 1);
	assert_int_equal(suggest_distance("abc", ""), 3);
	assert_int_equal(suggest_distance("kitten", "sitting"), 3);
	assert_int_equal(suggest_distance("TRUST", "trust"), 0);
	for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
		struct suggest s = suggest_init(cases[i].typo);
		char hint[96];

		for (size_t k = 0; k < ELEMENTSOF(keys); k++)
			suggest_consider(&s, keys[k]);
		if (!cases[i].meant) {
			assert_null(s.best);
			assert_string_equal(suggest_hint(&s, hint, sizeof(hint)), "");
		} else {
			assert_non_null(s.best);
			assert_string_equal(s.best, cases[i].meant);
		}
	}
	/* another name of a key: nearer than any edit */
	{
		struct suggest s = suggest_init("Query_RSS");

		suggest_consider(&s, "QueryReceiveSideScaling");
		suggest_consider_alias(&s, "QueryRSSX", "query_rss");
		suggest_consider_alias(&s, "Trust", NULL);
		assert_string_equal(s.best, "QueryRSSX");
		assert_int_equal(s.distance, 0);
	}
	/* an abbreviation leaves out no more words than it uses */
	{
		struct suggest s = suggest_init("MAC");

		suggest_consider(&s, "MACSpoofCheck");
		assert_null(s.best);
		suggest_consider(&s, "MACAddress");
		assert_string_equal(s.best, "MACAddress");
	}
	/* names too long to measure are never suggested for a short typo */
	{
		char longname[100];
		struct suggest s = suggest_init("Name");

		memset(longname, 'x', sizeof(longname) - 1);
		longname[sizeof(longname) - 1] = '\0';
		suggest_consider(&s, longname);
		assert_null(s.best);
	}
}

static void test_format_timespan(void **state)
{
	char b[FORMAT_TIMESPAN_MAX];

	assert_string_equal(format_timespan(b, 0), "0ms");
	assert_string_equal(format_timespan(b, 200 * USEC_PER_MSEC), "200ms");
	assert_string_equal(format_timespan(b, 60 * USEC_PER_SEC), "1min");
	assert_string_equal(format_timespan(b, 1500 * USEC_PER_MSEC), "1.5s");
	assert_string_equal(format_timespan(b, 42 * USEC_PER_SEC), "42s");
	assert_string_equal(format_timespan(b, 250 * USEC_PER_SEC), "4min 10s");
	assert_string_equal(format_timespan(b, 7500 * USEC_PER_SEC), "2h 5min");
	assert_string_equal(format_timespan(b, 7200 * USEC_PER_SEC), "2h");
	assert_string_equal(format_timespan(b, (3 * 86400 + 4 * 3600 + 5) * USEC_PER_SEC), "3d 4h");
	assert_non_null(format_timespan(b, UINT64_MAX));
	assert_string_equal(format_rfc3339(b, 1796555782 * USEC_PER_SEC + 999999),
			    "2026-12-06T11:16:22Z");
	assert_string_equal(format_rfc3339(b, 0), "1970-01-01T00:00:00Z");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_write_file_atomic_never_follows, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_write_file_atomic_removes_stale_temp_files,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_open_regular_refuses_what_could_block, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_mkdir_owned, setup, teardown),
		cmocka_unit_test(test_pci_same_device),
		cmocka_unit_test(test_suggest),
		cmocka_unit_test(test_format_timespan),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
