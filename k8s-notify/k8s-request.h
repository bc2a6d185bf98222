/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Requests to the API server, through the client's transport. Once the
 * server has answered (anything but 429 or 5xx), each call retries
 * connection failures, timeouts, 429 and 5xx with exponential backoff and
 * jitter, bounded by a number of attempts and by the client's deadline;
 * before that, a failure is final for the run (its caller backs off across
 * runs). Answers are decoded as JSON; a status other than 2xx becomes
 * -errno with a message that says who refused and why. */

#include "k8s-client.h"

struct k8s_response {
	long status;
	struct json_object *json; /* NULL when the body is not JSON */
	usec_t retry_after;	  /* Retry-After or details.retryAfterSeconds; 0 = none */
	char *location;		  /* of a 3xx (never followed), where it points; NULL = none */
};
void k8s_response_done(struct k8s_response *r);

/* Sends req, retrying as above. 0 when a response came, whatever its status
 * (a 429 or 5xx comes back as such with K8S_CALL_RAW_STATUS or once the
 * attempts are used up); -errno when none did, it was too large, or the
 * server's certificate was not verified. */
int k8s_call(struct k8s_client *c, const struct k8s_request *req, struct k8s_response *ret);
/* k8s_call, and a status other than 2xx becomes -errno (k8s_http_errno) with
 * "what: 403 Forbidden: <Status message>". ret_json (may be NULL) gets the body. */
int k8s_do(struct k8s_client *c, const struct k8s_request *req, struct json_object **ret_json);
/* A GET of a list (path, what as for k8s_do): *ret_list the whole answer
 * (for its metadata.resourceVersion), *ret_items its items array, which must
 * be there (-EBADMSG "what: no items in the response" otherwise). */
int k8s_list(struct k8s_client *c, const char *path, const char *what,
	     struct json_object **ret_list, struct json_object **ret_items);
/* Sets the message for a non-2xx response and returns its -errno. */
int k8s_response_error(struct k8s_client *c, const struct k8s_request *req,
		       const struct k8s_response *resp);
/* A 3xx's Location from reply into resp, for the message that says we do
 * not follow it. */
int k8s_response_take_location(struct k8s_client *c, const struct k8s_request *req,
			       const struct k8s_reply *reply, struct k8s_response *resp);

/* Whether an answer says the server cannot serve for now (429, 5xx). */
static inline bool k8s_status_unavailable(long status)
{
	return status == 429 || status >= 500;
}

/* A path segment or query value, percent-encoded; NULL on ENOMEM. */
char *k8s_escape(const char *s);
