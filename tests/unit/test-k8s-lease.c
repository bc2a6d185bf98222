/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "json-util.h"
#include "lease-state.h"

#define T0 (1700000000ULL * USEC_PER_SEC)

static struct json_object *lease(const char *holder, const char *renew, int duration)
{
	_cleanup_free_ char *text = strdup_printf(
		"{\"metadata\":{\"name\":\"sriov-persist-slot-0\",\"resourceVersion\":\"41\"},"
		"\"spec\":{%s%s%s\"renewTime\":\"%s\",\"leaseDurationSeconds\":%d,"
		"\"acquireTime\":\"2023-11-14T22:00:00.000000Z\",\"leaseTransitions\":3}}",
		holder ? "\"holderIdentity\":\"" : "", holder ?: "", holder ? "\"," : "", renew,
		duration);
	struct json_object *l = json_tokener_parse(text);

	assert_non_null(l);
	return l;
}

static void test_decide(void **state)
{
	/* T0 is 2023-11-14T22:13:20Z */
	_cleanup_json_ struct json_object *busy = lease("n2", "2023-11-14T22:13:00.000000Z", 60);
	_cleanup_json_ struct json_object *expired = lease("n2", "2023-11-14T22:12:00.000000Z", 60);
	_cleanup_json_ struct json_object *edge = lease("n2", "2023-11-14T22:12:20.000000Z", 60);
	_cleanup_json_ struct json_object *ours = lease("n1", "2023-11-14T22:00:00.000000Z", 1);
	_cleanup_json_ struct json_object *free_ = lease(NULL, "2023-11-14T22:13:00.000000Z", 60);
	_cleanup_json_ struct json_object *empty = lease("", "2023-11-14T22:13:00.000000Z", 60);
	_cleanup_json_ struct json_object *bad_time = lease("n2", "yesterday", 60);

	assert_int_equal(lease_decide(NULL, "n1", T0), LEASE_STATE_ABSENT);
	assert_int_equal(lease_decide(busy, "n1", T0), LEASE_STATE_BUSY);
	assert_int_equal(lease_decide(expired, "n1", T0), LEASE_STATE_EXPIRED);
	/* renewTime + duration == now is not yet expired (< now is) */
	assert_int_equal(lease_decide(edge, "n1", T0), LEASE_STATE_BUSY);
	assert_int_equal(lease_decide(edge, "n1", T0 + 1), LEASE_STATE_EXPIRED);
	/* ours even when expired: nobody took it, keep it */
	assert_int_equal(lease_decide(ours, "n1", T0), LEASE_STATE_OURS);
	assert_int_equal(lease_decide(free_, "n1", T0), LEASE_STATE_FREE);
	assert_int_equal(lease_decide(empty, "n1", T0), LEASE_STATE_FREE);
	/* a holder whose times cannot be read cannot be proven alive */
	assert_int_equal(lease_decide(bad_time, "n1", T0), LEASE_STATE_EXPIRED);
}

static void test_decide_acquire_time_fallback(void **state)
{
	_cleanup_json_ struct json_object *l = json_tokener_parse(
		"{\"spec\":{\"holderIdentity\":\"n2\",\"leaseDurationSeconds\":3600,"
		"\"acquireTime\":\"2023-11-14T22:00:00Z\"}}");
	_cleanup_json_ struct json_object *no_duration = json_tokener_parse(
		"{\"spec\":{\"holderIdentity\":\"n2\",\"renewTime\":\"2023-11-14T22:13:00Z\"}}");

	assert_int_equal(lease_decide(l, "n1", T0), LEASE_STATE_BUSY);
	assert_int_equal(lease_decide(no_duration, "n1", T0), LEASE_STATE_EXPIRED);
}

/* Values an int32 field of the API cannot hold: never a takeover, never an
 * overflow. */
