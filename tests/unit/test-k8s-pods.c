/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "json-util.h"
#include "pods.h"

/* the resources of the PFs a change touches */
static char *const touched[] = { (char *)"intel.com/e810_rdma", (char *)"intel.com/vf", NULL };

static enum pod_verdict classify(const char *json, enum drain_pods mode)
{
	_cleanup_json_ struct json_object *pod = json_tokener_parse(json);

	assert_non_null(pod);
	return pod_classify(pod, mode, touched);
}

#define SRIOV_CTR "{\"name\":\"c\",\"resources\":{\"requests\":{\"intel.com/e810_rdma\":\"2\"}}}"
#define PLAIN_CTR "{\"name\":\"c\",\"resources\":{\"requests\":{\"cpu\":\"1\"}}}"

static void test_plain_and_sriov(void **state)
{
	const char *sriov = "{\"metadata\":{\"name\":\"a\"},\"spec\":{\"containers\":[" PLAIN_CTR
			    "," SRIOV_CTR "]},\"status\":{\"phase\":\"Running\"}}";
	const char *plain = "{\"metadata\":{\"name\":\"b\"},\"spec\":{\"containers\":[" PLAIN_CTR
			    "]},\"status\":{\"phase\":\"Running\"}}";

	assert_int_equal(classify(sriov, DRAIN_PODS_SRIOV), POD_VERDICT_EVICT);
	assert_int_equal(classify(sriov, DRAIN_PODS_ALL), POD_VERDICT_EVICT);
	assert_int_equal(classify(plain, DRAIN_PODS_SRIOV), POD_VERDICT_SKIP_NOT_SRIOV);
	assert_int_equal(classify(plain, DRAIN_PODS_ALL), POD_VERDICT_EVICT);
}

static void test_limits_and_init_containers(void **state)
{
	assert_int_equal(classify("{\"spec\":{\"containers\":[{\"resources\":{\"limits\":"
				  "{\"intel.com/vf\":\"1\"}}}]}}",
				  DRAIN_PODS_SRIOV),
			 POD_VERDICT_EVICT);
	assert_int_equal(classify("{\"spec\":{\"containers\":[" PLAIN_CTR
				  "],\"initContainers\":[" SRIOV_CTR "]}}",
				  DRAIN_PODS_SRIOV),
			 POD_VERDICT_EVICT);
}

static void test_resource_is_exact(void **state)
{
	_cleanup_json_ struct json_object *pod =
		json_tokener_parse("{\"spec\":{\"containers\":[" SRIOV_CTR "]}}");

	/* another vendor, another resource of the same vendor (another PF's), a longer
	 * name, a bare prefix: not touched by this change */
	assert_int_equal(classify("{\"spec\":{\"containers\":[{\"resources\":{\"requests\":{"
				  "\"nvidia.com/gpu\":\"1\",\"intel.com/x710_vf\":\"1\","
				  "\"intel.com/e810_rdma2\":\"1\",\"intel.com.evil/vf\":\"1\","
				  "\"intel.com\":\"1\",\"intel.com/\":\"1\"}}}]}}",
				  DRAIN_PODS_SRIOV),
			 POD_VERDICT_SKIP_NOT_SRIOV);
	/* no resource named (no ResourceName= in the layouts): no pod is known to use the VFs */
	assert_int_equal(pod_classify(pod, DRAIN_PODS_SRIOV, NULL), POD_VERDICT_SKIP_NOT_SRIOV);
	assert_int_equal(pod_classify(pod, DRAIN_PODS_SRIOV, (char *[]){ NULL }),
			 POD_VERDICT_SKIP_NOT_SRIOV);
	assert_int_equal(pod_classify(pod, DRAIN_PODS_ALL, NULL), POD_VERDICT_EVICT);
	/* a malformed pod is not ours either, and does not crash */
	assert_int_equal(classify("{\"spec\":{\"containers\":{\"x\":1}}}", DRAIN_PODS_SRIOV),
			 POD_VERDICT_SKIP_NOT_SRIOV);
	assert_int_equal(classify("{\"spec\":{\"containers\":[5,{\"resources\":[]}]}}",
				  DRAIN_PODS_SRIOV),
			 POD_VERDICT_SKIP_NOT_SRIOV);
}

