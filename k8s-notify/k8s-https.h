/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* A client of the server a kubeconfig names, over HTTPS (libcurl), on the
 * system's clocks. */

#include "k8s-client.h"
#include "kubeconfig.h"

/* Takes what it needs from kc (reads the token file and the CA now). */
int k8s_client_new(const struct kubeconfig *kc, const struct k8s_client_options *o,
		   struct k8s_client **ret, char error[static K8S_ERROR_MAX]);