static void test_int32_fields(void **state)
{
	_cleanup_json_ struct json_object *huge =
		json_tokener_parse("{\"spec\":{\"holderIdentity\":\"n2\",\"leaseDurationSeconds\":"
				   "9223372036854775807,\"renewTime\":\"2023-11-14T22:13:00Z\"}}");
	_cleanup_json_ struct json_object *past_int32 = json_tokener_parse(
		"{\"spec\":{\"holderIdentity\":\"n2\",\"leaseDurationSeconds\":2147483648,"
		"\"renewTime\":\"2023-11-14T22:13:00Z\"}}");
	_cleanup_json_ struct json_object *max = json_tokener_parse(
		"{\"spec\":{\"holderIdentity\":\"n2\",\"leaseDurationSeconds\":2147483647,"
		"\"renewTime\":\"9999-12-31T23:59:59.999999Z\"}}");
	_cleanup_json_ struct json_object *transitions = json_tokener_parse(
		"{\"metadata\":{\"resourceVersion\":\"1\"},\"spec\":{\"holderIdentity\":\"n2\","
		"\"leaseTransitions\":9223372036854775807}}");
	_cleanup_json_ struct json_object *at_max = json_tokener_parse(
		"{\"spec\":{\"holderIdentity\":\"n2\",\"leaseTransitions\":2147483647}}");
	_cleanup_json_ struct json_object *negative = json_tokener_parse(
		"{\"spec\":{\"holderIdentity\":\"n2\",\"leaseTransitions\":-1}}");
	_cleanup_json_ struct json_object *l = NULL;

	assert_int_equal(lease_decide(huge, "n1", T0), _LEASE_STATE_INVALID);
	assert_int_equal(lease_decide(past_int32, "n1", T0), _LEASE_STATE_INVALID);
	/* the largest the API holds, from the last MicroTime there is: no overflow */
	assert_int_equal(lease_decide(max, "n1", T0), LEASE_STATE_BUSY);
	assert_int_equal(lease_build_hold(transitions, "ns", "x", "n1", 60, T0, &l), -ERANGE);
	assert_int_equal(lease_build_hold(at_max, "ns", "x", "n1", 60, T0, &l), -ERANGE);
	assert_int_equal(lease_build_hold(negative, "ns", "x", "n1", 60, T0, &l), -ERANGE);
	assert_int_equal(lease_build_hold(NULL, "ns", "x", "n1", UINT32_MAX, T0, &l), -ERANGE);
	assert_null(l);
}

static void test_pick(void **state)
{
	enum lease_state all_busy[] = { LEASE_STATE_BUSY, LEASE_STATE_BUSY, LEASE_STATE_BUSY };
	enum lease_state ours[] = { LEASE_STATE_FREE, LEASE_STATE_BUSY, LEASE_STATE_OURS };
	enum lease_state mixed[] = { LEASE_STATE_BUSY, LEASE_STATE_ABSENT, LEASE_STATE_BUSY,
				     LEASE_STATE_EXPIRED };
	bool seen[4] = {};

	assert_int_equal(lease_pick(all_busy, 3, 0), -EBUSY);
	assert_int_equal(lease_pick(all_busy, 0, 0), -EBUSY);
	for (uint32_t r = 0; r < 10; r++)
		assert_int_equal(lease_pick(ours, 3, r), 2); /* keep what we hold */
	for (uint32_t r = 0; r < 10; r++) {
		int i = lease_pick(mixed, 4, r);

		assert_true(i == 1 || i == 3);
		seen[i] = true;
	}
	/* contenders spread over the takeable slots */
	assert_true(seen[1] && seen[3]);
}

static void test_build_new(void **state)
{
	_cleanup_json_ struct json_object *l = NULL;

	assert_int_equal(lease_build_hold(NULL, "kube-system", "sriov-persist-slot-1", "n1", 3600,
					  T0 + 5, &l),
			 0);
	assert_string_equal(k8s_json_str(l, "apiVersion", NULL), "coordination.k8s.io/v1");
	assert_string_equal(k8s_json_str(l, "kind", NULL), "Lease");
	assert_string_equal(k8s_json_str(l, "metadata", "name", NULL), "sriov-persist-slot-1");
	assert_string_equal(k8s_json_str(l, "metadata", "namespace", NULL), "kube-system");
	assert_null(k8s_json_get(l, "metadata", "resourceVersion", NULL));
	assert_string_equal(k8s_json_str(l, "spec", "holderIdentity", NULL), "n1");
	assert_string_equal(k8s_json_str(l, "spec", "renewTime", NULL),
			    "2023-11-14T22:13:20.000005Z");
	assert_string_equal(k8s_json_str(l, "spec", "acquireTime", NULL),
			    "2023-11-14T22:13:20.000005Z");
	assert_int_equal(json_object_get_int(k8s_json_get(l, "spec", "leaseDurationSeconds", NULL)),
			 3600);
	assert_int_equal(json_object_get_int(k8s_json_get(l, "spec", "leaseTransitions", NULL)), 0);
	assert_int_equal(lease_decide(l, "n1", T0), LEASE_STATE_OURS);
	assert_int_equal(lease_decide(l, "n2", T0 + 3599 * USEC_PER_SEC), LEASE_STATE_BUSY);
	assert_int_equal(lease_decide(l, "n2", T0 + 3601 * USEC_PER_SEC), LEASE_STATE_EXPIRED);
}

