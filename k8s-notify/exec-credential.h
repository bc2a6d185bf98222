/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* kubeconfig exec credential plugins (client.authentication.k8s.io v1 and
 * v1beta1, as kubectl runs them): the command is started directly, never
 * through a shell (run-tool.h), in a process group of its own, with its
 * arguments and environment as the kubeconfig gives them, KUBERNETES_EXEC_INFO
 * describing the request and standard input from /dev/null (never
 * interactive); what it writes on standard error is passed on to ours once it
 * has exited, its last EXEC_STDERR_MAX bytes only: a plugin that logs a lot
 * does not fail for it. Its standard output, at most EXEC_OUTPUT_MAX bytes
 * within a timeout, must be one ExecCredential of the same apiVersion with a
 * token or a client certificate and key, and optionally when they expire. */

#include "kubeconfig.h"

#define EXEC_OUTPUT_MAX (256u << 10)
#define EXEC_STDERR_MAX (64u << 10)

struct exec_credential {
	char *token;
	char *cert, *key; /* PEM, NUL-terminated */
	usec_t expires;	  /* status.expirationTimestamp, CLOCK_REALTIME µs; 0 = not given */
};

void exec_credential_done(struct exec_credential *c);

/* Parses a plugin's output. Pure. */
int exec_credential_parse(const char *text, size_t n, const char *api_version,
			  struct exec_credential *ret, char error[static K8S_ERROR_MAX]);

/* The KUBERNETES_EXEC_INFO value: the ExecCredential request, with the
 * cluster (server, CA) when the kubeconfig asks for it. NULL when out of memory. */
char *exec_credential_request(const struct kc_exec *e, const char *server, const void *ca,
			      size_t ca_size);

/* Runs the plugin; its standard error goes to ours, each line after
 * "k8s-notify: NODE: exec plugin PATH: " (node NULL: without "NODE: "). On
 * failure error says why. -ENOENT: not found, -EPERM: an
 * executable that others may change, -ETIMEDOUT, -EAGAIN: it failed (it may
 * work later), -EFBIG, -EBADMSG: bad output. */
int exec_credential_run(const struct kc_exec *e, const char *server, const void *ca, size_t ca_size,
			const char *node, usec_t timeout, struct exec_credential *ret,
			char error[static K8S_ERROR_MAX]);
