/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "operation.h"

#define BOOT "3f1e0c8a9b7d4e2f8a6c5b4d3e2f1a0b"

static void test_round_trip(void **state)
{
	struct operation op = { .kind = OP_KIND_REBOOT,
				.step = OP_STEP_UNCORDON,
				.slot = (char *)"sriov-persist-slot-2",
				.drained = true,
				.reasons = (char *)"0000:af:00.0: firmware NUM_OF_VFS 8 -> 16",
				.boot_id = BOOT };
	_cleanup_free_ char *text = operation_format(&op), *again = NULL;
	struct operation *back = NULL;

	assert_non_null(text);
	assert_int_equal(operation_parse(text, &back), 0);
	assert_int_equal(back->kind, OP_KIND_REBOOT);
	assert_int_equal(back->step, OP_STEP_UNCORDON);
	assert_string_equal(back->slot, "sriov-persist-slot-2");
	assert_true(back->drained);
	assert_string_equal(back->boot_id, BOOT);
	assert_string_equal(back->reasons, op.reasons);
	assert_non_null(back->pfs);
	assert_null(back->pfs[0]);
	again = operation_format(back);
	assert_string_equal(again, text);
	operation_free(back);
}

static void test_pfs(void **state)
{
	struct operation *op = NULL;

	assert_int_equal(
		operation_parse("{\"kind\":\"drain\",\"step\":\"apply\",\"boot_id\":\"" BOOT
				"\",\"pfs\":[\"0000:3b:00.0\",\"0000:3b:00.1\"]}",
				&op),
		0);
	assert_string_equal(op->pfs[0], "0000:3b:00.0");
	assert_string_equal(op->pfs[1], "0000:3b:00.1");
	assert_null(op->pfs[2]);
	assert_null(op->slot);
	assert_false(op->drained);
	operation_free(op);
}

/* Whatever operation_format() would not write is refused, nothing half-read. */
static void test_refused(void **state)
{
	static const char *const bad[] = {
		"",
		"[]",
		"{\"kind\":\"drain\",\"step\":\"lea",
		"{\"kind\":\"drain\",\"step\":\"lease\"}", /* no boot_id */
		"{\"kind\":\"drain\",\"step\":\"later\",\"boot_id\":\"\"}",
		"{\"kind\":\"upgrade\",\"step\":\"lease\",\"boot_id\":\"\"}",
		"{\"kind\":7,\"step\":\"lease\",\"boot_id\":\"\"}",
		"{\"kind\":\"drain\",\"step\":\"lease\",\"boot_id\":\"\",\"slot\":\"../kube-system\"}",
		"{\"kind\":\"drain\",\"step\":\"lease\",\"boot_id\":\"\",\"slot\":5}",
		"{\"kind\":\"drain\",\"step\":\"lease\",\"boot_id\":\"\",\"drained\":\"yes\"}",
		"{\"kind\":\"drain\",\"step\":\"lease\",\"boot_id\":\"\",\"pfs\":[null]}",
		"{\"kind\":\"drain\",\"step\":\"lease\",\"boot_id\":\"\",\"pfs\":[\"eth0\"]}",
		"{\"kind\":\"drain\",\"step\":\"lease\",\"boot_id\":\"\",\"pfs\":\"0000:3b:00.0\"}",
		"{\"kind\":\"drain\",\"step\":\"lease\",\"boot_id\":\"" BOOT "0\"}",
	};

	for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
		struct operation *op = NULL;

		assert_int_equal(operation_parse(bad[i], &op), -EBADMSG);
		assert_null(op);
	}
}

static void test_slot_names(void **state)
{
	assert_true(op_slot_is_valid("sriov-persist-slot-0"));
	assert_false(op_slot_is_valid(""));
	assert_false(op_slot_is_valid(NULL));
	assert_false(op_slot_is_valid("-slot"));
	assert_false(op_slot_is_valid("Slot"));
	assert_false(op_slot_is_valid("a/b"));
	assert_false(op_slot_is_valid("a.b"));
}