static void test_build_takeover_renew_release(void **state)
{
	_cleanup_json_ struct json_object *prev = lease("n2", "2023-11-14T22:00:00.000000Z", 60);
	_cleanup_json_ struct json_object *took = NULL, *renewed = NULL, *released = NULL;

	/* take over: resourceVersion kept (the precondition), holder changes */
	assert_int_equal(lease_build_hold(prev, "kube-system", "x", "n1", 600, T0, &took), 0);
	assert_string_equal(k8s_json_str(took, "metadata", "resourceVersion", NULL), "41");
	assert_string_equal(k8s_json_str(took, "spec", "holderIdentity", NULL), "n1");
	assert_string_equal(k8s_json_str(took, "spec", "acquireTime", NULL),
			    "2023-11-14T22:13:20.000000Z");
	assert_int_equal(json_object_get_int(k8s_json_get(took, "spec", "leaseTransitions", NULL)),
			 4);
	/* prev is untouched */
	assert_string_equal(k8s_json_str(prev, "spec", "holderIdentity", NULL), "n2");

	/* renew: same holder keeps acquireTime and transitions */
	assert_int_equal(lease_build_hold(took, "kube-system", "x", "n1", 600, T0 + USEC_PER_SEC,
					  &renewed),
			 0);
	assert_string_equal(k8s_json_str(renewed, "spec", "acquireTime", NULL),
			    "2023-11-14T22:13:20.000000Z");
	assert_string_equal(k8s_json_str(renewed, "spec", "renewTime", NULL),
			    "2023-11-14T22:13:21.000000Z");
	assert_int_equal(
		json_object_get_int(k8s_json_get(renewed, "spec", "leaseTransitions", NULL)), 4);

	assert_int_equal(lease_build_release(renewed, &released), 0);
	assert_null(k8s_json_get(released, "spec", "holderIdentity", NULL));
	assert_string_equal(k8s_json_str(released, "metadata", "resourceVersion", NULL), "41");
	assert_int_equal(lease_decide(released, "n3", T0), LEASE_STATE_FREE);
}

/* A Lease the server answered with that is no object is refused, not built on. */
static void test_build_not_an_object(void **state)
{
	static const char *const bad[] = { "[]", "\"lease\"", "7", "true" };

	for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
		_cleanup_json_ struct json_object *prev = json_tokener_parse(bad[i]);
		struct json_object *l = NULL;

		assert_non_null(prev);
		assert_int_equal(lease_build_hold(prev, "kube-system", "sriov-persist-slot-0",
						  "node-a", 3600, 0, &l),
				 -EBADMSG);
		assert_int_equal(lease_build_release(prev, &l), -EBADMSG);
		assert_null(l);
	}
}

static void test_slot_names(void **state)
{
	_cleanup_free_ char *a = lease_slot_name(0), *b = lease_slot_name(12);

	assert_string_equal(a, "sriov-persist-slot-0");
	assert_string_equal(b, "sriov-persist-slot-12");
	for (int s = 0; s < _LEASE_STATE_MAX; s++)
		assert_non_null(lease_state_to_string(s));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_decide),
		cmocka_unit_test(test_decide_acquire_time_fallback),
		cmocka_unit_test(test_int32_fields),
		cmocka_unit_test(test_pick),
		cmocka_unit_test(test_build_new),
		cmocka_unit_test(test_build_takeover_renew_release),
		cmocka_unit_test(test_build_not_an_object),
		cmocka_unit_test(test_slot_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
