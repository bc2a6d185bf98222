/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* What an exec credential plugin prints, and the tokens it and the files
 * give, come from programs and files outside us: the ExecCredential parser,
 * the JWT reader and the certificate validity reader must survive every byte
 * sequence, and what they accept must be usable (a one-line token, or PEM
 * certificate and key). */

#include <assert.h>

#include "exec-credential.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char error[K8S_ERROR_MAX] = "", *token;
	struct exec_credential c = {};
	usec_t issued, expires;
	int r;

	r = exec_credential_parse((const char *)data, size, EXEC_API_V1, &c, error);
	if (r < 0) {
		assert(error[0] || r == -ENOMEM);
		assert(!c.token && !c.cert);
	} else {
		assert(c.token || (c.cert && c.key));
		for (const char *p = c.token; p && *p; p++)
			assert((unsigned char)*p >= ' ' && *p != 0x7f);
		exec_credential_done(&c);
	}
	/* the same bytes as a client certificate */
	if (k8s_cert_times((const char *)data, size, &issued, &expires) == 0)
		free(k8s_cred_warning(K8S_CRED_CLIENT_CERTIFICATE, "/k", issued, expires, expires));
	/* and as a token */
	token = strndup((const char *)data, size);
	if (!token)
		return 0;
	if (k8s_jwt_times(token, &issued, &expires) == 0) {
		char *w = k8s_cred_warning(K8S_CRED_TOKEN, "/k", issued, expires, issued + 1);

		free(w);
	}
	free(token);
	return 0;
}
