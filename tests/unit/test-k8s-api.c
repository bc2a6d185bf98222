/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "json-util.h"
#include "k8s-api.h"

static void test_microtime_format(void **state)
{
	char buf[MICROTIME_MAX];

	assert_string_equal(microtime_format(0, buf), "1970-01-01T00:00:00.000000Z");
	/* 2006-01-02T15:04:05Z is 1136214245 */
	assert_string_equal(microtime_format(1136214245 * USEC_PER_SEC + 7, buf),
			    "2006-01-02T15:04:05.000007Z");
	assert_string_equal(microtime_format(1136214245 * USEC_PER_SEC + 999999, buf),
			    "2006-01-02T15:04:05.999999Z");
	assert_int_equal(strlen(buf), MICROTIME_MAX - 1);
}

static void test_microtime_parse(void **state)
{
	usec_t t;

	assert_int_equal(microtime_parse("2006-01-02T15:04:05.000007Z", &t), 0);
	assert_int_equal(t, 1136214245 * USEC_PER_SEC + 7);
	assert_int_equal(microtime_parse("2006-01-02T15:04:05Z", &t), 0);
	assert_int_equal(t, 1136214245 * USEC_PER_SEC);
	/* nanoseconds are truncated to µs */
	assert_int_equal(microtime_parse("2006-01-02T15:04:05.123456789Z", &t), 0);
	assert_int_equal(t, 1136214245 * USEC_PER_SEC + 123456);
	assert_int_equal(microtime_parse("2006-01-02T15:04:05.5Z", &t), 0);
	assert_int_equal(t, 1136214245 * USEC_PER_SEC + 500000);
	/* offsets */
	assert_int_equal(microtime_parse("2006-01-02T17:04:05+02:00", &t), 0);
	assert_int_equal(t, 1136214245 * USEC_PER_SEC);
	assert_int_equal(microtime_parse("2006-01-02T10:04:05.000000-05:00", &t), 0);
	assert_int_equal(t, 1136214245 * USEC_PER_SEC);
}

static void test_microtime_roundtrip(void **state)
{
	static const usec_t times[] = { 0, 1, 999999, 1700000000123456ULL, 4102444799999999ULL };
	char buf[MICROTIME_MAX];

	for (size_t i = 0; i < ELEMENTSOF(times); i++) {
		usec_t t;

		assert_int_equal(microtime_parse(microtime_format(times[i], buf), &t), 0);
		assert_int_equal(t, times[i]);
	}
}

static void test_microtime_parse_bad(void **state)
{
	static const char *const bad[] = {
		"",
		"2006-01-02",
		"2006-01-02T15:04:05",
		"2006-01-02 15:04:05Z",
		"2006-13-02T15:04:05Z",
		"2006-02-30T15:04:05Z",
		"2006-01-02T24:04:05Z",
		"2006-01-02T15:04:05.Z",
		"2006-01-02T15:04:05ZZ",
		"2006-01-02T15:04:05+2:00",
		"2006-01-02T15:04:05+02:0x",
		"1969-12-31T23:59:59Z",
		"20x6-01-02T15:04:05Z",
	};
	usec_t t = 42;

	for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
		if (microtime_parse(bad[i], &t) != -EINVAL)
			print_error("accepted: \"%s\"\n", bad[i]);
		assert_int_equal(microtime_parse(bad[i], &t), -EINVAL);
	}
	assert_int_equal(t, 42); /* untouched on failure */
}

