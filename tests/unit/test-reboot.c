/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>

#include <cmocka.h>

#include "reboot.h"

#define BOOT_A "0123456789abcdef0123456789abcdef"
#define BOOT_B "fedcba9876543210fedcba9876543210"
#define PF0 "0000:3b:00.0"
#define PF1 "0000:3b:00.1"
#define IOMMU "VF 1 wants vfio-pci but the IOMMU is off"
#define FW "firmware VF limit raised to 16"

static void record(struct reboot_record *r, const char *boot, usec_t since, const char *pci,
		   const char *text)
{
	snprintf(r->boot_id, sizeof(r->boot_id), "%s", boot);
	assert_int_equal(reboot_record_add(r, pci, text, since), 0);
}

/* Current reasons stand; one seen earlier in this boot keeps its time. */
static void test_current_keeps_since(void **state)
{
	struct reboot_record old = {}, cur = {}, m;

	record(&old, BOOT_A, 100, PF0, IOMMU);
	record(&cur, BOOT_A, 900, PF0, IOMMU);
	record(&cur, BOOT_A, 900, PF1, FW);
	assert_int_equal(reboot_record_merge(&old, &cur, BOOT_A, false, &m), 0);
	assert_int_equal(m.n_reasons, 2);
	assert_string_equal(m.boot_id, BOOT_A);
	assert_int_equal(m.reasons[0].since, 100);
	assert_int_equal(m.reasons[1].since, 900);
	reboot_record_done(&old);
	reboot_record_done(&cur);
	reboot_record_done(&m);
}

/* In the same boot a reason the plans no longer show stays: only a reboot
 * satisfies it. */
static void test_same_boot_keeps(void **state)
{
	struct reboot_record old = {}, cur = {}, m;

	record(&old, BOOT_A, 100, PF1, FW);
	assert_int_equal(reboot_record_merge(&old, &cur, BOOT_A, false, &m), 0);
	assert_int_equal(m.n_reasons, 1);
	assert_true(reboot_record_has(&m, PF1, FW));
	reboot_record_done(&old);
	reboot_record_done(&m);
}

/* A layout change withdraws what the layouts no longer ask for. */
static void test_layout_change_withdraws(void **state)
{
	struct reboot_record old = {}, cur = {}, m;

	record(&old, BOOT_A, 100, PF1, FW);
	record(&old, BOOT_A, 100, PF0, IOMMU);
	record(&cur, BOOT_A, 900, PF0, IOMMU);
	assert_int_equal(reboot_record_merge(&old, &cur, BOOT_A, true, &m), 0);
	assert_int_equal(m.n_reasons, 1);
	assert_true(reboot_record_has(&m, PF0, IOMMU));
	assert_false(reboot_record_has(&m, PF1, FW));
	assert_int_equal(m.reasons[0].since, 100);
	reboot_record_done(&old);
	reboot_record_done(&cur);
	reboot_record_done(&m);
}

/* After a reboot only what still stands counts, with a new time. */
static void test_reboot_clears(void **state)
{
	struct reboot_record old = {}, cur = {}, m;

	record(&old, BOOT_A, 100, PF1, FW);
	record(&old, BOOT_A, 100, PF0, IOMMU);
	record(&cur, BOOT_B, 900, PF0, IOMMU);
	assert_int_equal(reboot_record_merge(&old, &cur, BOOT_B, false, &m), 0);
	assert_int_equal(m.n_reasons, 1);
	assert_true(reboot_record_has(&m, PF0, IOMMU));
	assert_int_equal(m.reasons[0].since, 900);
	assert_string_equal(m.boot_id, BOOT_B);
	reboot_record_done(&old);
	reboot_record_done(&cur);
	reboot_record_done(&m);
}

static void test_add_is_idempotent(void **state)
{
	struct reboot_record r = {};

	record(&r, BOOT_A, 1, PF0, IOMMU);
	record(&r, BOOT_A, 2, PF0, IOMMU);
	assert_int_equal(r.n_reasons, 1);
	assert_int_equal(r.reasons[0].since, 1);
	reboot_record_done(&r);
}

/* Whether a layout asks for a reason is kept through a merge (current's
 * word first, else persisted's), a write and a read; only the asked count. */