static void test_step_result(void **state)
{
	struct step_result r;

	assert_int_equal(step_result_parse("{\"op\":\"lease\",\"slot\":\"sriov-persist-slot-1\","
					   "\"ok\":true,\"requests\":4}\n",
					   &r),
			 0);
	assert_string_equal(r.slot, "sriov-persist-slot-1");
	assert_null(r.error);
	step_result_done(&r);

	assert_int_equal(
		step_result_parse("{\"ok\":false,\"error\":\"drain node worker-1: 1 pod(s) "
				  "still terminating\",\"retryable\":true}",
				  &r),
		0);
	assert_null(r.slot);
	assert_string_equal(r.error, "drain node worker-1: 1 pod(s) still terminating");
	step_result_done(&r);

	/* the credentials, their known fields only */
	assert_int_equal(
		step_result_parse("{\"ok\":true,\"credentials\":{\"kind\":\"token\","
				  "\"source\":\"/etc/k\",\"expires\":\"2026-12-06T04:14:00."
				  "000000Z\",\"warning\":\"soon\",\"extra\":1}}",
				  &r),
		0);
	assert_string_equal(json_object_to_json_string_ext(r.credentials,
							   JSON_C_TO_STRING_PLAIN |
								   JSON_C_TO_STRING_NOSLASHESCAPE),
			    "{\"kind\":\"token\",\"source\":\"/etc/k\",\"expires\":"
			    "\"2026-12-06T04:14:00.000000Z\",\"warning\":\"soon\"}");
	step_result_done(&r);
	assert_int_equal(
		step_result_parse("{\"credentials\":{\"kind\":\"exec\",\"warning\":null}}", &r), 0);
	assert_null(json_object_object_get(r.credentials, "warning"));
	step_result_done(&r);
	assert_int_equal(step_result_parse("{\"credentials\":[]}", &r), -EBADMSG);
	assert_int_equal(step_result_parse("{\"credentials\":{\"expires\":5}}", &r), -EBADMSG);
	assert_null(r.credentials);

	/* a run that found no API server */
	assert_int_equal(step_result_parse("{\"ok\":false,\"error\":\"get node: refused\","
					   "\"retryable\":true,\"unreachable\":true,"
					   "\"retry_after\":30,\"requests\":0}",
					   &r),
			 0);
	assert_true(r.unreachable);
	assert_int_equal(r.retry_after, 30);
	assert_int_equal(r.requests, 0);
	step_result_done(&r);
	assert_int_equal(step_result_parse("{\"ok\":true,\"requests\":3}", &r), 0);
	assert_false(r.unreachable);
	assert_int_equal(r.requests, 3);
	step_result_done(&r);
	assert_int_equal(step_result_parse("{\"unreachable\":1}", &r), -EBADMSG);
	assert_int_equal(step_result_parse("{\"unreachable\":true,\"retry_after\":-1}", &r),
			 -EBADMSG);
	assert_false(r.unreachable);
	assert_int_equal(step_result_parse("{\"retry_after\":86401}", &r), -EBADMSG);
	assert_int_equal(step_result_parse("{\"unreachable\":true,\"credentials\":[]}", &r),
			 -EBADMSG);
	assert_false(r.unreachable);

	assert_int_equal(step_result_parse("{\"slot\":5}", &r), -EBADMSG);
	assert_null(r.slot);
	assert_int_equal(step_result_parse("{\"slot\":\"Slot 1\"}", &r), -EBADMSG);
	assert_int_equal(step_result_parse("{\"error\":[]}", &r), -EBADMSG);
	assert_int_equal(step_result_parse("k8s-notify: panic", &r), -EBADMSG);
	assert_int_equal(step_result_parse(NULL, &r), -EBADMSG);
}

/* What undoes a failed step: the cordon first, then a slot that may be ours. */
static void test_abort_step(void **state)
{
	struct operation op = { .kind = OP_KIND_DRAIN, .step = OP_STEP_APPLY };

	assert_int_equal(operation_abort_step(&op), OP_STEP_DONE);
	op.step = OP_STEP_LEASE;
	assert_int_equal(operation_abort_step(&op), OP_STEP_RELEASE);
	op.step = OP_STEP_DRAIN;
	assert_int_equal(operation_abort_step(&op), OP_STEP_UNCORDON);
	op.step = OP_STEP_DEVICE_PLUGIN;
	op.lease_unknown = true;
	assert_int_equal(operation_abort_step(&op), OP_STEP_RELEASE);
	op.drained = true;
	assert_int_equal(operation_abort_step(&op), OP_STEP_UNCORDON);
}

/* The summary says draining or rebooting only until the node is back. */
static void test_manager_state(void **state)
{
	struct operation op = { .kind = OP_KIND_DRAIN, .step = OP_STEP_UNCORDON };

	assert_int_equal(operation_manager_state(NULL), MANAGER_IDLE);
	assert_int_equal(operation_manager_state(&op), MANAGER_DRAINING);
	op.step = OP_STEP_DONE;
	assert_int_equal(operation_manager_state(&op), MANAGER_IDLE);
	op.kind = OP_KIND_REBOOT;
	op.step = OP_STEP_REBOOT;
	assert_int_equal(operation_manager_state(&op), MANAGER_REBOOTING);
	op.step = OP_STEP_UNCORDON;
	assert_int_equal(operation_manager_state(&op), MANAGER_IDLE);
	op.kind = OP_KIND_DEVICE_PLUGIN;
	op.step = OP_STEP_DEVICE_PLUGIN;
	assert_int_equal(operation_manager_state(&op), MANAGER_IDLE);
	/* the recovery of an interrupted operation is a drain's undoing */
	op.kind = OP_KIND_RECOVER;
	op.step = OP_STEP_UNCORDON;
	assert_int_equal(operation_manager_state(&op), MANAGER_DRAINING);
	op.step = OP_STEP_RELEASE;
	assert_int_equal(operation_manager_state(&op), MANAGER_DRAINING);
	op.step = OP_STEP_DONE;
	assert_int_equal(operation_manager_state(&op), MANAGER_IDLE);
}

static void test_json(void **state)
{
	char *pfs[] = { (char *)"0000:3b:00.0", NULL };
	struct operation op = { .kind = OP_KIND_DRAIN, .step = OP_STEP_DRAIN, .pfs = pfs };
	struct json_object *o = operation_json(&op);

	assert_string_equal(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN),
			    "{\"kind\":\"drain\",\"step\":\"drain\",\"pfs\":[\"0000:3b:00.0\"],"
			    "\"slot\":null,\"error\":null}");
	json_object_put(o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),    cmocka_unit_test(test_pfs),
		cmocka_unit_test(test_refused),	      cmocka_unit_test(test_slot_names),
		cmocka_unit_test(test_step_result),   cmocka_unit_test(test_abort_step),
		cmocka_unit_test(test_manager_state), cmocka_unit_test(test_json),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
