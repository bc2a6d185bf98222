/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "action.h"

/* Every type has a name that finds it again: plan documents and the
 * simulated host's faults use them. */
static void test_names(void **state)
{
	for (enum action_type t = 0; t < _ACTION_TYPE_MAX; t++) {
		assert_non_null(action_type_to_string(t));
		assert_int_equal(action_type_from_string(action_type_to_string(t)), t);
	}
	assert_string_equal(action_type_to_string(ACTION_SET_LINK_TYPE), "set_link_type");
	assert_null(action_type_to_string(_ACTION_TYPE_MAX));
	assert_null(action_type_to_string(_ACTION_TYPE_INVALID));
	assert_int_equal(action_type_from_string("bind_driver"), _ACTION_TYPE_INVALID);
	assert_int_equal(action_type_from_string(NULL), _ACTION_TYPE_INVALID);
}

/* The VF actions name a VF; the kernel calls that may hang are the sysfs
 * writes and the devlink mode change, nothing else. */
static void test_properties(void **state)
{
	const uint32_t on_vf = 1u << ACTION_UNBIND_VF | 1u << ACTION_SET_VF | 1u << ACTION_BIND_VF |
			       1u << ACTION_SET_VF_MTU | 1u << ACTION_SET_REPRESENTOR_UP;
	const uint32_t blocking = 1u << ACTION_SET_NUM_VFS | 1u << ACTION_SET_ESWITCH_MODE |
				  1u << ACTION_UNBIND_VF | 1u << ACTION_BIND_VF;

	for (enum action_type t = 0; t < _ACTION_TYPE_MAX; t++) {
		assert_int_equal(action_type_on_vf(t), (on_vf >> t) & 1);
		assert_int_equal(action_type_blocking(t) != NULL, (blocking >> t) & 1);
	}
	assert_string_equal(action_type_blocking(ACTION_SET_NUM_VFS), "write to sriov_numvfs");
	assert_false(action_type_on_vf(_ACTION_TYPE_INVALID));
	assert_null(action_type_blocking(_ACTION_TYPE_MAX));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_properties),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
