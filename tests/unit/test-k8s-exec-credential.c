/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "exec-credential.h"
#include "json-util.h"

#define V1 EXEC_API_V1

static int parse(const char *text, struct exec_credential *c, char *error)
{
	return exec_credential_parse(text, strlen(text), V1, c, error);
}

static void parse_fails(const char *text, const char *what)
{
	struct exec_credential c = {};
	char error[K8S_ERROR_MAX] = "";

	assert_int_equal(parse(text, &c, error), -EBADMSG);
	assert_null(c.token);
	if (!strstr(error, what))
		print_error("message \"%s\" lacks \"%s\"\n", error, what);
	assert_non_null(strstr(error, what));
}

static void test_token(void **state)
{
	struct exec_credential c = {};
	char error[K8S_ERROR_MAX] = "";

	/* as aws eks get-token prints it */
	assert_int_equal(parse("{\"kind\":\"ExecCredential\",\"apiVersion\":\"" V1 "\","
			       "\"spec\":{},\"status\":{\"expirationTimestamp\":"
			       "\"2026-12-06T04:14:00Z\",\"token\":\"k8s-aws-v1.aHR0cHM6\"}}\n",
			       &c, error),
			 0);
	assert_string_equal(c.token, "k8s-aws-v1.aHR0cHM6");
	assert_null(c.cert);
	assert_int_equal(c.expires, (usec_t)1796530440 * USEC_PER_SEC);
	exec_credential_done(&c);
	/* no expiry: valid until the server says otherwise */
	assert_int_equal(parse("{\"kind\":\"ExecCredential\",\"apiVersion\":\"" V1 "\","
			       "\"status\":{\"token\":\"t\",\"expirationTimestamp\":null}}",
			       &c, error),
			 0);
	assert_int_equal(c.expires, 0);
	exec_credential_done(&c);
}

static void test_certificate(void **state)
{
	struct exec_credential c = {};
	char error[K8S_ERROR_MAX] = "";

	assert_int_equal(parse("{\"kind\":\"ExecCredential\",\"apiVersion\":\"" V1 "\","
			       "\"status\":{\"clientCertificateData\":\"-----BEGIN CERTIFICATE-----"
			       "\\nMII\\n-----END CERTIFICATE-----\\n\",\"clientKeyData\":"
			       "\"-----BEGIN EC PRIVATE KEY-----\\nMHc\\n-----END EC PRIVATE "
			       "KEY-----\\n\"}}",
			       &c, error),
			 0);
	assert_null(c.token);
	assert_non_null(strstr(c.cert, "BEGIN CERTIFICATE"));
	assert_non_null(strstr(c.key, "EC PRIVATE KEY"));
	exec_credential_done(&c);
}

static void test_refused(void **state)
{
	parse_fails("", "not a JSON object");
	parse_fails("[]", "not a JSON object");
	parse_fails("{\"kind\":\"ExecCredential\",\"apiVersion\":\"" V1 "\"} trailing",
		    "not a JSON object");
	/* the apiVersion asked for, not another */
	parse_fails("{\"kind\":\"ExecCredential\",\"apiVersion\":\"" EXEC_API_V1BETA1 "\","
		    "\"status\":{\"token\":\"t\"}}",
		    "not an ExecCredential of " V1);
	parse_fails("{\"kind\":\"Status\",\"apiVersion\":\"" V1 "\",\"status\":{\"token\":\"t\"}}",
		    "kind Status");
	parse_fails("{\"kind\":\"ExecCredential\",\"apiVersion\":\"" V1 "\"}", "no status");
	parse_fails("{\"kind\":\"ExecCredential\",\"apiVersion\":\"" V1 "\",\"status\":{}}",
		    "neither a token nor");
	parse_fails("{\"kind\":\"ExecCredential\",\"apiVersion\":\"" V1
		    "\",\"status\":{\"token\":\"\"}}",
		    "neither a token nor");
	parse_fails("{\"kind\":\"ExecCredential\",\"apiVersion\":\"" V1
		    "\",\"status\":{\"token\":5}}",
		    "not a string");
	parse_fails("{\"kind\":\"ExecCredential\",\"apiVersion\":\"" V1
		    "\",\"status\":{\"token\":\"a\\r\\nX-Evil: 1\"}}",
		    "not one line");
	parse_fails("{\"kind\":\"ExecCredential\",\"apiVersion\":\"" V1
		    "\",\"status\":{\"clientCertificateData\":\"-----BEGIN CERTIFICATE-----\"}}",
		    "without a key");
	parse_fails("{\"kind\":\"ExecCredential\",\"apiVersion\":\"" V1
		    "\",\"status\":{\"clientCertificateData\":\"x\",\"clientKeyData\":\"y\"}}",
		    "not PEM");
	parse_fails("{\"kind\":\"ExecCredential\",\"apiVersion\":\"" V1
		    "\",\"status\":{\"token\":\"t\",\"expirationTimestamp\":\"tomorrow\"}}",
		    "not an RFC 3339 time");
}

static void test_request(void **state)
{
	struct kc_exec e = { .api_version = (char *)V1, .command = (char *)"p" };
	_cleanup_json_ struct json_object *o = NULL;
	char *s;

	s = exec_credential_request(&e, "https://h:6443", "CA", 2);
	assert_string_equal(s, "{\"kind\":\"ExecCredential\",\"apiVersion\":\"" V1 "\","
			       "\"spec\":{\"interactive\":false}}");
	free(s);
	e.provide_cluster_info = true;
	s = exec_credential_request(&e, "https://h:6443", "CA", 2);
	o = json_tokener_parse(s);
	assert_string_equal(k8s_json_str(o, "spec", "cluster", "server", NULL), "https://h:6443");
	assert_string_equal(k8s_json_str(o, "spec", "cluster", "certificate-authority-data", NULL),
			    "Q0E=");
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_token),
		cmocka_unit_test(test_certificate),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_request),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
