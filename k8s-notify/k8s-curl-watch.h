/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* libcurl's watch: a second handle (the first stays free for the requests a
 * tick sends) driven by a multi handle, so that the timer runs while the
 * stream is quiet. */

#include "k8s-client.h"

/* The watch of struct k8s_transport; userdata is the client's struct k8s_curl. */
int k8s_curl_watch(struct k8s_client *c, void *userdata, const struct k8s_request *req,
		   struct k8s_reply *ret);
