/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <fcntl.h>

#include "exec-credential.h"
#include "k8s-credentials.h"

#define PEM_FILE_MAX (1u << 20)
#define TOKEN_FILE_MAX (64u << 10)

static void pem_done(struct k8s_pem *p)
{
	if (p->data)
		explicit_bzero(p->data, p->size);
	free(p->data);
	*p = (struct k8s_pem){};
}

/* secret: a private key, read as k8s_read_private_file() reads. */
static int pem_load(const struct kc_blob *b, const char *what, const char *marker, bool secret,
		    struct k8s_pem *ret, char *error)
{
	_cleanup_free_ char *data = NULL;
	size_t size = b->size;
	int r;

	if (!b->path && !b->data)
		return 0;
	if (b->data) {
		data = malloc(b->size + 1);
		if (!data)
			return -ENOMEM;
		memcpy(data, b->data, b->size);
		data[b->size] = '\0';
	} else if (secret) {
		r = k8s_read_private_file(b->path, what, PEM_FILE_MAX, &data, &size, error);
		if (r < 0)
			return r;
	} else {
		r = read_file_at(AT_FDCWD, b->path, PEM_FILE_MAX, &data, &size);
		if (r < 0)
			return k8s_set_error(error, r, "cannot read %s %s: %s", what, b->path,
					     read_strerror(r));
	}
	if (!memmem(data, size, marker, strlen(marker)))
		return k8s_set_error(error, -EBADMSG, "bad %s%s%s: no PEM block \"%s\" in it", what,
				     b->path ? " " : "", strempty(b->path), marker);
	*ret = (struct k8s_pem){ .data = TAKE_PTR(data), .size = size };
	return 0;
}

static char *bearer_header(const char *token)
{
	return strdup_printf("Authorization: Bearer %s", token);
}

static void auth_header_done(struct k8s_credentials *cr)
{
	if (cr->auth_header)
		explicit_bzero(cr->auth_header, strlen(cr->auth_header));
	cr->auth_header = mfree(cr->auth_header);
}

/* The token of kc, one line without the blanks around it: 0 with *ret NULL
 * when kc gives none. */
static int token_read(const struct kubeconfig *kc, char **ret, size_t *ret_len, char *error)
{
	_cleanup_free_ char *token = NULL;
	size_t n;
	int r;

	if (kc->token)
		token = strdup(kc->token);
	else if (kc->token_file) {
		/* in-cluster (no context): the kubelet's projected token, its mode the kubelet's */
		if (kc->context)
			r = k8s_read_private_file(kc->token_file, "token file", TOKEN_FILE_MAX,
						  &token, NULL, error);
		else
			r = k8s_read_secret_file(kc->token_file, "token file", TOKEN_FILE_MAX,
						 &token, NULL, error);
		if (r < 0)
			return r;
	} else
		return 0;
	if (!token)
		return -ENOMEM;
	for (n = strlen(token); n > 0 && strchr(" \t\r\n", token[n - 1]); n--)
		token[n - 1] = '\0';
	if (n == 0 || strpbrk(token, "\r\n"))
		return k8s_set_error(error, -ENOKEY, "token%s%s is %s",
				     kc->token_file ? " file " : "", strempty(kc->token_file),
				     n ? "not one line" : "empty");
	*ret = TAKE_PTR(token);
	*ret_len = n;
	return 0;
}

/* A JWT says when it expires, other tokens do not; beside a client
 * certificate, what is reported is what expires first. */
static int token_times(struct k8s_credentials *cr, const struct kubeconfig *kc, const char *token)
{
	usec_t issued, expires;
	int r;

	r = k8s_jwt_times(token, &issued, &expires);
	if (r == -ENOMEM)
		return r;
	if (r < 0)
		issued = expires = 0;
	if (cr->cert.data && !(expires && (!cr->expires || expires < cr->expires)))
		return 0;
	cr->kind = kc->token ? K8S_CRED_TOKEN : K8S_CRED_TOKEN_FILE;
	cr->issued = issued;
	cr->expires = expires;
	if (kc->token_file && free_and_strdup(&cr->source, kc->token_file) < 0)
		return -ENOMEM;
	return 0;
}