static void test_http_errno(void **state)
{
	assert_int_equal(k8s_http_errno(200, NULL), 0);
	assert_int_equal(k8s_http_errno(201, NULL), 0);
	assert_int_equal(k8s_http_errno(401, "Unauthorized"), -EKEYREJECTED);
	assert_int_equal(k8s_http_errno(403, "Forbidden"), -EACCES);
	assert_int_equal(k8s_http_errno(404, "NotFound"), -ENOENT);
	assert_int_equal(k8s_http_errno(409, "AlreadyExists"), -EEXIST);
	assert_int_equal(k8s_http_errno(409, "Conflict"), -ESTALE);
	assert_int_equal(k8s_http_errno(409, NULL), -ESTALE);
	assert_int_equal(k8s_http_errno(415, NULL), -EPROTO);
	assert_int_equal(k8s_http_errno(422, "Invalid"), -EINVAL);
	assert_int_equal(k8s_http_errno(429, "TooManyRequests"), -EAGAIN);
	assert_int_equal(k8s_http_errno(503, NULL), -EAGAIN);
	assert_int_equal(k8s_http_errno(599, NULL), -EAGAIN);
	assert_int_equal(k8s_http_errno(418, NULL), -EPROTO);
	assert_string_equal(k8s_http_phrase(403), "Forbidden");
	assert_string_equal(k8s_http_phrase(299), "");
	/* redirects are never followed: a final failure with a reason */
	assert_int_equal(k8s_http_errno(302, NULL), -EPROTO);
	assert_false(k8s_errno_is_retryable(k8s_http_errno(307, NULL)));
	assert_string_equal(k8s_http_phrase(302), "Found");
	assert_string_equal(k8s_http_phrase(308), "Permanent Redirect");
}

static void test_retryable(void **state)
{
	/* API unreachable, timeouts, 429/5xx, slots busy: exit 75 */
	assert_true(k8s_errno_is_retryable(-ECONNREFUSED));
	assert_true(k8s_errno_is_retryable(-ETIMEDOUT));
	assert_true(k8s_errno_is_retryable(-EAGAIN));
	assert_true(k8s_errno_is_retryable(-EBUSY));
	assert_true(k8s_errno_is_retryable(-EHOSTUNREACH));
	/* 401, 403, bad configuration, TLS not trusted: final */
	assert_false(k8s_errno_is_retryable(-EKEYREJECTED));
	assert_false(k8s_errno_is_retryable(-EACCES));
	assert_false(k8s_errno_is_retryable(-EINVAL));
	assert_false(k8s_errno_is_retryable(-EBADMSG));
	assert_false(k8s_errno_is_retryable(-ENOENT));
	assert_false(k8s_errno_is_retryable(-EFBIG));
	assert_false(k8s_errno_is_retryable(0));
}

static void test_status(void **state)
{
	_cleanup_json_ struct json_object *s = json_tokener_parse(
		"{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\","
		"\"message\":\"nodes \\\"n1\\\" is forbidden: User \\\"u\\\" cannot patch resource "
		"\\\"nodes\\\"\",\"reason\":\"Forbidden\",\"details\":{\"name\":\"n1\","
		"\"kind\":\"nodes\",\"retryAfterSeconds\":7},\"code\":403}");
	_cleanup_json_ struct json_object *empty = json_tokener_parse("{\"message\":\"\"}");
	_cleanup_json_ struct json_object *odd =
		json_tokener_parse("{\"message\":5,\"details\":{\"retryAfterSeconds\":\"7\"}}");

	assert_non_null(s);
	assert_string_equal(
		k8s_status_message(s),
		"nodes \"n1\" is forbidden: User \"u\" cannot patch resource \"nodes\"");
	assert_string_equal(k8s_status_reason(s), "Forbidden");
	assert_int_equal(k8s_status_retry_after(s), 7);
	assert_null(k8s_status_cause(s));
	assert_null(k8s_status_message(empty));
	assert_null(k8s_status_message(odd));
	assert_int_equal(k8s_status_retry_after(odd), 0);
	assert_null(k8s_status_message(NULL));
	assert_int_equal(k8s_status_retry_after(NULL), 0);
}

static void test_status_cause(void **state)
{
	_cleanup_json_ struct json_object *s = json_tokener_parse(
		"{\"kind\":\"Status\",\"message\":\"Cannot evict pod as it would violate the "
		"pod's disruption budget.\",\"reason\":\"TooManyRequests\",\"details\":{\"causes\":"
		"[{\"reason\":\"X\"},{\"reason\":\"DisruptionBudget\",\"message\":\"The disruption "
		"budget db needs 1 healthy pods and has 1 currently\"}]},\"code\":429}");
	_cleanup_json_ struct json_object *odd =
		json_tokener_parse("{\"details\":{\"causes\":{\"message\":\"x\"}}}");

	assert_string_equal(k8s_status_cause(s),
			    "The disruption budget db needs 1 healthy pods and has 1 currently");
	assert_null(k8s_status_cause(odd));
	assert_null(k8s_status_cause(NULL));
}

