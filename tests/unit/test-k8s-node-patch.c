/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "json-util.h"
#include "node-patch.h"

static enum cordon_state state_of(const char *json)
{
	_cleanup_json_ struct json_object *node = json_tokener_parse(json);

	assert_non_null(node);
	return node_cordon_state(node);
}

static void test_cordon_state(void **state)
{
	assert_int_equal(state_of("{\"spec\":{}}"), CORDON_STATE_SCHEDULABLE);
	assert_int_equal(state_of("{\"spec\":{\"unschedulable\":false}}"),
			 CORDON_STATE_SCHEDULABLE);
	/* someone else's cordon: never claimed, never lifted */
	assert_int_equal(state_of("{\"spec\":{\"unschedulable\":true}}"), CORDON_STATE_FOREIGN);
	assert_int_equal(state_of("{\"metadata\":{\"annotations\":{\"sriov-persist.io/cordoned\":"
				  "\"false\"}},\"spec\":{\"unschedulable\":true}}"),
			 CORDON_STATE_FOREIGN);
	assert_int_equal(state_of("{\"metadata\":{\"annotations\":{\"sriov-persist.io/cordoned\":"
				  "\"true\"}},\"spec\":{\"unschedulable\":true}}"),
			 CORDON_STATE_OURS);
	/* our claim on a node someone uncordoned by hand */
	assert_int_equal(state_of("{\"metadata\":{\"annotations\":{\"sriov-persist.io/cordoned\":"
				  "\"true\"}},\"spec\":{}}"),
			 CORDON_STATE_STALE);
	/* a string "true" is not a boolean */
	assert_int_equal(state_of("{\"spec\":{\"unschedulable\":\"true\"}}"),
			 CORDON_STATE_SCHEDULABLE);
}

static void test_cordon_patch(void **state)
{
	_cleanup_free_ char *p = node_patch_cordon("123"), *q = node_patch_cordon(NULL);

	assert_string_equal(p, "{\"metadata\":{\"annotations\":{\"sriov-persist.io/cordoned\":"
			       "\"true\"},\"resourceVersion\":\"123\"},"
			       "\"spec\":{\"unschedulable\":true}}");
	assert_string_equal(q, "{\"metadata\":{\"annotations\":{\"sriov-persist.io/cordoned\":"
			       "\"true\"}},\"spec\":{\"unschedulable\":true}}");
}

static void test_uncordon_patch(void **state)
{
	_cleanup_free_ char *lift = node_patch_uncordon("7", true);
	_cleanup_free_ char *forget = node_patch_uncordon("7", false);

	/* null removes the annotation in a merge patch */
	assert_string_equal(lift, "{\"metadata\":{\"annotations\":{\"sriov-persist.io/cordoned\":"
				  "null},\"resourceVersion\":\"7\"},"
				  "\"spec\":{\"unschedulable\":false}}");
	assert_string_equal(forget,
			    "{\"metadata\":{\"annotations\":{\"sriov-persist.io/cordoned\":null},"
			    "\"resourceVersion\":\"7\"}}");
}

static void test_annotations(void **state)
{
	_cleanup_json_ struct json_object *ann = NULL, *patch = NULL;
	_cleanup_free_ char *text = NULL;
	char error[K8S_ERROR_MAX] = "";

	assert_int_equal(node_patch_annotations("{\"applied\":3,\"held\":0,\"drifted\":false,"
						"\"pending_reboot\":true,\"reasons\":[\"iommu\"],"
						"\"state\":\"idle\",\"old\":null}",
						&text, &ann, error),
			 0);
	patch = json_tokener_parse(text);
	assert_non_null(patch);
	assert_string_equal(k8s_json_str(patch, "metadata", "annotations",
					 "sriov-persist.io/applied", NULL),
			    "3");
	assert_string_equal(k8s_json_str(ann, "sriov-persist.io/drifted", NULL), "false");
	assert_string_equal(k8s_json_str(ann, "sriov-persist.io/pending-reboot", NULL), "true");
	assert_string_equal(k8s_json_str(ann, "sriov-persist.io/reasons", NULL), "[\"iommu\"]");
	assert_string_equal(k8s_json_str(ann, "sriov-persist.io/state", NULL), "idle");
	/* null removes */
	assert_true(json_object_object_get_ex(ann, "sriov-persist.io/old", NULL));
	assert_null(k8s_json_get(ann, "sriov-persist.io/old", NULL));
}

static void test_capable_label(void **state)
{
	_cleanup_json_ struct json_object *ann = NULL, *patch = NULL, *ann2 = NULL, *patch2 = NULL;
	_cleanup_free_ char *text = NULL, *text2 = NULL;
	char error[K8S_ERROR_MAX] = "";

	assert_int_equal(node_patch_annotations("{\"applied\":1,\"network-sriov-capable\":true}",
						&text, &ann, error),
			 0);
	patch = json_tokener_parse(text);
	assert_string_equal(k8s_json_str(patch, "metadata", "labels", NODE_CAPABLE_LABEL, NULL),
			    "true");
	/* a label, not an annotation */
	assert_false(json_object_object_get_ex(k8s_json_get(patch, "metadata", "annotations", NULL),
					       "sriov-persist.io/network-sriov-capable", NULL));
	assert_string_equal(k8s_json_str(ann, NODE_CAPABLE_LABEL, NULL), "true");
	assert_string_equal(k8s_json_str(ann, "sriov-persist.io/applied", NULL), "1");

	/* false removes it (null in the merge patch) */
	assert_int_equal(node_patch_annotations("{\"network-sriov-capable\":false}", &text2, &ann2,
						error),
			 0);
	patch2 = json_tokener_parse(text2);
	assert_true(json_object_object_get_ex(k8s_json_get(patch2, "metadata", "labels", NULL),
					      NODE_CAPABLE_LABEL, NULL));
	assert_null(k8s_json_get(patch2, "metadata", "labels", NODE_CAPABLE_LABEL, NULL));
}

static void annotations_fail(const char *state, const char *what)
{
	char error[K8S_ERROR_MAX] = "", *text = NULL;
	struct json_object *ann = NULL;

	assert_int_equal(node_patch_annotations(state, &text, &ann, error), -EINVAL);
	assert_null(text);
	assert_null(ann);
	if (!strstr(error, what))
		print_error("\"%s\" lacks \"%s\"\n", error, what);
	assert_non_null(strstr(error, what));
}

static void test_annotations_bad(void **state)
{
	_cleanup_free_ char *big = malloc(NODE_STATE_MAX + 16);

	annotations_fail("", "JSON object");
	annotations_fail("[1]", "JSON object");
	annotations_fail("{\"a\":1", "JSON object");
	annotations_fail("{\"a/b\":1}", "\"a/b\"");
	annotations_fail("{\"-a\":1}", "\"-a\"");
	annotations_fail("{\"\":1}", "\"\"");
	/* the cordon annotation is not the daemon's to set */
	annotations_fail("{\"cordoned\":\"true\"}", "reserved");
	annotations_fail("{\"network-sriov-capable\":\"yes\"}", "must be true or false");
	assert_non_null(big);
	memset(big, ' ', NODE_STATE_MAX + 8);
	memcpy(big, "{\"a\":1}", 7);
	big[NODE_STATE_MAX + 8] = '\0';
	annotations_fail(big, "at most 64 KiB");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cordon_state),   cmocka_unit_test(test_cordon_patch),
		cmocka_unit_test(test_uncordon_patch), cmocka_unit_test(test_annotations),
		cmocka_unit_test(test_capable_label),  cmocka_unit_test(test_annotations_bad),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