static void test_skips(void **state)
{
	/* DaemonSet pods stay, in either mode, unless they request our resources (a DPDK
	 * DaemonSet): those are replaced, or waited for when already terminating */
	assert_int_equal(classify("{\"metadata\":{\"ownerReferences\":[{\"kind\":\"DaemonSet\","
				  "\"name\":\"sriovdp\"}]},\"spec\":{\"containers\":[" PLAIN_CTR
				  "]}}",
				  DRAIN_PODS_ALL),
			 POD_VERDICT_SKIP_DAEMONSET);
	assert_int_equal(classify("{\"metadata\":{\"ownerReferences\":[{\"kind\":\"ReplicaSet\"},"
				  "{\"kind\":\"DaemonSet\",\"name\":\"dpdk\"}]},"
				  "\"spec\":{\"containers\":[" SRIOV_CTR "]}}",
				  DRAIN_PODS_SRIOV),
			 POD_VERDICT_REPLACE);
	assert_int_equal(classify("{\"metadata\":{\"ownerReferences\":[{\"kind\":\"DaemonSet\"}],"
				  "\"deletionTimestamp\":\"2024-01-01T00:00:00Z\"},"
				  "\"spec\":{\"containers\":[" SRIOV_CTR "]}}",
				  DRAIN_PODS_ALL),
			 POD_VERDICT_TERMINATING);
	assert_int_equal(classify("{\"metadata\":{\"ownerReferences\":[{\"kind\":\"DaemonSet\"}]},"
				  "\"spec\":{\"containers\":[" SRIOV_CTR "]},"
				  "\"status\":{\"phase\":\"Failed\"}}",
				  DRAIN_PODS_SRIOV),
			 POD_VERDICT_SKIP_DAEMONSET);
	assert_int_equal(classify("{\"metadata\":{\"ownerReferences\":[{\"kind\":\"ReplicaSet\"}]},"
				  "\"spec\":{\"containers\":[" SRIOV_CTR "]}}",
				  DRAIN_PODS_SRIOV),
			 POD_VERDICT_EVICT);
	assert_int_equal(classify("{\"metadata\":{\"annotations\":{\"kubernetes.io/config.mirror\":"
				  "\"abc\"}},\"spec\":{\"containers\":[" SRIOV_CTR "]}}",
				  DRAIN_PODS_ALL),
			 POD_VERDICT_SKIP_MIRROR);
	assert_int_equal(classify("{\"spec\":{\"containers\":[" SRIOV_CTR
				  "]},\"status\":{\"phase\":\"Succeeded\"}}",
				  DRAIN_PODS_ALL),
			 POD_VERDICT_SKIP_FINISHED);
	assert_int_equal(classify("{\"status\":{\"phase\":\"Failed\"}}", DRAIN_PODS_ALL),
			 POD_VERDICT_SKIP_FINISHED);
	assert_int_equal(classify("{\"metadata\":{\"deletionTimestamp\":\"2024-01-01T00:00:00Z\"},"
				  "\"spec\":{\"containers\":[" SRIOV_CTR "]}}",
				  DRAIN_PODS_SRIOV),
			 POD_VERDICT_TERMINATING);
}

static void test_ready(void **state)
{
	_cleanup_json_ struct json_object *ready = json_tokener_parse(
		"{\"status\":{\"conditions\":[{\"type\":\"PodScheduled\",\"status\":\"True\"},"
		"{\"type\":\"Ready\",\"status\":\"True\"}]}}");
	_cleanup_json_ struct json_object *not_ready = json_tokener_parse(
		"{\"status\":{\"conditions\":[{\"type\":\"Ready\",\"status\":\"False\"}]}}");
	_cleanup_json_ struct json_object *leaving = json_tokener_parse(
		"{\"metadata\":{\"deletionTimestamp\":\"x\"},"
		"\"status\":{\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\"}]}}");

	assert_true(pod_is_ready(ready));
	assert_false(pod_is_ready(not_ready));
	assert_false(pod_is_ready(leaving));
	assert_true(pod_is_terminating(leaving));
	assert_false(pod_is_ready(NULL));
}

static void test_names(void **state)
{
	for (int v = 0; v < _POD_VERDICT_MAX; v++)
		assert_non_null(pod_verdict_to_string(v));
	assert_null(pod_verdict_to_string(_POD_VERDICT_MAX));
	assert_string_equal(pod_verdict_to_string(POD_VERDICT_SKIP_DAEMONSET), "daemonset");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain_and_sriov),
		cmocka_unit_test(test_limits_and_init_containers),
		cmocka_unit_test(test_resource_is_exact),
		cmocka_unit_test(test_skips),
		cmocka_unit_test(test_ready),
		cmocka_unit_test(test_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