/* Who refused: the bodies kube-apiserver writes for each. */
static void test_forbidden_kind(void **state)
{
	_cleanup_json_ struct json_object *rbac = json_tokener_parse(
		"{\"kind\":\"Status\",\"message\":\"pods \\\"db-0\\\" is forbidden: User "
		"\\\"system:serviceaccount:sriov-persist:node-a\\\" cannot create resource "
		"\\\"pods/eviction\\\" in API group \\\"\\\" in the namespace "
		"\\\"default\\\"\",\"reason\":\"Forbidden\",\"details\":{\"name\":\"db-0\","
		"\"kind\":\"pods\"},\"code\":403}");
	_cleanup_json_ struct json_object *ns = json_tokener_parse(
		"{\"kind\":\"Status\",\"message\":\"pods \\\"app-0\\\" is forbidden: unable "
		"to create new content in namespace doomed because it is being terminated\","
		"\"reason\":\"Forbidden\",\"details\":{\"name\":\"app-0\",\"kind\":\"pods\","
		"\"causes\":[{\"reason\":\"NamespaceTerminating\",\"message\":\"namespace "
		"doomed is being terminated\",\"field\":\"metadata.namespace\"}]},\"code\":403}");
	_cleanup_json_ struct json_object *webhook = json_tokener_parse(
		"{\"kind\":\"Status\",\"message\":\"admission webhook \\\"g.example.com\\\" "
		"denied the request: User \\\"x\\\" cannot evict resource \\\"pods\\\" "
		"today\",\"code\":403}");

	assert_int_equal(k8s_forbidden_kind(rbac), K8S_FORBIDDEN_RBAC);
	assert_int_equal(k8s_forbidden_kind(ns), K8S_FORBIDDEN_NAMESPACE_TERMINATING);
	assert_int_equal(k8s_forbidden_kind(webhook), K8S_FORBIDDEN_ADMISSION);
	assert_int_equal(k8s_forbidden_kind(NULL), K8S_FORBIDDEN_ADMISSION);
	assert_true(k8s_status_has_cause(ns, K8S_CAUSE_NAMESPACE_TERMINATING));
	assert_false(k8s_status_has_cause(ns, K8S_CAUSE_DISRUPTION_BUDGET));
	assert_false(k8s_status_has_cause(rbac, K8S_CAUSE_NAMESPACE_TERMINATING));
	assert_false(k8s_status_has_cause(NULL, K8S_CAUSE_NAMESPACE_TERMINATING));
}

static void test_backoff(void **state)
{
	usec_t base = 250 * USEC_PER_MSEC, cap = 4 * USEC_PER_SEC;

	/* the lower half is fixed, the upper half is jitter */
	assert_int_equal(k8s_backoff(0, base, cap, 0), base / 2);
	assert_int_equal(k8s_backoff(0, base, cap, UINT32_MAX) <= base, true);
	assert_int_equal(k8s_backoff(1, base, cap, 0), base);
	assert_int_equal(k8s_backoff(2, base, cap, 0), base * 2);
	/* capped, also for huge attempt numbers (no overflow) */
	assert_int_equal(k8s_backoff(10, base, cap, 0), cap / 2);
	assert_int_equal(k8s_backoff(1000, base, cap, 0), cap / 2);
	for (uint32_t r = 0; r < 100000; r += 997) {
		usec_t d = k8s_backoff(3, base, cap, r * 7919);

		assert_true(d >= base * 4 && d <= base * 8);
	}
	/* jitter spreads: distinct random inputs give distinct delays */
	assert_true(k8s_backoff(5, base, cap, 1) != k8s_backoff(5, base, cap, 1000));
}

