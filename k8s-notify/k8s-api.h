/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Pure helpers for the conventions of the Kubernetes API: Status objects and
 * HTTP codes as -errno, MicroTime, retry backoff, JSON field access. No I/O. */

#include <json-c/json.h>

#include "util.h"

/* The size of the message buffers that k8s-notify's modules fill in. */
#define K8S_ERROR_MAX 512

/* "2006-01-02T15:04:05.000000Z" + NUL */
#define MICROTIME_MAX 28

/* The UTC time t (µs since the epoch) in the API's MicroTime format, 6 fraction digits. */
char *microtime_format(usec_t t, char buf[static MICROTIME_MAX]);
/* RFC 3339 as the API writes it: "YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)".
 * Fractions beyond 6 digits are truncated. -EINVAL for anything else. */
int microtime_parse(const char *s, usec_t *ret);

/* An HTTP status of the API (with the Status reason, may be NULL) as -errno:
 * 401 -EKEYREJECTED, 403 -EACCES, 404 -ENOENT, 409 AlreadyExists -EEXIST,
 * 409 Conflict -ESTALE, 429 and 5xx -EAGAIN, other 4xx -EINVAL, 415 -EPROTO,
 * 3xx (redirects, never followed) -EPROTO. 0 for 2xx. */
int k8s_http_errno(long status, const char *reason) _pure_;
/* "Forbidden", "Not Found" ...; "" for codes it does not know. */
const char *k8s_http_phrase(long status) _pure_;
/* Whether a failure may go away by itself: the API unreachable, timeouts,
 * 429/5xx, slots busy. These make k8s-notify exit with EX_TEMPFAIL. */
bool k8s_errno_is_retryable(int r) _pure_;

/* The message and reason of a Status body (kind "Status"); NULL when absent. */
const char *k8s_status_message(struct json_object *status);
const char *k8s_status_reason(struct json_object *status);
/* The first details.causes[].message of a Status (a budget's own words); NULL when absent. */
const char *k8s_status_cause(struct json_object *status);
/* Whether details.causes[] has one with this reason (the Go field Type). */
bool k8s_status_has_cause(struct json_object *status, const char *reason);
#define K8S_CAUSE_NAMESPACE_TERMINATING "NamespaceTerminating"
#define K8S_CAUSE_DISRUPTION_BUDGET "DisruptionBudget"

/* Who refused with a 403: the authorizer (RBAC: no permission, it will not
 * pass by itself), the namespace lifecycle admission (the namespace is
 * being deleted: its pods go with it), or another admission plugin or
 * webhook (its own words in the message). */
enum k8s_forbidden {
	K8S_FORBIDDEN_RBAC,
	K8S_FORBIDDEN_NAMESPACE_TERMINATING,
	K8S_FORBIDDEN_ADMISSION,
};
enum k8s_forbidden k8s_forbidden_kind(struct json_object *status);
/* details.retryAfterSeconds of a Status, 0 when absent. */
uint32_t k8s_status_retry_after(struct json_object *status);

/* The delay before retry number attempt (0-based): base * 2^attempt capped
 * at cap, of which the upper half is jitter chosen by rnd (equal jitter), so
 * that contenders spread out but never retry at once. */
usec_t k8s_backoff(unsigned attempt, usec_t base, usec_t cap, uint32_t rnd) _pure_;

/* RFC 4648 base64 (padding optional, whitespace ignored); -EINVAL on bad input. */
int k8s_base64_decode(const char *s, size_t n, char **ret, size_t *ret_size);
/* RFC 4648 base64 with padding; NULL when out of memory. */
char *k8s_base64_encode(const void *data, size_t n);

/* One JSON value of len bytes (at most 64 levels deep, white space around it);
 * NULL when it is not. */
struct json_object *k8s_json_parse(const char *buf, size_t len);
/* o.k1.k2... (NULL-terminated keys); NULL when a step is missing or not an object. */
struct json_object *k8s_json_get(struct json_object *o, ...) __attribute__((sentinel));
/* Like k8s_json_get, but only a string value; NULL otherwise. */
const char *k8s_json_str(struct json_object *o, ...) __attribute__((sentinel));

/* Whether s is a DNS subdomain (object names of nodes, pods, leases). */
bool k8s_name_is_valid(const char *s) _pure_;

/* The "iat" and "exp" claims of a JWT (a bound service-account token, an
 * OIDC id token), read without checking its signature (only the API server
 * can): µs since the epoch, 0 when a claim is absent. -EINVAL when token is
 * not a JWT. */
int k8s_jwt_times(const char *token, usec_t *ret_issued, usec_t *ret_expires);

/* notBefore and notAfter of the first certificate of a PEM text (a client
 * certificate), µs since the epoch: the DER of its validity is walked with
 * every length checked, nothing else is looked at (the TLS library checks
 * the certificate itself). -EINVAL when there is no such certificate. */
int k8s_cert_times(const char *pem, size_t size, usec_t *ret_not_before, usec_t *ret_not_after);

/* How credentials are given, and whether someone renews them. */
enum k8s_cred_kind {
	K8S_CRED_TOKEN,	     /* in the kubeconfig: nobody renews it */
	K8S_CRED_TOKEN_FILE, /* read at every run: whoever writes it may renew it */
	K8S_CRED_EXEC,	     /* a plugin, run again when its credential expires */
	K8S_CRED_CLIENT_CERTIFICATE,
	_K8S_CRED_KIND_MAX,
	_K8S_CRED_KIND_INVALID = -EINVAL,
};
const char *k8s_cred_kind_to_string(enum k8s_cred_kind k) _pure_;
/* A warning when the credential expires soon (or did), else NULL: a token in
 * the kubeconfig within K8S_CRED_WARN days; a token file when less than a
 * fifth of its lifetime is left (a kubelet renews it at four fifths), or
 * within a day when its lifetime is unknown; a client certificate when less
 * than a fifth of its lifetime, and at most K8S_CRED_WARN_CERT days, are
 * left; never for a plugin's.
 * issued/expires as k8s_jwt_times() gives them; now the wall clock. */
#define K8S_CRED_WARN 7
#define K8S_CRED_WARN_CERT 30
char *k8s_cred_warning(enum k8s_cred_kind kind, const char *source, usec_t issued, usec_t expires,
		       usec_t now);

/* Writes the message to error (K8S_ERROR_MAX bytes) and returns r. */
int k8s_set_error(char *error, int r, const char *fmt, ...) _printf_(3, 4);
