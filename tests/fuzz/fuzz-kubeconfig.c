/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* The kubeconfig is YAML from a file an administrator (or a provisioning
 * tool) writes: the parser must survive every byte sequence, and everything
 * it accepts must be usable (https server, credentials present). */

#include <assert.h>

#include "kubeconfig.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char error[K8S_ERROR_MAX] = "";
	struct kubeconfig *kc = NULL;

	if (kubeconfig_parse((const char *)data, size, "/etc/sriov-persist", &kc, error) < 0) {
		assert(!kc);
		assert(error[0]);
		return 0;
	}
	assert(kc && kc->server && strncmp(kc->server, "https://", 8) == 0);
	assert(kc->token || kc->token_file || kc->client_cert.path || kc->client_cert.data ||
	       kc->exec);
	/* an exec plugin is the only credential, with a command and a known apiVersion */
	assert(!kc->exec || (!kc->token && !kc->token_file && kc->exec->command[0] &&
			     (streq(kc->exec->api_version, EXEC_API_V1) ||
			      streq(kc->exec->api_version, EXEC_API_V1BETA1))));
	assert(!!(kc->client_cert.path || kc->client_cert.data) ==
	       !!(kc->client_key.path || kc->client_key.data));
	kubeconfig_free(kc);
	return 0;
}