static void test_json_get(void **state)
{
	_cleanup_json_ struct json_object *o = json_tokener_parse(
		"{\"metadata\":{\"name\":\"a\",\"annotations\":{\"k.io/x\":\"v\"}},\"n\":1}");

	assert_string_equal(k8s_json_str(o, "metadata", "name", NULL), "a");
	assert_string_equal(k8s_json_str(o, "metadata", "annotations", "k.io/x", NULL), "v");
	assert_null(k8s_json_str(o, "metadata", "nope", NULL));
	assert_null(k8s_json_str(o, "n", NULL));	   /* not a string */
	assert_null(k8s_json_get(o, "n", "deeper", NULL)); /* not an object */
	assert_null(k8s_json_get(NULL, "metadata", NULL));
	assert_ptr_equal(k8s_json_get(o, NULL), o);
}

static void test_name_valid(void **state)
{
	assert_true(k8s_name_is_valid("worker-1"));
	assert_true(k8s_name_is_valid("node.example.com"));
	assert_false(k8s_name_is_valid(""));
	assert_false(k8s_name_is_valid("Worker"));
	assert_false(k8s_name_is_valid("-a"));
	assert_false(k8s_name_is_valid("a/b"));
	assert_false(k8s_name_is_valid("a?b"));
	assert_false(k8s_name_is_valid("a%2f"));
}

/* as kubectl create token makes one: iat 03:14, exp 04:14 on 2026-12-06 (signature made up) */
static const char bound_token[] =
	"eyJhbGciOiJSUzI1NiIsImtpZCI6ImsxIn0.eyJhdWQiOlsiaHR0cHM6Ly9rdWJlcm5ldGVzLmRlZmF1bHQuc3ZjLmNsdXN0ZXIubG9jYWwiXSwiZXhwIjoxNzk2NTMwNDQwLCJpYXQiOjE3OTY1MjY4NDAsImlzcyI6Imh0dHBzOi8va3ViZXJuZXRlcy5kZWZhdWx0LnN2Yy5jbHVzdGVyLmxvY2FsIiwic3ViIjoic3lzdGVtOnNlcnZpY2VhY2NvdW50OnNyaW92LXBlcnNpc3Q6c3Jpb3YtcGVyc2lzdCJ9.c2lnbmF0dXJl";

static void test_jwt_times(void **state)
{
	usec_t iat = 1, exp = 1;

	assert_int_equal(k8s_jwt_times(bound_token, &iat, &exp), 0);
	assert_int_equal(iat, (usec_t)1796526840 * USEC_PER_SEC);
	assert_int_equal(exp, (usec_t)1796530440 * USEC_PER_SEC);
	/* a JWT without times; tokens that are no JWT */
	assert_int_equal(k8s_jwt_times("eyJhbGciOiJub25lIn0.e30.", &iat, &exp), 0);
	assert_int_equal(iat, 0);
	assert_int_equal(exp, 0);
	assert_int_equal(k8s_jwt_times("0123456789abcdef", &iat, &exp), -EINVAL);
	assert_int_equal(k8s_jwt_times("a..b", &iat, &exp), -EINVAL);
	assert_int_equal(k8s_jwt_times("a.e30=.b", &iat, &exp), -EINVAL);
	assert_int_equal(k8s_jwt_times("a.W10.b", &iat, &exp), -EINVAL); /* [] */
	assert_int_equal(k8s_jwt_times("a.bm90IGpzb24.b", &iat, &exp), -EINVAL);
}

/* EC client certificates as a CSR signer makes them: valid 2026-12-06 03:14 for a year
 * (UTCTime), and until 2051 (GeneralizedTime after 2049) */
