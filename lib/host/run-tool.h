/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Running a host tool (mstconfig) with an argument vector, never a shell:
 * stdin from /dev/null, a fixed environment, its output collected up to a
 * bound and the whole run bounded by a time-out, after which the tool is
 * killed. */

#include "util.h"

struct tool_run {
	int exit_status; /* the tool's exit code; -1 when a signal ended it */
	char *out;	 /* stdout, NUL-terminated, never NULL on success */
	size_t out_len;
	char *err;	    /* stderr, NUL-terminated, never NULL on success */
	size_t err_dropped; /* bytes of stderr read but not kept (max_err) */
};

void tool_run_done(struct tool_run *t);

/* argv[0] is an absolute path. Returns 0 once the tool has exited, whatever
 * its exit code; -ETIMEDOUT when it ran longer than timeout (it is killed
 * and reaped), -EFBIG when stdout (or, without max_err, stderr) exceeded
 * max_out bytes (killed too), -errno when it could not be started
 * (-ENOENT: not installed). */
int tool_run(char *const argv[], usec_t timeout, size_t max_out, struct tool_run *ret);

struct tool_run_options {
	char *const *env; /* the tool's environment; NULL: the fixed one */
	bool group;	  /* in a process group of its own, all killed on a time-out */
	/* stderr, bounded apart from stdout: only its last max_err bytes are
	 * kept (from the start of a line, when one starts in them), for
	 * messages; the rest is read and dropped, and never fails the run. 0:
	 * stderr is bounded as stdout is (max_out, -EFBIG). */
	size_t max_err;
};
/* tool_run() with options (o may be NULL). */
int tool_run_with(char *const argv[], const struct tool_run_options *o, usec_t timeout,
		  size_t max_out, struct tool_run *ret);
