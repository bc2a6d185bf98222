/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <errno.h>

#include "mainconf.h"
#include "secret-file.h"

/* k8s-notify reads the Kubeconfig= file whenever it exists, and refuses it
 * by secret_stat_refusal(): then no drain or cordon can ever run, and a
 * disruptive change that waits for one waits for good. Only the file's
 * owner and mode: what else k8s-notify refuses (a token inside that others
 * may read, a token file, no credentials at all) takes its YAML parser,
 * which sriovctl asks through "k8s-notify credentials" (sriovctl/k8s-judge.c);
 * this is the daemon's reason for a deferred PF. */
int mainconf_credentials_refusal(const struct mainconf *c, char *buf, size_t size)
{
	if (c->k8s_enabled == K8S_ENABLED_NO || !c->kubeconfig)
		return 0;
	return secret_file_refusal(c->kubeconfig, false, "kubeconfig", buf, size);
}
