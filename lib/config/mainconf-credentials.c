/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <string.h>

#include "mainconf.h"
#include "secret-file.h"

/* k8s-notify reads the Kubeconfig= file whenever it exists, and refuses it
 * by secret_stat_refusal(): then no drain or cordon can ever run, and a
 * disruptive change that waits for one waits for good. */
int mainconf_credentials_refusal(const struct mainconf *c, char *buf, size_t size)
{
	if (c->k8s_enabled == K8S_ENABLED_NO || !c->kubeconfig)
		return 0;
	return secret_file_refusal(c->kubeconfig, false, "kubeconfig", buf, size);
}

int mainconf_check_credentials(const struct mainconf *c, struct diag_list *diags)
{
	char why[SECRET_REFUSAL_MAX];
	int r;

	r = mainconf_credentials_refusal(c, why, sizeof(why));
	if (r == 0 || r == -ENOENT) /* none: k8s-notify takes the in-cluster account */
		return 0;
	if (r == -EPERM || r == -EBADFD)
		return diag_add(diags, DIAG_ERROR, NULL, 0,
				"[Kubernetes] Kubeconfig=: %s (k8s-notify refuses it, so no node "
				"can be drained and a disruptive change would wait for good)",
				why);
	return diag_add(diags, DIAG_WARNING, NULL, 0,
			"[Kubernetes] Kubeconfig=: cannot check kubeconfig %s: %s", c->kubeconfig,
			strerror(-r));
}
