/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* A host tool run as a child with posix_spawn(): no shell, a fixed
 * environment, both output streams read through pipes with poll() until
 * the tool closes them, and a deadline after which it is killed. */

#include <assert.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

#include "run-tool.h"

/* The tool gets this environment, not ours: LC_ALL=C keeps its messages
 * in the English the parser knows. */
static char *const tool_env[] = {
	(char *)"PATH=/usr/sbin:/usr/bin:/sbin:/bin",
	(char *)"LC_ALL=C",
	NULL,
};

struct stream {
	int fd;
	char *buf;
	size_t len;
	size_t max;	/* what it may hold */
	bool tail;	/* beyond max: keep the last max bytes (else -EFBIG) */
	size_t dropped; /* of a tail: bytes read and not kept */
};

static int close_fd(int fd)
{
	closep(&fd);
	return -1;
}

void tool_run_done(struct tool_run *t)
{
	if (!t)
		return;
	free(t->out);
	free(t->err);
	*t = (struct tool_run){};
}

/* The child starts with default signal handling and nothing blocked,
 * whatever the daemon has set up for itself; in a group of its own if asked.
 * 0 or a positive error number, as posix_spawnattr_*() return. */
static int spawn_attr(posix_spawnattr_t *attr, bool group)
{
	sigset_t none, all;
	int r;

	sigemptyset(&none);
	sigfillset(&all);
	r = posix_spawnattr_setsigmask(attr, &none);
	if (r == 0)
		r = posix_spawnattr_setflags(attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF |
							   (group ? POSIX_SPAWN_SETPGROUP : 0));
	if (r == 0 && group)
		r = posix_spawnattr_setpgroup(attr, 0);
	if (r == 0)
		r = posix_spawnattr_setsigdefault(attr, &all);
	return r;
}

/* stdin from /dev/null, stdout and stderr to the pipes. */
static int spawn_files(posix_spawn_file_actions_t *fa, int out_fd, int err_fd)
{
	int r = posix_spawn_file_actions_addopen(fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);

	if (r == 0)
		r = posix_spawn_file_actions_adddup2(fa, out_fd, STDOUT_FILENO);
	if (r == 0)
		r = posix_spawn_file_actions_adddup2(fa, err_fd, STDERR_FILENO);
	return r;
}

static int spawn(char *const argv[], const struct tool_run_options *o, int out_fd, int err_fd,
		 pid_t *ret_pid)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	pid_t pid;
	int r;

	/* posix_spawn() says so too, but only where its vfork is one: under
	 * valgrind a missing program would come back as exit 127 */
	if (access(argv[0], X_OK) < 0)
		return -errno;
	r = posix_spawn_file_actions_init(&fa);
	if (r != 0)
		return -r;
	r = posix_spawnattr_init(&attr);
	if (r != 0) {
		posix_spawn_file_actions_destroy(&fa);
		return -r;
	}
	r = spawn_attr(&attr, o->group);
	if (r == 0)
		r = spawn_files(&fa, out_fd, err_fd);
	if (r == 0)
		r = posix_spawn(&pid, argv[0], &fa, &attr, argv, o->env ?: tool_env);
	posix_spawnattr_destroy(&attr);
	posix_spawn_file_actions_destroy(&fa);
	if (r != 0)
		return -r;
	*ret_pid = pid;
	return 0;
}

/* A tail's oldest bytes go, so that keep are left. */
static void tail_trim(struct stream *s, size_t keep)
{
	size_t drop = s->len - keep;

	memmove(s->buf, s->buf + drop, keep);
	s->len = keep;
	s->buf[s->len] = '\0';
	s->dropped += drop;
}

/* Reads what is there; 0 at end of file (fd closed), 1 to go on. A tail
 * grows to 2 * max before its last max bytes move to the front: a tool that
 * writes without end costs one copy per max bytes, not one per read. */
static int drain(struct stream *s)
{
	char chunk[4096];
	ssize_t n = read(s->fd, chunk, sizeof(chunk));
	char *b;

	if (n < 0)
		return errno == EINTR || errno == EAGAIN ? 1 : -errno;
	if (n == 0) {
		s->fd = close_fd(s->fd);
		return 0;
	}
	if (!s->tail && s->len + (size_t)n > s->max)
		return -EFBIG;
	b = realloc(s->buf, s->len + (size_t)n + 1);
	if (!b)
		return -ENOMEM;
	memcpy(b + s->len, chunk, (size_t)n);
	s->len += (size_t)n;
	b[s->len] = '\0';
	s->buf = b;
	if (s->tail && s->len > 2 * s->max)
		tail_trim(s, s->max);
	return 1;
}