static const char cert_year[] = "-----BEGIN CERTIFICATE-----\n"
				"MIIBXjCCAQOgAwIBAgIIEjRWeJCrze8wCgYIKoZIzj0EAwIwFTETMBEGA1UEAwwK\n"
				"a3ViZXJuZXRlczAeFw0yNjEyMDYwMzE0MDBaFw0yNzEyMDYwMzE0MDBaMFQxOjA4\n"
				"BgNVBAMMMXN5c3RlbTpzZXJ2aWNlYWNjb3VudDpzcmlvdi1wZXJzaXN0Om5vZGUt\n"
				"d29ya2VyLTcxFjAUBgNVBAoMDXNyaW92LXBlcnNpc3QwWTATBgcqhkjOPQIBBggq\n"
				"hkjOPQMBBwNCAAQLz2TOMRlvt9ruTlw41l8hwUrDE2dP5ler3kVCM0EmB+XYEjvl\n"
				"Mf6OD6W5K0H4uuWO+iDHJQC62YhyUVSBchS9MAoGCCqGSM49BAMCA0kAMEYCIQC4\n"
				"M0tE6iYUUDPGyeRDPlL5t9mGEzndG7AEoTUagwyM3AIhAJLqIMoiZJadcXJnKeHg\n"
				"sByMwQ8wQli7+h7S7me/0T/I\n"
				"-----END CERTIFICATE-----\n";
static const char cert_2051[] = "-----BEGIN CERTIFICATE-----\n"
				"MIIBYDCCAQWgAwIBAgIIEjRWeJCrze8wCgYIKoZIzj0EAwIwFTETMBEGA1UEAwwK\n"
				"a3ViZXJuZXRlczAgFw0yNjEyMDYwMzE0MDBaGA8yMDUxMDEwMTAwMDAwMFowVDE6\n"
				"MDgGA1UEAwwxc3lzdGVtOnNlcnZpY2VhY2NvdW50OnNyaW92LXBlcnNpc3Q6bm9k\n"
				"ZS13b3JrZXItNzEWMBQGA1UECgwNc3Jpb3YtcGVyc2lzdDBZMBMGByqGSM49AgEG\n"
				"CCqGSM49AwEHA0IABAvPZM4xGW+32u5OXDjWXyHBSsMTZ0/mV6veRUIzQSYH5dgS\n"
				"O+Ux/o4PpbkrQfi65Y76IMclALrZiHJRVIFyFL0wCgYIKoZIzj0EAwIDSQAwRgIh\n"
				"AJkjkqHVD/vFwCnUFs37EEFQcJBefXy8STnrlMugfxyUAiEArHWEf3Ber9XNcBAj\n"
				"b//voLKzBsEczPzlL6Hhajkuq3s=\n"
				"-----END CERTIFICATE-----\n";

static void test_cert_times(void **state)
{
	usec_t nb = 0, na = 0;
	char *broken;

	assert_int_equal(k8s_cert_times(cert_year, strlen(cert_year), &nb, &na), 0);
	assert_int_equal(nb, (usec_t)1796526840 * USEC_PER_SEC);
	assert_int_equal(na, (usec_t)(1796526840 + 365 * 86400) * USEC_PER_SEC);
	assert_int_equal(k8s_cert_times(cert_2051, strlen(cert_2051), &nb, &na), 0);
	assert_int_equal(na, (usec_t)2556143999 * USEC_PER_SEC + USEC_PER_SEC);
	/* the key's PEM, nothing, cut short, a byte changed in the validity's tag */
	assert_int_equal(k8s_cert_times("-----BEGIN EC PRIVATE KEY-----\nMHc\n", 34, &nb, &na),
			 -EINVAL);
	assert_int_equal(k8s_cert_times("", 0, &nb, &na), -EINVAL);
	assert_int_equal(k8s_cert_times(cert_year, 120, &nb, &na), -EINVAL);
	broken = strdup(cert_year);
	broken[strlen("-----BEGIN CERTIFICATE-----\n") + 64 + 1 + 14] ^= 1;
	assert_int_equal(k8s_cert_times(broken, strlen(broken), &nb, &na), -EINVAL);
	free(broken);
}