static void test_unasked(void **state)
{
	char dir[] = "/tmp/test-reboot-XXXXXX";
	struct reboot_record old = {}, cur = {}, m, back;

	snprintf(old.boot_id, sizeof(old.boot_id), "%s", BOOT_A);
	assert_int_equal(reboot_record_add_unasked(&old, PF1, FW, 100), 0);
	record(&old, BOOT_A, 100, PF0, IOMMU);
	assert_int_equal(reboot_record_n_asked(&old), 1);
	/* current says PF0's is no layout's now; PF1's unasked one, not shown
	 * now (its firmware set back), goes: each look sees those anew */
	snprintf(cur.boot_id, sizeof(cur.boot_id), "%s", BOOT_A);
	assert_int_equal(reboot_record_add_unasked(&cur, PF0, IOMMU, 900), 0);
	assert_int_equal(reboot_record_merge(&old, &cur, BOOT_A, false, &m), 0);
	assert_int_equal(m.n_reasons, 1);
	assert_int_equal(reboot_record_n_asked(&m), 0);
	assert_int_equal(m.reasons[0].since, 100);
	assert_int_equal(reboot_record_add_unasked(&m, PF1, FW, 100), 0);
	/* adding what is there already changes nothing */
	assert_int_equal(reboot_record_add(&m, PF0, IOMMU, 5), 0);
	assert_true(m.reasons[0].unasked);

	assert_non_null(mkdtemp(dir));
	m.reasons[1].unasked = false;
	assert_int_equal(reboot_record_write(dir, &m), 0);
	assert_int_equal(reboot_record_read(dir, &back), 0);
	assert_int_equal(back.n_reasons, 2);
	assert_true(back.reasons[0].unasked);
	assert_false(back.reasons[1].unasked);
	assert_int_equal(reboot_record_n_asked(&back), 1);
	{
		_cleanup_free_ char *path = strdup_printf("%s/reboot.json", dir);

		unlink(path);
	}
	rmdir(dir);
	reboot_record_done(&old);
	reboot_record_done(&cur);
	reboot_record_done(&m);
	reboot_record_done(&back);
}

static void test_write_read(void **state)
{
	char dir[] = "/tmp/test-reboot-XXXXXX";
	struct reboot_record r = {}, back;

	assert_non_null(mkdtemp(dir));
	assert_int_equal(reboot_record_read(dir, &back), -ENOENT);
	record(&r, BOOT_A, 123456789, PF0, IOMMU);
	record(&r, BOOT_A, 5, PF1, FW);
	assert_int_equal(reboot_record_write(dir, &r), 0);
	assert_int_equal(reboot_record_read(dir, &back), 0);
	assert_string_equal(back.boot_id, BOOT_A);
	assert_int_equal(back.n_reasons, 2);
	assert_string_equal(back.reasons[0].pci, PF0);
	assert_string_equal(back.reasons[0].text, IOMMU);
	assert_int_equal(back.reasons[0].since, 123456789);
	assert_true(reboot_record_has(&back, PF1, FW));
	reboot_record_done(&r);
	reboot_record_done(&back);
	{
		_cleanup_free_ char *path = strdup_printf("%s/reboot.json", dir);
		FILE *f = fopen(path, "w");

		assert_non_null(f);
		fputs("{\"boot_id\": 7, \"reasons\": []}", f);
		fclose(f);
		assert_int_equal(reboot_record_read(dir, &back), -EINVAL);
		unlink(path);
	}
	rmdir(dir);
}

static bool drop_pf0(const struct reboot_reason *reason, void *userdata)
{
	return streq(reason->pci, userdata);
}

/* A filter keeps the boot, when each reason was first seen and whether a
 * layout asks for it; it drops what it is told to, nothing else. */
static void test_filter(void **state)
{
	struct reboot_record r = {}, f;

	record(&r, BOOT_A, 100, PF0, IOMMU);
	assert_int_equal(reboot_record_add_unasked(&r, PF1, FW, 200), 0);
	assert_int_equal(reboot_record_add(&r, PF1, IOMMU, 300), 0);
	assert_int_equal(reboot_record_filter(&r, drop_pf0, (void *)PF0, &f), 0);
	assert_string_equal(f.boot_id, BOOT_A);
	assert_int_equal(f.n_reasons, 2);
	assert_string_equal(f.reasons[0].text, FW);
	assert_int_equal(f.reasons[0].since, 200);
	assert_true(f.reasons[0].unasked);
	assert_string_equal(f.reasons[1].text, IOMMU);
	assert_int_equal(f.reasons[1].since, 300);
	assert_false(f.reasons[1].unasked);
	reboot_record_done(&f);
	reboot_record_done(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_current_keeps_since),
		cmocka_unit_test(test_same_boot_keeps),
		cmocka_unit_test(test_layout_change_withdraws),
		cmocka_unit_test(test_reboot_clears),
		cmocka_unit_test(test_add_is_idempotent),
		cmocka_unit_test(test_write_read),
		cmocka_unit_test(test_unasked),
		cmocka_unit_test(test_filter),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
