/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* Running k8s-notify: one child per call, never through a shell, its JSON
 * result read from a pipe and handed to a callback from the event loop; its
 * stderr (human messages) goes where the daemon's goes. */

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <syslog.h>

#include "json-util.h"
#include "k8s-run.h"

#define RESULT_MAX (1u << 20)

extern char **environ;

struct k8s_job {
	struct manager *m;
	k8s_done_t done;
	void *userdata;
	char *verb;
	int fd;
	char *out;
	size_t n_out;
	bool too_big;
	sd_event_source *io, *child;
};

static void job_free(struct k8s_job *j)
{
	sd_event_source_disable_unref(j->io);
	sd_event_source_disable_unref(j->child);
	if (j->fd >= 0)
		close(j->fd);
	free(j->out);
	free(j->verb);
	free(j);
}

/* Reads what is there; returns 0 at the end of the output. */
static int job_read(struct k8s_job *j)
{
	for (;;) {
		char buf[4096];
		ssize_t n = read(j->fd, buf, sizeof(buf));
		char *p;

		if (n == 0)
			return 0;
		if (n < 0)
			return errno == EINTR ? 1 : errno == EAGAIN ? 1 : -errno;
		if (j->n_out + (size_t)n > RESULT_MAX) {
			j->too_big = true;
			continue;
		}
		p = realloc(j->out, j->n_out + (size_t)n + 1);
		if (!p)
			return -ENOMEM;
		j->out = p;
		memcpy(j->out + j->n_out, buf, (size_t)n);
		j->n_out += (size_t)n;
		j->out[j->n_out] = '\0';
	}
}

static int on_output(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	struct k8s_job *j = userdata;

	if (job_read(j) <= 0)
		j->io = sd_event_source_disable_unref(j->io);
	return 0;
}

static int on_child_exit(sd_event_source *s, const siginfo_t *si, void *userdata)
{
	struct k8s_job *j = userdata;
	struct step_result result = {};
	int status, r = -EBADMSG;

	/* the child is gone: whatever it wrote is in the pipe */
	(void)fcntl(j->fd, F_SETFL, 0);
	(void)job_read(j);
	if (si->si_code == CLD_EXITED)
		status = si->si_status;
	else
		status = -EINTR; /* killed by a signal */
	if (j->out && !j->too_big)
		r = step_result_parse(j->out, &result);
	if (status == 0 && r < 0) {
		log_msg(LOG_WARNING, "k8s-notify %s: its result does not parse%s", j->verb,
			j->too_big ? " (too long)" : "");
		status = 1;
	} else if (status == -EINTR)
		log_msg(LOG_WARNING, "k8s-notify %s was killed by SIG%s", j->verb,
			strna(sigabbrev_np(si->si_status)));
	else if (status != 0)
		/* an outage is logged once, by k8s-api.c, not at every try */
		log_msg(result.unreachable ? LOG_DEBUG : LOG_WARNING,
			"k8s-notify %s exited with %d%s%s", j->verb, status,
			result.error ? ": " : "", strempty(result.error));
	j->done(j->m, status, &result, j->userdata);
	step_result_done(&result);
	job_free(j);
	return 0;
}

static int spawn(const struct manager *m, char **verb_args, int out_fd, pid_t *ret)
{
	_cleanup_strv_free_ char **argv = NULL;
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	sigset_t none;
	int r;

	if (strv_extend(&argv, m->k8s_notify) < 0 ||
	    strv_extend(&argv, "--quiet-unreachable") < 0 ||
	    (m->main_config &&
	     (strv_extend(&argv, "--main-config") < 0 || strv_extend(&argv, m->main_config) < 0)))
		return -ENOMEM;
	for (char **a = verb_args; *a; a++)
		if (strv_extend(&argv, *a) < 0)
			return -ENOMEM;
	sigemptyset(&none);
	posix_spawn_file_actions_init(&fa);
	posix_spawnattr_init(&attr);
	/* the daemon blocks the signals sd-event handles: not so the child */
	posix_spawnattr_setsigmask(&attr, &none);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK);
	posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, out_fd, STDOUT_FILENO);
	r = -posix_spawn(ret, m->k8s_notify, &fa, &attr, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&attr);
	return r;
}

int k8s_run(struct manager *m, char **verb_args, k8s_done_t done, void *userdata)
{
	struct k8s_job *j = calloc(1, sizeof(*j));
	int p[2] = { -EBADF, -EBADF }, r;
	pid_t pid;

	if (!j)
		return -ENOMEM;
	*j = (struct k8s_job){ .m = m, .done = done, .userdata = userdata, .fd = -EBADF };
	j->verb = strv_join(verb_args, " ");
	if (!j->verb || pipe2(p, O_CLOEXEC) < 0) {
		r = j->verb ? -errno : -ENOMEM;
		job_free(j);
		return r;
	}
	j->fd = p[0];
	r = spawn(m, verb_args, p[1], &pid);
	close(p[1]);
	if (r < 0) {
		log_msg(LOG_ERR, "Cannot run %s: %s", m->k8s_notify, strerror(-r));
		job_free(j);
		return r;
	}
	log_msg(LOG_DEBUG, "k8s-notify %s (pid %d)", j->verb, (int)pid);
	(void)fcntl(j->fd, F_SETFL, O_NONBLOCK);
	r = sd_event_add_io(m->event, &j->io, j->fd, EPOLLIN, on_output, j);
	if (r >= 0)
		r = sd_event_add_child(m->event, &j->child, pid, WEXITED, on_child_exit, j);
	if (r < 0) {
		(void)kill(pid, SIGKILL);
		(void)waitpid(pid, NULL, 0);
		job_free(j);
		return r;
	}
	/* the exit is handled after the output that came before it */
	(void)sd_event_source_set_priority(j->child, SD_EVENT_PRIORITY_NORMAL + 1);
	return 0;
}
