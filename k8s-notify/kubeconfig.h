/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Credentials for the API server: from a kubeconfig (its current-context) or
 * from the in-cluster service-account files. The parser is pure; loading
 * reads the files. TLS is always verified: insecure-skip-tls-verify is refused. */

#include "k8s-api.h"

/* PEM material given either as a file or inline (the kubeconfig's *-data, decoded). */
struct kc_blob {
	char *path; /* absolute, or relative to the kubeconfig's directory resolved */
	char *data;
	size_t size;
};

#define EXEC_API_V1 "client.authentication.k8s.io/v1"
#define EXEC_API_V1BETA1 "client.authentication.k8s.io/v1beta1"

/* users[].user.exec: a credential plugin that prints an ExecCredential
 * (client.authentication.k8s.io/v1 or v1beta1) when run; see exec-credential.h. */
struct kc_exec {
	char *api_version;
	char *command; /* a path (relative ones resolved against the kubeconfig's
			* directory), or a name looked up in PATH when run */
	char **args;
	char **env; /* "NAME=value" */
	bool provide_cluster_info;
	char *install_hint; /* said when the command is not found */
};

void kc_exec_free(struct kc_exec *e);
/* A deep copy; NULL when out of memory. */
struct kc_exec *kc_exec_copy(const struct kc_exec *e);

struct kubeconfig {
	char *context; /* NULL in-cluster */
	char *server;  /* https://host[:port][/prefix], no trailing '/' */
	struct kc_blob ca;
	struct kc_blob client_cert;
	struct kc_blob client_key;
	char *token;
	char *token_file;
	char *namespace; /* NULL when not given */
	struct kc_exec *exec;
};

#define KUBECONFIG_FILE_MAX (1u << 20)
#define SERVICE_ACCOUNT_DIR "/var/run/secrets/kubernetes.io/serviceaccount"

struct kubeconfig *kubeconfig_free(struct kubeconfig *kc);
static inline void kubeconfig_freep(struct kubeconfig **kc)
{
	kubeconfig_free(*kc);
}
#define _cleanup_kubeconfig_ _cleanup_(kubeconfig_freep)

/* Parses a kubeconfig document and picks its current-context. Relative file
 * names are resolved against base_dir (the kubeconfig's directory; NULL keeps
 * them as they are). On failure, error says what is wrong and where. */
int kubeconfig_parse(const char *text, size_t size, const char *base_dir, struct kubeconfig **ret,
		     char error[static K8S_ERROR_MAX]);
/* Reads a file that holds credentials (a kubeconfig, a token, a private
 * key), as ssh does: it must be a regular file (-EISDIR, -EBADFD: checked
 * before any read, which a FIFO would block) owned by root or by us and
 * writable by no one else (-EPERM), with error saying why otherwise. At most
 * max bytes (-EFBIG); ret_size may be NULL. */
int k8s_read_secret_file(const char *path, const char *what, size_t max, char **ret,
			 size_t *ret_size, char error[static K8S_ERROR_MAX]);
/* k8s_read_secret_file() of a file that a kubeconfig names for its secret
 * (tokenFile, client-key): also -EPERM when others may read it, as ssh
 * refuses such a private key. Not for the service account's files, whose
 * modes the kubelet sets. A kubeconfig that holds a token or
 * client-key-data itself is held to the same rule by kubeconfig_load(). */
int k8s_read_private_file(const char *path, const char *what, size_t max, char **ret,
			  size_t *ret_size, char error[static K8S_ERROR_MAX]);
/* Reads and parses a kubeconfig file. */
int kubeconfig_load(const char *path, struct kubeconfig **ret, char error[static K8S_ERROR_MAX]);
/* In-cluster credentials: sa_dir/{token,ca.crt,namespace} and the API server
 * at host:port (KUBERNETES_SERVICE_HOST/PORT). The token file is read later,
 * when the client opens; the namespace file is optional. */
int kubeconfig_in_cluster(const char *sa_dir, const char *host, const char *port,
			  struct kubeconfig **ret, char error[static K8S_ERROR_MAX]);
