/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* What the client proves itself with: a bearer token (in the kubeconfig or a
 * file), a client certificate, or what an exec plugin gives (run again when
 * it expires), and the cluster's CA. Knows no client or transport: the
 * client decides when to renew, the transport takes what is here. */

#include "k8s-api.h"
#include "kubeconfig.h"

/* How long before the plugin's credential expires it is run again. */
#define K8S_EXEC_EXPIRY_MARGIN (5 * USEC_PER_SEC)

struct k8s_pem {
	char *data;
	size_t size;
};

struct k8s_credentials {
	char *auth_header; /* "Authorization: Bearer ..." or NULL */
	struct k8s_pem ca, cert, key;
	/* an exec plugin's: run again when what it gave expires, or on a 401 */
	struct kc_exec *exec;
	usec_t expires; /* CLOCK_REALTIME; 0 = not known */
	usec_t issued;
	enum k8s_cred_kind kind;
	usec_t cert_not_after; /* of the client certificate; 0 = none, or not known */
	char *source;	       /* the file or program they come from */
	const char *node;      /* borrowed: named in the lines of the plugin's stderr */
	unsigned n_exec;       /* plugin runs */
};

/* Reads the CA, the client certificate and key, and the token that kc
 * names, and runs its exec plugin (given server and timeout). source: the
 * kubeconfig's path, as the source unless a token file or a plugin says
 * more (NULL: not known). */
int k8s_credentials_load(struct k8s_credentials *cr, const struct kubeconfig *kc,
			 const char *source, const char *server, usec_t timeout,
			 char error[static K8S_ERROR_MAX]);
/* Runs the exec plugin again and takes its token or client certificate. */
int k8s_credentials_renew(struct k8s_credentials *cr, const char *server, usec_t timeout,
			  char error[static K8S_ERROR_MAX]);
/* Whether an exec plugin gave them, with an expiry: then they are renewed
 * K8S_EXEC_EXPIRY_MARGIN before it. */
bool k8s_credentials_expire(const struct k8s_credentials *cr);
void k8s_credentials_done(struct k8s_credentials *cr);
