/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "k8s-wait.h"

#define S USEC_PER_SEC
#define CAP (300 * S)

/* Doubling from 1 s, anywhere between 1 s and the step, never past the cap. */
static void test_delay(void **state)
{
	assert_int_equal(k8s_wait_delay(1, CAP, 0), 1 * S);
	assert_int_equal(k8s_wait_delay(1, CAP, UINT32_MAX), 1 * S);
	assert_int_equal(k8s_wait_delay(2, CAP, 0), 1 * S);
	assert_int_equal(k8s_wait_delay(2, CAP, (uint32_t)S), 2 * S);
	assert_int_equal(k8s_wait_delay(4, CAP, (uint32_t)(7 * S)), 8 * S);
	for (unsigned a = 1; a < 40; a++) {
		usec_t step = a >= 10 ? CAP : (S << (a - 1));

		for (uint32_t rnd = 0; rnd < 4000000000u; rnd += 99999989u) {
			usec_t d = k8s_wait_delay(a, CAP, rnd);

			assert_true(d >= S);
			assert_true(d <= step);
		}
	}
	/* the whole span is used: a fleet spreads over it */
	assert_true(k8s_wait_delay(20, CAP, (uint32_t)(CAP - S)) == CAP);
	/* a cap below the base is the base */
	assert_int_equal(k8s_wait_delay(5, 0, 12345), 1 * S);
}

static void test_outage(void **state)
{
	struct k8s_wait w = {};
	usec_t dur;
	unsigned n;

	assert_true(k8s_wait_may_run(&w, 0));
	assert_false(k8s_wait_answered(&w, 5, &dur, &n));

	/* the first failure begins it: the next try after the first delay */
	assert_int_equal(k8s_wait_failed(&w, 100 * S, 1700000000 * S, CAP, 0, 0, "refused"), 1);
	assert_int_equal(w.since, 1700000000 * S);
	assert_int_equal(w.attempts, 1);
	assert_int_equal(w.next, 101 * S);
	assert_string_equal(w.error, "refused");
	assert_false(k8s_wait_may_run(&w, 100 * S));
	assert_true(k8s_wait_may_run(&w, 101 * S));

	/* later ones go on with it, waiting longer */
	assert_int_equal(k8s_wait_failed(&w, 102 * S, 1700000002 * S, CAP, 0, UINT32_MAX, "reset"),
			 0);
	assert_int_equal(w.since, 1700000000 * S);
	assert_int_equal(w.attempts, 2);
	assert_true(w.next >= 103 * S && w.next <= 104 * S);
	assert_string_equal(w.error, "reset");

	/* a Retry-After longer than the delay is waited for at least, spread over half as
	 * long again (so that a fleet told the same does not come back at once), past the cap */
	assert_int_equal(k8s_wait_failed(&w, 110 * S, 0, CAP, 60 * S, 0, NULL), 0);
	assert_int_equal(w.next, 170 * S);
	assert_null(w.error);
	assert_int_equal(k8s_wait_failed(&w, 110 * S, 0, CAP, 60 * S, (uint32_t)(30 * S), NULL), 0);
	assert_int_equal(w.next, 200 * S);
	assert_int_equal(k8s_wait_failed(&w, 110 * S, 0, CAP, 60 * S, (uint32_t)(7 * S), NULL), 0);
	assert_int_equal(w.next, 177 * S);
	assert_int_equal(k8s_wait_failed(&w, 200 * S, 0, CAP, 3600 * S, 0, NULL), 0);
	assert_int_equal(w.next, 3800 * S);

	/* the first answer ends it, saying how long and how many tries */
	assert_true(k8s_wait_answered(&w, 400 * S, &dur, &n));
	assert_int_equal(dur, 300 * S);
	assert_int_equal(n, 6);
	assert_int_equal(w.since, 0);
	assert_true(k8s_wait_may_run(&w, 0));

	/* a new outage starts from the first delay again */
	assert_int_equal(k8s_wait_failed(&w, 1000 * S, 1, CAP, 0, UINT32_MAX, "refused"), 1);
	assert_int_equal(w.next, 1001 * S);
	k8s_wait_done(&w);
	assert_null(w.error);
}

/* What a node does during 150 s of outage, over 2000 throws of the dice: the
 * bound the daemon's tests hold it to (16 tries, 4 in the last 60 s). In
 * 200,000 simulated outages the first was never passed (13 tries at most)
 * and the second 5 times in a million. */
static void test_outage_bounds(void **state)
{
	uint32_t seed = 12345;

	for (unsigned run = 0; run < 2000; run++) {
		struct k8s_wait w = {};
		usec_t t = 0, times[64];
		unsigned n = 0, last = 0;

		while (t < 150 * S && n < ELEMENTSOF(times)) {
			times[n++] = t;
			seed ^= seed << 13; /* xorshift32 */
			seed ^= seed >> 17;
			seed ^= seed << 5;
			assert_true(k8s_wait_failed(&w, t, t, CAP, 0, seed, "x") >= 0);
			t = w.next;
		}
		for (unsigned i = 0; i < n; i++)
			last += times[i] >= 90 * S;
		assert_true(n <= 16);
		assert_true(last <= 4);
		k8s_wait_done(&w);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_delay),
		cmocka_unit_test(test_outage),
		cmocka_unit_test(test_outage_bounds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