/* A tail that lost its beginning starts at a line's start, when there is one. */
static void tail_finish(struct stream *s)
{
	char *nl;

	if (!s->tail || !s->buf)
		return;
	if (s->len > s->max)
		tail_trim(s, s->max);
	if (s->dropped && (nl = memchr(s->buf, '\n', s->len)) && (size_t)(nl - s->buf) + 1 < s->len)
		tail_trim(s, s->len - (size_t)(nl - s->buf) - 1);
}

static int collect(struct stream st[2], usec_t deadline)
{
	while (st[0].fd >= 0 || st[1].fd >= 0) {
		struct pollfd p[2] = { { .fd = st[0].fd, .events = POLLIN },
				       { .fd = st[1].fd, .events = POLLIN } };
		int ms = poll_ms(deadline), r;

		if (ms == 0)
			return -ETIMEDOUT;
		r = poll(p, 2, ms);
		if (r < 0 && errno != EINTR)
			return -errno;
		for (size_t i = 0; r > 0 && i < 2; i++) {
			if (p[i].fd < 0 || !p[i].revents)
				continue;
			r = drain(&st[i]);
			if (r < 0)
				return r;
			r = 1;
		}
	}
	return 0;
}

/* The tool has closed its output; it exits now, but a tool that closed
 * its output and hangs still meets the deadline. */
static int reap(pid_t pid, usec_t deadline, int *ret_status)
{
	int status;

	for (;;) {
		pid_t w = waitpid(pid, &status, WNOHANG);

		if (w < 0 && errno != EINTR)
			return -errno;
		if (w == pid)
			break;
		if (now_monotonic() >= deadline)
			return -ETIMEDOUT;
		poll(NULL, 0, 10);
	}
	*ret_status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
	return 0;
}

static void kill_and_reap(pid_t pid, bool group)
{
	(void)kill(group ? -pid : pid, SIGKILL);
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
}

static int pipe_pair(int fds[2])
{
	return pipe2(fds, O_CLOEXEC) < 0 ? -errno : 0;
}

int tool_run(char *const argv[], usec_t timeout, size_t max_out, struct tool_run *ret)
{
	return tool_run_with(argv, NULL, timeout, max_out, ret);
}

/* A stream with nothing in it is the empty string. -ENOMEM. */
static int streams_finish(struct stream st[static 2])
{
	for (size_t i = 0; i < 2; i++)
		if (!st[i].buf) {
			st[i].buf = strdup("");
			if (!st[i].buf)
				return -ENOMEM;
		}
	return 0;
}

int tool_run_with(char *const argv[], const struct tool_run_options *o, usec_t timeout,
		  size_t max_out, struct tool_run *ret)
{
	static const struct tool_run_options defaults = {};
	struct stream st[2] = { { .fd = -1 }, { .fd = -1 } };
	int out[2] = { -1, -1 }, err[2] = { -1, -1 }, status = -1, r;
	usec_t deadline = deadline_after(timeout);
	pid_t pid = -1;

	assert(argv && argv[0] && argv[0][0] == '/');
	o = o ?: &defaults;
	st[0].max = max_out;
	st[1].max = o->max_err ?: max_out;
	st[1].tail = o->max_err > 0;
	r = pipe_pair(out);
	if (r >= 0)
		r = pipe_pair(err);
	if (r >= 0)
		r = spawn(argv, o, out[1], err[1], &pid);
	close_fd(out[1]);
	close_fd(err[1]);
	if (r < 0) {
		close_fd(out[0]);
		close_fd(err[0]);
		return r;
	}
	st[0].fd = out[0];
	st[1].fd = err[0];
	r = collect(st, deadline);
	tail_finish(&st[1]);
	if (r >= 0)
		r = reap(pid, deadline, &status);
	if (r < 0)
		kill_and_reap(pid, o->group);
	close_fd(st[0].fd);
	close_fd(st[1].fd);
	if (r >= 0)
		r = streams_finish(st);
	if (r < 0) {
		free(st[0].buf);
		free(st[1].buf);
		return r;
	}
	*ret = (struct tool_run){ .exit_status = status,
				  .out = st[0].buf,
				  .out_len = st[0].len,
				  .err = st[1].buf,
				  .err_dropped = st[1].dropped };
	return 0;
}
