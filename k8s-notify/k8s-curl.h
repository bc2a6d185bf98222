/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* libcurl's side of a client: one handle for its requests, HTTPS only, TLS
 * always verified against the cluster's CA, redirects never followed,
 * responses bounded (K8S_RESPONSE_MAX), each attempt within the request
 * timeout and the client's deadline. A libcurl failure becomes -errno with
 * a message that names the request and the server. */

#include <curl/curl.h>

#include "k8s-client.h"

struct k8s_curl {
	CURL *curl;
	/* the response being received */
	char *buf;
	size_t len, cap;
	bool too_big;
	char curl_error[CURL_ERROR_SIZE];
	char *watch_location; /* the Location of a watch's 3xx answer */
};

/* Sets t up for c (its CA and client certificate): -EOPNOTSUPP when this
 * libcurl lacks an option (built without TLS?). */
int k8s_curl_setup(struct k8s_client *c, struct k8s_curl *t);
void k8s_curl_free(void *userdata);
/* The client certificate of c's credentials, or none (an exec plugin may switch). */
int k8s_curl_client_cert(struct k8s_client *c, void *userdata);
/* The exchange of struct k8s_transport: one attempt on the handle. */
int k8s_curl_exchange(struct k8s_client *c, void *userdata, const struct k8s_request *req,
		      struct k8s_reply *ret);

/* For a second handle h (a watch): its URL, method, body and timeouts, and
 * the headers to send (the caller frees them once done). */
int k8s_curl_prepare(struct k8s_client *c, struct k8s_curl *t, CURL *h,
		     const struct k8s_request *req, struct curl_slist **ret_headers);
/* Sets the message for a libcurl failure of req and returns its -errno. */
int k8s_curl_error(struct k8s_client *c, struct k8s_curl *t, const struct k8s_request *req,
		   CURLcode code);
