/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* Running a host tool: its output and exit code, the fixed environment,
 * stdin from /dev/null, and the bounds (time, output size) that kill it. */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <time.h>

#include <cmocka.h>

#include "run-tool.h"

#define MS USEC_PER_MSEC

static void test_output_and_exit_code(void **state)
{
	char *const argv[] = { "/bin/sh", "-c", "printf 'a\\nb\\n'; echo oops >&2; exit 3", NULL };
	struct tool_run t;

	assert_int_equal(tool_run(argv, 10 * USEC_PER_SEC, 4096, &t), 0);
	assert_int_equal(t.exit_status, 3);
	assert_string_equal(t.out, "a\nb\n");
	assert_int_equal(t.out_len, 4);
	assert_string_equal(t.err, "oops\n");
	tool_run_done(&t);
}

static void test_silent_tool(void **state)
{
	char *const argv[] = { "/bin/true", NULL };
	struct tool_run t;

	assert_int_equal(tool_run(argv, 10 * USEC_PER_SEC, 4096, &t), 0);
	assert_int_equal(t.exit_status, 0);
	assert_string_equal(t.out, "");
	assert_string_equal(t.err, "");
	tool_run_done(&t);
}

/* Not our environment, and nothing on stdin. */
static void test_environment_and_stdin(void **state)
{
	char *const env[] = { "/usr/bin/env", NULL };
	char *const cat[] = { "/bin/cat", NULL };
	struct tool_run t;

	setenv("SRIOV_TEST_SECRET", "1", 1);
	assert_int_equal(tool_run(env, 10 * USEC_PER_SEC, 4096, &t), 0);
	assert_string_equal(t.out, "PATH=/usr/sbin:/usr/bin:/sbin:/bin\nLC_ALL=C\n");
	tool_run_done(&t);
	assert_int_equal(tool_run(cat, 10 * USEC_PER_SEC, 4096, &t), 0);
	assert_int_equal(t.exit_status, 0);
	assert_string_equal(t.out, "");
	tool_run_done(&t);
}

/* Whether process pid is running (not gone, not a zombie). */
static bool running(int pid)
{
	char path[64], *stat = NULL, *p;
	bool r;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	if (read_file(path, &stat) < 0)
		return false;
	p = strrchr(stat, ')');
	r = p && p[1] == ' ' && p[2] != 'Z' && p[2] != 'X';
	free(stat);
	return r;
}

/* An environment of the caller's, and a process group of its own that a
 * time-out kills whole: the shell's child that keeps stdout open goes too. */
static void test_options(void **state)
{
	char *const env[] = { "/usr/bin/env", NULL };
	char pidfile[] = "/tmp/test-run-tool-XXXXXX", *text = NULL;
	char *const sh[] = { "/bin/sh", "-c", "sleep 30 & echo $! > \"$0\"; wait", pidfile, NULL };
	char *const vars[] = { "A=1", "B=x y", NULL };
	struct tool_run t;
	int fd = mkstemp(pidfile), pid;

	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(tool_run_with(env, &(struct tool_run_options){ .env = vars },
				       10 * USEC_PER_SEC, 4096, &t),
			 0);
	assert_string_equal(t.out, "A=1\nB=x y\n");
	tool_run_done(&t);
	assert_int_equal(tool_run_with(sh, &(struct tool_run_options){ .group = true }, 300 * MS,
				       4096, &t),
			 -ETIMEDOUT);
	assert_int_equal(read_file(pidfile, &text), 0);
	pid = atoi(text);
	assert_true(pid > 0);
	for (int i = 0; i < 100 && running(pid); i++)
		usleep(10000);
	assert_false(running(pid));
	free(text);
	unlink(pidfile);
}

static void test_bounds(void **state)
{
	char *const sleeper[] = { "/bin/sleep", "30", NULL };
	char *const chatty[] = { "/usr/bin/yes", NULL };
	char *const closer[] = { "/bin/sh", "-c", "exec >&- 2>&-; sleep 30", NULL };
	char *const missing[] = { "/nonexistent/mstconfig", NULL };
	struct tool_run t;
	usec_t start = now_monotonic();

	assert_int_equal(tool_run(sleeper, 200 * MS, 4096, &t), -ETIMEDOUT);
	/* killed at the deadline, not after the tool's 30 s */
	assert_true(now_monotonic() - start < 20 * USEC_PER_SEC);
	assert_int_equal(tool_run(chatty, 10 * USEC_PER_SEC, 64 << 10, &t), -EFBIG);
	/* output closed, still running: the deadline holds for the exit too */
	start = now_monotonic();
	assert_int_equal(tool_run(closer, 200 * MS, 4096, &t), -ETIMEDOUT);
	assert_true(now_monotonic() - start < 20 * USEC_PER_SEC);
	assert_int_equal(tool_run(missing, 10 * USEC_PER_SEC, 4096, &t), -ENOENT);
}

/* stderr bounded apart from stdout: a tool that says much on stderr still
 * gives its output; the last max_err bytes are kept, from a line's start. */
static void test_stderr_bounded_apart(void **state)
{
	char *const noisy[] = { "/bin/sh", "-c",
				"yes 'a line of chatter' | head -n 58254 >&2; "
				"echo 'last words' >&2; echo ok",
				NULL };
	char *const quiet[] = { "/bin/sh", "-c", "echo a >&2; echo b", NULL };
	char *const chatty[] = { "/usr/bin/yes", NULL };
	const struct tool_run_options o = { .max_err = 4096 };
	struct tool_run t;

	assert_int_equal(tool_run_with(noisy, &o, 10 * USEC_PER_SEC, 4096, &t), 0);
	assert_int_equal(t.exit_status, 0);
	assert_string_equal(t.out, "ok\n");
	assert_true(strlen(t.err) <= 4096 && strlen(t.err) > 4000);
	assert_true(startswith(t.err, "a line of chatter\n"));
	assert_true(endswith(t.err, "a line of chatter\nlast words\n"));
	/* 18 bytes a line, about 1 MiB */
	assert_int_equal(t.err_dropped + strlen(t.err), 58254 * 18 + strlen("last words\n"));
	tool_run_done(&t);
	assert_int_equal(tool_run_with(quiet, &o, 10 * USEC_PER_SEC, 4096, &t), 0);
	assert_string_equal(t.err, "a\n");
	assert_int_equal(t.err_dropped, 0);
	tool_run_done(&t);
	/* without max_err, stderr is bounded as stdout is; stdout always fails */
	assert_int_equal(tool_run(noisy, 10 * USEC_PER_SEC, 64 << 10, &t), -EFBIG);
	assert_int_equal(tool_run_with(chatty, &o, 10 * USEC_PER_SEC, 64 << 10, &t), -EFBIG);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_output_and_exit_code),
		cmocka_unit_test(test_silent_tool),
		cmocka_unit_test(test_environment_and_stdin),
		cmocka_unit_test(test_options),
		cmocka_unit_test(test_bounds),
		cmocka_unit_test(test_stderr_bounded_apart),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
