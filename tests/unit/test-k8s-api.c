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
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