static int token_load(struct k8s_credentials *cr, const struct kubeconfig *kc, char *error)
{
	_cleanup_free_ char *token = NULL;
	size_t n = 0;
	int r;

	r = token_read(kc, &token, &n, error);
	if (r < 0 || !token)
		return r;
	r = token_times(cr, kc, token);
	if (r < 0)
		return r;
	cr->auth_header = bearer_header(token);
	explicit_bzero(token, n);
	return cr->auth_header ? 0 : -ENOMEM;
}

/* Takes the plugin's token or client certificate instead of the last. */
static int exec_take(struct k8s_credentials *cr, struct exec_credential *cred)
{
	int r = 0;

	auth_header_done(cr);
	pem_done(&cr->cert);
	pem_done(&cr->key);
	if (cred->token && !(cr->auth_header = bearer_header(cred->token)))
		r = -ENOMEM;
	if (cred->cert) {
		cr->cert.size = strlen(cred->cert);
		cr->cert.data = TAKE_PTR(cred->cert);
		cr->key.size = strlen(cred->key);
		cr->key.data = TAKE_PTR(cred->key);
	}
	cr->expires = cred->expires;
	cr->cert_not_after = 0;
	if (cr->cert.data)
		(void)k8s_cert_times(cr->cert.data, cr->cert.size, &(usec_t){ 0 },
				     &cr->cert_not_after);
	return r;
}

int k8s_credentials_renew(struct k8s_credentials *cr, const char *server, usec_t timeout,
			  char error[static K8S_ERROR_MAX])
{
	struct exec_credential cred = {};
	int r;

	cr->n_exec++;
	r = exec_credential_run(cr->exec, server, cr->ca.data, cr->ca.size, cr->node, timeout,
				&cred, error);
	if (r < 0)
		return r;
	r = exec_take(cr, &cred);
	exec_credential_done(&cred);
	return r;
}

bool k8s_credentials_expire(const struct k8s_credentials *cr)
{
	return cr->exec && cr->expires;
}

static int pems_load(struct k8s_credentials *cr, const struct kubeconfig *kc, char *error)
{
	int r;

	r = pem_load(&kc->ca, "CA", "-----BEGIN CERTIFICATE-----", false, &cr->ca, error);
	if (r >= 0)
		r = pem_load(&kc->client_cert, "client certificate", "-----BEGIN CERTIFICATE-----",
			     false, &cr->cert, error);
	if (r >= 0)
		r = pem_load(&kc->client_key, "client key", "PRIVATE KEY-----", true, &cr->key,
			     error);
	return r;
}

int k8s_credentials_load(struct k8s_credentials *cr, const struct kubeconfig *kc,
			 const char *source, const char *server, usec_t timeout,
			 char error[static K8S_ERROR_MAX])
{
	int r;

	r = pems_load(cr, kc, error);
	cr->kind = K8S_CRED_CLIENT_CERTIFICATE;
	if (r >= 0 && cr->cert.data &&
	    k8s_cert_times(cr->cert.data, cr->cert.size, &cr->issued, &cr->expires) >= 0)
		cr->cert_not_after = cr->expires;
	if (r >= 0 && source)
		r = free_and_strdup(&cr->source, source);
	if (r >= 0)
		r = token_load(cr, kc, error);
	if (r >= 0 && kc->exec) {
		cr->kind = K8S_CRED_EXEC;
		cr->exec = kc_exec_copy(kc->exec);
		r = cr->exec ? free_and_strdup(&cr->source, cr->exec->command) : -ENOMEM;
		if (r >= 0)
			r = k8s_credentials_renew(cr, server, timeout, error);
	}
	return r;
}

void k8s_credentials_done(struct k8s_credentials *cr)
{
	auth_header_done(cr);
	pem_done(&cr->ca);
	pem_done(&cr->cert);
	pem_done(&cr->key);
	kc_exec_free(cr->exec);
	free(cr->source);
	*cr = (struct k8s_credentials){};
}