static void test_cred_warning(void **state)
{
	usec_t h = 3600 * USEC_PER_SEC, iat = (usec_t)1796526840 * USEC_PER_SEC, exp = iat + h;
	char *w;

	/* a token in the kubeconfig that lasts an hour: from the start */
	w = k8s_cred_warning(K8S_CRED_TOKEN, "/etc/k", iat, exp, iat + 2 * USEC_PER_SEC);
	assert_non_null(w);
	assert_non_null(
		strstr(w, "the token of /etc/k expires at 2026-12-06T04:14:00Z, in 59 min"));
	assert_non_null(strstr(w, "nothing renews it"));
	free(w);
	/* one that lasts a year: only in its last week */
	assert_null(k8s_cred_warning(K8S_CRED_TOKEN, "/etc/k", iat, iat + 365 * 24 * h, iat + h));
	w = k8s_cred_warning(K8S_CRED_TOKEN, "/etc/k", iat, iat + 365 * 24 * h, iat + 360 * 24 * h);
	assert_non_null(strstr(w, "in 5 d 0 h"));
	free(w);
	/* a token file a kubelet renews at 4/5 of its life: quiet until the last fifth */
	assert_null(k8s_cred_warning(K8S_CRED_TOKEN_FILE, "/t", iat, exp,
				     iat + 47 * 60 * USEC_PER_SEC));
	w = k8s_cred_warning(K8S_CRED_TOKEN_FILE, "/t", iat, exp, iat + 49 * 60 * USEC_PER_SEC);
	assert_non_null(
		strstr(w, "the token in the file /t expires at 2026-12-06T04:14:00Z, in 11 min"));
	free(w);
	/* no iat: a day */
	assert_null(k8s_cred_warning(K8S_CRED_TOKEN_FILE, "/t", 0, exp + 48 * h, exp));
	w = k8s_cred_warning(K8S_CRED_TOKEN_FILE, "/t", 0, exp + 2 * h, exp);
	assert_non_null(strstr(w, "in 2 h 0 min"));
	free(w);
	/* expired */
	w = k8s_cred_warning(K8S_CRED_TOKEN_FILE, "/t", iat, exp, exp + 40 * USEC_PER_SEC);
	assert_non_null(strstr(w, "expired at 2026-12-06T04:14:00Z: every request is refused"));
	free(w);
	/* a year's client certificate: its last 30 days; a day's: its last fifth */
	assert_null(k8s_cred_warning(K8S_CRED_CLIENT_CERTIFICATE, "/etc/k", iat, iat + 365 * 24 * h,
				     iat + 330 * 24 * h));
	w = k8s_cred_warning(K8S_CRED_CLIENT_CERTIFICATE, "/etc/k", iat, iat + 365 * 24 * h,
			     iat + 340 * 24 * h);
	assert_non_null(strstr(w, "the client certificate of /etc/k expires at"));
	assert_non_null(strstr(w, "in 25 d 0 h: renew it"));
	free(w);
	assert_null(k8s_cred_warning(K8S_CRED_CLIENT_CERTIFICATE, "/k", iat, iat + 24 * h,
				     iat + 19 * h));
	w = k8s_cred_warning(K8S_CRED_CLIENT_CERTIFICATE, "/k", iat, iat + 24 * h, iat + 20 * h);
	assert_non_null(w);
	free(w);
	/* renewed by a plugin, or unknown: nothing to say, unless the plugin gives one expired */
	assert_null(k8s_cred_warning(K8S_CRED_EXEC, "aws", iat, exp, exp - 1));
	w = k8s_cred_warning(K8S_CRED_EXEC, "aws", iat, exp, exp + 1);
	assert_non_null(strstr(w, "the credential of the exec plugin aws expired at"));
	free(w);
	assert_null(k8s_cred_warning(K8S_CRED_TOKEN, "/etc/k", 0, 0, exp));
	assert_string_equal(k8s_cred_kind_to_string(K8S_CRED_TOKEN_FILE), "token-file");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_microtime_format),
		cmocka_unit_test(test_microtime_parse),
		cmocka_unit_test(test_microtime_roundtrip),
		cmocka_unit_test(test_microtime_parse_bad),
		cmocka_unit_test(test_http_errno),
		cmocka_unit_test(test_retryable),
		cmocka_unit_test(test_status),
		cmocka_unit_test(test_status_cause),
		cmocka_unit_test(test_forbidden_kind),
		cmocka_unit_test(test_backoff),
		cmocka_unit_test(test_json_get),
		cmocka_unit_test(test_name_valid),
		cmocka_unit_test(test_jwt_times),
		cmocka_unit_test(test_cert_times),
		cmocka_unit_test(test_cred_warning),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
