/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* Device addresses as text (addr-util.c). */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "addr-util.h"

static void test_pci_same_device(void **state)
{
	assert_true(pci_same_device("0000:41:00.0", "0000:41:00.1"));
	assert_false(pci_same_device("0000:41:00.0", "0000:42:00.0"));
	assert_false(pci_same_device("0000:41:00.0", "0000:41:01.0"));
	assert_false(pci_same_device("0000:41:00.0", "junk"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pci_same_device),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
